//! GJK simplices, the warm-start cache and the signed-volumes sub-distance
//! algorithm (Montanari, Petrinic & Barbieri 2017, §3, Algorithms 2–4).
//!
//! The sub-distance step finds the point of a simplex (1 to 4 points of the
//! Minkowski difference) nearest to the origin and the smallest face that
//! holds it. Signed volumes decide the Voronoi region from the signs of
//! barycentric cofactors computed on the best-conditioned projection (the
//! axis of the longest edge extent, the plane of the largest projected
//! area), instead of Johnson's nested determinants, which lose the region
//! on nearly degenerate simplices. Inside a segment or triangle the nearest
//! point is the origin's projection, computed from error-compensated cross
//! products ([`cross_acc`]) rather than as `Σ λᵢ wᵢ`, so its direction stays
//! accurate when it is tiny next to the simplex points (touching shapes far
//! from the origin). Degenerate simplices (coincident,
//! collinear or coplanar points) fall through to all of their faces, so
//! the answer is always a convex combination of the simplex points.

use glam::DVec3;

/// One vertex of a GJK simplex: the support points on both cores and the
/// direction that produced them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Vertex {
    /// `a − b`, a point of the Minkowski difference of the cores.
    pub(crate) w: DVec3,
    /// Support point of core `a` in direction `dir`.
    pub(crate) a: DVec3,
    /// Support point of core `b` in direction `−dir`.
    pub(crate) b: DVec3,
    /// The direction.
    pub(crate) dir: DVec3,
}

/// The simplex GJK ended on: up to four vertices with their barycentric
/// weights. The nearest point of the Minkowski difference found is
/// `Σ λᵢ (aᵢ − bᵢ)`, the witness points `Σ λᵢ aᵢ` and `Σ λᵢ bᵢ` on the
/// cores.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GjkSimplex {
    pub(crate) vertices: [Vertex; 4],
    pub(crate) lambda: [f64; 4],
    pub(crate) len: usize,
}

impl GjkSimplex {
    /// Number of vertices (0 to 4; 4 means the origin is inside: the cores
    /// intersect).
    #[must_use]
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether the simplex has no vertex.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The support points on the core of shape `a`.
    pub fn points_a(&self) -> impl ExactSizeIterator<Item = DVec3> + '_ {
        self.vertices[..self.len].iter().map(|v| v.a)
    }

    /// The support points on the core of shape `b`.
    pub fn points_b(&self) -> impl ExactSizeIterator<Item = DVec3> + '_ {
        self.vertices[..self.len].iter().map(|v| v.b)
    }

    /// The support directions: vertex `i` is `a.core_support(dᵢ)` and
    /// `b.core_support(−dᵢ)`.
    pub fn directions(&self) -> impl ExactSizeIterator<Item = DVec3> + '_ {
        self.vertices[..self.len].iter().map(|v| v.dir)
    }

    /// The barycentric weights (non-negative, summing to 1 up to rounding).
    #[must_use]
    pub fn weights(&self) -> &[f64] {
        &self.lambda[..self.len]
    }

    /// Appends `v`; callers never push onto a full simplex (a reduced
    /// simplex of 4 vertices encloses the origin and ends the query), and a
    /// push onto one is ignored rather than indexing out of bounds.
    pub(crate) fn push(&mut self, v: Vertex) {
        debug_assert!(self.len < 4);
        if self.len < 4 {
            self.vertices[self.len] = v;
            self.len += 1;
        }
    }

    /// `Σ λᵢ aᵢ` and `Σ λᵢ bᵢ`.
    pub(crate) fn witnesses(&self) -> (DVec3, DVec3) {
        let mut pa = DVec3::ZERO;
        let mut pb = DVec3::ZERO;
        for (v, &l) in self.vertices[..self.len].iter().zip(&self.lambda) {
            pa += v.a * l;
            pb += v.b * l;
        }
        (pa, pb)
    }

    /// Reduces the simplex to the smallest face holding the point nearest
    /// the origin and returns that point (the origin itself when the
    /// simplex is a tetrahedron enclosing it).
    pub(crate) fn reduce(&mut self) -> DVec3 {
        let mut w = [DVec3::ZERO; 4];
        for (wi, v) in w.iter_mut().zip(&self.vertices[..self.len]) {
            *wi = v.w;
        }
        let sub = match self.len {
            0 => return DVec3::NAN,
            1 => Sub::vertex(&w, 0),
            2 => s1d(&w, 0, 1),
            3 => s2d(&w, [0, 1, 2]),
            _ => s3d(&w),
        };
        let old = self.vertices;
        for k in 0..sub.n {
            self.vertices[k] = old[sub.idx[k]];
            self.lambda[k] = sub.lambda[k];
        }
        self.len = sub.n;
        sub.v
    }
}

