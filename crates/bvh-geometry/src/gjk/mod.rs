//! GJK distance and intersection between convex shapes given by support
//! functions, with a certified lower bound, warm starts and SSCH distances.
//!
//! **What.** [`gjk_distance`] computes the distance between two convex
//! shapes described by [`SupportMap`]s (point sets, balls, capsules, boxes,
//! [`Ssch`](armature_kinematics::Ssch)s, and any of them under an affine
//! map), with witness points, a **certified lower bound** and the final
//! simplex; [`gjk_distance_warm`] starts from a [`GjkCache`] of the previous
//! query of the same pair; [`gjk_intersect`] answers overlap alone;
//! [`ssch_distance`] is the M3 pair test (docs/architecture.md, "The M3 monitor"):
//! the distance between two sphere-swept convex hulls.
//!
//! **Why.** Collision use needs conservative answers: a pair may be
//! declared apart only if a *lower* bound on its distance is positive. GJK
//! produces one for free at every iteration (the duality gap below), and
//! converges in a handful of iterations on polytopes, so the M3 monitor can
//! update every pair every control cycle in bounded time.
//!
//! **Algorithm** (Gilbert, Johnson & Keerthi 1988; sub-distance by signed
//! volumes, Montanari, Petrinic & Barbieri 2017). Each shape is a core `K`
//! plus a margin `r` (a sphere is a point with margin, an SSCH its point
//! hull with its radius); GJK runs on the cores, on the Minkowski
//! difference `D = K_a − K_b`, and the margins are subtracted at the end,
//! which is exact: `dist = max(0, dist(K_a, K_b) − r_a − r_b)` (van den
//! Bergen 2003, §4.3.4). Each iteration takes the current nearest point `v`
//! of the simplex (a convex combination of points of `D`), asks for the
//! support point `w = s_a(−v) − s_b(v)` (the point of `D` minimising
//! `x · v`), adds `w` to the simplex and reduces the simplex to the face
//! nearest the origin. Stops: the duality gap is within tolerance
//! ([`GjkOptions`]), the origin is enclosed or `|v|` is below rounding
//! resolution (the cores touch or intersect), no new support point or no
//! decrease of `|v|` ([`GjkStatus::Stalled`]), or the iteration cap
//! ([`GjkStatus::MaxIterations`]). Every loop is bounded by
//! [`GjkOptions::max_iterations`].
//!
//! **The certified lower bound.** For any vector `v ≠ 0` and the support
//! point `w` of `D` in direction `−v`, every `x ∈ D` has
//! `|x|·|v| ≥ x·v ≥ w·v`, so
//!
//! ```text
//! dist(K_a, K_b) ≥ (v·w)/|v|       (= |v| − (|v|² − v·w)/|v|, the duality gap)
//! ```
//!
//! for *any* `v`, in particular the floating-point `v` GJK happened to
//! compute; it need not lie in `D`. The reported [`GjkResult::lower_bound`]
//! is `max(0, maxₖ (vₖ·wₖ)/|vₖ| − r_a − r_b − slack)` over all iterations,
//! with `slack = 128 ε (R_a + R_b + r_a + r_b)` where `R` are the shapes'
//! [`extent`](SupportMap::extent)s and `ε = f64::EPSILON`. The slack covers
//! the [`SupportMap`] contract's rounding (`2 · 32 ε R` for the points and
//! their optimality), the rounding of `w = a − b`, of the dot product, the
//! norm and the division (`< 16 ε R`) and of the margin subtraction
//! (`< 4 ε (R + r)`), so `lower_bound ≤ true distance` holds in floating
//! point for every shape meeting the contract — whatever the status,
//! iteration count, warm start or tolerance. [`GjkResult::distance`] is
//! `|v|` (minus the margins) for the best `v` found, a convex combination of
//! points of `D`: an upper bound on the true distance up to the same
//! rounding, and the best estimate.
//!
//! **Bad input.** Non-finite data (NaN or infinite coordinates, an empty
//! point set) and magnitudes above [`MAX_MAGNITUDE`] are a typed
//! [`GjkError`], never a panic and never a silent NaN distance.
//!
//! ```
//! use armature_bvh_geometry::gjk::{Capsule, ConvexPoints, GjkCache, GjkOptions, gjk_distance_warm};
//! use glam::DVec3;
//! let tetra = [DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
//! let a = ConvexPoints::new(&tetra)?;
//! let b = Capsule::new(DVec3::new(2.0, 0.0, 0.0), DVec3::new(2.0, 1.0, 0.0), 0.25)?;
//! let mut cache = GjkCache::new();
//! let d = gjk_distance_warm(&a, &b, &GjkOptions::default(), &mut cache)?;
//! assert!((d.distance - 0.75).abs() < 1e-12);
//! assert!(d.lower_bound <= 0.75 && d.lower_bound > 0.75 - 1e-12);
//! // The next cycle starts from the stored simplex.
//! let again = gjk_distance_warm(&a, &b, &GjkOptions::default(), &mut cache)?;
//! assert!(again.iterations <= d.iterations);
//! # Ok::<(), armature_bvh_geometry::gjk::GjkError>(())
//! ```
//!
//! **References.** E. G. Gilbert, D. W. Johnson, S. S. Keerthi, "A fast
//! procedure for computing the distance between complex objects in
//! three-dimensional space", IEEE J. Robotics and Automation 4(2), 1988.
//! M. Montanari, N. Petrinic, E. Barbieri, "Improving the GJK algorithm for
//! faster and more reliable distance queries between convex objects", ACM
//! Trans. Graphics 36(3), 2017. G. van den Bergen, *Collision Detection in
//! Interactive 3D Environments*, 2003, ch. 4.

