//! Mesh–mesh queries over two bounding-volume hierarchies: the shared
//! pieces (posed meshes, statistics, the relative frame) and collision.

use glam::{DAffine3, DVec3};

use crate::bv::{Aabb, Obb, Rss};
use crate::bvh::{Bvh, BvhNode, BvhVolume, RigidMap};
use crate::{GeometryError, TriMesh};

use super::triangle_triangle::triangle_pair;
use super::{
    distance_bounds_rss_rss, distance_lower_bound_triangle_triangle, distance_rss_rss,
    intersect_triangle_triangle, overlap_aabb_aabb, overlap_obb_obb,
    rss_rss::{near_distance_lower_bound_rss, posed_distance_bounds_rss_rss},
};

/// How far a pose's linear part may be from a rotation (`|RᵀR − I|`, largest
/// entry) and still count as rigid.
pub const RIGID_TOLERANCE: f64 = 1e-9;

/// A mesh, a hierarchy built on it, and a rigid pose (mesh frame → world).
/// The constructor checks that the three belong together, so the queries
/// are infallible on it.
#[derive(Debug, Clone, Copy)]
pub struct MeshObject<'a, BV> {
    mesh: &'a TriMesh,
    bvh: &'a Bvh<BV>,
    pose: DAffine3,
}

impl<'a, BV> MeshObject<'a, BV> {
    /// Pairs a mesh with its hierarchy under a pose.
    ///
    /// # Errors
    /// [`GeometryError::BvhMeshMismatch`] when `bvh` indexes another number
    /// of triangles than `mesh` has; [`GeometryError::InvalidParameter`]
    /// (`pose`) when the pose is not finite or its linear part is not a
    /// rotation within [`RIGID_TOLERANCE`] (distances are measured in the
    /// first object's frame, which a scale or shear would distort).
    pub fn new(mesh: &'a TriMesh, bvh: &'a Bvh<BV>, pose: DAffine3) -> Result<Self, GeometryError> {
        bvh.check_mesh(mesh)?;
        let m = pose.matrix3;
        let g = m.transpose() * m - glam::DMat3::IDENTITY;
        let dev = g
            .abs()
            .to_cols_array()
            .iter()
            .fold(0.0_f64, |s, x| s.max(*x));
        let det = m.determinant();
        // `!(dev <= tol)` also catches NaN.
        if !pose.is_finite() || !(dev <= RIGID_TOLERANCE) || !(det > 0.0) {
            return Err(GeometryError::InvalidParameter {
                name: "pose",
                value: det,
                why: "must be a finite rigid transform (a rotation and a translation)",
            });
        }
        Ok(Self { mesh, bvh, pose })
    }

    /// The mesh.
    #[must_use]
    pub fn mesh(&self) -> &'a TriMesh {
        self.mesh
    }

    /// The hierarchy.
    #[must_use]
    pub fn bvh(&self) -> &'a Bvh<BV> {
        self.bvh
    }

    /// The pose (mesh frame → world).
    #[must_use]
    pub fn pose(&self) -> DAffine3 {
        self.pose
    }
}

/// Work counters of a mesh–mesh query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QueryStats {
    /// Bounding-volume pair tests (overlap tests or distance bounds).
    pub bv_tests: u64,
    /// Triangle pair tests (intersection tests or distances).
    pub triangle_tests: u64,
}

/// A bounding volume with a conservative overlap test, for [`collide`].
pub trait OverlapVolume: BvhVolume {
    /// `false` only when the volumes are certainly disjoint.
    fn may_overlap(&self, other: &Self) -> bool;

    /// [`OverlapVolume::may_overlap`] of two pairs, `[a[0] with b[0], a[1]
    /// with b[1]]`, the same answers (a volume may test both at once).
    #[inline]
    fn may_overlap_pair(a: [&Self; 2], b: [&Self; 2]) -> [bool; 2] {
        [a[0].may_overlap(b[0]), a[1].may_overlap(b[1])]
    }
}

impl OverlapVolume for Obb {
    #[inline]
    fn may_overlap(&self, other: &Self) -> bool {
        overlap_obb_obb(self, other)
    }

    #[inline]
    fn may_overlap_pair(a: [&Self; 2], b: [&Self; 2]) -> [bool; 2] {
        super::obb_obb::overlap_obb_obb_pair(a, b)
    }
}

impl OverlapVolume for Aabb {
    #[inline]
    fn may_overlap(&self, other: &Self) -> bool {
        overlap_aabb_aabb(self, other)
    }
}

