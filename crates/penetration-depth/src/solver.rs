//! The PDg iteration of M5 for rigid and articulated models.
//!
//! Given an in-collision configuration `q_in` (the paper's origin `o`),
//! the solver looks for a configuration in contact (collision-free, within
//! the contact tolerance of touching) whose object norm from `q_in`,
//! `σ(q_in, q)` ([`crate::norm`]), is locally smallest:
//!
//! 1. **Free-configuration selection** (M5 §3.2, §5.1). Candidates, each
//!    kept only when collision-free:
//!    - *motion coherence*: the caller's hint and the last answer of this
//!      solver;
//!    - *successive perturbation* (Alg. 1): each colliding link, deepest
//!      first, perturbs its own joint by growing steps until it and its
//!      descendants are free, else hands over to its parent; nodes with
//!      several children are perturbed first, root side first, and a
//!      failure there ends the method;
//!    - *constrained translation* (eq. 20): the whole model translated
//!      along the centroid difference `o_A − o_B` projected on the
//!      translations its root chain allows (floating, planar and prismatic
//!      joints above all geometry), by `r_A + r_B` (doubled while it
//!      collides; shortened, in the same direction, to the joint limits),
//!      and along the 26 directions of a cube spanned by up to three free
//!      axes; a self-colliding model is first put in its rest configuration
//!      when that is self-collision free.
//!
//!    Each candidate is ranked by the norm where its straight move towards
//!    `q_in` meets the contact space (bisection from the colliding end
//!    back, to 1/256 of the remaining way). Around the best translation,
//!    rings of eight directions at 0.3 and 0.1 rad are ranked too, each
//!    ring centred on the best so far (M5's maximally-clear choice,
//!    refined by sampling; finer than that, the ranking's own precision
//!    decides, and the constrained optimisation turns the direction). Only
//!    the best and the best direction matter, so the searches advance a
//!    step at a time, the one with the least lower bound on its value
//!    first: along a segment whose joints all shrink at least linearly
//!    towards `q_in` (translations, revolute
//!    changes up to 2π; see [`NormFrame::segment_factors`]), a search whose
//!    colliding end has come back to `s` ranks at least `(1 − s)²` times
//!    its candidate's norm (and at most `(1 − s)²` times a larger factor
//!    from its free end), and a candidate whose lower bound already
//!    exceeds the least of the values and upper bounds (and the best
//!    direction's) is dropped. The ranking is the one of searches run
//!    to their ends ([`PdOptions::exhaustive_ranking`]).
//! 2. **Contact-space projection** (§3.2, §5.2, Alg. 2) from the best
//!    ranked candidate: the translational joints' rotations are first
//!    set to `q_in`'s when that is free (a rigid body "rotated to the
//!    target orientation"); then CCDg — all joints still free to move go
//!    towards `q_in` together until a contact, and the links of each
//!    contact and their ancestors stop — and the greedy pass — each joint
//!    alone, root first, towards `q_in` until a contact, repeated while a
//!    joint that reaches its target leaves the model out of contact. Each
//!    move ends at a contact found by [`Projection::Bisection`] (default)
//!    or [`Projection::ContinuousCollision`]. With reverse projection
//!    ([`PdOptions::reverse_samples`]) each move is first searched from
//!    its in-collision end backwards, so the contact kept is the one
//!    nearer the target; the first move of a candidate always is. The
//!    projection starts the iteration.
//! 3. **Constrained optimisation on the linearised local contact space**
//!    (eq. 6–12, 22–30): every triangle pair within the contact tolerance
//!    gives a row `nᵀ (J_a − J_b) T` of `C′` (point Jacobians, the link's
//!    separating normal, and `T = ∂tangent/∂X`) and its distance `g`, and
//!    `min ½ XᵀHX  s.t.  g + C′(X − X_c) ≥ 0` (each pair's distance to
//!    first order; M5 eq. 9 takes `g = 0`) is solved through its LCP
//!    `C′H⁻¹C′ᵀ λ − (C′X_c − g) ≥ 0, λ ≥ 0, complementarity`,
//!    `X* = H⁻¹C′ᵀλ`, by the dual active-set method of
//!    [`solve_active_set`] (exact up to rounding; M5's projected
//!    Gauss–Seidel, [`LcpSolver::Pgs`], creeps on these rank-deficient
//!    matrices). Counting the distances lets a step
//!    close the gaps of pairs that are near but not touching, which a
//!    contact tolerance wide against the features' size (bumpy surfaces)
//!    would otherwise hold as walls. The step is shortened to keep the
//!    quaternions unit and `|2 sin(Δ/2)| ≤ 2` (the paper's weight `w`),
//!    and joint limits are kept by truncation.
//! 4. **Re-projection**: a free result moves straight towards `q_in` until
//!    contact (or, with [`PdOptions::full_reprojection`], is projected as
//!    in step 2); an in-collision one is replaced by a contact on the way
//!    from the last contact configuration to it.
//! 5. **Iteration** while the norm decreases by more than
//!    [`PdOptions::min_improvement`], at most [`PdOptions::max_iterations`]
//!    times; a step whose re-projection does not lower the norm is halved,
//!    twice at most, before the iteration stops.
//!
//! **What is guaranteed.** The returned configuration is collision-free by
//! the discrete test (checked before returning), and the value is its
//! object norm from `q_in`: an upper bound on the true PDg. The method is
//! local (M5 §6.4): it can stop in a local minimum.

use std::f64::consts::PI;
use std::time::{Duration, Instant};

use armature_bvh_geometry::{ArticulatedBody, DisabledPairs, Obstacle};
use armature_conservative_advance::{CcdOptions, CcdScene, CcdStatus, CcdWorkspace, Other};
use armature_kinematics::{CurveLengthBounds, JointSpaceMotion, JointType, KinematicTree};
use glam::{DQuat, DVec3};

use crate::PdError;
use crate::contact::{CheckWorkspace, Checker, ContactPoint};
use crate::lcp::{LcpSolver, PgsOptions, solve_active_set, solve_pgs};
use crate::norm::{NormFrame, ObjectNorm};

/// Options of the [`PdSolver`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PdOptions {
    /// The distance threshold `δ` of the projections' continuous collision
    /// detection: a projection stops when a pair comes within `2δ`
    /// (conservative advancement's clearance contract), so returned
    /// configurations are this close to contact. Default `1e-3`.
    pub distance_threshold: f64,
    /// Contacts within this distance build the linearised contact space;
    /// `None`: `4δ`. At least `2δ` is used.
    pub contact_tolerance: Option<f64>,
    /// Most constrained-optimisation iterations. Default 12.
    pub max_iterations: usize,
    /// The iteration stops when the norm decreases by less than this
    /// fraction. Default `1e-3`.
    pub min_improvement: f64,
    /// Test the model's links against each other. Default `true`.
    pub self_collision: bool,
    /// Skip pairs of adjacent links. Default `true`.
    pub skip_adjacent: bool,
    /// Successive perturbation's largest change of a joint, in radians
    /// (prismatic joints: this times the model's bounding radius).
    /// Default `π`.
    pub perturbation_range: f64,
    /// Successive perturbation's tries per direction: the changes are the
    /// range halved `steps − 1` times, then doubled back up to the range
    /// (`π/32, π/16, …, π` by default). Default 6.
    pub perturbation_steps: usize,
    /// Samples of each projection's reverse pass (M5's reverse
    /// projection; 0: off): the first free configuration is searched from
    /// the in-collision end back, at `1/2ᵏ` of the way (`k = n − 1, …, 1`).
    /// Default 0: with bisection projections, which need not stop at the
    /// first contact from the free end, it found the same norms on the
    /// benchmark scenes for 23–35 % more work.
    pub reverse_samples: usize,
    /// Also try the free axes of the constrained translation both ways,
    /// not only the centroid difference. Default `true`.
    pub axis_translations: bool,
    /// Re-project a free optimisation result by the full contact-space
    /// projection (CCDg and the greedy pass, as M5 §5.4 states) instead
    /// of one move straight towards `q_in` (as the rigid case of §3.2):
    /// measured on the Puma, 30 % more work for the same norms within
    /// 1 % but for one case in eight. Default `false`.
    pub full_reprojection: bool,
    /// Most contact rows in one linearised contact space (the closest
    /// ones). Default 96.
    pub max_contacts: usize,
    /// How a projection finds the contact between a free and a colliding
    /// configuration. Default [`Projection::Bisection`].
    pub projection: Projection,
    /// The method that solves each step's LCP. Default
    /// [`LcpSolver::ActiveSet`].
    pub lcp: LcpSolver,
    /// Projected Gauss–Seidel's options ([`LcpSolver::Pgs`], and the
    /// finish of an active-set solve that did not converge); their
    /// tolerance is the active-set method's too.
    pub pgs: PgsOptions,
    /// Conservative advancement's iteration budget per pair.
    pub max_ca_iterations_per_pair: usize,
    /// Rank every free candidate to the end, instead of advancing the
    /// ranking searches a step at a time and dropping those that can no
    /// longer be among the best (see the module docs). The ranking, and so
    /// the answer, is the same either way; this is for comparison.
    /// Default `false`.
    pub exhaustive_ranking: bool,
    /// Answer a pair found apart at one configuration apart again, with no
    /// test, at a configuration where every joint its relative pose
    /// depends on has the same value (between two links; from a link to
    /// its root against a fixed obstacle; see [`Checker`]); an answer is then confirmed by a check that tests
    /// every pair, and the query runs again without this where it fails.
    /// Off, every discrete check tests every pair; this is for comparison.
    /// Default `true`.
    pub reuse_apart_pairs: bool,
}

impl Default for PdOptions {
    fn default() -> Self {
        Self {
            distance_threshold: 1e-3,
            contact_tolerance: None,
            max_iterations: 12,
            min_improvement: 1e-3,
            self_collision: true,
            skip_adjacent: true,
            perturbation_range: PI,
            perturbation_steps: 6,
            reverse_samples: 0,
            axis_translations: true,
            full_reprojection: false,
            max_contacts: 96,
            projection: Projection::Bisection,
            lcp: LcpSolver::ActiveSet,
            pgs: PgsOptions::default(),
            max_ca_iterations_per_pair: CcdOptions::default().max_ca_iterations_per_pair,
            exhaustive_ranking: false,
            reuse_apart_pairs: true,
        }
    }
}

impl PdOptions {
    /// Sets [`PdOptions::distance_threshold`].
    #[must_use]
    pub const fn with_distance_threshold(mut self, d: f64) -> Self {
        self.distance_threshold = d;
        self
    }

    /// Sets [`PdOptions::max_iterations`].
    #[must_use]
    pub const fn with_max_iterations(mut self, n: usize) -> Self {
        self.max_iterations = n;
        self
    }

    /// Sets [`PdOptions::self_collision`].
    #[must_use]
    pub const fn with_self_collision(mut self, on: bool) -> Self {
        self.self_collision = on;
        self
    }

    /// Sets [`PdOptions::skip_adjacent`].
    #[must_use]
    pub const fn with_skip_adjacent(mut self, on: bool) -> Self {
        self.skip_adjacent = on;
        self
    }

    /// Sets [`PdOptions::projection`].
    #[must_use]
    pub const fn with_projection(mut self, p: Projection) -> Self {
        self.projection = p;
        self
    }

    /// Sets [`PdOptions::reverse_samples`].
    #[must_use]
    pub const fn with_reverse_samples(mut self, n: usize) -> Self {
        self.reverse_samples = n;
        self
    }

