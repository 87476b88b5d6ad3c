//! The `armature` command line's error messages, in the user's terms:
//! options by their flags, scene-file fields by their names, a motion too
//! large by its joint and values; no internal names, no repeated text.
//! Each message is a snapshot of stderr (exit status 2, nothing on
//! stdout).

use std::process::Command;

const SINGLE: &str = "tests/fixtures/single.ron";

/// The stderr of a command that must fail on bad input.
fn message(args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_armature"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the armature binary runs");
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(o.stdout.is_empty(), "{args:?}");
    err
}

fn toc(extra: &[&str]) -> String {
    let mut args = vec!["toc", "--scene", SINGLE, "--from", "0,0,0", "--to", "0,0,0"];
    args.extend_from_slice(extra);
    message(&args)
}

/// Words of the library's own option and parameter names that the
/// command line's user never typed.
const INTERNAL: [&str; 5] = [
    "max_iterations_per_pair",
    "omega",
    "`cap`",
    "continuous collision query",
    "custom:",
];

fn assert_user_terms(m: &str) {
    for word in INTERNAL {
        assert!(!m.contains(word), "`{word}` in {m}");
    }
}

#[test]
fn options_are_named_by_their_flags() {
    let cases = [
        ("max_iterations_zero", toc(&["--max-iterations", "0"])),
        ("threshold_negative", toc(&["--threshold", "-1"])),
        ("threshold_nan", toc(&["--threshold", "NaN"])),
        ("threshold_too_small", toc(&["--threshold", "1e-300"])),
        (
            "threads_zero",
            message(&["toc", "--scene", SINGLE, "--batch", "-", "--threads", "0"]),
        ),
    ];
    for (name, m) in cases {
        assert_user_terms(&m);
        assert!(!m.contains("distance_threshold"), "{m}");
        insta::assert_snapshot!(name, m);
    }
}

#[test]
fn a_threshold_from_the_scene_is_named_by_its_field() {
    let m = message(&[
        "toc",
        "--scene",
        "tests/fixtures/bad/tiny_threshold.ron",
        "--from",
        "0,0,0",
        "--to",
        "0,0,0",
    ]);
    assert_user_terms(&m);
    insta::assert_snapshot!(m);
}

#[test]
fn an_unknown_package_names_the_scene_fields() {
    let m = message(&["info", "--scene", "tests/fixtures/bad/unknown_package.ron"]);
    assert!(
        m.contains("`packages`") && m.contains("`package_root`"),
        "{m}"
    );
    insta::assert_snapshot!(m);
}

#[test]
fn an_overflowing_motion_names_its_joint_and_values() {
    let cases = [
        // The enclosure of the swing overflows.
        (
            "overflow_swing",
            message(&[
                "toc",
                "--scene",
                SINGLE,
                "--from",
                "0,0,0",
                "--to",
                "1e308,1e308,0",
            ]),
        ),
        // The swing itself is not a finite number.
        (
            "overflow_difference",
            message(&[
                "toc",
                "--scene",
                SINGLE,
                "--from=-1.7e308,0,0",
                "--to",
                "1.7e308,0,0",
            ]),
        ),
    ];
    for (name, m) in cases {
        assert_user_terms(&m);
        assert!(m.contains("arm/shoulder"), "{m}");
        insta::assert_snapshot!(name, m);
    }
    // The same motion in a batch: the line's error, in its field names.
    let o = Command::new(env!("CARGO_BIN_EXE_armature"))
        .args(["toc", "--scene", SINGLE, "--batch", "-"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().expect("stdin is piped").write_all(
                b"{\"id\": \"far\", \"from\": [0, 0, 0], \"to\": [1e308, 1e308, 0]}\n",
            )?;
            child.wait_with_output()
        })
        .expect("the armature binary runs");
    assert_eq!(o.status.code(), Some(0));
    insta::assert_snapshot!("overflow_batch", String::from_utf8_lossy(&o.stdout));
}

#[test]
fn scene_file_errors_say_it_once() {
    for name in [
        "syntax",
        "unknown_field",
        "missing_field",
        "malformed_urdf",
        "zero_threshold",
    ] {
        let m = message(&["info", "--scene", &format!("tests/fixtures/bad/{name}.ron")]);
        assert_user_terms(&m);
        // One line: no cause repeats what the message says.
        assert_eq!(m.lines().count(), 1, "{m}");
        // Every file is named once.
        for file in m
            .split(['`', ' ', ':'])
            .filter(|w| w.contains(".ron") || w.contains(".urdf"))
        {
            assert_eq!(m.matches(file).count(), 1, "`{file}` repeated in {m}");
        }
        insta::assert_snapshot!(format!("scene_{name}"), m);
    }
}

/// Inputs that are probably mistakes are said, not silently taken: the
/// degenerate triangles a mesh loses are a `warning:` line on stderr for
/// every command, and `info` counts them per obstacle, in text and JSON.
#[test]
fn dropped_triangles_are_said() {
    let run = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_armature"))
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("the armature binary runs");
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        (
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let scene = "tests/fixtures/dirty.ron";
    let warning = "warning: obstacle `dirty`: 2 degenerate triangles dropped\n";
    let (text, err) = run(&["info", "--scene", scene]);
    assert_eq!(err, warning);
    assert!(
        text.contains("  dirty  4 triangles (2 degenerate dropped)\n"),
        "{text}"
    );
    assert!(
        text.contains("\nwarnings (1)\n  obstacle `dirty`: 2 degenerate triangles dropped\n"),
        "{text}"
    );
    let (json, err) = run(&["info", "--scene", scene, "--json"]);
    assert_eq!(err, warning);
    let v: serde_json::Value = serde_json::from_str(&json).expect("one JSON object");
    assert_eq!(v["obstacles"][0]["dropped_triangles"], 2);
    assert_eq!(v["links"][0]["dropped_triangles"], 0);
    assert_eq!(
        v["warnings"][0],
        "obstacle `dirty`: 2 degenerate triangles dropped"
    );
    let (_, err) = run(&["check", "--scene", scene, "--config", "0,0,0"]);
    assert_eq!(err, warning);
    // A clean scene says nothing.
    let (_, err) = run(&["info", "--scene", SINGLE]);
    assert_eq!(err, "");
}
