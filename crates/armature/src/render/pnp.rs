//! Camera pose from labelled points (perspective-n-point).
//!
//! **What.** Given a camera's intrinsics and at least three pairs of a
//! pixel and the world point it shows, [`solve_pnp`] finds the
//! [`CameraPose`] whose projection of the points best matches the pixels:
//! the least-squares reprojection error, refined by Levenberg–Marquardt on
//! the six degrees of freedom of the pose (a rotation vector applied on the
//! left of the rotation, and the translation), with the analytic Jacobian
//! and the 6×6 normal equations solved by Cholesky. This registers a
//! camera image with the scene, so that swept volumes can be drawn over it
//! (M3 §IV, Fig. 6).
//!
//! **Where it starts.** Least squares on projections has local minima, so
//! the start matters:
//!
//! 1. an initial pose given in [`PnpOptions::initial_pose`], when the
//!    refinement from it ends with every point in front of the camera;
//! 2. otherwise, with six points or more that do not lie in one plane, the
//!    direct linear transform (DLT: the 3×4 projection matrix by linear
//!    least squares on normalised coordinates, its rotation part projected
//!    onto the rotations);
//! 3. otherwise (3 to 5 points, coplanar points, or a DLT start that ends
//!    with points behind the camera) many starts: cameras on 26 directions
//!    (the cube's faces, edges and corners) at three distances from the
//!    points' centroid, the middle distance the one at which the points'
//!    spread would cover the labelled pixels' spread; each start's
//!    rotation is the one that best aligns the rays to the points with the
//!    rays of the pixels (Horn's quaternion method). The refined pose of
//!    least reprojection error with every point in front of the camera
//!    wins (the first one on ties), so the answer is deterministic.
//!
//! Three points can be fitted exactly by up to four poses (the P3P
//! ambiguity); give four or more, or an initial pose near the right one.
//!
//! **Errors.** Fewer than three pairs, a non-finite pixel or point,
//! collinear (or coincident) points, which leave the rotation about their
//! line free, and no pose with every point in front of the camera are
//! [`PnpError`]s wrapped in [`Error::Pnp`].
//!
//! ```
//! use armature::render::{Camera, CameraPose, PnpOptions, PointPair, solve_pnp};
//! use glam::DVec3;
//!
//! let truth = Camera::look_at(DVec3::new(2.0, -1.0, 1.5), DVec3::ZERO, DVec3::Z, 1.0, 640, 480)?;
//! let points = [
//!     DVec3::ZERO, DVec3::X * 0.3, DVec3::Y * 0.4, DVec3::Z * 0.5, DVec3::new(0.2, 0.3, 0.1),
//! ];
//! let pairs: Vec<PointPair> = points
//!     .iter()
//!     .map(|&point| PointPair { pixel: truth.project(point).unwrap(), point })
//!     .collect();
//! // The intrinsics of the camera, its pose unknown.
//! let intrinsics = truth.with_pose(CameraPose::IDENTITY);
//! let fit = solve_pnp(&intrinsics, &pairs, &PnpOptions::default())?;
//! assert!(fit.rms_px < 1e-6);
//! assert!(fit.pose.position().distance(DVec3::new(2.0, -1.0, 1.5)) < 1e-6);
//! # Ok::<(), armature::Error>(())
//! ```

use glam::{DMat3, DQuat, DVec2, DVec3};

use super::camera::{Camera, CameraPose};
use crate::Error;

/// A pixel and the world point it shows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointPair {
    /// Column and row (see [`camera`](super::camera) for the pixel
    /// convention).
    pub pixel: DVec2,
    /// The world point.
    pub point: DVec3,
}

/// Options of [`solve_pnp`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PnpOptions {
    /// A pose to refine first (see the [module docs](self)).
    pub initial_pose: Option<CameraPose>,
    /// Levenberg–Marquardt iterations per start (default 200; at least 1).
    pub max_iterations: usize,
}

impl Default for PnpOptions {
    fn default() -> Self {
        Self {
            initial_pose: None,
            max_iterations: 200,
        }
    }
}

impl PnpOptions {
    /// Sets [`PnpOptions::initial_pose`].
    #[must_use]
    pub fn with_initial_pose(mut self, pose: CameraPose) -> Self {
        self.initial_pose = Some(pose);
        self
    }

