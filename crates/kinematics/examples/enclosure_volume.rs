//! M4 Fig. 5, quantitatively: the volume of a link's dynamic AABB over
//! `t ∈ [0, 1]` from interval enclosures (M1 §4.1) against Taylor enclosures
//! (M4 §5.2) and chord boxes (the link's boxes at the ends of pieces of
//! time, grown by its acceleration bound), at the deepest link of three
//! models, with the volume of the AABB actually swept (sampled at 2,001
//! times) for reference.
//!
//! Every link carries a 0.3 × 0.05 × 0.05 box along its x axis, and every
//! joint swings by the same angle (5°, 15°, 30°) from a random start:
//!
//! - *random-axis chain*: 10 revolute joints with random 3-D axes, 0.3 apart;
//! - *train*: 10 cars joined by revolute joints about axes near z (yaw);
//! - *mannequin*: 15 links — pelvis, torso, head, two arms and two legs of 3
//!   links — with spherical shoulders, hips, waist and neck and revolute
//!   elbows, wrists, knees and ankles.
//!
//! Run with
//!
//! ```text
//! cargo run --release -p armature-kinematics --example enclosure_volume
//! ```

use armature_kinematics::prelude::*;
use glam::{DAffine3, DMat3, DQuat, DVec3};
use std::f64::consts::FRAC_PI_2;

/// A small deterministic generator (SplitMix64), so the table is
/// reproducible.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[−r, r)`.
    fn symmetric(&mut self, r: f64) -> f64 {
        (2.0 * self.next_f64() - 1.0) * r
    }

    /// `±1` with equal odds.
    fn sign(&mut self) -> f64 {
        if self.next_u64() & 1 == 1 { 1.0 } else { -1.0 }
    }

    fn unit_vector(&mut self) -> DVec3 {
        loop {
            let v = DVec3::new(
                self.symmetric(1.0),
                self.symmetric(1.0),
                self.symmetric(1.0),
            );
            let l = v.length();
            if l > 0.1 && l <= 1.0 {
                return v / l;
            }
        }
    }
}

/// A model: its tree and the two configurations of one motion.
struct Scene {
    name: &'static str,
    tree: KinematicTree,
    q0: Vec<f64>,
    q1: Vec<f64>,
}

/// Adds a joint's values to `q0`, `q1`: a revolute joint swings by `swing`
/// from a start in `[−start, start]`; a spherical one turns by `swing` about
/// a random axis from a random rotation of up to `start`.
fn push_values(
    rng: &mut SplitMix64,
    kind: &JointType,
    start: f64,
    swing: f64,
    q0: &mut Vec<f64>,
    q1: &mut Vec<f64>,
) {
    match kind {
        JointType::Revolute { .. } => {
            let a = rng.symmetric(start);
            q0.push(a);
            q1.push(a + rng.sign() * swing);
        }
        JointType::Spherical => {
            let a = DQuat::from_axis_angle(rng.unit_vector(), rng.symmetric(start));
            let b = DQuat::from_axis_angle(rng.unit_vector(), swing) * a;
            q0.extend_from_slice(&[a.x, a.y, a.z, a.w]);
            q1.extend_from_slice(&[b.x, b.y, b.z, b.w]);
        }
        _ => {}
    }
}

fn link(name: &str, parent: Option<&str>, kind: JointType, origin: DAffine3) -> LinkSpec {
    LinkSpec::new(name, parent)
        .with_joint(Joint::new(format!("{name}_joint"), kind))
        .with_origin(origin)
}

fn build(
    name: &'static str,
    rng: &mut SplitMix64,
    specs: Vec<LinkSpec>,
    start: f64,
    swing: f64,
) -> Scene {
    let (mut q0, mut q1) = (Vec::new(), Vec::new());
    for s in &specs {
        push_values(rng, &s.joint.kind, start, swing, &mut q0, &mut q1);
    }
    let tree = KinematicTree::new(specs).expect("valid model");
    Scene { name, tree, q0, q1 }
}

fn offset() -> DAffine3 {
    DAffine3::from_translation(DVec3::new(0.3, 0.0, 0.0))
}

fn random_chain(swing: f64) -> Scene {
    let mut rng = SplitMix64(0x5EED_0001);
    let specs = (0..10)
        .map(|i| {
            let parent = (i > 0).then(|| format!("link{}", i - 1));
            let axis = rng.unit_vector();
            let origin = if i == 0 { DAffine3::IDENTITY } else { offset() };
            link(
                &format!("link{i}"),
                parent.as_deref(),
                JointType::Revolute { axis },
                origin,
            )
        })
        .collect();
    build(
        "random-axis chain (10)",
        &mut rng,
        specs,
        std::f64::consts::PI,
        swing,
    )
}

fn train(swing: f64) -> Scene {
    let mut rng = SplitMix64(0x5EED_0002);
    let specs = (0..10)
        .map(|i| {
            let parent = (i > 0).then(|| format!("car{}", i - 1));
            // Mostly yaw: the axis leans at most ~3° off z.
            let axis = DVec3::new(rng.symmetric(0.05), rng.symmetric(0.05), 1.0).normalize();
            let origin = if i == 0 { DAffine3::IDENTITY } else { offset() };
            link(
                &format!("car{i}"),
                parent.as_deref(),
                JointType::Revolute { axis },
                origin,
            )
        })
        .collect();
    build("train (10 cars)", &mut rng, specs, 0.3, swing)
}

