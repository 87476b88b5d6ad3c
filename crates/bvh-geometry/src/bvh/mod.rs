//! # Bounding-volume hierarchies over triangle meshes
//!
//! **What.** [`Bvh<BV>`] is a binary tree of bounding volumes over the
//! triangles of a [`TriMesh`], stored as a flat node array: node 0 is the
//! root, an inner node's two children are adjacent (`first_child`,
//! `first_child + 1`, always after their parent), and a leaf names a
//! contiguous range of a separate array of triangle indices (the mesh's
//! triangle order, permuted by the build). The hierarchy does not own the
//! mesh; the mesh queries take both.
//!
//! **How it is built.** Top down (Gottschalk, Lin, Manocha 1996): a node's
//! volume is fitted to its triangles with [`BoundingVolume::from_triangles`]
//! (so the containment guarantee of [`crate::bv`] carries over), and the
//! node is split along the axis of its volume's frame
//! ([`BvhVolume::split_axes`]: the fitted principal axes of an OBB or RSS,
//! the world axes of an AABB) on which the triangle centroids spread most, at
//! the median or the mean of their projections ([`SplitRule`]). A node with
//! at most [`BvhOptions::max_leaf_triangles`] (1 to 4) triangles is a leaf.
//! The build is deterministic: no hashing, no threads.
//!
//! **Guarantee.** Every node's volume contains every vertex of every
//! triangle below it, exactly in floating point (`contains_point` is `true`
//! with no tolerance), hence, by convexity, the triangles themselves. After
//! the mesh's vertices move, [`Bvh::refit`] re-fits every volume with the
//! same topology and keeps the guarantee.
//!
//! **Why three volume types.** OBB trees for overlap tests (M1, the
//! collision checker of M2), RSS trees for distances and the GREEDY-DIST
//! lower bound (M2 §III), AABB trees where a cheap build matters.
//!
//! ```
//! use armature_bvh_geometry::{Bvh, BvhOptions, Obb, TriMesh};
//! use glam::DVec3;
//!
//! let mesh = TriMesh::new(
//!     vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z],
//!     vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
//! )?;
//! let bvh = Bvh::<Obb>::build(&mesh, &BvhOptions::default().with_max_leaf_triangles(1))?;
//! assert_eq!(bvh.num_triangles(), 4);
//! assert_eq!(bvh.num_nodes(), 7);
//! assert!(mesh.vertices().iter().all(|&p| bvh.root().bv.contains_point(p)));
//! # Ok::<(), armature_bvh_geometry::GeometryError>(())
//! ```

use core::ops::Range;

use glam::{DAffine3, DMat3, DVec3};

use crate::bv::{Aabb, BoundingVolume, FitError, Obb, Rss, RssSides, Sphere, fit};
use crate::{GeometryError, TriMesh};

mod top_boxes;
pub use top_boxes::{MAX_TOP_BOX_LEVELS, TopBoxes};

/// Nodes with at least this many triangles fit their two children on two
/// threads.
const PARALLEL_FIT: usize = 8192;

/// Largest accepted [`BvhOptions::max_leaf_triangles`].
pub const MAX_LEAF_TRIANGLES: usize = 4;

/// A bounding volume a [`Bvh`] can be built from.
pub trait BvhVolume: BoundingVolume + Send + Sync {
    /// Whether the volume is oriented by the principal axes of its
    /// triangles; the builder then sums precomputed per-triangle moments
    /// instead of recomputing each node's covariance from scratch.
    const ORIENTED: bool = false;
    /// Fits the volume to triangles with the given frame (oriented volumes)
    /// or by [`BoundingVolume::from_triangles`] (the others); every triangle
    /// is contained.
    ///
    /// # Errors
    /// [`FitError`] as [`BoundingVolume::from_triangles`].
    fn fit_with_axes(triangles: &[[DVec3; 3]], _axes: DMat3) -> Result<Self, FitError> {
        Self::from_triangles(triangles)
    }
    /// The builder's fit of a node: as [`BvhVolume::fit_with_axes`] with
    /// the node's principal frame, or [`BoundingVolume::from_triangles`]
    /// when it has none; oriented volumes skip re-validating triangles the
    /// builder validated at the root. Only callable by the builder.
    ///
    /// # Errors
    /// As [`BvhVolume::fit_with_axes`].
    #[doc(hidden)]
    fn fit_validated(
        triangles: &[[DVec3; 3]],
        axes: Option<DMat3>,
        _: sealed::Validated,
    ) -> Result<Self, FitError> {
        match axes {
            Some(axes) => Self::fit_with_axes(triangles, axes),
            None => Self::from_triangles(triangles),
        }
    }
    /// The frame whose axes (columns) are the candidate split directions:
    /// the volume's own axes for oriented volumes, the world axes otherwise.
    fn split_axes(&self) -> DMat3;
    /// A size measure (a sum of half extents) used to decide which of two
    /// volumes a traversal splits first: the larger one.
    fn size(&self) -> f64;
    /// The volume of the union of two nodes' triangles computed from their
    /// volumes alone, when that is exact (the box of two boxes); `None`
    /// when the union must be re-fitted from the triangles.
    #[must_use]
    fn merge(&self, _other: &Self) -> Option<Self> {
        None
    }
    /// A ball `(centre, radius)` holding the volume (up to rounding of a
    /// few ulps of the radius), for cheap rejection tests.
    fn enclosing_ball(&self) -> (DVec3, f64);
    /// An enclosing volume of the image under a rigid map, as
    /// [`BoundingVolume::transform`] encloses it (every point of `self`
    /// mapped by `m.affine().transform_point3` is inside), but cheaper for
    /// the oriented volumes: their axes are turned by the map's
    /// orthonormalised rotation and the extents widened by its deviation
    /// from the exact linear part plus a rounding allowance, instead of
    /// re-orthonormalising per volume. The queries map every visited node
    /// of the second hierarchy with it.
    #[must_use]
    fn transform_rigid(&self, m: &RigidMap) -> Self {
        self.transform(&m.affine)
    }
}

/// A rigid map prepared for mapping many volumes
/// ([`BvhVolume::transform_rigid`]): the affine map, an orthonormal
/// rotation close to its linear part, and bounds on their difference and on
/// the rounding of `transform_point3`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RigidMap {
    affine: DAffine3,
    rotation: DMat3,
    /// `‖M − R‖₂` bound: 3 × the largest entry of `M − R`.
    deviation: f64,
    /// Largest row sum of `|M|`.
    row_norm: f64,
    /// Largest translation component magnitude.
    shift: f64,
}

