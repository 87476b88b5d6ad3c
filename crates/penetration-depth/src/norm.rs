//! The object norm of an articulated model (M5 eq. 1, 13–19) and its
//! quadratic coordinates `X` (M5 eq. 24–28).
//!
//! **What.** [`ObjectNorm::new`] takes the volume, centroid and inertia of
//! every link ([`LinkMass`]); [`ObjectNorm::around`] fixes a *reference*
//! configuration `q_ref` (the in-collision configuration, M5's origin `o`)
//! and returns a [`NormFrame`]: the distance `σ(q_ref, q)` to any `q`, the
//! coordinates `X(q)` in which `σ = (1/V) Xᵀ H X` is exactly quadratic,
//! their inverse, the block-diagonal `H` and `H⁻¹`, and the Jacobian of the
//! tangent coordinates with respect to `X` that turns a contact Jacobian
//! into the matrix `C′` of M5 eq. 27.
//!
//! **Why.** Generalized penetration depth is the smallest object norm to a
//! collision-free configuration. The norm is the mean squared displacement
//! of the model's points, `σ = (1/V) ∫ |x(q) − x(q_ref)|²`, so it weighs a
//! motion by how much material moves: a heavy base is expensive to move, a
//! fingertip cheap.
//!
//! # Conventions
//!
//! *Sequential change* (M5 eq. 19): the joints go from `q_ref` to `q` one
//! at a time, parents before children, and `σ = (1/V) Σᵢ ∫_{Oᵢ} |Δᵢx|²`,
//! where `Oᵢ` is joint `i`'s *outboard set* (its child link and all
//! descendants) and `Δᵢx` the displacement while joint `i` changes. Then
//! the descendants are still at `q_ref`, so `Oᵢ` is one rigid body in the
//! joint's child frame: its volume `Vᵢ`, centroid `cᵢ` and inertia `I_c`
//! (about `cᵢ`) or `I_o` (about the child frame's origin) are computed once
//! per reference, in the child frame at `q_ref`, at unit density
//! (`I = ∫ (|r|² 𝟙 − r rᵀ)`). `V` is the volume of the whole model.
//!
//! Per joint, with `Δ = q − q_ref`, the coordinates `Xᵢ` and the block
//! `Hᵢ` of `σ = (1/V) Σᵢ Xᵢᵀ Hᵢ Xᵢ` (every line is exact):
//!
//! | joint | `Xᵢ` | `Hᵢ` |
//! |---|---|---|
//! | prismatic (M5 eq. 14) | `Δ` | `Vᵢ` |
//! | revolute, continuous, axis `ω` (eq. 17) | `2 sin(Δ/2)` | `ωᵀ I_o ω` |
//! | spherical (eq. 18) | `Q` | `4 I_o` |
//! | floating (eq. 1) | `(Δc, Q)` | `diag(Vᵢ 𝟙₃, 4 I_c)` |
//! | planar, normal `n` | `(Δc·u, Δc·v, 2 sin(Δθ/2))` | `diag(Vᵢ, Vᵢ, nᵀ I_c n)` |
//! | fixed | none | none |
//!
//! - `Q` is the vector part of the relative rotation `r = q_ref⁻¹ ⊗ q`, a
//!   unit quaternion taken with scalar part `w ≥ 0`, in the child frame at
//!   `q_ref`: rotating a solid by `r` about a point moves it by
//!   `∫ |r·p − p|² = 4 Qᵀ I Q` with `I` about that point.
//! - `Δc` is the displacement of the outboard centroid in the joint frame
//!   (where the floating joint's translation lives); for a planar joint its
//!   components along the plane axes `(u, v)` of
//!   [`JointType::plane_axes`]. Splitting a rigid motion into the centroid's
//!   displacement and a rotation about the centroid,
//!   `∫ |Δx|² = Vᵢ |Δc|² + 4 Qᵀ I_c Q`: the cross term vanishes because
//!   the first moment about the centroid is zero.
//! - Angles are wrapped: a revolute `Δ` (and a planar `Δθ`) is taken in
//!   `(−π, π]` — joint values `2π` apart give the same pose — so `X` is a
//!   chart of the reachable poses, with `|X| ≤ 2` and `|Q| ≤ 1`
//!   ([`NormFrame::x_in_domain`]). [`NormFrame::from_x`] inverts it
//!   (`Δ = 2 asin(X/2)`, `w = √(1 − |Q|²)`, `q = q_ref ⊗ r`), returning
//!   `q_ref + Δ` for revolute joints without wrapping or limits (limits
//!   are the caller's).
//!
//! `X` has [`KinematicTree::dof`] entries, joint `i`'s at
//! [`KinematicTree::dof_range`]`(i)`: one for prismatic and revolute
//! joints, three for spherical and planar, six for floating (`Δc`, then
//! `Q`).
//!
//! *The tangent Jacobian* ([`NormFrame::tangent_from_x`]) is the
//! block-diagonal `T` with `d(tangent) = T dX`, in the tangent coordinates
//! of [`KinematicTree::point_jacobian`], so a world point's Jacobian with
//! respect to `X` is `J(q) T`. Per joint (all at the configuration `q`):
//!
//! - prismatic: `1`; revolute: `1 / cos(Δ/2)` (M5 eq. 25);
//! - spherical: `ω = 2 R_ref (w 𝟙 + Q Qᵀ / w + [Q]×) dQ`, where `R_ref` is
//!   the joint's rotation at `q_ref`: with `R = R_ref R(r)` and the
//!   tangent rotation applied on the left (`R ← exp(ω̂) R`),
//!   `ω = R_ref ω_s` with `ω_s` the spatial angular velocity of `r`, and
//!   `(0, ω_s) = 2 ṙ ⊗ r*`;
//! - floating: the child origin is `t = Δc + c_ref − R c` (`c_ref` the
//!   centroid in the joint frame at `q_ref`), so
//!   `dt = dΔc + [R c]× ω` with `ω` as for a spherical joint;
//! - planar: `dθ = dX₃ / cos(Δθ/2)` and `dt = dΔc − dθ n × R c`, projected
//!   on `(u, v)`.
//!
//! `T` is singular a half turn from the reference (`cos(Δ/2) = 0`,
//! `w = 0`), where [`NormFrame::tangent_from_x`] reports
//! [`PdError::OutsideChart`].
//!
//! *Link volumes* ([`LinkMass`]): a closed, outward mesh gives its own
//! mass properties; any other mesh (open, a soup, inward) those of the
//! convex hull of its vertices ([`MassSource::ConvexHull`]); a flat hull
//! has no volume and the link no [`LinkMass`] (it moves no material, so
//! the norm does not see it). Joints whose outboard set has no volume have
//! zero blocks in `H`; [`NormFrame::apply_h_inverse`] applies the
//! pseudo-inverse, which keeps them still.
//!
//! ```
//! use std::sync::Arc;
//! use armature_bvh_geometry::{ArticulatedBody, Tessellation};
//! use armature_kinematics::{Joint, JointType, KinematicTree, LinkSpec};
//! use armature_penetration_depth::norm::ObjectNorm;
//! use glam::DVec3;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let tree = KinematicTree::new(vec![
//!     LinkSpec::new("slider", None)
//!         .with_joint(Joint::new("x", JointType::Prismatic { axis: DVec3::X })),
//! ])?;
//! let cube = Tessellation::default().cuboid(DVec3::ONE)?;
//! let body = ArticulatedBody::new("slider", tree, vec![Some(Arc::new(cube))])?;
//! let frame = ObjectNorm::new(&body)?.around(&[0.0])?;
//! // Every point of the cube moves by 0.3: σ = 0.3².
//! assert!((frame.norm(&[0.3])? - 0.09).abs() < 1e-12);
//! let mut x = [0.0];
//! frame.to_x(&[0.3], &mut x)?;
//! assert!((frame.norm_x(&x) - 0.09).abs() < 1e-12);
//! # Ok(())
//! # }
//! ```

