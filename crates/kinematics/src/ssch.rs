//! Joint-wise swept volumes with sphere-swept convex hulls (M3 §III).
//!
//! **What.** An [`Ssch`] is a finite point set and a radius `r ≥ 0`: the
//! set of points within `r` of the convex hull of the points (M3 eq. 1).
//! Each [`JointOperation`] maps a point `p` and a joint interval to an SSCH
//! that encloses every position of `p` while the joint takes every value in
//! the interval (M3 eq. 5–6); applied to every generating point of a body's
//! SSCH, adding radii, it encloses the body's swept volume (M3 eq. 7,
//! [`JointOperation::sweep`]). [`swept_ssch`] maps a body joint by joint
//! down the tree to an ancestor frame (M3 eq. 8) and [`swept_pair`] brings
//! two bodies into their least common ancestor frame, where their distance
//! decides whether they can collide (M3 §III-B step 3).
//!
//! **Why.** Distances between SSCHs are cheap (GJK on the points, minus the
//! radii), and the operations need no convex hull: they only map points and
//! add radii, so a whole tree is swept in bounded time per control cycle.
//!
//! **Operations** (docs/architecture.md, M3 §III-C; `φ = (α₁ − α₀)/2`, `r` the
//! distance of `p` from the axis, `p⁰`, `p¹` the end positions, `u` the unit
//! radial direction at the mid angle):
//!
//! | operation | points per point | radius |
//! |---|---|---|
//! | [`Circ1`](JointOperation::Circ1) revolute | 1: `(p⁰ + p¹)/2` | `r·sin φ` |
//! | [`Circ2`](JointOperation::Circ2) revolute | 2: `p⁰ + ρu`, `p¹ + ρu` | `ρ = r(1 − cos φ)/2` |
//! | [`Trans1`](JointOperation::Trans1) prismatic | 1: the middle | `(d₁ − d₀)/2` |
//! | [`Trans2`](JointOperation::Trans2) prismatic | 2: the ends | 0 |
//! | [`Rot3D1`](JointOperation::Rot3D1) orientation ± β | 1: `p*` | `‖p‖·√(2 − 2cos β)` |
//! | [`Rot3D4`](JointOperation::Rot3D4) orientation ± β | 4: a square about `(1 + cos β)/2 · p*` | `‖p‖(1 − cos β)/2` |
//! | [`Trans3D1`](JointOperation::Trans3D1) location ± Δ | 1: `p + t` | `Δ` |
//! | [`Vehicle1`](JointOperation::Vehicle1) vehicle (after M3 eq. 19) | ≤ 8 | two Circ2 radii |
//! | [`VehicleCirc`](JointOperation::VehicleCirc) vehicle (M3 eq. 21–23) | `4L + 5` | interpolation bound |
//!
//! Revolute intervals wider than π are split into equal pieces of at most π
//! (at most two: an interval of 2π or more is the full circle) and the
//! pieces' points are merged into one SSCH whose hull covers their union.
//! The vehicle operations and the proofs of the ones without a closed form
//! in the paper are documented on their variants. Along a chain the point
//! counts multiply: a body of `n` points swept by `k` [`Circ2`] joints has
//! `n·2ᵏ` points; choose the one-point operations ([`SweptVolumeOptions`])
//! where that matters.
//!
//! **Guarantee.** Every operation is conservative: every position of every
//! point of the body, for every joint value in the interval, lies inside
//! the resulting SSCH. The formulas are proven in exact arithmetic (proofs
//! on the variants); to hold in floating point every radius is enlarged by
//! a rounding slack of `64 ε` times the magnitude of the coordinates and
//! angles involved, far above the few ulps that glam's rotations and the
//! platform `sin`/`cos` lose.
//!
//! ```
//! use armature_kinematics::{JointOperation, Ssch};
//! use armature_interval_taylor::Interval;
//! use glam::DVec3;
//! // A point 1 m from the z axis swinging through 60°.
//! let op = JointOperation::Circ2 { axis: DVec3::Z, angles: Interval::new(0.0, 60f64.to_radians())? };
//! let swept = op.sweep(&Ssch::point(DVec3::X)?)?;
//! assert_eq!(swept.point_count(), 2);
//! // ρ = (1 − cos 30°)/2 ≈ 0.067 m.
//! assert!((swept.radius() - 0.0670).abs() < 1e-4);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`Circ2`]: JointOperation::Circ2

use crate::braking::{JointInterval, finite_interval};
use crate::error::KinematicsError;
use crate::joint::{JointType, vehicle_transform};
use crate::tree::{KinematicTree, Link};
use armature_interval_taylor::Interval;
use core::f64::consts::{FRAC_PI_2, PI, SQRT_2, TAU};
use glam::{DAffine3, DMat3, DQuat, DVec2, DVec3};
use smallvec::SmallVec;

/// Relative rounding slack added to every computed radius (see the
/// [module docs](self)): 64 ulps of the magnitudes involved.
const SLACK: f64 = 64.0 * f64::EPSILON;

fn slack(scale: f64) -> f64 {
    SLACK * scale
}

/// `a + b` rounded up (both non-negative).
fn add_up(a: f64, b: f64) -> f64 {
    (a + b).next_up()
}

/// A sphere-swept convex hull: the points within [`Ssch::radius`] of the
/// convex hull of [`Ssch::points`] (M3 eq. 1).
///
/// Invariants: at least one point, finite coordinates, finite radius ≥ 0.
#[derive(Clone, Debug, PartialEq)]
pub struct Ssch {
    points: Vec<DVec3>,
    radius: f64,
}

fn bad(field: &'static str, value: f64, why: &'static str) -> KinematicsError {
    KinematicsError::BadParameter { field, value, why }
}

fn check_finite_vec(field: &'static str, v: DVec3) -> Result<(), KinematicsError> {
    match v.to_array().into_iter().find(|c| !c.is_finite()) {
        Some(c) => Err(bad(field, c, "finite coordinates")),
        None => Ok(()),
    }
}

fn check_radius(field: &'static str, r: f64) -> Result<(), KinematicsError> {
    if r.is_finite() && r >= 0.0 {
        Ok(())
    } else {
        Err(bad(field, r, "finite, ≥ 0"))
    }
}

/// An upper bound on the spectral norm of `m` (1 for a rotation, up to a
/// few ulps): the square root of the largest absolute row sum of `mᵀm`,
/// which bounds its largest eigenvalue.
fn norm_bound(m: &DMat3) -> f64 {
    let g = m.transpose() * *m;
    let rows = [g.row(0), g.row(1), g.row(2)];
    let s = rows
        .iter()
        .map(|r| r.x.abs() + r.y.abs() + r.z.abs())
        .fold(0.0, f64::max);
    s.sqrt() * (1.0 + 16.0 * f64::EPSILON)
}

impl Ssch {
    /// The SSCH of `points` swept by a ball of `radius`.
    ///
    /// # Errors
    /// [`KinematicsError::BadParameter`] for an empty point set, non-finite
    /// coordinates, or a radius that is negative or not finite.
    pub fn new(points: Vec<DVec3>, radius: f64) -> Result<Self, KinematicsError> {
        if points.is_empty() {
            return Err(bad("points", 0.0, "at least one point"));
        }
        for &p in &points {
            check_finite_vec("points", p)?;
        }
        check_radius("radius", radius)?;
        Ok(Self { points, radius })
    }

    /// The ball of `radius` about `center`.
    ///
    /// # Errors
    /// As [`Ssch::new`].
    pub fn sphere(center: DVec3, radius: f64) -> Result<Self, KinematicsError> {
        Self::new(vec![center], radius)
    }

    /// The single point `p` (radius 0).
    ///
    /// # Errors
    /// As [`Ssch::new`].
    pub fn point(p: DVec3) -> Result<Self, KinematicsError> {
        Self::new(vec![p], 0.0)
    }

    /// The generating points.
    #[must_use]
    pub fn points(&self) -> &[DVec3] {
        &self.points
    }

    /// The radius.
    #[must_use]
    pub const fn radius(&self) -> f64 {
        self.radius
    }

    /// Number of generating points (at least 1).
    #[must_use]
    pub fn point_count(&self) -> usize {
        self.points.len()
    }

    /// The points and the radius.
    #[must_use]
    pub fn into_parts(self) -> (Vec<DVec3>, f64) {
        (self.points, self.radius)
    }

    /// The image under `t`: points mapped, radius multiplied by a bound on
    /// the norm of `t`'s linear part (1 for a rotation, up to rounding), so
    /// the result encloses the image of the whole set for any linear part.
    ///
    /// # Errors
    /// [`KinematicsError::BadParameter`] if `t` is not finite.
    pub fn transformed(&self, t: &DAffine3) -> Result<Self, KinematicsError> {
        check_finite_vec("transform", t.translation)?;
        for c in [t.matrix3.x_axis, t.matrix3.y_axis, t.matrix3.z_axis] {
            check_finite_vec("transform", c)?;
        }
        Ok(self.transformed_unchecked(t))
    }

    /// [`Ssch::transformed`] in place, without checks.
    fn transform_in_place(&mut self, t: &DAffine3) {
        let n = norm_bound(&t.matrix3);
        let mut mag: f64 = 0.0;
        for p in &mut self.points {
            mag = mag.max(p.length());
            *p = t.transform_point3(*p);
        }
        self.radius = transformed_radius(self.radius, n, mag, t);
    }

    fn transformed_unchecked(&self, t: &DAffine3) -> Self {
        let n = norm_bound(&t.matrix3);
        let mut mag: f64 = 0.0;
        let points = self
            .points
            .iter()
            .map(|&p| {
                mag = mag.max(p.length());
                t.transform_point3(p)
            })
            .collect();
        Self {
            points,
            radius: transformed_radius(self.radius, n, mag, t),
        }
    }

    /// The SSCH with its radius grown by `dr ≥ 0`.
    ///
    /// # Errors
    /// [`KinematicsError::BadParameter`] for a negative or non-finite `dr`.
    pub fn grown(&self, dr: f64) -> Result<Self, KinematicsError> {
        check_radius("dr", dr)?;
        Ok(Self {
            points: self.points.clone(),
            radius: add_up(self.radius, dr),
        })
    }