impl OverlapVolume for Rss {
    #[inline]
    fn may_overlap(&self, other: &Self) -> bool {
        !(distance_rss_rss(self, other) > 0.0)
    }
}

/// A bounding volume with a certified distance lower bound, for the
/// distance queries.
pub trait DistanceVolume: BvhVolume {
    /// A lower bound, in floating point, on the distance between the
    /// volumes (0 when they may overlap).
    fn distance_lower_bound(&self, other: &Self) -> f64;

    /// A lower bound certified as [`DistanceVolume::distance_lower_bound`]
    /// is, but possibly a little below it (for swept rectangles: at most
    /// 5 % of the distance) when that is much cheaper: the key that orders
    /// and prunes a branch-and-bound descent whose answer comes from the
    /// triangles. The default is that bound itself.
    #[inline]
    fn near_distance_lower_bound(&self, other: &Self) -> f64 {
        self.distance_lower_bound(other)
    }

    /// [`DistanceVolume::near_distance_lower_bound`] for a descent that
    /// drops the pair when `prunes(bound)`: a cheaper certified bound
    /// that already prunes may be returned instead, so the pair is dropped
    /// all the same (a larger bound would prune too). The default is the
    /// near bound itself.
    #[inline]
    fn near_distance_lower_bound_or_pruned(
        &self,
        other: &Self,
        prunes: impl Fn(f64) -> bool,
    ) -> f64 {
        let _ = prunes;
        self.near_distance_lower_bound(other)
    }

    /// Cheap bounds `(lower, upper)` on the same distance, for deciding
    /// most pairs against `threshold` before
    /// [`DistanceVolume::distance_lower_bound`]: `lower` is certified as
    /// that one is (it may be smaller), `upper` is a distance the volumes
    /// certainly come within, up to rounding. The default decides nothing:
    /// `(0, ∞)`.
    #[inline]
    fn distance_bounds(&self, _other: &Self, _threshold: f64) -> (f64, f64) {
        (0.0, f64::INFINITY)
    }

    /// [`DistanceVolume::distance_bounds`] for the two volumes given in
    /// their own frames under the rigid poses of two [`MeshObject`]s, as a
    /// bound in the first one's frame, when they can be had without the
    /// relative pose and the lower one exceeds `threshold`: the cheap
    /// rejection of far-apart objects. The default gives `None`.
    #[inline]
    fn posed_distance_bounds(
        &self,
        _pose: &DAffine3,
        _other: &Self,
        _other_pose: &DAffine3,
        _threshold: f64,
    ) -> Option<(f64, f64)> {
        None
    }
}

impl DistanceVolume for Rss {
    #[inline]
    fn distance_lower_bound(&self, other: &Self) -> f64 {
        distance_rss_rss(self, other)
    }

    #[inline]
    fn near_distance_lower_bound(&self, other: &Self) -> f64 {
        near_distance_lower_bound_rss(self, other, |_| false)
    }

    #[inline]
    fn near_distance_lower_bound_or_pruned(
        &self,
        other: &Self,
        prunes: impl Fn(f64) -> bool,
    ) -> f64 {
        near_distance_lower_bound_rss(self, other, prunes)
    }

    #[inline]
    fn distance_bounds(&self, other: &Self, threshold: f64) -> (f64, f64) {
        distance_bounds_rss_rss(self, other, threshold)
    }

    #[inline]
    fn posed_distance_bounds(
        &self,
        pose: &DAffine3,
        other: &Self,
        other_pose: &DAffine3,
        threshold: f64,
    ) -> Option<(f64, f64)> {
        posed_distance_bounds_rss_rss(self, pose, other, other_pose, threshold)
    }
}

/// The two objects seen from the first one's frame: every test runs there,
/// with the second object's volumes and triangles mapped by `rel`.
pub(crate) struct Posed<'o, 'a, BV> {
    pub(crate) a: &'o MeshObject<'a, BV>,
    pub(crate) b: &'o MeshObject<'a, BV>,
    /// B's mesh frame → A's mesh frame.
    pub(crate) rel: DAffine3,
    /// `rel` prepared for mapping B's volumes.
    pub(crate) map: RigidMap,
}

impl<'o, 'a, BV: BvhVolume> Posed<'o, 'a, BV> {
    pub(crate) fn new(a: &'o MeshObject<'a, BV>, b: &'o MeshObject<'a, BV>) -> Self {
        Self::with_rel(a, b, relative_pose(&a.pose, &b.pose))
    }

