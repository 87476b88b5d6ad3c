//! OBB–OBB separating-axis test against a sound, independent oracle.
//!
//! The oracle computes the exact box–box distance without any separating
//! axis: for two convex polytopes, `dist(A, B) = min` over the edges `e` of
//! `A` of `dist(e, B)` and over the edges of `B` of `dist(e, A)` (a closest
//! pair, or a common point when they overlap, can always be taken on an edge
//! of one of them). `s ↦ dist(e(s), box)` is convex and the point–box
//! distance is a clamp in the box frame, so each of the 24 terms is a
//! ternary search, exact up to rounding.
//!
//! The SAT must say "overlap" whenever that distance is within rounding of
//! 0 (pairs built to touch included: conservative), and "separated"
//! whenever the distance exceeds its documented band: `1e-12` of the
//! coordinate scale per unit axis, divided by the length of the shortest
//! non-degenerate cross-product axis (nearly parallel edges widen the band,
//! see the SAT's module docs).

mod query_support;

use armature_bvh_geometry::bv::Obb;
use armature_bvh_geometry::query::{
    OBB_SAT_MARGIN, overlap_obb_obb, overlap_obb_obb_pair, within_obb_obb, within_obb_obb_pair,
};
use glam::{DMat3, DQuat, DVec3};
use proptest::prelude::*;
use query_support::{CASES, config, placement, rotation, ternary, unit_vec3, vec3};

fn point(b: &Obb, u: [f64; 3]) -> DVec3 {
    b.center
        + b.axes.x_axis * (b.half_extents.x * u[0])
        + b.axes.y_axis * (b.half_extents.y * u[1])
        + b.axes.z_axis * (b.half_extents.z * u[2])
}

fn axes(b: &Obb) -> [DVec3; 3] {
    [b.axes.x_axis, b.axes.y_axis, b.axes.z_axis]
}

/// Distance from `p` to the box: clamp the local coordinates.
fn point_box(p: DVec3, b: &Obb) -> f64 {
    let d = p - b.center;
    let e = b.half_extents.to_array();
    axes(b)
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let u = d.dot(*a);
            let out = (u.abs() - e[i]).max(0.0);
            out * out
        })
        .sum::<f64>()
        .sqrt()
}

fn edges(b: &Obb) -> Vec<(DVec3, DVec3)> {
    let mut v = Vec::with_capacity(12);
    for k in 0..3 {
        for s1 in [-1.0, 1.0] {
            for s2 in [-1.0, 1.0] {
                let mut u0 = [0.0; 3];
                u0[k] = -1.0;
                u0[(k + 1) % 3] = s1;
                u0[(k + 2) % 3] = s2;
                let mut u1 = u0;
                u1[k] = 1.0;
                v.push((point(b, u0), point(b, u1)));
            }
        }
    }
    v
}

/// Exact box–box distance (see the module docs).
fn box_distance(a: &Obb, b: &Obb) -> f64 {
    let mut m = f64::INFINITY;
    for (x, y) in [(a, b), (b, a)] {
        for (p, q) in edges(x) {
            m = m.min(ternary(|s| point_box(p + (q - p) * s, y)));
        }
    }
    m
}

/// Length of the shortest cross-product axis that is not exactly zero.
fn shortest_cross_axis(a: &Obb, b: &Obb) -> f64 {
    let mut m = 1.0_f64;
    for x in axes(a) {
        for y in axes(b) {
            let l = x.cross(y).length();
            if l > 0.0 {
                m = m.min(l);
            }
        }
    }
    m
}

fn obb(c: DVec3, r: DMat3, e: DVec3) -> Obb {
    Obb::new(c, r, e)
}