impl RigidMap {
    /// Prepares `m` (any finite affine map; the closer its linear part is
    /// to a rotation, the tighter the images).
    #[must_use]
    pub fn new(m: &DAffine3) -> Self {
        let rotation = fit::orthonormal_frame(m.matrix3.x_axis, m.matrix3.y_axis);
        let diff = (m.matrix3 - rotation).abs();
        let max_entry = diff.to_cols_array().iter().fold(0.0_f64, |s, x| s.max(*x));
        let abs = m.matrix3.abs();
        let row_norm = [abs.row(0), abs.row(1), abs.row(2)]
            .iter()
            .fold(0.0_f64, |s, r| s.max(r.element_sum()));
        Self {
            affine: *m,
            rotation,
            deviation: 3.0 * max_entry * (1.0 + 4.0 * f64::EPSILON),
            row_norm,
            shift: m.translation.abs().max_element(),
        }
    }

    /// The affine map.
    #[must_use]
    pub fn affine(&self) -> &DAffine3 {
        &self.affine
    }

    /// Rounding allowance of mapping a volume with centre `c` and reach `r`
    /// (as the crate's `transform` allowances: 16 ulps of the magnitudes
    /// entering `M p + t`, here bounded through the row norm).
    #[inline]
    fn slack(&self, c: DVec3, r: f64) -> f64 {
        16.0 * f64::EPSILON * (self.row_norm * (c.abs().max_element() + r) + self.shift)
    }
}

impl BvhVolume for Aabb {
    fn split_axes(&self) -> DMat3 {
        DMat3::IDENTITY
    }
    fn size(&self) -> f64 {
        self.half_extents().element_sum()
    }
    fn merge(&self, other: &Self) -> Option<Self> {
        Some(self.union(other))
    }
    fn enclosing_ball(&self) -> (DVec3, f64) {
        (self.center(), self.half_extents().length())
    }
}

impl BvhVolume for Obb {
    const ORIENTED: bool = true;
    fn fit_with_axes(triangles: &[[DVec3; 3]], axes: DMat3) -> Result<Self, FitError> {
        Self::from_points_with_axes(triangles.as_flattened(), axes)
    }
    fn fit_validated(
        triangles: &[[DVec3; 3]],
        axes: Option<DMat3>,
        _: sealed::Validated,
    ) -> Result<Self, FitError> {
        // The builder's frames are orthonormal (principal or triangle frames).
        match axes {
            Some(axes) => Ok(Self::fit_unchecked(triangles.as_flattened(), axes)),
            None => Self::from_triangles(triangles),
        }
    }
    fn split_axes(&self) -> DMat3 {
        self.axes
    }
    fn size(&self) -> f64 {
        self.half_extents.element_sum()
    }
    fn enclosing_ball(&self) -> (DVec3, f64) {
        (self.center, self.half_extents.length())
    }
    #[inline]
    fn transform_rigid(&self, m: &RigidMap) -> Self {
        // A point c + A u maps to (M c + t) + R A u + (M − R) A u; the last
        // term is at most ‖M − R‖₂ |e|₂ ≤ deviation · Σe long.
        let reach = self.half_extents.element_sum();
        let grow = m.deviation * reach + m.slack(self.center, reach) + 8.0 * f64::EPSILON * reach;
        Obb::new(
            m.affine.transform_point3(self.center),
            m.rotation * self.axes,
            self.half_extents + DVec3::splat(grow),
        )
    }
}

impl BvhVolume for Rss {
    const ORIENTED: bool = true;
    fn fit_with_axes(triangles: &[[DVec3; 3]], axes: DMat3) -> Result<Self, FitError> {
        Self::from_points_with_axes(triangles.as_flattened(), axes)
    }
    fn fit_validated(
        triangles: &[[DVec3; 3]],
        axes: Option<DMat3>,
        _: sealed::Validated,
    ) -> Result<Self, FitError> {
        // The builder's frames are orthonormal (principal or triangle frames).
        match axes {
            Some(axes) => Ok(Self::fit_unchecked(triangles.as_flattened(), axes)),
            None => Self::from_triangles(triangles),
        }
    }
    fn split_axes(&self) -> DMat3 {
        self.axes
    }
    fn size(&self) -> f64 {
        self.half_lengths.element_sum() + self.radius
    }
    fn enclosing_ball(&self) -> (DVec3, f64) {
        (self.center, self.half_lengths.length() + self.radius)
    }
    #[inline]
    fn transform_rigid(&self, m: &RigidMap) -> Self {
        // Rectangle points move as for the box (error ≤ deviation · (hx +
        // hy)); the swept ball's offsets w grow to |M w| ≤ (1 + deviation) r.
        let flat = self.half_lengths.element_sum();
        let reach = flat + self.radius;
        let radius = self.radius
            + m.deviation * reach
            + m.slack(self.center, reach)
            + 8.0 * f64::EPSILON * reach;
        Rss::new(
            m.affine.transform_point3(self.center),
            m.rotation * self.axes,
            self.half_lengths,
            radius,
        )
    }
}

impl BvhVolume for Sphere {
    fn split_axes(&self) -> DMat3 {
        DMat3::IDENTITY
    }
    fn size(&self) -> f64 {
        self.radius
    }
    fn enclosing_ball(&self) -> (DVec3, f64) {
        (self.center, self.radius)
    }
}

/// Where a node is split along the chosen axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SplitRule {
    /// At the median centroid projection: halves of equal count, a balanced
    /// tree of depth `⌈log₂(n / leaf)⌉`.
    #[default]
    Median,
    /// At the mean centroid projection (PQP's rule): tighter volumes on
    /// uneven tessellations; falls back to the median when every centroid
    /// lies on one side.
    Mean,
    /// At the multiple of [`BvhOptions::max_leaf_triangles`] nearest above
    /// half the node's leaves: every leaf but one is full, so the tree has
    /// the fewest nodes (`2 ⌈n / leaf⌉ − 1`) and the same depth as the
    /// median split. Large meshes use it to bound their memory.
    PackedMedian,
}

/// Options of [`Bvh::build`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BvhOptions {
    /// At most this many triangles per leaf, 1 to [`MAX_LEAF_TRIANGLES`].
    /// Default 4: a quarter of the nodes of a one-triangle-per-leaf tree
    /// (memory), for at most 16 triangle tests per leaf pair.
    pub max_leaf_triangles: usize,
    /// Where nodes are split. Default [`SplitRule::Median`].
    pub split: SplitRule,
}

impl Default for BvhOptions {
    fn default() -> Self {
        Self {
            max_leaf_triangles: MAX_LEAF_TRIANGLES,
            split: SplitRule::Median,
        }
    }
}

impl BvhOptions {
    /// Sets [`BvhOptions::max_leaf_triangles`].
    #[must_use]
    pub fn with_max_leaf_triangles(mut self, n: usize) -> Self {
        self.max_leaf_triangles = n;
        self
    }

    /// Sets [`BvhOptions::split`].
    #[must_use]
    pub fn with_split(mut self, split: SplitRule) -> Self {
        self.split = split;
        self
    }
}

/// One node of a [`Bvh`]: a volume and either two children or a range of
/// triangles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BvhNode<BV> {
    /// The volume; it contains every triangle below the node.
    pub bv: BV,
    /// Inner node: index of the first child (the second is next to it).
    /// Leaf: start of the node's range in [`Bvh::triangle_indices`].
    index: u32,
    /// 0 for an inner node, else the leaf's number of triangles.
    count: u32,
}

