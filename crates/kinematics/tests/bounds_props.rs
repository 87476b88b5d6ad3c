//! Property tests of the motion bounds against densely sampled motions.
//!
//! - λ (M2): no sampled curve of any point of any link is longer than the
//!   link's bound. The polyline through the samples is never longer than
//!   the curve, so "λ ≥ polyline" is a necessary condition of "λ ≥ curve";
//!   the relative bound is checked the same way with positions in the frame
//!   of the pair's deepest common ancestor.
//! - μ (M4): no sampled *speed* (from `InBetweenMotion::point_velocity`) at
//!   any sampled time of `[t, 1]` exceeds the bound, projected on a random
//!   direction or not; the pair bound is checked against the relative
//!   velocity in the frame of the common ancestor.
//! - `point_velocity` itself is checked against finite differences of the
//!   poses, and both motions against forward kinematics at their ends.

use armature_kinematics::prelude::*;
use glam::{DAffine3, DQuat, DVec3};
use proptest::prelude::*;
use std::f64::consts::PI;

/// Random motions per property.
const CASES: u32 = 2000;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: CASES,
        max_shrink_iters: 2000,
        ..ProptestConfig::default()
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Revolute,
    Continuous,
    Prismatic,
    PrismaticUnlimited,
    Fixed,
    Spherical,
    Floating,
    Planar,
    Vehicle,
    OmniVehicle,
    Orientation,
    Location,
}

#[derive(Clone, Debug)]
struct LinkGen {
    kind: Kind,
    axis: [f64; 3],
    lower: f64,
    span: f64,
    origin_t: [f64; 3],
    origin_r: [f64; 4],
    parent: f64,
}

#[derive(Clone, Debug)]
struct Model {
    links: Vec<LinkGen>,
    chain: bool,
    points: Vec<Vec<[f64; 3]>>,
    qa: Vec<f64>,
    qb: Vec<f64>,
    blend: f64,
    t: f64,
    n: [f64; 3],
}

fn kind(exotic: bool) -> BoxedStrategy<Kind> {
    use Kind::*;
    if exotic {
        prop_oneof![
            3 => Just(Revolute),
            1 => Just(Prismatic),
            1 => Just(Continuous),
            1 => Just(Fixed),
            1 => Just(PrismaticUnlimited),
            1 => Just(Spherical),
            1 => Just(Floating),
            1 => Just(Planar),
            1 => Just(Vehicle),
            1 => Just(OmniVehicle),
            1 => Just(Orientation),
            1 => Just(Location),
        ]
        .boxed()
    } else {
        prop_oneof![
            5 => Just(Revolute),
            2 => Just(Prismatic),
            1 => Just(Continuous),
            1 => Just(Fixed),
        ]
        .boxed()
    }
}

fn unit3() -> impl Strategy<Value = [f64; 3]> {
    prop::array::uniform3(-1.0..1.0f64)
}

fn link_gen(exotic: bool) -> impl Strategy<Value = LinkGen> {
    (
        kind(exotic),
        unit3(),
        -PI..0.0f64,
        0.0..2.0 * PI,
        unit3(),
        prop::array::uniform4(-1.0..1.0f64),
        0.0..1.0f64,
    )
        .prop_map(
            |(kind, axis, lower, span, origin_t, origin_r, parent)| LinkGen {
                kind,
                axis,
                lower,
                span,
                origin_t,
                origin_r,
                parent,
            },
        )
}

fn model(exotic: bool) -> impl Strategy<Value = Model> {
    (
        prop::collection::vec(link_gen(exotic), 1..=10),
        any::<bool>(),
        prop::collection::vec(prop::collection::vec(unit3(), 1..=6), 10),
        prop::collection::vec(-1.0..1.0f64, 70),
        prop::collection::vec(-1.0..1.0f64, 70),
        prop_oneof![2 => Just(1.0), 1 => 0.0..1.0f64, 1 => 0.0..0.02f64],
        prop_oneof![1 => Just(0.0), 3 => 0.0..1.0f64, 1 => Just(1.0)],
        unit3(),
    )
        .prop_map(|(links, chain, points, qa, qb, blend, t, n)| Model {
            links,
            chain,
            points,
            qa,
            qb,
            blend,
            t,
            n,
        })
}

fn quat_of(r: &[f64]) -> DQuat {
    let q = DQuat::from_xyzw(r[0], r[1], r[2], r[3]);
    if q.length() < 0.2 {
        DQuat::IDENTITY
    } else {
        q.normalize()
    }
}

fn axis_of(a: [f64; 3]) -> DVec3 {
    let a = DVec3::from(a);
    if a.length() < 0.1 { DVec3::Z } else { a }
}

/// Prismatic limits: `[lower, lower + span]` scaled to about a metre.
fn slide_limits(g: &LinkGen) -> (f64, f64) {
    let lower = g.lower / PI;
    (lower, lower + g.span / (2.0 * PI) * 1.5)
}

struct Built {
    tree: KinematicTree,
    points: Vec<Vec<DVec3>>,
    qa: Vec<f64>,
    qb: Vec<f64>,
}

