//! The checker's shortcuts answer as the plain queries.
//!
//! - A pair of links found apart is answered apart again, with no test,
//!   while the joints between its links keep their values (the checker's
//!   records): the answers must be those of checks that test every pair,
//!   on random walks through the configurations of a branching model and a
//!   second robot, where links of one finger, of two fingers and of the
//!   two robots collide often.
//!   The same holds for a link and an obstacle while the joints from the
//!   link's root keep their values.
//! - The nearest contacts, found with the descent cut at the farthest of
//!   those known, are the first of all the contacts; and all the contacts
//!   are every triangle pair within the tolerance (brute force over every
//!   triangle pair of every tested pair: the descent's box tests and its
//!   start below an obstacle's top boxes only skip pairs farther away).

mod common;

use std::f64::consts::PI;
use std::sync::Arc;

use armature_bvh_geometry::query::{closest_points_triangle_triangle, relative_pose};
use armature_bvh_geometry::{ArticulatedBody, DisabledPairs, Obstacle};
use armature_conservative_advance::Other;
use armature_kinematics::{Joint, JointType, KinematicTree, LinkSpec};
use armature_penetration_depth::{CheckWorkspace, Checker};
use common::{Rng, cuboid};
use glam::{DAffine3, DQuat, DVec3};
use proptest::prelude::*;

/// A palm on a floating joint with two three-link fingers side by side,
/// and a second robot: a floating block with one revolute paddle.
fn hand_and_block() -> ArticulatedBody {
    let phalanx = || {
        Arc::new(cuboid(
            DVec3::new(0.12, 0.03, 0.03),
            DVec3::new(0.06, 0.0, 0.0),
        ))
    };
    let mut specs =
        vec![LinkSpec::new("palm", None).with_joint(Joint::new("p", JointType::Floating))];
    let mut meshes = vec![Some(Arc::new(cuboid(
        DVec3::new(0.2, 0.12, 0.04),
        DVec3::ZERO,
    )))];
    for (f, y) in [("a", 0.015), ("b", -0.015)] {
        let names = [format!("{f}1"), format!("{f}2"), format!("{f}3")];
        specs.push(
            LinkSpec::new(names[0].as_str(), Some("palm"))
                .with_origin(DAffine3::from_translation(DVec3::new(0.1, y, 0.0)))
                .with_joint(Joint::revolute(format!("j{f}1"), DVec3::Z, -2.5, 2.5)),
        );
        for k in 1..3 {
            specs.push(
                LinkSpec::new(names[k].as_str(), Some(names[k - 1].as_str()))
                    .with_origin(DAffine3::from_translation(DVec3::new(0.12, 0.0, 0.0)))
                    .with_joint(Joint::revolute(
                        format!("j{f}{}", k + 1),
                        DVec3::Y,
                        -2.5,
                        2.5,
                    )),
            );
        }
        meshes.extend([Some(phalanx()), Some(phalanx()), Some(phalanx())]);
    }
    specs.push(LinkSpec::new("block", None).with_joint(Joint::new("b", JointType::Floating)));
    specs.push(
        LinkSpec::new("paddle", Some("block")).with_joint(Joint::revolute("jp", DVec3::X, -PI, PI)),
    );
    meshes.push(Some(Arc::new(cuboid(DVec3::splat(0.08), DVec3::ZERO))));
    meshes.push(Some(Arc::new(cuboid(
        DVec3::new(0.02, 0.2, 0.02),
        DVec3::new(0.0, 0.1, 0.0),
    ))));
    let tree = KinematicTree::new(specs).unwrap();
    ArticulatedBody::new("hand_and_block", tree, meshes).unwrap()
}

/// A random pose of a floating joint near `centre`: position, then the
/// quaternion's x, y, z, w.
fn floating(rng: &mut Rng, centre: DVec3) -> [f64; 7] {
    let p = centre
        + DVec3::new(
            rng.uniform(-0.1, 0.1),
            rng.uniform(-0.1, 0.1),
            rng.uniform(-0.1, 0.1),
        );
    let r = DQuat::from_euler(
        glam::EulerRot::XYZ,
        rng.uniform(-PI, PI),
        rng.uniform(-1.0, 1.0),
        rng.uniform(-PI, PI),
    );
    [p.x, p.y, p.z, r.x, r.y, r.z, r.w]
}