    /// Sets [`PnpOptions::max_iterations`].
    #[must_use]
    pub fn with_max_iterations(mut self, n: usize) -> Self {
        self.max_iterations = n;
        self
    }
}

/// Where the winning refinement started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PnpStart {
    /// [`PnpOptions::initial_pose`].
    Given,
    /// The direct linear transform.
    Dlt,
    /// One of the cameras around the points.
    MultiStart,
}

/// The answer of [`solve_pnp`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PnpFit {
    /// The fitted pose (world to camera).
    pub pose: CameraPose,
    /// Root-mean-square reprojection error in pixels:
    /// `√(Σ |project(point) − pixel|² / n)`.
    pub rms_px: f64,
    /// The largest reprojection error in pixels.
    pub max_px: f64,
    /// Levenberg–Marquardt iterations of the winning refinement.
    pub iterations: usize,
    /// Where it started.
    pub start: PnpStart,
    /// Refinements run in all.
    pub refinements: usize,
}

/// Why [`solve_pnp`] found no pose.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PnpError {
    /// Fewer than three point pairs.
    #[error("{count} labelled points: at least 3 are needed (4 or more fix the pose uniquely)")]
    TooFewPoints {
        /// How many were given.
        count: usize,
    },
    /// A pixel or a point is NaN or infinite.
    #[error("label {index}: the {what} is not finite")]
    NonFinite {
        /// Index of the pair.
        index: usize,
        /// `pixel` or `point`.
        what: &'static str,
    },
    /// The points lie on one line (or coincide): the rotation about the
    /// line is free.
    #[error(
        "the labelled points are collinear or coincide: they leave the camera's rotation \
         about their line free; label points off that line"
    )]
    DegeneratePoints,
    /// The initial pose is not finite or its rotation not a unit
    /// quaternion.
    #[error("the initial pose is not a finite rigid transform (unit quaternion)")]
    BadInitialPose,
    /// No refinement ended with every point in front of the camera.
    #[error(
        "no camera pose puts every labelled point in front of the camera; check the labels \
         and the intrinsics"
    )]
    NoSolutionInFront,
}

/// The camera pose that best projects `pairs`' points onto their pixels
/// through `camera`'s intrinsics (its pose is ignored; see the
/// [module docs](self)).
///
/// # Errors
/// [`Error::Pnp`] as listed in the [module docs](self);
/// [`Error::InvalidOption`] for intrinsics that are not finite and
/// positive (`fx`, `fy`, `cx`, `cy`) or `max_iterations` 0.
pub fn solve_pnp(
    camera: &Camera,
    pairs: &[PointPair],
    options: &PnpOptions,
) -> Result<PnpFit, Error> {
    let problem = Problem::new(camera, pairs)?;
    if options.max_iterations == 0 {
        return Err(Error::InvalidOption {
            name: "max_iterations",
            value: 0.0,
            why: "must be at least 1",
        });
    }
    let Some(spread) = point_spread(pairs) else {
        return Err(PnpError::DegeneratePoints.into());
    };
    let mut refinements = 0;
    if let Some(initial) = options.initial_pose {
        if !initial.is_valid() {
            return Err(PnpError::BadInitialPose.into());
        }
        let initial = CameraPose {
            rotation: initial.rotation.normalize(),
            translation: initial.translation,
        };
        refinements += 1;
        let run = problem.refine(initial, options.max_iterations);
        if problem.in_front(&run.pose) {
            return Ok(problem.fit(run, PnpStart::Given, refinements));
        }
    }
    if pairs.len() >= 6
        && !spread.planar
        && let Some(start) = problem.dlt()
    {
        refinements += 1;
        let run = problem.refine(start, options.max_iterations);
        if problem.in_front(&run.pose) {
            return Ok(problem.fit(run, PnpStart::Dlt, refinements));
        }
    }
    let mut best: Option<Run> = None;
    for start in problem.starts() {
        refinements += 1;
        let run = problem.refine(start, options.max_iterations);
        if problem.in_front(&run.pose) && best.as_ref().is_none_or(|b| run.cost < b.cost) {
            best = Some(run);
        }
    }
    best.map(|run| problem.fit(run, PnpStart::MultiStart, refinements))
        .ok_or_else(|| PnpError::NoSolutionInFront.into())
}

