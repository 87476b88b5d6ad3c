//! `armature toc --batch` and `armature check --batch` run as a program:
//! every answer is the library's answer to the same single query (and the
//! single command's `--json` object), in input order; a malformed line is
//! an error object naming its line and the rest is answered.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use armature::kinematics::JointSpaceMotion;
use armature::{CcdReport, CcdStatus, Pipeline, Scene};
use serde_json::{Value, json};

mod common;
use common::motions;

const CELL: &str = "tests/fixtures/cell.ron";
const SINGLE: &str = "tests/fixtures/single.ron";

fn fixture(path: &str) -> Scene {
    Scene::from_file(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).expect("fixture loads")
}

/// Runs the binary from the package root with `input` on stdin.
fn armature(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_armature"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the armature binary runs");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    stdin
        .write_all(input.as_bytes())
        .expect("stdin takes the batch");
    drop(stdin);
    child.wait_with_output().expect("the armature binary ends")
}

/// The answer lines of a batch that ran (exit status 0).
fn lines(args: &[&str], input: &str) -> Vec<Value> {
    let o = armature(args, input);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {stderr}");
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap_or_else(|| panic!("an array: {v}"))
        .iter()
        .map(|x| x.as_f64().unwrap_or_else(|| panic!("a number: {x}")))
        .collect()
}

/// Asserts that a batch answer is the library's report, bit for bit.
fn assert_same(scene: &Scene, a: &Value, r: &CcdReport, q0: &[f64], q1: &[f64], what: &str) {
    let status = match r.status {
        CcdStatus::Free | CcdStatus::Collides => "converged",
        CcdStatus::CollidingAtStart => "colliding_at_start",
        CcdStatus::BudgetExhausted => "budget_exhausted",
    };
    assert_eq!(a["status"], status, "{what}");
    assert_eq!(a["collides"], r.may_collide(), "{what}");
    assert_eq!(
        a["toc_lower_bound"].as_f64(),
        Some(r.toc_lower_bound),
        "{what}"
    );
    assert_eq!(floats(&a["from"]), q0, "{what}");
    assert_eq!(floats(&a["to"]), q1, "{what}");
    let s = &a["stats"];
    assert_eq!(
        [
            &s["pairs_total"],
            &s["pairs_after_spatial"],
            &s["pairs_after_temporal"],
            &s["ca_iterations"],
            &s["distance_calls"],
        ],
        [
            r.stats.pairs_total,
            r.stats.pairs_after_spatial,
            r.stats.pairs_after_temporal,
            r.stats.ca_iterations,
            r.stats.distance_calls,
        ]
        .map(|n| json!(n))
        .each_ref(),
        "{what}"
    );
    match &r.contact {
        None => {
            for key in [
                "pair",
                "features",
                "point",
                "normal",
                "distance",
                "config_at_toc",
            ] {
                assert!(a[key].is_null(), "{what}: {key}");
            }
        }
        Some(c) => {
            assert_eq!(a["toc"].as_f64(), Some(c.time), "{what}");
            assert_eq!(
                a["pair"]["a"],
                scene.link_name(c.link).unwrap_or("?"),
                "{what}"
            );
            assert_eq!(
                a["pair"]["b"],
                scene.other_name(c.other).unwrap_or("?"),
                "{what}"
            );
            assert_eq!(a["features"]["a"]["index"], c.triangle_a, "{what}");
            assert_eq!(a["features"]["b"]["index"], c.triangle_b, "{what}");
            assert_eq!(floats(&a["point"]), c.point.to_array(), "{what}");
            assert_eq!(floats(&a["normal"]), c.normal.to_array(), "{what}");
            assert_eq!(a["distance"].as_f64(), Some(c.distance), "{what}");
            let tree = scene.body().tree();
            let mut q = vec![0.0; q0.len()];
            JointSpaceMotion::new(tree, q0, q1)
                .and_then(|m| m.config_at(tree, c.time, &mut q))
                .expect("the motion interpolates");
            assert_eq!(floats(&a["config_at_toc"]), q, "{what}");
        }
    }
    if r.status == CcdStatus::Free {
        assert_eq!(a["clearance"].as_f64(), Some(r.clearance), "{what}");
        // The contract's figure: at most the threshold and a third of the
        // start distance (certified from below, so never above it).
        let d0 = Pipeline::default()
            .check(scene, q0)
            .expect("check runs")
            .distance;
        let bound = scene.distance_threshold().min(d0 / 3.0);
        assert!(
            r.clearance > 0.0 && r.clearance <= bound * (1.0 + 1e-9),
            "{what}: clearance {} above min(δ, d(0)/3) = {bound}",
            r.clearance
        );
    } else {
        assert!(a["clearance"].is_null(), "{what}");
    }
}

