//! Adjacency by rigid groups on a robot written the way DH-derived URDFs
//! are: geometry-less frames on fixed joints between the links, a gripper
//! welded below the last link, every mesh overlapping its neighbour's at
//! the joint they share. At rest such an arm is free; folded so that a link
//! two joints away from the base hits it, it collides; with
//! `skip_adjacent: false` the neighbours are tested and collide at rest.
//! The continuous queries, the discrete check and the oracle test the same
//! pairs.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use armature::oracle::{Oracle, OracleOptions, Verdict};
use armature::{CcdStatus, Other, Pipeline, Scene};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The DH arm with the default rules.
fn dh_arm() -> Scene {
    Scene::from_file(fixtures().join("dh_arm.ron")).expect("dh_arm.ron loads")
}

/// The DH arm with adjacent links tested.
fn dh_arm_all_adjacent() -> Scene {
    Scene::from_ron_str(
        r#"Scene(bodies: [Body(name: "dh", urdf: "robot/dh_arm.urdf")], skip_adjacent: false)"#,
        &fixtures(),
    )
    .expect("the scene with skip_adjacent: false loads")
}

const HOME: [f64; 3] = [0.0, 0.0, 0.0];
/// A short motion from home that brings no two groups more than one joint
/// apart near each other.
const NEAR_HOME: [f64; 3] = [0.4, 0.3, 0.8];
/// Joint 2 folded down: link2 (two movable joints from the base) goes
/// through the base.
const FOLDED: [f64; 3] = [0.0, 2.6, 0.0];

/// The rigid groups of the fixture, by link name.
const GROUPS: [&[&str]; 4] = [
    &["base"],
    &["link1", "link1_rot2"],
    &["link2", "link2_rot3"],
    &[
        "link3",
        "flange",
        "gripper_base",
        "finger_left",
        "finger_right",
    ],
];

/// The group of a link (`dh/name`), by its position in [`GROUPS`].
fn group(scene: &Scene, link: usize) -> usize {
    let name = scene.link_name(link).expect("a link");
    let name = name.strip_prefix("dh/").expect("the body's prefix");
    GROUPS
        .iter()
        .position(|g| g.contains(&name))
        .expect("every link is in a group")
}

/// Link pairs the rules allow, by name.
fn allowed_pairs(scene: &Scene) -> BTreeSet<(String, String)> {
    let n = scene.num_links();
    let mut out = BTreeSet::new();
    for a in 0..n {
        for b in a + 1..n {
            if scene.link_pair_allowed(a, b) {
                out.insert(names(scene, a, b));
            }
        }
    }
    out
}

fn names(scene: &Scene, a: usize, b: usize) -> (String, String) {
    let (a, b) = (scene.link_name(a).unwrap(), scene.link_name(b).unwrap());
    (a.min(b).to_owned(), a.max(b).to_owned())
}

/// The link pairs of the oracle, by name.
fn oracle_pairs(scene: &Scene) -> BTreeSet<(String, String)> {
    let oracle = Oracle::new(scene, OracleOptions::default()).expect("oracle builds");
    oracle
        .pairs()
        .filter_map(|(a, other)| match other {
            Other::Link(b) => Some(names(scene, a, b)),
            Other::Obstacle(_) => None,
        })
        .collect()
}

fn set(pairs: &[(&str, &str)]) -> BTreeSet<(String, String)> {
    pairs
        .iter()
        .map(|(a, b)| {
            let (a, b) = (format!("dh/{a}"), format!("dh/{b}"));
            (a.clone().min(b.clone()), a.max(b))
        })
        .collect()
}

/// Pairs of links with geometry in groups at least two joints apart.
const FAR_PAIRS: [(&str, &str); 9] = [
    ("base", "link2"),
    ("base", "link3"),
    ("base", "gripper_base"),
    ("base", "finger_left"),
    ("base", "finger_right"),
    ("link1", "link3"),
    ("link1", "gripper_base"),
    ("link1", "finger_left"),
    ("link1", "finger_right"),
];

/// Pairs of links with geometry in groups joined by one movable joint.
const ADJACENT_PAIRS: [(&str, &str); 6] = [
    ("base", "link1"),
    ("link1", "link2"),
    ("link2", "link3"),
    ("link2", "gripper_base"),
    ("link2", "finger_left"),
    ("link2", "finger_right"),
];

