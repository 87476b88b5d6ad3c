//! Single behaviours: typed errors for bad input, containment at the ends,
//! the clearance, the pre-pass, the REFINED variant, and the
//! fixed-resolution baseline missing what adaptive bisection finds.

mod common;

use std::sync::Arc;

use armature_adaptive_bisection::{BisectionError, CheckOptions, Object, PathChecker, PathStatus};
use armature_bvh_geometry::{ArticulatedBody, DisabledPairs, Obstacle};
use armature_kinematics::{Joint, KinematicTree, KinematicsError, LinkSpec};
use common::{arm, beam, cuboid, first_colliding_sample, thin_obstacles};
use glam::{DAffine3, DVec3};

fn checker<'a>(
    body: &'a ArticulatedBody,
    obstacles: &'a [Obstacle],
    options: &CheckOptions,
) -> PathChecker<'a> {
    PathChecker::new(body, obstacles, &DisabledPairs::new(), options).unwrap()
}

#[test]
fn bad_input_is_a_typed_error_naming_it() {
    let body = arm();
    let obstacles = thin_obstacles();
    let mut c = checker(&body, &obstacles, &CheckOptions::default());
    let good = [0.0, 0.0, 0.0];
    match c.check_path(&[&good[..], &[0.0, 0.0][..]]) {
        Err(BisectionError::Waypoint {
            index: 1,
            source:
                KinematicsError::ConfigLength {
                    expected: 3,
                    got: 2,
                },
        }) => {}
        other => panic!("wrong length: {other:?}"),
    }
    match c.check_path(&[&good[..], &good[..], &[0.0, f64::NAN, 0.0][..]]) {
        Err(BisectionError::Waypoint {
            index: 2,
            source: KinematicsError::ConfigNotFinite { index: 1, .. },
        }) => {}
        other => panic!("NaN: {other:?}"),
    }
    assert!(matches!(
        c.check_path(&[&good[..]]),
        Err(BisectionError::TooFewWaypoints { got: 1 })
    ));
    let none: [&[f64]; 0] = [];
    assert!(matches!(
        c.check_path(&none),
        Err(BisectionError::TooFewWaypoints { got: 0 })
    ));
    assert!(matches!(
        c.first_collision(&good, &[f64::INFINITY, 0.0, 0.0]),
        Err(BisectionError::Waypoint { index: 1, .. })
    ));
    assert!(matches!(
        c.check_path_fixed_resolution(&[&good[..], &good[..]], 0.0),
        Err(BisectionError::InvalidOption {
            name: "resolution",
            ..
        })
    ));
    assert!(matches!(
        c.check_path_fixed_resolution(&[&good[..], &good[..]], f64::NAN),
        Err(BisectionError::InvalidOption {
            name: "resolution",
            ..
        })
    ));
    for eps in [-1e-3, f64::NAN, f64::INFINITY] {
        let e = PathChecker::new(
            &body,
            &obstacles,
            &DisabledPairs::new(),
            &CheckOptions::default().with_clearance(eps),
        )
        .unwrap_err();
        assert!(
            matches!(
                e,
                BisectionError::InvalidOption {
                    name: "clearance",
                    ..
                }
            ),
            "{e}"
        );
        assert!(e.to_string().contains("clearance"));
    }
    let moving = [Obstacle::moving(
        "cart",
        cuboid(DVec3::splat(0.1), DVec3::ZERO),
        DAffine3::IDENTITY,
        DAffine3::from_translation(DVec3::X),
    )
    .unwrap()];
    match PathChecker::new(
        &body,
        &moving,
        &DisabledPairs::new(),
        &CheckOptions::default(),
    ) {
        Err(BisectionError::MovingObstacle { name }) => assert_eq!(name, "cart"),
        other => panic!("moving obstacle: {other:?}"),
    }
}

