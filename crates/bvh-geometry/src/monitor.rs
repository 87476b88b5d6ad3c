//! # The M3 swept-volume monitor: stop before anything can meet
//!
//! **What.** [`SweptVolumeMonitor`] runs the per-cycle algorithm of M3
//! §III-B for one kinematic tree (several robots may share it as separate
//! roots) and static obstacles:
//!
//! 1. joint intervals from the current state: every value a joint can take
//!    until the model has stopped if braking starts now
//!    ([`braking_intervals`]: latency, worst deceleration, uncertainty);
//! 2. each link's body (an [`Ssch`] in the link frame: hull points with
//!    radius 0, a fitted rounded box, an LSS or a sphere) is swept joint by
//!    joint down the tree ([`swept_ssch_per_link`], M3 eq. 8) into the
//!    **least common ancestor frame** of each pair it is tested in;
//!    against obstacles and moving volumes, into its *platform frame*: the
//!    deepest ancestor reached from the root through fixed, vehicle,
//!    orientation and location joints only, into which each obstacle is
//!    brought by the inverse operations of those joints
//!    ([`swept_into_frame`]) — once per obstacle instead of once per link
//!    (the world frame when the root's joint moves otherwise);
//! 3. each pair's distance by GJK ([`ssch_distance`]) with its certified
//!    lower bound, warm-started from the pair's [`GjkCache`];
//! 4. **stop** if any lower bound is `≤` the safety distance.
//!
//! **Reach balls first, volumes on demand.** Every cycle each link gets a
//! *reach ball* in each frame it is tested in: the ball around its body
//! swept joint by joint through the same operations, enclosed in a ball
//! after every joint ([`PreparedSweeps::sweep_ball`]; a few multiply-adds
//! per joint). It encloses everything the body sweeps, though not
//! necessarily its volume (whose point reductions grow it). Every pair
//! first gets the gap of its two reach balls (against an obstacle, the
//! larger of the gaps to its ball and to its points' bounding box grown by
//! its radius), rounded down: a certified lower bound on the distance of
//! what the two bodies sweep, fresh every cycle. Pairs are then taken
//! smallest bound first, and the cycle stops as soon as the next pair's
//! bound is no smaller than the smallest distance found: that pair and all
//! after it can change neither the answer nor the reported minimum. Only a
//! pair taken forms its two volumes (once per cycle each; a link swept into
//! several frames forms the nearer ones first), then gets the larger of its
//! carried volume bound (below) and the gap between balls enclosing its
//! two volumes; if that reaches the smallest distance found it is passed
//! over. So the answer and the minimum are those of evaluating every pair,
//! at the cost of the few pairs that are close, and of the volumes those
//! pairs need. Before GJK, a pair evaluated in an earlier cycle first gets
//! the gap of the two volumes' supports along its last closest direction
//! (`min_{y ∈ B} u·y − max_{x ∈ A} u·x`, lowered for rounding and by the
//! carry margin below): along a smooth motion it is nearly the distance,
//! and when it already reaches the smallest distance found the pair is
//! passed over (its bound raised) at the cost of one support per volume.
//! The pair closest at the last cycle is evaluated first (with a budget,
//! the pair with the smallest bound); the pairs its distance leaves in
//! play are then sorted. With a budget, or when every pair is evaluated
//! ([`MonitorOptions::exhaustive`]), every volume is formed first.
//!
//! **Chained sweeps.** A link tested in several frames (the least common
//! ancestors of its pairs, and the world) is swept into the nearest frame
//! first and on from there ([`swept_ssch_per_link`] documents why the
//! result is the same).
//!
//! **Per-joint operations.** [`SweptVolumeMonitor::set_link_operations`]
//! chooses the fast or the accurate operation joint by joint.
//!
//! **Moving volumes.** Other robots, people and carts are given every
//! cycle as SSCHs in the world frame enclosing where they can be until the
//! model has stopped ([`SweptVolumeMonitor::with_moving_volumes`],
//! [`SweptVolumeMonitor::cycle_with_moving`]); their growth from cycle to
//! cycle enters the carried bounds as a link's does.
//!
//! Pairs: every two links with a body except parent–child, links welded by
//! fixed joints (one rigid body) and [`DisabledPairs`]; every link with a
//! body against every obstacle except disabled ones.
//!
//! **Bounded time** (M3 §III-B, the distance update scheme of its ref. \[2\]).
//! With a [`MonitorBudget`], at most that many pair distances (or that much
//! time) are spent per cycle; the pairs are evaluated in priority order,
//! smallest bound first, and every other pair keeps a bound carried over
//! from its last evaluation. The carried bound stays **conservative**: for
//! each swept volume `S` (a link in a frame) the monitor bounds how far
//! each new volume `(P′, r′)` reaches outside the one before, `(P, r)`,
//! the one-sided Hausdorff distance
//!
//! `δ = sup_{x ∈ S′} dist(x, S) ≤ max(0, max_{p′ ∈ P′} min_{p ∈ P} |p′ − p| + r′ − r)`
//!
//! (the distance to a convex set is convex, so its maximum over `conv P′`
//! is at a generating point; a ball of radius `r′` adds at most `r′`; the
//! old radius `r` is subtracted because `S` includes it), and keeps the
//! sum of these growths, rounded up, since the volume's *epoch* began (a
//! new epoch begins where the growth is unknown: the first volume, or
//! volumes too large to compare). One-sided Hausdorff distances add up
//! along a chain of volumes, so `d(S′_a, S′_b) ≥ d(S_a, S_b) − Δ_a − Δ_b`,
//! with `Δ` the difference of a volume's totals between the volumes a
//! pair's bound was taken for and the current ones (rounded up): a pair's
//! volume bound keeps both totals (and epochs) and is carried by their
//! differences whenever both of its volumes are formed again, however many
//! cycles later. Obstacles are static (`δ = 0`). The difference is rounded
//! down. A carried bound is additionally lowered by a relative margin of
//! `1e-9` (at least `1e-12`), so it never exceeds what a fresh evaluation
//! at the same state would certify by the GJK tolerance. Beyond GJK's
//! range (two volumes whose magnitudes add up to more than
//! [`MAX_MAGNITUDE`]), where a fresh evaluation certifies only the balls'
//! gap, nothing is carried and no direction gap is taken. Reach balls are
//! never carried (they bound the bodies' swept sets, not the volumes the
//! growths measure): each cycle computes them afresh, as a fresh monitor
//! does. Consequently neither a bounded monitor nor one whose volumes were
//! formed on demand ever says "go" where a fresh full one (no budget)
//! says "stop" at the same state.
//!
//! **Obstacles** are static. The monitor has no swept volume for an
//! obstacle's motion and its carried bounds assume every obstacle keeps
//! its place, so a moving obstacle frozen at one pose would let it certify
//! distances the obstacle does not keep (give it as a moving volume instead):
//! [`Obstacle::monitor_obstacle`](crate::Obstacle::monitor_obstacle)
//! refuses a moving obstacle with [`GeometryError::MovingObstacle`] naming
//! it.
//!
//! **Failed cycles.** A cycle that fails while forming a volume (a bad or
//! unbounded joint interval) or on a pair distance leaves the monitor
//! consistent for the next cycle: each volume formed before the failure
//! replaced its last one with its growth added to its total, and every
//! pair's volume bound keeps the totals it was taken at, so the next cycle
//! carries it by exactly the growth since. (A pair whose distance GJK
//! cannot compute fails the cycle only when its bound does not already
//! clear the safety distance.) Either way an error certifies nothing:
//! treat it as "stop".
//!
//! **Guarantee.** A report with `stop == false` proves that no two monitored
//! bodies come within the safety distance while every joint stays in its
//! braking interval, up to the rounding slack of the kinematics swept
//! volumes (documented there) and the certified GJK bound.
//!
//! **Cost.** The reach balls are recomputed every cycle, once per (link,
//! frame) needed; a volume only when a pair needs it (every volume with a
//! budget); the budget limits the pair distances, which are quadratic in
//! the number of links. Buffers and GJK caches are reused.

