//! Distance between two sphere-swept convex hulls (M3 §III-B step 3).

use super::{GjkCache, GjkError, GjkOptions, GjkStatus, gjk_distance, gjk_distance_warm};
use armature_kinematics::Ssch;
use glam::DVec3;

/// The answer of [`ssch_distance`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SschDistance {
    /// Best estimate of the distance: the distance between the point hulls
    /// minus both radii, clamped at 0.
    pub distance: f64,
    /// Certified lower bound (see the [GJK module docs](super)): a positive
    /// value proves the two swept volumes are apart.
    pub lower_bound: f64,
    /// Witness point on `a` (on its surface when apart).
    pub point_a: DVec3,
    /// Witness point on `b`; equal to `point_a` when they overlap.
    pub point_b: DVec3,
    /// How the underlying GJK query ended.
    pub status: GjkStatus,
    /// GJK iterations spent.
    pub iterations: usize,
}

/// The distance between the SSCHs `a` and `b` (given in one frame, e.g.
/// their least common ancestor frame from
/// [`swept_pair`](armature_kinematics::swept_pair)): GJK on the point hulls
/// with the default [`GjkOptions`], minus both radii, clamped at 0, and the
/// lower bound likewise. With `cache`, the query starts from the pair's
/// previous simplex and stores the new one (docs/architecture.md M3: warm starts
/// across control cycles).
///
/// ```
/// use armature_bvh_geometry::gjk::{GjkCache, ssch_distance};
/// use armature_kinematics::Ssch;
/// use glam::DVec3;
/// let a = Ssch::new(vec![DVec3::ZERO, DVec3::X], 0.1)?;
/// let b = Ssch::new(vec![DVec3::new(0.5, 1.0, 0.0)], 0.2)?;
/// let mut cache = GjkCache::new();
/// let d = ssch_distance(&a, &b, Some(&mut cache))?;
/// assert!((d.distance - 0.7).abs() < 1e-12 && d.lower_bound <= d.distance);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`GjkError::Overflow`] for coordinates or radii above
/// [`MAX_MAGNITUDE`](super::MAX_MAGNITUDE) (an [`Ssch`] is otherwise valid
/// by construction).
pub fn ssch_distance(
    a: &Ssch,
    b: &Ssch,
    cache: Option<&mut GjkCache>,
) -> Result<SschDistance, GjkError> {
    let options = GjkOptions::default();
    let r = match cache {
        Some(c) => gjk_distance_warm(a, b, &options, c)?,
        None => gjk_distance(a, b, &options)?,
    };
    Ok(SschDistance {
        distance: r.distance,
        lower_bound: r.lower_bound,
        point_a: r.point_a,
        point_b: r.point_b,
        status: r.status,
        iterations: r.iterations,
    })
}
