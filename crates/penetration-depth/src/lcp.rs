//! The linear complementarity problem of the constrained optimisation
//! step (M5 eq. 12 and 30): a dual active-set method and projected
//! Gauss–Seidel.
//!
//! **What.** [`solve_active_set`] and [`solve_pgs`] find `λ` with
//!
//! ```text
//! λ ≥ 0,   w = A λ − b ≥ 0,   λᵀ w = 0
//! ```
//!
//! for a symmetric positive (semi-)definite `A`. In M5 eq. 30,
//! `A = C′ H⁻¹ C′ᵀ` and `b = C′ X_c − g` (`g` the contacts' distances), so
//! `w = g + C′ (X* − X_c)` with `X* = H⁻¹ C′ᵀ λ`: `w ≥ 0` is the
//! linearised non-penetration of every contact row, and a contact pushes
//! (`λ > 0`) only where it is active.
//!
//! **Which.** The problems are small (one row per contact, up to 96)
//! and `A` is dense, of rank at most the number of joint variables.
//! [`solve_active_set`] (the default of the penetration-depth solver,
//! [`LcpSolver::ActiveSet`]) is exact up to rounding after a few pivots
//! per active row. Projected Gauss–Seidel (M5 §3.2) needs no
//! factorisation and one sweep costs `n k` for `k` pushing rows, but on
//! rank-deficient `A` it creeps: on random contact-like problems of up
//! to 80 rows and rank up to 30 it may not converge in 200,000 sweeps
//! (the tests), and on the benchmark's hand most solves ran to the
//! 200-sweep cap.
//!
//! **How (projected Gauss–Seidel).** For a symmetric positive definite
//! `A` the projected iteration converges to the unique solution for any
//! relaxation in `(0, 2)`. Row by row, `λᵢ ← max(0, λᵢ − ω wᵢ / Aᵢᵢ)` with the current
//! `w` (relaxation `ω`). The *residual* is the natural-map violation
//! `maxᵢ |min(Aᵢᵢ λᵢ, wᵢ)|`, in the units of `b`: zero exactly when `λ ≥ 0`,
//! `w ≥ 0` and `λᵢ wᵢ = 0` for every row (an infeasible `wᵢ < 0` with
//! `λᵢ = 0` counts `|wᵢ|`, a positive `λᵢ` with `wᵢ ≠ 0` counts the
//! smaller of `Aᵢᵢ λᵢ` and `|wᵢ|`). The iteration stops when it is at most
//! `tolerance · scale`, `scale = max(|b|∞, maxᵢ Aᵢᵢ λᵢ)`.
//!
//! **Redundant rows.** Duplicated or dependent contact rows make `A`
//! only semidefinite: `λ` is then not unique, but `w` and `X*` are, and
//! PGS still converges to a solution as long as every diagonal entry is
//! positive. A row whose diagonal entry is not above `1e-12` times the
//! largest one (zero, negative, or the rounding noise of a zero) is a
//! contact no motion can change: it is *skipped* — `λᵢ = 0`, left out of
//! the residual, counted in [`PgsReport::skipped_rows`] — since no `λᵢ`
//! could change its `wᵢ = −bᵢ`.
//!
//! **Guarantee.** None beyond the report: on return `λ ≥ 0` always, and
//! [`PgsReport::converged`] says whether the residual met the tolerance
//! within [`PgsOptions::max_iterations`] sweeps. Nothing allocates while
//! at most 128 rows push.
//!
//! ```
//! use armature_penetration_depth::lcp::{PgsOptions, solve_pgs};
//!
//! // Two rows: the first pushes (w₀ = 0, λ₀ > 0), the second is slack.
//! let a = [2.0, 1.0, 1.0, 2.0];
//! let b = [2.0, -1.0];
//! let mut lambda = [0.0; 2];
//! let report = solve_pgs(&a, &b, &mut lambda, &PgsOptions::default());
//! assert!(report.converged);
//! assert!((lambda[0] - 1.0).abs() < 1e-12 && lambda[1] == 0.0);
//! ```

use smallvec::SmallVec;

use crate::PdError;