    pub(crate) fn with_rel(
        a: &'o MeshObject<'a, BV>,
        b: &'o MeshObject<'a, BV>,
        rel: DAffine3,
    ) -> Self {
        Self {
            a,
            b,
            rel,
            map: RigidMap::new(&rel),
        }
    }

    #[inline]
    pub(crate) fn node_a(&self, i: u32) -> &'a BvhNode<BV> {
        &self.a.bvh.nodes()[i as usize]
    }

    #[inline]
    pub(crate) fn node_b(&self, j: u32) -> &'a BvhNode<BV> {
        &self.b.bvh.nodes()[j as usize]
    }

    /// B's node volume in A's frame.
    #[inline]
    pub(crate) fn bv_b(&self, j: u32) -> BV {
        self.node_b(j).bv.transform_rigid(&self.map)
    }

    #[inline]
    pub(crate) fn tri_a(&self, t: u32) -> [DVec3; 3] {
        self.a.mesh.triangle(t as usize)
    }

    #[inline]
    pub(crate) fn tri_b(&self, t: u32) -> [DVec3; 3] {
        self.b
            .mesh
            .triangle(t as usize)
            .map(|p| self.rel.transform_point3(p))
    }

    /// Which node of a pair to split: A's when B's is a leaf, or when A's
    /// is an inner node with the larger volume (M2 Fig. 4, step 4).
    #[inline]
    pub(crate) fn split_a(&self, na: &BvhNode<BV>, bv_a: &BV, nb: &BvhNode<BV>, bv_b: &BV) -> bool {
        nb.is_leaf() || (!na.is_leaf() && bv_a.size() >= bv_b.size())
    }

    /// Pushes the two child pairs of the node pair `[ia, ib]` (splitting
    /// the node [`Posed::split_a`] picks; `bv_b` is B's volume in A's
    /// frame), the left child's on top.
    #[inline]
    pub(crate) fn push_split(&self, [ia, ib]: [u32; 2], bv_b: &BV, stack: &mut Vec<[u32; 2]>) {
        let (na, nb) = (self.node_a(ia), self.node_b(ib));
        if self.split_a(na, &na.bv, nb, bv_b) {
            let [l, r] = child_ids(na);
            stack.push([r, ib]);
            stack.push([l, ib]);
        } else {
            let [l, r] = child_ids(nb);
            stack.push([ia, r]);
            stack.push([ia, l]);
        }
    }

    /// A point of A's frame in the world.
    #[inline]
    pub(crate) fn to_world(&self, p: DVec3) -> DVec3 {
        self.a.pose.transform_point3(p)
    }
}

/// The map from `b`'s mesh frame to `a`'s: `pose_a⁻¹ · pose_b`. Every mesh
/// query tests in `a`'s frame with this map applied to `b`; it is public so
/// that an oracle can reproduce the queries' arithmetic.
#[must_use]
pub fn relative_pose(pose_a: &DAffine3, pose_b: &DAffine3) -> DAffine3 {
    pose_a.inverse() * *pose_b
}

/// What [`collide`] looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CollideMode {
    /// Stop at the first intersecting triangle pair.
    #[default]
    First,
    /// Find every intersecting triangle pair.
    All,
}

/// The answer of [`collide`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeshCollision {
    /// Whether some triangle pair intersects (conservatively, as
    /// [`intersect_triangle_triangle`] decides).
    pub colliding: bool,
    /// The first intersecting pair found: `[triangle of a, triangle of b]`.
    pub first: Option<[u32; 2]>,
    /// Work done.
    pub stats: QueryStats,
}

/// Reusable scratch of [`collide`]: the traversal stack and, in
/// [`CollideMode::All`], the pairs found. Grows to the largest query seen,
/// then no query allocates.
#[derive(Debug, Clone, Default)]
pub struct CollideWorkspace {
    stack: Vec<[u32; 2]>,
    pairs: Vec<[u32; 2]>,
}

impl CollideWorkspace {
    /// An empty workspace.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The intersecting pairs `[triangle of a, triangle of b]` the last
    /// [`collide`] found, in traversal order (one pair in
    /// [`CollideMode::First`], none when free).
    #[must_use]
    pub fn pairs(&self) -> &[[u32; 2]] {
        &self.pairs
    }
}