/// Box pairs: random, nearly parallel (rotated by 1e-14 .. 1e-2 rad),
/// axis-aligned with shared face planes, and pairs built to touch at a
/// vertex of one box placed on a vertex or face point of the other.
fn box_pair() -> impl Strategy<Value = (Obb, Obb, bool)> {
    let ext =
        || (0.0..1.0_f64, 0.0..1.0_f64, 0.0..1.0_f64).prop_map(|(x, y, z)| DVec3::new(x, y, z));
    let random = (vec3(), rotation(), ext(), vec3(), rotation(), ext())
        .prop_map(|(ca, ra, ea, cb, rb, eb)| (obb(ca * 2.0, ra, ea), obb(cb * 2.0, rb, eb), false));
    let near_parallel = (
        vec3(),
        rotation(),
        ext(),
        vec3(),
        ext(),
        unit_vec3(),
        -14.0..-2.0_f64,
    )
        .prop_map(|(ca, ra, ea, cb, eb, ax, e)| {
            let rb = DMat3::from_quat(DQuat::from_axis_angle(ax, 10f64.powf(e))) * ra;
            (obb(ca, ra, ea), obb(cb * 2.0, rb, eb), false)
        });
    let touching = (
        vec3(),
        rotation(),
        ext(),
        rotation(),
        ext(),
        unit_vec3(),
        any::<bool>(),
        0_usize..3,
        vec3(),
    )
        .prop_map(|(ca, ra, ea, rb, eb, n, on_face, k, f)| {
            let a = obb(ca, ra, ea);
            let ua = axes(&a);
            // a point P of a's boundary with outward direction n
            let (p, n) = if on_face {
                let n = ua[k];
                let mut u = [f[0], f[1], f[2]];
                u[k] = 1.0;
                (point(&a, u), n)
            } else {
                let u = [0, 1, 2].map(|i| if n.dot(ua[i]) >= 0.0 { 1.0 } else { -1.0 });
                (point(&a, u), n)
            };
            // b's support vertex in direction −n moved onto P
            let b0 = obb(DVec3::ZERO, rb, eb);
            let ub = axes(&b0);
            let q = point(
                &b0,
                [0, 1, 2].map(|j| if n.dot(ub[j]) <= 0.0 { 1.0 } else { -1.0 }),
            );
            (a, obb(p - q, rb, eb), true)
        });
    let face_aligned = (
        rotation(),
        ext(),
        ext(),
        0_usize..3,
        vec3(),
        -16.0..-8.0_f64,
        any::<bool>(),
    )
        .prop_map(|(r, ea, eb, k, s, e, gap)| {
            let a = obb(DVec3::ZERO, r, ea);
            let ua = axes(&a);
            // b's face on a's face plane k (or a hair beyond), shifted sideways
            // while the faces still overlap
            let g = if gap { 10f64.powf(e) } else { 0.0 };
            let (k1, k2) = ((k + 1) % 3, (k + 2) % 3);
            let c = ua[k] * (ea[k] + eb[k] + g)
                + ua[k1] * (s.x * (ea[k1] + eb[k1]))
                + ua[k2] * (s.y * (ea[k2] + eb[k2]));
            (a, obb(c, r, eb), !gap)
        });
    (
        prop_oneof![3 => random, 1 => near_parallel, 2 => touching, 1 => face_aligned],
        placement(),
    )
        .prop_map(|((a, b, touch), (s, o))| {
            let place = |x: Obb| obb(x.center * s + o, x.axes, x.half_extents * s);
            (place(a), place(b), touch)
        })
}

proptest! {
    #![proptest_config(config(3 * CASES))]

    #[test]
    fn obb_sat_agrees_with_the_exact_distance((a, b, touch) in box_pair()) {
        let sat = overlap_obb_obb(&a, &b);
        prop_assert_eq!(sat, overlap_obb_obb(&b, &a), "not symmetric");
        let scale = a.center.abs().max_element()
            + b.center.abs().max_element()
            + a.half_extents.element_sum()
            + b.half_extents.element_sum();
        let d = box_distance(&a, &b);
        if touch || d <= 1e-13 * scale {
            prop_assert!(sat, "missed an overlap: distance {d:e}, scale {scale:e}");
        }
        let band = 1e3 * OBB_SAT_MARGIN * scale / shortest_cross_axis(&a, &b);
        if d > band {
            prop_assert!(!sat, "reported overlap at distance {d:e} > band {band:e}");
        }
    }
}

/// Boxes that each of the 15 axes alone separates, slightly: every exit of
/// the two-lane test is reached in each lane, at gaps around the margin.
fn separated_by_one_axis() -> impl Strategy<Value = (Obb, Obb)> {
    (
        rotation(),
        rotation(),
        vec3(),
        vec3(),
        0usize..15,
        -3.0..3.0f64,
        vec3(),
    )
        .prop_map(|(ra, rb, ea, eb, axis, log_gap, o)| {
            let (ea, eb, o) = (ea.abs() * 2.0 + 0.01, eb.abs() * 2.0 + 0.01, o * 50.0);
            let a = obb(o, ra, ea);
            let b0 = obb(o, rb, eb);
            let (ua, ub) = (axes(&a), axes(&b0));
            let n = match axis {
                0..=2 => ua[axis],
                3..=5 => ub[axis - 3],
                k => ua[(k - 6) / 3].cross(ub[(k - 6) % 3]),
            };
            let n = n.try_normalize().unwrap_or(DVec3::X);
            let reach = |b: &Obb| {
                let e = b.half_extents.to_array();
                axes(b)
                    .iter()
                    .zip(e)
                    .map(|(u, e)| e * u.dot(n).abs())
                    .sum::<f64>()
            };
            let gap = 1e-12 * 10f64.powf(log_gap) * (1.0 + o.abs().max_element());
            let b = obb(o + n * (reach(&a) + reach(&b0) + gap), rb, eb);
            (a, b)
        })
}

