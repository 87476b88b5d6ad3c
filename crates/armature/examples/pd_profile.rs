//! Times penetration-depth queries on a scene: seeded in-collision
//! configurations, one thread; prints per-query counts and the median.
//!
//! `cargo run --release -p armature --example pd_profile -- SCENE.ron N [SEED]`
//!
//! Every answer is also checked by the facade's discrete test (free, in
//! contact, within the limits); a violation prints `CONTRACT VIOLATION`.
//! `PD_REVERSE=n` and `PD_ITER=n` override the reverse samples and the
//! iteration limit; `PD_NO_REUSE=1` tests every pair at every discrete
//! check ([`armature::PdOptions::reuse_apart_pairs`] off), `PD_PGS=1`
//! solves each step's LCP by projected Gauss–Seidel instead of the
//! active-set method, and
//! `PD_ANSWERS=1` prints each answer's value and configuration bit for bit
//! (to compare two settings or builds), and `PD_SELF=1` keeps only the
//! configurations where the model collides with itself (the suite's
//! *puma2* draws on the Puma scene).

use std::f64::consts::PI;
use std::time::Instant;

use armature::{Other, Pipeline, Scene};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).ok_or("usage: pd_profile SCENE.ron N [SEED]")?;
    let n: usize = args.get(2).map_or(Ok(20), |s| s.parse())?;
    let mut seed: u64 = args.get(3).map_or(Ok(1), |s| s.parse())?;
    let scene = Scene::from_file(path)?;
    let pipeline = Pipeline::default();
    let mut options = pipeline.pd_options(&scene);
    if let Some(n) = std::env::var("PD_REVERSE")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        options.reverse_samples = n;
    }
    if let Some(n) = std::env::var("PD_ITER").ok().and_then(|v| v.parse().ok()) {
        options.max_iterations = n;
    }
    if std::env::var_os("PD_NO_REUSE").is_some() {
        options.reuse_apart_pairs = false;
    }
    if std::env::var_os("PD_PGS").is_some() {
        options.lcp = armature::pd::lcp::LcpSolver::Pgs;
    }
    let answers = std::env::var_os("PD_ANSWERS").is_some();
    let self_only = std::env::var_os("PD_SELF").is_some();
    let mut ws = armature::pd::CheckWorkspace::new();
    let mut solver = armature::pd::PdSolver::new(
        scene.body(),
        scene.obstacles(),
        scene.disabled_pairs(),
        &options,
    )?;
    let limits: Vec<(f64, f64)> = {
        let mut l = vec![(-PI, PI); scene.nq()];
        for j in scene.joints() {
            for k in j.q.clone() {
                l[k] = j.limits.unwrap_or((-PI, PI));
            }
        }
        l
    };
    let mut unit = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut times = Vec::new();
    while times.len() < n {
        let q: Vec<f64> = limits
            .iter()
            .map(|&(lo, hi)| lo + (hi - lo) * unit())
            .collect();
        if !pipeline.collides(&scene, &q)? {
            continue;
        }
        if self_only
            && solver
                .checker()
                .first_overlap(&q, |_, o| matches!(o, Other::Link(_)), &mut ws)?
                .is_none()
        {
            continue;
        }
        solver.clear_coherence();
        let start = Instant::now();
        let r = solver.penetration_depth(&q)?;
        let ms = start.elapsed().as_secs_f64() * 1e3;
        // The contract, by the facade's own discrete test.
        if r.status == armature::PdStatus::Separated {
            let c = &r.configuration;
            let check = pipeline.check(&scene, c)?;
            let tolerance = solver.options().tolerance();
            if check.colliding
                || check.distance > tolerance
                || !scene.body().tree().within_limits(c)
            {
                println!(
                    "CONTRACT VIOLATION: q = {q:?} → {c:?}: colliding {}, distance {} (tolerance {tolerance})",
                    check.colliding, check.distance
                );
            }
        }
        if answers {
            let bits: Vec<u64> = r.configuration.iter().map(|x| x.to_bits()).collect();
            println!("answer {:?} {:x} {bits:x?}", r.status, r.value.to_bits());
        }
        println!(
            "{:8.3} ms  {:?} σ {:.6e} it {} cand {} ccd {} checks {} rows {} pivots {} sweeps {} sel {:.1} proj {:.1} opt {:.1}",
            ms,
            r.status,
            r.value,
            r.iterations,
            r.stats.free_candidates,
            r.stats.ccd_calls,
            r.stats.discrete_checks,
            r.stats.contact_rows,
            r.stats.lcp_pivots,
            r.stats.pgs_iterations,
            r.stats.selection_time.as_secs_f64() * 1e3,
            r.stats.projection_time.as_secs_f64() * 1e3,
            r.stats.optimisation_time.as_secs_f64() * 1e3,
        );
        times.push(ms);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "median {:.3} ms, max {:.3} ms",
        times[times.len() / 2],
        times[times.len() - 1]
    );
    Ok(())
}
