//! Convex hulls of point sets in 3-D (quickhull with exact orientation).
//!
//! **What.** [`ConvexHull::new`] returns the hull of a point cloud as
//! indices into the input: outward-oriented triangles and the vertex set
//! for a full-dimensional cloud ([`HullShape::Polyhedron`]), or a typed
//! lower-dimensional answer when every point lies within the tolerance of
//! a plane ([`HullShape::Polygon`]), a line ([`HullShape::Segment`]) or a
//! point ([`HullShape::Point`]). Link hulls feed the temporal culling of
//! CATCH (M4 §6.2), GJK distances and the convex pieces of M3's SSCHs.
//!
//! **Why this design.** Quickhull (Barber, Dobkin & Huhdanpaa 1996) adds
//! the farthest outside point of a face, deletes the faces it sees and
//! closes the hole with a cone. Its classic failure is topological: with
//! rounded arithmetic, near-coplanar faces (grids, points on a sphere,
//! flat clouds) can be classified inconsistently, the visible region stops
//! being a disc and the mesh tears. Here the two decisions are split:
//!
//! - *which point to add* uses distances with the **tolerance** `τ`
//!   (scaled by the cloud's extent, [`HullOptions`]): a point within `τ`
//!   of the current hull is not added, so new faces are never thinner
//!   than `τ` and near-coplanar clutter stays out of the hull;
//! - *which faces the added point sees* uses an **exact** orientation
//!   predicate (a floating-point filter with an exact expansion-arithmetic
//!   fallback, after Shewchuk), so the visible region is always a disc,
//!   the horizon a simple cycle, and the surface stays a closed, convex
//!   triangulation. Coplanar neighbours are simply kept as separate
//!   triangles.
//!
//! A final sweep re-tests every point that was set aside while near the
//! surface, so the containment guarantee below holds for the final hull
//! and not just for the hull of the moment. A vertex left in the relative
//! interior of a facet or an edge (an exactly coplanar or collinear tie)
//! is detected exactly and the hull rebuilt from the extreme points.
//!
//! **Guarantee** (for [`HullShape::Polyhedron`], with `τ` =
//! [`ConvexHull::tolerance`]):
//! - every input point `p` satisfies `n·(p − a) ≤ τ` for every triangle
//!   `(a, b, c)` with unit normal `n ∝ (b − a) × (c − a)`;
//! - every triangle is counter-clockwise seen from outside; the triangles
//!   form a closed surface (each edge shared by exactly two triangles, in
//!   opposite directions) with `V − E + F = 2`; the surface is convex:
//!   no hull vertex lies above any triangle's plane;
//! - every hull vertex is an extreme point (not in the convex hull of the
//!   other hull vertices); of duplicate points one index is used.
//!
//! The lower-dimensional answers guarantee that every input point lies
//! within `τ` of the returned point, of the segment, or of a plane with
//! the polygon's normal (and inside the polygon, seen along that normal).
//! Everything is deterministic; nothing panics on finite input.
//!
//! ```
//! use armature_bvh_geometry::{ConvexHull, GeometryError, HullShape};
//! use glam::DVec3;
//!
//! // A cube's corners plus its centre and a duplicate corner.
//! let mut points: Vec<DVec3> = (0..8)
//!     .map(|i| DVec3::new((i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64))
//!     .collect();
//! points.push(DVec3::splat(0.5));
//! points.push(DVec3::ONE);
//! let hull = ConvexHull::new(&points)?;
//! assert_eq!(hull.dim(), 3);
//! assert_eq!(hull.vertices(), &[0, 1, 2, 3, 4, 5, 6, 7]);
//! assert_eq!(hull.triangles().len(), 12);
//!
//! // Coplanar points give a typed flat answer instead of a broken solid.
//! let square = [DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::new(1.0, 1.0, 0.0)];
//! let flat = ConvexHull::new(&square)?;
//! assert!(matches!(flat.shape(), HullShape::Polygon { vertices, .. } if vertices.len() == 4));
//! # Ok::<(), GeometryError>(())
//! ```

use glam::DVec3;

use crate::GeometryError;

/// Options for [`ConvexHull::with_options`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HullOptions {
    /// Tolerance relative to the cloud's extent (the diagonal of its
    /// bounding box). Default [`HullOptions::DEFAULT_RELATIVE_TOLERANCE`].
    pub relative_tolerance: f64,
    /// Tolerance in the points' units, for when the data's accuracy is
    /// known (a mesh exported in millimetres with 0.01 mm resolution).
    /// Default 0.
    pub absolute_tolerance: f64,
}

impl HullOptions {
    /// Default relative tolerance: `1e-10`, a million times the rounding
    /// error of the coordinates and far below any modelling accuracy.
    pub const DEFAULT_RELATIVE_TOLERANCE: f64 = 1e-10;

    /// The effective relative tolerance never drops below this (`1e-12`),
    /// so it stays well above the rounding error of the distances that
    /// decide which points to add.
    pub const MIN_RELATIVE_TOLERANCE: f64 = 1e-12;

