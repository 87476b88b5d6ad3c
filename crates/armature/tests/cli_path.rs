//! `armature path` run as a program on the fixture scene `single.ron` and
//! the waypoint files beside it: JSON answers (snapshots, timings
//! redacted) equal to the library's, text answers, stdin, options, exit
//! statuses and the messages of bad waypoint files.
//!
//! Waypoint files: `single_path.txt` turns away from the crate, then
//! lifts the forearm into it (its last segment collides);
//! `single_path_free.txt` stays clear of it; `single_path_near.txt` turns
//! toward it and passes near it, free.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use armature::{PathStatus, Pipeline, Scene};
use serde_json::Value;

const SINGLE: &str = "tests/fixtures/single.ron";
const INTO_CRATE: &str = "tests/fixtures/single_path.txt";
const FREE: &str = "tests/fixtures/single_path_free.txt";
const NEAR: &str = "tests/fixtures/single_path_near.txt";

/// Runs the binary from the package root with `stdin` as its input.
fn armature_with_input(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_armature"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the armature binary runs");
    if let Some(mut input) = child.stdin.take() {
        input.write_all(stdin.as_bytes()).expect("stdin is written");
    }
    child.wait_with_output().expect("the armature binary ends")
}

fn armature(args: &[&str]) -> Output {
    armature_with_input(args, "")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn parse(args: &[&str], o: &Output) -> Value {
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(o));
    let text = stdout(o);
    assert_eq!(text.lines().count(), 1, "one line of JSON: {text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?}: {e}: {text}"))
}

/// Runs a command that must succeed and print one JSON object.
fn json(args: &[&str]) -> Value {
    parse(args, &armature(args))
}

/// The answer with every timing (`*_ms`) replaced by a placeholder and
/// every other float rounded to 9 significant digits, as pretty JSON.
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

/// The waypoints of a fixture file, as the command reads them.
fn waypoints(file: &str) -> Vec<Vec<f64>> {
    let text = std::fs::read_to_string(format!("{}/{file}", env!("CARGO_MANIFEST_DIR")))
        .expect("fixture reads");
    text.lines()
        .map(|l| l.split('#').next().unwrap_or_default().trim())
        .filter(|l| !l.is_empty())
        .map(|l| {
            l.split([',', ' '])
                .filter(|s| !s.is_empty())
                .map(|s| s.parse().expect("a number"))
                .collect()
        })
        .collect()
}

/// The library's answer on a fixture path.
fn library(file: &str, pipeline: &Pipeline) -> armature::PathReport {
    let scene =
        Scene::from_file(format!("{}/{SINGLE}", env!("CARGO_MANIFEST_DIR"))).expect("scene loads");
    pipeline
        .check_path(&scene, &waypoints(file))
        .expect("path runs")
}

/// The fields every answer has and the library's values for them.
fn check_against_library(v: &Value, r: &armature::PathReport) {
    assert_eq!(v["free"].as_bool(), Some(r.status == PathStatus::Free));
    let status = match r.status {
        PathStatus::Free => "free",
        PathStatus::Collides => "collides",
        PathStatus::BudgetExhausted => "budget_exhausted",
    };
    assert_eq!(v["status"].as_str(), Some(status));
    assert_eq!(
        v["first_colliding_segment"].as_u64(),
        r.first_colliding_segment.map(|k| k as u64)
    );
    let p = &v["certified_free_prefix"];
    assert_eq!(
        p["segment"].as_u64(),
        Some(r.certified_free_prefix.0 as u64)
    );
    assert_eq!(p["s"].as_f64(), Some(r.certified_free_prefix.1));
    let s = &v["stats"];
    assert_eq!(s["pairs"].as_u64(), Some(r.stats.pairs as u64));
    assert_eq!(
        s["pairs_after_prepass"].as_u64(),
        Some(r.stats.pairs_after_prepass as u64)
    );
    assert_eq!(s["queue_pops"].as_u64(), Some(r.stats.queue_pops));
    assert_eq!(s["bv_pairs"].as_u64(), Some(r.stats.bv_pairs));
    assert_eq!(s["bv_tests"].as_u64(), Some(r.stats.bv_tests));
    assert_eq!(s["triangle_tests"].as_u64(), Some(r.stats.triangle_tests));
    assert_eq!(s["distance_calls"].as_u64(), Some(r.stats.greedy_calls));
    assert_eq!(s["discrete_checks"].as_u64(), Some(r.stats.discrete_checks));
    for key in ["load_ms", "total_ms"] {
        assert!(s[key].is_f64(), "stats.{key}");
    }
}