/// A link wholly inside a closed obstacle touches no triangle: the end
/// containment test still reports it.
#[test]
fn link_inside_a_closed_obstacle_is_a_collision() {
    let tree = KinematicTree::new(vec![
        LinkSpec::new("slider", None).with_joint(Joint::prismatic("x", DVec3::X, -5.0, 5.0)),
    ])
    .unwrap();
    let body = ArticulatedBody::new("s", tree, vec![Some(beam(0.2, 0.05))]).unwrap();
    let hall = [Obstacle::fixed(
        "hall",
        cuboid(DVec3::splat(1.0), DVec3::ZERO),
        DAffine3::IDENTITY,
    )
    .unwrap()];
    let mut c = checker(&body, &hall, &CheckOptions::default());
    // Inside all along: the probe's swept pieces prove the link far from
    // the hall's walls everywhere, and the containment test of the pair
    // they drop reports it at the start.
    let r = c.check_segment(&[-0.2], &[0.1]).unwrap();
    assert_eq!(r.status, PathStatus::Collides);
    assert_eq!(
        r.collision.map(|c| (c.s, c.other)),
        Some((0.0, Object::Obstacle(0)))
    );
    assert_eq!(r.certified_free_prefix, (0, 0.0));
    // Entering from outside: the wall is crossed.
    let r = c.check_segment(&[2.0], &[0.0]).unwrap();
    assert_eq!(r.status, PathStatus::Collides);
    let walk = c.first_collision(&[2.0], &[0.0]).unwrap();
    assert_eq!(walk.status, PathStatus::Collides);
    // The wall at x = 0.5 is met when the slider's origin reaches 0.5.
    assert!(walk.certified_free_prefix > 0.5 && walk.certified_free_prefix <= 0.75);
    let walk = c.first_collision(&[0.1], &[2.0]).unwrap();
    assert_eq!(walk.certified_free_prefix, 0.0);
    // Outside all along.
    assert_eq!(
        c.check_segment(&[2.0], &[3.0]).unwrap().status,
        PathStatus::Free
    );
}

/// The clearance: a pass 5 cm from the plate is free at ε = 0 and
/// reported as a collision at ε = 0.1.
#[test]
fn clearance_reports_near_misses() {
    let tree = KinematicTree::new(vec![
        LinkSpec::new("beam", None).with_joint(Joint::revolute("j", DVec3::Z, -4.0, 4.0)),
    ])
    .unwrap();
    let body = ArticulatedBody::new("b", tree, vec![Some(beam(1.0, 0.1))]).unwrap();
    // The plate's near face is at x = 1.055; the beam's corners reach
    // √(1 + 0.05²) ≈ 1.00125 m from the axis: a gap of about 5 cm.
    let plate = [Obstacle::fixed(
        "plate",
        cuboid(DVec3::new(0.01, 0.4, 0.4), DVec3::ZERO),
        DAffine3::from_translation(DVec3::new(1.06, 0.0, 0.0)),
    )
    .unwrap()];
    let (qa, qb) = ([-1.0], [1.0]);
    assert!(first_colliding_sample(&body, &plate, true, &qa, &qb).is_none());
    let mut exact = checker(&body, &plate, &CheckOptions::default());
    assert_eq!(
        exact.check_segment(&qa, &qb).unwrap().status,
        PathStatus::Free
    );
    let mut coarse = checker(&body, &plate, &CheckOptions::default().with_clearance(0.1));
    let r = coarse.check_segment(&qa, &qb).unwrap();
    assert_eq!(r.status, PathStatus::Collides);
    // Fewer pops than the exact check needs to prove it free.
    let e = exact.check_segment(&[-1.0], &[1.0 - 1e-3]).unwrap();
    assert!(r.stats.queue_pops <= e.stats.queue_pops);
}

