//! # The safety monitor's cycles, for a profiler
//!
//! Runs `N` cycles of [`SafetyMonitor`] on a scene along a smooth random
//! motion (every scalar joint within 0.35 rad of its neutral value, the
//! platform's location drifting), each cycle's braking state random
//! (latency 5–30 ms, worst deceleration 1–4 units/s², safety factor 2,
//! safety distance 2 cm), as the monitor benchmark does, and prints the
//! median cycle, its split and the pairs evaluated. Under `valgrind
//! --tool=callgrind --collect-atstart=no
//! --toggle-collect='monitor_profile::timed_cycle'` only the cycles are
//! counted.
//!
//! ```text
//! cargo run --release -p armature --example monitor_profile -- \
//!     data/scenes/humanoid_arms.ron fast 2000
//! ```
//!
//! `fast` gives `Circ2` to the revolute joints carrying at least 12 moving
//! links and `Circ1` to the others; `accurate` gives `Circ2` from 4 moving
//! links on, as the benchmark's two models.

use std::process::ExitCode;
use std::time::Instant;

use armature::kinematics::{BrakingModel, JointType, RevoluteCover, SweptVolumeOptions};
use armature::monitor::{
    BodyVolumes, DEFAULT_MAX_POINTS, MonitorSettings, MonitorState, Operations, SafetyMonitor,
    SafetyReport,
};
use armature::{Error, Scene};

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

/// One timed cycle (not inlined: a profiler's collection target).
#[inline(never)]
fn timed_cycle(monitor: &mut SafetyMonitor, state: &MonitorState) -> Result<SafetyReport, Error> {
    monitor.cycle(state)
}

const USAGE: &str = "expected: SCENE fast|accurate CYCLES";

