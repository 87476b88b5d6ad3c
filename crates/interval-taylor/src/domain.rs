//! [`TimeDomain`]: the interval of time a Taylor model is valid on.

use crate::error::IntervalError;
use crate::interval::Interval;
use crate::round::{down, up};

/// A finite time interval `[lo, hi]` with the expansion point `mid` of the
/// Taylor models over it.
///
/// Taylor models are polynomials in the centred variable `s = t − mid`;
/// [`TimeDomain::offsets`] encloses the values `s` takes on the domain and
/// [`TimeDomain::rad`] bounds `|s|`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeDomain {
    lo: f64,
    hi: f64,
    mid: f64,
    s_lo: f64,
    s_hi: f64,
    rad: f64,
}

impl TimeDomain {
    /// The domain `[lo, hi]`, expanded at its midpoint.
    ///
    /// # Errors
    /// [`IntervalError::NaN`], [`IntervalError::Inverted`] or
    /// [`IntervalError::InfiniteDomain`].
    pub fn new(lo: f64, hi: f64) -> Result<Self, IntervalError> {
        if lo.is_nan() || hi.is_nan() {
            return Err(IntervalError::NaN { lo, hi });
        }
        if !(lo.is_finite() && hi.is_finite()) {
            return Err(IntervalError::InfiniteDomain { lo, hi });
        }
        if lo > hi {
            return Err(IntervalError::Inverted { lo, hi });
        }
        let mid = (0.5 * lo + 0.5 * hi).clamp(lo, hi);
        let s_lo = down(lo - mid).min(0.0);
        let s_hi = up(hi - mid).max(0.0);
        Ok(Self {
            lo,
            hi,
            mid,
            s_lo,
            s_hi,
            rad: (-s_lo).max(s_hi),
        })
    }

    /// The normalised query time `[0, 1]`.
    #[must_use]
    pub fn unit() -> Self {
        // [0, 1] is finite and ordered.
        match Self::new(0.0, 1.0) {
            Ok(d) => d,
            Err(_) => unreachable!("[0, 1] is a valid domain"),
        }
    }

    /// The start of the domain.
    #[must_use]
    pub const fn lo(&self) -> f64 {
        self.lo
    }

    /// The end of the domain.
    #[must_use]
    pub const fn hi(&self) -> f64 {
        self.hi
    }

    /// The expansion point (a number inside the domain near its centre).
    #[must_use]
    pub const fn mid(&self) -> f64 {
        self.mid
    }

    /// An upper bound on `|t − mid|` over the domain.
    #[must_use]
    pub const fn rad(&self) -> f64 {
        self.rad
    }

    /// An enclosure of `{ t − mid : t ∈ [lo, hi] }`.
    #[must_use]
    pub fn offsets(&self) -> Interval {
        Interval::from_ordered(self.s_lo, self.s_hi)
    }

    /// The domain as an interval.
    #[must_use]
    pub fn interval(&self) -> Interval {
        Interval::from_ordered(self.lo, self.hi)
    }

    /// Whether `t` lies in the domain.
    #[must_use]
    pub fn contains(&self, t: f64) -> bool {
        self.lo <= t && t <= self.hi
    }

    /// Whether `other ⊆ self`.
    #[must_use]
    pub fn includes(&self, other: &Self) -> bool {
        self.lo <= other.lo && other.hi <= self.hi
    }

    /// The two halves `[lo, mid]` and `[mid, hi]`.
    #[must_use]
    pub fn split(&self) -> (Self, Self) {
        // Both halves are finite and ordered because lo ≤ mid ≤ hi.
        let half = |a: f64, b: f64| match Self::new(a, b) {
            Ok(d) => d,
            Err(_) => unreachable!("halves of a valid domain are valid"),
        };
        (half(self.lo, self.mid), half(self.mid, self.hi))
    }

    /// Enclosure of `t − mid` for one `t` (need not be inside the domain).
    #[must_use]
    pub(crate) fn offset_of(&self, t: f64) -> Interval {
        Interval::point(t) - Interval::point(self.mid)
    }
}
