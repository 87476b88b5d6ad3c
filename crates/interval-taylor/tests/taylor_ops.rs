//! Every Taylor-model operation against the exact truth in double-double.
//!
//! A model `(p, R)` claims `f(t) − p(t − mid) ∈ R` for every `t` of its
//! domain, with `p` evaluated *exactly* on its f64 coefficients. The tests
//! build operands that are concrete members of their models (a polynomial
//! plus a remainder value drawn inside the remainder at each sample), apply
//! the operation to the members in double-double (~1e-30 relative), and
//! check the claim exactly: the dd residual `f(t) − p(t − mid)` must lie in
//! the result's remainder, compared with `le_dd` / `ge_dd`. A model that
//! forgets one rounding error of one coefficient fails here.

mod support;

use armature_interval_taylor::{Interval, TaylorModel, TimeDomain};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use support::{Dd, config, contains_dd, cos_dd, ge_dd, le_dd, sin_dd, two_prod, two_sum};

const CASES: u32 = 10_000;

/// A domain inside [−2, 3], sometimes a point.
fn domain() -> impl Strategy<Value = TimeDomain> {
    prop_oneof![
        4 => (-2.0..3.0f64, -2.0..3.0f64).prop_map(|(a, b)| TimeDomain::new(a.min(b), a.max(b)).unwrap()),
        1 => Just(TimeDomain::unit()),
        1 => (-2.0..3.0f64).prop_map(|a| TimeDomain::new(a, a).unwrap()),
    ]
}

/// A coefficient: often awkward (not a short binary fraction), sometimes 0.
fn coeff() -> impl Strategy<Value = f64> {
    prop_oneof![4 => -5.0..5.0f64, 1 => Just(0.0), 1 => -1e-9..1e-9f64]
}

/// A remainder interval: zero, tiny, or a few thousandths, possibly lopsided.
fn remainder() -> impl Strategy<Value = Interval> {
    prop_oneof![
        Just(Interval::ZERO),
        (0.0..1e-12f64, 0.0..1e-12f64).prop_map(|(a, b)| Interval::new(-a, b).unwrap()),
        (-3e-3..3e-3f64, 0.0..3e-3f64).prop_map(|(a, w)| Interval::new(a, a + w).unwrap()),
    ]
}

#[derive(Clone, Debug)]
struct Member<const N: usize> {
    tm: TaylorModel<N>,
}

fn model<const N: usize>(dom: TimeDomain) -> impl Strategy<Value = Member<N>> {
    (coeff(), prop::array::uniform::<_, N>(coeff()), remainder()).prop_map(move |(c0, c, rem)| {
        Member {
            tm: TaylorModel::from_parts(dom, c0, c, rem).unwrap(),
        }
    })
}

/// `t − mid` exactly (TwoSum is error-free).
fn offset(dom: &TimeDomain, t: f64) -> Dd {
    two_sum(t, -dom.mid())
}

/// The polynomial part at `t`, in dd.
fn poly_dd<const N: usize>(m: &TaylorModel<N>, t: f64) -> Dd {
    let s = offset(m.domain(), t);
    let mut v = Dd::from_f64(m.coeff(N));
    for k in (0..N).rev() {
        v = v * s + Dd::from_f64(m.coeff(k));
    }
    v
}

/// A member's value at `t`: the polynomial plus a point of the remainder
/// chosen by `frac ∈ [0, 1]`.
fn value<const N: usize>(m: &TaylorModel<N>, t: f64, frac: f64) -> Dd {
    let r = m.remainder();
    let e = (r.lo() + (r.hi() - r.lo()) * frac).clamp(r.lo(), r.hi());
    poly_dd(m, t) + Dd::from_f64(e)
}

/// Whether `truth(t)` satisfies the model's claim at `t`, exactly.
fn claims<const N: usize>(m: &TaylorModel<N>, t: f64, truth: Dd) -> bool {
    let residual = truth - poly_dd(m, t);
    let r = m.remainder();
    le_dd(r.lo(), residual) && ge_dd(r.hi(), residual)
}

