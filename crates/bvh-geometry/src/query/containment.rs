//! Point-in-solid and containment tests for closed meshes.
//!
//! **What.** [`winding_number`] is the generalized winding number of a
//! point with respect to a mesh: the sum of the signed solid angles of its
//! triangles over `4π` (Van Oosterom and Strackee's formula per triangle).
//! For a closed mesh ([`MeshTopology::is_closed`]) it is an integer off the
//! surface: 0 outside, ±1 inside (the sign is the orientation), more where
//! the surface wraps a region several times. [`point_location`] rounds it,
//! and says [`PointLocation::NearSurface`] when rounding error may have
//! moved it too far from an integer to decide. [`containment`] asks whether
//! part of one posed mesh lies inside the solid another, closed one
//! bounds.
//!
//! **Why solid angles.** A ray-parity test must handle rays through edges
//! and vertices; the winding number has no such cases: every triangle
//! contributes a continuous function of the point, singular only on the
//! triangle itself. Points on the surface are touching contacts, which the
//! triangle tests already report.
//!
//! **Containment.** When the surfaces of `a` and `b` do not intersect, each
//! connected component of `b` lies either wholly inside the solid of a
//! closed `a` or wholly outside it, so one point per component decides
//! (and the same for `a` in a closed `b`). A component whose bounding ball
//! misses the other mesh's root ball, or whose probe point is outside the
//! other's root bounding volume, is outside its solid (the solid lies in
//! its convex hull, which the volume contains) and costs no more. Otherwise
//! [`locate_point`] counts signed crossings of a segment through the
//! other's hierarchy (a few triangles), falling back to the winding number
//! (one pass over the triangles) only when a crossing is too close to call.
//! This runs once per pair at the start of a motion and in discrete
//! checks, not in the advancement.
//!
//! **Guarantee.** Conservative: a component is reported outside only when
//! a point of it is outside the root volume or has a winding number within
//! `0.25` of zero. Rounding moves the winding number noticeably only for
//! points within about `1e-12` (relative to the coordinates) of the
//! surface; a component whose probe points (its first triangle's corners
//! and centroid) are all that close is reported inside. When the surfaces
//! do intersect the answer is unspecified (either is a collision).

use core::f64::consts::PI;

use glam::{DAffine3, DVec3};

use super::{MeshObject, closest_point_triangle, relative_pose};
use crate::bvh::BvhVolume;
use crate::{GeometryError, MeshTopology, TriMesh};

/// How far from an integer a winding number may be and still decide.
const WINDING_BAND: f64 = 0.25;

/// Where a point is with respect to a closed mesh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PointLocation {
    /// Inside the solid (winding number near a non-zero integer).
    Inside,
    /// Outside the solid (winding number near zero).
    Outside,
    /// On or too near the surface to decide (or a NaN point).
    NearSurface,
}

/// The generalized winding number of `point` with respect to `mesh` (both
/// in the mesh frame): `Σ Ω(triangle) / 4π`, `Ω` the signed solid angle
/// the triangle subtends at the point, signed so that the sum is `+1`
/// inside a closed mesh whose triangles are counter-clockwise seen from
/// outside, and `−1` inside an inward-oriented one.
///
/// Exact up to rounding for points away from the surface; NaN for a NaN
/// point and for a point the arithmetic finds exactly on a triangle. Each triangle's solid angle is computed in coordinates scaled by
/// its largest corner distance, so coordinates up to
/// [`crate::bv::MAX_COORDINATE`] neither overflow nor underflow.
///
/// ```
/// use armature_bvh_geometry::{TriMesh, query::winding_number};
/// use glam::DVec3;
/// let tetra = TriMesh::new(
///     vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z],
///     vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
/// )?;
/// assert!((winding_number(&tetra, DVec3::splat(0.1)) - 1.0).abs() < 1e-12);
/// assert!(winding_number(&tetra, DVec3::splat(1.0)).abs() < 1e-12);
/// # Ok::<(), armature_bvh_geometry::GeometryError>(())
/// ```
#[must_use]
pub fn winding_number(mesh: &TriMesh, point: DVec3) -> f64 {
    let twice_angles: f64 = mesh
        .triangles()
        .map(|[a, b, c]| half_solid_angle(a - point, b - point, c - point))
        .sum();
    twice_angles / (2.0 * PI)
}

