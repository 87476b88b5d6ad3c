//! The sweep: speed bounds, the sample grid, skipping, refinement around
//! grazes and the bisection of the first clearance violation (see the
//! [module docs](super) for the argument).

use armature_bvh_geometry::query::{
    CollideMode, CollideWorkspace, DistanceCache, DistanceWorkspace, MeshObject, collide, distance,
};
use armature_bvh_geometry::{GeometryError, LinkGeometry, ObstacleMotion};
use armature_conservative_advance::Other;
use armature_kinematics::{InBetweenMotion, LocalMotion};
use glam::{DAffine3, DVec3};

use super::brute::{MeshQuery, Posed, contains, mesh_query};
use super::verdict::{OracleStats, Verdict};
use super::{Mode, Oracle};
use crate::Error;

/// The largest grid the oracle samples: sample times `k / n` are exact
/// ratios of integers below 2⁵³.
pub(super) const MAX_GRID: f64 = 4_503_599_627_370_496.0; // 2^52

/// Relative margin on speed bounds computed here, for the rounding of a
/// few products and sums.
const SPEED_PAD: f64 = 1e-12;

/// Relative margin taken off a skip and off a gap's lower bound: the
/// distances and bounds carry rounding of about `1e-15` relative.
const SKIP_PAD: f64 = 1e-9;

/// Grid steps over which a pair's distance is evaluated exactly in
/// [`Mode::Independent`] (beyond, a lower bound from boxes suffices to
/// skip this far).
const EXACT_STEPS: f64 = 64.0;

/// Speed bound of every point of an obstacle over `[0, 1]`: `|v| + |ω| ·
/// max |p|` for the motion `p ↦ Rot(k, ωt) R₀ p + T₀ + v t` (the rotation
/// turns about the moving origin, so a point at `|p|` from it moves at
/// most `|ω| |p|` faster than the origin).
pub(super) fn obstacle_speed(o: &armature_bvh_geometry::Obstacle) -> f64 {
    match o.motion() {
        ObstacleMotion::Static(_) => 0.0,
        ObstacleMotion::Rigid { motion, .. } => {
            let r = o
                .geometry()
                .mesh
                .vertices()
                .iter()
                .map(|p| p.length())
                .fold(0.0, f64::max);
            (motion.velocity.length() + motion.omega.abs() * r) * (1.0 + SPEED_PAD)
        }
    }
}

/// The largest distance any position of a link's origin takes from its
/// parent's origin over the motion: `T(t) = T₀ + v t` is linear, so the
/// largest norm is at an end.
fn origin_reach(m: &LocalMotion) -> f64 {
    m.trans0.length().max((m.trans0 + m.velocity).length())
}

/// A bound on the speed of every vertex of every link over the whole
/// in-between motion, from forward kinematics alone ([`Mode::Independent`]).
///
/// A point `x` of link `L` moves at `Σᵢ R_parent(i) (ωᵢ kᵢ × R_i xᵢ + vᵢ)`
/// over the links `i` of its chain (`L` and its ancestors), `xᵢ` being the
/// point in link `i`'s frame. Rotations keep norms, so its speed is at
/// most `Σᵢ |vᵢ| + |ωᵢ| |xᵢ|`; and `xᵢ = R_c x_c + T_c` for the chain's
/// child `c` of `i`, so `|xᵢ| ≤ |x| + Σ_c max_t |T_c(t)|` over the links
/// from `L` up to, not including, `i`. `radius[L]` is the largest `|x|`
/// over `L`'s vertices.
pub(super) fn link_speed_bounds(motion: &InBetweenMotion, radius: &[f64]) -> Vec<f64> {
    let local = motion.local();
    let parents = motion.parents();
    (0..local.len())
        .map(|link| {
            let mut bound = 0.0;
            let mut reach = radius[link];
            let mut i = Some(link);
            while let Some(k) = i {
                let m = &local[k];
                bound += m.velocity.length() + m.omega.abs() * reach;
                reach += origin_reach(m);
                i = parents[k];
            }
            bound * (1.0 + SPEED_PAD)
        })
        .collect()
}

