//! # Primitive proximity queries
//!
//! **What.** Exact closest points, distances and overlap tests between the
//! primitives the hierarchies bottom out in, one file per pair (parry's
//! layout):
//!
//! | pair | queries |
//! |---|---|
//! | point–segment | [`closest_point_segment`], [`distance_point_segment`] |
//! | point–triangle | [`closest_point_triangle`], [`distance_point_triangle`] |
//! | segment–segment | [`closest_points_segment_segment`], [`distance_segment_segment`] |
//! | segment–triangle | [`closest_points_segment_triangle`], [`distance_segment_triangle`] |
//! | triangle–triangle | [`closest_points_triangle_triangle`], [`distance_triangle_triangle`], [`intersect_triangle_triangle`] |
//! | OBB–OBB | [`overlap_obb_obb`] (15-axis SAT), [`within_obb_obb`] (the same with a distance), two pairs at once: [`overlap_obb_obb_pair`], [`within_obb_obb_pair`] |
//! | RSS–RSS | [`distance_rss_rss`] (lower bound), [`closest_points_rectangle_rectangle`] |
//! | sphere–sphere, capsule–capsule | [`distance_sphere_sphere`], [`distance_capsule_capsule`] |
//! | sphere–triangle, capsule–triangle | [`distance_sphere_triangle`], [`distance_capsule_triangle`] |
//! | AABB–AABB | [`overlap_aabb_aabb`], [`distance_aabb_aabb`] |
//! | mesh–mesh (two [`crate::Bvh`]s) | [`collide`], [`distance`], [`approximate_distance`], [`within_distance`], [`greedy_distance`], [`advancement_step`] |
//! | point–solid, mesh–solid (closed meshes) | [`winding_number`], [`point_location`], [`containment`] |
//!
//! **Why.** These are the leaves of every mesh query (collide, distance,
//! GREEDY-DIST, conservative advancement) and of the bounding-volume tests on
//! the way down. The mesh–mesh queries descend two hierarchies at once
//! (Gottschalk et al. 1996; Larsen et al. 1999; M2 §III) and inherit the
//! primitives' guarantees: collide finds exactly the triangle pairs
//! [`intersect_triangle_triangle`] reports, the distances match the minimum
//! of [`closest_points_triangle_triangle`] over all pairs, GREEDY-DIST is a
//! certified lower bound. They run in the first object's frame, reuse a
//! `*Workspace` (no allocation once warm) and count their work in
//! [`QueryStats`].
//!
//! **Guarantees.**
//!
//! - *Closest points* are points of their primitives (up to rounding) and
//!   realise the returned distance, so a distance never underestimates the
//!   true one by more than rounding; for regular input it is exact up to a
//!   few ulps of the coordinate scale. Parallel and collinear segments,
//!   zero-length segments and degenerate triangles (coincident or collinear
//!   vertices) are handled exactly; sliver triangles lose accuracy as their
//!   plane becomes ill-defined, at worst about `1e-8` of their longest edge
//!   (see [`closest_point_triangle`]).
//! - *Overlap tests are conservative*: [`intersect_triangle_triangle`] never
//!   says "no intersection" for triangles within [`TOUCH_TOLERANCE`] (relative
//!   to the coordinate scale) of each other, and [`overlap_obb_obb`] never
//!   says "separated" for boxes that overlap or touch (relative margin
//!   [`OBB_SAT_MARGIN`]). Their modules document the tolerance bands.
//! - [`distance_rss_rss`] is a lower bound in floating point.
//! - *No panics on user data.* NaN input gives a NaN distance (and NaN
//!   points). In overlap tests a NaN never separates: the triangle test
//!   reports any non-finite input as intersecting, the box tests report
//!   "disjoint" only on the evidence of an axis free of NaN. Infinite
//!   coordinates give unspecified (NaN or infinite) distances.
//! - *Range.* Squared lengths must stay finite and normal: coordinates up to
//!   [`crate::bv::MAX_COORDINATE`] in magnitude; a triangle smaller than
//!   about `1e-75` has no representable normal and is measured through its
//!   edges only (as a sliver).
//!
//! ```
//! use armature_bvh_geometry::query::{closest_points_triangle_triangle, intersect_triangle_triangle};
//! use glam::DVec3;
//! let a = [DVec3::ZERO, DVec3::X, DVec3::Y];
//! let b = [DVec3::new(0.0, 0.0, 1.0), DVec3::new(1.0, 0.0, 1.0), DVec3::new(0.0, 0.0, 2.0)];
//! let c = closest_points_triangle_triangle(&a, &b);
//! assert_eq!(c.distance, 1.0);
//! assert!(!intersect_triangle_triangle(&a, &b));
//! ```

// `!(x > 0.0)` is the idiom for "not positive, or NaN": the NaN handling
// here depends on it, which `partial_cmp` would only obscure.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

mod aabb_aabb;
mod advancement;
mod capsule_capsule;
mod capsule_triangle;
mod containment;
mod face;
mod mesh_mesh;
mod mesh_mesh_distance;
mod obb_obb;
mod point_segment;
mod point_triangle;
mod rss_rss;
mod segment_segment;
mod segment_triangle;
mod sphere_sphere;
mod sphere_triangle;
mod triangle_triangle;
mod triangle_triangle_intersection;

