//! Query generation, the timed runs and the oracle checks.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use armature::oracle::{Judgement, Mode, Oracle, OracleOptions, Verdict};
use armature::{
    CcdReport, ExactStage, PathReport, PathStatus, Pipeline, Scene, SweptVolumeCulling,
};
use indicatif::{ProgressBar, ProgressStyle};

use super::options::OracleChoice;
use rayon::prelude::*;

/// A small seeded generator (SplitMix64): the same queries on every
/// machine for a seed.
#[derive(Clone, Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    /// A generator for `seed`, decorrelated per `stream`.
    pub(crate) fn new(seed: u64, stream: u64) -> Self {
        let mut r = Self(seed ^ stream.wrapping_mul(0xA076_1D64_78BD_642F));
        r.next_u64();
        r
    }

    /// The next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[lo, hi)`.
    pub(crate) fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        let u = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        lo + (hi - lo) * u
    }
}

/// What the oracle said of a query's motion (against the clearance
/// contract: `c_p = min(δ, d_p(0) / 3)` per pair).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum OracleVerdict {
    /// Some pair breaks its clearance; a time at which it does.
    Collides(f64),
    /// Every pair provably stays above twice its clearance.
    Free,
    /// Neither: either answer is accepted.
    Graze,
    /// The oracle ran out of samples (counted, not judged).
    Inconclusive,
}

/// What the oracle says of the adaptive-bisection answer (path clearance
/// `ε = 0`: "collides" means two objects touch). The oracle's verdict is
/// about the clearance contract, not about touching, so touching is
/// decided by the oracle's own test at single times
/// ([`Oracle::colliding_at`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum PathJudgement {
    /// Nothing contradicts the answer where the oracle can tell.
    Consistent,
    /// Free, yet the oracle finds two objects touching at this time.
    Missed(f64),
    /// Free while the oracle proves a clearance violation, but no time of
    /// its grid from the violation on touches: the motion passes within
    /// `δ` of an obstacle, which `ε = 0` rightly answers free.
    NearMiss,
    /// Collides, yet the oracle proves every pair apart over the motion
    /// ([`Verdict::Graze`]: above its clearance, less the tolerance), or
    /// finds the answer's own colliding configuration apart by more than
    /// the contact tolerance.
    FalseAlarm,
    /// Collides, yet the oracle proves every pair above twice its
    /// clearance over the motion ([`Verdict::Free`]).
    ClearFalseAlarm,
}

/// An exact-stage variant timed beside the default pipeline on every query
/// (the suite's ablation rows): which motion bound conservative
/// advancement steps on, and whether pairs are culled on pieces of the
/// motion.
pub(crate) struct Variant {
    /// Its name in the report.
    pub(crate) name: &'static str,
    /// The pipeline with that exact stage.
    pub(crate) pipeline: Pipeline,
}

/// The default pipeline's exact stage, as the ablation table names it.
pub(crate) const DEFAULT_VARIANT: &str = "projected (default)";

/// The ablation variants: the unprojected bound of M4 and temporal
/// culling on pieces, alone and together; then M1's pipeline (the
/// elementary exact stage) in the ablations of M1's Tables 1 and 2:
/// `1+2+3` (stage 2 on the GPU, and on the CPU reference), `1+3`, `2+3`
/// and `3` (stage 1: the dynamic link hierarchy; stage 2: swept-volume
/// culling with CULLIDE).
///
/// # Errors
/// None in practice (the options are valid).
pub(crate) fn variants() -> Result<Vec<Variant>> {
    let mut out: Vec<Variant> = [
        ("unprojected", false, false),
        ("projected, pieces", true, true),
        ("unprojected, pieces", false, true),
    ]
    .into_iter()
    .map(|(name, projected, pieces)| {
        Ok(Variant {
            name,
            pipeline: Pipeline::builder()
                .projected_motion_bound(projected)
                .time_pieces(pieces)
                .build()?,
        })
    })
    .collect::<Result<_>>()?;
    for (name, hierarchy, culling) in [
        (M1_STAGES_1_2_3, true, SweptVolumeCulling::Gpu),
        (M1_STAGES_1_2CPU_3, true, SweptVolumeCulling::Cpu),
        (M1_STAGES_1_3, true, SweptVolumeCulling::Off),
        (M1_STAGES_2_3, false, SweptVolumeCulling::Gpu),
        (M1_STAGE_3, false, SweptVolumeCulling::Off),
    ] {
        out.push(Variant {
            name,
            pipeline: Pipeline::builder()
                .exact_stage(ExactStage::Elementary)
                .hierarchy_culling(hierarchy)
                .swept_volume_culling(culling)
                .build()?,
        });
    }
    Ok(out)
}

