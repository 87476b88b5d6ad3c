//! OBB–OBB overlap by the separating axis theorem (Gottschalk et al. 1996).

use crate::bv::Obb;
use glam::DVec3;
use wide::f64x2;

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
    meet_within(a, b, 0.0)
}

/// Whether two oriented boxes may come within `distance` (`≥ 0`) of each
/// other: `false` only when every point of one is more than `distance`
/// from every point of the other. [`overlap_obb_obb`]'s test with
/// `distance` added to the gap each axis must exceed, so it is
/// conservative in the same ways, and `within_obb_obb(a, b, 0.0) ==
/// overlap_obb_obb(a, b)`. A negative or NaN distance counts as 0.
///
/// **Why it holds.** On a face axis (a unit vector) a gap above `distance`
/// is a separation of the boxes' projections by more than `distance`. An
/// edge axis `uᵢ × vⱼ` has length `sin θ ≤ 1`, so a gap above `distance`
/// along it is a separation above `distance / sin θ ≥ distance` along its
/// unit vector. Points of the two boxes are at least as far apart as
/// their projections on any unit axis.
///
/// Cheaper than a distance bound where only "farther than `distance`?"
/// is asked, and tighter than growing one box by `distance` along its
/// axes (which adds up to `√3 · distance` on a skew axis).
///
/// ```
/// use armature_bvh_geometry::bv::Obb;
/// use armature_bvh_geometry::query::{overlap_obb_obb, within_obb_obb};
/// use glam::{DMat3, DVec3};
/// let a = Obb::new(DVec3::ZERO, DMat3::IDENTITY, DVec3::ONE);
/// // 0.5 apart along x.
/// let b = Obb::new(DVec3::new(2.5, 0.0, 0.0), DMat3::IDENTITY, DVec3::ONE);
/// assert!(!overlap_obb_obb(&a, &b));
/// assert!(!within_obb_obb(&a, &b, 0.4));
/// assert!(within_obb_obb(&a, &b, 0.6));
/// ```
#[must_use]
pub fn within_obb_obb(a: &Obb, b: &Obb, distance: f64) -> bool {
    meet_within(a, b, if distance > 0.0 { distance } else { 0.0 })
}