impl<BV> BvhNode<BV> {
    /// Whether the node is a leaf.
    #[inline]
    #[must_use]
    pub fn is_leaf(&self) -> bool {
        self.count != 0
    }

    /// The two children's node indices, or `None` for a leaf.
    #[inline]
    #[must_use]
    pub fn children(&self) -> Option<[usize; 2]> {
        (self.count == 0).then(|| [self.index as usize, self.index as usize + 1])
    }

    /// A leaf's range in [`Bvh::triangle_indices`], or `None` for an inner
    /// node.
    #[inline]
    #[must_use]
    pub fn triangle_range(&self) -> Option<Range<usize>> {
        (self.count != 0).then(|| self.index as usize..(self.index + self.count) as usize)
    }
}

/// A bounding-volume hierarchy over a [`TriMesh`]'s triangles (see the
/// [module docs](self)).
#[derive(Debug, Clone, PartialEq)]
pub struct Bvh<BV> {
    nodes: Vec<BvhNode<BV>>,
    triangles: Vec<u32>,
    depth: usize,
}

impl<BV: BvhVolume> Bvh<BV> {
    /// Builds the hierarchy with [`BvhOptions::default`].
    ///
    /// # Errors
    /// As [`Bvh::build`].
    pub fn new(mesh: &TriMesh) -> Result<Self, GeometryError> {
        Self::build(mesh, &BvhOptions::default())
    }

    /// Builds the hierarchy top down (see the [module docs](self)).
    ///
    /// # Errors
    /// [`GeometryError::InvalidParameter`] (`max_leaf_triangles`) outside
    /// `1..=4`; [`GeometryError::TooManyTriangles`] beyond `u32` indexing;
    /// [`GeometryError::BoundingVolumeFit`] when a coordinate exceeds
    /// [`crate::bv::MAX_COORDINATE`].
    pub fn build(mesh: &TriMesh, options: &BvhOptions) -> Result<Self, GeometryError> {
        let (part, root, triangles) = build_nodes::<BV>(mesh, options, false)?;
        Ok(Self {
            nodes: part.to_nodes(&root, &|bv| *bv),
            triangles,
            depth: part.depth(),
        })
    }

    /// Re-fits every volume to `mesh`, a mesh with the same triangles
    /// (indices) as the one the hierarchy was built on whose vertices have
    /// moved. The topology is kept; the containment guarantee holds for the
    /// new vertices. Volumes that merge exactly ([`BvhVolume::merge`]) are
    /// computed bottom up from their children, the others are re-fitted to
    /// their triangles.
    ///
    /// # Errors
    /// [`GeometryError::BvhMeshMismatch`] when the triangle counts differ;
    /// [`GeometryError::BoundingVolumeFit`] for a coordinate beyond
    /// [`crate::bv::MAX_COORDINATE`]. On error the hierarchy is unchanged.
    pub fn refit(&mut self, mesh: &TriMesh) -> Result<(), GeometryError> {
        self.check_mesh(mesh)?;
        let tris: Vec<[DVec3; 3]> = self
            .triangles
            .iter()
            .map(|&t| mesh.triangle(t as usize))
            .collect();
        let mut ranges = vec![0..0; self.nodes.len()];
        let mut bvs = Vec::with_capacity(self.nodes.len());
        // Children come after their parent: a reverse sweep sees both
        // children of a node before the node.
        for i in (0..self.nodes.len()).rev() {
            let node = &self.nodes[i];
            let (range, merged) = match node.children() {
                None => (
                    node.index as usize..(node.index + node.count) as usize,
                    None,
                ),
                Some([l, r]) => {
                    let bl: &BV = &bvs[self.nodes.len() - 1 - l];
                    let br: &BV = &bvs[self.nodes.len() - 1 - r];
                    (ranges[l].start..ranges[r].end, bl.merge(br))
                }
            };
            let bv = match merged {
                Some(bv) => bv,
                None => BV::from_triangles(&tris[range.clone()])?,
            };
            ranges[i] = range;
            bvs.push(bv);
        }
        for (node, bv) in self.nodes.iter_mut().zip(bvs.into_iter().rev()) {
            node.bv = bv;
        }
        Ok(())
    }
}

impl<BV> Bvh<BV> {
    /// `Ok` when `mesh` has as many triangles as the hierarchy indexes (the
    /// check every query makes, so that no index is out of range).
    ///
    /// # Errors
    /// [`GeometryError::BvhMeshMismatch`].
    pub fn check_mesh(&self, mesh: &TriMesh) -> Result<(), GeometryError> {
        if mesh.num_triangles() == self.triangles.len() {
            Ok(())
        } else {
            Err(GeometryError::BvhMeshMismatch {
                bvh_triangles: self.triangles.len(),
                mesh_triangles: mesh.num_triangles(),
            })
        }
    }

    /// The nodes; index 0 is the root.
    #[inline]
    #[must_use]
    pub fn nodes(&self) -> &[BvhNode<BV>] {
        &self.nodes
    }

    /// The root node.
    #[inline]
    #[must_use]
    pub fn root(&self) -> &BvhNode<BV> {
        &self.nodes[0]
    }

    /// The mesh's triangle indices in leaf order; a leaf's
    /// [`BvhNode::triangle_range`] indexes this array.
    #[inline]
    #[must_use]
    pub fn triangle_indices(&self) -> &[u32] {
        &self.triangles
    }

    /// The mesh triangle indices of a leaf (empty for an inner node).
    #[inline]
    #[must_use]
    pub fn leaf_triangles(&self, node: &BvhNode<BV>) -> &[u32] {
        match node.triangle_range() {
            Some(r) => &self.triangles[r],
            None => &[],
        }
    }

    /// Number of nodes.
    #[must_use]
    pub fn num_nodes(&self) -> usize {
        self.nodes.len()
    }

    /// Number of triangles (the mesh's).
    #[must_use]
    pub fn num_triangles(&self) -> usize {
        self.triangles.len()
    }

    /// Number of leaves.
    #[must_use]
    pub fn num_leaves(&self) -> usize {
        self.nodes.iter().filter(|n| n.is_leaf()).count()
    }

    /// Depth: the number of edges from the root to the deepest leaf (0 for
    /// a single leaf).
    #[must_use]
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Heap bytes held (node and index arrays, by their lengths) plus the
    /// struct itself.
    #[must_use]
    pub fn memory_bytes(&self) -> usize {
        core::mem::size_of::<Self>()
            + self.nodes.len() * core::mem::size_of::<BvhNode<BV>>()
            + self.triangles.len() * core::mem::size_of::<u32>()
    }

    /// Bytes allocated on the heap (node and index arrays, by their
    /// capacities), without the struct itself.
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        self.nodes.capacity() * core::mem::size_of::<BvhNode<BV>>()
            + self.triangles.capacity() * core::mem::size_of::<u32>()
    }
}

