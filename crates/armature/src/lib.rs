//! # armature — continuous collision detection for articulated models
//!
//! Given two configurations of one or several articulated models (robot
//! arms, mobile manipulators, characters), or a whole path, armature answers
//! with a guarantee: does anything collide on the way, with the environment
//! or with itself, and if so at what first time of contact, between which
//! features. It also pushes an in-collision pose out with the least motion.
//!
//! ## Start here
//!
//! - [`Scene`]: robots from URDF (with STL, OBJ or COLLADA meshes) or from code,
//!   obstacles from meshes, the pairs never tested, self-collision, the
//!   distance threshold; read from a RON scene file ([`scene_file`]).
//! - [`Pipeline`]: the stages of a query, composed once with
//!   [`Pipeline::builder`]; [`Pipeline::first_contact`],
//!   [`Pipeline::first_contact_batch`] (rayon, deterministic),
//!   [`Pipeline::check`] (discrete collision and distance),
//!   [`Pipeline::check_path`] and [`Pipeline::check_path_batch`] (whole
//!   paths by adaptive bisection, a [`PathReport`]),
//!   [`Pipeline::penetration_depth`] (the least motion out of a collision,
//!   a [`PdReport`]).
//! - [`SafetyMonitor`] ([`monitor`]): once per control cycle, whether robots
//!   braking now (mobile bases included, their pose uncertain) can still
//!   hit anything (M3).
//! - [`render`]: pictures on the CPU — the scene at a configuration or at a
//!   first contact, and the collision volumes over a camera image whose
//!   pose is fitted to labelled points (PnP), PNG in and out.
//! - [`Error`]: one error type; every variant names the offending input.
//! - The `armature` command line (`info`, `toc`, `check`, `path`, `pd`,
//!   `monitor`, `render`, `overlay`; `--json`), built
//!   with the default `cli` feature; its contract is in `docs/cli.md`.
//! - `oracle` (feature `oracle`): the brute-force oracle that tests and the
//!   benchmark suite check every answer against.
//!
//! ```no_run
//! use armature::prelude::*;
//!
//! let scene = Scene::from_file("data/scenes/puma_pipes.ron")?;
//! let pipeline = Pipeline::builder().build()?;
//! let q0 = vec![0.0; scene.nq()];
//! let mut q1 = q0.clone();
//! q1[1] = 1.0;
//! let report = pipeline.first_contact(&scene, &q0, &q1)?;
//! if let Some(c) = report.contact {
//!     println!("first contact at t = {} between {:?} and {:?}",
//!              c.time, scene.link_name(c.link), scene.other_name(c.other));
//! }
//! # Ok::<(), armature::Error>(())
//! ```
//!
//! ## Layers
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

pub use armature_adaptive_bisection as bisection;
pub use armature_bvh_geometry as geometry;
pub use armature_conservative_advance as advance;
pub use armature_elementary_ccd as elementary;
pub use armature_gpu_cullide as cullide;
pub use armature_interval_taylor as interval;
pub use armature_kinematics as kinematics;
pub use armature_penetration_depth as pd;

pub mod culling;
mod error;
pub mod monitor;
#[cfg(feature = "oracle")]
pub mod oracle;
pub mod pipeline;
pub mod render;
pub mod scene;
pub mod scene_file;

pub use culling::SweptVolumeCulling;
pub use error::Error;
pub use monitor::{MonitorSettings, MonitorState, SafetyMonitor, SafetyReport, Verdict};
pub use pipeline::{
    BroadPhase, CheckReport, ExactStage, Motion, PairWitness, Pipeline, PipelineBuilder, Prepared,
    PreparedPaths,
};
pub use scene::{
    BodyInfo, DEFAULT_DISTANCE_THRESHOLD, JointInfo, LoadWarning, LoadWarningKind, Scene,
    SceneBuilder, WarningSubject,
};
pub use scene_file::LoadProgress;

// Query answers users read without naming the layer they come from.
pub use armature_adaptive_bisection::{CollisionAt, PathReport, PathStats, PathStatus};
pub use armature_conservative_advance::{CcdReport, CcdStats, CcdStatus, Contact, Other};
pub use armature_penetration_depth::{PdOptions, PdReport, PdStatus};

/// The types most programs need, gathered from every layer.
pub mod prelude {
    pub use crate::{
        BroadPhase, CcdReport, CcdStatus, CheckReport, Contact, Error, Other, PathReport,
        PathStatus, Pipeline, Scene,
    };
    pub use armature_bvh_geometry::{ArticulatedBody, Obstacle, TriMesh};
    pub use armature_interval_taylor::prelude::*;
    pub use armature_kinematics::prelude::*;
}
