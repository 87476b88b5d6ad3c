//! Summaries, markdown tables, CSV and JSON of a run (the plots are in
//! `plots`).

use std::fmt::Write as _;

use serde_json::{Value, json};

use armature::{CcdReport, CcdStatus, PathStatus};

use super::run::{DEFAULT_VARIANT, OracleVerdict, PathJudgement, QueryResult, Variant};

/// Median of a list (`NaN` when empty).
pub(crate) fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// The nearest-rank quantile `q ∈ (0, 1]` of a list (`NaN` when empty).
pub(crate) fn quantile(values: &[f64], q: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

/// Median, p90, p99 and maximum of a list (`NaN`s when empty).
fn spread(values: &[f64]) -> [f64; 4] {
    [
        median(values),
        quantile(values, 0.9),
        quantile(values, 0.99),
        quantile(values, 1.0),
    ]
}

fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        f64::NAN
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

/// Everything reported for one scene and θmax.
#[derive(Clone, Debug)]
pub(crate) struct Summary {
    /// Scene name.
    pub(crate) scene: String,
    /// θmax (degrees).
    pub(crate) angle: f64,
    /// Queries.
    pub(crate) n: usize,
    /// Fraction the continuous query reports colliding.
    pub(crate) colliding: f64,
    /// Fraction the oracle finds colliding.
    pub(crate) oracle_colliding: f64,
    /// Median ms of the continuous query: all, COL, NO-COL.
    pub(crate) ccd: [f64; 3],
    /// Mean ms of the continuous query.
    pub(crate) ccd_mean: f64,
    /// Continuous query ms over all queries: median, p90, p99, max.
    pub(crate) ccd_spread: [f64; 4],
    /// p99 ms of the continuous query: COL, NO-COL.
    pub(crate) ccd_p99: [f64; 2],
    /// Continuous answers "may collide" because the iteration budget ran
    /// out.
    pub(crate) budget_exhausted: usize,
    /// Batch throughput of the continuous query (queries per second) on one
    /// thread and on every core, and the core count; `None` when not
    /// measured.
    pub(crate) throughput: Option<([f64; 2], usize)>,
    /// Median ms per stage (spatial, temporal, advance) over all queries.
    pub(crate) stages: [f64; 3],
    /// Mean % of pairs culled spatially, and temporally of the rest.
    pub(crate) culled: [f64; 2],
    /// Mean CA iterations.
    pub(crate) iterations: f64,
    /// Median ms of one discrete check at `q0`.
    pub(crate) discrete: f64,
    /// Sampling at 1°: median ms and misses.
    pub(crate) sample_1: (f64, usize),
    /// Sampling at 1° ms: median, p90, p99, max.
    pub(crate) sample_1_spread: [f64; 4],
    /// Sampling at 0.1°: median ms and misses.
    pub(crate) sample_01: (f64, usize),
    /// Oracle findings: missed, late, false alarms, grazes, inconclusive.
    pub(crate) oracle: [usize; 5],
    /// Queries on which the oracle's two modes disagree (`--oracle both`).
    pub(crate) disagreements: usize,
    /// Median ms of the adaptive bisection over all queries.
    pub(crate) path_median: f64,
    /// Adaptive bisection ms on the queries it answers free: median, p90,
    /// p99, max.
    pub(crate) path_free: [f64; 4],
    /// The same on the queries it answers colliding.
    pub(crate) path_col: [f64; 4],
    /// Median ms of sampling at 1° on the queries the adaptive bisection
    /// answers free (where sampling visits every sample).
    pub(crate) path_free_sample_1: f64,
    /// Adaptive answers: free, collides, budget exhausted.
    pub(crate) path_status: [usize; 3],
    /// Oracle findings on the adaptive answers: missed, near misses,
    /// false alarms (all), clear false alarms (of those).
    pub(crate) path_oracle: [usize; 4],
    /// The exact-stage ablation rows, the default pipeline first.
    pub(crate) variants: Vec<VariantSummary>,
}

/// One exact-stage variant on one scene and θmax.
#[derive(Clone, Debug)]
pub(crate) struct VariantSummary {
    /// Its name.
    pub(crate) name: String,
    /// ms: median, p90, p99, max.
    pub(crate) ms: [f64; 4],
    /// Mean CA iterations.
    pub(crate) iterations: f64,
    /// Mean pairs after spatial culling.
    pub(crate) pairs: f64,
    /// Answers out of iterations.
    pub(crate) budget_exhausted: usize,
    /// Missed clearance violations and late times (the oracle's).
    pub(crate) failed: usize,
    /// Mean ms per stage, as M1's tables: `[stage 1, stage 2, exact
    /// stage, total]`, each `[COL, NO-COL]` (stage 1: the dynamic link
    /// hierarchy and the start state; stage 2: swept-volume culling;
    /// exact stage: everything after).
    pub(crate) stages: [[f64; 2]; 4],
}

impl VariantSummary {
    fn new<'r>(name: &str, runs: impl Iterator<Item = (&'r CcdReport, f64, bool)>) -> Self {
        let runs: Vec<_> = runs.collect();
        let ms: Vec<f64> = runs.iter().map(|r| r.1).collect();
        Self {
            name: name.to_owned(),
            ms: spread(&ms),
            iterations: mean(
                &runs
                    .iter()
                    .map(|r| r.0.stats.ca_iterations as f64)
                    .collect::<Vec<_>>(),
            ),
            pairs: mean(
                &runs
                    .iter()
                    .map(|r| r.0.stats.pairs_after_spatial as f64)
                    .collect::<Vec<_>>(),
            ),
            budget_exhausted: runs
                .iter()
                .filter(|r| r.0.status == CcdStatus::BudgetExhausted)
                .count(),
            failed: runs.iter().filter(|r| r.2).count(),
            stages: {
                let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
                let part = |col: bool, f: &dyn Fn(&CcdReport, f64) -> f64| {
                    mean(
                        &runs
                            .iter()
                            .filter(|r| r.0.may_collide() == col)
                            .map(|r| f(r.0, r.1))
                            .collect::<Vec<_>>(),
                    )
                };
                let stage1 = |r: &CcdReport, _: f64| ms(r.stats.spatial_time);
                let stage2 = |r: &CcdReport, _: f64| ms(r.stats.culling_time);
                let exact =
                    |r: &CcdReport, _: f64| ms(r.stats.temporal_time) + ms(r.stats.advance_time);
                let total = |_: &CcdReport, t: f64| t;
                [
                    [part(true, &stage1), part(false, &stage1)],
                    [part(true, &stage2), part(false, &stage2)],
                    [part(true, &exact), part(false, &exact)],
                    [part(true, &total), part(false, &total)],
                ]
            },
        }
    }

    fn json(&self) -> Value {
        json!({
            "name": self.name,
            "ms": spread_json(self.ms),
            "ca_iterations_mean": self.iterations,
            "pairs_after_spatial_mean": self.pairs,
            "budget_exhausted": self.budget_exhausted,
            "missed_or_late": self.failed,
            "stage_ms_mean": {
                "stage_1": { "col": self.stages[0][0], "no_col": self.stages[0][1] },
                "stage_2": { "col": self.stages[1][0], "no_col": self.stages[1][1] },
                "exact": { "col": self.stages[2][0], "no_col": self.stages[2][1] },
                "total": { "col": self.stages[3][0], "no_col": self.stages[3][1] },
            },
        })
    }
}

