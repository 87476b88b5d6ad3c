//! The M1 exact stage as one query: the dynamic link hierarchy (stage 1),
//! the start state of every pair, the continuous OBB-tree traversal with
//! per-link refinement levels and the simultaneous solver (stage 3).

use std::time::{Duration, Instant};

use armature_bvh_geometry::body::{ArticulatedBody, LinkGeometry, Obstacle, ObstacleMotion};
use armature_bvh_geometry::dynamic::{
    DisabledPairs, DynamicHierarchyOptions, DynamicLinkHierarchy, EnvironmentHierarchy,
    PotentialPairs,
};
use armature_bvh_geometry::query::{
    CollideMode, CollideWorkspace, DistanceWorkspace, FeaturePair, MeshObject, capped_distance,
    closest_points_triangle_triangle, collide, containment,
};
use armature_interval_taylor::{Interval, IntervalAffine3};
use armature_kinematics::{EnclosureKind, InBetweenMotion, LinkObb};
use glam::{DAffine3, DMat3, DVec3};

use crate::ElementaryError;
use crate::mr::MrAffine;
use crate::obb::RelativePose;
use crate::solver::{
    Equation, Kind, PoseSource, Solution, SolverOptions, SolverStats, SolverWorkspace, solve,
};
use crate::traversal::{Side, TraversalStats, TraversalWorkspace, traverse};

/// Options of [`ElementaryScene`], with [`Default`] and `with_*` builders.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ElementaryOptions {
    /// The clearance `δ` (scene units): the contract of
    /// [`ElementaryReport`], the same as the conservative-advancement
    /// stage's. `0` asks for M1's exact contacts (surfaces touching), with
    /// no clearance. Finite and `≥ 0`; default `1e-4`.
    pub distance_threshold: f64,
    /// The solver stops splitting time below this width (M1's threshold;
    /// a contact is reported at the lower end of an interval this narrow).
    /// In `[1e-12, 0.5]`; default `1e-4`.
    pub time_tolerance: f64,
    /// Stage 1, the dynamic link hierarchy (M1 §4.1): pairs whose swept
    /// boxes never meet are dropped before the OBB trees are traversed.
    /// `false` traverses every allowed pair (the `3` ablation). Default
    /// `true`.
    pub hierarchy_culling: bool,
    /// Pose enclosure of stage 1: interval (M1, default) or Taylor (M4).
    pub enclosure: EnclosureKind,
    /// Largest per-link refinement level `r` of the continuous OBB test
    /// (`2^r` sub-intervals, M1 §5.1.1); each link's level follows its
    /// swing. At most 10; default 7 (the fastest of 4–8 on the Puma
    /// suite at 30°).
    pub max_refinement_level: u32,
    /// Interval Newton culling in the solver (M1 §5.2.4). Default `true`.
    pub newton: bool,
    /// Test non-adjacent links against each other. Default `true`.
    pub self_collision: bool,
    /// Skip adjacent links (as the other stages). Default `true`.
    pub skip_adjacent: bool,
    /// Time intervals the solver may process before the query ends with
    /// [`ElementaryStatus::BudgetExhausted`]. At least 1; default
    /// `1_000_000`.
    pub max_intervals: usize,
}

impl Default for ElementaryOptions {
    fn default() -> Self {
        Self {
            distance_threshold: 1e-4,
            time_tolerance: 1e-4,
            hierarchy_culling: true,
            enclosure: EnclosureKind::Interval,
            max_refinement_level: 7,
            newton: true,
            self_collision: true,
            skip_adjacent: true,
            max_intervals: 1_000_000,
        }
    }
}

macro_rules! builder {
    ($($(#[$doc:meta])* $name:ident: $field:ident: $ty:ty;)*) => {
        $(
            $(#[$doc])*
            #[must_use]
            pub const fn $name(mut self, value: $ty) -> Self {
                self.$field = value;
                self
            }
        )*
    };
}

impl ElementaryOptions {
    builder! {
        /// With this clearance.
        with_distance_threshold: distance_threshold: f64;
        /// With this time tolerance.
        with_time_tolerance: time_tolerance: f64;
        /// With or without stage 1.
        with_hierarchy_culling: hierarchy_culling: bool;
        /// With this stage-1 enclosure.
        with_enclosure: enclosure: EnclosureKind;
        /// With this largest refinement level.
        with_max_refinement_level: max_refinement_level: u32;
        /// With or without Newton culling.
        with_newton: newton: bool;
        /// With or without self-collision.
        with_self_collision: self_collision: bool;
        /// Skipping adjacent links or not.
        with_skip_adjacent: skip_adjacent: bool;
        /// With this interval budget.
        with_max_intervals: max_intervals: usize;
    }

    /// Checks every field against its documented range.
    ///
    /// # Errors
    /// [`ElementaryError::InvalidOption`] naming the field.
    pub fn validate(&self) -> Result<(), ElementaryError> {
        let bad = |name, value, why| Err(ElementaryError::InvalidOption { name, value, why });
        let d = self.distance_threshold;
        if !(d.is_finite() && d >= 0.0) {
            return bad("distance_threshold", d, "must be finite and ≥ 0");
        }
        let t = self.time_tolerance;
        if !(1e-12..=0.5).contains(&t) {
            return bad("time_tolerance", t, "must lie in [1e-12, 0.5]");
        }
        if self.max_refinement_level > 10 {
            return bad(
                "max_refinement_level",
                f64::from(self.max_refinement_level),
                "must be at most 10",
            );
        }
        if self.max_intervals == 0 {
            return bad("max_intervals", 0.0, "must be at least 1");
        }
        Ok(())
    }
}

/// A link's refinement level makes its swing over one sub-interval at most
/// this fraction of its box's size at the start: the leaves of its OBB tree
/// (single triangles) are far smaller than the link, and their swept boxes
/// only stay apart on pieces where the link moves little. Measured on the
/// Puma suite: 1/2 gave 10–100 times more leaf pairs than 1/50.
const LEVEL_FRACTION: f64 = 0.02;

/// What the link touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Other {
    /// The obstacle at this index of the scene's obstacle slice.
    Obstacle(usize),
    /// The link at this index of the body's tree.
    Link(usize),
}

/// How a query ended; see [`ElementaryReport`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElementaryStatus {
    /// Every pair keeps its clearance over `[0, 1]`.
    Free,
    /// A pair comes within its clearance; the contact is the first.
    Collides,
    /// Some pair touches or overlaps at `t = 0`.
    CollidingAtStart,
    /// The solver's interval budget ran out: the motion may break a
    /// clearance at or after [`ElementaryReport::toc_lower_bound`].
    BudgetExhausted,
}

/// The witness of a contact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ElementaryContact {
    /// Normalised time of contact, never later than the first time any
    /// pair comes within its clearance.
    pub time: f64,
    /// The moving link (tree index).
    pub link: usize,
    /// What it touches.
    pub other: Other,
    /// The elementary features (mesh vertex and triangle ids; "a" is the
    /// link's mesh); `None` for a contact at the start found by a
    /// distance or containment query.
    pub features: Option<FeaturePair>,
    /// The link's triangle.
    pub triangle_a: u32,
    /// The other's triangle.
    pub triangle_b: u32,
    /// Distance of the two triangles at [`ElementaryContact::time`].
    pub distance: f64,
    /// World point: the middle of the two triangles' closest points.
    pub point: DVec3,
    /// For two parallel edges touching along a segment, the other end of
    /// that segment (M1 reports two contacts then); `None` otherwise.
    pub second_point: Option<DVec3>,
    /// World unit normal from the link towards the other (zero when the
    /// triangles intersect and no direction is defined).
    pub normal: DVec3,
}

