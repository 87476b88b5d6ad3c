//! Micro-benchmarks of the interval operations.

use armature_interval_taylor::{Interval, IntervalAffine3, IntervalMat3, IntervalVec3};
use criterion::{Criterion, criterion_group, criterion_main};
use glam::DVec3;
use std::hint::black_box;

fn iv(lo: f64, hi: f64) -> Interval {
    Interval::new(lo, hi).expect("valid bench interval")
}

fn interval_ops(c: &mut Criterion) {
    let a = iv(-0.3, 1.7);
    let b = iv(0.25, 0.5);
    let mut g = c.benchmark_group("interval");
    g.bench_function("add", |z| z.iter(|| black_box(a) + black_box(b)));
    g.bench_function("mul", |z| z.iter(|| black_box(a) * black_box(b)));
    g.bench_function("div", |z| z.iter(|| black_box(a) / black_box(b)));
    g.bench_function("sqr", |z| z.iter(|| black_box(a).sqr()));
    g.bench_function("sqrt", |z| z.iter(|| black_box(b).sqrt()));
    g.bench_function("sin", |z| z.iter(|| black_box(a).sin()));
    g.bench_function("cos", |z| z.iter(|| black_box(a).cos()));
    g.bench_function("powi5", |z| z.iter(|| black_box(a).powi(5)));
    let r = IntervalMat3::from_axis_angle(DVec3::new(0.3, -0.5, 0.8), iv(0.1, 0.3))
        .expect("valid axis");
    let t = IntervalAffine3::new(r, IntervalVec3::from_point(DVec3::new(0.1, 0.2, 0.3)));
    g.bench_function("affine3_compose", |z| {
        z.iter(|| black_box(&t).compose(black_box(&t)))
    });
    g.finish();
}

criterion_group!(benches, interval_ops);
criterion_main!(benches);