/// Sample times: end points, the expansion point and interior points.
fn times(dom: &TimeDomain, fr: &[f64]) -> Vec<f64> {
    let mut ts = vec![dom.lo(), dom.hi(), dom.mid()];
    ts.extend(
        fr.iter()
            .map(|f| (dom.lo() + (dom.hi() - dom.lo()) * f).clamp(dom.lo(), dom.hi())),
    );
    ts
}

fn fracs() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(0.0..=1.0f64, 6)
}

/// Two members over one domain with sample times and remainder choices.
fn pair<const N: usize>() -> impl Strategy<Value = (Member<N>, Member<N>, Vec<f64>, Vec<f64>)> {
    domain().prop_flat_map(|d| (model::<N>(d), model::<N>(d), fracs(), fracs()))
}

macro_rules! check_all {
    ($m:expr, $ts:expr, |$t:ident, $i:ident| $truth:expr) => {
        for ($i, &$t) in $ts.iter().enumerate() {
            let truth: Dd = $truth;
            prop_assert!(
                claims(&$m, $t, truth),
                "t = {}: truth {:?} not claimed by {:?}",
                $t,
                truth,
                $m
            );
            let b = $m.bound();
            prop_assert!(
                contains_dd(b, truth),
                "t = {}: truth {:?} outside bound {:?}",
                $t,
                truth,
                b
            );
        }
    };
}

