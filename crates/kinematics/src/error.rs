//! The crate's error type.

use armature_interval_taylor::IntervalError;
use std::path::PathBuf;

/// Why a tree, a configuration, a motion or a bound could not be built.
///
/// Every variant names the offending input (link or joint name, index,
/// value).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum KinematicsError {
    /// A link names a parent that is not in the tree.
    #[error("link `{link}` names unknown parent `{parent}`")]
    UnknownParent {
        /// The link.
        link: String,
        /// The parent name it gave.
        parent: String,
    },
    /// Following parents from this link comes back to it.
    #[error("link `{link}` is part of a cycle of parents")]
    Cycle {
        /// A link on the cycle.
        link: String,
    },
    /// Two links share a name.
    #[error("duplicate link name `{name}`")]
    DuplicateLink {
        /// The name.
        name: String,
    },
    /// A link name is empty.
    #[error("link {index} has an empty name")]
    EmptyName {
        /// Position of the link in the input.
        index: usize,
    },
    /// A joint axis is zero or not finite.
    #[error("joint of link `{link}` has a zero or non-finite axis ({x}, {y}, {z})")]
    BadAxis {
        /// The link the joint moves.
        link: String,
        /// x component.
        x: f64,
        /// y component.
        y: f64,
        /// z component.
        z: f64,
    },
    /// A model parameter (origin, limit, bound) is NaN or infinite.
    #[error("link `{link}`: `{field}` = {value} is not finite")]
    NotFinite {
        /// The link.
        link: String,
        /// The field.
        field: &'static str,
        /// The value.
        value: f64,
    },
    /// A model parameter is out of its range.
    #[error("link `{link}`: `{field}` = {value} is out of range ({why})")]
    OutOfRange {
        /// The link.
        link: String,
        /// The field.
        field: &'static str,
        /// The value.
        value: f64,
        /// The allowed range, in words.
        why: &'static str,
    },
    /// Joint limits with `lower > upper` or NaN.
    #[error("joint of link `{link}` has invalid limits [{lower}, {upper}]")]
    InvalidLimits {
        /// The link.
        link: String,
        /// Lower limit.
        lower: f64,
        /// Upper limit.
        upper: f64,
    },
    /// A fixed origin whose linear part is not a rotation.
    #[error("link `{link}`: origin rotation is not orthonormal")]
    NotARotation {
        /// The link.
        link: String,
    },
    /// A configuration vector of the wrong length.
    #[error("configuration has {got} values, the tree needs {expected}")]
    ConfigLength {
        /// Values the tree needs.
        expected: usize,
        /// Values given.
        got: usize,
    },
    /// A configuration value is NaN or infinite.
    #[error("configuration value {index} (joint of link `{link}`) is {value}")]
    ConfigNotFinite {
        /// Index in the configuration vector.
        index: usize,
        /// The link whose joint owns the value.
        link: String,
        /// The value.
        value: f64,
    },
    /// A quaternion in a configuration has (near) zero norm.
    #[error("configuration values {index}..{} (joint of link `{link}`) are not a quaternion (norm {norm})", index + 4)]
    BadQuaternion {
        /// Index of the first quaternion component.
        index: usize,
        /// The link whose joint owns the values.
        link: String,
        /// The norm found.
        norm: f64,
    },
    /// A buffer of the wrong length.
    #[error("buffer `{what}` has length {got}, expected {expected}")]
    BufferLength {
        /// Which buffer.
        what: &'static str,
        /// Length needed.
        expected: usize,
        /// Length given.
        got: usize,
    },
    /// A link index beyond the tree.
    #[error("link index {index} out of range (tree has {len} links)")]
    LinkIndex {
        /// The index.
        index: usize,
        /// Number of links.
        len: usize,
    },
    /// A link name not in the tree.
    #[error("no link named `{name}`")]
    UnknownLink {
        /// The name.
        name: String,
    },
    /// A time or time interval outside `[0, 1]` or inverted.
    #[error("time interval [{t0}, {t1}] is not inside [0, 1]")]
    BadTime {
        /// Start.
        t0: f64,
        /// End.
        t1: f64,
    },
    /// A path needs at least one configuration.
    #[error("a path needs at least one configuration")]
    EmptyPath,
    /// A segment index beyond the path.
    #[error("segment {index} out of range (path has {len} segments)")]
    SegmentIndex {
        /// The index.
        index: usize,
        /// Number of segments.
        len: usize,
    },
    /// An empty point set where geometry is needed.
    #[error("link `{link}`: empty point set")]
    EmptyPoints {
        /// The link.
        link: String,
    },
    /// A direction that is zero or not finite (it must be normalisable).
    #[error("direction ({x}, {y}, {z}) is zero or not finite")]
    BadDirection {
        /// x component.
        x: f64,
        /// y component.
        y: f64,
        /// z component.
        z: f64,
    },
    /// A motion that was not built from the tree a bound was built for.
    #[error("the motion has {links} links or other parents than the tree ({expected} links)")]
    MotionMismatch {
        /// Links of the motion.
        links: usize,
        /// Links of the tree.
        expected: usize,
    },
    /// A numeric enclosure failed.
    #[error(transparent)]
    Interval(#[from] IntervalError),
    /// A URDF document is not well-formed XML or does not follow the URDF
    /// schema (a missing attribute, an unknown joint type, a number that
    /// does not parse); `message` is the parser's.
    #[error("URDF {source_name}: {message}")]
    Urdf {
        /// The file (or the name given with the string).
        source_name: String,
        /// What is wrong, naming the element.
        message: String,
    },
    /// A URDF file could not be read (missing, unreadable, not UTF-8).
    #[error("cannot read URDF file `{}`: {message}", path.display())]
    UrdfFile {
        /// The path as given.
        path: PathBuf,
        /// The operating system's reason.
        message: String,
    },
    /// A URDF joint mimics another joint; mimic joints are not supported
    /// (their value is not a free configuration value).
    #[error(
        "URDF {source_name}: joint `{joint}` mimics joint `{mimicked}`; mimic joints are not supported"
    )]
    UrdfMimicJoint {
        /// The file (or the name given with the string).
        source_name: String,
        /// The mimic joint.
        joint: String,
        /// The joint it follows.
        mimicked: String,
    },
    /// A URDF joint names a parent or child link the document does not
    /// declare.
    #[error("URDF {source_name}: joint `{joint}` names unknown {role} link `{link}`")]
    UrdfUnknownLink {
        /// The file (or the name given with the string).
        source_name: String,
        /// The joint.
        joint: String,
        /// `"parent"` or `"child"`.
        role: &'static str,
        /// The link name it gave.
        link: String,
    },
    /// A URDF link is the child of two joints.
    #[error(
        "URDF {source_name}: link `{link}` is the child of two joints, `{first}` and `{second}`"
    )]
    UrdfTwoParents {
        /// The file (or the name given with the string).
        source_name: String,
        /// The link.
        link: String,
        /// The first joint (in file order) naming it as child.
        first: String,
        /// The second one.
        second: String,
    },
    /// A URDF document without exactly one root link (a link that is no
    /// joint's child). None means the joints form a cycle (or there are no
    /// links).
    #[error("URDF {source_name}: expected exactly one root link, found {} [{}]", roots.len(), roots.join(", "))]
    UrdfRoots {
        /// The file (or the name given with the string).
        source_name: String,
        /// The root links found, in file order.
        roots: Vec<String>,
    },
    /// Two URDF joints share a name.
    #[error("URDF {source_name}: duplicate joint name `{joint}`")]
    UrdfDuplicateJoint {
        /// The file (or the name given with the string).
        source_name: String,
        /// The name.
        joint: String,
    },
    /// A revolute or prismatic URDF joint without `<limit>` (the format
    /// requires one).
    #[error("URDF {source_name}: {kind} joint `{joint}` has no <limit> element")]
    UrdfMissingLimits {
        /// The file (or the name given with the string).
        source_name: String,
        /// The joint.
        joint: String,
        /// `"revolute"` or `"prismatic"`.
        kind: &'static str,
    },
    /// A URDF joint the kinematic tree rejects (zero or non-finite axis,
    /// non-finite origin, invalid limits, a cycle through it); `reason` is
    /// the tree's error, naming the joint's child link.
    #[error("URDF {source_name}: joint `{joint}`: {reason}")]
    UrdfJoint {
        /// The file (or the name given with the string).
        source_name: String,
        /// The joint.
        joint: String,
        /// The tree's error.
        reason: Box<KinematicsError>,
    },
    /// A URDF `<collision>` or `<visual>` element with a non-finite or
    /// out-of-range value (origin, size, radius, length, scale).
    #[error("URDF {source_name}: link `{link}` {element} {index}: {reason}")]
    UrdfGeometry {
        /// The file (or the name given with the string).
        source_name: String,
        /// The link.
        link: String,
        /// `"collision"` or `"visual"`.
        element: &'static str,
        /// Position of the element among the link's elements of that kind.
        index: usize,
        /// [`KinematicsError::NotFinite`] or [`KinematicsError::OutOfRange`].
        reason: Box<KinematicsError>,
    },
    /// A URDF mesh filename that cannot be resolved to a path.
    #[error("URDF {source_name}: link `{link}` mesh `{filename}`: {reason}")]
    UrdfMeshPath {
        /// The file (or the name given with the string).
        source_name: String,
        /// The link.
        link: String,
        /// The filename as written.
        filename: String,
        /// Why it cannot be resolved.
        reason: &'static str,
    },
    /// Another model error the tree reports for a URDF document (a
    /// duplicate or empty link name).
    #[error("URDF {source_name}: {reason}")]
    UrdfModel {
        /// The file (or the name given with the string).
        source_name: String,
        /// The tree's error.
        reason: Box<KinematicsError>,
    },
    /// A parameter of a swept-volume operation, an SSCH or a braking model
    /// is NaN, infinite or out of its range.
    #[error("`{field}` = {value} is invalid ({why})")]
    BadParameter {
        /// The parameter.
        field: &'static str,
        /// The value given.
        value: f64,
        /// The allowed range, in words.
        why: &'static str,
    },
    /// A frame asked for is not an ancestor of the link (nor the link).
    #[error("link `{ancestor}` is not an ancestor of link `{link}`")]
    NotAncestor {
        /// The link whose volume is propagated.
        link: String,
        /// The frame asked for.
        ancestor: String,
    },
    /// A joint interval of the wrong kind for its joint.
    #[error("joint of link `{link}` needs {expected}")]
    IntervalMismatch {
        /// The link whose joint it is.
        link: String,
        /// The kind of interval the joint needs, in words.
        expected: &'static str,
    },
}

impl KinematicsError {
    /// Whether the error comes from the URDF reader, whose every message
    /// names the URDF file or source it read (callers need not name it
    /// again).
    #[must_use]
    pub const fn names_urdf_source(&self) -> bool {
        matches!(
            self,
            Self::Urdf { .. }
                | Self::UrdfFile { .. }
                | Self::UrdfMimicJoint { .. }
                | Self::UrdfUnknownLink { .. }
                | Self::UrdfTwoParents { .. }
                | Self::UrdfRoots { .. }
                | Self::UrdfDuplicateJoint { .. }
                | Self::UrdfMissingLimits { .. }
                | Self::UrdfJoint { .. }
                | Self::UrdfGeometry { .. }
                | Self::UrdfMeshPath { .. }
                | Self::UrdfModel { .. }
        )
    }
}
