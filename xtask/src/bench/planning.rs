//! The planner study (M2 §V.D, Tables IV and V): what a path checker is
//! worth inside a sampling planner, on the thin-obstacle scenes.
//!
//! Per scene: one planning problem drawn by the bench crate's
//! [`random_problems`] (seeded, start and goal collision-free and far
//! apart, their straight segment colliding), then [`rho_study`]: series of
//! runs of the lazy bidirectional planner with the fixed-resolution
//! checker at `ρ`, every returned path verified by adaptive bisection with
//! clearance 0, `ρ` divided by 1.2 after a colliding path, until a series
//! reaches `N` consecutive correct runs (N = 50 and 100); and `M` runs of
//! the same planner with the adaptive checker (clearance 0), whose paths
//! are verified the same way. `ρ` is a joint-space Euclidean length
//! (radians for these all-revolute robots): the fixed-resolution checker
//! splits a segment until every piece is shorter than `ρ`.
//!
//! A problem is kept only when a pilot run of the adaptive planner solves
//! it within the planner's iteration and milestone limits (no time limit,
//! so the choice depends on the seed alone): two ends drawn at random can
//! lie in different components of the free space, and a study on such a
//! problem measures nothing but the planner's limits. Both planners stop a
//! path check at the first collision found and cut that segment
//! (`earliest_path_collision(false)`), as SBL does. A scene where no candidate passes is reported as
//! such. The planner joins each new milestone to the closest milestone of
//! the other tree whatever their distance (as SBL does): problems drawn
//! over the whole joint box lie several radians apart, and a bounded
//! connection distance left the trees unjoined within the milestone
//! budget on every scene.
//!
//! Budgets ([`Mode`]): each run has a time limit, and the fixed-resolution
//! series of one scene a total time limit; a target not reached within
//! them is reported as "not reached", never extrapolated.

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use armature::Scene;
use armature_benches::planner::{
    AdaptiveChecker, ConfigSpace, PlanStatus, Planner, PlannerOptions, Problem, ProblemOptions,
    SeriesEnd, StudyConfig, StudyReport, random_problems, rho_study,
};
use serde_json::{Value, json};

/// The scenes of the default and full modes; the quick mode runs the
/// first.
const SCENES: [SceneSpec; 4] = [
    SceneSpec {
        name: "welder_cage",
        rho0: 0.5,
        min_distance: 2.0,
    },
    SceneSpec {
        name: "skinny_tori",
        rho0: 0.5,
        min_distance: 2.0,
    },
    SceneSpec {
        name: "arms_car",
        rho0: 0.5,
        min_distance: 2.0,
    },
    SceneSpec {
        name: "puma_pipes",
        rho0: 0.5,
        min_distance: 2.0,
    },
];

/// How one scene is studied.
#[derive(Clone, Copy, Debug)]
struct SceneSpec {
    /// `data/scenes/<name>.ron`.
    name: &'static str,
    /// The first resolution tried (joint-space Euclidean).
    rho0: f64,
    /// Least joint-space distance between start and goal.
    min_distance: f64,
}

/// The budgets of one mode.
#[derive(Clone, Debug)]
struct Mode {
    /// The series lengths `N`.
    targets: Vec<usize>,
    /// Runs of the adaptive planner (`M`).
    adaptive_runs: usize,
    /// Most wall-clock time of one planning run.
    run_time: Duration,
    /// Most wall-clock time of one scene's fixed-resolution series.
    series_time: Duration,
    /// Most fixed-resolution runs of one scene.
    max_runs: usize,
    /// Most series (values of `ρ`) of one scene.
    max_series: usize,
    /// Problems drawn per scene until one is solved by the pilot run.
    candidates: usize,
}

