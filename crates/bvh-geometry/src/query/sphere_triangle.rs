//! Sphere–triangle distance.

use glam::DVec3;

use super::{distance_point_triangle, nonnegative};
use crate::bv::Sphere;

/// Distance between a ball and a triangle: point–triangle distance of the
/// centre minus the radius, clamped at 0 (see
/// [`super::closest_point_triangle`]). NaN input gives NaN.
#[must_use]
pub fn distance_sphere_triangle(s: &Sphere, triangle: &[DVec3; 3]) -> f64 {
    nonnegative(distance_point_triangle(s.center, triangle) - s.radius)
}
