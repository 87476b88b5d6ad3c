//! Hierarchy builds: every node's volume contains every vertex of every
//! triangle below it (exactly, `contains_point` with no tolerance), each
//! triangle sits in exactly one leaf, and the same holds after a refit to
//! moved vertices — for AABB, OBB and RSS trees, both split rules and every
//! leaf size, on soups (slivers included) and closed meshes.

mod mesh_query_support;

use armature_bvh_geometry::{
    Aabb, Bvh, BvhOptions, BvhVolume, GeometryError, Obb, Rss, SplitRule, TriMesh,
};
use glam::DAffine3;
use mesh_query_support::{CASES, config, mesh, pose, vec3};
use proptest::prelude::*;

/// Containment and the leaf partition; returns nothing, panics with the
/// offending node.
fn check<BV: BvhVolume>(bvh: &Bvh<BV>, mesh: &TriMesh, leaf: usize) {
    let nodes = bvh.nodes();
    // Triangles under each node, gathered bottom up (children after parents).
    let mut under: Vec<Vec<u32>> = vec![Vec::new(); nodes.len()];
    for i in (0..nodes.len()).rev() {
        under[i] = match nodes[i].children() {
            None => bvh.leaf_triangles(&nodes[i]).to_vec(),
            Some([l, r]) => {
                assert!(l > i && r == l + 1 && r < nodes.len());
                let mut v = under[l].clone();
                v.extend_from_slice(&under[r]);
                v
            }
        };
        if let Some(r) = nodes[i].triangle_range() {
            assert!(
                (1..=leaf).contains(&r.len()),
                "leaf {i} has {} triangles",
                r.len()
            );
        }
        for &t in &under[i] {
            for p in mesh.triangle(t as usize) {
                assert!(
                    nodes[i].bv.contains_point(p),
                    "node {i} misses triangle {t} vertex {p}"
                );
            }
        }
    }
    let mut all = under[0].clone();
    all.sort_unstable();
    assert_eq!(all, (0..mesh.num_triangles() as u32).collect::<Vec<_>>());
    assert_eq!(bvh.num_nodes(), 2 * bvh.num_leaves() - 1);
    assert!(bvh.memory_bytes() > 0);
}

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

/// The mesh with every vertex moved: a rigid motion plus a per-vertex
/// jitter (the motion of a deforming or re-posed mesh).
fn moved(m: &TriMesh, t: &DAffine3, jitter: glam::DVec3) -> TriMesh {
    let v = m
        .vertices()
        .iter()
        .enumerate()
        .map(|(k, p)| t.transform_point3(*p) + jitter * ((k % 7) as f64 * 0.1))
        .collect();
    let o = armature_bvh_geometry::MeshOptions::default()
        .with_degenerate(armature_bvh_geometry::DegeneratePolicy::Keep);
    TriMesh::from_vertices_indices(v, m.indices().to_vec(), &o).unwrap()
}

macro_rules! containment_tests {
    ($($name:ident: $bv:ty),*) => {$(
        proptest! {
            #![proptest_config(config(CASES))]
            #[test]
            fn $name(m in mesh(), o in options(), t in pose(3.0), j in vec3()) {
                let mut bvh = Bvh::<$bv>::build(&m, &o).unwrap();
                check(&bvh, &m, o.max_leaf_triangles);
                let m2 = moved(&m, &t, j);
                bvh.refit(&m2).unwrap();
                check(&bvh, &m2, o.max_leaf_triangles);
                // A refit keeps the topology: the same leaves in the same
                // order as a fresh build.
                let fresh = Bvh::<$bv>::build(&m, &o).unwrap();
                bvh.refit(&m).unwrap();
                check(&bvh, &m, o.max_leaf_triangles);
                prop_assert_eq!(bvh.triangle_indices(), fresh.triangle_indices());
                let shape = |b: &Bvh<$bv>| {
                    b.nodes().iter().map(|n| (n.children(), n.triangle_range())).collect::<Vec<_>>()
                };
                prop_assert_eq!(shape(&bvh), shape(&fresh));
            }
        }
    )*};
}

containment_tests!(aabb_tree_contains_its_triangles: Aabb, obb_tree_contains_its_triangles: Obb,
    rss_tree_contains_its_triangles: Rss);

#[test]
fn refit_to_another_mesh_is_a_typed_error() {
    let a = mesh_query_support::noisy_sphere(4, 1.0, &[]);
    let b = mesh_query_support::noisy_sphere(5, 1.0, &[]);
    let mut bvh = Bvh::<Rss>::new(&a).unwrap();
    let before = bvh.clone();
    assert!(matches!(
        bvh.refit(&b),
        Err(GeometryError::BvhMeshMismatch {
            bvh_triangles: 24,
            mesh_triangles: 40
        })
    ));
    assert_eq!(bvh, before);
}

#[test]
fn huge_coordinates_are_a_typed_error() {
    let o = armature_bvh_geometry::MeshOptions::default()
        .with_degenerate(armature_bvh_geometry::DegeneratePolicy::Keep);
    let m = TriMesh::from_vertices_indices(
        vec![glam::DVec3::ZERO, glam::DVec3::X * 1e200, glam::DVec3::Y],
        vec![[0, 1, 2]],
        &o,
    )
    .unwrap();
    assert!(matches!(
        Bvh::<Obb>::new(&m),
        Err(GeometryError::BoundingVolumeFit(_))
    ));
}

#[test]
fn single_triangle_is_a_leaf_root() {
    let m = TriMesh::new(
        vec![glam::DVec3::ZERO, glam::DVec3::X, glam::DVec3::Y],
        vec![[0, 1, 2]],
    )
    .unwrap();
    let bvh = Bvh::<Aabb>::new(&m).unwrap();
    assert_eq!((bvh.num_nodes(), bvh.depth(), bvh.num_leaves()), (1, 0, 1));
    assert!(bvh.root().is_leaf());
}

/// A rigid map whose linear part is off a rotation by up to `1e-10` per
/// entry (as poses within the queries' rigidity tolerance can be).
fn near_rigid() -> impl Strategy<Value = glam::DAffine3> {
    (pose(1e3), vec3(), vec3(), vec3()).prop_map(|(t, x, y, z)| {
        let mut t = t;
        t.matrix3 += glam::DMat3::from_cols(x, y, z) * 1e-10;
        t
    })
}

proptest! {
    #![proptest_config(config(CASES))]

    /// `transform_rigid` encloses the mapped points of the volume: box
    /// corners and interior points; rectangle corners pushed out by the
    /// radius in random directions.
    #[test]
    fn rigid_images_enclose_mapped_points(m in mesh(), t in near_rigid(), u in vec3(), w in vec3()) {
        let map = armature_bvh_geometry::RigidMap::new(&t);
        let obb = Bvh::<Obb>::new(&m).unwrap();
        for node in obb.nodes().iter().take(8) {
            let img = node.bv.transform_rigid(&map);
            let inner = node.bv.center + node.bv.axes * (u * node.bv.half_extents);
            for p in node.bv.corners().into_iter().chain([inner]) {
                let q = t.transform_point3(p);
                prop_assert!(img.contains_point(q), "{q} outside {img:?}");
            }
        }
        let rss = Bvh::<Rss>::new(&m).unwrap();
        let dir = w.try_normalize().unwrap_or(glam::DVec3::X);
        for node in rss.nodes().iter().take(8) {
            let img = node.bv.transform_rigid(&map);
            for p in node.bv.corners() {
                let q = t.transform_point3(p + dir * node.bv.radius);
                prop_assert!(img.contains_point(q), "{q} outside {img:?}");
            }
        }
    }
}
