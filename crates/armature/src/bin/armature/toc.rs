//! `armature toc`: the first time of contact of one motion.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use armature::advance::CcdError;
use armature::kinematics::JointSpaceMotion;
use armature::{
    BroadPhase, CcdReport, CcdStatus, Error, ExactStage, Pipeline, Prepared, Scene,
    SweptVolumeCulling,
};
use clap::{Args, ValueEnum};
use serde::Serialize;

use crate::output::{FeaturesJson, PairJson, configuration, ms, num, pairs, vec3, write_json, xyz};
use crate::{Common, Failure, batch};

/// Options of `armature toc`.
#[derive(Debug, Args)]
pub(crate) struct TocArgs {
    #[command(flatten)]
    common: Common,
    /// Start configuration: comma-separated joint values (radians, metres)
    /// in the order `armature info` prints.
    #[arg(
        long,
        value_name = "Q",
        allow_hyphen_values = true,
        required_unless_present = "batch",
        conflicts_with = "batch"
    )]
    from: Option<String>,
    /// End configuration, as `--from`.
    #[arg(
        long,
        value_name = "Q",
        allow_hyphen_values = true,
        required_unless_present = "batch",
        conflicts_with = "batch"
    )]
    to: Option<String>,
    /// Answer many motions with one load of the scene: one JSON query per
    /// line of FILE (`-`: stdin), such as `{"id": "a", "from": [0, 0, 0],
    /// "to": [0.6, -1, 0]}`; one JSON answer per line, in input order,
    /// computed on all cores. The other options apply to every line.
    #[arg(long, value_name = "FILE")]
    batch: Option<PathBuf>,
    /// Threads of a batch (default: one per core).
    // Clap does not check `requires` for an argument in conflict with the
    // one it requires; the conflict with the single query is what rejects
    // `--threads` without `--batch`.
    #[arg(long, value_name = "N", requires = "batch", conflicts_with_all = ["from", "to"])]
    threads: Option<usize>,
    /// Distance below which two pieces touch (default: the scene's).
    #[arg(long, value_name = "X", allow_negative_numbers = true)]
    threshold: Option<f64>,
    /// The exact stage: conservative advancement (M4, the default) or M1's
    /// elementary equations (continuous OBB trees and the simultaneous
    /// interval solver), which also names the contact's features: a vertex
    /// against a triangle, or two edges.
    #[arg(long, value_enum, value_name = "STAGE", default_value_t = ExactStageArg::Advancement)]
    exact_stage: ExactStageArg,
    /// How the broad phase encloses each link over the motion (default:
    /// chords for advancement, interval for elementary).
    #[arg(long, value_enum, value_name = "KIND")]
    broad_phase: Option<BroadPhaseArg>,
    /// The elementary stage's time tolerance: the solver stops splitting
    /// time below this width (default 1e-4).
    #[arg(long, value_name = "W")]
    time_tolerance: Option<f64>,
    /// M1's stage 2 before the elementary stage: swept-volume culling with
    /// CULLIDE on a GPU adapter (any, a software one included; the exact
    /// CPU reference when none opens) or on the CPU reference.
    #[arg(long, value_enum, value_name = "WHERE", default_value_t = CullingArg::Off)]
    swept_volume_culling: CullingArg,
    /// Side of stage 2's square views in pixels (default 64).
    #[arg(long, value_name = "PIXELS")]
    cullide_resolution: Option<u32>,
    /// Test every pair the boxes keep, without sorting them by lower bounds
    /// on their time of contact (the answer is the same).
    #[arg(long)]
    no_temporal_culling: bool,
    /// Conservative-advancement iterations per pair before the answer is
    /// `budget_exhausted` (default 200).
    #[arg(long, value_name = "N")]
    max_iterations: Option<usize>,
    /// Path-validity mode: stop at the first certain collision, which need
    /// not be the first in time.
    #[arg(long)]
    early_out: bool,
}

/// `--exact-stage`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ExactStageArg {
    /// Conservative advancement (M4).
    Advancement,
    /// Elementary equations (M1).
    Elementary,
}

/// `--swept-volume-culling`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum CullingArg {
    /// No stage 2.
    Off,
    /// CULLIDE on a GPU adapter.
    Gpu,
    /// The exact CPU reference.
    Cpu,
}

