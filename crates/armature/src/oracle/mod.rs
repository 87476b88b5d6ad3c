//! # The brute-force oracle (DESIGN.md §4)
//!
//! **What.** An [`Oracle`] decides, independently of the pipeline's
//! stages, whether a motion `q0 → q1` of a [`Scene`] collides: it samples
//! the same in-between motion the pipeline uses
//! ([`InBetweenMotion`], time normalised to `[0, 1]`) on a grid fine enough
//! that nothing can slip between two samples by more than a resolution
//! `δ`, and runs an exact discrete test and a distance at every sample.
//! [`Oracle::verdict`] answers with a [`Verdict`]; [`Oracle::judge`]
//! compares a pipeline's [`CcdReport`] with it and names the defect, if
//! any ([`Judgement`]). Tests and the benchmark suite check every answer
//! this way.
//!
//! **Why.** A method that "never misses" can only be tested against
//! something that does not share its code path. The oracle uses no swept
//! volume, no enclosure and no conservative advancement: poses at sample
//! times, the static mesh queries of `armature-bvh-geometry` (OBB trees
//! for intersection, RSS trees for distance) and, with
//! [`OracleOptions::brute_force`], every triangle pair without any
//! hierarchy.
//!
//! **When.** Build one oracle per scene ([`Oracle::new`] precomputes the
//! motion-bound tables and the tested pairs) and ask it about as many
//! motions as needed, from as many threads as needed (`Send + Sync`).
//!
//! # Pairs
//!
//! The pairs the pipeline tests, decided by the same rules but by this
//! module's own code: every link with geometry against every obstacle
//! unless the pair is disabled; with the scene's self-collision, every two
//! links with geometry that are neither adjacent (parent and child) nor
//! rigidly attached (joined by a chain of fixed joints, so they never move
//! relative to each other) nor disabled.
//!
//! # The sample grid
//!
//! Let `μ` bound the speed of every point of every piece in a pair over the
//! whole motion: the largest [`MotionBounds::mu`] over the links at
//! `t = 0` (it bounds the speed over `[0, 1]`) and, for moving obstacles,
//! `|v| + |ω| · max |p|`. Two pieces then approach each other at most at
//! `2μ`, and the grid `t_k = k / n`, `k = 0..=n`, uses
//!
//! `n = max(1, ⌈2μ / δ⌉)`, so the spacing `h = 1 / n` satisfies `2μ · h ≤ δ`. **(O1)**
//!
//! Every time of `[0, 1]` lies within `h / 2` of a sample, over which the
//! relative displacement of any two pieces is at most `2μ · h / 2 ≤ δ / 2`;
//! the distance of two sets changes no faster than their relative
//! displacement, so the distance at any time is at least the distance at
//! the nearest sample minus `δ / 2`. Hence:
//!
//! - a sample where some pair intersects ⇒ [`Verdict::Collides`], with the
//!   first time of contact bracketed by bisection between the last free
//!   and the first colliding sample;
//! - every sampled distance `> δ` ⇒ [`Verdict::Free`]: the distance stays
//!   above `δ / 2` over the whole motion;
//! - otherwise [`Verdict::Graze`]: the motion comes within `δ` of contact
//!   but no sample touches, and either answer is accepted.
//!
//! # Skipping far samples
//!
//! Each pair `p` has its own closing-speed bound `μ_p` (the sum of its two
//! pieces' speed bounds; [`MotionBounds::mu_relative`] for two links), at
//! most `2μ`, so `μ_p · h ≤ δ`. If the pair's distance at `t_k` is `D`,
//! its distance at `t_{k+i}` is at least `D − μ_p · i · h`: it cannot
//! collide within `|Δt| < D / μ_p` (in particular within `D / (2μ)`), and
//! its samples up to `k + j − 1`, `j = ⌈(D − δ) / (μ_p h)⌉`, have distance
//! `> δ`. With [`OracleOptions::skipping`] (the default) those samples are
//! not evaluated for that pair. **(O2)**
//!
//! No sample at distance `≤ δ` is ever skipped, so skipping changes
//! neither the first colliding sample, nor the bracket, nor the Free /
//! Graze decision, nor the smallest distance of a Graze; only a
//! [`Verdict::Free`]'s `min_distance` (the smallest distance *evaluated*)
//! may be larger than the full grid's. Far from contact a pair is
//! evaluated about `μ_p / D` times instead of `n` times, which makes the
//! oracle cheap on free motions. Tests run both ways and compare.
//!
//! # Budget
//!
//! At most [`OracleOptions::max_samples`] sample times are visited; past
//! that the answer is [`Verdict::Inconclusive`], never a guess.
//!
//! ```
//! use armature::oracle::{Judgement, Oracle, OracleOptions, Verdict};
//! use armature::{Pipeline, Scene};
//!
//! let file = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/single.ron");
//! let scene = Scene::from_file(file)?;
//! let oracle = Oracle::new(&scene, OracleOptions::default())?;
//! // Folding the arm drives its wrist into its base.
//! let (q0, q1) = ([0.0, 0.0, 0.0], [1.6, 2.0, 0.8]);
//! let Verdict::Collides { bracket: (free, colliding), .. } = oracle.verdict(&q0, &q1)? else {
//!     panic!("the motion collides");
//! };
//! assert!(free < colliding && colliding - free < 1e-9);
//! let report = Pipeline::builder().build()?.first_contact(&scene, &q0, &q1)?;
//! assert!(report.toc_lower_bound <= colliding);
//! assert_eq!(oracle.judge(&report, &q0, &q1)?, Judgement::Agrees);
//! # Ok::<(), armature::Error>(())
//! ```

// `!(x <= y)` is the idiom for "not at most, or NaN": a NaN time, distance
// or bound must land on the cautious side, which `partial_cmp` would only
// obscure.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use armature_bvh_geometry::query::{
    CollideMode, CollideWorkspace, DistanceCache, DistanceWorkspace, MeshObject, collide, distance,
    distance_triangle_triangle, intersect_triangle_triangle,
};
use armature_bvh_geometry::{GeometryError, LinkGeometry, ObstacleMotion};
use armature_conservative_advance::{CcdReport, CcdStatus, Other};
use armature_kinematics::{InBetweenMotion, JointType, MotionBounds};
use glam::{DAffine3, DVec3};

use crate::{Error, Scene};

/// Default resolution [`OracleOptions::delta`], in model units.
pub const DEFAULT_DELTA: f64 = 1e-3;

/// Default [`OracleOptions::bisection_steps`]: halves the bracket down to
/// `h / 2⁵⁰`, below the rounding of the times for any practical grid.
pub const DEFAULT_BISECTION_STEPS: usize = 50;

/// Default [`OracleOptions::max_samples`].
pub const DEFAULT_MAX_SAMPLES: usize = 1_000_000;

/// Default [`OracleOptions::contact_tolerance`], in model units.
pub const DEFAULT_CONTACT_TOLERANCE: f64 = 1e-9;

/// The largest grid the oracle samples: sample times `k / n` are exact
/// ratios of integers below 2⁵³.
const MAX_GRID: f64 = 4_503_599_627_370_496.0; // 2^52

/// Relative margin on speed bounds computed here (moving obstacles, sums
/// of a link's and an obstacle's), for the rounding of a few products and
/// sums.
const SPEED_PAD: f64 = 1e-12;

/// Margin taken off a skip: the distance and the bound carry rounding of
/// about `1e-15` relative, far below this.
const SKIP_PAD: f64 = 1e-9;

