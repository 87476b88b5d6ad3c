//! Projected Gauss–Seidel and the dual active-set method against
//! brute-force enumeration of the active sets, and on redundant
//! (semidefinite) contact rows.

use armature_penetration_depth::PdError;
use armature_penetration_depth::lcp::{PgsOptions, solve_active_set, solve_pgs};

/// SplitMix64: a fixed stream of cases.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Solves the dense system `m y = r` (`k × k`, row-major) by Gaussian
/// elimination with partial pivoting; `None` when singular.
fn solve_dense(mut m: Vec<f64>, mut r: Vec<f64>) -> Option<Vec<f64>> {
    let k = r.len();
    for col in 0..k {
        let p = (col..k).max_by(|&a, &b| m[a * k + col].abs().total_cmp(&m[b * k + col].abs()))?;
        if m[p * k + col].abs() < 1e-14 {
            return None;
        }
        for c in 0..k {
            m.swap(col * k + c, p * k + c);
        }
        r.swap(col, p);
        for row in col + 1..k {
            let f = m[row * k + col] / m[col * k + col];
            for c in col..k {
                m[row * k + c] -= f * m[col * k + c];
            }
            r[row] -= f * r[col];
        }
    }
    let mut y = vec![0.0; k];
    for row in (0..k).rev() {
        let s: f64 = (row + 1..k).map(|c| m[row * k + c] * y[c]).sum();
        y[row] = (r[row] - s) / m[row * k + row];
    }
    Some(y)
}

fn w_of(a: &[f64], b: &[f64], lambda: &[f64]) -> Vec<f64> {
    let n = b.len();
    (0..n)
        .map(|i| (0..n).map(|j| a[i * n + j] * lambda[j]).sum::<f64>() - b[i])
        .collect()
}

/// The LCP's solution by trying every active set: `λ_S = A_SS⁻¹ b_S`,
/// accepted when `λ_S ≥ 0` and `w ≥ 0` off `S`. A symmetric positive
/// definite `A` has exactly one.
fn brute_force(a: &[f64], b: &[f64]) -> Vec<f64> {
    let n = b.len();
    let scale = b.iter().fold(1.0_f64, |m, v| m.max(v.abs()));
    for mask in 0u32..1 << n {
        let set: Vec<usize> = (0..n).filter(|&i| mask >> i & 1 == 1).collect();
        let k = set.len();
        let sub: Vec<f64> = set
            .iter()
            .flat_map(|&i| set.iter().map(move |&j| a[i * n + j]))
            .collect();
        let rhs: Vec<f64> = set.iter().map(|&i| b[i]).collect();
        let Some(y) = solve_dense(sub, rhs) else {
            continue;
        };
        let mut lambda = vec![0.0; n];
        for (t, &i) in set.iter().enumerate() {
            lambda[i] = y[t];
        }
        if y.iter().any(|&v| v < -1e-12 * scale) {
            continue;
        }
        let w = w_of(a, b, &lambda);
        if (0..n).all(|i| mask >> i & 1 == 1 || w[i] >= -1e-12 * scale) {
            let _ = k;
            return lambda.iter().map(|v| v.max(0.0)).collect();
        }
    }
    panic!("no active set solves the LCP");
}

/// `A = B Bᵀ + δ 𝟙` with `B` random `n × n`.
fn random_spd(rng: &mut Rng, n: usize, delta: f64) -> Vec<f64> {
    let bm: Vec<f64> = (0..n * n).map(|_| rng.range(-1.0, 1.0)).collect();
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            a[i * n + j] = (0..n).map(|k| bm[i * n + k] * bm[j * n + k]).sum::<f64>()
                + if i == j { delta } else { 0.0 };
        }
    }
    a
}

fn assert_complementary(a: &[f64], b: &[f64], lambda: &[f64], tol: f64) {
    let w = w_of(a, b, lambda);
    for (i, (&l, &w)) in lambda.iter().zip(&w).enumerate() {
        assert!(l >= 0.0, "λ[{i}] = {l}");
        assert!(w >= -tol, "w[{i}] = {w}");
        assert!(
            (l * w).abs() <= tol * (1.0 + l),
            "λ[{i}] w[{i}] = {}",
            l * w
        );
    }
}

