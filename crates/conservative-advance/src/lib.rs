//! # armature-conservative-advance — CATCH (M4)
//!
//! **Contract.** Continuous collision detection for articulated models by
//! conservative advancement: a dynamic AABB hierarchy from third-order Taylor
//! models of each link's OBB corners culls pairs spatially (M4 §5); each
//! surviving pair advances by `Δt = d / μ`, with `d` a distance from
//! `armature-bvh-geometry` and `μ` the motion bound of `armature-kinematics`
//! (M4 §6); temporal culling skips pairs whose lower bound on the time of
//! contact exceeds the current minimum (M4 §7).
//!
//! - *Inputs*: an [`ArticulatedBody`](armature_bvh_geometry::ArticulatedBody)
//!   moving from `q0` to `q1` by the in-between motion, static or rigidly
//!   moving [`Obstacle`](armature_bvh_geometry::Obstacle)s, disabled pairs.
//! - *Frames and units*: world frame, the scene's length unit; the
//!   distance threshold is absolute ([`CcdOptions::distance_threshold`]).
//! - *Time*: normalised to `[0, 1]`.
//! - *Guarantee*: conservative — never "free" for a colliding motion, never a
//!   time of contact later than the true one; when an iteration budget runs
//!   out the answer is "may collide at or after" a sound lower bound.
//! - *Geometry*: polygon soups; no closed or convex mesh is assumed, so the
//!   speed bound is the unprojected one (DESIGN.md §1).
//!
//! Entry point: [`first_contact`] with a reusable [`CcdWorkspace`]; the
//! answer is a [`CcdReport`] (status, witness [`Contact`], lower bound,
//! [`CcdStats`]). See the [`advance`] module for the method.

pub mod advance;
mod error;
mod options;
mod report;

pub use advance::{CcdWorkspace, first_contact};
pub use error::CcdError;
pub use options::CcdOptions;
pub use report::{CcdReport, CcdStats, CcdStatus, Contact, Other};
