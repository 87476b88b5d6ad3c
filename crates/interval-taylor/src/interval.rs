//! [`Interval`]: a closed interval of reals with f64 end points, rounded
//! outward after every operation.

use crate::error::IntervalError;
use crate::round::{LIBM_ULPS, down, down_n, mul_ep, up, up_n};
use core::fmt;
use core::ops::{Add, AddAssign, Div, Mul, MulAssign, Neg, Sub, SubAssign};

/// A closed interval `[lo, hi]` of real numbers with `f64` end points.
///
/// Invariants: `lo ≤ hi`, neither end point is NaN, `lo < +∞` and `hi > −∞`
/// (end points may be infinite, so the interval may be unbounded, but it
/// always holds at least one real number).
///
/// Every arithmetic operation returns an interval that contains the exact
/// result of the operation applied to every pair of real numbers in its
/// operands: end points are computed in round-to-nearest and then moved one
/// ulp outward (`next_down` / `next_up`), which is sound because IEEE 754
/// operations are correctly rounded. Results of the platform `sin` / `cos`,
/// which are not correctly rounded, are moved [`LIBM_ULPS`](crate::LIBM_ULPS)
/// ulps outward.
///
/// A NaN scalar operand (`interval * f64::NAN`) stands for an unknown value:
/// the result is [`Interval::ENTIRE`], which is sound and keeps the
/// invariants. Use [`Interval::new`] or [`Interval::try_point`] to reject NaN
/// at the boundary instead.
///
/// ```
/// use armature_interval_taylor::Interval;
/// let x = Interval::new(1.0, 2.0)?;
/// let y = x * x - x; // dependency: true range is [0, 2], interval gives [-1, 3]
/// assert!(y.contains(0.0) && y.contains(2.0));
/// assert!(y.subset(Interval::new(-1.0, 3.0)?.inflate_ulps(4)));
/// # Ok::<(), armature_interval_taylor::IntervalError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Default)]
pub struct Interval {
    lo: f64,
    hi: f64,
}

/// The f64 nearest to π; it lies below π.
const PI_LO: f64 = core::f64::consts::PI;

impl Interval {
    /// `[0, 0]`.
    pub const ZERO: Self = Self { lo: 0.0, hi: 0.0 };
    /// `[1, 1]`.
    pub const ONE: Self = Self { lo: 1.0, hi: 1.0 };
    /// `[−1, 1]`, the range of `sin` and `cos`.
    pub const UNIT: Self = Self { lo: -1.0, hi: 1.0 };
    /// The whole real line `[−∞, +∞]`.
    pub const ENTIRE: Self = Self {
        lo: f64::NEG_INFINITY,
        hi: f64::INFINITY,
    };
    /// An enclosure of π.
    pub const PI: Self = Self {
        lo: PI_LO,
        hi: 3.141_592_653_589_793_6,
    };
    /// An enclosure of π/2.
    pub const HALF_PI: Self = Self {
        lo: PI_LO / 2.0,
        hi: 3.141_592_653_589_793_6 / 2.0,
    };
    /// An enclosure of 2π.
    pub const TWO_PI: Self = Self {
        lo: PI_LO * 2.0,
        hi: 3.141_592_653_589_793_6 * 2.0,
    };
    /// Largest argument magnitude for which [`Interval::sin`] and
    /// [`Interval::cos`] trust the platform `sin`/`cos` (widened by
    /// [`LIBM_ULPS`](crate::LIBM_ULPS)); an interval reaching `±TRIG_LIMIT`
    /// or beyond gets `[−1, 1]`.
    ///
    /// The widening assumes a libm whose argument reduction is exact (as
    /// glibc's, musl's and the BSDs' Payne–Hanek reductions are). A cheaper
    /// reduction by a few-part approximation of π loses about `|x|` times
    /// that approximation's error, which is harmless for the moderate
    /// angles of joints and motions (a few thousand radians at the most) but
    /// grows without bound; below `1e5` a two-part π of 2⁻¹⁰⁶ relative
    /// error costs less than 1e-26, inside the widening of every result of
    /// magnitude above 1e-10 (closer to a zero of the function the limit
    /// bounds the exposure to such a libm but does not remove it). Angles
    /// beyond it would only come from unbounded rotations, where `[−1, 1]`
    /// loses nothing that matters.
    pub const TRIG_LIMIT: f64 = 1.0e5;