    /// An SSCH enclosing both: all points, the larger radius.
    #[must_use]
    pub fn merged(&self, other: &Self) -> Self {
        let mut points = Vec::with_capacity(self.points.len() + other.points.len());
        points.extend_from_slice(&self.points);
        points.extend_from_slice(&other.points);
        Self {
            points,
            radius: self.radius.max(other.radius),
        }
    }

    /// The support function `max over x in the SSCH of x · d`.
    #[must_use]
    pub fn support(&self, d: DVec3) -> f64 {
        self.points
            .iter()
            .map(|p| p.dot(d))
            .fold(f64::NEG_INFINITY, f64::max)
            + self.radius * d.length()
    }

    /// An SSCH with at most `n` of these points (at least one) that
    /// encloses this one: the points are chosen farthest first, and the
    /// radius grows by the largest distance `D` from a dropped point to
    /// its nearest kept one.
    ///
    /// *Proof.* A point of the hull is `x = Σ wᵢ pᵢ` (convex weights); with
    /// `sᵢ` the kept point nearest `pᵢ`, `y = Σ wᵢ sᵢ` is in the kept hull
    /// and `|x − y| ≤ Σ wᵢ |pᵢ − sᵢ| ≤ D`, so a point within `r` of `x` is
    /// within `r + D` of the kept hull. `D` and the sum are rounded up.
    #[must_use]
    pub fn reduced(&self, n: usize) -> Self {
        let mut out = self.clone();
        out.reduce_in_place(n);
        out
    }

    /// [`Ssch::reduced`] in place: the same points in the same order and
    /// the same radius, without allocating for up to 64 points.
    ///
    /// The squared distances to the kept set are held coordinate-wise
    /// apart (`x`, `y`, `z` in three arrays), so the update after each
    /// kept point runs over plain arrays; each squared distance is
    /// `dx·dx + dy·dy + dz·dz` in that order, as `DVec3::distance_squared`
    /// computes it, and ties go to the first index, so the choice is that
    /// of the plain farthest-first loop.
    pub(crate) fn reduce_in_place(&mut self, n: usize) {
        let n = n.max(1);
        let m = self.points.len();
        if m <= n {
            return;
        }
        let c = self.box_centre();
        // Coordinates apart, then squared distances to the kept set: the
        // buffers are plain arrays the loops below run over.
        let mut stack = [0.0f64; 256];
        let mut heap = Vec::new();
        let buf: &mut [f64] = if 4 * m <= stack.len() {
            &mut stack[..4 * m]
        } else {
            heap.resize(4 * m, 0.0);
            &mut heap
        };
        let (xs, rest) = buf.split_at_mut(m);
        let (ys, rest) = rest.split_at_mut(m);
        let (zs, far) = rest.split_at_mut(m);
        let mut scale: f64 = 0.0;
        for (i, p) in self.points.iter().enumerate() {
            xs[i] = p.x;
            ys[i] = p.y;
            zs[i] = p.z;
            scale = scale.max(p.abs().max_element());
        }
        far.fill(f64::INFINITY);
        let (xs, ys, zs) = (&*xs, &*ys, &*zs);
        // The first kept point is the farthest from the centre; then `far`
        // holds each point's squared distance to the kept set.
        let mut next = 0;
        let mut best = f64::NEG_INFINITY;
        for (i, ((x, y), z)) in xs.iter().zip(ys).zip(zs).enumerate() {
            let (dx, dy, dz) = (x - c.x, y - c.y, z - c.z);
            let d = dx * dx + dy * dy + dz * dz;
            if d > best {
                best = d;
                next = i;
            }
        }
        let mut kept: SmallVec<[usize; 32]> = SmallVec::with_capacity(n);
        for step in 0..n {
            kept.push(next);
            let (sx, sy, sz) = (xs[next], ys[next], zs[next]);
            for (((f, x), y), z) in far.iter_mut().zip(xs).zip(ys).zip(zs) {
                let (dx, dy, dz) = (x - sx, y - sy, z - sz);
                let d = dx * dx + dy * dy + dz * dz;
                // `min` of finite values (coordinates are finite).
                *f = if d < *f { d } else { *f };
            }
            if step + 1 < n {
                let mut best = f64::NEG_INFINITY;
                for (i, &d) in far.iter().enumerate() {
                    if d > best {
                        best = d;
                        next = i;
                    }
                }
            }
        }
        let d = far.iter().copied().fold(0.0, f64::max).sqrt();
        let chosen: SmallVec<[DVec3; 32]> = kept.iter().map(|&i| self.points[i]).collect();
        self.points.clear();
        self.points.extend_from_slice(&chosen);
        self.radius = add_up(add_up(self.radius, d), slack(scale));
    }

    /// The middle of the points' bounding box.
    fn box_centre(&self) -> DVec3 {
        box_centre(&self.points)
    }

    /// A ball enclosing the SSCH: centred at the middle of the points'
    /// bounding box (not the smallest ball).
    #[must_use]
    pub fn bounding_sphere(&self) -> (DVec3, f64) {
        ball_around(&self.points, self.radius)
    }
}

/// The middle of the bounding box of `points` (at least one).
fn box_centre(points: &[DVec3]) -> DVec3 {
    let (mut lo, mut hi) = (points[0], points[0]);
    for &p in points {
        lo = lo.min(p);
        hi = hi.max(p);
    }
    (lo + hi) * 0.5
}

/// [`Ssch::bounding_sphere`] of `points` (at least one) and `radius`.
fn ball_around(points: &[DVec3], radius: f64) -> (DVec3, f64) {
    let c = box_centre(points);
    // `sqrt` is monotone and correctly rounded: the largest length is the
    // root of the largest squared length.
    let far = points
        .iter()
        .map(|p| p.distance_squared(c))
        .fold(0.0, f64::max)
        .sqrt();
    (c, add_up(far, radius) + slack(c.length() + far))
}

/// The radius of an SSCH of `radius` whose points, of largest norm `mag`,
/// are mapped by `t` (spectral norm at most `n`): [`Ssch::transformed`].
fn transformed_radius(radius: f64, n: f64, mag: f64, t: &DAffine3) -> f64 {
    let scale = n * mag + t.translation.length();
    add_up((radius * n).next_up(), slack(scale))
}

