//! Shared fitting machinery: input validation, covariance (of points and,
//! area-weighted, of triangles), the symmetric 3×3 eigen decomposition behind
//! the principal axes, and the rounding allowances used by the transforms.

use glam::{DAffine3, DMat3, DVec2, DVec3};

use super::{FitError, MAX_COORDINATE};

/// `Ok` when `points` is non-empty and every coordinate is finite and within
/// [`MAX_COORDINATE`].
pub(crate) fn validate_points(points: &[DVec3]) -> Result<(), FitError> {
    if points.is_empty() {
        return Err(FitError::Empty);
    }
    match points.iter().position(|p| !in_range(*p)) {
        Some(index) => Err(FitError::InvalidPoint {
            index,
            point: points[index],
        }),
        None => Ok(()),
    }
}

/// As [`validate_points`], naming the offending triangle.
pub(crate) fn validate_triangles(triangles: &[[DVec3; 3]]) -> Result<(), FitError> {
    if triangles.is_empty() {
        return Err(FitError::Empty);
    }
    match triangles
        .iter()
        .position(|t| !t.iter().all(|p| in_range(*p)))
    {
        Some(index) => Err(FitError::InvalidTriangle {
            index,
            triangle: triangles[index],
        }),
        None => Ok(()),
    }
}

fn in_range(p: DVec3) -> bool {
    // Component-wise: a NaN compares false (whereas `max_element` would
    // skip it).
    p.abs().cmple(DVec3::splat(MAX_COORDINATE)).all()
}

/// Covariance of a point cloud (about its mean), as rows of a symmetric
/// matrix. The mean is accumulated relative to the first point so that a
/// cloud far from the origin does not lose its spread to cancellation.
pub(crate) fn covariance_points(points: &[DVec3]) -> [[f64; 3]; 3] {
    let o = points[0];
    let n = points.len() as f64;
    let mean = points.iter().fold(DVec3::ZERO, |s, p| s + (*p - o)) / n;
    let mut c = [[0.0; 3]; 3];
    for p in points {
        let d = *p - o - mean;
        add_outer(&mut c, d, d, 1.0 / n);
    }
    c
}

/// Area-weighted covariance of the surface of a triangle soup (Gottschalk
/// et al. 1996): each triangle contributes its exact second moment
/// `A/12 (Σ vᵢvᵢᵀ + 9 m mᵀ)` with `m` its centroid. When every triangle is
/// degenerate (total area zero) the covariance of the vertices is used.
pub(crate) fn covariance_triangles(triangles: &[[DVec3; 3]]) -> [[f64; 3]; 3] {
    let o = triangles[0][0];
    let mut second = [[0.0; 3]; 3];
    let mut first = DVec3::ZERO;
    let mut area = 0.0;
    for t in triangles {
        let (p, q, r) = (t[0] - o, t[1] - o, t[2] - o);
        let a = 0.5 * (q - p).cross(r - p).length();
        if !(a > 0.0) {
            continue;
        }
        let m = (p + q + r) / 3.0;
        let w = a / 12.0;
        add_outer(&mut second, p, p, w);
        add_outer(&mut second, q, q, w);
        add_outer(&mut second, r, r, w);
        add_outer(&mut second, m, m, 9.0 * w);
        first += a * m;
        area += a;
    }
    if !(area > 0.0) || !area.is_finite() {
        return covariance_points(triangles.as_flattened());
    }
    let mean = first / area;
    let mut c = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            c[i][j] = second[i][j] / area - mean[i] * mean[j];
        }
    }
    c
}

fn add_outer(c: &mut [[f64; 3]; 3], a: DVec3, b: DVec3, w: f64) {
    for i in 0..3 {
        for j in 0..3 {
            c[i][j] += w * a[i] * b[j];
        }
    }
}