#[test]
fn matches_brute_force_on_random_spd_problems() {
    let mut rng = Rng(2024);
    let options = PgsOptions::default()
        .with_max_iterations(200_000)
        .with_tolerance(1e-13);
    for case in 0..600 {
        let n = 1 + rng.below(8);
        let delta = rng.range(0.05, 1.0);
        let a = random_spd(&mut rng, n, delta);
        let b: Vec<f64> = (0..n).map(|_| rng.range(-1.0, 1.0)).collect();
        let want = brute_force(&a, &b);
        let relaxation = [1.0, 0.7, 1.4][case % 3];
        let mut lambda: Vec<f64> = if case % 2 == 0 {
            vec![0.0; n]
        } else {
            (0..n).map(|_| rng.range(-1.0, 2.0)).collect()
        };
        let report = solve_pgs(&a, &b, &mut lambda, &options.with_relaxation(relaxation));
        assert!(report.converged, "case {case}: {report:?}");
        assert_eq!(report.skipped_rows, 0);
        let scale = want.iter().fold(1.0_f64, |m, v| m.max(v.abs()));
        for (got, want) in lambda.iter().zip(&want) {
            assert!(
                (got - want).abs() <= 1e-8 * scale,
                "case {case} (n = {n}): {lambda:?} vs {want:?}"
            );
        }
        assert_complementary(&a, &b, &lambda, 1e-10);
    }
}

#[test]
fn default_options_converge_on_well_conditioned_problems() {
    let mut rng = Rng(7);
    for _ in 0..50 {
        let n = 1 + rng.below(8);
        let a = random_spd(&mut rng, n, 2.0 * n as f64);
        let b: Vec<f64> = (0..n).map(|_| rng.range(-1.0, 1.0)).collect();
        let mut lambda = vec![0.0; n];
        let report = solve_pgs(&a, &b, &mut lambda, &PgsOptions::default());
        assert!(report.converged, "{report:?}");
        assert!(report.iterations <= 200);
        assert_complementary(&a, &b, &lambda, 1e-10);
    }
}

/// `C` (`m × k`): `base` random rows, then copies and positive multiples
/// of them, and an all-zero row; `A = C Cᵀ` (H = 𝟙), `b = C X_c`.
#[test]
fn redundant_rows_still_satisfy_complementarity() {
    let mut rng = Rng(99);
    let options = PgsOptions::default()
        .with_max_iterations(100_000)
        .with_tolerance(1e-13);
    for case in 0..200 {
        let k = 2 + rng.below(5);
        let base = 1 + rng.below(k);
        let mut rows: Vec<Vec<f64>> = (0..base)
            .map(|_| (0..k).map(|_| rng.range(-1.0, 1.0)).collect())
            .collect();
        let copies = 1 + rng.below(4);
        for _ in 0..copies {
            let r = rows[rng.below(base)].clone();
            let s = rng.range(0.5, 2.0);
            rows.push(r.iter().map(|v| v * s).collect());
        }
        let zero_row = case % 4 == 0;
        if zero_row {
            rows.push(vec![0.0; k]);
        }
        let m = rows.len();
        let x_c: Vec<f64> = (0..k).map(|_| rng.range(-1.0, 1.0)).collect();
        let gram = |rows: &[Vec<f64>]| -> (Vec<f64>, Vec<f64>) {
            let m = rows.len();
            let mut a = vec![0.0; m * m];
            for i in 0..m {
                for j in 0..m {
                    a[i * m + j] = rows[i].iter().zip(&rows[j]).map(|(x, y)| x * y).sum();
                }
            }
            let b = rows
                .iter()
                .map(|r| r.iter().zip(&x_c).map(|(x, y)| x * y).sum())
                .collect();
            (a, b)
        };
        let (a, b) = gram(&rows);
        let mut lambda = vec![0.0; m];
        let report = solve_pgs(&a, &b, &mut lambda, &options);
        assert!(report.converged, "case {case}: {report:?}");
        assert_eq!(report.skipped_rows, usize::from(zero_row));
        if zero_row {
            assert_eq!(lambda[m - 1], 0.0);
        }
        assert_complementary(&a, &b, &lambda, 1e-9);
        // The primal answer X* = Cᵀ λ is unique: that of the base rows
        // alone (independent, so their Gram matrix is definite).
        let (ab, bb) = gram(&rows[..base]);
        let lb = brute_force(&ab, &bb);
        for c in 0..k {
            let got: f64 = (0..m).map(|i| rows[i][c] * lambda[i]).sum();
            let want: f64 = (0..base).map(|i| rows[i][c] * lb[i]).sum();
            assert!(
                (got - want).abs() < 1e-7,
                "case {case}: X*[{c}] {got} vs {want}"
            );
        }
    }
}

