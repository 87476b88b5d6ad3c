//! Triangle meshes: shared vertices plus index triangles, validated once.
//!
//! **What.** [`TriMesh`] holds a vertex array (`Vec<DVec3>`) and index
//! triangles (`Vec<[u32; 3]>`), the shape every robot link and obstacle in
//! armature is made of. Polygon soups are allowed: no manifoldness,
//! closedness or connectivity is required here (mass properties check
//! closedness themselves, see [`TriMesh::mass_properties`]).
//!
//! **Why validate.** Every query above this module indexes vertices by the
//! triangles' indices and divides by edge lengths and areas; one NaN
//! coordinate, one stray index or one zero-area triangle turns a distance
//! into NaN or a collision test into a panic. So construction checks the
//! data once and reports the first problem as a [`GeometryError`] that
//! names the offending vertex or triangle; afterwards the invariants hold:
//!
//! - every vertex is finite;
//! - every index is in range, and there are at most 2³² vertices;
//! - there is at least one triangle;
//! - no triangle is degenerate, unless built with
//!   [`DegeneratePolicy::Keep`] (a rigid transform may still round a
//!   sliver down to zero area; see [`TriMesh::transformed`]).
//!
//! Degenerate triangles (a repeated index, two corners at the same
//! position, or zero area up to [`MeshOptions::zero_area_tolerance`]) are
//! dropped by default: imported meshes often carry such slivers, and they
//! add nothing to a collision shape. [`DegeneratePolicy::Reject`] turns
//! them into an error, [`DegeneratePolicy::Keep`] keeps them.
//!
//! **Guarantee.** Construction, transforms and merging are deterministic
//! (no hashing with random state, no parallelism) and never panic on user
//! data; triangle order is the input order minus dropped triangles, which
//! [`MeshReport`] lists so feature indices can be mapped back.
//!
//! ```
//! use armature_bvh_geometry::{GeometryError, TriMesh};
//! use glam::DVec3;
//!
//! let tetra = TriMesh::new(
//!     vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z],
//!     vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
//! )?;
//! assert_eq!(tetra.num_triangles(), 4);
//! assert_eq!(tetra.triangle(3), [DVec3::X, DVec3::Y, DVec3::Z]);
//!
//! // A bad index is an error that names the triangle and the corner.
//! let err = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y], vec![[0, 1, 7]]).unwrap_err();
//! assert!(matches!(err, GeometryError::IndexOutOfRange { triangle: 0, corner: 2, index: 7, .. }));
//! # Ok::<(), GeometryError>(())
//! ```

use std::collections::HashMap;
use std::fmt;

use glam::{DAffine3, DVec3};

use crate::GeometryError;

/// The largest number of vertices `u32` indices can address.
const MAX_VERTICES: usize = u32::MAX as usize + 1;

/// What to do with a degenerate triangle during construction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DegeneratePolicy {
    /// Fail with [`GeometryError::DegenerateTriangle`] naming the first
    /// degenerate triangle.
    Reject,
    /// Leave degenerate triangles out (the default); [`MeshReport`] lists
    /// them by input index.
    #[default]
    Drop,
    /// Keep them: the mesh then may hold zero-area triangles, and queries
    /// must cope with a zero normal.
    Keep,
}

/// Why a triangle is degenerate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Degeneracy {
    /// Two corners hold the same vertex index.
    RepeatedIndex,
    /// Two corners are different vertices at the same position.
    CoincidentVertices,
    /// The corners are (numerically) collinear: twice the area is at most
    /// [`MeshOptions::zero_area_tolerance`] times the squared longest edge.
    ZeroArea,
}

impl fmt::Display for Degeneracy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::RepeatedIndex => "two corners use the same vertex index",
            Self::CoincidentVertices => "two corners are at the same position",
            Self::ZeroArea => "its corners are collinear (zero area)",
        })
    }
}

/// Options for building a [`TriMesh`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeshOptions {
    /// What to do with degenerate triangles (default: drop them).
    pub degenerate: DegeneratePolicy,
    /// A triangle `(a, b, c)` has zero area when
    /// `|(b − a) × (c − a)| ≤ zero_area_tolerance · L²`, `L` its longest
    /// edge, i.e. when the sine of its largest angle is about this small.
    /// Default [`MeshOptions::DEFAULT_ZERO_AREA_TOLERANCE`]: a few rounding
    /// errors of the cross product, so only triangles whose corners are
    /// collinear up to rounding count. Must be finite and non-negative.
    pub zero_area_tolerance: f64,
}

