//! # Articulated bodies and obstacles with their bounding volumes
//!
//! **What.** An [`ArticulatedBody`] is a kinematic tree plus, per link, an
//! optional [`LinkGeometry`] in the link frame: the mesh, its OBB, LSS,
//! bounding sphere, mass properties when the mesh is closed, OBB and RSS
//! hierarchies ([`Bvh`]), whether the mesh is closed
//! ([`LinkGeometry::is_closed`]), and, built on first use only, its convex
//! hull points with the radius that makes their SSCH hold every vertex.
//! Bodies are built from code (a tree and one optional mesh per link) or,
//! with the `urdf` feature, from a URDF file and its mesh files: each
//! link's collision elements (visual ones when it has none) are loaded or
//! tessellated, placed by their origins and merged into one mesh. An
//! [`Obstacle`] is a named mesh that is static or moves rigidly between two
//! poses (in-between interpolation, [`LocalMotion::between_poses`]).
//!
//! **Primitive tessellation** ([`Tessellation`]). URDF boxes are exact.
//! Cylinders use a regular `n`-gon *circumscribed* about the circle (its
//! circumradius is `r / cos(π/n)`, enlarged by a relative `1e-9` for
//! rounding). Spheres and capsules use the convex hull of latitude–longitude
//! points (capsules: the points of two hemispheres, one per end), then every
//! vertex is scaled about the centre by the smallest factor that puts every
//! face plane at least at the primitive's support distance along its
//! normal (again enlarged by `1e-9`), so the polyhedron **contains** the
//! true primitive.
//!
//! **Mirrored scales.** A mesh scale with a negative determinant (a URDF
//! `<mesh scale="-1 1 1">`, a negative obstacle scale) mirrors the mesh,
//! and [`TriMesh::transformed`] reverses every triangle's winding with it:
//! a closed, outward-oriented mesh stays closed and outward-oriented, so
//! its mass properties and the inside/outside of
//! [`crate::query::containment`] are those of the mirrored solid. Links
//! and obstacles are treated alike.
//!
//! **Cost.** Building a geometry takes `O(n log n)` time for `n` triangles
//! (the two hierarchies; everything else is linear or expected linear) and
//! never builds the convex hull: only the M3 monitor needs it
//! ([`LinkGeometry::hull_ssch`], [`Obstacle::monitor_obstacle`],
//! [`ArticulatedBody::link_sschs`]), and it is built on first use and then
//! shared by every clone. Meshes of at least [`LARGE_MESH_TRIANGLES`]
//! triangles take [`LARGE_MESH_LEAF_TRIANGLES`] triangles per leaf (both trees)
//! instead of [`RSS_LEAF_TRIANGLES`] and fill their leaves
//! ([`SplitRule::PackedMedian`]), which keeps a geometry under about 200
//! bytes per triangle ([`LinkGeometry::heap_bytes`] measures it). A
//! `MeshCache` (feature `io`) loads each mesh file once per scale and
//! builds each geometry once, so obstacles and links that use one file
//! share it by [`Arc`].
//!
//! **Why.** The CCD layers need several volumes of the same link (boxes for
//! the dynamic hierarchy, LSSs for swept-volume culling, hulls for M3's
//! SSCHs, hierarchies for the exact stages); computing them once per mesh
//! and sharing them by [`Arc`] keeps scenes cheap to clone and
//! `Send + Sync`.
//!
//! **Guarantee.** Every volume of a link contains every vertex of its mesh
//! (the [`crate::bv`] fits are exact in floating point; the hull SSCH radius
//! is a GJK upper estimate with rounding slack). Errors name the link and,
//! for files, the file.

use std::sync::{Arc, OnceLock};

use crate::bv::{Aabb, Lss, Obb, Rss, Sphere};
use crate::bvh::{Bvh, BvhOptions, SplitRule, build_obb_rss};
use crate::dynamic::{
    DynamicHierarchyOptions, DynamicLinkHierarchy, EnvironmentHierarchy, LinkGroups,
};
use crate::error::GeometryError;
use crate::gjk::{Ball, ConvexPoints, GjkOptions, gjk_distance};
use crate::hull::ConvexHull;
use crate::mass::MassProperties;
use crate::mesh::TriMesh;
use crate::monitor::MonitorObstacle;
use crate::topology::MeshTopology;
use armature_interval_taylor::Interval;
use armature_kinematics::{KinematicTree, LinkObb, LocalMotion, Ssch};
use glam::{DAffine3, DVec3};

/// Triangles per leaf of a link's or obstacle's RSS tree (the distance
/// queries of conservative advancement) and OBB tree (the overlap tests)
/// below [`LARGE_MESH_TRIANGLES`]: one triangle per leaf prunes triangle
/// pairs with a cheap volume test each, which made the benchmark suite's
/// queries about twice as fast as four per leaf, for about 2.6 times the
/// tree's memory. For the OBB trees it made a discrete check of the Puma
/// in the pipes 1.8 times cheaper (instructions of 1° sampling at 30°).
pub const RSS_LEAF_TRIANGLES: usize = 1;

/// Meshes with at least this many triangles are *large*: both hierarchies
/// take [`LARGE_MESH_LEAF_TRIANGLES`] per leaf and fill their leaves
/// ([`SplitRule::PackedMedian`]), about 70 bytes per triangle each instead
/// of about 260 for the one-triangle RSS leaves. Scanned environments of
/// millions of triangles then fit in memory; link meshes (a few thousand
/// triangles) keep the faster small leaves.
pub const LARGE_MESH_TRIANGLES: usize = 100_000;

/// Triangles per leaf of both hierarchies of a large mesh
/// ([`LARGE_MESH_TRIANGLES`]).
pub const LARGE_MESH_LEAF_TRIANGLES: usize = 4;

/// Relative enlargement of tessellated primitives for rounding.
const TESS_SLACK: f64 = 1e-9;

/// The convex hull's vertices and the radius that makes their SSCH hold
/// every mesh vertex.
#[derive(Clone, Debug)]
struct HullCover {
    points: Vec<DVec3>,
    radius: f64,
}

/// The volumes of one link (or obstacle) mesh, in its own frame.
///
/// Cloning is cheap: the mesh, the hierarchies and the lazily built hull
/// are shared.
#[derive(Clone, Debug)]
pub struct LinkGeometry {
    /// The mesh.
    pub mesh: Arc<TriMesh>,
    /// Oriented bounding box (principal axes; the OBB tree's root).
    pub obb: Obb,
    /// Line swept sphere along the principal axis.
    pub lss: Lss,
    /// Minimal bounding sphere.
    pub sphere: Sphere,
    /// Mass properties at unit density, when the mesh is closed and
    /// consistently oriented.
    pub mass: Option<MassProperties>,
    /// OBB hierarchy over the mesh: the RSS hierarchy's nodes; below
    /// [`LARGE_MESH_TRIANGLES`], each box below the root the tightest of a
    /// few frames' fits (the principal frame's, the mesh's axes, and
    /// least-area rectangles about the principal axes), else the principal
    /// frame's (the tightening would more than double a large mesh's load).
    pub obb_tree: Arc<Bvh<Obb>>,
    /// RSS hierarchy over the mesh, [`RSS_LEAF_TRIANGLES`] per leaf
    /// ([`LARGE_MESH_LEAF_TRIANGLES`] for large meshes).
    pub rss_tree: Arc<Bvh<Rss>>,
    /// Closedness and connected components of the mesh: a closed mesh
    /// bounds a solid, and geometry inside it collides with it (see
    /// [`crate::query::containment`]).
    pub topology: MeshTopology,
    /// The hull, built on first use and shared by clones.
    hull: Arc<OnceLock<Result<HullCover, GeometryError>>>,
}