/// M1's whole pipeline: stage 2 on the GPU (the CPU reference when no
/// adapter opens; the report says which).
pub(crate) const M1_STAGES_1_2_3: &str = "M1 elementary, stages 1+2+3";
/// M1's whole pipeline with stage 2 decided by the exact CPU reference.
pub(crate) const M1_STAGES_1_2CPU_3: &str = "M1 elementary, stages 1+2 (CPU)+3";
/// M1's pipeline without the dynamic link hierarchy.
pub(crate) const M1_STAGES_2_3: &str = "M1 elementary, stages 2+3";

/// M1's pipeline, stages 1 and 3 (the elementary exact stage after the
/// dynamic link hierarchy).
pub(crate) const M1_STAGES_1_3: &str = "M1 elementary, stages 1+3";
/// M1's pipeline, stage 3 alone.
pub(crate) const M1_STAGE_3: &str = "M1 elementary, stage 3";

/// One variant's answer on one query.
#[derive(Clone, Debug)]
pub(crate) struct VariantResult {
    /// The answer.
    pub(crate) report: CcdReport,
    /// Its wall time (ms, one thread).
    pub(crate) ms: f64,
    /// The oracle's judgement of it (filled by [`check_with_oracle`]).
    pub(crate) judgement: Judgement,
}

impl VariantResult {
    /// Missed a clearance violation, or answered after the oracle's time.
    pub(crate) fn failed(&self) -> bool {
        matches!(
            self.judgement,
            Judgement::Missed { .. } | Judgement::MissedStart { .. } | Judgement::Late { .. }
        )
    }
}

/// One benchmark query and everything measured on it.
#[derive(Clone, Debug)]
pub(crate) struct QueryResult {
    /// Index within its scene and θmax.
    pub(crate) index: usize,
    /// Start configuration.
    pub(crate) q0: Vec<f64>,
    /// End configuration.
    pub(crate) q1: Vec<f64>,
    /// The continuous query's answer.
    pub(crate) report: CcdReport,
    /// Its wall time (ms, one thread).
    pub(crate) ccd_ms: f64,
    /// One discrete check at `q0` (ms).
    pub(crate) discrete_ms: f64,
    /// Sampling at 1° joint resolution: time (ms) and answer.
    pub(crate) sample_1: (f64, bool),
    /// Sampling at 0.1°: time (ms) and answer.
    pub(crate) sample_01: (f64, bool),
    /// The adaptive bisection's answer on the path `[q0, q1]`.
    pub(crate) path: PathReport,
    /// Its wall time (ms, one thread).
    pub(crate) path_ms: f64,
    /// The oracle's judgement of it (filled by [`check_with_oracle`]).
    pub(crate) path_judgement: PathJudgement,
    /// The oracle's verdict (filled by [`check_with_oracle`]).
    pub(crate) verdict: OracleVerdict,
    /// The oracle's judgement of the continuous answer.
    pub(crate) judgement: Judgement,
    /// The ablation variants' answers, in the order of [`variants`].
    pub(crate) variants: Vec<VariantResult>,
    /// With `--oracle both`: the fast mode's verdict, when it is not
    /// compatible with the judging one.
    pub(crate) disagreement: Option<Verdict>,
}