fn run() -> Result<(), Error> {
    let usage = || Error::Configuration {
        which: "arguments".to_owned(),
        message: USAGE.to_owned(),
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, model, cycles] = args.as_slice() else {
        return Err(usage());
    };
    let accurate = match model.as_str() {
        "fast" => false,
        "accurate" => true,
        _ => return Err(usage()),
    };
    let cycles: usize = cycles.parse().map_err(|_| usage())?;
    let scene = Scene::from_file(path)?;
    let tree = scene.body().tree();
    let n = tree.len();
    let mut below = vec![0usize; n];
    for i in (0..n).rev() {
        below[i] += usize::from(tree.links()[i].joint().kind.nq() > 0);
        if let Some(p) = tree.links()[i].parent() {
            below[p] += below[i];
        }
    }
    let (operations, threshold) = if accurate {
        (Operations::Accurate, 4)
    } else {
        (Operations::Fast, 12)
    };
    let ops: Vec<SweptVolumeOptions> = below
        .iter()
        .map(|&b| {
            operations
                .swept()
                .with_revolute(if b >= threshold {
                    RevoluteCover::Circ2
                } else {
                    RevoluteCover::Circ1
                })
                .with_max_points(Some(DEFAULT_MAX_POINTS))
        })
        .collect();
    let settings = MonitorSettings {
        safety_distance: 0.02,
        safety_factor: 2.0,
        operations,
        volumes: BodyVolumes::Fitted,
        ..MonitorSettings::default()
    };
    let mut monitor = SafetyMonitor::new(&scene, settings)?;
    monitor.set_link_operations(ops)?;

    // Per configuration value: centre, two amplitudes, two angular
    // frequencies, two phases.
    let mut rng = Rng(0x4d3);
    let neutral = tree.neutral_configuration();
    let mut waves: Vec<[f64; 7]> = neutral
        .iter()
        .map(|&c| [c, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
        .collect();
    for (i, l) in tree.links().iter().enumerate() {
        let r = tree.q_range(i);
        match l.joint().kind {
            JointType::Revolute { .. }
            | JointType::Continuous { .. }
            | JointType::Prismatic { .. } => {
                let (lo, hi) = l.joint().limits.map_or((-1.0, 1.0), |m| (m.lower, m.upper));
                let c = waves[r.start][0];
                let h = 0.35f64.min(hi - c).min(c - lo).max(0.0);
                waves[r.start] = [
                    c,
                    0.6 * h,
                    0.4 * h,
                    rng.uniform(0.3, 1.5),
                    rng.uniform(1.5, 4.0),
                    rng.uniform(0.0, 6.3),
                    rng.uniform(0.0, 6.3),
                ];
            }
            JointType::LocationUncertain { .. } => {
                for k in r.start..r.start + 2 {
                    waves[k] = [
                        0.0,
                        0.3,
                        0.1,
                        rng.uniform(0.05, 0.2),
                        rng.uniform(0.3, 0.8),
                        rng.uniform(0.0, 6.3),
                        rng.uniform(0.0, 6.3),
                    ];
                }
            }
            _ => {}
        }
    }
    let mut times = Vec::with_capacity(cycles);
    let (mut sweep, mut distance, mut evaluated, mut stops) = (0.0, 0.0, 0usize, 0usize);
    for c in 0..cycles {
        let t = c as f64 * 1e-3;
        let mut q: Vec<f64> = waves
            .iter()
            .map(|w| w[0] + w[1] * (w[3] * t + w[5]).sin() + w[2] * (w[4] * t + w[6]).sin())
            .collect();
        let qv: Vec<f64> = waves
            .iter()
            .map(|w| w[1] * w[3] * (w[3] * t + w[5]).cos() + w[2] * w[4] * (w[4] * t + w[6]).cos())
            .collect();
        let mut v = vec![0.0; scene.dof()];
        let mut braking = vec![BrakingModel::new(0.01, 2.0); scene.dof()];
        for (i, l) in tree.links().iter().enumerate() {
            let (qr, dr) = (tree.q_range(i), tree.dof_range(i));
            match l.joint().kind {
                JointType::Revolute { .. }
                | JointType::Continuous { .. }
                | JointType::Prismatic { .. } => {
                    v[dr.start] = qv[qr.start] + rng.uniform(-0.05, 0.05);
                    braking[dr.start] =
                        BrakingModel::new(rng.uniform(0.005, 0.03), rng.uniform(1.0, 4.0))
                            .with_uncertainty(0.001);
                }
                JointType::Vehicle | JointType::OmniVehicle => {
                    for k in dr {
                        v[k] = rng.uniform(-0.4, 0.4);
                        braking[k] =
                            BrakingModel::new(rng.uniform(0.005, 0.03), rng.uniform(1.0, 4.0));
                    }
                    for k in qr {
                        q[k] = 0.0;
                    }
                }
                _ => {}
            }
        }
        let state = MonitorState {
            config: q,
            velocities: v,
            braking,
            moving: Vec::new(),
        };
        let started = Instant::now();
        let r = timed_cycle(&mut monitor, &state)?;
        times.push(started.elapsed().as_secs_f64() * 1e3);
        sweep += r.sweep_time.as_secs_f64() * 1e3;
        distance += r.distance_time.as_secs_f64() * 1e3;
        evaluated += r.pairs_evaluated;
        stops += usize::from(r.verdict == armature::Verdict::Stop);
    }
    times.sort_by(f64::total_cmp);
    let k = cycles.max(1) as f64;
    let at =
        |f: f64| times.get(((times.len() as f64 * f) as usize).min(times.len().saturating_sub(1)));
    println!(
        "{} pairs, {cycles} cycles: median {:.4} ms, p99 {:.4} ms; sweeps {:.4} ms, distances {:.4} ms, {:.1} pairs evaluated, {:.1} % stop",
        monitor.num_pairs(),
        at(0.5).copied().unwrap_or(f64::NAN),
        at(0.99).copied().unwrap_or(f64::NAN),
        sweep / k,
        distance / k,
        evaluated as f64 / k,
        100.0 * stops as f64 / k
    );
    Ok(())
}
