//! Sound enclosures of every link's world pose over a time interval
//! `[t0, t1] ⊆ [0, 1]`: interval enclosures (M1 §4.1) and Taylor enclosures
//! (M4 §5.1–5.2), and the dynamic AABBs of link boxes and point sets built
//! from them or, more cheaply, from the poses at the ends of pieces of
//! time and an acceleration bound (chord boxes).
//!
//! **What.** For a motion ([`InBetweenMotion`] or [`JointSpaceMotion`]) and
//! a sub-interval of the query time, one enclosure per link of every world
//! pose the link takes: an [`IntervalAffine3`] (each entry of the rotation
//! and translation bounded by an interval) or a [`TaylorAffine3`]
//! (third-order Taylor models in `t` with sound remainders). From either,
//! [`LinkEnclosures`] gives the dynamic AABB of a link's OBB ([`LinkObb`]) or
//! point set over the interval.
//!
//! **Why.** The dynamic AABB hierarchies of M1 stage 1 and of CATCH's
//! link-level culling (M4 §5) are built from these boxes. Interval products
//! forget that every factor of a chain depends on the same `t`, so their
//! boxes grow exponentially with depth; Taylor models keep that dependency in
//! their polynomial parts (M4 Fig. 5; the `enclosure_volume` example
//! measures the difference).
//!
//! **Guarantee.** Conservative in floating point: for every `t ∈ [t0, t1]`
//! the exact pose of the motion defined by its `f64` parameters lies in the
//! interval enclosure of each link, and in its Taylor enclosure evaluated at
//! `t` ([`TaylorAffine3::eval`]) or over the whole interval
//! ([`TaylorAffine3::bound`]); every point of a link's OBB or point set lies
//! in the AABB. All arithmetic is outward-rounded
//! (`armature-interval-taylor`), except that of chord boxes, whose end
//! poses are computed in `f64` and widened by a relative allowance
//! (`1e-9` of the chain's translations and the set's reach) far above
//! their rounding, and whose acceleration bound is padded as the motion
//! bounds' ([`crate::bounds`]).
//!
//! **How.**
//! - *In-between motion* (M1 §3.3, M4 §3.2). A link moves relative to its
//!   parent by `x ↦ Rot(k, ωt)·R₀·x + T₀ + v t` ([`LocalMotion`]). Interval:
//!   `Rot(k, ω·[t0, t1])` by Rodrigues' formula in interval arithmetic, times
//!   `R₀`, and `T₀ + v·[t0, t1]`. Taylor: the rotation's sine and cosine as
//!   order-3 models with exact Lagrange remainders, composed with the
//!   constant `R₀`; the translation is affine in `t` and exact.
//!   World enclosures are products along the chain in tree order, parents
//!   first: `world(i) = world(parent) ∘ local(i)`.
//! - *Joint-space motion.* For fixed, revolute, continuous, prismatic,
//!   planar and spherical joints, and for floating, orientation and location
//!   joints (slerp of the quaternion along the shortest arc, linear
//!   translation), the joint-space pose of a link relative to its parent *is*
//!   such a local motion, built here with the same arithmetic as
//!   [`JointSpaceMotion::config_at`] so both pick the same arc. Vehicle and
//!   omni-vehicle joints follow the braking arc
//!   ([`crate::joint::vehicle_transform`]): rotation `α` about z, translation
//!   `s·sinc(α/2)·(cos(φ + α/2), sin(φ + α/2), 0)` with `φ, s, α` linear in
//!   `t`. That is no in-between motion; its interval enclosure bounds the
//!   arc on [`ARC_PIECES`] sub-intervals of time with [`sinc_interval`]. Its
//!   Taylor enclosure keeps the rotation exact (an affine angle about z) and
//!   encloses the translation as `s(t)·(cos ψ(t), sin ψ(t), 0)` in Taylor
//!   arithmetic times the interval of `sinc(α/2)` over the whole time
//!   interval, a constant-in-time factor: sound, but looser than a full
//!   Taylor model would be.
//! - *Boxes.* A link's OBB is bounded through its 8 corners: by the
//!   convexity argument of M4 §5.2, the AABB of the boxes bounding each
//!   corner's trajectory bounds the whole moving OBB. With interval poses the
//!   result is also intersected with `centre ± |R·A|·e` (both are sound).
//! - *Taylor boxes on large swings.* The Lagrange remainders of `sin` and
//!   `cos` grow with the fourth power of the swept angle, so one Taylor
//!   model over a multi-turn swing is useless (a 1 m lever turning 12 rad
//!   gets a ±86 m box). The boxes of [`LinkEnclosures`] therefore split
//!   `[t0, t1]` into pieces on which no joint sweeps more than
//!   [`TAYLOR_PIECE_SWING`] (at most [`MAX_TAYLOR_PIECES`]), and on each
//!   piece intersect the Taylor box with the interval box — once some
//!   joint sweeps more than [`TAYLOR_ALONE_SWING`]; below it the Taylor
//!   box is used alone (far tighter there, and the interval chain would
//!   only cost time). The interval
//!   poses of the pieces have their rotation entries clamped to `[−ρ, ρ]`,
//!   `ρ` an upper bound on the spectral norm of the exact world rotation:
//!   the product along the chain of `‖A‖₂` for the constant f64 factor `A`
//!   of each local rotation (`1 + O(ε)` for rounded rotations, bounded by
//!   Gershgorin on `AᵀA`), since the time-dependent factors are exact
//!   rotations. The same `ρ` bounds how far a point at distance `d` from
//!   the link origin can be from the origin's box (`ρ d`). The union of the
//!   per-piece boxes encloses the motion over `[t0, t1]`.
//!
//! - *Chord boxes* ([`EnclosureKind::Chords`], in-between motions). A point
//!   `p(t)` fixed on a link, with `|p̈| ≤ A` over a piece `[a, b]`
//!   ([`crate::MotionBounds::acceleration`]'s bound, for the points within
//!   the set's reach of the link origin), differs from the chord
//!   `(1 − s) p(a) + s p(b)` by a function that vanishes at both ends and
//!   whose second derivative is at most `A`: by at most
//!   `A (t − a)(b − t) / 2 ≤ A (b − a)² / 8` on every axis. The chord lies
//!   in the hull of the set's boxes at `a` and `b`, so that hull grown by
//!   `A (b − a)² / 8` holds the set over the piece. The bound is tight to
//!   second order for a rotation (the sagitta of an arc of angle `φ` and
//!   radius `r` is `r φ² / 8 + O(φ⁴)`), so pieces on which no chain turns
//!   through more than [`CHORD_PIECE_SWING`] give boxes tighter than
//!   Taylor models', from one forward kinematics per piece end and one
//!   acceleration bound per link and piece.
//!
//! Hot paths do not allocate: the `*_into` functions write into caller-owned
//! slices, and [`EnclosureWorkspace`] keeps its buffers between queries.
//!
//! ```
//! use armature_kinematics::prelude::*;
//! use glam::{DAffine3, DVec3};
//! let tree = KinematicTree::new(vec![
//!     LinkSpec::new("base", None)
//!         .with_joint(Joint::revolute("j0", DVec3::Z, -3.0, 3.0)),
//!     LinkSpec::new("arm", Some("base"))
//!         .with_joint(Joint::revolute("j1", DVec3::Y, -3.0, 3.0))
//!         .with_origin(DAffine3::from_translation(DVec3::new(0.3, 0.0, 0.0))),
//! ])?;
//! let motion = InBetweenMotion::new(&tree, &[0.0, 0.0], &[0.5, -0.25])?;
//! let mut ws = EnclosureWorkspace::new();
//! let encl = ws.in_between(&motion, EnclosureKind::Taylor, 0.0, 1.0)?;
//! let obb = LinkObb::new(
//!     DVec3::new(0.15, 0.0, 0.0),
//!     DVec3::new(0.15, 0.025, 0.025),
//!     glam::DMat3::IDENTITY,
//! )?;
//! let aabb = encl.obb_aabb(1, &obb)?;
//! let mut poses = [DAffine3::IDENTITY; 2];
//! motion.poses_at(0.5, &mut poses)?;
//! assert!(aabb.contains(poses[1].transform_point3(DVec3::new(0.3, 0.0, 0.0))));
//! # Ok::<(), KinematicsError>(())
//! ```

use crate::error::KinematicsError;
use crate::joint::JointType;
use crate::motion::{InBetweenMotion, JointSpaceMotion, LocalMotion, shortest_arc};
use crate::tree::KinematicTree;
use armature_interval_taylor::{
    Interval, IntervalAffine3, IntervalError, IntervalMat3, IntervalVec3, TaylorAffine3,
    TaylorMat3, TaylorModel, TaylorVec3, TimeDomain,
};
use glam::{DAffine3, DMat3, DVec3};

/// Number of sub-intervals of time on which the interval enclosure of a
/// braking arc (vehicle joints) is evaluated before taking the hull: the
/// arc's translation is a product of three factors that depend on `t`, and
/// interval arithmetic overestimates it in proportion to the width of `t`.
pub const ARC_PIECES: usize = 8;

/// Largest rotation (radians) any joint may sweep over one piece of time
/// before the Taylor boxes of [`EnclosureWorkspace`] split the interval:
/// the Lagrange remainders of `sin` and `cos` grow with the fourth power of
/// the swept angle, so one model over a multi-turn swing is far looser than
/// the interval box. A quarter turn keeps each remainder below 0.02.
pub const TAYLOR_PIECE_SWING: f64 = core::f64::consts::FRAC_PI_2;

/// Largest rotation (radians) any joint may sweep over `[t0, t1]` for
/// the Taylor boxes of [`EnclosureWorkspace`] to be used alone. Up to an
/// eighth of a turn the order-3 remainders stay below 3·10⁻⁴ of the lever
/// arm and the Taylor box is far tighter than the interval box, so
/// computing the interval chain to intersect with would only cost time
/// (about 40 % of the broad phase on small motions); beyond it the boxes
/// are intersected with the clamped interval boxes (a multi-turn swing is
/// also split into pieces, [`TAYLOR_PIECE_SWING`]).
pub const TAYLOR_ALONE_SWING: f64 = core::f64::consts::FRAC_PI_4;

/// Most pieces of time the Taylor boxes of [`EnclosureWorkspace`] use; a
/// larger swing gets pieces of more than [`TAYLOR_PIECE_SWING`] each
/// (sound, looser).
pub const MAX_TAYLOR_PIECES: usize = 64;

/// Which enclosure of the link poses to compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum EnclosureKind {
    /// Interval matrices multiplied along the chain (M1 §4.1): cheapest,
    /// loosest for deep chains.
    Interval,
    /// Third-order Taylor models composed along the chain (M4 §5.2): a few
    /// times more work, far tighter boxes for deep chains.
    #[default]
    Taylor,
    /// Interval enclosures when no chain turns through more than
    /// [`INTERVAL_SWING`] over the time asked (the sum of its joints'
    /// angles), Taylor models otherwise: the interval boxes' overestimate
    /// grows with the angles turned, so on small motions they are about as
    /// tight for a fraction of the work. [`LinkEnclosures::kind`] tells
    /// which was used.
    BySwing,
    /// Boxes only, from the link's poses at the ends of pieces of time and
    /// a bound on its points' acceleration: a point whose acceleration
    /// stays within `A` over a piece of length `h` stays within `A h² / 8`
    /// of the chord between its two end positions, so the box of both
    /// ends' boxes grown by that bulge holds the link over the piece. The
    /// pieces are as many as keep every chain's swing on each within
    /// [`CHORD_PIECE_SWING`]; the end poses are interval enclosures at a
    /// single time (exact up to rounding) and the acceleration is
    /// [`crate::MotionBounds::acceleration`]'s for the box's or the
    /// points' reach from the link origin. Neither Taylor models nor
    /// interval products over an interval of time: a fraction of their
    /// work. In volume, 10–35 % looser than Taylor models on swings of 5°
    /// per joint, where those are nearly exact, and far tighter on large
    /// swings of deep chains (the `enclosure_volume` example); on random
    /// Puma motions they keep fewer link–obstacle pairs than the interval
    /// boxes of small motions and the Taylor models of large ones.
    /// [`LinkEnclosures::pose_bound`] is loose (rotation
    /// entries bounded by the rotation's norm alone). In-between motions
    /// only: [`EnclosureWorkspace::joint_space`] takes it as
    /// [`EnclosureKind::BySwing`].
    Chords,
}