    /// Sets [`HullOptions::relative_tolerance`].
    #[must_use]
    pub fn with_relative_tolerance(mut self, tolerance: f64) -> Self {
        self.relative_tolerance = tolerance;
        self
    }

    /// Sets [`HullOptions::absolute_tolerance`].
    #[must_use]
    pub fn with_absolute_tolerance(mut self, tolerance: f64) -> Self {
        self.absolute_tolerance = tolerance;
        self
    }
}

impl Default for HullOptions {
    fn default() -> Self {
        Self {
            relative_tolerance: Self::DEFAULT_RELATIVE_TOLERANCE,
            absolute_tolerance: 0.0,
        }
    }
}

/// The shape of a convex hull, as indices into the input points.
#[derive(Debug, Clone, PartialEq)]
pub enum HullShape {
    /// A full-dimensional hull.
    Polyhedron {
        /// The hull vertices, ascending.
        vertices: Vec<u32>,
        /// Outward-oriented (counter-clockwise from outside) triangles.
        triangles: Vec<[u32; 3]>,
    },
    /// Every point lies within the tolerance of a plane: a convex polygon.
    Polygon {
        /// The polygon's corners, counter-clockwise about `normal`, without
        /// collinear corners.
        vertices: Vec<u32>,
        /// Unit normal of the plane.
        normal: DVec3,
    },
    /// Every point lies within the tolerance of a line: a segment.
    Segment {
        /// The two ends.
        ends: [u32; 2],
    },
    /// Every point lies within the tolerance of one point.
    Point {
        /// The point.
        index: u32,
    },
}

/// The convex hull of a point set (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq)]
pub struct ConvexHull {
    shape: HullShape,
    tolerance: f64,
}

impl ConvexHull {
    /// The hull of `points` with default [`HullOptions`].
    ///
    /// # Errors
    /// [`GeometryError::EmptyPointSet`], [`GeometryError::NonFinitePoint`]
    /// (naming the point) or [`GeometryError::TooManyPoints`].
    pub fn new(points: &[DVec3]) -> Result<Self, GeometryError> {
        Self::with_options(points, &HullOptions::default())
    }

    /// The hull of `points` under `options`.
    ///
    /// # Errors
    /// As [`ConvexHull::new`], plus [`GeometryError::InvalidParameter`] for
    /// a negative or non-finite tolerance.
    pub fn with_options(points: &[DVec3], options: &HullOptions) -> Result<Self, GeometryError> {
        for (name, value) in [
            ("relative_tolerance", options.relative_tolerance),
            ("absolute_tolerance", options.absolute_tolerance),
        ] {
            crate::error::non_negative(name, value)?;
        }
        if points.is_empty() {
            return Err(GeometryError::EmptyPointSet);
        }
        if points.len() > u32::MAX as usize + 1 {
            return Err(GeometryError::TooManyPoints {
                count: points.len(),
            });
        }
        if let Some(index) = points.iter().position(|p| !p.is_finite()) {
            return Err(GeometryError::NonFinitePoint {
                index,
                value: points[index],
            });
        }
        Ok(build(points, options))
    }

    /// The shape.
    #[must_use]
    pub fn shape(&self) -> &HullShape {
        &self.shape
    }

    /// Consumes the hull, returning its shape.
    #[must_use]
    pub fn into_shape(self) -> HullShape {
        self.shape
    }

    /// The tolerance `τ` the guarantees hold with, in the points' units
    /// (the requested tolerance plus a bound on the rounding error of the
    /// distances that decided).
    #[must_use]
    pub fn tolerance(&self) -> f64 {
        self.tolerance
    }

    /// The dimension: 3 for a polyhedron, 2 for a polygon, 1 for a
    /// segment, 0 for a point.
    #[must_use]
    pub fn dim(&self) -> usize {
        match self.shape {
            HullShape::Polyhedron { .. } => 3,
            HullShape::Polygon { .. } => 2,
            HullShape::Segment { .. } => 1,
            HullShape::Point { .. } => 0,
        }
    }

    /// Whether the points span less than three dimensions (within the
    /// tolerance).
    #[must_use]
    pub fn is_degenerate(&self) -> bool {
        self.dim() < 3
    }

    /// The hull's vertices: ascending for a polyhedron, in order around the
    /// polygon, the two ends of a segment, or the one point.
    #[must_use]
    pub fn vertices(&self) -> &[u32] {
        match &self.shape {
            HullShape::Polyhedron { vertices, .. } | HullShape::Polygon { vertices, .. } => {
                vertices
            }
            HullShape::Segment { ends } => ends,
            HullShape::Point { index } => std::slice::from_ref(index),
        }
    }

    /// The outward triangles of a polyhedron; empty for a degenerate hull.
    #[must_use]
    pub fn triangles(&self) -> &[[u32; 3]] {
        match &self.shape {
            HullShape::Polyhedron { triangles, .. } => triangles,
            _ => &[],
        }
    }
}

