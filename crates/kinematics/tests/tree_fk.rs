//! Trees, forward kinematics, point Jacobians, motions and paths: the Puma
//! 560 against its DH table, every validation error, Jacobians against
//! central finite differences for every joint type, in-between against
//! joint-space motion, point velocities against finite differences.

use armature_kinematics::{
    InBetweenMotion, Joint, JointSpaceMotion, JointType, KinematicTree, KinematicsError, LinkSpec,
    LocalTransforms, Path,
};
use core::f64::consts::{FRAC_PI_2, PI};
use glam::{DAffine3, DMat3, DMat4, DQuat, DVec3};
use proptest::prelude::*;

// ---------------------------------------------------------------- helpers

/// splitmix64: a small deterministic generator for test inputs.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    fn vec3(&mut self, r: f64) -> DVec3 {
        DVec3::new(self.range(-r, r), self.range(-r, r), self.range(-r, r))
    }

    fn direction(&mut self) -> DVec3 {
        loop {
            let v = self.vec3(1.0);
            if v.length() > 0.1 {
                return v.normalize();
            }
        }
    }

    fn quat(&mut self) -> DQuat {
        DQuat::from_axis_angle(self.direction(), self.range(-PI, PI))
    }

    fn pose(&mut self) -> DAffine3 {
        DAffine3::from_rotation_translation(self.quat(), self.vec3(0.5))
    }
}

fn close(a: &DAffine3, b: &DAffine3, tol: f64) -> bool {
    a.abs_diff_eq(*b, tol)
}

fn quat_values(q: DQuat) -> [f64; 4] {
    [q.x, q.y, q.z, q.w]
}

// ------------------------------------------------------------ Puma 560

/// Standard DH rows (d, a, α) of the Puma 560.
const PUMA_DH: [(f64, f64, f64); 6] = [
    (0.67183, 0.0, FRAC_PI_2),
    (0.0, 0.4318, 0.0),
    (0.15005, 0.0203, -FRAC_PI_2),
    (0.4318, 0.0, FRAC_PI_2),
    (0.0, 0.0, -FRAC_PI_2),
    (0.0, 0.0, 0.0),
];

/// The constant part `Tz(d) · Tx(a) · Rx(α)` of a DH row.
fn dh_constant((d, a, alpha): (f64, f64, f64)) -> DAffine3 {
    DAffine3::from_translation(DVec3::new(a, 0.0, d)) * DAffine3::from_rotation_x(alpha)
}

/// The Puma as a tree: link `i` turns about its z axis by θ_i; row `i`'s
/// constant part is the origin of link `i + 1`, and a fixed `flange`
/// carries the last row's.
fn puma() -> KinematicTree {
    let mut specs = Vec::new();
    let mut parent: Option<String> = None;
    for i in 0..6 {
        let name = format!("link{}", i + 1);
        let origin = if i == 0 {
            DAffine3::IDENTITY
        } else {
            dh_constant(PUMA_DH[i - 1])
        };
        specs.push(
            LinkSpec::new(name.clone(), parent.as_deref())
                .with_joint(Joint::revolute(
                    format!("joint{}", i + 1),
                    DVec3::Z,
                    -PI,
                    PI,
                ))
                .with_origin(origin),
        );
        parent = Some(name);
    }
    specs.push(LinkSpec::new("flange", Some("link6")).with_origin(dh_constant(PUMA_DH[5])));
    KinematicTree::new(specs).expect("valid Puma")
}

/// `T_1 ⋯ T_k` with `T_i = Rz(θ_i) · Tz(d_i) · Tx(a_i) · Rx(α_i)`, each as
/// a 4 × 4 matrix, for `k = 1..=6`.
fn dh_frames(q: &[f64]) -> Vec<DMat4> {
    let mut t = DMat4::IDENTITY;
    PUMA_DH
        .iter()
        .zip(q)
        .map(|(&(d, a, alpha), &theta)| {
            t = t
                * DMat4::from_rotation_z(theta)
                * DMat4::from_translation(DVec3::new(0.0, 0.0, d))
                * DMat4::from_translation(DVec3::new(a, 0.0, 0.0))
                * DMat4::from_rotation_x(alpha);
            t
        })
        .collect()
}

#[test]
fn puma_matches_the_dh_table() {
    let tree = puma();
    assert_eq!((tree.len(), tree.nq(), tree.dof()), (7, 6, 6));
    let flange = tree.link_index("flange").unwrap();
    let end = |q: &[f64]| tree.poses(q).unwrap()[flange].translation;
    let zero = end(&[0.0; 6]);
    assert!(
        zero.abs_diff_eq(DVec3::new(0.4521, -0.15005, 1.10363), 1e-5),
        "{zero}"
    );
    let bent = end(&[0.0, FRAC_PI_2, -FRAC_PI_2, 0.0, 0.0, 0.0]);
    assert!(
        bent.abs_diff_eq(DVec3::new(0.0203, -0.15005, 1.53543), 1e-5),
        "{bent}"
    );

    let mut rng = Rng(560);
    let mut poses = vec![DAffine3::IDENTITY; tree.len()];
    for _ in 0..50 {
        let q: Vec<f64> = (0..6).map(|_| rng.range(-PI, PI)).collect();
        tree.forward_kinematics(&q, &mut poses).unwrap();
        for (i, frame) in dh_frames(&q).iter().enumerate() {
            // DH frame i is link i's frame moved by row i's constant part.
            let ours = DMat4::from(poses[i] * dh_constant(PUMA_DH[i]));
            assert!(ours.abs_diff_eq(*frame, 1e-12), "frame {}: {q:?}", i + 1);
        }
        assert!(DMat4::from(poses[flange]).abs_diff_eq(dh_frames(&q)[5], 1e-12));
    }
}

