//! Oriented bounding box.

use glam::{DAffine3, DMat3, DVec3};

use super::{Aabb, FitError, fit};

/// An oriented box `{c + A u : |uᵢ| ≤ eᵢ}` with centre `c`, orthonormal axes
/// `A` (columns) and half extents `e`.
///
/// Invariant (kept by every constructor here, assumed by
/// [`crate::query::overlap_obb_obb`]): the columns of `axes` are orthonormal
/// to within a few ulps and `half_extents ≥ 0`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Obb {
    /// Centre.
    pub center: DVec3,
    /// Orthonormal axes, one per column (`x_axis`, `y_axis`, `z_axis`).
    pub axes: DMat3,
    /// Half extent along each axis.
    pub half_extents: DVec3,
}

/// Most points [`Obb::tightened`] chooses its frame from.
const TIGHT_FRAME_SAMPLE: usize = 1024;

impl Obb {
    /// A world box holding the box placed by `pose` (a rigid motion):
    /// `|M A| e` about the mapped centre, widened by a relative allowance
    /// far above the rounding of these few products. For culling: the
    /// placed box, and so its mesh, lies inside.
    #[must_use]
    pub fn world_box(&self, pose: &DAffine3) -> Aabb {
        let c = pose.transform_point3(self.center);
        let h = (pose.matrix3 * self.axes).abs() * self.half_extents;
        let slack = 1e-9 * (h.element_sum() + c.abs().max_element() + 1.0);
        let h = h + DVec3::splat(slack);
        Aabb::new(c - h, c + h)
    }

    /// A box from its parts; `axes` are taken as given (they must be
    /// orthonormal, see the type's invariant).
    #[must_use]
    pub const fn new(center: DVec3, axes: DMat3, half_extents: DVec3) -> Self {
        Self {
            center,
            axes,
            half_extents,
        }
    }

    /// Fits a box along the principal axes of the points' covariance; the
    /// extents come from projecting every point on those axes, so every
    /// point is contained (exactly, in floating point).
    ///
    /// # Errors
    /// [`FitError`] for an empty slice or an invalid coordinate.
    pub fn from_points(points: &[DVec3]) -> Result<Self, FitError> {
        fit::validate_points(points)?;
        let axes = fit::principal_frame(fit::covariance_points(points));
        Ok(Self::fit_unchecked(points, axes))
    }

    /// Fits a box along the principal axes of the triangles' area-weighted
    /// covariance (Gottschalk et al. 1996) holding every vertex.
    ///
    /// # Errors
    /// [`FitError`] for an empty slice or an invalid coordinate.
    pub fn from_triangles(triangles: &[[DVec3; 3]]) -> Result<Self, FitError> {
        fit::validate_triangles(triangles)?;
        let axes = fit::principal_frame(fit::covariance_triangles(triangles));
        Ok(Self::fit_unchecked(triangles.as_flattened(), axes))
    }

    /// Fits a box with prescribed orientation: the frame is made orthonormal
    /// first (the first column kept in direction, the second in the plane of
    /// the first two), then the extents are fitted as in
    /// [`Obb::from_points`].
    ///
    /// # Errors
    /// [`FitError`] for an empty slice or an invalid coordinate.
    pub fn from_points_with_axes(points: &[DVec3], axes: DMat3) -> Result<Self, FitError> {
        fit::validate_points(points)?;
        let axes = fit::orthonormal_frame(axes.x_axis, axes.y_axis);
        Ok(Self::fit_unchecked(points, axes))
    }

    pub(crate) fn fit_unchecked(points: &[DVec3], axes: DMat3) -> Self {
        let (mut lo, mut hi) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
        for p in points {
            let u = axes.transpose() * *p;
            lo = lo.min(u);
            hi = hi.max(u);
        }
        Self::fit_from_bounds(points, axes, lo, hi)
    }