/// Builds the hull of finite, non-empty points.
fn build(points: &[DVec3], options: &HullOptions) -> ConvexHull {
    let max_abs = points
        .iter()
        .fold(0.0_f64, |m, p| m.max(p.abs().max_element()));
    if max_abs == 0.0 {
        return ConvexHull {
            shape: HullShape::Point { index: 0 },
            tolerance: options.absolute_tolerance,
        };
    }
    // Work on copies scaled by a power of two into [1/4, 2): exact, and it
    // keeps the products of the exact predicates away from overflow and
    // underflow. Coordinates below 2^-300 of the largest are flushed to
    // zero for the same reason; that perturbs by far less than τ.
    let exp = -(max_abs.log2().floor() as i32) - 1;
    let flush = pow2(-300);
    let work: Vec<DVec3> = points
        .iter()
        .map(|&p| {
            let w = scale_pow2(p, exp);
            DVec3::select(w.abs().cmplt(DVec3::splat(flush)), DVec3::ZERO, w)
        })
        .collect();
    let (lo, hi) = work
        .iter()
        .fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), &p| {
            (lo.min(p), hi.max(p))
        });
    let extent = (hi - lo).length();
    let rel = options
        .relative_tolerance
        .max(HullOptions::MIN_RELATIVE_TOLERANCE);
    let tol = (rel * extent).max(scale_pow2(DVec3::splat(options.absolute_tolerance), exp).x);
    // Distances are n·(q − a) with an accurately rounded unit normal n and
    // |q − a| ≤ extent: a few ulps of the extent bound their error; the
    // flush moved points by at most √3·2^-300.
    let slack = 32.0 * f64::EPSILON * extent + 2.0 * flush;
    let all: Vec<u32> = (0..work.len() as u32).collect();
    let mut shape = hull_of(&work, &all, tol, slack);
    // A vertex left inside a flat facet or an edge (an exact tie) is
    // removed by rebuilding the same polytope from the extreme vertices
    // with exact decisions only, which adds every one of them and nothing
    // else.
    if let HullShape::Polyhedron {
        vertices,
        triangles,
    } = &shape
    {
        let bad = non_extreme_vertices(&work, vertices, triangles);
        if !bad.is_empty() {
            let extreme: Vec<u32> = vertices
                .iter()
                .copied()
                .filter(|v| bad.binary_search(v).is_err())
                .collect();
            if let Some(rebuilt) = rebuild_exact(&work, &extreme, tol, slack) {
                shape = rebuilt;
            }
        }
    }
    ConvexHull {
        shape,
        tolerance: scale_pow2(DVec3::splat(tol + slack), -exp).x,
    }
}

/// `2^k` for `-1022 ≤ k ≤ 1023`.
fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// `p · 2^k`, in two steps so that neither factor leaves the normal range.
fn scale_pow2(p: DVec3, k: i32) -> DVec3 {
    let half = k / 2;
    p * pow2(half) * pow2(k - half)
}

/// The hull of the points `subset` of `pts` (non-empty).
fn hull_of(pts: &[DVec3], subset: &[u32], tol: f64, slack: f64) -> HullShape {
    let p = |i: u32| pts[i as usize];
    // The lexicographically smallest point is extreme, a good first corner.
    let i0 = subset
        .iter()
        .copied()
        .min_by(|&a, &b| {
            let (pa, pb) = (p(a), p(b));
            pa.x.total_cmp(&pb.x)
                .then(pa.y.total_cmp(&pb.y))
                .then(pa.z.total_cmp(&pb.z))
        })
        .unwrap_or(subset[0]);
    // Point: everything within τ of it.
    let (i1, d1) = farthest(subset, |j| (p(j) - p(i0)).length());
    if d1 <= tol {
        return HullShape::Point { index: i0 };
    }
    // Segment: everything within τ of the line through i0 and i1.
    let axis = (p(i1) - p(i0)) / d1;
    let (i2, d2) = farthest(subset, |j| (p(j) - p(i0)).cross(axis).length());
    if d2 <= tol {
        let t = |j: u32| (p(j) - p(i0)).dot(axis);
        let (lo, _) = farthest(subset, |j| -t(j));
        let (hi, _) = farthest(subset, t);
        return HullShape::Segment { ends: [lo, hi] };
    }
    // Polygon: everything within τ of the plane through i0, i1, i2.
    let normal = exact::unit_normal(p(i0), p(i1), p(i2));
    let (i3, d3) = farthest(subset, |j| normal.dot(p(j) - p(i0)).abs());
    let orientation = exact::orient3d(p(i0), p(i1), p(i2), p(i3));
    if d3 <= tol || orientation == 0.0 {
        return polygon(pts, subset, normal);
    }
    let mut builder = Builder::new(pts, tol, slack, false);
    builder.run(subset, [i0, i1, i2, i3], orientation > 0.0);
    builder.into_shape()
}

