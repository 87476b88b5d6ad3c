//! Cases where rounding decides: the end points of point
//! operations and of `sin` / `cos` lie within a few ulps of the exact
//! result, so containment is checked exactly against error-free
//! transformations and a double-double oracle, never with a tolerance.
//! Also the π constants and the extrema logic of `sin` / `cos`, and (module
//! `oracle`) checks of the oracle itself against independently known values.

mod support;

use armature_interval_taylor::{Interval, IntervalError};
use core::cmp::Ordering;
use core::f64::consts::{FRAC_PI_2, PI};
use proptest::prelude::*;
use support::{
    Dd, HALF_PI_DD, PI_DD, TWO_PI_DD, cmp_diff, cmp_prod, cmp_quot, cmp_sqrt, cmp_sum, config,
    contains_dd, cos_dd, encloses, ge_dd, iv, le_dd, sin_dd,
};

// ---------------------------------------------------------------------------
// Point arithmetic against exact results
// ---------------------------------------------------------------------------

/// `+ − × ÷`, `sqr` and `sqrt` of the point intervals `[a, a]`, `[b, b]`
/// hold the exact results; `÷` by checking `q_lo·b ≤ a ≤ q_hi·b` (for
/// `b > 0`, reversed for `b < 0`) with exact products, `sqrt` by
/// `lo² ≤ a ≤ hi²`.
fn check_point_ops(a: f64, b: f64) {
    let (x, y) = (Interval::point(a), Interval::point(b));
    let r = x + y;
    assert!(encloses(r, |z| cmp_sum(a, b, z)), "{a:e} + {b:e} ∉ {r:?}");
    let r = x - y;
    assert!(encloses(r, |z| cmp_diff(a, b, z)), "{a:e} − {b:e} ∉ {r:?}");
    let r = x * y;
    assert!(encloses(r, |z| cmp_prod(a, b, z)), "{a:e} × {b:e} ∉ {r:?}");
    if b == 0.0 {
        assert_eq!(x / y, Interval::ENTIRE, "{a:e} / 0");
        assert_eq!(x.checked_div(y), Err(IntervalError::DivisionByZero));
    } else {
        let r = x / y;
        assert!(encloses(r, |z| cmp_quot(a, b, z)), "{a:e} ÷ {b:e} ∉ {r:?}");
        let r = x.checked_div(y).expect("non-zero divisor");
        assert!(encloses(r, |z| cmp_quot(a, b, z)), "{a:e} ÷ {b:e} ∉ {r:?}");
    }
    let r = x.sqr();
    assert!(encloses(r, |z| cmp_prod(a, a, z)), "{a:e}² ∉ {r:?}");
    assert!(r.lo() >= 0.0, "{a:e}² has a negative lower bound: {r:?}");
    let m = a.abs();
    let r = Interval::point(m).sqrt().expect("non-negative");
    assert!(encloses(r, |z| cmp_sqrt(m, z)), "√{m:e} ∉ {r:?}");
    assert!(r.lo() >= 0.0, "√{m:e} has a negative lower bound: {r:?}");
}

macro_rules! point_cases {
    ($($name:ident: $a:expr, $b:expr;)*) => {$(
        #[test]
        fn $name() {
            check_point_ops($a, $b);
            check_point_ops($b, $a);
            check_point_ops(-$a, $b);
            check_point_ops($a, -$b);
        }
    )*};
}

point_cases! {
    one_third: 1.0, 3.0;
    tenths: 0.1, 0.2;
    sum_one_ulp_below_tie: 1.0, f64::EPSILON / 2.0;
    sum_just_above_tie: 1.0, f64::EPSILON / 2.0 + f64::EPSILON / 4.0;
    large_plus_tiny: 1e300, 1e-300;
    cancellation: 1.0 + f64::EPSILON, -1.0;
    near_cancellation: 0.1, -(0.1_f64.next_up());
    overflowing_sum: f64::MAX, f64::MAX;
    overflowing_product: 1e200, 1e200;
    underflowing_product: 1e-200, 1e-200;
    product_into_subnormals: 1e-160, 1e-160;
    subnormal_operands: 5e-324, 3.0e-320;
    smallest_normal: f64::MIN_POSITIVE, 0.5;
    max_over_small: f64::MAX, 0.5;
    tiny_over_large: 5e-324, 1e300;
    sqrt_two: 2.0, 7.0;
    zero_and_one: 0.0, 1.0;
    negative_zero: -0.0, 2.5;
    both_zero: 0.0, 0.0;
    near_one_products: 1.0 + f64::EPSILON, 1.0 - f64::EPSILON / 2.0;
    pi_and_e: PI, core::f64::consts::E;
}

