//! Motions over `t ∈ [0, 1]`: [`InBetweenMotion`] (M1 §3.3, M4 §3.2),
//! [`JointSpaceMotion`] and multi-segment [`Path`]s.

use crate::error::KinematicsError;
use crate::joint::{JointType, quat};
use crate::tree::KinematicTree;
use glam::{DAffine3, DMat3, DQuat, DVec3};

/// One link's motion relative to its parent frame over `t ∈ [0, 1]`:
/// `x ↦ R(t) x + T(t)` with `R(t) = Rot(axis, ω t) · R₀` (constant rotational
/// velocity about a fixed axis of the parent frame) and `T(t) = T₀ + v t`
/// (constant translational velocity).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LocalMotion {
    /// Unit rotation axis in the parent frame (any unit vector when
    /// `omega == 0`).
    pub axis: DVec3,
    /// Rotation angle swept over `[0, 1]` (radians, any size, signed).
    pub omega: f64,
    /// Rotation at `t = 0`.
    pub rot0: DMat3,
    /// Translation at `t = 0`.
    pub trans0: DVec3,
    /// Translational velocity (translation swept over `[0, 1]`).
    pub velocity: DVec3,
}

impl LocalMotion {
    /// The motion that stays at `pose`.
    #[must_use]
    pub fn constant(pose: &DAffine3) -> Self {
        Self {
            axis: DVec3::Z,
            omega: 0.0,
            rot0: pose.matrix3,
            trans0: pose.translation,
            velocity: DVec3::ZERO,
        }
    }

    /// The motion between two free poses: rotation about the axis of
    /// `R₁ R₀ᵀ` by its angle (≤ π), linear translation.
    #[must_use]
    pub fn between_poses(p0: &DAffine3, p1: &DAffine3) -> Self {
        let rel = DQuat::from_mat3(&(p1.matrix3 * p0.matrix3.transpose())).normalize();
        // Shortest arc: w ≥ 0 gives an angle in [0, π].
        let rel = if rel.w < 0.0 { -rel } else { rel };
        let (axis, angle) = axis_angle(rel);
        Self {
            axis,
            omega: angle,
            rot0: p0.matrix3,
            trans0: p0.translation,
            velocity: p1.translation - p0.translation,
        }
    }

    /// Pose at time `t`.
    #[must_use]
    pub fn pose(&self, t: f64) -> DAffine3 {
        DAffine3 {
            matrix3: DMat3::from_axis_angle(self.axis, self.omega * t) * self.rot0,
            translation: self.trans0 + self.velocity * t,
        }
    }

    /// Angular velocity (parent frame), constant.
    #[must_use]
    pub fn angular_velocity(&self) -> DVec3 {
        self.axis * self.omega
    }
}

/// The shortest arc between the rotations of two quaternion values
/// (x, y, z, w; normalised here): `(qa, axis, angle)` with
/// `R(b) = R(qa) · Rot(axis, angle)` and `angle ∈ [0, π]`. The slerp of
/// [`JointSpaceMotion`], the rotation of [`InBetweenMotion`] and the pose
/// enclosures all take it from here, so they turn the same way at a half
/// turn, where the sign of `qa · qb` decides.
pub(crate) fn shortest_arc(a: &[f64], b: &[f64]) -> (DQuat, DVec3, f64) {
    let (qa, qb) = (quat(a), quat(b));
    let qb = if qa.dot(qb) < 0.0 { -qb } else { qb };
    let (axis, angle) = axis_angle((qa.inverse() * qb).normalize());
    (qa, axis, angle)
}

/// `v` normalised; z for a zero vector (joint axes are unit and origins
/// rotations, so only a degenerate input gets there).
fn unit_or_z(v: DVec3) -> DVec3 {
    v.try_normalize().unwrap_or(DVec3::Z)
}

/// Axis and angle of a unit quaternion, robust near 0 (axis z) and π.
fn axis_angle(q: DQuat) -> (DVec3, f64) {
    let v = DVec3::new(q.x, q.y, q.z);
    let s = v.length();
    if s < 1e-300 {
        return (DVec3::Z, 0.0);
    }
    // atan2 keeps full precision near 0 and near π, unlike acos(w).
    (v / s, 2.0 * s.atan2(q.w))
}

