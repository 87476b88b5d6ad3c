//! # Bounding volumes and their fitting
//!
//! **What.** Five convex bounding volumes, all `Copy`, `f64`:
//!
//! | type | shape | fitted by |
//! |---|---|---|
//! | [`Aabb`] | axis-aligned box (`min`, `max`) | component-wise extremes |
//! | [`Obb`] | oriented box (centre, orthonormal axes, half extents) | principal axes (covariance of points, or area-weighted covariance of triangles) |
//! | [`Rss`] | rectangle swept sphere (frame, rectangle half lengths, radius) | principal axes, then the fit of PQP (Larsen et al. 1999) |
//! | [`Lss`] | line swept sphere, a capsule (segment, radius) | principal axis |
//! | [`Sphere`] | ball (centre, radius) | minimal enclosing sphere (Welzl) |
//!
//! **Why.** The hierarchies of the collision, distance and CCD layers are
//! built from these volumes: OBB trees for overlap (M1), RSS trees for the
//! GREEDY-DIST distance lower bound (M2), LSSs for the swept-volume culling
//! (M1 stage 2) and spheres for the static pre-pass (M2).
//!
//! **Guarantee.** Every fitted volume contains every input point *in
//! floating point*: `contains_point` returns `true` for every input point,
//! with no tolerance. The fits get this by computing the final extents
//! (half extents, radii) with exactly the arithmetic that `contains_point`
//! uses, after the axes are chosen. The fitted [`Obb`] and [`Rss`] also
//! hold every input point in *exact* arithmetic on their stored fields (the
//! sets `{c + A u : |uᵢ| ≤ eᵢ}` and the points within `radius` of the
//! rectangle, which the kinematic enclosures bound): their extents and
//! radii carry a slack for the rounding of the projections, for axes that
//! are orthonormal only to within a few ulps (measured on the axes
//! themselves) and for underflow, and are rounded up.
//! [`Aabb::inflated`] rounds outward. `transform(&DAffine3)` returns a volume
//! that encloses the exact affine image of the original and, with a rounding
//! allowance of a few ulps of the coordinate scale, every point that
//! `DAffine3::transform_point3` maps from inside the original. A general
//! affine map (scale, shear) is allowed; the enclosing volume of the image is
//! then no longer tight.
//!
//! **Input.** Fits take `&[DVec3]` points or `&[[DVec3; 3]]` triangles and
//! return [`FitError`] for an empty slice or a coordinate that is NaN,
//! infinite or larger in magnitude than [`MAX_COORDINATE`] (so that squared
//! lengths cannot overflow). Degenerate clouds (one point, duplicates,
//! collinear or coplanar points, zero-area triangles) are valid. Nothing here
//! panics on user data; a non-finite transform gives a volume with NaN
//! fields, for which `contains_point` is `false`.
//!
//! ```
//! use armature_bvh_geometry::bv::{Obb, Sphere};
//! use glam::{DAffine3, DVec3};
//!
//! let pts = [DVec3::ZERO, DVec3::new(2.0, 1.0, 0.0), DVec3::new(0.5, 3.0, 1.0)];
//! let obb = Obb::from_points(&pts)?;
//! assert!(pts.iter().all(|p| obb.contains_point(*p)));
//! let ball = Sphere::from_points(&pts)?;
//! let moved = ball.transform(&DAffine3::from_translation(DVec3::X));
//! assert!(moved.contains_point(pts[1] + DVec3::X));
//! # Ok::<(), armature_bvh_geometry::bv::FitError>(())
//! ```

// `!(x > 0.0)` is the idiom for "not positive, or NaN": the NaN handling
// here depends on it, which `partial_cmp` would only obscure.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

mod aabb;
pub(crate) mod fit;
mod lss;
mod obb;
mod rss;
mod sphere;

use glam::{DAffine3, DMat3, DVec3};

pub use aabb::Aabb;
pub use lss::{Capsule, Lss};
pub use obb::Obb;
pub use rss::Rss;
pub(crate) use rss::RssSides;
pub use sphere::Sphere;