#[test]
fn a_path_into_the_crate_collides() {
    let v = json(&[
        "path",
        "--scene",
        SINGLE,
        "--waypoints",
        INTO_CRATE,
        "--json",
    ]);
    check_against_library(&v, &library(INTO_CRATE, &Pipeline::default()));
    assert_eq!(v["free"], false);
    assert_eq!(v["first_colliding_segment"], 2);
    assert_eq!(v["collision"]["pair"]["b"], "crate");
    insta::assert_snapshot!("path_single_crate", redacted(&v));
}

#[test]
fn a_path_beside_the_crate_is_free() {
    let v = json(&["path", "--scene", SINGLE, "--waypoints", FREE, "--json"]);
    check_against_library(&v, &library(FREE, &Pipeline::default()));
    assert_eq!(v["free"], true);
    assert!(v["collision"].is_null());
    insta::assert_snapshot!("path_single_free", redacted(&v));
}

#[test]
fn options_reach_the_query() {
    // A clearance larger than the arm's distance to the crate at home
    // rejects the free path.
    let args = [
        "path",
        "--scene",
        SINGLE,
        "--waypoints",
        FREE,
        "--clearance",
        "0.5",
        "--json",
    ];
    let v = json(&args);
    let wide = Pipeline::builder()
        .path_clearance(0.5)
        .build()
        .expect("builds");
    check_against_library(&v, &library(FREE, &wide));
    assert_eq!(v["status"], "collides");
    assert_eq!(v["options"]["clearance"], 0.5);

    // A budget of one step leaves the segment toward the crate undecided
    // (it needs more): the answer certifies nothing.
    let args = [
        "path",
        "--scene",
        SINGLE,
        "--waypoints",
        NEAR,
        "--max-pops",
        "1",
        "--json",
    ];
    let v = json(&args);
    let small = Pipeline::builder()
        .max_queue_pops(1)
        .build()
        .expect("builds");
    check_against_library(&v, &library(NEAR, &small));
    let unlimited = library(NEAR, &Pipeline::builder().build().expect("builds"));
    assert_eq!(unlimited.status, PathStatus::Free);
    assert!(unlimited.stats.queue_pops > 1, "{:?}", unlimited.stats);
    assert_eq!(v["status"], "budget_exhausted");
    assert_eq!(v["free"], false);
    insta::assert_snapshot!("path_single_budget", redacted(&v));
}

#[test]
fn refined_runs_the_refined_variant_with_the_same_verdicts() {
    let refined = Pipeline::builder()
        .refined_bisection(true)
        .build()
        .expect("builds");
    for file in [INTO_CRATE, FREE] {
        let args = [
            "path",
            "--scene",
            SINGLE,
            "--waypoints",
            file,
            "--refined",
            "--json",
        ];
        let v = json(&args);
        let r = library(file, &refined);
        check_against_library(&v, &r);
        assert_eq!(v["options"]["refined"], true);
        let plain = json(&["path", "--scene", SINGLE, "--waypoints", file, "--json"]);
        assert_eq!(plain["options"]["refined"], false);
        assert_eq!(plain["stats"]["bv_pairs"], 0);
        assert_eq!(v["status"], plain["status"], "{file}");
        assert_eq!(
            v["first_colliding_segment"], plain["first_colliding_segment"],
            "{file}"
        );
    }
}