/// Warm-start state of a pair: the support directions of the last simplex
/// (M3: "warm-started from the previous cycle's closest features or
/// simplex").
///
/// Only directions are kept, never points: a warm start evaluates the
/// current shapes' supports in these directions, so the initial simplex
/// consists of true points of the current Minkowski difference and the
/// answer is as valid as a cold start's whatever the shapes did since.
/// An empty cache is a cold start. Fixed size, no allocation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GjkCache {
    pub(crate) dirs: [DVec3; 4],
    pub(crate) len: usize,
}

impl GjkCache {
    /// An empty cache (the first query is a cold start).
    #[must_use]
    pub const fn new() -> Self {
        Self {
            dirs: [DVec3::ZERO; 4],
            len: 0,
        }
    }

    /// Forgets the stored simplex.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Whether nothing is stored.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The stored support directions.
    #[must_use]
    pub fn directions(&self) -> &[DVec3] {
        &self.dirs[..self.len]
    }

    /// Stores the directions of `simplex` (non-finite and zero directions
    /// are skipped).
    pub fn store(&mut self, simplex: &GjkSimplex) {
        self.len = 0;
        for d in simplex.directions() {
            if d.is_finite() && d != DVec3::ZERO {
                self.dirs[self.len] = d;
                self.len += 1;
            }
        }
    }
}

impl From<&GjkSimplex> for GjkCache {
    fn from(simplex: &GjkSimplex) -> Self {
        let mut c = Self::new();
        c.store(simplex);
        c
    }
}

/// A candidate face: indices into the simplex, weights, nearest point.
#[derive(Clone, Copy, Debug)]
struct Sub {
    n: usize,
    idx: [usize; 4],
    lambda: [f64; 4],
    v: DVec3,
}

impl Sub {
    fn vertex(w: &[DVec3; 4], i: usize) -> Self {
        Self {
            n: 1,
            idx: [i, 0, 0, 0],
            lambda: [1.0, 0.0, 0.0, 0.0],
            v: w[i],
        }
    }

    /// The candidate nearer the origin (`self` on ties).
    fn nearer(self, other: Self) -> Self {
        if other.v.length_squared() < self.v.length_squared() {
            other
        } else {
            self
        }
    }
}

/// `a` and `b` are both strictly positive or both strictly negative
/// (Montanari et al.'s `compareSigns`; a zero never matches, so a face
/// with a zero weight is dropped for the smaller face).
fn same_sign(a: f64, b: f64) -> bool {
    (a > 0.0 && b > 0.0) || (a < 0.0 && b < 0.0)
}

/// Index of the component of largest magnitude.
fn max_axis(v: DVec3) -> usize {
    let a = v.abs();
    if a.x >= a.y && a.x >= a.z {
        0
    } else if a.y >= a.z {
        1
    } else {
        2
    }
}

/// `a·b − c·d` to within about one ulp of the result (Kahan's algorithm
/// with fused multiply-adds), where the plain expression loses all relative
/// accuracy to cancellation.
fn diff_of_products(a: f64, b: f64, c: f64, d: f64) -> f64 {
    let cd = c * d;
    let err = (-c).mul_add(d, cd);
    a.mul_add(b, -cd) + err
}

