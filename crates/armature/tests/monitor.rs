//! The safety monitor (M3) against sampled braking trajectories of the
//! humanoid mobile manipulator: every body stays inside its swept volume
//! while every joint brakes at constant deceleration (the platform
//! turning, its pose uncertain), and the monitor says `Stop` whenever a
//! sampled trajectory comes within the safety distance of an obstacle.
//!
//! The trajectories are simulated here from the braking model's physics,
//! not from the monitor's intervals: each scalar joint keeps its velocity
//! for a latency `T' ≤ T`, then decelerates at a constant `a' ≥ a` until it
//! stops, from a value within the measurement uncertainty of the measured
//! one; the vehicle brakes along its circular arc (linear and angular
//! velocity stopping together, so the ratio and the arc's centre are
//! kept); the orientation joint's true value is within β of the measured
//! one, the location joint's within Δ.

mod common;

use std::f64::consts::PI;
use std::path::Path;

use armature::Scene;
use armature::geometry::fitted_ssch::fitted_ssch;
use armature::geometry::gjk::ssch_distance;
use armature::kinematics::{BrakingModel, JointType, Ssch};
use armature::monitor::{
    BodyVolumes, MonitorSettings, MonitorState, Operations, SafetyMonitor, Verdict,
};
use common::Rng;
use glam::{DQuat, DVec3};

fn scene(name: &str) -> Scene {
    Scene::from_file(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../data/scenes")
            .join(name),
    )
    .unwrap()
}

/// Each link's monitored body: its fitted rounded box (the monitor's
/// default volumes).
fn fitted_bodies(scene: &Scene) -> Vec<Option<Ssch>> {
    scene
        .body()
        .links()
        .iter()
        .map(|g| {
            g.as_ref()
                .map(|g| fitted_ssch(g.mesh.vertices(), &g.obb).unwrap())
        })
        .collect()
}

/// A random braking state: values within `spread` of the neutral pose and
/// within the limits, velocities up to `speed` (rad/s or m/s), the
/// platform at a random place in the room.
fn random_state(scene: &Scene, rng: &mut Rng, spread: f64, speed: f64, room: f64) -> MonitorState {
    let tree = scene.body().tree();
    let mut q = tree.neutral_configuration();
    let mut v = vec![0.0; scene.dof()];
    let mut braking = vec![BrakingModel::new(0.0, 1.0); scene.dof()];
    for (i, l) in tree.links().iter().enumerate() {
        let (qr, dr) = (tree.q_range(i), tree.dof_range(i));
        match l.joint().kind {
            JointType::Revolute { .. }
            | JointType::Continuous { .. }
            | JointType::Prismatic { .. } => {
                let (lo, hi) = l
                    .joint()
                    .limits
                    .map_or((-PI, PI), |lim| (lim.lower, lim.upper));
                let n = q[qr.start];
                q[qr.start] = rng.uniform((n - spread).max(lo), (n + spread).min(hi));
                v[dr.start] = rng.uniform(-speed, speed);
                braking[dr.start] =
                    BrakingModel::new(rng.uniform(0.0, 0.05), rng.uniform(1.0, 4.0))
                        .with_uncertainty(rng.uniform(0.0, 0.01));
            }
            JointType::Vehicle | JointType::OmniVehicle => {
                for k in dr.clone() {
                    v[k] = rng.uniform(-speed, speed);
                    braking[k] = BrakingModel::new(rng.uniform(0.0, 0.05), rng.uniform(1.0, 4.0));
                }
            }
            JointType::LocationUncertain { .. } => {
                q[qr.start] = rng.uniform(-room, room);
                q[qr.start + 1] = rng.uniform(-room, room);
            }
            JointType::OrientationUncertain { .. } => {
                let yaw = DQuat::from_rotation_z(rng.uniform(-PI, PI));
                q[qr].copy_from_slice(&yaw.to_array());
            }
            _ => {}
        }
    }
    MonitorState {
        config: q,
        velocities: v,
        braking,
        moving: Vec::new(),
    }
}

/// Where a value braking from `q` with velocity `v` is at time `t`: it
/// keeps `v` for `latency`, then decelerates at `a` until it stops.
fn braked(q: f64, v: f64, latency: f64, a: f64, t: f64) -> f64 {
    if t <= latency {
        return q + v * t;
    }
    let stop = v.abs() / a;
    let tb = (t - latency).min(stop);
    q + v * latency + v.signum() * (v.abs() * tb - 0.5 * a * tb * tb)
}

