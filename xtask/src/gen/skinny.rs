//! The *skinny tori* scene: two skinny 20-DOF arms threading three thin
//! rings, the thin-obstacle example where sampling a motion at a fixed
//! resolution steps over collisions.
//!
//! **Robot** (`skinny20`). A round plinth and twenty square links
//! [`THICKNESS`] thick and [`LINK_LENGTH`] long (2 m of arm). Link `i`'s
//! frame sits at joint `i`, the link running from there along its z axis to
//! joint `i + 1`; joint 1 turns about z (the arm's own axis), the others
//! alternate between the y and the x axis, within ±[`BEND_DEG`]. At
//! `q = 0` the arm stands straight up.
//!
//! **Scene.** The arms stand at `x = ±`[`ARM_X`]; three thin tori
//! ([`RINGS`]: tube radius 1.2–1.5 cm) lie around both, one above the
//! other, each slightly tilted, so a bending arm crosses them in many
//! configurations and a straight one stands clear inside them.

use glam::{DAffine3, DQuat, DVec3};

use super::Scene;
use super::mesh::Part;
use super::robot::{JointSpec, Robot};
use super::write::BodyEntry;

/// The robot's name (its folder and URDF file).
pub(crate) const ROBOT: &str = "skinny20";
/// Number of revolute joints.
pub(crate) const JOINTS: usize = 20;
/// Length of each link (joint to joint), metres.
pub(crate) const LINK_LENGTH: f64 = 0.1;
/// Side of each link's square section, metres.
pub(crate) const THICKNESS: f64 = 0.025;
/// Height of the plinth, where joint 1 sits.
pub(crate) const PLINTH: f64 = 0.05;
/// Limit of the bending joints 2..20, degrees either way.
pub(crate) const BEND_DEG: f64 = 60.0;
/// The arms' bases at `(±ARM_X, 0, 0)`.
pub(crate) const ARM_X: f64 = 0.25;
/// The rings: `(centre height, ring radius, tube radius, tilt about x in
/// degrees, tilt about y)`.
pub(crate) const RINGS: [(f64, f64, f64, f64, f64); 3] = [
    (0.45, 0.50, 0.015, 8.0, 0.0),
    (0.95, 0.45, 0.013, 0.0, -10.0),
    (1.45, 0.40, 0.012, -6.0, 6.0),
];
/// Ring subdivision: segments along the ring and around the tube.
const RING_SEGMENTS: (usize, usize) = (128, 12);

/// The link names, the plinth first.
fn link_name(i: usize) -> String {
    if i == 0 {
        "base".to_owned()
    } else {
        format!("link{i}")
    }
}

/// The 20-DOF arm.
pub(crate) fn robot() -> Robot {
    let h = 0.5 * THICKNESS;
    let mut links = Vec::with_capacity(JOINTS + 1);
    let mut base = Part::new(link_name(0));
    base.cylinder(DVec3::ZERO, DVec3::new(0.0, 0.0, PLINTH), 0.06, 20);
    links.push(base);
    for i in 1..=JOINTS {
        let mut link = Part::new(link_name(i));
        link.aabox(DVec3::new(-h, -h, 0.0), DVec3::new(h, h, LINK_LENGTH));
        links.push(link);
    }
    let joints = (1..=JOINTS)
        .map(|i| {
            let (axis, limit) = match i {
                1 => (DVec3::Z, 180.0),
                _ if i % 2 == 0 => (DVec3::Y, BEND_DEG),
                _ => (DVec3::X, BEND_DEG),
            };
            let z = if i == 1 { PLINTH } else { LINK_LENGTH };
            JointSpec::revolute(
                format!("joint{i}"),
                link_name(i - 1),
                link_name(i),
                DVec3::new(0.0, 0.0, z),
                axis,
                (-limit, limit),
            )
        })
        .collect();
    Robot {
        name: ROBOT.to_owned(),
        comment: format!(
            "Skinny arm: {JOINTS} revolute joints (z, then alternately y and x), links {LINK_LENGTH} m \
             long and {THICKNESS} m thick; link i's frame sits at joint i"
        ),
        links,
        joints,
    }
}

/// The three rings.
pub(crate) fn generate() -> Scene {
    let parts = RINGS
        .iter()
        .enumerate()
        .map(|(k, &(z, bend, r, tilt_x, tilt_y))| {
            let rot = DQuat::from_rotation_x(tilt_x.to_radians())
                * DQuat::from_rotation_y(tilt_y.to_radians());
            let mut p = Part::new(format!("ring{k}"));
            let (major, minor) = RING_SEGMENTS;
            p.torus(
                DVec3::ZERO,
                DVec3::X,
                DVec3::Y,
                bend,
                r,
                core::f64::consts::TAU,
                major,
                minor,
            );
            p.transformed(&DAffine3::from_rotation_translation(
                rot,
                DVec3::new(0.0, 0.0, z),
            ))
        })
        .collect::<Vec<_>>();
    let urdf = format!("../robots/{ROBOT}/{ROBOT}.urdf");
    Scene {
        name: "skinny_tori".to_owned(),
        zones: parts
            .into_iter()
            .map(|p| (p.name().to_owned(), vec![p]))
            .collect(),
        bodies: [("left", -ARM_X), ("right", ARM_X)]
            .iter()
            .map(|&(name, x)| BodyEntry {
                name: name.to_owned(),
                urdf: urdf.clone(),
                translation: DVec3::new(x, 0.0, 0.0),
                yaw_deg: 0.0,
            })
            .collect(),
        ron: "data/scenes/skinny_tori.ron".to_owned(),
        max_step: Some(0.002),
    }
}
