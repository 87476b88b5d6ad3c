//! Conservative advancement against a brute-force oracle (DESIGN.md §4):
//! samples close enough that no point moves more than `δ / 2` between
//! them, all-pairs triangle intersection and distance at each sample, no
//! BVH.

use std::f64::consts::PI;
use std::sync::Arc;

use armature_bvh_geometry::query::{distance_triangle_triangle, intersect_triangle_triangle};
use armature_bvh_geometry::{
    ArticulatedBody, DisabledPairs, Obstacle, ObstacleMotion, Tessellation, TriMesh,
};
use armature_conservative_advance::{
    CcdOptions, CcdReport, CcdScene, CcdStatus, CcdWorkspace, Other, first_contact,
};
use armature_kinematics::{InBetweenMotion, Joint, KinematicTree, LinkSpec, MotionBounds};
use glam::{DAffine3, DVec3};
use proptest::prelude::*;

/// Link lengths of the arm (metres); every link is a 0.1 m square beam.
const LENGTHS: [f64; 3] = [1.0, 0.8, 0.6];
/// Oracle resolution: largest relative motion between samples is `δ / 2`.
const DELTA: f64 = 0.02;

fn cuboid(size: DVec3, center: DVec3) -> Arc<TriMesh> {
    let m = Tessellation::default().cuboid(size).unwrap();
    Arc::new(m.transformed(&DAffine3::from_translation(center)).unwrap())
}

fn beam(length: f64) -> Arc<TriMesh> {
    cuboid(
        DVec3::new(length, 0.1, 0.1),
        DVec3::new(0.5 * length, 0.0, 0.0),
    )
}

/// A base without geometry and three revolute links (axes z, y, y).
fn arm() -> ArticulatedBody {
    let tree = KinematicTree::new(vec![
        LinkSpec::new("base", None),
        LinkSpec::new("l1", Some("base")).with_joint(Joint::revolute("j1", DVec3::Z, -7.0, 7.0)),
        LinkSpec::new("l2", Some("l1"))
            .with_joint(Joint::revolute("j2", DVec3::Y, -7.0, 7.0))
            .with_origin(DAffine3::from_translation(DVec3::X * LENGTHS[0])),
        LinkSpec::new("l3", Some("l2"))
            .with_joint(Joint::revolute("j3", DVec3::Y, -7.0, 7.0))
            .with_origin(DAffine3::from_translation(DVec3::X * LENGTHS[1])),
    ])
    .unwrap();
    let meshes = vec![
        None,
        Some(beam(LENGTHS[0])),
        Some(beam(LENGTHS[1])),
        Some(beam(LENGTHS[2])),
    ];
    ArticulatedBody::new("arm", tree, meshes).unwrap()
}

/// A box and a 2 mm plate.
fn obstacles() -> Vec<Obstacle> {
    vec![
        Obstacle::fixed(
            "box",
            cuboid(DVec3::splat(0.5), DVec3::ZERO),
            DAffine3::from_translation(DVec3::new(1.0, 1.0, 0.3)),
        )
        .unwrap(),
        Obstacle::fixed(
            "plate",
            cuboid(DVec3::new(1.0, 0.002, 1.0), DVec3::ZERO),
            DAffine3::from_translation(DVec3::new(-0.8, -0.9, 0.0)),
        )
        .unwrap(),
    ]
}

/// World triangles of one mesh under a pose.
fn world(mesh: &TriMesh, pose: &DAffine3) -> Vec<[DVec3; 3]> {
    mesh.triangles()
        .map(|t| t.map(|p| pose.transform_point3(p)))
        .collect()
}

/// Brute force over all triangle pairs: (intersecting, distance).
fn brute(a: &[[DVec3; 3]], b: &[[DVec3; 3]]) -> (bool, f64) {
    let mut hit = false;
    let mut d = f64::INFINITY;
    for ta in a {
        for tb in b {
            hit |= intersect_triangle_triangle(ta, tb);
            d = d.min(distance_triangle_triangle(ta, tb));
        }
    }
    (hit, d)
}

