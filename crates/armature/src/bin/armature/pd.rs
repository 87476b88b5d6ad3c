//! `armature pd`: generalized penetration depth at one configuration.

use std::io::Write;
use std::time::Instant;

use armature::pd::{FreeSelection, PdStatus};
use armature::{Pipeline, Scene};
use clap::Args;
use serde::Serialize;

use crate::output::{PairJson, configuration, ms, num, pairs, vec3, write_json, xyz};
use crate::{Common, Failure};

/// Options of `armature pd`.
#[derive(Debug, Args)]
pub(crate) struct PdArgs {
    #[command(flatten)]
    pub(crate) common: Common,
    /// The in-collision configuration: comma-separated joint values
    /// (radians, metres) in the order `armature info` prints.
    #[arg(long, value_name = "Q", allow_hyphen_values = true)]
    config: String,
    /// A collision-free configuration near Q to start from (motion
    /// coherence: the previous frame's pose, a planner's nearest free
    /// node); ignored when it collides.
    #[arg(long, value_name = "Q", allow_hyphen_values = true)]
    hint: Option<String>,
    /// Most constrained-optimisation iterations.
    #[arg(long, value_name = "N", default_value_t = 12)]
    max_iterations: usize,
}

/// The JSON answer of `pd`.
#[derive(Debug, Serialize)]
struct PdJson {
    scene: String,
    /// Whether the input configuration collides.
    collides: bool,
    /// `already_free`, `separated` or `no_free_configuration`.
    status: &'static str,
    /// The object norm σ (squared length); `null` without an answer.
    value: Option<f64>,
    /// √σ: the root-mean-square displacement of the model's points.
    rms_displacement: Option<f64>,
    /// The separating configuration.
    configuration: Vec<f64>,
    iterations: usize,
    /// Smallest distance at the separating configuration.
    distance: f64,
    /// How the starting configuration was found.
    selection: Option<&'static str>,
    contacts: Vec<ContactJson>,
    stats: StatsJson,
}

#[derive(Debug, Serialize)]
struct ContactJson {
    pair: PairJson,
    distance: f64,
    point_a: [f64; 3],
    point_b: [f64; 3],
    normal: [f64; 3],
}

#[derive(Debug, Serialize)]
struct StatsJson {
    free_candidates: usize,
    ccd_calls: usize,
    discrete_checks: usize,
    contact_rows: usize,
    pgs_iterations: usize,
    lcp_pivots: usize,
    projected_value: f64,
    selection_ms: f64,
    projection_ms: f64,
    optimisation_ms: f64,
    load_ms: f64,
    total_ms: f64,
}

/// Runs `armature pd`.
pub(crate) fn run(args: &PdArgs, out: &mut impl Write) -> Result<(), Failure> {
    let loading = Instant::now();
    let scene = crate::progress::load_scene(&args.common.scene, args.common.json)?;
    let load = loading.elapsed();
    let q = scene.parse_configuration("--config", &args.config)?;
    let hint = args
        .hint
        .as_deref()
        .map(|h| scene.parse_configuration("--hint", h))
        .transpose()?;
    if args.max_iterations == 0 {
        return Err(Failure::Message(
            "--max-iterations: must be at least 1".to_owned(),
        ));
    }
    let start = Instant::now();
    let mut options = Pipeline::default().pd_options(&scene);
    options.max_iterations = args.max_iterations;
    let mut solver = armature::pd::PdSolver::new(
        scene.body(),
        scene.obstacles(),
        scene.disabled_pairs(),
        &options,
    )
    .map_err(armature::Error::from)?;
    let report = solver
        .penetration_depth_from(&q, hint.as_deref())
        .map_err(armature::Error::from)?;
    let total = start.elapsed();
    let answer = answer(&scene, args, &report, load, total);
    if args.common.json {
        write_json(out, &answer)
    } else {
        out.write_all(human(&answer).as_bytes())?;
        Ok(())
    }
}

fn answer(
    scene: &Scene,
    args: &PdArgs,
    r: &armature::PdReport,
    load: std::time::Duration,
    total: std::time::Duration,
) -> PdJson {
    let found = r.value.is_finite();
    PdJson {
        scene: args.common.scene.display().to_string(),
        collides: r.status != PdStatus::AlreadyFree,
        status: match r.status {
            PdStatus::AlreadyFree => "already_free",
            PdStatus::Separated => "separated",
            PdStatus::NoFreeConfiguration => "no_free_configuration",
        },
        value: found.then_some(r.value),
        rms_displacement: found.then(|| r.rms_displacement()),
        configuration: r.configuration.clone(),
        iterations: r.iterations,
        distance: r.distance,
        selection: r.selection.map(|s| match s {
            FreeSelection::MotionCoherence => "motion_coherence",
            FreeSelection::SuccessivePerturbation => "successive_perturbation",
            FreeSelection::ConstrainedTranslation => "constrained_translation",
        }),
        contacts: r
            .contacts
            .iter()
            .map(|c| ContactJson {
                pair: PairJson::new(scene, c.link, c.other),
                distance: c.distance,
                point_a: xyz(c.point_a),
                point_b: xyz(c.point_b),
                normal: xyz(c.normal),
            })
            .collect(),
        stats: StatsJson {
            free_candidates: r.stats.free_candidates,
            ccd_calls: r.stats.ccd_calls,
            discrete_checks: r.stats.discrete_checks,
            contact_rows: r.stats.contact_rows,
            pgs_iterations: r.stats.pgs_iterations,
            lcp_pivots: r.stats.lcp_pivots,
            projected_value: r.stats.projected_value,
            selection_ms: ms(r.stats.selection_time),
            projection_ms: ms(r.stats.projection_time),
            optimisation_ms: ms(r.stats.optimisation_time),
            load_ms: ms(load),
            total_ms: ms(total),
        },
    }
}

fn human(a: &PdJson) -> String {
    let mut rows = vec![("answer", a.status.replace('_', " "))];
    if let Some(v) = a.value {
        rows.push(("object norm σ", num(v)));
    }
    if let Some(v) = a.rms_displacement {
        rows.push(("rms displacement", num(v)));
    }
    rows.push(("configuration", configuration(&a.configuration)));
    rows.push(("iterations", a.iterations.to_string()));
    rows.push(("distance", num(a.distance)));
    if let Some(s) = a.selection {
        rows.push(("start from", s.replace('_', " ")));
    }
    // One row per pair in contact (the closest of its triangle pairs),
    // closest pair first.
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for c in &a.contacts {
        let key = (c.pair.a.as_str(), c.pair.b.as_str());
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let n = a
            .contacts
            .iter()
            .filter(|d| d.pair.a == c.pair.a && d.pair.b == c.pair.b)
            .count();
        rows.push((
            "contact",
            format!("{} / {} ({n} triangle pairs)", c.pair.a, c.pair.b),
        ));
        rows.push((
            "  point, normal",
            format!("{} {}", vec3(c.point_a), vec3(c.normal)),
        ));
    }
    rows.push((
        "queries",
        format!(
            "{} discrete, {} continuous",
            a.stats.discrete_checks, a.stats.ccd_calls
        ),
    ));
    rows.push(("time (ms)", format!("{:.3}", a.stats.total_ms)));
    pairs(&rows)
}