/// The largest swing (radians: the largest sum of the angles a link's
/// chain of joints turns through) over one piece of time of
/// [`EnclosureKind::Chords`] boxes. The bulge grows with the square of
/// a piece's length; more pieces cost more end poses. Measured with
/// conservative advancement on random Puma motions among the pipes and
/// in the AMR (1°, 30° and 60°), 0.15–0.4 were within 0.5 % of each
/// other, 0.2 the best.
pub const CHORD_PIECE_SWING: f64 = 0.2;

/// The most pieces of time of [`EnclosureKind::Chords`] boxes (larger
/// swings get longer pieces: sound, looser).
pub const MAX_CHORD_PIECES: usize = 64;

/// The largest swing (radians: over the asked time, the largest sum of
/// the angles a link's chain of joints turns through) for which
/// [`EnclosureKind::BySwing`] uses interval enclosures. Measured with
/// conservative advancement on the Puma scenes: interval boxes took a
/// fifth off the queries of 1° motions (swings up to about 0.1) and a
/// tenth off 5° ones, with the same pairs' answers; by 30° motions (swings
/// of about 1.5) Taylor models cost less overall.
pub const INTERVAL_SWING: f64 = 1.0;

/// The largest swing over `[t0, t1]` of any link's chain: the sum of the
/// turning rates of the link and its ancestors, times the time's length
/// (`sums` is scratch).
fn chain_swing<L: LocalEnclosure>(
    parents: &[Option<usize>],
    locals: &[L],
    t0: f64,
    t1: f64,
    sums: &mut Vec<f64>,
) -> f64 {
    sums.clear();
    let mut most = 0.0_f64;
    for (i, (l, parent)) in locals.iter().zip(parents).enumerate() {
        let above = match parent {
            Some(p) if *p < i => sums[*p],
            _ => 0.0,
        };
        let s = above + l.rate();
        sums.push(s);
        // NaN propagates: such a motion takes the Taylor path, which
        // reports it.
        most = if s.is_nan() { f64::NAN } else { most.max(s) };
    }
    most * (t1 - t0)
}

impl EnclosureKind {
    /// The kind used for a swing (see [`EnclosureKind::BySwing`]).
    #[must_use]
    pub fn for_swing(self, swing: f64) -> Self {
        match self {
            Self::BySwing if swing <= INTERVAL_SWING => Self::Interval,
            Self::BySwing => Self::Taylor,
            kind => kind,
        }
    }
}

/// `[t0, t1] ⊆ [0, 1]`, no NaN.
fn check_time(t0: f64, t1: f64) -> Result<(), KinematicsError> {
    if 0.0 <= t0 && t0 <= t1 && t1 <= 1.0 {
        Ok(())
    } else {
        Err(KinematicsError::BadTime { t0, t1 })
    }
}

fn check_len(what: &'static str, expected: usize, got: usize) -> Result<(), KinematicsError> {
    if expected == got {
        Ok(())
    } else {
        Err(KinematicsError::BufferLength {
            what,
            expected,
            got,
        })
    }
}

/// `[−m, m]` for `m ≥ 0` (NaN gives the whole line).
fn symmetric(m: f64) -> Interval {
    Interval::new(-m, m).unwrap_or(Interval::ENTIRE)
}

/// The time interval as an [`Interval`] (checked by [`check_time`]).
fn time_interval(t0: f64, t1: f64) -> Result<Interval, KinematicsError> {
    check_time(t0, t1)?;
    Ok(Interval::new(t0, t1)?)
}

fn not_finite(name: &'static str, value: f64) -> KinematicsError {
    KinematicsError::Interval(IntervalError::NotFinite { name, value })
}

fn finite_vec(name: &'static str, v: DVec3) -> Result<(), KinematicsError> {
    match v.to_array().into_iter().find(|c| !c.is_finite()) {
        Some(c) => Err(not_finite(name, c)),
        None => Ok(()),
    }
}

/// Enclosure of `sin y / y` at one point `y ≥ 0`: the alternating series
/// `1 − y²/6 ≤ sinc y ≤ 1 − y²/6 + y⁴/120` (terms decrease for `y ≤ 1`)
/// below `10⁻³`, where `sin(y) / y` would lose relative accuracy near
/// subnormals, else `sin(y) / y` in interval arithmetic.
fn sinc_at(y: f64) -> Interval {
    if y <= 1e-3 {
        let y2 = Interval::point(y).sqr();
        let s1 = Interval::ONE - y2 / 6.0;
        Interval::new(s1.lo(), (s1 + y2.sqr() / 120.0).hi()).unwrap_or(s1)
    } else {
        let y = Interval::point(y);
        y.sin() / y
    }
}

/// Enclosure of `sin x / x` (1 at 0) for every `x` in `x`.
///
/// `sinc` is even, so it is enclosed on `|x| = [a, b]`, split at π:
///
/// - on `[a, b] ∩ [0, π]` `sinc` decreases (its derivative
///   `(y cos y − sin y)/y²` is negative on `(0, π]`: `tan y > y` below π/2,
///   `cos y ≤ 0 < sin y` above), so the range there is
///   `[sinc(min(b, π)), sinc(a)]`, each end enclosed at its point (the
///   series `1 − y²/6 + y⁴/120 − …` near 0, `sin y / y` in interval
///   arithmetic elsewhere);
/// - on the part `Y ⊆ [π, ∞)`, `sin(Y) / Y` in interval arithmetic (no
///   division by zero; `sin` widened for the platform's error).
///
/// The result is the hull of both parts, intersected with the global range
/// of `sinc`, `[−0.2173, 1]` (its minimum is −0.21723… near 4.4934). An
/// unbounded `x` gives that global range.
///
/// ```
/// use armature_kinematics::sinc_interval;
/// use armature_interval_taylor::Interval;
/// let r = sinc_interval(Interval::new(-0.5, 2.0)?);
/// assert!(r.contains(1.0) && r.contains(2f64.sin() / 2.0));
/// # Ok::<(), armature_interval_taylor::IntervalError>(())
/// ```
#[must_use]
pub fn sinc_interval(x: Interval) -> Interval {
    // Below the true minimum −0.2172336282112217 of sinc.
    let global = Interval::new(-0.2173, 1.0).unwrap_or(Interval::UNIT);
    // The f64 nearest to π lies below π.
    let pi_lo = core::f64::consts::PI;
    let (a, b) = (x.mig(), x.mag());
    if !b.is_finite() {
        return global;
    }
    let mut r: Option<Interval> = None;
    if a <= pi_lo {
        let lower = sinc_at(b.min(pi_lo)).lo();
        let upper = sinc_at(a).hi().min(1.0);
        r = Interval::new(lower.min(upper), upper).ok();
    }
    if b > pi_lo {
        let y = Interval::new(a.max(pi_lo), b).unwrap_or(Interval::ENTIRE);
        let q = y.sin() / y;
        r = Some(r.map_or(q, |r| r.hull(q)));
    }
    let r = r.unwrap_or(global);
    r.intersect(global).unwrap_or(r)
}

impl LocalMotion {
    fn check_finite(&self) -> Result<(), KinematicsError> {
        if !self.omega.is_finite() {
            return Err(not_finite("omega", self.omega));
        }
        finite_vec("axis", self.axis)?;
        finite_vec("rot0", self.rot0.x_axis)?;
        finite_vec("rot0", self.rot0.y_axis)?;
        finite_vec("rot0", self.rot0.z_axis)?;
        finite_vec("trans0", self.trans0)?;
        finite_vec("velocity", self.velocity)
    }

    /// Interval enclosure of the local pose for every time in `t` (M1
    /// §4.1): rotation `Rot(axis, ω·t)·rot0` by Rodrigues' formula in
    /// interval arithmetic, translation `trans0 + velocity·t`.
    ///
    /// # Errors
    /// [`KinematicsError::Interval`] for a non-finite parameter or a zero
    /// axis of a rotating motion.
    pub fn interval_enclosure(&self, t: Interval) -> Result<IntervalAffine3, KinematicsError> {
        self.check_finite()?;
        let rot0 = IntervalMat3::from_dmat3(self.rot0);
        let rotation = if self.omega == 0.0 {
            rot0
        } else {
            IntervalMat3::from_axis_angle(self.axis, Interval::point(self.omega) * t)?
                .mul_mat3(&rot0)
        };
        let translation =
            IntervalVec3::from_point(self.trans0) + IntervalVec3::from_point(self.velocity) * t;
        Ok(IntervalAffine3::new(rotation, translation))
    }

    /// Interval enclosure of the local pose's rate of change with respect to
    /// the normalised time, for every time in `t`, stored in an
    /// [`IntervalAffine3`] used as a container (its `rotation` encloses
    /// `R'(t)`, its `translation` encloses `T'(t)`; neither is a rigid
    /// transform).
    ///
    /// With `R(t) = Rot(k, ω t)·R₀` and `T(t) = T₀ + v t`:
    /// `R'(t) = ω [k]× R(t)` and `T'(t) = v`, where `k = axis / |axis|`
    /// (as in [`LocalMotion::interval_enclosure`]) and `[k]×` is the
    /// cross-product matrix. `R(t)` is enclosed as by
    /// [`LocalMotion::interval_enclosure`], and each column of `R'` is the
    /// interval cross product `ω k × R(t) eⱼ`. For `ω = 0` the rotation
    /// rate is exactly zero. So for a point `p` of the link,
    /// `rate.transform_point(p)` encloses `d/dt (R(t) p + T(t))`.
    ///
    /// # Errors
    /// As [`LocalMotion::interval_enclosure`].
    pub fn interval_rate_enclosure(&self, t: Interval) -> Result<IntervalAffine3, KinematicsError> {
        let pose = self.interval_enclosure(t)?;
        Ok(self.rate_from_pose(&pose))
    }

    /// The rate of [`LocalMotion::interval_rate_enclosure`] from the pose
    /// enclosure over the same times (parameters already checked finite,
    /// and the axis non-zero when `ω ≠ 0`).
    fn rate_from_pose(&self, pose: &IntervalAffine3) -> IntervalAffine3 {
        let translation = IntervalVec3::from_point(self.velocity);
        if self.omega == 0.0 {
            let zero = IntervalVec3::ZERO;
            return IntervalAffine3::new(IntervalMat3::from_cols(zero, zero, zero), translation);
        }
        let a = IntervalVec3::from_point(self.axis);
        // ω k = ω · axis / |axis|, enclosed.
        let w = a.scale(Interval::point(self.omega) / a.length());
        let r = &pose.rotation;
        IntervalAffine3::new(
            IntervalMat3::from_cols(w.cross(&r.x_axis), w.cross(&r.y_axis), w.cross(&r.z_axis)),
            translation,
        )
    }

    /// Taylor enclosure of the local pose over `dom` (M4 §5.1): the
    /// rotation `Rot(axis, ω t)` from order-3 models of `sin` and `cos` with
    /// exact remainders, composed with the constant `rot0`; the translation
    /// `trans0 + velocity·t` is exact.
    ///
    /// # Errors
    /// As [`LocalMotion::interval_enclosure`].
    pub fn taylor_enclosure(&self, dom: TimeDomain) -> Result<TaylorAffine3, KinematicsError> {
        self.check_finite()?;
        Ok(if self.omega == 0.0 {
            TaylorAffine3::new(
                TaylorMat3::constant(dom, self.rot0),
                TaylorVec3::linear(dom, self.velocity, self.trans0)?,
            )
        } else {
            TaylorAffine3::in_between(dom, self.axis, self.omega, 0.0, self.velocity, self.trans0)?
                .compose_const(&DAffine3::from_mat3(self.rot0))
        })
    }
}

/// `start + slope·t`.
#[derive(Clone, Copy, Debug)]
struct Linear {
    start: f64,
    slope: f64,
}

impl Linear {
    /// As [`JointSpaceMotion::config_at`] interpolates: `a + t·(b − a)`.
    fn between(a: f64, b: f64) -> Self {
        Self {
            start: a,
            slope: b - a,
        }
    }

