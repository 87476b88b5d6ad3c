//! Shared test support: an exact-comparison oracle in double-double
//! arithmetic, and the proptest configuration and strategies the interval
//! suites share.
//!
//! A [`Dd`] is the unevaluated sum `hi + lo` of two `f64` with
//! `hi = fl(hi + lo)`, about 106 significant bits. The error-free
//! transformations [`two_sum`] and [`two_prod`] turn one rounded `+` or `×`
//! into an exact pair, so sums and products of two `f64` are known exactly
//! and compared exactly against interval end points ([`le_dd`], [`ge_dd`],
//! [`contains_dd`], [`cmp_prod`], [`cmp_quot`], …). Everything that is not a
//! single sum or product (sin, cos, powers, three-term dot products) is
//! computed in double-double with a relative error around 1e-30, some
//! fifteen orders of magnitude below the ulp-sized margins the crate rounds
//! outward by, so a comparison against such a value can only go wrong if an
//! end point lies within 1e-30 relative of the true value.
//!
//! The oracle itself is checked against values computed independently in
//! `interval_rounding.rs` (module `oracle`).

// Every integration-test binary includes this module and uses a different
// part of it; the rest would warn as dead code in each binary.
#![allow(dead_code)]

use armature_interval_taylor::Interval;
use core::cmp::Ordering;
use core::f64::consts::{FRAC_PI_2, PI, TAU};
use core::ops::{Add, Mul, Neg, Sub};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

// ---------------------------------------------------------------------------
// Proptest configuration
// ---------------------------------------------------------------------------

/// `cases` cases from a fixed seed, so runs are reproducible; setting
/// `PROPTEST_RNG_SEED` in the environment picks another seed (or `random`).
pub(crate) fn config(cases: u32) -> ProptestConfig {
    let default = ProptestConfig::default();
    let rng_seed = if std::env::var_os("PROPTEST_RNG_SEED").is_some() {
        default.rng_seed
    } else {
        RngSeed::Fixed(0x_a5a5_1e55_c0de_2024)
    };
    ProptestConfig {
        cases,
        rng_seed,
        ..default
    }
}

// ---------------------------------------------------------------------------
// Error-free transformations and double-double arithmetic
// ---------------------------------------------------------------------------

/// A double-double number `hi + lo`, normalised: `hi == hi + lo` in f64.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Dd {
    /// The leading part, `fl(hi + lo)`.
    pub(crate) hi: f64,
    /// The trailing part, at most half an ulp of `hi`.
    pub(crate) lo: f64,
}

/// Knuth's TwoSum: `a + b = s + e` exactly with `s = fl(a + b)`, for any
/// finite `a`, `b` whose rounded sum does not overflow (subnormals
/// included: addition never underflows inexactly).
#[inline]
pub(crate) fn two_sum(a: f64, b: f64) -> Dd {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    Dd { hi: s, lo: e }
}

/// TwoProd by fused multiply-add: `a · b = p + e` exactly with
/// `p = fl(a · b)`, provided neither overflows and `e` does not underflow
/// (exponent of `a · b` at least `−1022 + 53`); [`cmp_prod`] scales its
/// operands so that it always holds there.
#[inline]
pub(crate) fn two_prod(a: f64, b: f64) -> Dd {
    let p = a * b;
    Dd {
        hi: p,
        lo: a.mul_add(b, -p),
    }
}

impl Dd {
    /// Zero.
    pub(crate) const ZERO: Self = Self { hi: 0.0, lo: 0.0 };
    /// One.
    pub(crate) const ONE: Self = Self { hi: 1.0, lo: 0.0 };

    /// The dd holding exactly `x`.
    pub(crate) const fn from_f64(x: f64) -> Self {
        Self { hi: x, lo: 0.0 }
    }

    /// `hi + lo` rounded to the nearest f64.
    pub(crate) fn to_f64(self) -> f64 {
        self.hi + self.lo
    }

    /// Whether `hi == fl(hi + lo)` with both parts finite, the invariant the
    /// exact comparisons rely on.
    pub(crate) fn is_normalized(self) -> bool {
        self.hi.is_finite() && self.lo.is_finite() && self.hi == self.hi + self.lo
    }

    /// `self / b` for an f64 `b ≠ 0` (relative error about 2⁻¹⁰⁴).
    pub(crate) fn div_f64(self, b: f64) -> Self {
        let q1 = self.hi / b;
        let p = two_prod(q1, b);
        // `self.hi − p.hi` is exact (Sterbenz: q1·b is within an ulp of hi).
        let r = ((self.hi - p.hi) - p.lo) + self.lo;
        two_sum(q1, r / b)
    }