impl Summary {
    /// Summarises one scene and θmax.
    pub(crate) fn new(
        scene: &str,
        angle: f64,
        results: &[QueryResult],
        variants: &[Variant],
    ) -> Self {
        let n = results.len();
        let mut variant_rows = vec![VariantSummary::new(
            DEFAULT_VARIANT,
            results
                .iter()
                .map(|r| (&r.report, r.ccd_ms, r.missed() || r.late())),
        )];
        variant_rows.extend(variants.iter().enumerate().map(|(i, v)| {
            VariantSummary::new(
                v.name,
                results
                    .iter()
                    .filter_map(|r| r.variants.get(i))
                    .map(|x| (&x.report, x.ms, x.failed())),
            )
        }));
        let frac = |k: usize| if n == 0 { 0.0 } else { k as f64 / n as f64 };
        let col: Vec<f64> = results
            .iter()
            .filter(|r| r.ccd_collides())
            .map(|r| r.ccd_ms)
            .collect();
        let free: Vec<f64> = results
            .iter()
            .filter(|r| !r.ccd_collides())
            .map(|r| r.ccd_ms)
            .collect();
        let all: Vec<f64> = results.iter().map(|r| r.ccd_ms).collect();
        let stage =
            |f: &dyn Fn(&QueryResult) -> f64| median(&results.iter().map(f).collect::<Vec<_>>());
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        let pct = |a: usize, b: usize| {
            if b == 0 {
                0.0
            } else {
                100.0 * (1.0 - a as f64 / b as f64)
            }
        };
        let count = |f: &dyn Fn(&QueryResult) -> bool| results.iter().filter(|r| f(r)).count();
        let path_ms = |status: PathStatus, f: &dyn Fn(&QueryResult) -> f64| {
            results
                .iter()
                .filter(|r| r.path_status() == status)
                .map(f)
                .collect::<Vec<_>>()
        };
        Self {
            scene: scene.to_owned(),
            angle,
            n,
            colliding: frac(col.len()),
            oracle_colliding: frac(count(&|r| matches!(r.verdict, OracleVerdict::Collides(_)))),
            ccd: [median(&all), median(&col), median(&free)],
            ccd_mean: mean(&all),
            ccd_spread: spread(&all),
            ccd_p99: [quantile(&col, 0.99), quantile(&free, 0.99)],
            budget_exhausted: count(&|r| r.report.status == CcdStatus::BudgetExhausted),
            throughput: None,
            stages: [
                stage(&|r| ms(r.report.stats.spatial_time)),
                stage(&|r| ms(r.report.stats.temporal_time)),
                stage(&|r| ms(r.report.stats.advance_time)),
            ],
            culled: [
                mean(
                    &results
                        .iter()
                        .map(|r| {
                            pct(
                                r.report.stats.pairs_after_spatial,
                                r.report.stats.pairs_total,
                            )
                        })
                        .collect::<Vec<_>>(),
                ),
                mean(
                    &results
                        .iter()
                        .map(|r| {
                            pct(
                                r.report.stats.pairs_after_temporal,
                                r.report.stats.pairs_after_spatial,
                            )
                        })
                        .collect::<Vec<_>>(),
                ),
            ],
            iterations: mean(
                &results
                    .iter()
                    .map(|r| r.report.stats.ca_iterations as f64)
                    .collect::<Vec<_>>(),
            ),
            discrete: median(&results.iter().map(|r| r.discrete_ms).collect::<Vec<_>>()),
            sample_1: (
                median(&results.iter().map(|r| r.sample_1.0).collect::<Vec<_>>()),
                count(&|r| r.baseline_missed(r.sample_1.1)),
            ),
            sample_1_spread: spread(&results.iter().map(|r| r.sample_1.0).collect::<Vec<_>>()),
            sample_01: (
                median(&results.iter().map(|r| r.sample_01.0).collect::<Vec<_>>()),
                count(&|r| r.baseline_missed(r.sample_01.1)),
            ),
            oracle: [
                count(&QueryResult::missed),
                count(&QueryResult::late),
                count(&QueryResult::false_alarm),
                count(&|r| r.verdict == OracleVerdict::Graze),
                count(&|r| r.verdict == OracleVerdict::Inconclusive),
            ],
            disagreements: count(&|r| r.disagreement.is_some()),
            path_median: median(&results.iter().map(|r| r.path_ms).collect::<Vec<_>>()),
            path_free: spread(&path_ms(PathStatus::Free, &|r| r.path_ms)),
            path_col: spread(&path_ms(PathStatus::Collides, &|r| r.path_ms)),
            path_free_sample_1: median(&path_ms(PathStatus::Free, &|r| r.sample_1.0)),
            path_status: [
                count(&|r| r.path_status() == PathStatus::Free),
                count(&|r| r.path_status() == PathStatus::Collides),
                count(&|r| r.path_status() == PathStatus::BudgetExhausted),
            ],
            path_oracle: [
                count(&QueryResult::path_missed),
                count(&|r| r.path_judgement == PathJudgement::NearMiss),
                count(&QueryResult::path_false_alarm),
                count(&|r| r.path_judgement == PathJudgement::ClearFalseAlarm),
            ],
            variants: variant_rows,
        }
    }

