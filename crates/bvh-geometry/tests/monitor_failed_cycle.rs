//! A cycle that fails part-way leaves the monitor as it was: the next
//! cycle's carried bounds are measured from the volumes the bounds were
//! computed on, so the bounded monitor never says "go" where a fresh full
//! monitor says "stop", whatever cycles failed before.

use armature_bvh_geometry::{
    DisabledPairs, MonitorBudget, MonitorObstacle, MonitorOptions, MonitorPair, SweptVolumeMonitor,
};
use armature_interval_taylor::Interval;
use armature_kinematics::{Joint, JointInterval, JointType, KinematicTree, LinkSpec, Ssch};
use glam::{DAffine3, DVec3};
use proptest::prelude::*;

/// Link `A` (0) turns about z with a point body 1 m out on x; link `B` (1)
/// slides along x at y = 5; obstacle `o1` is a small ball on A's circle,
/// `o2` one near B.
fn two_robots() -> (KinematicTree, Vec<Option<Ssch>>, Vec<MonitorObstacle>) {
    let tree = KinematicTree::new(vec![
        LinkSpec::new("A", None)
            .with_joint(Joint::new("a", JointType::Continuous { axis: DVec3::Z })),
        LinkSpec::new("B", None)
            .with_joint(Joint::prismatic("b", DVec3::X, -10.0, 10.0))
            .with_origin(DAffine3::from_translation(DVec3::new(0.0, 5.0, 0.0))),
    ])
    .unwrap();
    let bodies = vec![
        Some(Ssch::point(DVec3::X).unwrap()),
        Some(Ssch::point(DVec3::ZERO).unwrap()),
    ];
    let obstacles = vec![
        MonitorObstacle {
            name: "o1".to_owned(),
            volume: Ssch::new(vec![DVec3::Y], 0.05).unwrap(),
        },
        MonitorObstacle {
            name: "o2".to_owned(),
            volume: Ssch::new(vec![DVec3::new(0.0, 5.3, 0.0)], 0.05).unwrap(),
        },
    ];
    (tree, bodies, obstacles)
}

fn monitor(budget: MonitorBudget) -> SweptVolumeMonitor {
    let (tree, bodies, obstacles) = two_robots();
    SweptVolumeMonitor::new(
        tree,
        bodies,
        obstacles,
        &DisabledPairs::new(),
        MonitorOptions::default().with_budget(budget),
    )
    .unwrap()
}

fn scalar(lo: f64, hi: f64) -> JointInterval {
    JointInterval::Scalar(Interval::new(lo, hi).unwrap())
}

#[test]
fn a_cycle_failing_on_one_link_does_not_poison_the_next() {
    let mut m = monitor(MonitorBudget::UNLIMITED);
    let first = m
        .cycle_with_intervals(&[scalar(0.0, 0.1), scalar(0.0, 0.0)])
        .unwrap();
    assert!(!first.stop, "{first:?}");

    // A sweeps through o1, but B's interval is unbounded: the cycle fails.
    let failed =
        m.cycle_with_intervals(&[scalar(0.0, 2.0), JointInterval::Scalar(Interval::ENTIRE)]);
    assert!(failed.is_err(), "{failed:?}");

    // The same state with B fixed, one pair per cycle.
    m.set_budget(MonitorBudget::pairs(1));
    let state = [scalar(0.0, 2.0), scalar(0.0, 0.0)];
    let bounded = m.cycle_with_intervals(&state).unwrap();
    let fresh = monitor(MonitorBudget::UNLIMITED)
        .cycle_with_intervals(&state)
        .unwrap();
    assert!(fresh.stop, "{fresh:?}");
    assert_eq!(fresh.closest, Some(MonitorPair::LinkObstacle(0, 0)));
    let a_o1 = m
        .pair_bounds()
        .find(|(p, _)| *p == MonitorPair::LinkObstacle(0, 0))
        .unwrap()
        .1;
    assert!(
        a_o1 <= fresh.distance_lower_bound,
        "A–o1 carried at {a_o1}, a fresh monitor certifies only {}",
        fresh.distance_lower_bound
    );
    assert!(bounded.stop, "bounded {bounded:?}, fresh {fresh:?}");
}

mod monitor_support;
use monitor_support::Rng;

/// A random chain of 2–5 moving links (revolute about random axes, some
/// prismatic) with box-point bodies, and 0–2 obstacles around it.
fn random_arm(seed: u64) -> (KinematicTree, Vec<Option<Ssch>>, Vec<MonitorObstacle>) {
    let mut rng = Rng(seed);
    let n = 2 + (rng.next() * 4.0) as usize;
    let mut specs = Vec::new();
    let mut bodies = Vec::new();
    for i in 0..n {
        let axis = rng.unit();
        let joint = if rng.next() < 0.3 {
            Joint::prismatic(format!("j{i}"), axis, -1e70, 1e70)
        } else {
            Joint::new(format!("j{i}"), JointType::Continuous { axis })
        };
        let parent = (i > 0).then(|| format!("l{}", i - 1));
        specs.push(
            LinkSpec::new(format!("l{i}"), parent.as_deref())
                .with_joint(joint)
                .with_origin(DAffine3::from_translation(rng.unit() * rng.range(0.1, 0.3))),
        );
        let center = rng.unit() * rng.range(0.0, 0.15);
        let half = DVec3::new(
            rng.range(0.01, 0.08),
            rng.range(0.01, 0.08),
            rng.range(0.01, 0.08),
        );
        let points = (0..8)
            .map(|k| {
                let s = |bit: usize| if k & bit == bit { 1.0 } else { -1.0 };
                center + half * DVec3::new(s(1), s(2), s(4))
            })
            .collect();
        bodies.push(Some(Ssch::new(points, rng.range(0.0, 0.03)).unwrap()));
    }
    let tree = KinematicTree::new(specs).unwrap();
    let obstacles = (0..(rng.next() * 3.0) as usize)
        .map(|i| MonitorObstacle {
            name: format!("o{i}"),
            volume: Ssch::new(vec![rng.unit() * rng.range(0.2, 0.8)], rng.range(0.02, 0.1))
                .unwrap(),
        })
        .collect();
    (tree, bodies, obstacles)
}

