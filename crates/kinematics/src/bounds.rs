//! Motion bounds: how *far* (λ, M2 §IV) and how *fast* (μ, M4 §6) any point
//! of a link can move while the model moves between two configurations.
//!
//! **What.** Two precomputed, allocation-free evaluators over per-link point
//! sets (mesh vertices, OBB corners, … given in the link frame; no geometry
//! crate is needed):
//!
//! - [`CurveLengthBounds`]: the curve-length bound of M2 Lemma 1–2 (docs/architecture.md
//!   §1 "M2 Lemma 1"). For the joint-space straight segment `q_a → q_b`
//!   ([`crate::JointSpaceMotion`]) it bounds the length of the curve traced
//!   by every point of a link: `λ_i = Σ_k λ_ik |q_b,k − q_a,k|` over the
//!   joints `k` of the link's chain, with the constant factors `λ_ik` from the
//!   COMPUTE-SPHERE recursion (M2 §IV.C, Fig. 7–8), and the relative bound of
//!   two links (M2 §IV.B, last paragraph).
//! - [`MotionBounds`]: the motion bound μ of conservative advancement (M4 §6,
//!   eq. 6–10; docs/architecture.md "M4 conservative advancement"). For an
//!   [`InBetweenMotion`] and any remaining interval `[t, 1]` it bounds the
//!   **speed** of every point of a link, unprojected or projected on a
//!   direction, and the closing speed of two links.
//!
//! **Why.** Adaptive bisection (M2) declares a segment free when
//! `λ_i + λ_j < η(q_a) + η(q_b)`; conservative advancement (M4) steps by
//! `Δt = d(t) / μ`. Both are only as sound as these bounds.
//!
//! **Guarantee.** Every bound is an upper bound in floating point: the
//! enclosing spheres are checked against the points (their radius is the
//! largest computed distance), every derived length is padded by a relative
//! margin far above the rounding error of the few operations behind it, and
//! whatever non-orthogonality is left in fixed origins (the tree stores
//! rotations to within a few ulps) is bounded and multiplied in. Property tests sample dense motions
//! and assert that no sampled curve length or speed exceeds a bound.
//!
//! # Curve length λ (M2)
//!
//! COMPUTE-SPHERE builds, for link `i` and each joint `k` of its chain from
//! `i` down to the root, a sphere `S(i,k)` enclosing link `i` for *every*
//! value of the joints `k..i` (a revolute joint is swept over a full turn, a
//! prismatic joint over its limits), expressed in the frame of link `k`'s
//! parent:
//!
//! - start: `S(i,i+1)` = an enclosing sphere of the points (Ritter, radius
//!   re-measured over the points);
//! - revolute / continuous `k`: centre = projection of `c(i,k+1)` on axis `k`,
//!   radius `r(i,k+1) + |c(i,k+1) − c(i,k)|`, factor
//!   `λ_ik = r(i,k+1) + dist(c(i,k+1), axis k)`; for `k = i` the points
//!   themselves give `λ_ii` (largest point–axis distance) and the radius;
//! - prismatic `k`: factor 1; the sphere swept over the limits: centre moved
//!   by the axis times the mid limit, radius grown by half the range;
//! - fixed `k`: the sphere is only carried through the fixed origin.
//!
//! Joints that are not one revolute or prismatic value (M2 §IV.B,
//! "non-linear parameterizations": the bound holds for any parameter path
//! once `|dq_k/dτ|` is bounded) get a translation factor (on the length of
//! the translation they sweep) and a rotation factor (on the angle they
//! sweep); with `τ ∈ [0, 1]` the joint-space parameter and `ρ` the largest
//! distance of `S(i,k+1)` from the rotation centre or axis:
//!
//! | joint | bound on the length of the curve of a point, per joint |
//! |---|---|
//! | spherical, orientation (slerp by angle θ) | `ρ_origin · θ` |
//! | floating (translation `t`, slerp θ) | `\|t_b − t_a\| + ρ_origin · θ` |
//! | location (translation `t`) | `\|t_b − t_a\|` |
//! | planar (x, y, θ) | `\|(Δx, Δy)\| + ρ_normal · \|Δθ\|` |
//! | vehicle (s, α) | `\|Δs\| + (ρ_z + s_max / 2) · \|Δα\|` |
//! | omni-vehicle (φ, s, α) | `\|Δs\| + s_max · \|Δφ\| + (ρ_z + s_max / 2) · \|Δα\|` |
//!
//! with `s_max = max(|s_a|, |s_b|)`. The vehicle rows follow from the
//! braking-arc translation `d(s, α) = s · f(α)`, `f(α) = (sin α, 1 − cos α) / α`
//! the mean of the unit vector `e(u) = (cos u, sin u)` over `u ∈ [0, α]`:
//! `|f| ≤ 1`, and `f'(α) = α⁻² ∫₀^α (e(α) − e(u)) du` gives
//! `|f'| ≤ α⁻² ∫₀^α (α − u) du = 1/2`, so
//! `|ḋ| ≤ |Δs| + |s| |Δα| / 2` (plus `|s| |Δφ|` for the heading φ of the
//! omnidirectional vehicle, which turns `f` rigidly) **(λ1)**.
//!
//! Those joints translate without limits, and so does a prismatic joint
//! without (finite) limits; a revolute joint *below* one of them in the chain
//! then has no finite constant factor. Instead of failing, the recursion keeps
//! the sphere of the translation-free part and each query adds the
//! translation's reach over the segment, `E` (for a segment the largest
//! translation is at an end point, a convex function on a segment), to the
//! factors of the joints below: `λ_ik ← λ_ik + E` (the sphere `S(i,k+1)` grows
//! by `E`, and every factor is a distance from that sphere). The same
//! correction **(λ2)** keeps λ sound when a configuration lies outside the limits of
//! a prismatic joint. Revolute joints are always swept over a full turn, as
//! in the paper, so their limits are never assumed.
//!
//! Each joint's term is a length in the joint's own frame. The fixed origins
//! from that joint's link up to the frame of the bound map it on, and each
//! may stretch lengths by its bound `σ ≥ 1` on the largest singular value
//! (1 for a rotation, up to rounding), so the term is multiplied by the
//! product of those bounds: `λ_i = (… ((t_i σ_i + t_{i−1}) σ_{i−1} + …) σ_root`
//! for the terms `t_k` from the link's own joint down to its root's
//! **(λ3)**.
//!
//! **Posed λ.** A revolute factor `λ_ik` bounds the distance of link `i`
//! from axis `k` over *every* configuration of the joints between them;
//! along one segment the distance is known at its ends. In the frame of
//! link `k` the axis stays put and link `i` moves along curves no longer
//! than `L_k`, the bound of the joints below `k` (the partial sum of the
//! recursion before joint `k`'s term), so at every point of the segment
//! the distance is at most `min(d_k(q_a), d_k(q_b)) + L_k`, where `d_k(q)`
//! is the distance of link `i`'s enclosing sphere from axis `k` at the
//! poses of `q` (measured in the world, scaled up by the stretch of the
//! frames). [`CurveLengthBounds::lambda_posed`] uses the smaller of the two
//! levers for each revolute joint ([`CurveLengthBounds::levers`] computes
//! a configuration's levers once for [`CurveLengthBounds::lambda_levered`],
//! for callers that ask many bounds there): never above λ, and much below it for a
//! folded arm or a short segment, where the sphere's worst case over a full
//! turn of every joint between is far from the pose at hand **(λ4)**.
//!
//! # Speed μ (M4)
//!
//! Under the in-between motion, link `j` moves in its parent frame with a
//! constant translational velocity `v_j` and a constant angular velocity
//! `ω_j` about its own (moving) origin. The world velocity of a point `p` of
//! link `i` is (M4 eq. 7–8)
//!
//! `ṗ = Σ_{j ∈ chain(i)} R_{par j}(t') v_j + (R_{par j}(t') ω_j) × (p − o_j)`. **(μ1)**
//!
//! The lever `|p − o_j|` is bounded over `t' ∈ [t, 1]` by
//! `R_i + Σ_{m} max(|T_m(t)|, |T_m(1)|)` over the links `m` from `i` up to
//! the child of `j` (M4 eq. 9), where `R_i` is the largest distance of a
//! point of link `i` from its origin and `T_m(t') = T_m(0) + v_m t'` is the
//! origin of link `m` in its parent frame: linear in `t'`, so its largest
//! length over a segment is at an end **(μ2)**. Unprojected (M4 eq. 10
//! without `n`), by the triangle inequality on (μ1):
//!
//! `μ = Σ_j |v_j| + |ω_j| · lever_j ≥ sup |ṗ(t')|`. **(μ3)**
//!
//! **Projected.** Let `n_j(t')` be the unit direction `n` expressed in the
//! frame of `j`'s parent. Then `(R v_j)·n = v_j · n_j(t')` and
//! `|((R ω_j) × L)·n| = |L · (n_j × ω_j)| ≤ |L| |n_j × ω_j|`. The direction
//! `n_j(t')` is computed at `t' = t` (from the rotations at `t`) and drifts
//! from it by at most the angle the parent frame turns over `[t, 1]`:
//! `|n_j(t') − n_j(t)| ≤ δ_j = min(2, W_j (1 − t))`, where `W_j` is the sum of
//! `|ω_m|` over the strict ancestors `m` of `j` (the angular speed of a frame
//! is at most the sum of its chain's relative angular speeds) **(μ4)**.
//! Hence
//!
//! `μ_n = Σ_j min(|v_j|, |v_j·n_j(t)| + |v_j| δ_j) +
//!   min(|ω_j|, |ω_j × n_j(t)| + |ω_j| δ_j) · lever_j ≥ sup |ṗ(t')·n|`. **(μ5)**
//!
//! For a root link `δ = 0`: its translation is projected exactly and only
//! the part of its angular velocity normal to `n` counts, which is the
//! "first joint's axis is fixed in the world" saving; deeper links gain when
//! little rotation remains (`t` close to 1). Always `μ_n ≤ μ`.
//!
//! **Pairs.** Distances do not depend on the frame, so conservative
//! advancement of links `a` and `b` may be run in the frame of their deepest
//! common ancestor `c` (the world when they belong to different robots):
//! there the joints of `c` and above move nothing, and the closing speed is
//! bounded by the sum of the two chains' terms *below* `c` only (for two
//! links on one chain: only the joints between them), with `n` held fixed in
//! the frame of `c` from time `t` on; `W_j` then sums over the ancestors of
//! `j` below `c` only **(μ6)**. See [`MotionBounds::mu_relative_projected`].
//!
//! The projection on a direction is only valid for convex pieces (a
//! separating slab exists); for non-convex links use the unprojected bound
//! or apply the projected one per pair of convex bounding volumes
//!.
//!
//! ```
//! use armature_kinematics::prelude::*;
//! use glam::DVec3;
//! // A two-link planar arm, 1 m links, both joints about z.
//! let tree = KinematicTree::new(vec![
//!     LinkSpec::new("upper", None)
//!         .with_joint(Joint::revolute("shoulder", DVec3::Z, -3.0, 3.0)),
//!     LinkSpec::new("fore", Some("upper"))
//!         .with_joint(Joint::revolute("elbow", DVec3::Z, -3.0, 3.0))
//!         .with_origin(glam::DAffine3::from_translation(DVec3::X)),
//! ])?;
//! let points = vec![vec![DVec3::ZERO, DVec3::X], vec![DVec3::ZERO, DVec3::X]];
//! let lambda = CurveLengthBounds::new(&tree, &points)?;
//! // The tip is at most 2 m from the shoulder axis: a 0.5 rad swing of the
//! // shoulder moves it along a curve of length at most 1 m.
//! let l = lambda.lambda(1, &[0.0, 0.0], &[0.5, 0.0])?;
//! assert!((1.0..1.0 + 1e-9).contains(&l));
//!
//! let mu = MotionBounds::new(&tree, &points)?;
//! let motion = InBetweenMotion::new(&tree, &[0.0, 0.0], &[0.5, 0.0])?;
//! assert!(mu.mu(&motion, 1, 0.0)? >= 1.0);
//! # Ok::<(), KinematicsError>(())
//! ```

