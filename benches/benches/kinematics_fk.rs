//! Forward kinematics into a caller-owned pose buffer: the 6-DOF Puma 560
//! (7 links) and a 40-DOF humanoid-like tree (43 links), plus the point
//! Jacobian of the Puma's flange.

use armature_kinematics::{Joint, KinematicTree, LinkSpec};
use core::f64::consts::{FRAC_PI_2, PI};
use criterion::{Criterion, criterion_group, criterion_main};
use glam::{DAffine3, DVec3};
use std::hint::black_box;

/// The Puma 560 from its standard DH table: row `i`'s constant part
/// `Tz(d) · Tx(a) · Rx(α)` is the origin of link `i + 1`; a fixed flange
/// carries the last row's.
fn puma() -> KinematicTree {
    const DH: [(f64, f64, f64); 6] = [
        (0.67183, 0.0, FRAC_PI_2),
        (0.0, 0.4318, 0.0),
        (0.15005, 0.0203, -FRAC_PI_2),
        (0.4318, 0.0, FRAC_PI_2),
        (0.0, 0.0, -FRAC_PI_2),
        (0.0, 0.0, 0.0),
    ];
    let row = |(d, a, alpha): (f64, f64, f64)| {
        DAffine3::from_translation(DVec3::new(a, 0.0, d)) * DAffine3::from_rotation_x(alpha)
    };
    let mut specs = Vec::new();
    for i in 0..6 {
        let parent = (i > 0).then(|| format!("link{i}"));
        let origin = if i == 0 {
            DAffine3::IDENTITY
        } else {
            row(DH[i - 1])
        };
        specs.push(
            LinkSpec::new(format!("link{}", i + 1), parent.as_deref())
                .with_joint(Joint::revolute(
                    format!("joint{}", i + 1),
                    DVec3::Z,
                    -PI,
                    PI,
                ))
                .with_origin(origin),
        );
    }
    specs.push(LinkSpec::new("flange", Some("link6")).with_origin(row(DH[5])));
    KinematicTree::new(specs).expect("valid Puma")
}

/// A humanoid-like tree of 40 revolute joints on a fixed pelvis: a spine
/// of 3, a head of 3, two arms of 7 each ending in a hand with three
/// one-joint fingers, and two legs of 7; axes cycle through x, y, z.
fn humanoid() -> KinematicTree {
    let mut specs = vec![LinkSpec::new("pelvis", None)];
    let axes = [DVec3::X, DVec3::Y, DVec3::Z];
    let chain = |specs: &mut Vec<LinkSpec>, parent: &str, name: &str, n: usize, step: DVec3| {
        let mut parent = parent.to_owned();
        for k in 0..n {
            let link = format!("{name}{k}");
            specs.push(
                LinkSpec::new(link.clone(), Some(&parent))
                    .with_joint(Joint::revolute(link.clone(), axes[k % 3], -2.0, 2.0))
                    .with_origin(DAffine3::from_translation(step)),
            );
            parent = link;
        }
        parent
    };
    let chest = chain(&mut specs, "pelvis", "spine", 3, DVec3::new(0.0, 0.0, 0.12));
    chain(&mut specs, &chest, "head", 3, DVec3::new(0.0, 0.0, 0.08));
    for (side, y) in [("l", 1.0), ("r", -1.0)] {
        let hand = chain(
            &mut specs,
            &chest,
            &format!("{side}_arm"),
            7,
            DVec3::new(0.0, 0.09 * y, 0.0),
        );
        for f in 0..3 {
            chain(
                &mut specs,
                &hand,
                &format!("{side}_finger{f}_"),
                1,
                DVec3::new(0.05, 0.01 * (f64::from(f) - 1.0), 0.0),
            );
        }
        let hip = LinkSpec::new(format!("{side}_hip"), Some("pelvis"))
            .with_origin(DAffine3::from_translation(DVec3::new(0.0, 0.1 * y, -0.05)));
        specs.push(hip);
        chain(
            &mut specs,
            &format!("{side}_hip"),
            &format!("{side}_leg"),
            7,
            DVec3::new(0.0, 0.0, -0.06),
        );
    }
    let tree = KinematicTree::new(specs).expect("valid humanoid");
    assert_eq!((tree.len(), tree.dof()), (43, 40));
    tree
}

/// A fixed, joint-limited pseudo-random configuration.
fn configuration(tree: &KinematicTree) -> Vec<f64> {
    (0..tree.nq())
        .map(|k| 0.9 * (1.7 * k as f64 + 0.3).sin())
        .collect()
}

fn kinematics_fk(c: &mut Criterion) {
    let mut g = c.benchmark_group("kinematics_fk");
    for (name, tree) in [("puma_6dof", puma()), ("humanoid_40dof", humanoid())] {
        let q = configuration(&tree);
        let mut poses = vec![DAffine3::IDENTITY; tree.len()];
        g.bench_function(name, |b| {
            b.iter(|| {
                tree.forward_kinematics(black_box(&q), black_box(&mut poses))
                    .expect("valid configuration");
            });
        });
    }
    let tree = puma();
    let q = configuration(&tree);
    let poses = tree.poses(&q).expect("valid configuration");
    let flange = tree.link_index("flange").expect("flange");
    let mut jac = vec![DVec3::ZERO; tree.dof()];
    g.bench_function("puma_point_jacobian", |b| {
        b.iter(|| {
            tree.point_jacobian(
                black_box(&q),
                black_box(&poses),
                flange,
                DVec3::new(0.0, 0.0, 0.05),
                black_box(&mut jac),
            )
            .expect("valid inputs");
        });
    });
    g.finish();
}

criterion_group!(benches, kinematics_fk);
criterion_main!(benches);
