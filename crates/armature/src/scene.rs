//! # Scenes: articulated bodies, obstacles, and what is tested
//!
//! **What.** A [`Scene`] holds one or several articulated bodies (from URDF
//! files with their meshes, or from code), each placed at a base pose;
//! static obstacles (meshes with a pose); the pairs never tested; whether
//! the bodies' own non-adjacent links are tested (self-collision); whether
//! adjacent links are skipped; and the distance threshold below which two
//! pieces count as touching.
//!
//! **Which pairs are tested.** Every link with geometry against every
//! obstacle, and with self-collision every two links with geometry, except:
//! links in one *rigid group* (joined by fixed joints only: they never move
//! relative to each other), *adjacent* links (a parent and its child, or two
//! rigid groups joined by one movable joint; skipped unless
//! [`SceneBuilder::skip_adjacent`] turns it off), and the disabled pairs.
//! Grouping first makes a robot description with geometry-less frames
//! between its links (`link1 → link1_rot2 → link2` on a fixed joint) or a
//! tool welded below its last link free at rest, as its author expects:
//! their meshes meet at the joints they share. Links two movable joints
//! apart are always tested. The continuous queries,
//! [`Pipeline::check`](crate::Pipeline::check) and the brute-force oracle
//! (the `oracle` feature) follow these same rules.
//!
//! **Configurations.** The bodies become the roots of one kinematic forest
//! ([`ArticulatedBody::combine`]): a configuration vector holds the first
//! body's joint values in tree order, then the second body's, and so on.
//! [`Scene::joints`] lists them in that order. Link names
//! are prefixed with their body (`puma/link2`).
//!
//! **Names.** Pairs are named `body/link` for links and by the obstacle's
//! name for obstacles, so body and obstacle names must be non-empty and
//! free of `/` (an obstacle called `puma/link2` would read as a link):
//! [`SceneBuilder::build`] rejects them, naming the field.
//!
//! **Files.** [`Scene::from_file`] reads the RON scene files of docs/cli.md (see
//! [`crate::scene_file`]). Every error names the file and the field.
//!
//! **Shared meshes.** Mesh files are loaded and their geometry built once
//! per file and scale (a [`MeshCache`] in the builder): a thousand
//! obstacles on one mesh file, or links of several robots on the same
//! files, share one mesh and one set of hierarchies by [`Arc`]
//! ([`Obstacle::shared_geometry`]). A negative obstacle scale mirrors the
//! mesh and reverses its triangles' winding, as a mirroring URDF mesh
//! scale does for links (see [`armature_bvh_geometry::body`]).
//!
//! **Warnings.** Input that loads but is probably a mistake is kept in
//! [`Scene::warnings`] rather than taken silently: today the degenerate
//! triangles (zero area, repeated corners) a mesh file held and loading
//! left out, per obstacle and per link.
//!
//! ```
//! use std::sync::Arc;
//! use armature::geometry::{ArticulatedBody, Obstacle, Tessellation};
//! use armature::kinematics::{Joint, KinematicTree, LinkSpec};
//! use armature::Scene;
//! use glam::{DAffine3, DVec3};
//!
//! let tree = KinematicTree::new(vec![
//!     LinkSpec::new("base", None),
//!     LinkSpec::new("arm", Some("base"))
//!         .with_joint(Joint::revolute("shoulder", DVec3::Z, -3.0, 3.0)),
//! ])?;
//! let cube = |s: f64| Tessellation::default().cuboid(DVec3::splat(s)).map(Arc::new);
//! let body = ArticulatedBody::new("bot", tree, vec![Some(cube(0.2)?), Some(cube(0.1)?)])?;
//! let wall = Obstacle::fixed("wall", cube(0.5)?, DAffine3::from_translation(DVec3::X * 2.0))?;
//! let scene = Scene::builder()
//!     .body(body, DAffine3::IDENTITY)
//!     .obstacle(wall)
//!     .build()?;
//! assert_eq!(scene.nq(), 1);
//! assert_eq!(scene.joints()[0].name, "bot/shoulder");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use armature_bvh_geometry::{
    ArticulatedBody, DisabledPairs, DynamicHierarchyOptions, DynamicLinkHierarchy, GeometryError,
    MeshCache, Obstacle, Tessellation,
};
use armature_conservative_advance::Other;
use armature_kinematics::{JointType, UrdfOptions};
use glam::{DAffine3, DVec3};

use crate::Error;

/// The distance threshold of a scene that sets none: two pieces closer than
/// this (in the model's units, metres for URDF) are in contact.
pub const DEFAULT_DISTANCE_THRESHOLD: f64 = 1e-4;

