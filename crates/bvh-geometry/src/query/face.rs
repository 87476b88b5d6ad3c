//! A triangle prepared for face queries (projection of a point, piercing by
//! a segment), with its conditioning.
//!
//! The plane of a triangle is only as well defined as the triangle is
//! thick. The normal is taken as the cross product of the two *shorter*
//! edges (the ones meeting at the largest angle), which is the best
//! conditioned choice; its direction is then accurate to about
//! `8ε·|e₁||e₂| / |e₁×e₂|` radians ([`Face::err_dir`]). A triangle whose
//! height over its longest edge is below [`REGULAR_MIN_ASPECT`] times that
//! edge is *irregular*: its face queries are skipped and callers use its
//! edges instead, which is exact up to that height ([`Face::height`]),
//! because every point of a triangle lies within its height of its longest
//! edge.

use glam::DVec3;

/// Smallest height / longest-edge ratio for which the face of a triangle is
/// used. At `√ε ≈ 1.5e-8` the two error sources (the direction error of the
/// normal, `≈ ε L / h`, and the height skipped by using the edges, `h`)
/// balance; below it the edges are the better answer.
pub(crate) const REGULAR_MIN_ASPECT: f64 = 1e-8;

#[derive(Debug, Clone, Copy)]
pub(crate) struct Face {
    /// The vertices as given.
    pub(crate) v: [DVec3; 3],
    /// Unnormalised normal (twice the area vector).
    n: DVec3,
    /// Unit normal (meaningful only when `regular`).
    pub(crate) n_hat: DVec3,
    /// Inward edge normals `n × (v[i+1] − v[i])`.
    m: [DVec3; 3],
    /// Whether the face queries are used (see the module docs).
    pub(crate) regular: bool,
    /// Estimated direction error of `n_hat`, radians.
    pub(crate) err_dir: f64,
    /// Height over the longest edge, `|n| / L`.
    pub(crate) height: f64,
    /// Longest edge length `L`.
    pub(crate) lmax: f64,
}

impl Face {
    #[inline]
    pub(crate) fn new(v: &[DVec3; 3]) -> Self {
        let e = [v[1] - v[0], v[2] - v[1], v[0] - v[2]];
        let l2 = [
            e[0].length_squared(),
            e[1].length_squared(),
            e[2].length_squared(),
        ];
        // Normal from the two edges meeting at the vertex opposite the
        // longest edge: e.g. longest `v0v1` → vertex `v2`, edges
        // `v0 − v2 = e[2]` and `v1 − v2 = −e[1]`. All three choices give the
        // same vector in exact arithmetic, `(v1 − v0) × (v2 − v0)`.
        let (n, short2) = if l2[0] >= l2[1] && l2[0] >= l2[2] {
            (e[2].cross(-e[1]), l2[1] * l2[2])
        } else if l2[1] >= l2[2] {
            (e[0].cross(-e[2]), l2[0] * l2[2])
        } else {
            (e[1].cross(-e[0]), l2[0] * l2[1])
        };
        let lmax2 = l2[0].max(l2[1]).max(l2[2]);
        let nn = n.length_squared();
        let len = nn.sqrt();
        let lmax = lmax2.sqrt();
        let regular = nn > REGULAR_MIN_ASPECT * REGULAR_MIN_ASPECT * lmax2 * lmax2
            && nn.is_finite()
            && nn > f64::MIN_POSITIVE;
        let n_hat = if regular { n / len } else { DVec3::ZERO };
        Self {
            v: *v,
            n,
            n_hat,
            m: [n.cross(e[0]), n.cross(e[1]), n.cross(e[2])],
            regular,
            err_dir: if regular {
                8.0 * f64::EPSILON * short2.sqrt() / len
            } else {
                0.0
            },
            height: if lmax > 0.0 { len / lmax } else { 0.0 },
            lmax,
        }
    }

    /// Signed distance of `x` from the plane (regular faces only).
    #[inline]
    pub(crate) fn signed_distance(&self, x: DVec3) -> f64 {
        self.n_hat.dot(x - self.v[0])
    }

    /// Estimated error of [`Face::signed_distance`] at `x`.
    #[inline]
    pub(crate) fn signed_distance_error(&self, x: DVec3) -> f64 {
        (self.err_dir + 4.0 * f64::EPSILON) * (x - self.v[0]).length()
    }

    /// Whether the orthogonal projection of `x` on the plane falls inside
    /// the triangle (boundary included).
    #[inline]
    pub(crate) fn inside(&self, x: DVec3) -> bool {
        self.m[0].dot(x - self.v[0]) >= 0.0
            && self.m[1].dot(x - self.v[1]) >= 0.0
            && self.m[2].dot(x - self.v[2]) >= 0.0
    }

    /// The orthogonal projection of `x` on the plane and the signed distance.
    #[inline]
    pub(crate) fn project(&self, x: DVec3) -> (DVec3, f64) {
        let sd = self.signed_distance(x);
        (x - self.n_hat * sd, sd)
    }

    /// The point where the segment `p`–`q` crosses the triangle's interior,
    /// when its end points are strictly on opposite sides of the plane.
    /// (End points on the plane are the vertex–face case.)
    #[inline]
    pub(crate) fn pierce(&self, p: DVec3, q: DVec3) -> Option<DVec3> {
        let dp = self.n.dot(p - self.v[0]);
        let dq = self.n.dot(q - self.v[0]);
        if (dp > 0.0 && dq < 0.0) || (dp < 0.0 && dq > 0.0) {
            let x = p + (q - p) * (dp / (dp - dq));
            self.inside(x).then_some(x)
        } else {
            None
        }
    }
}
