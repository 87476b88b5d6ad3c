//! The GREEDY-DIST and collide queries of the `geometry_bvh` benchmark
//! (noisy spheres of ~1K and ~100K triangles, overlapping and 1 %, 10 %,
//! 100 % apart), in one function per query and pose so that an
//! instruction-count profiler can compare them:
//!
//! ```sh
//! cargo build --release -p armature-bvh-geometry --example greedy_profile
//! valgrind --tool=callgrind --callgrind-out-file=cg.out \
//!     target/release/examples/greedy_profile 1k 1000 2
//! callgrind_annotate --inclusive=yes cg.out | grep '_row'
//! ```
//!
//! `greedy_row` and `collide_row` run their query `N` times (the second
//! argument) at separation `K` (the third: 0 overlap, 1 to 3 the gaps);
//! instructions per query are their inclusive counts over `N`. With
//! `time` as the third argument it prints wall time per query instead,
//! the best of 7 interleaved rounds of `N`. Without a profiler it prints the answers, the
//! work counters and the mean GREEDY-DIST / exact distance ratio of the
//! benchmark.

use armature_bvh_geometry::query::{
    CollideMode, CollideWorkspace, DistanceWorkspace, GreedyDistanceOptions, MeshObject, collide,
    distance, greedy_distance,
};
use armature_bvh_geometry::{Bvh, BvhOptions, Obb, Rss, TriMesh};
use glam::{DAffine3, DQuat, DVec3};
use std::hint::black_box;

