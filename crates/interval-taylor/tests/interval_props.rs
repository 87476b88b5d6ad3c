//! Property tests for every interval operation: sample real
//! numbers inside the operands, including the end points, compute the exact
//! result (TwoSum / TwoProd, or a double-double oracle for `sin`, `cos`,
//! powers and three-term sums) and assert that the result interval holds
//! it — exactly, with no tolerance. The one tolerance, for `from_axis_angle`
//! against glam's f64 rotation, is documented at its test.

mod support;

use armature_interval_taylor::{Interval, IntervalAffine3, IntervalMat3, IntervalVec3};
use core::cmp::Ordering;
use glam::{DAffine3, DMat3, DVec3};
use proptest::prelude::*;
use support::{
    Dd, any_finite, any_interval, cmp_diff, cmp_powi, cmp_prod, cmp_quot, cmp_sqrt, cmp_sum,
    config, contains_dd, cos_dd, dot_dd, encloses, frac, iv, moderate_interval, sample, sin_dd,
};

/// Cases for each scalar operation.
const CASES: u32 = 10_000;
/// Cases for the vector, matrix and transform operations (each case checks
/// several sampled points of 3 to 24 intervals).
const COMPOSITE_CASES: u32 = 2_000;

/// Sample points of `x`: both end points (`±MAX` for infinite ones) and two
/// points placed by the fractions.
fn pts(x: Interval, (t0, t1): (f64, f64)) -> [f64; 4] {
    [sample(x, 0.0), sample(x, 1.0), sample(x, t0), sample(x, t1)]
}

/// The invariants every result must keep: ordered, not NaN, at least one
/// real number.
fn valid(r: Interval) -> bool {
    !r.lo().is_nan()
        && !r.hi().is_nan()
        && r.lo() <= r.hi()
        && r.lo() < f64::INFINITY
        && r.hi() > f64::NEG_INFINITY
}

fn fracs2() -> impl Strategy<Value = (f64, f64)> {
    (frac(), frac())
}

/// Divisors: any interval, or one holding or touching zero.
fn divisor() -> impl Strategy<Value = Interval> {
    let around_zero = (0.0..1e3_f64, 0.0..1e3_f64, 0_u8..4).prop_map(|(a, b, k)| match k {
        0 => iv(-a, b),
        1 => iv(0.0, b),
        2 => iv(-a, 0.0),
        _ => iv(-a, -0.0),
    });
    prop_oneof![3 => any_interval(), 1 => around_zero]
}

// ---------------------------------------------------------------------------
// Binary arithmetic: every sampled pair's exact result is inside
// ---------------------------------------------------------------------------

macro_rules! binary_encloses {
    ($($name:ident: $op:tt, $cmp:ident;)*) => {
        proptest! {
            #![proptest_config(config(CASES))]
            $(
                #[test]
                fn $name(x in any_interval(), y in any_interval(), tx in fracs2(), ty in fracs2()) {
                    let r = x $op y;
                    prop_assert!(valid(r), "{x:?} {} {y:?} = {r:?}", stringify!($op));
                    for a in pts(x, tx) {
                        for b in pts(y, ty) {
                            prop_assert!(
                                encloses(r, |z| $cmp(a, b, z)),
                                "{a:e} {} {b:e} ∉ {x:?} {} {y:?} = {r:?}",
                                stringify!($op), stringify!($op),
                            );
                        }
                    }
                }
            )*
        }
    };
}

binary_encloses! {
    add_encloses: +, cmp_sum;
    sub_encloses: -, cmp_diff;
    mul_encloses: *, cmp_prod;
}

