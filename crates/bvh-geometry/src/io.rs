//! Mesh import: STL (binary and ASCII), Wavefront OBJ and COLLADA, into
//! [`TriMesh`].
//!
//! **What.** [`load_mesh`] picks the format from the file extension;
//! [`load_stl`] / [`load_stl_bytes`], [`load_obj`] / [`load_obj_str`] /
//! [`load_obj_bytes`] and [`load_dae`] / [`load_dae_bytes`] read one format
//! from a file or from memory. Every
//! loader multiplies coordinates by [`LoadOptions::scale`] (a unit
//! conversion: `0.001` for a file in millimetres), shares vertices at
//! bit-identical positions (STL stores every facet's corners separately,
//! OBJ groups duplicate their seams) and validates the result as
//! [`TriMesh::from_vertices_indices`] does, under [`LoadOptions::mesh`].
//!
//! **Why these parsers.** The formats are parsed by the `stl_io`, `tobj`
//! and `mesh-loader` crates, maintained by their authors. This module adds
//! what a collision library needs around them: typed errors naming the
//! file and, where known, the line; a pre-pass over OBJ text that checks
//! every vertex and face line (so errors carry line numbers and out-of-range
//! face indices never reach the parser); detection of binary STL files
//! whose header starts with `solid`; triangulation of OBJ polygons as fans
//! (`tobj`'s `triangulate`); object selection; for COLLADA, a check of the
//! document before `mesh-loader` reads it and the placement of its
//! geometry (below).
//!
//! **Guarantee.** No input makes a loader panic: every byte string gives a
//! mesh or a [`GeometryError`] (property tests and three `cargo fuzz`
//! targets check this). A malformed file gives
//! [`GeometryError::MalformedFile`]; a well-formed file whose mesh fails
//! validation (no triangles, a non-finite vertex after scaling, a rejected
//! degenerate triangle) gives [`GeometryError::InvalidFileMesh`]; a file
//! that cannot be read gives [`GeometryError::FileRead`]. Loading is
//! deterministic.
//!
//! Details per format:
//!
//! - **STL**: a file is binary when its length is exactly `84 + 50·n` for
//!   the facet count `n` in its header (whatever its first bytes say),
//!   ASCII when it is UTF-8 text starting with `solid` and white space,
//!   and binary otherwise. Binary files shorter than their header announces are
//!   errors; trailing bytes are ignored. Stored facet normals are ignored:
//!   the corner order decides orientation. Triangle `i` of the mesh is
//!   facet `i`, unless degenerate facets are dropped.
//! - **OBJ**: vertices (`v x y z [w]`, optional colours ignored), faces
//!   (`f` with `v`, `v/vt`, `v//vn` or `v/vt/vn` corners, negative
//!   indices relative to the vertices above) and object and group names
//!   (`o`, `g`) are read; polygons become triangle fans; points, polylines
//!   (`l`), materials, normals and texture coordinates are ignored (but
//!   `vt`/`vn` lines and face references to them must be well-formed). A
//!   face may only refer to vertices defined above it. All objects are
//!   merged in file order, or one is selected by name
//!   ([`ObjectSelection`]).
//! - **COLLADA** (`.dae`, UTF-8 XML): the triangles, polygons (as fans)
//!   and triangle fans of every `<mesh>` geometry, placed as the visual
//!   scene places them: the scene `<scene>` instantiates (or the first
//!   `<visual_scene>` when there is no `<scene>`), its `<node>` tree with
//!   `<matrix>`, `<translate>`, `<rotate>` and `<scale>` transforms,
//!   `<instance_geometry>` (a geometry instanced twice is loaded twice)
//!   and `<instance_node>`; in a file without visual scenes every geometry
//!   is loaded where it is defined. All instances are merged into one
//!   mesh. Coordinates are multiplied by `<asset><unit meter="…">` (then
//!   by [`LoadOptions::scale`]), so a file in centimetres loads in metres.
//!   `<up_axis>` is ignored: coordinates are taken as written, as RViz and
//!   MoveIt read the meshes of URDF files (whose link frames are Z-up
//!   whatever the mesh file says), so a `Y_UP` file is not rotated. A
//!   transform that mirrors keeps triangles facing outward.
//!   [`ObjectSelection::Named`] selects the instances of the geometries
//!   with that `id` or `name`. Lines, materials, normals and texture
//!   coordinates are ignored (but must be well-formed). Vertex coordinates
//!   are read as 32-bit floats (the precision exporters write); transforms
//!   and the unit are applied in `f64`. Not supported, and errors rather
//!   than missing geometry: `<tristrips>`, polygons with holes or with
//!   fewer than three corners, `<convex_mesh>`, `<spline>` and `<brep>`,
//!   skinned meshes (`<instance_controller>`), `<lookat>` and `<skew>`,
//!   references into other files, and files that are not UTF-8. An
//!   error's line is the offending element's.
//!
//! ```
//! use armature_bvh_geometry::io::{LoadOptions, load_obj_str};
//!
//! let square = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n";
//! let mesh = load_obj_str(square, &LoadOptions::default().with_scale(0.001))?;
//! assert_eq!(mesh.num_triangles(), 2);
//! assert_eq!(mesh.vertices()[2].x, 0.001);
//!
//! let err = load_obj_str("v 0 0 0\nf 1 2 3\n", &LoadOptions::default()).unwrap_err();
//! assert_eq!(err.to_string(), "<memory>:2: face corner `2` refers to vertex 2, but only 1 are defined above");
//! # Ok::<(), armature_bvh_geometry::GeometryError>(())
//! ```

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{Cursor, Read, Seek, SeekFrom};
use std::path::Path;

