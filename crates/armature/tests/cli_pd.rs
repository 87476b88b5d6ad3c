//! `armature pd` run as a program on the fixture scene `single.ron`: the
//! JSON answer equals the library's and its configuration is free and in
//! contact by the facade's own discrete check; text output; a free input;
//! bad inputs exit 2 with a message naming the option.

use std::process::{Command, Output};

use armature::{PdStatus, Pipeline, Scene};
use serde_json::Value;

const SINGLE: &str = "tests/fixtures/single.ron";
/// The wrist inside the crate (as `armature check` shows in docs/cli.md).
const INSIDE: &str = "0.6,-1,0";

fn armature(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_armature"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the armature binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(args: &[&str]) -> Value {
    let o = armature(args);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(text.lines().count(), 1, "one line of JSON: {text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?}: {e}: {text}"))
}

fn scene() -> Scene {
    Scene::from_file(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(SINGLE)).unwrap()
}

#[test]
fn json_answer_is_the_library_answer_free_and_in_contact() {
    let v = json(&["pd", "--scene", SINGLE, "--config", INSIDE, "--json"]);
    let scene = scene();
    let pipeline = Pipeline::default();
    let q = scene.parse_configuration("q", INSIDE).unwrap();
    let report = pipeline.penetration_depth(&scene, &q).unwrap();
    assert_eq!(report.status, PdStatus::Separated);
    assert_eq!(v["collides"], true);
    assert_eq!(v["status"], "separated");
    let value = v["value"].as_f64().unwrap();
    assert_eq!(value, report.value);
    assert!((v["rms_displacement"].as_f64().unwrap() - value.sqrt()).abs() <= 1e-12);
    let config: Vec<f64> = v["configuration"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert_eq!(config, report.configuration);
    // The facade's discrete check, not the solver's: free and in contact.
    let check = pipeline.check(&scene, &config).unwrap();
    assert!(!check.colliding);
    let tolerance = pipeline.pd_options(&scene).tolerance();
    assert!(
        check.distance <= tolerance,
        "{} from contact",
        check.distance
    );
    assert!(value > 0.0);
    for key in ["iterations", "distance", "selection", "contacts", "stats"] {
        assert!(v.get(key).is_some(), "missing `{key}`");
    }
    let contact = &v["contacts"][0];
    assert_eq!(contact["pair"]["a"], "arm/wrist");
    assert_eq!(contact["pair"]["b"], "crate");
}

#[test]
fn a_free_input_is_answered_zero() {
    let v = json(&["pd", "--scene", SINGLE, "--config", "0,0,0", "--json"]);
    assert_eq!(v["collides"], false);
    assert_eq!(v["status"], "already_free");
    assert_eq!(v["value"], 0.0);
    assert_eq!(v["configuration"], serde_json::json!([0.0, 0.0, 0.0]));
}

#[test]
fn text_answer_names_the_value_and_the_contact() {
    let o = armature(&["pd", "--scene", SINGLE, "--config", INSIDE]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    for word in [
        "separated",
        "object norm",
        "configuration",
        "arm/wrist / crate",
    ] {
        assert!(text.contains(word), "`{word}` missing from:\n{text}");
    }
}

#[test]
fn bad_inputs_exit_2_naming_the_input() {
    for (args, needle) in [
        (
            vec!["pd", "--scene", SINGLE, "--config", "0.6,-1"],
            "--config",
        ),
        (
            vec!["pd", "--scene", SINGLE, "--config", "0.6,nan,0"],
            "--config",
        ),
        (
            vec!["pd", "--scene", SINGLE, "--config", INSIDE, "--hint", "1,2"],
            "--hint",
        ),
        (
            vec![
                "pd",
                "--scene",
                SINGLE,
                "--config",
                INSIDE,
                "--max-iterations",
                "0",
            ],
            "--max-iterations",
        ),
        (
            vec!["pd", "--scene", "missing.ron", "--config", INSIDE],
            "missing.ron",
        ),
    ] {
        let o = armature(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(needle), "{args:?}: {}", stderr(&o));
    }
}