/// One step of the walk: a revolute joint, a base pose (the relative poses
/// of one robot's links unchanged), or an earlier configuration again.
fn step(rng: &mut Rng, tree: &KinematicTree, q: &mut [f64], seen: &[Vec<f64>]) {
    match rng.below(6) {
        0 if !seen.is_empty() => q.copy_from_slice(&seen[rng.below(seen.len())]),
        1 => {
            let base = tree.link_index("palm").unwrap();
            q[tree.q_range(base)].copy_from_slice(&floating(rng, DVec3::ZERO));
        }
        2 => {
            let base = tree.link_index("block").unwrap();
            q[tree.q_range(base)].copy_from_slice(&floating(rng, DVec3::new(0.3, 0.0, 0.0)));
        }
        _ => {
            let revolute: Vec<usize> = (0..tree.len())
                .filter(|&i| tree.q_range(i).len() == 1)
                .collect();
            let i = revolute[rng.below(revolute.len())];
            q[tree.q_range(i).start] = rng.uniform(-2.5, 2.5);
        }
    }
}

/// A slab under the hand.
fn slab() -> [Obstacle; 1] {
    [Obstacle::fixed(
        "slab",
        Arc::new(cuboid(DVec3::new(0.6, 0.6, 0.05), DVec3::ZERO)),
        DAffine3::from_translation(DVec3::new(0.1, 0.0, -0.12)),
    )
    .unwrap()]
}

/// A random start: the palm near the origin, the block beside it, every
/// revolute joint at 0.
fn start(rng: &mut Rng, tree: &KinematicTree) -> Vec<f64> {
    let mut q = tree.neutral_configuration();
    let palm = tree.link_index("palm").unwrap();
    let block = tree.link_index("block").unwrap();
    q[tree.q_range(palm)].copy_from_slice(&floating(rng, DVec3::ZERO));
    q[tree.q_range(block)].copy_from_slice(&floating(rng, DVec3::new(0.3, 0.0, 0.0)));
    q
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// `overlapping_pairs` and `first_overlap` with the records answer as
    /// with every pair tested, along random walks.
    #[test]
    fn records_answer_as_every_pair_tested(seed in any::<u64>()) {
        let body = hand_and_block();
        let tree = body.tree();
        let obstacles = slab();
        let checker = Checker::new(&body, &obstacles, &DisabledPairs::new(), true, true).unwrap();
        let mut reuse = CheckWorkspace::new();
        let mut fresh = CheckWorkspace::new();
        fresh.set_reuse_apart_pairs(false);
        let mut rng = Rng(seed);
        let mut q = start(&mut rng, tree);
        let mut seen: Vec<Vec<f64>> = Vec::new();
        let (mut with, mut without) = (Vec::new(), Vec::new());
        let mut link_overlaps = 0;
        for _ in 0..80 {
            step(&mut rng, tree, &mut q, &seen);
            seen.push(q.clone());
            checker.overlapping_pairs(&q, &mut with, &mut reuse).unwrap();
            checker.overlapping_pairs(&q, &mut without, &mut fresh).unwrap();
            prop_assert_eq!(&with, &without, "q = {:?}", q);
            link_overlaps += with
                .iter()
                .filter(|(_, o)| matches!(o, Other::Link(_)))
                .count();
            let a = checker.first_overlap(&q, |_, _| true, &mut reuse).unwrap();
            let b = checker.first_overlap(&q, |_, _| true, &mut fresh).unwrap();
            prop_assert_eq!(a, b, "q = {:?}", q);
        }
        prop_assert!(link_overlaps > 0, "no pair of links ever overlapped");
        prop_assert!(reuse.reused_apart_pairs() > 0, "no record was ever used");
        prop_assert_eq!(fresh.reused_apart_pairs(), 0);
    }
}

