//! Interval vectors, matrices and rigid transforms: [`IntervalVec3`],
//! [`IntervalMat3`], [`IntervalAffine3`].
//!
//! Products are plain interval arithmetic (M1 §4.1): every entry of a
//! product encloses the corresponding entry for every choice of real entries
//! inside the operands, rounded outward.

use crate::error::IntervalError;
use crate::interval::Interval;
use core::ops::{Add, Mul, Neg, Sub};
use glam::{DMat3, DVec3};

/// A vector of three intervals: an axis-aligned box.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct IntervalVec3 {
    /// x component.
    pub x: Interval,
    /// y component.
    pub y: Interval,
    /// z component.
    pub z: Interval,
}

impl IntervalVec3 {
    /// All components `[0, 0]`.
    pub const ZERO: Self = Self::splat(Interval::ZERO);

    /// A vector from three intervals.
    #[must_use]
    pub const fn new(x: Interval, y: Interval, z: Interval) -> Self {
        Self { x, y, z }
    }

    /// All three components equal to `v`.
    #[must_use]
    pub const fn splat(v: Interval) -> Self {
        Self { x: v, y: v, z: v }
    }

    /// The degenerate box holding only `v` (NaN components become the
    /// entire line, see [`Interval::point`]).
    #[must_use]
    pub fn from_point(v: DVec3) -> Self {
        Self::new(
            Interval::point(v.x),
            Interval::point(v.y),
            Interval::point(v.z),
        )
    }

    /// The box `[lo, hi]` component-wise.
    ///
    /// # Errors
    /// As [`Interval::new`], for the first offending component.
    pub fn from_bounds(lo: DVec3, hi: DVec3) -> Result<Self, IntervalError> {
        Ok(Self::new(
            Interval::new(lo.x, hi.x)?,
            Interval::new(lo.y, hi.y)?,
            Interval::new(lo.z, hi.z)?,
        ))
    }

    /// Component `i` (0, 1, 2); any other `i` gives `z`.
    #[must_use]
    pub fn get(&self, i: usize) -> Interval {
        match i {
            0 => self.x,
            1 => self.y,
            _ => self.z,
        }
    }

    /// The lower corner.
    #[must_use]
    pub fn lo(&self) -> DVec3 {
        DVec3::new(self.x.lo(), self.y.lo(), self.z.lo())
    }

    /// The upper corner.
    #[must_use]
    pub fn hi(&self) -> DVec3 {
        DVec3::new(self.x.hi(), self.y.hi(), self.z.hi())
    }

    /// Component midpoints.
    #[must_use]
    pub fn midpoint(&self) -> DVec3 {
        DVec3::new(self.x.midpoint(), self.y.midpoint(), self.z.midpoint())
    }

    /// Component widths (upper bounds).
    #[must_use]
    pub fn width(&self) -> DVec3 {
        DVec3::new(self.x.width(), self.y.width(), self.z.width())
    }

    /// Upper bound on the box volume.
    #[must_use]
    pub fn volume(&self) -> f64 {
        let w = self.width();
        ((w.x * w.y).next_up() * w.z).next_up()
    }

    /// Whether the point lies in the box.
    #[must_use]
    pub fn contains(&self, p: DVec3) -> bool {
        self.x.contains(p.x) && self.y.contains(p.y) && self.z.contains(p.z)
    }

    /// Whether `self ⊆ other`.
    #[must_use]
    pub fn subset(&self, other: &Self) -> bool {
        self.x.subset(other.x) && self.y.subset(other.y) && self.z.subset(other.z)
    }

    /// The smallest box holding both.
    #[must_use]
    pub fn hull(&self, other: &Self) -> Self {
        Self::new(
            self.x.hull(other.x),
            self.y.hull(other.y),
            self.z.hull(other.z),
        )
    }

    /// Enclosure of the dot product.
    #[must_use]
    pub fn dot(&self, rhs: &Self) -> Interval {
        self.x * rhs.x + self.y * rhs.y + self.z * rhs.z
    }

    /// Enclosure of the cross product.
    #[must_use]
    pub fn cross(&self, rhs: &Self) -> Self {
        Self::new(
            self.y * rhs.z - self.z * rhs.y,
            self.z * rhs.x - self.x * rhs.z,
            self.x * rhs.y - self.y * rhs.x,
        )
    }

    /// Enclosure of the squared length.
    #[must_use]
    pub fn length_squared(&self) -> Interval {
        self.x.sqr() + self.y.sqr() + self.z.sqr()
    }

    /// Enclosure of the Euclidean length.
    #[must_use]
    pub fn length(&self) -> Interval {
        // The squared length is never wholly negative.
        self.length_squared().sqrt().unwrap_or(Interval::ZERO)
    }

    /// Component-wise scaling by an interval.
    #[must_use]
    pub fn scale(&self, s: Interval) -> Self {
        Self::new(self.x * s, self.y * s, self.z * s)
    }
}

impl From<DVec3> for IntervalVec3 {
    fn from(v: DVec3) -> Self {
        Self::from_point(v)
    }
}

