//! Segment–segment closest points (robust in the parallel, collinear and
//! zero-length cases).

use glam::DVec3;

use super::{SegmentClosestPoints, any_nan, clamp01};

/// A segment prepared for repeated queries: its direction and squared
/// length are computed once (a triangle's or rectangle's edges meet every
/// edge of the other shape).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Edge {
    pub(crate) p0: DVec3,
    pub(crate) p1: DVec3,
    d: DVec3,
    dd: f64,
    /// `1 / dd`, or 0 for a zero-length segment.
    inv: f64,
}

impl Edge {
    #[inline]
    pub(crate) fn new(p0: DVec3, p1: DVec3) -> Self {
        let d = p1 - p0;
        let dd = d.length_squared();
        Self {
            p0,
            p1,
            d,
            dd,
            inv: if dd > 0.0 { 1.0 / dd } else { 0.0 },
        }
    }

    /// The point at parameter `s`, exactly an end point at 0 and 1.
    #[inline]
    pub(crate) fn at(&self, s: f64) -> DVec3 {
        lerp_exact(self.p0, self.p1, s)
    }
}

/// Edge indices ordered by the distance of the edge's midpoint from `c`
/// (an insertion sort: `N` is 3 or 4).
#[inline]
pub(crate) fn nearest_first<const N: usize>(edges: &[Edge; N], c: DVec3) -> [usize; N] {
    let key = edges.map(|e| (e.p0 + e.p1 - 2.0 * c).length_squared());
    let mut order: [usize; N] = core::array::from_fn(|i| i);
    for i in 1..N {
        let mut j = i;
        while j > 0 && key[order[j]] < key[order[j - 1]] {
            order.swap(j, j - 1);
            j -= 1;
        }
    }
    order
}

/// The parameters `(s, t)` of a closest pair of points of two segments (the
/// method of [`closest_points_segment_segment`]); NaN input gives NaN-free
/// but meaningless parameters, so public callers check NaN first.
#[inline]
pub(crate) fn edge_params(x: &Edge, y: &Edge) -> (f64, f64) {
    let (d1, a, ia) = (x.d, x.dd, x.inv);
    let (d2, e, ie) = (y.d, y.dd, y.inv);
    let r = x.p0 - y.p0;
    let f = d2.dot(r);
    if !(a > 0.0) {
        return if e > 0.0 {
            (0.0, clamp01(f * ie))
        } else {
            (0.0, 0.0)
        };
    }
    let c = d1.dot(r);
    if !(e > 0.0) {
        return (clamp01(-c * ia), 0.0);
    }
    let b = d1.dot(d2);
    let d1p = d1 - d2 * (b * ie);
    let rp = r - d2 * (f * ie);
    let den = d1p.length_squared();
    let mut s = if den > 0.0 {
        clamp01(-rp.dot(d1p) / den)
    } else {
        0.0
    };
    let mut t = (b * s + f) * ie;
    if t < 0.0 {
        t = 0.0;
        s = clamp01(-c * ia);
    } else if t > 1.0 {
        t = 1.0;
        s = clamp01((b - c) * ia);
    } else if !(t >= 0.0) {
        t = 0.0;
    }
    (s, t)
}

/// The point at parameter `s` of the segment `a`–`b`, exactly `a` or `b` at
/// the ends.
#[inline]
pub(crate) fn lerp_exact(a: DVec3, b: DVec3, s: f64) -> DVec3 {
    if s <= 0.0 {
        a
    } else if s >= 1.0 {
        b
    } else {
        a + (b - a) * s
    }
}

/// Closest points of the segments `p0`–`p1` and `q0`–`q1`.
///
/// # Method
///
/// The closest points minimise the convex quadratic
/// `f(s, t) = |P(s) − Q(t)|²` over `[0, 1]²`. The unconstrained minimiser in
/// `s` is computed from the components of `d₁` and of `p₀ − q₀`
/// perpendicular to `d₂`, `s* = −(r⊥·d₁⊥) / |d₁⊥|²`: the perpendicular part
/// `d₁⊥` carries an absolute error of a few ulps of `|d₁|`, so for
/// nearly parallel segments `s*` is off only along the flat valley of `f`,
/// where an error costs nothing above rounding in distance (the textbook
/// `(bf − ce)/(ae − b²)` loses `1/sin²θ` instead). Then `s` is clamped, `t`
/// is the clamped projection of `P(s)`, and if `t` was clamped `s` is
/// re-projected from `Q(t)` (Ericson 2005, §5.1.9, whose case analysis makes
/// this exact for a convex `f`). Parallel segments (`d₁⊥ = 0`) start from
/// `s = 0`; the same steps then find a closest pair.
///
/// Exact up to rounding for every configuration: crossing, skew, parallel,
/// collinear and overlapping, and zero-length segments (points). For
/// parallel segments the closest pair is not unique and one of them is
/// returned. NaN input gives NaN distance, parameters and points (never a
/// panic).
///
/// ```
/// use armature_bvh_geometry::query::closest_points_segment_segment;
/// use glam::DVec3;
/// let c = closest_points_segment_segment(
///     DVec3::new(-1.0, 0.0, 0.0), DVec3::new(1.0, 0.0, 0.0),
///     DVec3::new(0.0, -1.0, 2.0), DVec3::new(0.0, 1.0, 2.0),
/// );
/// assert_eq!((c.distance, c.s, c.t), (2.0, 0.5, 0.5));
/// ```
#[must_use]
pub fn closest_points_segment_segment(
    p0: DVec3,
    p1: DVec3,
    q0: DVec3,
    q1: DVec3,
) -> SegmentClosestPoints {
    if any_nan(&[p0, p1, q0, q1]) {
        return SegmentClosestPoints {
            distance: f64::NAN,
            s: f64::NAN,
            t: f64::NAN,
            point_a: DVec3::NAN,
            point_b: DVec3::NAN,
        };
    }
    let (s, t) = edge_params(&Edge::new(p0, p1), &Edge::new(q0, q1));
    let point_a = lerp_exact(p0, p1, s);
    let point_b = lerp_exact(q0, q1, t);
    SegmentClosestPoints {
        distance: (point_a - point_b).length(),
        s,
        t,
        point_a,
        point_b,
    }
}

/// Distance between the segments `p0`–`p1` and `q0`–`q1` (NaN for NaN
/// input). See [`closest_points_segment_segment`].
#[inline]
#[must_use]
pub fn distance_segment_segment(p0: DVec3, p1: DVec3, q0: DVec3, q1: DVec3) -> f64 {
    closest_points_segment_segment(p0, p1, q0, q1).distance
}
