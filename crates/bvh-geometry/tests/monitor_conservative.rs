//! The M3 monitor is conservative against sampled braking motions, and the
//! bounded-time mode never says "go" where the full mode says "stop".

use armature_bvh_geometry::{
    DisabledPairs, MonitorBudget, MonitorObstacle, MonitorOptions, MonitorPair, SweptVolumeMonitor,
};
use armature_kinematics::{
    BrakingModel, Joint, JointInterval, JointType, KinematicTree, LinkSpec, RevoluteCover, Ssch,
    SweptVolumeOptions, braking_intervals,
};
use glam::{DAffine3, DVec3};

mod monitor_support;
use monitor_support::Rng;

struct Arm {
    tree: KinematicTree,
    /// Body points (link frame) and radius per link.
    bodies: Vec<(Vec<DVec3>, f64)>,
    obstacles: Vec<(Vec<DVec3>, f64)>,
}

fn box_points(center: DVec3, half: DVec3) -> Vec<DVec3> {
    let mut pts: Vec<DVec3> = (0..8)
        .map(|k| {
            center
                + half
                    * DVec3::new(
                        if k & 1 == 1 { 1.0 } else { -1.0 },
                        if k & 2 == 2 { 1.0 } else { -1.0 },
                        if k & 4 == 4 { 1.0 } else { -1.0 },
                    )
        })
        .collect();
    pts.push(center);
    pts
}

fn arm(rng: &mut Rng) -> Arm {
    let n = 3 + (rng.next() * 4.0) as usize;
    let mut specs = vec![LinkSpec::new("l0", None)];
    let mut bodies = vec![(box_points(DVec3::ZERO, DVec3::splat(0.08)), 0.0)];
    for i in 1..n {
        let axis = rng.unit();
        let offset = rng.unit() * rng.range(0.1, 0.3);
        let joint = if rng.next() < 0.15 {
            Joint::prismatic(format!("j{i}"), axis, -10.0, 10.0)
        } else {
            Joint::new(format!("j{i}"), JointType::Continuous { axis })
        };
        specs.push(
            LinkSpec::new(format!("l{i}"), Some(&format!("l{}", i - 1)))
                .with_joint(joint)
                .with_origin(DAffine3::from_translation(offset)),
        );
        let center = rng.unit() * rng.range(0.0, 0.15);
        let half = DVec3::new(
            rng.range(0.01, 0.08),
            rng.range(0.01, 0.08),
            rng.range(0.01, 0.08),
        );
        bodies.push((box_points(center, half), rng.range(0.0, 0.03)));
    }
    let tree = KinematicTree::new(specs).unwrap();
    let obstacles = (0..(rng.next() * 3.0) as usize)
        .map(|_| {
            let c = rng.unit() * rng.range(0.2, 0.8);
            let half = DVec3::splat(rng.range(0.02, 0.1));
            (box_points(c, half), rng.range(0.0, 0.02))
        })
        .collect();
    Arm {
        tree,
        bodies,
        obstacles,
    }
}

fn monitor(
    a: &Arm,
    safety: f64,
    budget: MonitorBudget,
    swept: SweptVolumeOptions,
) -> SweptVolumeMonitor {
    monitor_with(
        a,
        MonitorOptions::default()
            .with_safety_distance(safety)
            .with_budget(budget)
            .with_swept(swept),
    )
}

fn monitor_with(a: &Arm, options: MonitorOptions) -> SweptVolumeMonitor {
    let bodies = a
        .bodies
        .iter()
        .map(|(p, r)| Some(Ssch::new(p.clone(), *r).unwrap()))
        .collect();
    let obstacles = a
        .obstacles
        .iter()
        .enumerate()
        .map(|(i, (p, r))| MonitorObstacle {
            name: format!("o{i}"),
            volume: Ssch::new(p.clone(), *r).unwrap(),
        })
        .collect();
    SweptVolumeMonitor::new(
        a.tree.clone(),
        bodies,
        obstacles,
        &DisabledPairs::new(),
        options,
    )
    .unwrap()
}

