//! A humanoid mobile manipulator shaped like DLR's Justin, and a lab to
//! move it in: the M3 benchmark of a robot on an omnidirectional base
//! whose location and orientation are known within bounds.
//!
//! **What.** The robot `humanoid` ([`robot`], frames z up, x forward):
//!
//! - `platform` (the URDF's root): a box 0.8 × 0.6 × 0.3 m standing
//!   0.1 m above the floor, with four wheel links (`wheel_fl`, …), each
//!   turned about z by its steering joint (`steer_fl`, …) under a corner;
//! - a torso of three joints on the platform's top: `torso_yaw` (about z),
//!   then `torso_pitch_1` and `torso_pitch_2` (about y), carrying the chest
//!   (`torso_upper`);
//! - two 7-joint arms from the chest's sides, like a human's or DLR's LWR:
//!   shoulder (`*_shoulder_1` about y, `*_shoulder_2` about z,
//!   `*_shoulder_3` rolling about x), elbow (`*_elbow`, about y) and wrist
//!   (`*_wrist_1` roll, `*_wrist_2` pitch, `*_wrist_3` roll), the upper arm
//!   and the forearm about 0.4 m each, ending in a hand (a palm and a
//!   thumb); at `q = 0` both arms point straight ahead at shoulder height;
//! - a head on two joints (`head_pan` about z, `head_tilt` about y).
//!
//! 24 links, all with geometry (boxes, closed cylinders and capsules of
//! [`Part`]), 23 revolute joints with limits, efforts and velocities of
//! that class of robot. Scenes: `humanoid_lab.ron` puts it on a mobile
//! base (`Omni`, location uncertainty [`LOCATION_UNCERTAINTY`],
//! orientation uncertainty [`ORIENTATION_UNCERTAINTY_DEG`]) among two
//! tables, two shelves and two walls ([`furniture`]); `humanoid_arms.ron`
//! stands it at the same pose without one (the benchmark without the
//! vehicle), in the same room on the same mesh files.
//!
//! **Why.** M3's monitor was shown on Justin: a platform whose motion and
//! localisation error move everything above it, two long arms and a head.
//! The recipe keeps the clearances reviewable: at the neutral
//! configuration nothing touches (the closest links are a few centimetres
//! apart) and the nearest furniture is between 0.3 and 1 m away.

use std::fmt::Write as _;

use glam::{DAffine3, DVec3};

use super::GeneratedFile;
use super::mesh::{Part, frame_along};
use super::write::{fmt_exact, obj, stl};

/// The robot's name (its folder and URDF file).
pub(crate) const ROBOT: &str = "humanoid";
/// The scene with the mobile base.
pub(crate) const LAB: &str = "humanoid_lab";
/// The scene without it.
pub(crate) const ARMS: &str = "humanoid_arms";
/// The body's name in both scenes.
pub(crate) const BODY: &str = "humanoid";
/// The mobile base's location uncertainty Δ (metres).
pub(crate) const LOCATION_UNCERTAINTY: f64 = 0.02;
/// The mobile base's orientation uncertainty β (degrees; written in
/// radians).
pub(crate) const ORIENTATION_UNCERTAINTY_DEG: f64 = 0.5;

/// Segments around a cylinder or capsule; rings per capsule end.
const SEGMENTS: usize = 16;
const CAP_RINGS: usize = 3;

/// Platform: half extents, and the height of its underside.
const PLATFORM_HALF: DVec3 = DVec3::new(0.4, 0.3, 0.15);
const PLATFORM_CLEARANCE: f64 = 0.1;
/// Steering joints under the platform's corners (x, y), at its underside.
const WHEEL_AT: (f64, f64) = (0.28, 0.2);
/// Wheel radius and half width; the axle is this far below the steering
/// joint.
const WHEEL: (f64, f64) = (0.045, 0.025);
const WHEEL_DROP: f64 = 0.05;

/// Torso: the yaw joint on the platform's top, the first pitch joint above
/// it, the second above that (chest frame), and the shoulders and neck in
/// the chest frame.
const TORSO_PITCH_1: f64 = 0.17;
const TORSO_PITCH_2: f64 = 0.36;
const CHEST_HALF: DVec3 = DVec3::new(0.11, 0.19, 0.16);
const CHEST_CENTER_Z: f64 = 0.2;
const SHOULDER: DVec3 = DVec3::new(0.0, 0.235, 0.3);
const NECK_Z: f64 = 0.38;