impl LinkGeometry {
    /// Fits every volume to `mesh`; `name` names the link or obstacle in
    /// errors. The convex hull is not built here (see
    /// [`LinkGeometry::hull_points`]).
    ///
    /// # Errors
    /// [`GeometryError::Fit`] naming `name` when a volume cannot be fitted;
    /// [`GeometryError::LinkGeometry`] naming it for hierarchy errors.
    pub fn from_mesh(name: &str, mesh: Arc<TriMesh>) -> Result<Self, GeometryError> {
        let fit = |source| GeometryError::Fit {
            name: name.to_owned(),
            source,
        };
        let named = |e: GeometryError| GeometryError::LinkGeometry {
            link: name.to_owned(),
            source: Box::new(e),
        };
        let vertices = mesh.vertices();
        let lss = Lss::from_points(vertices).map_err(fit)?;
        let sphere = Sphere::from_points(vertices).map_err(fit)?;
        let large = mesh.num_triangles() >= LARGE_MESH_TRIANGLES;
        // Both trees take the same options, so they split alike and are
        // built in one pass (the result is the same as two builds).
        let options = if large {
            BvhOptions::default()
                .with_max_leaf_triangles(LARGE_MESH_LEAF_TRIANGLES)
                .with_split(SplitRule::PackedMedian)
        } else {
            BvhOptions::default().with_max_leaf_triangles(RSS_LEAF_TRIANGLES)
        };
        // A large mesh keeps its principal-frame boxes: tightening them
        // would more than double its load (see `build_obb_rss`).
        let (obb_tree, rss_tree) = build_obb_rss(&mesh, &options, !large).map_err(named)?;
        let (obb_tree, rss_tree) = (Arc::new(obb_tree), Arc::new(rss_tree));
        // The root of the OBB tree is `Obb::from_triangles` of the whole
        // mesh, the link's OBB: fitted once.
        let obb = obb_tree.root().bv;
        let topology = MeshTopology::new(&mesh);
        // The topology already checked closedness and orientation, the
        // test `mass_properties` would repeat.
        let mass = if topology.is_closed() {
            mesh.mass_properties_unchecked().ok()
        } else {
            None
        };
        Ok(Self {
            mesh,
            obb,
            lss,
            sphere,
            mass,
            obb_tree,
            rss_tree,
            topology,
            hull: Arc::new(OnceLock::new()),
        })
    }

    /// Whether the mesh is closed (every edge used by exactly two
    /// triangles in opposite directions, see [`MeshTopology`]): then it
    /// bounds a solid, and a link or obstacle inside it collides with it
    /// although no triangles meet. Computed once, by
    /// [`LinkGeometry::from_mesh`].
    #[must_use]
    pub fn is_closed(&self) -> bool {
        self.topology.is_closed()
    }

    /// The hull, built now unless it was before (by this geometry or a
    /// clone); a failure is kept too, so it is not retried.
    fn hull_cover(&self) -> Result<&HullCover, GeometryError> {
        self.hull
            .get_or_init(|| hull_cover(self.mesh.vertices()))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The convex hull's vertices, built on first use (quickhull, then one
    /// GJK distance per mesh vertex for [`LinkGeometry::hull_radius`]:
    /// super-linear in the worst case, which is why loading never builds
    /// it).
    ///
    /// # Errors
    /// The hull's errors ([`ConvexHull::new`]) and
    /// [`GeometryError::Distance`] when a vertex's distance to it fails;
    /// callers name the link or obstacle.
    pub fn hull_points(&self) -> Result<&[DVec3], GeometryError> {
        self.hull_cover().map(|h| h.points.as_slice())
    }

    /// The radius such that the SSCH ([`LinkGeometry::hull_points`], this
    /// radius) holds every vertex (the hull is built with a tolerance, see
    /// [`ConvexHull`]); built on first use.
    ///
    /// # Errors
    /// As [`LinkGeometry::hull_points`].
    pub fn hull_radius(&self) -> Result<f64, GeometryError> {
        self.hull_cover().map(|h| h.radius)
    }

    /// Whether the convex hull has been built (by this geometry or a
    /// clone sharing it): loading and inspecting a scene never build it.
    #[must_use]
    pub fn hull_is_built(&self) -> bool {
        self.hull.get().is_some()
    }

    /// Bytes of memory the geometry holds: the struct itself plus every
    /// heap allocation it owns or shares, by capacity (mesh, hierarchies,
    /// topology, and the hull once built). A geometry shared by several
    /// obstacles counts once per distinct [`Arc`].
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        let hull = match self.hull.get() {
            Some(Ok(h)) => h.points.capacity() * core::mem::size_of::<DVec3>(),
            _ => 0,
        };
        core::mem::size_of::<Self>()
            + core::mem::size_of::<TriMesh>()
            + self.mesh.heap_bytes()
            + core::mem::size_of::<Bvh<Obb>>()
            + self.obb_tree.heap_bytes()
            + core::mem::size_of::<Bvh<Rss>>()
            + self.rss_tree.heap_bytes()
            + self.topology.heap_bytes()
            + core::mem::size_of::<OnceLock<Result<HullCover, GeometryError>>>()
            + hull
    }

    /// The OBB as the kinematics crate's link box (for the dynamic
    /// hierarchy).
    ///
    /// # Errors
    /// [`GeometryError::Kinematics`] for a non-finite box.
    pub fn link_obb(&self) -> Result<LinkObb, GeometryError> {
        LinkObb::new(self.obb.center, self.obb.half_extents, self.obb.axes).map_err(|source| {
            GeometryError::Kinematics {
                context: "link box".to_owned(),
                source,
            }
        })
    }

    /// The hull as an SSCH (the M3 body volume), building the hull on
    /// first use.
    ///
    /// # Errors
    /// As [`LinkGeometry::hull_points`]; [`GeometryError::Kinematics`]
    /// (cannot happen for a fitted geometry).
    pub fn hull_ssch(&self) -> Result<Ssch, GeometryError> {
        let hull = self.hull_cover()?;
        Ssch::new(hull.points.clone(), hull.radius).map_err(|source| GeometryError::Kinematics {
            context: "hull SSCH".to_owned(),
            source,
        })
    }

    /// The LSS as an SSCH (two points and a radius; cheaper, looser).
    ///
    /// # Errors
    /// [`GeometryError::Kinematics`] (cannot happen for a fitted
    /// geometry).
    pub fn lss_ssch(&self) -> Result<Ssch, GeometryError> {
        Ssch::new(vec![self.lss.a, self.lss.b], self.lss.radius).map_err(|source| {
            GeometryError::Kinematics {
                context: "LSS SSCH".to_owned(),
                source,
            }
        })
    }
}