fn random_state(rng: &mut Rng, tree: &KinematicTree) -> (Vec<f64>, Vec<f64>, Vec<BrakingModel>) {
    let q = (0..tree.dof()).map(|_| rng.range(-3.0, 3.0)).collect();
    let v = (0..tree.dof()).map(|_| rng.range(-1.5, 1.5)).collect();
    let m = (0..tree.dof())
        .map(|_| {
            BrakingModel::new(rng.range(0.0, 0.15), rng.range(2.0, 10.0))
                .with_uncertainty(rng.range(0.0, 0.02))
                .with_safety_factor(rng.range(1.0, 2.0))
        })
        .collect();
    (q, v, m)
}

#[test]
fn monitor_never_says_go_when_a_sampled_braking_motion_comes_close() {
    let mut rng = Rng(7);
    let (mut stops, mut gos, mut sampled_close) = (0, 0, 0);
    for case in 0..300 {
        let a = arm(&mut rng);
        let safety = if case % 3 == 0 {
            0.0
        } else {
            rng.range(0.0, 0.1)
        };
        let swept = if case % 2 == 0 {
            SweptVolumeOptions::default()
        } else {
            SweptVolumeOptions::default().with_revolute(RevoluteCover::Circ1)
        };
        let mut m = monitor(&a, safety, MonitorBudget::UNLIMITED, swept);
        let (q, v, models) = random_state(&mut rng, &a.tree);
        let report = m.cycle(&q, &v, &models).unwrap();
        assert_eq!(report.pairs_unknown, 0);
        if report.stop {
            stops += 1
        } else {
            gos += 1
        }

        let intervals = braking_intervals(&a.tree, &q, &v, &models).unwrap();
        let pairs: Vec<MonitorPair> = m.pairs().collect();
        let mut close = false;
        for s in 0..80 {
            let qs: Vec<f64> = (0..a.tree.len())
                .filter_map(|i| match &intervals[i] {
                    JointInterval::Scalar(iv) => Some(match s {
                        0 => iv.lo(),
                        1 => iv.hi(),
                        _ => rng.range(iv.lo(), iv.hi()),
                    }),
                    _ => None,
                })
                .collect();
            let poses = a.tree.poses(&qs).unwrap();
            let world = |l: usize| -> Vec<DVec3> {
                a.bodies[l]
                    .0
                    .iter()
                    .map(|p| poses[l].transform_point3(*p))
                    .collect()
            };
            for pair in &pairs {
                let (pa, ra, pb, rb) = match *pair {
                    MonitorPair::Links(x, y) => (world(x), a.bodies[x].1, world(y), a.bodies[y].1),
                    MonitorPair::LinkObstacle(l, o) => (
                        world(l),
                        a.bodies[l].1,
                        a.obstacles[o].0.clone(),
                        a.obstacles[o].1,
                    ),
                    MonitorPair::LinkMoving(..) => unreachable!("no moving volumes here"),
                };
                let d = pa
                    .iter()
                    .flat_map(|x| pb.iter().map(move |y| (*x - *y).length()))
                    .fold(f64::INFINITY, f64::min);
                if d - ra - rb <= safety {
                    close = true;
                    assert!(
                        report.stop,
                        "case {case}: {} comes within {} (safety {safety}) but the monitor says go: {report:?}",
                        m.pair_name(*pair),
                        d - ra - rb
                    );
                }
            }
        }
        sampled_close += usize::from(close);
    }
    // The test must see both answers to mean anything.
    assert!(
        sampled_close > 20 && stops > 20 && gos > 20,
        "close {sampled_close}, stops {stops}, gos {gos}"
    );
}