/// The reprojection error in pixels of every pair under `pose` (infinite
/// for a point that is not in front of the camera).
#[must_use]
pub fn reprojection_errors(camera: &Camera, pose: &CameraPose, pairs: &[PointPair]) -> Vec<f64> {
    pairs
        .iter()
        .map(|p| {
            let c = pose.transform_point(p.point);
            if c.z <= 0.0 || !c.is_finite() {
                return f64::INFINITY;
            }
            let u = DVec2::new(
                camera.fx * c.x / c.z + camera.cx,
                camera.fy * c.y / c.z + camera.cy,
            );
            u.distance(p.pixel)
        })
        .collect()
}

/// How the points spread: `None` when they are collinear or coincide.
#[derive(Clone, Copy, Debug)]
struct Spread {
    planar: bool,
}

fn point_spread(pairs: &[PointPair]) -> Option<Spread> {
    let n = pairs.len() as f64;
    let c = pairs.iter().map(|p| p.point).sum::<DVec3>() / n;
    let mut cov = [[0.0; 3]; 3];
    for p in pairs {
        let d = p.point - c;
        for i in 0..3 {
            for j in 0..3 {
                cov[i][j] += d[i] * d[j];
            }
        }
    }
    let (values, _) = symmetric_eigen(cov);
    let mut v = values;
    v.sort_by(f64::total_cmp);
    // Variances: a ratio of 1e-12 is a spread a million times thinner.
    if v[2].is_nan() || v[2] <= 0.0 || v[1] <= 1e-12 * v[2] {
        return None;
    }
    Some(Spread {
        planar: v[0] <= 1e-10 * v[2],
    })
}

/// Centroids and root-mean-square spreads of a problem's points.
struct Spreads {
    /// Centroid of the 3D points.
    c3: DVec3,
    /// Their spread.
    s3: f64,
    /// The image points, normalised by the intrinsics.
    image: Vec<DVec2>,
    /// Their centroid.
    c2: DVec2,
    /// Their spread.
    s2: f64,
}

/// One refinement's result.
#[derive(Clone, Copy, Debug)]
struct Run {
    pose: CameraPose,
    cost: f64,
    iterations: usize,
}

/// The pairs with the intrinsics.
struct Problem<'a> {
    pairs: &'a [PointPair],
    fx: f64,
    fy: f64,
    cx: f64,
    cy: f64,
    /// Depths below this count as this in the residuals (a point behind
    /// the camera projects far away instead of dividing by zero).
    z_min: f64,
}

impl<'a> Problem<'a> {
    fn new(camera: &Camera, pairs: &'a [PointPair]) -> Result<Self, Error> {
        for (name, value) in [("fx", camera.fx), ("fy", camera.fy)] {
            if !(value.is_finite() && value > 0.0) {
                return Err(Error::InvalidOption {
                    name,
                    value,
                    why: "a focal length must be finite and positive (pixels)",
                });
            }
        }
        for (name, value) in [("cx", camera.cx), ("cy", camera.cy)] {
            if !value.is_finite() {
                return Err(Error::InvalidOption {
                    name,
                    value,
                    why: "the principal point must be finite (pixels)",
                });
            }
        }
        if pairs.len() < 3 {
            return Err(PnpError::TooFewPoints { count: pairs.len() }.into());
        }
        for (index, p) in pairs.iter().enumerate() {
            if !p.pixel.is_finite() {
                return Err(PnpError::NonFinite {
                    index,
                    what: "pixel",
                }
                .into());
            }
            if !p.point.is_finite() {
                return Err(PnpError::NonFinite {
                    index,
                    what: "point",
                }
                .into());
            }
        }
        let reach = pairs.iter().map(|p| p.point.length()).fold(0.0, f64::max);
        Ok(Self {
            pairs,
            fx: camera.fx,
            fy: camera.fy,
            cx: camera.cx,
            cy: camera.cy,
            z_min: 1e-9 * reach.max(1e-300),
        })
    }