/// Largest accepted coordinate magnitude of fitting input: squares of
/// coordinate differences stay finite below it.
pub const MAX_COORDINATE: f64 = 1e150;

/// Why a bounding volume could not be fitted.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum FitError {
    /// No points (or no triangles) were given.
    #[error("cannot fit a bounding volume to an empty set")]
    Empty,
    /// A point has a NaN or infinite coordinate, or one larger in magnitude
    /// than [`MAX_COORDINATE`].
    #[error("point {index} = {point} is not finite or exceeds ±1e150")]
    InvalidPoint {
        /// Position of the point in the input slice.
        index: usize,
        /// The point as given.
        point: DVec3,
    },
    /// A triangle has a vertex that [`FitError::InvalidPoint`] would reject.
    #[error("triangle {index} = {triangle:?} has a vertex that is not finite or exceeds ±1e150")]
    InvalidTriangle {
        /// Position of the triangle in the input slice.
        index: usize,
        /// The triangle as given.
        triangle: [DVec3; 3],
    },
}

/// The operations every bounding volume of this module offers, for code that
/// is generic over the volume (hierarchy builders). Each method forwards to
/// the inherent method of the same name.
pub trait BoundingVolume: Copy + core::fmt::Debug {
    /// Fits the volume to a point cloud; every point is contained.
    ///
    /// # Errors
    /// [`FitError`] for an empty slice or an invalid coordinate.
    fn from_points(points: &[DVec3]) -> Result<Self, FitError>;
    /// Fits the volume to a triangle soup; every vertex (hence, by
    /// convexity, every triangle) is contained.
    ///
    /// # Errors
    /// [`FitError`] for an empty slice or an invalid coordinate.
    fn from_triangles(triangles: &[[DVec3; 3]]) -> Result<Self, FitError>;
    /// An enclosing volume of the image under an affine map.
    #[must_use]
    fn transform(&self, m: &DAffine3) -> Self;
    /// Whether `p` is inside or on the boundary (no tolerance).
    fn contains_point(&self, p: DVec3) -> bool;
}

// Inherent associated functions take precedence over trait ones in path
// resolution, so `Self::from_points` below is the inherent fit, not a
// recursive call.
macro_rules! impl_bounding_volume {
    ($($t:ty),*) => {$(
        impl BoundingVolume for $t {
            fn from_points(points: &[DVec3]) -> Result<Self, FitError> {
                Self::from_points(points)
            }
            fn from_triangles(triangles: &[[DVec3; 3]]) -> Result<Self, FitError> {
                Self::from_triangles(triangles)
            }
            fn transform(&self, m: &DAffine3) -> Self {
                Self::transform(self, m)
            }
            fn contains_point(&self, p: DVec3) -> bool {
                Self::contains_point(self, p)
            }
        }
    )*};
}
impl_bounding_volume!(Aabb, Obb, Rss, Lss, Sphere);

/// The principal axes of a point cloud: columns sorted by decreasing
/// variance, orthonormal and right-handed. Any orthonormal frame is returned
/// for directions the cloud does not distinguish (a single point, a line).
///
/// # Errors
/// [`FitError`] for an empty slice or an invalid coordinate.
pub fn principal_axes(points: &[DVec3]) -> Result<DMat3, FitError> {
    fit::validate_points(points)?;
    Ok(fit::principal_frame(fit::covariance_points(points)))
}

/// The principal axes of a triangle soup's surface (area-weighted
/// covariance, Gottschalk et al. 1996); the vertices' covariance when the
/// total area is zero.
///
/// # Errors
/// [`FitError`] for an empty slice or an invalid coordinate.
pub fn principal_axes_of_triangles(triangles: &[[DVec3; 3]]) -> Result<DMat3, FitError> {
    fit::validate_triangles(triangles)?;
    Ok(fit::principal_frame(fit::covariance_triangles(triangles)))
}
