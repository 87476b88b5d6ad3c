//! Fitted volumes hold every input point in *exact* arithmetic on their
//! stored f64 fields, not only under `contains_point`'s rounded arithmetic.
//!
//! An OBB is the set `{c + A u : |uᵢ| ≤ eᵢ}` and an RSS the set of points
//! within `radius` of `{c + s x + t y : |s| ≤ hx, |t| ≤ hy}`, with the f64
//! axes `A = (x, y, z)` orthonormal only to within a few ulps. The kinematic
//! enclosures bound these exact sets, so a point just outside them (by an
//! ulp of a projection, or by the axes' defect) would be missed. Each point
//! is certified here in outward-rounded interval arithmetic: its exact
//! coordinates `u = A⁻¹(p − c)` lie within `δ/(1 − δ)·‖v‖∞` of the enclosed
//! projections `v = Aᵀ(p − c)`, `δ` an enclosed upper bound on
//! `‖AᵀA − I‖∞`. The certificate is itself conservative (outward rounding
//! adds a few ulps and a few units of 2⁻¹⁰⁷⁴ even to exact zeros), so a fit
//! passes only with its documented slack beyond the rounded extents. The
//! clouds are adversarial: coordinates near ±1e150 (the
//! largest accepted) and 1e-300 or subnormal, nearly coplanar and collinear
//! clouds, points computed on the faces of rotated boxes, mixtures of
//! scales.

mod query_support;

use armature_bvh_geometry::bv::{Aabb, MAX_COORDINATE, Obb, Rss};
use armature_interval_taylor::{Interval, IntervalMat3, IntervalVec3};
use glam::{DMat3, DVec3};
use proptest::prelude::*;
use query_support::{config, rotation, vec3};

const CASES: u32 = 2_000;

/// An upper bound on `‖AᵀA − I‖∞` and one on `‖AᵀA‖∞` for the exact `a`.
fn defects(a: DMat3) -> (f64, f64) {
    let m = IntervalMat3::from_dmat3(a);
    let g = m.transpose().mul_mat3(&m);
    let (mut d, mut n) = (0.0_f64, 0.0_f64);
    for i in 0..3 {
        let r = g.row(i);
        let (mut sd, mut sn) = (Interval::ZERO, Interval::ZERO);
        for j in 0..3 {
            let e = r.get(j);
            sd += (e - if i == j { 1.0 } else { 0.0 }).mag();
            sn += e.mag();
        }
        d = d.max(sd.hi());
        n = n.max(sn.hi());
    }
    (d, n)
}

/// Enclosures of the exact coordinates `A⁻¹(p − c)`.
fn exact_coords(axes: DMat3, c: DVec3, p: DVec3) -> Option<[Interval; 3]> {
    let (delta, _) = defects(axes);
    if delta >= 0.5 {
        return None;
    }
    let a = IntervalMat3::from_dmat3(axes);
    let v = a
        .transpose()
        .mul_vec3(&(IntervalVec3::from_point(p) - IntervalVec3::from_point(c)));
    let vinf = v.x.mag().max(v.y.mag()).max(v.z.mag());
    let eta = (Interval::point(delta) / (Interval::ONE - delta) * vinf).hi();
    Some([v.x.inflate(eta), v.y.inflate(eta), v.z.inflate(eta)])
}

/// Whether `p` certainly lies in the exact OBB set.
fn obb_holds(obb: &Obb, p: DVec3) -> bool {
    let Some(u) = exact_coords(obb.axes, obb.center, p) else {
        return false;
    };
    (0..3).all(|i| u[i].mag() <= obb.half_extents[i])
}

/// Whether `p` certainly lies within `radius` of the exact RSS rectangle:
/// with `q = c + s x + t y` the clamp of `p`'s exact coordinates,
/// `|p − q| = |A w| ≤ ‖A‖₂ |w|`, `‖A‖₂ ≤ √‖AᵀA‖∞`.
fn rss_holds(rss: &Rss, p: DVec3) -> bool {
    let Some(u) = exact_coords(rss.axes, rss.center, p) else {
        return false;
    };
    let (_, n) = defects(rss.axes);
    let Ok(norm) = Interval::point(n).sqrt() else {
        return false;
    };
    let w0 = (u[0].abs() - rss.half_lengths.x).max(Interval::ZERO);
    let w1 = (u[1].abs() - rss.half_lengths.y).max(Interval::ZERO);
    let Some(len) = length_up([w0, w1, u[2]]) else {
        return false;
    };
    (norm * len).hi() <= rss.radius
}

