//! `transform(&DAffine3)`: every point inside a volume, mapped by
//! `DAffine3::transform_point3`, is inside the transformed volume (exactly,
//! `contains_point`), for rigid and general (scaled, sheared, singular) maps;
//! under a rigid map the volume does not grow beyond rounding.

mod query_support;

use armature_bvh_geometry::bv::{Aabb, BoundingVolume, Lss, Obb, Rss, Sphere};
use glam::{DAffine3, DMat3, DVec3};
use proptest::prelude::*;
use query_support::{CASES, config, rotation, vec3};

fn cloud() -> impl Strategy<Value = Vec<DVec3>> {
    (
        proptest::collection::vec(vec3(), 1..24),
        -3.0..3.0_f64,
        vec3(),
        0.0..4.0_f64,
    )
        .prop_map(|(p, e, o, k)| {
            let s = 10f64.powf(e);
            p.into_iter()
                .map(|q| q * s + o * 10f64.powf(k) * s)
                .collect()
        })
}

/// Rigid maps, and general ones: a random matrix (possibly singular).
fn affine() -> impl Strategy<Value = (DAffine3, bool)> {
    let t = || (vec3(), 0.0..4.0_f64).prop_map(|(v, k)| v * 10f64.powf(k));
    prop_oneof![
        3 => (rotation(), t()).prop_map(|(r, t)| (DAffine3::from_mat3_translation(r, t), true)),
        1 => (vec3(), vec3(), vec3(), t()).prop_map(|(a, b, c, t)| (DAffine3::from_mat3_translation(DMat3::from_cols(a, b, c) * 2.0, t), false)),
        1 => (rotation(), vec3(), t()).prop_map(|(r, s, t)| (DAffine3::from_mat3_translation(r * DMat3::from_diagonal(s * 3.0), t), false)),
    ]
}

/// Points inside the volume: the fitted points and points on the segments
/// between them (kept only if the original contains them, so that the
/// property is about the transform alone).
fn inside<B: BoundingVolume>(bv: &B, pts: &[DVec3], w: &[f64]) -> Vec<DVec3> {
    let mut v: Vec<DVec3> = pts.to_vec();
    for (i, t) in w.iter().enumerate() {
        let (a, b) = (pts[i % pts.len()], pts[(i * 7 + 3) % pts.len()]);
        v.push(a + (b - a) * *t);
    }
    v.into_iter().filter(|p| bv.contains_point(*p)).collect()
}

fn check<B: BoundingVolume>(
    bv: B,
    pts: &[DVec3],
    w: &[f64],
    m: &DAffine3,
) -> Result<B, TestCaseError> {
    let moved = bv.transform(m);
    for p in inside(&bv, pts, w) {
        let q = m.transform_point3(p);
        prop_assert!(moved.contains_point(q), "{p} ↦ {q} outside {moved:?}");
    }
    Ok(moved)
}

proptest! {
    #![proptest_config(config(CASES))]

    #[test]
    fn transformed_volumes_hold_the_mapped_points(pts in cloud(), (m, rigid) in affine(), w in proptest::collection::vec(0.0..1.0_f64, 16)) {
        let scale = pts.iter().fold(0.0_f64, |s, p| s.max(p.abs().max_element()));
        let tol = 1e-12 * (scale + m.translation.abs().max_element());
        let a = Aabb::from_points(&pts).unwrap();
        let a2 = check(a, &pts, &w, &m)?;
        let o = Obb::from_points(&pts).unwrap();
        let o2 = check(o, &pts, &w, &m)?;
        let r = Rss::from_points(&pts).unwrap();
        let r2 = check(r, &pts, &w, &m)?;
        let l = Lss::from_points(&pts).unwrap();
        let l2 = check(l, &pts, &w, &m)?;
        let s = Sphere::from_points(&pts).unwrap();
        let s2 = check(s, &pts, &w, &m)?;
        if rigid {
            prop_assert!((o2.half_extents - o.half_extents).abs().max_element() <= tol, "{o:?} → {o2:?}");
            prop_assert!((r2.radius - r.radius).abs() <= tol && (r2.half_lengths - r.half_lengths).abs().max_element() <= tol);
            prop_assert!((l2.radius - l.radius).abs() <= tol);
            prop_assert!((s2.radius - s.radius).abs() <= tol);
            // The AABB of a rotated AABB is the box around the rotated corners.
            let corners = Obb::from(a).corners().map(|c| m.transform_point3(c));
            let tight = Aabb::from_points(&corners).unwrap();
            prop_assert!(a2.contains(&tight));
            prop_assert!((a2.min - tight.min).abs().max_element() <= tol && (a2.max - tight.max).abs().max_element() <= tol);
        }
    }
}

#[test]
fn identity_and_non_finite_maps() {
    let pts = [
        DVec3::ZERO,
        DVec3::new(1.0, 2.0, 3.0),
        DVec3::new(-1.0, 0.5, 0.0),
    ];
    let o = Obb::from_points(&pts).unwrap();
    let o2 = o.transform(&DAffine3::IDENTITY);
    assert!((o2.half_extents - o.half_extents).abs().max_element() < 1e-13);
    let bad = DAffine3::from_translation(DVec3::new(f64::NAN, 0.0, 0.0));
    assert!(!o.transform(&bad).contains_point(DVec3::ZERO));
    assert!(
        !Sphere::from_points(&pts)
            .unwrap()
            .transform(&bad)
            .contains_point(DVec3::ZERO)
    );
    assert!(
        !Rss::from_points(&pts)
            .unwrap()
            .transform(&bad)
            .contains_point(DVec3::ZERO)
    );
    assert!(
        !Lss::from_points(&pts)
            .unwrap()
            .transform(&bad)
            .contains_point(DVec3::ZERO)
    );
    assert!(
        !Aabb::from_points(&pts)
            .unwrap()
            .transform(&bad)
            .contains_point(DVec3::ZERO)
    );
    assert_eq!(Aabb::EMPTY.transform(&DAffine3::IDENTITY), Aabb::EMPTY);
}
