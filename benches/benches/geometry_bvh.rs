//! Mesh–mesh queries over bounding-volume hierarchies against parry3d-f64
//! (the baseline, measured in the same run): first-contact collision and
//! exact distance between two noisy tessellated spheres of ~1K and ~100K
//! triangles, overlapping and 1 %, 10 %, 100 % of their size apart; the
//! GREEDY-DIST lower bound of M2 at the same poses; hierarchy builds (AABB,
//! OBB, RSS) for a ~187K-triangle mesh. Once per run it also prints the
//! memory per triangle of mesh + OBB tree + RSS tree, the mean ratio of the
//! GREEDY-DIST bound to the exact distance, and a cross-check of the
//! distances against parry's.

use armature_bvh_geometry::query::{
    CollideMode, CollideWorkspace, DistanceWorkspace, GreedyDistanceOptions, MeshObject, collide,
    distance, greedy_distance,
};
use armature_bvh_geometry::{Aabb, Bvh, BvhOptions, Obb, Rss, TriMesh};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use glam::{DAffine3, DQuat, DVec3};
use parry3d_f64::math::{Pose, Rotation, Vector};
use parry3d_f64::shape::TriMesh as ParryTriMesh;
use std::hint::black_box;
use std::time::Duration;

/// A closed noisy sphere ([`armature_benches::noisy_sphere`]) as a mesh.
fn noisy_sphere(m: usize, r: f64, noise: f64, seed: u64) -> TriMesh {
    let (v, t) = armature_benches::noisy_sphere(m, r, noise, seed);
    TriMesh::new(v, t).expect("a tessellated sphere is valid")
}

fn to_parry(m: &TriMesh) -> ParryTriMesh {
    let v = m
        .vertices()
        .iter()
        .map(|p| Vector::new(p.x, p.y, p.z))
        .collect();
    ParryTriMesh::new(v, m.indices().to_vec()).expect("valid mesh")
}

fn to_parry_pose(t: &DAffine3) -> Pose {
    let (_, q, tr) = t.to_scale_rotation_translation();
    Pose::from_parts(
        Vector::new(tr.x, tr.y, tr.z),
        Rotation::from_xyzw(q.x, q.y, q.z, q.w),
    )
}

/// Everything one mesh needs, built once.
struct Object {
    mesh: TriMesh,
    obb: Bvh<Obb>,
    rss: Bvh<Rss>,
    parry: ParryTriMesh,
}

impl Object {
    fn new(mesh: TriMesh) -> Self {
        let o = BvhOptions::default();
        Self {
            obb: Bvh::build(&mesh, &o).expect("build"),
            rss: Bvh::build(&mesh, &o).expect("build"),
            parry: to_parry(&mesh),
            mesh,
        }
    }
}

/// The separations: (label, gap between the unit spheres as a fraction of
/// their diameter); a negative gap overlaps them by that much.
const SEPARATIONS: [(&str, f64); 4] = [
    ("overlap", -0.25),
    ("gap_1pct", 0.01),
    ("gap_10pct", 0.10),
    ("gap_100pct", 1.0),
];

fn pose_b(gap: f64) -> DAffine3 {
    // Radius 1, diameter 2: centre distance 2 + 2·gap, along a skew axis,
    // B turned so its tessellation does not line up with A's.
    let dir = DVec3::new(1.0, 0.3, -0.2).normalize();
    DAffine3::from_rotation_translation(
        DQuat::from_euler(glam::EulerRot::XYZ, 0.4, -0.7, 1.1),
        dir * (2.0 + 2.0 * gap),
    )
}

