//! Taylor-model vectors, matrices and rigid motions: [`TaylorVec3`],
//! [`TaylorMat3`], [`TaylorAffine3`] (M4 §5.2).
//!
//! A [`TaylorAffine3`] encloses a time-dependent rigid transform
//! `p ↦ R(t) p + T(t)` over a [`TimeDomain`]; composing the per-link local
//! motions of a chain gives enclosures of world poses whose width grows far
//! more slowly with chain depth than interval products do, because the
//! polynomial parts keep the dependency on `t`.

use crate::domain::TimeDomain;
use crate::error::IntervalError;
use crate::interval::Interval;
use crate::linalg::{IntervalMat3, IntervalVec3, unit_axis};
use crate::taylor::{Accumulator, Prepared, TaylorModel};
use glam::{DAffine3, DMat3, DVec3};

/// Three Taylor models over one domain: a time-dependent vector.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TaylorVec3<const ORDER: usize = 3> {
    /// x component.
    pub x: TaylorModel<ORDER>,
    /// y component.
    pub y: TaylorModel<ORDER>,
    /// z component.
    pub z: TaylorModel<ORDER>,
}

impl<const ORDER: usize> TaylorVec3<ORDER> {
    /// A vector from three models (over one domain).
    #[must_use]
    pub const fn new(x: TaylorModel<ORDER>, y: TaylorModel<ORDER>, z: TaylorModel<ORDER>) -> Self {
        Self { x, y, z }
    }

    /// The constant vector `v`.
    #[must_use]
    pub fn constant(dom: TimeDomain, v: DVec3) -> Self {
        Self::new(
            TaylorModel::constant(dom, v.x),
            TaylorModel::constant(dom, v.y),
            TaylorModel::constant(dom, v.z),
        )
    }

    /// A vector known only to lie in the box `v` at all times.
    #[must_use]
    pub fn from_interval(dom: TimeDomain, v: &IntervalVec3) -> Self {
        Self::new(
            TaylorModel::from_interval(dom, v.x),
            TaylorModel::from_interval(dom, v.y),
            TaylorModel::from_interval(dom, v.z),
        )
    }

    /// `t ↦ velocity · t + start`.
    ///
    /// # Errors
    /// [`IntervalError::NotFinite`] for a NaN or infinite component.
    pub fn linear(dom: TimeDomain, velocity: DVec3, start: DVec3) -> Result<Self, IntervalError> {
        Ok(Self::new(
            TaylorModel::affine(dom, velocity.x, start.x)?,
            TaylorModel::affine(dom, velocity.y, start.y)?,
            TaylorModel::affine(dom, velocity.z, start.z)?,
        ))
    }

    /// Component `i` (0, 1, 2; any other gives z).
    #[must_use]
    pub fn get(&self, i: usize) -> &TaylorModel<ORDER> {
        match i {
            0 => &self.x,
            1 => &self.y,
            _ => &self.z,
        }
    }

    /// The time domain.
    #[must_use]
    pub fn domain(&self) -> &TimeDomain {
        self.x.domain()
    }

    /// Enclosure of the vector's values over the whole domain (an AABB).
    #[must_use]
    pub fn bound(&self) -> IntervalVec3 {
        IntervalVec3::new(self.x.bound(), self.y.bound(), self.z.bound())
    }

    /// Enclosure of the value at `t`, `None` outside the domain.
    #[must_use]
    pub fn eval(&self, t: f64) -> Option<IntervalVec3> {
        Some(IntervalVec3::new(
            self.x.eval(t)?,
            self.y.eval(t)?,
            self.z.eval(t)?,
        ))
    }

    /// Restriction to a sub-domain, see [`TaylorModel::restrict`].
    ///
    /// # Errors
    /// [`IntervalError::NotASubDomain`].
    pub fn restrict(&self, sub: TimeDomain) -> Result<Self, IntervalError> {
        Ok(Self::new(
            self.x.restrict(sub)?,
            self.y.restrict(sub)?,
            self.z.restrict(sub)?,
        ))
    }

    /// Component-wise sum.
    ///
    /// # Panics
    /// When the domains differ.
    #[must_use]
    pub fn add(&self, rhs: &Self) -> Self {
        Self::new(self.x + rhs.x, self.y + rhs.y, self.z + rhs.z)
    }

