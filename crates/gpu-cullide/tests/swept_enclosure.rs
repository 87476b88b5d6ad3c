//! The tessellated swept capsule encloses the link: sampled points of the
//! exact ruled surface lie within the FMM error bound of the triangles,
//! and sampled points of the link's mesh and capsule within the dilation,
//! on random motions of the Puma (the benchmark robot, its real meshes).

use std::f64::consts::PI;
use std::path::Path;

use armature_bvh_geometry::body::{ArticulatedBody, Tessellation};
use armature_bvh_geometry::query::distance_point_triangle;
use armature_gpu_cullide::{Sweeper, SweptOptions, SweptVolume, fmm_steps};
use armature_kinematics::{InBetweenMotion, UrdfOptions};
use glam::{DAffine3, DVec3};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }

    fn unit(&mut self) -> DVec3 {
        loop {
            let v = DVec3::new(
                self.uniform(-1.0, 1.0),
                self.uniform(-1.0, 1.0),
                self.uniform(-1.0, 1.0),
            );
            let l = v.length();
            if l > 1e-3 && l <= 1.0 {
                return v / l;
            }
        }
    }
}

fn puma() -> ArticulatedBody {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/robots/puma560/puma560.urdf");
    ArticulatedBody::from_urdf_file(path, &UrdfOptions::default(), &Tessellation::default())
        .expect("the Puma loads")
}

fn distance(s: &SweptVolume, p: DVec3) -> f64 {
    s.triangles
        .iter()
        .map(|t| distance_point_triangle(p, t))
        .fold(f64::INFINITY, f64::min)
}

fn motion(body: &ArticulatedBody, rng: &mut Rng, theta: f64) -> InBetweenMotion {
    let n = body.tree().nq();
    let q0: Vec<f64> = (0..n).map(|_| rng.uniform(-PI, PI)).collect();
    let q1: Vec<f64> = q0.iter().map(|q| q + rng.uniform(-theta, theta)).collect();
    InBetweenMotion::new(body.tree(), &q0, &q1).expect("motion")
}

#[test]
fn the_tessellation_encloses_the_swept_link() {
    let body = puma();
    let options = SweptOptions::default();
    let sweeper = Sweeper::new(&body, &options).expect("sweeper");
    let mut rng = Rng(0x5eed_c0de);
    let mut poses = Vec::new();
    let mut at = vec![DAffine3::IDENTITY; body.tree().len()];
    let mut worst_ratio = 0.0f64;
    let mut checked = 0usize;
    for (case, theta) in [1.0f64, 5.0, 15.0, 30.0, 60.0, 120.0, 180.0]
        .iter()
        .flat_map(|&d| [d; 4])
        .enumerate()
    {
        let motion = motion(&body, &mut rng, theta.to_radians());
        let window = if case % 2 == 0 {
            [0.0, 1.0]
        } else {
            let a = rng.uniform(0.0, 0.9);
            [a, rng.uniform(a, 1.0)]
        };
        let clearance = if case % 3 == 0 { 1e-3 } else { 0.0 };
        for (link, g) in body.links().iter().enumerate() {
            let Some(g) = g else { continue };
            let (n, m, error) = sweeper.steps(&motion, link, window).expect("steps");
            let s = sweeper
                .sweep(&motion, link, window, clearance, &mut poses)
                .expect("sweep");
            assert_eq!(s.triangles.len(), 2 * n * m);
            let capsule = g.lss;
            // The enclosure is no looser than asked when the step cap was
            // not reached.
            if n < options.max_steps {
                assert!(
                    s.dilation
                        <= capsule.radius * (1.0 + options.tolerance) * (1.0 + 1e-9)
                            + clearance
                            + 1e-9,
                    "link {link}: dilation {} for radius {}",
                    s.dilation,
                    capsule.radius
                );
            }
            for _ in 0..40 {
                let t = rng.uniform(window[0], window[1]);
                motion.poses_at(t, &mut at).expect("poses");
                let pose = at[link];
                let a = pose.transform_point3(capsule.a);
                let b = pose.transform_point3(capsule.b);
                // The exact ruled surface: within the FMM bound.
                let x = a + (b - a) * rng.next();
                let d = distance(&s, x);
                assert!(
                    d <= error + 1e-12,
                    "case {case} link {link} t {t}: ruled point {d} from the tessellation, bound {error} ({n}×{m})"
                );
                if error > 0.0 {
                    worst_ratio = worst_ratio.max(d / error);
                }
                // The capsule's surface and the mesh: within the dilation.
                let c = x + rng.unit() * capsule.radius;
                assert!(
                    distance(&s, c) <= s.dilation,
                    "case {case} link {link}: capsule point"
                );
                let k = (rng.next() * g.mesh.num_vertices() as f64) as usize;
                let v = g.mesh.vertices()[k % g.mesh.num_vertices()];
                let p = pose.transform_point3(v);
                assert!(
                    distance(&s, p) <= s.dilation,
                    "case {case} link {link}: mesh vertex"
                );
                checked += 1;
            }
        }
    }
    eprintln!("{checked} samples; largest sampled error / bound = {worst_ratio:.3}");
    assert!(checked > 1000, "{checked} samples");
    // The bound is not vacuous: sampled errors reach a fair part of it.
    assert!(
        worst_ratio > 0.05,
        "largest sampled error / bound = {worst_ratio}"
    );
}

