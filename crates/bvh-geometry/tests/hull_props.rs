//! Convex hull properties on random and adversarial clouds.
//!
//! The oracle measures plane distances in double-double arithmetic, its
//! own code, so a sliver face's plane is known far more accurately than
//! the tolerance; then it checks the guarantees of the hull module:
//! containment, convexity, outward orientation, closed 2-manifold with
//! Euler characteristic 2, and the degenerate answers.

use std::collections::HashMap;

use armature_bvh_geometry::{ConvexHull, HullShape};
use glam::{DQuat, DVec3};
use proptest::prelude::*;

/// A double-double number: `hi + lo`, `|lo| ≤ ulp(hi)/2`.
#[derive(Clone, Copy, Debug)]
struct Dd(f64, f64);

fn two_sum(a: f64, b: f64) -> Dd {
    let s = a + b;
    let bb = s - a;
    Dd(s, (a - (s - bb)) + (b - bb))
}

fn quick(hi: f64, lo: f64) -> Dd {
    let s = hi + lo;
    Dd(s, lo - (s - hi))
}

impl Dd {
    fn diff(a: f64, b: f64) -> Self {
        two_sum(a, -b)
    }
    fn add(self, o: Self) -> Self {
        let s = two_sum(self.0, o.0);
        quick(s.0, s.1 + self.1 + o.1)
    }
    fn sub(self, o: Self) -> Self {
        self.add(Dd(-o.0, -o.1))
    }
    fn mul(self, o: Self) -> Self {
        let p = self.0 * o.0;
        let e = self.0.mul_add(o.0, -p);
        quick(p, e + self.0 * o.1 + self.1 * o.0)
    }
}

/// Signed distance of `p` above the plane of the counter-clockwise
/// triangle `(a, b, c)`, accurate to far below any tolerance used here.
fn plane_distance(a: DVec3, b: DVec3, c: DVec3, p: DVec3) -> f64 {
    let d = |x: DVec3, y: DVec3| [0, 1, 2].map(|k| Dd::diff(x[k], y[k]));
    let (u, v, w) = (d(b, a), d(c, a), d(p, a));
    let n = [
        u[1].mul(v[2]).sub(u[2].mul(v[1])),
        u[2].mul(v[0]).sub(u[0].mul(v[2])),
        u[0].mul(v[1]).sub(u[1].mul(v[0])),
    ];
    let num = n[0].mul(w[0]).add(n[1].mul(w[1])).add(n[2].mul(w[2]));
    let len = (n[0].0 * n[0].0 + n[1].0 * n[1].0 + n[2].0 * n[2].0).sqrt();
    (num.0 + num.1) / len
}

fn extent(points: &[DVec3]) -> f64 {
    let lo = points.iter().fold(DVec3::INFINITY, |m, &p| m.min(p));
    let hi = points.iter().fold(DVec3::NEG_INFINITY, |m, &p| m.max(p));
    (hi - lo).length()
}

/// Checks that every hull vertex is a corner of the polytope: the normals
/// of its triangles span space. Valid for inputs with few exact values
/// (grids, lattices), where distinct face normals are far from parallel;
/// a sliver-thin corner of a general cloud could fail it while correct.
fn check_corners(points: &[DVec3], hull: &ConvexHull) -> Result<(), TestCaseError> {
    let p = |i: u32| points[i as usize];
    for &v in hull.vertices() {
        let normals: Vec<DVec3> = hull
            .triangles()
            .iter()
            .filter(|t| t.contains(&v))
            .map(|t| (p(t[1]) - p(t[0])).cross(p(t[2]) - p(t[0])).normalize())
            .collect();
        let mut best = 0.0f64;
        for (i, a) in normals.iter().enumerate() {
            for (j, b) in normals.iter().enumerate().skip(i + 1) {
                for c in &normals[j + 1..] {
                    best = best.max(a.dot(b.cross(*c)).abs());
                }
            }
        }
        prop_assert!(best > 1e-12, "vertex {} ({}) is not a corner", v, p(v));
    }
    Ok(())
}

