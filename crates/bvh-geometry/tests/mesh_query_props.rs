//! Mesh–mesh queries against brute force over every triangle pair (no
//! hierarchy, the primitive triangle tests in the first object's frame):
//! collide finds exactly the brute-force pairs (also started from the top
//! boxes near the first object, and a witness pair tested alone), the exact distance is the
//! brute-force minimum and its witnesses realise it on the named triangles,
//! GREEDY-DIST never exceeds it, the approximate distance is within its
//! relative error, and within-tolerance agrees. Soups (slivers included) and
//! closed noisy spheres of 20 to 200 triangles, under random rigid poses
//! from deep overlap to far apart, and touching poses.

mod mesh_query_support;

use armature_bvh_geometry::query::{
    CollideMode, CollideWorkspace, DistanceCache, DistanceWorkspace, GreedyDistanceOptions,
    GreedyStatus, MeshObject, apart_by, approximate_distance, capped_distance, collide,
    collide_below, distance, distance_point_triangle, greedy_distance, relative_pose,
    triangle_pair_intersects, within_distance,
};
use armature_bvh_geometry::{Bvh, BvhOptions, GeometryError, Obb, Rss, SplitRule, TriMesh};
use glam::{DAffine3, DVec3};
use mesh_query_support::{
    CASES, brute_collide, brute_distance, config, mesh, noisy_sphere, pose, scale,
};
use proptest::prelude::*;

fn options() -> impl Strategy<Value = BvhOptions> {
    (1_usize..=4, any::<bool>()).prop_map(|(leaf, mean)| {
        BvhOptions::default()
            .with_max_leaf_triangles(leaf)
            .with_split(if mean {
                SplitRule::Mean
            } else {
                SplitRule::Median
            })
    })
}

/// Poses of A and B: A anywhere, B relative to A from deeply overlapping
/// (reach 0.1) through near (1.2) to apart (3).
fn poses() -> impl Strategy<Value = (DAffine3, DAffine3)> {
    (pose(5.0), prop_oneof![pose(0.1), pose(1.2), pose(3.0)]).prop_map(|(ta, rel)| (ta, ta * rel))
}

/// Moves `tb` so that the brute-force closest points of the two meshes
/// coincide: a touching (or, for concave shapes, slightly overlapping)
/// configuration.
fn touching(a: &TriMesh, ta: &DAffine3, b: &TriMesh, tb: &DAffine3) -> DAffine3 {
    let rel = relative_pose(ta, tb);
    let (_, i, j) = brute_distance(a, b, &rel);
    let tri_b = mesh_query_support::tri_in_a(b, j, &rel);
    let c = armature_bvh_geometry::query::closest_points_triangle_triangle(&a.triangle(i), &tri_b);
    let shift = ta.transform_vector3(c.point_a - c.point_b);
    DAffine3::from_translation(shift) * *tb
}

#[derive(Debug)]
struct Case {
    a: TriMesh,
    b: TriMesh,
    ta: DAffine3,
    tb: DAffine3,
    oa: BvhOptions,
    ob: BvhOptions,
}

fn case() -> impl Strategy<Value = Case> {
    (mesh(), mesh(), poses(), options(), options(), 0_u8..5).prop_map(
        |(a, b, (ta, tb), oa, ob, k)| {
            let tb = if k == 0 {
                touching(&a, &ta, &b, &tb)
            } else {
                tb
            };
            Case {
                a,
                b,
                ta,
                tb,
                oa,
                ob,
            }
        },
    )
}