mod simplex;
mod ssch;
mod support;

pub use simplex::{GjkCache, GjkSimplex};
pub use ssch::{SschDistance, ssch_distance};
pub use support::{Ball, Capsule, ConvexPoints, Cuboid, SUPPORT_ROUNDING, SupportMap, Transformed};

use glam::DVec3;
use simplex::Vertex;

/// Iteration cap of [`GjkOptions::default`]. GJK on polytopes of a few
/// dozen vertices terminates in well under 20 iterations; the cap only
/// bounds pathological inputs.
pub const DEFAULT_MAX_ITERATIONS: usize = 64;

/// Relative tolerance of [`GjkOptions::default`] on the duality gap.
pub const DEFAULT_RELATIVE_TOLERANCE: f64 = 1e-10;

/// The rounding slack factor of the certified bounds, in units of
/// `f64::EPSILON` (see the [module docs](self)).
const SLACK_FACTOR: f64 = 128.0;

/// Largest supported magnitude of coordinates and margins: the
/// sub-distance step forms products of four coordinates (squared areas),
/// which must not overflow.
pub const MAX_MAGNITUDE: f64 = 1e60;

/// Which operand of a query a [`GjkError`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GjkOperand {
    /// The first shape.
    A,
    /// The second shape.
    B,
}

impl core::fmt::Display for GjkOperand {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::A => "a",
            Self::B => "b",
        })
    }
}

/// Errors of the GJK queries and shape constructors.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum GjkError {
    /// A shape parameter or an option is out of range.
    #[error("{field} = {value}: expected {why}")]
    BadParameter {
        /// The parameter.
        field: &'static str,
        /// The offending value (a coordinate for vectors).
        value: f64,
        /// What was expected.
        why: &'static str,
    },
    /// A point set with no point.
    #[error("empty point set")]
    EmptyPointSet,
    /// A point with a NaN or infinite coordinate, or whose norm overflows.
    #[error("point {index} is not finite")]
    NonFinitePoint {
        /// Index of the point in the set.
        index: usize,
    },
    /// A shape reported a non-finite extent, margin or support point: NaN
    /// or infinite coordinates, an empty point set, a non-finite transform,
    /// or a negative margin.
    #[error("shape {shape}: non-finite or invalid support data")]
    NonFiniteShape {
        /// The shape.
        shape: GjkOperand,
    },
    /// Extents and margins together above [`MAX_MAGNITUDE`] (an infinite
    /// [`extent`](SupportMap::extent) with finite coordinates included).
    #[error("coordinates too large: extents and margins sum above 1e60")]
    Overflow,
}