/// Diagonal entries not above this times the largest are redundant rows.
const REDUNDANT_DIAGONAL: f64 = 1e-12;

/// Which method solves the LCP of a constrained-optimisation step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LcpSolver {
    /// [`solve_active_set`]: exact up to rounding in a few pivots per
    /// active row; where it does not converge (rounding on nearly
    /// dependent rows), projected Gauss–Seidel goes on from its answer.
    #[default]
    ActiveSet,
    /// [`solve_pgs`] from `λ = 0`, as M5 §3.2 describes.
    Pgs,
}

/// Options of [`solve_pgs`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PgsOptions {
    /// Most Gauss–Seidel sweeps. Default 200.
    pub max_iterations: usize,
    /// Relative tolerance on the residual (see the [module docs](self)).
    /// Default `1e-12`.
    pub tolerance: f64,
    /// Relaxation `ω ∈ (0, 2)`: 1 is plain Gauss–Seidel, above 1
    /// over-relaxation. Default 1.
    pub relaxation: f64,
}

impl Default for PgsOptions {
    fn default() -> Self {
        Self {
            max_iterations: 200,
            tolerance: 1e-12,
            relaxation: 1.0,
        }
    }
}

impl PgsOptions {
    /// Sets [`PgsOptions::max_iterations`].
    #[must_use]
    pub fn with_max_iterations(mut self, max_iterations: usize) -> Self {
        self.max_iterations = max_iterations;
        self
    }

    /// Sets [`PgsOptions::tolerance`].
    #[must_use]
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// Sets [`PgsOptions::relaxation`].
    #[must_use]
    pub fn with_relaxation(mut self, relaxation: f64) -> Self {
        self.relaxation = relaxation;
        self
    }

    /// Checks the options.
    ///
    /// # Errors
    /// [`PdError::InvalidOption`] for a zero `max_iterations`, a negative
    /// or non-finite `tolerance`, or a `relaxation` outside `(0, 2)`.
    pub fn validate(&self) -> Result<(), PdError> {
        if self.max_iterations == 0 {
            return Err(PdError::InvalidOption {
                name: "max_iterations",
                value: 0.0,
                why: "must be at least 1",
            });
        }
        if !(self.tolerance >= 0.0 && self.tolerance.is_finite()) {
            return Err(PdError::InvalidOption {
                name: "tolerance",
                value: self.tolerance,
                why: "must be finite and non-negative",
            });
        }
        if !(self.relaxation > 0.0 && self.relaxation < 2.0) {
            return Err(PdError::InvalidOption {
                name: "relaxation",
                value: self.relaxation,
                why: "must lie in (0, 2)",
            });
        }
        Ok(())
    }
}

/// What [`solve_pgs`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct PgsReport {
    /// Gauss–Seidel sweeps made.
    pub iterations: usize,
    /// The natural-map residual `maxᵢ |min(Aᵢᵢ λᵢ, wᵢ)|` over the rows not
    /// skipped, at the returned `λ` (see the [module docs](self)).
    pub residual: f64,
    /// Whether the residual met the tolerance.
    pub converged: bool,
    /// Rows skipped as redundant (diagonal not positive, see the
    /// [module docs](self)), their `λ` zero.
    pub skipped_rows: usize,
}