    /// [`Obb::fit_unchecked`] after its first pass: `lo` and `hi` are the
    /// component-wise extremes of `axes.transpose() * p` over `points`.
    pub(crate) fn fit_from_bounds(points: &[DVec3], axes: DMat3, lo: DVec3, hi: DVec3) -> Self {
        let obb = Self::centred(axes, lo, hi);
        // The extents are measured with `local`, the arithmetic of
        // `contains_point`, about the final centre: containment is exact in
        // floating point.
        let e = points
            .iter()
            .fold(DVec3::ZERO, |e, p| e.max(obb.local(*p).abs()));
        obb.with_measured_extents(e)
    }

    /// The box of least surface area (`hx hy + hy hz + hz hx` of the half
    /// extents) among `self`, fitted to `points`, and the boxes of
    /// [`Obb::fit_unchecked`] in the frames of
    /// [`fit::tight_frame_candidates`] around `self`'s axes (the first
    /// found among equals). Every candidate holds every point, as any fit
    /// does; a covariance frame alone can be far from the tightest box
    /// (a mesh modelled along its own axes, a part with a long side not
    /// along a principal axis).
    ///
    /// The frames are chosen on at most [`TIGHT_FRAME_SAMPLE`] of the
    /// points (evenly strided) and only the best one is fitted to all of
    /// them. It still costs a hull per principal axis per node: a large
    /// mesh's tree is not tightened (see `build_obb_rss`).
    #[must_use]
    pub(crate) fn tightened(self, points: &[DVec3]) -> Self {
        let area = |h: DVec3| h.x * h.y + h.y * h.z + h.z * h.x;
        let stride = points.len().div_ceil(TIGHT_FRAME_SAMPLE).max(1);
        let strided: Vec<DVec3>;
        let sample = if stride == 1 {
            points
        } else {
            strided = points.iter().step_by(stride).copied().collect();
            &strided
        };
        // The extents of the sample in a frame (half, unwidened).
        let spread = |frame: DMat3| {
            let (mut lo, mut hi) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
            for p in sample {
                let u = frame.transpose() * *p;
                lo = lo.min(u);
                hi = hi.max(u);
            }
            0.5 * (hi - lo)
        };
        let mut best: Option<(f64, DMat3)> = None;
        let own = area(spread(self.axes));
        let frames = match points {
            // A triangle's least rectangle has a side on one of its edges.
            &[a, b, c] => [(a, b, c), (b, c, a), (c, a, b)]
                .map(|(p, q, r)| fit::orthonormal_frame(q - p, r - p))
                .to_vec(),
            _ => fit::tight_frame_candidates(sample, self.axes),
        };
        for frame in frames {
            let a = area(spread(frame));
            if a < own && best.is_none_or(|(b, _)| a < b) {
                best = Some((a, frame));
            }
        }
        match best {
            Some((_, frame)) => {
                let b = Self::fit_unchecked(points, frame);
                if area(b.half_extents) < area(self.half_extents) {
                    b
                } else {
                    self
                }
            }
            None => self,
        }
    }

    /// The fit's box of zero extents at the centre of the bounds `lo`,
    /// `hi` of the points' coordinates in `axes`.
    #[inline]
    pub(crate) fn centred(axes: DMat3, lo: DVec3, hi: DVec3) -> Self {
        Self::new(axes * (0.5 * (lo + hi)), axes, DVec3::ZERO)
    }

    /// The fitted box from [`Obb::centred`] and the largest `|local(p)|`
    /// over the points (component-wise, from zero): widened for rounding.
    #[inline]
    pub(crate) fn with_measured_extents(mut self, e: DVec3) -> Self {
        self.half_extents = e + DVec3::splat(Self::exact_slack(self.axes, e.max_element()));
        self.half_extents = self.half_extents.map(f64::next_up);
        self
    }

