//! The crate's error type.

use armature_bvh_geometry::GeometryError;
use armature_interval_taylor::IntervalError;
use armature_kinematics::KinematicsError;

/// Why an elementary CCD query could not run (bad input; never a "may
/// collide" answer).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ElementaryError {
    /// A configuration or motion error (wrong DOF count, NaN, bad time).
    #[error("kinematics: {0}")]
    Kinematics(#[from] KinematicsError),
    /// A geometry error (mesh, hierarchy, pose, broad phase).
    #[error("geometry: {0}")]
    Geometry(#[from] GeometryError),
    /// Interval arithmetic met a non-finite value (overflow of huge inputs).
    #[error("interval arithmetic: {0}")]
    Interval(#[from] IntervalError),
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
    /// A primitive query's input holds a non-finite coordinate.
    #[error("{query} input `{what}` is not finite: {value:?}")]
    NonFiniteInput {
        /// The query (`vertex_face_ccd`, `edge_edge_ccd`).
        query: &'static str,
        /// Which point (`vertex at t = 0`, `face[1] at t = 1`, ...).
        what: &'static str,
        /// The offending point.
        value: glam::DVec3,
    },
    /// Stage 2 (swept-volume culling, plugged in by the caller) failed.
    #[error("swept-volume culling: {0}")]
    Culling(Box<dyn std::error::Error + Send + Sync>),
    /// A batch's output slice does not match its input slice.
    #[error("batch output holds {got} entries for {expected} queries")]
    BatchLength {
        /// Number of queries.
        expected: usize,
        /// Length of the output slice.
        got: usize,
    },
}