use std::sync::Arc;

use armature_bvh_geometry::{ArticulatedBody, ConvexHull, GeometryError, MassProperties, TriMesh};
use armature_kinematics::joint::quat;
use armature_kinematics::{JointType, KinematicTree, KinematicsError};
use core::f64::consts::{PI, TAU};
use glam::{DAffine3, DMat3, DQuat, DVec3};

use crate::PdError;

/// Relative slack of the domain checks (`|X| ≤ 2`, `|Q| ≤ 1`), so a point
/// [`NormFrame::max_step_in_domain`] puts on the boundary up to rounding
/// is still accepted.
const DOMAIN_SLACK: f64 = 1e-12;

/// Below this `cos(Δ/2)` or quaternion scalar part the chart's Jacobian is
/// taken as singular (a half turn from the reference).
const HALF_TURN: f64 = 1e-12;

/// Where a link's mass properties come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MassSource {
    /// The link's mesh is closed and outward: its own solid.
    Mesh,
    /// The mesh bounds no solid (open, a soup, inward): the convex hull of
    /// its vertices stands in for it.
    ConvexHull,
}

/// Volume, centroid and inertia of one link at unit density, in the link
/// frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkMass {
    /// Volume (positive).
    pub volume: f64,
    /// Centroid, link frame.
    pub centroid: DVec3,
    /// Inertia tensor about the centroid, link frame, unit density
    /// (`Ixx = ∫ (y² + z²)`, `Ixy = −∫ x y`).
    pub inertia: DMat3,
    /// Where the numbers come from.
    pub source: MassSource,
}

impl LinkMass {
    /// The mass properties of the solid `mesh` bounds, or of the convex
    /// hull of its vertices when it bounds none; `None` when that hull is
    /// flat (no volume).
    ///
    /// # Errors
    /// [`PdError::Geometry`] when the hull cannot be built (cannot happen
    /// for a valid [`TriMesh`]: its vertices are finite and not empty).
    pub fn from_mesh(mesh: &TriMesh) -> Result<Option<Self>, PdError> {
        match mesh.mass_properties() {
            Ok(m) => Ok(Some(Self::new(&m, MassSource::Mesh))),
            Err(_) => Self::from_hull(mesh.vertices()),
        }
    }

    /// The mass properties of the convex hull of `points`; `None` when the
    /// hull is flat.
    ///
    /// # Errors
    /// [`PdError::Geometry`] for an empty point set or a non-finite point.
    pub fn from_hull(points: &[DVec3]) -> Result<Option<Self>, PdError> {
        let hull = ConvexHull::new(points)?;
        if hull.is_degenerate() {
            return Ok(None);
        }
        let solid = match TriMesh::new(points.to_vec(), hull.triangles().to_vec()) {
            Ok(solid) => solid,
            // Every hull triangle was a sliver: a flat hull in all but name.
            Err(GeometryError::EmptyMesh { .. }) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        // Dropped slivers leave a thin hull open, and rounding can leave it
        // with no volume: both mean no material to weigh.
        Ok(solid
            .mass_properties()
            .ok()
            .map(|m| Self::new(&m, MassSource::ConvexHull)))
    }

    fn new(m: &MassProperties, source: MassSource) -> Self {
        // `mass_properties` is at unit density; scale in case a caller's
        // properties carry another.
        let unit = 1.0 / m.density();
        Self {
            volume: m.volume,
            centroid: m.centroid,
            inertia: m.inertia * unit,
            source,
        }
    }

    /// The inertia tensor about `point` (parallel-axis theorem).
    #[must_use]
    pub fn inertia_about(&self, point: DVec3) -> DMat3 {
        self.inertia + point_inertia(self.centroid - point) * self.volume
    }
}

/// `|d|² 𝟙 − d dᵀ`: the inertia of a unit mass at `d` about the origin.
fn point_inertia(d: DVec3) -> DMat3 {
    DMat3::from_diagonal(DVec3::splat(d.length_squared()))
        - DMat3::from_cols(d * d.x, d * d.y, d * d.z)
}

/// `[a]×`: the matrix of `v ↦ a × v`.
fn skew(a: DVec3) -> DMat3 {
    DMat3::from_cols(
        DVec3::new(0.0, a.z, -a.y),
        DVec3::new(-a.z, 0.0, a.x),
        DVec3::new(a.y, -a.x, 0.0),
    )
}

/// `d` wrapped into `(−π, π]`.
fn wrap_angle(d: f64) -> f64 {
    let r = d.rem_euclid(TAU);
    if r > PI { r - TAU } else { r }
}

/// A rigid set of material: volume, centroid, inertia about the centroid.
#[derive(Clone, Copy, Debug)]
struct Solid {
    volume: f64,
    centroid: DVec3,
    inertia: DMat3,
}

impl Solid {
    const EMPTY: Self = Self {
        volume: 0.0,
        centroid: DVec3::ZERO,
        inertia: DMat3::ZERO,
    };