/// The pre-pass drops pairs whose swept spheres never meet; shared
/// forward kinematics evaluates each configuration once; pairs the probe
/// never tested on their meshes wait while the others find the collision.
#[test]
fn prepass_and_shared_kinematics() {
    let body = arm();
    let obstacles = thin_obstacles();
    let mut c = checker(&body, &obstacles, &CheckOptions::default());
    // Three links × three obstacles + (l1, l3).
    assert_eq!(c.pair_count(), 10);
    let r = c
        .check_segment(&[0.0, 0.0, 0.0], &[0.05, 0.0, 0.0])
        .unwrap();
    assert_eq!(r.status, PathStatus::Free);
    assert_eq!(r.stats.pairs, 10);
    assert!(r.stats.pairs_after_prepass < r.stats.pairs, "{:?}", r.stats);
    // Into the rod, between the probes: bisection, with far fewer
    // kinematics evaluations than pairs × configurations.
    let (qa, qb) = common::ROD_TURN;
    common::probes_miss(&body, &obstacles, &qa, &qb);
    let r = c.check_segment(&qa, &qb).unwrap();
    assert_eq!(r.status, PathStatus::Collides);
    assert!(r.stats.queue_pops > 0, "{:?}", r.stats);
    // The ends and at most 63 probes (31 on five levels, 32 on the
    // sixth for the link–obstacle pairs tested on their meshes), then at
    // most one configuration per pop.
    assert!(
        r.stats.forward_kinematics <= r.stats.queue_pops + 65,
        "{:?}",
        r.stats
    );
    // The pairs the probe never tested on their meshes wait: the
    // collision is found before every pair gets its bounds at the centre
    // and both ends.
    assert!(
        r.stats.greedy_calls < 3 * r.stats.pairs_after_prepass as u64,
        "{:?}",
        r.stats
    );
}

/// A crossing of the rod that falls between the probes of the five full
/// levels is found by the sixth, which the probe adds for the pairs it
/// tested on their meshes when the sweep asks for it: no distance query.
#[test]
fn the_sixth_probe_level_finds_a_short_crossing() {
    let body = arm();
    let obstacles = thin_obstacles();
    let (qa, qb) = common::ROD_TURN_COARSE;
    common::samples_miss(&body, &obstacles, &qa, &qb, 32);
    let r = checker(&body, &obstacles, &CheckOptions::default())
        .check_segment(&qa, &qb)
        .unwrap();
    assert_eq!(r.status, PathStatus::Collides);
    assert_eq!(r.stats.queue_pops, 0, "{:?}", r.stats);
    assert_eq!(r.stats.greedy_calls, 0, "{:?}", r.stats);
    let at = r.collision.unwrap();
    assert_eq!(at.other, Object::Obstacle(1), "{at:?}");
    assert_eq!((at.s * 64.0).fract(), 0.0, "{at:?}");
    assert_eq!((at.s * 64.0) as u32 % 2, 1, "{at:?}");
}

/// The REFINED variant: the near miss is free at ε = 0 and a collision at
/// ε = 0.1, the sweep through the plate collides, as with the plain
/// variant; only the refined one queues pairs of volumes.
#[test]
fn refined_variant_agrees_and_splits_volumes() {
    let tree = KinematicTree::new(vec![
        LinkSpec::new("beam", None).with_joint(Joint::revolute("j", DVec3::Z, -4.0, 4.0)),
    ])
    .unwrap();
    let body = ArticulatedBody::new("b", tree, vec![Some(beam(1.0, 0.1))]).unwrap();
    let plate = [Obstacle::fixed(
        "plate",
        cuboid(DVec3::new(0.01, 0.4, 0.4), DVec3::ZERO),
        DAffine3::from_translation(DVec3::new(1.06, 0.0, 0.0)),
    )
    .unwrap()];
    let refined = CheckOptions::default().with_refined(true);
    let (qa, qb) = ([-1.0], [1.0]);
    let r = checker(&body, &plate, &refined)
        .check_segment(&qa, &qb)
        .unwrap();
    assert_eq!(r.status, PathStatus::Free);
    assert!(r.stats.bv_pairs > 0, "{:?}", r.stats);
    let plain = checker(&body, &plate, &CheckOptions::default())
        .check_segment(&qa, &qb)
        .unwrap();
    assert_eq!(plain.stats.bv_pairs, 0);
    let coarse = checker(&body, &plate, &refined.with_clearance(0.1))
        .check_segment(&qa, &qb)
        .unwrap();
    assert_eq!(coarse.status, PathStatus::Collides);

    // A sweep into the rod, in collision at none of the probes, so the
    // collision is searched for.
    let arm = arm();
    let obstacles = thin_obstacles();
    let (qa, qb) = common::ROD_TURN;
    common::probes_miss(&arm, &obstacles, &qa, &qb);
    let k = first_colliding_sample(&arm, &obstacles, true, &qa, &qb).unwrap();
    let r = checker(&arm, &obstacles, &refined.with_locate_first_collision(true))
        .check_segment(&qa, &qb)
        .unwrap();
    assert_eq!(r.status, PathStatus::Collides);
    assert!(r.stats.bv_pairs > 0, "{:?}", r.stats);
    let (seg, s) = r.certified_free_prefix;
    assert_eq!(seg, 0);
    assert!(s <= k as f64 / common::SAMPLES as f64, "prefix {s}");
}