/// Counts and times of one query.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ElementaryStats {
    /// Pairs the rules allow.
    pub pairs_total: usize,
    /// Pairs left by stage 1.
    pub pairs_after_hierarchy: usize,
    /// Pairs left by stage 2 (swept-volume culling; equal to
    /// [`ElementaryStats::pairs_after_hierarchy`] without it).
    pub pairs_after_culling: usize,
    /// Continuous OBB/OBB tests of the traversal.
    pub obb_tests: usize,
    /// Overlapping leaf pairs.
    pub leaf_pairs: usize,
    /// Elementary equations (after merging shared features).
    pub equations: usize,
    /// Time intervals the solver processed.
    pub intervals: usize,
    /// Equation evaluations over intervals.
    pub evaluations: usize,
    /// Equations culled by the Newton test.
    pub newton_culls: usize,
    /// Time in stage 1 and the start state (stage 2 not included).
    pub hierarchy_time: Duration,
    /// Time in stage 2 (swept-volume culling).
    pub culling_time: Duration,
    /// Time in the OBB-tree traversal, the refinement levels and the link
    /// bounds per sub-interval included.
    pub traversal_time: Duration,
    /// Time in the solver.
    pub solver_time: Duration,
}

/// The answer of [`ElementaryScene::first_contact`].
///
/// # The clearance contract
///
/// As the conservative-advancement stage's: with `δ` the
/// [`ElementaryOptions::distance_threshold`] and `d_p(t)` a tested pair's
/// mesh distance, each pair gets the clearance `c_p = min(δ, d_p(0)/3)`.
///
/// - [`ElementaryStatus::Free`]: `d_p(t) > c_p` for every pair and `t`.
/// - [`ElementaryStatus::Collides`]: the contact's time is never later
///   than the first time any pair comes within its clearance, its
///   triangles are within `2c_p` there, and within `c_p` before the time
///   tolerance has passed (except on intervals refined below `10⁻¹³`,
///   where the first condition alone holds) (with `δ = 0`: the contact's time
///   is within [`ElementaryOptions::time_tolerance`] before an interval on
///   which the features' interval tests could not exclude a contact).
/// - [`ElementaryStatus::CollidingAtStart`]: some pair has `d_p(0) = 0`.
/// - [`ElementaryStatus::BudgetExhausted`]: no pair comes within its
///   clearance before [`ElementaryReport::toc_lower_bound`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ElementaryReport {
    /// How it ended.
    pub status: ElementaryStatus,
    /// The contact, for [`ElementaryStatus::Collides`] and
    /// [`ElementaryStatus::CollidingAtStart`].
    pub contact: Option<ElementaryContact>,
    /// A lower bound on the first time any pair breaks its clearance.
    pub toc_lower_bound: f64,
    /// The smallest clearance over the pairs tested.
    pub clearance: f64,
    /// Counts and times.
    pub stats: ElementaryStats,
}

/// Stage 2 of M1, swept-volume culling (M1 §4.2), as this crate sees it:
/// the facade plugs in an implementation (GPU or CPU CULLIDE) that this
/// crate does not depend on.
pub trait PairCulling {
    /// Given the motion and the link–obstacle pairs `(link, obstacle)`
    /// that stage 1 left, sets `keep[i] = false` for the pairs proven to
    /// stay more than `clearance` apart over the whole motion `[0, 1]`
    /// (`keep` starts all `true` and has one entry per pair). Leaving a
    /// pair kept is always sound.
    ///
    /// # Errors
    /// Any failure of the culling, reported as
    /// [`ElementaryError::Culling`].
    fn cull(
        &mut self,
        motion: &InBetweenMotion,
        pairs: &[(usize, usize)],
        clearance: f64,
        keep: &mut [bool],
    ) -> Result<(), ElementaryError>;
}

/// One tested pair.
#[derive(Clone, Copy, Debug)]
struct Pair {
    link: usize,
    other: Other,
}

