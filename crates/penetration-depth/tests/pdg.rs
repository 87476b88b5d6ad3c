//! PDg against analytic and brute-force optima (M5 §6.2), and the
//! contract of every answer: collision-free, in contact, never worse than
//! the translational depth.

mod common;

use std::f64::consts::PI;
use std::sync::Arc;

use armature_bvh_geometry::{ArticulatedBody, DisabledPairs, Obstacle, Tessellation, TriMesh};
use armature_conservative_advance::Other;
use armature_kinematics::{Joint, JointType, KinematicTree, LinkSpec};
use armature_penetration_depth::lcp::LcpSolver;
use armature_penetration_depth::{
    CheckWorkspace, Checker, PdError, PdOptions, PdSolver, PdStatus, Projection,
};
use common::{Rng, cuboid};
use glam::{DAffine3, DQuat, DVec3};

/// A large slab whose top face is the plane `z = 0`.
fn ground() -> Obstacle {
    Obstacle::fixed(
        "ground",
        Arc::new(cuboid(DVec3::new(20.0, 20.0, 1.0), DVec3::ZERO)),
        DAffine3::from_translation(DVec3::new(0.0, 0.0, -0.5)),
    )
    .unwrap()
}

/// M5 Fig. 12: two stick-like links of length `l` hanging from a revolute
/// joint at height `d` above the ground, the second joined to the end of
/// the first; both turn about y.
fn two_link(l: f64, d: f64) -> ArticulatedBody {
    let w = 0.02 * l;
    let stick = || Arc::new(cuboid(DVec3::new(w, w, l), DVec3::new(0.0, 0.0, -l / 2.0)));
    let tree = KinematicTree::new(vec![
        LinkSpec::new("upper", None)
            .with_origin(DAffine3::from_translation(DVec3::new(0.0, 0.0, d)))
            .with_joint(Joint::revolute("j1", DVec3::Y, -PI, PI)),
        LinkSpec::new("lower", Some("upper"))
            .with_origin(DAffine3::from_translation(DVec3::new(0.0, 0.0, -l)))
            .with_joint(Joint::revolute("j2", DVec3::Y, -PI, PI)),
    ])
    .unwrap();
    ArticulatedBody::new("two_link", tree, vec![Some(stick()), Some(stick())]).unwrap()
}

/// The smallest `θ ∈ [0, hi]` (scaled by `sign`) at which `collides` turns
/// false, by bisection on a free end (`None` when `hi` still collides).
fn first_free(mut collides: impl FnMut(f64) -> bool, hi: f64) -> Option<f64> {
    if collides(hi) {
        return None;
    }
    let (mut a, mut b) = (0.0, hi);
    for _ in 0..50 {
        let m = 0.5 * (a + b);
        if collides(m) {
            a = m;
        } else {
            b = m;
        }
    }
    Some(b)
}