/// A thin plate the arm's tip sweeps past quickly: a coarse fixed
/// resolution steps over it, adaptive bisection does not; a fine one finds
/// it too. Fixed resolution certifies nothing.
#[test]
fn fixed_resolution_can_miss_what_adaptive_finds() {
    let body = arm();
    let plate = [Obstacle::fixed(
        "plate",
        Arc::new(
            armature_bvh_geometry::Tessellation::default()
                .cuboid(DVec3::new(0.002, 0.3, 0.3))
                .unwrap(),
        ),
        DAffine3::from_translation(DVec3::new(1.8, 0.0, 0.0)),
    )
    .unwrap()];
    // Sweep 75° past the plate: the samples at s = ¼, ½, ¾ all miss it.
    let waypoints: [&[f64]; 2] = [&[-0.5, 0.0, 0.0], &[0.8, 0.0, 0.0]];
    assert!(first_colliding_sample(&body, &plate, true, waypoints[0], waypoints[1]).is_some());
    let mut c = checker(&body, &plate, &CheckOptions::default());
    assert_eq!(
        c.check_path(&waypoints).unwrap().status,
        PathStatus::Collides
    );
    let coarse = c.check_path_fixed_resolution(&waypoints, 0.5).unwrap();
    assert_eq!(coarse.status, PathStatus::Free);
    assert_eq!(coarse.certified_free_prefix, (0, 0.0));
    let fine = c.check_path_fixed_resolution(&waypoints, 1e-3).unwrap();
    assert_eq!(fine.status, PathStatus::Collides);
    assert_eq!(fine.first_colliding_segment, Some(0));
    assert!(fine.stats.discrete_checks > 0);
}

/// Disabled pairs are never tested, by the same type the other pipelines
/// take; the checker can move to another thread.
#[test]
fn disabled_pairs_are_skipped() {
    fn assert_send<T: Send>(_: &T) {}
    let body = arm();
    let obstacles = thin_obstacles();
    let (qa, qb) = ([-0.6, 0.0, 0.0], [-2.6, 0.0, 0.0]);
    let mut disabled = DisabledPairs::new();
    for link in 1..4 {
        disabled.disable_link_obstacle(link, 0);
    }
    let mut c = PathChecker::new(&body, &obstacles, &disabled, &CheckOptions::default()).unwrap();
    assert_send(&c);
    assert_eq!(c.pair_count(), 7);
    assert_eq!(c.check_segment(&qa, &qb).unwrap().status, PathStatus::Free);
    let only_plate = [obstacles[0].clone()];
    assert!(first_colliding_sample(&body, &only_plate, true, &qa, &qb).is_some());
    assert!(first_colliding_sample(&body, &obstacles[1..], true, &qa, &qb).is_none());
}