impl Add for IntervalVec3 {
    type Output = Self;
    fn add(self, r: Self) -> Self {
        Self::new(self.x + r.x, self.y + r.y, self.z + r.z)
    }
}

impl Sub for IntervalVec3 {
    type Output = Self;
    fn sub(self, r: Self) -> Self {
        Self::new(self.x - r.x, self.y - r.y, self.z - r.z)
    }
}

impl Neg for IntervalVec3 {
    type Output = Self;
    fn neg(self) -> Self {
        Self::new(-self.x, -self.y, -self.z)
    }
}

impl Mul<Interval> for IntervalVec3 {
    type Output = Self;
    fn mul(self, s: Interval) -> Self {
        self.scale(s)
    }
}

impl Mul<f64> for IntervalVec3 {
    type Output = Self;
    fn mul(self, s: f64) -> Self {
        self.scale(Interval::point(s))
    }
}

/// A 3×3 matrix of intervals, stored by columns like `glam::DMat3`.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct IntervalMat3 {
    /// First column.
    pub x_axis: IntervalVec3,
    /// Second column.
    pub y_axis: IntervalVec3,
    /// Third column.
    pub z_axis: IntervalVec3,
}

impl IntervalMat3 {
    /// The identity.
    pub const IDENTITY: Self = Self {
        x_axis: IntervalVec3::new(Interval::ONE, Interval::ZERO, Interval::ZERO),
        y_axis: IntervalVec3::new(Interval::ZERO, Interval::ONE, Interval::ZERO),
        z_axis: IntervalVec3::new(Interval::ZERO, Interval::ZERO, Interval::ONE),
    };

    /// A matrix from its columns.
    #[must_use]
    pub const fn from_cols(
        x_axis: IntervalVec3,
        y_axis: IntervalVec3,
        z_axis: IntervalVec3,
    ) -> Self {
        Self {
            x_axis,
            y_axis,
            z_axis,
        }
    }

    /// Column `j`.
    #[must_use]
    pub fn col(&self, j: usize) -> IntervalVec3 {
        match j {
            0 => self.x_axis,
            1 => self.y_axis,
            _ => self.z_axis,
        }
    }

    /// Row `i`.
    #[must_use]
    pub fn row(&self, i: usize) -> IntervalVec3 {
        IntervalVec3::new(self.x_axis.get(i), self.y_axis.get(i), self.z_axis.get(i))
    }

    /// The degenerate matrix holding only `m`.
    #[must_use]
    pub fn from_dmat3(m: DMat3) -> Self {
        Self::from_cols(m.x_axis.into(), m.y_axis.into(), m.z_axis.into())
    }

    /// The matrix of midpoints.
    #[must_use]
    pub fn midpoint(&self) -> DMat3 {
        DMat3::from_cols(
            self.x_axis.midpoint(),
            self.y_axis.midpoint(),
            self.z_axis.midpoint(),
        )
    }

    /// Whether every entry of `m` lies in the corresponding interval.
    #[must_use]
    pub fn contains(&self, m: &DMat3) -> bool {
        self.x_axis.contains(m.x_axis)
            && self.y_axis.contains(m.y_axis)
            && self.z_axis.contains(m.z_axis)
    }

    /// The transpose.
    #[must_use]
    pub fn transpose(&self) -> Self {
        Self::from_cols(self.row(0), self.row(1), self.row(2))
    }

    /// Enclosure of `self · v`.
    #[must_use]
    pub fn mul_vec3(&self, v: &IntervalVec3) -> IntervalVec3 {
        let r = |i: usize| {
            self.x_axis.get(i) * v.x + self.y_axis.get(i) * v.y + self.z_axis.get(i) * v.z
        };
        IntervalVec3::new(r(0), r(1), r(2))
    }

    /// Enclosure of `self · rhs`.
    #[must_use]
    pub fn mul_mat3(&self, rhs: &Self) -> Self {
        Self::from_cols(
            self.mul_vec3(&rhs.x_axis),
            self.mul_vec3(&rhs.y_axis),
            self.mul_vec3(&rhs.z_axis),
        )
    }

    /// Entry-wise scaling.
    #[must_use]
    pub fn scale(&self, s: Interval) -> Self {
        Self::from_cols(self.x_axis * s, self.y_axis * s, self.z_axis * s)
    }

    /// Enclosure of the rotation by `angle` (radians, any width) about the
    /// direction of `axis`, by Rodrigues' formula
    /// `R = cos θ I + sin θ [k]× + (1 − cos θ) k kᵀ` with `k = axis / |axis|`
    /// enclosed in interval arithmetic.
    ///
    /// # Errors
    /// [`IntervalError::BadAxis`] when `axis` is zero or not finite.
    pub fn from_axis_angle(axis: DVec3, angle: Interval) -> Result<Self, IntervalError> {
        let k = unit_axis(axis)?;
        let (s, c) = (angle.sin(), angle.cos());
        Ok(rodrigues(&k, s, c))
    }
}

