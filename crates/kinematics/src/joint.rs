//! Joints: what moves a link relative to its parent's joint frame.
//!
//! A joint acts in the *joint frame* (the parent frame moved by the link's
//! fixed origin) and maps its configuration values to a rigid transform
//! [`JointType::transform`]. The configuration layout:
//!
//! | joint | values | tangent DOF |
//! |---|---|---|
//! | fixed | 0 | 0 |
//! | revolute, continuous, prismatic | 1 | 1 |
//! | spherical (quaternion x, y, z, w) | 4 | 3 |
//! | floating (x, y, z, qx, qy, qz, qw) | 7 | 6 |
//! | planar (x, y, θ) | 3 | 3 |
//! | vehicle (s, α) | 2 | 2 |
//! | omni-vehicle (φ, s, α) | 3 | 3 |
//! | orientation with uncertainty β (measured quaternion) | 4 | 3 |
//! | location with uncertainty Δ (measured x, y, z) | 3 | 3 |
//!
//! The vehicle joints follow M3 §III-C (restated in docs/architecture.md): a
//! braking arc in the x–y plane from the origin, tangent to x, given by its
//! signed arc length `s` and heading change `α`; the translation is
//! `s · sinc(α/2) · (cos(α/2), sin(α/2), 0)`, one formula for straight
//! motion (`α = 0`) and turning on the spot (`s = 0`). The omnidirectional
//! vehicle replaces `α/2` in the direction by `φ + α/2`. The orientation and
//! location joints carry a *measured* value as configuration and an
//! uncertainty bound as a parameter (M3 §III-C.3–4).

use glam::{DAffine3, DMat3, DQuat, DVec3};

/// Lower and upper limits of a one-value joint (radians or metres).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointLimits {
    /// Lower limit.
    pub lower: f64,
    /// Upper limit.
    pub upper: f64,
}

impl JointLimits {
    /// Limits `[lower, upper]` (checked when the tree is built).
    #[must_use]
    pub const fn new(lower: f64, upper: f64) -> Self {
        Self { lower, upper }
    }

    /// Whether `q` lies within the limits.
    #[must_use]
    pub fn contains(&self, q: f64) -> bool {
        self.lower <= q && q <= self.upper
    }

    /// `q` clamped into the limits.
    #[must_use]
    pub fn clamp(&self, q: f64) -> f64 {
        q.clamp(self.lower, self.upper)
    }
}

/// The kind of a joint and its parameters. Axes are in the joint frame and
/// are normalised when the tree is built.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum JointType {
    /// No motion.
    Fixed,
    /// Rotation about `axis` by the joint angle, within limits.
    Revolute {
        /// Rotation axis.
        axis: DVec3,
    },
    /// Rotation about `axis` without limits.
    Continuous {
        /// Rotation axis.
        axis: DVec3,
    },
    /// Translation along `axis` by the joint value.
    Prismatic {
        /// Translation axis.
        axis: DVec3,
    },
    /// Any rotation about the joint origin (unit quaternion x, y, z, w).
    Spherical,
    /// Any rigid motion (x, y, z, qx, qy, qz, qw).
    Floating,
    /// Translation in the plane normal to `normal` and rotation about it
    /// (x, y, θ). The in-plane axes are [`JointType::plane_axes`].
    Planar {
        /// Plane normal.
        normal: DVec3,
    },
    /// Braking arc of a vehicle (s, α), see the [module docs](self).
    Vehicle,
    /// Braking arc of an omnidirectional vehicle (φ, s, α).
    OmniVehicle,
    /// A measured orientation (quaternion) known within angle `beta`.
    OrientationUncertain {
        /// Largest angle between measured and true orientation (radians).
        beta: f64,
    },
    /// A measured location (x, y, z) known within distance `delta`.
    LocationUncertain {
        /// Largest distance between measured and true location.
        delta: f64,
    },
}

impl JointType {
    /// Number of configuration values.
    #[must_use]
    pub const fn nq(&self) -> usize {
        match self {
            Self::Fixed => 0,
            Self::Revolute { .. } | Self::Continuous { .. } | Self::Prismatic { .. } => 1,
            Self::Vehicle => 2,
            Self::Planar { .. } | Self::OmniVehicle | Self::LocationUncertain { .. } => 3,
            Self::Spherical | Self::OrientationUncertain { .. } => 4,
            Self::Floating => 7,
        }
    }

    /// Dimension of the tangent space (velocities, Jacobian columns).
    #[must_use]
    pub const fn dof(&self) -> usize {
        match self {
            Self::Fixed => 0,
            Self::Revolute { .. } | Self::Continuous { .. } | Self::Prismatic { .. } => 1,
            Self::Vehicle => 2,
            Self::Planar { .. }
            | Self::OmniVehicle
            | Self::LocationUncertain { .. }
            | Self::Spherical
            | Self::OrientationUncertain { .. } => 3,
            Self::Floating => 6,
        }
    }

    /// Whether the joint has configuration values.
    #[must_use]
    pub const fn is_movable(&self) -> bool {
        self.nq() > 0
    }

    /// The axis of a revolute, continuous or prismatic joint, or the normal
    /// of a planar one.
    #[must_use]
    pub const fn axis(&self) -> Option<DVec3> {
        match *self {
            Self::Revolute { axis } | Self::Continuous { axis } | Self::Prismatic { axis } => {
                Some(axis)
            }
            Self::Planar { normal } => Some(normal),
            _ => None,
        }
    }

    /// Whether the joint rotates about a fixed axis by one angle.
    #[must_use]
    pub const fn is_revolute(&self) -> bool {
        matches!(self, Self::Revolute { .. } | Self::Continuous { .. })
    }

