//! # The brute-force oracle
//!
//! **What.** An [`Oracle`] decides, independently of the pipeline's
//! stages, what the clearance contract of a continuous query demands on a
//! motion `q0 → q1` of a [`Scene`], and [`Oracle::judge`] checks a
//! pipeline's [`CcdReport`] against it, naming the defect, if any
//! ([`Judgement`]). Tests and the benchmark suite check every answer this
//! way.
//!
//! **Why.** A method that "never misses" can only be tested against
//! something that does not share its code path. The oracle uses no swept
//! volume, no enclosure and no conservative advancement: poses at sample
//! times of the same in-between motion ([`InBetweenMotion`], time
//! normalised to `[0, 1]`) and static geometry. In [`Mode::Independent`]
//! it shares nothing with the pipeline's geometry either: its speed
//! bounds come from forward kinematics alone, and its intersection and
//! distance tests run over every triangle pair with exact predicates.
//!
//! **When.** Build one oracle per scene ([`Oracle::new`] precomputes the
//! tested pairs, the bound tables and the meshes' topology) and ask it
//! about as many motions as needed, from as many threads as needed
//! (`Send + Sync`).
//!
//! # The contract judged
//!
//! `δ` is the distance threshold the report was computed with
//! ([`OracleOptions::distance_threshold`]; `None`: the scene's, which is
//! the pipeline's default). For each tested pair `p`, `d_p(t)` is the
//! distance of its two meshes at time `t` — `0` when the surfaces meet,
//! and also when one *closed* mesh (watertight and consistently oriented,
//! checked here) contains the other — and its clearance is
//! `c_p = min(δ, d_p(0) / 3)`. Then:
//!
//! - [`CcdStatus::Free`] needs `d_p(t) ≥ c_p` for every pair and `t`;
//! - a contact time (and [`CcdReport::toc_lower_bound`] whatever the
//!   status) must not be later than the first time some pair breaks its
//!   clearance, and the witness pair `p*` must be within `2c_{p*}` at the
//!   contact time;
//! - [`CcdStatus::CollidingAtStart`] exactly when some pair has
//!   `d_p(0) = 0` (within [`OracleOptions::contact_tolerance`]).
//!
//! A motion whose pairs dip into the band `[c_p, 2c_p]` without going
//! below may be answered either way ([`Verdict::Graze`]).
//!
//! # The sample grid
//!
//! Each pair `p` has a closing-speed bound `μ_p`: no point of one of its
//! meshes moves faster than `μ_p` relative to the other over `[0, 1]`, so
//! `|d_p(t) − d_p(s)| ≤ μ_p |t − s|`. With the resolution `δ_o`
//! ([`OracleOptions::delta`], at most `δ`) the grid `t_k = k / n`,
//! `k = 0..=n`, uses
//!
//! `n = max(1, ⌈max_p μ_p / δ_o⌉)`, so that `μ_p · h ≤ δ_o` for `h = 1/n`. **(O1)**
//!
//! Between two evaluations `(a, d_a)` and `(b, d_b)` of a pair its
//! distance is at least `(d_a + d_b − μ_p (b − a)) / 2` (the mean of the
//! two Lipschitz bounds); over one grid step that is at least the smaller
//! sample less `δ_o / 2`, the *sampling slack*. Hence:
//!
//! - a pair whose distance is below `c_p` at some time (by more than the
//!   tolerance), or whose surfaces meet while `c_p > 0`, breaks its
//!   clearance: [`Verdict::Collides`], with the first such time bracketed
//!   by bisection between the last sample where no pair breaks it and the
//!   first time found;
//! - a step whose bound dips below `c_p` without a violation at its ends
//!   is **refined**: halved, depth first and earliest first, until a
//!   violation is found or every piece's bound is at least `c_p` less the
//!   tolerance (at most [`OracleOptions::max_refinements`] evaluations per
//!   motion, else [`Verdict::Inconclusive`]). So a penetration between
//!   two samples can never pass as a graze;
//! - every bound above `2c_p` plus the tolerance ⇒ [`Verdict::Free`]: a
//!   reported collision is a false alarm;
//! - otherwise [`Verdict::Graze`].
//!
//! The speed bounds come from [`MotionBounds`] in [`Mode::Fast`] (the
//! link bound of the bound tables at `t = 0`, which holds over `[0, 1]`;
//! [`MotionBounds::mu_relative`] for link pairs) and from forward
//! kinematics alone in [`Mode::Independent`]: a vertex at `|x|` from its
//! link's origin moves at most `Σᵢ |vᵢ| + |ωᵢ| (|x| + Σ_c max|T_c|)` over
//! the joints `i` of its chain (translation speed `vᵢ`, swept angle `ωᵢ`,
//! and the constant and prismatic offsets `T_c` of the links between);
//! two pieces close at most at the sum of their bounds; a moving obstacle
//! moves at most `|v| + |ω| max |p|`.
//!
//! # Skipping far samples
//!
//! If a pair's distance at `t_k` is `D`, its distance at `t_{k+i}` is at
//! least `D − μ_p · i · h`; its samples up to `k + j`,
//! `j = ⌊(D − 2c_p − tol) / (μ_p h)⌋`, stay above `2c_p` plus the
//! tolerance, so with [`OracleOptions::skipping`] (the default) they are
//! not evaluated. **(O2)** No decision above depends on them; only the
//! `min_distance` of a verdict (the smallest distance *evaluated*) may be
//! larger than the full grid's. In [`Mode::Independent`] a pair's
//! distance is only computed exactly up to a cutoff well above `2c_p`;
//! beyond, a lower bound from bounding boxes serves, which only skips
//! less.
//!
//! # Geometry
//!
//! [`Mode::Fast`] uses the static mesh queries of `armature-bvh-geometry`
//! (OBB trees for intersection, RSS trees for distance).
//! [`Mode::Independent`] tests every triangle pair (a bounding-box
//! prefilter per mesh, no hierarchy): intersection by an exact test on
//! orientation predicates (a proven floating-point filter with an exact
//! integer fallback), distance as the least vertex–triangle and edge–edge
//! distance. Both decide containment the same way, here: a mesh is closed
//! when every directed edge appears once and its reverse once; with the
//! surfaces apart, each connected component of one mesh lies wholly
//! inside or outside the other, so one vertex per component decides, by
//! the winding number. Containment is only checked at `t = 0` (and for a
//! reported contact): a pair not contained at the start cannot become
//! contained without its surfaces meeting first, which already breaks
//! its clearance.
//!
//! # Budget
//!
//! At most [`OracleOptions::max_samples`] sample times and
//! [`OracleOptions::max_refinements`] refining evaluations are spent;
//! past them the answer is [`Verdict::Inconclusive`], never a guess.
//!
//! ```
//! use armature::oracle::{Judgement, Mode, Oracle, OracleOptions, Verdict};
//! use armature::{Pipeline, Scene};
//!
//! let file = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/single.ron");
//! let scene = Scene::from_file(file)?;
//! let oracle = Oracle::new(&scene, OracleOptions::default().with_mode(Mode::Independent))?;
//! // Folding the arm drives its wrist into its base.
//! let (q0, q1) = ([0.0, 0.0, 0.0], [1.6, 2.0, 0.8]);
//! let Verdict::Collides { bracket: (free, colliding), .. } = oracle.verdict(&q0, &q1)? else {
//!     panic!("the motion collides");
//! };
//! assert!(free < colliding && colliding - free < 1e-9);
//! let report = Pipeline::builder().build()?.first_contact(&scene, &q0, &q1)?;
//! assert!(report.toc_lower_bound <= colliding);
//! assert!(!oracle.judge(&report, &q0, &q1)?.is_defect());
//! # Ok::<(), armature::Error>(())
//! ```
//!
//! [`InBetweenMotion`]: armature_kinematics::InBetweenMotion
//! [`CcdStatus::Free`]: armature_conservative_advance::CcdStatus::Free
//! [`CcdStatus::CollidingAtStart`]: armature_conservative_advance::CcdStatus::CollidingAtStart
//! [`CcdReport`]: armature_conservative_advance::CcdReport
//! [`CcdReport::toc_lower_bound`]: armature_conservative_advance::CcdReport::toc_lower_bound

