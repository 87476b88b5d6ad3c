//! URDF import (feature `urdf`): a [`KinematicTree`] and, per link, the
//! geometry it references.
//!
//! **What.** [`UrdfModel::from_file`] / [`UrdfModel::from_str`] read a URDF
//! document into a validated [`KinematicTree`] plus one [`LinkGeometry`] per
//! link: the link's `<collision>` elements, or its `<visual>` elements when
//! it has no collision element, each as a [`GeometryRef`] (origin in the
//! link frame and a [`GeometryShape`]: mesh reference, box, cylinder,
//! sphere or capsule).
//!
//! **Why.** Robots come as URDF; the geometry layer (`bvh-geometry`) loads
//! the referenced meshes and builds its hierarchies from these references.
//! This module reads no mesh: a mesh path is resolved
//! ([`UrdfOptions`]) but **never checked for existence** here, so a model
//! loads even where its meshes are absent.
//!
//! **Mapping.**
//!
//! - Joints: `fixed`, `revolute` (a `<limit>` is required), `continuous`,
//!   `prismatic` (`<limit>` required), `floating` (7 values: x, y, z, qx,
//!   qy, qz, qw), `planar` (3 values: x, y, θ in the plane normal to the
//!   axis) and urdf-rs's `spherical` (4 values, a quaternion) map to the
//!   [`JointType`] of the same name. The axis defaults to (1, 0, 0) as the
//!   URDF specification says and is normalised; it is ignored by fixed,
//!   floating and spherical joints. Limits with both ends infinite (URDF 1.2
//!   omitted limits) become no limits; limits of other joint types are
//!   ignored. `<mimic>` joints are rejected
//!   ([`KinematicsError::UrdfMimicJoint`]): their value is not free.
//! - Origins: `xyz` and `rpy`, where `rpy` is fixed-axis roll–pitch–yaw,
//!   `R = Rz(yaw) · Ry(pitch) · Rx(roll)` ([`rpy_rotation`]). A joint's
//!   origin is the child link's [`crate::Link::origin`]; the child link's
//!   frame is the URDF joint frame moved by the joint, so geometry origins
//!   apply unchanged.
//! - Roots: a URDF document has exactly **one** root link (a link that is
//!   no joint's child); several roots or none are an error
//!   ([`KinematicsError::UrdfRoots`]) although a [`KinematicTree`] could
//!   hold a forest: a second root is almost always a forgotten joint. Put
//!   several robots in one tree by building it from their [`LinkSpec`]s.
//! - Root joint: the root link gets a fixed joint named after the link.
//!
//! **Configuration order.** The tree is built from the root link followed
//! by each joint's child link in the order of the joints in the file, so a
//! configuration vector holds the movable joints' values in URDF joint
//! order, with one exception the tree's order imposes (each
//! link after its parent, see [`KinematicTree`]): a joint listed before the
//! joint that places its parent link pulls that joint (and any such
//! ancestors) forward to just before itself. [`UrdfModel::joint_names`]
//! lists the movable joints in configuration order.
//!
//! **Mesh paths.** `package://name/rest` becomes `dir/rest` for the first
//! `(name, dir)` in [`UrdfOptions::package_dirs`], else
//! `package_root/name/rest` when [`UrdfOptions::package_root`] is set, else
//! an error ([`KinematicsError::UrdfMeshPath`]); `file://` is stripped;
//! other URI schemes (`http://`, …) are an error. A relative path is joined
//! to [`UrdfOptions::root_dir`], which defaults to the URDF file's directory
//! for [`UrdfModel::from_file`] and to nothing (the path stays relative) for
//! [`UrdfModel::from_str`]. Absolute paths stay as they are.
//!
//! **Errors.** Every malformed input gives a typed [`KinematicsError`]
//! naming the file and the element: XML and schema errors
//! ([`KinematicsError::Urdf`], with the parser's message), a missing file
//! ([`KinematicsError::UrdfFile`], with its path), unknown links in a joint,
//! a link with two parent joints, duplicate names, joints the tree rejects
//! (zero axis, NaN origin, bad limits: [`KinematicsError::UrdfJoint`]) and
//! malformed geometry ([`KinematicsError::UrdfGeometry`]). No input panics;
//! documents nested deeper than [`MAX_NESTING`] levels are rejected before
//! parsing so that no input exhausts the stack either, and so are documents
//! that are not well-formed XML (namespaces included), with the line and
//! column of the first fault: urdf-rs's own XML reader accepts some of
//! those and then panics writing them back out (an attribute whose
//! namespace has no prefix).
//!
//! ```
//! use armature_kinematics::{GeometryShape, UrdfModel};
//!
//! let xml = r#"
//! <robot name="arm">
//!   <link name="base"/>
//!   <link name="upper">
//!     <collision>
//!       <origin xyz="0 0 0.25"/>
//!       <geometry><cylinder radius="0.05" length="0.5"/></geometry>
//!     </collision>
//!   </link>
//!   <joint name="shoulder" type="revolute">
//!     <parent link="base"/>
//!     <child link="upper"/>
//!     <origin xyz="0 0 0.1" rpy="0 0 1.5707963267948966"/>
//!     <axis xyz="0 1 0"/>
//!     <limit lower="-1.5" upper="1.5" effort="10" velocity="2"/>
//!   </joint>
//! </robot>"#;
//! let model = UrdfModel::from_str(xml, "arm.urdf")?;
//! assert_eq!(model.tree().nq(), 1);
//! assert_eq!(model.joint_names().collect::<Vec<_>>(), ["shoulder"]);
//! let upper = model.tree().link_index("upper")?;
//! let shapes = &model.geometry()[upper].elements;
//! assert!(matches!(shapes[0].shape, GeometryShape::Cylinder { radius, .. } if radius == 0.05));
//! # Ok::<(), armature_kinematics::KinematicsError>(())
//! ```

