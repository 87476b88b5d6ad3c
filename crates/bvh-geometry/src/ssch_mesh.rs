//! Closed triangle meshes that enclose sphere-swept convex hulls.
//!
//! **What.** [`ssch_mesh`] turns an [`Ssch`] (the points within `r` of the
//! convex hull of a point set, M3 eq. 1) into a closed, convex,
//! outward-oriented [`TriMesh`] that contains it: the shape to draw when a
//! swept volume or a link's collision volume is shown over a camera image
//! (M3 §IV) or in a rendered view.
//!
//! **How.** Every generating point's ball is replaced by a polytope that
//! circumscribes it: the directions of a subdivided icosahedron
//! ([`SschMeshOptions::subdivisions`]) scaled by `r / cos θ`, where `cos θ`
//! is the smallest distance from the origin to the faces of the unit
//! directions' hull, so every face of the scaled polytope lies at least `r`
//! from its centre. The convex hull of all the polytopes' vertices
//! ([`ConvexHull`]) is the Minkowski sum of the points' hull and the
//! polytope, which contains the Minkowski sum with the ball: the SSCH.
//!
//! **Guarantee.** Every point of the SSCH lies inside (or on) the mesh:
//! for every triangle with outward unit normal `n` and corner `a`,
//! `n·(x − a) ≤ 0` up to the rounding of that product. The hull's own
//! tolerance is absorbed by growing the radius by the tolerance
//! beforehand. Every mesh vertex is within [`SschMesh::outer_radius`] of a
//! generating point, so at most `outer_radius − r` outside the SSCH;
//! `outer_radius` is about `r / cos θ` (`r · 1.26`, `· 1.07`, `· 1.02`,
//! `· 1.005` for 0 to 3 subdivisions). Everything is deterministic.
//!
//! A radius of 0 with points that span a solid gives their hull; with flat,
//! collinear or coincident points there is no volume to mesh and the
//! answer is an error unless [`SschMeshOptions::min_radius`] gives the
//! shape a thickness to be drawn with.
//!
//! ```
//! use armature_bvh_geometry::ssch_mesh::{SschMeshOptions, ssch_mesh};
//! use armature_kinematics::Ssch;
//! use glam::DVec3;
//!
//! // A capsule: the segment from the origin to x = 1, radius 0.1.
//! let capsule = Ssch::new(vec![DVec3::ZERO, DVec3::X], 0.1)?;
//! let meshed = ssch_mesh(&capsule, &SschMeshOptions::default())?;
//! assert!(meshed.outer_radius >= 0.1 && meshed.outer_radius < 0.102);
//! // The mesh holds the capsule's far tip.
//! let tip = DVec3::new(1.1, 0.0, 0.0);
//! assert!(meshed.mesh.vertices().iter().any(|v| v.x >= tip.x));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeMap;

use armature_kinematics::Ssch;
use glam::DVec3;

use crate::hull::{ConvexHull, HullOptions, HullShape};
use crate::mesh::{DegeneratePolicy, MeshOptions};
use crate::{GeometryError, TriMesh};

/// Options of [`ssch_mesh`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SschMeshOptions {
    /// How many times the icosahedron's triangles are split in four to
    /// sample a ball's directions: 0 gives 12 directions, 1 gives 42, 2
    /// gives 162 (the default), 3 gives 642; at most
    /// [`SschMeshOptions::MAX_SUBDIVISIONS`]. More directions bring the
    /// mesh closer to the round shape and multiply the points the hull is
    /// built on.
    pub subdivisions: u32,
    /// The smallest radius drawn: an SSCH of a smaller radius is meshed
    /// with this one (still enclosing it). Gives flat or thin volumes, and
    /// radius-0 ones, a thickness to be seen with. Default 0: the SSCH's
    /// own radius. Must be finite and non-negative.
    pub min_radius: f64,
}

impl SschMeshOptions {
    /// The largest [`SschMeshOptions::subdivisions`]: 4, 2562 directions
    /// per point.
    pub const MAX_SUBDIVISIONS: u32 = 4;

    /// Sets [`SschMeshOptions::subdivisions`].
    #[must_use]
    pub fn with_subdivisions(mut self, subdivisions: u32) -> Self {
        self.subdivisions = subdivisions;
        self
    }

    /// Sets [`SschMeshOptions::min_radius`].
    #[must_use]
    pub fn with_min_radius(mut self, min_radius: f64) -> Self {
        self.min_radius = min_radius;
        self
    }
}

impl Default for SschMeshOptions {
    fn default() -> Self {
        Self {
            subdivisions: 2,
            min_radius: 0.0,
        }
    }
}