/// Pairs whose sum, difference, product or quotient is rarely exact:
/// full 53-bit mantissas at any exponent, and near-cancelling pairs.
fn rounding_pair() -> impl Strategy<Value = (f64, f64)> {
    let mantissa = 1.0..2.0_f64;
    let scaled = (mantissa.clone(), -1074_i32..1024).prop_map(|(m, e)| support::ldexp(m, e));
    let signed = (scaled.clone(), any::<bool>()).prop_map(|(x, s)| if s { -x } else { x });
    prop_oneof![
        3 => (signed.clone(), signed.clone()),
        3 => (support::any_finite(), support::any_finite()),
        2 => (mantissa.clone(), -60_i32..60, mantissa.clone())
            .prop_map(|(a, e, b)| (a, support::ldexp(b, e))),
        // b ≈ −a within a few ulps: the sum is small and often exact
        // (Sterbenz), the product and quotient are not.
        2 => (signed, -4_i32..=4).prop_map(|(a, k)| {
            let mut b = -a;
            for _ in 0..k.unsigned_abs() {
                b = if k > 0 { b.next_up() } else { b.next_down() };
            }
            (a, if b.is_finite() { b } else { -a })
        }),
    ]
}

proptest! {
    #![proptest_config(config(10_000))]

    #[test]
    fn point_arithmetic_holds_exact_results((a, b) in rounding_pair()) {
        check_point_ops(a, b);
    }

    #[test]
    fn point_sin_cos_hold_oracle(x in trig_argument()) {
        let r = Interval::point(x).sin();
        prop_assert!(contains_dd(r, sin_dd(x)), "sin {x:e} = {:?} ∉ {r:?}", sin_dd(x));
        let r = Interval::point(x).cos();
        prop_assert!(contains_dd(r, cos_dd(x)), "cos {x:e} = {:?} ∉ {r:?}", cos_dd(x));
    }
}

/// Arguments in `[−1e4, 1e4]` where the oracle is accurate: uniform,
/// log-uniform down to 1e-300, and within a few ulps of multiples of π/2
/// (where `sin` or `cos` nearly vanishes and argument reduction is hardest).
fn trig_argument() -> impl Strategy<Value = f64> {
    let near_quarter_turn = (-6366_i32..=6366, -3_i32..=3).prop_map(|(k, j)| {
        let x = (Dd::from_f64(f64::from(k)) * HALF_PI_DD).to_f64();
        let mut y = x;
        for _ in 0..j.unsigned_abs() {
            y = if j > 0 { y.next_up() } else { y.next_down() };
        }
        y
    });
    let log_uniform = (-300.0..4.0_f64, any::<bool>()).prop_map(|(e, s)| {
        let x = 10_f64.powf(e);
        if s { -x } else { x }
    });
    prop_oneof![
        3 => -1e4..=1e4_f64,
        2 => near_quarter_turn,
        2 => log_uniform,
        1 => (-10_000_i32..=10_000).prop_map(f64::from),
    ]
}

#[test]
fn sin_cos_at_the_hardest_reduction_in_range() {
    // k·π/2 nearest f64 for k = 29, 58, 116, 232 lie within 1.4e-20
    // relative of the multiple; sin or cos there is about 1e-18.
    for x in [
        45.553_093_477_052_f64,
        91.106_186_954_104,
        182.212_373_908_208,
        364.424_747_816_416,
    ] {
        for y in [x, -x, x.next_up(), x.next_down()] {
            let p = Interval::point(y);
            assert!(contains_dd(p.sin(), sin_dd(y)), "sin {y:e}: {:?}", p.sin());
            assert!(contains_dd(p.cos(), cos_dd(y)), "cos {y:e}: {:?}", p.cos());
        }
    }
}

