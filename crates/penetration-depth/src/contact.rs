//! Discrete queries at one configuration: which pairs overlap, which links
//! are in collision, the smallest distance, and every contact within a
//! tolerance (the points and normals the linearised contact space is built
//! from, M5 eq. 6 and 22).
//!
//! The pairs are those of the rest of the workspace: a link with geometry
//! against every obstacle, and two links when self-collision is on and
//! they are neither rigidly attached, nor adjacent (unless that rule is
//! off), nor a disabled pair.
//!
//! "Overlap" is that of the discrete test everywhere in armature: the
//! triangles meet (touching counts), or a closed mesh holds part of the
//! other (a link inside a closed obstacle, or inside a closed link).
//!
//! *Records of pairs found apart.* The relative pose of two links depends
//! only on the joints from each up to, not including, their common
//! ancestor (up to the roots for two robots); the pose of a link against
//! a fixed obstacle, on the joints from the link up to its root. A
//! [`CheckWorkspace`] keeps, per pair, the values of those coordinates at
//! the last few configurations where the pair was found apart (most
//! recently used first); where they are the same bit for bit, the pair is
//! answered apart with no test ([`CheckWorkspace::set_reuse_apart_pairs`]).
//! The answer is the test's up to the rounding of the world poses the
//! relative pose is computed from (exactly the test's for an obstacle);
//! the solver confirms its answer with every pair tested. A ranking search
//! from a translated candidate moves only the root, so each pair of links
//! is tested once instead of at every step; a greedy pass moves one joint
//! at a time, so the links above it keep their obstacle records.
//!
//! *Contacts.* The triangle pairs within the tolerance are found by a
//! descent of the two OBB trees (the RSS trees' nodes: they are built
//! together) that drops a pair of boxes certainly farther apart than the
//! tolerance, or than the farthest of the nearest contacts once enough are
//! known ([`within_obb_obb_pair`]: the overlap test with the distance added
//! to each axis' margin, the two children of a split at once), starting
//! below an obstacle's top boxes within that distance of the link's box.
//! A dropped pair holds no triangle pair that counts, so the contacts are
//! those of any sound descent, and they are sorted by distance, then by
//! pair and triangles: the list does not depend on the descent.

use armature_bvh_geometry::query::{
    CollideMode, CollideWorkspace, DistanceWorkspace, MeshObject, capped_distance,
    closest_points_triangle_triangle, collide, collide_below, contains_part, distance,
    relative_pose, triangle_pair_intersects, within_distance, within_obb_obb, within_obb_obb_pair,
};
use armature_bvh_geometry::{
    Aabb, ArticulatedBody, BvhVolume, DisabledPairs, DynamicHierarchyOptions, LinkGeometry, Obb,
    Obstacle, RigidMap, TopBoxes,
};
use armature_conservative_advance::Other;
use armature_kinematics::LocalTransforms;
use core::sync::atomic::{AtomicU64, Ordering};
use glam::{DAffine3, DVec3};
use std::collections::BinaryHeap;

use crate::PdError;

/// One contact: a triangle pair of a tested pair within the tolerance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactPoint {
    /// The link (tree index).
    pub link: usize,
    /// What it touches.
    pub other: Other,
    /// The link's triangle.
    pub triangle_a: u32,
    /// The other's triangle.
    pub triangle_b: u32,
    /// Closest point on the link (world).
    pub point_a: DVec3,
    /// Closest point on the other (world).
    pub point_b: DVec3,
    /// Their distance.
    pub distance: f64,
    /// World unit normal along which the link separates from the other:
    /// from `point_b` to `point_a`, or, when they coincide, the normal of
    /// the other's triangle turned towards the link's triangle.
    pub normal: DVec3,
}

/// A posed member of a pair.
#[derive(Clone, Copy, Debug)]
struct Posed<'a> {
    geometry: &'a LinkGeometry,
    pose: DAffine3,
    aabb: Aabb,
    /// An obstacle's top boxes (`None` for a link).
    tops: Option<&'a TopBoxes>,
}

/// How many levels of an obstacle's OBB tree its [`TopBoxes`] keep (at
/// most 1,023 boxes): a link's overlap test starts from the few boxes near
/// its own world box instead of the obstacle's root. Below the top boxes'
/// world boxes, a level costs a box test without a transform instead of a
/// separating-axis test. Measured on the suite's cases against 6 levels
/// (callgrind): a hand in a 716-triangle bottle 12.5 % fewer instructions,
/// a Puma in a 3,932-triangle car 1–2 % fewer, a sphere against a
/// 174,240-triangle torus 3.4 % more (its link meets many more of the
/// deeper boxes, each a separate descent).
const TOP_BOX_LEVELS: u32 = 9;

