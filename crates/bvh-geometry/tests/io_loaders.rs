//! STL and OBJ import: fixtures, unit scale, object selection, and errors
//! that name the file and line.
#![cfg(feature = "io")]

use std::path::PathBuf;

use armature_bvh_geometry::io::{
    LoadOptions, ObjectSelection, load_mesh, load_obj, load_obj_bytes, load_obj_str, load_stl,
    load_stl_bytes,
};
use armature_bvh_geometry::{DegeneratePolicy, GeometryError, MeshOptions, TriMesh};
use glam::DVec3;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn assert_unit_cube(mesh: &TriMesh, scale: f64) {
    assert_eq!(mesh.num_vertices(), 8);
    assert_eq!(mesh.num_triangles(), 12);
    let mp = mesh.mass_properties().expect("a closed, outward cube");
    let v = scale.powi(3);
    assert!((mp.volume - v).abs() <= 1e-12 * v, "volume {}", mp.volume);
    assert!((mp.centroid - DVec3::splat(0.5 * scale)).length() <= 1e-12 * scale);
}

#[test]
fn stl_ascii_and_binary_cubes() {
    let opts = LoadOptions::default();
    let ascii = load_stl(fixture("cube_ascii.stl"), &opts).expect("ascii cube");
    assert_unit_cube(&ascii, 1.0);
    // The binary fixture's header starts with "solid"; its size decides.
    let binary = load_stl(fixture("cube_binary.stl"), &opts).expect("binary cube");
    assert_unit_cube(&binary, 1.0);
    assert_eq!(ascii, binary);
    let mm = load_mesh(fixture("cube_binary.stl"), &opts.clone().with_scale(1e-3)).expect("mm");
    assert_unit_cube(&mm, 1e-3);
}

#[test]
fn stl_ascii_header_variants() {
    let facet = "facet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\n";
    for header in ["solid\n", "solid\t\n", "solid \r\n", "solid name\n"] {
        let text = format!("{header}{facet}endsolid\n");
        let mesh = load_stl_bytes(text.as_bytes(), &LoadOptions::default())
            .unwrap_or_else(|e| panic!("{header:?}: {e}"));
        assert_eq!(mesh.num_triangles(), 1);
    }
}

