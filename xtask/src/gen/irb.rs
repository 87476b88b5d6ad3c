//! A 6-DOF industrial arm shaped like an ABB IRB 2400, plain and with a
//! thin arc-welding torch, for the *welder cage* and *arms car* scenes.
//!
//! **Frames** (as the ROS-Industrial description of the IRB 2400): joint 1
//! turns about z at the base origin; joint 2 (about y) sits at
//! `(0.1, 0, 0.615)`, joint 3 (about y) 0.705 m above it, joint 4 (about
//! x, the forearm roll) 0.135 m above that, joint 5 (about y) 0.755 m
//! along x, joint 6 (about x) 0.085 m further. Every link frame is its
//! joint's frame with no rotation, so at `q = 0` the upper arm stands
//! vertical and the forearm points along +x.
//!
//! **Shapes** ([`links`]). The base drum, the turret with the shoulder
//! block, the upper-arm beam with its hubs, the elbow housing with the
//! counterweight and the forearm housing, the roll tube, the wrist housing
//! and the flange. Adjacent links overlap at their joints; the roll tube
//! stops 14 cm before the wrist centre so that the flange (within 10 cm of
//! it) never reaches it.
//!
//! **Torch** ([`torch`]). The welder variant hangs a fixed-joint child link
//! on the flange: a mount and a 1 cm thin tube running 0.22 m along the
//! tool axis, bending down by 45° and running on (0.41 m of tube).

use glam::DVec3;

use super::mesh::Part;
use super::robot::{JointSpec, Robot};

/// The robot's name (its folder and the plain URDF's name).
pub(crate) const ROBOT: &str = "irb2400";
/// The welder variant's URDF name.
pub(crate) const WELDER: &str = "irb2400_welder";

/// Joint origins in the parent's frame.
const ORIGINS: [DVec3; 6] = [
    DVec3::new(0.0, 0.0, 0.0),
    DVec3::new(0.1, 0.0, 0.615),
    DVec3::new(0.0, 0.0, 0.705),
    DVec3::new(0.0, 0.0, 0.135),
    DVec3::new(0.755, 0.0, 0.0),
    DVec3::new(0.085, 0.0, 0.0),
];
/// Joint axes.
const AXES: [DVec3; 6] = [DVec3::Z, DVec3::Y, DVec3::Y, DVec3::X, DVec3::Y, DVec3::X];
/// Joint limits in degrees (the IRB 2400's working ranges).
pub(crate) const LIMITS_DEG: [(f64, f64); 6] = [
    (-180.0, 180.0),
    (-100.0, 110.0),
    (-60.0, 65.0),
    (-200.0, 200.0),
    (-120.0, 120.0),
    (-400.0, 400.0),
];
/// Link names, base first.
pub(crate) const LINK_NAMES: [&str; 7] =
    ["base", "link1", "link2", "link3", "link4", "link5", "link6"];
/// Tube radius of the welding torch.
pub(crate) const TORCH_RADIUS: f64 = 0.01;

/// The links in their own frames.
pub(crate) fn links() -> Vec<Part> {
    let p = DVec3::new;
    let mut out: Vec<Part> = LINK_NAMES.iter().map(|n| Part::new(*n)).collect();

    // Base: a drum.
    out[0].cylinder(p(0.0, 0.0, 0.0), p(0.0, 0.0, 0.2), 0.22, 64);

    // Link 1: the turret and the shoulder block around joint 2.
    out[1].cylinder(p(0.0, 0.0, 0.2), p(0.0, 0.0, 0.45), 0.19, 64);
    out[1].aabox(p(-0.14, -0.16, 0.44), p(0.2, -0.085, 0.7));
    out[1].cylinder(p(0.1, -0.17, 0.615), p(0.1, -0.08, 0.615), 0.11, 48);

    // Link 2: the upper-arm beam between its hubs (beside the shoulder
    // block: y in [−0.07, 0.07]).
    out[2].cylinder(p(0.0, -0.075, 0.0), p(0.0, 0.075, 0.0), 0.1, 48);
    out[2].aabox(p(-0.065, -0.06, 0.0), p(0.065, 0.06, 0.705));
    out[2].cylinder(p(0.0, -0.07, 0.705), p(0.0, 0.07, 0.705), 0.085, 48);

    // Link 3: the elbow housing, a counterweight behind it and the
    // forearm housing around the roll axis.
    out[3].cylinder(p(0.0, 0.075, 0.0), p(0.0, 0.17, 0.0), 0.095, 48);
    out[3].aabox(p(-0.3, 0.08, -0.07), p(0.05, 0.165, 0.09));
    out[3].aabox(p(-0.12, -0.08, 0.07), p(0.26, 0.17, 0.215));

    // Link 4: the roll tube up to 14 cm before the wrist centre.
    out[4].cylinder(p(0.2, 0.0, 0.0), p(0.615, 0.0, 0.0), 0.06, 48);

    // Link 5: the wrist housing about joint 5 and the stub to the flange.
    out[5].cylinder(p(0.0, -0.06, 0.0), p(0.0, 0.06, 0.0), 0.055, 48);
    out[5].cylinder(p(0.0, 0.0, 0.0), p(0.08, 0.0, 0.0), 0.04, 32);

    // Link 6: the flange.
    out[6].cylinder(p(0.0, 0.0, 0.0), p(0.02, 0.0, 0.0), 0.045, 48);
    out
}

