//! The path checkers a planner can use: adaptive bisection through the
//! facade, and the fixed-resolution baseline.

use armature::bisection::PathChecker;
use armature::{PathStats, PathStatus, Pipeline, PreparedPaths, Scene};

use super::PlannerError;

/// What a [`SegmentChecker`] says about a multi-segment path (segment `k`
/// runs from waypoint `k` to waypoint `k + 1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathVerdict {
    /// The checker found no collision (a certificate for the adaptive
    /// checker, only "no sample collides" for the fixed-resolution one).
    Free,
    /// Segment `segment` collides (the earliest the checker found).
    Collides {
        /// The colliding segment.
        segment: usize,
    },
    /// The checker's budget ran out before `segment` was decided: it may
    /// collide, and a planner treats it as colliding.
    Undecided {
        /// The first segment not known to be free.
        segment: usize,
    },
}

impl PathVerdict {
    /// The segment a planner must cut: `None` for a free path.
    #[must_use]
    pub const fn blocked_segment(&self) -> Option<usize> {
        match *self {
            Self::Free => None,
            Self::Collides { segment } | Self::Undecided { segment } => Some(segment),
        }
    }
}

/// Work counters of a checker since its last [`SegmentChecker::reset`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckerCounters {
    /// Paths checked (calls of [`SegmentChecker::check_path`]).
    pub path_checks: u64,
    /// Segments in those paths, repeats included.
    pub segments: u64,
    /// Segments whose earlier work came from the cache (adaptive checker
    /// only).
    pub segments_from_cache: u64,
    /// Paths answered [`PathVerdict::Undecided`].
    pub undecided: u64,
    /// Queue pops: bisection steps of the adaptive checker, midpoints of
    /// the fixed-resolution one.
    pub queue_pops: u64,
    /// Discrete checks of one pair at one configuration.
    pub discrete_checks: u64,
    /// GREEDY-DIST calls (adaptive checker only).
    pub greedy_calls: u64,
    /// Forward-kinematics evaluations.
    pub forward_kinematics: u64,
}

impl CheckerCounters {
    fn record(&mut self, segments: usize, stats: &PathStats, verdict: PathVerdict) {
        self.path_checks += 1;
        self.segments += segments as u64;
        self.segments_from_cache += stats.segments_from_cache as u64;
        self.undecided += u64::from(matches!(verdict, PathVerdict::Undecided { .. }));
        self.queue_pops += stats.queue_pops;
        self.discrete_checks += stats.discrete_checks;
        self.greedy_calls += stats.greedy_calls;
        self.forward_kinematics += stats.forward_kinematics;
    }
}

/// Checks multi-segment paths for a planner, counting its work. A planner
/// calls [`SegmentChecker::reset`] at the start of every run, so work kept
/// between calls (a cache) lives for one run.
pub trait SegmentChecker {
    /// A short name for tables (`adaptive ε=0`, `fixed ρ=0.05`).
    fn label(&self) -> String;

    /// Checks the path through `waypoints` (at least two).
    ///
    /// # Errors
    /// [`PlannerError`] for waypoints the checker rejects (fewer than two,
    /// a wrong length, a non-finite value).
    fn check_path(&mut self, waypoints: &[Vec<f64>]) -> Result<PathVerdict, PlannerError>;

    /// The work since the last reset.
    fn counters(&self) -> CheckerCounters;

    /// Forgets the work of earlier paths (cache and counters).
    fn reset(&mut self);
}

/// ADAPTIVE-BISECTION through the facade ([`PreparedPaths`]): never calls a
/// colliding path free. Segment work is cached between the paths of one
/// run, so an edge that comes back in a later candidate path resumes where
/// its earlier check stopped (or reuses its verdict).
#[derive(Debug)]
pub struct AdaptiveChecker<'s> {
    paths: PreparedPaths<'s>,
    clearance: f64,
    counters: CheckerCounters,
}

impl<'s> AdaptiveChecker<'s> {
    /// The checker of `pipeline` on `scene` (its clearance, budget and pair
    /// rules). A pipeline built with `locate_path_collision(false)` saves
    /// the work of locating a collision inside its segment, which a
    /// planner does not use.
    ///
    /// # Errors
    /// [`PlannerError::Armature`] when the scene cannot be prepared for
    /// path checks.
    pub fn new(pipeline: &Pipeline, scene: &'s Scene) -> Result<Self, PlannerError> {
        Ok(Self {
            paths: pipeline.prepare_paths(scene)?,
            clearance: pipeline.path_clearance(),
            counters: CheckerCounters::default(),
        })
    }

