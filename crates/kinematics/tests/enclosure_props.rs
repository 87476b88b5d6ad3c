//! Pose enclosures (interval, M1 §4.1; Taylor, M4 §5.2) against the true
//! motion, sampled.
//!
//! Random forests of 1–15 links (chains and branching trees, sometimes a
//! second root) with random joint types — revolute and continuous swings up
//! to 3π, prismatic, spherical, planar, floating, vehicle, omni-vehicle,
//! orientation and location joints — random proper-rotation origins, random
//! `q0`, `q1` (including no motion, antipodal quaternions, exact half turns,
//! straight and on-the-spot braking arcs) and random sub-intervals
//! `[t0, t1] ⊆ [0, 1]` (including `[0, 1]` and degenerate ones). At 18 times
//! of `[t0, t1]` (both end points included) the true world pose of every
//! link, from `poses_at`, must lie in its interval enclosure, in its Taylor
//! enclosure evaluated at that time and over the whole interval; every
//! corner of the link's OBB and random points inside it must lie in both
//! dynamic AABBs.
//!
//! The truth is plain `f64` and carries its own rounding error (products
//! along up to 15 links and the platform's `sin`/`cos`, ~1e-14 here), so the
//! comparisons allow [`TRUTH_TOL`]; that tolerance exists *only* for the
//! truth's rounding. The enclosures themselves are sound for the exact
//! motion. Dropping a Taylor remainder or shrinking the interval of `ω t`
//! makes these tests fail by far more than the tolerance.

use armature_interval_taylor::{Interval, IntervalAffine3, IntervalVec3, TaylorAffine3};
use armature_kinematics::joint::sinc;
use armature_kinematics::prelude::*;
use armature_kinematics::sinc_interval;
use common::{ALL, Case, Kind, case_turns, time_interval, vec3, widen_box};
use glam::{DAffine3, DMat3, DVec3};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use std::f64::consts::PI;

mod common;

/// Absolute slack for the rounding error of the sampled `f64` truth only
/// (see the module docs); the enclosures are not allowed any slack.
const TRUTH_TOL: f64 = 1e-9;

/// Agreement of two `f64` evaluations of the same pose (joint-space against
/// in-between motion): rounding only.
const SAME_POSE_TOL: f64 = 1e-12;

const CASES: u32 = 1_000;

/// Joints whose joint-space motion is an in-between motion by the joint
/// values, and free-pose joints (slerp and linear translation).
const NOT_VEHICLE: [Kind; 9] = [
    Kind::Fixed,
    Kind::Revolute,
    Kind::Continuous,
    Kind::Prismatic,
    Kind::Spherical,
    Kind::Planar,
    Kind::Floating,
    Kind::Orientation,
    Kind::Location,
];

/// Links per forest at most.
const LINKS: usize = 15;

fn case(kinds: &'static [Kind], max_angle: f64) -> impl Strategy<Value = Case> {
    case_turns(kinds, max_angle, 1.0, LINKS)
}

/// 17 evenly spaced times of `[t0, t1]` plus both end points exactly.
fn samples(t0: f64, t1: f64) -> Vec<f64> {
    let mut ts: Vec<f64> = (0..=16)
        .map(|k| (t0 + (t1 - t0) * f64::from(k) / 16.0).clamp(t0, t1))
        .collect();
    ts.push(t1);
    ts
}

fn widen(a: &IntervalAffine3, r: f64) -> IntervalAffine3 {
    IntervalAffine3::new(
        armature_interval_taylor::IntervalMat3::from_cols(
            widen_box(&a.rotation.x_axis, r),
            widen_box(&a.rotation.y_axis, r),
            widen_box(&a.rotation.z_axis, r),
        ),
        widen_box(&a.translation, r),
    )
}

/// Points of the OBB in the link frame: its corners, its centre and points
/// at `u ∈ [−1, 1]³` given by `us`.
fn obb_points(obb: &LinkObb, us: &[DVec3]) -> Vec<DVec3> {
    let mut p = obb.corners().to_vec();
    p.push(obb.center());
    p.extend(
        us.iter()
            .map(|u| obb.center() + obb.axes() * (obb.half_extents() * *u)),
    );
    p
}

/// The enclosures of one motion over one time interval.
struct Enclosed {
    ia: Vec<IntervalAffine3>,
    tm: Vec<TaylorAffine3>,
    ia_boxes: Vec<IntervalVec3>,
    tm_boxes: Vec<IntervalVec3>,
}

