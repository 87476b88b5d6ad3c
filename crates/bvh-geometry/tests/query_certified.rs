//! The certified lower bounds of the distance queries stay below the true
//! distance where rounding is at its worst: near-sliver triangles far from
//! the origin, where a face's normal is ill-conditioned and the computed
//! distance can exceed the true one.

use armature_bvh_geometry::query::{DistanceWorkspace, MeshObject, capped_distance};
use armature_bvh_geometry::{Bvh, BvhOptions, Rss, TriMesh};
use glam::{DAffine3, DVec3};
use proptest::prelude::*;

/// Coordinates on the grid of `2^-30`, so that the exact distance of a
/// point to a triangle's plane can be computed in `i128`.
const GRID: f64 = (1u64 << 30) as f64;

fn snap(p: DVec3) -> DVec3 {
    (p * GRID).round() / GRID
}

fn to_int(p: DVec3) -> [i128; 3] {
    [p.x, p.y, p.z].map(|c| (c * GRID) as i128)
}

/// The distance of `p` to the plane of `tri` (all on the grid): the cross
/// and dot products are exact in `i128` (coordinates below `2^42` grid
/// units), the final division and square root are within a few ulps.
fn plane_distance(tri: &[DVec3; 3], p: DVec3) -> f64 {
    let [a, b, c, p] = [tri[0], tri[1], tri[2], p].map(to_int);
    let sub = |u: [i128; 3], v: [i128; 3]| [u[0] - v[0], u[1] - v[1], u[2] - v[2]];
    let (e, f, g) = (sub(b, a), sub(c, a), sub(p, a));
    let n = [
        e[1] * f[2] - e[2] * f[1],
        e[2] * f[0] - e[0] * f[2],
        e[0] * f[1] - e[1] * f[0],
    ];
    let num = n[0] * g[0] + n[1] * g[1] + n[2] * g[2];
    let nf = n.map(|x| x as f64);
    let len = (nf[0] * nf[0] + nf[1] * nf[1] + nf[2] * nf[2]).sqrt();
    (num as f64).abs() / len / GRID
}

/// A near-sliver triangle (height 1e-8 to 1e-5 of its length, and at
/// least 1e-6) in a tilted
/// plane around `(offset, offset, offset)`, and a point at height `h` above
/// a point well inside it, all on the grid. The point's distance to the
/// triangle is its distance to the plane (computed exactly), since its
/// projection falls inside.
fn sliver_case() -> impl Strategy<Value = ([DVec3; 3], DVec3)> {
    (
        prop_oneof![Just(0.0), Just(1000.0), Just(-700.0), 1.0..1000.0_f64],
        prop_oneof![0.1..10.0_f64, 100.0..900.0_f64],
        -8.0..-5.0_f64,
        (
            0.0..std::f64::consts::TAU,
            0.1..3.0_f64,
            0.0..std::f64::consts::TAU,
        ),
        0.2..0.8_f64,
        0.2..0.8_f64,
        -6.0..-2.0_f64,
    )
        .prop_map(
            |(offset, length, log_aspect, (yaw, pitch, roll), s, w, log_h)| {
                let rot = glam::DQuat::from_euler(glam::EulerRot::ZYX, yaw, pitch, roll);
                let (dir, side, up) = (rot * DVec3::X, rot * DVec3::Y, rot * DVec3::Z);
                let base = DVec3::splat(offset);
                // At least a thousand grid steps, so that snapping keeps the
                // shape and the inside point well inside.
                let height = (length * 10f64.powf(log_aspect)).max(1e-6);
                let tri = [
                    base,
                    base + dir * length,
                    base + dir * (s * length) + side * height,
                ]
                .map(snap);
                // Weights (w/2, w/2, 1 − w): on the median towards the apex,
                // far inside relative to the grid's rounding.
                let inside = (tri[0] + tri[1]) * (0.5 * w) + tri[2] * (1.0 - w);
                // Along the snapped triangle's own normal (snapping tilts the
                // plane by up to 1e-3 rad, which would move the projection out
                // of the sliver), checked on the same side as `up`.
                let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]).normalize();
                let n = if n.dot(up) >= 0.0 { n } else { -n };
                let h = 10f64.powf(log_h);
                (tri, snap(inside + n * h))
            },
        )
}

/// The longest edge of a triangle.
fn length(t: &[DVec3; 3]) -> f64 {
    (t[1] - t[0])
        .length()
        .max((t[2] - t[1]).length())
        .max((t[0] - t[2]).length())
}

fn object_mesh(tri: [DVec3; 3]) -> TriMesh {
    TriMesh::new(tri.to_vec(), vec![[0, 1, 2]]).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn capped_distance_is_certified_on_slivers_far_from_the_origin(
        (sliver, apex) in sliver_case(),
        e in prop_oneof![Just(0.0), Just(0.5), Just(0.9)],
    ) {
        // The other triangle: the point above the sliver, and two
        // vertices well above it, so the point is its nearest feature.
        // Its other vertices lie farther along the same side of the plane.
        let n = (sliver[1] - sliver[0]).cross(sliver[2] - sliver[0]).normalize();
        let up = if n.dot(apex - sliver[0]) >= 0.0 { n } else { -n };
        let other = [apex, apex + up + up.any_orthonormal_vector() * 0.3, apex + up * 2.0];
        let (a, b) = (object_mesh(sliver), object_mesh(other));
        let options = BvhOptions::default();
        let (ba, bb) = (Bvh::<Rss>::build(&a, &options).unwrap(), Bvh::<Rss>::build(&b, &options).unwrap());
        let oa = MeshObject::new(&a, &ba, DAffine3::IDENTITY).unwrap();
        let ob = MeshObject::new(&b, &bb, DAffine3::IDENTITY).unwrap();
        let mut ws = DistanceWorkspace::new();
        let r = capped_distance(&oa, &ob, e, 10.0, &mut ws, None).unwrap();
        let d = plane_distance(&sliver, apex);
        // The plane distance is within a few ulps of the truth: allow 1e-15
        // relative for it, nothing for the query.
        prop_assert!(
            r.lower_bound <= d * (1.0 + 1e-15),
            "certified bound {} above the true distance {d} (excess {:e})",
            r.lower_bound,
            r.lower_bound - d
        );
        // Still informative where the distance is well above the rounding
        // of a sliver (about 1e-8 of its length).
        if d > 1e-6 * length(&sliver) {
            prop_assert!(r.lower_bound >= 0.25 * d, "{} vs {d}", r.lower_bound);
        }
    }
}
