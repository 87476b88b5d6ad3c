//! The crate's error type.

use armature_bvh_geometry::GeometryError;
use armature_kinematics::KinematicsError;

/// Why a swept-volume or CULLIDE computation could not run (bad input, or
/// a GPU that failed; never a "may collide" answer).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CullideError {
    /// A motion or kinematics error (wrong link, bad time window).
    #[error("kinematics: {0}")]
    Kinematics(#[from] KinematicsError),
    /// A geometry error (mesh, hierarchy, distance query).
    #[error("geometry: {0}")]
    Geometry(#[from] GeometryError),
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
    /// An input holds a non-finite coordinate or size.
    #[error("{what} is not finite or out of range: {value}")]
    NonFinite {
        /// Which input (`swept volume 2 triangle 14`, `dilation`, ...).
        what: String,
        /// The offending value.
        value: f64,
    },
    /// No wgpu adapter could be opened (the CPU reference decides instead).
    #[error("no GPU adapter: {0}")]
    NoAdapter(String),
    /// The GPU device failed or rejected a resource (out of memory, lost
    /// device, a limit exceeded).
    #[error("GPU: {0}")]
    Gpu(String),
    /// An index names no object of this query.
    #[error("{what} index {index} out of range (there are {len})")]
    Index {
        /// Which list (`environment object`, `swept volume`).
        what: &'static str,
        /// The offending index.
        index: usize,
        /// The list's length.
        len: usize,
    },
}
