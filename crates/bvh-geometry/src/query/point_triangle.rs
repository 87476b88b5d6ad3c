//! Point–triangle closest point.

use glam::DVec3;

use super::face::Face;
use super::{any_nan, closest_point_segment};

pub(crate) fn closest_point_face(p: DVec3, f: &Face) -> DVec3 {
    if f.regular && f.inside(p) {
        return f.project(p).0;
    }
    let v = f.v;
    let mut best = closest_point_segment(p, v[0], v[1]);
    let mut best_d = (p - best).length_squared();
    for (a, b) in [(v[1], v[2]), (v[2], v[0])] {
        let q = closest_point_segment(p, a, b);
        let d = (p - q).length_squared();
        if d < best_d {
            (best, best_d) = (q, d);
        }
    }
    best
}

/// The point of the triangle closest to `p` (NaN coordinates for NaN input).
///
/// # Method and accuracy
///
/// If the point projects inside a (regular) triangle, the projection is the
/// answer; otherwise the closest point lies on an edge, and the nearest of
/// the three edge candidates is taken.
///
/// **Degenerate and sliver triangles.** The plane of a triangle with height
/// `h` over its longest edge `L` is known to about `ε L / h` radians (its
/// normal is the cross product of the two shorter edges, the best
/// conditioned choice), so a projection is off by up to about `ε L² / h`.
/// Below `h = 1e-8 L` the face is not used and the closest point is taken
/// on the edges, which is exact for exactly degenerate triangles (a point,
/// a segment) and within `h` otherwise (every point of a triangle lies within
/// its height of its longest edge). Either way a sliver costs at most about
/// `1e-8 L`; well-shaped triangles are exact to a few ulps of the
/// coordinate scale.
///
/// ```
/// use armature_bvh_geometry::query::closest_point_triangle;
/// use glam::DVec3;
/// let tri = [DVec3::ZERO, DVec3::X, DVec3::Y];
/// assert_eq!(closest_point_triangle(DVec3::new(0.25, 0.25, 3.0), &tri), DVec3::new(0.25, 0.25, 0.0));
/// assert_eq!(closest_point_triangle(DVec3::new(2.0, -1.0, 0.0), &tri), DVec3::X);
/// ```
#[must_use]
pub fn closest_point_triangle(p: DVec3, triangle: &[DVec3; 3]) -> DVec3 {
    if any_nan(&[p, triangle[0], triangle[1], triangle[2]]) {
        return DVec3::NAN;
    }
    closest_point_face(p, &Face::new(triangle))
}

/// Distance from `p` to the triangle (NaN for NaN input).
#[must_use]
pub fn distance_point_triangle(p: DVec3, triangle: &[DVec3; 3]) -> f64 {
    (p - closest_point_triangle(p, triangle)).length()
}
