//! # armature-bvh-geometry — meshes, bounding volumes and static proximity
//!
//! **Contract.** Triangle meshes (polygon soups allowed, validated), bounding
//! volumes (`Aabb`, `Obb`, `Rss`, `Lss`, `Sphere`, `Ssch`, convex hulls),
//! flat bounding-volume hierarchies, and static queries between two meshes
//! under rigid transforms: overlap, exact distance with witness features,
//! the GREEDY-DIST lower bound of M2 §IV.D and GJK on convex sets. It also
//! owns articulated bodies with per-link geometry, the dynamic link
//! hierarchy built from `armature-kinematics` enclosures, and the M3
//! swept-SSCH distance monitor.
//!
//! - *Units*: lengths in the model's units, `f64` throughout.
//! - *Guarantee*: every lower bound on a distance is a lower bound in
//!   floating point; overlap tests never report "separate" for touching
//!   geometry within the documented tolerance.
//!
//! This crate is filled by the bvh-geometry issue; today it holds only this
//! contract.

pub mod bv;
pub mod bvh;
mod error;
pub mod gjk;
pub mod hull;
#[cfg(feature = "io")]
pub mod io;
pub mod mass;
pub mod mesh;
pub mod query;

pub use bv::{Aabb, BoundingVolume, Capsule, FitError, Lss, Obb, Rss, Sphere};
pub use bvh::{Bvh, BvhNode, BvhOptions, BvhVolume, RigidMap, SplitRule};
pub use error::GeometryError;
pub use gjk::{
    GjkCache, GjkError, GjkOptions, GjkResult, GjkStatus, SschDistance, SupportMap, gjk_distance,
    gjk_distance_warm, gjk_intersect, ssch_distance,
};
pub use hull::{ConvexHull, HullOptions, HullShape};
pub use mass::MassProperties;
pub use mesh::{Degeneracy, DegeneratePolicy, MeshOptions, MeshReport, TriMesh};
pub use query::ClosestPoints;