impl Mode {
    fn new(quick: bool, full: bool) -> Self {
        if quick {
            Self {
                targets: vec![5],
                adaptive_runs: 5,
                run_time: Duration::from_secs(1),
                series_time: Duration::from_secs(10),
                max_runs: 60,
                max_series: 10,
                candidates: 3,
            }
        } else if full {
            Self {
                targets: vec![50, 100],
                adaptive_runs: 100,
                run_time: Duration::from_secs(30),
                series_time: Duration::from_secs(3_600),
                max_runs: 10_000,
                max_series: 40,
                candidates: 10,
            }
        } else {
            Self {
                targets: vec![50, 100],
                adaptive_runs: 30,
                run_time: Duration::from_secs(2),
                series_time: Duration::from_secs(120),
                max_runs: 2_000,
                max_series: 30,
                candidates: 5,
            }
        }
    }

    fn planner(&self) -> PlannerOptions {
        PlannerOptions {
            connect_distance: f64::INFINITY,
            time_limit: Some(self.run_time),
            ..PlannerOptions::default()
        }
    }
}

/// One scene's outcome.
struct SceneResult {
    spec: SceneSpec,
    dof: usize,
    /// The problem and its study; `None` when no candidate problem was
    /// solved by the pilot run.
    study: Option<(Problem, StudyReport)>,
    wall: Duration,
}

/// What [`run`] found.
pub(crate) struct PlanningReport {
    /// The markdown section.
    pub(crate) markdown: String,
    /// Per scene: the problem, the thresholds, the adaptive runs and the
    /// series.
    pub(crate) json: Value,
    /// Adaptive planner paths the verifier did not find free.
    pub(crate) failures: Vec<String>,
}

/// The first of up to `mode.candidates` problems that a pilot run of the
/// adaptive planner solves, `None` when none is.
fn pick_problem(
    scene: &Scene,
    spec: &SceneSpec,
    mode: &Mode,
    seed: u64,
) -> Result<Option<Problem>> {
    let space = ConfigSpace::from_scene(scene)?;
    let problems = random_problems(
        scene,
        &space,
        &ProblemOptions {
            count: mode.candidates,
            min_distance: spec.min_distance,
            require_blocked: true,
            max_tries: 20_000,
            seed,
        },
    )?;
    let pipeline = armature::Pipeline::builder()
        .locate_path_collision(false)
        .earliest_path_collision(false)
        .build()?;
    // The pilot has no time limit (its iteration and milestone limits
    // bound it), so the problem studied depends on the seed alone, not on
    // the machine's speed or load.
    let pilot_options = PlannerOptions {
        time_limit: None,
        ..mode.planner()
    };
    let planner = Planner::new(scene, &pipeline, space, pilot_options)?;
    let mut checker = AdaptiveChecker::new(&pipeline, scene)?;
    for p in problems {
        let pilot = planner.plan(&mut checker, &p.start, &p.goal, seed)?;
        if pilot.status == PlanStatus::Found {
            return Ok(Some(p));
        }
    }
    Ok(None)
}

/// Runs the study, seeded by `seed`: `quick` on the first scene of
/// [`SCENES`] (N = 5, M = 5, second-long runs); the default on every scene
/// but `skinny_tori` (whose 40-DOF problems take the planner longer than
/// the default's 2 s per run), with M = 30; `full` on every scene, with
/// budgets lifted towards M2's procedure (M = 100, 30 s per run, an hour
/// of series per scene, 10,000 runs).
///
/// # Errors
/// A scene that does not load, a planner or study error.
pub(crate) fn run(root: &Path, quick: bool, full: bool, seed: u64) -> Result<PlanningReport> {
    let mode = Mode::new(quick, full);
    let scenes: Vec<SceneSpec> = if quick {
        SCENES[..1].to_vec()
    } else if full {
        SCENES.to_vec()
    } else {
        SCENES
            .iter()
            .filter(|s| s.name != "skinny_tori")
            .copied()
            .collect()
    };
    let label = if quick {
        " (`--quick`)"
    } else if full {
        " (`--full`)"
    } else {
        ""
    };
    run_with(root, &scenes, &mode, label, seed)
}