    /// How much the measured extents `e` (largest `m`) are widened so that
    /// the exact box `{c + A u : |uᵢ| ≤ eᵢ}` holds every measured point:
    ///
    /// - the exact coordinates of `p` are `u = A⁻¹(p − c)`, and for axes
    ///   orthonormal only to within `δ = ‖AᵀA − I‖∞` they differ from the
    ///   exact projections `v = Aᵀ(p − c)` by at most
    ///   `δ / (1 − δ) · ‖v‖∞` ([`fit::inverse_defect`]);
    /// - the projections `local(p)` are rounded: `p − c` and the three-term
    ///   dot products are off by at most `4u ‖p − c‖₂ ≤ 7u m < 4ε m`
    ///   (`8ε` here leaves room for the second-order terms) plus, for
    ///   products that underflow, `3 · 2⁻¹⁰⁷⁵`; the absolute allowance is a
    ///   generous `64 · TINY ≈ 3e-322`, enough for an outward-rounded
    ///   interval evaluation of the coordinates to confirm it.
    ///
    /// The sum of the widened extents is then rounded up once more.
    fn exact_slack(axes: DMat3, m: f64) -> f64 {
        (fit::inverse_defect(axes) + 8.0 * f64::EPSILON) * m + 64.0 * fit::TINY
    }

    /// Coordinates of `p` in the box frame, relative to the centre. The one
    /// place this arithmetic is written: the fits and `contains_point` share
    /// it.
    #[inline]
    #[must_use]
    pub fn local(&self, p: DVec3) -> DVec3 {
        let d = p - self.center;
        DVec3::new(
            d.dot(self.axes.x_axis),
            d.dot(self.axes.y_axis),
            d.dot(self.axes.z_axis),
        )
    }

    /// Whether `p` is inside or on the boundary (no tolerance; `false` for
    /// NaN).
    #[must_use]
    pub fn contains_point(&self, p: DVec3) -> bool {
        self.local(p).abs().cmple(self.half_extents).all()
    }

    /// The eight corners.
    #[must_use]
    pub fn corners(&self) -> [DVec3; 8] {
        let e = self.half_extents;
        core::array::from_fn(|k| {
            let s = DVec3::new(
                if k & 1 == 0 { -1.0 } else { 1.0 },
                if k & 2 == 0 { -1.0 } else { 1.0 },
                if k & 4 == 0 { -1.0 } else { 1.0 },
            );
            self.center + self.axes * (s * e)
        })
    }

    /// Conservative overlap test by the 15 separating axes; see
    /// [`crate::query::overlap_obb_obb`].
    #[must_use]
    pub fn overlaps(&self, other: &Self) -> bool {
        crate::query::overlap_obb_obb(self, other)
    }

    /// An oriented box enclosing the image of `self` under `m`, with a
    /// rounding allowance (see the module docs). For a rigid `m` the axes
    /// are rotated and the extents grow by a few ulps only; for a general
    /// affine map the axes are the orthonormalised images of the old ones
    /// and the extents those of the image parallelepiped in that frame.
    #[must_use]
    pub fn transform(&self, m: &DAffine3) -> Self {
        let center = m.transform_point3(self.center);
        let image = m.matrix3 * self.axes;
        let axes = fit::orthonormal_frame(image.x_axis, image.y_axis);
        // The image parallelepiped is c' + (Qᵀ M A) diag(e) u in the new
        // frame Q, |u| ≤ 1: its extent along Qᵢ is Σⱼ |(QᵀMA)ᵢⱼ| eⱼ for any
        // orthonormal Q.
        let b = axes.transpose() * image;
        let e = b.abs() * self.half_extents;
        let slack = fit::transform_slack(m, self.center, self.half_extents.element_sum())
            + 8.0 * f64::EPSILON * e.element_sum();
        Self::new(center, axes, e + DVec3::splat(slack))
    }
}

