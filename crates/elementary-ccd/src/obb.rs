//! The continuous OBB/OBB test (M1 §5.1, §5.1.1).
//!
//! Two boxes fixed in two moving frames overlap at some time of an
//! interval only if, for every one of the 15 separating axes of the
//! discrete test, the separating inequality (M1 eq. 12) fails for some
//! relative pose the frames take over that interval. The relative pose is
//! bounded once per pair of frames and time interval ([`RelativePose`],
//! from the interval enclosures of the link poses), in midpoint–radius
//! form, so that one box test costs a few dozen floating-point products:
//! both members of eq. 12 are bounded from the midpoint matrix and the
//! radius matrix, and the axis separates when the lower bound of the left
//! member exceeds the upper bound of the right one.

use armature_bvh_geometry::bv::Obb;

use crate::mr::{abs_mat, mat_mid_rad, vec_mid_rad};
use armature_interval_taylor::IntervalAffine3;
use glam::{DMat3, DVec3};

/// Relative rounding allowance of the few products a test makes (far
/// above their worst error, `≈ 10 ε` of the magnitudes involved).
const ROUNDING: f64 = 1e-13;

/// An enclosure of the rigid maps taking frame `b`'s coordinates to frame
/// `a`'s over a time interval, as midpoint ± radius, entry by entry:
/// `x ↦ R x + T` with `R ∈ rotation ± rotation_radius` and
/// `T ∈ translation ± translation_radius`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RelativePose {
    /// Midpoint of the rotation's enclosure.
    rotation: DMat3,
    /// Radius of the rotation's enclosure, entry by entry (`≥ 0`).
    rotation_radius: DMat3,
    /// Midpoint of the translation's enclosure.
    translation: DVec3,
    /// Radius of the translation's enclosure (`≥ 0`).
    translation_radius: DVec3,
    /// Whether every entry is finite (else every box test answers
    /// "may overlap").
    finite: bool,
}

impl RelativePose {
    /// The relative pose `a⁻¹ ∘ b` of two frames whose world poses lie in
    /// the enclosures `a` and `b` (rigid maps, so `a⁻¹ = (Rᵀ, −Rᵀ T)`),
    /// in midpoint–radius arithmetic: for `X ∈ Xm ± Xr`, `Y ∈ Ym ± Yr`,
    /// `XᵀY ∈ XmᵀYm ± (|Xm|ᵀYr + Xrᵀ|Ym| + XrᵀYr)`, plus a rounding
    /// allowance far above the error of these few products.
    #[must_use]
    pub fn between(a: &IntervalAffine3, b: &IntervalAffine3) -> Self {
        Self::from_interval(a).inverse_then(&Self::from_interval(b))
    }

    /// `self⁻¹ ∘ b` for two enclosures of world poses in midpoint–radius
    /// form (as [`RelativePose::between`], without the conversions).
    #[must_use]
    pub fn inverse_then(&self, b: &Self) -> Self {
        let a = self;
        let at = a.rotation.transpose();
        let at_abs = abs_mat(&a.rotation).transpose();
        let ar_t = a.rotation_radius.transpose();
        let rotation = at * b.rotation;
        let rotation_radius =
            at_abs * b.rotation_radius + ar_t * abs_mat(&b.rotation) + ar_t * b.rotation_radius;
        let size = at_abs * abs_mat(&b.rotation);
        let rotation_radius = add_rounding(rotation_radius, &size);
        let d = b.translation - a.translation;
        let dr = b.translation_radius + a.translation_radius;
        let dm_abs = d.abs() + b.translation.abs() + a.translation.abs();
        let translation = at * d;
        let translation_radius = at_abs * dr + ar_t * d.abs() + ar_t * dr;
        let translation_radius = (translation_radius + at_abs * dm_abs * ROUNDING)
            * (1.0 + ROUNDING)
            + DVec3::splat(f64::MIN_POSITIVE);
        Self::new(rotation, rotation_radius, translation, translation_radius)
    }

