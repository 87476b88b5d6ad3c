//! `TriMesh` construction, accessors, transforms and merging.

use armature_bvh_geometry::{Degeneracy, DegeneratePolicy, GeometryError, MeshOptions, TriMesh};
use glam::{DAffine3, DMat3, DQuat, DVec3};
use proptest::prelude::*;

fn tetra() -> (Vec<DVec3>, Vec<[u32; 3]>) {
    (
        vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z],
        vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
    )
}

#[test]
fn errors_name_the_offending_input() {
    let (mut v, t) = tetra();
    v[2].y = f64::NAN;
    match TriMesh::new(v, t.clone()) {
        Err(GeometryError::NonFiniteVertex { index: 2, value }) => assert!(value.y.is_nan()),
        other => panic!("{other:?}"),
    }
    let (mut v, _) = tetra();
    v[3].z = f64::NEG_INFINITY;
    assert!(matches!(
        TriMesh::new(v, t.clone()),
        Err(GeometryError::NonFiniteVertex { index: 3, .. })
    ));
    let (v, mut t) = tetra();
    t[2][1] = 4;
    let err = TriMesh::new(v, t).unwrap_err();
    assert_eq!(
        err,
        GeometryError::IndexOutOfRange {
            triangle: 2,
            corner: 1,
            index: 4,
            vertex_count: 4
        }
    );
    assert_eq!(
        err.to_string(),
        "triangle 2, corner 1: vertex index 4 is out of range (the mesh has 4 vertices)"
    );
    assert_eq!(
        TriMesh::new(vec![], vec![]),
        Err(GeometryError::EmptyMesh { dropped: 0 })
    );
    assert_eq!(
        TriMesh::new(vec![DVec3::ZERO], vec![]),
        Err(GeometryError::EmptyMesh { dropped: 0 })
    );
    // Every triangle degenerate and dropped: still an empty mesh.
    let line = vec![DVec3::ZERO, DVec3::X, DVec3::X * 2.0];
    assert_eq!(
        TriMesh::new(line, vec![[0, 1, 2], [0, 0, 1]]),
        Err(GeometryError::EmptyMesh { dropped: 2 })
    );
    let bad = MeshOptions::default().with_zero_area_tolerance(f64::NAN);
    let (v, t) = tetra();
    assert!(matches!(
        TriMesh::from_vertices_indices(v, t, &bad),
        Err(GeometryError::InvalidParameter {
            name: "zero_area_tolerance",
            ..
        })
    ));
}

#[test]
fn degenerate_triangles_by_policy() {
    let (mut v, mut t) = tetra();
    v.push(DVec3::new(0.5, 0.5, 0.0)); // 4: on the edge between 1 and 2
    v.push(DVec3::Z); // 5: coincides with 3
    t.insert(1, [1, 2, 4]);
    t.insert(3, [3, 3, 0]);
    t.push([5, 3, 1]);
    let (mesh, report) =
        TriMesh::from_vertices_indices_with_report(v.clone(), t.clone(), &MeshOptions::default())
            .expect("valid");
    assert_eq!(report.dropped_triangles, vec![1, 3, 6]);
    assert_eq!(mesh.indices(), tetra().1.as_slice());
    for kept in 0..4 {
        let input = report.input_triangle(kept, t.len()).expect("in range");
        assert_eq!(mesh.indices()[kept], t[input]);
    }
    let reject = MeshOptions::default().with_degenerate(DegeneratePolicy::Reject);
    let err = TriMesh::from_vertices_indices(v.clone(), t.clone(), &reject).unwrap_err();
    assert_eq!(
        err,
        GeometryError::DegenerateTriangle {
            triangle: 1,
            reason: Degeneracy::ZeroArea
        }
    );
    assert_eq!(
        err.to_string(),
        "triangle 1 is degenerate: its corners are collinear (zero area)"
    );
    t.remove(1);
    assert_eq!(
        TriMesh::from_vertices_indices(v.clone(), t.clone(), &reject),
        Err(GeometryError::DegenerateTriangle {
            triangle: 2,
            reason: Degeneracy::RepeatedIndex
        })
    );
    t.remove(2);
    assert_eq!(
        TriMesh::from_vertices_indices(v.clone(), t.clone(), &reject),
        Err(GeometryError::DegenerateTriangle {
            triangle: 4,
            reason: Degeneracy::CoincidentVertices
        })
    );
    let keep = MeshOptions::default().with_degenerate(DegeneratePolicy::Keep);
    let mesh = TriMesh::from_vertices_indices(v, t, &keep).expect("valid");
    assert_eq!(mesh.num_triangles(), 5);
}

