//! The segment suite (M2 Tables III and VI): random straight c-space
//! segments between two random collision-free configurations, on the
//! thin-obstacle scenes and the Puma scenes, checked by every method the
//! repository has for a path segment.
//!
//! Per scene: draw segments (both ends uniform within the joint limits and
//! collision-free, seeded; kept until half collide and half are free, as
//! M2 does), then time on one thread, segment by segment:
//! ADAPTIVE-BISECTION with `ε = 0` (the verdict the tables sort by, run
//! without locating the collision, as M2 measures it), the same with the
//! collision located on colliding segments (the certified free prefix),
//! with `ε = 1 mm`, the REFINED variant (`ε = 0`), FIXED-RES-BISECTION
//! with resolution ρ (the baseline, which can miss) and the
//! conservative-advancement pipeline on the same motion. Then judge, on
//! all cores and untimed:
//!
//! - a segment *touches* when some method's colliding configuration is
//!   found touching by the oracle's own test ([`Oracle::colliding_at`]);
//! - a certified method (adaptive, REFINED, `ε = 1 mm`, conservative
//!   advancement) answering free on a touching segment is a miss: the run
//!   fails;
//! - an adaptive free answer is also probed at 32 evenly spaced
//!   configurations with the discrete check, and, where conservative
//!   advancement reports a contact, by the oracle's verdict and a probe
//!   for touching from its bracket on (as the motion suite does);
//! - an `ε = 0` method whose colliding configuration does not touch (nor
//!   lies within the oracle's contact tolerance) raises a false alarm,
//!   which fails the run when conservative advancement proves the segment
//!   apart;
//! - the fixed-resolution answer free on a touching segment is counted
//!   (that is what it costs), not failed.

use std::time::Instant;

use anyhow::{Context, Result};
use armature::bisection::PathChecker;
use armature::oracle::{Mode, Oracle, OracleOptions, Verdict};
use armature::{CcdReport, PathReport, PathStats, PathStatus, Pipeline, Scene};
use rayon::prelude::*;
use serde_json::{Value, json};

use super::run::{Rng, limits, progress};

/// Clearance of the `ε > 0` adaptive row (metres).
pub(crate) const EPS_ROW: f64 = 1e-3;
/// Configurations an adaptive free answer is probed at.
const PROBES: usize = 32;

/// One path method's run on a segment.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Run {
    /// Wall time (ms, one thread).
    pub(crate) ms: f64,
    /// The verdict.
    pub(crate) status: PathStatus,
    /// Where it found the collision (`s`), if it did.
    pub(crate) at: Option<f64>,
    /// Its work counters.
    pub(crate) stats: PathStats,
}

impl Run {
    fn of(report: &PathReport, ms: f64) -> Self {
        Self {
            ms,
            status: report.status,
            at: report.collision.map(|c| c.s),
            stats: report.stats,
        }
    }
}

/// The methods, in table order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Method {
    /// ADAPTIVE-BISECTION, `ε = 0`, collision not located.
    Adaptive,
    /// The same, colliding segments' collision located.
    Located,
    /// ADAPTIVE-BISECTION, `ε = 1 mm`.
    AdaptiveEps,
    /// REFINED-ADAPTIVE-BISECTION, `ε = 0`.
    Refined,
    /// FIXED-RES-BISECTION at ρ.
    Fixed,
    /// The conservative-advancement pipeline.
    Advancement,
}

impl Method {
    const ALL: [Self; 6] = [
        Self::Adaptive,
        Self::Located,
        Self::AdaptiveEps,
        Self::Refined,
        Self::Fixed,
        Self::Advancement,
    ];

    fn label(self, rho: f64) -> String {
        match self {
            Self::Adaptive => "adaptive ε = 0".to_owned(),
            Self::Located => "adaptive ε = 0, located".to_owned(),
            Self::AdaptiveEps => "adaptive ε = 1 mm".to_owned(),
            Self::Refined => "refined ε = 0".to_owned(),
            Self::Fixed => format!("fixed ρ = {rho}"),
            Self::Advancement => "conservative advancement".to_owned(),
        }
    }
}

