//! The penetration-depth benchmark (M5 Tables I–III): generalized
//! penetration depth (PDg) of in-collision configurations, through the
//! facade's [`Pipeline::prepare_penetration_depth`].
//!
//! Four cases, each a seeded set of in-collision configurations kept by
//! rejection sampling:
//!
//! - **puma1** (M5 "Puma1"): the mobile Puma of `pd_puma_car.ron` with
//!   joints 1–6 uniform in their limits, `base_x` in [0.3, 1.2] m, `base_y`
//!   in [−1.5, 1.5] m, `base_z` 0; kept when the car is hit and the arm
//!   alone is self-collision free;
//! - **puma2** (M5 "Puma2"): the same draws, kept when the arm collides
//!   with itself (car or not);
//! - **hand** (M5 "Hand"): the hand of `pd_hand_bottle.ron` with the
//!   fingers uniform in their limits, the wrist turned by at most 0.2 rad
//!   per axis, shifted by at most 2 cm sideways and lowered by 3–12 cm;
//!   kept when the bottle is hit and the hand alone is free;
//! - **rigid** (M5 Table I's scale): a floating bumpy sphere (radius 0.1,
//!   about 40K triangles) against a fixed bumpy torus (major radius 0.3,
//!   minor 0.08, about 174K triangles), built here; the sphere's centre on
//!   the tube's surface within ±5 mm along its normal, the orientation
//!   uniform. Quick runs use about 5K and 20K triangles.
//!
//! "The model alone" is the same pose moved far from the obstacle (the
//! Puma's base to `base_x = −3`, the wrist to `wrist_z = +0.3`): whatever
//! collides there collides with itself.
//!
//! Every query is timed on this thread, the solver's motion coherence
//! cleared first, so each starts cold. Each answer is checked: status
//! [`PdStatus::Separated`] (a [`PdStatus::NoFreeConfiguration`] is counted
//! apart, not a failure), free and within the contact tolerance by
//! [`Pipeline::check`] (the facade's discrete test, independent of the
//! solver's), within the joint limits, and no deeper than the
//! translational depth PDt: `σ ≤ (PDt + d)²` with `d` the answer's
//! clearance. PDt is found by brute force along Fibonacci-sphere
//! directions of the model's translation (the Puma's base joints, the
//! wrist's prismatic joints, the floating joint's translation): the model
//! marches out by steps of 1/256 of the obstacle's size until
//! [`Pipeline::collides`] says free, then bisection to 10⁻⁶ of that size;
//! PDt is the shortest over the directions (a direction leaving the joint
//! limits first gives nothing). A model that collides with itself has no
//! translational depth.
//!
//! Motion coherence (M5 Table I): a sequence of frames, each the previous
//! one nudged by a small random step that keeps it in the case's set,
//! timed once with coherence cleared before each frame and once with the
//! solver remembering its last answer.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use armature::geometry::{ArticulatedBody, Obstacle, TriMesh};
use armature::kinematics::{Joint, JointType, KinematicTree, LinkSpec};
use armature::pd::{FreeSelection, PdReport, PdSolver, PdStatus};
use armature::{Pipeline, Scene};
use glam::{DAffine3, DQuat, DVec3};
use rayon::prelude::*;
use serde_json::{Value, json};

use super::report::{median, quantile};
use super::run::{Rng, progress};

/// What [`run`] found.
pub(crate) struct PdSection {
    /// The markdown section.
    pub(crate) markdown: String,
    /// The cases as JSON.
    pub(crate) json: Value,
    /// Answers that failed a check, and cases short of queries.
    pub(crate) failures: Vec<String>,
}

/// The sizes of one run.
#[derive(Clone, Copy, Debug)]
struct Sizes {
    /// Queries per case.
    queries: usize,
    /// Directions of the brute-force translational depth.
    directions: usize,
    /// Frames of the motion-coherence sequence.
    frames: usize,
    /// The rigid case's meshes: quick (about 5K / 20K triangles) or full
    /// (about 40K / 174K).
    small_meshes: bool,
}

impl Sizes {
    const fn new(quick: bool, full: bool) -> Self {
        if full {
            Self {
                queries: 200,
                directions: 64,
                frames: 20,
                small_meshes: false,
            }
        } else if quick {
            Self {
                queries: 4,
                directions: 16,
                frames: 8,
                small_meshes: true,
            }
        } else {
            Self {
                queries: 40,
                directions: 64,
                frames: 20,
                small_meshes: false,
            }
        }
    }
}

/// Candidates drawn per wanted query before a case gives up.
const DRAWS_PER_QUERY: usize = 500;

/// Tries to nudge a coherence frame before the sequence ends.
const NUDGE_TRIES: usize = 200;

/// One benchmark case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Case {
    Puma1,
    Puma2,
    Hand,
    Rigid,
}

impl Case {
    const ALL: [Self; 4] = [Self::Puma1, Self::Puma2, Self::Hand, Self::Rigid];

    const fn name(self) -> &'static str {
        match self {
            Self::Puma1 => "puma1",
            Self::Puma2 => "puma2",
            Self::Hand => "hand",
            Self::Rigid => "rigid",
        }
    }

    const fn model(self) -> &'static str {
        match self {
            Self::Puma1 => "mobile Puma / car, no self-collision",
            Self::Puma2 => "mobile Puma / car, self-colliding",
            Self::Hand => "hand / bottle",
            Self::Rigid => "bumpy sphere / bumpy torus",
        }
    }

    /// M5 Table III's median (ms, 2.4 GHz i5).
    const fn paper_ms(self) -> Option<f64> {
        match self {
            Self::Puma1 => Some(27.9),
            Self::Puma2 => Some(14.9),
            Self::Hand => Some(71.6),
            Self::Rigid => None,
        }
    }

    /// Our goal for the median (ms).
    const fn goal_ms(self) -> Option<f64> {
        match self {
            Self::Puma1 | Self::Puma2 => Some(5.0),
            Self::Hand => Some(15.0),
            Self::Rigid => None,
        }
    }
}

