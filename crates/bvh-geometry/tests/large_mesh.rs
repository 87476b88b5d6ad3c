//! Large meshes: geometry memory per triangle, the lazy convex hull, the
//! leaf sizes by mesh size, meshes shared through a `MeshCache`, dropped
//! degenerate triangles counted, and mirrored scales that keep closed
//! meshes outward-oriented for links and obstacles alike.

#[cfg(feature = "io")]
use std::path::PathBuf;
use std::sync::Arc;

use armature_bvh_geometry::{
    LARGE_MESH_LEAF_TRIANGLES, LARGE_MESH_TRIANGLES, LinkGeometry, Obstacle, TriMesh,
};
use glam::{DAffine3, DVec3};

/// A closed, outward-oriented latitude–longitude sphere of radius `r`:
/// `2 · segments · (rings − 1)` triangles.
fn uv_sphere(r: f64, segments: u32, rings: u32) -> TriMesh {
    let mut v = vec![DVec3::new(0.0, 0.0, r)];
    for i in 1..rings {
        let theta = core::f64::consts::PI * f64::from(i) / f64::from(rings);
        for k in 0..segments {
            let phi = core::f64::consts::TAU * f64::from(k) / f64::from(segments);
            v.push(
                r * DVec3::new(
                    theta.sin() * phi.cos(),
                    theta.sin() * phi.sin(),
                    theta.cos(),
                ),
            );
        }
    }
    v.push(DVec3::new(0.0, 0.0, -r));
    let south = (v.len() - 1) as u32;
    let at = |i: u32, k: u32| 1 + (i - 1) * segments + k % segments;
    let mut t = Vec::new();
    for k in 0..segments {
        t.push([0, at(1, k), at(1, k + 1)]);
        t.push([south, at(rings - 1, k + 1), at(rings - 1, k)]);
    }
    for i in 1..rings - 1 {
        for k in 0..segments {
            t.push([at(i, k), at(i + 1, k), at(i + 1, k + 1)]);
            t.push([at(i, k), at(i + 1, k + 1), at(i, k + 1)]);
        }
    }
    TriMesh::new(v, t).expect("a valid sphere")
}