/// M5 §6.2's articulated validation: the PDg of the two-link model against
/// the optimum of the same norm over the contact configurations, sampled
/// densely (for each θ1, the contact θ2 of each sign by bisection).
#[test]
fn two_link_against_the_sampled_optimum() {
    let l = 1.0;
    let obstacles = [ground()];
    let options = PdOptions::default()
        .with_distance_threshold(1e-4)
        .with_self_collision(false);
    let mut errors = Vec::new();
    for k in 0..10 {
        let d = l * (1.0 + 0.1 * f64::from(k));
        let body = two_link(l, d);
        let mut solver = PdSolver::new(&body, &obstacles, &DisabledPairs::new(), &options).unwrap();
        let q_in = [0.0, 0.0];
        let report = solver.penetration_depth(&q_in).unwrap();
        assert_eq!(report.status, PdStatus::Separated, "d = {d}");
        let frame = solver.norm().around(&q_in).unwrap();
        let checker = Checker::new(&body, &obstacles, &DisabledPairs::new(), false, true).unwrap();
        let mut ws = CheckWorkspace::new();
        let mut optimum = f64::INFINITY;
        let n = 400;
        for i in 0..=n {
            let t1 = -PI / 2.0 + PI * f64::from(i) / f64::from(n);
            for sign in [1.0, -1.0] {
                let free = first_free(
                    |t2| checker.collides(&[t1, sign * t2], &mut ws).unwrap(),
                    PI,
                );
                if let Some(t2) = free {
                    optimum = optimum.min(frame.norm(&[t1, sign * t2]).unwrap());
                }
            }
        }
        assert!(optimum.is_finite());
        errors.push(report.value - optimum);
        // Never below the optimum by more than the contact tolerance's
        // effect, and the answer is free.
        assert!(
            report.value >= optimum * (1.0 - 1e-2) - 1e-3,
            "d = {d}: {} below the sampled optimum {optimum}",
            report.value
        );
        assert!(!checker.collides(&report.configuration, &mut ws).unwrap());
    }
    let mse = errors.iter().map(|e| e * e).sum::<f64>() / errors.len() as f64;
    println!("two-link PDg against the sampled optimum: errors {errors:?}, MSE {mse:.3e}");
    assert!(mse <= 0.0027, "MSE {mse} above M5's 0.0027");
}

/// A floating body: a flat, elongated "spoon" (a handle and a bowl).
fn spoon() -> ArticulatedBody {
    let tess = Tessellation::default();
    let handle = cuboid(DVec3::new(0.16, 0.02, 0.006), DVec3::new(-0.06, 0.0, 0.0));
    let bowl = tess
        .sphere(1.0)
        .unwrap()
        .transformed(&DAffine3::from_scale_rotation_translation(
            DVec3::new(0.035, 0.025, 0.008),
            DQuat::IDENTITY,
            DVec3::new(0.055, 0.0, 0.0),
        ))
        .unwrap();
    let mesh = TriMesh::merge([&handle, &bowl]).unwrap();
    let tree = KinematicTree::new(vec![
        LinkSpec::new("spoon", None).with_joint(Joint::new("free", JointType::Floating)),
    ])
    .unwrap();
    ArticulatedBody::new("spoon", tree, vec![Some(Arc::new(mesh))]).unwrap()
}

fn floating(p: DVec3, r: DQuat) -> Vec<f64> {
    vec![p.x, p.y, p.z, r.x, r.y, r.z, r.w]
}