/// A joint's swept-volume operation over a joint interval (M3 §III-C), in
/// the joint frame: it encloses the motion of a point `p` of the child
/// frame under the joint's transform for every value in the interval.
///
/// Angles in radians, lengths in metres; axes need not be normalised (they
/// are, when the operation runs). Parameters are checked by
/// [`JointOperation::checked`] before every use.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum JointOperation {
    /// Revolute joint, one point per piece (M3 eq. 10): the chord midpoint
    /// `(p⁰ + p¹)/2` with radius `r·sin φ`.
    ///
    /// *Proof.* With `m` the chord midpoint, an arc point at angle `θ` from
    /// the mid angle (`|θ| ≤ φ ≤ π/2`) lies at squared distance
    /// `r²(1 + cos²φ − 2 cos θ cos φ)` from `m`, largest at `|θ| = φ` where
    /// it is `r² sin² φ`.
    Circ1 {
        /// Rotation axis.
        axis: DVec3,
        /// Joint angles `[α₀, α₁]`.
        angles: Interval,
    },
    /// Revolute joint, two points per piece (M3 eq. 11): the chord shifted
    /// outward by `ρ = r(1 − cos φ)/2`, radius `ρ`.
    ///
    /// *Proof.* In the plane of the arc with coordinates along `u` and the
    /// tangent, arc points have `u`-coordinate in `[r cos φ, r]` and tangent
    /// coordinate within the chord's; the shifted chord sits at
    /// `r cos φ + ρ`, the middle of that range, so every arc point is within
    /// `ρ` of it.
    Circ2 {
        /// Rotation axis.
        axis: DVec3,
        /// Joint angles `[α₀, α₁]`.
        angles: Interval,
    },
    /// Prismatic joint, the middle of the segment with half its length as
    /// radius (M3 eq. 12).
    Trans1 {
        /// Translation axis.
        axis: DVec3,
        /// Joint values `[d₀, d₁]`.
        range: Interval,
    },
    /// Prismatic joint, the two end points, radius 0 (exact; M3 eq. 13).
    Trans2 {
        /// Translation axis.
        axis: DVec3,
        /// Joint values `[d₀, d₁]`.
        range: Interval,
    },
    /// Orientation measured as `measured`, true within angle `beta`: the
    /// ball about `p* = measured·p` of radius `|p|·√(2 − 2 cos β)`, the
    /// chord of the angle β on the sphere of radius `|p|` (M3 eq. 15).
    Rot3D1 {
        /// Measured orientation (normalised when used).
        measured: DQuat,
        /// Largest angle between measured and true orientation, `0 ≤ β ≤ π`.
        beta: f64,
    },
    /// Orientation measured as `measured`, true within angle `beta`, by
    /// four points (M3 eq. 16): the square centred at `f₂ p*` in the plane
    /// normal to `p*` with vertices at distance `f₃ |p|` from its centre,
    /// radius `f₁ |p|`, where `f₁ = (1 − cos β)/2`, `f₂ = 1 − f₁`,
    /// `f₃ = √2 sin β`.
    ///
    /// *Proof.* Scale to `|p| = 1`, coordinates `(ℓ, h)` across and along
    /// `p*`. The true positions form the cap `(sin θ, cos θ)`, `θ ≤ β`,
    /// turned about `p*`; the square holds the disc `ℓ ≤ sin β` at height
    /// `f₂`, the middle of `[cos β, 1]`. Where `sin θ ≤ sin β` a cap point
    /// is within `f₁` of that disc (height gap only). Where `sin θ > sin β`
    /// (only for `β > π/2`, `θ ∈ (π − β, β)`) its distance to the disc's rim
    /// point `(sin β, f₂)` is largest at an end of that range (the arc does
    /// not reach the point's antipode): `f₁` at `θ = β` and
    /// `|1 + 3 cos β|/2 ≤ f₁` at `θ = π − β`.
    Rot3D4 {
        /// Measured orientation (normalised when used).
        measured: DQuat,
        /// Largest angle between measured and true orientation, `0 ≤ β ≤ π`.
        beta: f64,
    },
    /// Location measured as `measured`, true within distance `delta`: the
    /// ball about `p + measured` of radius Δ (M3 eq. 17).
    Trans3D1 {
        /// Measured translation.
        measured: DVec3,
        /// Largest distance between measured and true location, `Δ ≥ 0`.
        delta: f64,
    },
    /// Vehicle braking without the circular-motion constraint, after M3
    /// eq. 19: the turn `Circ2(z, A)` of `p` plus (Minkowski sum) the
    /// sector swept by `Circ2(z, A)` of the segment `S · dir(φ_m)`, with `S`
    /// the hull of 0 and `s`, `A` the hull of 0 and `alpha`, `φ_m` the
    /// middle of `phi`: the pairwise sums of the two point sets (at most 8
    /// points when `A` spans at most π), radius the sum of the two Circ2
    /// radii plus `max|s| · 2 sin(w_φ/4)` for the width `w_φ` of `phi`.
    ///
    /// *Proof.* The position is `Rot(a) p + σ sinc(a/2) Rot(φ) Rot(a/2) x`
    /// with `a ∈ A`, `σ ∈ S`: the first term lies on the arc of `p`, the
    /// second on the segment from 0 to the arc of `σ · dir(φ)` at angle
    /// `a/2 ∈ A` (`0 ≤ sinc ≤ 1` for `|a| ≤ 2π`; beyond, `A` spans the
    /// full circle and the second term lies in the covered disc).
    ///
    /// *Why not the paper's composition.* Read literally,
    /// `Circ2(z, A) ∘ Trans2(x, S)` covers the positions of the poses
    /// `Rot(c) · Trans(s' x)`; the braking arc ends at heading `α` but in
    /// direction `α/2`, and for a point on the right of a vehicle driving
    /// forward and turning left its true position lies outside that cover
    /// by about `σ α/2` (first order in α) while Circ2's radius is of
    /// second order: for `p = (0, −1, 0)`, `s = 1`, `α = 0.2` the end
    /// position `(1.192, −0.880, 0)` lies about 0.07 outside the polytope,
    /// the radius is 0.0035. The sum above is the smallest fix that keeps
    /// the operation's Circ2/Trans2 structure.
    Vehicle1 {
        /// Direction of motion `φ` (0 for a plain vehicle joint).
        phi: Interval,
        /// Signed arc length at stop.
        s: Interval,
        /// Heading change at stop.
        alpha: Interval,
    },
    /// Vehicle braking along circular arcs `λ·(s, α)`, `λ ∈ [0, 1]`
    /// (M3 eq. 21–23), with `4L + 5` points: `p`; `L` points on each of the
    /// four corner arcs `λ ↦ X(λ s_i, λ α_j) p` at `λ = k/L`; two points at
    /// the thirds of each curve `a ↦ X(s_i, a) p`, `a ∈ [α₀, α₁]`. Radius:
    /// the larger of the interpolation errors
    /// `|α_j| · |(α_j p'_x, α_j p'_y − s_i)| / (8L²)` (arcs; `p'` is `p` in
    /// the frame turned by `φ_m`) and `(w_α/3)² (|p_xy| + |s_i|/3) / 8`
    /// (`s`-curves), plus `max|s| · 2 sin(w_φ/4)` for the width of `phi`.
    ///
    /// *Proof.* With `g(a) = ∫₀¹ Rot(aτ) x dτ = sinc(a/2)(cos a/2, sin a/2)`
    /// the position is `F(σ, a) = Rot(a) p + σ Rot(φ) g(a)`, affine in σ.
    /// The configurations `λ(s, α)` fill `Q = conv({0} ∪ box)`; each
    /// horizontal (fixed `a`) chord of `Q` maps to a segment between the
    /// images of two boundary points, and `∂Q` lies on the corner segments
    /// `[0, (s_i, α_j)]` and the box edges. Edges of constant α map to
    /// segments between corner points (affine in σ); the corner arcs and the
    /// `s`-curves are covered by their polylines through the samples within
    /// `h²/8 · max|F''|` (the interpolation error of a C² curve), with
    /// `|∂²_λ F| = |α| · |α p'_xy − s ŷ|` (rotation about the instantaneous
    /// centre `(0, s/α)`) and `|∂²_a F| ≤ |p_xy| + |s|/3` (`|g''| ≤ 1/3`). A
    /// convex combination of points within `r` of a convex set is within
    /// `r` of it. Directions `φ ≠ φ_m` move the position by at most
    /// `|σ| · |Rot(φ) − Rot(φ_m)| ≤ max|s| · 2 sin(w_φ/4)` (`|g| ≤ 1`).
    VehicleCirc {
        /// Number `L ≥ 1` of sample points per corner arc.
        l: usize,
        /// Direction of motion `φ` (0 for a plain vehicle joint).
        phi: Interval,
        /// Signed arc length at stop.
        s: Interval,
        /// Heading change at stop.
        alpha: Interval,
    },
    /// A joint at one known transform (fixed joints, and joints given
    /// [`JointInterval::Exact`] values): the image of the SSCH.
    Rigid(DAffine3),
}

fn unit_axis(axis: DVec3) -> Result<DVec3, KinematicsError> {
    check_finite_vec("axis", axis)?;
    let n = axis.length();
    if n.is_nan() || n <= 1e-12 {
        return Err(bad("axis", n, "non-zero length"));
    }
    Ok(axis / n)
}

fn bounded(field: &'static str, i: Interval) -> Result<Interval, KinematicsError> {
    finite_interval(field, i.lo(), i.hi())
}

fn unit_quat(q: DQuat) -> Result<DQuat, KinematicsError> {
    for c in q.to_array() {
        if !c.is_finite() {
            return Err(bad("measured", c, "finite quaternion"));
        }
    }
    let n = q.length();
    if n <= 1e-6 {
        return Err(bad("measured", n, "quaternion of non-zero norm"));
    }
    Ok(q / n)
}

fn check_beta(beta: f64) -> Result<(), KinematicsError> {
    if beta.is_finite() && (0.0..=PI).contains(&beta) {
        Ok(())
    } else {
        Err(bad("beta", beta, "0 ≤ β ≤ π"))
    }
}

impl JointOperation {
    /// The operation with its parameters checked and axes and quaternions
    /// normalised.
    ///
    /// # Errors
    /// [`KinematicsError::BadParameter`] for a zero or non-finite axis or
    /// quaternion, an unbounded interval, β outside `[0, π]`, a negative
    /// or non-finite Δ, `L = 0`, or a non-finite transform.
    pub fn checked(&self) -> Result<Self, KinematicsError> {
        Ok(match *self {
            Self::Circ1 { axis, angles } => Self::Circ1 {
                axis: unit_axis(axis)?,
                angles: bounded("angles", angles)?,
            },
            Self::Circ2 { axis, angles } => Self::Circ2 {
                axis: unit_axis(axis)?,
                angles: bounded("angles", angles)?,
            },
            Self::Trans1 { axis, range } => Self::Trans1 {
                axis: unit_axis(axis)?,
                range: bounded("range", range)?,
            },
            Self::Trans2 { axis, range } => Self::Trans2 {
                axis: unit_axis(axis)?,
                range: bounded("range", range)?,
            },
            Self::Rot3D1 { measured, beta } => {
                check_beta(beta)?;
                Self::Rot3D1 {
                    measured: unit_quat(measured)?,
                    beta,
                }
            }
            Self::Rot3D4 { measured, beta } => {
                check_beta(beta)?;
                Self::Rot3D4 {
                    measured: unit_quat(measured)?,
                    beta,
                }
            }
            Self::Trans3D1 { measured, delta } => {
                check_finite_vec("measured", measured)?;
                check_radius("delta", delta)?;
                Self::Trans3D1 { measured, delta }
            }
            Self::Vehicle1 { phi, s, alpha } => Self::Vehicle1 {
                phi: bounded("phi", phi)?,
                s: bounded("s", s)?,
                alpha: bounded("alpha", alpha)?,
            },
            Self::VehicleCirc { l, phi, s, alpha } => {
                if l == 0 {
                    return Err(bad("l", 0.0, "at least one point per arc"));
                }
                Self::VehicleCirc {
                    l,
                    phi: bounded("phi", phi)?,
                    s: bounded("s", s)?,
                    alpha: bounded("alpha", alpha)?,
                }
            }
            Self::Rigid(t) => {
                check_finite_vec("transform", t.translation)?;
                for c in [t.matrix3.x_axis, t.matrix3.y_axis, t.matrix3.z_axis] {
                    check_finite_vec("transform", c)?;
                }
                Self::Rigid(t)
            }
        })
    }

    /// The operation of the inverse motions: it encloses every position of
    /// a point of the *parent* frame seen from the child frame, `T⁻¹ x` for
    /// every transform `T` the joint takes in its interval. Each joint's
    /// set of inverses is a set of the same kind:
    ///
    /// - revolute and prismatic: the negated interval;
    /// - orientation `{E·M}` (angle `E ≤ β`): `{M⁻¹E⁻¹} = {E′·M⁻¹}` with
    ///   `E′ = M⁻¹E⁻¹M` of the same angle, so measured `M⁻¹`, the same β;
    /// - location `m + δ` (`|δ| ≤ Δ`): measured `−m`, the same Δ;
    /// - vehicle arcs: `V_φ(s, α)⁻¹ = V_φ(−s, −α)` (rotation `−α`, and the
    ///   chord `s·sinc(α/2)` along `φ + α/2` turned by `−α` and negated is
    ///   the chord of `(−s, −α)`), so the negated `s` and `α` intervals,
    ///   the same φ;
    /// - a rigid transform: its inverse (the transpose of its rotation).
    ///
    /// Negating an interval is exact; a rigid inverse is rounded by a few
    /// ulps, within the operation's rounding slack.
    #[must_use]
    pub fn inverse(&self) -> Self {
        let neg = |i: Interval| Interval::new(-i.hi(), -i.lo()).unwrap_or(i);
        match *self {
            Self::Circ1 { axis, angles } => Self::Circ1 {
                axis,
                angles: neg(angles),
            },
            Self::Circ2 { axis, angles } => Self::Circ2 {
                axis,
                angles: neg(angles),
            },
            Self::Trans1 { axis, range } => Self::Trans1 {
                axis,
                range: neg(range),
            },
            Self::Trans2 { axis, range } => Self::Trans2 {
                axis,
                range: neg(range),
            },
            Self::Rot3D1 { measured, beta } => Self::Rot3D1 {
                measured: measured.conjugate(),
                beta,
            },
            Self::Rot3D4 { measured, beta } => Self::Rot3D4 {
                measured: measured.conjugate(),
                beta,
            },
            Self::Trans3D1 { measured, delta } => Self::Trans3D1 {
                measured: -measured,
                delta,
            },
            Self::Vehicle1 { phi, s, alpha } => Self::Vehicle1 {
                phi,
                s: neg(s),
                alpha: neg(alpha),
            },
            Self::VehicleCirc { l, phi, s, alpha } => Self::VehicleCirc {
                l,
                phi,
                s: neg(s),
                alpha: neg(alpha),
            },
            Self::Rigid(t) => Self::Rigid(rigid_inverse(&t)),
        }
    }