#[cfg(feature = "io")]
/// A scratch directory of its own for this test process and `tag`.
fn scratch(tag: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("armature-large-mesh-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

#[cfg(feature = "io")]
fn write_obj(path: &std::path::Path, mesh: &TriMesh, extra_faces: &[[u32; 3]]) {
    use std::fmt::Write as _;
    let mut text = String::new();
    for p in mesh.vertices() {
        writeln!(text, "v {:?} {:?} {:?}", p.x, p.y, p.z).unwrap();
    }
    for t in mesh.indices().iter().chain(extra_faces) {
        writeln!(text, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1).unwrap();
    }
    std::fs::write(path, text).expect("write OBJ");
}

#[test]
fn a_large_closed_mesh_costs_at_most_250_bytes_per_triangle() {
    let mesh = Arc::new(uv_sphere(1.0, 400, 251));
    let n = mesh.num_triangles();
    assert!(n >= 200_000, "{n} triangles");
    assert!(n >= LARGE_MESH_TRIANGLES, "{n} triangles");
    let o = Obstacle::fixed("sphere", mesh.clone(), DAffine3::IDENTITY).unwrap();
    let g = o.geometry();
    assert!(g.is_closed());
    assert!(g.mass.is_some_and(|m| m.volume > 0.0));
    assert!(!g.hull_is_built(), "loading built the hull");
    // Both trees of a large mesh fill their leaves.
    for leaves in [g.obb_tree.num_leaves(), g.rss_tree.num_leaves()] {
        assert_eq!(leaves, n.div_ceil(LARGE_MESH_LEAF_TRIANGLES));
    }
    let bytes = g.heap_bytes();
    let per = bytes as f64 / n as f64;
    assert!(
        per <= 250.0,
        "{per:.1} bytes per triangle ({bytes} bytes for {n} triangles)"
    );
    // The figure counts what the geometry really holds: at least the
    // mesh and the two trees' nodes.
    let nodes = g.obb_tree.num_nodes()
        * size_of::<armature_bvh_geometry::BvhNode<armature_bvh_geometry::Obb>>()
        + g.rss_tree.num_nodes()
            * size_of::<armature_bvh_geometry::BvhNode<armature_bvh_geometry::Rss>>();
    assert!(
        bytes >= nodes + mesh.heap_bytes(),
        "{bytes} < {nodes} + mesh"
    );
}

#[test]
fn small_meshes_keep_one_triangle_rss_leaves() {
    let mesh = Arc::new(uv_sphere(1.0, 32, 17));
    assert!(mesh.num_triangles() < LARGE_MESH_TRIANGLES);
    let g = LinkGeometry::from_mesh("small", mesh.clone()).unwrap();
    assert_eq!(g.rss_tree.num_leaves(), mesh.num_triangles());
    assert_eq!(g.obb, g.obb_tree.root().bv);
}

#[test]
fn the_hull_is_built_on_first_use_and_shared_by_clones() {
    let mesh = Arc::new(uv_sphere(2.0, 24, 12));
    let g = LinkGeometry::from_mesh("ball", mesh.clone()).unwrap();
    let copy = g.clone();
    assert!(!g.hull_is_built() && !copy.hull_is_built());
    let before = g.heap_bytes();
    let points = copy.hull_points().unwrap().to_vec();
    assert!(g.hull_is_built(), "a clone's hull is the geometry's");
    assert!(g.heap_bytes() > before, "the built hull is counted");
    assert_eq!(g.hull_points().unwrap(), points.as_slice());
    // Every vertex of a convex sphere is on its hull; the SSCH holds all.
    assert_eq!(points.len(), mesh.num_vertices());
    let r = g.hull_radius().unwrap();
    assert!((0.0..1e-9).contains(&r), "{r}");
    assert!(g.hull_ssch().is_ok());
    // The monitor's volume of a static obstacle on it.
    let o = Obstacle::fixed_shared("ball", Arc::new(g), DAffine3::IDENTITY);
    assert_eq!(o.monitor_obstacle().unwrap().name, "ball");
}

#[test]
fn obstacles_share_a_geometry_without_copying() {
    let g = Arc::new(LinkGeometry::from_mesh("ball", Arc::new(uv_sphere(1.0, 16, 8))).unwrap());
    let a = Obstacle::fixed_shared("a", g.clone(), DAffine3::IDENTITY);
    let b = Obstacle::moving_shared(
        "b",
        g.clone(),
        DAffine3::IDENTITY,
        DAffine3::from_translation(DVec3::X),
    );
    assert!(Arc::ptr_eq(a.shared_geometry(), b.shared_geometry()));
    assert!(a.is_static() && !b.is_static());
    assert_eq!(Arc::strong_count(&g), 3);
}

#[cfg(feature = "io")]
mod cache {
    use super::*;
    use armature_bvh_geometry::MeshCache;

    #[test]
    fn a_mesh_file_is_loaded_and_built_once_per_scale() {
        let dir = scratch("cache");
        let sphere = uv_sphere(1.0, 16, 8);
        let path = dir.join("ball.obj");
        // One degenerate face (a repeated corner) the loader drops.
        write_obj(&path, &sphere, &[[0, 0, 1]]);
        let mut cache = MeshCache::new();
        let a = cache.geometry("a", &path, DVec3::ONE).unwrap();
        // The same file by another spelling of its path.
        let other = dir.join(".").join("ball.obj");
        let b = cache.geometry("b", &other, DVec3::ONE).unwrap();
        assert!(Arc::ptr_eq(&a.geometry, &b.geometry));
        assert_eq!((a.dropped_triangles, b.dropped_triangles), (1, 1));
        assert_eq!(a.geometry.mesh.num_triangles(), sphere.num_triangles());
        let c = cache.geometry("c", &path, DVec3::splat(2.0)).unwrap();
        assert!(!Arc::ptr_eq(&a.geometry, &c.geometry));
        assert_eq!((cache.num_meshes(), cache.num_geometries()), (2, 2));
        let loaded = cache.load(&path, DVec3::ONE).unwrap();
        assert!(Arc::ptr_eq(&loaded.mesh, &a.geometry.mesh));
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn a_mirrored_obstacle_stays_closed_and_outward() {
        let dir = scratch("mirror-obstacle");
        let sphere = uv_sphere(1.0, 16, 8);
        let path = dir.join("ball.obj");
        write_obj(&path, &sphere, &[]);
        let mut cache = MeshCache::new();
        let plain = cache.geometry("plain", &path, DVec3::ONE).unwrap();
        let mirrored = cache
            .geometry("mirrored", &path, DVec3::new(-1.0, 1.0, 1.0))
            .unwrap();
        let g = &mirrored.geometry;
        assert!(g.is_closed());
        let (v0, v1) = (
            plain.geometry.mass.unwrap().volume,
            g.mass.expect("outward after mirroring").volume,
        );
        assert!((v0 - v1).abs() <= 1e-12 * v0, "{v0} vs {v1}");
        // Every mirrored triangle faces away from the centre.
        for [a, b, c] in g.mesh.triangles() {
            assert!((b - a).cross(c - a).dot(a + b + c) > 0.0);
        }
        assert!(
            cache
                .geometry("zero", &path, DVec3::new(0.0, 1.0, 1.0))
                .is_err()
        );
        std::fs::remove_dir_all(dir).ok();
    }
}

#[cfg(feature = "urdf")]
mod urdf {
    use super::*;
    use armature_bvh_geometry::{ArticulatedBody, MeshCache, Tessellation};
    use armature_kinematics::UrdfOptions;

    fn urdf(dir: &std::path::Path, links: &[(&str, &str)]) -> PathBuf {
        let mut text = String::from("<?xml version=\"1.0\"?>\n<robot name=\"r\">\n");
        for (name, scale) in links {
            text.push_str(&format!(
                "<link name=\"{name}\"><collision><geometry><mesh filename=\"ball.obj\" \
                 scale=\"{scale}\"/></geometry></collision></link>\n"
            ));
        }
        for (k, pair) in links.windows(2).enumerate() {
            text.push_str(&format!(
                "<joint name=\"j{k}\" type=\"fixed\"><parent link=\"{}\"/><child link=\"{}\"/></joint>\n",
                pair[0].0, pair[1].0
            ));
        }
        text.push_str("</robot>\n");
        let path = dir.join("r.urdf");
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn a_mirrored_link_stays_closed_and_outward() {
        let dir = scratch("mirror-link");
        write_obj(&dir.join("ball.obj"), &uv_sphere(1.0, 16, 8), &[[1, 2, 2]]);
        let path = urdf(&dir, &[("plain", "1 1 1"), ("mirrored", "-1 1 1")]);
        let body = ArticulatedBody::from_urdf_file(
            &path,
            &UrdfOptions::default(),
            &Tessellation::default(),
        )
        .unwrap();
        let link = |n: &str| {
            body.links()[body.tree().link_index(n).unwrap()]
                .as_ref()
                .unwrap()
        };
        let (plain, mirrored) = (link("plain"), link("mirrored"));
        assert!(mirrored.is_closed());
        let (v0, v1) = (
            plain.mass.unwrap().volume,
            mirrored.mass.expect("outward after mirroring").volume,
        );
        assert!((v0 - v1).abs() <= 1e-12 * v0, "{v0} vs {v1}");
        for [a, b, c] in mirrored.mesh.triangles() {
            assert!((b - a).cross(c - a).dot(a + b + c) > 0.0);
        }
        // Each link's file lost its one degenerate face.
        assert_eq!(body.dropped_triangles(), &[1, 1]);
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn links_on_one_mesh_file_share_their_geometry() {
        let dir = scratch("shared-links");
        write_obj(&dir.join("ball.obj"), &uv_sphere(1.0, 16, 8), &[]);
        let path = urdf(&dir, &[("a", "1 1 1"), ("b", "1 1 1"), ("c", "2 2 2")]);
        let mut cache = MeshCache::new();
        let body = ArticulatedBody::from_urdf_file_cached(
            &path,
            &UrdfOptions::default(),
            &Tessellation::default(),
            &mut cache,
        )
        .unwrap();
        let g: Vec<&LinkGeometry> = body.links().iter().flatten().collect();
        assert!(Arc::ptr_eq(&g[0].mesh, &g[1].mesh));
        assert!(Arc::ptr_eq(&g[0].rss_tree, &g[1].rss_tree));
        assert!(!Arc::ptr_eq(&g[0].mesh, &g[2].mesh));
        // An obstacle on the same file and scale shares it too.
        let o = cache
            .geometry("o", dir.join("ball.obj"), DVec3::ONE)
            .unwrap();
        assert!(Arc::ptr_eq(&o.geometry.mesh, &g[0].mesh));
        assert_eq!((cache.num_meshes(), cache.num_geometries()), (2, 2));
        std::fs::remove_dir_all(dir).ok();
    }
}