use std::time::{Duration, Instant};

use crate::dynamic::{DisabledPairs, LinkGroups, rigid_groups};
use crate::error::GeometryError;
use crate::gjk::{GjkCache, MAX_MAGNITUDE, ssch_distance};
use armature_kinematics::{
    BrakingModel, JointInterval, JointType, KinematicTree, PreparedSweeps, Ssch,
    SweptVolumeOptions, braking_intervals, swept_into_frame, swept_ssch_per_link,
};
use glam::DVec3;

/// Relative margin taken off carried bounds (module docs).
const CARRY_MARGIN: f64 = 1e-9;

/// How much work one cycle may do on pair distances.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MonitorBudget {
    /// Most pair distances per cycle; `None`: no limit.
    pub max_pair_evaluations: Option<usize>,
    /// Most time spent on pair distances per cycle (checked between
    /// evaluations; at least one pair is evaluated); `None`: no limit.
    /// Results then depend on timing.
    pub max_time: Option<Duration>,
}

impl MonitorBudget {
    /// No limit: every pair every cycle.
    pub const UNLIMITED: Self = Self {
        max_pair_evaluations: None,
        max_time: None,
    };

    /// At most `n` pair distances per cycle.
    #[must_use]
    pub const fn pairs(n: usize) -> Self {
        Self {
            max_pair_evaluations: Some(n),
            max_time: None,
        }
    }

    /// At most `t` spent on pair distances per cycle.
    #[must_use]
    pub const fn time(t: Duration) -> Self {
        Self {
            max_pair_evaluations: None,
            max_time: Some(t),
        }
    }

    /// Whether there is no limit.
    #[must_use]
    pub const fn is_unlimited(&self) -> bool {
        self.max_pair_evaluations.is_none() && self.max_time.is_none()
    }
}

/// Options of a [`SweptVolumeMonitor`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MonitorOptions {
    /// Stop when a distance lower bound is `≤` this (length units, `≥ 0`).
    /// Default 0: stop only if the swept volumes may touch.
    pub safety_distance: f64,
    /// Which joint operation each joint type gets (M3 §III-C).
    pub swept: SweptVolumeOptions,
    /// Work per cycle. Default unlimited.
    pub budget: MonitorBudget,
    /// Skip links joined by a chain of fixed joints. Default `true`.
    pub skip_rigidly_attached: bool,
    /// Skip adjacent links: rigid groups (links welded by fixed joints)
    /// joined by one movable joint, as the CCD's dynamic hierarchy does
    /// ([`LinkGroups::adjacent`]). Default `true`.
    pub skip_adjacent: bool,
    /// Evaluate every pair (within the budget) instead of stopping once
    /// the next bound can change neither the answer nor the minimum
    /// ([module docs](self), "Cheap bounds first"). Default `false`; a
    /// reference for tests and measurements.
    pub exhaustive: bool,
}

impl Default for MonitorOptions {
    fn default() -> Self {
        Self {
            safety_distance: 0.0,
            swept: SweptVolumeOptions::default(),
            budget: MonitorBudget::UNLIMITED,
            skip_rigidly_attached: true,
            skip_adjacent: true,
            exhaustive: false,
        }
    }
}

impl MonitorOptions {
    /// With this safety distance.
    #[must_use]
    pub const fn with_safety_distance(mut self, d: f64) -> Self {
        self.safety_distance = d;
        self
    }

    /// With these swept-volume operations.
    #[must_use]
    pub const fn with_swept(mut self, swept: SweptVolumeOptions) -> Self {
        self.swept = swept;
        self
    }

    /// With this budget.
    #[must_use]
    pub const fn with_budget(mut self, budget: MonitorBudget) -> Self {
        self.budget = budget;
        self
    }

    /// Evaluating every pair or not ([`MonitorOptions::exhaustive`]).
    #[must_use]
    pub const fn with_exhaustive(mut self, on: bool) -> Self {
        self.exhaustive = on;
        self
    }

    /// With or without skipping adjacent links
    /// ([`MonitorOptions::skip_adjacent`]).
    #[must_use]
    pub const fn with_skip_adjacent(mut self, on: bool) -> Self {
        self.skip_adjacent = on;
        self
    }
}

/// A static obstacle of the monitor: a name and an SSCH in the world frame
/// (e.g. its hull points with radius 0). The monitor assumes it never
/// moves ([module docs](self), "Obstacles").
#[derive(Clone, Debug, PartialEq)]
pub struct MonitorObstacle {
    /// Its name.
    pub name: String,
    /// Its volume, world frame.
    pub volume: Ssch,
}

/// A monitored pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MonitorPair {
    /// Two links `(a, b)`, `a < b`.
    Links(usize, usize),
    /// A link and an obstacle.
    LinkObstacle(usize, usize),
    /// A link and a moving volume (an index into the names given to
    /// [`SweptVolumeMonitor::with_moving_volumes`]).
    LinkMoving(usize, usize),
}

/// The answer of one cycle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MonitorReport {
    /// Whether the model must brake now: some pair's lower bound is `≤`
    /// the safety distance (or unknown).
    pub stop: bool,
    /// The pair with the smallest lower bound (`None` without pairs).
    pub closest: Option<MonitorPair>,
    /// Its lower bound (`+∞` without pairs, `−∞` when some pair has no
    /// bound).
    pub distance_lower_bound: f64,
    /// Pairs whose distance was computed this cycle.
    pub pairs_evaluated: usize,
    /// Pairs whose distance was not computed this cycle: decided by their
    /// reach balls, their volumes' balls or direction gap, or a bound
    /// carried over from an earlier cycle.
    pub pairs_carried_over: usize,
    /// Pairs with no bound (`−∞`, e.g. reach balls out of range; they
    /// force a stop).
    pub pairs_unknown: usize,
    /// GJK iterations spent this cycle.
    pub gjk_iterations: usize,
    /// Generating points of every volume formed this cycle (their sum: the
    /// size of the swept-volume step's output).
    pub swept_points: usize,
    /// Time spent on steps 1–2 before any pair is taken: the joint
    /// operations, the reach balls and the volumes formed up front (all of
    /// them with a budget or [`MonitorOptions::exhaustive`]; otherwise
    /// only obstacles seen from a platform and moving volumes).
    pub sweep_time: Duration,
    /// Time spent on bounds and distances (steps 3–4), the volumes formed
    /// on demand included.
    pub distance_time: Duration,
}