proptest! {
    #![proptest_config(config(CASES))]

    #[test]
    fn collide_finds_exactly_the_brute_force_pairs(c in case()) {
        let (ba, bb) = (Bvh::<Obb>::build(&c.a, &c.oa).unwrap(), Bvh::<Obb>::build(&c.b, &c.ob).unwrap());
        let oa = MeshObject::new(&c.a, &ba, c.ta).unwrap();
        let ob = MeshObject::new(&c.b, &bb, c.tb).unwrap();
        let brute = brute_collide(&c.a, &c.b, &relative_pose(&c.ta, &c.tb));
        let mut ws = CollideWorkspace::new();
        let all = collide(&oa, &ob, CollideMode::All, &mut ws);
        let mut pairs = ws.pairs().to_vec();
        pairs.sort_unstable();
        prop_assert_eq!(&pairs, &brute);
        prop_assert_eq!(all.colliding, !brute.is_empty());
        let first = collide(&oa, &ob, CollideMode::First, &mut ws);
        prop_assert_eq!(first.colliding, !brute.is_empty());
        if let Some(p) = first.first {
            prop_assert!(brute.binary_search(&p).is_ok());
            prop_assert!(first.stats.triangle_tests <= all.stats.triangle_tests);
        }
        // The RSS tree's overlap test (distance bound 0) finds the same set.
        let (ra, rb) = (Bvh::<Rss>::build(&c.a, &c.oa).unwrap(), Bvh::<Rss>::build(&c.b, &c.ob).unwrap());
        let (qa, qb) = (MeshObject::new(&c.a, &ra, c.ta).unwrap(), MeshObject::new(&c.b, &rb, c.tb).unwrap());
        collide(&qa, &qb, CollideMode::All, &mut ws);
        let mut pairs = ws.pairs().to_vec();
        pairs.sort_unstable();
        prop_assert_eq!(&pairs, &brute);
        // Started from B's top boxes near A's world box, at every depth:
        // the same set (the cut partitions B's triangles, and a triangle
        // of B meeting A lies in a box that meets A's box).
        let a_box = ba.root().bv.world_box(&c.ta);
        let mut near = Vec::new();
        for levels in [0, 1, 3, 12] {
            let top = bb.top_boxes(&c.tb, levels);
            let any = top.near_nodes(&a_box, 0.0, &mut near);
            prop_assert_eq!(any, top.near(&a_box, 0.0));
            let below = collide_below(&oa, &ob, &near, CollideMode::All, &mut ws);
            let mut pairs = ws.pairs().to_vec();
            pairs.sort_unstable();
            prop_assert_eq!(&pairs, &brute, "levels {}", levels);
            prop_assert_eq!(below.colliding, !brute.is_empty());
            let first = collide_below(&oa, &ob, &near, CollideMode::First, &mut ws);
            prop_assert_eq!(first.colliding, !brute.is_empty());
        }
        // A witness tested alone answers as the descent: exactly the
        // brute-force pairs intersect; ids out of range do not.
        let (na, nb) = (c.a.num_triangles() as u32, c.b.num_triangles() as u32);
        for ta in 0..na {
            for tb in 0..nb {
                let met = brute.binary_search(&[ta, tb]).is_ok();
                prop_assert_eq!(triangle_pair_intersects(&oa, &ob, [ta, tb]), met, "pair {} {}", ta, tb);
            }
        }
        prop_assert!(!triangle_pair_intersects(&oa, &ob, [na, 0]));
        prop_assert!(!triangle_pair_intersects(&oa, &ob, [0, nb]));
    }

    #[test]
    fn distance_is_the_brute_force_minimum(c in case(), nudge in pose(0.02)) {
        let (ba, bb) = (Bvh::<Rss>::build(&c.a, &c.oa).unwrap(), Bvh::<Rss>::build(&c.b, &c.ob).unwrap());
        let mut ws = DistanceWorkspace::new();
        let mut cache = DistanceCache::default();
        // The second round starts from the first round's triangle pair.
        for tb in [c.tb, c.tb * nudge] {
            let oa = MeshObject::new(&c.a, &ba, c.ta).unwrap();
            let ob = MeshObject::new(&c.b, &bb, tb).unwrap();
            let (brute, _, _) = brute_distance(&c.a, &c.b, &relative_pose(&c.ta, &tb));
            let s = scale(&c.a, &c.ta, &c.b, &tb);
            for cached in [false, true] {
                let r = if cached {
                    distance(&oa, &ob, &mut ws, Some(&mut cache))
                } else {
                    distance(&oa, &ob, &mut ws, None)
                };
                // A minimum over a subset of the pairs: never below brute.
                prop_assert!(r.distance >= brute, "{} < {}", r.distance, brute);
                prop_assert!(r.distance <= brute * (1.0 + 1e-12) + 1e-15 * s, "{} vs {}", r.distance, brute);
                // The witnesses realise it, on the named triangles.
                let gap = (r.point_a - r.point_b).length();
                prop_assert!((gap - r.distance).abs() <= 1e-12 * (r.distance + s), "{gap} vs {}", r.distance);
                let ta_w = c.a.triangle(r.triangle_a as usize).map(|p| c.ta.transform_point3(p));
                let tb_w = c.b.triangle(r.triangle_b as usize).map(|p| tb.transform_point3(p));
                prop_assert!(distance_point_triangle(r.point_a, &ta_w) <= 1e-9 * s);
                prop_assert!(distance_point_triangle(r.point_b, &tb_w) <= 1e-9 * s);
            }
            prop_assert!(cache.pair.is_some());
        }
    }

    #[test]
    fn greedy_distance_is_a_lower_bound(c in case(), eps_frac in prop_oneof![Just(0.0), 0.0..1.5_f64], budget in prop_oneof![3 => Just(u64::MAX), 1 => 1_u64..64]) {
        let (ba, bb) = (Bvh::<Rss>::build(&c.a, &c.oa).unwrap(), Bvh::<Rss>::build(&c.b, &c.ob).unwrap());
        let oa = MeshObject::new(&c.a, &ba, c.ta).unwrap();
        let ob = MeshObject::new(&c.b, &bb, c.tb).unwrap();
        let (brute, _, _) = brute_distance(&c.a, &c.b, &relative_pose(&c.ta, &c.tb));
        let s = scale(&c.a, &c.ta, &c.b, &c.tb);
        let eps = brute * eps_frac;
        let o = GreedyDistanceOptions::default().with_clearance(eps).with_max_tests(budget);
        let mut ws = DistanceWorkspace::new();
        let g = greedy_distance(&oa, &ob, &o, &mut ws).unwrap();
        let eta = g.lower_bound;
        prop_assert!(eta <= brute, "η = {eta} > d = {brute}");
        prop_assert!(eta == 0.0 || eta > eps, "η = {eta} within (0, ε = {eps}]");
        if g.status == GreedyStatus::Complete && brute > eps * (1.0 + 1e-9) + 1e-9 * s {
            prop_assert!(eta > eps, "d = {brute} > ε = {eps} but η = {eta}");
        }
        if budget == u64::MAX {
            prop_assert_eq!(g.status, GreedyStatus::Complete);
        } else {
            prop_assert!(g.stats.bv_tests + g.stats.triangle_tests <= budget + 2);
        }
        // Settling for "beyond the clearance" decides the same way, with a
        // bound no larger than the frontier minimum and still beyond ε.
        let settled = greedy_distance(&oa, &ob, &o.with_settle(true), &mut ws).unwrap();
        prop_assert_eq!(settled.status, g.status);
        prop_assert_eq!(settled.lower_bound > 0.0, eta > 0.0);
        prop_assert!(settled.lower_bound <= eta, "settled {} > η = {eta}", settled.lower_bound);
        prop_assert!(settled.lower_bound == 0.0 || settled.lower_bound > eps);
    }

    #[test]
    fn approximate_distance_is_within_its_relative_error(c in case(), e in prop_oneof![Just(0.0), 0.0..2.0_f64]) {
        let (ba, bb) = (Bvh::<Rss>::build(&c.a, &c.oa).unwrap(), Bvh::<Rss>::build(&c.b, &c.ob).unwrap());
        let oa = MeshObject::new(&c.a, &ba, c.ta).unwrap();
        let ob = MeshObject::new(&c.b, &bb, c.tb).unwrap();
        let (brute, _, _) = brute_distance(&c.a, &c.b, &relative_pose(&c.ta, &c.tb));
        let s = scale(&c.a, &c.ta, &c.b, &c.tb);
        let mut ws = DistanceWorkspace::new();
        let r = approximate_distance(&oa, &ob, e, &mut ws, None).unwrap();
        prop_assert!(r.distance >= brute);
        prop_assert!(r.distance <= (1.0 + e) * brute * (1.0 + 1e-12) + 1e-15 * s, "{} vs (1+{e})·{brute}", r.distance);
        let gap = (r.point_a - r.point_b).length();
        prop_assert!((gap - r.distance).abs() <= 1e-12 * (r.distance + s));
    }

    #[test]
    fn capped_distance_bounds_the_distance(
        c in case(),
        e in prop_oneof![Just(0.0), 0.0..0.9_f64],
        f in prop_oneof![Just(0.0), 0.0..0.999_f64, 1.001..3.0_f64],
    ) {
        let (ba, bb) = (Bvh::<Rss>::build(&c.a, &c.oa).unwrap(), Bvh::<Rss>::build(&c.b, &c.ob).unwrap());
        let oa = MeshObject::new(&c.a, &ba, c.ta).unwrap();
        let ob = MeshObject::new(&c.b, &bb, c.tb).unwrap();
        let (brute, _, _) = brute_distance(&c.a, &c.b, &relative_pose(&c.ta, &c.tb));
        let s = scale(&c.a, &c.ta, &c.b, &c.tb);
        let cap = brute * f;
        let mut ws = DistanceWorkspace::new();
        let r = capped_distance(&oa, &ob, e, cap, &mut ws, None).unwrap();
        let slack = 1e-12 * (brute + s);
        prop_assert!(r.lower_bound <= brute + slack, "lower {} > d = {brute}", r.lower_bound);
        prop_assert!(r.lower_bound <= cap);
        // Informative: below the ideal bound only by the triangle queries'
        // certified rounding estimates, which reach about 1e-8 of the
        // coordinate scale for near-sliver triangles (the bound subtracts
        // them so that it stays below the distance in floating point).
        let certified = 2e-8 * s;
        prop_assert!(r.lower_bound >= (brute / (1.0 + e)).min(cap) - slack - certified, "lower {} vs d = {brute}, cap {cap}", r.lower_bound);
        if let Some(n) = r.nearest {
            prop_assert!(n.distance <= cap && n.distance >= brute - slack);
            prop_assert!(n.distance <= (1.0 + e) * brute + slack);
        }
        if brute * (1.0 + e) < cap * (1.0 - 1e-9) {
            prop_assert!(r.nearest.is_some(), "d = {brute} well under the cap {cap}");
        }
    }

    /// Apart by a margin only when the brute-force distance exceeds it;
    /// apart whenever the distance exceeds it by the stated slack.
    #[test]
    fn apart_by_agrees_with_brute_force(c in case(), f in prop_oneof![Just(0.0), Just(1.0), 0.0..0.999_f64, 1.001..2.0_f64]) {
        let (ba, bb) = (Bvh::<Obb>::build(&c.a, &c.oa).unwrap(), Bvh::<Obb>::build(&c.b, &c.ob).unwrap());
        let oa = MeshObject::new(&c.a, &ba, c.ta).unwrap();
        let ob = MeshObject::new(&c.b, &bb, c.tb).unwrap();
        let (brute, _, _) = brute_distance(&c.a, &c.b, &relative_pose(&c.ta, &c.tb));
        let margin = brute * f;
        let mut ws = CollideWorkspace::new();
        let r = apart_by(&oa, &ob, margin, &mut ws).unwrap();
        // The brute force runs in A's frame too: its own rounding is a few
        // ulps of the coordinates.
        let slack = 1e-12 * scale(&c.a, &c.ta, &c.b, &c.tb);
        if r.apart {
            prop_assert!(brute + slack > margin, "apart by {} at distance {}", margin, brute);
        }
        if brute > margin * (1.0 + 1e-8) + 1e3 * slack {
            prop_assert!(r.apart, "not apart by {} at distance {}", margin, brute);
        }
        prop_assert!(r.stats.bv_tests >= 1);
        // A bad margin is a typed error.
        prop_assert!(apart_by(&oa, &ob, -1.0, &mut ws).is_err());
        prop_assert!(apart_by(&oa, &ob, f64::NAN, &mut ws).is_err());
    }

    #[test]
    fn within_distance_agrees_with_brute_force(c in case(), f in prop_oneof![Just(0.0), Just(1.0), 0.0..0.999_f64, 1.001..2.0_f64]) {
        let (ba, bb) = (Bvh::<Rss>::build(&c.a, &c.oa).unwrap(), Bvh::<Rss>::build(&c.b, &c.ob).unwrap());
        let oa = MeshObject::new(&c.a, &ba, c.ta).unwrap();
        let ob = MeshObject::new(&c.b, &bb, c.tb).unwrap();
        let (brute, _, _) = brute_distance(&c.a, &c.b, &relative_pose(&c.ta, &c.tb));
        let tol = brute * f;
        let mut ws = DistanceWorkspace::new();
        let w = within_distance(&oa, &ob, tol, &mut ws).unwrap();
        prop_assert_eq!(w.within, brute <= tol, "d = {}, tol = {}", brute, tol);
        if let Some([i, j]) = w.pair {
            let rel = relative_pose(&c.ta, &c.tb);
            let d = armature_bvh_geometry::query::distance_triangle_triangle(
                &c.a.triangle(i as usize), &mesh_query_support::tri_in_a(&c.b, j as usize, &rel));
            prop_assert!(d <= tol);
        }
    }
}