/// Arm offsets along the arm (x at `q = 0`): shoulder 1 → 2 (sideways),
/// 2 → 3, 3 → elbow, elbow → wrist 1, wrist 1 → 2, wrist 2 → 3.
const SHOULDER_SIDE: f64 = 0.11;
const UPPER_ARM: [f64; 2] = [0.07, 0.34];
const FOREARM: [f64; 2] = [0.2, 0.21];
const HAND_OFFSET: f64 = 0.06;

/// A revolute joint's URDF `<limit>`: the range in degrees (written in
/// radians), the effort (N m) and the velocity (rad/s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Drive {
    pub(crate) limits_deg: (f64, f64),
    pub(crate) effort: f64,
    pub(crate) velocity: f64,
}

const fn drive(lower: f64, upper: f64, effort: f64, velocity: f64) -> Drive {
    Drive {
        limits_deg: (lower, upper),
        effort,
        velocity,
    }
}

/// Wheel steering, torso, head.
const STEERING: Drive = drive(-180.0, 180.0, 20.0, 3.0);
const TORSO_YAW: Drive = drive(-170.0, 170.0, 300.0, 1.0);
const TORSO_BEND_1: Drive = drive(-20.0, 90.0, 300.0, 1.0);
const TORSO_BEND_2: Drive = drive(-90.0, 60.0, 300.0, 1.0);
const HEAD_PAN: Drive = drive(-90.0, 90.0, 10.0, 2.0);
const HEAD_TILT: Drive = drive(-30.0, 45.0, 10.0, 2.0);
/// The arms' joints, like DLR's LWR: alternately ±170° and ±120°, from
/// the first shoulder joint's ±170° on; the shoulder strongest, the wrist
/// fastest.
const SHOULDER_120: Drive = drive(-120.0, 120.0, 176.0, 1.9);
const SHOULDER_170: Drive = drive(-170.0, 170.0, 176.0, 1.9);
const ELBOW_170: Drive = drive(-170.0, 170.0, 100.0, 2.2);
const ELBOW_120: Drive = drive(-120.0, 120.0, 100.0, 2.2);
const WRIST_170: Drive = drive(-170.0, 170.0, 38.0, 3.1);
const WRIST_120: Drive = drive(-120.0, 120.0, 38.0, 3.1);

/// One revolute joint: `child`'s frame sits in `parent`'s at `xyz`
/// (no rotation at `q = 0`) and turns about `axis`, driven by `drive`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Joint {
    pub(crate) name: String,
    pub(crate) parent: String,
    pub(crate) child: String,
    pub(crate) xyz: DVec3,
    pub(crate) axis: DVec3,
    pub(crate) drive: Drive,
}

impl Joint {
    fn new(name: &str, parent: &str, child: &str, xyz: DVec3, axis: DVec3, drive: Drive) -> Self {
        Self {
            name: name.to_owned(),
            parent: parent.to_owned(),
            child: child.to_owned(),
            xyz,
            axis,
            drive,
        }
    }
}

/// The robot: links (each a [`Part`] named after its link, in its own
/// frame), the root first, and joints, each child after its parent.
#[derive(Clone, Debug, Default)]
pub(crate) struct Robot {
    pub(crate) links: Vec<Part>,
    pub(crate) joints: Vec<Joint>,
}

impl Robot {
    /// Number of triangles over all links.
    pub(crate) fn triangles(&self) -> usize {
        self.links.iter().map(Part::triangle_count).sum()
    }

