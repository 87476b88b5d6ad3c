//! Batch speed-up over one thread: the suite-like queries of
//! `suite_queries` (Puma / pipes, q0 collision-free, joints moved by up to
//! 30°), 64 of them answered by `Pipeline::first_contact_batch` — the
//! engine of `armature toc --batch` — on a one-thread pool and on the
//! default pool (one thread per core). The ratio of the two times is the
//! speed-up; the goal is at least 0.9 × the number of cores.

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

/// `n` motions from collision-free starts, joints moved by up to `theta`.
fn motions(scene: &Scene, pipeline: &Pipeline, theta: f64, n: usize) -> Vec<(Vec<f64>, Vec<f64>)> {
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

fn scaling(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let scene = Scene::from_file(root.join("data/scenes/puma_pipes.ron")).unwrap();
    let all_cores = Pipeline::builder().build().unwrap();
    let one_thread = Pipeline::builder().threads(1).build().unwrap();
    let qs = motions(&scene, &all_cores, 30f64.to_radians(), 64);
    let mut group = c.benchmark_group("batch_scaling");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(4));
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    for (name, pipeline) in [
        ("1_thread".to_owned(), &one_thread),
        (format!("{cores}_threads"), &all_cores),
    ] {
        group.bench_function(BenchmarkId::new("pipes_30deg_x64", name), |b| {
            b.iter(|| black_box(pipeline.first_contact_batch(&scene, &qs).unwrap()));
        });
    }
    group.finish();
}

criterion_group!(benches, scaling);
criterion_main!(benches);
