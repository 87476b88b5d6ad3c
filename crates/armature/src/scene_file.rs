//! # Scene files (RON)
//!
//! The scene-file form of docs/cli.md; paths are relative to the scene file, rotations
//! are unit quaternions `(x, y, z, w)`, every field not marked optional is
//! required, and a field the schema does not know is an error naming it.
//!
//! ```ron
//! Scene(
//!     bodies: [
//!         Body(name: "puma", urdf: "../robots/puma560/puma560.urdf",
//!              srdf: "../robots/puma560/puma560.srdf",
//!              base: Pose(translation: (0.0, 0.0, 0.0), rotation: (0.0, 0.0, 0.0, 1.0))),
//!         Body(name: "justin", urdf: "../robots/humanoid/humanoid.urdf",
//!              base: Pose(translation: (2.0, 0.0, 0.0), rotation: (0.0, 0.0, 0.0, 1.0)),
//!              mobile_base: MobileBase(vehicle: Omni, location_uncertainty: 0.02,
//!                                      orientation_uncertainty: 0.01)),
//!     ],
//!     obstacles: [
//!         Obstacle(name: "pipes", mesh: "pipes.obj", scale: 1.0,
//!                  pose: Pose(translation: (0.0, 0.0, 0.0), rotation: (0.0, 0.0, 0.0, 1.0))),
//!     ],
//!     disabled_pairs: [("puma/link2", "puma/link4")],
//!     self_collision: true,
//!     skip_adjacent: true,
//!     distance_threshold: 0.001,
//! )
//! ```
//!
//! | field | type | default |
//! |---|---|---|
//! | `bodies` | list of `Body` | required, at least one |
//! | `Body.name` | string | required; prefixes the body's link names |
//! | `Body.urdf` | path | required |
//! | `Body.base` | `Pose` | identity |
//! | `Body.packages` | list of `(name, path)` | none: `package://name/…` → `path/…` |
//! | `Body.package_root` | path | none: `package://name/…` → `root/name/…` |
//! | `Body.srdf` | path to a MoveIt SRDF file | none: its `<disable_collisions>` pairs join `disabled_pairs` (below) |
//! | `Body.mobile_base` | `MobileBase` | none: the body stands at `base`; see [Mobile bases](#mobile-bases) |
//! | `MobileBase.vehicle` | `Omni` (omnidirectional: φ, s, α) or `Differential` (s, α) | required |
//! | `MobileBase.location_uncertainty` | number ≥ 0, in the model's length unit: Δ, the largest distance between the measured and the true location | 0 |
//! | `MobileBase.orientation_uncertainty` | angle in [0, π], radians: β, the largest angle between the measured and the true orientation | 0 |
//! | `obstacles` | list of `Obstacle` | empty |
//! | `Obstacle.name` | string | required, unique |
//! | `Obstacle.mesh` | path (`.stl`, `.obj` or `.dae`) | required |
//! | `Obstacle.scale` | number ≠ 0 (negative mirrors) | 1.0 |
//! | `Obstacle.pose` | `Pose` | identity |
//! | `Pose.translation` | `(x, y, z)` | required |
//! | `Pose.rotation` | `(x, y, z, w)`, unit | required |
//! | `disabled_pairs` | list of `(a, b)`, each `body/link` or an obstacle; a name that is both is an error | empty |
//! | `self_collision` | bool | true |
//! | `skip_adjacent` | bool: skip adjacent links (parent and child, or two rigid groups joined by one movable joint) | true |
//! | `distance_threshold` | number > 0 | [`crate::scene::DEFAULT_DISTANCE_THRESHOLD`] |
//!
//! A *rigid group* is a link with a movable joint (or a root) and the links
//! hanging from it by fixed joints only; its links are never tested against
//! each other. With `skip_adjacent` (the default), a link is not tested
//! against its parent nor against the links of a group joined to its own
//! by one movable joint, so a URDF with geometry-less frames between its
//! links, or a tool welded below its last link, is free at rest; see
//! [`crate::scene`].
//!
//! URDF meshes may be STL, OBJ or COLLADA (`.dae`, placed by its visual
//! scene and scaled by its `<unit>`, its `<up_axis>` ignored as RViz and
//! MoveIt do; see `armature_bvh_geometry::io`).
//!
//! ## Mobile bases
//!
//! `Body.mobile_base` puts the body on M3's mobile base (§III-C,
//! docs/architecture.md): three links without geometry are inserted
//! between the world and the URDF's root link (the platform), each with
//! the joint of its name:
//!
//! | link and joint | joint kind | values |
//! |---|---|---|
//! | `body/location` | location with uncertainty Δ (`location_uncertainty`), placed at `base` | 3: the measured x, y, z, in `base`'s frame |
//! | `body/orientation` | orientation with uncertainty β (`orientation_uncertainty`) | 4: the measured quaternion x, y, z, w |
//! | `body/vehicle` | omni-vehicle (`Omni`) or vehicle (`Differential`) | 3 (φ, s, α) or 2 (s, α): the braking arc in the x–y plane |
//!
//! so the platform's pose is `base · T(location) · R(orientation) ·
//! vehicle_transform(φ, s, α)`, and the body's configuration values are
//! these joints' (location, orientation, vehicle) followed by the URDF's
//! joints. The neutral configuration (zeros, the identity quaternion)
//! leaves the platform at `base`. Zero uncertainties are allowed: the
//! joints then only place the body. A value that is negative, not finite,
//! or (orientation) above π, and a vehicle other than `Omni` and
//! `Differential`, are errors naming the field
//! (`bodies[i].mobile_base.location_uncertainty`); a URDF link called
//! `location`, `orientation` or `vehicle` is an error of
//! `bodies[i].mobile_base`.
//!
//! ## SRDF files
//!
//! `Body.srdf` names the SRDF file of a MoveIt configuration package. Each
//! of its `<disable_collisions link1="a" link2="b" reason="…"/>` entries
//! disables the pair `body/a`–`body/b` exactly as an entry of
//! `disabled_pairs` would (so [`crate::Scene::disabled_pairs`] lists it),
//! whatever its `reason`. Both links must be links of the body's URDF (a
//! link without collision geometry is fine: the pair then has nothing to
//! test); a link the URDF does not have is an error naming the SRDF file,
//! its line, the entry and the link, as are an unreadable file and
//! malformed XML (with its line). The SRDF's other elements (groups,
//! group states, virtual joints, end effectors, passive joints, sphere
//! approximations) are ignored.