/// Eigen decomposition of a symmetric 3×3 matrix by cyclic Jacobi rotations:
/// `(eigenvalues, eigenvectors)` with eigenvector `k` in `vectors[k]`. Jacobi
/// is slower than a closed form but accurate for repeated and zero
/// eigenvalues, which degenerate clouds (collinear, coplanar, a single
/// point) produce. The sweep count is bounded; non-finite input yields the
/// identity frame.
pub(crate) fn symmetric_eigen(m: [[f64; 3]; 3]) -> ([f64; 3], [DVec3; 3]) {
    let mut a = m;
    let mut v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let identity = ([a[0][0], a[1][1], a[2][2]], [DVec3::X, DVec3::Y, DVec3::Z]);
    if !a.iter().flatten().all(|x| x.is_finite()) {
        return identity;
    }
    // Cyclic Jacobi converges quadratically; 32 sweeps is far beyond what a
    // 3×3 matrix needs and bounds the loop.
    for _ in 0..32 {
        let off = a[0][1].abs() + a[0][2].abs() + a[1][2].abs();
        let diag = a[0][0].abs() + a[1][1].abs() + a[2][2].abs();
        if off <= f64::EPSILON * 1e-3 * diag || off == 0.0 {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            let apq = a[p][q];
            if apq == 0.0 {
                continue;
            }
            let theta = (a[q][q] - a[p][p]) / (2.0 * apq);
            let t = if theta.abs() > 1e150 {
                0.5 / theta
            } else {
                theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt())
            };
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            for k in 0..3 {
                let (akp, akq) = (a[k][p], a[k][q]);
                a[k][p] = c * akp - s * akq;
                a[k][q] = s * akp + c * akq;
            }
            for k in 0..3 {
                let (apk, aqk) = (a[p][k], a[q][k]);
                a[p][k] = c * apk - s * aqk;
                a[q][k] = s * apk + c * aqk;
            }
            for row in &mut v {
                let (vp, vq) = (row[p], row[q]);
                row[p] = c * vp - s * vq;
                row[q] = s * vp + c * vq;
            }
        }
    }
    let values = [a[0][0], a[1][1], a[2][2]];
    let vectors = [
        DVec3::new(v[0][0], v[1][0], v[2][0]),
        DVec3::new(v[0][1], v[1][1], v[2][1]),
        DVec3::new(v[0][2], v[1][2], v[2][2]),
    ];
    if values.iter().all(|x| x.is_finite()) && vectors.iter().all(|x| x.is_finite()) {
        (values, vectors)
    } else {
        identity
    }
}

/// The principal frame of a covariance matrix: columns sorted by decreasing
/// variance, orthonormal and right-handed in floating point.
pub(crate) fn principal_frame(cov: [[f64; 3]; 3]) -> DMat3 {
    let (values, vectors) = symmetric_eigen(cov);
    let mut order = [0, 1, 2];
    // Three elements: an insertion sort with plain comparisons (no NaN here,
    // and no `partial_cmp().unwrap()` to panic if one slipped in).
    for i in 1..3 {
        let mut j = i;
        while j > 0 && values[order[j]] > values[order[j - 1]] {
            order.swap(j, j - 1);
            j -= 1;
        }
    }
    orthonormal_frame(vectors[order[0]], vectors[order[1]])
}

/// A right-handed orthonormal frame whose first column is along `a` and
/// whose second lies in the plane of `a` and `b` (Gram–Schmidt, repeated once
/// for accuracy). Zero or parallel inputs fall back to any orthonormal
/// completion; non-finite input gives the identity.
pub(crate) fn orthonormal_frame(a: DVec3, b: DVec3) -> DMat3 {
    let Some(x) = a.try_normalize() else {
        return match b.try_normalize() {
            Some(y) => {
                let (z, x) = y.any_orthonormal_pair();
                DMat3::from_cols(x, y, z)
            }
            None => DMat3::IDENTITY,
        };
    };
    let y = {
        let y0 = b - x * x.dot(b);
        let y1 = y0 - x * x.dot(y0);
        match y1.try_normalize() {
            // Keep `b` only when it is not (nearly) parallel to `a`:
            // otherwise its perpendicular part is rounding noise.
            Some(y) if y0.length_squared() > 1e-20 * b.length_squared() => y,
            _ => x.any_orthonormal_pair().0,
        }
    };
    let z = x.cross(y).normalize();
    DMat3::from_cols(x, y, z)
}