#[test]
fn sin_of_subnormal_points_holds_the_true_value() {
    // For |x| < 1e-150, sin x = x − x³/6 + … lies strictly between x and its
    // neighbour towards zero (x³/6 is far below an ulp of x), so both must
    // be inside; cos x lies strictly between 1 − 2⁻⁵³ and 1.
    for x in [
        5e-324,
        1e-320,
        f64::MIN_POSITIVE,
        1e-300,
        1e-160,
        -5e-324,
        -1e-310,
    ] {
        let s = Interval::point(x).sin();
        let toward_zero = if x > 0.0 { x.next_down() } else { x.next_up() };
        assert!(s.contains(x) && s.contains(toward_zero), "sin {x:e}: {s:?}");
        let c = Interval::point(x).cos();
        assert!(
            c.contains(1.0) && c.contains(1.0_f64.next_down()),
            "cos {x:e}: {c:?}"
        );
    }
}

// ---------------------------------------------------------------------------
// π constants
// ---------------------------------------------------------------------------

macro_rules! pi_constant_cases {
    ($($name:ident: $iv:expr, $dd:expr;)*) => {$(
        #[test]
        fn $name() {
            let (x, d): (Interval, Dd) = ($iv, $dd);
            // The dd is within 1e-32 relative of the constant; the end points
            // are an ulp (1e-16 relative) apart, so the comparison is decisive.
            assert!(contains_dd(x, d), "{x:?} misses {d:?}");
            // The constants are irrational: both ends are strictly outside.
            assert!(!ge_dd(x.lo(), d) && !le_dd(x.hi(), d), "{x:?} touches {d:?}");
            // Tight: the enclosure is the two f64 around the constant.
            assert_eq!(x.lo().next_up(), x.hi(), "{x:?} is not one ulp wide");
        }
    )*};
}

pi_constant_cases! {
    pi_holds_pi: Interval::PI, PI_DD;
    half_pi_holds_half_pi: Interval::HALF_PI, HALF_PI_DD;
    two_pi_holds_two_pi: Interval::TWO_PI, TWO_PI_DD;
}

#[test]
fn pi_dd_constants_agree_with_half_pi_parts() {
    let from_parts = |scale: f64| {
        support::HALF_PI_PARTS
            .iter()
            .fold(Dd::ZERO, |acc, &p| acc + Dd::from_f64(p * scale))
    };
    for (scale, dd) in [(1.0, HALF_PI_DD), (2.0, PI_DD), (4.0, TWO_PI_DD)] {
        let diff = (from_parts(scale) - dd).to_f64().abs();
        assert!(diff < 1e-31, "×{scale}: {diff:e}");
    }
}

// ---------------------------------------------------------------------------
// Extrema of sin and cos
// ---------------------------------------------------------------------------

#[test]
fn sin_straddling_half_pi_by_one_ulp_reaches_one() {
    // FRAC_PI_2 < π/2 < next_up(FRAC_PI_2).
    assert!(le_dd(FRAC_PI_2, HALF_PI_DD) && ge_dd(FRAC_PI_2.next_up(), HALF_PI_DD));
    let s = iv(FRAC_PI_2, FRAC_PI_2.next_up()).sin();
    assert_eq!(s.hi(), 1.0, "{s:?}");
    assert!(s.lo() < 1.0 && s.lo() > 0.999_999_999_999_999, "{s:?}");
    // cos changes sign there, so its enclosure must hold 0.
    let c = iv(FRAC_PI_2, FRAC_PI_2.next_up()).cos();
    assert!(c.contains(0.0), "{c:?}");
    // And one ulp around a far multiple: 29·π/2 is a maximum of sin.
    let x = 45.553_093_477_052_f64;
    let s = iv(x.next_down(), x.next_up()).sin();
    assert_eq!(s.hi(), 1.0, "{s:?}");
    // 3·π/2 + 2π·7 ≈ 48.69: a minimum.
    let m = (Dd::from_f64(31.0) * HALF_PI_DD).to_f64();
    let s = iv(m.next_down(), m.next_up()).sin();
    assert_eq!(s.lo(), -1.0, "{s:?}");
}