/// The in-between motion of every link (M1 §3.3, M4 §3.2): each link moves
/// relative to its parent with constant rotational velocity about a fixed
/// axis and constant translational velocity.
///
/// For revolute, continuous, prismatic, spherical and planar joints the
/// parameters come from the joint values, so a revolute swing of any size
/// (beyond π too) is represented exactly; rotations given by quaternions
/// (spherical, floating, orientation joints) turn along the shortest arc
/// chosen exactly as [`JointSpaceMotion`]'s slerp chooses it (even at a half
/// turn, where both arcs are shortest), and translations are linear, so for
/// all these joints the motion coincides with [`JointSpaceMotion`]. For
/// vehicle and location joints the link is treated as a free pose
/// (axis–angle of `R₁ R₀ᵀ`, ≤ π, linear translation); a vehicle's
/// joint-space motion follows its braking arc instead.
#[derive(Clone, Debug, PartialEq)]
pub struct InBetweenMotion {
    local: Vec<LocalMotion>,
    parents: Vec<Option<usize>>,
}

impl InBetweenMotion {
    /// The motion of `tree` from `q0` to `q1`.
    ///
    /// # Errors
    /// Configuration errors of either end ([`KinematicTree::validate_config`]).
    pub fn new(tree: &KinematicTree, q0: &[f64], q1: &[f64]) -> Result<Self, KinematicsError> {
        tree.validate_config(q0)?;
        tree.validate_config(q1)?;
        let local = (0..tree.len())
            .map(|i| {
                let l = &tree.links()[i];
                let o = l.origin();
                let r = tree.q_range(i);
                let (a, b) = (&q0[r.clone()], &q1[r]);
                match l.joint().kind {
                    JointType::Fixed => LocalMotion::constant(o),
                    // Mapped axes are normalised: `from_axis_angle` scales a
                    // rotation by the axis length, and the origin's rotation
                    // keeps it unit only up to rounding.
                    JointType::Revolute { axis } | JointType::Continuous { axis } => LocalMotion {
                        axis: unit_or_z(o.matrix3 * axis),
                        omega: b[0] - a[0],
                        rot0: o.matrix3 * DMat3::from_axis_angle(axis, a[0]),
                        trans0: o.translation,
                        velocity: DVec3::ZERO,
                    },
                    JointType::Prismatic { axis } => {
                        let d = o.matrix3 * axis;
                        LocalMotion {
                            axis: DVec3::Z,
                            omega: 0.0,
                            rot0: o.matrix3,
                            trans0: o.translation + d * a[0],
                            velocity: d * (b[0] - a[0]),
                        }
                    }
                    JointType::Spherical | JointType::OrientationUncertain { .. } => {
                        let (qa, k, angle) = shortest_arc(a, b);
                        let r0 = o.matrix3 * DMat3::from_quat(qa);
                        LocalMotion {
                            axis: (r0 * k).normalize(),
                            omega: angle,
                            rot0: r0,
                            trans0: o.translation,
                            velocity: DVec3::ZERO,
                        }
                    }
                    JointType::Floating => {
                        let (qa, k, angle) = shortest_arc(&a[3..7], &b[3..7]);
                        let r0 = o.matrix3 * DMat3::from_quat(qa);
                        let p0 = DVec3::new(a[0], a[1], a[2]);
                        let p1 = DVec3::new(b[0], b[1], b[2]);
                        LocalMotion {
                            axis: (r0 * k).normalize(),
                            omega: angle,
                            rot0: r0,
                            trans0: o.transform_point3(p0),
                            velocity: o.matrix3 * (p1 - p0),
                        }
                    }
                    JointType::Planar { normal } => {
                        let (u, v) = JointType::plane_axes(normal);
                        let t0 = u * a[0] + v * a[1];
                        let t1 = u * b[0] + v * b[1];
                        LocalMotion {
                            axis: unit_or_z(o.matrix3 * normal),
                            omega: b[2] - a[2],
                            rot0: o.matrix3 * DMat3::from_axis_angle(normal, a[2]),
                            trans0: o.transform_point3(t0),
                            velocity: o.matrix3 * (t1 - t0),
                        }
                    }
                    kind => {
                        let p0 = *o * kind.transform(a);
                        let p1 = *o * kind.transform(b);
                        LocalMotion::between_poses(&p0, &p1)
                    }
                }
            })
            .collect();
        Ok(Self {
            local,
            parents: tree.links().iter().map(|l| l.parent()).collect(),
        })
    }

