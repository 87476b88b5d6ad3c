//! [`TaylorModel`]: a polynomial in time plus an interval remainder that
//! together enclose a function on a time domain, rigorously in floating
//! point (M4 §5.1).
//!
//! The soundness argument is on [`TaylorModel`].

use crate::domain::TimeDomain;
use crate::error::IntervalError;
use crate::interval::Interval;
use crate::round::{add_up, mul_up};
use core::ops::{Add, Mul, Neg, Sub};

/// Largest supported order (the accumulator keeps `2·ORDER + 1` powers of
/// the domain radius in a fixed array).
pub const MAX_ORDER: usize = 7;

/// Capacity of the fixed arrays used while computing (≥ `MAX_ORDER + 1`).
const CAP: usize = MAX_ORDER + 1;

/// A Taylor model of order `ORDER` (3 by default) in one time variable.
///
/// The polynomial part is `c₀ + c₁ s + … + c_ORDER s^ORDER` in the centred
/// variable `s = t − mid` of its [`TimeDomain`]; the remainder is an
/// [`Interval`]. See [soundness](#soundness-in-floating-point) below.
///
/// Binary operations need both operands over the same domain; the operators
/// panic otherwise (a programming error), and `try_*` twins return
/// [`IntervalError::DomainMismatch`] instead.
///
/// # Soundness in floating point
///
/// A model `(c, R)` over the domain `[a, b]` expanded at `m` states: for every
/// `t ∈ [a, b]`, `f(t) ∈ Σ_k c_k (t − m)^k + R`, where the polynomial is
/// evaluated in *exact* arithmetic on the f64 coefficients. Every operation
/// keeps that statement true:
///
/// - coefficients are sums of products computed in round-to-nearest; the
///   error of a sum of `n` rounded terms is at most `γ_n Σ|terms|` with
///   `γ_n = n u / (1 − n u) ≤ 2 n u` (`u = 2⁻⁵³`); weighted by
///   `|t − m|^k ≤ rad^k` and summed over `k`, the magnitudes of a product's
///   terms are at most `P_a P_b` with `P = Σ|c_k| rad^k`, and that bound is
///   swept into the remainder. A product that underflows has an absolute
///   error of up to `2⁻¹⁰⁷⁵` instead; a coefficient receives at most `n`
///   of them, each weighted by `rad^k`, so `n · 2⁻¹⁰⁷⁴ · Σ_k rad^k` is
///   swept in as well. Magnitudes are computed in round-to-nearest too:
///   they are sums of products of non-negative numbers, and every product
///   gets the smallest subnormal added, so that an underflowed product is
///   still an upper bound however large the factors it is later multiplied
///   by (a normal product is unchanged by it); `D` roundings along any path
///   then lose at most a factor `(1 − u)^D`, undone by a final factor
///   `1 + 2 D u` and an upward rounding;
/// - terms above the order are bounded over the domain by magnitude and
///   swept into the remainder;
/// - interval constants (`sin` of the expansion point, unit axes) are split
///   into a midpoint coefficient and an interval error that joins the
///   remainder;
/// - the range of the polynomial part ([`TaylorModel::bound`]) is evaluated in
///   outward-rounded interval arithmetic at the end points and at
///   enclosures of the critical points (order ≤ 3), or on a subdivision of
///   the domain (higher orders).
///
/// ```
/// use armature_interval_taylor::{Interval, TaylorModel, TimeDomain};
/// // f(t) = cos t + √3 sin t on [0, π/2]: true range [1, 2].
/// let dom = TimeDomain::new(0.0, std::f64::consts::FRAC_PI_2)?;
/// let (s, c) = TaylorModel::<3>::sin_cos_affine(dom, 1.0, 0.0)?;
/// let f = c + s * 3f64.sqrt();
/// let r = f.bound();
/// assert!(r.lo() <= 1.0 && r.hi() >= 2.0);
/// assert!(r.width() < 1.2); // interval arithmetic gives [0, 1 + √3]
/// # Ok::<(), armature_interval_taylor::IntervalError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TaylorModel<const ORDER: usize = 3> {
    c0: f64,
    c: [f64; ORDER],
    rem: Interval,
    dom: TimeDomain,
}

/// Coefficients `0..=ORDER` in a fixed array (unused tail zero).
type Coeffs = [f64; CAP];

impl<const ORDER: usize> TaylorModel<ORDER> {
    const CHECK: () = assert!(ORDER <= MAX_ORDER, "TaylorModel order above MAX_ORDER");

