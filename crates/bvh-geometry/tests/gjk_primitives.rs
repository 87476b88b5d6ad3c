//! GJK on spheres, capsules, boxes and affine images against analytic,
//! independent or sampled distances, at scales from 1e-6 to 1e6.
//!
//! Oracles: sphere–sphere in closed form; capsule–capsule by golden-section
//! search of the segment distance (`gjk_common::segment_segment`, accurate
//! to f64 resolution); boxes and their affine images by Frank–Wolfe on the
//! corners (an affine image of a box is the hull of its corners' images);
//! ellipsoids by dense sampling of their surface. Tolerances: `slack` is
//! GJK's documented `128 ε (R_a + R_b + r_a + r_b)`, `eval` the oracles' own
//! f64 evaluation error (a few ε of the magnitudes).

mod gjk_common;

use armature_bvh_geometry::gjk::{
    Ball, Capsule, Cuboid, GjkOptions, GjkResult, GjkStatus, SupportMap, Transformed, gjk_distance,
    gjk_intersect,
};
use gjk_common::{eval_tol, hull_distance, max_norm, point_segment, segment_segment};
use glam::{DAffine3, DMat3, DQuat, DVec3};
use proptest::prelude::*;

fn slack<A: SupportMap, B: SupportMap>(a: &A, b: &B) -> f64 {
    130.0 * f64::EPSILON * (a.extent() + b.extent() + a.margin() + b.margin())
}

