//! `armature toc`: the first time of contact of one motion.

use std::io::Write;
use std::time::Instant;

use armature::{BroadPhase, CcdReport, CcdStatus, Pipeline, Scene};
use clap::{Args, ValueEnum};
use serde::Serialize;

use crate::output::{FeaturesJson, PairJson, ms, num, pairs, vec3, write_json, xyz};
use crate::{Common, Failure};

/// Options of `armature toc`.
#[derive(Debug, Args)]
pub(crate) struct TocArgs {
    #[command(flatten)]
    common: Common,
    /// Start configuration: comma-separated joint values (radians, metres)
    /// in the order `armature info` prints.
    #[arg(long, value_name = "Q", allow_hyphen_values = true)]
    from: String,
    /// End configuration, as `--from`.
    #[arg(long, value_name = "Q", allow_hyphen_values = true)]
    to: String,
    /// Distance below which two pieces touch (default: the scene's).
    #[arg(long, value_name = "X", allow_negative_numbers = true)]
    threshold: Option<f64>,
    /// How the broad phase encloses each link over the motion.
    #[arg(long, value_enum, value_name = "KIND", default_value_t = BroadPhaseArg::Taylor)]
    broad_phase: BroadPhaseArg,
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

/// `--broad-phase`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum BroadPhaseArg {
    /// Taylor-model enclosures (tight for long chains).
    Taylor,
    /// Interval enclosures (cheaper per link, looser).
    Interval,
}

/// The JSON answer of `toc`.
#[derive(Debug, Serialize)]
struct TocJson {
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
}

/// The options the query ran with.
#[derive(Debug, Serialize)]
struct OptionsJson {
    distance_threshold: f64,
    broad_phase: &'static str,
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
    temporal_ms: f64,
    advance_ms: f64,
    total_ms: f64,
}

/// Runs `armature toc`.
pub(crate) fn run(args: &TocArgs, out: &mut impl Write) -> Result<(), Failure> {
    let loading = Instant::now();
    let scene = Scene::from_file(&args.common.scene)?;
    let load = loading.elapsed();
    let q0 = scene.parse_configuration("--from", &args.from)?;
    let q1 = scene.parse_configuration("--to", &args.to)?;
    let mut builder = Pipeline::builder()
        .broad_phase(match args.broad_phase {
            BroadPhaseArg::Taylor => BroadPhase::Taylor,
            BroadPhaseArg::Interval => BroadPhase::Interval,
        })
        .temporal_culling(!args.no_temporal_culling)
        .early_out(args.early_out);
    if let Some(t) = args.threshold {
        builder = builder.distance_threshold(t);
    }
    if let Some(n) = args.max_iterations {
        builder = builder.max_iterations_per_pair(n);
    }
    let pipeline = builder.build()?;
    let options = pipeline.ccd_options(&scene);
    let start = Instant::now();
    let mut prepared = pipeline.prepare(&scene)?;
    let prepare = start.elapsed();
    let report = prepared.first_contact(&q0, &q1)?;
    let total = start.elapsed();
    let options = OptionsJson {
        distance_threshold: options.distance_threshold,
        broad_phase: match args.broad_phase {
            BroadPhaseArg::Taylor => "taylor",
            BroadPhaseArg::Interval => "interval",
        },
        temporal_culling: options.temporal_culling,
        max_iterations: options.max_ca_iterations_per_pair,
        early_out: options.early_out,
    };
    let stats = StatsJson {
        pairs_total: report.stats.pairs_total,
        pairs_after_spatial: report.stats.pairs_after_spatial,
        pairs_after_temporal: report.stats.pairs_after_temporal,
        ca_iterations: report.stats.ca_iterations,
        distance_calls: report.stats.distance_calls,
        load_ms: ms(load),
        prepare_ms: ms(prepare),
        spatial_ms: ms(report.stats.spatial_time),
        temporal_ms: ms(report.stats.temporal_time),
        advance_ms: ms(report.stats.advance_time),
        total_ms: ms(total),
    };
    let answer = TocJson {
        scene: args.common.scene.display().to_string(),
        from: q0,
        to: q1,
        answer: answer(&scene, &report),
        options,
        stats,
    };
    if args.common.json {
        write_json(out, &answer)
    } else {
        out.write_all(human(&answer).as_bytes())?;
        Ok(())
    }
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
        features: contact.map(|c| FeaturesJson::triangles(c.triangle_a, c.triangle_b)),
        point: contact.map(|c| xyz(c.point)),
        normal: contact.map(|c| xyz(c.normal)),
        distance: contact.map(|c| c.distance),
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