/// How the oracle samples and what it accepts. `Default` gives the
/// documented defaults; the `with_*` builders change one field each;
/// [`Oracle::new`] validates them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OracleOptions {
    /// Resolution, in model units: between two consecutive samples no
    /// point of any piece moves more than `δ` relative to any other piece
    /// (see the [module docs](self), (O1)). Finite and positive; default
    /// [`DEFAULT_DELTA`].
    pub delta: f64,
    /// Test every triangle pair of every pair of pieces, without any
    /// hierarchy (much slower; for cross-checking the hierarchy queries).
    /// Default off.
    pub brute_force: bool,
    /// Skip samples a pair provably cannot come within `δ` at ((O2) in the
    /// [module docs](self)). Same verdicts, far fewer tests. Default on.
    pub skipping: bool,
    /// Bisection steps refining a collision's bracket between the last
    /// free and the first colliding sample. Default
    /// [`DEFAULT_BISECTION_STEPS`]; 0 keeps the two samples.
    pub bisection_steps: usize,
    /// Sample times visited at most; past them the verdict is
    /// [`Verdict::Inconclusive`]. At least 1; default
    /// [`DEFAULT_MAX_SAMPLES`].
    pub max_samples: usize,
    /// The distance threshold a reported contact must respect in
    /// [`Oracle::judge`] (`None`: the scene's). Finite and positive.
    pub distance_threshold: Option<f64>,
    /// Allowance, in model units, for the rounding of a reported contact's
    /// distance in [`Oracle::judge`] ([`Judgement::FarContact`]). Finite
    /// and non-negative; default [`DEFAULT_CONTACT_TOLERANCE`].
    pub contact_tolerance: f64,
}

impl Default for OracleOptions {
    fn default() -> Self {
        Self {
            delta: DEFAULT_DELTA,
            brute_force: false,
            skipping: true,
            bisection_steps: DEFAULT_BISECTION_STEPS,
            max_samples: DEFAULT_MAX_SAMPLES,
            distance_threshold: None,
            contact_tolerance: DEFAULT_CONTACT_TOLERANCE,
        }
    }
}

impl OracleOptions {
    /// Sets [`OracleOptions::delta`].
    #[must_use]
    pub const fn with_delta(mut self, delta: f64) -> Self {
        self.delta = delta;
        self
    }

    /// Sets [`OracleOptions::brute_force`].
    #[must_use]
    pub const fn with_brute_force(mut self, on: bool) -> Self {
        self.brute_force = on;
        self
    }

    /// Sets [`OracleOptions::skipping`].
    #[must_use]
    pub const fn with_skipping(mut self, on: bool) -> Self {
        self.skipping = on;
        self
    }

    /// Sets [`OracleOptions::bisection_steps`].
    #[must_use]
    pub const fn with_bisection_steps(mut self, steps: usize) -> Self {
        self.bisection_steps = steps;
        self
    }

    /// Sets [`OracleOptions::max_samples`].
    #[must_use]
    pub const fn with_max_samples(mut self, n: usize) -> Self {
        self.max_samples = n;
        self
    }

    /// Sets [`OracleOptions::distance_threshold`].
    #[must_use]
    pub const fn with_distance_threshold(mut self, threshold: Option<f64>) -> Self {
        self.distance_threshold = threshold;
        self
    }

    /// Sets [`OracleOptions::contact_tolerance`].
    #[must_use]
    pub const fn with_contact_tolerance(mut self, tolerance: f64) -> Self {
        self.contact_tolerance = tolerance;
        self
    }

    /// Checks every field's range.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] naming the first field out of range.
    pub fn validate(&self) -> Result<(), Error> {
        if !(self.delta.is_finite() && self.delta > 0.0) {
            return Err(Error::InvalidOption {
                name: "delta",
                value: self.delta,
                why: "must be finite and positive",
            });
        }
        if self.max_samples == 0 {
            return Err(Error::InvalidOption {
                name: "max_samples",
                value: 0.0,
                why: "must be at least 1",
            });
        }
        if let Some(t) = self.distance_threshold
            && !(t.is_finite() && t > 0.0)
        {
            return Err(Error::InvalidOption {
                name: "distance_threshold",
                value: t,
                why: "must be finite and positive",
            });
        }
        if !(self.contact_tolerance.is_finite() && self.contact_tolerance >= 0.0) {
            return Err(Error::InvalidOption {
                name: "contact_tolerance",
                value: self.contact_tolerance,
                why: "must be finite and non-negative",
            });
        }
        Ok(())
    }
}

/// What the oracle found on a motion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Verdict {
    /// Some sample intersects: the motion collides.
    Collides {
        /// `(t_free, t_colliding)`: no tested pair intersects at `t_free`,
        /// some pair intersects at `t_colliding`, and
        /// `t_colliding − t_free` is at most one grid step (halved by each
        /// bisection step). The first time of contact is at most
        /// `t_colliding`. `(0, 0)` when the motion collides at `t = 0`.
        bracket: (f64, f64),
        /// A pair intersecting at `t_colliding`: the link and what it
        /// touches.
        pair: (usize, Other),
    },
    /// Every sampled distance is above `δ`: the distance stays above
    /// `δ / 2` over the whole motion.
    Free {
        /// The smallest distance evaluated (with skipping, samples known
        /// to be farther than `δ` are not evaluated).
        min_distance: f64,
    },
    /// No sample intersects but some sampled distance is at most `δ`:
    /// either answer is accepted.
    Graze {
        /// The smallest sampled distance (`≤ δ`).
        min_distance: f64,
    },
    /// The sample budget ran out before a decision.
    Inconclusive {
        /// The motion is collision-free at every sample up to this time
        /// (`0` when the grid itself is beyond the budget).
        reached: f64,
        /// Sample times visited.
        samples: usize,
    },
}

impl Verdict {
    /// Whether the oracle found a collision.
    #[must_use]
    pub const fn collides(&self) -> bool {
        matches!(self, Self::Collides { .. })
    }

    /// The time at which the oracle saw the meshes intersect (the bracket's
    /// upper end), if it did.
    #[must_use]
    pub const fn colliding_time(&self) -> Option<f64> {
        match self {
            Self::Collides { bracket, .. } => Some(bracket.1),
            _ => None,
        }
    }
}

/// Work done for one verdict.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OracleStats {
    /// Grid intervals `n` (samples at `k / n`, `k = 0..=n`).
    pub grid: u64,
    /// Sample times visited (some pair evaluated there).
    pub samples: usize,
    /// Pair tests at sample times.
    pub pair_tests: usize,
    /// Pair tests during bisection.
    pub bisection_tests: usize,
}

/// A pipeline answer compared with the oracle's verdict
/// ([`Oracle::judge`]). The defects are [`Judgement::Missed`],
/// [`Judgement::Late`], [`Judgement::FalseAlarm`] and
/// [`Judgement::FarContact`] ([`Judgement::is_defect`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Judgement {
    /// The answer is the oracle's: free on a free motion, or a collision
    /// (or [`CcdStatus::BudgetExhausted`]) no later than the oracle's
    /// colliding time; [`CcdStatus::BudgetExhausted`] on a free motion is
    /// accepted too (it only says "may collide").
    Agrees,
    /// The oracle's verdict is a graze (or the motion is free by less than
    /// the distance threshold allows to tell): either answer is accepted.
    Graze,
    /// The oracle could not decide within its budget.
    Inconclusive,
    /// The report says free, the oracle saw an intersection.
    Missed {
        /// The time the oracle saw the meshes intersect.
        oracle_toc: f64,
    },
    /// The reported lower bound on the time of contact is later than a
    /// time at which the oracle saw the meshes intersect.
    Late {
        /// The report's [`CcdReport::toc_lower_bound`].
        reported: f64,
        /// The time the oracle saw the meshes intersect.
        oracle_toc: f64,
    },
    /// The report says [`CcdStatus::Collides`] or
    /// [`CcdStatus::CollidingAtStart`] on a motion whose distance the
    /// oracle proves to stay above the distance threshold.
    FalseAlarm {
        /// The report's time of contact.
        reported: f64,
        /// The oracle's lower bound on the distance over the motion
        /// (`δ / 2`).
        clearance: f64,
    },
    /// The scene's distance at the reported contact time is larger than
    /// the threshold (plus the contact tolerance).
    FarContact {
        /// The reported contact time.
        time: f64,
        /// The scene's distance then (the smallest over the tested pairs).
        distance: f64,
        /// The largest distance accepted.
        allowed: f64,
    },
}

