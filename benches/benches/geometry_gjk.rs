//! GJK distance between two 32-point convex sets (all points on spheres,
//! so every point is a hull vertex), cold against warm-started from the
//! previous cycle's simplex while one set moves a little per cycle (the M3
//! monitor's use); the same for SSCHs of 8 points each; boolean GJK on the
//! point sets. The cold query is the baseline measured in the same run.

use armature_bvh_geometry::gjk::{
    ConvexPoints, GjkCache, GjkOptions, gjk_distance, gjk_distance_warm, gjk_intersect,
    ssch_distance,
};
use armature_kinematics::Ssch;
use criterion::{Criterion, criterion_group, criterion_main};
use glam::{DQuat, DVec3};
use std::hint::black_box;

/// Cycles of the simulated motion (the sequence repeats).
const CYCLES: usize = 64;

/// `n` deterministic points on the sphere of `radius` about `center`
/// (a Fibonacci lattice with a seeded twist).
fn sphere_points(n: usize, center: DVec3, radius: f64, twist: f64) -> Vec<DVec3> {
    let golden = core::f64::consts::PI * (3.0 - 5f64.sqrt());
    (0..n)
        .map(|i| {
            let z = 1.0 - 2.0 * (i as f64 + 0.5) / n as f64;
            let r = (1.0 - z * z).sqrt();
            let phi = golden * i as f64 + twist;
            center + DVec3::new(r * phi.cos(), r * phi.sin(), z) * radius
        })
        .collect()
}

/// The moving set at each cycle: a small turn and step per cycle.
fn motion(base: &[DVec3]) -> Vec<Vec<DVec3>> {
    let c = base.iter().copied().sum::<DVec3>() / base.len() as f64;
    (0..CYCLES)
        .map(|k| {
            let t = k as f64 / CYCLES as f64 * core::f64::consts::TAU;
            let q = DQuat::from_rotation_y(0.3 * t.sin()) * DQuat::from_rotation_z(0.2 * t);
            let shift = DVec3::new(0.2 * t.cos(), 0.2 * t.sin(), 0.0);
            base.iter().map(|&p| c + q * (p - c) + shift).collect()
        })
        .collect()
}

fn geometry_gjk(c: &mut Criterion) {
    let opts = GjkOptions::default();
    let a_pts = sphere_points(32, DVec3::ZERO, 1.0, 0.0);
    let b_pts = motion(&sphere_points(32, DVec3::new(2.6, 0.4, 0.2), 1.0, 0.7));
    let a = ConvexPoints::new(&a_pts).expect("finite points");
    let b: Vec<ConvexPoints<'_>> = b_pts
        .iter()
        .map(|p| ConvexPoints::new(p).expect("finite points"))
        .collect();

    let mut g = c.benchmark_group("geometry_gjk");
    let mut k = 0;
    g.bench_function("points_32x32_cold", |bench| {
        bench.iter(|| {
            k = (k + 1) % CYCLES;
            black_box(gjk_distance(black_box(&a), black_box(&b[k]), &opts).expect("valid"))
        });
    });
    let mut cache = GjkCache::new();
    let mut k = 0;
    g.bench_function("points_32x32_warm", |bench| {
        bench.iter(|| {
            k = (k + 1) % CYCLES;
            black_box(
                gjk_distance_warm(black_box(&a), black_box(&b[k]), &opts, &mut cache)
                    .expect("valid"),
            )
        });
    });
    let mut cache = GjkCache::new();
    g.bench_function("points_32x32_warm_static", |bench| {
        bench.iter(|| {
            black_box(
                gjk_distance_warm(black_box(&a), black_box(&b[0]), &opts, &mut cache)
                    .expect("valid"),
            )
        });
    });
    let mut k = 0;
    g.bench_function("points_32x32_intersect", |bench| {
        bench.iter(|| {
            k = (k + 1) % CYCLES;
            black_box(gjk_intersect(black_box(&a), black_box(&b[k])))
        });
    });

    let sa = Ssch::new(sphere_points(8, DVec3::ZERO, 0.5, 0.0), 0.1).expect("valid SSCH");
    let sb: Vec<Ssch> = motion(&sphere_points(8, DVec3::new(1.3, 0.2, 0.1), 0.5, 0.3))
        .into_iter()
        .map(|p| Ssch::new(p, 0.15).expect("valid SSCH"))
        .collect();
    let mut k = 0;
    g.bench_function("ssch_8x8_cold", |bench| {
        bench.iter(|| {
            k = (k + 1) % CYCLES;
            black_box(ssch_distance(black_box(&sa), black_box(&sb[k]), None).expect("valid"))
        });
    });
    let mut cache = GjkCache::new();
    let mut k = 0;
    g.bench_function("ssch_8x8_warm", |bench| {
        bench.iter(|| {
            k = (k + 1) % CYCLES;
            black_box(
                ssch_distance(black_box(&sa), black_box(&sb[k]), Some(&mut cache)).expect("valid"),
            )
        });
    });
    g.finish();
}

criterion_group!(benches, geometry_gjk);
criterion_main!(benches);