    /// The local motions, in tree order.
    #[must_use]
    pub fn local(&self) -> &[LocalMotion] {
        &self.local
    }

    /// Parent of each link, in tree order.
    #[must_use]
    pub fn parents(&self) -> &[Option<usize>] {
        &self.parents
    }

    /// World poses of all links at time `t`, written into `out`.
    ///
    /// # Errors
    /// [`KinematicsError::BufferLength`].
    pub fn poses_at(&self, t: f64, out: &mut [DAffine3]) -> Result<(), KinematicsError> {
        if out.len() != self.local.len() {
            return Err(KinematicsError::BufferLength {
                what: "poses",
                expected: self.local.len(),
                got: out.len(),
            });
        }
        for (i, m) in self.local.iter().enumerate() {
            let p = m.pose(t);
            out[i] = match self.parents[i] {
                Some(par) => out[par] * p,
                None => p,
            };
        }
        Ok(())
    }

    /// World velocity at time `t` of the point fixed at `p_local` on link
    /// `link`, given the world poses at `t`.
    ///
    /// # Errors
    /// [`KinematicsError::LinkIndex`] or [`KinematicsError::BufferLength`].
    pub fn point_velocity(
        &self,
        poses: &[DAffine3],
        link: usize,
        p_local: DVec3,
    ) -> Result<DVec3, KinematicsError> {
        if link >= self.local.len() {
            return Err(KinematicsError::LinkIndex {
                index: link,
                len: self.local.len(),
            });
        }
        if poses.len() != self.local.len() {
            return Err(KinematicsError::BufferLength {
                what: "poses",
                expected: self.local.len(),
                got: poses.len(),
            });
        }
        let p = poses[link].transform_point3(p_local);
        let mut v = DVec3::ZERO;
        let mut k = Some(link);
        while let Some(i) = k {
            let m = &self.local[i];
            // Frame in which link i's local motion is expressed.
            // The local rotation turns about the link's current origin.
            let parent = self.parents[i].map_or(DMat3::IDENTITY, |par| poses[par].matrix3);
            v += parent * m.velocity
                + (parent * m.angular_velocity()).cross(p - poses[i].translation);
            k = self.parents[i];
        }
        Ok(v)
    }
}

/// Linear interpolation of the configuration: `q(t) = q₀ + t (q₁ − q₀)`,
/// with slerp along the shortest arc for quaternion values and the braking
/// arc of M3 for vehicle joints (their values interpolate linearly and the
/// pose follows [`crate::joint::vehicle_transform`]).
#[derive(Clone, Debug, PartialEq)]
pub struct JointSpaceMotion {
    q0: Vec<f64>,
    q1: Vec<f64>,
}

impl JointSpaceMotion {
    /// The motion of `tree` from `q0` to `q1`.
    ///
    /// # Errors
    /// Configuration errors of either end.
    pub fn new(tree: &KinematicTree, q0: &[f64], q1: &[f64]) -> Result<Self, KinematicsError> {
        tree.validate_config(q0)?;
        tree.validate_config(q1)?;
        Ok(Self {
            q0: q0.to_vec(),
            q1: q1.to_vec(),
        })
    }

    /// Start configuration.
    #[must_use]
    pub fn start(&self) -> &[f64] {
        &self.q0
    }

    /// End configuration.
    #[must_use]
    pub fn end(&self) -> &[f64] {
        &self.q1
    }

