//! The loaders never panic: random bytes, mutated fixtures and random OBJ
//! statements all give a mesh or a typed error.
#![cfg(feature = "io")]

use armature_bvh_geometry::TriMesh;
use armature_bvh_geometry::io::{
    LoadOptions, load_dae_bytes, load_obj_bytes, load_obj_str, load_stl_bytes,
};
use proptest::prelude::*;

const FIXTURES: &[&[u8]] = &[
    include_bytes!("fixtures/cube_ascii.stl"),
    include_bytes!("fixtures/cube_binary.stl"),
    include_bytes!("fixtures/truncated_binary.stl"),
    include_bytes!("fixtures/malformed_ascii.stl"),
    include_bytes!("fixtures/empty_ascii.stl"),
    include_bytes!("fixtures/cube_quads.obj"),
    include_bytes!("fixtures/two_objects.obj"),
    include_bytes!("fixtures/bad_index.obj"),
    include_bytes!("fixtures/bad_vertex.obj"),
    include_bytes!("fixtures/not_utf8.obj"),
    include_bytes!("fixtures/cube_cm.dae"),
    include_bytes!("fixtures/two_parts.dae"),
];

fn check(mesh: Result<TriMesh, armature_bvh_geometry::GeometryError>) -> Result<(), TestCaseError> {
    if let Ok(mesh) = mesh {
        prop_assert!(mesh.num_triangles() >= 1);
        prop_assert!(mesh.vertices().iter().all(|v| v.is_finite()));
        prop_assert!(
            mesh.indices()
                .iter()
                .flatten()
                .all(|&i| (i as usize) < mesh.num_vertices())
        );
    } else if let Err(e) = mesh {
        // Every error renders.
        prop_assert!(!e.to_string().is_empty());
    }
    Ok(())
}

fn load_all(bytes: &[u8]) -> Result<(), TestCaseError> {
    let opts = LoadOptions::default();
    check(load_stl_bytes(bytes, &opts))?;
    check(load_obj_bytes(bytes, &opts))?;
    check(load_obj_str(&String::from_utf8_lossy(bytes), &opts))?;
    check(load_dae_bytes(bytes, &opts))?;
    Ok(())
}

