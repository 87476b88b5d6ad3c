//! # armature-penetration-depth — generalized penetration depth (M5)
//!
//! **Contract.** Pushes an in-collision configuration `q_in` of a rigid or
//! articulated model out to a collision-free configuration in contact,
//! with the least motion the method finds under the *object norm* σ
//! ([`norm`]: the mean squared displacement of the model's points; for an
//! articulated model each joint, changed base first, moves what it carries
//! and is weighted by its volume and inertia).
//!
//! - *Method* ([`solver`]): free-configuration selection (motion
//!   coherence, successive perturbation, constrained translation),
//!   contact-space projection (CCDg, the greedy pass, reverse projection),
//!   constrained optimisation on the linearised local contact space as an
//!   LCP solved by a dual active-set method or M5's projected
//!   Gauss–Seidel ([`lcp`]), re-projection, and
//!   iteration until σ stops decreasing, within joint limits.
//! - *Guarantee*: the returned configuration is collision-free by the
//!   discrete test ([`Checker`], checked before returning), within the
//!   contact tolerance of touching, within the joint limits; the reported
//!   value is its object norm from `q_in` — an upper bound on the true
//!   generalized penetration depth. The method is local (it can stop in a
//!   local minimum), as M5's.
//! - *Models*: prismatic, revolute, continuous, spherical, planar and
//!   floating joints (a rigid body is one floating joint); links' volumes
//!   and inertias come from their closed meshes, or their convex hulls.
//! - *Frames and units*: world frame, the model's length unit; σ is a
//!   squared length ([`PdReport::rms_displacement`] is its root).
//!
//! ```
//! use std::sync::Arc;
//! use armature_bvh_geometry::{ArticulatedBody, DisabledPairs, Obstacle, Tessellation};
//! use armature_kinematics::{Joint, KinematicTree, LinkSpec};
//! use armature_penetration_depth::{PdOptions, PdSolver, PdStatus};
//! use glam::{DAffine3, DVec3};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // A 1 m beam turning about z, pushed 0.1 rad into a box.
//! let tree = KinematicTree::new(vec![
//!     LinkSpec::new("beam", None).with_joint(Joint::revolute("j", DVec3::Z, -3.0, 3.0)),
//! ])?;
//! let tess = Tessellation::default();
//! let beam = tess
//!     .cuboid(DVec3::new(1.0, 0.1, 0.1))?
//!     .transformed(&DAffine3::from_translation(DVec3::new(0.5, 0.0, 0.0)))?;
//! let body = ArticulatedBody::new("arm", tree, vec![Some(Arc::new(beam))])?;
//! let wall = Obstacle::fixed(
//!     "box",
//!     Arc::new(tess.cuboid(DVec3::new(2.0, 0.2, 0.2))?),
//!     DAffine3::from_translation(DVec3::new(0.0, 0.2, 0.0)),
//! )?;
//! let obstacles = [wall];
//! let mut solver =
//!     PdSolver::new(&body, &obstacles, &DisabledPairs::new(), &PdOptions::default())?;
//! let report = solver.penetration_depth(&[0.1])?;
//! assert_eq!(report.status, PdStatus::Separated);
//! // The beam turns back to touch the box's face y = 0.1 (the beam's half
//! // width is 0.05): θ ≈ 0.05 rad at its far end.
//! let theta = report.configuration[0];
//! assert!(theta < 0.06 && theta > 0.0);
//! assert!(report.value > 0.0);
//! # Ok(())
//! # }
//! ```

pub mod contact;
mod error;
pub mod lcp;
pub mod norm;
pub mod solver;

pub use contact::{CheckWorkspace, Checker, ContactPoint};
pub use error::PdError;
pub use solver::{
    FreeSelection, PdOptions, PdReport, PdSolver, PdStats, PdStatus, Projection, TranslationalDepth,
};