/// An upper bound on the length of every vector in the box `w`, scaled by
/// a power of two first so that the squares neither underflow (a subnormal
/// square's outward rounding would dominate its square root) nor overflow.
fn length_up(w: [Interval; 3]) -> Option<f64> {
    let m = w.iter().fold(0.0_f64, |m, x| m.max(x.mag()));
    if m == 0.0 {
        return Some(0.0);
    }
    if !m.is_finite() {
        return None;
    }
    // 2^k in two factors: 2^k itself may not be representable.
    let k = -m.log2().floor() as i32;
    let (k1, k2) = (k / 2, k - k / 2);
    let scaled = w.map(|x| x * 2f64.powi(k1) * 2f64.powi(k2));
    let len = (scaled[0].sqr() + scaled[1].sqr() + scaled[2].sqr())
        .sqrt()
        .ok()?;
    Some((len * 2f64.powi(-k1) * 2f64.powi(-k2)).hi())
}

/// A cloud placed in a random rotated frame with per-axis spreads (some
/// zero or 1e-12 of the scale: coplanar and collinear), at a scale from
/// subnormal to near the largest accepted coordinate, sometimes far from
/// the origin, sometimes mixed with points of a very different scale.
fn cloud() -> impl Strategy<Value = Vec<DVec3>> {
    let spread = prop_oneof![3 => Just(1.0), 1 => Just(0.0), 1 => Just(1e-12), 1 => Just(1e-300)];
    (
        proptest::collection::vec(vec3(), 1..40),
        rotation(),
        (spread.clone(), spread.clone(), spread),
        prop_oneof![
            3 => -300.0..149.0_f64,
            1 => Just(-310.0),
            1 => Just(149.9),
            1 => -1.0..1.0_f64,
        ],
        prop_oneof![2 => Just(DVec3::ZERO), 1 => vec3()],
        prop_oneof![3 => Just(None), 1 => (vec3(), -310.0..149.0_f64).prop_map(Some)],
    )
        .prop_map(|(pts, r, (sx, sy, sz), e, off, extra)| {
            let s = 10f64.powf(e);
            let spread = DVec3::new(sx, sy, sz);
            let mut out: Vec<DVec3> = pts
                .into_iter()
                .map(|p| r * (p * spread) * s + off * s)
                .collect();
            if let Some((q, k)) = extra {
                out.push(q * 10f64.powf(k));
            }
            out.into_iter()
                .map(|p| p.clamp(DVec3::splat(-MAX_COORDINATE), DVec3::splat(MAX_COORDINATE)))
                .collect()
        })
}

/// Corners, face centres and random face points of a rotated box, computed
/// in f64: points on (or within rounding of) the faces of the box a fit
/// should find.
fn box_faces() -> impl Strategy<Value = Vec<DVec3>> {
    (
        rotation(),
        vec3(),
        (0.0..1.0_f64, 0.0..1.0_f64, 0.0..1.0_f64),
        -300.0..149.0_f64,
        proptest::collection::vec(
            (0..3usize, any::<bool>(), -1.0..1.0_f64, -1.0..1.0_f64),
            0..12,
        ),
    )
        .prop_map(|(r, c, (hx, hy, hz), e, faces)| {
            let s = 10f64.powf(e);
            let h = DVec3::new(hx, hy, hz);
            let at = |u: DVec3| (c + r * (h * u)) * s;
            let mut pts: Vec<DVec3> = (0..8)
                .map(|k| {
                    at(DVec3::new(
                        if k & 1 == 0 { -1.0 } else { 1.0 },
                        if k & 2 == 0 { -1.0 } else { 1.0 },
                        if k & 4 == 0 { -1.0 } else { 1.0 },
                    ))
                })
                .collect();
            for (axis, side, a, b) in faces {
                let mut u = DVec3::new(a, b, a * b);
                u[axis] = if side { 1.0 } else { -1.0 };
                pts.push(at(u));
            }
            pts
        })
}

