//! What ROS robot packages bring: SRDF files whose `<disable_collisions>`
//! pairs are disabled exactly like `disabled_pairs` entries, and COLLADA
//! meshes reached through `package://`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use armature::{CcdStatus, Error, Other, Pipeline, Scene};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

const HOME: [f64; 3] = [0.0, 0.0, 0.0];
const NEAR_HOME: [f64; 3] = [0.4, 0.3, 0.8];

/// The DH arm with neighbours tested and no SRDF: they collide at rest.
fn without_srdf() -> Scene {
    Scene::from_ron_str(
        r#"Scene(bodies: [Body(name: "dh", urdf: "robot/dh_arm.urdf")], skip_adjacent: false)"#,
        &fixtures(),
    )
    .expect("the scene without SRDF loads")
}

fn with_srdf() -> Scene {
    Scene::from_file(fixtures().join("dh_arm_srdf.ron")).expect("dh_arm_srdf.ron loads")
}

fn allowed_pairs(scene: &Scene) -> BTreeSet<(String, String)> {
    let n = scene.num_links();
    let mut out = BTreeSet::new();
    for a in 0..n {
        for b in a + 1..n {
            if scene.link_pair_allowed(a, b) {
                let (x, y) = (scene.link_name(a).unwrap(), scene.link_name(b).unwrap());
                out.insert((x.min(y).to_owned(), x.max(y).to_owned()));
            }
        }
    }
    out
}

fn link(scene: &Scene, name: &str) -> usize {
    (0..scene.num_links())
        .find(|&i| scene.link_name(i) == Some(name))
        .unwrap_or_else(|| panic!("no link {name}"))
}

#[test]
fn srdf_pairs_are_disabled_pairs() {
    let scene = with_srdf();
    let disabled = scene.disabled_pairs();
    for (a, b) in [
        ("base", "link1"),
        ("link1", "link2"),
        ("link2", "link3"),
        ("link2", "gripper_base"),
        ("finger_left", "link2"),
        ("link2", "finger_right"),
        // Frames without geometry may be named.
        ("link1_rot2", "link2_rot3"),
    ] {
        let (a, b) = (
            link(&scene, &format!("dh/{a}")),
            link(&scene, &format!("dh/{b}")),
        );
        assert!(disabled.links_disabled(a, b), "{a}-{b}");
        assert!(!scene.link_pair_allowed(a, b), "{a}-{b}");
    }
    assert!(!disabled.links_disabled(link(&scene, "dh/base"), link(&scene, "dh/link3")));
    // The same pairs written in `disabled_pairs` give the same rules.
    let by_hand = Scene::from_ron_str(
        r#"Scene(bodies: [Body(name: "dh", urdf: "robot/dh_arm.urdf")], skip_adjacent: false,
                 disabled_pairs: [("dh/base", "dh/link1"), ("dh/link1", "dh/link2"),
                                  ("dh/link2", "dh/link3"), ("dh/link2", "dh/gripper_base"),
                                  ("dh/finger_left", "dh/link2"), ("dh/link2", "dh/finger_right"),
                                  ("dh/link1_rot2", "dh/link2_rot3")])"#,
        &fixtures(),
    )
    .expect("the hand-written scene loads");
    assert_eq!(allowed_pairs(&scene), allowed_pairs(&by_hand));
    assert!(!allowed_pairs(&scene).is_empty());
}

#[test]
fn pairs_colliding_at_rest_are_no_longer_reported() {
    let pipeline = Pipeline::default();
    // Without the SRDF the neighbours overlap at rest.
    let bare = without_srdf();
    assert!(pipeline.check(&bare, &HOME).expect("check").colliding);
    let r = pipeline
        .first_contact(&bare, &HOME, &NEAR_HOME)
        .expect("query runs");
    assert_eq!(r.status, CcdStatus::CollidingAtStart, "{r:?}");

    let scene = with_srdf();
    let report = pipeline.check(&scene, &HOME).expect("check");
    assert!(
        !report.colliding,
        "{:?}",
        report.collision.map(|c| (scene.link_name(c.link), c.other))
    );
    assert!(report.distance > 0.0);
    assert!(!pipeline.collides(&scene, &HOME).expect("collides"));
    let r = pipeline
        .first_contact(&scene, &HOME, &NEAR_HOME)
        .expect("query runs");
    assert_eq!(r.status, CcdStatus::Free, "{r:?}");
}

