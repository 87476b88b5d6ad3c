//! `armature path`: whether a path of waypoints is collision-free, by
//! adaptive bisection.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use armature::bisection::Object;
use armature::kinematics::JointSpaceMotion;
use armature::{Error, Other, PathReport, PathStatus, Pipeline, Scene};
use clap::Args;
use serde::Serialize;

use crate::output::{PairJson, configuration, ms, num, pairs, write_json};
use crate::{Common, Failure};

/// Options of `armature path`.
#[derive(Debug, Args)]
pub(crate) struct PathArgs {
    #[command(flatten)]
    common: Common,
    /// The waypoints (`-`: stdin): one configuration per line, values
    /// separated by commas or spaces in the order `armature info` prints;
    /// `#` starts a comment, blank lines are ignored.
    #[arg(long, value_name = "FILE")]
    waypoints: PathBuf,
    /// Clearance: pieces closer than this count as colliding (default 0);
    /// a positive clearance bounds the work near obstacles.
    #[arg(long, value_name = "E", allow_negative_numbers = true)]
    clearance: Option<f64>,
    /// Bisection steps (queue pops) before the answer is
    /// `budget_exhausted` (default 1000000).
    #[arg(long, value_name = "N")]
    max_pops: Option<u64>,
    /// REFINED-ADAPTIVE-BISECTION: queue pairs of bounding volumes instead
    /// of pairs of objects (same guarantee; fewer volume pairs where thin
    /// parts pass close to each other).
    #[arg(long)]
    refined: bool,
}

/// The JSON answer of `path`.
#[derive(Debug, Serialize)]
struct PathJson {
    scene: String,
    waypoints: usize,
    free: bool,
    status: &'static str,
    first_colliding_segment: Option<usize>,
    certified_free_prefix: PrefixJson,
    collision: Option<CollisionJson>,
    options: OptionsJson,
    stats: StatsJson,
}

/// `[0, s)` of `segment`, and every segment before it, are free.
#[derive(Debug, Serialize)]
struct PrefixJson {
    segment: usize,
    s: f64,
}

/// Where the collision of the first colliding segment was found.
#[derive(Debug, Serialize)]
struct CollisionJson {
    segment: usize,
    s: f64,
    pair: PairJson,
    config: Vec<f64>,
}

/// The options the query ran with.
#[derive(Debug, Serialize)]
struct OptionsJson {
    clearance: f64,
    max_pops: u64,
    refined: bool,
}

/// Counts and times (milliseconds).
#[derive(Debug, Serialize)]
struct StatsJson {
    segments: usize,
    segments_from_cache: usize,
    pairs: usize,
    pairs_after_prepass: usize,
    queue_pops: u64,
    bv_pairs: u64,
    bv_tests: u64,
    triangle_tests: u64,
    distance_calls: u64,
    discrete_checks: u64,
    forward_kinematics: u64,
    load_ms: f64,
    total_ms: f64,
}

/// Runs `armature path`.
pub(crate) fn run(args: &PathArgs, out: &mut impl Write) -> Result<(), Failure> {
    let loading = Instant::now();
    let scene = crate::progress::load_scene(&args.common.scene, args.common.json)?;
    let load = loading.elapsed();
    let mut builder = Pipeline::builder().refined_bisection(args.refined);
    if let Some(e) = args.clearance {
        builder = builder.path_clearance(e);
    }
    if let Some(n) = args.max_pops {
        builder = builder.max_queue_pops(n);
    }
    let pipeline = builder.build().map_err(option_error)?;
    let name = if args.waypoints == Path::new("-") {
        "stdin".to_owned()
    } else {
        args.waypoints.display().to_string()
    };
    let text = read_waypoints(&args.waypoints)?;
    let (lines, waypoints) = parse_waypoints(&scene, &name, &text)?;
    let start = Instant::now();
    let report = pipeline
        .check_path(&scene, &waypoints)
        .map_err(|e| waypoint_error(e, &name, &lines))?;
    let total = start.elapsed();
    let answer = answer(&scene, &pipeline, args, &waypoints, &report, load, total)?;
    if args.common.json {
        write_json(out, &answer)
    } else {
        out.write_all(human(&answer, &lines).as_bytes())?;
        Ok(())
    }
}