    /// The sum of squared reprojection errors, and with `jac` the normal
    /// equations `JᵀJ`, `Jᵀr` of the left-multiplied rotation vector and
    /// the translation.
    fn cost(&self, pose: &CameraPose, jac: Option<(&mut [[f64; 6]; 6], &mut [f64; 6])>) -> f64 {
        let mut cost = 0.0;
        let mut normal = jac;
        if let Some((a, b)) = normal.as_mut() {
            **a = [[0.0; 6]; 6];
            **b = [0.0; 6];
        }
        for p in self.pairs {
            let rotated = pose.rotation * p.point;
            let c = rotated + pose.translation;
            let clamped = c.z < self.z_min;
            let z = if clamped { self.z_min } else { c.z };
            let r = [
                self.fx * c.x / z + self.cx - p.pixel.x,
                self.fy * c.y / z + self.cy - p.pixel.y,
            ];
            cost += r[0] * r[0] + r[1] * r[1];
            if let Some((a, b)) = normal.as_mut() {
                let dz = |f: f64, x: f64| if clamped { 0.0 } else { -f * x / (z * z) };
                let grads = [
                    DVec3::new(self.fx / z, 0.0, dz(self.fx, c.x)),
                    DVec3::new(0.0, self.fy / z, dz(self.fy, c.y)),
                ];
                for (g, r) in grads.iter().zip(r) {
                    // d(exp(ω)·Rp)/dω = −[Rp]×, so the rotation-vector
                    // gradient of g·c is Rp × g.
                    let w = rotated.cross(*g);
                    let row = [w.x, w.y, w.z, g.x, g.y, g.z];
                    for i in 0..6 {
                        b[i] += row[i] * r;
                        for j in 0..6 {
                            a[i][j] += row[i] * row[j];
                        }
                    }
                }
            }
        }
        cost
    }

    /// Levenberg–Marquardt from `start`.
    fn refine(&self, start: CameraPose, max_iterations: usize) -> Run {
        let mut pose = start;
        let mut a = [[0.0; 6]; 6];
        let mut g = [0.0; 6];
        let mut cost = self.cost(&pose, Some((&mut a, &mut g)));
        let mut lambda = 1e-3;
        let mut iterations = 0;
        let floor = 1e-24 * self.pairs.len() as f64;
        while iterations < max_iterations && cost.is_finite() && cost > floor {
            iterations += 1;
            let max_diag = (0..6).map(|i| a[i][i]).fold(0.0, f64::max);
            let mut damped = a;
            for i in 0..6 {
                damped[i][i] += lambda * a[i][i].max(1e-12 * max_diag).max(1e-300);
            }
            let neg_g = g.map(|x| -x);
            let Some(step) = cholesky_solve(damped, neg_g) else {
                lambda *= 10.0;
                if lambda > 1e16 {
                    break;
                }
                continue;
            };
            let omega = DVec3::new(step[0], step[1], step[2]);
            let candidate = CameraPose {
                rotation: (DQuat::from_scaled_axis(omega) * pose.rotation).normalize(),
                translation: pose.translation + DVec3::new(step[3], step[4], step[5]),
            };
            let new_cost = self.cost(&candidate, None);
            if new_cost.is_finite() && new_cost < cost {
                let decrease = cost - new_cost;
                pose = candidate;
                cost = self.cost(&pose, Some((&mut a, &mut g)));
                lambda = (lambda / 10.0).max(1e-15);
                let small_step = omega.length() < 1e-14
                    && DVec3::new(step[3], step[4], step[5]).length()
                        < 1e-14 * (1.0 + pose.translation.length());
                if decrease <= 1e-14 * cost || small_step {
                    break;
                }
            } else {
                lambda *= 10.0;
                if lambda > 1e16 {
                    break;
                }
            }
        }
        Run {
            pose,
            cost,
            iterations,
        }
    }

    /// Whether every point lies in front of the camera at `pose`.
    fn in_front(&self, pose: &CameraPose) -> bool {
        pose.is_valid()
            && self
                .pairs
                .iter()
                .all(|p| pose.transform_point(p.point).z > self.z_min)
    }