#[derive(Clone, Debug)]
struct PairState {
    pair: MonitorPair,
    key_a: usize,
    /// The second volume: a swept key (a link or a moving volume), or an
    /// obstacle.
    key_b: Option<usize>,
    cache: GjkCache,
    /// Lower bound valid for the current cycle (`−∞`: unknown): the
    /// larger of the reach balls' gap and [`PairState::vol_bound`] when
    /// the pair was settled this cycle.
    bound: f64,
    /// A lower bound on the distance of the two keys' volumes as they were
    /// at the marks below (`−∞`: none): carried to later volumes by the
    /// keys' growth since then.
    vol_bound: f64,
    /// Each key's epoch and total growth when `vol_bound` was set
    /// (`(0, 0.0)` for a static obstacle).
    mark_a: (u64, f64),
    mark_b: (u64, f64),
    /// The cycle in which the volume bounds were last taken into `bound`.
    settled_at: u64,
    /// The direction from the first volume's closest point to the
    /// second's at the last distance computed (zero: none yet): the gap of
    /// the volumes' supports along it is a cheap bound before the next
    /// distance.
    dir: DVec3,
}

/// What a swept key holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum KeySource {
    /// A link's body swept into `frame` (`None`: the world).
    Link { link: usize, frame: Option<usize> },
    /// An obstacle seen from link `frame` for every pose of the chain
    /// above it ([`swept_into_frame`]).
    Obstacle { obstacle: usize, frame: usize },
    /// A moving volume the caller gives every cycle, in the world frame or
    /// seen from a link's frame.
    Moving { moving: usize, frame: Option<usize> },
}

/// The frame in which `link` is tested against obstacles and moving
/// volumes: the deepest ancestor (or the link itself) reached from its
/// root through fixed, vehicle, orientation and location joints only (a
/// mobile platform), or the world when the root's own joint moves
/// otherwise. Those joints' operations then apply once to each obstacle
/// instead of to every link.
#[must_use]
pub fn platform_frame(tree: &KinematicTree, link: usize) -> Option<usize> {
    let chain: Vec<usize> = tree.ancestors(link).collect();
    let mut frame = None;
    for &k in chain.iter().rev() {
        let platform = matches!(
            tree.links()[k].joint().kind,
            JointType::Fixed
                | JointType::Vehicle
                | JointType::OmniVehicle
                | JointType::OrientationUncertain { .. }
                | JointType::LocationUncertain { .. }
        );
        if !platform {
            break;
        }
        frame = Some(k);
    }
    frame
}

/// A volume that changes every cycle, with its last two cycles' volumes.
#[derive(Clone, Debug)]
struct SweptKey {
    source: KeySource,
    /// The key of the same link in the nearest frame below this one, to
    /// sweep on from (M3 eq. 8 is a chain, so the result is the same).
    chain_from: Option<usize>,
    current: Option<Ssch>,
    /// The volume before `current` (storage for the next one).
    spare: Option<Ssch>,
    /// A ball enclosing `current`: centre and radius.
    ball: (DVec3, f64),
    /// The cycle in which `current` was formed.
    formed_at: u64,
    /// A ball enclosing everything the key's body sweeps this cycle (not
    /// necessarily `current`, whose point reductions grow it): computed
    /// every cycle, before any volume.
    reach: (DVec3, f64),
    /// The bounding box of `current`'s points and its radius (obstacle
    /// keys: their reach is tested against it).
    bbox: (DVec3, DVec3, f64),
    /// The run of volumes whose growth from one to the next is known; a new
    /// epoch begins when it is not (the first volume, an unbounded growth).
    epoch: u64,
    /// The sum of the growths (how far each volume reaches outside the one
    /// before) since the epoch began, rounded up.
    total_growth: f64,
    /// An upper bound on the current volume's [`magnitude`] (from its
    /// ball).
    magnitude: f64,
}

/// The M3 monitor (see the [module docs](self)).
#[derive(Clone, Debug)]
pub struct SweptVolumeMonitor {
    tree: KinematicTree,
    bodies: Vec<Option<Ssch>>,
    obstacles: Vec<MonitorObstacle>,
    /// Balls enclosing the obstacles.
    obstacle_balls: Vec<(DVec3, f64)>,
    moving: Vec<String>,
    options: MonitorOptions,
    /// One operation choice per link
    /// ([`SweptVolumeMonitor::set_link_operations`]; by default
    /// [`MonitorOptions::swept`] for all).
    link_options: Vec<SweptVolumeOptions>,
    /// Each link's frame against obstacles ([`platform_frame`]).
    obstacle_frames: Vec<Option<usize>>,
    /// The last successful cycle's joint intervals.
    last_intervals: Vec<JointInterval>,
    keys: Vec<SweptKey>,
    /// Key indices in the order they are swept (each after the key it
    /// chains from).
    sweep_order: Vec<usize>,
    pairs: Vec<PairState>,
    order: Vec<(f64, usize)>,
    /// A ball enclosing each link's body (link frame).
    body_balls: Vec<(DVec3, f64)>,
    /// The bounding box of each obstacle's points and its radius.
    obstacle_boxes: Vec<(DVec3, DVec3, f64)>,
    /// Each obstacle's [`magnitude`].
    obstacle_magnitudes: Vec<f64>,
    /// A buffer of the sweeps.
    buffer: Vec<DVec3>,
    /// The index of the pair closest at the last cycle.
    last_closest: Option<usize>,
    /// Cycles begun (stamps of formed volumes and settled pairs).
    cycle_count: u64,
    /// The last epoch given to a key.
    epochs: u64,
}

/// A certified lower bound on the distance of two balls' contents, rounded
/// down.
fn ball_gap(a: (DVec3, f64), b: (DVec3, f64)) -> f64 {
    let d = a.0.distance(b.0);
    let scale = a.0.abs().max_element() + b.0.abs().max_element() + d;
    // The length loses a few ulps of the coordinates; the sum of radii is
    // rounded up.
    (d - 8.0 * f64::EPSILON * scale - (a.1 + b.1).next_up()).next_down()
}

/// A certified lower bound on the distance of a ball's contents to a box
/// `[lo, hi]` grown by `rho`, rounded down.
fn ball_box_gap(ball: (DVec3, f64), bbox: (DVec3, DVec3, f64)) -> f64 {
    let (c, r) = ball;
    let (lo, hi, rho) = bbox;
    let d = (lo - c).max(c - hi).max(DVec3::ZERO).length();
    let scale = c.abs().max_element() + lo.abs().max_element() + hi.abs().max_element() + d;
    (d - 8.0 * f64::EPSILON * scale - (r + rho).next_up()).next_down()
}

