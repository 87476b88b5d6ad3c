//! The safety-monitor benchmark (M3 Fig. 8): the per-cycle cost of the
//! swept volumes, the distances and the whole cycle for the humanoid
//! mobile manipulator, fast and accurate models, with and without the
//! vehicle joint, and a soak run of many cycles reporting the tails.
//!
//! **Models.** `humanoid_lab.ron` (the robot on its mobile base: location
//! and orientation uncertainty, omnidirectional vehicle) and
//! `humanoid_arms.ron` (the same robot on a fixed base), each with
//!
//! - **fast**: `Circ1` on every revolute joint except the proximal ones
//!   that carry at least [`FAST_CIRC2_SUBTREE`] moving links, `Vehicle1`,
//!   `Rot3D1`;
//! - **accurate**: `Circ2` on every joint carrying at least
//!   [`ACCURATE_CIRC2_SUBTREE`] moving links, `VehicleCirc(2)`, `Rot3D4`.
//!
//! Links are their fitted rounded boxes (at most 8 points), obstacles their
//! hulls; swept volumes are capped at the facade's default number of
//! points.
//!
//! **Cycles.** Every joint follows a smooth random path within 0.35 rad of
//! the neutral pose (a sum of two sinusoids), the platform drives around
//! its place in the room (±0.4 m); one
//! cycle per millisecond of that motion. Each cycle's braking state is
//! random: velocities from the path plus noise, latency 5–30 ms, worst
//! deceleration 1–4 units/s² per joint, safety factor 2 (M3 §V), safety
//! distance 2 cm. The monitor keeps its carried bounds from cycle to cycle
//! (bounded-time scheme) and stops evaluating once the next bound cannot
//! change the answer. Each cycle is timed on this thread.
//!
//! **Operation counts.** Floating-point operations of the swept volumes
//! (links into the frames of their pairs, obstacles into the links'
//! platform frames) are counted by replaying each cycle's sweeps joint by
//! joint and
//! charging each generating point the cost of its operation, counted from
//! the code of `armature_kinematics::ssch` (multiplications, additions,
//! square roots and the `sin`/`cos` pairs of the rotations, each as one):
//! [`flops_per_point`].

use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result};
use armature::Scene;
use armature::geometry::{MonitorPair, platform_frame};
use armature::kinematics::{
    BrakingModel, JointInterval, JointType, KinematicTree, RevoluteCover, Ssch, SweptVolumeOptions,
    VehicleCover, braking_intervals, swept_into_frame, swept_ssch_per_link,
};
use armature::monitor::{BodyVolumes, MonitorSettings, MonitorState, Operations, SafetyMonitor};
use serde_json::{Value, json};

use super::report::{median, quantile};
use super::run::{Rng, progress};

/// The fast model's `Circ2` joints carry at least this many moving links.
pub(crate) const FAST_CIRC2_SUBTREE: usize = 12;
/// The accurate model's `Circ2` joints carry at least this many moving
/// links.
pub(crate) const ACCURATE_CIRC2_SUBTREE: usize = 4;

/// What [`run`] found.
pub(crate) struct MonitorSection {
    /// The markdown section.
    pub(crate) markdown: String,
    /// The rows as JSON.
    pub(crate) json: Value,
    /// Goal misses are reported, not failures; failures are errors and
    /// cycles whose answer disagrees with a fresh exhaustive monitor.
    pub(crate) failures: Vec<String>,
}

/// One row of the table.
struct Row {
    model: &'static str,
    vehicle: bool,
    circ1: usize,
    circ2: usize,
    vehicles: usize,
    flops: f64,
    points: f64,
    pairs: usize,
    evaluated: f64,
    sweep_ms: f64,
    distance_ms: f64,
    cycle: [f64; 4],
    cycles: usize,
    stops: usize,
}