proptest! {
    #![proptest_config(config(CASES))]

    /// Quotients `a / b` for every sampled `b ≠ 0` of the divisor, including
    /// divisors that hold or touch zero (then also the smallest subnormals
    /// of either sign the divisor holds, which give the largest quotients).
    #[test]
    fn div_encloses(x in any_interval(), y in divisor(), tx in fracs2(), ty in fracs2()) {
        let r = x / y;
        prop_assert!(valid(r), "{x:?} / {y:?} = {r:?}");
        let mut bs = pts(y, ty).to_vec();
        bs.extend([5e-324, -5e-324, 1e-300, -1e-300].into_iter().filter(|&b| y.contains(b)));
        for a in pts(x, tx) {
            for &b in bs.iter().filter(|&&b| b != 0.0) {
                prop_assert!(encloses(r, |z| cmp_quot(a, b, z)), "{a:e} / {b:e} ∉ {x:?} / {y:?} = {r:?}");
            }
        }
        if y.lo() == 0.0 && y.hi() == 0.0 {
            prop_assert!(x.checked_div(y).is_err());
        } else {
            prop_assert_eq!(x.checked_div(y), Ok(r));
        }
    }

    #[test]
    fn recip_encloses(y in divisor(), ty in fracs2()) {
        let r = y.recip();
        prop_assert!(valid(r));
        for b in pts(y, ty).into_iter().filter(|&b| b != 0.0) {
            prop_assert!(encloses(r, |z| cmp_quot(1.0, b, z)), "1 / {b:e} ∉ {r:?}");
        }
    }

    /// Operators with an f64 operand are the point-interval operators.
    #[test]
    fn scalar_operands_are_points(x in any_interval(), a in any_finite()) {
        let p = Interval::point(a);
        prop_assert_eq!(x + a, x + p);
        prop_assert_eq!(a - x, p - x);
        prop_assert_eq!(x * a, x * p);
        prop_assert_eq!(a / x, p / x);
        let mut y = x;
        y += a;
        y -= x;
        y *= p;
        prop_assert_eq!(y, ((x + p) - x) * p);
    }

    #[test]
    fn sum_of_intervals_encloses(xs in prop::collection::vec(moderate_interval(1e6, 10.0), 1..6), t in frac()) {
        let r: Interval = xs.iter().copied().sum();
        let exact = xs.iter().fold(Dd::ZERO, |acc, &x| acc + Dd::from_f64(sample(x, t)));
        prop_assert!(contains_dd(r, exact), "{exact:?} ∉ {r:?}");
    }
}

// ---------------------------------------------------------------------------
// Unary operations
// ---------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(CASES))]

    #[test]
    fn neg_is_exact(x in any_interval(), tx in fracs2()) {
        let r = -x;
        prop_assert_eq!((r.lo(), r.hi()), (-x.hi(), -x.lo()));
        for a in pts(x, tx) {
            prop_assert!(r.contains(-a));
        }
        prop_assert_eq!(-r, x);
    }

    #[test]
    fn abs_encloses(x in any_interval(), tx in fracs2()) {
        let r = x.abs();
        prop_assert!(valid(r) && r.lo() >= 0.0, "|{x:?}| = {r:?}");
        for a in pts(x, tx) {
            prop_assert!(r.contains(a.abs()), "|{a:e}| ∉ {r:?}");
        }
        // Exact: the end points are attained.
        prop_assert_eq!(r.hi(), x.mag());
        prop_assert_eq!(r.lo(), x.mig());
    }

    #[test]
    fn sqr_encloses(x in any_interval(), tx in fracs2()) {
        let r = x.sqr();
        prop_assert!(valid(r) && r.lo() >= 0.0, "{x:?}² = {r:?}");
        for a in pts(x, tx) {
            prop_assert!(encloses(r, |z| cmp_prod(a, a, z)), "{a:e}² ∉ {r:?}");
        }
        // Never looser than the product of the interval with itself.
        prop_assert!(r.subset(x * x), "{r:?} ⊄ {x:?}·{x:?}");
    }

    /// The square root over the part of the interval at or above zero.
    #[test]
    fn sqrt_encloses(x in any_interval(), tx in fracs2()) {
        match x.sqrt() {
            Err(_) => prop_assert!(x.hi() < 0.0, "√{x:?} rejected"),
            Ok(r) => {
                prop_assert!(x.hi() >= 0.0 && valid(r) && r.lo() >= 0.0, "√{x:?} = {r:?}");
                for a in pts(x, tx).into_iter().filter(|&a| a >= 0.0) {
                    prop_assert!(encloses(r, |z| cmp_sqrt(a, z)), "√{a:e} ∉ {r:?}");
                }
                if x.lo() < 0.0 {
                    prop_assert!(r.contains(0.0));
                }
            }
        }
    }

    #[test]
    fn powi_encloses(x in any_interval(), n in -6_i32..=9, tx in fracs2()) {
        let r = x.powi(n);
        prop_assert!(valid(r), "{x:?}^{n} = {r:?}");
        for a in pts(x, tx) {
            if n < 0 && a == 0.0 {
                continue;
            }
            prop_assert!(encloses(r, |z| cmp_powi(a, n, z)), "{a:e}^{n} ∉ {x:?}^{n} = {r:?}");
        }
        if n % 2 == 0 && n > 0 {
            prop_assert!(r.lo() >= 0.0, "{x:?}^{n} = {r:?}");
        }
    }
}