/// Every tested pair's world triangles at `t`: (intersecting, distance).
fn scene_at(
    body: &ArticulatedBody,
    obstacles: &[Obstacle],
    motion: &InBetweenMotion,
    self_collision: bool,
    t: f64,
) -> (bool, f64) {
    let tree = body.tree();
    let mut poses = vec![DAffine3::IDENTITY; tree.len()];
    motion.poses_at(t, &mut poses).unwrap();
    let links: Vec<Option<Vec<[DVec3; 3]>>> = body
        .links()
        .iter()
        .zip(&poses)
        .map(|(g, p)| g.as_ref().map(|g| world(&g.mesh, p)))
        .collect();
    let mut hit = false;
    let mut d = f64::INFINITY;
    for (i, a) in links.iter().enumerate() {
        let Some(a) = a else { continue };
        for o in obstacles {
            let (h, dd) = brute(a, &world(&o.geometry().mesh, &o.pose_at(t)));
            hit |= h;
            d = d.min(dd);
        }
        if self_collision {
            for (j, b) in links.iter().enumerate().skip(i + 1) {
                let Some(b) = b else { continue };
                if tree.are_adjacent(i, j) {
                    continue;
                }
                let (h, dd) = brute(a, b);
                hit |= h;
                d = d.min(dd);
            }
        }
    }
    (hit, d)
}

/// What the oracle saw.
#[derive(Debug)]
enum Verdict {
    /// First colliding sample.
    Collides(f64),
    /// Every sampled distance above `δ`.
    Free,
    /// Neither: either answer is accepted.
    Graze,
}

fn oracle(
    body: &ArticulatedBody,
    obstacles: &[Obstacle],
    q0: &[f64],
    q1: &[f64],
    self_collision: bool,
) -> Verdict {
    let tree = body.tree();
    let motion = InBetweenMotion::new(tree, q0, q1).unwrap();
    let points: Vec<Vec<DVec3>> = body
        .links()
        .iter()
        .map(|g| {
            g.as_ref()
                .map_or(vec![DVec3::ZERO], |g| g.mesh.vertices().to_vec())
        })
        .collect();
    let bounds = MotionBounds::new(tree, &points).unwrap();
    let link_speed = (0..tree.len())
        .map(|i| bounds.mu(&motion, i, 0.0).unwrap())
        .fold(0.0, f64::max);
    // A moving obstacle's points move at most |v| + |ω|·max|p|.
    let obstacle_speed = obstacles
        .iter()
        .map(|o| match o.motion() {
            ObstacleMotion::Static(_) => 0.0,
            ObstacleMotion::Rigid { motion, .. } => {
                let r = o
                    .geometry()
                    .mesh
                    .vertices()
                    .iter()
                    .map(|p| p.length())
                    .fold(0.0, f64::max);
                motion.velocity.length() + motion.omega.abs() * r
            }
        })
        .fold(0.0, f64::max);
    let speed = link_speed.max(obstacle_speed);
    // Relative speed ≤ 2·speed: a time between samples is within half a
    // step of one, where the distance moved at most δ / 2.
    let steps = ((2.0 * speed / DELTA).ceil() as usize).max(1);
    let mut min_d = f64::INFINITY;
    for k in 0..=steps {
        let t = k as f64 / steps as f64;
        let (hit, d) = scene_at(body, obstacles, &motion, self_collision, t);
        if hit {
            return Verdict::Collides(t);
        }
        min_d = min_d.min(d);
    }
    if min_d > DELTA {
        Verdict::Free
    } else {
        Verdict::Graze
    }
}

fn run(
    body: &ArticulatedBody,
    obstacles: &[Obstacle],
    q0: &[f64],
    q1: &[f64],
    options: &CcdOptions,
) -> CcdReport {
    let mut ws = CcdWorkspace::new();
    first_contact(
        body,
        obstacles,
        &DisabledPairs::new(),
        q0,
        q1,
        options,
        &mut ws,
    )
    .unwrap()
}