use glam::DVec3;

use crate::{GeometryError, MeshOptions, TriMesh};

mod collada;

/// The name in errors for in-memory input.
const MEMORY: &str = "<memory>";

/// Which objects of an OBJ or COLLADA file to load.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ObjectSelection {
    /// Every object and group, merged in file order (the default).
    #[default]
    All,
    /// OBJ: only the objects or groups with this name (`o name` /
    /// `g name`, trimmed; faces before any name belong to
    /// `unnamed_object`). COLLADA: only the instances of the geometries
    /// whose `id` or `name` attribute is this.
    Named(String),
}

/// Options for the loaders.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadOptions {
    /// Factor applied to every coordinate, e.g. `0.001` for millimetres to
    /// metres. Must be finite and positive. Default 1.
    pub scale: f64,
    /// Validation of the loaded mesh (degenerate triangles dropped by
    /// default).
    pub mesh: MeshOptions,
    /// Which OBJ objects or COLLADA geometries to load (ignored for STL).
    /// Default: all.
    pub objects: ObjectSelection,
}

impl Default for LoadOptions {
    fn default() -> Self {
        Self {
            scale: 1.0,
            mesh: MeshOptions::default(),
            objects: ObjectSelection::All,
        }
    }
}

impl LoadOptions {
    /// Sets [`LoadOptions::scale`].
    #[must_use]
    pub fn with_scale(mut self, scale: f64) -> Self {
        self.scale = scale;
        self
    }

    /// Sets [`LoadOptions::mesh`].
    #[must_use]
    pub fn with_mesh_options(mut self, mesh: MeshOptions) -> Self {
        self.mesh = mesh;
        self
    }

    /// Sets [`LoadOptions::objects`].
    #[must_use]
    pub fn with_objects(mut self, objects: ObjectSelection) -> Self {
        self.objects = objects;
        self
    }
}

/// Loads an STL, OBJ or COLLADA file, chosen by its extension (`.stl`,
/// `.obj`, `.dae`, case-insensitive).
///
/// # Errors
/// [`GeometryError::UnsupportedFormat`] for another extension; otherwise
/// as [`load_stl`], [`load_obj`] or [`load_dae`].
pub fn load_mesh(path: impl AsRef<Path>, options: &LoadOptions) -> Result<TriMesh, GeometryError> {
    let path = path.as_ref();
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("stl") => load_stl(path, options),
        Some("obj") => load_obj(path, options),
        Some("dae") => load_dae(path, options),
        _ => Err(GeometryError::UnsupportedFormat {
            file: path.display().to_string(),
        }),
    }
}

/// Loads a binary or ASCII STL file.
///
/// # Errors
/// [`GeometryError::FileRead`] when the file cannot be read (`NotFound`
/// when it is missing); [`GeometryError::MalformedFile`] and
/// [`GeometryError::InvalidFileMesh`] as in the [module docs](self);
/// [`GeometryError::InvalidParameter`] for a bad scale.
pub fn load_stl(path: impl AsRef<Path>, options: &LoadOptions) -> Result<TriMesh, GeometryError> {
    let (file, bytes) = read_file(path.as_ref())?;
    stl_from_bytes(&file, &bytes, options)
}

