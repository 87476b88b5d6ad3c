//! The facade's one error type.

use std::path::PathBuf;

use armature_adaptive_bisection::BisectionError;
use armature_bvh_geometry::GeometryError;
use armature_conservative_advance::CcdError;
use armature_kinematics::KinematicsError;

/// Every error the facade returns: scene files, configurations, options,
/// and the layers' own errors with what was being done.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be read.
    #[error("{}: {source}", file.display())]
    Io {
        /// The file.
        file: PathBuf,
        /// The reason.
        source: std::io::Error,
    },
    /// A scene file is not valid RON for the scene schema (syntax, a
    /// missing or unknown field, a value of the wrong type).
    #[error("{}:{line}:{column}: {message}", file.display())]
    SceneSyntax {
        /// The scene file.
        file: PathBuf,
        /// Line of the error (1-based).
        line: usize,
        /// Column of the error (1-based).
        column: usize,
        /// The field at fault, when the parser names one.
        field: Option<String>,
        /// What is wrong.
        message: String,
    },
    /// A field of a scene (file or builder) has a value the scene rejects:
    /// a missing mesh or URDF file, a non-unit quaternion, an unknown name
    /// in `disabled_pairs`, a non-positive threshold.
    #[error("{}: field `{field}`: {message}", file.as_deref().map_or_else(|| "scene".into(), |f| f.display().to_string()))]
    SceneField {
        /// The scene file (`None` for scenes built in code).
        file: Option<PathBuf>,
        /// The field, as a path (`bodies[0].urdf`).
        field: String,
        /// What is wrong.
        message: String,
    },
    /// A configuration of the wrong length or with a non-finite value.
    #[error("configuration `{which}`: {message}")]
    Configuration {
        /// Which configuration (`q0`, `q1`, `config`, or a batch index).
        which: String,
        /// What is wrong.
        message: String,
    },
    /// An option out of range.
    #[error("option `{name}` = {value}: {why}")]
    InvalidOption {
        /// The option.
        name: &'static str,
        /// The value given.
        value: f64,
        /// The accepted range.
        why: &'static str,
    },
    /// A kinematics error.
    #[error("{context}: {source}")]
    Kinematics {
        /// What was being done.
        context: String,
        /// The error.
        source: Box<KinematicsError>,
    },
    /// A geometry error.
    #[error("{context}: {source}")]
    Geometry {
        /// What was being done.
        context: String,
        /// The error.
        source: Box<GeometryError>,
    },
    /// A conservative-advancement error.
    #[error("continuous collision query: {0}")]
    Ccd(#[source] Box<CcdError>),
    /// An elementary-stage (M1) error.
    #[error("continuous collision query (elementary stage): {0}")]
    Elementary(#[source] Box<armature_elementary_ccd::ElementaryError>),
    /// A path check (adaptive bisection) could not run: the scene cannot be
    /// prepared for it (an obstacle that moves over time) or a pose was
    /// rejected. Bad waypoints are [`Error::Configuration`] instead.
    #[error("{context}: {source}")]
    Path {
        /// What was being done (``path check``, ``path check of `paths[3]` ``).
        context: String,
        /// The error.
        source: Box<BisectionError>,
    },
    /// A penetration-depth query (M5) could not run: the model has a joint
    /// the object norm does not cover, or no volume, or a projection's
    /// query rejected the poses. Bad configurations are
    /// [`Error::Configuration`] instead.
    #[error("penetration depth: {0}")]
    PenetrationDepth(#[source] Box<armature_penetration_depth::PdError>),
    /// The thread pool of a pipeline could not be built.
    #[error("thread pool: {0}")]
    ThreadPool(String),
    /// An image could not be decoded or encoded, or its size does not fit
    /// (a background of another size than the camera's image). Files that
    /// cannot be read or written are [`Error::Io`].
    #[error("{}: {message}", file.as_deref().map_or_else(|| "image".into(), |f| f.display().to_string()))]
    Image {
        /// The image file (`None` for images in memory).
        file: Option<PathBuf>,
        /// What is wrong.
        message: String,
    },
    /// A camera pose could not be fitted to labelled points.
    #[error("camera pose: {0}")]
    Pnp(#[from] crate::render::PnpError),
}

impl Error {
    /// A [`Error::Geometry`] with its context.
    pub(crate) fn geometry(context: impl Into<String>, source: GeometryError) -> Self {
        Self::Geometry {
            context: context.into(),
            source: Box::new(source),
        }
    }

    /// A [`Error::Kinematics`] with its context.
    pub(crate) fn kinematics(context: impl Into<String>, source: KinematicsError) -> Self {
        Self::Kinematics {
            context: context.into(),
            source: Box::new(source),
        }
    }
}

impl From<armature_elementary_ccd::ElementaryError> for Error {
    fn from(e: armature_elementary_ccd::ElementaryError) -> Self {
        Self::Elementary(Box::new(e))
    }
}

impl From<CcdError> for Error {
    fn from(e: CcdError) -> Self {
        Self::Ccd(Box::new(e))
    }
}

impl From<armature_penetration_depth::PdError> for Error {
    fn from(e: armature_penetration_depth::PdError) -> Self {
        Self::PenetrationDepth(Box::new(e))
    }
}