/// Two robots, one of them branching, with revolute, prismatic and
/// spherical joints and offset origins.
fn two_robots() -> KinematicTree {
    let at = |x: f64, y: f64, z: f64| DAffine3::from_translation(DVec3::new(x, y, z));
    KinematicTree::new(vec![
        LinkSpec::new("base", None).with_joint(Joint::revolute("j0", DVec3::Z, -PI, PI)),
        LinkSpec::new("upper", Some("base"))
            .with_origin(at(0.0, 0.1, 0.5))
            .with_joint(Joint::revolute("j1", DVec3::Y, -PI, PI)),
        LinkSpec::new("slide", Some("upper"))
            .with_origin(at(0.4, 0.0, 0.0))
            .with_joint(Joint::prismatic("j2", DVec3::X, -0.2, 0.3)),
        LinkSpec::new("wrist", Some("slide"))
            .with_origin(at(0.1, 0.0, 0.05))
            .with_joint(Joint::new("j3", JointType::Spherical)),
        LinkSpec::new("side", Some("base"))
            .with_origin(at(-0.2, 0.0, 0.3))
            .with_joint(Joint::revolute("j4", DVec3::X, -PI, PI)),
        LinkSpec::new("other", None)
            .with_origin(at(2.0, 0.0, 0.0))
            .with_joint(Joint::revolute("j5", DVec3::Z, -PI, PI)),
        LinkSpec::new("other_arm", Some("other"))
            .with_origin(at(0.0, 0.0, 0.7))
            .with_joint(Joint::revolute("j6", DVec3::Y, -PI, PI)),
    ])
    .unwrap()
}

#[test]
fn chain_kinematics_are_the_full_ones_bit_for_bit() {
    let tree = two_robots();
    let mut rng = Rng(4242);
    let n = tree.len();
    let sentinel = DAffine3::from_translation(DVec3::splat(f64::NAN));
    for _ in 0..40 {
        let mut q: Vec<f64> = (0..tree.nq()).map(|_| rng.range(-PI, PI)).collect();
        let s = tree.q_range(tree.link_index("wrist").unwrap()).start;
        let quat = DQuat::from_euler(
            glam::EulerRot::XYZ,
            rng.range(-PI, PI),
            rng.range(-PI, PI),
            rng.range(-PI, PI),
        );
        q[s..s + 4].copy_from_slice(&[quat.x, quat.y, quat.z, quat.w]);
        let full = tree.poses(&q).unwrap();
        // One link at a time from nothing: its chain, and nothing else.
        for link in 0..n {
            let (mut out, mut known) = (vec![sentinel; n], vec![false; n]);
            tree.chain_forward_kinematics(link, &q, &mut out, &mut known)
                .unwrap();
            let chain: Vec<usize> = tree.ancestors(link).collect();
            for i in 0..n {
                assert_eq!(known[i], chain.contains(&i), "link {link}, entry {i}");
                if known[i] {
                    assert_eq!(out[i], full[i], "link {link}, entry {i}");
                } else {
                    assert!(out[i].translation.x.is_nan(), "link {link} wrote {i}");
                }
            }
        }
        // Links added in a random order into the same buffers end with
        // every pose the full one.
        let (mut out, mut known) = (vec![sentinel; n], vec![false; n]);
        let mut order: Vec<usize> = (0..n).collect();
        for k in (1..n).rev() {
            order.swap(k, rng.below(k + 1));
        }
        for &link in &order {
            tree.chain_forward_kinematics(link, &q, &mut out, &mut known)
                .unwrap();
        }
        assert!(known.iter().all(|&k| k));
        assert_eq!(out, full);
    }
    let q = vec![0.0; tree.nq()];
    let (mut out, mut known) = (vec![DAffine3::IDENTITY; n], vec![false; n]);
    assert_eq!(
        tree.chain_forward_kinematics(n, &q, &mut out, &mut known)
            .unwrap_err(),
        KinematicsError::LinkIndex { index: n, len: n }
    );
    assert_eq!(
        tree.chain_forward_kinematics(0, &q[1..], &mut out, &mut known)
            .unwrap_err(),
        KinematicsError::ConfigLength {
            expected: tree.nq(),
            got: tree.nq() - 1
        }
    );
    assert_eq!(
        tree.chain_forward_kinematics(0, &q, &mut out[1..], &mut known)
            .unwrap_err(),
        KinematicsError::BufferLength {
            what: "poses",
            expected: n,
            got: n - 1
        }
    );
    assert_eq!(
        tree.chain_forward_kinematics(0, &q, &mut out, &mut known[1..])
            .unwrap_err(),
        KinematicsError::BufferLength {
            what: "known poses",
            expected: n,
            got: n - 1
        }
    );
}