fn queries(c: &mut Criterion) {
    let mut g = c.benchmark_group("mesh_mesh");
    g.measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(500))
        .sample_size(20);
    // Noise 0.2 % of the radius: the 1 % gaps stay gaps.
    for (size, m) in [("1k", 23), ("100k", 224)] {
        let a = Object::new(noisy_sphere(m, 1.0, 0.002, 1));
        let b = Object::new(noisy_sphere(m, 1.0, 0.002, 2));
        let ta = DAffine3::from_rotation_translation(
            DQuat::from_rotation_z(0.3),
            DVec3::new(0.5, -1.0, 2.0),
        );
        for (label, gap) in SEPARATIONS {
            let tb = ta * pose_b(gap);
            let id = format!("{size}/{label}");
            let (oa, ob) = (
                MeshObject::new(&a.mesh, &a.obb, ta).expect("rigid"),
                MeshObject::new(&b.mesh, &b.obb, tb).expect("rigid"),
            );
            let (ra, rb) = (
                MeshObject::new(&a.mesh, &a.rss, ta).expect("rigid"),
                MeshObject::new(&b.mesh, &b.rss, tb).expect("rigid"),
            );
            let (pa, pb) = (to_parry_pose(&ta), to_parry_pose(&tb));
            let mut cws = CollideWorkspace::new();
            let mut dws = DistanceWorkspace::new();
            let ours = distance(&ra, &rb, &mut dws, None);
            let theirs =
                parry3d_f64::query::distance(&pa, &a.parry, &pb, &b.parry).expect("supported");
            let hit = collide(&oa, &ob, CollideMode::First, &mut cws);
            let greedy = greedy_distance(&ra, &rb, &GreedyDistanceOptions::default(), &mut dws)
                .expect("valid options");
            eprintln!(
                "{id}: distance ours {:.9} parry {:.9}; collide {} (parry {}); greedy {:.9} \
                 (ratio {:.3}); tests collide {:?} distance {:?} greedy {:?}",
                ours.distance,
                theirs.distance,
                hit.colliding,
                parry3d_f64::query::intersection_test(&pa, &a.parry, &pb, &b.parry)
                    .expect("supported")
                    .intersecting,
                greedy.lower_bound,
                if ours.distance > 0.0 {
                    greedy.lower_bound / ours.distance
                } else {
                    1.0
                },
                hit.stats,
                ours.stats,
                greedy.stats,
            );
            g.bench_function(BenchmarkId::new("collide/ours", &id), |bch| {
                bch.iter(|| black_box(collide(&oa, &ob, CollideMode::First, &mut cws).colliding))
            });
            g.bench_function(BenchmarkId::new("collide/parry", &id), |bch| {
                bch.iter(|| {
                    black_box(parry3d_f64::query::intersection_test(
                        &pa, &a.parry, &pb, &b.parry,
                    ))
                })
            });
            g.bench_function(BenchmarkId::new("distance/ours", &id), |bch| {
                bch.iter(|| black_box(distance(&ra, &rb, &mut dws, None).distance))
            });
            // parry's TriMesh–TriMesh distance descends one tree per
            // triangle of the other: only the small case is affordable.
            if size == "1k" || gap >= 0.1 {
                // Seconds per call at 100K: the fewest samples criterion takes.
                g.sample_size(if size == "1k" { 20 } else { 10 });
                g.bench_function(BenchmarkId::new("distance/parry", &id), |bch| {
                    bch.iter(|| {
                        black_box(parry3d_f64::query::distance(&pa, &a.parry, &pb, &b.parry))
                    })
                });
            }
            g.sample_size(20);
            g.bench_function(BenchmarkId::new("greedy/ours", &id), |bch| {
                let o = GreedyDistanceOptions::default();
                bch.iter(|| {
                    black_box(greedy_distance(&ra, &rb, &o, &mut dws).map(|g| g.lower_bound))
                })
            });
        }
        greedy_quality(&a, &b, size);
    }
    g.finish();
}

