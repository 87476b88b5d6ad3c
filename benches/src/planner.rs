//! # A lazy bidirectional roadmap planner and the resolution study of M2
//!
//! This module measures what a path checker is worth inside a planner: the
//! experiment of M2 §V.D, where a sampling planner either tests its
//! candidate paths with FIXED-RES-BISECTION at a resolution `ρ` (which can
//! return a colliding path) or with ADAPTIVE-BISECTION (which never does).
//!
//! **The planner** ([`Planner`]) is of the single-query, bidirectional,
//! lazy kind of Sánchez and Latombe's SBL, as M2 §V.D summarises it. Two
//! trees of milestones grow from the start and from the goal; each
//! iteration
//!
//! 1. picks a milestone of one tree (the trees take turns) with a
//!    probability inversely proportional to how many milestones of its tree
//!    lie within the expansion radius (so sparse regions grow first),
//!    draws a configuration uniformly in a box around it (half-width
//!    `step / i` at the `i`-th try: the neighbourhood shrinks after each
//!    colliding draw), and installs the first collision-free draw as a
//!    child of that milestone — only the configuration is tested, never
//!    the segment to its parent (the lazy part);
//! 2. joins the new milestone to the closest milestone of the other tree,
//!    when that one is within [`PlannerOptions::connect_distance`];
//! 3. hands the whole candidate path (start root → … → new milestone →
//!    closest milestone → … → goal root) to a [`SegmentChecker`]. A free
//!    path is the answer. Otherwise the segment the checker names is cut
//!    from the roadmap: the bridge between the trees is simply forgotten;
//!    a tree edge is removed together with the subtree beyond it, whose
//!    milestones are dropped. (SBL proper re-attaches that subtree to the
//!    other tree through the bridge; dropping it is simpler, keeps every
//!    tree a tree, and only costs milestones, which are cheap.)
//!
//! Every segment of a candidate path is oriented from the start to the
//! goal, so a tree edge is always checked in the same direction and the
//! adaptive checker's per-segment cache (keyed by the segment's end points)
//! resumes its work whenever an edge comes back in a later candidate path.
//! A run is seeded: one seed gives one roadmap, one path and one set of
//! counters; budgets of iterations, milestones and time end a run with a
//! "no path found" outcome ([`PlanStatus`]).
//!
//! **The checkers** ([`SegmentChecker`]): [`AdaptiveChecker`] (the
//! facade's [`armature::PreparedPaths`], whose segment cache lives for one
//! planning run) and [`FixedResolutionChecker`] (midpoints, longest
//! sub-segment first, until every piece is shorter than `ρ`).
//!
//! **The study** ([`rho_study`]) follows M2 §V.D: for one planning
//! problem, series of fixed-resolution runs with one `ρ` per series, a new
//! seed per run, and every returned path checked by adaptive bisection
//! with clearance 0 (which never misses a collision). A colliding path ends
//! the series and divides `ρ` by 1.2; the first `ρ` whose series reaches
//! `N` consecutive correct runs is retained with the mean run time over
//! those `N` runs (the paper reports `N = 50` and `N = 100`). The adaptive
//! planner's mean run time over `M` runs is measured alongside.
//! [`random_problems`] draws planning problems for it.
//!
//! The configuration space is the box of the joint limits
//! ([`ConfigSpace`]) with the joint-space Euclidean metric, the metric of
//! `ρ`; joints with several values (spherical, floating, …) are not
//! supported.

mod checker;
mod problems;
mod sbl;
mod study;

pub use checker::{
    AdaptiveChecker, CheckerCounters, FixedResolutionChecker, PathVerdict, SegmentChecker,
};
pub use problems::{Problem, ProblemOptions, random_problems};
pub use sbl::{PlanReport, PlanStatus, Planner, PlannerOptions};
pub use study::{
    AdaptiveSummary, RhoThreshold, SeriesEnd, SeriesRecord, StudyConfig, StudyReport, rho_study,
};

use armature::Scene;
use armature::bisection::BisectionError;