    /// The checker with clearance `ε` (the facade's defaults otherwise,
    /// collisions not located).
    ///
    /// # Errors
    /// [`PlannerError::Armature`] for a clearance that is not finite and
    /// non-negative, or a scene that cannot be prepared.
    pub fn with_clearance(scene: &'s Scene, clearance: f64) -> Result<Self, PlannerError> {
        let pipeline = Pipeline::builder()
            .path_clearance(clearance)
            .locate_path_collision(false)
            .earliest_path_collision(false)
            .build()?;
        Self::new(&pipeline, scene)
    }
}

impl SegmentChecker for AdaptiveChecker<'_> {
    fn label(&self) -> String {
        format!("adaptive ε={}", self.clearance)
    }

    fn check_path(&mut self, waypoints: &[Vec<f64>]) -> Result<PathVerdict, PlannerError> {
        let report = self.paths.check_path(waypoints)?;
        let verdict = match (report.status, report.first_colliding_segment) {
            (PathStatus::Free, _) => PathVerdict::Free,
            (PathStatus::Collides, Some(segment)) => PathVerdict::Collides { segment },
            // Undecided: the certified prefix ends at the first segment not
            // known to be free.
            _ => PathVerdict::Undecided {
                segment: report.certified_free_prefix.0,
            },
        };
        self.counters
            .record(waypoints.len().saturating_sub(1), &report.stats, verdict);
        Ok(verdict)
    }

    fn counters(&self) -> CheckerCounters {
        self.counters
    }

    fn reset(&mut self) {
        self.paths.clear_cache();
        self.counters = CheckerCounters::default();
    }
}

/// FIXED-RES-BISECTION: discrete checks at the waypoints and at midpoints,
/// longest sub-segment first, until every sub-segment is shorter than `ρ`
/// (joint-space Euclidean). It keeps no work between paths and can call a
/// colliding path free (a thin obstacle between two samples).
#[derive(Debug)]
pub struct FixedResolutionChecker<'s> {
    checker: PathChecker<'s>,
    rho: f64,
    counters: CheckerCounters,
}

impl<'s> FixedResolutionChecker<'s> {
    /// The checker at resolution `rho` on `scene`, with `pipeline`'s pair
    /// rules and budget of midpoints per path.
    ///
    /// # Errors
    /// [`PlannerError::InvalidOption`] (`rho`) unless finite and positive;
    /// [`PlannerError::Bisection`] when the scene cannot be prepared.
    pub fn new(pipeline: &Pipeline, scene: &'s Scene, rho: f64) -> Result<Self, PlannerError> {
        if !(rho.is_finite() && rho > 0.0) {
            return Err(PlannerError::InvalidOption {
                name: "rho",
                value: rho,
                why: "must be finite and positive",
            });
        }
        let checker = PathChecker::new(
            scene.body(),
            scene.obstacles(),
            scene.disabled_pairs(),
            &pipeline.path_options(scene),
        )?;
        Ok(Self {
            checker,
            rho,
            counters: CheckerCounters::default(),
        })
    }

    /// The resolution `ρ`.
    #[must_use]
    pub const fn rho(&self) -> f64 {
        self.rho
    }
}

impl SegmentChecker for FixedResolutionChecker<'_> {
    fn label(&self) -> String {
        format!("fixed ρ={}", self.rho)
    }

    fn check_path(&mut self, waypoints: &[Vec<f64>]) -> Result<PathVerdict, PlannerError> {
        let report = self
            .checker
            .check_path_fixed_resolution(waypoints, self.rho)?;
        let verdict = match (report.status, report.first_colliding_segment) {
            (PathStatus::Free, _) => PathVerdict::Free,
            (PathStatus::Collides, Some(segment)) => PathVerdict::Collides { segment },
            // The baseline certifies no prefix: when its budget runs out
            // the whole path is in doubt, and the first segment goes.
            _ => PathVerdict::Undecided { segment: 0 },
        };
        self.counters
            .record(waypoints.len().saturating_sub(1), &report.stats, verdict);
        Ok(verdict)
    }

    fn counters(&self) -> CheckerCounters {
        self.counters
    }

    fn reset(&mut self) {
        self.counters = CheckerCounters::default();
    }
}