/// The answer of [`ssch_mesh`].
#[derive(Debug, Clone, PartialEq)]
pub struct SschMesh {
    /// A closed, convex mesh, counter-clockwise seen from outside, that
    /// holds the SSCH.
    pub mesh: TriMesh,
    /// The radius meshed: the SSCH's, or [`SschMeshOptions::min_radius`]
    /// when larger.
    pub radius: f64,
    /// Every vertex of the mesh lies within this distance of a generating
    /// point (0 for the hull of a radius-0 SSCH).
    pub outer_radius: f64,
}

/// The factor `1 / cos θ` by which unit directions of `subdivisions`
/// levels are scaled so that their hull holds the unit ball (see the
/// [module docs](self)), rounded up.
///
/// # Errors
/// [`GeometryError::InvalidParameter`] for more than
/// [`SschMeshOptions::MAX_SUBDIVISIONS`].
pub fn circumscribing_factor(subdivisions: u32) -> Result<f64, GeometryError> {
    Ok(directions(subdivisions)?.1)
}

/// A closed triangle mesh holding `ssch` (see the [module docs](self)).
///
/// # Errors
/// [`GeometryError::InvalidParameter`] for options out of range, for an
/// SSCH of radius 0 (and [`SschMeshOptions::min_radius`] 0) whose points
/// do not span a solid (`radius`), or for a radius so small against the
/// points' coordinates that the hull cannot resolve it (`radius`).
pub fn ssch_mesh(ssch: &Ssch, options: &SschMeshOptions) -> Result<SschMesh, GeometryError> {
    crate::error::non_negative("min_radius", options.min_radius)?;
    let (dirs, factor) = directions(options.subdivisions)?;
    let radius = ssch.radius().max(options.min_radius);
    let points = ssch.points();
    if radius == 0.0 {
        let hull = ConvexHull::new(points)?;
        if let HullShape::Polyhedron { triangles, .. } = hull.shape() {
            let mesh = compact(points, triangles)?;
            return Ok(SschMesh {
                mesh,
                radius,
                outer_radius: 0.0,
            });
        }
        return Err(GeometryError::InvalidParameter {
            name: "radius",
            value: 0.0,
            why: "an SSCH of radius 0 on flat, collinear or coincident points has no volume \
                  to mesh: set `SschMeshOptions::min_radius` to draw it with a thickness",
        });
    }
    // The hull may leave out a point within its tolerance τ of the other
    // points' hull: growing the balls by at least τ keeps the SSCH inside
    // the mesh all the same (every point of the SSCH lies at least the
    // growth below every face of the grown shape). τ is the relative
    // tolerance times the cloud's extent plus rounding; start from a
    // bound and grow it if the hull reports more.
    let (lo, hi) = points
        .iter()
        .fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), &p| {
            (lo.min(p), hi.max(p))
        });
    let reach = (hi - lo).length() + 2.0 * radius * factor * 3f64.sqrt();
    // `p + outer·d` rounds: a few ulps of the largest coordinate.
    let rounding = 4.0 * f64::EPSILON * (lo.abs().max(hi.abs()).length() + reach);
    let mut grow = 4.0 * HullOptions::DEFAULT_RELATIVE_TOLERANCE * reach + rounding;
    for _ in 0..4 {
        let outer = ((radius + grow) * factor).next_up();
        let mut cloud = Vec::with_capacity(points.len() * dirs.len());
        for &p in points {
            cloud.extend(dirs.iter().map(|&d| p + outer * d));
        }
        let hull = ConvexHull::new(&cloud)?;
        let tolerance = hull.tolerance();
        match hull.shape() {
            HullShape::Polyhedron { triangles, .. } if tolerance + rounding <= grow => {
                let mesh = compact(&cloud, triangles)?;
                return Ok(SschMesh {
                    mesh,
                    radius,
                    outer_radius: outer + rounding,
                });
            }
            HullShape::Polyhedron { .. } => grow = 2.0 * (tolerance + rounding),
            _ => break,
        }
    }
    Err(GeometryError::InvalidParameter {
        name: "radius",
        value: radius,
        why: "too small against the points' coordinates for their hull to resolve: \
              set a larger `SschMeshOptions::min_radius`",
    })
}

/// The triangles of a hull over `points` as a mesh of the vertices they
/// use, in order of first use.
fn compact(points: &[DVec3], triangles: &[[u32; 3]]) -> Result<TriMesh, GeometryError> {
    let mut index = vec![u32::MAX; points.len()];
    let mut vertices = Vec::new();
    let mut out = Vec::with_capacity(triangles.len());
    for tri in triangles {
        out.push(tri.map(|i| {
            let slot = &mut index[i as usize];
            if *slot == u32::MAX {
                *slot = vertices.len() as u32;
                vertices.push(points[i as usize]);
            }
            *slot
        }));
    }
    // A hull triangle is never degenerate in exact arithmetic, but a sliver
    // may round to zero area; dropping it would open the surface.
    TriMesh::from_vertices_indices(
        vertices,
        out,
        &MeshOptions::default().with_degenerate(DegeneratePolicy::Keep),
    )
}