use crate::error::KinematicsError;
use crate::joint::{Joint, JointLimits, JointType};
use crate::tree::{KinematicTree, LinkSpec};
use glam::{DAffine3, DMat3, DVec3};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Where mesh references are resolved (see the [module docs](self)).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UrdfOptions {
    /// Directory that relative mesh paths are joined to. `None`: the URDF
    /// file's directory for [`UrdfModel::from_file`], no joining for
    /// [`UrdfModel::from_str`].
    pub root_dir: Option<PathBuf>,
    /// `package://name/…` resolves to `dir/…` for the first `(name, dir)`
    /// here.
    pub package_dirs: Vec<(String, PathBuf)>,
    /// `package://name/…` of a package not in
    /// [`UrdfOptions::package_dirs`] resolves to `package_root/name/…`
    /// (a ROS-style workspace); `None`: such a package is an error.
    pub package_root: Option<PathBuf>,
}

impl UrdfOptions {
    /// The options with this root directory for relative mesh paths.
    #[must_use]
    pub fn with_root_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.root_dir = Some(dir.into());
        self
    }

    /// The options with package `name` located at `dir`.
    #[must_use]
    pub fn with_package_dir(mut self, name: impl Into<String>, dir: impl Into<PathBuf>) -> Self {
        self.package_dirs.push((name.into(), dir.into()));
        self
    }

    /// The options with `dir` holding one folder per package.
    #[must_use]
    pub fn with_package_root(mut self, dir: impl Into<PathBuf>) -> Self {
        self.package_root = Some(dir.into());
        self
    }
}

