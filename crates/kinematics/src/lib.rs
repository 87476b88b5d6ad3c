//! # armature-kinematics — trees, motions, enclosures and motion bounds
//!
//! **Contract.** Owns the kinematic tree of one or several articulated
//! models (links, parents, joints, fixed origins, limits) and every
//! conservative statement about where a link can be while the model moves
//! between two configurations or along a path.
//!
//! - *Inputs*: configuration vectors in tree order (docs/architecture.md: revolute,
//!   continuous and prismatic joints one value; planar 3; spherical 4;
//!   floating 7; vehicle 2; omni-vehicle 3), radians and metres.
//! - *Frames*: each link frame is placed by its parent frame, a fixed origin
//!   and the joint transform; world poses are products along the chain.
//! - *Time*: every motion is normalised to `t ∈ [0, 1]`.
//! - *Guarantee*: pose enclosures (interval, M1 §4.1; Taylor, M4 §5.2), the
//!   curve-length bound λ (M2 §IV), the motion bound μ (M4 §6) and the joint
//!   swept volumes (M3 §III) are **conservative**: every sampled true pose,
//!   curve length, point speed or swept point lies inside them. Pose
//!   enclosures hold in floating point because they are computed with the
//!   outward-rounded arithmetic of `armature-interval-taylor`; the bounds and
//!   swept volumes, computed in plain f64, carry documented relative slack
//!   for rounding (see [`bounds`] and [`ssch`]).
//!
//! | module | what | source |
//! |---|---|---|
//! | [`KinematicTree`], [`joint`] | links, joints (incl. M3's vehicle and uncertainty joints), FK, Jacobians | — |
//! | [`InBetweenMotion`], [`JointSpaceMotion`], [`Path`] | motions over `t ∈ [0, 1]` | M1 §3.3, M4 §3.2 |
//! | [`enclosure`] | interval and Taylor enclosures of link poses, AABBs of OBBs and point sets | M1 §4.1, M4 §5.2 |
//! | [`bounds`] | curve-length bound λ, motion bound μ | M2 §IV, M4 §6 |
//! | [`ssch`], [`braking`] | joint-wise sphere-swept convex hulls, braking intervals | M3 §III |
//! - *URDF* (feature `urdf`, module `urdf`): `UrdfModel` reads a URDF
//!   document into a tree plus per-link geometry references; configuration
//!   vectors then hold the movable joints' values in URDF joint order.

pub mod bounds;
pub mod braking;
pub mod enclosure;
mod error;
pub mod joint;
mod motion;
pub mod ssch;
mod tree;
#[cfg(feature = "urdf")]
pub mod urdf;

pub use bounds::{
    CurveLengthBounds, CurveLengthFactor, MotionBounds, PairSpeed, PosedLevers, ReachSphere,
};
pub use braking::{BrakingModel, JointInterval, braking_interval, braking_intervals};
pub use enclosure::{
    ARC_PIECES, CHORD_PIECE_SWING, EnclosureKind, EnclosureWorkspace, INTERVAL_SWING,
    LinkEnclosures, LinkObb, MAX_CHORD_PIECES, MAX_TAYLOR_PIECES, TAYLOR_ALONE_SWING,
    TAYLOR_PIECE_SWING, sinc_interval,
};
pub use error::KinematicsError;
pub use joint::{Joint, JointLimits, JointType};
pub use motion::{InBetweenMotion, JointSpaceMotion, LocalMotion, Path};
pub use ssch::{
    JointOperation, OrientationCover, PreparedSweeps, PrismaticCover, RevoluteCover, Ssch,
    SweptPair, SweptVolumeOptions, VehicleCover, swept_into_frame, swept_pair, swept_ssch,
    swept_ssch_per_link,
};
pub use tree::{KinematicTree, Link, LinkSpec, LocalTransforms};
#[cfg(feature = "urdf")]
pub use urdf::{GeometryRef, GeometryShape, GeometrySource, LinkGeometry, UrdfModel, UrdfOptions};

/// The crate's commonly used types.
pub mod prelude {
    pub use crate::{
        BrakingModel, CurveLengthBounds, EnclosureKind, EnclosureWorkspace, InBetweenMotion, Joint,
        JointInterval, JointLimits, JointOperation, JointSpaceMotion, JointType, KinematicTree,
        KinematicsError, Link, LinkEnclosures, LinkObb, LinkSpec, LocalMotion, MotionBounds,
        PairSpeed, Path, Ssch, SweptVolumeOptions, swept_pair, swept_ssch,
    };
    #[cfg(feature = "urdf")]
    pub use crate::{
        GeometryRef, GeometryShape, GeometrySource, LinkGeometry, UrdfModel, UrdfOptions,
    };
}
