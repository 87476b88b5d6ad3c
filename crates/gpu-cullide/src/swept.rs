//! The volume swept by a link's line-swept sphere, tessellated (M1 §4.2).
//!
//! **What.** A link is enclosed by its capsule (line-swept sphere, LSS): an
//! axis segment `a b` in the link's frame and a radius `r`. Under the
//! in-between motion the axis' end points trace curves `A(t)` and `B(t)`
//! (the *pipes* of M1 eq. 10 are the caps swept along them), and the axis
//! traces the ruled surface of M1 eq. 8,
//!
//! ```text
//! x(t, s) = A(t) + s (B(t) − A(t)),   t ∈ [t0, t1], s ∈ [0, 1].
//! ```
//!
//! The volume the capsule sweeps is exactly `x ⊕ B(r)`, every point within
//! `r` of the ruled surface: its boundary is the two-sided offset of eq. 9,
//! the pipe surfaces of the caps and the capsules at both ends of the
//! window.
//!
//! **How.** The ruled surface is sampled on a uniform `n × m` grid (`n`
//! steps in time, `m` along the axis) and each grid cell split into two
//! triangles. The step counts come from the Filip–Magedson–Markot bound
//! (M1 eq. 11): the piecewise-linear interpolant `l` of a `C²` surface on
//! such a grid satisfies
//!
//! ```text
//! sup |x − l| ≤ ε = 1/8 (M_tt / n² + 2 M_ts / (n m) + M_ss / m²),
//! ```
//!
//! with `M_..` bounds on the second derivatives in the unit parameters.
//! Here `x_ss = 0`, `x_tt = (1 − s) A'' + s B''` (bounded by the link's
//! acceleration bound from [`MotionBounds::acceleration`], times `w²` for a
//! window of width `w`) and `x_ts = B' − A' = Ω × (B − A)` (bounded by the
//! angular speeds along the chain times the axis length, times `w`).
//!
//! **Guarantee.** Every point of the link, at every time of the window, is
//! within `r + ε` of a triangle; the returned [`SweptVolume::dilation`] is
//! `r + ε + clearance`, rounded up with a relative allowance for the
//! `f64` arithmetic of the grid. Pushing the tessellation outward by the
//! error bound thus gives an enclosure of the exact swept volume (tested
//! by sampling in `tests/swept_enclosure.rs`).

use armature_bvh_geometry::body::ArticulatedBody;
use armature_bvh_geometry::bv::Lss;
use armature_kinematics::{InBetweenMotion, MotionBounds};
use glam::{DAffine3, DVec3};

use crate::CullideError;
use crate::objects::Bounds;

/// The tessellated volume a link's capsule sweeps over a time window: the
/// ruled surface traced by the capsule's axis, as triangles in world
/// coordinates, and the dilation that turns it into an enclosure of the
/// exact swept volume.
#[derive(Clone, Debug, PartialEq)]
pub struct SweptVolume {
    /// The link.
    pub link: usize,
    /// The ruled surface's triangles (world coordinates).
    pub triangles: Vec<[DVec3; 3]>,
    /// The capsule's radius plus the tessellation error plus any clearance:
    /// every point of the swept capsule lies within this distance of a
    /// triangle.
    pub dilation: f64,
    /// Bounds of the enclosure (dilation included).
    pub bounds: Bounds,
}

impl SweptVolume {
    /// A swept volume from its triangles and dilation (bounds computed).
    #[must_use]
    pub fn new(link: usize, triangles: Vec<[DVec3; 3]>, dilation: f64) -> Self {
        let bounds = Bounds::of(&triangles, dilation);
        Self {
            link,
            triangles,
            dilation,
            bounds,
        }
    }
}

/// Options of the tessellation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweptOptions {
    /// Target tessellation error as a fraction of the capsule's radius
    /// (the error enlarges the enclosure by that much). In `(0, 10]`;
    /// default `0.25`.
    pub tolerance: f64,
    /// Most grid steps along time (the axis takes at most 16). The error
    /// bound of the steps taken is always what enlarges the enclosure, so
    /// a cap trades tightness for triangles, never soundness. In
    /// `[1, 4096]`; default `64`.
    pub max_steps: usize,
}

impl Default for SweptOptions {
    fn default() -> Self {
        Self {
            tolerance: 0.25,
            max_steps: 64,
        }
    }
}