/// Checks every guarantee of the hull module for `points`.
fn check_hull(points: &[DVec3]) -> Result<ConvexHull, TestCaseError> {
    let hull = ConvexHull::new(points).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let tol = hull.tolerance();
    let ext = extent(points);
    let max_abs = points
        .iter()
        .fold(0.0f64, |m, p| m.max(p.abs().max_element()));
    prop_assert!(
        tol >= 0.0 && tol <= 1e-9 * ext + 1e-80 * max_abs,
        "tolerance {} for extent {}",
        tol,
        ext
    );
    let p = |i: u32| points[i as usize];
    match hull.shape() {
        HullShape::Polyhedron {
            vertices,
            triangles,
        } => {
            prop_assert!(triangles.len() >= 4);
            // Vertices: ascending, unique, exactly those the triangles use.
            let mut used: Vec<u32> = triangles.iter().flatten().copied().collect();
            used.sort_unstable();
            used.dedup();
            prop_assert_eq!(&used, vertices);
            prop_assert!(vertices.iter().all(|&v| (v as usize) < points.len()));
            // Closed, consistently oriented: each directed edge once, and
            // its reverse once.
            let mut directed: HashMap<(u32, u32), usize> = HashMap::new();
            for t in triangles {
                prop_assert!(t[0] != t[1] && t[1] != t[2] && t[0] != t[2]);
                for k in 0..3 {
                    *directed.entry((t[k], t[(k + 1) % 3])).or_default() += 1;
                }
            }
            for (&(a, b), &n) in &directed {
                prop_assert_eq!(n, 1, "edge {}->{} used {} times", a, b, n);
                prop_assert_eq!(
                    directed.get(&(b, a)),
                    Some(&1),
                    "edge {}->{} has no twin",
                    a,
                    b
                );
            }
            // Euler characteristic of a sphere.
            let (v, e, f) = (
                vertices.len() as i64,
                directed.len() as i64 / 2,
                triangles.len() as i64,
            );
            prop_assert_eq!(v - e + f, 2, "V {} E {} F {}", v, e, f);
            // Outward: the centroid of the vertices is below every face.
            let centroid = vertices.iter().map(|&i| p(i)).sum::<DVec3>() / vertices.len() as f64;
            for t in triangles {
                let [a, b, c] = t.map(p);
                prop_assert!(
                    plane_distance(a, b, c, centroid) < 0.0,
                    "face {:?} faces inward",
                    t
                );
                // Containment: every input point within τ below the face.
                for (i, &q) in points.iter().enumerate() {
                    let d = plane_distance(a, b, c, q);
                    prop_assert!(
                        d <= tol,
                        "point {} is {} above face {:?} (τ {})",
                        i,
                        d,
                        t,
                        tol
                    );
                }
                // Convexity: no hull vertex above any face.
                for &w in vertices {
                    let d = plane_distance(a, b, c, p(w));
                    prop_assert!(d <= tol, "vertex {} is {} above face {:?}", w, d, t);
                }
            }
        }
        HullShape::Polygon { vertices, normal } => {
            prop_assert!(vertices.len() >= 3);
            prop_assert!((normal.length() - 1.0).abs() < 1e-12);
            let o = p(vertices[0]);
            // All points within τ of one plane with this normal.
            let h: Vec<f64> = points.iter().map(|&q| normal.dot(q - o)).collect();
            let (lo, hi) = h
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, u), &x| {
                    (l.min(x), u.max(x))
                });
            prop_assert!(
                hi - lo <= 2.0 * tol + 1e-14 * ext,
                "thickness {} τ {}",
                hi - lo,
                tol
            );
            // Inside the polygon seen along the normal (projected on the
            // coordinate plane closest to it), counter-clockwise about it.
            let k = normal.abs().max_position();
            let (iu, iv) = [(1, 2), (2, 0), (0, 1)][k];
            let sgn = normal[k].signum();
            let n = vertices.len();
            for j in 0..n {
                let (a, b) = (p(vertices[j]), p(vertices[(j + 1) % n]));
                let (ex, ey) = (b[iu] - a[iu], b[iv] - a[iv]);
                let len = ex.hypot(ey);
                for (i, &q) in points.iter().enumerate() {
                    let cross = sgn * (ex * (q[iv] - a[iv]) - ey * (q[iu] - a[iu]));
                    prop_assert!(
                        cross / len >= -1e-14 * ext,
                        "point {} outside polygon edge {} by {}",
                        i,
                        j,
                        -cross / len
                    );
                }
            }
        }
        HullShape::Segment { ends } => {
            let (a, b) = (p(ends[0]), p(ends[1]));
            for &q in points {
                let t = ((q - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
                let d = (a + (b - a) * t - q).length();
                prop_assert!(d <= tol, "distance {} to segment, τ {}", d, tol);
            }
        }
        HullShape::Point { index } => {
            for &q in points {
                prop_assert!((q - p(*index)).length() <= tol);
            }
        }
    }
    Ok(hull)
}