#[test]
fn cos_around_two_pi_reaches_one() {
    let c = iv(2.0 * PI - 1e-9, 2.0 * PI + 1e-9).cos();
    assert_eq!(c.hi(), 1.0, "{c:?}");
    assert!(c.lo() > 0.999_999_999_999, "{c:?}");
    let c = iv(-1e-9, 1e-9).cos();
    assert_eq!(c.hi(), 1.0, "{c:?}");
    let c = iv(PI - 1e-9, PI + 1e-9).cos();
    assert_eq!(c.lo(), -1.0, "{c:?}");
}

macro_rules! full_period_cases {
    ($($name:ident: $lo:expr, $hi:expr;)*) => {$(
        #[test]
        fn $name() {
            let x = iv($lo, $hi);
            assert!(x.hi() - x.lo() >= 2.0 * PI, "{x:?} is narrower than 2π");
            assert_eq!(x.sin(), Interval::UNIT, "sin {x:?}");
            assert_eq!(x.cos(), Interval::UNIT, "cos {x:?}");
        }
    )*};
}

full_period_cases! {
    full_period_from_zero: 0.0, Interval::TWO_PI.hi();
    full_period_from_minus_pi: -PI, PI + 3.5;
    full_period_far_out: 9_990.0, 9_996.3;
    wide: -20.0, 20.0;
    huge: -1e12, 1e12;
    entire: f64::NEG_INFINITY, f64::INFINITY;
}

proptest! {
    #![proptest_config(config(10_000))]

    #[test]
    fn sin_cos_over_a_full_period_are_the_unit_interval(
        lo in -1e4..1e4_f64,
        w in 6.284..30.0_f64,
    ) {
        let x = iv(lo, lo + w);
        prop_assert_eq!(x.sin(), Interval::UNIT);
        prop_assert_eq!(x.cos(), Interval::UNIT);
    }
}

#[test]
fn sin_over_a_short_rising_stretch_stays_inside() {
    let x = iv(0.1, 0.2);
    let s = x.sin();
    assert!(s.hi() < 1.0 && s.lo() > -1.0, "{s:?}");
    assert!(
        contains_dd(s, sin_dd(0.1)) && contains_dd(s, sin_dd(0.2)),
        "{s:?}"
    );
    // Tight: within LIBM_ULPS (+1) ulps of the end-point values.
    let n = armature_interval_taylor::LIBM_ULPS + 1;
    let (mut lo, mut hi) = (sin_dd(0.1).to_f64(), sin_dd(0.2).to_f64());
    for _ in 0..n {
        lo = lo.next_down();
        hi = hi.next_up();
    }
    assert!(s.subset(iv(lo, hi)), "{s:?} wider than {lo:e}..{hi:e}");
    // cos decreasing on the same stretch: no extremum either.
    let c = x.cos();
    assert!(c.hi() < 1.0 && c.lo() > -1.0, "{c:?}");
}

// ---------------------------------------------------------------------------
// The oracle itself
// ---------------------------------------------------------------------------

mod oracle {
    use super::support::{
        Dd, cmp_dd, cmp_powi, cmp_prod, cos_dd, frexp, ge_dd, ldexp, le_dd, sin_dd, two_prod,
        two_sum,
    };
    use core::cmp::Ordering;
    use core::f64::consts::{FRAC_PI_2, FRAC_PI_4, FRAC_PI_6, PI, TAU};
    use proptest::prelude::*;

