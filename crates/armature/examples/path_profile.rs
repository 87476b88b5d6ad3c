//! # Adaptive bisection against fixed-resolution sampling, on one scene
//!
//! Draws seeded benchmark motions (`q0` collision-free and uniform within
//! the joint limits, `q1 = q0 + δq` with each `δq_k` uniform in
//! `[−θ, θ]`), then times the adaptive path check of every segment and
//! sampling every degree (both ends included) in the same process, and
//! prints the medians, their ratio and the checker's counters. With a
//! mode other than `both`, only that checker runs, which makes the
//! example a target for an instruction-counting profiler.
//!
//! ```text
//! cargo run --release -p armature --example path_profile -- \
//!     data/scenes/puma_pipes.ron 1 400 [both|adaptive|sample|colliding|free] [refined|located]
//! ```
//!
//! `colliding` and `free` time both on the motions adaptive bisection
//! answers colliding, or free (decided in an untimed first pass); under
//! `valgrind --tool=callgrind --collect-atstart=no
//! --toggle-collect='path_profile::timed_check'` only the timed checks
//! are counted (`path_profile::sampled_hit` counts the sampling).
//!
//! `uniform` in place of the angle draws both ends uniformly (collision-free),
//! the random segments of the segment suite. With `PER_SEGMENT=1` in the
//! environment, each adaptive check also prints its answer, time, counters
//! and the colliding pair, one line per segment; with `ONLY=K`, only the
//! `K`-th motion (counted after the `colliding` / `free` selection) is
//! timed, so a profiler sees one segment. `SEED=N` draws another set of
//! motions (default 7): a change tuned on one set should be measured on
//! another.

use std::process::ExitCode;
use std::time::Instant;

use armature::{Error, PathReport, PathStats, PathStatus, Pipeline, PreparedPaths, Scene};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// SplitMix64 in `[lo, hi)`.
struct Rng(u64);

