//! # armature-elementary-ccd — continuous OBB trees and elementary equations
//!
//! **Contract.** The exact stage of M1 (§5): a continuous OBB/OBB test
//! under interval link transforms with per-link refinement levels `2^r`, a
//! continuous OBB-tree traversal that emits the elementary equations of the
//! surviving feature pairs — edge–edge `ac·(ab×cd) = 0` (M1 eq. 13) and
//! vertex–face `ab·(bc×bd) = 0` (M1 eq. 14) — and the simultaneous interval
//! solver (earliest-first subdivision plus interval Newton) that returns the
//! earliest root with its feature ids. Primitive CCD of linearly moving
//! points, edges and triangles is also offered on its own ([`primitive`]).
//!
//! - *Time*: normalised to `[0, 1]`; the reported time of contact is a `f64`.
//! - *Guarantee*: conservative — a reported time of contact is never later
//!   than the true one, and "free" is never reported for a colliding motion.

pub mod error;
mod mr;
pub mod obb;
pub mod primitive;
mod scene;
mod solver;
mod traversal;

pub use error::ElementaryError;
pub use obb::{PlacedObb, RelativePose, obb_overlap, obb_overlap_placed};
pub use primitive::{
    EdgeEdge, PrimitiveOptions, PrimitiveToi, VertexFace, edge_edge_ccd, edge_edge_ccd_batch,
    vertex_face_ccd, vertex_face_ccd_batch,
};
pub use scene::{
    ElementaryContact, ElementaryOptions, ElementaryReport, ElementaryScene, ElementaryStats,
    ElementaryStatus, ElementaryWorkspace, Other, PairCulling,
};
