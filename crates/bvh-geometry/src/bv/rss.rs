//! Rectangle swept sphere (Larsen, Gottschalk, Lin, Manocha 1999).

use glam::{DAffine3, DMat3, DVec2, DVec3};

use super::{FitError, fit};

/// Absolute allowance added to a fitted radius, `2⁻⁵³⁰ ≈ 2.9e-160`: the
/// sum of squares behind [`Rss::distance_to_rectangle`] underflows for
/// distances below about 1e-154, where its square root can be short by up
/// to `2⁻⁵³⁶` (see [`Rss::from_points`]).
const RSS_ABSOLUTE_SLACK: f64 = f64::from_bits((1023 - 530) << 52);

/// A rectangle swept sphere: the points within `radius` of the rectangle
/// `{center + s·x + t·y : |s| ≤ half_lengths.x, |t| ≤ half_lengths.y}`,
/// where `x`, `y` are the first two columns of `axes` (the third is the
/// rectangle's normal).
///
/// Invariant: `axes` orthonormal to within a few ulps, `half_lengths ≥ 0`,
/// `radius ≥ 0`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rss {
    /// Centre of the rectangle.
    pub center: DVec3,
    /// Orthonormal frame; the rectangle spans the first two columns.
    pub axes: DMat3,
    /// Half side lengths of the rectangle along `axes.x_axis` and
    /// `axes.y_axis`.
    pub half_lengths: DVec2,
    /// Radius of the swept sphere.
    pub radius: f64,
}

/// The running state of the RSS fit's side passes ([`Rss::fit_unchecked`]),
/// fed the points' coordinates in the fit's frame.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RssSides {
    /// Height of the rectangle's plane, half the thickness, its square.
    cz: f64,
    r: f64,
    rr: f64,
    minx: f64,
    maxx: f64,
    miny: f64,
    maxy: f64,
}

impl RssSides {
    /// The state before the side pass, from the extremes of the heights.
    #[inline]
    pub(crate) fn new(minz: f64, maxz: f64) -> Self {
        let r = 0.5 * (maxz - minz);
        Self {
            cz: 0.5 * (minz + maxz),
            r,
            rr: r * r,
            minx: f64::INFINITY,
            maxx: f64::NEG_INFINITY,
            miny: f64::INFINITY,
            maxy: f64::NEG_INFINITY,
        }
    }

    /// The side pass for one point `u`: the rectangle is shrunk along each
    /// side as far as the rounded edges still cover the point.
    #[inline]
    pub(crate) fn add(&mut self, u: DVec3) {
        // With `w ≥ 0`, `u.x + w ≥ u.x > minx` and so on: a point strictly
        // inside the sides so far moves none of them, and its square root
        // is skipped (the result is the same).
        if u.x > self.minx && u.x < self.maxx && u.y > self.miny && u.y < self.maxy {
            return;
        }
        // How far a point at height dz from the rectangle's plane may stick
        // out beyond a side and still be under the rounded edge.
        let dz = u.z - self.cz;
        let w = (self.rr - dz * dz).max(0.0).sqrt();
        self.minx = self.minx.min(u.x + w);
        self.maxx = self.maxx.max(u.x - w);
        self.miny = self.miny.min(u.y + w);
        self.maxy = self.maxy.max(u.y - w);
    }

    /// After the side pass: sides that crossed meet in the middle.
    #[inline]
    pub(crate) fn settle(&mut self) {
        if self.minx > self.maxx {
            let m = 0.5 * (self.minx + self.maxx);
            (self.minx, self.maxx) = (m, m);
        }
        if self.miny > self.maxy {
            let m = 0.5 * (self.miny + self.maxy);
            (self.miny, self.maxy) = (m, m);
        }
    }

    /// PQP's corner pass for one point `q`: a point beyond two sides at
    /// once may be outside the rounded corner; grow both sides along the
    /// diagonal by the amount that brings the corner's sphere onto it.
    #[inline]
    pub(crate) fn add_corner(&mut self, q: DVec3) {
        let a = core::f64::consts::FRAC_1_SQRT_2;
        let (sx, dx) = if q.x > self.maxx {
            (1.0, q.x - self.maxx)
        } else if q.x < self.minx {
            (-1.0, q.x - self.minx)
        } else {
            return;
        };
        let (sy, dy) = if q.y > self.maxy {
            (1.0, q.y - self.maxy)
        } else if q.y < self.miny {
            (-1.0, q.y - self.miny)
        } else {
            return;
        };
        let u = sx * a * dx + sy * a * dy;
        let ex = sx * a * u - dx;
        let ey = sy * a * u - dy;
        let t = ex * ex + ey * ey + (self.cz - q.z) * (self.cz - q.z);
        let grow = u - (self.rr - t).max(0.0).sqrt();
        if grow > 0.0 {
            if sx > 0.0 {
                self.maxx += grow * a;
            } else {
                self.minx -= grow * a;
            }
            if sy > 0.0 {
                self.maxy += grow * a;
            } else {
                self.miny -= grow * a;
            }
        }
    }
}

