//! Capsule–triangle (LSS–triangle) distance.

use glam::DVec3;

use super::{distance_segment_triangle, nonnegative};
use crate::bv::Lss;

/// Distance between a capsule and a triangle: segment–triangle distance of
/// the axis minus the radius, clamped at 0 (see
/// [`super::closest_points_segment_triangle`]). NaN input gives NaN.
#[must_use]
pub fn distance_capsule_triangle(c: &Lss, triangle: &[DVec3; 3]) -> f64 {
    nonnegative(distance_segment_triangle(c.a, c.b, triangle) - c.radius)
}
