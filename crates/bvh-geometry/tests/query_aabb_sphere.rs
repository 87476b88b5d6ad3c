//! AABB–AABB overlap and distance, sphere–sphere distance: against sampled
//! points and closest points found by clamping.

mod query_support;

use armature_bvh_geometry::bv::{Aabb, Sphere};
use armature_bvh_geometry::query::{distance_aabb_aabb, distance_sphere_sphere, overlap_aabb_aabb};
use glam::DVec3;
use proptest::prelude::*;
use query_support::{CASES, EPS, config, placement, unit_vec3, vec3};

fn aabb() -> impl Strategy<Value = Aabb> {
    prop_oneof![
        4 => (vec3(), vec3()).prop_map(|(a, b)| Aabb::new(a.min(b), a.max(b))),
        1 => vec3().prop_map(Aabb::from_point),
        // flat boxes
        1 => (vec3(), vec3(), 0_usize..3).prop_map(|(a, b, k)| {
            let mut hi = a.max(b);
            hi[k] = a.min(b)[k];
            Aabb::new(a.min(b), hi)
        }),
    ]
}

fn aabb_pair() -> impl Strategy<Value = (Aabb, Aabb)> {
    let touching = (aabb(), aabb(), 0_usize..3).prop_map(|(a, b, k)| {
        // b's min face on a's max face plane
        let mut off = DVec3::ZERO;
        off[k] = a.max[k] - b.min[k];
        (a, Aabb::new(b.min + off, b.max + off))
    });
    (
        prop_oneof![3 => (aabb(), aabb()), 1 => touching],
        placement(),
    )
        .prop_map(|((a, b), (s, o))| {
            let p = |x: Aabb| Aabb::new(x.min * s + o, x.max * s + o);
            (p(a), p(b))
        })
}

fn clamp_to(p: DVec3, b: &Aabb) -> DVec3 {
    p.max(b.min).min(b.max)
}

proptest! {
    #![proptest_config(config(CASES))]

    /// Overlap iff distance 0; the distance is realised by a pair found by
    /// alternating clamps (exact for boxes: two rounds reach the closest
    /// pair) and no sampled pair of points is closer.
    #[test]
    fn aabb_overlap_and_distance((a, b) in aabb_pair(), s in proptest::collection::vec((vec3(), vec3()), 8)) {
        let d = distance_aabb_aabb(&a, &b);
        let o = overlap_aabb_aabb(&a, &b);
        prop_assert_eq!(o, d == 0.0);
        prop_assert_eq!(o, overlap_aabb_aabb(&b, &a));
        prop_assert_eq!(d, distance_aabb_aabb(&b, &a));
        let mut x = clamp_to(b.center(), &a);
        let mut y = clamp_to(x, &b);
        for _ in 0..2 {
            x = clamp_to(y, &a);
            y = clamp_to(x, &b);
        }
        let scale = a.min.abs().max(a.max.abs()).max(b.min.abs()).max(b.max.abs()).max_element();
        prop_assert!((d - (x - y).length()).abs() <= 4.0 * EPS * scale, "{d} vs {}", (x - y).length());
        for (u, v) in s {
            let p = a.min + (a.max - a.min) * (u * 0.5 + 0.5);
            let q = b.min + (b.max - b.min) * (v * 0.5 + 0.5);
            prop_assert!(d <= (p - q).length() + 4.0 * EPS * scale);
            if b.contains_point(p) || a.contains_point(q) {
                prop_assert!(o);
            }
        }
        // a union holds both; containment agrees with corners
        let u = a.union(&b);
        prop_assert!(u.contains(&a) && u.contains(&b));
        prop_assert!(u.contains_point(a.min) && u.contains_point(b.max));
    }

    /// Sphere–sphere distance: the pair of points of the balls along the
    /// centre line realises it, and sampled points of the balls are never
    /// closer.
    #[test]
    fn sphere_sphere_distance(ca in vec3(), cb in vec3(), ra in 0.0..1.0_f64, rb in 0.0..1.0_f64, dirs in proptest::collection::vec((unit_vec3(), unit_vec3()), 8)) {
        let (a, b) = (Sphere::new(ca, ra), Sphere::new(cb, rb));
        let d = distance_sphere_sphere(&a, &b);
        let c = (cb - ca).length();
        prop_assert!((d - (c - ra - rb).max(0.0)).abs() <= 8.0 * EPS);
        for (u, v) in dirs {
            prop_assert!(d <= ((ca + u * ra) - (cb + v * rb)).length() + 8.0 * EPS);
        }
        prop_assert_eq!(d == 0.0, c <= ra + rb);
    }
}

#[test]
fn empty_boxes() {
    let a = Aabb::new(DVec3::ZERO, DVec3::ONE);
    assert!(!overlap_aabb_aabb(&a, &Aabb::EMPTY));
    assert_eq!(distance_aabb_aabb(&a, &Aabb::EMPTY), f64::INFINITY);
    assert_eq!(Aabb::EMPTY.union(&a), a);
    assert!(a.contains(&Aabb::EMPTY));
    assert!(!Aabb::EMPTY.contains_point(DVec3::ZERO));
}