/// The hull of `vertices` and the radius that makes its SSCH hold them.
fn hull_cover(vertices: &[DVec3]) -> Result<HullCover, GeometryError> {
    let hull = ConvexHull::new(vertices)?;
    let points: Vec<DVec3> = hull
        .vertices()
        .iter()
        .map(|&i| vertices[i as usize])
        .collect();
    // Hull vertices are at distance zero (a duplicate of one is measured,
    // at about zero).
    let mut on_hull = vec![false; vertices.len()];
    for &i in hull.vertices() {
        on_hull[i as usize] = true;
    }
    let radius = hull_cover_radius(&points, vertices, &on_hull).map_err(|source| {
        GeometryError::Distance {
            pair: "hull and vertex".to_owned(),
            source,
        }
    })?;
    Ok(HullCover { points, radius })
}

/// The largest distance from a vertex not marked `on_hull` to the hull of
/// `hull_points` (GJK upper estimate), rounded up with slack.
fn hull_cover_radius(
    hull_points: &[DVec3],
    vertices: &[DVec3],
    on_hull: &[bool],
) -> Result<f64, crate::gjk::GjkError> {
    let hull = ConvexPoints::new(hull_points)?;
    let options = GjkOptions::default();
    let mut r = 0.0f64;
    let mut scale = 0.0f64;
    for (v, &skip) in vertices.iter().zip(on_hull) {
        scale = scale.max(v.abs().max_element());
        if skip {
            continue;
        }
        r = r.max(gjk_distance(&Ball::new(*v, 0.0)?, &hull, &options)?.distance);
    }
    Ok((r + 64.0 * f64::EPSILON * scale).next_up())
}

/// How curved URDF primitives become meshes (see the
/// [module docs](self)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tessellation {
    /// Segments around a circle (≥ 3). Default 16.
    pub segments: usize,
    /// Latitude bands of a sphere or a capsule's two caps together (≥ 2).
    /// Default 8.
    pub rings: usize,
}

impl Default for Tessellation {
    fn default() -> Self {
        Self {
            segments: 16,
            rings: 8,
        }
    }
}

impl Tessellation {
    fn check(&self) -> Result<(), GeometryError> {
        if self.segments < 3 || self.rings < 2 {
            return Err(GeometryError::InvalidParameter {
                name: "tessellation",
                value: self.segments.min(self.rings) as f64,
                why: "at least 3 segments and 2 rings",
            });
        }
        Ok(())
    }

    /// A box with side lengths `size`, centred at the origin (exact).
    ///
    /// # Errors
    /// [`GeometryError::InvalidParameter`] for non-positive sides.
    pub fn cuboid(&self, size: DVec3) -> Result<TriMesh, GeometryError> {
        positive("box size", size.min_element())?;
        let h = size * 0.5;
        let v: Vec<DVec3> = (0..8)
            .map(|k| {
                DVec3::new(
                    if k & 1 == 1 { h.x } else { -h.x },
                    if k & 2 == 2 { h.y } else { -h.y },
                    if k & 4 == 4 { h.z } else { -h.z },
                )
            })
            .collect();
        let hull = ConvexHull::new(&v)?;
        TriMesh::new(v, hull.triangles().to_vec())
    }

    /// A cylinder of radius `r` and length `l` along z, centred at the
    /// origin, with a circumscribed `n`-gon section.
    ///
    /// # Errors
    /// [`GeometryError::InvalidParameter`] for non-positive sizes or bad
    /// options.
    pub fn cylinder(&self, r: f64, l: f64) -> Result<TriMesh, GeometryError> {
        self.check()?;
        positive("cylinder radius", r)?;
        positive("cylinder length", l)?;
        let n = self.segments;
        let big = r / (core::f64::consts::PI / n as f64).cos() * (1.0 + TESS_SLACK);
        let mut v = Vec::with_capacity(2 * n);
        for z in [-0.5 * l, 0.5 * l] {
            for k in 0..n {
                let a = core::f64::consts::TAU * k as f64 / n as f64;
                v.push(DVec3::new(big * a.cos(), big * a.sin(), z));
            }
        }
        let hull = ConvexHull::new(&v)?;
        TriMesh::new(v, hull.triangles().to_vec())
    }

    /// A sphere of radius `r` about the origin.
    ///
    /// # Errors
    /// As [`Tessellation::cylinder`].
    pub fn sphere(&self, r: f64) -> Result<TriMesh, GeometryError> {
        self.capsule(r, 0.0)
    }

    /// A capsule of radius `r` whose segment runs from `−l/2` to `l/2` on
    /// z (`l = 0`: a sphere).
    ///
    /// # Errors
    /// As [`Tessellation::cylinder`].
    pub fn capsule(&self, r: f64, l: f64) -> Result<TriMesh, GeometryError> {
        self.check()?;
        positive("radius", r)?;
        crate::error::non_negative("capsule length", l)?;
        let (n, m) = (self.segments, self.rings.div_ceil(2) * 2);
        let mut v = Vec::new();
        for i in 0..=m {
            let theta = core::f64::consts::PI * i as f64 / m as f64;
            let (s, c) = theta.sin_cos();
            // The equator ring (i = m/2) goes to both ends.
            let ends: &[f64] = if 2 * i == m {
                &[0.5, -0.5]
            } else if 2 * i < m {
                &[0.5]
            } else {
                &[-0.5]
            };
            for &e in ends {
                let z = r * c + e * l;
                if i == 0 || i == m {
                    v.push(DVec3::new(0.0, 0.0, z));
                    continue;
                }
                for k in 0..n {
                    let a = core::f64::consts::TAU * k as f64 / n as f64;
                    v.push(DVec3::new(r * s * a.cos(), r * s * a.sin(), z));
                }
            }
        }
        let hull = ConvexHull::new(&v)?;
        let tris = hull.triangles().to_vec();
        // The support of the capsule along unit n is |n_z| l/2 + r; scale
        // the polyhedron until every face plane is at least that far.
        let mut s = 1.0f64;
        for t in &tris {
            let [a, b, c] = t.map(|i| v[i as usize]);
            let nrm = (b - a).cross(c - a).normalize();
            let d = nrm.dot(a);
            let h = nrm.z.abs() * 0.5 * l + r;
            if d <= 0.0 {
                return Err(GeometryError::InvalidParameter {
                    name: "tessellation",
                    value: d,
                    why: "a face passes through the centre; use more segments",
                });
            }
            s = s.max(h / d);
        }
        let s = s * (1.0 + TESS_SLACK);
        let v = v.into_iter().map(|p| p * s).collect();
        TriMesh::new(v, tris)
    }
}

fn positive(name: &'static str, value: f64) -> Result<(), GeometryError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(GeometryError::InvalidParameter {
            name,
            value,
            why: "must be finite and positive",
        })
    }
}

