//! GJK on convex point sets against the Frank–Wolfe oracle of
//! `gjk_common` (independent of GJK), over general and degenerate inputs:
//! coplanar, collinear, duplicate and single points, touching, deeply
//! penetrating, at scales from 1e-9 to 1e8, near and far (1e4 sizes) from
//! the origin.
//!
//! Tolerances: `eval_tol` is the oracle's own f64 evaluation error (see
//! `gjk_common`); `slack` is GJK's documented rounding slack
//! `128 ε (R_a + R_b)`; everything else is GJK's relative tolerance.

mod gjk_common;

use armature_bvh_geometry::gjk::{
    ConvexPoints, GjkCache, GjkOptions, GjkStatus, gjk_distance, gjk_distance_warm, gjk_intersect,
};
use gjk_common::{eval_tol, hull_distance, max_norm};
use glam::{DQuat, DVec3};
use proptest::prelude::*;

/// FW rounds per oracle call.
const FW_ITER: usize = 20_000;

fn slack(p: &[DVec3], q: &[DVec3]) -> f64 {
    // GJK rounds its extents up by a few ulps; 130 covers that.
    130.0 * f64::EPSILON * (max_norm(p) + max_norm(q))
}

fn unit_pt() -> impl Strategy<Value = DVec3> {
    (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

fn rotation() -> impl Strategy<Value = DQuat> {
    (unit_pt(), -3.2..3.2f64).prop_map(|(a, t)| {
        let axis = a.try_normalize().unwrap_or(DVec3::Z);
        DQuat::from_axis_angle(axis, t)
    })
}

/// The degenerate families (collinear, coplanar, duplicated points), plus general position.
#[derive(Clone, Copy, Debug)]
enum Kind {
    General,
    Coplanar,
    Collinear,
    Duplicates,
    Single,
    Touching,
    Deep,
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        3 => Just(Kind::General),
        1 => Just(Kind::Coplanar),
        1 => Just(Kind::Collinear),
        1 => Just(Kind::Duplicates),
        1 => Just(Kind::Single),
        1 => Just(Kind::Touching),
        1 => Just(Kind::Deep),
    ]
}

/// Scale exponents: tiny, unit and huge sets.
fn scale() -> impl Strategy<Value = f64> {
    prop_oneof![
        1 => Just(1e-9),
        1 => Just(1e-6),
        1 => Just(1e-3),
        3 => Just(1.0),
        1 => Just(1e3),
        1 => Just(1e6),
        1 => Just(1e8),
    ]
}

#[derive(Clone, Debug)]
struct Pair {
    kind: Kind,
    p: Vec<DVec3>,
    q: Vec<DVec3>,
}

fn pair() -> impl Strategy<Value = Pair> {
    (
        kind(),
        prop::collection::vec(unit_pt(), 1..=32),
        prop::collection::vec(unit_pt(), 1..=32),
        unit_pt(),
        rotation(),
        scale(),
        unit_pt(),
        prop_oneof![4 => Just(10.0), 1 => Just(1e4)],
    )
        .prop_map(|(kind, mut p, mut q, offset, rot, s, shift, far)| {
            let offset = offset * 3.0;
            match kind {
                Kind::General => q.iter_mut().for_each(|x| *x += offset),
                Kind::Coplanar => {
                    p.iter_mut().for_each(|x| x.z = 0.0);
                    q.iter_mut().for_each(|x| {
                        *x += offset;
                        x.z = 0.0;
                    });
                }
                Kind::Collinear => {
                    p.iter_mut().for_each(|x| *x = DVec3::X * x.x);
                    q.iter_mut()
                        .for_each(|x| *x = offset + DVec3::new(1.0, 0.5, 0.0) * x.x);
                }
                Kind::Duplicates => {
                    let k = p.len().div_ceil(3);
                    for i in k..p.len() {
                        p[i] = p[i % k];
                    }
                    let k = q.len().div_ceil(4);
                    for i in k..q.len() {
                        q[i] = q[i % k] + offset;
                    }
                    for x in q.iter_mut().take(k) {
                        *x += offset;
                    }
                }
                Kind::Single => {
                    p.truncate(1);
                    if offset.x > 0.0 {
                        q.truncate(1);
                    }
                    q.iter_mut().for_each(|x| *x += offset);
                }
                Kind::Touching => {
                    // q holds p's extreme point in direction n and lies in
                    // the half-space beyond it: the hulls touch exactly.
                    let n = offset.try_normalize().unwrap_or(DVec3::X);
                    let top = *p
                        .iter()
                        .max_by(|a, b| a.dot(n).total_cmp(&b.dot(n)))
                        .unwrap();
                    let t1 = n.any_orthonormal_vector();
                    let t2 = n.cross(t1);
                    for (i, x) in q.iter_mut().enumerate() {
                        *x = if i == 0 {
                            top
                        } else {
                            top + n * (x.x.abs() + 0.01) + t1 * x.y + t2 * x.z
                        };
                    }
                }
                Kind::Deep => {
                    // Convex combinations of p: q lies inside p's hull.
                    let c = p.iter().copied().sum::<DVec3>() / p.len() as f64;
                    let n = p.len();
                    q = (0..q.len().min(n))
                        .map(|i| p[i] * 0.5 + c * 0.3 + p[(i * 7 + 3) % n] * 0.2)
                        .collect();
                }
            }
            // Far from the origin (1e4 sizes away) coordinates lose digits:
            // the slack grows with the extents, as documented.
            let map = |x: DVec3| rot * x * s + shift * s * far;
            Pair {
                kind,
                p: p.into_iter().map(map).collect(),
                q: q.into_iter().map(map).collect(),
            }
        })
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 2000,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// (a), (d): GJK agrees with the Frank–Wolfe oracle, its lower bound
    /// never exceeds a feasible pair's distance, and its witnesses lie on
    /// the hulls.
    #[test]
    fn gjk_matches_frank_wolfe(case in pair()) {
        let (p, q) = (&case.p[..], &case.q[..]);
        let opts = GjkOptions::default();
        let r = gjk_distance(&ConvexPoints::new(p).unwrap(), &ConvexPoints::new(q).unwrap(), &opts)
            .unwrap();
        let h = hull_distance(p, q, FW_ITER);
        let tol = eval_tol(p, q);
        let sl = slack(p, q);
        let scale = max_norm(p) + max_norm(q);
        prop_assert!(r.lower_bound <= h.upper + tol, "lb {} > fw upper {} ({:?})", r.lower_bound, h.upper, case.kind);
        prop_assert!(h.lower <= r.distance + tol, "fw lower {} > gjk {}", h.lower, r.distance);
        prop_assert!(r.distance <= h.upper + opts.relative_tolerance * h.upper + sl + tol,
            "gjk {} worse than fw {}", r.distance, h.upper);
        prop_assert_eq!(r.status, GjkStatus::Converged);
        prop_assert!(r.lower_bound >= 0.0 && r.lower_bound <= r.distance);
        prop_assert!(r.distance - r.lower_bound <= opts.relative_tolerance * r.distance + 2.0 * sl,
            "gap {} at distance {}", r.distance - r.lower_bound, r.distance);
        if h.upper - h.lower <= 1e-9 * scale {
            prop_assert!((r.distance - h.upper).abs() <= 2e-9 * scale);
        }
        if matches!(case.kind, Kind::Touching | Kind::Deep) {
            prop_assert!(r.distance <= sl, "{:?} distance {}", case.kind, r.distance);
            prop_assert_eq!(r.lower_bound, 0.0);
        }
        // Witnesses on the hulls: convex combinations of input points (the
        // simplex is the certificate), at the reported distance.
        let lam = r.simplex.weights();
        prop_assert!(lam.iter().all(|&l| l >= 0.0));
        prop_assert!((lam.iter().sum::<f64>() - 1.0).abs() <= 1e-12);
        for (w, pts, set) in [
            (r.point_a, r.simplex.points_a().collect::<Vec<_>>(), p),
            (r.point_b, r.simplex.points_b().collect::<Vec<_>>(), q),
        ] {
            prop_assert!(pts.iter().all(|x| set.contains(x)));
            let c: DVec3 = pts.iter().zip(lam).map(|(&x, &l)| x * l).sum();
            prop_assert!((c - w).length() <= tol, "witness {} is not its combination {}", w, c);
        }
        if r.distance > 0.0 {
            prop_assert!(((r.point_a - r.point_b).length() - r.distance).abs() <= 1e-12 * scale + sl);
            prop_assert!((r.normal.length() - 1.0).abs() < 1e-12);
        }
    }

    /// (c): boolean GJK agrees with the distance query and never misses a
    /// known intersection.
    #[test]
    fn intersection_agrees_with_distance(case in pair(), w in prop::collection::vec(0.0..1.0f64, 32)) {
        let (p, q) = (&case.p[..], &case.q[..]);
        let r = gjk_distance(p, q, &GjkOptions::default()).unwrap();
        let hit = gjk_intersect(p, q);
        if r.lower_bound > 0.0 {
            prop_assert!(!hit, "certified apart (lb {}) but intersect", r.lower_bound);
        }
        if r.distance == 0.0 {
            prop_assert!(hit, "distance 0 but no intersection");
        }
        let scale = max_norm(p) + max_norm(q);
        if r.lower_bound > 1e-9 * scale {
            prop_assert!(!hit);
        }
        // Add a convex combination of p to q: the hulls now share a point.
        let s: f64 = w.iter().take(p.len()).sum::<f64>() + 1e-3;
        let inner = p.iter().zip(&w).map(|(&x, &wi)| x * ((wi + 1e-3 / p.len() as f64) / s)).sum::<DVec3>();
        let mut q2 = q.to_vec();
        q2.push(inner);
        prop_assert!(gjk_intersect(p, &q2[..]), "shared point {} missed", inner);
        let r2 = gjk_distance(p, &q2[..], &GjkOptions::default()).unwrap();
        prop_assert_eq!(r2.lower_bound, 0.0);
        prop_assert!(r2.distance <= slack(p, &q2));
    }

    /// (e): a warm start from the previous simplex gives the cold answer,
    /// for the same pair (in at most as many iterations) and after a small
    /// motion of one set.
    #[test]
    fn warm_start_matches_cold(case in pair(), rot in rotation(), step in unit_pt()) {
        let (p, q) = (&case.p[..], &case.q[..]);
        let opts = GjkOptions::default();
        let cold = gjk_distance(p, q, &opts).unwrap();
        let mut cache = GjkCache::new();
        cache.store(&cold.simplex);
        let again = gjk_distance_warm(p, q, &opts, &mut cache).unwrap();
        let sl = slack(p, q);
        let scale = max_norm(p) + max_norm(q);
        prop_assert!((again.distance - cold.distance).abs() <= 1e-10 * cold.distance + 2.0 * sl);
        prop_assert!(again.iterations <= cold.iterations.max(1),
            "warm {} > cold {}", again.iterations, cold.iterations);
        // Move q a little about its first point (a control cycle's motion).
        let small = DQuat::from_axis_angle(rot.xyz().try_normalize().unwrap_or(DVec3::Z), 0.05);
        let c = q[0];
        let moved: Vec<DVec3> = q.iter().map(|&x| c + small * (x - c) + step * 0.01 * scale).collect();
        let warm = gjk_distance_warm(p, &moved[..], &opts, &mut cache).unwrap();
        let cold2 = gjk_distance(p, &moved[..], &opts).unwrap();
        let sl2 = slack(p, &moved);
        prop_assert!((warm.distance - cold2.distance).abs() <= 1e-10 * cold2.distance + 2.0 * sl2,
            "warm {} vs cold {}", warm.distance, cold2.distance);
        prop_assert!(warm.lower_bound <= cold2.distance + sl2 && cold2.lower_bound <= warm.distance + sl2);
        prop_assert_eq!(warm.status, GjkStatus::Converged);
        // A cache from an unrelated pair costs iterations, never accuracy.
        let mut foreign = GjkCache::new();
        foreign.store(&gjk_distance(&moved[..], p, &opts).unwrap().simplex);
        let odd = gjk_distance_warm(p, &moved[..], &opts, &mut foreign).unwrap();
        prop_assert!((odd.distance - cold2.distance).abs() <= 1e-10 * cold2.distance + 2.0 * sl2);
    }
}