    /// Component-wise difference.
    ///
    /// # Panics
    /// When the domains differ.
    #[must_use]
    pub fn sub(&self, rhs: &Self) -> Self {
        Self::new(self.x - rhs.x, self.y - rhs.y, self.z - rhs.z)
    }

    /// Dot product with one rounding sweep.
    ///
    /// # Panics
    /// When the domains differ.
    #[must_use]
    pub fn dot(&self, rhs: &Self) -> TaylorModel<ORDER> {
        let mut acc = Accumulator::new(self.domain());
        acc.add_product(&self.x, &rhs.x);
        acc.add_product(&self.y, &rhs.y);
        acc.add_product(&self.z, &rhs.z);
        acc.finish()
    }

    /// Dot product with a constant vector.
    #[must_use]
    pub fn dot_const(&self, v: DVec3) -> TaylorModel<ORDER> {
        let mut acc = Accumulator::new(self.domain());
        acc.add_scaled(&self.x, v.x);
        acc.add_scaled(&self.y, v.y);
        acc.add_scaled(&self.z, v.z);
        acc.finish()
    }

    /// Cross product.
    ///
    /// # Panics
    /// When the domains differ.
    #[must_use]
    pub fn cross(&self, rhs: &Self) -> Self {
        let comp = |a1: &TaylorModel<ORDER>,
                    b2: &TaylorModel<ORDER>,
                    a2: &TaylorModel<ORDER>,
                    b1: &TaylorModel<ORDER>| {
            let mut acc = Accumulator::new(self.domain());
            acc.add_product(a1, b2);
            acc.add_product(&-*a2, b1);
            acc.finish()
        };
        Self::new(
            comp(&self.y, &rhs.z, &self.z, &rhs.y),
            comp(&self.z, &rhs.x, &self.x, &rhs.z),
            comp(&self.x, &rhs.y, &self.y, &rhs.x),
        )
    }

    /// Scaling by a number.
    #[must_use]
    pub fn scale(&self, s: f64) -> Self {
        Self::new(self.x.scale(s), self.y.scale(s), self.z.scale(s))
    }
}

/// A 3×3 matrix of Taylor models over one domain, stored by columns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TaylorMat3<const ORDER: usize = 3> {
    /// First column.
    pub x_axis: TaylorVec3<ORDER>,
    /// Second column.
    pub y_axis: TaylorVec3<ORDER>,
    /// Third column.
    pub z_axis: TaylorVec3<ORDER>,
}

impl<const ORDER: usize> TaylorMat3<ORDER> {
    /// A matrix from its columns.
    #[must_use]
    pub const fn from_cols(
        x_axis: TaylorVec3<ORDER>,
        y_axis: TaylorVec3<ORDER>,
        z_axis: TaylorVec3<ORDER>,
    ) -> Self {
        Self {
            x_axis,
            y_axis,
            z_axis,
        }
    }

    /// The constant matrix `m`.
    #[must_use]
    pub fn constant(dom: TimeDomain, m: DMat3) -> Self {
        Self::from_cols(
            TaylorVec3::constant(dom, m.x_axis),
            TaylorVec3::constant(dom, m.y_axis),
            TaylorVec3::constant(dom, m.z_axis),
        )
    }

    /// The identity.
    #[must_use]
    pub fn identity(dom: TimeDomain) -> Self {
        Self::constant(dom, DMat3::IDENTITY)
    }

    /// Column `j`.
    #[must_use]
    pub fn col(&self, j: usize) -> &TaylorVec3<ORDER> {
        match j {
            0 => &self.x_axis,
            1 => &self.y_axis,
            _ => &self.z_axis,
        }
    }

    /// Entry `(i, j)` (row, column).
    #[must_use]
    pub fn entry(&self, i: usize, j: usize) -> &TaylorModel<ORDER> {
        self.col(j).get(i)
    }

    /// The time domain.
    #[must_use]
    pub fn domain(&self) -> &TimeDomain {
        self.x_axis.domain()
    }