impl Judgement {
    /// Whether the pipeline's answer is wrong.
    #[must_use]
    pub const fn is_defect(&self) -> bool {
        matches!(
            self,
            Self::Missed { .. }
                | Self::Late { .. }
                | Self::FalseAlarm { .. }
                | Self::FarContact { .. }
        )
    }

    /// A short name (`agrees`, `graze`, `inconclusive`, `missed`, `late`,
    /// `false_alarm`, `far_contact`), for tables and counts.
    #[must_use]
    pub const fn name(&self) -> &'static str {
        match self {
            Self::Agrees => "agrees",
            Self::Graze => "graze",
            Self::Inconclusive => "inconclusive",
            Self::Missed { .. } => "missed",
            Self::Late { .. } => "late",
            Self::FalseAlarm { .. } => "false_alarm",
            Self::FarContact { .. } => "far_contact",
        }
    }
}

/// One tested pair.
#[derive(Clone, Copy, Debug)]
struct Pair {
    link: usize,
    other: Other,
}

/// The brute-force oracle of a scene (see the [module docs](self)).
/// `Send + Sync`; cheap to clone (the scene's geometry is shared).
#[derive(Clone, Debug)]
pub struct Oracle {
    scene: Scene,
    options: OracleOptions,
    bounds: MotionBounds,
    pairs: Vec<Pair>,
    /// Speed bound of every point of each obstacle over `[0, 1]`.
    obstacle_speed: Vec<f64>,
    /// Whether each link is in some pair (its speed sets the grid).
    link_tested: Vec<bool>,
    /// Whether each obstacle is in some pair.
    obstacle_tested: Vec<bool>,
    threshold: f64,
}

/// For each link, the first link of the chain of fixed joints it hangs
/// from: links with the same value never move relative to each other.
fn rigid_groups(scene: &Scene) -> Vec<usize> {
    let links = scene.body().tree().links();
    let mut group: Vec<usize> = Vec::with_capacity(links.len());
    for (i, l) in links.iter().enumerate() {
        // Tree order puts a parent before its children.
        let g = match (l.parent(), &l.joint().kind) {
            (Some(p), JointType::Fixed) => group.get(p).copied().unwrap_or(i),
            _ => i,
        };
        group.push(g);
    }
    group
}

