//! The crate's error type.

use armature_bvh_geometry::GeometryError;
use armature_kinematics::KinematicsError;

/// Why a path check could not run (bad input; never a "may collide"
/// answer, which is a [`PathStatus`](crate::PathStatus)).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BisectionError {
    /// A path needs at least two waypoints (one segment).
    #[error("a path needs at least 2 waypoints, got {got}")]
    TooFewWaypoints {
        /// The number of waypoints given.
        got: usize,
    },
    /// A waypoint is not a valid configuration (wrong length, a NaN or
    /// infinite value, a zero quaternion).
    #[error("waypoint {index}: {source}")]
    Waypoint {
        /// The waypoint's position in the path.
        index: usize,
        /// What is wrong with it.
        #[source]
        source: KinematicsError,
    },
    /// An option outside its documented range.
    #[error("option `{name}` = {value}: {why}")]
    InvalidOption {
        /// The option's name.
        name: &'static str,
        /// The offending value.
        value: f64,
        /// The accepted range.
        why: &'static str,
    },
    /// Paths are checked in configuration space, where time has no meaning:
    /// an obstacle that moves over time cannot be placed.
    #[error("obstacle `{name}` moves over time; path checking needs static obstacles")]
    MovingObstacle {
        /// The obstacle's name.
        name: String,
    },
    /// A kinematics error (curve-length bounds, forward kinematics).
    #[error("kinematics: {0}")]
    Kinematics(#[from] KinematicsError),
    /// A geometry error (pose, hierarchy, topology).
    #[error("geometry: {0}")]
    Geometry(#[from] GeometryError),
}