/// `--broad-phase`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum BroadPhaseArg {
    /// Taylor-model enclosures (tight for long chains).
    Taylor,
    /// Interval enclosures (cheaper per link, looser).
    Interval,
    /// Interval enclosures for small motions, Taylor models for the others.
    BySwing,
    /// Boxes at the ends of pieces of the motion, grown by the bulge the
    /// links' acceleration allows.
    Chords,
}

/// The JSON answer of `toc`.
#[derive(Debug, Serialize)]
pub(crate) struct TocJson {
    scene: String,
    #[serde(flatten)]
    answer: AnswerJson,
    from: Vec<f64>,
    to: Vec<f64>,
    options: OptionsJson,
    stats: StatsJson,
}

/// What the query found.
#[derive(Debug, Serialize)]
struct AnswerJson {
    collides: bool,
    status: &'static str,
    toc: Option<f64>,
    toc_lower_bound: f64,
    pair: Option<PairJson>,
    features: Option<FeaturesJson>,
    point: Option<[f64; 3]>,
    normal: Option<[f64; 3]>,
    distance: Option<f64>,
    /// The configuration at `toc` on the motion (with a contact).
    config_at_toc: Option<Vec<f64>>,
    /// For a free motion: the clearance every pair keeps, the smallest
    /// `min(threshold, d(0) / 3)` over the pairs tested.
    clearance: Option<f64>,
}

/// The options the query ran with.
#[derive(Clone, Debug, Serialize)]
struct OptionsJson {
    distance_threshold: f64,
    exact_stage: &'static str,
    broad_phase: &'static str,
    swept_volume_culling: &'static str,
    temporal_culling: bool,
    max_iterations: usize,
    early_out: bool,
}

/// Counts and per-stage times (milliseconds).
#[derive(Debug, Serialize)]
struct StatsJson {
    pairs_total: usize,
    pairs_after_spatial: usize,
    pairs_after_temporal: usize,
    ca_iterations: usize,
    distance_calls: usize,
    load_ms: f64,
    prepare_ms: f64,
    spatial_ms: f64,
    culling_ms: f64,
    temporal_ms: f64,
    advance_ms: f64,
    total_ms: f64,
}

/// A query set up once for a scene: the pipeline of the options, and the
/// options as the answer reports them.
pub(crate) struct Setup {
    pipeline: Pipeline,
    options: OptionsJson,
    /// Whether `--threshold` was given (else the threshold is the scene's).
    threshold_flag: bool,
    /// The scene file, as given.
    scene_path: String,
}

impl Setup {
    /// The pipeline of the options; an option out of range is named by its
    /// flag.
    pub(crate) fn new(args: &TocArgs, scene: &Scene) -> Result<Self, Failure> {
        let mut builder = Pipeline::builder()
            .exact_stage(match args.exact_stage {
                ExactStageArg::Advancement => ExactStage::ConservativeAdvancement,
                ExactStageArg::Elementary => ExactStage::Elementary,
            })
            .temporal_culling(!args.no_temporal_culling)
            .swept_volume_culling(match args.swept_volume_culling {
                CullingArg::Off => SweptVolumeCulling::Off,
                CullingArg::Gpu => SweptVolumeCulling::Gpu,
                CullingArg::Cpu => SweptVolumeCulling::Cpu,
            })
            .early_out(args.early_out);
        if let Some(r) = args.cullide_resolution {
            builder = builder.cullide_resolution(r);
        }
        if let Some(t) = args.threshold {
            builder = builder.distance_threshold(t);
        }
        if let Some(n) = args.max_iterations {
            builder = builder.max_iterations_per_pair(n);
        }
        if let Some(b) = args.broad_phase {
            builder = builder.broad_phase(match b {
                BroadPhaseArg::Taylor => BroadPhase::Taylor,
                BroadPhaseArg::Interval => BroadPhase::Interval,
                BroadPhaseArg::BySwing => BroadPhase::BySwing,
                BroadPhaseArg::Chords => BroadPhase::Chords,
            });
        }
        if let Some(w) = args.time_tolerance {
            builder = builder.time_tolerance(w);
        }
        let pipeline = builder.build().map_err(|e| option_error(e, scene))?;
        let options = pipeline.ccd_options(scene);
        Ok(Self {
            options: OptionsJson {
                distance_threshold: options.distance_threshold,
                exact_stage: match pipeline.exact_stage() {
                    ExactStage::Elementary => "elementary",
                    _ => "advancement",
                },
                broad_phase: match pipeline.broad_phase() {
                    BroadPhase::Interval => "interval",
                    BroadPhase::BySwing => "by-swing",
                    BroadPhase::Chords => "chords",
                    _ => "taylor",
                },
                swept_volume_culling: match (
                    pipeline.exact_stage(),
                    pipeline.swept_volume_culling(),
                ) {
                    (ExactStage::Elementary, SweptVolumeCulling::Gpu) => "gpu",
                    (ExactStage::Elementary, SweptVolumeCulling::Cpu) => "cpu",
                    _ => "off",
                },
                temporal_culling: options.temporal_culling,
                max_iterations: options.max_ca_iterations_per_pair,
                early_out: options.early_out,
            },
            pipeline,
            threshold_flag: args.threshold.is_some(),
            scene_path: args.common.scene.display().to_string(),
        })
    }