    /// The largest number of points the operation makes from one point:
    /// the factor by which a swept body's point count grows.
    #[must_use]
    pub fn max_points_per_point(&self) -> usize {
        let pieces = |i: &Interval| if i.width() > PI { 2 } else { 1 };
        match self {
            Self::Circ1 { angles, .. } => pieces(angles),
            Self::Circ2 { angles, .. } => 2 * pieces(angles),
            Self::Trans2 { .. } => 2,
            Self::Rot3D4 { .. } => 4,
            Self::Vehicle1 { alpha, .. } => {
                let n = pieces(&alpha.hull_point(0.0));
                8 * n * n
            }
            Self::VehicleCirc { l, .. } => 4 * l + 5,
            Self::Trans1 { .. } | Self::Rot3D1 { .. } | Self::Trans3D1 { .. } | Self::Rigid(_) => 1,
        }
    }

    /// The SSCH enclosing the motion of the point `p` (M3 eq. 6).
    ///
    /// # Errors
    /// As [`JointOperation::checked`], and for a non-finite `p`.
    pub fn cover_point(&self, p: DVec3) -> Result<Ssch, KinematicsError> {
        self.sweep(&Ssch::point(p)?)
    }

    /// The SSCH enclosing the volume swept by `body` (M3 eq. 7): every
    /// generating point mapped by the operation, the radii added.
    ///
    /// *Proof of eq. 7.* A body point is `Σ wₖ pₖ + b` with convex weights
    /// and `|b| ≤ r`; the joint moves it rigidly to `Σ wₖ T pₖ + R b`, and
    /// each `T pₖ` is within `rₖ` of the hull of `pₖ`'s points, so the
    /// image is within `max rₖ + r` of the hull of all points.
    ///
    /// # Errors
    /// As [`JointOperation::checked`].
    pub fn sweep(&self, body: &Ssch) -> Result<Ssch, KinematicsError> {
        Ok(self.checked()?.sweep_unchecked(body))
    }

    /// [`JointOperation::sweep`] of a validated operation.
    fn sweep_unchecked(&self, body: &Ssch) -> Ssch {
        if let Self::Rigid(t) = self {
            return body.transformed_unchecked(t);
        }
        let mut points = Vec::with_capacity(body.points.len() * self.max_points_per_point());
        let mut r: f64 = 0.0;
        // The revolute operations' rotations depend on the angles only:
        // computed once for all points (the same values `circ` computes).
        let circ_prep = match *self {
            Self::Circ1 { axis, angles } => Some(CircPrep::new(axis, angles, false)),
            Self::Circ2 { axis, angles } => Some(CircPrep::new(axis, angles, true)),
            _ => None,
        };
        let vehicle_prep = match *self {
            Self::VehicleCirc { l, phi, s, alpha } => Some(VehicleCircPrep::new(l, phi, s, alpha)),
            _ => None,
        };
        for &p in &body.points {
            let start = points.len();
            let rp = match (&circ_prep, &vehicle_prep) {
                (Some(c), _) => c.cover(p, &mut points),
                (None, Some(v)) => v.cover(p, &mut points),
                (None, None) => self.cover_into(p, &mut points),
            };
            r = r.max(rp);
            dedup_tail(&mut points, start);
        }
        Ssch {
            points,
            radius: add_up(body.radius, r),
        }
    }

    /// Pushes the points covering the motion of `p` and returns the radius.
    fn cover_into(&self, p: DVec3, out: &mut Vec<DVec3>) -> f64 {
        match *self {
            Self::Circ1 { axis, angles } => circ(axis, angles, p, false, out),
            Self::Circ2 { axis, angles } => circ(axis, angles, p, true, out),
            Self::Trans1 { axis, range } => {
                out.push(p + axis * range.midpoint());
                let scale = p.length() + range.mag();
                add_up(0.5 * range.width(), slack(scale))
            }
            Self::Trans2 { axis, range } => {
                out.push(p + axis * range.lo());
                out.push(p + axis * range.hi());
                slack(p.length() + range.mag())
            }
            Self::Rot3D1 { measured, beta } => {
                out.push(measured * p);
                let n = p.length();
                // √(2 − 2 cos β) = 2 sin(β/2), without cancellation.
                add_up(n * 2.0 * (0.5 * beta).sin(), slack(n))
            }
            Self::Rot3D4 { measured, beta } => rot3d4(measured, beta, p, out),
            Self::Trans3D1 { measured, delta } => {
                out.push(p + measured);
                add_up(delta, slack(p.length() + measured.length()))
            }
            Self::Vehicle1 { phi, s, alpha } => vehicle1(phi, s, alpha, p, out),
            Self::VehicleCirc { l, phi, s, alpha } => vehicle_circ(l, phi, s, alpha, p, out),
            Self::Rigid(t) => {
                out.push(t.transform_point3(p));
                slack(norm_bound(&t.matrix3) * p.length() + t.translation.length())
            }
        }
    }
}

/// Removes exact duplicates among `points[start..]` (points on a revolute
/// axis, zero-width intervals), keeping the first of each.
fn dedup_tail(points: &mut Vec<DVec3>, start: usize) {
    let mut i = start + 1;
    while i < points.len() {
        if points[start..i].contains(&points[i]) {
            points.remove(i);
        } else {
            i += 1;
        }
    }
}

/// [`circ`] with its per-interval quantities computed once: the same
/// arithmetic, so the same points and radius.
struct CircPrep {
    axis: DVec3,
    two: bool,
    n: u32,
    /// Per piece: rotations by `a0`, `a0 + piece` and `a0 + φ`.
    rots: [(DQuat, DQuat, DQuat); 2],
    /// `sin²(φ/2)` (Circ2) or `sin φ` (Circ1).
    factor: f64,
    mag: f64,
}

impl CircPrep {
    fn new(axis: DVec3, angles: Interval, two: bool) -> Self {
        let width = angles.width().min(TAU);
        let n: u32 = if width > PI { 2 } else { 1 };
        let piece = width / f64::from(n);
        let phi = 0.5 * piece;
        let sh = (0.5 * phi).sin();
        let factor = if two { sh * sh } else { phi.sin() };
        let q = |a: f64| DQuat::from_axis_angle(axis, a);
        let mut rots = [(DQuat::IDENTITY, DQuat::IDENTITY, DQuat::IDENTITY); 2];
        for k in 0..n {
            let a0 = angles.lo() + f64::from(k) * piece;
            rots[k as usize] = (q(a0), q(a0 + piece), q(a0 + phi));
        }
        Self {
            axis,
            two,
            n,
            rots,
            factor,
            mag: angles.mag(),
        }
    }

    fn cover(&self, p: DVec3, out: &mut impl Extend<DVec3>) -> f64 {
        let pa = self.axis * self.axis.dot(p);
        let perp = p - pa;
        let r = perp.length();
        if r == 0.0 {
            out.extend([p]);
            return 0.0;
        }
        let radius = r * self.factor;
        for &(q0, q1, qm) in &self.rots[..self.n as usize] {
            let (p0, p1) = (pa + q0 * perp, pa + q1 * perp);
            if self.two {
                let u = (qm * perp) * (radius / r);
                out.extend([p0 + u, p1 + u]);
            } else {
                out.extend([(p0 + p1) * 0.5]);
            }
        }
        add_up(radius, slack(p.length() * (4.0 + self.mag)))
    }
}

/// Circ1 / Circ2 over any interval: pieces of at most π (M3 eq. 10–11).
fn circ(axis: DVec3, angles: Interval, p: DVec3, two: bool, out: &mut impl Extend<DVec3>) -> f64 {
    CircPrep::new(axis, angles, two).cover(p, out)
}

fn rot3d4(measured: DQuat, beta: f64, p: DVec3, out: &mut Vec<DVec3>) -> f64 {
    let ps = measured * p;
    let n = p.length();
    let len = ps.length();
    if len == 0.0 {
        out.push(ps);
        return 0.0;
    }
    let (e1, e2) = (ps / len).any_orthonormal_pair();
    let h = (0.5 * beta).sin();
    let f1 = h * h; // (1 − cos β)/2
    let f2 = 1.0 - f1; // (1 + cos β)/2
    let f3 = SQRT_2 * beta.sin();
    let c = ps * f2;
    let d = f3 * n;
    out.extend([c + e1 * d, c - e1 * d, c + e2 * d, c - e2 * d]);
    add_up(f1 * n, slack(n * 4.0))
}

/// `max |s|` and the radius for the direction's width (`|σ| ≤ max|s|`,
/// `|g| ≤ 1`, `|Rot(φ) − Rot(φ_m)| = 2 sin(|φ − φ_m|/2)`).
fn direction_radius(phi: Interval, s: Interval) -> f64 {
    let q = (0.25 * phi.width()).min(FRAC_PI_2);
    s.mag() * 2.0 * q.sin()
}

fn vehicle1(phi: Interval, s: Interval, alpha: Interval, p: DVec3, out: &mut Vec<DVec3>) -> f64 {
    let pm = phi.midpoint();
    let dir = DVec3::new(pm.cos(), pm.sin(), 0.0);
    let sh = s.hull_point(0.0);
    let ah = alpha.hull_point(0.0);
    let mut turn: SmallVec<[DVec3; 4]> = SmallVec::new();
    let r_turn = circ(DVec3::Z, ah, p, true, &mut turn);
    let mut sector: SmallVec<[DVec3; 8]> = SmallVec::new();
    let mut r_sector: f64 = 0.0;
    for end in [sh.lo(), sh.hi()] {
        r_sector = r_sector.max(circ(DVec3::Z, ah, dir * end, true, &mut sector));
    }
    for a in &turn {
        out.extend(sector.iter().map(|b| *a + *b));
    }
    let scale = (p.length() + s.mag()) * (4.0 + phi.mag());
    add_up(
        add_up(add_up(r_turn, r_sector), direction_radius(phi, s)),
        slack(scale),
    )
}

