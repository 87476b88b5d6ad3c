//! The resolution study: how small `ρ` must be before the fixed-resolution
//! planner stops returning colliding paths, and what the adaptive planner
//! costs instead (see the [module docs](super)).

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use armature::{PathStatus, Pipeline, Scene};

use super::checker::{AdaptiveChecker, FixedResolutionChecker};
use super::problems::Problem;
use super::sbl::{PlanStatus, Planner, PlannerOptions};
use super::{ConfigSpace, PlannerError};

/// Seeds of the adaptive runs start this far from the fixed-resolution
/// ones, so the two planners never share a roadmap by accident.
const ADAPTIVE_SEED_OFFSET: u64 = 1 << 32;

/// Parameters of [`rho_study`].
#[derive(Clone, Debug, PartialEq)]
pub struct StudyConfig {
    /// The first resolution tried.
    pub rho0: f64,
    /// `ρ` is divided by this after a series returns a colliding path
    /// (1.2 in M2).
    pub rho_divisor: f64,
    /// The series lengths `N` to retain a `ρ` for (50 and 100 in M2).
    pub targets: Vec<usize>,
    /// Runs of the adaptive planner (`M`, 100 in M2).
    pub adaptive_runs: usize,
    /// The adaptive planner's clearance `ε`.
    pub adaptive_clearance: f64,
    /// The planner's options, the same for both checkers.
    pub planner: PlannerOptions,
    /// Most series (values of `ρ`) tried.
    pub max_series: usize,
    /// Most fixed-resolution runs over all series.
    pub max_runs: usize,
    /// Most wall-clock time of the fixed-resolution series (`None`: no
    /// limit); the adaptive runs are bounded by `adaptive_runs`.
    pub time_limit: Option<Duration>,
    /// Seed of the first run; run `i` of the study uses `seed + i`.
    pub seed: u64,
}

impl StudyConfig {
    /// M2's procedure from `rho0`: divisor 1.2, `N` = 50 and 100, 100
    /// adaptive runs with clearance 0, default planner options, at most 40
    /// series and 10,000 runs, no time limit.
    #[must_use]
    pub fn paper(rho0: f64) -> Self {
        Self {
            rho0,
            rho_divisor: 1.2,
            targets: vec![50, 100],
            adaptive_runs: 100,
            adaptive_clearance: 0.0,
            planner: PlannerOptions::default(),
            max_series: 40,
            max_runs: 10_000,
            time_limit: None,
            seed: 1,
        }
    }

    fn validate(&self) -> Result<(), PlannerError> {
        let bad = |name, value, why| Err(PlannerError::InvalidOption { name, value, why });
        if !(self.rho0.is_finite() && self.rho0 > 0.0) {
            return bad("rho0", self.rho0, "must be finite and positive");
        }
        if !(self.rho_divisor.is_finite() && self.rho_divisor > 1.0) {
            return bad(
                "rho_divisor",
                self.rho_divisor,
                "must be finite and above 1",
            );
        }
        if let Some(&n) = self.targets.iter().find(|&&n| n == 0) {
            return bad("targets", n as f64, "each must be at least 1");
        }
        self.planner.validate()
    }
}

/// How a series of fixed-resolution runs ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeriesEnd {
    /// A returned path collides (adaptive bisection, clearance 0, found the
    /// collision): `ρ` is divided and a new series starts.
    CollidingPath,
    /// A returned path could not be decided within the verifier's budget:
    /// not counted as correct, so it ends the series as a collision would.
    UnverifiedPath,
    /// Every target `N` was reached.
    TargetsReached,
    /// The study's run or time limit.
    Limit,
}

/// One series: runs at one `ρ`.
#[derive(Clone, Debug, PartialEq)]
pub struct SeriesRecord {
    /// The resolution.
    pub rho: f64,
    /// Runs made.
    pub runs: usize,
    /// Runs that returned a path verified free (consecutive: the series
    /// ends at the first wrong one).
    pub correct: usize,
    /// Runs that found no path within the planner's budget (neither
    /// correct nor wrong).
    pub no_path: usize,
    /// How it ended.
    pub end: SeriesEnd,
}

/// The first `ρ` reaching `n` consecutive correct runs.
#[derive(Clone, Debug, PartialEq)]
pub struct RhoThreshold {
    /// `N`.
    pub n: usize,
    /// The resolution (`None`: not reached within the limits).
    pub rho: Option<f64>,
    /// Mean time of the first `n` correct runs of that series.
    pub mean_time: Option<Duration>,
    /// Mean checker calls of those runs.
    pub mean_checker_calls: Option<f64>,
}