/// Loads binary or ASCII STL from memory (named `<memory>` in errors).
///
/// # Errors
/// As [`load_stl`], except for [`GeometryError::FileRead`].
pub fn load_stl_bytes(bytes: &[u8], options: &LoadOptions) -> Result<TriMesh, GeometryError> {
    stl_from_bytes(MEMORY, bytes, options)
}

/// Loads a Wavefront OBJ file.
///
/// # Errors
/// As [`load_stl`], plus [`GeometryError::UnknownObject`] when
/// [`ObjectSelection::Named`] names no object of the file.
pub fn load_obj(path: impl AsRef<Path>, options: &LoadOptions) -> Result<TriMesh, GeometryError> {
    let (file, bytes) = read_file(path.as_ref())?;
    obj_from_bytes(&file, &bytes, options)
}

/// Loads Wavefront OBJ text from memory (named `<memory>` in errors).
///
/// # Errors
/// As [`load_obj`], except for [`GeometryError::FileRead`].
pub fn load_obj_str(text: &str, options: &LoadOptions) -> Result<TriMesh, GeometryError> {
    obj_from_str(MEMORY, text, options)
}

/// Loads Wavefront OBJ from bytes in memory, which must be UTF-8.
///
/// # Errors
/// As [`load_obj_str`]; invalid UTF-8 is a [`GeometryError::MalformedFile`]
/// naming its line.
pub fn load_obj_bytes(bytes: &[u8], options: &LoadOptions) -> Result<TriMesh, GeometryError> {
    obj_from_bytes(MEMORY, bytes, options)
}

/// Loads a COLLADA (`.dae`) file: its geometry placed by its visual scene,
/// in metres by its `<unit>` (see the [module docs](self)).
///
/// # Errors
/// As [`load_stl`], plus [`GeometryError::UnknownObject`] when
/// [`ObjectSelection::Named`] names no geometry of the file.
pub fn load_dae(path: impl AsRef<Path>, options: &LoadOptions) -> Result<TriMesh, GeometryError> {
    let (file, bytes) = read_file(path.as_ref())?;
    collada::dae_from_bytes(&file, &bytes, options)
}

/// Loads COLLADA from bytes in memory, which must be UTF-8 (named
/// `<memory>` in errors).
///
/// # Errors
/// As [`load_dae`], except for [`GeometryError::FileRead`].
pub fn load_dae_bytes(bytes: &[u8], options: &LoadOptions) -> Result<TriMesh, GeometryError> {
    collada::dae_from_bytes(MEMORY, bytes, options)
}

fn read_file(path: &Path) -> Result<(String, Vec<u8>), GeometryError> {
    let file = path.display().to_string();
    match std::fs::read(path) {
        Ok(bytes) => Ok((file, bytes)),
        Err(e) => Err(GeometryError::FileRead {
            file,
            kind: e.kind(),
            message: e.to_string(),
        }),
    }
}

fn check_scale(scale: f64) -> Result<(), GeometryError> {
    if scale > 0.0 && scale.is_finite() {
        Ok(())
    } else {
        Err(GeometryError::InvalidParameter {
            name: "scale",
            value: scale,
            why: "must be finite and positive",
        })
    }
}

fn malformed(file: &str, line: Option<usize>, message: impl Into<String>) -> GeometryError {
    GeometryError::MalformedFile {
        file: file.to_owned(),
        line,
        message: message.into(),
    }
}

/// Builds the mesh from welded vertices and triangles and names the file
/// (and, through `line_of_triangle`, the line) in validation errors.
fn finish(
    file: &str,
    vertices: Vec<DVec3>,
    indices: Vec<[u32; 3]>,
    options: &LoadOptions,
    line_of_triangle: impl Fn(usize) -> Option<usize>,
) -> Result<TriMesh, GeometryError> {
    let vertices = vertices.into_iter().map(|v| v * options.scale).collect();
    TriMesh::from_vertices_indices(vertices, indices, &options.mesh).map_err(|e| {
        let line = match e {
            GeometryError::DegenerateTriangle { triangle, .. } => line_of_triangle(triangle),
            _ => None,
        };
        GeometryError::InvalidFileMesh {
            file: file.to_owned(),
            line,
            source: Box::new(e),
        }
    })
}

// ---------------------------------------------------------------- STL ---