/// One workspace used by two checkers in turn: each checker's records are
/// its own (the second starts afresh), so answers stay those of fresh
/// checks.
#[test]
fn a_workspace_passed_between_checkers_keeps_their_records_apart() {
    let body = hand_and_block();
    let tree = body.tree();
    let disabled = DisabledPairs::new();
    let no_obstacles: [Obstacle; 0] = [];
    let with_self = Checker::new(&body, &no_obstacles, &disabled, true, true).unwrap();
    let with_adjacent = Checker::new(&body, &no_obstacles, &disabled, true, false).unwrap();
    let mut shared = CheckWorkspace::new();
    let mut fresh = CheckWorkspace::new();
    fresh.set_reuse_apart_pairs(false);
    let mut rng = Rng(7);
    let mut q = start(&mut rng, tree);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut seen = Vec::new();
    for k in 0..200 {
        step(&mut rng, tree, &mut q, &seen);
        seen.push(q.clone());
        let checker = if k % 2 == 0 {
            &with_self
        } else {
            &with_adjacent
        };
        checker.overlapping_pairs(&q, &mut a, &mut shared).unwrap();
        checker.overlapping_pairs(&q, &mut b, &mut fresh).unwrap();
        assert_eq!(a, b, "step {k}, q = {q:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// `contacts` finds every triangle pair within the tolerance and no
    /// other (against brute force), and `nearest_contacts` with a limit is
    /// `contacts` cut to the limit, bit for bit and in the same order, at
    /// random configurations where many pairs are within the tolerance.
    #[test]
    fn nearest_contacts_are_the_first_contacts(seed in any::<u64>(), tolerance in 0.0f64..0.05) {
        let body = hand_and_block();
        let tree = body.tree();
        let obstacles = slab();
        let checker = Checker::new(&body, &obstacles, &DisabledPairs::new(), true, true).unwrap();
        let mut ws = CheckWorkspace::new();
        let mut rng = Rng(seed);
        let mut q = start(&mut rng, tree);
        let (mut all, mut first) = (Vec::new(), Vec::new());
        let (mut cut, mut found) = (0, 0);
        for _ in 0..12 {
            step(&mut rng, tree, &mut q, &[]);
            checker.contacts(&q, tolerance, &mut all, &mut ws).unwrap();
            let want = brute_force_contacts(&checker, &q, tolerance);
            let mut got: Vec<ContactKey> = all
                .iter()
                .map(|c| {
                    let key = match c.other {
                        Other::Link(j) => (1, j),
                        Other::Obstacle(o) => (0, o),
                    };
                    (c.link, key, c.triangle_a, c.triangle_b, c.distance)
                })
                .collect();
            got.sort_by_key(|x| (x.0, x.1, x.2, x.3));
            prop_assert_eq!(got.len(), want.len(), "q = {:?}", q);
            for (g, w) in got.iter().zip(&want) {
                prop_assert_eq!((g.0, g.1, g.2, g.3), (w.0, w.1, w.2, w.3), "q = {:?}", q);
                prop_assert!((g.4 - w.4).abs() <= 1e-12, "q = {:?}: {} against {}", q, g.4, w.4);
            }
            found += want.len();
            for limit in [1, 2, 7, 40, usize::MAX] {
                checker.nearest_contacts(&q, tolerance, limit, &mut first, &mut ws).unwrap();
                let want = &all[..all.len().min(limit)];
                cut += usize::from(all.len() > limit);
                prop_assert_eq!(first.len(), want.len(), "q = {:?}, limit {}", q, limit);
                for (x, y) in first.iter().zip(want) {
                    prop_assert_eq!((x.link, x.other, x.triangle_a, x.triangle_b), (y.link, y.other, y.triangle_a, y.triangle_b), "q = {:?}, limit {}", q, limit);
                    prop_assert_eq!(x.distance.to_bits(), y.distance.to_bits());
                    prop_assert_eq!(x.point_a, y.point_a);
                    prop_assert_eq!(x.normal, y.normal);
                }
            }
        }
        prop_assert!(cut > 0, "no limit ever cut the contacts");
        prop_assert!(found > 0, "no contact within the tolerance");
    }
}

/// A contact as compared: the link, the other (`(0, obstacle)` or `(1,
/// link)`), the two triangles, the distance.
type ContactKey = (usize, (u8, usize), u32, u32, f64);

/// Every triangle pair of every tested pair within `tolerance` at `q`, by
/// brute force: `(link, other, triangle of the link, triangle of the
/// other, distance)`, sorted.
fn brute_force_contacts(checker: &Checker<'_>, q: &[f64], tolerance: f64) -> Vec<ContactKey> {
    let body = checker.body();
    let poses = body.tree().poses(q).unwrap();
    let mut out = Vec::new();
    for &(link, other) in checker.pairs() {
        let Some(a) = body.links()[link].as_ref() else {
            continue;
        };
        let (b, pose_b, key) = match other {
            Other::Link(j) => match body.links()[j].as_ref() {
                Some(g) => (g, poses[j], (1, j)),
                None => continue,
            },
            Other::Obstacle(o) => {
                let ob = &checker.obstacles()[o];
                (ob.geometry(), ob.pose_at(0.0), (0, o))
            }
        };
        let rel = relative_pose(&poses[link], &pose_b);
        for x in 0..a.mesh.num_triangles() {
            let tri_a = a.mesh.triangle(x);
            for y in 0..b.mesh.num_triangles() {
                let tri_b = b.mesh.triangle(y).map(|p| rel.transform_point3(p));
                let d = closest_points_triangle_triangle(&tri_a, &tri_b).distance;
                if d <= tolerance {
                    out.push((link, key, x as u32, y as u32, d));
                }
            }
        }
    }
    out.sort_by_key(|x| (x.0, x.1, x.2, x.3));
    out
}
