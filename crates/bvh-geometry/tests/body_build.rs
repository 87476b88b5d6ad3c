//! Articulated bodies and obstacles: from code, from URDF fixtures with
//! meshes and primitives, tessellations that contain the primitives, and
//! typed errors.

use std::sync::Arc;

use armature_bvh_geometry::{
    AabbTree, ArticulatedBody, DynamicHierarchyOptions, DynamicLinkHierarchy, EnvironmentHierarchy,
    GeometryError, LinkGeometry, Obstacle, PotentialPairs, SweptVolumeMonitor, Tessellation,
    TriMesh,
};
use armature_kinematics::{InBetweenMotion, Joint, KinematicTree, LinkSpec};
use glam::{DAffine3, DQuat, DVec3};

const _: () = {
    const fn shareable<T: Send + Sync>() {}
    shareable::<ArticulatedBody>();
    shareable::<Arc<ArticulatedBody>>();
    shareable::<Obstacle>();
    shareable::<LinkGeometry>();
    shareable::<EnvironmentHierarchy>();
    shareable::<DynamicLinkHierarchy>();
    shareable::<SweptVolumeMonitor>();
    shareable::<AabbTree>();
};

fn cube(half: f64) -> Arc<TriMesh> {
    Arc::new(
        Tessellation::default()
            .cuboid(DVec3::splat(2.0 * half))
            .expect("valid box"),
    )
}

/// Whether `p` is inside the convex mesh (every face plane, no tolerance).
fn inside_convex(mesh: &TriMesh, p: DVec3) -> bool {
    mesh.triangles()
        .all(|[a, b, c]| (b - a).cross(c - a).dot(p - a) <= 0.0)
}

#[test]
fn body_from_code() {
    let tree = KinematicTree::new(vec![
        LinkSpec::new("base", None),
        LinkSpec::new("arm", Some("base"))
            .with_joint(Joint::revolute("j1", DVec3::Z, -3.0, 3.0))
            .with_origin(DAffine3::from_translation(DVec3::Z * 0.5)),
        LinkSpec::new("frame", Some("arm")).with_joint(Joint::fixed("f")),
        LinkSpec::new("hand", Some("frame"))
            .with_joint(Joint::revolute("j2", DVec3::Y, -3.0, 3.0))
            .with_origin(DAffine3::from_translation(DVec3::X)),
    ])
    .unwrap();
    let body = ArticulatedBody::new(
        "bot",
        tree.clone(),
        vec![Some(cube(0.2)), Some(cube(0.1)), None, Some(cube(0.05))],
    )
    .unwrap();
    assert_eq!(body.name(), "bot");
    assert!(body.link_geometry(2).unwrap().is_none());
    assert!(matches!(
        body.link_geometry(9),
        Err(GeometryError::IndexOutOfBounds { index: 9, .. })
    ));
    for g in body.links().iter().flatten() {
        for v in g.mesh.vertices() {
            assert!(g.obb.contains_point(*v) && g.lss.contains_point(*v));
            assert!(g.sphere.contains_point(*v));
        }
        assert!(!g.hull_is_built());
        assert_eq!(g.hull_points().unwrap().len(), 8);
        assert!(g.hull_is_built());
        let m = g.mass.expect("a closed box");
        assert!(m.volume > 0.0);
        assert_eq!(g.obb_tree.num_triangles(), 12);
        assert_eq!(g.rss_tree.num_triangles(), 12);
    }
    assert_eq!(body.link_sschs().unwrap().iter().flatten().count(), 3);

    // Into the dynamic hierarchy with an obstacle.
    let obstacles = vec![
        Obstacle::fixed(
            "block",
            cube(0.3),
            DAffine3::from_translation(DVec3::new(1.0, 0.0, 0.5)),
        )
        .unwrap(),
        Obstacle::moving(
            "door",
            cube(0.1),
            DAffine3::from_translation(DVec3::new(5.0, 0.0, 0.0)),
            DAffine3::from_rotation_translation(
                DQuat::from_rotation_z(1.0),
                DVec3::new(6.0, 0.0, 0.0),
            ),
        )
        .unwrap(),
    ];
    assert!(obstacles[0].is_static() && !obstacles[1].is_static());
    let door = obstacles[1].world_aabb().unwrap();
    for k in 0..=10 {
        let p = obstacles[1].pose_at(f64::from(k) / 10.0);
        for v in obstacles[1].geometry().mesh.vertices() {
            assert!(door.contains_point(p.transform_point3(*v)));
        }
    }
    let env = EnvironmentHierarchy::from_obstacles(&obstacles).unwrap();
    let mut h = body
        .dynamic_hierarchy(DynamicHierarchyOptions::default())
        .unwrap();
    let motion = InBetweenMotion::new(&tree, &[0.0, 0.0], &[0.5, 0.5]).unwrap();
    let mut out = PotentialPairs::default();
    h.potential_pairs(&motion, 0.0, 1.0, Some(&env), &mut out)
        .unwrap();
    assert!(out.link_obstacle.contains(&(3, 0)), "{out:?}");
    assert!(!out.link_obstacle.iter().any(|&(_, o)| o == 1));
    let mo = obstacles[0].monitor_obstacle().unwrap();
    assert_eq!(mo.name, "block");

    assert!(matches!(
        ArticulatedBody::new("bad", tree, vec![None]),
        Err(GeometryError::WrongLength { .. })
    ));
}

