//! The crate's error type.
//!
//! One `#[non_exhaustive]` enum for every fallible operation of the crate:
//! mesh validation, mass properties, convex hulls, mesh import, hierarchy
//! builds and mesh queries. Each
//! variant names the offending input (vertex or triangle index, edge, file
//! and line), so a message points at the data to fix.

use glam::DVec3;

use crate::mesh::Degeneracy;

/// Why a mesh, a hull, a mass computation or an import failed.
///
/// Every variant names the offending input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum GeometryError {
    /// A vertex coordinate is NaN or infinite.
    #[error("vertex {index} is not finite: {value}")]
    NonFiniteVertex {
        /// Index of the vertex in the input.
        index: usize,
        /// Its coordinates.
        value: DVec3,
    },
    /// More vertices than `u32` indices can address.
    #[error("{count} vertices: triangle indices are u32, at most 2^32 vertices are addressable")]
    TooManyVertices {
        /// Number of vertices given.
        count: usize,
    },
    /// A triangle refers to a vertex that does not exist.
    #[error(
        "triangle {triangle}, corner {corner}: vertex index {index} is out of range \
         (the mesh has {vertex_count} vertices)"
    )]
    IndexOutOfRange {
        /// Index of the triangle in the input.
        triangle: usize,
        /// Which corner of the triangle (0, 1 or 2).
        corner: usize,
        /// The vertex index it holds.
        index: u32,
        /// Number of vertices.
        vertex_count: usize,
    },
    /// A triangle is degenerate and the options say to reject it.
    #[error("triangle {triangle} is degenerate: {reason}")]
    DegenerateTriangle {
        /// Index of the triangle in the input.
        triangle: usize,
        /// What is degenerate about it.
        reason: Degeneracy,
    },
    /// No triangle is left (none given, or every one was dropped as
    /// degenerate).
    #[error("the mesh has no triangles ({dropped} degenerate triangles dropped)")]
    EmptyMesh {
        /// How many degenerate triangles were dropped.
        dropped: usize,
    },
    /// A numeric parameter (scale, density, tolerance, transform) is out of
    /// its range.
    #[error("`{name}` = {value} is invalid: {why}")]
    InvalidParameter {
        /// The parameter.
        name: &'static str,
        /// Its value (for a transform, the determinant of its linear part).
        value: f64,
        /// The allowed range, in words.
        why: &'static str,
    },
    /// A mass computation needs a closed mesh; this edge is not shared by
    /// exactly two triangles.
    #[error(
        "the mesh is not closed: edge ({}, {}) is used by {count} triangles, a closed mesh \
         uses every edge exactly twice",
        edge[0],
        edge[1]
    )]
    OpenMesh {
        /// The edge, as two vertex indices (smaller first).
        edge: [u32; 2],
        /// How many triangles use it.
        count: usize,
    },
    /// A mass computation needs consistently oriented triangles; both
    /// triangles on this edge traverse it in the same direction.
    #[error(
        "the mesh is not consistently oriented: edge {} -> {} is traversed in the same \
         direction by both of its triangles",
        edge[0],
        edge[1]
    )]
    InconsistentOrientation {
        /// The edge, as two vertex indices in the repeated direction.
        edge: [u32; 2],
    },
    /// The enclosed volume is zero or negative: the triangles face inward,
    /// or the mesh is flat.
    #[error("the enclosed volume is {volume}: the triangles face inward or the mesh is flat")]
    NonPositiveVolume {
        /// The signed volume found.
        volume: f64,
    },
    /// A point set is empty where at least one point is needed.
    #[error("the point set is empty")]
    EmptyPointSet,
    /// A point of a point set is NaN or infinite.
    #[error("point {index} is not finite: {value}")]
    NonFinitePoint {
        /// Index of the point in the input.
        index: usize,
        /// Its coordinates.
        value: DVec3,
    },
    /// More points than `u32` indices can address.
    #[error("{count} points: hull indices are u32, at most 2^32 points are addressable")]
    TooManyPoints {
        /// Number of points given.
        count: usize,
    },
    /// A mesh file could not be opened or read.
    #[error("cannot read `{file}`: {message}")]
    FileRead {
        /// The file.
        file: String,
        /// The kind of I/O failure (`NotFound` for a missing file).
        kind: std::io::ErrorKind,
        /// The operating system's message.
        message: String,
    },
    /// A file name whose extension names no supported mesh format.
    #[error("`{file}`: unsupported mesh format (expected .stl, .obj or .dae)")]
    UnsupportedFormat {
        /// The file.
        file: String,
    },
    /// A mesh file's content is malformed.
    #[error("{}: {message}", location(file, *line))]
    MalformedFile {
        /// The file (or `<memory>` for in-memory input).
        file: String,
        /// The 1-based line, where known.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// A mesh file parses, but the mesh it holds fails validation (a
    /// non-finite vertex after scaling, a rejected degenerate triangle, no
    /// triangles at all).
    #[error("{}: {source}", location(file, *line))]
    InvalidFileMesh {
        /// The file (or `<memory>` for in-memory input).
        file: String,
        /// The 1-based line of the offending face, where known.
        line: Option<usize>,
        /// The validation error, with indices into the loaded mesh.
        source: Box<GeometryError>,
    },
    /// An OBJ object or COLLADA geometry selected by name is not in the
    /// file.
    #[error("`{file}`: no object named `{name}` (the file has: {})", available.join(", "))]
    UnknownObject {
        /// The file (or `<memory>`).
        file: String,
        /// The name asked for.
        name: String,
        /// The object names the file has, in file order.
        available: Vec<String>,
    },
    /// More triangles than a hierarchy's `u32` indices can address.
    #[error("{count} triangles: hierarchy triangle indices are u32, at most 2^32 are addressable")]
    TooManyTriangles {
        /// Number of triangles given.
        count: usize,
    },
    /// A bounding volume could not be fitted (a coordinate beyond
    /// [`crate::bv::MAX_COORDINATE`]).
    #[error("bounding volume fit failed: {0}")]
    BoundingVolumeFit(#[from] crate::bv::FitError),
    /// A hierarchy was paired with a mesh other than the one it was built
    /// on (the triangle counts differ).
    #[error(
        "the hierarchy indexes {bvh_triangles} triangles but the mesh has {mesh_triangles}: \
         build or refit the hierarchy on this mesh"
    )]
    BvhMeshMismatch {
        /// Triangles the hierarchy indexes.
        bvh_triangles: usize,
        /// Triangles the mesh has.
        mesh_triangles: usize,
    },
    /// A [`crate::MeshTopology`] was paired with a mesh other than the one
    /// it was computed on (the triangle counts differ).
    #[error(
        "the topology was computed on {topology_triangles} triangles but the mesh has \
         {mesh_triangles}: compute it on this mesh"
    )]
    TopologyMeshMismatch {
        /// Triangles of the mesh the topology was computed on.
        topology_triangles: usize,
        /// Triangles the mesh has.
        mesh_triangles: usize,
    },
    /// A kinematics operation failed (enclosures, swept volumes, braking
    /// intervals, URDF parsing); `context` names the link, pair or file
    /// (empty when the source's message already does).
    #[error("{}{source}", if context.is_empty() { String::new() } else { format!("{context}: ") })]
    Kinematics {
        /// What was being computed, naming the link, pair or file.
        context: String,
        /// The kinematics error.
        source: armature_kinematics::KinematicsError,
    },
    /// A GJK distance failed for the named pair.
    #[error("distance of {pair}: {source}")]
    Distance {
        /// The pair, by name (`link` or `body/link` and obstacle names).
        pair: String,
        /// The GJK error.
        source: crate::gjk::GjkError,
    },
    /// A name is neither a link of the tree nor a known obstacle.
    #[error("`{name}` is neither a link nor an obstacle")]
    UnknownName {
        /// The name asked for.
        name: String,
    },
    /// A name is both a link of the tree and an obstacle, so a pair given
    /// by it could mean either.
    #[error("`{name}` is both a link and an obstacle; rename the obstacle")]
    AmbiguousName {
        /// The name.
        name: String,
    },
    /// An index names no link or obstacle.
    #[error("{what} index {index} is out of range (there are {len})")]
    IndexOutOfBounds {
        /// `link` or `obstacle`.
        what: &'static str,
        /// The index given.
        index: usize,
        /// How many there are.
        len: usize,
    },
    /// A per-link or per-obstacle slice has the wrong length.
    #[error("{what}: expected {expected} entries, got {got}")]
    WrongLength {
        /// Which slice.
        what: &'static str,
        /// The expected length.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// A link's geometry could not be built (mesh load, tessellation,
    /// fitting); names the link and, for files, the file.
    #[error("link `{link}`: {source}")]
    LinkGeometry {
        /// The link's name.
        link: String,
        /// Why.
        source: Box<GeometryError>,
    },
    /// A bounding volume could not be fitted to the named object's points.
    #[error("`{name}`: {source}")]
    Fit {
        /// The link or obstacle.
        name: String,
        /// The fitting error.
        source: crate::bv::FitError,
    },
    /// A moving obstacle given where only static ones are supported (the
    /// swept-volume monitor, which has no swept volume for an obstacle's
    /// motion).
    #[error("obstacle `{name}` moves: the swept-volume monitor supports only static obstacles")]
    MovingObstacle {
        /// The obstacle's name.
        name: String,
    },
}

/// `file` or `file:line`, the usual compiler-style location.
fn location(file: &str, line: Option<usize>) -> String {
    match line {
        Some(line) => format!("{file}:{line}"),
        None => file.to_owned(),
    }
}

/// `Ok` when `value` is finite and non-negative, else
/// [`GeometryError::InvalidParameter`] naming it.
pub(crate) fn non_negative(name: &'static str, value: f64) -> Result<(), GeometryError> {
    if value >= 0.0 && value.is_finite() {
        Ok(())
    } else {
        Err(GeometryError::InvalidParameter {
            name,
            value,
            why: "must be finite and non-negative",
        })
    }
}
