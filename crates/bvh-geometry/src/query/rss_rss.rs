//! RSS–RSS distance (rectangle–rectangle distance minus the radii).

use glam::{DAffine3, DVec3};

use super::segment_segment::{Edge, edge_params, nearest_first};
use super::triangle_triangle::beyond;
use super::{ClosestPoints, max_abs, nonnegative};
use crate::bv::Rss;

/// A rectangle in its frame, prepared for the face tests.
struct Rect {
    c: DVec3,
    x: DVec3,
    y: DVec3,
    z: DVec3,
    hx: f64,
    hy: f64,
    corners: [DVec3; 4],
}

impl Rect {
    fn new(r: &Rss) -> Self {
        Self {
            c: r.center,
            x: r.axes.x_axis,
            y: r.axes.y_axis,
            z: r.axes.z_axis,
            hx: r.half_lengths.x,
            hy: r.half_lengths.y,
            corners: r.corners(),
        }
    }

    /// In-plane coordinates of `p` and its height over the plane.
    #[inline]
    fn local(&self, p: DVec3) -> (f64, f64, f64) {
        let d = p - self.c;
        (d.dot(self.x), d.dot(self.y), d.dot(self.z))
    }

    #[inline]
    fn inside(&self, u: f64, v: f64) -> bool {
        u.abs() <= self.hx && v.abs() <= self.hy
    }

    /// Where the segment `p`–`q` crosses the rectangle, if its end points
    /// are strictly on opposite sides of the plane.
    #[inline]
    fn pierce(&self, p: DVec3, q: DVec3) -> Option<DVec3> {
        let wp = (p - self.c).dot(self.z);
        let wq = (q - self.c).dot(self.z);
        if (wp > 0.0 && wq < 0.0) || (wp < 0.0 && wq > 0.0) {
            let x = p + (q - p) * (wp / (wp - wq));
            let (u, v, _) = self.local(x);
            self.inside(u, v).then_some(x)
        } else {
            None
        }
    }
}

fn rect_rect(ra: &Rect, rb: &Rect) -> ClosestPoints {
    let (ca, cb) = (&ra.corners, &rb.corners);
    let scale = max_abs(ca).max(max_abs(cb));
    // Written out: `array::map` with a capturing closure compiles to a copy
    // through memory here, which doubled the cost of the whole query.
    let ea = [
        Edge::new(ca[0], ca[1]),
        Edge::new(ca[1], ca[2]),
        Edge::new(ca[2], ca[3]),
        Edge::new(ca[3], ca[0]),
    ];
    let eb = [
        Edge::new(cb[0], cb[1]),
        Edge::new(cb[1], cb[2]),
        Edge::new(cb[2], cb[3]),
        Edge::new(cb[3], cb[0]),
    ];
    let mut best2 = f64::INFINITY;
    let (mut pa, mut pb) = (ca[0], cb[0]);
    // A corner over the other rectangle's face whose own rectangle lies
    // behind it, seen from that face, is the closest feature: certified by
    // the slab between the corner and the face, it ends the search before
    // any edge pair (the usual case for separated rectangles).
    for (face, corners, a_is_corner) in [(rb, ca, true), (ra, cb, false)] {
        for k in 0..4 {
            let p = corners[k];
            let (u, v, w) = face.local(p);
            if face.inside(u, v) {
                let q = p - face.z * w;
                let to_face = q - p;
                if (1..4).all(|m| beyond(corners[(k + m) % 4] - p, -to_face, scale)) {
                    let (point_a, point_b) = if a_is_corner { (p, q) } else { (q, p) };
                    return ClosestPoints {
                        distance: w.abs(),
                        point_a,
                        point_b,
                    };
                }
            }
        }
    }
    // Edges nearest the other rectangle first: the pair that ends the
    // search early is then usually among the first tried.
    let oa = nearest_first(&ea, rb.c);
    let ob = nearest_first(&eb, ra.c);
    for i in oa {
        for j in ob {
            let (s, t) = edge_params(&ea[i], &eb[j]);
            let (x, y) = (ea[i].at(s), eb[j].at(t));
            let v = y - x;
            // The separating-slab early exit of PQP (see the triangle
            // distance): the two corners off each edge on their own side.
            if beyond(ca[(i + 2) % 4] - x, -v, scale)
                && beyond(ca[(i + 3) % 4] - x, -v, scale)
                && beyond(cb[(j + 2) % 4] - y, v, scale)
                && beyond(cb[(j + 3) % 4] - y, v, scale)
            {
                return ClosestPoints {
                    distance: v.length(),
                    point_a: x,
                    point_b: y,
                };
            }
            let d2 = v.length_squared();
            if d2 < best2 {
                (best2, pa, pb) = (d2, x, y);
            }
        }
    }
    for &p in ca {
        let (u, v, w) = rb.local(p);
        if w * w < best2 && rb.inside(u, v) {
            (best2, pa, pb) = (w * w, p, p - rb.z * w);
        }
    }
    for &q in cb {
        let (u, v, w) = ra.local(q);
        if w * w < best2 && ra.inside(u, v) {
            (best2, pa, pb) = (w * w, q - ra.z * w, q);
        }
    }
    if best2 > 0.0 {
        let crossing = (0..4)
            .find_map(|i| rb.pierce(ca[i], ca[(i + 1) % 4]))
            .or_else(|| (0..4).find_map(|j| ra.pierce(cb[j], cb[(j + 1) % 4])));
        if let Some(x) = crossing {
            (best2, pa, pb) = (0.0, x, x);
        }
    }
    ClosestPoints {
        distance: best2.sqrt(),
        point_a: pa,
        point_b: pb,
    }
}

