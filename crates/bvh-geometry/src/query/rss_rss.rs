//! RSS–RSS distance (rectangle–rectangle distance minus the radii).

use glam::DVec3;

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
    let scale = a.center.abs().max_element()
        + b.center.abs().max_element()
        + a.half_lengths.abs().element_sum()
        + b.half_lengths.abs().element_sum()
        + a.radius.abs()
        + b.radius.abs();
    nonnegative(c.distance - a.radius - b.radius - 64.0 * f64::EPSILON * scale)
}

/// Cheap bounds `(lower, upper)` on the distance between two rectangle
/// swept spheres, for traversals that only need to know which side of a
/// threshold a pair is on: a fraction of the cost of [`distance_rss_rss`].
///
/// - `lower` is certified in floating point like [`distance_rss_rss`]
///   (never above the distance of the swept shapes): the largest
///   projection gap on three axes — the line of the centres and the two
///   rectangle normals — less the same rounding allowance, clamped at 0.
///   The projection of a swept rectangle on a unit axis `u` is its centre's
///   ± `hx |x·u| + hy |y·u| + r`, and two convex sets are at least their
///   gap on any axis apart. It equals the distance for two balls
///   (degenerate rectangles) and for facing parallel rectangles, and may
///   be far below it otherwise.
/// - `upper` is the distance between two points of the shapes (the
///   rectangle point nearest the other centre, then the other rectangle's
///   point nearest that one, less both radii), clamped at 0: not certified
///   (rounding may move it by a few ulps), it is meant to show cheaply that
///   two shapes are close.
///
/// NaN input gives `(NaN, NaN)`.
#[must_use]
pub fn distance_bounds_rss_rss(a: &Rss, b: &Rss) -> (f64, f64) {
    let d = b.center - a.center;
    let (ax, ay, az) = (a.axes.x_axis, a.axes.y_axis, a.axes.z_axis);
    let (bx, by, bz) = (b.axes.x_axis, b.axes.y_axis, b.axes.z_axis);
    let (ha, hb) = (a.half_lengths, b.half_lengths);
    let radii = a.radius + b.radius;
    let support = |u: DVec3| {
        ha.x * ax.dot(u).abs()
            + ha.y * ay.dot(u).abs()
            + hb.x * bx.dot(u).abs()
            + hb.y * by.dot(u).abs()
    };
    // On a rectangle's normal its own extent is 0: only the other's counts.
    let on_az = d.dot(az).abs() - (hb.x * bx.dot(az).abs() + hb.y * by.dot(az).abs());
    let on_bz = d.dot(bz).abs() - (ha.x * ax.dot(bz).abs() + ha.y * ay.dot(bz).abs());
    let len = d.length();
    let on_d = if len > 0.0 {
        let u = d / len;
        len - support(u)
    } else {
        0.0
    };
    let scale = a.center.abs().max_element()
        + b.center.abs().max_element()
        + ha.abs().element_sum()
        + hb.abs().element_sum()
        + a.radius.abs()
        + b.radius.abs();
    // `f64::max` drops a NaN: the NaN input check is explicit.
    if any_nan_rss(a) || any_nan_rss(b) {
        return (f64::NAN, f64::NAN);
    }
    let gap = on_d.max(on_az).max(on_bz);
    let lower = nonnegative(gap - radii - 64.0 * f64::EPSILON * scale);
    // The point of A's rectangle nearest B's centre, then B's nearest it.
    let clamp = |x: f64, h: f64| x.clamp(-h, h);
    let p = a.center + ax * clamp(d.dot(ax), ha.x) + ay * clamp(d.dot(ay), ha.y);
    let e = p - b.center;
    let q = b.center + bx * clamp(e.dot(bx), hb.x) + by * clamp(e.dot(by), hb.y);
    let upper = nonnegative(p.distance(q) - radii);
    (lower, upper)
}