/// Solves `λ ≥ 0, w = A λ − b ≥ 0, λᵀ w = 0` by projected Gauss–Seidel
/// (see the [module docs](self)). `a` is `n × n` row-major and symmetric
/// positive (semi-)definite, `n = lambda.len()`; `lambda` holds the warm
/// start on entry (negative entries are projected to 0) and the answer on
/// return. The options are used as given: check them once with
/// [`PgsOptions::validate`]. No allocation.
///
/// # Panics
/// If `a.len() != n²` or `b.len() != n`.
pub fn solve_pgs(a: &[f64], b: &[f64], lambda: &mut [f64], options: &PgsOptions) -> PgsReport {
    let n = lambda.len();
    let floor = redundancy_floor(a, b, n);
    let skipped = |i: usize| is_redundant(a[i * n + i], floor);
    let mut skipped_rows = 0;
    for (i, l) in lambda.iter_mut().enumerate() {
        if skipped(i) {
            *l = 0.0;
            skipped_rows += 1;
        } else {
            // `max` also maps NaN to 0.
            *l = l.max(0.0);
        }
    }
    let b_scale = b.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    let omega = options.relaxation;
    let mut report = PgsReport {
        skipped_rows,
        ..PgsReport::default()
    };
    // The rows pushing (`λⱼ > 0`), in increasing order: `(Aλ)ᵢ` sums
    // only their terms, in the dense sum's order (the others add exact
    // zeros), so a sweep costs `n` times the pushing rows, not `n²`.
    let mut active = pushing_rows(lambda);
    let (residual, scale) = natural_residual(a, b, lambda, &active, floor, b_scale);
    report.residual = residual;
    if residual <= options.tolerance * scale {
        report.converged = true;
        return report;
    }
    while report.iterations < options.max_iterations {
        report.iterations += 1;
        // The largest unrelaxed step `Aᵢᵢ |Δλᵢ| / ω` of the sweep: the
        // natural residual of each row when it was visited. Only when it is
        // small is the true residual worth its pass.
        let mut step = 0.0_f64;
        for i in 0..n {
            if skipped(i) {
                continue;
            }
            let row = &a[i * n..(i + 1) * n];
            let w = pushed_sum(row, lambda, &active) - b[i];
            let aii = row[i];
            let old = lambda[i];
            let new = (old - omega * w / aii).max(0.0);
            step = step.max(aii * (new - old).abs() / omega);
            lambda[i] = new;
            if (old > 0.0) != (new > 0.0) {
                let key = u32::try_from(i).unwrap_or(u32::MAX);
                match active.binary_search(&key) {
                    Ok(k) => {
                        active.remove(k);
                    }
                    Err(k) => active.insert(k, key),
                }
            }
        }
        let lambda_scale = (0..n)
            .filter(|&i| !skipped(i))
            .fold(0.0_f64, |m, i| m.max(a[i * n + i] * lambda[i]));
        if step <= options.tolerance * b_scale.max(lambda_scale) {
            let (residual, scale) = natural_residual(a, b, lambda, &active, floor, b_scale);
            report.residual = residual;
            if residual <= options.tolerance * scale {
                report.converged = true;
                return report;
            }
        }
    }
    report.residual = natural_residual(a, b, lambda, &active, floor, b_scale).0;
    report
}

/// The diagonal entry at or below which a row is redundant, for the
/// `n × n` problem `(a, b)`.
///
/// # Panics
/// If `a.len() != n²` or `b.len() != n`.
fn redundancy_floor(a: &[f64], b: &[f64], n: usize) -> f64 {
    assert_eq!(a.len(), n * n, "matrix length");
    assert_eq!(b.len(), n, "right-hand side length");
    let max_diagonal = (0..n).map(|i| a[i * n + i]).fold(0.0, f64::max);
    REDUNDANT_DIAGONAL * max_diagonal
}

/// Indices of the pushing rows (no allocation up to 128 of them).
type Active = SmallVec<[u32; 128]>;

/// The rows with `λⱼ > 0`, in increasing order.
fn pushing_rows(lambda: &[f64]) -> Active {
    (0..lambda.len())
        .filter(|&j| lambda[j] > 0.0)
        .map(|j| u32::try_from(j).unwrap_or(u32::MAX))
        .collect()
}

/// `Σⱼ rowⱼ λⱼ` over the pushing rows `active` (increasing): the dense
/// sum's value, the other terms being zeros (for finite `A`).
fn pushed_sum(row: &[f64], lambda: &[f64], active: &[u32]) -> f64 {
    active
        .iter()
        .map(|&j| row[j as usize] * lambda[j as usize])
        .sum::<f64>()
}

/// Whether a diagonal entry marks a redundant row: not above `floor`
/// (NaN included).
fn is_redundant(aii: f64, floor: f64) -> bool {
    aii.partial_cmp(&floor) != Some(core::cmp::Ordering::Greater)
}