/// Everything measured on one segment.
#[derive(Clone, Debug)]
pub(crate) struct SegmentResult {
    /// Index within the scene.
    pub(crate) index: usize,
    /// Start configuration.
    pub(crate) q0: Vec<f64>,
    /// End configuration.
    pub(crate) q1: Vec<f64>,
    /// Adaptive, `ε = 0`, not located.
    pub(crate) adaptive: Run,
    /// Adaptive, `ε = 0`, located (colliding segments only).
    pub(crate) located: Option<Run>,
    /// Adaptive, `ε = 1 mm`.
    pub(crate) eps: Run,
    /// REFINED, `ε = 0`.
    pub(crate) refined: Run,
    /// Fixed resolution.
    pub(crate) fixed: Run,
    /// Conservative advancement: time and answer.
    pub(crate) ca: (f64, CcdReport),
    /// Whether the segment touches (filled by [`judge`]).
    pub(crate) touches: bool,
    /// Defects found by [`judge`] (each fails the run).
    pub(crate) defects: Vec<String>,
    /// `ε = 0` colliding answers whose configuration does not touch, with
    /// no proof the segment is apart (reported, not failed).
    pub(crate) warnings: Vec<String>,
}

impl SegmentResult {
    fn run(&self, m: Method) -> Option<Run> {
        match m {
            Method::Adaptive => Some(self.adaptive),
            Method::Located => self.located,
            Method::AdaptiveEps => Some(self.eps),
            Method::Refined => Some(self.refined),
            Method::Fixed => Some(self.fixed),
            Method::Advancement => None,
        }
    }

    fn ms(&self, m: Method) -> Option<f64> {
        match m {
            Method::Advancement => Some(self.ca.0),
            _ => self.run(m).map(|r| r.ms),
        }
    }

    fn says_free(&self, m: Method) -> Option<bool> {
        match m {
            Method::Advancement => Some(!self.ca.1.may_collide()),
            _ => self.run(m).map(|r| r.status == PathStatus::Free),
        }
    }
}

/// Segments of one scene: both ends uniform within the limits and
/// collision-free, kept (as M2 does) until half are colliding and half
/// free by adaptive bisection (ε = 0); after `50 n` draws, whatever is
/// missing is filled with either kind.
///
/// # Errors
/// When no collision-free configuration turns up in 100,000 draws, or a
/// check fails.
fn endpoints(
    scene: &Scene,
    pipeline: &Pipeline,
    n: usize,
    rng: &mut Rng,
) -> Result<Vec<(Vec<f64>, Vec<f64>)>> {
    let lim = limits(scene);
    let free = |rng: &mut Rng| -> Result<Vec<f64>> {
        for _ in 0..100_000 {
            let q: Vec<f64> = lim.iter().map(|&(lo, hi)| rng.uniform(lo, hi)).collect();
            if !pipeline.collides(scene, &q)? {
                return Ok(q);
            }
        }
        anyhow::bail!("no collision-free configuration in 100,000 draws")
    };
    let classify = Pipeline::builder().locate_path_collision(false).build()?;
    let mut checker = classify.prepare_paths(scene)?;
    let want_colliding = n / 2;
    let (mut colliding, mut free_ones, mut spare) = (Vec::new(), Vec::new(), Vec::new());
    let mut draws = 0;
    while colliding.len() + free_ones.len() < n && draws < 50 * n {
        draws += 1;
        let (q0, q1) = (free(rng)?, free(rng)?);
        checker.clear_cache();
        match checker.check_path(&[&q0, &q1])?.status {
            PathStatus::Collides if colliding.len() < want_colliding => colliding.push((q0, q1)),
            PathStatus::Free if free_ones.len() < n - want_colliding => free_ones.push((q0, q1)),
            _ => spare.push((q0, q1)),
        }
    }
    let mut out = colliding;
    out.extend(free_ones);
    let missing = n.saturating_sub(out.len());
    out.extend(spare.into_iter().take(missing));
    Ok(out)
}