impl Rss {
    /// A rectangle swept sphere from its parts (see the type's invariant).
    #[must_use]
    pub const fn new(center: DVec3, axes: DMat3, half_lengths: DVec2, radius: f64) -> Self {
        Self {
            center,
            axes,
            half_lengths,
            radius,
        }
    }

    /// Fits along the principal axes of the points (the rectangle spans the
    /// two largest), following PQP: the radius is half the thickness along
    /// the smallest axis, the rectangle is shrunk along each side as far as
    /// the rounded edges still cover the points, and grown at the corners
    /// where a point falls outside the rounded corner. Finally the radius is
    /// raised to the largest distance from a point to the rectangle,
    /// computed as `contains_point` computes it, so every point is contained
    /// exactly.
    ///
    /// # Errors
    /// [`FitError`] for an empty slice or an invalid coordinate.
    pub fn from_points(points: &[DVec3]) -> Result<Self, FitError> {
        fit::validate_points(points)?;
        let axes = fit::principal_frame(fit::covariance_points(points));
        Ok(Self::fit_unchecked(points, axes))
    }

    /// As [`Rss::from_points`], along the principal axes of the triangles'
    /// area-weighted covariance, holding every vertex.
    ///
    /// # Errors
    /// [`FitError`] for an empty slice or an invalid coordinate.
    pub fn from_triangles(triangles: &[[DVec3; 3]]) -> Result<Self, FitError> {
        fit::validate_triangles(triangles)?;
        let axes = fit::principal_frame(fit::covariance_triangles(triangles));
        Ok(Self::fit_unchecked(triangles.as_flattened(), axes))
    }

    /// Fits with a prescribed frame (made orthonormal first, as in
    /// [`super::Obb::from_points_with_axes`]).
    ///
    /// # Errors
    /// [`FitError`] for an empty slice or an invalid coordinate.
    pub fn from_points_with_axes(points: &[DVec3], axes: DMat3) -> Result<Self, FitError> {
        fit::validate_points(points)?;
        let axes = fit::orthonormal_frame(axes.x_axis, axes.y_axis);
        Ok(Self::fit_unchecked(points, axes))
    }

    pub(crate) fn fit_unchecked(points: &[DVec3], axes: DMat3) -> Self {
        let local = |p: DVec3| axes.transpose() * p;
        let (mut minz, mut maxz) = (f64::INFINITY, f64::NEG_INFINITY);
        for p in points {
            let z = local(*p).z;
            minz = minz.min(z);
            maxz = maxz.max(z);
        }
        Self::fit_from_heights(points, axes, minz, maxz)
    }

    /// [`Rss::fit_unchecked`] after its first pass: `minz` and `maxz` are
    /// the extremes of `(axes.transpose() * p).z` over `points`.
    pub(crate) fn fit_from_heights(points: &[DVec3], axes: DMat3, minz: f64, maxz: f64) -> Self {
        let local = |p: DVec3| axes.transpose() * p;
        let mut sides = RssSides::new(minz, maxz);
        for p in points {
            sides.add(local(*p));
        }
        sides.settle();
        for p in points {
            sides.add_corner(local(*p));
        }
        Self::finish(points, axes, &sides)
    }

    /// The fit's last pass: the rectangle of `sides` and the radius that
    /// holds every point.
    pub(crate) fn finish(points: &[DVec3], axes: DMat3, sides: &RssSides) -> Self {
        let RssSides {
            cz,
            r,
            minx,
            maxx,
            miny,
            maxy,
            ..
        } = *sides;
        let center = axes * DVec3::new(0.5 * (minx + maxx), 0.5 * (miny + maxy), cz);
        let half = DVec2::new(0.5 * (maxx - minx), 0.5 * (maxy - miny)).max(DVec2::ZERO);
        let rss = Self::new(center, axes, half, 0.0);
        // The square root is monotone and correctly rounded: the root of
        // the largest square is the largest of the roots.
        let radius = r.max(
            points
                .iter()
                .fold(0.0_f64, |s, p| s.max(rss.squared_distance_to_rectangle(*p)))
                .sqrt(),
        );
        // The exact set: the distance from `p` to the exact rectangle is at
        // most ‖A‖₂ ‖w‖ with `w` the exact coordinates of `p` minus their
        // clamp to the rectangle; with `δ = ‖AᵀA − I‖∞`, ‖A‖₂ ≤ 1 + δ and
        // `w` is within √3 (δ/(1 − δ) R + 7u R) of the rounded one, `R`
        // bounding every coordinate (see `Obb`'s fit); the rounded
        // distance itself is off by a few u. `4 δ/(1 − δ) + 32ε` covers all
        // of that relative to `R`. Absolutely, squares below the normal
        // range lose up to 2⁻¹⁰⁷⁵ each, so the rounded distance may be
        // short by up to √(4 · 2⁻¹⁰⁷⁴) = 2⁻⁵³⁶: [`RSS_ABSOLUTE_SLACK`].
        let reach = half.x + half.y + radius;
        let slack =
            (4.0 * fit::inverse_defect(axes) + 32.0 * f64::EPSILON) * reach + RSS_ABSOLUTE_SLACK;
        Self {
            radius: (radius + slack).next_up(),
            ..rss
        }
    }

