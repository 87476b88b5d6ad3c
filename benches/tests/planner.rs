//! The lazy bidirectional planner, its checkers and the resolution study.
//!
//! Scenes:
//! - `single.ron` (facade fixture): one 3-joint arm and a crate;
//! - `beam`: one 1 m beam turning about z within `[−4, 4]`, a plate 1 cm
//!   thin in its way at 90° (the beam meets it for `θ` within about 0.09
//!   of `π/2`). From `θ = 0.5` to `θ = 2.6` every path crosses the plate,
//!   so any path a planner returns there collides;
//! - `planar`: a two-link planar arm and a thin plate within its reach.

use std::path::PathBuf;
use std::sync::Arc;

use armature::geometry::{ArticulatedBody, Obstacle, Tessellation};
use armature::kinematics::{Joint, KinematicTree, LinkSpec};
use armature::{PathStatus, Pipeline, Scene};
use armature_benches::planner::{
    AdaptiveChecker, ConfigSpace, FixedResolutionChecker, PathVerdict, PlanReport, PlanStatus,
    Planner, PlannerError, PlannerOptions, Problem, ProblemOptions, SegmentChecker, SeriesEnd,
    StudyConfig, distance, random_problems, rho_study,
};
use glam::{DAffine3, DVec3};

fn single() -> Scene {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../crates/armature/tests/fixtures/single.ron");
    Scene::from_file(path).expect("the fixture loads")
}

/// A cuboid beam of `length` along x from the link frame's origin.
fn beam(tess: &Tessellation, length: f64) -> Arc<armature::geometry::TriMesh> {
    Arc::new(
        tess.cuboid(DVec3::new(length, 0.1, 0.1))
            .expect("a cuboid")
            .transformed(&DAffine3::from_translation(DVec3::new(
                0.5 * length,
                0.0,
                0.0,
            )))
            .expect("a rigid move"),
    )
}

fn plate(tess: &Tessellation, at: DVec3) -> Obstacle {
    Obstacle::fixed(
        "plate",
        Arc::new(tess.cuboid(DVec3::new(0.01, 0.3, 0.3)).expect("a cuboid")),
        DAffine3::from_translation(at),
    )
    .expect("a static obstacle")
}

fn beam_scene() -> Scene {
    let tess = Tessellation::default();
    let tree = KinematicTree::new(vec![
        LinkSpec::new("beam", None).with_joint(Joint::revolute("j", DVec3::Z, -4.0, 4.0)),
    ])
    .expect("a tree");
    let body = ArticulatedBody::new("arm", tree, vec![Some(beam(&tess, 1.0))]).expect("a body");
    Scene::builder()
        .body(body, DAffine3::IDENTITY)
        .obstacle(plate(&tess, DVec3::new(0.0, 0.8, 0.0)))
        .build()
        .expect("the scene builds")
}

fn planar_scene() -> Scene {
    let tess = Tessellation::default();
    let tree = KinematicTree::new(vec![
        LinkSpec::new("upper", None).with_joint(Joint::revolute("j1", DVec3::Z, -3.0, 3.0)),
        LinkSpec::new("fore", Some("upper"))
            .with_origin(DAffine3::from_translation(DVec3::new(0.6, 0.0, 0.0)))
            .with_joint(Joint::revolute("j2", DVec3::Z, -2.5, 2.5)),
    ])
    .expect("a tree");
    let body = ArticulatedBody::new(
        "arm",
        tree,
        vec![Some(beam(&tess, 0.6)), Some(beam(&tess, 0.5))],
    )
    .expect("a body");
    Scene::builder()
        .body(body, DAffine3::IDENTITY)
        .obstacle(plate(&tess, DVec3::new(0.0, 0.95, 0.0)))
        .build()
        .expect("the scene builds")
}

fn plain_pipeline() -> Pipeline {
    Pipeline::builder()
        .locate_path_collision(false)
        .build()
        .expect("valid options")
}

/// Every segment sampled at most `step` apart: no sample collides.
fn assert_densely_free(pipeline: &Pipeline, scene: &Scene, path: &[Vec<f64>], step: f64) {
    for (k, w) in path.windows(2).enumerate() {
        let n = (distance(&w[0], &w[1]) / step).ceil().max(1.0) as usize;
        for i in 0..=n {
            let s = i as f64 / n as f64;
            let q: Vec<f64> = w[0]
                .iter()
                .zip(&w[1])
                .map(|(a, b)| a + s * (b - a))
                .collect();
            assert!(
                !pipeline.collides(scene, &q).expect("the check runs"),
                "segment {k} collides at s = {s}: {q:?}"
            );
        }
    }
}