/// The coordinate scale of two swept rectangles, which their certified
/// bounds subtract `64 ε` of for rounding.
#[inline]
pub(super) fn pair_scale(a: &Rss, b: &Rss) -> f64 {
    a.center.abs().max_element()
        + b.center.abs().max_element()
        + a.half_lengths.abs().element_sum()
        + b.half_lengths.abs().element_sum()
        + a.radius.abs()
        + b.radius.abs()
}

fn any_nan_rss(r: &Rss) -> bool {
    r.center.is_nan() || r.axes.is_nan() || r.half_lengths.is_nan() || r.radius.is_nan()
}

/// Closest points of the two *core rectangles* (radii ignored): `point_a`
/// on `a`'s rectangle, `point_b` on `b`'s. Exact up to rounding; 0 and a
/// common point when the rectangles intersect. NaN input gives NaN. The
/// method is described at [`distance_rss_rss`].
#[must_use]
pub fn closest_points_rectangle_rectangle(a: &Rss, b: &Rss) -> ClosestPoints {
    if any_nan_rss(a) || any_nan_rss(b) {
        return ClosestPoints::NAN;
    }
    rect_rect(&Rect::new(a), &Rect::new(b))
}

/// Lower bound on the distance between two rectangle swept spheres:
/// rectangle–rectangle distance minus both radii, minus a rounding allowance
/// of `64 ε` times the coordinate scale, clamped at 0. Exact for the swept
/// shapes up to that allowance. NaN input gives NaN.
///
/// # Method
///
/// The distance between two rectangle swept spheres is the distance between
/// their core rectangles minus both radii, clamped at 0; this is exact for
/// the swept shapes (Larsen et al. 1999). The rectangle–rectangle distance
/// is computed like the triangle–triangle one: the 16 edge–edge pairs
/// (segment–segment), the 8 corner–face pairs (a corner projecting inside
/// the other rectangle, a test in that rectangle's own orthonormal frame) and
/// the 8 edge–face crossings (distance 0). Degenerate rectangles (zero half
/// lengths: a segment or a point) need no special case. Two early exits,
/// both certified by a separating slab (with a margin for rounding), settle
/// most separated pairs: a corner over the other face with its own
/// rectangle behind it, and PQP's edge-pair test (tried nearest edges
/// first).
///
/// [`distance_rss_rss`] is meant as a **lower bound** (GREEDY-DIST, M2 §IV):
/// it subtracts a rounding allowance of a few ulps of the coordinate scale
/// before clamping, so in floating point it never exceeds the true distance
/// of the swept shapes.
///
/// ```
/// use armature_bvh_geometry::{bv::Rss, query::distance_rss_rss};
/// use glam::{DMat3, DVec2, DVec3};
/// let a = Rss::new(DVec3::ZERO, DMat3::IDENTITY, DVec2::new(1.0, 1.0), 0.1);
/// let b = Rss::new(DVec3::new(0.0, 0.0, 2.0), DMat3::IDENTITY, DVec2::new(1.0, 1.0), 0.2);
/// let d = distance_rss_rss(&a, &b);
/// assert!(d <= 1.7 && d > 1.7 - 1e-12);
/// ```
#[must_use]
pub fn distance_rss_rss(a: &Rss, b: &Rss) -> f64 {
    let c = closest_points_rectangle_rectangle(a, b);
    let scale = pair_scale(a, b);
    nonnegative(c.distance - a.radius - b.radius - 64.0 * f64::EPSILON * scale)
}

/// A unit direction from `a` towards `b` and a certified lower bound on
/// the slab gap of the two swept rectangles along it (negative when they
/// may overlap): nearly the rectangles' closest direction, or of the
/// centres when the rectangles meet; no gap (`−∞`) for two found within
/// `contact` of each other, which no direction can separate by more.
///
/// Any direction gives a certified gap; the closest one gives the largest
/// (the distance). A few rounds of alternating projections between the
/// rectangles (a few dot products each) approach the closest pair, and
/// their direction is kept when its gap is within [`APPROX_SLACK`] of the
/// distance of the two points found (an upper bound on the distance):
/// then no direction is much better. Otherwise (rectangles nearly
/// touching, or meeting at a slant the rounds have not resolved) the
/// rectangles' closest points give the direction: by an active-set
/// method from where the rounds stopped ([`refined_pair`]), else by the
/// exact feature tests. (Conservative advancement runs the two stages
/// apart, [`cheap_separation_rss`] and [`exact_separation_rss`], to skip
/// the second where the first is enough for its step.)
#[cfg(test)]
pub(super) fn separation_rss(a: &Rss, b: &Rss, contact: f64) -> (DVec3, f64) {
    match cheap_separation_rss(a, b, contact) {
        Separation::Settled(n, g) => (n, g),
        Separation::Candidate(_, _, start) => exact_separation_rss(a, b, start),
    }
}

/// The first, cheap stage of [`separation_rss`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Separation {
    /// [`separation_rss`]'s answer: no gap for a pair within the contact
    /// distance, or a direction whose gap is within [`APPROX_SLACK`] of
    /// the distance.
    Settled(DVec3, f64),
    /// The direction alternating projections found and its certified gap,
    /// which may be well below the distance, and where the rounds stopped:
    /// a caller that needs no more than the gap may keep it, otherwise
    /// [`exact_separation_rss`] from those coordinates gives
    /// [`separation_rss`]'s answer.
    Candidate(DVec3, f64, RectCoords),
}

