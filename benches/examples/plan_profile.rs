//! Profiles the planner study of `cargo xtask bench --suite planning` on one
//! scene: the candidate problems it draws (seed 1 unless given), each
//! solved by `RUNS` runs of the lazy bidirectional planner with the
//! adaptive checker (clearance 0) or the fixed-resolution one at `ρ`.
//! Per candidate: runs found, mean and median time, path checks per run and
//! the checker's counters, so a profiler can be pointed at one problem
//! (`callgrind --toggle-collect='plan_profile::timed_plan'`).
//!
//! ```text
//! cargo run --release -p armature-benches --example plan_profile -- \
//!     data/scenes/arms_car.ron [adaptive|fixed=RHO] [RUNS] [CANDIDATE] [SEED]
//! ```
//!
//! The planner has the study's options (every milestone joined to the
//! closest one of the other tree, a path check stopping at the first
//! collision found) and no time limit, so every figure depends on the seed
//! alone, not on the machine's load. With `EARLIEST=1` in the environment
//! a path check decides every segment before the earliest colliding one
//! instead (the checkers' default). `CLEARANCE=E` gives the adaptive
//! checker the clearance `E` and `REFINED=1` makes it REFINED (M2 §VI).
//!
//! Each candidate's line is followed by the time per run spent on path
//! checks answered free (the run's last), colliding and undecided. With
//! `FREE_PATHS=1`, each found path is also re-checked segment by segment
//! (fresh cache, adaptive bisection with the same pipeline), one line per
//! segment: its joint-space length, answer, time and counters.

use std::error::Error;
use std::time::{Duration, Instant};

use armature::{Pipeline, Scene};
use armature_benches::planner::{
    AdaptiveChecker, CheckerCounters, ConfigSpace, FixedResolutionChecker, PathVerdict, PlanReport,
    PlanStatus, Planner, PlannerError, PlannerOptions, ProblemOptions, SegmentChecker,
    random_problems,
};

const USAGE: &str = "expected: SCENE [adaptive|fixed=RHO] [RUNS] [CANDIDATE] [SEED]";

/// One planning run (not inlined: a profiler's collection target).
#[inline(never)]
fn timed_plan(
    planner: &Planner<'_>,
    checker: &mut dyn SegmentChecker,
    start: &[f64],
    goal: &[f64],
    seed: u64,
) -> Result<PlanReport, Box<dyn Error>> {
    Ok(planner.plan(checker, start, goal, seed)?)
}

/// A checker that also times its path checks, apart by verdict: how much
/// of a run goes to paths that turn out free (the last one) and to the
/// colliding ones.
struct Timed<'c> {
    inner: Box<dyn SegmentChecker + 'c>,
    /// Time and path checks: free, colliding, undecided.
    spent: [(Duration, u64); 3],
}

