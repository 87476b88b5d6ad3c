//! The lazy bidirectional planner (see the [module docs](super)).

use std::time::{Duration, Instant};

use armature::{Pipeline, Scene};

use super::checker::{CheckerCounters, SegmentChecker};
use super::{ConfigSpace, PlannerError, distance};
use crate::SplitMix;

/// Options of a [`Planner`]; lengths are joint-space Euclidean (radians and
/// metres mixed as the configuration vector mixes them).
#[derive(Clone, Debug, PartialEq)]
pub struct PlannerOptions {
    /// Half-width of the box a new milestone is drawn in around an existing
    /// one at the first try; also the radius within which milestones count
    /// towards a milestone's density. Default 0.5.
    pub step: f64,
    /// Draws per expansion: the `i`-th draw uses half-width `step / i`;
    /// when all collide the iteration installs nothing. Default 4.
    pub expansion_tries: usize,
    /// A new milestone is joined to the closest milestone of the other
    /// tree only within this distance (may be infinite). Default 1.0.
    pub connect_distance: f64,
    /// Most iterations of one run. Default 10,000.
    pub max_iterations: usize,
    /// Most milestones installed in one run, the two roots included.
    /// Default 5,000.
    pub max_milestones: usize,
    /// Most wall-clock time of one run (`None`: no limit). A run stopped
    /// by time depends on the machine; the other outcomes only on the seed.
    pub time_limit: Option<Duration>,
}

impl Default for PlannerOptions {
    fn default() -> Self {
        Self {
            step: 0.5,
            expansion_tries: 4,
            connect_distance: 1.0,
            max_iterations: 10_000,
            max_milestones: 5_000,
            time_limit: None,
        }
    }
}

impl PlannerOptions {
    /// Checks the ranges.
    ///
    /// # Errors
    /// [`PlannerError::InvalidOption`] for a `step` that is not finite and
    /// positive, a `connect_distance` that is NaN or not positive, or zero
    /// `expansion_tries`.
    pub fn validate(&self) -> Result<(), PlannerError> {
        if !(self.step.is_finite() && self.step > 0.0) {
            return Err(PlannerError::InvalidOption {
                name: "step",
                value: self.step,
                why: "must be finite and positive",
            });
        }
        if self.connect_distance.is_nan() || self.connect_distance <= 0.0 {
            return Err(PlannerError::InvalidOption {
                name: "connect_distance",
                value: self.connect_distance,
                why: "must be positive (infinite allowed)",
            });
        }
        if self.expansion_tries == 0 {
            return Err(PlannerError::InvalidOption {
                name: "expansion_tries",
                value: 0.0,
                why: "must be at least 1",
            });
        }
        Ok(())
    }
}

/// How a planning run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanStatus {
    /// The checker called a candidate path free: [`PlanReport::path`].
    Found,
    /// [`PlannerOptions::max_iterations`] iterations without a path.
    IterationLimit,
    /// [`PlannerOptions::max_milestones`] milestones without a path.
    MilestoneLimit,
    /// [`PlannerOptions::time_limit`] passed without a path.
    TimeLimit,
}

/// The outcome of one planning run.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanReport {
    /// How the run ended.
    pub status: PlanStatus,
    /// The path from start to goal (waypoints, both ends included) when
    /// [`PlanStatus::Found`].
    pub path: Option<Vec<Vec<f64>>>,
    /// Iterations run.
    pub iterations: usize,
    /// Milestones installed, the two roots included (milestones dropped
    /// with a cut subtree count too).
    pub milestones: usize,
    /// Milestones alive at the end, in both trees.
    pub live_milestones: usize,
    /// Discrete checks of drawn configurations (the milestone tests).
    pub milestone_checks: u64,
    /// Segments cut from the roadmap after a collision (tree edges and
    /// bridges).
    pub cut_segments: u64,
    /// The checker's counters over the run (its calls:
    /// [`CheckerCounters::path_checks`]).
    pub checker: CheckerCounters,
    /// Wall-clock time of the run, milestone tests and checker included.
    pub time: Duration,
}

/// One milestone of a tree.
#[derive(Clone, Debug)]
struct Node {
    q: Vec<f64>,
    parent: Option<usize>,
    children: Vec<usize>,
    alive: bool,
    /// Alive milestones of its tree within `step`, itself included.
    density: u32,
}

/// A tree of milestones; node 0 is the root.
#[derive(Clone, Debug)]
struct Tree {
    nodes: Vec<Node>,
}

impl Tree {
    fn new(root: Vec<f64>) -> Self {
        Self {
            nodes: vec![Node {
                q: root,
                parent: None,
                children: Vec::new(),
                alive: true,
                density: 1,
            }],
        }
    }