// ---------------------------------------------------------------------------
// sin and cos against the double-double oracle
// ---------------------------------------------------------------------------

/// Intervals for `sin` / `cos`: any width up to 20 with centres up to ±1e3,
/// narrow ones, points, and intervals around the extrema `k·π/2`.
fn trig_interval() -> impl Strategy<Value = Interval> {
    let near_extremum = (-600_i32..=600, -1e-6..1e-6_f64, 0.0..1e-6_f64).prop_map(|(k, c, w)| {
        let m = (Dd::from_f64(f64::from(k)) * support::HALF_PI_DD).to_f64() + c;
        iv(m - w, m + w)
    });
    prop_oneof![
        4 => moderate_interval(1e3, 20.0),
        2 => moderate_interval(1e3, 1e-6),
        2 => near_extremum,
        1 => moderate_interval(10.0, 7.0),
    ]
}

macro_rules! trig_encloses {
    ($($name:ident: $f:ident, $oracle:ident;)*) => {
        proptest! {
            #![proptest_config(config(CASES))]
            $(
                /// Eight samples (both end points and six inner points).
                #[test]
                fn $name(x in trig_interval(), ts in prop::collection::vec(0.0..=1.0_f64, 6)) {
                    let r = x.$f();
                    prop_assert!(valid(r) && r.subset(Interval::UNIT), "{}({x:?}) = {r:?}", stringify!($f));
                    let samples = [0.0, 1.0].into_iter().chain(ts).map(|t| sample(x, t));
                    for a in samples {
                        let v = $oracle(a);
                        prop_assert!(
                            contains_dd(r, v),
                            "{}({a:e}) = {v:?} ∉ {}({x:?}) = {r:?}",
                            stringify!($f), stringify!($f),
                        );
                    }
                }
            )*
        }
    };
}

trig_encloses! {
    sin_encloses: sin, sin_dd;
    cos_encloses: cos, cos_dd;
}