// `!(x <= y)` is the idiom for "not at most, or NaN": a NaN time, distance
// or bound must land on the cautious side, which `partial_cmp` would only
// obscure.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

mod brute;
mod grid;
mod verdict;

#[cfg(test)]
mod tests;

use armature_bvh_geometry::LinkGeometry;
use armature_conservative_advance::Other;
use armature_kinematics::{JointType, MotionBounds};
use glam::DVec3;

use self::brute::Topology;
use self::grid::{Piece, Sampler};
pub use self::verdict::{Judgement, OracleStats, Verdict};
use crate::{Error, Scene};

/// Default [`OracleOptions::bisection_steps`]: halves the bracket down to
/// `h / 2⁵⁰`, below the rounding of the times for any practical grid.
pub const DEFAULT_BISECTION_STEPS: usize = 50;

/// Default [`OracleOptions::max_samples`].
pub const DEFAULT_MAX_SAMPLES: usize = 1_000_000;

/// Default [`OracleOptions::max_refinements`].
pub const DEFAULT_MAX_REFINEMENTS: usize = 100_000;

/// Default [`OracleOptions::contact_tolerance`], in model units.
pub const DEFAULT_CONTACT_TOLERANCE: f64 = 1e-9;

/// Which speed bounds and geometry the oracle uses (see the
/// [module docs](self)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// [`MotionBounds`] for the step and `armature-bvh-geometry`'s
    /// hierarchy queries for intersection and distance: fast, but shares
    /// those two with the pipeline.
    #[default]
    Fast,
    /// Speed bounds from forward kinematics alone and every triangle pair
    /// with exact predicates: shares nothing with the pipeline but the
    /// definition of the motion. Slower.
    Independent,
}