/// The built tree, its root volume and its triangle order over `mesh`,
/// with nodes holding `V` (one volume, or [`ObbRss`] built in one pass).
fn build_nodes<V: NodeVolume>(
    mesh: &TriMesh,
    options: &BvhOptions,
    tighten: bool,
) -> Result<(Part<V>, V, Vec<u32>), GeometryError> {
    let leaf = options.max_leaf_triangles;
    if !(1..=MAX_LEAF_TRIANGLES).contains(&leaf) {
        return Err(GeometryError::InvalidParameter {
            name: "max_leaf_triangles",
            value: leaf as f64,
            why: "must be 1 to 4",
        });
    }
    let n = mesh.num_triangles();
    if u32::try_from(n).is_err() {
        return Err(GeometryError::TooManyTriangles { count: n });
    }
    let mut tris: Vec<[DVec3; 3]> = mesh.triangles().collect();
    let mut ids: Vec<u32> = (0..n as u32).collect();
    let mut spare_tris = vec![[DVec3::ZERO; 3]; n];
    let mut spare_ids = vec![0; n];
    // The root fit validates every coordinate; the nodes below fit
    // subsets of the same triangles and skip the check.
    let root_bv = V::fit_root(&tris)?;
    // Per-triangle area moments, summed per node for oriented volumes.
    let moments = V::ORIENTED.then(|| triangle_moments(&tris));
    let build = Build {
        moments: moments.as_deref(),
        leaf,
        split: options.split,
        tighten,
    };
    let buf = Buffers {
        tris: &mut tris,
        ids: &mut ids,
        spare_tris: &mut spare_tris,
        spare_ids: &mut spare_ids,
        flipped: false,
    };
    let part = build.subtree(buf, 0, root_bv, &mut Scratch::default())?;
    drop((tris, spare_tris, spare_ids));
    Ok((part, root_bv, ids))
}

/// Builds an OBB and an RSS hierarchy with the same options in one pass:
/// both volumes take the node's frame as given, so both builds would split
/// every node along the same axes at the same place; the pass splits once,
/// sums the moments and decomposes each node's covariance once, and fits
/// both volumes. The RSS hierarchy is exactly that of [`Bvh::build`]; the
/// OBB hierarchy has the nodes and the root box of [`Bvh::build`]'s, and
/// with `tighten` each box below the root is [`Obb::tightened`] (never
/// larger in surface, holding the same triangles), without it the boxes
/// of [`Bvh::build`] too.
///
/// # Errors
/// As [`Bvh::build`].
pub(crate) fn build_obb_rss(
    mesh: &TriMesh,
    options: &BvhOptions,
    tighten: bool,
) -> Result<(Bvh<Obb>, Bvh<Rss>), GeometryError> {
    let (part, root, triangles) = build_nodes::<ObbRss>(mesh, options, tighten)?;
    let obb = part.to_nodes(&root, &|bv| bv.0);
    let rss = part.to_nodes(&root, &|bv| bv.1);
    let depth = part.depth();
    Ok((
        Bvh {
            nodes: obb,
            triangles: triangles.clone(),
            depth,
        },
        Bvh {
            nodes: rss,
            triangles,
            depth,
        },
    ))
}

/// What a node of the builder holds: one [`BvhVolume`], or a [`Pair`] of
/// two built together.
trait NodeVolume: Copy + Send + Sync {
    /// Whether some volume wants the node's principal frame.
    const ORIENTED: bool;
    /// The root's volume(s), validating every coordinate.
    fn fit_root(triangles: &[[DVec3; 3]]) -> Result<Self, FitError>;
    /// A node's volume(s) with its frame, as [`BvhVolume::fit_validated`];
    /// `local` is a buffer to reuse; `tighten`: an OBB is
    /// [`Obb::tightened`] (see [`build_obb_rss`]).
    fn fit_node(
        triangles: &[[DVec3; 3]],
        axes: Option<DMat3>,
        local: &mut Vec<DVec3>,
        tighten: bool,
    ) -> Result<Self, FitError>;
    /// The candidate split directions, as [`BvhVolume::split_axes`].
    fn node_split_axes(&self) -> DMat3;
}

impl<BV: BvhVolume> NodeVolume for BV {
    const ORIENTED: bool = BV::ORIENTED;
    fn fit_root(triangles: &[[DVec3; 3]]) -> Result<Self, FitError> {
        BV::from_triangles(triangles)
    }
    fn fit_node(
        triangles: &[[DVec3; 3]],
        axes: Option<DMat3>,
        _: &mut Vec<DVec3>,
        _: bool,
    ) -> Result<Self, FitError> {
        BV::fit_validated(triangles, axes, sealed::Validated(()))
    }
    fn node_split_axes(&self) -> DMat3 {
        self.split_axes()
    }
}

/// The OBB and the RSS of one node, built together: both are fitted in
/// the node's frame as given, sharing the first pass of the two fits (the
/// points' coordinates in the frame), and the node splits along that
/// frame's axes, as an RSS tree's would (the two trees have the same
/// nodes). Below the root, the OBB is then [`Obb::tightened`]: the box of
/// least surface among that fit and fits in a few other frames, so fewer
/// box pairs meet on the way down (on the penetration-depth suite's Puma
/// and hand, 22 % and 11 % fewer instructions per query). The root keeps
/// the principal frame: it is also the link's box the motion bounds of
/// the kinematics are computed from ([`crate::LinkGeometry::link_obb`]).
#[derive(Debug, Clone, Copy)]
struct ObbRss(Obb, Rss, DMat3);

impl NodeVolume for ObbRss {
    const ORIENTED: bool = true;
    fn fit_root(triangles: &[[DVec3; 3]]) -> Result<Self, FitError> {
        // `Obb::from_triangles` and `Rss::from_triangles`, validating and
        // decomposing the covariance once for both.
        fit::validate_triangles(triangles)?;
        let axes = fit::principal_frame(fit::covariance_triangles(triangles));
        let points = triangles.as_flattened();
        Ok(Self(
            Obb::fit_unchecked(points, axes),
            Rss::fit_unchecked(points, axes),
            axes,
        ))
    }
    fn fit_node(
        triangles: &[[DVec3; 3]],
        axes: Option<DMat3>,
        local: &mut Vec<DVec3>,
        tighten: bool,
    ) -> Result<Self, FitError> {
        let tight = |obb: Obb| {
            if tighten {
                obb.tightened(triangles.as_flattened())
            } else {
                obb
            }
        };
        let Some(axes) = axes else {
            let obb = Obb::fit_node(triangles, None, local, false)?;
            let frame = obb.axes;
            let rss = Rss::fit_node(triangles, None, local, false)?;
            return Ok(Self(tight(obb), rss, frame));
        };
        // The passes of both fits, interleaved, with each point's
        // coordinates in the frame computed once: the arithmetic of the two
        // fits, hence the same volumes.
        let points = triangles.as_flattened();
        local.clear();
        let (mut lo, mut hi) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
        let (mut minz, mut maxz) = (f64::INFINITY, f64::NEG_INFINITY);
        local.extend(points.iter().map(|p| {
            let u = axes.transpose() * *p;
            lo = lo.min(u);
            hi = hi.max(u);
            minz = minz.min(u.z);
            maxz = maxz.max(u.z);
            u
        }));
        let obb = Obb::centred(axes, lo, hi);
        let mut e = DVec3::ZERO;
        let mut sides = RssSides::new(minz, maxz);
        for (p, u) in points.iter().zip(local.iter()) {
            e = e.max(obb.local(*p).abs());
            sides.add(*u);
        }
        sides.settle();
        for u in local.iter() {
            sides.add_corner(*u);
        }
        let obb = tight(obb.with_measured_extents(e));
        Ok(Self(obb, Rss::finish(points, axes, &sides), axes))
    }
    fn node_split_axes(&self) -> DMat3 {
        self.2
    }
}