    /// The scene prepared for queries on one thread; a threshold too small
    /// for the scene is named by its flag, or by the scene's field.
    pub(crate) fn prepare<'s>(&self, scene: &'s Scene) -> Result<Prepared<'s>, Failure> {
        self.pipeline
            .prepare(scene)
            .map_err(|e| threshold_error(e, scene, self.threshold_flag))
    }

    /// The answer for the motion `q0 → q1` (named `names` in messages), its
    /// `load_ms` and `prepare_ms` left at 0 and its `total_ms` the query's.
    pub(crate) fn answer(
        &self,
        scene: &Scene,
        prepared: &mut Prepared<'_>,
        q0: Vec<f64>,
        q1: Vec<f64>,
        names: [&str; 2],
    ) -> Result<TocJson, Failure> {
        let start = Instant::now();
        let report = prepared.first_contact(&q0, &q1).map_err(|e| {
            match threshold_error(e, scene, self.threshold_flag) {
                Failure::Input(e) => motion_error(e, scene, &q0, &q1, names),
                named => named,
            }
        })?;
        let total = start.elapsed();
        let mut answer = answer(scene, &report);
        if let Some(t) = report.contact.map(|c| c.time) {
            answer.config_at_toc = Some(config_at(scene, &q0, &q1, t)?);
        }
        Ok(TocJson {
            scene: self.scene_path.clone(),
            answer,
            from: q0,
            to: q1,
            options: self.options.clone(),
            stats: stats(&report, Duration::ZERO, Duration::ZERO, total),
        })
    }
}

/// Runs `armature toc`.
pub(crate) fn run(args: &TocArgs, out: &mut impl Write) -> Result<(), Failure> {
    let loading = Instant::now();
    let scene =
        crate::progress::load_scene(&args.common.scene, args.common.json || args.batch.is_some())?;
    let load = loading.elapsed();
    if let Some(file) = &args.batch {
        return batch::toc(args, &scene, file, args.threads, load, out);
    }
    let q0 = scene.parse_configuration("--from", args.from.as_deref().unwrap_or_default())?;
    let q1 = scene.parse_configuration("--to", args.to.as_deref().unwrap_or_default())?;
    let setup = Setup::new(args, &scene)?;
    let start = Instant::now();
    let mut prepared = setup.prepare(&scene)?;
    let prepare = start.elapsed();
    let mut answer = setup.answer(&scene, &mut prepared, q0, q1, ["--from", "--to"])?;
    answer.set_shared_times(load, prepare);
    answer.stats.total_ms += ms(prepare);
    if args.common.json {
        write_json(out, &answer)
    } else {
        out.write_all(human(&answer).as_bytes())?;
        Ok(())
    }
}

impl TocJson {
    /// The times of loading and preparing the scene, which a batch's
    /// answers share.
    pub(crate) fn set_shared_times(&mut self, load: Duration, prepare: Duration) {
        self.stats.load_ms = ms(load);
        self.stats.prepare_ms = ms(prepare);
    }
}