#[test]
fn cached_kinematics_are_the_full_ones_bit_for_bit() {
    let tree = two_robots();
    let mut rng = Rng(977);
    let n = tree.len();
    let wrist = tree.q_range(tree.link_index("wrist").unwrap()).start;
    let mut q: Vec<f64> = (0..tree.nq()).map(|_| rng.range(-0.2, 0.2)).collect();
    q[wrist..wrist + 4].copy_from_slice(&[0.0, 0.0, 0.0, 1.0]);
    let mut cache = LocalTransforms::default();
    let mut out = vec![DAffine3::IDENTITY; n];
    // A walk changing a few values a step (none, one, or several; one
    // component of the wrist's quaternion alone too): every step's poses
    // are the full ones.
    for step in 0..300 {
        for _ in 0..rng.below(4) {
            let k = rng.below(tree.nq());
            q[k] += rng.range(-0.05, 0.05);
        }
        tree.forward_kinematics_cached(&q, &mut cache, &mut out)
            .unwrap();
        assert_eq!(out, tree.poses(&q).unwrap(), "step {step}");
    }
    // Another tree of other sizes resets the cache by itself; after
    // `clear`, any tree starts afresh.
    let puma = puma();
    let qp: Vec<f64> = (0..puma.nq()).map(|_| rng.range(-1.0, 1.0)).collect();
    let mut out_p = vec![DAffine3::IDENTITY; puma.len()];
    puma.forward_kinematics_cached(&qp, &mut cache, &mut out_p)
        .unwrap();
    assert_eq!(out_p, puma.poses(&qp).unwrap());
    cache.clear();
    tree.forward_kinematics_cached(&q, &mut cache, &mut out)
        .unwrap();
    assert_eq!(out, tree.poses(&q).unwrap());
    // As many values as `tree` but more links: reset too.
    let chain = KinematicTree::new(
        (0..tree.nq())
            .map(|i| {
                let parent = (i > 0).then(|| format!("l{}", i - 1));
                LinkSpec::new(format!("l{i}"), parent.as_deref())
                    .with_origin(DAffine3::from_translation(DVec3::Z * 0.1))
                    .with_joint(Joint::revolute(format!("j{i}"), DVec3::X, -PI, PI))
            })
            .collect(),
    )
    .unwrap();
    assert_eq!((chain.nq(), chain.len() > n), (tree.nq(), true));
    let mut out_c = vec![DAffine3::IDENTITY; chain.len()];
    chain
        .forward_kinematics_cached(&q, &mut cache, &mut out_c)
        .unwrap();
    assert_eq!(out_c, chain.poses(&q).unwrap());
    // The errors of `forward_kinematics`.
    assert_eq!(
        tree.forward_kinematics_cached(&q[1..], &mut cache, &mut out)
            .unwrap_err(),
        KinematicsError::ConfigLength {
            expected: tree.nq(),
            got: tree.nq() - 1
        }
    );
    assert_eq!(
        tree.forward_kinematics_cached(&q, &mut cache, &mut out[1..])
            .unwrap_err(),
        KinematicsError::BufferLength {
            what: "poses",
            expected: n,
            got: n - 1
        }
    );
}

// ------------------------------------------------------- validation errors

fn rev(name: &str, parent: Option<&str>) -> LinkSpec {
    LinkSpec::new(name, parent).with_joint(Joint::revolute(name, DVec3::Z, -1.0, 1.0))
}