/// Reusable buffers of [`ElementaryScene::first_contact`].
#[derive(Debug, Default)]
pub struct ElementaryWorkspace {
    potential: PotentialPairs,
    pairs: Vec<Pair>,
    /// Stage 2's input, the link–obstacle pairs, and its answer per pair.
    obstacle_pairs: Vec<(usize, usize)>,
    keep: Vec<bool>,
    separation: Vec<f64>,
    levels: Vec<u32>,
    /// Per level `ℓ`, the pose enclosures of every link on each of the
    /// `2^ℓ` sub-intervals (`link + links · k`).
    level_poses: Vec<Vec<RelativePose>>,
    /// Per obstacle, its pose enclosures on the sub-intervals of its level.
    obstacle_poses: Vec<Vec<RelativePose>>,
    /// Every equation the query's traversals emitted.
    equations: Vec<Equation>,
    /// The equations of the current piece (indices into `equations`).
    active: Vec<u32>,
    /// Per pair, the piece indices of its two bodies' bounds its
    /// equations were traversed with, and where those equations are.
    pair_key: Vec<Option<(usize, usize)>>,
    pair_equations: Vec<core::ops::Range<u32>>,
    /// Per pair, the first piece on which it may have equations (its
    /// trees stay apart before, over a block of pieces).
    free_until: Vec<usize>,

    traversal: TraversalWorkspace,
    solver: SolverWorkspace,
    distance: DistanceWorkspace,
    collide: CollideWorkspace,
    poses: Vec<DAffine3>,
    scratch: Vec<IntervalAffine3>,
}

impl ElementaryWorkspace {
    /// An empty workspace.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
}

/// A body, its obstacles and the options, prepared once for many queries
/// (the dynamic link hierarchy, the environment hierarchy and the link
/// boxes). One value per thread.
#[derive(Debug)]
pub struct ElementaryScene<'a> {
    body: &'a ArticulatedBody,
    obstacles: &'a [Obstacle],
    options: ElementaryOptions,
    hierarchy: DynamicLinkHierarchy,
    environment: EnvironmentHierarchy,
    link_obbs: Vec<Option<LinkObb>>,
}

fn geometry(body: &ArticulatedBody, link: usize) -> Result<&LinkGeometry, ElementaryError> {
    body.links()
        .get(link)
        .and_then(Option::as_ref)
        .ok_or(ElementaryError::InvalidOption {
            name: "link",
            value: link as f64,
            why: "the link has no geometry",
        })
}

impl<'a> ElementaryScene<'a> {
    /// Prepares `body` against `obstacles` (static or rigidly moving over
    /// `[0, 1]`), never testing the `disabled` pairs.
    ///
    /// # Errors
    /// [`ElementaryError::InvalidOption`] for options out of range;
    /// [`ElementaryError::Geometry`] when a link or obstacle box cannot be
    /// computed.
    pub fn new(
        body: &'a ArticulatedBody,
        obstacles: &'a [Obstacle],
        disabled: &DisabledPairs,
        options: &ElementaryOptions,
    ) -> Result<Self, ElementaryError> {
        options.validate()?;
        let hierarchy = body
            .dynamic_hierarchy(
                DynamicHierarchyOptions::default()
                    .with_kind(options.enclosure)
                    .with_self_collision(options.self_collision)
                    .with_skip_adjacent(options.skip_adjacent)
                    .with_margin(options.distance_threshold),
            )?
            .with_disabled(disabled.clone());
        Ok(Self {
            body,
            obstacles,
            options: *options,
            hierarchy,
            environment: EnvironmentHierarchy::from_obstacles(obstacles)?,
            link_obbs: body.link_obbs()?,
        })
    }

    /// The options.
    #[must_use]
    pub const fn options(&self) -> &ElementaryOptions {
        &self.options
    }

    fn bodies(&self) -> usize {
        self.body.tree().len() + self.obstacles.len()
    }

    fn body_index(&self, other: Other) -> usize {
        match other {
            Other::Link(j) => j,
            Other::Obstacle(o) => self.body.tree().len() + o,
        }
    }

    fn other_geometry(&self, other: Other) -> Result<&LinkGeometry, ElementaryError> {
        match other {
            Other::Link(j) => geometry(self.body, j),
            Other::Obstacle(o) => Ok(self.obstacles[o].geometry()),
        }
    }

    /// The first contact while the body moves from `q0` to `q1` by the
    /// in-between motion; see [`ElementaryReport`] for the contract.
    ///
    /// # Errors
    /// [`ElementaryError::Kinematics`] for configurations of the wrong
    /// length or not finite; [`ElementaryError::Geometry`] for poses the
    /// queries reject.
    pub fn first_contact(
        &mut self,
        q0: &[f64],
        q1: &[f64],
        ws: &mut ElementaryWorkspace,
    ) -> Result<ElementaryReport, ElementaryError> {
        self.first_contact_culled(q0, q1, ws, None)
    }