impl MeshOptions {
    /// Default of [`MeshOptions::zero_area_tolerance`]: `16 ε`, a bound on
    /// the relative rounding error of the cross product of two edges.
    pub const DEFAULT_ZERO_AREA_TOLERANCE: f64 = 16.0 * f64::EPSILON;

    /// Sets [`MeshOptions::degenerate`].
    #[must_use]
    pub fn with_degenerate(mut self, policy: DegeneratePolicy) -> Self {
        self.degenerate = policy;
        self
    }

    /// Sets [`MeshOptions::zero_area_tolerance`].
    #[must_use]
    pub fn with_zero_area_tolerance(mut self, tolerance: f64) -> Self {
        self.zero_area_tolerance = tolerance;
        self
    }
}

impl Default for MeshOptions {
    fn default() -> Self {
        Self {
            degenerate: DegeneratePolicy::Drop,
            zero_area_tolerance: Self::DEFAULT_ZERO_AREA_TOLERANCE,
        }
    }
}

/// What construction did besides building the mesh.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MeshReport {
    /// Input indices of the triangles left out as degenerate (ascending;
    /// empty unless the policy is [`DegeneratePolicy::Drop`]).
    pub dropped_triangles: Vec<usize>,
}

impl MeshReport {
    /// The input index of triangle `kept` of the built mesh.
    ///
    /// Returns `None` when `kept` is out of range of `input_triangles`
    /// minus the dropped ones.
    #[must_use]
    pub fn input_triangle(&self, kept: usize, input_triangles: usize) -> Option<usize> {
        // The k-th kept input index: skip past every dropped index at or
        // below the running candidate.
        let mut candidate = kept;
        for &d in &self.dropped_triangles {
            if d <= candidate {
                candidate += 1;
            } else {
                break;
            }
        }
        (candidate < input_triangles).then_some(candidate)
    }
}

/// A validated triangle mesh: shared vertices and index triangles.
///
/// Invariants (see the [module docs](self)): finite vertices, indices in
/// range, at least one triangle, no degenerate triangle unless built with
/// [`DegeneratePolicy::Keep`]. Triangles are counter-clockwise seen from
/// outside when the mesh is a closed, outward-oriented surface; nothing
/// here requires it.
#[derive(Debug, Clone, PartialEq)]
pub struct TriMesh {
    vertices: Vec<DVec3>,
    indices: Vec<[u32; 3]>,
}

impl TriMesh {
    /// Builds a mesh with the default [`MeshOptions`] (degenerate triangles
    /// dropped).
    ///
    /// # Errors
    /// [`GeometryError::NonFiniteVertex`], [`GeometryError::TooManyVertices`],
    /// [`GeometryError::IndexOutOfRange`] or [`GeometryError::EmptyMesh`],
    /// each naming the first offending vertex or triangle.
    pub fn new(vertices: Vec<DVec3>, indices: Vec<[u32; 3]>) -> Result<Self, GeometryError> {
        Self::from_vertices_indices(vertices, indices, &MeshOptions::default())
    }

    /// Builds a mesh from vertices and index triangles under `options`.
    ///
    /// Vertices no triangle uses are kept (they are harmless and keep the
    /// caller's indices valid).
    ///
    /// # Errors
    /// As [`TriMesh::new`], plus [`GeometryError::DegenerateTriangle`] under
    /// [`DegeneratePolicy::Reject`] and [`GeometryError::InvalidParameter`]
    /// for a negative or NaN tolerance.
    pub fn from_vertices_indices(
        vertices: Vec<DVec3>,
        indices: Vec<[u32; 3]>,
        options: &MeshOptions,
    ) -> Result<Self, GeometryError> {
        Self::from_vertices_indices_with_report(vertices, indices, options).map(|(mesh, _)| mesh)
    }