/// Estimated floating-point operations to map one generating point by an
/// operation (see the module docs), and by the fixed transform after it.
fn flops_per_point(kind: &JointType, ops: &SweptVolumeOptions) -> f64 {
    const TRANSFORM: f64 = 18.0;
    TRANSFORM
        + match kind {
            JointType::Revolute { .. } | JointType::Continuous { .. } => {
                if ops.revolute == RevoluteCover::Circ1 {
                    105.0
                } else {
                    150.0
                }
            }
            JointType::Prismatic { .. } => 12.0,
            JointType::OrientationUncertain { .. } => {
                if ops.orientation == armature::kinematics::OrientationCover::Rot3D1 {
                    40.0
                } else {
                    90.0
                }
            }
            JointType::LocationUncertain { .. } => 9.0,
            JointType::Vehicle | JointType::OmniVehicle => match ops.vehicle {
                VehicleCover::Vehicle1 => 250.0,
                VehicleCover::Circ { l } => 60.0 + 85.0 * l as f64,
            },
            _ => 0.0,
        }
}

/// The per-link operations of a model (see the module docs).
fn link_operations(tree: &KinematicTree, accurate: bool) -> Vec<SweptVolumeOptions> {
    let n = tree.len();
    // Moving links below (and including) each link.
    let mut below = vec![0usize; n];
    for i in (0..n).rev() {
        let own = usize::from(tree.links()[i].joint().kind.nq() > 0);
        below[i] += own;
        if let Some(p) = tree.links()[i].parent() {
            below[p] += below[i];
        }
    }
    let threshold = if accurate {
        ACCURATE_CIRC2_SUBTREE
    } else {
        FAST_CIRC2_SUBTREE
    };
    let base = if accurate {
        Operations::Accurate
    } else {
        Operations::Fast
    }
    .swept();
    (0..n)
        .map(|i| {
            let rev = if below[i] >= threshold {
                RevoluteCover::Circ2
            } else {
                RevoluteCover::Circ1
            };
            base.with_revolute(rev)
                .with_max_points(Some(armature::monitor::DEFAULT_MAX_POINTS))
        })
        .collect()
}

/// Counts the swept-volume flops of one cycle by replaying every needed
/// sweep joint by joint (each link into each frame it is tested in).
fn count_flops(
    tree: &KinematicTree,
    bodies: &[Option<Ssch>],
    obstacles: &[Ssch],
    pairs: &[MonitorPair],
    intervals: &[JointInterval],
    ops: &[SweptVolumeOptions],
) -> Result<f64> {
    let mut frames: Vec<Vec<Option<usize>>> = vec![Vec::new(); tree.len()];
    let mut obstacle_frames: Vec<(usize, usize)> = Vec::new();
    let mut add = |l: usize, f: Option<usize>| {
        if !frames[l].contains(&f) {
            frames[l].push(f);
        }
    };
    for p in pairs {
        match *p {
            MonitorPair::Links(a, b) => {
                let f = tree.common_ancestor(a, b);
                add(a, f);
                add(b, f);
            }
            // Obstacles are tested in the link's platform frame, into which
            // the monitor brings each obstacle once per frame.
            MonitorPair::LinkObstacle(l, o) => {
                let f = platform_frame(tree, l);
                add(l, f);
                if let Some(f) = f
                    && !obstacle_frames.contains(&(o, f))
                {
                    obstacle_frames.push((o, f));
                }
            }
            MonitorPair::LinkMoving(l, _) => add(l, platform_frame(tree, l)),
        }
    }
    let mut flops = 0.0;
    for (l, fs) in frames.iter().enumerate() {
        let Some(body) = &bodies[l] else { continue };
        // The farthest frame needed: the chain is swept once up to it
        // (nearer frames are prefixes, as the monitor chains them).
        let stop = if fs.contains(&None) {
            None
        } else {
            tree.ancestors(l).filter(|k| fs.contains(&Some(*k))).last()
        };
        let mut cur = body.clone();
        let mut at = l;
        loop {
            if Some(at) == stop {
                break;
            }
            let link = &tree.links()[at];
            flops += cur.point_count() as f64 * flops_per_point(&link.joint().kind, &ops[at]);
            let parent = link.parent();
            cur = swept_ssch_per_link(tree, at, &cur, intervals, parent, ops)
                .context("replaying a sweep")?;
            match parent {
                Some(p) => at = p,
                None => break,
            }
        }
    }
    for (o, f) in obstacle_frames {
        // Root first down to the frame, as `swept_into_frame` applies them.
        let chain: Vec<usize> = tree.ancestors(f).collect();
        for (i, &k) in chain.iter().enumerate().rev() {
            let before = match chain.get(i + 1) {
                Some(&parent) => swept_into_frame(tree, &obstacles[o], parent, intervals, ops)
                    .context("replaying an obstacle")?
                    .point_count(),
                None => obstacles[o].point_count(),
            };
            flops += before as f64 * flops_per_point(&tree.links()[k].joint().kind, &ops[k]);
        }
    }
    Ok(flops)
}

