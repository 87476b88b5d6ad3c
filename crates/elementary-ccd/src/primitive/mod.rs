//! Primitive CCD of linearly moving points, edges and triangles.
//!
//! Two queries, usable on their own (cloth, deformables, rigid bodies with
//! linear motion): a vertex against a triangle ([`vertex_face_ccd`]) and an
//! edge against an edge ([`edge_edge_ccd`]), each with a parallel batch form
//! ([`vertex_face_ccd_batch`], [`edge_edge_ccd_batch`]).
//!
//! # Motion
//!
//! Time is normalised to `[0, 1]`. Every point moves linearly:
//! `x(t) = x⁰ + t·(x¹ − x⁰)` where `x⁰` is given at index 0 (time 0) and `x¹`
//! at index 1 (time 1) of the input arrays ([`VertexFace`], [`EdgeEdge`]).
//!
//! # Contract
//!
//! Let `s` = [`PrimitiveOptions::min_separation`], `dist(t)` the exact
//! (real-arithmetic) Euclidean distance between the vertex and the triangle
//! (resp. between the two segments) at time `t`, and `σ` the query's slack
//! ([`VertexFace::contact_slack`], [`EdgeEdge::contact_slack`]):
//!
//! - **Never misses, never late.** If `dist(t*) ≤ s` for some `t* ∈ [0, 1]`,
//!   the query returns `Some(toi)` with `toi.time ≤ t*` for the first such
//!   `t*`. `None` is returned only when `dist(t) > s` for all `t ∈ [0, 1]`.
//! - **False positives only within tolerance.** When `toi.converged` is
//!   `true`, `dist(toi.time) ≤ s + σ` — so there is a `t ∈ [time, time + τ]`
//!   (namely `t = time`) with a distance `≤ s + σ` — where
//!
//!   `σ = 2τ·(D + ℓ) + 4√3·ε̄`  (times `1 + 10⁻¹²` for the rounding of `σ`),
//!
//!   `τ = max(time_tolerance, 2⁻⁴⁰)`, `D` the largest displacement `|x¹ − x⁰|`
//!   of the query's points, `ℓ` the longest edge of the triangle (resp. of
//!   the two edges) at `t = 0` or `t = 1` (the longest at any time), and
//!   `ε̄ = 2⁻⁴⁵·m̄ + 2⁻¹⁰²²` the rounding bound, `m̄` the largest absolute input
//!   coordinate. (Inputs above `2²⁰⁰` are first scaled by a power of two,
//!   which only changes the subnormal-level term.) `2τ(D + ℓ)` is the
//!   parameter-space tolerance `τ` times the largest rate of change of the
//!   point difference with respect to `t`, `u` and `v` together.
//! - When the iteration budget [`PrimitiveOptions::max_iterations`] runs
//!   out, the earliest still-unresolved box is returned with `converged =
//!   false`: its `time` is still never late (conservative), but no slack is
//!   promised for it.
//! - Contacts exactly at `t = 0` or `t = 1`, degenerate triangles (collinear
//!   or coincident vertices), degenerate or parallel edges, coplanar sweeps
//!   and vertices on triangle edges are all handled by the same search.
//!
//! # Method
//!
//! The difference `F(t, u, v)` between the two moving points — vertex minus
//! triangle point `(1−u)·a + u(1−v)·b + uv·c`, resp. the point at `u` on edge
//! `a` minus the point at `v` on edge `b` — is multilinear in `(t, u, v) ∈
//! [0, 1]³`, so its range over a box is spanned by its 8 corner values,
//! computed in `f64` within a proven per-axis rounding bound `ε` (`2⁻⁴⁵·m +
//! 2⁻¹⁰²²`, `m` the largest absolute coordinate on that axis; the proof is
//! in the source). A box is **excluded** when
//!
//! 1. a component of the range misses `[−s − ε, s + ε]` — an L∞ test,
//!    conservative with respect to the Euclidean ball `|F| ≤ s`; or
//! 2. the projection of the range on the mid-time normal direction misses
//!    `[−s, s]` (with rounding); or
//! 3. on the box's time interval, the vertex (resp. the other edge's line)
//!    provably stays farther than `s` from the moving plane of the triangle
//!    (resp. the plane spanned by both edges): the signed distance is
//!    `n(t)·w(t)/|n(t)|` with a cubic numerator whose Bernstein
//!    coefficients on the interval, with rounding bounds, decide it (the
//!    same test over `[0, 1]` is an early-out before the search); or
//! 4. (with `s > 0`, or for a box whose range is below `2τ(D + ℓ)`) the
//!    Euclidean norm of the range's centre exceeds `s` plus its radius plus
//!    the rounding; or
//! 5. a rigorous lower bound `β` of the distance at the box's `t₀` (by
//!    duality: the differences at a fixed time form the convex hull of the
//!    corner values, so `dist ≥ min_k n·F_k/|n|` for `n` along the closest
//!    pair found in `f64`) gives `β − L·(t₁ − t₀) > s`, `L = max|∂F/∂t|`
//!    (the Lipschitz constant of the distance).
//!
//! Boxes are explored depth-first, earlier times first, as a branch and
//! bound on the earliest accepted `t₀` (a box is only skipped when its `t₀`
//! is not earlier than an accepted one). Time is split first (the
//! time-only tests 3 and 5 and the certificate resolve most boxes without
//! narrowing `u`, `v`); once time no longer matters, the larger of `u`, `v`
//! is split (a parameter whose contribution to the range is negligible is
//! not split); no parameter is split below width `τ`.
//! A box is **accepted** (its `t₀` reported) when a *certificate* holds:
//! at `t₀` the closest pair of points (found in `f64`, then re-evaluated
//! with the multilinear formula and its bound) is within `s + 2τ(D + ℓ)`;
//! or when its range is small / nothing can be split and test 4 passes.
//! Nothing is allocated per query (a fixed 160-box stack).