#[test]
fn zero_area_tolerance_is_relative() {
    // A needle whose apex is 1e-9 off the base line, at several scales:
    // kept by default, dropped with a coarser tolerance.
    for s in [1e-6, 1.0, 1e6] {
        let v = vec![DVec3::ZERO, DVec3::X * s, DVec3::new(0.5, 1e-9, 0.0) * s];
        assert!(TriMesh::new(v.clone(), vec![[0, 1, 2]]).is_ok());
        let coarse = MeshOptions::default().with_zero_area_tolerance(1e-8);
        assert!(matches!(
            TriMesh::from_vertices_indices(v, vec![[0, 1, 2]], &coarse),
            Err(GeometryError::EmptyMesh { dropped: 1 })
        ));
    }
}

#[test]
fn accessors() {
    let (v, t) = tetra();
    let mesh = TriMesh::new(v.clone(), t.clone()).expect("valid");
    assert_eq!(mesh.vertices(), v.as_slice());
    assert_eq!(mesh.indices(), t.as_slice());
    assert_eq!(mesh.num_vertices(), 4);
    assert_eq!(mesh.num_triangles(), 4);
    assert_eq!(mesh.triangle(1), [DVec3::ZERO, DVec3::X, DVec3::Z]);
    assert_eq!(mesh.get_triangle(4), None);
    assert_eq!(mesh.triangles().len(), 4);
    assert_eq!(mesh.triangle_normal(0), -DVec3::Z);
    let area = 1.5 + 3f64.sqrt() / 2.0;
    assert!((mesh.surface_area() - area).abs() < 1e-15);
    assert_eq!(mesh.clone().into_parts(), (v, t));
}

#[test]
fn transforms_keep_triangles_and_orientation() {
    let (v, t) = tetra();
    let mesh = TriMesh::new(v, t).expect("valid");
    let m = DAffine3::from_rotation_translation(
        DQuat::from_axis_angle(DVec3::new(1.0, 1.0, 0.0).normalize(), 1.0),
        DVec3::new(3.0, -2.0, 1.0),
    );
    let moved = mesh.transformed(&m).expect("valid");
    assert_eq!(moved.indices(), mesh.indices());
    for (a, b) in mesh.vertices().iter().zip(moved.vertices()) {
        assert!((m.transform_point3(*a) - *b).length() < 1e-15);
    }
    // A mirror reverses winding, so the volume stays positive.
    let mirror = DAffine3::from_mat3(DMat3::from_diagonal(DVec3::new(-1.0, 1.0, 1.0)));
    let mirrored = mesh.transformed(&mirror).expect("valid");
    assert_eq!(mirrored.indices()[0], [0, 1, 2]);
    assert!((mirrored.signed_volume() - 1.0 / 6.0).abs() < 1e-15);
    let halved = mesh.scaled(-0.5).expect("valid");
    assert!((halved.signed_volume() - 1.0 / 48.0).abs() < 1e-15);
    // Bad transforms.
    let singular = DAffine3::from_mat3(DMat3::from_diagonal(DVec3::new(1.0, 0.0, 1.0)));
    assert!(matches!(
        mesh.transformed(&singular),
        Err(GeometryError::InvalidParameter {
            name: "transform",
            ..
        })
    ));
    let nan = DAffine3::from_translation(DVec3::new(f64::NAN, 0.0, 0.0));
    assert!(matches!(
        mesh.transformed(&nan),
        Err(GeometryError::InvalidParameter {
            name: "transform",
            ..
        })
    ));
    for s in [0.0, f64::INFINITY, f64::NAN] {
        assert!(matches!(
            mesh.scaled(s),
            Err(GeometryError::InvalidParameter { name: "scale", .. })
        ));
    }
    let huge = DAffine3::from_mat3_translation(
        DMat3::from_diagonal(DVec3::new(1e308, 1.0, 1.0)),
        DVec3::X * 1e308,
    );
    assert!(matches!(
        mesh.transformed(&huge),
        Err(GeometryError::NonFiniteVertex { index: 1, .. })
    ));
}