/// The cheap stage of [`separation_rss`]: alternating projections only.
pub(super) fn cheap_separation_rss(a: &Rss, b: &Rss, contact: f64) -> Separation {
    let (v, upper, start) = projected_pair(a, b);
    if upper <= contact {
        // Within the contact distance whatever the direction (up to the
        // rounding of `upper`, and refining a pair is always safe).
        return Separation::Settled(DVec3::X, f64::NEG_INFINITY);
    }
    let Some(n) = v.try_normalize() else {
        return Separation::Candidate(DVec3::X, f64::NEG_INFINITY, start);
    };
    let (n, g) = slab_gap_rss(a, b, n);
    if g >= upper * (1.0 - APPROX_SLACK) {
        Separation::Settled(n, g)
    } else {
        Separation::Candidate(n, g, start)
    }
}

/// The exact stage of [`separation_rss`], from where its alternating
/// projections stopped: the gap along the direction of the rectangles'
/// closest points (of the centres when they meet), found by
/// [`refined_pair`] or else by the feature tests.
pub(super) fn exact_separation_rss(a: &Rss, b: &Rss, start: RectCoords) -> (DVec3, f64) {
    let (pa, pb) = refined_pair(a, b, start).unwrap_or_else(|| {
        let c = closest_points_rectangle_rectangle(a, b);
        (c.point_a, c.point_b)
    });
    let v = pb - pa;
    let n = v
        .try_normalize()
        .or_else(|| (b.center - a.center).try_normalize());
    match n {
        Some(n) => slab_gap_rss(a, b, n),
        None => (DVec3::X, f64::NEG_INFINITY),
    }
}

/// [`distance_rss_rss`], or a certified bound at most [`APPROX_SLACK`] of
/// the distance below it found more cheaply: 0 for two swept rectangles
/// that alternating projections show meeting, the gap along the direction
/// of the two points they found when that is within the slack of those
/// points' distance (see [`separation_rss`]), or any cheap gap for which
/// `prunes` holds (the caller drops the pair whatever larger bound it
/// gets); then the gap along the direction of the closest pair that
/// [`refined_pair`] finds from there, under the same slack rule; the exact
/// bound otherwise.
pub(super) fn near_distance_lower_bound_rss(a: &Rss, b: &Rss, prunes: impl Fn(f64) -> bool) -> f64 {
    match cheap_separation_rss(a, b, 0.0) {
        // A kept direction's gap is positive; shapes that alternating
        // projections show meeting (no gap) are 0 apart.
        Separation::Settled(_, g) => g.max(0.0),
        Separation::Candidate(_, g, _) if g > 0.0 && prunes(g) => g,
        Separation::Candidate(_, _, start) => refined_pair(a, b, start)
            .and_then(|(p, q)| {
                let upper = p.distance(q) - (a.radius + b.radius);
                if upper <= 0.0 {
                    // Points of the two rectangles within the radii (up to
                    // the rounding of the points): the shapes meet, and 0
                    // is a bound whatever that rounding.
                    return Some(0.0);
                }
                let n = (q - p).try_normalize()?;
                let g = slab_gap_rss(a, b, n).1;
                (g > 0.0 && g >= upper * (1.0 - APPROX_SLACK)).then_some(g)
            })
            .unwrap_or_else(|| distance_rss_rss(a, b)),
    }
}

/// How far below the distance of the two points alternating projections
/// found the gap along their direction may be for that direction to be
/// kept (relative).
const APPROX_SLACK: f64 = 0.05;

/// Whether two swept rectangles are certainly more than `threshold`
/// apart, certified as [`distance_rss_rss`] (`true` only when some
/// certified bound exceeds `threshold`), cheaper where the answer is
/// plain: `false` at once when the two rectangle points that a few rounds
/// of alternating projections reach are within `threshold` of each other
/// (no certified bound can exceed their distance), `true` when the gap
/// along their direction exceeds it, and only otherwise the exact bound.
/// A pruning test for a fixed reach, where a near distance bound would
/// compute the exact distance whenever the cheap gap is not within 5 % of
/// it. NaN input is never apart.
#[must_use]
pub fn apart_beyond_rss(a: &Rss, b: &Rss, threshold: f64) -> bool {
    let (v, upper, _) = projected_pair(a, b);
    if !(upper > threshold) {
        return false;
    }
    if let Some(n) = v.try_normalize()
        && slab_gap_rss(a, b, n).1 > threshold
    {
        return true;
    }
    distance_rss_rss(a, b) > threshold
}

/// Rounds of alternating projections in [`projected_pair`]. Near-parallel
/// rectangles converge slowly, and the exact stage after the rounds costs
/// about five times a volume test. Measured (callgrind, against 2 rounds):
/// conservative advancement on the 24 slowest 1° pipes motions −2.4 %,
/// 30° pipes −1.1 %, 30° AMR −1.0 %; path checks and penetration depth
/// within ±0.7 %. 3 rounds gained less, 5 and 8 nothing or worse.
const SEPARATION_ROUNDS: usize = 4;

/// Coordinates of a point of each core rectangle: `(x, y)` along `a`'s
/// axes from its centre, `(s, t)` along `b`'s.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct RectCoords([f64; 4]);