/// The SAT of [`overlap_obb_obb`] with `extra` (`≥ 0`) added to the
/// margin every axis' gap must exceed: `false` when one axis separates the
/// boxes by more than that, `true` (they may meet within it) otherwise.
#[inline]
fn meet_within(a: &Obb, b: &Obb, extra: f64) -> bool {
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
    let margin = OBB_SAT_MARGIN * scale + extra;
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

/// [`overlap_obb_obb`] of two pairs at once, `[overlap(a[0], b[0]),
/// overlap(a[1], b[1])]`: each lane of two-lane registers computes exactly
/// the quantities of the one-pair test (the same expressions on the same
/// inputs, IEEE operations lane by lane), so the answers are the one-pair
/// test's, NaN included. The descent of [`super::collide`] tests the two
/// children of a split this way; the pair costs about 1.5 one-pair tests.
///
/// ```
/// use armature_bvh_geometry::{bv::Obb, query::{overlap_obb_obb, overlap_obb_obb_pair}};
/// use glam::{DMat3, DVec3};
/// let a = Obb::new(DVec3::ZERO, DMat3::IDENTITY, DVec3::ONE);
/// let near = Obb::new(DVec3::new(2.3, 0.0, 0.0), DMat3::from_rotation_z(0.785), DVec3::ONE);
/// let far = Obb::new(DVec3::new(2.5, 0.0, 0.0), DMat3::IDENTITY, DVec3::splat(0.4));
/// assert_eq!(overlap_obb_obb_pair([&a, &a], [&near, &far]), [true, false]);
/// assert_eq!(overlap_obb_obb_pair([&a, &far], [&far, &near]), [overlap_obb_obb(&a, &far), overlap_obb_obb(&far, &near)]);
/// ```
#[must_use]
pub fn overlap_obb_obb_pair(a: [&Obb; 2], b: [&Obb; 2]) -> [bool; 2] {
    meet_within_pair(a, b, 0.0)
}

/// [`within_obb_obb`] of two pairs at once, `[within(a[0], b[0]), within(a[1],
/// b[1])]`, at the same `distance`: the lanes compute the one-pair test's
/// quantities as [`overlap_obb_obb_pair`] does, so the answers are the
/// one-pair test's.
///
/// ```
/// use armature_bvh_geometry::bv::Obb;
/// use armature_bvh_geometry::query::{within_obb_obb, within_obb_obb_pair};
/// use glam::{DMat3, DVec3};
/// let a = Obb::new(DVec3::ZERO, DMat3::IDENTITY, DVec3::ONE);
/// let half = Obb::new(DVec3::new(2.5, 0.0, 0.0), DMat3::IDENTITY, DVec3::ONE);
/// let far = Obb::new(DVec3::new(0.0, 5.0, 0.0), DMat3::IDENTITY, DVec3::ONE);
/// assert_eq!(within_obb_obb_pair([&a, &a], [&half, &far], 0.6), [true, false]);
/// assert_eq!(
///     within_obb_obb_pair([&a, &half], [&far, &far], 2.5),
///     [within_obb_obb(&a, &far, 2.5), within_obb_obb(&half, &far, 2.5)],
/// );
/// ```
#[must_use]
pub fn within_obb_obb_pair(a: [&Obb; 2], b: [&Obb; 2], distance: f64) -> [bool; 2] {
    meet_within_pair(a, b, if distance > 0.0 { distance } else { 0.0 })
}

/// The two-lane SAT of [`overlap_obb_obb_pair`] with `extra` (`≥ 0`) added
/// to each lane's margin, as [`meet_within`] adds it.
#[inline]
fn meet_within_pair(a: [&Obb; 2], b: [&Obb; 2], extra: f64) -> [bool; 2] {
    // A vector of each lane's box, as three two-lane coordinates.
    let lanes = |v: [DVec3; 2]| {
        [
            f64x2::new([v[0].x, v[1].x]),
            f64x2::new([v[0].y, v[1].y]),
            f64x2::new([v[0].z, v[1].z]),
        ]
    };
    let ea = lanes([a[0].half_extents, a[1].half_extents]);
    let eb = lanes([b[0].half_extents, b[1].half_extents]);
    let axis = |o: [&Obb; 2], i: usize| lanes([o[0].axes.col(i), o[1].axes.col(i)]);
    let ua = [axis(a, 0), axis(a, 1), axis(a, 2)];
    let ub = [axis(b, 0), axis(b, 1), axis(b, 2)];
    let ca = lanes([a[0].center, a[1].center]);
    let cb = lanes([b[0].center, b[1].center]);
    let d = [cb[0] - ca[0], cb[1] - ca[1], cb[2] - ca[2]];
    // The scale of each lane as the one-pair test computes it.
    let scale = |a: &Obb, b: &Obb| {
        a.center.abs().max_element()
            + b.center.abs().max_element()
            + a.half_extents.abs().element_sum()
            + b.half_extents.abs().element_sum()
    };
    let margin = f64x2::splat(OBB_SAT_MARGIN) * f64x2::new([scale(a[0], b[0]), scale(a[1], b[1])])
        + f64x2::splat(extra);
    // `DVec3::dot`: `(x x′ + y y′) + z z′`.
    let dot = |u: &[f64x2; 3], v: &[f64x2; 3]| u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    let eps = f64x2::splat(OBB_SAT_EPSILON);
    // Lanes separated so far (bit k for lane k); NaN never separates.
    let mut apart = 0u32;
    let mut test = |proj: f64x2, ra: f64x2, rb: f64x2| {
        apart |= proj.abs().simd_gt(ra + rb + margin).to_bitmask();
        apart == 0b11
    };
    // Row by row, each just before the face axis that needs it.
    let row = |i: usize| {
        let r = [
            dot(&ua[i], &ub[0]),
            dot(&ua[i], &ub[1]),
            dot(&ua[i], &ub[2]),
        ];
        (r, [r[0].abs() + eps, r[1].abs() + eps, r[2].abs() + eps])
    };
    let (r0, q0) = row(0);
    let t0 = dot(&d, &ua[0]);
    if test(t0, ea[0], eb[0] * q0[0] + eb[1] * q0[1] + eb[2] * q0[2]) {
        return [false; 2];
    }
    let (r1, q1) = row(1);
    let t1 = dot(&d, &ua[1]);
    if test(t1, ea[1], eb[0] * q1[0] + eb[1] * q1[1] + eb[2] * q1[2]) {
        return [false; 2];
    }
    let (r2, q2) = row(2);
    let t2 = dot(&d, &ua[2]);
    if test(t2, ea[2], eb[0] * q2[0] + eb[1] * q2[1] + eb[2] * q2[2]) {
        return [false; 2];
    }
    let (r, q, t) = ([r0, r1, r2], [q0, q1, q2], [t0, t1, t2]);
    for j in 0..3 {
        let ra = ea[0] * q[0][j] + ea[1] * q[1][j] + ea[2] * q[2][j];
        let proj = t[0] * r[0][j] + t[1] * r[1][j] + t[2] * r[2][j];
        if test(proj, ra, eb[j]) {
            return [false; 2];
        }
    }
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        for j in 0..3 {
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            let ra = ea[i1] * q[i2][j] + ea[i2] * q[i1][j];
            let rb = eb[j1] * q[i][j2] + eb[j2] * q[i][j1];
            let proj = t[i2] * r[i1][j] - t[i1] * r[i2][j];
            if test(proj, ra, rb) {
                return [false; 2];
            }
        }
    }
    [apart & 1 == 0, apart & 2 == 0]
}
