//! `armature monitor` run as a program on the fixture scene `single.ron`:
//! the JSON answer equals the library's, a pose inside the crate stops and
//! a still pose far from it goes, text output, and bad inputs exit 2 with
//! a message naming the input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use armature::Scene;
use armature::monitor::{SafetyMonitor, Verdict, read_state_file};
use serde_json::Value;

const SINGLE: &str = "tests/fixtures/single.ron";

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

/// A state file with `body` inside `MonitorState( … )`, in a fresh folder.
fn state_file(name: &str, body: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("armature-cli-monitor-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(format!("{name}.ron"));
    std::fs::write(&p, format!("MonitorState(\n{body}\n)\n")).unwrap();
    p
}

fn json(args: &[&str]) -> Value {
    let o = armature(args);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(text.lines().count(), 1, "one line of JSON: {text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?}: {e}: {text}"))
}

fn scene() -> Scene {
    Scene::from_file(Path::new(env!("CARGO_MANIFEST_DIR")).join(SINGLE)).unwrap()
}

#[test]
fn json_answer_is_the_library_answer() {
    let st = state_file(
        "moving",
        "config: [0.6, -1.0, 0.0], velocities: [0.5, -0.3, 0.2], latency: 0.05, deceleration: 2.0, safety_distance: 0.01, safety_factor: 2.0",
    );
    let v = json(&[
        "monitor",
        "--scene",
        SINGLE,
        "--state",
        st.to_str().unwrap(),
        "--json",
    ]);
    let scene = scene();
    let f = read_state_file(&st, &scene).unwrap();
    let mut m = SafetyMonitor::new(&scene, f.settings).unwrap();
    let r = m.cycle(&f.state).unwrap();
    assert_eq!(r.verdict, Verdict::Stop, "the wrist is inside the crate");
    assert_eq!(v["verdict"], "stop");
    assert_eq!(v["stop"], true);
    assert_eq!(v["min_distance"].as_f64(), Some(r.min_distance));
    let (a, b) = r.pair.unwrap();
    assert_eq!(v["pair"]["a"], a.as_str());
    assert_eq!(v["pair"]["b"], b.as_str());
    assert_eq!(v["safety_factor"], 2.0);
    assert_eq!(v["operations"]["default"], "accurate");
    assert_eq!(v["operations"]["circ2"], 3);
    for key in [
        "pairs",
        "pairs_evaluated",
        "swept_points",
        "sweep_ms",
        "distance_ms",
        "cycle_ms",
        "median_cycle_ms",
        "max_cycle_ms",
    ] {
        assert!(v["stats"][key].is_number(), "stats.{key}: {v}");
    }
}

