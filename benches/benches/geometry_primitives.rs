//! Micro-benchmarks of the primitive geometry queries (ns per call).
//!
//! Each benchmark cycles through 1024 pre-generated inputs (a fixed-seed
//! generator), so the figures are averages over a mix of configurations
//! rather than one branch-predicted case: triangles about 0.6 across with
//! centres in a box of side 0.5, so that some of the pairs intersect, and
//! box and RSS pairs that partly overlap. The mix is printed after the run.

use armature_benches::BenchRng as Rng;
use armature_bvh_geometry::bv::{Obb, Rss};
use armature_bvh_geometry::query::{
    closest_points_segment_segment, closest_points_triangle_triangle, distance_rss_rss,
    intersect_triangle_triangle, overlap_obb_obb,
};
use criterion::{Criterion, criterion_group, criterion_main};
use glam::{DVec2, DVec3};
use std::hint::black_box;

const N: usize = 1024;

/// A triangle about 0.6 across with its centre in a box of side 0.5.
fn triangle(rng: &mut Rng) -> [DVec3; 3] {
    let c = rng.vec();
    [0, 1, 2].map(|_| c * 0.5 + (rng.vec() - DVec3::splat(0.5)) * 0.6)
}

fn primitives(c: &mut Criterion) {
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let tris: Vec<_> = (0..N)
        .map(|_| (triangle(&mut rng), triangle(&mut rng)))
        .collect();
    let segs: Vec<_> = (0..N)
        .map(|_| [rng.vec(), rng.vec(), rng.vec(), rng.vec()])
        .collect();
    let obbs: Vec<_> = (0..N)
        .map(|_| {
            let mut b = || Obb::new(rng.vec() * 2.0, rng.rotation(), rng.vec() * 0.5);
            (b(), b())
        })
        .collect();
    let rsss: Vec<_> = (0..N)
        .map(|_| {
            let mut r = || {
                let h = rng.vec();
                Rss::new(
                    rng.vec() * 2.0,
                    rng.rotation(),
                    DVec2::new(h.x, h.y) * 0.5,
                    0.1 * h.z,
                )
            };
            (r(), r())
        })
        .collect();

    let mut g = c.benchmark_group("geometry");
    let mut i = 0;
    g.bench_function("tri_tri_distance", |z| {
        z.iter(|| {
            i = (i + 1) % N;
            let (a, b) = &tris[i];
            closest_points_triangle_triangle(black_box(a), black_box(b))
        })
    });
    g.bench_function("tri_tri_intersect", |z| {
        z.iter(|| {
            i = (i + 1) % N;
            let (a, b) = &tris[i];
            intersect_triangle_triangle(black_box(a), black_box(b))
        })
    });
    g.bench_function("obb_sat", |z| {
        z.iter(|| {
            i = (i + 1) % N;
            let (a, b) = &obbs[i];
            overlap_obb_obb(black_box(a), black_box(b))
        })
    });
    g.bench_function("rss_distance", |z| {
        z.iter(|| {
            i = (i + 1) % N;
            let (a, b) = &rsss[i];
            distance_rss_rss(black_box(a), black_box(b))
        })
    });
    g.bench_function("segment_segment", |z| {
        z.iter(|| {
            i = (i + 1) % N;
            let [p0, p1, q0, q1] = segs[i];
            closest_points_segment_segment(
                black_box(p0),
                black_box(p1),
                black_box(q0),
                black_box(q1),
            )
        })
    });
    g.finish();

    // The mix the figures above average over, for the record.
    let hits = tris
        .iter()
        .filter(|(a, b)| intersect_triangle_triangle(a, b))
        .count();
    let overlaps = obbs.iter().filter(|(a, b)| overlap_obb_obb(a, b)).count();
    let touching = rsss
        .iter()
        .filter(|(a, b)| distance_rss_rss(a, b) == 0.0)
        .count();
    eprintln!(
        "inputs: {hits}/{N} triangle pairs intersect, {overlaps}/{N} box pairs overlap, {touching}/{N} RSS pairs touch"
    );
}

criterion_group!(benches, primitives);
criterion_main!(benches);