    /// As [`TriMesh::from_vertices_indices`], and also reports which input
    /// triangles were dropped.
    ///
    /// # Errors
    /// As [`TriMesh::from_vertices_indices`].
    pub fn from_vertices_indices_with_report(
        mut vertices: Vec<DVec3>,
        mut indices: Vec<[u32; 3]>,
        options: &MeshOptions,
    ) -> Result<(Self, MeshReport), GeometryError> {
        let tol = options.zero_area_tolerance;
        crate::error::non_negative("zero_area_tolerance", tol)?;
        check_vertices(&vertices)?;
        for (t, tri) in indices.iter().enumerate() {
            for (corner, &index) in tri.iter().enumerate() {
                if index as usize >= vertices.len() {
                    return Err(GeometryError::IndexOutOfRange {
                        triangle: t,
                        corner,
                        index,
                        vertex_count: vertices.len(),
                    });
                }
            }
        }
        let mut report = MeshReport::default();
        if options.degenerate != DegeneratePolicy::Keep {
            let mut kept = 0;
            for t in 0..indices.len() {
                let tri = indices[t];
                match degeneracy(&vertices, tri, tol) {
                    Some(reason) if options.degenerate == DegeneratePolicy::Reject => {
                        return Err(GeometryError::DegenerateTriangle {
                            triangle: t,
                            reason,
                        });
                    }
                    Some(_) => report.dropped_triangles.push(t),
                    None => {
                        indices[kept] = tri;
                        kept += 1;
                    }
                }
            }
            indices.truncate(kept);
        }
        if indices.is_empty() {
            return Err(GeometryError::EmptyMesh {
                dropped: report.dropped_triangles.len(),
            });
        }
        // Loaders grow these arrays by pushing, and dropped triangles leave
        // room behind: unused capacity the mesh would keep for its whole
        // life (no copy when there is none).
        vertices.shrink_to_fit();
        indices.shrink_to_fit();
        Ok((Self { vertices, indices }, report))
    }

    /// The vertices.
    #[must_use]
    pub fn vertices(&self) -> &[DVec3] {
        &self.vertices
    }

    /// The triangles, as three vertex indices each.
    #[must_use]
    pub fn indices(&self) -> &[[u32; 3]] {
        &self.indices
    }

    /// Number of vertices.
    #[must_use]
    pub fn num_vertices(&self) -> usize {
        self.vertices.len()
    }

    /// Number of triangles (at least one).
    #[must_use]
    pub fn num_triangles(&self) -> usize {
        self.indices.len()
    }

    /// The corners of triangle `i`.
    ///
    /// # Panics
    /// If `i >= self.num_triangles()`. See also [`TriMesh::get_triangle`].
    #[must_use]
    pub fn triangle(&self, i: usize) -> [DVec3; 3] {
        self.corners(self.indices[i])
    }

    /// The corners of triangle `i`, or `None` when `i` is out of range.
    #[must_use]
    pub fn get_triangle(&self, i: usize) -> Option<[DVec3; 3]> {
        self.indices.get(i).map(|&tri| self.corners(tri))
    }

