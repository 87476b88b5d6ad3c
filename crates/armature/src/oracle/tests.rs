//! Unit tests of the oracle: the sweep, the judgement of the contract on
//! synthetic reports, the exact predicates against rational arithmetic,
//! the brute-force geometry and the speed bound.

use std::f64::consts::PI;
use std::sync::Arc;

use armature_bvh_geometry::{ArticulatedBody, Obstacle, Tessellation, TriMesh};
use armature_conservative_advance::{CcdStats, Contact};
use armature_kinematics::{Joint, KinematicTree, LinkSpec};

use super::*;
use crate::Pipeline;
use armature_conservative_advance::{CcdReport, CcdStatus};
use armature_kinematics::InBetweenMotion;
use glam::DAffine3;

/// Link lengths of the test arm; every link is a 0.1 square beam.
const LENGTHS: [f64; 3] = [1.0, 0.8, 0.6];

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

fn scene_with(obstacles: Vec<Obstacle>) -> Scene {
    let mut b = Scene::builder().body(arm(), DAffine3::IDENTITY);
    for o in obstacles {
        b = b.obstacle(o);
    }
    b.build().unwrap()
}

fn scene() -> Scene {
    scene_with(obstacles())
}

fn fixture(name: &str) -> Scene {
    Scene::from_file(format!(
        "{}/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// The configuration at time `t` of the motion (all joints revolute:
/// the in-between motion interpolates joint values linearly).
fn lerp(q0: &[f64], q1: &[f64], t: f64) -> Vec<f64> {
    q0.iter().zip(q1).map(|(a, b)| a + t * (b - a)).collect()
}

/// A tiny xorshift generator for seeded motions.
struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    fn motion(&mut self, nq: usize, reach: f64, swing: f64) -> (Vec<f64>, Vec<f64>) {
        let q0: Vec<f64> = (0..nq).map(|_| (2.0 * self.unit() - 1.0) * reach).collect();
        let q1 = q0
            .iter()
            .map(|q| q + (2.0 * self.unit() - 1.0) * swing)
            .collect();
        (q0, q1)
    }
}

/// The first colliding time found by sampling with `step` through
/// [`Pipeline::collides`] (forward kinematics and the pipeline's
/// discrete test, not the oracle's code), searched in `[from, to]`.
fn first_colliding_sample(
    scene: &Scene,
    q0: &[f64],
    q1: &[f64],
    from: f64,
    to: f64,
    step: f64,
) -> Option<f64> {
    let p = Pipeline::builder().build().unwrap();
    let n = ((to - from) / step).ceil() as usize;
    (0..=n)
        .map(|k| (from + k as f64 * step).min(to))
        .find(|&t| p.collides(scene, &lerp(q0, q1, t)).unwrap())
}

#[test]
fn oracles_are_shared_between_threads() {
    fn send_sync<T: Send + Sync + Clone>() {}
    send_sync::<Oracle>();
    send_sync::<Verdict>();
    send_sync::<Judgement>();
}

#[test]
fn certain_collision_is_bracketed() {
    let scene = scene();
    let oracle = Oracle::new(&scene, OracleOptions::default()).unwrap();
    // A half turn of the straight arm sweeps through the box.
    let (q0, q1) = ([-PI / 2.0, 0.0, 0.0], [PI / 2.0, 0.0, 0.0]);
    let coarse = first_colliding_sample(&scene, &q0, &q1, 0.0, 1.0, 1e-3).unwrap();
    let fine = 1e-7;
    let first = first_colliding_sample(&scene, &q0, &q1, coarse - 1e-3, coarse, fine).unwrap();
    let Verdict::Collides { bracket, pair } = oracle.verdict(&q0, &q1).unwrap() else {
        panic!("the swing collides");
    };
    let (free, colliding) = bracket;
    // The clearance δ breaks before the meshes touch, and not by more
    // than the time the arm takes to close δ.
    assert!(
        free < first && colliding <= first + fine,
        "{bracket:?} is not before the first colliding sample {first}"
    );
    assert!(colliding - free < 1e-9, "{bracket:?} not refined");
    assert_eq!(pair.1, Other::Obstacle(0));
    let delta = scene.distance_threshold();
    assert!(oracle.distance_at(&q0, &q1, colliding).unwrap() < delta);
    assert!(oracle.distance_at(&q0, &q1, free).unwrap() >= delta - 1e-9);
    assert!(!oracle.colliding_at(&q0, &q1, colliding).unwrap());
    assert!(oracle.colliding_at(&q0, &q1, first).unwrap());
    assert!(!oracle.colliding_at(&q0, &q1, free).unwrap());
}

#[test]
fn fast_swing_through_a_thin_plate_collides() {
    let scene = scene_with(obstacles().split_off(1));
    let oracle = Oracle::new(&scene, OracleOptions::default()).unwrap();
    let (q0, q1) = ([0.0, 0.0, 0.0], [-200f64.to_radians(), 0.0, 0.0]);
    let v = oracle.verdict(&q0, &q1).unwrap();
    assert!(v.collides(), "{v:?}");
    let t = v.colliding_time().unwrap();
    assert!(t > 0.0 && t < 1.0);
}

#[test]
fn clearly_free_motion_is_free() {
    let scene = scene();
    let oracle = Oracle::new(&scene, OracleOptions::default()).unwrap();
    // The arm, folded up, turns a little far from the box and the plate.
    let (q0, q1) = ([PI, -1.2, 1.0], [PI + 0.5, -1.0, 1.2]);
    let Verdict::Free { min_distance } = oracle.verdict(&q0, &q1).unwrap() else {
        panic!("the motion is free");
    };
    assert!(min_distance > 0.1, "{min_distance}");
    // Independently: every fine sample is farther than the oracle's
    // clearance.
    let p = Pipeline::builder().build().unwrap();
    for k in 0..=200 {
        let q = lerp(&q0, &q1, f64::from(k) / 200.0);
        assert!(p.check(&scene, &q).unwrap().distance > 0.1);
    }
}

#[test]
fn colliding_at_the_start_has_an_empty_bracket() {
    let scene = scene();
    let oracle = Oracle::new(&scene, OracleOptions::default()).unwrap();
    // Pointed at the box, tilted up towards it.
    let q0 = [PI / 4.0, -0.3, 0.0];
    let v = oracle.verdict(&q0, &[0.0, 0.0, 0.0]).unwrap();
    assert!(
        matches!(
            v,
            Verdict::Collides {
                bracket: (0.0, 0.0),
                ..
            }
        ),
        "{v:?}"
    );
}

#[test]
fn a_moving_obstacle_is_followed() {
    let start = DAffine3::from_translation(DVec3::new(1.5, 1.2, 0.0));
    let end = DAffine3::from_rotation_translation(
        glam::DQuat::from_rotation_z(1.0),
        DVec3::new(1.5, -1.2, 0.0),
    );
    let slider =
        Obstacle::moving("slider", cuboid(DVec3::splat(0.3), DVec3::ZERO), start, end).unwrap();
    let scene = scene_with(vec![slider]);
    let oracle = Oracle::new(&scene, OracleOptions::default()).unwrap();
    let q = [0.0, 0.0, 0.0];
    let t = oracle.verdict(&q, &q).unwrap().colliding_time().unwrap();
    // The box's near face reaches the beam's top no earlier than 0.3.
    assert!(t > 0.3 && t < 0.5, "{t}");
}

/// A coarse contract (δ = 1 cm, the resolution with it) that keeps the full
/// grid cheap.
fn coarse() -> OracleOptions {
    OracleOptions::default().with_distance_threshold(Some(0.01))
}

/// Verdicts of two oracles on seeded motions of `scene`.
fn compare(scene: &Scene, a: OracleOptions, b: OracleOptions, motions: usize, exact: bool) {
    let (oa, ob) = (
        Oracle::new(scene, a).unwrap(),
        Oracle::new(scene, b).unwrap(),
    );
    let mut rng = Rng(0x5eed_0ac1e);
    let mut kinds = [0usize; 3];
    for _ in 0..motions {
        let (q0, q1) = rng.motion(scene.nq(), 2.0, 1.0);
        let (va, sa) = oa.verdict_with_stats(&q0, &q1).unwrap();
        let vb = ob.verdict(&q0, &q1).unwrap();
        let h = 1.0 / sa.grid.min(ob.grid(&q0, &q1).unwrap()) as f64;
        kinds[match va {
            Verdict::Collides { .. } => 0,
            Verdict::Graze { .. } => 1,
            _ => 2,
        }] += 1;
        if !exact {
            // Different grids and geometry: the verdicts need only be
            // compatible, and violations proven within a step.
            assert!(va.compatible(&vb, h), "{q0:?} → {q1:?}: {va:?} vs {vb:?}");
            continue;
        }
        match (va, vb) {
            (Verdict::Collides { bracket: x, .. }, Verdict::Collides { bracket: y, .. }) => {
                assert_eq!(x, y, "{q0:?} → {q1:?}");
            }
            (Verdict::Graze { min_distance: x }, Verdict::Graze { min_distance: y }) => {
                assert!(x >= y - 1e-12, "{x} < {y}");
            }
            (Verdict::Free { min_distance: x }, Verdict::Free { min_distance: y }) => {
                assert!(x >= y - 1e-12, "{x} < {y}");
            }
            (x, y) => panic!("{q0:?} → {q1:?}: {x:?} vs {y:?}"),
        }
    }
    assert!(
        kinds[0] > 0 && kinds[2] > 0,
        "collides, graze, free: {kinds:?}"
    );
}

#[test]
fn brute_force_and_hierarchies_agree() {
    let bvh = OracleOptions::default();
    let brute = bvh.with_mode(Mode::Independent);
    compare(&scene(), bvh, brute, 40, false);
    compare(&fixture("single.ron"), bvh, brute, 12, false);
}

#[test]
fn skipping_on_and_off_agree() {
    // A coarser resolution keeps the full grid cheap.
    let on = coarse();
    let off = on.with_skipping(false);
    compare(&scene(), on, off, 30, true);
    compare(&fixture("single.ron"), on, off, 6, true);
}

#[test]
fn skipping_saves_work() {
    let scene = scene();
    let on = Oracle::new(&scene, coarse()).unwrap();
    let off = Oracle::new(&scene, coarse().with_skipping(false)).unwrap();
    let (q0, q1) = ([PI, -1.2, 1.0], [PI + 0.5, -1.0, 1.2]);
    let (_, s_on) = on.verdict_with_stats(&q0, &q1).unwrap();
    let (_, s_off) = off.verdict_with_stats(&q0, &q1).unwrap();
    assert_eq!(s_on.grid, s_off.grid);
    assert_eq!(s_off.samples as u64, s_off.grid + 1);
    assert!(
        s_on.pair_tests * 5 < s_off.pair_tests,
        "{s_on:?} vs {s_off:?}"
    );
}

#[test]
fn grid_spacing_follows_the_speed_bound() {
    let scene = scene();
    let oracle = Oracle::new(&scene, OracleOptions::default()).unwrap();
    let (q0, q1) = ([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
    // The tip of the straight arm (2.4 from the axis, plus the beams'
    // half width) moves at 2.4 per unit time at least: n ≥ 2·2.4/δ.
    let n = oracle.grid(&q0, &q1).unwrap();
    assert!(n as f64 >= 2.4 / scene.distance_threshold(), "{n}");
    assert_eq!(oracle.grid(&q0, &q0).unwrap(), 1);
    let v = oracle.verdict(&q0, &q0).unwrap();
    assert!(matches!(v, Verdict::Free { .. }), "{v:?}");
}

#[test]
fn the_budget_gives_inconclusive() {
    let scene = scene();
    let oracle = Oracle::new(
        &scene,
        OracleOptions::default()
            .with_max_samples(3)
            .with_skipping(false),
    )
    .unwrap();
    let v = oracle
        .verdict(&[PI, -1.2, 1.0], &[PI + 0.5, -1.0, 1.2])
        .unwrap();
    assert_eq!(
        v,
        Verdict::Inconclusive {
            reached: 2.0
                / oracle
                    .grid(&[PI, -1.2, 1.0], &[PI + 0.5, -1.0, 1.2])
                    .unwrap() as f64,
            samples: 3
        }
    );
}

#[test]
fn a_grid_beyond_exact_times_is_inconclusive() {
    let scene = scene();
    let oracle = Oracle::new(&scene, OracleOptions::default().with_delta(1e-300)).unwrap();
    assert_eq!(oracle.resolution(), 1e-300);
    let (q0, q1) = ([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
    assert_eq!(oracle.grid(&q0, &q1).unwrap(), u64::MAX);
    assert_eq!(
        oracle.verdict(&q0, &q1).unwrap(),
        Verdict::Inconclusive {
            reached: 0.0,
            samples: 0
        }
    );
}

#[test]
fn options_are_validated() {
    let scene = scene();
    let bad = [
        ("delta", OracleOptions::default().with_delta(0.0)),
        ("delta", OracleOptions::default().with_delta(f64::NAN)),
        // Coarser than the scene's threshold (1e-4).
        ("delta", OracleOptions::default().with_delta(1e-3)),
        ("max_samples", OracleOptions::default().with_max_samples(0)),
        (
            "distance_threshold",
            OracleOptions::default().with_distance_threshold(Some(-1.0)),
        ),
        (
            "contact_tolerance",
            OracleOptions::default().with_contact_tolerance(f64::INFINITY),
        ),
    ];
    for (name, o) in bad {
        let e = Oracle::new(&scene, o).unwrap_err();
        assert!(
            matches!(e, Error::InvalidOption { name: n, .. } if n == name),
            "{e}"
        );
    }
}

#[test]
fn bad_configurations_and_times_are_errors() {
    let scene = scene();
    let oracle = Oracle::new(&scene, OracleOptions::default()).unwrap();
    let e = oracle.verdict(&[0.0; 3], &[0.0; 2]).unwrap_err();
    assert!(
        matches!(e, Error::Configuration { ref which, .. } if which == "q1"),
        "{e}"
    );
    let e = oracle
        .verdict(&[f64::NAN, 0.0, 0.0], &[0.0; 3])
        .unwrap_err();
    assert!(
        matches!(e, Error::Configuration { ref which, .. } if which == "q0"),
        "{e}"
    );
    let e = oracle.distance_at(&[0.0; 3], &[0.0; 3], 1.5).unwrap_err();
    assert!(matches!(e, Error::InvalidOption { name: "t", .. }), "{e}");
}

#[test]
fn pairs_follow_the_rules() {
    // l2 carries l3 and l4 on fixed joints: l2–l4 is rigidly attached,
    // l1–l3 is disabled, l1–l2 and l2–l3 are adjacent, and so is l1–l4
    // (l4's rigid group hangs from l1 by one movable joint).
    let tree = KinematicTree::new(vec![
        LinkSpec::new("l1", None).with_joint(Joint::revolute("j1", DVec3::Z, -3.0, 3.0)),
        LinkSpec::new("l2", Some("l1"))
            .with_joint(Joint::revolute("j2", DVec3::Y, -3.0, 3.0))
            .with_origin(DAffine3::from_translation(DVec3::X)),
        LinkSpec::new("l3", Some("l2"))
            .with_joint(Joint::fixed("f3"))
            .with_origin(DAffine3::from_translation(DVec3::X)),
        LinkSpec::new("l4", Some("l3"))
            .with_joint(Joint::fixed("f4"))
            .with_origin(DAffine3::from_translation(DVec3::X)),
    ])
    .unwrap();
    let body = ArticulatedBody::new(
        "bot",
        tree,
        vec![
            Some(beam(1.0)),
            Some(beam(1.0)),
            Some(beam(1.0)),
            Some(beam(0.5)),
        ],
    )
    .unwrap();
    let scene = Scene::builder()
        .body(body, DAffine3::IDENTITY)
        .obstacle(obstacles().remove(0))
        .disable_pair("bot/l1", "bot/l3")
        .disable_pair("bot/l4", "box")
        .build()
        .unwrap();
    let oracle = Oracle::new(&scene, OracleOptions::default()).unwrap();
    let pairs: Vec<(usize, Other)> = oracle.pairs().collect();
    assert_eq!(
        pairs,
        [
            (0, Other::Obstacle(0)),
            (1, Other::Obstacle(0)),
            (2, Other::Obstacle(0)),
        ]
    );
    let no_self = Scene::builder()
        .body(arm(), DAffine3::IDENTITY)
        .self_collision(false)
        .build()
        .unwrap();
    let oracle = Oracle::new(&no_self, OracleOptions::default()).unwrap();
    assert_eq!(oracle.pairs().len(), 0);
    assert!(matches!(
        oracle.verdict(&[0.0; 3], &[0.0, PI, 0.0]).unwrap(),
        Verdict::Free { .. }
    ));
}

fn report(status: CcdStatus, toc: f64, contact_time: Option<f64>) -> CcdReport {
    CcdReport {
        status,
        contact: contact_time.map(|time| Contact {
            time,
            link: 1,
            other: Other::Obstacle(0),
            triangle_a: 0,
            triangle_b: 0,
            distance: 0.0,
            point: DVec3::ZERO,
            normal: DVec3::X,
            second_point: None,
            features: None,
        }),
        toc_lower_bound: toc,
        clearance: 0.0,
        stats: CcdStats::default(),
    }
}

#[test]
fn judgements_name_the_defect() {
    let scene = scene();
    let oracle = Oracle::new(&scene, OracleOptions::default()).unwrap();
    let (c0, c1) = ([-PI / 2.0, 0.0, 0.0], [PI / 2.0, 0.0, 0.0]);
    let (f0, f1) = ([PI, -1.2, 1.0], [PI + 0.5, -1.0, 1.2]);
    let hit = oracle.verdict(&c0, &c1).unwrap();
    let toc = hit.colliding_time().unwrap();
    let judge = |r: &CcdReport, v: &Verdict, q0: &[f64], q1: &[f64]| {
        oracle.judge_verdict(r, v, q0, q1).unwrap()
    };
    // Free on a colliding motion.
    let j = judge(&report(CcdStatus::Free, 1.0, None), &hit, &c0, &c1);
    assert_eq!(j, Judgement::Missed { oracle_toc: toc });
    assert!(j.is_defect());
    // A time after the oracle's colliding time.
    let late = toc + 0.01;
    let j = judge(
        &report(CcdStatus::BudgetExhausted, late, None),
        &hit,
        &c0,
        &c1,
    );
    assert_eq!(
        j,
        Judgement::Late {
            reported: late,
            oracle_toc: toc
        }
    );
    // A contact far from anything.
    let early = toc - 0.1;
    assert!(oracle.distance_at(&c0, &c1, early).unwrap() > 0.01);
    let j = judge(
        &report(CcdStatus::Collides, early, Some(early)),
        &hit,
        &c0,
        &c1,
    );
    assert!(
        matches!(j, Judgement::FarContact { time, .. } if time == early),
        "{j:?}"
    );
    // The right contact time: the pipeline's own answer agrees.
    let r = Pipeline::builder()
        .build()
        .unwrap()
        .first_contact(&scene, &c0, &c1)
        .unwrap();
    let at = oracle.distance_at(&c0, &c1, r.toc_lower_bound).unwrap();
    assert!(
        at <= 2.0 * scene.distance_threshold(),
        "{r:?}: distance {at}"
    );
    assert_eq!(judge(&r, &hit, &c0, &c1), Judgement::Agrees);
    assert_eq!(oracle.judge(&r, &c0, &c1).unwrap(), Judgement::Agrees);
    // On a free motion: a collision is a false alarm, a budget
    // exhaustion is accepted.
    let free = oracle.verdict(&f0, &f1).unwrap();
    let j = judge(&report(CcdStatus::Collides, 0.5, None), &free, &f0, &f1);
    assert!(matches!(j, Judgement::FalseAlarm { .. }), "{j:?}");
    let j = judge(
        &report(CcdStatus::BudgetExhausted, 0.5, None),
        &free,
        &f0,
        &f1,
    );
    assert_eq!(j, Judgement::Agrees);
    let j = judge(&report(CcdStatus::Free, 1.0, None), &free, &f0, &f1);
    assert_eq!(j, Judgement::Agrees);
    let j = oracle
        .judge_verdict(
            &report(CcdStatus::Free, 1.0, None),
            &Verdict::Inconclusive {
                reached: 0.0,
                samples: 0,
            },
            &f0,
            &f1,
        )
        .unwrap();
    assert_eq!(j, Judgement::Inconclusive);
    assert_eq!(j.name(), "inconclusive");
}

/// The straight arm turning about z from −0.3 to 0.3 rad passes under a
/// 0.2 cube over `x ∈ [1.2, 1.4]` whose bottom face is `gap` above the
/// beams' top: the distance dips to `gap` at `t = 0.5`, and starts far
/// above `3δ`.
fn under_a_cube(gap: f64) -> (Scene, [f64; 3], [f64; 3]) {
    let cube = Obstacle::fixed(
        "cube",
        cuboid(DVec3::splat(0.2), DVec3::ZERO),
        DAffine3::from_translation(DVec3::new(1.3, 0.0, 0.05 + gap + 0.1)),
    )
    .unwrap();
    (scene_with(vec![cube]), [-0.3, 0.0, 0.0], [0.3, 0.0, 0.0])
}

/// A report with a contact of link 2 (the beam under the cube) at `time`.
fn report_at(status: CcdStatus, time: f64) -> CcdReport {
    let mut r = report(status, time, Some(time));
    if let Some(c) = r.contact.as_mut() {
        c.link = 2;
    }
    r
}

#[test]
fn a_free_report_below_the_clearance_is_missed() {
    for mode in [Mode::Fast, Mode::Independent] {
        let (scene, q0, q1) = under_a_cube(0.5 * scene_threshold());
        let oracle = Oracle::new(&scene, OracleOptions::default().with_mode(mode)).unwrap();
        let p = oracle
            .pairs()
            .position(|p| p == (2, Other::Obstacle(0)))
            .unwrap();
        assert!(oracle.clearances(&q0, &q1).unwrap()[p] == scene_threshold());
        let v = oracle.verdict(&q0, &q1).unwrap();
        let Verdict::Collides { bracket, pair } = v else {
            panic!("{mode:?}: {v:?}");
        };
        assert_eq!(pair, (2, Other::Obstacle(0)));
        assert!(bracket.1 > 0.2 && bracket.1 < 0.5, "{bracket:?}");
        // The distance at the violation is below δ, and above it just
        // before (the bracket is tight).
        assert!(oracle.distance_at(&q0, &q1, bracket.1).unwrap() < scene_threshold());
        assert!(oracle.distance_at(&q0, &q1, bracket.0).unwrap() >= scene_threshold() - 1e-9);
        let j = oracle
            .judge_verdict(&report(CcdStatus::Free, 1.0, None), &v, &q0, &q1)
            .unwrap();
        assert_eq!(
            j,
            Judgement::Missed {
                oracle_toc: bracket.1
            }
        );
        // A contact 1e-3 after the violation is late; one at it agrees.
        let late = bracket.1 + 1e-3;
        let j = oracle
            .judge_verdict(&report_at(CcdStatus::Collides, late), &v, &q0, &q1)
            .unwrap();
        assert_eq!(
            j,
            Judgement::Late {
                reported: late,
                oracle_toc: bracket.1
            }
        );
        let j = oracle
            .judge_verdict(&report_at(CcdStatus::Collides, bracket.1), &v, &q0, &q1)
            .unwrap();
        assert_eq!(j, Judgement::Agrees, "{mode:?}");
    }
}

fn scene_threshold() -> f64 {
    scene().distance_threshold()
}

#[test]
fn the_band_between_c_and_2c_accepts_either_answer() {
    for mode in [Mode::Fast, Mode::Independent] {
        let (scene, q0, q1) = under_a_cube(1.5 * scene_threshold());
        let oracle = Oracle::new(&scene, OracleOptions::default().with_mode(mode)).unwrap();
        let v = oracle.verdict(&q0, &q1).unwrap();
        assert!(matches!(v, Verdict::Graze { .. }), "{mode:?}: {v:?}");
        for r in [
            report(CcdStatus::Free, 1.0, None),
            report_at(CcdStatus::Collides, 0.5),
        ] {
            let j = oracle.judge_verdict(&r, &v, &q0, &q1).unwrap();
            assert_eq!(j, Judgement::Graze, "{mode:?}: {r:?}");
        }
        // A contact where the pair is still farther than 2δ is not.
        let j = oracle
            .judge_verdict(&report_at(CcdStatus::Collides, 0.1), &v, &q0, &q1)
            .unwrap();
        assert!(matches!(j, Judgement::FarContact { .. }), "{j:?}");
    }
}

#[test]
fn a_collision_on_a_motion_above_2c_is_a_false_alarm() {
    for mode in [Mode::Fast, Mode::Independent] {
        let (scene, q0, q1) = under_a_cube(3.0 * scene_threshold());
        let oracle = Oracle::new(&scene, OracleOptions::default().with_mode(mode)).unwrap();
        let v = oracle.verdict(&q0, &q1).unwrap();
        assert!(matches!(v, Verdict::Free { .. }), "{mode:?}: {v:?}");
        let j = oracle
            .judge_verdict(&report_at(CcdStatus::Collides, 0.5), &v, &q0, &q1)
            .unwrap();
        assert!(matches!(j, Judgement::FalseAlarm { .. }), "{j:?}");
        let j = oracle
            .judge_verdict(&report(CcdStatus::BudgetExhausted, 0.4, None), &v, &q0, &q1)
            .unwrap();
        assert_eq!(j, Judgement::Agrees);
    }
}

#[test]
fn a_pair_starting_within_the_threshold_may_retreat() {
    // The cube sits 0.5δ above the beam at q0; the arm turns down, away.
    let delta = scene_threshold();
    let cube = Obstacle::fixed(
        "cube",
        cuboid(DVec3::splat(0.2), DVec3::ZERO),
        DAffine3::from_translation(DVec3::new(1.3, 0.0, 0.05 + 0.5 * delta + 0.1)),
    )
    .unwrap();
    let scene = scene_with(vec![cube]);
    let (q0, q1) = ([0.0, 0.0, 0.0], [0.0, 0.3, 0.0]);
    for mode in [Mode::Fast, Mode::Independent] {
        let oracle = Oracle::new(&scene, OracleOptions::default().with_mode(mode)).unwrap();
        let c = oracle.clearances(&q0, &q1).unwrap();
        let p = oracle
            .pairs()
            .position(|p| p == (2, Other::Obstacle(0)))
            .unwrap();
        assert!((c[p] - delta / 6.0).abs() < 1e-12, "{c:?}");
        let v = oracle.verdict(&q0, &q1).unwrap();
        assert!(!v.collides(), "{v:?}");
        let free = oracle
            .judge_verdict(&report(CcdStatus::Free, 1.0, None), &v, &q0, &q1)
            .unwrap();
        assert!(!free.is_defect(), "{free:?}");
        // A contact at t = 0 needs a witness within 2c = δ/3 < 0.5δ.
        let j = oracle
            .judge_verdict(&report_at(CcdStatus::Collides, 0.0), &v, &q0, &q1)
            .unwrap();
        assert!(j.is_defect(), "{j:?}");
        let far = oracle
            .judge_verdict(
                &report_at(CcdStatus::Collides, 0.0),
                &Verdict::Graze { min_distance: 0.0 },
                &q0,
                &q1,
            )
            .unwrap();
        assert!(
            matches!(far, Judgement::FarContact { distance, allowed, .. }
                if (distance - 0.5 * delta).abs() < 1e-12 && (allowed - delta / 3.0 - 1e-9).abs() < 1e-12),
            "{far:?}"
        );
        // Within δ at the start is not a contact at the start.
        let j = oracle
            .judge_verdict(&report_at(CcdStatus::CollidingAtStart, 0.0), &v, &q0, &q1)
            .unwrap();
        assert!(matches!(j, Judgement::FalseStart { .. }), "{j:?}");
    }
}

#[test]
fn sliding_within_the_slack_needs_refinement() {
    // A plate 0.5δ above the straight arm, which turns under it: every
    // pair stays at 0.5δ, above its clearance δ/6, but a grid step's slack
    // (up to δ/2) cannot show it; only refinement proves the clearance
    // kept, and without it the oracle cannot decide.
    let delta = scene_threshold();
    let plate = Obstacle::fixed(
        "plate",
        cuboid(DVec3::new(6.0, 6.0, 0.1), DVec3::ZERO),
        DAffine3::from_translation(DVec3::new(0.0, 0.0, 0.05 + 0.5 * delta + 0.05)),
    )
    .unwrap();
    let scene = scene_with(vec![plate]);
    let (q0, q1) = ([0.0, 0.0, 0.0], [0.5, 0.0, 0.0]);
    for mode in [Mode::Fast, Mode::Independent] {
        let oracle = Oracle::new(&scene, OracleOptions::default().with_mode(mode)).unwrap();
        let (v, stats) = oracle.verdict_with_stats(&q0, &q1).unwrap();
        assert!(matches!(v, Verdict::Graze { .. }), "{mode:?}: {v:?}");
        assert!(stats.refinement_tests > 0, "{mode:?}: {stats:?}");
        let free = oracle
            .judge_verdict(&report(CcdStatus::Free, 1.0, None), &v, &q0, &q1)
            .unwrap();
        assert!(!free.is_defect(), "{free:?}");
        let blind = Oracle::new(
            &scene,
            OracleOptions::default()
                .with_mode(mode)
                .with_max_refinements(0),
        )
        .unwrap();
        let v = blind.verdict(&q0, &q1).unwrap();
        assert!(matches!(v, Verdict::Inconclusive { .. }), "{mode:?}: {v:?}");
    }
}

#[test]
fn a_start_in_contact_must_be_reported() {
    let scene = scene();
    let q0 = [PI / 4.0, -0.3, 0.0];
    for mode in [Mode::Fast, Mode::Independent] {
        let oracle = Oracle::new(&scene, OracleOptions::default().with_mode(mode)).unwrap();
        let v = oracle.verdict(&q0, &[0.0; 3]).unwrap();
        for status in [CcdStatus::Free, CcdStatus::Collides] {
            let j = oracle
                .judge_verdict(&report(status, 0.0, None), &v, &q0, &[0.0; 3])
                .unwrap();
            assert!(matches!(j, Judgement::MissedStart { .. }), "{j:?}");
        }
        let r = Pipeline::builder()
            .build()
            .unwrap()
            .first_contact(&scene, &q0, &[0.0; 3])
            .unwrap();
        assert_eq!(r.status, CcdStatus::CollidingAtStart);
        assert!(
            !oracle
                .judge_verdict(&r, &v, &q0, &[0.0; 3])
                .unwrap()
                .is_defect()
        );
    }
}

#[test]
fn a_closed_mesh_contains_and_an_open_one_does_not() {
    // A hollow room around the arm: its walls are far from every link.
    let room = cuboid(DVec3::splat(10.0), DVec3::ZERO);
    let (v, mut t) = (room.vertices().to_vec(), room.indices().to_vec());
    let closed = Obstacle::fixed("room", room, DAffine3::IDENTITY).unwrap();
    t.pop();
    let open = Obstacle::fixed(
        "room",
        Arc::new(TriMesh::new(v, t).unwrap()),
        DAffine3::IDENTITY,
    )
    .unwrap();
    let q = [0.3, 0.2, 0.1];
    for mode in [Mode::Fast, Mode::Independent] {
        let o = OracleOptions::default().with_mode(mode);
        let inside = Oracle::new(&scene_with(vec![closed.clone()]), o).unwrap();
        assert!(inside.is_closed(Other::Obstacle(0)) && inside.is_closed(Other::Link(1)));
        assert_eq!(
            inside.verdict(&q, &q).unwrap(),
            Verdict::Collides {
                bracket: (0.0, 0.0),
                pair: (1, Other::Obstacle(0))
            }
        );
        assert!(inside.colliding_at(&q, &q, 0.5).unwrap());
        assert_eq!(inside.distance_at(&q, &q, 1.0).unwrap(), 0.0);
        let soup = Oracle::new(&scene_with(vec![open.clone()]), o).unwrap();
        assert!(!soup.is_closed(Other::Obstacle(0)));
        assert!(matches!(
            soup.verdict(&q, &q).unwrap(),
            Verdict::Free { .. }
        ));
    }
}

/// `orient3d` of integer points in exact `i128` arithmetic.
fn orient3d_i128(p: [[i64; 3]; 4]) -> i32 {
    let d = |i: usize, k: usize| i128::from(p[i][k]) - i128::from(p[3][k]);
    let det = d(0, 2) * (d(1, 0) * d(2, 1) - d(2, 0) * d(1, 1))
        + d(1, 2) * (d(2, 0) * d(0, 1) - d(0, 0) * d(2, 1))
        + d(2, 2) * (d(0, 0) * d(1, 1) - d(1, 0) * d(0, 1));
    det.signum() as i32
}

/// `orient2d` of integer points in exact `i128` arithmetic.
fn orient2d_i128(a: [i64; 2], b: [i64; 2], c: [i64; 2]) -> i32 {
    let w = |x: i64| i128::from(x);
    ((w(a[0]) - w(c[0])) * (w(b[1]) - w(c[1])) - (w(a[1]) - w(c[1])) * (w(b[0]) - w(c[0]))).signum()
        as i32
}

impl Rng {
    /// An integer in `[−m, m]`.
    fn int(&mut self, m: i64) -> i64 {
        ((2.0 * self.unit() - 1.0) * m as f64).round() as i64
    }
}

#[test]
fn exact_predicates_match_rational_arithmetic_near_degeneracy() {
    // Coordinates n · 2⁻³⁰ with |n| < 2³⁹ are exact doubles, and the
    // determinant of the integers n has the sign of the doubles'.
    let scale = 2f64.powi(-30);
    let to_f = |p: [i64; 3]| DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64) * scale;
    let mut rng = Rng(0x0e1e_d0e5);
    let m = 1i64 << 38;
    let (mut zero, mut fallback) = (0, 0);
    for case in 0..4000 {
        let a = [rng.int(m), rng.int(m), rng.int(m)];
        let b = [rng.int(m), rng.int(m), rng.int(m)];
        let c = [rng.int(m), rng.int(m), rng.int(m)];
        // A point on the plane of a, b, c (rounded to the integer lattice),
        // nudged by at most one unit: nearly or exactly coplanar.
        let (s, u) = (rng.unit() * 2.0 - 0.5, rng.unit() * 2.0 - 0.5);
        let d = std::array::from_fn(|k| {
            let on = a[k] as f64 + s * (b[k] - a[k]) as f64 + u * (c[k] - a[k]) as f64;
            (on.round() as i64).clamp(-2 * m, 2 * m) + if case % 3 == 0 { 0 } else { rng.int(1) }
        });
        // Some cases exactly coplanar: d = a + (b − a) + (c − a) when small.
        let d = if case % 7 == 0 {
            std::array::from_fn(|k| b[k] + c[k] - a[k])
        } else {
            d
        };
        let want = orient3d_i128([a, b, c, d]);
        let (fa, fb, fc, fd) = (to_f(a), to_f(b), to_f(c), to_f(d));
        assert_eq!(
            brute::orient3d(fa, fb, fc, fd),
            want,
            "{a:?} {b:?} {c:?} {d:?}"
        );
        assert_eq!(brute::orient3d_exact(fa, fb, fc, fd), want);
        // Swapping two points flips the sign.
        assert_eq!(brute::orient3d(fb, fa, fc, fd), -want);
        zero += usize::from(want == 0);
        let det = (fa - fd).dot((fb - fd).cross(fc - fd));
        fallback += usize::from(det.signum() as i32 != want || det == 0.0);
        let (a2, b2, c2) = ([a[0], a[1]], [b[0], b[1]], [d[0], d[1]]);
        let want2 = orient2d_i128(a2, b2, c2);
        let f2 = |p: [i64; 2]| [p[0] as f64 * scale, p[1] as f64 * scale];
        assert_eq!(brute::orient2d(f2(a2), f2(b2), f2(c2)), want2);
        assert_eq!(brute::orient2d_exact(f2(a2), f2(b2), f2(c2)), want2);
    }
    // The cases reach exact zeros and fool plain floating point.
    assert!(
        zero > 500 && fallback > 100,
        "zero {zero}, fallback {fallback}"
    );
    // Far-apart magnitudes: the integer fallback spans the exponents.
    let tiny = DVec3::new(1e-300, 0.0, 0.0);
    assert_eq!(
        brute::orient3d_exact(
            DVec3::ZERO,
            DVec3::X * 1e300,
            DVec3::Y,
            tiny + DVec3::Z * 1e-300
        ),
        brute::orient3d_exact(DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z)
    );
}

#[test]
fn triangle_tests_decide_touching_exactly() {
    let t =
        |a: [f64; 3], b: [f64; 3], c: [f64; 3]| [DVec3::from(a), DVec3::from(b), DVec3::from(c)];
    let base = t([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
    let above = |z: f64| t([0.0, 0.0, z], [1.0, 0.0, z], [0.0, 1.0, z]);
    let ulp = f64::from_bits(1);
    let cases = [
        // A shared vertex, an apex on the face, on an edge, one ulp off.
        (t([0.0, 0.0, 0.0], [-1.0, 0.0, 1.0], [0.0, -1.0, 1.0]), true),
        (t([0.2, 0.2, 0.0], [0.2, 0.2, 1.0], [0.3, 0.2, 1.0]), true),
        (t([0.5, 0.0, 0.0], [0.5, -1.0, 1.0], [0.5, 1.0, 1.0]), true),
        (t([0.2, 0.2, ulp], [0.2, 0.2, 1.0], [0.3, 0.2, 1.0]), false),
        // Parallel planes an ulp apart; coplanar overlapping and apart.
        (above(ulp), false),
        (above(0.0), true),
        (t([0.4, 0.4, 0.0], [2.0, 0.4, 0.0], [0.4, 2.0, 0.0]), true),
        (
            t([0.5 + 1e-15, 0.5, 0.0], [2.0, 0.5, 0.0], [0.5, 2.0, 0.0]),
            false,
        ),
        // Edges crossing exactly, and passing an ulp-sized gap.
        (
            t([0.5, -0.5, 0.0], [0.5, 0.5, 0.0], [0.5, -0.5, -1.0]),
            true,
        ),
        (
            t([0.5, -0.5, -ulp], [0.5, 0.5, -ulp], [0.5, -0.5, -1.0]),
            false,
        ),
        // A degenerate (collinear) triangle piercing the face.
        (t([0.1, 0.1, -1.0], [0.1, 0.1, 1.0], [0.1, 0.1, 0.5]), true),
        (t([1.1, 0.1, -1.0], [1.1, 0.1, 1.0], [1.1, 0.1, 0.5]), false),
    ];
    for (i, (other, want)) in cases.iter().enumerate() {
        assert_eq!(brute::triangles_intersect(&base, other), *want, "case {i}");
        assert_eq!(
            brute::triangles_intersect(other, &base),
            *want,
            "case {i} swapped"
        );
        // The distance is exact up to rounding: an ulp-sized gap may
        // round to zero, a contact may not be positive.
        let d = brute::triangle_distance(&base, other);
        assert!(!*want || d == 0.0, "case {i}: {d}");
    }
    // Touching, seen from the other triangle's edges only.
    let pierce = t([0.25, 0.25, -1.0], [0.25, 0.25, 1.0], [3.0, 3.0, 0.0]);
    assert!(brute::triangles_intersect(&base, &pierce));
}

#[test]
fn brute_triangle_tests_agree_with_the_hierarchy_crates() {
    use armature_bvh_geometry::query::{distance_triangle_triangle, intersect_triangle_triangle};
    let mut rng = Rng(0xd157_a9ce);
    let point = |r: &mut Rng| DVec3::new(r.unit(), r.unit(), r.unit()) * 2.0 - 1.0;
    let (mut hits, mut misses) = (0, 0);
    for _ in 0..3000 {
        let a = [point(&mut rng), point(&mut rng), point(&mut rng)];
        let shift = point(&mut rng) * 0.8;
        let b = [
            point(&mut rng) * 0.5 + shift,
            point(&mut rng) * 0.5 + shift,
            point(&mut rng) * 0.5 + shift,
        ];
        let mine = brute::triangle_distance(&a, &b);
        let theirs = distance_triangle_triangle(&a, &b);
        if mine > 1e-9 && theirs > 1e-9 {
            misses += 1;
            assert!(
                (mine - theirs).abs() <= 1e-9 * (1.0 + mine),
                "{mine} vs {theirs}"
            );
            assert!(!intersect_triangle_triangle(&a, &b));
        } else if mine == 0.0 && theirs == 0.0 {
            hits += 1;
            assert!(intersect_triangle_triangle(&a, &b));
        }
        assert_eq!(brute::triangles_intersect(&a, &b), mine == 0.0);
    }
    assert!(hits > 100 && misses > 100, "{hits} {misses}");
}

#[test]
fn the_mesh_query_is_every_triangle_pair() {
    let mut rng = Rng(0x003e_54e5);
    let mesh = cuboid(DVec3::new(0.3, 0.2, 0.1), DVec3::ZERO);
    let tris = mesh.indices();
    let mut scratch = (Vec::new(), Vec::new());
    for case in 0..300 {
        let pose = |r: &mut Rng, spread: f64| {
            DAffine3::from_rotation_translation(
                glam::DQuat::from_euler(
                    glam::EulerRot::XYZ,
                    r.unit() * 6.0,
                    r.unit() * 6.0,
                    r.unit() * 6.0,
                ),
                DVec3::new(r.unit(), r.unit(), r.unit()) * spread,
            )
        };
        let (pa, pb) = (pose(&mut rng, 0.1), pose(&mut rng, 0.5));
        let mut a = brute::Posed::default();
        let mut b = brute::Posed::default();
        a.set(
            mesh.vertices().iter().map(|&v| pa.transform_point3(v)),
            tris,
        );
        b.set(
            mesh.vertices().iter().map(|&v| pb.transform_point3(v)),
            tris,
        );
        let tri = |p: &brute::Posed, t: &[u32; 3]| t.map(|i| p.vertices[i as usize]);
        let naive = tris
            .iter()
            .flat_map(|ta| tris.iter().map(move |tb| (ta, tb)))
            .map(|(ta, tb)| brute::triangle_distance(&tri(&a, ta), &tri(&b, tb)))
            .fold(f64::INFINITY, f64::min);
        let cutoff = [f64::INFINITY, 0.05, 0.0][case % 3];
        let q = brute::mesh_query(&a, tris, &b, tris, cutoff, &mut scratch);
        assert_eq!(q.intersects, naive == 0.0, "case {case}");
        if naive <= cutoff || q.exact {
            assert_eq!(q.distance, naive, "case {case}");
        } else {
            assert!(
                q.distance <= naive && q.distance > cutoff,
                "case {case}: {q:?} vs {naive}"
            );
        }
    }
}

#[test]
fn topology_finds_closed_meshes_and_components() {
    let mesh = cuboid(DVec3::ONE, DVec3::ZERO);
    let topo = brute::Topology::of(mesh.num_vertices(), mesh.indices());
    assert!(topo.closed);
    assert_eq!(topo.representatives.len(), 1);
    let mut two = (*mesh).clone();
    two.append(&cuboid(DVec3::ONE, DVec3::X * 3.0)).unwrap();
    let topo = brute::Topology::of(two.num_vertices(), two.indices());
    assert!(topo.closed);
    assert_eq!(topo.representatives.len(), 2);
    // A flipped triangle breaks the orientation.
    let mut flipped = mesh.indices().to_vec();
    flipped[0].swap(1, 2);
    assert!(!brute::Topology::of(mesh.num_vertices(), &flipped).closed);
    // Winding numbers: inside ±1, outside 0.
    let w = |p: DVec3| brute::winding_number(p, mesh.vertices(), mesh.indices());
    assert!((w(DVec3::splat(0.1)).abs() - 1.0).abs() < 1e-9);
    assert!(w(DVec3::splat(0.7)).abs() < 1e-9);
}

#[test]
fn the_kinematic_speed_bound_holds_against_finite_differences() {
    // Revolute, prismatic and fixed joints with offsets, several chains.
    let tree = KinematicTree::new(vec![
        LinkSpec::new("base", None)
            .with_origin(DAffine3::from_translation(DVec3::new(0.2, -0.1, 0.3))),
        LinkSpec::new("a", Some("base"))
            .with_joint(Joint::revolute(
                "ja",
                DVec3::new(0.3, 0.4, 1.0).normalize(),
                -7.0,
                7.0,
            ))
            .with_origin(DAffine3::from_translation(DVec3::new(0.1, 0.0, 0.4))),
        LinkSpec::new("b", Some("a"))
            .with_joint(Joint::prismatic("jb", DVec3::X, -1.0, 1.0))
            .with_origin(DAffine3::from_rotation_translation(
                glam::DQuat::from_rotation_y(0.7),
                DVec3::new(0.5, 0.2, 0.0),
            )),
        LinkSpec::new("c", Some("b"))
            .with_joint(Joint::revolute("jc", DVec3::Y, -7.0, 7.0))
            .with_origin(DAffine3::from_translation(DVec3::new(0.0, 0.3, 0.6))),
        LinkSpec::new("d", Some("c"))
            .with_joint(Joint::fixed("jd"))
            .with_origin(DAffine3::from_translation(DVec3::new(0.4, 0.0, 0.0))),
        LinkSpec::new("e", Some("a"))
            .with_joint(Joint::revolute("je", DVec3::Z, -7.0, 7.0))
            .with_origin(DAffine3::from_translation(DVec3::new(-0.3, 0.0, 0.2))),
    ])
    .unwrap();
    let meshes: Vec<Arc<TriMesh>> = (0..tree.len())
        .map(|i| {
            cuboid(
                DVec3::new(0.4, 0.1, 0.2),
                DVec3::new(0.1 * i as f64, 0.05, -0.1),
            )
        })
        .collect();
    let radius: Vec<f64> = meshes.iter().map(|m| grid::radius(m.vertices())).collect();
    let mut rng = Rng(0x005b_eed5);
    let mut poses = vec![DAffine3::IDENTITY; tree.len()];
    let mut next = poses.clone();
    let mut tightest = 0.0f64;
    for _ in 0..40 {
        let (q0, q1) = rng.motion(
            tree.links().iter().map(|l| l.joint().kind.nq()).sum(),
            1.0,
            2.0,
        );
        let motion = InBetweenMotion::new(&tree, &q0, &q1).unwrap();
        let bound = grid::link_speed_bounds(&motion, &radius);
        let h = 1e-4;
        for k in 0..200 {
            let t = f64::from(k) / 200.0;
            motion.poses_at(t, &mut poses).unwrap();
            motion.poses_at(t + h, &mut next).unwrap();
            for (i, m) in meshes.iter().enumerate() {
                for &v in m.vertices() {
                    let speed =
                        (next[i].transform_point3(v) - poses[i].transform_point3(v)).length() / h;
                    assert!(
                        speed <= bound[i] * (1.0 + 1e-9),
                        "link {i}: {speed} > {}",
                        bound[i]
                    );
                    tightest = tightest.max(speed / bound[i]);
                }
            }
        }
    }
    // Sound, and not vacuous.
    assert!(tightest > 0.3, "{tightest}");
}