    fn fit(&self, run: Run, start: PnpStart, refinements: usize) -> PnpFit {
        let n = self.pairs.len() as f64;
        let max_px = self
            .pairs
            .iter()
            .map(|p| {
                let c = run.pose.transform_point(p.point);
                DVec2::new(self.fx * c.x / c.z + self.cx, self.fy * c.y / c.z + self.cy)
                    .distance(p.pixel)
            })
            .fold(0.0, f64::max);
        PnpFit {
            pose: run.pose,
            rms_px: (run.cost / n).sqrt(),
            max_px,
            iterations: run.iterations,
            start,
            refinements,
        }
    }

    /// The pixel in normalised image coordinates (`z = 1`).
    fn normalised(&self, pixel: DVec2) -> DVec2 {
        DVec2::new((pixel.x - self.cx) / self.fx, (pixel.y - self.cy) / self.fy)
    }

    /// The centroids and root-mean-square spreads of the 3D points and of
    /// the normalised image points (which it also returns).
    fn spreads(&self) -> Spreads {
        let n = self.pairs.len() as f64;
        let c3 = self.pairs.iter().map(|p| p.point).sum::<DVec3>() / n;
        let s3 = (self
            .pairs
            .iter()
            .map(|p| p.point.distance_squared(c3))
            .sum::<f64>()
            / n)
            .sqrt();
        let image: Vec<DVec2> = self
            .pairs
            .iter()
            .map(|p| self.normalised(p.pixel))
            .collect();
        let c2 = image.iter().copied().sum::<DVec2>() / n;
        let s2 = (image.iter().map(|x| x.distance_squared(c2)).sum::<f64>() / n).sqrt();
        Spreads {
            c3,
            s3,
            image,
            c2,
            s2,
        }
    }

    /// The DLT start: `None` when its linear system is degenerate.
    fn dlt(&self) -> Option<CameraPose> {
        let Spreads {
            c3,
            s3,
            image,
            c2,
            s2,
        } = self.spreads();
        if !(s3 > 0.0 && s2 > 0.0) {
            return None;
        }
        let mut ata = [[0.0; 12]; 12];
        for (p, x) in self.pairs.iter().zip(&image) {
            let q = (p.point - c3) / s3;
            let h = [q.x, q.y, q.z, 1.0];
            let y = (*x - c2) / s2;
            let mut rows = [[0.0; 12]; 2];
            for k in 0..4 {
                rows[0][k] = h[k];
                rows[0][8 + k] = -y.x * h[k];
                rows[1][4 + k] = h[k];
                rows[1][8 + k] = -y.y * h[k];
            }
            for row in &rows {
                for i in 0..12 {
                    for j in 0..12 {
                        ata[i][j] += row[i] * row[j];
                    }
                }
            }
        }
        let (values, vectors) = symmetric_eigen(ata);
        let k = (0..12).min_by(|&a, &b| values[a].total_cmp(&values[b]))?;
        let v: [f64; 12] = std::array::from_fn(|i| vectors[i][k]);
        // P̂ maps normalised points to normalised pixels; undo both
        // normalisations: P = T₂⁻¹ P̂ T₃ with T₃ p = (p − c₃)/s₃ and
        // T₂⁻¹ y = s₂ y + c₂.
        let row = |r: usize| [v[4 * r], v[4 * r + 1], v[4 * r + 2], v[4 * r + 3]];
        let (r0, r1, r2) = (row(0), row(1), row(2));
        let image_row =
            |a: [f64; 4], mean: f64| std::array::from_fn::<f64, 4, _>(|k| s2 * a[k] + mean * r2[k]);
        let hat = [image_row(r0, c2.x), image_row(r1, c2.y), r2];
        // Right-multiplying by T₃: the 3×3 part divides by s₃, the last
        // column becomes p₄ − M c₃ / s₃.
        let m = DMat3::from_cols(
            DVec3::new(hat[0][0], hat[1][0], hat[2][0]),
            DVec3::new(hat[0][1], hat[1][1], hat[2][1]),
            DVec3::new(hat[0][2], hat[1][2], hat[2][2]),
        ) / s3;
        let p4 = DVec3::new(hat[0][3], hat[1][3], hat[2][3]) - m * c3;
        let det = m.determinant();
        if !det.is_finite() || det == 0.0 {
            return None;
        }
        let (m, p4) = if det < 0.0 { (-m, -p4) } else { (m, p4) };
        let scale = det.abs().cbrt();
        let rotation = nearest_rotation(&(m / scale));
        let pose = CameraPose {
            rotation,
            translation: p4 / scale,
        };
        pose.is_valid().then_some(pose)
    }

