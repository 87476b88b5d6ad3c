//! Support maps: convex shapes described by their support function.
//!
//! A convex shape is split into a **core** `K` (a convex set given by
//! [`SupportMap::core_support`]) and a **margin** `r ≥ 0`: the shape is the
//! Minkowski sum `K ⊕ B(r)` of the core and the ball of radius `r`. A
//! sphere is a point core with its radius as margin, a capsule a segment
//! core, an SSCH the hull of its points. GJK runs on the cores and
//! subtracts the margins, which is exact (`dist(K_a ⊕ B(r_a), K_b ⊕ B(r_b))
//! = max(0, dist(K_a, K_b) − r_a − r_b)`) and keeps GJK on polytopes, where
//! it terminates in a few iterations, instead of on smooth surfaces, where it
//! only converges (van den Bergen 2003, §4.3.4).

use super::GjkError;
use armature_kinematics::Ssch;
use glam::{DAffine3, DMat3, DVec3};

/// Rounding allowance of a support function, in units of `f64::EPSILON`
/// times [`SupportMap::extent`] (see the [`SupportMap`] contract).
pub const SUPPORT_ROUNDING: f64 = 32.0;

/// A convex shape given by its support function, as GJK consumes it.
///
/// The shape is `K ⊕ B(margin)`: the core `K` (a non-empty compact convex
/// set given by [`core_support`](Self::core_support)) grown by the ball of
/// radius [`margin`](Self::margin). A sphere is a point core with its
/// radius as margin, a capsule a segment core, an SSCH the hull of its
/// points. GJK runs on the cores and subtracts the margins, which is exact
/// (`dist(K_a ⊕ B(r_a), K_b ⊕ B(r_b)) = max(0, dist(K_a, K_b) − r_a − r_b)`)
/// and keeps GJK on polytopes, where it terminates in a few iterations,
/// instead of on smooth surfaces, where it only converges.
///
/// # Contract
///
/// With `R = extent()` and `κ = SUPPORT_ROUNDING`:
///
/// - `R` is finite and `|x| ≤ R` for every point `x` of the core (NaN
///   flags invalid data, `+∞` magnitudes that overflow);
/// - `core_support(d)` returns a point within `κ·ε·R` of a core point `x`
///   with `x·d ≥ max over y in K of y·d − κ·ε·R·|d|` (a maximiser up to
///   rounding), for every finite `d`, `d = 0` included (any core point);
/// - `margin()` is finite and `≥ 0`.
///
/// The certified lower bound of [`gjk_distance`](super::gjk_distance)
/// relies on nothing else. The shapes of this module meet the contract
/// with `κ ≤ 8`; each [`Transformed`] level adds about 11 to it, so nest at
/// most two (compose the maps instead). Shapes built from non-finite data report a
/// non-finite extent or support point, which the queries turn into
/// [`GjkError::NonFiniteShape`].
///
/// See also [`ConvexPoints`], [`Ball`], [`Capsule`], [`Cuboid`],
/// [`Transformed`]; implemented for `[DVec3]`, `Vec<DVec3>` and
/// [`armature_kinematics::Ssch`].
pub trait SupportMap {
    /// A point of the core maximising `x · dir` (see the contract).
    #[must_use]
    fn core_support(&self, dir: DVec3) -> DVec3;

    /// The radius of the ball swept about the core; 0 by default.
    #[must_use]
    fn margin(&self) -> f64 {
        0.0
    }

    /// An upper bound on `|x|` over the core points (any finite
    /// over-estimate is valid; it sizes the rounding slack of certified
    /// bounds, so a tight one gives tighter bounds).
    #[must_use]
    fn extent(&self) -> f64;

    /// A point of the whole shape `K ⊕ B(margin)` maximising `x · dir`: the
    /// core's support point moved by `margin` along `dir`. For `dir = 0`, a
    /// core point.
    #[must_use]
    fn support(&self, dir: DVec3) -> DVec3 {
        let c = self.core_support(dir);
        let r = self.margin();
        let n = dir.length();
        if r > 0.0 && n > 0.0 {
            c + dir * (r / n)
        } else {
            c
        }
    }
}

impl<T: SupportMap + ?Sized> SupportMap for &T {
    fn core_support(&self, dir: DVec3) -> DVec3 {
        (**self).core_support(dir)
    }
    fn margin(&self) -> f64 {
        (**self).margin()
    }
    fn extent(&self) -> f64 {
        (**self).extent()
    }
}

