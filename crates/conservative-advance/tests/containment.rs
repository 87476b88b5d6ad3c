//! Closed meshes bound solids: a link inside a closed obstacle, an obstacle
//! inside a closed link, and a link inside another closed link collide at
//! the start although no triangles meet; open meshes keep surface
//! semantics.

use std::sync::Arc;

use armature_bvh_geometry::{ArticulatedBody, DisabledPairs, Obstacle, Tessellation, TriMesh};
use armature_conservative_advance::{
    CcdOptions, CcdReport, CcdStatus, CcdWorkspace, Other, first_contact,
};
use armature_kinematics::{Joint, KinematicTree, LinkSpec};
use glam::{DAffine3, DVec3};

fn cube(side: f64) -> Arc<TriMesh> {
    Arc::new(Tessellation::default().cuboid(DVec3::splat(side)).unwrap())
}

/// A cube with its top face (`z = side / 2`) removed: open.
fn open_cube(side: f64) -> Arc<TriMesh> {
    let m = cube(side);
    let idx: Vec<[u32; 3]> = m
        .indices()
        .iter()
        .copied()
        .filter(|t| !t.iter().all(|&i| m.vertices()[i as usize].z > 0.0))
        .collect();
    assert_eq!(idx.len(), 10);
    Arc::new(TriMesh::new(m.vertices().to_vec(), idx).unwrap())
}

/// One link sliding along x.
fn slider(mesh: Arc<TriMesh>) -> ArticulatedBody {
    let tree = KinematicTree::new(vec![
        LinkSpec::new("slider", None).with_joint(Joint::prismatic("x", DVec3::X, -2.0, 2.0)),
    ])
    .unwrap();
    ArticulatedBody::new("slider", tree, vec![Some(mesh)]).unwrap()
}

fn fixed(name: &str, mesh: Arc<TriMesh>) -> Obstacle {
    Obstacle::fixed(name, mesh, DAffine3::IDENTITY).unwrap()
}

fn query(body: &ArticulatedBody, obstacles: &[Obstacle], q0: &[f64], q1: &[f64]) -> CcdReport {
    first_contact(
        body,
        obstacles,
        &DisabledPairs::new(),
        q0,
        q1,
        &CcdOptions::default(),
        &mut CcdWorkspace::new(),
    )
    .unwrap()
}

#[test]
fn a_small_link_inside_a_closed_box_collides_at_start() {
    let body = slider(cube(0.1));
    let r = query(&body, &[fixed("box", cube(1.0))], &[0.0], &[0.1]);
    assert_eq!(r.status, CcdStatus::CollidingAtStart, "{r:?}");
    assert_eq!(r.toc_lower_bound, 0.0);
    let c = r.contact.unwrap();
    assert_eq!((c.link, c.other, c.time), (0, Other::Obstacle(0), 0.0));
    assert_eq!(c.distance, 0.0);
    assert!(c.normal.is_normalized(), "{c:?}");
}

#[test]
fn a_closed_link_holding_a_small_obstacle_collides_at_start() {
    let body = slider(cube(1.0));
    let r = query(&body, &[fixed("pebble", cube(0.1))], &[0.0], &[0.1]);
    assert_eq!(r.status, CcdStatus::CollidingAtStart, "{r:?}");
    assert_eq!(r.contact.unwrap().other, Other::Obstacle(0));
}

#[test]
fn an_open_box_keeps_surface_semantics() {
    // The small cube inside an open box touches no triangle: free.
    let r = query(
        &slider(cube(0.1)),
        &[fixed("tray", open_cube(1.0))],
        &[0.0],
        &[0.1],
    );
    assert_eq!(r.status, CcdStatus::Free, "{r:?}");
    // An open link around a small obstacle likewise.
    let r = query(
        &slider(open_cube(1.0)),
        &[fixed("pebble", cube(0.1))],
        &[0.0],
        &[0.1],
    );
    assert_eq!(r.status, CcdStatus::Free, "{r:?}");
    // An open link inside a closed obstacle is inside its solid.
    let r = query(
        &slider(open_cube(0.1)),
        &[fixed("box", cube(1.0))],
        &[0.0],
        &[0.1],
    );
    assert_eq!(r.status, CcdStatus::CollidingAtStart, "{r:?}");
}

