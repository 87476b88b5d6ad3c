//! `armature monitor`: one cycle of the M3 safety monitor from a state file.

use std::io::Write;
use std::time::{Duration, Instant};

use armature::monitor::{BodyVolumes, Operations, SafetyMonitor, Verdict, read_state_file};
use clap::{Args, ValueEnum};
use serde::Serialize;

use crate::output::{ms, num, pairs, write_json};
use crate::{Common, Failure};

/// Options of `armature monitor`.
#[derive(Debug, Args)]
pub(crate) struct MonitorArgs {
    #[command(flatten)]
    pub(crate) common: Common,
    /// The state file (RON): joint values, velocities, braking models,
    /// safety settings and moving volumes (docs/cli.md, "monitor").
    #[arg(long, value_name = "FILE")]
    state: std::path::PathBuf,
    /// Overrides the file's safety distance (metres, ≥ 0).
    #[arg(long, value_name = "D")]
    safety_distance: Option<f64>,
    /// Overrides the file's safety factor on braking distances (≥ 1).
    #[arg(long, value_name = "K")]
    safety_factor: Option<f64>,
    /// Overrides the file's default operations.
    #[arg(long, value_enum, value_name = "KIND")]
    operations: Option<OperationsArg>,
    /// Overrides the file's link volumes.
    #[arg(long, value_enum, value_name = "KIND")]
    volumes: Option<VolumesArg>,
    /// Overrides the file's cap on generating points per swept volume
    /// (`none`: no cap).
    #[arg(long, value_name = "N|none")]
    max_points: Option<String>,
    /// Run the cycle this many times (the same state) and report the
    /// median and largest cycle time; the answer is the last cycle's.
    #[arg(long, value_name = "N", default_value_t = 1)]
    repeat: usize,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum OperationsArg {
    Fast,
    Accurate,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum VolumesArg {
    Fitted,
    Hull,
    Capsule,
}

/// The JSON answer of `monitor`.
#[derive(Debug, Serialize)]
struct MonitorJson {
    scene: String,
    state: String,
    /// `stop` or `go`.
    verdict: &'static str,
    stop: bool,
    /// Smallest certified distance lower bound (`null` without pairs).
    min_distance: Option<f64>,
    pair: Option<PairNames>,
    safety_distance: f64,
    safety_factor: f64,
    operations: OperationsJson,
    stats: StatsJson,
}

#[derive(Debug, Serialize)]
struct PairNames {
    a: String,
    b: String,
}

#[derive(Debug, Serialize)]
struct OperationsJson {
    default: &'static str,
    volumes: &'static str,
    circ1: usize,
    circ2: usize,
    prismatic: usize,
    vehicle: usize,
    uncertainty: usize,
}

#[derive(Debug, Serialize)]
struct StatsJson {
    pairs: usize,
    pairs_evaluated: usize,
    swept_points: usize,
    sweep_ms: f64,
    distance_ms: f64,
    cycle_ms: f64,
    cycles: usize,
    median_cycle_ms: f64,
    max_cycle_ms: f64,
    load_ms: f64,
}

/// Runs `armature monitor`.
pub(crate) fn run(args: &MonitorArgs, out: &mut impl Write) -> Result<(), Failure> {
    let loading = Instant::now();
    let scene = crate::progress::load_scene(&args.common.scene, args.common.json)?;
    let mut file = read_state_file(&args.state, &scene)?;
    let load = loading.elapsed();
    if args.repeat == 0 {
        return Err(Failure::Message("--repeat: must be at least 1".to_owned()));
    }
    if let Some(d) = args.safety_distance {
        file.settings.safety_distance = d;
    }
    if let Some(k) = args.safety_factor {
        file.settings.safety_factor = k;
    }
    if let Some(o) = args.operations {
        file.settings.operations = match o {
            OperationsArg::Fast => Operations::Fast,
            OperationsArg::Accurate => Operations::Accurate,
        };
    }
    if let Some(v) = args.volumes {
        file.settings.volumes = match v {
            VolumesArg::Fitted => BodyVolumes::Fitted,
            VolumesArg::Hull => BodyVolumes::Hull,
            VolumesArg::Capsule => BodyVolumes::Capsule,
        };
    }
    if let Some(m) = &args.max_points {
        file.settings.max_points = if m == "none" {
            None
        } else {
            Some(m.parse::<usize>().map_err(|_| {
                Failure::Message(format!("--max-points: `{m}` is not a count or `none`"))
            })?)
        };
    }
    let mut monitor = SafetyMonitor::new(&scene, file.settings.clone())?;
    let mut times: Vec<Duration> = Vec::with_capacity(args.repeat);
    let mut report = monitor.cycle(&file.state)?;
    times.push(report.total_time);
    for _ in 1..args.repeat {
        // Each repetition is a fresh first cycle (no carried bounds), the
        // worst case of the bounded-time scheme.
        monitor.reset();
        report = monitor.cycle(&file.state)?;
        times.push(report.total_time);
    }
    times.sort();
    let counts = monitor.operation_counts();
    let s = monitor.settings();
    let answer = MonitorJson {
        scene: args.common.scene.display().to_string(),
        state: args.state.display().to_string(),
        verdict: match report.verdict {
            Verdict::Stop => "stop",
            Verdict::Go => "go",
        },
        stop: report.verdict == Verdict::Stop,
        min_distance: report
            .min_distance
            .is_finite()
            .then_some(report.min_distance),
        pair: report.pair.clone().map(|(a, b)| PairNames { a, b }),
        safety_distance: s.safety_distance,
        safety_factor: s.safety_factor,
        operations: OperationsJson {
            default: match s.operations {
                Operations::Fast => "fast",
                Operations::Accurate => "accurate",
            },
            volumes: match s.volumes {
                BodyVolumes::Fitted => "fitted",
                BodyVolumes::Hull => "hull",
                BodyVolumes::Capsule => "capsule",
            },
            circ1: counts.circ1,
            circ2: counts.circ2,
            prismatic: counts.prismatic,
            vehicle: counts.vehicle,
            uncertainty: counts.uncertainty,
        },
        stats: StatsJson {
            pairs: report.pairs,
            pairs_evaluated: report.pairs_evaluated,
            swept_points: report.swept_points,
            sweep_ms: ms(report.sweep_time),
            distance_ms: ms(report.distance_time),
            cycle_ms: ms(report.total_time),
            cycles: times.len(),
            median_cycle_ms: ms(times[times.len() / 2]),
            max_cycle_ms: ms(times[times.len() - 1]),
            load_ms: ms(load),
        },
    };
    if args.common.json {
        write_json(out, &answer)
    } else {
        out.write_all(human(&answer).as_bytes())?;
        Ok(())
    }
}

fn human(a: &MonitorJson) -> String {
    let mut rows = vec![("verdict", a.verdict.to_owned())];
    rows.push((
        "min distance",
        a.min_distance.map_or_else(|| "no pairs".to_owned(), num),
    ));
    if let Some(p) = &a.pair {
        rows.push(("closest pair", format!("{} / {}", p.a, p.b)));
    }
    rows.push(("safety distance", num(a.safety_distance)));
    rows.push(("safety factor", num(a.safety_factor)));
    rows.push((
        "operations",
        format!(
            "{} ({} Circ1, {} Circ2, {} prismatic, {} vehicle, {} uncertainty), {} volumes",
            a.operations.default,
            a.operations.circ1,
            a.operations.circ2,
            a.operations.prismatic,
            a.operations.vehicle,
            a.operations.uncertainty,
            a.operations.volumes
        ),
    ));
    rows.push((
        "pairs",
        format!(
            "{} monitored, {} distances computed",
            a.stats.pairs, a.stats.pairs_evaluated
        ),
    ));
    rows.push(("swept points", a.stats.swept_points.to_string()));
    rows.push((
        "time (ms)",
        format!(
            "{:.4} (swept volumes {:.4}, distances {:.4})",
            a.stats.cycle_ms, a.stats.sweep_ms, a.stats.distance_ms
        ),
    ));
    if a.stats.cycles > 1 {
        rows.push((
            "cycles",
            format!(
                "{}: median {:.4} ms, max {:.4} ms",
                a.stats.cycles, a.stats.median_cycle_ms, a.stats.max_cycle_ms
            ),
        ));
    }
    pairs(&rows)
}

/// One monitor cycle from a state file, for drawing: the state's
/// configuration and every link's swept volume in the world frame.
pub(crate) fn swept_volumes(
    scene: &armature::Scene,
    state: &std::path::Path,
) -> Result<(Vec<f64>, Vec<armature::kinematics::Ssch>), Failure> {
    let file = read_state_file(state, scene)?;
    let mut monitor = SafetyMonitor::new(scene, file.settings)?;
    monitor.cycle(&file.state)?;
    let volumes = monitor
        .world_volumes()?
        .into_iter()
        .map(|(_, v)| v)
        .collect();
    Ok((file.state.config, volumes))
}