    /// A decimal string `[-]ddd.ddd[e±n]` as a dd, to within a few u²
    /// relative: the digits are read in exact 15-digit chunks and scaled by
    /// exact powers of ten.
    fn dd_from_decimal(s: &str) -> Dd {
        let (neg, s) = s.strip_prefix('-').map_or((false, s), |t| (true, t));
        let (mant, exp) = s
            .split_once('e')
            .map_or((s, 0), |(m, e)| (m, e.parse::<i32>().expect("exponent")));
        let (int, fr) = mant.split_once('.').unwrap_or((mant, ""));
        let digits: String = [int, fr].concat();
        let mut acc = Dd::ZERO;
        for chunk in digits.as_bytes().chunks(15) {
            let chunk = core::str::from_utf8(chunk).expect("ascii");
            let v: f64 = chunk.parse::<u64>().expect("digits") as f64;
            let scale = 10_f64.powi(i32::try_from(chunk.len()).expect("short"));
            acc = acc * Dd::from_f64(scale) + Dd::from_f64(v);
        }
        let mut e = exp - i32::try_from(fr.len()).expect("short");
        while e < 0 {
            let k = (-e).min(22);
            acc = acc.div_f64(10_f64.powi(k));
            e += k;
        }
        while e > 0 {
            let k = e.min(22);
            acc = acc * Dd::from_f64(10_f64.powi(k));
            e -= k;
        }
        if neg { -acc } else { acc }
    }

    fn assert_close(got: Dd, want: Dd, rel: f64, what: &str) {
        let err = (got - want).to_f64().abs();
        assert!(
            err <= rel * want.to_f64().abs(),
            "{what}: got {got:?}, want {want:?}, relative error {:e}",
            err / want.to_f64().abs()
        );
    }

    #[test]
    fn decimal_parser_reads_exact_values() {
        assert_eq!(dd_from_decimal("0.5"), Dd::from_f64(0.5));
        assert_eq!(dd_from_decimal("-2.5e-3").to_f64(), -2.5e-3);
        assert_eq!(
            dd_from_decimal("3.01443533594884492143302800086500995902558071e-5").hi,
            3.014_435_335_948_845e-5
        );
    }

    /// sin and cos of f64 arguments, to 45 significant digits (computed at
    /// 100 digits with mpmath; sin 1 and cos 1 agree with the digits in the
    /// DLMF / OEIS A049469 and A049470).
    const TABLE: &[(f64, &str, &str)] = &[
        (
            1.0,
            "0.841470984807896506652502321630298999622563061",
            "0.540302305868139717400936607442976603732310421",
        ),
        (
            0.5,
            "0.479425538604203000273287935215571388081803368",
            "0.877582561890372716116281582603829651991645197",
        ),
        (
            -2.5,
            "-0.598472144103956494051854702186162271703597172",
            "-0.801143615546933714833502790467351664428567849",
        ),
        (
            3.0,
            "0.141120008059867222100744802808110279846933264",
            "-0.989992496600445457271572794731261302393679097",
        ),
        (
            22.0,
            "-0.00885130929040387592169025681577233246328920395",
            "-0.999960826394637126454174739212693774135988467",
        ),
        (
            100.0,
            "-0.506365641109758793656557610459785432065032721",
            "0.862318872287683934101938513950842535510084009",
        ),
        (
            355.0,
            "-3.01443533594884492143302800086500995902558071e-5",
            "-0.999999999545658980165935841692754081123824951",
        ),
        (
            1000.0,
            "0.826879540532002560255887429109218141212724968",
            "0.562379076290702991078249226605395968755811822",
        ),
        (
            10000.0,
            "-0.305614388888252141360910035232506974231850044",
            "-0.952155368259014851240386760663306001307070126",
        ),
        (
            -10000.0,
            "0.305614388888252141360910035232506974231850044",
            "-0.952155368259014851240386760663306001307070126",
        ),
        (
            1e-05,
            "9.99999999983333415136470576607823318448800874e-6",
            "0.999999999950000000000416658486359886510984914",
        ),
        (
            1e-300,
            "1.00000000000000002505909183520875968569614681e-300",
            "1.0",
        ),
        // The f64 nearest π/6: sin is 0.5 + 4.6e-17.
        (
            FRAC_PI_6,
            "0.500000000000000046422502234037015715453406223",
            "0.866025403784438619961679009475660068682941506",
        ),
        (
            FRAC_PI_4,
            "0.70710678118654750275194295621751674626154324",
            "0.707106781186547546049745767992180669501683341",
        ),
        (
            FRAC_PI_2,
            "0.999999999999999999999999999999998125300271673",
            "6.1232339957367658861303296613750014646403778e-17",
        ),
        (
            PI,
            "1.2246467991473531772260659322749979970830539e-16",
            "-0.999999999999999999999999999999992501201086691",
        ),
        (
            TAU,
            "-2.44929359829470635445213186454997762740593453e-16",
            "0.999999999999999999999999999999970004804346763",
        ),
        (
            45.553_093_477_052,
            "0.999999999999999999999999999999999999808431486",
            "-6.18980636588357700015067146560965595823777678e-19",
        ),
        (
            91.106_186_954_104,
            "-1.23796127317671540003013429312193119141040095e-18",
            "-0.999999999999999999999999999999999999233725943",
        ),
        (
            -182.212_373_908_208,
            "-2.47592254635343080006026858624386238092356669e-18",
            "0.999999999999999999999999999999999996934903772",
        ),
        (
            9999.5,
            "0.188285741911348478086434456406304971226538495",
            "-0.982114290392362161334625697431596374387209248",
        ),
        (
            7_853.981_633_974_483,
            "-1.21420588489212245980024173200087965322540839e-13",
            "0.999999999999999999999999992628520345466689317",
        ),
        (
            -0.1,
            "-0.0998334166468281578301968678586166677359655721",
            "0.995004165278025765541375198862345256348080084",
        ),
        (
            0.2,
            "0.198669330795061226340337430967686806220828937",
            "0.980066577841241628918523863392682632786426382",
        ),
    ];

