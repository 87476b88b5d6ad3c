//! The crate's error type.

use armature_bvh_geometry::GeometryError;
use armature_kinematics::KinematicsError;

/// Why a CCD query could not run (bad input; never a "may collide" answer,
/// which is a [`CcdStatus`](crate::CcdStatus)).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CcdError {
    /// A configuration or motion error (wrong DOF count, NaN, bad time).
    #[error("kinematics: {0}")]
    Kinematics(#[from] KinematicsError),
    /// A geometry error (mesh, hierarchy, pose, broad phase).
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
}