/// A lower bound on a pair's distance over a gap of length `len` between
/// two evaluations `da` and `db` (each a lower bound on the distance
/// there), with closing speed at most `mu`: the distance is at least
/// `da − μ(t − a)` and `db − μ(b − t)`, hence at least their mean.
pub(super) fn gap_lower_bound(da: f64, db: f64, mu: f64, len: f64) -> f64 {
    let lb = 0.5 * (da + db - mu * len);
    lb - SKIP_PAD * lb.abs()
}

/// Grid steps to a pair's next evaluation after (a lower bound on) its
/// distance `d`: the distance stays above `target` until then, since
/// `d − μ · j · h > target` ((O2) in the [module docs](super)).
pub(super) fn skip(d: f64, target: f64, mu: f64, h: f64, skipping: bool) -> u64 {
    if !skipping || !(d > target) {
        return 1;
    }
    if !(mu > 0.0) {
        // The pair does not move relative to itself: its distance stays d.
        return u64::MAX / 2;
    }
    let steps = ((d - target) / (mu * h) * (1.0 - SKIP_PAD)).floor();
    if !(steps >= 1.0) {
        return 1;
    }
    // Capped: beyond the grid is as good as never.
    steps.min(MAX_GRID) as u64
}

/// A piece of a pair: a link or an obstacle.
#[derive(Clone, Copy, Debug)]
pub(super) enum Piece {
    Link(usize),
    Obstacle(usize),
}

/// One pair evaluated at the current poses.
#[derive(Clone, Copy, Debug)]
pub(super) struct Eval {
    /// The surfaces meet.
    pub(super) hit: bool,
    /// A lower bound on the surface distance, the distance itself when
    /// `exact` (`0` when `hit`).
    pub(super) distance: f64,
    /// Whether `distance` is the distance.
    pub(super) exact: bool,
}

/// Per-pair state of the sweep.
#[derive(Clone, Copy, Debug)]
struct Track {
    /// Closing-speed bound over `[0, 1]`.
    mu: f64,
    /// The pair's clearance `c_p = min(δ, d_p(0) / 3)`.
    clearance: f64,
    /// Next grid index at which the pair must be evaluated.
    next: u64,
    /// Time and distance of its last evaluation.
    last_t: f64,
    last_d: f64,
    /// The lower bound over its last gap.
    last_gap: f64,
}

/// How a refinement ended.
enum Refined {
    /// The pair breaks its clearance at this time.
    Violation(f64),
    /// Proven above the clearance (up to the tolerance) over the gap.
    Clear,
    /// The refinement budget ran out.
    Budget,
}

/// The start of a motion for one pair.
#[derive(Clone, Copy, Debug)]
pub(super) struct Start {
    /// The surfaces meet, or one closed mesh contains the other.
    pub(super) touching: bool,
    /// `d_p(0)` (a lower bound above the cutoff asked for).
    pub(super) distance: f64,
}

/// The scratch of one motion's sampling.
pub(super) struct Sampler<'o> {
    oracle: &'o Oracle,
    motion: InBetweenMotion,
    /// Closing-speed bound of each pair.
    mu: Vec<f64>,
    poses: Vec<DAffine3>,
    obstacle_poses: Vec<DAffine3>,
    /// World meshes per piece, with the pose they were computed at.
    posed: Vec<(Option<DAffine3>, Posed)>,
    collide_ws: CollideWorkspace,
    distance_ws: DistanceWorkspace,
    caches: Vec<DistanceCache>,
    scratch: (Vec<usize>, Vec<usize>),
    pub(super) stats: OracleStats,
}