/// The waypoint file's text (stdin for `-`).
fn read_waypoints(file: &Path) -> Result<String, Failure> {
    let io = |source| {
        Failure::Input(Error::Io {
            file: file.to_owned(),
            source,
        })
    };
    if file == Path::new("-") {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map_err(io)?;
        Ok(text)
    } else {
        std::fs::read_to_string(file).map_err(io)
    }
}

/// The waypoints of a file's text with their line numbers (1-based); each
/// is checked against the scene and named `FILE:LINE` in errors.
fn parse_waypoints(
    scene: &Scene,
    name: &str,
    text: &str,
) -> Result<(Vec<usize>, Vec<Vec<f64>>), Failure> {
    let mut lines = Vec::new();
    let mut waypoints = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line_no = n + 1;
        let content = line.split('#').next().unwrap_or_default().trim();
        if content.is_empty() {
            continue;
        }
        let mut q = Vec::new();
        for (k, field) in content.split(',').enumerate() {
            let field = field.trim();
            if field.is_empty() {
                return Err(Failure::Message(format!(
                    "{name}:{line_no}: an empty value (comma {k} has nothing before or after it)"
                )));
            }
            for token in field.split_whitespace() {
                let value = token.parse::<f64>().map_err(|_| {
                    Failure::Message(format!(
                        "{name}:{line_no}: value {} `{token}` is not a number",
                        q.len()
                    ))
                })?;
                q.push(value);
            }
        }
        scene.check_configuration(&format!("{name}:{line_no}"), &q)?;
        lines.push(line_no);
        waypoints.push(q);
    }
    if waypoints.len() < 2 {
        return Err(Failure::Message(format!(
            "{name}: a path needs at least 2 waypoints, found {}",
            waypoints.len()
        )));
    }
    Ok((lines, waypoints))
}

/// An option the pipeline rejects, named by its flag.
fn option_error(e: Error) -> Failure {
    match e {
        Error::InvalidOption { name, value, why } => {
            let flag = match name {
                "path_clearance" => "--clearance",
                "max_queue_pops" => "--max-pops",
                other => other,
            };
            Failure::Message(format!("option `{flag}` = {value}: {why}"))
        }
        e => Failure::Input(e),
    }
}

/// A waypoint the query rejects (`waypoints[k]`), named by its line.
fn waypoint_error(e: Error, name: &str, lines: &[usize]) -> Failure {
    if let Error::Configuration { which, message } = &e
        && let Some(k) = which
            .strip_prefix("waypoints[")
            .and_then(|r| r.strip_suffix(']'))
            .and_then(|k| k.parse::<usize>().ok())
        && let Some(line) = lines.get(k)
    {
        return Failure::Input(Error::Configuration {
            which: format!("{name}:{line}"),
            message: message.clone(),
        });
    }
    Failure::Input(e)
}

/// The configuration at parameter `s` of segment `k`.
fn config_at(scene: &Scene, waypoints: &[Vec<f64>], k: usize, s: f64) -> Result<Vec<f64>, Failure> {
    // The ends are the waypoints themselves, not their rounded
    // interpolation.
    if s == 0.0 || s == 1.0 {
        return Ok(waypoints[k + usize::from(s == 1.0)].clone());
    }
    let tree = scene.body().tree();
    let kinematics = |e| Error::Kinematics {
        context: "configuration at the collision".to_owned(),
        source: Box::new(e),
    };
    let motion =
        JointSpaceMotion::new(tree, &waypoints[k], &waypoints[k + 1]).map_err(kinematics)?;
    let mut q = vec![0.0; scene.nq()];
    motion.config_at(tree, s, &mut q).map_err(kinematics)?;
    Ok(q)
}

