//! The objects of a CULLIDE query and its answer, shared by the GPU and the
//! CPU reference.
//!
//! An object is a triangle soup in world coordinates together with a
//! *dilation* `R ≥ 0`: the object stands for the solid `⋃ T ⊕ B(R)` over
//! its triangles `T` (every point within `R` of a triangle), plus, for a
//! closed environment mesh, the solid it bounds. Swept volumes are
//! tessellated ruled surfaces dilated by the capsule radius plus the
//! tessellation error ([`crate::swept`]); environment objects are the
//! obstacles' meshes with dilation `0`.
//!
//! There are two groups: the links' swept volumes and the environment.
//! Only pairs from different groups are tested; a link is *potentially
//! colliding* when its solid may meet some potentially colliding
//! environment object, and the other way round.

use armature_bvh_geometry::body::Obstacle;
use glam::DVec3;

use crate::CullideError;

/// `Ok` when `index < len`, else [`CullideError::Index`] naming `what`.
pub(crate) const fn check_index(
    what: &'static str,
    index: usize,
    len: usize,
) -> Result<(), CullideError> {
    if index < len {
        Ok(())
    } else {
        Err(CullideError::Index { what, index, len })
    }
}

/// Axis-aligned bounds of a triangle soup (`min ≤ max` componentwise for a
/// non-empty soup).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    /// Smallest coordinates.
    pub min: DVec3,
    /// Largest coordinates.
    pub max: DVec3,
}

impl Bounds {
    /// The empty bounds (`min = +∞`, `max = −∞`).
    pub const EMPTY: Self = Self {
        min: DVec3::INFINITY,
        max: DVec3::NEG_INFINITY,
    };

    /// The bounds of `triangles`, grown by `dilation` on every side.
    #[must_use]
    pub fn of(triangles: &[[DVec3; 3]], dilation: f64) -> Self {
        let mut b = Self::EMPTY;
        for t in triangles {
            for p in t {
                b.min = b.min.min(*p);
                b.max = b.max.max(*p);
            }
        }
        if !triangles.is_empty() {
            b.min -= DVec3::splat(dilation);
            b.max += DVec3::splat(dilation);
        }
        b
    }

    /// Whether no point is inside.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        !(self.min.cmple(self.max).all())
    }

    /// The smallest bounds holding both.
    #[must_use]
    pub fn union(&self, other: &Self) -> Self {
        Self {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }

    /// Whether the two boxes share a point (touching counts).
    #[must_use]
    pub fn overlaps(&self, other: &Self) -> bool {
        self.min.cmple(other.max).all() && other.min.cmple(self.max).all()
    }
}

/// One environment object: an obstacle's triangles in world coordinates.
#[derive(Clone, Debug)]
pub struct EnvironmentObject {
    /// The obstacle's name (for reports).
    pub name: String,
    /// Its triangles in world coordinates (at its pose; see
    /// [`EnvironmentObject::is_static`]).
    pub triangles: Vec<[DVec3; 3]>,
    /// Its dilation (`0` for an obstacle's own surface).
    pub dilation: f64,
    /// Its bounds, dilation included.
    pub bounds: Bounds,
    /// Whether the mesh is closed (it then also stands for the solid it
    /// bounds; CULLIDE handles that by rendering back faces too).
    pub closed: bool,
    /// `false` for a moving obstacle: it is never culled and never culls
    /// (its pairs always stay).
    pub is_static: bool,
}

impl EnvironmentObject {
    /// A static object from its triangles (world coordinates), dilation
    /// and closedness; the bounds are computed.
    #[must_use]
    pub fn new(
        name: impl Into<String>,
        triangles: Vec<[DVec3; 3]>,
        dilation: f64,
        closed: bool,
    ) -> Self {
        Self {
            name: name.into(),
            bounds: Bounds::of(&triangles, dilation),
            triangles,
            dilation,
            closed,
            is_static: true,
        }
    }
}

/// The environment of a scene as CULLIDE objects, one per obstacle, built
/// once and shared by every query.
#[derive(Clone, Debug, Default)]
pub struct Environment {
    objects: Vec<EnvironmentObject>,
}

