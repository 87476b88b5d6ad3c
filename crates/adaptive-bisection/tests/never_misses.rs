//! ADAPTIVE-BISECTION and its REFINED variant against the brute-force
//! oracle (dense samples, all-pairs triangle intersection and
//! containment): a segment with a colliding sample is never answered free,
//! a certified free prefix `[0, s)` never holds a colliding sample, where
//! both variants decide a segment without clearance they agree, and a
//! collision reported with a clearance `ε` names a pair within `ε` there
//! (with a clearance the answer depends on the configurations evaluated:
//! a segment whose objects come within `ε` without touching may be
//! answered either way).

mod common;

use armature_adaptive_bisection::{CheckOptions, Object, PathChecker, PathStatus};
use armature_bvh_geometry::query::{DistanceWorkspace, MeshObject, distance};
use armature_bvh_geometry::{ArticulatedBody, DisabledPairs, Obstacle};
use armature_kinematics::JointSpaceMotion;
use common::{
    SAMPLES, arm, first_colliding_sample, folding_arm, quaternion_bodies, thin_obstacles, two_arms,
};
use proptest::prelude::*;

/// What one random segment showed; the counts make sure both outcomes are
/// exercised.
#[derive(Debug, Default)]
struct Outcome {
    oracle_hit: bool,
    free: bool,
    /// Pairs of volumes the REFINED variant queued (without clearance).
    bv_pairs: u64,
}

fn check_one(
    body: &ArticulatedBody,
    obstacles: &[Obstacle],
    self_collision: bool,
    qa: &[f64],
    qb: &[f64],
) -> Result<Outcome, TestCaseError> {
    let hit = first_colliding_sample(body, obstacles, self_collision, qa, qb);
    let plain = check_variant(body, obstacles, self_collision, qa, qb, hit, false)?;
    let refined = check_variant(body, obstacles, self_collision, qa, qb, hit, true)?;
    // Without clearance both variants decide the same question: where both
    // decide, they agree. (With one, each may or may not meet a
    // configuration within `ε`; `check_variant` checks such witnesses.)
    let (a, b) = (plain.0[0], refined.0[0]);
    if a != PathStatus::BudgetExhausted && b != PathStatus::BudgetExhausted {
        prop_assert_eq!(a, b, "ADAPTIVE and REFINED disagree");
    }
    Ok(Outcome {
        oracle_hit: hit.is_some(),
        free: plain.0[0] == PathStatus::Free,
        bv_pairs: refined.1,
    })
}

/// One variant against the oracle's first colliding sample `hit`: the
/// verdicts without and with a clearance, and the pairs of volumes queued
/// without.
fn check_variant(
    body: &ArticulatedBody,
    obstacles: &[Obstacle],
    self_collision: bool,
    qa: &[f64],
    qb: &[f64],
    hit: Option<usize>,
    refined: bool,
) -> Result<([PathStatus; 2], u64), TestCaseError> {
    let options = CheckOptions::default()
        .with_self_collision(self_collision)
        .with_locate_first_collision(true)
        .with_refined(refined);
    let mut checker = PathChecker::new(body, obstacles, &DisabledPairs::new(), &options).unwrap();
    let report = checker.check_segment(qa, qb).unwrap();
    let walk = checker.first_collision(qa, qb).unwrap();
    prop_assert_ne!(report.status, PathStatus::BudgetExhausted);
    if !refined {
        prop_assert_eq!(report.stats.bv_pairs, 0);
    }
    if let Some(k) = hit {
        prop_assert_ne!(
            report.status,
            PathStatus::Free,
            "sample {} of {} collides, the segment was answered free (refined: {})",
            k,
            SAMPLES,
            refined
        );
        prop_assert_ne!(walk.status, PathStatus::Free);
        let s_hit = k as f64 / SAMPLES as f64;
        prop_assert!(
            walk.certified_free_prefix <= s_hit,
            "walk prefix {} holds the colliding sample at {}",
            walk.certified_free_prefix,
            s_hit
        );
        let (seg, s) = report.certified_free_prefix;
        prop_assert_eq!(seg, 0);
        prop_assert!(
            s <= s_hit,
            "path prefix {} holds the colliding sample at {} (refined: {})",
            s,
            s_hit,
            refined
        );
    }
    // A clearance never makes a colliding segment free either.
    let mut coarse = PathChecker::new(
        body,
        obstacles,
        &DisabledPairs::new(),
        &options.with_clearance(CLEARANCE),
    )
    .unwrap();
    let with_clearance = coarse.check_segment(qa, qb).unwrap();
    if let Some(c) = with_clearance.collision {
        let d = pair_distance(body, obstacles, qa, qb, c.s, c.link, c.other);
        prop_assert!(
            d <= CLEARANCE * (1.0 + 1e-9),
            "a collision reported with clearance {} at s = {} between link {} and {:?}, {} apart (refined: {})",
            CLEARANCE,
            c.s,
            c.link,
            c.other,
            d,
            refined
        );
    }
    if hit.is_some() {
        prop_assert_ne!(
            with_clearance.status,
            PathStatus::Free,
            "refined: {}",
            refined
        );
    }
    if report.status == PathStatus::Free {
        prop_assert_eq!(report.certified_free_prefix, (0, 1.0));
    }
    Ok((
        [report.status, with_clearance.status],
        report.stats.bv_pairs,
    ))
}