#[test]
fn tessellations_contain_their_primitives() {
    let mut s = 1u64;
    let mut rnd = || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    for t in [
        Tessellation {
            segments: 3,
            rings: 2,
        },
        Tessellation::default(),
        Tessellation {
            segments: 7,
            rings: 5,
        },
    ] {
        let (r, l) = (0.3, 0.8);
        let cyl = t.cylinder(r, l).unwrap();
        let sph = t.sphere(r).unwrap();
        let cap = t.capsule(r, l).unwrap();
        for _ in 0..2000 {
            let a = rnd() * core::f64::consts::TAU;
            let z = (rnd() - 0.5) * l;
            let rim = DVec3::new(r * a.cos(), r * a.sin(), z);
            assert!(inside_convex(&cyl, rim), "{t:?}: {rim}");
            assert!(inside_convex(
                &cyl,
                DVec3::new(r * a.cos(), r * a.sin(), 0.5 * l)
            ));
            let u = loop {
                let v = DVec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5);
                if v.length() > 0.05 {
                    break v.normalize();
                }
            };
            assert!(inside_convex(&sph, u * r), "{t:?}: {}", u * r);
            let end = if u.z >= 0.0 { 0.5 * l } else { -0.5 * l };
            assert!(inside_convex(&cap, u * r + DVec3::Z * end), "{t:?}");
            assert!(inside_convex(&cap, rim));
        }
        // Not absurdly loose either.
        assert!(sph.vertices().iter().all(|v| v.length() < 2.5 * r));
    }
    assert!(
        Tessellation {
            segments: 2,
            rings: 2
        }
        .cylinder(1.0, 1.0)
        .is_err()
    );
    assert!(Tessellation::default().sphere(-1.0).is_err());
    assert!(
        Tessellation::default()
            .cuboid(DVec3::new(1.0, 0.0, 1.0))
            .is_err()
    );
}

#[cfg(feature = "urdf")]
mod urdf {
    use super::*;
    use armature_kinematics::UrdfOptions;
    use std::path::PathBuf;

    fn fixture(name: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/body")
            .join(name)
    }