/// Half the signed solid angle of the triangle `(a, b, c)` (corners
/// relative to the point): `atan2(a·(b×c), |a||b||c| + (a·b)|c| + (b·c)|a|
/// + (c·a)|b|)` (Van Oosterom and Strackee 1983).
#[inline]
fn half_solid_angle(a: DVec3, b: DVec3, c: DVec3) -> f64 {
    let scale = a.length().max(b.length()).max(c.length());
    if !(scale > 0.0) {
        // Zero: the point is every corner of a degenerate triangle, on the
        // surface; NaN: a NaN point.
        return f64::NAN;
    }
    let (a, b, c) = (a / scale, b / scale, c / scale);
    let (la, lb, lc) = (a.length(), b.length(), c.length());
    let num = a.dot(b.cross(c));
    let den = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
    if num == 0.0 && !(den > 0.0) {
        // In the triangle's plane and on the triangle (inside: den < 0; on
        // an edge or a corner: den = 0): the angle jumps by ±2π across it,
        // and the sign of a zero would pick a side.
        return f64::NAN;
    }
    num.atan2(den)
}

/// Which side of the closed `mesh` the point is on (mesh frame), by its
/// rounded [`winding_number`]: [`PointLocation::NearSurface`] when the
/// winding number is more than `0.25` from every integer or NaN (a point
/// on the surface, as far as the arithmetic can tell). For an
/// open mesh the answer has no meaning as a solid (see [`MeshTopology`]).
#[must_use]
pub fn point_location(mesh: &TriMesh, point: DVec3) -> PointLocation {
    classify(winding_number(mesh, point))
}

fn classify(w: f64) -> PointLocation {
    let k = w.round();
    if !((w - k).abs() <= WINDING_BAND) {
        PointLocation::NearSurface
    } else if k == 0.0 {
        PointLocation::Outside
    } else {
        PointLocation::Inside
    }
}

/// A point of one mesh inside the solid the other, closed mesh bounds,
/// with the other's nearest surface point: the witness of
/// [`containment`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContainmentWitness {
    /// `true` when a part of `b` lies inside the solid of `a`, `false`
    /// when a part of `a` lies inside the solid of `b`.
    pub b_inside_a: bool,
    /// Triangle of `a`: the one holding the inner point when `a` is
    /// inside, else the one nearest to the inner point.
    pub triangle_a: u32,
    /// Triangle of `b`, likewise.
    pub triangle_b: u32,
    /// The witness point on `a` (world).
    pub point_a: DVec3,
    /// The witness point on `b` (world).
    pub point_b: DVec3,
    /// The inner point's distance to the outer surface, `|point_a −
    /// point_b|` (how deep it lies).
    pub depth: f64,
}

/// Whether a connected component of `b` lies inside the solid of `a`
/// (when `a` is closed) or one of `a` inside the solid of `b` (when `b` is
/// closed), at the objects' poses; `None` when neither holds, and always
/// for two open meshes. Meant for pairs whose surfaces do not intersect
/// (as [`super::collide`] decides), for which a part of one inside the
/// other is the only way to overlap: each connected component
/// ([`MeshTopology::component_triangles`]) then lies wholly inside or
/// wholly outside the other solid, and its first triangle's corners and
/// centroid are probed with [`point_location`] (points outside the other
/// mesh's root bounding volume are outside without one). Conservative: a
/// component whose probes are all too near the surface to decide counts
/// as inside. The cost is one pass over the other mesh's triangles per
/// probed component; the witness's nearest surface point costs another.
///
/// # Errors
/// [`GeometryError::TopologyMeshMismatch`] when a topology was computed on
/// another mesh than its object's.
pub fn containment<BV: BvhVolume>(
    a: &MeshObject<'_, BV>,
    topology_a: &MeshTopology,
    b: &MeshObject<'_, BV>,
    topology_b: &MeshTopology,
) -> Result<Option<ContainmentWitness>, GeometryError> {
    topology_a.check_mesh(a.mesh())?;
    topology_b.check_mesh(b.mesh())?;
    Ok(component_inside(a, topology_a, b, topology_b, true)
        .or_else(|| component_inside(b, topology_b, a, topology_a, false)))
}