    fn new(
        rotation: DMat3,
        rotation_radius: DMat3,
        translation: DVec3,
        translation_radius: DVec3,
    ) -> Self {
        let finite = rotation.is_finite()
            && rotation_radius.is_finite()
            && translation.is_finite()
            && translation_radius.is_finite();
        Self {
            rotation,
            rotation_radius,
            translation,
            translation_radius,
            finite,
        }
    }

    /// The enclosure of `self ∘ b` (apply `b` first): for
    /// `X ∈ Xm ± Xr`, `Y ∈ Ym ± Yr`,
    /// `XY ∈ XmYm ± (|Xm|Yr + Xr|Ym| + XrYr)`, plus the rounding allowance.
    #[must_use]
    pub fn then(&self, b: &Self) -> Self {
        let a_abs = abs_mat(&self.rotation);
        let b_abs = abs_mat(&b.rotation);
        let rotation = self.rotation * b.rotation;
        let rotation_radius = a_abs * b.rotation_radius
            + self.rotation_radius * b_abs
            + self.rotation_radius * b.rotation_radius;
        let rotation_radius = add_rounding(rotation_radius, &(a_abs * b_abs));
        let translation = self.rotation * b.translation + self.translation;
        let size = a_abs * b.translation.abs() + self.translation.abs();
        let translation_radius = a_abs * b.translation_radius
            + self.rotation_radius * b.translation.abs()
            + self.rotation_radius * b.translation_radius
            + self.translation_radius;
        let translation_radius = (translation_radius + size * ROUNDING) * (1.0 + ROUNDING)
            + DVec3::splat(f64::MIN_POSITIVE);
        Self::new(rotation, rotation_radius, translation, translation_radius)
    }

    /// The enclosure of a link's local motion over `[t0, t1]`:
    /// `R(t) = Rot(k, ωt) R₀`, `T(t) = T₀ + v t`. With `θ_m` the middle
    /// angle and `h = |ω| (t1 − t0) / 2`, `Rot(k, θ_m + δ) =
    /// Rot(k, θ_m)(I + sin δ K + (1 − cos δ) K²)` for `|δ| ≤ h`, so each
    /// entry of `R(t)` lies within `h |Rot(k, θ_m) K R₀| + h²/2
    /// |Rot(k, θ_m) K² R₀|` of `Rot(k, θ_m) R₀` (`K` the cross-product
    /// matrix of the unit axis `k`); a second-order bound, far cheaper than
    /// `sin`/`cos` of intervals. The allowance covers the rounding and an
    /// axis off unit length by a few ulps.
    #[must_use]
    pub fn local_motion(m: &armature_kinematics::LocalMotion, t0: f64, t1: f64) -> Self {
        let tm = 0.5 * (t0 + t1);
        let ht = 0.5 * (t1 - t0);
        let h = m.omega.abs() * ht;
        let rm = DMat3::from_axis_angle(m.axis, m.omega * tm);
        let k = DMat3::from_cols(
            DVec3::new(0.0, m.axis.z, -m.axis.y),
            DVec3::new(-m.axis.z, 0.0, m.axis.x),
            DVec3::new(m.axis.y, -m.axis.x, 0.0),
        );
        let rotation = rm * m.rot0;
        let first = abs_mat(&(rm * k * m.rot0));
        let second = abs_mat(&(rm * k * k * m.rot0));
        let size = abs_mat(&rm) * abs_mat(&m.rot0);
        let rotation_radius = add_rounding(first * h + second * (0.5 * h * h), &size);
        // Axis length off 1 by a few ulps moves entries by about as much.
        let rotation_radius = rotation_radius
            + DMat3::from_cols(
                DVec3::splat(1e-12),
                DVec3::splat(1e-12),
                DVec3::splat(1e-12),
            );
        let translation = m.trans0 + m.velocity * tm;
        let translation_radius = (m.velocity.abs() * ht
            + (m.trans0.abs() + m.velocity.abs()) * ROUNDING)
            * (1.0 + ROUNDING)
            + DVec3::splat(f64::MIN_POSITIVE);
        Self::new(rotation, rotation_radius, translation, translation_radius)
    }