impl<'o> Sampler<'o> {
    pub(super) fn new(oracle: &'o Oracle, q0: &[f64], q1: &[f64]) -> Result<Self, Error> {
        let scene = &oracle.scene;
        scene.check_configuration("q0", q0)?;
        scene.check_configuration("q1", q1)?;
        let tree = scene.body().tree();
        let motion = InBetweenMotion::new(tree, q0, q1)
            .map_err(|e| Error::kinematics("oracle in-between motion", e))?;
        let mu = match oracle.options.mode {
            Mode::Fast => {
                let link_mu = (0..tree.len())
                    .map(|i| {
                        oracle
                            .bounds
                            .mu(&motion, i, 0.0)
                            .map_err(|e| Error::kinematics("oracle motion bound", e))
                    })
                    .collect::<Result<Vec<f64>, Error>>()?;
                oracle
                    .pairs
                    .iter()
                    .map(|p| match p.other {
                        Other::Obstacle(o) => {
                            Ok((link_mu[p.link] + oracle.obstacle_speed[o]) * (1.0 + SPEED_PAD))
                        }
                        Other::Link(j) => oracle
                            .bounds
                            .mu_relative(&motion, p.link, j, 0.0)
                            .map_err(|e| Error::kinematics("oracle motion bound", e)),
                    })
                    .collect::<Result<Vec<f64>, Error>>()?
            }
            Mode::Independent => {
                let link = link_speed_bounds(&motion, &oracle.link_radius);
                oracle
                    .pairs
                    .iter()
                    .map(|p| {
                        let other = match p.other {
                            Other::Obstacle(o) => oracle.obstacle_speed[o],
                            Other::Link(j) => link[j],
                        };
                        (link[p.link] + other) * (1.0 + SPEED_PAD)
                    })
                    .collect()
            }
        };
        let pieces = tree.len() + scene.obstacles().len();
        Ok(Self {
            oracle,
            motion,
            caches: vec![DistanceCache::default(); mu.len()],
            mu,
            poses: vec![DAffine3::IDENTITY; tree.len()],
            obstacle_poses: vec![DAffine3::IDENTITY; scene.obstacles().len()],
            posed: vec![(None, Posed::default()); pieces],
            collide_ws: CollideWorkspace::new(),
            distance_ws: DistanceWorkspace::new(),
            scratch: (Vec::new(), Vec::new()),
            stats: OracleStats::default(),
        })
    }

    /// `n` of (O1): `μ_p · h ≤ δ_o` for every pair, or `None` when it is
    /// beyond [`MAX_GRID`].
    pub(super) fn grid_len(&self) -> Option<u64> {
        let mu = self.mu.iter().copied().fold(0.0, f64::max);
        let n = (mu / self.oracle.resolution).ceil().max(1.0);
        // `!(≤)` also catches NaN.
        if !(n <= MAX_GRID) {
            return None;
        }
        // Exact: a positive integer below 2^53.
        Some(n as u64)
    }

    /// Poses every piece at time `t`.
    pub(super) fn pose(&mut self, t: f64) -> Result<(), Error> {
        self.motion
            .poses_at(t, &mut self.poses)
            .map_err(|e| Error::kinematics("oracle poses", e))?;
        for (p, o) in self
            .obstacle_poses
            .iter_mut()
            .zip(self.oracle.scene.obstacles())
        {
            *p = o.pose_at(t);
        }
        Ok(())
    }

    /// The geometry and current pose of a piece.
    fn piece(&self, piece: Piece) -> Result<(&'o LinkGeometry, DAffine3), Error> {
        let scene = &self.oracle.scene;
        match piece {
            Piece::Link(i) => match scene.body().links().get(i) {
                Some(Some(g)) => Ok((g, self.poses[i])),
                _ => Err(Error::geometry(
                    "oracle pair",
                    GeometryError::IndexOutOfBounds {
                        what: "link with geometry",
                        index: i,
                        len: scene.num_links(),
                    },
                )),
            },
            Piece::Obstacle(o) => match scene.obstacles().get(o) {
                Some(ob) => Ok((ob.geometry(), self.obstacle_poses[o])),
                None => Err(Error::geometry(
                    "oracle pair",
                    GeometryError::IndexOutOfBounds {
                        what: "obstacle",
                        index: o,
                        len: scene.obstacles().len(),
                    },
                )),
            },
        }
    }

