//! Mass properties against analytic values and an independent oracle.
//!
//! Boxes are exact polyhedra; tessellated spheres and cylinders are
//! compared three ways: with the same polyhedron's values computed by a
//! different method (a fan of tetrahedra with the closed-form second moment
//! of a tetrahedron), with the polyhedron's own closed forms (regular prism),
//! and with the smooth solid within a tolerance derived from the
//! tessellation (inscribed and circumscribed balls bound the sphere).

use std::f64::consts::{PI, TAU};

use armature_bvh_geometry::{GeometryError, MassProperties, TriMesh};
use glam::{DAffine3, DMat3, DQuat, DVec3};
use proptest::prelude::*;

/// An axis-aligned box `[-h, h]` with outward triangles.
fn box_mesh(h: DVec3) -> TriMesh {
    let v: Vec<DVec3> = (0..8)
        .map(|i| {
            DVec3::new(
                if i & 1 == 0 { -h.x } else { h.x },
                if i & 2 == 0 { -h.y } else { h.y },
                if i & 4 == 0 { -h.z } else { h.z },
            )
        })
        .collect();
    let quads = [
        [0, 2, 3, 1], // z-
        [4, 5, 7, 6], // z+
        [0, 1, 5, 4], // y-
        [2, 6, 7, 3], // y+
        [0, 4, 6, 2], // x-
        [1, 3, 7, 5], // x+
    ];
    let t = quads
        .iter()
        .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
        .collect();
    TriMesh::new(v, t).expect("valid box")
}

/// A UV sphere of radius `r`: `stacks` bands, `slices` around, one vertex
/// at each pole.
fn uv_sphere(r: f64, stacks: u32, slices: u32) -> TriMesh {
    let mut v = vec![DVec3::new(0.0, 0.0, r)];
    for i in 1..stacks {
        let th = PI * f64::from(i) / f64::from(stacks);
        for j in 0..slices {
            let ph = TAU * f64::from(j) / f64::from(slices);
            v.push(r * DVec3::new(th.sin() * ph.cos(), th.sin() * ph.sin(), th.cos()));
        }
    }
    v.push(DVec3::new(0.0, 0.0, -r));
    let south = v.len() as u32 - 1;
    let ring = |i: u32, j: u32| 1 + (i - 1) * slices + j % slices;
    let mut t = Vec::new();
    for j in 0..slices {
        t.push([0, ring(1, j), ring(1, j + 1)]);
        t.push([south, ring(stacks - 1, j + 1), ring(stacks - 1, j)]);
    }
    for i in 1..stacks - 1 {
        for j in 0..slices {
            let (a, b, c, d) = (
                ring(i, j),
                ring(i, j + 1),
                ring(i + 1, j),
                ring(i + 1, j + 1),
            );
            t.push([a, c, d]);
            t.push([a, d, b]);
        }
    }
    TriMesh::new(v, t).expect("valid sphere")
}

/// A regular `n`-gon prism (a tessellated cylinder): circumradius `r`,
/// height `h`, centred on the origin, axis z.
fn prism(r: f64, h: f64, n: u32) -> TriMesh {
    let mut v = Vec::new();
    for z in [-h / 2.0, h / 2.0] {
        for j in 0..n {
            let a = TAU * f64::from(j) / f64::from(n);
            v.push(DVec3::new(r * a.cos(), r * a.sin(), z));
        }
    }
    v.push(DVec3::new(0.0, 0.0, -h / 2.0));
    v.push(DVec3::new(0.0, 0.0, h / 2.0));
    let (bc, tc) = (2 * n, 2 * n + 1);
    let mut t = Vec::new();
    for j in 0..n {
        let k = (j + 1) % n;
        t.push([bc, k, j]);
        t.push([tc, n + j, n + k]);
        t.push([j, k, n + k]);
        t.push([j, n + k, n + j]);
    }
    TriMesh::new(v, t).expect("valid prism")
}