    /// `1 / self` (relative error about 2⁻¹⁰³), by one Newton step from the
    /// f64 reciprocal.
    pub(crate) fn recip(self) -> Self {
        let q1 = 1.0 / self.hi;
        // r = 1 − q1·self, small; q = q1 + q1·r.
        let r = Self::ONE - self * Self::from_f64(q1);
        Self::from_f64(q1) + r * Self::from_f64(q1)
    }

    /// `self · 2^e` (exact unless it leaves the normal range).
    pub(crate) fn ldexp(self, e: i32) -> Self {
        Self {
            hi: ldexp(self.hi, e),
            lo: ldexp(self.lo, e),
        }
    }
}

impl From<f64> for Dd {
    fn from(x: f64) -> Self {
        Self::from_f64(x)
    }
}

impl Neg for Dd {
    type Output = Self;
    fn neg(self) -> Self {
        Self {
            hi: -self.hi,
            lo: -self.lo,
        }
    }
}

impl Add for Dd {
    type Output = Self;
    /// AccurateDWPlusDW (Joldes, Muller, Popescu 2017, Alg. 6), relative
    /// error ≤ 3u² + 13u³ of the exact sum even under cancellation; the two
    /// renormalisations use TwoSum rather than FastTwoSum, which only makes
    /// them exact in more cases.
    fn add(self, b: Self) -> Self {
        let s = two_sum(self.hi, b.hi);
        let t = two_sum(self.lo, b.lo);
        let c = s.lo + t.hi;
        let v = two_sum(s.hi, c);
        let w = t.lo + v.lo;
        two_sum(v.hi, w)
    }
}

impl Sub for Dd {
    type Output = Self;
    fn sub(self, b: Self) -> Self {
        self + (-b)
    }
}

impl Mul for Dd {
    type Output = Self;
    /// DWTimesDW (relative error ≤ 5u²), away from underflow.
    fn mul(self, b: Self) -> Self {
        let p = two_prod(self.hi, b.hi);
        let t = self.hi.mul_add(b.lo, self.lo * b.hi);
        two_sum(p.hi, p.lo + t)
    }
}

/// The dd sum of exact products `Σ aᵢ·bᵢ` (relative error a few u² of
/// `Σ |aᵢ·bᵢ|`), for dot products and matrix entries.
pub(crate) fn dot_dd(terms: &[(f64, f64)]) -> Dd {
    terms
        .iter()
        .fold(Dd::ZERO, |acc, &(a, b)| acc + two_prod(a, b))
}

// ---------------------------------------------------------------------------
// sin and cos in double-double
// ---------------------------------------------------------------------------

/// π/2 as a sum of four f64 (a Cody–Waite split carried to ~212 bits), each
/// the f64 nearest to what the previous ones leave of π/2. Computed from a
/// 120-digit expansion of π/2 =
/// 1.57079632679489661923132169163975144209858469968755291048747229615...;
/// hex: 0x1.921fb54442d18p+0, 0x1.1a62633145c07p-54,
/// −0x1.f1976b7ed8fbcp-110, 0x1.4cf98e804177dp-164.
pub(crate) const HALF_PI_PARTS: [f64; 4] = [
    FRAC_PI_2, // 1.5707963267948966
    6.123_233_995_736_766e-17,
    -1.497_384_904_859_169_8e-33,
    5.562_271_104_316_826e-50,
];

/// π as a dd (π = 3.14159265358979323846264338327950288419716939937510…).
pub(crate) const PI_DD: Dd = Dd {
    hi: PI,
    lo: 1.224_646_799_147_353_2e-16,
};
/// π/2 as a dd.
pub(crate) const HALF_PI_DD: Dd = Dd {
    hi: HALF_PI_PARTS[0],
    lo: HALF_PI_PARTS[1],
};
/// 2π as a dd.
pub(crate) const TWO_PI_DD: Dd = Dd {
    hi: TAU,
    lo: 2.449_293_598_294_706_4e-16,
};

