//! Point-in-solid and containment tests against brute force: random convex
//! hulls (inside iff below every face plane), hollow hulls (a reversed,
//! shrunk copy inside: the cavity is outside) and non-convex height-field
//! blocks (inside iff below the interpolated height), with points sampled
//! away from the surface; mesh containment of boxes under random poses
//! against the box arithmetic.

use std::sync::Arc;

use armature_bvh_geometry::query::{
    CollideMode, CollideWorkspace, MeshObject, PointLocation, collide, containment,
    containment_of_first, contains_part, locate_point, point_location, winding_number,
};
use armature_bvh_geometry::{
    Bvh, ConvexHull, GeometryError, LinkGeometry, MeshTopology, Obb, Tessellation, TriMesh,
};
use glam::{DAffine3, DQuat, DVec3};
use proptest::prelude::*;

/// Points nearer than this to the surface (relative to the mesh size) are
/// not asked about: the surface tests own them.
const MARGIN: f64 = 1e-6;

fn point(range: f64) -> impl Strategy<Value = DVec3> {
    prop::array::uniform3(-range..range).prop_map(DVec3::from_array)
}

/// A random convex hull of 4 to 30 points in `[-1, 1]³`, as a mesh.
fn hull_mesh() -> impl Strategy<Value = TriMesh> {
    prop::collection::vec(point(1.0), 4..30).prop_filter_map("flat hull", |pts| {
        let hull = ConvexHull::new(&pts).ok()?;
        if hull.triangles().is_empty() {
            return None;
        }
        TriMesh::new(pts, hull.triangles().to_vec()).ok()
    })
}

/// The signed distance of `p` to the plane of every triangle, largest
/// first: negative below every plane of a convex, outward-oriented mesh
/// means inside.
fn max_plane_distance(mesh: &TriMesh, p: DVec3) -> f64 {
    mesh.triangles()
        .map(|[a, b, c]| (b - a).cross(c - a).normalize().dot(p - a))
        .fold(f64::NEG_INFINITY, f64::max)
}

/// Brute-force location for a convex mesh, `None` within the margin.
fn convex_location(mesh: &TriMesh, p: DVec3) -> Option<PointLocation> {
    let d = max_plane_distance(mesh, p);
    if d < -MARGIN {
        Some(PointLocation::Inside)
    } else if d > MARGIN {
        Some(PointLocation::Outside)
    } else {
        None
    }
}

/// A height-field block over `[0, 1]²`: heights `h[i][j]` on an `n × n`
/// grid, top and bottom triangulated alike, four walls; closed and
/// outward-oriented, not convex.
fn block(n: usize, h: &[f64]) -> TriMesh {
    let top = |i: usize, j: usize| (i * n + j) as u32;
    let bottom = |i: usize, j: usize| (n * n + i * n + j) as u32;
    let step = 1.0 / (n - 1) as f64;
    let mut v = Vec::with_capacity(2 * n * n);
    for z in [None, Some(0.0)] {
        for i in 0..n {
            for j in 0..n {
                let (x, y) = (i as f64 * step, j as f64 * step);
                v.push(DVec3::new(x, y, z.unwrap_or(h[i * n + j])));
            }
        }
    }
    let mut t = Vec::new();
    for i in 0..n - 1 {
        for j in 0..n - 1 {
            // The cell's diagonal runs from (i, j) to (i+1, j+1).
            t.push([top(i, j), top(i + 1, j), top(i + 1, j + 1)]);
            t.push([top(i, j), top(i + 1, j + 1), top(i, j + 1)]);
            t.push([bottom(i, j), bottom(i + 1, j + 1), bottom(i + 1, j)]);
            t.push([bottom(i, j), bottom(i, j + 1), bottom(i + 1, j + 1)]);
        }
    }
    // Walls: each boundary edge walked with the solid on its left seen
    // from above, so the wall faces outward.
    let mut ring = Vec::new();
    for i in 0..n - 1 {
        ring.push(((i, 0), (i + 1, 0)));
        ring.push(((n - 1, i), (n - 1, i + 1)));
        ring.push(((n - 1 - i, n - 1), (n - 2 - i, n - 1)));
        ring.push(((0, n - 1 - i), (0, n - 2 - i)));
    }
    for ((i0, j0), (i1, j1)) in ring {
        t.push([bottom(i0, j0), bottom(i1, j1), top(i1, j1)]);
        t.push([bottom(i0, j0), top(i1, j1), top(i0, j0)]);
    }
    TriMesh::new(v, t).unwrap()
}

