//! # Pipelines: the stages of a query, composed once
//!
//! **What.** A [`Pipeline`] fixes how queries on a [`Scene`] are answered:
//! the broad phase (the dynamic link hierarchy with Taylor-model or
//! interval enclosures of each link's box over the motion), the exact stage
//! (conservative advancement, M4), temporal culling, the iteration budget,
//! path-validity early-out, the clearance and budget of path checks (M2's
//! adaptive bisection), and the threads of batch queries. Later stages
//! (swept-volume culling and root finding of M1, M5's penetration depth)
//! plug into the same builder.
//!
//! **Queries.** [`Pipeline::first_contact`] answers one motion `q0 → q1`
//! (in-between motion, time normalised to `[0, 1]`) with a [`CcdReport`];
//! [`Pipeline::first_contact_batch`] answers many on rayon, with results
//! that do not depend on the thread count; [`Pipeline::prepare`] keeps the
//! scene's prepared hierarchies for a stream of queries on one thread;
//! [`Pipeline::check`] is the discrete test (collision and distance) at one
//! configuration. [`Pipeline::check_path`] decides a whole path of
//! joint-space straight segments by adaptive bisection (M2) with a
//! [`PathReport`]; [`Pipeline::check_path_batch`] answers many paths on
//! rayon, and [`Pipeline::prepare_paths`] keeps the segment cache for a
//! stream of path queries on one thread.
//!
//! **Guarantee.** The exact stage's clearance contract, stated on
//! [`CcdReport`]: with `δ` the distance
//! threshold, a motion reported free keeps every pair at least
//! `min(δ, d(0) / 3)` apart, and a reported time of contact is never later
//! than the first time a pair comes closer than that. A path reported
//! [`PathStatus::Free`](crate::PathStatus::Free) keeps every tested pair apart at every
//! configuration of every segment (with a path clearance `ε > 0`, pairs
//! found closer than `ε`, at the waypoints or wherever bisection looks,
//! count as colliding), and [`PathReport::certified_free_prefix`]
//! never reaches past a colliding configuration.
//!
//! ```no_run
//! use armature::{Pipeline, Scene};
//!
//! let scene = Scene::from_file("data/scenes/puma_pipes.ron")?;
//! let pipeline = Pipeline::builder().temporal_culling(true).build()?;
//! let q0 = vec![0.0; scene.nq()];
//! let q1 = vec![0.5; scene.nq()];
//! let report = pipeline.first_contact(&scene, &q0, &q1)?;
//! println!("{:?} at {}", report.status, report.toc_lower_bound);
//! # Ok::<(), armature::Error>(())
//! ```

use std::sync::Arc;

use armature_adaptive_bisection::{BisectionError, CheckOptions, PathChecker, PathReport};
use armature_bvh_geometry::query::{
    CollideMode, CollideWorkspace, DistanceWorkspace, MeshObject, collide, containment, distance,
};
use armature_bvh_geometry::{Aabb, LinkGeometry};
use armature_conservative_advance::{
    CcdOptions, CcdReport, CcdScene, CcdStats, CcdStatus, CcdWorkspace, Contact, Other,
};
use armature_elementary_ccd::PairCulling;
use armature_elementary_ccd::{
    ElementaryContact, ElementaryOptions, ElementaryReport, ElementaryScene, ElementaryStatus,
    ElementaryWorkspace,
};
use armature_gpu_cullide::{CullideOptions, SweptOptions};
use armature_kinematics::EnclosureKind;
use armature_penetration_depth::{PdOptions, PdReport, PdSolver};
use glam::{DAffine3, DVec3};
use rayon::prelude::*;

use crate::culling::{Stage2, SweptVolumeCulling};
use crate::{Error, Scene};

/// How the broad phase encloses each link's box over the motion.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum BroadPhase {
    /// Taylor models (order 3): tight for long chains and large swings
    /// (M4).
    #[default]
    Taylor,
    /// Interval arithmetic: cheaper per link, looser down a chain. The
    /// default of the elementary stage (M1).
    Interval,
    /// Interval arithmetic for motions on which no chain of joints turns
    /// through more than [`armature_kinematics::INTERVAL_SWING`] radians in
    /// total, where it is about as tight for a fraction of the work;
    /// Taylor models for larger motions. The default of conservative
    /// advancement before chords.
    BySwing,
    /// Each link's boxes at the ends of pieces of the motion, joined and
    /// grown by how far its acceleration lets it bulge from the chord
    /// ([`armature_kinematics::EnclosureKind::Chords`]): no enclosure over
    /// an interval of time, tighter than Taylor models on the Puma scenes
    /// and a tenth of their cost. The default of conservative advancement.
    Chords,
}

/// The exact stage that decides each potentially colliding pair.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExactStage {
    /// Conservative advancement with temporal culling (CATCH, M4).
    #[default]
    ConservativeAdvancement,
    /// M1's exact stage: the continuous OBB-tree traversal with per-link
    /// refinement levels and the simultaneous solver of the vertex–face
    /// and edge–edge equations
    /// ([`armature_elementary_ccd::ElementaryScene`]), after the dynamic
    /// link hierarchy (stage 1, interval enclosures unless
    /// [`PipelineBuilder::broad_phase`] asks for Taylor models; off with
    /// [`PipelineBuilder::hierarchy_culling`]). Same clearance contract;
    /// contacts carry their features ([`Contact::features`]). In
    /// [`CcdStats`], `spatial_time` is stage 1 with the start state,
    /// `temporal_time` the OBB-tree traversal, `advance_time` the solver,
    /// `ca_iterations` the solver's time intervals and `distance_calls`
    /// the equations.
    Elementary,
}

