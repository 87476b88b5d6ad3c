//! Origins a little off a rotation (as the tree accepts them: `|mᵀm − I|`
//! up to 1e-9) must not let the sampled motion leave its enclosures.
//!
//! The tree stores the nearest rotation of every origin, and the motions
//! normalise the axes they map through the origins, so the poses sampled
//! from [`InBetweenMotion::poses_at`] and [`JointSpaceMotion::poses_at`]
//! lie in the interval, Taylor and chord enclosures up to the rounding of the
//! sampled `f64` truth alone, which is relative: [`REL_TOL`] times the
//! magnitudes involved, far below the 1e-10 a stretch of the origins would
//! cause.

use armature_interval_taylor::{IntervalAffine3, IntervalMat3, IntervalVec3, TaylorAffine3};
use armature_kinematics::prelude::*;
use glam::{DAffine3, DMat3, DQuat, DVec3};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// Rounding of the sampled truth, relative to the magnitudes of the poses
/// (products along at most 4 links, the platform's `sin`/`cos`).
const REL_TOL: f64 = 1e-13;

fn widen_box(b: &IntervalVec3, r: f64) -> IntervalVec3 {
    IntervalVec3::new(b.x.inflate(r), b.y.inflate(r), b.z.inflate(r))
}

fn widen(a: &IntervalAffine3, rot: f64, trans: f64) -> IntervalAffine3 {
    IntervalAffine3::new(
        IntervalMat3::from_cols(
            widen_box(&a.rotation.x_axis, rot),
            widen_box(&a.rotation.y_axis, rot),
            widen_box(&a.rotation.z_axis, rot),
        ),
        widen_box(&a.translation, trans),
    )
}

/// `pose` in `enc` up to the truth's rounding (rotation entries are of
/// magnitude ≤ 1, translations of magnitude ≤ `scale`).
fn assert_in(
    enc: &IntervalAffine3,
    pose: &DAffine3,
    scale: f64,
    what: &str,
) -> Result<(), TestCaseError> {
    prop_assert!(
        widen(enc, REL_TOL, REL_TOL * scale).contains(pose),
        "{what}: {pose:?} outside {enc:?}"
    );
    Ok(())
}

/// Checks both motions from `q0` to `q1` of `tree` against their interval
/// and Taylor enclosures over `[t0, t1]` at 17 times.
fn check(
    tree: &KinematicTree,
    q0: &[f64],
    q1: &[f64],
    (t0, t1): (f64, f64),
    scale: f64,
) -> Result<(), TestCaseError> {
    let n = tree.len();
    let fail = |e: KinematicsError| TestCaseError::fail(e.to_string());
    let mut poses = vec![DAffine3::IDENTITY; n];
    let ib = InBetweenMotion::new(tree, q0, q1).map_err(fail)?;
    let js = JointSpaceMotion::new(tree, q0, q1).map_err(fail)?;
    let ib_ia = ib.enclose_interval(t0, t1).map_err(fail)?;
    let ib_tm = ib.enclose_taylor(t0, t1).map_err(fail)?;
    let js_ia = js.enclose_interval(tree, t0, t1).map_err(fail)?;
    let js_tm = js.enclose_taylor(tree, t0, t1).map_err(fail)?;
    let mut ws = EnclosureWorkspace::new();
    let chords = ws
        .in_between(&ib, EnclosureKind::Chords, t0, t1)
        .map_err(fail)?;
    let ib_chords = (0..n)
        .map(|i| chords.pose_bound(i))
        .collect::<Result<Vec<_>, _>>()
        .map_err(fail)?;
    let mut q = vec![0.0; tree.nq()];
    for k in 0..=16 {
        let t = (t0 + (t1 - t0) * f64::from(k) / 16.0).clamp(t0, t1);
        for (name, ia, tm, js_pose) in [
            ("in-between", &ib_ia, &ib_tm, false),
            ("joint-space", &js_ia, &js_tm, true),
        ] {
            if js_pose {
                js.poses_at(tree, t, &mut q, &mut poses).map_err(fail)?;
            } else {
                ib.poses_at(t, &mut poses).map_err(fail)?;
            }
            for i in 0..n {
                let p = &poses[i];
                assert_in(
                    &ia[i],
                    p,
                    scale,
                    &format!("{name} interval, link {i}, t = {t}"),
                )?;
                let at = tm[i]
                    .eval(t)
                    .ok_or_else(|| TestCaseError::fail("t outside the Taylor domain"))?;
                assert_in(&at, p, scale, &format!("{name} Taylor, link {i}, t = {t}"))?;
                if !js_pose {
                    assert_in(
                        &ib_chords[i],
                        p,
                        scale,
                        &format!("{name} chords, link {i}, t = {t}"),
                    )?;
                }
                assert_in(
                    &TaylorAffine3::bound(&tm[i]),
                    p,
                    scale,
                    &format!("{name} Taylor bound, link {i}, t = {t}"),
                )?;
            }
        }
    }
    Ok(())
}

