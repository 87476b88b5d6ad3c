//! Multi-segment paths, with both variants (ADAPTIVE and REFINED): cached
//! answers equal fresh ones, an exhausted budget answers conservatively,
//! the earliest colliding segment is named (or, when asked to stop at any
//! collision, a colliding one).

mod common;

use armature_adaptive_bisection::{CheckOptions, PathChecker, PathReport, PathStatus};
use armature_bvh_geometry::DisabledPairs;
use common::{arm, first_colliding_sample, thin_obstacles};
use proptest::prelude::*;

/// A report's verdict: status, earliest colliding segment, prefix, and
/// where the collision was found (segment, bits of `s`).
type Verdict = (
    PathStatus,
    Option<usize>,
    (usize, f64),
    Option<(usize, u64)>,
);

/// A report without its work counters (which the cache changes).
fn verdict(r: &PathReport) -> Verdict {
    (
        r.status,
        r.first_colliding_segment,
        r.certified_free_prefix,
        r.collision.map(|c| (c.segment, c.s.to_bits())),
    )
}

/// Waypoints drawn from a small pool, so that paths share segments.
fn pool() -> impl Strategy<Value = Vec<Vec<f64>>> {
    proptest::collection::vec(proptest::collection::vec(-2.5..2.5f64, 3), 5)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// A checker that keeps its cache over several paths answers each
    /// exactly as a fresh checker does, and reuses cached segments.
    #[test]
    fn cached_answers_equal_fresh_answers(
        pool in pool(),
        paths in proptest::collection::vec(proptest::collection::vec(0..5usize, 2..6), 4),
        locate in any::<bool>(),
        refined in any::<bool>(),
        earliest in any::<bool>(),
    ) {
        let body = arm();
        let obstacles = thin_obstacles();
        let options = CheckOptions::default()
            .with_locate_first_collision(locate)
            .with_refined(refined)
            .with_earliest_collision(earliest);
        let mut cached = PathChecker::new(&body, &obstacles, &DisabledPairs::new(), &options).unwrap();
        // Segments of earlier free paths: every one was set up and decided,
        // so a later path holding one takes it from the cache.
        let mut decided = std::collections::HashSet::new();
        for path in &paths {
            let waypoints: Vec<&[f64]> = path.iter().map(|&i| pool[i].as_slice()).collect();
            let again = cached.check_path(&waypoints).unwrap();
            if path.windows(2).any(|w| decided.contains(&(w[0], w[1]))) {
                prop_assert!(again.stats.segments_from_cache >= 1);
            }
            if again.status == PathStatus::Free {
                decided.extend(path.windows(2).map(|w| (w[0], w[1])));
            }
            let mut fresh_checker =
                PathChecker::new(&body, &obstacles, &DisabledPairs::new(), &options).unwrap();
            let fresh = fresh_checker.check_path(&waypoints).unwrap();
            if earliest {
                prop_assert_eq!(verdict(&again), verdict(&fresh));
            } else {
                // Stopping at the first collision found, the checker names
                // the one it meets first, which depends on what its cache
                // knows; the status does not.
                prop_assert_eq!(again.status, fresh.status);
            }
            // A fresh checker reuses only segments repeated within the
            // path; it meets every one of them unless a collision ends the
            // query before (segments after the earliest known collision are
            // not looked at).
            // (Segments are the same when their end points are, whichever
            // pool entries hold them.)
            let bits = |i: usize| pool[i].iter().map(|v| v.to_bits()).collect::<Vec<u64>>();
            let distinct: std::collections::HashSet<(Vec<u64>, Vec<u64>)> =
                path.windows(2).map(|w| (bits(w[0]), bits(w[1]))).collect();
            let repeated = path.len() - 1 - distinct.len();
            if fresh.status == PathStatus::Free {
                prop_assert_eq!(fresh.stats.segments_from_cache, repeated);
            } else {
                prop_assert!(fresh.stats.segments_from_cache <= repeated);
            }
            // And the verdict is the oracle's: a path with a colliding
            // sample collides, and the earliest segment with one is never
            // before the certified prefix ends, nor (asking for the
            // earliest collision) after the one named.
            let oracle = (0..waypoints.len() - 1).find(|&k| {
                first_colliding_sample(&body, &obstacles, true, waypoints[k], waypoints[k + 1])
                    .is_some()
            });
            if let Some(k) = oracle {
                prop_assert_eq!(fresh.status, PathStatus::Collides);
                prop_assert!(fresh.certified_free_prefix.0 <= k);
                if earliest {
                    prop_assert!(fresh.first_colliding_segment.is_some_and(|f| f <= k));
                }
            }
            // Stopping at any collision changes the work, not the status;
            // the segment named collides for the earliest-collision checker
            // too (when it reaches it).
            if !earliest {
                let full_options = options.with_earliest_collision(true);
                let mut full =
                    PathChecker::new(&body, &obstacles, &DisabledPairs::new(), &full_options)
                        .unwrap();
                let truth = full.check_path(&waypoints).unwrap();
                prop_assert_eq!(fresh.status, truth.status);
                prop_assert!(fresh.certified_free_prefix.0 <= truth.certified_free_prefix.0);
                if let (Some(f), Some(t)) =
                    (fresh.first_colliding_segment, truth.first_colliding_segment)
                {
                    prop_assert!(t <= f);
                    let alone = full
                        .check_segment(waypoints[f], waypoints[f + 1])
                        .unwrap();
                    prop_assert_eq!(alone.status, PathStatus::Collides);
                }
            }
        }
    }

    /// With a small budget the answer is never "free" unless it is free
    /// with an unlimited one, and a segment with a colliding sample is
    /// never "free".
    #[test]
    fn exhausted_budget_is_conservative(
        qa in proptest::collection::vec(-3.0..3.0f64, 3),
        d in proptest::collection::vec(-1.5..1.5f64, 3),
        budget in 0u64..12,
        refined in any::<bool>(),
    ) {
        let body = arm();
        let obstacles = thin_obstacles();
        let qb: Vec<f64> = qa.iter().zip(&d).map(|(a, d)| a + d).collect();
        let small = CheckOptions::default()
            .with_max_queue_pops(budget)
            .with_refined(refined);
        let mut checker = PathChecker::new(&body, &obstacles, &DisabledPairs::new(), &small).unwrap();
        let report = checker.check_segment(&qa, &qb).unwrap();
        prop_assert!(report.stats.queue_pops <= budget);
        let unlimited = CheckOptions::default().with_refined(refined);
        let mut full = PathChecker::new(&body, &obstacles, &DisabledPairs::new(), &unlimited).unwrap();
        let truth = full.check_segment(&qa, &qb).unwrap();
        match report.status {
            PathStatus::Free => prop_assert_eq!(truth.status, PathStatus::Free),
            PathStatus::BudgetExhausted => {
                prop_assert_eq!(report.certified_free_prefix, (0, 0.0));
                prop_assert_eq!(report.first_colliding_segment, None);
            }
            PathStatus::Collides => prop_assert_eq!(truth.status, PathStatus::Collides),
        }
        if first_colliding_sample(&body, &obstacles, true, &qa, &qb).is_some() {
            prop_assert_ne!(report.status, PathStatus::Free);
        }
        // The walk with the same budget: never free for a colliding segment.
        let walk = checker.first_collision(&qa, &qb).unwrap();
        prop_assert!(walk.stats.queue_pops <= budget);
        if truth.status != PathStatus::Free {
            prop_assert_ne!(walk.status, PathStatus::Free);
        }
    }
}