use std::path::{Path, PathBuf};

use armature_kinematics::{Joint, JointType, LinkSpec, UrdfModel, UrdfOptions};
use glam::{DAffine3, DQuat, DVec3};
use serde::Deserialize;

use crate::{Error, Scene};

/// How far from 1 a quaternion's norm may be (it is then normalised).
const UNIT_TOLERANCE: f64 = 1e-6;

#[derive(Debug, Deserialize)]
#[serde(rename = "Scene", deny_unknown_fields)]
struct SceneFile {
    bodies: Vec<BodyFile>,
    #[serde(default)]
    obstacles: Vec<ObstacleFile>,
    #[serde(default)]
    disabled_pairs: Vec<(String, String)>,
    #[serde(default = "yes")]
    self_collision: bool,
    #[serde(default = "yes")]
    skip_adjacent: bool,
    #[serde(default)]
    distance_threshold: Option<f64>,
}

const fn yes() -> bool {
    true
}

const fn one() -> f64 {
    1.0
}

#[derive(Debug, Deserialize)]
#[serde(rename = "Body", deny_unknown_fields)]
struct BodyFile {
    name: String,
    urdf: PathBuf,
    #[serde(default)]
    base: Option<PoseFile>,
    #[serde(default)]
    packages: Vec<(String, PathBuf)>,
    #[serde(default)]
    package_root: Option<PathBuf>,
    #[serde(default)]
    srdf: Option<PathBuf>,
    #[serde(default)]
    mobile_base: Option<MobileBaseFile>,
}

