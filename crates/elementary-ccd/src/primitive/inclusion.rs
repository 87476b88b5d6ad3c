//! The inclusion-based bisection shared by the vertex–face and edge–edge
//! queries.
//!
//! Both queries reduce to a vector function `F(t, u, v)` that is
//! *multilinear* (degree ≤ 1 in each of `t`, `u`, `v`) on the unit cube:
//!
//! - vertex–face: `F = p(t) − [a(t) + u·((b(t) − a(t)) + v·(c(t) − b(t)))]`,
//!   the triangle point being `(1−u)·a + u(1−v)·b + uv·c`, which covers the
//!   whole (possibly degenerate) triangle as `(u, v)` covers `[0, 1]²`;
//! - edge–edge: `F = [a₀(t) + u·(a₁(t) − a₀(t))] − [b₀(t) + v·(b₁(t) − b₀(t))]`.
//!
//! A multilinear function attains the extremes of each component (and of
//! each projection `d·F`) over a box at the box's corners, so the corner
//! values give the exact range; the rounding of their evaluation is covered
//! by the per-axis bound `ε` proven in [`eps_axis`].
//!
//! Both functions are evaluated as `F = A(t) − u·(B(t) + v·C(t))` (resp.
//! `A(t) + u·B(t) − v·C(t)`) where `A(t) = A₀ + t·A₁` etc. are computed once
//! per query from the inputs.

use core::ops::{Add, Mul, Sub};

use glam::DVec3;

/// `2^-45`: the relative part of the corner rounding bound (see [`eps_axis`]).
pub(crate) const EPS_REL: f64 = 1.0 / 35_184_372_088_832.0;
/// The smallest width a parameter interval is split at (`2^-40`).
pub(crate) const SPLIT_FLOOR: f64 = 1.0 / 1_099_511_627_776.0;
/// Relative margin used to round sums / products of positive bounds upward.
const UP: f64 = 1.0 + 1.0 / 1_125_899_906_842_624.0; // 1 + 2^-50
/// Larger relative margin (`1 + 2^-40`).
const UP40: f64 = 1.0 + 1.0 / 1_099_511_627_776.0;
/// Capacity of the depth-first stack. Every parameter is split only while
/// its width is ≥ `SPLIT_FLOOR = 2^-40`, so a path splits each parameter at
/// most 41 times and holds at most `3·41 + 1 = 124` pending boxes.
const STACK: usize = 160;
/// Inputs are scaled by a power of two so that the largest coordinate is
/// below `2^200` (no overflow in the cubic filter or the norms).
const SCALE_LIMIT: f64 = 1.606_938_044_258_990_3e60; // 2^200

/// The rounding bound `ε` of one axis of a computed corner value.
///
/// **Proof.** Every corner value is an expression in the 8
/// input coordinates of this axis and the exact floats `t, u, v ∈ [0, 1]`,
/// evaluated with `+ − ×` only (no fused operations). Expanding it into a
/// sum of monomials, each monomial carries at most `n = 8` rounding factors
/// `(1 + δ)`, `|δ| ≤ u = 2^-53`: e.g. vertex–face `C₁ = (c₁ − c₀) − (b₁ − b₀)`
/// (2 roundings), `t·C₁` (3), `+ C₀` (4), `·v` (5), `+ B(t)` (6), `·u` (7),
/// `A(t) − …` (8); edge–edge needs 7. By the standard bound (Higham, *Accuracy
/// and Stability*, Lemma 3.1 applied monomial-wise) the error is at most
/// `γ₈ · E` where `γ₈ = 8u/(1−8u) < 8.001u` and `E` is the expression with
/// every input replaced by its absolute value and every `−` by `+`. With `m`
/// the largest absolute input coordinate on this axis, `|A₀|, |B₀|, |C₀| ≤
/// 2m` and `|A₁|, |B₁|, |C₁| ≤ 4m`, and `t, u, v ≤ 1`, so `E ≤ 18m` and the
/// error is `< 144.1·m·u < 2^-45·m = 256·m·u`. Gradual underflow adds at
/// most `2^-1075` per multiplication (additions are exact then), never
/// amplified (all later factors are ≤ 1); fewer than 40 multiplications give
/// `< 2^-1022`. Hence `ε = 2^-45·m + 2^-1022` (the product by a power of two
/// is exact or rounds upward into the added term).
#[inline]
pub(crate) fn eps_axis(m: f64) -> f64 {
    m * EPS_REL + f64::MIN_POSITIVE
}

/// An upper bound of the Euclidean norm (relative margin `2^-45`),
/// computed without overflow or harmful underflow.
#[inline]
pub(crate) fn norm_up(x: DVec3) -> f64 {
    let a = x.abs().max_element();
    if a == 0.0 {
        return 0.0;
    }
    let q = x / a;
    // q's largest component is exactly ±1: the sum is in [1, 3], each step
    // has a relative error ≤ 2^-53 (underflowed squares lose < 2^-1074).
    a * q.length() * (1.0 + EPS_REL)
}