/// Tolerances and the iteration budget of a GJK query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GjkOptions {
    /// Iteration cap (support evaluations of the main loop); default
    /// [`DEFAULT_MAX_ITERATIONS`]. When it runs out the status is
    /// [`GjkStatus::MaxIterations`] and the lower bound stays certified.
    pub max_iterations: usize,
    /// Stop when the duality gap `|v| − lower bound` (on the cores) is at
    /// most `relative_tolerance · |v| + absolute_tolerance` (plus the
    /// rounding slack); default [`DEFAULT_RELATIVE_TOLERANCE`].
    pub relative_tolerance: f64,
    /// Absolute part of the stopping tolerance, in length units; default 0.
    /// For [`try_gjk_intersect`] it is also the contact distance: shapes
    /// closer than this count as intersecting.
    pub absolute_tolerance: f64,
}

impl Default for GjkOptions {
    fn default() -> Self {
        Self {
            max_iterations: DEFAULT_MAX_ITERATIONS,
            relative_tolerance: DEFAULT_RELATIVE_TOLERANCE,
            absolute_tolerance: 0.0,
        }
    }
}

impl GjkOptions {
    /// With iteration cap `n`.
    #[must_use]
    pub const fn with_max_iterations(mut self, n: usize) -> Self {
        self.max_iterations = n;
        self
    }

    /// With relative tolerance `tol` (finite, ≥ 0).
    #[must_use]
    pub const fn with_relative_tolerance(mut self, tol: f64) -> Self {
        self.relative_tolerance = tol;
        self
    }

    /// With absolute tolerance `tol` (finite, ≥ 0).
    #[must_use]
    pub const fn with_absolute_tolerance(mut self, tol: f64) -> Self {
        self.absolute_tolerance = tol;
        self
    }

    fn check(&self) -> Result<(), GjkError> {
        for (field, value) in [
            ("relative_tolerance", self.relative_tolerance),
            ("absolute_tolerance", self.absolute_tolerance),
        ] {
            if !(value.is_finite() && value >= 0.0) {
                return Err(GjkError::BadParameter {
                    field,
                    value,
                    why: "finite, ≥ 0",
                });
            }
        }
        Ok(())
    }
}

/// How a GJK distance query ended. Whatever the status,
/// [`GjkResult::lower_bound`] is certified and [`GjkResult::distance`] is
/// the best upper estimate found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GjkStatus {
    /// The duality gap met the tolerance, or the cores touch or intersect
    /// within rounding resolution.
    Converged,
    /// The estimate stopped improving in `f64` before the tolerance was
    /// met (a repeated support point or no decrease of `|v|`). Seen on
    /// smooth cores (balls under non-conformal maps, see [`Transformed`]),
    /// whose gap can stall just above a `1e-10` relative tolerance.
    Stalled,
    /// The iteration cap ran out.
    MaxIterations,
}

/// The answer of [`gjk_distance`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GjkResult {
    /// Best estimate of the distance between the shapes (margins
    /// included): `≥ 0`, 0 when they intersect or touch within rounding
    /// resolution; an upper bound on the true distance up to rounding.
    pub distance: f64,
    /// Certified lower bound on the true distance (see the
    /// [module docs](self)): `0 ≤ lower_bound ≤ distance`.
    pub lower_bound: f64,
    /// Witness point on shape `a` (on its surface when apart).
    pub point_a: DVec3,
    /// Witness point on shape `b`; equal to `point_a` when the shapes
    /// overlap through their margins.
    pub point_b: DVec3,
    /// Unit direction from `a` towards `b` (`−v/|v|`), zero when the cores
    /// intersect.
    pub normal: DVec3,
    /// How the query ended.
    pub status: GjkStatus,
    /// Iterations of the main loop (support evaluations after the initial
    /// simplex).
    pub iterations: usize,
    /// The final simplex on the cores, for warm starts
    /// ([`GjkCache::store`]).
    pub simplex: GjkSimplex,
}