impl SweptOptions {
    /// Checks every field against its documented range.
    ///
    /// # Errors
    /// [`CullideError::InvalidOption`] naming the field.
    pub fn validate(&self) -> Result<(), CullideError> {
        if !(self.tolerance > 0.0 && self.tolerance <= 10.0) {
            return Err(CullideError::InvalidOption {
                name: "tolerance",
                value: self.tolerance,
                why: "must lie in (0, 10] (a fraction of the capsule radius)",
            });
        }
        if !(1..=4096).contains(&self.max_steps) {
            return Err(CullideError::InvalidOption {
                name: "max_steps",
                value: self.max_steps as f64,
                why: "must lie in [1, 4096]",
            });
        }
        Ok(())
    }
}

/// Most grid steps along the capsule's axis.
const MAX_AXIS_STEPS: usize = 16;

/// The step counts `(n, m)` of a grid with the least cells (`n · m`) whose
/// FMM bound with `M_tt = tt`, `M_ts = ts` (and `M_ss = 0`) is at most
/// `target`, within the caps; and that bound.
#[must_use]
pub fn fmm_steps(tt: f64, ts: f64, target: f64, max_steps: usize) -> (usize, usize, f64) {
    let bound = |n: usize, m: usize| (tt / (n * n) as f64 + 2.0 * ts / (n * m) as f64) / 8.0;
    let mut best: Option<(usize, usize, f64)> = None;
    for m in 1..=MAX_AXIS_STEPS {
        // Largest h = 1/n with tt h² + (2 ts / m) h ≤ 8 target.
        let b = 2.0 * ts / m as f64;
        let c = 8.0 * target;
        let h = if tt > 0.0 {
            (-b + (b * b + 4.0 * tt * c).sqrt()) / (2.0 * tt)
        } else if b > 0.0 {
            c / b
        } else {
            1.0
        };
        let mut n = if h >= 1.0 {
            1
        } else if h > 0.0 && (1.0 / h).is_finite() {
            ((1.0 / h).ceil() as usize).max(1)
        } else {
            max_steps
        };
        n = n.min(max_steps);
        // Rounding of the root: step up while the bound is still over.
        while n < max_steps && bound(n, m) > target {
            n += 1;
        }
        let e = bound(n, m);
        let better = match best {
            None => true,
            Some((bn, bm, be)) => {
                let (meets, best_meets) = (e <= target, be <= target);
                (meets && !best_meets)
                    || (meets == best_meets && (n * m < bn * bm || (n * m == bn * bm && e < be)))
            }
        };
        if better {
            best = Some((n, m, e));
        }
        if m >= 2 && ts == 0.0 {
            break;
        }
    }
    best.unwrap_or((1, 1, bound(1, 1)))
}

/// Tessellates the volumes the links' capsules sweep: prepared once per
/// body (the capsules and the motion bounds), then one call per link and
/// motion.
#[derive(Clone, Debug)]
pub struct Sweeper {
    capsules: Vec<Option<Lss>>,
    bounds: MotionBounds,
    options: SweptOptions,
}

impl Sweeper {
    /// Prepares `body`: its links' capsules (`LinkGeometry::lss`) and the
    /// acceleration bounds of their axes.
    ///
    /// # Errors
    /// [`CullideError::InvalidOption`] for options out of range;
    /// [`CullideError::Kinematics`] when the bounds cannot be set up.
    pub fn new(body: &ArticulatedBody, options: &SweptOptions) -> Result<Self, CullideError> {
        options.validate()?;
        let capsules: Vec<Option<Lss>> = body
            .links()
            .iter()
            .map(|g| g.as_ref().map(|g| g.lss))
            .collect();
        let points: Vec<Vec<DVec3>> = capsules
            .iter()
            .map(|c| c.map_or_else(|| vec![DVec3::ZERO], |c| vec![c.a, c.b]))
            .collect();
        let bounds = MotionBounds::new(body.tree(), &points)?;
        Ok(Self {
            capsules,
            bounds,
            options: *options,
        })
    }

    /// The options.
    #[must_use]
    pub const fn options(&self) -> &SweptOptions {
        &self.options
    }