/// The natural-map residual and the scale it is measured against.
fn natural_residual(
    a: &[f64],
    b: &[f64],
    lambda: &[f64],
    active: &[u32],
    floor: f64,
    b_scale: f64,
) -> (f64, f64) {
    let n = lambda.len();
    let (mut residual, mut scale) = (0.0_f64, b_scale);
    for i in 0..n {
        let aii = a[i * n + i];
        if is_redundant(aii, floor) {
            continue;
        }
        let row = &a[i * n..(i + 1) * n];
        let w = pushed_sum(row, lambda, active) - b[i];
        let pushed = aii * lambda[i];
        residual = residual.max(pushed.min(w).abs());
        scale = scale.max(pushed);
    }
    (residual, scale)
}

/// A row whose squared distance to the span of the active rows is not
/// above this times its own squared length is dependent on them.
const DEPENDENT_ROW: f64 = 1e-10;

/// What [`solve_active_set`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct ActiveSetReport {
    /// Pivots made: a row added to the active set, or one dropped.
    pub pivots: usize,
    /// The natural-map residual at the returned `λ`, as
    /// [`PgsReport::residual`], computed afresh from `A` and `b`.
    pub residual: f64,
    /// Whether the residual met the tolerance.
    pub converged: bool,
    /// Rows skipped as redundant (as [`solve_pgs`] skips them), their `λ`
    /// zero.
    pub skipped_rows: usize,
    /// Most rows active at once (at most the rank of `A`).
    pub largest_active_set: usize,
}