    /// The rotation by `θ(t) = ω t + φ` about the direction of `axis`, by
    /// Rodrigues' formula with the unit axis enclosed in intervals and
    /// `sin θ`, `cos θ` from [`TaylorModel::sin_cos_affine`].
    ///
    /// # Errors
    /// [`IntervalError::BadAxis`] for a zero or non-finite axis and
    /// [`IntervalError::NotFinite`] for non-finite `omega` or `phi`.
    pub fn rotation_affine_angle(
        dom: TimeDomain,
        axis: DVec3,
        omega: f64,
        phi: f64,
    ) -> Result<Self, IntervalError> {
        let k = unit_axis(axis)?;
        let (s, c) = TaylorModel::sin_cos_affine(dom, omega, phi)?;
        let kk = [k.x, k.y, k.z];
        // R_ij = k_i k_j (1 − c) + δ_ij c + ε_ikj k_k s
        //      = k_i k_j + (δ_ij − k_i k_j) c + ε_ikj k_k s.
        let entry = |i: usize, j: usize| {
            let kij = kk[i] * kk[j];
            let mut acc = Accumulator::new(&dom);
            acc.add_constant(kij);
            let diag = if i == j {
                Interval::ONE
            } else {
                Interval::ZERO
            };
            acc.add_scaled_interval(&c, diag - kij);
            if i != j {
                // ε_ikj with k the remaining index: R_01 = −k_z s, R_10 = k_z s, ...
                let k3 = 3 - i - j;
                let sign = if (i + 1) % 3 == j { -1.0 } else { 1.0 };
                acc.add_scaled_interval(&s, kk[k3] * sign);
            }
            acc.finish()
        };
        let col = |j: usize| TaylorVec3::new(entry(0, j), entry(1, j), entry(2, j));
        Ok(Self::from_cols(col(0), col(1), col(2)))
    }

    /// Enclosure of the matrix over the whole domain.
    #[must_use]
    pub fn bound(&self) -> IntervalMat3 {
        IntervalMat3::from_cols(
            self.x_axis.bound(),
            self.y_axis.bound(),
            self.z_axis.bound(),
        )
    }

    /// Enclosure of the matrix at `t`, `None` outside the domain.
    #[must_use]
    pub fn eval(&self, t: f64) -> Option<IntervalMat3> {
        Some(IntervalMat3::from_cols(
            self.x_axis.eval(t)?,
            self.y_axis.eval(t)?,
            self.z_axis.eval(t)?,
        ))
    }

    /// Restriction to a sub-domain.
    ///
    /// # Errors
    /// [`IntervalError::NotASubDomain`].
    pub fn restrict(&self, sub: TimeDomain) -> Result<Self, IntervalError> {
        Ok(Self::from_cols(
            self.x_axis.restrict(sub)?,
            self.y_axis.restrict(sub)?,
            self.z_axis.restrict(sub)?,
        ))
    }

    /// The rows of the matrix prepared as product factors.
    fn prepared_rows(&self, acc: &Accumulator<'_, ORDER>) -> [[Prepared; 3]; 3] {
        let row = |i: usize| {
            [
                acc.prepare(self.x_axis.get(i)),
                acc.prepare(self.y_axis.get(i)),
                acc.prepare(self.z_axis.get(i)),
            ]
        };
        [row(0), row(1), row(2)]
    }

    /// `rows · v (+ w)` from prepared rows.
    fn rows_mul_vec3(
        rows: &[[Prepared; 3]; 3],
        v: &TaylorVec3<ORDER>,
        w: Option<&TaylorVec3<ORDER>>,
        empty: &Accumulator<'_, ORDER>,
    ) -> TaylorVec3<ORDER> {
        let pv = [
            empty.prepare(&v.x),
            empty.prepare(&v.y),
            empty.prepare(&v.z),
        ];
        let row = |i: usize| {
            let mut acc = empty.clone();
            for k in 0..3 {
                acc.add_prepared_product(&rows[i][k], &pv[k]);
            }
            if let Some(w) = w {
                acc.add(w.get(i));
            }
            acc.finish()
        };
        TaylorVec3::new(row(0), row(1), row(2))
    }

    /// `self · v`.
    ///
    /// # Panics
    /// When the domains differ.
    #[must_use]
    pub fn mul_vec3(&self, v: &TaylorVec3<ORDER>) -> TaylorVec3<ORDER> {
        let empty = Accumulator::new(self.domain());
        Self::rows_mul_vec3(&self.prepared_rows(&empty), v, None, &empty)
    }

    /// `self · v + w` with one rounding sweep per component.
    ///
    /// # Panics
    /// When the domains differ.
    #[must_use]
    pub fn mul_vec3_add(&self, v: &TaylorVec3<ORDER>, w: &TaylorVec3<ORDER>) -> TaylorVec3<ORDER> {
        let empty = Accumulator::new(self.domain());
        Self::rows_mul_vec3(&self.prepared_rows(&empty), v, Some(w), &empty)
    }