mod inclusion;

pub mod bench;

use glam::DVec3;
use rayon::prelude::*;

use crate::error::ElementaryError;
use inclusion::{Coeffs, EeFn, Found, VfFn};

/// Options of the primitive queries.
///
/// ```
/// use armature_elementary_ccd::primitive::PrimitiveOptions;
/// let o = PrimitiveOptions::default().with_min_separation(1e-4).with_time_tolerance(1e-7);
/// assert!(o.validate().is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PrimitiveOptions {
    /// Contact distance `s ≥ 0` (finite; default `0`): a contact is a time
    /// at which the distance is `≤ s`.
    pub min_separation: f64,
    /// Time resolution `τ > 0` (finite; default `1e-6`): the reported time
    /// lies within `τ` of a near contact (values below `2⁻⁴⁰` act as `2⁻⁴⁰`).
    pub time_tolerance: f64,
    /// Box evaluations allowed per query (`≥ 1`; default `10⁶`). When spent,
    /// the earliest unresolved time is returned as a conservative contact.
    pub max_iterations: usize,
}

impl Default for PrimitiveOptions {
    fn default() -> Self {
        Self {
            min_separation: 0.0,
            time_tolerance: 1e-6,
            max_iterations: 1_000_000,
        }
    }
}

impl PrimitiveOptions {
    /// Sets [`Self::min_separation`].
    #[must_use]
    pub fn with_min_separation(mut self, s: f64) -> Self {
        self.min_separation = s;
        self
    }

    /// Sets [`Self::time_tolerance`].
    #[must_use]
    pub fn with_time_tolerance(mut self, tol: f64) -> Self {
        self.time_tolerance = tol;
        self
    }

    /// Sets [`Self::max_iterations`].
    #[must_use]
    pub fn with_max_iterations(mut self, n: usize) -> Self {
        self.max_iterations = n;
        self
    }

    /// Checks the documented ranges.
    ///
    /// # Errors
    ///
    /// [`ElementaryError::InvalidOption`] naming the offending field
    /// (`min_separation`, `time_tolerance` or `max_iterations`).
    pub fn validate(&self) -> Result<(), ElementaryError> {
        if !(self.min_separation.is_finite() && self.min_separation >= 0.0) {
            return Err(ElementaryError::InvalidOption {
                name: "min_separation",
                value: self.min_separation,
                why: "must be finite and >= 0",
            });
        }
        if !(self.time_tolerance.is_finite() && self.time_tolerance > 0.0) {
            return Err(ElementaryError::InvalidOption {
                name: "time_tolerance",
                value: self.time_tolerance,
                why: "must be finite and > 0",
            });
        }
        if self.max_iterations == 0 {
            return Err(ElementaryError::InvalidOption {
                name: "max_iterations",
                value: 0.0,
                why: "must be >= 1",
            });
        }
        Ok(())
    }
}