/// The hull of `extreme`, the extreme vertices of a full-dimensional hull,
/// with exact decisions only: a point joins an outside set when it is
/// strictly above a face, so every extreme point becomes a vertex and the
/// polytope (hence every face plane) is the one they span. `None` if no
/// non-degenerate starting tetrahedron is found (impossible for the
/// vertices of a full-dimensional hull).
fn rebuild_exact(pts: &[DVec3], extreme: &[u32], tol: f64, slack: f64) -> Option<HullShape> {
    let p = |i: u32| pts[i as usize];
    let (&i0, rest) = extreme.split_first()?;
    let (i1, _) = farthest(rest, |j| (p(j) - p(i0)).length());
    let axis = (p(i1) - p(i0)).normalize_or_zero();
    let (i2, _) = farthest(rest, |j| (p(j) - p(i0)).cross(axis).length());
    let normal = exact::unit_normal(p(i0), p(i1), p(i2));
    if normal == DVec3::ZERO {
        return None;
    }
    let (i3, _) = farthest(rest, |j| normal.dot(p(j) - p(i0)).abs());
    let i3 = std::iter::once(i3)
        .chain(rest.iter().copied())
        .find(|&j| exact::orient3d(p(i0), p(i1), p(i2), p(j)) != 0.0)?;
    let above = exact::orient3d(p(i0), p(i1), p(i2), p(i3)) > 0.0;
    let mut builder = Builder::new(pts, tol, slack, true);
    builder.run(extreme, [i0, i1, i2, i3], above);
    Some(builder.into_shape())
}

/// The element of `subset` with the largest `key` (the first one on ties),
/// and that key.
fn farthest(subset: &[u32], key: impl Fn(u32) -> f64) -> (u32, f64) {
    let mut best = (subset[0], key(subset[0]));
    for &j in &subset[1..] {
        let k = key(j);
        if k > best.1 {
            best = (j, k);
        }
    }
    best
}

/// The 2-D hull of points within τ of a plane with unit `normal`: Andrew's
/// monotone chain on the coordinates left after dropping the axis closest
/// to the normal (exact values, exact orientation), so the polygon holds
/// every projected point.
fn polygon(pts: &[DVec3], subset: &[u32], normal: DVec3) -> HullShape {
    let k = normal.abs().max_position();
    // (u, v, axis k) is right-handed, so counter-clockwise in (u, v) is
    // counter-clockwise about +e_k.
    let (iu, iv) = [(1, 2), (2, 0), (0, 1)][k];
    let uv = |i: u32| {
        let q = pts[i as usize];
        (q[iu], q[iv])
    };
    let mut order: Vec<u32> = subset.to_vec();
    order.sort_by(|&a, &b| {
        let (pa, pb) = (uv(a), uv(b));
        pa.0.total_cmp(&pb.0)
            .then(pa.1.total_cmp(&pb.1))
            .then(a.cmp(&b))
    });
    order.dedup_by(|b, a| uv(*a) == uv(*b));
    let turns_left = |a: u32, b: u32, c: u32| exact::orient2d(uv(a), uv(b), uv(c)) > 0.0;
    let mut chain: Vec<u32> = Vec::with_capacity(order.len() + 1);
    for pass in 0..2 {
        let start = chain.len();
        let iter: Box<dyn Iterator<Item = &u32>> = if pass == 0 {
            Box::new(order.iter())
        } else {
            Box::new(order.iter().rev())
        };
        for &i in iter {
            while chain.len() >= start + 2
                && !turns_left(chain[chain.len() - 2], chain[chain.len() - 1], i)
            {
                chain.pop();
            }
            chain.push(i);
        }
        // The last point of each half chain starts the other one.
        chain.pop();
    }
    match chain.len() {
        0 => HullShape::Point { index: order[0] },
        1 | 2 => HullShape::Segment {
            ends: [order[0], order[order.len() - 1]],
        },
        _ => {
            if normal[k] < 0.0 {
                chain.reverse();
            }
            HullShape::Polygon {
                vertices: chain,
                normal,
            }
        }
    }
}

/// A triangle of the hull under construction.
struct Face {
    /// Corners, counter-clockwise from outside.
    v: [u32; 3],
    /// `adj[k]`: the face across edge `v[k] → v[k+1]`.
    adj: [u32; 3],
    /// Accurately rounded unit outward normal.
    normal: DVec3,
    /// Points more than τ above this face, assigned to it.
    outside: Vec<u32>,
    alive: bool,
}

/// Incremental quickhull state.
struct Builder<'a> {
    pts: &'a [DVec3],
    tol: f64,
    slack: f64,
    faces: Vec<Face>,
    /// Per face: the stamp of the last visibility search that deleted it.
    mark: Vec<u32>,
    stamp: u32,
    /// Points set aside while possibly above the surface (within τ); the
    /// final sweep tests them against the final faces.
    recheck: Vec<u32>,
    scratch: Vec<u32>,
    /// Exact mode: a point is outside a face when it is strictly above it
    /// (no tolerance), and nothing is set aside.
    exact: bool,
}

impl<'a> Builder<'a> {
    fn new(pts: &'a [DVec3], tol: f64, slack: f64, exact: bool) -> Self {
        Self {
            pts,
            tol,
            slack,
            faces: Vec::new(),
            mark: Vec::new(),
            stamp: 0,
            recheck: Vec::new(),
            scratch: Vec::new(),
            exact,
        }
    }