fn answer(
    scene: &Scene,
    pipeline: &Pipeline,
    args: &PathArgs,
    waypoints: &[Vec<f64>],
    report: &PathReport,
    load: Duration,
    total: Duration,
) -> Result<PathJson, Failure> {
    let collision = match report.collision {
        Some(c) => Some(CollisionJson {
            segment: c.segment,
            s: c.s,
            pair: PairJson::new(
                scene,
                c.link,
                match c.other {
                    Object::Link(j) => Other::Link(j),
                    Object::Obstacle(o) => Other::Obstacle(o),
                },
            ),
            config: config_at(scene, waypoints, c.segment, c.s)?,
        }),
        None => None,
    };
    let s = &report.stats;
    Ok(PathJson {
        scene: args.common.scene.display().to_string(),
        waypoints: waypoints.len(),
        free: report.status == PathStatus::Free,
        status: match report.status {
            PathStatus::Free => "free",
            PathStatus::Collides => "collides",
            PathStatus::BudgetExhausted => "budget_exhausted",
        },
        first_colliding_segment: report.first_colliding_segment,
        certified_free_prefix: PrefixJson {
            segment: report.certified_free_prefix.0,
            s: report.certified_free_prefix.1,
        },
        collision,
        options: OptionsJson {
            clearance: pipeline.path_clearance(),
            max_pops: pipeline.max_queue_pops(),
            refined: pipeline.refined_bisection(),
        },
        stats: StatsJson {
            segments: waypoints.len() - 1,
            segments_from_cache: s.segments_from_cache,
            pairs: s.pairs,
            pairs_after_prepass: s.pairs_after_prepass,
            queue_pops: s.queue_pops,
            bv_pairs: s.bv_pairs,
            bv_tests: s.bv_tests,
            triangle_tests: s.triangle_tests,
            distance_calls: s.greedy_calls,
            discrete_checks: s.discrete_checks,
            forward_kinematics: s.forward_kinematics,
            load_ms: ms(load),
            total_ms: ms(total),
        },
    })
}

fn human(json: &PathJson, lines: &[usize]) -> String {
    let verdict = match json.status {
        "free" => "free",
        "collides" => "collides",
        _ => "may collide (budget of bisection steps exhausted)",
    };
    let segment = |k: usize| {
        format!(
            "segment {k} (waypoints {k} → {}, lines {} → {})",
            k + 1,
            lines.get(k).copied().unwrap_or(0),
            lines.get(k + 1).copied().unwrap_or(0)
        )
    };
    let mut rows = vec![("answer", verdict.to_owned())];
    rows.push((
        "path",
        format!(
            "{} waypoints, {} segment{}",
            json.waypoints,
            json.stats.segments,
            if json.stats.segments == 1 { "" } else { "s" }
        ),
    ));
    if let Some(k) = json.first_colliding_segment {
        rows.push(("first colliding", segment(k)));
    }
    let p = &json.certified_free_prefix;
    rows.push((
        "certified free",
        if json.free {
            "the whole path".to_owned()
        } else if p.s > 0.0 {
            format!("up to s = {} of segment {}", num(p.s), p.segment)
        } else {
            format!("up to the start of segment {}", p.segment)
        },
    ));
    if let Some(c) = &json.collision {
        rows.push(("pair", format!("{} / {}", c.pair.a, c.pair.b)));
        rows.push(("at", format!("s = {} of segment {}", num(c.s), c.segment)));
        rows.push(("config", configuration(&c.config)));
    }
    let s = &json.stats;
    rows.push((
        "pairs",
        format!(
            "{} set up (allowed pairs × segments), {} after the pre-pass",
            s.pairs, s.pairs_after_prepass
        ),
    ));
    rows.push((
        "work",
        format!(
            "{} bisection steps, {} distance bounds, {} discrete checks",
            s.queue_pops, s.distance_calls, s.discrete_checks
        ),
    ));
    rows.push((
        "time (ms)",
        format!("{:.3} check, {:.3} load", s.total_ms, s.load_ms),
    ));
    pairs(&rows)
}