fn vehicle_circ(
    l: usize,
    phi: Interval,
    s: Interval,
    alpha: Interval,
    p: DVec3,
    out: &mut Vec<DVec3>,
) -> f64 {
    VehicleCircPrep::new(l, phi, s, alpha).cover(p, out)
}

/// [`vehicle_circ`] with its per-interval quantities computed once (the
/// transforms of every arc sample and the turn into the direction of
/// motion): the same arithmetic, so the same points and radius.
struct VehicleCircPrep {
    l: usize,
    s: Interval,
    alpha: Interval,
    phi: Interval,
    /// The sample transforms in the order the points are pushed: the arcs
    /// (`σ`, `a`) = (`λ s_i`, `λ α_j`), then the middle thirds.
    samples: SmallVec<[DAffine3; 16]>,
    /// The rotation by `−φ_m`.
    to_motion: DMat3,
}

impl VehicleCircPrep {
    fn new(l: usize, phi: Interval, s: Interval, alpha: Interval) -> Self {
        let pm = phi.midpoint();
        let lf = l as f64;
        let mut samples = SmallVec::new();
        for si in [s.lo(), s.hi()] {
            for aj in [alpha.lo(), alpha.hi()] {
                for k in 1..=l {
                    let lam = k as f64 / lf;
                    samples.push(vehicle_transform(pm, lam * si, lam * aj));
                }
            }
        }
        let h = alpha.width() / 3.0;
        for si in [s.lo(), s.hi()] {
            samples.push(vehicle_transform(pm, si, alpha.lo() + h));
            samples.push(vehicle_transform(pm, si, alpha.hi() - h));
        }
        Self {
            l,
            s,
            alpha,
            phi,
            samples,
            to_motion: DMat3::from_rotation_z(-pm),
        }
    }

    fn cover(&self, p: DVec3, out: &mut Vec<DVec3>) -> f64 {
        let (s, alpha, phi) = (self.s, self.alpha, self.phi);
        // p in the frame whose x axis is the direction of motion.
        let pl = self.to_motion * p;
        let pxy = DVec2::new(p.x, p.y).length();
        let lf = self.l as f64;
        out.push(p);
        let arcs = 4 * self.l;
        out.extend(self.samples[..arcs].iter().map(|t| t.transform_point3(p)));
        let mut r_arc: f64 = 0.0;
        for si in [s.lo(), s.hi()] {
            for aj in [alpha.lo(), alpha.hi()] {
                // |∂²_λ F| = |α|·|α p'_xy − s ŷ| (rotation about (0, s/α)).
                r_arc = r_arc.max(aj.abs() * DVec2::new(aj * pl.x, aj * pl.y - si).length());
            }
        }
        r_arc /= 8.0 * lf * lf;
        let h = alpha.width() / 3.0;
        out.extend(self.samples[arcs..].iter().map(|t| t.transform_point3(p)));
        let mut r_s: f64 = 0.0;
        for si in [s.lo(), s.hi()] {
            // |∂²_a F| ≤ |p_xy| + |s|/3.
            r_s = r_s.max(pxy + si.abs() / 3.0);
        }
        r_s *= h * h / 8.0;
        let scale = (p.length() + s.mag()) * (4.0 + alpha.mag() + phi.mag());
        add_up(
            add_up(
                r_arc.max(r_s) * (1.0 + 8.0 * f64::EPSILON),
                direction_radius(phi, s),
            ),
            slack(scale),
        )
    }
}

/// Which operation each joint type gets in [`swept_ssch`] (M3 §III-C: the
/// one-point operations are faster, the others tighter).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SweptVolumeOptions {
    /// Revolute and continuous joints. Default [`RevoluteCover::Circ2`].
    pub revolute: RevoluteCover,
    /// Prismatic joints. Default [`PrismaticCover::Trans2`].
    pub prismatic: PrismaticCover,
    /// Orientation joints with uncertainty, and spherical joints measured
    /// with uncertainty ([`JointInterval::Rotation`]). Default
    /// [`OrientationCover::Rot3D4`].
    pub orientation: OrientationCover,
    /// Vehicle and omni-vehicle joints. Default
    /// [`VehicleCover::Circ`] with `L = 2`.
    pub vehicle: VehicleCover,
    /// Most generating points a volume keeps after this joint's operation
    /// ([`Ssch::reduced`]: fewer points, a larger radius, still enclosing);
    /// `None` (the default): no limit, the counts multiply along a chain.
    pub max_points: Option<usize>,
}

impl SweptVolumeOptions {
    /// The options with at most `n ≥ 1` generating points after each
    /// operation ([`SweptVolumeOptions::max_points`]).
    #[must_use]
    pub const fn with_max_points(mut self, n: Option<usize>) -> Self {
        self.max_points = n;
        self
    }

    /// The options with this revolute operation.
    #[must_use]
    pub const fn with_revolute(mut self, c: RevoluteCover) -> Self {
        self.revolute = c;
        self
    }

    /// The options with this prismatic operation.
    #[must_use]
    pub const fn with_prismatic(mut self, c: PrismaticCover) -> Self {
        self.prismatic = c;
        self
    }

    /// The options with this orientation operation.
    #[must_use]
    pub const fn with_orientation(mut self, c: OrientationCover) -> Self {
        self.orientation = c;
        self
    }

    /// The options with this vehicle operation.
    #[must_use]
    pub const fn with_vehicle(mut self, c: VehicleCover) -> Self {
        self.vehicle = c;
        self
    }

    /// The operation of link `i`'s joint over `interval` (`None` for a
    /// fixed joint, which moves nothing).
    ///
    /// # Errors
    /// [`KinematicsError::IntervalMismatch`] naming the link when the
    /// interval does not fit the joint type; [`KinematicsError::LinkIndex`];
    /// parameter errors as [`JointOperation::checked`].
    pub fn operation(
        &self,
        tree: &KinematicTree,
        i: usize,
        interval: &JointInterval,
    ) -> Result<Option<JointOperation>, KinematicsError> {
        let op = self.operation_of(tree.link(i)?, interval)?;
        op.map(|o| o.checked()).transpose()
    }

    fn operation_of(
        &self,
        link: &Link,
        interval: &JointInterval,
    ) -> Result<Option<JointOperation>, KinematicsError> {
        let kind = link.joint().kind;
        let mismatch = |expected| KinematicsError::IntervalMismatch {
            link: link.name().to_owned(),
            expected,
        };
        let orientation = |measured, beta| match self.orientation {
            OrientationCover::Rot3D1 => JointOperation::Rot3D1 { measured, beta },
            OrientationCover::Rot3D4 => JointOperation::Rot3D4 { measured, beta },
        };
        let vehicle = |phi, s, alpha| match self.vehicle {
            VehicleCover::Vehicle1 => JointOperation::Vehicle1 { phi, s, alpha },
            VehicleCover::Circ { l } => JointOperation::VehicleCirc { l, phi, s, alpha },
        };
        Ok(Some(match (kind, interval) {
            (JointType::Fixed, JointInterval::Fixed) => return Ok(None),
            (JointType::Fixed, JointInterval::Exact(v)) if v.is_empty() => return Ok(None),
            (JointType::Fixed, _) => return Err(mismatch("no interval (JointInterval::Fixed)")),
            (JointType::OrientationUncertain { beta }, JointInterval::Orientation(q)) => {
                orientation(*q, beta)
            }
            (JointType::Spherical, JointInterval::Rotation { measured, beta }) => {
                orientation(*measured, *beta)
            }
            (JointType::OrientationUncertain { beta }, JointInterval::Exact(v)) if v.len() == 4 => {
                orientation(DQuat::from_xyzw(v[0], v[1], v[2], v[3]), beta)
            }
            (JointType::OrientationUncertain { .. }, _) => {
                return Err(mismatch("a measured orientation (4 values)"));
            }
            (JointType::LocationUncertain { delta }, JointInterval::Location(t)) => {
                JointOperation::Trans3D1 {
                    measured: *t,
                    delta,
                }
            }
            (JointType::LocationUncertain { delta }, JointInterval::Exact(v)) if v.len() == 3 => {
                JointOperation::Trans3D1 {
                    measured: DVec3::new(v[0], v[1], v[2]),
                    delta,
                }
            }
            (JointType::LocationUncertain { .. }, _) => {
                return Err(mismatch("a measured location (3 values)"));
            }
            (_, JointInterval::Exact(v)) if v.len() == kind.nq() => {
                for &x in v {
                    if !x.is_finite() {
                        return Err(bad("joint value", x, "finite"));
                    }
                }
                if matches!(kind, JointType::Spherical) {
                    unit_quat(DQuat::from_xyzw(v[0], v[1], v[2], v[3]))?;
                }
                if matches!(kind, JointType::Floating) {
                    unit_quat(DQuat::from_xyzw(v[3], v[4], v[5], v[6]))?;
                }
                JointOperation::Rigid(kind.transform(v))
            }
            (
                JointType::Revolute { axis } | JointType::Continuous { axis },
                JointInterval::Scalar(angles),
            ) => match self.revolute {
                RevoluteCover::Circ1 => JointOperation::Circ1 {
                    axis,
                    angles: *angles,
                },
                RevoluteCover::Circ2 => JointOperation::Circ2 {
                    axis,
                    angles: *angles,
                },
            },
            (JointType::Prismatic { axis }, JointInterval::Scalar(range)) => match self.prismatic {
                PrismaticCover::Trans1 => JointOperation::Trans1 {
                    axis,
                    range: *range,
                },
                PrismaticCover::Trans2 => JointOperation::Trans2 {
                    axis,
                    range: *range,
                },
            },
            (JointType::Vehicle, JointInterval::Vehicle { s, alpha }) => {
                vehicle(Interval::ZERO, *s, *alpha)
            }
            (JointType::OmniVehicle, JointInterval::OmniVehicle { phi, s, alpha }) => {
                vehicle(*phi, *s, *alpha)
            }
            (
                JointType::Revolute { .. }
                | JointType::Continuous { .. }
                | JointType::Prismatic { .. },
                _,
            ) => {
                return Err(mismatch("a scalar interval or one exact value"));
            }
            (JointType::Vehicle, _) => {
                return Err(mismatch("a vehicle interval (s, α) or two exact values"));
            }
            (JointType::OmniVehicle, _) => {
                return Err(mismatch(
                    "an omni-vehicle interval (φ, s, α) or three exact values",
                ));
            }
            _ => {
                return Err(mismatch(
                    "exact values (no swept-volume operation for this joint type)",
                ));
            }
        }))
    }
}