/// Checks every enclosure against the sampled truth.
fn check(
    case: &Case,
    (t0, t1): (f64, f64),
    us: &[DVec3],
    mut truth: impl FnMut(f64, &mut [DAffine3]),
    e: &Enclosed,
) -> Result<(), TestCaseError> {
    let n = case.tree.len();
    let Enclosed {
        ia,
        tm,
        ia_boxes,
        tm_boxes,
    } = e;
    let mut poses = vec![DAffine3::IDENTITY; n];
    let whole: Vec<IntervalAffine3> = tm.iter().map(TaylorAffine3::bound).collect();
    let points: Vec<Vec<DVec3>> = case.obbs.iter().map(|o| obb_points(o, us)).collect();
    for t in samples(t0, t1) {
        truth(t, &mut poses);
        for i in 0..n {
            let p = &poses[i];
            prop_assert!(
                widen(&ia[i], TRUTH_TOL).contains(p),
                "interval enclosure of link {i} misses the pose at t = {t}: {:?} vs {p:?}",
                ia[i]
            );
            let at = tm[i]
                .eval(t)
                .ok_or_else(|| TestCaseError::fail(format!("t = {t} outside the Taylor domain")))?;
            prop_assert!(
                widen(&at, TRUTH_TOL).contains(p),
                "Taylor enclosure of link {i} at t = {t} misses the pose: {at:?} vs {p:?}"
            );
            prop_assert!(
                widen(&whole[i], TRUTH_TOL).contains(p),
                "Taylor bound of link {i} misses the pose at t = {t}"
            );
            for x in &points[i] {
                let w = p.transform_point3(*x);
                prop_assert!(
                    widen_box(&ia_boxes[i], TRUTH_TOL).contains(w),
                    "interval OBB box of link {i} misses {w} at t = {t}: {:?}",
                    ia_boxes[i]
                );
                prop_assert!(
                    widen_box(&tm_boxes[i], TRUTH_TOL).contains(w),
                    "Taylor OBB box of link {i} misses {w} at t = {t}: {:?}",
                    tm_boxes[i]
                );
            }
        }
    }
    Ok(())
}

/// Per link, the dynamic AABB of its OBB intersected with the dynamic AABB
/// of the point set made of the OBB's sample points: a sampled point lies in
/// the intersection only if it lies in both, so `check` tests both at once.
fn boxes(
    enc: &LinkEnclosures<'_>,
    case: &Case,
    us: &[DVec3],
) -> Result<Vec<IntervalVec3>, TestCaseError> {
    let mut out = vec![IntervalVec3::ZERO; case.tree.len()];
    enc.obb_aabbs_into(&case.obbs, &mut out).unwrap();
    for (i, b) in out.iter_mut().enumerate() {
        let pts = enc.points_aabb(i, &obb_points(&case.obbs[i], us)).unwrap();
        let meet = |x: Interval, y: Interval| {
            x.intersect(y).ok_or_else(|| {
                TestCaseError::fail(format!("link {i}: OBB box and point box are disjoint"))
            })
        };
        *b = IntervalVec3::new(meet(b.x, pts.x)?, meet(b.y, pts.y)?, meet(b.z, pts.z)?);
    }
    Ok(out)
}