/// Whether two posed meshes intersect, and which triangle pairs do.
///
/// **Method.** The classical simultaneous descent (Gottschalk et al. 1996):
/// a pair of nodes is dropped as soon as their volumes are disjoint
/// ([`OverlapVolume::may_overlap`], with B's volume mapped into A's frame by
/// its conservative [`BvhVolume::transform_rigid`]); the larger volume of an overlapping pair
/// is split, and its two child pairs are tested together
/// ([`OverlapVolume::may_overlap_pair`]: for OBBs one two-lane test,
/// [`super::overlap_obb_obb_pair`]); leaf pairs run
/// [`intersect_triangle_triangle`] on every triangle pair, B's triangle
/// mapped into A's frame by [`relative_pose`].
///
/// **Guarantee.** Never misses a pair: since every volume contains its
/// triangles and the volume tests are conservative, the pairs found are
/// exactly those for which [`intersect_triangle_triangle`] (conservative
/// itself, touching counts) reports an intersection in A's frame — the
/// brute-force set over all triangle pairs. The pairs are in
/// [`CollideWorkspace::pairs`].
pub fn collide<BV: OverlapVolume>(
    a: &MeshObject<'_, BV>,
    b: &MeshObject<'_, BV>,
    mode: CollideMode,
    ws: &mut CollideWorkspace,
) -> MeshCollision {
    ws.pairs.clear();
    let rel = relative_pose(&a.pose, &b.pose);
    if roots_apart(a, b, &rel) {
        return MeshCollision {
            colliding: false,
            first: None,
            stats: QueryStats {
                bv_tests: 1,
                ..QueryStats::default()
            },
        };
    }
    let mut c = descend(&Posed::with_rel(a, b, rel), &[0], mode, ws);
    c.stats.bv_tests += 1;
    c
}

/// Whether the triangle pair `[ta, tb]` (triangle `ta` of `a`, `tb` of
/// `b`) intersects, tested as [`collide`] tests it: B's triangle mapped
/// into A's frame, then [`intersect_triangle_triangle`]. A pair found by
/// an earlier query (a witness) is cheap to test again at a nearby pose:
/// `true` here means [`collide`] reports the meshes colliding. Ids out of
/// range answer `false`.
///
/// ```
/// use armature_bvh_geometry::query::{CollideMode, CollideWorkspace, MeshObject, collide, triangle_pair_intersects};
/// use armature_bvh_geometry::{Bvh, BvhOptions, Obb, TriMesh};
/// use glam::{DAffine3, DVec3};
/// let mesh = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y], vec![[0, 1, 2]])?;
/// let bvh = Bvh::<Obb>::build(&mesh, &BvhOptions::default())?;
/// let a = MeshObject::new(&mesh, &bvh, DAffine3::IDENTITY)?;
/// let turned = DAffine3::from_rotation_x(1.0) * DAffine3::from_translation(DVec3::new(0.2, 0.0, 0.0));
/// let b = MeshObject::new(&mesh, &bvh, turned)?;
/// let mut ws = CollideWorkspace::default();
/// let hit = collide(&a, &b, CollideMode::First, &mut ws);
/// assert!(hit.colliding);
/// assert!(triangle_pair_intersects(&a, &b, hit.first.unwrap()));
/// assert!(!triangle_pair_intersects(&a, &b, [0, 7]));
/// # Ok::<(), armature_bvh_geometry::GeometryError>(())
/// ```
#[must_use]
pub fn triangle_pair_intersects<BV: BvhVolume>(
    a: &MeshObject<'_, BV>,
    b: &MeshObject<'_, BV>,
    [ta, tb]: [u32; 2],
) -> bool {
    let (Some(t_a), Some(t_b)) = (
        a.mesh.get_triangle(ta as usize),
        b.mesh.get_triangle(tb as usize),
    ) else {
        return false;
    };
    let rel = relative_pose(&a.pose, &b.pose);
    intersect_triangle_triangle(&t_a, &t_b.map(|p| rel.transform_point3(p)))
}

/// [`collide`] on the triangles of `b` below the nodes `b_nodes` (ids into
/// `b`'s hierarchy, [`crate::Bvh::nodes`]) against all of `a`'s: the
/// descent starts from the pairs (A's root, each node), so the levels of
/// B above them cost nothing. Meant for nodes already known to hold every
/// triangle of `b` that can meet `a` (those of [`crate::TopBoxes::near_nodes`]
/// for `a`'s world box).
///
/// **Guarantee.** The pairs found are exactly those of [`collide`] whose
/// triangle of `b` lies below one of `b_nodes` (a triangle below two of
/// them is reported twice in [`CollideMode::All`]). Ids outside the
/// hierarchy are skipped.
pub fn collide_below<BV: OverlapVolume>(
    a: &MeshObject<'_, BV>,
    b: &MeshObject<'_, BV>,
    b_nodes: &[u32],
    mode: CollideMode,
    ws: &mut CollideWorkspace,
) -> MeshCollision {
    ws.pairs.clear();
    descend(&Posed::new(a, b), b_nodes, mode, ws)
}