    /// The corners of every triangle, in order.
    pub fn triangles(&self) -> impl ExactSizeIterator<Item = [DVec3; 3]> + '_ {
        self.indices.iter().map(|&tri| self.corners(tri))
    }

    /// The unit normal of triangle `i` (counter-clockwise corners), or zero
    /// for a kept degenerate triangle.
    ///
    /// # Panics
    /// If `i >= self.num_triangles()`.
    #[must_use]
    pub fn triangle_normal(&self, i: usize) -> DVec3 {
        let [a, b, c] = self.triangle(i);
        // Scaled so the cross product neither overflows nor underflows.
        let scale = a.abs().max(b.abs()).max(c.abs()).max_element();
        if scale == 0.0 {
            return DVec3::ZERO;
        }
        let (a, b, c) = (a / scale, b / scale, c / scale);
        (b - a).cross(c - a).normalize_or_zero()
    }

    /// The total area of the triangles.
    #[must_use]
    pub fn surface_area(&self) -> f64 {
        self.triangles()
            .map(|[a, b, c]| 0.5 * (b - a).cross(c - a).length())
            .sum()
    }

    /// Bytes allocated on the heap for the vertices and triangles (by
    /// capacity), without the struct itself.
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        self.vertices.capacity() * core::mem::size_of::<DVec3>()
            + self.indices.capacity() * core::mem::size_of::<[u32; 3]>()
    }

    /// Consumes the mesh, returning its vertices and triangles.
    #[must_use]
    pub fn into_parts(self) -> (Vec<DVec3>, Vec<[u32; 3]>) {
        (self.vertices, self.indices)
    }

    /// The mesh mapped by an affine transform (`x ↦ A x + t`).
    ///
    /// Triangle `i` of the result is the image of triangle `i`; when the
    /// linear part mirrors (`det A < 0`) each triangle's winding is
    /// reversed, so an outward-oriented closed mesh stays outward-oriented.
    /// Degeneracy is not re-checked: a well-conditioned `A` keeps
    /// triangles non-degenerate, but rounding can flatten extreme slivers.
    ///
    /// # Errors
    /// [`GeometryError::InvalidParameter`] (`transform`) when the transform
    /// is not finite or its linear part is singular;
    /// [`GeometryError::NonFiniteVertex`] when an image overflows.
    pub fn transformed(&self, transform: &DAffine3) -> Result<Self, GeometryError> {
        let det = transform.matrix3.determinant();
        if !transform.is_finite() || !det.is_finite() || det == 0.0 {
            return Err(GeometryError::InvalidParameter {
                name: "transform",
                value: det,
                why: "the transform must be finite with an invertible linear part",
            });
        }
        let vertices: Vec<DVec3> = self
            .vertices
            .iter()
            .map(|&v| transform.transform_point3(v))
            .collect();
        check_vertices(&vertices)?;
        let indices = if det < 0.0 {
            self.indices.iter().map(|&[a, b, c]| [a, c, b]).collect()
        } else {
            self.indices.clone()
        };
        Ok(Self { vertices, indices })
    }

    /// The mesh scaled uniformly about the origin (a unit conversion, e.g.
    /// `0.001` for millimetres to metres). A negative factor mirrors, and
    /// reverses the winding as [`TriMesh::transformed`] does.
    ///
    /// # Errors
    /// [`GeometryError::InvalidParameter`] (`scale`) for a zero or
    /// non-finite factor; [`GeometryError::NonFiniteVertex`] on overflow.
    pub fn scaled(&self, factor: f64) -> Result<Self, GeometryError> {
        if !factor.is_finite() || factor == 0.0 {
            return Err(GeometryError::InvalidParameter {
                name: "scale",
                value: factor,
                why: "must be finite and non-zero",
            });
        }
        self.transformed(&DAffine3::from_scale(DVec3::splat(factor)))
    }

    /// Appends `other`'s vertices and triangles (its indices offset by this
    /// mesh's vertex count). Vertices are not shared between the two; see
    /// [`TriMesh::welded`].
    ///
    /// # Errors
    /// [`GeometryError::TooManyVertices`] when the sum exceeds 2³²; the
    /// mesh is unchanged then.
    pub fn append(&mut self, other: &TriMesh) -> Result<(), GeometryError> {
        let total = self.vertices.len() + other.vertices.len();
        if total > MAX_VERTICES {
            return Err(GeometryError::TooManyVertices { count: total });
        }
        // `total <= 2^32`, so every offset index below fits in `u32`.
        let offset = self.vertices.len() as u32;
        self.vertices.extend_from_slice(&other.vertices);
        self.indices.extend(
            other
                .indices
                .iter()
                .map(|tri| tri.map(|i| i.wrapping_add(offset))),
        );
        Ok(())
    }

    /// Concatenates meshes in order (triangle indices of the result run
    /// through the first mesh, then the second, …).
    ///
    /// # Errors
    /// [`GeometryError::EmptyMesh`] for no meshes;
    /// [`GeometryError::TooManyVertices`] when the total exceeds 2³².
    pub fn merge<'a, I>(meshes: I) -> Result<Self, GeometryError>
    where
        I: IntoIterator<Item = &'a TriMesh>,
    {
        let mut meshes = meshes.into_iter();
        let mut merged = meshes
            .next()
            .ok_or(GeometryError::EmptyMesh { dropped: 0 })?
            .clone();
        for mesh in meshes {
            merged.append(mesh)?;
        }
        Ok(merged)
    }

    /// The mesh with vertices at bit-identical positions merged (`-0.0`
    /// and `0.0` count as equal), in order of first occurrence.
    ///
    /// Triangles keep their order and count, so a soup whose faces were
    /// exported without shared vertices (STL, OBJ groups) becomes closed
    /// where it should be. Two distinct vertices at the same position make
    /// a triangle that used both degenerate; such a triangle was already
    /// degenerate ([`Degeneracy::CoincidentVertices`]) and exists only in
    /// a mesh built with [`DegeneratePolicy::Keep`].
    #[must_use]
    pub fn welded(&self) -> Self {
        let (vertices, remap) = weld(&self.vertices);
        let indices = self
            .indices
            .iter()
            .map(|tri| tri.map(|i| remap[i as usize]))
            .collect();
        Self { vertices, indices }
    }

    fn corners(&self, [a, b, c]: [u32; 3]) -> [DVec3; 3] {
        [
            self.vertices[a as usize],
            self.vertices[b as usize],
            self.vertices[c as usize],
        ]
    }
}

/// Checks the vertex count and that every vertex is finite.
fn check_vertices(vertices: &[DVec3]) -> Result<(), GeometryError> {
    if vertices.len() > MAX_VERTICES {
        return Err(GeometryError::TooManyVertices {
            count: vertices.len(),
        });
    }
    match vertices.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(GeometryError::NonFiniteVertex {
            index,
            value: vertices[index],
        }),
        None => Ok(()),
    }
}