    /// The multi-start poses (see the [module docs](self)).
    fn starts(&self) -> Vec<CameraPose> {
        let Spreads {
            c3: centroid,
            s3: spread3,
            image,
            c2: _,
            s2: spread2,
        } = self.spreads();
        // A spread of s seen from distance d covers about s/d in
        // normalised coordinates.
        let d0 = spread3 / spread2.max(1e-3);
        let rays: Vec<DVec3> = image.iter().map(|x| x.extend(1.0).normalize()).collect();
        let mut poses = Vec::with_capacity(78);
        for factor in [1.0, 0.5, 2.0] {
            for i in -1..=1 {
                for j in -1..=1 {
                    for k in -1..=1 {
                        if (i, j, k) == (0, 0, 0) {
                            continue;
                        }
                        let dir = DVec3::new(f64::from(i), f64::from(j), f64::from(k)).normalize();
                        let eye = centroid + dir * (d0 * factor);
                        if let Some(pose) = self.aligned_pose(eye, &rays) {
                            poses.push(pose);
                        }
                    }
                }
            }
        }
        poses
    }

    /// The camera at `eye` whose rotation best aligns the rays to the
    /// points with the pixels' rays.
    fn aligned_pose(&self, eye: DVec3, rays: &[DVec3]) -> Option<CameraPose> {
        let mut m = DMat3::ZERO;
        for (p, ray) in self.pairs.iter().zip(rays) {
            let b = (p.point - eye).try_normalize()?;
            // Σ m bᵀ: column k gets m·b_k.
            m += DMat3::from_cols(*ray * b.x, *ray * b.y, *ray * b.z);
        }
        let rotation = nearest_rotation(&m);
        Some(CameraPose {
            rotation,
            translation: -(rotation * eye),
        })
    }
}

/// The rotation `R` maximising `tr(Rᵀ M)` (the nearest rotation to `M`,
/// and for `M = Σ mᵢ bᵢᵀ` the one that best turns every `bᵢ` onto its
/// `mᵢ`), by Horn's quaternion method.
fn nearest_rotation(m: &DMat3) -> DQuat {
    // S_ab = Σ b_a m_b = M_ba.
    let s = |a: usize, b: usize| m.col(a)[b];
    let (sxx, sxy, sxz) = (s(0, 0), s(0, 1), s(0, 2));
    let (syx, syy, syz) = (s(1, 0), s(1, 1), s(1, 2));
    let (szx, szy, szz) = (s(2, 0), s(2, 1), s(2, 2));
    let n = [
        [sxx + syy + szz, syz - szy, szx - sxz, sxy - syx],
        [syz - szy, sxx - syy - szz, sxy + syx, szx + sxz],
        [szx - sxz, sxy + syx, -sxx + syy - szz, syz + szy],
        [sxy - syx, szx + sxz, syz + szy, -sxx - syy + szz],
    ];
    let (values, vectors) = symmetric_eigen(n);
    let k = (0..4)
        .max_by(|&a, &b| values[a].total_cmp(&values[b]).then(b.cmp(&a)))
        .unwrap_or(0);
    let q = DQuat::from_xyzw(vectors[1][k], vectors[2][k], vectors[3][k], vectors[0][k]);
    let length = q.length();
    if length.is_finite() && length > 0.0 {
        q / length
    } else {
        DQuat::IDENTITY
    }
}