    /// As [`ElementaryScene::first_contact`], with stage 2 between the
    /// dynamic link hierarchy and the exact stage: `culling` drops the
    /// link–obstacle pairs whose swept volumes it proves apart (M1's
    /// `1+2+3` pipeline; `2+3` without [`ElementaryOptions::hierarchy_culling`]).
    ///
    /// # Errors
    /// As [`ElementaryScene::first_contact`], and the culling's errors.
    pub fn first_contact_culled(
        &mut self,
        q0: &[f64],
        q1: &[f64],
        ws: &mut ElementaryWorkspace,
        culling: Option<&mut dyn PairCulling>,
    ) -> Result<ElementaryReport, ElementaryError> {
        let tree = self.body.tree();
        let motion = InBetweenMotion::new(tree, q0, q1)?;
        let mut stats = ElementaryStats::default();
        let delta = self.options.distance_threshold;

        // Stage 1: the dynamic link hierarchy.
        let started = Instant::now();
        self.collect_pairs(&motion, ws, &mut stats)?;
        // Stage 2: swept-volume culling of the link–obstacle pairs.
        if let Some(culling) = culling {
            let culled = Instant::now();
            self.cull_pairs(&motion, culling, ws)?;
            stats.culling_time = culled.elapsed();
        }
        stats.pairs_after_culling = ws.pairs.len();
        // The start state and each pair's clearance.
        ws.poses.resize(tree.len(), DAffine3::IDENTITY);
        motion.poses_at(0.0, &mut ws.poses)?;
        ws.separation.clear();
        let mut clearance = delta;
        for i in 0..ws.pairs.len() {
            let pair = ws.pairs[i];
            match self.start_state(pair, ws)? {
                Start::Touching(c) => {
                    stats.hierarchy_time = started.elapsed().saturating_sub(stats.culling_time);
                    return Ok(ElementaryReport {
                        status: ElementaryStatus::CollidingAtStart,
                        contact: Some(c),
                        toc_lower_bound: 0.0,
                        clearance: 0.0,
                        stats,
                    });
                }
                Start::Apart(d) => {
                    let c = if d >= 3.0 * delta { delta } else { d / 3.0 };
                    clearance = clearance.min(c);
                    ws.separation.push(c);
                }
            }
        }
        stats.hierarchy_time = started.elapsed().saturating_sub(stats.culling_time);

        // Stage 3: the time sub-intervals in increasing time (M1 §5.1.1),
        // each traversed and solved before the next, so that the first
        // contact ends the query.
        let levels_started = Instant::now();
        self.choose_levels(&motion, ws)?;
        self.level_poses(&motion, ws)?;
        let top = ws.levels.iter().copied().max().unwrap_or(0);
        let pieces = 1usize << top;
        // The pairs leave the workspace while the solver's source holds
        // them (they come back below; an error leaves an empty list, which
        // the next query fills again).
        let pairs = core::mem::take(&mut ws.pairs);
        let source = Source {
            scene: self,
            motion: &motion,
            pairs: &pairs,
            chain: core::cell::RefCell::new(Vec::with_capacity(tree.len())),
            poses: core::cell::RefCell::new(Vec::with_capacity(tree.len())),
        };
        let mut tstats = TraversalStats::default();
        let mut sstats = SolverStats::default();
        // The link bounds count with the traversal.
        let mut traversal_time = levels_started.elapsed();
        let mut solver_time = Duration::ZERO;
        let mut solution = Solution::None;
        ws.solver.begin_query();
        ws.pair_key.clear();
        ws.pair_key.resize(pairs.len(), None);
        ws.pair_equations.clear();
        ws.pair_equations.resize(pairs.len(), 0..0);
        ws.free_until.clear();
        ws.free_until.resize(pairs.len(), 0);
        ws.equations.clear();
        for k in 0..pieces {
            let window = piece(k, pieces);
            let started = Instant::now();
            ws.active.clear();
            for (i, &pair) in pairs.iter().enumerate() {
                if ws.free_until[i] > k {
                    continue;
                }
                // Coarser blocks of time starting here first: a pair whose
                // trees stay apart over a whole block skips its pieces.
                let finest = ws.levels[pair.link].max(ws.levels[self.body_index(pair.other)]);
                let aligned = if k == 0 {
                    top
                } else {
                    (k.trailing_zeros()).min(top)
                };
                let mut level = top - aligned;
                while level < finest {
                    let block = k >> (top - level);
                    let rel = self.block_pose(pair, level, block, ws)?;
                    if !self.traverse_pair(i, pair, &rel, true, ws, &mut tstats)? {
                        ws.free_until[i] = (block + 1) << (top - level);
                        break;
                    }
                    level += 1;
                }
                if ws.free_until[i] > k {
                    continue;
                }
                // A pair whose two bodies keep their bounds from the last
                // piece (both at coarser levels) has the same equations.
                let key = self.piece_key(pair, top, k, &ws.levels);
                if ws.pair_key[i] != Some(key) {
                    ws.pair_key[i] = Some(key);
                    let rel = self.relative_pose(pair, top, k, ws);
                    let from = ws.equations.len() as u32;
                    self.traverse_pair(i, pair, &rel, false, ws, &mut tstats)?;
                    ws.pair_equations[i] = from..ws.equations.len() as u32;
                }
                ws.active.extend(ws.pair_equations[i].clone());
            }
            stats.equations += ws.active.len();
            traversal_time += started.elapsed();
            let started = Instant::now();
            solution = solve(
                window,
                &ws.equations,
                &ws.active,
                &ws.separation,
                self.bodies(),
                &source,
                &SolverOptions {
                    time_tolerance: self.options.time_tolerance,
                    newton: self.options.newton,
                    max_intervals: self.options.max_intervals,
                },
                &mut ws.solver,
                &mut sstats,
            )?;
            solver_time += started.elapsed();
            if !matches!(solution, Solution::None) {
                break;
            }
        }
        stats.obb_tests = tstats.obb_tests;
        stats.leaf_pairs = tstats.leaf_pairs;
        stats.traversal_time = traversal_time;
        stats.intervals = sstats.intervals;
        stats.evaluations = sstats.evaluations;
        stats.newton_culls = sstats.newton_culls;
        stats.solver_time = solver_time;
        let report = match solution {
            Solution::None => ElementaryReport {
                status: ElementaryStatus::Free,
                contact: None,
                toc_lower_bound: 1.0,
                clearance,
                stats,
            },
            Solution::Exhausted { lower_bound } => ElementaryReport {
                status: ElementaryStatus::BudgetExhausted,
                contact: None,
                toc_lower_bound: lower_bound,
                clearance,
                stats,
            },
            Solution::Contact { time, equation } => {
                let e = ws.equations[equation];
                let contact = source.contact(&e, time)?;
                ElementaryReport {
                    status: ElementaryStatus::Collides,
                    contact: Some(contact),
                    toc_lower_bound: time,
                    clearance,
                    stats,
                }
            }
        };
        ws.pairs = pairs;
        Ok(report)
    }