/// The welding torch in the flange's frame: a mount and a bent thin tube.
pub(crate) fn torch() -> Part {
    let mut t = Part::new("torch");
    t.cylinder(
        DVec3::new(0.015, 0.0, 0.0),
        DVec3::new(0.07, 0.0, 0.0),
        0.025,
        16,
    );
    // Straight along the tool axis, a 45° bend of radius 0.06 down
    // towards −z in 6 steps, then straight on.
    let mut path = vec![DVec3::new(0.05, 0.0, 0.0), DVec3::new(0.22, 0.0, 0.0)];
    let (bend, steps) = (0.06, 6);
    let center = DVec3::new(0.22, 0.0, -bend);
    for k in 1..=steps {
        let a = core::f64::consts::FRAC_PI_4 * f64::from(k) / f64::from(steps);
        path.push(center + DVec3::new(a.sin(), 0.0, a.cos()) * bend);
    }
    let end = *path.last().unwrap_or(&DVec3::ZERO);
    let dir = DVec3::new(1.0, 0.0, -1.0).normalize();
    path.push(end + dir * 0.15);
    t.tube(&path, TORCH_RADIUS, 12);
    t
}

fn arm(name: &str, comment: &str, with_torch: bool) -> Robot {
    let mut links = links();
    let mut joints: Vec<JointSpec> = (0..6)
        .map(|i| {
            JointSpec::revolute(
                format!("joint{}", i + 1),
                LINK_NAMES[i],
                LINK_NAMES[i + 1],
                ORIGINS[i],
                AXES[i],
                LIMITS_DEG[i],
            )
        })
        .collect();
    if with_torch {
        links.push(torch());
        joints.push(JointSpec {
            name: "torch_mount".to_owned(),
            parent: LINK_NAMES[6].to_owned(),
            child: "torch".to_owned(),
            xyz: DVec3::ZERO,
            rpy: DVec3::ZERO,
            axis: DVec3::X,
            limits: None,
        });
    }
    Robot {
        name: name.to_owned(),
        comment: comment.to_owned(),
        links,
        joints,
    }
}

/// The plain arm.
pub(crate) fn robot() -> Robot {
    arm(
        ROBOT,
        "6-DOF industrial arm shaped like an ABB IRB 2400; every link frame is its joint's \
         frame with no rotation (q = 0: upper arm vertical, forearm along +x)",
        false,
    )
}

/// The arm with the welding torch on a fixed joint below the flange.
pub(crate) fn welder() -> Robot {
    arm(
        WELDER,
        "The IRB 2400-like arm with a thin arc-welding torch (fixed to link6); \
         every link frame is its joint's frame with no rotation",
        true,
    )
}

/// The files of `data/robots/irb2400/`: both URDFs and every link mesh
/// (the links they share once).
pub(crate) fn files() -> Vec<(String, Vec<u8>)> {
    let plain = robot();
    let welder = welder();
    let mut out = vec![
        (format!("{ROBOT}.urdf"), plain.urdf().into_bytes()),
        (format!("{WELDER}.urdf"), welder.urdf().into_bytes()),
    ];
    // The welder's meshes are the plain arm's and the torch.
    out.extend(welder.meshes());
    out
}
