//! Shared mesh strategies and brute-force oracles for the hierarchy and
//! mesh–mesh query tests. The oracles use no hierarchy: they run the
//! primitive triangle queries over every triangle pair.

// Each test binary uses a different subset of these helpers.
#![allow(dead_code)]

use armature_bvh_geometry::query::{closest_points_triangle_triangle, intersect_triangle_triangle};
use armature_bvh_geometry::{DegeneratePolicy, MeshOptions, TriMesh};
use glam::{DAffine3, DQuat, DVec3};
use proptest::prelude::*;

/// Cases per property (at least 1000 per query).
pub(crate) const CASES: u32 = 1000;

pub(crate) fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        ..ProptestConfig::default()
    }
}

fn unit() -> impl Strategy<Value = f64> {
    -1.0..1.0_f64
}

pub(crate) fn vec3() -> impl Strategy<Value = DVec3> {
    (unit(), unit(), unit()).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

fn unit_vec3() -> impl Strategy<Value = DVec3> {
    vec3().prop_map(|v| v.try_normalize().unwrap_or(DVec3::X))
}

/// A random rigid transform: any rotation, a translation of up to `reach`.
pub(crate) fn pose(reach: f64) -> impl Strategy<Value = DAffine3> {
    (unit_vec3(), -3.2..3.2_f64, vec3()).prop_map(move |(axis, angle, t)| {
        DAffine3::from_rotation_translation(DQuat::from_axis_angle(axis, angle), t * reach)
    })
}

/// A closed, noisy, tessellated sphere of radius about `r`, `2·m·(m−1)`
/// triangles (`m` ≥ 3 latitude bands); `noise` in `[0, 1)` jitters each
/// vertex radially by up to that fraction.
pub(crate) fn noisy_sphere(m: usize, r: f64, noise: &[f64]) -> TriMesh {
    let (nlat, nlon) = (m, m);
    let mut v = vec![DVec3::new(0.0, 0.0, r), DVec3::new(0.0, 0.0, -r)];
    let mut k = 0;
    for i in 1..nlat {
        let th = core::f64::consts::PI * i as f64 / nlat as f64;
        for j in 0..nlon {
            let ph = 2.0 * core::f64::consts::PI * j as f64 / nlon as f64;
            let jitter = if noise.is_empty() {
                0.0
            } else {
                noise[k % noise.len()]
            };
            k += 1;
            let rr = r * (1.0 + jitter);
            v.push(DVec3::new(
                rr * th.sin() * ph.cos(),
                rr * th.sin() * ph.sin(),
                rr * th.cos(),
            ));
        }
    }
    let at = |i: usize, j: usize| (2 + (i - 1) * nlon + j % nlon) as u32;
    let mut t = Vec::new();
    for j in 0..nlon {
        t.push([0, at(1, j), at(1, j + 1)]);
        t.push([1, at(nlat - 1, j + 1), at(nlat - 1, j)]);
    }
    for i in 1..nlat - 1 {
        for j in 0..nlon {
            t.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
            t.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
        }
    }
    TriMesh::new(v, t).expect("a tessellated sphere is a valid mesh")
}

/// A triangle: mostly random, sometimes a sliver or a needle.
fn soup_triangle() -> impl Strategy<Value = [DVec3; 3]> {
    prop_oneof![
        6 => (vec3(), vec3(), vec3()).prop_map(|(a, b, c)| [a, b, c]),
        1 => (vec3(), vec3(), 0.0..1.0_f64, unit_vec3(), -9.0..-2.0_f64)
            .prop_map(|(a, b, t, n, e)| {
                let d = b - a;
                let h = n.reject_from(d).normalize_or_zero() * d.length() * 10f64.powf(e);
                [a, b, a + d * t + h]
            }),
        1 => (vec3(), vec3(), unit_vec3(), -9.0..-2.0_f64)
            .prop_map(|(a, b, n, e)| [a, b, b + n * 10f64.powf(e)]),
    ]
}

/// A polygon soup of `n` disconnected triangles, each within `size` of a
/// random centre in the unit cube (degenerate ones kept).
pub(crate) fn soup(n: std::ops::Range<usize>) -> impl Strategy<Value = TriMesh> {
    (
        proptest::collection::vec((soup_triangle(), vec3()), n),
        0.05..0.6_f64,
    )
        .prop_map(|(tris, size)| {
            let mut v = Vec::new();
            let mut idx = Vec::new();
            for (t, c) in tris {
                let base = v.len() as u32;
                v.extend(t.map(|p| c + p * size));
                idx.push([base, base + 1, base + 2]);
            }
            let o = MeshOptions::default().with_degenerate(DegeneratePolicy::Keep);
            TriMesh::from_vertices_indices(v, idx, &o).expect("finite soup")
        })
}

/// A closed noisy sphere of 24 to 180 triangles, radius 0.3 to 1.
pub(crate) fn sphere_mesh() -> impl Strategy<Value = TriMesh> {
    (
        3_usize..10,
        0.3..1.0_f64,
        proptest::collection::vec(-0.3..0.3_f64, 1..16),
    )
        .prop_map(|(m, r, noise)| noisy_sphere(m, r, &noise))
}

/// A mesh for the query properties: soups of 20 to 200 triangles or
/// closed noisy spheres.
pub(crate) fn mesh() -> impl Strategy<Value = TriMesh> {
    prop_oneof![1 => soup(20..200), 1 => sphere_mesh()]
}

/// B's triangle `j` in A's frame, as the queries compute it.
pub(crate) fn tri_in_a(b: &TriMesh, j: usize, rel: &DAffine3) -> [DVec3; 3] {
    b.triangle(j).map(|p| rel.transform_point3(p))
}

/// Brute force over every triangle pair, in A's frame: every intersecting
/// pair, sorted.
pub(crate) fn brute_collide(a: &TriMesh, b: &TriMesh, rel: &DAffine3) -> Vec<[u32; 2]> {
    let mut out = Vec::new();
    for j in 0..b.num_triangles() {
        let tb = tri_in_a(b, j, rel);
        for i in 0..a.num_triangles() {
            if intersect_triangle_triangle(&a.triangle(i), &tb) {
                out.push([i as u32, j as u32]);
            }
        }
    }
    out.sort_unstable();
    out
}

/// Brute-force minimum triangle distance over every pair, in A's frame,
/// with the pair that realises it.
pub(crate) fn brute_distance(a: &TriMesh, b: &TriMesh, rel: &DAffine3) -> (f64, usize, usize) {
    let mut best = (f64::INFINITY, 0, 0);
    for j in 0..b.num_triangles() {
        let tb = tri_in_a(b, j, rel);
        for i in 0..a.num_triangles() {
            let d = closest_points_triangle_triangle(&a.triangle(i), &tb).distance;
            if d < best.0 {
                best = (d, i, j);
            }
        }
    }
    best
}

/// Largest absolute coordinate of the two meshes placed in the world.
pub(crate) fn scale(a: &TriMesh, ta: &DAffine3, b: &TriMesh, tb: &DAffine3) -> f64 {
    let m = |m: &TriMesh, t: &DAffine3| {
        m.vertices().iter().fold(0.0_f64, |s, p| {
            s.max(t.transform_point3(*p).abs().max_element())
        })
    };
    m(a, ta).max(m(b, tb))
}
