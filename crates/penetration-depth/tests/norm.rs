//! The object norm against its definition: Monte-Carlo integration of the
//! sequential change over solid cuboid links, finite differences of the
//! chart, round trips, and the mass fallbacks.

use std::f64::consts::PI;
use std::sync::Arc;

use armature_bvh_geometry::{ArticulatedBody, Tessellation, TriMesh};
use armature_kinematics::joint::quat;
use armature_kinematics::{Joint, JointType, KinematicTree, LinkSpec};
use armature_penetration_depth::PdError;
use armature_penetration_depth::norm::{MassSource, MetricBlock, NormFrame, ObjectNorm};
use glam::{DAffine3, DMat3, DQuat, DVec3};
use proptest::prelude::*;

/// SplitMix64: a fixed stream of cases.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    fn vec(&mut self, r: f64) -> DVec3 {
        DVec3::new(self.range(-r, r), self.range(-r, r), self.range(-r, r))
    }

    fn direction(&mut self) -> DVec3 {
        loop {
            let v = self.vec(1.0);
            if v.length_squared() > 0.01 && v.length_squared() <= 1.0 {
                return v.normalize();
            }
        }
    }

    fn rotation(&mut self) -> DQuat {
        loop {
            let q = DQuat::from_xyzw(
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            );
            if q.length_squared() > 0.01 && q.length_squared() <= 1.0 {
                return q.normalize();
            }
        }
    }

    fn pose(&mut self, r: f64) -> DAffine3 {
        DAffine3::from_rotation_translation(self.rotation(), self.vec(r))
    }
}

/// A link of a test model: its joint, fixed origin and an optional solid
/// box (size, placement in the link frame).
struct Part {
    name: &'static str,
    parent: Option<&'static str>,
    kind: JointType,
    origin: DAffine3,
    solid: Option<(DVec3, DAffine3)>,
}

fn part(
    name: &'static str,
    parent: Option<&'static str>,
    kind: JointType,
    origin: DAffine3,
    solid: Option<(DVec3, DAffine3)>,
) -> Part {
    Part {
        name,
        parent,
        kind,
        origin,
        solid,
    }
}

/// A model and the boxes of its links in tree order.
struct Model {
    body: ArticulatedBody,
    boxes: Vec<Option<(DVec3, DAffine3)>>,
}

fn model(parts: &[Part]) -> Model {
    let specs = parts
        .iter()
        .map(|p| {
            LinkSpec::new(p.name, p.parent)
                .with_joint(Joint::new(p.name, p.kind))
                .with_origin(p.origin)
        })
        .collect();
    let tree = KinematicTree::new(specs).unwrap();
    let mut boxes = vec![None; tree.len()];
    let mut meshes = vec![None; tree.len()];
    for p in parts {
        let i = tree.link_index(p.name).unwrap();
        if let Some((size, at)) = p.solid {
            let mesh = Tessellation::default()
                .cuboid(size)
                .unwrap()
                .transformed(&at)
                .unwrap();
            meshes[i] = Some(Arc::new(mesh));
            boxes[i] = Some((size, at));
        }
    }
    Model {
        body: ArticulatedBody::new("model", tree, meshes).unwrap(),
        boxes,
    }
}

/// A random valid configuration; one-value joints within `±spread` of 0.
fn random_config(tree: &KinematicTree, rng: &mut Rng, spread: f64) -> Vec<f64> {
    let mut q = vec![0.0; tree.nq()];
    for (i, l) in tree.links().iter().enumerate() {
        let s = &mut q[tree.q_range(i)];
        match l.joint().kind {
            JointType::Spherical => s.copy_from_slice(&rng.rotation().to_array()),
            JointType::Floating => {
                s[..3].copy_from_slice(&rng.vec(1.0).to_array());
                s[3..].copy_from_slice(&rng.rotation().to_array());
            }
            JointType::Planar { .. } => {
                s[0] = rng.range(-1.0, 1.0);
                s[1] = rng.range(-1.0, 1.0);
                s[2] = rng.range(-spread, spread);
            }
            _ => {
                for v in s {
                    *v = rng.range(-spread, spread);
                }
            }
        }
    }
    q
}