/// Upper bound on the spectral norm ‖M‖₂ of the linear part of an affine
/// map: `λ_max(MᵀM) ≤ ‖MᵀM‖_∞` (Gershgorin), widened for the rounding of
/// `MᵀM`. Equals 1 to within a few ulps for a rotation.
pub(crate) fn spectral_norm_bound(m: DMat3) -> f64 {
    let g = m.transpose() * m;
    let rows = [g.row(0), g.row(1), g.row(2)];
    let inf_norm = rows
        .iter()
        .map(|r| r.abs().element_sum())
        .fold(0.0, f64::max);
    (inf_norm * (1.0 + 16.0 * f64::EPSILON)).sqrt() * (1.0 + 4.0 * f64::EPSILON)
}

/// The smallest positive subnormal, `2⁻¹⁰⁷⁴`: an upper bound on the
/// absolute error of a product that underflows.
pub(crate) const TINY: f64 = f64::from_bits(1);

/// Upper bound `δ` on `‖AᵀA − I‖∞` (largest absolute row sum) for the exact
/// matrix `a`. `AᵀA` is computed in round-to-nearest: each entry is off by
/// at most `γ₃ ‖aᵢ‖ ‖aⱼ‖ ≤ 3.1 u (1 + δ)`, a row sum by three of those and
/// its own roundings, which the widening below covers with room to spare
/// (`ε = 2u`).
pub(crate) fn orthonormality_defect(a: DMat3) -> f64 {
    let g = a.transpose() * a;
    let mut d = 0.0_f64;
    for i in 0..3 {
        let r = g.row(i);
        let mut s = 0.0;
        for j in 0..3 {
            s += (r[j] - if i == j { 1.0 } else { 0.0 }).abs();
        }
        d = d.max(s);
    }
    (d * (1.0 + 4.0 * f64::EPSILON) + 8.0 * f64::EPSILON * (1.0 + d)).next_up()
}

/// Upper bound on `‖(AᵀA)⁻¹ − I‖∞ ≤ δ / (1 − δ)`: how far the exact
/// coordinates `A⁻¹(p − c)` of a point in a nearly orthonormal frame can be
/// from its projections `Aᵀ(p − c)`, relative to their largest magnitude.
/// Infinite when `δ ≥ 1/2` (not a frame these fits produce).
pub(crate) fn inverse_defect(a: DMat3) -> f64 {
    let d = orthonormality_defect(a);
    if d < 0.5 {
        (d / (1.0 - d) * (1.0 + 4.0 * f64::EPSILON)).next_up()
    } else {
        f64::INFINITY
    }
}

/// Upper bound on `|a − b|`: the rounded difference, one ulp up unless it
/// was exact (TwoSum's error term is then zero).
pub(crate) fn abs_diff_up(a: f64, b: f64) -> f64 {
    let d = a - b;
    let bb = d - a;
    let err = (a - (d - bb)) + (-b - bb);
    if err == 0.0 {
        d.abs()
    } else {
        d.abs().next_up()
    }
}

/// Rounding allowance of an affine image of a volume with centre `c` and
/// extent (radius-like) `r`: a few ulps of the largest magnitude that enters
/// `M p + t`, so points mapped by `DAffine3::transform_point3` stay inside.
pub(crate) fn transform_slack(m: &DAffine3, c: DVec3, r: f64) -> f64 {
    let mag = m.matrix3.abs() * (c.abs() + DVec3::splat(r.abs()));
    16.0 * f64::EPSILON * (mag.max_element() + m.translation.abs().max_element())
}

/// Candidate frames for a tight box around `points`, beyond the principal
/// frame `principal`: the mesh's own axes, and for each principal axis `u`
/// the frame with `u` fixed that fits the points' projections on the plane
/// across `u` with the rectangle of least area (an edge of the
/// projections' convex hull lies on a side of that rectangle; the hull's
/// edges are tried). Every frame is orthonormal to rounding
/// ([`orthonormal_frame`]). Measured on the penetration-depth suite, the
/// mesh's axes fixed in turn as well gave under 1 % fewer instructions
/// per query, for twice the build time.
pub(crate) fn tight_frame_candidates(points: &[DVec3], principal: DMat3) -> Vec<DMat3> {
    let mut out = vec![DMat3::IDENTITY];
    let mut plane = Vec::with_capacity(points.len());
    let mut hull = Vec::new();
    for u in [principal.x_axis, principal.y_axis, principal.z_axis] {
        let frame = orthonormal_frame(u, u.any_orthonormal_pair().0);
        let (a, b) = (frame.y_axis, frame.z_axis);
        plane.clear();
        plane.extend(points.iter().map(|p| DVec2::new(p.dot(a), p.dot(b))));
        convex_hull_2d(&mut plane, &mut hull);
        if let Some(dir) = min_area_rectangle_direction(&hull) {
            // The rectangle's side along `dir` (plane coordinates).
            out.push(orthonormal_frame(a * dir.x + b * dir.y, u));
        }
    }
    out
}