/// Subtrees of at least this many triangles build their two halves on two
/// threads (the tree does not depend on the thread count).
const PARALLEL_BUILD: usize = 16_384;

/// The proof, passed to [`BvhVolume::fit_validated`], that the builder
/// validated the triangles; it cannot be named outside this module.
mod sealed {
    #[derive(Debug, Clone, Copy)]
    pub struct Validated(pub(super) ());
}

/// What every node of one build shares.
struct Build<'a> {
    /// Per-triangle moments (oriented volumes), indexed by triangle id.
    moments: Option<&'a [[f64; 10]]>,
    leaf: usize,
    split: SplitRule,
    /// Whether OBBs below the root are [`Obb::tightened`].
    tighten: bool,
}

/// Per-node build work of [`Build::serial`]: the node, its triangle range
/// and its depth.
struct Pending {
    node: usize,
    range: Range<usize>,
    depth: usize,
}

/// Reusable buffers of [`Build::split_node`].
#[derive(Default)]
struct Scratch {
    keys: Vec<(f64, u32)>,
    /// Points in a node's frame, for each child's fit.
    local: [Vec<DVec3>; 2],
}

/// A subtree of [`Build::subtree`]: laid out by [`Part::assemble`] once
/// the whole tree is built, so that the parallel levels do not copy their
/// halves' nodes.
enum Part<BV> {
    /// Nodes of [`Build::serial`] (root first, child indices local) and the
    /// depth.
    Serial(Vec<BvhNode<BV>>, usize),
    /// A node split on two threads.
    Split {
        bv: BV,
        /// Nodes in the subtree.
        nodes: usize,
        depth: usize,
        halves: Box<[Part<BV>; 2]>,
    },
}

impl<BV: Copy> Part<BV> {
    fn nodes(&self) -> usize {
        match self {
            Self::Serial(nodes, _) => nodes.len(),
            Self::Split { nodes, .. } => *nodes,
        }
    }

    fn depth(&self) -> usize {
        match self {
            Self::Serial(_, depth) | Self::Split { depth, .. } => *depth,
        }
    }

    /// Writes the subtree's root at `out[root]` and appends the rest: for a
    /// split node its two children's roots, then the rest of the left
    /// subtree, then the rest of the right one. Each node's volume is
    /// `volume` of the built one.
    fn assemble<W: Copy>(
        &self,
        out: &mut Vec<BvhNode<W>>,
        root: usize,
        volume: &impl Fn(&BV) -> W,
    ) {
        match self {
            Self::Serial(nodes, _) => {
                // Local index j ≥ 1 lands at base + j.
                let base = out.len() - 1;
                let shift = |node: &BvhNode<BV>| BvhNode {
                    bv: volume(&node.bv),
                    index: if node.is_leaf() {
                        node.index
                    } else {
                        node.index + base as u32
                    },
                    count: node.count,
                };
                out[root] = nodes.first().map(shift).unwrap_or(out[root]);
                out.extend(nodes.iter().skip(1).map(shift));
            }
            Self::Split { bv, halves, .. } => {
                let first = out.len();
                out[root] = BvhNode {
                    bv: volume(bv),
                    index: first as u32,
                    count: 0,
                };
                out.extend([out[root]; 2]);
                halves[0].assemble(out, first, volume);
                halves[1].assemble(out, first + 1, volume);
            }
        }
    }

    /// The node array of the whole tree, of exactly its length, with
    /// `volume` of each built volume.
    fn to_nodes<W: Copy>(&self, root_bv: &BV, volume: &impl Fn(&BV) -> W) -> Vec<BvhNode<W>> {
        let mut nodes = Vec::with_capacity(self.nodes());
        nodes.push(BvhNode {
            bv: volume(root_bv),
            index: 0,
            count: 0,
        });
        self.assemble(&mut nodes, 0, volume);
        nodes
    }
}

/// A node's triangles and ids where they are now (`tris`, `ids`) and the
/// same range of the other pair of arrays (`spare_*`), into which the split
/// gathers the children: the two pairs take turns level by level, so no
/// level copies its triangles back. `flipped` says that the ids are in the
/// second pair; a leaf then copies its ids into the first, which becomes
/// the tree's triangle order.
struct Buffers<'a> {
    tris: &'a mut [[DVec3; 3]],
    ids: &'a mut [u32],
    spare_tris: &'a mut [[DVec3; 3]],
    spare_ids: &'a mut [u32],
    flipped: bool,
}

impl<'a> Buffers<'a> {
    /// After a split at `mid` (the children in the spare arrays): the
    /// left and the right child's buffers.
    fn children(self, mid: usize) -> [Buffers<'a>; 2] {
        let (lt, rt) = self.spare_tris.split_at_mut(mid);
        let (li, ri) = self.spare_ids.split_at_mut(mid);
        let (lst, rst) = self.tris.split_at_mut(mid);
        let (lsi, rsi) = self.ids.split_at_mut(mid);
        [
            Buffers {
                tris: lt,
                ids: li,
                spare_tris: lst,
                spare_ids: lsi,
                flipped: !self.flipped,
            },
            Buffers {
                tris: rt,
                ids: ri,
                spare_tris: rst,
                spare_ids: rsi,
                flipped: !self.flipped,
            },
        ]
    }

    /// A leaf: its ids into the first pair of arrays.
    fn settle_leaf(self) {
        if self.flipped {
            self.spare_ids.copy_from_slice(self.ids);
        }
    }
}