#[test]
fn tree_errors_name_the_link() {
    let err = KinematicTree::new(vec![rev("a", None), rev("b", Some("zzz"))]).unwrap_err();
    assert_eq!(
        err,
        KinematicsError::UnknownParent {
            link: "b".into(),
            parent: "zzz".into()
        }
    );

    let err = KinematicTree::new(vec![
        rev("root", None),
        rev("a", Some("c")),
        rev("b", Some("a")),
        rev("c", Some("b")),
    ])
    .unwrap_err();
    assert!(
        matches!(&err, KinematicsError::Cycle { link } if ["a", "b", "c"].contains(&link.as_str())),
        "{err:?}"
    );
    // A link that is its own parent.
    assert!(matches!(
        KinematicTree::new(vec![rev("a", Some("a"))]),
        Err(KinematicsError::Cycle { link }) if link == "a"
    ));

    assert_eq!(
        KinematicTree::new(vec![
            rev("a", None),
            rev("b", Some("a")),
            rev("a", Some("b"))
        ])
        .unwrap_err(),
        KinematicsError::DuplicateLink { name: "a".into() }
    );
    assert_eq!(
        KinematicTree::new(vec![rev("a", None), rev("", Some("a"))]).unwrap_err(),
        KinematicsError::EmptyName { index: 1 }
    );

    let with = |joint: Joint| {
        KinematicTree::new(vec![
            rev("a", None),
            LinkSpec::new("b", Some("a")).with_joint(joint),
        ])
    };
    for axis in [
        DVec3::ZERO,
        DVec3::new(f64::NAN, 0.0, 1.0),
        DVec3::new(1e-13, 0.0, 0.0),
    ] {
        for kind in [
            JointType::Revolute { axis },
            JointType::Continuous { axis },
            JointType::Prismatic { axis },
            JointType::Planar { normal: axis },
        ] {
            let err = with(Joint::new("j", kind)).unwrap_err();
            assert!(
                matches!(&err, KinematicsError::BadAxis { link, .. } if link == "b"),
                "{kind:?}: {err:?}"
            );
        }
    }
    assert_eq!(
        with(Joint::revolute("j", DVec3::X, 1.0, -1.0)).unwrap_err(),
        KinematicsError::InvalidLimits {
            link: "b".into(),
            lower: 1.0,
            upper: -1.0
        }
    );
    assert!(matches!(
        with(Joint::prismatic("j", DVec3::X, f64::NAN, 1.0)),
        Err(KinematicsError::InvalidLimits { link, .. }) if link == "b"
    ));
    assert!(matches!(
        with(Joint::new("j", JointType::Spherical).with_limits(-1.0, 1.0)),
        Err(KinematicsError::OutOfRange { link, field: "limits", .. }) if link == "b"
    ));
    for beta in [-0.1, 4.0, f64::NAN] {
        let err = with(Joint::new("j", JointType::OrientationUncertain { beta })).unwrap_err();
        assert!(
            matches!(
                &err,
                KinematicsError::OutOfRange { field: "beta", .. }
                    | KinematicsError::NotFinite { field: "beta", .. }
            ),
            "{err:?}"
        );
    }
    for delta in [-0.1, f64::INFINITY] {
        let err = with(Joint::new("j", JointType::LocationUncertain { delta })).unwrap_err();
        assert!(
            matches!(
                &err,
                KinematicsError::OutOfRange { field: "delta", .. }
                    | KinematicsError::NotFinite { field: "delta", .. }
            ),
            "{err:?}"
        );
    }

    let origin =
        |o: DAffine3| KinematicTree::new(vec![rev("a", None), rev("b", Some("a")).with_origin(o)]);
    assert!(matches!(
        origin(DAffine3::from_translation(DVec3::new(0.0, f64::NAN, 0.0))),
        Err(KinematicsError::NotFinite { link, field: "origin.translation", .. }) if link == "b"
    ));
    let mut o = DAffine3::IDENTITY;
    o.matrix3.y_axis.z = f64::INFINITY;
    assert!(matches!(
        origin(o),
        Err(KinematicsError::NotFinite { link, field: "origin.rotation", .. }) if link == "b"
    ));
    for m in [
        DMat3::from_diagonal(DVec3::new(2.0, 1.0, 1.0)),
        DMat3::from_diagonal(DVec3::new(-1.0, 1.0, 1.0)),
        DMat3::from_cols(DVec3::X, DVec3::X, DVec3::Z),
    ] {
        assert_eq!(
            origin(DAffine3::from_mat3(m)).unwrap_err(),
            KinematicsError::NotARotation { link: "b".into() }
        );
    }
}

/// A small tree with one joint of each quaternion kind.
fn mixed() -> KinematicTree {
    KinematicTree::new(vec![
        rev("a", None),
        LinkSpec::new("ball", Some("a")).with_joint(Joint::new("ball", JointType::Spherical)),
        LinkSpec::new("free", Some("ball")).with_joint(Joint::new("free", JointType::Floating)),
    ])
    .unwrap()
}