/// The oracle: volume, centroid and inertia about the centroid from a fan
/// of tetrahedra (apex `o`), each with `∫ x xᵀ dV = V/20 (Σ vᵢvᵢᵀ + s sᵀ)`,
/// `s = Σ vᵢ`.
fn tet_oracle(mesh: &TriMesh, o: DVec3) -> (f64, DVec3, DMat3) {
    let outer = |a: DVec3, b: DVec3| DMat3::from_cols(a * b.x, a * b.y, a * b.z);
    let mut vol = 0.0;
    let mut first = DVec3::ZERO;
    let mut second = DMat3::ZERO;
    for [a, b, c] in mesh.triangles() {
        let (a, b, c) = (a - o, b - o, c - o);
        let v = a.dot(b.cross(c)) / 6.0;
        let s = a + b + c;
        vol += v;
        first += v * s / 4.0;
        second += (outer(a, a) + outer(b, b) + outer(c, c) + outer(s, s)) * (v / 20.0);
    }
    let c = first / vol;
    let cov = second - outer(c, c) * vol;
    let inertia =
        DMat3::from_diagonal(DVec3::splat(cov.x_axis.x + cov.y_axis.y + cov.z_axis.z)) - cov;
    (vol, c + o, inertia)
}

fn rel_close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs())
}

fn mat_close(a: DMat3, b: DMat3, tol: f64) -> bool {
    (a - b).to_cols_array().iter().all(|x| x.abs() <= tol)
}

fn assert_oracle(mesh: &TriMesh, mp: &MassProperties) {
    let (v, c, i) = tet_oracle(mesh, DVec3::new(0.1, -0.2, 0.3));
    assert!(
        rel_close(mp.volume, v, 1e-12),
        "volume {} vs {}",
        mp.volume,
        v
    );
    let size = mp.volume.cbrt();
    assert!(
        (mp.centroid - c).length() <= 1e-12 * size,
        "centroid {} vs {}",
        mp.centroid,
        c
    );
    let scale = i.to_cols_array().iter().fold(0.0f64, |m, x| m.max(x.abs()));
    assert!(
        mat_close(mp.inertia, i, 1e-11 * scale),
        "inertia\n{}\nvs\n{}",
        mp.inertia,
        i
    );
}

#[test]
fn box_is_exact() {
    let h = DVec3::new(0.5, 1.0, 1.5);
    let mesh = box_mesh(h);
    let mp = mesh.mass_properties().expect("closed");
    let (a, b, c) = (2.0 * h.x, 2.0 * h.y, 2.0 * h.z);
    let m = a * b * c;
    assert!(rel_close(mp.volume, m, 1e-15));
    assert_eq!(mp.mass, mp.volume);
    assert!(mp.centroid.length() < 1e-15);
    let expect =
        DMat3::from_diagonal(DVec3::new(b * b + c * c, a * a + c * c, a * a + b * b) * (m / 12.0));
    assert!(mat_close(mp.inertia, expect, 1e-14), "{}", mp.inertia);
    assert_oracle(&mesh, &mp);
}

#[test]
fn sphere_within_tessellation_bounds() {
    for (stacks, slices) in [(8, 16), (32, 64), (96, 192)] {
        let r = 2.0;
        let mesh = uv_sphere(r, stacks, slices);
        let mp = mesh.mass_properties().expect("closed");
        assert_oracle(&mesh, &mp);
        // The polyhedron lies between its inscribed ball (radius: the least
        // distance from the centre to a face plane) and the ball through
        // its vertices; volume and the moment about any axis through the
        // centre are monotone under inclusion.
        let r_in = mesh
            .triangles()
            .map(|[a, b, c]| (b - a).cross(c - a).normalize().dot(a).abs())
            .fold(f64::INFINITY, f64::min);
        let ball = |r: f64| (4.0 / 3.0 * PI * r.powi(3), 8.0 / 15.0 * PI * r.powi(5));
        let (v_in, i_in) = ball(r_in);
        let (v_out, i_out) = ball(r);
        assert!(
            v_in <= mp.volume && mp.volume <= v_out,
            "{v_in} {} {v_out}",
            mp.volume
        );
        assert!(mp.centroid.length() < 1e-13);
        for k in 0..3 {
            let ikk = mp.inertia.col(k)[k];
            assert!(
                i_in <= ikk && ikk <= i_out,
                "I{k}{k} = {ikk} not in [{i_in}, {i_out}]"
            );
        }
        // Converges to the smooth sphere at the rate of the tessellation:
        // the relative gap between the bounds.
        let gap = 1.0 - v_in / v_out;
        assert!(rel_close(mp.volume, v_out, gap));
    }
}