/// A lower bound of the Euclidean norm (relative margin `2^-45`).
#[inline]
pub(crate) fn norm_down(x: DVec3) -> f64 {
    let a = x.abs().max_element();
    if a == 0.0 {
        return 0.0;
    }
    let q = x / a;
    a * q.length() * (1.0 - EPS_REL)
}

/// A parameter box: `[t₀, t₁] × [u₀, u₁] × [v₀, v₁]`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cell {
    pub(crate) t: [f64; 2],
    pub(crate) u: [f64; 2],
    pub(crate) v: [f64; 2],
    /// The plane filter has not yet been applied to this `t` range.
    pub(crate) fresh_t: bool,
    /// The contact certificate has not yet been tried at this `t₀`.
    pub(crate) fresh_t0: bool,
    /// A lower bound of the exact distance at `t₀` (−∞ when unknown).
    pub(crate) lb0: f64,
}

/// Which parameter a box is split along.
#[derive(Clone, Copy)]
enum Split {
    T,
    U,
    V,
}

impl Cell {
    const UNIT: Cell = Cell {
        t: [0.0, 1.0],
        u: [0.0, 1.0],
        v: [0.0, 1.0],
        fresh_t: false,
        fresh_t0: true,
        lb0: f64::NEG_INFINITY,
    };
}

/// The multilinear function: the corner values of a box.
pub(crate) trait Multilinear {
    /// The vector corner values, index `4·ti + 2·ui + vi`.
    fn corners(&self, c: &Cell) -> [DVec3; 8];
    /// The projected corner values `d·F` (same order), `d` fixed per query.
    fn dir_corners(&self, c: &Cell) -> [f64; 8];
    /// `F(t, u, v)` by the same formula as the corners (same rounding bound).
    fn eval(&self, t: f64, u: f64, v: f64) -> DVec3;
    /// Parameters `(u, v) ∈ [0, 1]²` of (approximately) the closest pair of
    /// points at time `t`. Any choice is sound: it only feeds [`Self::eval`].
    fn closest(&self, t: f64) -> (f64, f64);
}

#[inline]
fn at(x: &[DVec3; 2], t: f64) -> DVec3 {
    x[0] + (x[1] - x[0]) * t
}

/// Parameter of the point of segment `a + s·e` closest to `p`, in `[0, 1]`.
#[inline]
fn seg_param(p: DVec3, a: DVec3, e: DVec3) -> f64 {
    let l2 = e.length_squared();
    if l2 > 0.0 {
        let s = (p - a).dot(e) / l2;
        if s.is_nan() { 0.0 } else { s.clamp(0.0, 1.0) }
    } else {
        0.0
    }
}

#[inline]
fn clamp01(x: f64) -> f64 {
    if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) }
}

/// The coefficients of `F` shared by both queries: `A(t) = A₀ + t·A₁`
/// (`a = [A₀, A₁]`), likewise `B`, `C`, and their projections on the
/// filter direction.
pub(crate) struct Coeffs {
    /// The scaled input points at `t = 0` and `t = 1`: `[p, a, b, c]`
    /// (vertex–face), resp. `[a₀, a₁, b₀, b₁]` (edge–edge).
    pub(crate) pts: [[DVec3; 2]; 4],
    pub(crate) a: [DVec3; 2],
    pub(crate) b: [DVec3; 2],
    pub(crate) c: [DVec3; 2],
    /// The same coefficients projected on the filter direction.
    pub(crate) da: [f64; 2],
    pub(crate) db: [f64; 2],
    pub(crate) dc: [f64; 2],
}

impl Coeffs {
    /// The coefficients `[A, B, C]` and their projections on `dir` (zero
    /// without a direction).
    #[inline]
    pub(crate) fn new(
        pts: [[DVec3; 2]; 4],
        [a, b, c]: [[DVec3; 2]; 3],
        dir: Option<DVec3>,
    ) -> Self {
        let d = dir.unwrap_or(DVec3::ZERO);
        let proj = |x: [DVec3; 2]| [d.dot(x[0]), d.dot(x[1])];
        Self {
            pts,
            a,
            b,
            c,
            da: proj(a),
            db: proj(b),
            dc: proj(c),
        }
    }

    /// `(A(t), B(t), C(t))`, computed as in the corners.
    #[inline]
    fn at(&self, t: f64) -> (DVec3, DVec3, DVec3) {
        (lin(&self.a, t), lin(&self.b, t), lin(&self.c, t))
    }
}

/// A value the corner formulas run on: `DVec3` for `F`, `f64` for `d·F`
/// (the same operations, componentwise, so the same rounding bound).
trait Value:
    Copy + Default + Add<Output = Self> + Sub<Output = Self> + Mul<f64, Output = Self>
{
}