/// A kinematic tree with per-link geometry (see the [module docs](self)).
#[derive(Clone, Debug)]
pub struct ArticulatedBody {
    name: String,
    tree: KinematicTree,
    links: Vec<Option<LinkGeometry>>,
    /// Per link: degenerate triangles its mesh files lost when loaded.
    dropped: Vec<usize>,
}

impl ArticulatedBody {
    /// A body from a tree and one optional mesh per link (link frame).
    ///
    /// # Errors
    /// [`GeometryError::WrongLength`] unless there is one entry per link;
    /// the errors of [`LinkGeometry::from_mesh`], naming the link.
    pub fn new(
        name: impl Into<String>,
        tree: KinematicTree,
        meshes: Vec<Option<Arc<TriMesh>>>,
    ) -> Result<Self, GeometryError> {
        if meshes.len() != tree.len() {
            return Err(GeometryError::WrongLength {
                what: "link meshes",
                expected: tree.len(),
                got: meshes.len(),
            });
        }
        let links = meshes
            .into_iter()
            .zip(tree.links())
            .map(|(m, l)| m.map(|m| LinkGeometry::from_mesh(l.name(), m)).transpose())
            .collect::<Result<_, _>>()?;
        Ok(Self {
            name: name.into(),
            dropped: vec![0; tree.len()],
            tree,
            links,
        })
    }

    /// One body made of several, each placed at its base pose: their trees
    /// become the roots of one forest, so configurations hold the bodies'
    /// joint values in the order given (docs/architecture.md: several robots are
    /// several roots of one tree). Link and joint names are prefixed with
    /// `body/` ("puma/link2"); the links' geometry is shared, not rebuilt.
    ///
    /// # Errors
    /// [`GeometryError::Kinematics`] when the combined tree is rejected:
    /// two bodies of the same name give duplicate link names, and a base
    /// pose that is not finite or not a rotation is named by its body.
    pub fn combine(
        name: impl Into<String>,
        parts: &[(&Self, DAffine3)],
    ) -> Result<Self, GeometryError> {
        let total = parts.iter().map(|(b, _)| b.tree.len()).sum();
        let mut specs = Vec::with_capacity(total);
        let mut geometry: Vec<(String, Option<LinkGeometry>, usize)> = Vec::with_capacity(total);
        for (body, base) in parts {
            let links = body.tree.links();
            for ((link, g), &dropped) in links.iter().zip(&body.links).zip(&body.dropped) {
                let named = format!("{}/{}", body.name, link.name());
                let parent = link
                    .parent()
                    .map(|p| format!("{}/{}", body.name, links[p].name()));
                let mut joint = link.joint().clone();
                joint.name = format!("{}/{}", body.name, joint.name);
                let origin = if link.parent().is_some() {
                    *link.origin()
                } else {
                    *base * *link.origin()
                };
                specs.push(
                    armature_kinematics::LinkSpec::new(named.clone(), parent.as_deref())
                        .with_joint(joint)
                        .with_origin(origin),
                );
                geometry.push((named, g.clone(), dropped));
            }
        }
        let tree = KinematicTree::new(specs).map_err(|source| GeometryError::Kinematics {
            context: "combined bodies".to_owned(),
            source,
        })?;
        // The tree keeps the input order (each body's links already follow
        // their parents); look the names up anyway rather than rely on it.
        let mut links = vec![None; tree.len()];
        let mut dropped = vec![0; tree.len()];
        for (named, g, d) in geometry {
            let i = tree
                .link_index(&named)
                .map_err(|source| GeometryError::Kinematics {
                    context: format!("combined link `{named}`"),
                    source,
                })?;
            links[i] = g;
            dropped[i] = d;
        }
        Ok(Self {
            name: name.into(),
            tree,
            links,
            dropped,
        })
    }

    /// The body mounted on `base_links`: links without geometry inserted
    /// between the world and the body's roots, such as the location,
    /// orientation and vehicle joints of a mobile base (M3 §III-C: world →
    /// location and orientation → vehicle → platform). Each base link
    /// names as its parent `None` (the world, or the body's base pose once
    /// it is placed in a scene) or a base link listed before it; every root
    /// of the body hangs from the *last* base link, keeping its own joint
    /// and origin. The links' geometry is moved by name, not rebuilt, so a
    /// mounted body shares its meshes and hierarchies with the original.
    /// Configurations hold the base links' values first (in the order
    /// given), then the body's in its own order. No base links: the body
    /// unchanged.
    ///
    /// # Errors
    /// [`GeometryError::Kinematics`] naming the body: a base link whose
    /// parent is not a base link listed before it
    /// ([`KinematicsError::UnknownParent`](armature_kinematics::KinematicsError::UnknownParent)),
    /// a base link named like one of the body's links, or a joint the tree
    /// rejects (a negative location uncertainty, an orientation
    /// uncertainty above π).
    pub fn mounted(
        self,
        base_links: Vec<armature_kinematics::LinkSpec>,
    ) -> Result<Self, GeometryError> {
        let Some(mount) = base_links.last().map(|l| l.name.clone()) else {
            return Ok(self);
        };
        let Self {
            name,
            tree: old,
            links: geometry,
            dropped: old_dropped,
        } = self;
        let rejected = |source| GeometryError::Kinematics {
            context: format!("mounting body `{name}`"),
            source,
        };
        for (k, spec) in base_links.iter().enumerate() {
            if let Some(parent) = &spec.parent
                && !base_links[..k].iter().any(|b| &b.name == parent)
            {
                return Err(rejected(
                    armature_kinematics::KinematicsError::UnknownParent {
                        link: spec.name.clone(),
                        parent: parent.clone(),
                    },
                ));
            }
        }
        let links = old.links();
        let mut specs = base_links;
        specs.reserve(links.len());
        for link in links {
            let parent = link.parent().map_or(mount.as_str(), |p| links[p].name());
            specs.push(
                armature_kinematics::LinkSpec::new(link.name(), Some(parent))
                    .with_joint(link.joint().clone())
                    .with_origin(*link.origin()),
            );
        }
        let tree = KinematicTree::new(specs).map_err(rejected)?;
        let mut moved = vec![None; tree.len()];
        let mut dropped = vec![0; tree.len()];
        for ((link, g), d) in links.iter().zip(geometry).zip(old_dropped) {
            let i = tree.link_index(link.name()).map_err(rejected)?;
            moved[i] = g;
            dropped[i] = d;
        }
        Ok(Self {
            name,
            tree,
            links: moved,
            dropped,
        })
    }

    /// The body renamed (a URDF robot placed in a scene under the scene's
    /// name for it).
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The body's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The kinematic tree.
    #[must_use]
    pub const fn tree(&self) -> &KinematicTree {
        &self.tree
    }

    /// Per-link geometry, in tree order (`None`: no geometry).
    #[must_use]
    pub fn links(&self) -> &[Option<LinkGeometry>] {
        &self.links
    }

    /// Per link, in tree order: how many degenerate triangles (zero area,
    /// repeated corners) its mesh files held that loading left out (0 for
    /// links built from code). A non-zero count usually means a broken
    /// export worth a warning.
    #[must_use]
    pub fn dropped_triangles(&self) -> &[usize] {
        &self.dropped
    }