    #[test]
    fn sin_cos_match_known_values_to_1e_27() {
        for &(x, s, c) in TABLE {
            assert_close(sin_dd(x), dd_from_decimal(s), 1e-27, &format!("sin {x:e}"));
            assert_close(cos_dd(x), dd_from_decimal(c), 1e-27, &format!("cos {x:e}"));
        }
    }

    #[test]
    fn sin_one_matches_the_briefs_digits() {
        let s = "0.8414709848078965066525023216302989996225630607983710656727517099919104043912396689486397435430526958543490379079206742932591189209918988811934103277";
        let c = "0.5403023058681397174009366074429766037323104206179222276700972553811003947744717645179518560871830893435717311600300890978606337600216634564065122654";
        // Only the first 45 digits matter at dd precision.
        assert_close(sin_dd(1.0), dd_from_decimal(&s[..47]), 1e-30, "sin 1");
        assert_close(cos_dd(1.0), dd_from_decimal(&c[..47]), 1e-30, "cos 1");
    }

    proptest! {
        #![proptest_config(super::config(10_000))]

        #[test]
        fn sin_cos_are_consistent_and_near_libm(x in -1e4..=1e4_f64) {
            let (s, c) = (sin_dd(x), cos_dd(x));
            // sin² + cos² = 1 to dd accuracy (catches a wrong quadrant or
            // sign, which libm's 1-ulp agreement alone might not).
            let one = s * s + c * c;
            prop_assert!((one - Dd::ONE).to_f64().abs() < 1e-30, "{x}: {one:?}");
            // And within 2 ulps of the platform's values.
            for (d, f) in [(s, x.sin()), (c, x.cos())] {
                let tol = 2.0 * f64::EPSILON * d.to_f64().abs().max(f64::MIN_POSITIVE);
                prop_assert!((d.to_f64() - f).abs() <= tol, "{x}: dd {d:?}, libm {f:e}");
            }
            // Odd and even.
            prop_assert_eq!(sin_dd(-x), -s);
            prop_assert_eq!(cos_dd(-x), c);
        }

        /// `le_dd` / `ge_dd` against the exact difference `x − hi` (exact by
        /// Sterbenz for `x` within a few ulps of `hi`).
        #[test]
        fn le_ge_dd_agree_with_exact_subtraction(
            m in 1.0..2.0_f64,
            e in -1000_i32..1000,
            f in -0.5..=0.5_f64,
            j in -3_i32..=3,
            neg in any::<bool>(),
        ) {
            let hi = ldexp(if neg { -m } else { m }, e);
            let ulp = hi.abs().next_up() - hi.abs();
            let d = two_sum(hi, f * ulp);
            prop_assume!(d.hi == hi);
            let mut x = hi;
            for _ in 0..j.unsigned_abs() {
                x = if j > 0 { x.next_up() } else { x.next_down() };
            }
            let diff = x - hi;
            prop_assert_eq!(le_dd(x, d), diff <= d.lo);
            prop_assert_eq!(ge_dd(x, d), diff >= d.lo);
        }

        /// `cmp_prod` of subnormal-range operands agrees with the same
        /// comparison scaled up by 2^1040 (exact), where TwoProd is exact.
        #[test]
        fn cmp_prod_is_exact_near_underflow(
            a in 1.0..2.0_f64,
            b in 1.0..2.0_f64,
            j in -2_i32..=2,
        ) {
            let (x, y) = (ldexp(a, -520), ldexp(b, -520));
            let mut z = x * y; // subnormal, rounded
            for _ in 0..j.unsigned_abs() {
                z = if j > 0 { z.next_up() } else { z.next_down() };
            }
            let want = cmp_dd(two_prod(a, b), ldexp(z, 1040));
            prop_assert_eq!(cmp_prod(x, y, z), want);
            prop_assert_eq!(cmp_prod(-x, y, -z), want.reverse());
            prop_assert_eq!(cmp_prod(x, -y, z), Ordering::Less);
        }
    }

