//! The Puma 560: standard DH parameters, joint limits, solid link shapes,
//! and its URDF.
//!
//! **Frames.** Standard DH, `T_{i−1→i} = Rz(θ_i)·Tz(d_i)·Tx(a_i)·Rx(α_i)`,
//! with `d1 = 0.67183`, `a2 = 0.4318`, `d3 = 0.15005`, `a3 = 0.0203`,
//! `d4 = 0.4318` (metres, all others 0) and `α = π/2, 0, −π/2, π/2, −π/2, 0`.
//! The URDF encodes this as: link `i`'s frame is DH frame `i − 1` turned by
//! `θ_i` about its z axis; joint `i + 1` sits in link `i` at
//! `xyz = (a_i, 0, d_i)`, `rpy = (α_i, 0, 0)`; every axis is z; joint 1 is at
//! the base origin. So link 6's frame is DH frame 6 and the base link is the
//! world frame, its column standing on `z = 0` up to the shoulder at `d1`.
//!
//! **Shapes** (link frames; see [`links`]). The column and turret are
//! cylinders about z; the upper arm lies along link 2's x axis on the
//! `z < 0` side of the shoulder (clear of the column for every θ2); the
//! elbow housing spans both sides; the forearm runs along link 3's y axis
//! at `z = d3`, on the other side, and continues as link 4's roll tube; the
//! wrist housing (link 5) and the flange with a short tool stub (link 6)
//! sit at the wrist centre. Adjacent links overlap at their joints;
//! non-adjacent links are apart at `q = 0` and for most configurations: the
//! side offsets keep the arm beside the column, and the forearm roll tube
//! stops short of where the flange can swing (θ5 within ±100°).

use glam::{DAffine3, DVec3};

use super::mesh::{Part, Proxy};
use super::write::{fmt_exact, stl};

/// Standard DH `d_i` (metres).
pub(crate) const D: [f64; 6] = [0.67183, 0.0, 0.15005, 0.4318, 0.0, 0.0];
/// Standard DH `a_i` (metres).
pub(crate) const A: [f64; 6] = [0.0, 0.4318, 0.0203, 0.0, 0.0, 0.0];
/// Standard DH `α_i` (radians).
pub(crate) const ALPHA: [f64; 6] = [
    core::f64::consts::FRAC_PI_2,
    0.0,
    -core::f64::consts::FRAC_PI_2,
    core::f64::consts::FRAC_PI_2,
    -core::f64::consts::FRAC_PI_2,
    0.0,
];
/// Joint limits in degrees, `(lower, upper)`.
pub(crate) const LIMITS_DEG: [(f64, f64); 6] = [
    (-160.0, 160.0),
    (-45.0, 225.0),
    (-225.0, 45.0),
    (-110.0, 170.0),
    (-100.0, 100.0),
    (-266.0, 266.0),
];

/// Link names, base first.
pub(crate) const LINK_NAMES: [&str; 7] =
    ["base", "link1", "link2", "link3", "link4", "link5", "link6"];

/// The robot's name in the URDF.
pub(crate) const ROBOT: &str = "puma560";

/// Joint limits in radians.
pub(crate) fn limits() -> [(f64, f64); 6] {
    LIMITS_DEG.map(|(lo, hi)| (lo.to_radians(), hi.to_radians()))
}

/// `Rz(θ)·Tz(d_i)·Tx(a_i)·Rx(α_i)` for joint `i` (0-based).
pub(crate) fn dh_transform(i: usize, theta: f64) -> DAffine3 {
    DAffine3::from_rotation_z(theta)
        * DAffine3::from_translation(DVec3::new(A[i], 0.0, D[i]))
        * DAffine3::from_rotation_x(ALPHA[i])
}

/// World poses of the seven link frames at `q` straight from the DH
/// product: the base at the identity, link `i` at
/// `T_1 ⋯ T_{i−1} · Rz(q_i)`.
pub(crate) fn dh_link_poses(q: &[f64; 6]) -> [DAffine3; 7] {
    let mut out = [DAffine3::IDENTITY; 7];
    let mut frame = DAffine3::IDENTITY;
    for i in 0..6 {
        out[i + 1] = frame * DAffine3::from_rotation_z(q[i]);
        frame *= dh_transform(i, q[i]);
    }
    out
}