/// The report without its wall-clock time.
fn timeless(mut r: PlanReport) -> PlanReport {
    r.time = std::time::Duration::ZERO;
    r
}

#[test]
fn adaptive_planner_solves_a_blocked_problem_in_the_fixture_scene() {
    let scene = single();
    let pipeline = plain_pipeline();
    let space = ConfigSpace::from_scene(&scene).expect("one-value joints");
    // Problems drawn with the shoulder and elbow within ±1: with the elbow
    // near ±π/2 the forearm folds onto the upper arm whatever the other
    // joints, a wall that cuts the free space in pieces, and an end beyond
    // it may have no path to the other.
    let middle =
        ConfigSpace::new(vec![(-1.0, 1.0), (-1.0, 1.0), space.bounds()[2]]).expect("valid bounds");
    let problems = random_problems(
        &scene,
        &middle,
        &ProblemOptions {
            count: 1,
            min_distance: 1.0,
            require_blocked: true,
            max_tries: 2_000,
            seed: 5,
        },
    )
    .expect("problems are drawn");
    let again = random_problems(
        &scene,
        &middle,
        &ProblemOptions {
            count: 1,
            min_distance: 1.0,
            require_blocked: true,
            max_tries: 2_000,
            seed: 5,
        },
    )
    .expect("problems are drawn");
    assert_eq!(problems, again, "one seed, one list");
    let Problem { start, goal } = problems.first().expect("a blocked problem exists").clone();
    assert!(!pipeline.collides(&scene, &start).expect("the check runs"));
    assert!(!pipeline.collides(&scene, &goal).expect("the check runs"));
    assert!(distance(&start, &goal) >= 1.0);
    // The straight move collides: the planner has to go around.
    assert_eq!(
        pipeline
            .check_path(&scene, &[&start, &goal])
            .expect("the check runs")
            .status,
        PathStatus::Collides
    );

    let planner =
        Planner::new(&scene, &pipeline, space, PlannerOptions::default()).expect("valid options");
    let mut checker = AdaptiveChecker::new(&pipeline, &scene).expect("the scene prepares");
    let report = planner
        .plan(&mut checker, &start, &goal, 11)
        .expect("the planner runs");
    assert_eq!(report.status, PlanStatus::Found, "{report:?}");
    let path = report.path.as_ref().expect("a path");
    assert_eq!(path.first(), Some(&start));
    assert_eq!(path.last(), Some(&goal));
    assert!(path.len() >= 3, "the straight move collides: {path:?}");
    assert!(report.checker.path_checks >= 1);
    assert!(report.milestones >= report.live_milestones);

    // A fresh checker certifies every segment, and dense sampling agrees.
    for w in path.windows(2) {
        assert_eq!(
            pipeline
                .check_path(&scene, w)
                .expect("the check runs")
                .status,
            PathStatus::Free
        );
    }
    assert_densely_free(&pipeline, &scene, path, 0.005);
}

#[test]
fn one_seed_gives_one_run() {
    let scene = planar_scene();
    let pipeline = plain_pipeline();
    let space = ConfigSpace::from_scene(&scene).expect("one-value joints");
    let planner =
        Planner::new(&scene, &pipeline, space, PlannerOptions::default()).expect("valid options");
    let (start, goal) = ([-1.0, 0.5], [2.2, -0.5]);
    let mut adaptive = AdaptiveChecker::new(&pipeline, &scene).expect("the scene prepares");
    let mut fixed = FixedResolutionChecker::new(&pipeline, &scene, 0.05).expect("valid ρ");
    let checkers: [&mut dyn SegmentChecker; 2] = [&mut adaptive, &mut fixed];
    for checker in checkers {
        let a = planner
            .plan(checker, &start, &goal, 42)
            .expect("the planner runs");
        let b = planner
            .plan(checker, &start, &goal, 42)
            .expect("the planner runs");
        assert_eq!(a.status, PlanStatus::Found, "{}: {a:?}", checker.label());
        assert_eq!(timeless(a.clone()), timeless(b), "{}", checker.label());
        let c = planner
            .plan(checker, &start, &goal, 43)
            .expect("the planner runs");
        assert_eq!(c.status, PlanStatus::Found);
        assert_ne!(a.path, c.path, "another seed, another roadmap");
    }
}