#[test]
fn configuration_and_buffer_errors_name_the_index() {
    let t = mixed();
    assert_eq!(t.nq(), 12);
    let q = t.neutral_configuration();
    assert_eq!(
        q,
        [0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]
    );
    assert_eq!(
        t.poses(&q[..11]).unwrap_err(),
        KinematicsError::ConfigLength {
            expected: 12,
            got: 11
        }
    );
    let mut bad = q.clone();
    bad[6] = f64::NAN;
    assert!(matches!(
        t.poses(&bad),
        Err(KinematicsError::ConfigNotFinite { index: 6, link, .. }) if link == "free"
    ));
    bad[6] = f64::NEG_INFINITY;
    assert!(matches!(
        t.validate_config(&bad),
        Err(KinematicsError::ConfigNotFinite { index: 6, .. })
    ));
    let mut bad = q.clone();
    bad[1..5].fill(0.0);
    assert!(matches!(
        t.poses(&bad),
        Err(KinematicsError::BadQuaternion { index: 1, link, .. }) if link == "ball"
    ));
    let mut bad = q.clone();
    bad[8..12].copy_from_slice(&[1e-9, 0.0, 0.0, 0.0]);
    assert!(matches!(
        t.poses(&bad),
        Err(KinematicsError::BadQuaternion { index: 8, link, .. }) if link == "free"
    ));
    // A non-unit quaternion is fine: it is normalised.
    let mut scaled = q.clone();
    scaled[1..5].copy_from_slice(&[0.0, 0.0, 3.0, 3.0]);
    let p = t.poses(&scaled).unwrap();
    assert!(
        p[1].matrix3
            .abs_diff_eq(DMat3::from_rotation_z(FRAC_PI_2), 1e-15)
    );
    // Even where the norm itself would overflow.
    scaled[1..5].copy_from_slice(&[0.0, 0.0, 1e300, 1e300]);
    let p = t.poses(&scaled).unwrap();
    assert!(
        p[1].matrix3
            .abs_diff_eq(DMat3::from_rotation_z(FRAC_PI_2), 1e-15)
    );

    let mut short = vec![DAffine3::IDENTITY; 2];
    assert_eq!(
        t.forward_kinematics(&q, &mut short).unwrap_err(),
        KinematicsError::BufferLength {
            what: "poses",
            expected: 3,
            got: 2
        }
    );
    let poses = t.poses(&q).unwrap();
    let mut jac = vec![DVec3::ZERO; t.dof()];
    assert_eq!(
        t.point_jacobian(&q, &poses, 3, DVec3::ZERO, &mut jac)
            .unwrap_err(),
        KinematicsError::LinkIndex { index: 3, len: 3 }
    );
    assert!(matches!(
        t.point_jacobian(&q, &poses[..2], 2, DVec3::ZERO, &mut jac),
        Err(KinematicsError::BufferLength { what: "poses", .. })
    ));
    assert!(matches!(
        t.point_jacobian(&q, &poses, 2, DVec3::ZERO, &mut jac[..5]),
        Err(KinematicsError::BufferLength {
            what: "jacobian",
            expected: 10,
            got: 5
        })
    ));
    assert!(matches!(
        t.point_jacobian(&q[..3], &poses, 2, DVec3::ZERO, &mut jac),
        Err(KinematicsError::ConfigLength { .. })
    ));
    assert_eq!(
        t.link(7).unwrap_err(),
        KinematicsError::LinkIndex { index: 7, len: 3 }
    );
    assert_eq!(
        t.link_index("nope").unwrap_err(),
        KinematicsError::UnknownLink {
            name: "nope".into()
        }
    );

    // Motions check both ends and their buffers.
    assert!(matches!(
        InBetweenMotion::new(&t, &q, &bad),
        Err(KinematicsError::BadQuaternion { index: 8, .. })
    ));
    assert!(matches!(
        JointSpaceMotion::new(&t, &q[..1], &q),
        Err(KinematicsError::ConfigLength { .. })
    ));
    let m = InBetweenMotion::new(&t, &q, &q).unwrap();
    assert!(matches!(
        m.poses_at(0.5, &mut short),
        Err(KinematicsError::BufferLength { what: "poses", .. })
    ));
    assert!(matches!(
        m.point_velocity(&poses, 3, DVec3::ZERO),
        Err(KinematicsError::LinkIndex { index: 3, len: 3 })
    ));
    assert!(matches!(
        m.point_velocity(&poses[..1], 2, DVec3::ZERO),
        Err(KinematicsError::BufferLength { what: "poses", .. })
    ));
    let j = JointSpaceMotion::new(&t, &q, &q).unwrap();
    let mut qbuf = vec![0.0; 11];
    assert!(matches!(
        j.config_at(&t, 0.5, &mut qbuf),
        Err(KinematicsError::BufferLength {
            what: "configuration",
            ..
        })
    ));
    let mut qbuf = vec![0.0; 12];
    assert!(matches!(
        j.poses_at(&t, 0.5, &mut qbuf, &mut short),
        Err(KinematicsError::BufferLength { what: "poses", .. })
    ));
    // A motion of another tree with a different length.
    assert!(matches!(
        j.config_at(&puma(), 0.5, &mut qbuf),
        Err(KinematicsError::BufferLength { .. })
    ));
}

#[test]
fn tree_queries() {
    let t = KinematicTree::new(vec![
        rev("c", Some("b")),
        rev("a", None),
        rev("b", Some("a")),
        rev("d", Some("a")),
        rev("other", None),
    ])
    .unwrap();
    // Tree order: each link after its parent, otherwise input order.
    let names: Vec<_> = t.links().iter().map(|l| l.name()).collect();
    assert_eq!(names, ["a", "b", "c", "d", "other"]);
    let [a, b, c, d, other] = ["a", "b", "c", "d", "other"].map(|n| t.link_index(n).unwrap());
    assert_eq!(t.links()[a].children(), [b, d]);
    assert_eq!(t.links()[c].depth(), 2);
    assert_eq!(t.links()[other].root(), other);
    assert_eq!(t.ancestors(c).collect::<Vec<_>>(), [c, b, a]);
    assert_eq!(t.common_ancestor(c, d), Some(a));
    assert_eq!(t.common_ancestor(c, b), Some(b));
    assert_eq!(t.common_ancestor(c, other), None);
    assert!(t.are_adjacent(b, c) && t.are_adjacent(c, b) && !t.are_adjacent(a, c));
    assert_eq!(t.q_range(c), 2..3);
    let q = vec![2.0, -0.5, 0.0, 0.3, 9.0];
    assert!(!t.within_limits(&q));
    let clamped = t.clamp_to_limits(&q).unwrap();
    assert_eq!(clamped, [1.0, -0.5, 0.0, 0.3, 1.0]);
    assert!(t.within_limits(&clamped));
    assert!(t.clamp_to_limits(&q[..2]).is_err());
}

// ------------------------------------------------ random trees, every joint

/// Every joint kind, with parameters.
fn kinds(rng: &mut Rng) -> Vec<JointType> {
    vec![
        JointType::Fixed,
        JointType::Revolute {
            axis: rng.direction() * rng.range(0.5, 2.0),
        },
        JointType::Continuous {
            axis: rng.direction(),
        },
        JointType::Prismatic {
            axis: rng.direction(),
        },
        JointType::Spherical,
        JointType::Floating,
        JointType::Planar {
            normal: rng.direction(),
        },
        JointType::Vehicle,
        JointType::OmniVehicle,
        JointType::OrientationUncertain { beta: 0.1 },
        JointType::LocationUncertain { delta: 0.05 },
    ]
}