    /// The ratio of the adaptive bisection's median to sampling at 1° on
    /// the queries the adaptive bisection answers free.
    pub(crate) fn path_free_ratio(&self) -> f64 {
        self.path_free[0] / self.path_free_sample_1
    }

    /// Misses, late times, false alarms and disagreements between the
    /// oracle's modes, and the adaptive bisection's misses and clear false
    /// alarms: what makes the suite fail.
    pub(crate) fn failures(&self) -> usize {
        self.oracle[0]
            + self.oracle[1]
            + self.oracle[2]
            + self.disagreements
            + self.path_oracle[0]
            + self.path_oracle[3]
            + self
                .variants
                .iter()
                .skip(1)
                .map(|v| v.failed)
                .sum::<usize>()
    }

    /// As JSON.
    pub(crate) fn json(&self) -> Value {
        json!({
            "scene": self.scene,
            "theta_max_deg": self.angle,
            "queries": self.n,
            "colliding_fraction": self.colliding,
            "oracle_colliding_fraction": self.oracle_colliding,
            "ccd_median_ms": self.ccd[0],
            "ccd_median_ms_col": nan_null(self.ccd[1]),
            "ccd_median_ms_nocol": nan_null(self.ccd[2]),
            "ccd_mean_ms": self.ccd_mean,
            "ccd_ms": spread_json(self.ccd_spread),
            "ccd_p99_ms_col": nan_null(self.ccd_p99[0]),
            "ccd_p99_ms_nocol": nan_null(self.ccd_p99[1]),
            "ccd_p99_over_median": nan_null(self.ccd_spread[2] / self.ccd_spread[0]),
            "budget_exhausted": self.budget_exhausted,
            "budget_exhausted_fraction": if self.n == 0 { 0.0 } else { self.budget_exhausted as f64 / self.n as f64 },
            "batch_queries_per_s": self.throughput.map(|([one, all], cores)| json!({"one_thread": one, "all_cores": all, "cores": cores})),
            "stage_median_ms": {"spatial": self.stages[0], "temporal": self.stages[1], "advance": self.stages[2]},
            "pairs_culled_pct": {"spatial": self.culled[0], "temporal": self.culled[1]},
            "ca_iterations_mean": self.iterations,
            "discrete_check_median_ms": self.discrete,
            "sampling_1deg": {"median_ms": self.sample_1.0, "missed": self.sample_1.1, "ms": spread_json(self.sample_1_spread)},
            "sampling_0_1deg": {"median_ms": self.sample_01.0, "missed": self.sample_01.1},
            "ratio_ccd_to_discrete": self.ccd[0] / self.discrete,
            "ratio_ccd_to_sampling_1deg": self.ccd[0] / self.sample_1.0,
            "oracle": {
                "missed": self.oracle[0], "late": self.oracle[1], "false_alarms": self.oracle[2],
                "grazes": self.oracle[3], "inconclusive": self.oracle[4],
                "mode_disagreements": self.disagreements,
            },
            "exact_stage_variants": self.variants.iter().map(VariantSummary::json).collect::<Vec<_>>(),
            "adaptive_bisection": {
                "median_ms": self.path_median,
                "free": {"queries": self.path_status[0], "ms": spread_json(self.path_free)},
                "collides": {"queries": self.path_status[1], "ms": spread_json(self.path_col)},
                "budget_exhausted": self.path_status[2],
                "sampling_1deg_median_ms_free": nan_null(self.path_free_sample_1),
                "ratio_to_sampling_1deg_free": nan_null(self.path_free_ratio()),
                "oracle": {
                    "missed": self.path_oracle[0], "near_misses": self.path_oracle[1],
                    "false_alarms": self.path_oracle[2], "clear_false_alarms": self.path_oracle[3],
                },
            },
        })
    }
}

