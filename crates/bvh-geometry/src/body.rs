//! # Articulated bodies and obstacles with their bounding volumes
//!
//! **What.** An [`ArticulatedBody`] is a kinematic tree plus, per link, an
//! optional [`LinkGeometry`] in the link frame: the mesh, its OBB, LSS,
//! bounding sphere, convex hull points (with the radius that makes their
//! SSCH hold every vertex), mass properties when the mesh is closed, and
//! OBB and RSS hierarchies ([`Bvh`]), and whether the mesh is closed
//! ([`LinkGeometry::is_closed`]). Bodies are built from code (a tree
//! and one optional mesh per link) or, with the `urdf` feature, from a URDF
//! file and its mesh files: each link's collision elements (visual ones
//! when it has none) are loaded or tessellated, placed by their origins and
//! merged into one mesh. An [`Obstacle`] is a named mesh that is static or
//! moves rigidly between two poses (in-between interpolation,
//! [`LocalMotion::between_poses`]).
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
//! **Why.** The CCD layers need several volumes of the same link (boxes for
//! the dynamic hierarchy, LSSs for swept-volume culling, hulls for M4's
//! temporal culling and M3's SSCHs, hierarchies for the exact stages);
//! computing them once per body and sharing them by [`Arc`] keeps scenes
//! cheap to clone and `Send + Sync`.
//!
//! **Guarantee.** Every volume of a link contains every vertex of its mesh
//! (the [`crate::bv`] fits are exact in floating point; the hull SSCH radius
//! is a GJK upper estimate with rounding slack). Errors name the link and,
//! for files, the file.

use std::sync::Arc;

use crate::bv::{Aabb, Lss, Obb, Rss, Sphere};
use crate::bvh::Bvh;
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
/// queries of conservative advancement): one triangle per leaf prunes
/// triangle pairs with a cheap volume test each, which made the benchmark
/// suite's queries about twice as fast as four per leaf, for about 2.6
/// times the tree's memory. The OBB trees (overlap tests) keep the default.
pub const RSS_LEAF_TRIANGLES: usize = 1;

/// Relative enlargement of tessellated primitives for rounding.
const TESS_SLACK: f64 = 1e-9;

/// The volumes of one link (or obstacle) mesh, in its own frame.
#[derive(Clone, Debug)]
pub struct LinkGeometry {
    /// The mesh.
    pub mesh: Arc<TriMesh>,
    /// Oriented bounding box (principal axes).
    pub obb: Obb,
    /// Line swept sphere along the principal axis.
    pub lss: Lss,
    /// Minimal bounding sphere.
    pub sphere: Sphere,
    /// The convex hull's vertices.
    pub hull_points: Vec<DVec3>,
    /// Radius such that the SSCH (`hull_points`, `hull_radius`) holds every
    /// vertex (the hull is built with a tolerance, see [`ConvexHull`]).
    pub hull_radius: f64,
    /// Mass properties at unit density, when the mesh is closed and
    /// consistently oriented.
    pub mass: Option<MassProperties>,
    /// OBB hierarchy over the mesh.
    pub obb_tree: Arc<Bvh<Obb>>,
    /// RSS hierarchy over the mesh, [`RSS_LEAF_TRIANGLES`] per leaf.
    pub rss_tree: Arc<Bvh<Rss>>,
    /// Closedness and connected components of the mesh: a closed mesh
    /// bounds a solid, and geometry inside it collides with it (see
    /// [`crate::query::containment`]).
    pub topology: MeshTopology,
}