    fn inertia_about(&self, point: DVec3) -> DMat3 {
        self.inertia + point_inertia(self.centroid - point) * self.volume
    }

    fn combined(&self, other: &Self) -> Self {
        if other.volume <= 0.0 {
            return *self;
        }
        if self.volume <= 0.0 {
            return *other;
        }
        let volume = self.volume + other.volume;
        let centroid = (self.centroid * self.volume + other.centroid * other.volume) / volume;
        Self {
            volume,
            centroid,
            inertia: self.inertia_about(centroid) + other.inertia_about(centroid),
        }
    }

    /// The solid moved by a rigid transform (linear part a rotation).
    fn transformed(&self, t: &DAffine3) -> Self {
        let r = t.matrix3;
        Self {
            volume: self.volume,
            centroid: t.transform_point3(self.centroid),
            inertia: r * self.inertia * r.transpose(),
        }
    }
}

/// The object norm of an articulated model: per-link mass properties (see
/// the [module docs](self)). Cheap to clone (the tree is shared).
#[derive(Clone, Debug)]
pub struct ObjectNorm {
    tree: Arc<KinematicTree>,
    links: Vec<Option<LinkMass>>,
    volume: f64,
}

/// The name of an unsupported joint kind, `None` for a supported one.
fn unsupported(kind: &JointType) -> Option<&'static str> {
    match kind {
        JointType::Fixed
        | JointType::Revolute { .. }
        | JointType::Continuous { .. }
        | JointType::Prismatic { .. }
        | JointType::Spherical
        | JointType::Floating
        | JointType::Planar { .. } => None,
        JointType::Vehicle => Some("vehicle"),
        JointType::OmniVehicle => Some("omni-vehicle"),
        JointType::OrientationUncertain { .. } => Some("orientation-uncertainty"),
        JointType::LocationUncertain { .. } => Some("location-uncertainty"),
        _ => Some("unknown"),
    }
}

impl ObjectNorm {
    /// The norm of `body`: each link's [`LinkMass`] from its geometry.
    ///
    /// # Errors
    /// [`PdError::UnsupportedJoint`] naming the first link (tree order)
    /// with a vehicle or uncertainty joint; [`PdError::NoVolume`] when no
    /// link has volume; [`PdError::Geometry`] from the hull of an open
    /// mesh (not expected for valid meshes).
    pub fn new(body: &ArticulatedBody) -> Result<Self, PdError> {
        let tree = body.tree();
        for link in tree.links() {
            if let Some(joint) = unsupported(&link.joint().kind) {
                return Err(PdError::UnsupportedJoint {
                    link: link.name().to_owned(),
                    joint,
                });
            }
        }
        let links = body
            .links()
            .iter()
            .map(|g| match g {
                None => Ok(None),
                // The geometry already holds the mesh's own properties when
                // it is closed and outward.
                Some(g) => match &g.mass {
                    Some(m) => Ok(Some(LinkMass::new(m, MassSource::Mesh))),
                    None => LinkMass::from_mesh(&g.mesh),
                },
            })
            .collect::<Result<Vec<_>, PdError>>()?;
        let volume: f64 = links.iter().flatten().map(|m| m.volume).sum();
        if !(volume > 0.0 && volume.is_finite()) {
            return Err(PdError::NoVolume);
        }
        Ok(Self {
            tree: Arc::new(tree.clone()),
            links,
            volume,
        })
    }

    /// The kinematic tree.
    #[must_use]
    pub fn tree(&self) -> &KinematicTree {
        &self.tree
    }

    /// The model's volume `V` (positive).
    #[must_use]
    pub fn total_volume(&self) -> f64 {
        self.volume
    }

    /// The mass properties of link `i`; `None` without geometry or volume,
    /// or out of range.
    #[must_use]
    pub fn link_mass(&self, i: usize) -> Option<&LinkMass> {
        self.links.get(i).and_then(Option::as_ref)
    }