fn build(m: &Model) -> Built {
    let specs = m
        .links
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let name = format!("l{i}");
            let parent = if i == 0 {
                None
            } else if m.chain {
                Some(format!("l{}", i - 1))
            } else {
                Some(format!("l{}", (g.parent * i as f64) as usize))
            };
            let axis = axis_of(g.axis);
            let joint = match g.kind {
                Kind::Revolute => Joint::revolute(&name, axis, g.lower, g.lower + g.span),
                Kind::Continuous => Joint::new(&name, JointType::Continuous { axis }),
                Kind::Prismatic => {
                    let (lo, hi) = slide_limits(g);
                    Joint::prismatic(&name, axis, lo, hi)
                }
                Kind::PrismaticUnlimited => Joint::new(&name, JointType::Prismatic { axis }),
                Kind::Fixed => Joint::fixed(&name),
                Kind::Spherical => Joint::new(&name, JointType::Spherical),
                Kind::Floating => Joint::new(&name, JointType::Floating),
                Kind::Planar => Joint::new(&name, JointType::Planar { normal: axis }),
                Kind::Vehicle => Joint::new(&name, JointType::Vehicle),
                Kind::OmniVehicle => Joint::new(&name, JointType::OmniVehicle),
                Kind::Orientation => {
                    Joint::new(&name, JointType::OrientationUncertain { beta: 0.1 })
                }
                Kind::Location => Joint::new(&name, JointType::LocationUncertain { delta: 0.1 }),
            };
            let origin = DAffine3::from_rotation_translation(
                quat_of(&g.origin_r),
                DVec3::from(g.origin_t) * 0.8,
            );
            LinkSpec {
                name,
                parent,
                joint,
                origin,
            }
        })
        .collect();
    let tree = KinematicTree::new(specs).expect("generated trees are valid");
    let mut qa = vec![0.0; tree.nq()];
    let mut qb = vec![0.0; tree.nq()];
    for (i, g) in m.links.iter().enumerate() {
        let r = tree.q_range(i);
        for (q, raw) in [(&mut qa, &m.qa), (&mut qb, &m.qb)] {
            let v = &raw[r.start..];
            let q = &mut q[r.clone()];
            let within = |lo: f64, hi: f64, x: f64| lo + (x + 1.0) * 0.5 * (hi - lo);
            match g.kind {
                Kind::Revolute => q[0] = within(g.lower, g.lower + g.span, v[0]),
                Kind::Continuous => q[0] = v[0] * 2.0 * PI,
                Kind::Prismatic => {
                    let (lo, hi) = slide_limits(g);
                    q[0] = within(lo, hi, v[0]);
                }
                Kind::PrismaticUnlimited => q[0] = 2.0 * v[0],
                Kind::Fixed => {}
                Kind::Spherical | Kind::Orientation => {
                    let u = quat_of(v);
                    q.copy_from_slice(&[u.x, u.y, u.z, u.w]);
                }
                Kind::Floating => {
                    let u = quat_of(&v[3..]);
                    q.copy_from_slice(&[1.5 * v[0], 1.5 * v[1], 1.5 * v[2], u.x, u.y, u.z, u.w]);
                }
                Kind::Planar => q.copy_from_slice(&[v[0], v[1], PI * v[2]]),
                Kind::Vehicle => q.copy_from_slice(&[2.0 * v[0], PI * v[1]]),
                Kind::OmniVehicle => q.copy_from_slice(&[PI * v[0], 2.0 * v[1], PI * v[2]]),
                Kind::Location => q.copy_from_slice(&v[..3]),
            }
        }
        // Shorter motions: blend the one-value joints towards q_a (stays
        // within the limits, which are convex).
        if matches!(
            g.kind,
            Kind::Revolute | Kind::Continuous | Kind::Prismatic | Kind::PrismaticUnlimited
        ) {
            let k = r.start;
            qb[k] = qa[k] + m.blend * (qb[k] - qa[k]);
        }
    }
    let points = m.points[..tree.len()]
        .iter()
        .map(|ps| ps.iter().map(|&p| DVec3::from(p) * 0.5).collect())
        .collect();
    Built {
        tree,
        points,
        qa,
        qb,
    }
}

/// Size of the model: a bound on every coordinate the tests compute, for
/// absolute rounding tolerances.
fn scale(b: &Built) -> f64 {
    let origins: f64 = b
        .tree
        .links()
        .iter()
        .map(|l| l.origin().translation.length())
        .sum();
    let q: f64 = b.qa.iter().chain(&b.qb).map(|v| v.abs()).sum();
    1.0 + origins + q
}

fn unit_n(n: [f64; 3]) -> DVec3 {
    let n = DVec3::from(n);
    if n.length() < 0.1 {
        DVec3::X
    } else {
        n.normalize()
    }
}

/// Samples of the joint-space motion: world poses at `N + 1` times.
fn joint_space_samples(b: &Built, samples: usize) -> Vec<Vec<DAffine3>> {
    let motion = JointSpaceMotion::new(&b.tree, &b.qa, &b.qb).expect("valid configurations");
    let mut q = vec![0.0; b.tree.nq()];
    (0..=samples)
        .map(|s| {
            let mut poses = vec![DAffine3::IDENTITY; b.tree.len()];
            motion
                .poses_at(&b.tree, s as f64 / samples as f64, &mut q, &mut poses)
                .expect("buffers sized to the tree");
            poses
        })
        .collect()
}

/// Longest polyline of a point of `link` through the samples, with the
/// positions in the frame of `frame` (the world for `None`).
fn longest_polyline(
    b: &Built,
    samples: &[Vec<DAffine3>],
    link: usize,
    frame: Option<usize>,
) -> f64 {
    let rel = |poses: &[DAffine3]| match frame {
        None => poses[link],
        Some(c) => poses[c].inverse() * poses[link],
    };
    let mut longest = 0.0f64;
    for &p in &b.points[link] {
        let mut len = 0.0;
        let mut prev = rel(&samples[0]).transform_point3(p);
        for poses in &samples[1..] {
            let x = rel(poses).transform_point3(p);
            len += x.distance(prev);
            prev = x;
        }
        longest = longest.max(len);
    }
    longest
}