    fn live(&self) -> usize {
        self.nodes.iter().filter(|n| n.alive).count()
    }

    /// Adds `q` under `parent`, updating the densities within `radius`.
    fn add(&mut self, parent: usize, q: Vec<f64>, radius: f64) -> usize {
        let id = self.nodes.len();
        let mut density = 1;
        for n in self.nodes.iter_mut().filter(|n| n.alive) {
            if distance(&n.q, &q) <= radius {
                n.density += 1;
                density += 1;
            }
        }
        self.nodes.push(Node {
            q,
            parent: Some(parent),
            children: Vec::new(),
            alive: true,
            density,
        });
        self.nodes[parent].children.push(id);
        id
    }

    /// Drops `root` and its subtree, and detaches it from its parent.
    fn drop_subtree(&mut self, root: usize, radius: f64) {
        if let Some(p) = self.nodes[root].parent {
            self.nodes[p].children.retain(|&c| c != root);
        }
        let mut stack = vec![root];
        while let Some(i) = stack.pop() {
            if !self.nodes[i].alive {
                continue;
            }
            self.nodes[i].alive = false;
            stack.extend(self.nodes[i].children.iter().copied());
            let q = self.nodes[i].q.clone();
            for n in self.nodes.iter_mut().filter(|n| n.alive) {
                if distance(&n.q, &q) <= radius {
                    n.density -= 1;
                }
            }
        }
    }

    /// An alive milestone drawn with probability proportional to
    /// `1 / density`.
    fn pick(&self, rng: &mut SplitMix) -> usize {
        let total: f64 = self
            .nodes
            .iter()
            .filter(|n| n.alive)
            .map(|n| 1.0 / f64::from(n.density))
            .sum();
        let mut r = rng.next() * total;
        let mut last = 0;
        for (i, n) in self.nodes.iter().enumerate().filter(|(_, n)| n.alive) {
            last = i;
            r -= 1.0 / f64::from(n.density);
            if r < 0.0 {
                return i;
            }
        }
        // Rounding left `r` a hair above 0: the last alive milestone.
        last
    }

    /// The alive milestone closest to `q`, with its distance (the root is
    /// never dropped, so there is one).
    fn nearest(&self, q: &[f64]) -> (usize, f64) {
        let mut best = (0, distance(&self.nodes[0].q, q));
        for (i, n) in self
            .nodes
            .iter()
            .enumerate()
            .skip(1)
            .filter(|(_, n)| n.alive)
        {
            let d = distance(&n.q, q);
            if d < best.1 {
                best = (i, d);
            }
        }
        best
    }

    /// Node indices from `i` up to the root.
    fn to_root(&self, mut i: usize) -> Vec<usize> {
        let mut out = vec![i];
        while let Some(p) = self.nodes[i].parent {
            out.push(p);
            i = p;
        }
        out
    }
}

/// Where a segment of a candidate path comes from.
#[derive(Clone, Copy, Debug)]
enum Edge {
    /// The edge from a milestone of tree `tree` to its parent, named by the
    /// child.
    Tree { tree: usize, child: usize },
    /// The bridge between the two trees.
    Bridge,
}

/// An SBL-style lazy bidirectional planner on one scene (see the
/// [module docs](super)).
#[derive(Clone, Debug)]
pub struct Planner<'s> {
    scene: &'s Scene,
    pipeline: Pipeline,
    space: ConfigSpace,
    options: PlannerOptions,
}

impl<'s> Planner<'s> {
    /// A planner sampling `space` on `scene`, testing milestones with
    /// `pipeline`'s discrete check ([`Pipeline::collides`]).
    ///
    /// # Errors
    /// [`PlannerError::InvalidOption`] as [`PlannerOptions::validate`];
    /// [`PlannerError::WrongLength`] (`space`) when the space's dimension
    /// is not the scene's number of configuration values.
    pub fn new(
        scene: &'s Scene,
        pipeline: &Pipeline,
        space: ConfigSpace,
        options: PlannerOptions,
    ) -> Result<Self, PlannerError> {
        options.validate()?;
        if space.dim() != scene.nq() {
            return Err(PlannerError::WrongLength {
                which: "space",
                expected: scene.nq(),
                got: space.dim(),
            });
        }
        Ok(Self {
            scene,
            pipeline: pipeline.clone(),
            space,
            options,
        })
    }

    /// The options.
    #[must_use]
    pub const fn options(&self) -> &PlannerOptions {
        &self.options
    }