/// Brute-force location in a block: inside the square and between the
/// bottom and the interpolated top (on the same triangulation).
fn block_location(n: usize, h: &[f64], p: DVec3) -> Option<PointLocation> {
    let m = MARGIN;
    let inside_square = p.x > m && p.x < 1.0 - m && p.y > m && p.y < 1.0 - m;
    let outside_square = p.x < -m || p.x > 1.0 + m || p.y < -m || p.y > 1.0 + m;
    if outside_square || p.z < -m {
        return Some(PointLocation::Outside);
    }
    if !inside_square || p.z < m {
        return None;
    }
    let s = (n - 1) as f64;
    let (gx, gy) = (p.x * s, p.y * s);
    let (i, j) = (
        (gx.floor() as usize).min(n - 2),
        (gy.floor() as usize).min(n - 2),
    );
    let (u, w) = (gx - i as f64, gy - j as f64);
    let hh = |a: usize, b: usize| h[a * n + b];
    let top = if u >= w {
        // Triangle (i, j), (i+1, j), (i+1, j+1).
        hh(i, j) + u * (hh(i + 1, j) - hh(i, j)) + w * (hh(i + 1, j + 1) - hh(i + 1, j))
    } else {
        // Triangle (i, j), (i+1, j+1), (i, j+1).
        hh(i, j) + w * (hh(i, j + 1) - hh(i, j)) + u * (hh(i + 1, j + 1) - hh(i, j + 1))
    };
    // Slopes are below 10 per unit, so a vertical gap of 20 margins is at
    // least a margin of distance from the top surface.
    if p.z < top - 20.0 * m {
        Some(PointLocation::Inside)
    } else if p.z > top + 20.0 * m {
        Some(PointLocation::Outside)
    } else {
        None
    }
}