/// A smooth random path of every joint and the platform.
struct Motion {
    /// Per configuration value: centre, two amplitudes, two angular
    /// frequencies, two phases.
    waves: Vec<[f64; 7]>,
}

impl Motion {
    fn new(scene: &Scene, rng: &mut Rng) -> Self {
        let tree = scene.body().tree();
        let neutral = tree.neutral_configuration();
        let mut waves = vec![[0.0; 7]; scene.nq()];
        for (w, n) in waves.iter_mut().zip(&neutral) {
            w[0] = *n;
        }
        for (i, l) in tree.links().iter().enumerate() {
            let r = tree.q_range(i);
            match l.joint().kind {
                JointType::Revolute { .. }
                | JointType::Continuous { .. }
                | JointType::Prismatic { .. } => {
                    // Around the neutral pose (collision-free with margin),
                    // as a working robot moves: up to ±0.35 rad.
                    let (lo, hi) = l.joint().limits.map_or((-1.0, 1.0), |m| (m.lower, m.upper));
                    let n = waves[r.start][0];
                    let h = 0.35f64.min(hi - n).min(n - lo).max(0.0);
                    waves[r.start] = [
                        n,
                        0.6 * h,
                        0.4 * h,
                        rng.uniform(0.3, 1.5),
                        rng.uniform(1.5, 4.0),
                        rng.uniform(0.0, 6.3),
                        rng.uniform(0.0, 6.3),
                    ];
                }
                JointType::LocationUncertain { .. } => {
                    for k in 0..2 {
                        waves[r.start + k] = [
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
        Self { waves }
    }

    fn at(&self, t: f64) -> (Vec<f64>, Vec<f64>) {
        let q = self
            .waves
            .iter()
            .map(|w| w[0] + w[1] * (w[3] * t + w[5]).sin() + w[2] * (w[4] * t + w[6]).sin())
            .collect();
        let v = self
            .waves
            .iter()
            .map(|w| w[1] * w[3] * (w[3] * t + w[5]).cos() + w[2] * w[4] * (w[4] * t + w[6]).cos())
            .collect();
        (q, v)
    }
}

/// One cycle's state from the motion at time `t`.
fn state(scene: &Scene, motion: &Motion, t: f64, rng: &mut Rng) -> MonitorState {
    let tree = scene.body().tree();
    let (mut q, qv) = motion.at(t);
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
                // The platform's speed and turn rate from the location path.
                for k in dr.clone() {
                    v[k] = rng.uniform(-0.4, 0.4);
                    braking[k] = BrakingModel::new(rng.uniform(0.005, 0.03), rng.uniform(1.0, 4.0));
                }
                for k in qr {
                    q[k] = 0.0;
                }
            }
            _ => {}
        }
    }
    MonitorState {
        config: q,
        velocities: v,
        braking,
        moving: Vec::new(),
    }
}

fn run_model(
    scene: &Scene,
    model: &'static str,
    accurate: bool,
    vehicle: bool,
    cycles: usize,
    seed: u64,
) -> Result<(Row, Vec<String>)> {
    let tree = scene.body().tree();
    let ops = link_operations(tree, accurate);
    let settings = MonitorSettings {
        safety_distance: 0.02,
        safety_factor: 2.0,
        operations: if accurate {
            Operations::Accurate
        } else {
            Operations::Fast
        },
        volumes: BodyVolumes::Fitted,
        ..MonitorSettings::default()
    };
    // The per-link choice of the model replaces the default; a second
    // monitor answers from scratch on sampled cycles.
    let mut monitor = SafetyMonitor::new(scene, settings.clone())?;
    monitor.set_link_operations(ops.clone())?;
    let mut core_ops = SafetyMonitor::new(scene, settings)?;
    core_ops.set_link_operations(ops.clone())?;
    let bodies: Vec<Option<Ssch>> = scene
        .body()
        .links()
        .iter()
        .map(|g| {
            g.as_ref()
                .map(|g| armature::geometry::fitted_ssch::fitted_ssch(g.mesh.vertices(), &g.obb))
                .transpose()
        })
        .collect::<Result<_, _>>()?;
    let pairs: Vec<MonitorPair> = monitor.core().pairs().collect();
    let obstacles: Vec<Ssch> = scene
        .obstacles()
        .iter()
        .map(|o| o.monitor_obstacle().map(|m| m.volume))
        .collect::<Result<_, _>>()?;
    let mut rng = Rng::new(seed, 0x4d3);
    let motion = Motion::new(scene, &mut rng);
    let bar = progress(cycles, &format!("monitor {model}"));
    let mut times = Vec::with_capacity(cycles);
    let (mut sweep, mut dist, mut evaluated, mut points) = (0.0, 0.0, 0.0, 0.0);
    let mut stops = 0;
    let mut failures = Vec::new();
    let mut flops = 0.0;
    let flop_samples = 20.min(cycles);
    for c in 0..cycles {
        let t = c as f64 * 1e-3;
        let s = state(scene, &motion, t, &mut rng);
        let started = Instant::now();
        let r = monitor.cycle(&s);
        let elapsed = started.elapsed();
        let r = match r {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("monitor {model} cycle {c}: {e}"));
                continue;
            }
        };
        times.push(elapsed.as_secs_f64() * 1e3);
        sweep += r.sweep_time.as_secs_f64() * 1e3;
        dist += r.distance_time.as_secs_f64() * 1e3;
        evaluated += r.pairs_evaluated as f64;
        points += r.swept_points as f64;
        stops += usize::from(r.verdict == armature::Verdict::Stop);
        // A sample of cycles: the answer equals a fresh monitor's (no
        // carried bounds) when that one says stop, and the flop count.
        if c % (cycles / flop_samples).max(1) == 0 {
            core_ops.reset();
            let fresh = core_ops.cycle(&s)?;
            if fresh.verdict == armature::Verdict::Stop && r.verdict != armature::Verdict::Stop {
                failures.push(format!(
                    "monitor {model} cycle {c}: go with carried bounds where a fresh monitor says stop"
                ));
            }
            let mut models = s.braking.clone();
            for m in &mut models {
                m.safety_factor *= 2.0;
            }
            let intervals = braking_intervals(tree, &s.config, &s.velocities, &models)?;
            flops += count_flops(tree, &bodies, &obstacles, &pairs, &intervals, &ops)?;
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    let n = times.len().max(1) as f64;
    let counts = monitor.operation_counts();
    let (circ1, circ2) = ops
        .iter()
        .zip(tree.links())
        .filter(|(_, l)| {
            matches!(
                l.joint().kind,
                JointType::Revolute { .. } | JointType::Continuous { .. }
            )
        })
        .fold((0, 0), |(a, b), (o, _)| {
            if o.revolute == RevoluteCover::Circ1 {
                (a + 1, b)
            } else {
                (a, b + 1)
            }
        });
    let row = Row {
        model,
        vehicle,
        circ1,
        circ2,
        vehicles: counts.vehicle,
        flops: flops / flop_samples.max(1) as f64,
        points: points / n,
        pairs: pairs.len(),
        evaluated: evaluated / n,
        sweep_ms: sweep / n,
        distance_ms: dist / n,
        cycle: [
            median(&times),
            quantile(&times, 0.9),
            quantile(&times, 0.99),
            times.iter().copied().fold(0.0, f64::max),
        ],
        cycles: times.len(),
        stops,
    };
    Ok((row, failures))
}

/// Runs the section: four models, `cycles` cycles each (100,000 with
/// `--full`, 20,000 by default, 500 with `--quick`).
pub(crate) fn run(root: &Path, quick: bool, full: bool, seed: u64) -> Result<MonitorSection> {
    let cycles = if full {
        100_000
    } else if quick {
        500
    } else {
        20_000
    };
    let load = |file: &str| -> Result<Scene> {
        let p = root.join("data/scenes").join(file);
        Scene::from_file(&p).with_context(|| format!("loading {}", p.display()))
    };
    let lab = load("humanoid_lab.ron")?;
    let arms = load("humanoid_arms.ron")?;
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for (scene, model, accurate, vehicle) in [
        (&arms, "fast", false, false),
        (&lab, "fast", false, true),
        (&arms, "accurate", true, false),
        (&lab, "accurate", true, true),
    ] {
        let (row, f) = run_model(scene, model, accurate, vehicle, cycles, seed)?;
        eprintln!(
            "monitor {model}{}: median {:.4} ms, p99 {:.4} ms, max {:.4} ms",
            if vehicle { " + vehicle" } else { "" },
            row.cycle[0],
            row.cycle[2],
            row.cycle[3]
        );
        rows.push(row);
        failures.extend(f);
    }
    Ok(MonitorSection {
        markdown: markdown(&rows, cycles),
        json: json!(rows.iter().map(row_json).collect::<Vec<_>>()),
        failures,
    })
}

fn row_json(r: &Row) -> Value {
    json!({
        "model": r.model,
        "vehicle": r.vehicle,
        "circ1": r.circ1,
        "circ2": r.circ2,
        "vehicle_joints": r.vehicles,
        "flops_swept_volumes": r.flops,
        "swept_points": r.points,
        "pairs": r.pairs,
        "pairs_evaluated": r.evaluated,
        "sweep_ms": r.sweep_ms,
        "distance_ms": r.distance_ms,
        "cycle_median_ms": r.cycle[0],
        "cycle_p90_ms": r.cycle[1],
        "cycle_p99_ms": r.cycle[2],
        "cycle_max_ms": r.cycle[3],
        "cycles": r.cycles,
        "stops": r.stops,
    })
}

fn markdown(rows: &[Row], cycles: usize) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "### Safety monitor (M3 Fig. 8)\n\nThe humanoid mobile manipulator, {cycles} cycles per model along a smooth random motion with random braking states (safety factor 2, safety distance 2 cm); links as fitted rounded boxes (at most 8 points), swept volumes capped at 16 points. Times on one thread; flops SV counted by replaying 20 cycles' sweeps of every volume (module docs of `xtask/src/bench/monitor.rs`), while the monitor forms a link's volume only when a pair its reach ball does not decide needs it (points: those it formed); SV ms: the joint operations, the reach balls and the volumes formed before the pairs are taken, the volumes formed on demand counting in distance ms. M3 Fig. 8 (i7 2.67 GHz, DLR Justin): fast 0.16 / 0.34 ms, accurate 0.39 / 2.7 ms without / with the vehicle.\n"
    );
    let _ = writeln!(
        md,
        "| model | Circ1 | Circ2 | vehicle | flops SV | points | pairs (evaluated) | SV ms | distance ms | cycle median | p90 | p99 | max | p99/median | stop |"
    );
    let _ = writeln!(
        md,
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for r in rows {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {:.0} | {:.0} | {} ({:.1}) | {:.4} | {:.4} | {:.4} | {:.4} | {:.4} | {:.4} | {:.2} | {:.1} % |",
            r.model,
            r.circ1,
            r.circ2,
            r.vehicles,
            r.flops,
            r.points,
            r.pairs,
            r.evaluated,
            r.sweep_ms,
            r.distance_ms,
            r.cycle[0],
            r.cycle[1],
            r.cycle[2],
            r.cycle[3],
            r.cycle[2] / r.cycle[0],
            100.0 * r.stops as f64 / r.cycles.max(1) as f64
        );
    }
    let goal = |r: Option<&Row>, ms: f64| {
        r.map_or_else(
            || "not run".to_owned(),
            |r| {
                format!(
                    "{:.4} ms median ({}; goal ≤ {ms} ms), p99/median {:.2} ({}; goal ≤ 2)",
                    r.cycle[0],
                    if r.cycle[0] <= ms { "met" } else { "missed" },
                    r.cycle[2] / r.cycle[0],
                    if r.cycle[2] <= 2.0 * r.cycle[0] {
                        "met"
                    } else {
                        "missed"
                    }
                )
            },
        )
    };
    let _ = writeln!(
        md,
        "\nGoals: accurate with vehicle {}; fast without vehicle {}.",
        goal(
            rows.iter().find(|r| r.model == "accurate" && r.vehicle),
            0.3
        ),
        goal(rows.iter().find(|r| r.model == "fast" && !r.vehicle), 0.03)
    );
    md
}