#[test]
fn merge_and_append() {
    let (v, t) = tetra();
    let a = TriMesh::new(v.clone(), t.clone()).expect("valid");
    let b = a
        .transformed(&DAffine3::from_translation(DVec3::X * 2.0))
        .expect("valid");
    let merged = TriMesh::merge([&a, &b]).expect("valid");
    assert_eq!(merged.num_vertices(), 8);
    assert_eq!(merged.num_triangles(), 8);
    assert_eq!(merged.indices()[4], [4, 6, 5]);
    assert_eq!(merged.triangle(7), b.triangle(3));
    let mut appended = a.clone();
    appended.append(&b).expect("valid");
    assert_eq!(appended, merged);
    assert_eq!(
        TriMesh::merge(std::iter::empty()),
        Err(GeometryError::EmptyMesh { dropped: 0 })
    );
    // Welding shares nothing between disjoint copies, but merges a copy
    // laid on top.
    assert_eq!(merged.welded().num_vertices(), 8);
    let stacked = TriMesh::merge([&a, &a]).expect("valid");
    let welded = stacked.welded();
    assert_eq!(welded.num_vertices(), 4);
    assert_eq!(welded.num_triangles(), 8);
    assert_eq!(welded.indices()[4..], t[..]);
}

/// Raw, possibly invalid mesh data: coordinates with NaN and infinities
/// mixed in, indices partly out of range, repeated vertices.
fn raw_mesh() -> impl Strategy<Value = (Vec<DVec3>, Vec<[u32; 3]>)> {
    let coord = prop_oneof![
        20 => -10.0..10.0f64,
        3 => prop::sample::select(vec![0.0, 1.0, -1.0]),
        1 => prop::sample::select(vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e308, -0.0]),
    ];
    let vertex = prop::array::uniform3(coord).prop_map(DVec3::from_array);
    (
        prop::collection::vec(vertex, 0..12),
        prop::collection::vec(prop::array::uniform3(0u32..14), 0..16),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Construction never panics; it fails exactly when the data is bad and
    /// names the first bad item; on success the invariants hold.
    #[test]
    fn construction_is_total((v, t) in raw_mesh(), policy in 0..3usize) {
        let policy = [DegeneratePolicy::Reject, DegeneratePolicy::Drop, DegeneratePolicy::Keep][policy];
        let opts = MeshOptions::default().with_degenerate(policy);
        let first_bad_vertex = v.iter().position(|p| !p.is_finite());
        let first_bad_index = t
            .iter()
            .enumerate()
            .find_map(|(i, tri)| tri.iter().position(|&x| x as usize >= v.len()).map(|c| (i, c)));
        match TriMesh::from_vertices_indices_with_report(v.clone(), t.clone(), &opts) {
            Ok((mesh, report)) => {
                prop_assert!(first_bad_vertex.is_none() && first_bad_index.is_none());
                prop_assert!(mesh.num_triangles() >= 1);
                prop_assert_eq!(mesh.num_triangles() + report.dropped_triangles.len(), t.len());
                prop_assert!(mesh.indices().iter().flatten().all(|&i| (i as usize) < mesh.num_vertices()));
                if policy != DegeneratePolicy::Keep {
                    prop_assert!(mesh.indices().iter().all(|&[a, b, c]| a != b && b != c && a != c));
                    prop_assert!((0..mesh.num_triangles()).all(|i| mesh.triangle_normal(i) != DVec3::ZERO));
                }
                // Determinism.
                let again = TriMesh::from_vertices_indices(v, t, &opts);
                prop_assert_eq!(again, Ok(mesh));
            }
            Err(GeometryError::NonFiniteVertex { index, .. }) => {
                prop_assert_eq!(Some(index), first_bad_vertex);
            }
            Err(GeometryError::IndexOutOfRange { triangle, corner, .. }) => {
                prop_assert!(first_bad_vertex.is_none());
                prop_assert_eq!(Some((triangle, corner)), first_bad_index);
            }
            Err(GeometryError::DegenerateTriangle { .. }) => {
                prop_assert_eq!(policy, DegeneratePolicy::Reject);
            }
            Err(GeometryError::EmptyMesh { .. }) => {
                prop_assert!(policy != DegeneratePolicy::Keep || t.is_empty());
            }
            Err(other) => prop_assert!(false, "unexpected error {other}"),
        }
    }
}