impl<T> Value for T where
    T: Copy + Default + Add<Output = T> + Sub<Output = T> + Mul<f64, Output = T>
{
}

/// `X(t) = X₀ + t·X₁`.
#[inline]
fn lin<T: Value>(x: &[T; 2], t: f64) -> T {
    x[0] + x[1] * t
}

/// Vertex–face corner values `A(t) − u·(B(t) + v·C(t))`, index
/// `4·ti + 2·ui + vi`.
#[inline]
fn vf_corners<T: Value>(a: &[T; 2], b: &[T; 2], c: &[T; 2], cell: &Cell) -> [T; 8] {
    let mut out = [T::default(); 8];
    for ti in 0..2 {
        let t = cell.t[ti];
        let (a, b, c) = (lin(a, t), lin(b, t), lin(c, t));
        for vi in 0..2 {
            let bc = b + c * cell.v[vi];
            for ui in 0..2 {
                out[4 * ti + 2 * ui + vi] = a - bc * cell.u[ui];
            }
        }
    }
    out
}

/// Edge–edge corner values `(A(t) + u·B(t)) − v·C(t)`, index
/// `4·ti + 2·ui + vi`.
#[inline]
fn ee_corners<T: Value>(a: &[T; 2], b: &[T; 2], c: &[T; 2], cell: &Cell) -> [T; 8] {
    let mut out = [T::default(); 8];
    for ti in 0..2 {
        let t = cell.t[ti];
        let (a, b, c) = (lin(a, t), lin(b, t), lin(c, t));
        for ui in 0..2 {
            let ab = a + b * cell.u[ui];
            for vi in 0..2 {
                out[4 * ti + 2 * ui + vi] = ab - c * cell.v[vi];
            }
        }
    }
    out
}

/// Vertex–face: `F = A(t) − u·(B(t) + v·C(t))`.
pub(crate) struct VfFn(pub(crate) Coeffs);

impl Multilinear for VfFn {
    #[inline]
    fn corners(&self, cell: &Cell) -> [DVec3; 8] {
        let k = &self.0;
        vf_corners(&k.a, &k.b, &k.c, cell)
    }

    #[inline]
    fn dir_corners(&self, cell: &Cell) -> [f64; 8] {
        let k = &self.0;
        vf_corners(&k.da, &k.db, &k.dc, cell)
    }

    #[inline]
    fn eval(&self, t: f64, u: f64, v: f64) -> DVec3 {
        let (a, b, c) = self.0.at(t);
        a - (b + c * v) * u
    }

    fn closest(&self, t: f64) -> (f64, f64) {
        let [p, a, b, c] = self.0.pts.map(|x| at(&x, t));
        let to_uv = |wb: f64, wc: f64| {
            let u = clamp01(wb + wc);
            let v = if u > 0.0 {
                clamp01(wc / (wb + wc))
            } else {
                0.0
            };
            (u, v)
        };
        // Candidates: the three edges, then the interior projection.
        let sab = seg_param(p, a, b - a);
        let sbc = seg_param(p, b, c - b);
        let sca = seg_param(p, c, a - c);
        let dab = (p - (a + (b - a) * sab)).length_squared();
        let dbc = (p - (b + (c - b) * sbc)).length_squared();
        let dca = (p - (c + (a - c) * sca)).length_squared();
        let mut best = (dab, to_uv(sab, 0.0));
        if dbc < best.0 {
            best = (dbc, to_uv(1.0 - sbc, sbc));
        }
        if dca < best.0 {
            best = (dca, to_uv(0.0, 1.0 - sca));
        }
        let n = (b - a).cross(c - a);
        let n2 = n.length_squared();
        if n2 > 0.0 && n2.is_finite() {
            let wb = (p - a).cross(c - a).dot(n) / n2;
            let wc = (b - a).cross(p - a).dot(n) / n2;
            if wb >= 0.0 && wc >= 0.0 && wb + wc <= 1.0 {
                return to_uv(wb, wc);
            }
        }
        best.1
    }
}

/// Edge–edge: `F = A(t) + u·B(t) − v·C(t)`.
pub(crate) struct EeFn(pub(crate) Coeffs);

impl Multilinear for EeFn {
    #[inline]
    fn corners(&self, cell: &Cell) -> [DVec3; 8] {
        let k = &self.0;
        ee_corners(&k.a, &k.b, &k.c, cell)
    }

    #[inline]
    fn dir_corners(&self, cell: &Cell) -> [f64; 8] {
        let k = &self.0;
        ee_corners(&k.da, &k.db, &k.dc, cell)
    }

    #[inline]
    fn eval(&self, t: f64, u: f64, v: f64) -> DVec3 {
        let (a, b, c) = self.0.at(t);
        (a + b * u) - c * v
    }