    fn over(self, t: Interval) -> Interval {
        Interval::point(self.start) + Interval::point(self.slope) * t
    }
}

/// The braking arc of a vehicle joint behind its fixed origin, with
/// `φ, s, α` linear in `t`.
#[derive(Clone, Copy, Debug)]
struct ArcMotion {
    origin: DAffine3,
    phi: Linear,
    s: Linear,
    alpha: Linear,
}

impl ArcMotion {
    /// The direction angle `ψ = φ + α/2 = c + w t`, its coefficients
    /// enclosed.
    fn psi(&self) -> (Interval, Interval) {
        let c = Interval::point(self.phi.start) + Interval::point(self.alpha.start) * 0.5;
        let w = Interval::point(self.phi.slope) + Interval::point(self.alpha.slope) * 0.5;
        (c, w)
    }

    fn interval_enclosure(&self, t: Interval) -> IntervalAffine3 {
        let a = self.alpha.over(t);
        let (sn, cs) = (a.sin(), a.cos());
        let rotation = IntervalMat3::from_cols(
            IntervalVec3::new(cs, sn, Interval::ZERO),
            IntervalVec3::new(-sn, cs, Interval::ZERO),
            IntervalVec3::new(Interval::ZERO, Interval::ZERO, Interval::ONE),
        );
        let (c, w) = self.psi();
        let pieces = if t.is_point() { 1 } else { ARC_PIECES };
        let (lo, hi) = (t.lo(), t.hi());
        let mut translation: Option<IntervalVec3> = None;
        for k in 0..pieces {
            // Consecutive pieces share their f64 end points, so they cover t.
            let p_lo = if k == 0 {
                lo
            } else {
                lo + (hi - lo) * k as f64 / pieces as f64
            };
            let p_hi = if k + 1 == pieces {
                hi
            } else {
                lo + (hi - lo) * (k + 1) as f64 / pieces as f64
            };
            let tk = Interval::new(p_lo.min(p_hi), p_hi.max(p_lo)).unwrap_or(t);
            let h = self.alpha.over(tk) * 0.5;
            let d = self.s.over(tk) * sinc_interval(h);
            let psi = c + w * tk;
            let v = IntervalVec3::new(d * psi.cos(), d * psi.sin(), Interval::ZERO);
            translation = Some(translation.map_or(v, |acc| acc.hull(&v)));
        }
        let local = IntervalAffine3::new(rotation, translation.unwrap_or_default());
        IntervalAffine3::from_daffine3(&self.origin).compose(&local)
    }

    fn taylor_enclosure(&self, dom: TimeDomain) -> Result<TaylorAffine3, KinematicsError> {
        let rotation =
            TaylorMat3::rotation_affine_angle(dom, DVec3::Z, self.alpha.slope, self.alpha.start)?;
        // The models take f64 coefficients for ψ; the rest of the exact
        // coefficients moves ψ by at most `err`, and sin, cos are
        // 1-Lipschitz, so `[−err, err]` joins their remainders.
        let (c, w) = self.psi();
        let (cm, wm) = (c.midpoint(), w.midpoint());
        let err = ((c - cm) + (w - wm) * dom.interval()).mag();
        let (sn, cs) = TaylorModel::<3>::sin_cos_affine(dom, wm, cm)?;
        let (sn, cs) = (
            sn.add_interval(symmetric(err)),
            cs.add_interval(symmetric(err)),
        );
        let s = TaylorModel::<3>::affine(dom, self.s.slope, self.s.start)?;
        let g = sinc_interval(self.alpha.over(dom.interval()) * 0.5);
        let translation = TaylorVec3::new(
            s.try_mul(&cs)?.scale_interval(g),
            s.try_mul(&sn)?.scale_interval(g),
            TaylorModel::constant(dom, 0.0),
        );
        Ok(TaylorAffine3::new(rotation, translation).premul_const(&self.origin))
    }
}

/// A link's motion relative to its parent under [`JointSpaceMotion`].
#[derive(Clone, Copy, Debug)]
enum JointSpaceLocal {
    /// Constant rotational and translational velocity.
    Screw(LocalMotion),
    /// A vehicle's braking arc.
    Arc(ArcMotion),
}

impl JointSpaceLocal {
    /// Link `i`'s local motion from `q0` to `q1` (valid configurations of
    /// `tree`), with the interpolation of [`JointSpaceMotion::config_at`].
    fn new(tree: &KinematicTree, q0: &[f64], q1: &[f64], i: usize) -> Self {
        let l = &tree.links()[i];
        let o = *l.origin();
        let r = tree.q_range(i);
        let (a, b) = (&q0[r.clone()], &q1[r]);
        let lin = |k: usize| Linear::between(a[k], b[k]);
        // Slerp along the shortest arc exactly as `config_at` computes it,
        // so both choose the same direction when the relative rotation is
        // (numerically) a half turn.
        let slerp = |k: usize| {
            let (qa, axis, angle) = shortest_arc(&a[k..k + 4], &b[k..k + 4]);
            let r0 = o.matrix3 * DMat3::from_quat(qa);
            (r0 * axis, angle, r0)
        };
        let lin3 = |k: usize| {
            let p0 = DVec3::new(a[k], a[k + 1], a[k + 2]);
            let dp = DVec3::new(b[k] - a[k], b[k + 1] - a[k + 1], b[k + 2] - a[k + 2]);
            (o.transform_point3(p0), o.matrix3 * dp)
        };
        let screw = |axis, omega, rot0, trans0, velocity| {
            Self::Screw(LocalMotion {
                axis,
                omega,
                rot0,
                trans0,
                velocity,
            })
        };
        match l.joint().kind {
            JointType::Fixed => Self::Screw(LocalMotion::constant(&o)),
            JointType::Revolute { axis } | JointType::Continuous { axis } => screw(
                o.matrix3 * axis,
                b[0] - a[0],
                o.matrix3 * DMat3::from_axis_angle(axis, a[0]),
                o.translation,
                DVec3::ZERO,
            ),
            JointType::Prismatic { axis } => {
                let d = o.matrix3 * axis;
                screw(
                    DVec3::Z,
                    0.0,
                    o.matrix3,
                    o.translation + d * a[0],
                    d * (b[0] - a[0]),
                )
            }
            JointType::Planar { normal } => {
                let (u, v) = JointType::plane_axes(normal);
                screw(
                    o.matrix3 * normal,
                    b[2] - a[2],
                    o.matrix3 * DMat3::from_axis_angle(normal, a[2]),
                    o.transform_point3(u * a[0] + v * a[1]),
                    o.matrix3 * (u * (b[0] - a[0]) + v * (b[1] - a[1])),
                )
            }
            JointType::Spherical | JointType::OrientationUncertain { .. } => {
                let (axis, angle, r0) = slerp(0);
                screw(axis, angle, r0, o.translation, DVec3::ZERO)
            }
            JointType::Floating => {
                let (axis, angle, r0) = slerp(3);
                let (p0, v) = lin3(0);
                screw(axis, angle, r0, p0, v)
            }
            JointType::LocationUncertain { .. } => {
                let (p0, v) = lin3(0);
                screw(DVec3::Z, 0.0, o.matrix3, p0, v)
            }
            JointType::Vehicle => Self::Arc(ArcMotion {
                origin: o,
                phi: Linear {
                    start: 0.0,
                    slope: 0.0,
                },
                s: lin(0),
                alpha: lin(1),
            }),
            JointType::OmniVehicle => Self::Arc(ArcMotion {
                origin: o,
                phi: lin(0),
                s: lin(1),
                alpha: lin(2),
            }),
        }
    }

    fn interval_enclosure(&self, t: Interval) -> Result<IntervalAffine3, KinematicsError> {
        match self {
            Self::Screw(m) => m.interval_enclosure(t),
            Self::Arc(a) => Ok(a.interval_enclosure(t)),
        }
    }

    fn taylor_enclosure(&self, dom: TimeDomain) -> Result<TaylorAffine3, KinematicsError> {
        match self {
            Self::Screw(m) => m.taylor_enclosure(dom),
            Self::Arc(a) => a.taylor_enclosure(dom),
        }
    }
}

/// A link's motion relative to its parent, as the piecewise Taylor boxes
/// of [`EnclosureWorkspace`] need it.
trait LocalEnclosure {
    fn interval(&self, t: Interval) -> Result<IntervalAffine3, KinematicsError>;
    fn taylor(&self, dom: TimeDomain) -> Result<TaylorAffine3, KinematicsError>;
    /// Largest rate (radians per unit time) of any angle the motion's
    /// rotation or translation turns with.
    fn rate(&self) -> f64;
    /// The constant factor `A` of the exact local rotation, `Q(t)·A` or
    /// `A·Q(t)` with `Q(t)` orthogonal: the rotation's spectral norm is at
    /// most `‖A‖₂`.
    fn rot_factor(&self) -> DMat3;
}

impl LocalEnclosure for LocalMotion {
    fn interval(&self, t: Interval) -> Result<IntervalAffine3, KinematicsError> {
        self.interval_enclosure(t)
    }
    fn taylor(&self, dom: TimeDomain) -> Result<TaylorAffine3, KinematicsError> {
        self.taylor_enclosure(dom)
    }
    fn rate(&self) -> f64 {
        self.omega.abs()
    }
    fn rot_factor(&self) -> DMat3 {
        // Rot(axis, ω t)·rot0, the axis normalised exactly.
        self.rot0
    }
}

impl LocalEnclosure for JointSpaceLocal {
    fn interval(&self, t: Interval) -> Result<IntervalAffine3, KinematicsError> {
        self.interval_enclosure(t)
    }
    fn taylor(&self, dom: TimeDomain) -> Result<TaylorAffine3, KinematicsError> {
        self.taylor_enclosure(dom)
    }
    fn rate(&self) -> f64 {
        match self {
            Self::Screw(m) => m.omega.abs(),
            // The rotation turns with α, the translation's direction with
            // ψ = φ + α/2.
            Self::Arc(a) => a
                .alpha
                .slope
                .abs()
                .max((a.phi.slope + 0.5 * a.alpha.slope).abs()),
        }
    }
    fn rot_factor(&self) -> DMat3 {
        match self {
            Self::Screw(m) => m.rot0,
            // origin ∘ (Rot_z(α), …).
            Self::Arc(a) => a.origin.matrix3,
        }
    }
}

/// An upper bound on the spectral norm `‖A‖₂` of the exact matrix `a`:
/// `‖A‖₂² = λ_max(AᵀA)`, at most the largest absolute row sum of `AᵀA`
/// (Gershgorin), computed in interval arithmetic. A rotation rounded to
/// f64 gets `1 + O(ε)`.
fn spectral_norm_bound(a: DMat3) -> f64 {
    let m = IntervalMat3::from_dmat3(a);
    let g = m.transpose().mul_mat3(&m);
    let mut nu = 0.0_f64;
    for i in 0..3 {
        let r = g.row(i);
        nu = nu.max((Interval::point(r.x.mag()) + r.y.mag() + r.z.mag()).hi());
    }
    Interval::point(nu)
        .sqrt()
        .map_or(f64::INFINITY, Interval::hi)
}

/// `[−m, m]` for an upper bound `m` of `ρ·len` (`len` non-negative).
fn reach(rho: f64, len: Interval) -> Interval {
    symmetric((Interval::point(rho) * len).hi())
}

/// Each entry of `m` intersected with `[−ρ, ρ]` (entries of a matrix of
/// spectral norm at most `ρ`).
fn clamp_entries(m: &mut IntervalMat3, rho: f64) {
    let r = symmetric(rho);
    for col in [&mut m.x_axis, &mut m.y_axis, &mut m.z_axis] {
        for e in [&mut col.x, &mut col.y, &mut col.z] {
            *e = e.intersect(r).unwrap_or(*e);
        }
    }
}

/// The entry-wise intersection of two enclosures of the same non-empty set
/// of transforms (`a` where rounding ever made them disjoint).
fn meet_affine(a: &IntervalAffine3, b: &IntervalAffine3) -> IntervalAffine3 {
    let (ra, rb) = (&a.rotation, &b.rotation);
    IntervalAffine3::new(
        IntervalMat3::from_cols(
            intersect_boxes(&ra.x_axis, &rb.x_axis),
            intersect_boxes(&ra.y_axis, &rb.y_axis),
            intersect_boxes(&ra.z_axis, &rb.z_axis),
        ),
        intersect_boxes(&a.translation, &b.translation),
    )
}