// ---------------------------------------------------------------------------
// Lattice operations and queries
// ---------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(CASES))]

    #[test]
    fn min_max_enclose(x in any_interval(), y in any_interval(), tx in fracs2(), ty in fracs2()) {
        let (lo, hi) = (x.min(y), x.max(y));
        prop_assert!(valid(lo) && valid(hi));
        for a in pts(x, tx) {
            for b in pts(y, ty) {
                prop_assert!(lo.contains(a.min(b)), "min({a:e}, {b:e}) ∉ {lo:?}");
                prop_assert!(hi.contains(a.max(b)), "max({a:e}, {b:e}) ∉ {hi:?}");
            }
        }
    }

    #[test]
    fn hull_is_the_smallest_cover(x in any_interval(), y in any_interval(), a in any_finite()) {
        let h = x.hull(y);
        prop_assert!(valid(h) && x.subset(h) && y.subset(h));
        prop_assert_eq!((h.lo(), h.hi()), (x.lo().min(y.lo()), x.hi().max(y.hi())));
        prop_assert_eq!(h, y.hull(x));
        let hp = x.hull_point(a);
        prop_assert!(x.subset(hp) && hp.contains(a));
        prop_assert_eq!(x.hull_point(f64::NAN), x);
    }

    #[test]
    fn intersect_is_the_common_part(x in any_interval(), y in any_interval(), tx in fracs2(), ty in fracs2()) {
        match x.intersect(y) {
            Some(r) => {
                prop_assert!(valid(r) && r.subset(x) && r.subset(y), "{x:?} ∩ {y:?} = {r:?}");
                for a in pts(x, tx).into_iter().chain(pts(y, ty)) {
                    prop_assert_eq!(r.contains(a), x.contains(a) && y.contains(a), "{:e}", a);
                }
            }
            None => {
                prop_assert!(x.hi() < y.lo() || y.hi() < x.lo(), "{x:?}, {y:?} do meet");
                for a in pts(x, tx) {
                    prop_assert!(!y.contains(a));
                }
            }
        }
        prop_assert_eq!(x.intersect(y), y.intersect(x));
    }

    #[test]
    fn midpoint_is_inside(x in any_interval()) {
        let m = x.midpoint();
        prop_assert!(x.contains(m), "mid {x:?} = {m:e}");
        if x.is_bounded() {
            // Near the centre: within an ulp-sized error of (lo + hi) / 2.
            let c = Dd::from_f64(0.5 * x.lo()) + Dd::from_f64(0.5 * x.hi());
            let err = (Dd::from_f64(m) - c).to_f64().abs();
            prop_assert!(err <= f64::EPSILON * c.to_f64().abs() + 1e-323, "mid {x:?} = {m:e}");
        }
    }

    /// `[m − r, m + r] ⊇ x`, checked exactly.
    #[test]
    fn radius_covers(x in any_interval()) {
        let (m, r) = (x.midpoint(), x.radius());
        prop_assert!(r >= 0.0, "rad {x:?} = {r:e}");
        if r.is_finite() {
            prop_assert!(cmp_diff(m, r, x.lo()) != Ordering::Greater, "{m:e} − {r:e} > lo of {x:?}");
            prop_assert!(cmp_sum(m, r, x.hi()) != Ordering::Less, "{m:e} + {r:e} < hi of {x:?}");
        } else {
            prop_assert!(r == f64::INFINITY);
        }
    }

    /// `width ≥ hi − lo`, checked exactly.
    #[test]
    fn width_bounds_the_extent(x in any_interval()) {
        let w = x.width();
        prop_assert!(w >= 0.0);
        if x.is_bounded() {
            prop_assert!(cmp_diff(x.hi(), x.lo(), w) != Ordering::Greater, "width {x:?} = {w:e}");
        } else {
            prop_assert_eq!(w, f64::INFINITY);
        }
    }

    #[test]
    fn contains_matches_the_bounds(x in any_interval(), tx in fracs2(), a in any_finite()) {
        for p in pts(x, tx) {
            prop_assert!(x.contains(p), "{p:e} ∉ {x:?}");
        }
        prop_assert_eq!(x.contains(a), x.lo() <= a && a <= x.hi());
        prop_assert!(!x.contains(x.lo().next_down()) || x.lo() == f64::NEG_INFINITY);
        prop_assert!(!x.contains(x.hi().next_up()) || x.hi() == f64::INFINITY);
        prop_assert!(!x.contains(f64::NAN));
        prop_assert_eq!(x.contains_zero(), x.contains(0.0));
    }

    #[test]
    fn subset_matches_the_bounds(x in any_interval(), y in any_interval(), tx in fracs2()) {
        prop_assert_eq!(x.subset(y), y.lo() <= x.lo() && x.hi() <= y.hi());
        prop_assert!(x.subset(x));
        for p in pts(x, tx) {
            prop_assert!(Interval::point(p).subset(x));
        }
        if let Some(r) = x.intersect(y) {
            prop_assert!(r.subset(x) && r.subset(y));
        }
        prop_assert!(x.subset(x.inflate(1.0)) && x.subset(x.inflate_ulps(1)));
        if x.lo() > f64::NEG_INFINITY {
            prop_assert!(!iv(x.lo().next_down(), x.hi()).subset(x));
        }
    }

    #[test]
    fn inflate_encloses_the_widened_interval(x in moderate_interval(1e6, 10.0), r in 0.0..10.0_f64) {
        let y = x.inflate(r);
        prop_assert!(cmp_diff(x.lo(), r, y.lo()) != Ordering::Less);
        prop_assert!(cmp_sum(x.hi(), r, y.hi()) != Ordering::Greater);
        let z = x.inflate_ulps(3);
        prop_assert_eq!(z.lo(), x.lo().next_down().next_down().next_down());
        prop_assert_eq!(z.hi(), x.hi().next_up().next_up().next_up());
    }
}

// ---------------------------------------------------------------------------
// Vectors, matrices, transforms
// ---------------------------------------------------------------------------