    /// The norm around the reference configuration `q_ref` (M5's origin
    /// `o`): each joint's outboard set posed at `q_ref`, in its child
    /// frame (see the [module docs](self)).
    ///
    /// # Errors
    /// The configuration errors of [`KinematicTree::validate_config`].
    pub fn around(&self, q_ref: &[f64]) -> Result<NormFrame, PdError> {
        let tree = &*self.tree;
        tree.validate_config(q_ref)?;
        let mut outboard: Vec<Solid> = self
            .links
            .iter()
            .map(|m| {
                m.map_or(Solid::EMPTY, |m| Solid {
                    volume: m.volume,
                    centroid: m.centroid,
                    inertia: m.inertia,
                })
            })
            .collect();
        // Children follow their parents in tree order, so a reverse sweep
        // completes every subtree before adding it to its parent.
        for k in (0..tree.len()).rev() {
            if let Some(p) = tree.links()[k].parent() {
                let moved = outboard[k].transformed(&tree.local_transform(k, q_ref));
                outboard[p] = outboard[p].combined(&moved);
            }
        }
        let mut charts = Vec::new();
        let mut blocks = Vec::new();
        let mut inverses = Vec::new();
        for (i, link) in tree.links().iter().enumerate() {
            let kind = link.joint().kind;
            if !kind.is_movable() {
                continue;
            }
            let s = &outboard[i];
            let qr = &q_ref[tree.q_range(i)];
            let x = tree.dof_range(i).start;
            let has_volume = s.volume > 0.0;
            let first_block = blocks.len();
            let mut scalar = |index: usize, h: f64| {
                blocks.push(MetricBlock::Scalar { link: i, index, h });
                let inv = if has_volume && h > 0.0 { 1.0 / h } else { 0.0 };
                inverses.push(MetricBlock::Scalar {
                    link: i,
                    index,
                    h: inv,
                });
            };
            let chart = match kind {
                JointType::Prismatic { .. } => {
                    scalar(x, s.volume);
                    ChartKind::Prismatic { q_ref: qr[0] }
                }
                JointType::Revolute { axis } | JointType::Continuous { axis } => {
                    scalar(x, axis.dot(s.inertia_about(DVec3::ZERO) * axis));
                    ChartKind::Revolute { q_ref: qr[0] }
                }
                JointType::Planar { normal } => {
                    let (u, v) = JointType::plane_axes(normal);
                    scalar(x, s.volume);
                    scalar(x + 1, s.volume);
                    scalar(x + 2, normal.dot(s.inertia * normal));
                    let r_ref = DMat3::from_axis_angle(normal, qr[2]);
                    ChartKind::Planar {
                        normal,
                        u,
                        v,
                        theta_ref: qr[2],
                        c: s.centroid,
                        c_ref: r_ref * s.centroid + u * qr[0] + v * qr[1],
                    }
                }
                JointType::Spherical => {
                    let h = s.inertia_about(DVec3::ZERO) * 4.0;
                    push_matrix(&mut blocks, &mut inverses, i, x, h, has_volume);
                    ChartKind::Spherical { r_ref: quat(qr) }
                }
                JointType::Floating => {
                    let translation = DMat3::from_diagonal(DVec3::splat(s.volume));
                    push_matrix(&mut blocks, &mut inverses, i, x, translation, has_volume);
                    let h = s.inertia * 4.0;
                    push_matrix(&mut blocks, &mut inverses, i, x + 3, h, has_volume);
                    let r_ref = quat(&qr[3..7]);
                    ChartKind::Floating {
                        r_ref,
                        c: s.centroid,
                        c_ref: r_ref * s.centroid + DVec3::new(qr[0], qr[1], qr[2]),
                    }
                }
                other => {
                    return Err(PdError::UnsupportedJoint {
                        link: link.name().to_owned(),
                        joint: unsupported(&other).unwrap_or("unknown"),
                    });
                }
            };
            charts.push(Chart {
                link: i,
                q: tree.q_range(i).start,
                x,
                blocks: first_block..blocks.len(),
                kind: chart,
            });
        }
        Ok(NormFrame {
            tree: Arc::clone(&self.tree),
            q_ref: q_ref.to_vec(),
            volume: self.volume,
            charts,
            blocks,
            inverses,
        })
    }
}

fn push_matrix(
    blocks: &mut Vec<MetricBlock>,
    inverses: &mut Vec<MetricBlock>,
    link: usize,
    offset: usize,
    h: DMat3,
    has_volume: bool,
) {
    blocks.push(MetricBlock::Matrix { link, offset, h });
    // A solid with volume is not contained in a line, so its inertia about
    // any point is positive definite.
    let inv = if has_volume { h.inverse() } else { DMat3::ZERO };
    inverses.push(MetricBlock::Matrix {
        link,
        offset,
        h: inv,
    });
}

/// One diagonal block of `H` (or of its pseudo-inverse), see
/// [`NormFrame::blocks`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MetricBlock {
    /// A 1×1 block at coordinate `index`.
    Scalar {
        /// The link whose joint owns the coordinate.
        link: usize,
        /// The coordinate.
        index: usize,
        /// The entry.
        h: f64,
    },
    /// A symmetric 3×3 block on coordinates `offset..offset + 3`.
    Matrix {
        /// The link whose joint owns the coordinates.
        link: usize,
        /// The first coordinate.
        offset: usize,
        /// The block.
        h: DMat3,
    },
}

/// A joint's chart: how its values map to `X` around the reference.
#[derive(Clone, Debug)]
struct Chart {
    link: usize,
    /// First configuration value.
    q: usize,
    /// First coordinate of `X` (and of the tangent vector).
    x: usize,
    /// The joint's blocks of `H`.
    blocks: core::ops::Range<usize>,
    kind: ChartKind,
}

#[derive(Clone, Copy, Debug)]
enum ChartKind {
    Prismatic {
        q_ref: f64,
    },
    Revolute {
        q_ref: f64,
    },
    Spherical {
        r_ref: DQuat,
    },
    Floating {
        r_ref: DQuat,
        /// Outboard centroid, child frame at `q_ref`.
        c: DVec3,
        /// The same in the joint frame at `q_ref`.
        c_ref: DVec3,
    },
    Planar {
        normal: DVec3,
        u: DVec3,
        v: DVec3,
        theta_ref: f64,
        c: DVec3,
        c_ref: DVec3,
    },
}

/// The relative rotation `r = r_ref⁻¹ ⊗ q` with `w ≥ 0`.
fn relative(r_ref: DQuat, q: &[f64]) -> DQuat {
    let r = r_ref.conjugate() * quat(q);
    if r.w < 0.0 { -r } else { r }
}

/// The unit quaternion of vector part `v` and scalar part `√(1 − |v|²)`.
fn from_vector_part(v: DVec3) -> DQuat {
    let w = (1.0 - v.length_squared()).max(0.0).sqrt();
    DQuat::from_xyzw(v.x, v.y, v.z, w).normalize()
}

