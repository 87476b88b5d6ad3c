//! The C2A advancement step against brute force: under a rigid motion
//! whose projected speed is known exactly (a translation plus a turn about
//! an axis through the moving mesh's origin), no sampled time within the
//! step brings any triangle pair within the clearance, a contact is a real
//! triangle pair within the contact distance, and a step is only answered
//! when no pair is. Also: a tangential pass takes one long step where the
//! unprojected bound crawls, and projecting a non-convex mesh pair as a
//! whole would be wrong where the step per pair of volumes is not.

mod mesh_query_support;

use armature_bvh_geometry::query::{
    Advance, AdvancementFront, AdvancementOptions, DistanceWorkspace, MeshObject, advancement_step,
    advancement_step_warm, relative_pose,
};
use armature_bvh_geometry::{Bvh, BvhOptions, Rss, TriMesh};
use glam::{DAffine3, DQuat, DVec3};
use mesh_query_support::{brute_distance, config, mesh, pose, scale, vec3};
use proptest::prelude::*;

/// A rigid motion of A: translation `v τ` of its origin and a turn by
/// `ω τ` about the world axis `k` through that origin.
#[derive(Debug, Clone, Copy)]
struct Motion {
    start: DAffine3,
    v: DVec3,
    k: DVec3,
    omega: f64,
}

impl Motion {
    fn at(&self, tau: f64) -> DAffine3 {
        let turn = DQuat::from_axis_angle(self.k, self.omega * tau);
        DAffine3 {
            matrix3: glam::DMat3::from_quat(turn) * self.start.matrix3,
            translation: self.start.translation + self.v * tau,
        }
    }

    /// The exact bound of `|ṗ·n|` for points within `reach` of the origin:
    /// `|v·n| + |ω| reach |k × n|` (`(k × r)·n = r·(n × k)`).
    fn speed(&self, n: DVec3, reach: f64) -> f64 {
        let n = n.normalize();
        self.v.dot(n).abs() + self.omega.abs() * reach * self.k.cross(n).length()
    }
}

fn distance_at(a: &TriMesh, ta: &DAffine3, b: &TriMesh, tb: &DAffine3) -> f64 {
    brute_distance(a, b, &relative_pose(ta, tb)).0
}

fn step(
    a: &TriMesh,
    ba: &Bvh<Rss>,
    m: &Motion,
    b: &TriMesh,
    bb: &Bvh<Rss>,
    tb: DAffine3,
    options: &AdvancementOptions,
) -> Advance {
    let oa = MeshObject::new(a, ba, m.at(0.0)).unwrap();
    let ob = MeshObject::new(b, bb, tb).unwrap();
    let mut ws = DistanceWorkspace::new();
    advancement_step(
        &oa,
        &ob,
        options,
        |n, (c, r), _| m.speed(n, c.length() + r),
        &mut ws,
    )
    .unwrap()
    .advance
}

fn motion() -> impl Strategy<Value = Motion> {
    (pose(2.0), vec3(), vec3(), -3.0..3.0_f64).prop_map(|(start, v, k, omega)| Motion {
        start,
        v: v * 3.0,
        k: k.try_normalize().unwrap_or(DVec3::Z),
        omega,
    })
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn the_step_keeps_the_clearance(
        a in mesh(),
        b in mesh(),
        m in motion(),
        tb in pose(2.5),
        c_frac in 0.0..0.5_f64,
        e in prop_oneof![Just(0.0), Just(0.5)],
        leaf in 1_usize..=4,
    ) {
        let o = BvhOptions::default().with_max_leaf_triangles(leaf);
        let (ba, bb) = (Bvh::<Rss>::build(&a, &o).unwrap(), Bvh::<Rss>::build(&b, &o).unwrap());
        let d0 = distance_at(&a, &m.at(0.0), &b, &tb);
        let c = d0 * c_frac;
        let options = AdvancementOptions {
            clearance: c,
            contact_distance: 2.0 * c,
            horizon: 1.0,
            rel_error: e,
        };
        let tol = 1e-9 * (1.0 + scale(&a, &m.at(0.0), &b, &tb));
        match step(&a, &ba, &m, &b, &bb, tb, &options) {
            Advance::Contact(w) => {
                prop_assert!(w.distance <= 2.0 * c + tol, "contact at {} > 2c = {}", w.distance, 2.0 * c);
                prop_assert!(w.distance >= d0 - tol);
                prop_assert!((w.point_a.distance(w.point_b) - w.distance).abs() <= tol);
            }
            Advance::Step(s) => {
                prop_assert!(d0 > 2.0 * c - tol, "a step with d = {} within 2c = {}", d0, 2.0 * c);
                prop_assert!(s >= 0.0);
                let end = s.min(1.0);
                for k in 0..=32 {
                    let tau = end * f64::from(k) / 32.0;
                    let d = distance_at(&a, &m.at(tau), &b, &tb);
                    prop_assert!(d >= c - tol, "d({}) = {} < c = {} within the step {}", tau, d, c, s);
                }
            }
        }
    }
}