/// Checks one motion against the oracle, with and without temporal
/// culling.
fn check(body: &ArticulatedBody, obstacles: &[Obstacle], q0: &[f64], q1: &[f64]) -> CcdReport {
    check_with(body, obstacles, q0, q1, CcdOptions::default())
}

/// As [`check`] with these options (temporal culling toggled).
fn check_with(
    body: &ArticulatedBody,
    obstacles: &[Obstacle],
    q0: &[f64],
    q1: &[f64],
    options: CcdOptions,
) -> CcdReport {
    let options = options.with_temporal_culling(true);
    let on = run(body, obstacles, q0, q1, &options);
    let off = run(
        body,
        obstacles,
        q0,
        q1,
        &options.with_temporal_culling(false),
    );
    assert_eq!(on.status, off.status, "culling changes the status");
    assert!(
        (on.toc_lower_bound - off.toc_lower_bound).abs() <= 1e-12,
        "culling changes the time: {} vs {}",
        on.toc_lower_bound,
        off.toc_lower_bound
    );
    assert!(on.stats.pairs_after_temporal <= off.stats.pairs_after_temporal);
    match oracle(body, obstacles, q0, q1, options.self_collision) {
        Verdict::Collides(t) => {
            assert!(on.may_collide(), "free, but the oracle collides at {t}");
            assert!(
                on.toc_lower_bound <= t,
                "time {} after the oracle's colliding sample {t}",
                on.toc_lower_bound
            );
            if t == 0.0 {
                assert_eq!(on.status, CcdStatus::CollidingAtStart);
            }
        }
        Verdict::Free => assert_eq!(on.status, CcdStatus::Free, "oracle free"),
        Verdict::Graze => {}
    }
    if let Some(c) = on.contact {
        assert!(c.time == on.toc_lower_bound || on.status == CcdStatus::CollidingAtStart);
        let motion = InBetweenMotion::new(body.tree(), q0, q1).unwrap();
        let (_, d) = scene_at(body, obstacles, &motion, options.self_collision, c.time);
        assert!(
            d <= options.distance_threshold + 1e-9,
            "distance {d} at the reported time {}",
            c.time
        );
        assert!((c.normal.length() - 1.0).abs() < 1e-9);
        let link_mesh = &body.links()[c.link].as_ref().unwrap().mesh;
        let other_mesh = match c.other {
            Other::Obstacle(o) => &obstacles[o].geometry().mesh,
            Other::Link(l) => &body.links()[l].as_ref().unwrap().mesh,
        };
        assert!((c.triangle_a as usize) < link_mesh.num_triangles());
        assert!((c.triangle_b as usize) < other_mesh.num_triangles());
        assert!(c.distance <= options.distance_threshold);
    }
    on
}

#[test]
fn swing_180_hits_the_box() {
    let (body, obs) = (arm(), obstacles());
    let r = check(&body, &obs, &[-PI / 2.0, 0.0, 0.0], &[PI / 2.0, 0.0, 0.0]);
    assert_eq!(r.status, CcdStatus::Collides);
    let c = r.contact.unwrap();
    assert_eq!(c.other, Other::Obstacle(0));
    assert!(c.time > 0.0 && c.time < 1.0);
}

#[test]
fn fast_swing_does_not_tunnel_through_the_thin_plate() {
    let body = arm();
    let plate = obstacles().split_off(1);
    // Straight arm turning 200° about z sweeps through the 2 mm plate.
    let r = check(
        &body,
        &plate,
        &[0.0, 0.0, 0.0],
        &[-200f64.to_radians(), 0.0, 0.0],
    );
    assert_eq!(r.status, CcdStatus::Collides);
    assert_eq!(r.contact.unwrap().other, Other::Obstacle(0));
}

