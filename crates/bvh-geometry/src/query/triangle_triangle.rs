//! Triangle–triangle distance with closest points (PQP style).

use glam::DVec3;

use super::face::Face;
use super::segment_segment::{Edge, edge_params, nearest_first};
use super::{ClosestPoints, any_nan, max_abs};

/// Closest points, distance, and an estimate of how much the true distance
/// may be *below* the computed one (rounding, the conditioning of the faces'
/// normals, and the heights of irregular triangles whose faces were
/// skipped). The intersection test uses the estimate to stay conservative;
/// it passes the faces it has prepared, other callers `None` (the faces are
/// then prepared only if the edge pairs do not settle the answer).
pub(crate) fn triangle_pair(
    a: &[DVec3; 3],
    b: &[DVec3; 3],
    faces: Option<(&Face, &Face)>,
) -> (ClosestPoints, f64) {
    let scale = max_abs(a).max(max_abs(b));
    let base = 32.0 * f64::EPSILON * scale;
    let (best2, pa, pb) = match edge_pairs(a, b, scale) {
        Ok(cp) => return (cp, base),
        Err(best) => best,
    };
    let owned;
    let (fa, fb) = match faces {
        Some(f) => f,
        None => {
            owned = (Face::new(a), Face::new(b));
            (&owned.0, &owned.1)
        }
    };
    let cp = faces_and_crossings(fa, fb, best2, pa, pb);
    let mut err = base;
    for f in [fa, fb] {
        err += if f.regular {
            f.err_dir * (cp.distance + fa.lmax + fb.lmax)
        } else {
            f.height
        };
    }
    (cp, err)
}

/// The 9 edge pairs: `Ok` with the answer when a pair is certified by a
/// separating slab (then no face conditioning enters its accuracy),
/// otherwise `Err` with the nearest pair's squared distance and points.
fn edge_pairs(
    a: &[DVec3; 3],
    b: &[DVec3; 3],
    scale: f64,
) -> Result<ClosestPoints, (f64, DVec3, DVec3)> {
    // Written out: `array::map` with a capturing closure compiles to a copy
    // through memory here, which doubled the cost of the whole query.
    let ea = [
        Edge::new(a[0], a[1]),
        Edge::new(a[1], a[2]),
        Edge::new(a[2], a[0]),
    ];
    let eb = [
        Edge::new(b[0], b[1]),
        Edge::new(b[1], b[2]),
        Edge::new(b[2], b[0]),
    ];
    let mut best2 = f64::INFINITY;
    let mut pa = a[0];
    let mut pb = b[0];
    // Edges nearest the other triangle first: the pair that ends the search
    // early is then usually among the first tried.
    let oa = nearest_first(&ea, (b[0] + b[1] + b[2]) / 3.0);
    let ob = nearest_first(&eb, (a[0] + a[1] + a[2]) / 3.0);
    for i in oa {
        for j in ob {
            let (s, t) = edge_params(&ea[i], &eb[j]);
            let (x, y) = (ea[i].at(s), eb[j].at(t));
            let v = y - x;
            // PQP's early exit: if the slab between x and y, normal to
            // y − x, has each triangle's third vertex on its own side (the
            // edges' end points are, by the optimality of x and y), it
            // separates the triangles and |y − x| is their distance.
            if beyond(a[(i + 2) % 3] - x, -v, scale) && beyond(b[(j + 2) % 3] - y, v, scale) {
                return Ok(ClosestPoints {
                    distance: v.length(),
                    point_a: x,
                    point_b: y,
                });
            }
            let d2 = v.length_squared();
            if d2 < best2 {
                (best2, pa, pb) = (d2, x, y);
            }
        }
    }
    Err((best2, pa, pb))
}

/// The 6 vertex–face pairs and the 6 edge–face crossings, on top of the
/// nearest edge pair.
fn faces_and_crossings(
    fa: &Face,
    fb: &Face,
    mut best2: f64,
    mut pa: DVec3,
    mut pb: DVec3,
) -> ClosestPoints {
    let (a, b) = (&fa.v, &fb.v);
    if best2 > 0.0 && fb.regular {
        for &x in a {
            if fb.inside(x) {
                let (y, sd) = fb.project(x);
                if sd * sd < best2 {
                    (best2, pa, pb) = (sd * sd, x, y);
                }
            }
        }
    }
    if best2 > 0.0 && fa.regular {
        for &y in b {
            if fa.inside(y) {
                let (x, sd) = fa.project(y);
                if sd * sd < best2 {
                    (best2, pa, pb) = (sd * sd, x, y);
                }
            }
        }
    }
    if best2 > 0.0
        && let Some(x) = pierce_any(fb, a).or_else(|| pierce_any(fa, b))
    {
        (best2, pa, pb) = (0.0, x, x);
    }
    ClosestPoints {
        distance: best2.sqrt(),
        point_a: pa,
        point_b: pb,
    }
}

/// Whether `w · v ≥ 0` holds beyond the rounding of `v = y − x`: `v` is
/// only known to a few ulps of the coordinate `scale` per component, which
/// matters when the closest points nearly coincide, so the early exit
/// demands a margin of `8 ε · scale · |w|₁` (and otherwise falls through to
/// the full search).
#[inline]
pub(crate) fn beyond(w: DVec3, v: DVec3, scale: f64) -> bool {
    w.dot(v) >= 8.0 * f64::EPSILON * scale * w.abs().element_sum()
}