#[test]
fn a_link_starting_outside_a_closed_box_is_judged_by_its_surface() {
    // Outside the box and moving away: free; moving into it: a contact
    // after the start.
    let obstacles = [fixed("box", cube(1.0))];
    let r = query(&slider(cube(0.1)), &obstacles, &[1.0], &[1.5]);
    assert_eq!(r.status, CcdStatus::Free, "{r:?}");
    let r = query(&slider(cube(0.1)), &obstacles, &[1.0], &[0.0]);
    assert_eq!(r.status, CcdStatus::Collides, "{r:?}");
    assert!(r.toc_lower_bound > 0.0);
}

/// A closed box as the root link and a small cube two joints below it
/// (not adjacent), starting inside the box.
fn nested() -> ArticulatedBody {
    let tree = KinematicTree::new(vec![
        LinkSpec::new("shell", None).with_joint(Joint::revolute("j0", DVec3::Z, -4.0, 4.0)),
        LinkSpec::new("arm", Some("shell")).with_joint(Joint::revolute("j1", DVec3::Z, -4.0, 4.0)),
        LinkSpec::new("core", Some("arm"))
            .with_joint(Joint::revolute("j2", DVec3::Z, -4.0, 4.0))
            .with_origin(DAffine3::from_translation(DVec3::X * 0.1)),
    ])
    .unwrap();
    ArticulatedBody::new("nested", tree, vec![Some(cube(1.0)), None, Some(cube(0.1))]).unwrap()
}

#[test]
fn a_link_inside_another_closed_link_collides_at_start() {
    let body = nested();
    let r = query(&body, &[], &[0.0, 0.0, 0.0], &[0.0, 0.1, 0.0]);
    assert_eq!(r.status, CcdStatus::CollidingAtStart, "{r:?}");
    assert_eq!(r.contact.unwrap().other, Other::Link(2));
    let off = first_contact(
        &body,
        &[],
        &DisabledPairs::new(),
        &[0.0, 0.0, 0.0],
        &[0.0, 0.1, 0.0],
        &CcdOptions::default().with_self_collision(false),
        &mut CcdWorkspace::new(),
    )
    .unwrap();
    assert_eq!(off.status, CcdStatus::Free, "{off:?}");
}

/// A small cube at the end of a 1.5 m lever, deep inside a closed 4 m box
/// at the start, swinging 3 rad about z until it passes through the box's
/// wall (`x = −0.5`). Its chord boxes meet none of the box's top boxes (the
/// faces' boxes) on the first pieces of the swing, so the pair starts where
/// they first do: it must still be found inside the box's solid at `t = 0`
/// (and fails if that start skips the test), under every enclosure.
#[test]
fn a_link_inside_a_closed_box_until_its_box_nears_a_wall_collides_at_start() {
    let m = cube(0.1);
    let tip = TriMesh::new(
        m.vertices().iter().map(|v| *v + DVec3::X * 1.5).collect(),
        m.indices().to_vec(),
    )
    .unwrap();
    let tree = KinematicTree::new(vec![
        LinkSpec::new("lever", None).with_joint(Joint::revolute("j", DVec3::Z, -4.0, 4.0)),
    ])
    .unwrap();
    let body = ArticulatedBody::new("lever", tree, vec![Some(Arc::new(tip))]).unwrap();
    let walls = Obstacle::fixed(
        "box",
        Arc::new(Tessellation::default().cuboid(DVec3::splat(4.0)).unwrap()),
        DAffine3::from_translation(DVec3::X * 1.5),
    )
    .unwrap();
    for enclosure in [
        armature_kinematics::EnclosureKind::Chords,
        armature_kinematics::EnclosureKind::Taylor,
        armature_kinematics::EnclosureKind::Interval,
    ] {
        for projected in [true, false] {
            let r = first_contact(
                &body,
                std::slice::from_ref(&walls),
                &DisabledPairs::new(),
                &[0.0],
                &[3.0],
                &CcdOptions::default()
                    .with_enclosure(enclosure)
                    .with_projected_motion_bound(projected),
                &mut CcdWorkspace::new(),
            )
            .unwrap();
            assert_eq!(
                r.status,
                CcdStatus::CollidingAtStart,
                "{enclosure:?}, projected {projected}: {r:?}"
            );
        }
    }
    // Starting outside the box (the lever turned half a turn), the same
    // swing back enters it through the wall: a contact after the start.
    let r = query(&body, std::slice::from_ref(&walls), &[3.0], &[0.0]);
    assert_eq!(r.status, CcdStatus::Collides, "{r:?}");
    assert!(r.toc_lower_bound > 0.0, "{r:?}");
}
