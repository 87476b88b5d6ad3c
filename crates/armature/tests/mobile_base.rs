//! Mobile bases in scene files: `Body.mobile_base` inserts M3's location,
//! orientation and vehicle joints between the world and the URDF's root,
//! their values first in the body's configuration; bad fields are errors
//! naming them.

use std::path::{Path, PathBuf};

use armature::kinematics::JointType;
use armature::kinematics::joint::vehicle_transform;
use armature::{Error, Pipeline, Scene};
use glam::{DAffine3, DQuat, DVec3};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The fixture arm at `BASE` with `mobile_base` (RON, empty: none) and
/// the fixture crate.
fn scene_text(mobile_base: &str) -> String {
    let mobile = if mobile_base.is_empty() {
        String::new()
    } else {
        format!(",\n         mobile_base: {mobile_base}")
    };
    format!(
        "Scene(
    bodies: [
        Body(name: \"arm\", urdf: \"robot/arm.urdf\",
             base: Pose(translation: (0.1, -0.2, 0.05), rotation: (0.0, 0.0, 0.3826834323650898, 0.9238795325112867)){mobile}),
    ],
    obstacles: [Obstacle(name: \"crate\", mesh: \"env/crate.stl\", scale: 0.2,
                         pose: Pose(translation: (0.5, 0.0, 0.5), rotation: (0.0, 0.0, 0.0, 1.0)))],
)"
    )
}

/// The base pose of [`scene_text`]: 45° about z.
fn base() -> DAffine3 {
    DAffine3::from_rotation_translation(
        DQuat::from_rotation_z(core::f64::consts::FRAC_PI_4),
        DVec3::new(0.1, -0.2, 0.05),
    )
}

fn load(mobile_base: &str) -> Result<Scene, Error> {
    Scene::from_ron_str(&scene_text(mobile_base), &fixtures())
}

const OMNI: &str =
    "MobileBase(vehicle: Omni, location_uncertainty: 0.02, orientation_uncertainty: 0.01)";

#[test]
fn a_mobile_base_inserts_location_orientation_and_vehicle_above_the_platform() {
    let scene = load(OMNI).unwrap();
    let tree = scene.body().tree();
    let names: Vec<&str> = tree.links().iter().map(|l| l.name()).collect();
    assert_eq!(
        names[..4],
        ["arm/location", "arm/orientation", "arm/vehicle", "arm/base"]
    );
    for (i, parent) in [(0, None), (1, Some(0)), (2, Some(1)), (3, Some(2))] {
        assert_eq!(tree.links()[i].parent(), parent, "{}", names[i]);
    }
    assert_eq!(
        tree.links()[0].joint().kind,
        JointType::LocationUncertain { delta: 0.02 }
    );
    assert_eq!(
        tree.links()[1].joint().kind,
        JointType::OrientationUncertain { beta: 0.01 }
    );
    assert_eq!(tree.links()[2].joint().kind, JointType::OmniVehicle);
    // The base links carry no geometry; the arm's links keep theirs.
    let links = scene.body().links();
    assert!(links[..3].iter().all(Option::is_none));
    assert!(links[3].is_some());
    assert_eq!(scene.num_links(), 3 + 5);
    let plain = load("").unwrap();
    assert_eq!(scene.num_link_triangles(), plain.num_link_triangles());
}