#[test]
fn already_colliding_start() {
    let (body, obs) = (arm(), obstacles());
    // Pointed at the box centre (1, 1, 0.3), tilted up towards it.
    let q0 = [PI / 4.0, -0.3, 0.0];
    let motion = InBetweenMotion::new(body.tree(), &q0, &q0).unwrap();
    assert!(scene_at(&body, &obs, &motion, true, 0.0).0, "scene setup");
    let r = check(&body, &obs, &q0, &[0.0, 0.0, 0.0]);
    assert_eq!(r.status, CcdStatus::CollidingAtStart);
    assert_eq!(r.toc_lower_bound, 0.0);
}

#[test]
fn contact_exactly_at_the_end() {
    let body = arm();
    // The straight arm along +y ends at y = 2.4, the box's lower face.
    let reach: f64 = LENGTHS.iter().sum();
    let obs = vec![
        Obstacle::fixed(
            "cap",
            cuboid(DVec3::splat(0.4), DVec3::ZERO),
            DAffine3::from_translation(DVec3::new(0.0, reach + 0.2, 0.0)),
        )
        .unwrap(),
    ];
    let r = check(&body, &obs, &[0.0, 0.0, 0.0], &[PI / 2.0, 0.0, 0.0]);
    assert!(r.may_collide(), "{r:?}");
    assert!(r.toc_lower_bound <= 1.0);
}

#[test]
fn touching_at_the_start_counts_as_colliding() {
    let body = arm();
    // The straight arm along +x ends at x = 2.4, the box's face; it then
    // turns away.
    let reach: f64 = LENGTHS.iter().sum();
    let obs = vec![
        Obstacle::fixed(
            "stop",
            cuboid(DVec3::splat(0.4), DVec3::ZERO),
            DAffine3::from_translation(DVec3::new(reach + 0.2, 0.0, 0.0)),
        )
        .unwrap(),
    ];
    let r = check(&body, &obs, &[0.0, 0.0, 0.0], &[1.0, 0.0, 0.0]);
    assert_eq!(r.status, CcdStatus::CollidingAtStart);
    assert_eq!(r.toc_lower_bound, 0.0);
}

#[test]
fn statistics_are_consistent() {
    let (body, obs) = (arm(), obstacles());
    let (q0, q1) = ([-PI / 2.0, 0.0, 0.0], [PI / 2.0, 0.0, 0.0]);
    for culling in [true, false] {
        let opts = CcdOptions::default().with_temporal_culling(culling);
        let s = run(&body, &obs, &q0, &q1, &opts).stats;
        // Three links against two obstacles, and l1–l3.
        assert_eq!(s.pairs_total, 7);
        assert!(s.pairs_after_spatial <= s.pairs_total);
        assert!(s.pairs_after_temporal <= s.pairs_after_spatial);
        assert!(s.pairs_after_temporal >= 1);
        assert!(s.distance_calls >= s.pairs_after_spatial);
        assert!(s.ca_iterations >= 1);
    }
}

#[test]
fn self_collision_of_non_adjacent_links() {
    let body = arm();
    // Folding l2 back over l1 drives l3 into l1 (l1–l2 and l2–l3 are
    // adjacent and skipped).
    let q0 = [0.0, 0.0, 0.0];
    let q1 = [0.0, PI, 0.0];
    let r = check(&body, &[], &q0, &q1);
    assert_eq!(r.status, CcdStatus::Collides);
    let c = r.contact.unwrap();
    assert_eq!((c.link, c.other), (1, Other::Link(3)));
    let off = run(
        &body,
        &[],
        &q0,
        &q1,
        &CcdOptions::default().with_self_collision(false),
    );
    assert_eq!(off.status, CcdStatus::Free);
}

#[test]
fn moving_obstacle_hits_the_resting_arm() {
    let body = arm();
    // A box sliding and turning across the straight arm (along +x).
    let start = DAffine3::from_translation(DVec3::new(1.5, 1.2, 0.0));
    let end = DAffine3::from_rotation_translation(
        glam::DQuat::from_rotation_z(1.0),
        DVec3::new(1.5, -1.2, 0.0),
    );
    let obs = vec![
        Obstacle::moving("slider", cuboid(DVec3::splat(0.3), DVec3::ZERO), start, end).unwrap(),
    ];
    let q = [0.0, 0.0, 0.0];
    let r = check(&body, &obs, &q, &q);
    assert_eq!(r.status, CcdStatus::Collides);
    let c = r.contact.unwrap();
    assert_eq!(c.other, Other::Obstacle(0));
    // The box's near face (y − 0.15) reaches the beam's top (0.05) at
    // y = 0.2 at the earliest, t ≈ (1.2 − 0.2) / 2.4 minus the rotation's
    // reach; it cannot come before t = 0.3.
    assert!(c.time > 0.3 && c.time < 0.5, "{}", c.time);
}