/// `u × v` with every component accurate to about one ulp
/// ([`diff_of_products`]).
///
/// The nearest point of a segment or triangle is formed from cross
/// products; when it is much closer to the origin than the simplex points
/// are, plain products leave its *direction* wrong by `ε|w|/|v|`, and the
/// duality bound `(v·w)/|v|` then stalls far below `|v|`. With accurate
/// components the direction is right to a few ulps and the bound closes to
/// `O(ε|w|)`.
fn cross_acc(u: DVec3, v: DVec3) -> DVec3 {
    DVec3::new(
        diff_of_products(u.y, v.z, u.z, v.y),
        diff_of_products(u.z, v.x, u.x, v.z),
        diff_of_products(u.x, v.y, u.y, v.x),
    )
}

/// Segment `w[i] w[j]` (Algorithm 4): barycentric cofactors of the
/// origin's projection on the coordinate axis where the segment is
/// longest.
fn s1d(w: &[DVec3; 4], i: usize, j: usize) -> Sub {
    let (p, q) = (w[i], w[j]);
    let t = q - p;
    let tt = t.length_squared();
    let k = max_axis(t);
    if tt > 0.0 {
        // p − t (p·t)/|t|² = t × (p × t)/|t|², the origin's projection.
        let p0 = cross_acc(t, cross_acc(p, t)) / tt;
        let c_p = q[k] - p0[k];
        let c_q = p0[k] - p[k];
        let mu = c_p + c_q;
        if same_sign(mu, c_p) && same_sign(mu, c_q) {
            let (lp, lq) = (c_p / mu, c_q / mu);
            return Sub {
                n: 2,
                idx: [i, j, 0, 0],
                lambda: [lp, lq, 0.0, 0.0],
                v: p0,
            };
        }
    }
    Sub::vertex(w, i).nearer(Sub::vertex(w, j))
}

