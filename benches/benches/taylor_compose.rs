//! `TaylorAffine3` composition: one product, and whole chains of 6 and 15
//! local motions (M4 §5.2).

use armature_interval_taylor::{TaylorAffine3, TimeDomain};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use glam::{DAffine3, DVec3};
use std::hint::black_box;

/// Local motions of a chain: rotation about a fixed pseudo-random axis at
/// 15° per unit time, a link offset, and a small linear translation.
fn chain(n: usize) -> Vec<TaylorAffine3> {
    let dom = TimeDomain::unit();
    (0..n)
        .map(|i| {
            let f = i as f64;
            let axis = DVec3::new((1.3 * f).sin(), (2.1 * f + 0.5).cos(), 0.7);
            let joint = TaylorAffine3::in_between(
                dom,
                axis,
                15f64.to_radians(),
                0.1 * f,
                DVec3::new(0.0, 0.0, 0.01),
                DVec3::ZERO,
            )
            .expect("valid local motion");
            joint.premul_const(&DAffine3::from_translation(DVec3::new(0.3, 0.0, 0.1)))
        })
        .collect()
}

fn compose(c: &mut Criterion) {
    let mut g = c.benchmark_group("taylor_affine3");
    let links = chain(2);
    g.bench_function("compose_one", |z| {
        z.iter(|| black_box(&links[0]).compose(black_box(&links[1])))
    });
    for n in [6usize, 15] {
        let links = chain(n);
        g.bench_with_input(BenchmarkId::new("chain", n), &links, |z, links| {
            z.iter(|| {
                let mut w = links[0];
                for l in &links[1..] {
                    w = w.compose(l);
                }
                black_box(w)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, compose);
criterion_main!(benches);
