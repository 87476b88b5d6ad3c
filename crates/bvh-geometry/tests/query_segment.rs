//! Segment–segment closest points against brute force: a ternary-search
//! oracle and dense sampling, on random, parallel, collinear, overlapping,
//! nearly parallel, crossing and zero-length segments; capsule–capsule and
//! point–segment through the same oracle.

mod query_support;

use armature_bvh_geometry::bv::Lss;
use armature_bvh_geometry::query::{
    closest_point_segment, closest_points_segment_segment, distance_capsule_capsule,
    distance_point_segment,
};
use glam::DVec3;
use proptest::prelude::*;
use query_support::{
    CASES, EPS, config, max_abs, placement, point_segment, segment_segment, unit_vec3, vec3,
};

type Seg4 = (DVec3, DVec3, DVec3, DVec3);

fn segment_pair() -> impl Strategy<Value = Seg4> {
    prop_oneof![
        // random
        3 => (vec3(), vec3(), vec3(), vec3()),
        // parallel, with any length ratio (also opposite directions)
        1 => (vec3(), vec3(), vec3(), -2.0..2.0_f64).prop_map(|(p0, d, q0, k)| (p0, p0 + d, q0, q0 + d * k)),
        // collinear (overlapping or not)
        1 => (vec3(), vec3(), -2.0..3.0_f64, -2.0..3.0_f64)
            .prop_map(|(p0, d, s0, s1)| (p0, p0 + d, p0 + d * s0, p0 + d * s1)),
        // nearly parallel, by 1e-14 .. 1e-2 radians
        1 => (vec3(), vec3(), vec3(), -2.0..2.0_f64, unit_vec3(), -14.0..-2.0_f64)
            .prop_map(|(p0, d, q0, k, n, e)| (p0, p0 + d, q0, q0 + (d + n * d.length() * 10f64.powf(e)) * k)),
        // crossing at a common point (up to rounding)
        1 => (vec3(), vec3(), vec3(), 0.0..1.0_f64, 0.0..1.0_f64)
            .prop_map(|(x, d1, d2, s, t)| (x - d1 * s, x + d1 * (1.0 - s), x - d2 * t, x + d2 * (1.0 - t))),
        // zero-length: one or both
        1 => (vec3(), vec3(), vec3(), 0_u8..3).prop_map(|(a, b, c, k)| match k {
            0 => (a, a, b, c),
            1 => (a, b, c, c),
            _ => (a, a, c, c),
        }),
    ]
}

fn placed() -> impl Strategy<Value = (Seg4, f64)> {
    (segment_pair(), placement()).prop_map(|((a, b, c, d), (s, o))| {
        let seg = (a * s + o, b * s + o, c * s + o, d * s + o);
        let scale = max_abs(&[seg.0, seg.1, seg.2, seg.3]);
        (seg, scale)
    })
}

proptest! {
    #![proptest_config(config(CASES))]

    /// The distance matches the oracle, the parameters are in [0, 1], the
    /// points are the segments' points at those parameters and realise the
    /// distance, and no pair of sampled points is closer.
    #[test]
    fn segment_segment_matches_brute_force(((p0, p1, q0, q1), scale) in placed()) {
        let c = closest_points_segment_segment(p0, p1, q0, q1);
        let tol = 1e-12 * scale;
        prop_assert!((0.0..=1.0).contains(&c.s) && (0.0..=1.0).contains(&c.t), "{c:?}");
        prop_assert!((c.point_a - (p0 + (p1 - p0) * c.s)).length() <= 8.0 * EPS * scale);
        prop_assert!((c.point_b - (q0 + (q1 - q0) * c.t)).length() <= 8.0 * EPS * scale);
        prop_assert!((c.distance - (c.point_a - c.point_b).length()).abs() <= 4.0 * EPS * scale);
        let oracle = segment_segment(p0, p1, q0, q1);
        prop_assert!((c.distance - oracle).abs() <= tol, "ours {} oracle {} (Δ {:e})", c.distance, oracle, c.distance - oracle);
        // Sampling: 64 steps per segment; a segment point is within half a
        // step of a sample.
        let k = 64;
        let mut sampled = f64::INFINITY;
        for i in 0..=k {
            let x = p0 + (p1 - p0) * (f64::from(i) / f64::from(k));
            for j in 0..=k {
                let y = q0 + (q1 - q0) * (f64::from(j) / f64::from(k));
                sampled = sampled.min((x - y).length());
            }
        }
        let err = ((p1 - p0).length() + (q1 - q0).length()) / (2.0 * f64::from(k));
        prop_assert!(c.distance <= sampled + tol, "ours {} > sampled {}", c.distance, sampled);
        prop_assert!(c.distance >= sampled - err - tol, "ours {} < sampled {} − {}", c.distance, sampled, err);
        // Symmetry: swapping the segments swaps the points, same distance.
        let d = closest_points_segment_segment(q0, q1, p0, p1);
        prop_assert!((d.distance - c.distance).abs() <= tol);
    }

    /// Point–segment closest point against the clamped-projection oracle
    /// and sampling.
    #[test]
    fn point_segment_matches_brute_force(p in vec3(), ((a, b, _, _), _) in placed()) {
        let scale = max_abs(&[p, a, b]);
        let q = closest_point_segment(p, a, b);
        let d = distance_point_segment(p, a, b);
        prop_assert!((d - point_segment(p, a, b)).abs() <= 1e-13 * scale.max(1e-300));
        prop_assert!(((q - a).cross(b - a)).length() <= 1e-12 * scale * scale);
        let k = 256;
        let sampled = (0..=k).map(|i| (p - (a + (b - a) * (f64::from(i) / f64::from(k)))).length()).fold(f64::INFINITY, f64::min);
        prop_assert!(d <= sampled + 1e-13 * scale);
    }

    /// Capsule–capsule distance = segment oracle − radii, clamped.
    #[test]
    fn capsule_capsule_matches_brute_force(((p0, p1, q0, q1), scale) in placed(), ra in 0.0..0.5_f64, rb in 0.0..0.5_f64) {
        let (ra, rb) = (ra * scale, rb * scale);
        let d = distance_capsule_capsule(&Lss::new(p0, p1, ra), &Lss::new(q0, q1, rb));
        let oracle = (segment_segment(p0, p1, q0, q1) - ra - rb).max(0.0);
        prop_assert!((d - oracle).abs() <= 1e-12 * scale, "{d} vs {oracle}");
        prop_assert!(d >= 0.0);
    }
}

#[test]
fn parallel_and_degenerate_cases_by_hand() {
    let c = closest_points_segment_segment(
        DVec3::ZERO,
        DVec3::X,
        DVec3::new(0.5, 1.0, 0.0),
        DVec3::new(1.5, 1.0, 0.0),
    );
    assert_eq!(c.distance, 1.0);
    let c = closest_points_segment_segment(
        DVec3::ZERO,
        DVec3::X,
        DVec3::new(2.0, 0.0, 0.0),
        DVec3::new(3.0, 0.0, 0.0),
    );
    assert_eq!((c.distance, c.s, c.t), (1.0, 1.0, 0.0));
    let c = closest_points_segment_segment(DVec3::ONE, DVec3::ONE, DVec3::ONE, DVec3::ONE);
    assert_eq!(c.distance, 0.0);
    let c = closest_points_segment_segment(
        DVec3::ZERO,
        DVec3::ZERO,
        DVec3::new(-1.0, 1.0, 0.0),
        DVec3::new(1.0, 1.0, 0.0),
    );
    assert_eq!((c.distance, c.t), (1.0, 0.5));
}