    /// Sets [`PdOptions::contact_tolerance`].
    #[must_use]
    pub const fn with_contact_tolerance(mut self, t: Option<f64>) -> Self {
        self.contact_tolerance = t;
        self
    }

    /// The contact tolerance in use.
    #[must_use]
    pub fn tolerance(&self) -> f64 {
        self.contact_tolerance
            .unwrap_or(4.0 * self.distance_threshold)
            .max(2.0 * self.distance_threshold)
    }

    /// Checks the documented ranges.
    ///
    /// # Errors
    /// [`PdError::InvalidOption`] naming the field.
    pub fn validate(&self) -> Result<(), PdError> {
        let bad = |name, value: f64, why| Err(PdError::InvalidOption { name, value, why });
        let d = self.distance_threshold;
        if !(d > 0.0 && d.is_finite()) {
            return bad("distance_threshold", d, "must be finite and positive");
        }
        if let Some(t) = self.contact_tolerance
            && !(t >= 0.0 && t.is_finite())
        {
            return bad("contact_tolerance", t, "must be finite and non-negative");
        }
        if !(0.0..1.0).contains(&self.min_improvement) {
            return bad("min_improvement", self.min_improvement, "must be in [0, 1)");
        }
        let r = self.perturbation_range;
        if !(r >= 0.0 && r.is_finite()) {
            return bad("perturbation_range", r, "must be finite and non-negative");
        }
        if self.max_contacts == 0 {
            return bad("max_contacts", 0.0, "must be at least 1");
        }
        if self.max_ca_iterations_per_pair == 0 {
            return bad("max_ca_iterations_per_pair", 0.0, "must be at least 1");
        }
        self.pgs.validate()
    }

    fn ccd(&self) -> CcdOptions {
        CcdOptions::default()
            .with_distance_threshold(self.distance_threshold)
            .with_self_collision(self.self_collision)
            .with_skip_adjacent(self.skip_adjacent)
            .with_max_ca_iterations_per_pair(self.max_ca_iterations_per_pair)
    }
}

/// How a projection moves from a free configuration towards a target
/// until contact.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Projection {
    /// Bisection on discrete tests along the joint-space segment, until
    /// the curve-length bound of M2 (every point's travel) between the
    /// free and the colliding end is within half the contact tolerance:
    /// the free end is then in contact. It finds *a* contact on the
    /// segment, not necessarily the first (a free end is all the answer
    /// needs), at the cost of a few tens of discrete tests.
    #[default]
    Bisection,
    /// Conservative advancement (`armature-conservative-advance`): the
    /// first contact along the segment, the path to it certified free.
    /// Slower near contact, where gliding motions take many short steps.
    ContinuousCollision,
}

/// How a query ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PdStatus {
    /// The input was collision-free: depth 0, the input returned.
    AlreadyFree,
    /// A separating configuration in contact was found.
    Separated,
    /// No free configuration was found to start from: every selection
    /// method failed (the value is then `+∞` and the configuration the
    /// input).
    NoFreeConfiguration,
}

/// Which selection method gave the starting configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FreeSelection {
    /// The caller's hint or the solver's last answer.
    MotionCoherence,
    /// Successive perturbation of the colliding links.
    SuccessivePerturbation,
    /// The model translated along the centroid difference or a free axis.
    ConstrainedTranslation,
}

/// Counts and times of one query.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PdStats {
    /// Free candidates found.
    pub free_candidates: usize,
    /// Continuous collision queries.
    pub ccd_calls: usize,
    /// Discrete collision tests.
    pub discrete_checks: usize,
    /// Contact rows over all linearised contact spaces.
    pub contact_rows: usize,
    /// Projected Gauss–Seidel sweeps over all iterations.
    pub pgs_iterations: usize,
    /// Active-set pivots over all iterations.
    pub lcp_pivots: usize,
    /// The norm after the first projection (before optimisation).
    pub projected_value: f64,
    /// Time selecting free configurations.
    pub selection_time: Duration,
    /// Time in contact-space projections (the first ones and the
    /// re-projections).
    pub projection_time: Duration,
    /// Time building and solving the linearised problems.
    pub optimisation_time: Duration,
}

/// The answer of [`PdSolver::penetration_depth`].
#[derive(Clone, Debug, PartialEq)]
pub struct PdReport {
    /// How it ended.
    pub status: PdStatus,
    /// The object norm `σ(q_in, q)` of the separating configuration (M5
    /// eq. 1 / 19; squared length: the mean squared displacement of the
    /// model's points); `0` when already free.
    pub value: f64,
    /// The separating configuration (the input when already free).
    pub configuration: Vec<f64>,
    /// Constrained-optimisation iterations that lowered the norm.
    pub iterations: usize,
    /// The contacts within the tolerance at the separating configuration.
    pub contacts: Vec<ContactPoint>,
    /// The smallest distance at the separating configuration.
    pub distance: f64,
    /// The selection method of the starting configuration.
    pub selection: Option<FreeSelection>,
    /// Counts and times.
    pub stats: PdStats,
}

impl PdReport {
    /// `√σ`: the root-mean-square displacement of the model's points
    /// between the input and the separating configuration.
    #[must_use]
    pub fn rms_displacement(&self) -> f64 {
        self.value.sqrt()
    }
}

/// A translational depth along sampled directions (for comparison).
#[derive(Clone, Debug, PartialEq)]
pub struct TranslationalDepth {
    /// The length of the shortest separating translation found.
    pub depth: f64,
    /// Its direction (world, unit).
    pub direction: DVec3,
    /// The configuration it gives.
    pub configuration: Vec<f64>,
}

/// The free starting configurations of step 1, and how the model
/// translates (for refining the best direction).
struct Candidates {
    list: Vec<(Vec<f64>, FreeSelection, Option<DVec3>)>,
    setup: Option<TranslationSetup>,
}

/// Constrained translation's free starts with their directions, and how
/// the model translates.
type Translated = (Vec<(Vec<f64>, DVec3)>, Option<TranslationSetup>);

/// How constrained translation moves the model: from `base` through
/// `axes`, by `reach` (`r_A + r_B`) and multiples.
struct TranslationSetup {
    base: Vec<f64>,
    axes: Vec<FreeAxis>,
    reach: f64,
}

/// A translational degree of freedom of the whole model: a joint value
/// moving every link with geometry along a world direction.
#[derive(Clone, Copy, Debug)]
struct FreeAxis {
    /// Index in the configuration vector.
    q_index: usize,
    /// World direction at `q_in`.
    direction: DVec3,
}

/// A step of the constrained optimisation in the norm's variables:
/// `X_c + f·w·dX` for a fraction `f ∈ (0, 1]`.
struct Step {
    x_c: Vec<f64>,
    dx: Vec<f64>,
    /// The largest fraction of `dx` keeping the variables in their domain.
    w: f64,
}

impl Step {
    /// The configuration at `fraction` of the step, within the joint
    /// limits (truncation).
    fn at(
        &self,
        frame: &NormFrame,
        tree: &KinematicTree,
        fraction: f64,
        q: &mut [f64],
    ) -> Result<Vec<f64>, PdError> {
        let x: Vec<f64> = self
            .x_c
            .iter()
            .zip(&self.dx)
            .map(|(c, d)| c + fraction * self.w * d)
            .collect();
        frame.from_x(&x, q)?;
        Ok(tree.clamp_to_limits(q)?)
    }
}

/// A contact searched by bisection on the segment `q0 → q1` (the free
/// end `q0`, the colliding end `q1`): the bracket `[lo, hi]` with the
/// free and colliding ends' configurations and the pair seen overlapping
/// at `hi`, and where the search stands. [`PdSolver::bisect_to`] runs one
/// to its end; the ranking of free candidates advances several, a step
/// at a time, the most promising first.
struct Search {
    motion: JointSpaceMotion,
    /// Per link, whether it moves on the segment.
    moving: Vec<bool>,
    /// Per link, whether its own joint changes value.
    changed: Vec<bool>,
    lo: f64,
    hi: f64,
    q_lo: Vec<f64>,
    q_hi: Vec<f64>,
    /// Scratch for the sample being tested.
    mid: Vec<f64>,
    hit: (usize, Other),
    /// Stop once `hi − lo ≤ coarse · (1 − lo)` (`0`: at the contact
    /// tolerance).
    coarse: f64,
    /// Reverse samples left: the next is at `1 − 1/2^reverse`; `0` once
    /// the bisection runs.
    reverse: usize,
    /// Halvings done.
    halvings: usize,
    /// Whether the search has ended.
    done: bool,
    /// Whether the colliding end turned out free (the target reached).
    reached: bool,
}

impl Search {
    /// A search on `q0 → q1`, not yet open: the colliding end is tested
    /// by [`PdSolver::search_target`] and its answer given to
    /// [`Search::open`]. `reverse` samples from the colliding end back, at
    /// `1/2ᵏ` of the way (`k = reverse − 1, …, 1`), come first.
    fn new(
        tree: &KinematicTree,
        q0: &[f64],
        q1: &[f64],
        coarse: f64,
        reverse: usize,
    ) -> Result<Self, PdError> {
        let motion = JointSpaceMotion::new(tree, q0, q1)?;
        let changed = (0..tree.len())
            .map(|i| {
                let r = tree.q_range(i);
                q0[r.clone()] != q1[r]
            })
            .collect();
        Ok(Self {
            motion,
            moving: moving_links(tree, q0, q1),
            changed,
            lo: 0.0,
            hi: 1.0,
            q_lo: q0.to_vec(),
            q_hi: q1.to_vec(),
            mid: vec![0.0; q0.len()],
            hit: (usize::MAX, Other::Obstacle(usize::MAX)),
            coarse,
            reverse: reverse.saturating_sub(1),
            halvings: 0,
            done: false,
            reached: false,
        })
    }

    /// Whether the pair `(l, o)` is tested on this segment. A link pair
    /// moves relative to itself only through the joints between its
    /// members: a pair carried as one (a whole model translated, a hand
    /// turned at the wrist) keeps its state at the free `q0`.
    fn wanted(&self, tree: &KinematicTree, l: usize, o: Other) -> bool {
        let path_changed = |mut k: usize, top: usize| {
            while k != top {
                if self.changed[k] {
                    return true;
                }
                match tree.links()[k].parent() {
                    Some(p) => k = p,
                    None => return false,
                }
            }
            false
        };
        match o {
            Other::Obstacle(_) => self.moving[l],
            Other::Link(j) => match tree.common_ancestor(l, j) {
                Some(c) => path_changed(l, c) || path_changed(j, c),
                None => self.moving[l] || self.moving[j],
            },
        }
    }

    /// Opens the search with the colliding end's overlapping pair; `None`
    /// ends it there (the target reached).
    fn open(&mut self, found: Option<(usize, Other)>) {
        match found {
            Some(pair) => self.hit = pair,
            None => {
                self.done = true;
                self.reached = true;
            }
        }
    }

    /// Moves the end the test at `s` (configuration `self.mid`,
    /// overlapping pair `found`) replaces; whether it was the free end.
    fn update(&mut self, s: f64, found: Option<(usize, Other)>) -> bool {
        if let Some(pair) = found {
            self.hi = s;
            self.hit = pair;
            self.q_hi.copy_from_slice(&self.mid);
            false
        } else {
            self.lo = s;
            self.q_lo.copy_from_slice(&self.mid);
            true
        }
    }

