//! Joint intervals for the swept volumes of M3 §III-B step 1: the set of
//! values each joint can take until the model has stopped.
//!
//! **What.** [`braking_interval`] bounds where one joint value can go when
//! braking starts now: the value keeps its velocity `v` for the latency `T`
//! and then decelerates at least at `a > 0` until it stops, so it moves
//! monotonically from `q` to at most `q + v·T + k·v·|v| / (2a)` (`k ≥ 1` a
//! safety factor on the braking distance; M3 §V uses `k = 2`). The
//! interval is that range widened by the measurement uncertainty `u` on both
//! sides. [`JointInterval`] holds the result for every kind of joint, and
//! [`braking_intervals`] fills one per link of a tree from a configuration
//! and a velocity.
//!
//! **Guarantee.** The interval contains every value the joint takes along
//! any braking trajectory that keeps the velocity for at most `T` and then
//! decelerates at least at `a` (any deceleration profile), started from any
//! value within `u` of the measured one. It is computed with outward-rounded
//! interval arithmetic, so this holds in floating point.

use crate::error::KinematicsError;
use crate::joint::{JointType, quat};
use crate::tree::KinematicTree;
use armature_interval_taylor::Interval;
use glam::{DQuat, DVec3};
use smallvec::SmallVec;

/// How one joint value brakes: latency, worst deceleration, measurement
/// uncertainty and safety factor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BrakingModel {
    /// Time `T ≥ 0` before braking starts, during which the velocity is kept
    /// (seconds).
    pub latency: f64,
    /// Smallest deceleration `a > 0` the joint is guaranteed to achieve
    /// (units per second²).
    pub deceleration: f64,
    /// Measurement uncertainty `u ≥ 0` of the joint value (the interval is
    /// widened by it on both sides). Default 0.
    pub uncertainty: f64,
    /// Factor `k ≥ 1` on the braking distance `v·|v| / (2a)`, as if the
    /// deceleration were only `a / k`. Default 1.
    pub safety_factor: f64,
}

impl BrakingModel {
    /// A model with latency `T`, worst deceleration `a`, no uncertainty and
    /// safety factor 1 (checked when used).
    #[must_use]
    pub const fn new(latency: f64, deceleration: f64) -> Self {
        Self {
            latency,
            deceleration,
            uncertainty: 0.0,
            safety_factor: 1.0,
        }
    }

    /// The model with measurement uncertainty `u`.
    #[must_use]
    pub const fn with_uncertainty(mut self, u: f64) -> Self {
        self.uncertainty = u;
        self
    }

    /// The model with safety factor `k` on the braking distance.
    #[must_use]
    pub const fn with_safety_factor(mut self, k: f64) -> Self {
        self.safety_factor = k;
        self
    }

    /// Checks the parameters.
    ///
    /// # Errors
    /// [`KinematicsError::BadParameter`] naming the first parameter that is
    /// NaN, infinite or out of range (`T ≥ 0`, `a > 0`, `u ≥ 0`, `k ≥ 1`).
    pub fn validate(&self) -> Result<(), KinematicsError> {
        check("latency", self.latency, |x| x >= 0.0, "finite, T ≥ 0")?;
        check(
            "deceleration",
            self.deceleration,
            |x| x > 0.0,
            "finite, a > 0",
        )?;
        check(
            "uncertainty",
            self.uncertainty,
            |x| x >= 0.0,
            "finite, u ≥ 0",
        )?;
        check(
            "safety_factor",
            self.safety_factor,
            |x| x >= 1.0,
            "finite, k ≥ 1",
        )?;
        Ok(())
    }

    /// An enclosure of the signed distance `v·T + k·v·|v| / (2a)` travelled
    /// from braking start to stop at the worst deceleration.
    ///
    /// # Errors
    /// As [`BrakingModel::validate`]; [`KinematicsError::BadParameter`] for a
    /// non-finite `v` or a distance that overflows.
    pub fn stopping_distance(&self, v: f64) -> Result<Interval, KinematicsError> {
        self.validate()?;
        check("velocity", v, |_| true, "finite")?;
        let vi = Interval::point(v);
        let d = vi * self.latency
            + Interval::point(self.safety_factor) * (vi * v.abs())
                / Interval::point(2.0 * self.deceleration);
        bounded("stopping distance", d)
    }
}

