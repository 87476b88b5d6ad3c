//! COLLADA (`.dae`) import: `mesh-loader` reads the geometry, this module
//! checks the document first and places the geometry itself.
//!
//! **Division of work.** `mesh-loader` 0.1.13 turns each `<geometry>` into
//! triangles in the geometry's own frame. Its handling of the rest is not
//! fit for collision geometry, so the document it sees holds only
//! `<asset>` and `<library_geometries>` (every other top-level element is
//! blanked out, line breaks kept, so its error positions stay right) and
//! this module does the rest on the same XML tree (`roxmltree`):
//!
//! - it applies `<unit meter>` and the node transforms in `f64` (the
//!   crate applies them in `f32`, treats any transform within 0.01 of the
//!   identity as the identity, composes a node's transform with its
//!   parent's in the wrong order and places a geometry instanced twice
//!   only once);
//! - it checks, before the crate sees them, everything the crate indexes,
//!   unwraps or allocates from without checking: references between
//!   `<input>`, `<source>`, `<accessor>` and arrays, accessor sizes,
//!   element counts against the data present, and every index of every
//!   `<p>` against the data it indexes. A document the crate would panic
//!   on, loop on or allocate without bound for is a
//!   [`GeometryError::MalformedFile`] naming the line instead.
//!
//! What is not supported is an error, never silently dropped geometry:
//! `<tristrips>` (the crate triangulates strips as fans), polygons with
//! fewer than three corners or with holes (`<ph>`), `<convex_mesh>`,
//! `<spline>` and `<brep>` geometry, skinned meshes
//! (`<instance_controller>`), `<lookat>` and `<skew>` transforms, and
//! references into other files.

use std::collections::HashMap;

use glam::{DAffine3, DMat4, DQuat, DVec3};
use roxmltree::{Document, Node};

use super::{LoadOptions, ObjectSelection, check_scale, finish, malformed};
use crate::{GeometryError, TriMesh};

/// How deep nodes may nest, counting `<instance_node>` hops: a cycle of
/// `<instance_node>` references stops here.
const MAX_DEPTH: usize = 256;

/// Top-level elements `mesh-loader` is shown; the others are blanked.
const KEPT: [&str; 2] = ["asset", "library_geometries"];