impl QueryResult {
    /// Whether the continuous answer says the motion may collide.
    pub(crate) fn ccd_collides(&self) -> bool {
        self.report.may_collide()
    }

    /// The continuous answer missed a clearance violation the oracle
    /// proved (during the motion or at its start).
    pub(crate) fn missed(&self) -> bool {
        matches!(
            self.judgement,
            Judgement::Missed { .. } | Judgement::MissedStart { .. }
        )
    }

    /// The continuous answer's time is after the oracle's colliding time.
    pub(crate) fn late(&self) -> bool {
        matches!(self.judgement, Judgement::Late { .. })
    }

    /// A collision on a motion the oracle proves above twice every
    /// clearance, a start in contact where none is, or a witness farther
    /// than twice its clearance.
    pub(crate) fn false_alarm(&self) -> bool {
        matches!(
            self.judgement,
            Judgement::FalseAlarm { .. }
                | Judgement::FalseStart { .. }
                | Judgement::FarContact { .. }
        )
    }

    /// The adaptive bisection's verdict.
    pub(crate) fn path_status(&self) -> PathStatus {
        self.path.status
    }

    /// The adaptive answer is free while the oracle finds the motion
    /// touching.
    pub(crate) fn path_missed(&self) -> bool {
        matches!(self.path_judgement, PathJudgement::Missed(_))
    }

    /// The adaptive answer collides while the oracle proves the motion
    /// apart (clearly or not).
    pub(crate) fn path_false_alarm(&self) -> bool {
        matches!(
            self.path_judgement,
            PathJudgement::FalseAlarm | PathJudgement::ClearFalseAlarm
        )
    }

    /// A sampling baseline's answer missed the oracle's collision.
    pub(crate) fn baseline_missed(&self, collides: bool) -> bool {
        matches!(self.verdict, OracleVerdict::Collides(_)) && !collides
    }
}

/// Limits of every configuration value (`[−π, π]` where unlimited).
pub(crate) fn limits(scene: &Scene) -> Vec<(f64, f64)> {
    let mut out = vec![(-std::f64::consts::PI, std::f64::consts::PI); scene.nq()];
    for j in scene.joints() {
        if let (Some(l), 1) = (j.limits, j.q.len()) {
            out[j.q.start] = l;
        }
    }
    out
}

/// The queries of one scene and θmax (docs/architecture.md, "A benchmark query"):
/// `q0` uniform within the limits until collision-free, `q1 = q0 + δq`
/// with each `δq_k` uniform in `[−θmax, θmax]`, clamped to the limits.
///
/// # Errors
/// When no collision-free `q0` turns up in 100,000 draws, or a check fails.
pub(crate) fn queries(
    scene: &Scene,
    pipeline: &Pipeline,
    theta_max: f64,
    n: usize,
    rng: &mut Rng,
) -> Result<Vec<(Vec<f64>, Vec<f64>)>> {
    let lim = limits(scene);
    let mut out = Vec::with_capacity(n);
    let mut draws = 0usize;
    while out.len() < n {
        draws += 1;
        if draws > 100_000 + 1_000 * n {
            bail!("no collision-free start configuration in {draws} draws");
        }
        let q0: Vec<f64> = lim.iter().map(|&(lo, hi)| rng.uniform(lo, hi)).collect();
        if pipeline.collides(scene, &q0)? {
            continue;
        }
        let q1: Vec<f64> = q0
            .iter()
            .zip(&lim)
            .map(|(&q, &(lo, hi))| (q + rng.uniform(-theta_max, theta_max)).clamp(lo, hi))
            .collect();
        out.push((q0, q1));
    }
    Ok(out)
}

