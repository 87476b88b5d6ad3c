//! Conservative triangle–triangle intersection test (Möller 1997, with
//! rounding-aware decisions and an exact-distance fallback).

use glam::DVec3;

use super::face::Face;
use super::max_abs;
use super::triangle_triangle::triangle_pair;

/// Relative touching tolerance of [`intersect_triangle_triangle`]:
/// triangles closer than this times the largest absolute coordinate are
/// reported as intersecting.
pub const TOUCH_TOLERANCE: f64 = 1e-12;

/// Whether two triangles intersect, conservatively (Möller 1997, with
/// rounding-aware decisions and an exact-distance fallback). Touching triangles (a shared vertex, an edge on a
/// face, coplanar overlap) are intersecting.
///
/// # Tolerance and method
///
/// **Contract.** With `scale` the largest absolute coordinate of the six
/// vertices and `tol = TOUCH_TOLERANCE · scale`:
///
/// - triangles at distance `≤ tol` (intersecting, touching, or nearly
///   touching) are always reported as intersecting — the test is
///   *conservative*, it never says "no intersection" for triangles at
///   distance 0 up to a relative `1e-12`;
/// - `true` is only reported for triangles whose distance is at most
///   `tol` plus the rounding estimate of [`super::closest_points_triangle_triangle`]
///   (a few ulps of `scale` for regular triangles; for slivers it grows like
///   `ε L² / h`, and for triangles thinner than `1e-8` of their longest edge
///   it is their height).
///
/// Non-finite input (NaN or ±∞) is reported as intersecting.
///
/// **How.** Each answer is certified by the step that gives it:
///
/// 1. *Plane rejection* (Möller's first two steps). If all three vertices
///    of one triangle lie on the same side of the other's plane, farther than
///    `tol` plus the estimated error of their signed distances, every point
///    of that triangle is farther than `tol` from the other: **false**. The
///    error estimate accounts for the conditioning of the plane (see
///    [`super::closest_point_triangle`]); a degenerate or sliver triangle
///    defines no plane and skips this step.
/// 2. *Interval overlap on the intersection line* (Möller's third step), for
///    regular triangles whose planes are not nearly parallel and whose
///    vertices lie clearly on both sides of the other plane. Each cut point
///    of an edge with the other plane is computed with an error bound from
///    the signed distances' errors, and the two intervals are shrunk by those
///    bounds; if the shrunk intervals still overlap, the triangles
///    intersect: **true**.
/// 3. Every other case (coplanar and nearly coplanar pairs, degenerate
///    triangles, intervals that are disjoint or too close to call) is
///    decided by the exact distance: **true** iff the distance minus its
///    error estimate is at most `tol`.
///
/// ```
/// use armature_bvh_geometry::query::intersect_triangle_triangle;
/// use glam::DVec3;
/// let a = [DVec3::ZERO, DVec3::X, DVec3::Y];
/// let through = [DVec3::new(0.2, 0.2, -1.0), DVec3::new(0.2, 0.2, 1.0), DVec3::new(5.0, 5.0, 0.0)];
/// assert!(intersect_triangle_triangle(&a, &through));
/// let above = a.map(|p| p + DVec3::Z * 1e-3);
/// assert!(!intersect_triangle_triangle(&a, &above));
/// ```
#[must_use]
pub fn intersect_triangle_triangle(a: &[DVec3; 3], b: &[DVec3; 3]) -> bool {
    if !(a.iter().chain(b).all(|p| p.is_finite())) {
        return true;
    }
    let scale = max_abs(a).max(max_abs(b));
    let tol = TOUCH_TOLERANCE * scale;
    let base = 32.0 * f64::EPSILON * scale;
    let (fa, fb) = (Face::new(a), Face::new(b));

    let side = |f: &Face, pts: &[DVec3; 3]| -> ([f64; 3], [f64; 3]) {
        let d = pts.map(|p| f.signed_distance(p));
        let e = pts.map(|p| f.signed_distance_error(p) + base);
        (d, e)
    };
    let separated = |d: &[f64; 3], e: &[f64; 3]| {
        (0..3).all(|i| d[i] > tol + e[i]) || (0..3).all(|i| d[i] < -(tol + e[i]))
    };
    let (mut db, mut eb) = ([0.0; 3], [0.0; 3]);
    if fa.regular {
        (db, eb) = side(&fa, b);
        if separated(&db, &eb) {
            return false;
        }
    }
    let (mut da, mut ea) = ([0.0; 3], [0.0; 3]);
    if fb.regular {
        (da, ea) = side(&fb, a);
        if separated(&da, &ea) {
            return false;
        }
    }
    if fa.regular && fb.regular && intervals_overlap(&fa, &fb, (da, ea), (db, eb), base) {
        return true;
    }
    let (c, err) = triangle_pair(a, b, Some((&fa, &fb)));
    c.distance - err <= tol
}

