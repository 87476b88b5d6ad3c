//! A tiny polygon-mesh builder for the generated robot and scenes.
//!
//! A [`Part`] is one named object (one OBJ `o` group, or one robot link):
//! its own vertices, polygon faces over them (quads for box sides and
//! tube walls, n-gons for flat caps; readers triangulate them as fans) and
//! a list of [`Proxy`]s (capsules around curved shapes, the boxes
//! themselves) that together contain every vertex. The proxies are what the
//! layouts use to keep things apart (the robot's home pose, other pipes)
//! without running mesh queries: their tests are cheap and conservative
//! (they may call things too close, never too far).
//!
//! Shapes: boxes under any rigid pose, closed cylinders between two points,
//! surfaces of revolution from an `(r, z)` profile (flanges, tanks, pump
//! casings, valve bodies) and torus segments (elbows, hand wheels).
//! Curved surfaces put their vertices *on* the true surface, so the polygon
//! lies inside it and inside its proxies.

use armature_bvh_geometry::Obb;
use armature_bvh_geometry::query::{distance_segment_segment, overlap_obb_obb};
use glam::{DAffine3, DMat3, DVec3};

/// Every point within `radius` of the segment `a`–`b`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Capsule {
    /// One end of the axis.
    pub(crate) a: DVec3,
    /// The other end.
    pub(crate) b: DVec3,
    /// Radius.
    pub(crate) radius: f64,
}

impl Capsule {
    /// The capsule around segment `a`–`b`.
    pub(crate) const fn new(a: DVec3, b: DVec3, radius: f64) -> Self {
        Self { a, b, radius }
    }

    /// Gap between the two capsules' surfaces (negative when they overlap).
    pub(crate) fn gap(&self, other: &Self) -> f64 {
        distance_segment_segment(self.a, self.b, other.a, other.b) - self.radius - other.radius
    }

    /// The capsule moved by a rigid transform.
    pub(crate) fn transformed(&self, m: &DAffine3) -> Self {
        Self::new(
            m.transform_point3(self.a),
            m.transform_point3(self.b),
            self.radius,
        )
    }
}

/// A rotation whose third column is `z` (unit), completed to a
/// right-handed frame; the same `z` always gives the same frame.
pub(crate) fn frame_z(z: DVec3) -> DMat3 {
    let helper = if z.x.abs() < 0.9 { DVec3::X } else { DVec3::Y };
    let x = (helper - z * z.dot(helper)).normalize();
    let y = z.cross(x);
    DMat3::from_cols(x, y, z)
}

/// A rigid frame at `origin` whose z axis points along `axis`.
pub(crate) fn frame_along(origin: DVec3, axis: DVec3) -> DAffine3 {
    DAffine3::from_mat3_translation(frame_z(axis.normalize()), origin)
}

/// A shape that contains (part of) an object, for clearance tests: an
/// oriented box, and for curved shapes also a capsule. The object lies in
/// both, so two proxies are apart when either their boxes or their
/// capsules are.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Proxy {
    obb: Obb,
    capsule: Option<Capsule>,
}

impl Proxy {
    /// The box `half` about the origin of `pose`.
    pub(crate) fn cuboid(pose: &DAffine3, half: DVec3) -> Self {
        Self {
            obb: Obb::new(pose.translation, pose.matrix3, half),
            capsule: None,
        }
    }

    /// A capsule and its bounding box.
    pub(crate) fn capsule(c: Capsule) -> Self {
        let d = c.b - c.a;
        let len = d.length();
        let axes = if len > 0.0 {
            frame_z(d / len)
        } else {
            DMat3::IDENTITY
        };
        Self {
            obb: Obb::new(
                (c.a + c.b) * 0.5,
                axes,
                DVec3::new(c.radius, c.radius, 0.5 * len + c.radius),
            ),
            capsule: Some(c),
        }
    }