/// Configurations at which a pair was found apart, kept per pair
/// (most recently used first).
const RECORDS: usize = 8;

/// The links' world poses at one configuration and the world boxes of
/// those with geometry (computed once, shared by every pair).
#[derive(Debug, Default)]
struct LinkFrames {
    poses: Vec<DAffine3>,
    boxes: Vec<Aabb>,
}

/// Reusable scratch of the [`Checker`]'s queries.
#[derive(Debug, Default)]
pub struct CheckWorkspace {
    posed: LinkFrames,
    /// The joint transforms of the last configuration posed (the joints a
    /// query leaves unchanged are not computed again).
    locals: LocalTransforms,
    collide: CollideWorkspace,
    distance: DistanceWorkspace,
    stack: Vec<[u32; 2]>,
    near_nodes: Vec<u32>,
    /// Per pair ([`Checker::pairs`] order), the triangle pair that met
    /// when it last overlapped: tested first next time.
    witnesses: Vec<Option<[u32; 2]>>,
    /// Per pair, the values of the coordinates its relative pose
    /// depends on ([`Checker`]'s chains, same layout) when it was last
    /// found apart, and whether that record holds.
    apart_at: Vec<f64>,
    apart_known: Vec<bool>,
    /// Whether the records above are ignored (every pair tested).
    fresh: bool,
    /// The least contact distances of [`Checker::nearest_contacts`].
    nearest: BinaryHeap<Ordered>,
    /// Pairs answered from the records so far.
    reused: u64,
    /// Tests only: while records are used, every pair with coordinates to
    /// record is answered apart with no test (a wrong record), to exercise
    /// the solver's confirming check.
    #[cfg(test)]
    pub(crate) misreport_link_pairs: bool,
    /// The [`Checker`] the records are of (its `id`; 0 before the first
    /// check): another checker's pairs start afresh.
    owner: u64,
}

impl CheckWorkspace {
    /// An empty workspace.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether a pair found apart is answered apart again, with no test,
    /// while the joints its relative pose depends on keep their values
    /// (between two links; from a link to its root against an obstacle)
    /// (default `true`); off, every check tests every pair.
    pub fn set_reuse_apart_pairs(&mut self, reuse: bool) {
        self.fresh = !reuse;
    }

    /// How many pair tests were answered from a record of the pair found
    /// apart, with no test, since the workspace was made.
    #[must_use]
    pub const fn reused_apart_pairs(&self) -> u64 {
        self.reused
    }
}

/// The discrete queries of a body among obstacles, prepared once.
#[derive(Debug)]
pub struct Checker<'a> {
    body: &'a ArticulatedBody,
    obstacles: &'a [Obstacle],
    /// Every tested pair.
    pairs: Vec<(usize, Other)>,
    obstacle_boxes: Vec<Aabb>,
    obstacle_tops: Vec<TopBoxes>,
    /// Per pair, the range of `chain_coords` holding the configuration
    /// coordinates the relative pose of its two links depends on (the
    /// joints of the links from each up to, not including, their common
    /// ancestor; up to the roots for two robots); empty for an obstacle.
    chains: Vec<(u32, u32)>,
    chain_coords: Vec<u32>,
    /// This checker's number, unique in the process (a workspace's records
    /// belong to one checker).
    id: u64,
}

/// The next [`Checker`]'s number.
static NEXT_CHECKER: AtomicU64 = AtomicU64::new(1);