/// Enclosure of `axis / |axis|`.
pub(crate) fn unit_axis(axis: DVec3) -> Result<IntervalVec3, IntervalError> {
    if !axis.is_finite() || axis == DVec3::ZERO {
        return Err(IntervalError::BadAxis {
            x: axis.x,
            y: axis.y,
            z: axis.z,
        });
    }
    let v = IntervalVec3::from_point(axis);
    // The length of a finite non-zero vector is strictly positive; the
    // division is sound even if it underflows, because `/` handles it.
    Ok(v.scale(v.length().recip()))
}

/// Rodrigues' formula from enclosures of the unit axis, sin θ and cos θ.
fn rodrigues(k: &IntervalVec3, s: Interval, c: Interval) -> IntervalMat3 {
    let one_c = Interval::ONE - c;
    let (x, y, z) = (k.x, k.y, k.z);
    let xy = x * y * one_c;
    let xz = x * z * one_c;
    let yz = y * z * one_c;
    IntervalMat3::from_cols(
        IntervalVec3::new(c + x.sqr() * one_c, xy + z * s, xz - y * s),
        IntervalVec3::new(xy - z * s, c + y.sqr() * one_c, yz + x * s),
        IntervalVec3::new(xz + y * s, yz - x * s, c + z.sqr() * one_c),
    )
}

impl From<DMat3> for IntervalMat3 {
    fn from(m: DMat3) -> Self {
        Self::from_dmat3(m)
    }
}

impl Add for IntervalMat3 {
    type Output = Self;
    fn add(self, r: Self) -> Self {
        Self::from_cols(
            self.x_axis + r.x_axis,
            self.y_axis + r.y_axis,
            self.z_axis + r.z_axis,
        )
    }
}

impl Sub for IntervalMat3 {
    type Output = Self;
    fn sub(self, r: Self) -> Self {
        Self::from_cols(
            self.x_axis - r.x_axis,
            self.y_axis - r.y_axis,
            self.z_axis - r.z_axis,
        )
    }
}

impl Mul for IntervalMat3 {
    type Output = Self;
    fn mul(self, r: Self) -> Self {
        self.mul_mat3(&r)
    }
}

impl Mul<IntervalVec3> for IntervalMat3 {
    type Output = IntervalVec3;
    fn mul(self, v: IntervalVec3) -> IntervalVec3 {
        self.mul_vec3(&v)
    }
}

impl Mul<Interval> for IntervalMat3 {
    type Output = Self;
    fn mul(self, s: Interval) -> Self {
        self.scale(s)
    }
}

/// An enclosure of a set of rigid transforms `p ↦ R p + t`.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct IntervalAffine3 {
    /// Enclosure of the rotation (or any linear part).
    pub rotation: IntervalMat3,
    /// Enclosure of the translation.
    pub translation: IntervalVec3,
}

impl IntervalAffine3 {
    /// The identity transform.
    pub const IDENTITY: Self = Self {
        rotation: IntervalMat3::IDENTITY,
        translation: IntervalVec3::ZERO,
    };

    /// A transform from its parts.
    #[must_use]
    pub const fn new(rotation: IntervalMat3, translation: IntervalVec3) -> Self {
        Self {
            rotation,
            translation,
        }
    }

    /// The degenerate enclosure of one `glam::DAffine3`.
    #[must_use]
    pub fn from_daffine3(a: &glam::DAffine3) -> Self {
        Self::new(
            IntervalMat3::from_dmat3(a.matrix3),
            IntervalVec3::from_point(a.translation),
        )
    }

    /// Enclosure of `self ∘ rhs` (apply `rhs` first).
    #[must_use]
    pub fn compose(&self, rhs: &Self) -> Self {
        Self::new(
            self.rotation.mul_mat3(&rhs.rotation),
            self.rotation.mul_vec3(&rhs.translation) + self.translation,
        )
    }

    /// Enclosure of the images of a point.
    #[must_use]
    pub fn transform_point(&self, p: DVec3) -> IntervalVec3 {
        self.transform_point_set(&IntervalVec3::from_point(p))
    }

    /// Enclosure of the images of every point of a box.
    #[must_use]
    pub fn transform_point_set(&self, p: &IntervalVec3) -> IntervalVec3 {
        self.rotation.mul_vec3(p) + self.translation
    }

    /// Enclosure of the images of a vector (no translation).
    #[must_use]
    pub fn transform_vector(&self, v: DVec3) -> IntervalVec3 {
        self.rotation.mul_vec3(&IntervalVec3::from_point(v))
    }

    /// Whether the transform `a` lies in the enclosure.
    #[must_use]
    pub fn contains(&self, a: &glam::DAffine3) -> bool {
        self.rotation.contains(&a.matrix3) && self.translation.contains(a.translation)
    }
}

impl From<glam::DAffine3> for IntervalAffine3 {
    fn from(a: glam::DAffine3) -> Self {
        Self::from_daffine3(&a)
    }
}

impl Mul for IntervalAffine3 {
    type Output = Self;
    fn mul(self, r: Self) -> Self {
        self.compose(&r)
    }
}