impl Mode {
    /// `fast` or `independent`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Fast => "fast",
            Self::Independent => "independent",
        }
    }
}

/// How the oracle samples and what it accepts. `Default` gives the
/// documented defaults; the `with_*` builders change one field each;
/// [`Oracle::new`] validates them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OracleOptions {
    /// Speed bounds and geometry. Default [`Mode::Fast`].
    pub mode: Mode,
    /// Resolution `δ_o`, in model units: over one grid step no pair's
    /// distance changes by more than `δ_o` ((O1) in the
    /// [module docs](self)). Finite, positive and at most the distance
    /// threshold, so that the sampling slack `δ_o / 2` stays below every
    /// clearance that matters; `None` (the default): the threshold.
    pub delta: Option<f64>,
    /// Skip samples a pair provably stays far at ((O2) in the
    /// [module docs](self)). Same verdicts, far fewer tests. Default on.
    pub skipping: bool,
    /// Bisection steps refining a violation's bracket. Default
    /// [`DEFAULT_BISECTION_STEPS`]; 0 keeps the sweep's bracket.
    pub bisection_steps: usize,
    /// Sample times visited at most; past them the verdict is
    /// [`Verdict::Inconclusive`]. At least 1; default
    /// [`DEFAULT_MAX_SAMPLES`].
    pub max_samples: usize,
    /// Pair evaluations spent refining grazes at most, per motion; past
    /// them the verdict is [`Verdict::Inconclusive`]. Default
    /// [`DEFAULT_MAX_REFINEMENTS`].
    pub max_refinements: usize,
    /// The distance threshold `δ` of the contract: the one the judged
    /// reports were computed with (`None`: the scene's, the pipeline's
    /// default). Finite and positive.
    pub distance_threshold: Option<f64>,
    /// Allowance, in model units, for rounding: `d_p(0)` up to it counts
    /// as touching for [`CcdStatus::CollidingAtStart`](armature_conservative_advance::CcdStatus::CollidingAtStart),
    /// a violation must be deeper than it, and a witness or a free motion
    /// is measured against `2c_p` plus it. Finite and non-negative;
    /// default [`DEFAULT_CONTACT_TOLERANCE`].
    pub contact_tolerance: f64,
}

impl Default for OracleOptions {
    fn default() -> Self {
        Self {
            mode: Mode::Fast,
            delta: None,
            skipping: true,
            bisection_steps: DEFAULT_BISECTION_STEPS,
            max_samples: DEFAULT_MAX_SAMPLES,
            max_refinements: DEFAULT_MAX_REFINEMENTS,
            distance_threshold: None,
            contact_tolerance: DEFAULT_CONTACT_TOLERANCE,
        }
    }
}