fn unit_vector() -> impl Strategy<Value = DVec3> {
    (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64).prop_map(|(x, y, z)| {
        let v = DVec3::new(x, y, z);
        if v.length() < 1e-3 {
            DVec3::X
        } else {
            v.normalize()
        }
    })
}

fn rotation() -> impl Strategy<Value = DQuat> {
    (unit_vector(), 0.0..std::f64::consts::TAU)
        .prop_map(|(axis, angle)| DQuat::from_axis_angle(axis, angle))
}

/// A similarity that puts a unit-sized cloud at any scale and offset.
fn placement() -> impl Strategy<Value = (f64, DVec3)> {
    (-6i32..6, prop::array::uniform3(-100.0..100.0f64)).prop_map(|(e, o)| {
        let s = 10f64.powi(e);
        (s, DVec3::from_array(o) * s)
    })
}

fn place(points: Vec<DVec3>, (s, o): (f64, DVec3)) -> Vec<DVec3> {
    points.into_iter().map(|p| p * s + o).collect()
}

fn point_in_cube() -> impl Strategy<Value = DVec3> {
    prop::array::uniform3(-1.0..1.0f64).prop_map(DVec3::from_array)
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 2000,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn random_clouds(points in prop::collection::vec(point_in_cube(), 1..80), at in placement()) {
        check_hull(&place(points, at))?;
    }

    #[test]
    fn clouds_with_duplicates(
        points in prop::collection::vec(point_in_cube(), 1..30),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 1..40),
        at in placement(),
    ) {
        let mut all = points.clone();
        all.extend(picks.iter().map(|i| points[i.index(points.len())]));
        check_hull(&place(all, at))?;
    }

    #[test]
    fn grid_points(
        n in 2usize..5,
        keep in prop::collection::vec(any::<bool>(), 125),
        rotate in any::<bool>(),
        rot in rotation(),
        at in placement(),
    ) {
        let mut pts = Vec::new();
        for i in 0..n {
            for j in 0..n {
                for k in 0..n {
                    if keep[(i * 25 + j * 5 + k) % 125] {
                        pts.push(DVec3::new(i as f64, j as f64, k as f64));
                    }
                }
            }
        }
        if pts.is_empty() {
            pts.push(DVec3::ZERO);
        }
        if rotate {
            pts = pts.into_iter().map(|p| rot * p).collect();
            check_hull(&place(pts, at))?;
        } else {
            let hull = check_hull(&pts)?;
            if hull.dim() == 3 {
                check_corners(&pts, &hull)?;
            }
        }
    }

    #[test]
    fn jittered_grid(
        n in 2usize..6,
        jitter in prop::collection::vec(prop::array::uniform3(-1.0..1.0f64), 216),
        jitter_exp in -17i32..-8,
        at in placement(),
    ) {
        // Grid points moved by about the tolerance: coplanar up to a few
        // ulps or a few τ, the hardest case for visibility decisions.
        let j = 10f64.powi(jitter_exp);
        let mut pts = Vec::new();
        for i in 0..n {
            for k in 0..n {
                for l in 0..n {
                    let d = DVec3::from_array(jitter[(i * 36 + k * 6 + l) % 216]);
                    pts.push(DVec3::new(i as f64, k as f64, l as f64) + d * j);
                }
            }
        }
        check_hull(&place(pts, at))?;
    }

    #[test]
    fn quantized_sphere(
        dirs in prop::collection::vec(unit_vector(), 4..150),
        log_steps in 1i32..5,
    ) {
        // Directions rounded to a coarse dyadic lattice (exact values):
        // many exactly coplanar, collinear and cospherical subsets, and
        // duplicates.
        let q = 2f64.powi(log_steps);
        let pts: Vec<DVec3> = dirs.iter().map(|d| (*d * q).round() / q).collect();
        let hull = check_hull(&pts)?;
        if hull.dim() == 3 {
            check_corners(&pts, &hull)?;
        }
    }

    #[test]
    fn points_on_a_sphere(
        dirs in prop::collection::vec(unit_vector(), 4..120),
        at in placement(),
    ) {
        check_hull(&place(dirs, at))?;
    }

    #[test]
    fn near_coplanar_clouds(
        flat in prop::collection::vec((-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64), 3..60),
        thickness_exp in -18i32..-3,
        rot in rotation(),
        at in placement(),
    ) {
        let t = 10f64.powi(thickness_exp);
        let pts = flat.iter().map(|&(x, y, z)| rot * DVec3::new(x, y, z * t)).collect();
        check_hull(&place(pts, at))?;
    }

    #[test]
    fn near_collinear_clouds(
        line in prop::collection::vec((-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64), 2..40),
        width_exp in -18i32..-3,
        rot in rotation(),
        at in placement(),
    ) {
        let w = 10f64.powi(width_exp);
        let pts = line.iter().map(|&(x, y, z)| rot * DVec3::new(x, y * w, z * w)).collect();
        check_hull(&place(pts, at))?;
    }
}