fn units() -> impl Strategy<Value = Vec<DVec3>> {
    prop::collection::vec(vec3(1.0), 4)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES, ..ProptestConfig::default() })]

    /// In-between motions: interval and Taylor enclosures, OBB and point
    /// boxes, through the `*_into` functions and the workspace.
    #[test]
    fn in_between_enclosures_hold_the_sampled_motion(
        case in case(&ALL, PI),
        span in time_interval(3),
        us in units(),
    ) {
        let motion = InBetweenMotion::new(&case.tree, &case.q0, &case.q1).unwrap();
        let n = case.tree.len();
        let ia = motion.enclose_interval(span.0, span.1).unwrap();
        let mut tm = vec![TaylorAffine3::identity(armature_interval_taylor::TimeDomain::unit()); n];
        motion.enclose_taylor_into(span.0, span.1, &mut tm).unwrap();
        let mut ws = EnclosureWorkspace::new();
        let enc = ws.in_between(&motion, EnclosureKind::Interval, span.0, span.1).unwrap();
        prop_assert_eq!(enc.interval_poses().unwrap(), &ia[..]);
        let ia_boxes = boxes(&enc, &case, &us)?;
        let enc = ws.in_between(&motion, EnclosureKind::Taylor, span.0, span.1).unwrap();
        let tm_boxes = boxes(&enc, &case, &us)?;
        check(
            &case,
            span,
            &us,
            |t, out| motion.poses_at(t, out).unwrap(),
            &Enclosed {
                ia,
                tm,
                ia_boxes,
                tm_boxes,
            },
        )?;
    }

    /// Joint-space motions, vehicle braking arcs included.
    #[test]
    fn joint_space_enclosures_hold_the_sampled_motion(
        case in case(&ALL, PI),
        span in time_interval(3),
        us in units(),
    ) {
        let motion = JointSpaceMotion::new(&case.tree, &case.q0, &case.q1).unwrap();
        let tree = &case.tree;
        let ia = motion.enclose_interval(tree, span.0, span.1).unwrap();
        let tm = motion.enclose_taylor(tree, span.0, span.1).unwrap();
        let mut ws = EnclosureWorkspace::with_links(tree.len());
        let enc = ws.joint_space(tree, &motion, EnclosureKind::Interval, span.0, span.1).unwrap();
        let ia_boxes = boxes(&enc, &case, &us)?;
        let enc = ws.joint_space(tree, &motion, EnclosureKind::Taylor, span.0, span.1).unwrap();
        prop_assert_eq!(enc.taylor_poses().unwrap(), &tm[..]);
        let tm_boxes = boxes(&enc, &case, &us)?;
        let mut q = vec![0.0; tree.nq()];
        check(
            &case,
            span,
            &us,
            |t, out| motion.poses_at(tree, t, &mut q, out).unwrap(),
            &Enclosed {
                ia,
                tm,
                ia_boxes,
                tm_boxes,
            },
        )?;
    }

    /// For every joint but the vehicles, the joint-space motion *is* the
    /// in-between motion: poses agree to rounding at 65 times of [0, 1],
    /// exact half turns of quaternion joints included (both motions take
    /// the same one of the two shortest arcs).
    #[test]
    fn joint_space_is_in_between_except_vehicles(case in case(&NOT_VEHICLE, PI)) {
        let tree = &case.tree;
        let js = JointSpaceMotion::new(tree, &case.q0, &case.q1).unwrap();
        let ib = InBetweenMotion::new(tree, &case.q0, &case.q1).unwrap();
        let n = tree.len();
        let (mut a, mut b) = (vec![DAffine3::IDENTITY; n], vec![DAffine3::IDENTITY; n]);
        let mut q = vec![0.0; tree.nq()];
        for k in 0..=64 {
            let t = f64::from(k) / 64.0;
            js.poses_at(tree, t, &mut q, &mut a).unwrap();
            ib.poses_at(t, &mut b).unwrap();
            for i in 0..n {
                prop_assert!(
                    a[i].abs_diff_eq(b[i], SAME_POSE_TOL),
                    "link {i} at t = {t}: joint space {:?} vs in-between {:?}",
                    a[i],
                    b[i]
                );
            }
        }
    }

    /// `sinc_interval` holds `sin x / x` at 1,001 points of its argument
    /// (end points included), near zero, across zero, far from it; and it is
    /// tight where that is cheap: within 0.01 of the sampled range on
    /// `[−1, 1]` and within the argument's width for narrow arguments.
    #[test]
    fn sinc_interval_holds_dense_samples(
        x in prop_oneof![
            (-12.0..12.0f64, 0.0..1e-6f64),
            (-12.0..12.0f64, 0.0..0.5f64),
            (-12.0..12.0f64, 0.0..6.0f64),
            (-1.0..0.0f64, 0.0..2.0f64),
            (-1e-3..1e-3f64, 0.0..2e-3f64),
            Just((0.0, 0.0)),
            Just((-1.0, 2.0)),
        ],
    ) {
        let (a, w) = x;
        let b = a + w;
        let r = sinc_interval(Interval::new(a, b).unwrap());
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for k in 0..=1000 {
            let y = if k == 1000 { b } else { (a + w * f64::from(k) / 1000.0).min(b) };
            let s = sinc(y);
            lo = lo.min(s);
            hi = hi.max(s);
            // 1e-15: the rounding of the sampled f64 sinc only.
            prop_assert!(r.inflate(1e-15).contains(s), "sinc({y}) = {s} outside {r:?}");
        }
        if a >= -1.0 && b <= 1.0 {
            prop_assert!(r.width() <= hi - lo + 0.01, "{r:?} loose on [{a}, {b}]");
        }
        if w <= 1e-6 {
            prop_assert!(r.width() <= w + 1e-9, "{r:?} loose on [{a}, {b}]");
        }
    }
}