    /// The geometry of link `i`.
    ///
    /// # Errors
    /// [`GeometryError::IndexOutOfBounds`].
    // Lazy on purpose: an eager error is built and dropped on every call
    // (a `GeometryError` has variants that own memory), which the path
    // checker's profile showed at 1.6 % of its instructions.
    #[allow(clippy::unnecessary_lazy_evaluations)]
    pub fn link_geometry(&self, i: usize) -> Result<Option<&LinkGeometry>, GeometryError> {
        self.links
            .get(i)
            .map(Option::as_ref)
            .ok_or_else(|| GeometryError::IndexOutOfBounds {
                what: "link",
                index: i,
                len: self.links.len(),
            })
    }

    /// One link box per link, for [`DynamicLinkHierarchy::new`].
    ///
    /// # Errors
    /// As [`LinkGeometry::link_obb`].
    pub fn link_obbs(&self) -> Result<Vec<Option<LinkObb>>, GeometryError> {
        self.links
            .iter()
            .map(|g| g.as_ref().map(LinkGeometry::link_obb).transpose())
            .collect()
    }

    /// One hull SSCH per link, for the M3 monitor (building the links'
    /// hulls on first use).
    ///
    /// # Errors
    /// [`GeometryError::LinkGeometry`] naming the link, wrapping the error
    /// of [`LinkGeometry::hull_ssch`].
    pub fn link_sschs(&self) -> Result<Vec<Option<Ssch>>, GeometryError> {
        self.links
            .iter()
            .zip(self.tree.links())
            .map(|(g, link)| {
                g.as_ref()
                    .map(|g| {
                        g.hull_ssch().map_err(|e| GeometryError::LinkGeometry {
                            link: link.name().to_owned(),
                            source: Box::new(e),
                        })
                    })
                    .transpose()
            })
            .collect()
    }

    /// The links' rigid groups and adjacency: which link pairs the default
    /// rules skip because they never move relative to each other or meet
    /// at the joint they share.
    #[must_use]
    pub fn link_groups(&self) -> LinkGroups {
        LinkGroups::new(&self.tree)
    }

    /// The dynamic link hierarchy of this body.
    ///
    /// # Errors
    /// As [`ArticulatedBody::link_obbs`].
    pub fn dynamic_hierarchy(
        &self,
        options: DynamicHierarchyOptions,
    ) -> Result<DynamicLinkHierarchy, GeometryError> {
        DynamicLinkHierarchy::new(&self.tree, self.link_obbs()?, options)
    }

    /// A body from a URDF file and its mesh files (collision elements, or
    /// visual ones for links without collision elements), primitives
    /// tessellated by `tessellation`.
    ///
    /// # Errors
    /// [`GeometryError::Kinematics`] naming the file for URDF errors;
    /// [`GeometryError::LinkGeometry`] naming the link, wrapping the mesh
    /// loader's error that names the mesh file.
    #[cfg(feature = "urdf")]
    pub fn from_urdf_file(
        path: impl AsRef<std::path::Path>,
        options: &armature_kinematics::UrdfOptions,
        tessellation: &Tessellation,
    ) -> Result<Self, GeometryError> {
        Self::from_urdf_file_cached(path, options, tessellation, &mut MeshCache::new())
    }

    /// As [`ArticulatedBody::from_urdf_file`], loading mesh files and
    /// building link geometry through `cache`: a mesh file used again
    /// (by this body, another one or an obstacle of the same cache) with
    /// the same scale is read once, and a link made of the same mesh
    /// elements at the same origins shares the geometry already built.
    ///
    /// # Errors
    /// As [`ArticulatedBody::from_urdf_file`].
    #[cfg(feature = "urdf")]
    pub fn from_urdf_file_cached(
        path: impl AsRef<std::path::Path>,
        options: &armature_kinematics::UrdfOptions,
        tessellation: &Tessellation,
        cache: &mut MeshCache,
    ) -> Result<Self, GeometryError> {
        let path = path.as_ref();
        let model =
            armature_kinematics::UrdfModel::from_file_with(path, options).map_err(|source| {
                // The URDF reader's messages name the file already; say it
                // once.
                GeometryError::Kinematics {
                    context: if source.names_urdf_source() {
                        String::new()
                    } else {
                        format!("`{}`", path.display())
                    },
                    source,
                }
            })?;
        Self::from_urdf_model_cached(model, tessellation, cache)
    }

    /// A body from a parsed URDF model, loading its mesh files.
    ///
    /// # Errors
    /// As [`ArticulatedBody::from_urdf_file`].
    #[cfg(feature = "urdf")]
    pub fn from_urdf_model(
        model: armature_kinematics::UrdfModel,
        tessellation: &Tessellation,
    ) -> Result<Self, GeometryError> {
        Self::from_urdf_model_cached(model, tessellation, &mut MeshCache::new())
    }

    /// As [`ArticulatedBody::from_urdf_model`], through `cache` (see
    /// [`ArticulatedBody::from_urdf_file_cached`]).
    ///
    /// # Errors
    /// As [`ArticulatedBody::from_urdf_file`].
    #[cfg(feature = "urdf")]
    pub fn from_urdf_model_cached(
        model: armature_kinematics::UrdfModel,
        tessellation: &Tessellation,
        cache: &mut MeshCache,
    ) -> Result<Self, GeometryError> {
        use armature_kinematics::GeometryShape;
        let name = model.name().to_owned();
        let (tree, geometry) = model.into_parts();
        let mut links = Vec::with_capacity(tree.len());
        let mut dropped = Vec::with_capacity(tree.len());
        for (link, g) in tree.links().iter().zip(&geometry) {
            let named = |e: GeometryError| GeometryError::LinkGeometry {
                link: link.name().to_owned(),
                source: Box::new(e),
            };
            // A link made of mesh files only is shared by its files,
            // scales and origins.
            let key: Option<Vec<PlacedMesh>> = g
                .elements
                .iter()
                .map(|e| match &e.shape {
                    GeometryShape::Mesh { path, scale } => {
                        Some(PlacedMesh::new(path, *scale, &e.origin))
                    }
                    _ => None,
                })
                .collect();
            if let Some(shared) = key.as_ref().and_then(|k| cache.geometries.get(k)) {
                links.push(Some((*shared.geometry).clone()));
                dropped.push(shared.dropped_triangles);
                continue;
            }
            let mut parts: Vec<Arc<TriMesh>> = Vec::with_capacity(g.elements.len());
            let mut lost = 0;
            for e in &g.elements {
                let local = match &e.shape {
                    GeometryShape::Mesh { path, scale } => cache.load(path, *scale).map(|m| {
                        lost += m.dropped_triangles;
                        m.mesh
                    }),
                    GeometryShape::Box { size } => tessellation.cuboid(*size).map(Arc::new),
                    GeometryShape::Cylinder { radius, length } => {
                        tessellation.cylinder(*radius, *length).map(Arc::new)
                    }
                    GeometryShape::Sphere { radius } => tessellation.sphere(*radius).map(Arc::new),
                    GeometryShape::Capsule { radius, length } => {
                        tessellation.capsule(*radius, *length).map(Arc::new)
                    }
                    _ => Err(GeometryError::InvalidParameter {
                        name: "geometry",
                        value: f64::NAN,
                        why: "unsupported URDF geometry element",
                    }),
                }
                .and_then(|m| {
                    // The identity places nothing: the loaded mesh is
                    // shared as it is.
                    if e.origin == DAffine3::IDENTITY {
                        Ok(m)
                    } else {
                        m.transformed(&e.origin).map(Arc::new)
                    }
                })
                .map_err(named)?;
                parts.push(local);
            }
            dropped.push(lost);
            let mesh = match parts.as_slice() {
                [] => {
                    links.push(None);
                    continue;
                }
                [only] => Arc::clone(only),
                _ => Arc::new(TriMesh::merge(parts.iter().map(AsRef::as_ref)).map_err(named)?),
            };
            let geometry = LinkGeometry::from_mesh(link.name(), mesh)?;
            if let Some(k) = key {
                cache.geometries.insert(
                    k,
                    SharedGeometry {
                        geometry: Arc::new(geometry.clone()),
                        dropped_triangles: lost,
                    },
                );
            }
            links.push(Some(geometry));
        }
        Ok(Self {
            name,
            tree,
            links,
            dropped,
        })
    }
}