/// `2 R_ref (w 𝟙 + Q Qᵀ / w + [Q]×)`: joint-frame rotation vector per
/// unit change of `Q` (see the module docs).
fn rotation_tangent(r_ref: DQuat, r: DQuat) -> DMat3 {
    let q = r.xyz();
    let m = DMat3::from_diagonal(DVec3::splat(r.w))
        + DMat3::from_cols(q * q.x, q * q.y, q * q.z) * (1.0 / r.w)
        + skew(q);
    DMat3::from_quat(r_ref) * m * 2.0
}

fn angle_x(delta: f64) -> f64 {
    2.0 * (0.5 * wrap_angle(delta)).sin()
}

fn write_quat(q: DQuat, out: &mut [f64]) {
    out[..4].copy_from_slice(&q.to_array());
}

impl Chart {
    /// `Xᵢ` of the joint's values `q` (its own slice) into `x` (its own).
    fn to_x(&self, q: &[f64], x: &mut [f64]) {
        match self.kind {
            ChartKind::Prismatic { q_ref } => x[0] = q[0] - q_ref,
            ChartKind::Revolute { q_ref } => x[0] = angle_x(q[0] - q_ref),
            ChartKind::Spherical { r_ref } => {
                x[..3].copy_from_slice(&relative(r_ref, q).xyz().to_array());
            }
            ChartKind::Floating { r_ref, c, c_ref } => {
                let rot = quat(&q[3..7]);
                let dc = rot * c + DVec3::new(q[0], q[1], q[2]) - c_ref;
                x[..3].copy_from_slice(&dc.to_array());
                x[3..6].copy_from_slice(&relative(r_ref, &q[3..7]).xyz().to_array());
            }
            ChartKind::Planar {
                normal,
                u,
                v,
                theta_ref,
                c,
                c_ref,
            } => {
                let rc = DMat3::from_axis_angle(normal, q[2]) * c;
                let dc = rc + u * q[0] + v * q[1] - c_ref;
                x[0] = dc.dot(u);
                x[1] = dc.dot(v);
                x[2] = angle_x(q[2] - theta_ref);
            }
        }
    }

    /// The magnitude of the joint's bounded coordinate (`|X|` of an angle,
    /// `|Q|`) and its bound; `None` for a prismatic joint.
    fn bounded(&self, x: &[f64]) -> Option<(f64, f64)> {
        match self.kind {
            ChartKind::Prismatic { .. } => None,
            ChartKind::Revolute { .. } => Some((x[0].abs(), 2.0)),
            ChartKind::Planar { .. } => Some((x[2].abs(), 2.0)),
            ChartKind::Spherical { .. } => Some((DVec3::from_slice(x).length(), 1.0)),
            ChartKind::Floating { .. } => Some((DVec3::from_slice(&x[3..]).length(), 1.0)),
        }
    }

    /// Number of coordinates.
    fn len(&self) -> usize {
        match self.kind {
            ChartKind::Prismatic { .. } | ChartKind::Revolute { .. } => 1,
            ChartKind::Spherical { .. } | ChartKind::Planar { .. } => 3,
            ChartKind::Floating { .. } => 6,
        }
    }

    fn finite(&self, x: &[f64]) -> bool {
        x[..self.len()].iter().all(|v| v.is_finite())
    }