/// The shape of one geometry element, in its own frame
/// ([`GeometryRef::origin`]), following the URDF conventions.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum GeometryShape {
    /// A mesh file, not loaded and not checked for existence.
    Mesh {
        /// The resolved path.
        path: PathBuf,
        /// Scale per axis (URDF default 1, 1, 1).
        scale: DVec3,
    },
    /// A box centred at the origin.
    Box {
        /// Side lengths along x, y, z.
        size: DVec3,
    },
    /// A cylinder centred at the origin, its axis along z.
    Cylinder {
        /// Radius.
        radius: f64,
        /// Length along z.
        length: f64,
    },
    /// A sphere centred at the origin.
    Sphere {
        /// Radius.
        radius: f64,
    },
    /// A capsule centred at the origin, its axis along z: a cylinder of
    /// this radius and length with a half-sphere on each end.
    Capsule {
        /// Radius.
        radius: f64,
        /// Length of the cylindrical part along z.
        length: f64,
    },
}

/// One `<collision>` or `<visual>` element of a link.
#[derive(Clone, Debug, PartialEq)]
pub struct GeometryRef {
    /// The element's `name` attribute, if any.
    pub name: Option<String>,
    /// Transform from the link frame to the geometry frame.
    pub origin: DAffine3,
    /// The shape.
    pub shape: GeometryShape,
}

/// Which elements of a link its geometry came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeometrySource {
    /// The link's `<collision>` elements.
    Collision,
    /// The link's `<visual>` elements (it has no collision element).
    Visual,
    /// The link has neither.
    None,
}

/// The geometry of one link.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkGeometry {
    /// Where the elements came from.
    pub source: GeometrySource,
    /// The elements, in file order.
    pub elements: Vec<GeometryRef>,
}

/// A URDF robot: its kinematic tree and its links' geometry references.
#[derive(Clone, Debug, PartialEq)]
pub struct UrdfModel {
    name: String,
    tree: KinematicTree,
    geometry: Vec<LinkGeometry>,
}

/// The rotation of URDF fixed-axis roll–pitch–yaw angles:
/// `Rz(yaw) · Ry(pitch) · Rx(roll)` (roll about x first, then pitch about
/// the fixed y, then yaw about the fixed z).
#[must_use]
pub fn rpy_rotation(roll: f64, pitch: f64, yaw: f64) -> DMat3 {
    DMat3::from_rotation_z(yaw) * DMat3::from_rotation_y(pitch) * DMat3::from_rotation_x(roll)
}

fn pose(p: &urdf_rs::Pose) -> DAffine3 {
    DAffine3 {
        matrix3: rpy_rotation(p.rpy[0], p.rpy[1], p.rpy[2]),
        translation: DVec3::from_array(p.xyz.0),
    }
}

/// The tree error's link, for the errors that name one.
fn error_link(e: &KinematicsError) -> Option<&str> {
    match e {
        KinematicsError::UnknownParent { link, .. }
        | KinematicsError::Cycle { link }
        | KinematicsError::BadAxis { link, .. }
        | KinematicsError::NotFinite { link, .. }
        | KinematicsError::OutOfRange { link, .. }
        | KinematicsError::InvalidLimits { link, .. }
        | KinematicsError::NotARotation { link } => Some(link),
        _ => None,
    }
}

struct Reader<'a> {
    source_name: &'a str,
    options: &'a UrdfOptions,
    base_dir: Option<&'a Path>,
}

impl UrdfModel {
    /// Reads a URDF document from a string with default options;
    /// `source_name` names it in errors (a file name, or `"<string>"`).
    /// Relative mesh paths stay relative.
    ///
    /// # Errors
    /// See the [module docs](self).
    pub fn from_str(xml: &str, source_name: &str) -> Result<Self, KinematicsError> {
        Self::from_str_with(xml, source_name, &UrdfOptions::default())
    }

    /// Reads a URDF document from a string with `options`.
    ///
    /// # Errors
    /// See the [module docs](self).
    pub fn from_str_with(
        xml: &str,
        source_name: &str,
        options: &UrdfOptions,
    ) -> Result<Self, KinematicsError> {
        Reader {
            source_name,
            options,
            base_dir: options.root_dir.as_deref(),
        }
        .read(xml)
    }