fn run_with(
    root: &Path,
    scenes: &[SceneSpec],
    mode: &Mode,
    label: &str,
    seed: u64,
) -> Result<PlanningReport> {
    let mut results = Vec::new();
    let mut failures = Vec::new();
    for spec in scenes {
        let started = Instant::now();
        let path = root.join(format!("data/scenes/{}.ron", spec.name));
        let scene =
            Scene::from_file(&path).with_context(|| format!("loading {}", path.display()))?;
        let Some(problem) = pick_problem(&scene, spec, mode, seed)? else {
            eprintln!(
                "planning {}: no blocked problem among {} drawn that the pilot run solves",
                spec.name, mode.candidates
            );
            results.push(SceneResult {
                spec: *spec,
                dof: scene.nq(),
                study: None,
                wall: started.elapsed(),
            });
            continue;
        };
        let config = StudyConfig {
            targets: mode.targets.clone(),
            adaptive_runs: mode.adaptive_runs,
            planner: mode.planner(),
            max_series: mode.max_series,
            max_runs: mode.max_runs,
            time_limit: Some(mode.series_time),
            seed,
            ..StudyConfig::paper(spec.rho0)
        };
        let study = rho_study(&scene, &problem, &config)
            .with_context(|| format!("{}: the ρ study", spec.name))?;
        let a = &study.adaptive;
        if a.verified_free < a.found {
            failures.push(format!(
                "planning {}: {} of {} adaptive planner paths not verified free",
                spec.name,
                a.found - a.verified_free,
                a.found
            ));
        }
        let wall = started.elapsed();
        eprintln!(
            "planning {}: {} series, adaptive {} / {} found in {:.1} s",
            spec.name,
            study.series.len(),
            a.found,
            a.runs,
            wall.as_secs_f64()
        );
        results.push(SceneResult {
            spec: *spec,
            dof: scene.nq(),
            study: Some((problem, study)),
            wall,
        });
    }
    Ok(PlanningReport {
        markdown: markdown(&results, mode, label, seed),
        json: Value::Array(results.iter().map(scene_json).collect()),
        failures,
    })
}

fn ms(d: Option<Duration>) -> Option<f64> {
    d.map(|d| d.as_secs_f64() * 1e3)
}

const fn end_label(end: SeriesEnd) -> &'static str {
    match end {
        SeriesEnd::CollidingPath => "colliding path",
        SeriesEnd::UnverifiedPath => "unverified path",
        SeriesEnd::TargetsReached => "targets reached",
        SeriesEnd::Limit => "limit",
    }
}

fn scene_json(r: &SceneResult) -> Value {
    let Some((problem, s)) = &r.study else {
        return json!({
            "scene": r.spec.name,
            "dof": r.dof,
            "rho0": r.spec.rho0,
            "problem": null,
            "wall_s": r.wall.as_secs_f64(),
        });
    };
    let a = &s.adaptive;
    json!({
        "scene": r.spec.name,
        "dof": r.dof,
        "rho0": r.spec.rho0,
        "problem": { "start": problem.start, "goal": problem.goal },
        "wall_s": r.wall.as_secs_f64(),
        "thresholds": s.thresholds.iter().map(|t| json!({
            "n": t.n,
            "rho": t.rho,
            "fixed_mean_ms": ms(t.mean_time),
            "fixed_mean_checks": t.mean_checker_calls,
            "adaptive_over_fixed": ratio(ms(a.mean_time), ms(t.mean_time)),
        })).collect::<Vec<_>>(),
        "adaptive": {
            "clearance": a.clearance,
            "runs": a.runs,
            "found": a.found,
            "verified_free": a.verified_free,
            "mean_ms": ms(a.mean_time),
            "mean_checks": a.mean_checker_calls,
        },
        "series": s.series.iter().map(|x| json!({
            "rho": x.rho,
            "runs": x.runs,
            "correct": x.correct,
            "no_path": x.no_path,
            "end": end_label(x.end),
        })).collect::<Vec<_>>(),
    })
}

fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    }
}

fn cell(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "–".to_owned(), |v| format!("{v:.digits$}"))
}