    fn slot(&self, piece: Piece) -> usize {
        match piece {
            Piece::Link(i) => i,
            Piece::Obstacle(o) => self.poses.len() + o,
        }
    }

    /// The world mesh of a piece at the current poses (recomputed only
    /// when its pose changed).
    fn posed(&mut self, piece: Piece) -> Result<usize, Error> {
        let (g, pose) = self.piece(piece)?;
        let slot = self.slot(piece);
        let (at, posed) = &mut self.posed[slot];
        if *at != Some(pose) {
            posed.set(
                g.mesh.vertices().iter().map(|&v| pose.transform_point3(v)),
                g.mesh.indices(),
            );
            if let Some((index, &value)) = posed
                .vertices
                .iter()
                .enumerate()
                .find(|(_, v)| !v.is_finite())
            {
                *at = None;
                return Err(Error::geometry(
                    "oracle world vertices",
                    GeometryError::NonFiniteVertex { index, value },
                ));
            }
            *at = Some(pose);
        }
        Ok(slot)
    }

    /// The two pieces of pair `p`.
    fn pieces(&self, p: usize) -> (Piece, Piece) {
        let pair = self.oracle.pairs[p];
        (
            Piece::Link(pair.link),
            match pair.other {
                Other::Link(j) => Piece::Link(j),
                Other::Obstacle(o) => Piece::Obstacle(o),
            },
        )
    }

    /// The error context of a pair of pieces.
    fn context(&self, a: Piece, b: Piece) -> String {
        let scene = &self.oracle.scene;
        let name = |p: Piece| match p {
            Piece::Link(i) => scene.link_name(i),
            Piece::Obstacle(o) => scene.other_name(Other::Obstacle(o)),
        };
        format!(
            "oracle pair {} / {}",
            name(a).unwrap_or("?"),
            name(b).unwrap_or("?")
        )
    }

    /// Evaluates pair `p` at the current poses: the distance is exact up
    /// to `cutoff` at least.
    pub(super) fn eval(&mut self, p: usize, cutoff: f64) -> Result<Eval, Error> {
        let (a, b) = self.pieces(p);
        self.eval_pieces(a, b, cutoff, Some(p))
    }

    /// Evaluates two pieces at the current poses (`cache`: the pair whose
    /// distance cache to use, if any).
    fn eval_pieces(
        &mut self,
        a: Piece,
        b: Piece,
        cutoff: f64,
        cache: Option<usize>,
    ) -> Result<Eval, Error> {
        match self.oracle.options.mode {
            Mode::Fast => {
                let (ga, pa) = self.piece(a)?;
                let (gb, pb) = self.piece(b)?;
                let oa = MeshObject::new(&ga.mesh, &ga.obb_tree, pa)
                    .map_err(|e| Error::geometry(self.context(a, b), e))?;
                let ob = MeshObject::new(&gb.mesh, &gb.obb_tree, pb)
                    .map_err(|e| Error::geometry(self.context(a, b), e))?;
                if collide(&oa, &ob, CollideMode::First, &mut self.collide_ws).colliding {
                    return Ok(Eval {
                        hit: true,
                        distance: 0.0,
                        exact: true,
                    });
                }
                let ra = MeshObject::new(&ga.mesh, &ga.rss_tree, pa)
                    .map_err(|e| Error::geometry(self.context(a, b), e))?;
                let rb = MeshObject::new(&gb.mesh, &gb.rss_tree, pb)
                    .map_err(|e| Error::geometry(self.context(a, b), e))?;
                let cache = cache.and_then(|p| self.caches.get_mut(p));
                let d = distance(&ra, &rb, &mut self.distance_ws, cache);
                Ok(Eval {
                    hit: false,
                    distance: d.distance,
                    exact: true,
                })
            }
            Mode::Independent => {
                let q = self.brute(a, b, cutoff)?;
                Ok(Eval {
                    hit: q.intersects,
                    distance: q.distance,
                    exact: q.exact,
                })
            }
        }
    }

