//! Conservative advancement against a brute-force oracle:
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
use armature_kinematics::{
    EnclosureKind, InBetweenMotion, Joint, KinematicTree, LinkSpec, MotionBounds,
};
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

/// One tested pair, by the same rules as the pipeline: every link with
/// geometry against every obstacle, and non-adjacent links when
/// self-collision is on.
type PairId = (usize, Other);

fn pairs(body: &ArticulatedBody, obstacles: &[Obstacle], self_collision: bool) -> Vec<PairId> {
    let tree = body.tree();
    let with_geometry: Vec<usize> = (0..tree.len())
        .filter(|&i| body.links()[i].is_some())
        .collect();
    let mut out = Vec::new();
    for &i in &with_geometry {
        out.extend((0..obstacles.len()).map(|o| (i, Other::Obstacle(o))));
        if self_collision {
            out.extend(
                with_geometry
                    .iter()
                    .filter(|&&j| j > i && !tree.are_adjacent(i, j))
                    .map(|&j| (i, Other::Link(j))),
            );
        }
    }
    out
}

/// Every tested pair's (intersecting, distance) at `t`, by brute force.
fn scene_at(
    body: &ArticulatedBody,
    obstacles: &[Obstacle],
    motion: &InBetweenMotion,
    self_collision: bool,
    t: f64,
) -> Vec<(PairId, bool, f64)> {
    let tree = body.tree();
    let mut poses = vec![DAffine3::IDENTITY; tree.len()];
    motion.poses_at(t, &mut poses).unwrap();
    let links: Vec<Option<Vec<[DVec3; 3]>>> = body
        .links()
        .iter()
        .zip(&poses)
        .map(|(g, p)| g.as_ref().map(|g| world(&g.mesh, p)))
        .collect();
    let obs: Vec<Vec<[DVec3; 3]>> = obstacles
        .iter()
        .map(|o| world(&o.geometry().mesh, &o.pose_at(t)))
        .collect();
    pairs(body, obstacles, self_collision)
        .into_iter()
        .map(|(i, other)| {
            let a = links[i].as_ref().unwrap();
            let b = match other {
                Other::Obstacle(o) => &obs[o],
                Other::Link(j) => links[j].as_ref().unwrap(),
            };
            let (hit, d) = brute(a, b);
            ((i, other), hit, d)
        })
        .collect()
}

/// The smallest distance over the tested pairs at `t` (0 when one
/// intersects).
fn scene_distance(
    body: &ArticulatedBody,
    obstacles: &[Obstacle],
    motion: &InBetweenMotion,
    self_collision: bool,
    t: f64,
) -> (bool, f64) {
    scene_at(body, obstacles, motion, self_collision, t)
        .into_iter()
        .fold((false, f64::INFINITY), |(h, d), (_, hit, dd)| {
            (h || hit, d.min(dd))
        })
}

/// What the oracle saw, judged by the clearance contract of `CcdReport`:
/// pair `p` has clearance `c_p = min(δ, d_p(0) / 3)`.
#[derive(Debug)]
enum Verdict {
    /// Some pair touches or intersects at `t = 0`.
    CollidesAtStart,
    /// First sample where some pair is closer than its clearance (or
    /// intersects).
    Violates(f64),
    /// Every sampled distance is above `2 c_p + DELTA / 2`: no pair comes
    /// within `2 c_p` at all, so a contact would be a false alarm.
    Free,
    /// Neither: either answer is accepted.
    Graze,
}

/// The clearance of each pair, from its distance at `t = 0`.
fn clearances(start: &[(PairId, bool, f64)], delta: f64) -> Vec<f64> {
    start.iter().map(|&(_, _, d)| delta.min(d / 3.0)).collect()
}

