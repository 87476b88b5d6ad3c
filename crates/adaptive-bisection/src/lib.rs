//! # armature-adaptive-bisection — dynamic checking of paths (M2)
//!
//! **Contract.** Decides whether a straight c-space segment, or a path of
//! several segments, is collision-free with the adaptive bisection of M2: a
//! segment is free for a pair of objects when `λ_i + λ_j < η_ij(q_a) +
//! η_ij(q_b)` (M2 Lemma 1, restated in docs/architecture.md), with λ the
//! curve-length bound of `armature-kinematics` and η the GREEDY-DIST lower
//! bound of `armature-bvh-geometry`; pairs wait in a priority queue ordered
//! by the share of the sub-segment the end bounds leave uncovered,
//! `(λ_i + λ_j − η(q_a) − η(q_b)) / (λ_i + λ_j)`, and queues are cached per
//! segment.
//!
//! - *Inputs*: an [`ArticulatedBody`](armature_bvh_geometry::ArticulatedBody)
//!   (one or several robots: several roots), static
//!   [`Obstacle`](armature_bvh_geometry::Obstacle)s, the pair rules of the
//!   other pipelines ([`DisabledPairs`](armature_bvh_geometry::DisabledPairs),
//!   adjacency and rigid groups of [`LinkGroups`](armature_bvh_geometry::LinkGroups)),
//!   waypoints in tree order; segments are joint-space straight motions
//!   ([`JointSpaceMotion`](armature_kinematics::JointSpaceMotion)),
//!   parameterised by `s ∈ [0, 1]`.
//! - *Guarantee*: never reports a colliding segment free (including a
//!   link inside a closed obstacle); a clearance `ε ≥ 0` bounds the run
//!   time, at the price of reporting objects closer than `ε` as colliding;
//!   a budget of queue pops bounds every query, after which the answer is
//!   "may collide" ([`PathStatus::BudgetExhausted`]).
//!
//! What is implemented ([`PathChecker`], see the [`checker`] module):
//!
//! | query | method | source |
//! |---|---|---|
//! | [`PathChecker::check_path`], [`PathChecker::check_segment`] | ADAPTIVE-BISECTION with the static swept-sphere pre-pass, shared forward kinematics, a path queue and a segment cache | M2 §II.B–D, §V |
//! | the same, with [`CheckOptions::refined`] | REFINED-ADAPTIVE-BISECTION: entries are pairs of RSS volumes, a failed Lemma 1 test is refined in space before bisecting in time ([`PathStats::bv_pairs`] counts them) | M2 §VI |
//! | [`PathChecker::first_collision`] | one-end covering walk: a certified free prefix `[0, s)` | M2 §II.E, Fig. 3b |
//! | [`PathChecker::check_path_fixed_resolution`] | FIXED-RES-BISECTION, the baseline (no guarantee) | M2 §V.A |
//!
//! The facade calls it through `Pipeline::check_path` (and a rayon
//! batch), and the command line through `armature path`; both use the
//! plain variant.
//!
//! ```
//! use std::sync::Arc;
//! use armature_adaptive_bisection::{CheckOptions, PathChecker, PathStatus};
//! use armature_bvh_geometry::{ArticulatedBody, DisabledPairs, Obstacle, Tessellation};
//! use armature_kinematics::{Joint, KinematicTree, LinkSpec};
//! use glam::{DAffine3, DVec3};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // One 1 m beam turning about z, a thin plate in its way at 90°.
//! let tree = KinematicTree::new(vec![
//!     LinkSpec::new("beam", None).with_joint(Joint::revolute("j", DVec3::Z, -4.0, 4.0)),
//! ])?;
//! let tess = Tessellation::default();
//! let beam = tess
//!     .cuboid(DVec3::new(1.0, 0.1, 0.1))?
//!     .transformed(&DAffine3::from_translation(DVec3::new(0.5, 0.0, 0.0)))?;
//! let body = ArticulatedBody::new("arm", tree, vec![Some(Arc::new(beam))])?;
//! let plate = Obstacle::fixed(
//!     "plate",
//!     Arc::new(tess.cuboid(DVec3::new(0.01, 0.3, 0.3))?),
//!     DAffine3::from_translation(DVec3::new(0.0, 0.8, 0.0)),
//! )?;
//! let obstacles = [plate];
//! let mut checker =
//!     PathChecker::new(&body, &obstacles, &DisabledPairs::new(), &CheckOptions::default())?;
//! // A half turn sweeps through the plate, a small swing does not.
//! let report = checker.check_segment(&[0.0], &[3.0])?;
//! assert_eq!(report.status, PathStatus::Collides);
//! assert_eq!(checker.check_segment(&[0.0], &[0.5])?.status, PathStatus::Free);
//! // The walk certifies the motion up to the plate's near face, not beyond.
//! let walk = checker.first_collision(&[0.0], &[3.0])?;
//! assert!(walk.certified_free_prefix > 0.3 && walk.certified_free_prefix < 0.55);
//! // The REFINED variant answers the same, queueing pairs of volumes.
//! let refined = CheckOptions::default().with_refined(true);
//! let mut checker = PathChecker::new(&body, &obstacles, &DisabledPairs::new(), &refined)?;
//! assert_eq!(checker.check_segment(&[0.0], &[3.0])?.status, PathStatus::Collides);
//! assert_eq!(checker.check_segment(&[0.0], &[0.5])?.status, PathStatus::Free);
//! # Ok(())
//! # }
//! ```

pub mod checker;
mod error;
mod report;

pub use checker::{CheckOptions, PathChecker};
pub use error::BisectionError;
pub use report::{CollisionAt, Object, PathReport, PathStats, PathStatus, SegmentReport};