    /// [`mesh_query`] of two pieces at the current poses.
    fn brute(&mut self, a: Piece, b: Piece, cutoff: f64) -> Result<MeshQuery, Error> {
        let sa = self.posed(a)?;
        let sb = self.posed(b)?;
        let (ga, _) = self.piece(a)?;
        let (gb, _) = self.piece(b)?;
        Ok(mesh_query(
            &self.posed[sa].1,
            ga.mesh.indices(),
            &self.posed[sb].1,
            gb.mesh.indices(),
            cutoff,
            &mut self.scratch,
        ))
    }

    /// Whether one mesh of pair `p` contains the other at the current
    /// poses (only a closed mesh contains anything; see
    /// [`super::brute::Topology`]).
    fn contained(&mut self, a: Piece, b: Piece) -> Result<bool, Error> {
        let (ta, tb) = (self.oracle.topology(a), self.oracle.topology(b));
        if !ta.closed && !tb.closed {
            return Ok(false);
        }
        let sa = self.posed(a)?;
        let sb = self.posed(b)?;
        let (ga, _) = self.piece(a)?;
        let (gb, _) = self.piece(b)?;
        let (pa, pb) = (&self.posed[sa].1, &self.posed[sb].1);
        Ok((tb.closed && contains(pb, gb.mesh.indices(), pa, ta))
            || (ta.closed && contains(pa, ga.mesh.indices(), pb, tb)))
    }

    /// The contract's distance of pair `p` at the current poses, exact up
    /// to `cutoff`: `0` when the surfaces meet or one closed mesh contains
    /// the other.
    pub(super) fn contract_distance(&mut self, p: usize, cutoff: f64) -> Result<Start, Error> {
        let (a, b) = self.pieces(p);
        let e = self.eval_pieces(a, b, cutoff, Some(p))?;
        self.finish_contract(a, b, e)
    }

    /// As [`Sampler::contract_distance`] for any two pieces.
    pub(super) fn pieces_distance(
        &mut self,
        a: Piece,
        b: Piece,
        cutoff: f64,
    ) -> Result<Start, Error> {
        let e = self.eval_pieces(a, b, cutoff, None)?;
        self.finish_contract(a, b, e)
    }

    fn finish_contract(&mut self, a: Piece, b: Piece, e: Eval) -> Result<Start, Error> {
        if e.hit || self.contained(a, b)? {
            return Ok(Start {
                touching: true,
                distance: 0.0,
            });
        }
        Ok(Start {
            touching: false,
            distance: e.distance,
        })
    }

    /// Every pair at `t = 0`: the contract's distances, exact up to `3δ`
    /// (above, the clearance is `δ` whatever the distance).
    pub(super) fn start(&mut self) -> Result<Vec<Start>, Error> {
        self.pose(0.0)?;
        let cutoff = 3.0 * self.oracle.threshold + self.oracle.options.contact_tolerance;
        (0..self.oracle.pairs.len())
            .map(|p| self.contract_distance(p, cutoff))
            .collect()
    }

    /// Whether an evaluation breaks clearance `c` (beyond the tolerance,
    /// or by an intersection when `c > 0`).
    fn violates(&self, e: &Eval, c: f64) -> bool {
        (e.hit && c > 0.0) || (e.exact && e.distance < c - self.oracle.options.contact_tolerance)
    }

    /// The grid time of index `k` of `n`.
    fn time(k: u64, n: u64) -> f64 {
        if k >= n {
            1.0
        } else {
            // Exact conversions: both below 2^53.
            k as f64 / n as f64
        }
    }