/// A vertex against a triangle, both moving linearly over `t ∈ [0, 1]`.
///
/// Index 0 is the position at `t = 0`, index 1 at `t = 1`:
/// `vertex[k]` is the vertex, `face[k] = [a, b, c]` the triangle's corners.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VertexFace {
    /// The vertex at `t = 0` and `t = 1`.
    pub vertex: [DVec3; 2],
    /// The triangle's corners `[a, b, c]` at `t = 0` and `t = 1`.
    pub face: [[DVec3; 3]; 2],
}

/// An edge against an edge, both moving linearly over `t ∈ [0, 1]`.
///
/// Index order is `[time][endpoint]`: `a[k] = [a₀, a₁]` is edge `a` at time
/// `k` (`k = 0` for `t = 0`, `1` for `t = 1`), `b[k]` likewise.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EdgeEdge {
    /// Edge `a`'s endpoints at `t = 0` and `t = 1`.
    pub a: [[DVec3; 2]; 2],
    /// Edge `b`'s endpoints at `t = 0` and `t = 1`.
    pub b: [[DVec3; 2]; 2],
}

/// A (conservative) time of contact with the parameter box it was found in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PrimitiveToi {
    /// Time of contact: the lower end of [`Self::time_interval`], never later
    /// than the first exact contact.
    pub time: f64,
    /// The time interval `[time, time⁺]` of the box the contact was
    /// resolved in.
    pub time_interval: [f64; 2],
    /// First parameter interval: vertex–face `u`, edge–edge the parameter on
    /// edge `a` (`a₀ + u·(a₁ − a₀)`). A single value `[u, u]` when the
    /// contact was accepted by its certificate: the parameters of the near
    /// contact point at `time`.
    pub u: [f64; 2],
    /// Second parameter interval: vertex–face `v`, edge–edge the parameter
    /// on edge `b` (`b₀ + v·(b₁ − b₀)`).
    ///
    /// Vertex–face parameters describe the triangle point
    /// `(1−u)·a + u(1−v)·b + uv·c` (see [`Self::barycentric`]).
    pub v: [f64; 2],
    /// `false` when the iteration budget ran out: `time` is then the earliest
    /// unresolved time (still never late) and carries no slack guarantee.
    pub converged: bool,
    /// Number of boxes evaluated.
    pub iterations: usize,
}

impl PrimitiveToi {
    /// Vertex–face: the barycentric weights `[w_a, w_b, w_c]` of the triangle
    /// point at the centre of the parameter box (`w_a = 1−u`, `w_b = u(1−v)`,
    /// `w_c = uv`; they sum to 1).
    #[must_use]
    pub fn barycentric(&self) -> [f64; 3] {
        let u = 0.5 * (self.u[0] + self.u[1]);
        let v = 0.5 * (self.v[0] + self.v[1]);
        [1.0 - u, u * (1.0 - v), u * v]
    }

    /// Edge–edge: the centre of the parameter box, `[u, v]` on edges `a`
    /// and `b`.
    #[must_use]
    pub fn edge_parameters(&self) -> [f64; 2] {
        [0.5 * (self.u[0] + self.u[1]), 0.5 * (self.v[0] + self.v[1])]
    }

    fn from_found(f: Found) -> Self {
        Self {
            time: f.cell.t[0],
            time_interval: f.cell.t,
            u: f.cell.u,
            v: f.cell.v,
            converged: f.converged,
            iterations: f.iterations,
        }
    }
}

const VF_NAMES: [&str; 8] = [
    "vertex[0] (t = 0)",
    "vertex[1] (t = 1)",
    "face[0][0] (corner a, t = 0)",
    "face[0][1] (corner b, t = 0)",
    "face[0][2] (corner c, t = 0)",
    "face[1][0] (corner a, t = 1)",
    "face[1][1] (corner b, t = 1)",
    "face[1][2] (corner c, t = 1)",
];

