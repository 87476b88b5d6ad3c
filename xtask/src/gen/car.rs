//! The *arms car* scene: six IRB 2400-like arms, three on each side,
//! around a car body.
//!
//! **Car.** One closed mesh [`LENGTH`] × [`WIDTH`] × [`ROOF`] m, lofted
//! along x through [`STATIONS`] sections: each a superellipse (exponent 4,
//! boxy with round corners) standing on the floor line `z = `[`CLEARANCE`],
//! as high as the hood, the cabin or the trunk at that station, and
//! narrowing towards the bumpers. Sections are convex, so the two end caps
//! are single polygons.
//!
//! **Arms.** One URDF (`irb2400`), six bodies `arm1`…`arm6` at
//! `x ∈ `[`ARM_X`], `y = ±`[`ARM_Y`], turned to face the car. Self-collision
//! is on, so the arms can also hit each other.

use glam::DVec3;

use super::Scene;
use super::irb::ROBOT;
use super::mesh::Part;
use super::write::BodyEntry;

/// Length along x.
pub(crate) const LENGTH: f64 = 4.5;
/// Width along y.
pub(crate) const WIDTH: f64 = 1.8;
/// Height of the roof.
pub(crate) const ROOF: f64 = 1.4;
/// Height of the underbody above the floor.
pub(crate) const CLEARANCE: f64 = 0.18;
/// Sections along the car.
pub(crate) const STATIONS: usize = 41;
/// Corners of each section.
const SECTION: usize = 48;
/// The arms' bases along the car.
pub(crate) const ARM_X: [f64; 3] = [-1.5, 0.0, 1.5];
/// The arms' bases' distance from the car's centre line.
pub(crate) const ARM_Y: f64 = 1.78;

/// Height of the body's top at `x` (front at `+LENGTH/2`): hood, a
/// windscreen ramp, the cabin, a rear window ramp, the trunk.
fn top(x: f64) -> f64 {
    let smooth = |a: f64, b: f64, t: f64| {
        let t = ((t - a) / (b - a)).clamp(0.0, 1.0);
        t * t * (3.0 - 2.0 * t)
    };
    let hood = 0.95;
    let trunk = 1.0;
    let cabin = ROOF;
    // Cabin between x = −1.2 and 0.5, ramps of 0.6 m on either side.
    let front = smooth(1.1, 0.5, x);
    let rear = smooth(-1.8, -1.2, x);
    if x >= -0.35 {
        hood + (cabin - hood) * front
    } else {
        trunk + (cabin - trunk) * rear
    }
}

/// The car body.
pub(crate) fn body() -> Part {
    let half = 0.5 * LENGTH;
    let rings: Vec<Vec<DVec3>> = (0..STATIONS)
        .map(|s| {
            // Stations crowd towards the bumpers, where the body rounds off.
            let u = -1.0 + 2.0 * s as f64 / (STATIONS - 1) as f64;
            let x = half * (u * core::f64::consts::FRAC_PI_2).sin();
            // Round off the last 0.35 m towards the bumpers to 70 % size.
            let e = ((x.abs() - (half - 0.35)) / 0.35).clamp(0.0, 1.0);
            let shrink = 1.0 - 0.3 * e * e;
            let a = 0.5 * WIDTH * shrink;
            let full = top(x) - CLEARANCE;
            let b = 0.5 * full * (0.6 + 0.4 * shrink);
            let zc = CLEARANCE + 0.5 * full;
            (0..SECTION)
                .map(|k| {
                    let t = core::f64::consts::TAU * k as f64 / SECTION as f64;
                    let (c, s) = (t.cos(), t.sin());
                    let y = a * c.signum() * c.abs().sqrt();
                    let z = zc + b * s.signum() * s.abs().sqrt();
                    DVec3::new(x, y, z)
                })
                .collect()
        })
        .collect();
    let mut car = Part::new("car");
    car.loft(&rings);
    car
}

/// The car and the six arms.
pub(crate) fn generate() -> Scene {
    let urdf = format!("../robots/{ROBOT}/{ROBOT}.urdf");
    let mut bodies = Vec::new();
    for (side, (y, yaw)) in [(-ARM_Y, 90.0), (ARM_Y, -90.0)].into_iter().enumerate() {
        for (k, &x) in ARM_X.iter().enumerate() {
            bodies.push(BodyEntry {
                name: format!("arm{}", 3 * side + k + 1),
                urdf: urdf.clone(),
                translation: DVec3::new(x, y, 0.0),
                yaw_deg: yaw,
            });
        }
    }
    Scene {
        name: "arms_car".to_owned(),
        zones: vec![("car".to_owned(), vec![body()])],
        bodies,
        ron: "data/scenes/arms_car.ron".to_owned(),
        max_step: Some(0.005),
    }
}
