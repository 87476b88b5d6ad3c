//! Motion bounds of a 6-DOF arm (Puma-like proportions, the 8 OBB corners of
//! each link as its points): the M2 curve-length bound λ and the M4 speed
//! bound μ per query, against one forward-kinematics pass of the same arm
//! measured in the same run as the baseline.

use armature_kinematics::{
    CurveLengthBounds, InBetweenMotion, Joint, KinematicTree, LinkSpec, MotionBounds,
};
use criterion::{Criterion, criterion_group, criterion_main};
use glam::{DAffine3, DQuat, DVec3};
use std::f64::consts::FRAC_PI_2;
use std::hint::black_box;

/// A 6-revolute arm: alternating axes, offsets of 0.1–0.45 m.
fn arm() -> KinematicTree {
    let x90 = DQuat::from_rotation_x(-FRAC_PI_2);
    let links = [
        (
            "base",
            DAffine3::from_translation(DVec3::new(0.0, 0.0, 0.67)),
        ),
        ("shoulder", DAffine3::from_quat(x90)),
        (
            "upper",
            DAffine3::from_translation(DVec3::new(0.43, 0.0, 0.15)),
        ),
        (
            "fore",
            DAffine3::from_rotation_translation(x90, DVec3::new(0.02, -0.43, 0.0)),
        ),
        ("wrist", DAffine3::from_quat(x90.inverse())),
        ("flange", DAffine3::from_quat(x90)),
    ];
    let specs = links
        .iter()
        .enumerate()
        .map(|(i, (name, origin))| {
            let parent = (i > 0).then(|| links[i - 1].0);
            LinkSpec::new(*name, parent)
                .with_joint(Joint::revolute(format!("j{}", i + 1), DVec3::Z, -2.8, 2.8))
                .with_origin(*origin)
        })
        .collect();
    KinematicTree::new(specs).expect("valid arm")
}

/// The 8 corners of a box `[-h, h] + c` per link.
fn corners() -> Vec<Vec<DVec3>> {
    (0..6u8)
        .map(|i| {
            let h = DVec3::new(0.2, 0.08, 0.08) * (1.0 - 0.1 * f64::from(i));
            let c = DVec3::new(0.15, 0.0, 0.0);
            (0..8)
                .map(|k| {
                    let s = DVec3::new(
                        if k & 1 == 0 { -1.0 } else { 1.0 },
                        if k & 2 == 0 { -1.0 } else { 1.0 },
                        if k & 4 == 0 { -1.0 } else { 1.0 },
                    );
                    c + h * s
                })
                .collect()
        })
        .collect()
}

fn bounds(c: &mut Criterion) {
    let tree = arm();
    let points = corners();
    let qa = [0.1, -0.4, 0.3, 0.2, -0.5, 0.6];
    let qb = [0.6, 0.1, -0.2, 0.7, 0.0, 1.1];
    let lambda = CurveLengthBounds::new(&tree, &points).expect("valid points");
    let mu = MotionBounds::new(&tree, &points).expect("valid points");
    let motion = InBetweenMotion::new(&tree, &qa, &qb).expect("valid configurations");
    let n = DVec3::new(0.3, -0.5, 0.8).normalize();
    let mut poses = vec![DAffine3::IDENTITY; tree.len()];
    let mut all = vec![0.0; tree.len()];

    let mut g = c.benchmark_group("kinematics_bounds_6dof");
    g.bench_function("baseline_forward_kinematics", |z| {
        z.iter(|| {
            tree.forward_kinematics(black_box(&qa), &mut poses)
                .expect("valid")
        })
    });
    g.bench_function("lambda_link6", |z| {
        z.iter(|| {
            lambda
                .lambda(5, black_box(&qa), black_box(&qb))
                .expect("valid")
        })
    });
    g.bench_function("lambda_all_links", |z| {
        z.iter(|| {
            lambda
                .lambda_all(black_box(&qa), black_box(&qb), &mut all)
                .expect("valid")
        })
    });
    g.bench_function("lambda_relative_link6_link2", |z| {
        z.iter(|| {
            lambda
                .lambda_relative(5, 1, black_box(&qa), black_box(&qb))
                .expect("valid")
        })
    });
    g.bench_function("mu_link6", |z| {
        z.iter(|| mu.mu(black_box(&motion), 5, black_box(0.3)).expect("valid"))
    });
    g.bench_function("mu_projected_link6", |z| {
        z.iter(|| {
            mu.mu_projected(black_box(&motion), 5, black_box(0.3), black_box(n))
                .expect("valid")
        })
    });
    g.bench_function("mu_relative_projected_link6_link2", |z| {
        z.iter(|| {
            mu.mu_relative_projected(black_box(&motion), 5, 1, black_box(0.3), black_box(n))
                .expect("valid")
        })
    });
    g.finish();
}

criterion_group!(benches, bounds);
criterion_main!(benches);