    /// The enclosure of the time derivative of a local motion over
    /// `[t0, t1]` (`R'(t) = ω K R(t)`, `T'(t) = v`), from the pose's own
    /// enclosure `pose` ([`RelativePose::local_motion`]).
    #[must_use]
    pub fn local_rate(m: &armature_kinematics::LocalMotion, pose: &Self) -> Self {
        let k = DMat3::from_cols(
            DVec3::new(0.0, m.axis.z, -m.axis.y),
            DVec3::new(-m.axis.z, 0.0, m.axis.x),
            DVec3::new(m.axis.y, -m.axis.x, 0.0),
        ) * m.omega;
        let k_abs = abs_mat(&k);
        let rotation = k * pose.rotation;
        let rotation_radius = add_rounding(
            k_abs * pose.rotation_radius,
            &(k_abs * abs_mat(&pose.rotation)),
        ) + DMat3::from_cols(
            DVec3::splat(1e-12 * m.omega.abs()),
            DVec3::splat(1e-12 * m.omega.abs()),
            DVec3::splat(1e-12 * m.omega.abs()),
        );
        Self::new(rotation, rotation_radius, m.velocity, DVec3::ZERO)
    }

    /// The derivative of `self ∘ b` from the derivatives `d_self` and
    /// `d_b` of both (`R' = R_a' R_b + R_a R_b'`,
    /// `T' = R_a' T_b + R_a T_b' + T_a'`).
    #[must_use]
    pub fn then_rate(&self, d_self: &Self, b: &Self, d_b: &Self) -> Self {
        // The rotation-like parts compose as poses do; the translations
        // add `T_a'` once.
        let x = d_self.linear_then(b);
        let y = self.linear_then(d_b);
        let translation = x.translation + y.translation + d_self.translation;
        let translation_radius =
            ((x.translation_radius + y.translation_radius + d_self.translation_radius)
                + translation.abs() * ROUNDING)
                * (1.0 + ROUNDING);
        let rotation = x.rotation + y.rotation;
        let rotation_radius = add_rounding(
            x.rotation_radius + y.rotation_radius,
            &(abs_mat(&x.rotation) + abs_mat(&y.rotation)),
        );
        Self::new(rotation, rotation_radius, translation, translation_radius)
    }

    /// `(A B, A t_b)` for `self = (A, ·)` and `b = (B, t_b)`: the linear
    /// part of [`RelativePose::then`], without `self`'s translation.
    fn linear_then(&self, b: &Self) -> Self {
        let no_shift = Self::new(
            self.rotation,
            self.rotation_radius,
            DVec3::ZERO,
            DVec3::ZERO,
        );
        no_shift.then(b)
    }

    /// The midpoint–radius affine map of the solver.
    pub(crate) fn to_mr(self) -> crate::mr::MrAffine {
        crate::mr::MrAffine::new(
            self.rotation,
            self.rotation_radius,
            self.translation,
            self.translation_radius,
        )
    }

    /// An enclosure of both enclosures' poses (entry by entry, rounded
    /// outward).
    #[must_use]
    pub fn hull(&self, b: &Self) -> Self {
        let hull = |m1: DVec3, r1: DVec3, m2: DVec3, r2: DVec3| {
            let lo = (m1 - r1).min(m2 - r2);
            let hi = (m1 + r1).max(m2 + r2);
            let m = (lo + hi) * 0.5;
            let r = ((hi - m).max(m - lo) + (hi.abs() + lo.abs()) * ROUNDING) * (1.0 + ROUNDING);
            (m, r)
        };
        let col = |j: usize| {
            hull(
                self.rotation.col(j),
                self.rotation_radius.col(j),
                b.rotation.col(j),
                b.rotation_radius.col(j),
            )
        };
        let (x, y, z) = (col(0), col(1), col(2));
        let (t, tr) = hull(
            self.translation,
            self.translation_radius,
            b.translation,
            b.translation_radius,
        );
        Self::new(
            DMat3::from_cols(x.0, y.0, z.0),
            DMat3::from_cols(x.1, y.1, z.1),
            t,
            tr,
        )
    }