/// A point of each core rectangle, approaching their closest pair: from
/// `b`'s centre, `a`'s rectangle point nearest it, `b`'s nearest that one,
/// and so on, stopping early once a round no longer moves the point. Gives
/// the vector from `a`'s point to `b`'s, their distance less both radii
/// (an upper bound on the swept shapes' distance, up to rounding) and the
/// points' coordinates.
/// (`max`/`min` rather than `clamp`, which panics on NaN: bad input gives
/// NaN points, and the callers' gaps then separate nothing.)
fn projected_pair(a: &Rss, b: &Rss) -> (DVec3, f64, RectCoords) {
    let (ax, ay) = (a.axes.x_axis, a.axes.y_axis);
    let (bx, by) = (b.axes.x_axis, b.axes.y_axis);
    let (ha, hb) = (a.half_lengths, b.half_lengths);
    // In the rectangles' coordinates: a point of one projects on the
    // other's plane through the dot products of their axes.
    let d = b.center - a.center;
    let (k11, k12, k21, k22) = (ax.dot(bx), ax.dot(by), ay.dot(bx), ay.dot(by));
    let (dax, day, dbx, dby) = (d.dot(ax), d.dot(ay), d.dot(bx), d.dot(by));
    let on_a = |s: f64, t: f64| {
        (
            (dax + k11 * s + k12 * t).max(-ha.x).min(ha.x),
            (day + k21 * s + k22 * t).max(-ha.y).min(ha.y),
        )
    };
    let on_b = |x: f64, y: f64| {
        (
            (k11 * x + k21 * y - dbx).max(-hb.x).min(hb.x),
            (k12 * x + k22 * y - dby).max(-hb.y).min(hb.y),
        )
    };
    let (mut s, mut t) = (0.0, 0.0);
    let (mut x, mut y) = on_a(s, t);
    for _ in 0..SEPARATION_ROUNDS {
        let next = on_b(x, y);
        let moved = next != (s, t);
        (s, t) = next;
        if !moved {
            break;
        }
        (x, y) = on_a(s, t);
    }
    let v = d + bx * s + by * t - ax * x - ay * y;
    (
        v,
        v.length() - (a.radius + b.radius),
        RectCoords([x, y, s, t]),
    )
}

/// Rounds of the active-set method of [`refined_pair`] before it gives up.
const ACTIVE_SET_ROUNDS: usize = 8;

/// The least determinant of the reduced systems in [`refined_pair`] (a
/// squared sine of the angle between features): below it (features
/// parallel to within a fifth of a degree) the method gives up, leaving
/// the pair to the feature tests.
const ACTIVE_SET_PIVOT: f64 = 1e-5;

/// The rectangles' closest pair by an active-set method, started from the
/// coordinates `start` (of alternating projections).
///
/// Half the squared distance of the points `a(x, y)` and `b(s, t)` is a
/// convex quadratic in the four coordinates, `½ wᵀ H w + g₀ᵀ w + c` with
/// `H = [[I, −K], [−Kᵀ, I]]` (`K` the dot products of `a`'s axes with
/// `b`'s), and each coordinate is bounded by its half length; a point where
/// the free coordinates solve their linear system and every coordinate
/// held at a bound is pushed against it is the closest pair. Each round
/// solves the free coordinates (the system reduces to one of at most two
/// of `b`'s coordinates), holds at its bound any that left the box, else
/// frees the held one whose gradient pulls it inward the most, else
/// stops. With all four free the system is singular (the points may slide
/// together along the line where the rectangles' planes meet): its
/// solution nearest `b`'s current coordinates is taken
/// ([`along_planes_meet`]).
///
/// `None` when the rounds run out, a reduced system is nearly singular
/// (features parallel to within a fraction of a degree) or the planes
/// are: the
/// caller then takes the feature tests. The points are as exact as the
/// rounding of the systems allows; callers take their direction for a
/// certified slab gap, never their distance as a bound.
fn refined_pair(a: &Rss, b: &Rss, start: RectCoords) -> Option<(DVec3, DVec3)> {
    let (ax, ay) = (a.axes.x_axis, a.axes.y_axis);
    let (bx, by) = (b.axes.x_axis, b.axes.y_axis);
    let d = b.center - a.center;
    let k = [[ax.dot(bx), ax.dot(by)], [ay.dot(bx), ay.dot(by)]];
    let g0 = [-d.dot(ax), -d.dot(ay), d.dot(bx), d.dot(by)];
    let h = [
        a.half_lengths.x,
        a.half_lengths.y,
        b.half_lengths.x,
        b.half_lengths.y,
    ];
    let mut w = start.0;
    // −1 / +1: held at the lower / upper bound; 0: free.
    let mut held = [0_i8; 4];
    for i in 0..4 {
        if w[i] >= h[i] {
            held[i] = 1;
        } else if w[i] <= -h[i] {
            held[i] = -1;
        }
    }
    for _ in 0..ACTIVE_SET_ROUNDS {
        for i in 0..4 {
            if held[i] != 0 {
                w[i] = f64::from(held[i]) * h[i];
            }
        }
        let free_a = [held[0] == 0, held[1] == 0];
        let free_b = [held[2] == 0, held[3] == 0];
        // Right-hand sides: the free coordinates' systems less what the
        // held ones of the other rectangle contribute.
        let mut ra = [0.0; 2];
        let mut rb = [0.0; 2];
        for i in 0..2 {
            ra[i] = -g0[i];
            rb[i] = -g0[2 + i];
            for j in 0..2 {
                if !free_b[j] {
                    ra[i] += k[i][j] * w[2 + j];
                }
                if !free_a[j] {
                    rb[i] += k[j][i] * w[j];
                }
            }
        }
        // a's free coordinates are `ra + K' wb`; b's solve
        // `(I − K'ᵀ K') wb = rb + K'ᵀ ra` (K' restricted to free ones).
        let mut sys = [[0.0; 2]; 2];
        let mut rhs = rb;
        for i in 0..2 {
            if free_a[i] {
                for j in 0..2 {
                    rhs[j] += k[i][j] * ra[i];
                    for l in 0..2 {
                        sys[j][l] -= k[i][j] * k[i][l];
                    }
                }
            }
        }
        sys[0][0] += 1.0;
        sys[1][1] += 1.0;
        let wb = match free_b {
            [false, false] => [0.0, 0.0],
            [true, false] => [solve_one(sys[0][0], rhs[0])?, 0.0],
            [false, true] => [0.0, solve_one(sys[1][1], rhs[1])?],
            [true, true] => {
                let det = sys[0][0] * sys[1][1] - sys[0][1] * sys[1][0];
                if det >= ACTIVE_SET_PIVOT {
                    [
                        (rhs[0] * sys[1][1] - rhs[1] * sys[0][1]) / det,
                        (rhs[1] * sys[0][0] - rhs[0] * sys[1][0]) / det,
                    ]
                } else if free_a == [true, true] {
                    along_planes_meet(a, b, &sys, rhs, [w[2], w[3]])?
                } else {
                    return None;
                }
            }
        };
        let mut left = false;
        for i in 0..4 {
            if held[i] != 0 {
                continue;
            }
            w[i] = if i < 2 {
                ra[i]
                    + (0..2)
                        .filter(|&j| free_b[j])
                        .map(|j| k[i][j] * wb[j])
                        .sum::<f64>()
            } else {
                wb[i - 2]
            };
            if w[i] > h[i] {
                held[i] = 1;
                left = true;
            } else if w[i] < -h[i] {
                held[i] = -1;
                left = true;
            }
        }
        if left {
            continue;
        }
        let mut worst = (0.0, None);
        for i in 0..4 {
            if held[i] != 0 && h[i] > 0.0 {
                let cross = if i < 2 {
                    -(k[i][0] * w[2] + k[i][1] * w[3])
                } else {
                    -(k[0][i - 2] * w[0] + k[1][i - 2] * w[1])
                };
                let pull = f64::from(held[i]) * (w[i] + cross + g0[i]);
                if pull > worst.0 {
                    worst = (pull, Some(i));
                }
            }
        }
        match worst.1 {
            Some(i) => held[i] = 0,
            None => {
                let p = a.center + ax * w[0] + ay * w[1];
                let q = b.center + bx * w[2] + by * w[3];
                return (p.is_finite() && q.is_finite()).then_some((p, q));
            }
        }
    }
    None
}