    fn closest(&self, t: f64) -> (f64, f64) {
        let [a0, a1, b0, b1] = self.0.pts.map(|x| at(&x, t));
        let (d1, d2, r) = (a1 - a0, b1 - b0, a0 - b0);
        let (aa, bb, ee) = (d1.dot(d1), d1.dot(d2), d2.dot(d2));
        let (cc, ff) = (d1.dot(r), d2.dot(r));
        let den = aa * ee - bb * bb;
        if den > 1e-12 * aa * ee && den.is_finite() {
            let u = (bb * ff - cc * ee) / den;
            let v = (aa * ff - bb * cc) / den;
            if (0.0..=1.0).contains(&u) && (0.0..=1.0).contains(&v) {
                return (u, v);
            }
        }
        // Endpoint candidates.
        let cands = [
            (0.0, seg_param(a0, b0, d2)),
            (1.0, seg_param(a1, b0, d2)),
            (seg_param(b0, a0, d1), 0.0),
            (seg_param(b1, a0, d1), 1.0),
        ];
        let mut best = cands[0];
        let mut bd = f64::INFINITY;
        for (u, v) in cands {
            let d = ((a0 + d1 * u) - (b0 + d2 * v)).length_squared();
            if d < bd {
                bd = d;
                best = (u, v);
            }
        }
        best
    }
}

/// The result of the search (in parameter space).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Found {
    pub(crate) cell: Cell,
    pub(crate) converged: bool,
    pub(crate) iterations: usize,
}

/// Per-query constants of the search.
#[derive(Clone, Copy)]
pub(crate) struct Search {
    /// Scaled minimum separation.
    pub(crate) s: f64,
    /// Per-axis rounding bound ε.
    pub(crate) eps: DVec3,
    /// Per-axis rejection bound `s + ε` (rounded up).
    pub(crate) bound: DVec3,
    /// Rejection bound of the projected test, `None` without a direction.
    pub(crate) dir_bound: Option<f64>,
    /// Effective tolerance τ.
    pub(crate) tau: f64,
    /// `δ = 2τ(D + ℓ)`, the accepted size of a box's range (Euclidean).
    pub(crate) delta: f64,
    pub(crate) max_iterations: usize,
    /// The coplanarity cubic, for per-interval filtering.
    pub(crate) plane: Option<PlaneCubic>,
    /// Certificate bound `s + δ`.
    pub(crate) cert: f64,
    /// Upper bound of the Lipschitz constant of `dist(t)` (`max |∂F/∂t|`).
    pub(crate) lip: f64,
}

/// Splitting decision for one parameter.
#[inline]
fn can_split(iv: [f64; 2], tau: f64) -> Option<f64> {
    if iv[1] - iv[0] < tau {
        return None;
    }
    let m = 0.5 * (iv[0] + iv[1]);
    (m > iv[0] && m < iv[1]).then_some(m)
}

