//! SSCH–SSCH distances (M3) against sampling and the Frank–Wolfe oracle.
//!
//! (f) Every pair of sampled points of the two SSCHs — convex combinations
//! of the generating points plus offsets in the radius balls, the balls'
//! surface points facing the other set, and the support points in many
//! directions — is at least the reported lower bound apart, up to the f64
//! evaluation error of the samples themselves (`sample_tol`: a weighted sum
//! of `n` points and an offset, a few ε of the magnitudes per point).
//! Witness points are certified by the simplex: convex weights over
//! generating points, plus at most the radius.

mod gjk_common;

use armature_bvh_geometry::gjk::{
    GjkCache, GjkOptions, GjkStatus, SupportMap, gjk_distance, ssch_distance,
};
use armature_kinematics::Ssch;
use gjk_common::{hull_distance, max_norm};
use glam::DVec3;
use proptest::prelude::*;

fn unit_pt() -> impl Strategy<Value = DVec3> {
    (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64).prop_map(|(x, y, z)| DVec3::new(x, y, z))
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

/// An SSCH of 1–16 points in a unit box about `center`, radius up to 0.6
/// (zero a fifth of the time), all times `s`.
fn ssch() -> impl Strategy<Value = (Vec<DVec3>, f64)> {
    (
        prop::collection::vec(unit_pt(), 1..=16),
        prop_oneof![1 => Just(0.0), 4 => 0.0..0.6f64],
    )
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 2000,
        ..ProptestConfig::default()
    }
}

/// Evaluation error of a sampled point of an SSCH with `n` points and
/// extent `e`, radius `r`.
fn sample_tol(n: usize, e: f64, r: f64) -> f64 {
    4.0 * (n + 8) as f64 * f64::EPSILON * (e + r)
}

/// Deterministic sample of an SSCH: `k` convex combinations (weights
/// skewed towards single points by cubing) with offsets in the ball, from
/// a small xorshift stream seeded by `seed`.
fn samples(s: &Ssch, k: usize, seed: u64) -> Vec<DVec3> {
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as f64 / (1u64 << 53) as f64
    };
    let p = s.points();
    (0..k)
        .map(|_| {
            let w: Vec<f64> = p.iter().map(|_| next().powi(3)).collect();
            let sum: f64 = w.iter().sum::<f64>().max(1e-300);
            let c: DVec3 = p.iter().zip(&w).map(|(&pi, &wi)| pi * (wi / sum)).sum();
            let u = DVec3::new(next() - 0.5, next() - 0.5, next() - 0.5);
            let u = u.try_normalize().unwrap_or(DVec3::X);
            c + u * (s.radius() * next().cbrt())
        })
        .collect()
}

/// The SSCH's support point (surface point) in direction `d`.
fn surface(s: &Ssch, d: DVec3) -> DVec3 {
    let p = *s
        .points()
        .iter()
        .max_by(|a, b| a.dot(d).total_cmp(&b.dot(d)))
        .unwrap();
    p + d.normalize() * s.radius()
}