fn mannequin(swing: f64) -> Scene {
    let mut rng = SplitMix64(0x5EED_0003);
    let rev = |axis: DVec3| JointType::Revolute { axis };
    let sph = JointType::Spherical;
    // Link x axes: torso and head up, arms and legs down.
    let up = DMat3::from_rotation_y(-FRAC_PI_2);
    let down = DMat3::from_rotation_y(FRAC_PI_2);
    let at = |m: DMat3, t: DVec3| DAffine3::from_mat3_translation(m, t);
    let mut specs = vec![
        link("pelvis", None, JointType::Fixed, DAffine3::IDENTITY),
        link("torso", Some("pelvis"), sph, at(up, DVec3::ZERO)),
        link("head", Some("torso"), sph, offset()),
    ];
    for (side, y) in [("left", 1.0), ("right", -1.0)] {
        // In the torso frame x is up: the arms hang from the shoulders.
        let shoulder = at(
            DMat3::from_rotation_z(std::f64::consts::PI),
            DVec3::new(0.28, 0.12 * y, 0.0),
        );
        specs.push(link(
            &format!("{side}_upper_arm"),
            Some("torso"),
            sph,
            shoulder,
        ));
        specs.push(link(
            &format!("{side}_forearm"),
            Some(&format!("{side}_upper_arm")),
            rev(DVec3::Z),
            offset(),
        ));
        specs.push(link(
            &format!("{side}_hand"),
            Some(&format!("{side}_forearm")),
            rev(DVec3::Y),
            offset(),
        ));
        specs.push(link(
            &format!("{side}_thigh"),
            Some("pelvis"),
            sph,
            at(down, DVec3::new(0.0, 0.1 * y, 0.0)),
        ));
        specs.push(link(
            &format!("{side}_shin"),
            Some(&format!("{side}_thigh")),
            rev(DVec3::Y),
            offset(),
        ));
        specs.push(link(
            &format!("{side}_foot"),
            Some(&format!("{side}_shin")),
            rev(DVec3::Y),
            offset(),
        ));
    }
    build("mannequin (15)", &mut rng, specs, 0.3, swing)
}

/// The first link of greatest depth.
fn deepest(tree: &KinematicTree) -> usize {
    let mut best = 0;
    for (i, l) in tree.links().iter().enumerate() {
        if l.depth() > tree.links()[best].depth() {
            best = i;
        }
    }
    best
}

/// Volume of the AABB of the box's corners over 2,001 sampled times.
fn sampled_volume(motion: &InBetweenMotion, link: usize, obb: &LinkObb) -> f64 {
    let mut poses = vec![DAffine3::IDENTITY; motion.local().len()];
    let (mut lo, mut hi) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
    for k in 0..=2000 {
        motion
            .poses_at(f64::from(k) / 2000.0, &mut poses)
            .expect("buffer sized to the tree");
        for c in obb.corners() {
            let p = poses[link].transform_point3(c);
            lo = lo.min(p);
            hi = hi.max(p);
        }
    }
    (hi - lo).element_product()
}

fn main() -> Result<(), KinematicsError> {
    let obb = LinkObb::new(
        DVec3::new(0.15, 0.0, 0.0),
        DVec3::new(0.15, 0.025, 0.025),
        DMat3::IDENTITY,
    )?;
    let mut ws = EnclosureWorkspace::new();
    println!(
        "| model | swing | deepest link (depth) | interval AABB volume | Taylor AABB volume | chord AABB volume | interval / Taylor | swept AABB volume (sampled) | Taylor / swept | chords / swept |"
    );
    println!("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|");
    for make in [random_chain, train, mannequin] {
        for deg in [5.0f64, 15.0, 30.0] {
            let scene = make(deg.to_radians());
            let motion = InBetweenMotion::new(&scene.tree, &scene.q0, &scene.q1)?;
            let link = deepest(&scene.tree);
            let ia = ws
                .in_between(&motion, EnclosureKind::Interval, 0.0, 1.0)?
                .obb_aabb(link, &obb)?
                .volume();
            let tm = ws
                .in_between(&motion, EnclosureKind::Taylor, 0.0, 1.0)?
                .obb_aabb(link, &obb)?
                .volume();
            let ch = ws
                .in_between(&motion, EnclosureKind::Chords, 0.0, 1.0)?
                .obb_aabb(link, &obb)?
                .volume();
            let swept = sampled_volume(&motion, link, &obb);
            let l = &scene.tree.links()[link];
            println!(
                "| {} | {deg}° | {} ({}) | {ia:.3e} | {tm:.3e} | {ch:.3e} | {:.1} | {swept:.3e} | {:.2} | {:.2} |",
                scene.name,
                l.name(),
                l.depth(),
                ia / tm,
                tm / swept,
                ch / swept,
            );
        }
    }
    Ok(())
}
