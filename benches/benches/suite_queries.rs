//! Fixed benchmark queries on the Puma / pipes and Puma / AMR scenes of
//! `data/scenes/` for regression tracking: the same kind of query as
//! `cargo xtask bench` (q0 uniform in the joint limits and collision-free,
//! each joint moved by up to θmax), a fixed seed, 16 queries per scene and
//! θmax, timed as one batch on one thread on a prepared scene.

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use armature::{Pipeline, Scene};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

/// SplitMix64, uniform in `[lo, hi)`.
struct Rng(u64);

impl Rng {
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        lo + (hi - lo) * ((z >> 11) as f64 / (1u64 << 53) as f64)
    }
}

/// `n` queries with joint steps up to `theta` radians.
fn queries(scene: &Scene, pipeline: &Pipeline, theta: f64, n: usize) -> Vec<(Vec<f64>, Vec<f64>)> {
    let limits: Vec<(f64, f64)> = scene
        .joints()
        .iter()
        .map(|j| {
            j.limits
                .unwrap_or((-std::f64::consts::PI, std::f64::consts::PI))
        })
        .collect();
    let mut rng = Rng(7);
    let mut out = Vec::new();
    while out.len() < n {
        let q0: Vec<f64> = limits.iter().map(|&(a, b)| rng.uniform(a, b)).collect();
        if pipeline.collides(scene, &q0).unwrap() {
            continue;
        }
        let q1 = q0
            .iter()
            .zip(&limits)
            .map(|(&q, &(a, b))| (q + rng.uniform(-theta, theta)).clamp(a, b))
            .collect();
        out.push((q0, q1));
    }
    out
}

fn suite(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let pipeline = Pipeline::builder().build().unwrap();
    let mut group = c.benchmark_group("suite_queries");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(4));
    for scene_name in ["pipes", "amr"] {
        let scene =
            Scene::from_file(root.join(format!("data/scenes/puma_{scene_name}.ron"))).unwrap();
        for deg in [5.0_f64, 30.0] {
            let qs = queries(&scene, &pipeline, deg.to_radians(), 16);
            let mut prepared = pipeline.prepare(&scene).unwrap();
            let id = BenchmarkId::new(scene_name, format!("{deg}deg_x16"));
            group.bench_function(id, |b| {
                b.iter(|| {
                    for (q0, q1) in &qs {
                        black_box(prepared.first_contact(q0, q1).unwrap());
                    }
                });
            });
        }
    }
    group.finish();
}

criterion_group!(benches, suite);
criterion_main!(benches);