    /// The distance up to which pair `p` is evaluated exactly during the
    /// sweep: past the level of interest (`2c_p` plus the tolerance) by
    /// enough to skip [`EXACT_STEPS`] grid steps.
    fn cutoff(&self, track: &Track, h: f64) -> f64 {
        2.0 * track.clearance + self.oracle.options.contact_tolerance + EXACT_STEPS * track.mu * h
    }

    /// The sweep over the grid with refinement, then the bisection.
    pub(super) fn run(&mut self) -> Result<Verdict, Error> {
        let options = self.oracle.options;
        let tol = options.contact_tolerance;
        let delta = self.oracle.threshold;
        let start = self.start()?;
        self.stats.pair_tests += start.len();
        for (p, s) in start.iter().enumerate() {
            if s.touching {
                let pair = self.oracle.pairs[p];
                return Ok(Verdict::Collides {
                    bracket: (0.0, 0.0),
                    pair: (pair.link, pair.other),
                });
            }
        }
        let Some(n) = self.grid_len() else {
            return Ok(Verdict::Inconclusive {
                reached: 0.0,
                samples: 0,
            });
        };
        self.stats.grid = n;
        self.stats.samples = 1;
        let h = 1.0 / n as f64;
        let mut min_distance = f64::INFINITY;
        let mut not_free = false;
        let mut tracks: Vec<Track> = start
            .iter()
            .zip(&self.mu)
            .map(|(s, &mu)| {
                let clearance = delta.min(s.distance / 3.0);
                min_distance = min_distance.min(s.distance);
                not_free |= !(s.distance > 2.0 * clearance + tol);
                Track {
                    mu,
                    clearance,
                    next: skip(s.distance, 2.0 * clearance + tol, mu, h, options.skipping),
                    last_t: 0.0,
                    last_d: s.distance,
                    last_gap: s.distance,
                }
            })
            .collect();
        let mut reached = 0.0;
        loop {
            let k = tracks.iter().map(|t| t.next).min().unwrap_or(u64::MAX);
            if k > n {
                break;
            }
            if self.stats.samples >= options.max_samples {
                return Ok(Verdict::Inconclusive {
                    reached,
                    samples: self.stats.samples,
                });
            }
            self.stats.samples += 1;
            let t = Self::time(k, n);
            self.pose(t)?;
            let mut first: Option<(f64, usize)> = None;
            let mut gaps = Vec::new();
            let mut evaluated = Vec::new();
            for p in 0..tracks.len() {
                if tracks[p].next != k {
                    continue;
                }
                self.stats.pair_tests += 1;
                let cutoff = self.cutoff(&tracks[p], h);
                let e = self.eval(p, cutoff)?;
                let tr = &mut tracks[p];
                let gap = gap_lower_bound(tr.last_d, e.distance, tr.mu, t - tr.last_t);
                not_free |= !(gap > 2.0 * tr.clearance + tol);
                min_distance = min_distance.min(e.distance);
                let violation = self.violates(&e, tr.clearance);
                if violation {
                    first = first.or(Some((t, p)));
                } else if gap < tr.clearance - tol {
                    gaps.push((p, tr.last_t, tr.last_d, t, e.distance));
                }
                evaluated.push(p);
                tr.last_gap = gap;
                tr.last_t = t;
                tr.last_d = e.distance;
                tr.next = k + skip(
                    e.distance,
                    2.0 * tr.clearance + tol,
                    tr.mu,
                    h,
                    options.skipping,
                );
            }
            for (p, ta, da, tb, db) in gaps {
                match self.refine(p, &tracks[p], (ta, da), (tb, db))? {
                    Refined::Violation(tv) => {
                        if first.is_none_or(|(t0, _)| tv < t0) {
                            first = Some((tv, p));
                        }
                    }
                    Refined::Clear => {}
                    Refined::Budget => {
                        return Ok(Verdict::Inconclusive {
                            reached,
                            samples: self.stats.samples,
                        });
                    }
                }
            }
            if let Some((tv, p)) = first {
                // Only pairs evaluated here can break their clearance in
                // the last step: the others were skipped with a bound
                // above `2c_p` there.
                let candidates: Vec<(usize, f64)> = evaluated
                    .iter()
                    .filter(|&&q| q == p || tracks[q].last_gap < tracks[q].clearance)
                    .map(|&q| (q, tracks[q].clearance))
                    .collect();
                let lo = if k == 0 { 0.0 } else { Self::time(k - 1, n) };
                return self.bisect(lo, tv, p, &candidates, h);
            }
            reached = t;
        }
        Ok(if not_free {
            Verdict::Graze { min_distance }
        } else {
            Verdict::Free { min_distance }
        })
    }

