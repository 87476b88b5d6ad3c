//! Scene files: every malformed file gives a typed error naming the file
//! and the field, and no scene text makes the reader panic.

use std::path::{Path, PathBuf};

use armature::{Error, Scene};
use proptest::prelude::*;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn bad(name: &str) -> (PathBuf, Error) {
    let path = fixtures().join("bad").join(format!("{name}.ron"));
    match Scene::from_file(&path) {
        Ok(_) => panic!("{name}: a malformed scene loaded"),
        Err(e) => (path, e),
    }
}

/// Asserts a [`Error::SceneField`] for `name` naming its file and `field`,
/// with `words` in the message.
fn field_error(name: &str, field: &str, words: &str) {
    let (path, e) = bad(name);
    match &e {
        Error::SceneField {
            file: Some(file),
            field: f,
            message,
        } => {
            assert_eq!(file, &path, "{name}");
            assert_eq!(f, field, "{name}");
            assert!(message.contains(words), "{name}: {message}");
        }
        other => panic!("{name}: expected a field error, got {other:?}"),
    }
    let text = e.to_string();
    assert!(text.contains(&format!("{name}.ron")), "{text}");
    assert!(text.contains(&format!("`{field}`")), "{text}");
}

/// Asserts a [`Error::SceneSyntax`] for `name` at `line` naming `field`.
fn syntax_error(name: &str, line: usize, field: Option<&str>, words: &str) {
    let (path, e) = bad(name);
    match &e {
        Error::SceneSyntax {
            file,
            line: l,
            column,
            field: f,
            message,
        } => {
            assert_eq!(file, &path, "{name}");
            assert_eq!(*l, line, "{name}: {message}");
            assert!(*column >= 1);
            assert_eq!(f.as_deref(), field, "{name}");
            assert!(message.contains(words), "{name}: {message}");
        }
        other => panic!("{name}: expected a syntax error, got {other:?}"),
    }
    assert!(
        e.to_string().contains(&format!("{name}.ron:{line}:")),
        "{e}"
    );
}

#[test]
fn good_fixtures_load() {
    let cell = Scene::from_file(fixtures().join("cell.ron")).expect("cell.ron loads");
    assert_eq!(cell.nq(), 6);
    assert_eq!(cell.obstacles().len(), 2);
    assert_eq!(cell.source(), Some(fixtures().join("cell.ron").as_path()));
    let single = Scene::from_file(fixtures().join("single.ron")).expect("single.ron loads");
    assert_eq!(single.nq(), 3);
    assert!(single.self_collision());
    assert_eq!(
        single.distance_threshold(),
        armature::DEFAULT_DISTANCE_THRESHOLD
    );
}

#[test]
fn bad_ron_syntax() {
    syntax_error("syntax", 5, None, "comma");
}

#[test]
fn unknown_field() {
    syntax_error("unknown_field", 3, Some("colour"), "colour");
}

#[test]
fn missing_required_field() {
    syntax_error("missing_field", 3, Some("urdf"), "urdf");
}

#[test]
fn missing_mesh_file() {
    field_error("missing_mesh", "obstacles[0].mesh", "no_such_crate.stl");
}

#[test]
fn missing_urdf_file() {
    field_error("missing_urdf", "bodies[0].urdf", "no_such_arm.urdf");
}

#[test]
fn malformed_urdf_file() {
    field_error("malformed_urdf", "bodies[0].urdf", "nowhere");
}

#[test]
fn non_unit_quaternion() {
    field_error(
        "non_unit_quaternion",
        "obstacles[0].pose.rotation",
        "not a unit quaternion",
    );
}

#[test]
fn unknown_name_in_disabled_pairs() {
    field_error("unknown_disabled_pair", "disabled_pairs[1]", "arm/elbow");
}

#[test]
fn ambiguous_name_in_disabled_pairs() {
    // An obstacle named like a link is rejected by its name, before any
    // pair uses it.
    field_error(
        "ambiguous_disabled_pair",
        "obstacles[1].name",
        "`arm/fore` contains `/`",
    );
}

#[test]
fn skip_adjacent_is_read_and_defaults_to_on() {
    let single = Scene::from_file(fixtures().join("single.ron")).expect("single.ron loads");
    assert!(single.skip_adjacent());
    let body = r#"bodies: [Body(name: "arm", urdf: "robot/arm.urdf")]"#;
    for on in [true, false] {
        let text = format!("Scene({body}, skip_adjacent: {on})");
        let scene = Scene::from_ron_str(&text, &fixtures()).expect("the scene loads");
        assert_eq!(scene.skip_adjacent(), on);
        // `upper` hangs from `base` by the shoulder: adjacent.
        let tree = scene.body().tree();
        let (base, upper) = (
            tree.link_index("arm/base").unwrap(),
            tree.link_index("arm/upper").unwrap(),
        );
        assert_eq!(scene.link_pair_allowed(base, upper), !on);
    }
    let e = Scene::from_ron_str(&format!("Scene({body}, skip_adjacent: 1)"), &fixtures())
        .expect_err("not a bool");
    assert!(matches!(e, Error::SceneSyntax { .. }), "{e:?}");
    let e = Scene::from_ron_str(
        &format!("Scene({body}, skip_adjacents: false)"),
        &fixtures(),
    )
    .expect_err("unknown field");
    assert!(
        matches!(&e, Error::SceneSyntax { field: Some(f), .. } if f == "skip_adjacents"),
        "{e:?}"
    );
}