use crate::error::KinematicsError;
use crate::joint::JointType;
use crate::motion::{InBetweenMotion, LocalMotion};
use crate::tree::KinematicTree;
use glam::{DAffine3, DMat3, DQuat, DVec3};

/// Relative margin added to every derived length: a few hundred operations'
/// worth of rounding (each at most 2⁻⁵³ relative) stays far below it.
const REL_PAD: f64 = 1e-12;

/// Relative margin of the posed lever (λ4): the forward kinematics behind
/// it rounds along a whole chain, far below this.
const LEVER_PAD: f64 = 1e-9;

/// `x` rounded up by the margin, relative to `x` and to the magnitude
/// `scale` of the operands it was computed from (a difference of large
/// operands has an absolute error relative to them, not to the result).
fn pad(x: f64, scale: f64) -> f64 {
    x + REL_PAD * (x.abs() + scale.abs())
}

/// An upper bound on the largest singular value of `m`:
/// `σ² = λ_max(mᵀm) ≤ 1 + ‖mᵀm − I‖_∞`. Exactly 1 (padded) for a rotation;
/// the tree stores origins whose `mᵀm` is within a few ulps of the identity,
/// and nothing here relies on that.
pub(crate) fn stretch_of(m: &DMat3) -> f64 {
    let e = m.transpose() * *m - DMat3::IDENTITY;
    let inf = (0..3)
        .map(|r| e.row(r).abs().element_sum())
        .fold(0.0, f64::max);
    (1.0 + inf).sqrt() * (1.0 + REL_PAD)
}

/// Validates per-link point sets against the tree.
fn check_points<P: AsRef<[DVec3]>>(
    tree: &KinematicTree,
    points: &[P],
) -> Result<(), KinematicsError> {
    if points.len() != tree.len() {
        return Err(KinematicsError::BufferLength {
            what: "point sets",
            expected: tree.len(),
            got: points.len(),
        });
    }
    for (link, pts) in tree.links().iter().zip(points) {
        let pts = pts.as_ref();
        if pts.is_empty() {
            return Err(KinematicsError::EmptyPoints {
                link: link.name().to_owned(),
            });
        }
        for p in pts {
            if let Some(&value) = p.to_array().iter().find(|c| !c.is_finite()) {
                return Err(KinematicsError::NotFinite {
                    link: link.name().to_owned(),
                    field: "points",
                    value,
                });
            }
        }
    }
    Ok(())
}

/// The centre of an enclosing sphere of a non-empty point set (Ritter's two
/// sweeps). Any centre is sound: radii are always measured over the points.
fn ritter_centre(pts: &[DVec3]) -> DVec3 {
    let farthest = |from: DVec3| {
        pts.iter()
            .copied()
            .max_by(|a, b| {
                a.distance_squared(from)
                    .total_cmp(&b.distance_squared(from))
            })
            .unwrap_or(from)
    };
    let a = farthest(pts[0]);
    let b = farthest(a);
    let mut c = 0.5 * (a + b);
    let mut r = 0.5 * a.distance(b);
    for &p in pts {
        let d = p.distance(c);
        if d > r {
            let grown = 0.5 * (r + d);
            c += (p - c) * ((grown - r) / d);
            r = grown;
        }
    }
    // Coordinates near the f64 range can overflow the squares above.
    if c.is_finite() { c } else { pts[0] }
}

/// Link `i`'s geometry as seen by joint `k`: its points (`k = i`) or the
/// sphere `S(i, k+1)` in link `k`'s frame.
#[derive(Clone, Copy)]
enum Shape<'a> {
    Points(&'a [DVec3], DVec3),
    Ball(DVec3, f64),
}

impl Shape<'_> {
    fn centre(&self) -> DVec3 {
        match *self {
            Self::Points(_, c) | Self::Ball(c, _) => c,
        }
    }

    /// Largest distance from `x`.
    fn reach_from(&self, x: DVec3) -> f64 {
        match *self {
            Self::Points(p, _) => {
                let d = p.iter().map(|p| p.distance(x)).fold(0.0, f64::max);
                pad(
                    d,
                    x.length() + p.iter().map(|p| p.length()).fold(0.0, f64::max),
                )
            }
            Self::Ball(c, r) => pad(r + c.distance(x), c.length() + x.length()),
        }
    }

    /// Largest distance from the line through the origin along unit `a`.
    fn reach_from_line(&self, a: DVec3) -> f64 {
        let off = |p: DVec3| (p - a * p.dot(a)).length();
        match *self {
            Self::Points(p, _) => {
                let d = p.iter().map(|&p| off(p)).fold(0.0, f64::max);
                pad(d, p.iter().map(|p| p.length()).fold(0.0, f64::max))
            }
            Self::Ball(c, r) => pad(r + off(c), c.length()),
        }
    }
}

/// How a joint moves the link geometry, with what a query must read.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Sweep {
    Fixed,
    /// Revolute or continuous: one angle.
    Turn,
    /// Prismatic, statically swept over `mid ± half` (`0 ± 0` when
    /// unlimited).
    Slide {
        mid: f64,
        half: f64,
        limited: bool,
    },
    /// Spherical or orientation: a quaternion.
    Ball,
    /// Floating: translation then quaternion.
    Free,
    /// Location: a translation.
    Shift,
    /// Planar: (x, y, θ).
    Planar,
    /// Vehicle: (s, α).
    Vehicle,
    /// Omnidirectional vehicle: (φ, s, α).
    OmniVehicle,
}

impl Sweep {
    /// Whether the joint translates without a static bound (the query adds
    /// its reach `E`).
    const fn unbounded(self) -> bool {
        match self {
            Self::Slide { limited, .. } => !limited,
            Self::Free | Self::Shift | Self::Planar | Self::Vehicle | Self::OmniVehicle => true,
            Self::Fixed | Self::Turn | Self::Ball => false,
        }
    }
}

/// One joint of a link's chain in a [`CurveLengthBounds`]: the constant
/// factors of M2 Lemma 2 for that link and that joint.
///
/// The curve-length contribution of the joint is
/// `translation · (length of the translation the joint sweeps) +
/// rotation · (angle the joint sweeps)`, plus, for vehicles, the
/// `s_max`-terms of the [module docs](self):
///
/// - revolute, continuous: `translation = 0`, `rotation = λ_ik` (largest
///   distance of the link from the axis, for every value of the joints
///   between);
/// - prismatic, location: `translation = 1`, `rotation = 0`;
/// - spherical, orientation, floating: `rotation` = largest distance from the
///   joint's rotation centre (`translation = 1` for floating);
/// - planar, vehicle, omni-vehicle: `translation = 1`, `rotation` = largest
///   distance from the rotation axis (the plane normal, z);
/// - fixed: both 0.
///
/// When a joint that translates without limits lies between (see the
/// [module docs](self)), each query adds that joint's reach to the rotation
/// factors below it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CurveLengthFactor {
    /// The link whose joint this is (an ancestor of the link, or itself).
    pub joint_link: usize,
    /// Factor on the length of the joint's translation.
    pub translation: f64,
    /// Factor on the joint's rotation angle (radians).
    pub rotation: f64,
}

/// The posed levers (λ4) of one configuration, from
/// [`CurveLengthBounds::levers`] (every link) or filled link by link
/// ([`CurveLengthBounds::empty_levers`], [`CurveLengthBounds::fill_levers`]):
/// per link and joint of its chain, the distance of the link from the
/// joint's axis there. A link not filled has no posed lever, and its bound
/// from these levers is the unposed one (still a bound, only looser).
#[derive(Clone, Debug, PartialEq)]
pub struct PosedLevers {
    /// Indexed like the factors; `∞` where not computed.
    values: Vec<f64>,
    /// Per link: whether its chain's levers are in `values`.
    filled: Vec<bool>,
}

/// What a posed query knows of the segment's ends (λ4).
#[derive(Clone, Copy)]
enum Ends<'a> {
    /// The world poses of every link at both ends.
    Poses(&'a [DAffine3], &'a [DAffine3]),
    /// Their levers, indexed like the factors.
    Levers(&'a [f64], &'a [f64]),
}

/// Per-factor data a query needs besides the factors.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Entry {
    sweep: Sweep,
    /// Offset of the joint's values in a configuration.
    q: usize,
    /// Bound on the stretch of the fixed origin applied after the joint.
    stretch: f64,
    /// The joint's axis in its link's frame (revolute joints; zero
    /// otherwise), for the posed lever (λ4).
    axis: DVec3,
}

/// A sphere that encloses a link for every configuration within the joint
/// limits (M2's static pre-pass: two links whose spheres are disjoint can
/// never meet).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReachSphere {
    /// Centre, in the frame the link's root is attached to (the world).
    pub centre: DVec3,
    /// Radius.
    pub radius: f64,
}