/// Reads a COLLADA document (see the module docs of [`crate::io`]).
pub(super) fn dae_from_bytes(
    file: &str,
    bytes: &[u8],
    options: &LoadOptions,
) -> Result<TriMesh, GeometryError> {
    check_scale(options.scale)?;
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let line = 1 + bytes[..e.valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            return Err(malformed(file, Some(line), "invalid UTF-8"));
        }
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let doc = Document::parse(text).map_err(|e| {
        malformed(
            file,
            Some(e.pos().row as usize),
            format!("not well-formed XML: {e}"),
        )
    })?;
    let cx = Cx { file, doc: &doc };
    let root = doc.root_element();
    if root.tag_name().name() != "COLLADA" {
        return Err(cx.err(
            root,
            format!(
                "root element is <{}>, not <COLLADA>",
                root.tag_name().name()
            ),
        ));
    }
    let unit = cx.unit(root)?;
    let geometries = cx.check_geometries(root)?;
    let instances = cx.instances(root, &geometries)?;
    let wanted = match &options.objects {
        ObjectSelection::All => None,
        ObjectSelection::Named(name) => {
            if !geometries.iter().any(|g| g.matches(name)) {
                return Err(GeometryError::UnknownObject {
                    file: file.to_owned(),
                    name: name.clone(),
                    available: geometries.iter().map(|g| g.id.to_owned()).collect(),
                });
            }
            Some(name.as_str())
        }
    };

    let shown = blank_except_kept(text, root);
    let scene = mesh_loader::collada::from_str(&shown)
        .map_err(|e| malformed(file, None, format!("COLLADA: {e}")))?;
    let by_id: HashMap<&str, &mesh_loader::Mesh> =
        scene.meshes.iter().map(|m| (m.name.as_str(), m)).collect();

    let mut positions: Vec<DVec3> = Vec::new();
    let mut triangles: Vec<[u32; 3]> = Vec::new();
    for (g, placement) in &instances {
        let geometry = &geometries[*g];
        if wanted.is_some_and(|n| !geometry.matches(n)) {
            continue;
        }
        let Some(mesh) = by_id.get(geometry.id) else {
            return Err(malformed(
                file,
                Some(geometry.line),
                format!(
                    "geometry `{}` came out of the COLLADA reader empty",
                    geometry.id
                ),
            ));
        };
        // Coordinates are in the file's unit; the unit scales the node
        // translations too, so it is applied last.
        let to_metres = DAffine3::from_scale(DVec3::splat(unit)) * *placement;
        let mirrored = placement.matrix3.determinant() < 0.0;
        let offset = positions.len();
        positions.extend(mesh.vertices.iter().map(|v| {
            to_metres.transform_point3(DVec3::new(
                f64::from(v[0]),
                f64::from(v[1]),
                f64::from(v[2]),
            ))
        }));
        for face in &mesh.faces {
            let mut tri = [0u32; 3];
            for k in 0..3 {
                let local = face[k] as usize;
                if local >= mesh.vertices.len() {
                    return Err(malformed(
                        file,
                        Some(geometry.line),
                        format!(
                            "geometry `{}`: the reader gave a face with vertex {local} of {}",
                            geometry.id,
                            mesh.vertices.len()
                        ),
                    ));
                }
                let global = offset + local;
                tri[k] = u32::try_from(global).map_err(|_| GeometryError::InvalidFileMesh {
                    file: file.to_owned(),
                    line: None,
                    source: Box::new(GeometryError::TooManyVertices { count: global + 1 }),
                })?;
            }
            // A mirroring transform turns the winding; turn it back so the
            // corner order still gives the outward side.
            if mirrored {
                tri.swap(1, 2);
            }
            triangles.push(tri);
        }
    }
    let (vertices, remap) = crate::mesh::weld(&positions);
    for tri in &mut triangles {
        *tri = tri.map(|i| remap[i as usize]);
    }
    finish(file, vertices, triangles, options, |_| None)
}

/// The text with every top-level element but [`KEPT`] replaced by spaces
/// (line breaks kept, so positions in later errors stay right).
fn blank_except_kept(text: &str, root: Node<'_, '_>) -> String {
    let mut out = text.as_bytes().to_vec();
    for child in root.children().filter(Node::is_element) {
        if KEPT.contains(&child.tag_name().name()) {
            continue;
        }
        for b in &mut out[child.range()] {
            if *b != b'\n' && *b != b'\r' {
                *b = b' ';
            }
        }
    }
    // Whole elements (which start at `<` and end after `>`) were replaced
    // byte by byte with ASCII, so the text is still UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// A `<geometry>` of the file.
struct Geometry<'a> {
    id: &'a str,
    name: Option<&'a str>,
    line: usize,
}

impl Geometry<'_> {
    fn matches(&self, name: &str) -> bool {
        self.id == name || self.name == Some(name)
    }
}

/// An `<accessor>`: how many items, how far apart, which array.
struct Accessor<'a> {
    count: u64,
    stride: u64,
    array: &'a str,
    /// At least `min` `<param>`s, all of type `float`, for `min` = 2 and 3.
    float_params: [bool; 2],
    line: usize,
}

/// An array of a `<source>`: whether it holds floats, and how many values
/// the reader will keep.
struct Array {
    float: bool,
    len: u64,
}

/// One `<input>`.
#[derive(Clone, Copy)]
struct Input<'a> {
    semantic: &'a str,
    source: &'a str,
    offset: u64,
    set: u64,
    line: usize,
}

struct Cx<'a, 'input> {
    file: &'a str,
    doc: &'a Document<'input>,
}

/// XML white space (the reader's definition: no form feed).
fn is_xml_space(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | ' ')
}