/// The bounding box of a volume's points and its radius.
fn bounding_box(s: &Ssch) -> (DVec3, DVec3, f64) {
    let p = s.points();
    let (lo, hi) = p
        .iter()
        .fold((p[0], p[0]), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    (lo, hi, s.radius())
}

/// Point-set sizes up to which [`growth`] scans every pair of points when
/// the two volumes' points do not correspond index by index.
const GROWTH_SCAN_LIMIT: usize = 4096;

/// An upper bound on `max(0, max_{p′} min_p |p′ − p| + r′ − r)`, rounded
/// up (module docs). The operations are the same from cycle to cycle, so
/// the volumes usually have the same number of points in the same order:
/// then `min_p |p′ − p| ≤ |p′ⱼ − pⱼ|` gives the bound in one pass.
/// Otherwise small sets are scanned in full, and large ones give `+∞`
/// (the pair's bound is then not carried: the balls' gap or a fresh
/// distance replaces it).
fn growth(prev: &Ssch, cur: &Ssch) -> f64 {
    let (p, q) = (prev.points(), cur.points());
    let mut reach = 0.0f64;
    let mut scale = prev.radius() + cur.radius();
    if p.len() == q.len() {
        for (a, b) in q.iter().zip(p) {
            reach = reach.max((*a - *b).length());
            scale = scale.max(a.abs().max_element()).max(b.abs().max_element());
        }
    } else if p.len() * q.len() <= GROWTH_SCAN_LIMIT {
        for a in q {
            let best = p
                .iter()
                .map(|b| (*a - *b).length())
                .fold(f64::INFINITY, f64::min);
            reach = reach.max(best);
            scale = scale.max(a.abs().max_element());
        }
        for b in p {
            scale = scale.max(b.abs().max_element());
        }
    } else {
        return f64::INFINITY;
    }
    let d = reach + cur.radius() - prev.radius();
    // Rounding of the lengths and the difference: a few ulps of the scale.
    (d.max(0.0) + 16.0 * f64::EPSILON * scale).next_up()
}

impl SweptVolumeMonitor {
    /// A monitor for `tree` with one optional body per link (link frame;
    /// `None`: no geometry) and static obstacles (world frame).
    ///
    /// # Errors
    /// [`GeometryError::WrongLength`] unless `bodies` has one entry per
    /// link; [`GeometryError::InvalidParameter`] for a negative or
    /// non-finite safety distance.
    pub fn new(
        tree: KinematicTree,
        bodies: Vec<Option<Ssch>>,
        obstacles: Vec<MonitorObstacle>,
        disabled: &DisabledPairs,
        options: MonitorOptions,
    ) -> Result<Self, GeometryError> {
        if bodies.len() != tree.len() {
            return Err(GeometryError::WrongLength {
                what: "link bodies",
                expected: tree.len(),
                got: bodies.len(),
            });
        }
        let s = options.safety_distance;
        crate::error::non_negative("safety_distance", s)?;
        let groups = rigid_groups(&tree);
        let link_groups = LinkGroups::new(&tree);
        let mut keys: Vec<SweptKey> = Vec::new();
        let mut pairs = Vec::new();
        let n = tree.len();
        let obstacle_frames: Vec<Option<usize>> =
            (0..n).map(|l| platform_frame(&tree, l)).collect();
        for a in 0..n {
            if bodies[a].is_none() {
                continue;
            }
            for b in a + 1..n {
                if bodies[b].is_none()
                    || (options.skip_adjacent && link_groups.adjacent(a, b))
                    || (options.skip_rigidly_attached && groups[a] == groups[b])
                    || disabled.links_disabled(a, b)
                {
                    continue;
                }
                let frame = tree.common_ancestor(a, b);
                pairs.push(PairState {
                    pair: MonitorPair::Links(a, b),
                    key_a: key_of(&mut keys, KeySource::Link { link: a, frame }),
                    key_b: Some(key_of(&mut keys, KeySource::Link { link: b, frame })),
                    cache: GjkCache::new(),
                    bound: f64::NEG_INFINITY,
                    vol_bound: f64::NEG_INFINITY,
                    mark_a: (0, 0.0),
                    mark_b: (0, 0.0),
                    settled_at: 0,
                    dir: DVec3::ZERO,
                });
            }
            for o in 0..obstacles.len() {
                if disabled.link_obstacle_disabled(a, o) {
                    continue;
                }
                let frame = obstacle_frames[a];
                pairs.push(PairState {
                    pair: MonitorPair::LinkObstacle(a, o),
                    key_a: key_of(&mut keys, KeySource::Link { link: a, frame }),
                    key_b: frame.map(|f| {
                        key_of(
                            &mut keys,
                            KeySource::Obstacle {
                                obstacle: o,
                                frame: f,
                            },
                        )
                    }),
                    cache: GjkCache::new(),
                    bound: f64::NEG_INFINITY,
                    vol_bound: f64::NEG_INFINITY,
                    mark_a: (0, 0.0),
                    mark_b: (0, 0.0),
                    settled_at: 0,
                    dir: DVec3::ZERO,
                });
            }
        }
        let obstacle_balls = obstacles
            .iter()
            .map(|o| o.volume.bounding_sphere())
            .collect();
        let obstacle_boxes = obstacles.iter().map(|o| bounding_box(&o.volume)).collect();
        let obstacle_magnitudes = obstacles.iter().map(|o| magnitude(&o.volume)).collect();
        let body_balls = bodies
            .iter()
            .map(|b| b.as_ref().map_or((DVec3::ZERO, 0.0), Ssch::bounding_sphere))
            .collect();
        let mut m = Self {
            tree,
            bodies,
            obstacles,
            obstacle_balls,
            moving: Vec::new(),
            link_options: vec![options.swept; n],
            obstacle_frames,
            last_intervals: Vec::new(),
            options,
            keys,
            sweep_order: Vec::new(),
            pairs,
            order: Vec::new(),
            body_balls,
            obstacle_boxes,
            obstacle_magnitudes,
            buffer: Vec::new(),
            last_closest: None,
            cycle_count: 0,
            epochs: 0,
        };
        m.plan_sweeps();
        Ok(m)
    }

    /// The monitor with moving volumes (other robots, people, carts): each
    /// cycle the caller gives one SSCH per name, in the world frame,
    /// enclosing everything that volume can occupy until the model has
    /// stopped ([`SweptVolumeMonitor::cycle_with_moving`]). Every link with
    /// a body is tested against each; carried bounds use the volumes'
    /// growth from cycle to cycle, as for links.
    #[must_use]
    pub fn with_moving_volumes(mut self, names: Vec<String>) -> Self {
        let links: Vec<usize> = (0..self.tree.len())
            .filter(|&l| self.bodies[l].is_some())
            .collect();
        let first = self.moving.len();
        for (j, name) in names.into_iter().enumerate() {
            let m = first + j;
            self.moving.push(name);
            for &l in &links {
                let frame = self.obstacle_frames[l];
                let key_b = key_of(&mut self.keys, KeySource::Moving { moving: m, frame });
                let key_a = key_of(&mut self.keys, KeySource::Link { link: l, frame });
                self.pairs.push(PairState {
                    pair: MonitorPair::LinkMoving(l, m),
                    key_a,
                    key_b: Some(key_b),
                    cache: GjkCache::new(),
                    bound: f64::NEG_INFINITY,
                    vol_bound: f64::NEG_INFINITY,
                    mark_a: (0, 0.0),
                    mark_b: (0, 0.0),
                    settled_at: 0,
                    dir: DVec3::ZERO,
                });
            }
        }
        self.plan_sweeps();
        self
    }

    /// Orders the keys so that each link is swept into its nearest frame
    /// first and on from there into the farther ones.
    fn plan_sweeps(&mut self) {
        let depth_below = |tree: &KinematicTree, link: usize, frame: Option<usize>| match frame {
            Some(f) => tree
                .ancestors(link)
                .position(|k| k == f)
                .unwrap_or(usize::MAX),
            None => usize::MAX,
        };
        let mut order: Vec<usize> = (0..self.keys.len()).collect();
        let tree = &self.tree;
        let keys = &self.keys;
        order.sort_by_key(|&k| match keys[k].source {
            KeySource::Link { link, frame } => (0, link, depth_below(tree, link, frame)),
            KeySource::Obstacle { obstacle, frame } => (1, obstacle, frame),
            KeySource::Moving { moving, frame } => (2, moving, frame.map_or(0, |f| f + 1)),
        });
        let mut prev: Option<(usize, usize)> = None;
        for &k in &order {
            self.keys[k].chain_from = None;
            if let KeySource::Link { link, .. } = self.keys[k].source {
                if let Some((pl, pk)) = prev
                    && pl == link
                {
                    self.keys[k].chain_from = Some(pk);
                }
                prev = Some((link, k));
            }
        }
        self.sweep_order = order;
        self.order = Vec::with_capacity(self.pairs.len());
    }

    /// Chooses the operations per link (`options[k]` for link `k`'s joint),
    /// replacing [`MonitorOptions::swept`] (M3 Fig. 8 mixes fast and
    /// accurate operations joint by joint). Carried bounds stay valid (the
    /// growth is measured between volumes, whatever formed them).
    ///
    /// # Errors
    /// [`GeometryError::WrongLength`] unless there is one entry per link.
    pub fn set_link_operations(
        &mut self,
        options: Vec<SweptVolumeOptions>,
    ) -> Result<(), GeometryError> {
        if options.len() != self.tree.len() {
            return Err(GeometryError::WrongLength {
                what: "link operations",
                expected: self.tree.len(),
                got: options.len(),
            });
        }
        self.link_options = options;
        Ok(())
    }

    /// The tree.
    #[must_use]
    pub const fn tree(&self) -> &KinematicTree {
        &self.tree
    }

    /// The options.
    #[must_use]
    pub const fn options(&self) -> &MonitorOptions {
        &self.options
    }

    /// The names of the moving volumes, in the order
    /// [`SweptVolumeMonitor::cycle_with_moving`] takes them.
    #[must_use]
    pub fn moving_volumes(&self) -> &[String] {
        &self.moving
    }

    /// Changes the budget (e.g. per cycle, from the time left).
    pub fn set_budget(&mut self, budget: MonitorBudget) {
        self.options.budget = budget;
    }

    /// Changes the safety distance.
    ///
    /// # Errors
    /// [`GeometryError::InvalidParameter`] for a negative or non-finite
    /// distance.
    pub fn set_safety_distance(&mut self, d: f64) -> Result<(), GeometryError> {
        crate::error::non_negative("safety_distance", d)?;
        self.options.safety_distance = d;
        Ok(())
    }

    /// The monitored pairs, in a fixed order.
    pub fn pairs(&self) -> impl ExactSizeIterator<Item = MonitorPair> + '_ {
        self.pairs.iter().map(|p| p.pair)
    }

    /// The current lower bound of each pair, in the order of
    /// [`SweptVolumeMonitor::pairs`] (`−∞`: unknown).
    pub fn pair_bounds(&self) -> impl ExactSizeIterator<Item = (MonitorPair, f64)> + '_ {
        self.pairs.iter().map(|p| (p.pair, p.bound))
    }

    /// The last successful cycle's swept volume of each link with a body,
    /// in the world frame (for drawing and checking; the cycle itself
    /// tests obstacles in the links' platform frames). Empty before the
    /// first cycle.
    ///
    /// # Errors
    /// [`GeometryError::Kinematics`] naming the link (cannot happen after
    /// a successful cycle with the same intervals).
    pub fn world_volumes(&self) -> Result<Vec<(usize, Ssch)>, GeometryError> {
        if self.last_intervals.is_empty() {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        for (l, body) in self.bodies.iter().enumerate() {
            let Some(body) = body else { continue };
            let v = swept_ssch_per_link(
                &self.tree,
                l,
                body,
                &self.last_intervals,
                None,
                &self.link_options,
            )
            .map_err(|source| GeometryError::Kinematics {
                context: format!("swept volume of link `{}`", self.tree.links()[l].name()),
                source,
            })?;
            out.push((l, v));
        }
        Ok(out)
    }

    /// Forgets every carried bound and warm start (e.g. after a jump in
    /// the state the braking model does not cover).
    pub fn reset(&mut self) {
        for k in &mut self.keys {
            k.current = None;
        }
        for p in &mut self.pairs {
            p.bound = f64::NEG_INFINITY;
            p.vol_bound = f64::NEG_INFINITY;
            p.dir = DVec3::ZERO;
            p.cache.clear();
        }
        self.last_closest = None;
    }

    /// A readable name of a pair (`link–link`, `link–obstacle` or
    /// `link–moving volume`).
    #[must_use]
    pub fn pair_name(&self, pair: MonitorPair) -> String {
        let (a, b) = self.pair_names(pair);
        format!("`{a}`–`{b}`")
    }

    /// The names of a pair's two members.
    #[must_use]
    pub fn pair_names(&self, pair: MonitorPair) -> (&str, &str) {
        let link = |i: usize| self.tree.links().get(i).map_or("?", |l| l.name());
        match pair {
            MonitorPair::Links(a, b) => (link(a), link(b)),
            MonitorPair::LinkObstacle(l, o) => (
                link(l),
                self.obstacles.get(o).map_or("?", |o| o.name.as_str()),
            ),
            MonitorPair::LinkMoving(l, m) => {
                (link(l), self.moving.get(m).map_or("?", String::as_str))
            }
        }
    }

    /// One control cycle at configuration `q`, velocities `qdot` and one
    /// braking model per degree of freedom (see [`braking_intervals`]).
    ///
    /// # Errors
    /// [`GeometryError::Kinematics`] for a bad state or braking model, or a
    /// swept volume that cannot be formed (naming the link);
    /// [`GeometryError::Distance`] naming the pair when GJK fails. After
    /// an error the monitor is consistent for the next cycle (module docs,
    /// "Failed cycles"), but the failed cycle certifies nothing.
    pub fn cycle(
        &mut self,
        q: &[f64],
        qdot: &[f64],
        models: &[BrakingModel],
    ) -> Result<MonitorReport, GeometryError> {
        let intervals = braking_intervals(&self.tree, q, qdot, models).map_err(|source| {
            GeometryError::Kinematics {
                context: "braking intervals".to_owned(),
                source,
            }
        })?;
        self.cycle_with_intervals(&intervals)
    }

    /// One control cycle with joint intervals given directly (one per
    /// link, e.g. from [`braking_intervals`] with extra uncertainty).
    ///
    /// # Errors
    /// As [`SweptVolumeMonitor::cycle`]; [`GeometryError::WrongLength`]
    /// when the monitor has moving volumes (use
    /// [`SweptVolumeMonitor::cycle_with_moving`]). An error certifies
    /// nothing; the monitor stays consistent for the next cycle (module
    /// docs, "Failed cycles").
    pub fn cycle_with_intervals(
        &mut self,
        intervals: &[JointInterval],
    ) -> Result<MonitorReport, GeometryError> {
        self.cycle_with_moving(intervals, &[])
    }

    /// One control cycle with joint intervals and this cycle's moving
    /// volumes (one per name of
    /// [`SweptVolumeMonitor::with_moving_volumes`], world frame).
    ///
    /// # Errors
    /// As [`SweptVolumeMonitor::cycle`]; [`GeometryError::WrongLength`]
    /// unless there is one moving volume per name. An error certifies
    /// nothing; the monitor stays consistent for the next cycle (module
    /// docs, "Failed cycles").
    pub fn cycle_with_moving(
        &mut self,
        intervals: &[JointInterval],
        moving: &[Ssch],
    ) -> Result<MonitorReport, GeometryError> {
        if moving.len() != self.moving.len() {
            return Err(GeometryError::WrongLength {
                what: "moving volumes",
                expected: self.moving.len(),
                got: moving.len(),
            });
        }
        let t0 = Instant::now();
        // Steps 1–2. Every joint's operation, once for all the sweeps of
        // the cycle.
        let prepared =
            PreparedSweeps::new(&self.tree, intervals, &self.link_options).map_err(|source| {
                GeometryError::Kinematics {
                    context: "swept-volume operations".to_owned(),
                    source,
                }
            })?;
        self.cycle_count += 1;
        let cycle = self.cycle_count;
        let exhaustive = self.options.exhaustive;
        let budget = self.options.budget;
        // Every volume up front when every pair is evaluated, or when a
        // budget may leave pairs with carried bounds; otherwise a link's
        // volume only when a pair its reach ball does not decide needs it.
        let eager = exhaustive || !budget.is_unlimited();
        let mut swept_points = 0;
        for idx in 0..self.sweep_order.len() {
            let i = self.sweep_order[idx];
            let KeySource::Link { link, frame } = self.keys[i].source else {
                // Obstacles seen from a platform and moving volumes: few,
                // each shared by many pairs.
                swept_points += self.form(i, &prepared, intervals, moving)?;
                continue;
            };
            // The reach ball, on from the nearest frame below when there is
            // one (computed earlier in this order).
            let (start, ball) = match self.keys[i].chain_from.map(|c| &self.keys[c]) {
                Some(SweptKey {
                    source: KeySource::Link { frame: Some(f), .. },
                    reach,
                    ..
                }) => (*f, *reach),
                _ => (link, self.body_balls[link]),
            };
            self.keys[i].reach = prepared
                .sweep_ball(&self.tree, start, ball, frame)
                .map_err(|source| GeometryError::Kinematics {
                    context: format!("reach of link `{}`", self.tree.links()[link].name()),
                    source,
                })?;
            if eager {
                swept_points += self.form(i, &prepared, intervals, moving)?;
            }
        }
        self.last_intervals.clear();
        self.last_intervals.extend_from_slice(intervals);

        let t1 = Instant::now();
        // Every pair's bound from the reach balls: a certified lower bound
        // on the distance of what the two bodies sweep (not necessarily of
        // their volumes), fresh every cycle.
        for i in 0..self.pairs.len() {
            let p = &self.pairs[i];
            let cheap = self.gap_to_other(p, self.keys[p.key_a].reach, true);
            self.pairs[i].bound = if cheap.is_nan() {
                f64::NEG_INFINITY
            } else {
                cheap
            };
        }
        if eager {
            for i in 0..self.pairs.len() {
                self.settle(i);
            }
        }

        // Step 3 in priority order: smallest bound first, until the next
        // bound is no smaller than the smallest distance found (then it
        // decides neither the answer nor the minimum) or the budget runs
        // out. One pair is evaluated before the others are sorted, once its
        // distance has left out the pairs it already decides.
        // Keys beside the indices: the comparisons stay in one array.
        self.order.clear();
        self.order
            .extend(self.pairs.iter().enumerate().map(|(i, p)| (p.bound, i)));
        let by_bound = |a: &(f64, usize), b: &(f64, usize)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
        let exhaustive = self.options.exhaustive;
        let budget = self.options.budget;
        // First the pair closest last cycle: along a smooth motion its
        // distance is nearly the smallest, and it leaves few pairs in
        // play. With a budget, the smallest bound first (module docs).
        let seed = self
            .last_closest
            .filter(|&i| !exhaustive && budget.is_unlimited() && i < self.order.len());
        if let Some(m) = seed.or_else(|| {
            self.order
                .iter()
                .enumerate()
                .min_by(|a, b| by_bound(a.1, b.1))
                .map(|(m, _)| m)
        }) {
            self.order.swap(0, m);
        }
        let start = budget.max_time.map(|_| Instant::now());
        let mut report = MonitorReport {
            stop: false,
            closest: None,
            distance_lower_bound: f64::INFINITY,
            pairs_evaluated: 0,
            pairs_carried_over: 0,
            pairs_unknown: 0,
            gjk_iterations: 0,
            swept_points,
            sweep_time: t1 - t0,
            distance_time: Duration::ZERO,
        };
        let mut best = f64::INFINITY;
        let mut next = 0;
        while next < self.order.len() {
            if next == 1 {
                // Pairs bounded by at least the distance found are never
                // reached (it only falls); the rest in order.
                let mut kept = 1;
                for r in 1..self.order.len() {
                    // (A NaN bound is never `≥ best`: it stays, as it
                    // would have been reached.)
                    let bound = self.order[r].0;
                    if exhaustive || bound < best || bound.is_nan() {
                        self.order[kept] = self.order[r];
                        kept += 1;
                    }
                }
                self.order.truncate(kept);
                self.order[1..].sort_unstable_by(by_bound);
                if kept == 1 {
                    break;
                }
            }
            let i = self.order[next].1;
            next += 1;
            let out_of_budget = budget
                .max_pair_evaluations
                .is_some_and(|n| report.pairs_evaluated >= n)
                || (report.pairs_evaluated > 0
                    && budget
                        .max_time
                        .zip(start)
                        .is_some_and(|(t, s)| s.elapsed() >= t));
            if out_of_budget || (!exhaustive && self.pairs[i].bound >= best) {
                break;
            }
            if self.pairs[i].settled_at != cycle {
                // The volumes the reach balls did not spare.
                let (ka, kb) = (self.pairs[i].key_a, self.pairs[i].key_b);
                swept_points += self.form(ka, &prepared, intervals, moving)?;
                if let Some(k) = kb {
                    swept_points += self.form(k, &prepared, intervals, moving)?;
                }
                self.settle(i);
                if !exhaustive && self.pairs[i].bound >= best {
                    continue;
                }
            }
            let p = &mut self.pairs[i];
            let a = self.keys[p.key_a].current.as_ref();
            let b = match (p.key_b, p.pair) {
                (Some(k), _) => self.keys[k].current.as_ref(),
                (None, MonitorPair::LinkObstacle(_, o)) => Some(&self.obstacles[o].volume),
                (None, _) => None,
            };
            let (Some(a), Some(b)) = (a, b) else {
                continue;
            };
            // The volumes' gap along the last closest direction first: it
            // may already reach the distance found.
            if !exhaustive && p.dir != DVec3::ZERO {
                let gap = direction_gap(a, b, p.dir);
                p.vol_bound = p.vol_bound.max(gap);
                p.bound = p.bound.max(gap);
                if p.bound >= best {
                    continue;
                }
            }
            let d = match ssch_distance(a, b, Some(&mut p.cache)) {
                Ok(d) => d,
                // The pair's bound already clears the safety distance: a
                // distance GJK cannot compute (coordinates out of its
                // range) is not needed to decide.
                Err(_) if p.bound > self.options.safety_distance => {
                    best = best.min(p.bound);
                    continue;
                }
                Err(source) => {
                    return Err(GeometryError::Distance {
                        pair: self.pair_name(self.pairs[i].pair),
                        source,
                    });
                }
            };
            let p = &mut self.pairs[i];
            p.vol_bound = p.vol_bound.max(d.lower_bound);
            p.bound = p.bound.max(d.lower_bound);
            let dir = d.point_b - d.point_a;
            if dir.is_finite() && dir != DVec3::ZERO {
                p.dir = dir;
            }
            best = best.min(p.bound);
            report.pairs_evaluated += 1;
            report.gjk_iterations += d.iterations;
        }

        // Step 4.
        self.last_closest = None;
        for (i, p) in self.pairs.iter().enumerate() {
            if p.bound == f64::NEG_INFINITY {
                report.pairs_unknown += 1;
            }
            if p.bound < report.distance_lower_bound || report.closest.is_none() {
                report.distance_lower_bound = p.bound;
                report.closest = Some(p.pair);
                self.last_closest = Some(i);
            }
        }
        report.pairs_carried_over = self.pairs.len() - report.pairs_evaluated;
        report.stop =
            report.closest.is_some() && report.distance_lower_bound <= self.options.safety_distance;
        report.swept_points = swept_points;
        report.distance_time = t1.elapsed();
        Ok(report)
    }
}

