//! Point–segment closest point.

use glam::DVec3;

use super::clamp01;

/// The point of the segment `a`–`b` closest to `p`. A zero-length segment
/// gives `a`; a parameter clamped to an end gives that end point exactly.
/// NaN input gives NaN coordinates (never a panic).
#[inline]
#[must_use]
pub fn closest_point_segment(p: DVec3, a: DVec3, b: DVec3) -> DVec3 {
    let d = b - a;
    let dd = d.length_squared();
    if !(dd > 0.0) {
        return if dd == 0.0 { a } else { DVec3::NAN };
    }
    let t = (p - a).dot(d) / dd;
    if t.is_nan() {
        DVec3::NAN
    } else if t >= 1.0 {
        b
    } else {
        a + d * clamp01(t)
    }
}

/// Distance from `p` to the segment `a`–`b` (NaN for NaN input).
#[inline]
#[must_use]
pub fn distance_point_segment(p: DVec3, a: DVec3, b: DVec3) -> f64 {
    (p - closest_point_segment(p, a, b)).length()
}
