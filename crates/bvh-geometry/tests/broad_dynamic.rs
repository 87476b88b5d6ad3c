//! The dynamic link hierarchy never misses a pair whose geometry overlaps
//! at a sampled time, never reports a skipped pair, and skips exactly the
//! pairs of the rules (rigid groups, adjacency by groups, disabled pairs),
//! written out here on their own.

use armature_bvh_geometry::{
    Aabb, DisabledPairs, DynamicHierarchyOptions, DynamicLinkHierarchy, EnvironmentHierarchy, Obb,
    PotentialPairs,
};
use armature_kinematics::{
    EnclosureKind, InBetweenMotion, Joint, JointType, KinematicTree, LinkObb, LinkSpec,
};
use glam::{DAffine3, DMat3, DQuat, DVec3};
use proptest::prelude::*;

/// A random tree: each link hangs from an earlier one, by a revolute,
/// prismatic or fixed joint with a random axis and origin.
#[derive(Debug, Clone)]
struct Case {
    parents: Vec<usize>,
    joints: Vec<u8>,
    axes: Vec<DVec3>,
    origins: Vec<DVec3>,
    boxes: Vec<Option<(DVec3, DVec3, DQuat)>>,
    q0: Vec<f64>,
    q1: Vec<f64>,
    obstacles: Vec<(DVec3, DVec3)>,
    disabled: Vec<(usize, usize)>,
    disabled_obstacles: Vec<(usize, usize)>,
}

fn unit() -> impl Strategy<Value = DVec3> {
    prop::array::uniform3(-1.0f64..1.0).prop_map(|a| {
        let v = DVec3::from_array(a);
        if v.length() < 1e-3 {
            DVec3::Z
        } else {
            v.normalize()
        }
    })
}

fn quat() -> impl Strategy<Value = DQuat> {
    (unit(), -3.2f64..3.2).prop_map(|(a, t)| DQuat::from_axis_angle(a, t))
}

fn case() -> impl Strategy<Value = Case> {
    (2usize..8).prop_flat_map(|n| {
        (
            prop::collection::vec(0usize..100, n),
            prop::collection::vec(0u8..4, n),
            prop::collection::vec(unit(), n),
            prop::collection::vec(prop::array::uniform3(-0.6f64..0.6), n),
            prop::collection::vec(
                prop::option::weighted(
                    0.85,
                    (
                        prop::array::uniform3(-0.3f64..0.3),
                        prop::array::uniform3(0.02f64..0.3),
                        quat(),
                    ),
                ),
                n,
            ),
            prop::collection::vec(-1.2f64..1.2, n),
            prop::collection::vec(-1.2f64..1.2, n),
            prop::collection::vec(
                (
                    prop::array::uniform3(-1.5f64..1.5),
                    prop::array::uniform3(0.02f64..0.4),
                ),
                0..12,
            ),
            prop::collection::vec((0usize..8, 0usize..8), 0..3),
            prop::collection::vec((0usize..8, 0usize..12), 0..3),
        )
            .prop_map(
                move |(par, joints, axes, origins, boxes, q0, q1, obstacles, disabled, dis_obs)| {
                    Case {
                        parents: par
                            .iter()
                            .enumerate()
                            .map(|(i, p)| if i == 0 { 0 } else { p % i })
                            .collect(),
                        joints,
                        axes,
                        origins: origins.into_iter().map(DVec3::from_array).collect(),
                        boxes: boxes
                            .into_iter()
                            .map(|b| {
                                b.map(|(c, e, r)| (DVec3::from_array(c), DVec3::from_array(e), r))
                            })
                            .collect(),
                        q0,
                        q1,
                        obstacles: obstacles
                            .into_iter()
                            .map(|(c, e)| (DVec3::from_array(c), DVec3::from_array(e)))
                            .collect(),
                        disabled,
                        disabled_obstacles: dis_obs,
                    }
                },
            )
    })
}