/// One edit of a byte string.
#[derive(Debug, Clone)]
enum Edit {
    Flip(prop::sample::Index, u8),
    Set(prop::sample::Index, u8),
    Insert(prop::sample::Index, Vec<u8>),
    Delete(prop::sample::Index, usize),
    Truncate(prop::sample::Index),
    Duplicate(prop::sample::Index, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let idx = any::<prop::sample::Index>();
    prop_oneof![
        (idx.clone(), 0u8..8).prop_map(|(i, b)| Edit::Flip(i, 1 << b)),
        (idx.clone(), any::<u8>()).prop_map(|(i, b)| Edit::Set(i, b)),
        (idx.clone(), prop::collection::vec(any::<u8>(), 1..16))
            .prop_map(|(i, b)| Edit::Insert(i, b)),
        (idx.clone(), 1usize..64).prop_map(|(i, n)| Edit::Delete(i, n)),
        idx.clone().prop_map(Edit::Truncate),
        (idx, 1usize..200).prop_map(|(i, n)| Edit::Duplicate(i, n)),
    ]
}

fn apply(bytes: &mut Vec<u8>, e: &Edit) {
    if bytes.is_empty() {
        bytes.push(0);
    }
    let n = bytes.len();
    match e {
        Edit::Flip(i, m) => bytes[i.index(n)] ^= m,
        Edit::Set(i, b) => bytes[i.index(n)] = *b,
        Edit::Insert(i, b) => {
            let at = i.index(n + 1);
            bytes.splice(at..at, b.iter().copied());
        }
        Edit::Delete(i, k) => {
            let at = i.index(n);
            bytes.drain(at..(at + k).min(n));
        }
        Edit::Truncate(i) => bytes.truncate(i.index(n)),
        Edit::Duplicate(i, k) => {
            let at = i.index(n);
            let piece: Vec<u8> = bytes[at..(at + k).min(n)].to_vec();
            bytes.splice(at..at, piece);
        }
    }
}

/// A random OBJ statement, biased towards the ones that reach the parser's
/// arithmetic: faces with extreme, relative and mixed indices.
fn obj_line() -> impl Strategy<Value = String> {
    let num = prop_oneof![
        (-5.0..5.0f64).prop_map(|x| x.to_string()),
        prop::sample::select(vec![
            "0", "-0", "1e308", "-1e309", "nan", "inf", "x", "1e-320", ""
        ])
        .prop_map(str::to_owned),
    ];
    let index = prop_oneof![
        6 => (-6i64..8).prop_map(|i| i.to_string()),
        1 => prop::sample::select(vec![
            "9223372036854775807",
            "-9223372036854775808",
            "-9223372036854775807",
            "4611686018427387904",
            "-4611686018427387904",
            "18446744073709551615",
            "+1",
            "",
            "a",
        ])
        .prop_map(str::to_owned),
    ];
    let corner = prop_oneof![
        index.clone(),
        (index.clone(), index.clone()).prop_map(|(a, b)| format!("{a}/{b}")),
        (index.clone(), index.clone()).prop_map(|(a, b)| format!("{a}//{b}")),
        (index.clone(), index.clone(), index.clone()).prop_map(|(a, b, c)| format!("{a}/{b}/{c}")),
        (index.clone(), index.clone(), index.clone(), index)
            .prop_map(|(a, b, c, d)| format!("{a}/{b}/{c}/{d}")),
    ];
    prop_oneof![
        4 => prop::collection::vec(num.clone(), 0..8).prop_map(|v| format!("v {}", v.join(" "))),
        1 => prop::collection::vec(num.clone(), 0..4).prop_map(|v| format!("vt {}", v.join(" "))),
        1 => prop::collection::vec(num, 0..4).prop_map(|v| format!("vn {}", v.join(" "))),
        4 => prop::collection::vec(corner.clone(), 0..7).prop_map(|c| format!("f {}", c.join(" "))),
        1 => prop::collection::vec(corner, 0..5).prop_map(|c| format!("l {}", c.join(" "))),
        1 => prop::sample::select(vec![
            "o a", "g b c", " o  spaced ", "o", "g", "usemtl", "usemtl m", "mtllib x.mtl",
            "mtllib", "# comment", "", "s 1", "p 1", "\u{3000}o wide",
        ])
        .prop_map(str::to_owned),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        load_all(&bytes)?;
    }

    #[test]
    fn random_bytes_behind_headers(
        head in prop::sample::select(vec![&b"solid "[..], b"solid\n", b"solid x\nfacet normal ", b"v 0 0 0\nf "]),
        tail in prop::collection::vec(any::<u8>(), 0..300),
        count in any::<u32>(),
        binary in any::<bool>(),
    ) {
        let mut bytes = head.to_vec();
        if binary {
            bytes.resize(80, b' ');
            bytes.extend_from_slice(&count.to_le_bytes());
        }
        bytes.extend_from_slice(&tail);
        load_all(&bytes)?;
    }

    #[test]
    fn mutated_fixtures(
        which in 0..FIXTURES.len(),
        edits in prop::collection::vec(edit(), 1..6),
    ) {
        let mut bytes = FIXTURES[which].to_vec();
        for e in &edits {
            apply(&mut bytes, e);
        }
        load_all(&bytes)?;
    }

    #[test]
    fn random_obj_statements(lines in prop::collection::vec(obj_line(), 0..24)) {
        let text = lines.join("\n");
        check(load_obj_str(&text, &LoadOptions::default()))?;
    }

    /// Well-formed vertices, texture coordinates and normals, then random
    /// statements: the faces reach the parser's index arithmetic.
    #[test]
    fn random_faces_after_valid_data(
        nv in 1usize..6,
        nvt in 0usize..3,
        nvn in 0usize..3,
        lines in prop::collection::vec(obj_line(), 0..12),
    ) {
        let mut text = String::new();
        for i in 0..nv {
            text += &format!("v {} {} {}\n", i % 2, i / 2 % 2, i / 4);
        }
        for _ in 0..nvt {
            text += "vt 0.5 0.5\n";
        }
        for _ in 0..nvn {
            text += "vn 0 0 1\n";
        }
        text += &lines.join("\n");
        check(load_obj_str(&text, &LoadOptions::default()))?;
    }
}