/// The adaptive planner's runs.
#[derive(Clone, Debug, PartialEq)]
pub struct AdaptiveSummary {
    /// Its clearance `ε`.
    pub clearance: f64,
    /// Runs made (`M`).
    pub runs: usize,
    /// Runs that returned a path.
    pub found: usize,
    /// Of those, paths the clearance-0 verifier calls free (all of them,
    /// unless a verifier budget runs out: the planner's checker already
    /// certified each one).
    pub verified_free: usize,
    /// Mean time over the runs that found a path.
    pub mean_time: Option<Duration>,
    /// Mean checker calls over those runs.
    pub mean_checker_calls: Option<f64>,
}

/// What [`rho_study`] found on one problem.
#[derive(Clone, Debug, PartialEq)]
pub struct StudyReport {
    /// The series, `ρ` decreasing.
    pub series: Vec<SeriesRecord>,
    /// One per target `N`, in increasing `N`.
    pub thresholds: Vec<RhoThreshold>,
    /// The adaptive planner.
    pub adaptive: AdaptiveSummary,
}

fn mean_duration(times: &[Duration]) -> Option<Duration> {
    let n = u32::try_from(times.len()).ok().filter(|&n| n > 0)?;
    Some(times.iter().sum::<Duration>() / n)
}

fn mean(values: &[u64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<u64>() as f64 / values.len() as f64)
}

/// Whether `path` is certainly free: adaptive bisection with clearance 0
/// and no cache from earlier paths.
fn verify(
    verifier: &mut armature::PreparedPaths<'_>,
    path: &[Vec<f64>],
) -> Result<PathStatus, PlannerError> {
    verifier.clear_cache();
    Ok(verifier.check_path(path)?.status)
}

/// M2 §V.D's procedure on one problem (see the [module docs](super)):
/// fixed-resolution series from `config.rho0`, each run with a new seed and
/// its path verified by adaptive bisection with clearance 0, `ρ` divided
/// by `config.rho_divisor` after a colliding (or unverifiable) path, until
/// every target `N` has a series of `N` consecutive correct runs or a limit
/// is reached; then `config.adaptive_runs` runs of the adaptive planner.
/// Runs that find no path neither count nor break a series. Milestones are
/// tested, and paths checked, with the scene's pair rules.
///
/// # Errors
/// [`PlannerError::InvalidOption`] for a `rho0` that is not finite and
/// positive, a divisor not above 1, a target of 0, or bad planner options;
/// [`PlannerError::UnsupportedJoint`] when the scene's joints cannot be
/// sampled ([`ConfigSpace::from_scene`]); the planner's errors (a start or
/// goal that collides).
pub fn rho_study(
    scene: &Scene,
    problem: &Problem,
    config: &StudyConfig,
) -> Result<StudyReport, PlannerError> {
    config.validate()?;
    let space = ConfigSpace::from_scene(scene)?;
    let plain = Pipeline::builder()
        .locate_path_collision(false)
        .earliest_path_collision(false)
        .build()?;
    let planner = Planner::new(scene, &plain, space, config.planner.clone())?;
    let mut verifier = plain.prepare_paths(scene)?;

    let mut targets = config.targets.clone();
    targets.sort_unstable();
    targets.dedup();
    let mut thresholds: Vec<RhoThreshold> = targets
        .iter()
        .map(|&n| RhoThreshold {
            n,
            rho: None,
            mean_time: None,
            mean_checker_calls: None,
        })
        .collect();

    let clock = Instant::now();
    let mut series = Vec::new();
    let mut rho = config.rho0;
    let mut run = 0u64;
    let out_of_limits = |run: u64| {
        run >= config.max_runs as u64 || config.time_limit.is_some_and(|t| clock.elapsed() >= t)
    };
    while !targets.is_empty() && series.len() < config.max_series && !out_of_limits(run) {
        let mut checker = FixedResolutionChecker::new(&plain, scene, rho)?;
        let mut record = SeriesRecord {
            rho,
            runs: 0,
            correct: 0,
            no_path: 0,
            end: SeriesEnd::Limit,
        };
        let mut times = Vec::new();
        let mut calls = Vec::new();
        while !out_of_limits(run) {
            let seed = config.seed.wrapping_add(run);
            run += 1;
            record.runs += 1;
            let report = planner.plan(&mut checker, &problem.start, &problem.goal, seed)?;
            let Some(path) = report.path.as_deref() else {
                record.no_path += 1;
                continue;
            };
            match verify(&mut verifier, path)? {
                PathStatus::Free => {}
                PathStatus::Collides => {
                    record.end = SeriesEnd::CollidingPath;
                    break;
                }
                PathStatus::BudgetExhausted => {
                    record.end = SeriesEnd::UnverifiedPath;
                    break;
                }
            }
            record.correct += 1;
            times.push(report.time);
            calls.push(report.checker.path_checks);
            while targets.first() == Some(&record.correct) {
                let n = targets.remove(0);
                if let Some(t) = thresholds.iter_mut().find(|t| t.n == n) {
                    t.rho = Some(rho);
                    t.mean_time = mean_duration(&times);
                    t.mean_checker_calls = mean(&calls);
                }
            }
            if targets.is_empty() {
                record.end = SeriesEnd::TargetsReached;
                break;
            }
        }
        let end = record.end;
        series.push(record);
        if !matches!(end, SeriesEnd::CollidingPath | SeriesEnd::UnverifiedPath) {
            break;
        }
        rho /= config.rho_divisor;
    }

    let pipeline = Pipeline::builder()
        .path_clearance(config.adaptive_clearance)
        .locate_path_collision(false)
        .earliest_path_collision(false)
        .build()?;
    let mut checker = AdaptiveChecker::new(&pipeline, scene)?;
    let mut adaptive = AdaptiveSummary {
        clearance: config.adaptive_clearance,
        runs: 0,
        found: 0,
        verified_free: 0,
        mean_time: None,
        mean_checker_calls: None,
    };
    let mut times = Vec::new();
    let mut calls = Vec::new();
    for i in 0..config.adaptive_runs as u64 {
        let seed = config
            .seed
            .wrapping_add(ADAPTIVE_SEED_OFFSET)
            .wrapping_add(i);
        let report = planner.plan(&mut checker, &problem.start, &problem.goal, seed)?;
        adaptive.runs += 1;
        if let (PlanStatus::Found, Some(path)) = (report.status, report.path.as_deref()) {
            adaptive.found += 1;
            times.push(report.time);
            calls.push(report.checker.path_checks);
            if verify(&mut verifier, path)? == PathStatus::Free {
                adaptive.verified_free += 1;
            }
        }
    }
    adaptive.mean_time = mean_duration(&times);
    adaptive.mean_checker_calls = mean(&calls);

    Ok(StudyReport {
        series,
        thresholds,
        adaptive,
    })
}