    #[test]
    fn body_from_urdf_with_meshes_and_primitives() {
        let body = ArticulatedBody::from_urdf_file(
            fixture("arm.urdf"),
            &UrdfOptions::default(),
            &Tessellation::default(),
        )
        .unwrap();
        assert_eq!(body.name(), "fixture_arm");
        let tree = body.tree();
        let link = |n: &str| tree.link_index(n).unwrap();
        // Box: exact, placed by its origin.
        let base = body.links()[link("base")].as_ref().unwrap();
        let bb = armature_bvh_geometry::Aabb::from_points(base.mesh.vertices()).unwrap();
        assert!((bb.min - DVec3::new(-0.2, -0.15, 0.0)).length() < 1e-12);
        assert!((bb.max - DVec3::new(0.2, 0.15, 0.1)).length() < 1e-12);
        // Cylinder and sphere merged: two closed pieces.
        let upper = body.links()[link("upper")].as_ref().unwrap();
        let t = Tessellation::default();
        let expected = t.cylinder(0.05, 0.4).unwrap().num_triangles()
            + t.sphere(0.06).unwrap().num_triangles();
        assert_eq!(upper.mesh.num_triangles(), expected);
        assert!(upper.sphere.contains_point(DVec3::new(0.0, 0.0, 0.46)));
        // STL with per-axis scale and a rotated origin: the tetra's x edge
        // (scaled to 0.2) now points along −z, shifted by 0.1 in x.
        let fore = body.links()[link("fore")].as_ref().unwrap();
        assert_eq!(fore.mesh.num_triangles(), 4);
        let fb = armature_bvh_geometry::Aabb::from_points(fore.mesh.vertices()).unwrap();
        assert!(
            (fb.min - DVec3::new(0.1, 0.0, -0.2)).length() < 1e-9,
            "{fb:?}"
        );
        assert!(
            (fb.max - DVec3::new(0.2, 0.1, 0.0)).length() < 1e-9,
            "{fb:?}"
        );
        // OBJ from a visual element.
        let wrist = body.links()[link("wrist")].as_ref().unwrap();
        assert_eq!(wrist.mesh.num_triangles(), 8);
        assert!(wrist.mass.is_some());
        // A link without geometry.
        assert!(body.links()[link("tool_frame")].is_none());

        let capsule = ArticulatedBody::from_urdf_file(
            fixture("capsule.urdf"),
            &UrdfOptions::default(),
            &Tessellation::default(),
        )
        .unwrap();
        let c = capsule.links()[0].as_ref().unwrap();
        assert!(inside_convex(&c.mesh, DVec3::new(0.0, 0.0, 0.35)));
        assert!(inside_convex(&c.mesh, DVec3::new(0.1, 0.0, 0.25)));
    }

    #[test]
    fn missing_mesh_is_a_typed_error_naming_the_file_and_link() {
        let err = ArticulatedBody::from_urdf_file(
            fixture("missing_mesh.urdf"),
            &UrdfOptions::default(),
            &Tessellation::default(),
        )
        .unwrap_err();
        match &err {
            GeometryError::LinkGeometry { link, source } => {
                assert_eq!(link, "fore");
                assert!(
                    matches!(
                        source.as_ref(),
                        GeometryError::FileRead { file, kind: std::io::ErrorKind::NotFound, .. }
                            if file.ends_with("no_such_mesh.stl")
                    ),
                    "{source:?}"
                );
            }
            other => panic!("unexpected error {other:?}"),
        }
        assert!(err.to_string().contains("no_such_mesh.stl"), "{err}");
        assert!(matches!(
            ArticulatedBody::from_urdf_file(
                fixture("nope.urdf"),
                &UrdfOptions::default(),
                &Tessellation::default()
            ),
            Err(GeometryError::Kinematics { .. })
        ));
    }
}

fn two_link_arm(name: &str) -> ArticulatedBody {
    let tree = KinematicTree::new(vec![
        LinkSpec::new("base", None),
        LinkSpec::new("arm", Some("base"))
            .with_joint(Joint::revolute("j1", DVec3::Z, -3.0, 3.0))
            .with_origin(DAffine3::from_translation(DVec3::Z * 0.5)),
    ])
    .unwrap();
    ArticulatedBody::new(name, tree, vec![Some(cube(0.2)), Some(cube(0.1))]).unwrap()
}