    /// The contact found: the free end, and the links of the pair
    /// overlapping at the colliding end.
    fn finish(self) -> Projected {
        if self.reached {
            return Projected {
                q: self.q_hi,
                contact_links: None,
                reached: true,
                exhausted: false,
            };
        }
        let (link, other) = self.hit;
        Projected {
            q: self.q_lo,
            contact_links: Some((
                link,
                match other {
                    Other::Link(j) => Some(j),
                    Other::Obstacle(_) => None,
                },
            )),
            reached: false,
            exhausted: false,
        }
    }
}

/// Free candidates ranked by their straight projections, in the order
/// they were given (`index`), and the colliding-end tests at `q_in` their
/// searches share.
#[derive(Default)]
struct Ranking {
    done: Vec<RankedCandidate>,
    next_index: usize,
    /// The first overlapping pair at `q_in` by the pairs a search tests
    /// (its moving links and changed joints).
    targets: Vec<TargetTest>,
}

/// A search's test at its colliding end: the moving links and changed
/// joints that choose its pairs, and the first overlapping pair.
type TargetTest = (Vec<bool>, Vec<bool>, Option<(usize, Other)>);

/// A ranked free candidate.
struct RankedCandidate {
    value: f64,
    index: usize,
    q_f: Vec<f64>,
    how: FreeSelection,
    direction: Option<DVec3>,
}

impl Ranking {
    /// The index of the next candidate given.
    fn next(&mut self) -> usize {
        self.next_index += 1;
        self.next_index - 1
    }

    /// Ranks the candidate given `index`-th.
    fn insert(
        &mut self,
        value: f64,
        index: usize,
        q_f: Vec<f64>,
        how: FreeSelection,
        direction: Option<DVec3>,
    ) {
        self.done.push(RankedCandidate {
            value,
            index,
            q_f,
            how,
            direction,
        });
    }

    /// The translation direction of least value (the first given among
    /// equals), and that value.
    fn best_direction(&self) -> Option<(f64, DVec3)> {
        self.done
            .iter()
            .filter_map(|c| c.direction.map(|d| (c.value, c.index, d)))
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
            .map(|(v, _, d)| (v, d))
    }

    /// The candidates by value (the first given first among equals).
    fn into_sorted(mut self) -> Vec<(Vec<f64>, FreeSelection)> {
        self.done
            .sort_by(|a, b| a.value.total_cmp(&b.value).then(a.index.cmp(&b.index)));
        self.done.into_iter().map(|c| (c.q_f, c.how)).collect()
    }
}

/// A candidate whose ranking search is under way.
struct PendingRank {
    search: Search,
    q_f: Vec<f64>,
    /// `(c, C)` of [`NormFrame::segment_factors`] for the segment
    /// `q_f → q_in`.
    scale: Option<(f64, f64)>,
    index: usize,
    how: FreeSelection,
    direction: Option<DVec3>,
}

impl PendingRank {
    /// A lower bound on the value the search will end with (at its free
    /// end, `lo ≤ hi`): `(1 − hi)² c` (lowered by a relative `1e-9` for
    /// rounding) when the segment has factors, `0` otherwise.
    fn lower_bound(&self) -> f64 {
        self.scale.map_or(0.0, |(c, _)| {
            let rest = 1.0 - self.search.hi;
            c * rest * rest * (1.0 - 1e-9)
        })
    }

    /// An upper bound on the value the search will end with (its free end
    /// only moves towards `q_in`): `(1 − lo)² C` (raised by a relative
    /// `1e-9`) when the segment has factors, `+∞` otherwise.
    fn upper_bound(&self) -> f64 {
        self.scale.map_or(f64::INFINITY, |(_, upper)| {
            let rest = 1.0 - self.search.lo;
            upper * rest * rest * (1.0 + 1e-9)
        })
    }
}

/// A projection's end.
struct Projected {
    q: Vec<f64>,
    /// Links of the contact that stopped it (with the other link, if any).
    contact_links: Option<(usize, Option<usize>)>,
    /// Whether the target was reached without contact.
    reached: bool,
    /// Whether the query ran out of its budget before a contact (`q` is
    /// free but may not be in contact).
    exhausted: bool,
}

/// How many times a projection resumes a CCD query that ran out of its
/// budget.
const RESUMES: usize = 8;

/// Free candidates fully projected (the best by their straight
/// projection). Projecting the second best as well cost 7–12 % of the
/// discrete checks on the benchmark suite, and the mean norms differed by
/// at most 0.25 % either way: the constrained optimisation takes either
/// start to much the same contact.
const FULL_PROJECTIONS: usize = 1;

/// The precision of the straight projections that rank the free
/// candidates: a fraction of the remaining way to the target.
const RANKING_TRAVEL: f64 = 1.0 / 256.0;

/// Reverse samples of the moves that start far from their target (the
/// first move of a candidate's projection; the ranking takes
/// [`RANK_REVERSE`]),
/// whatever [`PdOptions::reverse_samples`] says: from afar, bisection
/// alone may stop at an entry into the contact space far from the target
/// (the far side of an obstacle), and the norm would be that of a long
/// way round.
const FAR_REVERSE: usize = 12;

/// Reverse samples of the ranking's searches: the nearest `1/8` of the
/// way from the target. Twelve, as a projection's first move takes, and
/// six found the same answers bit for bit on the benchmark suite (and 90
/// other Puma and hand queries) for about 1.45 and 1.1 times the
/// discrete checks: the ranking needs the contact's place to `1/256` of
/// the way, which bisection from a wider bracket gives as well. Three
/// did too; two changed a rigid answer.
const RANK_REVERSE: usize = 4;

/// Within this many half contact tolerances of travel, a bisection tests
/// whether its free end is already in contact.
const NEAR_TRAVEL: f64 = 16.0;

/// Tries of a constrained-optimisation step: the whole step, then halves.
const LINE_SEARCH: usize = 3;

/// The angles (radians) of the rings of directions around the best
/// constrained translation, and the directions per ring. A third ring at
/// 0.03 rad chose between values closer than the ranking resolves (the
/// contact tolerance); it cost 16–17 % of the discrete checks for no
/// better mean norm on the benchmark suite.
const REFINE_ANGLES: [f64; 2] = [0.3, 0.1];
const REFINE_RING: usize = 8;

/// Most passes of the greedy optimisation.
const GREEDY_PASSES: usize = 4;

/// PDg for one body among obstacles, prepared once for many queries (one
/// value per thread).
#[derive(Debug)]
pub struct PdSolver<'a> {
    body: &'a ArticulatedBody,
    checker: Checker<'a>,
    ccd: CcdScene<'a>,
    ccd_ws: CcdWorkspace,
    check_ws: CheckWorkspace,
    norm: ObjectNorm,
    curve: CurveLengthBounds,
    lambda: Vec<f64>,
    options: PdOptions,
    /// The last separating configuration (motion coherence).
    last: Option<Vec<f64>>,
    /// A self-collision-free configuration to fall back on.
    rest: Option<Vec<f64>>,
    /// The model's bounding radius (largest over links of the distance
    /// from the origin of the link's bounding sphere's far side, at
    /// `q = neutral`), the prismatic perturbation's scale.
    radius: f64,
}

impl<'a> PdSolver<'a> {
    /// Prepares `body` among static `obstacles`, never testing `disabled`
    /// pairs.
    ///
    /// # Errors
    /// [`PdError::InvalidOption`]; [`PdError::UnsupportedJoint`] and
    /// [`PdError::NoVolume`] from the object norm; [`PdError::Ccd`] and
    /// [`PdError::Geometry`] when the geometry cannot be prepared.
    pub fn new(
        body: &'a ArticulatedBody,
        obstacles: &'a [Obstacle],
        disabled: &DisabledPairs,
        options: &PdOptions,
    ) -> Result<Self, PdError> {
        options.validate()?;
        let norm = ObjectNorm::new(body)?;
        let checker = Checker::new(
            body,
            obstacles,
            disabled,
            options.self_collision,
            options.skip_adjacent,
        )?;
        let ccd = CcdScene::new(body, obstacles, disabled, &options.ccd())?;
        // A link without geometry moves no point: one point at its origin
        // keeps the bounds' tables total.
        let points: Vec<&[DVec3]> = body
            .links()
            .iter()
            .map(|g| g.as_ref().map_or(&[DVec3::ZERO][..], |g| g.mesh.vertices()))
            .collect();
        let curve = CurveLengthBounds::new(body.tree(), &points)?;
        let radius = body
            .links()
            .iter()
            .flatten()
            .map(|g| g.sphere.center.length() + g.sphere.radius)
            .fold(0.0, f64::max)
            .max(f64::MIN_POSITIVE);
        Ok(Self {
            body,
            checker,
            ccd,
            ccd_ws: CcdWorkspace::new(),
            check_ws: CheckWorkspace::new(),
            norm,
            lambda: vec![0.0; body.tree().len()],
            curve,
            options: *options,
            last: None,
            rest: None,
            radius,
        })
    }

    /// The options.
    #[must_use]
    pub const fn options(&self) -> &PdOptions {
        &self.options
    }

    /// The object norm of the model.
    #[must_use]
    pub const fn norm(&self) -> &ObjectNorm {
        &self.norm
    }