/// Batch throughput of the continuous query over the motions of
/// `results` ([`Pipeline::first_contact_batch`], queries per second) on
/// one thread and on every core, with the core count.
pub(crate) fn batch_throughput(
    scene: &Scene,
    results: &[QueryResult],
) -> Result<([f64; 2], usize)> {
    let motions: Vec<(Vec<f64>, Vec<f64>)> = results
        .iter()
        .map(|r| (r.q0.clone(), r.q1.clone()))
        .collect();
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let mut rates = [0.0; 2];
    for (rate, threads) in rates.iter_mut().zip([1, cores]) {
        let pipeline = Pipeline::builder().threads(threads).build()?;
        let start = Instant::now();
        for answer in pipeline.first_contact_batch(scene, &motions)? {
            answer?;
        }
        *rate = motions.len() as f64 / start.elapsed().as_secs_f64();
    }
    Ok((rates, cores))
}

/// Fixed-resolution sampling of the motion
/// ([`Pipeline::sample_segment`]): whether some sample collides.
fn sample(
    scene: &Scene,
    pipeline: &Pipeline,
    q0: &[f64],
    q1: &[f64],
    resolution: f64,
) -> Result<bool> {
    Ok(pipeline
        .sample_segment(scene, q0, q1, resolution)?
        .is_some())
}

