//! `cargo xtask bench`: the oracle-checked random-motion suite on the Puma /
//! pipes and Puma / AMR scenes (docs/architecture.md, "A benchmark query").
//!
//! Per scene and θmax: generate the queries (seeded), run and time each on
//! one thread (the continuous query on a prepared scene, one discrete check
//! at `q0`, fixed-resolution sampling at 1° and 0.1°, the adaptive
//! bisection of M2 on the path `[q0, q1]`), then check every answer with
//! the brute-force oracle on all cores. Reports go to
//! `target/bench-report/` (`report.md`, `queries.csv`, `summary.json`, per
//! scene an SVG plot of the medians against θmax, `SCENE.svg`, and per
//! scene and θmax one of the distribution of query times,
//! `SCENE_θdeg_times.svg`, both drawn with `plotters`); the markdown also
//! goes to stdout. Each scene and θmax also reports the continuous query's
//! tails (p90, p99, max), its answers that ran out of budget and its batch
//! throughput on one thread and on every core. The oracle
//! judges the clearance contract with the pipeline's own threshold δ (at
//! resolution δ_o = δ), in its independent mode unless `--oracle` says
//! otherwise. Any defect (a missed violation, a late time of contact, a
//! false alarm, a wrong start, a far witness) or, with `--oracle both`, a
//! disagreement between the modes makes the run fail, as does an adaptive
//! answer "free" on a motion the oracle finds touching, or "collides" on
//! one it proves above twice every clearance.

mod badcases;
mod monitor;
mod options;
mod pd;
mod planning;
mod plots;
mod primitives;
mod report;
mod run;
mod segments;

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use armature::{Pipeline, Scene};
use serde_json::json;

use options::Suite;
pub(crate) use options::{BenchOptions, USAGE};
use report::Summary;

