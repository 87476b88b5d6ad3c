//! `armature check`: discrete collision and distance at one configuration.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use armature::{Error, Other, PairWitness, Pipeline, Scene};
use clap::Args;
use glam::DVec3;
use serde::Serialize;

use crate::output::{FeaturesJson, PairJson, ms, num, pairs, vec3, write_json, xyz};
use crate::{Common, Failure, batch};

/// Options of `armature check`.
#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    #[command(flatten)]
    pub(crate) common: Common,
    /// The configuration: comma-separated joint values (radians, metres) in
    /// the order `armature info` prints.
    #[arg(
        long,
        value_name = "Q",
        allow_hyphen_values = true,
        required_unless_present = "batch",
        conflicts_with = "batch"
    )]
    config: Option<String>,
    /// Answer many configurations with one load of the scene: one JSON
    /// query per line of FILE (`-`: stdin), such as `{"id": "b", "config":
    /// [0, 0, 0]}`; one JSON answer per line, in input order, computed on
    /// all cores.
    #[arg(long, value_name = "FILE")]
    batch: Option<PathBuf>,
    /// Threads of a batch (default: one per core).
    // Clap does not check `requires` for an argument in conflict with the
    // one it requires; the conflict with the single query is what rejects
    // `--threads` without `--batch`.
    #[arg(long, value_name = "N", requires = "batch", conflicts_with = "config")]
    threads: Option<usize>,
}

/// The JSON answer of `check`.
#[derive(Debug, Serialize)]
pub(crate) struct CheckJson {
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
    /// What `point_a` and `point_b` are: `closest_points`,
    /// `triangle_centroids` (of two intersecting triangles) or
    /// `inner_and_surface` (a point inside a closed mesh and the nearest
    /// point of its surface).
    points: &'static str,
}

#[derive(Debug, Serialize)]
struct StatsJson {
    pairs_tested: usize,
    load_ms: f64,
    total_ms: f64,
}

impl CheckJson {
    /// Sets the time of loading the scene, which a batch's answers share.
    pub(crate) fn set_load_time(&mut self, load: Duration) {
        self.stats.load_ms = ms(load);
    }
}

/// Runs `armature check`.
pub(crate) fn run(args: &CheckArgs, out: &mut impl Write) -> Result<(), Failure> {
    let loading = Instant::now();
    let scene =
        crate::progress::load_scene(&args.common.scene, args.common.json || args.batch.is_some())?;
    let load = loading.elapsed();
    let path = args.common.scene.display().to_string();
    if let Some(file) = &args.batch {
        return batch::check(&scene, &path, file, args.threads, load, out);
    }
    let q = scene.parse_configuration("--config", args.config.as_deref().unwrap_or_default())?;
    let mut answer = answer(&scene, &path, q)?;
    answer.set_load_time(load);
    if args.common.json {
        write_json(out, &answer)
    } else {
        out.write_all(human(&answer).as_bytes())?;
        Ok(())
    }
}

/// The answer at `q` (already checked), its `load_ms` left at 0.
pub(crate) fn answer(scene: &Scene, path: &str, q: Vec<f64>) -> Result<CheckJson, Failure> {
    let start = Instant::now();
    let report = Pipeline::default().check(scene, &q)?;
    let total = start.elapsed();
    let collision = match &report.collision {
        Some(w) => {
            let kind = if is_centroids(scene, &q, w)? {
                "triangle_centroids"
            } else {
                "inner_and_surface"
            };
            Some(witness(scene, w, kind))
        }
        None => None,
    };
    Ok(CheckJson {
        scene: path.to_owned(),
        collides: report.colliding,
        distance: report.distance.is_finite().then_some(report.distance),
        collision,
        closest: report
            .closest
            .as_ref()
            .map(|w| witness(scene, w, "closest_points")),
        config: q,
        stats: StatsJson {
            pairs_tested: report.pairs_tested,
            load_ms: 0.0,
            total_ms: ms(total),
        },
    })
}

fn witness(scene: &Scene, w: &PairWitness, points: &'static str) -> WitnessJson {
    WitnessJson {
        pair: PairJson::new(scene, w.link, w.other),
        features: FeaturesJson::triangles(w.triangle_a, w.triangle_b),
        distance: w.distance,
        point_a: xyz(w.point_a),
        point_b: xyz(w.point_b),
        points,
    }
}

/// Whether an intersecting pair's points are its triangles' centroids
/// (two triangles meet), not the points of a closed mesh holding the
/// other: the check reports intersecting triangles by their centroids,
/// computed as here.
fn is_centroids(scene: &Scene, q: &[f64], w: &PairWitness) -> Result<bool, Failure> {
    let poses = scene
        .body()
        .tree()
        .poses(q)
        .map_err(|e| Error::Kinematics {
            context: "forward kinematics".to_owned(),
            source: Box::new(e),
        })?;
    let centroid = |mesh: &armature::geometry::TriMesh, t: u32| {
        mesh.get_triangle(t as usize)
            .map(|[p, q, r]| (p + q + r) / 3.0)
    };
    let on_link = |i: usize, t: u32| {
        let g = scene.body().links().get(i)?.as_ref()?;
        Some(poses.get(i)?.transform_point3(centroid(&g.mesh, t)?))
    };
    let a = on_link(w.link, w.triangle_a);
    let b = match w.other {
        Other::Obstacle(o) => scene.obstacles().get(o).and_then(|o| {
            centroid(&o.geometry().mesh, w.triangle_b).map(|c| o.pose_at(0.0).transform_point3(c))
        }),
        Other::Link(j) => on_link(j, w.triangle_b),
    };
    let near = |p: Option<DVec3>, x: DVec3| {
        p.is_some_and(|p| p.distance(x) <= 1e-12 * (1.0 + x.abs().max_element()))
    };
    Ok(near(a, w.point_a) && near(b, w.point_b))
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
        let points = match w.points {
            "triangle_centroids" => "  triangle centroids",
            "inner_and_surface" => "  inner / surface",
            _ => "  closest points",
        };
        rows.push((points, format!("{} / {}", vec3(w.point_a), vec3(w.point_b))));
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