fn millis(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

/// A progress bar on stderr (hidden when stderr is not a terminal).
pub(crate) fn progress(len: usize, label: &str) -> ProgressBar {
    let bar = ProgressBar::new(len as u64);
    if let Ok(style) = ProgressStyle::with_template(
        "{prefix:>22} [{bar:30}] {pos}/{len} {elapsed_precise} ETA {eta}",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_prefix(label.to_owned());
    bar
}

/// One method's answer to query `index`, `q0 → q1`, kept by the caller.
type Query<'a> = dyn FnMut(usize, &[f64], &[f64]) -> Result<()> + 'a;

/// Runs and times every query on this thread: the continuous query on a
/// prepared scene, one discrete check at `q0`, the two sampling
/// baselines, and the adaptive bisection (M2) of the joint-space segment
/// `[q0, q1]` with the pipeline's path clearance (0 by default). For the
/// Puma, all of whose joints are revolute, that segment is the motion the
/// continuous query checks.
///
/// Each method answers every query in a pass of its own, as a user's
/// loop calls one method again and again: its caches then hold its own
/// data, not what the method timed before it left there (in turn on each
/// query, every method paid for the one before it).
///
/// # Errors
/// A query error, with the query's index.
pub(crate) fn timed_runs(
    scene: &Scene,
    pipeline: &Pipeline,
    variants: &[Variant],
    motions: Vec<(Vec<f64>, Vec<f64>)>,
    label: &str,
) -> Result<Vec<QueryResult>> {
    let mut prepared = pipeline.prepare(scene)?;
    let mut prepared_variants = variants
        .iter()
        .map(|v| v.pipeline.prepare(scene))
        .collect::<Result<Vec<_>, _>>()?;
    let mut paths = pipeline.prepare_paths(scene)?;
    let n = motions.len();
    let bar = progress((5 + variants.len()) * n, label);
    let one_degree = 1f64.to_radians();
    // One timed pass of `f` over every query.
    let pass = |f: &mut Query<'_>| -> Result<Vec<f64>> {
        let mut ms = Vec::with_capacity(n);
        for (index, (q0, q1)) in motions.iter().enumerate() {
            let start = Instant::now();
            f(index, q0, q1)?;
            ms.push(millis(start));
            bar.inc(1);
        }
        Ok(ms)
    };
    let mut reports = Vec::with_capacity(n);
    let ccd_ms = pass(&mut |index, q0, q1| {
        reports.push(
            prepared
                .first_contact(q0, q1)
                .with_context(|| format!("query {index}"))?,
        );
        Ok(())
    })?;
    let discrete_ms = pass(&mut |_, q0, _| {
        let _ = std::hint::black_box(pipeline.collides(scene, q0)?);
        Ok(())
    })?;
    let mut c1 = Vec::with_capacity(n);
    let s1 = pass(&mut |_, q0, q1| {
        c1.push(sample(scene, pipeline, q0, q1, one_degree)?);
        Ok(())
    })?;
    let mut c01 = Vec::with_capacity(n);
    let s01 = pass(&mut |_, q0, q1| {
        c01.push(sample(scene, pipeline, q0, q1, 0.1 * one_degree)?);
        Ok(())
    })?;
    // Prepared once like the continuous query's scene; an empty cache per
    // query gives `Pipeline::check_path`'s answer, which no earlier query
    // can shorten (the cache is cleared outside the timing).
    let mut path_reports = Vec::with_capacity(n);
    let mut path_ms = Vec::with_capacity(n);
    for (index, (q0, q1)) in motions.iter().enumerate() {
        paths.clear_cache();
        let start = Instant::now();
        path_reports.push(
            paths
                .check_path(&[q0, q1])
                .with_context(|| format!("path check of query {index}"))?,
        );
        path_ms.push(millis(start));
        bar.inc(1);
    }
    let mut variant_results: Vec<Vec<VariantResult>> =
        (0..n).map(|_| Vec::with_capacity(variants.len())).collect();
    for (v, p) in variants.iter().zip(&mut prepared_variants) {
        let mut reports = Vec::with_capacity(n);
        let ms = pass(&mut |index, q0, q1| {
            reports.push(
                p.first_contact(q0, q1)
                    .with_context(|| format!("query {index}, variant {}", v.name))?,
            );
            Ok(())
        })?;
        for ((results, report), ms) in variant_results.iter_mut().zip(reports).zip(ms) {
            results.push(VariantResult {
                report,
                ms,
                judgement: Judgement::Inconclusive,
            });
        }
    }
    bar.finish_and_clear();
    let mut out = Vec::with_capacity(n);
    let columns = reports
        .into_iter()
        .zip(ccd_ms)
        .zip(discrete_ms)
        .zip(s1.into_iter().zip(c1))
        .zip(s01.into_iter().zip(c01))
        .zip(path_reports.into_iter().zip(path_ms))
        .zip(variant_results);
    for (index, ((q0, q1), column)) in motions.into_iter().zip(columns).enumerate() {
        let ((((((report, ccd_ms), discrete_ms), sample_1), sample_01), (path, path_ms)), variants) =
            column;
        out.push(QueryResult {
            index,
            q0,
            q1,
            report,
            ccd_ms,
            discrete_ms,
            sample_1,
            sample_01,
            path,
            path_ms,
            path_judgement: PathJudgement::Consistent,
            verdict: OracleVerdict::Inconclusive,
            judgement: Judgement::Inconclusive,
            variants,
            disagreement: None,
        });
    }
    Ok(out)
}

/// Fills every result's oracle verdict and judgement, in parallel
/// (untimed). The oracle judges the clearance contract with the
/// pipeline's own distance threshold δ, at resolution δ_o = δ (it may be
/// no coarser); with [`OracleChoice::Both`] the independent mode judges
/// and the fast one is compared with it.
///
/// Returns the time spent in the judging mode's verdicts and, with
/// [`OracleChoice::Both`], in the fast mode's, each summed over threads.
///
/// # Errors
/// An oracle error, with the query's index.
pub(crate) fn check_with_oracle(
    scene: &Scene,
    pipeline: &Pipeline,
    results: &mut [QueryResult],
    choice: OracleChoice,
    label: &str,
) -> Result<(Duration, Option<Duration>)> {
    let options = OracleOptions::default()
        .with_distance_threshold(Some(pipeline.ccd_options(scene).distance_threshold));
    let judge_mode = match choice {
        OracleChoice::Fast => Mode::Fast,
        OracleChoice::Independent | OracleChoice::Both => Mode::Independent,
    };
    let oracle = Oracle::new(scene, options.with_mode(judge_mode))?;
    let second = match choice {
        OracleChoice::Both => Some(Oracle::new(scene, options.with_mode(Mode::Fast))?),
        _ => None,
    };
    let bar = progress(results.len(), label);
    let spent = [AtomicU64::new(0), AtomicU64::new(0)];
    let add = |i: usize, since: Instant| {
        let nanos = u64::try_from(since.elapsed().as_nanos()).unwrap_or(u64::MAX);
        spent[i].fetch_add(nanos, Ordering::Relaxed);
    };
    results.par_iter_mut().try_for_each(|r| -> Result<()> {
        let started = Instant::now();
        let (v, stats) = oracle
            .verdict_with_stats(&r.q0, &r.q1)
            .with_context(|| format!("oracle on query {}", r.index))?;
        add(0, started);
        r.judgement = oracle
            .judge_verdict(&r.report, &v, &r.q0, &r.q1)
            .with_context(|| format!("judging query {}", r.index))?;
        for x in &mut r.variants {
            x.judgement = oracle
                .judge_verdict(&x.report, &v, &r.q0, &r.q1)
                .with_context(|| format!("judging a variant on query {}", r.index))?;
        }
        if let Some(fast) = &second {
            let started = Instant::now();
            let (w, fast_stats) = fast
                .verdict_with_stats(&r.q0, &r.q1)
                .with_context(|| format!("fast oracle on query {}", r.index))?;
            add(1, started);
            let step = 1.0 / stats.grid.min(fast_stats.grid).max(1) as f64;
            if !v.compatible(&w, step) {
                r.disagreement = Some(w);
            }
        }
        r.path_judgement = judge_path(&oracle, r, &v, stats.grid)
            .with_context(|| format!("judging the path check of query {}", r.index))?;
        r.verdict = match v {
            Verdict::Collides { bracket, .. } => OracleVerdict::Collides(bracket.1),
            Verdict::Free { .. } => OracleVerdict::Free,
            Verdict::Graze { .. } => OracleVerdict::Graze,
            _ => OracleVerdict::Inconclusive,
        };
        bar.inc(1);
        Ok(())
    })?;
    bar.finish_and_clear();
    let [a, b] = spent.map(|n| Duration::from_nanos(n.into_inner()));
    Ok((a, second.map(|_| b)))
}

/// Probes of the touching search after a clearance violation: every grid
/// time over the first [`FINE_PROBES`] steps, then at most this many more,
/// evenly strided to the end of the motion.
const COARSE_PROBES: u64 = 1024;

/// See [`COARSE_PROBES`].
const FINE_PROBES: u64 = 64;

/// Judges the adaptive-bisection answer of `r` against the oracle's
/// verdict `v` on the same motion, whose grid has `grid` intervals.
///
/// A free answer where the oracle proves a clearance violation is probed
/// for touching ([`Oracle::colliding_at`]) from the violation's bracket
/// on: every grid time over the first steps (a real penetration, which
/// over one step deepens by at most `δ_o`, is met there), then strided to
/// the end; only a touching time found counts as missed. A colliding
/// answer's own configuration is checked for touching, and its distance
/// measured when it does not touch.
fn judge_path(oracle: &Oracle, r: &QueryResult, v: &Verdict, grid: u64) -> Result<PathJudgement> {
    let (q0, q1) = (r.q0.as_slice(), r.q1.as_slice());
    let witness_touches = |strict: bool| -> Result<bool> {
        let Some(c) = r.path.collision else {
            return Ok(true);
        };
        let s = c.s.clamp(0.0, 1.0);
        Ok(oracle.colliding_at(q0, q1, s)?
            || (!strict && oracle.distance_at(q0, q1, s)? <= oracle.options().contact_tolerance))
    };
    Ok(match (r.path.status, v) {
        (PathStatus::Free, Verdict::Collides { bracket, .. }) => {
            let n = grid.max(1);
            // No pair touches before the bracket's free end.
            let first = ((bracket.0 * n as f64).floor() as u64).min(n);
            let fine_end = first.saturating_add(FINE_PROBES).min(n);
            let stride = ((n - fine_end) / COARSE_PROBES).max(1);
            let times = std::iter::once(bracket.1)
                .chain((first..=fine_end).map(|k| k as f64 / n as f64))
                .chain(
                    (fine_end..=n)
                        .step_by(usize::try_from(stride).unwrap_or(usize::MAX))
                        .chain(std::iter::once(n))
                        .map(|k| k as f64 / n as f64),
                );
            let mut judgement = PathJudgement::NearMiss;
            for t in times {
                let t = t.clamp(0.0, 1.0);
                if oracle.colliding_at(q0, q1, t)? {
                    judgement = PathJudgement::Missed(t);
                    break;
                }
            }
            judgement
        }
        (PathStatus::Collides, Verdict::Free { .. }) => PathJudgement::ClearFalseAlarm,
        // Every pair proven above its clearance (less the tolerance): only
        // the oracle's own test finding the witness touching clears it.
        (PathStatus::Collides, Verdict::Graze { .. }) if !witness_touches(true)? => {
            PathJudgement::FalseAlarm
        }
        (PathStatus::Collides, _) if !witness_touches(false)? => PathJudgement::FalseAlarm,
        _ => PathJudgement::Consistent,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The facade's one-arm fixture, whose folding motion drives the
    /// wrist into the base.
    fn single() -> Scene {
        let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../crates/armature/tests/fixtures/single.ron");
        Scene::from_file(&file).expect("the fixture loads")
    }

    /// The measured result of one motion and the judging oracle's verdict.
    fn measured(scene: &Scene, q1: &[f64]) -> (Oracle, QueryResult, Verdict, u64) {
        let pipeline = Pipeline::builder().build().expect("default pipeline");
        let mut results = timed_runs(
            scene,
            &pipeline,
            &[],
            vec![(vec![0.0; 3], q1.to_vec())],
            "test",
        )
        .expect("runs");
        let r = results.pop().expect("one result");
        let options = OracleOptions::default()
            .with_distance_threshold(Some(pipeline.ccd_options(scene).distance_threshold))
            .with_mode(Mode::Independent);
        let oracle = Oracle::new(scene, options).expect("oracle");
        let (v, stats) = oracle.verdict_with_stats(&r.q0, &r.q1).expect("verdict");
        (oracle, r, v, stats.grid)
    }

    #[test]
    fn a_free_answer_on_a_touching_motion_is_missed_and_a_far_witness_is_a_false_alarm() {
        let scene = single();
        let (oracle, mut r, v, grid) = measured(&scene, &[1.6, 2.0, 0.8]);
        assert!(v.collides());
        assert_eq!(r.path.status, PathStatus::Collides);
        assert_eq!(
            judge_path(&oracle, &r, &v, grid).expect("judged"),
            PathJudgement::Consistent
        );
        // A witness configuration that does not touch (the start, apart)
        // makes a colliding answer a false alarm.
        let witness = r.path.collision.expect("a colliding answer has a witness");
        r.path.collision = Some(armature::CollisionAt { s: 0.0, ..witness });
        assert_eq!(
            judge_path(&oracle, &r, &v, grid).expect("judged"),
            PathJudgement::FalseAlarm
        );
        r.path.status = PathStatus::Free;
        r.path.collision = None;
        let j = judge_path(&oracle, &r, &v, grid).expect("judged");
        assert!(matches!(j, PathJudgement::Missed(_)), "{j:?}");
    }

    #[test]
    fn a_colliding_answer_on_a_clearly_free_motion_fails() {
        let scene = single();
        let (oracle, mut r, v, grid) = measured(&scene, &[0.01, 0.0, 0.0]);
        assert!(matches!(v, Verdict::Free { .. }), "{v:?}");
        assert_eq!(r.path.status, PathStatus::Free);
        assert_eq!(
            judge_path(&oracle, &r, &v, grid).expect("judged"),
            PathJudgement::Consistent
        );
        r.path.status = PathStatus::Collides;
        assert_eq!(
            judge_path(&oracle, &r, &v, grid).expect("judged"),
            PathJudgement::ClearFalseAlarm
        );
    }
}