    /// Writes the neutral configuration (zeros, identity quaternions).
    ///
    /// # Panics
    /// If `out` is shorter than [`JointType::nq`].
    pub fn neutral(&self, out: &mut [f64]) {
        out.fill(0.0);
        match self {
            Self::Spherical | Self::OrientationUncertain { .. } => out[3] = 1.0,
            Self::Floating => out[6] = 1.0,
            _ => {}
        }
    }

    /// The orthonormal in-plane axes `(u, v)` of a plane with unit normal
    /// `n`, with `u × v = n`; for `n = z` they are `x` and `y`.
    #[must_use]
    pub fn plane_axes(n: DVec3) -> (DVec3, DVec3) {
        let e = if n.x.abs() < 0.9 { DVec3::X } else { DVec3::Y };
        let u = (e - n * e.dot(n)).normalize();
        (u, n.cross(u))
    }

    /// The joint's transform for values `q` (`q.len() == self.nq()`,
    /// finite; quaternions are normalised here, a zero quaternion gives the
    /// identity rotation — [`crate::KinematicTree::validate_config`] rejects
    /// it first).
    ///
    /// # Panics
    /// If `q` is shorter than [`JointType::nq`].
    #[must_use]
    pub fn transform(&self, q: &[f64]) -> DAffine3 {
        match *self {
            Self::Fixed => DAffine3::IDENTITY,
            Self::Revolute { axis } | Self::Continuous { axis } => {
                DAffine3::from_mat3(DMat3::from_axis_angle(axis, q[0]))
            }
            Self::Prismatic { axis } => DAffine3::from_translation(axis * q[0]),
            Self::Spherical | Self::OrientationUncertain { .. } => {
                DAffine3::from_quat(quat(&q[0..4]))
            }
            Self::Floating => {
                DAffine3::from_rotation_translation(quat(&q[3..7]), DVec3::new(q[0], q[1], q[2]))
            }
            Self::Planar { normal } => {
                let (u, v) = Self::plane_axes(normal);
                DAffine3 {
                    matrix3: DMat3::from_axis_angle(normal, q[2]),
                    translation: u * q[0] + v * q[1],
                }
            }
            Self::Vehicle => vehicle_transform(0.0, q[0], q[1]),
            Self::OmniVehicle => vehicle_transform(q[0], q[1], q[2]),
            Self::LocationUncertain { .. } => {
                DAffine3::from_translation(DVec3::new(q[0], q[1], q[2]))
            }
        }
    }
}

/// The unit quaternion of four values (x, y, z, w); zero or non-finite
/// values give the identity.
///
/// # Panics
/// If `q` has fewer than four values.
#[must_use]
pub fn quat(q: &[f64]) -> DQuat {
    let v = DQuat::from_xyzw(q[0], q[1], q[2], q[3]);
    // Scale by the largest component first: the norm of a valid but huge
    // (1e200) or tiny (1e-200) quaternion would overflow or underflow.
    let m = q[..4].iter().fold(0.0_f64, |m, c| m.max(c.abs()));
    if !(m > 0.0 && v.is_finite()) {
        return DQuat::IDENTITY;
    }
    let v = v / m;
    v / v.length()
}

/// `sin x / x`, accurate near 0.
#[must_use]
pub fn sinc(x: f64) -> f64 {
    if x.abs() < 1e-4 {
        // Next term x⁴/120 < 1e-18: below an ulp of 1.
        1.0 - x * x / 6.0
    } else {
        x.sin() / x
    }
}

/// The braking-arc transform of M3 eq. 20 with the omnidirectional heading
/// `phi`: rotation by `alpha` about z, translation
/// `s · sinc(α/2) · (cos(φ + α/2), sin(φ + α/2), 0)`.
#[must_use]
pub fn vehicle_transform(phi: f64, s: f64, alpha: f64) -> DAffine3 {
    let h = 0.5 * alpha;
    let d = s * sinc(h);
    DAffine3 {
        matrix3: DMat3::from_rotation_z(alpha),
        translation: DVec3::new(d * (phi + h).cos(), d * (phi + h).sin(), 0.0),
    }
}

/// A joint: its name (the URDF joint name, or the link's), type and limits.
#[derive(Clone, Debug, PartialEq)]
pub struct Joint {
    /// Joint name.
    pub name: String,
    /// Type and parameters.
    pub kind: JointType,
    /// Limits of a one-value joint (`None`: unlimited).
    pub limits: Option<JointLimits>,
}

impl Joint {
    /// A fixed joint.
    #[must_use]
    pub fn fixed(name: impl Into<String>) -> Self {
        Self::new(name, JointType::Fixed)
    }

    /// A joint of the given type without limits.
    #[must_use]
    pub fn new(name: impl Into<String>, kind: JointType) -> Self {
        Self {
            name: name.into(),
            kind,
            limits: None,
        }
    }

    /// A revolute joint about `axis` within `[lower, upper]`.
    #[must_use]
    pub fn revolute(name: impl Into<String>, axis: DVec3, lower: f64, upper: f64) -> Self {
        Self::new(name, JointType::Revolute { axis }).with_limits(lower, upper)
    }

    /// A prismatic joint along `axis` within `[lower, upper]`.
    #[must_use]
    pub fn prismatic(name: impl Into<String>, axis: DVec3, lower: f64, upper: f64) -> Self {
        Self::new(name, JointType::Prismatic { axis }).with_limits(lower, upper)
    }

    /// The joint with limits `[lower, upper]`.
    #[must_use]
    pub fn with_limits(mut self, lower: f64, upper: f64) -> Self {
        self.limits = Some(JointLimits::new(lower, upper));
        self
    }
}