    /// Reads a URDF file with default options (relative mesh paths resolved
    /// against the file's directory).
    ///
    /// # Errors
    /// [`KinematicsError::UrdfFile`] when the file cannot be read, and the
    /// errors of the [module docs](self).
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, KinematicsError> {
        Self::from_file_with(path, &UrdfOptions::default())
    }

    /// Reads a URDF file with `options`; without
    /// [`UrdfOptions::root_dir`], relative mesh paths are resolved against
    /// the file's directory.
    ///
    /// # Errors
    /// As [`UrdfModel::from_file`].
    pub fn from_file_with(
        path: impl AsRef<Path>,
        options: &UrdfOptions,
    ) -> Result<Self, KinematicsError> {
        let path = path.as_ref();
        let xml = std::fs::read_to_string(path).map_err(|e| KinematicsError::UrdfFile {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        let source_name = path.display().to_string();
        let file_dir = path.parent();
        Reader {
            source_name: &source_name,
            options,
            base_dir: options.root_dir.as_deref().or(file_dir),
        }
        .read(&xml)
    }

    /// The robot's `name` attribute.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The kinematic tree.
    #[must_use]
    pub const fn tree(&self) -> &KinematicTree {
        &self.tree
    }

    /// The geometry of every link, in tree order (index `i` belongs to
    /// `tree().links()[i]`).
    #[must_use]
    pub fn geometry(&self) -> &[LinkGeometry] {
        &self.geometry
    }

    /// The geometry of link `i`.
    ///
    /// # Errors
    /// [`KinematicsError::LinkIndex`].
    pub fn link_geometry(&self, i: usize) -> Result<&LinkGeometry, KinematicsError> {
        self.geometry.get(i).ok_or(KinematicsError::LinkIndex {
            index: i,
            len: self.geometry.len(),
        })
    }

    /// Names of the movable joints in configuration order.
    pub fn joint_names(&self) -> impl Iterator<Item = &str> + '_ {
        self.tree
            .links()
            .iter()
            .filter(|l| l.joint().kind.is_movable())
            .map(|l| l.joint().name.as_str())
    }

    /// The tree and the geometry, by value.
    #[must_use]
    pub fn into_parts(self) -> (KinematicTree, Vec<LinkGeometry>) {
        (self.tree, self.geometry)
    }
}

impl Reader<'_> {
    fn source(&self) -> String {
        self.source_name.to_owned()
    }

