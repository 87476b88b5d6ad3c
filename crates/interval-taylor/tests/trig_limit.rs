//! The interval sine and cosine trust the platform `sin`/`cos` only below
//! `Interval::TRIG_LIMIT` in magnitude; from there on they give `[−1, 1]`.

use armature_interval_taylor::Interval;

fn iv(lo: f64, hi: f64) -> Interval {
    Interval::new(lo, hi).unwrap()
}

#[test]
fn trig_limit_is_about_1e5() {
    assert_eq!(Interval::TRIG_LIMIT, 1.0e5);
}

#[test]
fn below_the_limit_the_platform_is_trusted() {
    let x = Interval::TRIG_LIMIT.next_down();
    for i in [iv(x, x), iv(-x, -x), iv(x - 1e-6, x)] {
        for (f, g) in [
            (
                Interval::sin as fn(Interval) -> Interval,
                f64::sin as fn(f64) -> f64,
            ),
            (Interval::cos, f64::cos),
        ] {
            let r = f(i);
            assert!(r.width() < 1e-5, "{i:?} → {r:?}");
            assert!(
                r.contains(g(i.lo())) && r.contains(g(i.hi())),
                "{i:?} → {r:?}"
            );
        }
    }
}

#[test]
fn at_and_beyond_the_limit_the_range_is_unit() {
    let l = Interval::TRIG_LIMIT;
    for i in [
        iv(l, l),
        iv(-l, -l),
        iv(l.next_down(), l),
        iv(-l, (-l).next_up()),
        iv(2.0 * l, 2.0 * l),
        iv(1e9, 1e9),
        iv(-1e300, -1e300),
        iv(0.0, l),
        Interval::ENTIRE,
    ] {
        assert_eq!(i.sin(), Interval::UNIT, "sin {i:?}");
        assert_eq!(i.cos(), Interval::UNIT, "cos {i:?}");
    }
}