fn build(c: &Case) -> (KinematicTree, Vec<Option<LinkObb>>, Vec<f64>, Vec<f64>) {
    let n = c.parents.len();
    let mut specs = Vec::new();
    let names: Vec<String> = (0..n).map(|i| format!("l{i}")).collect();
    for i in 0..n {
        let parent = (i > 0).then(|| names[c.parents[i]].as_str());
        let joint = match c.joints[i] {
            0 => Joint::fixed(format!("j{i}")),
            1 => Joint::prismatic(format!("j{i}"), c.axes[i], -2.0, 2.0),
            _ => Joint::new(format!("j{i}"), JointType::Continuous { axis: c.axes[i] }),
        };
        specs.push(
            LinkSpec::new(names[i].clone(), parent)
                .with_joint(joint)
                .with_origin(DAffine3::from_translation(c.origins[i])),
        );
    }
    let tree = KinematicTree::new(specs).expect("valid tree");
    let obbs = c
        .boxes
        .iter()
        .map(|b| {
            b.map(|(center, e, r)| LinkObb::new(center, e, DMat3::from_quat(r)).expect("finite"))
        })
        .collect();
    let (mut q0, mut q1) = (Vec::new(), Vec::new());
    for i in 0..n {
        if !tree.q_range(i).is_empty() {
            q0.push(c.q0[i]);
            q1.push(c.q1[i]);
        }
    }
    (tree, obbs, q0, q1)
}

/// The first link above `i` (itself included) that does not hang from its
/// parent by a fixed joint: the name of `i`'s rigid group.
fn group_of(tree: &KinematicTree, i: usize) -> usize {
    let links = tree.links();
    let mut k = i;
    while let (Some(p), JointType::Fixed) = (links[k].parent(), &links[k].joint().kind) {
        k = p;
    }
    k
}

/// Whether `a` and `b` are adjacent: parent and child, or one's group
/// hangs from the other's by its (movable) first link's joint.
fn adjacent(tree: &KinematicTree, a: usize, b: usize) -> bool {
    let (ga, gb) = (group_of(tree, a), group_of(tree, b));
    let hangs = |g: usize, h: usize| tree.links()[g].parent().map(|p| group_of(tree, p)) == Some(h);
    tree.are_adjacent(a, b) || (ga != gb && (hangs(ga, gb) || hangs(gb, ga)))
}

/// Whether the rules allow testing links `a` and `b`.
fn expected_allowed(
    tree: &KinematicTree,
    obbs: &[Option<LinkObb>],
    disabled: &DisabledPairs,
    skip_adjacent: bool,
    a: usize,
    b: usize,
) -> bool {
    a != b
        && obbs[a].is_some()
        && obbs[b].is_some()
        && group_of(tree, a) != group_of(tree, b)
        && !(skip_adjacent && adjacent(tree, a, b))
        && !disabled.links_disabled(a, b)
}

fn world_obb(obb: &LinkObb, pose: &DAffine3) -> Obb {
    Obb::new(obb.center(), obb.axes(), obb.half_extents()).transform(pose)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn no_overlapping_pair_is_missed(
        c in case(),
        kind in prop_oneof![Just(EnclosureKind::Taylor), Just(EnclosureKind::Interval), Just(EnclosureKind::Chords)],
        skip_adjacent in any::<bool>(),
    ) {
        let (tree, obbs, q0, q1) = build(&c);
        let n = tree.len();
        let motion = InBetweenMotion::new(&tree, &q0, &q1).expect("valid motion");
        let env = EnvironmentHierarchy::new(
            c.obstacles.iter().enumerate().map(|(i, (lo, e))| (format!("o{i}"), Aabb::new(*lo, *lo + *e))),
        );
        let mut disabled = DisabledPairs::new();
        for &(a, b) in &c.disabled {
            if a < n && b < n { disabled.disable_links(a, b); }
        }
        for &(l, o) in &c.disabled_obstacles {
            if l < n { disabled.disable_link_obstacle(l, o); }
        }
        let options = DynamicHierarchyOptions::default().with_kind(kind).with_skip_adjacent(skip_adjacent);
        let mut h = DynamicLinkHierarchy::new(&tree, obbs.clone(), options)
            .expect("one box per link")
            .with_disabled(disabled.clone());
        for a in 0..n {
            for b in 0..n {
                prop_assert_eq!(
                    h.link_pair_allowed(a, b),
                    expected_allowed(&tree, &obbs, &disabled, skip_adjacent, a, b),
                    "links {} and {}", a, b
                );
            }
        }
        let mut out = PotentialPairs::default();
        h.potential_pairs(&motion, 0.0, 1.0, Some(&env), &mut out).expect("valid query");

        // Sorted, and no skipped pair.
        prop_assert!(out.link_link.windows(2).all(|w| w[0] < w[1]));
        prop_assert!(out.link_obstacle.windows(2).all(|w| w[0] < w[1]));
        for &(a, b) in &out.link_link {
            prop_assert!(a < b && expected_allowed(&tree, &obbs, &disabled, skip_adjacent, a, b));
        }
        for &(l, o) in &out.link_obstacle {
            prop_assert!(!disabled.link_obstacle_disabled(l, o) && obbs[l].is_some());
        }
        prop_assert_eq!(out.stats.link_pairs_potential, out.link_link.len());
        prop_assert!(out.stats.link_pairs_potential <= out.stats.link_pairs_considered);
        prop_assert!(out.stats.obstacle_pairs_potential <= out.stats.obstacle_pairs_considered);

        // Brute force over time samples.
        let mut poses = vec![DAffine3::IDENTITY; n];
        for k in 0..=40 {
            let t = f64::from(k) / 40.0;
            motion.poses_at(t, &mut poses).expect("valid time");
            let world: Vec<Option<Obb>> = obbs.iter().zip(&poses).map(|(o, p)| o.as_ref().map(|o| world_obb(o, p))).collect();
            for l in 0..n {
                let Some(wl) = world[l] else { continue };
                for (o, (lo, e)) in c.obstacles.iter().enumerate() {
                    let ob = Obb::from(Aabb::new(*lo, *lo + *e));
                    if wl.overlaps(&ob) && h.obstacle_pair_allowed(l, o) {
                        prop_assert!(out.link_obstacle.binary_search(&(l, o)).is_ok(),
                            "link {} and obstacle {} overlap at t = {} but are not reported", l, o, t);
                    }
                }
                for m in l + 1..n {
                    let Some(wm) = world[m] else { continue };
                    if wl.overlaps(&wm) && h.link_pair_allowed(l, m) {
                        prop_assert!(out.link_link.binary_search(&(l, m)).is_ok(),
                            "links {} and {} overlap at t = {} but are not reported", l, m, t);
                    }
                }
            }
        }
    }
}