/// A case's scene and where its joints sit.
struct Setup {
    case: Case,
    scene: Scene,
    /// Configuration indices of the model's translation along world x, y, z.
    axes: [usize; 3],
    /// The index and value that put the model far from the obstacle.
    far: (usize, f64),
    /// Each one-value joint: index, lower and upper limit, prismatic.
    joints: Vec<(usize, f64, f64, bool)>,
    /// The obstacle's size (its box's diagonal).
    size: f64,
    /// A coherence frame's largest translation step per axis.
    nudge_translation: f64,
}

/// The configuration index of the one-value joint `name` (without the
/// body's prefix).
fn joint_index(scene: &Scene, name: &str) -> Result<usize> {
    let suffix = format!("/{name}");
    scene
        .joints()
        .iter()
        .find(|j| j.name == name || j.name.ends_with(&suffix))
        .map(|j| j.q.start)
        .with_context(|| format!("no joint `{name}` in the scene"))
}

impl Setup {
    fn new(case: Case, scene: Scene) -> Result<Self> {
        let (axes, far, nudge_translation) = match case {
            Case::Puma1 | Case::Puma2 => {
                let x = joint_index(&scene, "base_x")?;
                let axes = [
                    x,
                    joint_index(&scene, "base_y")?,
                    joint_index(&scene, "base_z")?,
                ];
                (axes, (x, -3.0), 5e-3)
            }
            Case::Hand => {
                let z = joint_index(&scene, "wrist_z")?;
                let axes = [
                    joint_index(&scene, "wrist_x")?,
                    joint_index(&scene, "wrist_y")?,
                    z,
                ];
                (axes, (z, 0.3), 1e-3)
            }
            // The floating joint's x, y, z come first.
            Case::Rigid => ([0, 1, 2], (0, 10.0), 2e-3),
        };
        let joints = scene
            .joints()
            .iter()
            .filter(|j| j.q.len() == 1)
            .map(|j| {
                let (lo, hi) = j
                    .limits
                    .unwrap_or((-std::f64::consts::PI, std::f64::consts::PI));
                (j.q.start, lo, hi, j.kind == "prismatic")
            })
            .collect();
        let size = scene
            .obstacles()
            .iter()
            .map(|o| {
                let v = o.geometry().mesh.vertices();
                let lo = v.iter().fold(DVec3::INFINITY, |a, p| a.min(*p));
                let hi = v.iter().fold(DVec3::NEG_INFINITY, |a, p| a.max(*p));
                (hi - lo).length()
            })
            .fold(0.0, f64::max);
        if !(size.is_finite() && size > 0.0) {
            bail!("pd {}: the obstacle has no size", case.name());
        }
        Ok(Self {
            case,
            scene,
            axes,
            far,
            joints,
            size,
            nudge_translation,
        })
    }

    /// One random candidate configuration of the case.
    fn draw(&self, rng: &mut Rng) -> Result<Vec<f64>> {
        let mut q = self.scene.body().tree().neutral_configuration();
        match self.case {
            Case::Puma1 | Case::Puma2 => {
                for n in 1..=6 {
                    let i = joint_index(&self.scene, &format!("joint{n}"))?;
                    let (lo, hi) = self.limits(i);
                    q[i] = rng.uniform(lo, hi);
                }
                q[self.axes[0]] = rng.uniform(0.3, 1.2);
                q[self.axes[1]] = rng.uniform(-1.5, 1.5);
                q[self.axes[2]] = 0.0;
            }
            Case::Hand => {
                for &(i, lo, hi, _) in &self.joints {
                    q[i] = rng.uniform(lo, hi);
                }
                for name in ["wrist_roll", "wrist_pitch", "wrist_yaw"] {
                    q[joint_index(&self.scene, name)?] = rng.uniform(-0.2, 0.2);
                }
                q[self.axes[0]] = rng.uniform(-0.02, 0.02);
                q[self.axes[1]] = rng.uniform(-0.02, 0.02);
                q[self.axes[2]] = rng.uniform(-0.12, -0.03);
            }
            Case::Rigid => {
                let u = rng.uniform(0.0, std::f64::consts::TAU);
                let v = rng.uniform(0.0, std::f64::consts::TAU);
                let (p, n) = torus_point(TORUS_MAJOR, TORUS_MINOR, u, v);
                let c = p + n * rng.uniform(-5e-3, 5e-3);
                let r = random_rotation(rng);
                q.copy_from_slice(&[c.x, c.y, c.z, r.x, r.y, r.z, r.w]);
            }
        }
        Ok(q)
    }

    fn limits(&self, i: usize) -> (f64, f64) {
        self.joints
            .iter()
            .find(|j| j.0 == i)
            .map_or((f64::NEG_INFINITY, f64::INFINITY), |j| (j.1, j.2))
    }

    /// `q` with the model moved far from the obstacle.
    fn far_from_obstacle(&self, q: &[f64]) -> Vec<f64> {
        let mut f = q.to_vec();
        f[self.far.0] = self.far.1;
        f
    }

    /// Whether `q` belongs to the case's set, and whether it collides.
    fn accept(&self, pipeline: &Pipeline, q: &[f64]) -> Result<(bool, bool)> {
        let colliding = pipeline.collides(&self.scene, q)?;
        let keep = match self.case {
            Case::Puma1 | Case::Hand => {
                colliding && !pipeline.collides(&self.scene, &self.far_from_obstacle(q))?
            }
            Case::Puma2 => {
                colliding && pipeline.collides(&self.scene, &self.far_from_obstacle(q))?
            }
            Case::Rigid => colliding,
        };
        Ok((keep, colliding))
    }