/// A's node of a seed of [`descend`] (A's root, its volumes tested when
/// the seed is popped; the pairs a split pushes were tested together
/// before). No node has this id: ids are below the node count, a `u32`.
const SEED: u32 = u32::MAX;

/// The simultaneous descent of [`collide`] from the pairs (A's root, each
/// of B's `seeds`). A split tests its two child pairs together
/// ([`OverlapVolume::may_overlap_pair`]) and pushes those that may
/// overlap: the pairs tested, the leaf pairs reached and their order are
/// those of testing each pair when it is popped, but for a child pair
/// tested before a hit in its sibling's subtree ended the descent.
fn descend<BV: OverlapVolume>(
    p: &Posed<'_, '_, BV>,
    seeds: &[u32],
    mode: CollideMode,
    ws: &mut CollideWorkspace,
) -> MeshCollision {
    let (a, b) = (p.a, p.b);
    let count = b.bvh.nodes().len();
    let mut stats = QueryStats::default();
    ws.stack.clear();
    ws.stack.extend(
        seeds
            .iter()
            .rev()
            .filter(|&&j| (j as usize) < count)
            .map(|&j| [SEED, j]),
    );
    // B's nodes mapped into A's frame, the two most recent: a split of A's
    // node keeps its B node, a split of B's maps both children.
    let mut mapped: [Option<(u32, BV)>; 2] = [None, None];
    'pairs: while let Some([ia, ib]) = ws.stack.pop() {
        let bv_b = match mapped {
            [Some((k, bv)), _] | [_, Some((k, bv))] if k == ib => bv,
            _ => {
                let bv = p.bv_b(ib);
                mapped = [Some((ib, bv)), mapped[0]];
                bv
            }
        };
        let ia = if ia == SEED {
            stats.bv_tests += 1;
            if !p.node_a(0).bv.may_overlap(&bv_b) {
                continue;
            }
            0
        } else {
            ia
        };
        let (na, nb) = (p.node_a(ia), p.node_b(ib));
        if na.is_leaf() && nb.is_leaf() {
            for &tb in b.bvh.leaf_triangles(nb) {
                let t_b = p.tri_b(tb);
                for &ta in a.bvh.leaf_triangles(na) {
                    stats.triangle_tests += 1;
                    if intersect_triangle_triangle(&p.tri_a(ta), &t_b) {
                        ws.pairs.push([ta, tb]);
                        if mode == CollideMode::First {
                            break 'pairs;
                        }
                    }
                }
            }
            continue;
        }
        stats.bv_tests += 2;
        if p.split_a(na, &na.bv, nb, &bv_b) {
            let [l, r] = child_ids(na);
            let met = BV::may_overlap_pair([&p.node_a(l).bv, &p.node_a(r).bv], [&bv_b, &bv_b]);
            if met[1] {
                ws.stack.push([r, ib]);
            }
            if met[0] {
                ws.stack.push([l, ib]);
            }
        } else {
            let [l, r] = child_ids(nb);
            let (bv_l, bv_r) = (p.bv_b(l), p.bv_b(r));
            mapped = [Some((l, bv_l)), Some((r, bv_r))];
            let met = BV::may_overlap_pair([&na.bv, &na.bv], [&bv_l, &bv_r]);
            if met[1] {
                ws.stack.push([ia, r]);
            }
            if met[0] {
                ws.stack.push([ia, l]);
            }
        }
    }
    MeshCollision {
        colliding: !ws.pairs.is_empty(),
        first: ws.pairs.first().copied(),
        stats,
    }
}

/// The answer of [`apart_by`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeshSeparation {
    /// Whether the meshes are certainly more than the margin apart.
    pub apart: bool,
    /// Work done.
    pub stats: QueryStats,
}