fn check(
    field: &'static str,
    value: f64,
    ok: impl Fn(f64) -> bool,
    why: &'static str,
) -> Result<(), KinematicsError> {
    if value.is_finite() && ok(value) {
        Ok(())
    } else {
        Err(KinematicsError::BadParameter { field, value, why })
    }
}

fn bounded(field: &'static str, i: Interval) -> Result<Interval, KinematicsError> {
    if i.is_bounded() {
        Ok(i)
    } else {
        let value = if i.lo().is_finite() { i.hi() } else { i.lo() };
        Err(KinematicsError::BadParameter {
            field,
            value,
            why: "overflows f64",
        })
    }
}

/// The interval of values a joint at `q` with velocity `v` can take until it
/// has stopped under `model`: the hull of `q` and `q + v·T + k·v·|v|/(2a)`,
/// widened by `u` on both sides (see the [module docs](self)).
///
/// ```
/// use armature_kinematics::{BrakingModel, braking_interval};
/// // 1 rad/s, 0.1 s latency, 2 rad/s² deceleration: 0.1 + 0.25 rad ahead.
/// let i = braking_interval(0.5, 1.0, &BrakingModel::new(0.1, 2.0))?;
/// assert!(i.contains(0.5) && i.contains(0.85) && !i.contains(0.86));
/// # Ok::<(), armature_kinematics::KinematicsError>(())
/// ```
///
/// # Errors
/// [`KinematicsError::BadParameter`] for NaN or infinite `q` or `v`, for
/// model parameters out of range ([`BrakingModel::validate`]) and for
/// results that overflow.
pub fn braking_interval(q: f64, v: f64, model: &BrakingModel) -> Result<Interval, KinematicsError> {
    check("joint value", q, |_| true, "finite")?;
    let d = model.stopping_distance(v)?;
    let end = Interval::point(q) + d;
    bounded(
        "braking interval",
        end.hull_point(q).inflate(model.uncertainty),
    )
}

/// The values a joint can take while the model brakes (or is measured): the
/// input of the joint's swept-volume operation (M3 §III-B step 1).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum JointInterval {
    /// A fixed joint (no values).
    Fixed,
    /// A revolute, continuous or prismatic joint: every value in the
    /// interval (radians or metres).
    Scalar(Interval),
    /// A vehicle joint: every braking arc `λ·(s, α)` with `λ ∈ [0, 1]`,
    /// `s ∈ s`, `α ∈ alpha` (docs/architecture.md, M3 vehicle joint).
    Vehicle {
        /// Signed arc length at stop.
        s: Interval,
        /// Heading change at stop.
        alpha: Interval,
    },
    /// An omnidirectional vehicle joint: braking arcs `λ·(s, α)` as for
    /// [`JointInterval::Vehicle`] in every direction `φ ∈ phi` (φ does not
    /// scale with λ).
    OmniVehicle {
        /// Direction of the braking motion relative to the vehicle x axis.
        phi: Interval,
        /// Signed arc length at stop.
        s: Interval,
        /// Heading change at stop.
        alpha: Interval,
    },
    /// An orientation joint with uncertainty: the measured orientation (the
    /// uncertainty β is the joint's parameter).
    Orientation(DQuat),
    /// A location joint with uncertainty: the measured location (the
    /// uncertainty Δ is the joint's parameter).
    Location(DVec3),
    /// A spherical joint measured as `measured`, true within the angle
    /// `beta` (`0 ≤ β ≤ π`): every orientation `E · measured` with
    /// `angle(E) ≤ β` (the same set as `measured · E`).
    Rotation {
        /// Measured orientation (normalised when used).
        measured: DQuat,
        /// Largest angle between measured and true orientation.
        beta: f64,
    },
    /// Any joint at exactly these configuration values (the joint's
    /// [`JointType::nq`] values in the layout of docs/architecture.md). For
    /// orientation and location joints the values are the measurement and
    /// the joint's uncertainty still applies.
    Exact(SmallVec<[f64; 7]>),
}