impl Build<'_> {
    /// Builds the subtree over `buf` (positions `offset..` of the whole
    /// triangle array) whose root volume is `bv`. Returns its nodes,
    /// root first, child indices local to the returned vector, and its
    /// depth. Large subtrees build their two halves in parallel and lay out
    /// the nodes as: root, the two child roots, the rest of the left
    /// subtree, the rest of the right one.
    fn subtree<BV: NodeVolume>(
        &self,
        buf: Buffers<'_>,
        offset: usize,
        bv: BV,
        scratch: &mut Scratch,
    ) -> Result<Part<BV>, FitError> {
        if buf.tris.len() < PARALLEL_BUILD {
            let (nodes, depth) = self.serial(buf, offset, bv, scratch)?;
            return Ok(Part::Serial(nodes, depth));
        }
        let (mid, bl, br) = self.split_node(
            buf.tris,
            buf.ids,
            buf.spare_tris,
            buf.spare_ids,
            &bv,
            scratch,
        )?;
        let [lb, rb] = buf.children(mid);
        let (left, right) = if rayon::current_num_threads() > 1 {
            rayon::join(
                || self.subtree(lb, offset, bl, scratch),
                || self.subtree(rb, offset + mid, br, &mut Scratch::default()),
            )
        } else {
            // One thread: one set of buffers for the whole build.
            (
                self.subtree(lb, offset, bl, scratch),
                self.subtree(rb, offset + mid, br, scratch),
            )
        };
        let (left, right) = (left?, right?);
        Ok(Part::Split {
            bv,
            nodes: 1 + left.nodes() + right.nodes(),
            depth: 1 + left.depth().max(right.depth()),
            halves: Box::new([left, right]),
        })
    }

    /// [`Build::subtree`] on one thread, depth first: leaves in order along
    /// the triangle array.
    fn serial<BV: NodeVolume>(
        &self,
        buf: Buffers<'_>,
        offset: usize,
        bv: BV,
        scratch: &mut Scratch,
    ) -> Result<(Vec<BvhNode<BV>>, usize), FitError> {
        let Buffers {
            tris: ta,
            ids: ia,
            spare_tris: tb,
            spare_ids: ib,
            flipped,
        } = buf;
        let n = ta.len();
        // A binary tree with ⌈n / leaf⌉ or more leaves has fewer than 2n
        // nodes; reserving avoids regrowth on large meshes.
        let mut nodes = Vec::with_capacity(2 * n.div_ceil(self.leaf));
        nodes.push(BvhNode {
            bv,
            index: 0,
            count: 0,
        });
        let mut depth = 0;
        // With each node: whether its triangles are in `tb` / `ib`.
        let mut stack = vec![(
            Pending {
                node: 0,
                range: 0..n,
                depth: 0,
            },
            false,
        )];
        while let Some((
            Pending {
                node,
                range,
                depth: d,
            },
            turned,
        )) = stack.pop()
        {
            depth = depth.max(d);
            let len = range.len();
            let r = range.clone();
            let here = if turned {
                Buffers {
                    tris: &mut tb[r.clone()],
                    ids: &mut ib[r.clone()],
                    spare_tris: &mut ta[r.clone()],
                    spare_ids: &mut ia[r],
                    flipped: !flipped,
                }
            } else {
                Buffers {
                    tris: &mut ta[r.clone()],
                    ids: &mut ia[r.clone()],
                    spare_tris: &mut tb[r.clone()],
                    spare_ids: &mut ib[r],
                    flipped,
                }
            };
            if len <= self.leaf {
                here.settle_leaf();
                nodes[node].index = (offset + range.start) as u32;
                nodes[node].count = len as u32;
                continue;
            }
            let bv = nodes[node].bv;
            let (mid, bl, br) = self.split_node(
                here.tris,
                here.ids,
                here.spare_tris,
                here.spare_ids,
                &bv,
                scratch,
            )?;
            let first = nodes.len();
            for bv in [bl, br] {
                nodes.push(BvhNode {
                    bv,
                    index: 0,
                    count: 0,
                });
            }
            nodes[node].index = first as u32;
            // Right pushed first: the left subtree is finished first.
            stack.push((
                Pending {
                    node: first + 1,
                    range: range.start + mid..range.end,
                    depth: d + 1,
                },
                !turned,
            ));
            stack.push((
                Pending {
                    node: first,
                    range: range.start..range.start + mid,
                    depth: d + 1,
                },
                !turned,
            ));
        }
        Ok((nodes, depth))
    }

    /// Splits one node's triangles from `tris` / `ids` into `to_tris` /
    /// `to_ids` (see [`split`]) and fits its two children; large ones on
    /// two threads.
    fn split_node<BV: NodeVolume>(
        &self,
        tris: &[[DVec3; 3]],
        ids: &[u32],
        to_tris: &mut [[DVec3; 3]],
        to_ids: &mut [u32],
        bv: &BV,
        scratch: &mut Scratch,
    ) -> Result<(usize, BV, BV), FitError> {
        let len = tris.len();
        let mid = split(
            tris,
            ids,
            to_tris,
            to_ids,
            bv.node_split_axes(),
            self.split,
            self.leaf,
            &mut scratch.keys,
        );
        let (lt, rt) = to_tris.split_at(mid);
        let (li, ri) = to_ids.split_at(mid);
        let fit = |t: &[[DVec3; 3]], i: &[u32], local: &mut Vec<DVec3>| {
            let axes = self.moments.and_then(|m| {
                // Up to SMALL_NODE triangles: the frame of the largest one
                // (longest edge, normal), without an eigen decomposition per
                // small node; containment does not depend on the frame.
                if t.len() <= SMALL_NODE {
                    let largest = t
                        .iter()
                        .zip(i)
                        .max_by(|a, b| m[*a.1 as usize][0].total_cmp(&m[*b.1 as usize][0]));
                    if let Some(frame) = largest.and_then(|(tri, _)| triangle_frame(tri)) {
                        return Some(frame);
                    }
                }
                moments_frame(m, i)
            });
            BV::fit_node(t, axes, local, self.tighten)
        };
        let [ll, rl] = &mut scratch.local;
        let (bl, br) = if len >= PARALLEL_FIT {
            rayon::join(|| fit(lt, li, ll), || fit(rt, ri, rl))
        } else {
            (fit(lt, li, ll), fit(rt, ri, rl))
        };
        Ok((mid, bl?, br?))
    }
}

/// Area, first moment and second moment (upper triangle) of each
/// triangle relative to the first vertex of the first triangle, as in
/// [`fit::covariance_triangles`] (a fixed origin instead of each node's own
/// only changes the rounding of the fitted axes, never containment, which
/// the fit measures afterwards).
fn triangle_moments(tris: &[[DVec3; 3]]) -> Vec<[f64; 10]> {
    let Some(o) = tris.first().map(|t| t[0]) else {
        return Vec::new();
    };
    tris.iter()
        .map(|t| {
            let (p, q, r) = (t[0] - o, t[1] - o, t[2] - o);
            let a = 0.5 * (q - p).cross(r - p).length();
            if !(a > 0.0 && a.is_finite()) {
                return [0.0; 10];
            }
            let m = (p + q + r) / 3.0;
            let w = a / 12.0;
            let mut out = [0.0; 10];
            out[0] = a;
            out[1] = a * m.x;
            out[2] = a * m.y;
            out[3] = a * m.z;
            let mut k = 4;
            for i in 0..3 {
                for j in i..3 {
                    out[k] = w * (p[i] * p[j] + q[i] * q[j] + r[i] * r[j] + 9.0 * m[i] * m[j]);
                    k += 1;
                }
            }
            out
        })
        .collect()
}