/// Earliest-first inclusion bisection. Returns the accepted box of
/// smallest `t₀` (or the earliest unresolved box when the iteration budget
/// or the stack ran out), `None` when every box was excluded.
pub(crate) fn search<F: Multilinear>(f: &F, k: &Search) -> Option<Found> {
    let mut stack = [Cell::UNIT; STACK];
    let mut len = 1usize;
    let mut best: Option<Cell> = None;
    let mut iterations = 0usize;
    let delta_inf = k.delta / 1.732_050_808 * (1.0 - 1e-9);
    // Lipschitz bound of dist(t): |∂F/∂t| = |H(u, v)|, H bilinear, so its
    // norm is maximal at a corner: H_k = F_k(1) − F_k(0); each computed
    // corner is within ε per axis, the difference adds a relative u.
    let lip = {
        let fc = f.corners(&Cell::UNIT);
        let mut h = 0.0f64;
        for i in 0..4 {
            h = h.max(norm_up(fc[i + 4] - fc[i]));
        }
        (h * UP40 + 2.0 * norm_up(k.eps)) * UP
    };
    let k = &Search { lip, ..*k };
    while len > 0 {
        len -= 1;
        let cell = stack[len];
        if let Some(b) = best
            && cell.t[0] >= b.t[0]
        {
            continue;
        }
        if iterations >= k.max_iterations {
            return Some(unresolved(cell, &stack[..len], best, iterations));
        }
        iterations += 1;

        let fc = f.corners(&cell);
        let mut lo = fc[0];
        let mut hi = fc[0];
        for x in &fc[1..] {
            lo = lo.min(*x);
            hi = hi.max(*x);
        }
        // L∞ test: some axis of the range misses [−s − ε, s + ε].
        if lo.x > k.bound.x
            || lo.y > k.bound.y
            || lo.z > k.bound.z
            || hi.x < -k.bound.x
            || hi.y < -k.bound.y
            || hi.z < -k.bound.z
        {
            continue;
        }
        // Euclidean test (only useful with a separation: for s = 0 the L∞
        // test is at least as strong).
        if k.s > 0.0 && !accept(&lo, &hi, k) {
            continue;
        }
        // Plane filter on a new time range (u/v splits keep the verdict).
        if cell.fresh_t
            && let Some(pc) = &k.plane
            && pc.separated_on(cell.t[0], cell.t[1])
        {
            continue;
        }
        // Projected test along the filter direction.
        if let Some(db) = k.dir_bound {
            let dc = f.dir_corners(&cell);
            let mut dlo = dc[0];
            let mut dhi = dc[0];
            for &x in &dc[1..] {
                dlo = dlo.min(x);
                dhi = dhi.max(x);
            }
            if dlo > db || dhi < -db {
                continue;
            }
        }

        // Contact certificate at t₀ (depends on t₀ only): a triangle /
        // edge point whose computed difference has norm ≤ s + δ proves an
        // exact distance ≤ s + δ + √3·ε̄ at t₀ (eval's error is ≤ ε per axis).
        // Otherwise, a lower bound of the distance at t₀ by duality.
        let mut cell = cell;
        if cell.fresh_t0 {
            let (u, v) = f.closest(cell.t[0]);
            let x = f.eval(cell.t[0], u, v);
            if norm_up(x) <= k.cert {
                best = Some(Cell {
                    u: [u, u],
                    v: [v, v],
                    ..cell
                });
                continue;
            }
            cell.lb0 = distance_lower_bound(f, cell.t[0], x, k);
        }
        // Lipschitz slab test: dist(t) ≥ dist(t₀) − L·(t − t₀) > s on the
        // whole time range (any u, v).
        if cell.lb0 > 0.0 {
            let reach = k.lip * (cell.t[1] - cell.t[0]) * UP;
            if cell.lb0 * (1.0 - 1.0 / 1_125_899_906_842_624.0) > (k.s + reach) * UP {
                continue;
            }
        }

        let width = (hi - lo).max_element();
        if width <= delta_inf {
            // Small range: every point of the box is within `s + δ + 4√3ε̄`
            // unless the Euclidean test excludes the box.
            if accept(&lo, &hi, k) {
                best = Some(cell);
            }
            continue;
        }

        // Contribution of each parameter to the range (L∞ of the corner
        // differences along it).
        let mut ct = 0.0f64;
        let mut cu = 0.0f64;
        let mut cv = 0.0f64;
        for i in 0..4 {
            ct = ct.max((fc[i + 4] - fc[i]).abs().max_element()); // (i, i + 4)
            let ui = (i & 1) | ((i & 2) << 1); // 0, 1, 4, 5: (k, k + 2)
            cu = cu.max((fc[ui + 2] - fc[ui]).abs().max_element());
            let vi = 2 * i; // 0, 2, 4, 6: (k, k + 1)
            cv = cv.max((fc[vi + 1] - fc[vi]).abs().max_element());
        }
        let st = can_split(cell.t, k.tau);
        let su = can_split(cell.u, k.tau);
        let sv = can_split(cell.v, k.tau);
        let minor = 0.25 * delta_inf;
        let want_t = st.is_some() && ct > minor;
        let pick_uv = match (su.is_some() && cu > minor, sv.is_some() && cv > minor) {
            (true, true) => Some(cu >= cv),
            (true, false) => Some(true),
            (false, true) => Some(false),
            (false, false) => None,
        };
        // Time first whenever it matters: the time-only tests (the plane
        // filter, the certificate, the Lipschitz slab) resolve most boxes
        // without any (u, v) split; (u, v) are split once time no longer
        // matters (negligible contribution or width < τ).
        let choice = match (want_t, pick_uv) {
            (true, _) => Split::T,
            (false, Some(true)) => Split::U,
            (false, Some(false)) => Split::V,
            (false, None) => {
                if st.is_some() {
                    Split::T
                } else if su.is_some() && (sv.is_none() || cu >= cv) {
                    Split::U
                } else if sv.is_some() {
                    Split::V
                } else {
                    // Nothing can be split: all widths < τ.
                    if accept(&lo, &hi, k) {
                        best = Some(cell);
                    }
                    continue;
                }
            }
        };
        if len + 2 > STACK {
            return Some(unresolved(cell, &stack[..len], best, iterations));
        }
        let (late, early) = match choice {
            Split::T => {
                let m = st.unwrap_or(cell.t[0]);
                (
                    Cell {
                        t: [m, cell.t[1]],
                        fresh_t: true,
                        fresh_t0: true,
                        lb0: f64::NEG_INFINITY,
                        ..cell
                    },
                    Cell {
                        t: [cell.t[0], m],
                        fresh_t: true,
                        fresh_t0: false,
                        ..cell
                    },
                )
            }
            Split::U => {
                let m = su.unwrap_or(cell.u[0]);
                (
                    Cell {
                        u: [m, cell.u[1]],
                        fresh_t: false,
                        fresh_t0: false,
                        ..cell
                    },
                    Cell {
                        u: [cell.u[0], m],
                        fresh_t: false,
                        fresh_t0: false,
                        ..cell
                    },
                )
            }
            Split::V => {
                let m = sv.unwrap_or(cell.v[0]);
                (
                    Cell {
                        v: [m, cell.v[1]],
                        fresh_t: false,
                        fresh_t0: false,
                        ..cell
                    },
                    Cell {
                        v: [cell.v[0], m],
                        fresh_t: false,
                        fresh_t0: false,
                        ..cell
                    },
                )
            }
        };
        // The earlier (or either) half is explored first.
        stack[len] = late;
        stack[len + 1] = early;
        len += 2;
    }
    best.map(|cell| Found {
        cell,
        converged: true,
        iterations,
    })
}