#[test]
fn early_out_reports_a_contact_with_a_sound_bound() {
    let (body, obs) = (arm(), obstacles());
    let (q0, q1) = ([-PI / 2.0, 0.0, 0.0], [PI / 2.0, 0.0, 0.0]);
    let full = run(&body, &obs, &q0, &q1, &CcdOptions::default());
    let early = run(
        &body,
        &obs,
        &q0,
        &q1,
        &CcdOptions::default().with_early_out(true),
    );
    assert_eq!(early.status, CcdStatus::Collides);
    assert!(early.toc_lower_bound <= full.toc_lower_bound);
}

#[test]
fn tiny_budget_is_conservative() {
    let (body, obs) = (arm(), obstacles());
    let (q0, q1) = ([-PI / 2.0, 0.0, 0.0], [PI / 2.0, 0.0, 0.0]);
    let full = run(&body, &obs, &q0, &q1, &CcdOptions::default());
    let small = CcdOptions::default().with_max_ca_iterations_per_pair(1);
    let r = run(&body, &obs, &q0, &q1, &small);
    assert!(r.may_collide());
    assert!(r.toc_lower_bound <= full.toc_lower_bound);
}

#[test]
fn prepared_scene_answers_like_the_one_shot_query() {
    let (body, obs) = (arm(), obstacles());
    let options = CcdOptions::default();
    let disabled = DisabledPairs::new();
    let mut scene = CcdScene::new(&body, &obs, &disabled, &options).unwrap();
    let mut ws = CcdWorkspace::new();
    let motions = [
        ([-PI / 2.0, 0.0, 0.0], [PI / 2.0, 0.0, 0.0]),
        ([0.0, 0.0, 0.0], [0.0, PI, 0.0]),
        ([0.3, 0.2, -0.4], [0.4, 0.1, -0.2]),
    ];
    for (q0, q1) in motions {
        let a = scene.first_contact(&q0, &q1, &mut ws).unwrap();
        let b = run(&body, &obs, &q0, &q1, &options);
        assert_eq!(a.status, b.status);
        assert_eq!(a.contact, b.contact);
        assert_eq!(a.toc_lower_bound, b.toc_lower_bound);
    }
}