/// The clearance of the second check of each segment.
const CLEARANCE: f64 = 0.02;

/// The exact distance of a reported pair at `s` on the segment.
fn pair_distance(
    body: &ArticulatedBody,
    obstacles: &[Obstacle],
    qa: &[f64],
    qb: &[f64],
    s: f64,
    link: usize,
    other: Object,
) -> f64 {
    let tree = body.tree();
    let motion = JointSpaceMotion::new(tree, qa, qb).unwrap();
    let mut q = vec![0.0; tree.nq()];
    motion.config_at(tree, s, &mut q).unwrap();
    let poses = tree.poses(&q).unwrap();
    let geometry = |i: usize| body.links()[i].as_ref().expect("a link with geometry");
    let a = geometry(link);
    let a = MeshObject::new(&a.mesh, &a.rss_tree, poses[link]).unwrap();
    let (g, pose) = match other {
        Object::Link(j) => (geometry(j), poses[j]),
        Object::Obstacle(o) => (obstacles[o].geometry(), obstacles[o].pose_at(0.0)),
    };
    let b = MeshObject::new(&g.mesh, &g.rss_tree, pose).unwrap();
    distance(&a, &b, &mut DistanceWorkspace::default(), None).distance
}

fn angles(n: usize, range: f64) -> impl Strategy<Value = Vec<f64>> {
    proptest::collection::vec(-range..range, n)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The spatial arm among a 2 mm plate, a 2 cm rod and a box.
    #[test]
    fn arm_among_thin_obstacles(qa in angles(3, 3.0), d in angles(3, 1.5)) {
        let body = arm();
        let obstacles = thin_obstacles();
        let qb: Vec<f64> = qa.iter().zip(&d).map(|(a, d)| a + d).collect();
        check_one(&body, &obstacles, true, &qa, &qb)?;
    }

    /// Short motions of the spatial arm near the thin obstacles: small
    /// clearances Lemma 1 needs, where the boxes grown by them decide and
    /// halves are proven by their ends alone (a segment must still end
    /// decided: no budget is spent).
    #[test]
    fn arm_among_thin_obstacles_short_motions(qa in angles(3, 3.0), d in angles(3, 0.08)) {
        let body = arm();
        let obstacles = thin_obstacles();
        let qb: Vec<f64> = qa.iter().zip(&d).map(|(a, d)| a + d).collect();
        check_one(&body, &obstacles, true, &qa, &qb)?;
    }

    /// A planar four-link arm folding onto itself (self-collision only).
    #[test]
    fn folding_arm_self_collision(qa in angles(4, 3.0), d in angles(4, 1.5)) {
        let body = folding_arm();
        let qb: Vec<f64> = qa.iter().zip(&d).map(|(a, d)| a + d).collect();
        check_one(&body, &[], true, &qa, &qb)?;
    }

    /// A free-flying body with a ball joint and a planar cart among the
    /// obstacles: quaternion and planar values interpolated, their
    /// rounding inside the pad.
    #[test]
    fn quaternion_joints_among_thin_obstacles(
        pa in proptest::collection::vec(-1.5..1.5f64, 3),
        dp in proptest::collection::vec(-1.0..1.0f64, 3),
        ra in proptest::collection::vec(-1.0..1.0f64, 8),
        rb in proptest::collection::vec(-1.0..1.0f64, 8),
        cart in proptest::collection::vec(-2.0..2.0f64, 3),
        dc in proptest::collection::vec(-1.0..1.0f64, 3),
    ) {
        // Quaternions from random 4-vectors away from zero (normalised by
        // the joints themselves).
        let quat = |v: &[f64]| -> Vec<f64> {
            let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
            if n < 0.1 { vec![0.0, 0.0, 0.0, 1.0] } else { v.iter().map(|x| x / n).collect() }
        };
        let config = |p: &[f64], r: &[f64], c: &[f64]| -> Vec<f64> {
            let mut q = p.to_vec();
            q.extend(quat(&r[..4]));
            q.extend(quat(&r[4..]));
            q.extend_from_slice(c);
            q
        };
        let pb: Vec<f64> = pa.iter().zip(&dp).map(|(a, d)| a + d).collect();
        let cb: Vec<f64> = cart.iter().zip(&dc).map(|(a, d)| a + d).collect();
        let qa = config(&pa, &ra, &cart);
        let qb = config(&pb, &rb, &cb);
        let body = quaternion_bodies();
        let obstacles = thin_obstacles();
        check_one(&body, &obstacles, true, &qa, &qb)?;
    }

    /// Two arms (two roots) reaching for each other among the obstacles.
    #[test]
    fn two_arms_among_thin_obstacles(qa in angles(6, 3.0), d in angles(6, 1.5)) {
        let body = two_arms();
        let obstacles = thin_obstacles();
        let qb: Vec<f64> = qa.iter().zip(&d).map(|(a, d)| a + d).collect();
        check_one(&body, &obstacles, true, &qa, &qb)?;
    }
}

