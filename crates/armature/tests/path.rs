//! Path checking through the facade (`Pipeline::check_path`, adaptive
//! bisection): the answers are the bisection crate's on the scene's pair
//! rules, a certified free prefix never holds a colliding configuration
//! (the discrete test `Pipeline::collides` as the oracle), batches answer
//! as single queries whatever the thread count, and bad waypoints are
//! errors that name them.
//!
//! Configurations (see `tests/cli.rs`): in `single.ron` the arm at `0,0,0`
//! is free (its wrist 0.15 from the crate) and `0.6,-1,0` lifts the forearm
//! into the crate.

use armature::bisection::{CheckOptions, PathChecker};
use armature::kinematics::JointSpaceMotion;
use armature::{Error, PathReport, PathStatus, Pipeline, Scene};

mod common;
use common::motions;

fn fixture(name: &str) -> Scene {
    Scene::from_file(format!(
        "{}/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("fixture scene loads")
}

fn pipeline() -> Pipeline {
    Pipeline::builder().build().expect("pipeline builds")
}

/// Seeded paths of `len` waypoints: the chained ends of seeded motions.
fn paths(scene: &Scene, seed: u64, n: usize, len: usize) -> Vec<Vec<Vec<f64>>> {
    let m = motions(scene, seed, n * len);
    m.chunks(len)
        .map(|c| {
            let mut p = vec![c[0].0.clone()];
            p.extend(c.iter().map(|(_, q1)| q1.clone()));
            p
        })
        .collect()
}

/// The configuration at parameter `s` of segment `k` (the joint-space
/// straight motion the checker tests).
fn config_at(scene: &Scene, path: &[Vec<f64>], k: usize, s: f64) -> Vec<f64> {
    let tree = scene.body().tree();
    let motion = JointSpaceMotion::new(tree, &path[k], &path[k + 1]).expect("segment");
    let mut q = vec![0.0; scene.nq()];
    motion.config_at(tree, s, &mut q).expect("configuration");
    q
}

/// The pairs the scene's rules allow, as `Pipeline::check` and
/// `Pipeline::first_contact` test them.
fn allowed_pairs(scene: &Scene) -> usize {
    let n = scene.num_links();
    let with_geometry = |i: usize| scene.body().links()[i].is_some();
    let mut count = 0;
    for i in (0..n).filter(|&i| with_geometry(i)) {
        count += (0..scene.obstacles().len())
            .filter(|&o| scene.obstacle_pair_allowed(i, o))
            .count();
        count += (i + 1..n)
            .filter(|&j| scene.link_pair_allowed(i, j))
            .count();
    }
    count
}

#[test]
fn facade_answers_are_the_crates_on_the_scene_pair_rules() {
    for name in ["single.ron", "cell.ron", "dh_arm.ron", "dh_arm_srdf.ron"] {
        let scene = fixture(name);
        let pipeline = pipeline();
        // The crate's options written out from the scene's settings, not
        // taken from the facade.
        let options = CheckOptions::default()
            .with_self_collision(scene.self_collision())
            .with_skip_adjacent(scene.skip_adjacent())
            .with_locate_first_collision(true);
        let mut checker = PathChecker::new(
            scene.body(),
            scene.obstacles(),
            scene.disabled_pairs(),
            &options,
        )
        .expect("checker");
        assert_eq!(checker.pair_count(), allowed_pairs(&scene), "{name}");
        let mut kinds = [0; 3];
        let seed = 0x9a7 + name.len() as u64;
        let mut all = paths(&scene, seed, 8, 1);
        all.extend(paths(&scene, seed + 1, 8, 3));
        for (i, path) in all.iter().enumerate() {
            checker.clear_cache();
            let ours = pipeline.check_path(&scene, path).expect("path runs");
            let theirs = checker.check_path(path).expect("crate runs");
            assert_eq!(ours, theirs, "{name}, path {i}");
            // Every segment up to the earliest colliding one sets up the
            // allowed pairs (later ones are not set up; locating a
            // collision walks them again on its segment).
            let segments = path.len() - 1;
            let setup = allowed_pairs(&scene) * segments;
            if ours.status == PathStatus::Free {
                assert_eq!(ours.stats.pairs, setup, "{name}, path {i}");
            } else {
                let reached = ours.first_colliding_segment.map_or(segments, |k| k + 1);
                assert!(
                    ours.stats.pairs >= allowed_pairs(&scene) * reached,
                    "{name}, path {i}"
                );
            }
            kinds[ours.status as usize] += 1;
        }
        if name == "cell.ron" || name == "single.ron" {
            assert!(kinds[0] > 0 && kinds[1] > 0, "{name}: {kinds:?}");
        }
    }
}

#[test]
fn a_path_through_the_crate_collides_and_one_beside_it_is_free() {
    let scene = fixture("single.ron");
    let pipeline = pipeline();
    let through = [
        vec![0.0, 0.0, 0.0],
        vec![-0.3, 0.0, 0.0],
        vec![0.6, -1.0, 0.0],
    ];
    let r = pipeline.check_path(&scene, &through).expect("runs");
    assert_eq!(r.status, PathStatus::Collides);
    assert_eq!(r.first_colliding_segment, Some(1));
    let c = r.collision.expect("a collision is reported");
    assert_eq!(c.segment, 1);
    assert_eq!(
        scene.link_name(c.link).map(|n| n.starts_with("arm/")),
        Some(true)
    );
    // Located: the prefix reaches into the colliding segment.
    assert_eq!(r.certified_free_prefix.0, 1);
    assert!(r.certified_free_prefix.1 > 0.0 && r.certified_free_prefix.1 <= c.s);
    // The discrete test agrees at the end, which is in the crate.
    assert!(pipeline.collides(&scene, &through[2]).expect("check"));

    let beside = [
        vec![0.0, 0.0, 0.0],
        vec![-0.5, 0.0, 0.0],
        vec![-0.5, 0.3, -0.3],
    ];
    let r = pipeline.check_path(&scene, &beside).expect("runs");
    assert_eq!(r.status, PathStatus::Free, "{r:?}");
    assert_eq!(r.first_colliding_segment, None);
    assert_eq!(r.certified_free_prefix, (1, 1.0));
    // The continuous query agrees segment by segment.
    for w in beside.windows(2) {
        let ccd = pipeline.first_contact(&scene, &w[0], &w[1]).expect("ccd");
        assert!(!ccd.may_collide(), "{w:?}");
    }
}

/// A planner's path check (`earliest_path_collision(false)`) stops at the
/// collision of the long last segment, probed first, without proving the
/// short free segments before it; the default proves them to name the
/// earliest colliding segment. Both answer `Collides`.
#[test]
fn a_planner_path_check_stops_at_the_first_collision_found() {
    let scene = fixture("single.ron");
    let path = [
        vec![0.0, 0.0, 0.0],
        vec![-0.5, 0.0, 0.0],
        vec![-0.5, 0.3, -0.3],
        vec![0.6, -1.0, 0.0],
    ];
    let earliest = Pipeline::builder()
        .locate_path_collision(false)
        .build()
        .expect("pipeline builds");
    let planner = Pipeline::builder()
        .locate_path_collision(false)
        .earliest_path_collision(false)
        .build()
        .expect("pipeline builds");
    assert!(earliest.path_options(&scene).earliest_collision);
    assert!(!planner.path_options(&scene).earliest_collision);
    let full = earliest.check_path(&scene, &path).expect("runs");
    let quick = planner.check_path(&scene, &path).expect("runs");
    assert_eq!(full.status, PathStatus::Collides);
    assert_eq!(full.first_colliding_segment, Some(2));
    assert_eq!(full.certified_free_prefix, (2, 0.0));
    assert_eq!(quick.status, PathStatus::Collides);
    assert_eq!(quick.first_colliding_segment, Some(2));
    // Nothing before the collision was proven: the certified prefix is
    // empty, and only the colliding segment was set up.
    assert_eq!(quick.certified_free_prefix, (0, 0.0), "{quick:?}");
    assert_eq!(quick.stats.pairs, allowed_pairs(&scene), "{quick:?}");
    assert!(quick.stats.greedy_calls < full.stats.greedy_calls);
    // The configuration named collides.
    let c = quick.collision.expect("a collision is reported");
    let q = config_at(&scene, &path, c.segment, c.s);
    assert!(earliest.collides(&scene, &q).expect("check"), "{c:?}");
}

#[test]
fn a_clearance_rejects_paths_that_come_closer() {
    let scene = fixture("single.ron");
    let path = [vec![0.0, 0.0, 0.0], vec![-0.1, 0.0, 0.0]];
    let start = pipeline().check(&scene, &path[0]).expect("check").distance;
    assert!(start > 0.1 && start < 0.2, "{start}");
    let free = Pipeline::builder()
        .path_clearance(0.5 * start)
        .build()
        .expect("builds")
        .check_path(&scene, &path)
        .expect("runs");
    assert_eq!(free.status, PathStatus::Free);
    let close = Pipeline::builder()
        .path_clearance(2.0 * start)
        .build()
        .expect("builds")
        .check_path(&scene, &path)
        .expect("runs");
    assert_eq!(close.status, PathStatus::Collides);
}

/// Every sampled configuration of the certified prefix is free by the
/// discrete test; a free path has no colliding sample at all.
#[test]
fn the_certified_prefix_holds_no_colliding_sample() {
    const SAMPLES: usize = 64;
    let mut checked = [0usize; 3];
    for name in ["single.ron", "cell.ron"] {
        let scene = fixture(name);
        let pipeline = pipeline();
        for (i, path) in paths(&scene, 0x5afe, 12, 3).iter().enumerate() {
            let r = pipeline.check_path(&scene, path).expect("runs");
            let (k, s) = r.certified_free_prefix;
            if r.status == PathStatus::Free {
                assert_eq!((k, s), (path.len() - 2, 1.0));
            }
            let free = r.status == PathStatus::Free;
            for seg in 0..=k {
                // `[0, 1]` before the prefix's segment (and on it for a free
                // path), `[0, s)` on it otherwise.
                let (end, samples) = if seg < k || free {
                    (1.0, 0..=SAMPLES)
                } else if s > 0.0 {
                    (s, 0..=SAMPLES - 1)
                } else {
                    // `[0, 0)`: nothing of the segment is certified.
                    break;
                };
                for j in samples {
                    let t = end * j as f64 / SAMPLES as f64;
                    let q = config_at(&scene, path, seg, t);
                    assert!(
                        !pipeline.collides(&scene, &q).expect("check"),
                        "{name}, path {i}: segment {seg} at {t} collides inside the \
                         certified prefix {:?} ({:?})",
                        r.certified_free_prefix,
                        r.status
                    );
                }
            }
            checked[r.status as usize] += 1;
        }
    }
    // Both free and colliding paths were checked.
    assert!(checked[0] > 0 && checked[1] > 0, "{checked:?}");
}

/// Sampling, the uncertified baseline: its first colliding sample does
/// collide and every sample before it is free; the certified prefix of
/// the same segment ends no later; a free path is free at every sample;
/// bad arguments are errors naming them.
#[test]
fn sampling_finds_what_it_samples_and_certifies_nothing_more() {
    let scene = fixture("single.ron");
    let pipeline = pipeline();
    let (q0, q1) = ([-0.3, 0.0, 0.0], [0.6, -1.0, 0.0]);
    // The largest joint change is 1.0: 64 steps.
    let resolution = 1.0 / 64.0;
    let s = pipeline
        .sample_segment(&scene, &q0, &q1, resolution)
        .expect("samples")
        .expect("the end is in the crate");
    let k = (s * 64.0).round();
    assert!((s - k / 64.0).abs() < 1e-12, "{s}");
    let at = |s: f64| -> Vec<f64> { q0.iter().zip(&q1).map(|(a, b)| a + s * (b - a)).collect() };
    assert!(pipeline.collides(&scene, &at(s)).expect("check"));
    for j in 0..k as usize {
        let q = at(j as f64 / 64.0);
        assert!(!pipeline.collides(&scene, &q).expect("check"), "{j}");
    }
    let r = pipeline.check_path(&scene, &[q0, q1]).expect("runs");
    assert_eq!(r.status, PathStatus::Collides);
    assert!(r.certified_free_prefix.1 <= s);
    assert_eq!(
        pipeline
            .sample_segment(&scene, &[0.0, 0.0, 0.0], &[-0.5, 0.0, 0.0], resolution)
            .expect("samples"),
        None
    );
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let e = pipeline
            .sample_segment(&scene, &q0, &q1, bad)
            .expect_err("rejected");
        assert_eq!(which(&e), "resolution", "{bad}");
    }
    let e = pipeline
        .sample_segment(&scene, &q0, &[0.0, f64::NAN, 0.0], resolution)
        .expect_err("rejected");
    assert_eq!(which(&e), "config");
    let e = pipeline
        .sample_segment(&scene, &q0, &[0.0, 0.0], resolution)
        .expect_err("rejected");
    assert_eq!(which(&e), "config");
}

fn threads(n: usize, pops: Option<u64>) -> Pipeline {
    let b = Pipeline::builder().threads(n);
    match pops {
        Some(p) => b.max_queue_pops(p),
        None => b,
    }
    .build()
    .expect("pipeline builds")
}

#[test]
fn batch_answers_are_single_answers_whatever_the_threads() {
    let scene = fixture("cell.ron");
    let mut paths = paths(&scene, 0xba7c4, 16, 3);
    // The same path twice in a row (one worker answers both): the second
    // must not resume the first's work.
    paths.insert(1, paths[0].clone());
    paths.insert(6, paths[5].clone());
    paths.insert(7, paths[5].clone());
    // Most random paths are decided by the set-up of their segments alone
    // (centre tests, probes); two free ones that need bisection steps make
    // the small budget below bite.
    let unlimited = threads(1, None);
    let needs_steps: Vec<Vec<Vec<f64>>> = self::paths(&scene, 0x5eed, 64, 1)
        .into_iter()
        .filter(|p| {
            let r = unlimited.check_path(&scene, p).expect("runs");
            r.status == PathStatus::Free && r.stats.queue_pops >= 2
        })
        .take(2)
        .collect();
    assert_eq!(
        needs_steps.len(),
        2,
        "seeded paths that need bisection steps"
    );
    paths.extend(needs_steps);
    for pops in [None, Some(1)] {
        let one = threads(1, pops);
        let singles: Vec<PathReport> = paths
            .iter()
            .map(|p| one.check_path(&scene, p).expect("runs"))
            .collect();
        for n in [1, 3] {
            let batch = threads(n, pops)
                .check_path_batch(&scene, &paths)
                .expect("batch runs");
            assert_eq!(batch.len(), paths.len());
            for (i, (b, s)) in batch.iter().zip(&singles).enumerate() {
                assert_eq!(b.as_ref().expect("answered"), s, "{n} threads, path {i}");
            }
        }
        if pops.is_some() {
            assert!(
                singles
                    .iter()
                    .any(|r| r.status == PathStatus::BudgetExhausted),
                "a small budget leaves some path undecided"
            );
        }
    }
}

#[test]
fn a_prepared_stream_reuses_decided_segments() {
    let scene = fixture("single.ron");
    let pipeline = pipeline();
    let path = [
        vec![0.0, 0.0, 0.0],
        vec![-0.5, 0.0, 0.0],
        vec![-0.5, 0.3, -0.3],
    ];
    let mut prepared = pipeline.prepare_paths(&scene).expect("prepares");
    let first = prepared.check_path(&path).expect("runs");
    let again = prepared.check_path(&path).expect("runs");
    assert_eq!(first.status, again.status);
    assert_eq!(again.stats.segments_from_cache, 2);
    assert_eq!(again.stats.queue_pops, 0);
    prepared.clear_cache();
    assert_eq!(prepared.check_path(&path).expect("runs"), first);
}

fn which(e: &Error) -> String {
    match e {
        Error::Configuration { which, .. } => which.clone(),
        other => panic!("not a configuration error: {other}"),
    }
}

#[test]
fn bad_waypoints_are_errors_naming_them() {
    let scene = fixture("single.ron");
    let pipeline = pipeline();
    let ok = vec![0.0, 0.0, 0.0];
    let e = pipeline
        .check_path(&scene, std::slice::from_ref(&ok))
        .unwrap_err();
    assert_eq!(which(&e), "waypoints");
    assert!(e.to_string().contains("at least 2 waypoints, got 1"), "{e}");
    let none: [Vec<f64>; 0] = [];
    assert_eq!(
        which(&pipeline.check_path(&scene, &none).unwrap_err()),
        "waypoints"
    );

    let e = pipeline
        .check_path(&scene, &[ok.clone(), ok.clone(), vec![0.0, 0.0]])
        .unwrap_err();
    assert_eq!(which(&e), "waypoints[2]");
    assert!(e.to_string().contains("expected 3 values"), "{e}");

    let e = pipeline
        .check_path(&scene, &[ok.clone(), vec![0.0, f64::NAN, 0.0]])
        .unwrap_err();
    assert_eq!(which(&e), "waypoints[1]");
    let e = pipeline
        .check_path(&scene, &[vec![f64::INFINITY, 0.0, 0.0], ok.clone()])
        .unwrap_err();
    assert_eq!(which(&e), "waypoints[0]");

    // In a batch the path is named too, and the other paths are answered.
    let batch = vec![
        vec![ok.clone(), vec![-0.1, 0.0, 0.0]],
        vec![vec![0.0, 0.0, f64::NAN], ok.clone()],
        vec![ok.clone()],
    ];
    let answers = pipeline.check_path_batch(&scene, &batch).expect("runs");
    assert!(answers[0].is_ok());
    assert_eq!(
        which(answers[1].as_ref().unwrap_err()),
        "paths[1].waypoints[0]"
    );
    assert_eq!(
        which(answers[2].as_ref().unwrap_err()),
        "paths[2].waypoints"
    );
}

#[test]
fn path_options_out_of_range_are_errors() {
    for (b, name) in [
        (Pipeline::builder().path_clearance(-1.0), "path_clearance"),
        (
            Pipeline::builder().path_clearance(f64::NAN),
            "path_clearance",
        ),
        (
            Pipeline::builder().path_clearance(f64::INFINITY),
            "path_clearance",
        ),
        (Pipeline::builder().max_queue_pops(0), "max_queue_pops"),
    ] {
        match b.build() {
            Err(Error::InvalidOption { name: n, .. }) => assert_eq!(n, name),
            other => panic!("{name}: {other:?}"),
        }
    }
    let p = Pipeline::builder()
        .path_clearance(0.01)
        .max_queue_pops(7)
        .build()
        .expect("builds");
    assert_eq!((p.path_clearance(), p.max_queue_pops()), (0.01, 7));
}

/// Short free motions of the Puma among the pipes whose last queue entries
/// are proven without new ones (the grown boxes decide at the midpoint, or
/// each half by its own end): the segment ends free, no budget spent. Both
/// were answered "may collide" after a few steps once.
#[test]
fn short_pipe_motions_end_decided() {
    let scene = Scene::from_file(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/scenes/puma_pipes.ron"
    ))
    .expect("loads");
    let motions = [
        (
            [
                1.827553, -0.428237, -0.581260, -0.289490, -1.698784, 0.938469,
            ],
            [
                1.830458, -0.413561, -0.595828, -0.293081, -1.698916, 0.933063,
            ],
        ),
        (
            [
                -0.419259, 3.770385, 0.334290, -0.069528, -0.122352, 2.035256,
            ],
            [
                -0.419765, 3.770997, 0.346476, -0.070154, -0.118958, 2.030737,
            ],
        ),
        (
            [2.290384, 2.687448, -2.473469, 0.833240, 0.683296, -2.422525],
            [2.289026, 2.671716, -2.468464, 0.841461, 0.692843, -2.407335],
        ),
    ];
    let pipeline = pipeline();
    for (q0, q1) in motions {
        let r = pipeline.check_path(&scene, &[q0, q1]).expect("runs");
        assert_eq!(r.status, PathStatus::Free, "{q0:?} → {q1:?}: {:?}", r.stats);
        let sampled = pipeline.sample_segment(&scene, &q0, &q1, 1e-3);
        assert_eq!(sampled.expect("samples"), None, "{q0:?} → {q1:?}");
    }
}