/// Warm steps of one motion (`advancement_step_warm`), each from the
/// front the last one ended on, checked by sampling the distance along
/// it: over horizons `window` long (growing by a quarter per step, as
/// conservative advancement's windows), cut at the motion's end; with
/// `carry`, each step is told the time since the last
/// ([`AdvancementFront::elapse`]) so that volume pairs carry their gaps.
#[allow(clippy::too_many_arguments)]
fn check_warm_steps(
    (a, b): (&TriMesh, &TriMesh),
    m: &Motion,
    tb: DAffine3,
    c_frac: f64,
    leaf: usize,
    steps: usize,
    mut window: f64,
    carry: bool,
) -> Result<(), TestCaseError> {
    let o = BvhOptions::default().with_max_leaf_triangles(leaf);
    let (ba, bb) = (
        Bvh::<Rss>::build(a, &o).unwrap(),
        Bvh::<Rss>::build(b, &o).unwrap(),
    );
    let d0 = distance_at(a, &m.at(0.0), b, &tb);
    let c = d0 * c_frac;
    let tol = 1e-9 * (1.0 + scale(a, &m.at(0.0), b, &tb));
    let ob = MeshObject::new(b, &bb, tb).unwrap();
    let mut ws = DistanceWorkspace::new();
    let mut front = AdvancementFront::new();
    let mut t = 0.0;
    for _ in 0..steps {
        let options = AdvancementOptions {
            clearance: c,
            contact_distance: 2.0 * c,
            horizon: window.min(1.0 - t),
            rel_error: 0.5,
        };
        let oa = MeshObject::new(a, &ba, m.at(t)).unwrap();
        let advance = advancement_step_warm(
            &oa,
            &ob,
            &options,
            |n, (cn, r), _| m.speed(n, cn.length() + r),
            &mut front,
            &mut ws,
        )
        .unwrap()
        .advance;
        let Advance::Step(s) = advance else {
            prop_assert!(front.is_empty());
            break;
        };
        let end = s.min(options.horizon);
        for k in 0..=16 {
            let tau = t + end * f64::from(k) / 16.0;
            let d = distance_at(a, &m.at(tau), b, &tb);
            prop_assert!(
                d >= c - tol,
                "d({}) = {} < c = {} within the step {} from {}",
                tau,
                d,
                c,
                s,
                t
            );
        }
        if end >= 1.0 - t || end <= 0.0 {
            break;
        }
        t += end;
        if carry {
            front.elapse(end);
        }
        window = 1.25 * end;
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(200))]

    /// Steps after the first start from the front the last one ended on
    /// (`advancement_step_warm`): each still keeps the clearance, checked
    /// by sampling, over several consecutive steps of one motion.
    #[test]
    fn warm_started_steps_keep_the_clearance(
        a in mesh(),
        b in mesh(),
        m in motion(),
        tb in pose(2.5),
        c_frac in 0.0..0.5_f64,
        leaf in 1_usize..=4,
    ) {
        check_warm_steps((&a, &b), &m, tb, c_frac, leaf, 4, f64::INFINITY, false)?;
    }

    /// Warm steps over short, growing horizons (as conservative
    /// advancement uses them), each told the time since the last so that
    /// volume pairs carry their gaps instead of being placed again: each
    /// step still keeps the clearance. The motion's speed bound holds
    /// along world directions at every time, as carrying requires.
    #[test]
    fn steps_with_carried_gaps_keep_the_clearance(
        a in mesh(),
        b in mesh(),
        m in motion(),
        tb in pose(2.5),
        c_frac in 0.0..0.5_f64,
        first in 0.01..0.3_f64,
        leaf in 1_usize..=4,
    ) {
        check_warm_steps((&a, &b), &m, tb, c_frac, leaf, 8, first, true)?;
    }
}