/// [`containment`] where the caller knows that no part of `b` lies inside
/// `a` (for example no triangle of `b` comes within `a`'s bounding box):
/// only a component of `a` inside the solid of `b` (when `b` is closed)
/// is looked for, which skips the probes of `b`'s components.
///
/// # Errors
/// As [`containment`].
pub fn containment_of_first<BV: BvhVolume>(
    a: &MeshObject<'_, BV>,
    topology_a: &MeshTopology,
    b: &MeshObject<'_, BV>,
    topology_b: &MeshTopology,
) -> Result<Option<ContainmentWitness>, GeometryError> {
    topology_a.check_mesh(a.mesh())?;
    topology_b.check_mesh(b.mesh())?;
    Ok(component_inside(b, topology_b, a, topology_a, false))
}

/// A component of `inner` inside the solid of `outer` (when `outer` is
/// closed), as [`containment`]'s witness, whose `a` is `outer` when
/// `outer_is_a` and `inner` otherwise.
fn component_inside<BV: BvhVolume>(
    outer: &MeshObject<'_, BV>,
    topology_outer: &MeshTopology,
    inner: &MeshObject<'_, BV>,
    topology_inner: &MeshTopology,
    outer_is_a: bool,
) -> Option<ContainmentWitness> {
    if !topology_outer.is_closed() {
        return None;
    }
    let map = relative_pose(&outer.pose(), &inner.pose());
    let w = part_inside(outer, inner.mesh(), topology_inner, &map)?;
    let outer_point = outer.pose().transform_point3(w.outer_point);
    let inner_point = outer.pose().transform_point3(w.inner_point);
    Some(if outer_is_a {
        ContainmentWitness {
            b_inside_a: true,
            triangle_a: w.outer_triangle,
            triangle_b: w.inner_triangle,
            point_a: outer_point,
            point_b: inner_point,
            depth: w.depth,
        }
    } else {
        ContainmentWitness {
            b_inside_a: false,
            triangle_a: w.inner_triangle,
            triangle_b: w.outer_triangle,
            point_a: inner_point,
            point_b: outer_point,
            depth: w.depth,
        }
    })
}

/// Whether [`containment`] finds a part of one object inside the other's
/// solid, without its witness: the same probes, but no pass over the outer
/// mesh's triangles for the nearest surface point, so a link deep inside a
/// closed obstacle costs a few hierarchy descents instead of one pass over
/// the obstacle's triangles.
///
/// # Errors
/// As [`containment`].
pub fn contains_part<BV: BvhVolume>(
    a: &MeshObject<'_, BV>,
    topology_a: &MeshTopology,
    b: &MeshObject<'_, BV>,
    topology_b: &MeshTopology,
) -> Result<bool, GeometryError> {
    topology_a.check_mesh(a.mesh())?;
    topology_b.check_mesh(b.mesh())?;
    Ok((topology_a.is_closed()
        && inside_probe(
            a,
            b.mesh(),
            topology_b,
            &relative_pose(&a.pose(), &b.pose()),
        )
        .is_some())
        || (topology_b.is_closed()
            && inside_probe(
                b,
                a.mesh(),
                topology_a,
                &relative_pose(&b.pose(), &a.pose()),
            )
            .is_some()))
}

/// An inner point and its nearest outer surface point, in the outer
/// object's mesh frame.
struct Inside {
    inner_triangle: u32,
    inner_point: DVec3,
    outer_triangle: u32,
    outer_point: DVec3,
    depth: f64,
}

