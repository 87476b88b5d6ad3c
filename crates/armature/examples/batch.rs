//! # Batch queries on rayon
//!
//! Draws benchmark queries: `q0` uniform within the joint
//! limits until collision-free (self-collision included), `q1 = q0 + δq`
//! with each `δq_k` uniform in `[−θmax, θmax]`, clamped to the limits; then
//! answers them all with [`armature::Pipeline::first_contact_batch`], once
//! on one thread and once on every core, and prints the throughput, the
//! colliding fraction and the answers per status. The answers are the same
//! whatever the thread count (checked here).
//!
//! ```text
//! cargo run --release -p armature --example batch -- [scene.ron] [motions] [θmax in degrees] [seed] \
//!     [projected|unprojected|elementary|elementary-cpu|elementary-gpu] [pieces|no-pieces]
//! ```
//!
//! Defaults: the two-arm test cell of the crate's fixtures, 1000 motions,
//! θmax = 30°, seed 1, the projected (C2A) motion bound (`elementary`: M1's
//! exact stage instead of conservative advancement; `elementary-cpu` and
//! `elementary-gpu` add M1's stage 2, swept-volume culling on the CPU
//! reference or the GPU), no temporal
//! culling on pieces of the motion. Joints without limits are drawn in `[−π, π]`;
//! joints with several values keep their neutral value. With
//! `BATCH_ANSWERS=1` in the environment, every answer is printed too (status,
//! the bits of its times and clearance, the contact's pair and triangles),
//! so two builds can be compared bit for bit; with `BATCH_STATS=1`, each
//! answer's counters and stage times (of the one-thread run); with
//! `BATCH_ONLY=K`, only the `K`-th motion drawn is answered (a target for
//! a profiler).

use std::collections::BTreeMap;
use std::error::Error;
use std::f64::consts::PI;
use std::process::ExitCode;
use std::time::Instant;

use armature::{CcdReport, Motion, Pipeline, Scene};

const DEFAULT_SCENE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/cell.ron");

