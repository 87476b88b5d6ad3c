//! Random kinematic forests shared by the enclosure property tests
//! (`enclosure_props`, `rate_enclosure_props`): the per-link random choices,
//! their strategy and the tree builder.
//!
//! `enclosure_props` has committed proptest regressions: [`link_gen`] and
//! [`case_turns`] must keep drawing their values in the same order, so that
//! a seed still gives the same case.

use armature_interval_taylor::IntervalVec3;
use armature_kinematics::prelude::*;
use glam::{DAffine3, DMat3, DQuat, DVec3};
use proptest::prelude::*;
use std::f64::consts::PI;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Kind {
    Fixed,
    Revolute,
    Continuous,
    Prismatic,
    Spherical,
    Planar,
    Floating,
    Vehicle,
    OmniVehicle,
    Orientation,
    Location,
}

pub(crate) const ALL: [Kind; 11] = [
    Kind::Fixed,
    Kind::Revolute,
    Kind::Continuous,
    Kind::Prismatic,
    Kind::Spherical,
    Kind::Planar,
    Kind::Floating,
    Kind::Vehicle,
    Kind::OmniVehicle,
    Kind::Orientation,
    Kind::Location,
];

/// The random choices for one link; the joint kind is picked from a list
/// given when the tree is built.
#[derive(Clone, Debug)]
struct LinkGen {
    kind: usize,
    parent: f64,
    new_root: bool,
    origin_t: DVec3,
    origin_q: [f64; 4],
    axis: DVec3,
    q0: [f64; 7],
    dq: [f64; 7],
    special: u8,
    obb_center: DVec3,
    obb_half: DVec3,
    obb_q: [f64; 4],
}