    fn p(&self, i: u32) -> DVec3 {
        self.pts[i as usize]
    }

    /// Signed distance of point `q` above face `f` (rounded).
    fn dist(&self, f: u32, q: u32) -> f64 {
        let face = &self.faces[f as usize];
        face.normal.dot(self.p(q) - self.p(face.v[0]))
    }

    /// Whether `q` is strictly above the plane of face `f` (exact).
    fn sees(&self, f: u32, q: u32) -> bool {
        let [a, b, c] = self.faces[f as usize].v;
        exact::orient3d(self.p(a), self.p(b), self.p(c), self.p(q)) > 0.0
    }

    fn add_face(&mut self, v: [u32; 3], adj: [u32; 3]) -> u32 {
        let normal = exact::unit_normal(self.p(v[0]), self.p(v[1]), self.p(v[2]));
        self.faces.push(Face {
            v,
            adj,
            normal,
            outside: Vec::new(),
            alive: true,
        });
        self.mark.push(0);
        (self.faces.len() - 1) as u32
    }

    /// The edge index `k` of face `f` whose edge is `b → a` (the twin of
    /// `a → b`).
    fn twin_edge(&self, f: u32, a: u32, b: u32) -> usize {
        let v = self.faces[f as usize].v;
        (0..3)
            .find(|&k| v[k] == b && v[(k + 1) % 3] == a)
            .unwrap_or(0)
    }

    /// Offers point `q` to the faces `candidates`: it joins the outside set
    /// of the first one it is more than τ above; otherwise it is set aside
    /// for the final sweep unless it is certainly below them all.
    ///
    /// Why below the cone faces suffices: `q` comes from the outside set
    /// of a deleted face `F`, so `q` and the eye `e` are both strictly
    /// above `F`'s plane and the segment `e q` misses the old hull. The
    /// cone faces bound the cone from `e` over the old hull; a point of
    /// that cone lies on a ray from `e` through the old hull, and since
    /// `e q` misses it, `q` lies between `e` and the old hull: inside the
    /// new hull, which only grows afterwards. (For the first tetrahedron,
    /// below its four faces simply means inside it.)
    fn assign(&mut self, q: u32, candidates: std::ops::Range<u32>) {
        if self.exact {
            // Strictly above no candidate: inside for good (see above).
            if let Some(f) = candidates
                .into_iter()
                .find(|&f| self.faces[f as usize].alive && self.sees(f, q))
            {
                self.faces[f as usize].outside.push(q);
            }
            return;
        }
        let mut highest = f64::NEG_INFINITY;
        for f in candidates {
            if !self.faces[f as usize].alive {
                continue;
            }
            let d = self.dist(f, q);
            if d > self.tol {
                self.faces[f as usize].outside.push(q);
                return;
            }
            highest = highest.max(d);
        }
        // Below every candidate by more than the rounding error: inside
        // for good (see above).
        if highest > -self.slack {
            self.recheck.push(q);
        }
    }

    fn run(&mut self, subset: &[u32], simplex: [u32; 4], fourth_above: bool) {
        let [a, b, c, d] = simplex;
        // Corners of the base counter-clockwise from outside, i.e. with
        // the fourth point below.
        let (b, c) = if fourth_above { (c, b) } else { (b, c) };
        // Faces (a,b,c), (a,d,b), (b,d,c), (c,d,a); adjacency by edge.
        self.add_face([a, b, c], [1, 2, 3]);
        self.add_face([a, d, b], [3, 2, 0]);
        self.add_face([b, d, c], [1, 3, 0]);
        self.add_face([c, d, a], [2, 1, 0]);
        for &q in subset {
            if !simplex.contains(&q) {
                self.assign(q, 0..4);
            }
        }
        loop {
            self.expand();
            if !self.sweep() {
                break;
            }
        }
    }

    /// Adds outside points until no face has any.
    fn expand(&mut self) {
        let mut cursor = 0;
        while cursor < self.faces.len() {
            let f = cursor as u32;
            let face = &self.faces[cursor];
            if !face.alive || face.outside.is_empty() {
                cursor += 1;
                continue;
            }
            // The farthest outside point (first on ties).
            let mut eye = face.outside[0];
            let mut best = self.dist(f, eye);
            for &q in &face.outside[1..] {
                let d = self.dist(f, q);
                if d > best {
                    best = d;
                    eye = q;
                }
            }
            if !self.sees(f, eye) {
                // More than τ above in rounded arithmetic but not above in
                // exact arithmetic: impossible while τ exceeds the rounding
                // error; drop the point rather than break the surface.
                self.faces[cursor].outside.retain(|&q| q != eye);
                continue;
            }
            self.add_point(f, eye);
            // New faces come after every existing one; earlier faces only
            // lose points, so the scan may continue from here.
        }
    }