fn spread_json(x: [f64; 4]) -> Value {
    json!({"median": nan_null(x[0]), "p90": nan_null(x[1]), "p99": nan_null(x[2]), "max": nan_null(x[3])})
}

fn nan_null(x: f64) -> Value {
    if x.is_finite() { json!(x) } else { Value::Null }
}

fn fmt_ms(x: f64) -> String {
    if !x.is_finite() {
        "–".to_owned()
    } else if x < 0.1 {
        format!("{x:.4}")
    } else if x < 10.0 {
        format!("{x:.3}")
    } else {
        format!("{x:.1}")
    }
}

/// The markdown report: per scene, the timing table (M1 Tables 1–2 shape),
/// the baselines and ratios, and the oracle's findings.
pub(crate) fn markdown(summaries: &[Summary], header: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{header}");
    let mut scenes: Vec<&str> = summaries.iter().map(|x| x.scene.as_str()).collect();
    scenes.dedup();
    for scene in scenes {
        let rows: Vec<&Summary> = summaries.iter().filter(|x| x.scene == scene).collect();
        let _ = writeln!(s, "\n### Puma / {scene}\n");
        let _ = writeln!(
            s,
            "| θmax | queries | colliding | CCD median ms (all) | COL | NO-COL | spatial ms | temporal ms | advance ms | pairs culled spatially | temporally | CA iterations |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|---|");
        for r in &rows {
            let _ = writeln!(
                s,
                "| {}° | {} | {:.0} % | {} | {} | {} | {} | {} | {} | {:.1} % | {:.1} % | {:.1} |",
                r.angle,
                r.n,
                100.0 * r.colliding,
                fmt_ms(r.ccd[0]),
                fmt_ms(r.ccd[1]),
                fmt_ms(r.ccd[2]),
                fmt_ms(r.stages[0]),
                fmt_ms(r.stages[1]),
                fmt_ms(r.stages[2]),
                r.culled[0],
                r.culled[1],
                r.iterations,
            );
        }
        let _ = writeln!(s, "\nBaselines (same queries, one thread, median ms):\n");
        let _ = writeln!(
            s,
            "| θmax | one discrete check | CCD / check | sampling 1° | missed | CCD / sampling 1° | sampling 0.1° | missed |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|---|---|");
        for r in &rows {
            let _ = writeln!(
                s,
                "| {}° | {} | {:.1}× | {} | {} | {:.2}× | {} | {} |",
                r.angle,
                fmt_ms(r.discrete),
                r.ccd[0] / r.discrete,
                fmt_ms(r.sample_1.0),
                r.sample_1.1,
                r.ccd[0] / r.sample_1.0,
                fmt_ms(r.sample_01.0),
                r.sample_01.1,
            );
        }
        let _ = writeln!(
            s,
            "\nTails of the continuous query (same queries, one thread, ms; budget: answers that ran out of iterations, \"may collide\"; throughput: `first_contact_batch` over the same queries):\n"
        );
        let _ = writeln!(
            s,
            "| θmax | median | p90 | p99 | max | p99 / median | COL p99 | NO-COL p99 | budget exhausted | sampling 1° p99 | max | queries/s, 1 thread | all cores |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        for r in &rows {
            let (one, all) = r.throughput.map_or_else(
                || ("–".to_owned(), "–".to_owned()),
                |([one, all], cores)| (format!("{one:.0}"), format!("{all:.0} ({cores})")),
            );
            let _ = writeln!(
                s,
                "| {}° | {} | {} | {} | {} | {:.1}× | {} | {} | {} ({:.2} %) | {} | {} | {one} | {all} |",
                r.angle,
                fmt_ms(r.ccd_spread[0]),
                fmt_ms(r.ccd_spread[1]),
                fmt_ms(r.ccd_spread[2]),
                fmt_ms(r.ccd_spread[3]),
                r.ccd_spread[2] / r.ccd_spread[0],
                fmt_ms(r.ccd_p99[0]),
                fmt_ms(r.ccd_p99[1]),
                r.budget_exhausted,
                if r.n == 0 {
                    0.0
                } else {
                    100.0 * r.budget_exhausted as f64 / r.n as f64
                },
                fmt_ms(r.sample_1_spread[2]),
                fmt_ms(r.sample_1_spread[3]),
            );
        }
        let _ = writeln!(
            s,
            "\nAdaptive bisection (M2, path clearance 0; same queries, one thread, ms; split by its own answer):\n"
        );
        let _ = writeln!(
            s,
            "| θmax | free / collides / budget | NO-COL median | p90 | p99 | max | COL median | p90 | p99 | max | sampling 1° NO-COL | adaptive / sampling 1° (NO-COL) | missed | near misses | false alarms |"
        );
        let _ = writeln!(
            s,
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
        );
        for r in &rows {
            let _ = writeln!(
                s,
                "| {}° | {} / {} / {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.2}× | {} | {} | {} |",
                r.angle,
                r.path_status[0],
                r.path_status[1],
                r.path_status[2],
                fmt_ms(r.path_free[0]),
                fmt_ms(r.path_free[1]),
                fmt_ms(r.path_free[2]),
                fmt_ms(r.path_free[3]),
                fmt_ms(r.path_col[0]),
                fmt_ms(r.path_col[1]),
                fmt_ms(r.path_col[2]),
                fmt_ms(r.path_col[3]),
                fmt_ms(r.path_free_sample_1),
                r.path_free_ratio(),
                r.path_oracle[0],
                r.path_oracle[1],
                r.path_oracle[2],
            );
        }
        let _ = writeln!(
            s,
            "\nExact-stage ablations (same queries, one thread, ms; projected: C2A steps on bounds projected per pair of convex volumes; pieces: temporal culling on pieces of the motion; failed: missed or late by the oracle):\n"
        );
        let _ = writeln!(
            s,
            "| θmax | variant | median | p90 | p99 | max | / default median | CA iterations | pairs after spatial culling | budget exhausted | failed |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|");
        for r in &rows {
            let base = r.variants.first().map_or(f64::NAN, |v| v.ms[0]);
            for v in &r.variants {
                let _ = writeln!(
                    s,
                    "| {}° | {} | {} | {} | {} | {} | {:.2}× | {:.1} | {:.1} | {} | {} |",
                    r.angle,
                    v.name,
                    fmt_ms(v.ms[0]),
                    fmt_ms(v.ms[1]),
                    fmt_ms(v.ms[2]),
                    fmt_ms(v.ms[3]),
                    v.ms[0] / base,
                    v.iterations,
                    v.pairs,
                    v.budget_exhausted,
                    v.failed,
                );
            }
        }
        let _ = writeln!(
            s,
            "\nM1's pipeline beside conservative advancement, mean ms per stage as M1's Tables 1 and 2 (COL: the answer collides or may; stage 1: dynamic link hierarchy and start state; stage 2: swept-volume culling with CULLIDE; exact: OBB-tree traversal and elementary solver, or the advancement; every answer judged by the oracle above):\n"
        );
        let _ = writeln!(
            s,
            "| θmax | pipeline | stage 1 COL | stage 1 NO-COL | stage 2 COL | stage 2 NO-COL | exact COL | exact NO-COL | total COL | total NO-COL |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|");
        for r in &rows {
            for v in r
                .variants
                .iter()
                .filter(|v| v.name == DEFAULT_VARIANT || v.name.starts_with("M1"))
            {
                let _ = writeln!(
                    s,
                    "| {}° | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                    r.angle,
                    v.name,
                    fmt_ms(v.stages[0][0]),
                    fmt_ms(v.stages[0][1]),
                    fmt_ms(v.stages[1][0]),
                    fmt_ms(v.stages[1][1]),
                    fmt_ms(v.stages[2][0]),
                    fmt_ms(v.stages[2][1]),
                    fmt_ms(v.stages[3][0]),
                    fmt_ms(v.stages[3][1]),
                );
            }
        }
        let _ = writeln!(s, "\nOracle checks:\n");
        let _ = writeln!(
            s,
            "| θmax | oracle colliding | missed | late TOC | false alarms | grazes | inconclusive | mode disagreements |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|---|---|");
        for r in &rows {
            let _ = writeln!(
                s,
                "| {}° | {:.0} % | {} | {} | {} | {} | {} | {} |",
                r.angle,
                100.0 * r.oracle_colliding,
                r.oracle[0],
                r.oracle[1],
                r.oracle[2],
                r.oracle[3],
                r.oracle[4],
                r.disagreements,
            );
        }
    }
    s
}