    /// `q` nudged by a small random step (within the limits).
    fn nudge(&self, q: &[f64], rng: &mut Rng) -> Vec<f64> {
        let mut out = q.to_vec();
        for &(i, lo, hi, prismatic) in &self.joints {
            let step = if prismatic {
                self.nudge_translation
            } else {
                0.02
            };
            out[i] = (out[i] + rng.uniform(-step, step)).clamp(lo, hi);
        }
        if self.case == Case::Rigid {
            for k in 0..3 {
                out[k] += rng.uniform(-self.nudge_translation, self.nudge_translation);
            }
            let axis = DVec3::new(
                rng.uniform(-1.0, 1.0),
                rng.uniform(-1.0, 1.0),
                rng.uniform(-1.0, 1.0),
            )
            .normalize_or(DVec3::Z);
            let turn = DQuat::from_axis_angle(axis, rng.uniform(0.0, 0.02));
            let r = (turn * DQuat::from_xyzw(out[3], out[4], out[5], out[6])).normalize();
            out[3..7].copy_from_slice(&[r.x, r.y, r.z, r.w]);
        }
        out
    }

    /// `q` with the model translated by `t` (world), if within the limits.
    fn translate(&self, q: &[f64], t: DVec3) -> Option<Vec<f64>> {
        let mut out = q.to_vec();
        for (k, &i) in self.axes.iter().enumerate() {
            out[i] += t[k];
        }
        self.scene.body().tree().within_limits(&out).then_some(out)
    }

