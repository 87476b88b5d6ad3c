//! `armature check`: discrete collision and distance at one configuration.

use std::io::Write;
use std::time::Instant;

use armature::{PairWitness, Pipeline, Scene};
use clap::Args;
use serde::Serialize;

use crate::output::{FeaturesJson, PairJson, ms, num, pairs, vec3, write_json, xyz};
use crate::{Common, Failure};

/// Options of `armature check`.
#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    #[command(flatten)]
    common: Common,
    /// The configuration: comma-separated joint values (radians, metres) in
    /// the order `armature info` prints.
    #[arg(long, value_name = "Q", allow_hyphen_values = true)]
    config: String,
}

/// The JSON answer of `check`.
#[derive(Debug, Serialize)]
struct CheckJson {
    scene: String,
    collides: bool,
    distance: Option<f64>,
    collision: Option<WitnessJson>,
    closest: Option<WitnessJson>,
    config: Vec<f64>,
    stats: StatsJson,
}

/// A pair with its features and points.
#[derive(Debug, Serialize)]
struct WitnessJson {
    pair: PairJson,
    features: FeaturesJson,
    distance: f64,
    point_a: [f64; 3],
    point_b: [f64; 3],
}

#[derive(Debug, Serialize)]
struct StatsJson {
    pairs_tested: usize,
    load_ms: f64,
    total_ms: f64,
}

/// Runs `armature check`.
pub(crate) fn run(args: &CheckArgs, out: &mut impl Write) -> Result<(), Failure> {
    let loading = Instant::now();
    let scene = Scene::from_file(&args.common.scene)?;
    let load = loading.elapsed();
    let q = scene.parse_configuration("--config", &args.config)?;
    let start = Instant::now();
    let report = Pipeline::default().check(&scene, &q)?;
    let total = start.elapsed();
    let witness = |w: &PairWitness| WitnessJson {
        pair: PairJson::new(&scene, w.link, w.other),
        features: FeaturesJson::triangles(w.triangle_a, w.triangle_b),
        distance: w.distance,
        point_a: xyz(w.point_a),
        point_b: xyz(w.point_b),
    };
    let answer = CheckJson {
        scene: args.common.scene.display().to_string(),
        collides: report.colliding,
        distance: report.distance.is_finite().then_some(report.distance),
        collision: report.collision.as_ref().map(witness),
        closest: report.closest.as_ref().map(witness),
        config: q,
        stats: StatsJson {
            pairs_tested: report.pairs_tested,
            load_ms: ms(load),
            total_ms: ms(total),
        },
    };
    if args.common.json {
        write_json(out, &answer)
    } else {
        out.write_all(human(&answer).as_bytes())?;
        Ok(())
    }
}

fn human(a: &CheckJson) -> String {
    let mut rows = vec![(
        "answer",
        if a.collides { "collides" } else { "free" }.to_owned(),
    )];
    rows.push((
        "distance",
        a.distance.map_or_else(|| "no pair to test".to_owned(), num),
    ));
    let mut witness = |label: &'static str, w: &WitnessJson| {
        rows.push((label, format!("{} / {}", w.pair.a, w.pair.b)));
        rows.push(("  features", w.features.text()));
        rows.push((
            "  points",
            format!("{} / {}", vec3(w.point_a), vec3(w.point_b)),
        ));
    };
    if let Some(w) = &a.collision {
        witness("intersecting pair", w);
    }
    if let Some(w) = &a.closest {
        witness("closest pair", w);
    }
    rows.push(("pairs tested", a.stats.pairs_tested.to_string()));
    rows.push(("time (ms)", format!("{:.3}", a.stats.total_ms)));
    pairs(&rows)
}