    /// Midpoint of the rotation's enclosure.
    #[must_use]
    pub const fn rotation(&self) -> &DMat3 {
        &self.rotation
    }

    /// Radius of the rotation's enclosure, entry by entry.
    #[must_use]
    pub const fn rotation_radius(&self) -> &DMat3 {
        &self.rotation_radius
    }

    /// Midpoint of the translation's enclosure.
    #[must_use]
    pub const fn translation(&self) -> DVec3 {
        self.translation
    }

    /// Radius of the translation's enclosure.
    #[must_use]
    pub const fn translation_radius(&self) -> DVec3 {
        self.translation_radius
    }

    /// The midpoint–radius form of an interval transform.
    #[must_use]
    pub fn from_interval(x: &IntervalAffine3) -> Self {
        let (rotation, rotation_radius) = mat_mid_rad(&x.rotation);
        let (translation, translation_radius) = vec_mid_rad(&x.translation);
        Self::new(rotation, rotation_radius, translation, translation_radius)
    }

    /// Whether every entry is finite.
    #[must_use]
    pub const fn is_finite(&self) -> bool {
        self.finite
    }
}

/// `r` widened by the rounding allowance of products of magnitude `size`.
fn add_rounding(r: DMat3, size: &DMat3) -> DMat3 {
    let tiny = DVec3::splat(f64::MIN_POSITIVE);
    let col = |r: DVec3, s: DVec3| (r + s * ROUNDING) * (1.0 + ROUNDING) + tiny;
    DMat3::from_cols(
        col(r.x_axis, size.x_axis),
        col(r.y_axis, size.y_axis),
        col(r.z_axis, size.z_axis),
    )
}

/// Entry `(row, col)`.
#[cfg(test)]
fn at(m: &DMat3, row: usize, col: usize) -> f64 {
    m.col(col)[row]
}

/// Whether box `a` (fixed in frame `a`) and box `b` (fixed in frame `b`)
/// may come within `separation` of each other for some relative pose in
/// `x` (frame `b` to frame `a`): `false` proves that one of the 15 axes of
/// the separating-axis test separates them, by more than `separation`,
/// for every pose of the enclosure (M1 eq. 12 bounded with intervals).
///
/// Sound for boxes whose axes are orthonormal to within rounding (the
/// invariant of [`Obb`]); a non-finite pose answers `true`.
#[must_use]
pub fn obb_overlap(a: &Obb, b: &Obb, x: &RelativePose, separation: f64) -> bool {
    obb_overlap_placed(a, &x.place(b), separation)
}

/// A box of frame `b` placed in frame `a` by a [`RelativePose`]: its axes
/// and centre as midpoint ± radius ([`RelativePose::place`]). A traversal
/// places each box of one tree once and tests it against many boxes of
/// the other ([`obb_overlap_placed`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlacedObb {
    axes: DMat3,
    axes_radius: DMat3,
    center: DVec3,
    center_radius: DVec3,
    half_extents: DVec3,
    /// The magnitude of the placement's products, for rounding.
    magnitude: f64,
    finite: bool,
}

impl RelativePose {
    /// Places `b` (a box of frame `b`) in frame `a`.
    #[must_use]
    pub fn place(&self, b: &Obb) -> PlacedObb {
        let eb_abs = abs_mat(&b.axes);
        let magnitude =
            (abs_mat(&self.rotation) * b.center.abs() + self.translation.abs()).max_element();
        PlacedObb {
            axes: self.rotation * b.axes,
            axes_radius: add_rounding(
                self.rotation_radius * eb_abs,
                &(abs_mat(&self.rotation) * eb_abs),
            ),
            center: self.rotation * b.center + self.translation,
            center_radius: self.rotation_radius * b.center.abs()
                + self.translation_radius
                + DVec3::splat(ROUNDING * magnitude),
            half_extents: b.half_extents,
            magnitude,
            finite: self.finite,
        }
    }
}