use glam::DVec3;

pub use aabb_aabb::{distance_aabb_aabb, overlap_aabb_aabb};
pub use advancement::{
    Advance, AdvancementFront, AdvancementOptions, AdvancementStep, advancement_step,
    advancement_step_warm,
};
pub use capsule_capsule::distance_capsule_capsule;
pub use capsule_triangle::distance_capsule_triangle;
pub use containment::{
    ContainmentWitness, PointLocation, containment, containment_of_first, contains_part,
    locate_point, point_location, winding_number,
};
pub use mesh_mesh::{
    CollideMode, CollideWorkspace, DistanceVolume, MeshCollision, MeshObject, MeshSeparation,
    OverlapVolume, QueryStats, RIGID_TOLERANCE, apart_by, collide, collide_below, relative_pose,
    triangle_pair_intersects,
};
pub use mesh_mesh_distance::{
    CappedDistance, DistanceCache, DistanceWorkspace, GreedyDistance, GreedyDistanceOptions,
    GreedyStatus, MeshDistance, WithinDistance, approximate_distance, capped_distance, distance,
    greedy_distance, within_distance,
};
pub use obb_obb::{
    OBB_SAT_EPSILON, OBB_SAT_MARGIN, overlap_obb_obb, overlap_obb_obb_pair, within_obb_obb,
    within_obb_obb_pair,
};
pub use point_segment::{closest_point_segment, distance_point_segment};
pub use point_triangle::{closest_point_triangle, distance_point_triangle};
pub use rss_rss::{
    apart_beyond_rss, closest_points_rectangle_rectangle, distance_bounds_rss_rss, distance_rss_rss,
};
pub use segment_segment::{closest_points_segment_segment, distance_segment_segment};
pub use segment_triangle::{closest_points_segment_triangle, distance_segment_triangle};
pub use sphere_sphere::distance_sphere_sphere;
pub use sphere_triangle::distance_sphere_triangle;
pub use triangle_triangle::{
    closest_points_triangle_triangle, distance_lower_bound_triangle_triangle,
    distance_triangle_triangle,
};
pub use triangle_triangle_intersection::{TOUCH_TOLERANCE, intersect_triangle_triangle};

/// The elementary features of a contact between two meshes `a` and `b`
/// (mesh vertex and triangle indices): the vertex–face and edge–edge
/// pairs whose equations give a continuous query's first contact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeaturePair {
    /// A vertex of `a` against a triangle of `b`.
    VertexFace {
        /// The vertex of `a`.
        vertex: u32,
        /// The triangle of `b`.
        triangle: u32,
    },
    /// A triangle of `a` against a vertex of `b`.
    FaceVertex {
        /// The triangle of `a`.
        triangle: u32,
        /// The vertex of `b`.
        vertex: u32,
    },
    /// An edge of `a` against an edge of `b` (each as its two vertices).
    EdgeEdge {
        /// The edge of `a`.
        edge_a: [u32; 2],
        /// The edge of `b`.
        edge_b: [u32; 2],
    },
}

/// A closest pair of points of two shapes and their distance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClosestPoints {
    /// `|point_a − point_b|`.
    pub distance: f64,
    /// The point on the first shape.
    pub point_a: DVec3,
    /// The point on the second shape.
    pub point_b: DVec3,
}

impl ClosestPoints {
    /// The answer to NaN input.
    pub const NAN: Self = Self {
        distance: f64::NAN,
        point_a: DVec3::NAN,
        point_b: DVec3::NAN,
    };
}

/// Closest points of two segments `p0 + s(p1 − p0)` and `q0 + t(q1 − q0)`,
/// with their parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SegmentClosestPoints {
    /// `|point_a − point_b|`.
    pub distance: f64,
    /// Parameter of `point_a` on the first segment, in `[0, 1]`.
    pub s: f64,
    /// Parameter of `point_b` on the second segment, in `[0, 1]`.
    pub t: f64,
    /// The point on the first segment.
    pub point_a: DVec3,
    /// The point on the second segment.
    pub point_b: DVec3,
}

/// `x` clamped to `[0, 1]`; NaN maps to 0 (callers check NaN input first).
#[inline]
pub(crate) fn clamp01(x: f64) -> f64 {
    if x > 0.0 { x.min(1.0) } else { 0.0 }
}

/// `max(x, 0)` that keeps NaN (unlike `f64::max`).
#[inline]
pub(crate) fn nonnegative(x: f64) -> f64 {
    if x < 0.0 { 0.0 } else { x }
}

#[inline]
pub(crate) fn any_nan(pts: &[DVec3]) -> bool {
    pts.iter().any(|p| p.is_nan())
}

/// Largest absolute coordinate.
#[inline]
pub(crate) fn max_abs(pts: &[DVec3]) -> f64 {
    pts.iter().fold(0.0, |m, p| m.max(p.abs().max_element()))
}