    /// Distance from `p` to the rectangle (not to the swept surface): the
    /// arithmetic the fits and `contains_point` share.
    #[inline]
    #[must_use]
    pub fn distance_to_rectangle(&self, p: DVec3) -> f64 {
        self.squared_distance_to_rectangle(p).sqrt()
    }

    /// The square of [`Rss::distance_to_rectangle`] before its root.
    #[inline]
    fn squared_distance_to_rectangle(&self, p: DVec3) -> f64 {
        let d = p - self.center;
        let u = d.dot(self.axes.x_axis);
        let v = d.dot(self.axes.y_axis);
        let w = d.dot(self.axes.z_axis);
        let du = (u.abs() - self.half_lengths.x).max(0.0);
        let dv = (v.abs() - self.half_lengths.y).max(0.0);
        du * du + dv * dv + w * w
    }

    /// Whether `p` is inside or on the boundary (no tolerance; `false` for
    /// NaN).
    #[must_use]
    pub fn contains_point(&self, p: DVec3) -> bool {
        self.distance_to_rectangle(p) <= self.radius
    }

    /// The four rectangle corners, counter-clockwise about `axes.z_axis`.
    #[must_use]
    pub fn corners(&self) -> [DVec3; 4] {
        let x = self.axes.x_axis * self.half_lengths.x;
        let y = self.axes.y_axis * self.half_lengths.y;
        let c = self.center;
        [c - x - y, c + x - y, c + x + y, c - x + y]
    }

    /// Lower bound on the distance between the swept volumes; see
    /// [`crate::query::distance_rss_rss`].
    #[must_use]
    pub fn distance(&self, other: &Self) -> f64 {
        crate::query::distance_rss_rss(self, other)
    }