/// Nodes of at most this many triangles take the frame of their largest
/// triangle ([`triangle_frame`]) instead of their principal frame.
const SMALL_NODE: usize = 1;

/// An orthonormal frame of one triangle: x along its longest edge, z along
/// its normal; `None` for a degenerate triangle.
fn triangle_frame(t: &[DVec3; 3]) -> Option<DMat3> {
    let edges = [t[1] - t[0], t[2] - t[1], t[0] - t[2]];
    let e = edges
        .into_iter()
        .max_by(|a, b| a.length_squared().total_cmp(&b.length_squared()))?;
    let n = edges[0].cross(edges[1]);
    let x = e.try_normalize()?;
    let z = n.try_normalize()?;
    let frame = fit::orthonormal_frame(x, z.cross(x));
    frame.is_finite().then_some(frame)
}

/// The principal frame of the triangles `ids` from their moments, `None`
/// when their area is zero (the caller then fits from the points).
fn moments_frame(moments: &[[f64; 10]], ids: &[u32]) -> Option<DMat3> {
    let mut sum = [0.0; 10];
    for &i in ids {
        let m = &moments[i as usize];
        for k in 0..10 {
            sum[k] += m[k];
        }
    }
    let area = sum[0];
    if !(area > 0.0 && area.is_finite()) {
        return None;
    }
    let mean = DVec3::new(sum[1], sum[2], sum[3]) / area;
    let mut c = [[0.0; 3]; 3];
    let mut k = 4;
    for i in 0..3 {
        for j in i..3 {
            let v = sum[k] / area - mean[i] * mean[j];
            c[i][j] = v;
            c[j][i] = v;
            k += 1;
        }
    }
    Some(fit::principal_frame(c))
}