#[test]
fn a_still_arm_away_from_the_crate_goes_and_a_fast_one_stops() {
    // Straight up, far from the crate at (0.5, 0, 0.5).
    let still = state_file(
        "still",
        "config: [-1.5, 0.0, 0.0], velocities: [0.0, 0.0, 0.0], latency: 0.02, deceleration: 2.0",
    );
    let v = json(&[
        "monitor",
        "--scene",
        SINGLE,
        "--state",
        still.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(v["verdict"], "go", "{v}");
    let d = v["min_distance"].as_f64().unwrap();
    assert!(d > 0.0);
    // The same pose turning fast toward the crate must brake.
    let fast = state_file(
        "fast",
        "config: [-1.5, 0.0, 0.0], velocities: [6.0, 0.0, 0.0], latency: 0.1, deceleration: 1.0",
    );
    let v = json(&[
        "monitor",
        "--scene",
        SINGLE,
        "--state",
        fast.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(v["verdict"], "stop", "{v}");
    // A safety distance above the still pose's distance stops it too.
    let v = json(&[
        "monitor",
        "--scene",
        SINGLE,
        "--state",
        still.to_str().unwrap(),
        "--safety-distance",
        &format!("{}", d + 0.01),
        "--json",
    ]);
    assert_eq!(v["verdict"], "stop", "{v}");
}

#[test]
fn text_answer_and_repeats() {
    let st = state_file(
        "text",
        "config: [-1.5, 0.0, 0.0], velocities: [0.1, 0.1, 0.1], latency: 0.02, deceleration: 2.0, operations: Fast, volumes: Capsule",
    );
    let o = armature(&[
        "monitor",
        "--scene",
        SINGLE,
        "--state",
        st.to_str().unwrap(),
        "--repeat",
        "5",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    for row in [
        "verdict",
        "min distance",
        "operations",
        "fast (3 Circ1",
        "capsule volumes",
        "cycles",
    ] {
        assert!(text.contains(row), "`{row}` in\n{text}");
    }
}

#[test]
fn bad_inputs_exit_2_naming_the_input() {
    let ok = "latency: 0.02, deceleration: 2.0";
    let cases: Vec<(PathBuf, Vec<&str>, &str)> = vec![
        (
            state_file(
                "len",
                &format!("config: [0.0, 0.0], velocities: [0.0, 0.0, 0.0], {ok}"),
            ),
            vec![],
            "config",
        ),
        (
            state_file(
                "vlen",
                &format!("config: [0.0, 0.0, 0.0], velocities: [0.0], {ok}"),
            ),
            vec![],
            "velocities",
        ),
        (
            state_file(
                "nan",
                &format!("config: [0.0, 0.0, 0.0], velocities: [0.0, NaN, 0.0], {ok}"),
            ),
            vec![],
            "velocities",
        ),
        (
            state_file(
                "unknown",
                &format!("config: [0.0, 0.0, 0.0], velocities: [0.0, 0.0, 0.0], {ok}, speed: 3.0"),
            ),
            vec![],
            "speed",
        ),
        (
            state_file(
                "joint",
                &format!(
                    "config: [0.0, 0.0, 0.0], velocities: [0.0, 0.0, 0.0], {ok}, joints: {{\"arm/nope\": Braking(latency: 0.1)}}"
                ),
            ),
            vec![],
            "arm/nope",
        ),
        (
            state_file(
                "decel",
                "config: [0.0, 0.0, 0.0], velocities: [0.0, 0.0, 0.0], latency: 0.02, deceleration: 0.0",
            ),
            vec![],
            "deceleration",
        ),
        (
            state_file(
                "ops",
                &format!(
                    "config: [0.0, 0.0, 0.0], velocities: [0.0, 0.0, 0.0], {ok}, joint_operations: {{\"arm/nope\": Fast}}"
                ),
            ),
            vec![],
            "arm/nope",
        ),
        (
            state_file(
                "fine",
                &format!("config: [0.0, 0.0, 0.0], velocities: [0.0, 0.0, 0.0], {ok}"),
            ),
            vec!["--safety-factor", "0.5"],
            "safety_factor",
        ),
        (
            state_file(
                "fine2",
                &format!("config: [0.0, 0.0, 0.0], velocities: [0.0, 0.0, 0.0], {ok}"),
            ),
            vec!["--repeat", "0"],
            "--repeat",
        ),
        (
            PathBuf::from("no/such/state.ron"),
            vec![],
            "no/such/state.ron",
        ),
    ];
    for (file, extra, named) in cases {
        let f = file.to_str().unwrap().to_owned();
        let mut args = vec!["monitor", "--scene", SINGLE, "--state", &f];
        args.extend(extra.iter().copied());
        let o = armature(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains(named), "{args:?}: `{named}` not named in: {e}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
}

/// The example of docs/cli.md: the fixture state file answers as shown.
#[test]
fn the_documented_example_runs() {
    let v = json(&[
        "monitor",
        "--scene",
        SINGLE,
        "--state",
        "tests/fixtures/arm_state.ron",
        "--json",
    ]);
    assert_eq!(v["verdict"], "go");
    assert_eq!(v["pair"]["a"], "arm/base");
    assert_eq!(v["pair"]["b"], "arm/fore");
    assert_eq!(v["operations"]["volumes"], "fitted");
    let d = v["min_distance"].as_f64().unwrap();
    assert!((d - 0.030454).abs() < 1e-6, "{d}");
}

/// A moving volume in the state file is monitored against every link: a
/// cart far away changes nothing, one at the still arm's wrist stops it,
/// and the pair names the cart.
#[test]
fn moving_volumes_in_the_state_file() {
    let base =
        "config: [-1.5, 0.0, 0.0], velocities: [0.0, 0.0, 0.0], latency: 0.02, deceleration: 2.0";
    let far = state_file(
        "cart_far",
        &format!(
            "{base}, moving: [Moving(name: \"cart\", points: [(5.0, 5.0, 0.0), (5.5, 5.0, 0.0)], radius: 0.2)]"
        ),
    );
    let v = json(&[
        "monitor",
        "--scene",
        SINGLE,
        "--state",
        far.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(v["verdict"], "go", "{v}");
    assert_eq!(v["stats"]["pairs"], 7 + 4, "{v}");
    // The wrist of the still arm, straight up: where forward kinematics
    // puts it.
    let scene = scene();
    let q = [-1.5, 0.0, 0.0];
    let poses = scene.body().tree().poses(&q).unwrap();
    let wrist = scene.body().tree().link_index("arm/wrist").unwrap();
    let p = poses[wrist].translation;
    let near = state_file(
        "cart_near",
        &format!(
            "{base}, moving: [Moving(name: \"cart\", points: [({}, {}, {})], radius: 0.05)]",
            p.x, p.y, p.z
        ),
    );
    let v = json(&[
        "monitor",
        "--scene",
        SINGLE,
        "--state",
        near.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(v["verdict"], "stop", "{v}");
    assert_eq!(v["pair"]["b"], "cart", "{v}");
}