#[test]
fn exact_grid_has_only_corners() {
    // Every point of a 5×5×5 grid, in an order that starts inside a face.
    let mut pts = Vec::new();
    for i in [2, 0, 1, 3, 4] {
        for j in [2, 4, 0, 1, 3] {
            for k in [0, 2, 4, 1, 3] {
                pts.push(DVec3::new(f64::from(i), f64::from(j), f64::from(k)));
            }
        }
    }
    let hull = check_hull(&pts).expect("valid hull");
    check_corners(&pts, &hull).expect("corners only");
    let mut corners: Vec<DVec3> = hull.vertices().iter().map(|&i| pts[i as usize]).collect();
    corners.sort_by(|a, b| a.to_array().partial_cmp(&b.to_array()).expect("finite"));
    let expect: Vec<DVec3> = (0..8)
        .map(|c| {
            DVec3::new(
                f64::from(c >> 2 & 1),
                f64::from(c >> 1 & 1),
                f64::from(c & 1),
            ) * 4.0
        })
        .collect();
    assert_eq!(corners, expect);
    assert_eq!(hull.triangles().len(), 12);
}

#[test]
fn cube_surface_points_have_only_corners() {
    // Points on the faces and edges of a cube, listed before the corners.
    let mut pts = Vec::new();
    for a in [0.25, 0.5, 0.75] {
        for b in [0.0, 0.5, 1.0] {
            pts.extend([
                DVec3::new(a, b, 0.0),
                DVec3::new(a, b, 1.0),
                DVec3::new(0.0, a, b),
                DVec3::new(1.0, a, b),
                DVec3::new(b, 0.0, a),
                DVec3::new(b, 1.0, a),
            ]);
        }
    }
    let first_corner = pts.len() as u32;
    for c in 0..8 {
        pts.push(DVec3::new(
            f64::from(c & 1),
            f64::from(c >> 1 & 1),
            f64::from(c >> 2 & 1),
        ));
    }
    let hull = check_hull(&pts).expect("valid hull");
    assert_eq!(
        hull.vertices(),
        (first_corner..first_corner + 8).collect::<Vec<_>>()
    );
}