/// A random forest of `n` links whose joints are drawn from `allowed`
/// (indices into [`kinds`]); the first link is a root, later links hang
/// from a random earlier link or (rarely) start another root.
fn random_tree(rng: &mut Rng, n: usize, allowed: &[usize]) -> KinematicTree {
    let specs = (0..n)
        .map(|i| {
            let parent = (i > 0 && rng.below(8) != 0).then(|| format!("l{}", rng.below(i)));
            let kind = kinds(rng)[allowed[rng.below(allowed.len())]];
            LinkSpec::new(format!("l{i}"), parent.as_deref())
                .with_joint(Joint::new(format!("j{i}"), kind))
                .with_origin(rng.pose())
        })
        .collect();
    KinematicTree::new(specs).expect("valid random tree")
}

/// A random configuration (unit quaternions; vehicle angles sometimes 0 or
/// tiny to reach the series branches).
fn random_config(rng: &mut Rng, t: &KinematicTree) -> Vec<f64> {
    let mut q = vec![0.0; t.nq()];
    for (i, l) in t.links().iter().enumerate() {
        let s = &mut q[t.q_range(i)];
        let angle = |rng: &mut Rng| match rng.below(6) {
            0 => 0.0,
            1 => rng.range(-1e-5, 1e-5),
            _ => rng.range(-3.0, 3.0),
        };
        match l.joint().kind {
            JointType::Spherical | JointType::OrientationUncertain { .. } => {
                s.copy_from_slice(&quat_values(rng.quat()));
            }
            JointType::Floating => {
                s[..3].copy_from_slice(&rng.vec3(1.0).to_array());
                s[3..].copy_from_slice(&quat_values(rng.quat()));
            }
            JointType::Vehicle => {
                s[0] = rng.range(-2.0, 2.0);
                s[1] = angle(rng);
            }
            JointType::OmniVehicle => {
                s[0] = rng.range(-PI, PI);
                s[1] = rng.range(-2.0, 2.0);
                s[2] = angle(rng);
            }
            _ => s.iter_mut().for_each(|v| *v = rng.range(-3.0, 3.0)),
        }
    }
    q
}

/// `q` moved by `h` along tangent coordinate `k` of link `i`'s joint, in
/// the convention of [`KinematicTree::point_jacobian`]: quaternion rotations
/// by the rotation vector `h·e` applied after the joint rotation and
/// expressed in the joint frame (`q ← exp(h·e) ⊗ q`), every other value
/// directly.
fn perturb(t: &KinematicTree, q: &[f64], i: usize, k: usize, h: f64) -> Vec<f64> {
    let mut out = q.to_vec();
    let s = t.q_range(i).start;
    let rotate = |out: &mut [f64], at: usize, axis: usize| {
        let v = &out[at..at + 4];
        let cur = DQuat::from_xyzw(v[0], v[1], v[2], v[3]).normalize();
        let e = [DVec3::X, DVec3::Y, DVec3::Z][axis];
        let next = DQuat::from_scaled_axis(e * h) * cur;
        out[at..at + 4].copy_from_slice(&quat_values(next));
    };
    match t.links()[i].joint().kind {
        JointType::Spherical | JointType::OrientationUncertain { .. } => rotate(&mut out, s, k),
        JointType::Floating if k >= 3 => rotate(&mut out, s + 3, k - 3),
        _ => out[s + k] += h,
    }
    out
}

/// Checks every Jacobian column of a point on every link against central
/// differences of forward kinematics.
fn check_jacobian(t: &KinematicTree, q: &[f64], rng: &mut Rng) -> Result<(), String> {
    let poses = t.poses(q).map_err(|e| e.to_string())?;
    let mut jac = vec![DVec3::ZERO; t.dof()];
    let h = 1e-6;
    for link in 0..t.len() {
        let p_local = rng.vec3(0.5);
        t.point_jacobian(q, &poses, link, p_local, &mut jac)
            .map_err(|e| e.to_string())?;
        let mut fd = vec![DVec3::ZERO; t.dof()];
        for i in 0..t.len() {
            for (k, col) in t.dof_range(i).enumerate() {
                let point = |q: &[f64]| t.poses(q).unwrap()[link].transform_point3(p_local);
                let plus = point(&perturb(t, q, i, k, h));
                let minus = point(&perturb(t, q, i, k, -h));
                fd[col] = (plus - minus) / (2.0 * h);
            }
        }
        for (col, (a, b)) in jac.iter().zip(&fd).enumerate() {
            let tol = 1e-6 * a.length().max(1.0);
            if !a.abs_diff_eq(*b, tol) {
                let joints: Vec<_> = t
                    .links()
                    .iter()
                    .map(|l| (l.parent(), l.joint().kind))
                    .collect();
                return Err(format!(
                    "link {link} column {col}: analytic {a}, finite differences {b}\n\
                     joints {joints:?}\nq = {q:?}"
                ));
            }
        }
    }
    Ok(())
}

const ALL_KINDS: [usize; 11] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