/// How a cycle goes.
#[derive(Clone, Copy, Debug)]
enum Outcome {
    /// Every input is good.
    Ok,
    /// One link's interval is unbounded: its swept volume fails.
    UnboundedLink(usize),
    /// One link's interval is far beyond GJK's range: if the link is
    /// prismatic its volume forms but its pair distances fail (else as
    /// `UnboundedLink`).
    HugeLink(usize),
}

/// One cycle of a random sequence.
#[derive(Clone, Copy, Debug)]
struct CycleSpec {
    outcome: Outcome,
    /// Pair distances allowed (0: unlimited; 4: none, every bound
    /// carried).
    budget: usize,
    /// New intervals about new centres, or the last ones moved a little.
    jump: bool,
    /// Seed of the interval changes.
    seed: u64,
}

fn cycle_spec() -> impl Strategy<Value = CycleSpec> {
    let outcome = prop_oneof![
        3 => Just(Outcome::Ok),
        1 => (0..8usize).prop_map(Outcome::UnboundedLink),
        1 => (0..8usize).prop_map(Outcome::HugeLink),
    ];
    (outcome, 0..5usize, any::<bool>(), any::<u64>()).prop_map(|(outcome, budget, jump, seed)| {
        CycleSpec {
            outcome,
            budget,
            jump,
            seed,
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Whatever cycles failed before and whatever the budgets, a bounded
    /// monitor's every pair bound stays below what a fresh full monitor
    /// certifies at the same state, so it never says "go" where that one
    /// says "stop".
    #[test]
    fn failed_cycles_never_make_the_bounded_monitor_say_go_where_a_fresh_one_says_stop(
        arm_seed in any::<u64>(),
        safety in 0.0..0.05f64,
        cycles in prop::collection::vec(cycle_spec(), 1..14),
    ) {
        let (tree, bodies, obstacles) = random_arm(arm_seed);
        let options = MonitorOptions::default().with_safety_distance(safety);
        let new_monitor = |budget| {
            SweptVolumeMonitor::new(
                tree.clone(),
                bodies.clone(),
                obstacles.clone(),
                &DisabledPairs::new(),
                // The reference evaluates every pair, so each of its bounds
                // is what a fresh evaluation certifies.
                options.with_budget(budget).with_exhaustive(budget.is_unlimited()),
            )
            .unwrap()
        };
        let n = tree.len();
        let mut bounded = new_monitor(MonitorBudget::pairs(1));
        let mut centre = vec![0.0; n];
        let mut half = vec![0.1; n];
        for spec in cycles {
            let mut rng = Rng(spec.seed);
            for i in 0..n {
                if spec.jump {
                    centre[i] = rng.range(-3.0, 3.0);
                    half[i] = rng.range(0.0, 0.8);
                } else {
                    centre[i] += rng.range(-0.05, 0.05);
                    half[i] = (half[i] + rng.range(-0.02, 0.05)).max(0.0);
                }
            }
            let good: Vec<JointInterval> =
                (0..n).map(|i| scalar(centre[i] - half[i], centre[i] + half[i])).collect();
            let mut given = good.clone();
            match spec.outcome {
                Outcome::Ok => {}
                Outcome::UnboundedLink(l) => given[l % n] = JointInterval::Scalar(Interval::ENTIRE),
                Outcome::HugeLink(l) => given[l % n] = scalar(1e62, 1e62),
            }
            bounded.set_budget(match spec.budget {
                0 => MonitorBudget::UNLIMITED,
                4 => MonitorBudget::pairs(0),
                n => MonitorBudget::pairs(n),
            });
            let Ok(b) = bounded.cycle_with_intervals(&given) else {
                continue;
            };
            let mut full = new_monitor(MonitorBudget::UNLIMITED);
            let Ok(f) = full.cycle_with_intervals(&given) else {
                // The full monitor cannot certify this state (a distance
                // out of GJK's range that the budget skipped): the bounded
                // one must not certify it either.
                prop_assert!(b.stop, "bounded {b:?} where the full monitor fails");
                continue;
            };
            prop_assert!(!f.stop || b.stop, "fresh {f:?}, bounded {b:?}");
            for ((pair, kept), (same, certified)) in bounded.pair_bounds().zip(full.pair_bounds()) {
                prop_assert_eq!(pair, same);
                prop_assert!(
                    kept <= certified * (1.0 + 1e-6) + 1e-9,
                    "{}: bound {kept}, a fresh monitor certifies {certified}",
                    bounded.pair_name(pair)
                );
            }
        }
    }
}