    /// The URDF document; link meshes are `meshes/<link>.stl`.
    pub(crate) fn urdf(&self) -> String {
        let v3 = |v: DVec3| format!("{} {} {}", fmt_exact(v.x), fmt_exact(v.y), fmt_exact(v.z));
        let mut s = String::new();
        s.push_str("<?xml version=\"1.0\"?>\n");
        let _ = writeln!(
            s,
            "<!-- A humanoid mobile manipulator shaped like DLR's Justin: a platform on four\n     \
             steered wheels, a three-joint torso, two 7-joint arms with hands and a\n     \
             two-joint head; {} links, {} revolute joints (generated by `cargo xtask gen-data`). -->",
            self.links.len(),
            self.joints.len()
        );
        let _ = writeln!(s, "<robot name=\"{ROBOT}\">");
        for part in &self.links {
            let (name, file) = (part.name(), mesh_file(part.name()));
            let _ = writeln!(
                s,
                "  <link name=\"{name}\">\n    \
                 <visual>\n      <geometry><mesh filename=\"{file}\"/></geometry>\n    </visual>\n    \
                 <collision>\n      <geometry><mesh filename=\"{file}\"/></geometry>\n    </collision>\n  \
                 </link>"
            );
        }
        for j in &self.joints {
            let _ = write!(
                s,
                "  <joint name=\"{}\" type=\"revolute\">\n    \
                 <parent link=\"{}\"/>\n    <child link=\"{}\"/>\n    \
                 <origin xyz=\"{}\" rpy=\"0.0 0.0 0.0\"/>\n    \
                 <axis xyz=\"{}\"/>\n    \
                 <limit lower=\"{}\" upper=\"{}\" effort=\"{}\" velocity=\"{}\"/>\n  \
                 </joint>\n",
                j.name,
                j.parent,
                j.child,
                v3(j.xyz),
                v3(j.axis),
                fmt_exact(j.drive.limits_deg.0.to_radians()),
                fmt_exact(j.drive.limits_deg.1.to_radians()),
                fmt_exact(j.drive.effort),
                fmt_exact(j.drive.velocity)
            );
        }
        s.push_str("</robot>\n");
        s
    }

    /// The URDF and the link meshes, relative to the robot's folder.
    pub(crate) fn files(&self) -> Vec<(String, Vec<u8>)> {
        let mut out = vec![(format!("{ROBOT}.urdf"), self.urdf().into_bytes())];
        for part in &self.links {
            let header = format!(
                "{ROBOT} {} (generated by cargo xtask gen-data)",
                part.name()
            );
            out.push((mesh_file(part.name()), stl(&header, part)));
        }
        out
    }
}

fn mesh_file(link: &str) -> String {
    format!("meshes/{link}.stl")
}

/// A closed capsule of radius `r` about the segment `a`–`b` (`a ≠ b`).
fn capsule(part: &mut Part, a: DVec3, b: DVec3, r: f64) {
    let len = (b - a).length();
    let quarter = core::f64::consts::FRAC_PI_2;
    let mut profile = vec![(0.0, -r)];
    for i in 1..=CAP_RINGS {
        let t = quarter * i as f64 / CAP_RINGS as f64;
        profile.push((r * t.sin(), -r * t.cos()));
    }
    for i in (1..=CAP_RINGS).rev() {
        let t = quarter * i as f64 / CAP_RINGS as f64;
        profile.push((r * t.sin(), len + r * t.cos()));
    }
    profile.push((0.0, len + r));
    part.lathe(&frame_along(a, b - a), &profile, SEGMENTS);
}

/// A closed cylinder of radius `r` about the segment `a`–`b`.
fn cylinder(part: &mut Part, a: DVec3, b: DVec3, r: f64) {
    part.cylinder(a, b, r, SEGMENTS);
}

/// A part made by `build`.
fn part(name: impl Into<String>, build: impl FnOnce(&mut Part)) -> Part {
    let mut p = Part::new(name);
    build(&mut p);
    p
}