    /// The brute-force translational depth of the in-collision `q` along
    /// `directions`: the shortest free translation found and its
    /// configuration, `None` when no direction frees the model within the
    /// limits.
    fn translational_depth(
        &self,
        pipeline: &Pipeline,
        q: &[f64],
        directions: &[DVec3],
    ) -> Result<Option<(f64, Vec<f64>)>> {
        if pipeline.collides(&self.scene, &self.far_from_obstacle(q))? {
            // Translating the whole model never undoes self-collision.
            return Ok(None);
        }
        let step = self.size / 256.0;
        let tol = self.size * 1e-6;
        let max_len = 4.0 * self.size;
        // Non-negative f64s order as their bits do.
        let best = AtomicU64::new(f64::INFINITY.to_bits());
        let found = directions
            .par_iter()
            .map(|&d| -> Result<Option<(f64, Vec<f64>)>> {
                let mut lo = 0.0;
                loop {
                    // Every sample up to `lo` collides: this direction's
                    // depth exceeds `lo`, so it cannot beat a depth below it.
                    if lo >= f64::from_bits(best.load(Ordering::Relaxed)) {
                        return Ok(None);
                    }
                    let hi = lo + step;
                    if hi > max_len {
                        return Ok(None);
                    }
                    let Some(qt) = self.translate(q, d * hi) else {
                        return Ok(None);
                    };
                    if !pipeline.collides(&self.scene, &qt)? {
                        let (mut lo, mut hi, mut qt) = (lo, hi, qt);
                        while hi - lo > tol {
                            let mid = 0.5 * (lo + hi);
                            let qm = self
                                .translate(q, d * mid)
                                .context("a translation between two within the limits")?;
                            if pipeline.collides(&self.scene, &qm)? {
                                lo = mid;
                            } else {
                                (hi, qt) = (mid, qm);
                            }
                        }
                        best.fetch_min(hi.to_bits(), Ordering::Relaxed);
                        return Ok(Some((hi, qt)));
                    }
                    lo = hi;
                }
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(found
            .into_iter()
            .flatten()
            .min_by(|a, b| a.0.total_cmp(&b.0)))
    }
}

/// `n` directions spread over the unit sphere (Fibonacci lattice).
fn fibonacci_sphere(n: usize) -> Vec<DVec3> {
    let golden = std::f64::consts::PI * (3.0 - 5.0_f64.sqrt());
    (0..n)
        .map(|i| {
            let z = 1.0 - (2.0 * i as f64 + 1.0) / n as f64;
            let r = (1.0 - z * z).max(0.0).sqrt();
            let phi = golden * i as f64;
            DVec3::new(r * phi.cos(), r * phi.sin(), z)
        })
        .collect()
}

/// A rotation uniform over SO(3) (Shoemake).
fn random_rotation(rng: &mut Rng) -> DQuat {
    let (u1, u2, u3) = (
        rng.uniform(0.0, 1.0),
        rng.uniform(0.0, std::f64::consts::TAU),
        rng.uniform(0.0, std::f64::consts::TAU),
    );
    let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
    DQuat::from_xyzw(a * u2.sin(), a * u2.cos(), b * u3.sin(), b * u3.cos()).normalize()
}

const SPHERE_RADIUS: f64 = 0.1;
const TORUS_MAJOR: f64 = 0.3;
const TORUS_MINOR: f64 = 0.08;
/// Relative amplitude of the meshes' radial bumps.
const BUMPS: f64 = 0.03;

/// Smooth deterministic bumps in [−1, 1]: a mean of plane waves of a few
/// wavelengths over `scale`, the same on every run.
struct Bumps(Vec<(DVec3, f64)>);

impl Bumps {
    fn new(stream: u64, scale: f64) -> Self {
        let mut rng = Rng::new(0x00B0_4D5E, stream);
        Self(
            (0..6)
                .map(|_| {
                    let dir = DVec3::new(
                        rng.uniform(-1.0, 1.0),
                        rng.uniform(-1.0, 1.0),
                        rng.uniform(-1.0, 1.0),
                    )
                    .normalize_or(DVec3::X);
                    let k = std::f64::consts::TAU * rng.uniform(2.0, 6.0) / scale;
                    (dir * k, rng.uniform(0.0, std::f64::consts::TAU))
                })
                .collect(),
        )
    }

    fn at(&self, p: DVec3) -> f64 {
        self.0
            .iter()
            .map(|(k, s)| (k.dot(p) + s).sin())
            .sum::<f64>()
            / self.0.len() as f64
    }
}

/// A closed, outward-wound sphere of `lat` rings and `lon` segments
/// (`2 lon (lat − 1)` triangles) with radial bumps.
fn bumpy_sphere(r: f64, lat: u32, lon: u32) -> Result<TriMesh> {
    let bumps = Bumps::new(1, 2.0 * r);
    let at = |u: DVec3| u * r * (1.0 + BUMPS * bumps.at(u * r));
    let mut v = vec![at(DVec3::Z)];
    for i in 1..lat {
        let theta = std::f64::consts::PI * f64::from(i) / f64::from(lat);
        for j in 0..lon {
            let phi = std::f64::consts::TAU * f64::from(j) / f64::from(lon);
            v.push(at(DVec3::new(
                theta.sin() * phi.cos(),
                theta.sin() * phi.sin(),
                theta.cos(),
            )));
        }
    }
    let south = v.len() as u32;
    v.push(at(-DVec3::Z));
    let ring = |i: u32, j: u32| 1 + (i - 1) * lon + j % lon;
    let mut t = Vec::with_capacity((2 * lon * (lat - 1)) as usize);
    for j in 0..lon {
        t.push([0, ring(1, j), ring(1, j + 1)]);
        t.push([ring(lat - 1, j), south, ring(lat - 1, j + 1)]);
    }
    for i in 1..lat - 1 {
        for j in 0..lon {
            let (a, b, c, d) = (
                ring(i, j),
                ring(i, j + 1),
                ring(i + 1, j),
                ring(i + 1, j + 1),
            );
            t.push([a, c, d]);
            t.push([a, d, b]);
        }
    }
    Ok(TriMesh::new(v, t)?)
}

/// The point at angles `(u, v)` of the torus about z and its outward
/// normal.
fn torus_point(major: f64, minor: f64, u: f64, v: f64) -> (DVec3, DVec3) {
    let n = DVec3::new(v.cos() * u.cos(), v.cos() * u.sin(), v.sin());
    (
        DVec3::new(major * u.cos(), major * u.sin(), 0.0) + minor * n,
        n,
    )
}

/// A closed, outward-wound torus about z of `nu × nv` quads
/// (`2 nu nv` triangles) whose tube radius has bumps.
fn bumpy_torus(major: f64, minor: f64, nu: u32, nv: u32) -> Result<TriMesh> {
    let bumps = Bumps::new(2, 2.0 * minor);
    let mut v = Vec::with_capacity((nu * nv) as usize);
    for i in 0..nu {
        let u = std::f64::consts::TAU * f64::from(i) / f64::from(nu);
        for j in 0..nv {
            let w = std::f64::consts::TAU * f64::from(j) / f64::from(nv);
            let (p, _) = torus_point(major, minor, u, w);
            let r = minor * (1.0 + BUMPS * bumps.at(p));
            v.push(torus_point(major, r, u, w).0);
        }
    }
    let at = |i: u32, j: u32| (i % nu) * nv + j % nv;
    let mut t = Vec::with_capacity((2 * nu * nv) as usize);
    for i in 0..nu {
        for j in 0..nv {
            let (a, b, c, d) = (at(i, j), at(i + 1, j), at(i, j + 1), at(i + 1, j + 1));
            t.push([a, b, d]);
            t.push([a, d, c]);
        }
    }
    Ok(TriMesh::new(v, t)?)
}

/// The rigid case's scene: the bumpy sphere on a floating joint and the
/// fixed bumpy torus.
fn rigid_scene(small: bool) -> Result<Scene> {
    let ((lat, lon), (nu, nv)) = if small {
        ((36, 72), (200, 50))
    } else {
        ((100, 200), (660, 132))
    };
    let tree = KinematicTree::new(vec![
        LinkSpec::new("body", None).with_joint(Joint::new("free", JointType::Floating)),
    ])?;
    let sphere = bumpy_sphere(SPHERE_RADIUS, lat, lon)?;
    let body = ArticulatedBody::new("sphere", tree, vec![Some(Arc::new(sphere))])?;
    let torus = Obstacle::fixed(
        "torus",
        Arc::new(bumpy_torus(TORUS_MAJOR, TORUS_MINOR, nu, nv)?),
        DAffine3::IDENTITY,
    )?;
    Ok(Scene::builder()
        .body(body, DAffine3::IDENTITY)
        .obstacle(torus)
        .distance_threshold(5e-4)
        .build()?)
}

/// One timed query and its checks.
struct Answer {
    q: Vec<f64>,
    report: PdReport,
    ms: f64,
    /// Brute-force translational depth (`None`: none found).
    pdt: Option<f64>,
    /// The object norm from `q` of the translational depth's
    /// configuration (`σ` of a pure translation is its length squared).
    pdt_sigma: Option<f64>,
}

/// A case's results.
struct CaseResult {
    case: Case,
    dof: usize,
    triangles: (usize, usize),
    candidates: usize,
    colliding: usize,
    answers: Vec<Answer>,
    failures: Vec<String>,
    /// Answers above the translational depth: the goal PDg ≤ PDt missed
    /// (the method is local; not a defect of the contract).
    goal_misses: Vec<String>,
    coherence: Coherence,
}

/// The motion-coherence sequence of a case.
#[derive(Default)]
struct Coherence {
    /// Frames timed (the first, with nothing to be coherent with, is
    /// left out of the medians).
    frames: usize,
    cold_ms: Vec<f64>,
    coherent_ms: Vec<f64>,
    cold_sigma: Vec<f64>,
    coherent_sigma: Vec<f64>,
    /// Coherent answers started from the last answer.
    from_last: usize,
}

/// Checks an answer against the facade's discrete test and the limits;
/// what is wrong, if anything.
fn defects(setup: &Setup, pipeline: &Pipeline, tol: f64, r: &PdReport) -> Result<Vec<String>> {
    let mut out = Vec::new();
    match r.status {
        PdStatus::Separated => {}
        // Counted apart.
        PdStatus::NoFreeConfiguration => return Ok(out),
        s => out.push(format!("status {s:?}, not Separated")),
    }
    let c = pipeline.check(&setup.scene, &r.configuration)?;
    if c.colliding {
        out.push("the answer collides by Pipeline::check".to_owned());
    } else if c.distance > tol {
        out.push(format!(
            "the answer is {:.3e} from contact by Pipeline::check, above the tolerance {tol:.3e}",
            c.distance
        ));
    }
    if !setup.scene.body().tree().within_limits(&r.configuration) {
        out.push("the answer leaves the joint limits".to_owned());
    }
    Ok(out)
}

/// One query, timed: each case's queries (not inlined: a profiler's
/// collection target, `--toggle-collect='*time_query*'`, which leaves out
/// the coherence frames of [`time_frame`]).
#[inline(never)]
fn time_query(solver: &mut PdSolver<'_>, q: &[f64], cold: bool) -> Result<(PdReport, f64)> {
    timed(solver, q, cold)
}

/// One frame of the motion-coherence sequence, timed.
#[inline(never)]
fn time_frame(solver: &mut PdSolver<'_>, q: &[f64], cold: bool) -> Result<(PdReport, f64)> {
    timed(solver, q, cold)
}

#[inline(always)]
fn timed(solver: &mut PdSolver<'_>, q: &[f64], cold: bool) -> Result<(PdReport, f64)> {
    if cold {
        solver.clear_coherence();
    }
    let start = Instant::now();
    let r = solver.penetration_depth(q)?;
    Ok((r, start.elapsed().as_secs_f64() * 1e3))
}

fn run_case(
    setup: &Setup,
    pipeline: &Pipeline,
    sizes: Sizes,
    seed: u64,
    pool: &rayon::ThreadPool,
) -> Result<CaseResult> {
    let name = setup.case.name();
    let scene = &setup.scene;
    eprintln!(
        "pd {name}: {} DOF, {} link triangles, {} obstacle triangles",
        scene.dof(),
        scene.num_link_triangles(),
        scene.num_obstacle_triangles()
    );
    let mut rng = Rng::new(seed, 0x0050_4400 + setup.case as u64);
    let (mut candidates, mut colliding) = (0, 0);
    let mut queries = Vec::with_capacity(sizes.queries);
    let started = Instant::now();
    while queries.len() < sizes.queries && candidates < DRAWS_PER_QUERY * sizes.queries {
        let q = setup.draw(&mut rng)?;
        candidates += 1;
        let (keep, hit) = setup.accept(pipeline, &q)?;
        colliding += usize::from(hit);
        if keep {
            queries.push(q);
        }
    }
    eprintln!(
        "pd {name}: {} queries kept of {candidates} candidates ({colliding} colliding) in {:.1} s",
        queries.len(),
        started.elapsed().as_secs_f64()
    );
    let mut failures = Vec::new();
    if queries.len() < sizes.queries {
        failures.push(format!(
            "pd {name}: only {} of {} queries found in {candidates} candidates",
            queries.len(),
            sizes.queries
        ));
    }
    let tol = pipeline.pd_options(scene).tolerance();
    let mut solver = pipeline.prepare_penetration_depth(scene)?;
    let bar = progress(queries.len(), &format!("pd {name}"));
    let mut answers = Vec::with_capacity(queries.len());
    for q in queries {
        let (report, ms) =
            time_query(&mut solver, &q, true).with_context(|| format!("pd {name} at {q:?}"))?;
        answers.push(Answer {
            q,
            report,
            ms,
            pdt: None,
            pdt_sigma: None,
        });
        bar.inc(1);
    }
    bar.finish_and_clear();
    let directions = fibonacci_sphere(sizes.directions);
    let bar = progress(answers.len(), &format!("pd {name} PDt"));
    let started = Instant::now();
    let mut goal_misses = Vec::new();
    for (i, a) in answers.iter_mut().enumerate() {
        for d in defects(setup, pipeline, tol, &a.report)? {
            failures.push(format!("pd {name} query {i}: {d}; q {:?}", a.q));
        }
        let pdt = pool.install(|| setup.translational_depth(pipeline, &a.q, &directions))?;
        if let Some((depth, qt)) = pdt {
            a.pdt = Some(depth);
            a.pdt_sigma = Some(solver.norm().around(&a.q)?.norm(&qt)?);
            if a.report.status == PdStatus::Separated {
                let bound = (depth + a.report.distance.max(0.0)).powi(2);
                if a.report.value > bound {
                    goal_misses.push(format!(
                        "pd {name} query {i}: PDg above PDt: σ {:.6e} > (PDt {depth:.6e} + d {:.3e})² = {bound:.6e} (σ of the translated configuration {:.6e}, σ/PDt² {:.3}, selection {:?}); q {:?}; answer {:?}; translated {qt:?}",
                        a.report.value,
                        a.report.distance,
                        a.pdt_sigma.unwrap_or(f64::NAN),
                        a.report.value / (depth * depth),
                        a.report.selection,
                        a.q,
                        a.report.configuration
                    ));
                }
            }
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    eprintln!(
        "pd {name}: checks and brute-force PDt ({} directions) in {:.1} s",
        directions.len(),
        started.elapsed().as_secs_f64()
    );
    let coherence = coherence_run(
        setup,
        pipeline,
        &mut solver,
        &answers,
        sizes,
        &mut rng,
        tol,
        &mut failures,
    )?;
    Ok(CaseResult {
        case: setup.case,
        dof: scene.dof(),
        triangles: (scene.num_link_triangles(), scene.num_obstacle_triangles()),
        candidates,
        colliding,
        answers,
        failures,
        goal_misses,
        coherence,
    })
}

/// The frame-to-frame sequence from the first query, timed cold and with
/// motion coherence.
#[allow(clippy::too_many_arguments)] // One case's state, used once.
fn coherence_run(
    setup: &Setup,
    pipeline: &Pipeline,
    solver: &mut PdSolver<'_>,
    answers: &[Answer],
    sizes: Sizes,
    rng: &mut Rng,
    tol: f64,
    failures: &mut Vec<String>,
) -> Result<Coherence> {
    let name = setup.case.name();
    let mut out = Coherence::default();
    let Some(first) = answers.first() else {
        return Ok(out);
    };
    let mut frames = vec![first.q.clone()];
    'frames: while frames.len() < sizes.frames {
        let last = frames.last().context("the first frame")?;
        for _ in 0..NUDGE_TRIES {
            let q = setup.nudge(last, rng);
            if setup.accept(pipeline, &q)?.0 {
                frames.push(q);
                continue 'frames;
            }
        }
        break;
    }
    out.frames = frames.len();
    solver.clear_coherence();
    for (k, q) in frames.iter().enumerate() {
        let (r, ms) = time_frame(solver, q, false)?;
        for d in defects(setup, pipeline, tol, &r)? {
            failures.push(format!("pd {name} coherence frame {k}: {d}; q {q:?}"));
        }
        if k > 0 {
            out.coherent_ms.push(ms);
            out.coherent_sigma.push(r.value);
            out.from_last += usize::from(r.selection == Some(FreeSelection::MotionCoherence));
        }
    }
    for q in frames.iter().skip(1) {
        let (r, ms) = time_frame(solver, q, true)?;
        out.cold_ms.push(ms);
        out.cold_sigma.push(r.value);
    }
    eprintln!(
        "pd {name}: coherence over {} frames: median {:.3} ms cold, {:.3} ms coherent",
        out.frames,
        median(&out.cold_ms),
        median(&out.coherent_ms)
    );
    Ok(out)
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (n, s) = values.fold((0usize, 0.0), |(n, s), v| (n + 1, s + v));
    if n == 0 { f64::NAN } else { s / n as f64 }
}

/// Figures of a case's answers.
struct Figures {
    ms: [f64; 4],
    separated: usize,
    no_free: usize,
    iterations: f64,
    sigma: f64,
    rms: f64,
    ratio: f64,
    ratio_max: f64,
    /// Answers with `σ > (PDt + d)²`.
    above_pdt: usize,
    with_pdt: usize,
    selection: [usize; 4],
    checks: f64,
}

impl Figures {
    fn new(r: &CaseResult) -> Self {
        let ms: Vec<f64> = r.answers.iter().map(|a| a.ms).collect();
        let sep = || {
            r.answers
                .iter()
                .filter(|a| a.report.status == PdStatus::Separated)
        };
        let ratios: Vec<f64> = sep()
            .filter_map(|a| a.pdt.filter(|p| *p > 0.0).map(|p| a.report.value / (p * p)))
            .collect();
        let mut selection = [0; 4];
        for a in &r.answers {
            selection[match a.report.selection {
                Some(FreeSelection::MotionCoherence) => 0,
                Some(FreeSelection::SuccessivePerturbation) => 1,
                Some(FreeSelection::ConstrainedTranslation) => 2,
                None => 3,
            }] += 1;
        }
        Self {
            ms: [
                median(&ms),
                quantile(&ms, 0.9),
                quantile(&ms, 0.99),
                ms.iter().copied().fold(f64::NAN, f64::max),
            ],
            separated: sep().count(),
            no_free: r
                .answers
                .iter()
                .filter(|a| a.report.status == PdStatus::NoFreeConfiguration)
                .count(),
            iterations: mean(sep().map(|a| a.report.iterations as f64)),
            sigma: mean(sep().map(|a| a.report.value)),
            rms: mean(sep().map(|a| a.report.rms_displacement())),
            ratio: mean(ratios.iter().copied()),
            ratio_max: ratios.iter().copied().fold(f64::NAN, f64::max),
            above_pdt: sep()
                .filter(|a| {
                    a.pdt
                        .is_some_and(|p| a.report.value > (p + a.report.distance.max(0.0)).powi(2))
                })
                .count(),
            with_pdt: ratios.len(),
            selection,
            checks: mean(
                r.answers
                    .iter()
                    .map(|a| a.report.stats.discrete_checks as f64),
            ),
        }
    }
}

/// A number for a table cell (`—` for NaN).
fn cell(x: f64, digits: usize) -> String {
    if x.is_nan() {
        "—".to_owned()
    } else {
        format!("{x:.digits$}")
    }
}

fn markdown(results: &[CaseResult], sizes: Sizes) -> String {
    let mut md = format!(
        "### Penetration depth (M5)\n\n\
         Generalized penetration depth through `Pipeline::prepare_penetration_depth`, \
         {} in-collision queries per case kept by rejection sampling (seeded), each timed \
         cold on one thread (motion coherence cleared before each). *puma1*: the mobile \
         Puma (`pd_puma_car.ron`) in the car, arm self-collision free; *puma2*: the arm \
         colliding with itself (car or not); *hand*: the hand (`pd_hand_bottle.ron`) in \
         the bottle, self-collision free; *rigid*: a floating bumpy sphere against a fixed \
         bumpy torus, built in code{}. Each answer must be `Separated`, free by \
         `Pipeline::check` within the contact tolerance, and within the joint limits (a \
         failure otherwise). The goal σ ≤ (PDt + d)² is counted apart (*PDg > PDt*; the \
         method is local, as M5's), PDt the brute-force translational depth over {} \
         Fibonacci-sphere directions of the model's translation (march by 1/256 of the \
         obstacle's size, bisection to 10⁻⁶ of it), d the answer's clearance; a \
         `NoFreeConfiguration` answer is counted apart, not a failure. A self-colliding \
         model (puma2) has no translational depth. σ/PDt² is the mean over the answers \
         with a PDt.\n\n\
         | case | model | DOF | triangles (model / obstacle) | queries | median ms | p90 | p99 | max | mean iterations | mean √σ | σ/PDt² mean | failures |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
        sizes.queries,
        if sizes.small_meshes {
            " (quick run: smaller meshes)"
        } else {
            ""
        },
        sizes.directions
    );
    for r in results {
        let f = Figures::new(r);
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} / {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.case.name(),
            r.case.model(),
            r.dof,
            r.triangles.0,
            r.triangles.1,
            r.answers.len(),
            cell(f.ms[0], 3),
            cell(f.ms[1], 3),
            cell(f.ms[2], 3),
            cell(f.ms[3], 3),
            cell(f.iterations, 2),
            cell(f.rms, 4),
            cell(f.ratio, 3),
            r.failures.len()
        );
    }
    md.push_str(
        "\n| case | candidates | colliding | kept | Separated | NoFreeConfiguration | mean σ | answers with PDt | σ/PDt² max | PDg > PDt | selection (coherence / perturbation / translation / none) | mean discrete checks |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in results {
        let f = Figures::new(r);
        let frac = |n: usize| 100.0 * n as f64 / r.candidates.max(1) as f64;
        let _ = writeln!(
            md,
            "| {} | {} | {:.1} % | {:.1} % | {} | {} | {} | {} | {} | {} | {} / {} / {} / {} | {} |",
            r.case.name(),
            r.candidates,
            frac(r.colliding),
            frac(r.answers.len()),
            f.separated,
            f.no_free,
            cell(f.sigma, 6),
            f.with_pdt,
            cell(f.ratio_max, 3),
            f.above_pdt,
            f.selection[0],
            f.selection[1],
            f.selection[2],
            f.selection[3],
            cell(f.checks, 1)
        );
    }
    let misses: Vec<&String> = results.iter().flat_map(|r| &r.goal_misses).collect();
    if !misses.is_empty() {
        md.push_str(&format!(
            "\nThe goal PDg ≤ PDt was missed by {} answer{} (largest σ/PDt² in the table above).\n",
            misses.len(),
            if misses.len() == 1 { "" } else { "s" }
        ));
    }
    md.push_str(
        "\nMotion coherence (M5 Table I): a sequence of frames from each case's first query, \
         each the previous one nudged by a small random step that keeps it in the case's \
         set, timed cold (coherence cleared, the selection from the centroid difference and \
         perturbation) and with the solver remembering its last answer; the first frame is \
         left out of the medians.\n\n\
         | case | frames | median ms cold | median ms coherent | cold / coherent | from the last answer | mean σ cold | mean σ coherent |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for r in results {
        let c = &r.coherence;
        let (cold, coh) = (median(&c.cold_ms), median(&c.coherent_ms));
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} / {} | {} | {} |",
            r.case.name(),
            c.frames,
            cell(cold, 3),
            cell(coh, 3),
            cell(cold / coh, 2),
            c.from_last,
            c.coherent_ms.len(),
            cell(mean(c.cold_sigma.iter().copied()), 6),
            cell(mean(c.coherent_sigma.iter().copied()), 6)
        );
    }
    md.push('\n');
    let mut compare = Vec::new();
    for r in results {
        if let (Some(paper), Some(goal)) = (r.case.paper_ms(), r.case.goal_ms()) {
            let m = Figures::new(r).ms[0];
            compare.push(format!(
                "{} {} ms (M5 {paper} ms, goal ≤ {goal} ms: {})",
                r.case.name(),
                cell(m, 2),
                if m <= goal { "met" } else { "not met" }
            ));
        }
    }
    let _ = writeln!(
        md,
        "Medians against M5 Table III (Puma1 27.9 ms, Puma2 14.9 ms, Hand 71.6 ms on a \
         2.4 GHz Core i5; different machines, so only the order of magnitude compares) and \
         our goals (Puma ≤ 5 ms, hand ≤ 15 ms): {}.",
        compare.join("; ")
    );
    md
}