/// Two triangles forming a square of side `2h` in the plane `z = 0`,
/// centred at `centre`.
fn square(centre: DVec3, h: f64) -> Vec<[DVec3; 3]> {
    let p = |x: f64, y: f64| centre + DVec3::new(x, y, 0.0);
    vec![
        [p(-h, -h), p(h, -h), p(h, h)],
        [p(-h, -h), p(h, h), p(-h, h)],
    ]
}

fn soup(tris: &[[DVec3; 3]]) -> TriMesh {
    let vertices: Vec<DVec3> = tris.iter().flatten().copied().collect();
    let indices = (0..tris.len() as u32)
        .map(|i| [3 * i, 3 * i + 1, 3 * i + 2])
        .collect();
    TriMesh::new(vertices, indices).unwrap()
}

/// The RSS trees of two meshes with the default options.
fn default_trees(a: &TriMesh, b: &TriMesh) -> (Bvh<Rss>, Bvh<Rss>) {
    let o = BvhOptions::default();
    (
        Bvh::<Rss>::build(a, &o).unwrap(),
        Bvh::<Rss>::build(b, &o).unwrap(),
    )
}

#[test]
fn a_tangential_pass_takes_one_long_step() {
    // A small square sliding along x at 1 unit per unit time, 5 cm above a
    // long plate: the closest direction is z, along which it does not move.
    let a = soup(&square(DVec3::ZERO, 0.05));
    let b = soup(&square(DVec3::new(0.0, 0.0, -0.05), 10.0));
    let (ba, bb) = default_trees(&a, &b);
    let m = Motion {
        start: DAffine3::IDENTITY,
        v: DVec3::X,
        k: DVec3::Z,
        omega: 0.0,
    };
    let options = AdvancementOptions {
        clearance: 1e-3,
        contact_distance: 2e-3,
        horizon: 1.0,
        rel_error: 0.0,
    };
    let Advance::Step(s) = step(&a, &ba, &m, &b, &bb, DAffine3::IDENTITY, &options) else {
        panic!("no contact at 5 cm");
    };
    // Unprojected: (0.05 − 0.001) / 1 = 0.049.
    assert!(s >= 1.0, "step {s}");
}

#[test]
fn carried_gaps_spare_placing_volumes_again() {
    // A plate of many triangles sliding along x 5 cm above a larger one:
    // every volume pair is proven far beyond a short horizon, so after
    // `elapse` the next step bounds them from their carried gaps alone.
    let tiles = |centre: DVec3, h: f64, n: i32| {
        let mut tris = Vec::new();
        for i in 0..n {
            for j in 0..n {
                let c = centre
                    + DVec3::new(f64::from(2 * i - n + 1), f64::from(2 * j - n + 1), 0.0) * h;
                tris.extend(square(c, h));
            }
        }
        soup(&tris)
    };
    let a = tiles(DVec3::ZERO, 0.01, 8);
    let b = tiles(DVec3::new(0.0, 0.0, -0.05), 0.2, 8);
    let (ba, bb) = default_trees(&a, &b);
    let m = Motion {
        start: DAffine3::IDENTITY,
        v: DVec3::new(1.0, 0.0, -0.01),
        k: DVec3::Z,
        omega: 0.5,
    };
    let ob = MeshObject::new(&b, &bb, DAffine3::IDENTITY).unwrap();
    let options = |horizon| AdvancementOptions {
        clearance: 1e-3,
        contact_distance: 2e-3,
        horizon,
        rel_error: 0.0,
    };
    let speed = |n: DVec3, (c, r): (DVec3, f64), _: (DVec3, f64)| m.speed(n, c.length() + r);
    let mut ws = DistanceWorkspace::new();
    let mut tests = Vec::new();
    for carry in [false, true] {
        let mut front = AdvancementFront::new();
        let oa = MeshObject::new(&a, &ba, m.at(0.0)).unwrap();
        let first =
            advancement_step_warm(&oa, &ob, &options(0.1), speed, &mut front, &mut ws).unwrap();
        assert!(
            matches!(first.advance, Advance::Step(s) if s >= 0.1),
            "{:?}",
            first.advance
        );
        if carry {
            front.elapse(0.1);
        }
        let oa = MeshObject::new(&a, &ba, m.at(0.1)).unwrap();
        let second =
            advancement_step_warm(&oa, &ob, &options(0.125), speed, &mut front, &mut ws).unwrap();
        let Advance::Step(s) = second.advance else {
            panic!("no contact 5 cm apart");
        };
        assert!(s >= 0.125, "step {s} below the horizon");
        tests.push(second.stats.bv_tests);
    }
    assert!(tests[0] > 0, "the fresh step tests its front");
    assert_eq!(
        tests[1], 0,
        "carried: {} volume pairs placed again",
        tests[1]
    );
}