#[test]
fn bounded_mode_never_says_go_when_full_mode_says_stop() {
    let mut rng = Rng(99);
    let (mut bounded_go, mut carried) = (0, 0);
    for _ in 0..60 {
        let a = arm(&mut rng);
        let safety = rng.range(0.0, 0.05);
        let swept = SweptVolumeOptions::default();
        let mut full = monitor(&a, safety, MonitorBudget::UNLIMITED, swept);
        let budget = 1 + (rng.next() * 3.0) as usize;
        let mut bounded = monitor(&a, safety, MonitorBudget::pairs(budget), swept);
        let (mut q, mut v, models) = random_state(&mut rng, &a.tree);
        for _cycle in 0..40 {
            let f = full.cycle(&q, &v, &models).unwrap();
            let b = bounded.cycle(&q, &v, &models).unwrap();
            assert!(b.pairs_evaluated <= budget);
            assert!(!f.stop || b.stop, "full {f:?}, bounded {b:?}");
            // The bounded bound never exceeds the true swept distance, of
            // which the full answer is a tight lower bound.
            if !b.stop {
                bounded_go += 1;
                assert!(b.distance_lower_bound <= f.distance_lower_bound * (1.0 + 1e-6) + 1e-9);
            }
            carried += b.pairs_carried_over;
            // Move on: 10 ms of motion, a small change of velocity.
            for k in 0..q.len() {
                q[k] += 0.01 * v[k];
                v[k] = (v[k] + rng.range(-0.3, 0.3)).clamp(-2.0, 2.0);
            }
        }
    }
    assert!(
        bounded_go > 50 && carried > 0,
        "bounded go {bounded_go}, carried {carried}"
    );
}

/// Without a budget a warm monitor forms a link's volume only when a pair
/// its reach ball does not decide needs it, and carries a pair's volume
/// bound across the cycles in which it formed none: every pair bound stays
/// below what a fresh monitor evaluating every pair certifies at the same
/// state.
#[test]
fn lazy_warm_monitor_never_certifies_more_than_a_fresh_one() {
    let mut rng = Rng(7);
    let (mut spared, mut pairs_checked, mut gos) = (0usize, 0usize, 0usize);
    for _ in 0..60 {
        let a = arm(&mut rng);
        let safety = rng.range(0.0, 0.05);
        let swept = SweptVolumeOptions::default();
        let mut warm = monitor(&a, safety, MonitorBudget::UNLIMITED, swept);
        let (mut q, mut v, models) = random_state(&mut rng, &a.tree);
        for _cycle in 0..40 {
            let w = warm.cycle(&q, &v, &models).unwrap();
            let mut fresh = monitor_with(
                &a,
                MonitorOptions::default()
                    .with_safety_distance(safety)
                    .with_swept(swept)
                    .with_exhaustive(true),
            );
            let f = fresh.cycle(&q, &v, &models).unwrap();
            assert!(!f.stop || w.stop, "fresh {f:?}, warm {w:?}");
            gos += usize::from(!w.stop);
            spared += usize::from(w.swept_points < f.swept_points);
            for ((pair, kept), (same, certified)) in warm.pair_bounds().zip(fresh.pair_bounds()) {
                assert_eq!(pair, same);
                assert!(
                    kept <= certified * (1.0 + 1e-6) + 1e-9,
                    "{}: bound {kept}, a fresh monitor certifies {certified}",
                    warm.pair_name(pair)
                );
                pairs_checked += 1;
            }
            for k in 0..q.len() {
                q[k] += 0.01 * v[k];
                v[k] = (v[k] + rng.range(-0.3, 0.3)).clamp(-2.0, 2.0);
            }
        }
    }
    // The test must see volumes spared and both answers to mean anything.
    assert!(
        spared > 100 && gos > 100 && pairs_checked > 1000,
        "spared {spared}, go {gos}, pairs {pairs_checked}"
    );
}