#[test]
fn adjacent_rigid_and_named_rules() {
    // A base, a fixed tool on it, and two revolute links: everything is
    // stacked at the origin so every box overlaps every other.
    let tree = KinematicTree::new(vec![
        LinkSpec::new("base", None),
        LinkSpec::new("tool", Some("base")).with_joint(Joint::fixed("weld")),
        LinkSpec::new("a", Some("base")).with_joint(Joint::revolute("ja", DVec3::Z, -1.0, 1.0)),
        LinkSpec::new("b", Some("a")).with_joint(Joint::revolute("jb", DVec3::Z, -1.0, 1.0)),
    ])
    .unwrap();
    let cube = LinkObb::new(DVec3::ZERO, DVec3::splat(0.5), DMat3::IDENTITY).unwrap();
    let obbs = vec![Some(cube); 4];
    let env = EnvironmentHierarchy::new([
        (
            "wall".to_owned(),
            Aabb::new(DVec3::splat(-1.0), DVec3::splat(1.0)),
        ),
        (
            "far".to_owned(),
            Aabb::new(DVec3::splat(10.0), DVec3::splat(11.0)),
        ),
    ]);
    let mut disabled = DisabledPairs::new();
    disabled
        .disable_named(&tree, &["wall", "far"], "b", "wall")
        .unwrap();
    disabled
        .disable_named(&tree, &["wall", "far"], "tool", "b")
        .unwrap();
    assert_eq!(
        disabled
            .disable_named(&tree, &["wall"], "nope", "b")
            .map(|_| ())
            .unwrap_err()
            .to_string(),
        "`nope` is neither a link nor an obstacle"
    );
    // An obstacle named like a link: which pair is meant cannot be told.
    let before = disabled.clone();
    let e = disabled
        .disable_named(&tree, &["wall", "tool"], "tool", "b")
        .map(|_| ())
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("`tool` is both a link and an obstacle"),
        "{e}"
    );
    assert_eq!(disabled, before);
    let mut h = DynamicLinkHierarchy::new(&tree, obbs, DynamicHierarchyOptions::default())
        .unwrap()
        .with_disabled(disabled);
    let motion = InBetweenMotion::new(&tree, &[0.0, 0.0], &[0.5, -0.5]).unwrap();
    let mut out = PotentialPairs::default();
    h.potential_pairs(&motion, 0.0, 1.0, Some(&env), &mut out)
        .unwrap();
    // base–tool rigid; base–a and a–b adjacent, and so is tool–a (a hangs
    // by one revolute joint from the group of base and tool); tool–b
    // disabled.
    assert_eq!(out.link_link, vec![(0, 3)]);
    assert_eq!(out.link_obstacle, vec![(0, 0), (1, 0), (2, 0)]);
    assert_eq!(out.stats.link_pairs_considered, 1);
    assert_eq!(out.stats.obstacle_pairs_considered, 7);
    assert!(
        DynamicLinkHierarchy::new(&tree, vec![None; 3], DynamicHierarchyOptions::default())
            .is_err()
    );
}