    /// The configuration space.
    #[must_use]
    pub const fn space(&self) -> &ConfigSpace {
        &self.space
    }

    fn collides(&self, q: &[f64]) -> Result<bool, PlannerError> {
        Ok(self.pipeline.collides(self.scene, q)?)
    }

    /// One planning run from `start` to `goal` with `checker` (reset
    /// first, so its cache and counters cover this run only). The same
    /// seed gives the same report, time aside, unless the time limit ends
    /// the run.
    ///
    /// # Errors
    /// [`PlannerError::WrongLength`] or [`PlannerError::Armature`] for a
    /// start or goal that is not a configuration of the scene;
    /// [`PlannerError::EndpointInCollision`] when one collides; the
    /// checker's errors.
    pub fn plan(
        &self,
        checker: &mut dyn SegmentChecker,
        start: &[f64],
        goal: &[f64],
        seed: u64,
    ) -> Result<PlanReport, PlannerError> {
        for (which, q) in [("start", start), ("goal", goal)] {
            if q.len() != self.space.dim() {
                return Err(PlannerError::WrongLength {
                    which,
                    expected: self.space.dim(),
                    got: q.len(),
                });
            }
            self.scene.check_configuration(which, q)?;
            if self.collides(q)? {
                return Err(PlannerError::EndpointInCollision { which });
            }
        }
        checker.reset();
        let clock = Instant::now();
        let o = &self.options;
        let mut rng = SplitMix(seed ^ 0x5851_F42D_4C95_7F2D);
        let mut trees = [Tree::new(start.to_vec()), Tree::new(goal.to_vec())];
        let mut report = PlanReport {
            status: PlanStatus::IterationLimit,
            path: None,
            iterations: 0,
            milestones: 2,
            live_milestones: 2,
            milestone_checks: 0,
            cut_segments: 0,
            checker: CheckerCounters::default(),
            time: Duration::ZERO,
        };
        let status = loop {
            if report.iterations >= o.max_iterations {
                break PlanStatus::IterationLimit;
            }
            if o.time_limit.is_some_and(|t| clock.elapsed() >= t) {
                break PlanStatus::TimeLimit;
            }
            let t = report.iterations % 2;
            report.iterations += 1;

            // (1) A new milestone near a sparse one, installed lazily.
            let from = trees[t].pick(&mut rng);
            let mut new_q = None;
            for i in 1..=o.expansion_tries {
                let q =
                    self.space
                        .sample_near(&trees[t].nodes[from].q, o.step / i as f64, &mut rng);
                report.milestone_checks += 1;
                if !self.collides(&q)? {
                    new_q = Some(q);
                    break;
                }
            }
            let Some(q) = new_q else { continue };
            if report.milestones >= o.max_milestones {
                break PlanStatus::MilestoneLimit;
            }
            report.milestones += 1;
            let new = trees[t].add(from, q, o.step);

            // (2) The bridge to the closest milestone of the other tree.
            let (near, d) = trees[1 - t].nearest(&trees[t].nodes[new].q);
            if d > o.connect_distance {
                continue;
            }

            // (3) The whole candidate path, start to goal.
            let (end0, end1) = if t == 0 { (new, near) } else { (near, new) };
            let mut up0 = trees[0].to_root(end0);
            up0.reverse();
            let up1 = trees[1].to_root(end1);
            let mut waypoints = Vec::with_capacity(up0.len() + up1.len());
            let mut edges = Vec::with_capacity(up0.len() + up1.len());
            for (k, &i) in up0.iter().enumerate() {
                waypoints.push(trees[0].nodes[i].q.clone());
                if k > 0 {
                    edges.push(Edge::Tree { tree: 0, child: i });
                }
            }
            edges.push(Edge::Bridge);
            for (k, &i) in up1.iter().enumerate() {
                waypoints.push(trees[1].nodes[i].q.clone());
                if k + 1 < up1.len() {
                    edges.push(Edge::Tree { tree: 1, child: i });
                }
            }
            match checker.check_path(&waypoints)?.blocked_segment() {
                None => {
                    report.path = Some(waypoints);
                    break PlanStatus::Found;
                }
                Some(k) => {
                    report.cut_segments += 1;
                    // Out of range cannot come from a checker that keeps
                    // its contract; cutting nothing then keeps the run
                    // going rather than stopping it.
                    if let Some(&Edge::Tree { tree, child }) = edges.get(k) {
                        trees[tree].drop_subtree(child, o.step);
                    }
                }
            }
        };
        report.status = status;
        report.live_milestones = trees[0].live() + trees[1].live();
        report.checker = checker.counters();
        report.time = clock.elapsed();
        Ok(report)
    }
}