impl JointInterval {
    /// A scalar interval `[lo, hi]`.
    ///
    /// # Errors
    /// [`KinematicsError::BadParameter`] for NaN, infinite or inverted end
    /// points.
    pub fn scalar(lo: f64, hi: f64) -> Result<Self, KinematicsError> {
        Ok(Self::Scalar(finite_interval("joint interval", lo, hi)?))
    }

    /// The braking interval of a one-value joint ([`braking_interval`]).
    ///
    /// # Errors
    /// As [`braking_interval`].
    pub fn braking(q: f64, v: f64, model: &BrakingModel) -> Result<Self, KinematicsError> {
        Ok(Self::Scalar(braking_interval(q, v, model)?))
    }

    /// The braking box of a vehicle joint moving with linear velocity `v`
    /// and angular velocity `omega` (braking keeps the ratio, so the arc is
    /// circular; M3 §III-C.6): `s` and `α` are each braked from 0 like a
    /// one-value joint.
    ///
    /// # Errors
    /// As [`braking_interval`].
    pub fn vehicle_braking(
        v: f64,
        omega: f64,
        linear: &BrakingModel,
        angular: &BrakingModel,
    ) -> Result<Self, KinematicsError> {
        Ok(Self::Vehicle {
            s: braking_interval(0.0, v, linear)?,
            alpha: braking_interval(0.0, omega, angular)?,
        })
    }

    /// The braking box of an omnidirectional vehicle moving in direction
    /// `phi` (known within `heading.uncertainty`, changing at the rate
    /// `phi_rate` braked by `heading`) with linear velocity `v` and angular
    /// velocity `omega`.
    ///
    /// # Errors
    /// As [`braking_interval`].
    pub fn omni_vehicle_braking(
        phi: f64,
        phi_rate: f64,
        v: f64,
        omega: f64,
        heading: &BrakingModel,
        linear: &BrakingModel,
        angular: &BrakingModel,
    ) -> Result<Self, KinematicsError> {
        Ok(Self::OmniVehicle {
            phi: braking_interval(phi, phi_rate, heading)?,
            s: braking_interval(0.0, v, linear)?,
            alpha: braking_interval(0.0, omega, angular)?,
        })
    }

    /// Every joint of `tree` exactly at configuration `q`
    /// ([`JointInterval::Exact`]; fixed joints [`JointInterval::Fixed`]),
    /// one entry per link. Orientation and location joints keep their
    /// uncertainty.
    ///
    /// # Errors
    /// As [`KinematicTree::validate_config`].
    pub fn exact_config(tree: &KinematicTree, q: &[f64]) -> Result<Vec<Self>, KinematicsError> {
        tree.validate_config(q)?;
        Ok((0..tree.len())
            .map(|i| {
                let r = tree.q_range(i);
                if r.is_empty() {
                    Self::Fixed
                } else {
                    Self::Exact(q[r].iter().copied().collect())
                }
            })
            .collect())
    }
}

pub(crate) fn finite_interval(
    field: &'static str,
    lo: f64,
    hi: f64,
) -> Result<Interval, KinematicsError> {
    check(field, lo, |_| true, "finite")?;
    check(field, hi, |_| true, "finite")?;
    Interval::new(lo, hi).map_err(|_| KinematicsError::BadParameter {
        field,
        value: lo,
        why: "lower end above upper end",
    })
}