/// The white-space separated words of an element's first text child (the
/// text the reader parses).
fn words<'a>(node: Node<'a, '_>) -> impl Iterator<Item = &'a str> {
    node.text()
        .unwrap_or("")
        .split(is_xml_space)
        .filter(|w| !w.is_empty())
}

fn children<'a, 'input>(
    node: Node<'a, 'input>,
    name: &'static str,
) -> impl Iterator<Item = Node<'a, 'input>> {
    node.children()
        .filter(move |c| c.is_element() && c.tag_name().name() == name)
}

impl<'a, 'input: 'a> Cx<'a, 'input> {
    fn line(&self, node: Node<'_, '_>) -> usize {
        self.doc.text_pos_at(node.range().start).row as usize
    }

    fn err(&self, node: Node<'_, '_>, message: impl Into<String>) -> GeometryError {
        malformed(self.file, Some(self.line(node)), message)
    }

    fn attr(&self, node: Node<'a, 'input>, name: &str) -> Result<&'a str, GeometryError> {
        node.attribute(name).ok_or_else(|| {
            self.err(
                node,
                format!("<{}> needs a `{name}` attribute", node.tag_name().name()),
            )
        })
    }

    fn uint(
        &self,
        node: Node<'a, 'input>,
        name: &str,
        default: Option<u32>,
    ) -> Result<u64, GeometryError> {
        match (node.attribute(name), default) {
            (None, Some(d)) => Ok(u64::from(d)),
            (None, None) => Err(self.err(
                node,
                format!("<{}> needs a `{name}` attribute", node.tag_name().name()),
            )),
            (Some(v), _) => v.parse::<u32>().map(u64::from).map_err(|_| {
                self.err(
                    node,
                    format!(
                        "<{}> {name}=\"{v}\" is not a count (0 to {})",
                        node.tag_name().name(),
                        u32::MAX
                    ),
                )
            }),
        }
    }

    /// A same-document reference `#id`, without the `#`.
    fn url(&self, node: Node<'a, 'input>, name: &str) -> Result<&'a str, GeometryError> {
        let url = self.attr(node, name)?;
        url.strip_prefix('#').ok_or_else(|| {
            self.err(
                node,
                format!(
                    "<{}> {name}=\"{url}\": only references into the same file (`#id`) are \
                     supported",
                    node.tag_name().name()
                ),
            )
        })
    }

    /// The `<asset><unit meter>` of the document: metres per file unit.
    fn unit(&self, root: Node<'a, 'input>) -> Result<f64, GeometryError> {
        let Some(unit) = children(root, "asset")
            .next()
            .and_then(|a| children(a, "unit").next())
        else {
            return Ok(1.0);
        };
        let Some(meter) = unit.attribute("meter") else {
            return Ok(1.0);
        };
        match meter.trim_matches(is_xml_space).parse::<f64>() {
            Ok(m) if m.is_finite() && m > 0.0 => Ok(m),
            _ => Err(self.err(
                unit,
                format!("<unit meter=\"{meter}\"> is not a finite positive number"),
            )),
        }
    }

    /// Checks every geometry the reader will build and returns them in
    /// file order.
    fn check_geometries(&self, root: Node<'a, 'input>) -> Result<Vec<Geometry<'a>>, GeometryError> {
        // The reader keeps accessors (by `<source>` id) and arrays (by
        // their own id) in maps shared by all geometries; duplicates are
        // rejected so that there is no question which one it uses.
        let mut accessors: HashMap<&'a str, Accessor<'a>> = HashMap::new();
        let mut arrays: HashMap<&'a str, Array> = HashMap::new();
        let mut geometries: Vec<Geometry<'a>> = Vec::new();
        let mut meshes: Vec<(Node<'a, 'input>, Node<'a, 'input>)> = Vec::new();
        for library in children(root, "library_geometries") {
            for g in library.children().filter(Node::is_element) {
                match g.tag_name().name() {
                    "geometry" => {}
                    // The reader rejects anything else itself.
                    _ => continue,
                }
                let id = self.attr(g, "id")?;
                if geometries.iter().any(|o| o.id == id) {
                    return Err(self.err(g, format!("two geometries have the id `{id}`")));
                }
                let mut mesh = None;
                for c in g.children().filter(Node::is_element) {
                    match c.tag_name().name() {
                        "mesh" if mesh.is_none() => mesh = Some(c),
                        "mesh" => {
                            return Err(self.err(c, format!("geometry `{id}` has two <mesh>es")));
                        }
                        other @ ("convex_mesh" | "spline" | "brep") => {
                            return Err(
                                self.err(c, format!("geometry `{id}`: <{other}> is not supported"))
                            );
                        }
                        _ => {}
                    }
                }
                let Some(mesh) = mesh else {
                    return Err(self.err(g, format!("geometry `{id}` has no <mesh>")));
                };
                geometries.push(Geometry {
                    id,
                    name: g.attribute("name"),
                    line: self.line(g),
                });
                for source in children(mesh, "source") {
                    self.source(source, &mut accessors, &mut arrays)?;
                }
                meshes.push((g, mesh));
            }
        }
        for (g, mesh) in meshes {
            self.check_mesh(g, mesh, &accessors, &arrays)?;
        }
        Ok(geometries)
    }

    fn source(
        &self,
        source: Node<'a, 'input>,
        accessors: &mut HashMap<&'a str, Accessor<'a>>,
        arrays: &mut HashMap<&'a str, Array>,
    ) -> Result<(), GeometryError> {
        let id = self.attr(source, "id")?;
        let mut array_seen = false;
        for c in source.children().filter(Node::is_element) {
            let kind = c.tag_name().name();
            match kind {
                "float_array" | "IDREF_array" | "Name_array" => {
                    if array_seen {
                        return Err(self.err(c, format!("source `{id}` has two arrays")));
                    }
                    array_seen = true;
                    let array_id = self.attr(c, "id")?;
                    let count = self.uint(c, "count", None)?;
                    let present = words(c).count() as u64;
                    let float = kind == "float_array";
                    if !float && present > 0 {
                        // The reader loops forever on the words of these.
                        return Err(self.err(
                            c,
                            format!("source `{id}`: a non-empty <{kind}> is not supported"),
                        ));
                    }
                    if present > 0 && count > present {
                        return Err(self.err(
                            c,
                            format!(
                                "<{kind}> `{array_id}` announces {count} values but holds {present}"
                            ),
                        ));
                    }
                    // An empty array is kept empty whatever its count.
                    let len = if present == 0 { 0 } else { count };
                    if arrays.insert(array_id, Array { float, len }).is_some() {
                        return Err(self.err(c, format!("two arrays have the id `{array_id}`")));
                    }
                }
                "technique_common" => {
                    for a in children(c, "accessor") {
                        let params: Vec<Node<'_, '_>> = children(a, "param").collect();
                        let all_float = params.iter().all(|p| p.attribute("type") == Some("float"));
                        let accessor = Accessor {
                            count: self.uint(a, "count", None)?,
                            stride: self.uint(a, "stride", Some(1))?,
                            array: self.url(a, "source")?,
                            float_params: [
                                all_float && params.len() >= 2,
                                all_float && params.len() >= 3,
                            ],
                            line: self.line(a),
                        };
                        if accessors.insert(id, accessor).is_some() {
                            return Err(self.err(a, format!("source `{id}` has two accessors")));
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn input(&self, node: Node<'a, 'input>, shared: bool) -> Result<Input<'a>, GeometryError> {
        Ok(Input {
            semantic: self.attr(node, "semantic")?,
            source: self.url(node, "source")?,
            offset: if shared {
                self.uint(node, "offset", None)?
            } else {
                0
            },
            set: if shared {
                self.uint(node, "set", Some(0))?
            } else {
                0
            },
            line: self.line(node),
        })
    }

    /// The number of items of the data an input reads, as the reader will
    /// hold them, after checking that the reader can read it; `min` is the
    /// number of components it needs (3 for positions, normals and
    /// colours, 2 for texture coordinates). `None` when the reader skips
    /// the data (too few components).
    fn items(
        &self,
        input: &Input<'a>,
        min: usize,
        accessors: &HashMap<&'a str, Accessor<'a>>,
        arrays: &HashMap<&'a str, Array>,
    ) -> Result<Option<u64>, GeometryError> {
        let at = |m: String| malformed(self.file, Some(input.line), m);
        let acc = accessors.get(input.source).ok_or_else(|| {
            at(format!(
                "{} input: no <source> with an accessor has the id `{}`",
                input.semantic, input.source
            ))
        })?;
        let array = arrays.get(acc.array).ok_or_else(|| {
            malformed(
                self.file,
                Some(acc.line),
                format!(
                    "accessor of `{}`: no array has the id `{}`",
                    input.source, acc.array
                ),
            )
        })?;
        if !array.float {
            return Err(malformed(
                self.file,
                Some(acc.line),
                format!(
                    "accessor of `{}`: array `{}` does not hold floats",
                    input.source, acc.array
                ),
            ));
        }
        if acc.stride < min as u64 || !acc.float_params[min - 2] {
            return Ok(None);
        }
        if acc.count.saturating_mul(acc.stride) > array.len {
            return Err(malformed(
                self.file,
                Some(acc.line),
                format!(
                    "accessor of `{}`: {} items of stride {} need {} values, array `{}` has {}",
                    input.source,
                    acc.count,
                    acc.stride,
                    u128::from(acc.count) * u128::from(acc.stride),
                    acc.array,
                    array.len
                ),
            ));
        }
        if min == 2 {
            // Texture coordinates are read in chunks of `stride` up to the
            // array's end, and a last chunk of one value cannot be read.
            if array.len % acc.stride == 1 {
                return Err(malformed(
                    self.file,
                    Some(acc.line),
                    format!(
                        "accessor of `{}`: array `{}` ends in a partial item",
                        input.source, acc.array
                    ),
                ));
            }
            return Ok(Some(array.len.div_ceil(acc.stride)));
        }
        if acc.count == 0 {
            return Err(malformed(
                self.file,
                Some(acc.line),
                format!("accessor of `{}` has count 0", input.source),
            ));
        }
        Ok(Some(acc.count))
    }

    fn check_mesh(
        &self,
        geometry: Node<'a, 'input>,
        mesh: Node<'a, 'input>,
        accessors: &HashMap<&'a str, Accessor<'a>>,
        arrays: &HashMap<&'a str, Array>,
    ) -> Result<(), GeometryError> {
        let gid = geometry.attribute("id").unwrap_or("");
        let Some(vertices) = children(mesh, "vertices").next() else {
            return Err(self.err(mesh, format!("geometry `{gid}` has no <vertices>")));
        };
        let vid = self.attr(vertices, "id")?;
        // Per semantic, the last input (as the reader keeps it).
        let mut vin: HashMap<&str, Input<'a>> = HashMap::new();
        for i in children(vertices, "input") {
            let i = self.input(i, false)?;
            vin.insert(i.semantic, i);
        }
        if !vin.contains_key("POSITION") {
            return Err(self.err(
                vertices,
                format!("<vertices> `{vid}` has no POSITION input"),
            ));
        }
        for prim in mesh.children().filter(Node::is_element) {
            let kind = prim.tag_name().name();
            match kind {
                "triangles" | "polylist" | "polygons" | "trifans" | "lines" | "linestrips" => {}
                "tristrips" => {
                    return Err(self.err(
                        prim,
                        format!("geometry `{gid}`: <tristrips> is not supported"),
                    ));
                }
                _ => continue,
            }
            self.check_primitive(gid, vid, &vin, prim, accessors, arrays)?;
        }
        Ok(())
    }

    fn check_primitive(
        &self,
        gid: &str,
        vid: &str,
        vin: &HashMap<&str, Input<'a>>,
        prim: Node<'a, 'input>,
        accessors: &HashMap<&'a str, Accessor<'a>>,
        arrays: &HashMap<&'a str, Array>,
    ) -> Result<(), GeometryError> {
        let kind = prim.tag_name().name();
        let err = |m: String| self.err(prim, format!("geometry `{gid}`, <{kind}>: {m}"));
        let count = self.uint(prim, "count", None)?;
        let mut inputs = Vec::new();
        for i in children(prim, "input") {
            let i = self.input(i, true)?;
            if i.offset >= u64::from(u32::MAX) {
                return Err(err(format!("input offset {} is too large", i.offset)));
            }
            inputs.push(i);
        }
        let stride = inputs.iter().map(|i| i.offset + 1).max().unwrap_or(0);
        if children(prim, "ph").next().is_some() {
            return Err(err("polygons with holes (<ph>) are not supported".into()));
        }
        // The reader skips the indices of an empty primitive (but still
        // reads the data its inputs name).
        let ps: Vec<Node<'_, '_>> = if count == 0 {
            Vec::new()
        } else {
            children(prim, "p").collect()
        };
        if count > 0 && stride == 0 {
            return Err(err("indices but no <input>".into()));
        }
        let mut indices: Vec<Vec<u64>> = Vec::with_capacity(ps.len());
        for p in &ps {
            let mut list = Vec::new();
            for w in words(*p) {
                list.push(w.parse::<u32>().map(u64::from).map_err(|_| {
                    self.err(*p, format!("geometry `{gid}`: `{w}` is not an index"))
                })?);
            }
            indices.push(list);
        }
        let total: u64 = indices.iter().map(|l| l.len() as u64).sum();
        match kind {
            _ if count == 0 => {}
            "triangles" | "lines" | "polylist" => {
                if ps.len() != 1 {
                    return Err(err(format!("{} <p> elements, expected one", ps.len())));
                }
                let corners = match kind {
                    "triangles" => u128::from(count) * 3,
                    "lines" => u128::from(count) * 2,
                    _ => {
                        // The `<vcount>` must come before the `<p>` and
                        // hold `count` polygon sizes of at least three.
                        let vcount = children(prim, "vcount")
                            .next()
                            .ok_or_else(|| err("no <vcount>".into()))?;
                        if vcount.range().start > ps[0].range().start {
                            return Err(err("<vcount> after <p>".into()));
                        }
                        let mut sum = 0u128;
                        let mut seen = 0u64;
                        for w in words(vcount).take(usize::try_from(count).unwrap_or(usize::MAX)) {
                            let n = w.parse::<u32>().map_err(|_| {
                                self.err(vcount, format!("geometry `{gid}`: `{w}` is not a count"))
                            })?;
                            if n < 3 {
                                return Err(self.err(
                                    vcount,
                                    format!(
                                        "geometry `{gid}`: a polygon of {n} corners (at least 3 \
                                         are needed)"
                                    ),
                                ));
                            }
                            sum += u128::from(n);
                            seen += 1;
                        }
                        if seen < count {
                            return Err(self.err(
                                vcount,
                                format!("geometry `{gid}`: {count} polygons, {seen} sizes"),
                            ));
                        }
                        sum
                    }
                };
                if corners * u128::from(stride) != u128::from(total) {
                    return Err(err(format!(
                        "{count} primitives of {corners} corners and {stride} indices each need \
                         {} indices, <p> has {total}",
                        corners * u128::from(stride)
                    )));
                }
            }
            _ => {
                // One `<p>` per polygon, strip or fan.
                if count > ps.len() as u64 {
                    return Err(err(format!("count {count} but {} <p> elements", ps.len())));
                }
                let min = if kind == "linestrips" { 2 } else { 3 };
                for (p, list) in ps.iter().zip(&indices) {
                    let n = list.len() as u64;
                    if !n.is_multiple_of(stride) || n / stride < min {
                        return Err(self.err(
                            *p,
                            format!(
                                "geometry `{gid}`: <p> with {n} indices, not a multiple of {stride} \
                                 for at least {min} corners"
                            ),
                        ));
                    }
                }
            }
        }

        // Which data each index column reads, as the reader picks it.
        let last = |semantic: &str| {
            inputs
                .iter()
                .rev()
                .find(|i| i.semantic == semantic)
                .copied()
        };
        let Some(vertex) = inputs
            .iter()
            .rev()
            .find(|i| i.semantic == "VERTEX" && i.set == 0)
            .copied()
        else {
            // Without one the reader makes no triangles: an error where
            // there are indices, nothing to read otherwise.
            return if count == 0 {
                Ok(())
            } else {
                Err(err("no VERTEX input".into()))
            };
        };
        if vertex.source != vid {
            return Err(malformed(
                self.file,
                Some(vertex.line),
                format!(
                    "geometry `{gid}`: VERTEX input `{}` is not the mesh's <vertices> `{vid}`",
                    vertex.source
                ),
            ));
        }
        let normal = inputs
            .iter()
            .rev()
            .find(|i| i.semantic == "NORMAL" && i.set == 0)
            .copied();
        let mut texcoords: Vec<Input<'a>> = inputs
            .iter()
            .filter(|i| i.semantic == "TEXCOORD")
            .copied()
            .collect();
        texcoords.sort_by_key(|i| i.set);
        // (data input, index offset, components needed)
        let mut columns: Vec<(Input<'a>, u64, usize)> = vec![(vin["POSITION"], vertex.offset, 3)];
        let from_vertices = |s: &str, min: usize| vin.get(s).map(|i| (*i, vertex.offset, min));
        columns.extend(
            normal
                .map(|n| (n, n.offset, 3))
                .or_else(|| from_vertices("NORMAL", 3)),
        );
        columns.extend(
            texcoords
                .first()
                .map(|t| (*t, t.offset, 2))
                .or_else(|| from_vertices("TEXCOORD", 2)),
        );
        columns.extend(
            last("COLOR")
                .map(|c| (c, c.offset, 3))
                .or_else(|| from_vertices("COLOR", 3)),
        );
        for (k, (input, offset, min)) in columns.into_iter().enumerate() {
            let items = self.items(&input, min, accessors, arrays)?;
            let Some(items) = items else {
                if k == 0 {
                    return Err(malformed(
                        self.file,
                        Some(input.line),
                        format!(
                            "geometry `{gid}`: positions `{}` need an accessor of stride 3 or \
                             more with three float params",
                            input.source
                        ),
                    ));
                }
                continue;
            };
            for (p, list) in ps.iter().zip(&indices) {
                let bad = list
                    .iter()
                    .skip(offset as usize)
                    .step_by(stride as usize)
                    .find(|&&i| i >= items);
                if let Some(i) = bad {
                    return Err(self.err(
                        *p,
                        format!(
                            "geometry `{gid}`: index {i} of the {} input, which has {items} items",
                            input.semantic
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Every geometry instance to load, with its placement (file units):
    /// the instances of the visual scene `<scene>` names (or the first
    /// visual scene), or, in a file without visual scenes, every geometry
    /// where it is defined.
    fn instances(
        &self,
        root: Node<'a, 'input>,
        geometries: &[Geometry<'a>],
    ) -> Result<Vec<(usize, DAffine3)>, GeometryError> {
        let scenes: Vec<Node<'_, '_>> = children(root, "library_visual_scenes")
            .flat_map(|l| children(l, "visual_scene"))
            .collect();
        let named = children(root, "scene")
            .next()
            .and_then(|s| children(s, "instance_visual_scene").next());
        let scene = match named {
            Some(instance) => {
                let url = self.url(instance, "url")?;
                Some(
                    *scenes
                        .iter()
                        .find(|s| s.attribute("id") == Some(url))
                        .ok_or_else(|| {
                            self.err(instance, format!("no <visual_scene> has the id `{url}`"))
                        })?,
                )
            }
            None => scenes.first().copied(),
        };
        let Some(scene) = scene else {
            return Ok((0..geometries.len())
                .map(|g| (g, DAffine3::IDENTITY))
                .collect());
        };
        let mut out = Vec::new();
        for node in children(scene, "node") {
            self.walk(node, DAffine3::IDENTITY, 0, geometries, &mut out)?;
        }
        Ok(out)
    }

    fn walk(
        &self,
        node: Node<'a, 'input>,
        parent: DAffine3,
        depth: usize,
        geometries: &[Geometry<'a>],
        out: &mut Vec<(usize, DAffine3)>,
    ) -> Result<(), GeometryError> {
        if depth > MAX_DEPTH {
            return Err(self.err(
                node,
                format!("nodes nest deeper than {MAX_DEPTH} (a cycle of <instance_node>?)"),
            ));
        }
        let mut local = DAffine3::IDENTITY;
        let mut instances = Vec::new();
        for c in node.children().filter(Node::is_element) {
            let kind = c.tag_name().name();
            match kind {
                "matrix" | "translate" | "rotate" | "scale" => {
                    local *= self.transform(c)?;
                }
                "lookat" | "skew" => {
                    return Err(self.err(c, format!("<{kind}> transforms are not supported")));
                }
                "instance_controller" => {
                    return Err(self.err(
                        c,
                        "skinned meshes (<instance_controller>) are not supported",
                    ));
                }
                "instance_geometry" | "instance_node" | "node" => instances.push(c),
                _ => {}
            }
        }
        let world = parent * local;
        for c in instances {
            match c.tag_name().name() {
                "instance_geometry" => {
                    let url = self.url(c, "url")?;
                    let g = geometries
                        .iter()
                        .position(|g| g.id == url)
                        .ok_or_else(|| self.err(c, format!("no <geometry> has the id `{url}`")))?;
                    out.push((g, world));
                }
                "instance_node" => {
                    let url = self.url(c, "url")?;
                    let target = self
                        .doc
                        .descendants()
                        .find(|n| {
                            n.is_element()
                                && n.tag_name().name() == "node"
                                && n.attribute("id") == Some(url)
                        })
                        .ok_or_else(|| self.err(c, format!("no <node> has the id `{url}`")))?;
                    self.walk(target, world, depth + 1, geometries, out)?;
                }
                _ => self.walk(c, world, depth + 1, geometries, out)?,
            }
        }
        Ok(())
    }

    /// One transform element as an affine map.
    fn transform(&self, node: Node<'a, 'input>) -> Result<DAffine3, GeometryError> {
        let kind = node.tag_name().name();
        let n = match kind {
            "matrix" => 16,
            "rotate" => 4,
            _ => 3,
        };
        let mut v = Vec::with_capacity(n);
        for w in words(node) {
            match w.parse::<f64>() {
                Ok(x) if x.is_finite() && v.len() < n => v.push(x),
                _ => {
                    return Err(
                        self.err(node, format!("<{kind}> needs {n} finite numbers (`{w}`)"))
                    );
                }
            }
        }
        if v.len() != n {
            return Err(self.err(node, format!("<{kind}> needs {n} numbers, has {}", v.len())));
        }
        Ok(match kind {
            "translate" => DAffine3::from_translation(DVec3::new(v[0], v[1], v[2])),
            "scale" => DAffine3::from_scale(DVec3::new(v[0], v[1], v[2])),
            "rotate" => {
                let axis = DVec3::new(v[0], v[1], v[2]);
                let axis = axis
                    .try_normalize()
                    .ok_or_else(|| self.err(node, "<rotate> about a zero axis"))?;
                DAffine3::from_quat(DQuat::from_axis_angle(axis, v[3].to_radians()))
            }
            _ => {
                // Row-major, column vectors.
                let m = DMat4::from_cols_array(&[
                    v[0], v[4], v[8], v[12], v[1], v[5], v[9], v[13], v[2], v[6], v[10], v[14],
                    v[3], v[7], v[11], v[15],
                ]);
                if m.row(3) != glam::DVec4::new(0.0, 0.0, 0.0, 1.0) {
                    return Err(self.err(
                        node,
                        "<matrix> with a last row other than 0 0 0 1 (a projection) is not \
                         supported",
                    ));
                }
                DAffine3::from_mat4(m)
            }
        })
    }
}