/// [`obb_overlap`] for a box already placed in `a`'s frame.
#[must_use]
pub fn obb_overlap_placed(a: &Obb, b: &PlacedObb, separation: f64) -> bool {
    if !b.finite {
        return true;
    }
    let magnitude = b.magnitude + a.center.abs().max_element();
    // Centre of b relative to a's centre.
    let cb = b.center - a.center;
    let cb_rad = b.center_radius + DVec3::splat(ROUNDING * magnitude);
    // The boxes' circumscribed balls first: most pairs of a traversal
    // are far apart.
    let reach = a.half_extents.length() + b.half_extents.length() + separation;
    if cb.length() - cb_rad.length() > reach * (1.0 + ROUNDING) + ROUNDING * magnitude {
        return false;
    }
    let ha = a.half_extents;
    let hb = b.half_extents;
    let extent = ha.element_sum() + hb.element_sum();
    let slack = ROUNDING * (extent + magnitude) + separation;
    // R = Aᵀ (X B), row by row (row k: a's axis k against b's axes), as
    // midpoint and radius (each entry of an orthonormal product is at most
    // 1 in size, so an absolute rounding term does); each of a's axes is
    // tested as soon as its row is known.
    let bt = b.axes.transpose();
    let brt = b.axes_radius.transpose();
    let mut rm = [DVec3::ZERO; 3];
    let mut rr = [DVec3::ZERO; 3];
    let mut rabs = [DVec3::ZERO; 3];
    let mut c = DVec3::ZERO;
    let mut c_rad = DVec3::ZERO;
    for k in 0..3 {
        let axis = a.axes.col(k);
        rm[k] = bt * axis;
        rr[k] = brt * axis.abs() + DVec3::splat(ROUNDING);
        rabs[k] = rm[k].abs() + rr[k];
        // Centre of b in a's box frame.
        c[k] = axis.dot(cb);
        c_rad[k] = axis.abs().dot(cb_rad) + ROUNDING * magnitude;
        if c[k].abs() - c_rad[k] > ha[k] + hb.dot(rabs[k]) + slack {
            return false;
        }
    }
    let at = |m: &[DVec3; 3], row: usize, col: usize| m[row][col];
    // Axes of b.
    for j in 0..3 {
        let mut mid = 0.0;
        let mut rad = 0.0;
        let mut rhs = hb[j];
        for k in 0..3 {
            mid += c[k] * at(&rm, k, j);
            rad += c[k].abs() * at(&rr, k, j) + c_rad[k] * at(&rabs, k, j);
            rhs += ha[k] * at(&rabs, k, j);
        }
        if mid.abs() - rad > rhs + slack {
            return false;
        }
    }
    // Cross axes a_i × b_j (length at most 1, so the margin `separation`
    // is at least `separation · |a_i × b_j|`).
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        for j in 0..3 {
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            let mid = c[i2] * at(&rm, i1, j) - c[i1] * at(&rm, i2, j);
            let rad = c[i2].abs() * at(&rr, i1, j)
                + c_rad[i2] * at(&rabs, i1, j)
                + c[i1].abs() * at(&rr, i2, j)
                + c_rad[i1] * at(&rabs, i2, j);
            let rhs = ha[i1] * at(&rabs, i2, j)
                + ha[i2] * at(&rabs, i1, j)
                + hb[j1] * at(&rabs, i, j2)
                + hb[j2] * at(&rabs, i, j1);
            if mid.abs() - rad > rhs + slack {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use armature_interval_taylor::{Interval, IntervalMat3, IntervalVec3};
    use glam::DAffine3;

    fn unit_box(center: DVec3) -> Obb {
        Obb::new(center, DMat3::IDENTITY, DVec3::splat(0.5))
    }

    #[test]
    fn a_point_pose_reproduces_the_discrete_test() {
        let a = unit_box(DVec3::ZERO);
        let b = unit_box(DVec3::ZERO);
        let near = RelativePose::from_interval(&IntervalAffine3::from_daffine3(
            &DAffine3::from_translation(DVec3::new(0.99, 0.0, 0.0)),
        ));
        let far = RelativePose::from_interval(&IntervalAffine3::from_daffine3(
            &DAffine3::from_translation(DVec3::new(1.01, 0.0, 0.0)),
        ));
        assert!(obb_overlap(&a, &b, &near, 0.0));
        assert!(!obb_overlap(&a, &b, &far, 0.0));
        // The separation widens the boxes.
        assert!(obb_overlap(&a, &b, &far, 0.02));
    }

    proptest::proptest! {
        /// For a single pose the test agrees with the discrete separating
        /// axis test, away from touching.
        #[test]
        fn point_poses_agree_with_the_discrete_test(
            ca in proptest::array::uniform3(-2f64..2.0),
            cb in proptest::array::uniform3(-2f64..2.0),
            ea in proptest::array::uniform3(0.01f64..1.0),
            eb in proptest::array::uniform3(0.01f64..1.0),
            axis_a in proptest::array::uniform3(-1f64..1.0),
            axis_b in proptest::array::uniform3(-1f64..1.0),
            axis_x in proptest::array::uniform3(-1f64..1.0),
            angles in proptest::array::uniform3(-3f64..3.0),
            shift in proptest::array::uniform3(-2f64..2.0),
        ) {
            let rot = |a: [f64; 3], t: f64| {
                DMat3::from_axis_angle(DVec3::from_array(a).try_normalize().unwrap_or(DVec3::Z), t)
            };
            let a = Obb::new(DVec3::from_array(ca), rot(axis_a, angles[0]), DVec3::from_array(ea));
            let b = Obb::new(DVec3::from_array(cb), rot(axis_b, angles[1]), DVec3::from_array(eb));
            let x = DAffine3::from_mat3_translation(rot(axis_x, angles[2]), DVec3::from_array(shift));
            let discrete = armature_bvh_geometry::query::overlap_obb_obb(&a, &b.transform(&x));
            let rel = RelativePose::from_interval(&IntervalAffine3::from_daffine3(&x));
            let continuous = obb_overlap(&a, &b, &rel, 0.0);
            // Margins of the discrete test aside, a separated pair is
            // separated here too, and an overlapping one overlaps.
            let bigger = Obb::new(b.center, b.axes, b.half_extents + DVec3::splat(1e-6));
            let smaller = Obb::new(b.center, b.axes, b.half_extents - DVec3::splat(1e-6));
            if armature_bvh_geometry::query::overlap_obb_obb(&a, &smaller.transform(&x)) {
                proptest::prop_assert!(continuous);
            }
            if !armature_bvh_geometry::query::overlap_obb_obb(&a, &bigger.transform(&x)) {
                proptest::prop_assert!(!continuous, "{discrete}");
            }
        }
    }

    proptest::proptest! {
        /// Members of the two enclosures give relative poses inside the
        /// relative enclosure.
        #[test]
        fn relative_poses_enclose_their_members(
            axes in proptest::array::uniform6(-1f64..1.0),
            angles in proptest::array::uniform2(-3f64..3.0),
            shifts in proptest::array::uniform6(-5f64..5.0),
            w in 0f64..0.05,
            pick in proptest::array::uniform4(-1f64..1.0),
        ) {
            let axis = |i: usize| DVec3::new(axes[i], axes[i + 1], axes[i + 2] + 2.0).normalize();
            let pa = DAffine3::from_mat3_translation(
                DMat3::from_axis_angle(axis(0), angles[0]),
                DVec3::new(shifts[0], shifts[1], shifts[2]),
            );
            let pb = DAffine3::from_mat3_translation(
                DMat3::from_axis_angle(axis(3), angles[1]),
                DVec3::new(shifts[3], shifts[4], shifts[5]),
            );
            // Enclosures of small rotations about x of each pose.
            let widen = |p: &DAffine3, turn: f64| {
                let member = DAffine3::from_mat3_translation(
                    p.matrix3 * DMat3::from_rotation_x(turn),
                    p.translation + DVec3::splat(turn),
                );
                let hull = |x: f64, y: f64| {
                    Interval::new(x.min(y) - 1e-12, x.max(y) + 1e-12).unwrap_or(Interval::ENTIRE)
                };
                let ends = [p, &DAffine3::from_mat3_translation(
                    p.matrix3 * DMat3::from_rotation_x(w),
                    p.translation + DVec3::splat(w),
                )];
                let col = |j: usize| {
                    let (x, y) = (ends[0].matrix3.col(j), ends[1].matrix3.col(j));
                    IntervalVec3::new(
                        hull(x.x, y.x).inflate(w),
                        hull(x.y, y.y).inflate(w),
                        hull(x.z, y.z).inflate(w),
                    )
                };
                let (x, y) = (ends[0].translation, ends[1].translation);
                let enc = IntervalAffine3::new(
                    IntervalMat3::from_cols(col(0), col(1), col(2)),
                    IntervalVec3::new(hull(x.x, y.x), hull(x.y, y.y), hull(x.z, y.z)),
                );
                (enc, member)
            };
            let (ea, ma) = widen(&pa, w * 0.5 * (pick[0] + 1.0));
            let (eb, mb) = widen(&pb, w * 0.5 * (pick[1] + 1.0));
            proptest::prop_assume!(ea.contains(&ma) && eb.contains(&mb));
            let rel = RelativePose::between(&ea, &eb);
            let exact = ma.inverse() * mb;
            let inside = |m: f64, r: f64, x: f64| (x - m).abs() <= r;
            for j in 0..3 {
                for i in 0..3 {
                    proptest::prop_assert!(inside(
                        at(&rel.rotation, i, j),
                        at(&rel.rotation_radius, i, j),
                        at(&exact.matrix3, i, j),
                    ));
                }
                proptest::prop_assert!(inside(
                    rel.translation[j],
                    rel.translation_radius[j],
                    exact.translation[j],
                ));
            }
        }
    }

    proptest::proptest! {
        /// The hull holds every entry range of both enclosures.
        #[test]
        fn hulls_hold_both(
            m in proptest::array::uniform12(-5f64..5.0),
            r in proptest::array::uniform12(0f64..0.5),
            shift in -1f64..1.0,
        ) {
            let a = RelativePose::new(
                DMat3::from_cols_slice(&m[..9]),
                DMat3::from_cols_slice(&r[..9]),
                DVec3::from_slice(&m[9..]),
                DVec3::from_slice(&r[9..]),
            );
            let b = RelativePose::new(
                a.rotation * shift,
                a.rotation_radius * 0.5,
                a.translation + DVec3::splat(shift),
                a.translation_radius,
            );
            let h = a.hull(&b);
            for x in [&a, &b] {
                for j in 0..3 {
                    for i in 0..3 {
                        let (hm, hr) = (at(&h.rotation, i, j), at(&h.rotation_radius, i, j));
                        let (xm, xr) = (at(&x.rotation, i, j), at(&x.rotation_radius, i, j));
                        proptest::prop_assert!(hm - hr <= xm - xr && xm + xr <= hm + hr);
                    }
                    let (hm, hr) = (h.translation[j], h.translation_radius[j]);
                    let (xm, xr) = (x.translation[j], x.translation_radius[j]);
                    proptest::prop_assert!(hm - hr <= xm - xr && xm + xr <= hm + hr);
                }
            }
        }
    }

    #[test]
    fn a_wide_translation_interval_overlaps() {
        let a = unit_box(DVec3::ZERO);
        let b = unit_box(DVec3::ZERO);
        let x = IntervalAffine3::new(
            IntervalMat3::IDENTITY,
            IntervalVec3::new(
                Interval::new(2.0, 5.0).unwrap_or(Interval::ZERO),
                Interval::ZERO,
                Interval::ZERO,
            ),
        );
        assert!(!obb_overlap(&a, &b, &RelativePose::from_interval(&x), 0.0));
        let x = IntervalAffine3::new(
            IntervalMat3::IDENTITY,
            IntervalVec3::new(
                Interval::new(-5.0, 5.0).unwrap_or(Interval::ZERO),
                Interval::ZERO,
                Interval::ZERO,
            ),
        );
        assert!(obb_overlap(&a, &b, &RelativePose::from_interval(&x), 0.0));
    }
}