    /// The configuration at time `t`, written into `out`.
    ///
    /// # Errors
    /// [`KinematicsError::BufferLength`].
    pub fn config_at(
        &self,
        tree: &KinematicTree,
        t: f64,
        out: &mut [f64],
    ) -> Result<(), KinematicsError> {
        if out.len() != self.q0.len() || self.q0.len() != tree.nq() {
            return Err(KinematicsError::BufferLength {
                what: "configuration",
                expected: tree.nq(),
                got: out.len(),
            });
        }
        for (k, o) in out.iter_mut().enumerate() {
            *o = self.q0[k] + t * (self.q1[k] - self.q0[k]);
        }
        for (i, l) in tree.links().iter().enumerate() {
            let r = tree.q_range(i);
            let at = match l.joint().kind {
                JointType::Spherical | JointType::OrientationUncertain { .. } => Some(r.start),
                JointType::Floating => Some(r.start + 3),
                _ => None,
            };
            if let Some(s) = at {
                let (a, k, angle) = shortest_arc(&self.q0[s..s + 4], &self.q1[s..s + 4]);
                let q = a * DQuat::from_axis_angle(k, angle * t);
                out[s..s + 4].copy_from_slice(&[q.x, q.y, q.z, q.w]);
            }
        }
        Ok(())
    }

    /// World poses of all links at time `t`, written into `poses`, using
    /// `q` as scratch (both caller-owned).
    ///
    /// # Errors
    /// [`KinematicsError::BufferLength`].
    pub fn poses_at(
        &self,
        tree: &KinematicTree,
        t: f64,
        q: &mut [f64],
        poses: &mut [DAffine3],
    ) -> Result<(), KinematicsError> {
        self.config_at(tree, t, q)?;
        if poses.len() != tree.len() {
            return Err(KinematicsError::BufferLength {
                what: "poses",
                expected: tree.len(),
                got: poses.len(),
            });
        }
        tree.forward_kinematics_unchecked(q, poses);
        Ok(())
    }
}

/// A path through a sequence of configurations: segment `k` is the motion
/// from configuration `k` to `k + 1`.
#[derive(Clone, Debug, PartialEq)]
pub struct Path {
    configs: Vec<Vec<f64>>,
}

impl Path {
    /// A path through `configs` (at least one; one configuration is a path
    /// of no segments).
    ///
    /// # Errors
    /// [`KinematicsError::EmptyPath`] and configuration errors (naming the
    /// first bad configuration's problem).
    pub fn new(tree: &KinematicTree, configs: Vec<Vec<f64>>) -> Result<Self, KinematicsError> {
        if configs.is_empty() {
            return Err(KinematicsError::EmptyPath);
        }
        for q in &configs {
            tree.validate_config(q)?;
        }
        Ok(Self { configs })
    }

    /// The configurations.
    #[must_use]
    pub fn configs(&self) -> &[Vec<f64>] {
        &self.configs
    }

    /// Number of segments.
    #[must_use]
    pub fn segments(&self) -> usize {
        self.configs.len() - 1
    }

    fn ends(&self, k: usize) -> Result<(&[f64], &[f64]), KinematicsError> {
        if k >= self.segments() {
            return Err(KinematicsError::SegmentIndex {
                index: k,
                len: self.segments(),
            });
        }
        Ok((&self.configs[k], &self.configs[k + 1]))
    }

    /// The in-between motion of segment `k`.
    ///
    /// # Errors
    /// [`KinematicsError::SegmentIndex`].
    pub fn in_between(
        &self,
        tree: &KinematicTree,
        k: usize,
    ) -> Result<InBetweenMotion, KinematicsError> {
        let (a, b) = self.ends(k)?;
        InBetweenMotion::new(tree, a, b)
    }

    /// The joint-space motion of segment `k`.
    ///
    /// # Errors
    /// [`KinematicsError::SegmentIndex`].
    pub fn joint_space(
        &self,
        tree: &KinematicTree,
        k: usize,
    ) -> Result<JointSpaceMotion, KinematicsError> {
        let (a, b) = self.ends(k)?;
        JointSpaceMotion::new(tree, a, b)
    }
}