    /// The discrete queries.
    #[must_use]
    pub const fn checker(&self) -> &Checker<'a> {
        &self.checker
    }

    /// Sets the self-collision-free configuration used when a
    /// self-colliding input cannot be freed by perturbation (M5 §5.1: "a
    /// user-provided initial pose, e.g. a T-pose").
    ///
    /// # Errors
    /// [`PdError::Kinematics`] for a configuration of the wrong length or
    /// not finite.
    pub fn set_rest_configuration(&mut self, q: Option<&[f64]>) -> Result<(), PdError> {
        if let Some(q) = q {
            self.tree().validate_config(q)?;
        }
        self.rest = q.map(<[f64]>::to_vec);
        Ok(())
    }

    /// Forgets the last answer (motion coherence).
    pub fn clear_coherence(&mut self) {
        self.last = None;
    }

    fn tree(&self) -> &'a KinematicTree {
        self.body.tree()
    }

    /// PDg of the model at `q_in`; see the [module docs](self).
    ///
    /// # Errors
    /// [`PdError::Kinematics`] for a configuration of the wrong length or
    /// not finite; [`PdError::Ccd`] and [`PdError::Geometry`] when a query
    /// rejects the poses.
    pub fn penetration_depth(&mut self, q_in: &[f64]) -> Result<PdReport, PdError> {
        self.penetration_depth_from(q_in, None)
    }

    /// [`PdSolver::penetration_depth`] with a collision-free configuration
    /// near `q_in` to start from (motion coherence: the previous frame's
    /// free pose, the nearest free node of a planner's tree); ignored when
    /// it collides.
    ///
    /// # Errors
    /// As [`PdSolver::penetration_depth`]; the hint is validated too.
    pub fn penetration_depth_from(
        &mut self,
        q_in: &[f64],
        hint: Option<&[f64]>,
    ) -> Result<PdReport, PdError> {
        self.check_ws
            .set_reuse_apart_pairs(self.options.reuse_apart_pairs);
        let mut report = self.solve(q_in, hint, false)?;
        if report.status == PdStatus::NoFreeConfiguration {
            return Ok(report);
        }
        // The answer's configuration is confirmed free by a check of every
        // pair. A pair answered from a record was tested at the same
        // relative pose computed from other world poses, which may round
        // differently; and a step's re-projection is taken as free
        // without a check of its own (the free end of its search). Where
        // the confirmation fails, the query runs again testing every pair
        // and checking every step.
        self.check_ws.set_reuse_apart_pairs(false);
        let confirmed = self
            .checker
            .collides(&report.configuration, &mut self.check_ws)
            .and_then(|collides| {
                report.stats.discrete_checks += 1;
                if collides {
                    self.solve(q_in, hint, true)
                } else {
                    Ok(report)
                }
            });
        self.check_ws
            .set_reuse_apart_pairs(self.options.reuse_apart_pairs);
        confirmed
    }

    /// [`PdSolver::penetration_depth_from`] with the workspace's pair
    /// records as they are set. A step's re-projection ends at a free
    /// configuration by construction (the free end of a search); with
    /// `careful`, each is confirmed by a discrete check before it is
    /// taken (the run after a failed confirmation of the answer).
    fn solve(
        &mut self,
        q_in: &[f64],
        hint: Option<&[f64]>,
        careful: bool,
    ) -> Result<PdReport, PdError> {
        let tree = self.tree();
        tree.validate_config(q_in)?;
        if let Some(h) = hint {
            tree.validate_config(h)?;
        }
        let mut stats = PdStats::default();
        stats.discrete_checks += 1;
        if !self.checker.collides(q_in, &mut self.check_ws)? {
            let distance = self.distance(q_in)?;
            let mut contacts = Vec::new();
            self.checker.contacts(
                q_in,
                self.options.tolerance(),
                &mut contacts,
                &mut self.check_ws,
            )?;
            return Ok(PdReport {
                status: PdStatus::AlreadyFree,
                value: 0.0,
                configuration: q_in.to_vec(),
                iterations: 0,
                contacts,
                distance,
                selection: None,
                stats,
            });
        }
        let frame = self.norm.around(q_in)?;

        // 1–2. Free candidates, each projected; the least norm starts.
        let started = Instant::now();
        let candidates = self.free_candidates(q_in, hint, &mut stats)?;
        stats.free_candidates = candidates.list.len();
        stats.selection_time = started.elapsed();
        let started = Instant::now();
        // Each candidate is ranked by its straight projection towards
        // `q_in` (one move); the full projection (CCDg and the greedy
        // pass) runs from the best `FULL_PROJECTIONS` only.
        let Candidates { list, setup } = candidates;
        let mut ranking = Ranking::default();
        self.rank_batch(&frame, q_in, list, &mut ranking, &mut stats)?;
        // The best translation's direction refined: rings of directions
        // around it, narrowing (M5's maximally-clear choice, sampled).
        if let Some(setup) = setup
            && setup.axes.len() >= 2
        {
            for angle in REFINE_ANGLES {
                let Some(centre) = ranking.best_direction().map(|b| b.1) else {
                    break;
                };
                let (u, v) = centre.any_orthonormal_pair();
                let mut ring = Vec::with_capacity(REFINE_RING);
                for k in 0..REFINE_RING {
                    let phi = core::f64::consts::TAU * k as f64 / REFINE_RING as f64;
                    let d = (centre * angle.cos() + (u * phi.cos() + v * phi.sin()) * angle.sin())
                        .normalize();
                    if let Some(q_f) = self.translated_start(&setup, d, &mut stats)? {
                        ring.push((q_f, FreeSelection::ConstrainedTranslation, Some(d)));
                    }
                }
                self.rank_batch(&frame, q_in, ring, &mut ranking, &mut stats)?;
            }
        }
        let ranked = ranking.into_sorted();
        let mut best: Option<(f64, Vec<f64>, FreeSelection)> = None;
        for (q_f, how) in ranked.into_iter().take(FULL_PROJECTIONS) {
            let q_c = self.project(&q_f, q_in, &mut stats)?;
            let s = frame.norm(&q_c)?;
            if best.as_ref().is_none_or(|b| s < b.0) {
                best = Some((s, q_c, how));
            }
        }
        stats.projection_time += started.elapsed();
        let Some((mut sigma, mut q_c, how)) = best else {
            return Ok(PdReport {
                status: PdStatus::NoFreeConfiguration,
                value: f64::INFINITY,
                configuration: q_in.to_vec(),
                iterations: 0,
                contacts: Vec::new(),
                distance: 0.0,
                selection: None,
                stats,
            });
        };
        stats.projected_value = sigma;

        // 3–5. Constrained optimisation and re-projection. A step whose
        // re-projection does not lower the norm is halved (at most
        // `LINE_SEARCH` tries).
        let mut iterations = 0;
        let mut contacts = Vec::new();
        // Whether `contacts` holds every contact at `q_c` (the last
        // nearest-contact query there was not cut at its limit).
        let mut complete = false;
        let keep = 1.0 - self.options.min_improvement;
        let target = |sigma: f64| sigma * keep;
        for _ in 0..self.options.max_iterations {
            let started = Instant::now();
            self.checker.nearest_contacts(
                &q_c,
                self.options.tolerance(),
                self.options.max_contacts,
                &mut contacts,
                &mut self.check_ws,
            )?;
            complete = contacts.len() < self.options.max_contacts;
            let step = self.optimise(&frame, &q_c, &contacts, &mut stats)?;
            stats.optimisation_time += started.elapsed();
            let Some(step) = step else { break };
            let mut accepted = None;
            let mut fraction = 1.0;
            let mut q1 = vec![0.0; q_c.len()];
            for _ in 0..LINE_SEARCH {
                let q1 = step.at(&frame, self.tree(), fraction, &mut q1)?;
                fraction *= 0.5;
                if frame.norm(&q1)? >= target(sigma) {
                    continue;
                }
                let started = Instant::now();
                stats.discrete_checks += 1;
                let q2 = if self.checker.collides(&q1, &mut self.check_ws)? {
                    self.ccd_towards(&q_c, &q1, &mut stats)?.q
                } else if self.options.full_reprojection {
                    self.project(&q1, q_in, &mut stats)?
                } else {
                    self.ccd_towards(&q1, q_in, &mut stats)?.q
                };
                stats.projection_time += started.elapsed();
                let s2 = frame.norm(&q2)?;
                if s2 < target(sigma) {
                    if careful {
                        stats.discrete_checks += 1;
                        if self.checker.collides(&q2, &mut self.check_ws)? {
                            continue;
                        }
                    }
                    accepted = Some((s2, q2));
                    break;
                }
            }
            let Some((s2, q2)) = accepted else { break };
            sigma = s2;
            q_c = q2;
            complete = false;
            iterations += 1;
        }
        // The nearest contacts at the answer, when not cut at their limit,
        // are all of them, in `contacts`' order.
        if !complete {
            self.checker.contacts(
                &q_c,
                self.options.tolerance(),
                &mut contacts,
                &mut self.check_ws,
            )?;
        }
        // Every pair within the tolerance is among the contacts, closest
        // first: the nearest is the answer's distance.
        let distance = match contacts.first() {
            Some(c) => c.distance,
            None => self.distance(&q_c)?,
        };
        self.last = Some(q_c.clone());
        Ok(PdReport {
            status: PdStatus::Separated,
            value: sigma,
            configuration: q_c,
            iterations,
            contacts,
            distance,
            selection: Some(how),
            stats,
        })
    }

    /// The free starting configurations of step 1.
    fn free_candidates(
        &mut self,
        q_in: &[f64],
        hint: Option<&[f64]>,
        stats: &mut PdStats,
    ) -> Result<Candidates, PdError> {
        let mut out = Vec::new();
        let coherent: Vec<Vec<f64>> = hint
            .map(<[f64]>::to_vec)
            .into_iter()
            .chain(self.last.clone())
            .collect();
        for q in coherent {
            stats.discrete_checks += 1;
            if !self.checker.collides(&q, &mut self.check_ws)? {
                out.push((q, FreeSelection::MotionCoherence, None));
            }
        }
        if let Some(q) = self.successive_perturbation(q_in, stats)? {
            out.push((q, FreeSelection::SuccessivePerturbation, None));
        }
        let (translated, setup) = self.constrained_translations(q_in, stats)?;
        for (q, d) in translated {
            out.push((q, FreeSelection::ConstrainedTranslation, Some(d)));
        }
        Ok(Candidates { list: out, setup })
    }

    /// The smallest distance at `q`: the pairs within twice the tolerance
    /// first (a configuration in contact has one), all of them otherwise.
    fn distance(&mut self, q: &[f64]) -> Result<f64, PdError> {
        let near = self
            .checker
            .distance_below(q, 2.0 * self.options.tolerance(), &mut self.check_ws)?
            .0;
        if near.is_finite() {
            return Ok(near);
        }
        Ok(self.checker.distance(q, &mut self.check_ws)?.0)
    }

    /// Successive perturbation (M5 Alg. 1, with the preprocessing of nodes
    /// with several children); `None` when it fails.
    fn successive_perturbation(
        &mut self,
        q_in: &[f64],
        stats: &mut PdStats,
    ) -> Result<Option<Vec<f64>>, PdError> {
        let tree = self.tree();
        let n = tree.len();
        let mut colliding = self.colliding_links(q_in, stats)?;
        let mut q = q_in.to_vec();
        // The node whose joint is perturbed for a colliding link: the
        // nearest ancestor-or-self with a movable joint.
        let movable = |i: usize| tree.links()[i].joint().kind.dof() > 0;
        let branching = |i: usize| tree.links()[i].children().len() > 1;
        // Preprocessing: colliding nodes with several children, root side
        // first.
        let mut multi: Vec<usize> = (0..n).filter(|&i| colliding[i] && branching(i)).collect();
        multi.sort_by_key(|&i| tree.links()[i].depth());
        for i in multi {
            if !self.perturb(&mut q, i, stats)? {
                return Ok(None);
            }
        }
        colliding = self.colliding_links(&q, stats)?;
        let mut list: Vec<usize> = (0..n).filter(|&i| colliding[i]).collect();
        list.sort_by_key(|&i| core::cmp::Reverse(tree.links()[i].depth()));
        while let Some(&first) = list.first() {
            list.remove(0);
            // Still colliding? An earlier perturbation may have freed it.
            if !self.subtree_collides(&q, first, stats)? {
                continue;
            }
            let mut node = first;
            loop {
                if movable(node) && self.perturb(&mut q, node, stats)? {
                    break;
                }
                match tree.links()[node].parent() {
                    None => return Ok(None),
                    Some(p) => {
                        if branching(p) {
                            return Ok(None);
                        }
                        node = p;
                    }
                }
            }
        }
        stats.discrete_checks += 1;
        Ok((!self.checker.collides(&q, &mut self.check_ws)?).then_some(q))
    }

    /// Whether link `i` or a descendant is in an overlapping pair at `q`.
    fn subtree_collides(
        &mut self,
        q: &[f64],
        i: usize,
        stats: &mut PdStats,
    ) -> Result<bool, PdError> {
        let tree = self.tree();
        let inside = |k: usize| k == i || tree.ancestors(k).any(|a| a == i);
        let wanted = |l: usize, o: Other| inside(l) || matches!(o, Other::Link(j) if inside(j));
        stats.discrete_checks += 1;
        Ok(self
            .checker
            .first_overlap(q, wanted, &mut self.check_ws)?
            .is_some())
    }

    /// Perturbs link `i`'s joint by growing steps, both ways along each of
    /// its tangent directions, until `i` and its descendants are free;
    /// writes the first success into `q`.
    fn perturb(&mut self, q: &mut [f64], i: usize, stats: &mut PdStats) -> Result<bool, PdError> {
        let tree = self.tree();
        let joint = tree.links()[i].joint().clone();
        let dof = joint.kind.dof();
        if dof == 0 {
            return Ok(false);
        }
        let steps = self.options.perturbation_steps.max(1);
        let range = self.options.perturbation_range;
        let mut trial = q.to_vec();
        for k in 1..=steps {
            let size = range * 0.5_f64.powi(i32::try_from(steps - k).unwrap_or(i32::MAX));
            for axis in 0..dof {
                for sign in [1.0, -1.0] {
                    trial.copy_from_slice(q);
                    let translational = matches!(joint.kind, JointType::Prismatic { .. })
                        || (matches!(joint.kind, JointType::Floating) && axis < 3)
                        || (matches!(joint.kind, JointType::Planar { .. }) && axis < 2);
                    let step = if translational {
                        size * self.radius
                    } else {
                        size
                    };
                    retract(tree, &mut trial, i, axis, sign * step);
                    if !tree.within_limits(&trial) {
                        continue;
                    }
                    if !self.subtree_collides(&trial, i, stats)? {
                        q.copy_from_slice(&trial);
                        return Ok(true);
                    }
                }
            }
        }
        Ok(false)
    }

    /// The model's translational degrees of freedom: the translations of
    /// the root chain above every link with geometry.
    fn free_axes(&self, q_in: &[f64]) -> Result<Vec<FreeAxis>, PdError> {
        let tree = self.tree();
        let roots: Vec<usize> = (0..tree.len())
            .filter(|&i| tree.links()[i].parent().is_none())
            .collect();
        let mut axes = Vec::new();
        let [root] = roots[..] else { return Ok(axes) };
        let poses = tree.poses(q_in)?;
        let mut i = root;
        loop {
            let link = &tree.links()[i];
            let frame = match link.parent() {
                Some(p) => poses[p] * *link.origin(),
                None => *link.origin(),
            };
            let start = tree.q_range(i).start;
            match link.joint().kind {
                JointType::Prismatic { axis } => axes.push(FreeAxis {
                    q_index: start,
                    direction: frame.transform_vector3(axis).normalize(),
                }),
                JointType::Floating => {
                    for (k, e) in [DVec3::X, DVec3::Y, DVec3::Z].into_iter().enumerate() {
                        axes.push(FreeAxis {
                            q_index: start + k,
                            direction: frame.transform_vector3(e).normalize(),
                        });
                    }
                }
                JointType::Planar { normal } => {
                    let (u, v) = JointType::plane_axes(normal);
                    for (k, e) in [u, v].into_iter().enumerate() {
                        axes.push(FreeAxis {
                            q_index: start + k,
                            direction: frame.transform_vector3(e).normalize(),
                        });
                    }
                }
                _ => {}
            }
            let has_geometry = self.body.links()[i].is_some();
            match link.children() {
                [child] if !has_geometry => i = *child,
                _ => break,
            }
        }
        Ok(axes)
    }

    /// Constrained translation (M5 eq. 20) along the centroid difference,
    /// and along each free axis both ways when
    /// [`PdOptions::axis_translations`] is on; the free ones.
    fn constrained_translations(
        &mut self,
        q_in: &[f64],
        stats: &mut PdStats,
    ) -> Result<Translated, PdError> {
        let axes = self.free_axes(q_in)?;
        if axes.is_empty() {
            return Ok((Vec::new(), None));
        }
        // A self-colliding model moves rigidly from a self-collision-free
        // pose: the rest configuration, else the neutral one.
        let mut base = q_in.to_vec();
        if self.self_colliding(q_in, stats)? {
            let rest = match &self.rest {
                Some(r) => r.clone(),
                None => self.tree().neutral_configuration(),
            };
            let mut candidate = rest;
            for a in &axes {
                candidate[a.q_index] = q_in[a.q_index];
            }
            if self.self_colliding(&candidate, stats)? {
                return Ok((Vec::new(), None));
            }
            base = candidate;
        }
        let (o_a, r_a) = self.model_sphere(&base)?;
        let (o_b, r_b) = self.obstacle_sphere(q_in)?;
        let mut directions = Vec::new();
        let diff = o_a - o_b;
        if diff.length() > 0.0 {
            directions.push(diff / diff.length());
        }
        if self.options.axis_translations {
            // The free axes both ways, and their pairwise and threefold
            // diagonals (the 26 directions of a cube for three axes).
            let n = axes.len().min(3);
            for code in 1..3_i32.pow(u32::try_from(n).unwrap_or(3)) {
                // Base-3 digits of `code` as signs −1, 0, 1 per axis.
                let mut rest = code;
                let mut d = DVec3::ZERO;
                for a in &axes[..n] {
                    d += a.direction * f64::from(rest % 3 - 1);
                    rest /= 3;
                }
                if let Some(d) = d.try_normalize() {
                    directions.push(d);
                }
            }
        }
        let setup = TranslationSetup {
            base,
            axes,
            reach: r_a + r_b,
        };
        let mut out = Vec::new();
        for d in directions {
            if let Some(q) = self.translated_start(&setup, d, stats)? {
                out.push((q, d));
            }
        }
        Ok((out, Some(setup)))
    }

    /// The model translated from the setup's base along `d` by its reach,
    /// doubled while it collides (at most four tries), shortened to the
    /// joint limits; `None` when no try is free.
    fn translated_start(
        &mut self,
        setup: &TranslationSetup,
        d: DVec3,
        stats: &mut PdStats,
    ) -> Result<Option<Vec<f64>>, PdError> {
        // The longest translation along `d` within the joint limits: a base
        // that can only go so far is tried as far as it goes, in the same
        // direction.
        let tree = self.tree();
        let mut longest = f64::INFINITY;
        for a in &setup.axes {
            let rate = d.dot(a.direction);
            let Some(limits) = joint_limits_of(tree, a.q_index) else {
                continue;
            };
            let q = setup.base[a.q_index];
            let room = if rate > 0.0 {
                (limits.1 - q) / rate
            } else if rate < 0.0 {
                (limits.0 - q) / rate
            } else {
                f64::INFINITY
            };
            longest = longest.min(room.max(0.0));
        }
        let mut length = setup.reach;
        for _ in 0..4 {
            let capped = length >= longest;
            let step = length.min(longest * (1.0 - 1e-9));
            if step.is_nan() || step <= 0.0 {
                break;
            }
            let q = translate(&setup.base, &setup.axes, d * step);
            stats.discrete_checks += 1;
            if !self.checker.collides(&q, &mut self.check_ws)? {
                return Ok(Some(q));
            }
            if capped {
                break;
            }
            length *= 2.0;
        }
        Ok(None)
    }

    /// The straight projection of the free `q_f` towards `q_in` that ranks
    /// candidates (coarse, from the far end back), and its norm.
    fn rank(
        &mut self,
        frame: &NormFrame,
        q_f: &[f64],
        q_in: &[f64],
        stats: &mut PdStats,
    ) -> Result<f64, PdError> {
        let q = if self.options.projection == Projection::Bisection {
            self.bisect_to(q_f, q_in, RANKING_TRAVEL, RANK_REVERSE, stats)?
                .q
        } else {
            self.ccd_towards(q_f, q_in, stats)?.q
        };
        frame.norm(&q)
    }

    /// Ranks `batch` (free candidates, how each was found, and the
    /// direction of a translation) into `ranking` by their straight
    /// projections towards `q_in` ([`PdSolver::rank`]), leaving out
    /// candidates that cannot be among the best [`FULL_PROJECTIONS`] nor
    /// the best direction. The searches advance a step at a time, the one
    /// with the least lower bound first: where the norm shrinks at least
    /// as `(1 − s)²` along the segment, `σ(q(s)) ≥ (1 − s)² c`
    /// ([`NormFrame::segment_factors`]), a search whose colliding end has
    /// come back to `hi` will rank at least `(1 − hi)² c`; other
    /// candidates are ranked in full. The candidates ranked, and their
    /// values, are those a full ranking of each would give.
    fn rank_batch(
        &mut self,
        frame: &NormFrame,
        q_in: &[f64],
        batch: Vec<(Vec<f64>, FreeSelection, Option<DVec3>)>,
        ranking: &mut Ranking,
        stats: &mut PdStats,
    ) -> Result<(), PdError> {
        if self.options.projection != Projection::Bisection || self.options.exhaustive_ranking {
            for (q_f, how, direction) in batch {
                let value = self.rank(frame, &q_f, q_in, stats)?;
                let index = ranking.next();
                ranking.insert(value, index, q_f, how, direction);
            }
            return Ok(());
        }
        let mut pending = Vec::with_capacity(batch.len());
        for (q_f, how, direction) in batch {
            let mut search = Search::new(self.tree(), &q_f, q_in, RANKING_TRAVEL, RANK_REVERSE)?;
            // Every search ends at `q_in`: one test there answers all
            // that test the same pairs.
            let known = ranking
                .targets
                .iter()
                .find(|t| t.0 == search.moving && t.1 == search.changed)
                .map(|t| t.2);
            let found = match known {
                Some(found) => found,
                None => {
                    let found = self.search_target(&search, stats)?;
                    ranking
                        .targets
                        .push((search.moving.clone(), search.changed.clone(), found));
                    found
                }
            };
            search.open(found);
            let scale = frame.segment_factors(&q_f)?;
            let index = ranking.next();
            pending.push(PendingRank {
                search,
                q_f,
                scale,
                index,
                how,
                direction,
            });
        }
        let mut values = Vec::with_capacity(ranking.done.len() + pending.len());
        loop {
            // Ended searches are ranked; the others are dropped once they
            // cannot matter.
            let mut k = 0;
            while k < pending.len() {
                if pending[k].search.done {
                    let PendingRank {
                        search,
                        q_f,
                        index,
                        how,
                        direction,
                        ..
                    } = pending.swap_remove(k);
                    let value = frame.norm(&search.finish().q)?;
                    ranking.insert(value, index, q_f, how, direction);
                } else {
                    k += 1;
                }
            }
            // The values ranked and the upper bounds of those under way:
            // the `FULL_PROJECTIONS`-th least of them is at least the
            // final one, and the least directional one at least the best
            // direction's value.
            values.clear();
            values.extend(ranking.done.iter().map(|c| c.value));
            values.extend(pending.iter().map(PendingRank::upper_bound));
            values.sort_by(f64::total_cmp);
            let kth = values
                .get(FULL_PROJECTIONS - 1)
                .copied()
                .unwrap_or(f64::INFINITY);
            let best = ranking
                .best_direction()
                .map(|b| b.0)
                .into_iter()
                .chain(
                    pending
                        .iter()
                        .filter(|p| p.direction.is_some())
                        .map(PendingRank::upper_bound),
                )
                .min_by(f64::total_cmp);
            pending.retain(|p| {
                let lower = p.lower_bound();
                let out_of_top = lower > kth;
                let not_best = p.direction.is_none() || best.is_some_and(|b| lower > b);
                !(out_of_top && not_best)
            });
            let Some(next) = pending.iter_mut().min_by(|a, b| {
                a.lower_bound()
                    .total_cmp(&b.lower_bound())
                    .then(a.index.cmp(&b.index))
            }) else {
                return Ok(());
            };
            self.search_step(&mut next.search, stats)?;
        }
    }

    /// Whether some link–link pair overlaps at `q`.
    fn self_colliding(&mut self, q: &[f64], stats: &mut PdStats) -> Result<bool, PdError> {
        stats.discrete_checks += 1;
        Ok(self
            .checker
            .first_overlap(q, |_, o| matches!(o, Other::Link(_)), &mut self.check_ws)?
            .is_some())
    }

    /// One flag per link: whether it is in an overlapping pair at `q`.
    fn colliding_links(&mut self, q: &[f64], stats: &mut PdStats) -> Result<Vec<bool>, PdError> {
        stats.discrete_checks += 1;
        let mut pairs = Vec::new();
        self.checker
            .overlapping_pairs(q, &mut pairs, &mut self.check_ws)?;
        let mut flags = vec![false; self.tree().len()];
        for (l, o) in pairs {
            flags[l] = true;
            if let Other::Link(j) = o {
                flags[j] = true;
            }
        }
        Ok(flags)
    }

    /// The model's centroid (volume-weighted) and bounding radius at `q`.
    fn model_sphere(&self, q: &[f64]) -> Result<(DVec3, f64), PdError> {
        let poses = self.tree().poses(q)?;
        let mut centre = DVec3::ZERO;
        let mut volume = 0.0;
        for (i, pose) in poses.iter().enumerate() {
            if let Some(m) = self.norm.link_mass(i) {
                centre += pose.transform_point3(m.centroid) * m.volume;
                volume += m.volume;
            }
        }
        let centre = if volume > 0.0 {
            centre / volume
        } else {
            DVec3::ZERO
        };
        let radius = self
            .body
            .links()
            .iter()
            .zip(&poses)
            .filter_map(|(g, p)| g.as_ref().map(|g| (g, p)))
            .map(|(g, p)| (p.transform_point3(g.sphere.center) - centre).length() + g.sphere.radius)
            .fold(0.0, f64::max);
        Ok((centre, radius))
    }

    /// The centre and radius of a ball around the obstacles the model
    /// overlaps at `q_in` (all obstacles when it overlaps none, e.g. only
    /// itself).
    fn obstacle_sphere(&mut self, q_in: &[f64]) -> Result<(DVec3, f64), PdError> {
        let obstacles = self.checker.obstacles();
        let mut hit = vec![false; obstacles.len()];
        let mut pairs = Vec::new();
        self.checker
            .overlapping_pairs(q_in, &mut pairs, &mut self.check_ws)?;
        for (_, other) in pairs {
            if let Other::Obstacle(o) = other {
                hit[o] = true;
            }
        }
        let any = hit.iter().any(|&h| h);
        let mut lo = DVec3::INFINITY;
        let mut hi = DVec3::NEG_INFINITY;
        for (o, obstacle) in obstacles.iter().enumerate() {
            if any && !hit[o] {
                continue;
            }
            let b = obstacle.world_aabb()?;
            lo = lo.min(b.min);
            hi = hi.max(b.max);
        }
        if !lo.is_finite() || !hi.is_finite() {
            return Ok((DVec3::ZERO, 0.0));
        }
        Ok(((lo + hi) * 0.5, (hi - lo).length() * 0.5))
    }

    /// Contact-space projection of the free `q_f` towards `q_in` (step 2).
    fn project(
        &mut self,
        q_f: &[f64],
        q_in: &[f64],
        stats: &mut PdStats,
    ) -> Result<Vec<f64>, PdError> {
        let tree = self.tree();
        let mut q = q_f.to_vec();
        // Rigid start: the root chain's rotations to the target's.
        let mut turned = q.clone();
        let mut changed = false;
        for i in 0..tree.len() {
            let r = tree.q_range(i);
            match tree.links()[i].joint().kind {
                JointType::Floating => {
                    turned[r.start + 3..r.end].copy_from_slice(&q_in[r.start + 3..r.end]);
                    changed = true;
                }
                JointType::Planar { .. } => {
                    turned[r.start + 2] = q_in[r.start + 2];
                    changed = true;
                }
                _ => {}
            }
        }
        if changed && turned != q {
            stats.discrete_checks += 1;
            if !self.checker.collides(&turned, &mut self.check_ws)? {
                q = turned;
            }
        }
        // CCDg (Alg. 2, lines 1–6).
        let movable: Vec<usize> = (0..tree.len())
            .filter(|&i| tree.links()[i].joint().kind.dof() > 0)
            .collect();
        let mut active = vec![false; tree.len()];
        for &i in &movable {
            active[i] = true;
        }
        let mut first = true;
        loop {
            let mut target = q.clone();
            let mut any = false;
            for &i in &movable {
                if active[i] {
                    let r = tree.q_range(i);
                    if target[r.clone()] != q_in[r.clone()] {
                        any = true;
                    }
                    target[r.clone()].copy_from_slice(&q_in[r]);
                }
            }
            if !any {
                break;
            }
            // The first move comes from afar (a free candidate): the
            // contact nearest the target is searched from its end back.
            let p = if first && self.options.projection == Projection::Bisection {
                self.bisect_to(&q, &target, 0.0, FAR_REVERSE, stats)?
            } else {
                self.ccd_towards(&q, &target, stats)?
            };
            first = false;
            q = p.q;
            if p.reached {
                break;
            }
            let mut removed = false;
            let (a, b) = p.contact_links.unwrap_or((usize::MAX, None));
            for l in [Some(a), b].into_iter().flatten() {
                if l == usize::MAX {
                    continue;
                }
                for k in core::iter::once(l).chain(tree.ancestors(l)) {
                    if active[k] {
                        active[k] = false;
                        removed = true;
                    }
                }
            }
            if !removed {
                break;
            }
        }
        // Greedy optimisation (lines 7–14): each joint alone, root first.
        // A joint that reaches its target can carry the link of an earlier
        // contact away from it; the pass then repeats (at most
        // `GREEDY_PASSES` times) until the last joint moved stops in
        // contact.
        let mut order = movable;
        order.sort_by_key(|&i| tree.links()[i].depth());
        for _ in 0..GREEDY_PASSES {
            let mut in_contact = false;
            let mut moved = false;
            for &i in &order {
                let r = tree.q_range(i);
                if q[r.clone()] == q_in[r.clone()] {
                    continue;
                }
                let mut target = q.clone();
                target[r.clone()].copy_from_slice(&q_in[r]);
                let p = self.ccd_towards(&q, &target, stats)?;
                if p.q != q {
                    moved = true;
                    in_contact = !p.reached;
                }
                q = p.q;
            }
            if in_contact || !moved {
                break;
            }
        }
        Ok(q)
    }

    /// The first contact from the free `q0` towards `q1` (forward CCD, and
    /// the reverse pass when on): the contact configuration nearer `q1`.
    fn ccd_towards(
        &mut self,
        q0: &[f64],
        q1: &[f64],
        stats: &mut PdStats,
    ) -> Result<Projected, PdError> {
        if self.options.projection == Projection::Bisection {
            return self.bisect(q0, q1, stats);
        }
        let forward = self.ccd_once(q0, q1, stats)?;
        if forward.reached || self.options.reverse_samples == 0 {
            return Ok(forward);
        }
        // Reverse pass: from the in-collision end back, at distances
        // growing geometrically (1/2ⁿ⁻¹, …, 1/4, 1/2 of the way), the first
        // free sample beyond the forward contact, projected forward again.
        let tree = self.tree();
        let motion = JointSpaceMotion::new(tree, q0, q1)?;
        let n = self.options.reverse_samples;
        let toc = forward_time(q0, q1, &forward.q);
        let mut sample = vec![0.0; q0.len()];
        for k in (1..n).rev() {
            let s = 1.0 - 0.5_f64.powi(i32::try_from(k).unwrap_or(i32::MAX));
            if s <= toc {
                break;
            }
            motion.config_at(tree, s, &mut sample)?;
            stats.discrete_checks += 1;
            if !self.checker.collides(&sample, &mut self.check_ws)? {
                return self.ccd_once(&sample, q1, stats);
            }
        }
        Ok(forward)
    }

    /// One CCD query from `q0` towards `q1`; a query that runs out of its
    /// iteration budget resumes from where it stopped, up to
    /// [`RESUMES`] times (gliding motions near contact take many short
    /// steps).
    fn ccd_once(
        &mut self,
        q0: &[f64],
        q1: &[f64],
        stats: &mut PdStats,
    ) -> Result<Projected, PdError> {
        if self.options.projection == Projection::Bisection {
            // No reverse pass: a single projection from `q0`.
            return self.bisect_to(q0, q1, 0.0, 0, stats);
        }
        let mut p = self.ccd_single(q0, q1, stats)?;
        for _ in 0..RESUMES {
            if !p.exhausted {
                break;
            }
            let next = self.ccd_single(&p.q, q1, stats)?;
            if next.q == p.q {
                break;
            }
            p = next;
        }
        Ok(p)
    }

    /// A contact on the segment from the free `q0` to `q1` by bisection
    /// ([`Projection::Bisection`]). With reverse projection on, the
    /// bracket is first searched from the colliding end back, at
    /// `1/2ᵏ` of the way (`k = n − 1, …, 1`), so the contact found is
    /// near `q1`; only pairs with a link that moves on the segment are
    /// tested (the others keep their state at the free `q0`).
    fn bisect(
        &mut self,
        q0: &[f64],
        q1: &[f64],
        stats: &mut PdStats,
    ) -> Result<Projected, PdError> {
        self.bisect_to(q0, q1, 0.0, self.options.reverse_samples, stats)
    }

    /// [`PdSolver::bisect`] stopped once the bracket is within `coarse`
    /// of the free end's remaining way to the target (`0`: at the contact
    /// tolerance): a cheap estimate of where the segment meets the contact
    /// space, for ranking, precise relative to the depth it measures.
    fn bisect_to(
        &mut self,
        q0: &[f64],
        q1: &[f64],
        coarse: f64,
        reverse: usize,
        stats: &mut PdStats,
    ) -> Result<Projected, PdError> {
        let mut search = Search::new(self.tree(), q0, q1, coarse, reverse)?;
        let found = self.search_target(&search, stats)?;
        search.open(found);
        while !search.done {
            self.search_step(&mut search, stats)?;
        }
        Ok(search.finish())
    }

    /// The test at a search's colliding end: the first overlapping pair
    /// the search wants there.
    fn search_target(
        &mut self,
        search: &Search,
        stats: &mut PdStats,
    ) -> Result<Option<(usize, Other)>, PdError> {
        let tree = self.tree();
        stats.discrete_checks += 1;
        self.checker.first_overlap(
            search.motion.end(),
            |l, o| search.wanted(tree, l, o),
            &mut self.check_ws,
        )
    }

    /// One step of an open search: a reverse sample, or one halving of the
    /// bracket (with the tests that may end it first).
    fn search_step(&mut self, s: &mut Search, stats: &mut PdStats) -> Result<(), PdError> {
        let tree = self.tree();
        if s.reverse > 0 {
            let k = s.reverse;
            let t = 1.0 - 0.5_f64.powi(i32::try_from(k).unwrap_or(i32::MAX));
            s.motion.config_at(tree, t, &mut s.mid)?;
            stats.discrete_checks += 1;
            // Near the colliding end, the pair seen there likely overlaps
            // again: it is tried first.
            let found = self.checker.first_overlap_from(
                &s.mid,
                Some(s.hit),
                |l, o| s.wanted(tree, l, o),
                &mut self.check_ws,
            )?;
            let free = s.update(t, found);
            s.reverse = if free { 0 } else { k - 1 };
            return Ok(());
        }
        // Each halving at least halves the bound, which is finite: the
        // search ends; the cap only guards against rounding stalls.
        if s.halvings >= 64 {
            s.done = true;
            return Ok(());
        }
        s.halvings += 1;
        let half = 0.5 * self.options.tolerance();
        self.curve.lambda_all(&s.q_lo, &s.q_hi, &mut self.lambda)?;
        let travel = self.lambda.iter().fold(0.0_f64, |m, &l| m.max(l));
        if travel <= half || s.hi - s.lo <= f64::EPSILON {
            s.done = true;
            return Ok(());
        }
        // Ranking: the contact's place relative to the target is known to
        // `coarse` of its remaining way there.
        if s.coarse > 0.0 && s.hi - s.lo <= s.coarse * (1.0 - s.lo) {
            s.done = true;
            return Ok(());
        }
        // The pair that overlaps at the colliding end is within its own
        // relative travel of touching at the free end (M2's relative
        // bound: only the joints between its members count).
        if s.coarse == 0.0 && s.lo > 0.0 {
            let (link, other) = s.hit;
            let pair_travel = match other {
                Other::Obstacle(_) => self.lambda[link],
                Other::Link(b) => self.curve.lambda_relative(link, b, &s.q_lo, &s.q_hi)?,
            };
            if pair_travel <= 2.0 * half {
                s.done = true;
                return Ok(());
            }
        }
        // The travel bound overestimates the motion: near the end, the
        // free end may already be in contact with the pair the colliding
        // end shows.
        if s.coarse == 0.0 && s.lo > 0.0 && travel <= NEAR_TRAVEL * half {
            let (link, other) = s.hit;
            stats.discrete_checks += 1;
            if self.checker.pair_within(
                &s.q_lo,
                link,
                other,
                self.options.tolerance(),
                &mut self.check_ws,
            )? {
                s.done = true;
                return Ok(());
            }
        }
        let m = 0.5 * (s.lo + s.hi);
        s.motion.config_at(tree, m, &mut s.mid)?;
        stats.discrete_checks += 1;
        // The pair seen at the colliding end likely overlaps again: it is
        // tried first (a triangle test where its last meeting pair still
        // meets), and the pairs before it in order are then not tested.
        // A projection stops the links of whichever overlapping pair it
        // ends with: any of them is a contact of the segment.
        let found = self.checker.first_overlap_from(
            &s.mid,
            Some(s.hit),
            |l, o| s.wanted(tree, l, o),
            &mut self.check_ws,
        )?;
        s.update(m, found);
        Ok(())
    }

    /// One CCD query from `q0` towards `q1`, no resume.
    fn ccd_single(
        &mut self,
        q0: &[f64],
        q1: &[f64],
        stats: &mut PdStats,
    ) -> Result<Projected, PdError> {
        stats.ccd_calls += 1;
        let report = self.ccd.first_contact(q0, q1, &mut self.ccd_ws)?;
        let tree = self.tree();
        let at = |t: f64| -> Result<Vec<f64>, PdError> {
            let mut q = vec![0.0; q0.len()];
            JointSpaceMotion::new(tree, q0, q1)?.config_at(tree, t, &mut q)?;
            Ok(q)
        };
        Ok(match report.status {
            CcdStatus::Free => Projected {
                q: q1.to_vec(),
                contact_links: None,
                reached: true,
                exhausted: false,
            },
            CcdStatus::Collides => {
                let c = report.contact.as_ref();
                let links = c.map(|c| {
                    (
                        c.link,
                        match c.other {
                            Other::Link(j) => Some(j),
                            Other::Obstacle(_) => None,
                        },
                    )
                });
                Projected {
                    q: at(report.toc_lower_bound)?,
                    contact_links: links,
                    reached: false,
                    exhausted: false,
                }
            }
            CcdStatus::BudgetExhausted => Projected {
                q: at(report.toc_lower_bound)?,
                contact_links: None,
                reached: false,
                exhausted: true,
            },
            CcdStatus::CollidingAtStart => Projected {
                q: q0.to_vec(),
                contact_links: report.contact.map(|c| {
                    (
                        c.link,
                        match c.other {
                            Other::Link(j) => Some(j),
                            Other::Obstacle(_) => None,
                        },
                    )
                }),
                reached: false,
                exhausted: false,
            },
        })
    }

    /// One constrained optimisation on the linearised local contact space
    /// at `q_c` (step 3); `None` when there is no contact to linearise.
    fn optimise(
        &mut self,
        frame: &NormFrame,
        q_c: &[f64],
        contacts: &[ContactPoint],
        stats: &mut PdStats,
    ) -> Result<Option<Step>, PdError> {
        let tree = self.tree();
        if contacts.is_empty() {
            return Ok(None);
        }
        let dof = tree.dof();
        let nx = frame.nx();
        let m = contacts.len();
        stats.contact_rows += m;
        let poses = tree.poses(q_c)?;
        // C (m × dof): nᵀ (J_a − J_b).
        let mut c = vec![0.0; m * dof];
        let mut jac = vec![DVec3::ZERO; dof];
        for (row, contact) in contacts.iter().enumerate() {
            let r = &mut c[row * dof..(row + 1) * dof];
            let local = poses[contact.link]
                .inverse()
                .transform_point3(contact.point_a);
            tree.point_jacobian(q_c, &poses, contact.link, local, &mut jac)?;
            for (x, j) in r.iter_mut().zip(&jac) {
                *x += contact.normal.dot(*j);
            }
            if let Other::Link(b) = contact.other {
                let local = poses[b].inverse().transform_point3(contact.point_b);
                tree.point_jacobian(q_c, &poses, b, local, &mut jac)?;
                for (x, j) in r.iter_mut().zip(&jac) {
                    *x -= contact.normal.dot(*j);
                }
            }
        }
        // C′ = C T (m × nx).
        let mut t = vec![0.0; dof * nx];
        match frame.tangent_from_x(q_c, &mut t) {
            Ok(()) => {}
            // A half turn from the input: the chart is singular there, so
            // this configuration cannot be improved by linearisation.
            Err(PdError::OutsideChart { .. }) => return Ok(None),
            Err(e) => return Err(e),
        }
        let mut cp = vec![0.0; m * nx];
        for row in 0..m {
            for k in 0..dof {
                let v = c[row * dof + k];
                if v == 0.0 {
                    continue;
                }
                for j in 0..nx {
                    cp[row * nx + j] += v * t[k * nx + j];
                }
            }
        }
        // H⁻¹C′ᵀ, stored by contact (row `r` is column `r` of the
        // nx × m matrix), A = C′H⁻¹C′ᵀ, b = C′X_c − g (g the pairs'
        // distances: each row is its pair's distance to first order).
        let mut hc = vec![0.0; m * nx];
        for (cp_row, hc_row) in cp.chunks_exact(nx).zip(hc.chunks_exact_mut(nx)) {
            frame.apply_h_inverse(cp_row, hc_row);
        }
        // A is symmetric (H⁻¹ is): each entry is computed once, above the
        // diagonal, and mirrored, so the solver sees an exactly symmetric
        // matrix.
        let mut a = vec![0.0; m * m];
        for r in 0..m {
            let cp_row = &cp[r * nx..(r + 1) * nx];
            for c in r..m {
                let v = dot(cp_row, &hc[c * nx..(c + 1) * nx]);
                a[r * m + c] = v;
                a[c * m + r] = v;
            }
        }
        let mut x_c = vec![0.0; nx];
        frame.to_x(q_c, &mut x_c)?;
        let b: Vec<f64> = cp
            .chunks_exact(nx)
            .zip(contacts)
            .map(|(row, contact)| {
                row.iter().zip(&x_c).map(|(c, x)| c * x).sum::<f64>() - contact.distance.max(0.0)
            })
            .collect();
        let mut lambda = vec![0.0; m];
        let polish = match self.options.lcp {
            LcpSolver::ActiveSet => {
                let report = solve_active_set(&a, &b, &mut lambda, self.options.pgs.tolerance);
                stats.lcp_pivots += report.pivots;
                !report.converged
            }
            LcpSolver::Pgs => true,
        };
        if polish {
            let report = solve_pgs(&a, &b, &mut lambda, &self.options.pgs);
            stats.pgs_iterations += report.iterations;
        }
        let x_star: Vec<f64> = (0..nx)
            .map(|j| (0..m).map(|r| hc[r * nx + j] * lambda[r]).sum())
            .collect();
        // The unit-quaternion (and |2 sin(Δ/2)| ≤ 2) adjustment.
        let dx: Vec<f64> = x_star.iter().zip(&x_c).map(|(s, c)| s - c).collect();
        // Just inside the domain: its boundary (a half turn) is where the
        // next linearisation would be singular.
        let w = frame.max_step_in_domain(&x_c, &dx) * (1.0 - 1e-6);
        if w.is_nan() || w <= 0.0 {
            return Ok(None);
        }
        Ok(Some(Step { x_c, dx, w }))
    }

    /// The translational depth along `directions` (world; each projected
    /// on the model's free axes): for each, the model is translated from
    /// `q_in` along it until free (doubling from `r_A + r_B`) and moved
    /// back towards `q_in` until contact by the [`PdOptions::projection`]
    /// in use; the shortest. `None` when the model has
    /// no translational degree of freedom or no direction frees it.
    ///
    /// # Errors
    /// As [`PdSolver::penetration_depth`].
    pub fn translational_depth(
        &mut self,
        q_in: &[f64],
        directions: &[DVec3],
    ) -> Result<Option<TranslationalDepth>, PdError> {
        self.tree().validate_config(q_in)?;
        let axes = self.free_axes(q_in)?;
        if axes.is_empty() {
            return Ok(None);
        }
        let mut stats = PdStats::default();
        let (_, r_a) = self.model_sphere(q_in)?;
        let (_, r_b) = self.obstacle_sphere(q_in)?;
        let mut best: Option<TranslationalDepth> = None;
        for &d in directions {
            let Some(d) = d.try_normalize() else { continue };
            let mut scale = 1.0;
            for _ in 0..6 {
                let far = translate(q_in, &axes, d * (r_a + r_b) * scale);
                if !self.tree().within_limits(&far) {
                    break;
                }
                if !self.checker.collides(&far, &mut self.check_ws)? {
                    let p = self.ccd_once(&far, q_in, &mut stats)?;
                    let moved: DVec3 = axes
                        .iter()
                        .map(|a| a.direction * (p.q[a.q_index] - q_in[a.q_index]))
                        .sum();
                    let depth = moved.length();
                    if best.as_ref().is_none_or(|b| depth < b.depth) {
                        best = Some(TranslationalDepth {
                            depth,
                            direction: d,
                            configuration: p.q,
                        });
                    }
                    break;
                }
                scale *= 2.0;
            }
        }
        Ok(best)
    }
}