#[test]
fn a_dh_arm_is_free_at_home() {
    let scene = dh_arm();
    let pipeline = Pipeline::default();
    let report = pipeline.check(&scene, &HOME).expect("check runs");
    assert!(
        !report.colliding,
        "home pose reported colliding: {:?} / {:?}",
        report.collision.map(|c| scene.link_name(c.link)),
        report.collision.map(|c| scene.other_name(c.other)),
    );
    assert!(report.distance > 0.0, "{report:?}");
    assert!(!pipeline.collides(&scene, &HOME).expect("collides runs"));
    let r = pipeline
        .first_contact(&scene, &HOME, &NEAR_HOME)
        .expect("query runs");
    assert_eq!(r.status, CcdStatus::Free, "{r:?}");
    let oracle = Oracle::new(&scene, OracleOptions::default()).expect("oracle builds");
    let verdict = oracle.verdict(&HOME, &NEAR_HOME).expect("oracle runs");
    assert!(matches!(verdict, Verdict::Free { .. }), "{verdict:?}");
    assert!(!oracle.judge(&r, &HOME, &NEAR_HOME).unwrap().is_defect());
}

#[test]
fn folding_onto_the_base_is_found() {
    let scene = dh_arm();
    let pipeline = Pipeline::default();
    let report = pipeline.check(&scene, &FOLDED).expect("check runs");
    let hit = report.collision.expect("the folded arm collides");
    let Other::Link(other) = hit.other else {
        panic!("no obstacle in this scene: {hit:?}");
    };
    // A real self-collision: groups at least two joints apart.
    assert!(
        group(&scene, hit.link).abs_diff(group(&scene, other)) >= 2,
        "{:?}",
        names(&scene, hit.link, other)
    );
    let r = pipeline
        .first_contact(&scene, &HOME, &FOLDED)
        .expect("query runs");
    assert_eq!(r.status, CcdStatus::Collides, "{r:?}");
    let c = r.contact.expect("a contact");
    let Other::Link(other) = c.other else {
        panic!("no obstacle in this scene: {c:?}");
    };
    assert!(group(&scene, c.link).abs_diff(group(&scene, other)) >= 2);
    assert!(c.time > 0.0 && c.time < 1.0, "{c:?}");
    let oracle = Oracle::new(&scene, OracleOptions::default()).expect("oracle builds");
    let verdict = oracle.verdict(&HOME, &FOLDED).expect("oracle runs");
    assert!(verdict.collides(), "{verdict:?}");
    let j = oracle.judge(&r, &HOME, &FOLDED).expect("judge runs");
    assert!(!j.is_defect(), "{j:?}");
}

#[test]
fn adjacent_groups_are_tested_when_asked() {
    let scene = dh_arm_all_adjacent();
    let pipeline = Pipeline::default();
    let report = pipeline.check(&scene, &HOME).expect("check runs");
    let hit = report
        .collision
        .expect("neighbours overlap at their joints");
    let Other::Link(other) = hit.other else {
        panic!("no obstacle in this scene: {hit:?}");
    };
    assert_eq!(
        group(&scene, hit.link).abs_diff(group(&scene, other)),
        1,
        "{:?}",
        names(&scene, hit.link, other)
    );
    assert!(pipeline.collides(&scene, &HOME).expect("collides runs"));
    let r = pipeline
        .first_contact(&scene, &HOME, &NEAR_HOME)
        .expect("query runs");
    assert_eq!(r.status, CcdStatus::CollidingAtStart, "{r:?}");
    let oracle = Oracle::new(&scene, OracleOptions::default()).expect("oracle builds");
    let verdict = oracle.verdict(&HOME, &NEAR_HOME).expect("oracle runs");
    assert!(
        matches!(
            verdict,
            Verdict::Collides {
                bracket: (0.0, 0.0),
                ..
            }
        ),
        "{verdict:?}"
    );
}

#[test]
fn every_query_tests_the_same_pairs() {
    let far = set(&FAR_PAIRS);
    let scene = dh_arm();
    assert_eq!(allowed_pairs(&scene), far);
    assert_eq!(oracle_pairs(&scene), far);
    let mut all = far;
    all.extend(set(&ADJACENT_PAIRS));
    // Links of one rigid group (link3 and the gripper) are never tested.
    let scene = dh_arm_all_adjacent();
    assert_eq!(allowed_pairs(&scene), all);
    assert_eq!(oracle_pairs(&scene), all);
    // The continuous query's rule count is the same set's size.
    for (scene, n) in [
        (dh_arm(), FAR_PAIRS.len()),
        (dh_arm_all_adjacent(), all.len()),
    ] {
        let r = Pipeline::default()
            .first_contact(&scene, &FOLDED, &FOLDED)
            .expect("query runs");
        assert_eq!(r.stats.pairs_total, n, "{r:?}");
    }
}