/// The links a mobile base inserts above the platform, in tree order; each
/// link's joint has its name.
const LOCATION: &str = "location";
const ORIENTATION: &str = "orientation";
const VEHICLE: &str = "vehicle";

#[derive(Debug, Deserialize)]
#[serde(rename = "MobileBase", deny_unknown_fields)]
struct MobileBaseFile {
    vehicle: Identifier,
    #[serde(default)]
    location_uncertainty: f64,
    #[serde(default)]
    orientation_uncertainty: f64,
}

/// A bare identifier (`Omni`), read as written and checked after parsing,
/// so that an unknown one is an error naming its field and index rather
/// than the parser's "unexpected variant".
#[derive(Debug)]
struct Identifier(String);

impl<'de> Deserialize<'de> for Identifier {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Identifier;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an identifier")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Identifier, E> {
                Ok(Identifier(v.to_owned()))
            }
        }
        d.deserialize_identifier(Visitor)
    }
}

impl MobileBaseFile {
    /// The location, orientation and vehicle links (the module docs'
    /// *Mobile bases*), or what is wrong and in which sub-field.
    fn base_links(&self) -> Result<Vec<LinkSpec>, (&'static str, String)> {
        let vehicle = match self.vehicle.0.as_str() {
            "Omni" => JointType::OmniVehicle,
            "Differential" => JointType::Vehicle,
            other => {
                return Err((
                    "vehicle",
                    format!(
                        "unknown vehicle `{other}`; expected `Omni` (values φ, s, α) or `Differential` (s, α)"
                    ),
                ));
            }
        };
        let delta = self.location_uncertainty;
        if !(delta.is_finite() && delta >= 0.0) {
            return Err((
                "location_uncertainty",
                format!("{delta} is not a finite distance ≥ 0"),
            ));
        }
        let beta = self.orientation_uncertainty;
        if !(beta.is_finite() && (0.0..=core::f64::consts::PI).contains(&beta)) {
            return Err((
                "orientation_uncertainty",
                format!("{beta} is not an angle in [0, π] (radians)"),
            ));
        }
        let link = |name: &str, parent, kind| {
            LinkSpec::new(name, parent).with_joint(Joint::new(name, kind))
        };
        Ok(vec![
            link(LOCATION, None, JointType::LocationUncertain { delta }),
            link(
                ORIENTATION,
                Some(LOCATION),
                JointType::OrientationUncertain { beta },
            ),
            link(VEHICLE, Some(ORIENTATION), vehicle),
        ])
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename = "Obstacle", deny_unknown_fields)]
struct ObstacleFile {
    name: String,
    mesh: PathBuf,
    #[serde(default = "one")]
    scale: f64,
    #[serde(default)]
    pose: Option<PoseFile>,
}

#[derive(Debug, Deserialize)]
#[serde(rename = "Pose", deny_unknown_fields)]
struct PoseFile {
    translation: (f64, f64, f64),
    rotation: (f64, f64, f64, f64),
}

impl PoseFile {
    /// The rigid pose, or what is wrong with it and in which sub-field.
    fn pose(&self) -> Result<DAffine3, (&'static str, String)> {
        let (x, y, z) = self.translation;
        let t = DVec3::new(x, y, z);
        if !t.is_finite() {
            return Err(("translation", format!("{t} is not finite")));
        }
        let (x, y, z, w) = self.rotation;
        let q = DQuat::from_xyzw(x, y, z, w);
        let n = q.length();
        if !q.is_finite() || (n - 1.0).abs() > UNIT_TOLERANCE {
            return Err((
                "rotation",
                format!("({x}, {y}, {z}, {w}) is not a unit quaternion (x, y, z, w); norm {n}"),
            ));
        }
        Ok(DAffine3::from_rotation_translation(q / n, t))
    }
}

/// Where the loading of a scene file stands, for progress displays
/// ([`Scene::from_file_with_progress`]). A scene loads in steps: one per
/// body (its URDF and meshes), one per obstacle (its mesh and
/// hierarchies), and the final assembly.
#[derive(Clone, Copy, Debug)]
pub struct LoadProgress<'a> {
    /// Steps finished.
    pub done: usize,
    /// Steps in all.
    pub total: usize,
    /// The step under way (`obstacle "floor" (floor.obj)`); empty once
    /// every step is done.
    pub current: &'a str,
}