/// A tiny xorshift generator, so that a seed gives the same motions
/// everywhere.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        // Zero is xorshift's fixed point; mix the seed first.
        Self(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

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
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
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

/// Benchmark queries on `scene` (see the crate docs of this example).
fn draw_motions(
    scene: &Scene,
    pipeline: &Pipeline,
    n: usize,
    theta_max: f64,
    seed: u64,
) -> Result<Vec<Motion>, Box<dyn Error>> {
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
    let mut rng = Rng::new(seed);
    let mut motions = Vec::with_capacity(n);
    for _ in 0..n {
        let mut q0 = neutral.clone();
        let mut tries = 0;
        loop {
            for &(k, lo, hi) in &ranges {
                q0[k] = rng.uniform(lo, hi);
            }
            if !pipeline.collides(scene, &q0)? {
                break;
            }
            tries += 1;
            if tries == 10_000 {
                return Err("no collision-free configuration in 10000 draws".into());
            }
        }
        let mut q1 = q0.clone();
        for &(k, lo, hi) in &ranges {
            q1[k] = (q0[k] + rng.uniform(-theta_max, theta_max)).clamp(lo, hi);
        }
        motions.push((q0, q1));
    }
    Ok(motions)
}

fn run() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().map_or(DEFAULT_SCENE, String::as_str);
    let n: usize = arg(&args, 1, "motions", 1000)?;
    let theta_deg: f64 = arg(&args, 2, "θmax", 30.0)?;
    let seed: u64 = arg(&args, 3, "seed", 1)?;
    let mut exact = armature::ExactStage::ConservativeAdvancement;
    let mut culling = armature::SweptVolumeCulling::Off;
    let projected = match args.get(4).map(String::as_str) {
        None | Some("projected") => true,
        Some("unprojected") => false,
        Some("elementary") => {
            exact = armature::ExactStage::Elementary;
            true
        }
        Some("elementary-cpu") => {
            exact = armature::ExactStage::Elementary;
            culling = armature::SweptVolumeCulling::Cpu;
            true
        }
        Some("elementary-gpu") => {
            exact = armature::ExactStage::Elementary;
            culling = armature::SweptVolumeCulling::Gpu;
            true
        }
        Some(other) => {
            return Err(format!(
                "motion bound `{other}`: expected projected, unprojected, elementary, elementary-cpu or elementary-gpu"
            )
            .into());
        }
    };
    let pieces = match args.get(5).map(String::as_str) {
        Some("pieces") => true,
        None | Some("no-pieces") => false,
        Some(other) => {
            return Err(format!("time pieces `{other}`: expected pieces or no-pieces").into());
        }
    };
    let scene = Scene::from_file(path)?;
    let builder = Pipeline::builder()
        .exact_stage(exact)
        .swept_volume_culling(culling)
        .projected_motion_bound(projected)
        .time_pieces(pieces);
    let parallel = builder.clone().build()?;
    let serial = builder.threads(1).build()?;
    let mut motions = draw_motions(&scene, &parallel, n, theta_deg.to_radians(), seed)?;
    if let Some(k) = std::env::var("BATCH_ONLY")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        motions = motions.get(k).cloned().into_iter().collect();
    }
    let n = motions.len();
    println!(
        "scene {path}: {n} motions, θmax = {theta_deg}°, seed {seed}, {} threads",
        rayon::current_num_threads()
    );

    let started = Instant::now();
    let one = serial.first_contact_batch(&scene, &motions)?;
    let t_one = started.elapsed();
    let started = Instant::now();
    let all = parallel.first_contact_batch(&scene, &motions)?;
    let t_all = started.elapsed();

    let answers = std::env::var_os("BATCH_ANSWERS").is_some();
    let stats = std::env::var_os("BATCH_STATS").is_some();
    let mut per_status = BTreeMap::<String, usize>::new();
    let mut colliding = 0;
    for (i, (a, b)) in one.iter().zip(&all).enumerate() {
        let a: &CcdReport = a.as_ref().map_err(|e| format!("motion {i}: {e}"))?;
        let b: &CcdReport = b.as_ref().map_err(|e| format!("motion {i}: {e}"))?;
        if (a.status, a.contact, a.toc_lower_bound) != (b.status, b.contact, b.toc_lower_bound) {
            return Err(format!("motion {i}: the answer depends on the thread count").into());
        }
        if answers {
            println!(
                "answer {i} {:?} toc {:016x} clearance {:016x} contact {:?}",
                a.status,
                a.toc_lower_bound.to_bits(),
                a.clearance.to_bits(),
                a.contact.map(|c| (
                    c.link,
                    c.other,
                    c.triangle_a,
                    c.triangle_b,
                    c.time.to_bits()
                )),
            );
        }
        if stats {
            let s = &a.stats;
            println!(
                "stats {i} {:?} spatial {:.3} ms temporal {:.3} ms advance {:.3} ms culling {:.3} ms pairs {} / {} / {} iterations {} distances {}",
                a.status,
                s.spatial_time.as_secs_f64() * 1e3,
                s.temporal_time.as_secs_f64() * 1e3,
                s.advance_time.as_secs_f64() * 1e3,
                s.culling_time.as_secs_f64() * 1e3,
                s.pairs_total,
                s.pairs_after_spatial,
                s.pairs_after_temporal,
                s.ca_iterations,
                s.distance_calls,
            );
        }
        *per_status.entry(format!("{:?}", a.status)).or_default() += 1;
        colliding += usize::from(a.may_collide());
    }
    let rate = |d: std::time::Duration| n as f64 / d.as_secs_f64().max(1e-9);
    println!(
        "1 thread:   {t_one:>10.1?}  {:>10.0} queries/s",
        rate(t_one)
    );
    println!(
        "all cores:  {t_all:>10.1?}  {:>10.0} queries/s  (×{:.2})",
        rate(t_all),
        t_one.as_secs_f64() / t_all.as_secs_f64().max(1e-9)
    );
    println!(
        "colliding:  {colliding} of {n} ({:.1} %)",
        100.0 * colliding as f64 / n.max(1) as f64
    );
    for (status, count) in per_status {
        println!("  {status:<17} {count}");
    }
    Ok(())
}