    /// The pairs to test: stage 1's, or every allowed pair.
    /// Stage 2 over the link–obstacle pairs of `ws.pairs`; link–link pairs
    /// stay.
    fn cull_pairs(
        &self,
        motion: &InBetweenMotion,
        culling: &mut dyn PairCulling,
        ws: &mut ElementaryWorkspace,
    ) -> Result<(), ElementaryError> {
        ws.obstacle_pairs.clear();
        ws.obstacle_pairs
            .extend(ws.pairs.iter().filter_map(|p| match p.other {
                Other::Obstacle(o) => Some((p.link, o)),
                Other::Link(_) => None,
            }));
        if ws.obstacle_pairs.is_empty() {
            return Ok(());
        }
        ws.keep.clear();
        ws.keep.resize(ws.obstacle_pairs.len(), true);
        culling.cull(
            motion,
            &ws.obstacle_pairs,
            self.options.distance_threshold,
            &mut ws.keep,
        )?;
        let mut k = 0;
        let keep = &ws.keep;
        ws.pairs.retain(|p| match p.other {
            Other::Obstacle(_) => {
                k += 1;
                keep[k - 1]
            }
            Other::Link(_) => true,
        });
        Ok(())
    }

    fn collect_pairs(
        &mut self,
        motion: &InBetweenMotion,
        ws: &mut ElementaryWorkspace,
        stats: &mut ElementaryStats,
    ) -> Result<(), ElementaryError> {
        ws.pairs.clear();
        if self.options.hierarchy_culling {
            self.hierarchy.potential_pairs(
                motion,
                0.0,
                1.0,
                Some(&self.environment),
                &mut ws.potential,
            )?;
            let bp = ws.potential.stats;
            stats.pairs_total = bp.link_pairs_considered + bp.obstacle_pairs_considered;
            ws.pairs
                .extend(ws.potential.link_obstacle.iter().map(|&(l, o)| Pair {
                    link: l,
                    other: Other::Obstacle(o),
                }));
            ws.pairs
                .extend(ws.potential.link_link.iter().map(|&(a, b)| Pair {
                    link: a,
                    other: Other::Link(b),
                }));
        } else {
            let n = self.body.tree().len();
            let has = |l: usize| self.body.links()[l].is_some();
            for l in (0..n).filter(|&l| has(l)) {
                for o in 0..self.obstacles.len() {
                    if self.hierarchy.obstacle_pair_allowed(l, o) {
                        ws.pairs.push(Pair {
                            link: l,
                            other: Other::Obstacle(o),
                        });
                    }
                }
            }
            if self.options.self_collision {
                for a in (0..n).filter(|&l| has(l)) {
                    for b in (a + 1..n).filter(|&l| has(l)) {
                        if self.hierarchy.link_pair_allowed(a, b) {
                            ws.pairs.push(Pair {
                                link: a,
                                other: Other::Link(b),
                            });
                        }
                    }
                }
            }
            stats.pairs_total = ws.pairs.len();
        }
        stats.pairs_after_hierarchy = ws.pairs.len();
        Ok(())
    }

    fn other_pose(&self, other: Other, t: f64, poses: &[DAffine3]) -> DAffine3 {
        match other {
            Other::Link(j) => poses[j],
            Other::Obstacle(o) => self.obstacles[o].pose_at(t),
        }
    }

    /// The pair's state at `t = 0` (`ws.poses` holds the poses there).
    fn start_state(
        &self,
        pair: Pair,
        ws: &mut ElementaryWorkspace,
    ) -> Result<Start, ElementaryError> {
        let delta = self.options.distance_threshold;
        let far = 3.0 * delta;
        let ga = geometry(self.body, pair.link)?;
        let gb = self.other_geometry(pair.other)?;
        let pose_a = ws.poses[pair.link];
        let pose_b = self.other_pose(pair.other, 0.0, &ws.poses);
        let a = MeshObject::new(&ga.mesh, &ga.rss_tree, pose_a)?;
        let b = MeshObject::new(&gb.mesh, &gb.rss_tree, pose_b)?;
        let a_obb = MeshObject::new(&ga.mesh, &ga.obb_tree, pose_a)?;
        let b_obb = MeshObject::new(&gb.mesh, &gb.obb_tree, pose_b)?;
        // With δ = 0 only touching matters: the intersection test decides.
        let (lower_bound, nearest, meet) = if delta > 0.0 {
            let cap = far * (1.0 + 1e-9);
            let mut d = capped_distance(&a, &b, 0.5, cap, &mut ws.distance, None)?;
            if d.lower_bound < far {
                d = capped_distance(&a, &b, 0.0, cap, &mut ws.distance, None)?;
            }
            let touching = d.lower_bound.is_nan() || d.lower_bound <= 0.0;
            let meet = touching
                || (d.lower_bound < far
                    && collide(&a_obb, &b_obb, CollideMode::First, &mut ws.collide).colliding);
            (d.lower_bound, d.nearest, meet)
        } else {
            let meet = collide(&a_obb, &b_obb, CollideMode::First, &mut ws.collide).colliding;
            (f64::INFINITY, None, meet)
        };
        if meet {
            let n = match nearest {
                Some(n) => n,
                None => capped_distance(&a, &b, 0.0, f64::MAX, &mut ws.distance, None)?
                    .nearest
                    .ok_or(ElementaryError::InvalidOption {
                        name: "pose",
                        value: 0.0,
                        why: "no triangle pair has a finite distance",
                    })?,
            };
            return Ok(Start::Touching(ElementaryContact {
                time: 0.0,
                link: pair.link,
                other: pair.other,
                features: None,
                triangle_a: n.triangle_a,
                triangle_b: n.triangle_b,
                distance: n.distance,
                point: (n.point_a + n.point_b) * 0.5,
                second_point: None,
                normal: (n.point_b - n.point_a).normalize_or_zero(),
            }));
        }
        if (ga.is_closed() || gb.is_closed())
            && let Some(w) = containment(&a_obb, &ga.topology, &b_obb, &gb.topology)?
        {
            return Ok(Start::Touching(ElementaryContact {
                time: 0.0,
                link: pair.link,
                other: pair.other,
                features: None,
                triangle_a: w.triangle_a,
                triangle_b: w.triangle_b,
                distance: 0.0,
                point: (w.point_a + w.point_b) * 0.5,
                second_point: None,
                normal: (w.point_b - w.point_a).normalize_or_zero(),
            }));
        }
        Ok(Start::Apart(if lower_bound >= far {
            f64::INFINITY
        } else {
            lower_bound
        }))
    }

