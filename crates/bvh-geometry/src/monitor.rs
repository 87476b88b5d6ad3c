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
//!    radius 0, or an LSS or sphere as SSCH) is swept joint by joint down
//!    the tree ([`swept_ssch`], M3 eq. 8) into the **least common ancestor
//!    frame** of each pair it is tested in (the world frame against
//!    obstacles);
//! 3. each pair's distance by GJK ([`ssch_distance`]) with its certified
//!    lower bound, warm-started from the pair's [`GjkCache`];
//! 4. **stop** if any lower bound is `≤` the safety distance.
//!
//! Pairs: every two links with a body except parent–child, links welded by
//! fixed joints (one rigid body) and [`DisabledPairs`]; every link with a
//! body against every obstacle except disabled ones.
//!
//! **Bounded time** (M3 §III-B, the distance update scheme of its ref. \[2\]).
//! With a [`MonitorBudget`], at most that many pair distances (or that much
//! time) are spent per cycle; the pairs are evaluated in priority order,
//! smallest carried bound first (pairs never evaluated, whose bound is
//! `−∞`, before all), and every other pair keeps a bound carried over from
//! its last evaluation. The carried bound stays **conservative**: for each
//! swept volume `S` (a link in a frame) the monitor keeps last cycle's
//! SSCH `(P, r)` and bounds how far the new one `(P′, r′)` reaches outside
//! it, the one-sided Hausdorff distance
//!
//! `δ = sup_{x ∈ S′} dist(x, S) ≤ max(0, max_{p′ ∈ P′} min_{p ∈ P} |p′ − p| + r′ − r)`
//!
//! (the distance to a convex set is convex, so its maximum over `conv P′`
//! is at a generating point; a ball of radius `r′` adds at most `r′`; the
//! old radius `r` is subtracted because `S` includes it). Then
//! `d(S′_a, S′_b) ≥ d(S_a, S_b) − δ_a − δ_b`, so a carried bound decreased
//! by both volumes' `δ` in every cycle since its evaluation remains a lower
//! bound. Obstacles are static (`δ = 0`). The sum of the `δ`s is rounded
//! up and the difference down. A carried bound is additionally
//! lowered by a relative margin of `1e-9` (at least `1e-12`), so it never
//! exceeds what a fresh evaluation at the same state would certify by the
//! GJK tolerance. Consequently the bounded monitor never says "go" where
//! the full one (no budget) says "stop" at the same state.
//!
//! **Obstacles** are static. The monitor has no swept volume for an
//! obstacle's motion and its carried bounds assume every obstacle keeps
//! its place, so a moving obstacle frozen at one pose would let it certify
//! distances the obstacle does not keep:
//! [`Obstacle::monitor_obstacle`](crate::Obstacle::monitor_obstacle)
//! refuses a moving obstacle with [`GeometryError::MovingObstacle`] naming
//! it.
//!
//! **Failed cycles.** A cycle that fails while forming the swept volumes
//! (a bad or unbounded joint interval) leaves the monitor as it was: every
//! volume is formed before any replaces last cycle's, so the next cycle
//! measures each volume's growth from the one its carried bounds belong
//! to. A cycle that fails on a pair distance has already replaced the
//! volumes and carried every bound over to them; the pairs evaluated
//! before the failure hold fresh bounds and the others carried ones, all
//! valid for the new volumes, so the next cycle again starts from a
//! consistent state. Either way an error certifies nothing: treat it as
//! "stop".
//!
//! **Guarantee.** A report with `stop == false` proves that no two monitored
//! bodies come within the safety distance while every joint stays in its
//! braking interval, up to the rounding slack of the kinematics swept
//! volumes (documented there) and the certified GJK bound.
//!
//! **Cost.** The swept volumes are recomputed every cycle, once per
//! (link, frame) needed; the budget limits the pair distances, which are
//! quadratic in the number of links. Buffers and GJK caches are reused.

use std::time::{Duration, Instant};

use crate::dynamic::{DisabledPairs, LinkGroups, rigid_groups};
use crate::error::GeometryError;
use crate::gjk::{GjkCache, ssch_distance};
use armature_kinematics::{
    BrakingModel, JointInterval, KinematicTree, Ssch, SweptVolumeOptions, braking_intervals,
    swept_ssch,
};

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
}