/// M5 §6.2's rigid validation: the spoon pushed into the ground, PDg
/// against a brute-force optimum over rotations about every axis of the
/// spoon and translations, each contact found by bisection.
#[test]
fn spoon_into_the_ground_against_a_sampled_optimum() {
    let body = spoon();
    let obstacles = [ground()];
    let options = PdOptions::default().with_distance_threshold(1e-5);
    let mut solver = PdSolver::new(&body, &obstacles, &DisabledPairs::new(), &options).unwrap();
    let checker = Checker::new(&body, &obstacles, &DisabledPairs::new(), true, true).unwrap();
    let mut ws = CheckWorkspace::new();
    let mut rng = Rng(7);
    let mut relative = Vec::new();
    for _ in 0..6 {
        let tilt = DQuat::from_euler(
            glam::EulerRot::XYZ,
            rng.uniform(-0.3, 0.3),
            rng.uniform(-0.3, 0.3),
            rng.uniform(-PI, PI),
        );
        let q_in = floating(DVec3::new(0.0, 0.0, rng.uniform(-0.004, 0.004)), tilt);
        if !checker.collides(&q_in, &mut ws).unwrap() {
            continue;
        }
        let report = solver.penetration_depth(&q_in).unwrap();
        solver.clear_coherence();
        assert_eq!(report.status, PdStatus::Separated);
        assert!(!checker.collides(&report.configuration, &mut ws).unwrap());
        let frame = solver.norm().around(&q_in).unwrap();
        // Brute force: a rotation `exp(a)` of the spoon about its own
        // centroid-frame axes, then the shortest lift along +z that frees
        // it (the ground is a plane: lifting is the best translation up to
        // a sideways slide, which never helps against a plane).
        let m = solver.norm().link_mass(0).unwrap();
        let c_world =
            DAffine3::from_rotation_translation(tilt, DVec3::new(q_in[0], q_in[1], q_in[2]))
                .transform_point3(m.centroid);
        let mut best = f64::INFINITY;
        let steps = 24;
        for i in 0..=steps {
            for j in 0..=steps {
                let a = DVec3::new(
                    -0.5 + f64::from(i) / f64::from(steps),
                    -0.5 + f64::from(j) / f64::from(steps),
                    0.0,
                );
                let r = DQuat::from_scaled_axis(a) * tilt;
                // The spoon turned about its centroid.
                let origin = c_world - r * m.centroid;
                let lift = first_free(
                    |h| {
                        checker
                            .collides(&floating(origin + DVec3::Z * h, r), &mut ws)
                            .unwrap()
                    },
                    0.2,
                );
                if let Some(h) = lift {
                    best = best.min(frame.norm(&floating(origin + DVec3::Z * h, r)).unwrap());
                }
            }
        }
        let e = (report.value - best) / report.value.max(best);
        relative.push(e.max(0.0));
    }
    assert!(relative.len() >= 3, "too few colliding placements");
    let mean = relative.iter().sum::<f64>() / relative.len() as f64;
    println!("spoon PDg relative excess over the sampled optimum: {relative:?}, mean {mean:.4}");
    assert!(
        mean <= 0.0165,
        "mean relative error {mean} above M5's 0.0165"
    );
}

/// A 3-link arm on a floating base among boxes.
fn arm() -> ArticulatedBody {
    let link = |len: f64| {
        Arc::new(cuboid(
            DVec3::new(len, 0.06, 0.06),
            DVec3::new(len / 2.0, 0.0, 0.0),
        ))
    };
    let tree = KinematicTree::new(vec![
        LinkSpec::new("base", None).with_joint(Joint::new("free", JointType::Floating)),
        LinkSpec::new("l1", Some("base"))
            .with_origin(DAffine3::from_translation(DVec3::new(0.1, 0.0, 0.0)))
            .with_joint(Joint::revolute("j1", DVec3::Z, -2.5, 2.5)),
        LinkSpec::new("l2", Some("l1"))
            .with_origin(DAffine3::from_translation(DVec3::new(0.4, 0.0, 0.0)))
            .with_joint(Joint::revolute("j2", DVec3::Y, -2.5, 2.5)),
        LinkSpec::new("l3", Some("l2"))
            .with_origin(DAffine3::from_translation(DVec3::new(0.3, 0.0, 0.0)))
            .with_joint(Joint::revolute("j3", DVec3::Z, -2.5, 2.5)),
    ])
    .unwrap();
    let base = Arc::new(cuboid(DVec3::splat(0.2), DVec3::ZERO));
    ArticulatedBody::new(
        "arm",
        tree,
        vec![
            Some(base),
            Some(link(0.4)),
            Some(link(0.3)),
            Some(link(0.25)),
        ],
    )
    .unwrap()
}

fn boxes() -> Vec<Obstacle> {
    [
        (DVec3::new(0.5, 0.3, 0.0), DVec3::new(0.3, 0.1, 0.4)),
        (DVec3::new(0.2, -0.4, 0.1), DVec3::new(0.15, 0.15, 0.15)),
        (DVec3::new(0.9, 0.0, -0.2), DVec3::new(0.1, 0.5, 0.1)),
    ]
    .into_iter()
    .enumerate()
    .map(|(i, (c, s))| {
        Obstacle::fixed(
            format!("box{i}"),
            Arc::new(cuboid(s, DVec3::ZERO)),
            DAffine3::from_translation(c),
        )
        .unwrap()
    })
    .collect()
}