/// `x − k·π/2` in dd and `k mod 4`, for `|x| ≤ 1e5`.
///
/// Each `k·Pᵢ` is exact by TwoProd; the dd additions err by ≤ 3u² of each
/// partial remainder, the largest of which is about `k·P₂ ≤ 4e-13`, so the
/// absolute error is below 1e-44. The closest an f64 of magnitude ≤ 1e4
/// comes to a multiple of π/2 is 1.4e-20 relative (x = 45.553093477052…,
/// k = 29), so the reduced argument keeps a relative error below 1e-27.
pub(crate) fn reduce_half_pi(x: f64) -> (Dd, i64) {
    assert!(
        x.abs() <= 1e5,
        "reduce_half_pi: |x| = {x:e} out of the oracle's range"
    );
    let k = (x * core::f64::consts::FRAC_2_PI).round();
    let mut r = Dd::from_f64(x);
    for p in HALF_PI_PARTS {
        r = r - two_prod(k, p);
    }
    // `k` is an integer below 2^17 here, so the cast is exact.
    #[allow(clippy::cast_possible_truncation)]
    let q = (k as i64).rem_euclid(4);
    (r, q)
}

/// Number of Taylor terms at most (the last is below 1e-80 for |r| ≤ 0.8).
const SERIES_TERMS: u32 = 30;

/// `sin r` by its Taylor series in dd, for `|r| ≲ π/4`.
fn sin_series(r: Dd) -> Dd {
    let r2 = r * r;
    let mut term = r;
    let mut sum = r;
    for n in 1..SERIES_TERMS {
        let k = f64::from(2 * n);
        term = (term * r2).div_f64(-(k * (k + 1.0)));
        sum = sum + term;
        if term.hi.abs() <= 1e-40 * sum.hi.abs() {
            break;
        }
    }
    sum
}

/// `cos r` by its Taylor series in dd, for `|r| ≲ π/4`.
fn cos_series(r: Dd) -> Dd {
    let r2 = r * r;
    let mut term = Dd::ONE;
    let mut sum = Dd::ONE;
    for n in 1..SERIES_TERMS {
        let k = f64::from(2 * n);
        term = (term * r2).div_f64(-((k - 1.0) * k));
        sum = sum + term;
        if term.hi.abs() <= 1e-40 {
            break;
        }
    }
    sum
}

/// `sin x` in dd: relative error below 1e-27 for `|x| ≤ 1e4`, plus an
/// absolute error of a few 1e-320 from underflow for subnormal-sized
/// results (tiny `x`, where `sin x = x − x³/6` and `x³` underflows).
pub(crate) fn sin_dd(x: f64) -> Dd {
    let (r, q) = reduce_half_pi(x);
    match q {
        0 => sin_series(r),
        1 => cos_series(r),
        2 => -sin_series(r),
        _ => -cos_series(r),
    }
}

/// `cos x` in dd, accurate as [`sin_dd`].
pub(crate) fn cos_dd(x: f64) -> Dd {
    let (r, q) = reduce_half_pi(x);
    match q {
        0 => cos_series(r),
        1 => -sin_series(r),
        2 => -cos_series(r),
        _ => sin_series(r),
    }
}

/// `|x|ⁿ`'s mantissa and exponent `(m, e)` with `|x|ⁿ ≈ m · 2^e` and
/// `2⁻¹⁰ < m < 2¹⁰`, in dd (relative error ~1e-30), for finite non-zero `x`
/// and `|n| ≤ 9`; the exponent is kept apart so nothing over- or underflows.
fn abs_pow_scaled(x: f64, n: i32) -> (Dd, i64) {
    assert!(x.is_finite() && x != 0.0 && n.abs() <= 9);
    let (m, e) = frexp(x.abs());
    let mut p = Dd::ONE;
    for _ in 0..n.unsigned_abs() {
        p = p * Dd::from_f64(m);
    }
    let e = i64::from(e) * i64::from(n);
    if n < 0 { (p.recip(), e) } else { (p, e) }
}

// ---------------------------------------------------------------------------
// Exact comparisons
// ---------------------------------------------------------------------------

/// Whether `x ≤ d.hi + d.lo` exactly, for a normalised `d` and any non-NaN
/// `x` (infinities included).
///
/// Normalised means `hi = fl(hi + lo)`, so `|lo|` is at most half the gap
/// from `hi` to its neighbour on `lo`'s side (ties included). Hence if
/// `x == hi` the answer is the sign of `lo`; if `x < hi` then
/// `x ≤ pred(hi) < hi − gap/2 ≤ hi + lo` (strictly, as `|lo| ≤ gap/2`);
/// if `x > hi` then `x ≥ succ(hi) > hi + lo` likewise. So only `hi` needs
/// comparing unless `x == hi`. `interval_rounding.rs` checks this against
/// an exact Sterbenz subtraction.
pub(crate) fn le_dd(x: f64, d: Dd) -> bool {
    debug_assert!(d.is_normalized(), "le_dd: {d:?} is not normalised");
    debug_assert!(!x.is_nan());
    if x == d.hi { 0.0 <= d.lo } else { x < d.hi }
}

