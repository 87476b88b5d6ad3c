//! Fixed benchmark queries on the Puma / pipes and Puma / AMR scenes of
//! `data/scenes/` for regression tracking: the same kind of query as
//! `cargo xtask bench` (q0 uniform in the joint limits and collision-free,
//! each joint moved by up to θmax), a fixed seed, 16 queries per scene and
//! θmax, timed as one batch on one thread on a prepared scene.

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use armature::{Pipeline, Scene};
use armature_benches::suite_motions;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

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
            let qs = suite_motions(&scene, &pipeline, deg.to_radians(), 16);
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