/// A mesh file at a scale: the key of [`MeshCache`]'s meshes.
#[cfg(feature = "io")]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct MeshKey {
    /// The canonical path (the path as given when it cannot be resolved;
    /// loading then fails and names it).
    path: std::path::PathBuf,
    /// The scale's bits, `-0.0` as `0.0`.
    scale: [u64; 3],
}

#[cfg(feature = "io")]
impl MeshKey {
    fn new(path: &std::path::Path, scale: DVec3) -> Self {
        Self {
            path: std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
            scale: (scale + DVec3::ZERO).to_array().map(f64::to_bits),
        }
    }
}

/// A mesh file at a scale placed by an origin: one element of a link, or
/// an obstacle's mesh (identity origin).
#[cfg(feature = "io")]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct PlacedMesh {
    mesh: MeshKey,
    origin: [u64; 12],
}

#[cfg(feature = "io")]
impl PlacedMesh {
    fn new(path: &std::path::Path, scale: DVec3, origin: &DAffine3) -> Self {
        Self {
            mesh: MeshKey::new(path, scale),
            origin: origin.to_cols_array().map(|x| (x + 0.0).to_bits()),
        }
    }
}

/// A mesh loaded through a [`MeshCache`].
#[cfg(feature = "io")]
#[derive(Clone, Debug)]
pub struct LoadedMesh {
    /// The mesh, scaled (a mirroring scale reverses the winding, see the
    /// [module docs](self)).
    pub mesh: Arc<TriMesh>,
    /// Degenerate triangles (zero area, repeated corners) the file held
    /// and loading left out.
    pub dropped_triangles: usize,
}

/// A geometry built through a [`MeshCache`], shared by everything that
/// uses the same mesh.
#[cfg(feature = "io")]
#[derive(Clone, Debug)]
pub struct SharedGeometry {
    /// The geometry.
    pub geometry: Arc<LinkGeometry>,
    /// Degenerate triangles its mesh files held and loading left out.
    pub dropped_triangles: usize,
}

/// Mesh files loaded once per scale and geometry built once per mesh (see
/// the [module docs](self)): a scene with a thousand obstacles on one
/// mesh file holds one mesh and one set of hierarchies.
///
/// Files are told apart by canonical path and scales by their bits, so
/// `a/../mesh.obj` and `mesh.obj` are one file, and `1.0` and `1.0 + ε`
/// two scales. A file that changes while the cache lives is not read
/// again.
#[cfg(feature = "io")]
#[derive(Clone, Debug, Default)]
pub struct MeshCache {
    meshes: std::collections::HashMap<MeshKey, LoadedMesh>,
    geometries: std::collections::HashMap<Vec<PlacedMesh>, SharedGeometry>,
}

#[cfg(feature = "io")]
impl MeshCache {
    /// An empty cache.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Distinct mesh files (and scales) loaded.
    #[must_use]
    pub fn num_meshes(&self) -> usize {
        self.meshes.len()
    }

    /// Distinct geometries built.
    #[must_use]
    pub fn num_geometries(&self) -> usize {
        self.geometries.len()
    }

    /// The mesh file at `path` (STL or OBJ, by [`crate::io::load_mesh`]
    /// with degenerate triangles dropped and counted) scaled by `scale`
    /// about its origin; loaded on the first call for this file and
    /// scale.
    ///
    /// # Errors
    /// The loader's errors, naming the file;
    /// [`GeometryError::InvalidParameter`] (`transform`) for a scale with
    /// a zero or non-finite component.
    #[cfg(feature = "io")]
    pub fn load(
        &mut self,
        path: impl AsRef<std::path::Path>,
        scale: DVec3,
    ) -> Result<LoadedMesh, GeometryError> {
        let path = path.as_ref();
        let key = MeshKey::new(path, scale);
        if let Some(m) = self.meshes.get(&key) {
            return Ok(m.clone());
        }
        let loaded = load_counting_dropped(path, scale)?;
        self.meshes.insert(key, loaded.clone());
        Ok(loaded)
    }

    /// The geometry of the mesh file at `path` scaled by `scale` (see
    /// [`MeshCache::load`]), built on the first call for this file and
    /// scale; `name` names the obstacle or link in build errors.
    ///
    /// # Errors
    /// As [`MeshCache::load`] and [`LinkGeometry::from_mesh`].
    #[cfg(feature = "io")]
    pub fn geometry(
        &mut self,
        name: &str,
        path: impl AsRef<std::path::Path>,
        scale: DVec3,
    ) -> Result<SharedGeometry, GeometryError> {
        let path = path.as_ref();
        let key = vec![PlacedMesh::new(path, scale, &DAffine3::IDENTITY)];
        if let Some(g) = self.geometries.get(&key) {
            return Ok(g.clone());
        }
        let loaded = self.load(path, scale)?;
        let shared = SharedGeometry {
            geometry: Arc::new(LinkGeometry::from_mesh(name, loaded.mesh)?),
            dropped_triangles: loaded.dropped_triangles,
        };
        self.geometries.insert(key, shared.clone());
        Ok(shared)
    }
}

/// Loads a mesh file keeping degenerate triangles, then drops them with a
/// report, so their number is known; scales the result.
#[cfg(feature = "io")]
fn load_counting_dropped(
    path: &std::path::Path,
    scale: DVec3,
) -> Result<LoadedMesh, GeometryError> {
    use crate::mesh::{DegeneratePolicy, MeshOptions};
    let keep = crate::io::LoadOptions::default()
        .with_mesh_options(MeshOptions::default().with_degenerate(DegeneratePolicy::Keep));
    let (vertices, indices) = crate::io::load_mesh(path, &keep)?.into_parts();
    // The loader's default validation, with the dropped triangles
    // reported: the same mesh `load_mesh` gives with default options.
    let (mesh, report) =
        TriMesh::from_vertices_indices_with_report(vertices, indices, &MeshOptions::default())
            .map_err(|e| GeometryError::InvalidFileMesh {
                file: path.display().to_string(),
                line: None,
                source: Box::new(e),
            })?;
    let mesh = if scale == DVec3::ONE {
        mesh
    } else {
        mesh.transformed(&DAffine3::from_scale(scale))?
    };
    Ok(LoadedMesh {
        mesh: Arc::new(mesh),
        dropped_triangles: report.dropped_triangles.len(),
    })
}