#[test]
fn cylinder_matches_prism_closed_form_and_converges() {
    let (r, h) = (0.3, 1.7);
    for n in [3, 8, 64, 1024] {
        let mesh = prism(r, h, n);
        let mp = mesh.mass_properties().expect("closed");
        assert_oracle(&mesh, &mp);
        // Regular n-gon prism, exactly: area A = n r² sin α / 2, polar
        // moment J = n r⁴ sin α (2 + cos α) / 12, α = 2π/n.
        let al = TAU / f64::from(n);
        let area = f64::from(n) * r * r * al.sin() / 2.0;
        let polar = f64::from(n) * r.powi(4) * al.sin() * (2.0 + al.cos()) / 12.0;
        let vol = area * h;
        assert!(rel_close(mp.volume, vol, 1e-13));
        let izz = polar * h;
        let ixx = polar * h / 2.0 + area * h.powi(3) / 12.0;
        let expect = DMat3::from_diagonal(DVec3::new(ixx, ixx, izz));
        assert!(
            mat_close(mp.inertia, expect, 1e-13 * izz.max(ixx)),
            "{}",
            mp.inertia
        );
        // The smooth cylinder, within the tessellation error sin α / α.
        let v_cyl = PI * r * r * h;
        let err = 1.0 - al.sin() / al;
        assert!(rel_close(mp.volume, v_cyl, err + 1e-15));
        let m = v_cyl;
        assert!(rel_close(
            mp.inertia.z_axis.z,
            m * r * r / 2.0,
            3.0 * err + 1e-15
        ));
        assert!(rel_close(
            mp.inertia.x_axis.x,
            m * (3.0 * r * r + h * h) / 12.0,
            3.0 * err + 1e-15
        ));
    }
}

#[test]
fn density_scales_mass_and_inertia() {
    let mp = box_mesh(DVec3::ONE).mass_properties().expect("closed");
    let steel = mp.with_density(7850.0).expect("valid density");
    assert!(rel_close(steel.mass, 8.0 * 7850.0, 1e-15));
    assert!(rel_close(steel.density(), 7850.0, 1e-15));
    assert!(mat_close(steel.inertia, mp.inertia * 7850.0, 1e-9));
    assert_eq!(steel.volume, mp.volume);
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            mp.with_density(bad),
            Err(GeometryError::InvalidParameter {
                name: "density",
                ..
            })
        ));
    }
}

#[test]
fn disjoint_shells_add() {
    let a = box_mesh(DVec3::ONE);
    let b = box_mesh(DVec3::splat(0.5))
        .transformed(&DAffine3::from_translation(DVec3::X * 5.0))
        .expect("valid");
    let both = TriMesh::merge([&a, &b]).expect("valid");
    let mp = both.mass_properties().expect("closed");
    assert!(rel_close(mp.volume, 9.0, 1e-15));
    assert!((mp.centroid - DVec3::new(5.0 / 9.0, 0.0, 0.0)).length() < 1e-14);
    assert_oracle(&both, &mp);
}

#[test]
fn open_flipped_and_inside_out_meshes_are_rejected() {
    let mesh = box_mesh(DVec3::ONE);
    let (v, t) = mesh.clone().into_parts();
    let open = TriMesh::new(v.clone(), t[1..].to_vec()).expect("valid soup");
    assert!(matches!(
        open.mass_properties(),
        Err(GeometryError::OpenMesh { count: 1, .. })
    ));
    let mut flipped = t.clone();
    flipped[3] = [t[3][0], t[3][2], t[3][1]];
    let flipped = TriMesh::new(v.clone(), flipped).expect("valid soup");
    assert!(matches!(
        flipped.mass_properties(),
        Err(GeometryError::InconsistentOrientation { .. })
    ));
    let inside_out: Vec<[u32; 3]> = t.iter().map(|&[a, b, c]| [a, c, b]).collect();
    let inside_out = TriMesh::new(v.clone(), inside_out).expect("valid soup");
    assert!(inside_out.signed_volume() < 0.0);
    assert!(matches!(
        inside_out.mass_properties(),
        Err(GeometryError::NonPositiveVolume { .. })
    ));
    // A non-manifold edge: two boxes sharing an edge by index.
    let mut doubled = t.clone();
    doubled.extend(t.iter().map(|&[a, b, c]| [a, b, c]));
    let doubled = TriMesh::new(v, doubled).expect("valid soup");
    assert!(matches!(
        doubled.mass_properties(),
        Err(GeometryError::OpenMesh { count: 4, .. })
    ));
    // The unchecked variant still integrates a nearly closed mesh.
    assert!(open.mass_properties_unchecked().is_ok());
}

