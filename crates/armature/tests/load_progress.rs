//! `Scene::from_file_with_progress` reports one step per body, one per
//! obstacle and the assembly, in order, and ends with every step done.

use armature::{LoadProgress, Scene};

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn progress_counts_every_step_in_order() {
    let mut seen: Vec<(usize, usize, String)> = Vec::new();
    let scene =
        Scene::from_file_with_progress(fixture("single.ron"), &mut |p: LoadProgress<'_>| {
            seen.push((p.done, p.total, p.current.to_owned()));
        })
        .expect("the fixture loads");
    assert_eq!(scene.obstacles().len(), 1);
    // One body, one obstacle, the assembly: three steps, four calls.
    let expected = [
        (0, 3, "body \"arm\" (robot/arm.urdf)"),
        (1, 3, "obstacle \"crate\" (env/crate.stl)"),
        (2, 3, "assembling the scene"),
        (3, 3, ""),
    ];
    assert_eq!(seen.len(), expected.len(), "{seen:?}");
    for ((d, t, c), (ed, et, ec)) in seen.iter().zip(expected) {
        assert_eq!((*d, *t, c.as_str()), (ed, et, ec), "{seen:?}");
    }
}

#[test]
fn a_failed_load_stops_reporting_and_names_the_error() {
    let mut calls = 0;
    let err = Scene::from_file_with_progress(fixture("does_not_exist.ron"), &mut |_| calls += 1)
        .expect_err("a missing file is an error");
    assert_eq!(calls, 0);
    assert!(err.to_string().contains("does_not_exist.ron"), "{err}");
}