#[test]
fn bad_input_is_a_typed_error() {
    let mut rng = Rng(3);
    let a = arm(&mut rng);
    let m = SweptVolumeMonitor::new(
        a.tree.clone(),
        vec![None],
        vec![],
        &DisabledPairs::new(),
        MonitorOptions::default(),
    );
    assert!(m.is_err());
    let mut m = monitor(
        &a,
        0.0,
        MonitorBudget::UNLIMITED,
        SweptVolumeOptions::default(),
    );
    let (q, v, models) = random_state(&mut rng, &a.tree);
    assert!(m.cycle(&q[1..], &v, &models).is_err());
    let mut bad = models.clone();
    bad[0] = BrakingModel::new(0.1, -1.0);
    assert!(m.cycle(&q, &v, &bad).is_err());
    assert!(
        SweptVolumeMonitor::new(
            a.tree.clone(),
            vec![None; a.tree.len()],
            vec![],
            &DisabledPairs::new(),
            MonitorOptions::default().with_safety_distance(f64::NAN),
        )
        .is_err()
    );
}

/// Stopping once the next bound cannot matter gives the answer and the
/// minimum of evaluating every pair, with fewer distances.
#[test]
fn early_exit_answers_as_the_exhaustive_monitor() {
    let mut rng = Rng(2024);
    let (mut saved, mut total, mut stops) = (0usize, 0usize, 0usize);
    for _ in 0..200 {
        let a = arm(&mut rng);
        let safety = rng.range(0.0, 0.1);
        let swept = SweptVolumeOptions::default();
        let mut fast = monitor(&a, safety, MonitorBudget::UNLIMITED, swept);
        let mut all = SweptVolumeMonitor::new(
            a.tree.clone(),
            a.bodies
                .iter()
                .map(|(p, r)| Some(Ssch::new(p.clone(), *r).unwrap()))
                .collect(),
            a.obstacles
                .iter()
                .enumerate()
                .map(|(i, (p, r))| MonitorObstacle {
                    name: format!("o{i}"),
                    volume: Ssch::new(p.clone(), *r).unwrap(),
                })
                .collect(),
            &DisabledPairs::new(),
            MonitorOptions::default()
                .with_safety_distance(safety)
                .with_swept(swept)
                .with_exhaustive(true),
        )
        .unwrap();
        let (q, v, models) = random_state(&mut rng, &a.tree);
        let f = fast.cycle(&q, &v, &models).unwrap();
        let e = all.cycle(&q, &v, &models).unwrap();
        assert_eq!(f.stop, e.stop, "early {f:?}, exhaustive {e:?}");
        assert_eq!(
            f.distance_lower_bound, e.distance_lower_bound,
            "early {f:?}, exhaustive {e:?}"
        );
        assert!(f.pairs_evaluated <= e.pairs_evaluated);
        saved += e.pairs_evaluated - f.pairs_evaluated;
        total += e.pairs_evaluated;
        stops += usize::from(e.stop);
    }
    assert!(saved > total / 4, "saved {saved} of {total}");
    assert!(stops > 10 && stops < 190, "stops {stops}");
}