    /// The interval `[lo, hi]`.
    ///
    /// # Errors
    /// [`IntervalError::NaN`] if an end point is NaN,
    /// [`IntervalError::Inverted`] if `lo > hi`, and
    /// [`IntervalError::NoRealNumber`] for `[+∞, +∞]` or `[−∞, −∞]`.
    pub fn new(lo: f64, hi: f64) -> Result<Self, IntervalError> {
        if lo.is_nan() || hi.is_nan() {
            return Err(IntervalError::NaN { lo, hi });
        }
        if lo > hi {
            return Err(IntervalError::Inverted { lo, hi });
        }
        if lo == f64::INFINITY || hi == f64::NEG_INFINITY {
            return Err(IntervalError::NoRealNumber { lo, hi });
        }
        Ok(Self { lo, hi })
    }

    /// The degenerate interval `[x, x]`.
    ///
    /// # Errors
    /// As [`Interval::new`]: NaN and infinite `x` are rejected.
    pub fn try_point(x: f64) -> Result<Self, IntervalError> {
        if x.is_infinite() {
            return Err(IntervalError::NoRealNumber { lo: x, hi: x });
        }
        Self::new(x, x)
    }

    /// The degenerate interval `[x, x]`; an infinite `x` gives the half line
    /// beyond `±MAX`, and NaN (an unknown number) gives [`Interval::ENTIRE`].
    ///
    /// See also [`Interval::try_point`], which rejects those inputs.
    #[inline]
    #[must_use]
    pub fn point(x: f64) -> Self {
        if x.is_nan() {
            Self::ENTIRE
        } else if x == f64::INFINITY {
            Self {
                lo: f64::MAX,
                hi: x,
            }
        } else if x == f64::NEG_INFINITY {
            Self {
                lo: x,
                hi: -f64::MAX,
            }
        } else {
            Self { lo: x, hi: x }
        }
    }

    /// The interval from end points computed in round-to-nearest, rounded
    /// outward by one ulp. NaN end points (an undefined operation) give the
    /// corresponding infinity, which keeps the result sound.
    #[inline(always)]
    pub(crate) fn outward(lo: f64, hi: f64) -> Self {
        let lo = if lo.is_nan() {
            f64::NEG_INFINITY
        } else {
            down(lo)
        };
        let hi = if hi.is_nan() { f64::INFINITY } else { up(hi) };
        Self { lo, hi }
    }

    /// Interval from end points the caller guarantees to be ordered, not NaN
    /// and not both the same infinity.
    #[inline(always)]
    pub(crate) const fn from_ordered(lo: f64, hi: f64) -> Self {
        Self { lo, hi }
    }

    /// `[−r, r]` for `r ≥ 0` (`r` is trusted to be non-negative, not NaN).
    #[inline(always)]
    pub(crate) fn symmetric(r: f64) -> Self {
        Self { lo: -r, hi: r }
    }

    /// The lower end point.
    #[inline(always)]
    #[must_use]
    pub const fn lo(self) -> f64 {
        self.lo
    }

    /// The upper end point.
    #[inline(always)]
    #[must_use]
    pub const fn hi(self) -> f64 {
        self.hi
    }

    /// A number inside the interval near its centre (0 for the entire line,
    /// `±f64::MAX` for half lines).
    #[must_use]
    pub fn midpoint(self) -> f64 {
        if self.lo == f64::NEG_INFINITY {
            return if self.hi == f64::INFINITY {
                0.0
            } else {
                -f64::MAX
            };
        }
        if self.hi == f64::INFINITY {
            return f64::MAX;
        }
        // Halving first cannot overflow; the result is clamped because the
        // rounded sum may step outside a very narrow interval.
        (0.5 * self.lo + 0.5 * self.hi).clamp(self.lo, self.hi)
    }

    /// An upper bound `r` such that `[m − r, m + r] ⊇ self` for
    /// `m = self.midpoint()`.
    #[must_use]
    pub fn radius(self) -> f64 {
        let m = self.midpoint();
        up((m - self.lo).max(self.hi - m))
    }

    /// An upper bound on `hi − lo`.
    #[must_use]
    pub fn width(self) -> f64 {
        up(self.hi - self.lo)
    }

    /// The largest absolute value in the interval.
    #[must_use]
    pub fn mag(self) -> f64 {
        self.lo.abs().max(self.hi.abs())
    }

    /// The smallest absolute value in the interval.
    #[must_use]
    pub fn mig(self) -> f64 {
        if self.lo > 0.0 {
            self.lo
        } else if self.hi < 0.0 {
            -self.hi
        } else {
            0.0
        }
    }