    /// Subdivides a gap of pair `p` whose lower bound dips below its
    /// clearance until a violation is found or every piece is bounded
    /// above the clearance (less the tolerance), depth first and earliest
    /// first.
    fn refine(
        &mut self,
        p: usize,
        track: &Track,
        a: (f64, f64),
        b: (f64, f64),
    ) -> Result<Refined, Error> {
        let tol = self.oracle.options.contact_tolerance;
        let mut stack = vec![(a, b)];
        while let Some(((ta, da), (tb, db))) = stack.pop() {
            if gap_lower_bound(da, db, track.mu, tb - ta) >= track.clearance - tol {
                continue;
            }
            let mid = 0.5 * (ta + tb);
            if !(ta < mid && mid < tb) {
                // The times cannot be split further: within rounding of
                // the clearance, accepted as a graze.
                continue;
            }
            if self.stats.refinement_tests >= self.oracle.options.max_refinements {
                return Ok(Refined::Budget);
            }
            self.stats.refinement_tests += 1;
            self.pose(mid)?;
            let cutoff = 2.0 * track.clearance + tol + EXACT_STEPS * track.mu * (tb - ta);
            let e = self.eval(p, cutoff)?;
            if self.violates(&e, track.clearance) {
                return Ok(Refined::Violation(mid));
            }
            stack.push(((mid, e.distance), (tb, db)));
            stack.push(((ta, da), (mid, e.distance)));
        }
        Ok(Refined::Clear)
    }

    /// Refines `(free, violating)` by bisection; `hit` breaks its
    /// clearance at `violating`; `candidates` are the pairs (with their
    /// clearances) that may break it in between.
    fn bisect(
        &mut self,
        mut free: f64,
        mut violating: f64,
        hit: usize,
        candidates: &[(usize, f64)],
        h: f64,
    ) -> Result<Verdict, Error> {
        let mut pair = hit;
        for _ in 0..self.oracle.options.bisection_steps {
            let mid = 0.5 * (free + violating);
            if !(free < mid && mid < violating) {
                break;
            }
            self.pose(mid)?;
            let mut found = None;
            for &(p, c) in candidates {
                self.stats.bisection_tests += 1;
                let cutoff = 2.0 * c + self.oracle.options.contact_tolerance + self.mu[p] * h;
                let e = self.eval(p, cutoff)?;
                if self.violates(&e, c) {
                    found = Some(p);
                    break;
                }
            }
            match found {
                Some(p) => {
                    violating = mid;
                    pair = p;
                }
                None => free = mid,
            }
        }
        let p = self.oracle.pairs[pair];
        Ok(Verdict::Collides {
            bracket: (free, violating),
            pair: (p.link, p.other),
        })
    }
}

/// The largest distance of a mesh's vertices from its frame's origin.
pub(super) fn radius(vertices: &[DVec3]) -> f64 {
    vertices.iter().map(|v| v.length()).fold(0.0, f64::max) * (1.0 + SPEED_PAD)
}