/// The M2 curve-length bound λ, precomputed once per tree and per-link point
/// sets; see the [module docs](self) for the recursion and the guarantee.
///
/// Queries take the two end configurations of a joint-space straight segment
/// ([`crate::JointSpaceMotion`]) and allocate nothing.
#[derive(Clone, Debug, PartialEq)]
pub struct CurveLengthBounds {
    /// Factors of link `i`: `factors[start[i]..start[i + 1]]`, from the
    /// link's own joint down to its root's.
    factors: Vec<CurveLengthFactor>,
    entries: Vec<Entry>,
    start: Vec<usize>,
    reach: Vec<Option<ReachSphere>>,
    /// Each link's enclosing sphere of its points, in its own frame
    /// (centre, radius), for the posed lever (λ4).
    own: Vec<(DVec3, f64)>,
    /// Bound on how much a length in each link's frame may shrink or grow
    /// on its way to the world: the squared stretches of the origins of
    /// its chain (`1/σ_min ≤ σ_max²` for these near-rotations).
    frame_stretch: Vec<f64>,
    parent: Vec<Option<usize>>,
    depth: Vec<usize>,
    names: Vec<String>,
    nq: usize,
}

impl CurveLengthBounds {
    /// Runs COMPUTE-SPHERE for every link of `tree` over `points[i]`, the
    /// points of link `i` in its own frame.
    ///
    /// # Errors
    /// [`KinematicsError::BufferLength`] when `points.len() != tree.len()`,
    /// [`KinematicsError::EmptyPoints`] for a link without points,
    /// [`KinematicsError::NotFinite`] for a NaN or infinite coordinate.
    pub fn new<P: AsRef<[DVec3]>>(
        tree: &KinematicTree,
        points: &[P],
    ) -> Result<Self, KinematicsError> {
        check_points(tree, points)?;
        let links = tree.links();
        let total: usize = links.iter().map(|l| l.depth() + 1).sum();
        let mut factors = Vec::with_capacity(total);
        let mut entries = Vec::with_capacity(total);
        let mut start = Vec::with_capacity(links.len() + 1);
        let mut reach = Vec::with_capacity(links.len());
        let mut own = Vec::with_capacity(links.len());
        let mut frame_stretch: Vec<f64> = Vec::with_capacity(links.len());
        for (i, pts) in points.iter().enumerate() {
            start.push(factors.len());
            let pts = pts.as_ref();
            let centre = ritter_centre(pts);
            let mut shape = Shape::Points(pts, centre);
            own.push((centre, shape.reach_from(centre)));
            let s = stretch_of(&links[i].origin().matrix3);
            let above = links[i].parent().map_or(1.0, |p| frame_stretch[p]);
            frame_stretch.push(pad(above * s * s, 0.0));
            let mut bounded = true;
            for k in tree.ancestors(i) {
                let link = &links[k];
                let (factor, sweep, centre, radius) = sphere_step(link.joint(), shape);
                bounded &= !sweep.unbounded();
                let origin: &DAffine3 = link.origin();
                let stretch = stretch_of(&origin.matrix3);
                let centre_out = origin.transform_point3(centre);
                let scale = centre.length() + origin.translation.length();
                shape = Shape::Ball(centre_out, pad(radius * stretch, scale));
                factors.push(CurveLengthFactor {
                    joint_link: k,
                    translation: factor.0,
                    rotation: factor.1,
                });
                let axis = match link.joint().kind {
                    JointType::Revolute { axis } | JointType::Continuous { axis } => axis,
                    _ => DVec3::ZERO,
                };
                entries.push(Entry {
                    sweep,
                    q: tree.q_range(k).start,
                    stretch,
                    axis,
                });
            }
            reach.push(match shape {
                Shape::Ball(centre, radius) if bounded => Some(ReachSphere { centre, radius }),
                _ => None,
            });
        }
        start.push(factors.len());
        Ok(Self {
            factors,
            entries,
            start,
            reach,
            own,
            frame_stretch,
            parent: links.iter().map(crate::Link::parent).collect(),
            depth: links.iter().map(crate::Link::depth).collect(),
            names: links.iter().map(|l| l.name().to_owned()).collect(),
            nq: tree.nq(),
        })
    }

    /// Number of links.
    #[must_use]
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the tree had no links.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    fn check_link(&self, link: usize) -> Result<(), KinematicsError> {
        if link < self.len() {
            Ok(())
        } else {
            Err(KinematicsError::LinkIndex {
                index: link,
                len: self.len(),
            })
        }
    }

    /// The factors of link `link`, one per link of its chain (its own joint
    /// first, down to its root's; fixed joints give zeros).
    ///
    /// # Errors
    /// [`KinematicsError::LinkIndex`].
    pub fn factors(&self, link: usize) -> Result<&[CurveLengthFactor], KinematicsError> {
        self.check_link(link)?;
        Ok(&self.factors[self.start[link]..self.start[link + 1]])
    }

    /// A sphere enclosing link `link` for every configuration within the
    /// joint limits, `None` when a joint of its chain translates without
    /// limits (prismatic without finite limits, floating, planar, location,
    /// vehicles).
    ///
    /// # Errors
    /// [`KinematicsError::LinkIndex`].
    pub fn reach_sphere(&self, link: usize) -> Result<Option<ReachSphere>, KinematicsError> {
        self.check_link(link)?;
        Ok(self.reach[link])
    }

    fn check_configs(&self, qa: &[f64], qb: &[f64]) -> Result<(), KinematicsError> {
        for q in [qa, qb] {
            if q.len() != self.nq {
                return Err(KinematicsError::ConfigLength {
                    expected: self.nq,
                    got: q.len(),
                });
            }
        }
        Ok(())
    }

    /// Upper bound on the length of the curve traced by any point of link
    /// `link` while the configuration moves along the straight segment
    /// `q_a → q_b` (joint-space linear interpolation, slerp for quaternions,
    /// M2 Lemma 2), in the world frame.
    ///
    /// # Errors
    /// [`KinematicsError::LinkIndex`], [`KinematicsError::ConfigLength`], and
    /// for the values the link's chain reads:
    /// [`KinematicsError::ConfigNotFinite`], [`KinematicsError::BadQuaternion`].
    pub fn lambda(&self, link: usize, qa: &[f64], qb: &[f64]) -> Result<f64, KinematicsError> {
        self.check_link(link)?;
        self.check_configs(qa, qb)?;
        self.chain_lambda(link, None, qa, qb, None)
    }

    /// [`CurveLengthBounds::lambda`] tightened by the poses at the segment's
    /// ends (λ4 in the [module docs](self)): `poses_a` and `poses_b` are the
    /// world poses of every link at `qa` and `qb`, as
    /// [`KinematicTree::forward_kinematics`] or
    /// [`crate::JointSpaceMotion::poses_at`] write them. Never above
    /// [`CurveLengthBounds::lambda`]; poses of other configurations void
    /// the bound.
    ///
    /// # Errors
    /// As [`CurveLengthBounds::lambda`], and [`KinematicsError::BufferLength`]
    /// when a pose slice does not have one pose per link.
    pub fn lambda_posed(
        &self,
        link: usize,
        qa: &[f64],
        qb: &[f64],
        poses_a: &[DAffine3],
        poses_b: &[DAffine3],
    ) -> Result<f64, KinematicsError> {
        self.check_link(link)?;
        self.check_configs(qa, qb)?;
        self.check_poses(poses_a, poses_b)?;
        self.chain_lambda(link, None, qa, qb, Some(Ends::Poses(poses_a, poses_b)))
    }

    /// [`CurveLengthBounds::lambda_relative`] tightened by the poses at the
    /// segment's ends, as [`CurveLengthBounds::lambda_posed`].
    ///
    /// # Errors
    /// As [`CurveLengthBounds::lambda_posed`] for both links.
    pub fn lambda_relative_posed(
        &self,
        a: usize,
        b: usize,
        qa: &[f64],
        qb: &[f64],
        poses_a: &[DAffine3],
        poses_b: &[DAffine3],
    ) -> Result<f64, KinematicsError> {
        self.check_link(a)?;
        self.check_link(b)?;
        self.check_configs(qa, qb)?;
        self.check_poses(poses_a, poses_b)?;
        let c = common_ancestor(&self.parent, &self.depth, a, b);
        let ends = Some(Ends::Poses(poses_a, poses_b));
        Ok(self.chain_lambda(a, c, qa, qb, ends)? + self.chain_lambda(b, c, qa, qb, ends)?)
    }

    /// The posed levers (λ4) of every link and revolute joint of its chain
    /// at `poses` (the world poses of every link at one configuration), for
    /// [`CurveLengthBounds::lambda_levered`]: computed once per
    /// configuration, they serve every pair and every segment ending
    /// there, where [`CurveLengthBounds::lambda_posed`] recomputes them
    /// per call.
    ///
    /// # Errors
    /// [`KinematicsError::BufferLength`] unless one pose per link.
    pub fn levers(&self, poses: &[DAffine3]) -> Result<PosedLevers, KinematicsError> {
        self.check_poses(poses, poses)?;
        let mut levers = self.empty_levers();
        for link in 0..self.len() {
            self.fill_link_levers(link, poses, &mut levers);
        }
        Ok(levers)
    }

    /// Levers of one configuration with no link's filled in yet (see
    /// [`CurveLengthBounds::fill_levers`]): a query that needs the bounds
    /// of a few links pays for their chains only.
    #[must_use]
    pub fn empty_levers(&self) -> PosedLevers {
        PosedLevers {
            values: vec![f64::INFINITY; self.factors.len()],
            filled: vec![false; self.len()],
        }
    }

    /// Fills in the posed levers of `link`'s chain at `poses` (the world
    /// poses of every link at the levers' configuration), unless they are
    /// there already: [`CurveLengthBounds::lambda_levered`] for that link
    /// is then the bound from [`CurveLengthBounds::levers`].
    ///
    /// # Errors
    /// [`KinematicsError::LinkIndex`] for a link beyond the tree;
    /// [`KinematicsError::BufferLength`] unless one pose per link, or for
    /// levers of another model.
    pub fn fill_levers(
        &self,
        link: usize,
        poses: &[DAffine3],
        levers: &mut PosedLevers,
    ) -> Result<(), KinematicsError> {
        self.check_link(link)?;
        self.check_poses(poses, poses)?;
        self.check_levers(levers, levers)?;
        self.fill_link_levers(link, poses, levers);
        Ok(())
    }

