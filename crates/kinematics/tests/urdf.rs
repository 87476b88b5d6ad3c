//! URDF import: the mapping of every joint type, origins, geometry
//! references and mesh paths, one typed error per malformed fixture, and no
//! panic on mutated documents.
#![cfg(feature = "urdf")]

use armature_kinematics::urdf::rpy_rotation;
use armature_kinematics::{
    GeometryShape, GeometrySource, JointLimits, JointType, KinematicsError, UrdfModel, UrdfOptions,
};
use glam::{DAffine3, DMat3, DVec3};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn fixture(name: &str) -> PathBuf {
    fixtures().join(name)
}

fn packages() -> UrdfOptions {
    UrdfOptions::default()
        .with_package_dir("armature_description", "/pkgs/description")
        .with_package_root("/ws/share")
}

fn all_joints() -> UrdfModel {
    UrdfModel::from_file_with(fixture("all_joints.urdf"), &packages()).expect("fixture loads")
}

fn load(name: &str) -> KinematicsError {
    UrdfModel::from_file_with(fixture(name), &packages()).expect_err("malformed fixture")
}

fn close(a: &DAffine3, b: &DAffine3, tol: f64) -> bool {
    a.abs_diff_eq(*b, tol)
}

#[test]
fn every_joint_type_maps_in_urdf_order() {
    let m = all_joints();
    assert_eq!(m.name(), "all_joints");
    let t = m.tree();
    let names: Vec<_> = t.links().iter().map(|l| l.name()).collect();
    assert_eq!(
        names,
        [
            "base",
            "torso",
            "shoulder",
            "upper_arm",
            "slider",
            "tool",
            "planar_link",
            "floating_link",
            "ball_link"
        ]
    );
    assert_eq!(
        m.joint_names().collect::<Vec<_>>(),
        [
            "torso_joint",
            "shoulder_joint",
            "elbow_joint",
            "slide_joint",
            "planar_joint",
            "floating_joint",
            "ball_joint"
        ]
    );
    // 1 + 1 + 1 + 1 + 3 + 7 + 4 values, 1 + 1 + 1 + 1 + 3 + 6 + 3 tangent.
    assert_eq!(t.nq(), 18);
    assert_eq!(t.dof(), 16);

    let joint = |link: &str| t.links()[t.link_index(link).unwrap()].joint().clone();
    let root = joint("base");
    assert_eq!(root.kind, JointType::Fixed);
    assert_eq!(root.name, "base");
    assert_eq!(t.links()[0].parent(), None);

    assert_eq!(
        joint("torso").kind,
        JointType::Continuous { axis: DVec3::Z }
    );
    assert_eq!(joint("torso").limits, None);
    // No <axis>: the URDF default (1, 0, 0).
    let shoulder = joint("shoulder");
    assert_eq!(shoulder.name, "shoulder_joint");
    assert_eq!(shoulder.kind, JointType::Revolute { axis: DVec3::X });
    assert_eq!(shoulder.limits, Some(JointLimits::new(-1.5, 1.5)));
    assert_eq!(
        joint("upper_arm").kind,
        JointType::Revolute { axis: DVec3::Y }
    );
    // Axes are normalised.
    assert_eq!(
        joint("slider").kind,
        JointType::Prismatic { axis: DVec3::Z }
    );
    assert_eq!(joint("slider").limits, Some(JointLimits::new(0.0, 0.25)));
    assert_eq!(joint("tool").kind, JointType::Fixed);
    assert_eq!(
        joint("planar_link").kind,
        JointType::Planar { normal: DVec3::Z }
    );
    assert_eq!(joint("floating_link").kind, JointType::Floating);
    assert_eq!(joint("ball_link").kind, JointType::Spherical);

    // Configuration slices follow the joint order.
    let r = |link: &str| t.q_range(t.link_index(link).unwrap());
    assert_eq!(r("torso"), 0..1);
    assert_eq!(r("shoulder"), 1..2);
    assert_eq!(r("upper_arm"), 2..3);
    assert_eq!(r("slider"), 3..4);
    assert_eq!(r("planar_link"), 4..7);
    assert_eq!(r("floating_link"), 7..14);
    assert_eq!(r("ball_link"), 14..18);
}