fn check_lambda(m: &Model) -> Result<(), TestCaseError> {
    let b = build(m);
    let n = b.tree.len();
    let bounds = CurveLengthBounds::new(&b.tree, &b.points).expect("valid point sets");
    const N: usize = 96;
    let samples = joint_space_samples(&b, N);
    // Rounding of the sampled positions, summed over the polyline.
    let tol = 1e-13 * N as f64 * scale(&b);
    let mut lambda = vec![0.0; n];
    bounds
        .lambda_all(&b.qa, &b.qb, &mut lambda)
        .expect("valid configs");
    // longest[i][c]: in the frame of ancestor c (index n: the world).
    let mut longest = vec![vec![f64::NAN; n + 1]; n];
    for i in 0..n {
        let single = bounds.lambda(i, &b.qa, &b.qb).expect("valid configs");
        prop_assert_eq!(single, lambda[i]);
        longest[i][n] = longest_polyline(&b, &samples, i, None);
        prop_assert!(
            lambda[i] + tol >= longest[i][n],
            "link {}: λ = {} < sampled curve length {}",
            i,
            lambda[i],
            longest[i][n]
        );
        for c in b.tree.ancestors(i).skip(1) {
            longest[i][c] = longest_polyline(&b, &samples, i, Some(c));
        }
        // Every sampled point lies in the reach sphere, when there is one.
        if let Some(s) = bounds.reach_sphere(i).expect("in range") {
            for poses in &samples {
                for &p in &b.points[i] {
                    let d = poses[i].transform_point3(p).distance(s.centre);
                    prop_assert!(
                        d <= s.radius + 1e-12 * scale(&b),
                        "link {}: point at {} from the reach sphere's centre, radius {}",
                        i,
                        d,
                        s.radius
                    );
                }
            }
        }
    }
    // The posed bounds (λ4), from the poses at the two ends.
    let poses_a = b.tree.poses(&b.qa).expect("valid configs");
    let poses_b = b.tree.poses(&b.qb).expect("valid configs");
    let posed = |i: usize| {
        bounds
            .lambda_posed(i, &b.qa, &b.qb, &poses_a, &poses_b)
            .expect("valid configs")
    };
    let (levers_a, levers_b) = (
        bounds.levers(&poses_a).expect("one pose per link"),
        bounds.levers(&poses_b).expect("one pose per link"),
    );
    for (i, &plain) in lambda.iter().enumerate() {
        let tight = posed(i);
        let levered = bounds
            .lambda_levered(i, &b.qa, &b.qb, &levers_a, &levers_b)
            .expect("valid configs");
        prop_assert_eq!(levered, tight, "link {}: levered and posed differ", i);
        // Levers filled for this link alone give the same bound; levers
        // holding no link's give the unposed one.
        let (mut one_a, mut one_b) = (bounds.empty_levers(), bounds.empty_levers());
        let unfilled = bounds
            .lambda_levered(i, &b.qa, &b.qb, &one_a, &one_b)
            .expect("valid configs");
        prop_assert_eq!(
            unfilled,
            plain,
            "link {}: empty levers not the plain bound",
            i
        );
        bounds
            .fill_levers(i, &poses_a, &mut one_a)
            .expect("one pose per link");
        bounds
            .fill_levers(i, &poses_b, &mut one_b)
            .expect("one pose per link");
        let filled = bounds
            .lambda_levered(i, &b.qa, &b.qb, &one_a, &one_b)
            .expect("valid configs");
        prop_assert_eq!(filled, tight, "link {}: filled levers and posed differ", i);
        prop_assert!(
            tight <= plain,
            "link {}: posed λ {} > λ {}",
            i,
            tight,
            plain
        );
        prop_assert!(
            tight + tol >= longest[i][n],
            "link {}: posed λ = {} < sampled curve length {}",
            i,
            tight,
            longest[i][n]
        );
    }
    for a in 0..n {
        for c in a..n {
            let rel = bounds
                .lambda_relative(a, c, &b.qa, &b.qb)
                .expect("valid configs");
            let rel_posed = bounds
                .lambda_relative_posed(a, c, &b.qa, &b.qb, &poses_a, &poses_b)
                .expect("valid configs");
            prop_assert!(
                rel_posed <= rel,
                "pair ({}, {}): posed {} > {}",
                a,
                c,
                rel_posed,
                rel
            );
            let rel_levered = bounds
                .lambda_relative_levered(a, c, &b.qa, &b.qb, &levers_a, &levers_b)
                .expect("valid configs");
            prop_assert_eq!(rel_levered, rel_posed);
            let frame = b.tree.common_ancestor(a, c);
            let part = |i: usize| match frame {
                Some(f) if f == i => 0.0,
                Some(f) => longest[i][f],
                None => longest[i][n],
            };
            let sampled = part(a) + part(c);
            prop_assert!(
                rel_posed + 2.0 * tol >= sampled,
                "pair ({}, {}) in frame {:?}: posed relative λ = {} < sampled {}",
                a,
                c,
                frame,
                rel_posed,
                sampled
            );
            prop_assert!(
                rel + 2.0 * tol >= sampled,
                "pair ({}, {}) in frame {:?}: relative λ = {} < sampled {}",
                a,
                c,
                frame,
                rel,
                sampled
            );
            // The relative bound only drops joints: never above the sum.
            prop_assert!(rel <= (lambda[a] + lambda[c]) * (1.0 + 1e-9));
        }
    }
    Ok(())
}

/// World angular velocity of link `c` from point velocities of three
/// orthonormal offsets (`v(o + r) − v(o) = Ω × r`, `Σ_k r_k × (Ω × r_k) = 2Ω`).
fn angular_velocity(motion: &InBetweenMotion, poses: &[DAffine3], c: usize) -> DVec3 {
    let v0 = motion
        .point_velocity(poses, c, DVec3::ZERO)
        .expect("valid link");
    let mut sum = DVec3::ZERO;
    for e in [DVec3::X, DVec3::Y, DVec3::Z] {
        let local = poses[c].matrix3.transpose() * e;
        let v = motion.point_velocity(poses, c, local).expect("valid link");
        sum += e.cross(v - v0);
    }
    0.5 * sum
}