    /// The model of the constant function `v` (a non-finite `v` gives an
    /// unbounded remainder, see [`Interval::point`]).
    #[must_use]
    pub fn constant(dom: TimeDomain, v: f64) -> Self {
        if v.is_finite() {
            Self::raw(dom, v, [0.0; ORDER], Interval::ZERO)
        } else {
            Self::from_interval(dom, Interval::point(v))
        }
    }

    /// The model of a function known only to lie in `v` on the whole domain.
    #[must_use]
    pub fn from_interval(dom: TimeDomain, v: Interval) -> Self {
        let m = v.midpoint();
        Self::raw(dom, m, [0.0; ORDER], v - m)
    }

    /// The model of `t ↦ t`.
    #[must_use]
    pub fn identity(dom: TimeDomain) -> Self {
        Self::affine_raw(dom, 1.0, 0.0)
    }

    /// The model of `t ↦ slope · t + intercept`.
    ///
    /// # Errors
    /// [`IntervalError::NotFinite`] when a parameter is NaN or infinite.
    pub fn affine(dom: TimeDomain, slope: f64, intercept: f64) -> Result<Self, IntervalError> {
        finite("slope", slope)?;
        finite("intercept", intercept)?;
        Ok(Self::affine_raw(dom, slope, intercept))
    }

    fn affine_raw(dom: TimeDomain, slope: f64, intercept: f64) -> Self {
        // Value at the expansion point, with its rounding error.
        let v0 = Interval::point(slope) * dom.mid() + intercept;
        let c0 = v0.midpoint();
        let mut rem = v0 - c0;
        let mut c = [0.0; ORDER];
        if ORDER >= 1 {
            c[0] = slope;
        } else {
            rem += Interval::point(slope) * dom.offsets();
        }
        Self::raw(dom, c0, c, rem)
    }

    /// A model from its parts: `f(t) ∈ c0 + Σ_k c[k−1] (t − mid)^k + rem`.
    ///
    /// # Errors
    /// [`IntervalError::NotFinite`] when a coefficient is NaN or infinite.
    pub fn from_parts(
        dom: TimeDomain,
        c0: f64,
        c: [f64; ORDER],
        rem: Interval,
    ) -> Result<Self, IntervalError> {
        finite("c0", c0)?;
        for v in c {
            finite("coefficient", v)?;
        }
        Ok(Self::raw(dom, c0, c, rem))
    }

    #[inline(always)]
    fn raw(dom: TimeDomain, c0: f64, c: [f64; ORDER], rem: Interval) -> Self {
        let () = Self::CHECK;
        Self { c0, c, rem, dom }
    }

    /// The models of `sin(ω t + φ)` and `cos(ω t + φ)` with their exact
    /// Lagrange remainders `f^(ORDER+1)(ξ) (ω s)^(ORDER+1) / (ORDER+1)!`,
    /// where the derivative is enclosed over the whole argument range.
    ///
    /// # Errors
    /// [`IntervalError::NotFinite`] when `omega` or `phi` is NaN or infinite.
    pub fn sin_cos_affine(
        dom: TimeDomain,
        omega: f64,
        phi: f64,
    ) -> Result<(Self, Self), IntervalError> {
        finite("omega", omega)?;
        finite("phi", phi)?;
        let w = Interval::point(omega);
        let s = dom.offsets();
        let theta0 = w * dom.mid() + phi;
        let (sin0, cos0) = (theta0.sin(), theta0.cos());
        // d^k/dθ^k of sin cycles through sin, cos, −sin, −cos; of cos
        // through cos, −sin, −cos, sin.
        let sin_cycle = [sin0, cos0, -sin0, -cos0];
        let cos_cycle = [cos0, -sin0, -cos0, sin0];
        let theta = theta0 + w * s;
        let (sin_r, cos_r) = (theta.sin(), theta.cos());
        let sin_rcycle = [sin_r, cos_r, -sin_r, -cos_r];
        let cos_rcycle = [cos_r, -sin_r, -cos_r, sin_r];

        let mut sin_m = Self::raw(dom, 0.0, [0.0; ORDER], Interval::ZERO);
        let mut cos_m = sin_m;
        let mut wk = Interval::ONE; // ω^k / k!
        for k in 0..=ORDER {
            let sk = if k == 0 {
                Interval::ONE
            } else {
                s.powi(k as i32)
            };
            let (cs, cc) = (sin_cycle[k % 4] * wk, cos_cycle[k % 4] * wk);
            sin_m.set_coeff_interval(k, cs, sk);
            cos_m.set_coeff_interval(k, cc, sk);
            wk = wk * w / (k + 1) as f64;
        }
        // Lagrange remainder: wk is now ω^(N+1)/(N+1)!.
        let tail = wk * s.powi(ORDER as i32 + 1);
        sin_m.rem += sin_rcycle[(ORDER + 1) % 4] * tail;
        cos_m.rem += cos_rcycle[(ORDER + 1) % 4] * tail;
        Ok((sin_m, cos_m))
    }