    /// Adds `eye`, seen by face `seed`: deletes the faces it sees, and
    /// closes the hole with a cone of new faces on the horizon.
    fn add_point(&mut self, seed: u32, eye: u32) {
        self.stamp += 1;
        let stamp = self.stamp;
        let mut visible = vec![seed];
        self.mark[seed as usize] = stamp;
        // Horizon edges (a, b, face across), in order around the hole:
        // depth-first over visible faces, entering each through an edge
        // and leaving through the next two, as in Lloyd's quickhull.
        let mut horizon: Vec<(u32, u32, u32)> = Vec::new();
        let mut stack: Vec<(u32, usize, usize)> = vec![(seed, 0, 3)];
        while let Some(top) = stack.last_mut() {
            if top.2 == 0 {
                stack.pop();
                continue;
            }
            let (f, k) = (top.0, top.1);
            top.1 = (top.1 + 1) % 3;
            top.2 -= 1;
            let face = &self.faces[f as usize];
            let (a, b, across) = (face.v[k], face.v[(k + 1) % 3], face.adj[k]);
            if self.mark[across as usize] == stamp {
                continue;
            }
            if self.sees(across, eye) {
                self.mark[across as usize] = stamp;
                visible.push(across);
                let entry = self.twin_edge(across, a, b);
                stack.push((across, (entry + 1) % 3, 2));
            } else {
                horizon.push((a, b, across));
            }
        }
        debug_assert!(
            horizon.len() >= 3
                && (0..horizon.len()).all(|i| horizon[i].1 == horizon[(i + 1) % horizon.len()].0),
            "the horizon is a simple cycle"
        );
        // The cone: face i = (a_i, b_i, eye); edge 0 borders the face
        // across the horizon, edge 1 the next cone face, edge 2 the
        // previous one.
        let first = self.faces.len() as u32;
        let m = horizon.len() as u32;
        for (i, &(a, b, across)) in horizon.iter().enumerate() {
            let i = i as u32;
            let new = self.add_face(
                [a, b, eye],
                [across, first + (i + 1) % m, first + (i + m - 1) % m],
            );
            let k = self.twin_edge(across, a, b);
            self.faces[across as usize].adj[k] = new;
        }
        let end = self.faces.len() as u32;
        let mut orphans = std::mem::take(&mut self.scratch);
        for &f in &visible {
            let face = &mut self.faces[f as usize];
            face.alive = false;
            orphans.append(&mut face.outside);
        }
        for &q in &orphans {
            if q != eye {
                self.assign(q, first..end);
            }
        }
        orphans.clear();
        self.scratch = orphans;
    }

    /// Tests every point set aside against the final faces; returns whether
    /// any is more than τ outside (and now assigned to a face).
    fn sweep(&mut self) -> bool {
        let pending = std::mem::take(&mut self.recheck);
        let alive: Vec<u32> = (0..self.faces.len() as u32)
            .filter(|&f| self.faces[f as usize].alive)
            .collect();
        let mut any = false;
        for q in pending {
            let mut highest = f64::NEG_INFINITY;
            let mut claimed = false;
            for &f in &alive {
                let d = self.dist(f, q);
                if d > self.tol {
                    self.faces[f as usize].outside.push(q);
                    claimed = true;
                    break;
                }
                highest = highest.max(d);
            }
            any |= claimed;
            // Still within τ of the surface: keep it for a later sweep in
            // case the hull grows past it.
            if !claimed && highest > -self.slack {
                self.recheck.push(q);
            }
        }
        any
    }

    fn into_shape(self) -> HullShape {
        let triangles: Vec<[u32; 3]> = self.faces.iter().filter(|f| f.alive).map(|f| f.v).collect();
        let mut vertices: Vec<u32> = triangles.iter().flatten().copied().collect();
        vertices.sort_unstable();
        vertices.dedup();
        HullShape::Polyhedron {
            vertices,
            triangles,
        }
    }
}

/// Hull vertices that are not extreme points, ascending: a vertex whose
/// incident triangles are all coplanar lies inside a flat facet, and a
/// vertex strictly between two of its neighbours on a line lies inside an
/// edge. On a convex triangulated surface these are the only ways to be
/// non-extreme, and both tests are exact.
fn non_extreme_vertices(pts: &[DVec3], vertices: &[u32], triangles: &[[u32; 3]]) -> Vec<u32> {
    let p = |i: u32| pts[i as usize];
    // Neighbours of each vertex, via the incident triangles.
    let mut incident: Vec<(u32, [u32; 3])> = Vec::with_capacity(triangles.len() * 3);
    for t in triangles {
        for k in 0..3 {
            incident.push((t[k], [t[k], t[(k + 1) % 3], t[(k + 2) % 3]]));
        }
    }
    incident.sort_unstable();
    let mut bad = Vec::new();
    let mut start = 0;
    for &v in vertices {
        let end = start + incident[start..].partition_point(|(w, _)| *w == v);
        let star = &incident[start..end];
        start = end;
        let mut nbrs: Vec<u32> = star.iter().flat_map(|(_, t)| [t[1], t[2]]).collect();
        nbrs.sort_unstable();
        nbrs.dedup();
        let [_, a, b] = star[0].1;
        let flat = nbrs
            .iter()
            .all(|&n| exact::orient3d(p(v), p(a), p(b), p(n)) == 0.0);
        let inside_edge = || {
            nbrs.iter().enumerate().any(|(i, &x)| {
                nbrs[i + 1..]
                    .iter()
                    .any(|&y| exact::strictly_between(p(x), p(v), p(y)))
            })
        };
        if flat || inside_edge() {
            bad.push(v);
        }
    }
    bad
}