/// Solves `λ ≥ 0, w = A λ − b ≥ 0, λᵀ w = 0` exactly, up to rounding, by
/// the dual active-set method of Goldfarb and Idnani (1983), written on
/// `A` alone.
///
/// **Why.** With `A = D Dᵀ` (in M5 eq. 30, `D = C′ L⁻ᵀ` for `H = L Lᵀ`)
/// the LCP is the dual of the least-norm problem `min ½‖y‖²` subject to
/// `D y ≥ b`, `y = Dᵀ λ`. Starting from `y = 0`, the method adds the most
/// violated row and moves `y` along the part of that row orthogonal to
/// the active ones, dropping an active row whose `λ` would turn
/// negative; the active rows stay independent, so their block `A_WW` is
/// positive definite even where `A` is only semidefinite (more contact
/// rows than coordinates). It ends after a few pivots per active row,
/// where projected Gauss–Seidel creeps on such matrices.
///
/// **How.** Every quantity is a product of rows, so only entries of `A`
/// are read: the direction's coefficients `r = A_WW⁻¹ A_Wp` (a Cholesky
/// factor of `A_WW`, extended by a row when a row joins and refactored
/// when one leaves), its squared length `A_pp − A_pWᵀ r`, and
/// `w` kept up to date at `n` products per active row. A row is violated
/// when `wᵢ < −tolerance · scale` (`scale` as in [`solve_pgs`]); rows with
/// a diagonal entry not above `1e-12` times the largest are skipped, as
/// there.
///
/// **Guarantee.** None beyond the report, whose residual is computed
/// afresh: on return `λ ≥ 0` always, and [`ActiveSetReport::converged`]
/// says whether the residual met `tolerance`. An infeasible problem (a
/// violated row that no combination of the others allows) or a run past
/// `4 n + 64` pivots returns unconverged. `lambda`'s values on entry are
/// ignored (the method starts from `λ = 0`).
///
/// # Panics
/// If `a.len() != n²` or `b.len() != n`.
pub fn solve_active_set(
    a: &[f64],
    b: &[f64],
    lambda: &mut [f64],
    tolerance: f64,
) -> ActiveSetReport {
    let n = lambda.len();
    let floor = redundancy_floor(a, b, n);
    let skipped = |i: usize| is_redundant(a[i * n + i], floor);
    lambda.fill(0.0);
    let mut report = ActiveSetReport {
        skipped_rows: (0..n).filter(|&i| skipped(i)).count(),
        ..ActiveSetReport::default()
    };
    let b_scale = b.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    let mut w: Vec<f64> = b.iter().map(|v| -v).collect();
    // The active rows, and the Cholesky factor of their block (`k × k`,
    // row-major with stride `n`, lower triangle).
    let mut set: SmallVec<[usize; 32]> = SmallVec::new();
    let mut chol = vec![0.0; n * n];
    let mut y = vec![0.0; n];
    let mut r = vec![0.0; n];
    let max_pivots = 4 * n + 64;
    let mut feasible = true;
    'outer: while report.pivots < max_pivots {
        let scale = (0..n).fold(b_scale, |m, i| m.max(a[i * n + i] * lambda[i]));
        let mut p = usize::MAX;
        let mut worst = -tolerance * scale;
        for (i, &wi) in w.iter().enumerate() {
            if wi < worst && !skipped(i) && !set.contains(&i) {
                worst = wi;
                p = i;
            }
        }
        if p == usize::MAX {
            break;
        }
        loop {
            report.pivots += 1;
            if report.pivots > max_pivots {
                break 'outer;
            }
            let k = set.len();
            // y = L⁻¹ A_Wp, r = L⁻ᵀ y.
            for t in 0..k {
                let s: f64 = (0..t).map(|u| chol[t * n + u] * y[u]).sum();
                y[t] = (a[set[t] * n + p] - s) / chol[t * n + t];
            }
            for t in (0..k).rev() {
                let s: f64 = (t + 1..k).map(|u| chol[u * n + t] * r[u]).sum();
                r[t] = (y[t] - s) / chol[t * n + t];
            }
            let app = a[p * n + p];
            let zz = app - y[..k].iter().map(|v| v * v).sum::<f64>();
            let full = (zz > DEPENDENT_ROW * app).then(|| -w[p] / zz);
            let mut partial: Option<(f64, usize)> = None;
            for t in 0..k {
                if r[t] > 0.0 {
                    let s = (lambda[set[t]] / r[t]).max(0.0);
                    if partial.is_none_or(|(best, _)| s < best) {
                        partial = Some((s, t));
                    }
                }
            }
            let (step, drop) = match (full, partial) {
                (None, None) => {
                    feasible = false;
                    break 'outer;
                }
                (Some(f), Some((s, t))) if s < f => (s, Some(t)),
                (Some(f), _) => (f, None),
                (None, Some((s, t))) => (s, Some(t)),
            };
            // λ_W −= step r, λ_p += step; w moves by A times that change.
            for t in 0..k {
                lambda[set[t]] -= step * r[t];
            }
            lambda[p] += step;
            for (i, wi) in w.iter_mut().enumerate() {
                let row = &a[i * n..(i + 1) * n];
                let dw = row[p] - (0..k).map(|t| row[set[t]] * r[t]).sum::<f64>();
                *wi += step * dw;
            }
            match drop {
                None => {
                    // Row `p` joins: the factor gains the row (yᵀ, √zz).
                    chol[k * n..k * n + k].copy_from_slice(&y[..k]);
                    chol[k * n + k] = zz.sqrt();
                    set.push(p);
                    report.largest_active_set = report.largest_active_set.max(set.len());
                    continue 'outer;
                }
                Some(t) => {
                    lambda[set[t]] = 0.0;
                    set.remove(t);
                    if !factor(a, n, &set, &mut chol) {
                        feasible = false;
                        break 'outer;
                    }
                }
            }
        }
    }
    for l in lambda.iter_mut() {
        *l = l.max(0.0);
    }
    let active = pushing_rows(lambda);
    let (residual, scale) = natural_residual(a, b, lambda, &active, floor, b_scale);
    report.residual = residual;
    report.converged = feasible && residual <= tolerance * scale;
    report
}

/// The Cholesky factor of `A`'s block on the rows `set` into `chol`
/// (stride `n`); `false` when rounding makes the block not positive
/// definite.
fn factor(a: &[f64], n: usize, set: &[usize], chol: &mut [f64]) -> bool {
    let k = set.len();
    for i in 0..k {
        for j in 0..=i {
            let s: f64 = (0..j).map(|u| chol[i * n + u] * chol[j * n + u]).sum();
            let v = a[set[i] * n + set[j]] - s;
            if i == j {
                if v.partial_cmp(&0.0) != Some(core::cmp::Ordering::Greater) {
                    return false;
                }
                chol[i * n + i] = v.sqrt();
            } else {
                chol[i * n + j] = v / chol[j * n + j];
            }
        }
    }
    true
}