impl From<Aabb> for Obb {
    /// The box with the world axes holding every point of the `Aabb` (the
    /// half extents are upper bounds of the exact distances from the
    /// rounded centre to both corners); an empty `Aabb` gives a box with
    /// negative extents, which contains nothing.
    fn from(b: Aabb) -> Self {
        let c = b.center();
        let e = if b.is_empty() {
            -DVec3::ONE
        } else {
            let up =
                |i: usize| fit::abs_diff_up(b.max[i], c[i]).max(fit::abs_diff_up(b.min[i], c[i]));
            DVec3::new(up(0), up(1), up(2))
        };
        Self::new(c, DMat3::IDENTITY, e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every corner of a placed box, and so every point of it, lies in its
    /// world box, which is no larger than the box's reach.
    #[test]
    fn world_box_holds_the_placed_box() {
        let obb = Obb::from_points(&[
            DVec3::new(0.0, 0.0, 0.0),
            DVec3::new(2.0, 0.1, 0.0),
            DVec3::new(0.3, 1.0, 0.2),
            DVec3::new(1.0, 0.5, 0.7),
        ])
        .expect("a box");
        for k in 0..16 {
            let a = f64::from(k) * 0.41;
            let pose = DAffine3::from_translation(DVec3::new(3.0, -1.0, 0.5 * a))
                * DAffine3::from_axis_angle(DVec3::new(1.0, a, 0.3).normalize(), a);
            let b = obb.world_box(&pose);
            for c in obb.corners() {
                assert!(b.contains_point(pose.transform_point3(c)), "pose {k}");
            }
            let reach = obb.half_extents.length() * 2.0 + 1e-6;
            assert!(b.half_extents().length() <= reach * 3f64.sqrt(), "pose {k}");
        }
    }

    fn area(b: &Obb) -> f64 {
        let h = b.half_extents;
        h.x * h.y + h.y * h.z + h.z * h.x
    }

    /// A thin plate turned 0.5 rad about z, sampled densely along one
    /// diagonal: the covariance frame follows the diagonal, the tightened
    /// box the plate's sides (its area, to rounding), and it holds every
    /// point.
    #[test]
    fn tightened_box_finds_a_plate_the_covariance_misses() {
        let turn = DMat3::from_rotation_z(0.5);
        let (hx, hy) = (2.0, 1.0);
        let mut points = Vec::new();
        for &(x, y) in &[(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)] {
            points.push(turn * DVec3::new(x, y, 0.0));
        }
        for k in 0..200 {
            let s = f64::from(k) / 199.0 * 2.0 - 1.0;
            points.push(turn * DVec3::new(s * hx, s * hy, 0.0));
        }
        let principal = Obb::from_points(&points).expect("a box");
        let tight = principal.tightened(&points);
        for p in &points {
            assert!(tight.contains_point(*p));
        }
        assert!(area(&principal) > 1.2 * hx * hy);
        assert!(area(&tight) <= hx * hy * (1.0 + 1e-9), "{}", area(&tight));
    }

    /// Random clouds (seeded): the tightened box holds every point and is
    /// never larger than the principal one; a triangle's is flat with a
    /// side on an edge.
    #[test]
    fn tightened_boxes_hold_their_points() {
        let mut k: u64 = 7;
        let mut unit = || {
            k = k
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (k >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        let mut tighter = 0;
        for n in (3..60).cycle().take(400) {
            let stretch = DVec3::new(3.0, 1.0, 0.2 + unit().abs());
            let turn = DMat3::from_euler(glam::EulerRot::XYZ, unit() * 3.0, unit(), unit() * 3.0);
            let points: Vec<DVec3> = (0..n)
                .map(|_| turn * (DVec3::new(unit(), unit(), unit()) * stretch) + DVec3::splat(5.0))
                .collect();
            let principal = Obb::from_points(&points).expect("a box");
            let tight = principal.tightened(&points);
            for p in &points {
                assert!(tight.contains_point(*p), "{n} points");
            }
            assert!(area(&tight) <= area(&principal));
            tighter += usize::from(area(&tight) < area(&principal));
            if n == 3 {
                assert!(
                    tight.half_extents.min_element() < 1e-9,
                    "a flat triangle box"
                );
            }
        }
        assert!(tighter > 100, "only {tighter} of 400 boxes were tightened");
    }
}