#[test]
fn the_base_joints_come_first_in_the_configuration() {
    let scene = load(OMNI).unwrap();
    // Location 3, orientation 4 (quaternion), omni-vehicle 3, then the
    // arm's shoulder, elbow and wrist.
    assert_eq!(scene.nq(), 3 + 4 + 3 + 3);
    assert_eq!(scene.dof(), 3 + 3 + 3 + 3);
    assert_eq!(scene.bodies()[0].q, 0..13);
    let joints = scene.joints();
    let rows: Vec<(&str, &str, std::ops::Range<usize>)> = joints
        .iter()
        .map(|j| (j.name.as_str(), j.kind, j.q.clone()))
        .collect();
    assert_eq!(
        rows,
        [
            ("arm/location", "location-uncertain", 0..3),
            ("arm/orientation", "orientation-uncertain", 3..7),
            ("arm/vehicle", "omni-vehicle", 7..10),
            ("arm/shoulder", "revolute", 10..11),
            ("arm/elbow", "revolute", 11..12),
            ("arm/wrist_joint", "continuous", 12..13),
        ]
    );
    assert!(joints[..3].iter().all(|j| j.limits.is_none()));
    assert_eq!(joints[0].link, "arm/location");
    assert_eq!(
        scene.body().tree().neutral_configuration(),
        [
            0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
        ]
    );
    // A differential drive takes two values (s, α).
    let diff = load("MobileBase(vehicle: Differential)").unwrap();
    assert_eq!((diff.nq(), diff.dof()), (3 + 4 + 2 + 3, 3 + 3 + 2 + 3));
    assert_eq!(diff.joints()[2].kind, "vehicle");
    assert_eq!(diff.joints()[2].q, 7..9);
    // The count per body is in the length error.
    let e = scene
        .parse_configuration("q", "0, 0, 0, 0, 0, 0, 1")
        .unwrap_err();
    assert!(
        e.to_string().contains("expected 13 values (arm: 13)"),
        "{e}"
    );
}

#[test]
fn the_platform_moves_by_the_vehicle_arc_from_the_base_pose() {
    let scene = load(OMNI).unwrap();
    let tree = scene.body().tree();
    let platform = tree.link_index("arm/base").unwrap();
    let upper = tree.link_index("arm/upper").unwrap();
    let arc = (0.4, 1.3, -0.7);
    // Measured location and orientation at the base pose.
    let mut q = vec![
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, arc.0, arc.1, arc.2, 0.5, 0.0, 0.0,
    ];
    let poses = tree.poses(&q).unwrap();
    let expected = base() * vehicle_transform(arc.0, arc.1, arc.2);
    assert!(
        poses[platform].abs_diff_eq(expected, 1e-12),
        "{:?} vs {expected:?}",
        poses[platform]
    );
    // The arm's own joints below the platform are unchanged.
    let plain = load("").unwrap();
    let plain_tree = plain.body().tree();
    let plain_poses = plain_tree.poses(&[0.5, 0.0, 0.0]).unwrap();
    let rel = |p: &[DAffine3], i: usize, root: usize| p[root].inverse() * p[i];
    assert!(rel(&poses, upper, platform).abs_diff_eq(
        rel(
            &plain_poses,
            plain_tree.link_index("arm/upper").unwrap(),
            plain_tree.link_index("arm/base").unwrap()
        ),
        1e-12
    ));
    // A measured offset and tilt come before the arc, in the base's frame.
    let shift = DVec3::new(0.01, -0.015, 0.002);
    let tilt = DQuat::from_axis_angle(DVec3::new(1.0, 1.0, 0.0).normalize(), 0.008);
    q[..3].copy_from_slice(&shift.to_array());
    q[3..7].copy_from_slice(&tilt.to_array());
    let poses = tree.poses(&q).unwrap();
    let expected = base()
        * DAffine3::from_translation(shift)
        * DAffine3::from_quat(tilt)
        * vehicle_transform(arc.0, arc.1, arc.2);
    assert!(poses[platform].abs_diff_eq(expected, 1e-12));
    // At the neutral configuration the platform stands at the base pose,
    // as it does without a mobile base.
    let poses = tree.poses(&tree.neutral_configuration()).unwrap();
    assert!(poses[platform].abs_diff_eq(base(), 1e-12));
}

