//! Taylor-model enclosures of composed local motions (M4 §5.2) against the
//! true motion, plus the known-answer tests of the crate's contract.
//!
//! The truth at a sample time is itself enclosed: the chain's pose at `t` is
//! computed in interval arithmetic from point inputs, a sound box of width
//! ~1e-14. A sound Taylor enclosure must meet that box, so the check fails
//! whenever the Taylor enclosure misses the true pose by more than the
//! truth's own rounding (no tolerance is added).

use armature_interval_taylor::{
    Interval, IntervalAffine3, IntervalMat3, IntervalVec3, TaylorAffine3, TaylorModel, TimeDomain,
};
use glam::{DAffine3, DVec3};
use proptest::prelude::*;

/// One local motion: rotation about `axis` by `omega t + phi`, translation
/// `vel t + start`, behind a fixed `offset`.
#[derive(Clone, Debug)]
struct Local {
    offset: DVec3,
    axis: DVec3,
    omega: f64,
    phi: f64,
    vel: DVec3,
    start: DVec3,
}

fn vec3(r: f64) -> impl Strategy<Value = DVec3> {
    (-r..r, -r..r, -r..r).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

fn axis() -> impl Strategy<Value = DVec3> {
    prop_oneof![
        vec3(1.0).prop_filter("non-zero axis", |v| v.length() > 1e-3),
        Just(DVec3::X),
        Just(DVec3::Y),
        Just(DVec3::Z),
        Just(-DVec3::Z),
    ]
}

fn local(max_omega: f64) -> impl Strategy<Value = Local> {
    (
        vec3(0.5),
        axis(),
        -max_omega..max_omega,
        -4.0..4.0f64,
        prop_oneof![Just(DVec3::ZERO), vec3(0.2)],
        vec3(0.1),
    )
        .prop_map(|(offset, axis, omega, phi, vel, start)| Local {
            offset,
            axis,
            omega,
            phi,
            vel,
            start,
        })
}

/// A domain inside [0, 1], sometimes the whole of it, sometimes a point.
fn domain() -> impl Strategy<Value = TimeDomain> {
    prop_oneof![
        Just(TimeDomain::unit()),
        (0.0..1.0f64, 0.0..1.0f64).prop_map(|(a, b)| TimeDomain::new(a.min(b), a.max(b)).unwrap()),
        (0.0..1.0f64).prop_map(|a| TimeDomain::new(a, a).unwrap()),
    ]
}

fn taylor_chain<const N: usize>(dom: TimeDomain, chain: &[Local]) -> TaylorAffine3<N> {
    let mut w = TaylorAffine3::<N>::identity(dom);
    for l in chain {
        let m =
            TaylorAffine3::<N>::in_between(dom, l.axis, l.omega, l.phi, l.vel, l.start).unwrap();
        w = w
            .compose_const(&DAffine3::from_translation(l.offset))
            .compose(&m);
    }
    w
}

/// Sound enclosure of the true pose at time `t`.
fn truth_at(chain: &[Local], t: f64) -> IntervalAffine3 {
    let mut w = IntervalAffine3::IDENTITY;
    for l in chain {
        let angle = Interval::point(l.omega) * t + l.phi;
        let rot = IntervalMat3::from_axis_angle(l.axis, angle).unwrap();
        let trans = IntervalVec3::from_point(l.vel) * t + IntervalVec3::from_point(l.start);
        let off = IntervalAffine3::from_daffine3(&DAffine3::from_translation(l.offset));
        w = w.compose(&off).compose(&IntervalAffine3::new(rot, trans));
    }
    w
}

fn meets(a: Interval, b: Interval) -> bool {
    a.intersect(b).is_some()
}

fn affine_meets(a: &IntervalAffine3, b: &IntervalAffine3) -> Result<(), String> {
    for j in 0..3 {
        for i in 0..3 {
            let (x, y) = (a.rotation.col(j).get(i), b.rotation.col(j).get(i));
            if !meets(x, y) {
                return Err(format!(
                    "rotation ({i},{j}): enclosure {x:?} misses truth {y:?}"
                ));
            }
        }
        let (x, y) = (a.translation.get(j), b.translation.get(j));
        if !meets(x, y) {
            return Err(format!(
                "translation {j}: enclosure {x:?} misses truth {y:?}"
            ));
        }
    }
    Ok(())
}

fn samples(dom: &TimeDomain) -> Vec<f64> {
    let mut ts: Vec<f64> = (0..=16)
        .map(|i| dom.lo() + (dom.hi() - dom.lo()) * f64::from(i) / 16.0)
        .collect();
    ts.push(dom.lo());
    ts.push(dom.hi());
    ts.retain(|t| dom.contains(*t));
    ts
}

fn check_chain<const N: usize>(dom: TimeDomain, chain: &[Local]) -> Result<(), TestCaseError> {
    let tm = taylor_chain::<N>(dom, chain);
    let whole = tm.bound();
    let tip = DVec3::new(0.1, -0.2, 0.3);
    let tip_box = tm.bound_point(tip);
    for t in samples(&dom) {
        let truth = truth_at(chain, t);
        let at = tm.eval(t).unwrap();
        affine_meets(&at, &truth)
            .map_err(|e| TestCaseError::fail(format!("eval at t = {t}: {e}")))?;
        affine_meets(&whole, &truth)
            .map_err(|e| TestCaseError::fail(format!("bound() at t = {t}: {e}")))?;
        let p = truth.transform_point(tip);
        for i in 0..3 {
            prop_assert!(
                meets(tip_box.get(i), p.get(i)),
                "tip component {i} at t = {t}"
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1_000, ..ProptestConfig::default() })]

    /// Chains of 1 to 20 local motions, order 3, swings up to 60° per link.
    #[test]
    fn chain_order3_contains_true_motion(dom in domain(), chain in prop::collection::vec(local(1.05), 1..=20)) {
        check_chain::<3>(dom, &chain)?;
    }

    /// Large swings (beyond π per link) stay sound.
    #[test]
    fn chain_large_swings(dom in domain(), chain in prop::collection::vec(local(7.0), 1..=6)) {
        check_chain::<3>(dom, &chain)?;
    }

    /// Other orders, including the subdivision range of orders above 3.
    #[test]
    fn chain_other_orders(dom in domain(), chain in prop::collection::vec(local(1.05), 1..=8)) {
        check_chain::<1>(dom, &chain)?;
        check_chain::<2>(dom, &chain)?;
        check_chain::<4>(dom, &chain)?;
        check_chain::<5>(dom, &chain)?;
    }

    /// Restricting a chain's model to a sub-domain keeps it sound.
    #[test]
    fn chain_restrict(chain in prop::collection::vec(local(1.05), 1..=10), a in 0.0..1.0f64, b in 0.0..1.0f64) {
        let tm = taylor_chain::<3>(TimeDomain::unit(), &chain);
        let sub = TimeDomain::new(a.min(b), a.max(b)).unwrap();
        let r = tm.restrict(sub).unwrap();
        for t in samples(&sub) {
            let truth = truth_at(&chain, t);
            affine_meets(&r.eval(t).unwrap(), &truth).map_err(TestCaseError::fail)?;
        }
    }
}

/// M4's argument in one line: f(t) = cos t + √3 sin t on [0, π/2] has range
/// [1, 2]; interval arithmetic gives [0, 1 + √3].
#[test]
fn known_answer_cos_plus_sqrt3_sin() {
    let half_pi = std::f64::consts::FRAC_PI_2;
    let x = Interval::new(0.0, half_pi).unwrap();
    let sqrt3 = Interval::point(3.0).sqrt().unwrap();
    let by_intervals = x.cos() + sqrt3 * x.sin();
    let dom = TimeDomain::new(0.0, half_pi).unwrap();
    let (s, c) = TaylorModel::<3>::sin_cos_affine(dom, 1.0, 0.0).unwrap();
    let by_taylor = (c + s.scale_interval(sqrt3)).bound();
    let truth = Interval::new(1.0, 2.0).unwrap();
    assert!(truth.subset(by_intervals), "{by_intervals:?}");
    assert!(truth.subset(by_taylor), "{by_taylor:?}");
    assert!(by_intervals.lo() <= 1e-15 && by_intervals.hi() >= 1.0 + 3f64.sqrt() - 1e-15);
    assert!(
        by_taylor.width() < 0.5 * by_intervals.width(),
        "Taylor {by_taylor:?} vs intervals {by_intervals:?}"
    );
}

/// The stated figure, as a regression guard: for a 10-link chain with
/// random 3-D axes at 15° per link the Taylor enclosure of the end-link
/// origin is at least 10× narrower than the interval one.
#[test]
fn taylor_beats_intervals_on_deep_chains() {
    let dom = TimeDomain::unit();
    let omega = 15f64.to_radians();
    let axes = [
        DVec3::new(0.3, -0.8, 0.5),
        DVec3::new(-0.9, 0.1, 0.4),
        DVec3::new(0.2, 0.7, -0.6),
        DVec3::new(0.6, 0.6, 0.5),
        DVec3::new(-0.1, -0.3, 0.95),
        DVec3::new(0.8, -0.5, -0.3),
        DVec3::new(-0.4, 0.9, 0.2),
        DVec3::new(0.5, 0.1, -0.85),
        DVec3::new(-0.7, -0.6, 0.4),
        DVec3::new(0.1, 0.95, 0.3),
    ];
    let mut iv = IntervalAffine3::IDENTITY;
    let mut tm = TaylorAffine3::<3>::identity(dom);
    for (i, a) in axes.iter().enumerate() {
        let phi = 0.3 * i as f64 - 1.0;
        let off = DAffine3::from_translation(axes[(i + 3) % axes.len()].normalize() * 0.3);
        let rot =
            IntervalMat3::from_axis_angle(*a, Interval::new(phi, phi + omega).unwrap()).unwrap();
        iv = iv
            .compose(&IntervalAffine3::from_daffine3(&off))
            .compose(&IntervalAffine3::new(rot, IntervalVec3::ZERO));
        let m = TaylorAffine3::in_between(dom, *a, omega, phi, DVec3::ZERO, DVec3::ZERO).unwrap();
        tm = tm.compose_const(&off).compose(&m);
    }
    let wi = iv.translation.width().max_element();
    let wt = tm.translation.bound().width().max_element();
    assert!(wi >= 10.0 * wt, "interval {wi} vs Taylor {wt}");
}