#[test]
fn fmm_steps_meet_the_target_with_few_cells() {
    for (tt, ts, target) in [
        (0.0, 0.0, 0.01),
        (1.0, 0.0, 0.01),
        (0.0, 1.0, 0.01),
        (2.0, 3.0, 0.001),
        (50.0, 0.5, 0.02),
    ] {
        let (n, m, e) = fmm_steps(tt, ts, target, 4096);
        assert!(e <= target, "{tt} {ts} {target}: {n}×{m} gives {e}");
        let bound = (tt / (n * n) as f64 + 2.0 * ts / (n * m) as f64) / 8.0;
        assert_eq!(e, bound);
        // One fewer step in time would miss the target.
        if n > 1 {
            let fewer = (tt / ((n - 1) * (n - 1)) as f64 + 2.0 * ts / ((n - 1) * m) as f64) / 8.0;
            assert!(
                fewer > target,
                "{tt} {ts} {target}: {n}×{m} not minimal in n"
            );
        }
    }
    // A capped count reports the larger bound it reaches.
    let (n, _, e) = fmm_steps(1e6, 0.0, 1e-6, 8);
    assert_eq!(n, 8);
    assert!(e > 1e-6);
}

#[test]
fn bad_options_and_clearance_are_errors() {
    let body = puma();
    for bad in [
        SweptOptions {
            tolerance: 0.0,
            ..SweptOptions::default()
        },
        SweptOptions {
            tolerance: f64::NAN,
            ..SweptOptions::default()
        },
        SweptOptions {
            max_steps: 0,
            ..SweptOptions::default()
        },
    ] {
        assert!(Sweeper::new(&body, &bad).is_err(), "{bad:?}");
    }
    let sweeper = Sweeper::new(&body, &SweptOptions::default()).expect("sweeper");
    let q = vec![0.0; body.tree().nq()];
    let motion = InBetweenMotion::new(body.tree(), &q, &q).expect("motion");
    let link = (0..body.tree().len())
        .find(|&i| body.links()[i].is_some())
        .expect("a link");
    let mut poses = Vec::new();
    assert!(
        sweeper
            .sweep(&motion, link, [0.0, 1.0], -1.0, &mut poses)
            .is_err()
    );
    assert!(
        sweeper
            .sweep(&motion, link, [0.5, 0.2], 0.0, &mut poses)
            .is_err()
    );
    assert!(
        sweeper
            .sweep(&motion, 999, [0.0, 1.0], 0.0, &mut poses)
            .is_err()
    );
    // A link that does not move sweeps its capsule: one cell of zero area.
    let s = sweeper
        .sweep(&motion, link, [0.0, 1.0], 0.0, &mut poses)
        .expect("sweep");
    assert_eq!(s.triangles.len(), 2);
}