#[test]
fn bad_input_is_a_typed_error() {
    let (body, obs) = (arm(), obstacles());
    let mut ws = CcdWorkspace::new();
    let d = DisabledPairs::new();
    let o = CcdOptions::default();
    assert!(first_contact(&body, &obs, &d, &[0.0; 2], &[0.0; 3], &o, &mut ws).is_err());
    assert!(first_contact(&body, &obs, &d, &[f64::NAN; 3], &[0.0; 3], &o, &mut ws).is_err());
    let bad = o.with_distance_threshold(-1.0);
    assert!(first_contact(&body, &obs, &d, &[0.0; 3], &[0.0; 3], &bad, &mut ws).is_err());
    let bad = o.with_max_ca_iterations_per_pair(0);
    assert!(first_contact(&body, &obs, &d, &[0.0; 3], &[0.0; 3], &bad, &mut ws).is_err());
    for e in [-0.1, 0.95, f64::NAN] {
        let bad = o.with_distance_relative_error(e);
        assert!(first_contact(&body, &obs, &d, &[0.0; 3], &[0.0; 3], &bad, &mut ws).is_err());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    #[test]
    fn random_motions_agree_with_the_oracle(
        q0 in prop::array::uniform3(-PI..PI),
        q1 in prop::array::uniform3(-PI..PI),
    ) {
        let (body, obs) = (arm(), obstacles());
        check(&body, &obs, &q0, &q1);
    }

    /// Exact distances (ε = 0) and a coarse relative error (ε = 0.9) keep
    /// the guarantee too.
    #[test]
    fn exact_and_coarse_distances_agree_with_the_oracle(
        q0 in prop::array::uniform3(-PI..PI),
        q1 in prop::array::uniform3(-PI..PI),
        coarse in any::<bool>(),
    ) {
        let (body, obs) = (arm(), obstacles());
        let e = if coarse { 0.9 } else { 0.0 };
        check_with(&body, &obs, &q0, &q1, CcdOptions::default().with_distance_relative_error(e));
    }
}

/// The random scene is neither always free nor always colliding, so the
/// property above exercises both answers.
#[test]
fn random_scene_mixes_answers() {
    let (body, obs) = (arm(), obstacles());
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 * PI - PI
    };
    let (mut collide, mut free) = (0, 0);
    for _ in 0..40 {
        let q0 = [next(), next(), next()];
        let q1 = [next(), next(), next()];
        match run(&body, &obs, &q0, &q1, &CcdOptions::default()).status {
            CcdStatus::Free => free += 1,
            _ => collide += 1,
        }
    }
    assert!(
        collide >= 4 && free >= 4,
        "{collide} colliding, {free} free"
    );
}

/// The box of [`obstacles`] and the 2 mm plate sliding and turning through
/// the arm's workspace.
fn moving_obstacles(shift: f64, turn: f64) -> Vec<Obstacle> {
    let mut obs = obstacles();
    obs.truncate(1);
    let start = DAffine3::from_translation(DVec3::new(-0.8, -0.9, 0.0));
    let end = DAffine3::from_rotation_translation(
        glam::DQuat::from_rotation_z(turn),
        DVec3::new(-0.8 + shift, -0.9 + shift, 0.0),
    );
    obs.push(
        Obstacle::moving(
            "plate",
            cuboid(DVec3::new(1.0, 0.002, 1.0), DVec3::ZERO),
            start,
            end,
        )
        .unwrap(),
    );
    obs
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    #[test]
    fn random_motions_with_a_moving_plate_and_interval_enclosures(
        q0 in prop::array::uniform3(-PI..PI),
        q1 in prop::array::uniform3(-PI..PI),
        shift in -0.8f64..0.8,
        turn in -1.5f64..1.5,
    ) {
        let (body, obs) = (arm(), moving_obstacles(shift, turn));
        let options = CcdOptions::default()
            .with_enclosure(armature_kinematics::EnclosureKind::Interval);
        check_with(&body, &obs, &q0, &q1, options);
    }
}

/// Two arms as two roots of one tree: a base at the origin and one at
/// x = 3 turned to face it.
fn two_arms() -> ArticulatedBody {
    let facing = DAffine3::from_rotation_translation(
        glam::DQuat::from_rotation_z(PI),
        DVec3::new(3.0, 0.0, 0.0),
    );
    let mut specs = Vec::new();
    for (prefix, base) in [("a", DAffine3::IDENTITY), ("b", facing)] {
        let name = |s: &str| format!("{prefix}_{s}");
        specs.push(LinkSpec::new(name("base"), None).with_origin(base));
        specs.push(
            LinkSpec::new(name("l1"), Some(&name("base"))).with_joint(Joint::revolute(
                name("j1"),
                DVec3::Z,
                -7.0,
                7.0,
            )),
        );
        specs.push(
            LinkSpec::new(name("l2"), Some(&name("l1")))
                .with_joint(Joint::revolute(name("j2"), DVec3::Y, -7.0, 7.0))
                .with_origin(DAffine3::from_translation(DVec3::X * LENGTHS[0])),
        );
        specs.push(
            LinkSpec::new(name("l3"), Some(&name("l2")))
                .with_joint(Joint::revolute(name("j3"), DVec3::Y, -7.0, 7.0))
                .with_origin(DAffine3::from_translation(DVec3::X * LENGTHS[1])),
        );
    }
    let tree = KinematicTree::new(specs).unwrap();
    let mut meshes = Vec::new();
    for _ in 0..2 {
        meshes.push(None);
        meshes.extend(LENGTHS.iter().map(|&l| Some(beam(l))));
    }
    ArticulatedBody::new("two_arms", tree, meshes).unwrap()
}