#[test]
fn coarse_fixed_resolution_returns_a_colliding_path_past_a_thin_plate() {
    let scene = beam_scene();
    let pipeline = plain_pipeline();
    let space = ConfigSpace::from_scene(&scene).expect("one-value joints");
    let options = PlannerOptions {
        max_iterations: 400,
        ..PlannerOptions::default()
    };
    let planner = Planner::new(&scene, &pipeline, space, options).expect("valid options");
    let (start, goal) = ([0.5], [2.6]);

    // ρ larger than the whole range: only the milestones are sampled.
    let mut coarse = FixedResolutionChecker::new(&pipeline, &scene, 10.0).expect("valid ρ");
    let report = planner
        .plan(&mut coarse, &start, &goal, 3)
        .expect("the planner runs");
    assert_eq!(report.status, PlanStatus::Found);
    let path = report.path.expect("a path");
    let verdict = pipeline.check_path(&scene, &path).expect("the check runs");
    assert_eq!(verdict.status, PathStatus::Collides, "{path:?}");

    // The adaptive planner never returns one: there is none to return.
    let mut adaptive = AdaptiveChecker::with_clearance(&scene, 0.0).expect("the scene prepares");
    let report = planner
        .plan(&mut adaptive, &start, &goal, 3)
        .expect("the planner runs");
    assert_eq!(report.status, PlanStatus::IterationLimit);
    assert_eq!(report.path, None);
    assert!(report.cut_segments > 0);

    // The study sees the failure, cuts ρ, and reaches no N.
    let config = StudyConfig {
        targets: vec![3],
        adaptive_runs: 1,
        max_series: 3,
        max_runs: 30,
        planner: PlannerOptions {
            max_iterations: 400,
            ..PlannerOptions::default()
        },
        ..StudyConfig::paper(10.0)
    };
    let problem = Problem {
        start: start.to_vec(),
        goal: goal.to_vec(),
    };
    let study = rho_study(&scene, &problem, &config).expect("the study runs");
    assert_eq!(study.series.len(), 3);
    for s in &study.series {
        assert_eq!(s.end, SeriesEnd::CollidingPath, "{s:?}");
        assert_eq!(s.correct, 0);
    }
    assert_eq!(study.thresholds.len(), 1);
    assert_eq!(study.thresholds[0].rho, None);
    assert_eq!(study.adaptive.found, 0);
}

#[test]
fn fixed_resolution_checker_names_the_colliding_segment() {
    let scene = beam_scene();
    let pipeline = plain_pipeline();
    let path = vec![vec![0.0], vec![1.0], vec![2.0], vec![3.0]];
    let mut fine = FixedResolutionChecker::new(&pipeline, &scene, 0.01).expect("valid ρ");
    assert_eq!(
        fine.check_path(&path).expect("the check runs"),
        PathVerdict::Collides { segment: 1 }
    );
    let mut coarse = FixedResolutionChecker::new(&pipeline, &scene, 2.0).expect("valid ρ");
    assert_eq!(
        coarse.check_path(&path).expect("the check runs"),
        PathVerdict::Free
    );
    let mut adaptive = AdaptiveChecker::new(&pipeline, &scene).expect("the scene prepares");
    assert_eq!(
        adaptive.check_path(&path).expect("the check runs"),
        PathVerdict::Collides { segment: 1 }
    );
    // The second query reuses the first one's segments.
    adaptive.check_path(&path).expect("the check runs");
    assert_eq!(adaptive.counters().path_checks, 2);
    assert!(adaptive.counters().segments_from_cache >= 2);
    adaptive.reset();
    assert_eq!(adaptive.counters().path_checks, 0);
    assert!(matches!(
        FixedResolutionChecker::new(&pipeline, &scene, 0.0),
        Err(PlannerError::InvalidOption { name: "rho", .. })
    ));
}

#[test]
fn budgets_end_a_run_without_a_path() {
    let scene = beam_scene();
    let pipeline = plain_pipeline();
    let space = ConfigSpace::from_scene(&scene).expect("one-value joints");
    let mut checker = AdaptiveChecker::new(&pipeline, &scene).expect("the scene prepares");
    let (start, goal) = ([0.5], [2.6]);
    let few = PlannerOptions {
        max_milestones: 10,
        ..PlannerOptions::default()
    };
    let planner = Planner::new(&scene, &pipeline, space.clone(), few).expect("valid options");
    let report = planner
        .plan(&mut checker, &start, &goal, 7)
        .expect("the planner runs");
    assert_eq!(report.status, PlanStatus::MilestoneLimit);
    assert_eq!(report.milestones, 10);
    assert!(report.live_milestones <= 10);
    assert_eq!(report.path, None);
    let no_time = PlannerOptions {
        time_limit: Some(std::time::Duration::ZERO),
        ..PlannerOptions::default()
    };
    let planner = Planner::new(&scene, &pipeline, space, no_time).expect("valid options");
    let report = planner
        .plan(&mut checker, &start, &goal, 7)
        .expect("the planner runs");
    assert_eq!(report.status, PlanStatus::TimeLimit);
    assert_eq!(report.iterations, 0);
    assert_eq!(report.checker.path_checks, 0);
}