/// One [`JointInterval`] per link of `tree` for braking from configuration
/// `q` with tangent velocity `qdot` (`tree.dof()` values, the layout of
/// [`KinematicTree::point_jacobian`]), with one [`BrakingModel`] per tangent
/// coordinate (`models.len() == tree.dof()`).
///
/// - revolute, continuous, prismatic: [`braking_interval`];
/// - vehicle `(s, α)`: braking arcs start at the current pose, so the
///   joint's values must be 0; `s` and `α` are braked from 0 with their
///   velocities `(v, ω)` and models ([`JointInterval::vehicle_braking`]);
/// - omni-vehicle `(φ, s, α)`: likewise, with φ braked from its value;
/// - orientation and location joints are measurements: their uncertainty is
///   the joint parameter, their velocities must be 0, and the interval is
///   the measured value;
/// - spherical, floating and planar joints have no braking operation: their
///   velocities must be 0. A spherical joint is taken at its value
///   ([`JointInterval::Exact`]) or, when its models carry uncertainties
///   `u₁, u₂, u₃` (radians about the tangent axes), as every orientation
///   within the angle `β = |(u₁, u₂, u₃)|` of it ([`JointInterval::Rotation`];
///   a rotation vector off by at most `uᵢ` per component turns by at most
///   that angle). Floating and planar joints have no operation that covers
///   an uncertain value, so their models' uncertainty must be 0;
/// - likewise for orientation and location joints, whose uncertainty is the
///   joint's own β or Δ.
///
/// The measurement uncertainty of a model is therefore never dropped: it
/// widens the interval or is refused.
///
/// Joint limits are not applied (a measured value may lie beyond them).
///
/// # Errors
/// Configuration errors ([`KinematicTree::validate_config`]);
/// [`KinematicsError::BufferLength`] for `qdot` or `models`;
/// [`KinematicsError::BadParameter`] for a NaN or infinite velocity and bad
/// models; [`KinematicsError::OutOfRange`] naming the link for a non-zero
/// vehicle value, a moving joint that must be at rest, or a non-zero
/// uncertainty on a floating, planar, orientation or location joint.
pub fn braking_intervals(
    tree: &KinematicTree,
    q: &[f64],
    qdot: &[f64],
    models: &[BrakingModel],
) -> Result<Vec<JointInterval>, KinematicsError> {
    tree.validate_config(q)?;
    for (what, got) in [("velocities", qdot.len()), ("braking models", models.len())] {
        if got != tree.dof() {
            return Err(KinematicsError::BufferLength {
                what,
                expected: tree.dof(),
                got,
            });
        }
    }
    for &v in qdot {
        check("velocity", v, |_| true, "finite")?;
    }
    let mut out = Vec::with_capacity(tree.len());
    for (i, link) in tree.links().iter().enumerate() {
        let (qi, vi, mi) = (
            &q[tree.q_range(i)],
            &qdot[tree.dof_range(i)],
            &models[tree.dof_range(i)],
        );
        let out_of_range =
            |field: &'static str, value: f64, why: &'static str| KinematicsError::OutOfRange {
                link: link.name().to_owned(),
                field,
                value,
                why,
            };
        let at_rest = |why: &'static str| match vi.iter().find(|v| **v != 0.0) {
            Some(&v) => Err(out_of_range("velocity", v, why)),
            None => Ok(()),
        };
        let certain = |why: &'static str| {
            for m in mi {
                m.validate()?;
                if m.uncertainty != 0.0 {
                    return Err(out_of_range("uncertainty", m.uncertainty, why));
                }
            }
            Ok(())
        };
        let arc_at_start = |vals: &[f64]| match vals.iter().find(|v| **v != 0.0) {
            Some(&v) => Err(out_of_range(
                "vehicle configuration",
                v,
                "braking arcs start at the current pose: s = α = 0",
            )),
            None => Ok(()),
        };
        let interval = match link.joint().kind {
            JointType::Fixed => JointInterval::Fixed,
            JointType::Revolute { .. }
            | JointType::Continuous { .. }
            | JointType::Prismatic { .. } => JointInterval::braking(qi[0], vi[0], &mi[0])?,
            JointType::Vehicle => {
                arc_at_start(qi)?;
                JointInterval::vehicle_braking(vi[0], vi[1], &mi[0], &mi[1])?
            }
            JointType::OmniVehicle => {
                arc_at_start(&qi[1..])?;
                JointInterval::omni_vehicle_braking(
                    qi[0], vi[0], vi[1], vi[2], &mi[0], &mi[1], &mi[2],
                )?
            }
            JointType::OrientationUncertain { .. } => {
                at_rest("a measured orientation does not move; β is its uncertainty")?;
                certain("a measured orientation's uncertainty is the joint's β: 0 here")?;
                JointInterval::Orientation(quat(qi))
            }
            JointType::LocationUncertain { .. } => {
                at_rest("a measured location does not move; Δ is its uncertainty")?;
                certain("a measured location's uncertainty is the joint's Δ: 0 here")?;
                JointInterval::Location(DVec3::new(qi[0], qi[1], qi[2]))
            }
            JointType::Spherical => {
                at_rest("this joint type has no braking operation; it must be at rest")?;
                for m in mi {
                    m.validate()?;
                }
                let beta = rotation_uncertainty(mi);
                if beta == 0.0 {
                    JointInterval::Exact(qi.iter().copied().collect())
                } else {
                    JointInterval::Rotation {
                        measured: quat(qi),
                        beta,
                    }
                }
            }
            JointType::Floating | JointType::Planar { .. } => {
                at_rest("this joint type has no braking operation; it must be at rest")?;
                certain("no operation covers an uncertain floating or planar joint: 0")?;
                JointInterval::Exact(qi.iter().copied().collect())
            }
        };
        out.push(interval);
    }
    Ok(out)
}