/// Möller's interval test, answering only when certain: `true` when the
/// intervals that the triangles cut on the line of the planes' intersection
/// overlap by more than their error bounds. `side_a` holds `a`'s vertices'
/// signed distances from `b`'s plane and their errors, and vice versa.
fn intervals_overlap(
    fa: &Face,
    fb: &Face,
    side_a: ([f64; 3], [f64; 3]),
    side_b: ([f64; 3], [f64; 3]),
    base: f64,
) -> bool {
    let line = fa.n_hat.cross(fb.n_hat);
    let sin = line.length();
    // Direction error of the line ≈ (normal errors) / sin: demand < 0.1 so
    // the projection axis below is certainly not orthogonal to the true
    // line (its cosine with the line is ≥ 1/√3).
    if !(sin > 10.0 * (fa.err_dir + fb.err_dir + 4.0 * f64::EPSILON)) {
        return false;
    }
    let abs = line.abs();
    let k = if abs.x >= abs.y && abs.x >= abs.z {
        0
    } else if abs.y >= abs.z {
        1
    } else {
        2
    };
    let (Some((lo_a, hi_a)), Some((lo_b, hi_b))) = (
        inner_interval(&fa.v, side_a, k, base),
        inner_interval(&fb.v, side_b, k, base),
    ) else {
        return false;
    };
    lo_a.max(lo_b) <= hi_a.min(hi_b)
}

/// An interval surely inside the projection on axis `k` of the segment
/// where the triangle `v` crosses the other plane, given its vertices'
/// signed distances `d` and their errors `e`; `None` unless every vertex is
/// clearly off the plane and the triangle clearly straddles it.
fn inner_interval(
    v: &[DVec3; 3],
    (d, e): ([f64; 3], [f64; 3]),
    k: usize,
    base: f64,
) -> Option<(f64, f64)> {
    if (0..3).any(|i| !(d[i].abs() > e[i])) {
        return None;
    }
    let pos = d.map(|x| x > 0.0);
    let iso = if pos[0] == pos[1] {
        2
    } else if pos[0] == pos[2] {
        1
    } else {
        0
    };
    if pos[iso] == pos[(iso + 1) % 3] {
        return None; // all on one side
    }
    let cut = |j: usize| {
        let den = d[iso] - d[j];
        let r = d[iso] / den;
        let span = v[j][k] - v[iso][k];
        let t = v[iso][k] + span * r;
        let err = span.abs() * ((e[iso] + e[j]) / den.abs() + 4.0 * f64::EPSILON)
            + 4.0 * f64::EPSILON * t.abs()
            + base;
        (t, err)
    };
    let (t1, e1) = cut((iso + 1) % 3);
    let (t2, e2) = cut((iso + 2) % 3);
    let (lo, hi) = if t1 <= t2 {
        (t1 + e1, t2 - e2)
    } else {
        (t2 + e2, t1 - e1)
    };
    (lo <= hi).then_some((lo, hi))
}