    /// Sets coefficient `k` to the midpoint of `v` and adds the error, times
    /// the enclosure `sk` of `s^k`, to the remainder.
    fn set_coeff_interval(&mut self, k: usize, v: Interval, sk: Interval) {
        let m = v.midpoint();
        if k == 0 {
            self.c0 = m;
        } else {
            self.c[k - 1] = m;
        }
        self.rem += (v - m) * sk;
    }

    /// The time domain.
    #[must_use]
    pub const fn domain(&self) -> &TimeDomain {
        &self.dom
    }

    /// The remainder interval.
    #[must_use]
    pub const fn remainder(&self) -> Interval {
        self.rem
    }

    /// Coefficient `k` of `(t − mid)^k` (0 beyond the order).
    #[must_use]
    pub fn coeff(&self, k: usize) -> f64 {
        match k {
            0 => self.c0,
            _ if k <= ORDER => self.c[k - 1],
            _ => 0.0,
        }
    }

    #[inline(always)]
    fn coeffs(&self) -> Coeffs {
        let mut a = [0.0; CAP];
        a[0] = self.c0;
        a[1..=ORDER].copy_from_slice(&self.c);
        a
    }

    /// Enclosure of the range of the polynomial part over the domain.
    #[must_use]
    pub fn poly_range(&self) -> Interval {
        let a = self.coeffs();
        let s = self.dom.offsets();
        let at = |x: Interval| horner::<ORDER>(&a, x);
        let mut r = at(Interval::point(s.lo())).hull(at(Interval::point(s.hi())));
        match ORDER {
            0 | 1 => {}
            2 => {
                if a[2] != 0.0 {
                    // p'(s) = c1 + 2 c2 s (2 c2 is exact unless it overflows).
                    let root = Interval::point(-a[1]) / small_multiple(a[2], 2.0);
                    if let Some(x) = root.intersect(s) {
                        r = r.hull(at(x));
                    }
                }
            }
            3 => {
                // p'(s) = c1 + 2 c2 s + 3 c3 s², coefficients enclosed
                // (3 c3 is not exact in f64), zero coefficients kept exactly
                // zero so that a quadratic stays a quadratic.
                let d2 = small_multiple(a[3], 3.0);
                let d1 = small_multiple(a[2], 2.0);
                for x in critical_points(d2, d1, Interval::point(a[1]), s)
                    .into_iter()
                    .flatten()
                {
                    r = r.hull(at(x));
                }
            }
            _ => {
                // Higher orders: interval Horner on 16 sub-intervals.
                const PIECES: usize = 16;
                let w = (s.hi() - s.lo()) / PIECES as f64;
                for i in 0..PIECES {
                    let x0 = s.lo() + w * i as f64;
                    let x1 = if i + 1 == PIECES {
                        s.hi()
                    } else {
                        s.lo() + w * (i + 1) as f64
                    };
                    r = r.hull(at(Interval::outward(x0, x1)));
                }
            }
        }
        r
    }

    /// Enclosure of the function's range over the whole domain: the range
    /// of the polynomial part (sound, see [`TaylorModel`]) plus the
    /// remainder.
    #[must_use]
    pub fn bound(&self) -> Interval {
        self.poly_range() + self.rem
    }

    /// Enclosure of the function's value at `t`, or `None` when `t` is
    /// outside the domain.
    #[must_use]
    pub fn eval(&self, t: f64) -> Option<Interval> {
        if !self.dom.contains(t) {
            return None;
        }
        Some(horner::<ORDER>(&self.coeffs(), self.dom.offset_of(t)) + self.rem)
    }