    /// [`CurveLengthBounds::fill_levers`] on checked input.
    fn fill_link_levers(&self, link: usize, poses: &[DAffine3], levers: &mut PosedLevers) {
        if levers.filled[link] {
            return;
        }
        let centre = poses[link].transform_point3(self.own[link].0);
        for i in self.start[link]..self.start[link + 1] {
            let e = &self.entries[i];
            if e.sweep == Sweep::Turn {
                levers.values[i] =
                    self.posed_lever(link, self.factors[i].joint_link, e.axis, centre, poses);
            }
        }
        levers.filled[link] = true;
    }

    /// [`CurveLengthBounds::lambda_posed`] from the levers of the two
    /// ends' poses ([`CurveLengthBounds::levers`]); the same bound. Levers
    /// that do not hold the link's ([`CurveLengthBounds::fill_levers`])
    /// give the unposed bound, [`CurveLengthBounds::lambda`].
    ///
    /// # Errors
    /// As [`CurveLengthBounds::lambda`], and [`KinematicsError::BufferLength`]
    /// for levers of another model.
    pub fn lambda_levered(
        &self,
        link: usize,
        qa: &[f64],
        qb: &[f64],
        levers_a: &PosedLevers,
        levers_b: &PosedLevers,
    ) -> Result<f64, KinematicsError> {
        self.check_link(link)?;
        self.check_configs(qa, qb)?;
        self.check_levers(levers_a, levers_b)?;
        let ends = Some(Ends::Levers(&levers_a.values, &levers_b.values));
        self.chain_lambda(link, None, qa, qb, ends)
    }

    /// [`CurveLengthBounds::lambda_relative_posed`] from the levers of the
    /// two ends' poses; the same bound.
    ///
    /// # Errors
    /// As [`CurveLengthBounds::lambda_levered`] for both links.
    pub fn lambda_relative_levered(
        &self,
        a: usize,
        b: usize,
        qa: &[f64],
        qb: &[f64],
        levers_a: &PosedLevers,
        levers_b: &PosedLevers,
    ) -> Result<f64, KinematicsError> {
        self.check_link(a)?;
        self.check_link(b)?;
        self.check_configs(qa, qb)?;
        self.check_levers(levers_a, levers_b)?;
        let c = common_ancestor(&self.parent, &self.depth, a, b);
        let ends = Some(Ends::Levers(&levers_a.values, &levers_b.values));
        Ok(self.chain_lambda(a, c, qa, qb, ends)? + self.chain_lambda(b, c, qa, qb, ends)?)
    }

    fn check_levers(&self, a: &PosedLevers, b: &PosedLevers) -> Result<(), KinematicsError> {
        for l in [a, b] {
            for (what, expected, got) in [
                ("levers", self.factors.len(), l.values.len()),
                ("levers' links", self.len(), l.filled.len()),
            ] {
                if got != expected {
                    return Err(KinematicsError::BufferLength {
                        what,
                        expected,
                        got,
                    });
                }
            }
        }
        Ok(())
    }

    fn check_poses(
        &self,
        poses_a: &[DAffine3],
        poses_b: &[DAffine3],
    ) -> Result<(), KinematicsError> {
        for p in [poses_a, poses_b] {
            if p.len() != self.len() {
                return Err(KinematicsError::BufferLength {
                    what: "poses",
                    expected: self.len(),
                    got: p.len(),
                });
            }
        }
        Ok(())
    }

    /// The distance of link `link`'s points from the axis `axis` of the
    /// joint of link `k` (an ancestor or itself) at `poses`, as a length in
    /// link `k`'s frame (λ4): the world distance of the link's sphere
    /// centre from the axis, scaled by the frames' stretch, plus the
    /// sphere's radius. NaN poses give NaN (which `f64::min` passes over).
    fn posed_lever(
        &self,
        link: usize,
        k: usize,
        axis: DVec3,
        centre: DVec3,
        poses: &[DAffine3],
    ) -> f64 {
        let r = self.own[link].1;
        let origin = poses[k].translation;
        let u = poses[k].matrix3 * axis;
        let v = centre - origin;
        let dist = (v.cross(u).length_squared() / u.length_squared()).sqrt();
        let lever =
            (dist * self.frame_stretch[k] + r * self.frame_stretch[link]) * (1.0 + LEVER_PAD);
        pad(
            lever,
            centre.abs().max_element() + origin.abs().max_element() + r,
        )
    }

    /// [`CurveLengthBounds::lambda`] for every link, written into `out`
    /// (`out.len() == self.len()`).
    ///
    /// # Errors
    /// As [`CurveLengthBounds::lambda`], and [`KinematicsError::BufferLength`].
    pub fn lambda_all(
        &self,
        qa: &[f64],
        qb: &[f64],
        out: &mut [f64],
    ) -> Result<(), KinematicsError> {
        self.check_configs(qa, qb)?;
        if out.len() != self.len() {
            return Err(KinematicsError::BufferLength {
                what: "lambda",
                expected: self.len(),
                got: out.len(),
            });
        }
        for (link, o) in out.iter_mut().enumerate() {
            *o = self.chain_lambda(link, None, qa, qb, None)?;
        }
        Ok(())
    }

    /// The relative bound of M2 §IV.B for a pair: the sum of the curve-length
    /// bounds of links `a` and `b` measured in the frame of their deepest
    /// common ancestor (the world when they belong to different robots).
    /// For two links on one chain this is the bound on the motion of the
    /// upper one in the frame of the lower one: only the joints between them
    /// count. Lemma 1 holds with it in place of `λ_a + λ_b`, since distances
    /// do not depend on the frame.
    ///
    /// # Errors
    /// As [`CurveLengthBounds::lambda`] for both links.
    pub fn lambda_relative(
        &self,
        a: usize,
        b: usize,
        qa: &[f64],
        qb: &[f64],
    ) -> Result<f64, KinematicsError> {
        self.check_link(a)?;
        self.check_link(b)?;
        self.check_configs(qa, qb)?;
        let c = common_ancestor(&self.parent, &self.depth, a, b);
        Ok(self.chain_lambda(a, c, qa, qb, None)? + self.chain_lambda(b, c, qa, qb, None)?)
    }

    fn value(&self, q: &[f64], k: usize, link: usize) -> Result<f64, KinematicsError> {
        let v = q[k];
        if v.is_finite() {
            Ok(v)
        } else {
            Err(KinematicsError::ConfigNotFinite {
                index: k,
                link: self.names[link].clone(),
                value: v,
            })
        }
    }

    fn vec3(&self, q: &[f64], k: usize, link: usize) -> Result<DVec3, KinematicsError> {
        Ok(DVec3::new(
            self.value(q, k, link)?,
            self.value(q, k + 1, link)?,
            self.value(q, k + 2, link)?,
        ))
    }

    fn quat(&self, q: &[f64], k: usize, link: usize) -> Result<DQuat, KinematicsError> {
        let v = DQuat::from_xyzw(
            self.value(q, k, link)?,
            self.value(q, k + 1, link)?,
            self.value(q, k + 2, link)?,
            self.value(q, k + 3, link)?,
        );
        let norm = v.length();
        // Same threshold as `KinematicTree::validate_config`.
        if norm.is_nan() || norm <= 1e-6 {
            return Err(KinematicsError::BadQuaternion {
                index: k,
                link: self.names[link].clone(),
                norm,
            });
        }
        Ok(v / norm)
    }

    /// Angle of the shortest rotation from the `k`-quaternion of `qa` to
    /// that of `qb`: the angle slerp sweeps.
    fn slerp_angle(
        &self,
        qa: &[f64],
        qb: &[f64],
        k: usize,
        link: usize,
    ) -> Result<f64, KinematicsError> {
        let (a, b) = (self.quat(qa, k, link)?, self.quat(qb, k, link)?);
        let rel = a.conjugate() * b;
        let angle = 2.0 * DVec3::new(rel.x, rel.y, rel.z).length().atan2(rel.w.abs());
        Ok(pad(angle, 1.0))
    }

    /// λ of `link` in the frame of `stop` (an ancestor, or `None` for the
    /// world): the factors of the joints from `link` up to, not including,
    /// `stop`; with the poses at both ends, each revolute factor is the
    /// smaller of it and the posed lever (λ4).
    fn chain_lambda(
        &self,
        link: usize,
        stop: Option<usize>,
        qa: &[f64],
        qb: &[f64],
        ends: Option<Ends<'_>>,
    ) -> Result<f64, KinematicsError> {
        let range = self.start[link]..self.start[link + 1];
        let first = range.start;
        let mut total = 0.0;
        // Growth of the sphere S(i, k+1) by the reach of unbounded
        // translations above joint k (module docs).
        let mut grow = 0.0;
        // The link's sphere centre at both ends (λ4), placed once.
        let c = self.own[link].0;
        let centres = match ends {
            Some(Ends::Poses(pa, pb)) => {
                [pa[link].transform_point3(c), pb[link].transform_point3(c)]
            }
            _ => [DVec3::ZERO; 2],
        };
        for (idx, (f, e)) in self.factors[range.clone()]
            .iter()
            .zip(&self.entries[range])
            .enumerate()
        {
            let k = f.joint_link;
            if Some(k) == stop {
                break;
            }
            // (λ2): every rotation factor is a distance from S(i, k+1).
            let rot = f.rotation + grow;
            let (term, reach) = match e.sweep {
                Sweep::Fixed => (0.0, 0.0),
                Sweep::Turn => {
                    let d = (self.value(qb, e.q, k)? - self.value(qa, e.q, k)?).abs();
                    // (λ4): `total` is the bound in link k's frame so far.
                    let at_ends = match ends {
                        Some(_) if d == 0.0 => None,
                        Some(Ends::Poses(pa, pb)) => {
                            let [ca, cb] = centres;
                            let at = |c, p| self.posed_lever(link, k, e.axis, c, p);
                            Some(at(ca, pa).min(at(cb, pb)))
                        }
                        Some(Ends::Levers(la, lb)) => Some(la[first + idx].min(lb[first + idx])),
                        None => None,
                    };
                    let lever = at_ends.map_or(rot, |l| rot.min(pad(l + total, 0.0)));
                    (lever * d, 0.0)
                }
                Sweep::Slide { mid, half, .. } => {
                    let (a, b) = (self.value(qa, e.q, k)?, self.value(qb, e.q, k)?);
                    let beyond = (a - mid).abs().max((b - mid).abs()) - half;
                    ((b - a).abs(), beyond.max(0.0))
                }
                Sweep::Ball => (rot * self.slerp_angle(qa, qb, e.q, k)?, 0.0),
                Sweep::Free => {
                    let (a, b) = (self.vec3(qa, e.q, k)?, self.vec3(qb, e.q, k)?);
                    let theta = self.slerp_angle(qa, qb, e.q + 3, k)?;
                    (a.distance(b) + rot * theta, a.length().max(b.length()))
                }
                Sweep::Shift => {
                    let (a, b) = (self.vec3(qa, e.q, k)?, self.vec3(qb, e.q, k)?);
                    (a.distance(b), a.length().max(b.length()))
                }
                Sweep::Planar => {
                    let (a, b) = (self.vec3(qa, e.q, k)?, self.vec3(qb, e.q, k)?);
                    let (ta, tb) = (a.truncate(), b.truncate());
                    let d = ta.distance(tb) + rot * (b.z - a.z).abs();
                    (d, ta.length().max(tb.length()))
                }
                Sweep::Vehicle | Sweep::OmniVehicle => {
                    let at = usize::from(e.sweep == Sweep::OmniVehicle);
                    let (sa, sb) = (self.value(qa, e.q + at, k)?, self.value(qb, e.q + at, k)?);
                    let da =
                        (self.value(qb, e.q + at + 1, k)? - self.value(qa, e.q + at + 1, k)?).abs();
                    let s_max = sa.abs().max(sb.abs());
                    let heading = if at == 1 {
                        s_max * (self.value(qb, e.q, k)? - self.value(qa, e.q, k)?).abs()
                    } else {
                        0.0
                    };
                    // (λ1); |d(s, α)| ≤ |s| is the reach.
                    ((sb - sa).abs() + heading + (rot + 0.5 * s_max) * da, s_max)
                }
            };
            // The joint's term is a length in its own frame; the origins from
            // its own up to `stop` map it on, each stretching it by at most
            // its `stretch` (Horner: each term is multiplied by all of them).
            total = pad((total + term) * e.stretch, 0.0);
            grow = pad((grow + reach) * e.stretch, 0.0);
        }
        Ok(pad(total, 0.0))
    }
}