/// Number of pieces of `[t0, t1]` for a largest angular rate `rate`: each
/// piece sweeps at most [`TAYLOR_PIECE_SWING`], up to
/// [`MAX_TAYLOR_PIECES`] pieces.
fn piece_count(rate: f64, t0: f64, t1: f64) -> usize {
    let swing = rate * (t1 - t0);
    if swing.is_nan() || swing <= TAYLOR_PIECE_SWING {
        // Small swings, and NaN (reported by the enclosures themselves).
        return 1;
    }
    let k = (swing / TAYLOR_PIECE_SWING).ceil();
    if k >= MAX_TAYLOR_PIECES as f64 {
        MAX_TAYLOR_PIECES
    } else {
        (k as usize).max(1)
    }
}

/// Piece `k` of `count` of `[t0, t1]`. The split points are monotone in
/// `k` and clamped to `[t0, t1]`, the first and last are `t0` and `t1`
/// exactly, and consecutive pieces share their end points, so the pieces
/// cover `[t0, t1]`.
fn piece_bounds(t0: f64, t1: f64, k: usize, count: usize) -> (f64, f64) {
    let at = |j: usize| {
        if j == 0 {
            t0
        } else if j >= count {
            t1
        } else {
            (t0 + (t1 - t0) * (j as f64 / count as f64)).clamp(t0, t1)
        }
    };
    (at(k), at(k + 1))
}

/// As [`chain_interval`], each world rotation clamped entry-wise to
/// `[−ρᵢ, ρᵢ]`, `ρᵢ` a bound on its spectral norm.
fn chain_interval_clamped(
    parents: &[Option<usize>],
    rho: &[f64],
    out: &mut [IntervalAffine3],
    mut local: impl FnMut(usize) -> Result<IntervalAffine3, KinematicsError>,
) -> Result<(), KinematicsError> {
    for (i, parent) in parents.iter().enumerate() {
        let l = local(i)?;
        let mut w = match parent {
            Some(p) if *p < i => out[*p].compose(&l),
            _ => l,
        };
        clamp_entries(&mut w.rotation, rho[i]);
        out[i] = w;
    }
    Ok(())
}

/// The per-piece enclosures behind the Taylor boxes of [`LinkEnclosures`]:
/// `[t0, t1]` is split so that no joint sweeps more than
/// [`TAYLOR_PIECE_SWING`] per piece, and every piece gets Taylor poses and
/// interval poses whose rotations are clamped by their spectral norms.
#[derive(Clone, Debug, Default)]
struct TaylorPieces {
    /// Taylor poses per piece, piece-major; unused for a single piece (the
    /// whole-interval poses serve).
    taylor: Vec<TaylorAffine3>,
    /// Interval poses per piece, piece-major, rotations clamped.
    interval: Vec<IntervalAffine3>,
    /// Upper bound on the spectral norm of each link's world rotation.
    rho: Vec<f64>,
    /// Number of pieces.
    count: usize,
    /// Whether the Taylor boxes are intersected with the interval boxes
    /// (the swing exceeds [`TAYLOR_ALONE_SWING`]); without, `interval` is
    /// not computed.
    meet: bool,
}

impl TaylorPieces {
    fn compute<L: LocalEnclosure>(
        &mut self,
        parents: &[Option<usize>],
        locals: &[L],
        t0: f64,
        t1: f64,
    ) -> Result<(), KinematicsError> {
        let n = locals.len();
        self.rho.clear();
        for (i, (l, parent)) in locals.iter().zip(parents).enumerate() {
            let own = spectral_norm_bound(l.rot_factor());
            let r = match parent {
                Some(p) if *p < i => (Interval::point(self.rho[*p]) * own).hi(),
                _ => own,
            };
            self.rho.push(r);
        }
        let rate = locals.iter().map(L::rate).fold(0.0, f64::max);
        let count = piece_count(rate, t0, t1);
        self.count = count;
        let swing = rate * (t1 - t0);
        // NaN swings take the full path (the enclosures report them).
        self.meet = count > 1 || swing.is_nan() || swing > TAYLOR_ALONE_SWING;
        self.interval.resize(count * n, IntervalAffine3::IDENTITY);
        if count > 1 {
            self.taylor
                .resize(count * n, TaylorAffine3::identity(TimeDomain::unit()));
        }
        for k in 0..count {
            let (a, b) = piece_bounds(t0, t1, k, count);
            let t = Interval::new(a, b)?;
            if self.meet {
                let out = &mut self.interval[k * n..(k + 1) * n];
                chain_interval_clamped(parents, &self.rho, out, |i| locals[i].interval(t))?;
            }
            if count > 1 {
                let dom = TimeDomain::new(a, b)?;
                let out = &mut self.taylor[k * n..(k + 1) * n];
                chain_taylor(parents, out, |i| locals[i].taylor(dom))?;
            }
        }
        Ok(())
    }

    fn view<'a>(&'a self, whole: &'a [TaylorAffine3]) -> TaylorView<'a> {
        TaylorView {
            whole,
            pieces: &self.taylor,
            interval: &self.interval,
            rho: &self.rho,
            count: self.count,
            meet: self.meet,
        }
    }
}

/// Borrowed [`TaylorPieces`] with the whole-interval Taylor poses.
#[derive(Clone, Copy, Debug)]
struct TaylorView<'a> {
    whole: &'a [TaylorAffine3],
    pieces: &'a [TaylorAffine3],
    interval: &'a [IntervalAffine3],
    rho: &'a [f64],
    count: usize,
    /// See [`TaylorPieces::meet`].
    meet: bool,
}

impl<'a> TaylorView<'a> {
    /// The Taylor pose of `link` over piece `k`.
    fn taylor(&self, k: usize, link: usize) -> &'a TaylorAffine3 {
        if self.count == 1 {
            &self.whole[link]
        } else {
            &self.pieces[k * self.whole.len() + link]
        }
    }

    /// The clamped interval pose of `link` over piece `k` (cheap: no
    /// Taylor bound).
    fn interval_pose(&self, k: usize, link: usize) -> &'a IntervalAffine3 {
        &self.interval[k * self.whole.len() + link]
    }

    /// The pose enclosure of `link` over piece `k`: the Taylor bound
    /// intersected with the clamped interval pose.
    fn pose(&self, k: usize, link: usize) -> IntervalAffine3 {
        if !self.meet {
            return self.taylor(k, link).bound();
        }
        meet_affine(
            &self.taylor(k, link).bound(),
            &self.interval[k * self.whole.len() + link],
        )
    }
}

/// The poses behind [`EnclosureKind::Chords`] boxes: every link's chain,
/// a bound on its rotations' norms, and every link's pose at the ends of
/// the pieces of `[t0, t1]`.
#[derive(Clone, Debug, Default)]
struct ChordPieces {
    /// Poses at the `count + 1` ends of the pieces, end-major, in `f64`.
    ends: Vec<DAffine3>,
    /// Each link's chain, root first: `chains[start[i]..start[i + 1]]`.
    chains: Vec<usize>,
    start: Vec<usize>,
    /// Upper bound (at least 1) on the spectral norm of the world rotation
    /// of each link and of every link above it.
    rho: Vec<f64>,
    /// Bound on the translations along each link's chain
    /// (`Σ ρ_parent (|T₀| + |v|)`): with `ρ` times a point's reach, the
    /// scale of the rounding of its computed position.
    scale: Vec<f64>,
    /// Number of pieces.
    count: usize,
    /// The motion's local motions (for the acceleration bounds).
    local: Vec<LocalMotion>,
}

/// Relative allowance for the rounding of a pose computed in `f64` along a
/// chain, against the scale of its operands: a few dozen roundings per
/// link, each at most `2⁻⁵³` of its operands, stay far below it for
/// chains of any depth a tree holds.
const CHORD_ROUNDING: f64 = 1e-9;

impl ChordPieces {
    fn compute(
        &mut self,
        motion: &InBetweenMotion,
        t0: f64,
        t1: f64,
        swings: &mut Vec<f64>,
    ) -> Result<(), KinematicsError> {
        check_time(t0, t1)?;
        let (parents, local) = (motion.parents(), motion.local());
        let n = local.len();
        self.chains.clear();
        self.start.clear();
        self.rho.clear();
        self.scale.clear();
        for (i, (l, parent)) in local.iter().zip(parents).enumerate() {
            // Each local rotation is an exact rotation times `rot0`, whose
            // norm the motion bounds' stretch bounds (padded for rounding).
            let own = crate::bounds::stretch_of(&l.rot0).max(1.0);
            let shift = l.trans0.length() + l.velocity.length();
            self.start.push(self.chains.len());
            let (rho, scale) = match parent {
                Some(p) if *p < i => {
                    self.chains
                        .extend_from_within(self.start[*p]..self.start[*p + 1]);
                    (self.rho[*p], self.scale[*p])
                }
                _ => (1.0, 0.0),
            };
            self.chains.push(i);
            self.rho.push((Interval::point(rho) * own).hi());
            self.scale.push(scale + shift * rho);
        }
        self.start.push(self.chains.len());
        self.local.clear();
        self.local.extend_from_slice(local);
        let swing = chain_swing(parents, local, t0, t1, swings);
        let k = (swing / CHORD_PIECE_SWING).ceil();
        self.count = if k.is_nan() {
            return Err(not_finite("swing", swing));
        } else if k >= MAX_CHORD_PIECES as f64 {
            MAX_CHORD_PIECES
        } else if k >= 1.0 {
            k as usize
        } else {
            1
        };
        self.ends.resize((self.count + 1) * n, DAffine3::IDENTITY);
        for j in 0..=self.count {
            let t = if j == self.count {
                t1
            } else {
                piece_bounds(t0, t1, j, self.count).0
            };
            motion.poses_at(t, &mut self.ends[j * n..(j + 1) * n])?;
        }
        Ok(())
    }
}

/// Borrowed [`ChordPieces`] with the time interval they cover.
#[derive(Clone, Copy, Debug)]
struct ChordView<'a> {
    pieces: &'a ChordPieces,
    t0: f64,
    t1: f64,
}

impl ChordView<'_> {
    /// The box of a set fixed on `link`, within `reach` of its origin,
    /// over `[t0, t1]`, from `at(pose)`, the corners `(lo, hi)` of its box
    /// at an end pose computed in `f64`: per piece, the hull of both ends'
    /// boxes grown by the bulge and by the rounding of the poses.
    ///
    /// Each point `p(t)` of the set has `p(t) − ((1 − s) p(a) + s p(b))`
    /// zero at both ends `a`, `b` of a piece (`s = (t − a) / (b − a)`) and
    /// its second derivative within `A`, the acceleration bound, so each
    /// component is at most `A (t − a)(b − t) / 2 ≤ A (b − a)² / 8`; and
    /// `(1 − s) p(a) + s p(b)` lies in the hull of the two end boxes.
    fn swept(
        &self,
        link: usize,
        reach: f64,
        at: impl Fn(&DAffine3) -> (DVec3, DVec3),
    ) -> IntervalVec3 {
        let mut out: Option<IntervalVec3> = None;
        self.each_piece(link, reach, at, |_, piece| {
            out = Some(out.map_or(piece, |o| o.hull(&piece)));
        });
        out.unwrap_or_default()
    }

    /// [`ChordView::swept`] piece by piece: `visit((a, b), box)` for each
    /// piece `[a, b]`, earliest first.
    fn each_piece(
        &self,
        link: usize,
        reach: f64,
        at: impl Fn(&DAffine3) -> (DVec3, DVec3),
        mut visit: impl FnMut((f64, f64), IntervalVec3),
    ) {
        let p = self.pieces;
        let n = p.local.len();
        let chain = &p.chains[p.start[link]..p.start[link + 1]];
        // Rotations stretched by up to ρ scale the velocities and the
        // levers: ρ² on the acceleration, as the motion bounds take the
        // tree's stretch; the relative pad covers the sums' rounding.
        let rho = Interval::point(p.rho[link]);
        let stretch = rho.sqr() * (1.0 + 1e-12 * (chain.len() as f64 + 2.0));
        let rounding = (rho * reach + p.scale[link]).hi() * CHORD_ROUNDING;
        let (mut lo, mut hi) = at(&p.ends[link]);
        for k in 0..p.count {
            let (next_lo, next_hi) = at(&p.ends[(k + 1) * n + link]);
            let (a, b) = piece_bounds(self.t0, self.t1, k, p.count);
            let accel = crate::bounds::chain_acceleration(&p.local, chain, reach, [a, b]);
            let h = Interval::point(b) - Interval::point(a);
            let r = symmetric((Interval::point(accel) * stretch * h.sqr() / 8.0 + rounding).hi());
            let grow = |lo: f64, hi: f64| Interval::new(lo, hi).map_or(Interval::ENTIRE, |i| i + r);
            let piece = IntervalVec3::new(
                grow(lo.x.min(next_lo.x), hi.x.max(next_hi.x)),
                grow(lo.y.min(next_lo.y), hi.y.max(next_hi.y)),
                grow(lo.z.min(next_lo.z), hi.z.max(next_hi.z)),
            );
            visit((a, b), piece);
            (lo, hi) = (next_lo, next_hi);
        }
    }
}