/// Counts and times of a report.
fn stats(report: &CcdReport, load: Duration, prepare: Duration, total: Duration) -> StatsJson {
    StatsJson {
        pairs_total: report.stats.pairs_total,
        pairs_after_spatial: report.stats.pairs_after_spatial,
        pairs_after_temporal: report.stats.pairs_after_temporal,
        ca_iterations: report.stats.ca_iterations,
        distance_calls: report.stats.distance_calls,
        load_ms: ms(load),
        prepare_ms: ms(prepare),
        spatial_ms: ms(report.stats.spatial_time),
        culling_ms: ms(report.stats.culling_time),
        temporal_ms: ms(report.stats.temporal_time),
        advance_ms: ms(report.stats.advance_time),
        total_ms: ms(total),
    }
}

/// The configuration at time `t` of the in-between motion `q0 → q1`: the
/// motion the query tested (quaternions along the shortest arc).
pub(crate) fn config_at(
    scene: &Scene,
    q0: &[f64],
    q1: &[f64],
    t: f64,
) -> Result<Vec<f64>, Failure> {
    let tree = scene.body().tree();
    let kinematics = |e| Error::Kinematics {
        context: "configuration at the time of contact".to_owned(),
        source: Box::new(e),
    };
    let motion = JointSpaceMotion::new(tree, q0, q1).map_err(kinematics)?;
    let mut q = vec![0.0; q0.len()];
    motion.config_at(tree, t, &mut q).map_err(kinematics)?;
    Ok(q)
}

/// An option the pipeline rejects, named by its flag.
fn option_error(e: Error, scene: &Scene) -> Failure {
    match e {
        Error::InvalidOption { name, value, why } => {
            let flag = match name {
                "distance_threshold" => "--threshold",
                "max_iterations_per_pair" => "--max-iterations",
                "time_tolerance" => "--time-tolerance",
                "cullide_resolution" => "--cullide-resolution",
                "threads" => "--threads",
                other => other,
            };
            Failure::Message(format!("option `{flag}` = {}: {why}", num_text(value)))
        }
        e => threshold_error(e, scene, true),
    }
}

/// A threshold too small for the scene's extent, named by `--threshold`
/// when the flag gave it, else by the scene's field.
fn threshold_error(e: Error, scene: &Scene, flag: bool) -> Failure {
    if let Error::Ccd(c) = &e
        && let CcdError::ThresholdTooSmall {
            threshold,
            extent,
            minimum,
            ..
        } = **c
    {
        let why = format!(
            "too small where the motion goes, {} from the origin: use at least {} (1e-10 of \
             that reach), or move the scene nearer the origin",
            num(extent),
            at_least(minimum)
        );
        return Failure::Message(if flag {
            format!("option `--threshold` = {}: {why}", num_text(threshold))
        } else {
            let file = scene
                .source()
                .map_or_else(|| "scene".to_owned(), |p| p.display().to_string());
            format!(
                "{file}: field `distance_threshold` = {}: {why}",
                num_text(threshold)
            )
        });
    }
    Failure::Input(e)
}

/// `x` with three significant digits, rounded up: a value accepted where
/// at least `x` is.
fn at_least(x: f64) -> String {
    let mut y = x;
    loop {
        let s = format!("{y:.2e}");
        if s.parse::<f64>().is_ok_and(|v| v >= x) || !y.is_finite() {
            return s;
        }
        y *= 1.0 + 1e-3;
    }
}

/// A value as the user may have typed it (`1e-300`, `0.5`, `-1`).
fn num_text(x: f64) -> String {
    let plain = x.to_string();
    if plain.len() > 12 {
        format!("{x:e}")
    } else {
        plain
    }
}

/// A query the exact stage could not run although both configurations are
/// finite: the motion is so large that its enclosures overflow. Named by
/// the joint with the largest swing and its values.
fn motion_error(e: Error, scene: &Scene, q0: &[f64], q1: &[f64], names: [&str; 2]) -> Failure {
    let overflow = matches!(
        &e,
        Error::Ccd(c) if matches!(**c, CcdError::Kinematics(_) | CcdError::Geometry(_))
    );
    let swing = |k: usize| (q1[k] - q0[k]).abs();
    // The first of the widest swings (`max_by` would keep the last).
    let widest = (0..q0.len().min(q1.len()))
        .rev()
        .max_by(|&a, &b| swing(a).total_cmp(&swing(b)));
    let (true, Some(k)) = (overflow, widest) else {
        return Failure::Input(e);
    };
    let joint = scene
        .joints()
        .into_iter()
        .find(|j| j.q.contains(&k))
        .map_or_else(
            || format!("value {k}"),
            |j| format!("value {k} (joint `{}`)", j.name),
        );
    let how_far = if swing(k).is_finite() {
        format!("a swing of {}", num_text(swing(k)))
    } else {
        "a swing that overflows".to_owned()
    };
    Failure::Message(format!(
        "motion `{}` → `{}`: {joint} goes from {} to {}, {how_far}: too large for the motion \
         to be enclosed in floating point; give joint values of a sensible size",
        names[0],
        names[1],
        num_text(q0[k]),
        num_text(q1[k]),
    ))
}