/// Orientation predicates exact for all finite `f64` input free of
/// overflow and underflow (the hull scales its points to guarantee that),
/// after Shewchuk, "Adaptive precision floating-point arithmetic and fast
/// robust geometric predicates" (1997): a floating-point filter with his
/// static error bounds, then exact expansion arithmetic.
mod exact {
    use glam::DVec3;

    /// Half an ulp of 1: Shewchuk's ε.
    const EPS: f64 = f64::EPSILON * 0.5;
    /// Error bound of the filtered orient3d, relative to its permanent.
    const ORIENT3D_BOUND: f64 = (7.0 + 56.0 * EPS) * EPS;
    /// Error bound of the filtered orient2d, relative to its permanent.
    const ORIENT2D_BOUND: f64 = (3.0 + 16.0 * EPS) * EPS;

    /// `a + b` as an exact pair (sum, error).
    fn two_sum(a: f64, b: f64) -> (f64, f64) {
        let x = a + b;
        let bv = x - a;
        let av = x - bv;
        (x, (a - av) + (b - bv))
    }

    /// `a · b` as an exact pair (product, error), by fused multiply-add.
    fn two_product(a: f64, b: f64) -> (f64, f64) {
        let x = a * b;
        (x, a.mul_add(b, -x))
    }

    /// Adds `b` to the non-overlapping expansion `e` (increasing
    /// magnitude, zero components removed).
    fn grow(e: &mut Vec<f64>, b: f64) {
        let mut q = b;
        let mut k = 0;
        for i in 0..e.len() {
            let (s, h) = two_sum(q, e[i]);
            q = s;
            if h != 0.0 {
                e[k] = h;
                k += 1;
            }
        }
        e.truncate(k);
        if q != 0.0 {
            e.push(q);
        }
    }

    /// The exact sum of `terms` as an expansion.
    fn sum(terms: &[f64]) -> Vec<f64> {
        let mut e = Vec::with_capacity(terms.len());
        for &t in terms {
            grow(&mut e, t);
        }
        e
    }

    /// The sign of an expansion (that of its largest component).
    fn sign(e: &[f64]) -> f64 {
        e.last().map_or(0.0, |x| x.signum())
    }

    /// `s · x · y · z` exactly, as four terms.
    fn push_triple(terms: &mut Vec<f64>, s: f64, x: f64, y: f64, z: f64) {
        let (h, l) = two_product(x, y);
        let (h1, l1) = two_product(h, z);
        let (h2, l2) = two_product(l, z);
        terms.extend([s * h1, s * l1, s * h2, s * l2]);
    }

    /// `s · det[r0; r1; r2]` exactly, as 24 terms.
    fn push_det3(terms: &mut Vec<f64>, s: f64, r0: DVec3, r1: DVec3, r2: DVec3) {
        push_triple(terms, s, r0.x, r1.y, r2.z);
        push_triple(terms, -s, r0.x, r1.z, r2.y);
        push_triple(terms, -s, r0.y, r1.x, r2.z);
        push_triple(terms, s, r0.y, r1.z, r2.x);
        push_triple(terms, s, r0.z, r1.x, r2.y);
        push_triple(terms, -s, r0.z, r1.y, r2.x);
    }

    /// `((b − a) × (c − a)) · (p − a)`: positive when `p` is above the
    /// plane of the counter-clockwise triangle `(a, b, c)`. The sign is
    /// exact; a non-zero magnitude is only approximate.
    pub(super) fn orient3d(a: DVec3, b: DVec3, c: DVec3, p: DVec3) -> f64 {
        let (u, v, w) = (b - a, c - a, p - a);
        let det = u.x * (v.y * w.z - v.z * w.y)
            + u.y * (v.z * w.x - v.x * w.z)
            + u.z * (v.x * w.y - v.y * w.x);
        let permanent = u.x.abs() * ((v.y * w.z).abs() + (v.z * w.y).abs())
            + u.y.abs() * ((v.z * w.x).abs() + (v.x * w.z).abs())
            + u.z.abs() * ((v.x * w.y).abs() + (v.y * w.x).abs());
        if det.abs() > ORIENT3D_BOUND * permanent {
            return det;
        }
        // det(b − a, c − a, p − a) is multilinear: the terms with `a` in
        // two rows vanish, leaving four determinants of input points.
        let mut terms = Vec::with_capacity(96);
        push_det3(&mut terms, 1.0, b, c, p);
        push_det3(&mut terms, -1.0, b, c, a);
        push_det3(&mut terms, -1.0, b, a, p);
        push_det3(&mut terms, -1.0, a, c, p);
        sign(&sum(&terms))
    }