proptest! {
    #![proptest_config(config(CASES))]

    #[test]
    fn add((a, b, fr, e) in pair::<3>()) {
        let r = a.tm + b.tm;
        let ts = times(a.tm.domain(), &fr);
        check_all!(r, ts, |t, i| value(&a.tm, t, e[i % 6]) + value(&b.tm, t, e[(i + 1) % 6]));
    }

    #[test]
    fn sub((a, b, fr, e) in pair::<3>()) {
        let r = a.tm - b.tm;
        let ts = times(a.tm.domain(), &fr);
        check_all!(r, ts, |t, i| value(&a.tm, t, e[i % 6]) - value(&b.tm, t, e[(i + 3) % 6]));
    }

    #[test]
    fn neg((a, _b, fr, e) in pair::<3>()) {
        let r = -a.tm;
        let ts = times(a.tm.domain(), &fr);
        check_all!(r, ts, |t, i| -value(&a.tm, t, e[i % 6]));
    }

    #[test]
    fn mul((a, b, fr, e) in pair::<3>()) {
        let r = a.tm * b.tm;
        let ts = times(a.tm.domain(), &fr);
        check_all!(r, ts, |t, i| value(&a.tm, t, e[i % 6]) * value(&b.tm, t, e[(i + 2) % 6]));
    }

    #[test]
    fn mul_other_orders((a, b, fr, e) in pair::<1>(), (c, d, fr2, e2) in pair::<5>()) {
        let r = a.tm * b.tm;
        let ts = times(a.tm.domain(), &fr);
        check_all!(r, ts, |t, i| value(&a.tm, t, e[i % 6]) * value(&b.tm, t, e[(i + 2) % 6]));
        let r = c.tm * d.tm;
        let ts = times(c.tm.domain(), &fr2);
        check_all!(r, ts, |t, i| value(&c.tm, t, e2[i % 6]) * value(&d.tm, t, e2[(i + 2) % 6]));
    }

    #[test]
    fn dot_of_three((a, b, fr, e) in pair::<3>(), k in 0.0..1.0f64) {
        let c = a.tm.scale(k - 0.5);
        let d = b.tm.scale(1.0 + k);
        let r = TaylorModel::try_dot(&[a.tm, c, b.tm], &[b.tm, d, c]).unwrap();
        let ts = times(a.tm.domain(), &fr);
        check_all!(r, ts, |t, i| {
            let (va, vb) = (value(&a.tm, t, e[i % 6]), value(&b.tm, t, e[(i + 1) % 6]));
            // c and d are models of the scaled members: their own values.
            let (vc, vd) = (value(&c, t, e[(i + 2) % 6]), value(&d, t, e[(i + 3) % 6]));
            va * vb + vc * vd + vb * vc
        });
    }

    #[test]
    fn scale((a, _b, fr, e) in pair::<3>(), lambda in prop_oneof![-7.0..7.0f64, Just(0.0), -1e-300..1e-300f64]) {
        let r = a.tm.scale(lambda);
        let ts = times(a.tm.domain(), &fr);
        check_all!(r, ts, |t, i| value(&a.tm, t, e[i % 6]) * Dd::from_f64(lambda));
    }

    #[test]
    fn scale_interval((a, _b, fr, e) in pair::<3>(), lo in -3.0..3.0f64, w in 0.0..0.5f64, f in 0.0..=1.0f64) {
        let lam = Interval::new(lo, lo + w).unwrap();
        let l = (lo + w * f).clamp(lam.lo(), lam.hi());
        let r = a.tm.scale_interval(lam);
        let ts = times(a.tm.domain(), &fr);
        check_all!(r, ts, |t, i| value(&a.tm, t, e[i % 6]) * Dd::from_f64(l));
    }

    #[test]
    fn add_interval((a, _b, fr, e) in pair::<3>(), lo in -3.0..3.0f64, w in 0.0..0.5f64, f in 0.0..=1.0f64) {
        let v = Interval::new(lo, lo + w).unwrap();
        let x = (lo + w * f).clamp(v.lo(), v.hi());
        let r = a.tm + v;
        let ts = times(a.tm.domain(), &fr);
        check_all!(r, ts, |t, i| value(&a.tm, t, e[i % 6]) + Dd::from_f64(x));
    }

    #[test]
    fn constants_identity_affine(dom in domain(), v in -9.0..9.0f64, slope in -9.0..9.0f64, fr in fracs()) {
        let ts = times(&dom, &fr);
        let c = TaylorModel::<3>::constant(dom, v);
        check_all!(c, ts, |_t, _i| Dd::from_f64(v));
        let id = TaylorModel::<3>::identity(dom);
        check_all!(id, ts, |t, _i| Dd::from_f64(t));
        let af = TaylorModel::<3>::affine(dom, slope, v).unwrap();
        check_all!(af, ts, |t, _i| two_prod(slope, t) + Dd::from_f64(v));
        let af0 = TaylorModel::<0>::affine(dom, slope, v).unwrap();
        check_all!(af0, ts, |t, _i| two_prod(slope, t) + Dd::from_f64(v));
    }

    /// sin and cos of ωt + φ with their Lagrange remainders, against dd
    /// sin/cos of the exact argument.
    #[test]
    fn sin_cos_affine(dom in domain(), omega in prop_oneof![-4.0..4.0f64, Just(0.0), -30.0..30.0f64], phi in -7.0..7.0f64, fr in fracs()) {
        let ts = times(&dom, &fr);
        let (s3, c3) = TaylorModel::<3>::sin_cos_affine(dom, omega, phi).unwrap();
        let (s1, c1) = TaylorModel::<1>::sin_cos_affine(dom, omega, phi).unwrap();
        let (s6, c6) = TaylorModel::<6>::sin_cos_affine(dom, omega, phi).unwrap();
        for &t in &ts {
            // θ = ωt + φ in dd; sin(θ_hi + θ_lo) = sin θ_hi + cos θ_hi · θ_lo
            // up to θ_lo²/2 < 1e-31.
            let theta = two_prod(omega, t) + Dd::from_f64(phi);
            let sin_t = sin_dd(theta.hi) + cos_dd(theta.hi) * Dd::from_f64(theta.lo);
            let cos_t = cos_dd(theta.hi) - sin_dd(theta.hi) * Dd::from_f64(theta.lo);
            for (m, truth, name) in [(&s3, sin_t, "sin3"), (&c3, cos_t, "cos3")] {
                prop_assert!(claims(m, t, truth), "{name} at t = {t}: {truth:?} vs {m:?}");
                prop_assert!(contains_dd(m.bound(), truth), "{name} bound at t = {t}");
            }
            prop_assert!(claims(&s1, t, sin_t) && claims(&c1, t, cos_t), "order 1 at t = {t}");
            prop_assert!(claims(&s6, t, sin_t) && claims(&c6, t, cos_t), "order 6 at t = {t}");
            prop_assert!(contains_dd(s6.bound(), sin_t) && contains_dd(c1.bound(), cos_t));
        }
    }

    /// Restriction to a sub-domain keeps every member's claim.
    #[test]
    fn restrict((a, _b, fr, e) in pair::<3>(), x in 0.0..=1.0f64, y in 0.0..=1.0f64) {
        let d = *a.tm.domain();
        let (lo, hi) = (d.lo() + (d.hi() - d.lo()) * x.min(y), d.lo() + (d.hi() - d.lo()) * x.max(y));
        let sub = TimeDomain::new(lo.clamp(d.lo(), d.hi()), hi.clamp(d.lo(), d.hi())).unwrap();
        let r = a.tm.restrict(sub).unwrap();
        let ts = times(&sub, &fr);
        check_all!(r, ts, |t, i| value(&a.tm, t, e[i % 6]));
    }

    /// `bound()` of a cubic is sound and tight: it exceeds the true range by
    /// little, which only the critical-point evaluation achieves.
    #[test]
    fn cubic_range_is_tight(dom in domain(), c in prop::array::uniform4(-5.0..5.0f64)) {
        let m = TaylorModel::<3>::from_parts(dom, c[0], [c[1], c[2], c[3]], Interval::ZERO).unwrap();
        let b = m.bound();
        // True range from the end points and the real critical points.
        let p = |s: f64| ((c[3] * s + c[2]) * s + c[1]) * s + c[0];
        let s = dom.offsets();
        let mut vals = vec![p(dom.lo() - dom.mid()), p(dom.hi() - dom.mid())];
        let (qa, qb, qc) = (3.0 * c[3], 2.0 * c[2], c[1]);
        let disc = qb * qb - 4.0 * qa * qc;
        if disc >= 0.0 && qa != 0.0 {
            for r in [(-qb + disc.sqrt()) / (2.0 * qa), (-qb - disc.sqrt()) / (2.0 * qa)] {
                if r > s.lo() && r < s.hi() {
                    vals.push(p(r));
                }
            }
        }
        let lo = vals.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let slack = 1e-12 * (1.0 + lo.abs().max(hi.abs()));
        prop_assert!(b.lo() <= lo + slack && b.hi() >= hi - slack, "{b:?} misses [{lo}, {hi}]");
        prop_assert!(b.lo() >= lo - slack && b.hi() <= hi + slack, "{b:?} is loose around [{lo}, {hi}]");
    }

    /// Polynomial ranges with zero, tiny and mixed-scale coefficients
    /// (quadratics posing as cubics, vanishing linear parts): every exactly
    /// evaluated sample lies in the bound, and the bound exceeds the sampled
    /// range by little.
    #[test]
    fn degenerate_polynomial_ranges(
        dom in domain(),
        c in prop::array::uniform4(degenerate_coeff()),
        fr in prop::collection::vec(0.0..=1.0f64, 24),
    ) {
        let m3 = TaylorModel::<3>::from_parts(dom, c[0], [c[1], c[2], c[3]], Interval::ZERO).unwrap();
        range_is_sound_and_tight(&m3, &fr)?;
        let m2 = TaylorModel::<2>::from_parts(dom, c[0], [c[1], c[2]], Interval::ZERO).unwrap();
        range_is_sound_and_tight(&m2, &fr)?;
    }

    /// Mixing domains is an error for the `try_*` operations.
    #[test]
    fn domain_mismatch_is_an_error(a in 0.0..0.5f64) {
        let d1 = TimeDomain::new(a, 1.0).unwrap();
        let d2 = TimeDomain::new(a + 0.25, 2.0).unwrap();
        let x = TaylorModel::<3>::identity(d1);
        let y = TaylorModel::<3>::identity(d2);
        prop_assert!(x.try_add(&y).is_err());
        prop_assert!(x.try_sub(&y).is_err());
        prop_assert!(x.try_mul(&y).is_err());
        prop_assert!(TaylorModel::try_dot(&[x], &[y]).is_err());
        prop_assert!(x.restrict(d2).is_err());
    }
}