/// How an obstacle moves.
// One per obstacle, never in a hot array: boxing the larger variant would
// only add an indirection.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum ObstacleMotion {
    /// Fixed at a pose.
    Static(DAffine3),
    /// From `start` at `t = 0` to `end` at `t = 1` by the in-between
    /// motion (constant rotational velocity, linear translation).
    Rigid {
        /// Pose at `t = 0`.
        start: DAffine3,
        /// Pose at `t = 1`.
        end: DAffine3,
        /// The interpolation.
        motion: LocalMotion,
    },
}

/// A named mesh in the environment with its volumes (mesh frame). The
/// geometry is shared by [`Arc`]: obstacles built on one mesh
/// ([`Obstacle::fixed_shared`], `MeshCache` with feature `io`) hold it once.
#[derive(Clone, Debug)]
pub struct Obstacle {
    name: String,
    geometry: Arc<LinkGeometry>,
    motion: ObstacleMotion,
    /// [`Obstacle::top_boxes`], built on first use and shared by clones
    /// (an obstacle never changes).
    tops: Arc<OnceLock<crate::TopBoxes>>,
}

impl Obstacle {
    /// A static obstacle at `pose`.
    ///
    /// # Errors
    /// As [`LinkGeometry::from_mesh`], naming the obstacle.
    pub fn fixed(
        name: impl Into<String>,
        mesh: Arc<TriMesh>,
        pose: DAffine3,
    ) -> Result<Self, GeometryError> {
        let name = name.into();
        let geometry = Arc::new(LinkGeometry::from_mesh(&name, mesh)?);
        Ok(Self::fixed_shared(name, geometry, pose))
    }

    /// A static obstacle at `pose` on an already built geometry, shared
    /// with whatever else holds it (nothing is rebuilt or copied).
    #[must_use]
    pub fn fixed_shared(
        name: impl Into<String>,
        geometry: Arc<LinkGeometry>,
        pose: DAffine3,
    ) -> Self {
        Self {
            name: name.into(),
            geometry,
            motion: ObstacleMotion::Static(pose),
            tops: Arc::default(),
        }
    }

    /// A moving obstacle (as [`Obstacle::moving`]) on an already built,
    /// shared geometry.
    #[must_use]
    pub fn moving_shared(
        name: impl Into<String>,
        geometry: Arc<LinkGeometry>,
        start: DAffine3,
        end: DAffine3,
    ) -> Self {
        Self {
            name: name.into(),
            geometry,
            motion: ObstacleMotion::Rigid {
                start,
                end,
                motion: LocalMotion::between_poses(&start, &end),
            },
            tops: Arc::default(),
        }
    }

    /// An obstacle moving rigidly from `start` to `end` over `t ∈ [0, 1]`
    /// ([`LocalMotion::between_poses`]).
    ///
    /// # Errors
    /// As [`Obstacle::fixed`].
    pub fn moving(
        name: impl Into<String>,
        mesh: Arc<TriMesh>,
        start: DAffine3,
        end: DAffine3,
    ) -> Result<Self, GeometryError> {
        let name = name.into();
        let geometry = Arc::new(LinkGeometry::from_mesh(&name, mesh)?);
        Ok(Self::moving_shared(name, geometry, start, end))
    }

    /// The name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The mesh and its volumes (mesh frame).
    #[must_use]
    pub fn geometry(&self) -> &LinkGeometry {
        &self.geometry
    }

    /// The geometry as shared: obstacles on one mesh hold the same
    /// [`Arc`] (compare with [`Arc::ptr_eq`]).
    #[must_use]
    pub const fn shared_geometry(&self) -> &Arc<LinkGeometry> {
        &self.geometry
    }

    /// How it moves.
    #[must_use]
    pub const fn motion(&self) -> &ObstacleMotion {
        &self.motion
    }

    /// Whether it is static.
    #[must_use]
    pub const fn is_static(&self) -> bool {
        matches!(self.motion, ObstacleMotion::Static(_))
    }

    /// The pose at time `t`.
    #[must_use]
    pub fn pose_at(&self, t: f64) -> DAffine3 {
        match &self.motion {
            ObstacleMotion::Static(p) => *p,
            ObstacleMotion::Rigid { motion, .. } => motion.pose(t),
        }
    }

    /// The world boxes of the top `levels` levels of the obstacle's OBB
    /// tree at its pose at `t = 0` ([`crate::TopBoxes`]): a world box far
    /// from all of them is that far from every triangle at the start.
    #[must_use]
    pub fn top_boxes_at_start(&self, levels: u32) -> crate::TopBoxes {
        self.geometry.obb_tree.top_boxes(&self.pose_at(0.0), levels)
    }

    /// [`Obstacle::top_boxes_at_start`] with every level kept
    /// ([`crate::MAX_TOP_BOX_LEVELS`]), built once on first use and shared
    /// by the obstacle's clones: a scene prepared several times (one per
    /// thread, one per query kind) holds them once. On a large mesh they
    /// are a few megabytes (a box per node of the tree's top levels).
    #[must_use]
    pub fn top_boxes(&self) -> &crate::TopBoxes {
        self.tops
            .get_or_init(|| self.top_boxes_at_start(crate::MAX_TOP_BOX_LEVELS))
    }

    /// A world box holding the obstacle at every `t ∈ [0, 1]` (its OBB
    /// under the interval enclosure of the motion for a moving one).
    ///
    /// # Errors
    /// [`GeometryError::Kinematics`] naming the obstacle.
    pub fn world_aabb(&self) -> Result<Aabb, GeometryError> {
        let obb = self.geometry.link_obb()?;
        match &self.motion {
            ObstacleMotion::Static(p) => Ok(Aabb::from_points(&self.geometry.obb.corners())
                .map_err(|source| GeometryError::Fit {
                    name: self.name.clone(),
                    source,
                })?
                .transform(p)),
            ObstacleMotion::Rigid { motion, .. } => {
                let unit =
                    Interval::new(0.0, 1.0).map_err(|_| GeometryError::InvalidParameter {
                        name: "t",
                        value: 1.0,
                        why: "unit interval",
                    })?;
                let pose = motion.interval_enclosure(unit).map_err(|source| {
                    GeometryError::Kinematics {
                        context: format!("obstacle `{}`", self.name),
                        source,
                    }
                })?;
                Ok(crate::dynamic::to_aabb(&obb.aabb_interval(&pose)))
            }
        }
    }