/// Why a planner, checker, problem draw or study could not run (bad
/// input; a run that finds no path is a [`PlanStatus`], not an error).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlannerError {
    /// The facade rejected a configuration or the scene (the message names
    /// the configuration: `start`, `goal`, `waypoints[k]`, …).
    #[error(transparent)]
    Armature(#[from] armature::Error),
    /// The fixed-resolution checker rejected its input.
    #[error("path check: {0}")]
    Bisection(#[from] BisectionError),
    /// An option outside its documented range.
    #[error("option `{name}` = {value}: {why}")]
    InvalidOption {
        /// The option's name.
        name: &'static str,
        /// The offending value.
        value: f64,
        /// The accepted range.
        why: &'static str,
    },
    /// A joint the configuration space cannot sample: one with several
    /// values, or an unlimited prismatic joint.
    #[error("joint `{name}` ({kind}): {why}")]
    UnsupportedJoint {
        /// The joint's name.
        name: String,
        /// Its type.
        kind: &'static str,
        /// Why it cannot be sampled.
        why: &'static str,
    },
    /// A bound of a [`ConfigSpace`] that is not a finite, non-empty range.
    #[error("bound {index} = ({lo}, {hi}): must be finite with lo <= hi")]
    InvalidBound {
        /// The coordinate.
        index: usize,
        /// Its lower bound.
        lo: f64,
        /// Its upper bound.
        hi: f64,
    },
    /// A start or goal whose length differs from the configuration space's.
    #[error("configuration `{which}`: expected {expected} values, got {got}")]
    WrongLength {
        /// `start` or `goal`.
        which: &'static str,
        /// The configuration space's dimension.
        expected: usize,
        /// The configuration's length.
        got: usize,
    },
    /// A start or goal that collides: no collision-free path can begin or
    /// end there.
    #[error("configuration `{which}` collides")]
    EndpointInCollision {
        /// `start` or `goal`.
        which: &'static str,
    },
}

/// The box a planner samples: one `(lo, hi)` range per configuration value,
/// with the joint-space Euclidean metric ([`distance`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigSpace {
    bounds: Vec<(f64, f64)>,
}

impl ConfigSpace {
    /// The box of these ranges.
    ///
    /// # Errors
    /// [`PlannerError::InvalidBound`] naming a range that is not finite or
    /// has `lo > hi`.
    pub fn new(bounds: Vec<(f64, f64)>) -> Result<Self, PlannerError> {
        if let Some((index, &(lo, hi))) = bounds
            .iter()
            .enumerate()
            .find(|(_, (lo, hi))| !(lo.is_finite() && hi.is_finite() && lo <= hi))
        {
            return Err(PlannerError::InvalidBound { index, lo, hi });
        }
        Ok(Self { bounds })
    }

    /// The box of `scene`'s joint limits: a revolute joint without limits
    /// and a continuous joint turn over `[−π, π]` (one turn covers every
    /// pose).
    ///
    /// # Errors
    /// [`PlannerError::UnsupportedJoint`] for a joint with several values
    /// or an unlimited joint of another type (prismatic: no natural range).
    pub fn from_scene(scene: &Scene) -> Result<Self, PlannerError> {
        let mut bounds = Vec::with_capacity(scene.nq());
        for j in scene.joints() {
            if j.q.len() != 1 {
                return Err(PlannerError::UnsupportedJoint {
                    name: j.name,
                    kind: j.kind,
                    why: "only joints with one value are sampled",
                });
            }
            let range = match (j.limits, j.kind) {
                (Some(l), _) => l,
                (None, "revolute" | "continuous") => (-std::f64::consts::PI, std::f64::consts::PI),
                (None, kind) => {
                    return Err(PlannerError::UnsupportedJoint {
                        name: j.name,
                        kind,
                        why: "an unlimited joint of this type has no range to sample",
                    });
                }
            };
            bounds.push(range);
        }
        Self::new(bounds)
    }

    /// The ranges, one per configuration value.
    #[must_use]
    pub fn bounds(&self) -> &[(f64, f64)] {
        &self.bounds
    }

    /// Number of configuration values.
    #[must_use]
    pub fn dim(&self) -> usize {
        self.bounds.len()
    }

    /// A configuration uniform in the box.
    fn sample(&self, rng: &mut crate::SplitMix) -> Vec<f64> {
        self.bounds
            .iter()
            .map(|&(lo, hi)| rng.uniform(lo, hi))
            .collect()
    }

    /// A configuration uniform in the part of the box within `half_width`
    /// of `center` in every coordinate.
    fn sample_near(&self, center: &[f64], half_width: f64, rng: &mut crate::SplitMix) -> Vec<f64> {
        self.bounds
            .iter()
            .zip(center)
            .map(|(&(lo, hi), &c)| {
                let a = (c - half_width).max(lo);
                let b = (c + half_width).min(hi);
                // A centre outside the box (a start given out of limits)
                // leaves an empty range; its nearest face is the sample.
                if a <= b {
                    rng.uniform(a, b)
                } else {
                    c.clamp(lo, hi)
                }
            })
            .collect()
    }
}

/// The joint-space Euclidean distance, the metric of the resolution `ρ`.
#[must_use]
pub fn distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt()
}