/// `q` with the rotations of `q_ref` perturbed by at most `angle` and the
/// angles within `±angle`, translations within `±1`.
fn nearby(tree: &KinematicTree, q_ref: &[f64], rng: &mut Rng, angle: f64) -> Vec<f64> {
    let mut q = q_ref.to_vec();
    for (i, l) in tree.links().iter().enumerate() {
        let s = &mut q[tree.q_range(i)];
        let turn = |rng: &mut Rng, s: &mut [f64]| {
            let r = quat(s) * DQuat::from_axis_angle(rng.direction(), rng.range(-angle, angle));
            s.copy_from_slice(&r.to_array());
        };
        match l.joint().kind {
            JointType::Spherical => turn(rng, s),
            JointType::Floating => {
                for v in &mut s[..3] {
                    *v += rng.range(-1.0, 1.0);
                }
                turn(rng, &mut s[3..]);
            }
            JointType::Planar { .. } => {
                s[0] += rng.range(-1.0, 1.0);
                s[1] += rng.range(-1.0, 1.0);
                s[2] += rng.range(-angle, angle);
            }
            JointType::Prismatic { .. } => s[0] += rng.range(-1.0, 1.0),
            _ => {
                for v in s {
                    *v += rng.range(-angle, angle);
                }
            }
        }
    }
    q
}

/// `(1/V) ∫ Σₖ |x(q⁽ᵏ⁾) − x(q⁽ᵏ⁻¹⁾)|²` by Monte Carlo over the boxes, with
/// `q⁽ᵏ⁾` the first `k` joints (tree order) at `q`, the rest at `q_ref`:
/// the estimate and its standard error.
fn monte_carlo(m: &Model, q_ref: &[f64], q: &[f64], samples: usize, seed: u64) -> (f64, f64) {
    let tree = m.body.tree();
    let mut configs = vec![q_ref.to_vec()];
    for i in 0..tree.len() {
        let mut next = configs.last().unwrap().clone();
        for k in tree.q_range(i) {
            next[k] = q[k];
        }
        configs.push(next);
    }
    let poses: Vec<Vec<DAffine3>> = configs.iter().map(|c| tree.poses(c).unwrap()).collect();
    let solids: Vec<(usize, DVec3, DAffine3)> = m
        .boxes
        .iter()
        .enumerate()
        .filter_map(|(i, b)| b.map(|(s, at)| (i, s, at)))
        .collect();
    let volumes: Vec<f64> = solids.iter().map(|(_, s, _)| s.x * s.y * s.z).collect();
    let total: f64 = volumes.iter().sum();
    let mut rng = Rng(seed);
    let (mut sum, mut sum2) = (0.0, 0.0);
    for _ in 0..samples {
        let mut pick = rng.unit() * total;
        let mut k = 0;
        while k + 1 < solids.len() && pick >= volumes[k] {
            pick -= volumes[k];
            k += 1;
        }
        let (link, size, at) = solids[k];
        let local = at.transform_point3(
            (DVec3::new(rng.unit(), rng.unit(), rng.unit()) - DVec3::splat(0.5)) * size,
        );
        let f: f64 = poses
            .windows(2)
            .map(|w| {
                (w[1][link].transform_point3(local) - w[0][link].transform_point3(local))
                    .length_squared()
            })
            .sum();
        sum += f;
        sum2 += f * f;
    }
    let n = samples as f64;
    let mean = sum / n;
    let var = (sum2 / n - mean * mean).max(0.0);
    (mean, (var / n).sqrt())
}

fn check_against_monte_carlo(m: &Model, q_ref: &[f64], q: &[f64], seed: u64) {
    let frame = ObjectNorm::new(&m.body).unwrap().around(q_ref).unwrap();
    let sigma = frame.norm(q).unwrap();
    let (mc, se) = monte_carlo(m, q_ref, q, 200_000, seed);
    assert!(
        (sigma - mc).abs() <= 4.0 * se + 1e-12 * mc.abs(),
        "σ = {sigma}, Monte Carlo {mc} ± {se}"
    );
    // The quadratic form in X is the same number.
    let mut x = vec![0.0; frame.nx()];
    frame.to_x(q, &mut x).unwrap();
    let quad = frame.norm_x(&x);
    assert!(
        (quad - sigma).abs() <= 1e-12 * sigma.max(1e-300),
        "{quad} vs {sigma}"
    );
}

fn offset_box(rng: &mut Rng) -> Option<(DVec3, DAffine3)> {
    Some((
        DVec3::new(
            rng.range(0.2, 1.0),
            rng.range(0.2, 1.0),
            rng.range(0.2, 1.0),
        ),
        rng.pose(1.0),
    ))
}

fn single(kind: JointType, rng: &mut Rng) -> Model {
    let base = part(
        "base",
        None,
        JointType::Fixed,
        DAffine3::IDENTITY,
        offset_box(rng),
    );
    let moving = part("moving", Some("base"), kind, rng.pose(1.0), offset_box(rng));
    model(&[base, moving])
}

#[test]
fn prismatic_matches_monte_carlo() {
    let mut rng = Rng(1);
    let m = single(
        JointType::Prismatic {
            axis: rng.direction(),
        },
        &mut rng,
    );
    check_against_monte_carlo(&m, &[0.3], &[-0.9], 11);
}