    fn read(&self, xml: &str) -> Result<UrdfModel, KinematicsError> {
        if nesting_depth(xml) > MAX_NESTING {
            return Err(KinematicsError::Urdf {
                source_name: self.source(),
                message: format!("elements are nested deeper than {MAX_NESTING} levels"),
            });
        }
        // urdf-rs's XML reader accepts some documents that are not
        // well-formed and then panics re-serialising them (an attribute
        // bound to a namespace that has no prefix): a conforming parser
        // checks the document first. A document type declaration is
        // allowed, as urdf-rs allows it.
        let strict = roxmltree::ParsingOptions {
            allow_dtd: true,
            ..roxmltree::ParsingOptions::default()
        };
        if let Err(e) = roxmltree::Document::parse_with_options(xml, strict) {
            return Err(KinematicsError::Urdf {
                source_name: self.source(),
                message: format!("not well-formed XML: {e}"),
            });
        }
        let robot = urdf_rs::read_from_string(xml).map_err(|e| KinematicsError::Urdf {
            source_name: self.source(),
            message: e.to_string(),
        })?;
        let mut link_index: HashMap<&str, usize> = HashMap::with_capacity(robot.links.len());
        for (i, l) in robot.links.iter().enumerate() {
            if link_index.insert(l.name.as_str(), i).is_some() {
                return Err(KinematicsError::UrdfModel {
                    source_name: self.source(),
                    reason: Box::new(KinematicsError::DuplicateLink {
                        name: l.name.clone(),
                    }),
                });
            }
        }
        let mut joint_names: HashMap<&str, usize> = HashMap::with_capacity(robot.joints.len());
        // Joint (index) whose child each link is.
        let mut parent_joint: Vec<Option<usize>> = vec![None; robot.links.len()];
        for (j, joint) in robot.joints.iter().enumerate() {
            if joint_names.insert(joint.name.as_str(), j).is_some() {
                return Err(KinematicsError::UrdfDuplicateJoint {
                    source_name: self.source(),
                    joint: joint.name.clone(),
                });
            }
            if let Some(m) = &joint.mimic {
                return Err(KinematicsError::UrdfMimicJoint {
                    source_name: self.source(),
                    joint: joint.name.clone(),
                    mimicked: m.joint.clone(),
                });
            }
            let known = |role: &'static str, link: &str| {
                link_index
                    .get(link)
                    .copied()
                    .ok_or_else(|| KinematicsError::UrdfUnknownLink {
                        source_name: self.source(),
                        joint: joint.name.clone(),
                        role,
                        link: link.to_owned(),
                    })
            };
            known("parent", &joint.parent.link)?;
            let child = known("child", &joint.child.link)?;
            if let Some(first) = parent_joint[child] {
                return Err(KinematicsError::UrdfTwoParents {
                    source_name: self.source(),
                    link: joint.child.link.clone(),
                    first: robot.joints[first].name.clone(),
                    second: joint.name.clone(),
                });
            }
            parent_joint[child] = Some(j);
        }
        let roots: Vec<usize> = (0..robot.links.len())
            .filter(|&i| parent_joint[i].is_none())
            .collect();
        let &[root] = roots.as_slice() else {
            return Err(KinematicsError::UrdfRoots {
                source_name: self.source(),
                roots: roots.iter().map(|&i| robot.links[i].name.clone()).collect(),
            });
        };

        let mut specs = Vec::with_capacity(robot.links.len());
        specs.push(LinkSpec::new(robot.links[root].name.clone(), None));
        for joint in &robot.joints {
            specs.push(
                LinkSpec::new(joint.child.link.clone(), Some(&joint.parent.link))
                    .with_joint(self.joint(joint)?)
                    .with_origin(pose(&joint.origin)),
            );
        }
        let tree = KinematicTree::new(specs).map_err(|e| {
            let joint = error_link(&e)
                .and_then(|l| link_index.get(l))
                .and_then(|&i| parent_joint[i]);
            match joint {
                Some(j) => KinematicsError::UrdfJoint {
                    source_name: self.source(),
                    joint: robot.joints[j].name.clone(),
                    reason: Box::new(e),
                },
                None => KinematicsError::UrdfModel {
                    source_name: self.source(),
                    reason: Box::new(e),
                },
            }
        })?;