impl<'a> Checker<'a> {
    /// The queries of `body` against `obstacles` (posed as at `t = 0`),
    /// with the pair rules: `self_collision`, `skip_adjacent`, `disabled`.
    ///
    /// # Errors
    /// [`PdError::Geometry`] when a link's box cannot be computed.
    pub fn new(
        body: &'a ArticulatedBody,
        obstacles: &'a [Obstacle],
        disabled: &DisabledPairs,
        self_collision: bool,
        skip_adjacent: bool,
    ) -> Result<Self, PdError> {
        let rules = body
            .dynamic_hierarchy(
                DynamicHierarchyOptions::default()
                    .with_self_collision(self_collision)
                    .with_skip_adjacent(skip_adjacent),
            )?
            .with_disabled(disabled.clone());
        let n = body.tree().len();
        let mut pairs = Vec::new();
        for i in 0..n {
            for o in 0..obstacles.len() {
                if rules.obstacle_pair_allowed(i, o) {
                    pairs.push((i, Other::Obstacle(o)));
                }
            }
            for j in i + 1..n {
                if rules.link_pair_allowed(i, j) {
                    pairs.push((i, Other::Link(j)));
                }
            }
        }
        let obstacle_boxes = obstacles
            .iter()
            .map(|o| o.geometry().obb.world_box(&o.pose_at(0.0)))
            .collect();
        let obstacle_tops = obstacles
            .iter()
            .map(|o| {
                o.geometry()
                    .obb_tree
                    .top_boxes(&o.pose_at(0.0), TOP_BOX_LEVELS)
            })
            .collect();
        let tree = body.tree();
        let mut chains = Vec::with_capacity(pairs.len());
        let mut chain_coords = Vec::new();
        for &(i, other) in &pairs {
            let start = chain_coords.len() as u32;
            match other {
                Other::Link(j) => {
                    let top = tree.common_ancestor(i, j);
                    for end in [i, j] {
                        for k in tree.ancestors(end).take_while(|&k| Some(k) != top) {
                            chain_coords.extend(tree.q_range(k).map(|c| c as u32));
                        }
                    }
                }
                Other::Obstacle(_) => {
                    for k in tree.ancestors(i) {
                        chain_coords.extend(tree.q_range(k).map(|c| c as u32));
                    }
                }
            }
            chains.push((start, chain_coords.len() as u32));
        }
        Ok(Self {
            body,
            obstacles,
            pairs,
            obstacle_boxes,
            obstacle_tops,
            chains,
            chain_coords,
            id: NEXT_CHECKER.fetch_add(1, Ordering::Relaxed),
        })
    }