#[test]
fn revolute_matches_monte_carlo() {
    let mut rng = Rng(2);
    let m = single(
        JointType::Revolute {
            axis: rng.direction(),
        },
        &mut rng,
    );
    // Small, large, and beyond a half turn (the angle wraps).
    for (k, dq) in [0.2, -1.7, 2.9, 4.0, -7.0].into_iter().enumerate() {
        check_against_monte_carlo(&m, &[0.4], &[0.4 + dq], 20 + k as u64);
    }
}

#[test]
fn continuous_matches_monte_carlo() {
    let mut rng = Rng(3);
    let m = single(
        JointType::Continuous {
            axis: rng.direction(),
        },
        &mut rng,
    );
    check_against_monte_carlo(&m, &[-2.0], &[1.0], 31);
}

#[test]
fn spherical_matches_monte_carlo() {
    let mut rng = Rng(4);
    let m = single(JointType::Spherical, &mut rng);
    for k in 0..3 {
        let q_ref = rng.rotation().to_array();
        let q = rng.rotation().to_array();
        check_against_monte_carlo(&m, &q_ref, &q, 40 + k);
    }
}

#[test]
fn floating_matches_monte_carlo() {
    let mut rng = Rng(5);
    let m = single(JointType::Floating, &mut rng);
    for k in 0..3 {
        let q_ref = random_config(m.body.tree(), &mut rng, 3.0);
        let q = random_config(m.body.tree(), &mut rng, 3.0);
        check_against_monte_carlo(&m, &q_ref, &q, 50 + k);
    }
}

#[test]
fn planar_matches_monte_carlo() {
    let mut rng = Rng(6);
    let m = single(
        JointType::Planar {
            normal: rng.direction(),
        },
        &mut rng,
    );
    for k in 0..3 {
        let q_ref = random_config(m.body.tree(), &mut rng, 3.0);
        let q = random_config(m.body.tree(), &mut rng, 3.0);
        check_against_monte_carlo(&m, &q_ref, &q, 60 + k);
    }
}

#[test]
fn revolute_chain_matches_monte_carlo() {
    let mut rng = Rng(7);
    let mut parts = Vec::new();
    let names = ["l0", "l1", "l2"];
    for (k, name) in names.into_iter().enumerate() {
        let parent = if k == 0 { None } else { Some(names[k - 1]) };
        let axis = rng.direction();
        parts.push(part(
            name,
            parent,
            JointType::Revolute { axis },
            rng.pose(0.8),
            offset_box(&mut rng),
        ));
    }
    let m = model(&parts);
    for k in 0..3 {
        let q_ref = random_config(m.body.tree(), &mut rng, 3.0);
        let q = random_config(m.body.tree(), &mut rng, 3.0);
        check_against_monte_carlo(&m, &q_ref, &q, 70 + k);
    }
}

/// A branching tree of every supported kind, with a link without geometry
/// in a chain (its outboard set is its descendants') and a fixed link.
fn branching(rng: &mut Rng) -> Model {
    let mut dir = || rng.direction();
    let (a1, a2, a3, a4) = (dir(), dir(), dir(), dir());
    let mut pose = |r| rng.pose(r);
    let poses: Vec<DAffine3> = (0..8).map(|_| pose(0.7)).collect();
    let mut solid = || offset_box(rng);
    let solids: Vec<_> = (0..7).map(|_| solid()).collect();
    model(&[
        part("torso", None, JointType::Floating, poses[0], solids[0]),
        part(
            "shoulder",
            Some("torso"),
            JointType::Spherical,
            poses[1],
            solids[1],
        ),
        part(
            "elbow",
            Some("shoulder"),
            JointType::Revolute { axis: a1 },
            poses[2],
            solids[2],
        ),
        part(
            "hip",
            Some("torso"),
            JointType::Prismatic { axis: a2 },
            poses[3],
            None,
        ),
        part(
            "knee",
            Some("hip"),
            JointType::Continuous { axis: a3 },
            poses[4],
            solids[3],
        ),
        part(
            "foot",
            Some("knee"),
            JointType::Planar { normal: a4 },
            poses[5],
            solids[4],
        ),
        part("sole", Some("foot"), JointType::Fixed, poses[6], solids[5]),
        part(
            "head",
            Some("torso"),
            JointType::Spherical,
            poses[7],
            solids[6],
        ),
    ])
}

#[test]
fn branching_tree_matches_monte_carlo() {
    let mut rng = Rng(8);
    let m = branching(&mut rng);
    for k in 0..3 {
        let q_ref = random_config(m.body.tree(), &mut rng, 3.0);
        let q = random_config(m.body.tree(), &mut rng, 3.0);
        check_against_monte_carlo(&m, &q_ref, &q, 80 + k);
    }
}