/// The verdict of a report, with names for its pair.
fn answer(scene: &Scene, report: &CcdReport) -> AnswerJson {
    let status = match report.status {
        CcdStatus::Free | CcdStatus::Collides => "converged",
        CcdStatus::CollidingAtStart => "colliding_at_start",
        CcdStatus::BudgetExhausted => "budget_exhausted",
    };
    let contact = report.contact.as_ref();
    AnswerJson {
        collides: report.may_collide(),
        status,
        toc: match report.status {
            CcdStatus::Free => None,
            CcdStatus::BudgetExhausted => Some(report.toc_lower_bound),
            CcdStatus::Collides | CcdStatus::CollidingAtStart => {
                Some(contact.map_or(report.toc_lower_bound, |c| c.time))
            }
        },
        toc_lower_bound: report.toc_lower_bound,
        pair: contact.map(|c| PairJson::new(scene, c.link, c.other)),
        features: contact.map(|c| {
            c.features.map_or_else(
                || FeaturesJson::triangles(c.triangle_a, c.triangle_b),
                FeaturesJson::elementary,
            )
        }),
        point: contact.map(|c| xyz(c.point)),
        normal: contact.map(|c| xyz(c.normal)),
        distance: contact.map(|c| c.distance),
        config_at_toc: None,
        clearance: (report.status == CcdStatus::Free).then_some(report.clearance),
    }
}

fn human(json: &TocJson) -> String {
    let a = &json.answer;
    let verdict = match (a.status, a.collides) {
        ("budget_exhausted", _) => "may collide (iteration budget exhausted)",
        ("colliding_at_start", _) => "colliding at the start",
        (_, true) => "collides",
        _ => "free",
    };
    let mut rows = vec![("answer", verdict.to_owned())];
    if let Some(t) = a.toc {
        rows.push(("time of contact", num(t)));
    }
    rows.push(("lower bound", num(a.toc_lower_bound)));
    if let Some(p) = &a.pair {
        rows.push(("pair", format!("{} / {}", p.a, p.b)));
    }
    if let Some(f) = &a.features {
        rows.push(("features", f.text()));
    }
    if let Some(p) = a.point {
        rows.push(("point", vec3(p)));
    }
    if let Some(n) = a.normal {
        rows.push(("normal", vec3(n)));
    }
    if let Some(d) = a.distance {
        rows.push(("distance", num(d)));
    }
    if let Some(q) = &a.config_at_toc {
        rows.push(("config at toc", configuration(q)));
    }
    if let Some(c) = a.clearance {
        let why = if c < json.options.distance_threshold {
            format!(
                "a third of the closest pair's start distance, {}",
                num(3.0 * c)
            )
        } else {
            "the distance threshold".to_owned()
        };
        rows.push((
            "clearance",
            format!("every pair stays at least {} apart ({why})", num(c)),
        ));
    }
    let s = &json.stats;
    rows.push((
        "pairs",
        format!(
            "{} allowed, {} after spatial, {} after temporal culling",
            s.pairs_total, s.pairs_after_spatial, s.pairs_after_temporal
        ),
    ));
    rows.push((
        "work",
        format!(
            "{} advancement iterations, {} distance queries",
            s.ca_iterations, s.distance_calls
        ),
    ));
    rows.push((
        "time (ms)",
        format!(
            "{} total: {} prepare, {} spatial, {} temporal, {} advance",
            ms_text(s.total_ms),
            ms_text(s.prepare_ms),
            ms_text(s.spatial_ms),
            ms_text(s.temporal_ms),
            ms_text(s.advance_ms)
        ),
    ));
    pairs(&rows)
}

fn ms_text(x: f64) -> String {
    format!("{x:.3}")
}