    /// What the domain of the bounded coordinate is, for errors.
    fn domain_rule(&self) -> &'static str {
        match self.kind {
            ChartKind::Prismatic { .. } => "any finite value",
            ChartKind::Revolute { .. } | ChartKind::Planar { .. } => {
                "an angle coordinate 2 sin(Δ/2) has |X| ≤ 2"
            }
            ChartKind::Spherical { .. } | ChartKind::Floating { .. } => {
                "a quaternion vector part has |Q| ≤ 1"
            }
        }
    }

    fn in_domain(&self, x: &[f64]) -> bool {
        self.finite(x)
            && self
                .bounded(x)
                .is_none_or(|(m, bound)| m <= bound * (1.0 + DOMAIN_SLACK))
    }

    /// The joint's values of `Xᵢ`; the caller checked the domain.
    fn values_of(&self, x: &[f64], q: &mut [f64]) {
        match self.kind {
            ChartKind::Prismatic { q_ref } => q[0] = q_ref + x[0],
            ChartKind::Revolute { q_ref } => {
                q[0] = q_ref + 2.0 * (0.5 * x[0]).clamp(-1.0, 1.0).asin()
            }
            ChartKind::Spherical { r_ref } => {
                write_quat(r_ref * from_vector_part(DVec3::from_slice(x)), q);
            }
            ChartKind::Floating { r_ref, c, c_ref } => {
                let rot = r_ref * from_vector_part(DVec3::from_slice(&x[3..]));
                let t = c_ref + DVec3::from_slice(x) - rot * c;
                q[..3].copy_from_slice(&t.to_array());
                write_quat(rot, &mut q[3..7]);
            }
            ChartKind::Planar {
                normal,
                u,
                v,
                theta_ref,
                c,
                c_ref,
            } => {
                let theta = theta_ref + 2.0 * (0.5 * x[2]).clamp(-1.0, 1.0).asin();
                let rc = DMat3::from_axis_angle(normal, theta) * c;
                let t = c_ref + u * x[0] + v * x[1] - rc;
                q[0] = t.dot(u);
                q[1] = t.dot(v);
                q[2] = theta;
            }
        }
    }

    /// The largest `w ∈ [0, 1]` with `x0 + w dx` in the domain (`x0` in it).
    fn max_step(&self, x0: &[f64], dx: &[f64]) -> f64 {
        let angle = |a: f64, b: f64| {
            if b > 0.0 {
                (2.0 - a) / b
            } else if b < 0.0 {
                (a + 2.0) / -b
            } else {
                1.0
            }
        };
        let ball = |a: DVec3, b: DVec3| {
            // |a + w b|² = 1: bb w² + 2 ab w + (aa − 1) = 0, the positive
            // root in the form that does not cancel.
            let (bb, ab, c) = (b.length_squared(), a.dot(b), a.length_squared() - 1.0);
            if bb == 0.0 {
                return 1.0;
            }
            let root = (ab * ab - bb * c).max(0.0).sqrt();
            if ab >= 0.0 {
                -c / (ab + root)
            } else {
                (root - ab) / bb
            }
        };
        let w = match self.kind {
            ChartKind::Prismatic { .. } => 1.0,
            ChartKind::Revolute { .. } => angle(x0[0], dx[0]),
            ChartKind::Planar { .. } => angle(x0[2], dx[2]),
            ChartKind::Spherical { .. } => ball(DVec3::from_slice(x0), DVec3::from_slice(dx)),
            ChartKind::Floating { .. } => {
                ball(DVec3::from_slice(&x0[3..]), DVec3::from_slice(&dx[3..]))
            }
        };
        if w.is_nan() { 0.0 } else { w.clamp(0.0, 1.0) }
    }

    /// Writes the joint's block of `T` at values `q` into the row-major
    /// `out` (`nx` columns). Returns the offending `|X|` or `|Q|` at a half
    /// turn.
    fn tangent(&self, q: &[f64], out: &mut [f64], nx: usize) -> Result<(), f64> {
        let at = |r: usize, c: usize| (self.x + r) * nx + self.x + c;
        let half_turn = |delta: f64| {
            let cos = (0.5 * wrap_angle(delta)).cos();
            if cos < HALF_TURN {
                Err(angle_x(delta).abs())
            } else {
                Ok(1.0 / cos)
            }
        };
        let rotation = |r_ref: DQuat, q: &[f64]| {
            let r = relative(r_ref, q);
            if r.w < HALF_TURN {
                Err(r.xyz().length())
            } else {
                Ok(rotation_tangent(r_ref, r))
            }
        };
        let put3 = |r0: usize, c0: usize, m: DMat3, out: &mut [f64]| {
            for r in 0..3 {
                for c in 0..3 {
                    out[at(r0 + r, c0 + c)] = m.col(c)[r];
                }
            }
        };
        match self.kind {
            ChartKind::Prismatic { .. } => out[at(0, 0)] = 1.0,
            ChartKind::Revolute { q_ref } => out[at(0, 0)] = half_turn(q[0] - q_ref)?,
            ChartKind::Spherical { r_ref } => put3(0, 0, rotation(r_ref, q)?, out),
            ChartKind::Floating { r_ref, c, .. } => {
                let t_rot = rotation(r_ref, &q[3..7])?;
                let rc = quat(&q[3..7]) * c;
                put3(0, 0, DMat3::IDENTITY, out);
                put3(0, 3, skew(rc) * t_rot, out);
                put3(3, 3, t_rot, out);
            }
            ChartKind::Planar {
                normal,
                u,
                v,
                theta_ref,
                c,
                ..
            } => {
                let dtheta = half_turn(q[2] - theta_ref)?;
                let turn = normal.cross(DMat3::from_axis_angle(normal, q[2]) * c);
                out[at(0, 0)] = 1.0;
                out[at(1, 1)] = 1.0;
                out[at(0, 2)] = -dtheta * turn.dot(u);
                out[at(1, 2)] = -dtheta * turn.dot(v);
                out[at(2, 2)] = dtheta;
            }
        }
        Ok(())
    }
}

/// The object norm around one reference configuration, with its quadratic
/// coordinates `X` (see the [module docs](self)). Owns its data (the tree
/// is shared).
#[derive(Clone, Debug)]
pub struct NormFrame {
    tree: Arc<KinematicTree>,
    q_ref: Vec<f64>,
    volume: f64,
    charts: Vec<Chart>,
    blocks: Vec<MetricBlock>,
    inverses: Vec<MetricBlock>,
}

impl NormFrame {
    /// The kinematic tree (for [`KinematicTree::dof_range`], the layout of
    /// `X`).
    #[must_use]
    pub fn tree(&self) -> &KinematicTree {
        &self.tree
    }

    /// Number of coordinates `X`: [`KinematicTree::dof`].
    #[must_use]
    pub fn nx(&self) -> usize {
        self.tree.dof()
    }

    /// The reference configuration `q_ref`.
    #[must_use]
    pub fn reference(&self) -> &[f64] {
        &self.q_ref
    }

    /// The model's volume `V`.
    #[must_use]
    pub fn total_volume(&self) -> f64 {
        self.volume
    }

    /// The diagonal blocks of `H` (`σ = (1/V) Xᵀ H X`), in coordinate
    /// order; coordinates of no block (none for the supported joints) are
    /// zero rows of `H`.
    #[must_use]
    pub fn blocks(&self) -> &[MetricBlock] {
        &self.blocks
    }

    /// The blocks of the pseudo-inverse `H⁺`, in the order of
    /// [`NormFrame::blocks`]: each block's inverse, or zero for a joint
    /// whose outboard set has no volume.
    #[must_use]
    pub fn inverse_blocks(&self) -> &[MetricBlock] {
        &self.inverses
    }

    fn check_lengths(&self, q: &[f64], x_len: usize, what: &'static str) -> Result<(), PdError> {
        self.tree.validate_config(q)?;
        if x_len != self.nx() {
            return Err(KinematicsError::BufferLength {
                what,
                expected: self.nx(),
                got: x_len,
            }
            .into());
        }
        Ok(())
    }

    /// `σ(q_ref, q)` under sequential change.
    ///
    /// # Errors
    /// The configuration errors of [`KinematicTree::validate_config`].
    pub fn norm(&self, q: &[f64]) -> Result<f64, PdError> {
        self.tree.validate_config(q)?;
        let mut x = [0.0; 6];
        let mut sum = 0.0;
        for chart in &self.charts {
            chart.to_x(&q[chart.q..], &mut x);
            sum += quadratic(&self.blocks[chart.blocks.clone()], &x, chart.x);
        }
        Ok(sum / self.volume)
    }