/// One body of a scene: its name and where its links and joint values sit
/// in the combined tree and configuration vector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BodyInfo {
    /// The body's name (the prefix of its link names).
    pub name: String,
    /// Its links' indices in [`Scene::body`]'s tree.
    pub links: Range<usize>,
    /// Its values in a configuration vector.
    pub q: Range<usize>,
}

/// One movable joint, as [`Scene::joints`] lists them.
#[derive(Clone, Debug, PartialEq)]
pub struct JointInfo {
    /// The body it belongs to.
    pub body: String,
    /// The joint's name, prefixed with the body (`puma/joint1`).
    pub name: String,
    /// The link it moves, prefixed with the body.
    pub link: String,
    /// The joint type (`revolute`, `prismatic`, `spherical`, …).
    pub kind: &'static str,
    /// Its values in a configuration vector.
    pub q: Range<usize>,
    /// Lower and upper limit of a one-value joint, if limited.
    pub limits: Option<(f64, f64)>,
}

/// What a [`LoadWarning`] is about.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WarningSubject {
    /// An obstacle, by name.
    Obstacle(String),
    /// A link, by its scene name (`body/link`).
    Link(String),
}

impl std::fmt::Display for WarningSubject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Obstacle(name) => write!(f, "obstacle `{name}`"),
            Self::Link(name) => write!(f, "link `{name}`"),
        }
    }
}

/// What kind of probable mistake a [`LoadWarning`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LoadWarningKind {
    /// Degenerate triangles (zero area, two corners at one position or
    /// one index twice) in the subject's mesh files, left out of its mesh;
    /// the count is the number of triangles.
    DroppedDegenerateTriangles,
}

/// Input a scene loaded but that is probably a mistake (see
/// [`Scene::warnings`]). Its [`Display`](std::fmt::Display) form is one
/// line, e.g. ``obstacle `pipes`: 12 degenerate triangles dropped``.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadWarning {
    /// The obstacle or link concerned.
    pub what: WarningSubject,
    /// What is wrong.
    pub kind: LoadWarningKind,
    /// How many (triangles for
    /// [`LoadWarningKind::DroppedDegenerateTriangles`]); never 0.
    pub count: usize,
}

impl std::fmt::Display for LoadWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            LoadWarningKind::DroppedDegenerateTriangles => write!(
                f,
                "{}: {} degenerate triangle{} dropped",
                self.what,
                self.count,
                if self.count == 1 { "" } else { "s" }
            ),
        }
    }
}

/// The name of a joint type, as [`JointInfo::kind`] prints it.
fn joint_kind(kind: &JointType) -> &'static str {
    match kind {
        JointType::Fixed => "fixed",
        JointType::Revolute { .. } => "revolute",
        JointType::Continuous { .. } => "continuous",
        JointType::Prismatic { .. } => "prismatic",
        JointType::Spherical => "spherical",
        JointType::Floating => "floating",
        JointType::Planar { .. } => "planar",
        JointType::Vehicle => "vehicle",
        JointType::OmniVehicle => "omni-vehicle",
        JointType::OrientationUncertain { .. } => "orientation-uncertain",
        JointType::LocationUncertain { .. } => "location-uncertain",
        _ => "other",
    }
}

/// Bodies, obstacles and test settings (see the [module docs](self)).
/// Cheap to clone (geometry is shared) and `Send + Sync`.
#[derive(Clone, Debug)]
pub struct Scene {
    body: Arc<ArticulatedBody>,
    bodies: Vec<BodyInfo>,
    obstacles: Arc<[Obstacle]>,
    disabled: DisabledPairs,
    /// The pair rules of the continuous queries (adjacent and rigidly
    /// attached links, disabled pairs, links without geometry).
    rules: Arc<DynamicLinkHierarchy>,
    self_collision: bool,
    skip_adjacent: bool,
    distance_threshold: f64,
    source: Option<PathBuf>,
    warnings: Vec<LoadWarning>,
    /// The GPU devices of stage 2, shared by clones and threads.
    gpu: Arc<crate::culling::GpuCache>,
}

impl Scene {
    /// The GPU devices of stage 2 (built on first use).
    pub(crate) fn gpu_cache(&self) -> &crate::culling::GpuCache {
        &self.gpu
    }

    /// A builder for a scene from code.
    #[must_use]
    pub fn builder() -> SceneBuilder {
        SceneBuilder::default()
    }

