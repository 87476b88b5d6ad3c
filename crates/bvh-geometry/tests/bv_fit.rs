//! Bounding-volume fitting: every input point is contained — exactly,
//! `contains_point` with no tolerance — for random and degenerate clouds
//! (coplanar, collinear, duplicates, one point, far from the origin, tiny
//! and huge scales) and triangle soups; the minimal sphere is within 1 % of
//! a brute-force minimal sphere; RSS and LSS are as tight as their
//! construction promises; bad input gives typed errors.

mod query_support;

use armature_bvh_geometry::bv::{
    Aabb, BoundingVolume, FitError, Lss, Obb, Rss, Sphere, principal_axes,
    principal_axes_of_triangles,
};
use glam::DVec3;
use proptest::prelude::*;
use query_support::{CASES, config, triangle, unit_vec3, vec3};

/// Clouds of 1 to 64 points, in the degenerate families too, then scaled
/// (1e-9 .. 1e9) and moved (up to 1e8 from the origin).
fn cloud() -> impl Strategy<Value = Vec<DVec3>> {
    let n = 1_usize..64;
    let shape = prop_oneof![
        4 => proptest::collection::vec(vec3(), n.clone()),
        // coplanar
        1 => (vec3(), unit_vec3(), unit_vec3(), proptest::collection::vec((-1.0..1.0_f64, -1.0..1.0_f64), n.clone()))
            .prop_map(|(o, u, v, c)| c.into_iter().map(|(a, b)| o + u * a + v * b).collect()),
        // collinear
        1 => (vec3(), unit_vec3(), proptest::collection::vec(-1.0..1.0_f64, n.clone()))
            .prop_map(|(o, u, c)| c.into_iter().map(|a| o + u * a).collect()),
        // duplicates
        1 => (proptest::collection::vec(vec3(), 1..6), 1_usize..10)
            .prop_map(|(p, k)| p.iter().cycle().take(p.len() * k).copied().collect()),
        // one point, possibly repeated
        1 => (vec3(), 1_usize..5).prop_map(|(p, k)| vec![p; k]),
        // a tight cluster (spread 1e-12 .. 1e-3)
        1 => (vec3(), proptest::collection::vec(vec3(), n), -12.0..-3.0_f64)
            .prop_map(|(o, p, e)| p.into_iter().map(|q| o + q * 10f64.powf(e)).collect()),
    ];
    (shape, -9.0..9.0_f64, vec3(), 0.0..8.0_f64, any::<bool>()).prop_map(|(pts, e, o, k, moved)| {
        let s = 10f64.powf(e);
        let off = if moved {
            o * 10f64.powf(k) * s
        } else {
            DVec3::ZERO
        };
        pts.into_iter().map(|p| p * s + off).collect()
    })
}

fn soup() -> impl Strategy<Value = Vec<[DVec3; 3]>> {
    (
        proptest::collection::vec(triangle(), 1..24),
        -6.0..6.0_f64,
        vec3(),
        0.0..6.0_f64,
    )
        .prop_map(|(t, e, o, k)| {
            let s = 10f64.powf(e);
            t.into_iter()
                .map(|t| t.map(|p| p * s + o * 10f64.powf(k) * s))
                .collect()
        })
}

fn check_all<B: BoundingVolume>(bv: &B, pts: &[DVec3]) -> Result<(), TestCaseError> {
    for (i, p) in pts.iter().enumerate() {
        prop_assert!(bv.contains_point(*p), "point {i} = {p} outside {bv:?}");
    }
    Ok(())
}

fn scale(pts: &[DVec3]) -> f64 {
    pts.iter().fold(0.0, |m, p| m.max(p.abs().max_element()))
}

proptest! {
    #![proptest_config(config(CASES))]

    #[test]
    fn every_point_is_contained(pts in cloud()) {
        check_all(&Aabb::from_points(&pts).unwrap(), &pts)?;
        let obb = Obb::from_points(&pts).unwrap();
        check_all(&obb, &pts)?;
        check_all(&Rss::from_points(&pts).unwrap(), &pts)?;
        check_all(&Lss::from_points(&pts).unwrap(), &pts)?;
        check_all(&Sphere::from_points(&pts).unwrap(), &pts)?;
        let axes = principal_axes(&pts).unwrap();
        prop_assert!((axes.transpose() * axes).abs_diff_eq(glam::DMat3::IDENTITY, 1e-14));
        prop_assert!(obb.axes == axes, "the OBB uses the principal axes");
        let fixed = Obb::from_points_with_axes(&pts, glam::DMat3::from_rotation_y(0.3)).unwrap();
        check_all(&fixed, &pts)?;
        check_all(&Rss::from_points_with_axes(&pts, axes).unwrap(), &pts)?;
    }

    #[test]
    fn every_vertex_of_a_soup_is_contained(tris in soup()) {
        let v = tris.as_flattened();
        check_all(&Aabb::from_triangles(&tris).unwrap(), v)?;
        check_all(&Obb::from_triangles(&tris).unwrap(), v)?;
        check_all(&Rss::from_triangles(&tris).unwrap(), v)?;
        check_all(&Lss::from_triangles(&tris).unwrap(), v)?;
        check_all(&Sphere::from_triangles(&tris).unwrap(), v)?;
        let axes = principal_axes_of_triangles(&tris).unwrap();
        prop_assert!((axes.transpose() * axes).abs_diff_eq(glam::DMat3::IDENTITY, 1e-14));
    }

    /// The fits are tight where their construction says so: the RSS radius
    /// is the half thickness across the principal plane (the rectangle's
    /// corner growth keeps it), the LSS radius is at most the half diagonal
    /// of the OBB's cross-section, the AABB is attained.
    #[test]
    fn fits_are_tight(pts in cloud()) {
        let s = scale(&pts);
        let obb = Obb::from_points(&pts).unwrap();
        let rss = Rss::from_points(&pts).unwrap();
        prop_assert!(rss.radius <= obb.half_extents.z * (1.0 + 1e-9) + 1e-12 * s, "rss radius {} vs half thickness {}", rss.radius, obb.half_extents.z);
        let lss = Lss::from_points(&pts).unwrap();
        let cross = obb.half_extents.y.hypot(obb.half_extents.z);
        prop_assert!(lss.radius <= cross * (1.0 + 1e-9) + 1e-12 * s, "lss radius {} vs {}", lss.radius, cross);
        let aabb = Aabb::from_points(&pts).unwrap();
        for k in 0..3 {
            prop_assert!(pts.iter().any(|p| p[k] == aabb.min[k]) && pts.iter().any(|p| p[k] == aabb.max[k]));
        }
    }

    /// Minimal sphere within 1 % of brute force on small sets (and never
    /// smaller than the minimum, as it holds every point).
    #[test]
    fn minimal_sphere_matches_brute_force(pts in proptest::collection::vec(vec3(), 1..9), flat in any::<bool>()) {
        let pts: Vec<DVec3> = if flat { pts.iter().map(|p| DVec3::new(p.x, p.y, 0.25)).collect() } else { pts };
        let s = Sphere::from_points(&pts).unwrap();
        let best = brute_force_sphere(&pts);
        prop_assert!(s.radius <= best * 1.01 + 1e-12, "welzl {} brute {}", s.radius, best);
        prop_assert!(s.radius >= best * (1.0 - 1e-9) - 1e-12, "welzl {} below the minimum {}", s.radius, best);
    }
}