#[test]
fn discrete_checks_see_the_mounted_body_where_the_plain_one_stands() {
    let pipeline = Pipeline::default();
    let mobile = load(OMNI).unwrap();
    let plain = load("").unwrap();
    for arm in [[0.0, 0.0, 0.0], [0.6, -1.0, 0.0], [1.2, 0.4, 2.0]] {
        let mut q = mobile.body().tree().neutral_configuration();
        q[10..].copy_from_slice(&arm);
        let a = pipeline.check(&mobile, &q).unwrap();
        let b = pipeline.check(&plain, &arm).unwrap();
        assert_eq!(a.colliding, b.colliding, "{arm:?}");
        assert!((a.distance - b.distance).abs() < 1e-9, "{arm:?}");
    }
    // Driving the platform straight (α = 0) under the crate puts the
    // upper arm into it: the heading φ is in the base's frame, turned 45°.
    let to_crate = DVec3::new(0.5, 0.0, 0.0) - base().translation;
    let phi = to_crate.y.atan2(to_crate.x) - core::f64::consts::FRAC_PI_4;
    let mut q = mobile.body().tree().neutral_configuration();
    q[7..10].copy_from_slice(&[phi, to_crate.truncate().length(), 0.0]);
    let report = pipeline.check(&mobile, &q).unwrap();
    assert!(report.colliding, "{report:?}");
    let hit = report.collision.unwrap();
    assert_eq!(mobile.link_name(hit.link), Some("arm/upper"));
}