impl LinkGeometry {
    /// Fits every volume to `mesh`; `name` names the link or obstacle in
    /// errors.
    ///
    /// # Errors
    /// [`GeometryError::Fit`] naming `name` when a volume cannot be fitted;
    /// [`GeometryError::LinkGeometry`] naming it for hull and hierarchy
    /// errors.
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
        let triangles: Vec<[DVec3; 3]> = mesh.triangles().collect();
        let obb = Obb::from_triangles(&triangles).map_err(fit)?;
        let lss = Lss::from_points(vertices).map_err(fit)?;
        let sphere = Sphere::from_points(vertices).map_err(fit)?;
        let hull = ConvexHull::new(vertices).map_err(named)?;
        let hull_points: Vec<DVec3> = hull
            .vertices()
            .iter()
            .map(|&i| vertices[i as usize])
            .collect();
        let hull_radius = hull_cover_radius(&hull_points, vertices).map_err(|source| {
            GeometryError::Distance {
                pair: format!("`{name}` hull and vertex"),
                source,
            }
        })?;
        let mass = mesh.mass_properties().ok();
        let obb_tree = Arc::new(Bvh::<Obb>::new(&mesh).map_err(named)?);
        let rss_tree = Arc::new(
            Bvh::<Rss>::build(
                &mesh,
                &crate::bvh::BvhOptions::default().with_max_leaf_triangles(RSS_LEAF_TRIANGLES),
            )
            .map_err(named)?,
        );
        let topology = MeshTopology::new(&mesh);
        Ok(Self {
            mesh,
            obb,
            lss,
            sphere,
            hull_points,
            hull_radius,
            mass,
            obb_tree,
            rss_tree,
            topology,
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

    /// The hull as an SSCH (the M3 body volume).
    ///
    /// # Errors
    /// [`GeometryError::Kinematics`] (cannot happen for a fitted geometry).
    pub fn hull_ssch(&self) -> Result<Ssch, GeometryError> {
        Ssch::new(self.hull_points.clone(), self.hull_radius).map_err(|source| {
            GeometryError::Kinematics {
                context: "hull SSCH".to_owned(),
                source,
            }
        })
    }

    /// The LSS as an SSCH (two points and a radius; cheaper, looser).
    ///
    /// # Errors
    /// As [`LinkGeometry::hull_ssch`].
    pub fn lss_ssch(&self) -> Result<Ssch, GeometryError> {
        Ssch::new(vec![self.lss.a, self.lss.b], self.lss.radius).map_err(|source| {
            GeometryError::Kinematics {
                context: "LSS SSCH".to_owned(),
                source,
            }
        })
    }
}

/// The largest distance from a vertex to the hull of `hull_points` (GJK
/// upper estimate), rounded up with slack.
fn hull_cover_radius(
    hull_points: &[DVec3],
    vertices: &[DVec3],
) -> Result<f64, crate::gjk::GjkError> {
    let hull = ConvexPoints::new(hull_points)?;
    let options = GjkOptions::default();
    let mut r = 0.0f64;
    let mut scale = 0.0f64;
    for v in vertices {
        scale = scale.max(v.abs().max_element());
        if hull_points.contains(v) {
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
        let mut geometry: Vec<(String, Option<LinkGeometry>)> = Vec::with_capacity(total);
        for (body, base) in parts {
            let links = body.tree.links();
            for (link, g) in links.iter().zip(&body.links) {
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
                geometry.push((named, g.clone()));
            }
        }
        let tree = KinematicTree::new(specs).map_err(|source| GeometryError::Kinematics {
            context: "combined bodies".to_owned(),
            source,
        })?;
        // The tree keeps the input order (each body's links already follow
        // their parents); look the names up anyway rather than rely on it.
        let mut links = vec![None; tree.len()];
        for (named, g) in geometry {
            let i = tree
                .link_index(&named)
                .map_err(|source| GeometryError::Kinematics {
                    context: format!("combined link `{named}`"),
                    source,
                })?;
            links[i] = g;
        }
        Ok(Self {
            name: name.into(),
            tree,
            links,
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

    /// The geometry of link `i`.
    ///
    /// # Errors
    /// [`GeometryError::IndexOutOfBounds`].
    pub fn link_geometry(&self, i: usize) -> Result<Option<&LinkGeometry>, GeometryError> {
        self.links
            .get(i)
            .map(Option::as_ref)
            .ok_or(GeometryError::IndexOutOfBounds {
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

    /// One hull SSCH per link, for the M3 monitor.
    ///
    /// # Errors
    /// As [`LinkGeometry::hull_ssch`].
    pub fn link_sschs(&self) -> Result<Vec<Option<Ssch>>, GeometryError> {
        self.links
            .iter()
            .map(|g| g.as_ref().map(LinkGeometry::hull_ssch).transpose())
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
        let path = path.as_ref();
        let model =
            armature_kinematics::UrdfModel::from_file_with(path, options).map_err(|source| {
                GeometryError::Kinematics {
                    context: format!("`{}`", path.display()),
                    source,
                }
            })?;
        Self::from_urdf_model(model, tessellation)
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
        use armature_kinematics::GeometryShape;
        let name = model.name().to_owned();
        let (tree, geometry) = model.into_parts();
        let mut meshes = Vec::with_capacity(tree.len());
        for (link, g) in tree.links().iter().zip(&geometry) {
            let named = |e: GeometryError| GeometryError::LinkGeometry {
                link: link.name().to_owned(),
                source: Box::new(e),
            };
            let mut parts = Vec::with_capacity(g.elements.len());
            for e in &g.elements {
                let local = match &e.shape {
                    GeometryShape::Mesh { path, scale } => {
                        crate::io::load_mesh(path, &crate::io::LoadOptions::default())
                            .and_then(|m| m.transformed(&DAffine3::from_scale(*scale)))
                    }
                    GeometryShape::Box { size } => tessellation.cuboid(*size),
                    GeometryShape::Cylinder { radius, length } => {
                        tessellation.cylinder(*radius, *length)
                    }
                    GeometryShape::Sphere { radius } => tessellation.sphere(*radius),
                    GeometryShape::Capsule { radius, length } => {
                        tessellation.capsule(*radius, *length)
                    }
                    _ => Err(GeometryError::InvalidParameter {
                        name: "geometry",
                        value: f64::NAN,
                        why: "unsupported URDF geometry element",
                    }),
                }
                .and_then(|m| m.transformed(&e.origin))
                .map_err(named)?;
                parts.push(local);
            }
            meshes.push(if parts.is_empty() {
                None
            } else {
                Some(Arc::new(TriMesh::merge(parts.iter()).map_err(named)?))
            });
        }
        Self::new(name, tree, meshes)
    }
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

/// A named mesh in the environment with its volumes (mesh frame).
#[derive(Clone, Debug)]
pub struct Obstacle {
    name: String,
    geometry: LinkGeometry,
    motion: ObstacleMotion,
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
        let geometry = LinkGeometry::from_mesh(&name, mesh)?;
        Ok(Self {
            name,
            geometry,
            motion: ObstacleMotion::Static(pose),
        })
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
        let mut o = Self::fixed(name, mesh, start)?;
        o.motion = ObstacleMotion::Rigid {
            start,
            end,
            motion: LocalMotion::between_poses(&start, &end),
        };
        Ok(o)
    }

    /// The name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The mesh and its volumes (mesh frame).
    #[must_use]
    pub const fn geometry(&self) -> &LinkGeometry {
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
    /// static ([`Obstacle::is_static`]); [`GeometryError::Kinematics`]
    /// naming the obstacle when its hull cannot be placed.
    pub fn monitor_obstacle(&self) -> Result<MonitorObstacle, GeometryError> {
        let ObstacleMotion::Static(pose) = &self.motion else {
            return Err(GeometryError::MovingObstacle {
                name: self.name.clone(),
            });
        };
        let volume = self
            .geometry
            .hull_ssch()?
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