fn case_json(r: &CaseResult) -> Value {
    let f = Figures::new(r);
    let c = &r.coherence;
    json!({
        "name": r.case.name(),
        "model": r.case.model(),
        "dof": r.dof,
        "triangles_model": r.triangles.0,
        "triangles_obstacle": r.triangles.1,
        "candidates": r.candidates,
        "colliding_fraction": r.colliding as f64 / r.candidates.max(1) as f64,
        "kept_fraction": r.answers.len() as f64 / r.candidates.max(1) as f64,
        "queries": r.answers.len(),
        "separated": f.separated,
        "no_free_configuration": f.no_free,
        "median_ms": f.ms[0],
        "p90_ms": f.ms[1],
        "p99_ms": f.ms[2],
        "max_ms": f.ms[3],
        "paper_ms": r.case.paper_ms(),
        "goal_ms": r.case.goal_ms(),
        "mean_iterations": f.iterations,
        "mean_sigma": f.sigma,
        "mean_rms": f.rms,
        "sigma_over_pdt2_mean": f.ratio,
        "sigma_over_pdt2_max": f.ratio_max,
        "pdg_above_pdt": f.above_pdt,
        "answers_with_pdt": f.with_pdt,
        "selection": {
            "motion_coherence": f.selection[0],
            "successive_perturbation": f.selection[1],
            "constrained_translation": f.selection[2],
            "none": f.selection[3],
        },
        "mean_discrete_checks": f.checks,
        "failures": r.failures,
        "goal_misses": r.goal_misses,
        "coherence": {
            "frames": c.frames,
            "cold_median_ms": median(&c.cold_ms),
            "coherent_median_ms": median(&c.coherent_ms),
            "from_last_answer": c.from_last,
            "cold_mean_sigma": mean(c.cold_sigma.iter().copied()),
            "coherent_mean_sigma": mean(c.coherent_sigma.iter().copied()),
        },
        "answers": r.answers.iter().map(|a| json!({
            "ms": a.ms,
            "status": format!("{:?}", a.report.status),
            "sigma": a.report.value,
            "distance": a.report.distance,
            "iterations": a.report.iterations,
            "selection": a.report.selection.map(|s| format!("{s:?}")),
            "discrete_checks": a.report.stats.discrete_checks,
            "pdt": a.pdt,
            "pdt_sigma": a.pdt_sigma,
        })).collect::<Vec<_>>(),
    })
}