/// Eigenvalues and eigenvectors (columns: `vectors[i][k]` is component `i`
/// of vector `k`) of a symmetric matrix, by cyclic Jacobi rotations.
fn symmetric_eigen<const N: usize>(mut a: [[f64; N]; N]) -> ([f64; N], [[f64; N]; N]) {
    let mut v = [[0.0; N]; N];
    for (i, row) in v.iter_mut().enumerate() {
        row[i] = 1.0;
    }
    let norm: f64 = a.iter().flatten().map(|x| x * x).sum::<f64>().sqrt();
    for _ in 0..100 {
        let off: f64 = (0..N)
            .flat_map(|i| (0..N).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| a[i][j] * a[i][j])
            .sum::<f64>()
            .sqrt();
        if !(off > 1e-300 && off > 1e-17 * norm) {
            break;
        }
        for p in 0..N {
            for q in p + 1..N {
                if a[p][q] == 0.0 {
                    continue;
                }
                let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for k in 0..N {
                    let (akp, akq) = (a[k][p], a[k][q]);
                    a[k][p] = c * akp - s * akq;
                    a[k][q] = s * akp + c * akq;
                }
                for k in 0..N {
                    let (apk, aqk) = (a[p][k], a[q][k]);
                    a[p][k] = c * apk - s * aqk;
                    a[q][k] = s * apk + c * aqk;
                }
                for k in 0..N {
                    let (vkp, vkq) = (v[k][p], v[k][q]);
                    v[k][p] = c * vkp - s * vkq;
                    v[k][q] = s * vkp + c * vkq;
                }
            }
        }
    }
    (std::array::from_fn(|i| a[i][i]), v)
}

/// Solves `A x = b` for a symmetric positive definite 6×6 `A` by
/// Cholesky; `None` when `A` is not (numerically) positive definite.
fn cholesky_solve(a: [[f64; 6]; 6], b: [f64; 6]) -> Option<[f64; 6]> {
    let mut l = [[0.0; 6]; 6];
    for i in 0..6 {
        for j in 0..=i {
            let sum: f64 = (0..j).map(|k| l[i][k] * l[j][k]).sum();
            if i == j {
                let d = a[i][i] - sum;
                if d.is_nan() || d <= 0.0 || !d.is_finite() {
                    return None;
                }
                l[i][i] = d.sqrt();
            } else {
                l[i][j] = (a[i][j] - sum) / l[j][j];
            }
        }
    }
    let mut y = [0.0; 6];
    for i in 0..6 {
        y[i] = (b[i] - (0..i).map(|k| l[i][k] * y[k]).sum::<f64>()) / l[i][i];
    }
    let mut x = [0.0; 6];
    for i in (0..6).rev() {
        x[i] = (y[i] - (i + 1..6).map(|k| l[k][i] * x[k]).sum::<f64>()) / l[i][i];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn horn_recovers_a_rotation() {
        let r = DQuat::from_euler(glam::EulerRot::ZYX, 0.7, -0.4, 2.5);
        let bs = [
            DVec3::X,
            DVec3::new(0.3, 1.0, -0.2),
            DVec3::new(-0.5, 0.1, 0.9),
        ];
        let mut m = DMat3::ZERO;
        for b in bs {
            let t = r * b;
            m += DMat3::from_cols(t * b.x, t * b.y, t * b.z);
        }
        let q = nearest_rotation(&m);
        assert!(q.angle_between(r) < 1e-9, "{q} vs {r}");
        // The nearest rotation to a scaled rotation is the rotation.
        let scaled = DMat3::from_quat(r) * 3.0;
        assert!(nearest_rotation(&scaled).angle_between(r) < 1e-9);
    }

    #[test]
    fn jacobi_diagonalises() {
        let a = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 1.0]];
        let (values, v) = symmetric_eigen(a);
        for k in 0..3 {
            for i in 0..3 {
                let av: f64 = (0..3).map(|j| a[i][j] * v[j][k]).sum();
                assert!((av - values[k] * v[i][k]).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn cholesky_solves_and_refuses_indefinite() {
        let mut a = [[0.0; 6]; 6];
        for i in 0..6 {
            for j in 0..6 {
                a[i][j] = 1.0 / (1.0 + (i as f64 - j as f64).abs());
            }
            a[i][i] += 2.0;
        }
        let x = [1.0, -2.0, 3.0, 0.5, 0.0, -1.0];
        let b: [f64; 6] = std::array::from_fn(|i| (0..6).map(|j| a[i][j] * x[j]).sum());
        let y = cholesky_solve(a, b).unwrap();
        assert!(x.iter().zip(y).all(|(p, q)| (p - q).abs() < 1e-12));
        a[2][2] = -1.0;
        assert!(cholesky_solve(a, b).is_none());
    }
}