fn toc_line(id: usize, q0: &[f64], q1: &[f64]) -> String {
    json!({"id": id, "from": q0, "to": q1}).to_string()
}

#[test]
fn a_thousand_batch_answers_are_the_single_answers() {
    let scene = fixture(CELL);
    let motions = motions(&scene, 0x0c11_ba7c, 1000);
    let input: String = motions
        .iter()
        .enumerate()
        .map(|(i, (q0, q1))| toc_line(i, q0, q1) + "\n")
        .collect();
    let answers = lines(&["toc", "--scene", CELL, "--batch", "-"], &input);
    assert_eq!(answers.len(), motions.len());
    let pipeline = Pipeline::default();
    let mut colliding = 0;
    for (i, ((q0, q1), a)) in motions.iter().zip(&answers).enumerate() {
        assert_eq!(a["line"], i + 1);
        assert_eq!(a["id"], i);
        assert!(a.get("error").is_none(), "motion {i}: {a}");
        let r = pipeline.first_contact(&scene, q0, q1).expect("query runs");
        assert_same(&scene, a, &r, q0, q1, &format!("motion {i}"));
        colliding += usize::from(r.may_collide());
    }
    // Both kinds of answer are exercised.
    assert!(
        (100..900).contains(&colliding),
        "{colliding} of 1000 collide"
    );
}

/// The answer without its times, which differ from run to run.
fn timeless(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(stats) = v.get_mut("stats").and_then(Value::as_object_mut) {
        stats.retain(|k, _| !k.ends_with("_ms"));
    }
    v
}

#[test]
fn batch_lines_are_the_single_commands_json_objects() {
    let scene = fixture(CELL);
    let motions = motions(&scene, 0x5eed, 6);
    let input: String = motions
        .iter()
        .enumerate()
        .map(|(i, (q0, q1))| toc_line(i, q0, q1) + "\n")
        .collect();
    let options = ["--threshold", "0.001", "--max-iterations", "50"];
    let mut args = vec!["toc", "--scene", CELL, "--batch", "-"];
    args.extend(options);
    let answers = lines(&args, &input);
    for (i, (q0, q1)) in motions.iter().enumerate() {
        let text = |q: &[f64]| q.iter().map(f64::to_string).collect::<Vec<_>>().join(",");
        let (from, to) = (text(q0), text(q1));
        let mut single = vec![
            "toc", "--scene", CELL, "--json", "--from", &from, "--to", &to,
        ];
        single.extend(options);
        let single = lines(&single, "").remove(0);
        let mut batch = answers[i].clone();
        let object = batch.as_object_mut().expect("an object");
        assert_eq!(object.remove("line"), Some(json!(i + 1)));
        assert_eq!(object.remove("id"), Some(json!(i)));
        assert_eq!(timeless(&batch), timeless(&single), "motion {i}");
    }
}

#[test]
fn answers_do_not_depend_on_the_thread_count() {
    let scene = fixture(CELL);
    let input: String = motions(&scene, 0x7e4d, 40)
        .iter()
        .enumerate()
        .map(|(i, (q0, q1))| toc_line(i, q0, q1) + "\n")
        .collect();
    let run = |threads: &str| -> Vec<Value> {
        lines(
            &["toc", "--scene", CELL, "--batch", "-", "--threads", threads],
            &input,
        )
        .iter()
        .map(timeless)
        .collect()
    };
    assert_eq!(run("1"), run("3"));
}

#[test]
fn malformed_lines_are_errors_naming_their_line_and_the_rest_is_answered() {
    let scene = fixture(SINGLE);
    let input = [
        r#"{"id": "ok", "from": [0, 0, 0], "to": [0.6, -1, 0]}"#,
        "",
        r#"{"id": 2, "from": [0, 0, 0], "to": [0.1, 0, 0"#,
        r#"{"id": "short", "from": [0, 0], "to": [0, 0, 0]}"#,
        r#"{"id": "typo", "from": [0, 0, 0], "too": [0, 0, 0]}"#,
        "   ",
        r#"{"id": "huge", "from": [0, 0, 0], "to": [0, 1e999, 0]}"#,
        r#"{"id": "text", "from": [0, 0, 0], "to": [0, "x", 0]}"#,
        r#"{"id": [1], "from": [0, 0, 0], "to": [0, 0, 0]}"#,
        r#"{"from": [0, 0, 0], "to": [0.1, 0, 0]}"#,
        r#"[0, 0, 0]"#,
    ]
    .join("\n");
    let o = armature(&["toc", "--scene", SINGLE, "--batch", "-"], &input);
    assert_eq!(o.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("7 of 9 queries"), "{stderr}");
    let answers: Vec<Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let at: Vec<(i64, Value)> = answers
        .iter()
        .map(|a| (a["line"].as_i64().unwrap_or(-1), a["id"].clone()))
        .collect();
    assert_eq!(
        at,
        [
            (1, json!("ok")),
            (3, Value::Null),
            (4, json!("short")),
            (5, json!("typo")),
            (7, Value::Null),
            (8, json!("text")),
            (9, json!([1])),
            (10, Value::Null),
            (11, Value::Null),
        ]
    );
    let pipeline = Pipeline::default();
    for (k, (q0, q1)) in [
        (0, ([0.0, 0.0, 0.0], [0.6, -1.0, 0.0])),
        (7, ([0.0; 3], [0.1, 0.0, 0.0])),
    ] {
        let r = pipeline
            .first_contact(&scene, &q0, &q1)
            .expect("query runs");
        assert_same(&scene, &answers[k], &r, &q0, &q1, &format!("answer {k}"));
    }
    let errors: Vec<String> = answers
        .iter()
        .filter_map(|a| {
            a["error"]
                .as_str()
                .map(|e| format!("line {}: {e}", a["line"]))
        })
        .collect();
    insta::assert_snapshot!(errors.join("\n"));
}