    /// Each body's refinement level: links from their swing (the swept
    /// box's diagonal beyond the box at the start, against the box's
    /// size), static obstacles 0, moving obstacles the largest.
    fn choose_levels(
        &self,
        motion: &InBetweenMotion,
        ws: &mut ElementaryWorkspace,
    ) -> Result<(), ElementaryError> {
        let n = self.body.tree().len();
        let max = self.options.max_refinement_level;
        ws.scratch.resize(n, IntervalAffine3::IDENTITY);
        motion.enclose_interval_into(0.0, 1.0, &mut ws.scratch)?;
        ws.levels.clear();
        for (i, obb) in self.link_obbs.iter().enumerate() {
            let Some(obb) = obb else {
                ws.levels.push(0);
                continue;
            };
            let swept = obb.aabb_interval(&ws.scratch[i]);
            let start = obb.aabb_interval(&IntervalAffine3::from_daffine3(&ws.poses[i]));
            let diag = |b: &armature_interval_taylor::IntervalVec3| b.width().length();
            let size = diag(&start).max(f64::MIN_POSITIVE);
            let swing = (diag(&swept) - size).max(0.0);
            let r = (swing / (LEVEL_FRACTION * size)).log2().ceil();
            let r = if r.is_nan() || r < 0.0 {
                0
            } else {
                (r as u32).min(max)
            };
            ws.levels.push(r);
        }
        for o in self.obstacles {
            ws.levels.push(if o.is_static() { 0 } else { max });
        }
        Ok(())
    }

    /// The pose enclosures of every link on the sub-intervals of every
    /// level used, and of every obstacle on its own level's.
    fn level_poses(
        &self,
        motion: &InBetweenMotion,
        ws: &mut ElementaryWorkspace,
    ) -> Result<(), ElementaryError> {
        let n = self.body.tree().len();
        let top = ws.levels.iter().copied().max().unwrap_or(0) as usize;
        ws.level_poses.resize(top + 1, Vec::new());
        ws.scratch.resize(n, IntervalAffine3::IDENTITY);
        // The finest level directly; each coarser piece as the hull of its
        // two halves (an enclosure of the piece, and no looser than the
        // enclosure computed over the whole piece at once).
        Self::fill_level(motion, top, ws)?;
        for level in (0..top).rev() {
            let (coarse, fine) = ws.level_poses.split_at_mut(level + 1);
            let (coarse, fine) = (&mut coarse[level], &fine[0]);
            coarse.clear();
            for k in 0..1usize << level {
                let (left, right) = (2 * k * n, (2 * k + 1) * n);
                coarse.extend((0..n).map(|i| fine[left + i].hull(&fine[right + i])));
            }
        }
        ws.obstacle_poses
            .resize_with(self.obstacles.len().max(ws.obstacle_poses.len()), Vec::new);
        for (o, obstacle) in self.obstacles.iter().enumerate() {
            let poses = &mut ws.obstacle_poses[o];
            poses.clear();
            let pieces = 1usize << ws.levels[n + o];
            for k in 0..pieces {
                let (t0, t1) = piece(k, pieces);
                poses.push(RelativePose::from_interval(&obstacle_pose(
                    obstacle, t0, t1,
                )?));
            }
        }
        Ok(())
    }

    /// Every link's bounds on the `2^level` pieces.
    fn fill_level(
        motion: &InBetweenMotion,
        level: usize,
        ws: &mut ElementaryWorkspace,
    ) -> Result<(), ElementaryError> {
        let pieces = 1usize << level;
        let n = motion.local().len();
        let table = &mut ws.level_poses[level];
        table.clear();
        table.reserve(n * pieces);
        for k in 0..pieces {
            let (t0, t1) = piece(k, pieces);
            // The chain in midpoint–radius form (`RelativePose::then`,
            // `RelativePose::local_motion`): far cheaper than intervals
            // with `sin`/`cos`, and as sound.
            let base = table.len();
            for (i, (local, parent)) in motion.local().iter().zip(motion.parents()).enumerate() {
                let l = RelativePose::local_motion(local, t0, t1);
                let w = match parent {
                    Some(p) if *p < i => table[base + p].then(&l),
                    _ => l,
                };
                table.push(w);
            }
        }
        // A non-finite enclosure (an overflowing motion) makes every box
        // test answer "may overlap"; the solver's enclosures then report
        // the motion.
        Ok(())
    }

    /// The link's frame in the other's frame over block `block` of the
    /// `2^level` equal pieces of `[0, 1]`.
    fn block_pose(
        &self,
        pair: Pair,
        level: u32,
        block: usize,
        ws: &mut ElementaryWorkspace,
    ) -> Result<RelativePose, ElementaryError> {
        let level = level as usize;
        let n = self.body.tree().len();
        let pa = ws.level_poses[level][block * n + pair.link];
        let pb = match pair.other {
            Other::Link(j) => ws.level_poses[level][block * n + j],
            Other::Obstacle(o) => {
                if self.obstacles[o].is_static() {
                    ws.obstacle_poses[o][0]
                } else {
                    let (t0, t1) = piece(block, 1 << level);
                    RelativePose::from_interval(&obstacle_pose(&self.obstacles[o], t0, t1)?)
                }
            }
        };
        Ok(pb.inverse_then(&pa))
    }