/// One step of COMPUTE-SPHERE at the joint of link `k`: the factors
/// `(translation, rotation)`, the sweep kind, and the translation-free part
/// of `S(i,k)` in the joint frame (centre, radius).
fn sphere_step(joint: &crate::Joint, shape: Shape<'_>) -> ((f64, f64), Sweep, DVec3, f64) {
    let c = shape.centre();
    // Sweep about the line through the origin along `a`: the centre moves
    // to the projection of `c`, the radius is the reach from it (M2 Fig. 8).
    let about = |a: DVec3| {
        let p = a * c.dot(a);
        (shape.reach_from_line(a), p, shape.reach_from(p))
    };
    match joint.kind {
        JointType::Fixed => ((0.0, 0.0), Sweep::Fixed, c, shape.reach_from(c)),
        JointType::Revolute { axis } | JointType::Continuous { axis } => {
            let (rot, p, r) = about(axis);
            ((0.0, rot), Sweep::Turn, p, r)
        }
        JointType::Prismatic { axis } => {
            let (mid, half, limited) = match joint.limits {
                Some(l) if (l.upper - l.lower).is_finite() => (
                    0.5 * l.lower + 0.5 * l.upper,
                    0.5 * (l.upper - l.lower),
                    true,
                ),
                _ => (0.0, 0.0, false),
            };
            let r = pad(shape.reach_from(c) + half, mid.abs());
            let sweep = Sweep::Slide { mid, half, limited };
            ((1.0, 0.0), sweep, c + axis * mid, r)
        }
        JointType::Spherical | JointType::OrientationUncertain { .. } => {
            let r = shape.reach_from(DVec3::ZERO);
            ((0.0, r), Sweep::Ball, DVec3::ZERO, r)
        }
        JointType::Floating => {
            let r = shape.reach_from(DVec3::ZERO);
            ((1.0, r), Sweep::Free, DVec3::ZERO, r)
        }
        JointType::LocationUncertain { .. } => ((1.0, 0.0), Sweep::Shift, c, shape.reach_from(c)),
        JointType::Planar { normal } => {
            let (rot, p, r) = about(normal);
            ((1.0, rot), Sweep::Planar, p, r)
        }
        JointType::Vehicle => {
            let (rot, p, r) = about(DVec3::Z);
            ((1.0, rot), Sweep::Vehicle, p, r)
        }
        JointType::OmniVehicle => {
            let (rot, p, r) = about(DVec3::Z);
            ((1.0, rot), Sweep::OmniVehicle, p, r)
        }
    }
}

/// The deepest common ancestor of `a` and `b` (or one of them), `None` when
/// they have different roots.
fn common_ancestor(parent: &[Option<usize>], depth: &[usize], a: usize, b: usize) -> Option<usize> {
    let (mut a, mut b) = (a, b);
    while depth[a] > depth[b] {
        a = parent[a]?;
    }
    while depth[b] > depth[a] {
        b = parent[b]?;
    }
    while a != b {
        a = parent[a]?;
        b = parent[b]?;
    }
    Some(a)
}

/// `R(t)ᵀ n` for the rotation `R(t) = Rot(axis, ω t) · R₀` of a local
/// motion: `n` expressed in the parent frame taken into the link frame
/// (Rodrigues' formula, then `R₀ᵀ`; no matrix product).
fn descend(m: &LocalMotion, t: f64, n: DVec3) -> DVec3 {
    let turned = if m.omega == 0.0 {
        n
    } else {
        let (s, c) = (-(m.omega * t)).sin_cos();
        let a = m.axis;
        n * c + a.cross(n) * s + a * (a.dot(n) * (1.0 - c))
    };
    let r = &m.rot0;
    DVec3::new(
        r.x_axis.dot(turned),
        r.y_axis.dot(turned),
        r.z_axis.dot(turned),
    )
}

/// Largest length of the link origin `T(t') = T(0) + v t'` over `[t, 1]`
/// (a convex function on a segment: largest at an end; (μ2)).
fn origin_reach(m: &LocalMotion, t: f64, speed: f64) -> f64 {
    origin_reach_until(m, t, 1.0, speed)
}

/// Largest length of the link origin `T(t')` over `[t, t_end]`.
fn origin_reach_until(m: &LocalMotion, t: f64, t_end: f64, speed: f64) -> f64 {
    let a = (m.trans0 + m.velocity * t).length();
    let b = (m.trans0 + m.velocity * t_end).length();
    let reach = a.max(b);
    // |T(0)| ≤ reach + speed bounds the operands' size.
    pad(reach, reach + speed)
}

/// The acceleration bound of [`MotionBounds::acceleration`] for the points
/// within `lever` of the last link of `chain` (its chain of links, root
/// first) over `window`, before the rotations' stretch and the padding:
/// `Σ_j W_j⁻ |v_j| + |ω_j| (W_j⁻ lever_j + |ṙ_j|)` in one pass up the
/// chain. The levers (from `lever`) and the speeds below each joint are
/// running sums from the link, and the angular speed above it is the
/// chain's total less what is below (raised by the subtraction's
/// rounding).
pub(crate) fn chain_acceleration(
    local: &[LocalMotion],
    chain: &[usize],
    lever: f64,
    window: [f64; 2],
) -> f64 {
    let w_all: f64 = chain.iter().map(|&k| local[k].omega.abs()).sum();
    let mut lever = lever;
    let mut below = 0.0;
    let mut w_below = 0.0;
    let mut total = 0.0;
    for &k in chain.iter().rev() {
        let m = &local[k];
        let (sp, w) = (m.velocity.length(), m.omega.abs());
        w_below += w;
        let w_above = (w_all - w_below).max(0.0) + 4.0 * f64::EPSILON * w_all;
        let rdot = (w_above + w) * lever + below;
        total += w_above * sp + w * (w_above * lever + rdot);
        below += sp + w * lever;
        lever += origin_reach_until(m, window[0], window[1], sp);
    }
    total
}

/// The M4 motion bound μ, precomputed once per tree and per-link point sets
/// (each link's largest point distance from its origin, each link's chain,
/// and a bound on the stretch of the tree's fixed origins); see the
/// [module docs](self) for the derivation and the guarantee. Queries take an
/// [`InBetweenMotion`] of the same tree and allocate nothing.
#[derive(Clone, Debug, PartialEq)]
pub struct MotionBounds {
    radius: Vec<f64>,
    parent: Vec<Option<usize>>,
    depth: Vec<usize>,
    /// Chain of link `i`, root first: `chains[start[i]..start[i + 1]]`.
    chains: Vec<usize>,
    start: Vec<usize>,
    /// Bound on the product of the largest singular values of the rotations
    /// along any chain, padded for the summation.
    stretch: f64,
    /// Slack for the projected directions: how far `Mᵀ n` may be from a
    /// rotated unit vector when the chain's matrices are `stretch` away
    /// from orthonormal, plus rounding.
    skew: f64,
}

impl MotionBounds {
    /// Precomputes the bounds for `tree` with `points[i]` the points of link
    /// `i` in its own frame.
    ///
    /// # Errors
    /// [`KinematicsError::BufferLength`] when `points.len() != tree.len()`,
    /// [`KinematicsError::EmptyPoints`] for a link without points,
    /// [`KinematicsError::NotFinite`] for a NaN or infinite coordinate.
    pub fn new<P: AsRef<[DVec3]>>(
        tree: &KinematicTree,
        points: &[P],
    ) -> Result<Self, KinematicsError> {
        check_points(tree, points)?;
        let radius = points
            .iter()
            .map(|p| {
                let r = p.as_ref().iter().map(|p| p.length()).fold(0.0, f64::max);
                pad(r, 0.0)
            })
            .collect();
        let links = tree.links();
        let mut along = vec![1.0; links.len()];
        let mut stretch = 1.0f64;
        let mut chains = Vec::with_capacity(links.iter().map(|l| l.depth() + 1).sum());
        let mut start = Vec::with_capacity(links.len() + 1);
        for (i, l) in links.iter().enumerate() {
            // Cubed: the origin's rotation, and the local motion's axis
            // (the joint axis turned by it) in `from_axis_angle`.
            let s = stretch_of(&l.origin().matrix3).powi(3);
            along[i] = s * l.parent().map_or(1.0, |p| along[p]);
            let depth = l.depth() as f64 + 2.0;
            stretch = stretch.max(along[i] * (1.0 + 4.0 * REL_PAD * depth));
            start.push(chains.len());
            let at = chains.len();
            chains.extend(tree.ancestors(i));
            chains[at..].reverse();
        }
        start.push(chains.len());
        let depth = links.iter().map(crate::Link::depth).max().unwrap_or(0) as f64;
        Ok(Self {
            radius,
            parent: links.iter().map(crate::Link::parent).collect(),
            depth: links.iter().map(crate::Link::depth).collect(),
            chains,
            start,
            stretch,
            skew: 8.0 * (stretch - 1.0) + REL_PAD * (depth + 1.0),
        })
    }