/// `x` rounded up by a relative `8 ε` (for bounds computed in f64 from a
/// handful of operations).
fn up(x: f64) -> f64 {
    x * (1.0 + 8.0 * f64::EPSILON)
}

/// The point of `points` with the largest `p · dir` (the first on ties);
/// NaN coordinates for an empty slice.
fn argmax(points: &[DVec3], dir: DVec3) -> DVec3 {
    let Some((&first, rest)) = points.split_first() else {
        return DVec3::NAN;
    };
    let (mut best, mut best_dot) = (first, first.dot(dir));
    for &p in rest {
        let d = p.dot(dir);
        if d > best_dot {
            best = p;
            best_dot = d;
        }
    }
    best
}

/// `max |p|` rounded up; NaN for an empty slice or a non-finite coordinate.
fn max_norm(points: &[DVec3]) -> f64 {
    if points.is_empty() {
        return f64::NAN;
    }
    let mut m2: f64 = 0.0;
    for p in points {
        if !p.is_finite() {
            return f64::NAN;
        }
        m2 = m2.max(p.length_squared());
    }
    up(m2.sqrt())
}

/// The convex hull of the points. An empty slice or a non-finite
/// coordinate gives a NaN [`extent`](SupportMap::extent), which the queries
/// report as [`GjkError::NonFiniteShape`]; [`ConvexPoints`] checks once
/// instead of at every query.
impl SupportMap for [DVec3] {
    fn core_support(&self, dir: DVec3) -> DVec3 {
        argmax(self, dir)
    }
    fn extent(&self) -> f64 {
        max_norm(self)
    }
}

/// As for `[DVec3]`.
impl SupportMap for Vec<DVec3> {
    fn core_support(&self, dir: DVec3) -> DVec3 {
        argmax(self, dir)
    }
    fn extent(&self) -> f64 {
        max_norm(self)
    }
}

/// The SSCH as the hull of its points (core) with its radius (margin).
impl SupportMap for Ssch {
    fn core_support(&self, dir: DVec3) -> DVec3 {
        argmax(self.points(), dir)
    }
    fn margin(&self) -> f64 {
        self.radius()
    }
    fn extent(&self) -> f64 {
        max_norm(self.points())
    }
}

fn bad(field: &'static str, value: f64, why: &'static str) -> GjkError {
    GjkError::BadParameter { field, value, why }
}

fn check_vec(field: &'static str, v: DVec3) -> Result<(), GjkError> {
    match v.to_array().into_iter().find(|c| !c.is_finite()) {
        Some(c) => Err(bad(field, c, "finite coordinates")),
        None => Ok(()),
    }
}

fn check_radius(field: &'static str, r: f64) -> Result<(), GjkError> {
    if r.is_finite() && r >= 0.0 {
        Ok(())
    } else {
        Err(bad(field, r, "finite, ≥ 0"))
    }
}

/// The convex hull of a borrowed, validated point set, with its
/// [`extent`](SupportMap::extent) computed once.
///
/// ```
/// use armature_bvh_geometry::gjk::{ConvexPoints, SupportMap};
/// use glam::DVec3;
/// let pts = [DVec3::ZERO, DVec3::X, DVec3::Y];
/// let hull = ConvexPoints::new(&pts)?;
/// assert_eq!(hull.core_support(DVec3::new(1.0, 0.5, 0.0)), DVec3::X);
/// # Ok::<(), armature_bvh_geometry::gjk::GjkError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConvexPoints<'a> {
    points: &'a [DVec3],
    extent: f64,
}

impl<'a> ConvexPoints<'a> {
    /// The hull of `points`.
    ///
    /// # Errors
    /// [`GjkError::EmptyPointSet`]; [`GjkError::NonFinitePoint`] naming the
    /// first point with a NaN or infinite coordinate, or whose norm
    /// overflows.
    pub fn new(points: &'a [DVec3]) -> Result<Self, GjkError> {
        if points.is_empty() {
            return Err(GjkError::EmptyPointSet);
        }
        let mut m: f64 = 0.0;
        for (index, p) in points.iter().enumerate() {
            let n = p.length();
            if !n.is_finite() {
                return Err(GjkError::NonFinitePoint { index });
            }
            m = m.max(n);
        }
        Ok(Self {
            points,
            extent: up(m),
        })
    }