/// The first component of `inner` (mapped into `outer`'s mesh frame by
/// `map`) inside the solid of the closed `outer`: its first triangle and
/// the probe point (outer frame) found inside.
fn inside_probe<BV: BvhVolume>(
    outer: &MeshObject<'_, BV>,
    inner: &TriMesh,
    topology: &MeshTopology,
    map: &DAffine3,
) -> Option<(u32, DVec3)> {
    let root = &outer.bvh().root().bv;
    // A component inside the solid lies inside the outer's root ball:
    // components whose balls miss it are skipped without a probe.
    let (oc, or) = root.enclosing_ball();
    // The test runs in the inner frame (a rigid map keeps distances), so
    // that each component costs a subtraction and a dot product; the
    // slack covers the rounding of the inverse map.
    let oc_inner = map.inverse().transform_point3(oc);
    let reach = or * (1.0 + 1e-9) + 1e-9 * (oc.abs().max_element() + oc_inner.abs().max_element());
    for (&t, &(bc, br)) in topology
        .component_triangles()
        .iter()
        .zip(topology.component_balls())
    {
        let limit = reach + br * (1.0 + 1e-9);
        if (bc - oc_inner).length_squared() > limit * limit * (1.0 + 1e-9) {
            continue;
        }
        let Some(tri) = inner.get_triangle(t as usize) else {
            continue;
        };
        let [p, q, r] = tri.map(|x| map.transform_point3(x));
        let probes = [p, q, r, (p + q + r) / 3.0];
        // The first probe that decides, with its verdict; when every probe
        // is too near the surface, inside (the conservative answer).
        let mut verdict = (true, p);
        for &x in &probes {
            if !x.is_nan() && !root.contains_point(x) {
                verdict = (false, x);
                break;
            }
            match locate_point(outer, x) {
                PointLocation::Inside => verdict = (true, x),
                PointLocation::Outside => verdict = (false, x),
                PointLocation::NearSurface => continue,
            }
            break;
        }
        if let (true, x) = verdict {
            return Some((t, x));
        }
    }
    None
}

/// The first component of `inner` (mapped into `outer`'s mesh frame by
/// `map`) inside the solid of the closed `outer`, with its witness.
fn part_inside<BV: BvhVolume>(
    outer: &MeshObject<'_, BV>,
    inner: &TriMesh,
    topology: &MeshTopology,
    map: &DAffine3,
) -> Option<Inside> {
    let (t, x) = inside_probe(outer, inner, topology, map)?;
    let (outer_triangle, outer_point, depth) = nearest_triangle(outer.mesh(), x);
    Some(Inside {
        inner_triangle: t,
        inner_point: x,
        outer_triangle,
        outer_point,
        depth,
    })
}

/// Where `point` (in the mesh frame) is with respect to the closed mesh
/// of `object`: as [`point_location`], but by signed crossings of a
/// segment from the point out of the mesh, found through the hierarchy —
/// `O(log n)` triangles for a typical point instead of all of them. The
/// signed count (a triangle crossed from its back side counts `+1`, from
/// its front `−1`) is the winding number of a closed mesh. When a crossing
/// cannot be decided in floating point (the segment passes within
/// rounding of a triangle's edge or vertex, or the point lies within
/// rounding of a triangle's plane where the segment meets it), the answer
/// falls back to the solid angles of [`point_location`], which have no
/// such cases; so the answer is always [`point_location`]'s.
#[must_use]
pub fn locate_point<BV: BvhVolume>(object: &MeshObject<'_, BV>, point: DVec3) -> PointLocation {
    match crossing_winding(object, point) {
        Some(0) => PointLocation::Outside,
        Some(_) => PointLocation::Inside,
        None => point_location(object.mesh(), point),
    }
}

/// The direction of the crossing segment: no axis or diagonal, so that
/// the axis-aligned and regular meshes of real scenes rarely put an edge
/// in its way.
const RAY: DVec3 = DVec3::new(0.531_276_354_9, 0.628_315_219_2, 0.568_466_113_8);

