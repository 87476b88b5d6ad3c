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
    /// The distance threshold is too small for the scene's extent: the
    /// rounding of distances and poses there would eat the clearance.
    #[error(
        "distance_threshold {threshold:e} is too small for a scene extending {extent} from the \
         origin: use at least {minimum:e} (a relative {relative:e} of the extent), or move the \
         scene nearer the origin"
    )]
    ThresholdTooSmall {
        /// The threshold asked for.
        threshold: f64,
        /// The largest distance from the world origin of any vertex at the
        /// start or end of the motion.
        extent: f64,
        /// The smallest threshold accepted for this extent.
        minimum: f64,
        /// The ratio `minimum / extent`
        /// ([`MIN_RELATIVE_THRESHOLD`](crate::advance::MIN_RELATIVE_THRESHOLD)).
        relative: f64,
    },
}