    /// `(self · rhs, self · v + w)`: a matrix product and a matrix–vector
    /// product sharing the preparation of `self` (the rigid-motion product).
    fn mul_mat3_and_vec3_add(
        &self,
        rhs: &Self,
        v: &TaylorVec3<ORDER>,
        w: &TaylorVec3<ORDER>,
    ) -> (Self, TaylorVec3<ORDER>) {
        let empty = Accumulator::new(self.domain());
        let rows = self.prepared_rows(&empty);
        let m = Self::from_cols(
            Self::rows_mul_vec3(&rows, &rhs.x_axis, None, &empty),
            Self::rows_mul_vec3(&rows, &rhs.y_axis, None, &empty),
            Self::rows_mul_vec3(&rows, &rhs.z_axis, None, &empty),
        );
        (m, Self::rows_mul_vec3(&rows, v, Some(w), &empty))
    }

    /// `self · p + w` for a constant vector `p`.
    #[must_use]
    pub fn mul_const_vec3_add(&self, p: DVec3, w: &TaylorVec3<ORDER>) -> TaylorVec3<ORDER> {
        let row = |i: usize| {
            let mut acc = Accumulator::new(self.domain());
            acc.add_scaled(self.x_axis.get(i), p.x);
            acc.add_scaled(self.y_axis.get(i), p.y);
            acc.add_scaled(self.z_axis.get(i), p.z);
            acc.add(w.get(i));
            acc.finish()
        };
        TaylorVec3::new(row(0), row(1), row(2))
    }

    /// `self · p` for a constant vector `p`.
    #[must_use]
    pub fn mul_const_vec3(&self, p: DVec3) -> TaylorVec3<ORDER> {
        let row = |i: usize| {
            let mut acc = Accumulator::new(self.domain());
            acc.add_scaled(self.x_axis.get(i), p.x);
            acc.add_scaled(self.y_axis.get(i), p.y);
            acc.add_scaled(self.z_axis.get(i), p.z);
            acc.finish()
        };
        TaylorVec3::new(row(0), row(1), row(2))
    }

    /// `self · rhs`.
    ///
    /// # Panics
    /// When the domains differ.
    #[must_use]
    pub fn mul_mat3(&self, rhs: &Self) -> Self {
        let empty = Accumulator::new(self.domain());
        let rows = self.prepared_rows(&empty);
        Self::from_cols(
            Self::rows_mul_vec3(&rows, &rhs.x_axis, None, &empty),
            Self::rows_mul_vec3(&rows, &rhs.y_axis, None, &empty),
            Self::rows_mul_vec3(&rows, &rhs.z_axis, None, &empty),
        )
    }

    /// `self · m` for a constant matrix `m`.
    #[must_use]
    pub fn mul_dmat3(&self, m: &DMat3) -> Self {
        Self::from_cols(
            self.mul_const_vec3(m.x_axis),
            self.mul_const_vec3(m.y_axis),
            self.mul_const_vec3(m.z_axis),
        )
    }

    /// `m · self` for a constant matrix `m`.
    #[must_use]
    pub fn premul_dmat3(&self, m: &DMat3) -> Self {
        let col = |c: &TaylorVec3<ORDER>| {
            let row = |i: usize| {
                let mut acc = Accumulator::new(self.domain());
                acc.add_scaled(&c.x, m.x_axis[i]);
                acc.add_scaled(&c.y, m.y_axis[i]);
                acc.add_scaled(&c.z, m.z_axis[i]);
                acc.finish()
            };
            TaylorVec3::new(row(0), row(1), row(2))
        };
        Self::from_cols(col(&self.x_axis), col(&self.y_axis), col(&self.z_axis))
    }
}

/// An enclosure of a time-dependent rigid transform `p ↦ R(t) p + T(t)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TaylorAffine3<const ORDER: usize = 3> {
    /// The rotation part.
    pub rotation: TaylorMat3<ORDER>,
    /// The translation part.
    pub translation: TaylorVec3<ORDER>,
}

impl<const ORDER: usize> TaylorAffine3<ORDER> {
    /// A transform from its parts.
    #[must_use]
    pub const fn new(rotation: TaylorMat3<ORDER>, translation: TaylorVec3<ORDER>) -> Self {
        Self {
            rotation,
            translation,
        }
    }