/// A visitor of the boxes of one enclosure kind.
type Visit<'v> = dyn FnMut(&LinkEnclosures<'_>) -> Result<(), TestCaseError> + 'v;

/// Computes the enclosures of one kind and hands them to the visitor.
/// Each link's pose bound and box (OBB box ∩ point box, see [`boxes`])
/// against the truth at `steps + 1` evenly spaced times of `[t0, t1]`,
/// both ends exactly; `what` names the enclosure in failures.
#[allow(clippy::too_many_arguments)]
fn check_sampled(
    case: &Case,
    (t0, t1): (f64, f64),
    us: &[DVec3],
    steps: u32,
    mut truth: impl FnMut(f64, &mut [DAffine3]),
    what: &str,
    bounds: &[IntervalAffine3],
    boxes: &[IntervalVec3],
) -> Result<(), TestCaseError> {
    let mut poses = vec![DAffine3::IDENTITY; case.tree.len()];
    for k in 0..=steps {
        let t = if k == steps {
            t1
        } else {
            (t0 + (t1 - t0) * f64::from(k) / f64::from(steps)).clamp(t0, t1)
        };
        truth(t, &mut poses);
        for (i, p) in poses.iter().enumerate() {
            prop_assert!(
                widen(&bounds[i], TRUTH_TOL).contains(p),
                "{what} pose bound of link {i} misses the pose at t = {t}: {:?} vs {p:?}",
                bounds[i]
            );
            for x in obb_points(&case.obbs[i], us) {
                let w = p.transform_point3(x);
                prop_assert!(
                    widen_box(&boxes[i], TRUTH_TOL).contains(w),
                    "{what} box of link {i} misses {w} at t = {t}: {:?}",
                    boxes[i]
                );
            }
        }
    }
    Ok(())
}

type Enclose<'e> = dyn FnMut(EnclosureKind, &mut Visit<'_>) -> Result<(), TestCaseError> + 'e;