fn check_mu(m: &Model) -> Result<(), TestCaseError> {
    let b = build(m);
    let n = b.tree.len();
    let motion = InBetweenMotion::new(&b.tree, &b.qa, &b.qb).expect("valid configurations");
    let bounds = MotionBounds::new(&b.tree, &b.points).expect("valid point sets");
    let t = m.t;
    let dir = unit_n(m.n);
    let mut poses_t = vec![DAffine3::IDENTITY; n];
    motion.poses_at(t, &mut poses_t).expect("sized");
    let mu: Vec<f64> = (0..n)
        .map(|i| bounds.mu(&motion, i, t).expect("ok"))
        .collect();
    let mu_n: Vec<f64> = (0..n)
        .map(|i| bounds.mu_projected(&motion, i, t, dir).expect("ok"))
        .collect();
    for i in 0..n {
        prop_assert!(
            mu_n[i] <= mu[i],
            "projected {} > unprojected {}",
            mu_n[i],
            mu[i]
        );
    }
    // The prepared bound (C2A pieces): at the link radius it is the
    // projected bound above; a piece's reach (the link's first two points
    // here) lowers it, checked against sampled projected speeds below.
    let mut speed = PairSpeed::new();
    let mut piece = Vec::with_capacity(n);
    let mut window = Vec::with_capacity(n);
    let t_end = t + 0.5 * (1.0 - t);
    for i in 0..n {
        bounds
            .pair_speed(&motion, i, None, t, 1.0, &mut speed)
            .expect("ok");
        // Against an object the directions are the world's.
        prop_assert!(speed.fixed_in_world());
        let share = speed.window_share();
        let full = speed.bound(dir, f64::INFINITY, 0.0);
        prop_assert!(
            (full - mu_n[i]).abs() <= 1e-9 * mu_n[i] + 1e-300,
            "link {}: prepared bound {} vs μ_n {}",
            i,
            full,
            mu_n[i]
        );
        prop_assert!(speed.bound(DVec3::ZERO, f64::INFINITY, 0.0) <= mu[i] * (1.0 + 1e-9));
        let reach = b.points[i]
            .iter()
            .take(2)
            .map(|p| p.length())
            .fold(0.0, f64::max);
        let lowered = speed.bound(dir, reach, 7.0);
        prop_assert!(lowered <= full);
        piece.push(lowered);
        // Over the first half of [t, 1] only: never above the whole
        // interval's bound, checked against the samples in the window.
        bounds
            .pair_speed(&motion, i, None, t, t_end, &mut speed)
            .expect("ok");
        let w = speed.bound(dir, f64::INFINITY, 0.0);
        prop_assert!(w <= full * (1.0 + 1e-12));
        // The acceleration term's share shrinks with the window.
        let half = speed.window_share();
        prop_assert!(
            (0.0..=share * (1.0 + 1e-12)).contains(&half),
            "window share {} on half the window, {} on all of it",
            half,
            share
        );
        window.push(w);
    }
    let tol = 1e-12 * scale(&b);
    const M: usize = 16;
    let mut poses = vec![DAffine3::IDENTITY; n];
    // Pairs: the relative bounds and, per pair, the common frame's rotation
    // at `t` and the direction fixed in it.
    let mut pairs = Vec::new();
    for a in 0..n {
        for c in a..n {
            let frame = b.tree.common_ancestor(a, c);
            let rel = bounds.mu_relative(&motion, a, c, t).expect("ok");
            let rel_n = bounds
                .mu_relative_projected(&motion, a, c, t, dir)
                .expect("ok");
            prop_assert!(rel_n <= rel * (1.0 + 1e-9) + tol);
            bounds
                .pair_speed(&motion, a, Some(c), t, 1.0, &mut speed)
                .expect("ok");
            // Fixed in the world exactly when the links share no frame.
            prop_assert_eq!(speed.fixed_in_world(), frame.is_none());
            let full = speed.bound(dir, f64::INFINITY, f64::INFINITY);
            prop_assert!(
                (full - rel_n).abs() <= 1e-9 * rel_n + 1e-300,
                "pair ({}, {}): prepared bound {} vs μ_ab,n {}",
                a,
                c,
                full,
                rel_n
            );
            bounds
                .pair_speed(&motion, a, Some(c), t, t_end, &mut speed)
                .expect("ok");
            let rel_w = speed.bound(dir, f64::INFINITY, f64::INFINITY);
            prop_assert!(rel_w <= full * (1.0 + 1e-12));
            prop_assert!(rel <= (mu[a] + mu[c]) * (1.0 + 1e-9));
            let n_c = frame.map_or(dir, |f| poses_t[f].matrix3.transpose() * dir);
            pairs.push((a, c, frame, rel, rel_n, rel_w, n_c));
        }
    }
    for s in 0..=M {
        let ts = t + (1.0 - t) * s as f64 / M as f64;
        motion.poses_at(ts, &mut poses).expect("sized");
        let mut vel: Vec<Vec<(DVec3, DVec3)>> = Vec::with_capacity(n);
        for i in 0..n {
            let mut v_i = Vec::new();
            for &p in &b.points[i] {
                let v = motion.point_velocity(&poses, i, p).expect("valid link");
                prop_assert!(
                    v.length() <= mu[i] + tol,
                    "link {} at t' = {}: speed {} > μ = {}",
                    i,
                    ts,
                    v.length(),
                    mu[i]
                );
                if b.points[i].iter().take(2).any(|q| *q == p) {
                    prop_assert!(
                        v.dot(dir).abs() <= piece[i] + tol,
                        "link {} at t' = {}: projected speed {} of a piece point > its bound {}",
                        i,
                        ts,
                        v.dot(dir).abs(),
                        piece[i]
                    );
                }
                prop_assert!(
                    ts > t_end || v.dot(dir).abs() <= window[i] + tol,
                    "link {} at t' = {}: projected speed {} > the window's bound {}",
                    i,
                    ts,
                    v.dot(dir).abs(),
                    window[i]
                );
                prop_assert!(
                    v.dot(dir).abs() <= mu_n[i] + tol,
                    "link {} at t' = {}: projected speed {} > μ_n = {}",
                    i,
                    ts,
                    v.dot(dir).abs(),
                    mu_n[i]
                );
                v_i.push((poses[i].transform_point3(p), v));
            }
            vel.push(v_i);
        }
        for &(a, c, frame, rel, rel_n, rel_w, n_c) in &pairs {
            let omega = frame.map(|f| (f, angular_velocity(&motion, &poses, f)));
            for &(pa, va) in vel[a].iter().take(3) {
                for &(pc, vc) in vel[c].iter().take(3) {
                    // Relative velocity in the common frame.
                    let w = match omega {
                        None => va - vc,
                        Some((f, om)) => {
                            poses[f].matrix3.transpose() * ((va - vc) - om.cross(pa - pc))
                        }
                    };
                    prop_assert!(
                        w.length() <= rel + 2.0 * tol,
                        "pair ({}, {}) at t' = {}: closing speed {} > μ_ab = {}",
                        a,
                        c,
                        ts,
                        w.length(),
                        rel
                    );
                    prop_assert!(
                        ts > t_end || w.dot(n_c).abs() <= rel_w + 2.0 * tol,
                        "pair ({}, {}) at t' = {}: projected closing speed {} > the window's {}",
                        a,
                        c,
                        ts,
                        w.dot(n_c).abs(),
                        rel_w
                    );
                    prop_assert!(
                        w.dot(n_c).abs() <= rel_n + 2.0 * tol,
                        "pair ({}, {}) at t' = {}: projected closing speed {} > μ_ab,n = {}",
                        a,
                        c,
                        ts,
                        w.dot(n_c).abs(),
                        rel_n
                    );
                }
            }
        }
    }
    Ok(())
}

/// What the C2A bound tests start from: the model built, its motion and
/// bounds, the time and direction asked about, and the tolerance.
fn speeds(m: &Model) -> (Built, InBetweenMotion, MotionBounds, (f64, DVec3), f64) {
    let b = build(m);
    let motion = InBetweenMotion::new(&b.tree, &b.qa, &b.qb).expect("valid configurations");
    let bounds = MotionBounds::new(&b.tree, &b.points).expect("valid point sets");
    let tol = 1e-12 * scale(&b);
    (b, motion, bounds, (m.t, unit_n(m.n)), tol)
}

/// The piece of link `i` the C2A bound tests ask about: a ball about its
/// first point through its next two.
fn piece_of(b: &Built, i: usize) -> (DVec3, f64) {
    let pts = &b.points[i];
    let c = pts[0];
    let r = pts
        .iter()
        .take(3)
        .map(|p| p.distance(c))
        .fold(0.0, f64::max);
    (c, r)
}