/// Translational depth by brute force: for each of many directions, the
/// shortest translation of the whole model (through the floating base)
/// that is free, by bisection on discrete checks.
fn brute_translational_depth(checker: &Checker<'_>, q_in: &[f64], directions: usize) -> f64 {
    let mut ws = CheckWorkspace::new();
    let mut best = f64::INFINITY;
    for k in 0..directions {
        // Fibonacci sphere.
        let z = 1.0 - 2.0 * (k as f64 + 0.5) / directions as f64;
        let phi = k as f64 * PI * (3.0 - 5f64.sqrt());
        let r = (1.0 - z * z).sqrt();
        let d = DVec3::new(r * phi.cos(), r * phi.sin(), z);
        let at = |s: f64| {
            let mut q = q_in.to_vec();
            q[0] += d.x * s;
            q[1] += d.y * s;
            q[2] += d.z * s;
            q
        };
        // March out to the first free sample, then bisect back.
        let mut hi = None;
        let mut s = 0.01;
        while s < 4.0 {
            if !checker.collides(&at(s), &mut ws).unwrap() {
                hi = Some(s);
                break;
            }
            s += 0.01;
        }
        if let Some(hi) = hi {
            let (mut a, mut b) = (hi - 0.01, hi);
            for _ in 0..40 {
                let m = 0.5 * (a + b);
                if checker.collides(&at(m), &mut ws).unwrap() {
                    a = m;
                } else {
                    b = m;
                }
            }
            best = best.min(b);
        }
    }
    best
}

/// A random configuration of the arm: its base anywhere around the boxes,
/// turned at random, and its three joints within `±reach`.
fn arm_config(rng: &mut Rng, reach: f64) -> Vec<f64> {
    let r = DQuat::from_euler(
        glam::EulerRot::XYZ,
        rng.uniform(-PI, PI),
        rng.uniform(-1.0, 1.0),
        rng.uniform(-PI, PI),
    );
    let mut q = floating(
        DVec3::new(
            rng.uniform(-0.2, 0.6),
            rng.uniform(-0.4, 0.4),
            rng.uniform(-0.3, 0.3),
        ),
        r,
    );
    for _ in 0..3 {
        q.push(rng.uniform(-reach, reach));
    }
    q
}

/// Random in-collision configurations of the arm: every answer is
/// collision-free, in contact (within the tolerance), and its norm is at
/// most the squared translational depth (a translation of the whole model
/// by `t` has norm `|t|²`).
#[test]
fn answers_are_free_in_contact_and_below_the_translational_depth() {
    answers_hold_the_contract(Projection::Bisection, LcpSolver::ActiveSet, 12);
}

/// The same contract with projections by conservative advancement.
#[test]
fn continuous_projections_keep_the_contract_too() {
    answers_hold_the_contract(Projection::ContinuousCollision, LcpSolver::ActiveSet, 6);
}

/// The same contract with M5's projected Gauss–Seidel for the LCPs.
#[test]
fn gauss_seidel_steps_keep_the_contract_too() {
    answers_hold_the_contract(Projection::Bisection, LcpSolver::Pgs, 12);
}