/// Operation for revolute and continuous joints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RevoluteCover {
    /// [`JointOperation::Circ1`]: one point, faster.
    Circ1,
    /// [`JointOperation::Circ2`]: two points, tighter.
    #[default]
    Circ2,
}

/// Operation for prismatic joints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PrismaticCover {
    /// [`JointOperation::Trans1`]: one point, faster.
    Trans1,
    /// [`JointOperation::Trans2`]: two points, exact.
    #[default]
    Trans2,
}

/// Operation for orientation joints with uncertainty.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OrientationCover {
    /// [`JointOperation::Rot3D1`]: one point, faster.
    Rot3D1,
    /// [`JointOperation::Rot3D4`]: four points, tighter.
    #[default]
    Rot3D4,
}

/// Operation for vehicle and omni-vehicle joints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VehicleCover {
    /// [`JointOperation::Vehicle1`] (after M3 eq. 19): at most 8 points.
    Vehicle1,
    /// [`JointOperation::VehicleCirc`] (M3 eq. 22): `4L + 5` points.
    Circ {
        /// Sample points per corner arc, `L ≥ 1`.
        l: usize,
    },
}

impl Default for VehicleCover {
    fn default() -> Self {
        Self::Circ { l: 2 }
    }
}

/// The swept volume of a body of link `link` (`body` in the link's frame)
/// in the frame of its ancestor `up_to` (`None`: the world frame), M3
/// eq. 8: each joint from the link up to (not including) `up_to` sweeps the
/// SSCH over its interval ([`SweptVolumeOptions::operation`]), and each fixed
/// origin maps it exactly. `up_to = Some(link)` returns `body`.
///
/// `intervals` holds one [`JointInterval`] per link of the tree (entries of
/// links off the chain are not read), e.g. from
/// [`braking_intervals`](crate::braking_intervals).
///
/// The point count grows by each operation's factor
/// ([`JointOperation::max_points_per_point`]).
///
/// # Errors
/// [`KinematicsError::LinkIndex`]; [`KinematicsError::NotAncestor`];
/// [`KinematicsError::BufferLength`] when `intervals.len() != tree.len()`;
/// the errors of [`SweptVolumeOptions::operation`].
pub fn swept_ssch(
    tree: &KinematicTree,
    link: usize,
    body: &Ssch,
    intervals: &[JointInterval],
    up_to: Option<usize>,
    options: &SweptVolumeOptions,
) -> Result<Ssch, KinematicsError> {
    swept_ssch_checked_chain(tree, link, intervals, up_to)?;
    sweep_chain(tree, link, body, intervals, up_to, |_| options)
}

/// One option per link, or an error naming the buffer.
fn check_options_len(
    tree: &KinematicTree,
    options: &[SweptVolumeOptions],
) -> Result<(), KinematicsError> {
    if options.len() == tree.len() {
        Ok(())
    } else {
        Err(KinematicsError::BufferLength {
            what: "swept-volume options",
            expected: tree.len(),
            got: options.len(),
        })
    }
}

/// The inverse of a rigid transform: the transpose of its rotation and
/// the rotated, negated translation.
fn rigid_inverse(t: &DAffine3) -> DAffine3 {
    let m = t.matrix3.transpose();
    DAffine3 {
        matrix3: m,
        translation: -(m * t.translation),
    }
}

/// A volume given in the frame above the roots (the world) seen from the
/// frame of link `frame`, for every value of the joints from the root down
/// to `frame` (its own joint included) in their intervals: the inverse of
/// [`swept_ssch`]'s chain. Each joint's inverse motions are swept by
/// [`JointOperation::inverse`] (with `options[k]`'s operation for link
/// `k`) and each fixed origin is undone exactly.
///
/// *Why.* A link's volume `A` (swept up to `frame`) and a world volume `B`
/// meet for some joint values iff `A` meets `T⁻¹ B` for some transform `T`
/// of the chain above, and rigid transforms keep distances; so
/// `d(A, swept_into_frame(B)) > s` proves `d(T A′, B) > s` for every `T`
/// and every pose `A′ ⊂ A` — the same guarantee as sweeping `A` to the
/// world, with the chain's operations applied once to `B` instead of to
/// every link below `frame`.
///
/// # Errors
/// As [`swept_ssch_per_link`].
pub fn swept_into_frame(
    tree: &KinematicTree,
    volume: &Ssch,
    frame: usize,
    intervals: &[JointInterval],
    options: &[SweptVolumeOptions],
) -> Result<Ssch, KinematicsError> {
    check_options_len(tree, options)?;
    swept_ssch_checked_chain(tree, frame, intervals, None)?;
    let chain: SmallVec<[usize; 16]> = tree.ancestors(frame).collect();
    let mut cur = volume.clone();
    for &k in chain.iter().rev() {
        let l = &tree.links()[k];
        cur.transform_in_place(&rigid_inverse(l.origin()));
        let o = &options[k];
        if let Some(op) = o.operation_of(l, &intervals[k])? {
            cur = op.checked()?.inverse().sweep_unchecked(&cur);
            if let Some(n) = o.max_points
                && cur.points.len() > n
            {
                cur.reduce_in_place(n);
            }
        }
    }
    Ok(cur)
}

/// [`swept_ssch`] with one [`SweptVolumeOptions`] per link (`options[k]`
/// chooses the operation of link `k`'s joint), so that each joint can take
/// the fast or the accurate operation (M3 Fig. 8's models mix them).
///
/// Chaining is exact: the volume of `link` in the frame of an ancestor `a`,
/// swept on from `a` (passed as `link = a`), equals the volume swept from
/// `link` directly, so callers that need one link in several frames can
/// sweep the nearest frame first and continue from it.
///
/// # Errors
/// As [`swept_ssch`]; [`KinematicsError::BufferLength`] when
/// `options.len() != tree.len()`.
pub fn swept_ssch_per_link(
    tree: &KinematicTree,
    link: usize,
    body: &Ssch,
    intervals: &[JointInterval],
    up_to: Option<usize>,
    options: &[SweptVolumeOptions],
) -> Result<Ssch, KinematicsError> {
    check_options_len(tree, options)?;
    swept_ssch_checked_chain(tree, link, intervals, up_to)?;
    sweep_chain(tree, link, body, intervals, up_to, |k| &options[k])
}

fn swept_ssch_checked_chain(
    tree: &KinematicTree,
    link: usize,
    intervals: &[JointInterval],
    up_to: Option<usize>,
) -> Result<(), KinematicsError> {
    tree.link(link)?;
    if intervals.len() != tree.len() {
        return Err(KinematicsError::BufferLength {
            what: "joint intervals",
            expected: tree.len(),
            got: intervals.len(),
        });
    }
    if let Some(a) = up_to {
        let anc = tree.link(a)?;
        if !tree.ancestors(link).any(|k| k == a) {
            return Err(KinematicsError::NotAncestor {
                link: tree.links()[link].name().to_owned(),
                ancestor: anc.name().to_owned(),
            });
        }
    }
    Ok(())
}

/// One cycle's joint operations prepared once for every sweep of the cycle
/// ([`swept_ssch_per_link`] and [`swept_into_frame`] with the same tree,
/// intervals and options, many times).
///
/// **Why.** A monitor sweeps each link into several frames and every link
/// below a joint through that joint: preparing each joint's operation once
/// per cycle (its rotations, its parameters checked) instead of once per
/// sweep, and fusing a revolute operation with the link's fixed origin into
/// one affine map per output point, makes a sweep step a few
/// multiply-adds per point.
///
/// **Fused revolute operations.** With `P = aaᵀ` the projection on the axis
/// and `Q = I − P`, `Circ1` maps `p` to `Pp + ½(R₀ + R₁)Qp` and `Circ2`
/// to `Pp + (Rᵢ + sin²(φ/2) R_m)Qp` (`i = 0, 1`), the same points as
/// [`JointOperation::Circ1`] / [`JointOperation::Circ2`] (whose `u` is
/// `R_m Qp · ρ/r` with `ρ/r = sin²(φ/2)`); the origin `(B, t)` composes
/// into `B·M·p + t`. The radius is `r·sin φ` or `r·sin²(φ/2)` with
/// `r = |Qp|`, as there, plus a rounding slack that also covers the
/// matrix products and the origin (see the code).
///
/// **Guarantee.** The same as [`swept_ssch_per_link`]: every volume
/// encloses the body for every joint value in the intervals; tests compare
/// the two.
#[derive(Clone, Debug)]
pub struct PreparedSweeps {
    links: Vec<PreparedLink>,
}

#[derive(Clone, Debug)]
struct PreparedLink {
    origin: DAffine3,
    origin_norm: f64,
    max_points: Option<usize>,
    op: PreparedOp,
}

// One per link, built every cycle: the maps inline spare an allocation per
// revolute joint.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
enum PreparedOp {
    /// No motion (a fixed joint).
    None,
    /// A revolute operation fused with the origin.
    Circ {
        axis: DVec3,
        maps: SmallVec<[DAffine3; 4]>,
        factor: f64,
        mag: f64,
    },
    /// Any other operation, then the origin.
    Generic(JointOperation),
}