/// Twice the signed area of the 2-D triangle `(a, b, c)`.
fn area2(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> f64 {
    (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
}

/// Triangle `w[ids]` (Algorithm 3): project onto the coordinate plane of
/// largest projected area, take the signed sub-areas of the origin's
/// projection as barycentric cofactors; outside, recurse into the edges
/// facing the origin.
fn s2d(w: &[DVec3; 4], ids: [usize; 3]) -> Sub {
    let [a, b, c] = ids.map(|i| w[i]);
    let n = cross_acc(b - a, c - a);
    let nn = n.length_squared();
    let edges = [(1, 2), (2, 0), (0, 1)];
    let mut inside_possible = nn > 0.0;
    let mut cof = [0.0; 3];
    let mut mu = 0.0;
    let mut p0 = DVec3::ZERO;
    if inside_possible {
        p0 = n * (a.dot(n) / nn);
        // Drop the axis of the largest |n_k|; the other two in cyclic order
        // keep the projected orientation equal to sign(n_k).
        let k = max_axis(n);
        let (x, y) = ((k + 1) % 3, (k + 2) % 3);
        let pr = |v: DVec3| [v[x], v[y]];
        let (a2, b2, c2, p2) = (pr(a), pr(b), pr(c), pr(p0));
        cof = [area2(p2, b2, c2), area2(a2, p2, c2), area2(a2, b2, p2)];
        mu = cof[0] + cof[1] + cof[2];
        inside_possible = cof.iter().all(|&c| same_sign(mu, c));
    }
    if inside_possible {
        let l = cof.map(|c| c / mu);
        return Sub {
            n: 3,
            idx: [ids[0], ids[1], ids[2], 0],
            lambda: [l[0], l[1], l[2], 0.0],
            v: p0,
        };
    }
    let mut best: Option<Sub> = None;
    for (m, &(e0, e1)) in edges.iter().enumerate() {
        // A degenerate triangle (mu = 0 or nn = 0) tries every edge.
        if mu != 0.0 && same_sign(mu, cof[m]) {
            continue;
        }
        let cand = s1d(w, ids[e0], ids[e1]);
        best = Some(best.map_or(cand, |b| b.nearer(cand)));
    }
    best.unwrap_or_else(|| Sub::vertex(w, ids[0]))
}

/// `(b − a) · ((c − a) × (d − a))`: six times the signed volume.
fn vol(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> f64 {
    (b - a).dot((c - a).cross(d - a))
}

/// Tetrahedron `w` (Algorithm 2): the signed volumes with the origin in
/// place of each vertex are the barycentric cofactors; outside, recurse
/// into the faces facing the origin.
fn s3d(w: &[DVec3; 4]) -> Sub {
    let o = DVec3::ZERO;
    let cof = [
        vol(o, w[1], w[2], w[3]),
        vol(w[0], o, w[2], w[3]),
        vol(w[0], w[1], o, w[3]),
        vol(w[0], w[1], w[2], o),
    ];
    let det = cof[0] + cof[1] + cof[2] + cof[3];
    if cof.iter().all(|&c| same_sign(det, c)) {
        let l = cof.map(|c| c / det);
        return Sub {
            n: 4,
            idx: [0, 1, 2, 3],
            lambda: l,
            v: DVec3::ZERO,
        };
    }
    let faces = [[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]];
    let mut best: Option<Sub> = None;
    for (m, face) in faces.into_iter().enumerate() {
        if det != 0.0 && same_sign(det, cof[m]) {
            continue;
        }
        let cand = s2d(w, face);
        best = Some(best.map_or(cand, |b| b.nearer(cand)));
    }
    best.unwrap_or_else(|| Sub::vertex(w, 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn simplex(points: &[DVec3]) -> GjkSimplex {
        let mut s = GjkSimplex::default();
        for &p in points {
            s.push(Vertex {
                w: p,
                a: p,
                b: DVec3::ZERO,
                dir: -p,
            });
        }
        s
    }

    #[test]
    fn segment_regions() {
        let mut s = simplex(&[DVec3::new(-1.0, 1.0, 0.0), DVec3::new(1.0, 1.0, 0.0)]);
        assert_eq!(s.reduce(), DVec3::Y);
        assert_eq!(s.len(), 2);
        let mut s = simplex(&[DVec3::new(1.0, 1.0, 0.0), DVec3::new(2.0, 1.0, 0.0)]);
        assert_eq!(s.reduce(), DVec3::new(1.0, 1.0, 0.0));
        assert_eq!(s.len(), 1);
        let mut s = simplex(&[DVec3::X, DVec3::X]);
        assert_eq!(s.reduce(), DVec3::X);
        assert_eq!(s.len(), 1);
    }

    #[test]
    fn triangle_and_tetrahedron_regions() {
        let tri = [
            DVec3::new(-1.0, -1.0, 1.0),
            DVec3::new(1.0, -1.0, 1.0),
            DVec3::new(0.0, 1.0, 1.0),
        ];
        let mut s = simplex(&tri);
        assert!((s.reduce() - DVec3::Z).length() < 1e-15);
        assert_eq!(s.len(), 3);
        let mut t = simplex(&[tri[0], tri[1], tri[2], DVec3::new(0.0, 0.0, -1.0)]);
        assert_eq!(t.reduce(), DVec3::ZERO);
        assert_eq!(t.len(), 4);
        assert!((t.weights().iter().sum::<f64>() - 1.0).abs() < 1e-15);
        // Flat tetrahedron away from the origin: nearest point on a face.
        let mut f = simplex(&[tri[0], tri[1], tri[2], DVec3::new(0.0, 0.0, 1.0)]);
        assert!((f.reduce() - DVec3::Z).length() < 1e-15);
        // Collinear triangle.
        let mut c = simplex(&[
            DVec3::new(-1.0, 1.0, 0.0),
            DVec3::Y,
            DVec3::new(1.0, 1.0, 0.0),
        ]);
        assert!((c.reduce() - DVec3::Y).length() < 1e-15);
    }
}