/// A lower bound of the exact distance at time `t` (`−∞` when none).
///
/// At a fixed time the set of differences `{F(t, u, v)}` is the convex hull
/// of the corner values (`p − a, p − b, p − c`, resp. `a_i − b_j`), so for
/// any direction `n`, `dist ≥ min_k n·F_k / |n|` (Cauchy–Schwarz, and a
/// linear function is minimal at a vertex). With `n` the normalised
/// difference `x` of the (approximately) closest pair the bound is nearly
/// tight. Rounding: the corners are within `ε` per axis and the dot adds
/// `< Σ|nᵢ|·εᵢ` (see `make_search`), so `e_n = 2·Σ|nᵢ|εᵢ`; `|n| ≤ 1 + 4u`.
fn distance_lower_bound<F: Multilinear>(f: &F, t: f64, x: DVec3, k: &Search) -> f64 {
    let a = x.abs().max_element();
    if !(a > 0.0 && a.is_finite()) {
        return f64::NEG_INFINITY;
    }
    let q = x / a;
    let n = q / q.length();
    if !n.is_finite() {
        return f64::NEG_INFINITY;
    }
    let fc = f.corners(&Cell {
        t: [t, t],
        u: [0.0, 1.0],
        v: [0.0, 1.0],
        ..Cell::UNIT
    });
    let m = fc[..4].iter().fold(f64::INFINITY, |m, y| m.min(n.dot(*y)));
    let en = 2.0 * n.abs().dot(k.eps) * UP;
    let lb = m - en;
    if lb > 0.0 {
        lb * (1.0 - 1.0 / 1_099_511_627_776.0)
    } else {
        f64::NEG_INFINITY
    }
}

/// Euclidean acceptance test on a box whose computed corner range is
/// `[lo, hi]`: the exact values lie in `[lo − ε, hi + ε]` ⊂ ball(c, r + |ε|)
/// with `c` the range centre and `r` its half diagonal. Returns `false`
/// (the box is excluded) when `|c| > s + r + |ε|`, i.e. every exact value has
/// norm `> s`; otherwise every exact value has norm `≤ s + 2r + 2|ε|`.
#[inline]
fn accept(lo: &DVec3, hi: &DVec3, k: &Search) -> bool {
    let c = (*lo + *hi) * 0.5;
    let h = (*hi - c).max(c - *lo);
    let r = norm_up(h);
    let en = norm_up(k.eps);
    let rhs = (k.s + r + en) * UP;
    norm_down(c) <= rhs
}

/// The earliest unresolved box (iteration budget or stack exhausted).
fn unresolved(cell: Cell, pending: &[Cell], best: Option<Cell>, iterations: usize) -> Found {
    let mut first = cell;
    for c in pending {
        if c.t[0] < first.t[0] {
            first = *c;
        }
    }
    if let Some(b) = best
        && b.t[0] <= first.t[0]
    {
        // Everything earlier than the accepted box is resolved.
        return Found {
            cell: b,
            converged: true,
            iterations,
        };
    }
    Found {
        cell: first,
        converged: false,
        iterations,
    }
}