impl Scene {
    /// As [`Scene::from_file`], calling `progress` before each step of
    /// the load and once at the end, so that a caller can show how far a
    /// long load (meshes of millions of triangles, hundreds of obstacles)
    /// has come.
    ///
    /// # Errors
    /// As [`Scene::from_file`].
    pub fn from_file_with_progress(
        path: impl AsRef<Path>,
        progress: &mut dyn FnMut(LoadProgress<'_>),
    ) -> Result<Self, Error> {
        load(path.as_ref(), progress)
    }
}

/// Reads and parses a scene file.
pub(crate) fn load(
    path: &Path,
    progress: &mut dyn FnMut(LoadProgress<'_>),
) -> Result<Scene, Error> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        file: path.to_path_buf(),
        source,
    })?;
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    parse(&text, dir, path, progress)
}

/// Parses scene text; relative paths join `dir`; errors name `file`.
pub(crate) fn parse(
    text: &str,
    dir: &Path,
    file: &Path,
    progress: &mut dyn FnMut(LoadProgress<'_>),
) -> Result<Scene, Error> {
    // Optional fields are written bare (`base: Pose(..)`, not
    // `Some(Pose(..))`).
    let parsed: SceneFile = ron::Options::default()
        .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
        .from_str(text)
        .map_err(|e| syntax(file, &e))?;
    let field = |name: String, message: String| Error::SceneField {
        file: Some(file.to_path_buf()),
        field: name,
        message,
    };
    let pose = |p: &Option<PoseFile>, at: String| {
        p.as_ref().map_or(Ok(DAffine3::IDENTITY), |p| {
            p.pose().map_err(|(sub, m)| field(format!("{at}.{sub}"), m))
        })
    };
    // Pairs of the bodies' SRDF files, added after the scene's own so that
    // `disabled_pairs[i]` in errors still counts the scene file's entries.
    let mut srdf_disabled: Vec<(String, String)> = Vec::new();
    let total = parsed.bodies.len() + parsed.obstacles.len() + 1;
    let mut step = |done: usize, current: &str| {
        progress(LoadProgress {
            done,
            total,
            current,
        });
    };
    let mut b = Scene::builder()
        .source(file)
        .self_collision(parsed.self_collision)
        .skip_adjacent(parsed.skip_adjacent);
    if let Some(t) = parsed.distance_threshold {
        b = b.distance_threshold(t);
    }
    for (i, body) in parsed.bodies.iter().enumerate() {
        let base = pose(&body.base, format!("bodies[{i}].base"))?;
        let mount = body
            .mobile_base
            .as_ref()
            .map(|m| {
                m.base_links()
                    .map_err(|(sub, m)| field(format!("bodies[{i}].mobile_base.{sub}"), m))
            })
            .transpose()?;
        let urdf = dir.join(&body.urdf);
        if !urdf.is_file() {
            return Err(field(
                format!("bodies[{i}].urdf"),
                format!("`{}` is not a file", urdf.display()),
            ));
        }
        step(
            i,
            &format!("body \"{}\" ({})", body.name, body.urdf.display()),
        );
        let mut options = UrdfOptions::default();
        for (name, path) in &body.packages {
            options = options.with_package_dir(name.clone(), dir.join(path));
        }
        if let Some(root) = &body.package_root {
            options = options.with_package_root(dir.join(root));
        }
        let loaded = b.load_urdf(&urdf, &options)?.with_name(&body.name);
        let loaded = match mount {
            Some(links) => loaded
                .mounted(links)
                .map_err(|e| field(format!("bodies[{i}].mobile_base"), e.to_string()))?,
            None => loaded,
        };
        b = b.body(loaded, base);
        if let Some(srdf) = &body.srdf {
            let at = format!("bodies[{i}].srdf");
            let pairs = srdf_pairs(
                &dir.join(srdf),
                &urdf,
                &options,
                &body.name,
                &parsed.obstacles,
            )
            .map_err(|m| field(at, m))?;
            srdf_disabled.extend(pairs);
        }
    }
    for (i, o) in parsed.obstacles.iter().enumerate() {
        let p = pose(&o.pose, format!("obstacles[{i}].pose"))?;
        let mesh = dir.join(&o.mesh);
        if !mesh.is_file() {
            return Err(field(
                format!("obstacles[{i}].mesh"),
                format!("`{}` is not a file", mesh.display()),
            ));
        }
        step(
            parsed.bodies.len() + i,
            &format!("obstacle \"{}\" ({})", o.name, o.mesh.display()),
        );
        b = b.mesh_obstacle(&o.name, &mesh, o.scale, p)?;
    }
    for (a, c) in parsed.disabled_pairs.into_iter().chain(srdf_disabled) {
        b = b.disable_pair(a, c);
    }
    step(total - 1, "assembling the scene");
    let scene = b.build()?;
    step(total, "");
    Ok(scene)
}

/// The `<disable_collisions>` pairs of the SRDF file `path`, as
/// `body/link` names, each link checked against the body's URDF; the
/// error message names the SRDF file, the line and the entry.
fn srdf_pairs(
    path: &Path,
    urdf: &Path,
    options: &UrdfOptions,
    body: &str,
    obstacles: &[ObstacleFile],
) -> Result<Vec<(String, String)>, String> {
    let shown = path.display();
    if !path.is_file() {
        return Err(format!("`{shown}` is not a file"));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read `{shown}`: {e}"))?;
    let doc = roxmltree::Document::parse(&text)
        .map_err(|e| format!("`{shown}`:{}: not well-formed XML: {e}", e.pos().row))?;
    let root = doc.root_element();
    if root.tag_name().name() != "robot" {
        return Err(format!(
            "`{shown}`: the root element is <{}>, not an SRDF <robot>",
            root.tag_name().name()
        ));
    }
    // The body loaded, so its URDF parses; only its link names are needed.
    let model = UrdfModel::from_file_with(urdf, options)
        .map_err(|e| format!("`{}`: {e}", urdf.display()))?;
    let tree = model.tree();
    let mut pairs = Vec::new();
    for entry in root
        .children()
        .filter(|n| n.is_element() && n.tag_name().name() == "disable_collisions")
    {
        let line = doc.text_pos_at(entry.range().start).row;
        let (l1, l2) = (entry.attribute("link1"), entry.attribute("link2"));
        let shown_entry = format!(
            "<disable_collisions link1=\"{}\" link2=\"{}\">",
            l1.unwrap_or(""),
            l2.unwrap_or("")
        );
        let checked = |attr: &str, link: Option<&str>| {
            let Some(link) = link else {
                return Err(format!("`{shown}`:{line}: {shown_entry} has no `{attr}`"));
            };
            if tree.link_index(link).is_err() {
                return Err(format!(
                    "`{shown}`:{line}: {shown_entry}: the URDF `{}` has no link `{link}`",
                    urdf.display()
                ));
            }
            let name = format!("{body}/{link}");
            if obstacles.iter().any(|o| o.name == name) {
                return Err(format!(
                    "`{shown}`:{line}: {shown_entry}: `{name}` is both a link and an obstacle"
                ));
            }
            Ok(name)
        };
        let (a, b) = (checked("link1", l1)?, checked("link2", l2)?);
        pairs.push((a, b));
    }
    Ok(pairs)
}

/// A RON error with its position and, when the parser names one, the
/// field.
pub(crate) fn syntax(file: &Path, e: &ron::error::SpannedError) -> Error {
    use ron::error::Error as R;
    let field = match &e.code {
        R::NoSuchStructField { found, .. } => Some(found.to_string()),
        R::MissingStructField { field, .. } | R::DuplicateStructField { field, .. } => {
            Some((*field).to_owned())
        }
        _ => None,
    };
    Error::SceneSyntax {
        file: file.to_path_buf(),
        line: e.span.start.line,
        column: e.span.start.col,
        field,
        message: e.code.to_string(),
    }
}