/// `world(i) = world(parent) ∘ local(i)` in tree order (parents first).
fn chain_interval(
    parents: &[Option<usize>],
    out: &mut [IntervalAffine3],
    mut local: impl FnMut(usize) -> Result<IntervalAffine3, KinematicsError>,
) -> Result<(), KinematicsError> {
    for (i, parent) in parents.iter().enumerate() {
        let l = local(i)?;
        out[i] = match parent {
            Some(p) if *p < i => out[*p].compose(&l),
            _ => l,
        };
    }
    Ok(())
}

/// As [`chain_interval`] for Taylor enclosures.
fn chain_taylor(
    parents: &[Option<usize>],
    out: &mut [TaylorAffine3],
    mut local: impl FnMut(usize) -> Result<TaylorAffine3, KinematicsError>,
) -> Result<(), KinematicsError> {
    for (i, parent) in parents.iter().enumerate() {
        let l = local(i)?;
        out[i] = match parent {
            Some(p) if *p < i => out[*p].compose(&l),
            _ => l,
        };
    }
    Ok(())
}

impl InBetweenMotion {
    /// Writes the interval enclosure (M1 §4.1) of every link's world pose
    /// over `[t0, t1]` into `out` (one per link, tree order); no allocation.
    ///
    /// # Errors
    /// [`KinematicsError::BadTime`] unless `0 ≤ t0 ≤ t1 ≤ 1`,
    /// [`KinematicsError::BufferLength`] unless `out` has one entry per
    /// link, [`KinematicsError::Interval`] for non-finite motion parameters
    /// (overflow of huge configurations).
    pub fn enclose_interval_into(
        &self,
        t0: f64,
        t1: f64,
        out: &mut [IntervalAffine3],
    ) -> Result<(), KinematicsError> {
        let t = time_interval(t0, t1)?;
        check_len("interval poses", self.local().len(), out.len())?;
        let local = self.local();
        chain_interval(self.parents(), out, |i| local[i].interval_enclosure(t))
    }

    /// Writes into `poses` the interval enclosure of every link's world pose
    /// over `[t0, t1]` — the very values of
    /// [`InBetweenMotion::enclose_interval_into`] — and into `rates` an
    /// enclosure of its derivative with respect to the normalised time `t`,
    /// one per link in tree order; no allocation.
    ///
    /// `rates[i]` is an [`IntervalAffine3`] used as a container, not a rigid
    /// transform: its `rotation` encloses `R_i'(t)` and its `translation`
    /// encloses `T_i'(t)` for every `t ∈ [t0, t1]`, where
    /// `W_i(t) x = R_i(t) x + T_i(t)` is the link's world pose. Hence for a
    /// point `p` fixed on link `i` (link frame), `rates[i].transform_point(p)`
    /// encloses the world velocity `d/dt (W_i(t) p) = R_i'(t) p + T_i'(t)`
    /// for every `t ∈ [t0, t1]` (per unit of normalised time; divide by the
    /// duration of the motion for physical time).
    ///
    /// Locally ([`LocalMotion::interval_rate_enclosure`]):
    /// `R_l' = ω [k]× R_l` and `T_l' = v`. Along the chain, with
    /// `W_i = W_p ∘ L_i`, i.e. `R_i = R_p R_l` and `T_i = R_p T_l + T_p`,
    /// the product rule gives
    ///
    /// ```text
    /// R_i' = R_p' R_l + R_p R_l'
    /// T_i' = R_p' T_l + R_p T_l' + T_p'
    /// ```
    ///
    /// evaluated in outward-rounded interval arithmetic with the enclosures
    /// of `R_p, T_p, R_p', T_p'` over `[t0, t1]` (parents first) and of the
    /// local `R_l, T_l, R_l', T_l'`. Every factor encloses its true value at
    /// each `t`, so the result does too. A link whose parent is `None` or
    /// not earlier in tree order is a root: its rate is the local one.
    ///
    /// # Errors
    /// [`KinematicsError::BadTime`] unless `0 ≤ t0 ≤ t1 ≤ 1`,
    /// [`KinematicsError::BufferLength`] unless `poses` and `rates` each
    /// have one entry per link, [`KinematicsError::Interval`] for non-finite
    /// motion parameters.
    pub fn enclose_interval_rate_into(
        &self,
        t0: f64,
        t1: f64,
        poses: &mut [IntervalAffine3],
        rates: &mut [IntervalAffine3],
    ) -> Result<(), KinematicsError> {
        let t = time_interval(t0, t1)?;
        let local = self.local();
        check_len("interval poses", local.len(), poses.len())?;
        check_len("interval rates", local.len(), rates.len())?;
        for (i, parent) in self.parents().iter().enumerate() {
            let l = local[i].interval_enclosure(t)?;
            let lr = local[i].rate_from_pose(&l);
            (poses[i], rates[i]) = match parent {
                Some(p) if *p < i => {
                    let (wp, wr) = (&poses[*p], &rates[*p]);
                    let rotation =
                        wr.rotation.mul_mat3(&l.rotation) + wp.rotation.mul_mat3(&lr.rotation);
                    let translation = wr.rotation.mul_vec3(&l.translation)
                        + wp.rotation.mul_vec3(&lr.translation)
                        + wr.translation;
                    (wp.compose(&l), IntervalAffine3::new(rotation, translation))
                }
                _ => (l, lr),
            };
        }
        Ok(())
    }

    /// Writes the Taylor enclosure (M4 §5.2) of every link's world pose over
    /// `[t0, t1]` into `out`; no allocation.
    ///
    /// # Errors
    /// As [`InBetweenMotion::enclose_interval_into`].
    pub fn enclose_taylor_into(
        &self,
        t0: f64,
        t1: f64,
        out: &mut [TaylorAffine3],
    ) -> Result<(), KinematicsError> {
        check_time(t0, t1)?;
        let dom = TimeDomain::new(t0, t1)?;
        check_len("taylor poses", self.local().len(), out.len())?;
        let local = self.local();
        chain_taylor(self.parents(), out, |i| local[i].taylor_enclosure(dom))
    }

    /// The interval enclosures of [`InBetweenMotion::enclose_interval_into`]
    /// in a new vector.
    ///
    /// # Errors
    /// As [`InBetweenMotion::enclose_interval_into`].
    pub fn enclose_interval(
        &self,
        t0: f64,
        t1: f64,
    ) -> Result<Vec<IntervalAffine3>, KinematicsError> {
        let mut out = vec![IntervalAffine3::IDENTITY; self.local().len()];
        self.enclose_interval_into(t0, t1, &mut out)?;
        Ok(out)
    }

    /// The Taylor enclosures of [`InBetweenMotion::enclose_taylor_into`] in
    /// a new vector.
    ///
    /// # Errors
    /// As [`InBetweenMotion::enclose_interval_into`].
    pub fn enclose_taylor(&self, t0: f64, t1: f64) -> Result<Vec<TaylorAffine3>, KinematicsError> {
        let mut out = vec![TaylorAffine3::identity(TimeDomain::unit()); self.local().len()];
        self.enclose_taylor_into(t0, t1, &mut out)?;
        Ok(out)
    }
}

impl JointSpaceMotion {
    fn check_tree(&self, tree: &KinematicTree) -> Result<(), KinematicsError> {
        if self.start().len() == tree.nq() {
            Ok(())
        } else {
            Err(KinematicsError::ConfigLength {
                expected: tree.nq(),
                got: self.start().len(),
            })
        }
    }

    /// Writes the interval enclosure of every link's world pose over
    /// `[t0, t1]` into `out` (`tree` is the tree the motion was built for);
    /// no allocation.
    ///
    /// Every joint but the vehicles moves its link by an in-between motion
    /// ([`LocalMotion`], built with the slerp of
    /// [`JointSpaceMotion::config_at`]), enclosed as in
    /// [`InBetweenMotion::enclose_interval_into`]. A vehicle joint's braking
    /// arc ([`crate::joint::vehicle_transform`] with `φ, s, α` linear in `t`)
    /// is enclosed on [`ARC_PIECES`] sub-intervals of time with
    /// [`sinc_interval`] and hulled.
    ///
    /// # Errors
    /// [`KinematicsError::BadTime`], [`KinematicsError::ConfigLength`] when
    /// the motion does not fit `tree`, [`KinematicsError::BufferLength`],
    /// [`KinematicsError::Interval`] for non-finite motion parameters.
    pub fn enclose_interval_into(
        &self,
        tree: &KinematicTree,
        t0: f64,
        t1: f64,
        out: &mut [IntervalAffine3],
    ) -> Result<(), KinematicsError> {
        let t = time_interval(t0, t1)?;
        self.check_tree(tree)?;
        check_len("interval poses", tree.len(), out.len())?;
        let (q0, q1) = (self.start(), self.end());
        let parents = tree.links().iter().map(crate::tree::Link::parent);
        for (i, parent) in parents.enumerate() {
            let l = JointSpaceLocal::new(tree, q0, q1, i).interval_enclosure(t)?;
            out[i] = match parent {
                Some(p) if p < i => out[p].compose(&l),
                _ => l,
            };
        }
        Ok(())
    }

    /// Writes the Taylor enclosure of every link's world pose over
    /// `[t0, t1]` into `out`; no allocation.
    ///
    /// In-between local motions are enclosed as in
    /// [`InBetweenMotion::enclose_taylor_into`]. A vehicle joint's braking
    /// arc keeps its rotation exact (an affine angle about z); its
    /// translation `s(t)·sinc(α(t)/2)·(cos ψ(t), sin ψ(t), 0)` is the Taylor
    /// product `s(t)·(cos ψ(t), sin ψ(t), 0)` scaled by the interval of
    /// `sinc(α/2)` over the whole of `[t0, t1]` ([`sinc_interval`]), a
    /// constant-in-time factor: sound, looser than a full Taylor model.
    ///
    /// # Errors
    /// As [`JointSpaceMotion::enclose_interval_into`].
    pub fn enclose_taylor_into(
        &self,
        tree: &KinematicTree,
        t0: f64,
        t1: f64,
        out: &mut [TaylorAffine3],
    ) -> Result<(), KinematicsError> {
        check_time(t0, t1)?;
        let dom = TimeDomain::new(t0, t1)?;
        self.check_tree(tree)?;
        check_len("taylor poses", tree.len(), out.len())?;
        let (q0, q1) = (self.start(), self.end());
        let parents = tree.links().iter().map(crate::tree::Link::parent);
        for (i, parent) in parents.enumerate() {
            let l = JointSpaceLocal::new(tree, q0, q1, i).taylor_enclosure(dom)?;
            out[i] = match parent {
                Some(p) if p < i => out[p].compose(&l),
                _ => l,
            };
        }
        Ok(())
    }

    /// The interval enclosures of
    /// [`JointSpaceMotion::enclose_interval_into`] in a new vector.
    ///
    /// # Errors
    /// As [`JointSpaceMotion::enclose_interval_into`].
    pub fn enclose_interval(
        &self,
        tree: &KinematicTree,
        t0: f64,
        t1: f64,
    ) -> Result<Vec<IntervalAffine3>, KinematicsError> {
        let mut out = vec![IntervalAffine3::IDENTITY; tree.len()];
        self.enclose_interval_into(tree, t0, t1, &mut out)?;
        Ok(out)
    }