/// The arm turning into the rod, in collision at none of the probes,
/// needs pops: no budget at all leaves it undecided, and the undecided
/// work resumes from the cache.
#[test]
fn zero_budget_is_exhausted_and_resumes() {
    let body = arm();
    let obstacles = thin_obstacles();
    let (qa, qb) = common::ROD_TURN;
    common::probes_miss(&body, &obstacles, &qa, &qb);
    let none = CheckOptions::default().with_max_queue_pops(0);
    let mut checker = PathChecker::new(&body, &obstacles, &DisabledPairs::new(), &none).unwrap();
    let r = checker.check_segment(&qa, &qb).unwrap();
    assert_eq!(r.status, PathStatus::BudgetExhausted);
    assert_eq!(r.stats.queue_pops, 0);
    assert_eq!(checker.cached_segments(), 1);
    let again = checker.check_segment(&qa, &qb).unwrap();
    assert_eq!(again.status, PathStatus::BudgetExhausted);
    assert_eq!(again.stats.segments_from_cache, 1);
    assert_eq!(again.stats.greedy_calls, 0);
    checker.clear_cache();
    assert_eq!(checker.cached_segments(), 0);
}

/// A path whose second and fourth segments collide (the plate, then the
/// rod): the second is named, the first is certified, the fourth is never
/// reported first, by both variants.
#[test]
fn earliest_colliding_segment_is_named() {
    let body = arm();
    let obstacles = thin_obstacles();
    let waypoints: [&[f64]; 5] = [
        &[-0.3, 0.0, 0.0],
        &[-0.6, 0.0, 0.0],
        &[-2.6, 0.0, 0.0],
        &[-3.0, 0.0, 0.0],
        &[-6.0, 0.0, 0.0],
    ];
    for k in 0..4 {
        let hit = first_colliding_sample(&body, &obstacles, true, waypoints[k], waypoints[k + 1]);
        assert_eq!(hit.is_some(), k % 2 == 1, "segment {k}");
    }
    for refined in [false, true] {
        let options = CheckOptions::default()
            .with_locate_first_collision(true)
            .with_refined(refined);
        let mut checker =
            PathChecker::new(&body, &obstacles, &DisabledPairs::new(), &options).unwrap();
        let r = checker.check_path(&waypoints).unwrap();
        assert_eq!(r.status, PathStatus::Collides);
        assert_eq!(r.first_colliding_segment, Some(1));
        assert_eq!(r.collision.map(|c| c.segment), Some(1));
        let (seg, s) = r.certified_free_prefix;
        assert_eq!(seg, 1);
        let k =
            first_colliding_sample(&body, &obstacles, true, waypoints[1], waypoints[2]).unwrap();
        assert!(
            s > 0.0 && s <= k as f64 / common::SAMPLES as f64,
            "prefix {s}"
        );
        // The free first segment alone is free, from the cache.
        let first = checker.check_path(&waypoints[..2]).unwrap();
        assert_eq!(first.status, PathStatus::Free);
        assert_eq!(first.stats.segments_from_cache, 1);
        assert_eq!(first.certified_free_prefix, (0, 1.0));
    }
}