    /// Number of links.
    #[must_use]
    pub fn len(&self) -> usize {
        self.radius.len()
    }

    /// Whether the tree had no links.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.radius.is_empty()
    }

    /// Largest distance of a point of link `link` from the link origin.
    ///
    /// # Errors
    /// [`KinematicsError::LinkIndex`].
    pub fn link_radius(&self, link: usize) -> Result<f64, KinematicsError> {
        self.radius
            .get(link)
            .copied()
            .ok_or(KinematicsError::LinkIndex {
                index: link,
                len: self.len(),
            })
    }

    fn check(
        &self,
        motion: &InBetweenMotion,
        links: [usize; 2],
        t: f64,
    ) -> Result<(), KinematicsError> {
        if motion.parents() != self.parent.as_slice() {
            return Err(KinematicsError::MotionMismatch {
                links: motion.parents().len(),
                expected: self.len(),
            });
        }
        for link in links {
            self.link_radius(link)?;
        }
        if !(0.0..=1.0).contains(&t) {
            return Err(KinematicsError::BadTime { t0: t, t1: 1.0 });
        }
        Ok(())
    }

    /// Upper bound on the speed `|ṗ(t')|` of every point of link `link`, for
    /// every `t' ∈ [t, 1]`, under `motion` (M4 eq. 7–10, unprojected).
    ///
    /// # Errors
    /// [`KinematicsError::LinkIndex`], [`KinematicsError::BadTime`] unless
    /// `0 ≤ t ≤ 1`, [`KinematicsError::MotionMismatch`] when the motion is
    /// not one of this tree.
    pub fn mu(
        &self,
        motion: &InBetweenMotion,
        link: usize,
        t: f64,
    ) -> Result<f64, KinematicsError> {
        self.check(motion, [link, link], t)?;
        Ok(self.finish(self.chain_bound(motion, link, None, t, None)))
    }

    /// Upper bound on the projected speed `|ṗ(t')·n|` of every point of link
    /// `link`, for every `t' ∈ [t, 1]`, with `n` a fixed world direction
    /// (normalised here). Never larger than [`MotionBounds::mu`]; see the
    /// [module docs](self) for the derivation (exact for the root's
    /// translation, drift-bounded for deeper links).
    ///
    /// # Errors
    /// As [`MotionBounds::mu`], and [`KinematicsError::BadDirection`] for a
    /// zero or non-finite `n`.
    pub fn mu_projected(
        &self,
        motion: &InBetweenMotion,
        link: usize,
        t: f64,
        n: DVec3,
    ) -> Result<f64, KinematicsError> {
        self.check(motion, [link, link], t)?;
        let n = unit_direction(n)?;
        Ok(self.finish(self.chain_bound(motion, link, None, t, Some(n))))
    }

    /// Upper bound on the closing speed of links `a` and `b`: for every
    /// `t' ∈ [t, 1]` and points `p_a`, `p_b` of the two links,
    /// `|ṗ_a(t') − ṗ_b(t')|` measured in the frame of their deepest common
    /// ancestor `c` (the world for different robots; for two links on one
    /// chain, the lower one). Only the joints below `c` count; never larger
    /// than the sum of the two links' [`MotionBounds::mu`].
    ///
    /// For conservative advancement this is as good as a world bound:
    /// distances do not depend on the frame, so from a distance `d` at time
    /// `t` the two links cannot touch before `t + d / μ`.
    ///
    /// # Errors
    /// As [`MotionBounds::mu`] for both links.
    pub fn mu_relative(
        &self,
        motion: &InBetweenMotion,
        a: usize,
        b: usize,
        t: f64,
    ) -> Result<f64, KinematicsError> {
        self.check(motion, [a, b], t)?;
        let c = common_ancestor(&self.parent, &self.depth, a, b);
        let sa = self.chain_bound(motion, a, c, t, None);
        let sb = self.chain_bound(motion, b, c, t, None);
        Ok(self.finish(sa + sb))
    }

    /// Upper bound on the projected closing speed of links `a` and `b`, the
    /// μ of conservative advancement (M4 §6) for the pair: for every
    /// `t' ∈ [t, 1]` and points `p_a`, `p_b`,
    /// `|(ṗ_a(t') − ṗ_b(t'))·n_c|`, where velocities are taken in the frame
    /// of the deepest common ancestor `c` of the two links (the world for
    /// different robots) and `n_c` is the world direction `n` at time `t`
    /// (normalised here) held fixed in that frame.
    ///
    /// With `d` the distance at time `t` and `n` the unit direction of the
    /// closest points, two convex pieces cannot touch before `t + d / μ`:
    /// the slab that separates them at `t`, fixed in `c`'s frame, closes no
    /// faster than `μ`, and distances do not depend on the frame. Valid only
    /// for convex pieces (see the [module docs](self)).
    ///
    /// # Errors
    /// As [`MotionBounds::mu_projected`] for both links.
    pub fn mu_relative_projected(
        &self,
        motion: &InBetweenMotion,
        a: usize,
        b: usize,
        t: f64,
        n: DVec3,
    ) -> Result<f64, KinematicsError> {
        self.check(motion, [a, b], t)?;
        let n = unit_direction(n)?;
        let c = common_ancestor(&self.parent, &self.depth, a, b);
        // `n` in the frame of `c` at time `t`.
        let n_c = c.map_or(n, |c| {
            self.chain(c)
                .iter()
                .fold(n, |n, &k| descend(&motion.local()[k], t, n))
        });
        let sa = self.chain_bound(motion, a, c, t, Some(n_c));
        let sb = self.chain_bound(motion, b, c, t, Some(n_c));
        Ok(self.finish(sa + sb))
    }

    fn chain(&self, link: usize) -> &[usize] {
        &self.chains[self.start[link]..self.start[link + 1]]
    }

    /// Prepares the projected closing-speed bound of link `a` against a
    /// static or rigidly moving object (`b = None`), or against link `b`,
    /// over `[t, 1]`, for many directions and pieces: C2A-style
    /// advancement bounds every pair of convex bounding volumes on the
    /// front of a distance traversal with its own direction and its own
    /// lever, and would repeat the chain walk of
    /// [`MotionBounds::mu_relative_projected`] for each. Here the walk
    /// (each joint's parent rotation at `t`, drift, speeds and levers) is
    /// done once; [`PairSpeed::bound`] then costs a few dot products per
    /// joint. The bound is that of (μ5)–(μ6) with the link radius `R`
    /// replaced by the reach of the piece (any bound on `|p|` for the
    /// piece's points in the link frame), which is the only place `R`
    /// enters.
    ///
    /// The bound holds for `t' ∈ [t, t_end]` only, and is the tighter the
    /// shorter that window: the directions' drift (μ4) grows with it. A
    /// conservative-advancement step from `t` may use it for steps up to
    /// `t_end − t`; `t_end = 1` gives the bounds of the other methods.
    ///
    /// `out` is overwritten; it keeps its buffer, so a query reusing one
    /// allocates only while it grows.
    ///
    /// # Errors
    /// As [`MotionBounds::mu_relative`] for both links, and
    /// [`KinematicsError::BadTime`] unless `t ≤ t_end ≤ 1`.
    pub fn pair_speed(
        &self,
        motion: &InBetweenMotion,
        a: usize,
        b: Option<usize>,
        t: f64,
        t_end: f64,
        out: &mut PairSpeed,
    ) -> Result<(), KinematicsError> {
        self.check(motion, [a, b.unwrap_or(a)], t)?;
        if !(t <= t_end && t_end <= 1.0) {
            return Err(KinematicsError::BadTime { t0: t, t1: t_end });
        }
        let stop = b.and_then(|b| common_ancestor(&self.parent, &self.depth, a, b));
        out.terms.clear();
        self.push_terms(motion, a, stop, [t, t_end], &mut out.terms);
        out.split = out.terms.len();
        out.radius = [self.radius[a], 0.0];
        out.window = t_end - t;
        out.twist = [Some(self.twist(motion, a, [t, t_end])), None];
        if let Some(b) = b {
            out.twist[1] = Some(self.twist(motion, b, [t, t_end]));
            self.push_terms(motion, b, stop, [t, t_end], &mut out.terms);
            out.radius[1] = self.radius[b];
        }
        out.stretch = self.stretch;
        out.world_fixed = stop.is_none();
        out.drift = out
            .twist
            .iter()
            .flatten()
            .map(|tw| tw.accel * out.window)
            .sum();
        Ok(())
    }

    /// Upper bound on the acceleration `|p̈(t')|` of every point of link
    /// `link` (world frame), for every `t' ∈ [t, t_end]`.
    ///
    /// With `u_j = R_{par j} v_j`, `Ω_j = R_{par j} ω_j` and `r_j = p − o_j`,
    /// differentiating (μ1) gives
    /// `p̈ = Σ_j W_{par j} × u_j + (W_{par j} × Ω_j) × r_j + Ω_j × ṙ_j`,
    /// where `W_{par j}` is the angular velocity of `j`'s parent frame (at
    /// most `Σ_{m above j} |ω_m|`), `|r_j| ≤ lever_j` (μ2) and
    /// `ṙ_j = W_j × r_j + Σ_{k below j} u_k + Ω_k × r_k` (the velocity of
    /// `p` relative to `o_j`), so
    /// `|p̈| ≤ Σ_j W_j⁻ |v_j| + |ω_j| (W_j⁻ lever_j + |ṙ_j|)`, with `W_j⁻`
    /// the sum over the joints above `j` and
    /// `|ṙ_j| ≤ (W_j⁻ + |ω_j|) lever_j + Σ_{k below j} |v_k| + |ω_k| lever_k`.
    /// The origins' stretch enters squared.
    ///
    /// # Errors
    /// As [`MotionBounds::mu`], and [`KinematicsError::BadTime`] unless
    /// `t ≤ t_end ≤ 1`.
    pub fn acceleration(
        &self,
        motion: &InBetweenMotion,
        link: usize,
        t: f64,
        t_end: f64,
    ) -> Result<f64, KinematicsError> {
        self.check(motion, [link, link], t)?;
        if !(t <= t_end && t_end <= 1.0) {
            return Err(KinematicsError::BadTime { t0: t, t1: t_end });
        }
        Ok(self.acceleration_bound(motion, link, [t, t_end]))
    }

    fn acceleration_bound(&self, motion: &InBetweenMotion, link: usize, window: [f64; 2]) -> f64 {
        let total = chain_acceleration(motion.local(), self.chain(link), self.radius[link], window);
        pad(total * self.stretch * self.stretch, 0.0)
    }

    /// Link `link`'s twist at `t` ([`Twist`]), from its chain's local
    /// motions: each origin's velocity and angular velocity propagated
    /// down from the root (`v_child = v + ω × (o_child − o) + R v_j`,
    /// `ω_child = ω + R ω_j`).
    fn twist(&self, motion: &InBetweenMotion, link: usize, window: [f64; 2]) -> Twist {
        let local = motion.local();
        let t = window[0];
        let mut pose = DAffine3::IDENTITY;
        let mut velocity = DVec3::ZERO;
        let mut omega = DVec3::ZERO;
        for &k in self.chain(link) {
            let m = &local[k];
            let child = pose * m.pose(t);
            velocity +=
                omega.cross(child.translation - pose.translation) + pose.matrix3 * m.velocity;
            omega += pose.matrix3 * m.angular_velocity();
            pose = child;
        }
        Twist {
            rot: pose.matrix3,
            velocity,
            omega,
            accel: self.acceleration_bound(motion, link, window),
            pad: 8.0 * (self.stretch - 1.0) + self.skew + 1e-9,
            speed: velocity.length(),
            turn: omega.length(),
        }
    }

    /// The terms of [`MotionBounds::chain_bound`] over the window
    /// `[t, t_end]` for the joints of `link`'s chain below `stop`, with
    /// each joint's parent rotation at `t` in place of the running
    /// direction (so any direction can be projected later) and each lever
    /// without the link radius.
    fn push_terms(
        &self,
        motion: &InBetweenMotion,
        link: usize,
        stop: Option<usize>,
        [t, t_end]: [f64; 2],
        out: &mut Vec<ProjectedTerm>,
    ) {
        let local = motion.local();
        let from = stop.map_or(0, |c| self.depth[c] + 1);
        let remaining = t_end - t;
        let chain = self.chain(link);
        // The rotation of the parent of the next joint at `t`, in the world:
        // the product down to `stop`, then on down the chain.
        let mut rot = DMat3::IDENTITY;
        for &k in &chain[..from] {
            rot *= local[k].pose(t).matrix3;
        }
        let first = out.len();
        let mut w_above = 0.0;
        for &k in &chain[from..] {
            let m = &local[k];
            let speed = m.velocity.length();
            let w = m.omega.abs();
            out.push(ProjectedTerm {
                parent: rot,
                velocity: m.velocity,
                speed,
                axis: m.axis,
                omega: w,
                drift: (w_above * remaining * (1.0 + REL_PAD) + self.skew).min(2.0),
                // Filled below: the origin reaches of the links under it.
                lever: origin_reach_until(m, t, t_end, speed),
            });
            w_above += w;
            rot *= m.pose(t).matrix3;
        }
        // Each joint's lever (less `R`): the origin reaches of the links
        // strictly below it in the chain (the running sums of
        // `chain_bound`).
        let mut below = 0.0;
        for term in out[first..].iter_mut().rev() {
            let reach = term.lever;
            term.lever = below;
            below += reach;
        }
    }

    fn finish(&self, sum: f64) -> f64 {
        pad(sum * self.stretch, 0.0)
    }

    /// The terms of the joints of `link`'s chain below `stop` (all of them
    /// for `None`), walking down from `stop`: unprojected, or projected on
    /// `n`, the unit direction in `stop`'s frame (the world's for `None`)
    /// at time `t`, held fixed in that frame.
    ///
    /// Walking down makes every quantity a running sum (module docs):
    /// `W_j` (the angular speed above `j`, for the drift `δ_j`) is the sum of
    /// `|ω|` over the joints already visited, and
    /// `Σ_j B_j · lever_j = R · Σ_j B_j + Σ_m reach_m · Σ_{j above m} B_j`,
    /// since the origin reach of link `m` is in the lever of every joint
    /// above it and the link's own radius `R` in all of them.
    fn chain_bound(
        &self,
        motion: &InBetweenMotion,
        link: usize,
        stop: Option<usize>,
        t: f64,
        n: Option<DVec3>,
    ) -> f64 {
        let local = motion.local();
        let from = stop.map_or(0, |c| self.depth[c] + 1);
        let remaining = 1.0 - t;
        let mut n = n;
        let mut w_above = 0.0;
        let mut b_above = 0.0;
        let mut sum = 0.0;
        for &k in &self.chain(link)[from..] {
            let m = &local[k];
            let speed = m.velocity.length();
            let w = m.omega.abs();
            // |ω| = |omega| for a unit axis; the axis' rounding and the
            // origins' stretch are in `self.stretch`.
            let (a, b) = match n {
                // (μ3)
                None => (speed, w),
                Some(dir) => {
                    // `dir` is n in the parent frame of k at time t; it
                    // drifts by at most δ over [t, 1] (μ4, μ6), giving the
                    // terms of (μ5).
                    let drift = (w_above * remaining * (1.0 + REL_PAD) + self.skew).min(2.0);
                    let a = speed.min(m.velocity.dot(dir).abs() + speed * drift);
                    let b = w.min(w * (m.axis.cross(dir).length() + drift));
                    n = Some(descend(m, t, dir));
                    (a, b)
                }
            };
            if b_above > 0.0 {
                sum += origin_reach(m, t, speed) * b_above;
            }
            sum += a;
            b_above += b;
            w_above += w;
        }
        sum + self.radius[link] * b_above
    }
}