    /// The Taylor enclosures of [`JointSpaceMotion::enclose_taylor_into`] in
    /// a new vector.
    ///
    /// # Errors
    /// As [`JointSpaceMotion::enclose_interval_into`].
    pub fn enclose_taylor(
        &self,
        tree: &KinematicTree,
        t0: f64,
        t1: f64,
    ) -> Result<Vec<TaylorAffine3>, KinematicsError> {
        let mut out = vec![TaylorAffine3::identity(TimeDomain::unit()); tree.len()];
        self.enclose_taylor_into(tree, t0, t1, &mut out)?;
        Ok(out)
    }
}

/// An oriented box fixed in a link's frame: `centre + axes·(e ⊙ u)` for
/// `u ∈ [−1, 1]³` with half-extents `e`. The axes need not be orthonormal
/// for the enclosures to be sound (any affine image of a cube is bounded by
/// its corners).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkObb {
    center: DVec3,
    half_extents: DVec3,
    axes: DMat3,
    /// Enclosures of the 8 exact corners in the link frame (bit `j` of
    /// the index set: `+e_j` along axis `j`), computed once here for
    /// [`LinkObb::aabb_interval`].
    corner_sets: [IntervalVec3; 8],
    /// Upper bound on the distance of any point of the box from the link
    /// origin (its farthest corner's), for [`EnclosureKind::Chords`].
    reach: f64,
}

impl LinkObb {
    /// A box with centre, half-extents (their absolute values are used) and
    /// axes (the columns of `axes`), in the link frame.
    ///
    /// # Errors
    /// [`KinematicsError::Interval`] with [`IntervalError::NotFinite`] for a
    /// NaN or infinite component.
    pub fn new(center: DVec3, half_extents: DVec3, axes: DMat3) -> Result<Self, KinematicsError> {
        finite_vec("obb.center", center)?;
        finite_vec("obb.half_extents", half_extents)?;
        for c in [axes.x_axis, axes.y_axis, axes.z_axis] {
            finite_vec("obb.axes", c)?;
        }
        let half_extents = half_extents.abs();
        let (c, a) = (
            IntervalVec3::from_point(center),
            IntervalMat3::from_dmat3(axes),
        );
        let corner_sets: [IntervalVec3; 8] = core::array::from_fn(|k| {
            c + a.mul_vec3(&IntervalVec3::from_point(half_extents * Self::signs(k)))
        });
        let reach = corner_sets
            .iter()
            .map(|c| c.length().hi())
            .fold(0.0, f64::max);
        Ok(Self {
            center,
            half_extents,
            axes,
            corner_sets,
            reach,
        })
    }

    /// The centre (link frame).
    #[must_use]
    pub const fn center(&self) -> DVec3 {
        self.center
    }

    /// The half-extents along the axes (non-negative).
    #[must_use]
    pub const fn half_extents(&self) -> DVec3 {
        self.half_extents
    }

    /// The axes, as the columns of a matrix (link frame).
    #[must_use]
    pub const fn axes(&self) -> DMat3 {
        self.axes
    }

    /// The signs `u ∈ {−1, 1}³` of corner `k` (bit `j` of `k` set: `+1`).
    fn signs(k: usize) -> DVec3 {
        let s = |j: usize| if k >> j & 1 == 1 { 1.0 } else { -1.0 };
        DVec3::new(s(0), s(1), s(2))
    }

    /// The 8 corners in the link frame, rounded to nearest (for sampling;
    /// the enclosures bound the exact corners).
    #[must_use]
    pub fn corners(&self) -> [DVec3; 8] {
        core::array::from_fn(|k| self.center + self.axes * (self.half_extents * Self::signs(k)))
    }

    /// Enclosure of the box moved by every transform in `pose`: the hull of
    /// the 8 corners' interval images, intersected with
    /// `R·centre + T ± |R·axes|·e`.
    #[must_use]
    pub fn aabb_interval(&self, pose: &IntervalAffine3) -> IntervalVec3 {
        let [first, rest @ ..] = &self.corner_sets;
        let corners = rest
            .iter()
            .fold(pose.transform_point_set(first), |acc, local| {
                acc.hull(&pose.transform_point_set(local))
            });
        let ra = pose.rotation.mul_mat3(&IntervalMat3::from_dmat3(self.axes));
        let e = self.half_extents;
        let reach = |i: usize| {
            let r = Interval::point(ra.x_axis.get(i).mag()) * e.x
                + Interval::point(ra.y_axis.get(i).mag()) * e.y
                + Interval::point(ra.z_axis.get(i).mag()) * e.z;
            symmetric(r.hi())
        };
        let by_centre =
            pose.transform_point(self.center) + IntervalVec3::new(reach(0), reach(1), reach(2));
        intersect_boxes(&corners, &by_centre)
    }

    /// The box moved by `pose`, computed in `f64` (not rounded outward):
    /// `R·centre + T ± |R·axes|·e`, as `(lo, hi)`.
    fn aabb_at(&self, pose: &DAffine3) -> (DVec3, DVec3) {
        let c = pose.transform_point3(self.center);
        let ra = pose.matrix3 * self.axes;
        let e = self.half_extents;
        let h = ra.x_axis.abs() * e.x + ra.y_axis.abs() * e.y + ra.z_axis.abs() * e.z;
        (c - h, c + h)
    }

    /// Enclosure of the box over the whole domain of a Taylor pose (M4
    /// §5.2): each corner's trajectory `C(t) ± e₀V₀(t) ± e₁V₁(t) ± e₂V₂(t)`
    /// (with `C = R·centre + T`, `Vⱼ = R·axisⱼ`, all in Taylor arithmetic)
    /// is bounded, and the AABB of the 8 boxes bounds the moving box by
    /// convexity.
    #[must_use]
    pub fn aabb_taylor(&self, pose: &TaylorAffine3) -> IntervalVec3 {
        let c = pose.transform_point(self.center);
        let e = self.half_extents;
        let v = [
            pose.transform_vector(self.axes.x_axis).scale(e.x),
            pose.transform_vector(self.axes.y_axis).scale(e.y),
            pose.transform_vector(self.axes.z_axis).scale(e.z),
        ];
        // Corner k has +e_j V_j where bit j of k is set; the sums share
        // their partial sums level by level (14 vector sums, not 24).
        let mut corners = [c; 8];
        let mut n = 1;
        for vj in &v {
            for k in 0..n {
                let p = corners[k];
                corners[k] = p.sub(vj);
                corners[k + n] = p.add(vj);
            }
            n *= 2;
        }
        let mut out = corners[0].bound();
        for p in &corners[1..] {
            out = out.hull(&p.bound());
        }
        out
    }
}

impl LinkObb {
    /// The Taylor box over every piece of time, hulled: per piece, the
    /// Taylor corner box intersected with the interval box of the clamped
    /// piece pose and with `centre ± ρ Σⱼ eⱼ |axisⱼ|` (every point of the
    /// box is at most that far from its centre after a linear map of norm
    /// at most `ρ`).
    fn aabb_taylor_pieces(&self, v: &TaylorView<'_>, link: usize) -> IntervalVec3 {
        let e = self.half_extents;
        let len = |a: DVec3| IntervalVec3::from_point(a).length();
        let spread = Interval::point(e.x) * len(self.axes.x_axis)
            + Interval::point(e.y) * len(self.axes.y_axis)
            + Interval::point(e.z) * len(self.axes.z_axis);
        if !v.meet {
            return self.aabb_taylor(v.taylor(0, link));
        }
        let r = reach(v.rho[link], spread);
        let mut out: Option<IntervalVec3> = None;
        for k in 0..v.count {
            // The interval pose, not its meet with the Taylor bound: the
            // corner boxes are intersected with the Taylor box anyway, and
            // bounding the Taylor pose would cost more than the rest.
            let pose = v.interval_pose(k, link);
            let around = pose.transform_point(self.center) + IntervalVec3::new(r, r, r);
            let b = intersect_boxes(
                &self.aabb_taylor(v.taylor(k, link)),
                &self.aabb_interval(pose),
            );
            let b = intersect_boxes(&b, &around);
            out = Some(out.map_or(b, |acc| acc.hull(&b)));
        }
        out.unwrap_or_default()
    }
}

/// The intersection of two boxes that both hold the same non-empty set
/// (`a` if rounding ever made them disjoint).
fn intersect_boxes(a: &IntervalVec3, b: &IntervalVec3) -> IntervalVec3 {
    match (a.x.intersect(b.x), a.y.intersect(b.y), a.z.intersect(b.z)) {
        (Some(x), Some(y), Some(z)) => IntervalVec3::new(x, y, z),
        _ => *a,
    }
}

/// Reusable buffers for the pose enclosures of one or several trees: the
/// buffers grow to the largest tree seen and are reused, so steady-state
/// queries do not allocate.
///
/// A query encloses every link's world pose over `[t0, t1] ⊆ [0, 1]` by
/// interval products (M1 §4.1) or third-order Taylor models (M4 §5.2) and
/// returns them as [`LinkEnclosures`], from which the dynamic AABBs of link
/// boxes and point sets follow. Taylor queries also split `[t0, t1]` where
/// a joint sweeps more than [`TAYLOR_PIECE_SWING`] and keep, per piece,
/// Taylor and clamped interval poses whose boxes are intersected (see the
/// module docs); [`LinkEnclosures::taylor_poses`] still gives the models
/// over the whole interval. **Guarantee**: conservative in floating
/// point — the exact pose of the motion at every `t ∈ [t0, t1]`, and every
/// point of a box or point set fixed on the link, lies inside.
///
/// ```
/// use armature_kinematics::prelude::*;
/// use glam::{DAffine3, DVec3};
/// let tree = KinematicTree::new(vec![
///     LinkSpec::new("car", None).with_joint(Joint::new("drive", JointType::Vehicle)),
/// ])?;
/// // Brake along an arc: 1 m while turning 0.5 rad.
/// let motion = JointSpaceMotion::new(&tree, &[0.0, 0.0], &[1.0, 0.5])?;
/// let mut ws = EnclosureWorkspace::new();
/// let encl = ws.joint_space(&tree, &motion, EnclosureKind::Interval, 0.0, 1.0)?;
/// let swept = encl.point_aabb(0, DVec3::ZERO)?;
/// let mut q = [0.0; 2];
/// let mut poses = [DAffine3::IDENTITY];
/// motion.poses_at(&tree, 0.7, &mut q, &mut poses)?;
/// assert!(swept.contains(poses[0].translation));
/// # Ok::<(), KinematicsError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct EnclosureWorkspace {
    interval: Vec<IntervalAffine3>,
    taylor: Vec<TaylorAffine3>,
    pieces: TaylorPieces,
    parents: Vec<Option<usize>>,
    locals: Vec<JointSpaceLocal>,
    /// Scratch of [`EnclosureKind::BySwing`]'s chain sums.
    swings: Vec<f64>,
    chords: ChordPieces,
}

impl EnclosureWorkspace {
    /// An empty workspace.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A workspace with room for trees of `links` links.
    #[must_use]
    pub fn with_links(links: usize) -> Self {
        Self {
            interval: Vec::with_capacity(links),
            taylor: Vec::with_capacity(links),
            pieces: TaylorPieces::default(),
            parents: Vec::with_capacity(links),
            locals: Vec::with_capacity(links),
            swings: Vec::with_capacity(links),
            chords: ChordPieces::default(),
        }
    }

    fn buffers(&mut self, kind: EnclosureKind, n: usize) {
        match kind {
            EnclosureKind::Interval => self.interval.resize(n, IntervalAffine3::IDENTITY),
            EnclosureKind::Taylor | EnclosureKind::BySwing => self
                .taylor
                .resize(n, TaylorAffine3::identity(TimeDomain::unit())),
            EnclosureKind::Chords => {}
        }
    }