/// One arm, `side` +1 (left, +y) or −1 (right): its links and joints,
/// hanging from the chest `torso_upper`.
fn arm(side: f64, links: &mut Vec<Part>, joints: &mut Vec<Joint>) {
    let p = if side > 0.0 { "l" } else { "r" };
    let y = DVec3::Y * side;
    let names = [
        format!("{p}_shoulder_pod"),
        format!("{p}_shoulder"),
        format!("{p}_upper_arm"),
        format!("{p}_elbow_link"),
        format!("{p}_forearm"),
        format!("{p}_wrist"),
        format!("{p}_hand"),
    ];
    // The pod reaches sideways towards the second shoulder joint.
    links.push(part(&names[0], |m| {
        cylinder(m, DVec3::ZERO, y * 0.07, 0.055);
    }));
    links.push(part(&names[1], |m| {
        cylinder(m, DVec3::Z * -0.06, DVec3::Z * 0.06, 0.055);
    }));
    links.push(part(&names[2], |m| {
        capsule(m, DVec3::X * 0.07, DVec3::X * (UPPER_ARM[1] - 0.07), 0.05);
    }));
    links.push(part(&names[3], |m| {
        cylinder(m, y * -0.045, y * 0.045, 0.05);
        capsule(m, DVec3::X * 0.06, DVec3::X * 0.14, 0.045);
    }));
    links.push(part(&names[4], |m| {
        capsule(m, DVec3::X * 0.03, DVec3::X * 0.17, 0.04);
    }));
    links.push(part(&names[5], |m| {
        cylinder(m, y * -0.035, y * 0.035, 0.04);
    }));
    // Palm down, the thumb on the inner side.
    links.push(part(&names[6], |m| {
        m.cuboid(
            &DAffine3::from_translation(DVec3::X * 0.08),
            DVec3::new(0.06, 0.045, 0.015),
        );
        capsule(
            m,
            DVec3::new(0.05, -0.045 * side, 0.0),
            DVec3::new(0.1, -0.07 * side, 0.0),
            0.012,
        );
    }));
    let spec = [
        (
            "shoulder_1",
            SHOULDER * DVec3::new(1.0, side, 1.0),
            DVec3::Y,
            SHOULDER_170,
        ),
        ("shoulder_2", y * SHOULDER_SIDE, DVec3::Z, SHOULDER_120),
        ("shoulder_3", DVec3::X * UPPER_ARM[0], DVec3::X, ELBOW_170),
        ("elbow", DVec3::X * UPPER_ARM[1], DVec3::Y, ELBOW_120),
        ("wrist_1", DVec3::X * FOREARM[0], DVec3::X, WRIST_170),
        ("wrist_2", DVec3::X * FOREARM[1], DVec3::Y, WRIST_120),
        ("wrist_3", DVec3::X * HAND_OFFSET, DVec3::X, WRIST_170),
    ];
    let mut parent = "torso_upper";
    for ((name, xyz, axis, drive), child) in spec.into_iter().zip(&names) {
        joints.push(Joint::new(
            &format!("{p}_{name}"),
            parent,
            child,
            xyz,
            axis,
            drive,
        ));
        parent = child;
    }
}

/// The robot (see the [module docs](self)).
pub(crate) fn robot() -> Robot {
    let mut links = Vec::new();
    let mut joints = Vec::new();
    let top = PLATFORM_CLEARANCE + 2.0 * PLATFORM_HALF.z;
    links.push(part("platform", |m| {
        m.cuboid(
            &DAffine3::from_translation(DVec3::Z * (PLATFORM_CLEARANCE + PLATFORM_HALF.z)),
            PLATFORM_HALF,
        );
    }));
    for (corner, sx, sy) in [
        ("fl", 1.0, 1.0),
        ("fr", 1.0, -1.0),
        ("rl", -1.0, 1.0),
        ("rr", -1.0, -1.0),
    ] {
        let link = format!("wheel_{corner}");
        links.push(part(&link, |m| {
            let axle = DVec3::Z * -WHEEL_DROP;
            cylinder(
                m,
                axle - DVec3::Y * WHEEL.1,
                axle + DVec3::Y * WHEEL.1,
                WHEEL.0,
            );
        }));
        joints.push(Joint::new(
            &format!("steer_{corner}"),
            "platform",
            &link,
            DVec3::new(sx * WHEEL_AT.0, sy * WHEEL_AT.1, PLATFORM_CLEARANCE),
            DVec3::Z,
            STEERING,
        ));
    }
    links.push(part("torso_base", |m| {
        m.lathe(
            &DAffine3::IDENTITY,
            &[(0.0, 0.0), (0.13, 0.0), (0.13, 0.12), (0.0, 0.12)],
            SEGMENTS + 4,
        );
    }));
    links.push(part("torso_lower", |m| {
        cylinder(m, DVec3::Y * -0.1, DVec3::Y * 0.1, 0.07);
        capsule(m, DVec3::Z * 0.02, DVec3::Z * 0.28, 0.09);
    }));
    links.push(part("torso_upper", |m| {
        cylinder(m, DVec3::Y * -0.09, DVec3::Y * 0.09, 0.06);
        m.cuboid(
            &DAffine3::from_translation(DVec3::Z * CHEST_CENTER_Z),
            CHEST_HALF,
        );
    }));
    joints.push(Joint::new(
        "torso_yaw",
        "platform",
        "torso_base",
        DVec3::Z * top,
        DVec3::Z,
        TORSO_YAW,
    ));
    joints.push(Joint::new(
        "torso_pitch_1",
        "torso_base",
        "torso_lower",
        DVec3::Z * TORSO_PITCH_1,
        DVec3::Y,
        TORSO_BEND_1,
    ));
    joints.push(Joint::new(
        "torso_pitch_2",
        "torso_lower",
        "torso_upper",
        DVec3::Z * TORSO_PITCH_2,
        DVec3::Y,
        TORSO_BEND_2,
    ));
    arm(1.0, &mut links, &mut joints);
    arm(-1.0, &mut links, &mut joints);
    links.push(part("neck", |m| {
        cylinder(m, DVec3::ZERO, DVec3::Z * 0.09, 0.045);
    }));
    // A head with a camera bar across its face.
    links.push(part("head", |m| {
        m.cuboid(
            &DAffine3::from_translation(DVec3::new(0.02, 0.0, 0.12)),
            DVec3::new(0.09, 0.1, 0.1),
        );
        m.cuboid(
            &DAffine3::from_translation(DVec3::new(0.12, 0.0, 0.14)),
            DVec3::new(0.015, 0.08, 0.02),
        );
    }));
    joints.push(Joint::new(
        "head_pan",
        "torso_upper",
        "neck",
        DVec3::Z * NECK_Z,
        DVec3::Z,
        HEAD_PAN,
    ));
    joints.push(Joint::new(
        "head_tilt",
        "neck",
        "head",
        DVec3::Z * 0.11,
        DVec3::Y,
        HEAD_TILT,
    ));
    Robot { links, joints }
}