    /// Reads a scene file (RON, docs/cli.md; paths relative to the file).
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read; [`Error::SceneSyntax`]
    /// for malformed RON, unknown or missing fields; [`Error::SceneField`]
    /// naming the field for values the scene rejects (a URDF or mesh that
    /// does not load, a rotation that is not a unit quaternion, an unknown
    /// name in `disabled_pairs`).
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, Error> {
        crate::scene_file::load(path.as_ref(), &mut |_| {})
    }

    /// Reads a scene from RON text; relative paths are joined to `dir`.
    ///
    /// # Errors
    /// As [`Scene::from_file`], with `<text>` in place of the file name.
    pub fn from_ron_str(text: &str, dir: &Path) -> Result<Self, Error> {
        crate::scene_file::parse(text, dir, Path::new("<text>"), &mut |_| {})
    }

    /// All bodies combined into one articulated body (several roots).
    #[must_use]
    pub fn body(&self) -> &ArticulatedBody {
        &self.body
    }

    /// The bodies, in configuration order.
    #[must_use]
    pub fn bodies(&self) -> &[BodyInfo] {
        &self.bodies
    }

    /// The obstacles.
    #[must_use]
    pub fn obstacles(&self) -> &[Obstacle] {
        &self.obstacles
    }

    /// The pairs never tested.
    #[must_use]
    pub const fn disabled_pairs(&self) -> &DisabledPairs {
        &self.disabled
    }

    /// Whether non-adjacent links of the bodies are tested against each
    /// other (and the bodies against each other).
    #[must_use]
    pub const fn self_collision(&self) -> bool {
        self.self_collision
    }

    /// Whether adjacent links (a parent and its child, or two rigid groups
    /// joined by one movable joint) are skipped; see the
    /// [module docs](self).
    #[must_use]
    pub const fn skip_adjacent(&self) -> bool {
        self.skip_adjacent
    }

    /// The distance below which two pieces are in contact.
    #[must_use]
    pub const fn distance_threshold(&self) -> f64 {
        self.distance_threshold
    }

    /// Input that loaded but is probably a mistake: per link (in tree
    /// order), then per obstacle (in order), the degenerate triangles
    /// their mesh files held and loading left out. Empty for a clean
    /// scene; bodies and obstacles built from code report nothing.
    #[must_use]
    pub fn warnings(&self) -> &[LoadWarning] {
        &self.warnings
    }

    /// The scene file this scene was read from, if any.
    #[must_use]
    pub fn source(&self) -> Option<&Path> {
        self.source.as_deref()
    }

    /// Number of values in a configuration vector.
    #[must_use]
    pub fn nq(&self) -> usize {
        self.body.tree().nq()
    }

    /// Degrees of freedom (tangent dimension; a spherical joint counts 3).
    #[must_use]
    pub fn dof(&self) -> usize {
        self.body.tree().dof()
    }

    /// Number of links of all bodies.
    #[must_use]
    pub fn num_links(&self) -> usize {
        self.body.tree().len()
    }

    /// Triangles of the bodies' links.
    #[must_use]
    pub fn num_link_triangles(&self) -> usize {
        self.body
            .links()
            .iter()
            .flatten()
            .map(|g| g.mesh.num_triangles())
            .sum()
    }

    /// Triangles of the obstacles.
    #[must_use]
    pub fn num_obstacle_triangles(&self) -> usize {
        self.obstacles
            .iter()
            .map(|o| o.geometry().mesh.num_triangles())
            .sum()
    }

    /// The movable joints in configuration order.
    #[must_use]
    pub fn joints(&self) -> Vec<JointInfo> {
        let tree = self.body.tree();
        let mut out = Vec::new();
        for b in &self.bodies {
            for i in b.links.clone() {
                let link = &tree.links()[i];
                let q = tree.q_range(i);
                if q.is_empty() {
                    continue;
                }
                let joint = link.joint();
                out.push(JointInfo {
                    body: b.name.clone(),
                    name: joint.name.clone(),
                    link: link.name().to_owned(),
                    kind: joint_kind(&joint.kind),
                    q,
                    limits: joint.limits.map(|l| (l.lower, l.upper)),
                });
            }
        }
        out
    }

    /// Whether links `a` and `b` are tested against each other: both have
    /// geometry, self-collision is on, they are not joined by fixed joints
    /// only, not adjacent (unless [`Scene::skip_adjacent`] is off), and not
    /// a disabled pair — the rules of every query (see the
    /// [module docs](self)).
    #[must_use]
    pub fn link_pair_allowed(&self, a: usize, b: usize) -> bool {
        self.rules.link_pair_allowed(a, b)
    }

    /// Whether `link` is tested against obstacle `obstacle`.
    #[must_use]
    pub fn obstacle_pair_allowed(&self, link: usize, obstacle: usize) -> bool {
        obstacle < self.obstacles.len() && self.rules.obstacle_pair_allowed(link, obstacle)
    }