fn millis(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

/// Times every method on every segment, on this thread, one method at a
/// time: each method answers all the segments in its own pass, as a
/// planner calls one checker again and again, so its caches hold its own
/// data and not what another method left there. (Timing the methods in
/// turn on each segment made each one pay for the one before it: in the
/// welding cage, the colliding segments' adaptive mean 0.080–0.090 ms
/// that way against 0.055 ms in passes of their own, the two orders
/// alternated on one machine.)
///
/// # Errors
/// A query error, with the segment's index.
fn timed(
    scene: &Scene,
    motions: Vec<(Vec<f64>, Vec<f64>)>,
    rho: f64,
    label: &str,
) -> Result<Vec<SegmentResult>> {
    let plain = Pipeline::builder().locate_path_collision(false).build()?;
    let located = Pipeline::builder().build()?;
    let eps = Pipeline::builder()
        .locate_path_collision(false)
        .path_clearance(EPS_ROW)
        .build()?;
    let refined = Pipeline::builder()
        .locate_path_collision(false)
        .refined_bisection(true)
        .build()?;
    let mut checkers = [&plain, &located, &eps, &refined]
        .map(|p| p.prepare_paths(scene))
        .into_iter()
        .collect::<Result<Vec<_>, _>>()?;
    let mut fixed = PathChecker::new(
        scene.body(),
        scene.obstacles(),
        scene.disabled_pairs(),
        &plain.path_options(scene),
    )?;
    let mut ca = plain.prepare(scene)?;
    let n = motions.len();
    let bar = progress(6 * n, label);
    let context = |index: usize| format!("segment {index}");
    // One pass per checker of `checkers`, each query with an empty cache:
    // each answer is a fresh query's.
    let mut pass = |k: usize, only: &dyn Fn(usize) -> bool| -> Result<Vec<Option<Run>>> {
        let c = &mut checkers[k];
        let mut out = Vec::with_capacity(n);
        for (index, (q0, q1)) in motions.iter().enumerate() {
            bar.inc(1);
            if !only(index) {
                out.push(None);
                continue;
            }
            c.clear_cache();
            let start = Instant::now();
            let r = c
                .check_path(&[q0.as_slice(), q1.as_slice()])
                .with_context(|| context(index))?;
            out.push(Some(Run::of(&r, millis(start))));
        }
        Ok(out)
    };
    let adaptive: Vec<Run> = pass(0, &|_| true)?.into_iter().flatten().collect();
    let collides: Vec<bool> = adaptive
        .iter()
        .map(|r| r.status == PathStatus::Collides)
        .collect();
    let located = pass(1, &|i| collides[i])?;
    let eps: Vec<Run> = pass(2, &|_| true)?.into_iter().flatten().collect();
    let refined: Vec<Run> = pass(3, &|_| true)?.into_iter().flatten().collect();
    let mut fixed_runs = Vec::with_capacity(n);
    for (index, (q0, q1)) in motions.iter().enumerate() {
        bar.inc(1);
        let start = Instant::now();
        let f = fixed
            .check_path_fixed_resolution(&[q0.as_slice(), q1.as_slice()], rho)
            .with_context(|| context(index))?;
        fixed_runs.push(Run::of(&f, millis(start)));
    }
    let mut ca_runs = Vec::with_capacity(n);
    for (index, (q0, q1)) in motions.iter().enumerate() {
        bar.inc(1);
        let start = Instant::now();
        let c = ca.first_contact(q0, q1).with_context(|| context(index))?;
        ca_runs.push((millis(start), c));
    }
    bar.finish_and_clear();
    let out = motions
        .into_iter()
        .zip(adaptive)
        .zip(located)
        .zip(eps)
        .zip(refined)
        .zip(fixed_runs)
        .zip(ca_runs)
        .enumerate()
        .map(
            |(index, (((((((q0, q1), adaptive), located), eps), refined), fixed), ca))| {
                SegmentResult {
                    index,
                    q0,
                    q1,
                    adaptive,
                    located,
                    eps,
                    refined,
                    fixed,
                    ca,
                    touches: false,
                    defects: Vec::new(),
                    warnings: Vec::new(),
                }
            },
        )
        .collect();
    Ok(out)
}

/// Judges one segment (see the module docs).
fn judge(oracle: &Oracle, pipeline: &Pipeline, scene: &Scene, r: &mut SegmentResult) -> Result<()> {
    let (q0, q1) = (r.q0.clone(), r.q1.clone());
    let touching_at =
        |s: f64| -> Result<bool> { Ok(oracle.colliding_at(&q0, &q1, s.clamp(0.0, 1.0))?) };
    // Which colliding configurations touch.
    let mut witnessed = Vec::new();
    for m in [Method::Adaptive, Method::Refined, Method::Fixed] {
        let Some(run) = r.run(m) else { continue };
        if let (PathStatus::Collides, Some(s)) = (run.status, run.at) {
            let touches = touching_at(s)?;
            if touches {
                r.touches = true;
            }
            witnessed.push((m, s, touches));
        }
    }
    // Probe an adaptive free answer.
    if r.adaptive.status == PathStatus::Free && !r.touches {
        let mut q = vec![0.0; q0.len()];
        for k in 0..=PROBES {
            let s = k as f64 / PROBES as f64;
            for (i, v) in q.iter_mut().enumerate() {
                *v = q0[i] + s * (q1[i] - q0[i]);
            }
            if pipeline.collides(scene, &q)? && touching_at(s)? {
                r.touches = true;
                break;
            }
        }
        if !r.touches && r.ca.1.may_collide() {
            let (v, stats) = oracle.verdict_with_stats(&q0, &q1)?;
            if let Verdict::Collides { bracket, .. } = v {
                let n = stats.grid.max(1);
                let first = ((bracket.0 * n as f64).floor() as u64).min(n);
                let stride = ((n - first) / 1024).max(1);
                let times = std::iter::once(bracket.1).chain(
                    (first..=n)
                        .step_by(usize::try_from(stride).unwrap_or(usize::MAX))
                        .map(|k| k as f64 / n as f64),
                );
                for t in times {
                    if touching_at(t)? {
                        r.touches = true;
                        break;
                    }
                }
            }
        }
    }
    if r.touches {
        for m in [
            Method::Adaptive,
            Method::AdaptiveEps,
            Method::Refined,
            Method::Advancement,
        ] {
            if r.says_free(m) == Some(true) {
                r.defects.push(format!(
                    "{} answers free on a touching segment",
                    m.label(0.0)
                ));
            }
        }
    }
    let apart = !r.ca.1.may_collide();
    for (m, s, touches) in witnessed {
        if touches || m == Method::Fixed {
            continue;
        }
        let near =
            oracle.distance_at(&q0, &q1, s.clamp(0.0, 1.0))? <= oracle.options().contact_tolerance;
        if near {
            continue;
        }
        let message = format!(
            "{} collides at s = {s}, where nothing touches",
            m.label(0.0)
        );
        if apart {
            r.defects.push(format!(
                "{message} (conservative advancement proves the segment apart)"
            ));
        } else {
            r.warnings.push(message);
        }
    }
    Ok(())
}

/// Distribution of a sample: mean, median, p90, p99, max.
fn tails(mut v: Vec<f64>) -> [f64; 5] {
    if v.is_empty() {
        return [f64::NAN; 5];
    }
    v.sort_by(f64::total_cmp);
    let at = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
    [
        v.iter().sum::<f64>() / v.len() as f64,
        at(0.5),
        at(0.9),
        at(0.99),
        v[v.len() - 1],
    ]
}

/// One row of the tables: a scene, a kind of segment, a method.
#[derive(Clone, Debug)]
pub(crate) struct Row {
    scene: String,
    colliding: bool,
    segments: usize,
    method: String,
    ms: [f64; 5],
    pops: f64,
    bv_tests: f64,
    triangle_tests: f64,
    /// Free answers on touching segments (fixed resolution only; any
    /// other method's is a defect).
    missed: usize,
}

/// The rows of one scene.
fn rows(scene: &str, results: &[SegmentResult], rho: f64) -> Vec<Row> {
    let mut out = Vec::new();
    for colliding in [true, false] {
        let group: Vec<&SegmentResult> = results
            .iter()
            .filter(|r| {
                if colliding {
                    r.touches
                } else {
                    r.adaptive.status == PathStatus::Free
                }
            })
            .collect();
        if group.is_empty() {
            continue;
        }
        for m in Method::ALL {
            let with: Vec<&&SegmentResult> = group.iter().filter(|r| r.ms(m).is_some()).collect();
            if with.is_empty() {
                continue;
            }
            let mean = |f: &dyn Fn(&PathStats) -> u64| {
                let runs: Vec<Run> = with.iter().filter_map(|r| r.run(m)).collect();
                if runs.is_empty() {
                    f64::NAN
                } else {
                    runs.iter().map(|r| f(&r.stats) as f64).sum::<f64>() / runs.len() as f64
                }
            };
            out.push(Row {
                scene: scene.to_owned(),
                colliding,
                segments: with.len(),
                method: m.label(rho),
                ms: tails(with.iter().filter_map(|r| r.ms(m)).collect()),
                pops: mean(&|s| s.queue_pops),
                bv_tests: mean(&|s| s.bv_tests),
                triangle_tests: mean(&|s| s.triangle_tests),
                missed: with
                    .iter()
                    .filter(|r| r.touches && r.says_free(m) == Some(true))
                    .count(),
            });
        }
    }
    out
}

/// The section of one run.
pub(crate) struct SegmentReport {
    /// Markdown.
    pub(crate) markdown: String,
    /// JSON.
    pub(crate) json: Value,
    /// CSV lines, one per segment.
    pub(crate) csv: String,
    /// Defects (each fails the run).
    pub(crate) failures: Vec<String>,
}

/// Runs the segment suite on `scenes` (names of [`super::options::scene_file`]).
///
/// # Errors
/// A scene that does not load, a query or oracle error.
pub(crate) fn run(
    root: &std::path::Path,
    scenes: &[String],
    segments: usize,
    rho: f64,
    seed: u64,
    pool: &rayon::ThreadPool,
) -> Result<SegmentReport> {
    let mut all_rows = Vec::new();
    let mut failures = Vec::new();
    let mut csv = String::from(
        "scene,index,touches,adaptive,adaptive_ms,adaptive_pops,located_ms,eps,eps_ms,refined,refined_ms,fixed,fixed_ms,ca_collides,ca_ms\n",
    );
    let mut counts = Vec::new();
    for (k, name) in scenes.iter().enumerate() {
        let path = root.join(super::options::scene_file(name));
        let scene =
            Scene::from_file(&path).with_context(|| format!("loading {}", path.display()))?;
        let pipeline = Pipeline::builder().build()?;
        let mut rng = Rng::new(seed, 0x5E6 << 32 | k as u64);
        let motions = endpoints(&scene, &pipeline, segments, &mut rng)?;
        let started = Instant::now();
        let mut results = timed(&scene, motions, rho, &format!("{name} segments"))?;
        let timing_s = started.elapsed().as_secs_f64();
        let oracle = Oracle::new(
            &scene,
            OracleOptions::default()
                .with_distance_threshold(Some(pipeline.ccd_options(&scene).distance_threshold))
                .with_mode(Mode::Fast),
        )?;
        let bar = progress(results.len(), &format!("{name} judging"));
        pool.install(|| {
            results.par_iter_mut().try_for_each(|r| -> Result<()> {
                judge(&oracle, &pipeline, &scene, r)
                    .with_context(|| format!("judging segment {} of {name}", r.index))?;
                bar.inc(1);
                Ok(())
            })
        })?;
        bar.finish_and_clear();
        let touching = results.iter().filter(|r| r.touches).count();
        let free = results
            .iter()
            .filter(|r| r.adaptive.status == PathStatus::Free)
            .count();
        let undecided = results.len() - touching - free;
        let warnings: usize = results.iter().map(|r| r.warnings.len()).sum();
        eprintln!(
            "{name}: {} segments, {touching} touching, {free} free, {undecided} neither; timings {timing_s:.1} s; {warnings} unconfirmed colliding answers",
            results.len()
        );
        for r in &results {
            for d in &r.defects {
                let line = format!(
                    "{name} segment {}: {d}; q0 {:?} q1 {:?}",
                    r.index, r.q0, r.q1
                );
                eprintln!("FAIL {line}");
                failures.push(line);
            }
            for w in &r.warnings {
                eprintln!(
                    "WARN {name} segment {}: {w}; q0 {:?} q1 {:?}",
                    r.index, r.q0, r.q1
                );
            }
            let st = |s: PathStatus| match s {
                PathStatus::Free => "free",
                PathStatus::Collides => "collides",
                PathStatus::BudgetExhausted => "budget",
            };
            csv.push_str(&format!(
                "{name},{},{},{},{:.4},{},{},{},{:.4},{},{:.4},{},{:.4},{},{:.4}\n",
                r.index,
                r.touches,
                st(r.adaptive.status),
                r.adaptive.ms,
                r.adaptive.stats.queue_pops,
                r.located
                    .map_or_else(String::new, |l| format!("{:.4}", l.ms)),
                st(r.eps.status),
                r.eps.ms,
                st(r.refined.status),
                r.refined.ms,
                st(r.fixed.status),
                r.fixed.ms,
                r.ca.1.may_collide(),
                r.ca.0,
            ));
        }
        counts.push(json!({
            "scene": name,
            "segments": results.len(),
            "touching": touching,
            "free": free,
            "undecided": undecided,
            "unconfirmed_colliding_answers": warnings,
        }));
        all_rows.extend(rows(name, &results, rho));
    }
    let markdown = markdown(&all_rows, segments, rho, &counts);
    let json = json!({
        "segments_per_scene": segments,
        "rho": rho,
        "eps_row": EPS_ROW,
        "scenes": counts,
        "rows": all_rows.iter().map(|r| json!({
            "scene": r.scene,
            "colliding": r.colliding,
            "segments": r.segments,
            "method": r.method,
            "ms": {"mean": r.ms[0], "median": r.ms[1], "p90": r.ms[2], "p99": r.ms[3], "max": r.ms[4]},
            "pops": r.pops,
            "bv_tests": r.bv_tests,
            "triangle_tests": r.triangle_tests,
            "missed": r.missed,
        })).collect::<Vec<_>>(),
    });
    Ok(SegmentReport {
        markdown,
        json,
        csv,
        failures,
    })
}

fn markdown(rows: &[Row], segments: usize, rho: f64, counts: &[Value]) -> String {
    let mut s = format!(
        "### Random segments (M2 Tables III and VI)\n\n{segments} segments per scene between two random collision-free configurations, half colliding and half free where 50 draws per segment find them; ρ = {rho} (radians, joint-space Euclidean); times in ms on one thread (mean, median, p90, p99, max); pops, BV and triangle pair tests are means per segment. *Colliding*: the oracle confirms a touching configuration; *free*: adaptive bisection (ε = 0) certifies it. `missed`: free answers on colliding segments (only fixed resolution may have any).\n\n"
    );
    s.push_str("| scene | segments | touching | free | neither |\n|---|---:|---:|---:|---:|\n");
    for c in counts {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            c["scene"].as_str().unwrap_or("?"),
            c["segments"],
            c["touching"],
            c["free"],
            c["undecided"]
        ));
    }
    s.push_str("\n| scene | kind | n | method | mean | median | p90 | p99 | max | pops | BV | Tri | missed |\n|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    let num = |x: f64| {
        if x.is_nan() {
            "–".to_owned()
        } else if x >= 100.0 {
            format!("{x:.0}")
        } else {
            format!("{x:.3}")
        }
    };
    for r in rows {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            r.scene,
            if r.colliding { "colliding" } else { "free" },
            r.segments,
            r.method,
            num(r.ms[0]),
            num(r.ms[1]),
            num(r.ms[2]),
            num(r.ms[3]),
            num(r.ms[4]),
            num(r.pops),
            num(r.bv_tests),
            num(r.triangle_tests),
            r.missed
        ));
    }
    s
}