/// A reader over a byte slice that shows a zero in place of the first
/// byte, so `stl_io` does not take a binary file whose header starts with
/// `solid ` for ASCII.
struct HideAsciiMagic<'a>(Cursor<&'a [u8]>);

impl Read for HideAsciiMagic<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let at_start = self.0.position() == 0;
        let n = self.0.read(buf)?;
        if at_start && n > 0 {
            buf[0] = 0;
        }
        Ok(n)
    }
}

impl Seek for HideAsciiMagic<'_> {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        self.0.seek(pos)
    }
}

fn stl_from_bytes(
    file: &str,
    bytes: &[u8],
    options: &LoadOptions,
) -> Result<TriMesh, GeometryError> {
    check_scale(options.scale)?;
    let count = bytes
        .get(80..84)
        .map(|c| u64::from(u32::from_le_bytes([c[0], c[1], c[2], c[3]])));
    let exact_binary = count.is_some_and(|n| bytes.len() as u64 == 84 + 50 * n);
    let ascii_header =
        bytes.starts_with(b"solid") && bytes.get(5).is_none_or(|b| b.is_ascii_whitespace());
    // ASCII STL is text: a `solid` header on bytes that are not UTF-8 is
    // a binary header.
    let ascii = ascii_header && !exact_binary && std::str::from_utf8(bytes).is_ok();
    let facets = if ascii {
        read_ascii_stl(file, bytes)?
    } else {
        read_binary_stl(file, bytes, count).map_err(|e| match e {
            GeometryError::MalformedFile {
                file,
                line,
                message,
            } if ascii_header => GeometryError::MalformedFile {
                file,
                line,
                message: format!(
                    "{message} (read as binary: the file starts with `solid` but is not text)"
                ),
            },
            e => e,
        })?
    };
    // Share corners with identical coordinates (-0 = +0), in order of
    // first use.
    let mut index: HashMap<[u32; 3], u32> = HashMap::new();
    let mut vertices: Vec<DVec3> = Vec::new();
    let mut triangles = Vec::with_capacity(facets.len());
    for (f, corners) in facets.iter().enumerate() {
        let mut tri = [0u32; 3];
        for (k, c) in corners.iter().enumerate() {
            if !c.iter().all(|x| x.is_finite()) {
                return Err(malformed(
                    file,
                    None,
                    format!("facet {f}: corner {k} is not finite ({:?})", c),
                ));
            }
            let key = c.map(|x| (x + 0.0).to_bits());
            let next = vertices.len();
            if next > u32::MAX as usize {
                return Err(GeometryError::InvalidFileMesh {
                    file: file.to_owned(),
                    line: None,
                    source: Box::new(GeometryError::TooManyVertices { count: next + 1 }),
                });
            }
            tri[k] = *index.entry(key).or_insert_with(|| {
                vertices.push(DVec3::new(
                    f64::from(c[0]),
                    f64::from(c[1]),
                    f64::from(c[2]),
                ));
                next as u32
            });
        }
        triangles.push(tri);
    }
    let line_of = |t: usize| {
        if ascii {
            ascii_facet_line(bytes, t)
        } else {
            None
        }
    };
    finish(file, vertices, triangles, options, line_of)
}

fn read_binary_stl(
    file: &str,
    bytes: &[u8],
    count: Option<u64>,
) -> Result<Vec<[[f32; 3]; 3]>, GeometryError> {
    let Some(count) = count else {
        return Err(malformed(
            file,
            None,
            format!(
                "not an STL file: no ASCII `solid` header, and {} bytes are too few for a binary \
                 header (84)",
                bytes.len()
            ),
        ));
    };
    let needed = 84 + 50 * count;
    if (bytes.len() as u64) < needed {
        return Err(malformed(
            file,
            None,
            format!(
                "binary STL truncated: the header announces {count} facets ({needed} bytes), the \
                 file has {} bytes",
                bytes.len()
            ),
        ));
    }
    let mut reader = HideAsciiMagic(Cursor::new(bytes));
    read_facets(file, &mut reader, |_| None)
}

fn read_ascii_stl(file: &str, bytes: &[u8]) -> Result<Vec<[[f32; 3]; 3]>, GeometryError> {
    // `stl_io` wants `solid` and a space; accept any white space after it.
    let text: Cow<'_, [u8]> = if bytes.get(5) == Some(&b' ') {
        Cow::Borrowed(bytes)
    } else {
        let mut owned = b"solid ".to_vec();
        owned.extend_from_slice(&bytes[5..]);
        Cow::Owned(owned)
    };
    let mut reader = Cursor::new(&text[..]);
    read_facets(file, &mut reader, |f| ascii_facet_line(bytes, f))
}