    #[test]
    fn le_dd_at_a_power_of_two() {
        // 1 − 2⁻⁵⁴ is the tie between pred(1) and 1, rounding to 1 (even).
        let d = two_sum(1.0, -(2f64.powi(-54)));
        assert_eq!(
            d,
            Dd {
                hi: 1.0,
                lo: -(2f64.powi(-54))
            }
        );
        assert!(le_dd(1.0_f64.next_down(), d));
        assert!(!ge_dd(1.0_f64.next_down(), d));
        assert!(!le_dd(1.0, d) && ge_dd(1.0, d));
        assert!(le_dd(f64::NEG_INFINITY, d) && ge_dd(f64::INFINITY, d));
    }

    #[test]
    fn frexp_and_ldexp_round_trip() {
        for x in [
            1.0,
            1.5,
            3.0,
            0.1,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            1e-310,
            123.456,
        ] {
            let (m, e) = frexp(x);
            assert!((1.0..2.0).contains(&m), "{x:e}: {m}");
            assert_eq!(ldexp(m, e), x, "{x:e}");
        }
    }

    #[test]
    fn cmp_powi_on_exact_powers() {
        for (x, n, z, want) in [
            (2.0, 9, 512.0, Ordering::Equal),
            (-2.0, 3, -8.0, Ordering::Equal),
            (0.5, -6, 64.0, Ordering::Equal),
            // −1/3 < fl(−1/3), which is rounded towards zero.
            (-3.0, -1, -1.0 / 3.0, Ordering::Less),
            (3.0, -1, 1.0 / 3.0, Ordering::Greater),
            (0.1, 3, 0.1 * 0.1 * 0.1, Ordering::Less),
            (1e-200, 5, 0.0, Ordering::Greater),
            (1e200, 9, f64::MAX, Ordering::Greater),
            (1e-40, -9, f64::MAX, Ordering::Greater),
            (-1e-40, -9, f64::NEG_INFINITY, Ordering::Greater),
        ] {
            assert_eq!(cmp_powi(x, n, z), want, "{x:e}^{n} vs {z:e}");
        }
    }
}

#[test]
fn cmp_helpers_agree_on_easy_cases() {
    assert_eq!(cmp_prod(3.0, 4.0, 12.0), Ordering::Equal);
    assert_eq!(cmp_prod(0.1, 3.0, 0.3), Ordering::Greater); // 0.1·3 > fl(0.3)
    assert_eq!(cmp_sum(0.1, 0.2, 0.3), Ordering::Greater);
    assert_eq!(cmp_quot(1.0, 3.0, 1.0 / 3.0), Ordering::Greater);
    assert_eq!(cmp_quot(1.0, -3.0, -1.0 / 3.0), Ordering::Less);
    assert_eq!(cmp_sqrt(2.0, 2f64.sqrt()), Ordering::Less);
    assert_eq!(cmp_sum(f64::MAX, f64::MAX, f64::INFINITY), Ordering::Less);
    assert_eq!(cmp_sum(f64::MAX, f64::MAX, f64::MAX), Ordering::Greater);
}
