//! The CPU reference of CULLIDE: the same contract, decided exactly.
//!
//! A swept volume `S` (triangles dilated by `R_S`) and an environment
//! object `E` (an obstacle's mesh, dilation `R_E`) overlap when some
//! triangle of `S` comes within `R_S + R_E` of a triangle of `E` — found
//! through the obstacle's RSS tree and a tree built over the swept
//! triangles ([`within_distance`]) — or when `S` lies inside the solid of
//! a closed `E` (one point of `S` located through `E`'s tree; `E` inside
//! `S` is already a distance within `R_S`). The answer per object is then
//! exact: a swept volume is kept when it overlaps some candidate, a
//! candidate when it overlaps some swept volume. The GPU's answer must
//! keep at least these objects (it may keep more: its raster is
//! conservative).

use armature_bvh_geometry::body::Obstacle;
use armature_bvh_geometry::mesh::{DegeneratePolicy, MeshOptions, TriMesh};
use armature_bvh_geometry::query::{
    DistanceWorkspace, MeshObject, PointLocation, locate_point, within_distance,
};
use armature_bvh_geometry::{Bvh, BvhOptions, Rss};
use glam::{DAffine3, DVec3};

use crate::objects::{Bounds, CullResult, check_index};
use crate::{CullideError, SweptVolume};

/// Relative allowance on the distance tolerance for the `f64` rounding of
/// the triangle distances and the placed coordinates.
const TOLERANCE_PAD: f64 = 1e-9;

/// The exact CPU reference, over a scene's obstacles.
#[derive(Debug)]
pub struct CpuCullide<'a> {
    obstacles: &'a [Obstacle],
    /// Per obstacle, its world box grown by a rounding allowance (`None`
    /// when it cannot be computed: the pair then goes to the distance).
    boxes: Vec<Option<Bounds>>,
    ws: DistanceWorkspace,
}

impl<'a> CpuCullide<'a> {
    /// The reference over `obstacles` (environment object `k` is
    /// obstacle `k`).
    #[must_use]
    pub fn new(obstacles: &'a [Obstacle]) -> Self {
        let boxes = obstacles
            .iter()
            .map(|o| {
                let b = o.world_aabb().ok()?;
                let pad = TOLERANCE_PAD * (1.0 + b.min.abs().max(b.max.abs()).max_element());
                Some(Bounds {
                    min: b.min - DVec3::splat(pad),
                    max: b.max + DVec3::splat(pad),
                })
            })
            .collect();
        Self {
            obstacles,
            boxes,
            ws: DistanceWorkspace::default(),
        }
    }

    /// Whether swept volume `swept` overlaps obstacle `k` (static, at its
    /// pose).
    ///
    /// # Errors
    /// [`CullideError::Index`] for `k` out of range;
    /// [`CullideError::Geometry`] when the swept triangles cannot form a
    /// mesh (non-finite coordinates).
    pub fn overlaps(&mut self, swept: &SweptVolume, k: usize) -> Result<bool, CullideError> {
        let prepared = PreparedSwept::new(swept)?;
        match prepared {
            Some(p) => self.overlaps_prepared(&p, k),
            None => Ok(false),
        }
    }

    fn overlaps_prepared(&mut self, s: &PreparedSwept, k: usize) -> Result<bool, CullideError> {
        check_index("environment object", k, self.obstacles.len())?;
        // Boxes apart: the swept volume (its bounds hold the dilation) can
        // neither come near the obstacle nor lie inside it.
        if self.boxes[k].is_some_and(|b| !b.overlaps(&s.bounds)) {
            return Ok(false);
        }
        let obstacle = &self.obstacles[k];
        let g = obstacle.geometry();
        let pose = obstacle.pose_at(0.0);
        let a = MeshObject::new(&s.mesh, &s.bvh, DAffine3::IDENTITY)?;
        let b = MeshObject::new(&g.mesh, &g.rss_tree, pose)?;
        let reach = s.dilation * (1.0 + TOLERANCE_PAD) + TOLERANCE_PAD * s.scale;
        if within_distance(&a, &b, reach, &mut self.ws)?.within {
            return Ok(true);
        }
        // Apart by more than the dilation: either disjoint, or the swept
        // volume is inside a closed obstacle's solid (then all of it is,
        // so one point decides).
        if g.is_closed() {
            let local = pose.inverse().transform_point3(s.mesh.vertices()[0]);
            return Ok(locate_point(&b, local) != PointLocation::Outside);
        }
        Ok(false)
    }