// ---------------------------------------------------------------------
// The lab.

/// Table: top size (x, y), height, top thickness, leg side and inset.
const TABLE: (f64, f64, f64) = (0.8, 1.2, 0.75);
const TABLE_TOP: f64 = 0.04;
const TABLE_LEG: f64 = 0.05;
/// Shelf: width, depth, height, panel thickness; the boards' top
/// surfaces.
const SHELF: (f64, f64, f64) = (1.0, 0.4, 2.0);
const SHELF_PANEL: f64 = 0.02;
const SHELF_BOARDS: [f64; 4] = [0.1, 0.73, 1.36, 2.0];
/// Walls: thickness and height.
const WALL: (f64, f64) = (0.1, 2.5);

/// A table whose top's centre is at (x, y), `yaw` about z.
fn table(name: &str, x: f64, y: f64, yaw: f64) -> Part {
    let pose = DAffine3::from_translation(DVec3::new(x, y, 0.0)) * DAffine3::from_rotation_z(yaw);
    let (sx, sy, h) = TABLE;
    part(name, |m| {
        m.cuboid(
            &(pose * DAffine3::from_translation(DVec3::Z * (h - 0.5 * TABLE_TOP))),
            DVec3::new(0.5 * sx, 0.5 * sy, 0.5 * TABLE_TOP),
        );
        let inset = 0.03 + 0.5 * TABLE_LEG;
        let leg_h = h - TABLE_TOP;
        for (cx, cy) in [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)] {
            let at = DVec3::new(
                cx * (0.5 * sx - inset),
                cy * (0.5 * sy - inset),
                0.5 * leg_h,
            );
            m.cuboid(
                &(pose * DAffine3::from_translation(at)),
                DVec3::new(0.5 * TABLE_LEG, 0.5 * TABLE_LEG, 0.5 * leg_h),
            );
        }
    })
}

/// A shelf whose open front's centre, on the floor, is at (x, y), facing
/// `yaw` (0: the front faces +x): two side panels, a back panel and four
/// boards.
fn shelf(name: &str, x: f64, y: f64, yaw: f64) -> Part {
    let pose = DAffine3::from_translation(DVec3::new(x, y, 0.0)) * DAffine3::from_rotation_z(yaw);
    let (w, d, h) = SHELF;
    let t = SHELF_PANEL;
    part(name, |m| {
        let mut slab = |center: DVec3, half: DVec3| {
            m.cuboid(&(pose * DAffine3::from_translation(center)), half);
        };
        for side in [1.0, -1.0] {
            slab(
                DVec3::new(-0.5 * d, side * 0.5 * (w - t), 0.5 * h),
                DVec3::new(0.5 * d, 0.5 * t, 0.5 * h),
            );
        }
        slab(
            DVec3::new(-d + 0.5 * t, 0.0, 0.5 * h),
            DVec3::new(0.5 * t, 0.5 * w - t, 0.5 * h),
        );
        for top in SHELF_BOARDS {
            slab(
                DVec3::new(-0.5 * d - 0.5 * t, 0.0, top - 0.5 * t),
                DVec3::new(0.5 * (d - t), 0.5 * w - t, 0.5 * t),
            );
        }
    })
}