    /// Factors `(c, C)` with `(1 − s)² c ≤ σ(q(s)) ≤ (1 − s)² C` for
    /// every `s ∈ [0, 1]`, where `q(s)` runs the straight joint-space
    /// segment from `q` to `q_ref` as
    /// [`armature_kinematics::JointSpaceMotion`] interpolates it, when
    /// every joint's coordinates shrink at least linearly towards the
    /// reference: a prismatic joint (exactly linearly), a revolute joint
    /// changed by `|Δ| ≤ 2π`, and a spherical, floating or planar joint
    /// whose rotation is the reference's (its translation is then linear
    /// in `s`). For a revolute joint, with `u = Δ/2` and `t = 1 − s`, the
    /// squared coordinate `4 sin²(t u)` is at least `t²` times its value
    /// at `q`, `4 sin² u`: for `|u| ≤ π/2` because `sin` is concave on
    /// `[0, π/2]`; beyond, because `sin²(t u) ≥ sin² u` while `t |u| ≥ π/2`
    /// and `sin²(t u) ≥ (2 t u / π)² ≥ t²` below. It is at most
    /// `4 t² u² = t² (u / sin u)² · 4 sin² u`. `H` is block diagonal with
    /// positive semidefinite blocks, so `c = σ(q)` and `C` is `σ(q)` with
    /// each revolute term grown by `(u / sin u)²` (`+∞` at `|u| = π`).
    /// `None` for any other segment.
    ///
    /// # Errors
    /// The configuration errors of [`KinematicTree::validate_config`].
    pub fn segment_factors(&self, q: &[f64]) -> Result<Option<(f64, f64)>, PdError> {
        self.tree.validate_config(q)?;
        let mut x = [0.0; 6];
        let (mut lower, mut upper) = (0.0, 0.0);
        for chart in &self.charts {
            let (v, r) = (&q[chart.q..], &self.q_ref[chart.q..]);
            let growth = match chart.kind {
                ChartKind::Prismatic { .. } => Some(1.0),
                ChartKind::Revolute { q_ref } => {
                    let u = 0.5 * (v[0] - q_ref);
                    let sin = u.sin();
                    if u.abs() > PI || u.is_nan() {
                        None
                    } else if u == 0.0 {
                        Some(1.0)
                    } else if sin == 0.0 || u.abs() == PI {
                        Some(f64::INFINITY)
                    } else {
                        Some(u / sin)
                    }
                }
                ChartKind::Spherical { .. } => (v[..4] == r[..4]).then_some(1.0),
                ChartKind::Floating { .. } => (v[3..7] == r[3..7]).then_some(1.0),
                ChartKind::Planar { .. } => (v[2] == r[2]).then_some(1.0),
            };
            let Some(growth) = growth else {
                return Ok(None);
            };
            chart.to_x(v, &mut x);
            let term = quadratic(&self.blocks[chart.blocks.clone()], &x, chart.x);
            lower += term;
            upper = if growth.is_finite() {
                upper + term * growth * growth
            } else {
                f64::INFINITY
            };
        }
        Ok(Some((lower / self.volume, upper / self.volume)))
    }

    /// `(1/V) Xᵀ H X`: the norm of the configuration with coordinates `x`.
    ///
    /// # Panics
    /// If `x.len() != self.nx()`.
    #[must_use]
    pub fn norm_x(&self, x: &[f64]) -> f64 {
        assert_eq!(x.len(), self.nx(), "norm coordinates");
        quadratic(&self.blocks, x, 0) / self.volume
    }

    /// Writes the coordinates `X(q)`.
    ///
    /// # Errors
    /// The configuration errors of [`KinematicTree::validate_config`];
    /// [`KinematicsError::BufferLength`] unless `x.len() == self.nx()`.
    pub fn to_x(&self, q: &[f64], x: &mut [f64]) -> Result<(), PdError> {
        self.check_lengths(q, x.len(), "norm coordinates")?;
        for chart in &self.charts {
            chart.to_x(&q[chart.q..], &mut x[chart.x..]);
        }
        Ok(())
    }

    /// Writes the configuration of coordinates `x` (revolute joints
    /// `q_ref + Δ` with `Δ ∈ [−π, π]`, quaternions `q_ref ⊗ r`; limits are
    /// not applied). `q` needs [`KinematicTree::nq`] values; fixed joints
    /// have none, so nothing else is written.
    ///
    /// # Errors
    /// [`KinematicsError::BufferLength`] for a wrong length of `x` or `q`;
    /// [`PdError::OutsideChart`] naming the first joint whose coordinates
    /// are not finite or outside the domain ([`NormFrame::x_in_domain`]).
    pub fn from_x(&self, x: &[f64], q: &mut [f64]) -> Result<(), PdError> {
        for (what, len, want) in [
            ("norm coordinates", x.len(), self.nx()),
            ("configuration", q.len(), self.tree.nq()),
        ] {
            if len != want {
                return Err(KinematicsError::BufferLength {
                    what,
                    expected: want,
                    got: len,
                }
                .into());
            }
        }
        for chart in &self.charts {
            let xs = &x[chart.x..];
            if !chart.in_domain(xs) {
                let (value, why) = match chart.bounded(xs) {
                    Some((m, _)) if chart.finite(xs) => (m, chart.domain_rule()),
                    _ => (f64::NAN, "coordinates must be finite"),
                };
                return Err(PdError::OutsideChart {
                    link: self.tree.links()[chart.link].name().to_owned(),
                    value,
                    why,
                });
            }
        }
        // The reference holds the values of fixed joints (none) and is a
        // valid starting point for every joint's slice.
        q.copy_from_slice(&self.q_ref);
        for chart in &self.charts {
            chart.values_of(&x[chart.x..], &mut q[chart.q..]);
        }
        Ok(())
    }