    /// Enclosures of the in-between motion's link poses over `[t0, t1]`.
    ///
    /// # Errors
    /// As [`InBetweenMotion::enclose_interval_into`].
    pub fn in_between(
        &mut self,
        motion: &InBetweenMotion,
        kind: EnclosureKind,
        t0: f64,
        t1: f64,
    ) -> Result<LinkEnclosures<'_>, KinematicsError> {
        let kind = match kind {
            EnclosureKind::BySwing => kind.for_swing(chain_swing(
                motion.parents(),
                motion.local(),
                t0,
                t1,
                &mut self.swings,
            )),
            kind => kind,
        };
        self.buffers(kind, motion.local().len());
        let poses = match kind {
            EnclosureKind::Interval => {
                motion.enclose_interval_into(t0, t1, &mut self.interval)?;
                Poses::Interval(&self.interval)
            }
            EnclosureKind::Taylor | EnclosureKind::BySwing => {
                motion.enclose_taylor_into(t0, t1, &mut self.taylor)?;
                self.pieces
                    .compute(motion.parents(), motion.local(), t0, t1)?;
                Poses::Taylor(self.pieces.view(&self.taylor))
            }
            EnclosureKind::Chords => {
                self.chords.compute(motion, t0, t1, &mut self.swings)?;
                Poses::Chords(ChordView {
                    pieces: &self.chords,
                    t0,
                    t1,
                })
            }
        };
        Ok(LinkEnclosures { t0, t1, poses })
    }

    /// Enclosures of the joint-space motion's link poses over `[t0, t1]`
    /// ([`EnclosureKind::Chords`] is taken as [`EnclosureKind::BySwing`]:
    /// braking arcs have no acceleration bound here).
    ///
    /// # Errors
    /// As [`JointSpaceMotion::enclose_interval_into`].
    pub fn joint_space(
        &mut self,
        tree: &KinematicTree,
        motion: &JointSpaceMotion,
        kind: EnclosureKind,
        t0: f64,
        t1: f64,
    ) -> Result<LinkEnclosures<'_>, KinematicsError> {
        // The local motions serve the Taylor models and the swing.
        if kind != EnclosureKind::Interval {
            let (q0, q1) = (motion.start(), motion.end());
            self.parents.clear();
            self.parents
                .extend(tree.links().iter().map(crate::tree::Link::parent));
            self.locals.clear();
            self.locals
                .extend((0..tree.len()).map(|i| JointSpaceLocal::new(tree, q0, q1, i)));
        }
        let kind = match kind {
            EnclosureKind::BySwing | EnclosureKind::Chords => EnclosureKind::BySwing.for_swing(
                chain_swing(&self.parents, &self.locals, t0, t1, &mut self.swings),
            ),
            kind => kind,
        };
        self.buffers(kind, tree.len());
        let poses = match kind {
            EnclosureKind::Interval => {
                motion.enclose_interval_into(tree, t0, t1, &mut self.interval)?;
                Poses::Interval(&self.interval)
            }
            EnclosureKind::Taylor | EnclosureKind::BySwing | EnclosureKind::Chords => {
                motion.enclose_taylor_into(tree, t0, t1, &mut self.taylor)?;
                self.pieces.compute(&self.parents, &self.locals, t0, t1)?;
                Poses::Taylor(self.pieces.view(&self.taylor))
            }
        };
        Ok(LinkEnclosures { t0, t1, poses })
    }
}