#[test]
fn rpy_is_fixed_axis_roll_pitch_yaw() {
    let (r, p, y) = (0.3, -0.7, 1.1);
    let expected =
        DMat3::from_rotation_z(y) * DMat3::from_rotation_y(p) * DMat3::from_rotation_x(r);
    assert!(rpy_rotation(r, p, y).abs_diff_eq(expected, 1e-15));
    // Roll a quarter turn about x, then yaw a quarter turn about the fixed z.
    let m = rpy_rotation(
        core::f64::consts::FRAC_PI_2,
        0.0,
        core::f64::consts::FRAC_PI_2,
    );
    assert!((m * DVec3::X).abs_diff_eq(DVec3::Y, 1e-15));
    assert!((m * DVec3::Y).abs_diff_eq(DVec3::Z, 1e-15));
    assert!((m * DVec3::Z).abs_diff_eq(DVec3::X, 1e-15));
}

#[test]
fn origins_and_forward_kinematics_follow_the_file() {
    let m = all_joints();
    let t = m.tree();
    let shoulder = t.link_index("shoulder").unwrap();
    let o = t.links()[shoulder].origin();
    assert!(o.translation.abs_diff_eq(DVec3::new(0.1, 0.0, 0.4), 1e-15));
    assert!(o.matrix3.abs_diff_eq(rpy_rotation(0.1, 0.2, 0.3), 1e-15));

    // Independent product along base → torso → shoulder → upper_arm →
    // slider → tool.
    let q = [
        0.4, -0.3, 0.7, 0.1, // torso, shoulder, elbow, slide
        0.2, -0.1, 0.5, // planar
        0.3, 0.2, 0.1, 0.0, 0.0, 0.0, 1.0, // floating
        0.0, 0.0, 0.0, 1.0, // ball
    ];
    let poses = t.poses(&q).unwrap();
    let tool = DAffine3::from_translation(DVec3::new(0.0, 0.0, 0.1))
        * DAffine3::from_rotation_z(0.4)
        * DAffine3 {
            matrix3: rpy_rotation(0.1, 0.2, 0.3),
            translation: DVec3::new(0.1, 0.0, 0.4),
        }
        * DAffine3::from_rotation_x(-0.3)
        * DAffine3::from_translation(DVec3::new(0.0, 0.0, 0.3))
        * DAffine3::from_rotation_y(0.7)
        * DAffine3::from_translation(DVec3::new(0.0, 0.0, 0.3 + 0.1))
        * DAffine3::from_translation(DVec3::new(0.0, 0.0, 0.05))
        * DAffine3::from_rotation_z(core::f64::consts::PI);
    assert!(close(&poses[t.link_index("tool").unwrap()], &tool, 1e-12));

    let planar = DAffine3::from_translation(DVec3::new(1.0 + 0.2, -0.1, 0.0))
        * DAffine3::from_rotation_z(0.5);
    assert!(close(
        &poses[t.link_index("planar_link").unwrap()],
        &planar,
        1e-12
    ));
    let ball = DAffine3::from_translation(DVec3::new(0.3, 1.2, 0.1 + 0.2));
    assert!(close(
        &poses[t.link_index("ball_link").unwrap()],
        &ball,
        1e-12
    ));
}