/// The coplanarity filter: proves that the vertex (resp. the other edge's
/// line) stays farther than `s` from the moving plane spanned by
/// `n(t) = e1(t) × e2(t)` through the reference point, `w(t)` being the
/// offset from it, over `[0, 1]` or over a sub-interval `[t₀, t₁]`.
///
/// With `n(t)` (quadratic, Bernstein control vectors `N₀`,
/// `N₁ = (e1₀ × e2₁ + e1₁ × e2₀)/2`, `N₂`) and `f(t) = n(t)·w(t)` (cubic,
/// Bernstein coefficients `f₀ = N₀·w₀`, `f₁ = (2N₁·w₀ + N₀·w₁)/3`,
/// `f₂ = (N₂·w₀ + 2N₁·w₁)/3`, `f₃ = N₂·w₁`), the distance to the plane is `|f(t)|/|n(t)|`
/// and `|n(t)| ≤ max |N_k|`; so `f > s·max|N_k|` (or `f < −s·max|N_k|`) on an
/// interval proves a distance `> s` there. On `[t₀, t₁]` the Bernstein
/// coefficients of `f` are the blossom values
/// `f(t₀,t₀,t₀), f(t₀,t₀,t₁), f(t₀,t₁,t₁), f(t₁,t₁,t₁)`, computed by three de Casteljau levels
/// `(1−x)·p + x·q`, which are convex combinations.
///
/// Rounding: `e1, e2, w` are differences of inputs (1 rounding); each
/// coefficient has at most 9 rounding factors per monomial (products 2,
/// cross difference 3, sum of two crosses 4, dot 5–7, sum of dots 8,
/// division by 3: 9) and an absolute expression `≤ 144·M³` (`|e|, |w| ≤ 2M`
/// componentwise, `M` the largest absolute input coordinate). The blossom
/// adds 3 factors per level (`1 − x`, product, sum), 9 in all, and keeps the
/// absolute expression (convex weights): error `≤ γ₁₈·144·M³ < 2595·u·M³ <
/// 2^-40·M³`. Gradual underflow adds `< 2^-1000·max(1, M)`. `|N_k|` is
/// bounded likewise with `2^-44·M²`.
#[derive(Clone, Copy)]
pub(crate) struct PlaneCubic {
    b: [f64; 4],
    bound: f64,
    /// With a separation: the Bernstein control vectors `N₀, N₁, N₂` of
    /// `n(t)`, `s`, and the rounding bound `err` of `f` for per-interval
    /// bounds of `|n|` (then `bound` above only serves `[0, 1]`).
    sep: Option<([DVec3; 3], f64, f64, f64)>,
}

impl PlaneCubic {
    /// The cubic of the query, `None` when its bound is not finite.
    pub(crate) fn new(
        e1: [DVec3; 2],
        e2: [DVec3; 2],
        w: [DVec3; 2],
        s: f64,
        m: f64,
    ) -> Option<Self> {
        let n0 = e1[0].cross(e2[0]);
        let n2 = e1[1].cross(e2[1]);
        let n1 = e1[0].cross(e2[1]) + e1[1].cross(e2[0]); // 2·N₁
        let f0 = n0.dot(w[0]);
        let f3 = n2.dot(w[1]);
        let f1 = (n1.dot(w[0]) + n0.dot(w[1])) / 3.0;
        let f2 = (n2.dot(w[0]) + n1.dot(w[1])) / 3.0;
        let tiny = 9.332_636_185_032_189e-302 * m.max(1.0); // 2^-1000·max(1, M)
        let err = (m * m * m * (1.0 / 1_099_511_627_776.0) + tiny) * UP;
        let x = if s > 0.0 {
            let nmax = norm_up(n0).max(norm_up(n1) * 0.5).max(norm_up(n2));
            let nmax = (nmax + m * m * (1.0 / 17_592_186_044_416.0) + tiny) * UP;
            s * nmax * UP
        } else {
            0.0
        };
        let bound = (x + err) * UP;
        let b = [f0, f1, f2, f3];
        // Per-interval |n| bound: the blossom of the quadratic adds 6
        // rounding factors to N's 4 (N₁ = n1/2 is exact): γ₁₀·16M² < 2^-44·M²
        // per component, < 2^-43·M² in norm.
        let nerr = m * m * (1.0 / 8_796_093_022_208.0) + tiny;
        let sep = (s > 0.0).then_some(([n0, n1 * 0.5, n2], s, err, nerr));
        (bound.is_finite() && b.iter().all(|x| x.is_finite())).then_some(Self { b, bound, sep })
    }

    #[inline]
    fn sign_ok(&self, c: [f64; 4]) -> bool {
        let k = self.bound;
        (c[0] > k && c[1] > k && c[2] > k && c[3] > k)
            || (c[0] < -k && c[1] < -k && c[2] < -k && c[3] < -k)
    }

    /// Separated over all of `[0, 1]`.
    pub(crate) fn separated(&self) -> bool {
        self.sign_ok(self.b)
    }