/// Answers continuous and discrete collision queries on scenes (see the
/// [module docs](self)). Cheap to clone; `Send + Sync`.
#[derive(Clone, Debug)]
pub struct Pipeline {
    broad_phase: Option<BroadPhase>,
    exact: ExactStage,
    hierarchy_culling: bool,
    swept_volume_culling: SweptVolumeCulling,
    cullide_resolution: u32,
    time_tolerance: f64,
    temporal_culling: bool,
    projected_motion_bound: bool,
    time_pieces: bool,
    distance_threshold: Option<f64>,
    max_iterations: usize,
    early_out: bool,
    path_clearance: f64,
    max_queue_pops: u64,
    locate_path_collision: bool,
    earliest_path_collision: bool,
    refined_bisection: bool,
    threads: Option<usize>,
    pool: Option<Arc<rayon::ThreadPool>>,
}

impl Default for Pipeline {
    fn default() -> Self {
        Self {
            broad_phase: None,
            exact: ExactStage::default(),
            hierarchy_culling: true,
            swept_volume_culling: SweptVolumeCulling::Off,
            cullide_resolution: CullideOptions::default().resolution,
            time_tolerance: ElementaryOptions::default().time_tolerance,
            temporal_culling: true,
            projected_motion_bound: true,
            time_pieces: false,
            distance_threshold: None,
            max_iterations: CcdOptions::default().max_ca_iterations_per_pair,
            early_out: false,
            path_clearance: 0.0,
            max_queue_pops: CheckOptions::default().max_queue_pops,
            locate_path_collision: true,
            earliest_path_collision: true,
            refined_bisection: false,
            threads: None,
            pool: None,
        }
    }
}

/// Builds a [`Pipeline`]; every option has a documented default.
#[derive(Clone, Debug, Default)]
pub struct PipelineBuilder {
    pipeline: Pipeline,
}

impl PipelineBuilder {
    /// The broad phase (default: [`BroadPhase::Chords`] for conservative
    /// advancement, [`BroadPhase::Interval`] for the elementary stage).
    #[must_use]
    pub const fn broad_phase(mut self, b: BroadPhase) -> Self {
        self.pipeline.broad_phase = Some(b);
        self
    }

    /// The elementary stage's stage 1, the dynamic link hierarchy
    /// (default on). Off, every allowed pair goes to the OBB-tree
    /// traversal: M1's `3` ablation against `1+3`. Conservative
    /// advancement always culls.
    #[must_use]
    pub const fn hierarchy_culling(mut self, on: bool) -> Self {
        self.pipeline.hierarchy_culling = on;
        self
    }

    /// The elementary stage's stage 2, swept-volume culling with CULLIDE
    /// (M1 §4.2; default [`SweptVolumeCulling::Off`]). With
    /// [`PipelineBuilder::hierarchy_culling`] off it makes M1's `2+3`
    /// ablation. Conservative advancement ignores it.
    #[must_use]
    pub const fn swept_volume_culling(mut self, mode: SweptVolumeCulling) -> Self {
        self.pipeline.swept_volume_culling = mode;
        self
    }

    /// Side of stage 2's square orthographic views in pixels (default
    /// `64`, in `[16, 4096]`): finer views cull more and draw more.
    #[must_use]
    pub const fn cullide_resolution(mut self, pixels: u32) -> Self {
        self.pipeline.cullide_resolution = pixels;
        self
    }

    /// The elementary stage's time tolerance: the solver stops splitting
    /// time below this width (default `1e-4`; in `[1e-12, 0.5]`).
    #[must_use]
    pub const fn time_tolerance(mut self, width: f64) -> Self {
        self.pipeline.time_tolerance = width;
        self
    }

    /// The exact stage (default [`ExactStage::ConservativeAdvancement`]).
    #[must_use]
    pub const fn exact_stage(mut self, e: ExactStage) -> Self {
        self.pipeline.exact = e;
        self
    }

    /// Temporal culling of pairs by lower bounds on their time of contact
    /// (default on; the answer is the same either way).
    #[must_use]
    pub const fn temporal_culling(mut self, on: bool) -> Self {
        self.pipeline.temporal_culling = on;
        self
    }

    /// Conservative advancement on motion bounds projected per pair of
    /// convex volumes (C2A; default on): tangential passes take few, long
    /// steps. Off, each link pair advances on one unprojected speed bound,
    /// as M4 does for non-convex links; the contract is the same either
    /// way (see [`CcdOptions::projected_motion_bound`]).
    #[must_use]
    pub const fn projected_motion_bound(mut self, on: bool) -> Self {
        self.pipeline.projected_motion_bound = on;
        self
    }

    /// Temporal culling on pieces of the motion (default off): the link
    /// boxes are also enclosed over up to 8 equal pieces of the motion,
    /// their number chosen from its swing; a pair whose boxes meet on no
    /// piece is culled, and one whose boxes first meet later starts there.
    /// The contract is the same either way (see
    /// [`CcdOptions::time_pieces`]).
    #[must_use]
    pub const fn time_pieces(mut self, on: bool) -> Self {
        self.pipeline.time_pieces = on;
        self
    }

    /// Overrides the scene's distance threshold (default: the scene's).
    #[must_use]
    pub const fn distance_threshold(mut self, threshold: f64) -> Self {
        self.pipeline.distance_threshold = Some(threshold);
        self
    }

    /// Conservative-advancement iterations per pair before the answer is
    /// [`armature_conservative_advance::CcdStatus::BudgetExhausted`]
    /// (default 200).
    #[must_use]
    pub const fn max_iterations_per_pair(mut self, n: usize) -> Self {
        self.pipeline.max_iterations = n;
        self
    }

    /// Path-validity mode: stop at the first certain collision instead of
    /// finding the first one (default off).
    #[must_use]
    pub const fn early_out(mut self, on: bool) -> Self {
        self.pipeline.early_out = on;
        self
    }

    /// The clearance `ε ≥ 0` of path checks (default 0): a path is
    /// reported free only when no pair touches anywhere along it and every
    /// pair that may come within `ε` (the static pre-pass keeps those) is
    /// more than `ε` apart at the waypoints and at every configuration the
    /// bisection evaluates; a pair found closer
    /// than `ε` counts as colliding. A positive `ε` bounds the work on
    /// paths that pass close to an obstacle (bisection stops splitting
    /// once a pair is known to stay `ε` away), at the price of rejecting
    /// paths that are free but come closer than `ε`.
    #[must_use]
    pub const fn path_clearance(mut self, eps: f64) -> Self {
        self.pipeline.path_clearance = eps;
        self
    }

