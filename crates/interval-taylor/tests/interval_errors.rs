//! Bad input gives typed errors that name the offending values, never a
//! panic; the infallible twins (`point`, operators) stay sound instead.

use armature_interval_taylor::{Interval, IntervalError, IntervalMat3, IntervalVec3};
use glam::DVec3;

const NAN: f64 = f64::NAN;
const INF: f64 = f64::INFINITY;

macro_rules! new_rejects {
    ($($name:ident: ($lo:expr, $hi:expr) => $variant:ident;)*) => {$(
        #[test]
        fn $name() {
            let (lo, hi): (f64, f64) = ($lo, $hi);
            let err = Interval::new(lo, hi).expect_err("must be rejected");
            assert!(matches!(err, IntervalError::$variant { .. }), "[{lo}, {hi}] gave {err:?}");
            // (Compared by Debug text: a NaN field is not equal to itself.)
            let same = |r: Result<_, IntervalError>| format!("{r:?}") == format!("{:?}", Err::<(), _>(err));
            assert!(same(Interval::try_from((lo, hi)).map(|_| ())), "try_from");
            // The message names both end points as given.
            let msg = err.to_string();
            assert!(msg.contains(&lo.to_string()) && msg.contains(&hi.to_string()), "{msg}");
            // The component-wise box constructor passes the error on.
            let b = IntervalVec3::from_bounds(DVec3::new(0.0, lo, 0.0), DVec3::new(1.0, hi, 1.0));
            assert!(same(b.map(|_| ())), "from_bounds");
        }
    )*};
}

new_rejects! {
    nan_lo: (NAN, 1.0) => NaN;
    nan_hi: (1.0, NAN) => NaN;
    nan_both: (NAN, NAN) => NaN;
    nan_and_inverted: (NAN, -INF) => NaN;
    inverted: (2.0, 1.0) => Inverted;
    inverted_by_one_ulp: (1.0_f64.next_up(), 1.0) => Inverted;
    inverted_zeros_are_fine_but_this_is_not: (0.0, -5e-324) => Inverted;
    inverted_infinities: (INF, -INF) => Inverted;
    only_plus_infinity: (INF, INF) => NoRealNumber;
    only_minus_infinity: (-INF, -INF) => NoRealNumber;
}

#[test]
fn new_accepts_the_edge_cases() {
    for (lo, hi) in [
        (-0.0, 0.0),
        (0.0, -0.0),
        (-INF, INF),
        (-INF, -f64::MAX),
        (f64::MAX, INF),
        (1.0, 1.0),
        (5e-324, 5e-324),
    ] {
        let x = Interval::new(lo, hi).unwrap_or_else(|e| panic!("[{lo}, {hi}]: {e}"));
        assert_eq!((x.lo(), x.hi()), (lo, hi));
    }
}

#[test]
fn try_point_rejects_nan_and_infinities() {
    assert!(matches!(
        Interval::try_point(NAN),
        Err(IntervalError::NaN { .. })
    ));
    assert!(matches!(
        Interval::try_point(INF),
        Err(IntervalError::NoRealNumber { .. })
    ));
    assert!(matches!(
        Interval::try_point(-INF),
        Err(IntervalError::NoRealNumber { .. })
    ));
    assert_eq!(Interval::try_point(2.5), Ok(Interval::point(2.5)));
}

#[test]
fn point_of_nan_is_the_entire_line() {
    assert_eq!(Interval::point(NAN), Interval::ENTIRE);
    assert_eq!(Interval::from(NAN), Interval::ENTIRE);
    // And an infinite point becomes the half line beyond ±MAX.
    assert_eq!(Interval::point(INF), Interval::new(f64::MAX, INF).unwrap());
    assert_eq!(
        Interval::point(-INF),
        Interval::new(-INF, -f64::MAX).unwrap()
    );
    // A NaN scalar operand stands for an unknown number.
    let x = Interval::new(1.0, 2.0).unwrap();
    for r in [x + NAN, x - NAN, x * NAN, x / NAN, NAN / x] {
        assert_eq!(r, Interval::ENTIRE);
    }
}

#[test]
fn sqrt_of_a_negative_interval_errors() {
    for (lo, hi) in [(-2.0, -1.0), (-INF, -5e-324), (-1.0, -1.0)] {
        let err = Interval::new(lo, hi).unwrap().sqrt().expect_err("negative");
        assert_eq!(err, IntervalError::NegativeSqrt { lo, hi });
        let msg = err.to_string();
        assert!(
            msg.contains(&lo.to_string()) && msg.contains(&hi.to_string()),
            "{msg}"
        );
    }
    // Touching zero is fine: √0 = 0.
    for hi in [0.0, -0.0] {
        let r = Interval::new(-1.0, hi)
            .unwrap()
            .sqrt()
            .expect("touches zero");
        assert!(
            r.lo() == 0.0 && r.contains(0.0) && r.hi() <= 5e-324,
            "{r:?}"
        );
    }
}

#[test]
fn checked_div_by_zero_errors() {
    let x = Interval::new(1.0, 2.0).unwrap();
    for zero in [
        Interval::ZERO,
        Interval::new(-0.0, 0.0).unwrap(),
        Interval::new(-0.0, -0.0).unwrap(),
    ] {
        assert_eq!(x.checked_div(zero), Err(IntervalError::DivisionByZero));
        assert_eq!(x / zero, Interval::ENTIRE);
    }
    assert!(IntervalError::DivisionByZero.to_string().contains("zero"));
    // Divisors merely holding zero are not errors.
    let half = x.checked_div(Interval::new(0.0, 1.0).unwrap()).unwrap();
    assert_eq!((half.hi(), half.lo() <= 1.0), (INF, true));
}