/// The repository root (xtask lives one level below it).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// Peak resident memory of this process (kB), where the platform says.
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Runs the suite.
///
/// # Errors
/// A scene that does not load, a query or oracle error, a report that
/// cannot be written, or any oracle failure.
pub(crate) fn bench(o: &BenchOptions) -> Result<()> {
    let started = Instant::now();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(o.threads.unwrap_or(0))
        .build()
        .context("oracle thread pool")?;
    let pipeline = Pipeline::builder().build()?;
    let variants = run::variants()?;
    // Which computation decides stage 2 (the adapter's name, or why the
    // CPU reference stands in), from the first scene prepared.
    let mut stage2_backend: Option<String> = None;
    let mut summaries = Vec::new();
    let mut csv = String::new();
    let mut plots_out: Vec<(String, String)> = Vec::new();
    let motion_scenes: &[String] = if o.suites.contains(&Suite::Motions) {
        &o.scenes
    } else {
        &[]
    };
    for (k, name) in motion_scenes.iter().enumerate() {
        let path = root().join(format!("data/scenes/puma_{name}.ron"));
        let load = Instant::now();
        let scene =
            Scene::from_file(&path).with_context(|| format!("loading {}", path.display()))?;
        eprintln!(
            "{name}: {} links ({} triangles), {} obstacles ({} triangles), loaded in {:.1} s",
            scene.num_links(),
            scene.num_link_triangles(),
            scene.obstacles().len(),
            scene.num_obstacle_triangles(),
            load.elapsed().as_secs_f64()
        );
        if stage2_backend.is_none() {
            stage2_backend = variants
                .iter()
                .find(|v| v.name == run::M1_STAGES_1_2_3)
                .map(|v| v.pipeline.prepare(&scene))
                .transpose()?
                .and_then(|p| p.swept_volume_backend().map(str::to_owned));
            if let Some(b) = &stage2_backend {
                eprintln!("stage 2 (swept-volume culling) runs on {b}");
            }
        }
        for (a, &angle) in o.angles_for(name).iter().enumerate() {
            let mut rng = run::Rng::new(o.seed, (k as u64) << 32 | a as u64);
            let label = format!("{name} {angle}°");
            let motions = run::queries(&scene, &pipeline, angle.to_radians(), o.queries, &mut rng)?;
            let mut results = run::timed_runs(
                &scene,
                &pipeline,
                &variants,
                motions,
                &format!("{label} timing"),
            )?;
            let (judged, fast) = pool.install(|| {
                run::check_with_oracle(
                    &scene,
                    &pipeline,
                    &mut results,
                    o.oracle,
                    &format!("{label} oracle"),
                )
            })?;
            eprintln!(
                "{label}: oracle verdicts {:.1} s{} (summed over threads)",
                judged.as_secs_f64(),
                fast.map_or_else(String::new, |f| format!(
                    ", fast-mode cross-check {:.1} s",
                    f.as_secs_f64()
                ))
            );
            let mut s = Summary::new(name, angle, &results, &variants);
            s.throughput = Some(run::batch_throughput(&scene, &results)?);
            plots_out.push((
                format!("{name}_{angle}deg_times.svg"),
                plots::distribution(name, angle, &results)?,
            ));
            eprintln!(
                "{label}: median {:.3} ms, {:.0} % colliding, {} missed, {} late; adaptive bisection median {:.3} ms, {} missed",
                s.ccd[0],
                100.0 * s.colliding,
                s.oracle[0],
                s.oracle[1],
                s.path_median,
                s.path_oracle[0]
            );
            for r in results
                .iter()
                .filter(|r| r.missed() || r.late() || r.false_alarm())
            {
                eprintln!(
                    "FAIL {label} query {}: {:?} toc {} judged {:?} (oracle {:?}); q0 {:?} q1 {:?}",
                    r.index,
                    r.report.status,
                    r.report.toc_lower_bound,
                    r.judgement,
                    r.verdict,
                    r.q0,
                    r.q1
                );
            }
            for r in results
                .iter()
                .filter(|r| r.path_missed() || r.path_false_alarm())
            {
                eprintln!(
                    "{} {label} query {}: adaptive bisection {:?} (collision {:?}) judged {:?} (oracle {:?}); q0 {:?} q1 {:?}",
                    if r.path_judgement == run::PathJudgement::FalseAlarm {
                        "WARN"
                    } else {
                        "FAIL"
                    },
                    r.index,
                    r.path.status,
                    r.path.collision,
                    r.path_judgement,
                    r.verdict,
                    r.q0,
                    r.q1
                );
            }
            for r in results.iter().filter(|r| r.disagreement.is_some()) {
                eprintln!(
                    "FAIL {label} query {}: oracle modes disagree: independent {:?}, fast {:?}; q0 {:?} q1 {:?}",
                    r.index, r.verdict, r.disagreement, r.q0, r.q1
                );
            }
            report::csv(name, angle, &results, &mut csv);
            summaries.push(s);
        }
    }
    let mut sections = Vec::new();
    let mut section_json = serde_json::Map::new();
    let mut section_failures = Vec::new();
    if o.suites.contains(&Suite::Segments) && !o.segment_scenes.is_empty() {
        let r = segments::run(&root(), &o.segment_scenes, o.segments, o.rho, o.seed, &pool)?;
        sections.push(r.markdown);
        section_json.insert("segments".to_owned(), r.json);
        section_failures.extend(r.failures);
        let out = out_dir(o);
        std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
        let p = out.join("segments.csv");
        std::fs::write(&p, r.csv).with_context(|| format!("writing {}", p.display()))?;
    }
    if o.suites.contains(&Suite::BadCases) {
        let r = badcases::run(&root(), o.quick)?;
        sections.push(r.markdown);
        section_json.insert("bad_cases".to_owned(), r.json);
        section_failures.extend(r.failures);
    }
    if o.suites.contains(&Suite::Planning) {
        let r = planning::run(&root(), o.quick, o.full, o.seed)?;
        sections.push(r.markdown);
        section_json.insert("planning".to_owned(), r.json);
        section_failures.extend(r.failures);
    }
    if o.suites.contains(&Suite::Primitives) {
        let r = primitives::run(o.quick, o.full, o.seed);
        sections.push(r.markdown);
        section_json.insert("primitives".to_owned(), r.json);
        section_failures.extend(r.failures);
    }
    if o.suites.contains(&Suite::Pd) {
        let r = pd::run(&root(), o.quick, o.full, o.seed, &o.pd_cases, &pool)?;
        sections.push(r.markdown);
        section_json.insert("pd".to_owned(), r.json);
        section_failures.extend(r.failures);
    }
    if o.suites.contains(&Suite::Monitor) {
        let r = monitor::run(&root(), o.quick, o.full, o.seed)?;
        sections.push(r.markdown);
        section_json.insert("monitor".to_owned(), r.json);
        section_failures.extend(r.failures);
    }
    let peak = peak_rss_kb();
    let header = format!(
        "## Benchmark report\n\n`cargo xtask bench{}{}{}` — seed {}, {} queries per scene and θmax, one thread for timings; oracle mode {}; wall time {:.0} s; peak resident memory {}.",
        if o.quick {
            " --quick"
        } else if o.full {
            " --full"
        } else {
            ""
        },
        if o.suites.len() == Suite::ALL.len() {
            String::new()
        } else {
            format!(
                " --suite {}",
                o.suites
                    .iter()
                    .map(|s| s.name())
                    .collect::<Vec<_>>()
                    .join(",")
            )
        },
        match o.oracle {
            options::OracleChoice::Independent => "",
            options::OracleChoice::Fast => " --oracle fast",
            options::OracleChoice::Both => " --oracle both",
        },
        o.seed,
        o.queries,
        match o.oracle {
            options::OracleChoice::Independent => "independent",
            options::OracleChoice::Fast => "fast",
            options::OracleChoice::Both => "independent, cross-checked by fast",
        },
        started.elapsed().as_secs_f64(),
        peak.map_or_else(
            || "unknown".to_owned(),
            |kb| format!("{:.0} MB", kb as f64 / 1024.0)
        ),
    );
    let header = match &stage2_backend {
        Some(b) => format!("{header} M1's stage 2 (swept-volume culling) ran on {b}."),
        None => header,
    };
    let mut md = if summaries.is_empty() {
        format!("{header}\n")
    } else {
        report::markdown(&summaries, &header)
    };
    for section in &sections {
        md.push('\n');
        md.push_str(section);
    }
    print!("{md}");
    let out = out_dir(o);
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let write = |file: &str, text: &str| {
        let p = out.join(file);
        std::fs::write(&p, text).with_context(|| format!("writing {}", p.display()))
    };
    write("report.md", &md)?;
    write("queries.csv", &csv)?;
    let summary = json!({
        "seed": o.seed,
        "queries_per_angle": o.queries,
        "peak_rss_kb": peak,
        "wall_s": started.elapsed().as_secs_f64(),
        "results": summaries.iter().map(Summary::json).collect::<Vec<_>>(),
        "sections": section_json,
    });
    write("summary.json", &serde_json::to_string_pretty(&summary)?)?;
    for name in motion_scenes {
        let rows: Vec<&Summary> = summaries.iter().filter(|s| &s.scene == name).collect();
        write(&format!("{name}.svg"), &plots::medians(name, &rows)?)?;
    }
    for (file, svg) in &plots_out {
        write(file, svg)?;
    }
    eprintln!("report written to {}", out.display());
    let failures: usize = summaries.iter().map(Summary::failures).sum();
    if failures > 0 {
        bail!(
            "{failures} answers failed the oracle check (missed, late, false alarms or oracle modes disagreeing; adaptive bisection missed or clearly false alarms)"
        );
    }
    if !section_failures.is_empty() {
        bail!(
            "{} failures in the segment, bad-case, planning, primitive, penetration-depth or monitor sections:\n{}",
            section_failures.len(),
            section_failures.join("\n")
        );
    }
    Ok(())
}

/// The report folder, absolute.
fn out_dir(o: &BenchOptions) -> PathBuf {
    if o.out.is_absolute() {
        o.out.clone()
    } else {
        root().join(&o.out)
    }
}