/// Reads every facet; errors name the facet, and the line where
/// `line_of(facet)` knows it.
fn read_facets<R: Read + Seek>(
    file: &str,
    reader: &mut R,
    line_of: impl Fn(usize) -> Option<usize>,
) -> Result<Vec<[[f32; 3]; 3]>, GeometryError> {
    let facets = stl_io::create_stl_reader(reader)
        .map_err(|e| malformed(file, line_of(0), format!("not a readable STL file: {e}")))?;
    let mut out = Vec::new();
    for (f, facet) in facets.enumerate() {
        let facet = facet.map_err(|e| malformed(file, line_of(f), format!("facet {f}: {e}")))?;
        out.push(facet.vertices.map(|v| v.0));
    }
    Ok(out)
}

/// The 1-based line where facet `f` of an ASCII STL starts: the reader
/// skips blank lines, takes the first line as the `solid` header and then
/// seven lines per facet.
fn ascii_facet_line(bytes: &[u8], f: usize) -> Option<usize> {
    let target = f.checked_mul(7)?.checked_add(1)?;
    let mut seen = 0;
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let blank = line.iter().all(u8::is_ascii_whitespace);
        // The header line counts even when blank-looking.
        if i == 0 || !blank {
            if seen == target {
                return Some(i + 1);
            }
            seen += 1;
        }
    }
    None
}

// ---------------------------------------------------------------- OBJ ---

fn obj_from_bytes(
    file: &str,
    bytes: &[u8],
    options: &LoadOptions,
) -> Result<TriMesh, GeometryError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => obj_from_str(file, text, options),
        Err(e) => {
            let line = 1 + bytes[..e.valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            Err(malformed(file, Some(line), "invalid UTF-8"))
        }
    }
}

/// Name `tobj` gives faces before any `o` or `g` line.
const UNNAMED: &str = "unnamed_object";

/// What the pre-pass learned about an OBJ text.
struct ObjScan {
    /// Per face line: (1-based line, triangles it makes, object name id).
    faces: Vec<(usize, usize, usize)>,
    /// Object names, by id.
    names: Vec<String>,
    /// Whether the text must be cleaned before `tobj` reads it: polylines
    /// (which `tobj` would read as faces) or vertex colours (which `tobj`
    /// rejects at the first face unless every vertex has a valid one).
    needs_cleaning: bool,
}

fn obj_from_str(file: &str, text: &str, options: &LoadOptions) -> Result<TriMesh, GeometryError> {
    check_scale(options.scale)?;
    let scan = scan_obj(file, text)?;
    let cleaned: Cow<'_, str> = if scan.needs_cleaning {
        Cow::Owned(clean_obj(text))
    } else {
        Cow::Borrowed(text)
    };
    let load = tobj::LoadOptions {
        triangulate: true,
        ignore_points: true,
        ignore_lines: true,
        ..tobj::LoadOptions::default()
    };
    // Materials are of no use here; never open the files they name.
    let (models, _) = tobj::load_obj_buf(&mut cleaned.as_bytes(), &load, |_| {
        Err(tobj::LoadError::OpenFileFailed)
    })
    .map_err(|e| malformed(file, None, e.to_string()))?;

    let wanted = match &options.objects {
        ObjectSelection::All => None,
        ObjectSelection::Named(name) => {
            if !models.iter().any(|m| &m.name == name) {
                let mut available: Vec<String> = Vec::new();
                for m in &models {
                    if !available.contains(&m.name) {
                        available.push(m.name.clone());
                    }
                }
                return Err(GeometryError::UnknownObject {
                    file: file.to_owned(),
                    name: name.clone(),
                    available,
                });
            }
            Some(name.as_str())
        }
    };
    let mut positions: Vec<DVec3> = Vec::new();
    let mut triangles: Vec<[u32; 3]> = Vec::new();
    for model in models.iter().filter(|m| wanted.is_none_or(|n| m.name == n)) {
        let mesh = &model.mesh;
        let offset = positions.len();
        positions.extend(
            mesh.positions
                .chunks_exact(3)
                .map(|p| DVec3::new(p[0], p[1], p[2])),
        );
        for t in mesh.indices.chunks_exact(3) {
            let mut tri = [0u32; 3];
            for k in 0..3 {
                let global = offset + t[k] as usize;
                tri[k] = u32::try_from(global).map_err(|_| GeometryError::InvalidFileMesh {
                    file: file.to_owned(),
                    line: None,
                    source: Box::new(GeometryError::TooManyVertices { count: global + 1 }),
                })?;
            }
            triangles.push(tri);
        }
    }
    let (vertices, remap) = crate::mesh::weld(&positions);
    for tri in &mut triangles {
        *tri = tri.map(|i| remap[i as usize]);
    }
    // Triangle t of the mesh comes from the face line holding it, in file
    // order among the selected objects.
    let selected: Vec<(usize, usize)> = scan
        .faces
        .iter()
        .filter(|(_, _, name)| wanted.is_none_or(|n| scan.names[*name] == n))
        .map(|&(line, count, _)| (line, count))
        .collect();
    let line_of = |t: usize| {
        let mut first = 0;
        selected.iter().find_map(|&(line, count)| {
            first += count;
            (t < first).then_some(line)
        })
    };
    finish(file, vertices, triangles, options, line_of)
}