proptest! {
    #![proptest_config(config(3 * CASES))]

    /// The two-lane test answers each lane as the one-pair test, whatever
    /// the other lane holds (lanes separated at different axes, or one
    /// overlapping while the other is apart).
    #[test]
    fn pair_test_answers_lane_by_lane(
        (a0, b0) in separated_by_one_axis(),
        (a1, b1, _) in box_pair(),
        swap in any::<bool>(),
    ) {
        let (x, y) = if swap { ((a1, b1), (a0, b0)) } else { ((a0, b0), (a1, b1)) };
        let want = [overlap_obb_obb(&x.0, &x.1), overlap_obb_obb(&y.0, &y.1)];
        prop_assert_eq!(overlap_obb_obb_pair([&x.0, &y.0], [&x.1, &y.1]), want);
        prop_assert_eq!(
            overlap_obb_obb_pair([&x.1, &y.1], [&x.0, &y.0]),
            [overlap_obb_obb(&x.1, &x.0), overlap_obb_obb(&y.1, &y.0)]
        );
    }

    #[test]
    fn pair_test_answers_lane_by_lane_on_one_axis_gaps(
        (a0, b0) in separated_by_one_axis(),
        (a1, b1) in separated_by_one_axis(),
    ) {
        prop_assert_eq!(
            overlap_obb_obb_pair([&a0, &a1], [&b0, &b1]),
            [overlap_obb_obb(&a0, &b0), overlap_obb_obb(&a1, &b1)]
        );
    }
}

/// A distance to ask about: 0, or around the scale of the pairs' gaps
/// (`1e-14 .. 10`).
fn asked_distance() -> impl Strategy<Value = f64> {
    prop_oneof![1 => Just(0.0), 6 => (-14.0..1.0_f64).prop_map(|e| 10f64.powf(e))]
}

proptest! {
    #![proptest_config(config(3 * CASES))]

    /// `within_obb_obb(a, b, m)` is `false` only when the exact distance
    /// exceeds `m`, is `overlap_obb_obb` at 0, and grows with `m`.
    #[test]
    fn within_test_agrees_with_the_exact_distance(
        (a, b, _) in box_pair(),
        m in asked_distance(),
        more in 1.0..4.0_f64,
    ) {
        let within = within_obb_obb(&a, &b, m);
        prop_assert_eq!(within, within_obb_obb(&b, &a, m), "not symmetric");
        let scale = a.center.abs().max_element()
            + b.center.abs().max_element()
            + a.half_extents.element_sum()
            + b.half_extents.element_sum();
        let d = box_distance(&a, &b);
        if d <= m + 1e-13 * scale {
            prop_assert!(within, "distance {d:e} within {m:e} reported apart (scale {scale:e})");
        }
        prop_assert_eq!(within_obb_obb(&a, &b, 0.0), overlap_obb_obb(&a, &b));
        if within {
            prop_assert!(within_obb_obb(&a, &b, m * more), "not monotone in the distance");
        }
    }

    /// The two-lane test answers each lane as the one-pair test.
    #[test]
    fn within_pair_test_answers_lane_by_lane(
        (a0, b0) in separated_by_one_axis(),
        (a1, b1, _) in box_pair(),
        m in asked_distance(),
        swap in any::<bool>(),
    ) {
        let (x, y) = if swap { ((a1, b1), (a0, b0)) } else { ((a0, b0), (a1, b1)) };
        prop_assert_eq!(
            within_obb_obb_pair([&x.0, &y.0], [&x.1, &y.1], m),
            [within_obb_obb(&x.0, &x.1, m), within_obb_obb(&y.0, &y.1, m)]
        );
    }
}

