//! The crate's error type.

use armature_bvh_geometry::GeometryError;
use armature_conservative_advance::CcdError;
use armature_kinematics::KinematicsError;

/// Why a penetration-depth query could not run (bad input or a model the
/// method does not cover); an answer that merely could not improve is a
/// [`PdReport`](crate::PdReport), never an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PdError {
    /// A configuration error (wrong length, NaN, non-unit quaternion) or a
    /// tree error.
    #[error("kinematics: {0}")]
    Kinematics(#[from] KinematicsError),
    /// A geometry error (mesh, hierarchy, pose).
    #[error("geometry: {0}")]
    Geometry(#[from] GeometryError),
    /// The continuous collision query of a projection failed.
    #[error("continuous collision detection: {0}")]
    Ccd(#[from] CcdError),
    /// A joint the object norm is not defined for (M5 covers prismatic,
    /// revolute, continuous, spherical, planar and floating joints).
    #[error("link `{link}`: the object norm is not defined for {joint} joints")]
    UnsupportedJoint {
        /// The link the joint moves.
        link: String,
        /// The joint's kind.
        joint: &'static str,
    },
    /// The model has no volume: no link carries geometry with a positive
    /// volume (or convex-hull volume), so the object norm is undefined.
    #[error("the model has no volume: no link has geometry enclosing a positive volume")]
    NoVolume,
    /// Object-norm coordinates outside the chart around the reference
    /// configuration (`crate::norm`): an angle coordinate `2 sin(Δ/2)` of
    /// magnitude above 2, a quaternion vector part longer than 1, a
    /// non-finite coordinate, or a configuration a half turn from the
    /// reference, where the chart is singular.
    #[error(
        "link `{link}`: object-norm coordinate of magnitude {value} is outside the chart ({why})"
    )]
    OutsideChart {
        /// The link whose joint the coordinates belong to.
        link: String,
        /// The offending magnitude (`|X|` or `|Q|`; NaN when not finite).
        value: f64,
        /// The rule it breaks.
        why: &'static str,
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
}