/// The pre-pass: checks every line `tobj` would interpret the way `tobj`
/// does, so that errors name their line and out-of-range face indices
/// (which `tobj` may turn into overflowing arithmetic) never reach it.
fn scan_obj(file: &str, text: &str) -> Result<ObjScan, GeometryError> {
    let mut scan = ObjScan {
        faces: Vec::new(),
        names: vec![UNNAMED.to_owned()],
        needs_cleaning: false,
    };
    let mut name = 0;
    // Counts of v, vt, vn lines so far, and of coloured vertices.
    let (mut nv, mut nvt, mut nvn, mut coloured) = (0usize, 0usize, 0usize, 0usize);
    for (i, line) in text.lines().enumerate() {
        let lineno = i + 1;
        let err = |message: String| malformed(file, Some(lineno), message);
        let mut words = line.split_whitespace();
        match words.next() {
            Some("v") => {
                let xyz = numbers(&mut words, 3)
                    .ok_or_else(|| err("a vertex needs three numbers: `v x y z`".into()))?;
                let rest: Vec<&str> = words.collect();
                let w = match rest.len() {
                    0 => 1.0,
                    1 => rest[0]
                        .parse::<f64>()
                        .map_err(|_| err(format!("vertex weight `{}` is not a number", rest[0])))?,
                    3 => {
                        coloured += 1;
                        1.0
                    }
                    n => {
                        return Err(err(format!(
                            "a vertex has 3 coordinates, then a weight or 3 colour values; \
                             this one has {n} extra values"
                        )));
                    }
                };
                if w == 0.0 {
                    return Err(err("vertex weight is zero".into()));
                }
                if !xyz.iter().all(|x| (x / w).is_finite()) {
                    return Err(err(format!(
                        "vertex ({}, {}, {}) / w = {w} is not finite",
                        xyz[0], xyz[1], xyz[2]
                    )));
                }
                nv += 1;
            }
            Some("vt") => {
                numbers(&mut words, 2).ok_or_else(|| {
                    err("a texture coordinate needs two numbers: `vt u v`".into())
                })?;
                nvt += 1;
            }
            Some("vn") => {
                numbers(&mut words, 3)
                    .ok_or_else(|| err("a normal needs three numbers: `vn x y z`".into()))?;
                nvn += 1;
            }
            Some("f") => {
                let mut corners = 0usize;
                for corner in words {
                    check_corner(corner, [nv, nvt, nvn]).map_err(&err)?;
                    corners += 1;
                }
                if corners == 0 {
                    return Err(err("a face needs corners: `f v1 v2 v3 ...`".into()));
                }
                scan.faces.push((lineno, corners.saturating_sub(2), name));
            }
            Some("l") => scan.needs_cleaning = true,
            Some("o" | "g") => {
                // As `tobj` names it: the line after its first character,
                // trimmed.
                let first = line.chars().next().map_or(0, char::len_utf8);
                let n = line.get(first..).unwrap_or("").trim();
                let n = if n.is_empty() { UNNAMED } else { n };
                name = match scan.names.iter().position(|m| m == n) {
                    Some(id) => id,
                    None => {
                        scan.names.push(n.to_owned());
                        scan.names.len() - 1
                    }
                };
            }
            Some("usemtl") => {
                let material = line.split_once(' ').map_or("", |(_, m)| m).trim();
                if material.is_empty() {
                    return Err(err("`usemtl` needs a material name".into()));
                }
            }
            _ => {}
        }
    }
    if coloured > 0 {
        scan.needs_cleaning = true;
    }
    Ok(scan)
}