#[test]
fn stl_errors_name_file_and_place() {
    let opts = LoadOptions::default();
    let path = fixture("malformed_ascii.stl");
    match load_stl(&path, &opts) {
        Err(GeometryError::MalformedFile {
            file,
            line,
            message,
        }) => {
            assert_eq!(file, path.display().to_string());
            assert_eq!(line, Some(16), "facet 2 starts on line 16");
            assert!(message.starts_with("facet 2:"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    match load_stl(fixture("truncated_binary.stl"), &opts) {
        Err(GeometryError::MalformedFile {
            line: None,
            message,
            ..
        }) => {
            assert!(
                message.contains("truncated") && message.contains("12 facets"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    match load_stl(fixture("empty_ascii.stl"), &opts) {
        Err(GeometryError::InvalidFileMesh { source, .. }) => {
            assert_eq!(*source, GeometryError::EmptyMesh { dropped: 0 });
        }
        other => panic!("{other:?}"),
    }
    match load_stl(fixture("does_not_exist.stl"), &opts) {
        Err(GeometryError::FileRead { file, kind, .. }) => {
            assert!(file.ends_with("does_not_exist.stl"));
            assert_eq!(kind, std::io::ErrorKind::NotFound);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        load_stl_bytes(b"abc", &opts),
        Err(GeometryError::MalformedFile { .. })
    ));
    assert!(matches!(
        load_stl_bytes(b"", &opts),
        Err(GeometryError::MalformedFile { .. })
    ));
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            load_stl(fixture("cube_ascii.stl"), &opts.clone().with_scale(bad)),
            Err(GeometryError::InvalidParameter { name: "scale", .. })
        ));
    }
    // A scale that overflows f64 is a validation error naming the file.
    let far = b"solid\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 2 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid\n";
    match load_stl_bytes(far, &opts.clone().with_scale(f64::MAX)) {
        Err(GeometryError::InvalidFileMesh { file, source, .. }) => {
            assert_eq!(file, "<memory>");
            assert!(matches!(
                *source,
                GeometryError::NonFiniteVertex { index: 1, .. }
            ));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn stl_binary_nan_and_degenerate_facets() {
    let mut bytes = std::fs::read(fixture("cube_binary.stl")).expect("fixture");
    // Facet 3, corner 1, y := NaN.
    let at = 84 + 50 * 3 + 12 + 12 + 4;
    bytes[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    match load_stl_bytes(&bytes, &LoadOptions::default()) {
        Err(GeometryError::MalformedFile { file, message, .. }) => {
            assert_eq!(file, "<memory>");
            assert!(message.starts_with("facet 3: corner 1"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    // Facet 5 collapsed onto a line: dropped by default, an error naming
    // the facet when rejected.
    let mut bytes = std::fs::read(fixture("cube_binary.stl")).expect("fixture");
    let facet5 = 84 + 50 * 5 + 12;
    let first: [u8; 12] = bytes[facet5..facet5 + 12].try_into().expect("12 bytes");
    bytes[facet5 + 24..facet5 + 36].copy_from_slice(&first);
    let mesh = load_stl_bytes(&bytes, &LoadOptions::default()).expect("dropped");
    assert_eq!(mesh.num_triangles(), 11);
    let reject = LoadOptions::default()
        .with_mesh_options(MeshOptions::default().with_degenerate(DegeneratePolicy::Reject));
    match load_stl_bytes(&bytes, &reject) {
        Err(GeometryError::InvalidFileMesh { source, .. }) => {
            assert!(matches!(
                *source,
                GeometryError::DegenerateTriangle { triangle: 5, .. }
            ));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn obj_cube_with_quads_groups_and_relative_indices() {
    let mesh = load_obj(fixture("cube_quads.obj"), &LoadOptions::default()).expect("cube");
    // Groups duplicate their seams in the parser; welding closes the cube.
    assert_unit_cube(&mesh, 1.0);
    let scaled = load_mesh(
        fixture("cube_quads.obj"),
        &LoadOptions::default().with_scale(25.4),
    )
    .expect("inches");
    assert_unit_cube(&scaled, 25.4);
    let upper = fixture("cube_quads.obj");
    assert!(matches!(
        load_mesh(upper.with_extension("ply"), &LoadOptions::default()),
        Err(GeometryError::UnsupportedFormat { .. })
    ));
}

#[test]
fn obj_objects_merged_or_selected() {
    let path = fixture("two_objects.obj");
    let all = load_obj(&path, &LoadOptions::default()).expect("both");
    assert_eq!(all.num_triangles(), 4 + 6);
    let mp = all.mass_properties().expect("two closed shells");
    assert!((mp.volume - (1.0 / 6.0 + 1.0 / 3.0)).abs() < 1e-15);
    let pick =
        |name: &str| LoadOptions::default().with_objects(ObjectSelection::Named(name.into()));
    let tetra = load_obj(&path, &pick("tetra")).expect("tetra");
    assert_eq!(tetra.num_triangles(), 4);
    assert!((tetra.mass_properties().expect("closed").volume - 1.0 / 6.0).abs() < 1e-15);
    let pyramid = load_obj(&path, &pick("pyramid")).expect("pyramid");
    assert_eq!(pyramid.num_triangles(), 6);
    assert_eq!(pyramid.num_vertices(), 5);
    match load_obj(&path, &pick("sphere")) {
        Err(GeometryError::UnknownObject {
            name, available, ..
        }) => {
            assert_eq!(name, "sphere");
            assert_eq!(available, vec!["tetra".to_owned(), "pyramid".to_owned()]);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn obj_errors_name_file_and_line() {
    let opts = LoadOptions::default();
    let expect = |name: &str, want_line: usize, want: &str| {
        let path = fixture(name);
        match load_obj(&path, &opts) {
            Err(GeometryError::MalformedFile {
                file,
                line,
                message,
            }) => {
                assert_eq!(file, path.display().to_string());
                assert_eq!(line, Some(want_line), "{name}: {message}");
                assert!(message.contains(want), "{name}: {message}");
            }
            other => panic!("{name}: {other:?}"),
        }
    };
    expect("bad_vertex.obj", 5, "three numbers");
    expect(
        "bad_index.obj",
        6,
        "refers to vertex 4, but only 3 are defined above",
    );
    expect("not_utf8.obj", 4, "UTF-8");
    match load_obj(fixture("no_faces.obj"), &opts) {
        Err(e @ GeometryError::InvalidFileMesh { .. }) => {
            assert!(
                e.to_string().ends_with(
                    "no_faces.obj: the mesh has no triangles (0 degenerate triangles dropped)"
                ),
                "{e}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        load_obj(fixture("missing.obj"), &opts),
        Err(GeometryError::FileRead {
            kind: std::io::ErrorKind::NotFound,
            ..
        })
    ));
}

#[test]
fn obj_line_numbers_for_many_mistakes() {
    let opts = LoadOptions::default();
    let cases: &[(&str, usize, &str)] = &[
        ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 0\n", 4, "index 0"),
        ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -4\n", 4, "-4 (relative)"),
        (
            "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/1 2 3\n",
            4,
            "texture coordinate 1",
        ),
        ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1//2 2 3\n", 4, "normal 2"),
        (
            "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/2/3/4 2 3\n",
            4,
            "more than three",
        ),
        ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf a 2 3\n", 4, "not an index"),
        ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf\n", 4, "needs corners"),
        (
            "v 0 0 0\nv 1 0 0\nv 0 1 0\nf //1 2 3\n",
            4,
            "no vertex index",
        ),
        ("v 0 0 nan\n", 1, "not finite"),
        ("v 0 0 1e999\n", 1, "not finite"),
        ("v 0 0 1 0\n", 1, "weight is zero"),
        ("v 0 0 1 x\n", 1, "weight"),
        ("v 0 0 1 2 3\n", 1, "2 extra values"),
        ("\n\nvt 0\n", 3, "two numbers"),
        ("vn 0 1\n", 1, "three numbers"),
        ("usemtl\n", 1, "material name"),
    ];
    for &(text, line, want) in cases {
        match load_obj_str(text, &opts) {
            Err(GeometryError::MalformedFile {
                line: l, message, ..
            }) => {
                assert_eq!(l, Some(line), "{text:?}: {message}");
                assert!(message.contains(want), "{text:?}: {message}");
            }
            other => panic!("{text:?}: {other:?}"),
        }
    }
}

#[test]
fn obj_degenerate_face_is_reported_by_line() {
    // The quad on line 6 has a repeated corner: one fan triangle repeats
    // an index.
    let text = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\nf 1 3 3 4\n";
    let reject = LoadOptions::default()
        .with_mesh_options(MeshOptions::default().with_degenerate(DegeneratePolicy::Reject));
    match load_obj_str(text, &reject) {
        Err(e @ GeometryError::InvalidFileMesh { line: Some(6), .. }) => {
            assert_eq!(
                e.to_string(),
                "<memory>:6: triangle 1 is degenerate: two corners use the same vertex index"
            );
        }
        other => panic!("{other:?}"),
    }
    let mesh = load_obj_str(text, &LoadOptions::default()).expect("dropped");
    assert_eq!(mesh.num_triangles(), 2);
}

#[test]
fn obj_colours_polylines_points_and_crlf() {
    let text = "v 0 0 0 1 0 0\r\nv 1 0 0 0 1 0\r\nv 0 1 0\r\nv 0 0 2 2\r\nl 1 2 3\r\np 1\r\nf 1 2 3\r\nf 1 2\r\nf 1 3 4\r\n";
    let mesh = load_obj_str(text, &LoadOptions::default()).expect("valid");
    // The polyline is not a face; points and two-corner faces add nothing;
    // the weight divides vertex 4.
    assert_eq!(mesh.num_triangles(), 2);
    assert!(mesh.vertices().contains(&DVec3::new(0.0, 0.0, 1.0)));
    let bytes = load_obj_bytes(text.as_bytes(), &LoadOptions::default()).expect("valid");
    assert_eq!(bytes, mesh);
}
