//! OBB–OBB overlap by the separating axis theorem (Gottschalk et al. 1996).

use crate::bv::Obb;

/// Added to each `|Rᵢⱼ|` (a rotation entry, so absolute) in the SAT.
pub const OBB_SAT_EPSILON: f64 = 1e-12;

/// Relative margin an axis' gap must exceed to separate, times the
/// coordinate scale `|c_a|_∞ + |c_b|_∞ + Σ e_a + Σ e_b`.
pub const OBB_SAT_MARGIN: f64 = 1e-12;

/// Whether two oriented boxes overlap (touching counts), conservatively
/// (see below). Both boxes must have orthonormal axes (see [`Obb`]).
///
/// # Conservative tolerance
///
/// Two boxes are disjoint iff their projections are disjoint on one of 15
/// axes: the 3 + 3 face normals and the 9 cross products of an edge of each.
/// The test is made **conservative** (it never reports "separated" for
/// boxes that overlap or touch) in two ways:
///
/// - [`OBB_SAT_EPSILON`] is added to every `|Rᵢⱼ|` of the relative rotation
///   (Ericson 2005, §4.4.1): for nearly parallel edges the cross-product
///   axis degenerates to a rounding-noise vector, on which both sides of the
///   test are noise; the epsilon makes the projected radii dominate;
/// - an axis separates only if the gap exceeds a relative margin of
///   [`OBB_SAT_MARGIN`] × (the boxes' coordinate scale: centre magnitudes
///   plus extents), far above the rounding of the projections (a few ulps).
///
/// So the boxes are in effect inflated by about `1e-12` of the coordinate
/// scale: boxes closer than that may be reported as overlapping. NaN input
/// is reported as overlapping.
///
/// ```
/// use armature_bvh_geometry::{bv::Obb, query::overlap_obb_obb};
/// use glam::{DMat3, DVec3};
/// let a = Obb::new(DVec3::ZERO, DMat3::IDENTITY, DVec3::ONE);
/// let b = Obb::new(DVec3::new(2.3, 0.0, 0.0), DMat3::from_rotation_z(0.785), DVec3::ONE);
/// assert!(overlap_obb_obb(&a, &b)); // the corner of b reaches x = 2.3 − √2 < 1
/// let c = Obb::new(DVec3::new(2.5, 0.0, 0.0), DMat3::IDENTITY, DVec3::splat(0.4));
/// assert!(!overlap_obb_obb(&a, &c));
/// ```
#[must_use]
pub fn overlap_obb_obb(a: &Obb, b: &Obb) -> bool {
    let ea = a.half_extents.to_array();
    let eb = b.half_extents.to_array();
    let ua = [a.axes.x_axis, a.axes.y_axis, a.axes.z_axis];
    let ub = [b.axes.x_axis, b.axes.y_axis, b.axes.z_axis];
    let mut r = [[0.0; 3]; 3];
    let mut ar = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            r[i][j] = ua[i].dot(ub[j]);
            ar[i][j] = r[i][j].abs() + OBB_SAT_EPSILON;
        }
    }
    let d = b.center - a.center;
    let t = [d.dot(ua[0]), d.dot(ua[1]), d.dot(ua[2])];
    let scale = a.center.abs().max_element()
        + b.center.abs().max_element()
        + a.half_extents.abs().element_sum()
        + b.half_extents.abs().element_sum();
    let margin = OBB_SAT_MARGIN * scale;
    // `gap > radii + margin` is false for NaN, so NaN never separates.
    let separates = |proj: f64, ra: f64, rb: f64| proj.abs() > ra + rb + margin;

    for i in 0..3 {
        let rb = eb[0] * ar[i][0] + eb[1] * ar[i][1] + eb[2] * ar[i][2];
        if separates(t[i], ea[i], rb) {
            return false;
        }
    }
    for j in 0..3 {
        let ra = ea[0] * ar[0][j] + ea[1] * ar[1][j] + ea[2] * ar[2][j];
        let proj = t[0] * r[0][j] + t[1] * r[1][j] + t[2] * r[2][j];
        if separates(proj, ra, eb[j]) {
            return false;
        }
    }
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        for j in 0..3 {
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            let ra = ea[i1] * ar[i2][j] + ea[i2] * ar[i1][j];
            let rb = eb[j1] * ar[i][j2] + eb[j2] * ar[i][j1];
            let proj = t[i2] * r[i1][j] - t[i1] * r[i2][j];
            if separates(proj, ra, rb) {
                return false;
            }
        }
    }
    true
}