    /// A rectangle swept sphere enclosing the image under `m`. The new frame
    /// is the orthonormalised image of the old one; the image rectangle (a
    /// parallelogram for a general map) is enclosed by a rectangle in the new
    /// frame plus, in the radius, its out-of-plane rounding; the radius is
    /// scaled by an upper bound on the spectral norm of `m`'s linear part (1
    /// for a rotation) and widened by a rounding allowance.
    #[must_use]
    pub fn transform(&self, m: &DAffine3) -> Self {
        let image = m.matrix3 * self.axes;
        let axes = fit::orthonormal_frame(image.x_axis, image.y_axis);
        let b = (axes.transpose() * image).abs();
        let (hx, hy) = (self.half_lengths.x, self.half_lengths.y);
        let half = DVec2::new(
            b.x_axis.x * hx + b.y_axis.x * hy,
            b.x_axis.y * hx + b.y_axis.y * hy,
        );
        let out_of_plane = b.x_axis.z * hx + b.y_axis.z * hy;
        let reach = hx + hy + self.radius;
        let slack = fit::transform_slack(m, self.center, reach)
            + 8.0 * f64::EPSILON * (half.element_sum() + out_of_plane);
        Self::new(
            m.transform_point3(self.center),
            axes,
            half,
            self.radius * fit::spectral_norm_bound(m.matrix3) + out_of_plane + slack,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The fit as first written: every pass over every point, one square
    /// root per point. The fit skips work that cannot change its result.
    fn reference_fit(points: &[DVec3], axes: DMat3) -> Rss {
        let local = |p: DVec3| axes.transpose() * p;
        let (mut minz, mut maxz) = (f64::INFINITY, f64::NEG_INFINITY);
        for p in points {
            let z = local(*p).z;
            minz = minz.min(z);
            maxz = maxz.max(z);
        }
        let cz = 0.5 * (minz + maxz);
        let r = 0.5 * (maxz - minz);
        let rr = r * r;
        // How far a point at height dz from the rectangle's plane may stick
        // out beyond a side and still be under the rounded edge.
        let cap = |dz: f64| (rr - dz * dz).max(0.0).sqrt();
        let (mut minx, mut maxx) = (f64::INFINITY, f64::NEG_INFINITY);
        let (mut miny, mut maxy) = (f64::INFINITY, f64::NEG_INFINITY);
        for p in points {
            let u = local(*p);
            let w = cap(u.z - cz);
            minx = minx.min(u.x + w);
            maxx = maxx.max(u.x - w);
            miny = miny.min(u.y + w);
            maxy = maxy.max(u.y - w);
        }
        if minx > maxx {
            let m = 0.5 * (minx + maxx);
            (minx, maxx) = (m, m);
        }
        if miny > maxy {
            let m = 0.5 * (miny + maxy);
            (miny, maxy) = (m, m);
        }
        // PQP's corner pass: a point beyond two sides at once may be outside
        // the rounded corner; grow both sides along the diagonal by the
        // amount that brings the corner's sphere onto it.
        let a = core::f64::consts::FRAC_1_SQRT_2;
        for p in points {
            let q = local(*p);
            let (sx, dx) = if q.x > maxx {
                (1.0, q.x - maxx)
            } else if q.x < minx {
                (-1.0, q.x - minx)
            } else {
                continue;
            };
            let (sy, dy) = if q.y > maxy {
                (1.0, q.y - maxy)
            } else if q.y < miny {
                (-1.0, q.y - miny)
            } else {
                continue;
            };
            let u = sx * a * dx + sy * a * dy;
            let ex = sx * a * u - dx;
            let ey = sy * a * u - dy;
            let t = ex * ex + ey * ey + (cz - q.z) * (cz - q.z);
            let grow = u - (rr - t).max(0.0).sqrt();
            if grow > 0.0 {
                if sx > 0.0 {
                    maxx += grow * a;
                } else {
                    minx -= grow * a;
                }
                if sy > 0.0 {
                    maxy += grow * a;
                } else {
                    miny -= grow * a;
                }
            }
        }
        let center = axes * DVec3::new(0.5 * (minx + maxx), 0.5 * (miny + maxy), cz);
        let half = DVec2::new(0.5 * (maxx - minx), 0.5 * (maxy - miny)).max(DVec2::ZERO);
        let rss = Rss::new(center, axes, half, 0.0);
        let radius = points
            .iter()
            .fold(r, |r, p| r.max(rss.distance_to_rectangle(*p)));
        // The exact set: the distance from `p` to the exact rectangle is at
        // most ‖A‖₂ ‖w‖ with `w` the exact coordinates of `p` minus their
        // clamp to the rectangle; with `δ = ‖AᵀA − I‖∞`, ‖A‖₂ ≤ 1 + δ and
        // `w` is within √3 (δ/(1 − δ) R + 7u R) of the rounded one, `R`
        // bounding every coordinate (see `Obb`'s fit); the rounded
        // distance itself is off by a few u. `4 δ/(1 − δ) + 32ε` covers all
        // of that relative to `R`. Absolutely, squares below the normal
        // range lose up to 2⁻¹⁰⁷⁵ each, so the rounded distance may be
        // short by up to √(4 · 2⁻¹⁰⁷⁴) = 2⁻⁵³⁶: [`RSS_ABSOLUTE_SLACK`].
        let reach = half.x + half.y + radius;
        let slack =
            (4.0 * fit::inverse_defect(axes) + 32.0 * f64::EPSILON) * reach + RSS_ABSOLUTE_SLACK;
        Rss {
            radius: (radius + slack).next_up(),
            ..rss
        }
    }

    fn point() -> impl Strategy<Value = DVec3> {
        // A few coordinates repeat so that points tie on the sides.
        let c = prop_oneof![-4.0..4.0_f64, Just(0.0), Just(1.0), Just(-1.0)];
        (c.clone(), c.clone(), c).prop_map(|(x, y, z)| DVec3::new(x, y, z))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Bit for bit the reference fit, in the principal frame and in a
        /// turned one.
        #[test]
        fn fit_equals_the_reference(
            points in prop::collection::vec(point(), 1..40),
            angle in -3.2..3.2_f64,
        ) {
            let principal = fit::principal_frame(fit::covariance_points(&points));
            let turned = fit::orthonormal_frame(
                DVec3::new(angle.cos(), angle.sin(), 0.3),
                DVec3::new(-angle.sin(), angle.cos(), 0.1),
            );
            for axes in [principal, turned, DMat3::IDENTITY] {
                let got = Rss::fit_unchecked(&points, axes);
                let want = reference_fit(&points, axes);
                prop_assert_eq!(got.center.to_array().map(f64::to_bits), want.center.to_array().map(f64::to_bits));
                prop_assert_eq!(got.half_lengths.to_array().map(f64::to_bits), want.half_lengths.to_array().map(f64::to_bits));
                prop_assert_eq!(got.radius.to_bits(), want.radius.to_bits());
                prop_assert_eq!(got.axes, want.axes);
            }
        }
    }
}