/// The lab's furniture, one part per piece: a table ahead of the robot
/// and one to its left, a shelf behind it and one to its right, the back
/// and right walls.
pub(crate) fn furniture() -> Vec<Part> {
    use core::f64::consts::FRAC_PI_2;
    let (wt, wh) = WALL;
    let wall = |name: &str, lo: DVec3, hi: DVec3| part(name, |m| m.aabox(lo, hi));
    vec![
        table("table_front", 1.9, 0.0, 0.0),
        table("table_side", 0.4, 1.4, FRAC_PI_2),
        shelf("shelf_back", -1.2, 0.0, 0.0),
        shelf("shelf_side", 0.0, -1.1, FRAC_PI_2),
        wall(
            "wall_back",
            DVec3::new(-1.65 - wt, -1.6, 0.0),
            DVec3::new(-1.65, 2.5, wh),
        ),
        wall(
            "wall_side",
            DVec3::new(-1.65 - wt, -1.6 - wt, 0.0),
            DVec3::new(3.0, -1.6, wh),
        ),
    ]
}

/// A scene file: the robot at the origin, on a mobile base or not, and
/// the furniture (mesh files in `humanoid_lab/`).
fn scene_ron(mobile: bool) -> String {
    let mut s = if mobile {
        format!(
            "// The humanoid on an omnidirectional mobile base (location known within\n\
             // {} m, orientation within {}°) among tables, shelves and walls\n\
             // (generated by `cargo xtask gen-data`).\n",
            fmt_exact(LOCATION_UNCERTAINTY),
            fmt_exact(ORIENTATION_UNCERTAINTY_DEG)
        )
    } else {
        "// The humanoid at the origin without a mobile base, among tables, shelves\n\
         // and walls (generated by `cargo xtask gen-data`).\n"
            .to_owned()
    };
    s.push_str("Scene(\n    bodies: [\n");
    let _ = write!(
        s,
        "        Body(name: \"{BODY}\", urdf: \"../robots/{ROBOT}/{ROBOT}.urdf\",\n             \
         base: Pose(translation: (0.0, 0.0, 0.0), rotation: (0.0, 0.0, 0.0, 1.0))"
    );
    if mobile {
        let _ = write!(
            s,
            ",\n             mobile_base: MobileBase(vehicle: Omni, location_uncertainty: {},\n                                     \
             orientation_uncertainty: {})",
            fmt_exact(LOCATION_UNCERTAINTY),
            fmt_exact(ORIENTATION_UNCERTAINTY_DEG.to_radians())
        );
    }
    s.push_str("),\n    ],\n    obstacles: [\n");
    for p in furniture() {
        let _ = writeln!(
            s,
            "        Obstacle(name: \"{0}\", mesh: \"{LAB}/{0}.obj\", scale: 1.0,\n                 \
             pose: Pose(translation: (0.0, 0.0, 0.0), rotation: (0.0, 0.0, 0.0, 1.0))),",
            p.name()
        );
    }
    s.push_str(
        "    ],\n    disabled_pairs: [],\n    self_collision: true,\n    distance_threshold: 0.0001,\n)\n",
    );
    s
}

/// Every file of the robot and its two scenes, in a fixed order.
pub(crate) fn files() -> Vec<GeneratedFile> {
    let mut out: Vec<GeneratedFile> = robot()
        .files()
        .into_iter()
        .map(|(path, bytes)| GeneratedFile {
            path: format!("data/robots/{ROBOT}/{path}"),
            bytes,
        })
        .collect();
    for p in furniture() {
        out.push(GeneratedFile {
            path: format!("data/scenes/{LAB}/{}.obj", p.name()),
            bytes: obj(&format!("{LAB} {}", p.name()), std::slice::from_ref(&p)).into_bytes(),
        });
    }
    for (name, mobile) in [(LAB, true), (ARMS, false)] {
        out.push(GeneratedFile {
            path: format!("data/scenes/{name}.ron"),
            bytes: scene_ron(mobile).into_bytes(),
        });
    }
    out
}