/// Runs the four cases.
///
/// # Errors
/// A scene that does not load or build, or a query that errors.
pub(crate) fn run(
    root: &Path,
    quick: bool,
    full: bool,
    seed: u64,
    cases: &[String],
    pool: &rayon::ThreadPool,
) -> Result<PdSection> {
    let sizes = Sizes::new(quick, full);
    let wanted = |case: Case| cases.iter().any(|c| c == case.name());
    let pipeline = Pipeline::builder().build()?;
    let load = |file: &str| -> Result<Scene> {
        let p = root.join("data/scenes").join(file);
        Scene::from_file(&p).with_context(|| format!("loading {}", p.display()))
    };
    let puma = load("pd_puma_car.ron")?;
    let hand = load("pd_hand_bottle.ron")?;
    let rigid = if wanted(Case::Rigid) {
        let started = Instant::now();
        let scene = rigid_scene(sizes.small_meshes).context("building the rigid case's scene")?;
        eprintln!(
            "pd rigid: scene built in {:.1} s",
            started.elapsed().as_secs_f64()
        );
        Some(scene)
    } else {
        None
    };
    let mut results = Vec::new();
    for case in Case::ALL.into_iter().filter(|&c| wanted(c)) {
        let scene = match (case, &rigid) {
            (Case::Puma1 | Case::Puma2, _) => puma.clone(),
            (Case::Hand, _) => hand.clone(),
            (Case::Rigid, Some(rigid)) => rigid.clone(),
            (Case::Rigid, None) => continue,
        };
        let setup = Setup::new(case, scene)?;
        let r = run_case(&setup, &pipeline, sizes, seed, pool)?;
        let f = Figures::new(&r);
        eprintln!(
            "pd {}: median {:.3} ms, p99 {:.3} ms, mean √σ {:.4}, σ/PDt² {:.3}, {} NoFreeConfiguration, {} failures",
            case.name(),
            f.ms[0],
            f.ms[2],
            f.rms,
            f.ratio,
            f.no_free,
            r.failures.len()
        );
        for line in &r.failures {
            eprintln!("FAIL {line}");
        }
        for line in &r.goal_misses {
            eprintln!("goal missed: {line}");
        }
        results.push(r);
    }
    let json = json!({
        "queries_per_case": sizes.queries,
        "directions": sizes.directions,
        "coherence_frames": sizes.frames,
        "small_meshes": sizes.small_meshes,
        "seed": seed,
        "cases": results.iter().map(case_json).collect::<Vec<_>>(),
    });
    Ok(PdSection {
        markdown: markdown(&results, sizes),
        json,
        failures: results.iter().flat_map(|r| r.failures.clone()).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fibonacci_directions_are_unit_and_spread() {
        let d = fibonacci_sphere(64);
        assert_eq!(d.len(), 64);
        assert!(d.iter().all(|v| (v.length() - 1.0).abs() < 1e-12));
        let mean = d.iter().copied().sum::<DVec3>() / 64.0;
        assert!(mean.length() < 0.05, "{mean:?}");
    }

    #[test]
    fn bumpy_meshes_are_closed_and_outward() {
        let s = bumpy_sphere(SPHERE_RADIUS, 12, 24).unwrap();
        assert_eq!(s.num_triangles(), 2 * 24 * 11);
        let t = bumpy_torus(TORUS_MAJOR, TORUS_MINOR, 40, 12).unwrap();
        assert_eq!(t.num_triangles(), 2 * 40 * 12);
        for (m, centre_of) in [
            (
                &s,
                Box::new(|_: DVec3| DVec3::ZERO) as Box<dyn Fn(DVec3) -> DVec3>,
            ),
            (
                &t,
                Box::new(|p: DVec3| DVec3::new(p.x, p.y, 0.0).normalize() * TORUS_MAJOR),
            ),
        ] {
            for i in 0..m.num_triangles() {
                let [a, b, c] = m.triangle(i);
                let centroid = (a + b + c) / 3.0;
                assert!(
                    m.triangle_normal(i).dot(centroid - centre_of(centroid)) > 0.0,
                    "triangle {i} faces inwards"
                );
            }
        }
        let scene = rigid_scene(true).unwrap();
        assert!(scene.obstacles()[0].geometry().is_closed());
        assert!(scene.body().links()[0].as_ref().unwrap().is_closed());
    }
}