    /// The points.
    #[must_use]
    pub const fn points(&self) -> &'a [DVec3] {
        self.points
    }
}

impl SupportMap for ConvexPoints<'_> {
    fn core_support(&self, dir: DVec3) -> DVec3 {
        argmax(self.points, dir)
    }
    fn extent(&self) -> f64 {
        self.extent
    }
}

/// A ball: the point `center` (core) with margin `radius`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ball {
    center: DVec3,
    radius: f64,
}

impl Ball {
    /// The ball of `radius` about `center`.
    ///
    /// # Errors
    /// [`GjkError::BadParameter`] for non-finite coordinates or a radius
    /// that is negative or not finite.
    pub fn new(center: DVec3, radius: f64) -> Result<Self, GjkError> {
        check_vec("center", center)?;
        check_radius("radius", radius)?;
        Ok(Self { center, radius })
    }

    /// The centre.
    #[must_use]
    pub const fn center(&self) -> DVec3 {
        self.center
    }

    /// The radius.
    #[must_use]
    pub const fn radius(&self) -> f64 {
        self.radius
    }
}

impl SupportMap for Ball {
    fn core_support(&self, _dir: DVec3) -> DVec3 {
        self.center
    }
    fn margin(&self) -> f64 {
        self.radius
    }
    fn extent(&self) -> f64 {
        up(self.center.length())
    }
}

/// A capsule (line-swept sphere): the segment `[a, b]` (core) with margin
/// `radius`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Capsule {
    a: DVec3,
    b: DVec3,
    radius: f64,
}

impl Capsule {
    /// The points within `radius` of the segment `[a, b]` (`a = b` gives a
    /// ball).
    ///
    /// # Errors
    /// [`GjkError::BadParameter`] for non-finite coordinates or a radius
    /// that is negative or not finite.
    pub fn new(a: DVec3, b: DVec3, radius: f64) -> Result<Self, GjkError> {
        check_vec("a", a)?;
        check_vec("b", b)?;
        check_radius("radius", radius)?;
        Ok(Self { a, b, radius })
    }

    /// The segment's end points.
    #[must_use]
    pub const fn segment(&self) -> (DVec3, DVec3) {
        (self.a, self.b)
    }

    /// The radius.
    #[must_use]
    pub const fn radius(&self) -> f64 {
        self.radius
    }
}

impl SupportMap for Capsule {
    fn core_support(&self, dir: DVec3) -> DVec3 {
        if self.b.dot(dir) > self.a.dot(dir) {
            self.b
        } else {
            self.a
        }
    }
    fn margin(&self) -> f64 {
        self.radius
    }
    fn extent(&self) -> f64 {
        up(self.a.length().max(self.b.length()))
    }
}

/// An oriented box: `center + Σᵢ tᵢ·hᵢ·axisᵢ` for `tᵢ ∈ [−1, 1]`, with
/// `axisᵢ` the columns of `axes` and `hᵢ` the half extents. The axes are
/// usually orthonormal; any finite axes give a parallelepiped, which is
/// still convex and handled exactly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cuboid {
    center: DVec3,
    axes: DMat3,
    half_extents: DVec3,
}

impl Cuboid {
    /// The box about `center` with axes the columns of `axes` and
    /// `half_extents` along them.
    ///
    /// # Errors
    /// [`GjkError::BadParameter`] for non-finite data or a negative half
    /// extent.
    pub fn new(center: DVec3, axes: DMat3, half_extents: DVec3) -> Result<Self, GjkError> {
        check_vec("center", center)?;
        for c in [axes.x_axis, axes.y_axis, axes.z_axis] {
            check_vec("axes", c)?;
        }
        check_vec("half_extents", half_extents)?;
        if let Some(h) = half_extents.to_array().into_iter().find(|h| *h < 0.0) {
            return Err(bad("half_extents", h, "≥ 0"));
        }
        Ok(Self {
            center,
            axes,
            half_extents,
        })
    }

    /// The axis-aligned box `[min, max]`.
    ///
    /// # Errors
    /// [`GjkError::BadParameter`] for non-finite corners or `min > max` on
    /// an axis.
    pub fn from_min_max(min: DVec3, max: DVec3) -> Result<Self, GjkError> {
        check_vec("min", min)?;
        check_vec("max", max)?;
        Self::new((min + max) * 0.5, DMat3::IDENTITY, (max - min) * 0.5)
    }