#[test]
fn trivial_problems() {
    // Nothing pushes: λ = 0 at once.
    let mut lambda = [0.0; 2];
    let report = solve_pgs(
        &[1.0, 0.0, 0.0, 1.0],
        &[-1.0, 0.0],
        &mut lambda,
        &PgsOptions::default(),
    );
    assert!(report.converged);
    assert_eq!(report.iterations, 0);
    assert_eq!(lambda, [0.0; 2]);
    // A warm start that is already the answer.
    let mut lambda = [2.0];
    let report = solve_pgs(&[3.0], &[6.0], &mut lambda, &PgsOptions::default());
    assert!(report.converged);
    assert_eq!(report.iterations, 0);
    // An empty problem.
    let report = solve_pgs(&[], &[], &mut [], &PgsOptions::default());
    assert!(report.converged);
    // Out of iterations: reported, λ still non-negative.
    let mut rng = Rng(5);
    let a = random_spd(&mut rng, 8, 1e-3);
    let b: Vec<f64> = (0..8).map(|_| rng.range(-1.0, 1.0)).collect();
    let mut lambda = vec![0.0; 8];
    let report = solve_pgs(
        &a,
        &b,
        &mut lambda,
        &PgsOptions::default().with_max_iterations(1),
    );
    assert_eq!(report.iterations, 1);
    assert!(!report.converged);
    assert!(report.residual > 0.0);
    assert!(lambda.iter().all(|&l| l >= 0.0));
}

#[test]
fn options_are_validated() {
    assert!(PgsOptions::default().validate().is_ok());
    for bad in [
        PgsOptions::default().with_max_iterations(0),
        PgsOptions::default().with_tolerance(-1.0),
        PgsOptions::default().with_tolerance(f64::NAN),
        PgsOptions::default().with_relaxation(0.0),
        PgsOptions::default().with_relaxation(2.0),
        PgsOptions::default().with_relaxation(f64::NAN),
    ] {
        assert!(matches!(bad.validate(), Err(PdError::InvalidOption { .. })));
    }
}

