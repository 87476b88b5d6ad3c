//! Bounding sphere: minimal enclosing sphere by Welzl's algorithm.

use glam::{DAffine3, DVec3};

use super::{FitError, fit};

/// A ball `{p : |p − center| ≤ radius}`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sphere {
    /// Centre.
    pub center: DVec3,
    /// Radius (≥ 0).
    pub radius: f64,
}

impl Sphere {
    /// A ball from its centre and radius.
    #[must_use]
    pub const fn new(center: DVec3, radius: f64) -> Self {
        Self { center, radius }
    }

    /// The minimal enclosing sphere of the points (Welzl 1991, iterative
    /// move-to-front form over a deterministically shuffled copy; expected
    /// linear time). Degenerate support sets (collinear triples, coplanar
    /// quadruples) fall back to the smallest sphere of a subset that holds
    /// them all. Afterwards the radius is raised to the largest distance from
    /// the centre to a point, computed as `contains_point` computes it, so
    /// every point is contained exactly; the radius exceeds the minimal one
    /// by rounding only.
    ///
    /// # Errors
    /// [`FitError`] for an empty slice or an invalid coordinate.
    pub fn from_points(points: &[DVec3]) -> Result<Self, FitError> {
        fit::validate_points(points)?;
        let mut pts = points.to_vec();
        shuffle(&mut pts);
        let s = welzl(&pts);
        Ok(Self::new(s.center, 0.0).grown_to_hold(points))
    }

    /// The minimal enclosing sphere of the triangles' vertices (hence of the
    /// triangles).
    ///
    /// # Errors
    /// [`FitError`] for an empty slice or an invalid coordinate.
    pub fn from_triangles(triangles: &[[DVec3; 3]]) -> Result<Self, FitError> {
        fit::validate_triangles(triangles)?;
        Self::from_points(triangles.as_flattened())
    }

    /// The same centre, with the radius raised (never lowered) until every
    /// point is contained in floating point.
    #[must_use]
    pub fn grown_to_hold(&self, points: &[DVec3]) -> Self {
        let r = points
            .iter()
            .fold(self.radius, |r, p| r.max(self.distance_to_center(*p)));
        Self::new(self.center, r)
    }

    /// `|p − center|`, the arithmetic `contains_point` uses.
    #[inline]
    fn distance_to_center(&self, p: DVec3) -> f64 {
        (p - self.center).length()
    }

    /// Whether `p` is inside or on the boundary (no tolerance; `false` for
    /// NaN).
    #[must_use]
    pub fn contains_point(&self, p: DVec3) -> bool {
        self.distance_to_center(p) <= self.radius
    }

    /// Distance between the balls (0 when they overlap); see
    /// [`crate::query::distance_sphere_sphere`].
    #[must_use]
    pub fn distance(&self, other: &Self) -> f64 {
        crate::query::distance_sphere_sphere(self, other)
    }

    /// A ball enclosing the image under `m`: the centre is mapped, the
    /// radius scaled by an upper bound on the spectral norm of `m`'s linear
    /// part (1 for a rotation) and widened by a rounding allowance.
    #[must_use]
    pub fn transform(&self, m: &DAffine3) -> Self {
        let r = self.radius * fit::spectral_norm_bound(m.matrix3);
        Self::new(
            m.transform_point3(self.center),
            r + fit::transform_slack(m, self.center, self.radius),
        )
    }
}

/// A deterministic Fisher–Yates shuffle (xorshift64*): Welzl's expected
/// linear time needs a random order, and a fixed seed keeps fits
/// reproducible.
fn shuffle(pts: &mut [DVec3]) {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in (1..pts.len()).rev() {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        let r = state.wrapping_mul(0x2545_F491_4F6C_DD1D);
        // `i + 1 ≤ len` fits in u64 and the remainder is ≤ i.
        let j = (r % (i as u64 + 1)) as usize;
        pts.swap(i, j);
    }
}

/// Relative slack of the "outside" test inside Welzl: points on the boundary
/// up to rounding do not trigger a rebuild from a degenerate support set.
/// The final `grown_to_hold` restores exact containment.
const OUTSIDE_REL: f64 = 1e-12;

fn outside(s: &Sphere, p: DVec3) -> bool {
    (p - s.center).length() > s.radius * (1.0 + OUTSIDE_REL) + 1e-300
}

fn welzl(pts: &[DVec3]) -> Sphere {
    let mut s = Sphere::new(pts[0], 0.0);
    for i in 1..pts.len() {
        if !outside(&s, pts[i]) {
            continue;
        }
        s = Sphere::new(pts[i], 0.0);
        for j in 0..i {
            if !outside(&s, pts[j]) {
                continue;
            }
            s = sphere2(pts[i], pts[j]);
            for k in 0..j {
                if !outside(&s, pts[k]) {
                    continue;
                }
                s = sphere3(pts[i], pts[j], pts[k]);
                for l in 0..k {
                    if outside(&s, pts[l]) {
                        s = sphere4(pts[i], pts[j], pts[k], pts[l]);
                    }
                }
            }
        }
    }
    s
}

fn sphere2(a: DVec3, b: DVec3) -> Sphere {
    let c = 0.5 * (a + b);
    Sphere::new(c, (a - c).length().max((b - c).length()))
}

/// Smallest sphere through `a`, `b`, `c` (their circumcircle); for a
/// (nearly) collinear triple, the smallest diametral sphere of a pair that
/// holds all three.
fn sphere3(a: DVec3, b: DVec3, c: DVec3) -> Sphere {
    let (ab, ac) = (b - a, c - a);
    let n = ab.cross(ac);
    let nn = n.length_squared();
    if nn > 1e-20 * ab.length_squared() * ac.length_squared() {
        let o =
            (ac.length_squared() * n.cross(ab) + ab.length_squared() * ac.cross(n)) / (2.0 * nn);
        if o.is_finite() {
            let center = a + o;
            return hold(Sphere::new(center, 0.0), &[a, b, c]);
        }
    }
    best_of([sphere2(a, b), sphere2(a, c), sphere2(b, c)].map(|s| hold(s, &[a, b, c])))
}

/// Circumsphere of four points; for a (nearly) coplanar quadruple, the
/// smallest circumcircle sphere of a triple that holds all four.
fn sphere4(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> Sphere {
    let (u, v, w) = (b - a, c - a, d - a);
    let det = u.dot(v.cross(w));
    let scale = u.length() * v.length() * w.length();
    if det.abs() > 1e-10 * scale {
        // Solve 2 [u v w]ᵀ x = (|u|², |v|², |w|²) by Cramer's rule.
        let x = (u.length_squared() * v.cross(w)
            + v.length_squared() * w.cross(u)
            + w.length_squared() * u.cross(v))
            / (2.0 * det);
        if x.is_finite() {
            return hold(Sphere::new(a + x, 0.0), &[a, b, c, d]);
        }
    }
    let all = [a, b, c, d];
    best_of([
        hold(sphere3(a, b, c), &all),
        hold(sphere3(a, b, d), &all),
        hold(sphere3(a, c, d), &all),
        hold(sphere3(b, c, d), &all),
    ])
}

fn hold(s: Sphere, pts: &[DVec3]) -> Sphere {
    s.grown_to_hold(pts)
}

fn best_of<const N: usize>(candidates: [Sphere; N]) -> Sphere {
    let mut best = candidates[0];
    for s in candidates {
        if s.radius < best.radius {
            best = s;
        }
    }
    best
}