    /// Queue pops (bisection steps) one path query may make before the
    /// answer is [`PathStatus::BudgetExhausted`](crate::PathStatus::BudgetExhausted): "may collide after the
    /// certified prefix" (default 1,000,000).
    #[must_use]
    pub const fn max_queue_pops(mut self, n: u64) -> Self {
        self.pipeline.max_queue_pops = n;
        self
    }

    /// Whether a colliding path's collision is located on its first
    /// colliding segment (default on), so that
    /// [`PathReport::certified_free_prefix`] reaches up to it; off, the
    /// prefix stops at the start of that segment and the query is cheaper.
    #[must_use]
    pub const fn locate_path_collision(mut self, on: bool) -> Self {
        self.pipeline.locate_path_collision = on;
        self
    }

    /// Whether a colliding path's query decides every segment before its
    /// earliest colliding one (default on), so that
    /// [`PathReport::first_colliding_segment`] is the earliest of the path.
    /// Off, the query stops at the first collision it finds, whatever the
    /// segment, and keeps the other segments' work for later queries: what
    /// a planner that rejects the path and cuts the colliding segment needs
    /// (M2 §II.D), often far cheaper when the collision lies late on a
    /// path whose earlier segments are new. The report then names the
    /// earliest segment *known* to collide; see
    /// [`CheckOptions::earliest_collision`](armature_adaptive_bisection::CheckOptions::earliest_collision).
    #[must_use]
    pub const fn earliest_path_collision(mut self, on: bool) -> Self {
        self.pipeline.earliest_path_collision = on;
        self
    }

    /// Whether path checks run REFINED-ADAPTIVE-BISECTION (default off):
    /// queue entries are pairs of bounding volumes rather than pairs of
    /// objects, and a failed Lemma 1 test is refined in space before the
    /// sub-segment is split in time, which tests fewer pairs of volumes
    /// where thin parts pass close to each other. The answers keep the
    /// same guarantee; see
    /// [`CheckOptions::refined`](armature_adaptive_bisection::CheckOptions::refined).
    #[must_use]
    pub const fn refined_bisection(mut self, on: bool) -> Self {
        self.pipeline.refined_bisection = on;
        self
    }

    /// Threads of batch queries (default: rayon's global pool, one thread
    /// per core).
    #[must_use]
    pub const fn threads(mut self, n: usize) -> Self {
        self.pipeline.threads = Some(n);
        self
    }

    /// The pipeline.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] for a threshold that is not finite and
    /// positive, zero iterations, a path clearance that is not finite and
    /// non-negative, zero queue pops or zero threads; [`Error::ThreadPool`]
    /// when the threads cannot be started.
    pub fn build(mut self) -> Result<Pipeline, Error> {
        let p = &mut self.pipeline;
        if let Some(t) = p.distance_threshold
            && !(t.is_finite() && t > 0.0)
        {
            return Err(Error::InvalidOption {
                name: "distance_threshold",
                value: t,
                why: "must be finite and positive",
            });
        }
        if !(1e-12..=0.5).contains(&p.time_tolerance) {
            return Err(Error::InvalidOption {
                name: "time_tolerance",
                value: p.time_tolerance,
                why: "must lie in [1e-12, 0.5]",
            });
        }
        if p.max_iterations == 0 {
            return Err(Error::InvalidOption {
                name: "max_iterations_per_pair",
                value: 0.0,
                why: "must be at least 1",
            });
        }
        if !(p.path_clearance.is_finite() && p.path_clearance >= 0.0) {
            return Err(Error::InvalidOption {
                name: "path_clearance",
                value: p.path_clearance,
                why: "must be finite and non-negative",
            });
        }
        if p.max_queue_pops == 0 {
            return Err(Error::InvalidOption {
                name: "max_queue_pops",
                value: 0.0,
                why: "must be at least 1",
            });
        }
        if !(16..=4096).contains(&p.cullide_resolution) {
            return Err(Error::InvalidOption {
                name: "cullide_resolution",
                value: f64::from(p.cullide_resolution),
                why: "must lie in [16, 4096] pixels",
            });
        }
        if let Some(n) = p.threads {
            if n == 0 {
                return Err(Error::InvalidOption {
                    name: "threads",
                    value: 0.0,
                    why: "must be at least 1",
                });
            }
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|e| Error::ThreadPool(e.to_string()))?;
            p.pool = Some(Arc::new(pool));
        }
        Ok(self.pipeline)
    }
}

/// One motion of a batch: start and end configurations.
pub type Motion = (Vec<f64>, Vec<f64>);

impl Pipeline {
    /// A builder with the defaults.
    #[must_use]
    pub fn builder() -> PipelineBuilder {
        PipelineBuilder::default()
    }

    /// The broad phase (the exact stage's default unless set).
    #[must_use]
    pub const fn broad_phase(&self) -> BroadPhase {
        match (self.broad_phase, self.exact) {
            (Some(b), _) => b,
            (None, ExactStage::ConservativeAdvancement) => BroadPhase::Chords,
            (None, ExactStage::Elementary) => BroadPhase::Interval,
        }
    }

    fn enclosure(&self) -> EnclosureKind {
        match self.broad_phase() {
            BroadPhase::Taylor => EnclosureKind::Taylor,
            BroadPhase::Interval => EnclosureKind::Interval,
            BroadPhase::BySwing => EnclosureKind::BySwing,
            BroadPhase::Chords => EnclosureKind::Chords,
        }
    }

    /// The exact stage.
    #[must_use]
    pub const fn exact_stage(&self) -> ExactStage {
        self.exact
    }

    /// The elementary stage's stage 2.
    #[must_use]
    pub const fn swept_volume_culling(&self) -> SweptVolumeCulling {
        self.swept_volume_culling
    }

