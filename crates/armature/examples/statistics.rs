//! # Per-stage statistics of a query
//!
//! Runs one motion through every broad phase, with and without temporal
//! culling, and prints what each stage did (docs/architecture.md, "Measured"):
//! pairs allowed, pairs left after spatial culling (the dynamic link
//! hierarchy), pairs conservative advancement ran on after temporal
//! culling, advancement iterations, distance queries, and the time spent in
//! each stage.
//!
//! ```text
//! cargo run -p armature --example statistics -- [scene.ron] [q0 q1]
//! ```
//!
//! Without configurations the motion swings every one-value joint from
//! the lower quarter of its range to the upper quarter (±1 rad for a joint
//! without limits). The scene defaults to the two-arm test cell of the
//! crate's fixtures.

use std::process::ExitCode;

use armature::{BroadPhase, Error, Pipeline, Scene};

const DEFAULT_SCENE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/cell.ron");

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().map_or(DEFAULT_SCENE, String::as_str);
    let scene = Scene::from_file(path)?;
    let (q0, q1) = match (args.get(1), args.get(2)) {
        (Some(a), Some(b)) => (
            scene.parse_configuration("q0", a)?,
            scene.parse_configuration("q1", b)?,
        ),
        _ => {
            let mut q0 = vec![0.0; scene.nq()];
            let mut q1 = q0.clone();
            for j in scene.joints().iter().filter(|j| j.q.len() == 1) {
                let (lo, hi) = j.limits.unwrap_or((-1.0, 1.0));
                q0[j.q.start] = lo + 0.25 * (hi - lo);
                q1[j.q.start] = lo + 0.75 * (hi - lo);
            }
            (q0, q1)
        }
    };
    println!("scene {path}\nq0 = {q0:.3?}\nq1 = {q1:.3?}\n");
    println!(
        "{:<10} {:<8} {:<17} {:>9} {:>5} {:>8} {:>8} {:>5} {:>9} {:>9} {:>9} {:>9}",
        "broad",
        "culling",
        "status",
        "toc",
        "pairs",
        "spatial",
        "temporal",
        "iters",
        "distances",
        "spatial",
        "temporal",
        "advance"
    );
    for broad in [BroadPhase::Taylor, BroadPhase::Interval] {
        for culling in [true, false] {
            let pipeline = Pipeline::builder()
                .broad_phase(broad)
                .temporal_culling(culling)
                .build()?;
            let r = pipeline.first_contact(&scene, &q0, &q1)?;
            let s = r.stats;
            println!(
                "{:<10} {:<8} {:<17} {:>9.6} {:>5} {:>8} {:>8} {:>5} {:>9} {:>9.1?} {:>9.1?} {:>9.1?}",
                format!("{broad:?}"),
                if culling { "on" } else { "off" },
                format!("{:?}", r.status),
                r.toc_lower_bound,
                s.pairs_total,
                s.pairs_after_spatial,
                s.pairs_after_temporal,
                s.ca_iterations,
                s.distance_calls,
                s.spatial_time,
                s.temporal_time,
                s.advance_time,
            );
        }
    }
    println!(
        "\npairs: allowed by the rules; spatial: after the swept-box hierarchy; \
         temporal: advanced after temporal culling; times per stage"
    );
    Ok(())
}
