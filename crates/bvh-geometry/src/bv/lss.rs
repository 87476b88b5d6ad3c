//! Line swept sphere (capsule).

use glam::{DAffine3, DMat3, DVec3};

use super::{FitError, fit};
use crate::query::closest_point_segment;

/// A line swept sphere (capsule): the points within `radius` of the segment
/// `a`–`b`. `a == b` gives a ball.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lss {
    /// First end point of the axis segment.
    pub a: DVec3,
    /// Second end point of the axis segment.
    pub b: DVec3,
    /// Radius (≥ 0).
    pub radius: f64,
}

/// A capsule is a line swept sphere; the name robotics code often uses.
pub type Capsule = Lss;

impl Lss {
    /// A capsule from its axis end points and radius.
    #[must_use]
    pub const fn new(a: DVec3, b: DVec3, radius: f64) -> Self {
        Self { a, b, radius }
    }

    /// Fits a capsule along the principal axis of the points' covariance:
    /// the axis line passes through the centre of the cloud's extent across
    /// that axis, the radius is the largest distance to that line, the
    /// segment is shortened as far as the spherical caps still cover the
    /// points, and finally the radius is raised to the largest distance from
    /// a point to the segment (the arithmetic of `contains_point`), so every
    /// point is contained exactly.
    ///
    /// # Errors
    /// [`FitError`] for an empty slice or an invalid coordinate.
    pub fn from_points(points: &[DVec3]) -> Result<Self, FitError> {
        fit::validate_points(points)?;
        let axes = fit::principal_frame(fit::covariance_points(points));
        Ok(Self::fit_unchecked(points, axes))
    }

    /// As [`Lss::from_points`], along the principal axis of the triangles'
    /// area-weighted covariance, holding every vertex.
    ///
    /// # Errors
    /// [`FitError`] for an empty slice or an invalid coordinate.
    pub fn from_triangles(triangles: &[[DVec3; 3]]) -> Result<Self, FitError> {
        fit::validate_triangles(triangles)?;
        let axes = fit::principal_frame(fit::covariance_triangles(triangles));
        Ok(Self::fit_unchecked(triangles.as_flattened(), axes))
    }

    fn fit_unchecked(points: &[DVec3], axes: DMat3) -> Self {
        let (x, y, z) = (axes.x_axis, axes.y_axis, axes.z_axis);
        let (mut lo, mut hi) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
        for p in points {
            let u = axes.transpose() * *p;
            lo = lo.min(u);
            hi = hi.max(u);
        }
        let mid = 0.5 * (lo + hi);
        let base = y * mid.y + z * mid.z;
        let across = |p: DVec3| (p.dot(y) - mid.y).hypot(p.dot(z) - mid.z);
        let r = points.iter().fold(0.0, |r: f64, p| r.max(across(*p)));
        // Shorten the axis while each point stays under its end cap.
        let (mut t0, mut t1) = (f64::INFINITY, f64::NEG_INFINITY);
        for p in points {
            let rho = across(*p);
            let w = (r * r - rho * rho).max(0.0).sqrt();
            let t = p.dot(x);
            t0 = t0.min(t + w);
            t1 = t1.max(t - w);
        }
        if t0 > t1 {
            let m = 0.5 * (t0 + t1);
            (t0, t1) = (m, m);
        }
        let lss = Self::new(base + x * t0, base + x * t1, 0.0);
        let radius = points
            .iter()
            .fold(r, |r, p| r.max(lss.distance_to_axis(*p)));
        Self { radius, ..lss }
    }

    /// Distance from `p` to the axis segment: the arithmetic the fits and
    /// `contains_point` share.
    #[inline]
    #[must_use]
    pub fn distance_to_axis(&self, p: DVec3) -> f64 {
        (p - closest_point_segment(p, self.a, self.b)).length()
    }

    /// Whether `p` is inside or on the boundary (no tolerance; `false` for
    /// NaN).
    #[must_use]
    pub fn contains_point(&self, p: DVec3) -> bool {
        self.distance_to_axis(p) <= self.radius
    }

    /// Distance between the capsules (0 when they overlap); see
    /// [`crate::query::distance_capsule_capsule`].
    #[must_use]
    pub fn distance(&self, other: &Self) -> f64 {
        crate::query::distance_capsule_capsule(self, other)
    }

    /// A capsule enclosing the image under `m`: end points mapped, radius
    /// scaled by an upper bound on the spectral norm of `m`'s linear part (1
    /// for a rotation) plus a rounding allowance.
    #[must_use]
    pub fn transform(&self, m: &DAffine3) -> Self {
        let mid = 0.5 * (self.a + self.b);
        let reach = 0.5 * (self.b - self.a).length() + self.radius;
        Self::new(
            m.transform_point3(self.a),
            m.transform_point3(self.b),
            self.radius * fit::spectral_norm_bound(m.matrix3) + fit::transform_slack(m, mid, reach),
        )
    }
}