#[test]
fn jacobian_of_a_chain_with_every_joint_type() {
    let mut rng = Rng(7);
    // One chain holding each kind once, in several orders.
    for _ in 0..20 {
        let mut order = ALL_KINDS.to_vec();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        let specs = order
            .iter()
            .enumerate()
            .map(|(i, &k)| {
                let parent = (i > 0).then(|| format!("l{}", i - 1));
                LinkSpec::new(format!("l{i}"), parent.as_deref())
                    .with_joint(Joint::new(format!("j{i}"), kinds(&mut rng)[k]))
                    .with_origin(rng.pose())
            })
            .collect();
        let t = KinematicTree::new(specs).unwrap();
        assert_eq!(t.dof(), 1 + 1 + 1 + 3 + 6 + 3 + 2 + 3 + 3 + 3);
        let q = random_config(&mut rng, &t);
        check_jacobian(&t, &q, &mut rng).unwrap();
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Point Jacobians of random trees with every joint type match central
    /// finite differences of forward kinematics.
    #[test]
    fn jacobian_matches_finite_differences(seed in any::<u64>(), n in 1usize..8) {
        let mut rng = Rng(seed);
        let t = random_tree(&mut rng, n, &ALL_KINDS);
        let q = random_config(&mut rng, &t);
        if let Err(e) = check_jacobian(&t, &q, &mut rng) {
            prop_assert!(false, "{}", e);
        }
    }

    /// In-between motions start and end at the forward kinematics of their
    /// end configurations, and their point velocities are the time
    /// derivatives of their poses.
    #[test]
    fn in_between_velocity_matches_finite_differences(seed in any::<u64>(), n in 1usize..7) {
        let mut rng = Rng(seed);
        let t = random_tree(&mut rng, n, &ALL_KINDS);
        let (q0, q1) = (random_config(&mut rng, &t), random_config(&mut rng, &t));
        let m = InBetweenMotion::new(&t, &q0, &q1).unwrap();
        let mut at = vec![DAffine3::IDENTITY; t.len()];
        for (time, q) in [(0.0, &q0), (1.0, &q1)] {
            m.poses_at(time, &mut at).unwrap();
            let fk = t.poses(q).unwrap();
            for (a, b) in at.iter().zip(&fk) {
                prop_assert!(close(a, b, 1e-9), "t = {}: {:?} vs {:?}", time, a, b);
            }
        }
        let h = 1e-6;
        let (mut plus, mut minus) = (at.clone(), at.clone());
        for _ in 0..4 {
            let time = rng.range(h, 1.0 - h);
            m.poses_at(time, &mut at).unwrap();
            m.poses_at(time + h, &mut plus).unwrap();
            m.poses_at(time - h, &mut minus).unwrap();
            for link in 0..t.len() {
                let p = rng.vec3(0.5);
                let v = m.point_velocity(&at, link, p).unwrap();
                let fd = (plus[link].transform_point3(p) - minus[link].transform_point3(p)) / (2.0 * h);
                prop_assert!(
                    v.abs_diff_eq(fd, 1e-6 * v.length().max(1.0)),
                    "link {} t {}: {} vs {}", link, time, v, fd
                );
            }
        }
    }

    /// For revolute, continuous, prismatic, spherical and planar joints the
    /// in-between motion is the joint-space interpolation.
    #[test]
    fn in_between_equals_joint_space_for_joint_driven_links(seed in any::<u64>(), n in 1usize..8) {
        let mut rng = Rng(seed);
        // Fixed, revolute, continuous, prismatic, spherical, planar.
        let t = random_tree(&mut rng, n, &[0, 1, 2, 3, 4, 6]);
        let (q0, q1) = (random_config(&mut rng, &t), random_config(&mut rng, &t));
        let ib = InBetweenMotion::new(&t, &q0, &q1).unwrap();
        let js = JointSpaceMotion::new(&t, &q0, &q1).unwrap();
        prop_assert_eq!(js.start(), &q0[..]);
        prop_assert_eq!(js.end(), &q1[..]);
        let mut a = vec![DAffine3::IDENTITY; t.len()];
        let mut b = a.clone();
        let mut q = vec![0.0; t.nq()];
        let times = [0.0, 0.25, 0.5, 1.0, rng.unit(), rng.unit()];
        for time in times {
            ib.poses_at(time, &mut a).unwrap();
            js.poses_at(&t, time, &mut q, &mut b).unwrap();
            for (x, y) in a.iter().zip(&b) {
                prop_assert!(close(x, y, 1e-12), "t = {}: {:?} vs {:?}", time, x, y);
            }
        }
    }
}

#[test]
fn revolute_swings_beyond_pi_are_exact() {
    let t = KinematicTree::new(vec![
        LinkSpec::new("a", None)
            .with_joint(Joint::new("j", JointType::Continuous { axis: DVec3::Z })),
        LinkSpec::new("b", Some("a")).with_origin(DAffine3::from_translation(DVec3::X)),
    ])
    .unwrap();
    let m = InBetweenMotion::new(&t, &[0.0], &[1.5 * PI]).unwrap();
    assert!((m.local()[0].omega - 1.5 * PI).abs() < 1e-15);
    let mut p = vec![DAffine3::IDENTITY; 2];
    m.poses_at(0.5, &mut p).unwrap();
    // Three eighths of a turn, not the short way round.
    let expected = DVec3::new((0.75 * PI).cos(), (0.75 * PI).sin(), 0.0);
    assert!(p[1].translation.abs_diff_eq(expected, 1e-15));
}

#[test]
fn vehicle_joints_move_differently_in_joint_space() {
    for kind in [JointType::Vehicle, JointType::OmniVehicle] {
        let t = KinematicTree::new(vec![
            LinkSpec::new("base", None).with_joint(Joint::new("drive", kind)),
            LinkSpec::new("arm", Some("base")).with_origin(DAffine3::from_translation(DVec3::Y)),
        ])
        .unwrap();
        let (q0, q1) = if kind == JointType::Vehicle {
            (vec![0.0, 0.0], vec![2.0, 1.2])
        } else {
            (vec![0.3, 0.0, 0.0], vec![0.3, 2.0, 1.2])
        };
        let ib = InBetweenMotion::new(&t, &q0, &q1).unwrap();
        let js = JointSpaceMotion::new(&t, &q0, &q1).unwrap();
        let mut a = vec![DAffine3::IDENTITY; 2];
        let mut b = a.clone();
        let mut q = vec![0.0; t.nq()];
        for time in [0.0, 1.0] {
            ib.poses_at(time, &mut a).unwrap();
            js.poses_at(&t, time, &mut q, &mut b).unwrap();
            assert!(close(&a[1], &b[1], 1e-12));
        }
        ib.poses_at(0.5, &mut a).unwrap();
        js.poses_at(&t, 0.5, &mut q, &mut b).unwrap();
        // Joint space follows the braking arc; in-between the chord.
        let gap = (a[0].translation - b[0].translation).length();
        assert!(gap > 0.05, "{kind:?}: {gap}");
        let arc = DVec3::from(js_arc_point(&q0, &q1, 0.5));
        assert!(b[0].translation.abs_diff_eq(arc, 1e-12), "{kind:?}");
    }
}

/// The braking-arc point of the joint-space midpoint, from the M3 formula.
fn js_arc_point(q0: &[f64], q1: &[f64], t: f64) -> [f64; 3] {
    let mid: Vec<f64> = q0.iter().zip(q1).map(|(a, b)| a + t * (b - a)).collect();
    let (phi, s, alpha) = match mid.len() {
        2 => (0.0, mid[0], mid[1]),
        _ => (mid[0], mid[1], mid[2]),
    };
    let h = alpha / 2.0;
    let d = s * h.sin() / h;
    [d * (phi + h).cos(), d * (phi + h).sin(), 0.0]
}

#[test]
fn spherical_joint_space_takes_the_short_arc() {
    let t = KinematicTree::new(vec![
        LinkSpec::new("ball", None).with_joint(Joint::new("ball", JointType::Spherical)),
    ])
    .unwrap();
    let q0 = quat_values(DQuat::IDENTITY);
    // -q1 is the same rotation: both motions turn by 0.6 rad, not 2π − 0.6.
    let r = DQuat::from_rotation_z(0.6);
    let q1 = quat_values(-r);
    let js = JointSpaceMotion::new(&t, &q0, &q1).unwrap();
    let mut q = [0.0; 4];
    js.config_at(&t, 0.5, &mut q).unwrap();
    let mid = DQuat::from_xyzw(q[0], q[1], q[2], q[3]);
    assert!(
        mid.abs_diff_eq(DQuat::from_rotation_z(0.3), 1e-15)
            || mid.abs_diff_eq(-DQuat::from_rotation_z(0.3), 1e-15)
    );
    let ib = InBetweenMotion::new(&t, &q0, &q1).unwrap();
    assert!((ib.local()[0].omega - 0.6).abs() < 1e-14);
}

// ----------------------------------------------------------------- paths

#[test]
fn paths_have_segments_and_typed_index_errors() {
    let t = puma();
    assert_eq!(
        Path::new(&t, vec![]).unwrap_err(),
        KinematicsError::EmptyPath
    );
    let configs: Vec<Vec<f64>> = (0..4).map(|k| vec![0.1 * f64::from(k); 6]).collect();
    let p = Path::new(&t, configs.clone()).unwrap();
    assert_eq!(p.segments(), 3);
    assert_eq!(p.configs(), &configs[..]);
    for k in 0..3 {
        let js = p.joint_space(&t, k).unwrap();
        assert_eq!(
            (js.start(), js.end()),
            (&configs[k][..], &configs[k + 1][..])
        );
        let ib = p.in_between(&t, k).unwrap();
        let mut poses = vec![DAffine3::IDENTITY; t.len()];
        ib.poses_at(1.0, &mut poses).unwrap();
        let fk = t.poses(&configs[k + 1]).unwrap();
        assert!(poses.iter().zip(&fk).all(|(a, b)| close(a, b, 1e-12)));
    }
    assert_eq!(
        p.in_between(&t, 3).unwrap_err(),
        KinematicsError::SegmentIndex { index: 3, len: 3 }
    );
    assert_eq!(
        p.joint_space(&t, usize::MAX).unwrap_err(),
        KinematicsError::SegmentIndex {
            index: usize::MAX,
            len: 3
        }
    );
    // One configuration is a path without segments.
    let single = Path::new(&t, vec![vec![0.0; 6]]).unwrap();
    assert_eq!(single.segments(), 0);
    assert_eq!(
        single.in_between(&t, 0).unwrap_err(),
        KinematicsError::SegmentIndex { index: 0, len: 0 }
    );
    // Every configuration is validated.
    let mut bad = configs;
    bad[2][4] = f64::NAN;
    assert!(matches!(
        Path::new(&t, bad),
        Err(KinematicsError::ConfigNotFinite { index: 4, .. })
    ));
    assert!(matches!(
        Path::new(&t, vec![vec![0.0; 6], vec![0.0; 5]]),
        Err(KinematicsError::ConfigLength {
            expected: 6,
            got: 5
        })
    ));
}