/// Components: centres up to ±100, widths up to 2 (a quarter points); no
/// under- or overflow, so three-term dd sums stay accurate to a few u² of
/// their terms, far inside the ulp margins of the outward rounding.
fn comp() -> impl Strategy<Value = Interval> {
    moderate_interval(100.0, 2.0)
}

fn vec3() -> impl Strategy<Value = IntervalVec3> {
    (comp(), comp(), comp()).prop_map(|(x, y, z)| IntervalVec3::new(x, y, z))
}

fn mat3() -> impl Strategy<Value = IntervalMat3> {
    (vec3(), vec3(), vec3()).prop_map(|(a, b, c)| IntervalMat3::from_cols(a, b, c))
}

/// Sampling fractions for up to 24 components: the first set all lower
/// end points, the second all upper ones, the third random.
fn sample_sets() -> impl Strategy<Value = [Vec<f64>; 3]> {
    prop::collection::vec(frac(), 24).prop_map(|t| [vec![0.0; 24], vec![1.0; 24], t])
}

fn sample_vec(v: &IntervalVec3, t: &[f64]) -> DVec3 {
    DVec3::new(sample(v.x, t[0]), sample(v.y, t[1]), sample(v.z, t[2]))
}

fn sample_mat(m: &IntervalMat3, t: &[f64]) -> DMat3 {
    DMat3::from_cols(
        sample_vec(&m.x_axis, &t[0..3]),
        sample_vec(&m.y_axis, &t[3..6]),
        sample_vec(&m.z_axis, &t[6..9]),
    )
}

/// Row `i` of a point matrix.
fn row(m: &DMat3, i: usize) -> DVec3 {
    m.row(i)
}

/// The dd value of `a · b` for point vectors.
fn dot(a: DVec3, b: DVec3) -> Dd {
    dot_dd(&[(a.x, b.x), (a.y, b.y), (a.z, b.z)])
}

/// Whether each component of the box holds the dd value.
fn vec_contains(v: &IntervalVec3, d: [Dd; 3]) -> bool {
    (0..3).all(|i| contains_dd(v.get(i), d[i]))
}

/// The dd values of `m · v` for point arguments.
fn matvec_dd(m: &DMat3, v: DVec3) -> [Dd; 3] {
    [dot(row(m, 0), v), dot(row(m, 1), v), dot(row(m, 2), v)]
}

