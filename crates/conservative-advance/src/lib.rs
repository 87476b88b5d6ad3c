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
//!   speed bound is the unprojected one.
//! - *Closed meshes are solids*: a mesh whose every edge is shared by two
//!   triangles traversing it in opposite directions
//!   ([`LinkGeometry::is_closed`](armature_bvh_geometry::LinkGeometry::is_closed))
//!   bounds a solid, and a link or obstacle starting inside it (or a link
//!   inside another closed link) is [`CcdStatus::CollidingAtStart`] although
//!   no triangles meet. Open meshes and soups bound nothing: only their
//!   triangles collide. The advancement itself tests surfaces only: a pair
//!   that starts apart cannot get inside a solid without crossing its
//!   surface.
//!
//! Entry points: [`first_contact`] for one query, [`CcdScene`] prepared once
//! for many; both with a reusable [`CcdWorkspace`]. The
//! answer is a [`CcdReport`] (status, witness [`Contact`], lower bound,
//! [`CcdStats`]). See the [`advance`] module for the method.
//!
//! ```
//! use std::sync::Arc;
//! use armature_bvh_geometry::{ArticulatedBody, DisabledPairs, Obstacle, Tessellation};
//! use armature_conservative_advance::{CcdOptions, CcdStatus, CcdWorkspace, first_contact};
//! use armature_kinematics::{Joint, KinematicTree, LinkSpec};
//! use glam::{DAffine3, DVec3};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // One 1 m beam turning about z, a box in its way at 90°.
//! let tree = KinematicTree::new(vec![
//!     LinkSpec::new("beam", None).with_joint(Joint::revolute("j", DVec3::Z, -4.0, 4.0)),
//! ])?;
//! let tess = Tessellation::default();
//! let beam = tess
//!     .cuboid(DVec3::new(1.0, 0.1, 0.1))?
//!     .transformed(&DAffine3::from_translation(DVec3::new(0.5, 0.0, 0.0)))?;
//! let body = ArticulatedBody::new("arm", tree, vec![Some(Arc::new(beam))])?;
//! let wall = Obstacle::fixed(
//!     "box",
//!     Arc::new(tess.cuboid(DVec3::splat(0.2))?),
//!     DAffine3::from_translation(DVec3::new(0.0, 0.8, 0.0)),
//! )?;
//! let report = first_contact(
//!     &body,
//!     &[wall],
//!     &DisabledPairs::new(),
//!     &[0.0],
//!     &[std::f64::consts::PI],
//!     &CcdOptions::default(),
//!     &mut CcdWorkspace::new(),
//! )?;
//! assert_eq!(report.status, CcdStatus::Collides);
//! // The beam (half width 0.05) meets the box's face x = 0.1 before 90°.
//! let toc = report.toc_lower_bound;
//! assert!(toc > 0.3 && toc < 0.5);
//! # Ok(())
//! # }
//! ```

pub mod advance;
mod error;
mod options;
mod report;

pub use advance::{CcdScene, CcdWorkspace, first_contact};
pub use error::CcdError;
pub use options::CcdOptions;
pub use report::{CcdReport, CcdStats, CcdStatus, Contact, Other};