    /// Per pair `(i, k)` of `pairs`, whether swept volume `swept[i]` may
    /// meet obstacle `k`: exact per pair, a finer answer than the objects'
    /// sets of [`CpuCullide::cull`] (which keep a swept volume and an
    /// obstacle that each meet something, though not each other). Pairs
    /// with a moving obstacle are kept.
    ///
    /// # Errors
    /// As [`CpuCullide::overlaps`]; [`CullideError::Index`] for a swept
    /// index out of range, or when `keep` (one entry per pair) has another
    /// length than `pairs`.
    pub fn cull_pairs(
        &mut self,
        swept: &[SweptVolume],
        pairs: &[(usize, usize)],
        keep: &mut [bool],
    ) -> Result<(), CullideError> {
        if keep.len() != pairs.len() {
            return Err(CullideError::Index {
                what: "keep flag per pair",
                index: keep.len(),
                len: pairs.len(),
            });
        }
        keep.fill(true);
        let mut prepared: Vec<Option<Option<PreparedSwept>>> = Vec::new();
        prepared.resize_with(swept.len(), || None);
        for (slot, &(i, k)) in keep.iter_mut().zip(pairs) {
            check_index("swept volume", i, swept.len())?;
            check_index("environment object", k, self.obstacles.len())?;
            if !self.obstacles[k].is_static() {
                continue;
            }
            if prepared[i].is_none() {
                prepared[i] = Some(PreparedSwept::new(&swept[i])?);
            }
            *slot = match &prepared[i] {
                Some(Some(p)) => self.overlaps_prepared(p, k)?,
                _ => false,
            };
        }
        Ok(())
    }

    /// The potentially colliding set of `swept` and the obstacles named by
    /// `candidates`: exact per pair (see the module docs). Moving
    /// obstacles are kept and decide nothing.
    ///
    /// # Errors
    /// As [`CpuCullide::overlaps`].
    pub fn cull(
        &mut self,
        swept: &[SweptVolume],
        candidates: &[usize],
    ) -> Result<CullResult, CullideError> {
        for &k in candidates {
            check_index("environment object", k, self.obstacles.len())?;
        }
        let mut result = CullResult {
            swept: vec![false; swept.len()],
            environment: candidates
                .iter()
                .map(|&k| !self.obstacles[k].is_static())
                .collect(),
            ..CullResult::default()
        };
        for (i, s) in swept.iter().enumerate() {
            let Some(p) = PreparedSwept::new(s)? else {
                continue;
            };
            for (c, &k) in candidates.iter().enumerate() {
                if !self.obstacles[k].is_static() {
                    continue;
                }
                // Both flags already set: nothing this pair could add.
                if result.swept[i] && result.environment[c] {
                    continue;
                }
                if self.overlaps_prepared(&p, k)? {
                    result.swept[i] = true;
                    result.environment[c] = true;
                }
            }
        }
        Ok(result)
    }
}

/// A swept volume's triangles as a mesh with an RSS tree.
struct PreparedSwept {
    bounds: Bounds,
    mesh: TriMesh,
    bvh: Bvh<Rss>,
    dilation: f64,
    scale: f64,
}

impl PreparedSwept {
    fn new(s: &SweptVolume) -> Result<Option<Self>, CullideError> {
        if s.triangles.is_empty() {
            return Ok(None);
        }
        if !(s.dilation.is_finite() && s.dilation >= 0.0) {
            return Err(CullideError::NonFinite {
                what: format!("swept volume of link {} dilation", s.link),
                value: s.dilation,
            });
        }
        let vertices: Vec<DVec3> = s.triangles.iter().flatten().copied().collect();
        let scale = vertices
            .iter()
            .fold(0.0f64, |m, p| m.max(p.abs().max_element()));
        let indices = (0..s.triangles.len() as u32)
            .map(|t| [3 * t, 3 * t + 1, 3 * t + 2])
            .collect();
        // Degenerate triangles stay: a link that does not turn sweeps a
        // ruled surface of zero area, still a set of points to dilate.
        let mesh = TriMesh::from_vertices_indices(
            vertices,
            indices,
            &MeshOptions::default().with_degenerate(DegeneratePolicy::Keep),
        )?;
        let bvh = Bvh::build(&mesh, &BvhOptions::default())?;
        Ok(Some(Self {
            bounds: s.bounds,
            mesh,
            bvh,
            dilation: s.dilation,
            scale,
        }))
    }
}
