//! Interval enclosures of the world poses' time derivatives
//! ([`InBetweenMotion::enclose_interval_rate_into`]) against the true
//! velocities, sampled.
//!
//! Random forests of 1–12 links (chains and branching trees, sometimes a
//! second root) with every joint type (revolute and continuous swings up to
//! 3π, prismatic, spherical, planar, floating, vehicle, omni-vehicle,
//! orientation and location joints; vehicles and locations move as free
//! poses in an in-between motion), random proper-rotation origins, random
//! `q0`, `q1` (including no motion, antipodal and unnormalised quaternions,
//! exact half turns, vehicles turning on the spot or driving straight) and
//! random sub-intervals `[t0, t1] ⊆ [0, 1]`. The forests are those of
//! `enclosure_props` (the generator in `common`), with at most 12 links.
//!
//! - *Soundness.* At 9 times of `[t0, t1]` (both ends included) and for
//!   random points `p` of every link (and its origin), the world velocity
//!   `d/dt (W_i(t) p)` lies in `rates[i].transform_point(p)`. The truth is
//!   [`InBetweenMotion::point_velocity`] at the poses of
//!   [`InBetweenMotion::poses_at`]: the analytic derivative with respect to
//!   the normalised time, in plain `f64` (that it *is* that derivative is
//!   checked separately against central finite differences with a proven
//!   error bound). Its only error is rounding, so the comparison allows
//!   [`TRUTH_TOL`] relative to the magnitudes involved, nothing more.
//! - *Same poses.* The poses written alongside are exactly those of
//!   [`InBetweenMotion::enclose_interval_into`].
//! - *Narrowing.* On an interval of width `2h` around a time the rate
//!   enclosure's width is `O(h)` above its rounding floor: dividing `h` by
//!   1000 divides that excess by at least 100.
//! - *Errors.* Bad times and wrong buffer lengths give the typed errors.
//!
//! Dropping the `R_p' R_l` term of the chain rule makes the soundness
//! property fail at once (checked when this test was written).

use armature_interval_taylor::{Interval, IntervalAffine3, IntervalVec3};
use armature_kinematics::prelude::*;
use common::{ALL, Case, case_turns, time_interval, vec3, widen_box};
use glam::{DAffine3, DMat3, DVec3};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use std::f64::consts::PI;

mod common;

/// Relative slack for the rounding error of the `f64` truth only: products
/// along up to 12 links and the platform's `sin`/`cos` give errors of a few
/// 1e-14 of the magnitudes involved; the enclosure itself gets no slack.
const TRUTH_TOL: f64 = 1e-9;

const CASES: u32 = 256;

/// Links per forest at most.
const LINKS: usize = 12;

/// Forests of every joint kind with quaternion swings up to π (special
/// cases included: no motion, antipodal and unnormalised end quaternions,
/// exact half turns, vehicles turning on the spot or driving straight).
fn case() -> impl Strategy<Value = Case> {
    case_turns(&ALL, PI, 1.0, LINKS)
}

/// 8 evenly spaced times of `[t0, t1]` plus the end point exactly.
fn samples(t0: f64, t1: f64) -> Vec<f64> {
    let mut ts: Vec<f64> = (0..8)
        .map(|k| (t0 + (t1 - t0) * f64::from(k) / 7.0).clamp(t0, t1))
        .collect();
    ts.push(t1);
    ts
}

/// The chain of ancestors of `link`, itself included.
fn ancestors(motion: &InBetweenMotion, link: usize) -> Vec<usize> {
    let mut out = vec![link];
    let mut k = link;
    while let Some(p) = motion.parents()[k] {
        out.push(p);
        k = p;
    }
    out
}

/// Bounds along the chain of `link` for a point `p` of it: `Ω = Σ|ω_j|`,
/// `S = |p| + Σ(|T₀_j| + |v_j|)` (bounds `|T_j(t)|` on `[0, 1]`) and
/// `V = Σ|v_j|`.
fn chain_bounds(motion: &InBetweenMotion, link: usize, p: DVec3) -> (f64, f64, f64) {
    let (mut om, mut s, mut v) = (0.0, p.length(), 0.0);
    for j in ancestors(motion, link) {
        let m = &motion.local()[j];
        om += m.omega.abs();
        s += m.trans0.length() + m.velocity.length();
        v += m.velocity.length();
    }
    (om, s, v)
}