    /// The name of link `i` (`body/link`), or `None` out of range.
    #[must_use]
    pub fn link_name(&self, i: usize) -> Option<&str> {
        self.body.tree().links().get(i).map(|l| l.name())
    }

    /// The name of the other member of a pair: a link or an obstacle.
    #[must_use]
    pub fn other_name(&self, other: Other) -> Option<&str> {
        match other {
            Other::Link(i) => self.link_name(i),
            Other::Obstacle(i) => self.obstacles.get(i).map(Obstacle::name),
        }
    }

    /// Checks a configuration's length and values; `which` names it in
    /// the error (`q0`, `queries[3].q1`).
    ///
    /// # Errors
    /// [`Error::Configuration`] for a wrong length (with the expected count
    /// per body) or a value that is not finite (with its index and joint).
    pub fn check_configuration(&self, which: &str, q: &[f64]) -> Result<(), Error> {
        self.check_configuration_named(|| which.to_owned(), q)
    }

    /// [`Scene::check_configuration`] with the name made only for an
    /// error (a planner checks many short paths, and formatting each
    /// waypoint's name was most of the check's cost).
    pub(crate) fn check_configuration_named(
        &self,
        which: impl FnOnce() -> String,
        q: &[f64],
    ) -> Result<(), Error> {
        if q.len() != self.nq() {
            let per_body = self
                .bodies
                .iter()
                .map(|b| format!("{}: {}", b.name, b.q.len()))
                .collect::<Vec<_>>()
                .join(", ");
            return Err(Error::Configuration {
                which: which(),
                message: format!(
                    "expected {} values ({per_body}), got {}",
                    self.nq(),
                    q.len()
                ),
            });
        }
        if let Some(k) = q.iter().position(|v| !v.is_finite()) {
            let joint = self
                .joints()
                .into_iter()
                .find(|j| j.q.contains(&k))
                .map_or_else(String::new, |j| format!(" (joint `{}`)", j.name));
            return Err(Error::Configuration {
                which: which(),
                message: format!("value {k}{joint} is {}, not a finite number", q[k]),
            });
        }
        Ok(())
    }

    /// Parses a comma-separated configuration (radians, metres) in the
    /// order of [`Scene::joints`], and checks it.
    ///
    /// # Errors
    /// [`Error::Configuration`] for a value that is not a number, and as
    /// [`Scene::check_configuration`].
    pub fn parse_configuration(&self, which: &str, text: &str) -> Result<Vec<f64>, Error> {
        let text = text.trim();
        let q = if text.is_empty() {
            Vec::new()
        } else {
            text.split(',')
                .enumerate()
                .map(|(k, s)| {
                    s.trim().parse::<f64>().map_err(|_| Error::Configuration {
                        which: which.to_owned(),
                        message: format!("value {k} `{}` is not a number", s.trim()),
                    })
                })
                .collect::<Result<Vec<_>, _>>()?
        };
        self.check_configuration(which, &q)?;
        Ok(q)
    }
}

/// One body waiting in a [`SceneBuilder`].
#[derive(Debug)]
struct PendingBody {
    body: ArticulatedBody,
    base: DAffine3,
    /// Where it came from, for errors (`bodies[0]`).
    field: String,
}

/// Builds a [`Scene`] from code (see the [module docs](self)).
#[derive(Debug)]
pub struct SceneBuilder {
    bodies: Vec<PendingBody>,
    obstacles: Vec<Obstacle>,
    disabled: Vec<(String, String)>,
    self_collision: bool,
    skip_adjacent: bool,
    distance_threshold: f64,
    source: Option<PathBuf>,
    /// Mesh files and geometry loaded so far, shared by what uses them.
    cache: MeshCache,
    /// Per obstacle: degenerate triangles its mesh file lost.
    obstacle_dropped: Vec<usize>,
}

impl Default for SceneBuilder {
    fn default() -> Self {
        Self {
            bodies: Vec::new(),
            obstacles: Vec::new(),
            disabled: Vec::new(),
            self_collision: true,
            skip_adjacent: true,
            distance_threshold: DEFAULT_DISTANCE_THRESHOLD,
            source: None,
            cache: MeshCache::new(),
            obstacle_dropped: Vec::new(),
        }
    }
}

/// The field name of an error in a scene file or builder.
fn field_error(file: Option<&Path>, field: &str, message: impl ToString) -> Error {
    Error::SceneField {
        file: file.map(Path::to_path_buf),
        field: field.to_owned(),
        message: message.to_string(),
    }
}