    /// `(a − c) × (b − c)` in 2-D: positive when `a, b, c` turn
    /// counter-clockwise. The sign is exact.
    pub(super) fn orient2d(a: (f64, f64), b: (f64, f64), c: (f64, f64)) -> f64 {
        let left = (a.0 - c.0) * (b.1 - c.1);
        let right = (a.1 - c.1) * (b.0 - c.0);
        let det = left - right;
        if det.abs() > ORIENT2D_BOUND * (left.abs() + right.abs()) {
            return det;
        }
        let mut terms = Vec::with_capacity(12);
        for (s, x, y) in [
            (1.0, a.0, b.1),
            (-1.0, a.0, c.1),
            (-1.0, c.0, b.1),
            (-1.0, a.1, b.0),
            (1.0, a.1, c.0),
            (1.0, c.1, b.0),
        ] {
            let (h, l) = two_product(x, y);
            terms.extend([s * h, s * l]);
        }
        sign(&sum(&terms))
    }

    /// The unit normal of triangle `(a, b, c)`, from the cross product
    /// `a × b + b × c + c × a = (b − a) × (c − a)` evaluated exactly and
    /// rounded, so it is accurate even for slivers. Zero for collinear
    /// corners.
    pub(super) fn unit_normal(a: DVec3, b: DVec3, c: DVec3) -> DVec3 {
        let component = |i: usize, j: usize| {
            let mut terms = Vec::with_capacity(12);
            for (p, q) in [(a, b), (b, c), (c, a)] {
                let (h, l) = two_product(p[i], q[j]);
                let (h2, l2) = two_product(-p[j], q[i]);
                terms.extend([h, l, h2, l2]);
            }
            sum(&terms).iter().sum::<f64>()
        };
        DVec3::new(component(1, 2), component(2, 0), component(0, 1)).normalize_or_zero()
    }

    /// Whether `v` lies strictly inside the segment `x y` (exact).
    pub(super) fn strictly_between(x: DVec3, v: DVec3, y: DVec3) -> bool {
        if x == v || y == v {
            return false;
        }
        let collinear = orient2d((x.x, x.y), (v.x, v.y), (y.x, y.y)) == 0.0
            && orient2d((x.y, x.z), (v.y, v.z), (y.y, y.z)) == 0.0
            && orient2d((x.z, x.x), (v.z, v.x), (y.z, y.x)) == 0.0;
        // On a common line, `v` is between exactly when every coordinate
        // of `v` is between those of `x` and `y`.
        collinear
            && (0..3).all(|k| (x[k] <= v[k] && v[k] <= y[k]) || (y[k] <= v[k] && v[k] <= x[k]))
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn orient3d_exact_on_degenerate_input() {
            // Coplanar points whose rounded determinant is wrong: a tiny
            // offset beyond the reach of the filter.
            let a = DVec3::new(0.1, 0.2, 0.3);
            let b = DVec3::new(0.7, 0.1, 0.3);
            let c = DVec3::new(0.4, 0.9, 0.3);
            let on = DVec3::new(0.5, 0.5, 0.3);
            assert_eq!(orient3d(a, b, c, on), 0.0);
            let above = DVec3::new(0.5, 0.5, f64::from_bits(0.3f64.to_bits() + 1));
            assert!(orient3d(a, b, c, above) > 0.0);
            let below = DVec3::new(0.5, 0.5, f64::from_bits(0.3f64.to_bits() - 1));
            assert!(orient3d(a, b, c, below) < 0.0);
            // The exact path agrees with the filter where the filter
            // decides.
            assert!(orient3d(DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z) > 0.0);
        }

        #[test]
        fn orient3d_on_nearly_collinear_lattice() {
            // Points on the line x = y = z (exact multiples): every
            // orientation with three of them is zero.
            let t = [0.1, 0.3, 0.7, 1.9];
            let p = t.map(DVec3::splat);
            assert_eq!(orient3d(p[0], p[1], p[2], DVec3::X), 0.0);
            let tilted = DVec3::new(0.1, 0.1, f64::from_bits(0.1f64.to_bits() + 1));
            assert_ne!(orient3d(p[0], p[1], tilted, DVec3::X), 0.0);
        }

        #[test]
        fn orient2d_exact() {
            let a = (0.1, 0.1);
            let b = (0.3, 0.3);
            assert_eq!(orient2d(a, b, (0.7, 0.7)), 0.0);
            assert!(orient2d(a, b, (0.7, f64::from_bits(0.7f64.to_bits() + 1))) > 0.0);
        }

        #[test]
        fn sliver_normal_is_accurate() {
            let a = DVec3::new(0.0, 0.0, 0.0);
            let b = DVec3::new(1.0, 1.0, 1.0);
            let c = DVec3::new(0.5, 0.5, 0.5 + 1e-12);
            let n = unit_normal(a, b, c);
            // The exact normal is (−1, 1, 0)/√2 · sign.
            let expect = DVec3::new(-1.0, 1.0, 0.0).normalize();
            assert!(
                (n - expect).length() < 1e-14 || (n + expect).length() < 1e-14,
                "{n}"
            );
        }
    }
}