/// The rows of `data/README.md`'s table for the robot and its scenes.
pub(crate) fn readme_rows() -> String {
    let r = robot();
    let furniture = furniture();
    let triangles: usize = furniture.iter().map(Part::triangle_count).sum();
    let n = furniture.len();
    format!(
        "| `robots/{ROBOT}/{ROBOT}.urdf`, `robots/{ROBOT}/meshes/*.stl` | humanoid mobile manipulator (Justin-like): platform on four steered wheels, torso 3, two arms 7 + hands, head 2; {} joints | {} | {} links | {} |\n\
         | `scenes/{LAB}.ron`, `scenes/{LAB}/*.obj` | the humanoid on an omnidirectional mobile base among tables, shelves, walls | {n} | {n} | {triangles} |\n\
         | `scenes/{ARMS}.ron` (the meshes of `{LAB}`) | the same room, the humanoid without its mobile base | {n} | {n} | {triangles} |\n",
        r.joints.len(),
        r.links.len(),
        r.links.len(),
        r.triangles(),
    )
}

/// The README's section on the humanoid.
pub(crate) const README_SECTION: &str = "
## Humanoid mobile manipulator

`robots/humanoid/humanoid.urdf` is a robot shaped like DLR's Justin (z up,
x forward; see `xtask/src/gen/humanoid.rs`): a platform (a box
0.8 × 0.6 × 0.3 m, 0.1 m above the floor) on four wheels, each on its own
steering joint (`steer_fl`, `steer_fr`, `steer_rl`, `steer_rr`, ±180°);
a torso of three joints on the platform's top (`torso_yaw` about z, then
`torso_pitch_1` and `torso_pitch_2` about y); two 7-joint arms from the
chest's sides, shoulders 1.23 m above the floor (`l_shoulder_1` about y,
`l_shoulder_2` about z, `l_shoulder_3` rolling, `l_elbow`, `l_wrist_1` roll,
`l_wrist_2` pitch, `l_wrist_3` roll; LWR-like limits ±170° / ±120°, upper
arm and forearm about 0.4 m each) ending in hands (palm and thumb), and
`r_…` alike; a head on `head_pan` and `head_tilt`. 24 links, every one
with a closed mesh (boxes, cylinders, capsules), 23 revolute joints, each
with limits, an effort and a velocity. At q = 0 the arms point straight
ahead at shoulder height, the hands reaching 1.02 m in front of the
platform's centre.

- `humanoid_lab.ron`: the humanoid at the origin on a mobile base
  (`mobile_base: MobileBase(vehicle: Omni, location_uncertainty: 0.02,
  orientation_uncertainty: 0.5°)`, see docs/cli.md), in a room with a
  table ahead and one to its left (1.2 × 0.8 × 0.75 m: top and four
  legs), a shelf behind it and one to its right (1 × 0.4 × 2 m: side and
  back panels, four boards) and two walls. Configuration: 33 values,
  32 degrees of freedom: `humanoid/location` (x, y, z),
  `humanoid/orientation` (quaternion x, y, z, w), `humanoid/vehicle`
  (φ, s, α), then the URDF's joints in file order (steering ×4, torso ×3,
  left arm ×7, right arm ×7, head ×2).
- `humanoid_arms.ron`: the same robot at the same pose without the mobile
  base (23 values), in the same room on the same mesh files.

At the neutral configuration (zeros, the identity quaternion) both are
free: the nearest furniture is 0.67 m away (the table ahead, from the
hands), and the closest links that are tested, a shoulder pod and its
upper arm, are 4.4 cm apart.
";

#[cfg(test)]
mod tests {
    use super::{ARMS, BODY, LAB, ROBOT, furniture, robot};
    use crate::gen_data::mesh::Part;
    use crate::gen_data::repo_root;
    use armature::{Pipeline, Scene};
    use armature_bvh_geometry::TriMesh;
    use armature_kinematics::UrdfModel;

    fn mesh(part: &Part) -> TriMesh {
        TriMesh::new(part.vertices().to_vec(), part.triangles().collect()).unwrap()
    }

    fn scene(name: &str) -> Scene {
        let path = repo_root().join(format!("data/scenes/{name}.ron"));
        let scene = Scene::from_file(&path).unwrap();
        assert!(
            scene.warnings().is_empty(),
            "{name}: {:?}",
            scene.warnings()
        );
        scene
    }