/// The sweeps sum `Aλ` over the pushing rows only; the iterates are the
/// plain dense sweep's, bit for bit (the other rows add exact zeros):
/// against a dense reference on random problems from 1 to 40 rows,
/// semidefinite ones (more rows than rank) included, a sweep at a time.
#[test]
fn sweeps_are_the_dense_sweeps() {
    let mut rng = Rng(99);
    for case in 0..200 {
        let n = 1 + rng.below(40);
        let a = if case % 2 == 0 {
            let delta = rng.range(0.05, 1.0);
            random_spd(&mut rng, n, delta)
        } else {
            // Rank at most 3: C Cᵀ for a random n × 3 C.
            let c: Vec<f64> = (0..n * 3).map(|_| rng.range(-1.0, 1.0)).collect();
            (0..n * n)
                .map(|k| {
                    (0..3)
                        .map(|m| c[(k / n) * 3 + m] * c[(k % n) * 3 + m])
                        .sum()
                })
                .collect()
        };
        let b: Vec<f64> = (0..n).map(|_| rng.range(-1.0, 1.0)).collect();
        let relaxation = [1.0, 0.7, 1.4][case % 3];
        let mut lambda = vec![0.0; n];
        let mut dense = vec![0.0; n];
        let floor = 1e-12 * (0..n).map(|j| a[j * n + j]).fold(0.0, f64::max);
        for sweep in 1..=30 {
            let options = PgsOptions::default()
                .with_max_iterations(1)
                .with_tolerance(0.0)
                .with_relaxation(relaxation);
            solve_pgs(&a, &b, &mut lambda, &options);
            for i in 0..n {
                let row = &a[i * n..(i + 1) * n];
                if row[i].partial_cmp(&floor) != Some(core::cmp::Ordering::Greater) {
                    dense[i] = 0.0;
                    continue;
                }
                let w: f64 = row.iter().zip(&dense).map(|(x, l)| x * l).sum::<f64>() - b[i];
                dense[i] = (dense[i] - relaxation * w / row[i]).max(0.0);
            }
            for (got, want) in lambda.iter().zip(&dense) {
                assert_eq!(
                    got.to_bits(),
                    want.to_bits(),
                    "case {case} (n = {n}), sweep {sweep}"
                );
            }
        }
    }
}

#[test]
fn active_set_matches_brute_force_on_random_spd_problems() {
    let mut rng = Rng(31);
    for case in 0..600 {
        let n = 1 + rng.below(9);
        let delta = [1.0, 0.05, 1e-3][case % 3];
        let a = random_spd(&mut rng, n, delta);
        let b: Vec<f64> = (0..n).map(|_| rng.range(-1.0, 1.0)).collect();
        let want = brute_force(&a, &b);
        // Entry values are ignored.
        let mut lambda: Vec<f64> = (0..n).map(|_| rng.range(-1.0, 2.0)).collect();
        let report = solve_active_set(&a, &b, &mut lambda, 1e-12);
        assert!(report.converged, "case {case}: {report:?}");
        assert_eq!(report.skipped_rows, 0);
        assert!(report.largest_active_set <= n);
        let scale = want.iter().fold(1.0_f64, |m, v| m.max(v.abs()));
        for (got, want) in lambda.iter().zip(&want) {
            assert!(
                (got - want).abs() <= 1e-7 * scale,
                "case {case} (n = {n}): {lambda:?} vs {want:?}"
            );
        }
        assert_complementary(&a, &b, &lambda, 1e-9 * scale);
    }
}

