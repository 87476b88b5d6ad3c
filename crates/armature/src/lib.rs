//! # armature — continuous collision detection for articulated models
//!
//! Given two configurations of one or several articulated models (robot
//! arms, mobile manipulators, characters), or a whole path, armature answers
//! with a guarantee: does anything collide on the way, with the environment
//! or with itself, and if so at what first time of contact, between which
//! features. It also pushes an in-collision pose out with the least motion.
//!
//! This facade re-exports every layer as a module; each layer also works on
//! its own (depend on the single crate you need):
//!
//! | module | crate | what |
//! |---|---|---|
//! | [`interval`] | `armature-interval-taylor` | sound intervals and Taylor models |
//! | [`kinematics`] | `armature-kinematics` | trees, motions, enclosures, motion bounds |
//! | [`geometry`] | `armature-bvh-geometry` | meshes, BVHs, static proximity queries |
//! | [`cullide`] | `armature-gpu-cullide` | swept-volume culling on the GPU (M1 stage 2) |
//! | [`elementary`] | `armature-elementary-ccd` | continuous OBB trees, elementary equations (M1 stage 3) |
//! | [`advance`] | `armature-conservative-advance` | CATCH conservative advancement (M4) |
//! | [`bisection`] | `armature-adaptive-bisection` | adaptive-bisection path checking (M2) |
//! | [`pd`] | `armature-penetration-depth` | generalized penetration depth (M5) |
//!
//! The scene type, the pipeline builder and the `armature` command line
//! arrive with the facade issue.

pub use armature_adaptive_bisection as bisection;
pub use armature_bvh_geometry as geometry;
pub use armature_conservative_advance as advance;
pub use armature_elementary_ccd as elementary;
pub use armature_gpu_cullide as cullide;
pub use armature_interval_taylor as interval;
pub use armature_kinematics as kinematics;
pub use armature_penetration_depth as pd;

/// The types most programs need, gathered from every layer.
pub mod prelude {
    pub use armature_interval_taylor::prelude::*;
    pub use armature_kinematics::prelude::*;
}