/// The world-frame piece bound of C2A ([`PairSpeed::world_bound`]: each
/// link's twist at `t` plus its acceleration bound over the window) against
/// sampled projected speeds of points within the pieces, for single links
/// and pairs, and the acceleration bound against central differences of
/// the point velocities.
fn check_world_bound(m: &Model) -> Result<(), TestCaseError> {
    let (b, motion, bounds, (t, dir), tol) = speeds(m);
    let n = b.tree.len();
    // A short window and the rest of the motion.
    let mut speed = PairSpeed::new();
    for t_end in [t + 0.1 * (1.0 - t), 1.0] {
        let piece = |i: usize| piece_of(&b, i);
        let accel: Vec<f64> = (0..n)
            .map(|i| bounds.acceleration(&motion, i, t, t_end).expect("ok"))
            .collect();
        let mut single = Vec::with_capacity(n);
        for i in 0..n {
            bounds
                .pair_speed(&motion, i, None, t, t_end, &mut speed)
                .expect("ok");
            let world = speed.world_bound(dir, piece(i), (DVec3::ZERO, 0.0));
            single.push(world);
            let (c, r) = piece(i);
            let chain = speed.bound(dir, c.length() + r, 0.0);
            let mean = speed.mean_world_bound(dir, piece(i), (DVec3::ZERO, 0.0));
            let both = speed.piece_bound(dir, piece(i), (DVec3::ZERO, 0.0));
            prop_assert!(mean <= world && both <= mean && both >= chain.min(mean));
        }
        let mut pair = Vec::new();
        for a in 0..n {
            for c in a + 1..n {
                bounds
                    .pair_speed(&motion, a, Some(c), t, t_end, &mut speed)
                    .expect("ok");
                pair.push((a, c, speed.world_bound(dir, piece(a), piece(c))));
            }
        }
        const M: usize = 12;
        let mut poses = vec![DAffine3::IDENTITY; n];
        let mut near = vec![DAffine3::IDENTITY; n];
        let h = 1e-6 * (t_end - t);
        for s in 0..=M {
            let ts = t + (t_end - t) * s as f64 / M as f64;
            motion.poses_at(ts, &mut poses).expect("sized");
            let vel = |poses: &[DAffine3], i: usize, p: DVec3| {
                motion.point_velocity(poses, i, p).expect("valid link")
            };
            for i in 0..n {
                for &p in b.points[i].iter().take(3) {
                    let v = vel(&poses, i, p);
                    prop_assert!(
                        v.dot(dir).abs() <= single[i] + tol,
                        "link {} at t' = {} (window to {}): projected speed {} > world bound {}",
                        i,
                        ts,
                        t_end,
                        v.dot(dir).abs(),
                        single[i]
                    );
                }
                // Acceleration: central difference inside the window.
                if s > 0 && s < M && h > 0.0 {
                    motion.poses_at(ts + h, &mut near).expect("sized");
                    let mut behind = vec![DAffine3::IDENTITY; n];
                    motion.poses_at(ts - h, &mut behind).expect("sized");
                    for &p in &b.points[i] {
                        let acc = (vel(&near, i, p) - vel(&behind, i, p)) / (2.0 * h);
                        prop_assert!(
                            acc.length() <= accel[i] * (1.0 + 1e-5) + 1e-6 * (1.0 + accel[i]),
                            "link {} at t' = {}: acceleration {} > bound {}",
                            i,
                            ts,
                            acc.length(),
                            accel[i]
                        );
                    }
                }
            }
            for &(a, c, bound) in &pair {
                for &pa in b.points[a].iter().take(3) {
                    for &pc in b.points[c].iter().take(3) {
                        let w = (vel(&poses, a, pa) - vel(&poses, c, pc)).dot(dir).abs();
                        prop_assert!(
                            w <= bound + 2.0 * tol,
                            "pair ({}, {}) at t' = {}: world closing speed {} > bound {}",
                            a,
                            c,
                            ts,
                            w,
                            bound
                        );
                    }
                }
            }
        }
    }
    Ok(())
}

/// The mean closing rate of C2A's steps ([`PairSpeed::mean_world_bound`]:
/// each link's twist at `t` plus its acceleration bound over half the
/// window) against the sampled displacements along the direction of points
/// within the pieces from `t` to every sampled `t + τ` of the window, for
/// single links and pairs: at most the rate times `τ`.
fn check_mean_world_bound(m: &Model) -> Result<(), TestCaseError> {
    let (b, motion, bounds, (t, dir), tol) = speeds(m);
    let n = b.tree.len();
    let mut speed = PairSpeed::new();
    let piece = |i: usize| piece_of(&b, i);
    let world_points = |s: f64, i: usize| {
        let mut poses = vec![DAffine3::IDENTITY; n];
        motion.poses_at(s, &mut poses).expect("sized");
        b.points[i]
            .iter()
            .take(3)
            .map(|&p| poses[i].transform_point3(p))
            .collect::<Vec<_>>()
    };
    for t_end in [t + 0.1 * (1.0 - t), t + 0.5 * (1.0 - t), 1.0] {
        let mut rates = vec![0.0; n];
        let mut pairs = Vec::new();
        for i in 0..n {
            bounds
                .pair_speed(&motion, i, None, t, t_end, &mut speed)
                .expect("ok");
            rates[i] = speed.mean_world_bound(dir, piece(i), (DVec3::ZERO, 0.0));
            for c in i + 1..n {
                bounds
                    .pair_speed(&motion, i, Some(c), t, t_end, &mut speed)
                    .expect("ok");
                pairs.push((i, c, speed.mean_world_bound(dir, piece(i), piece(c))));
            }
        }
        let start: Vec<Vec<DVec3>> = (0..n).map(|i| world_points(t, i)).collect();
        const M: usize = 8;
        for s in 1..=M {
            let tau = (t_end - t) * s as f64 / M as f64;
            let now: Vec<Vec<DVec3>> = (0..n).map(|i| world_points(t + tau, i)).collect();
            let moved = |i: usize, k: usize| now[i][k] - start[i][k];
            for i in 0..n {
                for k in 0..start[i].len() {
                    let d = moved(i, k).dot(dir).abs();
                    prop_assert!(
                        d <= rates[i] * tau + tol,
                        "link {} over [{}, {}]: displacement {} along n > {} (rate {})",
                        i,
                        t,
                        t + tau,
                        d,
                        rates[i] * tau,
                        rates[i]
                    );
                }
            }
            for &(a, c, rate) in &pairs {
                for ka in 0..start[a].len() {
                    for kc in 0..start[c].len() {
                        let d = (moved(a, ka) - moved(c, kc)).dot(dir).abs();
                        prop_assert!(
                            d <= rate * tau + 2.0 * tol,
                            "pair ({}, {}) over [{}, {}]: closing {} along n > {}",
                            a,
                            c,
                            t,
                            t + tau,
                            d,
                            rate * tau
                        );
                    }
                }
            }
        }
    }
    Ok(())
}

