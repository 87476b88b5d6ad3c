//! Oracles shared by the GJK property tests, independent of GJK.
//!
//! [`hull_distance`] solves `min |Σ λᵢ pᵢ − Σ μⱼ qⱼ|` over convex weights by
//! block pairwise Frank–Wolfe with exact line search (Lacoste-Julien &
//! Jaggi 2015: linear convergence on polytopes). Its answer carries two
//! certificates that do not depend on GJK:
//!
//! - `upper`: the distance of a feasible pair (weights non-negative and
//!   renormalised to sum 1), so `upper ≥ true distance` up to the f64
//!   evaluation error of the two weighted sums, at most
//!   [`eval_tol`]`(p, q)`;
//! - `lower`: the Wolfe duality bound `(min_i pᵢ·x − max_j qⱼ·x)/|x|` at the
//!   final iterate, a lower bound on the true distance up to the same
//!   evaluation error.

#![allow(dead_code)] // Each test binary uses a different part of this module.

use glam::DVec3;

/// Result of [`hull_distance`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Hull {
    /// Upper bound (a feasible pair's distance).
    pub(crate) upper: f64,
    /// Certified lower bound (duality).
    pub(crate) lower: f64,
    /// The feasible point of `conv(p)`.
    pub(crate) a: DVec3,
    /// The feasible point of `conv(q)`.
    pub(crate) b: DVec3,
}

/// Largest norm of a point.
pub(crate) fn max_norm(p: &[DVec3]) -> f64 {
    p.iter().map(|v| v.length()).fold(0.0, f64::max)
}

/// Evaluation error allowed in the oracle's certificates: a sum of `n`
/// weighted points with weights summing to 1 is computed with an error of
/// at most `n ε max|p|` per coordinate; doubled, for both sums, and with a
/// factor 2 for the norm and the comparison.
pub(crate) fn eval_tol(p: &[DVec3], q: &[DVec3]) -> f64 {
    4.0 * (p.len() + q.len() + 4) as f64 * f64::EPSILON * (max_norm(p) + max_norm(q))
}

fn combo(p: &[DVec3], w: &[f64]) -> DVec3 {
    let s: f64 = w.iter().sum();
    p.iter().zip(w).map(|(&pi, &wi)| pi * (wi / s)).sum()
}

/// Distance between `conv(p)` and `conv(q)` by block pairwise Frank–Wolfe
/// (at most `max_iter` rounds; stops when the duality gap is below f64
/// resolution).
pub(crate) fn hull_distance(p: &[DVec3], q: &[DVec3], max_iter: usize) -> Hull {
    let (n, m) = (p.len(), q.len());
    // Start at the nearest pair of points.
    let (mut i0, mut j0, mut best) = (0, 0, f64::INFINITY);
    for i in 0..n {
        for j in 0..m {
            let d = (p[i] - q[j]).length_squared();
            if d < best {
                (i0, j0, best) = (i, j, d);
            }
        }
    }
    let mut lam = vec![0.0; n];
    let mut mu = vec![0.0; m];
    lam[i0] = 1.0;
    mu[j0] = 1.0;
    let scale = max_norm(p) + max_norm(q) + 1e-300;
    let mut lower: f64 = 0.0;
    let mut x = p[i0] - q[j0];
    for it in 0..max_iter {
        if it % 64 == 0 {
            // Drop accumulated drift.
            x = combo(p, &lam) - combo(q, &mu);
        }
        let (ip, minp) = (0..n)
            .map(|i| (i, p[i].dot(x)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap();
        let maxq = q
            .iter()
            .map(|qj| qj.dot(x))
            .fold(f64::NEG_INFINITY, f64::max);
        let nx = x.length();
        if nx > 0.0 {
            lower = lower.max((minp - maxq) / nx);
        }
        let gap = x.length_squared() - (minp - maxq);
        if gap <= 1e-30 * scale * scale || nx <= 1e-300 {
            break;
        }
        // λ block: move weight from the worst active point to the best.
        let im = (0..n)
            .filter(|&i| lam[i] > 0.0)
            .max_by(|&a, &b| p[a].dot(x).total_cmp(&p[b].dot(x)))
            .unwrap();
        let d = p[ip] - p[im];
        let dd = d.length_squared();
        if dd > 0.0 {
            let g = (-x.dot(d) / dd).clamp(0.0, lam[im]);
            lam[ip] += g;
            lam[im] -= g;
            x += d * g;
        }
        // μ block, with the updated x.
        let jp = (0..m)
            .max_by(|&a, &b| q[a].dot(x).total_cmp(&q[b].dot(x)))
            .unwrap();
        let jm = (0..m)
            .filter(|&j| mu[j] > 0.0)
            .min_by(|&a, &b| q[a].dot(x).total_cmp(&q[b].dot(x)))
            .unwrap();
        let d = q[jm] - q[jp];
        let dd = d.length_squared();
        if dd > 0.0 {
            let g = (-x.dot(d) / dd).clamp(0.0, mu[jm]);
            mu[jp] += g;
            mu[jm] -= g;
            x += d * g;
        }
    }
    let a = combo(p, &lam);
    let b = combo(q, &mu);
    let upper = (a - b).length();
    Hull {
        upper,
        lower: lower.min(upper),
        a,
        b,
    }
}

/// Distance from `x` to the segment `[a, b]` (clamped projection).
pub(crate) fn point_segment(x: DVec3, a: DVec3, b: DVec3) -> f64 {
    let t = b - a;
    let tt = t.length_squared();
    let s = if tt > 0.0 {
        ((x - a).dot(t) / tt).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (a + t * s - x).length()
}

/// Distance between segments `[a0, a1]` and `[b0, b1]`: golden-section
/// search over the first segment's parameter of the (convex) distance to
/// the second segment, to f64 resolution.
pub(crate) fn segment_segment(a0: DVec3, a1: DVec3, b0: DVec3, b1: DVec3) -> f64 {
    let f = |s: f64| point_segment(a0 + (a1 - a0) * s, b0, b1);
    let g = 0.5 * (5f64.sqrt() - 1.0);
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    let mut best = f(0.0).min(f(1.0));
    for _ in 0..200 {
        let m1 = hi - g * (hi - lo);
        let m2 = lo + g * (hi - lo);
        let (f1, f2) = (f(m1), f(m2));
        best = best.min(f1).min(f2);
        if f1 <= f2 {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    best
}