/// The mesh with every triangle's winding reversed.
fn reversed(mesh: &TriMesh) -> TriMesh {
    let idx = mesh.indices().iter().map(|&[a, b, c]| [a, c, b]).collect();
    TriMesh::new(mesh.vertices().to_vec(), idx).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn convex_hulls_agree_with_the_planes(
        mesh in hull_mesh(),
        points in prop::collection::vec(point(1.3), 40),
    ) {
        prop_assert!(MeshTopology::new(&mesh).is_closed());
        let inward = reversed(&mesh);
        for p in points {
            let Some(expected) = convex_location(&mesh, p) else { continue };
            prop_assert_eq!(point_location(&mesh, p), expected, "point {}", p);
            prop_assert_eq!(point_location(&inward, p), expected, "reversed, point {}", p);
            let w = winding_number(&mesh, p);
            let k = if expected == PointLocation::Inside { 1.0 } else { 0.0 };
            prop_assert!((w - k).abs() < 1e-9, "winding {} at {}", w, p);
        }
    }

    #[test]
    fn hollow_hulls_have_an_outside_cavity(
        mesh in hull_mesh(),
        points in prop::collection::vec(point(1.3), 40),
    ) {
        // A copy shrunk to half about the centroid of the vertices, facing
        // inward: the shell between the two is the solid.
        let c = mesh.vertices().iter().copied().sum::<DVec3>() / mesh.num_vertices() as f64;
        let inner = reversed(
            &mesh
                .transformed(&(DAffine3::from_translation(c)
                    * DAffine3::from_scale(DVec3::splat(0.5))
                    * DAffine3::from_translation(-c)))
                .unwrap(),
        );
        let mut shell = mesh.clone();
        shell.append(&inner).unwrap();
        let topology = MeshTopology::new(&shell);
        prop_assert!(topology.is_closed());
        prop_assert_eq!(topology.component_triangles().len(), 2);
        for p in points {
            let (Some(outer), Some(cavity)) = (convex_location(&mesh, p), convex_location(&reversed(&inner), p))
            else { continue };
            let expected = if outer == PointLocation::Inside && cavity == PointLocation::Outside {
                PointLocation::Inside
            } else {
                PointLocation::Outside
            };
            prop_assert_eq!(point_location(&shell, p), expected, "point {}", p);
        }
    }

    #[test]
    fn height_field_blocks_agree_with_the_heights(
        (n, h) in (2_usize..6).prop_flat_map(|n| (Just(n), prop::collection::vec(0.1..1.0_f64, n * n))),
        points in prop::collection::vec(
            (-0.2..1.2_f64, -0.2..1.2_f64, -0.2..1.2_f64).prop_map(|(x, y, z)| DVec3::new(x, y, z)),
            60,
        ),
    ) {
        let mesh = block(n, &h);
        prop_assert!(MeshTopology::new(&mesh).is_closed());
        prop_assert!(mesh.signed_volume() > 0.0);
        for p in points {
            let Some(expected) = block_location(n, &h, p) else { continue };
            prop_assert_eq!(point_location(&mesh, p), expected, "point {}", p);
        }
    }

    /// The hierarchy's signed crossings give the solid angles' answer, on
    /// convex hulls (both orientations), hollow shells and axis-aligned
    /// height fields, for random points, points near vertices and edge
    /// midpoints (where crossings are close calls and the fallback runs),
    /// and points on the grid lines of the blocks.
    #[test]
    fn hierarchy_crossings_agree_with_the_solid_angles(
        mesh in hull_mesh(),
        (n, h) in (2_usize..6).prop_flat_map(|n| (Just(n), prop::collection::vec(0.1..1.0_f64, n * n))),
        points in prop::collection::vec(point(1.3), 30),
        nudge in prop::collection::vec(point(1e-7), 30),
    ) {
        let c = mesh.vertices().iter().copied().sum::<DVec3>() / mesh.num_vertices() as f64;
        let mut shell = mesh.clone();
        shell
            .append(
                &reversed(
                    &mesh
                        .transformed(&(DAffine3::from_translation(c)
                            * DAffine3::from_scale(DVec3::splat(0.5))
                            * DAffine3::from_translation(-c)))
                        .unwrap(),
                ),
            )
            .unwrap();
        for m in [mesh.clone(), reversed(&mesh), shell, block(n, &h)] {
            let bvh = Bvh::<Obb>::build(&m, &Default::default()).unwrap();
            let object = MeshObject::new(&m, &bvh, DAffine3::IDENTITY).unwrap();
            let near_features = m
                .triangles()
                .take(10)
                .flat_map(|[a, b, _]| [a, (a + b) * 0.5]);
            let grid = (0..n).map(|i| DVec3::new(i as f64 / n as f64, 0.5, 0.5));
            let probes = points
                .iter()
                .copied()
                .chain(near_features.zip(nudge.iter().copied()).map(|(p, d)| p + d))
                .chain(grid);
            for p in probes {
                let expected = point_location(&m, p);
                prop_assert_eq!(locate_point(&object, p), expected, "point {}", p);
            }
        }
    }

    /// A small box inside or outside a large one, under random poses:
    /// containment exactly when every corner of the small one is inside the
    /// large one (their surfaces apart), and never for an open large box.
    #[test]
    fn boxes_contain_boxes_as_the_corners_say(
        rot_a in prop::array::uniform3(-3.0..3.0_f64),
        rot_b in prop::array::uniform3(-3.0..3.0_f64),
        offset in point(1.2),
        size in 0.05..0.4_f64,
    ) {
        let big = Tessellation::default().cuboid(DVec3::splat(2.0)).unwrap();
        let small = Tessellation::default().cuboid(DVec3::splat(size)).unwrap();
        let pose_a = DAffine3::from_rotation_translation(
            DQuat::from_scaled_axis(DVec3::from_array(rot_a)),
            DVec3::new(0.3, -0.2, 0.1),
        );
        let pose_b = pose_a
            * DAffine3::from_rotation_translation(
                DQuat::from_scaled_axis(DVec3::from_array(rot_b)),
                offset,
            );
        let corners: Vec<DVec3> = small
            .vertices()
            .iter()
            .map(|&v| pose_a.inverse().transform_point3(pose_b.transform_point3(v)))
            .collect();
        let worst = corners.iter().map(|c| c.abs().max_element()).fold(0.0, f64::max);
        let best = corners.iter().map(|c| c.abs().max_element()).fold(f64::INFINITY, f64::min);
        // Decided cases only: all corners well inside, or the small box
        // wholly outside the big one's box.
        let inside = worst < 1.0 - MARGIN;
        let outside = best > 1.0 + size * 2.0;
        prop_assume!(inside || outside);
        let ta = MeshTopology::new(&big);
        let tb = MeshTopology::new(&small);
        let bvh_a = Bvh::<Obb>::new(&big).unwrap();
        let bvh_b = Bvh::<Obb>::new(&small).unwrap();
        let a = MeshObject::new(&big, &bvh_a, pose_a).unwrap();
        let b = MeshObject::new(&small, &bvh_b, pose_b).unwrap();
        prop_assert!(!collide(&a, &b, CollideMode::First, &mut CollideWorkspace::default()).colliding);
        let found = containment(&a, &ta, &b, &tb).unwrap();
        prop_assert_eq!(found.is_some(), inside);
        // The test without a witness answers the same, both ways round.
        prop_assert_eq!(contains_part(&a, &ta, &b, &tb).unwrap(), inside);
        prop_assert_eq!(contains_part(&b, &tb, &a, &ta).unwrap(), inside);
        if let Some(w) = found {
            prop_assert!(w.b_inside_a);
            prop_assert!((w.point_a - w.point_b).length() - w.depth < 1e-12);
            prop_assert!(w.depth > 0.0);
        }
        // Either way round.
        let back = containment(&b, &tb, &a, &ta).unwrap();
        prop_assert_eq!(back.is_some(), inside);
        prop_assert!(back.is_none_or(|w| !w.b_inside_a));
        // The big box with its top face removed bounds nothing.
        let idx: Vec<[u32; 3]> = big
            .indices()
            .iter()
            .copied()
            .filter(|t| !t.iter().all(|&i| big.vertices()[i as usize].z > 0.0))
            .collect();
        prop_assert_eq!(idx.len(), 10);
        let open = TriMesh::new(big.vertices().to_vec(), idx).unwrap();
        let to = MeshTopology::new(&open);
        prop_assert!(!to.is_closed());
        let bvh_o = Bvh::<Obb>::new(&open).unwrap();
        let o = MeshObject::new(&open, &bvh_o, pose_a).unwrap();
        prop_assert!(containment(&o, &to, &b, &tb).unwrap().is_none());
        prop_assert!(containment(&b, &tb, &o, &to).unwrap().is_none());
        prop_assert!(!contains_part(&o, &to, &b, &tb).unwrap());
        prop_assert!(!contains_part(&b, &tb, &o, &to).unwrap());
    }
}