proptest! {
    #![proptest_config(config(CASES))]

    /// Tight on a face axis: boxes a known gap apart along a face normal
    /// of one are reported apart at any distance below that gap (less
    /// the test's margins). They may be farther apart than the gap, so
    /// nothing is asked above it.
    #[test]
    fn within_test_is_tight_on_a_face_axis(
        (ra, rb) in (rotation(), rotation()),
        (ea, eb) in (vec3(), vec3()),
        k in 0usize..3,
        log_gap in -6.0..0.0_f64,
        share in 0.0..1.0_f64,
    ) {
        let (ea, eb) = (ea.abs() + DVec3::splat(0.01), eb.abs() + DVec3::splat(0.01));
        let a = obb(DVec3::ZERO, ra, ea);
        let n = axes(&a)[k];
        let b0 = obb(DVec3::ZERO, rb, eb);
        let reach_b: f64 = axes(&b0)
            .iter()
            .zip(eb.to_array())
            .map(|(u, e)| e * u.dot(n).abs())
            .sum();
        let gap = 10f64.powf(log_gap);
        let b = obb(n * (ea.to_array()[k] + reach_b + gap), rb, eb);
        // The margins of the test: a relative 1e-12 of the coordinate scale
        // (about 10 here), and the epsilon added to the rotation entries.
        let slack = 1e-9;
        let m = (gap - slack) * share;
        prop_assert!(!within_obb_obb(&a, &b, m), "gap {gap:e} reported within {m:e}");
    }
}

/// Boxes a known gap apart on a face axis, and corner to corner: the test
/// is tight on a face axis and sound on the diagonal.
#[test]
fn within_by_hand() {
    let a = Obb::new(DVec3::ZERO, DMat3::IDENTITY, DVec3::ONE);
    let b = Obb::new(DVec3::new(2.5, 0.3, 0.0), DMat3::IDENTITY, DVec3::ONE);
    assert!(!within_obb_obb(&a, &b, 0.499));
    assert!(within_obb_obb(&a, &b, 0.501));
    // Corner to corner, 0.1 √3 ≈ 0.173 apart.
    let c = Obb::new(DVec3::splat(2.1), DMat3::IDENTITY, DVec3::ONE);
    assert!(!within_obb_obb(&a, &c, 0.099));
    assert!(within_obb_obb(&a, &c, 0.101));
    assert!(within_obb_obb(&a, &c, 0.18));
    // A negative or NaN distance counts as 0.
    for m in [-1.0, f64::NAN] {
        assert_eq!(within_obb_obb(&a, &b, m), overlap_obb_obb(&a, &b));
        assert_eq!(within_obb_obb_pair([&a, &a], [&b, &c], m), [false, false]);
    }
}

#[test]
fn pair_test_answers_lane_by_lane_on_special_values() {
    let specials = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        1e-300,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    let mut k: u64 = 0;
    let mut pick = || {
        k = k
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        specials[(k >> 33) as usize % specials.len()]
    };
    for _ in 0..2000 {
        let mut v = || DVec3::new(pick(), pick(), pick());
        let a = Obb::new(v(), DMat3::from_cols(v(), v(), v()), v());
        let b = Obb::new(v(), DMat3::IDENTITY, v());
        let c = Obb::new(v(), DMat3::from_cols(v(), v(), v()), v());
        assert_eq!(
            overlap_obb_obb_pair([&a, &c], [&b, &a]),
            [overlap_obb_obb(&a, &b), overlap_obb_obb(&c, &a)]
        );
        let m = pick();
        assert_eq!(
            within_obb_obb_pair([&a, &c], [&b, &a], m),
            [within_obb_obb(&a, &b, m), within_obb_obb(&c, &a, m)]
        );
    }
}

#[test]
fn sat_by_hand() {
    let a = Obb::new(DVec3::ZERO, DMat3::IDENTITY, DVec3::ONE);
    // touching face to face, edge to edge, corner to corner
    for c in [
        DVec3::new(2.0, 0.3, -0.2),
        DVec3::new(2.0, 2.0, 0.0),
        DVec3::new(2.0, 2.0, 2.0),
    ] {
        assert!(overlap_obb_obb(
            &a,
            &Obb::new(c, DMat3::IDENTITY, DVec3::ONE)
        ));
        assert!(!overlap_obb_obb(
            &a,
            &Obb::new(c * 1.001, DMat3::IDENTITY, DVec3::ONE)
        ));
    }
    // separated only along a cross-product axis: two rotated slabs
    let r = DMat3::from_rotation_z(core::f64::consts::FRAC_PI_4)
        * DMat3::from_rotation_x(core::f64::consts::FRAC_PI_4);
    let b = Obb::new(DVec3::new(1.9, 1.9, 0.0), r, DVec3::new(1.0, 0.1, 0.1));
    let d = box_distance(&a, &b);
    assert!(d > 1e-3, "{d}");
    assert!(!overlap_obb_obb(&a, &b));
    // NaN never separates
    let n = Obb::new(DVec3::NAN, DMat3::IDENTITY, DVec3::ONE);
    assert!(overlap_obb_obb(&a, &n));
}
