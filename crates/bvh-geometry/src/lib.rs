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
//!
//! | module | what |
//! |---|---|
//! | [`mesh`], [`mass`], [`hull`], [`topology`], `io` (feature `io`) | validated triangle meshes, mass properties, convex hulls, closedness and components, STL/OBJ import |
//! | [`bv`] | bounding volumes and their fitting (containment guaranteed) |
//! | [`query`] | primitive queries: triangle–triangle, segment, OBB SAT, RSS distance, … |
//! | [`bvh`] | flat BV hierarchies and mesh–mesh queries (collide, distance, GREEDY-DIST) |
//! | [`gjk`] | GJK distance with a certified lower bound, SSCH distances |
//! | [`aabb_tree`], [`dynamic`] | AABB trees over items, the dynamic link hierarchy (M1 §4.1, M4 §5.2) |
//! | [`body`] | articulated bodies with per-link geometry, obstacles (feature `urdf`: from URDF + meshes) |
//! | [`monitor`] | the M3 swept-volume distance monitor with a per-cycle budget (M3 §III-B) |

pub mod aabb_tree;
pub mod body;
pub mod bv;
pub mod bvh;
pub mod dynamic;
mod error;
pub mod fitted_ssch;
pub mod gjk;
pub mod hull;
#[cfg(feature = "io")]
pub mod io;
pub mod mass;
pub mod mesh;
pub mod monitor;
pub mod query;
pub mod ssch_mesh;
pub mod topology;

pub use aabb_tree::{AabbTree, AabbTreeWorkspace};
pub use body::{
    ArticulatedBody, LARGE_MESH_LEAF_TRIANGLES, LARGE_MESH_TRIANGLES, LinkGeometry, Obstacle,
    ObstacleMotion, RSS_LEAF_TRIANGLES, Tessellation,
};
#[cfg(feature = "io")]
pub use body::{LoadedMesh, MeshCache, SharedGeometry};
pub use bv::{Aabb, BoundingVolume, Capsule, FitError, Lss, Obb, Rss, Sphere};
pub use bvh::{
    Bvh, BvhNode, BvhOptions, BvhVolume, MAX_TOP_BOX_LEVELS, RigidMap, SplitRule, TopBoxes,
};
pub use dynamic::{
    BroadPhaseStats, DisabledPairs, DynamicHierarchyOptions, DynamicLinkHierarchy,
    EnvironmentHierarchy, LinkGroups, PotentialPairs,
};
pub use error::GeometryError;
pub use gjk::{
    GjkCache, GjkError, GjkOptions, GjkResult, GjkStatus, SschDistance, SupportMap, gjk_distance,
    gjk_distance_warm, gjk_intersect, ssch_distance,
};
pub use hull::{ConvexHull, HullOptions, HullShape};
pub use mass::MassProperties;
pub use mesh::{Degeneracy, DegeneratePolicy, MeshOptions, MeshReport, TriMesh};
pub use monitor::{
    MonitorBudget, MonitorObstacle, MonitorOptions, MonitorPair, MonitorReport, SweptVolumeMonitor,
    platform_frame,
};
pub use query::ClosestPoints;
pub use ssch_mesh::{SschMesh, SschMeshOptions, ssch_mesh};
pub use topology::MeshTopology;
