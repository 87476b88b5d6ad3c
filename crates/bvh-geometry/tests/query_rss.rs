//! RSS–RSS distance: a lower bound on the distance between the swept
//! shapes (never above the distance of any two sampled points of them),
//! and exact up to the documented allowance (against an independent
//! rectangle–rectangle oracle: 16 edge–edge ternary searches and 8
//! corner–rectangle clamps, or 0 for rectangles that clearly cross). The
//! cheap bounds (plain and posed) the same way: the lower one never above
//! the sampled shape distance, the upper one never below the oracle.

mod query_support;

use armature_bvh_geometry::bv::Rss;
use armature_bvh_geometry::query::{
    DistanceVolume, closest_points_rectangle_rectangle, distance_bounds_rss_rss, distance_rss_rss,
    relative_pose,
};
use glam::{DAffine3, DMat3, DQuat, DVec2, DVec3};
use proptest::prelude::*;
use query_support::{CASES, config, placement, rotation, segment_segment, unit_vec3, vec3};

fn corners(r: &Rss) -> [DVec3; 4] {
    let (x, y) = (
        r.axes.x_axis * r.half_lengths.x,
        r.axes.y_axis * r.half_lengths.y,
    );
    [
        r.center - x - y,
        r.center + x - y,
        r.center + x + y,
        r.center - x + y,
    ]
}

fn rect_point(r: &Rss, u: f64, v: f64) -> DVec3 {
    r.center + r.axes.x_axis * (r.half_lengths.x * u) + r.axes.y_axis * (r.half_lengths.y * v)
}

/// Distance from `p` to the rectangle, clamping in its frame.
fn point_rect(p: DVec3, r: &Rss) -> f64 {
    let d = p - r.center;
    let u = d.dot(r.axes.x_axis);
    let v = d.dot(r.axes.y_axis);
    let du = (u.abs() - r.half_lengths.x).max(0.0);
    let dv = (v.abs() - r.half_lengths.y).max(0.0);
    (du * du + dv * dv + d.dot(r.axes.z_axis).powi(2)).sqrt()
}

/// Whether an edge of `a` clearly crosses the interior of `b`'s rectangle.
fn clearly_crosses(a: &Rss, b: &Rss, scale: f64) -> bool {
    let c = corners(a);
    (0..4).any(|i| {
        let (p, q) = (c[i], c[(i + 1) % 4]);
        let (wp, wq) = (
            (p - b.center).dot(b.axes.z_axis),
            (q - b.center).dot(b.axes.z_axis),
        );
        let m = 1e-9 * scale;
        if !((wp > m && wq < -m) || (wp < -m && wq > m)) {
            return false;
        }
        let x = p + (q - p) * (wp / (wp - wq));
        let d = x - b.center;
        d.dot(b.axes.x_axis).abs() < b.half_lengths.x - m
            && d.dot(b.axes.y_axis).abs() < b.half_lengths.y - m
    })
}

fn rect_oracle(a: &Rss, b: &Rss, scale: f64) -> f64 {
    if clearly_crosses(a, b, scale) || clearly_crosses(b, a, scale) {
        return 0.0;
    }
    let (ca, cb) = (corners(a), corners(b));
    let mut m = f64::INFINITY;
    for i in 0..4 {
        for j in 0..4 {
            m = m.min(segment_segment(
                ca[i],
                ca[(i + 1) % 4],
                cb[j],
                cb[(j + 1) % 4],
            ));
        }
        m = m.min(point_rect(ca[i], b)).min(point_rect(cb[i], a));
    }
    m
}

