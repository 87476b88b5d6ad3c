//! Non-finite input never panics: distances become NaN, overlap tests say
//! "overlapping" (the conservative answer), for a NaN in any argument.

use armature_bvh_geometry::bv::{Aabb, Lss, Obb, Rss, Sphere};
use armature_bvh_geometry::query::*;
use glam::{DMat3, DVec2, DVec3};

const N: f64 = f64::NAN;

/// Every way of putting one NaN coordinate into a list of points.
fn poisoned<const K: usize>(pts: [DVec3; K]) -> Vec<[DVec3; K]> {
    let mut v = Vec::new();
    for i in 0..K {
        for c in 0..3 {
            let mut q = pts;
            q[i][c] = N;
            v.push(q);
        }
    }
    v
}

#[test]
fn nan_points_give_nan_distances() {
    let base = [
        DVec3::ZERO,
        DVec3::X,
        DVec3::Y,
        DVec3::new(0.2, 0.3, 1.0),
        DVec3::new(1.0, 1.0, 1.0),
        DVec3::new(-1.0, 0.5, 0.2),
    ];
    for p in poisoned(base) {
        let has = |k: &[usize]| k.iter().any(|&i| p[i].is_nan());
        let (t0, t1) = ([p[0], p[1], p[2]], [p[3], p[4], p[5]]);
        // Each query is checked exactly when a NaN is among its arguments.
        if has(&[0, 1, 2, 3]) {
            assert!(distance_segment_segment(p[0], p[1], p[2], p[3]).is_nan());
            let c = closest_points_segment_segment(p[0], p[1], p[2], p[3]);
            assert!(c.s.is_nan() && c.t.is_nan() && c.point_a.is_nan() && c.point_b.is_nan());
            assert!(
                distance_capsule_capsule(&Lss::new(p[0], p[1], 0.1), &Lss::new(p[2], p[3], 0.1))
                    .is_nan()
            );
            assert!(distance_point_triangle(p[3], &t0).is_nan());
            assert!(closest_point_triangle(p[3], &t0).is_nan());
            assert!(distance_sphere_triangle(&Sphere::new(p[3], 0.1), &t0).is_nan());
        }
        if has(&[0, 1, 2]) {
            assert!(distance_point_segment(p[0], p[1], p[2]).is_nan());
            assert!(closest_point_segment(p[0], p[1], p[2]).is_nan());
        }
        if has(&[0, 1, 2, 3, 4]) {
            assert!(distance_segment_triangle(p[3], p[4], &t0).is_nan());
            assert!(
                closest_points_segment_triangle(p[3], p[4], &t0)
                    .point_b
                    .is_nan()
            );
            assert!(distance_capsule_triangle(&Lss::new(p[3], p[4], 0.1), &t0).is_nan());
        }
        if has(&[0, 1]) {
            assert!(
                distance_sphere_sphere(&Sphere::new(p[0], 1.0), &Sphere::new(p[1], 1.0)).is_nan()
            );
        }
        assert!(distance_triangle_triangle(&t0, &t1).is_nan());
        assert!(closest_points_triangle_triangle(&t0, &t1).point_a.is_nan());
        assert!(intersect_triangle_triangle(&t0, &t1) && intersect_triangle_triangle(&t1, &t0));
    }
    assert!(
        distance_sphere_sphere(&Sphere::new(DVec3::ZERO, N), &Sphere::new(DVec3::X, 1.0)).is_nan()
    );
    assert!(
        distance_capsule_capsule(
            &Lss::new(DVec3::ZERO, DVec3::X, N),
            &Lss::new(DVec3::Y, DVec3::Z, 0.0)
        )
        .is_nan()
    );
    // infinities: no panic, overlap tests conservative
    let inf = [DVec3::ZERO, DVec3::X, DVec3::new(f64::INFINITY, 0.0, 0.0)];
    let _ = distance_triangle_triangle(&inf, &inf);
    assert!(intersect_triangle_triangle(&inf, &[DVec3::Z; 3]));
    let _ = closest_points_segment_segment(inf[2], -inf[2], DVec3::ZERO, DVec3::ONE);
}

#[test]
fn nan_volumes() {
    let ok_obb = Obb::new(DVec3::ZERO, DMat3::IDENTITY, DVec3::ONE);
    for bad in [
        Obb::new(DVec3::new(N, 0.0, 0.0), DMat3::IDENTITY, DVec3::ONE),
        Obb::new(
            DVec3::ZERO,
            DMat3::from_cols(DVec3::new(N, 0.0, 0.0), DVec3::Y, DVec3::Z),
            DVec3::ONE,
        ),
        Obb::new(DVec3::ZERO, DMat3::IDENTITY, DVec3::new(1.0, N, 1.0)),
    ] {
        assert!(overlap_obb_obb(&ok_obb, &bad) && overlap_obb_obb(&bad, &ok_obb));
    }
    let ok_rss = Rss::new(DVec3::ZERO, DMat3::IDENTITY, DVec2::ONE, 0.1);
    for bad in [
        Rss::new(DVec3::new(0.0, N, 0.0), DMat3::IDENTITY, DVec2::ONE, 0.1),
        Rss::new(DVec3::ZERO, DMat3::IDENTITY, DVec2::new(N, 1.0), 0.1),
        Rss::new(DVec3::ZERO, DMat3::IDENTITY, DVec2::ONE, N),
    ] {
        assert!(
            distance_rss_rss(&ok_rss, &bad).is_nan() && distance_rss_rss(&bad, &ok_rss).is_nan()
        );
    }
    // A NaN coordinate never separates: boxes overlapping on the other
    // axes are reported as overlapping.
    let near = Aabb::new(DVec3::splat(0.5), DVec3::splat(2.0));
    for [lo, hi] in poisoned([DVec3::ZERO, DVec3::ONE]) {
        let bad = Aabb::new(lo, hi);
        assert!(overlap_aabb_aabb(&bad, &near) && overlap_aabb_aabb(&near, &bad));
        assert!(distance_aabb_aabb(&bad, &near).is_nan());
    }
}
