//! Scenes and the brute-force oracle shared by the tests: dense samples of
//! a segment, all-pairs triangle intersection and winding-number
//! containment at each, no hierarchy and no distance bound.

#![allow(dead_code, unreachable_pub)]

use std::sync::Arc;

use armature_bvh_geometry::query::{PointLocation, intersect_triangle_triangle, point_location};
use armature_bvh_geometry::{ArticulatedBody, Obstacle, Tessellation, TriMesh};
use armature_kinematics::{Joint, JointSpaceMotion, JointType, KinematicTree, LinkSpec};
use glam::{DAffine3, DVec3};

/// Samples per segment of the oracle.
pub const SAMPLES: usize = 2000;

pub fn cuboid(size: DVec3, center: DVec3) -> Arc<TriMesh> {
    let m = Tessellation::default().cuboid(size).unwrap();
    Arc::new(m.transformed(&DAffine3::from_translation(center)).unwrap())
}

pub fn beam(length: f64, width: f64) -> Arc<TriMesh> {
    cuboid(
        DVec3::new(length, width, width),
        DVec3::new(0.5 * length, 0.0, 0.0),
    )
}

/// A base without geometry and a chain of revolute links along x, each a
/// square beam; joint axes as given.
pub fn chain(name: &str, lengths: &[f64], axes: &[DVec3], width: f64) -> ArticulatedBody {
    let mut specs = vec![LinkSpec::new("base", None)];
    let mut meshes = vec![None];
    for (k, (&l, &axis)) in lengths.iter().zip(axes).enumerate() {
        let parent = if k == 0 {
            "base".to_owned()
        } else {
            format!("l{k}")
        };
        let origin = if k == 0 {
            DAffine3::IDENTITY
        } else {
            DAffine3::from_translation(DVec3::X * lengths[k - 1])
        };
        specs.push(
            LinkSpec::new(format!("l{}", k + 1), Some(&parent))
                .with_joint(Joint::revolute(format!("j{}", k + 1), axis, -7.0, 7.0))
                .with_origin(origin),
        );
        meshes.push(Some(beam(l, width)));
    }
    ArticulatedBody::new(name, KinematicTree::new(specs).unwrap(), meshes).unwrap()
}

/// A free-flying beam (floating joint: x, y, z and a quaternion) carrying
/// a second beam on a ball joint (a quaternion), and a planar cart (x, y,
/// θ about z) carrying a third: every joint whose values are not one angle
/// or one length, so the rounding of interpolated quaternions is
/// exercised. Configuration: 7 floating values, 4 ball values, 3 planar
/// values.
pub fn quaternion_bodies() -> ArticulatedBody {
    let specs = vec![
        LinkSpec::new("flyer", None).with_joint(Joint::new("float", JointType::Floating)),
        LinkSpec::new("forearm", Some("flyer"))
            .with_joint(Joint::new("ball", JointType::Spherical))
            .with_origin(DAffine3::from_translation(DVec3::X * 0.8)),
        LinkSpec::new("cart", None)
            .with_joint(Joint::new("plane", JointType::Planar { normal: DVec3::Z })),
    ];
    ArticulatedBody::new(
        "quaternions",
        KinematicTree::new(specs).unwrap(),
        vec![
            Some(beam(0.8, 0.06)),
            Some(beam(0.6, 0.04)),
            Some(cuboid(DVec3::new(0.5, 0.3, 0.2), DVec3::ZERO)),
        ],
    )
    .unwrap()
}

/// The spatial arm: axes z, y, y; links 1.0, 0.8, 0.6 m.
pub fn arm() -> ArticulatedBody {
    chain(
        "arm",
        &[1.0, 0.8, 0.6],
        &[DVec3::Z, DVec3::Y, DVec3::Y],
        0.1,
    )
}

/// A planar arm of four links turning about z: it can fold onto itself.
pub fn folding_arm() -> ArticulatedBody {
    chain(
        "fold",
        &[0.6, 0.5, 0.5, 0.5],
        &[DVec3::Z, DVec3::Z, DVec3::Z, DVec3::Z],
        0.08,
    )
}

/// Two spatial arms facing each other, 2.2 m apart (two roots).
pub fn two_arms() -> ArticulatedBody {
    let a = arm().with_name("left");
    let b = arm().with_name("right");
    ArticulatedBody::combine(
        "pair",
        &[
            (&a, DAffine3::IDENTITY),
            (
                &b,
                DAffine3::from_translation(DVec3::new(2.2, 0.0, 0.0))
                    * DAffine3::from_rotation_z(std::f64::consts::PI),
            ),
        ],
    )
    .unwrap()
}

/// Thin obstacles around the arm: a 2 mm plate, a 2 cm rod, a small box.
pub fn thin_obstacles() -> Vec<Obstacle> {
    vec![
        Obstacle::fixed(
            "plate",
            cuboid(DVec3::new(1.5, 0.002, 1.0), DVec3::ZERO),
            DAffine3::from_translation(DVec3::new(0.0, -1.3, 0.0)),
        )
        .unwrap(),
        Obstacle::fixed(
            "rod",
            cuboid(DVec3::new(0.02, 0.02, 2.0), DVec3::ZERO),
            DAffine3::from_translation(DVec3::new(1.2, 0.6, 0.0)),
        )
        .unwrap(),
        Obstacle::fixed(
            "box",
            cuboid(DVec3::splat(0.3), DVec3::ZERO),
            DAffine3::from_translation(DVec3::new(-1.2, 0.8, 0.4)),
        )
        .unwrap(),
    ]
}