/// Speed bound of every point of an obstacle: `|v| + |ω| · max |p|` for the
/// motion `p ↦ Rot(k, ωt) R₀ p + T₀ + v t`.
fn obstacle_speed(o: &armature_bvh_geometry::Obstacle) -> f64 {
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

impl Oracle {
    /// Prepares the oracle of `scene`: the motion-bound tables over the
    /// links' mesh vertices, the tested pairs and the obstacles' speeds.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] for options out of range
    /// ([`OracleOptions::validate`]); [`Error::Kinematics`] when the bound
    /// tables reject the links' vertices.
    pub fn new(scene: &Scene, options: OracleOptions) -> Result<Self, Error> {
        options.validate()?;
        let body = scene.body();
        let tree = body.tree();
        // A link without geometry is in no pair; one point keeps the
        // tables total.
        let origin = [DVec3::ZERO];
        let points: Vec<&[DVec3]> = body
            .links()
            .iter()
            .map(|g| g.as_ref().map_or(&origin[..], |g| g.mesh.vertices()))
            .collect();
        let bounds = MotionBounds::new(tree, &points)
            .map_err(|e| Error::kinematics("oracle motion bounds", e))?;
        let group = rigid_groups(scene);
        let disabled = scene.disabled_pairs();
        let has_geometry: Vec<bool> = body.links().iter().map(Option::is_some).collect();
        let mut pairs = Vec::new();
        for i in (0..tree.len()).filter(|&i| has_geometry[i]) {
            for o in 0..scene.obstacles().len() {
                if !disabled.link_obstacle_disabled(i, o) {
                    pairs.push(Pair {
                        link: i,
                        other: Other::Obstacle(o),
                    });
                }
            }
            if scene.self_collision() {
                for j in (i + 1..tree.len()).filter(|&j| has_geometry[j]) {
                    if !tree.are_adjacent(i, j)
                        && group[i] != group[j]
                        && !disabled.links_disabled(i, j)
                    {
                        pairs.push(Pair {
                            link: i,
                            other: Other::Link(j),
                        });
                    }
                }
            }
        }
        let mut link_tested = vec![false; tree.len()];
        let mut obstacle_tested = vec![false; scene.obstacles().len()];
        for p in &pairs {
            link_tested[p.link] = true;
            match p.other {
                Other::Link(j) => link_tested[j] = true,
                Other::Obstacle(o) => obstacle_tested[o] = true,
            }
        }
        Ok(Self {
            scene: scene.clone(),
            options,
            bounds,
            pairs,
            obstacle_speed: scene.obstacles().iter().map(obstacle_speed).collect(),
            link_tested,
            obstacle_tested,
            threshold: options
                .distance_threshold
                .unwrap_or_else(|| scene.distance_threshold()),
        })
    }

    /// The scene.
    #[must_use]
    pub const fn scene(&self) -> &Scene {
        &self.scene
    }

    /// The options.
    #[must_use]
    pub const fn options(&self) -> &OracleOptions {
        &self.options
    }

    /// The distance threshold [`Oracle::judge`] holds reported contacts to.
    #[must_use]
    pub const fn distance_threshold(&self) -> f64 {
        self.threshold
    }

    /// The tested pairs: a link and what it is tested against (the link
    /// of a link pair has the smaller index).
    pub fn pairs(&self) -> impl ExactSizeIterator<Item = (usize, Other)> + '_ {
        self.pairs.iter().map(|p| (p.link, p.other))
    }

    /// The grid of a motion: `n` intervals of `[0, 1]`, samples at `k / n`
    /// ((O1) in the [module docs](self)).
    ///
    /// # Errors
    /// As [`Oracle::verdict`].
    pub fn grid(&self, q0: &[f64], q1: &[f64]) -> Result<u64, Error> {
        let s = Sampler::new(self, q0, q1)?;
        Ok(s.grid_len().unwrap_or(u64::MAX))
    }

    /// The oracle's verdict on the motion `q0 → q1` (see the
    /// [module docs](self)).
    ///
    /// # Errors
    /// [`Error::Configuration`] (`q0` or `q1`) for a wrong length or a
    /// non-finite value; [`Error::Kinematics`] and [`Error::Geometry`] when
    /// the motion or a pose is rejected.
    pub fn verdict(&self, q0: &[f64], q1: &[f64]) -> Result<Verdict, Error> {
        Ok(self.verdict_with_stats(q0, q1)?.0)
    }

    /// As [`Oracle::verdict`], with the work done.
    ///
    /// # Errors
    /// As [`Oracle::verdict`].
    pub fn verdict_with_stats(
        &self,
        q0: &[f64],
        q1: &[f64],
    ) -> Result<(Verdict, OracleStats), Error> {
        let mut s = Sampler::new(self, q0, q1)?;
        let v = s.run()?;
        Ok((v, s.stats))
    }

    /// Whether some tested pair intersects at time `t` of the motion
    /// `q0 → q1` (touching counts).
    ///
    /// # Errors
    /// As [`Oracle::verdict`], and [`Error::InvalidOption`] (`t`) unless
    /// `0 ≤ t ≤ 1`.
    pub fn colliding_at(&self, q0: &[f64], q1: &[f64], t: f64) -> Result<bool, Error> {
        check_time(t)?;
        let mut s = Sampler::new(self, q0, q1)?;
        s.pose(t)?;
        for p in 0..self.pairs.len() {
            if s.test(p, false)?.0 {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The smallest distance over the tested pairs at time `t` of the
    /// motion `q0 → q1` (`0` when some pair intersects, `+∞` without
    /// pairs).
    ///
    /// # Errors
    /// As [`Oracle::colliding_at`].
    pub fn distance_at(&self, q0: &[f64], q1: &[f64], t: f64) -> Result<f64, Error> {
        check_time(t)?;
        let mut s = Sampler::new(self, q0, q1)?;
        s.pose(t)?;
        let mut d = f64::INFINITY;
        for p in 0..self.pairs.len() {
            let (hit, dp) = s.test(p, true)?;
            if hit {
                return Ok(0.0);
            }
            d = d.min(dp);
        }
        Ok(d)
    }

    /// Compares a pipeline's answer on `q0 → q1` with the oracle's verdict
    /// (computed here; see [`Oracle::judge_verdict`] to reuse one).
    ///
    /// # Errors
    /// As [`Oracle::verdict`].
    pub fn judge(&self, report: &CcdReport, q0: &[f64], q1: &[f64]) -> Result<Judgement, Error> {
        let verdict = self.verdict(q0, q1)?;
        self.judge_verdict(report, &verdict, q0, q1)
    }

    /// Compares a pipeline's answer on `q0 → q1` with `verdict` (the
    /// oracle's on the same motion). In order:
    ///
    /// 1. on [`Verdict::Collides`]: a free report is
    ///    [`Judgement::Missed`]; a [`CcdReport::toc_lower_bound`] after the
    ///    oracle's colliding time is [`Judgement::Late`];
    /// 2. on [`Verdict::Free`]: a report of [`CcdStatus::Collides`] or
    ///    [`CcdStatus::CollidingAtStart`] is [`Judgement::FalseAlarm`] when
    ///    the oracle's clearance `δ / 2` exceeds the distance threshold
    ///    plus the contact tolerance (else the verdict cannot tell, and it
    ///    is a [`Judgement::Graze`]); [`CcdStatus::BudgetExhausted`] is
    ///    accepted;
    /// 3. a reported contact whose time has a scene distance above the
    ///    threshold plus the contact tolerance is [`Judgement::FarContact`];
    /// 4. otherwise [`Judgement::Inconclusive`] for an inconclusive
    ///    verdict, [`Judgement::Graze`] for a graze, [`Judgement::Agrees`].
    ///
    /// # Errors
    /// As [`Oracle::verdict`] (the contact's distance is measured here).
    pub fn judge_verdict(
        &self,
        report: &CcdReport,
        verdict: &Verdict,
        q0: &[f64],
        q1: &[f64],
    ) -> Result<Judgement, Error> {
        let reported = report.toc_lower_bound;
        let allowed = self.threshold + self.options.contact_tolerance;
        let mut graze = false;
        match *verdict {
            Verdict::Collides { bracket, .. } => {
                let oracle_toc = bracket.1;
                if report.status == CcdStatus::Free {
                    return Ok(Judgement::Missed { oracle_toc });
                }
                // `!(≤)` also flags a NaN time.
                if !(reported <= oracle_toc) {
                    return Ok(Judgement::Late {
                        reported,
                        oracle_toc,
                    });
                }
            }
            Verdict::Free { .. } => {
                if matches!(
                    report.status,
                    CcdStatus::Collides | CcdStatus::CollidingAtStart
                ) {
                    let clearance = 0.5 * self.options.delta;
                    if clearance > allowed {
                        return Ok(Judgement::FalseAlarm {
                            reported,
                            clearance,
                        });
                    }
                    graze = true;
                }
            }
            Verdict::Graze { .. } => graze = true,
            Verdict::Inconclusive { .. } => {}
        }
        if let Some(c) = report.contact {
            let time = c.time;
            let distance = if (0.0..=1.0).contains(&time) {
                self.distance_at(q0, q1, time)?
            } else {
                f64::NAN
            };
            if !(distance <= allowed) {
                return Ok(Judgement::FarContact {
                    time,
                    distance,
                    allowed,
                });
            }
        }
        Ok(match verdict {
            Verdict::Inconclusive { .. } => Judgement::Inconclusive,
            _ if graze => Judgement::Graze,
            _ => Judgement::Agrees,
        })
    }
}

/// `t` must be a time of the motion.
fn check_time(t: f64) -> Result<(), Error> {
    if (0.0..=1.0).contains(&t) {
        Ok(())
    } else {
        Err(Error::InvalidOption {
            name: "t",
            value: t,
            why: "must be in [0, 1]",
        })
    }
}

/// A piece of a pair: a link or an obstacle.
#[derive(Clone, Copy)]
enum Piece {
    Link(usize),
    Obstacle(usize),
}

/// Per-pair state of the sweep over the grid.
#[derive(Clone, Copy, Debug)]
struct Track {
    /// Closing-speed bound over `[0, 1]`.
    mu: f64,
    /// Next grid index at which the pair must be evaluated.
    next: u64,
    /// Time and distance of its last evaluation.
    last_t: f64,
    last_d: f64,
}

/// The scratch of one motion's sampling: poses, workspaces and, for brute
/// force, world vertices.
struct Sampler<'o> {
    oracle: &'o Oracle,
    motion: InBetweenMotion,
    /// Largest speed of a tested piece.
    mu: f64,
    tracks: Vec<Track>,
    poses: Vec<DAffine3>,
    obstacle_poses: Vec<DAffine3>,
    /// Counts the calls of [`Sampler::pose`]; world vertices carry the
    /// count they were computed at.
    epoch: u64,
    world: Vec<(u64, Vec<DVec3>)>,
    collide_ws: CollideWorkspace,
    distance_ws: DistanceWorkspace,
    caches: Vec<DistanceCache>,
    stats: OracleStats,
}

impl<'o> Sampler<'o> {
    fn new(oracle: &'o Oracle, q0: &[f64], q1: &[f64]) -> Result<Self, Error> {
        let scene = &oracle.scene;
        scene.check_configuration("q0", q0)?;
        scene.check_configuration("q1", q1)?;
        let tree = scene.body().tree();
        let motion = InBetweenMotion::new(tree, q0, q1)
            .map_err(|e| Error::kinematics("oracle in-between motion", e))?;
        let link_mu = (0..tree.len())
            .map(|i| {
                oracle
                    .bounds
                    .mu(&motion, i, 0.0)
                    .map_err(|e| Error::kinematics("oracle motion bound", e))
            })
            .collect::<Result<Vec<f64>, Error>>()?;
        let mut mu = 0.0f64;
        for (i, &m) in link_mu.iter().enumerate() {
            if oracle.link_tested[i] {
                mu = mu.max(m);
            }
        }
        for (o, &m) in oracle.obstacle_speed.iter().enumerate() {
            if oracle.obstacle_tested[o] {
                mu = mu.max(m);
            }
        }
        let tracks = oracle
            .pairs
            .iter()
            .map(|p| {
                let mu = match p.other {
                    Other::Obstacle(o) => {
                        (link_mu[p.link] + oracle.obstacle_speed[o]) * (1.0 + SPEED_PAD)
                    }
                    Other::Link(j) => oracle
                        .bounds
                        .mu_relative(&motion, p.link, j, 0.0)
                        .map_err(|e| Error::kinematics("oracle motion bound", e))?,
                };
                Ok(Track {
                    mu,
                    next: 0,
                    last_t: 0.0,
                    last_d: 0.0,
                })
            })
            .collect::<Result<Vec<_>, Error>>()?;
        let pieces = tree.len() + scene.obstacles().len();
        Ok(Self {
            oracle,
            motion,
            mu,
            caches: vec![DistanceCache::default(); tracks.len()],
            tracks,
            poses: vec![DAffine3::IDENTITY; tree.len()],
            obstacle_poses: vec![DAffine3::IDENTITY; scene.obstacles().len()],
            epoch: 0,
            world: vec![(u64::MAX, Vec::new()); pieces],
            collide_ws: CollideWorkspace::new(),
            distance_ws: DistanceWorkspace::new(),
            stats: OracleStats::default(),
        })
    }

    /// `n` of (O1), or `None` when it is beyond [`MAX_GRID`].
    fn grid_len(&self) -> Option<u64> {
        let n = (2.0 * self.mu / self.oracle.options.delta).ceil().max(1.0);
        // `!(≤)` also catches NaN.
        if !(n <= MAX_GRID) {
            return None;
        }
        // Exact: a positive integer below 2^53.
        Some(n as u64)
    }

    /// Poses every piece at time `t`.
    fn pose(&mut self, t: f64) -> Result<(), Error> {
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
        self.epoch += 1;
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

    /// The error context of pair `p`.
    fn context(&self, p: usize) -> String {
        let scene = &self.oracle.scene;
        let pair = self.oracle.pairs[p];
        format!(
            "oracle pair {} / {}",
            scene.link_name(pair.link).unwrap_or("?"),
            scene.other_name(pair.other).unwrap_or("?")
        )
    }

    /// Tests pair `p` at the current poses: whether it intersects, and its
    /// distance (`0` when it intersects; `+∞` when not asked for).
    fn test(&mut self, p: usize, with_distance: bool) -> Result<(bool, f64), Error> {
        let pair = self.oracle.pairs[p];
        let a = Piece::Link(pair.link);
        let b = match pair.other {
            Other::Link(j) => Piece::Link(j),
            Other::Obstacle(o) => Piece::Obstacle(o),
        };
        if self.oracle.options.brute_force {
            return self.brute(a, b, with_distance);
        }
        let (ga, pa) = self.piece(a)?;
        let (gb, pb) = self.piece(b)?;
        let oa = MeshObject::new(&ga.mesh, &ga.obb_tree, pa)
            .map_err(|e| Error::geometry(self.context(p), e))?;
        let ob = MeshObject::new(&gb.mesh, &gb.obb_tree, pb)
            .map_err(|e| Error::geometry(self.context(p), e))?;
        if collide(&oa, &ob, CollideMode::First, &mut self.collide_ws).colliding {
            return Ok((true, 0.0));
        }
        if !with_distance {
            return Ok((false, f64::INFINITY));
        }
        let ra = MeshObject::new(&ga.mesh, &ga.rss_tree, pa)
            .map_err(|e| Error::geometry(self.context(p), e))?;
        let rb = MeshObject::new(&gb.mesh, &gb.rss_tree, pb)
            .map_err(|e| Error::geometry(self.context(p), e))?;
        let d = distance(&ra, &rb, &mut self.distance_ws, self.caches.get_mut(p));
        Ok((false, d.distance))
    }

    /// The world vertices of a piece at the current poses (computed once
    /// per pose).
    fn world_vertices(&mut self, piece: Piece) -> Result<(), Error> {
        let (g, pose) = self.piece(piece)?;
        let slot = match piece {
            Piece::Link(i) => i,
            Piece::Obstacle(o) => self.poses.len() + o,
        };
        let epoch = self.epoch;
        let (stamp, verts) = &mut self.world[slot];
        if *stamp != epoch {
            verts.clear();
            verts.extend(g.mesh.vertices().iter().map(|&v| pose.transform_point3(v)));
            *stamp = epoch;
        }
        Ok(())
    }

    /// [`Sampler::test`] over every triangle pair, in world coordinates.
    fn brute(&mut self, a: Piece, b: Piece, with_distance: bool) -> Result<(bool, f64), Error> {
        self.world_vertices(a)?;
        self.world_vertices(b)?;
        let (ga, _) = self.piece(a)?;
        let (gb, _) = self.piece(b)?;
        let slot = |p: Piece| match p {
            Piece::Link(i) => i,
            Piece::Obstacle(o) => self.poses.len() + o,
        };
        let wa = &self.world[slot(a)].1;
        let wb = &self.world[slot(b)].1;
        let corners = |w: &[DVec3], t: &[u32; 3]| t.map(|i| w[i as usize]);
        let mut d = f64::INFINITY;
        for ta in ga.mesh.indices() {
            let ta = corners(wa, ta);
            for tb in gb.mesh.indices() {
                let tb = corners(wb, tb);
                if intersect_triangle_triangle(&ta, &tb) {
                    return Ok((true, 0.0));
                }
                if with_distance {
                    d = d.min(distance_triangle_triangle(&ta, &tb));
                }
            }
        }
        Ok((false, d))
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

    /// The sweep over the grid, then the bisection.
    fn run(&mut self) -> Result<Verdict, Error> {
        let options = self.oracle.options;
        let delta = options.delta;
        let Some(n) = self.grid_len() else {
            return Ok(Verdict::Inconclusive {
                reached: 0.0,
                samples: 0,
            });
        };
        self.stats.grid = n;
        if self.tracks.is_empty() {
            return Ok(Verdict::Free {
                min_distance: f64::INFINITY,
            });
        }
        let h = 1.0 / n as f64;
        let mut min_distance = f64::INFINITY;
        let mut reached = 0.0;
        loop {
            let k = self.tracks.iter().map(|t| t.next).min().unwrap_or(u64::MAX);
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
            for p in 0..self.tracks.len() {
                if self.tracks[p].next != k {
                    continue;
                }
                self.stats.pair_tests += 1;
                let (hit, d) = self.test(p, true)?;
                let track = &mut self.tracks[p];
                track.last_t = t;
                track.last_d = d;
                if hit {
                    let pair = self.oracle.pairs[p];
                    if k == 0 {
                        return Ok(Verdict::Collides {
                            bracket: (0.0, 0.0),
                            pair: (pair.link, pair.other),
                        });
                    }
                    return self.bisect(Self::time(k - 1, n), t, p);
                }
                min_distance = min_distance.min(d);
                track.next = k + skip(d, delta, track.mu, h, options.skipping);
            }
            reached = t;
        }
        Ok(if min_distance > delta {
            Verdict::Free { min_distance }
        } else {
            Verdict::Graze { min_distance }
        })
    }

    /// Refines `(free, colliding)` by bisection; `hit` is a pair
    /// intersecting at `colliding`.
    fn bisect(&mut self, mut free: f64, mut colliding: f64, hit: usize) -> Result<Verdict, Error> {
        let mut pair = hit;
        // Pairs whose distance bound stays positive over the bracket cannot
        // intersect in it: `d(t) ≥ last_d − μ |t − last_t|`. Half of `δ` of
        // margin keeps rounding out of the decision.
        let margin = 0.5 * self.oracle.options.delta;
        let candidates: Vec<usize> = (0..self.tracks.len())
            .filter(|&p| {
                let tr = &self.tracks[p];
                let far = (free - tr.last_t).abs().max((colliding - tr.last_t).abs());
                p == hit || tr.last_d - tr.mu * far <= margin
            })
            .collect();
        for _ in 0..self.oracle.options.bisection_steps {
            let mid = 0.5 * (free + colliding);
            if !(free < mid && mid < colliding) {
                break;
            }
            self.pose(mid)?;
            let mut found = None;
            for &p in &candidates {
                self.stats.bisection_tests += 1;
                if self.test(p, false)?.0 {
                    found = Some(p);
                    break;
                }
            }
            match found {
                Some(p) => {
                    colliding = mid;
                    pair = p;
                }
                None => free = mid,
            }
        }
        let p = self.oracle.pairs[pair];
        Ok(Verdict::Collides {
            bracket: (free, colliding),
            pair: (p.link, p.other),
        })
    }
}

/// Grid steps to the pair's next evaluation after distance `d` ((O2) in
/// the [module docs](self)): the samples before it are all farther than
/// `δ`, since `d − μ · i · h > δ` for `i < j`.
fn skip(d: f64, delta: f64, mu: f64, h: f64, skipping: bool) -> u64 {
    if !skipping || !(d > delta) {
        return 1;
    }
    if !(mu > 0.0) {
        // The pair does not move relative to itself: its distance stays d.
        return u64::MAX / 2;
    }
    let steps = ((d - delta) / (mu * h) * (1.0 - SKIP_PAD)).ceil();
    if !(steps >= 1.0) {
        return 1;
    }
    // Capped: beyond the grid is as good as never.
    steps.min(MAX_GRID) as u64
}

#[cfg(test)]
mod tests {
    use std::f64::consts::PI;
    use std::sync::Arc;

    use armature_bvh_geometry::{ArticulatedBody, Obstacle, Tessellation, TriMesh};
    use armature_conservative_advance::{CcdStats, Contact};
    use armature_kinematics::{Joint, KinematicTree, LinkSpec};

    use super::*;
    use crate::Pipeline;

    /// Link lengths of the test arm; every link is a 0.1 square beam.
    const LENGTHS: [f64; 3] = [1.0, 0.8, 0.6];

    fn cuboid(size: DVec3, center: DVec3) -> Arc<TriMesh> {
        let m = Tessellation::default().cuboid(size).unwrap();
        Arc::new(m.transformed(&DAffine3::from_translation(center)).unwrap())
    }

    fn beam(length: f64) -> Arc<TriMesh> {
        cuboid(
            DVec3::new(length, 0.1, 0.1),
            DVec3::new(0.5 * length, 0.0, 0.0),
        )
    }

    /// A base without geometry and three revolute links (axes z, y, y).
    fn arm() -> ArticulatedBody {
        let tree = KinematicTree::new(vec![
            LinkSpec::new("base", None),
            LinkSpec::new("l1", Some("base")).with_joint(Joint::revolute(
                "j1",
                DVec3::Z,
                -7.0,
                7.0,
            )),
            LinkSpec::new("l2", Some("l1"))
                .with_joint(Joint::revolute("j2", DVec3::Y, -7.0, 7.0))
                .with_origin(DAffine3::from_translation(DVec3::X * LENGTHS[0])),
            LinkSpec::new("l3", Some("l2"))
                .with_joint(Joint::revolute("j3", DVec3::Y, -7.0, 7.0))
                .with_origin(DAffine3::from_translation(DVec3::X * LENGTHS[1])),
        ])
        .unwrap();
        let meshes = vec![
            None,
            Some(beam(LENGTHS[0])),
            Some(beam(LENGTHS[1])),
            Some(beam(LENGTHS[2])),
        ];
        ArticulatedBody::new("arm", tree, meshes).unwrap()
    }

    /// A box and a 2 mm plate.
    fn obstacles() -> Vec<Obstacle> {
        vec![
            Obstacle::fixed(
                "box",
                cuboid(DVec3::splat(0.5), DVec3::ZERO),
                DAffine3::from_translation(DVec3::new(1.0, 1.0, 0.3)),
            )
            .unwrap(),
            Obstacle::fixed(
                "plate",
                cuboid(DVec3::new(1.0, 0.002, 1.0), DVec3::ZERO),
                DAffine3::from_translation(DVec3::new(-0.8, -0.9, 0.0)),
            )
            .unwrap(),
        ]
    }

    fn scene_with(obstacles: Vec<Obstacle>) -> Scene {
        let mut b = Scene::builder().body(arm(), DAffine3::IDENTITY);
        for o in obstacles {
            b = b.obstacle(o);
        }
        b.build().unwrap()
    }

    fn scene() -> Scene {
        scene_with(obstacles())
    }

    fn fixture(name: &str) -> Scene {
        Scene::from_file(format!(
            "{}/tests/fixtures/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    }

    /// The configuration at time `t` of the motion (all joints revolute:
    /// the in-between motion interpolates joint values linearly).
    fn lerp(q0: &[f64], q1: &[f64], t: f64) -> Vec<f64> {
        q0.iter().zip(q1).map(|(a, b)| a + t * (b - a)).collect()
    }

    /// A tiny xorshift generator for seeded motions.
    struct Rng(u64);

    impl Rng {
        fn unit(&mut self) -> f64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }

        fn motion(&mut self, nq: usize, reach: f64, swing: f64) -> (Vec<f64>, Vec<f64>) {
            let q0: Vec<f64> = (0..nq).map(|_| (2.0 * self.unit() - 1.0) * reach).collect();
            let q1 = q0
                .iter()
                .map(|q| q + (2.0 * self.unit() - 1.0) * swing)
                .collect();
            (q0, q1)
        }
    }

    /// The first colliding time found by sampling with `step` through
    /// [`Pipeline::collides`] (forward kinematics and the pipeline's
    /// discrete test, not the oracle's code), searched in `[from, to]`.
    fn first_colliding_sample(
        scene: &Scene,
        q0: &[f64],
        q1: &[f64],
        from: f64,
        to: f64,
        step: f64,
    ) -> Option<f64> {
        let p = Pipeline::builder().build().unwrap();
        let n = ((to - from) / step).ceil() as usize;
        (0..=n)
            .map(|k| (from + k as f64 * step).min(to))
            .find(|&t| p.collides(scene, &lerp(q0, q1, t)).unwrap())
    }

    #[test]
    fn oracles_are_shared_between_threads() {
        fn send_sync<T: Send + Sync + Clone>() {}
        send_sync::<Oracle>();
        send_sync::<Verdict>();
        send_sync::<Judgement>();
    }

    #[test]
    fn certain_collision_is_bracketed() {
        let scene = scene();
        let oracle = Oracle::new(&scene, OracleOptions::default()).unwrap();
        // A half turn of the straight arm sweeps through the box.
        let (q0, q1) = ([-PI / 2.0, 0.0, 0.0], [PI / 2.0, 0.0, 0.0]);
        let coarse = first_colliding_sample(&scene, &q0, &q1, 0.0, 1.0, 1e-3).unwrap();
        let fine = 1e-7;
        let first = first_colliding_sample(&scene, &q0, &q1, coarse - 1e-3, coarse, fine).unwrap();
        let Verdict::Collides { bracket, pair } = oracle.verdict(&q0, &q1).unwrap() else {
            panic!("the swing collides");
        };
        let (free, colliding) = bracket;
        assert!(
            free < first && first <= colliding + fine,
            "{bracket:?} does not hold the first colliding sample {first}"
        );
        assert!(colliding - free < 1e-9, "{bracket:?} not refined");
        assert_eq!(pair.1, Other::Obstacle(0));
        assert!(oracle.colliding_at(&q0, &q1, colliding).unwrap());
        assert!(!oracle.colliding_at(&q0, &q1, free).unwrap());
    }

    #[test]
    fn fast_swing_through_a_thin_plate_collides() {
        let scene = scene_with(obstacles().split_off(1));
        let oracle = Oracle::new(&scene, OracleOptions::default()).unwrap();
        let (q0, q1) = ([0.0, 0.0, 0.0], [-200f64.to_radians(), 0.0, 0.0]);
        let v = oracle.verdict(&q0, &q1).unwrap();
        assert!(v.collides(), "{v:?}");
        let t = v.colliding_time().unwrap();
        assert!(t > 0.0 && t < 1.0);
    }

    #[test]
    fn clearly_free_motion_is_free() {
        let scene = scene();
        let oracle = Oracle::new(&scene, OracleOptions::default()).unwrap();
        // The arm, folded up, turns a little far from the box and the plate.
        let (q0, q1) = ([PI, -1.2, 1.0], [PI + 0.5, -1.0, 1.2]);
        let Verdict::Free { min_distance } = oracle.verdict(&q0, &q1).unwrap() else {
            panic!("the motion is free");
        };
        assert!(min_distance > 0.1, "{min_distance}");
        // Independently: every fine sample is farther than the oracle's
        // clearance.
        let p = Pipeline::builder().build().unwrap();
        for k in 0..=200 {
            let q = lerp(&q0, &q1, f64::from(k) / 200.0);
            assert!(p.check(&scene, &q).unwrap().distance > 0.5 * DEFAULT_DELTA);
        }
    }

    #[test]
    fn colliding_at_the_start_has_an_empty_bracket() {
        let scene = scene();
        let oracle = Oracle::new(&scene, OracleOptions::default()).unwrap();
        // Pointed at the box, tilted up towards it.
        let q0 = [PI / 4.0, -0.3, 0.0];
        let v = oracle.verdict(&q0, &[0.0, 0.0, 0.0]).unwrap();
        assert!(
            matches!(
                v,
                Verdict::Collides {
                    bracket: (0.0, 0.0),
                    ..
                }
            ),
            "{v:?}"
        );
    }

    #[test]
    fn a_moving_obstacle_is_followed() {
        let start = DAffine3::from_translation(DVec3::new(1.5, 1.2, 0.0));
        let end = DAffine3::from_rotation_translation(
            glam::DQuat::from_rotation_z(1.0),
            DVec3::new(1.5, -1.2, 0.0),
        );
        let slider =
            Obstacle::moving("slider", cuboid(DVec3::splat(0.3), DVec3::ZERO), start, end).unwrap();
        let scene = scene_with(vec![slider]);
        let oracle = Oracle::new(&scene, OracleOptions::default()).unwrap();
        let q = [0.0, 0.0, 0.0];
        let t = oracle.verdict(&q, &q).unwrap().colliding_time().unwrap();
        // The box's near face reaches the beam's top no earlier than 0.3.
        assert!(t > 0.3 && t < 0.5, "{t}");
    }

    /// Verdicts of two oracles on seeded motions of `scene`.
    fn compare(scene: &Scene, a: OracleOptions, b: OracleOptions, motions: usize, exact: bool) {
        let (oa, ob) = (
            Oracle::new(scene, a).unwrap(),
            Oracle::new(scene, b).unwrap(),
        );
        let mut rng = Rng(0x5eed_0ac1e);
        let mut kinds = [0usize; 3];
        for _ in 0..motions {
            let (q0, q1) = rng.motion(scene.nq(), 2.0, 1.0);
            let (va, sa) = oa.verdict_with_stats(&q0, &q1).unwrap();
            let vb = ob.verdict(&q0, &q1).unwrap();
            let h = 1.0 / sa.grid as f64;
            match (va, vb) {
                (Verdict::Collides { bracket: x, .. }, Verdict::Collides { bracket: y, .. }) => {
                    kinds[0] += 1;
                    if exact {
                        assert_eq!(x, y, "{q0:?} → {q1:?}");
                    } else {
                        // Same first colliding sample; the bisection may
                        // flip where rounding decides touching.
                        assert!((x.1 - y.1).abs() <= h, "{x:?} vs {y:?}");
                    }
                }
                (Verdict::Graze { min_distance: x }, Verdict::Graze { min_distance: y }) => {
                    kinds[1] += 1;
                    assert!((x - y).abs() <= 1e-9, "{x} vs {y}");
                }
                (Verdict::Free { min_distance: x }, Verdict::Free { min_distance: y }) => {
                    kinds[2] += 1;
                    if exact {
                        assert!(x >= y - 1e-12, "{x} < {y}");
                    } else {
                        assert!((x - y).abs() <= 1e-9, "{x} vs {y}");
                    }
                }
                (x, y) => panic!("{q0:?} → {q1:?}: {x:?} vs {y:?}"),
            }
        }
        assert!(
            kinds[0] > 0 && kinds[2] > 0,
            "collides, graze, free: {kinds:?}"
        );
    }

    #[test]
    fn brute_force_and_hierarchies_agree() {
        let bvh = OracleOptions::default();
        let brute = bvh.with_brute_force(true);
        compare(&scene(), bvh, brute, 40, false);
        compare(&fixture("single.ron"), bvh, brute, 12, false);
    }

    #[test]
    fn skipping_on_and_off_agree() {
        // A coarser resolution keeps the full grid cheap.
        let on = OracleOptions::default().with_delta(0.01);
        let off = on.with_skipping(false);
        compare(&scene(), on, off, 30, true);
        compare(&fixture("single.ron"), on, off, 6, true);
    }

    #[test]
    fn skipping_saves_work() {
        let scene = scene();
        let on = Oracle::new(&scene, OracleOptions::default().with_delta(0.01)).unwrap();
        let off = Oracle::new(
            &scene,
            OracleOptions::default()
                .with_delta(0.01)
                .with_skipping(false),
        )
        .unwrap();
        let (q0, q1) = ([PI, -1.2, 1.0], [PI + 0.5, -1.0, 1.2]);
        let (_, s_on) = on.verdict_with_stats(&q0, &q1).unwrap();
        let (_, s_off) = off.verdict_with_stats(&q0, &q1).unwrap();
        assert_eq!(s_on.grid, s_off.grid);
        assert_eq!(s_off.samples as u64, s_off.grid + 1);
        assert!(
            s_on.pair_tests * 5 < s_off.pair_tests,
            "{s_on:?} vs {s_off:?}"
        );
    }

    #[test]
    fn grid_spacing_follows_the_speed_bound() {
        let scene = scene();
        let oracle = Oracle::new(&scene, OracleOptions::default()).unwrap();
        let (q0, q1) = ([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
        // The tip of the straight arm (2.4 from the axis, plus the beams'
        // half width) moves at 2.4 per unit time at least: n ≥ 2·2.4/δ.
        let n = oracle.grid(&q0, &q1).unwrap();
        assert!(n as f64 >= 2.0 * 2.4 / DEFAULT_DELTA, "{n}");
        assert_eq!(oracle.grid(&q0, &q0).unwrap(), 1);
        let v = oracle.verdict(&q0, &q0).unwrap();
        assert!(matches!(v, Verdict::Free { .. }), "{v:?}");
    }

    #[test]
    fn the_budget_gives_inconclusive() {
        let scene = scene();
        let oracle = Oracle::new(
            &scene,
            OracleOptions::default()
                .with_max_samples(3)
                .with_skipping(false),
        )
        .unwrap();
        let v = oracle
            .verdict(&[PI, -1.2, 1.0], &[PI + 0.5, -1.0, 1.2])
            .unwrap();
        assert_eq!(
            v,
            Verdict::Inconclusive {
                reached: 2.0
                    / oracle
                        .grid(&[PI, -1.2, 1.0], &[PI + 0.5, -1.0, 1.2])
                        .unwrap() as f64,
                samples: 3
            }
        );
    }

    #[test]
    fn a_grid_beyond_exact_times_is_inconclusive() {
        let scene = scene();
        let oracle = Oracle::new(&scene, OracleOptions::default().with_delta(1e-300)).unwrap();
        let (q0, q1) = ([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
        assert_eq!(oracle.grid(&q0, &q1).unwrap(), u64::MAX);
        assert_eq!(
            oracle.verdict(&q0, &q1).unwrap(),
            Verdict::Inconclusive {
                reached: 0.0,
                samples: 0
            }
        );
    }

    #[test]
    fn a_near_miss_is_a_graze() {
        // The straight arm's tip face (x = 2.4) starts 0.8 mm from a box
        // and turns away; its corner swings out by at most 0.52 mm first.
        let reach: f64 = LENGTHS.iter().sum();
        let stop = Obstacle::fixed(
            "stop",
            cuboid(DVec3::splat(0.4), DVec3::ZERO),
            DAffine3::from_translation(DVec3::new(reach + 0.0008 + 0.2, 0.0, 0.0)),
        )
        .unwrap();
        let scene = scene_with(vec![stop]);
        let oracle = Oracle::new(&scene, OracleOptions::default()).unwrap();
        let (q0, q1) = ([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
        let v = oracle.verdict(&q0, &q1).unwrap();
        let Verdict::Graze { min_distance } = v else {
            panic!("{v:?}");
        };
        assert!(
            min_distance > 2e-4 && min_distance <= 8e-4,
            "{min_distance}"
        );
        let r = Pipeline::builder()
            .build()
            .unwrap()
            .first_contact(&scene, &q0, &q1)
            .unwrap();
        assert_eq!(
            oracle.judge_verdict(&r, &v, &q0, &q1).unwrap(),
            Judgement::Graze
        );
    }

    #[test]
    fn options_are_validated() {
        let scene = scene();
        let bad = [
            ("delta", OracleOptions::default().with_delta(0.0)),
            ("delta", OracleOptions::default().with_delta(f64::NAN)),
            ("max_samples", OracleOptions::default().with_max_samples(0)),
            (
                "distance_threshold",
                OracleOptions::default().with_distance_threshold(Some(-1.0)),
            ),
            (
                "contact_tolerance",
                OracleOptions::default().with_contact_tolerance(f64::INFINITY),
            ),
        ];
        for (name, o) in bad {
            let e = Oracle::new(&scene, o).unwrap_err();
            assert!(
                matches!(e, Error::InvalidOption { name: n, .. } if n == name),
                "{e}"
            );
        }
    }

    #[test]
    fn bad_configurations_and_times_are_errors() {
        let scene = scene();
        let oracle = Oracle::new(&scene, OracleOptions::default()).unwrap();
        let e = oracle.verdict(&[0.0; 3], &[0.0; 2]).unwrap_err();
        assert!(
            matches!(e, Error::Configuration { ref which, .. } if which == "q1"),
            "{e}"
        );
        let e = oracle
            .verdict(&[f64::NAN, 0.0, 0.0], &[0.0; 3])
            .unwrap_err();
        assert!(
            matches!(e, Error::Configuration { ref which, .. } if which == "q0"),
            "{e}"
        );
        let e = oracle.distance_at(&[0.0; 3], &[0.0; 3], 1.5).unwrap_err();
        assert!(matches!(e, Error::InvalidOption { name: "t", .. }), "{e}");
    }

    #[test]
    fn pairs_follow_the_rules() {
        // l2 carries l3 and l4 on fixed joints: l2–l4 is rigidly attached,
        // l1–l3 is disabled, l1–l2 and l2–l3 are adjacent.
        let tree = KinematicTree::new(vec![
            LinkSpec::new("l1", None).with_joint(Joint::revolute("j1", DVec3::Z, -3.0, 3.0)),
            LinkSpec::new("l2", Some("l1"))
                .with_joint(Joint::revolute("j2", DVec3::Y, -3.0, 3.0))
                .with_origin(DAffine3::from_translation(DVec3::X)),
            LinkSpec::new("l3", Some("l2"))
                .with_joint(Joint::fixed("f3"))
                .with_origin(DAffine3::from_translation(DVec3::X)),
            LinkSpec::new("l4", Some("l3"))
                .with_joint(Joint::fixed("f4"))
                .with_origin(DAffine3::from_translation(DVec3::X)),
        ])
        .unwrap();
        let body = ArticulatedBody::new(
            "bot",
            tree,
            vec![
                Some(beam(1.0)),
                Some(beam(1.0)),
                Some(beam(1.0)),
                Some(beam(0.5)),
            ],
        )
        .unwrap();
        let scene = Scene::builder()
            .body(body, DAffine3::IDENTITY)
            .obstacle(obstacles().remove(0))
            .disable_pair("bot/l1", "bot/l3")
            .disable_pair("bot/l4", "box")
            .build()
            .unwrap();
        let oracle = Oracle::new(&scene, OracleOptions::default()).unwrap();
        let pairs: Vec<(usize, Other)> = oracle.pairs().collect();
        assert_eq!(
            pairs,
            [
                (0, Other::Obstacle(0)),
                (0, Other::Link(3)),
                (1, Other::Obstacle(0)),
                (2, Other::Obstacle(0)),
            ]
        );
        let no_self = Scene::builder()
            .body(arm(), DAffine3::IDENTITY)
            .self_collision(false)
            .build()
            .unwrap();
        let oracle = Oracle::new(&no_self, OracleOptions::default()).unwrap();
        assert_eq!(oracle.pairs().len(), 0);
        assert!(matches!(
            oracle.verdict(&[0.0; 3], &[0.0, PI, 0.0]).unwrap(),
            Verdict::Free { .. }
        ));
    }

    fn report(status: CcdStatus, toc: f64, contact_time: Option<f64>) -> CcdReport {
        CcdReport {
            status,
            contact: contact_time.map(|time| Contact {
                time,
                link: 1,
                other: Other::Obstacle(0),
                triangle_a: 0,
                triangle_b: 0,
                distance: 0.0,
                point: DVec3::ZERO,
                normal: DVec3::X,
            }),
            toc_lower_bound: toc,
            stats: CcdStats::default(),
        }
    }

    #[test]
    fn judgements_name_the_defect() {
        let scene = scene();
        let oracle = Oracle::new(&scene, OracleOptions::default()).unwrap();
        let (c0, c1) = ([-PI / 2.0, 0.0, 0.0], [PI / 2.0, 0.0, 0.0]);
        let (f0, f1) = ([PI, -1.2, 1.0], [PI + 0.5, -1.0, 1.2]);
        let hit = oracle.verdict(&c0, &c1).unwrap();
        let toc = hit.colliding_time().unwrap();
        let judge = |r: &CcdReport, v: &Verdict, q0: &[f64], q1: &[f64]| {
            oracle.judge_verdict(r, v, q0, q1).unwrap()
        };
        // Free on a colliding motion.
        let j = judge(&report(CcdStatus::Free, 1.0, None), &hit, &c0, &c1);
        assert_eq!(j, Judgement::Missed { oracle_toc: toc });
        assert!(j.is_defect());
        // A time after the oracle's colliding time.
        let late = toc + 0.01;
        let j = judge(
            &report(CcdStatus::BudgetExhausted, late, None),
            &hit,
            &c0,
            &c1,
        );
        assert_eq!(
            j,
            Judgement::Late {
                reported: late,
                oracle_toc: toc
            }
        );
        // A contact far from anything.
        let early = toc - 0.1;
        let j = judge(
            &report(CcdStatus::Collides, early, Some(early)),
            &hit,
            &c0,
            &c1,
        );
        assert!(
            matches!(j, Judgement::FarContact { time, .. } if time == early),
            "{j:?}"
        );
        // The right contact time: the pipeline's own answer agrees.
        let r = Pipeline::builder()
            .build()
            .unwrap()
            .first_contact(&scene, &c0, &c1)
            .unwrap();
        assert_eq!(judge(&r, &hit, &c0, &c1), Judgement::Agrees);
        assert_eq!(oracle.judge(&r, &c0, &c1).unwrap(), Judgement::Agrees);
        // On a free motion: a collision is a false alarm, a budget
        // exhaustion is accepted.
        let free = oracle.verdict(&f0, &f1).unwrap();
        let j = judge(&report(CcdStatus::Collides, 0.5, None), &free, &f0, &f1);
        assert!(matches!(j, Judgement::FalseAlarm { .. }), "{j:?}");
        let j = judge(
            &report(CcdStatus::BudgetExhausted, 0.5, None),
            &free,
            &f0,
            &f1,
        );
        assert_eq!(j, Judgement::Agrees);
        let j = judge(&report(CcdStatus::Free, 1.0, None), &free, &f0, &f1);
        assert_eq!(j, Judgement::Agrees);
        // A threshold the oracle's resolution cannot resolve: no verdict.
        let coarse = Oracle::new(
            &scene,
            OracleOptions::default().with_distance_threshold(Some(0.01)),
        )
        .unwrap();
        let j = coarse
            .judge_verdict(&report(CcdStatus::Collides, 0.5, None), &free, &f0, &f1)
            .unwrap();
        assert_eq!(j, Judgement::Graze);
        let j = oracle
            .judge_verdict(
                &report(CcdStatus::Free, 1.0, None),
                &Verdict::Inconclusive {
                    reached: 0.0,
                    samples: 0,
                },
                &f0,
                &f1,
            )
            .unwrap();
        assert_eq!(j, Judgement::Inconclusive);
        assert_eq!(j.name(), "inconclusive");
    }
}