fn unit_pt() -> impl Strategy<Value = DVec3> {
    (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

fn rotation() -> impl Strategy<Value = DQuat> {
    (unit_pt(), -3.2..3.2f64)
        .prop_map(|(a, t)| DQuat::from_axis_angle(a.try_normalize().unwrap_or(DVec3::Z), t))
}

fn scale() -> impl Strategy<Value = f64> {
    prop_oneof![
        1 => Just(1e-6),
        1 => Just(1e-3),
        3 => Just(1.0),
        1 => Just(1e3),
        1 => Just(1e6),
    ]
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 2000,
        ..ProptestConfig::default()
    }
}

/// Common checks of a result against an oracle bracket `[lower, upper]`
/// of the true distance (each valid up to the oracle's evaluation error
/// `eval`; closed forms give `lower = upper`).
fn check(r: &GjkResult, upper: f64, lower: f64, sl: f64, eval: f64) -> Result<(), TestCaseError> {
    prop_assert!(
        r.lower_bound <= upper + eval,
        "lb {} > oracle {}",
        r.lower_bound,
        upper
    );
    prop_assert!(
        lower <= r.distance + eval,
        "oracle lower {} > gjk {}",
        lower,
        r.distance
    );
    prop_assert!(
        r.distance <= upper + 1e-10 * upper + 2.0 * sl + eval,
        "gjk {} vs oracle {} ({:?})",
        r.distance,
        upper,
        r.status
    );
    prop_assert!(r.lower_bound <= r.distance);
    prop_assert!(r.distance - r.lower_bound <= 1e-10 * r.distance + 2.0 * sl);
    prop_assert_eq!(r.status, GjkStatus::Converged);
    if r.distance > 0.0 {
        prop_assert!(((r.point_a - r.point_b).length() - r.distance).abs() <= 2.0 * sl + eval);
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    /// (b) Balls: `max(0, |c₁ − c₂| − r₁ − r₂)`, witnesses on the spheres.
    #[test]
    fn ball_ball(c1 in unit_pt(), c2 in unit_pt(), r1 in 0.0..1.0f64, r2 in 0.0..1.0f64,
                 s in scale(), far in prop::bool::ANY) {
        let c2 = if far { c2 * 5.0 } else { c2 };
        let a = Ball::new(c1 * s, r1 * s).unwrap();
        let b = Ball::new(c2 * s, r2 * s).unwrap();
        let want = ((c1 * s - c2 * s).length() - r1 * s - r2 * s).max(0.0);
        let r = gjk_distance(&a, &b, &GjkOptions::default()).unwrap();
        let sl = slack(&a, &b);
        let eval = 8.0 * f64::EPSILON * 8.0 * s;
        check(&r, want, want, sl, eval)?;
        if r.distance > 0.0 {
            prop_assert!(((r.point_a - c1 * s).length() - r1 * s).abs() <= sl + eval);
            prop_assert!(((r.point_b - c2 * s).length() - r2 * s).abs() <= sl + eval);
        }
        prop_assert_eq!(gjk_intersect(&a, &b), r.distance == 0.0 || r.lower_bound == 0.0);
    }

    /// (b) Capsules, also under a rigid transform: segment distance minus
    /// radii; witnesses within their capsules.
    #[test]
    fn capsule_capsule(a0 in unit_pt(), a1 in unit_pt(), b0 in unit_pt(), b1 in unit_pt(),
                       shift in unit_pt(), r1 in 0.0..0.5f64, r2 in 0.0..0.5f64, s in scale(),
                       rot in rotation(), parallel in prop::bool::ANY) {
        let shift = shift * 2.0;
        // Parallel segments are the classic degenerate case.
        let (b0, b1) = if parallel { (a0 + shift, a1 + shift) } else { (b0 + shift, b1 + shift) };
        let (a0, a1, b0, b1) = (a0 * s, a1 * s, b0 * s, b1 * s);
        let (r1, r2) = (r1 * s, r2 * s);
        let ca = Capsule::new(a0, a1, r1).unwrap();
        let cb = Capsule::new(b0, b1, r2).unwrap();
        let want = (segment_segment(a0, a1, b0, b1) - r1 - r2).max(0.0);
        let eval = 64.0 * f64::EPSILON * 16.0 * s;
        let r = gjk_distance(&ca, &cb, &GjkOptions::default()).unwrap();
        check(&r, want, want, slack(&ca, &cb), eval)?;
        let sl = slack(&ca, &cb);
        prop_assert!(point_segment(r.point_a, a0, a1) <= r1 + sl + eval);
        prop_assert!(point_segment(r.point_b, b0, b1) <= r2 + sl + eval);
        // The same pair moved rigidly: same distance.
        let t = DAffine3::from_rotation_translation(rot, shift * s);
        let (ta, tb) = (Transformed::new(ca, t), Transformed::new(cb, t));
        let rt = gjk_distance(&ta, &tb, &GjkOptions::default()).unwrap();
        check(&rt, want, want, slack(&ta, &tb), eval + 1e-12 * (r1 + r2))?;
    }

    /// (b) Oriented boxes against Frank–Wolfe on their corners; a box
    /// against a ball.
    #[test]
    fn box_box(c1 in unit_pt(), c2 in unit_pt(), q1 in rotation(), q2 in rotation(),
               h1 in unit_pt(), h2 in unit_pt(), s in scale(), ball_r in 0.0..0.5f64) {
        let a = Cuboid::new(c1 * s, DMat3::from_quat(q1), h1.abs() * 0.5 * s).unwrap();
        let b = Cuboid::new(c2 * 2.0 * s, DMat3::from_quat(q2), h2.abs() * 0.5 * s).unwrap();
        let (ka, kb) = (a.corners(), b.corners());
        let h = hull_distance(&ka, &kb, 20_000);
        let eval = eval_tol(&ka, &kb);
        let r = gjk_distance(&a, &b, &GjkOptions::default()).unwrap();
        check(&r, h.upper, h.lower, slack(&a, &b), eval)?;
        // Ball at c2 against box a: distance of the ball's centre to the
        // box, minus the radius.
        let ball = Ball::new(c2 * 2.0 * s, ball_r * s).unwrap();
        let hb = hull_distance(&ka, &[c2 * 2.0 * s], 20_000);
        let rb = gjk_distance(&a, &ball, &GjkOptions::default()).unwrap();
        let (up, lo) = ((hb.upper - ball_r * s).max(0.0), (hb.lower - ball_r * s).max(0.0));
        check(&rb, up, lo, slack(&a, &ball), eval)?;
    }

    /// Affine images (shear, non-uniform scale, even singular) of boxes are
    /// the hulls of the images of their corners.
    #[test]
    fn affine_box(c1 in unit_pt(), c2 in unit_pt(), q1 in rotation(), h1 in unit_pt(),
                  m in (unit_pt(), unit_pt(), unit_pt()), t in unit_pt(), s in scale(),
                  pts in prop::collection::vec(unit_pt(), 1..12)) {
        let a = Cuboid::new(c1 * s, DMat3::from_quat(q1), h1.abs() * 0.5 * s).unwrap();
        let mat = DMat3::IDENTITY + DMat3::from_cols(m.0, m.1, m.2) * 0.8;
        let aff = DAffine3::from_mat3_translation(mat, t * s);
        let ta = Transformed::new(a, aff);
        let ka: Vec<DVec3> = a.corners().iter().map(|&x| aff.transform_point3(x)).collect();
        let q: Vec<DVec3> = pts.iter().map(|&x| x * s + c2 * 2.0 * s).collect();
        let h = hull_distance(&ka, &q, 20_000);
        let eval = eval_tol(&ka, &q) + 16.0 * f64::EPSILON * ta.extent();
        let r = gjk_distance(&ta, &q, &GjkOptions::default()).unwrap();
        prop_assert!(r.lower_bound <= h.upper + eval, "lb {} > {}", r.lower_bound, h.upper);
        prop_assert!(h.lower <= r.distance + eval);
        let scale = max_norm(&ka) + max_norm(&q);
        if h.upper - h.lower <= 1e-9 * scale {
            prop_assert!((r.distance - h.upper).abs() <= 2e-9 * scale);
        }
    }

    /// Ellipsoids (balls under a non-conformal map, margin folded into the
    /// core): no sampled surface point is closer than the lower bound, and
    /// the distance is not above the sampled minimum.
    #[test]
    fn ellipsoid_vs_box(c in unit_pt(), axes in unit_pt(), q in rotation(), b in unit_pt(),
                        s in scale()) {
        let radii = (axes.abs() + DVec3::splat(0.1)) * s;
        let map = DAffine3::from_mat3_translation(DMat3::from_quat(q) * DMat3::from_diagonal(radii), c * 3.0 * s);
        let e = Transformed::new(Ball::new(DVec3::ZERO, 1.0).unwrap(), map);
        prop_assert_eq!(e.margin(), 0.0);
        let bx = Cuboid::new(b * s, DMat3::IDENTITY, DVec3::splat(0.5 * s)).unwrap();
        let r = gjk_distance(&e, &bx, &GjkOptions::default()).unwrap();
        // Smooth cores: the duality gap may stall in f64 just above the
        // 1e-10 tolerance, never far from it.
        prop_assert!(matches!(r.status, GjkStatus::Converged | GjkStatus::Stalled), "{:?}", r.status);
        prop_assert!(r.distance - r.lower_bound <= 1e-8 * r.distance + 2.0 * slack(&e, &bx));
        let (lo, hi) = (b * s - DVec3::splat(0.5 * s), b * s + DVec3::splat(0.5 * s));
        let mut sampled = f64::INFINITY;
        let n = 64u32;
        for i in 0..=n {
            let th = core::f64::consts::PI * f64::from(i) / f64::from(n);
            for j in 0..2 * n {
                let ph = core::f64::consts::PI * f64::from(j) / f64::from(n);
                let u = DVec3::new(th.sin() * ph.cos(), th.sin() * ph.sin(), th.cos());
                let x = map.transform_point3(u);
                let d = (x - x.clamp(lo, hi)).length();
                sampled = sampled.min(d);
                let eval = 64.0 * f64::EPSILON * (x.length() + 2.0 * s);
                prop_assert!(r.lower_bound <= d + eval, "lb {} above sampled {}", r.lower_bound, d);
            }
        }
        // Grid spacing π/64 on an ellipsoid of semi-axes ≤ 1.1 s: the
        // sampled minimum exceeds the truth by less than the spacing.
        prop_assert!(r.distance <= sampled + 1e-9 * s);
        prop_assert!(r.distance >= sampled - 0.06 * s || r.distance == 0.0);
    }
}

#[test]
fn rigid_transform_keeps_margin_exact() {
    let ball = Ball::new(DVec3::new(1.0, 2.0, 3.0), 0.75).unwrap();
    let t = DAffine3::from_rotation_translation(
        DQuat::from_rotation_y(0.7),
        DVec3::new(-4.0, 0.0, 1.0),
    );
    let moved = Transformed::new(ball, t);
    let other = Ball::new(DVec3::new(10.0, 0.0, 0.0), 0.25).unwrap();
    let want = (t.transform_point3(ball.center()) - other.center()).length() - 1.0;
    let r = gjk_distance(&moved, &other, &GjkOptions::default()).unwrap();
    assert!(
        (r.distance - want).abs() < 1e-12,
        "{} vs {want}",
        r.distance
    );
    assert!(r.lower_bound <= want);
    assert_eq!(r.iterations, 1);
}