/// Contact-like problems: up to 80 rows of rank `k` (up to 30),
/// `A = C Cᵀ`, `b = C X_c − g` with `g ≥ 0` (so `X_c` is feasible),
/// copies and multiples of rows and zero rows among them. The primal
/// answer `X* = Cᵀ λ` is the least-norm point of `{X : C X ≥ b}`: it
/// must be feasible and complementary (with `λ ≥ 0`, the optimality
/// conditions), and no farther from the origin than a long projected
/// Gauss–Seidel run's where that run converges.
#[test]
fn active_set_solves_semidefinite_contact_problems() {
    let mut rng = Rng(77);
    let mut unconverged = 0;
    for case in 0..300 {
        let k = 1 + rng.below(30);
        let base = 1 + rng.below(40);
        let mut rows: Vec<Vec<f64>> = (0..base)
            .map(|_| (0..k).map(|_| rng.range(-1.0, 1.0)).collect())
            .collect();
        for _ in 0..rng.below(40) {
            let r = rows[rng.below(base)].clone();
            let s = rng.range(0.5, 2.0);
            rows.push(r.iter().map(|v| v * s).collect());
        }
        let zero_row = case % 5 == 0;
        if zero_row {
            rows.push(vec![0.0; k]);
        }
        let m = rows.len();
        let x_c: Vec<f64> = (0..k).map(|_| rng.range(-1.0, 1.0)).collect();
        let mut a = vec![0.0; m * m];
        for i in 0..m {
            for j in 0..m {
                a[i * m + j] = rows[i].iter().zip(&rows[j]).map(|(x, y)| x * y).sum();
            }
        }
        let b: Vec<f64> = rows
            .iter()
            .map(|r| {
                let g = if rng.below(2) == 0 {
                    0.0
                } else {
                    rng.range(0.0, 0.1)
                };
                r.iter().zip(&x_c).map(|(x, y)| x * y).sum::<f64>() - g
            })
            .collect();
        let mut lambda = vec![0.0; m];
        let report = solve_active_set(&a, &b, &mut lambda, 1e-12);
        assert!(
            report.converged,
            "case {case} (m = {m}, k = {k}): {report:?}"
        );
        assert_eq!(report.skipped_rows, usize::from(zero_row));
        assert!(report.largest_active_set <= k, "{report:?}");
        let scale = b.iter().fold(1.0_f64, |s, v| s.max(v.abs()));
        assert_complementary(&a, &b, &lambda, 1e-9 * scale);
        let x: Vec<f64> = (0..k)
            .map(|c| (0..m).map(|i| rows[i][c] * lambda[i]).sum())
            .collect();
        for (i, row) in rows.iter().enumerate() {
            let v: f64 = row.iter().zip(&x).map(|(c, x)| c * x).sum();
            assert!(v >= b[i] - 1e-9 * scale, "case {case}: row {i} violated");
        }
        let mut reference = vec![0.0; m];
        let options = PgsOptions::default()
            .with_max_iterations(200_000)
            .with_tolerance(1e-13);
        let pgs = solve_pgs(&a, &b, &mut reference, &options);
        let x_ref: Vec<f64> = (0..k)
            .map(|c| (0..m).map(|i| rows[i][c] * reference[i]).sum())
            .collect();
        let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>();
        // Feasibility, λ ≥ 0 and complementarity above are the optimality
        // conditions; where the long PGS run converges too, it agrees.
        if !pgs.converged {
            unconverged += 1;
            continue;
        }
        assert!(
            norm(&x) <= norm(&x_ref) * (1.0 + 1e-9) + 1e-18,
            "case {case}: |X*|² {} vs PGS {} ({pgs:?}; {report:?}, m {m} k {k} base {base})",
            norm(&x),
            norm(&x_ref)
        );
    }
    // Projected Gauss–Seidel does not always converge on these in
    // 200,000 sweeps; the active-set method always does.
    assert!(unconverged < 150, "{unconverged}");
}

#[test]
fn active_set_trivial_and_infeasible_problems() {
    // Nothing violated: no pivot.
    let mut lambda = [1.0; 2];
    let report = solve_active_set(&[1.0, 0.0, 0.0, 1.0], &[-1.0, 0.0], &mut lambda, 1e-12);
    assert!(report.converged);
    assert_eq!(report.pivots, 0);
    assert_eq!(lambda, [0.0; 2]);
    // One row: λ = b / a.
    let mut lambda = [0.0];
    let report = solve_active_set(&[3.0], &[6.0], &mut lambda, 1e-12);
    assert!(report.converged);
    assert!((lambda[0] - 2.0).abs() < 1e-15);
    // An empty problem.
    assert!(solve_active_set(&[], &[], &mut [], 1e-12).converged);
    // Infeasible: x ≥ 1 and −x ≥ 0 (rows c = 1 and c = −1, A = C Cᵀ).
    let mut lambda = [0.0; 2];
    let report = solve_active_set(&[1.0, -1.0, -1.0, 1.0], &[1.0, 0.0], &mut lambda, 1e-12);
    assert!(!report.converged, "{report:?}");
    assert!(lambda.iter().all(|&l| l >= 0.0));
    // A zero row asking for more than nothing can give: skipped.
    let mut lambda = [0.0; 2];
    let report = solve_active_set(&[1.0, 0.0, 0.0, 0.0], &[1.0, 1.0], &mut lambda, 1e-12);
    assert_eq!(report.skipped_rows, 1);
    assert_eq!(lambda[1], 0.0);
    assert!((lambda[0] - 1.0).abs() < 1e-15);
}
