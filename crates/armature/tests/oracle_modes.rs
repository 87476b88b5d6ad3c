//! The oracle's two modes against each other on benchmark-like queries of
//! the committed Puma scenes (`data/scenes/`): `q0` uniform within the
//! joint limits and collision-free, `q1 = q0 + δq` with each `δq_k`
//! uniform in `[−θmax, θmax]`, clamped. [`Mode::Fast`] (motion-bound
//! tables and hierarchy queries) and [`Mode::Independent`] (kinematic
//! speed bounds and every triangle pair with exact predicates) share no
//! geometry code, so compatible verdicts on every query check both.
//!
//! The default test runs a few dozen queries; the larger variant is
//! ignored by default:
//!
//! ```text
//! cargo test --release -p armature --test oracle_modes -- --ignored
//! ```

use std::f64::consts::PI;
use std::time::{Duration, Instant};

use armature::oracle::{Mode, Oracle, OracleOptions, Verdict};
use armature::{Pipeline, Scene};

fn scene(name: &str) -> Scene {
    let path = format!(
        "{}/../../data/scenes/puma_{name}.ron",
        env!("CARGO_MANIFEST_DIR")
    );
    Scene::from_file(&path).expect("committed scene loads")
}

/// A tiny xorshift generator: fixed seeds, the same queries everywhere.
struct Rng(u64);

impl Rng {
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        lo + (hi - lo) * ((self.0 >> 11) as f64 / (1u64 << 53) as f64)
    }
}

/// `n` benchmark queries of `scene` with joint steps up to `theta_max`.
fn queries(scene: &Scene, n: usize, theta_max: f64, seed: u64) -> Vec<(Vec<f64>, Vec<f64>)> {
    let mut limits = vec![(-PI, PI); scene.nq()];
    for j in scene.joints() {
        if let (Some(l), 1) = (j.limits, j.q.len()) {
            limits[j.q.start] = l;
        }
    }
    let pipeline = Pipeline::builder().build().expect("pipeline builds");
    let mut rng = Rng(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let q0: Vec<f64> = limits.iter().map(|&(lo, hi)| rng.uniform(lo, hi)).collect();
        if pipeline.collides(scene, &q0).expect("check runs") {
            continue;
        }
        let q1 = q0
            .iter()
            .zip(&limits)
            .map(|(&q, &(lo, hi))| (q + rng.uniform(-theta_max, theta_max)).clamp(lo, hi))
            .collect();
        out.push((q0, q1));
    }
    out
}

/// Both modes on every query: compatible verdicts (a violation proven by
/// one is never disproven by the other, violations within a grid step);
/// returns the time each mode took and the verdict counts.
fn cross_check(name: &str, n: usize, theta_deg: f64, seed: u64) -> (Duration, Duration) {
    let scene = scene(name);
    let fast = Oracle::new(&scene, OracleOptions::default()).expect("oracle builds");
    let independent = Oracle::new(
        &scene,
        OracleOptions::default().with_mode(Mode::Independent),
    )
    .expect("oracle builds");
    let (mut t_fast, mut t_independent) = (Duration::ZERO, Duration::ZERO);
    let mut kinds = std::collections::BTreeMap::<&str, usize>::new();
    for (i, (q0, q1)) in queries(&scene, n, theta_deg.to_radians(), seed)
        .iter()
        .enumerate()
    {
        let started = Instant::now();
        let (a, sa) = fast.verdict_with_stats(q0, q1).expect("oracle runs");
        t_fast += started.elapsed();
        let started = Instant::now();
        let (b, sb) = independent.verdict_with_stats(q0, q1).expect("oracle runs");
        t_independent += started.elapsed();
        let step = 1.0 / sa.grid.min(sb.grid).max(1) as f64;
        assert!(
            a.compatible(&b, step),
            "{name} query {i}: {q0:?} → {q1:?}: fast {a:?} vs independent {b:?}"
        );
        *kinds.entry(b.name()).or_default() += 1;
        if matches!(a, Verdict::Inconclusive { .. }) || matches!(b, Verdict::Inconclusive { .. }) {
            *kinds.entry("inconclusive (either)").or_default() += 1;
        }
    }
    println!(
        "{name} θmax {theta_deg}°: {n} queries, fast {:.2} s, independent {:.2} s, {kinds:?}",
        t_fast.as_secs_f64(),
        t_independent.as_secs_f64()
    );
    assert!(
        kinds.get("collides").copied().unwrap_or(0) > 0,
        "{name}: no colliding query to compare: {kinds:?}"
    );
    (t_fast, t_independent)
}

#[test]
fn fast_and_independent_modes_agree_on_puma_queries() {
    cross_check("pipes", 16, 30.0, 0x5eed_0001);
    cross_check("amr", 8, 30.0, 0x5eed_0002);
}

#[test]
#[ignore = "minutes in debug; run with --release -- --ignored"]
fn fast_and_independent_modes_agree_on_many_puma_queries() {
    for (name, theta) in [
        ("pipes", 5.0),
        ("pipes", 30.0),
        ("amr", 30.0),
        ("amr", 60.0),
    ] {
        cross_check(name, 120, theta, 0x5eed_0100);
    }
}