/// With all four coordinates free, `b`'s solve a singular system `sys`
/// (rank one: the points may slide together along the line where the
/// planes meet without changing their distance): the solution nearest
/// `b`'s current coordinates `wb`. `None` for planes parallel to within a
/// fifth of a degree.
fn along_planes_meet(
    a: &Rss,
    b: &Rss,
    sys: &[[f64; 2]; 2],
    rhs: [f64; 2],
    wb: [f64; 2],
) -> Option<[f64; 2]> {
    let line = a.axes.z_axis.cross(b.axes.z_axis);
    let along =
        glam::DVec2::new(line.dot(b.axes.x_axis), line.dot(b.axes.y_axis)).try_normalize()?;
    // `sys` is `λ u uᵀ` with `u` across the line, `λ` its trace.
    let lambda = sys[0][0] + sys[1][1];
    if !(lambda >= ACTIVE_SET_PIVOT) {
        return None;
    }
    let across = along.perp();
    let rhs = glam::DVec2::from(rhs);
    let wb = across * (across.dot(rhs) / lambda) + along * along.dot(glam::DVec2::from(wb));
    Some(wb.to_array())
}

/// `r / s` for a reduced system `s` not below [`ACTIVE_SET_PIVOT`].
#[inline]
fn solve_one(s: f64, r: f64) -> Option<f64> {
    (s >= ACTIVE_SET_PIVOT).then(|| r / s)
}

/// The certified slab gap of two swept rectangles along the unit `n`
/// (from `a` towards `b`).
fn slab_gap_rss(a: &Rss, b: &Rss, n: DVec3) -> (DVec3, f64) {
    let support = |r: &Rss| {
        r.half_lengths.x * r.axes.x_axis.dot(n).abs()
            + r.half_lengths.y * r.axes.y_axis.dot(n).abs()
            + r.radius
    };
    let scale = pair_scale(a, b);
    let gap = n.dot(b.center - a.center) - support(a) - support(b) - 64.0 * f64::EPSILON * scale;
    // NaN (bad input) separates nothing.
    (n, if gap.is_nan() { f64::NEG_INFINITY } else { gap })
}