/// Per link, whether it moves on the segment `q0 → q1`: some joint on its
/// chain changes value.
fn moving_links(tree: &KinematicTree, q0: &[f64], q1: &[f64]) -> Vec<bool> {
    let mut out = vec![false; tree.len()];
    for (i, link) in tree.links().iter().enumerate() {
        let r = tree.q_range(i);
        let own = q0[r.clone()] != q1[r];
        // Parents come before children in tree order.
        out[i] = own || link.parent().is_some_and(|p| out[p]);
    }
    out
}

/// The dot product of two equally long slices, summed in four lanes (the
/// additions of one lane do not wait for the others').
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut lanes = [0.0; 4];
    let (a4, b4) = (a.chunks_exact(4), b.chunks_exact(4));
    let tail: f64 = a4
        .remainder()
        .iter()
        .zip(b4.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in a4.zip(b4) {
        for k in 0..4 {
            lanes[k] += x[k] * y[k];
        }
    }
    (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]) + tail
}

/// The limits of configuration value `k` when it belongs to a limited
/// one-value joint.
fn joint_limits_of(tree: &KinematicTree, k: usize) -> Option<(f64, f64)> {
    let i = (0..tree.len()).find(|&i| tree.q_range(i).contains(&k))?;
    let joint = tree.links()[i].joint();
    (joint.kind.nq() == 1)
        .then_some(joint.limits)
        .flatten()
        .map(|l| (l.lower, l.upper))
}

