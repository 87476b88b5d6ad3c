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
use armature_benches::suite_motions;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

fn scaling(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let scene = Scene::from_file(root.join("data/scenes/puma_pipes.ron")).unwrap();
    let all_cores = Pipeline::builder().build().unwrap();
    let one_thread = Pipeline::builder().threads(1).build().unwrap();
    let qs = suite_motions(&scene, &all_cores, 30f64.to_radians(), 64);
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
