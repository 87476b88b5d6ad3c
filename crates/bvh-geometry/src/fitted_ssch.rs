//! # Few-point SSCHs that enclose a mesh (M3 body volumes)
//!
//! **What.** [`fitted_ssch`] picks, for a point set (a link's mesh
//! vertices) and an oriented box around it, the *rounded box* of least
//! volume among a few candidates: the box shrunk by `ρ` on every axis
//! (clamped at 0), as an SSCH of its 1, 2, 4 or 8 distinct corners, with
//! the radius that makes it hold every point. `ρ = 0` is the box itself,
//! `ρ` the smallest half extent a rounded rectangle, the middle one a
//! capsule, the largest one a ball.
//!
//! **Why.** The M3 monitor maps every generating point of a body through
//! every joint of its chain, and accurate operations double the count per
//! joint: a mesh hull of 60 points is 30 times the work of a capsule, but a
//! capsule around a flat plate is a fat cylinder that touches its
//! neighbours. A rounded box fits plates, beams and cylinders alike with at
//! most 8 points.
//!
//! **Guarantee.** Every input point lies within the returned radius of the
//! shrunk box (the radius is the largest such distance, rounded up with a
//! relative slack), so the SSCH — convex — holds the points' convex hull.

use armature_kinematics::Ssch;
use glam::DVec3;

use crate::bv::Obb;
use crate::error::GeometryError;

/// Relative rounding slack on the radius (the box frame's change of
/// coordinates and the distances lose a few ulps of the coordinates).
const SLACK: f64 = 64.0 * f64::EPSILON;

/// The least-volume rounded box around `points` (see the
/// [module docs](self)), with `obb`'s centre and axes.
///
/// ```
/// use armature_bvh_geometry::{bv::Obb, fitted_ssch::fitted_ssch};
/// use glam::{DMat3, DVec3};
/// // A thin plate: the box itself, or nearly, wins over a capsule.
/// let pts: Vec<DVec3> = (0..8)
///     .map(|k| DVec3::new(
///         if k & 1 == 0 { -0.4 } else { 0.4 },
///         if k & 2 == 0 { -0.3 } else { 0.3 },
///         if k & 4 == 0 { -0.02 } else { 0.02 }))
///     .collect();
/// let obb = Obb { center: DVec3::ZERO, axes: DMat3::IDENTITY, half_extents: DVec3::new(0.4, 0.3, 0.02) };
/// let s = fitted_ssch(&pts, &obb)?;
/// assert!(s.radius() <= 0.021);
/// # Ok::<(), armature_bvh_geometry::GeometryError>(())
/// ```
///
/// # Errors
/// [`GeometryError::EmptyPointSet`] without points;
/// [`GeometryError::NonFinitePoint`] naming a point that is not finite;
/// [`GeometryError::InvalidParameter`] for a box that is not finite.
pub fn fitted_ssch(points: &[DVec3], obb: &Obb) -> Result<Ssch, GeometryError> {
    if points.is_empty() {
        return Err(GeometryError::EmptyPointSet);
    }
    let e = obb.half_extents;
    let ok = |v: DVec3| v.is_finite();
    if !(ok(obb.center)
        && ok(obb.axes.x_axis)
        && ok(obb.axes.y_axis)
        && ok(obb.axes.z_axis)
        && ok(e)
        && e.min_element() >= 0.0)
    {
        return Err(GeometryError::InvalidParameter {
            name: "obb",
            value: e.min_element(),
            why: "must be finite with non-negative half extents",
        });
    }
    if let Some((index, p)) = points.iter().enumerate().find(|(_, p)| !p.is_finite()) {
        return Err(GeometryError::NonFinitePoint { index, value: *p });
    }
    let local: Vec<DVec3> = points
        .iter()
        .map(|p| obb.axes.transpose() * (*p - obb.center))
        .collect();
    let mut sorted = [e.x, e.y, e.z];
    sorted.sort_by(f64::total_cmp);
    let candidates = [
        0.0,
        0.5 * sorted[0],
        sorted[0],
        0.5 * (sorted[0] + sorted[1]),
        sorted[1],
        sorted[2],
    ];
    let mut scale = obb.center.abs().max_element() + e.max_element();
    for p in points {
        scale = scale.max(p.abs().max_element());
    }
    let mut best: Option<(f64, DVec3, f64)> = None;
    for rho in candidates {
        let h = (e - DVec3::splat(rho)).max(DVec3::ZERO);
        let r = local
            .iter()
            .map(|q| (q.abs() - h).max(DVec3::ZERO).length())
            .fold(0.0, f64::max);
        let r = (r + SLACK * scale).next_up();
        // Steiner's formula for a box of half extents h grown by r.
        let v = 8.0 * h.x * h.y * h.z
            + 8.0 * (h.x * h.y + h.y * h.z + h.z * h.x) * r
            + 2.0 * core::f64::consts::PI * (h.x + h.y + h.z) * r * r
            + 4.0 / 3.0 * core::f64::consts::PI * r * r * r;
        // Fewer points win ties within 5 %: candidates come in order of
        // fewer points last, so only a clearly smaller volume replaces.
        let corners = h.to_array().iter().filter(|x| **x > 0.0).count();
        let better = match best {
            None => true,
            Some((bv, bh, _)) => {
                let bc = bh.to_array().iter().filter(|x| **x > 0.0).count();
                if corners < bc {
                    v <= 1.05 * bv
                } else {
                    v < bv / 1.05
                }
            }
        };
        if better {
            best = Some((v, h, r));
        }
    }
    let (_, h, r) = best.unwrap_or((0.0, e, 0.0));
    let mut corners: Vec<DVec3> = Vec::with_capacity(8);
    for k in 0..8 {
        let s = DVec3::new(
            if k & 1 == 0 { -h.x } else { h.x },
            if k & 2 == 0 { -h.y } else { h.y },
            if k & 4 == 0 { -h.z } else { h.z },
        );
        let c = obb.center + obb.axes * s;
        if !corners.contains(&c) {
            corners.push(c);
        }
    }
    // The corners are mapped back from the box frame with rounding: the
    // slack covers it (a few ulps of the scale).
    Ssch::new(corners, r).map_err(|_| GeometryError::InvalidParameter {
        name: "radius",
        value: r,
        why: "must be finite",
    })
}