proptest! {
    #![proptest_config(config(COMPOSITE_CASES))]

    #[test]
    fn matvec_encloses(m in mat3(), v in vec3(), sets in sample_sets()) {
        let r = m.mul_vec3(&v);
        prop_assert_eq!(r, m * v);
        for t in &sets {
            let (pm, pv) = (sample_mat(&m, &t[0..9]), sample_vec(&v, &t[9..12]));
            prop_assert!(vec_contains(&r, matvec_dd(&pm, pv)), "{pm:?}·{pv:?} ∉ {r:?}");
        }
    }

    #[test]
    fn matmul_encloses(a in mat3(), b in mat3(), sets in sample_sets()) {
        let r = a.mul_mat3(&b);
        prop_assert_eq!(r, a * b);
        for t in &sets {
            let (pa, pb) = (sample_mat(&a, &t[0..9]), sample_mat(&b, &t[9..18]));
            for j in 0..3 {
                prop_assert!(vec_contains(&r.col(j), matvec_dd(&pa, pb.col(j))), "({pa:?}·{pb:?}) col {j} ∉ {r:?}");
            }
        }
    }

    #[test]
    fn transpose_swaps_entries(m in mat3()) {
        let t = m.transpose();
        for i in 0..3 {
            for j in 0..3 {
                prop_assert_eq!(t.col(j).get(i), m.col(i).get(j));
            }
            prop_assert_eq!(t.row(i), m.col(i));
        }
        prop_assert_eq!(t.transpose(), m);
    }

    #[test]
    fn dot_encloses(a in vec3(), b in vec3(), sets in sample_sets()) {
        let r = a.dot(&b);
        for t in &sets {
            let (pa, pb) = (sample_vec(&a, &t[0..3]), sample_vec(&b, &t[3..6]));
            prop_assert!(contains_dd(r, dot(pa, pb)), "{pa:?}·{pb:?} ∉ {r:?}");
        }
    }

    #[test]
    fn cross_encloses(a in vec3(), b in vec3(), sets in sample_sets()) {
        let r = a.cross(&b);
        for t in &sets {
            let (p, q) = (sample_vec(&a, &t[0..3]), sample_vec(&b, &t[3..6]));
            let exact = [
                dot_dd(&[(p.y, q.z), (-p.z, q.y)]),
                dot_dd(&[(p.z, q.x), (-p.x, q.z)]),
                dot_dd(&[(p.x, q.y), (-p.y, q.x)]),
            ];
            prop_assert!(vec_contains(&r, exact), "{p:?}×{q:?} ∉ {r:?}");
        }
    }

    #[test]
    fn length_encloses(a in vec3(), sets in sample_sets()) {
        let (l2, l) = (a.length_squared(), a.length());
        for t in &sets {
            let p = sample_vec(&a, &t[0..3]);
            let d = dot(p, p);
            prop_assert!(contains_dd(l2, d), "|{p:?}|² ∉ {l2:?}");
            // √d ∈ l ⇔ lo² ≤ d ≤ hi² (for lo, hi ≥ 0), with the dd compared
            // to the exact squares.
            prop_assert!(l.lo() >= 0.0);
            let lo2 = support::two_prod(l.lo(), l.lo());
            let hi2 = support::two_prod(l.hi(), l.hi());
            prop_assert!((lo2 - d).to_f64() <= 0.0 && (hi2 - d).to_f64() >= 0.0, "|{p:?}| ∉ {l:?}");
        }
    }

    #[test]
    fn compose_encloses(
        (r1, t1) in (mat3(), vec3()),
        (r2, t2) in (mat3(), vec3()),
        sets in sample_sets(),
    ) {
        let (a, b) = (IntervalAffine3::new(r1, t1), IntervalAffine3::new(r2, t2));
        let c = a.compose(&b);
        prop_assert_eq!(c, a * b);
        for t in &sets {
            let (pr1, pr2) = (sample_mat(&r1, &t[0..9]), sample_mat(&r2, &t[9..18]));
            let (pt1, pt2) = (sample_vec(&t1, &t[18..21]), sample_vec(&t2, &t[21..24]));
            for j in 0..3 {
                prop_assert!(vec_contains(&c.rotation.col(j), matvec_dd(&pr1, pr2.col(j))));
            }
            let tr: [Dd; 3] = core::array::from_fn(|i| {
                let r = row(&pr1, i);
                dot_dd(&[(r.x, pt2.x), (r.y, pt2.y), (r.z, pt2.z), (pt1[i], 1.0)])
            });
            prop_assert!(vec_contains(&c.translation, tr), "translation {tr:?} ∉ {:?}", c.translation);
            let pa = DAffine3 { matrix3: pr1, translation: pt1 };
            prop_assert!(a.contains(&pa));
        }
    }

    #[test]
    fn transform_point_encloses(
        (r, tr) in (mat3(), vec3()),
        p in (-100.0..100.0_f64, -100.0..100.0_f64, -100.0..100.0_f64),
        sets in sample_sets(),
    ) {
        let a = IntervalAffine3::new(r, tr);
        let p = DVec3::new(p.0, p.1, p.2);
        let img = a.transform_point(p);
        prop_assert_eq!(img, a.transform_point_set(&IntervalVec3::from_point(p)));
        let v = a.transform_vector(p);
        for t in &sets {
            let (pr, pt) = (sample_mat(&r, &t[0..9]), sample_vec(&tr, &t[9..12]));
            let exact: [Dd; 3] = core::array::from_fn(|i| {
                let ri = row(&pr, i);
                dot_dd(&[(ri.x, p.x), (ri.y, p.y), (ri.z, p.z), (pt[i], 1.0)])
            });
            prop_assert!(vec_contains(&img, exact), "{pr:?}·{p:?} + {pt:?} ∉ {img:?}");
            prop_assert!(vec_contains(&v, matvec_dd(&pr, p)), "{pr:?}·{p:?} ∉ {v:?}");
        }
    }
}

// ---------------------------------------------------------------------------
// Rotations
// ---------------------------------------------------------------------------