#[test]
fn zero_uncertainties_only_place_the_body() {
    for text in [
        "MobileBase(vehicle: Omni)",
        "MobileBase(vehicle: Omni, location_uncertainty: 0.0, orientation_uncertainty: 0.0)",
        // The explicit `Some(…)` of an optional field reads the same.
        "Some(MobileBase(vehicle: Omni))",
    ] {
        let scene = load(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let tree = scene.body().tree();
        assert_eq!(
            tree.links()[0].joint().kind,
            JointType::LocationUncertain { delta: 0.0 },
            "{text}"
        );
        assert_eq!(
            tree.links()[1].joint().kind,
            JointType::OrientationUncertain { beta: 0.0 },
            "{text}"
        );
    }
}

/// Asserts a [`Error::SceneField`] naming `field` with `words`.
fn field_error(mobile_base: &str, field: &str, words: &str) {
    match load(mobile_base) {
        Err(Error::SceneField {
            field: f, message, ..
        }) => {
            assert_eq!(f, field, "{mobile_base}: {message}");
            assert!(message.contains(words), "{mobile_base}: {message}");
        }
        other => panic!("{mobile_base}: expected a field error, got {other:?}"),
    }
}

#[test]
fn bad_values_are_errors_naming_the_field() {
    let at = "bodies[0].mobile_base";
    field_error(
        "MobileBase(vehicle: Omni, location_uncertainty: -0.01)",
        &format!("{at}.location_uncertainty"),
        "-0.01 is not a finite distance ≥ 0",
    );
    field_error(
        "MobileBase(vehicle: Omni, location_uncertainty: inf)",
        &format!("{at}.location_uncertainty"),
        "inf",
    );
    field_error(
        "MobileBase(vehicle: Omni, orientation_uncertainty: NaN)",
        &format!("{at}.orientation_uncertainty"),
        "NaN is not an angle in [0, π]",
    );
    field_error(
        "MobileBase(vehicle: Omni, orientation_uncertainty: 3.2)",
        &format!("{at}.orientation_uncertainty"),
        "3.2",
    );
    field_error(
        "MobileBase(vehicle: Omni, orientation_uncertainty: -0.1)",
        &format!("{at}.orientation_uncertainty"),
        "-0.1",
    );
    field_error(
        "MobileBase(vehicle: Tank)",
        &format!("{at}.vehicle"),
        "unknown vehicle `Tank`; expected `Omni` (values φ, s, α) or `Differential` (s, α)",
    );
    // The index is the body's.
    let text = scene_text("").replace(
        "    ],\n    obstacles",
        "        Body(name: \"second\", urdf: \"robot/arm.urdf\",\n             \
         mobile_base: MobileBase(vehicle: Differential, location_uncertainty: -1.0)),\n    ],\n    obstacles",
    );
    let e = Scene::from_ron_str(&text, &fixtures()).unwrap_err();
    assert!(
        matches!(&e, Error::SceneField { field, .. }
            if field == "bodies[1].mobile_base.location_uncertainty"),
        "{e}"
    );
}

#[test]
fn a_urdf_link_named_like_a_base_link_is_an_error_of_the_mobile_base() {
    let dir = std::env::temp_dir().join(format!("armature-mobile-base-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("cart.urdf"),
        "<robot name=\"cart\"><link name=\"vehicle\"><collision><geometry>\
         <box size=\"0.2 0.2 0.2\"/></geometry></collision></link></robot>",
    )
    .unwrap();
    let e = Scene::from_ron_str(
        "Scene(bodies: [Body(name: \"c\", urdf: \"cart.urdf\", mobile_base: MobileBase(vehicle: Omni))])",
        &dir,
    )
    .unwrap_err();
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        matches!(&e, Error::SceneField { field, message, .. }
            if field == "bodies[0].mobile_base" && message.contains("duplicate link name `vehicle`")),
        "{e}"
    );
}

#[test]
fn unknown_and_missing_fields_are_syntax_errors_naming_them() {
    match load("MobileBase(vehicle: Omni, wheels: 4)") {
        Err(Error::SceneSyntax { field, message, .. }) => {
            assert_eq!(field.as_deref(), Some("wheels"), "{message}");
            assert!(message.contains("MobileBase"), "{message}");
        }
        other => panic!("expected a syntax error, got {other:?}"),
    }
    match load("MobileBase(location_uncertainty: 0.1)") {
        Err(Error::SceneSyntax { field, message, .. }) => {
            assert_eq!(field.as_deref(), Some("vehicle"), "{message}");
        }
        other => panic!("expected a syntax error, got {other:?}"),
    }
    // A vehicle is a bare name, not a string.
    assert!(matches!(
        load("MobileBase(vehicle: \"Omni\")"),
        Err(Error::SceneSyntax { .. })
    ));
}

#[test]
fn continuous_queries_drive_the_base_and_penetration_depth_names_the_joint() {
    use armature::advance::CcdStatus;
    let pipeline = Pipeline::default();
    let mobile = load(OMNI).unwrap();
    let q0 = mobile.body().tree().neutral_configuration();
    // The in-between motion of the arc's values drives the upper arm into
    // the crate (as in the discrete test above).
    let to_crate = DVec3::new(0.5, 0.0, 0.0) - base().translation;
    let phi = to_crate.y.atan2(to_crate.x) - core::f64::consts::FRAC_PI_4;
    let mut q1 = q0.clone();
    q1[7..10].copy_from_slice(&[phi, to_crate.truncate().length(), 0.0]);
    let report = pipeline.first_contact(&mobile, &q0, &q1).unwrap();
    assert_eq!(report.status, CcdStatus::Collides, "{report:?}");
    assert!(report.toc_lower_bound > 0.0 && report.toc_lower_bound < 1.0);
    let path = pipeline
        .check_path(&mobile, &[q0.clone(), q1.clone()])
        .unwrap();
    assert_eq!(
        path.status,
        armature::bisection::PathStatus::Collides,
        "{path:?}"
    );
    // Turning on the spot (s = 0) is free.
    let mut turn = q0.clone();
    turn[9] = 1.0;
    let report = pipeline.first_contact(&mobile, &q0, &turn).unwrap();
    assert_eq!(report.status, CcdStatus::Free, "{report:?}");
    // The object norm of penetration depth has no measure for the base
    // joints: a typed error naming the first one.
    let e = pipeline.penetration_depth(&mobile, &q1).unwrap_err();
    assert!(
        matches!(&e, Error::PenetrationDepth(_)) && e.to_string().contains("arm/location"),
        "{e}"
    );
}