    /// The threads of batch queries (`None`: rayon's global pool).
    #[must_use]
    pub const fn threads(&self) -> Option<usize> {
        self.threads
    }

    /// The conservative-advancement options this pipeline uses on `scene`.
    #[must_use]
    pub fn ccd_options(&self, scene: &Scene) -> CcdOptions {
        CcdOptions::default()
            .with_distance_threshold(
                self.distance_threshold
                    .unwrap_or_else(|| scene.distance_threshold()),
            )
            .with_max_ca_iterations_per_pair(self.max_iterations)
            .with_enclosure(self.enclosure())
            .with_temporal_culling(self.temporal_culling)
            .with_projected_motion_bound(self.projected_motion_bound)
            .with_time_pieces(self.time_pieces)
            .with_self_collision(scene.self_collision())
            .with_skip_adjacent(scene.skip_adjacent())
            .with_early_out(self.early_out)
    }

    /// The elementary stage's options this pipeline uses on `scene`.
    #[must_use]
    pub fn elementary_options(&self, scene: &Scene) -> ElementaryOptions {
        ElementaryOptions::default()
            .with_distance_threshold(
                self.distance_threshold
                    .unwrap_or_else(|| scene.distance_threshold()),
            )
            .with_time_tolerance(self.time_tolerance)
            .with_hierarchy_culling(self.hierarchy_culling)
            .with_enclosure(self.enclosure())
            .with_self_collision(scene.self_collision())
            .with_skip_adjacent(scene.skip_adjacent())
    }