/// A floating base carrying a prismatic and a revolute link (boxes): the
/// enclosure holds under rotating, translating and sliding motions too.
#[test]
fn the_tessellation_encloses_floating_and_prismatic_links() {
    use armature_bvh_geometry::mesh::TriMesh;
    use armature_kinematics::{Joint, JointType, KinematicTree, LinkSpec};
    use std::sync::Arc;

    let cuboid = |size: DVec3, centre: DVec3| -> Arc<TriMesh> {
        let m = Tessellation::default().cuboid(size).expect("cuboid");
        Arc::new(
            m.transformed(&DAffine3::from_translation(centre))
                .expect("placed"),
        )
    };
    let tree = KinematicTree::new(vec![
        LinkSpec::new("base", None).with_joint(Joint::new("float", JointType::Floating)),
        LinkSpec::new("slider", Some("base"))
            .with_joint(Joint::prismatic("slide", DVec3::X, -1.0, 1.0))
            .with_origin(DAffine3::from_translation(DVec3::Z * 0.3)),
        LinkSpec::new("arm", Some("slider"))
            .with_joint(Joint::revolute("turn", DVec3::Z, -7.0, 7.0))
            .with_origin(DAffine3::from_translation(DVec3::X * 0.4)),
    ])
    .expect("tree");
    let body = ArticulatedBody::new(
        "floater",
        tree,
        vec![
            Some(cuboid(DVec3::new(0.6, 0.4, 0.2), DVec3::ZERO)),
            Some(cuboid(DVec3::new(0.3, 0.1, 0.1), DVec3::ZERO)),
            Some(cuboid(DVec3::new(0.8, 0.06, 0.06), DVec3::X * 0.4)),
        ],
    )
    .expect("body");
    let sweeper = Sweeper::new(&body, &SweptOptions::default()).expect("sweeper");
    let mut rng = Rng(0xf10a_7e55);
    let mut poses = Vec::new();
    let mut at = vec![DAffine3::IDENTITY; body.tree().len()];
    for case in 0..60 {
        let scale: f64 = [0.05, 0.5, 1.0][case % 3];
        let config = |rng: &mut Rng| -> Vec<f64> {
            let axis = rng.unit();
            let q = glam::DQuat::from_axis_angle(axis, rng.uniform(-PI, PI));
            vec![
                rng.uniform(-1.0, 1.0),
                rng.uniform(-1.0, 1.0),
                rng.uniform(-1.0, 1.0),
                q.x,
                q.y,
                q.z,
                q.w,
                rng.uniform(-1.0, 1.0),
                rng.uniform(-PI, PI),
            ]
        };
        let q0 = config(&mut rng);
        let mut q1 = config(&mut rng);
        // Nearer motions too: blend the second end towards the first.
        for (b, a) in q1.iter_mut().zip(&q0) {
            *b = *a + (*b - *a) * scale;
        }
        let n = (q1[3] * q1[3] + q1[4] * q1[4] + q1[5] * q1[5] + q1[6] * q1[6]).sqrt();
        for v in &mut q1[3..7] {
            *v /= n;
        }
        let motion = InBetweenMotion::new(body.tree(), &q0, &q1).expect("motion");
        for (link, g) in body.links().iter().enumerate() {
            let Some(g) = g else { continue };
            let s = sweeper
                .sweep(&motion, link, [0.0, 1.0], 0.0, &mut poses)
                .expect("sweep");
            for _ in 0..30 {
                let t = rng.next();
                motion.poses_at(t, &mut at).expect("poses");
                let k = (rng.next() * g.mesh.num_vertices() as f64) as usize;
                let p = at[link].transform_point3(g.mesh.vertices()[k % g.mesh.num_vertices()]);
                assert!(
                    distance(&s, p) <= s.dilation,
                    "case {case} link {link} t {t}: a mesh vertex {} from the tessellation, dilation {}",
                    distance(&s, p),
                    s.dilation
                );
            }
        }
    }
}