impl SweptVolumeMonitor {
    /// Forms key `i`'s volume for this cycle (and first the volume it is
    /// swept on from), unless formed already; returns the points formed.
    /// Its growth from its last volume enters its epoch's total.
    fn form(
        &mut self,
        i: usize,
        prepared: &PreparedSweeps,
        intervals: &[JointInterval],
        moving: &[Ssch],
    ) -> Result<usize, GeometryError> {
        let cycle = self.cycle_count;
        if self.keys[i].formed_at == cycle {
            return Ok(0);
        }
        let mut points = 0;
        let inverse = |volume: &Ssch, f: usize, what: String| {
            swept_into_frame(&self.tree, volume, f, intervals, &self.link_options).map_err(
                |source| GeometryError::Kinematics {
                    context: format!("{what} seen from link `{}`", self.tree.links()[f].name()),
                    source,
                },
            )
        };
        let swept = match self.keys[i].source {
            KeySource::Moving {
                moving: m,
                frame: None,
            } => moving[m].clone(),
            KeySource::Moving {
                moving: m,
                frame: Some(f),
            } => inverse(&moving[m], f, format!("moving volume `{}`", self.moving[m]))?,
            KeySource::Obstacle { obstacle, frame } => inverse(
                &self.obstacles[obstacle].volume,
                frame,
                format!("obstacle `{}`", self.obstacles[obstacle].name),
            )?,
            KeySource::Link { link, frame } => {
                // Sweep on from the nearest frame below when there is one.
                let from = self.keys[i]
                    .chain_from
                    .and_then(|c| match self.keys[c].source {
                        KeySource::Link { frame: Some(f), .. } => Some((c, f)),
                        _ => None,
                    });
                if let Some((c, _)) = from {
                    points += self.form(c, prepared, intervals, moving)?;
                }
                let Some(body) = &self.bodies[link] else {
                    return Ok(0);
                };
                // Into the storage of the volume before last.
                let spare = self.keys[i].spare.take();
                let mut out = spare.unwrap_or_else(|| body.clone());
                let (start, volume) =
                    match from.and_then(|(c, f)| self.keys[c].current.as_ref().map(|v| (f, v))) {
                        Some((f, v)) => (f, v),
                        None => (link, body),
                    };
                prepared
                    .sweep_into(&self.tree, start, volume, frame, &mut out, &mut self.buffer)
                    .map_err(|source| GeometryError::Kinematics {
                        context: format!(
                            "swept volume of link `{}`",
                            self.tree.links()[link].name()
                        ),
                        source,
                    })?;
                out
            }
        };
        let k = &mut self.keys[i];
        let g = k
            .current
            .as_ref()
            .map_or(f64::INFINITY, |prev| growth(prev, &swept));
        if g.is_finite() {
            k.total_growth = (k.total_growth + g).next_up();
        } else {
            self.epochs += 1;
            k.epoch = self.epochs;
            k.total_growth = 0.0;
        }
        k.ball = swept.bounding_sphere();
        // Every point is within the ball: `|p| + r ≤ |c| + R`.
        k.magnitude = (k.ball.0.length() + k.ball.1) * (1.0 + 1e-12);
        k.bbox = bounding_box(&swept);
        if !matches!(k.source, KeySource::Link { .. }) {
            k.reach = k.ball;
        }
        points += swept.point_count();
        k.spare = k.current.replace(swept);
        k.formed_at = cycle;
        Ok(points)
    }