    /// Prepares `scene` for many queries on one thread: the motion-bound
    /// tables and the hierarchies are built once.
    ///
    /// # Errors
    /// [`Error::Ccd`] or [`Error::Elementary`] when the scene's geometry
    /// cannot be prepared.
    pub fn prepare<'s>(&self, scene: &'s Scene) -> Result<Prepared<'s>, Error> {
        let exact = match self.exact {
            ExactStage::ConservativeAdvancement => Exact::Advancement(
                Box::new(CcdScene::new(
                    scene.body(),
                    scene.obstacles(),
                    scene.disabled_pairs(),
                    &self.ccd_options(scene),
                )?),
                CcdWorkspace::new(),
            ),
            ExactStage::Elementary => Exact::Elementary(
                Box::new(ElementaryScene::new(
                    scene.body(),
                    scene.obstacles(),
                    scene.disabled_pairs(),
                    &self.elementary_options(scene),
                )?),
                ElementaryWorkspace::new(),
                Stage2::new(
                    scene,
                    self.swept_volume_culling,
                    &SweptOptions::default(),
                    &CullideOptions::default().with_resolution(self.cullide_resolution),
                )?
                .map(Box::new),
            ),
        };
        Ok(Prepared { scene, exact })
    }

    /// The first contact while the scene's bodies move from `q0` to `q1`.
    ///
    /// # Errors
    /// [`Error::Configuration`] (`q0` or `q1`) for a wrong length or a
    /// non-finite value; [`Error::Ccd`] as the exact stage.
    pub fn first_contact(&self, scene: &Scene, q0: &[f64], q1: &[f64]) -> Result<CcdReport, Error> {
        scene.check_configuration("q0", q0)?;
        scene.check_configuration("q1", q1)?;
        self.prepare(scene)?.first_contact(q0, q1)
    }

    /// [`Pipeline::first_contact`] for every motion, on the pipeline's
    /// threads. Each answer (status, contact, time, counts) is the one a
    /// single query gives, whatever the number of threads; only the
    /// measured times differ.
    ///
    /// # Errors
    /// The outer error: the scene cannot be prepared
    /// ([`Pipeline::prepare`]). Per motion, as [`Pipeline::first_contact`]
    /// with the configurations named `motions[i].q0` / `motions[i].q1`.
    pub fn first_contact_batch(
        &self,
        scene: &Scene,
        motions: &[Motion],
    ) -> Result<Vec<Result<CcdReport, Error>>, Error> {
        // Fails here, once, for a scene that cannot be prepared.
        drop(self.prepare(scene)?);
        let run = || {
            motions
                .par_iter()
                .enumerate()
                .map_init(
                    || self.prepare(scene).ok(),
                    |prepared, (i, (q0, q1))| {
                        scene.check_configuration(&format!("motions[{i}].q0"), q0)?;
                        scene.check_configuration(&format!("motions[{i}].q1"), q1)?;
                        match prepared {
                            Some(p) => p.first_contact(q0, q1),
                            // Prepared once above, so this is not reached;
                            // answering through a fresh preparation keeps
                            // it an error, not a panic, if it ever is.
                            None => self.prepare(scene)?.first_contact(q0, q1),
                        }
                    },
                )
                .collect()
        };
        Ok(match &self.pool {
            Some(pool) => pool.install(run),
            None => run(),
        })
    }

    /// The discrete test at one configuration: whether any tested pair
    /// intersects (touching counts; a closed mesh holding part of the
    /// other counts too, see [`CheckReport::colliding`]), and the smallest
    /// distance with its pair and witness points.
    ///
    /// # Errors
    /// [`Error::Configuration`] (`config`); [`Error::Geometry`] for poses
    /// the queries reject.
    pub fn check(&self, scene: &Scene, q: &[f64]) -> Result<CheckReport, Error> {
        check(scene, q, true)
    }

    /// Whether any tested pair intersects at `q` (touching counts, and a
    /// closed mesh holding part of the other, as [`Pipeline::check`]); stops
    /// at the first intersecting pair and skips pairs whose world boxes are
    /// apart. Cheaper than [`Pipeline::check`].
    ///
    /// # Errors
    /// As [`Pipeline::check`].
    pub fn collides(&self, scene: &Scene, q: &[f64]) -> Result<bool, Error> {
        Ok(check(scene, q, false)?.colliding)
    }

    /// Fixed-resolution sampling of the straight segment `q0 → q1`, the
    /// check most planners run today: [`Pipeline::collides`] at
    /// `n + 1` evenly spaced configurations (both ends included), `n` the
    /// largest joint change divided by `resolution`, rounded up (at least
    /// 1); the parameter `s ∈ [0, 1]` of the first colliding sample, or
    /// `None`. It certifies nothing between the samples
    /// ([`Pipeline::check_path`] does).
    ///
    /// # Errors
    /// [`Error::Configuration`] (`resolution`) unless `resolution` is
    /// positive and finite, (`config`) for configurations of the wrong
    /// length or not finite; as [`Pipeline::check`] otherwise.
    pub fn sample_segment(
        &self,
        scene: &Scene,
        q0: &[f64],
        q1: &[f64],
        resolution: f64,
    ) -> Result<Option<f64>, Error> {
        if !(resolution.is_finite() && resolution > 0.0) {
            return Err(Error::Configuration {
                which: "resolution".to_owned(),
                message: format!("must be positive and finite, got {resolution}"),
            });
        }
        if q0.len() != q1.len() || q0.iter().chain(q1).any(|v| !v.is_finite()) {
            return Err(Error::Configuration {
                which: "config".to_owned(),
                message: format!(
                    "the segment's ends must be finite and of one length, got {} and {} values",
                    q0.len(),
                    q1.len()
                ),
            });
        }
        let span = q0
            .iter()
            .zip(q1)
            .map(|(a, b)| (b - a).abs())
            .fold(0.0, f64::max);
        let steps = ((span / resolution).ceil() as usize).max(1);
        let mut q = vec![0.0; q0.len()];
        for k in 0..=steps {
            let s = k as f64 / steps as f64;
            for (v, (a, b)) in q.iter_mut().zip(q0.iter().zip(q1)) {
                *v = a + s * (b - a);
            }
            if self.collides(scene, &q)? {
                return Ok(Some(s));
            }
        }
        Ok(None)
    }

    /// The path clearance `ε` ([`PipelineBuilder::path_clearance`]).
    #[must_use]
    pub const fn path_clearance(&self) -> f64 {
        self.path_clearance
    }

    /// Whether path checks run the REFINED variant
    /// ([`PipelineBuilder::refined_bisection`]).
    #[must_use]
    pub const fn refined_bisection(&self) -> bool {
        self.refined_bisection
    }

    /// The budget of queue pops per path query
    /// ([`PipelineBuilder::max_queue_pops`]).
    #[must_use]
    pub const fn max_queue_pops(&self) -> u64 {
        self.max_queue_pops
    }

    /// The adaptive-bisection options this pipeline uses on `scene`: its
    /// clearance, budget, collision location and variant, and the scene's pair
    /// rules (self-collision, adjacent links, rigid groups never), the
    /// ones [`Pipeline::first_contact`] and [`Pipeline::check`] follow.
    #[must_use]
    pub fn path_options(&self, scene: &Scene) -> CheckOptions {
        let mut options = CheckOptions::default()
            .with_clearance(self.path_clearance)
            .with_max_queue_pops(self.max_queue_pops)
            .with_self_collision(scene.self_collision())
            .with_skip_adjacent(scene.skip_adjacent())
            .with_locate_first_collision(self.locate_path_collision)
            .with_earliest_collision(self.earliest_path_collision)
            .with_refined(self.refined_bisection);
        // Links of one rigid group never move relative to each other: the
        // scene never tests them, whatever `skip_adjacent` says.
        options.skip_rigidly_attached = true;
        options
    }

    /// Prepares `scene` for many path queries on one thread: the pair list
    /// and the curve-length bounds are built once, and segment work is
    /// cached between queries (see [`PreparedPaths`]).
    ///
    /// # Errors
    /// [`Error::Path`] when the scene cannot be prepared (an obstacle that
    /// moves over time, a link mesh with a non-finite vertex).
    pub fn prepare_paths<'s>(&self, scene: &'s Scene) -> Result<PreparedPaths<'s>, Error> {
        let checker = PathChecker::new(
            scene.body(),
            scene.obstacles(),
            scene.disabled_pairs(),
            &self.path_options(scene),
        )
        .map_err(|e| path_error("", e))?;
        Ok(PreparedPaths { scene, checker })
    }

    /// Whether the path through `waypoints` (segment `k` joint-space
    /// straight from waypoint `k` to `k + 1`) is collision-free, by the
    /// adaptive bisection of M2, on the pairs [`Pipeline::first_contact`]
    /// tests. [`PathStatus::BudgetExhausted`](crate::PathStatus::BudgetExhausted) means "may collide after the
    /// certified prefix"; see [`PathReport`] and the [module docs](self).
    ///
    /// # Errors
    /// [`Error::Configuration`] naming the waypoints (`waypoints`: fewer
    /// than two) or the waypoint (`waypoints[2]`: a wrong length, a
    /// non-finite value, a zero quaternion); [`Error::Path`] as
    /// [`Pipeline::prepare_paths`], or for poses the queries reject.
    pub fn check_path<Q: AsRef<[f64]>>(
        &self,
        scene: &Scene,
        waypoints: &[Q],
    ) -> Result<PathReport, Error> {
        check_waypoints(scene, "", waypoints)?;
        self.prepare_paths(scene)?.check_path(waypoints)
    }

    /// [`Pipeline::check_path`] for every path, on the pipeline's threads.
    /// Each answer (status, prefix, collision, counts) is the one a single
    /// query gives, whatever the number of threads: every path starts
    /// with an empty segment cache.
    ///
    /// # Errors
    /// The outer error: the scene cannot be prepared
    /// ([`Pipeline::prepare_paths`]). Per path, as [`Pipeline::check_path`]
    /// with the waypoints named `paths[i].waypoints[k]`.
    pub fn check_path_batch<P, Q>(
        &self,
        scene: &Scene,
        paths: &[P],
    ) -> Result<Vec<Result<PathReport, Error>>, Error>
    where
        P: AsRef<[Q]> + Sync,
        Q: AsRef<[f64]> + Sync,
    {
        // Fails here, once, for a scene that cannot be prepared.
        drop(self.prepare_paths(scene)?);
        let run = || {
            paths
                .par_iter()
                .enumerate()
                .map_init(
                    || self.prepare_paths(scene).ok(),
                    |prepared, (i, path)| {
                        let prefix = format!("paths[{i}].");
                        let waypoints = path.as_ref();
                        check_waypoints(scene, &prefix, waypoints)?;
                        let answer = match prepared {
                            Some(p) => {
                                // A cache filled by other paths would make
                                // the answer depend on the worker's history
                                // (a segment left undecided by the budget
                                // resumes), so each path starts afresh.
                                p.checker.clear_cache();
                                p.checker.check_path(waypoints)
                            }
                            // Prepared once above, so this is not reached;
                            // answering through a fresh preparation keeps
                            // it an error, not a panic, if it ever is.
                            None => self.prepare_paths(scene)?.checker.check_path(waypoints),
                        };
                        answer.map_err(|e| path_error(&prefix, e))
                    },
                )
                .collect()
        };
        Ok(match &self.pool {
            Some(pool) => pool.install(run),
            None => run(),
        })
    }

    /// The penetration-depth options this pipeline uses on `scene`: the
    /// scene's (or the pipeline's) distance threshold and pair rules, the
    /// pipeline's conservative-advancement budget, and
    /// [`PdOptions`]'s defaults otherwise.
    #[must_use]
    pub fn pd_options(&self, scene: &Scene) -> PdOptions {
        PdOptions {
            max_ca_iterations_per_pair: self.max_iterations,
            ..PdOptions::default()
        }
        .with_distance_threshold(
            self.distance_threshold
                .unwrap_or_else(|| scene.distance_threshold()),
        )
        .with_self_collision(scene.self_collision())
        .with_skip_adjacent(scene.skip_adjacent())
    }

    /// Prepares `scene` for many penetration-depth queries on one thread
    /// (the object norm, the discrete pairs and the projections'
    /// conservative advancement are built once; the solver remembers its
    /// last answer as M5's motion coherence).
    ///
    /// # Errors
    /// [`Error::PenetrationDepth`] for a model the object norm does not
    /// cover (M3's vehicle and uncertainty joints, no volume) or geometry
    /// that cannot be prepared.
    pub fn prepare_penetration_depth<'s>(&self, scene: &'s Scene) -> Result<PdSolver<'s>, Error> {
        Ok(PdSolver::new(
            scene.body(),
            scene.obstacles(),
            scene.disabled_pairs(),
            &self.pd_options(scene),
        )?)
    }

    /// The generalized penetration depth at `q_in` (M5): the least motion,
    /// under the object norm, that takes the scene's bodies from the
    /// in-collision `q_in` to a collision-free configuration in contact,
    /// found by iterative constrained optimisation on the contact space
    /// (locally optimal; see [`armature_penetration_depth::solver`]). A
    /// collision-free `q_in` answers 0 with `q_in` itself.
    ///
    /// # Errors
    /// [`Error::Configuration`] (`config`) for a wrong length or a
    /// non-finite value; [`Error::PenetrationDepth`] as
    /// [`Pipeline::prepare_penetration_depth`], or for poses the queries
    /// reject.
    pub fn penetration_depth(&self, scene: &Scene, q_in: &[f64]) -> Result<PdReport, Error> {
        scene.check_configuration("config", q_in)?;
        Ok(self
            .prepare_penetration_depth(scene)?
            .penetration_depth(q_in)?)
    }
}