fn answers_hold_the_contract(projection: Projection, lcp: LcpSolver, samples: usize) {
    let body = arm();
    let obstacles = boxes();
    let mut options = PdOptions::default()
        .with_distance_threshold(1e-4)
        .with_projection(projection);
    options.lcp = lcp;
    let mut solver = PdSolver::new(&body, &obstacles, &DisabledPairs::new(), &options).unwrap();
    let checker = Checker::new(&body, &obstacles, &DisabledPairs::new(), true, true).unwrap();
    let mut ws = CheckWorkspace::new();
    let mut rng = Rng(11);
    let mut done = 0;
    let mut tries = 0;
    while done < samples && tries < 400 {
        tries += 1;
        let q = arm_config(&mut rng, 2.0);
        if !checker.collides(&q, &mut ws).unwrap() {
            continue;
        }
        done += 1;
        let report = solver.penetration_depth(&q).unwrap();
        solver.clear_coherence();
        assert_eq!(report.status, PdStatus::Separated, "q = {q:?}");
        assert!(
            !checker.collides(&report.configuration, &mut ws).unwrap(),
            "q = {q:?}: the answer collides"
        );
        let (d, _) = checker.distance(&report.configuration, &mut ws).unwrap();
        assert!(
            d <= options.tolerance(),
            "q = {q:?}: the answer is {d} from contact (tolerance {})",
            options.tolerance()
        );
        // The report's distance is the answer's (its nearest contact's).
        assert!(
            (report.distance - d).abs() <= 1e-12 * (1.0 + d),
            "q = {q:?}: reported distance {} against {d}",
            report.distance
        );
        // The report's contacts are every contact at the answer, in the
        // checker's order.
        let mut all = Vec::new();
        checker
            .contacts(
                &report.configuration,
                options.tolerance(),
                &mut all,
                &mut ws,
            )
            .unwrap();
        assert_eq!(report.contacts, all, "q = {q:?}: the report's contacts");
        let frame = solver.norm().around(&q).unwrap();
        assert!(
            (frame.norm(&report.configuration).unwrap() - report.value).abs()
                <= 1e-9 * (1.0 + report.value)
        );
        // The brute force finds the touching translation; the answer keeps
        // its distance `d` (within the tolerance), which a translation
        // needs `d` more for: compare at the same clearance.
        let pdt = brute_translational_depth(&checker, &q, 64) + d;
        assert!(
            report.value <= pdt * pdt,
            "q = {q:?}: PDg {} above the squared translational depth {} (at clearance {d})",
            report.value,
            pdt * pdt
        );
    }
    assert_eq!(done, samples, "too few colliding samples");
}

/// What [`same_answers`] saw: discrete checks of each solver, and how many
/// inputs collided with themselves.
struct Compared {
    checks: (usize, usize),
    self_colliding: usize,
}

/// Solvers with options `x` and `y` answer alike (status, value,
/// configuration and selection, bit for bit) on 24 random in-collision
/// configurations of the arm from `seed`, self-colliding ones included;
/// `coherence`: each solver keeps its last answer, as a user's sequence of
/// queries would (otherwise cleared before each).
fn same_answers(x: &PdOptions, y: &PdOptions, seed: u64, coherence: bool) -> Compared {
    let body = arm();
    let obstacles = boxes();
    let disabled = DisabledPairs::new();
    let mut a_solver = PdSolver::new(&body, &obstacles, &disabled, x).unwrap();
    let mut b_solver = PdSolver::new(&body, &obstacles, &disabled, y).unwrap();
    let checker = Checker::new(&body, &obstacles, &disabled, true, true).unwrap();
    let mut ws = CheckWorkspace::new();
    let mut rng = Rng(seed);
    let (mut done, mut tries) = (0, 0);
    let mut seen = Compared {
        checks: (0, 0),
        self_colliding: 0,
    };
    while done < 24 && tries < 800 {
        tries += 1;
        let q = arm_config(&mut rng, PI);
        if !checker.collides(&q, &mut ws).unwrap() {
            continue;
        }
        done += 1;
        let only_links = checker
            .first_overlap(&q, |_, o| matches!(o, Other::Link(_)), &mut ws)
            .unwrap();
        seen.self_colliding += usize::from(only_links.is_some());
        if !coherence {
            a_solver.clear_coherence();
            b_solver.clear_coherence();
        }
        let a = a_solver.penetration_depth(&q).unwrap();
        let b = b_solver.penetration_depth(&q).unwrap();
        assert_eq!(a.status, b.status, "q = {q:?}");
        assert_eq!(a.value.to_bits(), b.value.to_bits(), "q = {q:?}");
        assert_eq!(a.configuration, b.configuration, "q = {q:?}");
        assert_eq!(a.selection, b.selection, "q = {q:?}");
        seen.checks.0 += a.stats.discrete_checks;
        seen.checks.1 += b.stats.discrete_checks;
    }
    assert_eq!(done, 24, "too few colliding samples");
    assert!(seen.self_colliding > 0, "no self-colliding sample");
    seen
}

