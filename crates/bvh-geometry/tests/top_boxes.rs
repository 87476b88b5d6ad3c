//! The top boxes of a placed OBB tree never call a box far from a mesh it
//! comes within the margin of: checked against every triangle sampled on a
//! barycentric grid (a point within the margin of the grown box forces
//! `near`), for soups and closed meshes, any pose, margin and depth; and a
//! deeper cut is never less tight than a shallower one.

mod mesh_query_support;

use armature_bvh_geometry::{Aabb, Bvh, BvhOptions, Obb};
use glam::DVec3;
use mesh_query_support::{config, mesh, pose, vec3};
use proptest::prelude::*;

/// Euclidean distance from `p` to the box.
fn point_box_distance(p: DVec3, b: &Aabb) -> f64 {
    let d = (b.min - p).max(p - b.max).max(DVec3::ZERO);
    d.length()
}

/// The smallest distance from a sample of the triangle (a barycentric grid
/// of side 8, vertices and edges included) to the box.
fn sampled_distance(t: [DVec3; 3], b: &Aabb) -> f64 {
    const N: u32 = 8;
    let mut best = f64::INFINITY;
    for i in 0..=N {
        for j in 0..=N - i {
            let (u, v) = (f64::from(i) / f64::from(N), f64::from(j) / f64::from(N));
            let p = t[0] + (t[1] - t[0]) * u + (t[2] - t[0]) * v;
            best = best.min(point_box_distance(p, b));
        }
    }
    best
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn far_means_far_from_every_triangle(
        m in mesh(),
        leaf in 1_usize..=4,
        place in pose(2.0),
        center in vec3(),
        half in (0.0..0.5_f64, 0.0..0.5_f64, 0.0..0.5_f64),
        margin in prop_oneof![Just(0.0), 0.0..0.8_f64],
        levels in 0_u32..9,
    ) {
        let bvh = Bvh::<Obb>::build(&m, &BvhOptions::default().with_max_leaf_triangles(leaf))
            .expect("valid mesh");
        let top = bvh.top_boxes(&place, levels);
        prop_assert!(!top.is_empty());
        prop_assert!(top.len() < 1 << (levels + 1));
        let h = DVec3::new(half.0, half.1, half.2);
        let b = Aabb::new(center * 2.0 - h, center * 2.0 + h);
        let near = top.near(&b, margin);
        if !near {
            for k in 0..m.num_triangles() {
                let t = m.triangle(k).map(|p| place.transform_point3(p));
                let d = sampled_distance(t, &b);
                prop_assert!(d > margin, "triangle {k} at {d} ≤ margin {margin}, called far");
            }
        }
        // A deeper cut only drops boxes: near there implies near here.
        if levels > 0 {
            let shallower = bvh.top_boxes(&place, levels - 1);
            prop_assert!(!near || shallower.near(&b, margin));
        }
    }
}