impl SceneBuilder {
    /// Adds a body at its base pose (world frame of its root links). The
    /// body's name prefixes its links.
    #[must_use]
    pub fn body(mut self, body: ArticulatedBody, base: DAffine3) -> Self {
        let field = format!("bodies[{}]", self.bodies.len());
        self.bodies.push(PendingBody { body, base, field });
        self
    }

    /// Adds a body read from a URDF file and its meshes (relative mesh
    /// paths from the URDF's folder, `package://` by `options`), named
    /// `name`, at `base`. Mesh files the scene already loaded (for another
    /// body or an obstacle) are not read again, and links on the same
    /// mesh files share their geometry.
    ///
    /// # Errors
    /// [`Error::SceneField`] (`bodies[i].urdf`) wrapping the loader's
    /// error, which names the file, link and mesh.
    pub fn urdf_body(
        mut self,
        name: &str,
        path: impl AsRef<Path>,
        options: &UrdfOptions,
        base: DAffine3,
    ) -> Result<Self, Error> {
        let body = self.load_urdf(path.as_ref(), options)?;
        Ok(self.body(body.with_name(name), base))
    }

    /// The body of a URDF file, loaded through the builder's mesh cache
    /// as [`SceneBuilder::urdf_body`] loads it, not yet added (the scene
    /// file mounts a mobile base on it first).
    ///
    /// # Errors
    /// As [`SceneBuilder::urdf_body`], naming the next body's field.
    pub(crate) fn load_urdf(
        &mut self,
        path: &Path,
        options: &UrdfOptions,
    ) -> Result<ArticulatedBody, Error> {
        let field = format!("bodies[{}].urdf", self.bodies.len());
        ArticulatedBody::from_urdf_file_cached(
            path,
            options,
            &Tessellation::default(),
            &mut self.cache,
        )
        .map_err(|e| field_error(self.source.as_deref(), &field, e))
    }

    /// Adds an obstacle.
    #[must_use]
    pub fn obstacle(mut self, obstacle: Obstacle) -> Self {
        self.obstacles.push(obstacle);
        self.obstacle_dropped.push(0);
        self
    }

    /// Adds a static obstacle from a mesh file (STL or OBJ), scaled by
    /// `scale` about its origin, at `pose`. A negative scale mirrors the
    /// mesh (its triangles' winding is reversed, so a closed mesh stays
    /// outward-oriented). The file is loaded and its geometry built once
    /// per file and scale: obstacles on the same file and scale share one
    /// geometry ([`Obstacle::shared_geometry`]).
    ///
    /// # Errors
    /// [`Error::SceneField`] (`obstacles[i].mesh` or `.scale`) naming the
    /// file and the loader's reason; `.scale` for a zero or non-finite
    /// scale.
    pub fn mesh_obstacle(
        mut self,
        name: &str,
        path: impl AsRef<Path>,
        scale: f64,
        pose: DAffine3,
    ) -> Result<Self, Error> {
        let field = format!("obstacles[{}]", self.obstacles.len());
        let file = self.source.clone();
        let err = |sub: &str, e: &dyn std::fmt::Display| {
            field_error(file.as_deref(), &format!("{field}.{sub}"), e)
        };
        if !(scale.is_finite() && scale != 0.0) {
            return Err(err("scale", &format!("{scale} is not finite and non-zero")));
        }
        let shared = self
            .cache
            .geometry(name, path.as_ref(), DVec3::splat(scale))
            .map_err(|e| match e {
                // Scaling overflowed a coordinate.
                GeometryError::NonFiniteVertex { .. } => err("scale", &e),
                e => err("mesh", &e),
            })?;
        let o = Obstacle::fixed_shared(name, shared.geometry, pose);
        let mut b = self.obstacle(o);
        if let Some(d) = b.obstacle_dropped.last_mut() {
            *d = shared.dropped_triangles;
        }
        Ok(b)
    }

    /// Never tests the pair `a`–`b`: each a link (`body/link`) or an
    /// obstacle name (checked by [`SceneBuilder::build`]; a name that is
    /// both a link and an obstacle is rejected there).
    #[must_use]
    pub fn disable_pair(mut self, a: impl Into<String>, b: impl Into<String>) -> Self {
        self.disabled.push((a.into(), b.into()));
        self
    }

    /// Whether non-adjacent links are tested against each other (default
    /// on).
    #[must_use]
    pub const fn self_collision(mut self, on: bool) -> Self {
        self.self_collision = on;
        self
    }