impl Rng {
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        lo + (hi - lo) * ((z >> 11) as f64 / (1u64 << 53) as f64)
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// The timed adaptive check (not inlined: a profiler's collection target,
/// `--toggle-collect='path_profile::timed_check'`).
#[inline(never)]
fn timed_check(paths: &mut PreparedPaths, q0: &[f64], q1: &[f64]) -> Result<PathReport, Error> {
    paths.check_path(&[q0, q1])
}

/// Samples the motion every degree (both ends included); `true` at the
/// first colliding sample (not inlined: a profiler's collection target).
#[inline(never)]
fn sampled_hit(pipeline: &Pipeline, scene: &Scene, q0: &[f64], q1: &[f64]) -> Result<bool, Error> {
    Ok(pipeline
        .sample_segment(scene, q0, q1, 1f64.to_radians())?
        .is_some())
}

const USAGE: &str =
    "expected: SCENE THETA_DEG|uniform N [both|adaptive|sample|colliding|free] [refined|located]";

fn run() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = || Error::Configuration {
        which: "arguments".to_owned(),
        message: USAGE.to_owned(),
    };
    let (Some(path), Some(theta), Some(n)) = (args.first(), args.get(1), args.get(2)) else {
        return Err(usage());
    };
    // `uniform`: both ends uniform within the limits (M2's random segments).
    let uniform = theta == "uniform";
    let theta = if uniform {
        0.0
    } else {
        theta.parse::<f64>().map_err(|_| usage())?.to_radians()
    };
    let n = n.parse::<usize>().map_err(|_| usage())?;
    let mode = args.get(3).map_or("both", String::as_str);
    let refined = args.get(4).is_some_and(|a| a == "refined");
    let located = args.get(4).is_some_and(|a| a == "located");
    let scene = Scene::from_file(path)?;
    let pipeline = Pipeline::builder()
        .refined_bisection(refined)
        .locate_path_collision(located)
        .build()?;
    let limits: Vec<(f64, f64)> = scene
        .joints()
        .iter()
        .flat_map(|j| {
            let l = if j.q.len() == 1 { j.limits } else { None };
            std::iter::repeat_n(
                l.unwrap_or((-std::f64::consts::PI, std::f64::consts::PI)),
                j.q.len(),
            )
        })
        .collect();
    let mut rng = Rng(std::env::var("SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(7));
    let mut motions: Vec<(Vec<f64>, Vec<f64>)> = Vec::with_capacity(n);
    while motions.len() < n {
        let q0: Vec<f64> = limits.iter().map(|&(a, b)| rng.uniform(a, b)).collect();
        if pipeline.collides(&scene, &q0)? {
            continue;
        }
        let q1: Vec<f64> = if uniform {
            loop {
                let q: Vec<f64> = limits.iter().map(|&(a, b)| rng.uniform(a, b)).collect();
                if !pipeline.collides(&scene, &q)? {
                    break q;
                }
            }
        } else {
            q0.iter()
                .zip(&limits)
                .map(|(&q, &(a, b))| (q + rng.uniform(-theta, theta)).clamp(a, b))
                .collect()
        };
        motions.push((q0, q1));
    }
    let per_segment = std::env::var_os("PER_SEGMENT").is_some();
    let mut paths = pipeline.prepare_paths(&scene)?;
    // `colliding` / `free`: keep only the motions adaptive bisection
    // answers that way (decided untimed, outside `timed_check`).
    if matches!(mode, "colliding" | "free") {
        let want = if mode == "colliding" {
            PathStatus::Collides
        } else {
            PathStatus::Free
        };
        let mut kept = Vec::new();
        for (q0, q1) in motions {
            paths.clear_cache();
            if paths.check_path(&[&q0, &q1])?.status == want {
                kept.push((q0, q1));
            }
        }
        motions = kept;
    }
    // `ONLY=K`: time the K-th of the kept motions alone (a profiler's view
    // of one segment).
    if let Some(k) = std::env::var("ONLY")
        .ok()
        .and_then(|k| k.parse::<usize>().ok())
    {
        motions = motions.into_iter().skip(k).take(1).collect();
    }
    let mode = if matches!(mode, "colliding" | "free") {
        "both"
    } else {
        mode
    };
    let (mut adaptive, mut sampled) = (Vec::new(), Vec::new());
    // Per free segment: (adaptive ms, sampling ms, GREEDY-DIST calls).
    let mut free_rows: Vec<(f64, f64, u64)> = Vec::new();
    let mut free_index = Vec::new();
    let (mut free, mut stats) = (0usize, PathStats::default());
    // Each checker times every motion in a pass of its own, so neither
    // pays for what the other left in the caches.
    if mode != "sample" {
        for (k, (q0, q1)) in motions.iter().enumerate() {
            paths.clear_cache();
            let start = Instant::now();
            let r = timed_check(&mut paths, q0, q1)?;
            adaptive.push(start.elapsed().as_secs_f64() * 1e3);
            if per_segment {
                println!(
                    "segment: {:?} {:.4} ms, {} discrete checks, {} pops, {} GREEDY-DIST calls, {} forward kinematics, at {:?}, {} BV tests, {} triangle tests, pair {:?}",
                    r.status,
                    adaptive.last().unwrap_or(&0.0),
                    r.stats.discrete_checks,
                    r.stats.queue_pops,
                    r.stats.greedy_calls,
                    r.stats.forward_kinematics,
                    r.collision.map(|c| c.s),
                    r.stats.bv_tests,
                    r.stats.triangle_tests,
                    r.collision.map(|c| (c.link, c.other))
                );
            }
            free += usize::from(r.status == PathStatus::Free);
            if r.status == PathStatus::Free {
                free_rows.push((
                    *adaptive.last().unwrap_or(&0.0),
                    f64::NAN,
                    r.stats.greedy_calls,
                ));
                free_index.push(k);
            }
            stats.pairs += r.stats.pairs;
            stats.pairs_after_prepass += r.stats.pairs_after_prepass;
            stats.greedy_calls += r.stats.greedy_calls;
            stats.discrete_checks += r.stats.discrete_checks;
            stats.queue_pops += r.stats.queue_pops;
            stats.forward_kinematics += r.stats.forward_kinematics;
        }
    }
    if mode != "adaptive" {
        for (q0, q1) in &motions {
            let start = Instant::now();
            sampled_hit(&pipeline, &scene, q0, q1)?;
            sampled.push(start.elapsed().as_secs_f64() * 1e3);
        }
        for (row, &k) in free_rows.iter_mut().zip(&free_index) {
            row.1 = sampled[k];
        }
    }
    let per = |v: u64| v as f64 / motions.len().max(1) as f64;
    if !adaptive.is_empty() {
        println!(
            "adaptive: median {:.4} ms, mean {:.4} ms, p90 {:.4} ms, max {:.4} ms, {free}/{n} free; per query {:.1} pairs, {:.1} after pre-pass, {:.1} GREEDY-DIST calls, {:.1} discrete checks, {:.1} pops, {:.1} forward kinematics",
            median(&mut adaptive),
            adaptive.iter().sum::<f64>() / adaptive.len() as f64,
            adaptive[adaptive.len() * 9 / 10],
            adaptive[adaptive.len() - 1],
            per(stats.pairs as u64),
            per(stats.pairs_after_prepass as u64),
            per(stats.greedy_calls),
            per(stats.discrete_checks),
            per(stats.queue_pops),
            per(stats.forward_kinematics),
        );
    }
    if !sampled.is_empty() {
        println!("sampling 1°: median {:.4} ms", median(&mut sampled));
    }
    if !free_rows.is_empty() {
        let mut a: Vec<f64> = free_rows.iter().map(|r| r.0).collect();
        let mut b: Vec<f64> = free_rows.iter().map(|r| r.1).collect();
        let mut g: Vec<f64> = free_rows.iter().map(|r| r.2 as f64).collect();
        let ma = median(&mut a);
        println!(
            "free segments: adaptive median {ma:.4} ms, p90 {:.4} ms, max {:.4} ms; GREEDY-DIST calls median {}, max {}",
            a[a.len() * 9 / 10],
            a[a.len() - 1],
            median(&mut g),
            g[g.len() - 1]
        );
        if mode == "both" {
            let mb = median(&mut b);
            println!(
                "free segments: sampling 1° median {mb:.4} ms, ratio {:.2}",
                ma / mb
            );
        }
    }
    if !adaptive.is_empty() && !sampled.is_empty() {
        println!(
            "ratio adaptive / sampling: {:.2}",
            median(&mut adaptive) / median(&mut sampled)
        );
    }
    Ok(())
}