/// Validated margins, extents and the rounding slack of a pair.
struct Pair {
    ra: f64,
    rb: f64,
    /// Slack on core distances and certified bounds (module docs).
    slack: f64,
}

impl Pair {
    fn new<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(a: &A, b: &B) -> Result<Self, GjkError> {
        let check = |shape, margin: f64, extent: f64| {
            if !(margin.is_finite() && margin >= 0.0 && extent >= 0.0) {
                Err(GjkError::NonFiniteShape { shape })
            } else if extent == f64::INFINITY {
                Err(GjkError::Overflow)
            } else {
                Ok(())
            }
        };
        let (ra, ea) = (a.margin(), a.extent());
        let (rb, eb) = (b.margin(), b.extent());
        check(GjkOperand::A, ra, ea)?;
        check(GjkOperand::B, rb, eb)?;
        let size = ea + eb + ra + rb;
        if size > MAX_MAGNITUDE {
            return Err(GjkError::Overflow);
        }
        let slack = SLACK_FACTOR * f64::EPSILON * size;
        Ok(Self { ra, rb, slack })
    }
}

fn support_vertex<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    a: &A,
    b: &B,
    dir: DVec3,
) -> Result<Vertex, GjkError> {
    let pa = a.core_support(dir);
    if !pa.is_finite() {
        return Err(GjkError::NonFiniteShape {
            shape: GjkOperand::A,
        });
    }
    let pb = b.core_support(-dir);
    if !pb.is_finite() {
        return Err(GjkError::NonFiniteShape {
            shape: GjkOperand::B,
        });
    }
    let w = pa - pb;
    if !w.length_squared().is_finite() {
        return Err(GjkError::Overflow);
    }
    Ok(Vertex {
        w,
        a: pa,
        b: pb,
        dir,
    })
}

/// Whether the simplex already holds the support pair of `v`.
fn contains(simplex: &GjkSimplex, v: &Vertex) -> bool {
    simplex.vertices[..simplex.len]
        .iter()
        .any(|u| u.a == v.a && u.b == v.b)
}

/// The initial simplex: the cached directions' supports (duplicates
/// dropped), or one support point in an arbitrary direction.
fn initial_simplex<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    a: &A,
    b: &B,
    cache: Option<&GjkCache>,
) -> Result<GjkSimplex, GjkError> {
    let mut s = GjkSimplex::default();
    if let Some(c) = cache {
        for &d in c.directions() {
            let v = support_vertex(a, b, d)?;
            if !contains(&s, &v) {
                s.push(v);
            }
        }
    }
    if s.is_empty() {
        s.push(support_vertex(a, b, DVec3::X)?);
    }
    Ok(s)
}

/// The GJK distance between `a` and `b` (cold start).
///
/// See the [module docs](self) for the algorithm and the certificate of
/// [`GjkResult::lower_bound`].
///
/// # Errors
/// [`GjkError::BadParameter`] for a negative or non-finite tolerance;
/// [`GjkError::NonFiniteShape`] when a shape reports non-finite data;
/// [`GjkError::Overflow`] for magnitudes above [`MAX_MAGNITUDE`].
pub fn gjk_distance<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    a: &A,
    b: &B,
    options: &GjkOptions,
) -> Result<GjkResult, GjkError> {
    run_distance(a, b, options, None)
}