    /// Whether adjacent links are skipped (default on): a parent and its
    /// child, and links of two rigid groups (links joined by fixed joints)
    /// joined by one movable joint. Off, such pairs are tested too, so
    /// links that meet at their shared joint collide; links of one rigid
    /// group are never tested either way. See the [module docs](self).
    #[must_use]
    pub const fn skip_adjacent(mut self, on: bool) -> Self {
        self.skip_adjacent = on;
        self
    }

    /// The distance below which two pieces are in contact (default
    /// [`DEFAULT_DISTANCE_THRESHOLD`]).
    #[must_use]
    pub const fn distance_threshold(mut self, threshold: f64) -> Self {
        self.distance_threshold = threshold;
        self
    }

    /// Records the file the scene comes from (errors name it).
    #[must_use]
    pub(crate) fn source(mut self, file: &Path) -> Self {
        self.source = Some(file.to_path_buf());
        self
    }

    /// The scene.
    ///
    /// # Errors
    /// [`Error::SceneField`]: no body (`bodies`), two bodies of one name or
    /// a base that is not a rigid pose (`bodies[i]`), duplicate obstacle
    /// names (`obstacles[i].name`), an unknown name in `disabled_pairs[i]`
    /// or one that is both a link and an obstacle, a threshold that is not finite and positive
    /// (`distance_threshold`).
    pub fn build(self) -> Result<Scene, Error> {
        let file = self.source.as_deref();
        if self.bodies.is_empty() {
            return Err(field_error(
                file,
                "bodies",
                "a scene needs at least one body",
            ));
        }
        let t = self.distance_threshold;
        if !(t.is_finite() && t > 0.0) {
            return Err(field_error(
                file,
                "distance_threshold",
                format!("{t} is not finite and positive"),
            ));
        }
        for (i, b) in self.bodies.iter().enumerate() {
            check_name("body", b.body.name()).map_err(|m| field_error(file, &b.field, m))?;
            if let Some(j) = self.bodies[..i]
                .iter()
                .position(|p| p.body.name() == b.body.name())
            {
                return Err(field_error(
                    file,
                    &b.field,
                    format!("body name `{}` is also body {j}'s", b.body.name()),
                ));
            }
            check_rigid(&b.base).map_err(|m| field_error(file, &format!("{}.base", b.field), m))?;
        }
        let mut seen = std::collections::HashSet::with_capacity(self.obstacles.len());
        for (i, o) in self.obstacles.iter().enumerate() {
            check_name("obstacle", o.name())
                .map_err(|m| field_error(file, &format!("obstacles[{i}].name"), m))?;
            if !seen.insert(o.name()) {
                return Err(field_error(
                    file,
                    &format!("obstacles[{i}].name"),
                    format!("obstacle name `{}` is used twice", o.name()),
                ));
            }
        }
        let parts: Vec<(&ArticulatedBody, DAffine3)> =
            self.bodies.iter().map(|b| (&b.body, b.base)).collect();
        let name = self
            .bodies
            .iter()
            .map(|b| b.body.name())
            .collect::<Vec<_>>()
            .join("+");
        let body =
            ArticulatedBody::combine(name, &parts).map_err(|e| field_error(file, "bodies", e))?;
        let mut bodies = Vec::with_capacity(self.bodies.len());
        let (mut link, mut q) = (0, 0);
        for b in &self.bodies {
            let tree = b.body.tree();
            bodies.push(BodyInfo {
                name: b.body.name().to_owned(),
                links: link..link + tree.len(),
                q: q..q + tree.nq(),
            });
            link += tree.len();
            q += tree.nq();
        }
        let names: Vec<&str> = self.obstacles.iter().map(Obstacle::name).collect();
        let mut disabled = DisabledPairs::new();
        for (i, (a, b)) in self.disabled.iter().enumerate() {
            disabled
                .disable_named(body.tree(), &names, a, b)
                .map_err(|e| field_error(file, &format!("disabled_pairs[{i}]"), e))?;
        }
        let rules = body
            .dynamic_hierarchy(
                DynamicHierarchyOptions::default()
                    .with_self_collision(self.self_collision)
                    .with_skip_adjacent(self.skip_adjacent),
            )
            .map_err(|e| field_error(file, "bodies", e))?
            .with_disabled(disabled.clone());
        let link_warnings = body
            .dropped_triangles()
            .iter()
            .zip(body.tree().links())
            .map(|(&count, l)| (WarningSubject::Link(l.name().to_owned()), count));
        let obstacle_warnings = self
            .obstacle_dropped
            .iter()
            .zip(self.obstacles.iter())
            .map(|(&count, o)| (WarningSubject::Obstacle(o.name().to_owned()), count));
        let warnings = link_warnings
            .chain(obstacle_warnings)
            .filter(|&(_, count)| count > 0)
            .map(|(what, count)| LoadWarning {
                what,
                kind: LoadWarningKind::DroppedDegenerateTriangles,
                count,
            })
            .collect();
        Ok(Scene {
            body: Arc::new(body),
            bodies,
            obstacles: self.obstacles.into(),
            rules: Arc::new(rules),
            disabled,
            self_collision: self.self_collision,
            skip_adjacent: self.skip_adjacent,
            distance_threshold: t,
            source: self.source,
            warnings,
            gpu: Arc::default(),
        })
    }
}

