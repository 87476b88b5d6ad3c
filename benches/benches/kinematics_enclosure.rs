//! Pose enclosures of every link of a 15-link revolute chain over
//! `t ∈ [0, 1]`: interval (M1 §4.1) against Taylor (M4 §5.2), the poses
//! alone and with the dynamic AABB of each link's box; one query per
//! iteration, reported per query.

use armature_interval_taylor::{IntervalAffine3, IntervalVec3, TaylorAffine3, TimeDomain};
use armature_kinematics::{
    EnclosureKind, EnclosureWorkspace, InBetweenMotion, Joint, JointType, KinematicTree, LinkObb,
    LinkSpec,
};
use criterion::{Criterion, criterion_group, criterion_main};
use glam::{DAffine3, DMat3, DVec3};
use std::hint::black_box;

const LINKS: usize = 15;

/// A chain of revolute joints about fixed pseudo-random axes, 0.3 apart,
/// each swinging 15° from a pseudo-random start.
fn chain() -> (KinematicTree, InBetweenMotion) {
    let specs = (0..LINKS)
        .map(|i| {
            let f = i as f64;
            let axis = DVec3::new((1.3 * f).sin(), (2.1 * f + 0.5).cos(), 0.7);
            let origin = if i == 0 {
                DAffine3::IDENTITY
            } else {
                DAffine3::from_translation(DVec3::new(0.3, 0.0, 0.0))
            };
            LinkSpec::new(
                format!("link{i}"),
                (i > 0).then(|| format!("link{}", i - 1)).as_deref(),
            )
            .with_joint(Joint::new(
                format!("joint{i}"),
                JointType::Revolute { axis },
            ))
            .with_origin(origin)
        })
        .collect();
    let tree = KinematicTree::new(specs).expect("valid chain");
    let q0: Vec<f64> = (0..LINKS).map(|i| (0.7 * i as f64).sin()).collect();
    let q1: Vec<f64> = q0.iter().map(|q| q + 15f64.to_radians()).collect();
    let motion = InBetweenMotion::new(&tree, &q0, &q1).expect("valid motion");
    (tree, motion)
}

fn enclosures(c: &mut Criterion) {
    let (_tree, motion) = chain();
    let obb = LinkObb::new(
        DVec3::new(0.15, 0.0, 0.0),
        DVec3::new(0.15, 0.025, 0.025),
        DMat3::IDENTITY,
    )
    .expect("finite box");
    let obbs = [obb; LINKS];
    let mut g = c.benchmark_group("kinematics_enclosure_chain15");

    let mut ia = vec![IntervalAffine3::IDENTITY; LINKS];
    g.bench_function("interval_poses", |z| {
        z.iter(|| {
            motion
                .enclose_interval_into(black_box(0.0), black_box(1.0), &mut ia)
                .expect("valid query");
            black_box(&ia);
        })
    });
    let mut tm = vec![TaylorAffine3::identity(TimeDomain::unit()); LINKS];
    g.bench_function("taylor_poses", |z| {
        z.iter(|| {
            motion
                .enclose_taylor_into(black_box(0.0), black_box(1.0), &mut tm)
                .expect("valid query");
            black_box(&tm);
        })
    });

    let mut ws = EnclosureWorkspace::with_links(LINKS);
    let mut boxes = [IntervalVec3::ZERO; LINKS];
    for (name, kind) in [
        ("interval_poses_and_obb_aabbs", EnclosureKind::Interval),
        ("taylor_poses_and_obb_aabbs", EnclosureKind::Taylor),
    ] {
        g.bench_function(name, |z| {
            z.iter(|| {
                ws.in_between(&motion, kind, black_box(0.0), black_box(1.0))
                    .and_then(|e| e.obb_aabbs_into(&obbs, &mut boxes))
                    .expect("valid query");
                black_box(&boxes);
            })
        });
    }
    g.finish();
}

criterion_group!(benches, enclosures);
criterion_main!(benches);