/// A coefficient for the degenerate range tests: often exactly zero,
/// sometimes tiny or far from the others in scale.
fn degenerate_coeff() -> impl Strategy<Value = f64> {
    prop_oneof![
        3 => Just(0.0),
        3 => -5.0..5.0f64,
        1 => -1e-9..1e-9f64,
        1 => Just(1e-200),
        1 => Just(-3e-170),
        1 => prop_oneof![Just(1.0), Just(-2.0), Just(0.5)],
    ]
}

/// The real critical points of `Σ c_k s^k` (order ≤ 3), in f64.
fn critical_offsets(c: &[f64; 4]) -> Vec<f64> {
    let (a, b, k) = (3.0 * c[3], 2.0 * c[2], c[1]);
    if a == 0.0 {
        return if b == 0.0 { vec![] } else { vec![-k / b] };
    }
    let disc = b * b - 4.0 * a * k;
    if disc < 0.0 {
        return vec![];
    }
    let q = -0.5 * (b + b.signum() * disc.sqrt());
    let mut v = vec![q / a];
    if q != 0.0 {
        v.push(k / q);
    }
    v
}

/// Checks `bound()` of a polynomial model against exact (double-double)
/// values at the end points, the midpoint, sampled points and the f64
/// critical points with their neighbours: all inside, and the bound no
/// wider than the sampled range plus a relative 1e-12.
fn range_is_sound_and_tight<const N: usize>(
    m: &TaylorModel<N>,
    fr: &[f64],
) -> Result<(), TestCaseError> {
    let dom = *m.domain();
    let b = m.bound();
    let mut c = [0.0; 4];
    for (k, ck) in c.iter_mut().enumerate().take(N + 1) {
        *ck = m.coeff(k);
    }
    let mut ts = times(&dom, fr);
    for s in critical_offsets(&c) {
        let t = dom.mid() + s;
        for t in [t.next_down(), t, t.next_up()] {
            if dom.contains(t) {
                ts.push(t);
            }
        }
    }
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for &t in &ts {
        let v = poly_dd(m, t);
        prop_assert!(contains_dd(b, v), "t = {t}: {v:?} outside {b:?} for {m:?}");
        lo = lo.min(v.to_f64());
        hi = hi.max(v.to_f64());
    }
    let slack = 1e-12 * (1.0 + lo.abs().max(hi.abs()));
    prop_assert!(
        b.lo() >= lo - slack && b.hi() <= hi + slack,
        "{b:?} is loose around [{lo}, {hi}] for {m:?}"
    );
    Ok(())
}

