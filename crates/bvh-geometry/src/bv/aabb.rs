//! Axis-aligned bounding box.

use glam::{DAffine3, DVec3};

use super::{FitError, fit};

/// An axis-aligned box `{p : min ≤ p ≤ max}` (component-wise).
///
/// A box with `min > max` in some component is empty; [`Aabb::EMPTY`] is the
/// identity of [`Aabb::union`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    /// Smallest corner.
    pub min: DVec3,
    /// Largest corner.
    pub max: DVec3,
}

impl Aabb {
    /// The empty box (`min = +∞`, `max = −∞`): contains nothing, overlaps
    /// nothing, and `EMPTY.union(b) == b`.
    pub const EMPTY: Self = Self {
        min: DVec3::INFINITY,
        max: DVec3::NEG_INFINITY,
    };

    /// The box with the given corners (not reordered).
    #[must_use]
    pub const fn new(min: DVec3, max: DVec3) -> Self {
        Self { min, max }
    }

    /// The degenerate box holding one point.
    #[must_use]
    pub const fn from_point(p: DVec3) -> Self {
        Self { min: p, max: p }
    }

    /// The smallest box holding every point.
    ///
    /// # Errors
    /// [`FitError`] for an empty slice or an invalid coordinate.
    pub fn from_points(points: &[DVec3]) -> Result<Self, FitError> {
        fit::validate_points(points)?;
        Ok(points
            .iter()
            .fold(Self::EMPTY, |b, p| b.union(&Self::from_point(*p))))
    }

    /// The smallest box holding every triangle.
    ///
    /// # Errors
    /// [`FitError`] for an empty slice or an invalid coordinate.
    pub fn from_triangles(triangles: &[[DVec3; 3]]) -> Result<Self, FitError> {
        fit::validate_triangles(triangles)?;
        Self::from_points(triangles.as_flattened())
    }

    /// Whether the box is empty (some `min > max`, or NaN).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        !(self.min.cmple(self.max).all())
    }

    /// Centre `(min + max) / 2`.
    #[must_use]
    pub fn center(&self) -> DVec3 {
        0.5 * (self.min + self.max)
    }

    /// Half extents `(max − min) / 2`.
    #[must_use]
    pub fn half_extents(&self) -> DVec3 {
        0.5 * (self.max - self.min)
    }

    /// The smallest box holding both.
    #[must_use]
    pub fn union(&self, other: &Self) -> Self {
        Self {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }

    /// Whether `p` is inside or on the boundary (no tolerance; `false` for
    /// NaN).
    #[must_use]
    pub fn contains_point(&self, p: DVec3) -> bool {
        self.min.cmple(p).all() && p.cmple(self.max).all()
    }

    /// Whether `other` lies inside `self` (an empty `other` is inside every
    /// box).
    #[must_use]
    pub fn contains(&self, other: &Self) -> bool {
        other.is_empty() || (self.min.cmple(other.min).all() && other.max.cmple(self.max).all())
    }

    /// Whether the boxes share a point (touching counts). See
    /// [`crate::query::overlap_aabb_aabb`].
    #[must_use]
    pub fn overlaps(&self, other: &Self) -> bool {
        crate::query::overlap_aabb_aabb(self, other)
    }

    /// Euclidean distance between the boxes (0 when they overlap). See
    /// [`crate::query::distance_aabb_aabb`].
    #[must_use]
    pub fn distance(&self, other: &Self) -> f64 {
        crate::query::distance_aabb_aabb(self, other)
    }

    /// The box grown by `margin` on every side, rounded outward: the result
    /// holds the exact `[min − margin, max + margin]` (a sum rounded to
    /// nearest may fall inside it, so it is moved one ulp out). A zero
    /// margin gives the box unchanged.
    #[must_use]
    pub fn inflated(&self, margin: f64) -> Self {
        if margin == 0.0 {
            return *self;
        }
        Self {
            min: (self.min - DVec3::splat(margin)).map(f64::next_down),
            max: (self.max + DVec3::splat(margin)).map(f64::next_up),
        }
    }

    /// An axis-aligned box enclosing the image of `self` under `m` (any
    /// affine map), widened by a rounding allowance so that every point
    /// inside `self` mapped by `m.transform_point3` is inside the result. The
    /// image of the empty box is empty.
    #[must_use]
    pub fn transform(&self, m: &DAffine3) -> Self {
        if self.is_empty() {
            return Self::EMPTY;
        }
        // Interval arithmetic on the corners (Arvo 1990) rather than
        // centre ± |M| half-extent: no rounding of a centre to account for.
        let mut lo = m.translation;
        let mut hi = m.translation;
        let rows = [m.matrix3.row(0), m.matrix3.row(1), m.matrix3.row(2)];
        for (k, row) in rows.iter().enumerate() {
            for j in 0..3 {
                let a = row[j] * self.min[j];
                let b = row[j] * self.max[j];
                lo[k] += a.min(b);
                hi[k] += a.max(b);
            }
        }
        let slack = fit::transform_slack(m, self.center(), self.half_extents().max_element());
        Self {
            min: lo - DVec3::splat(slack),
            max: hi + DVec3::splat(slack),
        }
    }
}