/// A scene prepared by [`Pipeline::prepare`] for queries on one thread.
#[derive(Debug)]
pub struct Prepared<'s> {
    scene: &'s Scene,
    exact: Exact<'s>,
}

/// The prepared exact stage and its buffers.
#[derive(Debug)]
enum Exact<'s> {
    Advancement(Box<CcdScene<'s>>, CcdWorkspace),
    Elementary(
        Box<ElementaryScene<'s>>,
        ElementaryWorkspace,
        Option<Box<Stage2<'s>>>,
    ),
}

/// One elementary query, with stage 2 when prepared.
fn elementary_query(
    scene: &mut ElementaryScene<'_>,
    ws: &mut ElementaryWorkspace,
    stage2: &mut Option<Box<Stage2<'_>>>,
    q0: &[f64],
    q1: &[f64],
) -> Result<ElementaryReport, Error> {
    let culling = stage2.as_deref_mut().map(|s| s as &mut dyn PairCulling);
    Ok(scene.first_contact_culled(q0, q1, ws, culling)?)
}

/// The elementary stage's answer in the facade's report type (see
/// [`ExactStage::Elementary`] for the counts).
fn from_elementary(r: &ElementaryReport) -> CcdReport {
    let contact = r.contact.map(|c: ElementaryContact| Contact {
        time: c.time,
        link: c.link,
        other: match c.other {
            armature_elementary_ccd::Other::Link(j) => Other::Link(j),
            armature_elementary_ccd::Other::Obstacle(o) => Other::Obstacle(o),
        },
        triangle_a: c.triangle_a,
        triangle_b: c.triangle_b,
        distance: c.distance,
        point: c.point,
        second_point: c.second_point,
        normal: c.normal,
        features: c.features,
    });
    let s = r.stats;
    CcdReport {
        status: match r.status {
            ElementaryStatus::Free => CcdStatus::Free,
            ElementaryStatus::Collides => CcdStatus::Collides,
            ElementaryStatus::CollidingAtStart => CcdStatus::CollidingAtStart,
            ElementaryStatus::BudgetExhausted => CcdStatus::BudgetExhausted,
        },
        contact,
        toc_lower_bound: r.toc_lower_bound,
        clearance: r.clearance,
        stats: CcdStats {
            pairs_total: s.pairs_total,
            pairs_after_spatial: s.pairs_after_culling,
            pairs_after_temporal: s.pairs_after_culling,
            ca_iterations: s.intervals,
            distance_calls: s.equations,
            spatial_time: s.hierarchy_time,
            culling_time: s.culling_time,
            temporal_time: s.traversal_time,
            advance_time: s.solver_time,
        },
    }
}