fn rss_pair() -> impl Strategy<Value = (Rss, Rss)> {
    let half = || {
        prop_oneof![
            4 => (0.0..1.0_f64, 0.0..1.0_f64).prop_map(|(x, y)| DVec2::new(x, y)),
            1 => (0.0..1.0_f64).prop_map(|x| DVec2::new(x, 0.0)),
            1 => Just(DVec2::ZERO),
        ]
    };
    let rss = move || {
        (vec3(), rotation(), half(), 0.0..0.3_f64)
            .prop_map(|(c, r, h, rad)| Rss::new(c * 1.5, r, h, rad))
    };
    let random = (rss(), rss());
    let near_parallel = (
        rss(),
        vec3(),
        half(),
        unit_vec3(),
        -14.0..-2.0_f64,
        0.0..0.3_f64,
    )
        .prop_map(|(a, c, h, ax, e, rad)| {
            let r = DMat3::from_quat(DQuat::from_axis_angle(ax, 10f64.powf(e))) * a.axes;
            (a, Rss::new(a.center + c * 0.5, r, h, rad))
        });
    // b's corner on a point of a's rectangle: the rectangles touch
    let touching =
        (rss(), rss(), -1.0..1.0_f64, -1.0..1.0_f64, 0_usize..4).prop_map(|(a, b, u, v, k)| {
            let x = rect_point(&a, u, v);
            let off = x - corners(&b)[k];
            (
                a,
                Rss {
                    center: b.center + off,
                    ..b
                },
            )
        });
    (
        prop_oneof![3 => random, 1 => near_parallel, 1 => touching],
        placement(),
    )
        .prop_map(|((a, b), (s, o))| {
            let place =
                |r: Rss| Rss::new(r.center * s + o, r.axes, r.half_lengths * s, r.radius * s);
            (place(a), place(b))
        })
}

fn grid(r: &Rss, k: u32) -> Vec<DVec3> {
    let mut v = Vec::new();
    for i in 0..=k {
        for j in 0..=k {
            v.push(rect_point(
                r,
                2.0 * f64::from(i) / f64::from(k) - 1.0,
                2.0 * f64::from(j) / f64::from(k) - 1.0,
            ));
        }
    }
    v
}

/// `max(0, min |x − y| − r_a − r_b)` over the sampled rectangle points,
/// `b`'s mapped by `map`: the distance of two points of the swept shapes
/// along `x − y`, so never below their distance.
fn sampled_shape_distance(a: &Rss, b: &Rss, map: &DAffine3) -> f64 {
    let (ga, gb) = (grid(a, 12), grid(b, 12));
    let mut sampled = f64::INFINITY;
    for x in &ga {
        for y in &gb {
            sampled = sampled.min((*x - map.transform_point3(*y)).length());
        }
    }
    (sampled - a.radius - b.radius).max(0.0)
}

fn scale_of(a: &Rss, b: &Rss) -> f64 {
    a.center.abs().max_element()
        + b.center.abs().max_element()
        + a.half_lengths.element_sum()
        + b.half_lengths.element_sum()
        + a.radius
        + b.radius
}

proptest! {
    #![proptest_config(config(CASES))]

    /// Lower bound: not above `|x − y| − r_a − r_b` (clamped) for any
    /// sampled rectangle points (the swept shapes hold the points at those
    /// distances along x − y), exactly, with no tolerance.
    #[test]
    fn rss_distance_is_a_lower_bound((a, b) in rss_pair()) {
        let d = distance_rss_rss(&a, &b);
        prop_assert!(d >= 0.0);
        let k = 12;
        let grid = |r: &Rss| {
            let mut v = Vec::new();
            for i in 0..=k {
                for j in 0..=k {
                    v.push(rect_point(r, 2.0 * f64::from(i) / f64::from(k) - 1.0, 2.0 * f64::from(j) / f64::from(k) - 1.0));
                }
            }
            v
        };
        let (ga, gb) = (grid(&a), grid(&b));
        let mut sampled = f64::INFINITY;
        for x in &ga {
            for y in &gb {
                sampled = sampled.min((*x - *y).length());
            }
        }
        let bound = (sampled - a.radius - b.radius).max(0.0);
        prop_assert!(d <= bound, "lower bound {d:e} above sampled shape distance {bound:e}");
        // and not far below it: every rectangle point is within half a grid
        // cell's diagonal of a sample
        let cell = |r: &Rss| (2.0 * r.half_lengths / f64::from(k)).length() / 2.0;
        prop_assert!(d >= bound - cell(&a) - cell(&b) - 1e-12 * scale_of(&a, &b));
    }

    /// Exact up to the allowance: rectangle distance against the oracle,
    /// witnesses on their rectangles, the RSS distance = max(0, rectangle
    /// distance − radii) within the allowance.
    #[test]
    fn rss_distance_matches_the_oracle((a, b) in rss_pair()) {
        let scale = scale_of(&a, &b);
        let tol = 1e-12 * scale;
        let c = closest_points_rectangle_rectangle(&a, &b);
        prop_assert!(point_rect(c.point_a, &a) <= tol && point_rect(c.point_b, &b) <= tol, "{c:?}");
        prop_assert!((c.distance - (c.point_a - c.point_b).length()).abs() <= tol);
        let oracle = rect_oracle(&a, &b, scale);
        prop_assert!((c.distance - oracle).abs() <= tol, "rectangles: ours {} oracle {}", c.distance, oracle);
        let d = distance_rss_rss(&a, &b);
        let want = (oracle - a.radius - b.radius).max(0.0);
        prop_assert!(d <= want + tol && d >= want - tol, "ours {d} oracle {want}");
    }
}