/// A fixed-seed sweep over the three scenes: the property above holds, and
/// both verdicts occur often enough for it to mean something.
#[test]
fn both_verdicts_occur() {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    let scenes: [(ArticulatedBody, Vec<Obstacle>); 3] = [
        (arm(), thin_obstacles()),
        (folding_arm(), Vec::new()),
        (two_arms(), thin_obstacles()),
    ];
    for (body, obstacles) in &scenes {
        let nq = body.tree().nq();
        let (mut hits, mut frees, mut bv_pairs) = (0, 0, 0);
        for _ in 0..12 {
            let qa: Vec<f64> = (0..nq).map(|_| 3.0 * next()).collect();
            let qb: Vec<f64> = qa.iter().map(|a| a + 1.5 * next()).collect();
            let o = check_one(body, obstacles, true, &qa, &qb).unwrap();
            hits += usize::from(o.oracle_hit);
            frees += usize::from(o.free);
            bv_pairs += o.bv_pairs;
        }
        assert!(
            bv_pairs > 0,
            "{}: the refined variant never split volumes",
            body.name()
        );
        assert!(hits >= 2, "{}: only {hits} colliding segments", body.name());
        assert!(frees >= 2, "{}: only {frees} free segments", body.name());
    }
}

/// The quaternion scene's sweep: both verdicts occur, so its property
/// above is exercised on colliding and on free segments.
#[test]
fn quaternion_verdicts_occur() {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    let body = quaternion_bodies();
    let obstacles = thin_obstacles();
    let unit = |next: &mut dyn FnMut() -> f64| -> Vec<f64> {
        let v: Vec<f64> = (0..4).map(|_| next() + 0.05).collect();
        let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        v.iter().map(|x| x / n).collect()
    };
    let (mut hits, mut frees) = (0, 0);
    for _ in 0..16 {
        let config = |next: &mut dyn FnMut() -> f64| -> Vec<f64> {
            let mut q: Vec<f64> = (0..3).map(|_| 1.5 * next()).collect();
            q.extend(unit(next));
            q.extend(unit(next));
            q.extend((0..3).map(|_| 2.0 * next()));
            q
        };
        let qa = config(&mut next);
        let qb = config(&mut next);
        let o = check_one(&body, &obstacles, true, &qa, &qb).unwrap();
        hits += usize::from(o.oracle_hit);
        frees += usize::from(o.free);
    }
    assert!(hits >= 2, "only {hits} colliding segments");
    assert!(frees >= 2, "only {frees} free segments");
}