/// A continuous joint about z swinging 1.5 rad behind an origin that
/// stretches z by 4e-10 (within the tree's tolerance): the swing about the
/// mapped, unnormalised axis turned the point (1, 0, 0) 4e-10 outside
/// both enclosures.
#[test]
fn stretched_origin_keeps_the_sampled_swing_inside() {
    let origin = DAffine3 {
        matrix3: DMat3::from_diagonal(DVec3::new(1.0, 1.0, 1.0 + 4e-10)),
        translation: DVec3::ZERO,
    };
    let tree = KinematicTree::new(vec![
        LinkSpec::new("arm", None)
            .with_joint(Joint::new(
                "swing",
                JointType::Continuous { axis: DVec3::Z },
            ))
            .with_origin(origin),
    ])
    .unwrap();
    let m = tree.links()[0].origin().matrix3;
    let e = (m.transpose() * m - DMat3::IDENTITY).abs().to_cols_array();
    assert!(e.iter().all(|v| *v <= 16.0 * f64::EPSILON), "{m:?}");
    check(&tree, &[0.0], &[1.5], (0.0, 1.0), 1.0).unwrap();
    let ib = InBetweenMotion::new(&tree, &[0.0], &[1.5]).unwrap();
    let mut pose = [DAffine3::IDENTITY];
    ib.poses_at(1.0, &mut pose).unwrap();
    let x = pose[0].transform_point3(DVec3::X);
    let truth = DVec3::new(1.5f64.cos(), 1.5f64.sin(), 0.0);
    assert!(x.distance(truth) <= 1e-15, "{x} vs {truth}");
}

#[test]
fn origins_beyond_the_tolerance_are_refused() {
    for m in [
        DMat3::from_diagonal(DVec3::new(1.0, 1.0, 1.0 + 1e-8)),
        DMat3::from_diagonal(DVec3::new(1.0, 1.0, -1.0)),
    ] {
        let r = KinematicTree::new(vec![LinkSpec::new("bad", None).with_origin(DAffine3 {
            matrix3: m,
            translation: DVec3::ZERO,
        })]);
        match r {
            Err(KinematicsError::NotARotation { link }) => assert_eq!(link, "bad"),
            other => panic!("{other:?}"),
        }
    }
}

#[derive(Clone, Debug)]
struct LinkGen {
    kind: u8,
    axis: DVec3,
    rot: [f64; 4],
    perturb: [f64; 9],
    trans: DVec3,
}

fn vec3(r: f64) -> impl Strategy<Value = DVec3> {
    (-r..r, -r..r, -r..r).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

fn link_gen() -> impl Strategy<Value = LinkGen> {
    (
        0u8..6,
        vec3(1.0).prop_filter("non-zero axis", |a| a.length() > 1e-3),
        prop::array::uniform4(-1.0..1.0f64)
            .prop_filter("non-zero", |q| q.iter().map(|c| c * c).sum::<f64>() > 1e-3),
        prop::array::uniform9(prop_oneof![Just(0.0), -2e-10..2e-10f64]),
        vec3(2.0),
    )
        .prop_map(|(kind, axis, rot, perturb, trans)| LinkGen {
            kind,
            axis,
            rot,
            perturb,
            trans,
        })
}

/// A chain of the generated links, with `rotation · (I + E)` origins
/// (`|Eᵢⱼ| ≤ 2e-10`, so `|mᵀm − I| < 1e-9`), and two configurations.
fn build(gens: &[LinkGen], swing: f64) -> (KinematicTree, Vec<f64>, Vec<f64>) {
    let mut specs = Vec::new();
    let (mut q0, mut q1) = (Vec::new(), Vec::new());
    for (i, g) in gens.iter().enumerate() {
        let rot = DMat3::from_quat(DQuat::from_array(g.rot).normalize());
        let e = DMat3::from_cols_array(&g.perturb);
        let origin = DAffine3 {
            matrix3: rot * (DMat3::IDENTITY + e),
            translation: g.trans,
        };
        let s = 0.37 * (i as f64 + 1.0);
        let kind = match g.kind {
            0 => JointType::Revolute { axis: g.axis },
            1 => JointType::Continuous { axis: g.axis },
            2 => JointType::Planar { normal: g.axis },
            3 => JointType::Prismatic { axis: g.axis },
            4 => JointType::Spherical,
            _ => JointType::Fixed,
        };
        match kind {
            JointType::Revolute { .. } | JointType::Continuous { .. } => {
                q0.push(-s);
                q1.push(swing - s);
            }
            JointType::Prismatic { .. } => {
                q0.push(-0.5);
                q1.push(0.7);
            }
            JointType::Planar { .. } => {
                q0.extend([0.1, -0.2, -s]);
                q1.extend([-0.3, 0.4, swing - s]);
            }
            JointType::Spherical => {
                let a = DQuat::from_axis_angle(g.axis.normalize(), s);
                let b = DQuat::from_axis_angle(g.axis.normalize(), swing) * a;
                q0.extend(a.to_array());
                q1.extend(b.to_array());
            }
            _ => {}
        }
        let parent = (i > 0).then(|| format!("l{}", i - 1));
        specs.push(
            LinkSpec::new(format!("l{i}"), parent.as_deref())
                .with_joint(Joint::new(format!("j{i}"), kind))
                .with_origin(origin),
        );
    }
    (KinematicTree::new(specs).expect("valid"), q0, q1)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Chains of 1–4 links with perturbed origins: the sampled poses of both
    /// motions lie in both enclosures.
    #[test]
    fn sampled_motion_stays_in_its_enclosures_under_perturbed_origins(
        gens in prop::collection::vec(link_gen(), 1..=4),
        swing in prop_oneof![Just(1.5), -3.0..3.0f64],
        span in prop_oneof![Just((0.0, 1.0)), (0.0..1.0f64, 0.0..1.0f64).prop_map(|(a, b)| (a.min(b), a.max(b)))],
    ) {
        let (tree, q0, q1) = build(&gens, swing);
        // Translations up to |2·√3| per link and prismatic travel ≤ 0.7.
        let scale = 1.0 + 4.0 * gens.len() as f64;
        for l in tree.links() {
            let m = l.origin().matrix3;
            let e = (m.transpose() * m - DMat3::IDENTITY).abs().to_cols_array();
            prop_assert!(e.iter().all(|v| *v <= 16.0 * f64::EPSILON), "{m:?}");
        }
        check(&tree, &q0, &q1, span, scale)?;
    }
}