impl PreparedSweeps {
    /// Prepares every link's operation for `intervals` (one per link) with
    /// `options` (one per link).
    ///
    /// # Errors
    /// [`KinematicsError::BufferLength`] for wrong lengths; the errors of
    /// [`SweptVolumeOptions::operation`] naming the link.
    pub fn new(
        tree: &KinematicTree,
        intervals: &[JointInterval],
        options: &[SweptVolumeOptions],
    ) -> Result<Self, KinematicsError> {
        for (what, got) in [
            ("joint intervals", intervals.len()),
            ("swept-volume options", options.len()),
        ] {
            if got != tree.len() {
                return Err(KinematicsError::BufferLength {
                    what,
                    expected: tree.len(),
                    got,
                });
            }
        }
        let mut links = Vec::with_capacity(tree.len());
        for (k, l) in tree.links().iter().enumerate() {
            let o = &options[k];
            let origin = *l.origin();
            let op = match o.operation_of(l, &intervals[k])? {
                None => PreparedOp::None,
                Some(op) => match op.checked()? {
                    JointOperation::Circ1 { axis, angles } => {
                        fused_circ(axis, angles, false, &origin)
                    }
                    JointOperation::Circ2 { axis, angles } => {
                        fused_circ(axis, angles, true, &origin)
                    }
                    other => PreparedOp::Generic(other),
                },
            };
            links.push(PreparedLink {
                origin,
                origin_norm: norm_bound(&origin.matrix3),
                max_points: o.max_points,
                op,
            });
        }
        Ok(Self { links })
    }

    /// [`swept_ssch_per_link`] with the prepared operations.
    ///
    /// # Errors
    /// [`KinematicsError::LinkIndex`]; [`KinematicsError::NotAncestor`];
    /// [`KinematicsError::BufferLength`] when the tree is not the one
    /// prepared.
    pub fn sweep(
        &self,
        tree: &KinematicTree,
        link: usize,
        body: &Ssch,
        up_to: Option<usize>,
    ) -> Result<Ssch, KinematicsError> {
        let mut out = body.clone();
        let mut buffer = Vec::with_capacity(body.points.len() * 2);
        self.sweep_into(tree, link, body, up_to, &mut out, &mut buffer)?;
        Ok(out)
    }

    /// [`PreparedSweeps::sweep`] into `out`, reusing its storage and
    /// `buffer`'s (a monitor forming volumes every cycle allocates
    /// nothing). `out` is left unspecified on an error.
    ///
    /// # Errors
    /// As [`PreparedSweeps::sweep`].
    pub fn sweep_into(
        &self,
        tree: &KinematicTree,
        link: usize,
        body: &Ssch,
        up_to: Option<usize>,
        out: &mut Ssch,
        buffer: &mut Vec<DVec3>,
    ) -> Result<(), KinematicsError> {
        self.check_chain(tree, link, up_to)?;
        out.points.clear();
        out.points.extend_from_slice(&body.points);
        out.radius = body.radius;
        let mut reached = up_to.is_none();
        for k in tree.ancestors(link) {
            if Some(k) == up_to {
                reached = true;
                break;
            }
            self.step(k, out, buffer);
            if let Some(n) = self.links[k].max_points
                && out.points.len() > n
            {
                out.reduce_in_place(n);
            }
        }
        match up_to {
            Some(a) if !reached => Err(Self::not_ancestor(tree, link, a)),
            _ => Ok(()),
        }
    }

    /// A ball enclosing the motion of the ball `(centre, radius)` of link
    /// `link`'s frame into `up_to`'s frame (`None`: the world) while every
    /// joint stays in its interval: the prepared operations applied to the
    /// one point, the result enclosed in its [`Ssch::bounding_sphere`]
    /// after every joint. It encloses everything the ball sweeps, but not
    /// necessarily [`PreparedSweeps::sweep`]'s volume of a body inside it
    /// (whose point reductions grow its radius); a few multiply-adds per
    /// joint.
    ///
    /// # Errors
    /// As [`PreparedSweeps::sweep`]; [`KinematicsError::BadParameter`] for
    /// a non-finite centre or a negative or non-finite radius.
    pub fn sweep_ball(
        &self,
        tree: &KinematicTree,
        link: usize,
        ball: (DVec3, f64),
        up_to: Option<usize>,
    ) -> Result<(DVec3, f64), KinematicsError> {
        check_finite_vec("ball centre", ball.0)?;
        check_radius("ball radius", ball.1)?;
        self.check_chain(tree, link, up_to)?;
        let (mut c, mut r) = ball;
        let mut out: SmallVec<[DVec3; 8]> = SmallVec::new();
        let mut reached = up_to.is_none();
        for k in tree.ancestors(link) {
            if Some(k) == up_to {
                reached = true;
                break;
            }
            let pl = &self.links[k];
            (c, r) = match &pl.op {
                PreparedOp::None => (
                    pl.origin.transform_point3(c),
                    transformed_radius(r, pl.origin_norm, c.length(), &pl.origin),
                ),
                PreparedOp::Circ {
                    axis,
                    maps,
                    factor,
                    mag,
                } => {
                    out.clear();
                    let radius = circ_apply(pl, *axis, maps, *factor, *mag, &[c], r, &mut out);
                    // One point is its own ball.
                    if out.len() == 1 {
                        (out[0], radius)
                    } else {
                        ball_around(&out, radius)
                    }
                }
                PreparedOp::Generic(op) => {
                    let mut cur = op.sweep_unchecked(&Ssch {
                        points: vec![c],
                        radius: r,
                    });
                    cur.transform_in_place(&pl.origin);
                    cur.bounding_sphere()
                }
            };
        }
        match up_to {
            Some(a) if !reached => Err(Self::not_ancestor(tree, link, a)),
            _ => Ok((c, r)),
        }
    }

    /// The arguments' checks of [`PreparedSweeps::sweep`] but for `up_to`
    /// being an ancestor (found on the way up: [`PreparedSweeps::not_ancestor`]).
    fn check_chain(
        &self,
        tree: &KinematicTree,
        link: usize,
        up_to: Option<usize>,
    ) -> Result<(), KinematicsError> {
        if tree.len() != self.links.len() {
            return Err(KinematicsError::BufferLength {
                what: "prepared links",
                expected: tree.len(),
                got: self.links.len(),
            });
        }
        tree.link(link)?;
        if let Some(a) = up_to {
            tree.link(a)?;
        }
        Ok(())
    }

    /// The error for an `up_to` that is not an ancestor of `link` (both
    /// valid indices).
    fn not_ancestor(tree: &KinematicTree, link: usize, up_to: usize) -> KinematicsError {
        KinematicsError::NotAncestor {
            link: tree.links()[link].name().to_owned(),
            ancestor: tree.links()[up_to].name().to_owned(),
        }
    }

    /// Link `k`'s prepared operation, then its origin, applied to `cur`
    /// (`next`: a buffer).
    fn step(&self, k: usize, cur: &mut Ssch, next: &mut Vec<DVec3>) {
        let pl = &self.links[k];
        match &pl.op {
            PreparedOp::None => cur.transform_in_place(&pl.origin),
            PreparedOp::Generic(op) => {
                *cur = op.sweep_unchecked(cur);
                cur.transform_in_place(&pl.origin);
            }
            PreparedOp::Circ {
                axis,
                maps,
                factor,
                mag,
            } => {
                next.clear();
                cur.radius = circ_apply(
                    pl,
                    *axis,
                    maps,
                    *factor,
                    *mag,
                    &cur.points,
                    cur.radius,
                    next,
                );
                core::mem::swap(&mut cur.points, next);
            }
        }
    }
}

/// A prepared revolute operation of link `pl` ([`PreparedOp::Circ`]) on
/// `points` with `radius`: the mapped points go to `out`; returns the
/// new radius.
#[allow(clippy::too_many_arguments)]
fn circ_apply(
    pl: &PreparedLink,
    axis: DVec3,
    maps: &[DAffine3],
    factor: f64,
    mag: f64,
    points: &[DVec3],
    radius: f64,
    out: &mut impl Extend<DVec3>,
) -> f64 {
    let mut rmax: f64 = 0.0;
    let mut extra: f64 = 0.0;
    for &p in points {
        let perp = p - axis * axis.dot(p);
        let r = perp.length();
        if r == 0.0 {
            out.extend(core::iter::once(maps[0].transform_point3(p)));
        } else {
            out.extend(maps.iter().map(|m| m.transform_point3(p)));
        }
        rmax = rmax.max(r * factor);
        let pl_len = p.length();
        extra = extra
            .max(pl_len * (10.0 + mag + 2.0 * pl.origin_norm) + pl.origin.translation.length());
    }
    add_up(
        (add_up(radius, rmax) * pl.origin_norm).next_up(),
        slack(extra),
    )
}

/// Revolute intervals at most this wide (radians) take `Circ1` in
/// prepared sweeps whatever the options say: its one point's radius,
/// `r·sin(w/2)`, is below a micrometre per metre of lever.
const NEARLY_AT_REST: f64 = 2e-6;

/// A revolute operation fused with the link's origin (see
/// [`PreparedSweeps`]).
fn fused_circ(axis: DVec3, angles: Interval, two: bool, origin: &DAffine3) -> PreparedOp {
    // A joint (nearly) at rest: Circ1, which covers any interval with one
    // point per point, instead of two points a rounding error apart.
    let two = two && angles.width() > NEARLY_AT_REST;
    let prep = CircPrep::new(axis, angles, two);
    let p = DMat3::from_cols(axis * axis.x, axis * axis.y, axis * axis.z);
    let q = DMat3::IDENTITY - p;
    let mut maps: SmallVec<[DAffine3; 4]> = SmallVec::new();
    let fuse = |m: DMat3| DAffine3 {
        matrix3: origin.matrix3 * (p + m * q),
        translation: origin.translation,
    };
    for &(q0, q1, qm) in &prep.rots[..prep.n as usize] {
        let (r0, r1, rm) = (
            DMat3::from_quat(q0),
            DMat3::from_quat(q1),
            DMat3::from_quat(qm),
        );
        if two {
            maps.push(fuse(r0 + rm * prep.factor));
            maps.push(fuse(r1 + rm * prep.factor));
        } else {
            maps.push(fuse((r0 + r1) * 0.5));
        }
    }
    PreparedOp::Circ {
        axis,
        maps,
        factor: prep.factor,
        mag: prep.mag,
    }
}

/// The loop of M3 eq. 8 (arguments checked by the caller).
fn sweep_chain<'o>(
    tree: &KinematicTree,
    link: usize,
    body: &Ssch,
    intervals: &[JointInterval],
    up_to: Option<usize>,
    options: impl Fn(usize) -> &'o SweptVolumeOptions,
) -> Result<Ssch, KinematicsError> {
    let mut cur = body.clone();
    for k in tree.ancestors(link) {
        if Some(k) == up_to {
            break;
        }
        let l = &tree.links()[k];
        let o = options(k);
        if let Some(op) = o.operation_of(l, &intervals[k])? {
            cur = op.checked()?.sweep_unchecked(&cur);
            if let Some(n) = o.max_points
                && cur.points.len() > n
            {
                cur.reduce_in_place(n);
            }
        }
        cur.transform_in_place(l.origin());
    }
    Ok(cur)
}

