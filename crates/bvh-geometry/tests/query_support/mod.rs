//! Shared strategies and brute-force oracles for the query and fitting
//! property tests. The oracles share no code with the crate: they minimise
//! convex functions by ternary search with exact inner steps (clamped
//! projections on a segment), sample densely, or solve by other closed forms.

// Each test binary uses a different subset of these helpers.
#![allow(dead_code)]

use glam::{DMat3, DQuat, DVec3};
use proptest::prelude::*;

pub(crate) const EPS: f64 = f64::EPSILON;

/// Cases per property: at least 2000 per query.
pub(crate) const CASES: u32 = 2000;

pub(crate) fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        ..ProptestConfig::default()
    }
}

// ---------------------------------------------------------------------------
// Strategies

/// A coordinate in [-1, 1].
pub(crate) fn unit() -> impl Strategy<Value = f64> {
    -1.0..1.0_f64
}

pub(crate) fn vec3() -> impl Strategy<Value = DVec3> {
    (unit(), unit(), unit()).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

pub(crate) fn unit_vec3() -> impl Strategy<Value = DVec3> {
    vec3().prop_map(|v| v.try_normalize().unwrap_or(DVec3::X))
}

pub(crate) fn rotation() -> impl Strategy<Value = DMat3> {
    (unit_vec3(), -3.2..3.2_f64)
        .prop_map(|(axis, angle)| DMat3::from_quat(DQuat::from_axis_angle(axis, angle)))
}

/// A placement: a scale in [1e-3, 1e3] and an offset of up to 1e3 times the
/// scale, so the relative tolerances see clouds away from the origin.
pub(crate) fn placement() -> impl Strategy<Value = (f64, DVec3)> {
    prop_oneof![
        2 => Just((1.0, DVec3::ZERO)),
        1 => (-3.0..3.0_f64, vec3(), 0.0..3.0_f64)
            .prop_map(|(e, o, k)| (10f64.powf(e), o * 10f64.powf(k) * 10f64.powf(e))),
    ]
}

/// Triangles: random, and the degenerate families (collinear, coincident
/// vertices, a point, slivers and needles of random thinness).
pub(crate) fn triangle() -> impl Strategy<Value = [DVec3; 3]> {
    prop_oneof![
        6 => (vec3(), vec3(), vec3()).prop_map(|(a, b, c)| [a, b, c]),
        1 => (vec3(), vec3(), -1.0..2.0_f64).prop_map(|(a, b, t)| [a, b, a + (b - a) * t]),
        1 => (vec3(), vec3(), 0_u8..3).prop_map(|(a, b, k)| match k {
            0 => [a, a, b],
            1 => [a, b, a],
            _ => [b, a, a],
        }),
        1 => vec3().prop_map(|a| [a, a, a]),
        1 => (vec3(), vec3(), 0.0..1.0_f64, unit_vec3(), -14.0..-2.0_f64)
            .prop_map(|(a, b, t, n, e)| {
                let d = b - a;
                let h = n.reject_from(d).normalize_or_zero() * d.length() * 10f64.powf(e);
                [a, b, a + d * t + h]
            }),
        1 => (vec3(), vec3(), unit_vec3(), -14.0..-2.0_f64)
            .prop_map(|(a, b, n, e)| [a, b, b + n * 10f64.powf(e)]),
    ]
}

pub(crate) fn place(t: [DVec3; 3], (s, o): (f64, DVec3)) -> [DVec3; 3] {
    t.map(|p| p * s + o)
}

pub(crate) fn max_abs(pts: &[DVec3]) -> f64 {
    pts.iter().fold(0.0, |m, p| m.max(p.abs().max_element()))
}

// ---------------------------------------------------------------------------
// Oracles

pub(crate) fn clamp01(x: f64) -> f64 {
    x.clamp(0.0, 1.0)
}

/// Point–segment distance by clamped projection.
pub(crate) fn point_segment(p: DVec3, a: DVec3, b: DVec3) -> f64 {
    let d = b - a;
    let dd = d.dot(d);
    let t = if dd > 0.0 {
        clamp01((p - a).dot(d) / dd)
    } else {
        0.0
    };
    (p - (a + d * t)).length()
}

/// Minimum of a convex function on [0, 1] by ternary search.
pub(crate) fn ternary(f: impl Fn(f64) -> f64) -> f64 {
    let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
    for _ in 0..200 {
        let m1 = lo + (hi - lo) / 3.0;
        let m2 = hi - (hi - lo) / 3.0;
        if f(m1) < f(m2) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    f(0.5 * (lo + hi)).min(f(0.0)).min(f(1.0))
}

/// Segment–segment distance: `s ↦ dist(P(s), Q)` is convex.
pub(crate) fn segment_segment(p0: DVec3, p1: DVec3, q0: DVec3, q1: DVec3) -> f64 {
    ternary(|s| point_segment(p0 + (p1 - p0) * s, q0, q1))
}

/// Point–triangle distance: the triangle is swept by the segments
/// `[(1−u)a + ub, (1−u)c + ub]`, `u ∈ [0, 1]`, and the distance to the
/// slice is convex in `u`.
pub(crate) fn point_triangle(p: DVec3, t: &[DVec3; 3]) -> f64 {
    let [a, b, c] = *t;
    ternary(|u| point_segment(p, a * (1.0 - u) + b * u, c * (1.0 - u) + b * u))
}

/// The minimum over PQP's 15 sub-problems (9 edge–edge, 6 vertex–triangle),
/// each computed by the oracles above. Equals the distance of disjoint
/// triangles; an upper bound for intersecting ones.
pub(crate) fn fifteen(a: &[DVec3; 3], b: &[DVec3; 3]) -> f64 {
    let mut m = f64::INFINITY;
    for i in 0..3 {
        for j in 0..3 {
            m = m.min(segment_segment(a[i], a[(i + 1) % 3], b[j], b[(j + 1) % 3]));
        }
        m = m.min(point_triangle(a[i], b)).min(point_triangle(b[i], a));
    }
    m
}

/// Barycentric grid with `k` steps per edge.
pub(crate) fn grid(t: &[DVec3; 3], k: usize) -> Vec<DVec3> {
    let mut v = Vec::with_capacity((k + 1) * (k + 2) / 2);
    for i in 0..=k {
        for j in 0..=(k - i) {
            let (u, w) = (i as f64 / k as f64, j as f64 / k as f64);
            v.push(t[0] + (t[1] - t[0]) * u + (t[2] - t[0]) * w);
        }
    }
    v
}

pub(crate) fn longest_edge(t: &[DVec3; 3]) -> f64 {
    (t[1] - t[0])
        .length()
        .max((t[2] - t[1]).length())
        .max((t[0] - t[2]).length())
}

/// Minimum distance between the grid points of two triangles, and the
/// sampling error bound: every point of a triangle lies within
/// `longest edge / k` of a grid point.
pub(crate) fn sampled_triangle_distance(a: &[DVec3; 3], b: &[DVec3; 3], k: usize) -> (f64, f64) {
    let (ga, gb) = (grid(a, k), grid(b, k));
    let mut m = f64::INFINITY;
    for p in &ga {
        for q in &gb {
            m = m.min((*p - *q).length_squared());
        }
    }
    (m.sqrt(), (longest_edge(a) + longest_edge(b)) / k as f64)
}

/// Whether the segment clearly crosses the triangle's interior (solved by
/// Cramer's rule with margins of 1e-9): then the two touch.
pub(crate) fn segment_clearly_pierces(p: DVec3, q: DVec3, t: &[DVec3; 3]) -> bool {
    let (e1, e2, d) = (t[1] - t[0], t[2] - t[0], q - p);
    let det = -d.dot(e1.cross(e2));
    if det.abs() <= 1e-9 * d.length() * e1.length() * e2.length() {
        return false;
    }
    let o = p - t[0];
    // o = -s d + u e1 + v e2 ⇒ Cramer on the columns (-d, e1, e2).
    let s = o.dot(e1.cross(e2)) / det;
    let u = (-d).dot(o.cross(e2)) / det;
    let v = (-d).dot(e1.cross(o)) / det;
    let m = 1e-9;
    s > m && s < 1.0 - m && u > m && v > m && u + v < 1.0 - m
}

pub(crate) fn triangles_clearly_intersect(a: &[DVec3; 3], b: &[DVec3; 3]) -> bool {
    (0..3).any(|i| {
        segment_clearly_pierces(a[i], a[(i + 1) % 3], b)
            || segment_clearly_pierces(b[i], b[(i + 1) % 3], a)
    })
}

/// How much a face query may be off for this triangle (independent of the
/// crate): for a triangle with height `h` over its longest edge `L`, the
/// normal is known to `~ε L / h` radians, so a projection is off by up to
/// `~ε L² / h` (taken with a factor 64); below `h ≈ 1e-8 L` only the edges
/// are used, exact within `h`. Both apply near that threshold.
pub(crate) fn sliver_allowance(t: &[DVec3; 3]) -> f64 {
    let l = longest_edge(t);
    if l == 0.0 {
        return 0.0;
    }
    let h = (t[1] - t[0]).cross(t[2] - t[0]).length() / l;
    let face = 64.0 * EPS * l * l / h;
    if h < 5e-9 * l {
        1.01 * h
    } else if h < 2e-8 * l {
        face.max(1.01 * h)
    } else {
        face
    }
}