/// `q` with the model translated by `t` (world) through its free axes.
fn translate(q: &[f64], axes: &[FreeAxis], t: DVec3) -> Vec<f64> {
    let mut out = q.to_vec();
    for a in axes {
        out[a.q_index] += t.dot(a.direction);
    }
    out
}

/// Moves link `i`'s joint by `step` along its tangent direction `axis`
/// (as [`KinematicTree::point_jacobian`] orders them).
fn retract(tree: &KinematicTree, q: &mut [f64], i: usize, axis: usize, step: f64) {
    let r = tree.q_range(i);
    let v = &mut q[r];
    match tree.links()[i].joint().kind {
        JointType::Spherical | JointType::OrientationUncertain { .. } => {
            turn(&mut v[0..4], axis, step);
        }
        JointType::Floating => {
            if axis < 3 {
                v[axis] += step;
            } else {
                turn(&mut v[3..7], axis - 3, step);
            }
        }
        _ => {
            if let Some(x) = v.get_mut(axis) {
                *x += step;
            }
        }
    }
}

/// Turns the quaternion `(x, y, z, w)` by `angle` about joint-frame axis
/// `axis` applied after it (`q ← exp(ω/2) ⊗ q`).
fn turn(v: &mut [f64], axis: usize, angle: f64) {
    let e = [DVec3::X, DVec3::Y, DVec3::Z][axis.min(2)];
    let q = DQuat::from_xyzw(v[0], v[1], v[2], v[3]).normalize();
    let r = (DQuat::from_axis_angle(e, angle) * q).normalize();
    v.copy_from_slice(&[r.x, r.y, r.z, r.w]);
}