/// Whether `x ≥ d.hi + d.lo` exactly (see [`le_dd`]).
pub(crate) fn ge_dd(x: f64, d: Dd) -> bool {
    debug_assert!(d.is_normalized(), "ge_dd: {d:?} is not normalised");
    debug_assert!(!x.is_nan());
    if x == d.hi { d.lo <= 0.0 } else { x > d.hi }
}

/// Whether the interval holds the number `d.hi + d.lo` (exactly).
pub(crate) fn contains_dd(iv: Interval, d: Dd) -> bool {
    le_dd(iv.lo(), d) && ge_dd(iv.hi(), d)
}

/// `d.hi + d.lo` compared with `z`, exactly.
pub(crate) fn cmp_dd(d: Dd, z: f64) -> Ordering {
    match (ge_dd(z, d), le_dd(z, d)) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (false, false) => unreachable!("cmp_dd: {d:?} against {z}"),
    }
}

/// Whether `iv` holds a real number `v` given only by `cmp(z) = v.cmp(z)`
/// for f64 `z`.
pub(crate) fn encloses(iv: Interval, cmp: impl Fn(f64) -> Ordering) -> bool {
    cmp(iv.lo()) != Ordering::Less && cmp(iv.hi()) != Ordering::Greater
}

/// `2^e` for a normal exponent `−1022 ≤ e ≤ 1023`.
fn pow2(e: i32) -> f64 {
    assert!((-1022..=1023).contains(&e), "pow2({e})");
    // In range by the assertion, so the cast is exact.
    #[allow(clippy::cast_sign_loss)]
    let biased = (e + 1023) as u64;
    f64::from_bits(biased << 52)
}

/// `x · 2^e`, by steps that stay exact while the result stays normal.
pub(crate) fn ldexp(mut x: f64, mut e: i32) -> f64 {
    while e > 1000 {
        x *= pow2(1000);
        e -= 1000;
    }
    while e < -1000 {
        x *= pow2(-1000);
        e += 1000;
    }
    x * pow2(e)
}

/// `(m, e)` with `x = m · 2^e` and `1 ≤ |m| < 2`, for finite non-zero `x`
/// (subnormals included).
pub(crate) fn frexp(x: f64) -> (f64, i32) {
    assert!(x.is_finite() && x != 0.0, "frexp({x})");
    const TWO_64: f64 = 18_446_744_073_709_551_616.0;
    let (x, bias) = if x.abs() < f64::MIN_POSITIVE {
        (x * TWO_64, -64)
    } else {
        (x, 0)
    };
    let bits = x.to_bits();
    // An 11-bit field: the cast is exact.
    #[allow(clippy::cast_possible_truncation)]
    let e = ((bits >> 52) & 0x7ff) as i32 - 1023;
    let m = f64::from_bits((bits & !(0x7ff << 52)) | (1023 << 52));
    (m, e + bias)
}

/// Sign of `v` as `-1`, `0`, `1`, for a non-NaN `v` (−0 is 0).
fn sign(v: f64) -> i32 {
    if v > 0.0 {
        1
    } else if v < 0.0 {
        -1
    } else {
        0
    }
}

/// The comparison of two signed magnitudes `s·a` and `s·b` (`s = ±1`) from
/// the comparison of `a` and `b`.
fn signed(s: i32, ord: Ordering) -> Ordering {
    if s < 0 { ord.reverse() } else { ord }
}

/// The exact `x · y` compared with `z`, for finite `x`, `y` and any non-NaN
/// `z`, with no over- or underflow trouble: mantissas are multiplied exactly
/// by TwoProd and the exponents compared apart.
pub(crate) fn cmp_prod(x: f64, y: f64, z: f64) -> Ordering {
    assert!(
        x.is_finite() && y.is_finite() && !z.is_nan(),
        "cmp_prod({x:e}, {y:e}, {z:e})"
    );
    let sp = sign(x) * sign(y);
    let sz = sign(z);
    if sp != sz || sp == 0 {
        return sp.cmp(&sz);
    }
    if z.is_infinite() {
        return signed(sz, Ordering::Less);
    }
    let (mx, ex) = frexp(x.abs());
    let (my, ey) = frexp(y.abs());
    let (mz, ez) = frexp(z.abs());
    let p = two_prod(mx, my); // in [1, 4), exact
    let d = ez - ex - ey;
    let ord = if d >= 3 {
        // |z| ≥ 2^ez ≥ 8·2^(ex+ey) > |x·y|.
        Ordering::Less
    } else if d <= -2 {
        // |z| < 2^(ez+1) ≤ 2^(ex+ey−1) < |x·y|.
        Ordering::Greater
    } else {
        cmp_dd(p, mz * pow2(d))
    };
    signed(sp, ord)
}