#[test]
fn two_bodies_collide_with_each_other() {
    let body = two_arms();
    // Both arms swing from pointing sideways to pointing at each other.
    let q0 = [PI / 2.0, 0.0, 0.0, PI / 2.0, 0.0, 0.0];
    let q1 = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    let r = check(&body, &[], &q0, &q1);
    assert_eq!(r.status, CcdStatus::Collides);
    let c = r.contact.unwrap();
    let root = |l: usize| body.tree().links()[l].root();
    let Other::Link(o) = c.other else {
        panic!("expected a link–link contact, got {:?}", c.other)
    };
    assert_ne!(root(c.link), root(o), "the contact is between the two arms");
    // Swinging away from each other stays free.
    let r = check(&body, &[], &q0, &[PI, 0.0, 0.0, PI, 0.0, 0.0]);
    assert_eq!(r.status, CcdStatus::Free);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// Random motions of the two arms against the oracle.
    #[test]
    fn two_bodies_random_motions(
        q0 in prop::array::uniform6(-PI..PI),
        dq in prop::array::uniform6(-1.0..1.0f64),
    ) {
        let body = two_arms();
        let q1: Vec<f64> = q0.iter().zip(dq).map(|(a, d)| a + d).collect();
        let start = InBetweenMotion::new(body.tree(), &q0, &q0).unwrap();
        let (hit, _) = scene_at(&body, &[], &start, true, 0.0);
        prop_assume!(!hit);
        check(&body, &[], &q0, &q1);
    }
}

/// A thin torus in the x–y plane: major radius `big`, tube radius `small`.
fn torus(big: f64, small: f64) -> Arc<TriMesh> {
    let (nu, nv) = (48u32, 8u32);
    let mut v = Vec::new();
    for i in 0..nu {
        let u = 2.0 * PI * f64::from(i) / f64::from(nu);
        for j in 0..nv {
            let w = 2.0 * PI * f64::from(j) / f64::from(nv);
            let rr = big + small * w.cos();
            v.push(DVec3::new(rr * u.cos(), rr * u.sin(), small * w.sin()));
        }
    }
    let at = |i: u32, j: u32| (i % nu) * nv + (j % nv);
    let mut idx = Vec::new();
    for i in 0..nu {
        for j in 0..nv {
            idx.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
            idx.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
        }
    }
    Arc::new(TriMesh::new(v, idx).unwrap())
}

#[test]
fn sweep_through_a_thin_torus_is_caught() {
    let body = arm();
    // A ring with a 2 mm tube lying in the plane the arm sweeps, clear of
    // the start and end poses.
    let ring = vec![
        Obstacle::fixed(
            "ring",
            torus(0.3, 0.002),
            DAffine3::from_translation(DVec3::new(1.2, 1.2, 0.0)),
        )
        .unwrap(),
    ];
    let r = check(&body, &ring, &[0.0, 0.0, 0.0], &[PI / 2.0, 0.0, 0.0]);
    assert_eq!(r.status, CcdStatus::Collides);
    assert_eq!(r.contact.unwrap().other, Other::Obstacle(0));
    // Lifted 0.2 m above the sweep, the same ring is missed.
    let lifted = vec![
        Obstacle::fixed(
            "ring",
            torus(0.3, 0.002),
            DAffine3::from_translation(DVec3::new(1.2, 1.2, 0.2)),
        )
        .unwrap(),
    ];
    let r = check(&body, &lifted, &[0.0, 0.0, 0.0], &[PI / 2.0, 0.0, 0.0]);
    assert_eq!(r.status, CcdStatus::Free);
}