/// One posed closed mesh of the oracle: world triangles, a world vertex,
/// the mesh and its pose, a world bounding sphere.
struct Placed<'a> {
    triangles: Vec<[DVec3; 3]>,
    vertex: DVec3,
    mesh: &'a TriMesh,
    pose: DAffine3,
    centre: DVec3,
    radius: f64,
}

fn place<'a>(mesh: &'a TriMesh, pose: DAffine3) -> Placed<'a> {
    let triangles: Vec<[DVec3; 3]> = mesh
        .triangles()
        .map(|t| t.map(|p| pose.transform_point3(p)))
        .collect();
    let n = mesh.vertices().len() as f64;
    let centre = mesh
        .vertices()
        .iter()
        .map(|&p| pose.transform_point3(p))
        .sum::<DVec3>()
        / n;
    let radius = mesh
        .vertices()
        .iter()
        .map(|&p| pose.transform_point3(p).distance(centre))
        .fold(0.0, f64::max);
    Placed {
        vertex: triangles[0][0],
        triangles,
        mesh,
        pose,
        centre,
        radius,
    }
}

/// Whether `p` lies inside the closed mesh of `other` (or too near its
/// surface to tell).
fn inside(p: DVec3, other: &Placed<'_>) -> bool {
    let local = other.pose.inverse().transform_point3(p);
    point_location(other.mesh, local) != PointLocation::Outside
}

fn overlap(a: &Placed<'_>, b: &Placed<'_>) -> bool {
    if a.centre.distance(b.centre) > (a.radius + b.radius) * (1.0 + 1e-9) + 1e-9 {
        return false;
    }
    for ta in &a.triangles {
        for tb in &b.triangles {
            if intersect_triangle_triangle(ta, tb) {
                return true;
            }
        }
    }
    // Every mesh here is one closed box: disjoint surfaces overlap only
    // when one holds a vertex of the other.
    inside(a.vertex, b) || inside(b.vertex, a)
}

/// Whether the scene collides at configuration `q`: every link with
/// geometry against every obstacle, and non-adjacent links when
/// `self_collision`.
pub fn collides_at(
    body: &ArticulatedBody,
    obstacles: &[Obstacle],
    self_collision: bool,
    q: &[f64],
) -> bool {
    let tree = body.tree();
    let poses = tree.poses(q).unwrap();
    let links: Vec<Option<Placed<'_>>> = body
        .links()
        .iter()
        .zip(&poses)
        .map(|(g, p)| g.as_ref().map(|g| place(&g.mesh, *p)))
        .collect();
    let obs: Vec<Placed<'_>> = obstacles
        .iter()
        .map(|o| place(&o.geometry().mesh, o.pose_at(0.0)))
        .collect();
    for (i, a) in links.iter().enumerate() {
        let Some(a) = a else { continue };
        if obs.iter().any(|b| overlap(a, b)) {
            return true;
        }
        if self_collision {
            for (j, b) in links.iter().enumerate().skip(i + 1) {
                if let Some(b) = b
                    && !tree.are_adjacent(i, j)
                    && overlap(a, b)
                {
                    return true;
                }
            }
        }
    }
    false
}

/// A motion of [`arm`] (all three joints) through the rod of
/// [`thin_obstacles`] whose collision lies between the probed
/// configurations of the checker's set-up (`s = k / 64` at the finest):
/// finding it takes bisection steps. [`probes_miss`] checks it.
pub const ROD_TURN: ([f64; 3], [f64; 3]) = ([0.5, 1.6, 1.7], [-0.1, -1.5, -2.4]);

/// Asserts that the segment `qa → qb` collides at some sample and at none
/// of the set-up's probes (`s = k / 64`, the most the checker probes).
pub fn probes_miss(body: &ArticulatedBody, obstacles: &[Obstacle], qa: &[f64], qb: &[f64]) {
    samples_miss(body, obstacles, qa, qb, 64);
}

/// A turn of [`arm`] about its first joint into the rod of
/// [`thin_obstacles`] whose collision lies between the probes of the
/// five full levels (`s = k / 32`) but not between those of the sixth:
/// [`samples_miss`] with 32 pieces checks it.
pub const ROD_TURN_COARSE: ([f64; 3], [f64; 3]) = ([-0.6, 0.0, 0.0], [3.4, 0.0, 0.0]);

/// Asserts that the segment `qa → qb` collides at some sample and at none
/// of `s = k / pieces`, `0 < k < pieces`.
pub fn samples_miss(
    body: &ArticulatedBody,
    obstacles: &[Obstacle],
    qa: &[f64],
    qb: &[f64],
    pieces: u32,
) {
    assert!(
        first_colliding_sample(body, obstacles, true, qa, qb).is_some(),
        "the segment must collide"
    );
    let tree = body.tree();
    let motion = JointSpaceMotion::new(tree, qa, qb).unwrap();
    let mut q = vec![0.0; tree.nq()];
    for k in 1..pieces {
        motion
            .config_at(tree, f64::from(k) / f64::from(pieces), &mut q)
            .unwrap();
        assert!(
            !collides_at(body, obstacles, true, &q),
            "probe {k}/{pieces} collides"
        );
    }
}

/// The index `k` of the first colliding sample `s = k / SAMPLES` of the
/// segment `qa → qb`, if any.
pub fn first_colliding_sample(
    body: &ArticulatedBody,
    obstacles: &[Obstacle],
    self_collision: bool,
    qa: &[f64],
    qb: &[f64],
) -> Option<usize> {
    let tree = body.tree();
    let motion = JointSpaceMotion::new(tree, qa, qb).unwrap();
    let mut q = vec![0.0; tree.nq()];
    (0..=SAMPLES).find(|&k| {
        motion
            .config_at(tree, k as f64 / SAMPLES as f64, &mut q)
            .unwrap();
        collides_at(body, obstacles, self_collision, &q)
    })
}