/// Combined bodies: roots placed at their bases, names prefixed, joint
/// values in body order, poses equal to each body's own poses moved by its
/// base, geometry shared.
#[test]
fn combined_bodies_are_roots_of_one_tree() {
    let a = two_link_arm("left");
    let b = two_link_arm("right");
    let base_b =
        DAffine3::from_rotation_translation(DQuat::from_rotation_z(0.7), DVec3::new(2.0, 0.0, 0.0));
    let both = ArticulatedBody::combine("cell", &[(&a, DAffine3::IDENTITY), (&b, base_b)]).unwrap();
    let tree = both.tree();
    assert_eq!(tree.len(), 4);
    assert_eq!(tree.nq(), 2);
    assert_eq!(tree.link_index("right/arm").unwrap(), 3);
    assert_eq!(tree.links()[3].joint().name, "right/j1");
    assert_eq!(tree.links()[2].root(), 2);
    let q = [0.3, -1.1];
    let poses = tree.poses(&q).unwrap();
    let pa = a.tree().poses(&q[..1]).unwrap();
    let pb = b.tree().poses(&q[1..]).unwrap();
    for (i, want) in pa
        .iter()
        .chain(pb.iter().map(|p| base_b * *p).collect::<Vec<_>>().iter())
        .enumerate()
    {
        assert!(poses[i].abs_diff_eq(*want, 1e-12), "link {i}");
    }
    let g = both.links()[3].as_ref().unwrap();
    assert!(Arc::ptr_eq(&g.mesh, &b.links()[1].as_ref().unwrap().mesh));
    // Same body twice: duplicate names are a typed error.
    assert!(matches!(
        ArticulatedBody::combine("x", &[(&a, DAffine3::IDENTITY), (&a, base_b)]),
        Err(GeometryError::Kinematics { .. })
    ));
    // A base that is not a rotation is rejected.
    let bad = DAffine3::from_scale(DVec3::splat(2.0));
    assert!(ArticulatedBody::combine("x", &[(&a, bad)]).is_err());
}

/// A body's rigid groups and adjacency: a frame on a fixed joint between
/// two links joins the first link's group, so the links on either side of
/// the next movable joint are adjacent; two bodies combined are never
/// adjacent to each other.
#[test]
fn link_groups_follow_fixed_joints() {
    let tree = KinematicTree::new(vec![
        LinkSpec::new("base", None),
        LinkSpec::new("l1", Some("base")).with_joint(Joint::revolute("j1", DVec3::Z, -3.0, 3.0)),
        LinkSpec::new("l1_rot2", Some("l1")).with_joint(Joint::fixed("f2")),
        LinkSpec::new("l2", Some("l1_rot2")).with_joint(Joint::revolute("j2", DVec3::Y, -3.0, 3.0)),
        LinkSpec::new("tool", Some("l2")).with_joint(Joint::fixed("ft")),
    ])
    .unwrap();
    let body =
        ArticulatedBody::new("dh", tree, vec![Some(cube(0.1)), None, None, None, None]).unwrap();
    let g = body.link_groups();
    assert_eq!(g.len(), 5);
    assert!(!g.is_empty());
    let groups: Vec<Option<usize>> = (0..6).map(|i| g.group(i)).collect();
    assert_eq!(groups, [Some(0), Some(1), Some(1), Some(3), Some(3), None]);
    assert!(g.rigidly_attached(1, 2) && g.rigidly_attached(3, 4));
    assert!(!g.rigidly_attached(1, 1) && !g.rigidly_attached(0, 1) && !g.rigidly_attached(0, 9));
    // base–l1 by j1; l1's group–l2's group by j2; a parent and its child
    // on a fixed joint too (they are also one group).
    for (a, b) in [
        (0, 1),
        (0, 2),
        (1, 3),
        (2, 3),
        (1, 4),
        (2, 4),
        (1, 2),
        (3, 4),
    ] {
        assert!(g.adjacent(a, b) && g.adjacent(b, a), "{a}–{b}");
    }
    // Two movable joints apart, or out of range.
    for (a, b) in [(0, 3), (0, 4), (0, 9), (9, 0)] {
        assert!(!g.adjacent(a, b), "{a}–{b}");
    }
    let both = ArticulatedBody::combine(
        "both",
        &[
            (&two_link_arm("left"), DAffine3::IDENTITY),
            (&two_link_arm("right"), DAffine3::IDENTITY),
        ],
    )
    .unwrap();
    let g = both.link_groups();
    assert!(g.adjacent(0, 1) && g.adjacent(2, 3));
    assert!(!g.adjacent(1, 2) && !g.adjacent(0, 2) && !g.adjacent(1, 3));
}