    /// The model restricted to a sub-domain and re-expanded at its
    /// midpoint (the remainder carries over; coefficient shifts are
    /// computed in interval arithmetic and their error swept in).
    ///
    /// # Errors
    /// [`IntervalError::NotASubDomain`] when `sub ⊄ domain`.
    pub fn restrict(&self, sub: TimeDomain) -> Result<Self, IntervalError> {
        if !self.dom.includes(&sub) {
            return Err(IntervalError::NotASubDomain {
                lo: sub.lo(),
                hi: sub.hi(),
                dom_lo: self.dom.lo(),
                dom_hi: self.dom.hi(),
            });
        }
        let a = self.coeffs();
        let delta = Interval::point(sub.mid()) - self.dom.mid();
        let s = sub.offsets();
        let mut out = Self::raw(sub, 0.0, [0.0; ORDER], self.rem);
        for j in 0..=ORDER {
            // c'_j = Σ_{k ≥ j} C(k, j) c_k δ^(k−j)
            let mut v = Interval::ZERO;
            let mut binom = 1.0_f64; // C(k, j), exact for k ≤ MAX_ORDER
            let mut dp = Interval::ONE;
            for (k, &ak) in a.iter().enumerate().take(ORDER + 1).skip(j) {
                if k > j {
                    binom = binom * k as f64 / (k - j) as f64;
                    dp *= delta;
                }
                v += Interval::point(ak) * dp * binom;
            }
            let sj = if j == 0 {
                Interval::ONE
            } else {
                s.powi(j as i32)
            };
            out.set_coeff_interval(j, v, sj);
        }
        Ok(out)
    }

    /// Checks that `other` shares the domain.
    ///
    /// # Errors
    /// [`IntervalError::DomainMismatch`].
    pub fn check_domain(&self, other: &Self) -> Result<(), IntervalError> {
        if self.dom == other.dom {
            Ok(())
        } else {
            Err(IntervalError::DomainMismatch {
                a_lo: self.dom.lo(),
                a_hi: self.dom.hi(),
                b_lo: other.dom.lo(),
                b_hi: other.dom.hi(),
            })
        }
    }

    /// `self + rhs`.
    ///
    /// # Errors
    /// [`IntervalError::DomainMismatch`].
    pub fn try_add(&self, rhs: &Self) -> Result<Self, IntervalError> {
        self.check_domain(rhs)?;
        let mut acc = Accumulator::new(&self.dom);
        acc.add(self);
        acc.add(rhs);
        Ok(acc.finish())
    }

    /// `self − rhs`.
    ///
    /// # Errors
    /// [`IntervalError::DomainMismatch`].
    pub fn try_sub(&self, rhs: &Self) -> Result<Self, IntervalError> {
        self.check_domain(rhs)?;
        let mut acc = Accumulator::new(&self.dom);
        acc.add(self);
        acc.add_scaled(rhs, -1.0);
        Ok(acc.finish())
    }

    /// `self × rhs`, terms above the order bounded into the remainder.
    ///
    /// # Errors
    /// [`IntervalError::DomainMismatch`].
    pub fn try_mul(&self, rhs: &Self) -> Result<Self, IntervalError> {
        self.check_domain(rhs)?;
        let mut acc = Accumulator::new(&self.dom);
        acc.add_product(self, rhs);
        Ok(acc.finish())
    }

    /// `λ × self` for a number `λ`.
    #[must_use]
    pub fn scale(&self, lambda: f64) -> Self {
        let mut acc = Accumulator::new(&self.dom);
        acc.add_scaled(self, lambda);
        acc.finish()
    }

    /// `λ × self` for every `λ` in an interval.
    #[must_use]
    pub fn scale_interval(&self, lambda: Interval) -> Self {
        let mut acc = Accumulator::new(&self.dom);
        acc.add_scaled_interval(self, lambda);
        acc.finish()
    }

    /// `self + v` for every `v` in an interval.
    #[must_use]
    pub fn add_interval(&self, v: Interval) -> Self {
        let mut acc = Accumulator::new(&self.dom);
        acc.add(self);
        acc.add_constant(v);
        acc.finish()
    }

    /// Σ `a[i] × b[i]`, with one rounding-error sweep for the whole sum
    /// (tighter and faster than separate products and sums).
    ///
    /// # Errors
    /// [`IntervalError::DomainMismatch`].
    pub fn try_dot(a: &[Self], b: &[Self]) -> Result<Self, IntervalError> {
        let Some(first) = a.first().or(b.first()) else {
            return Err(IntervalError::NotFinite {
                name: "empty dot product",
                value: f64::NAN,
            });
        };
        for m in a.iter().chain(b) {
            first.check_domain(m)?;
        }
        let mut acc = Accumulator::new(&first.dom);
        for (x, y) in a.iter().zip(b) {
            acc.add_product(x, y);
        }
        Ok(acc.finish())
    }
}