#[test]
fn every_component_is_tried() {
    // Two small boxes, one far outside and one inside the big box: the
    // second component decides.
    let tess = Tessellation::default();
    let big = tess.cuboid(DVec3::splat(1.0)).unwrap();
    let mut pair = tess
        .cuboid(DVec3::splat(0.1))
        .unwrap()
        .transformed(&DAffine3::from_translation(DVec3::X * 5.0))
        .unwrap();
    pair.append(&tess.cuboid(DVec3::splat(0.1)).unwrap())
        .unwrap();
    let a = LinkGeometry::from_mesh("big", Arc::new(big)).unwrap();
    let b = LinkGeometry::from_mesh("pair", Arc::new(pair)).unwrap();
    assert!(a.is_closed() && b.is_closed());
    assert_eq!(b.topology.component_triangles().len(), 2);
    let oa = MeshObject::new(&a.mesh, &a.obb_tree, DAffine3::IDENTITY).unwrap();
    let ob = MeshObject::new(&b.mesh, &b.obb_tree, DAffine3::IDENTITY).unwrap();
    let w = containment(&oa, &a.topology, &ob, &b.topology)
        .unwrap()
        .unwrap();
    assert!(w.b_inside_a);
    assert!(
        w.triangle_b >= 12,
        "the inner box's triangle: {}",
        w.triangle_b
    );
    assert!((w.depth - 0.45).abs() < 1e-12, "depth {}", w.depth);
}

