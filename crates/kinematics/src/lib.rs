//! # armature-kinematics — trees, motions, enclosures and motion bounds
//!
//! **Contract.** Owns the kinematic tree of one or several articulated
//! models (links, parents, joints, fixed origins, limits) and every
//! conservative statement about where a link can be while the model moves
//! between two configurations or along a path.
//!
//! - *Inputs*: configuration vectors in tree order (DESIGN.md §3: revolute,
//!   continuous and prismatic joints one value; planar 3; spherical 4;
//!   floating 7; vehicle 2; omni-vehicle 3), radians and metres.
//! - *Frames*: each link frame is placed by its parent frame, a fixed origin
//!   and the joint transform; world poses are products along the chain.
//! - *Time*: every motion is normalised to `t ∈ [0, 1]`.
//! - *Guarantee*: pose enclosures (interval, M1 §4.1; Taylor, M4 §5.2), the
//!   curve-length bound λ (M2 §IV), the motion bound μ (M4 §6) and the joint
//!   swept volumes (M3 §3) are **conservative**: every sampled true pose,
//!   curve length, point speed or swept point lies inside them, in floating
//!   point, because they are built on `armature-interval-taylor`.

pub mod braking;
mod error;
pub mod joint;
mod motion;
pub mod ssch;
mod tree;

pub use braking::{BrakingModel, JointInterval, braking_interval, braking_intervals};
pub use error::KinematicsError;
pub use joint::{Joint, JointLimits, JointType};
pub use motion::{InBetweenMotion, JointSpaceMotion, LocalMotion, Path};
pub use ssch::{
    JointOperation, OrientationCover, PrismaticCover, RevoluteCover, Ssch, SweptPair,
    SweptVolumeOptions, VehicleCover, swept_pair, swept_ssch,
};
pub use tree::{KinematicTree, Link, LinkSpec};

/// The crate's commonly used types.
pub mod prelude {
    pub use crate::{
        BrakingModel, JointInterval, JointOperation, Ssch, SweptVolumeOptions, swept_pair,
        swept_ssch,
    };
    pub use crate::{
        InBetweenMotion, Joint, JointLimits, JointSpaceMotion, JointType, KinematicTree,
        KinematicsError, Link, LinkSpec, LocalMotion, Path,
    };
}
