//! Midpoint–radius arithmetic for the solver's hot loop.
//!
//! A value `x` is known to lie in `[m − r, m + r]`. Sums and products
//! bound the exact result, `|a b − a_m b_m| ≤ |a_m| b_r + a_r |b_m| + a_r b_r`,
//! and every operation adds an allowance for its own rounding: the
//! midpoint is off by at most half an ulp of itself (`≤ 2⁻⁵³ |m|`), and
//! the radius, a sum of a few non-negative rounded terms, by a few ulps; the
//! allowance `ROUND = 10⁻¹⁵ ≈ 9 · 2⁻⁵³` (relative) plus [`TINY`] (for
//! underflow) covers both with room. This is several times cheaper than
//! directed-rounding intervals, and as sound.

#[cfg(test)]
use armature_interval_taylor::IntervalAffine3;
use armature_interval_taylor::{Interval, IntervalMat3, IntervalVec3};
use glam::{DMat3, DVec3};

/// Relative rounding allowance of one operation.
const ROUND: f64 = 1e-15;
/// Absolute allowance for underflow.
const TINY: f64 = 1e-300;

/// A number within `r` of `m`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Mr {
    pub(crate) m: f64,
    pub(crate) r: f64,
}

impl Mr {
    /// The lower end.
    #[inline]
    pub(crate) fn lo(self) -> f64 {
        (self.m - self.r).next_down()
    }

    /// The upper end.
    #[inline]
    pub(crate) fn hi(self) -> f64 {
        (self.m + self.r).next_up()
    }

    /// The enclosing interval (the whole line for a non-finite value).
    pub(crate) fn interval(self) -> Interval {
        Interval::new(self.lo(), self.hi()).unwrap_or(Interval::ENTIRE)
    }

    #[inline]
    fn new(m: f64, r: f64) -> Self {
        Self {
            m,
            r: (r + ROUND * m.abs()) * (1.0 + ROUND) + TINY,
        }
    }
}

impl core::ops::Add for Mr {
    type Output = Self;
    #[inline]
    fn add(self, b: Self) -> Self {
        Self::new(self.m + b.m, self.r + b.r)
    }
}

impl core::ops::Sub for Mr {
    type Output = Self;
    #[inline]
    fn sub(self, b: Self) -> Self {
        Self::new(self.m - b.m, self.r + b.r)
    }
}

impl core::ops::Mul for Mr {
    type Output = Self;
    #[inline]
    fn mul(self, b: Self) -> Self {
        Self::new(
            self.m * b.m,
            self.m.abs() * b.r + self.r * b.m.abs() + self.r * b.r,
        )
    }
}

/// A vector of three [`Mr`]: a box.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct MrVec {
    pub(crate) m: DVec3,
    pub(crate) r: DVec3,
}

impl MrVec {
    #[inline]
    fn get(self, i: usize) -> Mr {
        Mr {
            m: self.m[i],
            r: self.r[i],
        }
    }

    #[inline]
    fn from_parts(x: Mr, y: Mr, z: Mr) -> Self {
        Self {
            m: DVec3::new(x.m, y.m, z.m),
            r: DVec3::new(x.r, y.r, z.r),
        }
    }

    /// Lower corner.
    #[inline]
    pub(crate) fn lo(self) -> DVec3 {
        self.m - self.r * (1.0 + ROUND) - DVec3::splat(TINY) - self.m.abs() * ROUND
    }

    /// Upper corner.
    #[inline]
    pub(crate) fn hi(self) -> DVec3 {
        self.m + self.r * (1.0 + ROUND) + DVec3::splat(TINY) + self.m.abs() * ROUND
    }

    /// The box holding both.
    #[inline]
    pub(crate) fn hull(self, b: Self) -> Self {
        let lo = self.lo().min(b.lo());
        let hi = self.hi().max(b.hi());
        let m = (lo + hi) * 0.5;
        // Rounded up by the allowance.
        let r = (hi - lo) * 0.5;
        Self {
            m,
            r: r * (1.0 + ROUND) + m.abs() * ROUND + DVec3::splat(TINY),
        }
    }

    /// An upper bound of the length.
    #[inline]
    pub(crate) fn length_hi(self) -> f64 {
        let a = self.m.abs() + self.r;
        (a.length() * (1.0 + 4.0 * ROUND)).next_up()
    }

    /// The dot product.
    #[inline]
    pub(crate) fn dot(self, b: Self) -> Mr {
        self.get(0) * b.get(0) + self.get(1) * b.get(1) + self.get(2) * b.get(2)
    }

    /// The cross product.
    #[inline]
    pub(crate) fn cross(self, b: Self) -> Self {
        let (x0, x1, x2) = (self.get(0), self.get(1), self.get(2));
        let (y0, y1, y2) = (b.get(0), b.get(1), b.get(2));
        Self::from_parts(x1 * y2 - x2 * y1, x2 * y0 - x0 * y2, x0 * y1 - x1 * y0)
    }
}

impl core::ops::Sub for MrVec {
    type Output = Self;
    #[inline]
    fn sub(self, b: Self) -> Self {
        Self::from_parts(
            self.get(0) - b.get(0),
            self.get(1) - b.get(1),
            self.get(2) - b.get(2),
        )
    }
}

impl core::ops::Add for MrVec {
    type Output = Self;
    #[inline]
    fn add(self, b: Self) -> Self {
        Self::from_parts(
            self.get(0) + b.get(0),
            self.get(1) + b.get(1),
            self.get(2) + b.get(2),
        )
    }
}