macro_rules! bad_axis {
    ($($name:ident: $axis:expr;)*) => {$(
        #[test]
        fn $name() {
            let axis: DVec3 = $axis;
            let angle = Interval::new(0.0, 1.0).unwrap();
            let err = IntervalMat3::from_axis_angle(axis, angle).expect_err("bad axis");
            assert!(
                matches!(err, IntervalError::BadAxis { x, y, z }
                    if x.to_bits() == axis.x.to_bits()
                        && y.to_bits() == axis.y.to_bits()
                        && z.to_bits() == axis.z.to_bits()),
                "{axis:?} gave {err:?}"
            );
            let msg = err.to_string();
            for c in [axis.x, axis.y, axis.z] {
                assert!(msg.contains(&c.to_string()), "{msg} does not name {c}");
            }
        }
    )*};
}

bad_axis! {
    zero_axis: DVec3::ZERO;
    negative_zero_axis: DVec3::new(-0.0, 0.0, -0.0);
    nan_axis: DVec3::new(NAN, 0.0, 1.0);
    all_nan_axis: DVec3::NAN;
    infinite_axis: DVec3::new(0.0, INF, 0.0);
    minus_infinite_axis: DVec3::new(1.0, 2.0, -INF);
}

#[test]
fn tiny_and_huge_axes_are_accepted() {
    let angle = Interval::new(0.0, 1.0).unwrap();
    for axis in [
        DVec3::new(5e-324, 0.0, 0.0),
        DVec3::new(f64::MAX, f64::MAX, 0.0),
        DVec3::new(1e-200, 1e-200, 1e-200),
    ] {
        let m =
            IntervalMat3::from_axis_angle(axis, angle).unwrap_or_else(|e| panic!("{axis:?}: {e}"));
        // Sound, if loose: the identity (θ = 0) is inside.
        assert!(m.contains(&glam::DMat3::IDENTITY), "{axis:?}: {m:?}");
    }
}

#[test]
fn display_and_debug_never_panic() {
    let cases = [
        Interval::ENTIRE,
        Interval::ZERO,
        Interval::PI,
        Interval::point(5e-324),
        Interval::point(-f64::MAX),
        Interval::new(-INF, 0.0).unwrap(),
        Interval::new(-0.0, 0.0).unwrap(),
    ];
    for x in cases {
        for s in [
            format!("{x}"),
            format!("{x:?}"),
            format!("{x:.3}"),
            format!("{x:.0}"),
            format!("{x:#?}"),
        ] {
            assert!(s.starts_with('[') && s.ends_with(']'), "{s}");
        }
    }
    assert_eq!(
        format!("{:.2}", Interval::new(1.0, 2.5).unwrap()),
        "[1.00, 2.50]"
    );
    assert_eq!(format!("{}", Interval::ENTIRE), "[-inf, inf]");
    let v = IntervalVec3::splat(Interval::UNIT);
    assert!(!format!("{v:?}").is_empty());
    assert!(!format!("{:?}", IntervalMat3::IDENTITY).is_empty());
}

#[test]
fn error_messages_name_the_values() {
    let cases: [(IntervalError, &[&str]); 5] = [
        (IntervalError::NaN { lo: NAN, hi: 3.5 }, &["NaN", "3.5"]),
        (
            IntervalError::Inverted { lo: 2.0, hi: -1.25 },
            &["2", "-1.25"],
        ),
        (IntervalError::NoRealNumber { lo: INF, hi: INF }, &["inf"]),
        (
            IntervalError::NegativeSqrt { lo: -4.0, hi: -0.5 },
            &["-4", "-0.5"],
        ),
        (
            IntervalError::BadAxis {
                x: 0.0,
                y: NAN,
                z: 7.0,
            },
            &["0", "NaN", "7"],
        ),
    ];
    for (err, names) in cases {
        let msg = err.to_string();
        for n in names {
            assert!(msg.contains(n), "{msg:?} does not name {n}");
        }
        // Debug too (for `unwrap` output).
        assert!(!format!("{err:?}").is_empty());
        // A std error, so it composes with `?` into boxed errors.
        let boxed: Box<dyn std::error::Error> = Box::new(err);
        assert_eq!(boxed.to_string(), msg);
    }
}

#[test]
fn operations_on_extreme_inputs_do_not_panic() {
    let extremes = [
        Interval::ENTIRE,
        Interval::ZERO,
        Interval::new(-INF, 0.0).unwrap(),
        Interval::new(0.0, INF).unwrap(),
        Interval::new(f64::MAX, INF).unwrap(),
        Interval::new(-INF, -f64::MAX).unwrap(),
        Interval::point(5e-324),
        Interval::point(-f64::MAX),
        Interval::new(-0.0, -0.0).unwrap(),
    ];
    for &x in &extremes {
        for &y in &extremes {
            for r in [x + y, x - y, x * y, x / y, x.min(y), x.max(y), x.hull(y)] {
                assert!(
                    r.lo() <= r.hi() && r.lo() < INF && r.hi() > -INF,
                    "{x:?}, {y:?}: {r:?}"
                );
            }
            let _ = x.intersect(y);
            let _ = x.checked_div(y);
        }
        for n in -7..=7 {
            let r = x.powi(n);
            assert!(r.lo() <= r.hi(), "{x:?}^{n} = {r:?}");
        }
        let _ = (x.sin(), x.cos(), x.sqr(), x.abs(), x.recip(), x.sqrt());
        let _ = (x.midpoint(), x.radius(), x.width(), x.mag(), x.mig());
        let _ = (x.inflate(1.0), x.inflate_ulps(2), x.inflate(INF));
    }
}