/// Where an edge of `edges` crosses the interior of `face`, if one does.
fn pierce_any(face: &Face, edges: &[DVec3; 3]) -> Option<DVec3> {
    if !face.regular {
        return None;
    }
    (0..3).find_map(|i| face.pierce(edges[i], edges[(i + 1) % 3]))
}

/// Closest points of two triangles: `point_a` on `a`, `point_b` on `b`,
/// `distance = |point_a − point_b|` (0 and a common point when they
/// intersect). NaN input gives NaN distance and points.
///
/// # Method
///
/// For two disjoint triangles a closest pair is realised by one of the 15
/// feature pairs of PQP's `TriDist` (Larsen et al. 1999): the 9 edge–edge
/// pairs (segment–segment closest points) and the 6 vertex–face pairs (a
/// vertex whose projection falls inside the other triangle). Intersecting
/// triangles have distance 0 although none of those 15 may be 0 (an edge
/// passing through the other's interior), so the 6 edge–face crossings are
/// tested too; a crossing point is returned as both witnesses. As in PQP,
/// an edge pair whose closest points span a slab that separates the two
/// triangles (each triangle's third vertex on its own side, by a margin
/// above the rounding of the slab's normal) ends the search early: that
/// pair is then the answer.
///
/// **Accuracy.** Every candidate is a pair of points on the two triangles
/// (up to rounding), so the result never underestimates the distance by
/// more than rounding. It is exact up to a few ulps of the coordinate scale
/// for well-shaped triangles. A triangle's face is only as well defined as
/// the triangle is thick: with `h` its height over its longest edge `L`,
/// the face candidates carry an error of order `ε L² / h`, and below
/// `h = 1e-8 L` only the triangle's edges are used, exact within `h`; so a
/// sliver costs at most about `1e-8 L` (see [`super::closest_point_triangle`]).
/// Exactly degenerate triangles (a point, a segment) are exact.
///
/// ```
/// use armature_bvh_geometry::query::closest_points_triangle_triangle;
/// use glam::DVec3;
/// let a = [DVec3::ZERO, DVec3::X, DVec3::Y];
/// let b = a.map(|p| p + DVec3::new(0.1, 0.1, 2.0));
/// let c = closest_points_triangle_triangle(&a, &b);
/// assert!((c.distance - 2.0).abs() < 1e-15);
/// ```
#[must_use]
pub fn closest_points_triangle_triangle(a: &[DVec3; 3], b: &[DVec3; 3]) -> ClosestPoints {
    if any_nan(a) || any_nan(b) {
        return ClosestPoints::NAN;
    }
    triangle_pair(a, b, None).0
}

/// Distance between two triangles (0 when they intersect; NaN for NaN
/// input). See [`closest_points_triangle_triangle`].
#[must_use]
pub fn distance_triangle_triangle(a: &[DVec3; 3], b: &[DVec3; 3]) -> f64 {
    closest_points_triangle_triangle(a, b).distance
}

/// A cheap certified lower bound on the distance between two triangles: the
/// gap between their projections on up to three axes — the two normals,
/// then the line of the centroids — tried in that order until one exceeds
/// `threshold`, less a rounding allowance of `64 ε` times the largest
/// coordinate, clamped at 0. Never above
/// [`closest_points_triangle_triangle`]'s exact distance, in floating point
/// too; equal to it (up to the allowance) for facing parallel triangles, and
/// possibly far below it otherwise (0 for triangles near each other edge to
/// edge). A fraction of the cost of the distance itself, for traversals
/// that only need to know whether a pair is farther apart than `threshold`.
///
/// NaN input gives NaN.
#[must_use]
pub fn distance_lower_bound_triangle_triangle(
    a: &[DVec3; 3],
    b: &[DVec3; 3],
    threshold: f64,
) -> f64 {
    if any_nan(a) || any_nan(b) {
        return f64::NAN;
    }
    let gap = |n: DVec3| {
        let (pa0, pa1, pa2) = (n.dot(a[0]), n.dot(a[1]), n.dot(a[2]));
        let (pb0, pb1, pb2) = (n.dot(b[0]), n.dot(b[1]), n.dot(b[2]));
        let (lo_a, hi_a) = (pa0.min(pa1).min(pa2), pa0.max(pa1).max(pa2));
        let (lo_b, hi_b) = (pb0.min(pb1).min(pb2), pb0.max(pb1).max(pb2));
        (lo_b - hi_a).max(lo_a - hi_b)
    };
    // The sign of the gap along `n` as is tells whether the axis separates
    // at all; only then is it normalised (one square root) and the gap
    // measured along the unit axis, whose rounding the allowance covers.
    let mut best = 0.0_f64;
    let mut allowance = f64::NAN;
    for k in 0..3 {
        let n = match k {
            0 => (a[1] - a[0]).cross(a[2] - a[0]),
            1 => (b[1] - b[0]).cross(b[2] - b[0]),
            _ => (b[0] + b[1] + b[2]) - (a[0] + a[1] + a[2]),
        };
        if !(gap(n) > 0.0) {
            continue;
        }
        let len = n.length();
        if !(len > 0.0) || !len.is_finite() {
            continue;
        }
        if allowance.is_nan() {
            allowance = 64.0 * f64::EPSILON * max_abs(a).max(max_abs(b));
        }
        best = best.max(gap(n / len) - allowance);
        if best > threshold {
            break;
        }
    }
    best
}