#[test]
fn norm_is_zero_at_the_reference_and_even_in_revolute_angles() {
    let mut rng = Rng(9);
    let m = branching(&mut rng);
    let norm = ObjectNorm::new(&m.body).unwrap();
    let tree = m.body.tree();
    for _ in 0..20 {
        let q_ref = random_config(tree, &mut rng, 3.0);
        let frame = norm.around(&q_ref).unwrap();
        assert!(frame.norm(&q_ref).unwrap() < 1e-24);
        let elbow = tree.q_range(tree.link_index("elbow").unwrap()).start;
        let d = rng.range(-3.0, 3.0);
        let (mut plus, mut minus) = (q_ref.clone(), q_ref.clone());
        plus[elbow] += d;
        minus[elbow] -= d;
        let (sp, sm) = (frame.norm(&plus).unwrap(), frame.norm(&minus).unwrap());
        assert!((sp - sm).abs() <= 1e-12 * sp, "{sp} vs {sm}");
        assert!(sp > 0.0);
    }
}

#[test]
fn floating_single_body_is_the_rigid_formula() {
    let mut rng = Rng(10);
    let m = model(&[part(
        "rigid",
        None,
        JointType::Floating,
        rng.pose(1.0),
        offset_box(&mut rng),
    )]);
    let norm = ObjectNorm::new(&m.body).unwrap();
    let mass = m.body.links()[0]
        .as_ref()
        .unwrap()
        .mesh
        .mass_properties()
        .unwrap();
    assert_eq!(norm.link_mass(0).unwrap().source, MassSource::Mesh);
    for _ in 0..20 {
        let q_ref = random_config(m.body.tree(), &mut rng, 3.0);
        let q = random_config(m.body.tree(), &mut rng, 3.0);
        let frame = norm.around(&q_ref).unwrap();
        let pose =
            |q: &[f64]| DAffine3::from_rotation_translation(quat(&q[3..7]), DVec3::from_slice(q));
        let dc =
            pose(&q).transform_point3(mass.centroid) - pose(&q_ref).transform_point3(mass.centroid);
        let mut r = quat(&q_ref[3..7]).conjugate() * quat(&q[3..7]);
        if r.w < 0.0 {
            r = -r;
        }
        let v = r.xyz();
        let rigid = dc.length_squared() + 4.0 / mass.volume * v.dot(mass.inertia * v);
        let sigma = frame.norm(&q).unwrap();
        assert!((sigma - rigid).abs() <= 1e-12 * rigid, "{sigma} vs {rigid}");
    }
}

/// Two configurations give the same pose of every link.
fn same_poses(tree: &KinematicTree, a: &[f64], b: &[f64], tol: f64) -> bool {
    let (pa, pb) = (tree.poses(a).unwrap(), tree.poses(b).unwrap());
    pa.iter().zip(&pb).all(|(x, y)| x.abs_diff_eq(*y, tol))
}