impl Prepared<'_> {
    /// The scene.
    #[must_use]
    pub const fn scene(&self) -> &Scene {
        self.scene
    }

    /// As [`Pipeline::first_contact`], reusing the prepared hierarchies.
    ///
    /// # Errors
    /// As [`Pipeline::first_contact`].
    pub fn first_contact(&mut self, q0: &[f64], q1: &[f64]) -> Result<CcdReport, Error> {
        self.scene.check_configuration("q0", q0)?;
        self.scene.check_configuration("q1", q1)?;
        match &mut self.exact {
            Exact::Advancement(ccd, ws) => Ok(ccd.first_contact(q0, q1, ws)?),
            Exact::Elementary(scene, ws, stage2) => Ok(from_elementary(&elementary_query(
                scene, ws, stage2, q0, q1,
            )?)),
        }
    }

    /// Which computation decides stage 2 (swept-volume culling): `GPU:`
    /// and the adapter, or the CPU reference (with the reason when the GPU
    /// was asked for and no adapter opened); `None` without stage 2.
    #[must_use]
    pub fn swept_volume_backend(&self) -> Option<&str> {
        match &self.exact {
            Exact::Elementary(_, _, Some(s)) => Some(s.description()),
            _ => None,
        }
    }

    /// The elementary stage's own report, with its per-stage counts, when
    /// the pipeline's exact stage is [`ExactStage::Elementary`] (`None`
    /// otherwise).
    ///
    /// # Errors
    /// As [`Pipeline::first_contact`].
    pub fn first_contact_elementary(
        &mut self,
        q0: &[f64],
        q1: &[f64],
    ) -> Result<Option<ElementaryReport>, Error> {
        self.scene.check_configuration("q0", q0)?;
        self.scene.check_configuration("q1", q1)?;
        match &mut self.exact {
            Exact::Advancement(..) => Ok(None),
            Exact::Elementary(scene, ws, stage2) => {
                Ok(Some(elementary_query(scene, ws, stage2, q0, q1)?))
            }
        }
    }
}

/// A scene prepared by [`Pipeline::prepare_paths`] for path queries on one
/// thread. Segment work is cached between its queries, keyed by the exact
/// end points: a path that repeats a segment of an earlier one reuses the
/// verdict, and a segment the budget left undecided resumes where it
/// stopped, so answers may depend on earlier queries (only ever from
/// [`PathStatus::BudgetExhausted`](crate::PathStatus::BudgetExhausted) to a decided answer); use
/// [`PreparedPaths::clear_cache`] for answers independent of them.
#[derive(Debug)]
pub struct PreparedPaths<'s> {
    scene: &'s Scene,
    checker: PathChecker<'s>,
}

impl PreparedPaths<'_> {
    /// The scene.
    #[must_use]
    pub const fn scene(&self) -> &Scene {
        self.scene
    }

    /// Empties the segment cache.
    pub fn clear_cache(&mut self) {
        self.checker.clear_cache();
    }

    /// As [`Pipeline::check_path`], reusing the prepared scene and the
    /// segment cache.
    ///
    /// # Errors
    /// As [`Pipeline::check_path`].
    pub fn check_path<Q: AsRef<[f64]>>(&mut self, waypoints: &[Q]) -> Result<PathReport, Error> {
        check_waypoints(self.scene, "", waypoints)?;
        self.checker
            .check_path(waypoints)
            .map_err(|e| path_error("", e))
    }
}

/// Checks a path's waypoints against the scene, naming the path's
/// waypoints `{prefix}waypoints` and each `{prefix}waypoints[k]`.
fn check_waypoints<Q: AsRef<[f64]>>(
    scene: &Scene,
    prefix: &str,
    waypoints: &[Q],
) -> Result<(), Error> {
    if waypoints.len() < 2 {
        return Err(too_few_waypoints(prefix, waypoints.len()));
    }
    for (k, q) in waypoints.iter().enumerate() {
        scene.check_configuration_named(|| format!("{prefix}waypoints[{k}]"), q.as_ref())?;
    }
    Ok(())
}

fn too_few_waypoints(prefix: &str, got: usize) -> Error {
    Error::Configuration {
        which: format!("{prefix}waypoints"),
        message: format!("a path needs at least 2 waypoints, got {got}"),
    }
}

/// The facade's error for a path check's, naming the waypoint at fault.
fn path_error(prefix: &str, e: BisectionError) -> Error {
    match e {
        BisectionError::TooFewWaypoints { got } => too_few_waypoints(prefix, got),
        BisectionError::Waypoint { index, source } => Error::Configuration {
            which: format!("{prefix}waypoints[{index}]"),
            message: source.to_string(),
        },
        e => Error::Path {
            context: if prefix.is_empty() {
                "path check".to_owned()
            } else {
                format!("path check of `{}`", prefix.trim_end_matches('.'))
            },
            source: Box::new(e),
        },
    }
}

/// The closest or intersecting pair of a [`CheckReport`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairWitness {
    /// The link.
    pub link: usize,
    /// The other member: an obstacle or a link.
    pub other: Other,
    /// Triangle of the link's mesh.
    pub triangle_a: u32,
    /// Triangle of the other's mesh.
    pub triangle_b: u32,
    /// Their distance (0 when they intersect, or when a closed mesh holds
    /// the other).
    pub distance: f64,
    /// Closest point on the link (world).
    pub point_a: DVec3,
    /// Closest point on the other (world).
    pub point_b: DVec3,
}