/// `s²` posing as a cubic (a zero cubic coefficient) on `[−1, 1]` has the
/// range `[0, 1]`; the zero coefficient must not turn into a possibly
/// vanishing leading term that lets a critical point lie anywhere.
#[test]
fn square_as_cubic_has_its_true_range() {
    let dom = TimeDomain::new(-1.0, 1.0).unwrap();
    // A few dozen ulps of outward rounding (domain offsets, Horner steps).
    let tiny = 1e-14;
    let check = |b: Interval| {
        assert!(
            b.lo() >= -tiny && b.lo() <= 0.0 && b.hi() >= 1.0 && b.hi() <= 1.0 + tiny,
            "{b:?}"
        );
    };
    check(
        TaylorModel::<3>::from_parts(dom, 0.0, [0.0, 1.0, 0.0], Interval::ZERO)
            .unwrap()
            .bound(),
    );
    check(
        TaylorModel::<2>::from_parts(dom, 0.0, [0.0, 1.0], Interval::ZERO)
            .unwrap()
            .bound(),
    );
    // The product of the identity with itself is the same quadratic.
    let s = TaylorModel::<3>::identity(dom);
    check((s * s).bound());
    // A shifted parabola: (s − 0.5)² = s² − s + 0.25 on [−1, 1] is [0, 2.25].
    let p = TaylorModel::<3>::from_parts(dom, 0.25, [-1.0, 1.0, 0.0], Interval::ZERO).unwrap();
    let b = p.bound();
    assert!(
        b.lo() >= -tiny && b.lo() <= 0.0 && b.hi() >= 2.25 && b.hi() <= 2.25 + tiny,
        "{b:?}"
    );
    // A cubic with a double critical point at 0 (s³): exactly [−1, 1].
    let c = TaylorModel::<3>::from_parts(dom, 0.0, [0.0, 0.0, 1.0], Interval::ZERO).unwrap();
    let b = c.bound();
    assert!(b.lo() >= -1.0 - tiny && b.hi() <= 1.0 + tiny, "{b:?}");
}