/// The convex hull of `points` (reordered), counter-clockwise without
/// collinear points (Andrew's monotone chain), into `hull`.
fn convex_hull_2d(points: &mut [DVec2], hull: &mut Vec<DVec2>) {
    hull.clear();
    points.sort_by(|p, q| p.x.total_cmp(&q.x).then(p.y.total_cmp(&q.y)));
    let cross = |o: DVec2, a: DVec2, b: DVec2| (a - o).perp_dot(b - o);
    for &p in points.iter() {
        while hull.len() >= 2 && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0 {
            hull.pop();
        }
        hull.push(p);
    }
    let lower = hull.len() + 1;
    for &p in points.iter().rev().skip(1) {
        while hull.len() >= lower && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0 {
            hull.pop();
        }
        hull.push(p);
    }
    hull.pop();
}

/// Most hull vertices whose edges are all tried: past this, every
/// `len / MAX_RECTANGLE_EDGES`-th edge.
const MAX_RECTANGLE_EDGES: usize = 64;

/// The unit direction of an edge of `hull` along which the bounding
/// rectangle of `hull` has the least area; `None` for fewer than three
/// vertices.
fn min_area_rectangle_direction(hull: &[DVec2]) -> Option<DVec2> {
    if hull.len() < 3 {
        return None;
    }
    let stride = hull.len().div_ceil(MAX_RECTANGLE_EDGES);
    let mut best: Option<(f64, DVec2)> = None;
    for i in (0..hull.len()).step_by(stride) {
        let Some(e) = (hull[(i + 1) % hull.len()] - hull[i]).try_normalize() else {
            continue;
        };
        let n = e.perp();
        let (mut lo, mut hi) = (DVec2::INFINITY, DVec2::NEG_INFINITY);
        for p in hull {
            let c = DVec2::new(p.dot(e), p.dot(n));
            lo = lo.min(c);
            hi = hi.max(c);
        }
        let area = (hi - lo).x * (hi - lo).y;
        if best.is_none_or(|(a, _)| area < a) {
            best = Some((area, e));
        }
    }
    best.map(|(_, e)| e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jacobi_reconstructs_a_symmetric_matrix() {
        let m = [[4.0, 1.0, -2.0], [1.0, 3.0, 0.5], [-2.0, 0.5, 1.0]];
        let (l, v) = symmetric_eigen(m);
        for i in 0..3 {
            for j in 0..3 {
                let r: f64 = (0..3).map(|k| l[k] * v[k][i] * v[k][j]).sum();
                assert!((r - m[i][j]).abs() < 1e-12, "{i}{j}: {r} vs {}", m[i][j]);
            }
        }
        for k in 0..3 {
            assert!((v[k].length() - 1.0).abs() < 1e-14);
        }
    }

    #[test]
    fn frame_is_orthonormal_for_degenerate_input() {
        for (a, b) in [
            (DVec3::X, DVec3::X),
            (DVec3::ZERO, DVec3::ZERO),
            (DVec3::ZERO, DVec3::Y),
            (DVec3::new(1.0, 1e-20, 0.0), DVec3::X),
            (DVec3::NAN, DVec3::X),
        ] {
            let f = orthonormal_frame(a, b);
            let g = f.transpose() * f;
            assert!(g.abs_diff_eq(DMat3::IDENTITY, 1e-15), "{a} {b}: {f}");
            assert!((f.determinant() - 1.0).abs() < 1e-15);
        }
    }

    #[test]
    fn spectral_bound_is_tight_for_rotations() {
        let r = DMat3::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), 0.7);
        let s = spectral_norm_bound(r);
        assert!((1.0..1.0 + 1e-14).contains(&s), "{s}");
        assert!(spectral_norm_bound(r * 3.0) >= 3.0);
    }
}