    /// The certified gap between `ball` (around the pair's first member)
    /// and its second member: an obstacle's ball and bounding box (grown by
    /// its radius), whichever is farther; a link's or moving volume's reach
    /// ball (`reach`) or the ball of its volume formed this cycle.
    #[inline(always)]
    fn gap_to_other(&self, p: &PairState, ball: (DVec3, f64), reach: bool) -> f64 {
        let obstacle = |ob: (DVec3, f64), bbox| ball_gap(ball, ob).max(ball_box_gap(ball, bbox));
        match (p.key_b, p.pair) {
            (Some(k), _) => {
                let kb = &self.keys[k];
                match kb.source {
                    KeySource::Obstacle { .. } => obstacle(kb.ball, kb.bbox),
                    _ if reach => ball_gap(ball, kb.reach),
                    _ => ball_gap(ball, kb.ball),
                }
            }
            (None, MonitorPair::LinkObstacle(_, o)) => {
                obstacle(self.obstacle_balls[o], self.obstacle_boxes[o])
            }
            (None, _) => f64::NEG_INFINITY,
        }
    }

    /// Takes pair `i`'s volume bounds into its bound, its two volumes
    /// formed this cycle: its last volume bound carried by both volumes'
    /// growth since (rounded so that it never rises; beyond GJK's range,
    /// where a fresh evaluation certifies only the balls' gap, nothing is
    /// carried), and the gap of the volumes' balls and boxes.
    fn settle(&mut self, i: usize) {
        let p = &self.pairs[i];
        let ka = &self.keys[p.key_a];
        let mark_a = (ka.epoch, ka.total_growth);
        let gap = self.gap_to_other(p, ka.ball, false);
        let (mark_b, size_b) = match (p.key_b, p.pair) {
            (Some(k), _) => {
                let kb = &self.keys[k];
                ((kb.epoch, kb.total_growth), kb.magnitude)
            }
            (None, MonitorPair::LinkObstacle(_, o)) => ((0, 0.0), self.obstacle_magnitudes[o]),
            (None, _) => ((0, 0.0), f64::INFINITY),
        };
        // The growth since a mark: unknown in another epoch; the totals
        // were rounded up, their difference is too.
        let since = |now: (u64, f64), then: (u64, f64)| {
            if now.0 != then.0 {
                f64::INFINITY
            } else if now.1 == then.1 {
                0.0
            } else {
                (now.1 - then.1).next_up()
            }
        };
        let g = (since(mark_a, p.mark_a) + since(mark_b, p.mark_b)).next_up();
        let carried = (p.vol_bound - g).next_down();
        let carried = if carried.is_finite() && ka.magnitude + size_b <= MAX_MAGNITUDE {
            carried - (CARRY_MARGIN * carried.abs()).max(1e-12)
        } else {
            f64::NEG_INFINITY
        };
        let vol = if gap.is_nan() {
            carried
        } else {
            carried.max(gap)
        };
        let cycle = self.cycle_count;
        let p = &mut self.pairs[i];
        p.vol_bound = vol;
        p.mark_a = mark_a;
        p.mark_b = mark_b;
        p.settled_at = cycle;
        p.bound = p.bound.max(vol);
    }
}