#[test]
fn containment_of_the_first_looks_one_way_only() {
    // A small box inside a big one: found either way round by
    // `containment`, by `containment_of_first` only with the small one
    // first (the big one holds no part of it when it is the other).
    let tess = Tessellation::default();
    let big =
        LinkGeometry::from_mesh("big", Arc::new(tess.cuboid(DVec3::splat(1.0)).unwrap())).unwrap();
    let small = LinkGeometry::from_mesh("small", Arc::new(tess.cuboid(DVec3::splat(0.1)).unwrap()))
        .unwrap();
    let ob = MeshObject::new(&big.mesh, &big.obb_tree, DAffine3::IDENTITY).unwrap();
    let os = MeshObject::new(&small.mesh, &small.obb_tree, DAffine3::IDENTITY).unwrap();
    let both = containment(&ob, &big.topology, &os, &small.topology)
        .unwrap()
        .unwrap();
    assert!(both.b_inside_a);
    let first = containment_of_first(&os, &small.topology, &ob, &big.topology)
        .unwrap()
        .unwrap();
    assert!(!first.b_inside_a);
    let reversed = containment(&os, &small.topology, &ob, &big.topology)
        .unwrap()
        .unwrap();
    assert_eq!(first, reversed);
    assert!(
        containment_of_first(&ob, &big.topology, &os, &small.topology)
            .unwrap()
            .is_none()
    );
}

#[test]
fn a_mismatched_topology_is_an_error() {
    let tess = Tessellation::default();
    let cube = tess.cuboid(DVec3::ONE).unwrap();
    let other = tess.cylinder(0.5, 1.0).unwrap();
    let bvh = Bvh::<Obb>::new(&cube).unwrap();
    let o = MeshObject::new(&cube, &bvh, DAffine3::IDENTITY).unwrap();
    let wrong = MeshTopology::new(&other);
    let right = MeshTopology::new(&cube);
    assert!(matches!(
        containment(&o, &wrong, &o, &right),
        Err(GeometryError::TopologyMeshMismatch { topology_triangles, mesh_triangles: 12 })
            if topology_triangles == other.num_triangles()
    ));
}

#[test]
fn points_on_the_surface_are_not_decided_outside() {
    let cube = Tessellation::default().cuboid(DVec3::ONE).unwrap();
    for p in [
        DVec3::new(0.5, 0.1, 0.2),
        DVec3::splat(0.5),
        DVec3::new(0.5, 0.5, 0.0),
    ] {
        assert_eq!(point_location(&cube, p), PointLocation::NearSurface, "{p}");
    }
    assert_eq!(
        point_location(&cube, DVec3::splat(f64::NAN)),
        PointLocation::NearSurface
    );
    // Huge and tiny coordinates neither overflow nor underflow.
    for s in [1e-90, 1e90] {
        let m = cube.scaled(s).unwrap();
        assert_eq!(
            point_location(&m, DVec3::splat(0.1 * s)),
            PointLocation::Inside
        );
        assert_eq!(
            point_location(&m, DVec3::splat(0.6 * s)),
            PointLocation::Outside
        );
    }
}
