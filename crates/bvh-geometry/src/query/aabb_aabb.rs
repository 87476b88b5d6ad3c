//! AABB–AABB overlap and distance.

use crate::bv::Aabb;

/// Whether two boxes share a point (touching counts). Exact: no rounding
/// is involved. An empty box overlaps nothing. A NaN coordinate never
/// separates (conservative): boxes are reported disjoint only on the
/// evidence of an axis without NaN.
#[must_use]
pub fn overlap_aabb_aabb(a: &Aabb, b: &Aabb) -> bool {
    // Written as "not separated on any axis" so that NaN never separates.
    !(a.min.cmpgt(b.max).any() || b.min.cmpgt(a.max).any())
}

/// Euclidean distance between two boxes (0 when they overlap). The
/// per-axis gaps are exact; only the final square root rounds. NaN input
/// gives NaN; empty boxes give +∞.
#[must_use]
pub fn distance_aabb_aabb(a: &Aabb, b: &Aabb) -> f64 {
    let g1 = a.min - b.max;
    let g2 = b.min - a.max;
    if g1.is_nan() || g2.is_nan() {
        return f64::NAN;
    }
    g1.max(g2).max(glam::DVec3::ZERO).length()
}