/// Why `name` (of a body or an obstacle) cannot name pair members: empty,
/// or with the `/` that separates a body from its link.
fn check_name(what: &str, name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err(format!("{what} name is empty"));
    }
    if name.contains('/') {
        return Err(format!(
            "{what} name `{name}` contains `/`, which separates a body from its link in pair names"
        ));
    }
    Ok(())
}

/// Whether `m` is a finite rigid pose (rotation + translation).
fn check_rigid(m: &DAffine3) -> Result<(), String> {
    if !m.is_finite() {
        return Err("pose is not finite".to_owned());
    }
    let r = m.matrix3;
    let e = (r.transpose() * r - glam::DMat3::IDENTITY)
        .to_cols_array()
        .iter()
        .fold(0.0_f64, |m, v| m.max(v.abs()));
    if e.is_nan() || e > 1e-9 || r.determinant() < 0.0 {
        return Err("pose's linear part is not a rotation".to_owned());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use armature_bvh_geometry::TriMesh;
    use armature_kinematics::{Joint, KinematicTree, LinkSpec};

    fn cube(s: f64) -> Arc<TriMesh> {
        Arc::new(Tessellation::default().cuboid(DVec3::splat(s)).unwrap())
    }

    fn arm(name: &str) -> ArticulatedBody {
        let tree = KinematicTree::new(vec![
            LinkSpec::new("base", None),
            LinkSpec::new("a", Some("base")).with_joint(Joint::revolute("j1", DVec3::Z, -3.0, 3.0)),
            LinkSpec::new("b", Some("a"))
                .with_joint(Joint::revolute("j2", DVec3::Y, -3.0, 3.0))
                .with_origin(DAffine3::from_translation(DVec3::Z)),
        ])
        .unwrap();
        ArticulatedBody::new(name, tree, vec![Some(cube(0.2)), Some(cube(0.1)), None]).unwrap()
    }

    #[test]
    fn two_bodies_share_one_configuration() {
        let scene = Scene::builder()
            .body(arm("left"), DAffine3::IDENTITY)
            .body(arm("right"), DAffine3::from_translation(DVec3::X * 3.0))
            .disable_pair("left/b", "right/b")
            .build()
            .unwrap();
        assert_eq!(scene.nq(), 4);
        let joints = scene.joints();
        let names: Vec<&str> = joints.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(names, ["left/j1", "left/j2", "right/j1", "right/j2"]);
        assert_eq!(joints[3].q, 3..4);
        assert_eq!(scene.bodies()[1].links, 3..6);
        assert_eq!(scene.num_link_triangles(), 4 * 12);
        let b = scene.body().tree();
        assert!(scene.disabled_pairs().links_disabled(
            b.link_index("left/b").unwrap(),
            b.link_index("right/b").unwrap()
        ));
    }

    #[test]
    fn skip_adjacent_is_an_option_of_the_scene() {
        let on = Scene::builder()
            .body(arm("bot"), DAffine3::IDENTITY)
            .build()
            .unwrap();
        assert!(on.skip_adjacent());
        // base–a is parent and child; b has no geometry.
        assert!(!on.link_pair_allowed(0, 1));
        let off = Scene::builder()
            .body(arm("bot"), DAffine3::IDENTITY)
            .skip_adjacent(false)
            .build()
            .unwrap();
        assert!(!off.skip_adjacent());
        assert!(off.link_pair_allowed(0, 1));
        assert!(!off.link_pair_allowed(1, 2));
    }

    #[test]
    fn an_obstacle_named_like_a_link_is_rejected() {
        // `bot/a` would be both a link and an obstacle in pair names, used
        // in a disabled pair or not.
        for disable in [false, true] {
            let mut b = Scene::builder()
                .body(arm("bot"), DAffine3::IDENTITY)
                .obstacle(Obstacle::fixed("bot/a", cube(0.1), DAffine3::IDENTITY).unwrap());
            if disable {
                b = b.disable_pair("bot/base", "bot/a");
            }
            let e = b.build().unwrap_err();
            assert!(
                matches!(&e, Error::SceneField { field, message, .. }
                    if field == "obstacles[0].name" && message.contains("`bot/a` contains `/`")),
                "{e}"
            );
        }
    }

    #[test]
    fn empty_names_and_slashes_are_rejected() {
        let e = Scene::builder()
            .body(arm(""), DAffine3::IDENTITY)
            .build()
            .unwrap_err();
        assert!(
            matches!(&e, Error::SceneField { field, message, .. }
                if field == "bodies[0]" && message.contains("body name is empty")),
            "{e}"
        );
        let e = Scene::builder()
            .body(arm("left"), DAffine3::IDENTITY)
            .body(arm("a/b"), DAffine3::IDENTITY)
            .build()
            .unwrap_err();
        assert!(
            matches!(&e, Error::SceneField { field, message, .. }
                if field == "bodies[1]" && message.contains("`a/b` contains `/`")),
            "{e}"
        );
        let e = Scene::builder()
            .body(arm("bot"), DAffine3::IDENTITY)
            .obstacle(Obstacle::fixed("wall", cube(0.1), DAffine3::IDENTITY).unwrap())
            .obstacle(Obstacle::fixed("", cube(0.1), DAffine3::IDENTITY).unwrap())
            .build()
            .unwrap_err();
        assert!(
            matches!(&e, Error::SceneField { field, message, .. }
                if field == "obstacles[1].name" && message.contains("obstacle name is empty")),
            "{e}"
        );
        // A name shared by a body and an obstacle is not ambiguous: links
        // are always `body/link`.
        let ok = Scene::builder()
            .body(arm("bot"), DAffine3::IDENTITY)
            .obstacle(Obstacle::fixed("bot", cube(0.1), DAffine3::IDENTITY).unwrap())
            .build();
        assert!(ok.is_ok(), "{ok:?}");
        // Duplicate obstacle names stay an error.
        let e = Scene::builder()
            .body(arm("bot"), DAffine3::IDENTITY)
            .obstacle(Obstacle::fixed("wall", cube(0.1), DAffine3::IDENTITY).unwrap())
            .obstacle(Obstacle::fixed("wall", cube(0.1), DAffine3::IDENTITY).unwrap())
            .build()
            .unwrap_err();
        assert!(
            matches!(&e, Error::SceneField { field, .. } if field == "obstacles[1].name"),
            "{e}"
        );
    }

    #[test]
    fn configurations_are_checked_and_named() {
        let scene = Scene::builder()
            .body(arm("bot"), DAffine3::IDENTITY)
            .build()
            .unwrap();
        assert_eq!(
            scene.parse_configuration("q0", " 0.5, -1").unwrap(),
            [0.5, -1.0]
        );
        let e = scene.parse_configuration("q0", "0.5").unwrap_err();
        assert!(
            e.to_string().contains("expected 2 values (bot: 2), got 1"),
            "{e}"
        );
        let e = scene.parse_configuration("q1", "0.5, x").unwrap_err();
        assert!(e.to_string().contains("value 1 `x`"), "{e}");
        let e = scene.parse_configuration("q1", "NaN, 0").unwrap_err();
        assert!(e.to_string().contains("bot/j1"), "{e}");
    }

    #[test]
    fn bad_builders_name_the_field() {
        let e = Scene::builder().build().unwrap_err();
        assert!(matches!(e, Error::SceneField { ref field, .. } if field == "bodies"));
        let e = Scene::builder()
            .body(arm("bot"), DAffine3::IDENTITY)
            .body(arm("bot"), DAffine3::IDENTITY)
            .build()
            .unwrap_err();
        assert!(matches!(e, Error::SceneField { ref field, .. } if field == "bodies[1]"));
        let e = Scene::builder()
            .body(arm("bot"), DAffine3::IDENTITY)
            .disable_pair("bot/a", "nowhere")
            .build()
            .unwrap_err();
        assert!(
            matches!(e, Error::SceneField { ref field, .. } if field == "disabled_pairs[0]"),
            "{e}"
        );
        let e = Scene::builder()
            .body(arm("bot"), DAffine3::from_scale(DVec3::splat(2.0)))
            .build()
            .unwrap_err();
        assert!(matches!(e, Error::SceneField { ref field, .. } if field == "bodies[0].base"));
        let e = Scene::builder()
            .body(arm("bot"), DAffine3::IDENTITY)
            .distance_threshold(-1.0)
            .build()
            .unwrap_err();
        assert!(matches!(e, Error::SceneField { ref field, .. } if field == "distance_threshold"));
    }
}