fn finite(name: &'static str, value: f64) -> Result<(), IntervalError> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(IntervalError::NotFinite { name, value })
    }
}

/// Interval Horner evaluation of `Σ a_k x^k`, `k ≤ ORDER`. Leading and
/// inner zero coefficients are skipped: the operations they would add are
/// exact, but outward rounding would still widen the result by an ulp each.
#[inline]
fn horner<const ORDER: usize>(a: &Coeffs, x: Interval) -> Interval {
    let mut d = ORDER;
    while d > 0 && a[d] == 0.0 {
        d -= 1;
    }
    let mut v = Interval::point(a[d]);
    for k in (0..d).rev() {
        v *= x;
        if a[k] != 0.0 {
            v += a[k];
        }
    }
    v
}

/// `k·x` for a small integer `k`, enclosed: exactly zero for `x = 0` (an
/// outward-rounded `0·k` would be `[−tiny, tiny]`, which the root finder
/// must treat as a possibly vanishing leading coefficient).
#[inline]
fn small_multiple(x: f64, k: f64) -> Interval {
    if x == 0.0 {
        Interval::ZERO
    } else {
        Interval::point(x) * k
    }
}

/// Enclosures, inside `dom`, of every real root in `dom` of
/// `a s² + b s + c` for every choice of coefficients in the intervals;
/// `None` entries are absent roots.
///
/// - `a = [0, 0]`: the linear case, `−c / b`;
/// - `a ∌ 0`: the stable quadratic formula `q = −(b + sign(b)·√disc) / 2`,
///   roots `q / a` and `c / q`; the second root is also `−b/a − q/a`
///   (Vieta), which stays bounded where `c / q` does not (`q ∋ 0`), and the
///   intersection of both is kept;
/// - `a ∋ 0`, not zero (a leading coefficient that only rounding keeps
///   away from zero): a root `x ∈ dom` satisfies `x = −(c + a x²) / b`, so
///   it lies in `−(c + a·dom²) / b` when `b ∌ 0`;
/// - otherwise a root may lie anywhere in `dom`.
///
/// Every case is an enclosure for every choice of the coefficients, so the
/// result is sound under rounding.
fn critical_points(a: Interval, b: Interval, c: Interval, dom: Interval) -> [Option<Interval>; 2] {
    let inside = |x: Interval| x.intersect(dom);
    if a == Interval::ZERO {
        if b == Interval::ZERO {
            // Constant derivative: extrema at the end points only.
            return [None, None];
        }
        if b.contains_zero() {
            return [Some(dom), None];
        }
        return [inside(-c / b), None];
    }
    if a.contains_zero() {
        if b.contains_zero() {
            return [Some(dom), None];
        }
        return [inside(-(c + a * dom.sqr()) / b), None];
    }
    let disc = b.sqr() - a * c * 4.0;
    let Ok(sq) = disc.sqrt() else {
        return [None, None];
    };
    // Both signs give the exact roots, so the choice affects only tightness.
    let q = if b.midpoint() >= 0.0 {
        -(b + sq) * 0.5
    } else {
        (sq - b) * 0.5
    };
    let r1 = q / a;
    let by_product = c / q;
    let by_sum = -(b / a) - r1;
    let r2 = by_product.intersect(by_sum).unwrap_or(by_sum);
    [inside(r1), inside(r2)]
}

/// The smallest positive normal number, `2⁻¹⁰²²`: the bound this module
/// uses for a product that underflows (it is at least the product's
/// absolute error, `2⁻¹⁰⁷⁵`, and at least any product that rounds below
/// it). Subnormal numbers are never produced on purpose: arithmetic on
/// them is a hundred times slower on common hardware, and zero entries
/// (frequent in rotation matrices) would otherwise turn every magnitude
/// sum subnormal.
const TINY: f64 = f64::MIN_POSITIVE;

/// `x · y` for non-negative `x`, `y`, in round-to-nearest, or [`TINY`]
/// when the product underflows: at least `x y (1 − u)` always (an exact
/// zero stays zero; a product that rounds below `TINY` is at most
/// `TINY`); a normal product is left as computed. NaN propagates.
#[inline(always)]
fn mag_mul(x: f64, y: f64) -> f64 {
    let p = x * y;
    if p.is_nan() || p >= TINY {
        p
    } else if x == 0.0 || y == 0.0 {
        0.0
    } else {
        TINY
    }
}