/// Per-link operations: all-Circ1 and all-Circ2 through
/// `set_link_operations` answer as the global options do, and a mix is
/// conservative against sampled braking motions.
#[test]
fn per_link_operations_match_global_ones_and_stay_conservative() {
    let mut rng = Rng(31);
    for case in 0..80 {
        let a = arm(&mut rng);
        let (q, v, models) = random_state(&mut rng, &a.tree);
        let circ1 = SweptVolumeOptions::default().with_revolute(RevoluteCover::Circ1);
        let circ2 = SweptVolumeOptions::default();
        for global in [circ1, circ2] {
            let mut g = monitor(&a, 0.0, MonitorBudget::UNLIMITED, global);
            let mut per = monitor(&a, 0.0, MonitorBudget::UNLIMITED, circ1);
            per.set_link_operations(vec![global; a.tree.len()]).unwrap();
            let rg = g.cycle(&q, &v, &models).unwrap();
            let rp = per.cycle(&q, &v, &models).unwrap();
            let key = |r: &armature_bvh_geometry::MonitorReport| {
                (
                    r.stop,
                    r.closest,
                    r.distance_lower_bound,
                    r.pairs_evaluated,
                    r.swept_points,
                )
            };
            assert_eq!(key(&rg), key(&rp), "case {case}");
        }
        // A mix: even links Circ2, odd ones Circ1; the world volumes hold
        // every sampled pose of every body point.
        let mut mix = monitor(&a, 0.0, MonitorBudget::UNLIMITED, circ2);
        let ops = (0..a.tree.len())
            .map(|k| if k % 2 == 0 { circ2 } else { circ1 })
            .collect();
        mix.set_link_operations(ops).unwrap();
        mix.cycle(&q, &v, &models).unwrap();
        let intervals = braking_intervals(&a.tree, &q, &v, &models).unwrap();
        let volumes: Vec<(usize, Ssch)> = mix.world_volumes().unwrap();
        for _ in 0..40 {
            let qs: Vec<f64> = intervals
                .iter()
                .filter_map(|i| match i {
                    JointInterval::Scalar(iv) => Some(rng.range(iv.lo(), iv.hi())),
                    _ => None,
                })
                .collect();
            let poses = a.tree.poses(&qs).unwrap();
            for (l, vol) in &volumes {
                for p in &a.bodies[*l].0 {
                    let x = poses[*l].transform_point3(*p);
                    let d = armature_bvh_geometry::gjk::ssch_distance(
                        vol,
                        &Ssch::point(x).unwrap(),
                        None,
                    )
                    .unwrap();
                    assert!(
                        d.lower_bound <= 1e-9,
                        "case {case}: link {l} point leaves its mixed swept volume by {}",
                        d.lower_bound
                    );
                }
            }
        }
    }
}

/// A moving volume is tested against every link: one placed on a link's
/// swept volume stops the model, one far away does not, and its growth
/// between cycles keeps carried bounds conservative.
#[test]
fn moving_volumes_are_monitored() {
    let mut rng = Rng(5);
    let mut checked = 0;
    for case in 0..60 {
        let a = arm(&mut rng);
        let (q, v, models) = random_state(&mut rng, &a.tree);
        let base = monitor(
            &a,
            0.0,
            MonitorBudget::UNLIMITED,
            SweptVolumeOptions::default(),
        );
        let mut m = base.with_moving_volumes(vec!["cart".to_owned()]);
        assert!(m.cycle(&q, &v, &models).is_err(), "a missing moving volume");
        let far = Ssch::sphere(DVec3::splat(100.0), 0.5).unwrap();
        let r = m
            .cycle_with_moving(
                &braking_intervals(&a.tree, &q, &v, &models).unwrap(),
                &[far],
            )
            .unwrap();
        let without = monitor(
            &a,
            0.0,
            MonitorBudget::UNLIMITED,
            SweptVolumeOptions::default(),
        )
        .cycle(&q, &v, &models)
        .unwrap();
        assert_eq!(r.stop, without.stop, "case {case}");
        // On the last link's swept volume.
        let (l, vol) = m.world_volumes().unwrap().pop().unwrap();
        let on = Ssch::sphere(vol.points()[0], 0.01).unwrap();
        m.set_budget(MonitorBudget::pairs(0));
        let intervals = braking_intervals(&a.tree, &q, &v, &models).unwrap();
        let carried = m
            .cycle_with_moving(&intervals, std::slice::from_ref(&on))
            .unwrap();
        assert!(
            carried.stop,
            "case {case}: carried bounds let a jump of the cart through"
        );
        m.set_budget(MonitorBudget::UNLIMITED);
        let fresh = m.cycle_with_moving(&intervals, &[on]).unwrap();
        assert!(fresh.stop, "case {case}: {fresh:?}");
        let bound = m
            .pair_bounds()
            .find(|(p, _)| *p == MonitorPair::LinkMoving(l, 0))
            .unwrap()
            .1;
        assert!(
            bound <= 0.0,
            "case {case}: link {l} bound {bound}, {fresh:?}"
        );
        checked += 1;
    }
    assert_eq!(checked, 60);
}