/// Writes `tris` / `ids` reordered into `to_tris` / `to_ids` so that the
/// first `mid` triangles go left, and returns `mid` (`0 < mid < len`).
#[allow(clippy::too_many_arguments)]
fn split(
    tris: &[[DVec3; 3]],
    ids: &[u32],
    to_tris: &mut [[DVec3; 3]],
    to_ids: &mut [u32],
    axes: DMat3,
    rule: SplitRule,
    leaf: usize,
    keys: &mut Vec<(f64, u32)>,
) -> usize {
    let len = tris.len();
    // Centroids times 3: the factor changes no order or spread.
    let (mut lo, mut hi) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
    let at = axes.transpose();
    for t in tris.iter() {
        let u = at * (t[0] + t[1] + t[2]);
        lo = lo.min(u);
        hi = hi.max(u);
    }
    let spread = hi - lo;
    let k = if spread.x >= spread.y && spread.x >= spread.z {
        0
    } else if spread.y >= spread.z {
        1
    } else {
        2
    };
    let axis = axes.col(k);
    keys.clear();
    keys.extend(
        tris.iter()
            .enumerate()
            .map(|(i, t)| ((t[0] + t[1] + t[2]).dot(axis), i as u32)),
    );
    let mut mid = if rule == SplitRule::PackedMedian {
        // Called only with more than `leaf` triangles: at least two leaves,
        // so `0 < mid < len`.
        leaf * len.div_ceil(leaf).div_ceil(2)
    } else {
        len / 2
    };
    let mut by_median = true;
    if rule == SplitRule::Mean {
        let mean = keys.iter().map(|k| k.0).sum::<f64>() / len as f64;
        let mut l = 0;
        for i in 0..len {
            if keys[i].0 < mean {
                keys.swap(i, l);
                l += 1;
            }
        }
        if l > 0 && l < len {
            mid = l;
            by_median = false;
        }
    }
    if by_median {
        // `total_cmp` orders every f64 (the keys are finite anyway), so
        // the selection cannot panic.
        keys.select_nth_unstable_by(mid, |a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    }
    for ((t, i), &(_, k)) in to_tris.iter_mut().zip(to_ids.iter_mut()).zip(keys.iter()) {
        *t = tris[k as usize];
        *i = ids[k as usize];
    }
    mid
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(n: usize) -> TriMesh {
        let mut v = Vec::new();
        let mut idx = Vec::new();
        for i in 0..=n {
            for j in 0..=n {
                v.push(DVec3::new(i as f64, j as f64, ((i * j) % 3) as f64 * 0.1));
            }
        }
        let at = |i: usize, j: usize| (i * (n + 1) + j) as u32;
        for i in 0..n {
            for j in 0..n {
                idx.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
                idx.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
            }
        }
        TriMesh::new(v, idx).unwrap()
    }

    #[test]
    fn every_triangle_is_in_exactly_one_leaf() {
        let mesh = grid(9);
        for leaf in 1..=4 {
            for split in [SplitRule::Median, SplitRule::Mean, SplitRule::PackedMedian] {
                let o = BvhOptions::default()
                    .with_max_leaf_triangles(leaf)
                    .with_split(split);
                let bvh = Bvh::<Obb>::build(&mesh, &o).unwrap();
                let mut seen = vec![0; mesh.num_triangles()];
                for node in bvh.nodes() {
                    for &t in bvh.leaf_triangles(node) {
                        seen[t as usize] += 1;
                    }
                    if let Some(r) = node.triangle_range() {
                        assert!((1..=leaf).contains(&r.len()));
                    }
                }
                assert!(seen.iter().all(|&c| c == 1));
                assert_eq!(bvh.num_nodes(), 2 * bvh.num_leaves() - 1);
            }
        }
    }

    #[test]
    fn packed_median_fills_every_leaf_but_one() {
        let mesh = grid(17); // 578 triangles
        for leaf in 1..=MAX_LEAF_TRIANGLES {
            let o = BvhOptions::default()
                .with_max_leaf_triangles(leaf)
                .with_split(SplitRule::PackedMedian);
            let bvh = Bvh::<Rss>::build(&mesh, &o).unwrap();
            let leaves = mesh.num_triangles().div_ceil(leaf);
            assert_eq!(bvh.num_leaves(), leaves, "leaf size {leaf}");
            assert_eq!(bvh.num_nodes(), 2 * leaves - 1);
            let partial = bvh
                .nodes()
                .iter()
                .filter(|n| n.triangle_range().is_some_and(|r| r.len() < leaf))
                .count();
            assert!(partial <= 1, "leaf size {leaf}: {partial} partial leaves");
            // As balanced as the median split: ⌈log₂ leaves⌉.
            let depth = (usize::BITS - (leaves - 1).leading_zeros()) as usize;
            assert_eq!(bvh.depth(), depth, "leaf size {leaf}");
            assert_eq!(
                bvh.heap_bytes(),
                bvh.memory_bytes() - core::mem::size_of::<Bvh<Rss>>()
            );
        }
    }

    #[test]
    fn median_tree_is_balanced() {
        let mesh = grid(16); // 512 triangles
        let bvh =
            Bvh::<Aabb>::build(&mesh, &BvhOptions::default().with_max_leaf_triangles(1)).unwrap();
        assert_eq!(bvh.depth(), 9);
        assert_eq!(bvh.num_nodes(), 1023);
    }

    /// A mesh large enough for the parallel subtree layout: every node
    /// reached exactly once from the root, every node's volume holds every
    /// triangle below it, every triangle in exactly one leaf, and the depth
    /// matches the reached nodes.
    #[test]
    fn parallel_layout_is_a_valid_tree() {
        let mesh = grid(110); // 24,200 triangles ≥ PARALLEL_BUILD
        assert!(mesh.num_triangles() >= PARALLEL_BUILD);
        let tris: Vec<[DVec3; 3]> = mesh.triangles().collect();
        let bvh = Bvh::<Rss>::new(&mesh).unwrap();
        let mut reached = vec![0; bvh.num_nodes()];
        let mut seen = vec![0; mesh.num_triangles()];
        let mut max_depth = 0;
        // (node, depth, triangles below collected at the leaves)
        let mut stack = vec![(0, 0)];
        while let Some((i, d)) = stack.pop() {
            reached[i] += 1;
            max_depth = max_depth.max(d);
            let node = bvh.nodes()[i];
            match node.children() {
                Some([l, r]) => {
                    stack.push((l, d + 1));
                    stack.push((r, d + 1));
                }
                None => {
                    for &t in bvh.leaf_triangles(&node) {
                        seen[t as usize] += 1;
                    }
                }
            }
        }
        assert!(reached.iter().all(|&c| c == 1));
        assert!(seen.iter().all(|&c| c == 1));
        assert_eq!(max_depth, bvh.depth());
        // Containment: each leaf's triangles are inside every ancestor.
        let mut path = vec![(0usize, Vec::<usize>::new())];
        while let Some((i, ancestors)) = path.pop() {
            let node = bvh.nodes()[i];
            let mut chain = ancestors.clone();
            chain.push(i);
            match node.children() {
                Some([l, r]) => {
                    path.push((l, chain.clone()));
                    path.push((r, chain));
                }
                None => {
                    for &t in bvh.leaf_triangles(&node) {
                        for &a in &chain {
                            let bv = bvh.nodes()[a].bv;
                            assert!(tris[t as usize].iter().all(|&p| bv.contains_point(p)));
                        }
                    }
                }
            }
        }
    }

    fn assert_same_tree<BV: PartialEq + core::fmt::Debug>(a: &Bvh<BV>, b: &Bvh<BV>) {
        assert_eq!(a.depth, b.depth);
        assert_eq!(a.triangles, b.triangles);
        assert_eq!(a.nodes.len(), b.nodes.len());
        // Bit for bit: `PartialEq` on the volumes' fields.
        for (i, (x, y)) in a.nodes.iter().zip(&b.nodes).enumerate() {
            assert_eq!(x, y, "node {i}");
        }
        assert_eq!(a.heap_bytes(), b.heap_bytes());
    }

    /// The points of the triangles below `node`.
    fn points_below<BV>(bvh: &Bvh<BV>, mesh: &TriMesh, node: usize) -> Vec<DVec3> {
        let n = &bvh.nodes[node];
        match n.children() {
            Some([l, r]) => {
                let mut p = points_below(bvh, mesh, l);
                p.extend(points_below(bvh, mesh, r));
                p
            }
            None => bvh
                .leaf_triangles(n)
                .iter()
                .flat_map(|&t| mesh.triangle(t as usize))
                .collect(),
        }
    }

    /// The OBB tree of the one-pass build against the OBB tree built
    /// alone: the same nodes, the same root box, and below it boxes that
    /// hold their triangles and are never larger in surface (the principal
    /// frame's box is one of the candidates), and smaller somewhere.
    fn assert_tightened_tree(alone: &Bvh<Obb>, together: &Bvh<Obb>, mesh: &TriMesh) {
        assert_eq!(alone.depth, together.depth);
        assert_eq!(alone.triangles, together.triangles);
        assert_eq!(alone.nodes.len(), together.nodes.len());
        assert_eq!(alone.nodes[0], together.nodes[0], "root");
        let area = |b: &Obb| {
            let h = b.half_extents;
            h.x * h.y + h.y * h.z + h.z * h.x
        };
        let mut smaller = 0;
        for (i, (x, y)) in alone.nodes.iter().zip(&together.nodes).enumerate() {
            assert_eq!(x.children(), y.children(), "node {i}");
            assert_eq!(x.triangle_range(), y.triangle_range(), "node {i}");
            for p in points_below(together, mesh, i) {
                assert!(y.bv.contains_point(p), "node {i} misses {p}");
            }
            assert!(area(&y.bv) <= area(&x.bv), "node {i} grew");
            smaller += usize::from(area(&y.bv) < area(&x.bv));
        }
        assert!(smaller > 0, "no box was tightened");
    }

    /// The one-pass OBB and RSS build gives the RSS tree of its own build,
    /// and the OBB tree of its own build, with the boxes below the root
    /// tightened or not as asked, for every split rule and leaf size, on
    /// meshes below and above the parallel threshold, on one thread and on
    /// several.
    #[test]
    fn obb_and_rss_built_together_equal_their_own_builds() {
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let two = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        for mesh in [grid(9), grid(110)] {
            for leaf in [1, 4] {
                for split in [SplitRule::Median, SplitRule::Mean, SplitRule::PackedMedian] {
                    let o = BvhOptions::default()
                        .with_max_leaf_triangles(leaf)
                        .with_split(split);
                    let obb = Bvh::<Obb>::build(&mesh, &o).unwrap();
                    let rss = Bvh::<Rss>::build(&mesh, &o).unwrap();
                    for pool in [&one, &two] {
                        let (o2, r2) = pool.install(|| build_obb_rss(&mesh, &o, true)).unwrap();
                        assert_tightened_tree(&obb, &o2, &mesh);
                        assert_same_tree(&rss, &r2);
                        assert_same_tree(
                            &o2,
                            &pool.install(|| build_obb_rss(&mesh, &o, true)).unwrap().0,
                        );
                        let (o3, r3) = pool.install(|| build_obb_rss(&mesh, &o, false)).unwrap();
                        assert_same_tree(&obb, &o3);
                        assert_same_tree(&rss, &r3);
                        assert_same_tree(
                            &obb,
                            &pool.install(|| Bvh::<Obb>::build(&mesh, &o)).unwrap(),
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn bad_leaf_size_is_an_error() {
        let mesh = grid(2);
        for leaf in [0, 5] {
            let o = BvhOptions::default().with_max_leaf_triangles(leaf);
            assert!(matches!(
                Bvh::<Rss>::build(&mesh, &o),
                Err(GeometryError::InvalidParameter {
                    name: "max_leaf_triangles",
                    ..
                })
            ));
        }
    }
}