/// A chain written the way DH-derived robot descriptions are:
/// `base → l1 → l1_rot2 → l2 → l2_rot3 → l3 → flange → gripper → finger`,
/// the `*_rot*` frames and the flange without geometry and on fixed joints,
/// the gripper and its finger welded below `l3`. Every box overlaps every
/// other at every pose.
fn dh_chain() -> (KinematicTree, Vec<Option<LinkObb>>) {
    let rev = |name: &str| Joint::revolute(name, DVec3::Z, -3.0, 3.0);
    let turn = DAffine3::from_rotation_x(core::f64::consts::FRAC_PI_2);
    let tree = KinematicTree::new(vec![
        LinkSpec::new("base", None),
        LinkSpec::new("l1", Some("base")).with_joint(rev("j1")),
        LinkSpec::new("l1_rot2", Some("l1"))
            .with_joint(Joint::fixed("f2"))
            .with_origin(turn),
        LinkSpec::new("l2", Some("l1_rot2")).with_joint(rev("j2")),
        LinkSpec::new("l2_rot3", Some("l2"))
            .with_joint(Joint::fixed("f3"))
            .with_origin(turn.inverse()),
        LinkSpec::new("l3", Some("l2_rot3")).with_joint(rev("j3")),
        LinkSpec::new("flange", Some("l3")).with_joint(Joint::fixed("ff")),
        LinkSpec::new("gripper", Some("flange")).with_joint(Joint::fixed("fg")),
        LinkSpec::new("finger", Some("gripper")).with_joint(Joint::fixed("fi")),
    ])
    .unwrap();
    let cube = LinkObb::new(DVec3::ZERO, DVec3::splat(0.5), DMat3::IDENTITY).unwrap();
    let frame = |name: &str| name.contains("_rot") || name == "flange";
    let obbs = tree
        .links()
        .iter()
        .map(|l| (!frame(l.name())).then_some(cube))
        .collect();
    (tree, obbs)
}

/// The pairs of `dh_chain` found over a small motion, by name.
fn dh_pairs(options: DynamicHierarchyOptions) -> Vec<(String, String)> {
    let (tree, obbs) = dh_chain();
    let mut h = DynamicLinkHierarchy::new(&tree, obbs, options).unwrap();
    let motion = InBetweenMotion::new(&tree, &[0.0; 3], &[0.1, -0.1, 0.2]).unwrap();
    let mut out = PotentialPairs::default();
    h.potential_pairs(&motion, 0.0, 1.0, None, &mut out)
        .unwrap();
    assert_eq!(out.stats.link_pairs_considered, out.link_link.len());
    let name = |i: usize| tree.links()[i].name().to_owned();
    out.link_link
        .iter()
        .map(|&(a, b)| (name(a), name(b)))
        .collect()
}

#[test]
fn geometry_less_frames_and_welded_tools_do_not_break_adjacency() {
    let pairs = |p: &[(&str, &str)]| -> Vec<(String, String)> {
        p.iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect()
    };
    // Groups {base}, {l1}, {l2}, {l3, gripper, finger}: only groups two
    // movable joints apart are tested.
    assert_eq!(
        dh_pairs(DynamicHierarchyOptions::default()),
        pairs(&[
            ("base", "l2"),
            ("base", "l3"),
            ("base", "gripper"),
            ("base", "finger"),
            ("l1", "l3"),
            ("l1", "gripper"),
            ("l1", "finger"),
        ])
    );
    // Without skipping, adjacent groups are tested; one group's links
    // still are not.
    assert_eq!(
        dh_pairs(DynamicHierarchyOptions::default().with_skip_adjacent(false)),
        pairs(&[
            ("base", "l1"),
            ("base", "l2"),
            ("base", "l3"),
            ("base", "gripper"),
            ("base", "finger"),
            ("l1", "l2"),
            ("l1", "l3"),
            ("l1", "gripper"),
            ("l1", "finger"),
            ("l2", "l3"),
            ("l2", "gripper"),
            ("l2", "finger"),
        ])
    );
}
