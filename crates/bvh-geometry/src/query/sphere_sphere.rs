//! Sphere–sphere distance.

use super::nonnegative;
use crate::bv::Sphere;

/// Distance between two balls: `max(0, |c_a − c_b| − r_a − r_b)`, exact up to
/// rounding. NaN input gives NaN.
#[must_use]
pub fn distance_sphere_sphere(a: &Sphere, b: &Sphere) -> f64 {
    nonnegative((a.center - b.center).length() - a.radius - b.radius)
}