/// A certified lower bound on the distance of two SSCHs from the gap of
/// their supports along `d`, `min_{y ∈ b} u·y − max_{x ∈ a} u·x` with
/// `u = d/|d|` (`−∞` for a zero or non-finite `d`): lowered for the
/// rounding of the dot products (a few ulps of the coordinates each, `u`
/// unit up to a few ulps), then by the margin carried bounds take
/// ([`CARRY_MARGIN`]), so it never exceeds what the distance itself
/// would certify for the same volumes by more than GJK's tolerance; `−∞`
/// beyond GJK's range ([`MAX_MAGNITUDE`]), where the distance certifies
/// nothing.
fn direction_gap(a: &Ssch, b: &Ssch, d: DVec3) -> f64 {
    let len = d.length();
    if !(len.is_finite() && len > 0.0) {
        return f64::NEG_INFINITY;
    }
    let (sa, sb) = (max_coordinate(a), max_coordinate(b));
    // Nothing where GJK refuses ([`magnitude`]): the gap then certifies
    // nothing a fresh distance could not.
    if 1.75 * (sa + sb) + a.radius() + b.radius() > MAX_MAGNITUDE {
        return f64::NEG_INFINITY;
    }
    let u = d / len;
    // Each support adds its radius times `|u|` (one up to rounding).
    let gap = -b.support(-u) - a.support(u) - 32.0 * f64::EPSILON * (sa + sb);
    // (NaN for coordinates out of range: no bound.)
    if gap.is_nan() || gap <= 0.0 {
        return f64::NEG_INFINITY;
    }
    // Dividing by `|u| ≤ 1 + 4 ε`, then the carry margin.
    let g = (gap * (1.0 - 8.0 * f64::EPSILON)).next_down();
    g - (CARRY_MARGIN * g).max(1e-12)
}

