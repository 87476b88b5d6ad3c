//! SSCH meshes on random SSCHs: random points of the SSCH lie inside the
//! mesh (below every triangle's plane), every mesh vertex lies within the
//! reported outer radius of a generating point and that radius within the
//! circumscribing factor of the SSCH's radius, and the mesh is a closed
//! surface.

use armature_bvh_geometry::MeshTopology;
use armature_bvh_geometry::ssch_mesh::{SschMeshOptions, circumscribing_factor, ssch_mesh};
use armature_kinematics::Ssch;
use glam::DVec3;
use proptest::prelude::*;

fn point() -> impl Strategy<Value = DVec3> {
    (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

/// A unit direction from three normal-ish samples (never zero).
fn direction() -> impl Strategy<Value = DVec3> {
    point().prop_map(|p| {
        let d = p + DVec3::new(1e-3, 0.0, 0.0);
        d.normalize()
    })
}

/// Points of the SSCH: a convex combination of its points (weights from
/// `w`) plus an offset of length `s·r` along `dir`.
fn ssch_point(points: &[DVec3], w: &[f64], dir: DVec3, s: f64, r: f64) -> DVec3 {
    let total: f64 = w.iter().take(points.len()).sum();
    let c = points
        .iter()
        .zip(w)
        .fold(DVec3::ZERO, |acc, (&p, &wi)| acc + p * (wi / total));
    c + dir * (s * r)
}

/// The largest signed plane distance of `x` over the mesh's triangles.
fn outside_by(mesh: &armature_bvh_geometry::TriMesh, x: DVec3) -> f64 {
    mesh.triangles()
        .filter_map(|[a, b, c]| {
            let n = (b - a).cross(c - a);
            (n.length() > 0.0).then(|| n.normalize().dot(x - a))
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn ssch_points_inside_vertices_near(
        points in prop::collection::vec(point(), 1..7),
        radius in 0.001..0.5f64,
        subdivisions in 0u32..3,
        offset in prop::collection::vec(-50.0..50.0f64, 3),
        samples in prop::collection::vec(
            (prop::collection::vec(0.01..1.0f64, 7), direction(), 0.0..=1.0f64),
            24,
        ),
    ) {
        let shift = DVec3::new(offset[0], offset[1], offset[2]);
        let points: Vec<DVec3> = points.iter().map(|&p| p + shift).collect();
        let ssch = Ssch::new(points.clone(), radius).unwrap();
        let options = SschMeshOptions::default().with_subdivisions(subdivisions);
        let meshed = ssch_mesh(&ssch, &options).unwrap();
        let mesh = &meshed.mesh;
        prop_assert!(MeshTopology::new(mesh).is_closed());
        // Rounding of the test's own plane distances.
        let eps = 1e-12 * (1.0 + shift.length());
        // The extreme points of the SSCH: each generating point pushed
        // out by r along every sampled direction, and interior samples.
        for (w, dir, s) in &samples {
            for &p in &points {
                let x = p + *dir * radius;
                prop_assert!(outside_by(mesh, x) <= eps, "{x} outside by {}", outside_by(mesh, x));
            }
            let x = ssch_point(&points, w, *dir, *s, radius);
            prop_assert!(outside_by(mesh, x) <= eps);
        }
        let factor = circumscribing_factor(subdivisions).unwrap();
        prop_assert!(meshed.outer_radius >= radius);
        prop_assert!(
            meshed.outer_radius <= radius * factor * (1.0 + 1e-6) + 1e-9 * (1.0 + shift.length()),
            "outer radius {} for r = {radius}, factor {factor}",
            meshed.outer_radius
        );
        for &v in mesh.vertices() {
            let nearest = points.iter().map(|&p| p.distance(v)).fold(f64::INFINITY, f64::min);
            prop_assert!(nearest <= meshed.outer_radius, "{nearest} > {}", meshed.outer_radius);
        }
    }

    /// Flat and collinear point sets with a minimum radius still give a
    /// closed mesh holding them.
    #[test]
    fn flat_points_with_min_radius(
        points in prop::collection::vec((-1.0..1.0f64, -1.0..1.0f64), 1..6),
        min_radius in 0.001..0.1f64,
        collinear in any::<bool>(),
    ) {
        let points: Vec<DVec3> = points
            .iter()
            .map(|&(x, y)| DVec3::new(x, if collinear { 0.0 } else { y }, 0.5))
            .collect();
        let ssch = Ssch::new(points.clone(), 0.0).unwrap();
        let meshed = ssch_mesh(&ssch, &SschMeshOptions::default().with_min_radius(min_radius))
            .unwrap();
        prop_assert!(MeshTopology::new(&meshed.mesh).is_closed());
        prop_assert_eq!(meshed.radius, min_radius);
        for &p in &points {
            for d in [DVec3::X, DVec3::NEG_Y, DVec3::Z, DVec3::NEG_Z] {
                prop_assert!(outside_by(&meshed.mesh, p + d * min_radius) <= 1e-12);
            }
        }
    }
}

#[test]
fn more_subdivisions_fit_tighter() {
    let ssch = Ssch::new(vec![DVec3::ZERO, DVec3::new(0.3, 0.1, 0.0)], 0.2).unwrap();
    let mut last = f64::INFINITY;
    for s in 0..=3 {
        let m = ssch_mesh(&ssch, &SschMeshOptions::default().with_subdivisions(s)).unwrap();
        assert!(m.outer_radius < last, "{s}: {}", m.outer_radius);
        last = m.outer_radius;
    }
    assert!(last < 0.2 * 1.006);
}