/// Products whose magnitudes or coefficients underflow lose absolute
/// amounts below `2⁻¹⁰⁷⁴`, but those are later weighted by huge powers of
/// the domain radius or huge coefficients: the result must still hold the
/// exact value.
#[test]
fn underflowing_products_stay_enclosed() {
    let p2 = |e: i32| 2f64.powi(e);
    // (c s)² with c² below the subnormal range: the s² coefficient rounds
    // to zero while the value at s = 2⁶⁰ is (c 2⁶⁰)² ≈ 2⁻⁹⁶⁰.
    let c = p2(-540) * (1.0 + f64::EPSILON);
    let r = p2(60);
    let dom = TimeDomain::new(-r, r).unwrap();
    let a = TaylorModel::<3>::from_parts(dom, 0.0, [c, 0.0, 0.0], Interval::ZERO).unwrap();
    let sq = a * a;
    let truth = two_prod(c * r, c * r);
    assert!(claims(&sq, r, truth), "{sq:?} misses {truth:?}");
    assert!(contains_dd(sq.bound(), truth));
    // (C s³)² on |s| ≤ 2⁻²⁰⁰: every kept coefficient is zero and the
    // truncated s⁶ term is 2¹⁰⁰⁰ s⁶ = 2⁻²⁰⁰ at the end point, although
    // rad⁶ = 2⁻¹²⁰⁰ underflows.
    let r = p2(-200);
    let dom = TimeDomain::new(-r, r).unwrap();
    let a = TaylorModel::<3>::from_parts(dom, 0.0, [0.0, 0.0, p2(500)], Interval::ZERO).unwrap();
    let sq = a * a;
    let truth = Dd::from_f64(p2(-200));
    assert!(claims(&sq, r, truth), "{sq:?} misses {truth:?}");
    // λ·(c s) with λ c below the subnormal range, on |s| ≤ 2¹⁰⁰: the value
    // at the end point is λ c 2¹⁰⁰ ≈ 2⁻¹⁰⁰⁰.
    let r = p2(100);
    let dom = TimeDomain::new(-r, r).unwrap();
    let c = p2(-500) * (1.0 + f64::EPSILON);
    let a = TaylorModel::<3>::from_parts(dom, 0.0, [c, 0.0, 0.0], Interval::ZERO).unwrap();
    let lambda = p2(-600);
    let scaled = a.scale(lambda);
    let truth = Dd::from_f64(c * r * lambda);
    assert!(claims(&scaled, r, truth), "{scaled:?} misses {truth:?}");
    let dotted = TaylorModel::try_dot(&[a], &[TaylorModel::constant(dom, lambda)]).unwrap();
    assert!(claims(&dotted, r, truth), "{dotted:?} misses {truth:?}");
}

#[test]
#[should_panic(expected = "different time domains")]
fn operator_on_mixed_domains_panics() {
    let x = TaylorModel::<3>::identity(TimeDomain::unit());
    let y = TaylorModel::<3>::identity(TimeDomain::new(0.0, 2.0).unwrap());
    let _ = x * y;
}

#[test]
fn bad_parameters_are_errors() {
    let d = TimeDomain::unit();
    assert!(TimeDomain::new(f64::NAN, 1.0).is_err());
    assert!(TimeDomain::new(1.0, 0.0).is_err());
    assert!(TimeDomain::new(0.0, f64::INFINITY).is_err());
    assert!(TaylorModel::<3>::affine(d, f64::NAN, 0.0).is_err());
    assert!(TaylorModel::<3>::sin_cos_affine(d, 1.0, f64::INFINITY).is_err());
    assert!(TaylorModel::<3>::from_parts(d, 0.0, [1.0, f64::NAN, 0.0], Interval::ZERO).is_err());
    assert!(TaylorModel::<3>::try_dot(&[], &[]).is_err());
    // A non-finite constant is an unknown value, not a panic.
    assert_eq!(
        TaylorModel::<3>::constant(d, f64::NAN).bound(),
        Interval::ENTIRE
    );
    assert!(TaylorModel::<3>::identity(d).eval(1.5).is_none());
}