    /// The obstacle as a world-frame SSCH for the M3 monitor: its hull
    /// points at its pose.
    ///
    /// The monitor carries distance bounds from cycle to cycle assuming
    /// obstacles do not move, and it has no swept volume for an obstacle
    /// over its motion; any single pose of a moving obstacle would let it
    /// certify distances the obstacle does not keep. A moving obstacle is
    /// therefore refused rather than frozen.
    ///
    /// # Errors
    /// [`GeometryError::MovingObstacle`] naming the obstacle when it is not
    /// static ([`Obstacle::is_static`]); [`GeometryError::LinkGeometry`]
    /// naming it when its hull cannot be built (the hull is built on
    /// first use, see [`LinkGeometry::hull_points`]);
    /// [`GeometryError::Kinematics`] naming it when its hull cannot be
    /// placed.
    pub fn monitor_obstacle(&self) -> Result<MonitorObstacle, GeometryError> {
        let ObstacleMotion::Static(pose) = &self.motion else {
            return Err(GeometryError::MovingObstacle {
                name: self.name.clone(),
            });
        };
        let volume = self
            .geometry
            .hull_ssch()
            .map_err(|e| GeometryError::LinkGeometry {
                link: self.name.clone(),
                source: Box::new(e),
            })?
            .transformed(pose)
            .map_err(|source| GeometryError::Kinematics {
                context: format!("obstacle `{}`", self.name),
                source,
            })?;
        Ok(MonitorObstacle {
            name: self.name.clone(),
            volume,
        })
    }
}

impl EnvironmentHierarchy {
    /// The hierarchy over obstacles' world boxes ([`Obstacle::world_aabb`],
    /// over the whole motion for moving ones).
    ///
    /// # Errors
    /// As [`Obstacle::world_aabb`].
    pub fn from_obstacles(obstacles: &[Obstacle]) -> Result<Self, GeometryError> {
        let boxes = obstacles
            .iter()
            .map(|o| Ok((o.name.clone(), o.world_aabb()?)))
            .collect::<Result<Vec<_>, GeometryError>>()?;
        Ok(Self::new(boxes))
    }
}

#[cfg(test)]
mod tests {
    use super::{ArticulatedBody, Tessellation};
    use crate::GeometryError;
    use armature_kinematics::{Joint, JointType, KinematicTree, KinematicsError, LinkSpec};
    use glam::{DAffine3, DVec3};
    use std::sync::Arc;

    fn arm() -> ArticulatedBody {
        let tree = KinematicTree::new(vec![
            LinkSpec::new("base", None),
            LinkSpec::new("a", Some("base"))
                .with_joint(Joint::revolute("j1", DVec3::Z, -3.0, 3.0))
                .with_origin(DAffine3::from_translation(DVec3::Z)),
        ])
        .unwrap();
        let cube = Arc::new(Tessellation::default().cuboid(DVec3::splat(0.2)).unwrap());
        ArticulatedBody::new("bot", tree, vec![Some(cube), None]).unwrap()
    }

    #[test]
    fn mounting_puts_base_joints_first_and_keeps_the_geometry() {
        let body = arm();
        let base_mesh = Arc::clone(&body.links()[0].as_ref().unwrap().mesh);
        let mounted = body
            .mounted(vec![
                LinkSpec::new("location", None).with_joint(Joint::new(
                    "location",
                    JointType::LocationUncertain { delta: 0.1 },
                )),
                LinkSpec::new("vehicle", Some("location"))
                    .with_joint(Joint::new("vehicle", JointType::OmniVehicle)),
            ])
            .unwrap();
        let tree = mounted.tree();
        let names: Vec<&str> = tree.links().iter().map(|l| l.name()).collect();
        assert_eq!(names, ["location", "vehicle", "base", "a"]);
        assert_eq!(tree.nq(), 3 + 3 + 1);
        assert_eq!(tree.q_range(3), 6..7);
        assert_eq!(tree.links()[2].parent(), Some(1));
        assert!(mounted.links()[..2].iter().all(Option::is_none));
        let g = mounted.links()[2].as_ref().unwrap();
        assert!(Arc::ptr_eq(&g.mesh, &base_mesh), "geometry rebuilt");
        assert!(mounted.links()[3].is_none());
        // The old root's own origin is kept below the mount.
        let q = [0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.5];
        let poses = tree.poses(&q).unwrap();
        assert!(
            poses[3]
                .translation
                .abs_diff_eq(DVec3::new(1.0, 0.0, 1.0), 1e-12)
        );
        // No base links: unchanged.
        assert_eq!(arm().mounted(Vec::new()).unwrap().tree().len(), 2);
    }

    #[test]
    fn mounting_rejects_bad_base_links_naming_the_body() {
        let e = arm()
            .mounted(vec![
                LinkSpec::new("vehicle", Some("a")).with_joint(Joint::new("v", JointType::Vehicle)),
            ])
            .unwrap_err();
        assert!(
            matches!(&e, GeometryError::Kinematics { context, source: KinematicsError::UnknownParent { link, .. } }
                if context.contains("`bot`") && link == "vehicle"),
            "{e}"
        );
        let e = arm().mounted(vec![LinkSpec::new("a", None)]).unwrap_err();
        assert!(e.to_string().contains("duplicate link name `a`"), "{e}");
        let e = arm()
            .mounted(vec![LinkSpec::new("location", None).with_joint(
                Joint::new("location", JointType::LocationUncertain { delta: -1.0 }),
            )])
            .unwrap_err();
        assert!(e.to_string().contains("delta"), "{e}");
    }

    #[test]
    fn top_boxes_are_built_once_with_every_level_and_shared_by_clones() {
        // A ring of 16 small cubes 2 apart: the root box holds its middle,
        // the boxes of the deeper levels do not.
        let cube = Tessellation::default().cuboid(DVec3::splat(0.1)).unwrap();
        let mut vertices = Vec::new();
        let mut indices = Vec::new();
        for k in 0..16 {
            let angle = f64::from(k) * core::f64::consts::PI / 8.0;
            let at = DVec3::new(angle.cos(), angle.sin(), 0.0) * 2.0;
            let base = u32::try_from(vertices.len()).unwrap();
            vertices.extend(cube.vertices().iter().map(|v| *v + at));
            indices.extend(cube.indices().iter().map(|t| t.map(|i| i + base)));
        }
        let ring = Arc::new(crate::TriMesh::new(vertices, indices).unwrap());
        let pose = DAffine3::from_translation(DVec3::new(0.5, 0.0, 0.0));
        let o = super::Obstacle::fixed("ring", ring, pose).unwrap();
        let copy = o.clone();
        assert!(core::ptr::eq(o.top_boxes(), copy.top_boxes()));
        let middle = crate::Aabb::new(DVec3::new(0.3, -0.2, -0.2), DVec3::new(0.7, 0.2, 0.2));
        let all = o.top_boxes_at_start(crate::MAX_TOP_BOX_LEVELS);
        for margin in [0.0, 1.0, 1.9] {
            assert_eq!(
                o.top_boxes().near(&middle, margin),
                all.near(&middle, margin)
            );
        }
        assert!(!o.top_boxes().near(&middle, 1.0));
        assert!(o.top_boxes().near(&middle, 1.9));
        assert!(o.top_boxes_at_start(0).near(&middle, 0.0));
    }
}