/// Midpoint and radius of an interval, rounded so that
/// `[mid − rad, mid + rad]` holds it.
pub(crate) fn mid_rad(i: Interval) -> (f64, f64) {
    let m = i.midpoint();
    let r = (i.hi() - m).max(m - i.lo());
    (m, r.next_up())
}

/// [`mid_rad`] of each component.
pub(crate) fn vec_mid_rad(v: &IntervalVec3) -> (DVec3, DVec3) {
    let (x, rx) = mid_rad(v.x);
    let (y, ry) = mid_rad(v.y);
    let (z, rz) = mid_rad(v.z);
    (DVec3::new(x, y, z), DVec3::new(rx, ry, rz))
}

/// [`mid_rad`] of each entry.
pub(crate) fn mat_mid_rad(m: &IntervalMat3) -> (DMat3, DMat3) {
    let (x, rx) = vec_mid_rad(&m.x_axis);
    let (y, ry) = vec_mid_rad(&m.y_axis);
    let (z, rz) = vec_mid_rad(&m.z_axis);
    (DMat3::from_cols(x, y, z), DMat3::from_cols(rx, ry, rz))
}

/// An affine map `p ↦ R p + T` with `R ∈ rm ± rr`, `T ∈ tm ± tr`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct MrAffine {
    rm: DMat3,
    rr: DMat3,
    tm: DVec3,
    tr: DVec3,
}

impl Default for MrAffine {
    fn default() -> Self {
        Self {
            rm: DMat3::IDENTITY,
            rr: DMat3::ZERO,
            tm: DVec3::ZERO,
            tr: DVec3::ZERO,
        }
    }
}

/// Entry-wise absolute value.
pub(crate) fn abs_mat(m: &DMat3) -> DMat3 {
    DMat3::from_cols(m.x_axis.abs(), m.y_axis.abs(), m.z_axis.abs())
}

impl MrAffine {
    /// From its parts: `R ∈ rm ± rr`, `T ∈ tm ± tr` (radii `≥ 0`).
    pub(crate) const fn new(rm: DMat3, rr: DMat3, tm: DVec3, tr: DVec3) -> Self {
        Self { rm, rr, tm, tr }
    }

    /// The midpoint–radius form of an interval enclosure.
    #[cfg(test)]
    pub(crate) fn from_interval(a: &IntervalAffine3) -> Self {
        let (rm, rr) = mat_mid_rad(&a.rotation);
        let (tm, tr) = vec_mid_rad(&a.translation);
        Self { rm, rr, tm, tr }
    }

    /// The box of the images of `p`.
    #[inline]
    pub(crate) fn apply(&self, p: DVec3) -> MrVec {
        let m = self.rm * p + self.tm;
        let pa = p.abs();
        // Rounding of the 3-term products and the sum: a few ulps of the
        // magnitudes involved.
        let size = abs_mat(&self.rm) * pa + self.tm.abs();
        let r = self.rr * pa + self.tr;
        MrVec {
            m,
            r: (r + size * (4.0 * ROUND)) * (1.0 + ROUND) + DVec3::splat(TINY),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn mr(m: f64, r: f64) -> Mr {
        Mr::new(m, r)
    }

    proptest! {
        /// Sums and products of points inside the operands stay inside the
        /// results, also against the directed-rounding intervals.
        #[test]
        fn operations_enclose_their_points(
            am in -1e3f64..1e3, ar in 0f64..10.0, bm in -1e3f64..1e3, br in 0f64..10.0,
            s in -1f64..1.0, u in -1f64..1.0,
        ) {
            let (a, b) = (mr(am, ar), mr(bm, br));
            let (x, y) = (am + s * ar, bm + u * br);
            let ia = a.interval();
            let ib = b.interval();
            for (r, exact, iv) in [
                (a + b, x + y, ia + ib),
                (a - b, x - y, ia - ib),
                (a * b, x * y, ia * ib),
            ] {
                prop_assert!(r.lo() <= exact && exact <= r.hi(), "{r:?} {exact}");
                // Midpoint–radius products are at most 1.5 times as wide
                // as the exact range (Rump, 1999), sums as wide, up to the
                // allowance.
                prop_assert!(r.hi() - r.lo() <= 1.5 * iv.width() * (1.0 + 1e-12) + 1e-9);
            }
        }

        #[test]
        fn affine_images_enclose_the_interval_images(
            p in prop::array::uniform3(-10f64..10.0),
            w in 0f64..0.1,
        ) {
            let p = DVec3::from_array(p);
            let rot = DMat3::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), 0.7);
            let widen = |v: DVec3| IntervalVec3::new(
                Interval::new(v.x - w, v.x + w).unwrap_or(Interval::ENTIRE),
                Interval::new(v.y - w, v.y + w).unwrap_or(Interval::ENTIRE),
                Interval::new(v.z - w, v.z + w).unwrap_or(Interval::ENTIRE),
            );
            let a = IntervalAffine3::new(
                IntervalMat3::from_cols(widen(rot.x_axis), widen(rot.y_axis), widen(rot.z_axis)),
                widen(DVec3::new(1.0, -2.0, 0.5)),
            );
            let exact = a.transform_point(p);
            let b = MrAffine::from_interval(&a).apply(p);
            prop_assert!(b.lo().cmple(exact.lo()).all() && b.hi().cmpge(exact.hi()).all());
        }
    }
}