/// The exact `x + y` compared with `z`, for finite `x`, `y` and any non-NaN
/// `z`; a sum that overflows in f64 is a finite real beyond `±MAX`.
pub(crate) fn cmp_sum(x: f64, y: f64, z: f64) -> Ordering {
    assert!(
        x.is_finite() && y.is_finite() && !z.is_nan(),
        "cmp_sum({x:e}, {y:e}, {z:e})"
    );
    let s = two_sum(x, y);
    if s.hi.is_finite() && !s.lo.is_finite() {
        // TwoSum's intermediate `s − x` overflowed (both operands near
        // ±MAX); halving all three is exact at those magnitudes.
        // The sum is then 0 or a multiple of a huge ulp, so a `z` too small
        // to halve exactly compares as 0 does.
        let (hx, hy, hz) = (0.5 * x, 0.5 * y, 0.5 * z);
        assert!(
            2.0 * hx == x && 2.0 * hy == y,
            "cmp_sum({x:e}, {y:e}, {z:e})"
        );
        let h = two_sum(hx, hy);
        if h.hi == 0.0 {
            return 0.0_f64.partial_cmp(&z).expect("z is not NaN");
        }
        return cmp_dd(h, if 2.0 * hz == z { hz } else { 0.0 });
    }
    if s.hi.is_infinite() {
        // |x + y| > MAX ≥ |z| unless z is the infinity on the same side.
        return if s.hi > 0.0 {
            if z == f64::INFINITY {
                Ordering::Less
            } else {
                Ordering::Greater
            }
        } else if z == f64::NEG_INFINITY {
            Ordering::Greater
        } else {
            Ordering::Less
        };
    }
    cmp_dd(s, z)
}

/// The exact `x − y` compared with `z` (see [`cmp_sum`]).
pub(crate) fn cmp_diff(x: f64, y: f64, z: f64) -> Ordering {
    cmp_sum(x, -y, z)
}

/// The exact `x / y` compared with `z`, for finite `x`, finite `y ≠ 0` and
/// any non-NaN `z`: `x/y ≥ z ⇔ x ≥ z·y` for `y > 0` (reversed for `y < 0`).
pub(crate) fn cmp_quot(x: f64, y: f64, z: f64) -> Ordering {
    assert!(
        x.is_finite() && y.is_finite() && y != 0.0 && !z.is_nan(),
        "cmp_quot({x:e}, {y:e}, {z:e})"
    );
    if z.is_infinite() {
        return if z > 0.0 {
            Ordering::Less
        } else {
            Ordering::Greater
        };
    }
    let zy_vs_x = cmp_prod(z, y, x);
    if y > 0.0 { zy_vs_x.reverse() } else { zy_vs_x }
}

/// The exact `√x` compared with `z`, for finite `x ≥ 0` and any non-NaN `z`:
/// for `z ≥ 0`, `√x ≥ z ⇔ x ≥ z²`.
pub(crate) fn cmp_sqrt(x: f64, z: f64) -> Ordering {
    assert!(
        x.is_finite() && x >= 0.0 && !z.is_nan(),
        "cmp_sqrt({x:e}, {z:e})"
    );
    if z < 0.0 {
        return Ordering::Greater;
    }
    if z.is_infinite() {
        return Ordering::Less;
    }
    cmp_prod(z, z, x).reverse()
}

