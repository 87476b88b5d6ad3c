//! Conservative advancement (M4) on fixed motions of a 6-DOF arm of
//! tessellated cylinders against an environment of about 40K triangles
//! (tessellated spheres on a shell around the arm), with and without
//! temporal culling; and a 15-link tree (three five-link fingers on a
//! palm) closing onto itself, self-collision only. Once per run it prints each motion's answer and the
//! fractions of pairs culled spatially and temporally (compare M4 Table 2).
//! Scenes are prepared once ([`CcdScene`]); the timings are per query.

use std::f64::consts::PI;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use armature_bvh_geometry::{ArticulatedBody, DisabledPairs, Obstacle, Tessellation};
use armature_conservative_advance::{CcdOptions, CcdScene, CcdWorkspace, first_contact};
use armature_kinematics::{Joint, KinematicTree, LinkSpec};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use glam::{DAffine3, DQuat, DVec3};

/// Link lengths (m) and joint axes of the arm.
const LINKS: [(f64, DVec3); 6] = [
    (0.3, DVec3::Z),
    (0.6, DVec3::Y),
    (0.5, DVec3::Y),
    (0.15, DVec3::X),
    (0.15, DVec3::Y),
    (0.1, DVec3::X),
];

/// A cylinder of radius `r` from the link origin along +x for `l`.
fn link_mesh(tess: &Tessellation, r: f64, l: f64) -> Arc<armature_bvh_geometry::TriMesh> {
    let pose = DAffine3::from_rotation_translation(
        DQuat::from_rotation_y(PI / 2.0),
        DVec3::new(0.5 * l, 0.0, 0.0),
    );
    Arc::new(tess.cylinder(r, l).unwrap().transformed(&pose).unwrap())
}

fn arm() -> ArticulatedBody {
    let tess = Tessellation::default();
    let mut specs = vec![LinkSpec::new("base", None)];
    let mut meshes = vec![None];
    let mut prev_len = 0.0;
    for (i, &(l, axis)) in LINKS.iter().enumerate() {
        let parent = if i == 0 {
            "base".to_owned()
        } else {
            format!("l{}", i - 1)
        };
        specs.push(
            LinkSpec::new(format!("l{i}"), Some(&parent))
                .with_joint(Joint::revolute(format!("j{i}"), axis, -PI, PI))
                .with_origin(DAffine3::from_translation(DVec3::X * prev_len)),
        );
        meshes.push(Some(link_mesh(&tess, 0.05, l)));
        prev_len = l;
    }
    ArticulatedBody::new("arm", KinematicTree::new(specs).unwrap(), meshes).unwrap()
}

/// 40 spheres of ~1K triangles on a shell of radius 1.1 about the base.
fn environment() -> Vec<Obstacle> {
    let tess = Tessellation {
        segments: 32,
        rings: 16,
    };
    let sphere = Arc::new(tess.sphere(0.12).unwrap());
    let golden = PI * (3.0 - 5f64.sqrt());
    (0..40)
        .map(|i: u32| {
            let i = f64::from(i);
            let z = 1.0 - 2.0 * (i + 0.5) / 40.0;
            let r = (1.0 - z * z).sqrt();
            let p = DVec3::new(r * (golden * i).cos(), r * (golden * i).sin(), z);
            Obstacle::fixed(
                format!("s{i}"),
                sphere.clone(),
                DAffine3::from_translation(p * 1.1),
            )
            .unwrap()
        })
        .collect()
}

/// Fixed motions: small, medium and large joint swings.
fn motions() -> Vec<(&'static str, [f64; 6], [f64; 6])> {
    vec![
        (
            "small",
            [0.1, -0.2, 0.3, 0.0, 0.2, 0.0],
            [0.3, 0.0, 0.5, 0.2, 0.4, 0.3],
        ),
        (
            "medium",
            [0.0, -0.5, 0.5, 0.0, 0.0, 0.0],
            [1.0, 0.3, -0.4, 1.0, 0.8, -1.0],
        ),
        (
            "large",
            [-1.5, -1.0, 1.2, 0.5, -0.5, 0.0],
            [1.5, 0.8, -1.2, -0.5, 0.9, 2.0],
        ),
    ]
}