#[test]
fn geometry_prefers_collision_and_falls_back_to_visual() {
    let m = all_joints();
    let t = m.tree();
    let g = |link: &str| m.link_geometry(t.link_index(link).unwrap()).unwrap();
    let dir = fixtures();

    let base = g("base");
    assert_eq!(base.source, GeometrySource::Collision);
    assert_eq!(base.elements.len(), 1);
    assert_eq!(base.elements[0].name.as_deref(), Some("base_box"));
    assert!(
        base.elements[0]
            .origin
            .abs_diff_eq(DAffine3::from_translation(DVec3::new(0.0, 0.0, 0.05)), 0.0)
    );
    assert_eq!(
        base.elements[0].shape,
        GeometryShape::Box {
            size: DVec3::new(0.4, 0.3, 0.1)
        }
    );

    let torso = g("torso");
    assert_eq!(torso.source, GeometrySource::Collision);
    assert_eq!(
        torso.elements[0].shape,
        GeometryShape::Cylinder {
            radius: 0.08,
            length: 0.4
        }
    );
    assert_eq!(
        torso.elements[1].shape,
        GeometryShape::Mesh {
            path: dir.join("meshes/torso.stl"),
            scale: DVec3::new(0.001, 0.001, 0.002),
        }
    );
    let expected = DAffine3 {
        matrix3: rpy_rotation(0.1, 0.2, 0.3),
        translation: DVec3::new(0.01, 0.02, 0.03),
    };
    assert!(torso.elements[1].origin.abs_diff_eq(expected, 1e-15));

    let shoulder = g("shoulder");
    assert_eq!(shoulder.source, GeometrySource::Visual);
    assert_eq!(
        shoulder.elements[0].shape,
        GeometryShape::Mesh {
            path: PathBuf::from("/pkgs/description/meshes/shoulder.dae"),
            scale: DVec3::ONE,
        }
    );

    let arm = g("upper_arm");
    assert_eq!(
        arm.elements[0].shape,
        GeometryShape::Sphere { radius: 0.06 }
    );
    assert_eq!(
        arm.elements[1].shape,
        GeometryShape::Capsule {
            radius: 0.04,
            length: 0.3
        }
    );
    assert_eq!(
        g("slider").elements[0].shape,
        GeometryShape::Mesh {
            path: PathBuf::from("/opt/meshes/slider.obj"),
            scale: DVec3::ONE,
        }
    );
    // A package not in the map resolves under the package root.
    assert_eq!(
        g("planar_link").elements[0].shape,
        GeometryShape::Mesh {
            path: PathBuf::from("/ws/share/other_pkg/meshes/cart.stl"),
            scale: DVec3::ONE,
        }
    );
    for empty in ["tool", "floating_link"] {
        assert_eq!(g(empty).source, GeometrySource::None);
        assert!(g(empty).elements.is_empty());
    }
    let ball = g("ball_link");
    assert_eq!(ball.source, GeometrySource::Visual);
    assert_eq!(
        ball.elements[0].shape,
        GeometryShape::Sphere { radius: 0.02 }
    );
    assert_eq!(m.geometry().len(), t.len());
    assert!(matches!(
        m.link_geometry(t.len()),
        Err(KinematicsError::LinkIndex { index: 9, len: 9 })
    ));
}

#[test]
fn mesh_paths_follow_the_options() {
    let xml = std::fs::read_to_string(fixture("all_joints.urdf")).unwrap();
    let torso_mesh = |m: &UrdfModel| {
        let i = m.tree().link_index("torso").unwrap();
        match &m.geometry()[i].elements[1].shape {
            GeometryShape::Mesh { path, .. } => path.clone(),
            other => panic!("not a mesh: {other:?}"),
        }
    };
    // From a string without a root directory, relative paths stay relative.
    let m = UrdfModel::from_str_with(&xml, "<string>", &packages()).unwrap();
    assert_eq!(torso_mesh(&m), PathBuf::from("meshes/torso.stl"));
    // An explicit root directory wins, for strings and files.
    let opts = packages().with_root_dir("/data/robot");
    let m = UrdfModel::from_str_with(&xml, "<string>", &opts).unwrap();
    assert_eq!(
        torso_mesh(&m),
        PathBuf::from("/data/robot/meshes/torso.stl")
    );
    let m = UrdfModel::from_file_with(fixture("all_joints.urdf"), &opts).unwrap();
    assert_eq!(
        torso_mesh(&m),
        PathBuf::from("/data/robot/meshes/torso.stl")
    );
    // The first matching package entry wins over the package root.
    let opts = UrdfOptions::default()
        .with_package_dir("other_pkg", "/a")
        .with_package_dir("other_pkg", "/b")
        .with_package_dir("armature_description", "/c")
        .with_package_root("/root");
    let m = UrdfModel::from_str_with(&xml, "<string>", &opts).unwrap();
    let i = m.tree().link_index("planar_link").unwrap();
    assert_eq!(
        m.geometry()[i].elements[0].shape,
        GeometryShape::Mesh {
            path: PathBuf::from("/a/meshes/cart.stl"),
            scale: DVec3::ONE
        }
    );
}

fn one_mesh(filename: &str) -> String {
    format!(
        r#"<robot name="m"><link name="base"><collision><geometry>
           <mesh filename="{filename}"/></geometry></collision></link></robot>"#
    )
}