    /// Separated over `[t0, t1]`.
    #[inline]
    pub(crate) fn separated_on(&self, t0: f64, t1: f64) -> bool {
        #[inline]
        fn level<const N: usize>(p: &[f64], x: f64) -> [f64; N] {
            let y = 1.0 - x;
            let mut out = [0.0; N];
            for i in 0..N {
                out[i] = y * p[i] + x * p[i + 1];
            }
            out
        }
        let l1a: [f64; 3] = level(&self.b, t0);
        let l2aa: [f64; 2] = level(&l1a, t0);
        let l2ab: [f64; 2] = level(&l1a, t1);
        let l1b: [f64; 3] = level(&self.b, t1);
        let l2bb: [f64; 2] = level(&l1b, t1);
        let c0: [f64; 1] = level(&l2aa, t0);
        let c1: [f64; 1] = level(&l2aa, t1);
        let c2: [f64; 1] = level(&l2ab, t1);
        let c3: [f64; 1] = level(&l2bb, t1);
        let c = [c0[0], c1[0], c2[0], c3[0]];
        if self.sign_ok(c) {
            return true;
        }
        // With a separation, bound |n| on [t0, t1] only (Bernstein control
        // vectors of n there: blossoms n(t0,t0), n(t0,t1), n(t1,t1)).
        let Some((nb, s, err, nerr)) = &self.sep else {
            return false;
        };
        let lerp = |p: DVec3, q: DVec3, x: f64| p * (1.0 - x) + q * x;
        let a0 = lerp(nb[0], nb[1], t0);
        let a1 = lerp(nb[1], nb[2], t0);
        let b0 = lerp(nb[0], nb[1], t1);
        let b1 = lerp(nb[1], nb[2], t1);
        let m0 = lerp(a0, a1, t0);
        let m1 = lerp(a0, a1, t1);
        let m2 = lerp(b0, b1, t1);
        let nmax = (norm_up(m0).max(norm_up(m1)).max(norm_up(m2)) + nerr) * UP;
        let k = (s * nmax * UP + err) * UP;
        if !k.is_finite() {
            return false;
        }
        (c[0] > k && c[1] > k && c[2] > k && c[3] > k)
            || (c[0] < -k && c[1] < -k && c[2] < -k && c[3] < -k)
    }
}

/// The filter direction `d = n(½)/|n(½)|` (from the same control vectors)
/// or `None` when it is zero or not finite.
pub(crate) fn filter_direction(e1: [DVec3; 2], e2: [DVec3; 2]) -> Option<DVec3> {
    let n = e1[0].cross(e2[0]) + e1[1].cross(e2[1]) + e1[0].cross(e2[1]) + e1[1].cross(e2[0]);
    let a = n.abs().max_element();
    if !(a > 0.0 && a.is_finite()) {
        return None;
    }
    let q = n / a;
    let d = q / q.length();
    // |d| ≤ 1 + 4u by construction.
    d.is_finite().then_some(d)
}

/// The power-of-two factor that brings the largest coordinate below
/// `2^200` (1 when it already is).
pub(crate) fn scale_factor(m: f64) -> f64 {
    if m < SCALE_LIMIT {
        return 1.0;
    }
    let exp = ((m.to_bits() >> 52) & 0x7ff) as i64 - 1023; // m < 2^(exp+1)
    let e = 199 - exp; // ≥ −824
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// Scales `s` by the power of two `f`, rounding upward.
pub(crate) fn scale_sep(s: f64, f: f64) -> f64 {
    if f == 1.0 {
        return s;
    }
    let r = s * f;
    if r / f == s { r } else { r.next_up() }
}

/// The per-axis rounding bound `ε` of computed corner values (see
/// [`eps_axis`]; `m_axis` the per-axis largest absolute input coordinate)
/// and the per-axis rejection bound `s + ε`, rounded up.
#[inline]
pub(crate) fn axis_bounds(s: f64, m_axis: DVec3) -> (DVec3, DVec3) {
    let eps = DVec3::new(eps_axis(m_axis.x), eps_axis(m_axis.y), eps_axis(m_axis.z));
    (eps, (DVec3::splat(s) + eps) * UP)
}

/// Builds the per-query search constants.
pub(crate) fn make_search(
    s: f64,
    m_axis: DVec3,
    dir: Option<DVec3>,
    tau: f64,
    delta: f64,
    max_iterations: usize,
    plane: Option<PlaneCubic>,
) -> Search {
    let (eps, bound) = axis_bounds(s, m_axis);
    let dir_bound = dir.map(|d| {
        // Corner error of d·F: the projected coefficients add 3 roundings
        // (γ₁₁·Σ|dᵢ|·18mᵢ < 2·Σ|dᵢ|·εᵢ, see `eps_axis`); |d| ≤ 1 + 4u.
        let ed = 2.0 * (d.abs().dot(eps));
        (s * UP40 + ed) * UP
    });
    Search {
        s,
        eps,
        bound,
        dir_bound,
        tau,
        delta,
        max_iterations,
        plane,
        // Rounded down, so that `cert ≤ s + δ` exactly.
        cert: (s + delta) * (1.0 - 1.0 / 1_125_899_906_842_624.0),
        lip: f64::INFINITY,
    }
}

/// `τ` clamped to the split floor.
pub(crate) fn effective_tau(tol: f64) -> f64 {
    tol.max(SPLIT_FLOOR)
}