    /// The identity over `dom`.
    #[must_use]
    pub fn identity(dom: TimeDomain) -> Self {
        Self::new(
            TaylorMat3::identity(dom),
            TaylorVec3::constant(dom, DVec3::ZERO),
        )
    }

    /// The constant transform `a`.
    #[must_use]
    pub fn constant(dom: TimeDomain, a: &DAffine3) -> Self {
        Self::new(
            TaylorMat3::constant(dom, a.matrix3),
            TaylorVec3::constant(dom, a.translation),
        )
    }

    /// The screw-like local motion of M1 §3.3 / M4 §3.2: rotation by
    /// `ω t + φ` about the direction of `axis` (through the origin), then
    /// translation `velocity · t + start`.
    ///
    /// # Errors
    /// [`IntervalError::BadAxis`] or [`IntervalError::NotFinite`].
    pub fn in_between(
        dom: TimeDomain,
        axis: DVec3,
        omega: f64,
        phi: f64,
        velocity: DVec3,
        start: DVec3,
    ) -> Result<Self, IntervalError> {
        Ok(Self::new(
            TaylorMat3::rotation_affine_angle(dom, axis, omega, phi)?,
            TaylorVec3::linear(dom, velocity, start)?,
        ))
    }

    /// The time domain.
    #[must_use]
    pub fn domain(&self) -> &TimeDomain {
        self.rotation.domain()
    }

    /// `self ∘ rhs` (apply `rhs` first): the product of local motions along
    /// a chain.
    ///
    /// # Panics
    /// When the domains differ.
    #[must_use]
    pub fn compose(&self, rhs: &Self) -> Self {
        let (r, t) =
            self.rotation
                .mul_mat3_and_vec3_add(&rhs.rotation, &rhs.translation, &self.translation);
        Self::new(r, t)
    }

    /// `self ∘ a` for a constant transform `a` (e.g. a joint's fixed origin).
    #[must_use]
    pub fn compose_const(&self, a: &DAffine3) -> Self {
        Self::new(
            self.rotation.mul_dmat3(&a.matrix3),
            self.rotation
                .mul_const_vec3_add(a.translation, &self.translation),
        )
    }

    /// `a ∘ self` for a constant transform `a`.
    #[must_use]
    pub fn premul_const(&self, a: &DAffine3) -> Self {
        let rot = self.rotation.premul_dmat3(&a.matrix3);
        let t = TaylorMat3::constant(*self.domain(), a.matrix3).mul_vec3_add(
            &self.translation,
            &TaylorVec3::constant(*self.domain(), a.translation),
        );
        Self::new(rot, t)
    }

    /// The moving image `R(t) p + T(t)` of a fixed local point.
    #[must_use]
    pub fn transform_point(&self, p: DVec3) -> TaylorVec3<ORDER> {
        self.rotation.mul_const_vec3_add(p, &self.translation)
    }

    /// The moving image `R(t) v` of a fixed local vector.
    #[must_use]
    pub fn transform_vector(&self, v: DVec3) -> TaylorVec3<ORDER> {
        self.rotation.mul_const_vec3(v)
    }

    /// Enclosure (an AABB) of every position of the local point `p` over the
    /// domain.
    #[must_use]
    pub fn bound_point(&self, p: DVec3) -> IntervalVec3 {
        self.transform_point(p).bound()
    }

    /// Enclosure of the transform over the whole domain.
    #[must_use]
    pub fn bound(&self) -> crate::linalg::IntervalAffine3 {
        crate::linalg::IntervalAffine3::new(self.rotation.bound(), self.translation.bound())
    }

    /// Enclosure of the transform at `t`, `None` outside the domain.
    #[must_use]
    pub fn eval(&self, t: f64) -> Option<crate::linalg::IntervalAffine3> {
        Some(crate::linalg::IntervalAffine3::new(
            self.rotation.eval(t)?,
            self.translation.eval(t)?,
        ))
    }

    /// Restriction to a sub-domain.
    ///
    /// # Errors
    /// [`IntervalError::NotASubDomain`].
    pub fn restrict(&self, sub: TimeDomain) -> Result<Self, IntervalError> {
        Ok(Self::new(
            self.rotation.restrict(sub)?,
            self.translation.restrict(sub)?,
        ))
    }
}
