//! Obstacles for the swept-volume monitor: a static one is placed at its
//! pose, a moving one is refused with an error naming it (the monitor
//! carries bounds assuming obstacles stay where they are).

use std::sync::Arc;

use armature_bvh_geometry::{GeometryError, Obstacle, Tessellation, TriMesh};
use glam::{DAffine3, DQuat, DVec3};

fn cube(half: f64) -> Arc<TriMesh> {
    Arc::new(
        Tessellation::default()
            .cuboid(DVec3::splat(2.0 * half))
            .expect("valid box"),
    )
}

#[test]
fn a_static_obstacle_is_its_hull_at_its_pose() {
    let pose = DAffine3::from_rotation_translation(
        DQuat::from_rotation_z(0.7),
        DVec3::new(1.0, -2.0, 0.5),
    );
    let block = Obstacle::fixed("block", cube(0.3), pose).unwrap();
    let mo = block.monitor_obstacle().unwrap();
    assert_eq!(mo.name, "block");
    // Only the rounding slack of placing the hull.
    let r = mo.volume.radius();
    assert!(r < 1e-9, "radius {r}");
    for v in block.geometry().mesh.vertices() {
        let w = pose.transform_point3(*v);
        let nearest = mo
            .volume
            .points()
            .iter()
            .map(|p| (*p - w).length())
            .fold(f64::INFINITY, f64::min);
        assert!(
            nearest < 1e-12,
            "vertex {w} is {nearest} from the hull points"
        );
    }
}

#[test]
fn a_moving_obstacle_is_refused_by_name() {
    let start = DAffine3::from_translation(DVec3::new(5.0, 0.0, 0.0));
    let door = Obstacle::moving(
        "door",
        cube(0.1),
        start,
        DAffine3::from_rotation_translation(DQuat::from_rotation_z(1.0), DVec3::new(6.0, 0.0, 0.0)),
    )
    .unwrap();
    let err = door.monitor_obstacle().unwrap_err();
    assert_eq!(
        err,
        GeometryError::MovingObstacle {
            name: "door".to_owned()
        }
    );
    assert!(err.to_string().contains("`door`"), "{err}");

    // Not frozen at t = 0 either when the motion happens to be zero: the
    // obstacle is declared moving, and the monitor takes only static ones.
    let still = Obstacle::moving("still", cube(0.1), start, start).unwrap();
    assert!(matches!(
        still.monitor_obstacle(),
        Err(GeometryError::MovingObstacle { name }) if name == "still"
    ));
}

/// The monitor tests the same link pairs as the CCD's hierarchy: links
/// welded by fixed joints form one group, groups joined by one movable
/// joint are adjacent and skipped (unless asked not to).
#[test]
fn adjacency_follows_rigid_groups() {
    use armature_bvh_geometry::{DisabledPairs, MonitorOptions, MonitorPair, SweptVolumeMonitor};
    use armature_kinematics::{Joint, KinematicTree, LinkSpec, Ssch};
    // base → (fixed) frame → (revolute) l1 → (revolute) l2: base and l1
    // are adjacent through the geometry-less frame, l2 is two joints away.
    let tree = || {
        KinematicTree::new(vec![
            LinkSpec::new("base", None),
            LinkSpec::new("frame", Some("base")).with_joint(Joint::fixed("weld")),
            LinkSpec::new("l1", Some("frame")).with_joint(Joint::revolute(
                "j1",
                DVec3::Z,
                -3.0,
                3.0,
            )),
            LinkSpec::new("l2", Some("l1"))
                .with_joint(Joint::revolute("j2", DVec3::Y, -3.0, 3.0))
                .with_origin(DAffine3::from_translation(DVec3::X)),
        ])
        .unwrap()
    };
    let ball = || Some(Ssch::new(vec![DVec3::ZERO], 0.1).unwrap());
    let bodies = || vec![ball(), None, ball(), ball()];
    let link_pairs = |options: MonitorOptions| {
        let m = SweptVolumeMonitor::new(tree(), bodies(), vec![], &DisabledPairs::new(), options)
            .unwrap();
        let mut pairs: Vec<(usize, usize)> = m
            .pairs()
            .filter_map(|p| match p {
                MonitorPair::Links(a, b) => Some((a, b)),
                MonitorPair::LinkObstacle(..) | MonitorPair::LinkMoving(..) => None,
            })
            .collect();
        pairs.sort_unstable();
        pairs
    };
    assert_eq!(link_pairs(MonitorOptions::default()), vec![(0, 3)]);
    assert_eq!(
        link_pairs(MonitorOptions::default().with_skip_adjacent(false)),
        vec![(0, 2), (0, 3), (2, 3)]
    );
}