fn ms(d: Option<Duration>) -> String {
    d.map_or_else(
        || "–".to_owned(),
        |d| format!("{:.2}", d.as_secs_f64() * 1e3),
    )
}

fn num(v: Option<f64>) -> String {
    v.map_or_else(|| "–".to_owned(), |v| format!("{v:.1}"))
}

impl StudyReport {
    /// Markdown tables: the retained `ρ` per `N` with the fixed-resolution
    /// planner's mean time beside the adaptive planner's (M2 Tables IV and
    /// V side by side), then the series. `problem` names the row.
    #[must_use]
    pub fn to_markdown(&self, problem: &str) -> String {
        let a = &self.adaptive;
        let mut s = String::new();
        s.push_str(
            "| problem | N | first ρ with N correct runs | fixed-res mean time (ms) | \
             fixed-res mean checks | adaptive mean time (ms) | adaptive mean checks | \
             adaptive runs (found / verified) |\n",
        );
        s.push_str("|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for t in &self.thresholds {
            let _ = writeln!(
                s,
                "| {problem} | {} | {} | {} | {} | {} | {} | {} ({} / {}), ε = {} |",
                t.n,
                t.rho
                    .map_or_else(|| "not reached".to_owned(), |r| format!("{r:.4}")),
                ms(t.mean_time),
                num(t.mean_checker_calls),
                ms(a.mean_time),
                num(a.mean_checker_calls),
                a.runs,
                a.found,
                a.verified_free,
                a.clearance,
            );
        }
        s.push('\n');
        s.push_str("| ρ | runs | correct | no path | end |\n|---:|---:|---:|---:|---|\n");
        for r in &self.series {
            let end = match r.end {
                SeriesEnd::CollidingPath => "colliding path",
                SeriesEnd::UnverifiedPath => "unverified path",
                SeriesEnd::TargetsReached => "targets reached",
                SeriesEnd::Limit => "limit",
            };
            let _ = writeln!(
                s,
                "| {:.4} | {} | {} | {} | {end} |",
                r.rho, r.runs, r.correct, r.no_path
            );
        }
        s
    }
}
