//! Triangle–triangle distance with closest points (PQP style).
//!
//! For two disjoint triangles a closest pair is realised by one of the 15
//! feature pairs of PQP's `TriDist` (Larsen et al. 1999): the 9 edge–edge
//! pairs (segment–segment closest points) and the 6 vertex–face pairs (a
//! vertex whose projection falls inside the other triangle). Intersecting
//! triangles have distance 0 although none of those 15 may be 0 (an edge
//! passing through the other's interior), so the 6 edge–face crossings are
//! tested too; a crossing point is returned as both witnesses.
//!
//! Every candidate is a pair of points on the two triangles (up to
//! rounding), so the result never underestimates the distance by more than
//! rounding; it is exact up to rounding (a few ulps of the coordinate
//! scale) for regular triangles. A degenerate or sliver triangle (height
//! below `1e-8` of its longest edge) contributes its edges only, which is
//! exact for exactly degenerate triangles and within the sliver's height
//! otherwise (see [`super::closest_point_triangle`]).

use glam::DVec3;

use super::face::Face;
use super::segment_segment::{lerp_exact, segment_params};
use super::{ClosestPoints, any_nan, max_abs};

/// Closest points, distance, and an estimate of how much the true distance
/// may be *below* the computed one (rounding, the conditioning of the faces'
/// normals, and the heights of irregular triangles whose faces were
/// skipped). The intersection test uses the estimate to stay conservative.
pub(crate) fn triangle_faces(fa: &Face, fb: &Face) -> (ClosestPoints, f64) {
    let (a, b) = (&fa.v, &fb.v);
    let mut best2 = f64::INFINITY;
    let mut pa = a[0];
    let mut pb = b[0];
    for i in 0..3 {
        let (a0, a1) = (a[i], a[(i + 1) % 3]);
        for j in 0..3 {
            let (b0, b1) = (b[j], b[(j + 1) % 3]);
            let (s, t) = segment_params(a0, a1, b0, b1);
            let (x, y) = (lerp_exact(a0, a1, s), lerp_exact(b0, b1, t));
            let d2 = (x - y).length_squared();
            if d2 < best2 {
                (best2, pa, pb) = (d2, x, y);
            }
        }
    }
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
    let distance = best2.sqrt();
    let scale = max_abs(a).max(max_abs(b));
    let mut err = 32.0 * f64::EPSILON * scale;
    for f in [fa, fb] {
        err += if f.regular {
            f.err_dir * (distance + fa.lmax + fb.lmax)
        } else {
            f.height
        };
    }
    (
        ClosestPoints {
            distance,
            point_a: pa,
            point_b: pb,
        },
        err,
    )
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
/// intersect). See the module docs for the method and its accuracy. NaN
/// input gives NaN distance and points.
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
    triangle_faces(&Face::new(a), &Face::new(b)).0
}

/// Distance between two triangles (0 when they intersect; NaN for NaN
/// input). See [`closest_points_triangle_triangle`].
#[must_use]
pub fn distance_triangle_triangle(a: &[DVec3; 3], b: &[DVec3; 3]) -> f64 {
    closest_points_triangle_triangle(a, b).distance
}