/// The benchmark's noisy sphere: `m` rings of `m` vertices, each radius
/// off by up to `noise` (relative), the same for a seed on every run.
fn noisy_sphere(m: usize, r: f64, noise: f64, seed: u64) -> TriMesh {
    let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut v = vec![DVec3::new(0.0, 0.0, r), DVec3::new(0.0, 0.0, -r)];
    for i in 1..m {
        let th = core::f64::consts::PI * i as f64 / m as f64;
        for j in 0..m {
            let ph = core::f64::consts::TAU * j as f64 / m as f64;
            let rr = r * (1.0 + noise * (-1.0 + 2.0 * next()));
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
    TriMesh::new(v, t).expect("a tessellated sphere is valid")
}

struct Object {
    mesh: TriMesh,
    obb: Bvh<Obb>,
    rss: Bvh<Rss>,
}

impl Object {
    fn new(mesh: TriMesh) -> Self {
        let o = BvhOptions::default();
        Self {
            obb: Bvh::build(&mesh, &o).expect("build"),
            rss: Bvh::build(&mesh, &o).expect("build"),
            mesh,
        }
    }
}

/// The benchmark's separations (fraction of the diameter; negative
/// overlaps).
const SEPARATIONS: [(&str, f64); 4] = [
    ("overlap", -0.25),
    ("gap_1pct", 0.01),
    ("gap_10pct", 0.10),
    ("gap_100pct", 1.0),
];

fn pose_a() -> DAffine3 {
    DAffine3::from_rotation_translation(DQuat::from_rotation_z(0.3), DVec3::new(0.5, -1.0, 2.0))
}

fn pose_b(gap: f64) -> DAffine3 {
    let dir = DVec3::new(1.0, 0.3, -0.2).normalize();
    pose_a()
        * DAffine3::from_rotation_translation(
            DQuat::from_euler(glam::EulerRot::XYZ, 0.4, -0.7, 1.1),
            dir * (2.0 + 2.0 * gap),
        )
}

#[inline(never)]
fn greedy_row(a: &Object, b: &Object, n: usize, k: usize) -> f64 {
    let tb = pose_b(SEPARATIONS[k].1);
    let ra = MeshObject::new(&a.mesh, &a.rss, pose_a()).expect("rigid");
    let rb = MeshObject::new(&b.mesh, &b.rss, tb).expect("rigid");
    let o = GreedyDistanceOptions::default();
    let mut ws = DistanceWorkspace::new();
    let mut s = 0.0;
    for _ in 0..n {
        s += greedy_distance(black_box(&ra), black_box(&rb), &o, &mut ws)
            .expect("valid options")
            .lower_bound;
    }
    s
}

#[inline(never)]
fn collide_row(a: &Object, b: &Object, n: usize, k: usize) -> usize {
    let tb = pose_b(SEPARATIONS[k].1);
    let oa = MeshObject::new(&a.mesh, &a.obb, pose_a()).expect("rigid");
    let ob = MeshObject::new(&b.mesh, &b.obb, tb).expect("rigid");
    let mut ws = CollideWorkspace::new();
    let mut s = 0;
    for _ in 0..n {
        s += usize::from(
            collide(black_box(&oa), black_box(&ob), CollideMode::First, &mut ws).colliding,
        );
    }
    s
}

/// Mean GREEDY-DIST bound / exact distance over the benchmark's 64
/// separated poses.
fn greedy_quality(a: &Object, b: &Object) -> f64 {
    let (mut ratio, mut n) = (0.0, 0_i32);
    let mut ws = DistanceWorkspace::new();
    for k in 0..64_i32 {
        let t = f64::from(k);
        let gap = 0.01 * 100f64.powf(((t * 0.618_034) % 1.0).abs());
        let dir = DVec3::new((t * 1.3).sin(), (t * 0.7).cos(), (t * 2.1).sin()).normalize();
        let q = DQuat::from_euler(glam::EulerRot::XYZ, t * 0.37, t * 0.11, t * 0.53);
        let tb = DAffine3::from_rotation_translation(q, dir * (2.0 + 2.0 * gap));
        let ra = MeshObject::new(&a.mesh, &a.rss, DAffine3::IDENTITY).expect("rigid");
        let rb = MeshObject::new(&b.mesh, &b.rss, tb).expect("rigid");
        let d = distance(&ra, &rb, &mut ws, None).distance;
        let g = greedy_distance(&ra, &rb, &GreedyDistanceOptions::default(), &mut ws)
            .expect("valid options")
            .lower_bound;
        if d > 0.0 {
            ratio += g / d;
            n += 1;
        }
    }
    ratio / f64::from(n)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let m = match args.get(1).map(String::as_str) {
        Some("100k") => 224,
        _ => 23,
    };
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(0);
    let a = Object::new(noisy_sphere(m, 1.0, 0.002, 1));
    let b = Object::new(noisy_sphere(m, 1.0, 0.002, 2));
    if args.get(3).map(String::as_str) == Some("time") {
        // Wall time per query, the best of 7 interleaved rounds of `n`.
        for (k, (label, _)) in SEPARATIONS.iter().enumerate() {
            let (mut g, mut c) = (f64::INFINITY, f64::INFINITY);
            for _ in 0..7 {
                let t = std::time::Instant::now();
                black_box(greedy_row(&a, &b, n, k));
                g = g.min(t.elapsed().as_secs_f64() / n as f64);
                let t = std::time::Instant::now();
                black_box(collide_row(&a, &b, n, k));
                c = c.min(t.elapsed().as_secs_f64() / n as f64);
            }
            println!(
                "{label}: greedy {:.0} ns collide {:.0} ns ratio {:.2}",
                g * 1e9,
                c * 1e9,
                g / c
            );
        }
        return;
    }
    if n > 0 {
        let k: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(0);
        black_box(greedy_row(&a, &b, n, k));
        black_box(collide_row(&a, &b, n, k));
        return;
    }
    let mut ws = DistanceWorkspace::new();
    let mut cws = CollideWorkspace::new();
    for (label, gap) in SEPARATIONS {
        let tb = pose_b(gap);
        let ra = MeshObject::new(&a.mesh, &a.rss, pose_a()).expect("rigid");
        let rb = MeshObject::new(&b.mesh, &b.rss, tb).expect("rigid");
        let oa = MeshObject::new(&a.mesh, &a.obb, pose_a()).expect("rigid");
        let ob = MeshObject::new(&b.mesh, &b.obb, tb).expect("rigid");
        let d = distance(&ra, &rb, &mut ws, None);
        let g = greedy_distance(&ra, &rb, &GreedyDistanceOptions::default(), &mut ws)
            .expect("valid options");
        let c = collide(&oa, &ob, CollideMode::First, &mut cws);
        println!(
            "{label}: exact {:.9} greedy {:.9} ({:?}) collide {} ({:?})",
            d.distance, g.lower_bound, g.stats, c.colliding, c.stats
        );
    }
    println!("mean GREEDY-DIST / exact = {:.4}", greedy_quality(&a, &b));
}