/// The solid shapes of each link in its own frame, base first; every part
/// is named after its link.
pub(crate) fn links() -> Vec<Part> {
    let z = |x: f64, y: f64, z0: f64, z1: f64| (DVec3::new(x, y, z0), DVec3::new(x, y, z1));
    let mut out: Vec<Part> = LINK_NAMES.iter().map(|n| Part::new(*n)).collect();

    // Base: a floor plate and the fixed lower column.
    let (a, b) = z(0.0, 0.0, 0.0, 0.05);
    out[0].cylinder(a, b, 0.16, 24);
    let (a, b) = z(0.0, 0.0, 0.05, 0.52);
    out[0].cylinder(a, b, 0.09, 20);

    // Link 1: the turret (top of the column) and the shoulder housing along
    // joint 2's axis (link 1's −y is joint 2's z).
    let (a, b) = z(0.0, 0.0, 0.50, D[0] + 0.09);
    out[1].cylinder(a, b, 0.09, 20);
    out[1].cylinder(
        DVec3::new(0.0, -0.06, D[0]),
        DVec3::new(0.0, 0.14, D[0]),
        0.085,
        20,
    );

    // Link 2: shoulder disc, upper-arm beam along x, elbow housing; all on
    // z < −0.13 but the elbow, so the arm passes beside the column.
    let (a, b) = z(0.0, 0.0, -0.24, -0.13);
    out[2].cylinder(a, b, 0.10, 24);
    out[2].aabox(
        DVec3::new(-0.02, -0.06, -0.235),
        DVec3::new(A[1], 0.06, -0.135),
    );
    let (a, b) = z(A[1], 0.0, -0.24, -0.04);
    out[2].cylinder(a, b, 0.07, 20);

    // Link 3: elbow housing and the forearm's lower half along +y at
    // (x, z) = (a3, d3).
    let (a, b) = z(0.0, 0.0, -0.06, 0.20);
    out[3].cylinder(a, b, 0.07, 20);
    out[3].aabox(
        DVec3::new(A[2] - 0.05, -0.04, D[2] - 0.045),
        DVec3::new(A[2] + 0.05, 0.27, D[2] + 0.045),
    );

    // Link 4: the forearm roll tube, stopping 6 cm before the wrist centre
    // (the flange, tilted by up to 100°, comes no closer than that).
    let (a, b) = z(0.0, 0.0, 0.26, D[3] - 0.06);
    out[4].cylinder(a, b, 0.04, 20);

    // Link 5: the wrist housing about joint 5's axis.
    let (a, b) = z(0.0, 0.0, -0.055, 0.055);
    out[5].cylinder(a, b, 0.05, 20);

    // Link 6: the flange and a short tool stub along the tool axis.
    let (a, b) = z(0.0, 0.0, 0.05, 0.07);
    out[6].cylinder(a, b, 0.04, 20);
    let (a, b) = z(0.0, 0.0, 0.07, 0.12);
    out[6].cylinder(a, b, 0.02, 12);
    out
}