/// The unit directions of a subdivided icosahedron and the factor that
/// makes their hull circumscribe the unit ball.
fn directions(subdivisions: u32) -> Result<(Vec<DVec3>, f64), GeometryError> {
    if subdivisions > SschMeshOptions::MAX_SUBDIVISIONS {
        return Err(GeometryError::InvalidParameter {
            name: "subdivisions",
            value: f64::from(subdivisions),
            why: "must be at most SschMeshOptions::MAX_SUBDIVISIONS (4)",
        });
    }
    let (mut vertices, mut faces) = icosahedron();
    for _ in 0..subdivisions {
        let mut midpoints: BTreeMap<(u32, u32), u32> = BTreeMap::new();
        let mut next = Vec::with_capacity(faces.len() * 4);
        for [a, b, c] in faces {
            let mut mid = |i: u32, j: u32| {
                *midpoints.entry((i.min(j), i.max(j))).or_insert_with(|| {
                    vertices.push((vertices[i as usize] + vertices[j as usize]).normalize());
                    vertices.len() as u32 - 1
                })
            };
            let (ab, bc, ca) = (mid(a, b), mid(b, c), mid(c, a));
            next.extend([[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]);
        }
        faces = next;
    }
    // The smallest distance from the origin to a face of the directions'
    // own hull (whatever triangulation it picks), rounded down by far more
    // than the rounding of the plane distances.
    let hull = ConvexHull::new(&vertices)?;
    let inradius = hull
        .triangles()
        .iter()
        .map(|&[a, b, c]| {
            let [a, b, c] = [a, b, c].map(|i| vertices[i as usize]);
            (b - a).cross(c - a).normalize().dot(a)
        })
        .fold(f64::INFINITY, f64::min)
        - hull.tolerance()
        - 1e-12;
    Ok((vertices, 1.0 / inradius))
}

/// The regular icosahedron on the unit sphere, counter-clockwise faces.
fn icosahedron() -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let g = (1.0 + 5f64.sqrt()) / 2.0;
    let vertices = [
        (-1.0, g, 0.0),
        (1.0, g, 0.0),
        (-1.0, -g, 0.0),
        (1.0, -g, 0.0),
        (0.0, -1.0, g),
        (0.0, 1.0, g),
        (0.0, -1.0, -g),
        (0.0, 1.0, -g),
        (g, 0.0, -1.0),
        (g, 0.0, 1.0),
        (-g, 0.0, -1.0),
        (-g, 0.0, 1.0),
    ]
    .map(|(x, y, z)| DVec3::new(x, y, z).normalize())
    .to_vec();
    let faces = vec![
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    (vertices, faces)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn direction_counts_and_factors() {
        let expected = [(12, 1.258, 1.259), (42, 1.05, 1.1), (162, 1.01, 1.03)];
        for (s, (count, lo, hi)) in expected.into_iter().enumerate() {
            let (dirs, factor) = directions(s as u32).unwrap();
            assert_eq!(dirs.len(), count);
            assert!((lo..hi).contains(&factor), "{s}: {factor}");
            assert!(dirs.iter().all(|d| (d.length() - 1.0).abs() < 1e-15));
        }
        assert!(matches!(
            circumscribing_factor(5),
            Err(GeometryError::InvalidParameter {
                name: "subdivisions",
                ..
            })
        ));
    }

    #[test]
    fn zero_radius_solid_is_its_hull_and_flat_is_an_error() {
        let tetra = Ssch::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z], 0.0).unwrap();
        let m = ssch_mesh(&tetra, &SschMeshOptions::default()).unwrap();
        assert_eq!(m.mesh.num_triangles(), 4);
        assert_eq!(m.outer_radius, 0.0);
        let flat = Ssch::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y], 0.0).unwrap();
        assert!(matches!(
            ssch_mesh(&flat, &SschMeshOptions::default()),
            Err(GeometryError::InvalidParameter { name: "radius", .. })
        ));
        let thick = ssch_mesh(&flat, &SschMeshOptions::default().with_min_radius(0.01)).unwrap();
        assert_eq!(thick.radius, 0.01);
        assert!(crate::MeshTopology::new(&thick.mesh).is_closed());
        let point = Ssch::point(DVec3::ONE).unwrap();
        let ball = ssch_mesh(&point, &SschMeshOptions::default().with_min_radius(0.5)).unwrap();
        assert_eq!(ball.mesh.num_vertices(), 162);
    }
}