#[test]
fn stdin_gives_the_files_answer() {
    let text = std::fs::read_to_string(format!("{}/{INTO_CRATE}", env!("CARGO_MANIFEST_DIR")))
        .expect("fixture reads");
    let args = ["path", "--scene", SINGLE, "--waypoints", "-", "--json"];
    let from_stdin = parse(&args, &armature_with_input(&args, &text));
    let from_file = json(&[
        "path",
        "--scene",
        SINGLE,
        "--waypoints",
        INTO_CRATE,
        "--json",
    ]);
    let mut a = from_stdin;
    let mut b = from_file;
    for v in [&mut a, &mut b] {
        v["stats"]["load_ms"] = Value::Null;
        v["stats"]["total_ms"] = Value::Null;
    }
    assert_eq!(a, b);
}

#[test]
fn text_answers() {
    let o = armature(&["path", "--scene", SINGLE, "--waypoints", INTO_CRATE]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    // Timings vary; the rest is the contract.
    let (rest, time) = text
        .split_once("time (ms)")
        .unwrap_or_else(|| panic!("a time line: {text}"));
    assert!(time.contains("check") && time.contains("load"), "{time}");
    insta::assert_snapshot!("path_single_crate_text", rest);

    let o = armature(&["path", "--scene", SINGLE, "--waypoints", FREE]);
    let text = stdout(&o);
    let rows: Vec<Vec<&str>> = text
        .lines()
        .map(|l| {
            l.split("  ")
                .filter(|c| !c.is_empty())
                .map(str::trim)
                .collect()
        })
        .collect();
    assert_eq!(rows[0], ["answer", "free"], "{text}");
    assert!(
        rows.contains(&vec!["certified free", "the whole path"]),
        "{text}"
    );
}

/// Runs `path` on `input` as stdin: exit status 2, nothing on stdout, the
/// message on stderr.
fn fails(input: &str, extra: &[&str]) -> String {
    let mut args = vec!["path", "--scene", SINGLE, "--waypoints", "-"];
    args.extend_from_slice(extra);
    let o = armature_with_input(&args, input);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{input:?}: {err}");
    assert!(o.stdout.is_empty(), "{input:?}: {}", stdout(&o));
    err
}

#[test]
fn bad_waypoint_files_exit_2_naming_the_line() {
    let cases: &[(&str, &[&str], &str)] = &[
        ("0,0,0\n# comment\n0,x,0\n", &[], "stdin:3: value 1 `x`"),
        (
            "0,0,0\n\n0 0\n",
            &[],
            "`stdin:3`: expected 3 values (arm: 3), got 2",
        ),
        ("0,0,0\n0,0,0,1\n", &[], "`stdin:2`: expected 3 values"),
        (
            "0,0,0\n0,NaN,0\n",
            &[],
            "`stdin:2`: value 1 (joint `arm/elbow`) is NaN",
        ),
        ("0,0,0\n0,0,inf\n", &[], "`stdin:2`: value 2"),
        ("0,0,0\n0,,0\n", &[], "stdin:2: an empty value"),
        (
            "0,0,0 # one\n",
            &[],
            "stdin: a path needs at least 2 waypoints, found 1",
        ),
        ("# nothing\n\n", &[], "found 0"),
        (
            "0,0,0\n0,0,0\n",
            &["--clearance", "-1"],
            "option `--clearance` = -1",
        ),
        (
            "0,0,0\n0,0,0\n",
            &["--clearance", "nan"],
            "option `--clearance` = NaN",
        ),
        (
            "0,0,0\n0,0,0\n",
            &["--max-pops", "0"],
            "option `--max-pops` = 0",
        ),
    ];
    let mut messages = String::new();
    for (input, extra, needle) in cases {
        let err = fails(input, extra);
        assert!(err.contains(needle), "{input:?}: `{needle}` not in {err}");
        messages.push_str(&err);
    }
    insta::assert_snapshot!("path_bad_waypoints", messages);

    // A file that cannot be read is named.
    let o = armature(&["path", "--scene", SINGLE, "--waypoints", "no_such_path.txt"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no_such_path.txt"), "{}", stderr(&o));
}

#[test]
fn fixtures_are_where_the_tests_expect() {
    // The waypoint files the documentation's examples use.
    for file in [INTO_CRATE, FREE] {
        assert!(waypoints(file).len() >= 3, "{file}");
    }
}