/// The largest coordinate magnitude of a volume's points.
fn max_coordinate(s: &Ssch) -> f64 {
    s.points()
        .iter()
        .fold(0.0f64, |m, p| m.max(p.abs().max_element()))
}

/// An upper bound on the largest norm of a volume's points plus its
/// radius (the norms are at most √3 times the largest coordinates): two
/// volumes whose magnitudes add up to more than [`MAX_MAGNITUDE`] are
/// beyond GJK's range.
fn magnitude(s: &Ssch) -> f64 {
    1.75 * max_coordinate(s) + s.radius()
}

/// The index of the key for `source`, added when new.
fn key_of(keys: &mut Vec<SweptKey>, source: KeySource) -> usize {
    if let Some(k) = keys.iter().position(|k| k.source == source) {
        k
    } else {
        keys.push(SweptKey {
            source,
            chain_from: None,
            current: None,
            spare: None,
            ball: (DVec3::ZERO, f64::INFINITY),
            formed_at: 0,
            reach: (DVec3::ZERO, f64::INFINITY),
            bbox: (DVec3::ZERO, DVec3::ZERO, f64::INFINITY),
            epoch: 0,
            total_growth: 0.0,
            magnitude: f64::INFINITY,
        });
        keys.len() - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ssch(points: Vec<(f64, f64, f64)>, offset: DVec3, radius: f64) -> Ssch {
        Ssch::new(
            points
                .into_iter()
                .map(|(x, y, z)| DVec3::new(x, y, z) + offset)
                .collect(),
            radius,
        )
        .unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The support gap along any direction never exceeds the two
        /// volumes' distance (GJK's, realised by two points, bounds it from
        /// above), and along their closest direction it comes within a
        /// micrometre of GJK's certified lower bound.
        #[test]
        fn direction_gaps_bound_the_distance(
            pa in proptest::collection::vec((-1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0), 1..12),
            pb in proptest::collection::vec((-1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0), 1..12),
            shift in (-4.0f64..4.0, -4.0f64..4.0, -4.0f64..4.0),
            ra in 0.0f64..0.3,
            rb in 0.0f64..0.3,
            d in (-1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0),
        ) {
            let a = ssch(pa, DVec3::ZERO, ra);
            let b = ssch(pb, DVec3::new(shift.0, shift.1, shift.2), rb);
            let exact = ssch_distance(&a, &b, None).unwrap();
            let g = direction_gap(&a, &b, DVec3::new(d.0, d.1, d.2));
            prop_assert!(g <= exact.distance, "gap {g} > distance {}", exact.distance);
            let closest = exact.point_b - exact.point_a;
            if exact.lower_bound > 0.0 && closest != DVec3::ZERO {
                let g = direction_gap(&a, &b, closest);
                prop_assert!(g <= exact.distance, "gap {g} > distance {}", exact.distance);
                prop_assert!(g >= exact.lower_bound - 1e-6, "gap {g}, lower bound {}", exact.lower_bound);
            }
        }
    }

    #[test]
    fn direction_gaps_of_a_zero_direction_bound_nothing() {
        let a = Ssch::point(DVec3::ZERO).unwrap();
        let b = Ssch::point(DVec3::X).unwrap();
        assert_eq!(direction_gap(&a, &b, DVec3::ZERO), f64::NEG_INFINITY);
        assert_eq!(direction_gap(&a, &b, DVec3::NAN), f64::NEG_INFINITY);
        let g = direction_gap(&a, &b, DVec3::X);
        assert!(g <= 1.0 && g > 1.0 - 1e-8, "{g}");
    }
}
