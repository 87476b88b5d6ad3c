//! Independent geometry of the oracle: exact orientation predicates, the
//! triangle–triangle intersection test built on them, triangle–triangle
//! distances, closed-mesh checks, containment, and the mesh–mesh query
//! that runs over every triangle pair (a bounding-box prefilter per mesh,
//! no hierarchy). Nothing here calls `armature-bvh-geometry`'s queries, so
//! a bug there cannot hide from an oracle in [`Mode::Independent`].
//!
//! # Predicates
//!
//! [`orient3d`] and [`orient2d`] return the exact sign of their
//! determinant for any finite `f64` input. The floating-point value is
//! trusted when its magnitude exceeds Shewchuk's forward error bound
//! ("Adaptive precision floating-point arithmetic and fast robust
//! geometric predicates", 1997: `(7 + 56ε)ε` times the permanent for
//! `orient3d`, `(3 + 16ε)ε` times the sum of the two products for
//! `orient2d`, `ε = 2⁻⁵³`); the bound assumes no underflow, so a permanent
//! below `10⁻²⁷⁰` (or an overflowing one) goes to the fallback, and the
//! value must also clear an absolute `10⁻³⁰⁰`, far above what the few
//! operations could lose to gradual underflow (`2⁻¹⁰⁷⁴` each). The
//! fallback evaluates the same polynomial exactly in integers: every
//! coordinate is an integer multiple of `2^e_min` (the smallest exponent
//! among the inputs), so the determinant is an integer whose sign
//! [`Big`] arithmetic gives exactly.
//!
//! [`Mode::Independent`]: super::Mode::Independent

use std::collections::HashMap;

use glam::DVec3;

/// `ε = 2⁻⁵³`, the unit roundoff of `f64`.
const EPS: f64 = 1.0 / 9_007_199_254_740_992.0;

/// Shewchuk's `o3derrboundA`.
const O3D_BOUND: f64 = (7.0 + 56.0 * EPS) * EPS;

/// Shewchuk's `ccwerrboundA`.
const O2D_BOUND: f64 = (3.0 + 16.0 * EPS) * EPS;

/// Below this permanent the error bound's no-underflow premise may fail.
const TINY: f64 = 1.0e-270;

/// Absolute allowance for gradual underflow in the filtered evaluation.
const UNDERFLOW: f64 = 1.0e-300;

/// A signed integer of any size (little-endian 32-bit limbs, no trailing
/// zero limbs; zero has none). Only what the exact fallback needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Big {
    neg: bool,
    mag: Vec<u32>,
}

impl Big {
    /// Zero.
    pub(crate) const fn zero() -> Self {
        Self {
            neg: false,
            mag: Vec::new(),
        }
    }

    /// `m · 2^shift`, negated when `neg`.
    fn from_parts(neg: bool, m: u64, shift: u32) -> Self {
        let mut mag = vec![0u32; (shift / 32) as usize];
        let bits = shift % 32;
        let wide = u128::from(m) << bits;
        for k in 0..4 {
            mag.push((wide >> (32 * k)) as u32);
        }
        let mut b = Self { neg, mag };
        b.trim();
        b
    }

    fn trim(&mut self) {
        while self.mag.last() == Some(&0) {
            self.mag.pop();
        }
        if self.mag.is_empty() {
            self.neg = false;
        }
    }

    /// `-1`, `0` or `1`.
    pub(crate) fn signum(&self) -> i32 {
        if self.mag.is_empty() {
            0
        } else if self.neg {
            -1
        } else {
            1
        }
    }

    fn cmp_mag(a: &[u32], b: &[u32]) -> std::cmp::Ordering {
        a.len()
            .cmp(&b.len())
            .then_with(|| a.iter().rev().cmp(b.iter().rev()))
    }

    fn add_mag(a: &[u32], b: &[u32]) -> Vec<u32> {
        let mut out = Vec::with_capacity(a.len().max(b.len()) + 1);
        let mut carry = 0u64;
        for k in 0..a.len().max(b.len()) {
            let s = u64::from(*a.get(k).unwrap_or(&0)) + u64::from(*b.get(k).unwrap_or(&0)) + carry;
            out.push(s as u32);
            carry = s >> 32;
        }
        out.push(carry as u32);
        out
    }