#[test]
fn non_positive_distance_threshold() {
    field_error("zero_threshold", "distance_threshold", "positive");
}

#[test]
fn duplicate_obstacle_names() {
    field_error("duplicate_obstacles", "obstacles[1].name", "`crate`");
}

#[test]
fn missing_scene_file() {
    let path = fixtures().join("no_such_scene.ron");
    match Scene::from_file(&path) {
        Err(Error::Io { file, source }) => {
            assert_eq!(file, path);
            assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
        }
        other => panic!("expected an I/O error, got {other:?}"),
    }
}

#[test]
fn text_errors_name_the_text() {
    let e = Scene::from_ron_str("Scene(bodies: [], colour: 1)", &fixtures())
        .expect_err("unknown field");
    assert!(
        matches!(&e, Error::SceneSyntax { file, field: Some(f), .. }
            if file == Path::new("<text>") && f == "colour"),
        "{e:?}"
    );
    let e = Scene::from_ron_str("Scene(bodies: [])", &fixtures()).expect_err("no body");
    assert!(
        matches!(&e, Error::SceneField { field, .. } if field == "bodies"),
        "{e:?}"
    );
}

#[test]
fn bad_configurations_are_typed() {
    let scene = Scene::from_file(fixtures().join("single.ron")).expect("single.ron loads");
    for (text, words) in [
        ("0,0", "expected 3 values (arm: 3), got 2"),
        ("0,0,0,0", "got 4"),
        ("0,NaN,0", "arm/elbow"),
        ("0,x,0", "`x` is not a number"),
    ] {
        match scene.parse_configuration("--from", text) {
            Err(Error::Configuration { which, message }) => {
                assert_eq!(which, "--from");
                assert!(message.contains(words), "{text}: {message}");
            }
            other => panic!("{text}: expected a configuration error, got {other:?}"),
        }
    }
}

/// One edit of the scene text.
#[derive(Clone, Debug)]
enum Edit {
    /// Replace the byte at this fraction of the length.
    Replace(f64, u8),
    /// Insert a byte.
    Insert(f64, u8),
    /// Delete a run of bytes.
    Delete(f64, usize),
    /// Keep only this fraction of the text.
    Truncate(f64),
}

fn edit() -> impl Strategy<Value = Edit> {
    // Bytes the RON grammar cares about, so that many edits reach the
    // schema and the loaders instead of stopping at the first character.
    let byte = prop_oneof![
        prop::sample::select(b"()[],:\"'/.-+0123456789eE_ \nabxyz".to_vec()),
        any::<u8>(),
    ];
    prop_oneof![
        (0.0..1.0, byte.clone()).prop_map(|(at, b)| Edit::Replace(at, b)),
        (0.0..1.0, byte).prop_map(|(at, b)| Edit::Insert(at, b)),
        (0.0..1.0, 1..12_usize).prop_map(|(at, n)| Edit::Delete(at, n)),
        (0.0..1.0).prop_map(Edit::Truncate),
    ]
}

fn apply(text: &[u8], edits: &[Edit]) -> String {
    let mut bytes = text.to_vec();
    for e in edits {
        let at = |f: f64, len: usize| ((f * len as f64) as usize).min(len);
        match *e {
            Edit::Replace(f, b) => {
                if !bytes.is_empty() {
                    let i = at(f, bytes.len() - 1);
                    bytes[i] = b;
                }
            }
            Edit::Insert(f, b) => {
                let i = at(f, bytes.len());
                bytes.insert(i, b);
            }
            Edit::Delete(f, n) => {
                let i = at(f, bytes.len());
                let j = (i + n).min(bytes.len());
                bytes.drain(i..j);
            }
            Edit::Truncate(f) => {
                let i = at(f, bytes.len());
                bytes.truncate(i);
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Mutated scene text gives a scene or an error, never a panic.
    #[test]
    fn mutated_scene_text_never_panics(edits in prop::collection::vec(edit(), 1..5)) {
        let dir = fixtures();
        let text = std::fs::read(dir.join("cell.ron")).expect("cell.ron is readable");
        let mutated = apply(&text, &edits);
        if let Ok(scene) = Scene::from_ron_str(&mutated, &dir) {
            // What loads is a usable scene.
            prop_assert!(scene.num_links() > 0);
            prop_assert!(scene.distance_threshold() > 0.0);
        }
    }
}