    /// The centre.
    #[must_use]
    pub const fn center(&self) -> DVec3 {
        self.center
    }

    /// The axes (columns).
    #[must_use]
    pub const fn axes(&self) -> DMat3 {
        self.axes
    }

    /// The half extents along the axes.
    #[must_use]
    pub const fn half_extents(&self) -> DVec3 {
        self.half_extents
    }

    /// The eight corners (bit `i` of the index picks the sign along axis
    /// `i`).
    #[must_use]
    pub fn corners(&self) -> [DVec3; 8] {
        let h = self.half_extents;
        let e = [
            self.axes.x_axis * h.x,
            self.axes.y_axis * h.y,
            self.axes.z_axis * h.z,
        ];
        core::array::from_fn(|k| {
            let s = |bit: usize| if k & (1 << bit) == 0 { -1.0 } else { 1.0 };
            self.center + e[0] * s(0) + e[1] * s(1) + e[2] * s(2)
        })
    }
}

impl SupportMap for Cuboid {
    fn core_support(&self, dir: DVec3) -> DVec3 {
        let pick = |axis: DVec3, h: f64| {
            if axis.dot(dir) >= 0.0 {
                axis * h
            } else {
                -axis * h
            }
        };
        self.center
            + pick(self.axes.x_axis, self.half_extents.x)
            + pick(self.axes.y_axis, self.half_extents.y)
            + pick(self.axes.z_axis, self.half_extents.z)
    }
    fn extent(&self) -> f64 {
        let h = self.half_extents;
        up(self.center.length()
            + self.axes.x_axis.length() * h.x
            + self.axes.y_axis.length() * h.y
            + self.axes.z_axis.length() * h.z)
    }
}

/// How far the Gram matrix `MᵀM` of a linear map may stray from a multiple
/// of the identity, relative to that multiple, for the map to keep margins
/// as balls (see [`Transformed`]).
const CONFORMAL_TOLERANCE: f64 = 1e-12;

/// An upper bound on the spectral norm of `m` and whether `m` is conformal
/// (a rotation times a uniform scale, within [`CONFORMAL_TOLERANCE`]).
fn norm_bound(m: &DMat3) -> (f64, bool) {
    let g = m.transpose() * *m;
    let s = (g.x_axis.x + g.y_axis.y + g.z_axis.z) / 3.0;
    let mut row_sum: f64 = 0.0;
    let mut dev: f64 = 0.0;
    for i in 0..3 {
        let r = g.row(i);
        row_sum = row_sum.max(r.x.abs() + r.y.abs() + r.z.abs());
        let d = r - DVec3::AXES[i] * s;
        dev = dev.max(d.x.abs().max(d.y.abs()).max(d.z.abs()));
    }
    // Gershgorin: every eigenvalue of MᵀM is at most its largest absolute
    // row sum, so its square root bounds ‖M‖₂; the factor absorbs the
    // rounding of the product.
    let norm = row_sum.sqrt() * (1.0 + 16.0 * f64::EPSILON);
    (norm, dev <= CONFORMAL_TOLERANCE * s)
}

/// A shape under an affine map `x ↦ M x + t`: the core support is
/// `M · s(Mᵀ d) + t`, exact for any `M`.
///
/// The margin of the inner shape stays a margin when `M` is conformal (a
/// rotation times a uniform scale: rigid transforms, within a relative
/// `1e-12` on `MᵀM`), grown to `margin · ‖M‖` with `‖M‖` bounded from
/// above, so the represented set contains the exact image and is larger by
/// at most a relative `1e-12` of the margin. For other `M` the image of a
/// ball is an ellipsoid: the margin is folded into the core (exact, but GJK
/// then converges on a smooth surface instead of terminating).
///
/// A non-finite transform gives a NaN extent, reported by the queries as
/// [`GjkError::NonFiniteShape`].
///
/// ```
/// use armature_bvh_geometry::gjk::{Ball, GjkOptions, Transformed, gjk_distance};
/// use glam::{DAffine3, DVec3};
/// let ball = Ball::new(DVec3::ZERO, 0.5)?;
/// let moved = Transformed::new(ball, DAffine3::from_translation(DVec3::new(3.0, 0.0, 0.0)));
/// let d = gjk_distance(&ball, &moved, &GjkOptions::default())?;
/// assert!((d.distance - 2.0).abs() < 1e-12 && d.lower_bound <= 2.0);
/// # Ok::<(), armature_bvh_geometry::gjk::GjkError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transformed<S> {
    shape: S,
    transform: DAffine3,
    transpose: DMat3,
    margin: f64,
    fold_margin: bool,
    extent: f64,
}