#[test]
fn projecting_a_non_convex_pair_as_a_whole_would_miss_the_collision() {
    // A small square moving along x. B is not convex: a plate 10 cm below
    // the square's path (the closest feature at t = 0, direction −z, along
    // which A does not move) and a wall across the path at x = 0.8.
    let a = soup(&square(DVec3::ZERO, 0.05));
    let mut tris = square(DVec3::new(0.0, 0.0, -0.1), 0.2);
    let wall = |y: f64, z: f64| DVec3::new(0.8, y, z);
    tris.push([wall(-1.0, -1.0), wall(1.0, -1.0), wall(1.0, 1.0)]);
    tris.push([wall(-1.0, -1.0), wall(1.0, 1.0), wall(-1.0, 1.0)]);
    let b = soup(&tris);
    let (ba, bb) = default_trees(&a, &b);
    let m = Motion {
        start: DAffine3::IDENTITY,
        v: DVec3::X,
        k: DVec3::Z,
        omega: 0.0,
    };
    let tb = DAffine3::IDENTITY;
    // The whole-mesh projection: closest direction −z, projected speed 0,
    // so "free forever" — but A reaches the wall at t = 0.75.
    let rel = relative_pose(&m.at(0.0), &tb);
    let (d0, i, j) = brute_distance(&a, &b, &rel);
    let cp = armature_bvh_geometry::query::closest_points_triangle_triangle(
        &a.triangle(i),
        &b.triangle(j),
    );
    let n = (cp.point_b - cp.point_a) / cp.distance;
    assert!(
        (d0 - 0.1).abs() < 1e-12 && m.speed(n, 1.0) < 1e-12,
        "d0 {d0} n {n}"
    );
    assert!(distance_at(&a, &m.at(0.76), &b, &tb) < 1e-3);
    // Per pair of volumes, the wall's volumes keep their own direction.
    let options = AdvancementOptions {
        clearance: 1e-3,
        contact_distance: 2e-3,
        horizon: 1.0,
        rel_error: 0.0,
    };
    let Advance::Step(s) = step(&a, &ba, &m, &b, &bb, tb, &options) else {
        panic!("no contact at 10 cm");
    };
    assert!(s < 0.75, "step {s} passes the wall");
    assert!(s > 0.5, "step {s}: the wall is 0.75 away along x");
}

#[test]
fn bad_options_are_errors() {
    let a = soup(&square(DVec3::ZERO, 0.05));
    let ba = Bvh::<Rss>::build(&a, &BvhOptions::default()).unwrap();
    let oa = MeshObject::new(&a, &ba, DAffine3::IDENTITY).unwrap();
    let ob = MeshObject::new(&a, &ba, DAffine3::from_translation(DVec3::Z)).unwrap();
    let good = AdvancementOptions {
        clearance: 1e-3,
        contact_distance: 2e-3,
        horizon: 1.0,
        rel_error: 0.0,
    };
    let mut ws = DistanceWorkspace::new();
    for bad in [
        AdvancementOptions {
            clearance: -1.0,
            ..good
        },
        AdvancementOptions {
            contact_distance: 1e-4,
            ..good
        },
        AdvancementOptions {
            horizon: f64::NAN,
            ..good
        },
        AdvancementOptions {
            rel_error: f64::INFINITY,
            ..good
        },
    ] {
        assert!(advancement_step(&oa, &ob, &bad, |_, _, _| 1.0, &mut ws).is_err());
    }
    let r = advancement_step(&oa, &ob, &good, |_, _, _| 1.0, &mut ws).unwrap();
    assert!(matches!(r.advance, Advance::Step(s) if s > 0.99 && s < 1.0));
}
