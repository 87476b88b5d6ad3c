//! Micro-benchmarks of M1's exact stage (ns per call): the continuous
//! OBB/OBB test with cached link bounds (M1 §5.1.1 reports about 1 µs per
//! test), and the primitive vertex–face and edge–edge CCD on small,
//! near-contact motions.
//!
//! Each benchmark cycles through 1024 pre-generated inputs (a fixed-seed
//! generator): box pairs of which about a third may overlap, under relative poses
//! enclosing a 3° turn and a 1 cm shift; a point or an edge moving by
//! about 1e-3 near a triangle or an edge.

use armature_benches::BenchRng as Rng;
use armature_bvh_geometry::bv::Obb;
use armature_elementary_ccd::primitive::{
    EdgeEdge, PrimitiveOptions, VertexFace, edge_edge_ccd, vertex_face_ccd,
};
use armature_elementary_ccd::{RelativePose, obb_overlap, obb_overlap_placed};
use armature_kinematics::LocalMotion;
use criterion::{Criterion, criterion_group, criterion_main};
use glam::{DMat3, DVec3};
use std::hint::black_box;

const N: usize = 1024;

fn obb_tests(c: &mut Criterion) {
    let mut rng = Rng(0x5EED_0B0B_0000_0001);
    let cases: Vec<_> = (0..N)
        .map(|_| {
            let mut b = || Obb::new(rng.vec() * 0.8, rng.rotation(), rng.vec() * 0.3);
            let (a, bb) = (b(), b());
            // A frame turning by 3° and moving by 1 cm over the piece.
            let m = LocalMotion {
                axis: rng.unit(),
                omega: 3f64.to_radians(),
                rot0: DMat3::IDENTITY,
                trans0: DVec3::ZERO,
                velocity: rng.unit() * 0.01,
            };
            let rel = RelativePose::local_motion(&m, 0.0, 1.0);
            (a, bb, rel, rel.place(&bb))
        })
        .collect();
    let overlapping = cases
        .iter()
        .filter(|(a, b, rel, _)| obb_overlap(a, b, rel, 0.0))
        .count();
    println!("continuous OBB tests: {overlapping} of {N} pairs may overlap");
    let mut g = c.benchmark_group("elementary_obb");
    let mut i = 0;
    g.bench_function("obb_overlap (placement included)", |bench| {
        bench.iter(|| {
            let (a, b, rel, _) = &cases[i % N];
            i += 1;
            black_box(obb_overlap(a, b, rel, 1e-4))
        });
    });
    let mut i = 0;
    g.bench_function("obb_overlap_placed (cached placement)", |bench| {
        bench.iter(|| {
            let (a, _, _, placed) = &cases[i % N];
            i += 1;
            black_box(obb_overlap_placed(a, placed, 1e-4))
        });
    });
    g.finish();
}

fn primitives(c: &mut Criterion) {
    let mut rng = Rng(0x5EED_0B0B_0000_0002);
    let small = |rng: &mut Rng| (rng.vec() - DVec3::splat(0.5)) * 2e-3;
    let vf: Vec<_> = (0..N)
        .map(|_| {
            let face = [rng.vec(), rng.vec(), rng.vec()];
            let n = (face[1] - face[0])
                .cross(face[2] - face[0])
                .normalize_or_zero();
            let inside = (face[0] + face[1] + face[2]) / 3.0;
            let p0 = inside + n * (rng.uniform01() - 0.5) * 2e-3;
            let moved = face.map(|p| p + small(&mut rng));
            VertexFace {
                vertex: [p0, p0 + small(&mut rng)],
                face: [face, moved],
            }
        })
        .collect();
    let ee: Vec<_> = (0..N)
        .map(|_| {
            let a = [rng.vec(), rng.vec()];
            let mid = (a[0] + a[1]) * 0.5;
            let dir = rng.unit();
            let b = [
                mid - dir * 0.3 + small(&mut rng),
                mid + dir * 0.3 + small(&mut rng),
            ];
            EdgeEdge {
                a: [a, a.map(|p| p + small(&mut rng))],
                b: [b, b.map(|p| p + small(&mut rng))],
            }
        })
        .collect();
    let o = PrimitiveOptions::default();
    let mut g = c.benchmark_group("elementary_primitive");
    let mut i = 0;
    g.bench_function("vertex_face_ccd (near contact)", |bench| {
        bench.iter(|| {
            i += 1;
            black_box(vertex_face_ccd(&vf[i % N], &o).ok())
        });
    });
    let mut i = 0;
    g.bench_function("edge_edge_ccd (near contact)", |bench| {
        bench.iter(|| {
            i += 1;
            black_box(edge_edge_ccd(&ee[i % N], &o).ok())
        });
    });
    g.finish();
}

criterion_group!(benches, obb_tests, primitives);
criterion_main!(benches);