#[test]
fn unresolvable_mesh_paths_are_typed_errors() {
    // Default options know no package.
    let err = UrdfModel::from_file(fixture("all_joints.urdf")).unwrap_err();
    match err {
        KinematicsError::UrdfMeshPath { link, filename, .. } => {
            assert_eq!(link, "shoulder");
            assert_eq!(
                filename,
                "package://armature_description/meshes/shoulder.dae"
            );
        }
        other => panic!("unexpected {other:?}"),
    }
    // The package root would resolve any package: without it, unknown.
    let err = UrdfModel::from_file(fixture("unknown_package.urdf")).unwrap_err();
    assert!(
        matches!(&err, KinematicsError::UrdfMeshPath { filename, .. } if filename == "package://nowhere/meshes/base.stl"),
        "{err:?}"
    );
    for filename in [
        "https://example.com/base.stl",
        "package://",
        "package://only_name",
        "package:///meshes/x.stl",
        "file://",
        "",
    ] {
        let err = UrdfModel::from_str_with(&one_mesh(filename), "m.urdf", &packages())
            .expect_err(filename);
        assert!(
            matches!(&err, KinematicsError::UrdfMeshPath { link, filename: f, .. } if link == "base" && f == filename),
            "{filename}: {err:?}"
        );
        assert!(err.to_string().contains("m.urdf"), "{err}");
    }
}