/// `xⁿ` compared with `z`, for finite `x`, `|n| ≤ 9` (`x ≠ 0` when
/// `n < 0`) and any non-NaN `z`. Exact for `n ∈ {0, 1, 2}`; otherwise the
/// power's mantissa is a dd with relative error ~1e-30, and its exponent is
/// kept apart, so there is no over- or underflow.
pub(crate) fn cmp_powi(x: f64, n: i32, z: f64) -> Ordering {
    assert!(
        x.is_finite() && !z.is_nan() && (x != 0.0 || n >= 0),
        "cmp_powi({x:e}, {n}, {z:e})"
    );
    match n {
        0 => return 1.0_f64.partial_cmp(&z).expect("z is not NaN"),
        1 => return x.partial_cmp(&z).expect("z is not NaN"),
        2 => return cmp_prod(x, x, z),
        _ => {}
    }
    let sp = if x == 0.0 {
        0
    } else if x < 0.0 && n % 2 != 0 {
        -1
    } else {
        1
    };
    let sz = sign(z);
    if sp != sz || sp == 0 {
        return sp.cmp(&sz);
    }
    if z.is_infinite() {
        return signed(sz, Ordering::Less);
    }
    let (m, e) = abs_pow_scaled(x, n);
    let (mz, ez) = frexp(z.abs());
    let d = i64::from(ez) - e;
    let ord = if d >= 11 {
        Ordering::Less
    } else if d <= -11 {
        Ordering::Greater
    } else {
        // |d| ≤ 10 by the branches above.
        #[allow(clippy::cast_possible_truncation)]
        let d = d as i32;
        // Compare m with mz·2^d as m·2^-d with mz, keeping both normal.
        cmp_dd(m.ldexp(-d), mz)
    };
    signed(sp, ord)
}

// ---------------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------------

/// A fraction in `[0, 1]` for placing a sample inside an interval, with the
/// end points themselves drawn often.
pub(crate) fn frac() -> impl Strategy<Value = f64> {
    prop_oneof![
        1 => Just(0.0),
        1 => Just(1.0),
        4 => 0.0..=1.0_f64,
    ]
}

/// The point `lo + t·(hi − lo)` of `iv` (`t ∈ [0, 1]`), clamped into the
/// interval and to finite values (`±MAX` stands for an infinite end).
pub(crate) fn sample(iv: Interval, t: f64) -> f64 {
    let lo = iv.lo().max(-f64::MAX);
    let hi = iv.hi().min(f64::MAX);
    if t <= 0.0 {
        return lo;
    }
    if t >= 1.0 {
        return hi;
    }
    // Written as a convex combination so that it cannot overflow.
    (lo * (1.0 - t) + hi * t).clamp(lo, hi)
}

/// Finite f64 of every kind: moderate uniform values, dyadic values whose
/// sums are often exact, bit-pattern values of any magnitude (subnormals
/// included), and the special values that break naive code.
pub(crate) fn any_finite() -> impl Strategy<Value = f64> {
    use proptest::num::f64 as f;
    prop_oneof![
        3 => -1e3..1e3_f64,
        2 => (-4096_i32..4096).prop_map(|k| f64::from(k) / 64.0),
        3 => f::POSITIVE | f::NEGATIVE | f::NORMAL | f::SUBNORMAL | f::ZERO,
        1 => prop::sample::select(vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            f64::MAX,
            -f64::MAX,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            f64::EPSILON,
            1.0 + f64::EPSILON,
            1e308,
            -1e-308,
        ]),
    ]
}

/// Intervals of every kind: two finite values in order, a value with a
/// small width, a point, and now and then a half line or the whole line.
pub(crate) fn any_interval() -> impl Strategy<Value = Interval> {
    let ordered = (any_finite(), any_finite()).prop_map(|(a, b)| iv(a.min(b), a.max(b)));
    let narrow = (any_finite(), 0.0..1e-6_f64).prop_map(|(a, w)| {
        let hi = a + w * a.abs().max(1.0);
        iv(a, if hi.is_finite() { hi } else { a })
    });
    let point = any_finite().prop_map(|a| iv(a, a));
    let unbounded = (any_finite(), 0_u8..3).prop_map(|(a, k)| match k {
        0 => iv(f64::NEG_INFINITY, a),
        1 => iv(a, f64::INFINITY),
        _ => Interval::ENTIRE,
    });
    prop_oneof![5 => ordered, 2 => narrow, 2 => point, 1 => unbounded]
}

/// Bounded intervals of moderate size: centre in `[−c, c]`, width in
/// `[0, w]` (a quarter of them points).
pub(crate) fn moderate_interval(c: f64, w: f64) -> impl Strategy<Value = Interval> {
    prop_oneof![
        1 => (-c..=c).prop_map(|m| iv(m, m)),
        3 => (-c..=c, 0.0..=w).prop_map(|(m, w)| iv(m - 0.5 * w, m + 0.5 * w)),
    ]
}

/// `Interval::new(lo, hi)` for arguments known to be valid.
pub(crate) fn iv(lo: f64, hi: f64) -> Interval {
    Interval::new(lo, hi).unwrap_or_else(|e| panic!("test interval [{lo}, {hi}]: {e}"))
}