#[test]
fn identical_coincident_meshes_collide_at_distance_zero() {
    let m = noisy_sphere(8, 1.0, &[0.1, -0.05, 0.2]);
    let (bo, br) = (Bvh::<Obb>::new(&m).unwrap(), Bvh::<Rss>::new(&m).unwrap());
    let t = DAffine3::from_translation(DVec3::new(3.0, -1.0, 2.0));
    let (oa, ob) = (
        MeshObject::new(&m, &bo, t).unwrap(),
        MeshObject::new(&m, &bo, t).unwrap(),
    );
    assert!(collide(&oa, &ob, CollideMode::First, &mut CollideWorkspace::new()).colliding);
    let (ra, rb) = (
        MeshObject::new(&m, &br, t).unwrap(),
        MeshObject::new(&m, &br, t).unwrap(),
    );
    let mut ws = DistanceWorkspace::new();
    assert_eq!(distance(&ra, &rb, &mut ws, None).distance, 0.0);
    let g = greedy_distance(&ra, &rb, &GreedyDistanceOptions::default(), &mut ws).unwrap();
    assert_eq!(g.lower_bound, 0.0);
}

#[test]
fn bad_input_is_a_typed_error() {
    let m = noisy_sphere(4, 1.0, &[]);
    let other = noisy_sphere(5, 1.0, &[]);
    let b = Bvh::<Rss>::new(&m).unwrap();
    assert!(matches!(
        MeshObject::new(&other, &b, DAffine3::IDENTITY),
        Err(GeometryError::BvhMeshMismatch { .. })
    ));
    for pose in [
        DAffine3::from_scale(DVec3::splat(2.0)),
        DAffine3::from_scale(DVec3::new(1.0, 1.0, -1.0)),
        DAffine3::from_translation(DVec3::NAN),
    ] {
        assert!(matches!(
            MeshObject::new(&m, &b, pose),
            Err(GeometryError::InvalidParameter { name: "pose", .. })
        ));
    }
    let o = MeshObject::new(&m, &b, DAffine3::IDENTITY).unwrap();
    let mut ws = DistanceWorkspace::new();
    for bad in [-1.0, f64::NAN, f64::INFINITY] {
        let g = GreedyDistanceOptions::default().with_clearance(bad);
        assert!(greedy_distance(&o, &o, &g, &mut ws).is_err());
        assert!(approximate_distance(&o, &o, bad, &mut ws, None).is_err());
        assert!(within_distance(&o, &o, bad, &mut ws).is_err());
    }
    // A cache naming triangles the meshes do not have is ignored.
    let mut cache = DistanceCache {
        pair: Some([u32::MAX, 7]),
    };
    let far = MeshObject::new(&m, &b, DAffine3::from_translation(DVec3::X * 5.0)).unwrap();
    let r = distance(&o, &far, &mut ws, Some(&mut cache));
    assert!((r.distance - 3.0).abs() < 0.2);
}
