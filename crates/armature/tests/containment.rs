//! The discrete check and the first contact treat closed meshes as solids:
//! a link inside a closed obstacle, an obstacle inside a closed link and a
//! link inside another closed link collide; open meshes keep surface
//! semantics.

use std::sync::Arc;

use armature::geometry::Tessellation;
use armature::oracle::{Judgement, Oracle, OracleOptions, Verdict};
use armature::prelude::*;
use glam::{DAffine3, DVec3};

fn cube(side: f64) -> Arc<TriMesh> {
    Arc::new(Tessellation::default().cuboid(DVec3::splat(side)).unwrap())
}

/// A cube with its top face removed: open.
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

/// One link sliding along x, with `link` as its mesh, and one static
/// obstacle at the origin.
fn slider_scene(link: Arc<TriMesh>, obstacle: Arc<TriMesh>) -> Scene {
    let tree = KinematicTree::new(vec![
        LinkSpec::new("slider", None).with_joint(Joint::prismatic("x", DVec3::X, -2.0, 2.0)),
    ])
    .unwrap();
    let body = ArticulatedBody::new("slider", tree, vec![Some(link)]).unwrap();
    Scene::builder()
        .body(body, DAffine3::IDENTITY)
        .obstacle(Obstacle::fixed("thing", obstacle, DAffine3::IDENTITY).unwrap())
        .build()
        .unwrap()
}

fn assert_inside(scene: &Scene, q: &[f64], q1: &[f64]) {
    let pipeline = Pipeline::default();
    let report = pipeline.check(scene, q).unwrap();
    assert!(report.colliding, "{report:?}");
    assert_eq!(report.distance, 0.0);
    let w = report.collision.unwrap();
    assert_eq!(w.distance, 0.0);
    assert!(pipeline.collides(scene, q).unwrap());
    let ccd = pipeline.first_contact(scene, q, q1).unwrap();
    assert_eq!(ccd.status, CcdStatus::CollidingAtStart, "{ccd:?}");
    // The oracle, by its own ray test, agrees.
    let oracle = Oracle::new(scene, OracleOptions::default()).unwrap();
    let verdict = oracle.verdict(q, q1).unwrap();
    assert!(
        matches!(
            verdict,
            Verdict::Collides {
                bracket: (0.0, 0.0),
                ..
            }
        ),
        "{verdict:?}"
    );
    assert!(oracle.colliding_at(q, q1, 0.0).unwrap());
    assert_eq!(oracle.distance_at(q, q1, 0.0).unwrap(), 0.0);
    assert_eq!(
        oracle.judge_verdict(&ccd, &verdict, q, q1).unwrap(),
        Judgement::Agrees
    );
}

fn assert_apart(scene: &Scene, q: &[f64], q1: &[f64]) {
    let pipeline = Pipeline::default();
    let report = pipeline.check(scene, q).unwrap();
    assert!(!report.colliding, "{report:?}");
    assert!(report.distance > 0.4, "{report:?}");
    assert!(!pipeline.collides(scene, q).unwrap());
    let ccd = pipeline.first_contact(scene, q, q1).unwrap();
    assert_eq!(ccd.status, CcdStatus::Free, "{ccd:?}");
    let oracle = Oracle::new(scene, OracleOptions::default()).unwrap();
    let verdict = oracle.verdict(q, q1).unwrap();
    assert!(matches!(verdict, Verdict::Free { .. }), "{verdict:?}");
    assert!(!oracle.colliding_at(q, q1, 0.0).unwrap());
}

#[test]
fn a_small_link_inside_a_closed_obstacle_collides() {
    let scene = slider_scene(cube(0.1), cube(1.0));
    assert_inside(&scene, &[0.0], &[0.1]);
    let w = Pipeline::default()
        .check(&scene, &[0.0])
        .unwrap()
        .collision
        .unwrap();
    assert_eq!((w.link, w.other), (0, Other::Obstacle(0)));
    // The link's inner point and the box's nearest face, 0.45 below it.
    assert!(
        ((w.point_a - w.point_b).length() - 0.45).abs() < 1e-12,
        "{w:?}"
    );
}

#[test]
fn a_closed_link_holding_a_small_obstacle_collides() {
    assert_inside(&slider_scene(cube(1.0), cube(0.1)), &[0.0], &[0.1]);
}

#[test]
fn open_meshes_keep_surface_semantics() {
    assert_apart(&slider_scene(cube(0.1), open_cube(1.0)), &[0.0], &[0.1]);
    assert_apart(&slider_scene(open_cube(1.0), cube(0.1)), &[0.0], &[0.1]);
    // An open link inside a closed obstacle is inside its solid.
    assert_inside(&slider_scene(open_cube(0.1), cube(1.0)), &[0.0], &[0.1]);
}

#[test]
fn a_link_inside_another_closed_link_collides() {
    // The small cube is two joints below the closed shell: not adjacent.
    let tree = KinematicTree::new(vec![
        LinkSpec::new("shell", None).with_joint(Joint::revolute("j0", DVec3::Z, -4.0, 4.0)),
        LinkSpec::new("arm", Some("shell")).with_joint(Joint::revolute("j1", DVec3::Z, -4.0, 4.0)),
        LinkSpec::new("core", Some("arm"))
            .with_joint(Joint::revolute("j2", DVec3::Z, -4.0, 4.0))
            .with_origin(DAffine3::from_translation(DVec3::X * 0.1)),
    ])
    .unwrap();
    let body =
        ArticulatedBody::new("nested", tree, vec![Some(cube(1.0)), None, Some(cube(0.1))]).unwrap();
    let scene = Scene::builder()
        .body(body, DAffine3::IDENTITY)
        .build()
        .unwrap();
    let q = [0.0; 3];
    assert_inside(&scene, &q, &[0.0, 0.1, 0.0]);
    let w = Pipeline::default()
        .check(&scene, &q)
        .unwrap()
        .collision
        .unwrap();
    assert_eq!((w.link, w.other), (0, Other::Link(2)));
}