/// One sampled braking trajectory of the whole model, as configurations
/// at `steps + 1` times from the braking start to the last stop.
fn trajectory(
    scene: &Scene,
    s: &MonitorState,
    safety_factor: f64,
    rng: &mut Rng,
    steps: usize,
) -> Vec<Vec<f64>> {
    let tree = scene.body().tree();
    // Per degree of freedom: start value (with measurement error), latency
    // and a deceleration at least the model's (over the safety factor).
    struct Brake {
        q: f64,
        v: f64,
        latency: f64,
        a: f64,
    }
    let mut plan: Vec<(usize, Vec<Brake>)> = Vec::new();
    let mut base = s.config.clone();
    let mut horizon: f64 = 0.0;
    for (i, l) in tree.links().iter().enumerate() {
        let (qr, dr) = (tree.q_range(i), tree.dof_range(i));
        match l.joint().kind {
            JointType::Revolute { .. }
            | JointType::Continuous { .. }
            | JointType::Prismatic { .. } => {
                let m = s.braking[dr.start];
                let a = m.deceleration / safety_factor * rng.uniform(1.0, 3.0);
                let b = Brake {
                    q: s.config[qr.start] + rng.uniform(-m.uncertainty, m.uncertainty),
                    v: s.velocities[dr.start],
                    latency: rng.uniform(0.0, m.latency),
                    a,
                };
                horizon = horizon.max(b.latency + b.v.abs() / b.a);
                plan.push((qr.start, vec![b]));
            }
            JointType::Vehicle | JointType::OmniVehicle => {
                // (φ), s, α: a circular arc whose linear and angular parts
                // stop at the same time τ, no later than either model
                // allows, after a common latency.
                let off = usize::from(l.joint().kind == JointType::OmniVehicle);
                let (mv, mw) = (s.braking[dr.start + off], s.braking[dr.start + off + 1]);
                let (v, w) = (
                    s.velocities[dr.start + off],
                    s.velocities[dr.start + off + 1],
                );
                let latency = rng.uniform(0.0, mv.latency.min(mw.latency));
                let tau_max = (v.abs() * safety_factor / mv.deceleration)
                    .min(w.abs() * safety_factor / mw.deceleration);
                let tau = rng.uniform(0.0, 1.0) * tau_max;
                let brake = |x: f64, latency| Brake {
                    q: 0.0,
                    v: x,
                    latency,
                    a: if tau > 0.0 {
                        x.abs() / tau
                    } else {
                        f64::INFINITY
                    },
                };
                let mut parts = Vec::new();
                if off == 1 {
                    // The direction is fixed while braking (M3 §III-C.6's
                    // assumption), anywhere its own braking interval allows.
                    let mh = s.braking[dr.start];
                    let phi = braked(
                        s.config[qr.start],
                        s.velocities[dr.start],
                        mh.latency,
                        mh.deceleration / safety_factor,
                        rng.uniform(0.0, 10.0),
                    );
                    parts.push(Brake {
                        q: phi,
                        v: 0.0,
                        latency: 0.0,
                        a: 1.0,
                    });
                }
                parts.push(brake(v, latency));
                parts.push(brake(w, latency));
                horizon = horizon.max(latency + tau);
                plan.push((qr.start, parts));
            }
            JointType::OrientationUncertain { beta } => {
                let measured = DQuat::from_slice(&s.config[qr.clone()]);
                let err = DQuat::from_axis_angle(
                    DVec3::new(
                        rng.uniform(-1.0, 1.0),
                        rng.uniform(-1.0, 1.0),
                        rng.uniform(-1.0, 1.0),
                    )
                    .normalize_or(DVec3::X),
                    rng.uniform(0.0, beta),
                );
                base[qr].copy_from_slice(&(err * measured).normalize().to_array());
            }
            JointType::LocationUncertain { delta } => {
                let d = DVec3::new(
                    rng.uniform(-1.0, 1.0),
                    rng.uniform(-1.0, 1.0),
                    rng.uniform(-1.0, 1.0),
                );
                let d = d.normalize_or(DVec3::X) * rng.uniform(0.0, delta);
                for k in 0..3 {
                    base[qr.start + k] = s.config[qr.start + k] + d[k];
                }
            }
            _ => {}
        }
    }
    (0..=steps)
        .map(|j| {
            let t = horizon * j as f64 / steps as f64;
            let mut q = base.clone();
            for (start, parts) in &plan {
                for (k, b) in parts.iter().enumerate() {
                    q[start + k] = if b.a.is_infinite() {
                        b.q + b.v * t.min(b.latency)
                    } else {
                        braked(b.q, b.v, b.latency, b.a, t)
                    };
                }
            }
            q
        })
        .collect()
}