/// One CSV row per query.
pub(crate) fn csv(scene: &str, angle: f64, results: &[QueryResult], out: &mut String) {
    if out.is_empty() {
        out.push_str(
            "scene,theta_max_deg,index,status,toc,ccd_ms,spatial_ms,temporal_ms,advance_ms,pairs_total,pairs_after_spatial,pairs_after_temporal,ca_iterations,distance_calls,discrete_ms,sampling_1deg_ms,sampling_1deg_collides,sampling_0_1deg_ms,sampling_0_1deg_collides,adaptive_ms,adaptive_status,adaptive_collision_s,adaptive_queue_pops,oracle,oracle_toc,adaptive_judgement,q0,q1\n",
        );
    }
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    for r in results {
        let s = &r.report.stats;
        let (verdict, t) = match r.verdict {
            OracleVerdict::Collides(t) => ("collides", format!("{t}")),
            OracleVerdict::Free => ("free", String::new()),
            OracleVerdict::Graze => ("graze", String::new()),
            OracleVerdict::Inconclusive => ("inconclusive", String::new()),
        };
        let path_judgement = match r.path_judgement {
            PathJudgement::Consistent => "consistent".to_owned(),
            PathJudgement::Missed(t) => format!("missed at {t}"),
            PathJudgement::NearMiss => "near miss".to_owned(),
            PathJudgement::FalseAlarm => "false alarm".to_owned(),
            PathJudgement::ClearFalseAlarm => "clear false alarm".to_owned(),
        };
        let q = |v: &[f64]| {
            v.iter()
                .map(|x| format!("{x:.6}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let _ = writeln!(
            out,
            "{scene},{angle},{},{:?},{},{:.5},{:.5},{:.5},{:.5},{},{},{},{},{},{:.5},{:.5},{},{:.5},{},{:.5},{:?},{},{},{verdict},{t},{path_judgement},{},{}",
            r.index,
            r.report.status,
            r.report.toc_lower_bound,
            r.ccd_ms,
            ms(s.spatial_time),
            ms(s.temporal_time),
            ms(s.advance_time),
            s.pairs_total,
            s.pairs_after_spatial,
            s.pairs_after_temporal,
            s.ca_iterations,
            s.distance_calls,
            r.discrete_ms,
            r.sample_1.0,
            r.sample_1.1,
            r.sample_01.0,
            r.sample_01.1,
            r.path_ms,
            r.path.status,
            r.path
                .collision
                .map_or_else(String::new, |c| format!("{}", c.s)),
            r.path.stats.queue_pops,
            q(&r.q0),
            q(&r.q1),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn quantiles_are_nearest_rank() {
        let v: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        assert_eq!(quantile(&v, 0.9), 90.0);
        assert_eq!(quantile(&v, 0.99), 99.0);
        assert_eq!(quantile(&v, 1.0), 100.0);
        assert_eq!(quantile(&[7.0], 0.5), 7.0);
        assert_eq!(spread(&[2.0, 1.0, 3.0]), [2.0, 3.0, 3.0, 3.0]);
        assert!(quantile(&[], 0.9).is_nan());
    }
}