    #[test]
    fn the_robot_has_its_links_and_joints() {
        let r = robot();
        assert_eq!((r.links.len(), r.joints.len()), (24, 23));
        let triangles = r.triangles();
        assert!((1500..=4000).contains(&triangles), "{triangles}");
        for p in r.links.iter().chain(&furniture()) {
            let mp = mesh(p)
                .mass_properties()
                .unwrap_or_else(|e| panic!("{}: {e}", p.name()));
            assert!(mp.volume > 0.0, "{}", p.name());
        }
        let path = repo_root().join(format!("data/robots/{ROBOT}/{ROBOT}.urdf"));
        let model = UrdfModel::from_file(path).unwrap();
        let tree = model.tree();
        assert_eq!((tree.len(), tree.nq()), (24, 23));
        assert!(
            tree.links()
                .iter()
                .skip(1)
                .all(|l| l.joint().limits.is_some())
        );
    }

    #[test]
    fn the_lab_puts_the_base_joints_first() {
        let lab = scene(LAB);
        assert_eq!((lab.nq(), lab.dof(), lab.num_links()), (33, 32, 27));
        let joints = lab.joints();
        let names: Vec<&str> = joints
            .iter()
            .map(|j| j.name.strip_prefix("humanoid/").unwrap())
            .collect();
        assert_eq!(
            names[..8],
            [
                "location",
                "orientation",
                "vehicle",
                "steer_fl",
                "steer_fr",
                "steer_rl",
                "steer_rr",
                "torso_yaw"
            ]
        );
        assert_eq!(names[10], "l_shoulder_1");
        assert_eq!(names[17], "r_shoulder_1");
        assert_eq!(names[23], "r_wrist_3");
        assert_eq!(names[24..], ["head_pan", "head_tilt"]);
        assert_eq!(joints[1].q, 3..7);
        assert_eq!(joints[2].kind, "omni-vehicle");
        assert_eq!(joints[3].q, 10..11);
        let arms = scene(ARMS);
        assert_eq!((arms.nq(), arms.num_links()), (23, 24));
        assert_eq!(arms.num_link_triangles(), lab.num_link_triangles());
        assert_eq!(arms.num_obstacle_triangles(), lab.num_obstacle_triangles());
        for s in [&lab, &arms] {
            assert_eq!(s.bodies()[0].name, BODY);
            for (i, g) in s.body().links().iter().enumerate() {
                let link = s.link_name(i).unwrap();
                match g {
                    Some(g) => assert!(g.is_closed(), "{link}"),
                    None => assert!(
                        ["location", "orientation", "vehicle"]
                            .iter()
                            .any(|b| link == format!("{BODY}/{b}"))
                    ),
                }
            }
        }
    }

    #[test]
    fn both_scenes_are_free_at_neutral_with_room_to_move() {
        let pipeline = Pipeline::default();
        for name in [LAB, ARMS] {
            let s = scene(name);
            let q = s.body().tree().neutral_configuration();
            let report = pipeline.check(&s, &q).unwrap();
            assert!(!report.colliding, "{name}: {:?}", report.collision);
            // The closest tested links: the shoulder pods and the upper
            // arms' first ends.
            assert!(report.distance > 0.02, "{name}: {report:?}");
            // The furniture alone.
            let text = std::fs::read_to_string(repo_root().join(format!("data/scenes/{name}.ron")))
                .unwrap()
                .replace("self_collision: true", "self_collision: false");
            let alone = Scene::from_ron_str(&text, &repo_root().join("data/scenes")).unwrap();
            let report = pipeline.check(&alone, &q).unwrap();
            let own = pipeline.check(&s, &q).unwrap();
            eprintln!(
                "{name}: self {:.4} m ({:?}), furniture {:.4} m ({:?})",
                own.distance,
                own.closest.map(|c| (
                    s.link_name(c.link).unwrap().to_owned(),
                    s.other_name(c.other).unwrap().to_owned()
                )),
                report.distance,
                report.closest.map(|c| (
                    alone.link_name(c.link).unwrap().to_owned(),
                    alone.other_name(c.other).unwrap().to_owned()
                ))
            );
            assert!((0.3..=1.0).contains(&report.distance), "{name}: {report:?}");
        }
    }
}