/// Two bodies' swept volumes in their least common ancestor frame (M3
/// §III-B step 3): the joints they share move both alike and are left out.
#[derive(Clone, Debug, PartialEq)]
pub struct SweptPair {
    /// The frame: the deepest common ancestor link, `None` for the world
    /// frame (bodies of different robots).
    pub frame: Option<usize>,
    /// The first body's swept volume in that frame.
    pub a: Ssch,
    /// The second body's swept volume in that frame.
    pub b: Ssch,
}

/// The swept volumes of `body_a` on link `a` and `body_b` on link `b` in
/// the frame of their least common ancestor
/// ([`KinematicTree::common_ancestor`]; the world frame for different
/// robots), each by [`swept_ssch`]. Their distance, positive, proves the two
/// bodies cannot meet while the joints stay in their intervals.
///
/// # Errors
/// As [`swept_ssch`].
pub fn swept_pair(
    tree: &KinematicTree,
    a: usize,
    body_a: &Ssch,
    b: usize,
    body_b: &Ssch,
    intervals: &[JointInterval],
    options: &SweptVolumeOptions,
) -> Result<SweptPair, KinematicsError> {
    tree.link(a)?;
    tree.link(b)?;
    let frame = tree.common_ancestor(a, b);
    Ok(SweptPair {
        frame,
        a: swept_ssch(tree, a, body_a, intervals, frame, options)?,
        b: swept_ssch(tree, b, body_b, intervals, frame, options)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vehicle cover point by point, as written before its
    /// transforms were prepared once: the reference of [`VehicleCircPrep`].
    fn vehicle_circ_reference(
        l: usize,
        phi: Interval,
        s: Interval,
        alpha: Interval,
        p: DVec3,
        out: &mut Vec<DVec3>,
    ) -> f64 {
        let pm = phi.midpoint();
        let f = |sigma: f64, a: f64| vehicle_transform(pm, sigma, a).transform_point3(p);
        // p in the frame whose x axis is the direction of motion.
        let pl = DMat3::from_rotation_z(-pm) * p;
        let pxy = DVec2::new(p.x, p.y).length();
        let lf = l as f64;
        out.push(p);
        let mut r_arc: f64 = 0.0;
        for si in [s.lo(), s.hi()] {
            for aj in [alpha.lo(), alpha.hi()] {
                for k in 1..=l {
                    let lam = k as f64 / lf;
                    out.push(f(lam * si, lam * aj));
                }
                // |∂²_λ F| = |α|·|α p'_xy − s ŷ| (rotation about (0, s/α)).
                r_arc = r_arc.max(aj.abs() * DVec2::new(aj * pl.x, aj * pl.y - si).length());
            }
        }
        r_arc /= 8.0 * lf * lf;
        let h = alpha.width() / 3.0;
        let mut r_s: f64 = 0.0;
        for si in [s.lo(), s.hi()] {
            out.push(f(si, alpha.lo() + h));
            out.push(f(si, alpha.hi() - h));
            // |∂²_a F| ≤ |p_xy| + |s|/3.
            r_s = r_s.max(pxy + si.abs() / 3.0);
        }
        r_s *= h * h / 8.0;
        let scale = (p.length() + s.mag()) * (4.0 + alpha.mag() + phi.mag());
        add_up(
            add_up(
                r_arc.max(r_s) * (1.0 + 8.0 * f64::EPSILON),
                direction_radius(phi, s),
            ),
            slack(scale),
        )
    }

    #[test]
    fn prepared_vehicle_covers_are_the_plain_ones() {
        let iv = |a: f64, b: f64| Interval::new(a, b).unwrap();
        for (l, phi, s, alpha) in [
            (1, iv(-0.1, 0.2), iv(-0.3, 0.5), iv(-0.2, 0.4)),
            (2, iv(0.0, 0.0), iv(0.0, 1.2), iv(0.0, 0.0)),
            (3, iv(1.0, 1.5), iv(-2.0, -0.5), iv(-1.0, 1.0)),
        ] {
            let prep = VehicleCircPrep::new(l, phi, s, alpha);
            for p in [
                DVec3::ZERO,
                DVec3::new(0.3, -1.2, 0.7),
                DVec3::new(-4.0, 2.5, -0.1),
            ] {
                let (mut a, mut b) = (Vec::new(), Vec::new());
                let ra = prep.cover(p, &mut a);
                let rb = vehicle_circ_reference(l, phi, s, alpha, p, &mut b);
                assert_eq!(a, b);
                assert_eq!(ra.to_bits(), rb.to_bits());
            }
        }
    }

    /// The farthest-first reduction written plainly, as a reference for
    /// [`Ssch::reduce_in_place`].
    fn reduced_reference(s: &Ssch, n: usize) -> Ssch {
        let n = n.max(1);
        if s.points.len() <= n {
            return s.clone();
        }
        let c = s.box_centre();
        let argmax = |v: &[f64]| {
            v.iter()
                .enumerate()
                .fold(
                    (0, f64::NEG_INFINITY),
                    |b, (i, d)| if *d > b.1 { (i, *d) } else { b },
                )
                .0
        };
        let to_c: Vec<f64> = s.points.iter().map(|p| p.distance_squared(c)).collect();
        let s0 = s.points[argmax(&to_c)];
        let mut far: Vec<f64> = s.points.iter().map(|p| p.distance_squared(s0)).collect();
        let mut kept = vec![s0];
        for _ in 1..n {
            let k = s.points[argmax(&far)];
            kept.push(k);
            for (d, p) in far.iter_mut().zip(&s.points) {
                *d = d.min(p.distance_squared(k));
            }
        }
        let d = far.iter().copied().fold(0.0, f64::max).sqrt();
        let scale = s
            .points
            .iter()
            .map(|p| p.abs().max_element())
            .fold(0.0, f64::max);
        Ssch {
            points: kept,
            radius: add_up(add_up(s.radius, d), slack(scale)),
        }
    }

    #[test]
    fn reduction_picks_the_points_of_the_plain_farthest_first_loop() {
        // Seeded clouds with repeated points (ties), from 2 to 200 points.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        for m in [2usize, 3, 16, 17, 32, 33, 64, 129, 200] {
            let mut pts: Vec<DVec3> = (0..m)
                .map(|_| DVec3::new(next(), next(), next()) * 3.0)
                .collect();
            pts[m / 2] = pts[0];
            let s = Ssch::new(pts, 0.25).unwrap();
            for n in [1usize, 2, 5, 16, 40] {
                assert_eq!(s.reduced(n), reduced_reference(&s, n), "{m} points to {n}");
            }
        }
    }

    #[test]
    fn circ_formulas_at_a_glance() {
        let angles = Interval::new(0.0, core::f64::consts::FRAC_PI_2).unwrap();
        let p = DVec3::new(2.0, 0.0, 1.0);
        let c1 = JointOperation::Circ1 {
            axis: DVec3::Z,
            angles,
        }
        .cover_point(p)
        .unwrap();
        assert_eq!(c1.point_count(), 1);
        assert!((c1.points()[0] - DVec3::new(1.0, 1.0, 1.0)).length() < 1e-12);
        assert!((c1.radius() - 2.0 * (PI / 4.0).sin()).abs() < 1e-12);
        let c2 = JointOperation::Circ2 {
            axis: DVec3::Z,
            angles,
        }
        .cover_point(p)
        .unwrap();
        assert_eq!(c2.point_count(), 2);
        let rho = 2.0 * (1.0 - (PI / 4.0).cos()) / 2.0;
        assert!((c2.radius() - rho).abs() < 1e-12);
        // A point on the axis does not move.
        let on_axis = JointOperation::Circ2 {
            axis: DVec3::Z,
            angles,
        }
        .cover_point(DVec3::Z)
        .unwrap();
        assert_eq!(on_axis.points(), &[DVec3::Z]);
    }

    #[test]
    fn bad_parameters_are_typed_errors() {
        let i = Interval::new(0.0, 1.0).unwrap();
        let p = DVec3::X;
        let bad_ops = [
            JointOperation::Circ1 {
                axis: DVec3::ZERO,
                angles: i,
            },
            JointOperation::Circ2 {
                axis: DVec3::new(f64::NAN, 0.0, 1.0),
                angles: i,
            },
            JointOperation::Trans2 {
                axis: DVec3::X,
                range: Interval::ENTIRE,
            },
            JointOperation::Rot3D1 {
                measured: DQuat::IDENTITY,
                beta: 4.0,
            },
            JointOperation::Rot3D4 {
                measured: DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0),
                beta: 0.1,
            },
            JointOperation::Trans3D1 {
                measured: DVec3::ZERO,
                delta: -1.0,
            },
            JointOperation::VehicleCirc {
                l: 0,
                phi: Interval::ZERO,
                s: i,
                alpha: i,
            },
        ];
        for op in bad_ops {
            assert!(
                matches!(op.cover_point(p), Err(KinematicsError::BadParameter { .. })),
                "{op:?}"
            );
        }
        assert!(Ssch::new(vec![], 0.0).is_err());
        assert!(Ssch::sphere(DVec3::ZERO, -1.0).is_err());
        assert!(Ssch::point(DVec3::new(f64::INFINITY, 0.0, 0.0)).is_err());
        assert!(Ssch::point(DVec3::X).unwrap().grown(f64::NAN).is_err());
    }

    #[test]
    fn transformed_keeps_radius_under_rotation() {
        let s = Ssch::new(vec![DVec3::X, DVec3::Y], 0.5).unwrap();
        let t = DAffine3::from_rotation_translation(DQuat::from_rotation_z(1.0), DVec3::Z);
        let u = s.transformed(&t).unwrap();
        assert!((u.radius() - 0.5).abs() < 1e-13 && u.radius() >= 0.5);
        let scaled = s
            .transformed(&DAffine3::from_scale(DVec3::splat(2.0)))
            .unwrap();
        assert!(scaled.radius() >= 1.0);
    }
}