impl<S: SupportMap> Transformed<S> {
    /// `shape` under `transform`.
    #[must_use]
    pub fn new(shape: S, transform: DAffine3) -> Self {
        let (norm, conformal) = norm_bound(&transform.matrix3);
        let inner_margin = shape.margin();
        let fold_margin = !conformal && inner_margin > 0.0;
        let (margin, core_extent) = if fold_margin {
            (0.0, shape.extent() + inner_margin)
        } else {
            (up(inner_margin * norm), shape.extent())
        };
        let finite = transform.translation.is_finite() && transform.matrix3.is_finite();
        let extent = if finite {
            up(norm * core_extent + transform.translation.length())
        } else {
            f64::NAN
        };
        Self {
            shape,
            transform,
            transpose: transform.matrix3.transpose(),
            margin,
            fold_margin,
            extent,
        }
    }

    /// The inner shape.
    #[must_use]
    pub const fn shape(&self) -> &S {
        &self.shape
    }

    /// The transform.
    #[must_use]
    pub const fn transform(&self) -> &DAffine3 {
        &self.transform
    }
}

impl<S: SupportMap> SupportMap for Transformed<S> {
    fn core_support(&self, dir: DVec3) -> DVec3 {
        let local = self.transpose * dir;
        let p = if self.fold_margin {
            self.shape.support(local)
        } else {
            self.shape.core_support(local)
        };
        self.transform.transform_point3(p)
    }
    fn margin(&self) -> f64 {
        self.margin
    }
    fn extent(&self) -> f64 {
        self.extent
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DQuat;

    #[test]
    fn supports_of_primitives() {
        let c = Cuboid::from_min_max(DVec3::ZERO, DVec3::new(1.0, 2.0, 3.0)).unwrap();
        assert_eq!(
            c.core_support(DVec3::new(1.0, -1.0, 1.0)),
            DVec3::new(1.0, 0.0, 3.0)
        );
        let k = Capsule::new(DVec3::ZERO, DVec3::X, 0.5).unwrap();
        assert_eq!(k.support(DVec3::X * 2.0), DVec3::new(1.5, 0.0, 0.0));
        assert_eq!(k.support(DVec3::ZERO), DVec3::ZERO);
        let empty: &[DVec3] = &[];
        assert!(empty.extent().is_nan());
        assert!(empty.core_support(DVec3::X).is_nan());
        assert!(
            [DVec3::new(f64::NAN, 0.0, 0.0)][..].extent().is_nan(),
            "NaN points must poison the extent"
        );
    }

    #[test]
    fn transformed_keeps_rigid_margins_and_folds_others() {
        let ball = Ball::new(DVec3::X, 1.0).unwrap();
        let rigid = Transformed::new(
            ball,
            DAffine3::from_rotation_translation(DQuat::from_rotation_z(0.3), DVec3::Y),
        );
        assert!(rigid.margin() >= 1.0 && rigid.margin() < 1.0 + 1e-12);
        let sheared = Transformed::new(ball, DAffine3::from_scale(DVec3::new(2.0, 1.0, 1.0)));
        assert_eq!(sheared.margin(), 0.0);
        // The ellipsoid (x−2)²/4 + y² + z² ≤ 1 reaches x = 4.
        assert!((sheared.core_support(DVec3::X).x - 4.0).abs() < 1e-12);
    }

    #[test]
    fn bad_shapes_are_typed_errors() {
        assert!(Ball::new(DVec3::ZERO, -1.0).is_err());
        assert!(Capsule::new(DVec3::NAN, DVec3::ZERO, 1.0).is_err());
        assert!(Cuboid::new(DVec3::ZERO, DMat3::IDENTITY, DVec3::new(1.0, -1.0, 1.0)).is_err());
        assert_eq!(ConvexPoints::new(&[]), Err(GjkError::EmptyPointSet));
        assert_eq!(
            ConvexPoints::new(&[DVec3::ZERO, DVec3::INFINITY]),
            Err(GjkError::NonFinitePoint { index: 1 })
        );
    }
}
