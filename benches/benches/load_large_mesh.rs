//! Loading a scanned-environment-sized obstacle: a closed, noisy
//! tessellated sphere of about two million triangles, generated in memory,
//! validated into a `TriMesh` and prepared by `Obstacle::fixed` (bounding
//! volumes, OBB and RSS hierarchies, topology, mass properties; the convex
//! hull is built on first use only, never here). Once per run it prints
//! the geometry's bytes per triangle (`LinkGeometry::heap_bytes`).
//!
//! The figure to compare with the one-core goal comes from
//! `RAYON_NUM_THREADS=1 cargo bench -p armature-benches --bench
//! load_large_mesh`; without it the hierarchy builds use every core.

use armature_benches::noisy_sphere;
use armature_bvh_geometry::{Obstacle, TriMesh};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use glam::{DAffine3, DVec3};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

/// Latitude–longitude resolution: `2 M (M − 1)` triangles, 1,998,000.
const M: usize = 1000;

fn load(vertices: Vec<DVec3>, indices: Vec<[u32; 3]>) -> Obstacle {
    let mesh = TriMesh::new(vertices, indices).expect("a tessellated sphere is valid");
    Obstacle::fixed("scan", Arc::new(mesh), DAffine3::IDENTITY).expect("a valid obstacle")
}

fn bench(c: &mut Criterion) {
    let (v, t) = noisy_sphere(M, 5.0, 1e-3, 7);
    let n = t.len();
    let o = load(v.clone(), t.clone());
    let g = o.geometry();
    assert!(!g.hull_is_built(), "loading must not build the hull");
    println!(
        "load_large_mesh: {n} triangles, {:.1} bytes per triangle ({} bytes), closed: {}",
        g.heap_bytes() as f64 / n as f64,
        g.heap_bytes(),
        g.is_closed()
    );
    drop(o);
    let mut group = c.benchmark_group("load_large_mesh");
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(100));
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("obstacle_fixed_2m", |b| {
        b.iter_batched(
            || (v.clone(), t.clone()),
            |(v, t)| black_box(load(v, t)),
            BatchSize::PerIteration,
        );
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