/// The largest angle of a rotation vector whose components are off by at
/// most the models' uncertainties, `|(u₁, u₂, u₃)|` rounded up (a few ulps
/// of relative error, far below the margin), capped at π (every rotation).
/// Scaled by the largest part first, so that tiny uncertainties do not
/// underflow to an exact value.
fn rotation_uncertainty(models: &[BrakingModel]) -> f64 {
    let big = models.iter().map(|m| m.uncertainty).fold(0.0, f64::max);
    if big == 0.0 {
        return 0.0;
    }
    let sum: f64 = models
        .iter()
        .map(|m| (m.uncertainty / big) * (m.uncertainty / big))
        .sum();
    let beta = (big * sum.sqrt() * (1.0 + 8.0 * f64::EPSILON)).next_up();
    beta.min(core::f64::consts::PI)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forward_and_backward_braking() {
        let m = BrakingModel::new(0.2, 4.0).with_uncertainty(0.01);
        // v = 2: 0.4 + 4/8 = 0.9 ahead.
        let i = braking_interval(1.0, 2.0, &m).unwrap();
        assert!((i.lo() - 0.99).abs() < 1e-12 && (i.hi() - 1.91).abs() < 1e-12);
        let j = braking_interval(1.0, -2.0, &m).unwrap();
        assert!((j.lo() - 0.09).abs() < 1e-12 && (j.hi() - 1.01).abs() < 1e-12);
        let k = braking_interval(1.0, 2.0, &m.with_safety_factor(2.0)).unwrap();
        assert!((k.hi() - 2.41).abs() < 1e-12);
    }

    #[test]
    fn bad_models_are_typed_errors() {
        for (m, field) in [
            (BrakingModel::new(0.1, 0.0), "deceleration"),
            (BrakingModel::new(0.1, -1.0), "deceleration"),
            (BrakingModel::new(0.1, f64::NAN), "deceleration"),
            (BrakingModel::new(-0.1, 1.0), "latency"),
            (BrakingModel::new(f64::INFINITY, 1.0), "latency"),
            (
                BrakingModel::new(0.1, 1.0).with_uncertainty(-1.0),
                "uncertainty",
            ),
            (
                BrakingModel::new(0.1, 1.0).with_safety_factor(0.5),
                "safety_factor",
            ),
        ] {
            match braking_interval(0.0, 1.0, &m) {
                Err(KinematicsError::BadParameter { field: f, .. }) => assert_eq!(f, field),
                other => panic!("{m:?}: {other:?}"),
            }
        }
        let m = BrakingModel::new(0.1, 1.0);
        assert!(braking_interval(f64::NAN, 1.0, &m).is_err());
        assert!(braking_interval(0.0, f64::INFINITY, &m).is_err());
        assert!(braking_interval(0.0, 1e300, &m).is_err());
        assert!(JointInterval::scalar(1.0, 0.0).is_err());
    }
}