impl Default for MonitorOptions {
    fn default() -> Self {
        Self {
            safety_distance: 0.0,
            swept: SweptVolumeOptions::default(),
            budget: MonitorBudget::UNLIMITED,
            skip_rigidly_attached: true,
            skip_adjacent: true,
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
}

/// The answer of one cycle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MonitorReport {
    /// Whether the model must brake now: some pair's lower bound is `≤`
    /// the safety distance (or unknown).
    pub stop: bool,
    /// The pair with the smallest lower bound (`None` without pairs).
    pub closest: Option<MonitorPair>,
    /// Its lower bound (`+∞` without pairs, `−∞` when some pair was never
    /// evaluated).
    pub distance_lower_bound: f64,
    /// Pairs whose distance was computed this cycle.
    pub pairs_evaluated: usize,
    /// Pairs whose bound was carried over from an earlier cycle.
    pub pairs_carried_over: usize,
    /// Pairs never evaluated yet (bound `−∞`; they force a stop).
    pub pairs_unknown: usize,
    /// GJK iterations spent this cycle.
    pub gjk_iterations: usize,
}

#[derive(Clone, Debug)]
struct PairState {
    pair: MonitorPair,
    key_a: usize,
    /// The second volume: a swept key, or an obstacle.
    key_b: Option<usize>,
    cache: GjkCache,
    /// Lower bound valid for the current cycle's volumes (`−∞`: unknown).
    bound: f64,
}

/// A link swept into one frame, with its last two cycles' volumes.
#[derive(Clone, Debug)]
struct SweptKey {
    link: usize,
    frame: Option<usize>,
    current: Option<Ssch>,
    /// How far the current volume reaches outside the previous one.
    growth: f64,
}

/// The M3 monitor (see the [module docs](self)).
#[derive(Clone, Debug)]
pub struct SweptVolumeMonitor {
    tree: KinematicTree,
    bodies: Vec<Option<Ssch>>,
    obstacles: Vec<MonitorObstacle>,
    options: MonitorOptions,
    keys: Vec<SweptKey>,
    pairs: Vec<PairState>,
    order: Vec<usize>,
    /// This cycle's volumes (key index, volume) until all are formed.
    staged: Vec<(usize, Ssch)>,
}

/// `max(0, max_{p′} min_p |p′ − p| + r′ − r)`, rounded up (module docs).
fn growth(prev: &Ssch, cur: &Ssch) -> f64 {
    let (p, q) = (prev.points(), cur.points());
    let mut reach = 0.0f64;
    let mut scale = prev.radius() + cur.radius();
    for (j, a) in q.iter().enumerate() {
        // The same index is usually the nearest (the operations are the
        // same from cycle to cycle); it gives an upper bound on the
        // minimum at once, and the scan only improves it.
        let mut best = p.get(j).map_or(f64::INFINITY, |b| (*a - *b).length());
        if best > 0.0 {
            for b in p {
                best = best.min((*a - *b).length());
            }
        }
        reach = reach.max(best);
        scale = scale.max(a.abs().max_element());
    }
    for b in p {
        scale = scale.max(b.abs().max_element());
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
        let mut key = |link: usize, frame: Option<usize>| {
            if let Some(k) = keys.iter().position(|k| k.link == link && k.frame == frame) {
                k
            } else {
                keys.push(SweptKey {
                    link,
                    frame,
                    current: None,
                    growth: f64::INFINITY,
                });
                keys.len() - 1
            }
        };
        let mut pairs = Vec::new();
        let n = tree.len();
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
                    key_a: key(a, frame),
                    key_b: Some(key(b, frame)),
                    cache: GjkCache::new(),
                    bound: f64::NEG_INFINITY,
                });
            }
            for o in 0..obstacles.len() {
                if disabled.link_obstacle_disabled(a, o) {
                    continue;
                }
                pairs.push(PairState {
                    pair: MonitorPair::LinkObstacle(a, o),
                    key_a: key(a, None),
                    key_b: None,
                    cache: GjkCache::new(),
                    bound: f64::NEG_INFINITY,
                });
            }
        }
        let order = Vec::with_capacity(pairs.len());
        let staged = Vec::with_capacity(keys.len());
        Ok(Self {
            tree,
            bodies,
            obstacles,
            options,
            keys,
            pairs,
            order,
            staged,
        })
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

    /// Changes the budget (e.g. per cycle, from the time left).
    pub fn set_budget(&mut self, budget: MonitorBudget) {
        self.options.budget = budget;
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

    /// Forgets every carried bound and warm start (e.g. after a jump in
    /// the state the braking model does not cover).
    pub fn reset(&mut self) {
        for k in &mut self.keys {
            k.current = None;
            k.growth = f64::INFINITY;
        }
        for p in &mut self.pairs {
            p.bound = f64::NEG_INFINITY;
            p.cache.clear();
        }
    }

    /// A readable name of a pair (`link–link` or `link–obstacle`).
    #[must_use]
    pub fn pair_name(&self, pair: MonitorPair) -> String {
        let link = |i: usize| self.tree.links().get(i).map_or("?", |l| l.name());
        match pair {
            MonitorPair::Links(a, b) => format!("`{}`–`{}`", link(a), link(b)),
            MonitorPair::LinkObstacle(l, o) => format!(
                "`{}`–`{}`",
                link(l),
                self.obstacles.get(o).map_or("?", |o| o.name.as_str())
            ),
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
    /// As [`SweptVolumeMonitor::cycle`]. An error certifies nothing; the
    /// monitor stays consistent for the next cycle (module docs, "Failed
    /// cycles").
    pub fn cycle_with_intervals(
        &mut self,
        intervals: &[JointInterval],
    ) -> Result<MonitorReport, GeometryError> {
        // Steps 1–2: every needed swept volume, all formed before any is
        // kept. A volume replaced before a later one fails would make the
        // next cycle measure its growth from a volume no bound was carried
        // to, and carry bounds that are too large.
        self.staged.clear();
        for (i, k) in self.keys.iter().enumerate() {
            let Some(body) = &self.bodies[k.link] else {
                continue;
            };
            let swept = swept_ssch(
                &self.tree,
                k.link,
                body,
                intervals,
                k.frame,
                &self.options.swept,
            )
            .map_err(|source| GeometryError::Kinematics {
                context: format!(
                    "swept volume of link `{}`",
                    self.tree.links()[k.link].name()
                ),
                source,
            })?;
            self.staged.push((i, swept));
        }
        // Infallible from here to the carry's end: the volumes, their
        // growth and the carried bounds change together.
        for (i, swept) in self.staged.drain(..) {
            let k = &mut self.keys[i];
            k.growth = k
                .current
                .as_ref()
                .map_or(f64::INFINITY, |prev| growth(prev, &swept));
            k.current = Some(swept);
        }

        // Carry every bound over to the new volumes, the sum rounded up
        // and the difference down so that rounding never raises a bound.
        for p in &mut self.pairs {
            let g = (self.keys[p.key_a].growth + p.key_b.map_or(0.0, |k| self.keys[k].growth))
                .next_up();
            let carried = (p.bound - g).next_down();
            p.bound = if carried.is_finite() {
                carried - (CARRY_MARGIN * carried.abs()).max(1e-12)
            } else {
                f64::NEG_INFINITY
            };
        }

        // Step 3 in priority order: smallest carried bound first.
        self.order.clear();
        self.order.extend(0..self.pairs.len());
        let pairs = &self.pairs;
        self.order
            .sort_by(|&a, &b| pairs[a].bound.total_cmp(&pairs[b].bound).then(a.cmp(&b)));
        let budget = self.options.budget;
        let start = budget.max_time.map(|_| Instant::now());
        let mut report = MonitorReport {
            stop: false,
            closest: None,
            distance_lower_bound: f64::INFINITY,
            pairs_evaluated: 0,
            pairs_carried_over: 0,
            pairs_unknown: 0,
            gjk_iterations: 0,
        };
        for &i in &self.order {
            let out_of_budget = budget
                .max_pair_evaluations
                .is_some_and(|n| report.pairs_evaluated >= n)
                || (report.pairs_evaluated > 0
                    && budget
                        .max_time
                        .zip(start)
                        .is_some_and(|(t, s)| s.elapsed() >= t));
            if out_of_budget {
                break;
            }
            let p = &mut self.pairs[i];
            let a = self.keys[p.key_a].current.as_ref();
            let b = match (p.key_b, p.pair) {
                (Some(k), _) => self.keys[k].current.as_ref(),
                (None, MonitorPair::LinkObstacle(_, o)) => Some(&self.obstacles[o].volume),
                (None, MonitorPair::Links(..)) => None,
            };
            let (Some(a), Some(b)) = (a, b) else {
                continue;
            };
            let d = match ssch_distance(a, b, Some(&mut p.cache)) {
                Ok(d) => d,
                Err(source) => {
                    return Err(GeometryError::Distance {
                        pair: self.pair_name(self.pairs[i].pair),
                        source,
                    });
                }
            };
            self.pairs[i].bound = d.lower_bound;
            report.pairs_evaluated += 1;
            report.gjk_iterations += d.iterations;
        }

        // Step 4.
        for p in &self.pairs {
            if p.bound == f64::NEG_INFINITY {
                report.pairs_unknown += 1;
            }
            if p.bound < report.distance_lower_bound || report.closest.is_none() {
                report.distance_lower_bound = p.bound;
                report.closest = Some(p.pair);
            }
        }
        report.pairs_carried_over = self.pairs.len() - report.pairs_evaluated;
        report.stop =
            report.closest.is_some() && report.distance_lower_bound <= self.options.safety_distance;
        Ok(report)
    }
}