fn settings(operations: Operations, safety_distance: f64, safety_factor: f64) -> MonitorSettings {
    MonitorSettings {
        safety_distance,
        safety_factor,
        operations,
        volumes: BodyVolumes::Fitted,
        ..MonitorSettings::default()
    }
}

/// Every point of every body, at every sampled time of every sampled
/// braking trajectory, lies inside the body's swept volume (world frame),
/// for the fast and the accurate operations, with uncertainty.
#[test]
fn sampled_braking_trajectories_stay_inside_their_swept_volumes() {
    let scene = scene("humanoid_lab.ron");
    let tree = scene.body().tree();
    let bodies = scene.body().link_sschs().unwrap();
    let fitted = fitted_bodies(&scene);
    let mut rng = Rng(19);
    let mut checked = 0usize;
    for case in 0..40 {
        let ops = if case % 2 == 0 {
            Operations::Fast
        } else {
            Operations::Accurate
        };
        let k = if case % 3 == 0 { 2.0 } else { 1.0 };
        let mut m = SafetyMonitor::new(&scene, settings(ops, 0.0, k)).unwrap();
        let state = random_state(&scene, &mut rng, 10.0, 1.0, 2.0);
        m.cycle(&state).unwrap();
        let volumes = m.world_volumes().unwrap();
        assert!(!volumes.is_empty());
        for _ in 0..3 {
            for q in trajectory(&scene, &state, k, &mut rng, 10) {
                let poses = tree.poses(&q).unwrap();
                for (l, vol) in &volumes {
                    // The fitted SSCH (the monitored body) and, inside
                    // it, the mesh hull's points.
                    let body = fitted[*l].as_ref().unwrap();
                    let hull = bodies[*l].as_ref().unwrap();
                    let cap = body.transformed(&poses[*l]).unwrap();
                    let step = (hull.point_count() / 8).max(1);
                    for p in hull.points().iter().step_by(step) {
                        let x = Ssch::point(poses[*l].transform_point3(*p)).unwrap();
                        let d = ssch_distance(vol, &x, None).unwrap();
                        assert!(
                            d.lower_bound <= 1e-9,
                            "case {case} ({ops:?}, k {k}): a point of `{}` leaves its swept volume by {}",
                            tree.links()[*l].name(),
                            d.lower_bound
                        );
                        checked += 1;
                    }
                    // The fitted SSCH's points, pushed out by its radius
                    // away from the volume's centre: points of the body.
                    let (c, _) = vol.bounding_sphere();
                    for e in cap.points() {
                        let out = (*e - c).normalize_or(DVec3::X) * cap.radius();
                        let x = Ssch::point(*e + out).unwrap();
                        let d = ssch_distance(vol, &x, None).unwrap();
                        assert!(
                            d.lower_bound <= 1e-9,
                            "case {case}: the fitted body of `{}` leaves its swept volume by {}",
                            tree.links()[*l].name(),
                            d.lower_bound
                        );
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 5_000, "{checked} points checked");
}

/// The monitor says `Stop` whenever a sampled braking trajectory brings a
/// body within the safety distance of an obstacle, and says `Go` often
/// enough for that to mean something.
#[test]
fn monitor_stops_whenever_a_sampled_braking_trajectory_comes_close() {
    let scene = scene("humanoid_lab.ron");
    let tree = scene.body().tree();
    let fitted = fitted_bodies(&scene);
    let obstacles: Vec<(String, Ssch)> = scene
        .obstacles()
        .iter()
        .map(|o| (o.name().to_owned(), o.monitor_obstacle().unwrap().volume))
        .collect();
    let mut rng = Rng(77);
    let (mut stops, mut gos, mut close) = (0, 0, 0);
    for case in 0..300 {
        let ops = if case % 2 == 0 {
            Operations::Fast
        } else {
            Operations::Accurate
        };
        let safety = if case % 4 == 0 {
            0.0
        } else {
            rng.uniform(0.0, 0.1)
        };
        let mut m = SafetyMonitor::new(&scene, settings(ops, safety, 1.0)).unwrap();
        let state = random_state(&scene, &mut rng, 0.3, 0.6, 0.8);
        let report = m.cycle(&state).unwrap();
        if report.verdict == Verdict::Stop {
            stops += 1;
        } else {
            gos += 1;
        }
        let mut came_close = false;
        for _ in 0..4 {
            for q in trajectory(&scene, &state, 1.0, &mut rng, 10) {
                let poses = tree.poses(&q).unwrap();
                for (l, cap) in fitted.iter().enumerate() {
                    let Some(cap) = cap else { continue };
                    let posed = cap.transformed(&poses[l]).unwrap();
                    for (name, o) in &obstacles {
                        let d = ssch_distance(&posed, o, None).unwrap();
                        if d.distance <= safety {
                            came_close = true;
                            assert_eq!(
                                report.verdict,
                                Verdict::Stop,
                                "case {case}: `{}` comes within {} of `{name}` (safety {safety}) but the monitor says go: {report:?}",
                                tree.links()[l].name(),
                                d.distance
                            );
                        }
                    }
                }
            }
        }
        close += usize::from(came_close);
    }
    assert!(
        close > 10 && stops > 20 && gos > 20,
        "close {close}, stops {stops}, gos {gos}"
    );
}

/// Uncertainty only grows the volumes: the same state with a larger
/// location or orientation uncertainty never says `Go` where the smaller
/// one says `Stop`, and a tilt or location error inside the uncertainty
/// keeps the platform inside its volume (covered by the trajectory test);
/// here, a measured pose pushed by more than the uncertainty is not
/// required to be covered, and a pose within it is.
#[test]
fn platform_tilt_and_location_error_inside_the_uncertainty_are_covered() {
    let scene = scene("humanoid_lab.ron");
    let tree = scene.body().tree();
    let fitted = fitted_bodies(&scene);
    let (mut beta, mut delta) = (0.0, 0.0);
    for l in tree.links() {
        match l.joint().kind {
            JointType::OrientationUncertain { beta: b } => beta = b,
            JointType::LocationUncertain { delta: d } => delta = d,
            _ => {}
        }
    }
    assert!(
        beta > 0.0 && delta > 0.0,
        "the scene's base has uncertainty"
    );
    let mut rng = Rng(3);
    let mut state = random_state(&scene, &mut rng, 0.4, 0.0, 1.0);
    state.velocities.iter_mut().for_each(|v| *v = 0.0);
    let mut m = SafetyMonitor::new(&scene, settings(Operations::Accurate, 0.0, 1.0)).unwrap();
    m.cycle(&state).unwrap();
    let volumes = m.world_volumes().unwrap();
    // Tilts about horizontal axes by up to β and shifts by up to Δ.
    let (ori, loc) = {
        let mut ori = 0..0;
        let mut loc = 0..0;
        for (i, l) in tree.links().iter().enumerate() {
            match l.joint().kind {
                JointType::OrientationUncertain { .. } => ori = tree.q_range(i),
                JointType::LocationUncertain { .. } => loc = tree.q_range(i),
                _ => {}
            }
        }
        (ori, loc)
    };
    let mut worst: f64 = f64::NEG_INFINITY;
    for j in 0..200u32 {
        let mut q = state.config.clone();
        let axis = DVec3::new(f64::from(j).cos(), f64::from(j).sin(), 0.0);
        let tilt = DQuat::from_axis_angle(axis, beta * f64::from(j % 5) / 4.0);
        let measured = DQuat::from_slice(&state.config[ori.clone()]);
        q[ori.clone()].copy_from_slice(&(tilt * measured).to_array());
        let shift = DVec3::new((0.7 * f64::from(j)).cos(), (0.7 * f64::from(j)).sin(), 0.3)
            .normalize()
            * delta;
        for k in 0..3 {
            q[loc.start + k] += shift[k];
        }
        let poses = tree.poses(&q).unwrap();
        for (l, vol) in &volumes {
            let cap = fitted[*l]
                .as_ref()
                .unwrap()
                .transformed(&poses[*l])
                .unwrap();
            for e in cap.points() {
                let d = ssch_distance(vol, &Ssch::point(*e).unwrap(), None).unwrap();
                worst = worst.max(d.lower_bound);
                assert!(
                    d.lower_bound <= 1e-9,
                    "tilt {:.4} rad, shift {delta}: `{}` leaves its volume by {}",
                    beta * f64::from(j % 5) / 4.0,
                    tree.links()[*l].name(),
                    d.lower_bound
                );
            }
        }
    }
    // Twice the uncertainty is not covered everywhere: the volumes are
    // sized by it, not by a generous margin.
    let mut q = state.config.clone();
    for k in 0..2 {
        q[loc.start + k] += 3.0 * delta;
    }
    let poses = tree.poses(&q).unwrap();
    let outside = volumes.iter().any(|(l, vol)| {
        let cap = fitted[*l]
            .as_ref()
            .unwrap()
            .transformed(&poses[*l])
            .unwrap();
        cap.points().iter().any(|e| {
            ssch_distance(vol, &Ssch::point(*e).unwrap(), None)
                .unwrap()
                .lower_bound
                > 0.0
        })
    });
    assert!(
        outside,
        "a shift of 3Δ stays inside every volume (worst {worst})"
    );
}
