//! # Checking a batch against the brute-force oracle
//!
//! Draws random motions within the joint limits (`q0` and `q1 = q0 + δq`,
//! each `δq_k` uniform in `[−θmax, θmax]`, clamped; starts in collision
//! included), answers them with the pipeline, and judges every answer
//! against the oracle of docs/architecture.md ([`armature::oracle`]): it prints
//! the oracle's verdicts and the judgements per kind, and exits non-zero
//! when an answer is wrong (a missed collision, a late time of contact, a
//! false alarm on a clearly free motion, a contact farther than the
//! threshold). Needs the `oracle` feature, which the crate's own examples
//! and tests get through its dev-dependency on itself.
//!
//! ```text
//! cargo run --release -p armature --example oracle_check -- [scene.ron] [motions] [θmax in degrees] [δ]
//! ```
//!
//! Defaults: the two-arm test cell of the crate's fixtures, 200 motions,
//! θmax = 30°, δ = 1e-3 (model units).

use std::collections::BTreeMap;
use std::error::Error;
use std::f64::consts::PI;
use std::process::ExitCode;
use std::time::Instant;

use armature::oracle::{Judgement, Mode, Oracle, OracleOptions, Verdict};
use armature::{Motion, Pipeline, Scene};
use rayon::prelude::*;

const DEFAULT_SCENE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/cell.ron");

/// A tiny xorshift generator with a fixed seed.
struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// The positional argument `i`, parsed, or `default`.
fn arg<T: std::str::FromStr>(
    args: &[String],
    i: usize,
    name: &str,
    default: T,
) -> Result<T, String> {
    args.get(i).map_or(Ok(default), |s| {
        s.parse().map_err(|_| format!("{name} `{s}` is not valid"))
    })
}

/// Random motions within the limits of the scene's one-value joints.
fn draw_motions(scene: &Scene, n: usize, theta_max: f64) -> Vec<Motion> {
    let neutral = scene.body().tree().neutral_configuration();
    let ranges: Vec<(usize, f64, f64)> = scene
        .joints()
        .iter()
        .filter(|j| j.q.len() == 1)
        .map(|j| {
            let (lo, hi) = j.limits.unwrap_or((-PI, PI));
            (j.q.start, lo, hi)
        })
        .collect();
    let mut rng = Rng(0x0c1e_c4ed);
    (0..n)
        .map(|_| {
            let (mut q0, mut q1) = (neutral.clone(), neutral.clone());
            for &(k, lo, hi) in &ranges {
                q0[k] = rng.uniform(lo, hi);
                q1[k] = (q0[k] + rng.uniform(-theta_max, theta_max)).clamp(lo, hi);
            }
            (q0, q1)
        })
        .collect()
}

/// Whether every answer is accepted.
fn run() -> Result<bool, Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().map_or(DEFAULT_SCENE, String::as_str);
    let n: usize = arg(&args, 1, "motions", 200)?;
    let theta_deg: f64 = arg(&args, 2, "θmax", 30.0)?;
    let mode = match args.get(3).map(String::as_str) {
        None | Some("independent") => Mode::Independent,
        Some("fast") => Mode::Fast,
        Some(other) => return Err(format!("mode `{other}` is not fast or independent").into()),
    };
    let scene = Scene::from_file(path)?;
    let pipeline = Pipeline::builder().build()?;
    let delta = pipeline.ccd_options(&scene).distance_threshold;
    let oracle = Oracle::new(
        &scene,
        OracleOptions::default()
            .with_mode(mode)
            .with_distance_threshold(Some(delta)),
    )?;
    let motions = draw_motions(&scene, n, theta_deg.to_radians());
    println!(
        "scene {path}: {n} motions, θmax = {theta_deg}°, δ = {delta}, {} oracle",
        mode.name()
    );

    let started = Instant::now();
    let reports = pipeline.first_contact_batch(&scene, &motions)?;
    let t_pipeline = started.elapsed();
    let started = Instant::now();
    let verdicts = motions
        .par_iter()
        .map(|(q0, q1)| oracle.verdict(q0, q1))
        .collect::<Result<Vec<Verdict>, _>>()?;
    let t_oracle = started.elapsed();
    println!("pipeline {t_pipeline:.1?}, oracle {t_oracle:.1?}");

    let mut verdict_counts = BTreeMap::<&str, usize>::new();
    let mut judgement_counts = BTreeMap::<&str, usize>::new();
    let mut defects = Vec::new();
    for (i, ((report, verdict), (q0, q1))) in
        reports.iter().zip(&verdicts).zip(&motions).enumerate()
    {
        let report = report.as_ref().map_err(|e| format!("motion {i}: {e}"))?;
        let kind = verdict.name();
        *verdict_counts.entry(kind).or_default() += 1;
        let j: Judgement = oracle.judge_verdict(report, verdict, q0, q1)?;
        *judgement_counts.entry(j.name()).or_default() += 1;
        if j.is_defect() {
            defects.push((i, j));
        }
    }
    println!("verdicts:");
    for (k, c) in &verdict_counts {
        println!("  {k:<13} {c}");
    }
    println!("judgements:");
    for (k, c) in &judgement_counts {
        println!("  {k:<13} {c}");
    }
    for (i, j) in &defects {
        println!("defect: motion {i}: {j:?}");
    }
    Ok(defects.is_empty())
}