/// One joint's part of a [`PairSpeed`].
#[derive(Clone, Copy, Debug, PartialEq)]
struct ProjectedTerm {
    /// World rotation of the joint's parent frame at `t` (the identity, or
    /// the common ancestor's, above the chain's top joint).
    parent: DMat3,
    /// Translational velocity `v_j` (parent frame) and its length.
    velocity: DVec3,
    speed: f64,
    /// Unit rotation axis (parent frame) and `|ω_j|`.
    axis: DVec3,
    omega: f64,
    /// `δ_j` of (μ4) with the origins' skew.
    drift: f64,
    /// The lever `lever_j` less the link radius `R`.
    lever: f64,
}

/// The projected closing-speed bound of one pair at one time, prepared by
/// [`MotionBounds::pair_speed`] for many directions and pieces.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PairSpeed {
    terms: Vec<ProjectedTerm>,
    /// `terms[..split]` are the first link's, the rest the second's.
    split: usize,
    /// The links' radii `R` (the largest reach a piece is given).
    radius: [f64; 2],
    stretch: f64,
    /// Each link's twist at `t` (none for an object).
    twist: [Option<Twist>; 2],
    /// `t_end − t`.
    window: f64,
    /// The links' acceleration terms over the window, summed.
    drift: f64,
    /// Whether the links have no common ancestor (or the second side is
    /// an object): the directions of both bounds are then fixed in the
    /// world.
    world_fixed: bool,
}

/// A link's rigid motion at time `t`, in the world: every point `p` of it
/// moves at `velocity + omega × (p − origin)`, and its acceleration is at
/// most `accel` over the window.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Twist {
    /// The link frame's rotation at `t`.
    rot: DMat3,
    /// Velocity of the link's origin.
    velocity: DVec3,
    /// Angular velocity.
    omega: DVec3,
    /// Bound on `|p̈|` over the window for the link's points.
    accel: f64,
    /// Relative padding for the rounding and the origins' skew.
    pad: f64,
    /// `|velocity|` and `|omega|`, for the rounding allowance.
    speed: f64,
    turn: f64,
}

impl Twist {
    /// Bound on `|ṗ(t')·n|` for the points within `radius` of `centre`
    /// (link frame), `n` unit, for `t'` up to `lag` after `t`: the speed
    /// at `t` of the ball, `|v_c·n| + ρ |ω × n|`, plus the change over
    /// `lag`, `|p̈|_max lag`. With `lag` the window it bounds the speed
    /// over the window; with half the window, the mean speed from `t` over
    /// any part `[t, t + τ]` of it (`v τ + |p̈|_max τ² / 2` over `τ`).
    #[inline]
    fn bound(&self, n: DVec3, centre: DVec3, radius: f64, lag: f64) -> f64 {
        let r = self.rot * centre;
        // `v·n` for `v = v_o + ω × r`: `(ω × r)·n = −r·(ω × n)`.
        let omega_n = self.omega.cross(n);
        let spin = omega_n.length();
        let s = (self.velocity.dot(n) - r.dot(omega_n)).abs() + radius * spin + self.accel * lag;
        // The rounding allowance's scale, at least `|v| + |ω| (|r| + ρ)`
        // (`|v| ≤ |v_o| + |ω| |r|`, `|r|` under its 1-norm), without roots.
        let reach = r.abs().element_sum();
        let size = self.speed + self.turn * (2.0 * reach + radius);
        s * (1.0 + self.pad) + REL_PAD * size
    }
}

impl PairSpeed {
    /// An empty bound, to be filled by [`MotionBounds::pair_speed`].
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The share of the pair's speed scale at `t` that the window's
    /// acceleration term makes: `Σ |p̈|_max (t_end − t)` over
    /// `Σ (|v_o| + |ω| R)`, the links' origin speeds and turn rates times
    /// their radii (0 for a pair that does not move). Small for short
    /// windows and gentle motions; a conservative advancement step may
    /// grow its next window less when it is large, where the bound would
    /// loosen more than the window gains. It counts the whole window's
    /// term, though [`PairSpeed::piece_bound`] takes half of it (the mean
    /// rate): counting half lengthened the windows of 30° Puma motions and
    /// cost them 2.6 % more instructions.
    #[must_use]
    pub fn window_share(&self) -> f64 {
        let (mut drift, mut scale) = (0.0, 0.0);
        for (tw, r) in self.twist.iter().zip(self.radius) {
            if let Some(tw) = tw {
                drift += tw.accel * self.window;
                scale += tw.velocity.length() + tw.omega.length() * r;
            }
        }
        if scale > 0.0 { drift / scale } else { 0.0 }
    }