        let geometry = tree
            .links()
            .iter()
            .map(|l| {
                // Every tree link comes from a URDF link of the same name.
                let link = link_index
                    .get(l.name())
                    .map(|&i| &robot.links[i])
                    .ok_or_else(|| KinematicsError::UnknownLink {
                        name: l.name().to_owned(),
                    })?;
                self.link_geometry(link)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(UrdfModel {
            name: robot.name,
            tree,
            geometry,
        })
    }

    fn joint(&self, joint: &urdf_rs::Joint) -> Result<Joint, KinematicsError> {
        use urdf_rs::JointType as U;
        let axis = DVec3::from_array(joint.axis.xyz.0);
        let kind = match joint.joint_type {
            U::Fixed => JointType::Fixed,
            U::Revolute => JointType::Revolute { axis },
            U::Continuous => JointType::Continuous { axis },
            U::Prismatic => JointType::Prismatic { axis },
            U::Floating => JointType::Floating,
            U::Planar => JointType::Planar { normal: axis },
            U::Spherical => JointType::Spherical,
        };
        let mut out = Joint::new(joint.name.clone(), kind);
        let limited = match joint.joint_type {
            U::Revolute => Some("revolute"),
            U::Prismatic => Some("prismatic"),
            _ => None,
        };
        if let Some(kind) = limited {
            // urdf-rs fills an absent <limit> with its default; a present
            // one always carries a velocity (required before URDF 1.2,
            // infinite by default from 1.2), so an all-default limit means
            // the element is missing (a zero velocity would freeze the
            // joint anyway).
            let l = &joint.limit;
            if *l == urdf_rs::JointLimit::default() {
                return Err(KinematicsError::UrdfMissingLimits {
                    source_name: self.source(),
                    joint: joint.name.clone(),
                    kind,
                });
            }
            if !(l.lower == f64::NEG_INFINITY && l.upper == f64::INFINITY) {
                out.limits = Some(JointLimits::new(l.lower, l.upper));
            }
        }
        Ok(out)
    }

    fn link_geometry(&self, link: &urdf_rs::Link) -> Result<LinkGeometry, KinematicsError> {
        let (source, element, items): (_, _, Vec<_>) = if !link.collision.is_empty() {
            (
                GeometrySource::Collision,
                "collision",
                link.collision
                    .iter()
                    .map(|c| (&c.name, &c.origin, &c.geometry))
                    .collect(),
            )
        } else if !link.visual.is_empty() {
            (
                GeometrySource::Visual,
                "visual",
                link.visual
                    .iter()
                    .map(|v| (&v.name, &v.origin, &v.geometry))
                    .collect(),
            )
        } else {
            (GeometrySource::None, "", Vec::new())
        };
        let elements = items
            .into_iter()
            .enumerate()
            .map(|(index, (name, origin, geometry))| {
                let bad = |reason: KinematicsError| KinematicsError::UrdfGeometry {
                    source_name: self.source(),
                    link: link.name.clone(),
                    element,
                    index,
                    reason: Box::new(reason),
                };
                check_values(&link.name, "origin.xyz", &origin.xyz.0, false).map_err(&bad)?;
                check_values(&link.name, "origin.rpy", &origin.rpy.0, false).map_err(&bad)?;
                Ok::<_, KinematicsError>(GeometryRef {
                    name: name.clone(),
                    origin: pose(origin),
                    shape: self.shape(&link.name, geometry, bad)?,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(LinkGeometry { source, elements })
    }

    fn shape(
        &self,
        link: &str,
        g: &urdf_rs::Geometry,
        bad: impl Fn(KinematicsError) -> KinematicsError,
    ) -> Result<GeometryShape, KinematicsError> {
        use urdf_rs::Geometry as G;
        let size = |field, v: &[f64]| check_values(link, field, v, true).map_err(&bad);
        Ok(match g {
            G::Box { size: s } => {
                size("size", &s.0)?;
                GeometryShape::Box {
                    size: DVec3::from_array(s.0),
                }
            }
            G::Cylinder { radius, length } => {
                size("radius", &[*radius])?;
                size("length", &[*length])?;
                GeometryShape::Cylinder {
                    radius: *radius,
                    length: *length,
                }
            }
            G::Capsule { radius, length } => {
                size("radius", &[*radius])?;
                size("length", &[*length])?;
                GeometryShape::Capsule {
                    radius: *radius,
                    length: *length,
                }
            }
            G::Sphere { radius } => {
                size("radius", &[*radius])?;
                GeometryShape::Sphere { radius: *radius }
            }
            G::Mesh { filename, scale } => {
                let scale = scale.map_or(DVec3::ONE, |s| DVec3::from_array(s.0));
                check_values(link, "scale", &scale.to_array(), false).map_err(&bad)?;
                let path =
                    self.resolve(filename)
                        .map_err(|reason| KinematicsError::UrdfMeshPath {
                            source_name: self.source(),
                            link: link.to_owned(),
                            filename: filename.clone(),
                            reason,
                        })?;
                GeometryShape::Mesh { path, scale }
            }
        })
    }

    /// The path a mesh filename refers to (see the module docs).
    fn resolve(&self, filename: &str) -> Result<PathBuf, &'static str> {
        if filename.is_empty() {
            return Err("empty filename");
        }
        if let Some(rest) = filename.strip_prefix("package://") {
            let Some((package, rel)) = rest.split_once('/') else {
                return Err("a package URI needs a package name and a path");
            };
            let rel = rel.trim_start_matches('/');
            if package.is_empty() || rel.is_empty() {
                return Err("a package URI needs a package name and a path");
            }
            if let Some((_, dir)) = self
                .options
                .package_dirs
                .iter()
                .find(|(name, _)| name == package)
            {
                return Ok(dir.join(rel));
            }
            return match &self.options.package_root {
                Some(root) => Ok(root.join(package).join(rel)),
                // Worded for both ways of giving the directories: a scene
                // file's body fields and these options.
                None => Err(
                    "unknown package: map it to its directory with the scene file's \
                     `packages` or `package_root` (UrdfOptions::package_dirs or \
                     UrdfOptions::package_root)",
                ),
            };
        }
        let path = match filename.strip_prefix("file://") {
            Some(p) => p,
            None if filename.contains("://") => return Err("unsupported URI scheme"),
            None => filename,
        };
        if path.is_empty() {
            return Err("empty filename");
        }
        let path = Path::new(path);
        Ok(match self.base_dir {
            Some(base) if path.is_relative() => base.join(path),
            _ => path.to_owned(),
        })
    }
}

/// Deepest element nesting accepted. A URDF document nests five levels
/// (`robot/link/collision/geometry/mesh`); the XML parser and its serde
/// layer recurse once per level, so a hostile document nested thousands
/// deep would overflow the stack instead of giving an error.
pub const MAX_NESTING: usize = 64;

/// The element nesting depth of `xml` as an XML lexer sees it: comments,
/// CDATA sections, processing instructions, declarations and quoted
/// attribute values are skipped, start tags open a level (unless
/// self-closing) and end tags close one.
fn nesting_depth(xml: &str) -> usize {
    let b = xml.as_bytes();
    let find = |from: usize, pat: &[u8]| {
        b.get(from..)
            .and_then(|rest| rest.windows(pat.len()).position(|w| w == pat))
            .map_or(b.len(), |p| from + p + pat.len())
    };
    let (mut i, mut depth, mut max) = (0, 0usize, 0);
    while i < b.len() {
        if b[i] != b'<' {
            i += 1;
            continue;
        }
        let rest = &b[i..];
        i = if rest.starts_with(b"<!--") {
            find(i + 4, b"-->")
        } else if rest.starts_with(b"<![CDATA[") {
            find(i + 9, b"]]>")
        } else if rest.starts_with(b"<?") {
            find(i + 2, b"?>")
        } else if rest.starts_with(b"<!") {
            find(i + 2, b">")
        } else if rest.starts_with(b"</") {
            depth = depth.saturating_sub(1);
            find(i + 2, b">")
        } else {
            let mut j = i + 1;
            let mut quote = None;
            while j < b.len() {
                match (quote, b[j]) {
                    (Some(q), c) if c == q => quote = None,
                    (None, c @ (b'"' | b'\'')) => quote = Some(c),
                    (None, b'>') => break,
                    _ => {}
                }
                j += 1;
            }
            if !(j < b.len() && b[j - 1] == b'/') {
                depth += 1;
                max = max.max(depth);
            }
            j + 1
        };
    }
    max
}

/// Checks that `values` are finite and, for sizes, not negative.
fn check_values(
    link: &str,
    field: &'static str,
    values: &[f64],
    size: bool,
) -> Result<(), KinematicsError> {
    for &value in values {
        if !value.is_finite() {
            return Err(KinematicsError::NotFinite {
                link: link.to_owned(),
                field,
                value,
            });
        }
        if size && value < 0.0 {
            return Err(KinematicsError::OutOfRange {
                link: link.to_owned(),
                field,
                value,
                why: "sizes are ≥ 0",
            });
        }
    }
    Ok(())
}