fn check(pts: &[DVec3], axes: DMat3) -> Result<(), TestCaseError> {
    let fits = [
        ("Obb::from_points", Obb::from_points(pts).unwrap()),
        (
            "Obb::from_points_with_axes",
            Obb::from_points_with_axes(pts, axes).unwrap(),
        ),
    ];
    for (name, obb) in &fits {
        for (i, p) in pts.iter().enumerate() {
            prop_assert!(
                obb.contains_point(*p),
                "{name}: point {i} = {p} outside {obb:?} (rounded)"
            );
            prop_assert!(
                obb_holds(obb, *p),
                "{name}: point {i} = {p} outside the exact {obb:?}"
            );
        }
    }
    let fits = [
        ("Rss::from_points", Rss::from_points(pts).unwrap()),
        (
            "Rss::from_points_with_axes",
            Rss::from_points_with_axes(pts, axes).unwrap(),
        ),
    ];
    for (name, rss) in &fits {
        for (i, p) in pts.iter().enumerate() {
            prop_assert!(
                rss.contains_point(*p),
                "{name}: point {i} = {p} outside {rss:?} (rounded)"
            );
            prop_assert!(
                rss_holds(rss, *p),
                "{name}: point {i} = {p} outside the exact {rss:?}"
            );
        }
    }
    let tris: Vec<[DVec3; 3]> = pts
        .chunks(3)
        .map(|c| [c[0], c[c.len() / 2], c[c.len() - 1]])
        .collect();
    let obb = Obb::from_triangles(&tris).unwrap();
    let rss = Rss::from_triangles(&tris).unwrap();
    for p in tris.as_flattened() {
        prop_assert!(
            obb_holds(&obb, *p),
            "Obb::from_triangles: {p} outside the exact {obb:?}"
        );
        prop_assert!(
            rss_holds(&rss, *p),
            "Rss::from_triangles: {p} outside the exact {rss:?}"
        );
    }
    Ok(())
}

/// Whether `x ≤ a − b` exactly (TwoSum gives `a − b = d + err` exactly).
fn le_diff(x: f64, a: f64, b: f64) -> bool {
    let d = a - b;
    let bb = d - a;
    let err = (a - (d - bb)) + (-b - bb);
    x < d || (x == d && err >= 0.0)
}

/// Whether `x ≥ a + b` exactly.
fn ge_sum(x: f64, a: f64, b: f64) -> bool {
    let d = a + b;
    let bb = d - a;
    let err = (a - (d - bb)) + (b - bb);
    x > d || (x == d && err <= 0.0)
}

proptest! {
    #![proptest_config(config(CASES))]

    /// Every input point lies in the exact OBB and RSS of the fits.
    #[test]
    fn fits_hold_every_point_exactly(pts in cloud(), axes in rotation(), skew in vec3()) {
        // Prescribed axes are orthonormalised by the fit; skew them first.
        check(&pts, axes + DMat3::from_cols(skew, skew * 0.5, DVec3::ZERO) * 1e-3)?;
    }

    /// Points on the faces of rotated boxes.
    #[test]
    fn fits_hold_points_on_box_faces_exactly(pts in box_faces(), axes in rotation()) {
        check(&pts, axes)?;
    }

    /// `Aabb::inflated` holds the exact grown box for margins far below an
    /// ulp of the corners and far above, at every scale.
    #[test]
    fn inflated_box_holds_the_exact_grown_box(
        c in vec3(),
        w in vec3(),
        e in -310.0..150.0_f64,
        m in prop_oneof![Just(1e-17), Just(1e-320), 0.0..1.0_f64, -40.0..10.0_f64],
    ) {
        let s = 10f64.powf(e);
        let (a, b) = (c * s, (c + w.abs()) * s);
        let margin = if m < 0.0 { 10f64.powf(m) * s } else { m };
        let g = Aabb::new(a, b).inflated(margin);
        for i in 0..3 {
            prop_assert!(le_diff(g.min[i], a[i], margin), "min {} vs {} − {margin}", g.min[i], a[i]);
            prop_assert!(ge_sum(g.max[i], b[i], margin), "max {} vs {} + {margin}", g.max[i], b[i]);
        }
        prop_assert_eq!(Aabb::new(a, b).inflated(0.0), Aabb::new(a, b));
    }

    /// The OBB of an AABB holds both corners exactly.
    #[test]
    fn obb_of_an_aabb_holds_its_corners_exactly(c in vec3(), w in vec3(), e in -310.0..149.0_f64) {
        let s = 10f64.powf(e);
        let b = Aabb::new(c * s, (c + w.abs() * 1.5) * s);
        let o = Obb::from(b);
        for i in 0..3 {
            prop_assert!(ge_sum(o.half_extents[i], b.max[i], -o.center[i]), "{b:?} → {o:?}");
            prop_assert!(ge_sum(o.half_extents[i], o.center[i], -b.min[i]), "{b:?} → {o:?}");
        }
    }
}