#[test]
fn unwelded_soup_needs_welding() {
    // A box whose faces do not share vertices (as STL stores it).
    let mesh = box_mesh(DVec3::new(1.0, 2.0, 3.0));
    let soup_v: Vec<DVec3> = mesh.triangles().flatten().collect();
    let soup_t = (0..mesh.num_triangles() as u32)
        .map(|i| [3 * i, 3 * i + 1, 3 * i + 2])
        .collect();
    let soup = TriMesh::new(soup_v, soup_t).expect("valid soup");
    assert!(matches!(
        soup.mass_properties(),
        Err(GeometryError::OpenMesh { .. })
    ));
    let welded = soup.welded();
    assert_eq!(welded.num_vertices(), 8);
    let mp = welded.mass_properties().expect("closed after welding");
    assert!(rel_close(mp.volume, 48.0, 1e-15));
}

#[test]
fn principal_axes_of_a_rotated_box() {
    let h = DVec3::new(0.5, 1.0, 2.0);
    let rot = DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), 0.7);
    let mesh = box_mesh(h)
        .transformed(&DAffine3::from_quat(rot))
        .expect("valid");
    let mp = mesh.mass_properties().expect("closed");
    let (moments, axes) = mp.principal();
    let m = 8.0 * h.x * h.y * h.z;
    let d = 2.0 * h;
    let expect = DVec3::new(
        d.y * d.y + d.z * d.z,
        d.x * d.x + d.z * d.z,
        d.x * d.x + d.y * d.y,
    ) * (m / 12.0);
    // Ascending: the long z axis has the smallest moment.
    let sorted = DVec3::new(expect.z, expect.y, expect.x);
    assert!(
        (moments - sorted).abs().max_element() < 1e-12,
        "{moments} vs {sorted}"
    );
    let rm = DMat3::from_quat(rot);
    for (k, col) in [(0, rm.z_axis), (1, rm.y_axis), (2, rm.x_axis)] {
        assert!(axes.col(k).dot(col).abs() > 1.0 - 1e-12, "axis {k}");
    }
    assert!((axes.determinant() - 1.0).abs() < 1e-12);
}

fn rigid() -> impl Strategy<Value = DAffine3> {
    (
        prop::array::uniform3(-1.0..1.0f64),
        0.0..TAU,
        prop::array::uniform3(-1e3..1e3f64),
    )
        .prop_map(|(axis, angle, t)| {
            let axis = DVec3::from_array(axis).try_normalize().unwrap_or(DVec3::Z);
            DAffine3::from_rotation_translation(
                DQuat::from_axis_angle(axis, angle),
                DVec3::from_array(t),
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    /// Volume is invariant, the centroid moves with the body, the inertia
    /// about the centroid rotates (`R I Rᵀ`), and the inertia about the
    /// world origin follows the parallel axis theorem; far from the origin
    /// too, thanks to the shifted integration.
    #[test]
    fn rigid_motion_and_parallel_axis(
        h in prop::array::uniform3(0.1..3.0f64),
        motion in rigid(),
        which in 0..3usize,
    ) {
        let base = match which {
            0 => box_mesh(DVec3::from_array(h)),
            1 => prism(h[0], h[1], 7),
            _ => uv_sphere(h[0], 6, 9),
        };
        let body = base.mass_properties().expect("closed");
        let moved = base.transformed(&motion).expect("valid");
        let mp = moved.mass_properties().expect("closed");
        prop_assert!(rel_close(mp.volume, body.volume, 1e-12));
        let size = body.volume.cbrt();
        let c = motion.transform_point3(body.centroid);
        prop_assert!((mp.centroid - c).length() <= 1e-11 * (size + c.length()));
        let r = motion.matrix3;
        let scale = body.inertia.to_cols_array().iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let rotated = r * body.inertia * r.transpose();
        prop_assert!(mat_close(mp.inertia, rotated, 1e-10 * scale), "{} vs {}", mp.inertia, rotated);
        // Parallel axis: about the origin, I + m(|d|²1 − d dᵀ).
        let d = mp.centroid;
        let shift = (DMat3::from_diagonal(DVec3::splat(d.length_squared()))
            - DMat3::from_cols(d * d.x, d * d.y, d * d.z))
            * mp.mass;
        let about = mp.inertia_about(DVec3::ZERO);
        let big = scale + mp.mass * d.length_squared();
        prop_assert!(mat_close(about, mp.inertia + shift, 1e-12 * big));
        // ... and agrees with the oracle (its fan apex on the body: a fan
        // from the far-away origin would cancel catastrophically).
        let (vol, centroid, oracle) = tet_oracle(&moved, moved.vertices()[0]);
        prop_assert!(rel_close(mp.volume, vol, 1e-12));
        prop_assert!((mp.centroid - centroid).length() <= 1e-12 * (size + c.length()));
        prop_assert!(mat_close(mp.inertia, oracle, 1e-10 * scale));
    }
}