/// The answer of [`Pipeline::check`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CheckReport {
    /// Whether some tested pair intersects: its triangles meet (touching
    /// counts), or a closed mesh of the pair
    /// ([`LinkGeometry::is_closed`]) bounds a solid holding part of the
    /// other (a link inside a closed obstacle, an obstacle or a link inside
    /// a closed link). Open meshes bound nothing.
    pub colliding: bool,
    /// The first intersecting pair found, if any. For a pair where a
    /// closed mesh holds the other, the witness points are the inner point
    /// and the nearest point of the enclosing surface.
    pub collision: Option<PairWitness>,
    /// Smallest distance over the tested pairs (`+∞` when there is no
    /// pair; not computed by [`Pipeline::collides`]).
    pub distance: f64,
    /// The pair realising [`CheckReport::distance`].
    pub closest: Option<PairWitness>,
    /// Pairs tested (after the scene's pair rules, [`Scene::link_pair_allowed`],
    /// and box culling).
    pub pairs_tested: usize,
}

/// One side of a pair at a configuration.
struct Posed<'a> {
    geometry: &'a LinkGeometry,
    pose: DAffine3,
    aabb: Aabb,
}

fn posed(g: &LinkGeometry, pose: DAffine3) -> Posed<'_> {
    // The box only culls; the mesh queries decide.
    Posed {
        geometry: g,
        pose,
        aabb: g.obb.world_box(&pose),
    }
}

/// The discrete test: every allowed pair, intersection first; distances
/// when `with_distance`, else stop at the first intersection.
fn check(scene: &Scene, q: &[f64], with_distance: bool) -> Result<CheckReport, Error> {
    scene.check_configuration("config", q)?;
    let body = scene.body();
    let tree = body.tree();
    let poses = tree
        .poses(q)
        .map_err(|e| Error::kinematics("forward kinematics", e))?;
    let links: Vec<Option<Posed<'_>>> = body
        .links()
        .iter()
        .zip(&poses)
        .map(|(g, p)| g.as_ref().map(|g| posed(g, *p)))
        .collect();
    let obstacles: Vec<Posed<'_>> = scene
        .obstacles()
        .iter()
        .map(|o| posed(o.geometry(), o.pose_at(0.0)))
        .collect();
    let mut pairs: Vec<(usize, Other)> = Vec::new();
    for i in 0..links.len() {
        if links[i].is_none() {
            continue;
        }
        for o in 0..obstacles.len() {
            if scene.obstacle_pair_allowed(i, o) {
                pairs.push((i, Other::Obstacle(o)));
            }
        }
        for j in i + 1..links.len() {
            if scene.link_pair_allowed(i, j) {
                pairs.push((i, Other::Link(j)));
            }
        }
    }
    let mut report = CheckReport {
        colliding: false,
        collision: None,
        distance: f64::INFINITY,
        closest: None,
        pairs_tested: 0,
    };
    let mut cws = CollideWorkspace::default();
    let mut dws = DistanceWorkspace::default();
    for (i, other) in pairs {
        let Some(a) = links[i].as_ref() else { continue };
        let b = match other {
            Other::Obstacle(o) => &obstacles[o],
            Other::Link(j) => match links[j].as_ref() {
                Some(b) => b,
                None => continue,
            },
        };
        let context = || {
            format!(
                "pair {} / {}",
                scene.link_name(i).unwrap_or("?"),
                scene.other_name(other).unwrap_or("?")
            )
        };
        let apart = !a.aabb.overlaps(&b.aabb);
        if apart && (!with_distance || a.aabb.distance(&b.aabb) >= report.distance) {
            continue;
        }
        report.pairs_tested += 1;
        if !apart && report.collision.is_none() {
            let ma = MeshObject::new(&a.geometry.mesh, &a.geometry.obb_tree, a.pose)
                .map_err(|e| Error::geometry(context(), e))?;
            let mb = MeshObject::new(&b.geometry.mesh, &b.geometry.obb_tree, b.pose)
                .map_err(|e| Error::geometry(context(), e))?;
            let c = collide(&ma, &mb, CollideMode::First, &mut cws);
            let witness = match (c.colliding, c.first) {
                (true, Some([ta, tb])) => Some(PairWitness {
                    link: i,
                    other,
                    triangle_a: ta,
                    triangle_b: tb,
                    distance: 0.0,
                    point_a: a
                        .pose
                        .transform_point3(triangle_centroid(&a.geometry.mesh, ta)),
                    point_b: b
                        .pose
                        .transform_point3(triangle_centroid(&b.geometry.mesh, tb)),
                }),
                // No triangles meet: the pair still overlaps when a closed
                // mesh holds part of the other.
                (false, _) => containment(&ma, &a.geometry.topology, &mb, &b.geometry.topology)
                    .map_err(|e| Error::geometry(context(), e))?
                    .map(|w| PairWitness {
                        link: i,
                        other,
                        triangle_a: w.triangle_a,
                        triangle_b: w.triangle_b,
                        distance: 0.0,
                        point_a: w.point_a,
                        point_b: w.point_b,
                    }),
                (true, None) => None,
            };
            if let Some(w) = witness {
                report.colliding = true;
                report.collision = Some(w);
                if !with_distance {
                    return Ok(report);
                }
            }
        }
        if with_distance && report.distance > 0.0 {
            let ma = MeshObject::new(&a.geometry.mesh, &a.geometry.rss_tree, a.pose)
                .map_err(|e| Error::geometry(context(), e))?;
            let mb = MeshObject::new(&b.geometry.mesh, &b.geometry.rss_tree, b.pose)
                .map_err(|e| Error::geometry(context(), e))?;
            let d = distance(&ma, &mb, &mut dws, None);
            if d.distance < report.distance {
                report.distance = d.distance;
                report.closest = Some(PairWitness {
                    link: i,
                    other,
                    triangle_a: d.triangle_a,
                    triangle_b: d.triangle_b,
                    distance: d.distance,
                    point_a: d.point_a,
                    point_b: d.point_b,
                });
            }
        }
    }
    if report.colliding {
        report.distance = 0.0;
    }
    Ok(report)
}

/// The centroid of triangle `t` (mesh frame); the origin if out of range.
fn triangle_centroid(mesh: &armature_bvh_geometry::TriMesh, t: u32) -> DVec3 {
    mesh.get_triangle(t as usize)
        .map_or(DVec3::ZERO, |[p, q, r]| (p + q + r) / 3.0)
}