/// A model's data laid out for repeated use as a factor in products (see
/// [`Accumulator::prepare`]).
#[derive(Clone, Copy)]
pub(crate) struct Prepared {
    c: Coeffs,
    rmag: f64,
    pmag: f64,
}

/// Accumulates sums of products of Taylor models over one domain with a
/// single rounding-error sweep (see [`TaylorModel`]).
///
/// The hot loop runs in plain round-to-nearest. Every magnitude it keeps
/// (coefficient magnitude sums, truncated terms, remainder products, powers
/// of the radius) is a sum of products of non-negative numbers, each
/// product taken through [`mag_mul`] (raised to [`TINY`] on underflow), so its computed value is
/// at least the exact one times `(1 − u)^D` for `D` roundings along any
/// path, underflow included; [`Accumulator::finish`] multiplies by
/// `1 + 2 D u ≥ (1 − u)^−D` (valid for `D u ≤ 1/2`) and rounds up.
#[derive(Clone)]
pub(crate) struct Accumulator<'d, const ORDER: usize> {
    dom: &'d TimeDomain,
    /// Powers of the domain radius (round-to-nearest, see above).
    rp: [f64; 2 * CAP],
    coef: Coeffs,
    /// Upper bound (up to the final fudge) on `Σ_k rad^k Σ|terms of c_k|`:
    /// for a product of `a` and `b` this is at most `P_a P_b` with
    /// `P = Σ |c_k| rad^k`, so no per-term magnitudes are needed.
    mag: f64,
    /// Number of rounded terms summed into one coefficient (an upper bound).
    terms: u32,
    /// Number of roundings along any path of the magnitude sums (an upper
    /// bound, without the fixed depth added in `finish`).
    depth: u32,
    /// Magnitude of truncated terms over the domain.
    trunc: f64,
    /// Magnitude of remainder terms of products.
    rem_mag: f64,
    /// Remainder terms kept as intervals (sums and scalings).
    rem: Interval,
}

impl<'d, const ORDER: usize> Accumulator<'d, ORDER> {
    #[inline]
    pub(crate) fn new(dom: &'d TimeDomain) -> Self {
        let mut rp = [0.0; 2 * CAP];
        rp[0] = 1.0;
        for k in 1..=2 * ORDER {
            rp[k] = mag_mul(rp[k - 1], dom.rad());
        }
        Self {
            dom,
            rp,
            coef: [0.0; CAP],
            mag: 0.0,
            terms: 0,
            depth: 0,
            trunc: 0.0,
            rem_mag: 0.0,
            rem: Interval::ZERO,
        }
    }

    #[inline(always)]
    fn same(&self, m: &TaylorModel<ORDER>) {
        assert!(
            *self.dom == m.dom,
            "Taylor models over different time domains: {:?} and {:?}",
            self.dom,
            m.dom
        );
    }

    /// `|c₀| + Σ |c_k| rad^k` in round-to-nearest (depth ≤ 2·ORDER + 1
    /// below the radius powers).
    #[inline(always)]
    fn poly_mag(&self, a: &Coeffs) -> f64 {
        let mut m = a[0].abs();
        for k in 1..=ORDER {
            m += mag_mul(a[k].abs(), self.rp[k]);
        }
        m
    }

    /// Adds `m`.
    #[inline]
    pub(crate) fn add(&mut self, m: &TaylorModel<ORDER>) {
        self.same(m);
        let a = m.coeffs();
        for k in 0..=ORDER {
            self.coef[k] += a[k];
        }
        self.mag += self.poly_mag(&a);
        self.terms += 1;
        self.depth += 2 * ORDER as u32 + 2;
        if m.rem != Interval::ZERO {
            self.rem += m.rem;
        }
    }

    /// Adds `λ m` for a number `λ`.
    #[inline]
    pub(crate) fn add_scaled(&mut self, m: &TaylorModel<ORDER>, lambda: f64) {
        self.same(m);
        if !lambda.is_finite() {
            self.add_scaled_interval(m, Interval::point(lambda));
            return;
        }
        let a = m.coeffs();
        for k in 0..=ORDER {
            self.coef[k] += lambda * a[k];
        }
        self.mag += mag_mul(lambda.abs(), self.poly_mag(&a));
        self.terms += 1;
        self.depth += 2 * ORDER as u32 + 3;
        if m.rem != Interval::ZERO {
            self.rem += m.rem * lambda;
        }
    }