/// The first `n` words as numbers, or `None` if there are fewer or one is
/// not a number.
fn numbers<'a>(words: &mut impl Iterator<Item = &'a str>, n: usize) -> Option<Vec<f64>> {
    let out: Vec<f64> = words
        .take(n)
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    (out.len() == n).then_some(out)
}

/// Checks one face corner `v`, `v/vt`, `v//vn` or `v/vt/vn` against the
/// counts of vertices, texture coordinates and normals defined above.
fn check_corner(corner: &str, defined: [usize; 3]) -> Result<(), String> {
    const WHAT: [&str; 3] = ["vertex", "texture coordinate", "normal"];
    let parts: Vec<&str> = corner.split('/').collect();
    if parts.len() > 3 {
        return Err(format!(
            "face corner `{corner}` has more than three indices"
        ));
    }
    if parts[0].is_empty() {
        return Err(format!("face corner `{corner}` has no vertex index"));
    }
    for (k, part) in parts.iter().enumerate() {
        if part.is_empty() {
            continue;
        }
        let x: isize = part
            .parse()
            .map_err(|_| format!("face corner `{corner}`: `{part}` is not an index"))?;
        let n = defined[k];
        // Positive: 1..=n; negative: relative to the last one defined.
        if x == 0 || x.unsigned_abs() > n {
            let which = WHAT[k];
            return Err(if x == 0 {
                format!("face corner `{corner}`: {which} index 0 (OBJ indices start at 1)")
            } else if x > 0 {
                format!(
                    "face corner `{corner}` refers to {which} {x}, but only {n} are defined above"
                )
            } else {
                format!(
                    "face corner `{corner}` refers to {which} {x} (relative), but only {n} are \
                     defined above"
                )
            });
        }
    }
    Ok(())
}

/// The text with polylines blanked out and vertex colours dropped, line
/// for line (so line numbers stay valid).
fn clean_obj(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let mut words = line.split_whitespace();
        match words.next() {
            Some("l") => {}
            Some("v") => {
                let coords: Vec<&str> = words.collect();
                // A weight is kept; three colour values are dropped.
                let keep = if coords.len() == 6 { 3 } else { coords.len() };
                out.push('v');
                for c in &coords[..keep] {
                    out.push(' ');
                    out.push_str(c);
                }
            }
            _ => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facet_lines_skip_blank_lines() {
        let text = b"solid x\n\nfacet normal 0 0 1\n outer loop\n\n vertex 0 0 0\n vertex 1 0 0\n vertex 0 1 0\n endloop\nendfacet\nfacet normal 0 0 1\n";
        assert_eq!(ascii_facet_line(text, 0), Some(3));
        assert_eq!(ascii_facet_line(text, 1), Some(11));
        assert_eq!(ascii_facet_line(text, 2), None);
    }

    #[test]
    fn corners() {
        assert!(check_corner("1", [1, 0, 0]).is_ok());
        assert!(check_corner("1//1", [1, 0, 1]).is_ok());
        assert!(check_corner("-1/-1/-1", [1, 1, 1]).is_ok());
        assert!(check_corner("1/1", [1, 0, 0]).is_err());
        assert!(check_corner("2", [1, 0, 0]).is_err());
        assert!(check_corner("-2", [1, 0, 0]).is_err());
        assert!(check_corner("0", [1, 0, 0]).is_err());
        assert!(check_corner("/1", [1, 1, 0]).is_err());
        assert!(check_corner("1/1/1/1", [1, 1, 1]).is_err());
        assert!(check_corner("1/x", [1, 1, 1]).is_err());
        assert!(check_corner("-9223372036854775808", [1, 1, 1]).is_err());
    }

    #[test]
    fn cleaning_keeps_lines() {
        let text = "v 1 2 3 0.5 0.5 0.5\nv 1 2 3 2\nl 1 2\nf 1 2 3\n";
        assert_eq!(clean_obj(text), "v 1 2 3\nv 1 2 3 2\n\nf 1 2 3\n");
    }
}