proptest! {
    #![proptest_config(config(CASES))]

    /// The cheap bounds: the lower one never above the sampled shape
    /// distance (exactly, no tolerance), and above the threshold whenever
    /// it took an early exit; the upper one (a distance of two shape
    /// points, not certified) not below the oracle's shape distance beyond
    /// rounding.
    #[test]
    fn rss_cheap_bounds_bracket_the_distance((a, b) in rss_pair(), t in prop_oneof![Just(0.0), 0.0..2.0_f64]) {
        let (lower, upper) = distance_bounds_rss_rss(&a, &b, t);
        let bound = sampled_shape_distance(&a, &b, &DAffine3::IDENTITY);
        prop_assert!(lower >= 0.0);
        prop_assert!(lower <= bound, "cheap lower bound {lower:e} above sampled shape distance {bound:e}");
        prop_assert!(lower <= distance_rss_rss(&a, &b) + 1e-12 * scale_of(&a, &b) || lower > t);
        let scale = scale_of(&a, &b);
        let oracle = (rect_oracle(&a, &b, scale) - a.radius - b.radius).max(0.0);
        prop_assert!(upper >= oracle - 1e-12 * scale, "upper {upper:e} below the distance {oracle:e}");
    }

    /// The posed cheap bound (the far-apart rejection of the mesh queries),
    /// as a bound in `a`'s frame: never above the sampled shape distance
    /// with `b`'s samples mapped by the relative pose, exactly; given only
    /// above the threshold; its upper one not below it.
    #[test]
    fn posed_rss_bounds_are_below_the_distance(
        (a, b) in rss_pair(),
        rot_a in rotation(),
        rot_b in rotation(),
        at in vec3(),
        apart in prop_oneof![Just(DVec3::ZERO), vec3().prop_map(|v| v * 4.0)],
        far in prop_oneof![Just(1.0), Just(1e3)],
        t in prop_oneof![Just(0.0), 0.0..1.0_f64],
    ) {
        let pa = DAffine3::from_mat3_translation(rot_a, at * far);
        let pb = pa * DAffine3::from_mat3_translation(rot_b, apart);
        // b's shape as the queries see it: in its own frame, posed by pb.
        let b_own = Rss::new(rot_b.transpose() * (b.center - apart), rot_b.transpose() * b.axes, b.half_lengths, b.radius);
        if let Some((lower, upper)) = a.posed_distance_bounds(&pa, &b_own, &pb, t) {
            prop_assert!(lower > t);
            let bound = sampled_shape_distance(&a, &b_own, &relative_pose(&pa, &pb));
            prop_assert!(lower <= bound, "posed lower bound {lower:e} above sampled shape distance {bound:e}");
            prop_assert!(upper >= lower);
        }
    }
}

#[test]
fn parallel_rectangles_by_hand() {
    let a = Rss::new(DVec3::ZERO, DMat3::IDENTITY, DVec2::new(1.0, 2.0), 0.0);
    let b = Rss::new(
        DVec3::new(0.5, 0.5, 3.0),
        DMat3::IDENTITY,
        DVec2::new(1.0, 1.0),
        0.5,
    );
    let d = distance_rss_rss(&a, &b);
    assert!(d <= 2.5 && d > 2.5 - 1e-12, "{d}");
    // crossing rectangles
    let c = Rss::new(
        DVec3::ZERO,
        DMat3::from_rotation_x(1.0),
        DVec2::new(0.5, 0.5),
        0.0,
    );
    assert_eq!(closest_points_rectangle_rectangle(&a, &c).distance, 0.0);
    assert!(distance_rss_rss(&b, &Rss::new(DVec3::NAN, DMat3::IDENTITY, DVec2::ONE, 0.0)).is_nan());
}