fn markdown(results: &[SceneResult], mode: &Mode, label: &str, seed: u64) -> String {
    let mut s = String::from("### Planning (M2 Tables IV/V)\n\n");
    let _ = writeln!(
        s,
        "One blocked planning problem per scene (seed {seed}), solved by a lazy bidirectional \
         roadmap planner with the fixed-resolution checker at resolution ρ (ρ divided by 1.2 after \
         each colliding path, every path verified by adaptive bisection with clearance 0) and with \
         the adaptive checker (clearance 0, {} runs). ρ is the joint-space Euclidean length below \
         which the fixed-resolution checker stops splitting a segment (radians: every joint here \
         turns); \"first ρ\" is the largest ρ tried whose series reached N consecutive correct \
         runs. Budgets{label}: {:.0} s per planning run, {:.0} s and {} runs of fixed-resolution \
         series per scene, at most {} values of ρ; a target missed within them is \"not reached\". \
         Mean times are over the runs that found a path.\n",
        mode.adaptive_runs,
        mode.run_time.as_secs_f64(),
        mode.series_time.as_secs_f64(),
        mode.max_runs,
        mode.max_series,
    );
    s.push_str("| scene | dof |");
    for n in &mode.targets {
        let _ = write!(
            s,
            " ρ (N={n}) | fixed-res mean ms (N={n}) | adaptive / fixed (N={n}) |"
        );
    }
    s.push_str(
        " adaptive mean ms | adaptive found / verified of runs | series tried (runs) | wall s |\n|---|---:|",
    );
    for _ in &mode.targets {
        s.push_str("---:|---:|---:|");
    }
    s.push_str("---:|---:|---:|---:|\n");
    for r in results {
        let _ = write!(s, "| {} | {} |", r.spec.name, r.dof);
        let Some((_, study)) = &r.study else {
            for _ in &mode.targets {
                s.push_str(" – | – | – |");
            }
            let _ = writeln!(
                s,
                " no problem: none of {} drawn solved by the pilot run | – | – | {:.0} |",
                mode.candidates,
                r.wall.as_secs_f64()
            );
            continue;
        };
        let a = &study.adaptive;
        for t in &study.thresholds {
            let _ = write!(
                s,
                " {} | {} | {} |",
                t.rho
                    .map_or_else(|| "not reached".to_owned(), |x| format!("{x:.4}")),
                cell(ms(t.mean_time), 1),
                cell(ratio(ms(a.mean_time), ms(t.mean_time)), 3),
            );
        }
        let runs: usize = study.series.iter().map(|x| x.runs).sum();
        let _ = writeln!(
            s,
            " {} | {} / {} of {} | {} ({runs}) | {:.0} |",
            cell(ms(a.mean_time), 1),
            a.found,
            a.verified_free,
            a.runs,
            study.series.len(),
            r.wall.as_secs_f64()
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::bench::root;

    /// The study's code path on one scene with a tiny budget (the quick
    /// mode's scene, N = 2, M = 2, a few seconds of series).
    #[test]
    fn tiny_study_on_one_scene_has_no_failure() {
        let mode = Mode {
            targets: vec![2],
            adaptive_runs: 2,
            run_time: Duration::from_secs(2),
            series_time: Duration::from_secs(3),
            max_runs: 20,
            max_series: 8,
            candidates: 3,
        };
        let report = run_with(&root(), &SCENES[..1], &mode, "", 1).expect("the study runs");
        assert!(report.failures.is_empty(), "{:?}", report.failures);
        assert!(report.markdown.starts_with("### Planning (M2 Tables IV/V)"));
        assert!(report.markdown.contains("| welder_cage | 6 |"));
        let scene = &report.json[0];
        assert_eq!(scene["scene"], "welder_cage");
        assert!(scene["problem"].is_object(), "{scene}");
        let runs = scene["adaptive"]["runs"].as_u64();
        assert_eq!(runs, Some(2));
        let found = scene["adaptive"]["found"].as_u64();
        assert_eq!(scene["adaptive"]["verified_free"].as_u64(), found);
    }

    /// The full study in release: `cargo test --release -p xtask --
    /// --ignored --nocapture planning`.
    #[test]
    #[ignore = "minutes per scene; run in release"]
    fn print_default_planning() {
        let report = run(&root(), false, false, 1).expect("the study runs");
        println!("{}", report.markdown);
        println!("{}", report.json);
        assert!(report.failures.is_empty(), "{:?}", report.failures);
    }
}
