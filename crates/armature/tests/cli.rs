//! The `armature` command line run as a program on the fixture scenes:
//! JSON answers (snapshots, timings redacted), text answers, exit statuses
//! and error messages.
//!
//! Configurations used (see `armature info` on the fixtures):
//! - `single.ron`: one arm, the crate's near face at x = 0.5, bottom at
//!   z = 0.5. `0,0,0` is free (the wrist 0.15 from the crate);
//!   `0.6,-1,0` lifts the forearm into the crate.
//! - `cell.ron`: two arms facing each other 1.2 apart; the crate and block
//!   are out of their reach. Both shoulders and elbows at `±0.8` leave the
//!   forearms 0.076 apart; at `±1.2` a forearm and the other wrist overlap.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

const CELL: &str = "tests/fixtures/cell.ron";
const SINGLE: &str = "tests/fixtures/single.ron";
const CELL_HOME: &str = "0,0,0,0,0,0";
const CELL_NEAR: &str = "0.8,-0.8,0,0.8,-0.8,0";
const CELL_CROSSED: &str = "1.2,-1.2,0,1.2,-1.2,0";
const SINGLE_INTO_CRATE: &str = "0.6,-1,0";

/// Runs the binary from the package root (paths in answers are then the
/// relative ones given).
fn armature(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_armature"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the armature binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs a command that must succeed and print one JSON object.
fn json(args: &[&str]) -> Value {
    let o = armature(args);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    let text = stdout(&o);
    assert_eq!(text.lines().count(), 1, "one line of JSON: {text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?}: {e}: {text}"))
}