    /// Adds `λ m` for every `λ` in an interval.
    #[inline]
    pub(crate) fn add_scaled_interval(&mut self, m: &TaylorModel<ORDER>, lambda: Interval) {
        let mid = lambda.midpoint();
        if lambda.is_point() && mid.is_finite() {
            self.add_scaled(m, mid);
            return;
        }
        self.same(m);
        if !lambda.is_bounded() {
            self.rem = Interval::ENTIRE;
            return;
        }
        let a = m.coeffs();
        for k in 0..=ORDER {
            self.coef[k] += mid * a[k];
        }
        self.mag += mag_mul(mid.abs(), self.poly_mag(&a));
        self.terms += 1;
        self.depth += 2 * ORDER as u32 + 3;
        // (λ − mid) p(s) + λ R
        let pe = Interval::point(a[0]).inflate(self.poly_mag_tail(&a));
        self.rem += (lambda - mid) * pe + lambda * m.rem;
    }

    /// Upper bound on `Σ_{k≥1} |c_k| rad^k`, rounded upward step by step
    /// (used outside the hot loop).
    fn poly_mag_tail(&self, a: &Coeffs) -> f64 {
        let mut m = 0.0;
        let mut r = 1.0;
        for k in 1..=ORDER {
            r = mul_up(r, self.dom.rad());
            m = add_up(m, mul_up(a[k].abs(), r));
        }
        m
    }

    /// Adds a constant known to lie in `v`.
    #[inline]
    pub(crate) fn add_constant(&mut self, v: Interval) {
        let mid = v.midpoint();
        self.coef[0] += mid;
        self.mag += mid.abs();
        self.terms += 1;
        self.depth += 1;
        self.rem += v - mid;
    }

    /// Prepares `m` as a factor of several products (domain checked here).
    #[inline]
    pub(crate) fn prepare(&self, m: &TaylorModel<ORDER>) -> Prepared {
        self.same(m);
        let c = m.coeffs();
        Prepared {
            c,
            rmag: m.rem.mag(),
            pmag: self.poly_mag(&c),
        }
    }

    /// Adds `a × b`.
    #[inline]
    pub(crate) fn add_product(&mut self, a: &TaylorModel<ORDER>, b: &TaylorModel<ORDER>) {
        let (pa, pb) = (self.prepare(a), self.prepare(b));
        self.add_prepared_product(&pa, &pb);
    }

    /// Adds `a × b` for prepared factors.
    #[inline]
    pub(crate) fn add_prepared_product(&mut self, a: &Prepared, b: &Prepared) {
        let (x, y) = (&a.c, &b.c);
        for i in 0..=ORDER {
            for j in 0..=ORDER - i {
                self.coef[i + j] += x[i] * y[j];
            }
            for j in ORDER - i + 1..=ORDER {
                self.trunc += mag_mul(mag_mul(x[i].abs(), y[j].abs()), self.rp[i + j]);
            }
        }
        // Σ_k rad^k Σ_{i+j=k} |x_i y_j| ≤ P_a P_b.
        self.mag += mag_mul(a.pmag, b.pmag);
        // Each coefficient received k + 1 ≤ ORDER + 1 rounded products; a
        // magnitude path holds a product, a radius power and the sums.
        self.terms += ORDER as u32 + 1;
        self.depth += ((ORDER as u32 + 1) * (ORDER as u32 + 1)) + 2;
        let (ma, mb) = (a.rmag, b.rmag);
        if ma != 0.0 || mb != 0.0 {
            self.rem_mag += mag_mul(a.pmag, mb) + mag_mul(b.pmag, ma) + mag_mul(ma, mb);
            self.depth += 2 * ORDER as u32 + 6;
        }
    }