    /// A solid of revolution: radius `r` about the segment `a`–`b`
    /// (its capsule, and the box that does not overshoot the flat ends).
    pub(crate) fn round(a: DVec3, b: DVec3, r: f64) -> Self {
        let d = b - a;
        let len = d.length();
        let axes = if len > 0.0 {
            frame_z(d / len)
        } else {
            DMat3::IDENTITY
        };
        Self {
            obb: Obb::new((a + b) * 0.5, axes, DVec3::new(r, r, 0.5 * len)),
            capsule: Some(Capsule::new(a, b, r)),
        }
    }

    /// Whether the proxies may come closer than `gap`. Conservative: the
    /// box test grows one box by `gap` along each of its axes, so it may
    /// also say so for proxies up to about `√3 · gap` apart.
    pub(crate) fn within(&self, other: &Self, gap: f64) -> bool {
        if let (Some(a), Some(b)) = (self.capsule, other.capsule)
            && a.gap(&b) >= gap
        {
            return false;
        }
        let mut b = other.obb;
        b.half_extents += DVec3::splat(gap.max(0.0));
        overlap_obb_obb(&self.obb, &b)
    }

    /// The corners of an axis-aligned box around the proxy.
    pub(crate) fn bounds(&self) -> (DVec3, DVec3) {
        let e = self.obb.axes.abs() * self.obb.half_extents;
        (self.obb.center - e, self.obb.center + e)
    }

    /// The proxy moved by a rigid transform.
    pub(crate) fn transformed(&self, m: &DAffine3) -> Self {
        Self {
            obb: Obb::new(
                m.transform_point3(self.obb.center),
                m.matrix3 * self.obb.axes,
                self.obb.half_extents,
            ),
            capsule: self.capsule.map(|c| c.transformed(m)),
        }
    }

    /// Whether `p` is inside (up to `1e-9`).
    #[cfg(test)]
    pub(crate) fn contains(&self, p: DVec3) -> bool {
        let l = self.obb.axes.transpose() * (p - self.obb.center);
        l.abs()
            .cmple(self.obb.half_extents + DVec3::splat(1e-9))
            .all()
            && self
                .capsule
                .is_none_or(|c| c.gap(&Capsule::new(p, p, 0.0)) <= 1e-9)
    }
}

/// One named object: vertices, polygon faces, and proxies.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Part {
    name: String,
    vertices: Vec<DVec3>,
    corners: Vec<u32>,
    sizes: Vec<u8>,
    proxies: Vec<Proxy>,
}