/// Cheap bounds `(lower, upper)` on the distance between two rectangle
/// swept spheres, good enough to tell which side of `threshold` the
/// distance is on in most cases, at a fraction of the cost of
/// [`distance_rss_rss`].
///
/// - `lower` is certified in floating point like [`distance_rss_rss`]
///   (never above the distance of the swept shapes): the largest
///   projection gap on up to three axes — the line of the centres, then,
///   unless that already exceeds `threshold`, the two rectangle normals —
///   less the same rounding allowance, clamped at 0. The projection of a
///   swept rectangle on a unit axis `u` is its centre's ± `hx |x·u| + hy
///   |y·u| + r`, and two convex sets are at least their gap on any axis
///   apart. On the line of the centres it is within about `h² / d` of the
///   distance for rectangles of half lengths `h` at distance `d`.
/// - `upper` is the distance between two points of the shapes, less both
///   radii, clamped at 0: not certified (rounding may move it by a few
///   ulps), it shows cheaply that two shapes are close, or that `lower` is
///   nearly the distance. When `lower > threshold` it is an estimate of
///   the distance of the rectangles' corners extreme along the line of the
///   centres (so that `upper − lower` is of the order of `h² / d`),
///   otherwise the distance of a pair of rectangle points reached by
///   alternating projections from `b`'s centre (a few rounds, fewer once it
///   is within `threshold`).
///
/// NaN input gives `(NaN, NaN)`.
#[must_use]
pub fn distance_bounds_rss_rss(a: &Rss, b: &Rss, threshold: f64) -> (f64, f64) {
    // NaN input makes `lower` NaN, which takes neither early return; the
    // check is made before the normals' `f64::max` could drop it.
    let d = b.center - a.center;
    let (ax, ay, az) = (a.axes.x_axis, a.axes.y_axis, a.axes.z_axis);
    let (bx, by, bz) = (b.axes.x_axis, b.axes.y_axis, b.axes.z_axis);
    let (ha, hb) = (a.half_lengths, b.half_lengths);
    let radii = a.radius + b.radius;
    let scale = pair_scale(a, b);
    let allowance = radii + 64.0 * f64::EPSILON * scale;
    let len = d.length();
    let mut lower = 0.0_f64;
    if len > 0.0 {
        let u = d * (1.0 / len);
        let (sax, say) = (ax.dot(u), ay.dot(u));
        let (sbx, sby) = (bx.dot(u), by.dot(u));
        let support = ha.x * sax.abs() + ha.y * say.abs() + hb.x * sbx.abs() + hb.y * sby.abs();
        lower = len - support - allowance;
        if lower > threshold {
            return (lower, corner_estimate(len - support, lower, ha, hb, radii));
        }
        if len - radii <= threshold {
            // The centres alone show the shapes within the threshold.
            return (nonnegative(lower), nonnegative(len - radii));
        }
    }
    if any_nan_rss(a) || any_nan_rss(b) {
        return (f64::NAN, f64::NAN);
    }
    // On a rectangle's normal its own extent is 0: only the other's counts.
    let on_az = d.dot(az).abs() - (hb.x * bx.dot(az).abs() + hb.y * by.dot(az).abs());
    let on_bz = d.dot(bz).abs() - (ha.x * ax.dot(bz).abs() + ha.y * ay.dot(bz).abs());
    lower = lower.max(on_az.max(on_bz) - allowance);
    // Alternating projections from B's centre: A's rectangle point nearest
    // it, B's nearest that one, and so on; the pairs approach the closest
    // pair, and a few rounds show most overlapping shapes overlapping.
    let clamp = |x: f64, h: f64| x.clamp(-h, h);
    let on_a = |x: DVec3| {
        let e = x - a.center;
        a.center + ax * clamp(e.dot(ax), ha.x) + ay * clamp(e.dot(ay), ha.y)
    };
    let on_b = |x: DVec3| {
        let e = x - b.center;
        b.center + bx * clamp(e.dot(bx), hb.x) + by * clamp(e.dot(by), hb.y)
    };
    let mut q = b.center;
    let mut upper = f64::INFINITY;
    for _ in 0..PROJECTION_ROUNDS {
        let p = on_a(q);
        q = on_b(p);
        upper = p.distance(q) - radii;
        if upper <= threshold {
            break;
        }
    }
    (nonnegative(lower), nonnegative(upper))
}

/// Rounds of alternating projections behind the upper bound of
/// [`distance_bounds_rss_rss`].
const PROJECTION_ROUNDS: usize = 6;

/// The line-of-centres bounds of [`distance_bounds_rss_rss`] for `a` and
/// `b` given in their own frames and posed by `pose_a` and `pose_b`, rigid
/// maps to within [`super::RIGID_TOLERANCE`] (as those of
/// [`super::MeshObject`]s), as a bound on their distance in `a`'s frame —
/// without the relative pose: the cheap rejection of two far-apart
/// objects. The centres are posed, the line of the centres turned back into
/// each rectangle's frame (`Mᵀ u`); the images of the rectangles are the
/// parallelograms their posed axes span, and of the swept balls ellipsoids
/// within the radii grown by `1e-7` for the poses' stretch. The world
/// bound is lowered by the rounding of the posing and by `1e-8` of itself
/// for the stretch of `a`'s frame. `Some((lower, upper))` when `lower >
/// threshold` (certified as there), `None` otherwise or on NaN.
#[must_use]
pub(crate) fn posed_distance_bounds_rss_rss(
    a: &Rss,
    pose_a: &DAffine3,
    b: &Rss,
    pose_b: &DAffine3,
    threshold: f64,
) -> Option<(f64, f64)> {
    let ca = pose_a.transform_point3(a.center);
    let cb = pose_b.transform_point3(b.center);
    let d = cb - ca;
    let len = d.length();
    if !(len > 0.0) {
        return None;
    }
    let u = d * (1.0 / len);
    let back = |m: &glam::DMat3| DVec3::new(m.x_axis.dot(u), m.y_axis.dot(u), m.z_axis.dot(u));
    let (wa, wb) = (back(&pose_a.matrix3), back(&pose_b.matrix3));
    let (ha, hb) = (a.half_lengths, b.half_lengths);
    let (sax, say) = (a.axes.x_axis.dot(wa), a.axes.y_axis.dot(wa));
    let (sbx, sby) = (b.axes.x_axis.dot(wb), b.axes.y_axis.dot(wb));
    let support = ha.x * sax.abs() + ha.y * say.abs() + hb.x * sbx.abs() + hb.y * sby.abs();
    let radii = (a.radius + b.radius) * (1.0 + 1e-7);
    let flat = ha.abs().element_sum() + hb.abs().element_sum();
    // The bound's own rounding (as `distance_rss_rss`, at the posed
    // coordinates), and the posing's: `M c + t` within 16 ulps of
    // `2 |c| + |t|` (rows of a near-rotation sum to at most √3), the
    // posed axes within a few ulps, times the half lengths.
    let rounding = 64.0
        * f64::EPSILON
        * (ca.abs().max_element() + cb.abs().max_element() + flat + radii.abs())
        + 32.0
            * f64::EPSILON
            * (2.0 * (a.center.abs().max_element() + b.center.abs().max_element())
                + pose_a.translation.abs().max_element()
                + pose_b.translation.abs().max_element()
                + flat);
    let lower = (len - support - radii - rounding) * (1.0 - 1e-8);
    // `!(lower > threshold)` also catches NaN.
    if !(lower > threshold) {
        return None;
    }
    Some((lower, corner_estimate(len - support, lower, ha, hb, radii)))
}

