//! Seeded planning problems: collision-free start and goal pairs.

use armature::{PathStatus, Pipeline, Scene};

use super::{ConfigSpace, PlannerError, distance};
use crate::SplitMix;

/// A planning problem: a start and a goal configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// Where the path begins (root of the start tree).
    pub start: Vec<f64>,
    /// Where it ends (root of the goal tree).
    pub goal: Vec<f64>,
}

/// How [`random_problems`] draws problems.
#[derive(Clone, Debug, PartialEq)]
pub struct ProblemOptions {
    /// Problems wanted.
    pub count: usize,
    /// Least joint-space distance between start and goal.
    pub min_distance: f64,
    /// Keep only pairs whose straight segment collides (by adaptive
    /// bisection with clearance 0, so certainly), so that planning is more
    /// than one straight move.
    pub require_blocked: bool,
    /// Most pairs drawn before giving up (fewer problems are then
    /// returned).
    pub max_tries: usize,
    /// The seed: one seed, one list.
    pub seed: u64,
}

impl Default for ProblemOptions {
    fn default() -> Self {
        Self {
            count: 1,
            min_distance: 1.0,
            require_blocked: true,
            max_tries: 10_000,
            seed: 1,
        }
    }
}

/// Up to `options.count` problems on `scene`: start and goal uniform in
/// `space`, both collision-free ([`Pipeline::collides`] with the default
/// pipeline), at least `min_distance` apart and, when asked, not joined by
/// a collision-free straight segment. Fewer when `max_tries` pairs did not
/// yield them (a segment the checker's budget leaves undecided is not
/// kept: neither certainly blocked nor certainly free).
///
/// # Errors
/// [`PlannerError::WrongLength`] (`space`) when the space's dimension is
/// not the scene's; [`PlannerError::Armature`] when the scene cannot be
/// prepared for path checks.
pub fn random_problems(
    scene: &Scene,
    space: &ConfigSpace,
    options: &ProblemOptions,
) -> Result<Vec<Problem>, PlannerError> {
    if space.dim() != scene.nq() {
        return Err(PlannerError::WrongLength {
            which: "space",
            expected: scene.nq(),
            got: space.dim(),
        });
    }
    let pipeline = Pipeline::builder().locate_path_collision(false).build()?;
    let mut paths = pipeline.prepare_paths(scene)?;
    let mut rng = SplitMix(options.seed ^ 0x2545_F491_4F6C_DD1D);
    let mut out = Vec::with_capacity(options.count);
    let mut tries = 0;
    while out.len() < options.count && tries < options.max_tries {
        tries += 1;
        let start = space.sample(&mut rng);
        let goal = space.sample(&mut rng);
        if distance(&start, &goal) < options.min_distance
            || pipeline.collides(scene, &start)?
            || pipeline.collides(scene, &goal)?
        {
            continue;
        }
        if options.require_blocked {
            // Each verdict on its own, not on segments seen before.
            paths.clear_cache();
            let report = paths.check_path(&[&start, &goal])?;
            if report.status != PathStatus::Collides {
                continue;
            }
        }
        out.push(Problem { start, goal });
    }
    Ok(out)
}
