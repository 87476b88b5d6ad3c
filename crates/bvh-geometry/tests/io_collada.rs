//! COLLADA import: unit and up-axis handling, node transforms, several
//! instances merged, object selection, and errors (never panics) for
//! malformed documents, including the ones the underlying reader would
//! panic or loop on.
#![cfg(feature = "io")]

use std::path::PathBuf;

use armature_bvh_geometry::io::{
    LoadOptions, ObjectSelection, load_dae, load_dae_bytes, load_mesh,
};
use armature_bvh_geometry::{GeometryError, TriMesh};
use glam::DVec3;
use proptest::prelude::*;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn bounds(mesh: &TriMesh) -> (DVec3, DVec3) {
    mesh.vertices().iter().fold(
        (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
        |(lo, hi), &v| (lo.min(v), hi.max(v)),
    )
}

fn assert_close(a: DVec3, b: DVec3, what: &str) {
    // The file's coordinates are 32-bit floats; 100 cm · 0.01 is exact to
    // well within this.
    assert!((a - b).abs().max_element() <= 1e-9, "{what}: {a} vs {b}");
}

const CUBE_CM: &[u8] = include_bytes!("fixtures/cube_cm.dae");
const TWO_PARTS: &[u8] = include_bytes!("fixtures/two_parts.dae");

#[test]
fn centimetre_cube_is_a_metre_cube_and_y_up_is_not_rotated() {
    let mesh = load_dae(fixture("cube_cm.dae"), &LoadOptions::default()).expect("cube");
    assert_eq!(mesh.num_vertices(), 8);
    assert_eq!(mesh.num_triangles(), 12);
    // 100 units of 1 cm, lifted 50 units along z by its node; `Y_UP` is
    // ignored (a rotation to Z-up would put the cube at y in [-1.5, -0.5]).
    let (lo, hi) = bounds(&mesh);
    assert_close(lo, DVec3::new(0.0, 0.0, 0.5), "min");
    assert_close(hi, DVec3::new(1.0, 1.0, 1.5), "max");
    let mp = mesh.mass_properties().expect("closed and outward");
    assert!((mp.volume - 1.0).abs() <= 1e-9, "volume {}", mp.volume);
    // Every corner is a corner of the expected cube.
    for v in mesh.vertices() {
        for (c, lo) in [(v.x, 0.0), (v.y, 0.0), (v.z, 0.5)] {
            assert!(
                (c - lo).abs() <= 1e-9 || (c - lo - 1.0).abs() <= 1e-9,
                "{v}"
            );
        }
    }
}

#[test]
fn extension_dispatch_and_scale_option() {
    let opts = LoadOptions::default().with_scale(2.0);
    let by_ext = load_mesh(fixture("cube_cm.dae"), &opts).expect("dispatch");
    let from_bytes = load_dae_bytes(CUBE_CM, &opts).expect("bytes");
    assert_eq!(by_ext, from_bytes);
    let (lo, hi) = bounds(&by_ext);
    assert_close(lo, DVec3::new(0.0, 0.0, 1.0), "min");
    assert_close(hi, DVec3::new(2.0, 2.0, 3.0), "max");
    // Upper-case extensions too.
    let dir = std::env::temp_dir().join(format!("armature-dae-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let upper = dir.join("CUBE.DAE");
    std::fs::write(&upper, CUBE_CM).unwrap();
    assert_eq!(load_mesh(&upper, &opts).expect("upper case"), by_ext);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn nested_nodes_instances_and_matrices() {
    let mesh = load_dae(fixture("two_parts.dae"), &LoadOptions::default()).expect("two parts");
    // One polylist cube (6 quads, 12 triangles) instanced twice; the
    // geometry no node instances is not loaded.
    assert_eq!(mesh.num_triangles(), 24);
    assert_eq!(mesh.num_vertices(), 16);
    let mp = mesh.mass_properties().expect("closed and outward");
    assert!((mp.volume - 2.0).abs() <= 1e-9, "volume {}", mp.volume);
    // Instance 1: rotated 90 degrees about z, then moved 10 along x by the
    // parent node: x in [9, 10], y in [0, 1]. Instance 2: 5 down.
    let (lo, hi) = bounds(&mesh);
    assert_close(lo, DVec3::new(0.0, 0.0, -5.0), "min");
    assert_close(hi, DVec3::new(10.0, 1.0, 1.0), "max");
    let near = |p: DVec3| mesh.vertices().iter().any(|v| (*v - p).length() <= 1e-9);
    for corner in [DVec3::new(9.0, 0.0, 0.0), DVec3::new(10.0, 1.0, 1.0)] {
        assert!(near(corner), "rotated instance lacks {corner}");
    }
    for corner in [DVec3::new(0.0, 0.0, -5.0), DVec3::new(1.0, 1.0, -4.0)] {
        assert!(near(corner), "matrix instance lacks {corner}");
    }
}

#[test]
fn without_a_visual_scene_every_geometry_loads_where_defined() {
    let text = std::str::from_utf8(TWO_PARTS).unwrap();
    let start = text.find("<library_visual_scenes>").unwrap();
    let end = text.find("</scene>").unwrap() + "</scene>".len();
    let bare = format!("{}{}", &text[..start], &text[end..]);
    let mesh = load_dae_bytes(bare.as_bytes(), &LoadOptions::default()).expect("bare");
    assert_eq!(mesh.num_triangles(), 24);
    let (lo, hi) = bounds(&mesh);
    assert_close(lo, DVec3::ZERO, "min");
    assert_close(hi, DVec3::ONE, "max");
}

#[test]
fn a_mirroring_node_keeps_triangles_outward() {
    let text = std::str::from_utf8(CUBE_CM)
        .unwrap()
        .replace("<translate>0 0 50</translate>", "<scale>-1 1 1</scale>");
    let mesh = load_dae_bytes(text.as_bytes(), &LoadOptions::default()).expect("mirrored");
    let mp = mesh.mass_properties().expect("closed and outward");
    assert!((mp.volume - 1.0).abs() <= 1e-9);
    let (lo, hi) = bounds(&mesh);
    assert_close(lo, DVec3::new(-1.0, 0.0, 0.0), "min");
    assert_close(hi, DVec3::new(0.0, 1.0, 1.0), "max");
}

#[test]
fn object_selection_by_geometry_id_or_name() {
    let text = std::str::from_utf8(TWO_PARTS).unwrap();
    let opts = LoadOptions::default().with_objects(ObjectSelection::Named("box".into()));
    assert_eq!(
        load_dae_bytes(TWO_PARTS, &opts).unwrap().num_triangles(),
        24
    );
    // A geometry no node instances selects nothing to load.
    let spare = LoadOptions::default().with_objects(ObjectSelection::Named("spare".into()));
    assert!(matches!(
        load_dae_bytes(text.as_bytes(), &spare),
        Err(GeometryError::InvalidFileMesh { .. })
    ));
    let none = LoadOptions::default().with_objects(ObjectSelection::Named("nope".into()));
    match load_dae(fixture("two_parts.dae"), &none) {
        Err(GeometryError::UnknownObject {
            file,
            name,
            available,
        }) => {
            assert!(file.ends_with("two_parts.dae"));
            assert_eq!(name, "nope");
            assert_eq!(available, ["box", "spare"]);
        }
        other => panic!("{other:?}"),
    }
}

fn malformed_line(result: Result<TriMesh, GeometryError>) -> (String, Option<usize>, String) {
    match result {
        Err(GeometryError::MalformedFile {
            file,
            line,
            message,
        }) => (file, line, message),
        other => panic!("expected MalformedFile, got {other:?}"),
    }
}

#[test]
fn malformed_xml_names_file_and_line() {
    let (file, line, message) =
        malformed_line(load_dae(fixture("malformed.dae"), &LoadOptions::default()));
    assert!(file.ends_with("malformed.dae"), "{file}");
    assert_eq!(line, Some(7), "{message}");
    assert!(message.contains("XML"), "{message}");
}

#[test]
fn out_of_range_index_names_file_and_line() {
    // The reader indexes positions without a check; this must be an error.
    let (file, line, message) =
        malformed_line(load_dae(fixture("bad_index.dae"), &LoadOptions::default()));
    assert!(file.ends_with("bad_index.dae"), "{file}");
    assert_eq!(line, Some(38), "{message}");
    assert!(
        message.contains("index 99") && message.contains("8 items"),
        "{message}"
    );
}

/// Documents the underlying reader panics, loops or over-allocates on,
/// each with a fragment its error must contain.
#[test]
fn reader_hazards_are_errors() {
    let cube = std::str::from_utf8(CUBE_CM).unwrap();
    let cases: Vec<(String, &str)> = vec![
        // A float array announcing far more values than it holds.
        (
            cube.replace(r#"count="24""#, r#"count="4000000000""#),
            "announces 4000000000 values",
        ),
        // A primitive count far beyond its indices.
        (
            cube.replace(
                r#"<triangles count="12">"#,
                r#"<triangles count="4294967295">"#,
            ),
            "need",
        ),
        // An accessor reading past its array.
        (
            cube.replace(
                r##"source="#cube-positions-array" count="8""##,
                r##"source="#cube-positions-array" count="9""##,
            ),
            "need 27 values",
        ),
        // An accessor with no items.
        (
            cube.replace(
                r##"source="#cube-positions-array" count="8""##,
                r##"source="#cube-positions-array" count="0""##,
            ),
            "count 0",
        ),
        // A reference to a source that does not exist.
        (
            cube.replace(
                r##"source="#cube-normals" offset"##,
                r##"source="#nowhere" offset"##,
            ),
            "`nowhere`",
        ),
        // A VERTEX input that is not the mesh's <vertices>.
        (
            cube.replace(
                r##"<input semantic="VERTEX" source="#cube-vertices""##,
                r##"<input semantic="VERTEX" source="#other""##,
            ),
            "is not the mesh's <vertices>",
        ),
        // A non-empty name array.
        (
            cube.replace(
                r#"<float_array id="cube-normals-array" count="18">"#,
                r#"<Name_array id="cube-normals-array" count="18">"#,
            )
            .replacen(
                "0 0 -1 0 0 1 0 -1 0 0 1 0 -1 0 0 1 0 0</float_array>",
                "a b</Name_array>",
                1,
            ),
            "<Name_array> is not supported",
        ),
        // Input offsets whose stride would overflow.
        (
            cube.replace(r#"offset="1""#, r#"offset="4294967295""#),
            "offset",
        ),
        // Strips would be read as fans.
        (
            cube.replace("<triangles", "<tristrips")
                .replace("</triangles>", "</tristrips>"),
            "<tristrips> is not supported",
        ),
        // An instance of a geometry that does not exist.
        (
            cube.replace(r##"url="#cube""##, r##"url="#ghost""##),
            "`ghost`",
        ),
        // A cycle of node instances.
        (
            cube.replace(
                r##"<instance_geometry url="#cube"/>"##,
                r##"<instance_node url="#cube-node"/>"##,
            ),
            "nest deeper",
        ),
        // Units that are not a length.
        (cube.replace(r#"meter="0.01""#, r#"meter="-1""#), "<unit"),
        // A character XML does not allow.
        (format!("{cube}\u{0}"), "XML"),
    ];
    for (text, fragment) in &cases {
        let result = load_dae_bytes(text.as_bytes(), &LoadOptions::default());
        let (file, _, message) = malformed_line(result);
        assert_eq!(file, "<memory>");
        assert!(message.contains(fragment), "`{fragment}` not in: {message}");
    }
    let latin1 = [&CUBE_CM[..100], &[0xe9], &CUBE_CM[100..]].concat();
    let (_, line, message) = malformed_line(load_dae_bytes(&latin1, &LoadOptions::default()));
    assert_eq!((line, message.as_str()), (Some(2), "invalid UTF-8"));
}

#[test]
fn polygons_of_fewer_than_three_corners_are_errors() {
    let text = std::str::from_utf8(TWO_PARTS).unwrap().replacen(
        "<vcount>4 4 4 4 4 4</vcount>",
        "<vcount>2 6 4 4 4 4</vcount>",
        1,
    );
    let (_, _, message) = malformed_line(load_dae_bytes(text.as_bytes(), &LoadOptions::default()));
    assert!(message.contains("2 corners"), "{message}");
}

// ------------------------------------------------------------ no panic ---

/// One structured edit of a COLLADA text: numbers and lines are what the
/// reader trusts.
#[derive(Debug, Clone)]
enum Edit {
    /// Replaces the n-th run of digits with a value.
    Number(prop::sample::Index, u64),
    /// Deletes a line.
    DeleteLine(prop::sample::Index),
    /// Repeats a line.
    DuplicateLine(prop::sample::Index),
    /// Swaps two lines.
    SwapLines(prop::sample::Index, prop::sample::Index),
}

fn edit() -> impl Strategy<Value = Edit> {
    let idx = any::<prop::sample::Index>();
    let value = prop_oneof![
        0u64..16,
        Just(u64::from(u32::MAX)),
        Just(u64::from(u32::MAX) + 1),
        Just(1u64 << 31),
        any::<u64>(),
    ];
    prop_oneof![
        3 => (idx.clone(), value).prop_map(|(i, v)| Edit::Number(i, v)),
        1 => idx.clone().prop_map(Edit::DeleteLine),
        1 => idx.clone().prop_map(Edit::DuplicateLine),
        1 => (idx.clone(), idx).prop_map(|(a, b)| Edit::SwapLines(a, b)),
    ]
}

fn apply(text: &str, e: &Edit) -> String {
    match e {
        Edit::Number(i, v) => {
            let bytes = text.as_bytes();
            let mut runs = Vec::new();
            let mut k = 0;
            while k < bytes.len() {
                if bytes[k].is_ascii_digit() {
                    let start = k;
                    while k < bytes.len() && bytes[k].is_ascii_digit() {
                        k += 1;
                    }
                    runs.push(start..k);
                } else {
                    k += 1;
                }
            }
            if runs.is_empty() {
                return text.to_owned();
            }
            let r = runs[i.index(runs.len())].clone();
            format!("{}{v}{}", &text[..r.start], &text[r.end..])
        }
        Edit::DeleteLine(i) | Edit::DuplicateLine(i) => {
            let mut lines: Vec<&str> = text.lines().collect();
            let at = i.index(lines.len());
            if matches!(e, Edit::DeleteLine(_)) {
                lines.remove(at);
            } else {
                lines.insert(at, lines[at]);
            }
            lines.join("\n")
        }
        Edit::SwapLines(a, b) => {
            let mut lines: Vec<&str> = text.lines().collect();
            let (a, b) = (a.index(lines.len()), b.index(lines.len()));
            lines.swap(a, b);
            lines.join("\n")
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn edited_documents_never_panic(
        which in 0usize..2,
        edits in prop::collection::vec(edit(), 1..4),
    ) {
        let mut text = std::str::from_utf8([CUBE_CM, TWO_PARTS][which]).unwrap().to_owned();
        for e in &edits {
            text = apply(&text, e);
        }
        match load_dae_bytes(text.as_bytes(), &LoadOptions::default()) {
            Ok(mesh) => {
                prop_assert!(mesh.num_triangles() >= 1);
                prop_assert!(mesh.vertices().iter().all(|v| v.is_finite()));
                prop_assert!(mesh
                    .indices()
                    .iter()
                    .flatten()
                    .all(|&i| (i as usize) < mesh.num_vertices()));
            }
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }
}
