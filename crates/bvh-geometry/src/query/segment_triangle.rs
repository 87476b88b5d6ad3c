//! Segment–triangle closest points.

use glam::DVec3;

use super::face::Face;
use super::segment_segment::{Edge, edge_params};
use super::triangle_triangle::beyond;
use super::{ClosestPoints, any_nan, max_abs};

pub(crate) fn segment_face(p0: DVec3, p1: DVec3, f: &Face) -> ClosestPoints {
    let v = f.v;
    let mut best = ClosestPoints {
        distance: f64::INFINITY,
        point_a: p0,
        point_b: v[0],
    };
    let mut best2 = f64::INFINITY;
    let seg = Edge::new(p0, p1);
    let scale = max_abs(&v).max(max_abs(&[p0, p1]));
    for i in 0..3 {
        let edge = Edge::new(v[i], v[(i + 1) % 3]);
        let (s, t) = edge_params(&seg, &edge);
        let (x, y) = (seg.at(s), edge.at(t));
        // Separating-slab early exit (see the triangle distance): the third
        // vertex on the far side of the slab normal to y − x.
        if beyond(v[(i + 2) % 3] - y, y - x, scale) {
            return ClosestPoints {
                distance: (y - x).length(),
                point_a: x,
                point_b: y,
            };
        }
        let d2 = (x - y).length_squared();
        if d2 < best2 {
            best2 = d2;
            (best.point_a, best.point_b) = (x, y);
        }
    }
    if f.regular && best2 > 0.0 {
        if let Some(x) = f.pierce(p0, p1) {
            return ClosestPoints {
                distance: 0.0,
                point_a: x,
                point_b: x,
            };
        }
        for p in [p0, p1] {
            if f.inside(p) {
                let (q, sd) = f.project(p);
                if sd * sd < best2 {
                    best2 = sd * sd;
                    (best.point_a, best.point_b) = (p, q);
                }
            }
        }
    }
    best.distance = best2.sqrt();
    best
}

/// Closest points of the segment `p0`–`p1` (`point_a`) and the triangle
/// (`point_b`). When the segment pierces the triangle the distance is 0 and
/// both points are the crossing point. NaN input gives NaN distance and
/// points.
///
/// # Method
///
/// The closest pair between a segment and a triangle is one of: the
/// segment against one of the three edges (segment–segment), an end point
/// against the face's interior (projection), or, when the segment pierces
/// the triangle, the crossing point (distance 0). Degenerate triangles use
/// their edges only (see [`super::closest_point_triangle`]).
#[must_use]
pub fn closest_points_segment_triangle(
    p0: DVec3,
    p1: DVec3,
    triangle: &[DVec3; 3],
) -> ClosestPoints {
    if any_nan(&[p0, p1, triangle[0], triangle[1], triangle[2]]) {
        return ClosestPoints::NAN;
    }
    segment_face(p0, p1, &Face::new(triangle))
}

/// Distance between the segment `p0`–`p1` and the triangle (NaN for NaN
/// input).
#[must_use]
pub fn distance_segment_triangle(p0: DVec3, p1: DVec3, triangle: &[DVec3; 3]) -> f64 {
    closest_points_segment_triangle(p0, p1, triangle).distance
}