    /// Traverses the pair's trees with the relative pose `rel` of a time
    /// piece (see [`traverse`]).
    fn traverse_pair(
        &self,
        i: usize,
        pair: Pair,
        rel: &RelativePose,
        probe: bool,
        ws: &mut ElementaryWorkspace,
        stats: &mut TraversalStats,
    ) -> Result<bool, ElementaryError> {
        let a = geometry(self.body, pair.link)?;
        let b = self.other_geometry(pair.other)?;
        ws.traversal.clear();
        Ok(traverse(
            i as u32,
            Side {
                mesh: &a.mesh,
                tree: &a.obb_tree,
                body: pair.link as u32,
            },
            Side {
                mesh: &b.mesh,
                tree: &b.obb_tree,
                body: self.body_index(pair.other) as u32,
            },
            rel,
            ws.separation[i],
            probe,
            &mut ws.equations,
            &mut ws.traversal,
            stats,
        ))
    }

    /// The indices of the bounds of the pair's two bodies on the `k`-th of
    /// the `2^top` sub-intervals.
    fn piece_key(&self, pair: Pair, top: u32, k: usize, levels: &[u32]) -> (usize, usize) {
        let a = pair.link;
        let b = self.body_index(pair.other);
        (k >> (top - levels[a]), k >> (top - levels[b]))
    }

    /// The link's frame in the other's frame on the `k`-th of the `2^top`
    /// sub-intervals, from each body's bounds at its own level.
    fn relative_pose(
        &self,
        pair: Pair,
        top: u32,
        k: usize,
        ws: &ElementaryWorkspace,
    ) -> RelativePose {
        let n = self.body.tree().len();
        let a = pair.link;
        let ra = ws.levels[a];
        let pa = &ws.level_poses[ra as usize][(k >> (top - ra)) * n + a];
        let pb = match pair.other {
            Other::Link(j) => {
                let rb = ws.levels[j];
                &ws.level_poses[rb as usize][(k >> (top - rb)) * n + j]
            }
            Other::Obstacle(o) => {
                let rb = ws.levels[n + o];
                &ws.obstacle_poses[o][k >> (top - rb)]
            }
        };
        pb.inverse_then(pa)
    }
}

/// The `k`-th of `pieces` equal sub-intervals of `[0, 1]`.
fn piece(k: usize, pieces: usize) -> (f64, f64) {
    let n = pieces as f64;
    (k as f64 / n, ((k + 1) as f64 / n).min(1.0))
}

fn time(t0: f64, t1: f64) -> Result<Interval, ElementaryError> {
    Ok(Interval::new(t0, t1)?)
}

/// An obstacle's pose enclosure over `[t0, t1]`.
fn obstacle_pose(o: &Obstacle, t0: f64, t1: f64) -> Result<IntervalAffine3, ElementaryError> {
    Ok(match o.motion() {
        ObstacleMotion::Static(p) => IntervalAffine3::from_daffine3(p),
        ObstacleMotion::Rigid { motion, .. } => motion.interval_enclosure(time(t0, t1)?)?,
    })
}

enum Start {
    Touching(ElementaryContact),
    /// The pair's certified distance at the start (`∞` beyond `3δ`).
    Apart(f64),
}

/// The solver's view of the scene.
struct Source<'s, 'a> {
    scene: &'s ElementaryScene<'a>,
    motion: &'s InBetweenMotion,
    pairs: &'s [Pair],
    /// Scratch: each link's pose and derivative enclosures.
    chain: core::cell::RefCell<Vec<(RelativePose, RelativePose)>>,
    /// Scratch: every link's pose at one time (the witnesses').
    poses: core::cell::RefCell<Vec<DAffine3>>,
}

impl Source<'_, '_> {
    /// The pair's two triangles in world coordinates at `t`.
    fn triangles(
        &self,
        e: &Equation,
        t: f64,
    ) -> Result<([glam::DVec3; 3], [glam::DVec3; 3], Pair), ElementaryError> {
        let pair = self.pairs[e.pair as usize];
        let ga = geometry(self.scene.body, pair.link)?;
        let gb = self.scene.other_geometry(pair.other)?;
        let (pa, pb) = self.poses_at(pair, t)?;
        let ta = ga
            .mesh
            .triangle(e.triangles[0] as usize)
            .map(|p| pa.transform_point3(p));
        let tb = gb
            .mesh
            .triangle(e.triangles[1] as usize)
            .map(|p| pb.transform_point3(p));
        Ok((ta, tb, pair))
    }

    /// The contact of equation `e` at `t`.
    fn contact(&self, e: &Equation, t: f64) -> Result<ElementaryContact, ElementaryError> {
        let (ta, tb, pair) = self.triangles(e, t)?;
        let c = closest_points_triangle_triangle(&ta, &tb);
        let v = e.vertices;
        let second_point = if e.kind == Kind::EdgeEdge {
            let (pa, pb) = self.poses_at(pair, t)?;
            parallel_contact(
                [
                    pa.transform_point3(e.points[0]),
                    pa.transform_point3(e.points[1]),
                ],
                [
                    pb.transform_point3(e.points[2]),
                    pb.transform_point3(e.points[3]),
                ],
                (c.point_a + c.point_b) * 0.5,
            )
        } else {
            None
        };
        let features = match (e.kind, e.first_is_link) {
            (Kind::VertexFace, true) => FeaturePair::VertexFace {
                vertex: v[0],
                triangle: e.triangles[1],
            },
            (Kind::VertexFace, false) => FeaturePair::FaceVertex {
                triangle: e.triangles[0],
                vertex: v[0],
            },
            (Kind::EdgeEdge, _) => FeaturePair::EdgeEdge {
                edge_a: [v[0], v[1]],
                edge_b: [v[2], v[3]],
            },
        };
        Ok(ElementaryContact {
            time: t,
            link: pair.link,
            other: pair.other,
            features: Some(features),
            triangle_a: e.triangles[0],
            triangle_b: e.triangles[1],
            distance: c.distance,
            point: (c.point_a + c.point_b) * 0.5,
            second_point,
            normal: (c.point_b - c.point_a).normalize_or_zero(),
        })
    }