/// The ranking that drops candidates a step at a time answers exactly as
/// the exhaustive one (the same configuration, bit for bit), on random
/// in-collision configurations of the arm, self-colliding ones included,
/// with fewer discrete checks overall.
#[test]
fn pruned_ranking_answers_as_the_exhaustive_one() {
    let options = PdOptions::default().with_distance_threshold(1e-4);
    let exhaustive = PdOptions {
        exhaustive_ranking: true,
        ..options
    };
    let seen = same_answers(&options, &exhaustive, 29, false);
    let (pruned, full) = seen.checks;
    println!("discrete checks: pruned {pruned}, exhaustive {full}");
    assert!(pruned < full);
}

/// Reusing the records of pairs of links found apart
/// ([`PdOptions::reuse_apart_pairs`], the default) answers as testing
/// every pair at every check (the same configuration, bit for bit), on
/// random in-collision configurations of the arm, self-colliding ones
/// included, with motion coherence kept.
#[test]
fn reused_apart_pairs_answer_as_every_pair_tested() {
    let options = PdOptions::default().with_distance_threshold(1e-4);
    let every_pair = PdOptions {
        reuse_apart_pairs: false,
        ..options
    };
    same_answers(&options, &every_pair, 31, true);
}

#[test]
fn a_free_input_answers_zero_with_itself() {
    let body = arm();
    let obstacles = boxes();
    let mut solver = PdSolver::new(
        &body,
        &obstacles,
        &DisabledPairs::new(),
        &PdOptions::default(),
    )
    .unwrap();
    let q = floating(DVec3::new(-2.0, 0.0, 0.0), DQuat::IDENTITY)
        .into_iter()
        .chain([0.0, 0.0, 0.0])
        .collect::<Vec<_>>();
    let report = solver.penetration_depth(&q).unwrap();
    assert_eq!(report.status, PdStatus::AlreadyFree);
    assert_eq!(report.value, 0.0);
    assert_eq!(report.configuration, q);
}

#[test]
fn bad_inputs_are_errors() {
    let body = arm();
    let obstacles = boxes();
    let mut solver = PdSolver::new(
        &body,
        &obstacles,
        &DisabledPairs::new(),
        &PdOptions::default(),
    )
    .unwrap();
    assert!(matches!(
        solver.penetration_depth(&[0.0; 3]),
        Err(PdError::Kinematics(_))
    ));
    let mut q = floating(DVec3::ZERO, DQuat::IDENTITY);
    q.extend([f64::NAN, 0.0, 0.0]);
    assert!(matches!(
        solver.penetration_depth(&q),
        Err(PdError::Kinematics(_))
    ));
    let bad = PdOptions::default().with_distance_threshold(-1.0);
    assert!(matches!(
        PdSolver::new(&body, &obstacles, &DisabledPairs::new(), &bad),
        Err(PdError::InvalidOption {
            name: "distance_threshold",
            ..
        })
    ));
    let tree = KinematicTree::new(vec![
        LinkSpec::new("cart", None).with_joint(Joint::new("v", JointType::Vehicle)),
    ])
    .unwrap();
    let cart = ArticulatedBody::new(
        "cart",
        tree,
        vec![Some(Arc::new(cuboid(DVec3::splat(0.2), DVec3::ZERO)))],
    )
    .unwrap();
    let err = PdSolver::new(
        &cart,
        &obstacles,
        &DisabledPairs::new(),
        &PdOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(err, PdError::UnsupportedJoint { ref link, .. } if link == "cart"),
        "{err}"
    );
}
