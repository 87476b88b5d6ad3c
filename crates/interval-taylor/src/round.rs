//! Directed rounding without changing the FPU mode.
//!
//! Every f64 operation of IEEE 754 is correctly rounded to nearest, so the
//! exact result lies within half an ulp of the computed one, and one step of
//! `next_down` / `next_up` moves the computed value past it. For functions
//! that are *not* correctly rounded (the platform `sin`, `cos`) the widening
//! is [`LIBM_ULPS`] steps.

/// Number of ulps by which results of the platform `sin` and `cos` are
/// widened on each side.
///
/// glibc documents errors of at most 1 ulp for `sin`/`cos` on x86_64 and
/// other libms stay within 2; four steps leave a margin of two ulps.
pub const LIBM_ULPS: u32 = 4;

/// A lower bound of the exact value whose nearest f64 is `x`.
#[inline(always)]
pub(crate) fn down(x: f64) -> f64 {
    x.next_down()
}

/// An upper bound of the exact value whose nearest f64 is `x`.
#[inline(always)]
pub(crate) fn up(x: f64) -> f64 {
    x.next_up()
}

/// `x` moved `n` ulps down.
#[inline]
pub(crate) fn down_n(mut x: f64, n: u32) -> f64 {
    for _ in 0..n {
        x = x.next_down();
    }
    x
}

/// `x` moved `n` ulps up.
#[inline]
pub(crate) fn up_n(mut x: f64, n: u32) -> f64 {
    for _ in 0..n {
        x = x.next_up();
    }
    x
}

/// Upper bound of `a + b` for non-negative `a`, `b`.
#[inline(always)]
pub(crate) fn add_up(a: f64, b: f64) -> f64 {
    up(a + b)
}

/// Upper bound of `a * b` for non-negative `a`, `b`.
#[inline(always)]
pub(crate) fn mul_up(a: f64, b: f64) -> f64 {
    up(a * b)
}

/// A product in interval end-point arithmetic: `0 · ∞ = 0`, the limit that
/// keeps the product of a zero end point and an unbounded one sound.
#[inline(always)]
pub(crate) fn mul_ep(a: f64, b: f64) -> f64 {
    let p = a * b;
    if p.is_nan() { 0.0 } else { p }
}