fn ca_arm(c: &mut Criterion) {
    let body = arm();
    let env = environment();
    let triangles: usize = env.iter().map(|o| o.geometry().mesh.num_triangles()).sum();
    let disabled = DisabledPairs::new();
    let mut ws = CcdWorkspace::new();
    println!(
        "environment: {} obstacles, {triangles} triangles",
        env.len()
    );
    for (name, q0, q1) in motions() {
        let r = first_contact(
            &body,
            &env,
            &disabled,
            &q0,
            &q1,
            &CcdOptions::default(),
            &mut ws,
        )
        .unwrap();
        let s = r.stats;
        let pct = |a: usize, b: usize| {
            if b == 0 {
                0.0
            } else {
                100.0 * (1.0 - a as f64 / b as f64)
            }
        };
        println!(
            "{name}: {:?} toc ≥ {:.4}; spatial culling {:.1} % of {} pairs, temporal {:.1} % of the rest, {} CA iterations",
            r.status,
            r.toc_lower_bound,
            pct(s.pairs_after_spatial, s.pairs_total),
            s.pairs_total,
            pct(s.pairs_after_temporal, s.pairs_after_spatial),
            s.ca_iterations,
        );
    }
    let mut group = c.benchmark_group("ca_arm");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(3));
    for (name, q0, q1) in motions() {
        for culling in [true, false] {
            let options = CcdOptions::default().with_temporal_culling(culling);
            let mut scene = CcdScene::new(&body, &env, &disabled, &options).unwrap();
            let id = if culling { "temporal" } else { "no_temporal" };
            group.bench_function(BenchmarkId::new(id, name), |b| {
                b.iter(|| {
                    scene
                        .first_contact(&q0, &q1, &mut ws)
                        .map(|r| black_box(r.toc_lower_bound))
                })
            });
        }
    }
    group.finish();
}

/// A palm and three fingers of five links; each finger's first joint
/// spreads it (about z), the others curl it (about y).
fn hand() -> ArticulatedBody {
    let tess = Tessellation::default();
    let mut specs = vec![LinkSpec::new("palm", None)];
    let mut meshes = vec![Some(link_mesh(&tess, 0.06, 0.2))];
    for f in 0..3 {
        let mut parent = "palm".to_owned();
        for k in 0..5 {
            let name = format!("f{f}_{k}");
            let (axis, origin) = if k == 0 {
                (DVec3::Z, DVec3::new(0.2, 0.12 * (f64::from(f) - 1.0), 0.0))
            } else {
                (DVec3::Y, DVec3::new(0.1, 0.0, 0.0))
            };
            specs.push(
                LinkSpec::new(name.clone(), Some(&parent))
                    .with_joint(Joint::revolute(format!("j{f}_{k}"), axis, -PI, PI))
                    .with_origin(DAffine3::from_translation(origin)),
            );
            meshes.push(Some(link_mesh(&tess, 0.03, 0.1)));
            parent = name;
        }
    }
    ArticulatedBody::new("hand", KinematicTree::new(specs).unwrap(), meshes).unwrap()
}

fn ca_tree(c: &mut Criterion) {
    let body = hand();
    let disabled = DisabledPairs::new();
    let mut ws = CcdWorkspace::new();
    // Outer fingers spread apart, then swing across the middle one while
    // curling.
    let q0: Vec<f64> = (0..3)
        .flat_map(|f| {
            let spread = 0.4 * (f64::from(f) - 1.0);
            [spread, 0.1, 0.1, 0.1, 0.1]
        })
        .collect();
    let q1: Vec<f64> = (0..3)
        .flat_map(|f| {
            let spread = -0.8 * (f64::from(f) - 1.0);
            [spread, 0.6, 0.6, 0.6, 0.6]
        })
        .collect();
    let r = first_contact(
        &body,
        &[],
        &disabled,
        &q0,
        &q1,
        &CcdOptions::default(),
        &mut ws,
    )
    .unwrap();
    println!(
        "hand: {:?} toc ≥ {:.4}; pairs {} → {} spatial → {} temporal, {} CA iterations",
        r.status,
        r.toc_lower_bound,
        r.stats.pairs_total,
        r.stats.pairs_after_spatial,
        r.stats.pairs_after_temporal,
        r.stats.ca_iterations,
    );
    let mut group = c.benchmark_group("ca_tree");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(3));
    for culling in [true, false] {
        let options = CcdOptions::default().with_temporal_culling(culling);
        let mut scene = CcdScene::new(&body, &[], &disabled, &options).unwrap();
        let id = if culling { "temporal" } else { "no_temporal" };
        group.bench_function(BenchmarkId::new(id, "hand15"), |b| {
            b.iter(|| {
                scene
                    .first_contact(&q0, &q1, &mut ws)
                    .map(|r| black_box(r.toc_lower_bound))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, ca_arm, ca_tree);
criterion_main!(benches);