/// Largest entry width of a rate enclosure.
fn max_width(a: &IntervalAffine3) -> f64 {
    [
        a.rotation.x_axis.width(),
        a.rotation.y_axis.width(),
        a.rotation.z_axis.width(),
        a.translation.width(),
    ]
    .iter()
    .map(|w| w.max_element())
    .fold(0.0, f64::max)
}

fn rates(motion: &InBetweenMotion, t0: f64, t1: f64) -> Vec<IntervalAffine3> {
    let n = motion.local().len();
    let (mut poses, mut rates) = (
        vec![IntervalAffine3::IDENTITY; n],
        vec![IntervalAffine3::IDENTITY; n],
    );
    motion
        .enclose_interval_rate_into(t0, t1, &mut poses, &mut rates)
        .unwrap();
    rates
}

fn check_sound(case: &Case, (t0, t1): (f64, f64), us: &[DVec3]) -> Result<(), TestCaseError> {
    let motion = InBetweenMotion::new(&case.tree, &case.q0, &case.q1).unwrap();
    let n = case.tree.len();
    let mut poses = vec![IntervalAffine3::IDENTITY; n];
    let mut rates = vec![IntervalAffine3::IDENTITY; n];
    motion
        .enclose_interval_rate_into(t0, t1, &mut poses, &mut rates)
        .unwrap();
    // The same values as the pose-only call (so one call serves both).
    prop_assert_eq!(&poses, &motion.enclose_interval(t0, t1).unwrap());
    let mut points = vec![DVec3::ZERO];
    points.extend_from_slice(us);
    let mut at = vec![DAffine3::IDENTITY; n];
    for t in samples(t0, t1) {
        motion.poses_at(t, &mut at).unwrap();
        for i in 0..n {
            for &p in &points {
                let v = motion.point_velocity(&at, i, p).unwrap();
                let (om, s, vs) = chain_bounds(&motion, i, p);
                // Magnitude of the terms the f64 truth adds up.
                let scale = 1.0 + om * s + vs;
                let b = rates[i].transform_point(p);
                prop_assert!(
                    widen_box(&b, TRUTH_TOL * scale).contains(v),
                    "rate enclosure of link {i} misses the velocity of {p:?} at t = {t} \
                     on [{t0}, {t1}]: {b:?} vs {v:?}"
                );
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    /// Sampled world velocities lie in the rate enclosures; the poses are
    /// those of `enclose_interval_into`.
    #[test]
    fn rates_enclose_point_velocities(
        case in case(),
        t in time_interval(4),
        us in prop::collection::vec(vec3(1.0), 3),
    ) {
        check_sound(&case, t, &us)?;
    }

    /// The truth used above is the time derivative of `poses_at`: central
    /// differences `(x(t+h) − x(t−h)) / 2h` differ from `x'(t)` by at most
    /// `h²/6 · sup|x'''|`, and
    /// `|x'''| ≤ Ω³ S + 3 Ω² V` (Leibniz on the products of the chain:
    /// `|R_j⁽ᵐ⁾| ≤ |ω_j|ᵐ`, `T_j' = v_j`, `T_j'' = 0`; see
    /// [`chain_bounds`]); plus the `f64` rounding of the two poses (below
    /// `1e-12 (1 + S)` each for at most 12 links) divided by `2h`, and that
    /// of the truth itself.
    #[test]
    fn reference_velocity_is_time_derivative(
        case in case(),
        t in 0.0..=1.0f64,
        p in vec3(1.0),
    ) {
        let motion = InBetweenMotion::new(&case.tree, &case.q0, &case.q1).unwrap();
        let n = case.tree.len();
        let h = 1e-4;
        let (mut a, mut b, mut c) = (
            vec![DAffine3::IDENTITY; n],
            vec![DAffine3::IDENTITY; n],
            vec![DAffine3::IDENTITY; n],
        );
        motion.poses_at(t + h, &mut a).unwrap();
        motion.poses_at(t - h, &mut b).unwrap();
        motion.poses_at(t, &mut c).unwrap();
        for i in 0..n {
            let fd = (a[i].transform_point3(p) - b[i].transform_point3(p)) / (2.0 * h);
            let v = motion.point_velocity(&c, i, p).unwrap();
            let (om, s, vs) = chain_bounds(&motion, i, p);
            let tol = h * h / 6.0 * (om.powi(3) * s + 3.0 * om * om * vs)
                + 1e-12 * (1.0 + s) / h
                + TRUTH_TOL * (1.0 + om * s + vs);
            prop_assert!(
                (fd - v).length() <= tol,
                "link {i}: finite difference {fd:?} vs point_velocity {v:?} (tol {tol})"
            );
        }
    }

    /// Narrowing: on `[tm − h, tm + h]` the rate enclosure has width
    /// `w₀ + O(h)`, `w₀` its width on the point `[tm, tm]`:
    ///
    /// - `w₀` is rounding only: below `1e-11 (1 + Ω S + V)` (seen: 2.5e-13);
    /// - at `h = 1e-6` the width is at most
    ///   `w₀ + 2h · 3^depth · (1 + Ω)² (1 + S)`: the entries of `W_i'`
    ///   change at most at rate `Ω² S + 2 Ω V ≤ (1 + Ω)² (1 + S)` (second
    ///   derivatives, Leibniz as above), and each interval product of the
    ///   chain can amplify widths by at most about 3 (sums of three
    ///   products of entries of modulus ≤ 1; seen: at most 0.36 of this
    ///   bound);
    /// - shrinking `h` from 1e-3 to 1e-6 shrinks the width's excess over
    ///   `4 w₀` at least 100-fold (linear convergence would give 1000).
    ///
    /// An enclosure that does not follow the interval (a fixed bound on
    /// the rotation rate, say) fails.
    #[test]
    fn rates_narrow_on_small_intervals(case in case(), tm in 0.001..=0.999f64) {
        let motion = InBetweenMotion::new(&case.tree, &case.q0, &case.q1).unwrap();
        let h = 1e-6;
        let w0 = rates(&motion, tm, tm);
        let wide = rates(&motion, tm - 1e-3, tm + 1e-3);
        let narrow = rates(&motion, tm - h, tm + h);
        for i in 0..case.tree.len() {
            let (w0, wide, narrow) = (max_width(&w0[i]), max_width(&wide[i]), max_width(&narrow[i]));
            let (om, s, vs) = chain_bounds(&motion, i, DVec3::ZERO);
            let depth = i32::try_from(ancestors(&motion, i).len()).unwrap();
            prop_assert!(w0 <= 1e-11 * (1.0 + om * s + vs), "link {i}: width {w0} on a point");
            let bound = w0 + 2.0 * h * 3f64.powi(depth) * (1.0 + om).powi(2) * (1.0 + s);
            prop_assert!(
                narrow <= bound,
                "link {i}: width {narrow} on 2e-6 above {bound}"
            );
            prop_assert!(
                narrow <= wide / 100.0 + 4.0 * w0,
                "link {i}: width {narrow} on 2e-6, {wide} on 2e-3, {w0} on a point"
            );
        }
    }
}

/// A tiny interval gives a tight rate: for one revolute link swinging
/// `ω = 2` about z at distance 1, the rate over `[0.5 ± 1e-6]` encloses
/// `ω [z]× R(t)` and the velocity `2·(−sin 1, cos 1, 0)` of the point x,
/// with width about `ω² · 2e-6` (the velocity turns at rate `ω²`).
#[test]
fn single_revolute_rate_is_tight() {
    let tree = KinematicTree::new(vec![
        LinkSpec::new("a", None)
            .with_joint(Joint::new("j", JointType::Revolute { axis: DVec3::Z })),
    ])
    .unwrap();
    let motion = InBetweenMotion::new(&tree, &[0.0], &[2.0]).unwrap();
    let h = 1e-6;
    let r = rates(&motion, 0.5 - h, 0.5 + h);
    let v = r[0].transform_point(DVec3::X);
    let exact = 2.0 * DVec3::new(-1f64.sin(), 1f64.cos(), 0.0);
    assert!(v.contains(exact), "{v:?} vs {exact:?}");
    assert!(v.width().max_element() <= 4.0 * 4.0 * 2.0 * h, "{v:?}");
    let rot = DMat3::from_cols(
        DVec3::new(-1f64.sin(), 1f64.cos(), 0.0),
        DVec3::new(-1f64.cos(), -1f64.sin(), 0.0),
        DVec3::ZERO,
    ) * 2.0;
    let slack = |m: &armature_interval_taylor::IntervalMat3| {
        armature_interval_taylor::IntervalMat3::from_cols(
            widen_box(&m.x_axis, 1e-15),
            widen_box(&m.y_axis, 1e-15),
            widen_box(&m.z_axis, 1e-15),
        )
    };
    assert!(slack(&r[0].rotation).contains(&rot), "{:?}", r[0].rotation);
    assert_eq!(r[0].translation, IntervalVec3::ZERO);
    // The local enclosure alone gives the same for a root link.
    let local = motion.local()[0]
        .interval_rate_enclosure(Interval::new(0.5 - h, 0.5 + h).unwrap())
        .unwrap();
    assert_eq!(local, r[0]);
}

#[test]
fn errors_are_typed() {
    let tree = KinematicTree::new(vec![
        LinkSpec::new("a", None)
            .with_joint(Joint::new("ja", JointType::Revolute { axis: DVec3::Z })),
        LinkSpec::new("b", Some("a"))
            .with_joint(Joint::new("jb", JointType::Prismatic { axis: DVec3::X })),
    ])
    .unwrap();
    let m = InBetweenMotion::new(&tree, &[0.0, 0.0], &[1.0, 1.0]).unwrap();
    let mut poses = vec![IntervalAffine3::IDENTITY; 2];
    let mut rates = vec![IntervalAffine3::IDENTITY; 2];
    for (t0, t1) in [
        (0.5, 0.4),
        (-0.1, 0.5),
        (0.5, 1.1),
        (f64::NAN, 0.5),
        (0.0, f64::INFINITY),
    ] {
        let e = m
            .enclose_interval_rate_into(t0, t1, &mut poses, &mut rates)
            .unwrap_err();
        assert!(
            matches!(e, KinematicsError::BadTime { t0: a, t1: b }
                if (a == t0 || a.is_nan() && t0.is_nan()) && b == t1),
            "{e:?}"
        );
    }
    assert!(matches!(
        m.enclose_interval_rate_into(0.0, 1.0, &mut poses[..1], &mut rates),
        Err(KinematicsError::BufferLength {
            expected: 2,
            got: 1,
            ..
        })
    ));
    assert!(matches!(
        m.enclose_interval_rate_into(0.0, 1.0, &mut poses, &mut []),
        Err(KinematicsError::BufferLength {
            expected: 2,
            got: 0,
            ..
        })
    ));
    let mut three = vec![IntervalAffine3::IDENTITY; 3];
    assert!(matches!(
        m.enclose_interval_rate_into(0.0, 1.0, &mut poses, &mut three),
        Err(KinematicsError::BufferLength {
            expected: 2,
            got: 3,
            ..
        })
    ));
    let bad = LocalMotion {
        omega: f64::NAN,
        ..LocalMotion::constant(&DAffine3::IDENTITY)
    };
    assert!(matches!(
        bad.interval_rate_enclosure(Interval::ONE),
        Err(KinematicsError::Interval(_))
    ));
    let bad = LocalMotion {
        velocity: DVec3::new(0.0, f64::INFINITY, 0.0),
        ..LocalMotion::constant(&DAffine3::IDENTITY)
    };
    assert!(matches!(
        bad.interval_rate_enclosure(Interval::ONE),
        Err(KinematicsError::Interval(_))
    ));
}