const EE_NAMES: [&str; 8] = [
    "a[0][0] (edge a, endpoint 0, t = 0)",
    "a[0][1] (edge a, endpoint 1, t = 0)",
    "a[1][0] (edge a, endpoint 0, t = 1)",
    "a[1][1] (edge a, endpoint 1, t = 1)",
    "b[0][0] (edge b, endpoint 0, t = 0)",
    "b[0][1] (edge b, endpoint 1, t = 0)",
    "b[1][0] (edge b, endpoint 0, t = 1)",
    "b[1][1] (edge b, endpoint 1, t = 1)",
];

fn check_finite(
    query: &'static str,
    pts: &[DVec3; 8],
    names: &[&'static str; 8],
) -> Result<(), ElementaryError> {
    for (p, what) in pts.iter().zip(names) {
        if !p.is_finite() {
            return Err(ElementaryError::NonFiniteInput {
                query,
                what,
                value: *p,
            });
        }
    }
    Ok(())
}

impl VertexFace {
    /// The points in the order `[p⁰, p¹, a⁰, b⁰, c⁰, a¹, b¹, c¹]`.
    fn points(&self) -> [DVec3; 8] {
        let [f0, f1] = self.face;
        [
            self.vertex[0],
            self.vertex[1],
            f0[0],
            f0[1],
            f0[2],
            f1[0],
            f1[1],
            f1[2],
        ]
    }

    /// The slack `σ = (2τ·(D + ℓ) + 4√3·ε̄)·(1 + 10⁻¹²)` of the module contract (in input
    /// units): a converged answer has distance `≤ min_separation + σ` at its
    /// `time`. Assumes finite input (returns a non-finite value otherwise).
    #[must_use]
    pub fn contact_slack(&self, options: &PrimitiveOptions) -> f64 {
        let p = self.points();
        let disp = [p[5] - p[2], p[6] - p[3], p[7] - p[4], p[1] - p[0]];
        let edges = [
            p[3] - p[2],
            p[4] - p[3],
            p[2] - p[4],
            p[6] - p[5],
            p[7] - p[6],
            p[5] - p[7],
        ];
        slack(&p, &disp, &edges, options)
    }
}

impl EdgeEdge {
    /// The points in the order `[a₀⁰, a₁⁰, a₀¹, a₁¹, b₀⁰, b₁⁰, b₀¹, b₁¹]`.
    fn points(&self) -> [DVec3; 8] {
        [
            self.a[0][0],
            self.a[0][1],
            self.a[1][0],
            self.a[1][1],
            self.b[0][0],
            self.b[0][1],
            self.b[1][0],
            self.b[1][1],
        ]
    }

    /// The slack `σ = (2τ·(D + ℓ) + 4√3·ε̄)·(1 + 10⁻¹²)` of the module contract (in input
    /// units): a converged answer has distance `≤ min_separation + σ` at its
    /// `time`. Assumes finite input (returns a non-finite value otherwise).
    #[must_use]
    pub fn contact_slack(&self, options: &PrimitiveOptions) -> f64 {
        let p = self.points();
        let disp = [p[2] - p[0], p[3] - p[1], p[6] - p[4], p[7] - p[5]];
        let edges = [p[1] - p[0], p[3] - p[2], p[5] - p[4], p[7] - p[6]];
        slack(&p, &disp, &edges, options)
    }
}

fn max_abs(p: &[DVec3; 8]) -> DVec3 {
    p.iter().fold(DVec3::ZERO, |m, x| m.max(x.abs()))
}

fn slack(p: &[DVec3; 8], disp: &[DVec3], edges: &[DVec3], o: &PrimitiveOptions) -> f64 {
    let tau = inclusion::effective_tau(o.time_tolerance);
    let d = disp.iter().fold(0.0f64, |m, x| m.max(x.length()));
    let l = edges.iter().fold(0.0f64, |m, x| m.max(x.length()));
    let mbar = max_abs(p).max_element();
    let f = inclusion::scale_factor(mbar);
    let eps = inclusion::eps_axis(mbar * f) / f;
    (2.0 * tau * (d + l) + 4.0 * 3f64.sqrt() * eps) * (1.0 + 1e-12)
}

/// Scales the points by the power of two that keeps them below `2^200`;
/// returns the scaled points, the scaled separation and the per-axis maxima.
fn prepare(pts: &[DVec3; 8], s: f64) -> ([DVec3; 8], f64, DVec3) {
    let m = max_abs(pts);
    let f = inclusion::scale_factor(m.max_element());
    if f == 1.0 {
        return (*pts, s, m);
    }
    let q = pts.map(|x| x * f);
    (q, inclusion::scale_sep(s, f), max_abs(&q))
}

fn max_norm(xs: &[DVec3]) -> f64 {
    xs.iter().fold(0.0f64, |m, x| m.max(inclusion::norm_up(*x)))
}

/// Vertex–face CCD without validation (inputs finite, options valid).
fn vf_run(q: &VertexFace, o: &PrimitiveOptions) -> Option<PrimitiveToi> {
    let (p, s, m) = prepare(&q.points(), o.min_separation);
    let [p0, p1, a0, b0, c0, a1, b1, c1] = p;

    // Root box in L∞ first: the corners are the vertex minus a triangle
    // corner at the same time (computed with one rounding, within ε).
    let r = [p0 - a0, p0 - b0, p0 - c0, p1 - a1, p1 - b1, p1 - c1];
    if root_excluded(&r, s, m) {
        return None;
    }

    let e1 = [b0 - a0, b1 - a1];
    let e2 = [c0 - a0, c1 - a1];
    let w = [p0 - a0, p1 - a1];
    filter_and_search(e1, e2, w, s, m, o, |dir| {
        let dd = max_norm(&[p1 - p0, a1 - a0, b1 - b0, c1 - c0]);
        let ll = max_norm(&[b0 - a0, c0 - b0, a0 - c0, b1 - a1, c1 - b1, a1 - c1]);
        let ka = [p0 - a0, (p1 - p0) - (a1 - a0)];
        let kb = [b0 - a0, (b1 - b0) - (a1 - a0)];
        let kc = [c0 - b0, (c1 - c0) - (b1 - b0)];
        let pts = [[p0, p1], [a0, a1], [b0, b1], [c0, c1]];
        (dd + ll, VfFn(Coeffs::new(pts, [ka, kb, kc], dir)))
    })
}

/// Edge–edge CCD without validation.
fn ee_run(q: &EdgeEdge, o: &PrimitiveOptions) -> Option<PrimitiveToi> {
    let (p, s, m) = prepare(&q.points(), o.min_separation);
    let [a00, a10, a01, a11, b00, b10, b01, b11] = p; // [endpoint][time]

    let r = [
        a00 - b00,
        a00 - b10,
        a10 - b00,
        a10 - b10,
        a01 - b01,
        a01 - b11,
        a11 - b01,
        a11 - b11,
    ];
    if root_excluded(&r, s, m) {
        return None;
    }

    let e1 = [a10 - a00, a11 - a01];
    let e2 = [b10 - b00, b11 - b01];
    let w = [a00 - b00, a01 - b01];
    filter_and_search(e1, e2, w, s, m, o, |dir| {
        let dd = max_norm(&[a01 - a00, a11 - a10, b01 - b00, b11 - b10]);
        let ll = max_norm(&[e1[0], e1[1], e2[0], e2[1]]);
        let ka = [a00 - b00, (a01 - a00) - (b01 - b00)];
        let kb = [a10 - a00, (a11 - a01) - (a10 - a00)];
        let kc = [b10 - b00, (b11 - b01) - (b10 - b00)];
        let pts = [[a00, a01], [a10, a11], [b00, b01], [b10, b11]];
        (dd + ll, EeFn(Coeffs::new(pts, [ka, kb, kc], dir)))
    })
}

/// `true` when one axis of the root range (the corner differences `r`,
/// each within ε of exact) misses `[−s − ε, s + ε]` (`m` the per-axis
/// maxima of the scaled points).
#[inline]
fn root_excluded(r: &[DVec3], s: f64, m: DVec3) -> bool {
    let (_, bound) = inclusion::axis_bounds(s, m);
    let mut lo = r[0];
    let mut hi = r[0];
    for x in &r[1..] {
        lo = lo.min(*x);
        hi = hi.max(*x);
    }
    lo.cmpgt(bound).any() || hi.cmplt(-bound).any()
}

/// The rest of a query once its root box passed: the coplanarity filter
/// with edges `e1`, `e2` and offset `w` (see [`inclusion::PlaneCubic`];
/// `None` when it proves the distance stays above `s` on `[0, 1]`), then
/// the inclusion search of the function `make` builds from the filter
/// direction. `make` also returns `D + ℓ` (largest displacement plus
/// longest edge, scaled), giving the accepted size `δ = 2τ·(D + ℓ)`.
#[inline]
fn filter_and_search<F: inclusion::Multilinear>(
    e1: [DVec3; 2],
    e2: [DVec3; 2],
    w: [DVec3; 2],
    s: f64,
    m: DVec3,
    o: &PrimitiveOptions,
    make: impl FnOnce(Option<DVec3>) -> (f64, F),
) -> Option<PrimitiveToi> {
    let plane = inclusion::PlaneCubic::new(e1, e2, w, s, m.max_element());
    if plane.as_ref().is_some_and(inclusion::PlaneCubic::separated) {
        return None;
    }
    let dir = inclusion::filter_direction(e1, e2);
    let tau = inclusion::effective_tau(o.time_tolerance);
    let (reach, f) = make(dir);
    let delta = 2.0 * tau * reach;
    let k = inclusion::make_search(s, m, dir, tau, delta, o.max_iterations, plane);
    inclusion::search(&f, &k).map(PrimitiveToi::from_found)
}

/// Continuous collision detection of a vertex against a triangle, both
/// moving linearly over `t ∈ [0, 1]`.
///
/// Returns `Ok(None)` only when the exact distance stays `>
/// min_separation` on all of `[0, 1]`; otherwise `Ok(Some(toi))` with
/// `toi.time` never later than the first time the distance is `≤
/// min_separation`, and (when `toi.converged`) a distance
/// `≤ min_separation + σ` at `toi.time`, with `σ` the slack
/// [`VertexFace::contact_slack`]. See the [module contract](self). Contacts at `t = 0`, `t = 1`, degenerate
/// triangles and coplanar sweeps are handled.
///
/// # Errors
///
/// [`ElementaryError::InvalidOption`] for options outside their ranges,
/// [`ElementaryError::NonFiniteInput`] naming the first non-finite point.
///
/// # Example
///
/// ```
/// use armature_elementary_ccd::primitive::{vertex_face_ccd, PrimitiveOptions, VertexFace};
/// use glam::DVec3;
///
/// let tri = [DVec3::new(0.0, 0.0, 0.0), DVec3::new(1.0, 0.0, 0.0), DVec3::new(0.0, 1.0, 0.0)];
/// // The vertex falls through the triangle's plane at t = 0.5.
/// let q = VertexFace {
///     vertex: [DVec3::new(0.25, 0.25, 1.0), DVec3::new(0.25, 0.25, -1.0)],
///     face: [tri, tri],
/// };
/// let o = PrimitiveOptions::default();
/// let toi = vertex_face_ccd(&q, &o).unwrap().expect("contact");
/// assert!(toi.time <= 0.5 && toi.time > 0.5 - 1e-5);
/// let w = toi.barycentric();
/// assert!((w[1] - 0.25).abs() < 1e-4 && (w[2] - 0.25).abs() < 1e-4);
///
/// // Moving beside the triangle: no contact.
/// let miss = VertexFace { vertex: [DVec3::new(2.0, 2.0, 1.0), DVec3::new(2.0, 2.0, -1.0)], ..q };
/// assert!(vertex_face_ccd(&miss, &o).unwrap().is_none());
/// ```
pub fn vertex_face_ccd(
    q: &VertexFace,
    o: &PrimitiveOptions,
) -> Result<Option<PrimitiveToi>, ElementaryError> {
    o.validate()?;
    check_finite("vertex_face_ccd", &q.points(), &VF_NAMES)?;
    Ok(vf_run(q, o))
}

/// Continuous collision detection of two edges (segments), both moving
/// linearly over `t ∈ [0, 1]`.
///
/// Returns `Ok(None)` only when the exact distance between the segments
/// stays `> min_separation` on all of `[0, 1]`; otherwise `Ok(Some(toi))`
/// with `toi.time` never later than the first time the distance is `≤
/// min_separation`, and (when `toi.converged`) a distance
/// `≤ min_separation + σ` at `toi.time`, with `σ` the slack
/// [`EdgeEdge::contact_slack`]. See the [module contract](self). Parallel, collinear and degenerate (point) edges
/// are handled.
///
/// # Errors
///
/// [`ElementaryError::InvalidOption`] for options outside their ranges,
/// [`ElementaryError::NonFiniteInput`] naming the first non-finite point.
///
/// # Example
///
/// ```
/// use armature_elementary_ccd::primitive::{edge_edge_ccd, EdgeEdge, PrimitiveOptions};
/// use glam::DVec3;
///
/// let a = [DVec3::new(-1.0, 0.0, 0.0), DVec3::new(1.0, 0.0, 0.0)];
/// // Edge b sweeps down across edge a, touching it at t = 0.25.
/// let b0 = [DVec3::new(0.5, -1.0, 1.0), DVec3::new(0.5, 1.0, 1.0)];
/// let b1 = [DVec3::new(0.5, -1.0, -3.0), DVec3::new(0.5, 1.0, -3.0)];
/// let q = EdgeEdge { a: [a, a], b: [b0, b1] };
/// let o = PrimitiveOptions::default();
/// let toi = edge_edge_ccd(&q, &o).unwrap().expect("contact");
/// assert!(toi.time <= 0.25 && toi.time > 0.25 - 1e-5);
/// let [u, v] = toi.edge_parameters();
/// assert!((u - 0.75).abs() < 1e-4 && (v - 0.5).abs() < 1e-4);
///
/// // With a minimum separation of 0.5 the contact comes earlier.
/// let o = o.with_min_separation(0.5);
/// let toi = edge_edge_ccd(&q, &o).unwrap().expect("contact");
/// assert!(toi.time <= 0.125 && toi.time > 0.125 - 1e-5);
/// ```
pub fn edge_edge_ccd(
    q: &EdgeEdge,
    o: &PrimitiveOptions,
) -> Result<Option<PrimitiveToi>, ElementaryError> {
    o.validate()?;
    check_finite("edge_edge_ccd", &q.points(), &EE_NAMES)?;
    Ok(ee_run(q, o))
}

fn batch<Q: Sync>(
    qs: &[Q],
    o: &PrimitiveOptions,
    out: &mut [Option<PrimitiveToi>],
    one: impl Fn(&Q, &PrimitiveOptions) -> Result<Option<PrimitiveToi>, ElementaryError> + Sync,
) -> Result<(), ElementaryError> {
    if qs.len() != out.len() {
        return Err(ElementaryError::BatchLength {
            expected: qs.len(),
            got: out.len(),
        });
    }
    o.validate()?;
    let first_err = out
        .par_iter_mut()
        .zip(qs.par_iter())
        .enumerate()
        .with_min_len(64)
        .filter_map(|(i, (slot, q))| match one(q, o) {
            Ok(r) => {
                *slot = r;
                None
            }
            Err(e) => {
                *slot = None;
                Some((i, e))
            }
        })
        .min_by_key(|(i, _)| *i);
    match first_err {
        Some((_, e)) => Err(e),
        None => Ok(()),
    }
}

/// [`vertex_face_ccd`] over a slice, in parallel (rayon); `out[i]` receives
/// the answer of `qs[i]`. Answers are identical to the single queries for
/// any thread count.
///
/// # Errors
///
/// [`ElementaryError::BatchLength`] when `out.len() != qs.len()`, else the
/// error of the lowest-index failing query (the other entries of `out` are
/// then unspecified).
pub fn vertex_face_ccd_batch(
    qs: &[VertexFace],
    o: &PrimitiveOptions,
    out: &mut [Option<PrimitiveToi>],
) -> Result<(), ElementaryError> {
    batch(qs, o, out, vertex_face_ccd)
}

/// [`edge_edge_ccd`] over a slice, in parallel (rayon); `out[i]` receives
/// the answer of `qs[i]`. Answers are identical to the single queries for
/// any thread count.
///
/// # Errors
///
/// [`ElementaryError::BatchLength`] when `out.len() != qs.len()`, else the
/// error of the lowest-index failing query (the other entries of `out` are
/// then unspecified).
pub fn edge_edge_ccd_batch(
    qs: &[EdgeEdge],
    o: &PrimitiveOptions,
    out: &mut [Option<PrimitiveToi>],
) -> Result<(), ElementaryError> {
    batch(qs, o, out, edge_edge_ccd)
}