/// Axes with components in `[−1, 1]`, at least 0.1 long, or a multiple of
/// a coordinate axis of any magnitude.
fn axis() -> impl Strategy<Value = DVec3> {
    let general = (-1.0..1.0_f64, -1.0..1.0_f64, -1.0..1.0_f64)
        .prop_map(|(x, y, z)| DVec3::new(x, y, z))
        .prop_filter("axis too short", |a| a.length() >= 0.1);
    let coordinate = (0_usize..3, 1e-3..1e3_f64, any::<bool>()).prop_map(|(i, s, neg)| {
        let s = if neg { -s } else { s };
        [DVec3::X, DVec3::Y, DVec3::Z][i] * s
    });
    prop_oneof![3 => general, 1 => coordinate]
}

/// Every entry of the enclosure widened by `r` on each side.
fn widen_mat(m: &IntervalMat3, r: f64) -> IntervalMat3 {
    let w = |v: &IntervalVec3| IntervalVec3::new(v.x.inflate(r), v.y.inflate(r), v.z.inflate(r));
    IntervalMat3::from_cols(w(&m.x_axis), w(&m.y_axis), w(&m.z_axis))
}

proptest! {
    #![proptest_config(config(COMPOSITE_CASES))]

    /// Against glam's f64 rotation for sampled angles. glam rounds the
    /// normalised axis, sin, cos and each product and sum to f64, an error
    /// of a few ulps of entries bounded by 1; the enclosure is widened by
    /// 1e-14 absolute to absorb **the f64 reference's** error — it is not a
    /// tolerance on the enclosure, whose own rounding is checked exactly in
    /// `from_axis_angle_about_a_coordinate_axis_is_exact`.
    #[test]
    fn from_axis_angle_encloses_glam(
        a in axis(),
        angle in prop_oneof![moderate_interval(10.0, 3.0), moderate_interval(1e3, 7.0)],
        ts in prop::collection::vec(0.0..=1.0_f64, 4),
    ) {
        let m = IntervalMat3::from_axis_angle(a, angle).expect("good axis");
        let wide = widen_mat(&m, 1e-14);
        let k = a.normalize();
        for t in [0.0, 1.0].into_iter().chain(ts) {
            let theta = sample(angle, t);
            let g = DMat3::from_axis_angle(k, theta);
            prop_assert!(wide.contains(&g), "R({k:?}, {theta:e}) = {g:?} ∉ {m:?}");
        }
    }

    /// About ±x, ±y, ±z the rotation's entries are 0, ±1, cos θ and ±sin θ,
    /// so the enclosure can be checked exactly against the dd oracle.
    #[test]
    fn from_axis_angle_about_a_coordinate_axis_is_exact(
        i in 0_usize..3,
        s in prop_oneof![Just(1.0), Just(-1.0), 1e-3..1e3_f64, -1e3..-1e-3_f64],
        angle in prop_oneof![moderate_interval(10.0, 3.0), moderate_interval(1e3, 7.0)],
        ts in prop::collection::vec(0.0..=1.0_f64, 4),
    ) {
        let a = [DVec3::X, DVec3::Y, DVec3::Z][i] * s;
        let m = IntervalMat3::from_axis_angle(a, angle).expect("good axis");
        let sign = s.signum();
        for t in [0.0, 1.0].into_iter().chain(ts) {
            let theta = sample(angle, t);
            let (c, sn) = (cos_dd(theta), sin_dd(theta));
            let sn = if sign < 0.0 { -sn } else { sn };
            // Rotation about axis i: the (i, i) entry is 1, the rest of row
            // and column i are 0, and the plane (j, k) = (i+1, i+2) mod 3
            // holds [[c, −s], [s, c]].
            let (j, k) = ((i + 1) % 3, (i + 2) % 3);
            let at = |r: usize, col: usize| m.col(col).get(r);
            prop_assert!(contains_dd(at(i, i), Dd::ONE));
            for o in [j, k] {
                prop_assert!(contains_dd(at(i, o), Dd::ZERO) && contains_dd(at(o, i), Dd::ZERO));
            }
            prop_assert!(contains_dd(at(j, j), c) && contains_dd(at(k, k), c), "cos {theta:e}: {m:?}");
            prop_assert!(contains_dd(at(k, j), sn) && contains_dd(at(j, k), -sn), "sin {theta:e}: {m:?}");
        }
    }
}