/// Smallest radius among the spheres determined by 1 to 4 of the points
/// (diametral, circumcircle, circumsphere) that hold all points: the
/// minimal enclosing sphere is one of them.
fn brute_force_sphere(pts: &[DVec3]) -> f64 {
    let n = pts.len();
    let holds = |c: DVec3, r: f64| {
        pts.iter()
            .all(|p| (*p - c).length() <= r * (1.0 + 1e-9) + 1e-12)
    };
    let mut best = f64::INFINITY;
    let mut consider = |c: DVec3, r: f64| {
        if r.is_finite() && r < best && holds(c, r) {
            best = r;
        }
    };
    if n == 1 {
        return 0.0;
    }
    for i in 0..n {
        for j in i + 1..n {
            let c = (pts[i] + pts[j]) * 0.5;
            consider(c, (pts[i] - c).length());
            for k in j + 1..n {
                let (a, b, cc) = (pts[i], pts[j], pts[k]);
                let (ab, ac) = (b - a, cc - a);
                let nn = ab.cross(ac);
                if nn.length_squared() > 1e-24 {
                    let o = a
                        + (nn.cross(ab) * ac.length_squared() + ac.cross(nn) * ab.length_squared())
                            / (2.0 * nn.length_squared());
                    consider(o, (a - o).length());
                }
                for l in k + 1..n {
                    let d = pts[l];
                    let m = glam::DMat3::from_cols(ab, ac, d - a).transpose();
                    if m.determinant().abs() > 1e-12 {
                        let rhs = DVec3::new(
                            ab.length_squared(),
                            ac.length_squared(),
                            (d - a).length_squared(),
                        ) * 0.5;
                        let x = m.inverse() * rhs;
                        consider(a + x, x.length());
                    }
                }
            }
        }
    }
    best
}

#[test]
fn bad_input_gives_typed_errors() {
    assert_eq!(Obb::from_points(&[]), Err(FitError::Empty));
    assert_eq!(Sphere::from_triangles(&[]), Err(FitError::Empty));
    let pts = [DVec3::ZERO, DVec3::new(1.0, f64::NAN, 0.0)];
    assert!(matches!(
        Rss::from_points(&pts),
        Err(FitError::InvalidPoint { index: 1, .. })
    ));
    let pts = [DVec3::ZERO, DVec3::X, DVec3::new(1e200, 0.0, 0.0)];
    assert!(matches!(
        Lss::from_points(&pts),
        Err(FitError::InvalidPoint { index: 2, .. })
    ));
    let tris = [
        [DVec3::ZERO; 3],
        [DVec3::ZERO, DVec3::X, DVec3::new(0.0, f64::INFINITY, 0.0)],
    ];
    let e = Aabb::from_triangles(&tris).unwrap_err();
    assert!(matches!(e, FitError::InvalidTriangle { index: 1, .. }));
    assert!(e.to_string().contains("triangle 1"));
}

#[test]
fn extreme_but_valid_coordinates() {
    let m = armature_bvh_geometry::bv::MAX_COORDINATE;
    let pts = [
        DVec3::splat(m),
        DVec3::splat(-m),
        DVec3::new(m, -m, 0.5 * m),
        DVec3::ZERO,
    ];
    check_all(&Aabb::from_points(&pts).unwrap(), &pts).unwrap();
    check_all(&Obb::from_points(&pts).unwrap(), &pts).unwrap();
    check_all(&Rss::from_points(&pts).unwrap(), &pts).unwrap();
    check_all(&Lss::from_points(&pts).unwrap(), &pts).unwrap();
    check_all(&Sphere::from_points(&pts).unwrap(), &pts).unwrap();
    let tiny = [
        DVec3::splat(1e-300),
        DVec3::new(2e-300, 0.0, -1e-300),
        DVec3::ZERO,
    ];
    check_all(&Obb::from_points(&tiny).unwrap(), &tiny).unwrap();
    check_all(&Rss::from_points(&tiny).unwrap(), &tiny).unwrap();
    check_all(&Sphere::from_points(&tiny).unwrap(), &tiny).unwrap();
}