/// The answer with every timing (`*_ms`) replaced by a placeholder and
/// every other float rounded to 9 significant digits (the last bits of a
/// contact point are not part of the contract), as pretty JSON.
fn redacted(v: &Value) -> String {
    fn walk(v: &mut Value) {
        match v {
            Value::Object(map) => {
                for (k, v) in map.iter_mut() {
                    if k.ends_with("_ms") {
                        assert!(v.as_f64().is_some_and(|t| t >= 0.0), "{k} = {v}");
                        *v = Value::String("[ms]".to_owned());
                    } else {
                        walk(v);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            Value::Number(n) if n.is_f64() => {
                let x = n.as_f64().unwrap_or(f64::NAN);
                let rounded: f64 = format!("{x:.8e}").parse().unwrap_or(x);
                // `-0` and `0` are the same answer.
                let rounded = if rounded == 0.0 { 0.0 } else { rounded };
                *v = serde_json::Number::from_f64(rounded).map_or(Value::Null, Value::Number);
            }
            _ => {}
        }
    }
    let mut v = v.clone();
    walk(&mut v);
    serde_json::to_string_pretty(&v).unwrap_or_default()
}

/// Checks the fields every `toc` answer has and their invariants.
fn check_toc_shape(v: &Value) {
    let collides = v["collides"].as_bool().expect("collides is a bool");
    let status = v["status"].as_str().expect("status is a string");
    assert!(
        ["converged", "budget_exhausted", "colliding_at_start"].contains(&status),
        "{status}"
    );
    let bound = v["toc_lower_bound"].as_f64().expect("toc_lower_bound");
    if collides {
        let toc = v["toc"].as_f64().expect("a colliding answer has a toc");
        assert!((0.0..=1.0).contains(&toc));
        assert!(bound <= toc);
    } else {
        assert_eq!(status, "converged");
        assert!(v["toc"].is_null());
        assert!(v["pair"].is_null());
    }
    if status != "converged" {
        assert!(collides);
    }
    for key in [
        "pairs_total",
        "pairs_after_spatial",
        "pairs_after_temporal",
        "ca_iterations",
        "distance_calls",
    ] {
        assert!(v["stats"][key].is_u64(), "stats.{key}");
    }
    for key in ["spatial_ms", "temporal_ms", "advance_ms", "total_ms"] {
        assert!(v["stats"][key].is_f64(), "stats.{key}");
    }
}

#[test]
fn info_json() {
    let v = json(&["info", "--scene", CELL, "--json"]);
    assert_eq!(v["nq"], 6);
    let joints: Vec<&str> = v["joints"]
        .as_array()
        .map(|j| j.iter().filter_map(|j| j["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(
        joints,
        [
            "left/shoulder",
            "left/elbow",
            "left/wrist_joint",
            "right/shoulder",
            "right/elbow",
            "right/wrist_joint"
        ]
    );
    insta::assert_snapshot!("info_cell", redacted(&v));
    let v = json(&["info", "--scene", SINGLE, "--json"]);
    insta::assert_snapshot!("info_single", redacted(&v));
}

#[test]
fn info_text() {
    let o = armature(&["info", "--scene", CELL]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    insta::assert_snapshot!("info_cell_text", stdout(&o));
}

#[test]
fn toc_free_motion() {
    let v = json(&[
        "toc", "--scene", CELL, "--from", CELL_HOME, "--to", CELL_NEAR, "--json",
    ]);
    check_toc_shape(&v);
    assert_eq!(v["collides"], false);
    insta::assert_snapshot!("toc_cell_free", redacted(&v));
}

#[test]
fn toc_arms_collide_with_each_other() {
    let v = json(&[
        "toc",
        "--scene",
        CELL,
        "--from",
        CELL_HOME,
        "--to",
        CELL_CROSSED,
        "--json",
    ]);
    check_toc_shape(&v);
    assert_eq!(v["status"], "converged");
    assert_eq!(v["collides"], true);
    // Both ends are links: the bodies touch each other. The cell is
    // symmetric, so the fore arm of either body meets the other's wrist at
    // the same time; either pair is the first contact.
    let pair = (v["pair"]["a"].as_str(), v["pair"]["b"].as_str());
    assert!(
        matches!(
            pair,
            (Some("left/fore"), Some("right/wrist")) | (Some("left/wrist"), Some("right/fore"))
        ),
        "{pair:?}"
    );
    insta::assert_snapshot!("toc_cell_arms", redacted(&v));
}

#[test]
fn toc_arm_collides_with_the_crate() {
    let v = json(&[
        "toc",
        "--scene",
        SINGLE,
        "--from",
        "0,0,0",
        "--to",
        SINGLE_INTO_CRATE,
        "--json",
    ]);
    check_toc_shape(&v);
    assert_eq!(v["status"], "converged");
    assert_eq!(v["pair"]["b"], "crate");
    assert_eq!(v["features"]["a"]["kind"], "triangle");
    insta::assert_snapshot!("toc_single_crate", redacted(&v));
}

/// The elementary stage answers the same motion, a little earlier or
/// later within the clearance band, and names the contact's features: a
/// vertex against a triangle or two edges.
#[test]
fn toc_elementary_stage_names_the_features() {
    let v = json(&[
        "toc",
        "--scene",
        SINGLE,
        "--from",
        "0,0,0",
        "--to",
        SINGLE_INTO_CRATE,
        "--exact-stage",
        "elementary",
        "--json",
    ]);
    check_toc_shape(&v);
    assert_eq!(v["status"], "converged");
    assert_eq!(v["pair"]["b"], "crate");
    assert_eq!(v["options"]["exact_stage"], "elementary");
    assert_eq!(v["options"]["broad_phase"], "interval");
    let kinds = (
        v["features"]["a"]["kind"].as_str().unwrap_or_default(),
        v["features"]["b"]["kind"].as_str().unwrap_or_default(),
    );
    assert!(
        matches!(
            kinds,
            ("vertex", "triangle") | ("triangle", "vertex") | ("edge", "edge")
        ),
        "{kinds:?}"
    );
    let advancement = json(&[
        "toc",
        "--scene",
        SINGLE,
        "--from",
        "0,0,0",
        "--to",
        SINGLE_INTO_CRATE,
        "--json",
    ]);
    let (a, b) = (
        v["toc"].as_f64().unwrap_or(f64::NAN),
        advancement["toc"].as_f64().unwrap_or(f64::NAN),
    );
    assert!((a - b).abs() < 0.01, "{a} vs {b}");
    insta::assert_snapshot!("toc_single_crate_elementary", redacted(&v));
}

/// Stage 2 (swept-volume culling) changes the work, not the answer; a
/// resolution out of range is named by its flag.
#[test]
fn toc_swept_volume_culling_keeps_the_answer() {
    let args = |culling: &'static str, pixels: &'static str| {
        vec![
            "toc",
            "--scene",
            SINGLE,
            "--from",
            "0,0,0",
            "--to",
            SINGLE_INTO_CRATE,
            "--exact-stage",
            "elementary",
            "--swept-volume-culling",
            culling,
            "--cullide-resolution",
            pixels,
        ]
    };
    let run = |culling: &'static str| {
        let mut a = args(culling, "64");
        a.push("--json");
        json(&a)
    };
    let off = run("off");
    for culling in ["cpu", "gpu"] {
        let v = run(culling);
        check_toc_shape(&v);
        assert_eq!(v["options"]["swept_volume_culling"], culling);
        assert_eq!(v["status"], off["status"], "{culling}");
        assert_eq!(v["toc"], off["toc"], "{culling}");
        assert_eq!(v["pair"], off["pair"], "{culling}");
        assert!(v["stats"]["culling_ms"].as_f64().is_some_and(|x| x >= 0.0));
    }
    fails(&args("cpu", "8"), &["--cullide-resolution", "[16, 4096]"]);
}

#[test]
fn toc_colliding_at_start() {
    let v = json(&[
        "toc",
        "--scene",
        SINGLE,
        "--from",
        SINGLE_INTO_CRATE,
        "--to",
        "0,0,0",
        "--json",
    ]);
    check_toc_shape(&v);
    assert_eq!(v["status"], "colliding_at_start");
    assert_eq!(v["toc"], 0.0);
    insta::assert_snapshot!("toc_single_at_start", redacted(&v));
}

#[test]
fn toc_budget_exhausted_is_a_conservative_maybe() {
    let full = json(&[
        "toc",
        "--scene",
        CELL,
        "--from",
        CELL_HOME,
        "--to",
        CELL_CROSSED,
        "--json",
    ]);
    let v = json(&[
        "toc",
        "--scene",
        CELL,
        "--from",
        CELL_HOME,
        "--to",
        CELL_CROSSED,
        "--max-iterations",
        "1",
        "--json",
    ]);
    check_toc_shape(&v);
    assert_eq!(v["status"], "budget_exhausted");
    assert_eq!(v["collides"], true);
    assert_eq!(v["options"]["max_iterations"], 1);
    let (bound, toc) = (v["toc"].as_f64(), full["toc"].as_f64());
    assert!(bound <= toc, "{bound:?} > {toc:?}");
    insta::assert_snapshot!("toc_cell_budget", redacted(&v));
}

#[test]
fn toc_options_keep_the_answer() {
    let base = json(&[
        "toc",
        "--scene",
        CELL,
        "--from",
        CELL_HOME,
        "--to",
        CELL_CROSSED,
        "--json",
    ]);
    for extra in [
        &["--broad-phase", "interval"][..],
        &["--no-temporal-culling"],
        &["--broad-phase", "taylor", "--no-temporal-culling"],
    ] {
        let mut args = vec![
            "toc",
            "--scene",
            CELL,
            "--from",
            CELL_HOME,
            "--to",
            CELL_CROSSED,
            "--json",
        ];
        args.extend_from_slice(extra);
        let v = json(&args);
        check_toc_shape(&v);
        assert_eq!(v["status"], base["status"], "{extra:?}");
        assert_eq!(v["pair"], base["pair"], "{extra:?}");
        let (a, b) = (v["toc"].as_f64(), base["toc"].as_f64());
        assert!(
            matches!((a, b), (Some(a), Some(b)) if (a - b).abs() <= 1e-9),
            "{extra:?}: {a:?} vs {b:?}"
        );
    }
    let v = json(&[
        "toc",
        "--scene",
        CELL,
        "--from",
        CELL_HOME,
        "--to",
        CELL_CROSSED,
        "--early-out",
        "--threshold",
        "0.001",
        "--json",
    ]);
    check_toc_shape(&v);
    assert_eq!(v["collides"], true);
    assert_eq!(v["options"]["early_out"], true);
    assert_eq!(v["options"]["distance_threshold"], 0.001);
    assert!(v["toc_lower_bound"].as_f64() <= base["toc"].as_f64());
}

#[test]
fn toc_text() {
    let o = armature(&[
        "toc",
        "--scene",
        CELL,
        "--from",
        CELL_HOME,
        "--to",
        CELL_CROSSED,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    for line in ["answer           collides", "time of contact  0.79"] {
        assert!(text.contains(line), "`{line}` in\n{text}");
    }
    // Either symmetric pair (see `toc_arms_collide_with_each_other`).
    assert!(
        text.contains("pair             left/fore / right/wrist")
            || text.contains("pair             left/wrist / right/fore"),
        "{text}"
    );
    // The configuration at the time of contact, as `check` takes it.
    let at = text
        .lines()
        .find_map(|l| l.strip_prefix("config at toc    "))
        .unwrap_or_else(|| panic!("no configuration at toc in\n{text}"));
    let o = armature(&["check", "--scene", CELL, "--config", at]);
    assert_eq!(o.status.code(), Some(0), "{at}: {}", stderr(&o));
    let o = armature(&["toc", "--scene", SINGLE, "--from=0,0,0", "--to", "-0.5,0,0"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.starts_with("answer       free\n"), "{text}");
    assert!(
        text.contains(
            "\nclearance    every pair stays at least 0.0001 apart (the distance threshold)\n"
        ),
        "{text}"
    );
    // Starting closer than three thresholds, the clearance is a third of
    // the start distance (0.15 between the wrist and the crate).
    let o = armature(&[
        "toc",
        "--scene",
        SINGLE,
        "--from=0,0,0",
        "--to",
        "-0.5,0,0",
        "--threshold",
        "0.1",
    ]);
    let text = stdout(&o);
    assert!(
        text.contains(
            "\nclearance    every pair stays at least 0.05 apart (a third of the closest pair's \
             start distance, 0.15)\n"
        ),
        "{text}"
    );
}

#[test]
fn check_free_and_colliding() {
    let v = json(&["check", "--scene", SINGLE, "--config", "0,0,0", "--json"]);
    assert_eq!(v["collides"], false);
    assert!(v["collision"].is_null());
    assert_eq!(v["closest"]["pair"]["b"], "crate");
    assert!((v["distance"].as_f64().unwrap_or(0.0) - 0.15).abs() < 1e-9);
    insta::assert_snapshot!("check_single_free", redacted(&v));

    let v = json(&[
        "check",
        "--scene",
        SINGLE,
        "--config",
        SINGLE_INTO_CRATE,
        "--json",
    ]);
    assert_eq!(v["collides"], true);
    assert_eq!(v["distance"], 0.0);
    assert_eq!(v["collision"]["pair"]["b"], "crate");
    insta::assert_snapshot!("check_single_crate", redacted(&v));

    let v = json(&["check", "--scene", CELL, "--config", CELL_CROSSED, "--json"]);
    assert_eq!(v["collides"], true);
    assert_eq!(v["collision"]["pair"]["a"], "left/fore");
    assert_eq!(v["collision"]["pair"]["b"], "right/wrist");
    insta::assert_snapshot!("check_cell_arms", redacted(&v));
}

#[test]
fn check_text() {
    let o = armature(&["check", "--scene", CELL, "--config", CELL_NEAR]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.starts_with("answer            free\n"), "{text}");
    assert!(
        text.contains("closest pair      left/fore / right/wrist"),
        "{text}"
    );
    assert!(text.contains("\n  closest points  ("), "{text}");
    // An intersection's points are its triangles' centroids, and say so.
    let o = armature(&["check", "--scene", CELL, "--config", CELL_CROSSED]);
    let text = stdout(&o);
    assert!(
        text.contains("intersecting pair     left/fore / right/wrist\n"),
        "{text}"
    );
    assert!(text.contains("\n  triangle centroids  ("), "{text}");
}

/// Runs a command that must fail on bad input: exit status 2, nothing on
/// stdout, and every `needle` in the message on stderr.
fn fails(args: &[&str], needles: &[&str]) {
    let o = armature(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(o.stdout.is_empty(), "{args:?}: {}", stdout(&o));
    for needle in needles {
        assert!(err.contains(needle), "{args:?}: `{needle}` not in {err}");
    }
}

#[test]
fn bad_scene_files_exit_2_naming_file_and_field() {
    let cases: &[(&str, &[&str])] = &[
        ("syntax", &["syntax.ron:5:", "Expected comma"]),
        ("unknown_field", &["unknown_field.ron:3:", "`colour`"]),
        ("missing_field", &["missing_field.ron:3:", "`urdf`"]),
        (
            "missing_mesh",
            &["`obstacles[0].mesh`", "no_such_crate.stl"],
        ),
        ("missing_urdf", &["`bodies[0].urdf`", "no_such_arm.urdf"]),
        (
            "malformed_urdf",
            &["`bodies[0].urdf`", "broken.urdf", "nowhere"],
        ),
        (
            "non_unit_quaternion",
            &["`obstacles[0].pose.rotation`", "unit quaternion"],
        ),
        (
            "unknown_disabled_pair",
            &["`disabled_pairs[1]`", "arm/elbow"],
        ),
        ("zero_threshold", &["`distance_threshold`", "positive"]),
        ("duplicate_obstacles", &["`obstacles[1].name`", "crate"]),
    ];
    for (name, needles) in cases {
        let path = format!("tests/fixtures/bad/{name}.ron");
        let mut with_file = vec![format!("{name}.ron")];
        with_file.extend(needles.iter().map(|s| (*s).to_owned()));
        let with_file: Vec<&str> = with_file.iter().map(String::as_str).collect();
        fails(&["info", "--scene", &path], &with_file);
        fails(
            &["toc", "--scene", &path, "--from", "0,0,0", "--to", "0,0,0"],
            &with_file,
        );
        fails(
            &["check", "--scene", &path, "--config", "0,0,0"],
            &with_file,
        );
    }
    fails(
        &["info", "--scene", "tests/fixtures/no_such_scene.ron"],
        &["error: ", "no_such_scene.ron"],
    );
}

#[test]
fn bad_configurations_exit_2_naming_the_option() {
    let toc = |from: &str, to: &str, needles: &[&str]| {
        fails(
            &["toc", "--scene", SINGLE, "--from", from, "--to", to],
            needles,
        );
    };
    toc(
        "0,0",
        "0,0,0",
        &["`--from`", "expected 3 values (arm: 3), got 2"],
    );
    toc("0,0,0", "0,0,0,0", &["`--to`", "got 4"]);
    toc(
        "0,NaN,0",
        "0,0,0",
        &["`--from`", "arm/elbow", "not a finite number"],
    );
    toc("0,0,0", "0,x,0", &["`--to`", "`x` is not a number"]);
    toc("0,0,inf", "0,0,0", &["`--from`", "arm/wrist_joint"]);
    toc("", "0,0,0", &["`--from`", "got 0"]);
    fails(
        &["check", "--scene", SINGLE, "--config", "1,2"],
        &["`--config`", "got 2"],
    );
    fails(
        &["check", "--scene", SINGLE, "--config", "1,2,three"],
        &["`--config`", "`three`"],
    );
}

#[test]
fn bad_options_exit_2() {
    let toc = |extra: &[&str], needles: &[&str]| {
        let mut args = vec!["toc", "--scene", SINGLE, "--from", "0,0,0", "--to", "0,0,0"];
        args.extend_from_slice(extra);
        fails(&args, needles);
    };
    toc(&["--threshold", "0"], &["`--threshold`", "positive"]);
    toc(&["--threshold", "-1"], &["`--threshold`"]);
    toc(&["--threshold", "NaN"], &["`--threshold`"]);
    toc(&["--threshold", "1e-300"], &["`--threshold`", "too small"]);
    toc(&["--max-iterations", "0"], &["`--max-iterations`"]);
    // Usage errors are clap's, with its exit status 2.
    toc(&["--max-iterations", "many"], &["--max-iterations"]);
    toc(&["--broad-phase", "octree"], &["octree"]);
    toc(&["--colour", "red"], &["--colour"]);
    fails(&["info"], &["--scene"]);
    fails(&["toc", "--scene", SINGLE, "--from", "0,0,0"], &["--to"]);
    fails(&["teleport", "--scene", SINGLE], &["teleport"]);
}

#[test]
fn help_and_version_exit_0() {
    for args in [&["--help"][..], &["--version"], &["toc", "--help"]] {
        let o = armature(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        assert!(!o.stdout.is_empty());
    }
    let o = armature(&["toc", "--help"]);
    let help = stdout(&o);
    for option in [
        "--scene",
        "--from",
        "--to",
        "--threshold",
        "--broad-phase",
        "--no-temporal-culling",
        "--max-iterations",
        "--early-out",
        "--json",
    ] {
        assert!(help.contains(option), "{option} in {help}");
    }
}

#[test]
fn fixtures_are_where_the_tests_expect() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    assert!(root.join(CELL).is_file());
    assert!(root.join(SINGLE).is_file());
}