    /// `a − b` for `|a| ≥ |b|`.
    fn sub_mag(a: &[u32], b: &[u32]) -> Vec<u32> {
        let mut out = Vec::with_capacity(a.len());
        let mut borrow = 0i64;
        for k in 0..a.len() {
            let mut d = i64::from(a[k]) - i64::from(*b.get(k).unwrap_or(&0)) - borrow;
            borrow = i64::from(d < 0);
            if d < 0 {
                d += 1 << 32;
            }
            out.push(d as u32);
        }
        out
    }

    /// `self + other`.
    pub(crate) fn add(&self, other: &Self) -> Self {
        let mut r = if self.neg == other.neg {
            Self {
                neg: self.neg,
                mag: Self::add_mag(&self.mag, &other.mag),
            }
        } else if Self::cmp_mag(&self.mag, &other.mag) != std::cmp::Ordering::Less {
            Self {
                neg: self.neg,
                mag: Self::sub_mag(&self.mag, &other.mag),
            }
        } else {
            Self {
                neg: other.neg,
                mag: Self::sub_mag(&other.mag, &self.mag),
            }
        };
        r.trim();
        r
    }

    /// `self − other`.
    pub(crate) fn sub(&self, other: &Self) -> Self {
        let mut neg = other.clone();
        neg.neg = !neg.neg;
        neg.trim();
        self.add(&neg)
    }

    /// `self · other`.
    pub(crate) fn mul(&self, other: &Self) -> Self {
        let mut mag = vec![0u32; self.mag.len() + other.mag.len() + 1];
        for (i, &x) in self.mag.iter().enumerate() {
            let mut carry = 0u64;
            for (j, &y) in other.mag.iter().enumerate() {
                let t = u64::from(x) * u64::from(y) + u64::from(mag[i + j]) + carry;
                mag[i + j] = t as u32;
                carry = t >> 32;
            }
            let mut k = i + other.mag.len();
            while carry > 0 {
                let t = u64::from(mag[k]) + carry;
                mag[k] = t as u32;
                carry = t >> 32;
                k += 1;
            }
        }
        let mut r = Self {
            neg: self.neg != other.neg,
            mag,
        };
        r.trim();
        r
    }
}

/// `(negative, mantissa, exponent)` with `x = ±mantissa · 2^exponent`
/// (finite `x`; zero has mantissa 0).
fn decompose(x: f64) -> (bool, u64, i32) {
    let bits = x.to_bits();
    let neg = bits >> 63 == 1;
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    if exp == 0 {
        (neg, frac, -1074)
    } else {
        (neg, frac | (1u64 << 52), exp - 1075)
    }
}

/// The inputs as exact integers on a common scale `2^e_min`.
fn to_integers<const N: usize>(xs: [f64; N]) -> [Big; N] {
    let parts = xs.map(decompose);
    let e_min = parts
        .iter()
        .filter(|p| p.1 != 0)
        .map(|p| p.2)
        .min()
        .unwrap_or(0);
    parts.map(|(neg, m, e)| {
        if m == 0 {
            Big::zero()
        } else {
            // `e ≥ e_min`, and both lie in [−1074, 971]: the shift fits.
            Big::from_parts(neg, m, (e - e_min) as u32)
        }
    })
}

fn sign(x: f64) -> i32 {
    if x > 0.0 {
        1
    } else if x < 0.0 {
        -1
    } else {
        0
    }
}