/// The GJK distance between `a` and `b`, starting from the simplex stored
/// in `cache` by the previous query of this pair and storing the new one.
///
/// The answer's guarantees do not depend on the cache (see [`GjkCache`]);
/// a cache of another pair only costs iterations.
///
/// # Errors
/// As [`gjk_distance`].
pub fn gjk_distance_warm<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    a: &A,
    b: &B,
    options: &GjkOptions,
    cache: &mut GjkCache,
) -> Result<GjkResult, GjkError> {
    let r = run_distance(a, b, options, Some(cache))?;
    cache.store(&r.simplex);
    Ok(r)
}

fn run_distance<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    a: &A,
    b: &B,
    options: &GjkOptions,
    cache: Option<&GjkCache>,
) -> Result<GjkResult, GjkError> {
    options.check()?;
    let pair = Pair::new(a, b)?;
    let mut simplex = initial_simplex(a, b, cache)?;
    let mut v = simplex.reduce();
    let mut best = simplex;
    // The largest (v·w)/|v| seen: a lower bound on the core distance
    // before the rounding slack (module docs).
    let mut lb = f64::NEG_INFINITY;
    let mut status = GjkStatus::MaxIterations;
    let mut iterations = 0;
    while iterations < options.max_iterations {
        let vv = v.length_squared();
        if !vv.is_finite() {
            return Err(GjkError::Overflow);
        }
        let nv = vv.sqrt();
        if nv <= pair.slack {
            // The origin is enclosed (v = 0) or within rounding
            // resolution of D: the cores touch or intersect.
            status = GjkStatus::Converged;
            break;
        }
        iterations += 1;
        let vert = support_vertex(a, b, -v)?;
        lb = lb.max(v.dot(vert.w) / nv);
        let tol = options.relative_tolerance * nv + options.absolute_tolerance + pair.slack;
        if nv - lb <= tol {
            status = GjkStatus::Converged;
            break;
        }
        if contains(&simplex, &vert) {
            status = GjkStatus::Stalled;
            break;
        }
        simplex.push(vert);
        let next = simplex.reduce();
        let nn = next.length_squared();
        if nn.is_nan() || nn >= vv {
            // No decrease (f64 resolution reached) or a NaN from a
            // degenerate projection: keep the best simplex.
            status = GjkStatus::Stalled;
            break;
        }
        v = next;
        best = simplex;
    }
    Ok(finish(&pair, &best, v, lb, status, iterations))
}

/// Margins, witnesses and the certified bound from the best simplex.
fn finish(
    pair: &Pair,
    best: &GjkSimplex,
    v: DVec3,
    lb_core: f64,
    status: GjkStatus,
    iterations: usize,
) -> GjkResult {
    let (ca, cb) = best.witnesses();
    let nv = v.length();
    let margins = pair.ra + pair.rb;
    let normal = if nv > 0.0 { -v / nv } else { DVec3::ZERO };
    let (point_a, point_b) = if nv > margins {
        (ca + normal * pair.ra, cb - normal * pair.rb)
    } else if margins > 0.0 {
        // Overlap through the margins: this point is within r_a of ca and
        // within r_b of cb.
        let p = ca + normal * (nv * pair.ra / margins);
        (p, p)
    } else {
        (ca, cb)
    };
    let mut distance = (nv - margins).max(0.0);
    if distance <= pair.slack {
        distance = 0.0;
    }
    let lower_bound = if lb_core.is_finite() {
        (lb_core - margins - pair.slack).max(0.0).min(distance)
    } else {
        0.0
    };
    GjkResult {
        distance,
        lower_bound,
        point_a,
        point_b,
        normal,
        status,
        iterations,
        simplex: *best,
    }
}

/// Whether `a` and `b` intersect (boolean GJK), conservatively.
///
/// Returns `false` only when separation is certified (the lower bound of
/// the [module docs](self) is positive); `true` when they intersect, touch
/// within rounding resolution, when the iteration budget runs out before
/// either is decided, and — conservatively — for invalid input (see
/// [`try_gjk_intersect`] for the typed error). Stops as soon as a
/// separating direction is found, so it is cheaper than
/// [`gjk_distance`] on separated pairs.
#[must_use]
pub fn gjk_intersect<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(a: &A, b: &B) -> bool {
    try_gjk_intersect(a, b, &GjkOptions::default()).unwrap_or(true)
}