#[test]
fn a_batch_file_and_stdin_give_the_same_answers() {
    let input =
        "{\"from\": [0, 0, 0], \"to\": [0.6, -1, 0]}\n{\"from\": [0, 0, 0], \"to\": [0.2, 0, 0]}\n";
    let dir = std::env::temp_dir().join(format!("armature-cli-batch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let file = dir.join("queries.jsonl");
    std::fs::write(&file, input).expect("the batch file is written");
    let file = file.to_string_lossy().into_owned();
    let from_file = lines(&["toc", "--scene", SINGLE, "--batch", &file], "");
    let from_stdin = lines(&["toc", "--scene", SINGLE, "--batch", "-"], input);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(from_file.len(), 2);
    assert_eq!(
        from_file.iter().map(timeless).collect::<Vec<_>>(),
        from_stdin.iter().map(timeless).collect::<Vec<_>>()
    );
    let missing = armature(
        &["toc", "--scene", SINGLE, "--batch", "no/such/queries.jsonl"],
        "",
    );
    assert_eq!(missing.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(stderr.contains("no/such/queries.jsonl"), "{stderr}");
}

#[test]
fn check_batch_answers_are_the_single_answers() {
    let scene = fixture(CELL);
    let configs: Vec<Vec<f64>> = motions(&scene, 0xc4ec, 60)
        .into_iter()
        .map(|(q0, _)| q0)
        .collect();
    let mut input: String = configs
        .iter()
        .enumerate()
        .map(|(i, q)| json!({"id": format!("c{i}"), "config": q}).to_string() + "\n")
        .collect();
    input.push_str("{\"id\": \"bad\", \"config\": [0, 0]}\n");
    let answers = lines(&["check", "--scene", CELL, "--batch", "-"], &input);
    assert_eq!(answers.len(), configs.len() + 1);
    let pipeline = Pipeline::default();
    let mut colliding = 0;
    for (i, (q, a)) in configs.iter().zip(&answers).enumerate() {
        assert_eq!(a["id"], format!("c{i}"));
        let r = pipeline.check(&scene, q).expect("check runs");
        assert_eq!(a["collides"], r.colliding, "config {i}");
        assert_eq!(a["distance"].as_f64(), Some(r.distance), "config {i}");
        assert_eq!(floats(&a["config"]), *q, "config {i}");
        assert_eq!(a["stats"]["pairs_tested"], r.pairs_tested, "config {i}");
        let w = r.closest.expect("a closest pair");
        assert_eq!(floats(&a["closest"]["point_a"]), w.point_a.to_array());
        assert_eq!(floats(&a["closest"]["point_b"]), w.point_b.to_array());
        colliding += usize::from(r.colliding);
    }
    assert!(
        colliding > 0 && colliding < configs.len(),
        "{colliding} collide"
    );
    let last = &answers[configs.len()];
    assert_eq!(last["line"], configs.len() + 1);
    assert_eq!(
        last["error"],
        "configuration `config`: expected 6 values (left: 3, right: 3), got 2"
    );
}

#[test]
fn batch_conflicts_with_a_single_query() {
    for args in [
        ["toc", "--scene", SINGLE, "--batch", "-", "--from", "0,0,0"].as_slice(),
        &["toc", "--scene", SINGLE, "--batch", "-", "--to", "0,0,0"],
        &[
            "check", "--scene", SINGLE, "--batch", "-", "--config", "0,0,0",
        ],
        &[
            "toc",
            "--scene",
            SINGLE,
            "--threads",
            "2",
            "--from",
            "0,0,0",
            "--to",
            "0,0,0",
        ],
    ] {
        let o = armature(args, "");
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
}