/// The upper bound of [`distance_bounds_rss_rss`] when the line of the
/// centres separates, without computing the corners: A's corner farthest
/// along the line and B's farthest back are `gap` apart along it and at
/// most `H = Σ h` (the four half lengths) across it, so within
/// `√(gap² + H²) ≤ gap + H² / (2 gap)` of each other; less the radii. Not
/// below `lower`.
#[inline]
fn corner_estimate(gap: f64, lower: f64, ha: glam::DVec2, hb: glam::DVec2, radii: f64) -> f64 {
    let h = ha.element_sum() + hb.element_sum();
    (gap + h * h / (2.0 * gap) - radii).max(lower)
}

#[cfg(test)]
mod separation_tests {
    use super::*;
    use glam::{DMat3, DQuat, DVec2};
    use proptest::prelude::*;
    use proptest::strategy::ValueTree;

    fn rss() -> impl Strategy<Value = Rss> {
        (
            prop::array::uniform3(-2.0..2.0_f64),
            prop::array::uniform4(-1.0..1.0_f64),
            0.0..1.0_f64,
            0.0..1.0_f64,
            prop_oneof![Just(0.0), 0.0..0.3_f64],
        )
            .prop_map(|(c, q, hx, hy, r)| {
                let q = DQuat::from_xyzw(q[0], q[1], q[2], q[3] + 1.5).normalize();
                Rss::new(
                    DVec3::from_array(c),
                    DMat3::from_quat(q),
                    DVec2::new(hx, hy),
                    r,
                )
            })
    }

    /// Points of a core rectangle: its corners, edge midpoints and a grid.
    fn samples(r: &Rss) -> Vec<DVec3> {
        let mut out = Vec::new();
        for i in 0..=6 {
            for j in 0..=6 {
                let (u, v) = (f64::from(i) / 3.0 - 1.0, f64::from(j) / 3.0 - 1.0);
                out.push(
                    r.center
                        + r.axes.x_axis * (r.half_lengths.x * u)
                        + r.axes.y_axis * (r.half_lengths.y * v),
                );
            }
        }
        out
    }

    /// The least distance of the sampled points of two swept shapes.
    fn sampled_distance(a: &Rss, b: &Rss) -> f64 {
        samples(a)
            .iter()
            .flat_map(|p| samples(b).into_iter().map(move |q| p.distance(q)))
            .fold(f64::INFINITY, f64::min)
            - (a.radius + b.radius)
    }

    /// Distance from `p` to the core rectangle of `r`.
    fn off_rect(p: DVec3, r: &Rss) -> f64 {
        let e = p - r.center;
        let du = (e.dot(r.axes.x_axis).abs() - r.half_lengths.x).max(0.0);
        let dv = (e.dot(r.axes.y_axis).abs() - r.half_lengths.y).max(0.0);
        (du * du + dv * dv + e.dot(r.axes.z_axis).powi(2)).sqrt()
    }

    /// Checks a pair from [`refined_pair`] against the feature tests:
    /// both points on their rectangles, as close as the closest pair.
    fn assert_closest(a: &Rss, b: &Rss, (p, q): (DVec3, DVec3)) {
        let tol = 1e-9 * (1.0 + pair_scale(a, b));
        let exact = closest_points_rectangle_rectangle(a, b).distance;
        assert!(
            off_rect(p, a) <= tol && off_rect(q, b) <= tol,
            "{p} {q} off the rectangles"
        );
        assert!(
            (p.distance(q) - exact).abs() <= tol,
            "refined {} exact {exact}",
            p.distance(q)
        );
    }

