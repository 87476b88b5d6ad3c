//! Projected Gauss–Seidel for the linear complementarity problem of the
//! constrained optimisation step (M5 eq. 12 and 30).
//!
//! **What.** [`solve_pgs`] finds `λ` with
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
//! **Why PGS.** The problems are small (one row per contact), `A` is
//! dense, and warm starts from the previous iteration are close: one
//! Gauss–Seidel sweep costs `n k` for `k` pushing rows (`λⱼ > 0`; at most
//! `n²`; the other rows add nothing to `Aλ`) and needs no factorisation,
//! and for a
//! symmetric positive definite `A` the projected iteration converges to
//! the unique solution for any relaxation in `(0, 2)` (M5 §3.2).
//!
//! **How.** Row by row, `λᵢ ← max(0, λᵢ − ω wᵢ / Aᵢᵢ)` with the current
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
    assert_eq!(a.len(), n * n, "matrix length");
    assert_eq!(b.len(), n, "right-hand side length");
    let max_diagonal = (0..n).map(|i| a[i * n + i]).fold(0.0, f64::max);
    let floor = REDUNDANT_DIAGONAL * max_diagonal;
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
    let mut active: Active = (0..n)
        .filter(|&j| lambda[j] > 0.0)
        .map(|j| u32::try_from(j).unwrap_or(u32::MAX))
        .collect();
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

/// Indices of the pushing rows (no allocation up to 128 of them).
type Active = SmallVec<[u32; 128]>;

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