    /// The model of the accumulated sum.
    #[inline]
    pub(crate) fn finish(self) -> TaylorModel<ORDER> {
        // Coefficient errors: γ_n ≤ 2 n u = n ε for n rounded terms.
        let n = f64::from(self.terms.max(1));
        let gamma = n * f64::EPSILON;
        // Underflowed coefficient products: at most n per coefficient, each
        // off by at most 2⁻¹⁰⁷⁵ < TINY, weighted by rad^k ≤ rp[k] (up to
        // the fudge below). `n · TINY` is exact (a small multiple, normal).
        let mut rsum = 0.0;
        for &r in &self.rp[..=ORDER] {
            rsum += r;
        }
        let under = mul_up(n * TINY, rsum);
        let total = add_up(
            add_up(add_up(mul_up(gamma, self.mag), self.trunc), self.rem_mag),
            under,
        );
        // Depth of every magnitude path, with the radius powers (2·ORDER),
        // their sum (ORDER + 1), the final sums and products (ORDER + 4) and
        // this line's slack.
        let depth = f64::from(self.depth) + (7 * ORDER + 18) as f64;
        let fudge = 1.0 + depth * f64::EPSILON;
        let err = mul_up(total, fudge);
        let mut c = [0.0; ORDER];
        c.copy_from_slice(&self.coef[1..=ORDER]);
        let c0 = self.coef[0];
        if !(c0.is_finite() && c.iter().all(|v| v.is_finite()) && err.is_finite()) {
            // Overflow: nothing is known about the polynomial; keep the
            // model sound with an unbounded remainder.
            return TaylorModel::raw(*self.dom, 0.0, [0.0; ORDER], Interval::ENTIRE);
        }
        let rem = self.rem + Interval::symmetric(err);
        TaylorModel::raw(*self.dom, c0, c, rem)
    }
}

impl<const ORDER: usize> Add for TaylorModel<ORDER> {
    type Output = Self;
    /// # Panics
    /// When the domains differ (see [`TaylorModel::try_add`]).
    fn add(self, rhs: Self) -> Self {
        let mut acc = Accumulator::new(&self.dom);
        acc.add(&self);
        acc.add(&rhs);
        acc.finish()
    }
}

impl<const ORDER: usize> Sub for TaylorModel<ORDER> {
    type Output = Self;
    /// # Panics
    /// When the domains differ (see [`TaylorModel::try_sub`]).
    fn sub(self, rhs: Self) -> Self {
        let mut acc = Accumulator::new(&self.dom);
        acc.add(&self);
        acc.add_scaled(&rhs, -1.0);
        acc.finish()
    }
}

impl<const ORDER: usize> Mul for TaylorModel<ORDER> {
    type Output = Self;
    /// # Panics
    /// When the domains differ (see [`TaylorModel::try_mul`]).
    fn mul(self, rhs: Self) -> Self {
        let mut acc = Accumulator::new(&self.dom);
        acc.add_product(&self, &rhs);
        acc.finish()
    }
}

impl<const ORDER: usize> Mul<f64> for TaylorModel<ORDER> {
    type Output = Self;
    fn mul(self, rhs: f64) -> Self {
        self.scale(rhs)
    }
}

impl<const ORDER: usize> Mul<Interval> for TaylorModel<ORDER> {
    type Output = Self;
    fn mul(self, rhs: Interval) -> Self {
        self.scale_interval(rhs)
    }
}

impl<const ORDER: usize> Add<f64> for TaylorModel<ORDER> {
    type Output = Self;
    fn add(self, rhs: f64) -> Self {
        self.add_interval(Interval::point(rhs))
    }
}

impl<const ORDER: usize> Add<Interval> for TaylorModel<ORDER> {
    type Output = Self;
    fn add(self, rhs: Interval) -> Self {
        self.add_interval(rhs)
    }
}

impl<const ORDER: usize> Neg for TaylorModel<ORDER> {
    type Output = Self;
    fn neg(self) -> Self {
        // Negation is exact.
        Self::raw(self.dom, -self.c0, self.c.map(|v| -v), -self.rem)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A leading coefficient that only rounding keeps from vanishing: the
    /// root of the nearly linear derivative is still enclosed tightly.
    #[test]
    fn critical_points_with_a_possibly_vanishing_leading_coefficient() {
        let dom = Interval::new(-1.0, 1.0).unwrap();
        let a = Interval::new(-1e-300, 1e-300).unwrap();
        let [r, none] = critical_points(a, Interval::point(2.0), Interval::point(0.3), dom);
        let r = r.unwrap();
        assert!(none.is_none());
        assert!(r.contains(-0.15) && r.width() < 1e-15, "{r:?}");
        // b may vanish too: anywhere in the domain.
        let [r, _] = critical_points(a, Interval::new(-1.0, 1.0).unwrap(), Interval::ONE, dom);
        assert_eq!(r, Some(dom));
        // A quadratic whose product form is unbounded (q ∋ 0): the sum form
        // keeps the second root bounded.
        let [r1, r2] = critical_points(Interval::point(3.0), Interval::ZERO, Interval::ZERO, dom);
        assert!(r1.unwrap().contains(0.0) && r2.unwrap().contains(0.0));
        assert!(r1.unwrap().width() < 1e-100 && r2.unwrap().width() < 1e-100);
    }
}
