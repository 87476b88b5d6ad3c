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

use armature_bvh_geometry::{Obstacle, TriMesh};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use glam::{DAffine3, DVec3};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

/// Latitude–longitude resolution: `2 M (M − 1)` triangles, 1,998,000.
const M: usize = 1000;

/// A closed sphere of radius `r` with `2 m (m − 1)` triangles, each vertex
/// moved radially by a seeded pseudo-random fraction of up to `noise` (a
/// scan is never a perfect sphere).
fn noisy_sphere(m: usize, r: f64, noise: f64, seed: u64) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    let mut rand = move || {
        // SplitMix64: deterministic, no dependency.
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    let mut v = vec![DVec3::new(0.0, 0.0, r), DVec3::new(0.0, 0.0, -r)];
    for i in 1..m {
        let th = core::f64::consts::PI * i as f64 / m as f64;
        for j in 0..m {
            let ph = core::f64::consts::TAU * j as f64 / m as f64;
            let rr = r * (1.0 + noise * rand());
            v.push(DVec3::new(
                rr * th.sin() * ph.cos(),
                rr * th.sin() * ph.sin(),
                rr * th.cos(),
            ));
        }
    }
    let at = |i: usize, j: usize| (2 + (i - 1) * m + j % m) as u32;
    let mut t = Vec::with_capacity(2 * m * (m - 1));
    for j in 0..m {
        t.push([0, at(1, j), at(1, j + 1)]);
        t.push([1, at(m - 1, j + 1), at(m - 1, j)]);
    }
    for i in 1..m - 1 {
        for j in 0..m {
            t.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
            t.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
        }
    }
    (v, t)
}

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