#[derive(Clone, Copy, Debug)]
enum Poses<'a> {
    Interval(&'a [IntervalAffine3]),
    Taylor(TaylorView<'a>),
    Chords(ChordView<'a>),
}

/// The pose enclosures of every link of one motion over one time interval,
/// borrowed from an [`EnclosureWorkspace`], with the dynamic AABBs of link
/// boxes and point sets (M1 §4.1, M4 §5.2).
///
/// Links are named by their index in tree order; errors about a link's
/// geometry name it `#index`, since the enclosures do not keep the tree.
#[derive(Clone, Copy, Debug)]
pub struct LinkEnclosures<'a> {
    t0: f64,
    t1: f64,
    poses: Poses<'a>,
}

impl<'a> LinkEnclosures<'a> {
    /// Interval, Taylor or chords.
    #[must_use]
    pub const fn kind(&self) -> EnclosureKind {
        match self.poses {
            Poses::Interval(_) => EnclosureKind::Interval,
            Poses::Taylor(_) => EnclosureKind::Taylor,
            Poses::Chords(_) => EnclosureKind::Chords,
        }
    }

    /// The time interval `(t0, t1)` enclosed.
    #[must_use]
    pub const fn time_interval(&self) -> (f64, f64) {
        (self.t0, self.t1)
    }

    /// Number of links.
    #[must_use]
    pub const fn len(&self) -> usize {
        match self.poses {
            Poses::Interval(p) => p.len(),
            Poses::Taylor(v) => v.whole.len(),
            Poses::Chords(v) => v.pieces.local.len(),
        }
    }

    /// Whether there are no links.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The interval enclosures, when that is the kind computed.
    #[must_use]
    pub const fn interval_poses(&self) -> Option<&'a [IntervalAffine3]> {
        match self.poses {
            Poses::Interval(p) => Some(p),
            Poses::Taylor(_) | Poses::Chords(_) => None,
        }
    }

    /// The Taylor enclosures, when that is the kind computed.
    #[must_use]
    pub const fn taylor_poses(&self) -> Option<&'a [TaylorAffine3]> {
        match self.poses {
            Poses::Taylor(v) => Some(v.whole),
            Poses::Interval(_) | Poses::Chords(_) => None,
        }
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

    /// Enclosure of link `link`'s world pose over the whole interval. For
    /// Taylor enclosures: the hull over the pieces of time (see
    /// [`EnclosureWorkspace`]) of the Taylor bound intersected with the
    /// interval pose, rotation entries clamped by the rotation's norm. For
    /// chords: the link origin's box, and every rotation entry within the
    /// bound on the rotation's norm (sound, loose).
    ///
    /// # Errors
    /// [`KinematicsError::LinkIndex`].
    pub fn pose_bound(&self, link: usize) -> Result<IntervalAffine3, KinematicsError> {
        self.check_link(link)?;
        Ok(match self.poses {
            Poses::Interval(p) => p[link],
            Poses::Chords(v) => {
                let r = symmetric(v.pieces.rho[link]);
                let col = IntervalVec3::new(r, r, r);
                let origin = v.swept(link, 0.0, |pose| (pose.translation, pose.translation));
                IntervalAffine3::new(IntervalMat3::from_cols(col, col, col), origin)
            }
            Poses::Taylor(v) => {
                let mut out = v.pose(0, link);
                for k in 1..v.count {
                    let b = v.pose(k, link);
                    out = IntervalAffine3::new(
                        IntervalMat3::from_cols(
                            out.rotation.x_axis.hull(&b.rotation.x_axis),
                            out.rotation.y_axis.hull(&b.rotation.y_axis),
                            out.rotation.z_axis.hull(&b.rotation.z_axis),
                        ),
                        out.translation.hull(&b.translation),
                    );
                }
                out
            }
        })
    }

    /// The dynamic AABB of the point `p` fixed on link `link` (link frame).
    ///
    /// # Errors
    /// [`KinematicsError::LinkIndex`], [`KinematicsError::NotFinite`].
    pub fn point_aabb(&self, link: usize, p: DVec3) -> Result<IntervalVec3, KinematicsError> {
        self.points_aabb(link, core::slice::from_ref(&p))
    }

    /// The dynamic AABB of a point set fixed on link `link` (link frame;
    /// for Taylor enclosures, per piece of time and intersected with the
    /// interval box, see the module docs).
    ///
    /// # Errors
    /// [`KinematicsError::LinkIndex`], [`KinematicsError::EmptyPoints`],
    /// [`KinematicsError::NotFinite`] for a NaN or infinite coordinate.
    pub fn points_aabb(
        &self,
        link: usize,
        points: &[DVec3],
    ) -> Result<IntervalVec3, KinematicsError> {
        self.check_link(link)?;
        for p in points {
            if let Some(&value) = p.to_array().iter().find(|c| !c.is_finite()) {
                return Err(KinematicsError::NotFinite {
                    link: format!("#{link}"),
                    field: "point",
                    value,
                });
            }
        }
        let mut out: Option<IntervalVec3> = None;
        let mut add = |b: IntervalVec3| out = Some(out.map_or(b, |acc| acc.hull(&b)));
        match self.poses {
            Poses::Interval(poses) => points
                .iter()
                .for_each(|p| add(poses[link].transform_point(*p))),
            Poses::Taylor(v) => {
                for k in 0..v.count {
                    let (tm, pose) = (v.taylor(k, link), v.pose(k, link));
                    for p in points {
                        // |R(t) p| ≤ ρ |p| on every axis.
                        let r = reach(v.rho[link], IntervalVec3::from_point(*p).length());
                        let around = pose.translation + IntervalVec3::new(r, r, r);
                        let b = intersect_boxes(&tm.bound_point(*p), &pose.transform_point(*p));
                        add(intersect_boxes(&b, &around));
                    }
                }
            }
            Poses::Chords(v) if !points.is_empty() => {
                let reach = points
                    .iter()
                    .map(|p| IntervalVec3::from_point(*p).length().hi())
                    .fold(0.0, f64::max);
                add(v.swept(link, reach, |pose| {
                    let mut b = (DVec3::INFINITY, DVec3::NEG_INFINITY);
                    for p in points {
                        let w = pose.transform_point3(*p);
                        b = (b.0.min(w), b.1.max(w));
                    }
                    b
                }));
            }
            Poses::Chords(_) => {}
        }
        out.ok_or_else(|| KinematicsError::EmptyPoints {
            link: format!("#{link}"),
        })
    }

    /// The dynamic AABB of a box fixed on link `link` (M4 §5.2: the AABB
    /// of its 8 corners' trajectories; for Taylor enclosures, per piece of
    /// time and intersected with the interval box, see the module docs).
    ///
    /// # Errors
    /// [`KinematicsError::LinkIndex`].
    pub fn obb_aabb(&self, link: usize, obb: &LinkObb) -> Result<IntervalVec3, KinematicsError> {
        self.check_link(link)?;
        Ok(match self.poses {
            Poses::Interval(p) => obb.aabb_interval(&p[link]),
            Poses::Taylor(v) => obb.aabb_taylor_pieces(&v, link),
            Poses::Chords(v) => v.swept(link, obb.reach, |pose| obb.aabb_at(pose)),
        })
    }

    /// The dynamic AABBs of a box fixed on link `link` over consecutive
    /// pieces of the time interval, earliest first, each with its piece
    /// `(a, b)`, written into `out` (cleared first): one per piece of time
    /// of [`EnclosureKind::Chords`] (their hull is
    /// [`LinkEnclosures::obb_aabb`]'s box), the whole interval with that box
    /// for the other kinds. A set that stays clear of something on the
    /// first pieces cannot meet it before the first piece whose box does.
    ///
    /// # Errors
    /// [`KinematicsError::LinkIndex`].
    pub fn obb_aabb_pieces(
        &self,
        link: usize,
        obb: &LinkObb,
        out: &mut Vec<((f64, f64), IntervalVec3)>,
    ) -> Result<(), KinematicsError> {
        self.check_link(link)?;
        out.clear();
        match self.poses {
            Poses::Chords(v) => {
                v.each_piece(
                    link,
                    obb.reach,
                    |pose| obb.aabb_at(pose),
                    |ab, b| out.push((ab, b)),
                );
            }
            _ => out.push(((self.t0, self.t1), self.obb_aabb(link, obb)?)),
        }
        Ok(())
    }

    /// The dynamic AABBs of one box per link, written into `out`.
    ///
    /// # Errors
    /// [`KinematicsError::BufferLength`] unless `obbs` and `out` have one
    /// entry per link.
    pub fn obb_aabbs_into(
        &self,
        obbs: &[LinkObb],
        out: &mut [IntervalVec3],
    ) -> Result<(), KinematicsError> {
        check_len("obbs", self.len(), obbs.len())?;
        check_len("aabbs", self.len(), out.len())?;
        for (i, (obb, o)) in obbs.iter().zip(out.iter_mut()).enumerate() {
            *o = self.obb_aabb(i, obb)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::joint::{Joint, sinc};
    use crate::tree::LinkSpec;
    use glam::DQuat;

    fn widen(a: &IntervalAffine3, r: f64) -> IntervalAffine3 {
        let w = |v: IntervalVec3| IntervalVec3::new(v.x.inflate(r), v.y.inflate(r), v.z.inflate(r));
        IntervalAffine3::new(
            IntervalMat3::from_cols(
                w(a.rotation.x_axis),
                w(a.rotation.y_axis),
                w(a.rotation.z_axis),
            ),
            w(a.translation),
        )
    }

    fn sample_motions() -> Vec<LocalMotion> {
        let rot = |x: f64, y: f64, z: f64| {
            DMat3::from_quat(DQuat::from_euler(glam::EulerRot::XYZ, x, y, z))
        };
        vec![
            LocalMotion {
                axis: DVec3::new(1.0, 2.0, -0.5).normalize(),
                omega: 2.5,
                rot0: rot(0.3, -1.0, 2.0),
                trans0: DVec3::new(0.3, -0.1, 0.2),
                velocity: DVec3::new(-0.4, 0.7, 0.05),
            },
            LocalMotion {
                axis: DVec3::Z,
                omega: -9.0,
                rot0: rot(1.3, 0.2, -0.7),
                trans0: DVec3::X,
                velocity: DVec3::ZERO,
            },
            LocalMotion::constant(&DAffine3::from_rotation_translation(
                DQuat::from_rotation_y(0.4),
                DVec3::new(0.0, 1.0, 2.0),
            )),
        ]
    }

    /// The Taylor local motion is `Rot(axis, ωt)·rot0` and `trans0 + v t`,
    /// the algebra of [`LocalMotion::pose`]: its polynomial part at `t`
    /// agrees with the pose to rounding, and its enclosure at `t` holds it.
    #[test]
    fn local_taylor_matches_pose() {
        for m in sample_motions() {
            for (t0, t1) in [(0.0, 1.0), (0.2, 0.45), (0.7, 0.7)] {
                let dom = TimeDomain::new(t0, t1).unwrap();
                let tm = m.taylor_enclosure(dom).unwrap();
                let im = m
                    .interval_enclosure(Interval::new(t0, t1).unwrap())
                    .unwrap();
                for k in 0..=10 {
                    let t = (t0 + (t1 - t0) * f64::from(k) / 10.0).clamp(t0, t1);
                    let pose = m.pose(t);
                    let at = tm.eval(t).unwrap();
                    // Rounding of the f64 pose only (see the proptests).
                    assert!(
                        widen(&at, 1e-12).contains(&pose),
                        "taylor at {t}: {at:?} vs {pose:?}"
                    );
                    assert!(widen(&im, 1e-12).contains(&pose), "interval at {t}");
                    // On the point domain {t} the model is the pose itself,
                    // up to rounding: this pins the algebra, not just soundness.
                    let exact = m
                        .taylor_enclosure(TimeDomain::new(t, t).unwrap())
                        .unwrap()
                        .eval(t)
                        .unwrap();
                    assert!(exact.rotation.midpoint().abs_diff_eq(pose.matrix3, 1e-12));
                    assert!(
                        exact
                            .translation
                            .midpoint()
                            .abs_diff_eq(pose.translation, 1e-12)
                    );
                    assert!(exact.translation.width().max_element() < 1e-12);
                }
            }
        }
    }

    #[test]
    fn sinc_interval_known_values() {
        let at = |a: f64, b: f64| sinc_interval(Interval::new(a, b).unwrap());
        let zero = at(0.0, 0.0);
        assert!(zero.contains(1.0) && zero.width() < 1e-15);
        let r = at(-1e-3, 2e-3);
        assert!(r.contains(1.0) && r.contains(sinc(2e-3)) && r.lo() > 0.999_999);
        // Even: [-3, -2] and [2, 3] give the same enclosure.
        assert_eq!(at(-3.0, -2.0), at(2.0, 3.0));
        let r = at(2.0, 3.0);
        assert!(r.contains(sinc(2.0)) && r.contains(sinc(3.0)));
        // Global range for unbounded arguments.
        let g = sinc_interval(Interval::ENTIRE);
        assert!(g.contains(1.0) && g.contains(-0.2172) && !g.contains(-0.22));
        // The minimum near 4.4934.
        let m = at(4.0, 5.0);
        assert!(m.contains(sinc(4.493_409_457_909_064)));
    }

    fn tree(kind: JointType) -> KinematicTree {
        KinematicTree::new(vec![
            LinkSpec::new("a", None).with_joint(Joint::new("ja", kind)),
            LinkSpec::new("b", Some("a"))
                .with_joint(Joint::new("jb", JointType::Revolute { axis: DVec3::Y }))
                .with_origin(DAffine3::from_translation(DVec3::new(0.5, 0.0, 0.0))),
        ])
        .unwrap()
    }

    #[test]
    fn errors_are_typed() {
        let t = tree(JointType::Revolute { axis: DVec3::Z });
        let m = InBetweenMotion::new(&t, &[0.0, 0.0], &[1.0, 1.0]).unwrap();
        let mut ibuf = vec![IntervalAffine3::IDENTITY; 2];
        let mut tbuf = vec![TaylorAffine3::identity(TimeDomain::unit()); 2];
        for (t0, t1) in [
            (0.5, 0.4),
            (-0.1, 0.5),
            (0.5, 1.1),
            (f64::NAN, 0.5),
            (0.0, f64::INFINITY),
        ] {
            let bad = KinematicsError::BadTime { t0, t1 };
            let same = |e: KinematicsError| format!("{e}") == format!("{bad}");
            assert!(same(
                m.enclose_interval_into(t0, t1, &mut ibuf).unwrap_err()
            ));
            assert!(same(m.enclose_taylor_into(t0, t1, &mut tbuf).unwrap_err()));
        }
        assert!(matches!(
            m.enclose_interval_into(0.0, 1.0, &mut ibuf[..1]),
            Err(KinematicsError::BufferLength {
                expected: 2,
                got: 1,
                ..
            })
        ));
        assert!(matches!(
            m.enclose_taylor_into(0.0, 1.0, &mut []),
            Err(KinematicsError::BufferLength {
                expected: 2,
                got: 0,
                ..
            })
        ));
        let js = JointSpaceMotion::new(&t, &[0.0, 0.0], &[1.0, 1.0]).unwrap();
        let other = tree(JointType::Vehicle);
        assert!(matches!(
            js.enclose_interval(&other, 0.0, 1.0),
            Err(KinematicsError::ConfigLength {
                expected: 3,
                got: 2
            })
        ));
        let mut ws = EnclosureWorkspace::new();
        let e = ws.in_between(&m, EnclosureKind::Taylor, 0.0, 1.0).unwrap();
        assert!(matches!(
            e.point_aabb(2, DVec3::ZERO),
            Err(KinematicsError::LinkIndex { index: 2, len: 2 })
        ));
        assert!(matches!(
            e.points_aabb(1, &[]),
            Err(KinematicsError::EmptyPoints { .. })
        ));
        assert!(matches!(
            e.point_aabb(1, DVec3::new(0.0, f64::NAN, 0.0)),
            Err(KinematicsError::NotFinite { field: "point", .. })
        ));
        assert!(LinkObb::new(DVec3::ZERO, DVec3::INFINITY, DMat3::IDENTITY).is_err());
        let bad = LocalMotion {
            omega: f64::NAN,
            ..LocalMotion::constant(&DAffine3::IDENTITY)
        };
        assert!(bad.interval_enclosure(Interval::ONE).is_err());
        assert!(bad.taylor_enclosure(TimeDomain::unit()).is_err());
    }

    /// A vehicle's braking arc is not the in-between motion of its end
    /// poses (a chord): the joint-space path leaves the straight segment.
    #[test]
    fn vehicle_arc_is_not_in_between() {
        let t = tree(JointType::Vehicle);
        let (q0, q1) = ([0.0, 0.0, 0.0], [2.0, 1.5, 0.0]);
        let js = JointSpaceMotion::new(&t, &q0, &q1).unwrap();
        let ib = InBetweenMotion::new(&t, &q0, &q1).unwrap();
        let mut q = [0.0; 3];
        let (mut a, mut b) = ([DAffine3::IDENTITY; 2], [DAffine3::IDENTITY; 2]);
        js.poses_at(&t, 0.5, &mut q, &mut a).unwrap();
        ib.poses_at(0.5, &mut b).unwrap();
        assert!((a[0].translation - b[0].translation).length() > 0.05);
        // Both enclosures hold the arc's pose at t = 0.5.
        let encl = js.enclose_interval(&t, 0.0, 1.0).unwrap();
        assert!(widen(&encl[1], 1e-12).contains(&a[1]));
        let tm = js.enclose_taylor(&t, 0.0, 1.0).unwrap();
        assert!(widen(&tm[1].eval(0.5).unwrap(), 1e-12).contains(&a[1]));
    }

    #[test]
    fn workspace_reuses_buffers() {
        let t = tree(JointType::Revolute { axis: DVec3::Z });
        let m = InBetweenMotion::new(&t, &[0.0, 0.0], &[1.0, 1.0]).unwrap();
        let mut ws = EnclosureWorkspace::with_links(2);
        let obb = LinkObb::new(DVec3::X * 0.1, DVec3::splat(0.05), DMat3::IDENTITY).unwrap();
        let a = ws
            .in_between(&m, EnclosureKind::Interval, 0.0, 1.0)
            .unwrap()
            .obb_aabb(1, &obb)
            .unwrap();
        let b = ws
            .in_between(&m, EnclosureKind::Taylor, 0.0, 1.0)
            .unwrap()
            .obb_aabb(1, &obb)
            .unwrap();
        let enc = ws.in_between(&m, EnclosureKind::Taylor, 0.25, 0.5).unwrap();
        assert_eq!(enc.kind(), EnclosureKind::Taylor);
        assert_eq!(enc.time_interval(), (0.25, 0.5));
        assert_eq!(enc.len(), 2);
        assert!(enc.interval_poses().is_none() && enc.taylor_poses().is_some());
        let c = enc.obb_aabb(1, &obb).unwrap();
        assert!(c.volume() < b.volume() && b.volume() <= a.volume());
        let mut out = [IntervalVec3::ZERO; 2];
        enc.obb_aabbs_into(&[obb; 2], &mut out).unwrap();
        assert_eq!(out[1], c);
    }

    #[test]
    fn by_swing_follows_the_chain_swing() {
        let t = tree(JointType::Revolute { axis: DVec3::Z });
        let mut ws = EnclosureWorkspace::new();
        let mut kind = |q1: &[f64], t0: f64, t1: f64| {
            let m = InBetweenMotion::new(&t, &[0.0, 0.0], q1).unwrap();
            ws.in_between(&m, EnclosureKind::BySwing, t0, t1)
                .unwrap()
                .kind()
        };
        // Link b turns through |0.3| + |0.4| = 0.7 rad over [0, 1]: the
        // sum along its chain, not the largest joint.
        assert_eq!(kind(&[0.3, -0.4], 0.0, 1.0), EnclosureKind::Interval);
        // Twice the angles: 1.4 rad over [0, 1], 0.7 over half of it.
        assert_eq!(kind(&[0.6, -0.8], 0.0, 1.0), EnclosureKind::Taylor);
        assert_eq!(kind(&[0.6, -0.8], 0.25, 0.75), EnclosureKind::Interval);
        let mut ws = EnclosureWorkspace::new();
        let js = JointSpaceMotion::new(&t, &[0.0, 0.0], &[0.6, -0.8]).unwrap();
        let e = ws
            .joint_space(&t, &js, EnclosureKind::BySwing, 0.0, 1.0)
            .unwrap();
        assert_eq!(e.kind(), EnclosureKind::Taylor);
        let e = ws
            .joint_space(&t, &js, EnclosureKind::BySwing, 0.0, 0.5)
            .unwrap();
        assert_eq!(e.kind(), EnclosureKind::Interval);
        // Explicit kinds are kept.
        assert_eq!(EnclosureKind::Taylor.for_swing(0.0), EnclosureKind::Taylor);
        assert_eq!(
            EnclosureKind::Interval.for_swing(10.0),
            EnclosureKind::Interval
        );
        assert_eq!(
            EnclosureKind::BySwing.for_swing(f64::NAN),
            EnclosureKind::Taylor
        );
    }
}
