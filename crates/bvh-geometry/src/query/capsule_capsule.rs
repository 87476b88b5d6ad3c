//! Capsule–capsule (LSS–LSS) distance.

use super::{distance_segment_segment, nonnegative};
use crate::bv::Lss;

/// Distance between two capsules: segment–segment distance of their axes
/// minus both radii, clamped at 0 (see
/// [`super::closest_points_segment_segment`]). NaN input gives NaN.
#[must_use]
pub fn distance_capsule_capsule(a: &Lss, b: &Lss) -> f64 {
    nonnegative(distance_segment_segment(a.a, a.b, b.a, b.b) - a.radius - b.radius)
}