impl OracleOptions {
    /// Sets [`OracleOptions::mode`].
    #[must_use]
    pub const fn with_mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// Sets [`OracleOptions::delta`].
    #[must_use]
    pub const fn with_delta(mut self, delta: f64) -> Self {
        self.delta = Some(delta);
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

    /// Sets [`OracleOptions::max_refinements`].
    #[must_use]
    pub const fn with_max_refinements(mut self, n: usize) -> Self {
        self.max_refinements = n;
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

    /// Checks every field's range that does not depend on the scene
    /// ([`Oracle::new`] also holds `delta` to the threshold).
    ///
    /// # Errors
    /// [`Error::InvalidOption`] naming the first field out of range.
    pub fn validate(&self) -> Result<(), Error> {
        if let Some(d) = self.delta
            && !(d.is_finite() && d > 0.0)
        {
            return Err(Error::InvalidOption {
                name: "delta",
                value: d,
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

/// One tested pair.
#[derive(Clone, Copy, Debug)]
struct Pair {
    link: usize,
    other: Other,
}

/// The pairs the pipeline tests, decided by the same rules but by this
/// module's own code: every link with geometry against every obstacle
/// unless the pair is disabled; with the scene's self-collision, every two
/// links with geometry that are neither rigidly attached (in one rigid
/// group: joined by a chain of fixed joints, so they never move relative
/// to each other) nor, when the scene skips adjacent links, adjacent
/// (parent and child, or two rigid groups joined by one movable joint) nor
/// disabled. The link of a link pair has the smaller index.
fn tested_pairs(scene: &Scene) -> Vec<Pair> {
    let body = scene.body();
    let tree = body.tree();
    // For each link, the first link of the chain of fixed joints it hangs
    // from (tree order puts a parent before its children).
    let mut group: Vec<usize> = Vec::with_capacity(tree.len());
    for (i, l) in tree.links().iter().enumerate() {
        let g = match (l.parent(), &l.joint().kind) {
            (Some(p), JointType::Fixed) => group.get(p).copied().unwrap_or(i),
            _ => i,
        };
        group.push(g);
    }
    // The group a link's group hangs from: its first link's parent's.
    let up = |k: usize| {
        group
            .get(k)
            .and_then(|&g| tree.links().get(g))
            .and_then(|l| l.parent())
            .and_then(|p| group.get(p).copied())
    };
    let adjacent = |i: usize, j: usize| {
        tree.are_adjacent(i, j)
            || (group[i] != group[j] && (up(i) == Some(group[j]) || up(j) == Some(group[i])))
    };
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
                if !(scene.skip_adjacent() && adjacent(i, j))
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
    pairs
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
    /// Largest distance of each link's vertices from its origin (`0`
    /// without geometry).
    link_radius: Vec<f64>,
    /// Topology of each link's mesh (`None` without geometry) and each
    /// obstacle's.
    link_topology: Vec<Option<Topology>>,
    obstacle_topology: Vec<Topology>,
    /// `δ` of the contract.
    threshold: f64,
    /// `δ_o` of the grid.
    resolution: f64,
}

/// The topology of a mesh.
fn topology(g: &LinkGeometry) -> Topology {
    Topology::of(g.mesh.num_vertices(), g.mesh.indices())
}

impl Oracle {
    /// Prepares the oracle of `scene`: the tested pairs, the motion-bound
    /// tables over the links' mesh vertices, the obstacles' speeds and
    /// every mesh's topology.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] for options out of range
    /// ([`OracleOptions::validate`]) or a resolution above the distance
    /// threshold; [`Error::Kinematics`] when the bound tables reject the
    /// links' vertices.
    pub fn new(scene: &Scene, options: OracleOptions) -> Result<Self, Error> {
        options.validate()?;
        let threshold = options
            .distance_threshold
            .unwrap_or_else(|| scene.distance_threshold());
        let resolution = options.delta.unwrap_or(threshold);
        if !(resolution <= threshold) {
            return Err(Error::InvalidOption {
                name: "delta",
                value: resolution,
                why: "must not exceed the distance threshold",
            });
        }
        let body = scene.body();
        // A link without geometry is in no pair; one point keeps the
        // tables total.
        let origin = [DVec3::ZERO];
        let points: Vec<&[DVec3]> = body
            .links()
            .iter()
            .map(|g| g.as_ref().map_or(&origin[..], |g| g.mesh.vertices()))
            .collect();
        let bounds = MotionBounds::new(body.tree(), &points)
            .map_err(|e| Error::kinematics("oracle motion bounds", e))?;
        Ok(Self {
            scene: scene.clone(),
            options,
            bounds,
            pairs: tested_pairs(scene),
            obstacle_speed: scene.obstacles().iter().map(grid::obstacle_speed).collect(),
            link_radius: body
                .links()
                .iter()
                .map(|g| g.as_ref().map_or(0.0, |g| grid::radius(g.mesh.vertices())))
                .collect(),
            link_topology: body
                .links()
                .iter()
                .map(|g| g.as_ref().map(topology))
                .collect(),
            obstacle_topology: scene
                .obstacles()
                .iter()
                .map(|o| topology(o.geometry()))
                .collect(),
            threshold,
            resolution,
        })
    }

    /// The topology of a piece (an open one for a link without geometry,
    /// which is in no pair).
    fn topology(&self, piece: Piece) -> &Topology {
        static NONE: Topology = Topology {
            closed: false,
            representatives: Vec::new(),
        };
        match piece {
            Piece::Link(i) => self
                .link_topology
                .get(i)
                .and_then(Option::as_ref)
                .unwrap_or(&NONE),
            Piece::Obstacle(o) => self.obstacle_topology.get(o).unwrap_or(&NONE),
        }
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

    /// The distance threshold `δ` of the contract judged.
    #[must_use]
    pub const fn distance_threshold(&self) -> f64 {
        self.threshold
    }

    /// The resolution `δ_o` of the grid (at most the threshold).
    #[must_use]
    pub const fn resolution(&self) -> f64 {
        self.resolution
    }

    /// The tested pairs: a link and what it is tested against (the link
    /// of a link pair has the smaller index).
    pub fn pairs(&self) -> impl ExactSizeIterator<Item = (usize, Other)> + '_ {
        self.pairs.iter().map(|p| (p.link, p.other))
    }

    /// Whether the mesh of a link (`Other::Link`) or an obstacle is closed
    /// (watertight and consistently oriented), so that it can contain
    /// another; `false` for a link without geometry or an index out of
    /// range.
    #[must_use]
    pub fn is_closed(&self, piece: Other) -> bool {
        self.topology(match piece {
            Other::Link(i) => Piece::Link(i),
            Other::Obstacle(o) => Piece::Obstacle(o),
        })
        .closed
    }

    /// The grid of a motion: `n` intervals of `[0, 1]`, samples at `k / n`
    /// ((O1) in the [module docs](self)); `u64::MAX` beyond exact times.
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

    /// The clearance `c_p = min(δ, d_p(0) / 3)` of each tested pair on the
    /// motion `q0 → q1`, in the order of [`Oracle::pairs`].
    ///
    /// # Errors
    /// As [`Oracle::verdict`].
    pub fn clearances(&self, q0: &[f64], q1: &[f64]) -> Result<Vec<f64>, Error> {
        let mut s = Sampler::new(self, q0, q1)?;
        Ok(s.start()?
            .iter()
            .map(|st| self.threshold.min(st.distance / 3.0))
            .collect())
    }

    /// Whether some tested pair has contract distance 0 at time `t` of the
    /// motion `q0 → q1`: the surfaces meet (touching counts) or a closed
    /// mesh contains the other.
    ///
    /// # Errors
    /// As [`Oracle::verdict`], and [`Error::InvalidOption`] (`t`) unless
    /// `0 ≤ t ≤ 1`.
    pub fn colliding_at(&self, q0: &[f64], q1: &[f64], t: f64) -> Result<bool, Error> {
        check_time(t)?;
        let mut s = Sampler::new(self, q0, q1)?;
        s.pose(t)?;
        for p in 0..self.pairs.len() {
            if s.contract_distance(p, 0.0)?.touching {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The smallest contract distance over the tested pairs at time `t` of
    /// the motion `q0 → q1` (`0` when some pair touches or is contained,
    /// `+∞` without pairs).
    ///
    /// # Errors
    /// As [`Oracle::colliding_at`].
    pub fn distance_at(&self, q0: &[f64], q1: &[f64], t: f64) -> Result<f64, Error> {
        check_time(t)?;
        let mut s = Sampler::new(self, q0, q1)?;
        s.pose(t)?;
        let mut d = f64::INFINITY;
        for p in 0..self.pairs.len() {
            d = d.min(s.contract_distance(p, f64::INFINITY)?.distance);
        }
        Ok(d)
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