    /// Whether `x` lies in the interval (false for NaN).
    #[must_use]
    pub fn contains(self, x: f64) -> bool {
        self.lo <= x && x <= self.hi
    }

    /// Whether `self ⊆ other`.
    #[must_use]
    pub fn subset(self, other: Self) -> bool {
        other.lo <= self.lo && self.hi <= other.hi
    }

    /// Whether the interval holds zero.
    #[must_use]
    pub fn contains_zero(self) -> bool {
        self.lo <= 0.0 && 0.0 <= self.hi
    }

    /// Whether both end points are finite.
    #[must_use]
    pub fn is_bounded(self) -> bool {
        self.lo.is_finite() && self.hi.is_finite()
    }

    /// Whether the interval holds exactly one number.
    #[must_use]
    pub fn is_point(self) -> bool {
        self.lo == self.hi
    }

    /// The smallest interval holding both.
    #[must_use]
    pub fn hull(self, other: Self) -> Self {
        Self {
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }

    /// The smallest interval holding `self` and the number `x` (NaN ignored).
    #[must_use]
    pub fn hull_point(self, x: f64) -> Self {
        Self {
            lo: self.lo.min(x),
            hi: self.hi.max(x),
        }
    }

    /// The common part, or `None` when the intervals are disjoint.
    #[must_use]
    pub fn intersect(self, other: Self) -> Option<Self> {
        let lo = self.lo.max(other.lo);
        let hi = self.hi.min(other.hi);
        (lo <= hi).then_some(Self { lo, hi })
    }

    /// The interval widened by `n` ulps on each side.
    #[must_use]
    pub fn inflate_ulps(self, n: u32) -> Self {
        Self {
            lo: down_n(self.lo, n),
            hi: up_n(self.hi, n),
        }
    }

    /// The interval widened by `r ≥ 0` on each side (rounded outward).
    #[must_use]
    pub fn inflate(self, r: f64) -> Self {
        let r = r.abs();
        Self::outward(self.lo - r, self.hi + r)
    }

    /// `{ min(x, y) : x ∈ self, y ∈ other }`.
    #[must_use]
    pub fn min(self, other: Self) -> Self {
        Self {
            lo: self.lo.min(other.lo),
            hi: self.hi.min(other.hi),
        }
    }

    /// `{ max(x, y) : x ∈ self, y ∈ other }`.
    #[must_use]
    pub fn max(self, other: Self) -> Self {
        Self {
            lo: self.lo.max(other.lo),
            hi: self.hi.max(other.hi),
        }
    }

    /// `{ |x| : x ∈ self }`.
    #[must_use]
    pub fn abs(self) -> Self {
        Self {
            lo: self.mig(),
            hi: self.mag(),
        }
    }

    /// `{ x² : x ∈ self }` (tighter than `self * self`, which ignores that
    /// both factors are the same number).
    #[must_use]
    pub fn sqr(self) -> Self {
        let a = self.mig();
        let b = self.mag();
        let lo = if a == 0.0 { 0.0 } else { down(a * a).max(0.0) };
        Self { lo, hi: up(b * b) }
    }

    /// `{ √x : x ∈ self, x ≥ 0 }`: the part of the interval below zero is
    /// outside the square root's domain and ignored.
    ///
    /// # Errors
    /// [`IntervalError::NegativeSqrt`] when the whole interval is below zero.
    pub fn sqrt(self) -> Result<Self, IntervalError> {
        if self.hi < 0.0 {
            return Err(IntervalError::NegativeSqrt {
                lo: self.lo,
                hi: self.hi,
            });
        }
        let lo = if self.lo <= 0.0 {
            0.0
        } else {
            down(self.lo.sqrt()).max(0.0)
        };
        Ok(Self {
            lo,
            hi: up(self.hi.sqrt()),
        })
    }

    /// `{ 1 / x : x ∈ self }`, see [`Div`] for a divisor holding zero.
    #[must_use]
    pub fn recip(self) -> Self {
        Self::ONE / self
    }

    /// Division that rejects the zero interval `[0, 0]` as a divisor.
    ///
    /// # Errors
    /// [`IntervalError::DivisionByZero`] when `rhs` is `[0, 0]`.
    pub fn checked_div(self, rhs: Self) -> Result<Self, IntervalError> {
        if rhs.lo == 0.0 && rhs.hi == 0.0 {
            Err(IntervalError::DivisionByZero)
        } else {
            Ok(self / rhs)
        }
    }

    /// `{ xⁿ : x ∈ self }` for any integer `n` (`x⁰ = 1`; negative powers are
    /// reciprocals, unbounded when the interval holds zero).
    #[must_use]
    pub fn powi(self, n: i32) -> Self {
        if n < 0 {
            return self.powi_unsigned(n.unsigned_abs()).recip();
        }
        self.powi_unsigned(n.unsigned_abs())
    }

    fn powi_unsigned(self, n: u32) -> Self {
        match n {
            0 => Self::ONE,
            1 => self,
            2 => self.sqr(),
            _ if n.is_multiple_of(2) => {
                let lo = pow_abs(self.mig(), n).lo;
                Self {
                    lo: lo.max(0.0),
                    hi: pow_abs(self.mag(), n).hi,
                }
            }
            _ => {
                // Odd powers are increasing: map each end point.
                let at = |x: f64| {
                    let p = pow_abs(x.abs(), n);
                    if x < 0.0 { -p } else { p }
                };
                Self {
                    lo: at(self.lo).lo,
                    hi: at(self.hi).hi,
                }
            }
        }
    }

    /// `{ sin x : x ∈ self }`, exact extrema for any width (≥ 2π gives
    /// `[−1, 1]`), end-point values widened by [`LIBM_ULPS`](crate::LIBM_ULPS).
    /// Intervals reaching [`Interval::TRIG_LIMIT`] in magnitude get
    /// `[−1, 1]`: the platform's argument reduction is not trusted there.
    #[must_use]
    pub fn sin(self) -> Self {
        self.trig(f64::sin, Self::HALF_PI, -Self::HALF_PI)
    }

    /// `{ cos x : x ∈ self }`, as [`Interval::sin`].
    #[must_use]
    pub fn cos(self) -> Self {
        self.trig(f64::cos, Self::ZERO, Self::PI)
    }

    /// Range of a 2π-periodic function `f` with maximum 1 at `argmax + 2kπ`
    /// and minimum −1 at `argmin + 2kπ`, monotone in between.
    fn trig(self, f: fn(f64) -> f64, argmax: Self, argmin: Self) -> Self {
        // The platform's argument reduction is trusted only for moderate
        // arguments (see `TRIG_LIMIT`).
        if !(self.lo > -Self::TRIG_LIMIT && self.hi < Self::TRIG_LIMIT) {
            return Self::UNIT;
        }
        let lo_val = libm_enclosure(f(self.lo));
        let hi_val = libm_enclosure(f(self.hi));
        let mut r = lo_val.hull(hi_val);
        if holds_phase(self, argmax) {
            r.hi = 1.0;
        }
        if holds_phase(self, argmin) {
            r.lo = -1.0;
        }
        r
    }
}

/// Enclosure of the true value of a platform `sin`/`cos` result `y`.
#[inline]
fn libm_enclosure(y: f64) -> Interval {
    Interval {
        lo: down_n(y, LIBM_ULPS).max(-1.0),
        hi: up_n(y, LIBM_ULPS).min(1.0),
    }
}

/// Whether `x` may hold a point `c + 2kπ` for an integer `k` (never a false
/// "no": the test runs in outward-rounded interval arithmetic).
#[inline]
fn holds_phase(x: Interval, c: Interval) -> bool {
    let u = (x - c) / Interval::TWO_PI;
    u.hi.floor() >= u.lo.ceil()
}

/// Enclosure of `aⁿ` for `a ≥ 0` by binary powering of `[a, a]`.
fn pow_abs(a: f64, mut n: u32) -> Interval {
    let mut base = Interval::point(a);
    let mut acc = Interval::ONE;
    while n > 0 {
        if n & 1 == 1 {
            acc = mul_nonneg(acc, base);
        }
        n >>= 1;
        if n > 0 {
            base = mul_nonneg(base, base);
        }
    }
    acc
}

/// Product of two intervals of non-negative numbers.
#[inline]
fn mul_nonneg(a: Interval, b: Interval) -> Interval {
    Interval {
        lo: down(mul_ep(a.lo, b.lo)).max(0.0),
        hi: up(mul_ep(a.hi, b.hi)),
    }
}

impl fmt::Debug for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{:e}, {:e}]", self.lo, self.hi)
    }
}

impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = f.precision() {
            write!(f, "[{:.*}, {:.*}]", p, self.lo, p, self.hi)
        } else {
            write!(f, "[{}, {}]", self.lo, self.hi)
        }
    }
}

impl From<f64> for Interval {
    /// Same as [`Interval::point`].
    fn from(x: f64) -> Self {
        Self::point(x)
    }
}

impl TryFrom<(f64, f64)> for Interval {
    type Error = IntervalError;
    fn try_from((lo, hi): (f64, f64)) -> Result<Self, IntervalError> {
        Self::new(lo, hi)
    }
}

impl Neg for Interval {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Self {
            lo: -self.hi,
            hi: -self.lo,
        }
    }
}

impl Add for Interval {
    type Output = Self;
    #[inline]
    fn add(self, rhs: Self) -> Self {
        Self::outward(self.lo + rhs.lo, self.hi + rhs.hi)
    }
}

impl Sub for Interval {
    type Output = Self;
    #[inline]
    fn sub(self, rhs: Self) -> Self {
        Self::outward(self.lo - rhs.hi, self.hi - rhs.lo)
    }
}

impl Mul for Interval {
    type Output = Self;
    #[inline]
    fn mul(self, rhs: Self) -> Self {
        let (a, b, c, d) = (self.lo, self.hi, rhs.lo, rhs.hi);
        // Sign cases keep the common ones at two products.
        if a >= 0.0 && c >= 0.0 {
            return Self::outward(mul_ep(a, c), mul_ep(b, d));
        }
        if b <= 0.0 && d <= 0.0 {
            return Self::outward(mul_ep(b, d), mul_ep(a, c));
        }
        let p1 = mul_ep(a, c);
        let p2 = mul_ep(a, d);
        let p3 = mul_ep(b, c);
        let p4 = mul_ep(b, d);
        Self::outward(p1.min(p2).min(p3.min(p4)), p1.max(p2).max(p3.max(p4)))
    }
}