/// The signed number of triangles the segment from `x` out of the mesh
/// crosses, or `None` when one crossing is too close to call.
fn crossing_winding<BV: BvhVolume>(object: &MeshObject<'_, BV>, x: DVec3) -> Option<i64> {
    if !x.is_finite() {
        return None;
    }
    let bvh = object.bvh();
    let mesh = object.mesh();
    let (c, r) = bvh.root().bv.enclosing_ball();
    let dir = RAY.normalize();
    // Twice as far as the far side of the root's ball: the end point is
    // outside the mesh.
    let length = 2.0 * ((x - c).length() + r) + 1.0;
    let y = x + dir * length;
    let mut winding = 0_i64;
    // A fixed stack (no allocation): a traversal deeper than it falls back
    // to the solid angles.
    let mut stack = [0_usize; 128];
    let mut top = 1;
    let nodes = bvh.nodes();
    while top > 0 {
        top -= 1;
        let node = &nodes[stack[top]];
        let (bc, br) = node.bv.enclosing_ball();
        // The enclosing ball holds the volume up to a few ulps of its
        // radius: widen it before rejecting.
        let slack = 1e-9 * (br + bc.abs().max_element() + x.abs().max_element()) + 1e-300;
        if segment_point_distance(x, dir, length, bc) > br + slack {
            continue;
        }
        if let Some([l, rr]) = node.children() {
            if top + 2 > stack.len() {
                return None;
            }
            stack[top] = l;
            stack[top + 1] = rr;
            top += 2;
            continue;
        }
        for &t in bvh.leaf_triangles(node) {
            let [a, b, cc] = mesh.get_triangle(t as usize)?;
            winding += crossing(a, b, cc, x, y)?;
        }
    }
    Some(winding)
}

/// Distance from `p` to the segment `x + s·dir`, `s ∈ [0, length]`
/// (`dir` a unit vector).
fn segment_point_distance(x: DVec3, dir: DVec3, length: f64, p: DVec3) -> f64 {
    let s = (p - x).dot(dir).clamp(0.0, length);
    (x + dir * s - p).length()
}

/// `(b − a) × (c − a) · (d − a)` with a bound on its rounding error.
fn orient(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> (f64, f64) {
    let (u, v, w) = (b - a, c - a, d - a);
    let det = u.cross(v).dot(w);
    // Each difference is off by an ulp of the larger coordinate, the
    // triple product by a few ulps of the product of the magnitudes:
    // 64 ε times the product of (length + coordinate scale) covers both
    // with a wide margin.
    let m = a.abs().max_element();
    let err = 64.0
        * f64::EPSILON
        * (u.length() + m + b.abs().max_element())
        * (v.length() + m + c.abs().max_element())
        * (w.length() + m + d.abs().max_element());
    (det, err)
}

/// The sign of a crossing of the segment `x → y` through the triangle
/// `(a, b, c)`: `+1` when `x` lies behind it (the side opposite its
/// counter-clockwise normal), `−1` in front, `0` when the segment misses
/// it; `None` when any of the signs is within rounding of zero.
fn crossing(a: DVec3, b: DVec3, c: DVec3, x: DVec3, y: DVec3) -> Option<i64> {
    let decided = |(v, e): (f64, f64)| (v.abs() > e).then_some(v > 0.0);
    let sx = decided(orient(a, b, c, x))?;
    let sy = decided(orient(a, b, c, y))?;
    if sx == sy {
        return Some(0);
    }
    let e1 = decided(orient(x, y, a, b))?;
    let e2 = decided(orient(x, y, b, c))?;
    let e3 = decided(orient(x, y, c, a))?;
    if e1 == e2 && e2 == e3 {
        Some(if sx { -1 } else { 1 })
    } else {
        Some(0)
    }
}

/// The triangle of `mesh` nearest to `x`, its closest point and the
/// distance (a linear scan: witnesses only).
fn nearest_triangle(mesh: &TriMesh, x: DVec3) -> (u32, DVec3, f64) {
    let mut best = (0u32, DVec3::NAN, f64::INFINITY);
    for (i, tri) in mesh.triangles().enumerate() {
        let c = closest_point_triangle(x, &tri);
        let d = (c - x).length();
        if d < best.2 || best.1.is_nan() {
            // Triangle indices fit in u32: the hierarchies index them so.
            best = (i as u32, c, d);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classify_bands() {
        assert_eq!(classify(0.1), PointLocation::Outside);
        assert_eq!(classify(-0.9), PointLocation::Inside);
        assert_eq!(classify(2.05), PointLocation::Inside);
        assert_eq!(classify(0.5), PointLocation::NearSurface);
        assert_eq!(classify(f64::NAN), PointLocation::NearSurface);
    }
}