    /// Whether `x` has [`NormFrame::nx`] finite entries with every angle
    /// coordinate `|X| ≤ 2` and every quaternion vector part `|Q| ≤ 1` (up
    /// to a relative `1e-12` for rounding): the coordinates
    /// [`NormFrame::from_x`] accepts.
    #[must_use]
    pub fn x_in_domain(&self, x: &[f64]) -> bool {
        x.len() == self.nx()
            && x.iter().all(|v| v.is_finite())
            && self.charts.iter().all(|c| c.in_domain(&x[c.x..]))
    }

    /// The largest `w ∈ [0, 1]` with `x0 + w dx` in the domain, for `x0`
    /// in it (M5 §3.2's adjustment of the quaternion part, and of angle
    /// coordinates); 0 when `x0` is outside or anything is not finite. The
    /// point at `w < 1` lies on the boundary (a half turn), where the chart
    /// is singular; callers that go on linearising there step back a
    /// little.
    ///
    /// # Panics
    /// If `x0` or `dx` does not have [`NormFrame::nx`] entries.
    #[must_use]
    pub fn max_step_in_domain(&self, x0: &[f64], dx: &[f64]) -> f64 {
        assert_eq!(x0.len(), self.nx(), "norm coordinates");
        assert_eq!(dx.len(), self.nx(), "norm step");
        if !self.x_in_domain(x0) || !dx.iter().all(|v| v.is_finite()) {
            return 0.0;
        }
        self.charts
            .iter()
            .map(|c| c.max_step(&x0[c.x..], &dx[c.x..]))
            .fold(1.0, f64::min)
    }

    /// Writes the `dof × nx` row-major matrix `T` (block diagonal per
    /// joint, zero elsewhere) with `d(tangent) = T dX` at `q`, in the
    /// tangent coordinates of [`KinematicTree::point_jacobian`]: the
    /// Jacobian of a world point with respect to `X` is `J(q) T` (formulas
    /// in the [module docs](self)).
    ///
    /// # Errors
    /// The configuration errors of [`KinematicTree::validate_config`];
    /// [`KinematicsError::BufferLength`] unless `out.len() == dof · nx`;
    /// [`PdError::OutsideChart`] naming a joint a half turn from the
    /// reference (`cos(Δ/2)` or the quaternion's `w` below `1e-12`), where
    /// `T` is singular.
    pub fn tangent_from_x(&self, q: &[f64], out: &mut [f64]) -> Result<(), PdError> {
        // Every supported joint has as many coordinates as tangent
        // dimensions, so `T` is square.
        let nx = self.nx();
        self.tree.validate_config(q)?;
        if out.len() != nx * nx {
            return Err(KinematicsError::BufferLength {
                what: "tangent jacobian",
                expected: nx * nx,
                got: out.len(),
            }
            .into());
        }
        out.fill(0.0);
        for chart in &self.charts {
            chart
                .tangent(&q[chart.q..], out, nx)
                .map_err(|value| PdError::OutsideChart {
                    link: self.tree.links()[chart.link].name().to_owned(),
                    value,
                    why: "a half turn from the reference, where the chart is singular",
                })?;
        }
        Ok(())
    }

    /// `out = H v`.
    ///
    /// # Panics
    /// If `v` or `out` does not have [`NormFrame::nx`] entries.
    pub fn apply_h(&self, v: &[f64], out: &mut [f64]) {
        apply(&self.blocks, self.nx(), v, out);
    }

    /// `out = H⁺ v`, the pseudo-inverse: `H⁻¹ v` when every joint's
    /// outboard set has volume; joints without are left out (zero).
    ///
    /// # Panics
    /// If `v` or `out` does not have [`NormFrame::nx`] entries.
    pub fn apply_h_inverse(&self, v: &[f64], out: &mut [f64]) {
        apply(&self.inverses, self.nx(), v, out);
    }

    /// `H` as a dense `nx × nx` row-major matrix.
    #[must_use]
    pub fn h_dense(&self) -> Vec<f64> {
        dense(&self.blocks, self.nx())
    }

    /// The pseudo-inverse `H⁺` as a dense `nx × nx` row-major matrix.
    #[must_use]
    pub fn h_inverse_dense(&self) -> Vec<f64> {
        dense(&self.inverses, self.nx())
    }
}

/// `Σ Xᵀ H X` over `blocks`, with `x[0]` holding coordinate `first`.
fn quadratic(blocks: &[MetricBlock], x: &[f64], first: usize) -> f64 {
    blocks
        .iter()
        .map(|b| match *b {
            MetricBlock::Scalar { index, h, .. } => x[index - first] * x[index - first] * h,
            MetricBlock::Matrix { offset, h, .. } => {
                let v = DVec3::from_slice(&x[offset - first..]);
                v.dot(h * v)
            }
        })
        .sum()
}

fn apply(blocks: &[MetricBlock], n: usize, v: &[f64], out: &mut [f64]) {
    assert_eq!(v.len(), n, "vector length");
    assert_eq!(out.len(), n, "output length");
    out.fill(0.0);
    for b in blocks {
        match *b {
            MetricBlock::Scalar { index, h, .. } => out[index] = h * v[index],
            MetricBlock::Matrix { offset, h, .. } => {
                let r = h * DVec3::from_slice(&v[offset..]);
                out[offset..offset + 3].copy_from_slice(&r.to_array());
            }
        }
    }
}

fn dense(blocks: &[MetricBlock], n: usize) -> Vec<f64> {
    let mut m = vec![0.0; n * n];
    for b in blocks {
        match *b {
            MetricBlock::Scalar { index, h, .. } => m[index * n + index] = h,
            MetricBlock::Matrix { offset, h, .. } => {
                for r in 0..3 {
                    for c in 0..3 {
                        m[(offset + r) * n + offset + c] = h.col(c)[r];
                    }
                }
            }
        }
    }
    m
}