    /// The body.
    #[must_use]
    pub const fn body(&self) -> &'a ArticulatedBody {
        self.body
    }

    /// The obstacles.
    #[must_use]
    pub const fn obstacles(&self) -> &'a [Obstacle] {
        self.obstacles
    }

    /// Every tested pair, link first.
    #[must_use]
    pub fn pairs(&self) -> &[(usize, Other)] {
        &self.pairs
    }

    /// Forward kinematics of `q` into the workspace, the links' world
    /// boxes, and a witness slot per pair.
    fn pose(&self, q: &[f64], ws: &mut CheckWorkspace) -> Result<(), PdError> {
        let tree = self.body.tree();
        let f = &mut ws.posed;
        f.poses.resize(tree.len(), DAffine3::IDENTITY);
        if ws.owner != self.id {
            ws.owner = self.id;
            ws.locals.clear();
            ws.witnesses.clear();
            ws.witnesses.resize(self.pairs.len(), None);
            ws.apart_known.clear();
            ws.apart_known.resize(RECORDS * self.pairs.len(), false);
            ws.apart_at.clear();
            ws.apart_at.resize(RECORDS * self.chain_coords.len(), 0.0);
        }
        tree.forward_kinematics_cached(q, &mut ws.locals, &mut f.poses)?;
        f.boxes.clear();
        f.boxes.extend(
            self.body
                .links()
                .iter()
                .zip(&f.poses)
                .map(|(g, pose)| g.as_ref().map_or(Aabb::EMPTY, |g| g.obb.world_box(pose))),
        );
        Ok(())
    }

    /// The world boxes of a pair's members at the posed configuration (a
    /// link without geometry has an empty box, which meets none): the
    /// cheapest test, made before a pair's members are posed or its
    /// records of configurations apart are looked up.
    fn pair_boxes<'b>(&'b self, posed: &'b LinkFrames, link: usize, other: Other) -> [&'b Aabb; 2] {
        let b = match other {
            Other::Obstacle(o) => &self.obstacle_boxes[o],
            Other::Link(j) => &posed.boxes[j],
        };
        [&posed.boxes[link], b]
    }

    /// The two posed members of a pair (`None` when a link has no
    /// geometry).
    fn members(&self, posed: &LinkFrames, link: usize, other: Other) -> Option<[Posed<'_>; 2]> {
        let member = |i: usize| {
            self.body.links()[i].as_ref().map(|g| Posed {
                geometry: g,
                pose: posed.poses[i],
                aabb: posed.boxes[i],
                tops: None,
            })
        };
        let a = member(link)?;
        let b = match other {
            Other::Obstacle(o) => Posed {
                geometry: self.obstacles[o].geometry(),
                pose: self.obstacles[o].pose_at(0.0),
                aabb: self.obstacle_boxes[o],
                tops: Some(&self.obstacle_tops[o]),
            },
            Other::Link(j) => member(j)?,
        };
        Some([a, b])
    }

    /// [`Checker::pair_overlaps`] at `q`, answered with no test for a
    /// pair last found apart with the same values of the coordinates its
    /// relative pose depends on: that pose is then the same up to the
    /// rounding of the world poses it is computed from.
    fn slot_overlaps(
        &self,
        q: &[f64],
        a: &Posed<'_>,
        b: &Posed<'_>,
        slot: usize,
        ws: &mut CheckWorkspace,
    ) -> Result<bool, PdError> {
        let (lo, hi) = self.chains[slot];
        let (lo, hi) = (lo as usize, hi as usize);
        if lo == hi || ws.fresh {
            return Self::pair_overlaps(a, b, slot, ws);
        }
        #[cfg(test)]
        if ws.misreport_link_pairs {
            return Ok(false);
        }
        let coords = &self.chain_coords[lo..hi];
        let same = |known: &[f64]| {
            coords
                .iter()
                .zip(known)
                .all(|(&c, k)| q[c as usize].to_bits() == k.to_bits())
        };
        let n = hi - lo;
        let known = &mut ws.apart_known[RECORDS * slot..][..RECORDS];
        let records = &mut ws.apart_at[RECORDS * lo..][..RECORDS * n];
        // Most recently used first: a hit moves to the front.
        if let Some(r) = (0..RECORDS).find(|&r| known[r] && same(&records[r * n..][..n])) {
            records[..(r + 1) * n].rotate_right(n);
            ws.reused += 1;
            // `known` is true for every record up to `r` (they fill from
            // the front).
            return Ok(false);
        }
        let overlaps = Self::pair_overlaps(a, b, slot, ws)?;
        if !overlaps {
            // The least recently used record goes.
            let known = &mut ws.apart_known[RECORDS * slot..][..RECORDS];
            let records = &mut ws.apart_at[RECORDS * lo..][..RECORDS * n];
            known.rotate_right(1);
            known[0] = true;
            records.rotate_right(n);
            for (k, &c) in records[..n].iter_mut().zip(coords) {
                *k = q[c as usize];
            }
        }
        Ok(overlaps)
    }

    /// Whether the members of pair `slot` (its index in
    /// [`Checker::pairs`]) overlap.
    fn pair_overlaps(
        a: &Posed<'_>,
        b: &Posed<'_>,
        slot: usize,
        ws: &mut CheckWorkspace,
    ) -> Result<bool, PdError> {
        if !a.aabb.overlaps(&b.aabb) {
            return Ok(false);
        }
        let ma = MeshObject::new(&a.geometry.mesh, &a.geometry.obb_tree, a.pose)?;
        let mb = MeshObject::new(&b.geometry.mesh, &b.geometry.obb_tree, b.pose)?;
        // The triangles that met when the pair last overlapped likely
        // still do at a nearby configuration: one triangle test instead
        // of a descent (the same test the descent would make).
        if let Some(w) = ws.witnesses[slot]
            && triangle_pair_intersects(&ma, &mb, w)
        {
            return Ok(true);
        }
        // An obstacle's triangles that can meet the link lie below its top
        // boxes near the link's world box: the descent starts there.
        let met = match b.tops {
            Some(tops) => {
                if tops.near_nodes(&a.aabb, 0.0, &mut ws.near_nodes) {
                    collide_below(
                        &ma,
                        &mb,
                        &ws.near_nodes,
                        CollideMode::First,
                        &mut ws.collide,
                    )
                    .first
                } else {
                    None
                }
            }
            None => collide(&ma, &mb, CollideMode::First, &mut ws.collide).first,
        };
        if met.is_some() {
            ws.witnesses[slot] = met;
            return Ok(true);
        }
        Ok(contains_part(
            &ma,
            &a.geometry.topology,
            &mb,
            &b.geometry.topology,
        )?)
    }

    /// The first overlapping pair at `q` among the pairs `wanted` accepts
    /// (given the link and the other member), or `None` when they are all
    /// apart.
    ///
    /// # Errors
    /// [`PdError::Kinematics`] for a bad configuration;
    /// [`PdError::Geometry`] for poses the queries reject.
    pub fn first_overlap(
        &self,
        q: &[f64],
        wanted: impl Fn(usize, Other) -> bool,
        ws: &mut CheckWorkspace,
    ) -> Result<Option<(usize, Other)>, PdError> {
        self.first_overlap_from(q, None, wanted, ws)
    }

    /// [`Checker::first_overlap`] testing the pair `first` before the
    /// others (a pair seen overlapping nearby, likely to overlap again);
    /// the answer may then be that pair although an earlier one in
    /// [`Checker::pairs`] overlaps too.
    ///
    /// # Errors
    /// As [`Checker::first_overlap`].
    pub fn first_overlap_from(
        &self,
        q: &[f64],
        first: Option<(usize, Other)>,
        wanted: impl Fn(usize, Other) -> bool,
        ws: &mut CheckWorkspace,
    ) -> Result<Option<(usize, Other)>, PdError> {
        self.pose(q, ws)?;
        let posed = core::mem::take(&mut ws.posed);
        let mut result = Ok(None);
        let first = first.and_then(|f| self.pairs.iter().position(|&p| p == f));
        let rest = (0..self.pairs.len()).filter(|&k| Some(k) != first);
        for slot in first.into_iter().chain(rest) {
            let (link, other) = self.pairs[slot];
            let [ba, bb] = self.pair_boxes(&posed, link, other);
            if !ba.overlaps(bb) || !wanted(link, other) {
                continue;
            }
            let Some([a, b]) = self.members(&posed, link, other) else {
                continue;
            };
            match self.slot_overlaps(q, &a, &b, slot, ws) {
                Ok(false) => {}
                Ok(true) => {
                    result = Ok(Some((link, other)));
                    break;
                }
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        ws.posed = posed;
        result
    }

    /// Whether the pair `(link, other)` is within `tolerance` at `q` (some
    /// triangle pair that close; stops at the first).
    ///
    /// # Errors
    /// As [`Checker::first_overlap`]; [`PdError::Geometry`] for a
    /// negative or non-finite tolerance.
    pub fn pair_within(
        &self,
        q: &[f64],
        link: usize,
        other: Other,
        tolerance: f64,
        ws: &mut CheckWorkspace,
    ) -> Result<bool, PdError> {
        self.pose(q, ws)?;
        let Some([a, b]) = self.members(&ws.posed, link, other) else {
            return Ok(false);
        };
        if a.aabb.distance(&b.aabb) > tolerance {
            return Ok(false);
        }
        let ma = MeshObject::new(&a.geometry.mesh, &a.geometry.rss_tree, a.pose)?;
        let mb = MeshObject::new(&b.geometry.mesh, &b.geometry.rss_tree, b.pose)?;
        Ok(within_distance(&ma, &mb, tolerance, &mut ws.distance)?.within)
    }

    /// Whether anything overlaps at `q`.
    ///
    /// # Errors
    /// As [`Checker::first_overlap`].
    pub fn collides(&self, q: &[f64], ws: &mut CheckWorkspace) -> Result<bool, PdError> {
        Ok(self.first_overlap(q, |_, _| true, ws)?.is_some())
    }

    /// Every overlapping pair at `q`, written into `out` (cleared first).
    ///
    /// # Errors
    /// As [`Checker::first_overlap`].
    pub fn overlapping_pairs(
        &self,
        q: &[f64],
        out: &mut Vec<(usize, Other)>,
        ws: &mut CheckWorkspace,
    ) -> Result<(), PdError> {
        out.clear();
        self.pose(q, ws)?;
        let posed = core::mem::take(&mut ws.posed);
        let mut result = Ok(());
        for (slot, &(link, other)) in self.pairs.iter().enumerate() {
            let [ba, bb] = self.pair_boxes(&posed, link, other);
            if !ba.overlaps(bb) {
                continue;
            }
            let Some([a, b]) = self.members(&posed, link, other) else {
                continue;
            };
            match self.slot_overlaps(q, &a, &b, slot, ws) {
                Ok(true) => out.push((link, other)),
                Ok(false) => {}
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        ws.posed = posed;
        result
    }

    /// The smallest distance over the tested pairs at `q` (`+∞` without
    /// pairs, `0` when some pair's triangles meet) and its pair.
    ///
    /// # Errors
    /// As [`Checker::first_overlap`].
    pub fn distance(
        &self,
        q: &[f64],
        ws: &mut CheckWorkspace,
    ) -> Result<(f64, Option<(usize, Other)>), PdError> {
        self.distance_below(q, f64::INFINITY, ws)
    }

    /// [`Checker::distance`] over the pairs closer than `cap` only: `(+∞,
    /// None)` when no pair is; far cheaper than the full distance when a
    /// pair is known to be near (a configuration in contact).
    ///
    /// # Errors
    /// As [`Checker::first_overlap`].
    pub fn distance_below(
        &self,
        q: &[f64],
        cap: f64,
        ws: &mut CheckWorkspace,
    ) -> Result<(f64, Option<(usize, Other)>), PdError> {
        self.pose(q, ws)?;
        let posed = core::mem::take(&mut ws.posed);
        let mut best = (f64::INFINITY, None);
        let mut result = Ok(());
        for &(link, other) in &self.pairs {
            let [ba, bb] = self.pair_boxes(&posed, link, other);
            if ba.distance(bb) >= best.0.min(cap) {
                continue;
            }
            let Some([a, b]) = self.members(&posed, link, other) else {
                continue;
            };
            let objects =
                MeshObject::new(&a.geometry.mesh, &a.geometry.rss_tree, a.pose).and_then(|ma| {
                    MeshObject::new(&b.geometry.mesh, &b.geometry.rss_tree, b.pose)
                        .map(|mb| (ma, mb))
                });
            match objects {
                Ok((ma, mb)) if cap.is_finite() => {
                    // Exact below the smaller of the cap and the best so
                    // far: farther node pairs are never explored.
                    match capped_distance(&ma, &mb, 0.0, best.0.min(cap), &mut ws.distance, None) {
                        Ok(c) => {
                            if let Some(d) = c.nearest
                                && d.distance < best.0
                                && d.distance < cap
                            {
                                best = (d.distance, Some((link, other)));
                            }
                        }
                        Err(e) => {
                            result = Err(e.into());
                            break;
                        }
                    }
                }
                Ok((ma, mb)) => {
                    let d = distance(&ma, &mb, &mut ws.distance, None);
                    if d.distance < best.0 {
                        best = (d.distance, Some((link, other)));
                    }
                }
                Err(e) => {
                    result = Err(e.into());
                    break;
                }
            }
        }
        ws.posed = posed;
        result.map(|()| best)
    }

    /// Every contact within `tolerance` at `q` (every triangle pair of a
    /// tested pair whose distance is at most `tolerance`), appended to
    /// `out` after clearing it, closest first; equal distances by link,
    /// other (obstacles first, then links, each by index) and triangles,
    /// so the list does not depend on the order the descent finds them.
    ///
    /// # Errors
    /// As [`Checker::first_overlap`]; [`PdError::InvalidOption`]
    /// (`tolerance`) unless finite and non-negative.
    pub fn contacts(
        &self,
        q: &[f64],
        tolerance: f64,
        out: &mut Vec<ContactPoint>,
        ws: &mut CheckWorkspace,
    ) -> Result<(), PdError> {
        self.nearest_contacts(q, tolerance, usize::MAX, out, ws)
    }

    /// The first `limit` of [`Checker::contacts`] (the closest; among equal
    /// distances, those `contacts` lists first), found without the others:
    /// once `limit` contacts are known, the descent skips the volumes and
    /// triangles farther than the farthest of them.
    ///
    /// *Same answer.* The `limit`-th distance `T` of all contacts is never
    /// above the `limit`-th of those found so far, so no contact within
    /// `T` is skipped (ties included); the list, sorted as `contacts`
    /// sorts and cut to `limit`, is `contacts`' cut.
    ///
    /// # Errors
    /// As [`Checker::contacts`].
    pub fn nearest_contacts(
        &self,
        q: &[f64],
        tolerance: f64,
        limit: usize,
        out: &mut Vec<ContactPoint>,
        ws: &mut CheckWorkspace,
    ) -> Result<(), PdError> {
        if !(tolerance >= 0.0 && tolerance.is_finite()) {
            return Err(PdError::InvalidOption {
                name: "tolerance",
                value: tolerance,
                why: "must be finite and non-negative",
            });
        }
        out.clear();
        self.pose(q, ws)?;
        let posed = core::mem::take(&mut ws.posed);
        let mut nearest = Nearest::new(limit, tolerance, std::mem::take(&mut ws.nearest));
        for &(link, other) in &self.pairs {
            let [ba, bb] = self.pair_boxes(&posed, link, other);
            if ba.distance(bb) > nearest.reach() {
                continue;
            }
            let Some([a, b]) = self.members(&posed, link, other) else {
                continue;
            };
            // An obstacle's triangles within reach of the link lie below
            // its top boxes within reach of the link's world box.
            let seeds: &[u32] = match b.tops {
                Some(tops) => {
                    if !tops.near_nodes(&a.aabb, nearest.reach(), &mut ws.near_nodes) {
                        continue;
                    }
                    &ws.near_nodes
                }
                None => &[0],
            };
            pair_contacts(&a, &b, seeds, &mut nearest, &mut ws.stack, |mut c| {
                c.link = link;
                c.other = other;
                out.push(c);
            });
        }
        ws.nearest = nearest.into_heap();
        ws.posed = posed;
        // Closest first, equal distances in a fixed order of the pair and
        // the triangles: the list does not depend on the descent's order.
        let order = |c: &ContactPoint| {
            let other = match c.other {
                Other::Obstacle(o) => (0, o),
                Other::Link(j) => (1, j),
            };
            (c.link, other, c.triangle_a, c.triangle_b)
        };
        out.sort_by(|x, y| {
            x.distance
                .total_cmp(&y.distance)
                .then_with(|| order(x).cmp(&order(y)))
        });
        out.truncate(limit);
        Ok(())
    }
}

/// A distance ordered by [`f64::total_cmp`].
#[derive(Clone, Copy, Debug, PartialEq)]
struct Ordered(f64);

impl Eq for Ordered {}
impl PartialOrd for Ordered {
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ordered {
    fn cmp(&self, other: &Self) -> core::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// The `limit` least contact distances found so far (a max-heap), and how
/// far a contact may still be to count: the tolerance, then the largest
/// of them once there are `limit`.
struct Nearest {
    limit: usize,
    tolerance: f64,
    heap: BinaryHeap<Ordered>,
}

impl Nearest {
    fn new(limit: usize, tolerance: f64, mut heap: BinaryHeap<Ordered>) -> Self {
        heap.clear();
        Self {
            limit,
            tolerance,
            heap,
        }
    }

    /// Volumes or triangles farther than this hold no contact that counts.
    fn reach(&self) -> f64 {
        match self.heap.peek() {
            Some(&Ordered(d)) if self.heap.len() >= self.limit => d,
            _ => self.tolerance,
        }
    }

    /// Whether a contact at distance `d` (within the tolerance) counts;
    /// it is then among the least so far. Without a limit every one
    /// counts, and nothing is kept.
    fn admit(&mut self, d: f64) -> bool {
        if self.limit == usize::MAX {
            return true;
        }
        if self.heap.len() < self.limit {
            self.heap.push(Ordered(d));
            return true;
        }
        match self.heap.peek() {
            Some(&top) if Ordered(d) <= top => {
                self.heap.pop();
                self.heap.push(Ordered(d));
                true
            }
            _ => false,
        }
    }

    fn into_heap(self) -> BinaryHeap<Ordered> {
        self.heap
    }
}

/// Every triangle pair of `a` and `b` within the reach of `nearest`, by a
/// descent of their OBB trees that drops pairs of boxes farther apart
/// ([`within_obb_obb_pair`]), from the pairs (A's root, each of B's
/// `seeds`): B's root, or nodes below which lie all of B's triangles
/// within reach of A.
fn pair_contacts(
    a: &Posed<'_>,
    b: &Posed<'_>,
    seeds: &[u32],
    nearest: &mut Nearest,
    stack: &mut Vec<[u32; 2]>,
    mut emit: impl FnMut(ContactPoint),
) {
    let ta = &a.geometry.rss_tree;
    let tb = &b.geometry.rss_tree;
    let rel = relative_pose(&a.pose, &b.pose);
    let map = RigidMap::new(&rel);
    let na = ta.nodes();
    let nb = tb.nodes();
    // The OBB trees share the RSS trees' nodes (built together): their
    // boxes prune, the RSS volumes' sizes choose the split.
    let (oa, ob) = (a.geometry.obb_tree.nodes(), b.geometry.obb_tree.nodes());
    debug_assert!(oa.len() == na.len() && ob.len() == nb.len());
    let box_a = |i: u32| &oa[i as usize].bv;
    let box_b = |j: u32| ob[j as usize].bv.transform_rigid(&map);
    stack.clear();
    // Popped in the order given; a seed's boxes are tested when it is
    // popped, the pairs a split pushes before (the two together).
    stack.extend(seeds.iter().rev().map(|&j| [SEED, j]));
    // B's boxes mapped into A's frame, the two most recent: a split of A's
    // node keeps its B node, a split of B's maps both children.
    let mut mapped: [Option<(u32, Obb)>; 2] = [None, None];
    while let Some([i, j]) = stack.pop() {
        let vb = match mapped {
            [Some((k, v)), _] | [_, Some((k, v))] if k == j => v,
            _ => {
                let v = box_b(j);
                mapped = [Some((j, v)), mapped[0]];
                v
            }
        };
        // A pair of boxes farther apart than the reach holds no triangle
        // pair that close (the contacts come from the triangles, so
        // pruning by any sound test finds the same ones).
        let i = if i == SEED {
            if !within_obb_obb(box_a(0), &vb, nearest.reach()) {
                continue;
            }
            0
        } else {
            i
        };
        let (ni, nj) = (&na[i as usize], &nb[j as usize]);
        let split_a = match (ni.children(), nj.children()) {
            (None, None) => {
                for &x in ta.leaf_triangles(ni) {
                    let tri_a = a.geometry.mesh.triangle(x as usize);
                    for &y in tb.leaf_triangles(nj) {
                        let tri_b = b
                            .geometry
                            .mesh
                            .triangle(y as usize)
                            .map(|p| rel.transform_point3(p));
                        let cp = closest_points_triangle_triangle(&tri_a, &tri_b);
                        if cp.distance <= nearest.tolerance && nearest.admit(cp.distance) {
                            emit(contact(
                                a,
                                x,
                                &tri_a,
                                y,
                                &tri_b,
                                cp.point_a,
                                cp.point_b,
                                cp.distance,
                            ));
                        }
                    }
                }
                continue;
            }
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(_), Some(_)) => ni.bv.size() >= nj.bv.size(),
        };
        // The second child is popped first, as the descent always has.
        let reach = nearest.reach();
        if split_a {
            let [l, r] = ni.children().map_or([i; 2], |c| c.map(|k| k as u32));
            let met = within_obb_obb_pair([box_a(l), box_a(r)], [&vb, &vb], reach);
            if met[0] {
                stack.push([l, j]);
            }
            if met[1] {
                stack.push([r, j]);
            }
        } else {
            let [l, r] = nj.children().map_or([j; 2], |c| c.map(|k| k as u32));
            let (vl, vr) = (box_b(l), box_b(r));
            mapped = [Some((l, vl)), Some((r, vr))];
            let met = within_obb_obb_pair([box_a(i), box_a(i)], [&vl, &vr], reach);
            if met[0] {
                stack.push([i, l]);
            }
            if met[1] {
                stack.push([i, r]);
            }
        }
    }
}

/// A's node of a seed of [`pair_contacts`] (A's root, its boxes tested
/// when popped). No node has this id: ids are below the node count, a
/// `u32`.
const SEED: u32 = u32::MAX;

/// A contact from closest points given in `a`'s frame.
#[allow(clippy::too_many_arguments)]
fn contact(
    a: &Posed<'_>,
    triangle_a: u32,
    tri_a: &[DVec3; 3],
    triangle_b: u32,
    tri_b: &[DVec3; 3],
    pa: DVec3,
    pb: DVec3,
    d: f64,
) -> ContactPoint {
    let gap = pa - pb;
    let centroid_a = (tri_a[0] + tri_a[1] + tri_a[2]) / 3.0;
    let local_normal = if d > 1e-12 * (1.0 + pa.length()) {
        gap / gap.length()
    } else {
        // Touching: the other triangle's normal, towards the link's
        // triangle (for a degenerate triangle, towards its centroid).
        let n = (tri_b[1] - tri_b[0]).cross(tri_b[2] - tri_b[0]);
        let n = if n.length_squared() > 0.0 {
            n.normalize()
        } else {
            (centroid_a - pb).normalize_or(DVec3::Z)
        };
        if n.dot(centroid_a - pb) < 0.0 { -n } else { n }
    };
    ContactPoint {
        link: 0,
        other: Other::Link(0),
        triangle_a,
        triangle_b,
        point_a: a.pose.transform_point3(pa),
        point_b: a.pose.transform_point3(pb),
        distance: d,
        normal: a
            .pose
            .transform_vector3(local_normal)
            .normalize_or(DVec3::Z),
    }
}