/// Whether `a` and `b` are within `options.absolute_tolerance` of each
/// other (boolean GJK): `Ok(false)` only when a certified lower bound on
/// the distance exceeds the tolerance, `Ok(true)` when an upper bound is
/// within it (plus the rounding slack) or the budget runs out undecided.
///
/// # Errors
/// As [`gjk_distance`].
pub fn try_gjk_intersect<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    a: &A,
    b: &B,
    options: &GjkOptions,
) -> Result<bool, GjkError> {
    options.check()?;
    let pair = Pair::new(a, b)?;
    let near = pair.ra + pair.rb + options.absolute_tolerance;
    let mut simplex = initial_simplex(a, b, None)?;
    let mut v = simplex.reduce();
    for _ in 0..options.max_iterations {
        let vv = v.length_squared();
        if !vv.is_finite() {
            return Err(GjkError::Overflow);
        }
        let nv = vv.sqrt();
        if nv <= near + pair.slack {
            return Ok(true);
        }
        let vert = support_vertex(a, b, -v)?;
        if v.dot(vert.w) / nv - pair.slack > near {
            return Ok(false);
        }
        if contains(&simplex, &vert) {
            return Ok(true);
        }
        simplex.push(vert);
        let next = simplex.reduce();
        let nn = next.length_squared();
        if nn.is_nan() || nn >= vv {
            return Ok(true);
        }
        v = next;
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_cubes_apart_touching_and_overlapping() {
        let a = Cuboid::from_min_max(DVec3::ZERO, DVec3::ONE).unwrap();
        let o = GjkOptions::default();
        for (shift, want) in [(2.5, 1.5), (1.0, 0.0), (0.5, 0.0)] {
            let b = Cuboid::from_min_max(DVec3::X * shift, DVec3::X * shift + DVec3::ONE).unwrap();
            let r = gjk_distance(&a, &b, &o).unwrap();
            assert!((r.distance - want).abs() < 1e-12, "{shift}: {r:?}");
            assert!(r.lower_bound <= want);
            assert_eq!(r.status, GjkStatus::Converged);
            assert_eq!(gjk_intersect(&a, &b), want == 0.0);
        }
    }

    #[test]
    fn bad_input_is_a_typed_error() {
        let good = [DVec3::ZERO];
        let nan = [DVec3::new(f64::NAN, 0.0, 0.0)];
        let empty: [DVec3; 0] = [];
        let o = GjkOptions::default();
        assert_eq!(
            gjk_distance(&good[..], &nan[..], &o).unwrap_err(),
            GjkError::NonFiniteShape {
                shape: GjkOperand::B
            }
        );
        assert!(gjk_distance(&empty[..], &good[..], &o).is_err());
        assert!(gjk_intersect(&nan[..], &good[..]));
        let huge = [DVec3::splat(1e61)];
        assert_eq!(
            gjk_distance(&huge[..], &good[..], &o).unwrap_err(),
            GjkError::Overflow
        );
        assert!(gjk_distance(&good[..], &good[..], &o.with_relative_tolerance(f64::NAN)).is_err());
        let inf_map = Transformed::new(
            Ball::new(DVec3::ZERO, 1.0).unwrap(),
            glam::DAffine3::from_translation(DVec3::INFINITY),
        );
        assert!(gjk_distance(&inf_map, &good[..], &o).is_err());
    }

    #[test]
    fn zero_iterations_still_bound() {
        let a = [DVec3::ZERO];
        let b = [DVec3::X * 3.0];
        let r = gjk_distance(
            &a[..],
            &b[..],
            &GjkOptions::default().with_max_iterations(0),
        )
        .unwrap();
        assert_eq!(r.status, GjkStatus::MaxIterations);
        assert_eq!(r.lower_bound, 0.0);
        assert!((r.distance - 3.0).abs() < 1e-15);
    }
}