/// Hand-picked clouds: the largest coordinates, tiny and subnormal ones, a
/// thin slab at a slant, the corners of a rotated unit box.
#[test]
fn adversarial_clouds_are_held_exactly() {
    let m = MAX_COORDINATE;
    let r = DMat3::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), 0.7);
    let slab: Vec<DVec3> = (0..20)
        .map(|k| {
            let t = f64::from(k);
            r * DVec3::new(t.sin(), (1.7 * t).cos(), 1e-13 * (t * 0.3).sin())
        })
        .collect();
    let corners: Vec<DVec3> = (0..8)
        .map(|k| {
            r * DVec3::new(
                if k & 1 == 0 { -1.0 } else { 1.0 },
                if k & 2 == 0 { -2.0 } else { 2.0 },
                if k & 4 == 0 { -0.5 } else { 0.5 },
            ) + DVec3::splat(3.0)
        })
        .collect();
    let clouds: Vec<Vec<DVec3>> = vec![
        vec![
            DVec3::splat(m),
            DVec3::splat(-m),
            DVec3::new(m, -m, 0.5 * m),
            DVec3::ZERO,
        ],
        vec![
            DVec3::splat(1e-300),
            DVec3::new(2e-300, 0.0, -1e-300),
            DVec3::ZERO,
        ],
        vec![
            DVec3::splat(1e-310),
            DVec3::new(3e-310, -1e-315, 5e-324),
            DVec3::ZERO,
        ],
        vec![
            DVec3::new(1e150, 1e-300, 0.0),
            DVec3::new(-1e-300, 1e150, 1.0),
            DVec3::new(1.0, 1.0, 1e149),
        ],
        slab.iter().map(|p| *p * 1e140).collect(),
        slab,
        corners.iter().map(|p| *p * 1e-290).collect(),
        corners,
    ];
    for (k, pts) in clouds.iter().enumerate() {
        let skewed = r + DMat3::from_cols(DVec3::X, DVec3::Y, DVec3::ZERO) * 1e-6;
        check(pts, skewed).unwrap_or_else(|e| panic!("cloud {k}: {e}"));
    }
}

/// Unit vectors rounded to f64 are unit only to within an ulp; the exact
/// set of a box fitted along them must still hold the points.
#[test]
fn rounded_unit_axes_are_not_trusted() {
    let axes = DMat3::from_cols(
        DVec3::new(0.6, 0.8, 0.0),
        DVec3::new(-0.8, 0.6, 0.0),
        DVec3::Z,
    );
    let pts = [
        DVec3::new(3.0, 4.0, 0.1),
        DVec3::new(-4.0, 3.0, -0.1),
        DVec3::new(7.0, -1.0, 0.0),
    ];
    let obb = Obb::from_points_with_axes(&pts, axes).unwrap();
    for p in pts {
        assert!(obb_holds(&obb, p), "{p} outside the exact {obb:?}");
    }
}