    /// The poses of the pair's link and of its other member at `t`.
    fn poses_at(&self, pair: Pair, t: f64) -> Result<(DAffine3, DAffine3), ElementaryError> {
        let mut poses = self.poses.borrow_mut();
        poses.resize(self.scene.body.tree().len(), DAffine3::IDENTITY);
        self.motion.poses_at(t, &mut poses)?;
        Ok((
            poses[pair.link],
            self.scene.other_pose(pair.other, t, &poses),
        ))
    }
}

/// For two (nearly) parallel edges `a` and `b` in contact, which touch
/// along a segment rather than at a point (M1 §5.2.1 reports two contacts
/// then): the end of that segment other than `point`, the middle between
/// the edges, or `None` for edges that are not parallel (the angle's sine
/// above `1e-9`) or overlap at one point only.
fn parallel_contact(a: [DVec3; 2], b: [DVec3; 2], point: DVec3) -> Option<DVec3> {
    let (d1, d2) = (a[1] - a[0], b[1] - b[0]);
    let (l1, l2) = (d1.length(), d2.length());
    if !(l1 > 0.0 && l2 > 0.0) || d1.cross(d2).length() > 1e-9 * l1 * l2 {
        return None;
    }
    let u = d1 / l1;
    // The overlap of b's projection with a, along a.
    let (s0, s1) = ((b[0] - a[0]).dot(u), (b[1] - a[0]).dot(u));
    let (lo, hi) = (s0.min(s1).max(0.0), s0.max(s1).min(l1));
    // NaN (a degenerate projection) gives no second contact either.
    if (hi - lo).partial_cmp(&(1e-9 * l1)) != Some(core::cmp::Ordering::Greater) {
        return None;
    }
    // Each end on a, moved halfway to b's line.
    let offset = |s: f64| {
        let p = a[0] + u * s;
        let q = b[0] + d2 * ((p - b[0]).dot(d2) / (l2 * l2));
        (p + q) * 0.5
    };
    let (e0, e1) = (offset(lo), offset(hi));
    // The end farther from the reported point.
    Some(
        if (e0 - point).length_squared() >= (e1 - point).length_squared() {
            e0
        } else {
            e1
        },
    )
}

impl PoseSource for Source<'_, '_> {
    fn enclose_static(&self, poses: &mut [MrAffine], rates: &mut [MrAffine]) {
        let n = self.scene.body.tree().len();
        for (o, obstacle) in self.scene.obstacles.iter().enumerate() {
            if let ObstacleMotion::Static(p) = obstacle.motion() {
                poses[n + o] = MrAffine::new(p.matrix3, DMat3::ZERO, p.translation, DVec3::ZERO);
                rates[n + o] = MrAffine::new(DMat3::ZERO, DMat3::ZERO, DVec3::ZERO, DVec3::ZERO);
            }
        }
    }

    fn enclose(
        &self,
        t0: f64,
        t1: f64,
        poses: &mut [MrAffine],
        rates: &mut [MrAffine],
    ) -> Result<(), ElementaryError> {
        if !(0.0..=t1).contains(&t0) || t1 > 1.0 {
            return Err(armature_kinematics::KinematicsError::BadTime { t0, t1 }.into());
        }
        // The chain in midpoint–radius form, poses and derivatives
        // together (`RelativePose::then`, `RelativePose::then_rate`).
        let mut chain = self.chain.borrow_mut();
        chain.clear();
        for (i, (local, parent)) in self
            .motion
            .local()
            .iter()
            .zip(self.motion.parents())
            .enumerate()
        {
            let l = RelativePose::local_motion(local, t0, t1);
            let dl = RelativePose::local_rate(local, &l);
            let (w, dw) = match parent {
                Some(p) if *p < i => {
                    let (wp, dwp) = chain[*p];
                    (wp.then(&l), wp.then_rate(&dwp, &l, &dl))
                }
                _ => (l, dl),
            };
            chain.push((w, dw));
            poses[i] = w.to_mr();
            rates[i] = dw.to_mr();
        }
        let n = chain.len();
        for (o, obstacle) in self.scene.obstacles.iter().enumerate() {
            if let ObstacleMotion::Rigid { motion, .. } = obstacle.motion() {
                let w = RelativePose::local_motion(motion, t0, t1);
                poses[n + o] = w.to_mr();
                rates[n + o] = RelativePose::local_rate(motion, &w).to_mr();
            }
        }
        Ok(())
    }

    fn witness_within(&self, e: &Equation, t: f64, limit: f64) -> Result<bool, ElementaryError> {
        if limit <= 0.0 {
            return Ok(true);
        }
        let (ta, tb, _) = self.triangles(e, t)?;
        Ok(closest_points_triangle_triangle(&ta, &tb).distance <= limit)
    }
}

#[cfg(test)]
mod parallel_contact_tests {
    use super::*;

    #[test]
    fn parallel_edges_touch_along_a_segment() {
        let a = [DVec3::ZERO, DVec3::X * 2.0];
        let b = [DVec3::new(1.0, 1e-5, 0.0), DVec3::new(3.0, 1e-5, 0.0)];
        let p = parallel_contact(a, b, DVec3::new(1.0, 5e-6, 0.0));
        let p = p.expect("two contacts");
        assert!((p - DVec3::new(2.0, 5e-6, 0.0)).length() < 1e-12, "{p}");
        // Crossing edges touch at one point.
        let c = [DVec3::new(1.0, -1.0, 0.0), DVec3::new(1.0, 1.0, 0.0)];
        assert!(parallel_contact(a, c, DVec3::X).is_none());
        // Collinear edges meeting end to end touch at one point.
        let d = [DVec3::X * 2.0, DVec3::X * 3.0];
        assert!(parallel_contact(a, d, DVec3::X * 2.0).is_none());
    }
}