/// Whether two posed meshes are certainly more than `margin` apart (world
/// distance), on their OBB trees: the collide descent with A's boxes grown
/// by the margin (a box grown by `m` along its axes holds every point within
/// `m` of it), and at the leaves the triangles' cheap gap, then their
/// distance less its error estimate. Cheaper than a distance bound where
/// only "farther than `margin`?" is asked: a box test instead of a volume
/// distance per node pair, and nothing is resolved once a pair is known to
/// be far enough.
///
/// **Guarantee.** `apart` only when the world distance exceeds `margin`:
/// the margin is raised to A's frame by the pose's stretch and rounding
/// (as GREEDY-DIST's bounds are lowered). Complete up to that: meshes more
/// than about `margin (1 + 1e-8)` plus a few ulps of the coordinates apart
/// are reported apart. NaN input is never apart.
///
/// # Errors
/// [`GeometryError::InvalidParameter`] (`margin`) unless finite and
/// non-negative.
pub fn apart_by(
    a: &MeshObject<'_, Obb>,
    b: &MeshObject<'_, Obb>,
    margin: f64,
    ws: &mut CollideWorkspace,
) -> Result<MeshSeparation, GeometryError> {
    crate::error::non_negative("margin", margin)?;
    let mut stats = QueryStats::default();
    ws.stack.clear();
    let p = Posed::new(a, b);
    let (absolute, factor) = super::mesh_mesh_distance::pose_error(&p);
    // A world distance of `(d − absolute) · factor` is certified from `d`
    // in A's frame: `d > m` proves more than `margin`.
    let m = margin / factor + absolute;
    let answer = |apart: bool, stats: QueryStats| Ok(MeshSeparation { apart, stats });
    if !(m.is_finite() && factor > 0.0) {
        return answer(false, stats);
    }
    stats.bv_tests += 1;
    let (ca, ra) = a.bvh.root().bv.enclosing_ball();
    let (cb, rb) = b.bvh.root().bv.enclosing_ball();
    let cb = p.rel.transform_point3(cb);
    let scale = ca.abs().max_element() + cb.abs().max_element() + ra + rb;
    if ca.distance(cb) > ra + rb * (1.0 + 1e-7) + 1e-12 * scale + m {
        return answer(true, stats);
    }
    ws.stack.push([0, 0]);
    while let Some([ia, ib]) = ws.stack.pop() {
        let (na, nb) = (p.node_a(ia), p.node_b(ib));
        let bv_b = p.bv_b(ib);
        stats.bv_tests += 1;
        let grown = Obb::new(
            na.bv.center,
            na.bv.axes,
            na.bv.half_extents + DVec3::splat(m),
        );
        if !grown.may_overlap(&bv_b) {
            continue;
        }
        if na.is_leaf() && nb.is_leaf() {
            for &tb in b.bvh.leaf_triangles(nb) {
                let t_b = p.tri_b(tb);
                for &ta in a.bvh.leaf_triangles(na) {
                    stats.triangle_tests += 1;
                    let t_a = p.tri_a(ta);
                    if distance_lower_bound_triangle_triangle(&t_a, &t_b, m) > m {
                        continue;
                    }
                    let (c, err) = triangle_pair(&t_a, &t_b, None);
                    // `!(x > m)` also catches NaN.
                    if !(c.distance - err > m) {
                        return answer(false, stats);
                    }
                }
            }
        } else {
            p.push_split([ia, ib], &bv_b, &mut ws.stack);
        }
    }
    answer(true, stats)
}

/// Whether the roots' enclosing balls are certainly disjoint: the cheap
/// rejection of far-apart objects, before the relative rotation is prepared.
/// The margins cover a pose up to [`RIGID_TOLERANCE`] off a rotation
/// (a relative stretch of at most a few `1e-9`) and the rounding of the
/// mapped centre.
fn roots_apart<BV: BvhVolume>(
    a: &MeshObject<'_, BV>,
    b: &MeshObject<'_, BV>,
    rel: &DAffine3,
) -> bool {
    let (ca, ra) = a.bvh.root().bv.enclosing_ball();
    let (cb, rb) = b.bvh.root().bv.enclosing_ball();
    let cb = rel.transform_point3(cb);
    let scale = ca.abs().max_element() + cb.abs().max_element() + ra + rb;
    let reach = ra + rb * (1.0 + 1e-7) + 1e-12 * scale;
    ca.distance_squared(cb) > reach * reach
}

/// An inner node's children as `u32` node ids (the hierarchy has fewer
/// than 2³² nodes: its triangle count fits `u32`).
#[inline]
pub(crate) fn child_ids<BV>(n: &BvhNode<BV>) -> [u32; 2] {
    match n.children() {
        Some([l, r]) => [l as u32, r as u32],
        // Callers split inner nodes only.
        None => [0, 0],
    }
}