/// `point_velocity` against a fourth-order central difference of the
/// positions, world frame and in the frame of each ancestor (which also
/// checks the relative velocity the μ test derives).
fn check_velocity(m: &Model) -> Result<(), TestCaseError> {
    let b = build(m);
    let n = b.tree.len();
    let motion = InBetweenMotion::new(&b.tree, &b.qa, &b.qb).expect("valid configurations");
    let h = 1e-5;
    let t = 2.0 * h + m.t * (1.0 - 4.0 * h);
    let at = |s: f64| {
        let mut p = vec![DAffine3::IDENTITY; n];
        motion.poses_at(s, &mut p).expect("sized");
        p
    };
    let ps = [at(t - 2.0 * h), at(t - h), at(t + h), at(t + 2.0 * h)];
    let poses = at(t);
    let diff = |x: [DVec3; 4]| (8.0 * (x[2] - x[1]) - (x[3] - x[0])) / (12.0 * h);
    for i in 0..n {
        for &p in &b.points[i] {
            let v = motion.point_velocity(&poses, i, p).expect("valid link");
            let fd = diff(ps.each_ref().map(|q| q[i].transform_point3(p)));
            let tol = 1e-6 * (1.0 + v.length()) * scale(&b);
            prop_assert!(
                (v - fd).length() <= tol,
                "link {} at t = {}: point_velocity {} vs finite difference {}",
                i,
                t,
                v,
                fd
            );
            for c in b.tree.ancestors(i).skip(1) {
                // The μ test's relative velocity: world velocities minus
                // the frame's angular velocity crossed with the offset.
                let om = angular_velocity(&motion, &poses, c);
                let vo = motion
                    .point_velocity(&poses, c, DVec3::ZERO)
                    .expect("valid link");
                let x = poses[i].transform_point3(p) - poses[c].translation;
                let w = poses[c].matrix3.transpose() * ((v - vo) - om.cross(x));
                let fd = diff(
                    ps.each_ref()
                        .map(|q| (q[c].inverse() * q[i]).transform_point3(p)),
                );
                prop_assert!(
                    (w - fd).length() <= tol,
                    "link {} in frame {}: relative velocity {} vs finite difference {}",
                    i,
                    c,
                    w,
                    fd
                );
            }
        }
    }
    Ok(())
}