fn oracle(
    body: &ArticulatedBody,
    obstacles: &[Obstacle],
    q0: &[f64],
    q1: &[f64],
    options: &CcdOptions,
) -> Verdict {
    let tree = body.tree();
    let self_collision = options.self_collision;
    let motion = InBetweenMotion::new(tree, q0, q1).unwrap();
    let start = scene_at(body, obstacles, &motion, self_collision, 0.0);
    if start.iter().any(|&(_, hit, d)| hit || d == 0.0) {
        return Verdict::CollidesAtStart;
    }
    let clear = clearances(&start, options.distance_threshold);
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
    let mut free = true;
    for k in 0..=steps {
        let t = k as f64 / steps as f64;
        for ((_, hit, d), c) in scene_at(body, obstacles, &motion, self_collision, t)
            .into_iter()
            .zip(&clear)
        {
            if hit || d < *c {
                return Verdict::Violates(t);
            }
            free &= d > 2.0 * c + 0.5 * DELTA;
        }
    }
    if free { Verdict::Free } else { Verdict::Graze }
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

/// As [`check`] with these options (temporal culling toggled): both
/// answers keep the contract, and without path-validity mode they agree.
fn check_with(
    body: &ArticulatedBody,
    obstacles: &[Obstacle],
    q0: &[f64],
    q1: &[f64],
    options: CcdOptions,
) -> CcdReport {
    let on = run(
        body,
        obstacles,
        q0,
        q1,
        &options.with_temporal_culling(true),
    );
    let off = run(
        body,
        obstacles,
        q0,
        q1,
        &options.with_temporal_culling(false),
    );
    if !options.early_out {
        assert_eq!(on.status, off.status, "culling changes the status");
        assert!(
            (on.toc_lower_bound - off.toc_lower_bound).abs() <= 1e-12,
            "culling changes the time: {} vs {}",
            on.toc_lower_bound,
            off.toc_lower_bound
        );
        assert!(on.stats.pairs_after_temporal <= off.stats.pairs_after_temporal);
    }
    let verdict = oracle(body, obstacles, q0, q1, &options);
    assert_keeps_contract(body, obstacles, q0, q1, &options, &verdict, &off);
    assert_keeps_contract(body, obstacles, q0, q1, &options, &verdict, &on);
    on
}

/// One report judged by the contract (see [`Verdict`]).
fn assert_keeps_contract(
    body: &ArticulatedBody,
    obstacles: &[Obstacle],
    q0: &[f64],
    q1: &[f64],
    options: &CcdOptions,
    verdict: &Verdict,
    r: &CcdReport,
) {
    match *verdict {
        Verdict::CollidesAtStart => {
            assert_eq!(r.status, CcdStatus::CollidingAtStart, "{r:?}");
        }
        Verdict::Violates(t) => {
            assert!(
                r.may_collide(),
                "free, but the oracle sees a violation at {t}"
            );
            assert!(
                r.toc_lower_bound <= t,
                "time {} after the oracle's violating sample {t}",
                r.toc_lower_bound
            );
            assert_ne!(
                r.status,
                CcdStatus::CollidingAtStart,
                "nothing touches at t = 0"
            );
        }
        Verdict::Free => assert!(
            matches!(r.status, CcdStatus::Free | CcdStatus::BudgetExhausted),
            "oracle free, report {r:?}"
        ),
        Verdict::Graze => {
            assert_ne!(
                r.status,
                CcdStatus::CollidingAtStart,
                "nothing touches at t = 0"
            );
        }
    }
    if let Some(c) = r.contact {
        assert!(
            c.time == r.toc_lower_bound
                || r.status == CcdStatus::CollidingAtStart
                || options.early_out && r.toc_lower_bound <= c.time,
            "{r:?}"
        );
        let motion = InBetweenMotion::new(body.tree(), q0, q1).unwrap();
        let start = scene_at(body, obstacles, &motion, options.self_collision, 0.0);
        let clear = clearances(&start, options.distance_threshold);
        let now = scene_at(body, obstacles, &motion, options.self_collision, c.time);
        let k = now
            .iter()
            .position(|&(p, _, _)| {
                p == (c.link, c.other) || p == (other_link(c.other), Other::Link(c.link))
            })
            .expect("the witness is a tested pair");
        assert!(
            now[k].2 <= 2.0 * clear[k] + 1e-9,
            "witness distance {} at the reported time {} above 2c = {}",
            now[k].2,
            c.time,
            2.0 * clear[k]
        );
        assert!(c.distance <= 2.0 * options.distance_threshold);
        assert!((c.normal.length() - 1.0).abs() < 1e-9);
        let link_mesh = &body.links()[c.link].as_ref().unwrap().mesh;
        let other_mesh = match c.other {
            Other::Obstacle(o) => &obstacles[o].geometry().mesh,
            Other::Link(l) => &body.links()[l].as_ref().unwrap().mesh,
        };
        assert!((c.triangle_a as usize) < link_mesh.num_triangles());
        assert!((c.triangle_b as usize) < other_mesh.num_triangles());
    }
}

/// The link index of a link–link pair's other side (`usize::MAX` for an
/// obstacle, which never matches).
fn other_link(o: Other) -> usize {
    match o {
        Other::Link(l) => l,
        Other::Obstacle(_) => usize::MAX,
    }
}

/// The options that change how pairs are processed, in every
/// combination: path-validity mode × temporal culling × enclosure of the
/// broad phase × iteration budget × relative error of the distances ×
/// projected (C2A) or unprojected motion bound × temporal culling on
/// pieces of the motion.
fn option_grid() -> Vec<CcdOptions> {
    let mut out = Vec::new();
    for early_out in [false, true] {
        for culling in [false, true] {
            for enclosure in [
                EnclosureKind::Chords,
                EnclosureKind::Taylor,
                EnclosureKind::Interval,
            ] {
                for budget in [1, 5, 200] {
                    for e in [0.0, 0.5, 0.9] {
                        for projected in [true, false] {
                            for pieces in [false, true] {
                                out.push(
                                    CcdOptions::default()
                                        .with_early_out(early_out)
                                        .with_temporal_culling(culling)
                                        .with_enclosure(enclosure)
                                        .with_max_ca_iterations_per_pair(budget)
                                        .with_distance_relative_error(e)
                                        .with_projected_motion_bound(projected)
                                        .with_time_pieces(pieces),
                                );
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

/// Judges one motion under every combination of [`option_grid`] against
/// one oracle verdict (the verdict depends only on the threshold and the
/// pair rules, which the grid does not change).
fn check_every_option(body: &ArticulatedBody, obstacles: &[Obstacle], q0: &[f64], q1: &[f64]) {
    let grid = option_grid();
    let verdict = oracle(body, obstacles, q0, q1, &grid[0]);
    for options in &grid {
        let r = run(body, obstacles, q0, q1, options);
        assert_keeps_contract(body, obstacles, q0, q1, options, &verdict, &r);
        if options.max_ca_iterations_per_pair == 200 && !options.early_out {
            let other = run(
                body,
                obstacles,
                q0,
                q1,
                &options.with_temporal_culling(!options.temporal_culling),
            );
            assert_eq!(r.status, other.status, "culling changes the status");
            assert!((r.toc_lower_bound - other.toc_lower_bound).abs() <= 1e-12);
        }
    }
}

#[test]
fn every_option_combination_keeps_the_contract() {
    let (body, obs) = (arm(), obstacles());
    let motions: [([f64; 3], [f64; 3]); 4] = [
        ([-PI / 2.0, 0.0, 0.0], [PI / 2.0, 0.0, 0.0]),
        ([0.0, 0.0, 0.0], [0.0, PI, 0.0]),
        ([0.3, 0.2, -0.4], [0.4, 0.1, -0.2]),
        ([2.5, -0.3, 0.9], [-2.0, 1.0, -1.5]),
    ];
    for (q0, q1) in motions {
        check_every_option(&body, &obs, &q0, &q1);
    }
}

/// The prismatic slide of path-validity mode: a 0.1 cube sliding 10 along
/// x in a channel whose floor lies 0.05 below it (never touched, but in
/// the swept box), a box 0.02 ahead (contact at t = 0.002) and one farther
/// on. With early out, no culling and a small budget, the floor pair runs
/// out of iterations, the far box is found, and the near box was never
/// advanced: the answer's bound must still come before t = 0.002.
/// A fixed box of this size centred at `at`.
fn fixed_box(name: &str, size: DVec3, at: DVec3) -> Obstacle {
    Obstacle::fixed(
        name,
        cuboid(size, DVec3::ZERO),
        DAffine3::from_translation(at),
    )
    .unwrap()
}

fn slide() -> (ArticulatedBody, Vec<Obstacle>) {
    let tree = KinematicTree::new(vec![
        LinkSpec::new("cube", None).with_joint(Joint::prismatic("slide", DVec3::X, -20.0, 20.0)),
    ])
    .unwrap();
    let body = ArticulatedBody::new(
        "slider",
        tree,
        vec![Some(cuboid(DVec3::splat(0.1), DVec3::ZERO))],
    )
    .unwrap();
    let obstacles = vec![
        // Top face at z = −0.1: 0.05 below the cube's bottom face.
        fixed_box(
            "floor",
            DVec3::new(30.0, 1.0, 0.1),
            DVec3::new(5.0, 0.0, -0.15),
        ),
        fixed_box("far", DVec3::splat(0.1), DVec3::new(5.0, 0.0, 0.0)),
        // Near face at x = 0.07: 0.02 ahead of the cube's face at 0.05.
        fixed_box("near", DVec3::splat(0.1), DVec3::new(0.12, 0.0, 0.0)),
    ];
    (body, obstacles)
}

#[test]
fn early_out_without_culling_bounds_the_pairs_never_advanced() {
    let (body, obs) = slide();
    let options = CcdOptions::default()
        .with_temporal_culling(false)
        .with_early_out(true)
        .with_max_ca_iterations_per_pair(20);
    let r = run(&body, &obs, &[0.0], &[10.0], &options);
    assert!(r.may_collide());
    assert!(
        r.toc_lower_bound <= 0.002,
        "bound {} after the first contact at t = 0.002: {r:?}",
        r.toc_lower_bound
    );
    check_every_option(&body, &obs, &[0.0], &[10.0]);
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
    assert!(
        scene_distance(&body, &obs, &motion, true, 0.0).0,
        "scene setup"
    );
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

    /// Random motions under random combinations of the options.
    #[test]
    fn random_motions_under_every_option_keep_the_contract(
        q0 in prop::array::uniform3(-PI..PI),
        q1 in prop::array::uniform3(-PI..PI),
        k in 0usize..288,
    ) {
        let (body, obs) = (arm(), obstacles());
        check_with(&body, &obs, &q0, &q1, option_grid()[k]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// Small motions (a swing under the threshold for C2A first steps
    /// from `t = 0`, whose pairs take no first distance unless they start
    /// within 3δ) under random options.
    #[test]
    fn small_motions_agree_with_the_oracle(
        q0 in prop::array::uniform3(-PI..PI),
        dq in prop::array::uniform3(-0.35..0.35),
        k in 0usize..288,
    ) {
        let (body, obs) = (arm(), obstacles());
        let q1 = [q0[0] + dq[0], q0[1] + dq[1], q0[2] + dq[2]];
        check(&body, &obs, &q0, &q1);
        check_with(&body, &obs, &q0, &q1, option_grid()[k]);
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

/// Temporal culling on pieces of the motion drops pairs (on some motion
/// of the random scene) and never changes whether a motion collides; each
/// answer is judged by the oracle in the properties above.
#[test]
fn time_pieces_cull_pairs_without_changing_the_verdict() {
    let (body, obs) = (arm(), obstacles());
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 * PI - PI
    };
    let mut culled = 0;
    for _ in 0..40 {
        let q0 = [next(), next(), next()];
        let q1 = [next(), next(), next()];
        let off = run(&body, &obs, &q0, &q1, &CcdOptions::default());
        let on = run(
            &body,
            &obs,
            &q0,
            &q1,
            &CcdOptions::default().with_time_pieces(true),
        );
        assert!(on.stats.pairs_after_spatial <= off.stats.pairs_after_spatial);
        culled += usize::from(on.stats.pairs_after_spatial < off.stats.pairs_after_spatial);
        if on.status != CcdStatus::BudgetExhausted && off.status != CcdStatus::BudgetExhausted {
            assert_eq!(on.may_collide(), off.may_collide(), "{q0:?} → {q1:?}");
        }
    }
    assert!(culled > 0, "no motion had a pair culled on pieces");
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
        let (hit, _) = scene_distance(&body, &[], &start, true, 0.0);
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
    quads(v, nu, nv, |i, j| (i % nu) * nv + (j % nv))
}

/// A mesh of `nu × nv` quads of two triangles each, quad `(i, j)` on the
/// vertices `at(i, j)`, `at(i + 1, j)`, `at(i + 1, j + 1)` and
/// `at(i, j + 1)` of `v`.
fn quads(v: Vec<DVec3>, nu: u32, nv: u32, at: impl Fn(u32, u32) -> u32) -> Arc<TriMesh> {
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

/// The slider of [`slide`] and one 0.1 box whose near face is at
/// x = 0.15: at configuration `q` the gap is `0.1 − q`.
fn slider_and_box() -> (ArticulatedBody, Vec<Obstacle>) {
    let (body, _) = slide();
    let wall = Obstacle::fixed(
        "box",
        cuboid(DVec3::splat(0.1), DVec3::ZERO),
        DAffine3::from_translation(DVec3::new(0.2, 0.0, 0.0)),
    )
    .unwrap();
    (body, vec![wall])
}

/// The configuration with this gap to the box of [`slider_and_box`].
fn at_gap(gap: f64) -> [f64; 1] {
    [0.1 - gap]
}

#[test]
fn clearance_contract_holds_for_every_relative_error() {
    let (body, obs) = slider_and_box();
    let delta = CcdOptions::default().distance_threshold;
    for e in [0.0, 0.5, 0.9] {
        let options = CcdOptions::default().with_distance_relative_error(e);
        let status = |g0: f64, g1: f64| run(&body, &obs, &at_gap(g0), &at_gap(g1), &options);
        // Coming from 5δ to 0.8δ breaks the clearance δ.
        let r = status(5.0 * delta, 0.8 * delta);
        assert_eq!(r.status, CcdStatus::Collides, "ε = {e}: {r:?}");
        let c = r.contact.unwrap();
        assert!(c.distance <= 2.0 * delta);
        // It cannot have come closer than δ before the reported time.
        assert!(0.1 - (at_gap(5.0 * delta)[0] + c.time * 4.2 * delta) >= delta * (1.0 - 1e-6));
        // A pair resting at 0.8δ keeps its starting clearance: free.
        let r = status(0.8 * delta, 0.8 * delta);
        assert_eq!(r.status, CcdStatus::Free, "ε = {e}: {r:?}");
        // Retreating from 0.5δ is free; approaching from 0.5δ to 0.1δ
        // breaks the clearance of a third of the start.
        assert_eq!(status(0.5 * delta, 10.0 * delta).status, CcdStatus::Free);
        let r = status(0.5 * delta, 0.1 * delta);
        assert_eq!(r.status, CcdStatus::Collides, "ε = {e}: {r:?}");
        assert!(r.contact.unwrap().distance <= 2.0 * 0.5 * delta / 3.0 * (1.0 + 1e-9));
        // Touching at the start is colliding at the start, whichever way
        // the motion goes.
        assert_eq!(status(0.0, 0.5).status, CcdStatus::CollidingAtStart);
    }
}

#[test]
fn a_robot_stopped_at_a_reported_contact_can_retreat() {
    let (body, obs) = slider_and_box();
    let options = CcdOptions::default();
    let r = run(&body, &obs, &at_gap(0.5), &at_gap(-0.5), &options);
    assert_eq!(r.status, CcdStatus::Collides);
    let c = r.contact.unwrap();
    // Stop where the contact was reported, then back off.
    let stop = [at_gap(0.5)[0] + c.time * 1.0];
    let back = run(&body, &obs, &stop, &at_gap(0.5), &options);
    assert_eq!(back.status, CcdStatus::Free, "{back:?}");
    // Pushing on from there is still a contact.
    let on = run(&body, &obs, &stop, &at_gap(-0.5), &options);
    assert_eq!(on.status, CcdStatus::Collides, "{on:?}");
}

#[test]
fn a_threshold_too_small_for_the_scene_is_rejected() {
    let (body, _) = slide();
    let far = vec![
        Obstacle::fixed(
            "far",
            cuboid(DVec3::splat(0.1), DVec3::ZERO),
            DAffine3::from_translation(DVec3::new(1000.0, 0.0, 0.0)),
        )
        .unwrap(),
    ];
    let options = CcdOptions::default().with_distance_threshold(1e-9);
    let mut ws = CcdWorkspace::new();
    let err = first_contact(
        &body,
        &far,
        &DisabledPairs::new(),
        &[0.0],
        &[1.0],
        &options,
        &mut ws,
    )
    .unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(
            err,
            armature_conservative_advance::CcdError::ThresholdTooSmall { .. }
        ),
        "{text}"
    );
    assert!(text.contains("1e-9") && text.contains("1000"), "{text}");
    // The same threshold is fine for a scene near the origin.
    assert!(
        first_contact(
            &body,
            &[],
            &DisabledPairs::new(),
            &[0.0],
            &[1.0],
            &options,
            &mut ws
        )
        .is_ok()
    );
}

/// A ring of radius 0.5 with a 1 cm tube around the x axis (in the y–z
/// plane) at `x`: its box holds the whole hole, its top boxes hug the tube.
fn ring_across_x(x: f64) -> Obstacle {
    Obstacle::fixed(
        "ring",
        torus(0.5, 0.01),
        DAffine3::from_translation(DVec3::new(x, 0.0, 0.0)) * DAffine3::from_rotation_y(PI / 2.0),
    )
    .unwrap()
}

#[test]
fn a_link_through_a_ring_is_culled_on_the_top_boxes() {
    let (body, _) = slide();
    // The 0.1 m cube slides through the ring's hole: the ring's box holds
    // the whole sweep, but no part of the tube comes near it.
    let ring = vec![ring_across_x(0.5)];
    let r = check(&body, &ring, &[0.0], &[1.0]);
    assert_eq!(r.status, CcdStatus::Free, "{r:?}");
    assert_eq!(r.stats.pairs_total, 1);
    assert_eq!(r.stats.pairs_after_spatial, 0, "{:?}", r.stats);
    assert_eq!(r.stats.distance_calls, 0, "{:?}", r.stats);
    // Raised so that the cube's top edge passes the tube: the pair is kept
    // and the contact found.
    let raised = vec![
        Obstacle::fixed(
            "ring",
            torus(0.5, 0.01),
            DAffine3::from_translation(DVec3::new(0.5, 0.0, -0.5))
                * DAffine3::from_rotation_y(PI / 2.0),
        )
        .unwrap(),
    ];
    let r = check(&body, &raised, &[0.0], &[1.0]);
    assert_eq!(r.status, CcdStatus::Collides, "{r:?}");
    assert_eq!(r.stats.pairs_after_spatial, 1, "{:?}", r.stats);
}

/// The slider of [`slide`] over a floor `gap` below the cube, and a wall
/// whose near face is 0.02 ahead of it.
fn slider_over_floor(gap: f64) -> (ArticulatedBody, Vec<Obstacle>) {
    let (body, _) = slide();
    let obstacles = vec![
        fixed_box(
            "floor",
            DVec3::new(2.0, 1.0, 0.1),
            DVec3::new(0.0, 0.0, -0.1 - gap),
        ),
        fixed_box("wall", DVec3::splat(0.1), DVec3::new(0.12, 0.0, 0.0)),
    ];
    (body, obstacles)
}

/// A face sliding over a parallel face a few δ away (the slowest kind of
/// small motion, taken by a C2A first step from `t = 0`): the pair keeps
/// the clearance δ from 3δ on and a third of its distance below, and the
/// answers keep the contract under every option.
#[test]
fn a_face_sliding_over_a_floor_keeps_the_clearance_rule() {
    let delta = CcdOptions::default().distance_threshold;
    let options = CcdOptions::default();
    for (gap, clearance) in [
        (3.1 * delta, delta),
        (2.9 * delta, 2.9 * delta / 3.0),
        (10.0 * delta, delta),
        (1.5 * delta, 0.5 * delta),
    ] {
        let (body, obs) = slider_over_floor(gap);
        // Along the floor, stopping short of the wall: free.
        let r = run(&body, &obs, &[0.0], &[0.015], &options);
        assert_eq!(r.status, CcdStatus::Free, "gap {gap}: {r:?}");
        assert!(
            (r.clearance - clearance).abs() <= 1e-9 * delta,
            "gap {gap}: clearance {} instead of {clearance}",
            r.clearance
        );
        check_every_option(&body, &obs, &[0.0], &[0.015]);
        // Into the wall (which starts far, so its clearance is δ): a
        // contact within 2δ of it, never closer than δ before.
        let r = run(&body, &obs, &[0.0], &[0.03], &options);
        assert_eq!(r.status, CcdStatus::Collides, "gap {gap}: {r:?}");
        let c = r.contact.unwrap();
        assert_eq!(c.other, Other::Obstacle(1), "{c:?}");
        assert!(c.distance <= 2.0 * delta * (1.0 + 1e-9), "{c:?}");
        assert!(0.02 - c.time * 0.03 >= delta * (1.0 - 1e-6), "{c:?}");
        check_every_option(&body, &obs, &[0.0], &[0.03]);
    }
}

/// A square wall of `n × n` quads in the plane `x = 0`, `2 half` wide.
fn grid_wall(n: u32, half: f64) -> Arc<TriMesh> {
    let mut v = Vec::new();
    for i in 0..=n {
        for j in 0..=n {
            let (y, z) = (f64::from(i) / f64::from(n), f64::from(j) / f64::from(n));
            v.push(DVec3::new(
                0.0,
                half * (2.0 * y - 1.0),
                half * (2.0 * z - 1.0),
            ));
        }
    }
    quads(v, n, n, |i, j| i * (n + 1) + j)
}

/// The first C2A step from `t = 0` leaves a front of volume pairs whose
/// gaps the next step carries, aged by the time the step took: head on
/// against a finely meshed wall (where the speed bound is exact) the
/// contact is never late.
#[test]
fn gaps_carried_from_the_first_step_are_aged() {
    // A finely meshed plate on the slider, parallel to the wall: every
    // volume pair in front of it closes at the full speed.
    let tree = KinematicTree::new(vec![
        LinkSpec::new("plate", None).with_joint(Joint::prismatic("slide", DVec3::X, -20.0, 20.0)),
    ])
    .unwrap();
    let plate = grid_wall(8, 0.05)
        .transformed(&DAffine3::from_translation(DVec3::X * 0.05))
        .unwrap();
    let body = ArticulatedBody::new("slider", tree, vec![Some(Arc::new(plate))]).unwrap();
    let wall = vec![
        Obstacle::fixed(
            "wall",
            grid_wall(12, 0.25),
            DAffine3::from_translation(DVec3::new(0.07, 0.0, 0.0)),
        )
        .unwrap(),
    ];
    let delta = CcdOptions::default().distance_threshold;
    for end in [0.021, 0.03, 0.05] {
        let r = run(&body, &wall, &[0.0], &[end], &CcdOptions::default());
        assert_eq!(r.status, CcdStatus::Collides, "to {end}: {r:?}");
        let c = r.contact.unwrap();
        assert!(
            0.02 - c.time * end >= delta * (1.0 - 1e-6),
            "to {end}: {c:?}"
        );
    }
    check_every_option(&body, &wall, &[0.0], &[0.03]);
}