/// Checks the workspace's Taylor boxes (OBB box ∩ point box, see
/// [`boxes`]) and pose bounds against the truth at 129 times, and, for
/// motions without braking arcs, that they are no wider than the interval
/// boxes (up to rounding).
fn check_workspace_boxes(
    case: &Case,
    (t0, t1): (f64, f64),
    us: &[DVec3],
    truth: impl FnMut(f64, &mut [DAffine3]),
    enclose: &mut Enclose<'_>,
) -> Result<(), TestCaseError> {
    let n = case.tree.len();
    let mut ia_boxes = Vec::new();
    enclose(EnclosureKind::Interval, &mut |e| {
        ia_boxes = boxes(e, case, us)?;
        Ok(())
    })?;
    let (mut tm_boxes, mut bounds) = (Vec::new(), Vec::new());
    enclose(EnclosureKind::Taylor, &mut |e| {
        tm_boxes = boxes(e, case, us)?;
        bounds = (0..n).map(|i| e.pose_bound(i).unwrap()).collect();
        Ok(())
    })?;
    check_sampled(case, (t0, t1), us, 128, truth, "Taylor", &bounds, &tm_boxes)?;
    let arcs = case
        .tree
        .links()
        .iter()
        .any(|l| matches!(l.joint().kind, JointType::Vehicle | JointType::OmniVehicle));
    if !arcs {
        for i in 0..n {
            let (tb, ib) = (&tm_boxes[i], &ia_boxes[i]);
            for a in 0..3 {
                prop_assert!(
                    tb.get(a).width() <= ib.get(a).width() + 1e-9,
                    "Taylor box of link {i} wider than the interval box on axis {a}: {tb:?} vs {ib:?}"
                );
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Angle joints swinging up to 4 × 3π (braking arcs up to 4 × 2π) over
    /// `[0, 1]`: the workspace's Taylor boxes, built on pieces of time,
    /// hold the sampled motion, in-between and joint-space.
    #[test]
    fn taylor_boxes_hold_multi_turn_swings(
        case in (1.0..4.0f64).prop_flat_map(|turns| case_turns(&ALL, PI, turns, LINKS)),
        span in time_interval(3),
        us in units(),
    ) {
        let tree = &case.tree;
        let mut ws = EnclosureWorkspace::new();
        let ib = InBetweenMotion::new(tree, &case.q0, &case.q1).unwrap();
        check_workspace_boxes(
            &case,
            span,
            &us,
            |t, out| ib.poses_at(t, out).unwrap(),
            &mut |kind, f| f(&ws.in_between(&ib, kind, span.0, span.1).unwrap()),
        )?;
        let js = JointSpaceMotion::new(tree, &case.q0, &case.q1).unwrap();
        let mut q = vec![0.0; tree.nq()];
        check_workspace_boxes(
            &case,
            span,
            &us,
            |t, out| js.poses_at(tree, t, &mut q, out).unwrap(),
            &mut |kind, f| f(&ws.joint_space(tree, &js, kind, span.0, span.1).unwrap()),
        )?;
    }
}

/// A 1 m lever on a continuous joint swinging 2π, 12 rad or 40 rad over
/// `[0, 1]`. One Taylor model over the whole swing has Lagrange remainders
/// of order `(ω/2)⁴/24` (tens of metres at 12 rad); the Taylor boxes of the
/// workspace must be no wider than the interval boxes, whose reach is the
/// lever (±1.1 m), and the rotation entries of the pose bound stay in
/// `[−1, 1]` up to rounding.
#[test]
fn taylor_boxes_stay_useful_on_multi_turn_swings() {
    let tree = KinematicTree::new(vec![
        LinkSpec::new("arm", None)
            .with_joint(Joint::new("j", JointType::Continuous { axis: DVec3::Z })),
    ])
    .unwrap();
    let obb = LinkObb::new(
        DVec3::new(0.5, 0.0, 0.0),
        DVec3::new(0.5, 0.05, 0.05),
        DMat3::IDENTITY,
    )
    .unwrap();
    for swing in [2.0 * PI, 12.0, 40.0] {
        let motion = InBetweenMotion::new(&tree, &[0.0], &[swing]).unwrap();
        let mut ws = EnclosureWorkspace::new();
        let e = ws
            .in_between(&motion, EnclosureKind::Interval, 0.0, 1.0)
            .unwrap();
        let (ip, io) = (
            e.point_aabb(0, DVec3::X).unwrap(),
            e.obb_aabb(0, &obb).unwrap(),
        );
        let e = ws
            .in_between(&motion, EnclosureKind::Taylor, 0.0, 1.0)
            .unwrap();
        let (tp, to) = (
            e.point_aabb(0, DVec3::X).unwrap(),
            e.obb_aabb(0, &obb).unwrap(),
        );
        for (tb, ib) in [(tp, ip), (to, io)] {
            for a in 0..3 {
                assert!(
                    tb.get(a).width() <= ib.get(a).width(),
                    "swing {swing}: Taylor box {tb:?} wider than interval box {ib:?}"
                );
            }
        }
        assert!(
            tp.x.lo() >= -1.0 - 1e-9 && tp.x.hi() <= 1.0 + 1e-9,
            "swing {swing}: {tp:?}"
        );
        let pose = e.pose_bound(0).unwrap();
        for c in [
            pose.rotation.x_axis,
            pose.rotation.y_axis,
            pose.rotation.z_axis,
        ] {
            for a in 0..3 {
                let v = c.get(a);
                assert!(
                    v.lo() >= -1.0 - 1e-12 && v.hi() <= 1.0 + 1e-12,
                    "swing {swing}: {pose:?}"
                );
            }
        }
        let mut poses = [DAffine3::IDENTITY];
        for k in 0..=1000 {
            let t = f64::from(k) / 1000.0;
            motion.poses_at(t, &mut poses).unwrap();
            let tip = poses[0].transform_point3(DVec3::X);
            assert!(
                widen_box(&tp, TRUTH_TOL).contains(tip),
                "swing {swing}, t = {t}: {tip} outside {tp:?}"
            );
            for c in obb.corners() {
                let w = poses[0].transform_point3(c);
                assert!(
                    widen_box(&to, TRUTH_TOL).contains(w),
                    "swing {swing}, t = {t}: {w} outside {to:?}"
                );
            }
        }
    }
}

/// Checks the workspace's chord boxes ([`EnclosureKind::Chords`]: OBB box ∩
/// point box, see [`boxes`]) and pose bounds against the in-between motion
/// sampled at 513 times of `[t0, t1]` (the boxes are tight: a piece's
/// bulge is about what a turning point needs, so the samples must be
/// dense).
fn check_chord_boxes(
    case: &Case,
    (t0, t1): (f64, f64),
    us: &[DVec3],
    motion: &InBetweenMotion,
) -> Result<(), TestCaseError> {
    let n = case.tree.len();
    let mut ws = EnclosureWorkspace::new();
    let e = ws
        .in_between(motion, EnclosureKind::Chords, t0, t1)
        .unwrap();
    prop_assert_eq!(e.kind(), EnclosureKind::Chords);
    prop_assert!(e.interval_poses().is_none() && e.taylor_poses().is_none());
    let chord_boxes = boxes(&e, case, us)?;
    let bounds: Vec<IntervalAffine3> = (0..n).map(|i| e.pose_bound(i).unwrap()).collect();
    check_sampled(
        case,
        (t0, t1),
        us,
        512,
        |t, out| motion.poses_at(t, out).unwrap(),
        "chord",
        &bounds,
        &chord_boxes,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    /// Chord boxes of in-between motions of random forests, every joint
    /// type, swings up to 3π per joint.
    #[test]
    fn chord_boxes_hold_the_sampled_motion(
        case in case(&ALL, PI),
        span in time_interval(3),
        us in units(),
    ) {
        let motion = InBetweenMotion::new(&case.tree, &case.q0, &case.q1).unwrap();
        check_chord_boxes(&case, span, &us, &motion)?;
    }

    /// Swings up to 4 × 3π per joint: chains turning through more than
    /// `MAX_CHORD_PIECES` × `CHORD_PIECE_SWING` get longer pieces.
    #[test]
    fn chord_boxes_hold_multi_turn_swings(
        case in (1.0..4.0f64).prop_flat_map(|turns| case_turns(&ALL, PI, turns, LINKS)),
        span in time_interval(3),
        us in units(),
    ) {
        let motion = InBetweenMotion::new(&case.tree, &case.q0, &case.q1).unwrap();
        check_chord_boxes(&case, span, &us, &motion)?;
    }
}

/// A unit lever turning from −0.5 to 0.5 rad about z: five pieces of
/// 0.2 rad, the middle one through the turning point `x = 1`, where the
/// chord between its ends (`x = cos 0.1`) falls short by the sagitta
/// `1 − cos 0.1 ≈ 0.2² / 8`. The chord box must reach it (half the bulge
/// would not) and, the bulge being tight to second order for a rotation,
/// not go much beyond (twice the bulge would).
#[test]
fn chord_boxes_reach_a_turning_point_and_little_more() {
    let tree = KinematicTree::new(vec![
        LinkSpec::new("arm", None).with_joint(Joint::revolute("j", DVec3::Z, -1.0, 1.0)),
    ])
    .unwrap();
    let motion = InBetweenMotion::new(&tree, &[-0.5], &[0.5]).unwrap();
    let mut ws = EnclosureWorkspace::new();
    let e = ws
        .in_between(&motion, EnclosureKind::Chords, 0.0, 1.0)
        .unwrap();
    let tip = e.point_aabb(0, DVec3::X).unwrap();
    assert!(tip.x.hi() >= 1.0, "{tip:?}");
    assert!(tip.x.hi() <= 1.0 + 1e-4, "{tip:?}");
    // The ends are the extremes along y: only the bulge widens it.
    let sagitta = 0.2f64 * 0.2 / 8.0;
    assert!(tip.y.hi() <= 0.5f64.sin() + sagitta * 1.001, "{tip:?}");
    let obb = LinkObb::new(
        DVec3::new(0.5, 0.0, 0.0),
        DVec3::new(0.5, 0.0, 0.0),
        DMat3::IDENTITY,
    )
    .unwrap();
    let b = e.obb_aabb(0, &obb).unwrap();
    assert!(b.x.hi() >= 1.0 && b.x.hi() <= 1.0 + 1e-4, "{b:?}");
    // Joint-space motions have no chords: the workspace encloses them as
    // by swing (interval boxes for this small one).
    let js = JointSpaceMotion::new(&tree, &[-0.5], &[0.5]).unwrap();
    let e = ws
        .joint_space(&tree, &js, EnclosureKind::Chords, 0.0, 1.0)
        .unwrap();
    assert_eq!(e.kind(), EnclosureKind::Interval);
}