impl SegmentChecker for Timed<'_> {
    fn label(&self) -> String {
        self.inner.label()
    }

    fn check_path(&mut self, waypoints: &[Vec<f64>]) -> Result<PathVerdict, PlannerError> {
        let clock = Instant::now();
        let verdict = self.inner.check_path(waypoints)?;
        let k = match verdict {
            PathVerdict::Free => 0,
            PathVerdict::Collides { .. } => 1,
            PathVerdict::Undecided { .. } => 2,
        };
        self.spent[k].0 += clock.elapsed();
        self.spent[k].1 += 1;
        Ok(verdict)
    }

    fn counters(&self) -> CheckerCounters {
        self.inner.counters()
    }

    fn reset(&mut self) {
        self.inner.reset();
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().ok_or(USAGE)?;
    let which = args.get(1).map_or("adaptive", String::as_str);
    let runs: u64 = args.get(2).map_or(Ok(10), |s| s.parse())?;
    let only: Option<usize> = args.get(3).map(|s| s.parse()).transpose()?;
    let seed: u64 = args.get(4).map_or(Ok(1), |s| s.parse())?;
    let scene = Scene::from_file(path)?;
    let space = ConfigSpace::from_scene(&scene)?;
    // The study's draw: five candidates at least 2 apart, their straight
    // segment blocked.
    let problems = random_problems(
        &scene,
        &space,
        &ProblemOptions {
            count: 5,
            min_distance: 2.0,
            require_blocked: true,
            max_tries: 20_000,
            seed,
        },
    )?;
    // The study's checkers: a colliding path stops at the first collision
    // found (`EARLIEST=1` decides every segment before the earliest).
    let earliest = std::env::var_os("EARLIEST").is_some();
    let pipeline = Pipeline::builder()
        .refined_bisection(std::env::var_os("REFINED").is_some())
        .path_clearance(match std::env::var("CLEARANCE") {
            Ok(c) => c.parse()?,
            Err(_) => 0.0,
        })
        .locate_path_collision(false)
        .earliest_path_collision(earliest)
        .build()?;
    let options = PlannerOptions {
        connect_distance: f64::INFINITY,
        ..PlannerOptions::default()
    };
    let planner = Planner::new(&scene, &pipeline, space, options)?;
    let inner: Box<dyn SegmentChecker + '_> = match which.strip_prefix("fixed=") {
        Some(rho) => Box::new(FixedResolutionChecker::new(
            &pipeline,
            &scene,
            rho.parse()?,
        )?),
        None if which == "adaptive" => Box::new(AdaptiveChecker::new(&pipeline, &scene)?),
        None => return Err(USAGE.into()),
    };
    let free_paths = std::env::var_os("FREE_PATHS").is_some();
    let mut checker = Timed {
        inner,
        spent: [(Duration::ZERO, 0); 3],
    };
    println!("{} candidates, checker {}", problems.len(), checker.label());
    for (c, problem) in problems.iter().enumerate() {
        if only.is_some_and(|o| o != c) {
            continue;
        }
        checker.spent = [(Duration::ZERO, 0); 3];
        let mut times: Vec<Duration> = Vec::new();
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let (mut found, mut checks, mut milestones) = (0u64, 0u64, 0u64);
        let mut counters = Vec::new();
        for i in 0..runs {
            let report = timed_plan(
                &planner,
                &mut checker,
                &problem.start,
                &problem.goal,
                seed.wrapping_add(i),
            )?;
            found += u64::from(report.status == PlanStatus::Found);
            checks += report.checker.path_checks;
            milestones += report.milestones as u64;
            times.push(report.time);
            counters.push(report.checker);
            if free_paths && let Some(path) = &report.path {
                let mut paths = pipeline.prepare_paths(&scene)?;
                for w in path.windows(2) {
                    paths.clear_cache();
                    let len: f64 = w[0]
                        .iter()
                        .zip(&w[1])
                        .map(|(a, b)| (a - b) * (a - b))
                        .sum::<f64>()
                        .sqrt();
                    let clock = Instant::now();
                    let r = paths.check_path(w)?;
                    let t = clock.elapsed();
                    println!(
                        "  segment: length {len:.3}, {:?}, {:.3} ms, {} pairs, {} after the pre-pass, {} pops, {} GREEDY-DIST calls, {} discrete checks, {} forward kinematics, {} triangle tests",
                        r.status,
                        ms(t),
                        r.stats.pairs,
                        r.stats.pairs_after_prepass,
                        r.stats.queue_pops,
                        r.stats.greedy_calls,
                        r.stats.discrete_checks,
                        r.stats.forward_kinematics,
                        r.stats.triangle_tests
                    );
                }
            }
        }
        times.sort();
        let mean = times.iter().map(|&d| ms(d)).sum::<f64>() / runs.max(1) as f64;
        let per = |v: u64| v as f64 / runs.max(1) as f64;
        let sum = |f: fn(&armature_benches::planner::CheckerCounters) -> u64| {
            per(counters.iter().map(f).sum())
        };
        println!(
            "candidate {c}: {found}/{runs} found; mean {mean:.2} ms, median {:.2} ms, max {:.2} ms; per run {:.1} path checks ({:.1} segments, {:.1} from cache, {:.1} undecided), {:.1} milestones, {:.0} pops, {:.0} GREEDY-DIST calls, {:.0} discrete checks",
            times.get(times.len() / 2).map_or(f64::NAN, |&d| ms(d)),
            times.last().map_or(f64::NAN, |&d| ms(d)),
            per(checks),
            sum(|c| c.segments),
            sum(|c| c.segments_from_cache),
            sum(|c| c.undecided),
            per(milestones),
            sum(|c| c.queue_pops),
            sum(|c| c.greedy_calls),
            sum(|c| c.discrete_checks),
        );
        let [free, colliding, undecided] =
            checker.spent.map(|(d, n)| (ms(d) / runs.max(1) as f64, n));
        println!(
            "    path checks per run: free {:.2} ms ({} checks), colliding {:.2} ms ({}), undecided {:.2} ms ({})",
            free.0, free.1, colliding.0, colliding.1, undecided.0, undecided.1
        );
    }
    Ok(())
}