/// The parameter of `q` on the segment `q0 → q1` (by the largest joint
/// change), for comparing where projections stopped.
fn forward_time(q0: &[f64], q1: &[f64], q: &[f64]) -> f64 {
    let mut best = (0.0, 0.0);
    for ((a, b), x) in q0.iter().zip(q1).zip(q) {
        let span = (b - a).abs();
        if span > best.0 {
            best = (span, (x - a) / (b - a));
        }
    }
    best.1.clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use armature_bvh_geometry::{Tessellation, TriMesh};
    use armature_kinematics::{Joint, LinkSpec};
    use glam::DAffine3;

    use super::*;

    fn cuboid(size: DVec3, centre: DVec3) -> Arc<TriMesh> {
        Arc::new(
            Tessellation::default()
                .cuboid(size)
                .unwrap()
                .transformed(&DAffine3::from_translation(centre))
                .unwrap(),
        )
    }

    /// A floating block with three links that fold back onto it.
    fn arm() -> ArticulatedBody {
        let link = |len: f64| {
            Some(cuboid(
                DVec3::new(len, 0.06, 0.06),
                DVec3::new(len / 2.0, 0.0, 0.0),
            ))
        };
        let tree = KinematicTree::new(vec![
            LinkSpec::new("base", None).with_joint(Joint::new("free", JointType::Floating)),
            LinkSpec::new("l1", Some("base"))
                .with_origin(DAffine3::from_translation(DVec3::new(0.1, 0.0, 0.0)))
                .with_joint(Joint::revolute("j1", DVec3::Z, -2.5, 2.5)),
            LinkSpec::new("l2", Some("l1"))
                .with_origin(DAffine3::from_translation(DVec3::new(0.4, 0.0, 0.0)))
                .with_joint(Joint::revolute("j2", DVec3::Z, -3.0, 3.0)),
            LinkSpec::new("l3", Some("l2"))
                .with_origin(DAffine3::from_translation(DVec3::new(0.3, 0.0, 0.0)))
                .with_joint(Joint::revolute("j3", DVec3::Z, -3.0, 3.0)),
        ])
        .unwrap();
        let base = Some(cuboid(DVec3::splat(0.2), DVec3::ZERO));
        ArticulatedBody::new("arm", tree, vec![base, link(0.4), link(0.3), link(0.25)]).unwrap()
    }

    /// The linearised contact space counts each pair's distance: a
    /// floating cube held a little above a slab (within the contact
    /// tolerance, and shifted sideways) steps to where the face pairs'
    /// distances reach zero to first order, straight above the input, not
    /// to the height it already has. With every near pair held as touching
    /// (M5's `g = 0`) the step would keep the gap, and the test fails.
    #[test]
    fn a_step_closes_the_gaps_of_near_pairs() {
        let tree = KinematicTree::new(vec![
            LinkSpec::new("cube", None).with_joint(Joint::new("free", JointType::Floating)),
        ])
        .unwrap();
        let body = ArticulatedBody::new(
            "cube",
            tree,
            vec![Some(cuboid(DVec3::splat(0.2), DVec3::ZERO))],
        )
        .unwrap();
        let slab = Obstacle::fixed(
            "slab",
            cuboid(DVec3::new(4.0, 4.0, 1.0), DVec3::ZERO),
            DAffine3::from_translation(DVec3::new(0.0, 0.0, -0.5)),
        )
        .unwrap();
        let obstacles = [slab];
        let disabled = DisabledPairs::new();
        let options = PdOptions::default();
        let gap = 0.5 * options.tolerance();
        let mut solver = PdSolver::new(&body, &obstacles, &disabled, &options).unwrap();
        // The input is 5 cm deep; the contact configuration `gap` above
        // the slab and 0.1 aside.
        let q_in = [0.0, 0.0, 0.05, 0.0, 0.0, 0.0, 1.0];
        let q_c = [0.1, 0.0, 0.1 + gap, 0.0, 0.0, 0.0, 1.0];
        let frame = solver.norm.around(&q_in).unwrap();
        let mut contacts = Vec::new();
        solver
            .checker
            .nearest_contacts(
                &q_c,
                options.tolerance(),
                options.max_contacts,
                &mut contacts,
                &mut solver.check_ws,
            )
            .unwrap();
        assert!(!contacts.is_empty());
        assert!(
            contacts.iter().all(|c| (c.distance - gap).abs() < 1e-9),
            "the face pairs are {gap} apart"
        );
        let mut stats = PdStats::default();
        let step = solver
            .optimise(&frame, &q_c, &contacts, &mut stats)
            .unwrap()
            .expect("a step");
        let mut q = vec![0.0; q_c.len()];
        let q = step.at(&frame, solver.tree(), 1.0, &mut q).unwrap();
        assert!(q[0].abs() < 1e-6, "x back over the input: {q:?}");
        assert!((q[2] - 0.1).abs() < 1e-6, "z at the slab's top: {q:?}");
    }

    /// A step's re-projection ends at the free end of its search, so
    /// checking each before it is taken (`careful`, the run after a failed
    /// confirmation) changes no answer: self-collision and a slab the arm
    /// folds through, answers equal bit for bit.
    #[test]
    fn re_projections_are_free_without_their_own_check() {
        let body = arm();
        let slab = Obstacle::fixed(
            "slab",
            cuboid(DVec3::new(2.0, 2.0, 0.1), DVec3::new(0.6, 0.0, 0.0)),
            DAffine3::from_translation(DVec3::new(0.0, 0.0, 0.05)),
        )
        .unwrap();
        let obstacles = [slab];
        let disabled = DisabledPairs::new();
        let options = PdOptions::default().with_distance_threshold(1e-4);
        let mut solver = PdSolver::new(&body, &obstacles, &disabled, &options).unwrap();
        let checker = Checker::new(&body, &obstacles, &disabled, true, true).unwrap();
        let mut ws = CheckWorkspace::new();
        let (mut done, mut steps) = (0, 0);
        for k in 0..200 {
            let t = f64::from(k);
            let q = [
                0.0,
                0.0,
                0.1 * (t * 0.51).sin(),
                0.0,
                0.0,
                0.0,
                1.0,
                (t * 0.37).sin() * 2.4,
                2.2 * (t * 0.73).sin(),
                2.2 * (t * 1.31).cos(),
            ];
            if !checker.collides(&q, &mut ws).unwrap() {
                continue;
            }
            done += 1;
            let a = solver.solve(&q, None, false).unwrap();
            solver.clear_coherence();
            let b = solver.solve(&q, None, true).unwrap();
            solver.clear_coherence();
            assert_eq!(a.status, b.status, "q = {q:?}");
            assert_eq!(a.value.to_bits(), b.value.to_bits(), "q = {q:?}");
            assert_eq!(a.configuration, b.configuration, "q = {q:?}");
            assert_eq!(a.iterations, b.iterations, "q = {q:?}");
            steps += a.iterations;
            if done == 16 {
                break;
            }
        }
        assert_eq!(done, 16, "too few colliding inputs");
        assert!(steps > 0, "no step was taken");
    }

    /// A wrong record (a colliding pair of links answered apart) is caught
    /// by the confirming check: the query runs again without records and
    /// answers as a solver that never uses them, bit for bit; and on some
    /// of these inputs the first pass did answer a colliding configuration.
    #[test]
    fn the_confirming_check_catches_a_wrong_record() {
        let body = arm();
        let obstacles: [Obstacle; 0] = [];
        let disabled = DisabledPairs::new();
        let options = PdOptions::default().with_distance_threshold(1e-4);
        let plain = PdOptions {
            reuse_apart_pairs: false,
            ..options
        };
        let mut lying = PdSolver::new(&body, &obstacles, &disabled, &options).unwrap();
        let mut reference = PdSolver::new(&body, &obstacles, &disabled, &plain).unwrap();
        let checker = Checker::new(&body, &obstacles, &disabled, true, true).unwrap();
        let mut ws = CheckWorkspace::new();
        let (mut caught, mut done) = (0, 0);
        for k in 0..200 {
            let t = f64::from(k);
            let q = [
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                1.0,
                (t * 0.37).sin() * 2.4,
                2.2 + 0.8 * (t * 0.73).sin(),
                2.2 + 0.8 * (t * 1.31).cos(),
            ];
            if !checker.collides(&q, &mut ws).unwrap() {
                continue;
            }
            done += 1;
            lying.check_ws.misreport_link_pairs = true;
            lying.check_ws.set_reuse_apart_pairs(true);
            let first = lying.solve(&q, None, false).unwrap();
            lying.clear_coherence();
            if checker.collides(&first.configuration, &mut ws).unwrap() {
                caught += 1;
            }
            let a = lying.penetration_depth(&q).unwrap();
            let b = reference.penetration_depth(&q).unwrap();
            lying.clear_coherence();
            reference.clear_coherence();
            assert_eq!(a.status, b.status, "q = {q:?}");
            assert_eq!(a.value.to_bits(), b.value.to_bits(), "q = {q:?}");
            assert_eq!(a.configuration, b.configuration, "q = {q:?}");
            assert!(!checker.collides(&a.configuration, &mut ws).unwrap());
            if done == 12 {
                break;
            }
        }
        assert_eq!(done, 12, "too few self-colliding inputs");
        assert!(caught > 0, "the wrong records never misled the first pass");
    }
}