/// The sign of `(a − d) · ((b − d) × (c − d))`: positive when `d` lies
/// below the plane of `a, b, c` seen with `a, b, c` counter-clockwise.
/// Exact for finite inputs (see the [module docs](self)).
pub(crate) fn orient3d(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> i32 {
    let (adx, bdx, cdx) = (a.x - d.x, b.x - d.x, c.x - d.x);
    let (ady, bdy, cdy) = (a.y - d.y, b.y - d.y, c.y - d.y);
    let (adz, bdz, cdz) = (a.z - d.z, b.z - d.z, c.z - d.z);
    let (bdxcdy, cdxbdy) = (bdx * cdy, cdx * bdy);
    let (cdxady, adxcdy) = (cdx * ady, adx * cdy);
    let (adxbdy, bdxady) = (adx * bdy, bdx * ady);
    let det = adz * (bdxcdy - cdxbdy) + bdz * (cdxady - adxcdy) + cdz * (adxbdy - bdxady);
    let permanent = (bdxcdy.abs() + cdxbdy.abs()) * adz.abs()
        + (cdxady.abs() + adxcdy.abs()) * bdz.abs()
        + (adxbdy.abs() + bdxady.abs()) * cdz.abs();
    if permanent.is_finite() && permanent > TINY && det.abs() > O3D_BOUND * permanent + UNDERFLOW {
        return sign(det);
    }
    orient3d_exact(a, b, c, d)
}

/// [`orient3d`] in exact integer arithmetic.
pub(crate) fn orient3d_exact(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> i32 {
    let [ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz] =
        to_integers([a.x, a.y, a.z, b.x, b.y, b.z, c.x, c.y, c.z, d.x, d.y, d.z]);
    let (adx, ady, adz) = (ax.sub(&dx), ay.sub(&dy), az.sub(&dz));
    let (bdx, bdy, bdz) = (bx.sub(&dx), by.sub(&dy), bz.sub(&dz));
    let (cdx, cdy, cdz) = (cx.sub(&dx), cy.sub(&dy), cz.sub(&dz));
    let t1 = adz.mul(&bdx.mul(&cdy).sub(&cdx.mul(&bdy)));
    let t2 = bdz.mul(&cdx.mul(&ady).sub(&adx.mul(&cdy)));
    let t3 = cdz.mul(&adx.mul(&bdy).sub(&bdx.mul(&ady)));
    t1.add(&t2).add(&t3).signum()
}

/// The sign of `(a − c) × (b − c)` in the plane: positive when `a, b, c`
/// turn counter-clockwise. Exact for finite inputs.
pub(crate) fn orient2d(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> i32 {
    let left = (a[0] - c[0]) * (b[1] - c[1]);
    let right = (a[1] - c[1]) * (b[0] - c[0]);
    let det = left - right;
    let sum = left.abs() + right.abs();
    if sum.is_finite() && sum > TINY && det.abs() > O2D_BOUND * sum + UNDERFLOW {
        return sign(det);
    }
    orient2d_exact(a, b, c)
}

/// [`orient2d`] in exact integer arithmetic.
pub(crate) fn orient2d_exact(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> i32 {
    let [ax, ay, bx, by, cx, cy] = to_integers([a[0], a[1], b[0], b[1], c[0], c[1]]);
    let left = ax.sub(&cx).mul(&by.sub(&cy));
    let right = ay.sub(&cy).mul(&bx.sub(&cx));
    left.sub(&right).signum()
}

/// The point with coordinate `k` dropped (a projection onto an axis
/// plane; exact).
fn project(v: DVec3, k: usize) -> [f64; 2] {
    match k {
        0 => [v.y, v.z],
        1 => [v.z, v.x],
        _ => [v.x, v.y],
    }
}

/// Whether three points are collinear (exactly: every projection of
/// their cross product vanishes).
fn collinear(a: DVec3, b: DVec3, c: DVec3) -> bool {
    (0..3).all(|k| orient2d(project(a, k), project(b, k), project(c, k)) == 0)
}

/// Whether `r` lies on the closed 2D segment `pq`, given that the three
/// are collinear (coordinate comparisons are exact).
fn on_segment_2d(p: [f64; 2], q: [f64; 2], r: [f64; 2]) -> bool {
    (0..2).all(|i| r[i] >= p[i].min(q[i]) && r[i] <= p[i].max(q[i]))
}

/// Whether the closed 2D segments `pq` and `rs` meet.
fn segments_meet_2d(p: [f64; 2], q: [f64; 2], r: [f64; 2], s: [f64; 2]) -> bool {
    let o1 = orient2d(p, q, r);
    let o2 = orient2d(p, q, s);
    let o3 = orient2d(r, s, p);
    let o4 = orient2d(r, s, q);
    if o1 * o2 < 0 && o3 * o4 < 0 {
        return true;
    }
    (o1 == 0 && on_segment_2d(p, q, r))
        || (o2 == 0 && on_segment_2d(p, q, s))
        || (o3 == 0 && on_segment_2d(r, s, p))
        || (o4 == 0 && on_segment_2d(r, s, q))
}

/// Whether 2D point `p` lies in the closed triangle `t` (non-degenerate).
fn point_in_triangle_2d(p: [f64; 2], t: [[f64; 2]; 3]) -> bool {
    let s = [
        orient2d(t[0], t[1], p),
        orient2d(t[1], t[2], p),
        orient2d(t[2], t[0], p),
    ];
    !(s.contains(&1) && s.contains(&-1))
}

/// Whether the closed 3D segment `pq` meets the closed non-degenerate
/// triangle `t`.
fn segment_meets_triangle(p: DVec3, q: DVec3, t: &[DVec3; 3]) -> bool {
    let sp = orient3d(t[0], t[1], t[2], p);
    let sq = orient3d(t[0], t[1], t[2], q);
    if sp * sq > 0 {
        return false;
    }
    if sp == 0 && sq == 0 {
        // Coplanar: drop an axis along which the triangle does not
        // collapse (one exists, the triangle being non-degenerate).
        let Some(k) = (0..3)
            .rev()
            .find(|&k| orient2d(project(t[0], k), project(t[1], k), project(t[2], k)) != 0)
        else {
            return false;
        };
        let tt = t.map(|v| project(v, k));
        let (pp, qq) = (project(p, k), project(q, k));
        return point_in_triangle_2d(pp, tt)
            || point_in_triangle_2d(qq, tt)
            || (0..3).any(|i| segments_meet_2d(pp, qq, tt[i], tt[(i + 1) % 3]));
    }
    // The segment crosses the plane at one point: it lies in the closed
    // triangle iff the line's orientations against the edges do not
    // disagree strictly.
    let s = [
        orient3d(p, q, t[0], t[1]),
        orient3d(p, q, t[1], t[2]),
        orient3d(p, q, t[2], t[0]),
    ];
    !(s.contains(&1) && s.contains(&-1))
}

/// Whether the closed 3D segments `pq` and `rs` meet: coplanar, and
/// meeting in every axis projection (one of which is injective on a plane
/// holding both).
fn segments_meet_3d(p: DVec3, q: DVec3, r: DVec3, s: DVec3) -> bool {
    orient3d(p, q, r, s) == 0
        && (0..3)
            .all(|k| segments_meet_2d(project(p, k), project(q, k), project(r, k), project(s, k)))
}

fn edges(t: &[DVec3; 3]) -> [(DVec3, DVec3); 3] {
    [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])]
}

/// Whether two closed triangles share a point, decided exactly.
///
/// Two closed convex polygons meet iff an edge of one meets the other: a
/// common point off every edge would lie in both relative interiors, and
/// then so would the whole (compact, convex) intersection, whose
/// extreme points lie on some boundary. A degenerate (collinear) triangle
/// is the union of its edges.
pub(crate) fn triangles_intersect(a: &[DVec3; 3], b: &[DVec3; 3]) -> bool {
    let da = collinear(a[0], a[1], a[2]);
    let db = collinear(b[0], b[1], b[2]);
    if !db {
        let s = a.map(|v| orient3d(b[0], b[1], b[2], v));
        if s.iter().all(|&x| x > 0) || s.iter().all(|&x| x < 0) {
            return false;
        }
    }
    if !da {
        let s = b.map(|v| orient3d(a[0], a[1], a[2], v));
        if s.iter().all(|&x| x > 0) || s.iter().all(|&x| x < 0) {
            return false;
        }
    }
    match (da, db) {
        (false, false) => {
            edges(a)
                .iter()
                .any(|&(p, q)| segment_meets_triangle(p, q, b))
                || edges(b)
                    .iter()
                    .any(|&(p, q)| segment_meets_triangle(p, q, a))
        }
        (true, false) => edges(a)
            .iter()
            .any(|&(p, q)| segment_meets_triangle(p, q, b)),
        (false, true) => edges(b)
            .iter()
            .any(|&(p, q)| segment_meets_triangle(p, q, a)),
        (true, true) => edges(a)
            .iter()
            .any(|&(p, q)| edges(b).iter().any(|&(r, s)| segments_meet_3d(p, q, r, s))),
    }
}

/// Squared distance from `p` to the closed segment `ab`.
fn point_segment_sq(p: DVec3, a: DVec3, b: DVec3) -> f64 {
    let ab = b - a;
    let len = ab.length_squared();
    let s = if len > 0.0 {
        ((p - a).dot(ab) / len).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (a + ab * s).distance_squared(p)
}

/// Distance from `p` to the closed triangle `t`: the plane's foot when it
/// falls inside (by the signs of the three edge cross products against
/// the normal), else the nearest edge.
pub(crate) fn point_triangle_distance(p: DVec3, t: &[DVec3; 3]) -> f64 {
    let n = (t[1] - t[0]).cross(t[2] - t[0]);
    let nn = n.length_squared();
    let edge = || {
        point_segment_sq(p, t[0], t[1])
            .min(point_segment_sq(p, t[1], t[2]))
            .min(point_segment_sq(p, t[2], t[0]))
            .sqrt()
    };
    if !(nn > 0.0) {
        return edge();
    }
    let foot = p - n * ((p - t[0]).dot(n) / nn);
    let inside = (0..3).all(|i| {
        let (a, b) = (t[i], t[(i + 1) % 3]);
        (b - a).cross(foot - a).dot(n) >= 0.0
    });
    if inside { foot.distance(p) } else { edge() }
}

/// Distance between the closed segments `p1q1` and `p2q2` (the clamped
/// closest-parameter solution, with the parallel and point cases).
pub(crate) fn segment_segment_distance(p1: DVec3, q1: DVec3, p2: DVec3, q2: DVec3) -> f64 {
    let d1 = q1 - p1;
    let d2 = q2 - p2;
    let r = p1 - p2;
    let a = d1.length_squared();
    let e = d2.length_squared();
    let f = d2.dot(r);
    if !(a > 0.0) && !(e > 0.0) {
        return p1.distance(p2);
    }
    if !(a > 0.0) {
        return point_segment_sq(p1, p2, q2).sqrt();
    }
    if !(e > 0.0) {
        return point_segment_sq(p2, p1, q1).sqrt();
    }
    let c = d1.dot(r);
    let b = d1.dot(d2);
    let denom = a * e - b * b;
    let mut s = if denom > 0.0 {
        ((b * f - c * e) / denom).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mut t = (b * s + f) / e;
    if t < 0.0 {
        t = 0.0;
        s = (-c / a).clamp(0.0, 1.0);
    } else if t > 1.0 {
        t = 1.0;
        s = ((b - c) / a).clamp(0.0, 1.0);
    }
    let near = (p1 + d1 * s).distance(p2 + d2 * t);
    // The parallel case picks one of many minimisers; the endpoint
    // distances cover the others.
    near.min(point_segment_sq(p1, p2, q2).sqrt())
        .min(point_segment_sq(q1, p2, q2).sqrt())
        .min(point_segment_sq(p2, p1, q1).sqrt())
        .min(point_segment_sq(q2, p1, q1).sqrt())
}

/// Distance between two closed triangles: `0` when they meet (exact
/// test), else the least of the six vertex–triangle and nine edge–edge
/// distances (the closest points of disjoint triangles include a vertex
/// of one, or lie on an edge of each).
pub(crate) fn triangle_distance(a: &[DVec3; 3], b: &[DVec3; 3]) -> f64 {
    if triangles_intersect(a, b) {
        return 0.0;
    }
    let mut d = f64::INFINITY;
    for &v in a {
        d = d.min(point_triangle_distance(v, b));
    }
    for &v in b {
        d = d.min(point_triangle_distance(v, a));
    }
    for (p, q) in edges(a) {
        for (r, s) in edges(b) {
            d = d.min(segment_segment_distance(p, q, r, s));
        }
    }
    d
}

/// An axis-aligned box.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Box3 {
    pub(crate) lo: DVec3,
    pub(crate) hi: DVec3,
}

impl Box3 {
    pub(crate) const EMPTY: Self = Self {
        lo: DVec3::splat(f64::INFINITY),
        hi: DVec3::splat(f64::NEG_INFINITY),
    };

    pub(crate) fn of(points: impl IntoIterator<Item = DVec3>) -> Self {
        points.into_iter().fold(Self::EMPTY, |b, p| Self {
            lo: b.lo.min(p),
            hi: b.hi.max(p),
        })
    }

    fn union(self, o: Self) -> Self {
        Self {
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
        }
    }

    /// A lower bound on the distance between any point of `self` and any
    /// point of `o` (`0` when they overlap or touch). Each gap is a
    /// rounded difference, so it is shrunk by one part in 2⁵⁰ to stay a
    /// lower bound.
    pub(crate) fn distance(&self, o: &Self) -> f64 {
        let gap = (o.lo - self.hi).max(self.lo - o.hi).max(DVec3::ZERO);
        gap.length() * (1.0 - 4.0 * EPS * 8.0)
    }

    fn contains(&self, p: DVec3) -> bool {
        p.cmpge(self.lo).all() && p.cmple(self.hi).all()
    }
}

/// What the oracle knows of a mesh's topology.
#[derive(Clone, Debug)]
pub(crate) struct Topology {
    /// Watertight and consistently oriented: every directed edge appears
    /// once and its reverse once.
    pub(crate) closed: bool,
    /// One vertex of each connected component (by shared vertices).
    pub(crate) representatives: Vec<u32>,
}

impl Topology {
    /// Checks closedness and finds the components of `triangles`.
    pub(crate) fn of(num_vertices: usize, triangles: &[[u32; 3]]) -> Self {
        let mut directed: HashMap<(u32, u32), usize> = HashMap::new();
        for t in triangles {
            for i in 0..3 {
                *directed.entry((t[i], t[(i + 1) % 3])).or_default() += 1;
            }
        }
        let closed = !triangles.is_empty()
            && directed
                .iter()
                .all(|(&(a, b), &n)| n == 1 && directed.get(&(b, a)) == Some(&1));
        let mut parent: Vec<u32> = (0..num_vertices as u32).collect();
        fn find(parent: &mut [u32], mut x: u32) -> u32 {
            while parent[x as usize] != x {
                let g = parent[parent[x as usize] as usize];
                parent[x as usize] = g;
                x = g;
            }
            x
        }
        for t in triangles {
            let r0 = find(&mut parent, t[0]);
            for &v in &t[1..] {
                let r = find(&mut parent, v);
                parent[r as usize] = r0;
            }
        }
        let mut seen = vec![false; num_vertices];
        let mut representatives = Vec::new();
        for t in triangles {
            let r = find(&mut parent, t[0]);
            if !seen[r as usize] {
                seen[r as usize] = true;
                representatives.push(t[0]);
            }
        }
        Self {
            closed,
            representatives,
        }
    }
}

/// A mesh posed in the world: vertices, per-triangle boxes and the whole
/// box.
#[derive(Clone, Debug, Default)]
pub(crate) struct Posed {
    pub(crate) vertices: Vec<DVec3>,
    pub(crate) boxes: Vec<Box3>,
    pub(crate) bbox: Option<Box3>,
}

impl Posed {
    /// Fills from world vertices and the triangles.
    pub(crate) fn set(&mut self, vertices: impl Iterator<Item = DVec3>, triangles: &[[u32; 3]]) {
        self.vertices.clear();
        self.vertices.extend(vertices);
        self.boxes.clear();
        let v = &self.vertices;
        self.boxes
            .extend(triangles.iter().map(|t| Box3::of(t.map(|i| v[i as usize]))));
        self.bbox = Some(self.boxes.iter().fold(Box3::EMPTY, |a, &b| a.union(b)));
    }

    fn triangle(&self, t: &[u32; 3]) -> [DVec3; 3] {
        t.map(|i| self.vertices[i as usize])
    }
}

/// The answer of [`mesh_query`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct MeshQuery {
    /// Some triangle pair meets (exact test).
    pub(crate) intersects: bool,
    /// `0` when intersecting; otherwise a lower bound on the distance
    /// between the surfaces, equal to it (up to the rounding of the
    /// triangle distances) when [`MeshQuery::exact`].
    pub(crate) distance: f64,
    /// Whether `distance` is the distance rather than only a bound; always
    /// when the distance is at most the query's cutoff.
    pub(crate) exact: bool,
}

/// The surfaces' intersection and distance by every triangle pair.
///
/// Triangles whose box is farther than `cutoff` from the other mesh's box
/// (itself shrunk to the surviving triangles, once each way) are set
/// aside and only bound the distance from below; among the rest every
/// pair with touching boxes gets the exact intersection test, and every
/// pair whose box distance is below the best distance so far gets the
/// triangle distance.
pub(crate) fn mesh_query(
    a: &Posed,
    ta: &[[u32; 3]],
    b: &Posed,
    tb: &[[u32; 3]],
    cutoff: f64,
    scratch: &mut (Vec<usize>, Vec<usize>),
) -> MeshQuery {
    let (Some(ba), Some(bb)) = (a.bbox, b.bbox) else {
        return MeshQuery {
            intersects: false,
            distance: f64::INFINITY,
            exact: true,
        };
    };
    let whole = ba.distance(&bb);
    if whole > cutoff {
        return MeshQuery {
            intersects: false,
            distance: whole,
            exact: false,
        };
    }
    let mut lower = f64::INFINITY;
    let (sa, sb) = scratch;
    let filter = |boxes: &[Box3], other: &Box3, keep: &mut Vec<usize>, lower: &mut f64| {
        keep.clear();
        for (i, bx) in boxes.iter().enumerate() {
            let d = bx.distance(other);
            if d > cutoff {
                *lower = lower.min(d);
            } else {
                keep.push(i);
            }
        }
    };
    filter(&a.boxes, &bb, sa, &mut lower);
    let kept_a = Box3::of(sa.iter().flat_map(|&i| [a.boxes[i].lo, a.boxes[i].hi]));
    filter(&b.boxes, &kept_a, sb, &mut lower);
    let kept_b = Box3::of(sb.iter().flat_map(|&i| [b.boxes[i].lo, b.boxes[i].hi]));
    let before = std::mem::take(sa);
    for i in before.iter().copied() {
        let d = a.boxes[i].distance(&kept_b);
        if d > cutoff {
            lower = lower.min(d);
        } else {
            sa.push(i);
        }
    }
    let mut best = f64::INFINITY;
    for &i in sa.iter() {
        let tri_a = a.triangle(&ta[i]);
        for &j in sb.iter() {
            let d_box = a.boxes[i].distance(&b.boxes[j]);
            if d_box > cutoff {
                lower = lower.min(d_box);
                continue;
            }
            if d_box > 0.0 && d_box >= best {
                continue;
            }
            let tri_b = b.triangle(&tb[j]);
            if d_box == 0.0 && triangles_intersect(&tri_a, &tri_b) {
                return MeshQuery {
                    intersects: true,
                    distance: 0.0,
                    exact: true,
                };
            }
            if d_box < best {
                best = best.min(triangle_distance(&tri_a, &tri_b));
            }
        }
    }
    MeshQuery {
        intersects: false,
        distance: best.min(lower),
        exact: best <= lower,
    }
}

/// The winding number of the closed surface `(vertices, triangles)`
/// around `p` (the sum of the triangles' signed solid angles over 4π,
/// Van Oosterom and Strackee's formula): ±1 inside, 0 outside.
pub(crate) fn winding_number(p: DVec3, vertices: &[DVec3], triangles: &[[u32; 3]]) -> f64 {
    let mut sum = 0.0;
    for t in triangles {
        let a = vertices[t[0] as usize] - p;
        let b = vertices[t[1] as usize] - p;
        let c = vertices[t[2] as usize] - p;
        let (la, lb, lc) = (a.length(), b.length(), c.length());
        let num = a.dot(b.cross(c));
        let den = la * lb * lc + a.dot(b) * lc + a.dot(c) * lb + b.dot(c) * la;
        sum += 2.0 * num.atan2(den);
    }
    sum / (4.0 * std::f64::consts::PI)
}

/// Whether some connected component of `inner` lies inside the closed mesh `outer` (`outer_topology.closed`
/// must hold). With the surfaces disjoint, each component of `inner` is
/// wholly inside or wholly outside, so one vertex per component decides;
/// a winding number within a quarter of ½ is taken as outside (the
/// vertex is then on the surface up to rounding, and the distance says
/// so).
pub(crate) fn contains(
    outer: &Posed,
    outer_triangles: &[[u32; 3]],
    inner: &Posed,
    inner_topology: &Topology,
) -> bool {
    let Some(bbox) = outer.bbox else {
        return false;
    };
    inner_topology.representatives.iter().any(|&v| {
        let p = inner.vertices[v as usize];
        bbox.contains(p) && winding_number(p, &outer.vertices, outer_triangles).abs() > 0.75
    })
}