impl Part {
    /// An empty part.
    pub(crate) fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            ..Self::default()
        }
    }

    /// The part's name (its OBJ object name).
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// Renames the part.
    pub(crate) fn set_name(&mut self, name: impl Into<String>) {
        self.name = name.into();
    }

    /// The vertices.
    pub(crate) fn vertices(&self) -> &[DVec3] {
        &self.vertices
    }

    /// The faces, each a list of vertex indices (counter-clockwise seen
    /// from outside where the part is closed).
    pub(crate) fn faces(&self) -> impl Iterator<Item = &[u32]> + '_ {
        let mut start = 0usize;
        self.sizes.iter().map(move |&n| {
            let face = &self.corners[start..start + usize::from(n)];
            start += usize::from(n);
            face
        })
    }

    /// The faces as triangle fans, the way OBJ readers split polygons.
    pub(crate) fn triangles(&self) -> impl Iterator<Item = [u32; 3]> + '_ {
        self.faces()
            .flat_map(|f| (1..f.len() - 1).map(move |i| [f[0], f[i], f[i + 1]]))
    }

    /// Number of triangles after fan triangulation.
    pub(crate) fn triangle_count(&self) -> usize {
        self.sizes.iter().map(|&n| usize::from(n) - 2).sum()
    }

    /// Proxies that together contain every vertex.
    pub(crate) fn proxies(&self) -> &[Proxy] {
        &self.proxies
    }

    /// The centre of the vertices' bounding box.
    pub(crate) fn center(&self) -> DVec3 {
        let (lo, hi) = self.vertices.iter().fold(
            (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
            |(lo, hi), v| (lo.min(*v), hi.max(*v)),
        );
        (lo + hi) * 0.5
    }

    /// The part moved by a rigid transform.
    pub(crate) fn transformed(mut self, m: &DAffine3) -> Self {
        for v in &mut self.vertices {
            *v = m.transform_point3(*v);
        }
        for c in &mut self.proxies {
            *c = c.transformed(m);
        }
        self
    }

    /// Whether some proxy of this part may come closer than `gap` to one
    /// of `others` ([`Proxy::within`]).
    pub(crate) fn near(&self, others: &[Proxy], gap: f64) -> bool {
        self.proxies
            .iter()
            .any(|p| others.iter().any(|o| p.within(o, gap)))
    }

    fn vertex_base(&self) -> u32 {
        // Parts hold at most a few thousand vertices.
        u32::try_from(self.vertices.len()).unwrap_or(u32::MAX)
    }

    fn push_face(&mut self, corners: &[u32]) {
        self.corners.extend_from_slice(corners);
        self.sizes
            .push(u8::try_from(corners.len()).unwrap_or(u8::MAX));
    }

    /// A box with half side lengths `half` about the origin of `pose`.
    pub(crate) fn cuboid(&mut self, pose: &DAffine3, half: DVec3) {
        let b = self.vertex_base();
        for k in 0..8u32 {
            let s = |bit: u32| if k & bit == 0 { -1.0 } else { 1.0 };
            let local = DVec3::new(s(1) * half.x, s(2) * half.y, s(4) * half.z);
            self.vertices.push(pose.transform_point3(local));
        }
        // Corner k has x from bit 0, y from bit 1, z from bit 2.
        for f in [
            [0, 2, 3, 1], // −z
            [4, 5, 7, 6], // +z
            [0, 1, 5, 4], // −y
            [2, 6, 7, 3], // +y
            [0, 4, 6, 2], // −x
            [1, 3, 7, 5], // +x
        ] {
            self.push_face(&f.map(|c| c + b));
        }
        self.proxies.push(Proxy::cuboid(pose, half));
    }

    /// An axis-aligned box from corner `lo` to corner `hi`.
    pub(crate) fn aabox(&mut self, lo: DVec3, hi: DVec3) {
        self.cuboid(
            &DAffine3::from_translation((lo + hi) * 0.5),
            (hi - lo).abs() * 0.5,
        );
    }

    /// A closed cylinder of radius `r` from `a` to `b`, `segments` around.
    pub(crate) fn cylinder(&mut self, a: DVec3, b: DVec3, r: f64, segments: usize) {
        let len = (b - a).length();
        self.lathe(
            &frame_along(a, b - a),
            &[(0.0, 0.0), (r, 0.0), (r, len), (0.0, len)],
            segments,
        );
    }

    /// A surface of revolution about the z axis of `frame`: `profile` lists
    /// `(radius, z)` from one end to the other. An end with radius 0 at the
    /// same `z` as its neighbour is a flat cap (one polygon), at another
    /// `z` a cone tip (a fan); radius 0 elsewhere is not allowed.
    pub(crate) fn lathe(&mut self, frame: &DAffine3, profile: &[(f64, f64)], segments: usize) {
        let n = segments.max(3);
        let count = profile.len();
        if count < 2 {
            return;
        }
        let ring_of = |i: usize| profile[i].0 > 0.0;
        let mut ring_start: Vec<Option<u32>> = Vec::with_capacity(count);
        let mut pole: Vec<Option<u32>> = Vec::with_capacity(count);
        for (i, &(r, z)) in profile.iter().enumerate() {
            if ring_of(i) {
                ring_start.push(Some(self.vertex_base()));
                pole.push(None);
                for k in 0..n {
                    let a = core::f64::consts::TAU * k as f64 / n as f64;
                    let local = DVec3::new(r * a.cos(), r * a.sin(), z);
                    self.vertices.push(frame.transform_point3(local));
                }
            } else {
                ring_start.push(None);
                let flat =
                    (i == 0 && profile[1].1 == z) || (i + 1 == count && profile[count - 2].1 == z);
                if flat {
                    pole.push(None);
                } else {
                    pole.push(Some(self.vertex_base()));
                    self.vertices
                        .push(frame.transform_point3(DVec3::new(0.0, 0.0, z)));
                }
            }
        }
        let n32 = u32::try_from(n).unwrap_or(u32::MAX);
        for i in 0..count - 1 {
            match (ring_start[i], ring_start[i + 1]) {
                (Some(s0), Some(s1)) => {
                    for k in 0..n32 {
                        let k1 = (k + 1) % n32;
                        self.push_face(&[s0 + k, s0 + k1, s1 + k1, s1 + k]);
                    }
                }
                (None, Some(s1)) => match pole[i] {
                    Some(p) => {
                        for k in 0..n32 {
                            self.push_face(&[p, s1 + (k + 1) % n32, s1 + k]);
                        }
                    }
                    None => {
                        let cap: Vec<u32> = (0..n32).rev().map(|k| s1 + k).collect();
                        self.push_face(&cap);
                    }
                },
                (Some(s0), None) => match pole[i + 1] {
                    Some(p) => {
                        for k in 0..n32 {
                            self.push_face(&[s0 + k, s0 + (k + 1) % n32, p]);
                        }
                    }
                    None => {
                        let cap: Vec<u32> = (0..n32).map(|k| s0 + k).collect();
                        self.push_face(&cap);
                    }
                },
                (None, None) => {}
            }
        }
        let (z0, z1, r) = profile.iter().fold(
            (f64::INFINITY, f64::NEG_INFINITY, 0.0f64),
            |(lo, hi, r), &(pr, pz)| (lo.min(pz), hi.max(pz), r.max(pr)),
        );
        self.proxies.push(Proxy::round(
            frame.transform_point3(DVec3::new(0.0, 0.0, z0)),
            frame.transform_point3(DVec3::new(0.0, 0.0, z1)),
            r,
        ));
    }

    /// A closed solid swept through `rings`: each ring is a closed polygon
    /// of the same number of corners, counter-clockwise seen from where the
    /// sweep goes (so the walls face outwards), the rings in sweep order;
    /// the first and last rings are capped with one polygon each, so they
    /// must be convex. The proxy is the bounding box of the vertices.
    pub(crate) fn loft(&mut self, rings: &[Vec<DVec3>]) {
        let Some(n) = rings.first().map(Vec::len) else {
            return;
        };
        if n < 3 || rings.len() < 2 || rings.iter().any(|r| r.len() != n) {
            return;
        }
        let b = self.vertex_base();
        let start = self.vertices.len();
        for ring in rings {
            self.vertices.extend_from_slice(ring);
        }
        let n32 = u32::try_from(n).unwrap_or(u32::MAX);
        for i in 0..u32::try_from(rings.len() - 1).unwrap_or(u32::MAX) {
            let (s0, s1) = (b + i * n32, b + (i + 1) * n32);
            for k in 0..n32 {
                let k1 = (k + 1) % n32;
                self.push_face(&[s0 + k, s0 + k1, s1 + k1, s1 + k]);
            }
        }
        let first: Vec<u32> = (0..n32).rev().map(|k| b + k).collect();
        self.push_face(&first);
        let last_start = b + (u32::try_from(rings.len()).unwrap_or(u32::MAX) - 1) * n32;
        let last: Vec<u32> = (0..n32).map(|k| last_start + k).collect();
        self.push_face(&last);
        let (lo, hi) = self.vertices[start..].iter().fold(
            (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
            |(lo, hi), v| (lo.min(*v), hi.max(*v)),
        );
        self.proxies.push(Proxy::cuboid(
            &DAffine3::from_translation((lo + hi) * 0.5),
            (hi - lo) * 0.5,
        ));
    }

    /// A closed tube of radius `r` along the polyline `path` (at least two
    /// points, no two consecutive ones equal), `minor` vertices around,
    /// capped flat at both ends. Each ring sits at a path point, square to
    /// the mean of the two segments' directions, its frame carried along
    /// the path by parallel transport so the walls do not twist; the
    /// proxies are capsules of radius `r` around the segments.
    pub(crate) fn tube(&mut self, path: &[DVec3], r: f64, minor: usize) {
        if path.len() < 2 {
            return;
        }
        let m = minor.max(3);
        let dirs: Vec<DVec3> = path.windows(2).map(|w| (w[1] - w[0]).normalize()).collect();
        let tangent = |i: usize| {
            if i == 0 {
                dirs[0]
            } else if i == dirs.len() {
                dirs[i - 1]
            } else {
                (dirs[i - 1] + dirs[i]).normalize()
            }
        };
        let mut u = frame_z(dirs[0]).x_axis;
        let mut rings = Vec::with_capacity(path.len());
        let mut prev = tangent(0);
        for (i, p) in path.iter().enumerate() {
            let t = tangent(i);
            // Parallel transport: turn the previous normal by the rotation
            // taking the previous tangent to this one.
            u = glam::DQuat::from_rotation_arc(prev, t) * u;
            u = (u - t * t.dot(u)).normalize();
            let w = t.cross(u);
            rings.push(
                (0..m)
                    .map(|k| {
                        let beta = core::f64::consts::TAU * k as f64 / m as f64;
                        *p + (u * beta.cos() + w * beta.sin()) * r
                    })
                    .collect::<Vec<_>>(),
            );
            prev = t;
        }
        let before = self.proxies.len();
        self.loft(&rings);
        self.proxies.truncate(before);
        for w in path.windows(2) {
            self.proxies
                .push(Proxy::capsule(Capsule::new(w[0], w[1], r)));
        }
    }

    /// A tube of radius `r` bent along an arc of radius `bend` about
    /// `center`: the arc starts at `center + bend·e1`, turns towards `e2`
    /// (both unit, orthogonal) by `angle` radians, in `major` steps, with
    /// `minor` vertices around the tube. The ends are open (they meet
    /// straight pipes); a full turn (`angle = 2π`) closes into a torus.
    #[allow(clippy::too_many_arguments)] // A torus needs all of them; a struct would only rename them.
    pub(crate) fn torus(
        &mut self,
        center: DVec3,
        e1: DVec3,
        e2: DVec3,
        bend: f64,
        r: f64,
        angle: f64,
        major: usize,
        minor: usize,
    ) {
        let (major, minor) = (major.max(1), minor.max(3));
        let closed = (angle - core::f64::consts::TAU).abs() < 1e-12;
        let rings = if closed { major } else { major + 1 };
        let w = e1.cross(e2);
        let b = self.vertex_base();
        let ring_center = |i: usize| {
            let t = angle * i as f64 / major as f64;
            let u = e1 * t.cos() + e2 * t.sin();
            (center + u * bend, u)
        };
        for i in 0..rings {
            let (p, u) = ring_center(i);
            for k in 0..minor {
                let beta = core::f64::consts::TAU * k as f64 / minor as f64;
                self.vertices
                    .push(p + (u * beta.cos() + w * beta.sin()) * r);
            }
        }
        let m = u32::try_from(minor).unwrap_or(u32::MAX);
        let ring_count = u32::try_from(rings).unwrap_or(u32::MAX);
        for i in 0..u32::try_from(major).unwrap_or(u32::MAX) {
            let s0 = b + i * m;
            let s1 = b + ((i + 1) % ring_count) * m;
            for k in 0..m {
                let k1 = (k + 1) % m;
                self.push_face(&[s0 + k, s1 + k, s1 + k1, s0 + k1]);
            }
        }
        // Chords of the centre arc, widened by their sagitta.
        let chords = major.clamp(1, 8);
        let step = angle / chords as f64;
        let sagitta = bend * (1.0 - (0.5 * step).cos());
        for j in 0..chords {
            let t0 = step * j as f64;
            let t1 = step * (j + 1) as f64;
            let p0 = center + (e1 * t0.cos() + e2 * t0.sin()) * bend;
            let p1 = center + (e1 * t1.cos() + e2 * t1.sin()) * bend;
            self.proxies
                .push(Proxy::capsule(Capsule::new(p0, p1, r + sagitta)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Part, frame_along};
    use glam::{DAffine3, DVec3};

    fn inside_proxies(part: &Part) -> bool {
        part.vertices()
            .iter()
            .all(|v| part.proxies().iter().any(|c| c.contains(*v)))
    }

    #[test]
    fn proxies_keep_their_distance() {
        use super::{Capsule, Proxy};
        use glam::DVec3;
        let cap = |x: f64| {
            Proxy::capsule(Capsule::new(
                DVec3::new(x, 0.0, -1.0),
                DVec3::new(x, 0.0, 1.0),
                0.1,
            ))
        };
        let mut p = Part::new("box");
        p.aabox(DVec3::splat(-0.5), DVec3::splat(0.5));
        let b = p.proxies()[0];
        assert!(cap(0.65).within(&b, 0.06));
        assert!(!cap(0.65).within(&b, 0.04));
        assert!(!b.within(&cap(0.65), 0.04));
        assert!(cap(0.0).within(&cap(0.25), 0.06));
        assert!(!cap(0.0).within(&cap(0.25), 0.04));
    }

    #[test]
    fn box_has_twelve_triangles_inside_its_proxy() {
        let mut p = Part::new("box");
        let pose = DAffine3::from_rotation_z(0.3) * DAffine3::from_translation(DVec3::X);
        p.cuboid(&pose, DVec3::new(0.1, 0.4, 0.2));
        assert_eq!(p.triangle_count(), 12);
        assert_eq!(p.vertices().len(), 8);
        assert!(inside_proxies(&p));
    }

    #[test]
    fn closed_cylinder_counts_and_containment() {
        let mut p = Part::new("cyl");
        p.cylinder(DVec3::ZERO, DVec3::new(0.0, 1.0, 1.0), 0.1, 16);
        // 16 side quads and two 16-gon caps.
        assert_eq!(p.triangle_count(), 2 * 16 + 2 * 14);
        assert!(inside_proxies(&p));
    }

    #[test]
    fn tube_and_loft_are_closed_and_inside_their_proxies() {
        use armature_bvh_geometry::{MeshTopology, TriMesh};
        let closed = |p: &Part| {
            let mesh = TriMesh::new(p.vertices().to_vec(), p.triangles().collect()).unwrap();
            MeshTopology::new(&mesh).is_closed()
        };
        let mut t = Part::new("tube");
        t.tube(
            &[
                DVec3::ZERO,
                DVec3::X,
                DVec3::new(1.5, 0.0, -0.5),
                DVec3::new(1.5, 0.5, -1.0),
            ],
            0.01,
            12,
        );
        // Three segments of 12 quads, two 12-gon caps.
        assert_eq!(t.triangle_count(), 3 * 24 + 2 * 10);
        assert!(closed(&t));
        assert!(inside_proxies(&t));
        let mut l = Part::new("loft");
        let ring = |x: f64, r: f64| {
            (0..8)
                .map(|k| {
                    let a = core::f64::consts::TAU * f64::from(k) / 8.0;
                    DVec3::new(x, r * a.cos(), r * a.sin())
                })
                .collect::<Vec<_>>()
        };
        l.loft(&[ring(0.0, 0.5), ring(1.0, 0.7), ring(2.0, 0.4)]);
        assert!(closed(&l));
        assert!(inside_proxies(&l));
        // Open: a torus segment is not closed; a full turn is.
        let mut arc = Part::new("arc");
        arc.torus(DVec3::ZERO, DVec3::X, DVec3::Y, 0.3, 0.05, 1.5, 6, 8);
        assert!(!closed(&arc));
        let mut ring = Part::new("ring");
        ring.torus(
            DVec3::ZERO,
            DVec3::X,
            DVec3::Y,
            0.3,
            0.05,
            core::f64::consts::TAU,
            16,
            8,
        );
        assert!(closed(&ring));
    }

    #[test]
    fn lathe_with_cone_tip_and_torus() {
        let mut p = Part::new("tank");
        p.lathe(
            &frame_along(DVec3::ZERO, DVec3::Z),
            &[(0.0, 0.0), (0.5, 0.0), (0.5, 1.0), (0.3, 1.2), (0.0, 1.3)],
            12,
        );
        assert_eq!(p.triangle_count(), 10 + 2 * 12 * 2 + 12);
        p.torus(DVec3::ZERO, DVec3::X, DVec3::Y, 0.3, 0.05, 1.5, 6, 8);
        assert!(inside_proxies(&p));
        let closed_faces = p.triangles().count();
        assert_eq!(closed_faces, p.triangle_count());
    }
}