pub(crate) fn vec3(r: f64) -> impl Strategy<Value = DVec3> {
    (-r..r, -r..r, -r..r).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

fn axis() -> impl Strategy<Value = DVec3> {
    prop_oneof![
        3 => vec3(1.0),
        1 => Just(DVec3::X),
        1 => Just(DVec3::Z),
        1 => Just(-DVec3::Y),
    ]
}

fn link_gen() -> impl Strategy<Value = LinkGen> {
    (
        0..1000usize,
        0.0..1.0f64,
        prop::bool::weighted(0.05),
        vec3(0.5),
        prop::array::uniform4(-1.0..1.0f64),
        axis(),
        prop::array::uniform7(-1.0..1.0f64),
        prop::array::uniform7(-1.0..1.0f64),
        0..12u8,
        vec3(0.3),
        (0.0..0.3f64, 0.0..0.3f64, 0.0..0.3f64).prop_map(|(x, y, z)| DVec3::new(x, y, z)),
        prop::array::uniform4(-1.0..1.0f64),
    )
        .prop_map(
            |(
                kind,
                parent,
                new_root,
                origin_t,
                origin_q,
                axis,
                q0,
                dq,
                special,
                obb_center,
                obb_half,
                obb_q,
            )| LinkGen {
                kind,
                parent,
                new_root,
                origin_t,
                origin_q,
                axis,
                q0,
                dq,
                special,
                obb_center,
                obb_half,
                obb_q,
            },
        )
}

/// A unit quaternion from four uniform numbers (identity when they are
/// nearly zero).
fn unit_quat(q: [f64; 4]) -> DQuat {
    let v = DQuat::from_xyzw(q[0], q[1], q[2], q[3]);
    if v.length() < 0.1 {
        DQuat::IDENTITY
    } else {
        v.normalize()
    }
}

fn unit_or_z(v: DVec3) -> DVec3 {
    if v.length() < 1e-3 {
        DVec3::Z
    } else {
        v.normalize()
    }
}

/// A random forest with its OBBs and two configurations.
#[derive(Clone, Debug)]
pub(crate) struct Case {
    pub(crate) tree: KinematicTree,
    /// Read by `enclosure_props` only (`rate_enclosure_props` bounds the
    /// motion of points, not of boxes).
    #[allow(dead_code)]
    pub(crate) obbs: Vec<LinkObb>,
    pub(crate) q0: Vec<f64>,
    pub(crate) q1: Vec<f64>,
}

/// The end quaternion of a rotation joint: `q0` turned by up to `max_angle`
/// about a random axis, or antipodal (same rotation), or an exact half turn,
/// sometimes not normalised.
fn end_quat(g: &LinkGen, q0: DQuat, max_angle: f64) -> DQuat {
    let k = unit_or_z(DVec3::new(g.dq[0], g.dq[1], g.dq[2]));
    let q = match g.special {
        0 => q0,
        1 => -q0,
        2 if max_angle >= PI => DQuat::from_axis_angle(k, PI) * q0,
        _ => DQuat::from_axis_angle(k, max_angle * g.dq[3]) * q0,
    };
    if g.special == 3 { q * 2.5 } else { q }
}

fn push_quat(v: &mut Vec<f64>, q: DQuat) {
    v.extend_from_slice(&[q.x, q.y, q.z, q.w]);
}

/// Builds the tree: `chain` links each link to the previous one, otherwise
/// to a random earlier link; `max_angle` bounds the quaternion swings and
/// `turns` scales the swings of angle joints (revolute, continuous, planar,
/// vehicles; 1: up to 3π, 2π for braking arcs).
fn build(gens: &[LinkGen], chain: bool, kinds: &[Kind], max_angle: f64, turns: f64) -> Case {
    let mut specs = Vec::new();
    let mut obbs = Vec::new();
    let (mut q0, mut q1) = (Vec::new(), Vec::new());
    for (i, g) in gens.iter().enumerate() {
        let parent = if i == 0 || g.new_root {
            None
        } else if chain {
            Some(i - 1)
        } else {
            Some(((g.parent * i as f64) as usize).min(i - 1))
        };
        let kind = kinds[g.kind % kinds.len()];
        let axis = unit_or_z(g.axis);
        let still = g.special == 0;
        let d = |k: usize, scale: f64| if still { 0.0 } else { g.dq[k] * scale };
        let u = g.q0;
        let joint = match kind {
            Kind::Fixed => JointType::Fixed,
            Kind::Revolute | Kind::Continuous => {
                q0.push(PI * u[0]);
                q1.push(PI * u[0] + d(0, 3.0 * PI * turns));
                if kind == Kind::Revolute {
                    JointType::Revolute { axis }
                } else {
                    JointType::Continuous { axis }
                }
            }
            Kind::Prismatic => {
                q0.push(0.5 * u[0]);
                q1.push(0.5 * u[0] + d(0, 0.5));
                JointType::Prismatic { axis }
            }
            Kind::Spherical | Kind::Orientation => {
                let a = unit_quat([u[0], u[1], u[2], u[3]]);
                push_quat(&mut q0, a);
                push_quat(&mut q1, end_quat(g, a, max_angle));
                if kind == Kind::Spherical {
                    JointType::Spherical
                } else {
                    JointType::OrientationUncertain { beta: 0.1 }
                }
            }
            Kind::Planar => {
                let a = [0.5 * u[0], 0.5 * u[1], PI * u[2]];
                q0.extend_from_slice(&a);
                q1.extend_from_slice(&[
                    a[0] + d(0, 0.5),
                    a[1] + d(1, 0.5),
                    a[2] + d(2, 3.0 * PI * turns),
                ]);
                JointType::Planar { normal: axis }
            }
            Kind::Floating => {
                let p = [0.5 * u[0], 0.5 * u[1], 0.5 * u[2]];
                q0.extend_from_slice(&p);
                q1.extend_from_slice(&[p[0] + d(4, 0.5), p[1] + d(5, 0.5), p[2] + d(6, 0.5)]);
                let a = unit_quat([u[3], u[4], u[5], u[6]]);
                push_quat(&mut q0, a);
                push_quat(&mut q1, end_quat(g, a, max_angle));
                JointType::Floating
            }
            Kind::Location => {
                let p = [0.5 * u[0], 0.5 * u[1], 0.5 * u[2]];
                q0.extend_from_slice(&p);
                q1.extend_from_slice(&[p[0] + d(0, 0.5), p[1] + d(1, 0.5), p[2] + d(2, 0.5)]);
                JointType::LocationUncertain { delta: 0.05 }
            }
            Kind::Vehicle | Kind::OmniVehicle => {
                // Special cases: turning on the spot (s = 0 throughout) and
                // driving straight (α = 0 throughout).
                let (s0, s1) = if g.special == 4 {
                    (0.0, 0.0)
                } else {
                    (u[1], u[1] + d(1, 2.0))
                };
                let (a0, a1) = if g.special == 5 {
                    (0.0, 0.0)
                } else {
                    (PI * u[2], PI * u[2] + d(2, 2.0 * PI * turns))
                };
                if kind == Kind::OmniVehicle {
                    q0.push(PI * u[0]);
                    q1.push(PI * u[0] + d(0, PI * turns));
                }
                q0.extend_from_slice(&[s0, a0]);
                q1.extend_from_slice(&[s1, a1]);
                if kind == Kind::Vehicle {
                    JointType::Vehicle
                } else {
                    JointType::OmniVehicle
                }
            }
        };
        let origin = DAffine3::from_rotation_translation(unit_quat(g.origin_q), g.origin_t);
        specs.push(
            LinkSpec::new(format!("l{i}"), parent.map(|p| format!("l{p}")).as_deref())
                .with_joint(Joint::new(format!("j{i}"), joint))
                .with_origin(origin),
        );
        obbs.push(
            LinkObb::new(
                g.obb_center,
                g.obb_half,
                DMat3::from_quat(unit_quat(g.obb_q)),
            )
            .unwrap(),
        );
    }
    let tree = KinematicTree::new(specs).unwrap();
    // Links were given parents-first, so tree order is input order.
    Case { tree, obbs, q0, q1 }
}

/// Forests of 1 to `links` links with joint kinds from `kinds`, quaternion
/// swings up to `max_angle` and the swings of angle joints scaled by
/// `turns` (see [`build`]).
pub(crate) fn case_turns(
    kinds: &'static [Kind],
    max_angle: f64,
    turns: f64,
    links: usize,
) -> impl Strategy<Value = Case> {
    (
        1..=links,
        any::<bool>(),
        prop::collection::vec(link_gen(), links),
    )
        .prop_map(move |(n, chain, gens)| build(&gens[..n], chain, kinds, max_angle, turns))
}

/// `[t0, t1] ⊆ [0, 1]`: the whole of it, a random piece (`piece_weight`
/// times as likely as each other choice), or a point.
pub(crate) fn time_interval(piece_weight: u32) -> impl Strategy<Value = (f64, f64)> {
    prop_oneof![
        1 => Just((0.0, 1.0)),
        piece_weight => (0.0..=1.0f64, 0.0..=1.0f64).prop_map(|(a, b)| (a.min(b), a.max(b))),
        1 => (0.0..=1.0f64).prop_map(|a| (a, a)),
        1 => prop_oneof![Just((0.0, 0.0)), Just((1.0, 1.0))],
    ]
}

pub(crate) fn widen_box(b: &IntervalVec3, r: f64) -> IntervalVec3 {
    IntervalVec3::new(b.x.inflate(r), b.y.inflate(r), b.z.inflate(r))
}