#[test]
fn bad_inputs_are_typed_errors() {
    let scene = beam_scene();
    let pipeline = plain_pipeline();
    let space = ConfigSpace::from_scene(&scene).expect("one-value joints");
    let planner = Planner::new(&scene, &pipeline, space.clone(), PlannerOptions::default())
        .expect("valid options");
    let mut checker = AdaptiveChecker::new(&pipeline, &scene).expect("the scene prepares");
    assert!(matches!(
        planner.plan(&mut checker, &[0.0, 0.0], &[1.0], 1),
        Err(PlannerError::WrongLength { which: "start", .. })
    ));
    assert!(matches!(
        planner.plan(&mut checker, &[0.0], &[std::f64::consts::FRAC_PI_2], 1),
        Err(PlannerError::EndpointInCollision { which: "goal" })
    ));
    assert!(matches!(
        planner.plan(&mut checker, &[f64::NAN], &[1.0], 1),
        Err(PlannerError::Armature(_))
    ));
    let bad = PlannerOptions {
        step: 0.0,
        ..PlannerOptions::default()
    };
    assert!(matches!(
        Planner::new(&scene, &pipeline, space, bad),
        Err(PlannerError::InvalidOption { name: "step", .. })
    ));
    assert!(matches!(
        ConfigSpace::new(vec![(1.0, 0.0)]),
        Err(PlannerError::InvalidBound { index: 0, .. })
    ));
}

#[test]
fn study_on_a_tiny_configuration_is_consistent() {
    let scene = planar_scene();
    let space = ConfigSpace::from_scene(&scene).expect("one-value joints");
    let problem = random_problems(
        &scene,
        &space,
        &ProblemOptions {
            count: 1,
            min_distance: 1.5,
            require_blocked: true,
            max_tries: 2_000,
            seed: 2,
        },
    )
    .expect("problems are drawn")
    .pop()
    .expect("a blocked problem exists");
    let config = StudyConfig {
        targets: vec![4, 2],
        adaptive_runs: 3,
        max_series: 12,
        max_runs: 80,
        planner: PlannerOptions {
            max_milestones: 1_000,
            ..PlannerOptions::default()
        },
        ..StudyConfig::paper(1.0)
    };
    let study = rho_study(&scene, &problem, &config).expect("the study runs");
    let md = study.to_markdown("planar");
    assert!(!study.series.is_empty());
    assert_eq!(study.series[0].rho, 1.0);
    for w in study.series.windows(2) {
        assert!(
            (w[1].rho - w[0].rho / 1.2).abs() <= 1e-12 * w[0].rho,
            "{study:?}"
        );
        // Only a wrong path starts a new series.
        assert!(matches!(
            w[0].end,
            SeriesEnd::CollidingPath | SeriesEnd::UnverifiedPath
        ));
    }
    let runs: usize = study.series.iter().map(|s| s.runs).sum();
    assert!(runs <= config.max_runs);
    for s in &study.series {
        assert!(s.correct + s.no_path <= s.runs);
        assert!(s.correct <= 4);
        assert!(md.contains(&format!("| {:.4} | {} | {} |", s.rho, s.runs, s.correct)));
    }
    let ns: Vec<usize> = study.thresholds.iter().map(|t| t.n).collect();
    assert_eq!(ns, [2, 4]);
    for t in &study.thresholds {
        if let Some(rho) = t.rho {
            let s = study
                .series
                .iter()
                .find(|s| s.rho == rho)
                .expect("a series at that ρ");
            assert!(s.correct >= t.n);
            assert!(t.mean_time.is_some() && t.mean_checker_calls.is_some());
        }
    }
    // N = 4 needs all of N = 2's runs, so its ρ is never larger.
    if let (Some(a), Some(b)) = (study.thresholds[0].rho, study.thresholds[1].rho) {
        assert!(b <= a);
    }
    let a = &study.adaptive;
    assert_eq!(a.runs, 3);
    assert!(a.found <= a.runs);
    // Clearance 0: each returned path is certified, and the verifier agrees.
    assert_eq!(a.verified_free, a.found);
    assert!(md.contains("| planar | 2 |") && md.contains("| planar | 4 |"));
}