#[test]
fn degenerate_answers_are_typed() {
    let same = vec![DVec3::new(1.0, 2.0, 3.0); 5];
    let hull = check_hull(&same).expect("valid");
    assert_eq!(hull.shape(), &HullShape::Point { index: 0 });

    let line: Vec<DVec3> = [0.5, 0.0, 2.0, 1.0, 2.0]
        .iter()
        .map(|&t| DVec3::new(t, 2.0 * t, 3.0 * t))
        .collect();
    let hull = check_hull(&line).expect("valid");
    assert_eq!(hull.shape(), &HullShape::Segment { ends: [1, 2] });

    let square = [
        DVec3::ZERO,
        DVec3::X,
        DVec3::new(0.5, 0.5, 0.0),
        DVec3::new(1.0, 1.0, 0.0),
        DVec3::Y,
    ];
    let hull = check_hull(&square).expect("valid");
    match hull.shape() {
        HullShape::Polygon { vertices, normal } => {
            assert_eq!(vertices.len(), 4);
            assert!(!vertices.contains(&2));
            // Counter-clockwise about the normal.
            let [a, b, c] = [0, 1, 2].map(|k| square[vertices[k] as usize]);
            assert!((b - a).cross(c - b).dot(*normal) > 0.0);
        }
        other => panic!("expected a polygon, got {other:?}"),
    }
    assert_eq!(hull.dim(), 2);
    assert!(hull.is_degenerate());
    assert!(hull.triangles().is_empty());
}

#[test]
fn errors_name_the_input() {
    use armature_bvh_geometry::{GeometryError, HullOptions};
    assert_eq!(ConvexHull::new(&[]), Err(GeometryError::EmptyPointSet));
    let bad = [DVec3::ZERO, DVec3::new(0.0, f64::NAN, 0.0)];
    assert!(matches!(
        ConvexHull::new(&bad),
        Err(GeometryError::NonFinitePoint { index: 1, .. })
    ));
    let opts = HullOptions::default().with_relative_tolerance(-1.0);
    assert!(matches!(
        ConvexHull::with_options(&[DVec3::ZERO], &opts),
        Err(GeometryError::InvalidParameter {
            name: "relative_tolerance",
            ..
        })
    ));
}

#[test]
fn absolute_tolerance_flattens() {
    use armature_bvh_geometry::HullOptions;
    let pts = [DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::new(0.2, 0.2, 1e-4)];
    let opts = HullOptions::default().with_absolute_tolerance(1e-3);
    let hull = ConvexHull::with_options(&pts, &opts).expect("valid");
    assert_eq!(hull.dim(), 2);
    assert!(hull.tolerance() >= 1e-3);
    assert_eq!(ConvexHull::new(&pts).expect("valid").dim(), 3);
}

#[test]
fn large_clouds() {
    // Deterministic pseudo-random points (xorshift), inside a ball and on
    // a sphere.
    let mut s = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    let ball: Vec<DVec3> = (0..20_000)
        .map(|_| DVec3::new(next(), next(), next()))
        .filter(|p| p.length() <= 1.0)
        .collect();
    check_hull(&ball).expect("valid hull");
    let sphere: Vec<DVec3> = (0..3_000)
        .map(|_| DVec3::new(next(), next(), next()).normalize_or(DVec3::X))
        .collect();
    let hull = check_hull(&sphere).expect("valid hull");
    assert_eq!(hull.vertices().len(), 3_000);
    // Deterministic: the same input gives the same hull.
    assert_eq!(ConvexHull::new(&sphere).expect("valid"), hull);
}