    /// Upright rectangles crossing a flat square: alternating projections
    /// stop inside both (all four coordinates free, a singular system),
    /// and the refined pair meets on the line where the planes do; where
    /// that line misses the square, the pair is the exact one.
    #[test]
    fn refined_pair_of_crossing_planes() {
        let flat = Rss::new(DVec3::ZERO, DMat3::IDENTITY, DVec2::new(1.0, 1.0), 0.0);
        let turned = DVec3::new(0.5 * 3f64.sqrt(), 0.5, 0.0);
        let upright = DMat3::from_cols(turned, DVec3::Z, turned.cross(DVec3::Z));
        for (centre, meets) in [
            (DVec3::new(0.3, 0.2, 0.1), true),
            (DVec3::new(3.0, 0.0, 0.1), false),
        ] {
            let b = Rss::new(centre, upright, DVec2::new(2.5, 1.0), 0.0);
            let (_, _, start) = projected_pair(&flat, &b);
            let pair = refined_pair(&flat, &b, start).expect("crossing planes are refined");
            assert_closest(&flat, &b, pair);
            assert_eq!(pair.0.distance(pair.1) < 1e-12, meets);
        }
    }

    /// The active-set method settles most random pairs (it is not a
    /// path that never runs): a fixed sample of rectangle pairs.
    #[test]
    fn refined_pair_settles_most_random_pairs() {
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let strategy = (rss(), rss());
        let (mut settled, total) = (0, 1000);
        for _ in 0..total {
            let (a, b) = strategy.new_tree(&mut runner).expect("a sample").current();
            let (_, _, start) = projected_pair(&a, &b);
            if let Some(pair) = refined_pair(&a, &b, start) {
                assert_closest(&a, &b, pair);
                settled += 1;
            }
        }
        assert!(settled * 10 >= total * 9, "{settled} of {total} settled");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Wherever the active-set method settles a pair, from where
        /// alternating projections stop or from the centres, it is the
        /// closest pair of the feature tests.
        #[test]
        fn refined_pair_is_the_closest_pair(a in rss(), b in rss(), from_centres in any::<bool>()) {
            let start = if from_centres {
                RectCoords([0.0; 4])
            } else {
                projected_pair(&a, &b).2
            };
            if let Some(pair) = refined_pair(&a, &b, start) {
                assert_closest(&a, &b, pair);
            }
        }

        /// The gap is certified (never above the distance of two sampled
        /// points of the swept shapes), within the slack of the exact
        /// distance whenever the pair is beyond the contact distance, and
        /// `−∞` only for a pair within it.
        #[test]
        fn separation_is_certified_and_nearly_the_distance(
            a in rss(),
            b in rss(),
            contact in prop_oneof![Just(0.0), 0.0..0.5_f64],
        ) {
            let (n, g) = separation_rss(&a, &b, contact);
            let radii = a.radius + b.radius;
            let tol = 1e-12 * (1.0 + pair_scale(&a, &b));
            let sampled = sampled_distance(&a, &b);
            prop_assert!(g <= sampled + tol, "gap {g} above a sampled distance {sampled}");
            let exact = closest_points_rectangle_rectangle(&a, &b).distance - radii;
            if g == f64::NEG_INFINITY {
                prop_assert!(exact <= contact + tol, "no gap for a pair {exact} apart (contact {contact})");
            } else {
                prop_assert!((n.length() - 1.0).abs() < 1e-9);
                if exact > contact + tol {
                    prop_assert!(
                        g >= exact * (1.0 - APPROX_SLACK) - tol,
                        "gap {g} for a distance {exact}"
                    );
                }
            }
            // The near lower bound: certified, 0 only for shapes that
            // meet, and within the slack of the exact bound.
            let near = near_distance_lower_bound_rss(&a, &b, |_| false);
            prop_assert!(near <= sampled.max(0.0) + tol, "bound {near} above a sampled distance {sampled}");
            prop_assert!(near >= 0.0);
            prop_assert!(
                near >= distance_rss_rss(&a, &b) * (1.0 - APPROX_SLACK) - tol,
                "bound {near} for a distance {}",
                distance_rss_rss(&a, &b)
            );
            // With a pruning rule, a cheaper bound comes back only when it
            // prunes, and it is certified all the same.
            let cut = 0.5 * distance_rss_rss(&a, &b);
            let pruned = near_distance_lower_bound_rss(&a, &b, |g| g >= cut);
            prop_assert!(pruned <= sampled.max(0.0) + tol, "bound {pruned} above a sampled distance {sampled}");
            prop_assert!(
                pruned >= cut || pruned == near,
                "bound {pruned} neither prunes (at {cut}) nor is the near bound {near}"
            );
        }

        /// The thresholded test: `true` only for shapes farther apart
        /// than the threshold (by sampled points and by the rectangles'
        /// exact closest points), and `true` for every
        /// pair whose exact bound exceeds the threshold by a margin.
        #[test]
        fn apart_beyond_is_certified_and_complete(
            a in rss(),
            b in rss(),
            near in 0.0..1.0_f64,
            factor in 0.8..1.2_f64,
        ) {
            let radii = a.radius + b.radius;
            let tol = 1e-12 * (1.0 + pair_scale(&a, &b));
            let sampled = sampled_distance(&a, &b);
            let exact = closest_points_rectangle_rectangle(&a, &b).distance - radii;
            // Mostly near the distance, where a loose test would err.
            let threshold = if near < 0.8 { exact.max(0.0) * factor } else { 0.5 * near };
            let apart = apart_beyond_rss(&a, &b, threshold);
            if apart {
                prop_assert!(sampled > threshold - tol, "apart beyond {threshold}, sampled {sampled}");
                prop_assert!(exact > threshold - tol, "apart beyond {threshold}, distance {exact}");
            }
            if distance_rss_rss(&a, &b) > threshold + tol {
                prop_assert!(apart, "not apart beyond {threshold} at {}", distance_rss_rss(&a, &b));
            }
        }
    }
}