proptest! {
    #![proptest_config(config())]

    /// (f) Sampled pairs never come closer than the lower bound; the
    /// distance matches the Frank–Wolfe core distance minus the radii; the
    /// witnesses lie in their SSCHs.
    #[test]
    fn ssch_lower_bound_holds_for_samples(
        (pa, ra) in ssch(), (pb, rb) in ssch(), offset in unit_pt(), s in scale(), seed in any::<u64>(),
        dirs in prop::collection::vec(unit_pt(), 16),
    ) {
        let offset = offset * 3.0;
        let a = Ssch::new(pa.iter().map(|&p| p * s).collect(), ra * s).unwrap();
        let b = Ssch::new(pb.iter().map(|&p| (p + offset) * s).collect(), rb * s).unwrap();
        let d = ssch_distance(&a, &b, None).unwrap();
        prop_assert!(d.lower_bound >= 0.0 && d.lower_bound <= d.distance);
        prop_assert_eq!(d.status, GjkStatus::Converged);
        let (ea, eb) = (a.extent(), b.extent());
        let tol = sample_tol(a.point_count(), ea, a.radius()) + sample_tol(b.point_count(), eb, b.radius());
        let mut sa = samples(&a, 48, seed);
        let mut sb = samples(&b, 48, seed.rotate_left(17));
        // Adversarial samples: surface points in many directions, facing
        // the other set, and vertex pairs offset towards each other.
        let ca = a.points().iter().copied().sum::<DVec3>() / a.point_count() as f64;
        let cb = b.points().iter().copied().sum::<DVec3>() / b.point_count() as f64;
        for dir in dirs.iter().copied().chain([cb - ca, -d.point_a + d.point_b]) {
            if let Some(u) = dir.try_normalize() {
                sa.push(surface(&a, u));
                sb.push(surface(&b, -u));
            }
        }
        for &p in a.points() {
            for &q in b.points() {
                if let Some(u) = (q - p).try_normalize() {
                    sa.push(p + u * a.radius());
                    sb.push(q - u * b.radius());
                }
            }
        }
        let mut closest = f64::INFINITY;
        for &x in &sa {
            for &y in &sb {
                let dist = x.distance(y);
                closest = closest.min(dist);
                prop_assert!(d.lower_bound <= dist + tol, "lb {} > sampled {}", d.lower_bound, dist);
            }
        }
        prop_assert!(d.distance <= closest + tol);
        // Core distance by Frank–Wolfe, minus the radii.
        let h = hull_distance(a.points(), b.points(), 20_000);
        let scale = max_norm(a.points()) + max_norm(b.points()) + a.radius() + b.radius();
        let want = (h.upper - a.radius() - b.radius()).max(0.0);
        prop_assert!(d.lower_bound <= want + tol);
        if h.upper - h.lower <= 1e-9 * scale {
            prop_assert!((d.distance - want).abs() <= 2e-9 * scale, "{} vs {}", d.distance, want);
        }
        // Witnesses: within the radius of a convex combination of the
        // generating points, certified by the simplex of the same query.
        let g = gjk_distance(&a, &b, &GjkOptions::default()).unwrap();
        prop_assert_eq!((g.point_a, g.point_b, g.distance, g.lower_bound),
            (d.point_a, d.point_b, d.distance, d.lower_bound));
        let lam = g.simplex.weights();
        prop_assert!(lam.iter().all(|&l| l >= 0.0) && (lam.iter().sum::<f64>() - 1.0).abs() <= 1e-12);
        for (w, pts, set, r) in [
            (d.point_a, g.simplex.points_a().collect::<Vec<_>>(), a.points(), a.radius()),
            (d.point_b, g.simplex.points_b().collect::<Vec<_>>(), b.points(), b.radius()),
        ] {
            prop_assert!(pts.iter().all(|x| set.contains(x)));
            let core: DVec3 = pts.iter().zip(lam).map(|(&x, &l)| x * l).sum();
            prop_assert!(w.distance(core) <= r + tol, "witness {} is {} from its core point, radius {}", w, w.distance(core), r);
        }
        if d.distance > 0.0 {
            prop_assert!((d.point_a.distance(d.point_b) - d.distance).abs() <= 1e-12 * scale);
        }
    }

    /// (e) for SSCHs: the cached query of the next cycle matches a cold
    /// one.
    #[test]
    fn ssch_warm_start_matches_cold(
        (pa, ra) in ssch(), (pb, rb) in ssch(), offset in unit_pt(), step in unit_pt(), s in scale(),
    ) {
        let a = Ssch::new(pa.iter().map(|&p| p * s).collect(), ra * s).unwrap();
        let b = Ssch::new(pb.iter().map(|&p| (p + offset * 3.0) * s).collect(), rb * s).unwrap();
        let mut cache = GjkCache::new();
        let first = ssch_distance(&a, &b, Some(&mut cache)).unwrap();
        let cold = ssch_distance(&a, &b, None).unwrap();
        prop_assert_eq!(first, cold);
        prop_assert!(!cache.is_empty());
        let b2 = Ssch::new(b.points().iter().map(|&p| p + step * 0.02 * s).collect(), rb * s * 1.01).unwrap();
        let warm = ssch_distance(&a, &b2, Some(&mut cache)).unwrap();
        let cold2 = ssch_distance(&a, &b2, None).unwrap();
        let sl = 130.0 * f64::EPSILON * (a.extent() + b2.extent() + a.radius() + b2.radius());
        prop_assert!((warm.distance - cold2.distance).abs() <= 1e-10 * cold2.distance + 2.0 * sl,
            "warm {} cold {}", warm.distance, cold2.distance);
        prop_assert!(warm.lower_bound <= cold2.distance + sl);
        prop_assert!(cold2.lower_bound <= warm.distance + sl);
    }
}

#[test]
fn identical_and_nested_ssch_overlap() {
    let a = Ssch::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y], 0.1).unwrap();
    let d = ssch_distance(&a, &a, None).unwrap();
    assert_eq!((d.distance, d.lower_bound), (0.0, 0.0));
    let inner = Ssch::sphere(DVec3::new(0.2, 0.2, 0.0), 0.05).unwrap();
    let d = ssch_distance(&a, &inner, None).unwrap();
    assert_eq!((d.distance, d.lower_bound), (0.0, 0.0));
    // Radii alone close the gap: hulls 0.5 apart, radii 0.1 + 0.4.
    let b = Ssch::new(vec![DVec3::new(0.0, 0.0, 0.5)], 0.4).unwrap();
    let d = ssch_distance(&a, &b, None).unwrap();
    assert_eq!(d.lower_bound, 0.0);
    assert!(d.distance <= 1e-15);
    assert_eq!(d.point_a, d.point_b);
}