/// The scene field error of a bad fixture, with its message.
fn srdf_error(name: &str) -> String {
    let path = fixtures().join("bad").join(format!("{name}.ron"));
    match Scene::from_file(&path) {
        Err(Error::SceneField {
            file: Some(file),
            field,
            message,
        }) => {
            assert_eq!(file, path);
            assert_eq!(field, "bodies[0].srdf");
            message
        }
        other => panic!("{name}: expected a field error, got {other:?}"),
    }
}

#[test]
fn unknown_srdf_link_is_an_error_naming_it() {
    let message = srdf_error("unknown_srdf_link");
    for words in [
        "unknown_link.srdf`:4:",
        r#"<disable_collisions link1="upper" link2="forearm">"#,
        "no link `forearm`",
        "arm.urdf",
    ] {
        assert!(message.contains(words), "`{words}` not in: {message}");
    }
}

#[test]
fn malformed_srdf_names_file_and_line() {
    let message = srdf_error("malformed_srdf");
    assert!(message.contains("malformed.srdf`:5:"), "{message}");
    assert!(message.contains("XML"), "{message}");
}

#[test]
fn missing_srdf_is_an_error() {
    let message = srdf_error("missing_srdf");
    assert!(message.contains("no_such_arm.srdf"), "{message}");
}

#[test]
fn srdf_entry_without_a_link_and_other_roots_are_errors() {
    let dir = std::env::temp_dir().join(format!("armature-srdf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let urdf = fixtures().join("robot/arm.urdf");
    for (srdf, words) in [
        (
            r#"<robot name="a"><disable_collisions link1="base"/></robot>"#,
            "has no `link2`",
        ),
        (r#"<model name="a"/>"#, "not an SRDF <robot>"),
        ("", "XML"),
        ("<robot name=\"a\">\0</robot>", "XML"),
    ] {
        std::fs::write(dir.join("r.srdf"), srdf).unwrap();
        let text = format!(
            r#"Scene(bodies: [Body(name: "arm", urdf: "{}", srdf: "r.srdf")])"#,
            urdf.display()
        );
        match Scene::from_ron_str(&text, &dir) {
            Err(Error::SceneField { field, message, .. }) => {
                assert_eq!(field, "bodies[0].srdf");
                assert!(message.contains(words), "{srdf:?}: {message}");
            }
            other => panic!("{srdf:?}: {other:?}"),
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn srdf_link_that_is_also_an_obstacle_is_an_error() {
    let text = r#"Scene(bodies: [Body(name: "dh", urdf: "robot/dh_arm.urdf", srdf: "robot/dh_arm.srdf")],
        obstacles: [Obstacle(name: "dh/link3", mesh: "env/crate.stl")])"#;
    match Scene::from_ron_str(text, &fixtures()) {
        Err(Error::SceneField { field, message, .. }) => {
            assert_eq!(field, "bodies[0].srdf");
            assert!(message.contains("`dh/link3` is both"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn collada_link_mesh_through_package_and_collada_obstacle() {
    let scene = Scene::from_file(fixtures().join("dae_bot.ron")).expect("dae_bot.ron loads");
    assert_eq!(scene.nq(), 1);
    assert_eq!(scene.obstacles().len(), 1);
    let pipeline = Pipeline::default();
    // In metres (centimetre and millimetre files): the arm's far side is
    // 0.4 from the post. Read as metres the arm would be 60 m long.
    let rest = pipeline.check(&scene, &[0.0]).expect("check");
    assert!(!rest.colliding);
    let closest = rest.closest.expect("a closest pair");
    assert_eq!(scene.link_name(closest.link), Some("bot/arm"));
    assert!(matches!(closest.other, Other::Obstacle(0)));
    assert!((rest.distance - 0.4).abs() <= 1e-6, "{}", rest.distance);
    // A quarter turn about z swings the arm through the post.
    let quarter = [std::f64::consts::FRAC_PI_2];
    assert!(pipeline.check(&scene, &quarter).expect("check").colliding);
    let r = pipeline
        .first_contact(&scene, &[0.0], &quarter)
        .expect("query runs");
    assert_eq!(r.status, CcdStatus::Collides, "{r:?}");
    let c = r.contact.expect("a contact");
    assert!(c.time > 0.0 && c.time < 1.0, "{c:?}");
    assert!(matches!(c.other, Other::Obstacle(0)));
}