/// Both motions start and end at the forward kinematics of their ends, and
/// coincide wherever the in-between motion takes its parameters from the
/// joint values (revolute, continuous, prismatic, spherical, planar).
fn check_motions_agree(m: &Model) -> Result<(), TestCaseError> {
    let b = build(m);
    let n = b.tree.len();
    let tol = 1e-9 * scale(&b);
    let ib = InBetweenMotion::new(&b.tree, &b.qa, &b.qb).expect("valid");
    let js = JointSpaceMotion::new(&b.tree, &b.qa, &b.qb).expect("valid");
    let close = |x: &DAffine3, y: &DAffine3| {
        (x.matrix3 - y.matrix3)
            .abs()
            .to_cols_array()
            .iter()
            .all(|e| *e <= 1e-9)
            && x.translation.distance(y.translation) <= tol
    };
    let same_kind = b.tree.links().iter().all(|l| {
        matches!(
            l.joint().kind,
            JointType::Fixed
                | JointType::Revolute { .. }
                | JointType::Continuous { .. }
                | JointType::Prismatic { .. }
                | JointType::Spherical
                | JointType::Planar { .. }
        )
    });
    let mut q = vec![0.0; b.tree.nq()];
    let (mut p_ib, mut p_js) = (vec![DAffine3::IDENTITY; n], vec![DAffine3::IDENTITY; n]);
    for (t, ends) in [(0.0, Some(&b.qa)), (1.0, Some(&b.qb)), (m.t, None)] {
        ib.poses_at(t, &mut p_ib).expect("sized");
        js.poses_at(&b.tree, t, &mut q, &mut p_js).expect("sized");
        if let Some(qe) = ends {
            let fk = b.tree.poses(qe).expect("valid");
            for i in 0..n {
                prop_assert!(
                    close(&p_ib[i], &fk[i]),
                    "in-between link {} at t = {}",
                    i,
                    t
                );
                prop_assert!(
                    close(&p_js[i], &fk[i]),
                    "joint-space link {} at t = {}",
                    i,
                    t
                );
            }
        }
        if same_kind {
            for i in 0..n {
                prop_assert!(
                    close(&p_ib[i], &p_js[i]),
                    "link {} at t = {}: in-between {:?} vs joint-space {:?}",
                    i,
                    t,
                    p_ib[i],
                    p_js[i]
                );
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn lambda_bounds_sampled_curves(m in model(false)) {
        check_lambda(&m)?;
    }

    #[test]
    fn lambda_bounds_sampled_curves_all_joint_types(m in model(true)) {
        check_lambda(&m)?;
    }

    #[test]
    fn mu_bounds_sampled_speeds(m in model(false)) {
        check_mu(&m)?;
    }

    #[test]
    fn mu_bounds_sampled_speeds_all_joint_types(m in model(true)) {
        check_mu(&m)?;
    }

    #[test]
    fn world_piece_bounds_sampled_speeds_and_accelerations(m in model(false)) {
        check_world_bound(&m)?;
    }

    #[test]
    fn world_piece_bounds_sampled_speeds_and_accelerations_all_joint_types(m in model(true)) {
        check_world_bound(&m)?;
    }

    #[test]
    fn mean_world_bounds_sampled_displacements(m in model(false)) {
        check_mean_world_bound(&m)?;
    }

    #[test]
    fn mean_world_bounds_sampled_displacements_all_joint_types(m in model(true)) {
        check_mean_world_bound(&m)?;
    }

    #[test]
    fn point_velocity_matches_finite_differences(m in model(true)) {
        check_velocity(&m)?;
    }

    #[test]
    fn motions_agree_with_forward_kinematics(m in model(true)) {
        check_motions_agree(&m)?;
    }
}

fn two_link_arm() -> KinematicTree {
    KinematicTree::new(vec![
        LinkSpec::new("upper", None).with_joint(Joint::revolute("shoulder", DVec3::Z, -3.0, 3.0)),
        LinkSpec::new("fore", Some("upper"))
            .with_joint(Joint::revolute("elbow", DVec3::Z, -3.0, 3.0))
            .with_origin(DAffine3::from_translation(DVec3::X)),
    ])
    .expect("valid")
}

#[test]
fn lambda_matches_the_planar_arm_by_hand() {
    let tree = two_link_arm();
    let pts = vec![vec![DVec3::ZERO, DVec3::X], vec![DVec3::ZERO, DVec3::X]];
    let b = CurveLengthBounds::new(&tree, &pts).expect("valid");
    // Forearm: 1 m from the elbow axis, at most 2 m from the shoulder axis.
    let f = b.factors(1).expect("in range");
    assert_eq!(f.len(), 2);
    assert_eq!(f[0].joint_link, 1);
    assert!((f[0].rotation - 1.0).abs() < 1e-9);
    assert!((f[1].rotation - 2.0).abs() < 1e-9);
    let l = b.lambda(1, &[0.0, 0.0], &[0.5, -0.25]).expect("valid");
    assert!((1.25..1.25 + 1e-9).contains(&l), "λ = {l}");
    // Relative to the upper arm only the elbow counts.
    let r = b
        .lambda_relative(1, 0, &[0.0, 0.0], &[0.5, -0.25])
        .expect("valid");
    assert!((0.25..0.25 + 1e-9).contains(&r), "λ = {r}");
    assert_eq!(
        b.lambda_relative(1, 1, &[0.0, 0.0], &[0.5, 0.1])
            .expect("ok"),
        0.0
    );
    let s = b.reach_sphere(1).expect("in range").expect("bounded");
    assert!(s.centre.length() < 1e-12 && (s.radius - 2.0).abs() < 1e-9);
}

/// A point folded back onto the shoulder axis does not move when the
/// shoulder turns: the posed bound (λ4) sees it, the sphere of every elbow
/// angle cannot.
#[test]
fn posed_lambda_sees_a_point_on_the_axis() {
    let tree = KinematicTree::new(vec![
        LinkSpec::new("upper", None).with_joint(Joint::revolute("shoulder", DVec3::Z, -3.0, 3.0)),
        LinkSpec::new("fore", Some("upper"))
            .with_joint(Joint::revolute("elbow", DVec3::Z, -3.0, 3.0))
            .with_origin(DAffine3::from_translation(DVec3::X)),
    ])
    .expect("valid");
    let pts = vec![vec![DVec3::ZERO, DVec3::X], vec![-DVec3::X]];
    let b = CurveLengthBounds::new(&tree, &pts).expect("valid");
    let (qa, qb) = ([0.0, 0.0], [0.5, 0.0]);
    let (pa, pb) = (
        tree.poses(&qa).expect("valid"),
        tree.poses(&qb).expect("valid"),
    );
    let plain = b.lambda(1, &qa, &qb).expect("valid");
    let posed = b.lambda_posed(1, &qa, &qb, &pa, &pb).expect("valid");
    assert!((1.0..1.0 + 1e-9).contains(&plain), "{plain}");
    assert!(posed < 1e-9, "{posed}");
    // The elbow's turn still counts: the point is 1 m from its axis.
    let qc = [0.5, 0.25];
    let pc = tree.poses(&qc).expect("valid");
    let posed = b.lambda_posed(1, &qa, &qc, &pa, &pc).expect("valid");
    assert!((0.25..0.25 + 0.5 * 0.25 + 1e-9).contains(&posed), "{posed}");
    // One pose per link, or a typed error.
    assert!(matches!(
        b.lambda_posed(1, &qa, &qb, &pa[..1], &pb),
        Err(KinematicsError::BufferLength { what: "poses", .. })
    ));
}

#[test]
fn unlimited_translation_below_a_revolute_joint_is_bounded_per_query() {
    // A prismatic joint without limits carries a link away from the axis
    // of the revolute joint below it: the factor grows with the reach.
    let tree = KinematicTree::new(vec![
        LinkSpec::new("base", None).with_joint(Joint::revolute("turn", DVec3::Z, -3.0, 3.0)),
        LinkSpec::new("slider", Some("base"))
            .with_joint(Joint::new("slide", JointType::Prismatic { axis: DVec3::X })),
    ])
    .expect("valid");
    let pts = vec![vec![DVec3::ZERO], vec![DVec3::ZERO]];
    let b = CurveLengthBounds::new(&tree, &pts).expect("valid");
    assert!(b.reach_sphere(1).expect("in range").is_none());
    let l = b.lambda(1, &[0.0, 10.0], &[1.0, 10.0]).expect("valid");
    assert!((10.0..10.0 + 1e-6).contains(&l), "λ = {l}");
}

/// λ of a link whose joint term is mapped through origins given as
/// stretching the plane of motion by `1 + δ` (each within the tree's
/// tolerance of a rotation): λ must bound the sampled world curve whatever
/// the tree stores for them (it stores their nearest rotations; were it to
/// keep the stretch, each joint term would have to grow by it).
#[test]
fn lambda_includes_the_stretch_of_the_origins_above_each_joint() {
    let delta = 4.9e-10;
    let stretched = |t: DVec3| DAffine3 {
        matrix3: glam::DMat3::from_diagonal(DVec3::new(1.0 + delta, 1.0 + delta, 1.0)),
        translation: t,
    };
    let specs = vec![
        LinkSpec::new("base", None).with_origin(stretched(DVec3::new(100.0, 0.0, 0.0))),
        LinkSpec::new("arm", Some("base"))
            .with_joint(Joint::revolute("turn", DVec3::Z, -3.0, 3.0))
            .with_origin(stretched(DVec3::new(0.0, 50.0, 0.0))),
    ];
    let tree = KinematicTree::new(specs).expect("valid");
    let p = DVec3::new(10.0, 0.0, 0.0);
    let pts = vec![vec![DVec3::ZERO], vec![p]];
    let b = CurveLengthBounds::new(&tree, &pts).expect("valid");
    let (qa, qb) = ([0.0], [1.0]);
    let lambda = b.lambda(1, &qa, &qb).expect("valid");
    let n = 100_000;
    let mut length = 0.0;
    let mut prev = tree.poses(&qa).expect("valid")[1].transform_point3(p);
    for k in 1..=n {
        let q = [f64::from(k) / f64::from(n)];
        let x = tree.poses(&q).expect("valid")[1].transform_point3(p);
        length += x.distance(prev);
        prev = x;
    }
    assert!(length <= lambda, "sampled curve {length} > λ = {lambda}");
}

#[test]
fn mu_projected_uses_the_fixed_root_axis() {
    // A rotation about z moves nothing along z.
    let tree = two_link_arm();
    let pts = vec![vec![DVec3::X], vec![DVec3::X]];
    let m = MotionBounds::new(&tree, &pts).expect("valid");
    let motion = InBetweenMotion::new(&tree, &[0.0, 0.0], &[1.0, 0.0]).expect("valid");
    assert!(m.mu_projected(&motion, 0, 0.0, DVec3::Z).expect("ok") < 1e-9);
    assert!((m.mu(&motion, 0, 0.0).expect("ok") - 1.0).abs() < 1e-9);
    // The elbow does not move: the pair closes at speed 0 in the upper arm's
    // frame.
    assert!(m.mu_relative(&motion, 1, 0, 0.3).expect("ok") < 1e-9);
}

#[test]
fn bad_input_gets_typed_errors() {
    let tree = two_link_arm();
    let good = vec![vec![DVec3::X], vec![DVec3::X]];
    let empty: Vec<Vec<DVec3>> = vec![vec![DVec3::X], vec![]];
    assert!(matches!(
        CurveLengthBounds::new(&tree, &empty),
        Err(KinematicsError::EmptyPoints { link }) if link == "fore"
    ));
    assert!(matches!(
        MotionBounds::new(&tree, &empty),
        Err(KinematicsError::EmptyPoints { .. })
    ));
    assert!(matches!(
        CurveLengthBounds::new(&tree, &good[..1]),
        Err(KinematicsError::BufferLength { .. })
    ));
    let nan = vec![vec![DVec3::X], vec![DVec3::new(f64::NAN, 0.0, 0.0)]];
    assert!(matches!(
        MotionBounds::new(&tree, &nan),
        Err(KinematicsError::NotFinite { .. })
    ));
    let b = CurveLengthBounds::new(&tree, &good).expect("valid");
    assert!(matches!(
        b.lambda(2, &[0.0, 0.0], &[0.0, 0.0]),
        Err(KinematicsError::LinkIndex { index: 2, len: 2 })
    ));
    assert!(matches!(
        b.lambda(1, &[0.0], &[0.0, 0.0]),
        Err(KinematicsError::ConfigLength {
            expected: 2,
            got: 1
        })
    ));
    assert!(matches!(
        b.lambda(1, &[0.0, f64::INFINITY], &[0.0, 0.0]),
        Err(KinematicsError::ConfigNotFinite { index: 1, .. })
    ));
    assert!(matches!(
        b.lambda_all(&[0.0, 0.0], &[0.0, 0.0], &mut [0.0; 3]),
        Err(KinematicsError::BufferLength { .. })
    ));
    let poses = tree.poses(&[0.0, 0.0]).expect("valid configs");
    let mut levers = b.empty_levers();
    assert!(matches!(
        b.fill_levers(2, &poses, &mut levers),
        Err(KinematicsError::LinkIndex { index: 2, len: 2 })
    ));
    assert!(matches!(
        b.fill_levers(1, &poses[..1], &mut levers),
        Err(KinematicsError::BufferLength { what: "poses", .. })
    ));
    assert!(b.fill_levers(1, &poses, &mut levers).is_ok());
    let ball = KinematicTree::new(vec![
        LinkSpec::new("ball", None).with_joint(Joint::new("s", JointType::Spherical)),
    ])
    .expect("valid");
    let bb = CurveLengthBounds::new(&ball, &[vec![DVec3::X]]).expect("valid");
    assert!(matches!(
        bb.lambda(0, &[0.0; 4], &[0.0, 0.0, 0.0, 1.0]),
        Err(KinematicsError::BadQuaternion { index: 0, .. })
    ));
    let m = MotionBounds::new(&tree, &good).expect("valid");
    let motion = InBetweenMotion::new(&tree, &[0.0, 0.0], &[1.0, 0.0]).expect("valid");
    assert!(matches!(
        m.mu(&motion, 5, 0.0),
        Err(KinematicsError::LinkIndex { .. })
    ));
    assert!(matches!(
        m.mu(&motion, 0, 1.5),
        Err(KinematicsError::BadTime { .. })
    ));
    assert!(matches!(
        m.mu(&motion, 0, f64::NAN),
        Err(KinematicsError::BadTime { .. })
    ));
    assert!(matches!(
        m.mu_projected(&motion, 0, 0.0, DVec3::ZERO),
        Err(KinematicsError::BadDirection { .. })
    ));
    let other =
        InBetweenMotion::new(&ball, &[0.0, 0.0, 0.0, 1.0], &[0.0, 0.0, 0.0, 1.0]).expect("valid");
    assert!(matches!(
        m.mu(&other, 0, 0.0),
        Err(KinematicsError::MotionMismatch {
            links: 1,
            expected: 2
        })
    ));
}

/// A point at radius 1 turning 1 rad about the z axis, seen along its
/// initial radial direction (its speed along it is 0 at the start): it
/// moves `1 − cos τ` along it by `τ`, the mean bound gives `τ / 2` (half
/// the acceleration `ω² r = 1` times the window), and the speed bound of
/// the window twice that. The mean bound is tight to second order: a
/// quarter of the window's acceleration would not hold.
#[test]
fn the_mean_bound_of_a_turning_point_is_half_its_acceleration_over_the_window() {
    let spec = LinkSpec {
        name: "arm".into(),
        parent: None,
        joint: Joint::revolute("arm", DVec3::Z, -3.0, 3.0),
        origin: DAffine3::IDENTITY,
    };
    let tree = KinematicTree::new(vec![spec]).expect("valid tree");
    let points = vec![vec![DVec3::X]];
    let motion = InBetweenMotion::new(&tree, &[0.0], &[1.0]).expect("valid configurations");
    let bounds = MotionBounds::new(&tree, &points).expect("valid points");
    let mut speed = PairSpeed::new();
    bounds
        .pair_speed(&motion, 0, None, 0.0, 1.0, &mut speed)
        .expect("ok");
    let tip = (DVec3::X, 0.0);
    let mean = speed.mean_world_bound(DVec3::X, tip, (DVec3::ZERO, 0.0));
    let whole = speed.world_bound(DVec3::X, tip, (DVec3::ZERO, 0.0));
    assert!((mean - 0.5).abs() < 1e-6, "mean bound {mean}");
    assert!((whole - 1.0).abs() < 1e-6, "speed bound {whole}");
    let moved = 1.0 - 1.0_f64.cos();
    assert!(moved <= mean && moved > 0.25 * whole, "{moved}");
}