/// Proxies holding the robot at `q`, in the world.
pub(crate) fn proxies_at(q: &[f64; 6]) -> Vec<Proxy> {
    let poses = dh_link_poses(q);
    links()
        .iter()
        .zip(poses)
        .flat_map(|(part, pose)| {
            part.proxies()
                .iter()
                .map(move |c| c.transformed(&pose))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The mesh file of link `i`, relative to the URDF.
pub(crate) fn mesh_file(name: &str) -> String {
    format!("meshes/{name}.stl")
}

/// The URDF document (see the [module docs](self) for the encoding).
pub(crate) fn urdf() -> String {
    let mut s = String::new();
    s.push_str("<?xml version=\"1.0\"?>\n");
    s.push_str(
        "<!-- Puma 560, standard DH parameters (generated by `cargo xtask gen-data`).\n     \
         Link i's frame is DH frame i-1 turned by theta_i; joint i+1 sits in link i at\n     \
         xyz = (a_i, 0, d_i), rpy = (alpha_i, 0, 0); every joint axis is z. -->\n",
    );
    s.push_str(&format!("<robot name=\"{ROBOT}\">\n"));
    for name in LINK_NAMES {
        let file = mesh_file(name);
        s.push_str(&format!(
            "  <link name=\"{name}\">\n    \
             <visual>\n      <geometry><mesh filename=\"{file}\"/></geometry>\n    </visual>\n    \
             <collision>\n      <geometry><mesh filename=\"{file}\"/></geometry>\n    </collision>\n  \
             </link>\n"
        ));
    }
    let limits = limits();
    for i in 0..6 {
        let (xyz, rpy) = if i == 0 {
            ("0.0 0.0 0.0".to_owned(), "0.0 0.0 0.0".to_owned())
        } else {
            (
                format!("{} 0.0 {}", fmt_exact(A[i - 1]), fmt_exact(D[i - 1])),
                format!("{} 0.0 0.0", fmt_exact(ALPHA[i - 1])),
            )
        };
        let (lo, hi) = limits[i];
        s.push_str(&format!(
            "  <joint name=\"joint{n}\" type=\"revolute\">\n    \
             <parent link=\"{parent}\"/>\n    <child link=\"{child}\"/>\n    \
             <origin xyz=\"{xyz}\" rpy=\"{rpy}\"/>\n    <axis xyz=\"0.0 0.0 1.0\"/>\n    \
             <limit lower=\"{lo}\" upper=\"{hi}\" effort=\"100.0\" velocity=\"2.0\"/>\n  \
             </joint>\n",
            n = i + 1,
            parent = LINK_NAMES[i],
            child = LINK_NAMES[i + 1],
            lo = fmt_exact(lo),
            hi = fmt_exact(hi),
        ));
    }
    s.push_str("</robot>\n");
    s
}

/// The robot's files, relative to `data/robots/puma560/`: the URDF and one
/// binary STL per link.
pub(crate) fn files() -> Vec<(String, Vec<u8>)> {
    let mut out = vec![(format!("{ROBOT}.urdf"), urdf().into_bytes())];
    for part in links() {
        let header = format!(
            "{ROBOT} {} (generated by cargo xtask gen-data)",
            part.name()
        );
        out.push((mesh_file(part.name()), stl(&header, &part)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{LINK_NAMES, dh_link_poses, limits, links};
    use crate::gen_data::rng::SplitMix64;
    use armature_bvh_geometry::query::{CollideMode, CollideWorkspace, MeshObject, collide};
    use armature_bvh_geometry::{ArticulatedBody, Tessellation};
    use armature_kinematics::{UrdfModel, UrdfOptions};
    use glam::DAffine3;
    use std::path::PathBuf;

    /// Largest entry of the difference of two poses.
    fn max_abs_diff(a: &DAffine3, b: &DAffine3) -> f64 {
        let m = a.matrix3 - b.matrix3;
        let t = a.translation - b.translation;
        m.to_cols_array()
            .iter()
            .chain(t.to_array().iter())
            .fold(0.0f64, |s, x| s.max(x.abs()))
    }

    fn urdf_path() -> PathBuf {
        crate::gen_data::repo_root().join("data/robots/puma560/puma560.urdf")
    }

    fn random_q(rng: &mut SplitMix64) -> [f64; 6] {
        limits().map(|(lo, hi)| rng.range(lo, hi))
    }

    #[test]
    fn urdf_forward_kinematics_is_the_dh_product() {
        let model = UrdfModel::from_file(urdf_path()).unwrap();
        let tree = model.tree();
        assert_eq!(tree.nq(), 6);
        assert_eq!(model.joint_names().count(), 6);
        let mut rng = SplitMix64::new(560);
        for case in 0..200 {
            let q = if case == 0 {
                [0.0; 6]
            } else {
                random_q(&mut rng)
            };
            let poses = tree.poses(&q).unwrap();
            let dh = dh_link_poses(&q);
            for (i, name) in LINK_NAMES.iter().enumerate() {
                let k = tree.link_index(name).unwrap();
                let err = max_abs_diff(&poses[k], &dh[i]);
                assert!(err < 1e-9, "{name} at {q:?}: {err}");
            }
        }
    }

    #[test]
    fn urdf_limits_are_the_puma_limits() {
        let model = UrdfModel::from_file(urdf_path()).unwrap();
        let tree = model.tree();
        for (i, &(lo, hi)) in limits().iter().enumerate() {
            let link = tree
                .link(tree.link_index(LINK_NAMES[i + 1]).unwrap())
                .unwrap();
            let lim = link.joint().limits.unwrap();
            assert!((lim.lower - lo).abs() < 1e-12 && (lim.upper - hi).abs() < 1e-12);
        }
    }

    #[test]
    fn body_loads_and_non_adjacent_links_are_apart() {
        let body = ArticulatedBody::from_urdf_file(
            urdf_path(),
            &UrdfOptions::default(),
            &Tessellation::default(),
        )
        .unwrap();
        let tree = body.tree();
        let triangles: usize = body
            .links()
            .iter()
            .flatten()
            .map(|g| g.mesh.num_triangles())
            .sum();
        let expected: usize = links().iter().map(|p| p.triangle_count()).sum();
        assert_eq!(triangles, expected);
        assert!((700..=900).contains(&triangles), "{triangles}");

        let mut ws = CollideWorkspace::new();
        let mut rng = SplitMix64::new(5600);
        let mut free = 0;
        let cases = 300;
        for case in 0..cases {
            let q = if case == 0 {
                [0.0; 6]
            } else {
                random_q(&mut rng)
            };
            let poses = tree.poses(&q).unwrap();
            let mut hit = None;
            for a in 0..tree.len() {
                for b in a + 1..tree.len() {
                    if tree.are_adjacent(a, b) {
                        continue;
                    }
                    let (ga, gb) = (
                        body.links()[a].as_ref().unwrap(),
                        body.links()[b].as_ref().unwrap(),
                    );
                    let oa = MeshObject::new(&ga.mesh, &ga.obb_tree, poses[a]).unwrap();
                    let ob = MeshObject::new(&gb.mesh, &gb.obb_tree, poses[b]).unwrap();
                    if collide(&oa, &ob, CollideMode::First, &mut ws).colliding {
                        hit = Some((a, b));
                    }
                }
            }
            if case == 0 {
                assert_eq!(hit, None, "home pose self-collides");
            }
            free += usize::from(hit.is_none());
        }
        // Self-collision is possible (the wrist can fold onto the column)
        // but rare.
        assert!(free * 10 >= cases * 9, "{free} of {cases} free");
    }
}