/// Mean GREEDY-DIST bound / exact distance over 64 separated poses (gaps 1 %
/// to 100 % of the size, random directions and turns).
fn greedy_quality(a: &Object, b: &Object, size: &str) {
    let mut ratio = 0.0;
    let mut n = 0_i32;
    let mut dws = DistanceWorkspace::new();
    for k in 0..64_i32 {
        let t = f64::from(k);
        let gap = 0.01 * 100f64.powf(((t * 0.618_034) % 1.0).abs());
        let dir = DVec3::new((t * 1.3).sin(), (t * 0.7).cos(), (t * 2.1).sin()).normalize();
        let q = DQuat::from_euler(glam::EulerRot::XYZ, t * 0.37, t * 0.11, t * 0.53);
        let tb = DAffine3::from_rotation_translation(q, dir * (2.0 + 2.0 * gap));
        let ra = MeshObject::new(&a.mesh, &a.rss, DAffine3::IDENTITY).expect("rigid");
        let rb = MeshObject::new(&b.mesh, &b.rss, tb).expect("rigid");
        let d = distance(&ra, &rb, &mut dws, None).distance;
        let g = greedy_distance(&ra, &rb, &GreedyDistanceOptions::default(), &mut dws)
            .expect("valid options")
            .lower_bound;
        if d > 0.0 {
            ratio += g / d;
            n += 1;
        }
    }
    eprintln!(
        "{size}: mean GREEDY-DIST / exact distance over {n} separated poses = {:.3}",
        ratio / f64::from(n)
    );
}

fn builds(c: &mut Criterion) {
    // 2·306·305 = 186,660 triangles: the AMR scene's size.
    let mesh = noisy_sphere(306, 1.0, 0.002, 3);
    let n = mesh.num_triangles();
    let o = BvhOptions::default();
    let (obb, rss) = (
        Bvh::<Obb>::build(&mesh, &o).expect("build"),
        Bvh::<Rss>::build(&mesh, &o).expect("build"),
    );
    let mesh_bytes = mesh.num_vertices() * size_of::<DVec3>() + n * size_of::<[u32; 3]>();
    eprintln!(
        "memory for {n} triangles: mesh {:.1} B/tri, OBB tree {:.1} B/tri ({} nodes, depth {}), \
         RSS tree {:.1} B/tri; total {:.1} B/tri",
        mesh_bytes as f64 / n as f64,
        obb.memory_bytes() as f64 / n as f64,
        obb.num_nodes(),
        obb.depth(),
        rss.memory_bytes() as f64 / n as f64,
        (mesh_bytes + obb.memory_bytes() + rss.memory_bytes()) as f64 / n as f64,
    );
    // What articulated bodies and obstacles build for their distance
    // queries: one triangle per RSS leaf.
    let leaf1 =
        BvhOptions::default().with_max_leaf_triangles(armature_bvh_geometry::RSS_LEAF_TRIANGLES);
    let rss1 = Bvh::<Rss>::build(&mesh, &leaf1).expect("build");
    eprintln!(
        "with {} triangle(s) per RSS leaf (link and obstacle geometry): RSS tree {:.1} B/tri; \
         total {:.1} B/tri",
        armature_bvh_geometry::RSS_LEAF_TRIANGLES,
        rss1.memory_bytes() as f64 / n as f64,
        (mesh_bytes + obb.memory_bytes() + rss1.memory_bytes()) as f64 / n as f64,
    );
    let mut g = c.benchmark_group("bvh_build_187k");
    g.measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_millis(500))
        .sample_size(10);
    g.bench_function("aabb", |b| {
        b.iter(|| black_box(Bvh::<Aabb>::build(&mesh, &o)))
    });
    g.bench_function("obb", |b| {
        b.iter(|| black_box(Bvh::<Obb>::build(&mesh, &o)))
    });
    g.bench_function("rss", |b| {
        b.iter(|| black_box(Bvh::<Rss>::build(&mesh, &o)))
    });
    g.bench_function("rss_leaf1", |b| {
        b.iter(|| black_box(Bvh::<Rss>::build(&mesh, &leaf1)))
    });
    g.finish();
}

criterion_group!(benches, builds, queries);
criterion_main!(benches);