    /// The capsule of `link`, `None` for a link without geometry.
    #[must_use]
    pub fn capsule(&self, link: usize) -> Option<&Lss> {
        self.capsules.get(link).and_then(Option::as_ref)
    }

    /// The step counts `(n, m)` and the error bound `ε` of the tessellation
    /// of `link`'s swept capsule over `window`.
    ///
    /// # Errors
    /// [`CullideError::Index`] for a link without geometry or out of
    /// range; [`CullideError::Kinematics`] for a bad window or a motion of
    /// another tree.
    pub fn steps(
        &self,
        motion: &InBetweenMotion,
        link: usize,
        window: [f64; 2],
    ) -> Result<(usize, usize, f64), CullideError> {
        let capsule = self.capsule(link).ok_or(CullideError::Index {
            what: "link with geometry",
            index: link,
            len: self.capsules.len(),
        })?;
        let [t0, t1] = window;
        let w = t1 - t0;
        let accel = self.bounds.acceleration(motion, link, t0, t1)?;
        // |Ω| ≤ Σ |ω_j| over the chain (each local motion turns at a
        // constant rate).
        let mut spin = 0.0;
        let mut j = Some(link);
        while let Some(k) = j {
            spin += motion.local()[k].omega.abs();
            j = motion.parents()[k];
        }
        let length = (capsule.b - capsule.a).length();
        let pad = 1.0 + 1e-12;
        let tt = accel * w * w * pad;
        let ts = spin * length * w * pad * pad;
        let target = self.options.tolerance * capsule.radius.max(f64::MIN_POSITIVE);
        Ok(fmm_steps(tt, ts, target, self.options.max_steps))
    }

    /// The tessellated volume `link`'s capsule sweeps over `window ⊆
    /// [0, 1]`, dilated by the capsule's radius, the error bound and
    /// `clearance ≥ 0`. `poses` is scratch (one pose per link).
    ///
    /// # Errors
    /// As [`Sweeper::steps`]; [`CullideError::InvalidOption`] for a
    /// negative or non-finite clearance.
    pub fn sweep(
        &self,
        motion: &InBetweenMotion,
        link: usize,
        window: [f64; 2],
        clearance: f64,
        poses: &mut Vec<DAffine3>,
    ) -> Result<SweptVolume, CullideError> {
        if !(clearance.is_finite() && clearance >= 0.0) {
            return Err(CullideError::InvalidOption {
                name: "clearance",
                value: clearance,
                why: "must be finite and ≥ 0",
            });
        }
        let (n, m, error) = self.steps(motion, link, window)?;
        let capsule = self.capsule(link).copied().ok_or(CullideError::Index {
            what: "link with geometry",
            index: link,
            len: self.capsules.len(),
        })?;
        let [t0, t1] = window;
        poses.resize(self.capsules.len(), DAffine3::IDENTITY);
        // The grid, row by row in time.
        let mut grid = Vec::with_capacity((n + 1) * (m + 1));
        let mut scale = 0.0f64;
        for k in 0..=n {
            let t = if k == n {
                t1
            } else {
                t0 + (t1 - t0) * (k as f64 / n as f64)
            };
            motion.poses_at(t, poses)?;
            let a = poses[link].transform_point3(capsule.a);
            let b = poses[link].transform_point3(capsule.b);
            scale = scale.max(a.abs().max_element()).max(b.abs().max_element());
            for l in 0..=m {
                let s = l as f64 / m as f64;
                grid.push(a + (b - a) * s);
            }
        }
        let at = |k: usize, l: usize| grid[k * (m + 1) + l];
        let mut triangles = Vec::with_capacity(2 * n * m);
        for k in 0..n {
            for l in 0..m {
                let (p00, p10, p11, p01) = (at(k, l), at(k + 1, l), at(k + 1, l + 1), at(k, l + 1));
                triangles.push([p00, p10, p11]);
                triangles.push([p00, p11, p01]);
            }
        }
        // The poses and the grid points carry rounding of a few ulps of the
        // coordinates per joint; 1e-12 relative of the largest coordinate
        // covers chains of any practical depth.
        let rounding = 1e-12 * scale.max(capsule.radius) * (self.capsules.len() as f64 + 4.0);
        let dilation = (capsule.radius + error + clearance + rounding) * (1.0 + 1e-12);
        Ok(SweptVolume::new(link, triangles, dilation))
    }
}