    /// Whether every bound here holds along a direction fixed in the world:
    /// the first link against an object, or against a link with no common
    /// ancestor (another robot). Otherwise [`PairSpeed::bound`] holds its
    /// direction fixed in the links' common frame, which turns with it.
    #[must_use]
    pub const fn fixed_in_world(&self) -> bool {
        self.world_fixed
    }

    /// Upper bound on `|(ṗ_a(t') − ṗ_b(t'))·n|` for every `t'` in the
    /// window `[t, t_end]`,
    /// every point `p_a` of the first link with `|p_a| ≤ reach_a` in its
    /// frame and every point `p_b` of the second with `|p_b| ≤ reach_b`
    /// (the second's term is 0 against an object: add its own speed), with
    /// velocities in the frame of the links' deepest common ancestor (the
    /// world against an object or another robot) and `n` the world
    /// direction at `t` held fixed in that frame (normalised here; zero or
    /// non-finite gives the unprojected bound). A reach above the link's
    /// radius is lowered to it. Never larger than
    /// [`MotionBounds::mu_relative`] (or [`MotionBounds::mu`]); with both
    /// reaches at the radii it is (μ5)–(μ6) of the [module docs](self), as
    /// [`MotionBounds::mu_relative_projected`] computes them, up to
    /// rounding covered by the padding.
    ///
    /// Valid as a bound on the closing speed of two pieces only when both
    /// are convex (see the [module docs](self)).
    #[must_use]
    pub fn bound(&self, n: DVec3, reach_a: f64, reach_b: f64) -> f64 {
        let len = n.length();
        let dir = if len > 0.0 && len.is_finite() {
            Some(n / len)
        } else {
            None
        };
        let (ta, tb) = self.terms.split_at(self.split);
        let side = |terms: &[ProjectedTerm], reach: f64| {
            terms
                .iter()
                .map(|j| {
                    let (a, b) = match dir {
                        None => (j.speed, j.omega),
                        Some(n) => {
                            // n in the parent frame at t: Pᵀ n.
                            let p = &j.parent;
                            let d = DVec3::new(p.x_axis.dot(n), p.y_axis.dot(n), p.z_axis.dot(n));
                            (
                                j.speed.min(j.velocity.dot(d).abs() + j.speed * j.drift),
                                j.omega.min(j.omega * (j.axis.cross(d).length() + j.drift)),
                            )
                        }
                    };
                    a + b * (j.lever + reach)
                })
                .sum::<f64>()
        };
        let ra = reach_a.min(self.radius[0]).max(0.0);
        let rb = reach_b.min(self.radius[1]).max(0.0);
        pad((side(ta, ra) + side(tb, rb)) * self.stretch, 0.0)
    }

    /// Upper bound on `|(ṗ_a(t') − ṗ_b(t'))·n|` in the *world* frame, for
    /// every `t'` in the window, every point `p_a` of the first link within
    /// `radius_a` of `centre_a` (link frame) and every `p_b` of the second
    /// within `radius_b` of `centre_b` (0 for an object), with `n` a fixed
    /// world direction (normalised here; zero or non-finite gives `∞`).
    ///
    /// Each link moves rigidly: at `t` a point's velocity is
    /// `v_o + ω × (p − o)` exactly ([`InBetweenMotion::point_velocity`]),
    /// so the ball's projected speed is at most `|v_c·n| + ρ |ω × n|`, and
    /// over the window it changes by at most `|p̈|_max (t_end − t)`
    /// ([`MotionBounds::acceleration`]). Tight for short windows and small
    /// pieces: the actual closing speed, where the chain bound
    /// ([`PairSpeed::bound`]) sums every joint's largest contribution.
    /// Valid for convex pieces only, as that one.
    #[must_use]
    pub fn world_bound(&self, n: DVec3, a: (DVec3, f64), b: (DVec3, f64)) -> f64 {
        self.world_bound_lagged(n, a, b, self.window)
    }

    /// Upper bound on the *mean* closing rate from the window's start
    /// along the fixed world direction `n`, for the pieces of
    /// [`PairSpeed::world_bound`]: for every `τ` in `(0, t_end − t]`, every
    /// point `p_a` of the first piece and `p_b` of the second,
    /// `|((p_a(t + τ) − p_a(t)) − (p_b(t + τ) − p_b(t)))·n| ≤ μ τ`.
    ///
    /// Each point's projected speed grows from its value at `t` by at most
    /// `|p̈|_max u` after a time `u`, so its displacement along `n` over
    /// `[t, t + τ]` is at most `v_n τ + |p̈|_max τ² / 2`: the
    /// acceleration term of [`PairSpeed::world_bound`] at half the window.
    /// This is what a conservative-advancement step needs (the gap may
    /// close by no more than `g − c` before the step ends), and for steps
    /// near the window's length it halves the acceleration's part.
    /// Valid for convex pieces only, as that one.
    #[must_use]
    pub fn mean_world_bound(&self, n: DVec3, a: (DVec3, f64), b: (DVec3, f64)) -> f64 {
        self.world_bound_lagged(n, a, b, 0.5 * self.window)
    }

    /// [`PairSpeed::world_bound`] with the acceleration term taken over
    /// `lag` (see [`Twist::bound`]).
    fn world_bound_lagged(
        &self,
        n: DVec3,
        (centre_a, radius_a): (DVec3, f64),
        (centre_b, radius_b): (DVec3, f64),
        lag: f64,
    ) -> f64 {
        let len = n.length();
        if !(len > 0.0 && len.is_finite()) {
            return f64::INFINITY;
        }
        let n = n / len;
        let side = |tw: &Option<Twist>, c: DVec3, r: f64| {
            tw.map_or(0.0, |tw| tw.bound(n, c, r.max(0.0), lag))
        };
        side(&self.twist[0], centre_a, radius_a) + side(&self.twist[1], centre_b, radius_b)
    }

    /// For two links, the smaller of [`PairSpeed::bound`] (the pieces'
    /// reaches from their links' origins) and
    /// [`PairSpeed::mean_world_bound`]; for a link against an object, the
    /// mean world bound alone: a mean rate `μ` at which the gap of two
    /// convex pieces along `n` can close from the window's start (by at
    /// most `μ τ` over `[t, t + τ]`, for every `τ` within the window), `n`
    /// held fixed in the links' common frame for the first and in the
    /// world for the second (a bound on the speed at every time of the
    /// window is one on the mean). Either slab gap bounds the distance
    /// from below, so conservative advancement may step by the gap over
    /// the smaller rate.
    #[must_use]
    pub fn piece_bound(&self, n: DVec3, a: (DVec3, f64), b: (DVec3, f64)) -> f64 {
        let world = self.mean_world_bound(n, a, b);
        // The chain bound has no acceleration term: it can only win when
        // the window's share of the world bound is large. Against an
        // object it seldom does even then (under 2 % of the pieces of 300
        // random 30° motions in the pipes, by under a fifth in nine of ten),
        // where between two links it wins about half the time, often by
        // half: the common motion drops out of it.
        if self.twist[1].is_none() || self.drift <= CHAIN_WORTH * world {
            return world;
        }
        let reach = |(c, r): (DVec3, f64)| c.length() + r.max(0.0);
        self.bound(n, reach(a), reach(b)).min(world)
    }
}

/// The share of [`PairSpeed::world_bound`] its acceleration term must
/// exceed for [`PairSpeed::piece_bound`] to compute the chain bound too.
const CHAIN_WORTH: f64 = 0.25;

/// `n` normalised, or [`KinematicsError::BadDirection`].
fn unit_direction(n: DVec3) -> Result<DVec3, KinematicsError> {
    let len = n.length();
    if n.is_finite() && len > 0.0 && len.is_finite() {
        Ok(n / len)
    } else {
        Err(KinematicsError::BadDirection {
            x: n.x,
            y: n.y,
            z: n.z,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ritter_centre_is_inside_the_hull_and_radii_contain_the_points() {
        let pts = [
            DVec3::new(1.0, 0.0, 0.0),
            DVec3::new(-1.0, 0.2, 0.0),
            DVec3::new(0.0, 3.0, -1.0),
            DVec3::new(0.3, -0.4, 2.0),
        ];
        let c = ritter_centre(&pts);
        let shape = Shape::Points(&pts, c);
        let r = shape.reach_from(c);
        assert!(pts.iter().all(|p| p.distance(c) <= r));
        // Here tighter than the sphere about the first point.
        assert!(r <= shape.reach_from(pts[0]));
    }

    #[test]
    fn stretch_of_a_rotation_is_one_and_grows_with_scaling() {
        let r = DMat3::from_axis_angle(DVec3::new(0.3, -0.4, 0.5).normalize(), 0.7);
        let s = stretch_of(&r);
        assert!((1.0..1.0 + 1e-11).contains(&s), "{s}");
        let scaled = r * (1.0 + 1e-9);
        let s = stretch_of(&scaled);
        assert!(s >= 1.0 + 1e-9, "{s}");
    }

    #[test]
    fn descend_is_the_transposed_rotation() {
        let m = LocalMotion {
            axis: DVec3::new(0.2, 0.9, -0.3).normalize(),
            omega: 2.5,
            rot0: DMat3::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 0.4),
            trans0: DVec3::ZERO,
            velocity: DVec3::ZERO,
        };
        let n = DVec3::new(0.6, -0.0, 0.8);
        for t in [0.0, 0.3, 1.0] {
            let want = m.pose(t).matrix3.transpose() * n;
            assert!(descend(&m, t, n).distance(want) < 1e-14);
        }
    }

    #[test]
    fn a_full_turn_about_the_own_axis_reaches_no_further() {
        // S(i,i) of a revolute joint: centre on the axis, radius the largest
        // distance from it (M2 Fig. 8).
        let pts = [DVec3::new(1.0, 0.0, 0.5), DVec3::new(0.0, 2.0, -0.5)];
        let joint = crate::Joint::revolute("j", DVec3::Z, -1.0, 1.0);
        let shape = Shape::Points(&pts, ritter_centre(&pts));
        let ((lin, rot), sweep, c, r) = sphere_step(&joint, shape);
        assert_eq!((lin, sweep), (0.0, Sweep::Turn));
        assert!((rot - 2.0).abs() < 1e-9);
        assert!(c.x == 0.0 && c.y == 0.0);
        assert!(pts.iter().all(|p| p.distance(c) <= r));
    }
}