#[test]
fn configuration_order_puts_each_link_after_its_parent() {
    // `wrist` comes first in the file but its parent is placed by `elbow`.
    let xml = r#"<robot name="r">
      <link name="base"/><link name="upper"/><link name="fore"/><link name="hand"/>
      <joint name="wrist" type="continuous"><parent link="fore"/><child link="hand"/></joint>
      <joint name="shoulder" type="continuous"><parent link="base"/><child link="upper"/></joint>
      <joint name="elbow" type="continuous"><parent link="upper"/><child link="fore"/></joint>
    </robot>"#;
    let m = UrdfModel::from_str(xml, "r.urdf").unwrap();
    assert_eq!(
        m.joint_names().collect::<Vec<_>>(),
        ["shoulder", "elbow", "wrist"]
    );
    // The root need not be the first link in the file.
    let xml = r#"<robot name="r">
      <link name="arm"/><link name="base"/>
      <joint name="j" type="fixed"><parent link="base"/><child link="arm"/></joint>
    </robot>"#;
    let m = UrdfModel::from_str(xml, "r.urdf").unwrap();
    assert_eq!(m.tree().links()[0].name(), "base");
    assert_eq!(m.joint_names().count(), 0);
    // A single link is a valid robot.
    let m = UrdfModel::from_str(r#"<robot name="one"><link name="only"/></robot>"#, "s").unwrap();
    assert_eq!(m.tree().len(), 1);
}

#[test]
fn urdf_1_2_omitted_limits_mean_unlimited() {
    let xml = r#"<robot name="r" version="1.2">
      <link name="base"/><link name="arm"/><link name="hand"/>
      <joint name="a" type="revolute"><parent link="base"/><child link="arm"/>
        <axis xyz="0 0 1"/><limit effort="1" velocity="1"/></joint>
      <joint name="b" type="revolute"><parent link="arm"/><child link="hand"/>
        <axis xyz="0 0 1"/><limit lower="-1" effort="1" velocity="1"/></joint>
    </robot>"#;
    let m = UrdfModel::from_str(xml, "r.urdf").unwrap();
    let t = m.tree();
    assert_eq!(t.links()[1].joint().limits, None);
    assert_eq!(
        t.links()[2].joint().limits,
        Some(JointLimits::new(-1.0, f64::INFINITY))
    );
}

#[test]
fn syntax_and_schema_errors_carry_the_parser_message() {
    let path = fixture("malformed_xml.urdf");
    let err = UrdfModel::from_file(&path).unwrap_err();
    match &err {
        KinematicsError::Urdf {
            source_name,
            message,
        } => {
            assert_eq!(source_name, &path.display().to_string());
            assert!(!message.is_empty());
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(err.to_string().contains("malformed_xml.urdf"));
    let err = load("unknown_joint_type.urdf");
    assert!(
        matches!(&err, KinematicsError::Urdf { message, .. } if message.contains("helical")),
        "{err:?}"
    );
    for text in [
        "",
        "not xml at all",
        "<robot",
        "<robot name=\"x\"><link/></robot>",
    ] {
        let err = UrdfModel::from_str(text, "<string>").unwrap_err();
        assert!(
            matches!(&err, KinematicsError::Urdf { source_name, .. } if source_name == "<string>"),
            "{text:?}: {err:?}"
        );
    }
}

#[test]
fn missing_file_names_its_path() {
    let path = fixture("no_such_robot.urdf");
    let err = UrdfModel::from_file(&path).unwrap_err();
    match &err {
        KinematicsError::UrdfFile { path: p, message } => {
            assert_eq!(p, &path);
            assert!(!message.is_empty());
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(err.to_string().contains("no_such_robot.urdf"));
    // A directory is not a file either.
    assert!(matches!(
        UrdfModel::from_file(fixtures()),
        Err(KinematicsError::UrdfFile { .. })
    ));
}

#[test]
fn link_errors_name_the_joint_and_link() {
    match load("unknown_parent.urdf") {
        KinematicsError::UrdfUnknownLink {
            joint, role, link, ..
        } => assert_eq!(
            (joint.as_str(), role, link.as_str()),
            ("shoulder", "parent", "bsae")
        ),
        other => panic!("unexpected {other:?}"),
    }
    match load("unknown_child.urdf") {
        KinematicsError::UrdfUnknownLink {
            joint, role, link, ..
        } => assert_eq!(
            (joint.as_str(), role, link.as_str()),
            ("elbow", "child", "forearm")
        ),
        other => panic!("unexpected {other:?}"),
    }
    match load("two_parents.urdf") {
        KinematicsError::UrdfTwoParents {
            link,
            first,
            second,
            ..
        } => assert_eq!(
            (link.as_str(), first.as_str(), second.as_str()),
            ("hand", "wrist", "shortcut")
        ),
        other => panic!("unexpected {other:?}"),
    }
    match load("two_roots.urdf") {
        KinematicsError::UrdfRoots { roots, .. } => assert_eq!(roots, ["base", "table"]),
        other => panic!("unexpected {other:?}"),
    }
    match load("no_root.urdf") {
        KinematicsError::UrdfRoots { roots, .. } => assert!(roots.is_empty()),
        other => panic!("unexpected {other:?}"),
    }
    // A root exists, but two other links are each other's parent.
    match load("cycle.urdf") {
        KinematicsError::UrdfJoint { joint, reason, .. } => {
            assert!(joint == "ab" || joint == "ba", "{joint}");
            assert!(
                matches!(*reason, KinematicsError::Cycle { .. }),
                "{reason:?}"
            );
        }
        other => panic!("unexpected {other:?}"),
    }
    match load("duplicate_link.urdf") {
        KinematicsError::UrdfModel { reason, .. } => assert_eq!(
            *reason,
            KinematicsError::DuplicateLink { name: "arm".into() }
        ),
        other => panic!("unexpected {other:?}"),
    }
    match load("duplicate_joint.urdf") {
        KinematicsError::UrdfDuplicateJoint { joint, .. } => assert_eq!(joint, "j"),
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn joint_errors_name_the_joint() {
    match load("mimic.urdf") {
        KinematicsError::UrdfMimicJoint {
            joint, mimicked, ..
        } => assert_eq!(
            (joint.as_str(), mimicked.as_str()),
            ("right_finger_joint", "left_finger_joint")
        ),
        other => panic!("unexpected {other:?}"),
    }
    match load("missing_limit.urdf") {
        KinematicsError::UrdfMissingLimits { joint, kind, .. } => {
            assert_eq!((joint.as_str(), kind), ("shoulder", "revolute"));
        }
        other => panic!("unexpected {other:?}"),
    }
    match load("zero_axis.urdf") {
        KinematicsError::UrdfJoint { joint, reason, .. } => {
            assert_eq!(joint, "shoulder");
            assert!(
                matches!(&*reason, KinematicsError::BadAxis { link, x, y, z } if link == "arm" && [*x, *y, *z] == [0.0; 3]),
                "{reason:?}"
            );
        }
        other => panic!("unexpected {other:?}"),
    }
    for (file, field) in [
        ("nan_origin.urdf", "origin.translation"),
        ("nan_rpy.urdf", "origin.rotation"),
    ] {
        match load(file) {
            KinematicsError::UrdfJoint { joint, reason, .. } => {
                assert_eq!(joint, "shoulder");
                assert!(
                    matches!(&*reason, KinematicsError::NotFinite { link, field: f, .. } if link == "arm" && *f == field),
                    "{reason:?}"
                );
            }
            other => panic!("{file}: unexpected {other:?}"),
        }
    }
    match load("inverted_limits.urdf") {
        KinematicsError::UrdfJoint { joint, reason, .. } => {
            assert_eq!(joint, "rail");
            assert_eq!(
                *reason,
                KinematicsError::InvalidLimits {
                    link: "carriage".into(),
                    lower: 0.5,
                    upper: -0.5
                }
            );
        }
        other => panic!("unexpected {other:?}"),
    }
    let err = load("zero_axis.urdf");
    let text = err.to_string();
    assert!(
        text.contains("zero_axis.urdf") && text.contains("shoulder"),
        "{text}"
    );
}

#[test]
fn geometry_errors_name_the_element() {
    match load("nan_geometry.urdf") {
        KinematicsError::UrdfGeometry {
            link,
            element,
            index,
            reason,
            ..
        } => {
            assert_eq!((link.as_str(), element, index), ("base", "collision", 1));
            assert!(
                matches!(&*reason, KinematicsError::NotFinite { field, value, .. } if *field == "origin.xyz" && value.is_nan()),
                "{reason:?}"
            );
        }
        other => panic!("unexpected {other:?}"),
    }
    match load("negative_radius.urdf") {
        KinematicsError::UrdfGeometry {
            link,
            element,
            index,
            reason,
            ..
        } => {
            assert_eq!((link.as_str(), element, index), ("base", "visual", 0));
            assert!(
                matches!(&*reason, KinematicsError::OutOfRange { field, .. } if *field == "radius"),
                "{reason:?}"
            );
        }
        other => panic!("unexpected {other:?}"),
    }
    let xml = one_mesh("a.stl").replace("filename", "scale=\"1 inf 1\" filename");
    let err = UrdfModel::from_str(&xml, "s").unwrap_err();
    assert!(
        matches!(&err, KinematicsError::UrdfGeometry { reason, .. } if matches!(**reason, KinematicsError::NotFinite { field: "scale", .. })),
        "{err:?}"
    );
}

#[test]
fn deeply_nested_documents_are_errors_not_crashes() {
    use armature_kinematics::urdf::MAX_NESTING;
    let nested = |depth: usize| {
        format!(
            "<robot name=\"deep\"><link name=\"a\"/>{}{}</robot>",
            "<extra>".repeat(depth),
            "</extra>".repeat(depth)
        )
    };
    // Unknown elements are ignored: just under the limit parses.
    let m = UrdfModel::from_str(&nested(MAX_NESTING - 1), "deep.urdf").unwrap();
    assert_eq!(m.tree().len(), 1);
    for depth in [MAX_NESTING, 2_000, 100_000] {
        let err = UrdfModel::from_str(&nested(depth), "deep.urdf").unwrap_err();
        assert!(
            matches!(&err, KinematicsError::Urdf { message, .. } if message.contains("nested")),
            "{depth}: {err:?}"
        );
    }
    // Comments, CDATA, processing instructions and quoted `>` do not count.
    let xml = format!(
        "<?xml version=\"1.0\"?><!DOCTYPE robot><robot name=\"r\"><!-- {} --><![CDATA[{}]]>\
         <link name=\"a>b\"/></robot>",
        "<x>".repeat(200),
        "<y>".repeat(200)
    );
    let m = UrdfModel::from_str(&xml, "r.urdf").unwrap();
    assert_eq!(m.tree().links()[0].name(), "a>b");
}

/// All fixture texts, the well-formed one first.
fn fixture_texts() -> Vec<String> {
    let mut names: Vec<_> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "urdf"))
        .collect();
    names.sort();
    names.sort_by_key(|p| !p.ends_with("all_joints.urdf"));
    names
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

#[derive(Clone, Debug)]
enum Mutation {
    Set(usize, u8),
    FlipBit(usize, u8),
    Delete(usize, usize),
    Duplicate(usize, usize),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (
            any::<usize>(),
            prop::sample::select(b"<>/=\"' \n&!?-x0.9eE+-naif".to_vec())
        )
            .prop_map(|(i, b)| Mutation::Set(i, b)),
        (any::<usize>(), 0u8..8).prop_map(|(i, b)| Mutation::FlipBit(i, b)),
        (any::<usize>(), 1usize..40).prop_map(|(i, n)| Mutation::Delete(i, n)),
        (any::<usize>(), 1usize..200).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    if bytes.is_empty() {
        return;
    }
    let at = |i: usize| i % bytes.len();
    match *m {
        Mutation::Set(i, b) => {
            let i = at(i);
            bytes[i] = b;
        }
        Mutation::FlipBit(i, b) => {
            let i = at(i);
            bytes[i] ^= 1 << b;
        }
        Mutation::Delete(i, n) => {
            let i = at(i);
            let end = (i + n).min(bytes.len());
            bytes.drain(i..end);
        }
        Mutation::Duplicate(i, n) => {
            let i = at(i);
            let end = (i + n).min(bytes.len());
            let chunk = bytes[i..end].to_vec();
            bytes.splice(i..i, chunk);
        }
        Mutation::Truncate(i) => {
            let i = at(i);
            bytes.truncate(i);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    /// Any mutation of a fixture gives a model or a typed error, never a
    /// panic; a model that loads is a valid tree.
    #[test]
    fn mutated_documents_never_panic(
        which in any::<prop::sample::Index>(),
        mutations in prop::collection::vec(mutation(), 1..6),
    ) {
        let texts = fixture_texts();
        // Half of the cases mutate the well-formed fixture.
        let text = if which.index(2) == 0 { &texts[0] } else { which.get(&texts) };
        let mut bytes = text.clone().into_bytes();
        for m in &mutations {
            apply(&mut bytes, m);
        }
        let xml = String::from_utf8_lossy(&bytes);
        match UrdfModel::from_str_with(&xml, "mutated.urdf", &packages()) {
            Ok(m) => {
                let q = m.tree().neutral_configuration();
                prop_assert!(m.tree().poses(&q).is_ok());
                prop_assert_eq!(m.geometry().len(), m.tree().len());
            }
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }
}

/// urdf-rs's XML reader accepts this document (a self-closing root whose
/// attribute `://per` it binds to the default namespace, then trailing
/// text) and then panics writing it back out: "No namespace prefix bound".
/// It is not well-formed XML, and is rejected as such before urdf-rs sees
/// it, with the place of the fault. (Found by `fuzz_urdf`.)
#[test]
fn attributes_in_a_default_namespace_without_prefix_are_an_error_not_a_panic() {
    let xml = "<t xmlns=\"/2\"://per=\"ulder\" type=\"revolute\"/>\n    <origin xyz=\"0 0 0.1\"/>\
               <axis~ xyz=\"0name\"/>\n    <limit Axmlns=\"-=\"://per=\"2\" effort=\"1e\">\n\n  </joint>\n</robot>\n";
    let err = UrdfModel::from_str(xml, "fuzzed.urdf").unwrap_err();
    match &err {
        KinematicsError::Urdf {
            source_name,
            message,
        } => {
            assert_eq!(source_name, "fuzzed.urdf");
            assert!(message.starts_with("not well-formed XML"), "{message}");
            // The fault: `:` right after the first attribute's value.
            assert!(message.ends_with("at 1:14"), "no place in {message}");
        }
        other => panic!("unexpected {other:?}"),
    }
}

/// Well-formed namespaced documents still load: a xacro namespace
/// declared on the robot and used on an element urdf-rs drops, and the
/// predefined `xml:` prefix on a link.
#[test]
fn namespaced_well_formed_documents_still_load() {
    let xml = r#"<?xml version="1.0"?>
<!DOCTYPE robot>
<robot name="ns" xmlns:xacro="http://www.ros.org/wiki/xacro">
  <xacro:property name="l" value="1"/>
  <link name="base" xml:lang="en"/>
  <link name="arm"/>
  <joint name="j" type="revolute">
    <parent link="base"/>
    <child link="arm"/>
    <axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>
  </joint>
</robot>
"#;
    let model = UrdfModel::from_str(xml, "ns.urdf").expect("a well-formed namespaced URDF");
    assert_eq!(model.tree().len(), 2);
}