impl Div for Interval {
    type Output = Self;
    /// Division. A divisor that holds zero gives the hull of the exact
    /// quotient set: a half line when the dividend has one sign and the
    /// divisor touches zero at one end, else [`Interval::ENTIRE`] (also for
    /// the divisor `[0, 0]`, where no quotient exists;
    /// [`Interval::checked_div`] rejects that case).
    fn div(self, rhs: Self) -> Self {
        let (a, b, c, d) = (self.lo, self.hi, rhs.lo, rhs.hi);
        if c > 0.0 || d < 0.0 {
            let q = [a / c, a / d, b / c, b / d];
            if q.iter().any(|x| x.is_nan()) {
                // ∞/∞: the quotient set is unbounded in ways not worth case
                // analysis; the entire line is sound.
                return Self::ENTIRE;
            }
            let lo = q[0].min(q[1]).min(q[2].min(q[3]));
            let hi = q[0].max(q[1]).max(q[2].max(q[3]));
            return Self::outward(lo, hi);
        }
        if self.contains_zero() || (c < 0.0 && d > 0.0) || (c == 0.0 && d == 0.0) {
            return Self::ENTIRE;
        }
        // Divisor touches zero at exactly one end; dividend has one sign.
        if c == 0.0 {
            // Divisor in (0, d].
            if a > 0.0 {
                Self::from_ordered(down(a / d), f64::INFINITY)
            } else {
                Self::from_ordered(f64::NEG_INFINITY, up(b / d))
            }
        } else if a > 0.0 {
            // Divisor in [c, 0), c < 0.
            Self::from_ordered(f64::NEG_INFINITY, up(a / c))
        } else {
            Self::from_ordered(down(b / c), f64::INFINITY)
        }
    }
}

macro_rules! scalar_ops {
    ($($tr:ident $m:ident),*) => {$(
        impl $tr<f64> for Interval {
            type Output = Interval;
            #[inline]
            fn $m(self, rhs: f64) -> Interval {
                self.$m(Interval::point(rhs))
            }
        }
        impl $tr<Interval> for f64 {
            type Output = Interval;
            #[inline]
            fn $m(self, rhs: Interval) -> Interval {
                Interval::point(self).$m(rhs)
            }
        }
    )*};
}
scalar_ops!(Add add, Sub sub, Mul mul, Div div);

macro_rules! assign_ops {
    ($($tr:ident $m:ident $op:ident),*) => {$(
        impl $tr for Interval {
            #[inline]
            fn $m(&mut self, rhs: Interval) {
                *self = (*self).$op(rhs);
            }
        }
        impl $tr<f64> for Interval {
            #[inline]
            fn $m(&mut self, rhs: f64) {
                *self = (*self).$op(rhs);
            }
        }
    )*};
}
assign_ops!(AddAssign add_assign add, SubAssign sub_assign sub, MulAssign mul_assign mul);

impl core::iter::Sum for Interval {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::ZERO, |a, b| a + b)
    }
}