#[test]
fn to_x_and_from_x_round_trip() {
    let mut rng = Rng(11);
    let m = branching(&mut rng);
    let tree = m.body.tree();
    let norm = ObjectNorm::new(&m.body).unwrap();
    let mut x = vec![0.0; tree.dof()];
    let mut back = vec![0.0; tree.nq()];
    let mut x2 = vec![0.0; tree.dof()];
    for _ in 0..200 {
        let q_ref = random_config(tree, &mut rng, 3.0);
        let frame = norm.around(&q_ref).unwrap();
        // Rotations below a half turn, so the values come back as given.
        let q = nearby(tree, &q_ref, &mut rng, 3.0);
        frame.to_x(&q, &mut x).unwrap();
        assert!(frame.x_in_domain(&x));
        frame.from_x(&x, &mut back).unwrap();
        for (i, l) in tree.links().iter().enumerate() {
            let r = tree.q_range(i);
            let (a, b) = (&q[r.clone()], &back[r]);
            match l.joint().kind {
                JointType::Spherical => {
                    assert!(quat(a).dot(quat(b)).abs() > 1.0 - 1e-12, "{a:?} vs {b:?}");
                }
                JointType::Floating => {
                    assert!(DVec3::from_slice(a).abs_diff_eq(DVec3::from_slice(b), 1e-10));
                    assert!(quat(&a[3..]).dot(quat(&b[3..])).abs() > 1.0 - 1e-12);
                }
                _ => {
                    for (u, v) in a.iter().zip(b) {
                        assert!((u - v).abs() < 1e-9, "{}: {a:?} vs {b:?}", l.name());
                    }
                }
            }
        }
        // Any angle: the same poses (revolute values may differ by 2π).
        let far = random_config(tree, &mut rng, 9.0);
        frame.to_x(&far, &mut x).unwrap();
        frame.from_x(&x, &mut back).unwrap();
        assert!(same_poses(tree, &far, &back, 1e-9));
        // And from X: X → q → X.
        frame.from_x(&x, &mut back).unwrap();
        frame.to_x(&back, &mut x2).unwrap();
        for (u, v) in x.iter().zip(&x2) {
            assert!((u - v).abs() < 1e-9, "{x:?} vs {x2:?}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// `norm(q) = norm_x(X(q))` and `X(from_x(X)) = X` on random inputs.
    #[test]
    fn norm_and_chart_agree(seed in any::<u64>(), angle in 0.0f64..3.0) {
        let mut rng = Rng(seed);
        let m = branching(&mut Rng(12));
        let tree = m.body.tree();
        let frame = ObjectNorm::new(&m.body).unwrap().around(&random_config(tree, &mut rng, 3.0)).unwrap();
        let q = nearby(tree, frame.reference(), &mut rng, angle);
        let mut x = vec![0.0; tree.dof()];
        frame.to_x(&q, &mut x).unwrap();
        let (a, b) = (frame.norm(&q).unwrap(), frame.norm_x(&x));
        prop_assert!((a - b).abs() <= 1e-12 * a.max(1e-300));
        let mut back = vec![0.0; tree.nq()];
        frame.from_x(&x, &mut back).unwrap();
        prop_assert!(same_poses(tree, &q, &back, 1e-9));
    }
}

/// `J(q) T` against central differences of world points through
/// `from_x`, for every coordinate of every joint kind.
#[test]
fn tangent_from_x_matches_finite_differences() {
    let mut rng = Rng(13);
    let m = branching(&mut rng);
    let tree = m.body.tree();
    let norm = ObjectNorm::new(&m.body).unwrap();
    let (n, dof) = (tree.len(), tree.dof());
    let mut t = vec![0.0; dof * dof];
    let mut jac = vec![DVec3::ZERO; dof];
    let mut x = vec![0.0; dof];
    let mut qp = vec![0.0; tree.nq()];
    let mut qm = vec![0.0; tree.nq()];
    let h = 1e-6;
    for case in 0..40 {
        let q_ref = random_config(tree, &mut rng, 3.0);
        let frame = norm.around(&q_ref).unwrap();
        // Up to 2.5 rad from the reference; every fifth case beyond a half
        // turn for the revolute joints, where the chart wraps.
        let spread = if case % 5 == 4 { 9.0 } else { 2.5 };
        let mut q = nearby(tree, &q_ref, &mut rng, 2.5);
        if case % 5 == 4 {
            for name in ["elbow", "knee"] {
                q[tree.q_range(tree.link_index(name).unwrap()).start] += spread;
            }
        }
        frame.to_x(&q, &mut x).unwrap();
        frame.tangent_from_x(&q, &mut t).unwrap();
        let poses = tree.poses(&q).unwrap();
        for link in 0..n {
            let p = rng.vec(1.0);
            tree.point_jacobian(&q, &poses, link, p, &mut jac).unwrap();
            for k in 0..dof {
                let analytic: DVec3 = (0..dof).map(|j| jac[j] * t[j * dof + k]).sum();
                let (mut xp, mut xm) = (x.clone(), x.clone());
                xp[k] += h;
                xm[k] -= h;
                frame.from_x(&xp, &mut qp).unwrap();
                frame.from_x(&xm, &mut qm).unwrap();
                let pp = tree.poses(&qp).unwrap()[link].transform_point3(p);
                let pm = tree.poses(&qm).unwrap()[link].transform_point3(p);
                let fd = (pp - pm) / (2.0 * h);
                assert!(
                    (fd - analytic).length() <= 1e-6 * (1.0 + analytic.length()),
                    "case {case}, link {}, coordinate {k}: {fd} vs {analytic}",
                    tree.links()[link].name()
                );
            }
        }
        // Block diagonal: nothing outside the joints' own blocks.
        for (i, _) in tree.links().iter().enumerate() {
            let r = tree.dof_range(i);
            for row in r.clone() {
                for col in 0..dof {
                    if !r.contains(&col) {
                        assert_eq!(t[row * dof + col], 0.0);
                    }
                }
            }
        }
    }
}

#[test]
fn metric_blocks_are_consistent() {
    let mut rng = Rng(14);
    let m = branching(&mut rng);
    let tree = m.body.tree();
    let frame = ObjectNorm::new(&m.body)
        .unwrap()
        .around(&random_config(tree, &mut rng, 3.0))
        .unwrap();
    let n = frame.nx();
    let (h, hinv) = (frame.h_dense(), frame.h_inverse_dense());
    for r in 0..n {
        for c in 0..n {
            let p: f64 = (0..n).map(|k| h[r * n + k] * hinv[k * n + c]).sum();
            let want = if r == c { 1.0 } else { 0.0 };
            assert!((p - want).abs() < 1e-9, "H H⁻¹ [{r}, {c}] = {p}");
            assert!((h[r * n + c] - h[c * n + r]).abs() <= 1e-12 * h[r * n + r].abs().max(1.0));
        }
    }
    let v: Vec<f64> = (0..n).map(|_| rng.range(-1.0, 1.0)).collect();
    let (mut hv, mut back) = (vec![0.0; n], vec![0.0; n]);
    frame.apply_h(&v, &mut hv);
    frame.apply_h_inverse(&hv, &mut back);
    for r in 0..n {
        let dense: f64 = (0..n).map(|k| h[r * n + k] * v[k]).sum();
        assert!((dense - hv[r]).abs() <= 1e-12 * dense.abs().max(1.0));
        assert!((back[r] - v[r]).abs() < 1e-9);
    }
    let quad: f64 = (0..n).map(|r| v[r] * hv[r]).sum::<f64>() / frame.total_volume();
    assert!((quad - frame.norm_x(&v)).abs() <= 1e-12 * quad);
    // The blocks tile the coordinates in order.
    let mut next = 0;
    for b in frame.blocks() {
        match *b {
            MetricBlock::Scalar { index, .. } => {
                assert_eq!(index, next);
                next += 1;
            }
            MetricBlock::Matrix { offset, .. } => {
                assert_eq!(offset, next);
                next += 3;
            }
        }
    }
    assert_eq!(next, n);
}

#[test]
fn joints_moving_no_volume_have_zero_blocks() {
    let m = model(&[
        part(
            "arm",
            None,
            JointType::Revolute { axis: DVec3::Z },
            DAffine3::IDENTITY,
            Some((DVec3::ONE, DAffine3::IDENTITY)),
        ),
        part(
            "tool",
            Some("arm"),
            JointType::Spherical,
            DAffine3::from_translation(DVec3::X),
            None,
        ),
    ]);
    let frame = ObjectNorm::new(&m.body)
        .unwrap()
        .around(&[0.0, 0.0, 0.0, 0.0, 1.0])
        .unwrap();
    let tool = frame
        .blocks()
        .iter()
        .find_map(|b| match *b {
            MetricBlock::Matrix { link: 1, h, .. } => Some(h),
            _ => None,
        })
        .unwrap();
    assert_eq!(tool, DMat3::ZERO);
    let mut out = [9.0; 4];
    frame.apply_h_inverse(&[1.0, 1.0, 1.0, 1.0], &mut out);
    assert!(out[0] > 0.0);
    assert_eq!(&out[1..], &[0.0; 3]);
    assert_eq!(frame.norm(&[0.0, 0.3, 0.0, 0.0, 1.0]).unwrap(), 0.0);
}

#[test]
fn chart_domain_and_steps() {
    let mut rng = Rng(15);
    let m = branching(&mut rng);
    let tree = m.body.tree();
    let frame = ObjectNorm::new(&m.body)
        .unwrap()
        .around(&random_config(tree, &mut rng, 3.0))
        .unwrap();
    let n = frame.nx();
    let x0 = vec![0.0; n];
    let elbow = tree.dof_range(tree.link_index("elbow").unwrap()).start;
    let shoulder = tree.dof_range(tree.link_index("shoulder").unwrap()).start;
    // An angle coordinate of 4 reaches |X| = 2 halfway.
    let mut dx = vec![0.0; n];
    dx[elbow] = 4.0;
    assert!((frame.max_step_in_domain(&x0, &dx) - 0.5).abs() < 1e-15);
    // A quaternion part of length 2.5 reaches the unit ball at 0.4.
    dx[shoulder..shoulder + 3].copy_from_slice(&[1.5, 2.0, 0.0]);
    let w = frame.max_step_in_domain(&x0, &dx);
    assert!((w - 0.4).abs() < 1e-15);
    let x1: Vec<f64> = x0.iter().zip(&dx).map(|(a, d)| a + w * d).collect();
    assert!(frame.x_in_domain(&x1));
    let mut q = vec![0.0; tree.nq()];
    frame.from_x(&x1, &mut q).unwrap();
    // Out of the domain: named errors.
    let mut far = vec![0.0; n];
    far[elbow] = 2.5;
    assert!(!frame.x_in_domain(&far));
    match frame.from_x(&far, &mut q) {
        Err(PdError::OutsideChart { link, value, .. }) => {
            assert_eq!(link, "elbow");
            assert_eq!(value, 2.5);
        }
        other => panic!("{other:?}"),
    }
    far[elbow] = 0.0;
    far[shoulder] = 1.1;
    match frame.from_x(&far, &mut q) {
        Err(PdError::OutsideChart { link, .. }) => assert_eq!(link, "shoulder"),
        other => panic!("{other:?}"),
    }
    far[shoulder] = f64::NAN;
    assert!(!frame.x_in_domain(&far));
    assert_eq!(frame.max_step_in_domain(&far, &dx), 0.0);
    assert!(frame.from_x(&far, &mut q).is_err());
    // Prismatic coordinates are unbounded; a step along them is whole.
    let hip = tree.dof_range(tree.link_index("hip").unwrap()).start;
    let mut along = vec![0.0; n];
    along[hip] = 1e6;
    assert_eq!(frame.max_step_in_domain(&x0, &along), 1.0);
}

#[test]
fn tangent_is_singular_a_half_turn_away() {
    let m = model(&[part(
        "arm",
        None,
        JointType::Continuous { axis: DVec3::Z },
        DAffine3::IDENTITY,
        Some((DVec3::ONE, DAffine3::from_translation(DVec3::X))),
    )]);
    let frame = ObjectNorm::new(&m.body).unwrap().around(&[0.2]).unwrap();
    let mut t = [0.0];
    match frame.tangent_from_x(&[0.2 + core::f64::consts::PI], &mut t) {
        Err(PdError::OutsideChart { link, .. }) => assert_eq!(link, "arm"),
        other => panic!("{other:?}"),
    }
    frame.tangent_from_x(&[0.2 + 3.0], &mut t).unwrap();
    assert!((t[0] - 1.0 / 1.5f64.cos()).abs() < 1e-12);
    let mut wrong = [0.0; 2];
    assert!(matches!(
        frame.tangent_from_x(&[0.0], &mut wrong),
        Err(PdError::Kinematics(_))
    ));
}

fn box_mesh() -> TriMesh {
    Tessellation::default()
        .cuboid(DVec3::new(1.0, 2.0, 3.0))
        .unwrap()
}

fn one_link(mesh: TriMesh, kind: JointType, name: &str) -> ArticulatedBody {
    let tree = KinematicTree::new(vec![
        LinkSpec::new(name, None).with_joint(Joint::new(name, kind)),
    ])
    .unwrap();
    ArticulatedBody::new("one", tree, vec![Some(Arc::new(mesh))]).unwrap()
}

#[test]
fn open_and_inward_meshes_fall_back_to_the_hull() {
    let closed = box_mesh();
    let (v, mut tris) = closed.clone().into_parts();
    tris.pop();
    let open = TriMesh::new(v.clone(), tris.clone()).unwrap();
    let inward = TriMesh::new(
        v,
        closed
            .indices()
            .iter()
            .map(|&[a, b, c]| [a, c, b])
            .collect(),
    )
    .unwrap();
    for mesh in [open, inward] {
        let norm = ObjectNorm::new(&one_link(mesh, JointType::Spherical, "lid")).unwrap();
        let m = norm.link_mass(0).unwrap();
        assert_eq!(m.source, MassSource::ConvexHull);
        assert!((m.volume - 6.0).abs() < 1e-12);
        assert!((norm.total_volume() - 6.0).abs() < 1e-12);
        let want = DVec3::new(4.0 + 9.0, 1.0 + 9.0, 1.0 + 4.0) * (6.0 / 12.0);
        assert!(m.inertia.abs_diff_eq(DMat3::from_diagonal(want), 1e-12));
    }
}

#[test]
fn flat_links_have_no_volume() {
    let square = TriMesh::new(
        vec![DVec3::ZERO, DVec3::X, DVec3::new(1.0, 1.0, 0.0), DVec3::Y],
        vec![[0, 1, 2], [0, 2, 3]],
    )
    .unwrap();
    assert!(matches!(
        ObjectNorm::new(&one_link(square.clone(), JointType::Fixed, "plate")),
        Err(PdError::NoVolume)
    ));
    let tree = KinematicTree::new(vec![
        LinkSpec::new("base", None),
        LinkSpec::new("plate", Some("base"))
            .with_joint(Joint::new("plate", JointType::Revolute { axis: DVec3::Z })),
    ])
    .unwrap();
    let body = ArticulatedBody::new(
        "two",
        tree,
        vec![Some(Arc::new(box_mesh())), Some(Arc::new(square))],
    )
    .unwrap();
    let norm = ObjectNorm::new(&body).unwrap();
    assert!(norm.link_mass(1).is_none());
    assert_eq!(norm.link_mass(0).unwrap().source, MassSource::Mesh);
    assert!((norm.total_volume() - 6.0).abs() < 1e-12);
    let frame = norm.around(&[0.0]).unwrap();
    assert_eq!(frame.norm(&[1.0]).unwrap(), 0.0);
}

#[test]
fn unsupported_joints_name_the_link() {
    for (kind, joint) in [
        (JointType::Vehicle, "vehicle"),
        (JointType::OmniVehicle, "omni-vehicle"),
        (
            JointType::OrientationUncertain { beta: 0.1 },
            "orientation-uncertainty",
        ),
        (
            JointType::LocationUncertain { delta: 0.1 },
            "location-uncertainty",
        ),
    ] {
        match ObjectNorm::new(&one_link(box_mesh(), kind, "cart")) {
            Err(PdError::UnsupportedJoint { link, joint: j }) => {
                assert_eq!(link, "cart");
                assert_eq!(j, joint);
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn configurations_are_validated() {
    let frame: NormFrame = ObjectNorm::new(&one_link(box_mesh(), JointType::Floating, "f"))
        .unwrap()
        .around(&[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0])
        .unwrap();
    assert!(frame.norm(&[0.0; 3]).is_err());
    assert!(frame.norm(&[0.0; 7]).is_err());
    assert!(
        frame
            .to_x(&[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0], &mut [0.0; 5])
            .is_err()
    );
    assert!(frame.from_x(&[0.0; 6], &mut [0.0; 6]).is_err());
}

/// Along the straight joint-space segment from `q` to the reference, the
/// norm stays between `(1 − s)² c` and `(1 − s)² C` of
/// `segment_factors` (revolute changes up to 2π, rotations of the ball,
/// floating and planar joints kept at the reference's); `None` once a
/// rotation differs or a revolute joint turns by more than 2π.
#[test]
fn segment_factors_bound_the_norm_along_the_segment() {
    let mut rng = Rng(12);
    let m = branching(&mut rng);
    let norm = ObjectNorm::new(&m.body).unwrap();
    let tree = m.body.tree();
    let turning: Vec<usize> = ["elbow", "knee"]
        .iter()
        .map(|n| tree.q_range(tree.link_index(n).unwrap()).start)
        .collect();
    let kept: Vec<std::ops::Range<usize>> = [
        ("torso", 3..7),
        ("shoulder", 0..4),
        ("head", 0..4),
        ("foot", 2..3),
    ]
    .into_iter()
    .map(|(n, r)| {
        let start = tree.q_range(tree.link_index(n).unwrap()).start;
        start + r.start..start + r.end
    })
    .collect();
    let mut checked = 0;
    for case in 0..60 {
        let q_ref = random_config(tree, &mut rng, 3.0);
        let frame = norm.around(&q_ref).unwrap();
        let mut q = random_config(tree, &mut rng, 3.0);
        for r in &kept {
            q[r.clone()].copy_from_slice(&q_ref[r.clone()]);
        }
        // Up to π on most cases, up to 2π on every third.
        let reach = if case % 3 == 0 { 2.0 * PI } else { PI };
        for &k in &turning {
            q[k] = q_ref[k] + rng.range(-reach, reach);
        }
        let (c, upper) = frame
            .segment_factors(&q)
            .unwrap()
            .expect("a shrinking segment");
        assert!((c - frame.norm(&q).unwrap()).abs() <= 1e-12 * c);
        assert!(upper >= c);
        let motion = armature_kinematics::JointSpaceMotion::new(tree, &q, &q_ref).unwrap();
        let mut at = vec![0.0; q.len()];
        for step in 0..=64 {
            let s = f64::from(step) / 64.0;
            motion.config_at(tree, s, &mut at).unwrap();
            let sigma = frame.norm(&at).unwrap();
            let t2 = (1.0 - s) * (1.0 - s);
            assert!(
                sigma >= t2 * c * (1.0 - 1e-9) - 1e-15,
                "s = {s}: {sigma} below {}",
                t2 * c
            );
            assert!(
                sigma <= t2 * upper * (1.0 + 1e-9) + 1e-15,
                "s = {s}: {sigma} above {}",
                t2 * upper
            );
            checked += 1;
        }
        // A rotation away from the reference's, or a turn beyond π: no
        // factors.
        let mut turned = q.clone();
        turned[kept[0].clone()].copy_from_slice(&rng.rotation().to_array());
        assert_eq!(frame.segment_factors(&turned).unwrap(), None);
        let mut far = q.clone();
        far[turning[0]] = q_ref[turning[0]] + 2.0 * PI + 0.1;
        assert_eq!(frame.segment_factors(&far).unwrap(), None);
    }
    assert_eq!(checked, 60 * 65);
}