impl Environment {
    /// One object per obstacle, its triangles placed at its pose (at
    /// `t = 0` for a moving obstacle, which is flagged and never culled).
    ///
    /// # Errors
    /// [`CullideError::NonFinite`] naming the obstacle when a placed
    /// coordinate is not finite.
    pub fn from_obstacles(obstacles: &[Obstacle]) -> Result<Self, CullideError> {
        let mut objects = Vec::with_capacity(obstacles.len());
        for o in obstacles {
            let pose = o.pose_at(0.0);
            let mesh = &o.geometry().mesh;
            let triangles: Vec<[DVec3; 3]> = mesh
                .triangles()
                .map(|t| t.map(|p| pose.transform_point3(p)))
                .collect();
            if let Some(bad) = triangles.iter().flatten().find(|p| !p.is_finite()) {
                return Err(CullideError::NonFinite {
                    what: format!("obstacle `{}` placed vertex", o.name()),
                    value: bad.max_element(),
                });
            }
            objects.push(EnvironmentObject {
                name: o.name().to_owned(),
                bounds: Bounds::of(&triangles, 0.0),
                triangles,
                dilation: 0.0,
                closed: o.geometry().is_closed(),
                is_static: o.is_static(),
            });
        }
        Ok(Self { objects })
    }

    /// An environment of given objects (triangle soups of any origin, for
    /// instance obstacles grown by a dilation).
    #[must_use]
    pub fn from_objects(objects: Vec<EnvironmentObject>) -> Self {
        Self { objects }
    }

    /// The objects, in obstacle order.
    #[must_use]
    pub fn objects(&self) -> &[EnvironmentObject] {
        &self.objects
    }

    /// Number of objects.
    #[must_use]
    pub fn len(&self) -> usize {
        self.objects.len()
    }

    /// Whether there is no object.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// Total number of triangles.
    #[must_use]
    pub fn num_triangles(&self) -> usize {
        self.objects.iter().map(|o| o.triangles.len()).sum()
    }
}

/// Options of a CULLIDE computation, GPU or CPU.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CullideOptions {
    /// Side of the square orthographic views in pixels (GPU only; the
    /// CPU reference is exact). In `[16, 4096]`; default `64`: on the
    /// Puma scenes it culls within 2 % of `256` at a quarter of the
    /// raster work.
    pub resolution: u32,
    /// Rounds of the three views at most; the computation stops earlier
    /// when a round culls nothing. At least 1; default `8`.
    pub max_rounds: usize,
}

impl Default for CullideOptions {
    fn default() -> Self {
        Self {
            resolution: 64,
            max_rounds: 8,
        }
    }
}

impl CullideOptions {
    /// With this view resolution.
    #[must_use]
    pub const fn with_resolution(mut self, resolution: u32) -> Self {
        self.resolution = resolution;
        self
    }

    /// With this round limit.
    #[must_use]
    pub const fn with_max_rounds(mut self, max_rounds: usize) -> Self {
        self.max_rounds = max_rounds;
        self
    }

    /// Checks every field against its documented range.
    ///
    /// # Errors
    /// [`CullideError::InvalidOption`] naming the field.
    pub fn validate(&self) -> Result<(), CullideError> {
        if !(16..=4096).contains(&self.resolution) {
            return Err(CullideError::InvalidOption {
                name: "resolution",
                value: f64::from(self.resolution),
                why: "must lie in [16, 4096] pixels",
            });
        }
        if self.max_rounds == 0 {
            return Err(CullideError::InvalidOption {
                name: "max_rounds",
                value: 0.0,
                why: "must be at least 1",
            });
        }
        Ok(())
    }
}

/// The potentially colliding set a CULLIDE computation leaves.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CullResult {
    /// Per swept volume (in the order given), whether it may still meet
    /// the environment.
    pub swept: Vec<bool>,
    /// Per environment candidate (in the order given), whether it may
    /// still meet a swept volume.
    pub environment: Vec<bool>,
    /// Rounds of the three views run (0 for the CPU reference, which needs
    /// none).
    pub rounds: usize,
    /// Render passes submitted (GPU only).
    pub passes: usize,
    /// Occlusion queries issued (GPU only).
    pub queries: usize,
}

impl CullResult {
    /// Number of swept volumes left.
    #[must_use]
    pub fn swept_left(&self) -> usize {
        self.swept.iter().filter(|&&b| b).count()
    }

    /// Number of environment objects left.
    #[must_use]
    pub fn environment_left(&self) -> usize {
        self.environment.iter().filter(|&&b| b).count()
    }

    /// Whether `self` keeps every object `other` keeps (the contract
    /// between the GPU and the CPU reference: GPU ⊇ CPU).
    #[must_use]
    pub fn contains(&self, other: &Self) -> bool {
        self.swept.len() == other.swept.len()
            && self.environment.len() == other.environment.len()
            && self.swept.iter().zip(&other.swept).all(|(a, b)| *a || !*b)
            && self
                .environment
                .iter()
                .zip(&other.environment)
                .all(|(a, b)| *a || !*b)
    }
}