/// Why `tri` is degenerate, if it is. Indices must be in range.
fn degeneracy(vertices: &[DVec3], tri: [u32; 3], tol: f64) -> Option<Degeneracy> {
    let [i, j, k] = tri;
    if i == j || j == k || i == k {
        return Some(Degeneracy::RepeatedIndex);
    }
    let [a, b, c] = tri.map(|i| vertices[i as usize]);
    if a == b || b == c || a == c {
        return Some(Degeneracy::CoincidentVertices);
    }
    // Measured in coordinates scaled to at most 1, so that squared lengths
    // neither overflow for huge meshes nor underflow for tiny ones.
    let scale = a.abs().max(b.abs()).max(c.abs()).max_element();
    let (a, b, c) = (a / scale, b / scale, c / scale);
    let twice_area = (b - a).cross(c - a).length();
    let longest2 = (b - a)
        .length_squared()
        .max((c - b).length_squared())
        .max((a - c).length_squared());
    (twice_area <= tol * longest2).then_some(Degeneracy::ZeroArea)
}

/// Merges bit-identical points (`-0.0 == 0.0`); returns the unique points
/// in order of first occurrence and the map from old to new index.
pub(crate) fn weld(points: &[DVec3]) -> (Vec<DVec3>, Vec<u32>) {
    let mut seen: HashMap<[u64; 3], u32> = HashMap::with_capacity(points.len());
    let mut unique = Vec::new();
    let remap = points
        .iter()
        .map(|&p| {
            // Adding 0.0 turns -0.0 into 0.0 and leaves every other value,
            // so positions that compare equal get one key.
            let p = p + DVec3::ZERO;
            let key = p.to_array().map(f64::to_bits);
            *seen.entry(key).or_insert_with(|| {
                unique.push(p);
                // At most as many unique points as points, and callers
                // hold at most 2^32 of them.
                (unique.len() - 1) as u32
            })
        })
        .collect();
    (unique, remap)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quad() -> (Vec<DVec3>, Vec<[u32; 3]>) {
        (
            vec![DVec3::ZERO, DVec3::X, DVec3::new(1.0, 1.0, 0.0), DVec3::Y],
            vec![[0, 1, 2], [0, 2, 3]],
        )
    }

    #[test]
    fn degenerate_policies() {
        let (mut v, mut t) = quad();
        v.push(DVec3::new(2.0, 0.0, 0.0)); // 4: collinear with 0 and 1
        v.push(DVec3::X); // 5: same position as 1
        t.push([0, 1, 4]); // zero area
        t.push([1, 1, 2]); // repeated index
        t.push([5, 1, 2]); // coincident
        let opts = MeshOptions::default();
        let (m, r) =
            TriMesh::from_vertices_indices_with_report(v.clone(), t.clone(), &opts).expect("valid");
        assert_eq!(m.num_triangles(), 2);
        assert_eq!(r.dropped_triangles, vec![2, 3, 4]);
        let reject = opts.with_degenerate(DegeneratePolicy::Reject);
        assert_eq!(
            TriMesh::from_vertices_indices(v.clone(), t.clone(), &reject),
            Err(GeometryError::DegenerateTriangle {
                triangle: 2,
                reason: Degeneracy::ZeroArea
            })
        );
        let keep = opts.with_degenerate(DegeneratePolicy::Keep);
        let m = TriMesh::from_vertices_indices(v, t, &keep).expect("valid");
        assert_eq!(m.num_triangles(), 5);
        assert_eq!(m.triangle_normal(3), DVec3::ZERO);
    }

    #[test]
    fn report_maps_back_to_input() {
        let r = MeshReport {
            dropped_triangles: vec![0, 2, 3, 7],
        };
        let kept: Vec<_> = (0..6).map(|k| r.input_triangle(k, 10)).collect();
        assert_eq!(
            kept,
            vec![Some(1), Some(4), Some(5), Some(6), Some(8), Some(9)]
        );
        assert_eq!(r.input_triangle(6, 10), None);
    }

    #[test]
    fn huge_and_tiny_triangles_are_not_flagged() {
        for s in [1e-300, 1e-150, 1.0, 1e150, 1e300] {
            let v = vec![DVec3::ZERO, DVec3::X * s, DVec3::Y * s];
            let m = TriMesh::new(v, vec![[0, 1, 2]]);
            assert!(m.is_ok(), "scale {s}: {m:?}");
        }
    }

    #[test]
    fn weld_merges_signed_zero() {
        let (v, remap) = weld(&[DVec3::new(-0.0, 1.0, 0.0), DVec3::Y, DVec3::X]);
        assert_eq!(v.len(), 2);
        assert_eq!(remap, vec![0, 0, 1]);
    }
}
