//! # The safety monitor: stop before anything can meet (M3)
//!
//! **What.** A [`SafetyMonitor`] watches a [`Scene`] whose robots may stand
//! on mobile bases (vehicle, omnidirectional-vehicle, orientation and
//! location joints) and answers, once per control cycle, whether the
//! robots must brake **now**:
//!
//! 1. from each joint's value, velocity, latency, worst-case deceleration
//!    and measurement uncertainty, the interval of values it can still take
//!    until it has stopped (M3 §III-B step 1, [`BrakingModel`]);
//! 2. each link's collision volume (an SSCH: its mesh's convex hull or its
//!    capsule, [`BodyVolumes`]) swept joint by joint over those intervals
//!    into the least common ancestor frame of every pair it is tested in,
//!    with the fast or the accurate operation chosen per joint
//!    ([`Operations`]); a ball swept the same way first bounds every pair
//!    cheaply, and a volume is formed only for the pairs those balls do
//!    not decide;
//! 3. each pair's distance lower bound: link–link, link–obstacle, and
//!    link–moving volume (other robots, people, carts, given every cycle as
//!    SSCHs enclosing where they can be until the model has stopped);
//! 4. [`Verdict::Stop`] if some bound is at most the safety distance, else
//!    [`Verdict::Go`], with the smallest bound and its pair.
//!
//! **Guarantee.** `Go` proves that no two monitored bodies come within the
//! safety distance while every joint stays in its braking interval; the
//! proofs are those of the swept-volume operations and of the monitor
//! core ([`armature_bvh_geometry::monitor`]). A cycle that fails certifies
//! nothing: treat an error as `Stop`.
//!
//! **Bounded time.** [`MonitorSettings::budget`] caps the pair distances
//! per cycle; pairs not evaluated keep a bound carried over from earlier
//! cycles, lowered by how far their volumes grew, so the answer stays
//! conservative (the incremental distance update of M3 §III-B).
//!
//! ```no_run
//! use armature::Scene;
//! use armature::monitor::{MonitorSettings, MonitorState, SafetyMonitor, Verdict};
//!
//! let scene = Scene::from_file("data/scenes/humanoid_lab.ron")?;
//! let mut monitor = SafetyMonitor::new(&scene, MonitorSettings::default())?;
//! let q = scene.body().tree().neutral_configuration();
//! let v = vec![0.2; scene.dof()];
//! // 20 ms latency, 2 units/s² worst deceleration on every joint.
//! let state = MonitorState::uniform(&scene, q, v, 0.02, 2.0)?;
//! let report = monitor.cycle(&state)?;
//! if report.verdict == Verdict::Stop {
//!     // brake now
//! }
//! # Ok::<(), armature::Error>(())
//! ```

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use armature_bvh_geometry::{MonitorBudget, MonitorObstacle, MonitorOptions, SweptVolumeMonitor};
use armature_kinematics::{
    BrakingModel, JointType, OrientationCover, PrismaticCover, RevoluteCover, Ssch,
    SweptVolumeOptions, VehicleCover,
};
use glam::DVec3;
use serde::Deserialize;

use crate::{Error, Scene};

/// Which swept-volume operation a joint gets (M3 §III-C).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
pub enum Operations {
    /// One point per point: `Circ1` (revolute), `Trans1` (prismatic),
    /// `Rot3D1` (orientation), `Vehicle1` (vehicles). Cheaper, looser.
    Fast,
    /// `Circ2`, `Trans2`, `Rot3D4`, `VehicleCirc(2)`: tighter volumes,
    /// more points (they multiply along a chain).
    #[default]
    Accurate,
}

impl Operations {
    /// The kinematics options of this choice.
    #[must_use]
    pub const fn swept(self) -> SweptVolumeOptions {
        match self {
            Self::Fast => SweptVolumeOptions {
                revolute: RevoluteCover::Circ1,
                prismatic: PrismaticCover::Trans1,
                orientation: OrientationCover::Rot3D1,
                vehicle: VehicleCover::Vehicle1,
                max_points: None,
            },
            Self::Accurate => SweptVolumeOptions {
                revolute: RevoluteCover::Circ2,
                prismatic: PrismaticCover::Trans2,
                orientation: OrientationCover::Rot3D4,
                vehicle: VehicleCover::Circ { l: 2 },
                max_points: None,
            },
        }
    }
}

/// Which SSCH stands for a link's geometry (obstacles are always their
/// hulls).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
pub enum BodyVolumes {
    /// The least-volume rounded box around the mesh
    /// ([`armature_bvh_geometry::fitted_ssch`]): at most 8 points, fits
    /// plates, beams and cylinders.
    #[default]
    Fitted,
    /// The convex hull of the mesh (tightest; as many points as hull
    /// vertices, which multiply along the chain).
    Hull,
    /// The link's capsule (two points and a radius; cheap, looser).
    /// Obstacles keep their hulls.
    Capsule,
}

/// The monitor's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct MonitorSettings {
    /// Stop when a distance lower bound is at most this (metres, ≥ 0).
    /// Default 0.
    pub safety_distance: f64,
    /// Factor `k ≥ 1` on every braking distance, as if each deceleration
    /// were only `1/k` of the given one (M3 §V uses 2). Default 1.
    pub safety_factor: f64,
    /// The operation of every joint not named in
    /// [`MonitorSettings::joint_operations`]. Default accurate.
    pub operations: Operations,
    /// Per-joint overrides, by joint name (`body/joint`, as `armature
    /// info` prints them).
    pub joint_operations: BTreeMap<String, Operations>,
    /// The links' volumes. Default [`BodyVolumes::Fitted`].
    pub volumes: BodyVolumes,
    /// Pair distances per cycle. Default unlimited.
    pub budget: MonitorBudget,
    /// Names of the moving volumes each [`MonitorState`] gives, in order.
    pub moving_volumes: Vec<String>,
    /// Most generating points a swept volume keeps after each joint
    /// (fewer points, a larger radius, still enclosing:
    /// `Ssch::reduced`); `None`: no limit. Default
    /// [`DEFAULT_MAX_POINTS`].
    pub max_points: Option<usize>,
}

/// The default of [`MonitorSettings::max_points`]: accurate operations
/// double a volume's points at every joint, and beyond this many the
/// cycle's cost grows faster than the volumes tighten.
pub const DEFAULT_MAX_POINTS: usize = 16;

impl Default for MonitorSettings {
    fn default() -> Self {
        Self {
            safety_distance: 0.0,
            safety_factor: 1.0,
            operations: Operations::Accurate,
            joint_operations: BTreeMap::new(),
            volumes: BodyVolumes::Fitted,
            budget: MonitorBudget::UNLIMITED,
            moving_volumes: Vec::new(),
            max_points: Some(DEFAULT_MAX_POINTS),
        }
    }
}

/// One cycle's input.
#[derive(Clone, Debug, PartialEq)]
pub struct MonitorState {
    /// Joint values (`scene.nq()`, the order of `armature info`). Vehicle
    /// joints are at 0 (braking arcs start at the current pose);
    /// orientation and location joints hold their measurements.
    pub config: Vec<f64>,
    /// Joint velocities (`scene.dof()`, tangent layout: one per scalar
    /// joint, `(v, ω)` for a vehicle, `(φ̇, v, ω)` for an omnidirectional
    /// vehicle, zeros for orientation and location joints).
    pub velocities: Vec<f64>,
    /// One braking model per velocity.
    pub braking: Vec<BrakingModel>,
    /// One SSCH per moving volume (world frame), in the order of
    /// [`MonitorSettings::moving_volumes`].
    pub moving: Vec<Ssch>,
}

impl MonitorState {
    /// A state with the same latency and worst deceleration on every
    /// joint, no uncertainty and no moving volumes.
    ///
    /// # Errors
    /// [`Error::Configuration`] for wrong lengths or non-finite values;
    /// [`Error::InvalidOption`] for a negative latency or a deceleration
    /// that is not positive.
    pub fn uniform(
        scene: &Scene,
        config: Vec<f64>,
        velocities: Vec<f64>,
        latency: f64,
        deceleration: f64,
    ) -> Result<Self, Error> {
        let model = BrakingModel::new(latency, deceleration);
        model.validate().map_err(|_| Error::InvalidOption {
            name: if latency.is_finite() && latency >= 0.0 {
                "deceleration"
            } else {
                "latency"
            },
            value: if latency.is_finite() && latency >= 0.0 {
                deceleration
            } else {
                latency
            },
            why: "latency must be finite and ≥ 0, deceleration finite and > 0",
        })?;
        let s = Self {
            braking: vec![model; velocities.len()],
            config,
            velocities,
            moving: Vec::new(),
        };
        s.check(scene)?;
        Ok(s)
    }

    fn check(&self, scene: &Scene) -> Result<(), Error> {
        scene.check_configuration("config", &self.config)?;
        let dof = scene.dof();
        for (what, got) in [
            ("velocities", self.velocities.len()),
            ("braking", self.braking.len()),
        ] {
            if got != dof {
                return Err(Error::Configuration {
                    which: what.to_owned(),
                    message: format!("{got} values, the scene has {dof} degrees of freedom"),
                });
            }
        }
        if let Some((i, v)) = self
            .velocities
            .iter()
            .enumerate()
            .find(|(_, v)| !v.is_finite())
        {
            return Err(Error::Configuration {
                which: "velocities".to_owned(),
                message: format!("value {i} is {v}"),
            });
        }
        Ok(())
    }
}

/// What the robots must do now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Brake now: some pair may come within the safety distance.
    Stop,
    /// Carry on: no pair can come within the safety distance while
    /// braking.
    Go,
}

/// One cycle's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct SafetyReport {
    /// Stop or go.
    pub verdict: Verdict,
    /// The smallest certified lower bound on a pair's distance (`+∞`
    /// without pairs).
    pub min_distance: f64,
    /// Its pair: link, then link, obstacle or moving volume names.
    pub pair: Option<(String, String)>,
    /// Pairs monitored.
    pub pairs: usize,
    /// Pair distances computed this cycle.
    pub pairs_evaluated: usize,
    /// Generating points of all swept volumes formed this cycle.
    pub swept_points: usize,
    /// Time on the joint operations, the reach balls and the volumes formed
    /// before any pair is taken.
    pub sweep_time: Duration,
    /// Time on bounds and distances, the volumes formed on demand included.
    pub distance_time: Duration,
    /// The whole cycle, braking intervals included.
    pub total_time: Duration,
}

/// The M3 safety monitor over a scene (see the [module docs](self)).
#[derive(Clone, Debug)]
pub struct SafetyMonitor {
    core: SweptVolumeMonitor,
    settings: MonitorSettings,
    nq: usize,
    dof: usize,
    /// Per joint (link) operation counts of the model: (fast revolute,
    /// accurate revolute, vehicles).
    counts: OperationCounts,
}

/// How many joints of the monitored model take each operation kind (the
/// columns of M3 Fig. 8).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OperationCounts {
    /// Revolute and continuous joints with `Circ1`.
    pub circ1: usize,
    /// Revolute and continuous joints with `Circ2`.
    pub circ2: usize,
    /// Prismatic joints.
    pub prismatic: usize,
    /// Vehicle and omnidirectional-vehicle joints.
    pub vehicle: usize,
    /// Orientation and location joints (uncertainty).
    pub uncertainty: usize,
}

impl SafetyMonitor {
    /// A monitor of `scene`'s robots against its obstacles and the moving
    /// volumes the settings name.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] for a bad safety distance or factor;
    /// [`Error::SceneField`]-like [`Error::Configuration`] naming a joint
    /// of `joint_operations` the scene does not have;
    /// [`Error::Geometry`] for an obstacle that moves (give it as a moving
    /// volume) or a link whose volume cannot be formed.
    pub fn new(scene: &Scene, settings: MonitorSettings) -> Result<Self, Error> {
        let d = settings.safety_distance;
        if !(d.is_finite() && d >= 0.0) {
            return Err(Error::InvalidOption {
                name: "safety_distance",
                value: d,
                why: "must be finite and ≥ 0",
            });
        }
        let k = settings.safety_factor;
        if !(k.is_finite() && k >= 1.0) {
            return Err(Error::InvalidOption {
                name: "safety_factor",
                value: k,
                why: "must be finite and ≥ 1",
            });
        }
        let body = scene.body();
        let tree = body.tree();
        if settings.max_points == Some(0) {
            return Err(Error::InvalidOption {
                name: "max_points",
                value: 0.0,
                why: "must be at least 1",
            });
        }
        let mut per_link = vec![
            settings
                .operations
                .swept()
                .with_max_points(settings.max_points);
            tree.len()
        ];
        for (name, op) in &settings.joint_operations {
            let Some(i) = tree.links().iter().position(|l| l.joint().name == *name) else {
                return Err(Error::Configuration {
                    which: "joint_operations".to_owned(),
                    message: format!("the scene has no joint `{name}`"),
                });
            };
            per_link[i] = op.swept().with_max_points(settings.max_points);
        }
        let counts = count_operations(tree, &per_link);
        let bodies = body
            .links()
            .iter()
            .zip(tree.links())
            .map(|(g, link)| {
                g.as_ref()
                    .map(|g| match settings.volumes {
                        BodyVolumes::Fitted => armature_bvh_geometry::fitted_ssch::fitted_ssch(
                            g.mesh.vertices(),
                            &g.obb,
                        ),
                        BodyVolumes::Hull => g.hull_ssch(),
                        BodyVolumes::Capsule => g.lss_ssch(),
                    })
                    .transpose()
                    .map_err(|e| Error::geometry(format!("volume of link `{}`", link.name()), e))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let obstacles = scene
            .obstacles()
            .iter()
            .map(|o| {
                o.monitor_obstacle()
                    .map_err(|e| Error::geometry(format!("obstacle `{}`", o.name()), e))
            })
            .collect::<Result<Vec<MonitorObstacle>, _>>()?;
        let mut disabled = scene.disabled_pairs().clone();
        if !scene.self_collision() {
            for a in 0..tree.len() {
                for b in a + 1..tree.len() {
                    disabled.disable_links(a, b);
                }
            }
        }
        let options = MonitorOptions::default()
            .with_safety_distance(d)
            .with_budget(settings.budget)
            .with_skip_adjacent(scene.skip_adjacent());
        let mut core = SweptVolumeMonitor::new(tree.clone(), bodies, obstacles, &disabled, options)
            .map_err(|e| Error::geometry("safety monitor", e))?
            .with_moving_volumes(settings.moving_volumes.clone());
        core.set_link_operations(per_link)
            .map_err(|e| Error::geometry("safety monitor", e))?;
        Ok(Self {
            core,
            nq: scene.nq(),
            dof: scene.dof(),
            settings,
            counts,
        })
    }

    /// Chooses the operations link by link (`options[k]` for link `k`'s
    /// joint), replacing the settings' choice; the operation counts follow.
    ///
    /// # Errors
    /// [`Error::Configuration`] unless there is one entry per link.
    pub fn set_link_operations(&mut self, options: Vec<SweptVolumeOptions>) -> Result<(), Error> {
        if options.len() != self.core.tree().len() {
            return Err(Error::Configuration {
                which: "link operations".to_owned(),
                message: format!(
                    "{} entries, the scene has {} links",
                    options.len(),
                    self.core.tree().len()
                ),
            });
        }
        self.counts = count_operations(self.core.tree(), &options);
        self.core
            .set_link_operations(options)
            .map_err(|e| Error::geometry("safety monitor", e))
    }

    /// The settings.
    #[must_use]
    pub const fn settings(&self) -> &MonitorSettings {
        &self.settings
    }

    /// How many joints take each operation.
    #[must_use]
    pub const fn operation_counts(&self) -> OperationCounts {
        self.counts
    }

    /// Pairs monitored.
    #[must_use]
    pub fn num_pairs(&self) -> usize {
        self.core.pairs().len()
    }

    /// Changes the budget (e.g. from the time left in the cycle).
    pub fn set_budget(&mut self, budget: MonitorBudget) {
        self.settings.budget = budget;
        self.core.set_budget(budget);
    }

    /// Forgets carried bounds (after a jump of the state the braking model
    /// does not cover).
    pub fn reset(&mut self) {
        self.core.reset();
    }

    /// The monitor core.
    #[must_use]
    pub const fn core(&self) -> &SweptVolumeMonitor {
        &self.core
    }

    /// The last cycle's swept volume of each link in the world frame (link
    /// index, SSCH), for drawing and checking; empty before the first
    /// cycle.
    ///
    /// # Errors
    /// [`Error::Geometry`] naming the link (not after a successful cycle).
    pub fn world_volumes(&self) -> Result<Vec<(usize, Ssch)>, Error> {
        self.core
            .world_volumes()
            .map_err(|e| Error::geometry("world swept volumes", e))
    }

    /// One control cycle.
    ///
    /// # Errors
    /// [`Error::Configuration`] naming `config`, `velocities`, `braking` or
    /// `moving` for wrong lengths or values; [`Error::Geometry`] for a
    /// state the braking model rejects (a moving vehicle value, a velocity
    /// on an orientation joint: the error names the link) or a distance
    /// that fails. An error certifies nothing: brake.
    pub fn cycle(&mut self, state: &MonitorState) -> Result<SafetyReport, Error> {
        let t0 = Instant::now();
        if state.config.len() != self.nq {
            return Err(Error::Configuration {
                which: "config".to_owned(),
                message: format!(
                    "{} values, the scene has {} joint values",
                    state.config.len(),
                    self.nq
                ),
            });
        }
        for (what, got) in [
            ("velocities", state.velocities.len()),
            ("braking", state.braking.len()),
        ] {
            if got != self.dof {
                return Err(Error::Configuration {
                    which: what.to_owned(),
                    message: format!(
                        "{got} values, the scene has {} degrees of freedom",
                        self.dof
                    ),
                });
            }
        }
        if state.moving.len() != self.settings.moving_volumes.len() {
            return Err(Error::Configuration {
                which: "moving".to_owned(),
                message: format!(
                    "{} volumes, the monitor expects {} ({})",
                    state.moving.len(),
                    self.settings.moving_volumes.len(),
                    self.settings.moving_volumes.join(", ")
                ),
            });
        }
        let k = self.settings.safety_factor;
        let models: Vec<BrakingModel> = state
            .braking
            .iter()
            .map(|m| {
                let mut m = *m;
                m.safety_factor *= k;
                m
            })
            .collect();
        let intervals = armature_kinematics::braking_intervals(
            self.core.tree(),
            &state.config,
            &state.velocities,
            &models,
        )
        .map_err(|e| Error::kinematics("braking intervals", e))?;
        let r = self
            .core
            .cycle_with_moving(&intervals, &state.moving)
            .map_err(|e| Error::geometry("safety monitor cycle", e))?;
        let pair = r.closest.map(|p| {
            let (a, b) = self.core.pair_names(p);
            (a.to_owned(), b.to_owned())
        });
        Ok(SafetyReport {
            verdict: if r.stop { Verdict::Stop } else { Verdict::Go },
            min_distance: r.distance_lower_bound,
            pair,
            pairs: self.core.pairs().len(),
            pairs_evaluated: r.pairs_evaluated,
            swept_points: r.swept_points,
            sweep_time: r.sweep_time,
            distance_time: r.distance_time,
            total_time: t0.elapsed(),
        })
    }
}

fn count_operations(
    tree: &armature_kinematics::KinematicTree,
    per_link: &[SweptVolumeOptions],
) -> OperationCounts {
    let mut counts = OperationCounts::default();
    for (l, ops) in tree.links().iter().zip(per_link) {
        match l.joint().kind {
            JointType::Revolute { .. } | JointType::Continuous { .. } => {
                if ops.revolute == RevoluteCover::Circ1 {
                    counts.circ1 += 1;
                } else {
                    counts.circ2 += 1;
                }
            }
            JointType::Prismatic { .. } => counts.prismatic += 1,
            JointType::Vehicle | JointType::OmniVehicle => counts.vehicle += 1,
            JointType::OrientationUncertain { .. } | JointType::LocationUncertain { .. } => {
                counts.uncertainty += 1;
            }
            _ => {}
        }
    }
    counts
}

// ---------------------------------------------------------------------------
// State files.

/// Braking of one joint in a state file; fields left out take the file's
/// defaults.
#[derive(Clone, Copy, Debug, Default, Deserialize)]
#[serde(rename = "Braking", deny_unknown_fields)]
struct BrakingFile {
    #[serde(default)]
    latency: Option<f64>,
    #[serde(default)]
    deceleration: Option<f64>,
    #[serde(default)]
    uncertainty: Option<f64>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(rename = "Moving", deny_unknown_fields)]
struct MovingFile {
    name: String,
    points: Vec<(f64, f64, f64)>,
    #[serde(default)]
    radius: f64,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(rename = "MonitorState", deny_unknown_fields)]
struct StateFile {
    config: Vec<f64>,
    velocities: Vec<f64>,
    latency: f64,
    deceleration: f64,
    #[serde(default)]
    uncertainty: f64,
    #[serde(default)]
    joints: BTreeMap<String, BrakingFile>,
    #[serde(default)]
    safety_distance: f64,
    #[serde(default = "one")]
    safety_factor: f64,
    #[serde(default)]
    operations: Operations,
    #[serde(default)]
    joint_operations: BTreeMap<String, Operations>,
    #[serde(default)]
    volumes: BodyVolumes,
    #[serde(default)]
    moving: Vec<MovingFile>,
    #[serde(default = "default_max_points")]
    max_points: Option<usize>,
}

#[allow(clippy::unnecessary_wraps)] // serde's default must have the field's type
const fn default_max_points() -> Option<usize> {
    Some(DEFAULT_MAX_POINTS)
}

const fn one() -> f64 {
    1.0
}

/// A state file read against a scene: the monitor's settings and one
/// cycle's state (schema in docs/cli.md, "monitor").
#[derive(Clone, Debug, PartialEq)]
pub struct StateFileContents {
    /// The settings it names.
    pub settings: MonitorSettings,
    /// The state.
    pub state: MonitorState,
}

/// Reads a RON state file (schema in docs/cli.md, "monitor") for `scene`.
///
/// # Errors
/// [`Error::Io`] when the file cannot be read; [`Error::SceneSyntax`]
/// with the line and column for malformed RON or an unknown field;
/// [`Error::SceneField`] naming the field for wrong lengths, non-finite
/// values, an unknown joint or a bad braking parameter.
pub fn read_state_file(path: &Path, scene: &Scene) -> Result<StateFileContents, Error> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        file: path.to_path_buf(),
        source,
    })?;
    parse_state(&text, path, scene)
}

/// [`read_state_file`] from text (`path` names it in errors).
///
/// # Errors
/// As [`read_state_file`].
pub fn parse_state(text: &str, path: &Path, scene: &Scene) -> Result<StateFileContents, Error> {
    // Optional fields are written bare (`latency: 0.1`, not `Some(0.1)`).
    let f: StateFile = ron::Options::default()
        .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
        .from_str(text)
        .map_err(|e| crate::scene_file::syntax(path, &e))?;
    let field = |field: &str, message: String| Error::SceneField {
        file: Some(path.to_path_buf()),
        field: field.to_owned(),
        message,
    };
    scene
        .check_configuration("config", &f.config)
        .map_err(|e| field("config", e.to_string()))?;
    if f.velocities.len() != scene.dof() {
        return Err(field(
            "velocities",
            format!(
                "{} values, the scene has {} degrees of freedom",
                f.velocities.len(),
                scene.dof()
            ),
        ));
    }
    if let Some((i, v)) = f
        .velocities
        .iter()
        .enumerate()
        .find(|(_, v)| !v.is_finite())
    {
        return Err(field("velocities", format!("value {i} is {v}")));
    }
    let default = BrakingModel::new(f.latency, f.deceleration).with_uncertainty(f.uncertainty);
    default
        .validate()
        .map_err(|e| field("latency", e.to_string()))?;
    let tree = scene.body().tree();
    let mut braking = vec![default; scene.dof()];
    for (name, b) in &f.joints {
        let Some(i) = tree.links().iter().position(|l| l.joint().name == *name) else {
            return Err(field(
                &format!("joints[\"{name}\"]"),
                "the scene has no such joint".to_owned(),
            ));
        };
        let m = BrakingModel::new(
            b.latency.unwrap_or(f.latency),
            b.deceleration.unwrap_or(f.deceleration),
        )
        .with_uncertainty(b.uncertainty.unwrap_or(f.uncertainty));
        m.validate()
            .map_err(|e| field(&format!("joints[\"{name}\"]"), e.to_string()))?;
        for slot in &mut braking[tree.dof_range(i)] {
            *slot = m;
        }
    }
    // Orientation and location joints carry their uncertainty in the
    // joint; floating and planar joints have none: their models must not
    // carry one (the braking intervals refuse it), so the file's default
    // uncertainty applies to one-value and vehicle joints only.
    for (i, l) in tree.links().iter().enumerate() {
        let scalar_or_vehicle = matches!(
            l.joint().kind,
            JointType::Revolute { .. }
                | JointType::Continuous { .. }
                | JointType::Prismatic { .. }
                | JointType::Vehicle
                | JointType::OmniVehicle
                | JointType::Spherical
        );
        if !scalar_or_vehicle && !f.joints.contains_key(&l.joint().name) {
            for slot in &mut braking[tree.dof_range(i)] {
                slot.uncertainty = 0.0;
            }
        }
    }
    let mut names = Vec::with_capacity(f.moving.len());
    let mut moving = Vec::with_capacity(f.moving.len());
    for (i, m) in f.moving.iter().enumerate() {
        let points: Vec<DVec3> = m
            .points
            .iter()
            .map(|&(x, y, z)| DVec3::new(x, y, z))
            .collect();
        let ssch = Ssch::new(points, m.radius)
            .map_err(|e| field(&format!("moving[{i}]"), e.to_string()))?;
        names.push(m.name.clone());
        moving.push(ssch);
    }
    let settings = MonitorSettings {
        safety_distance: f.safety_distance,
        safety_factor: f.safety_factor,
        operations: f.operations,
        joint_operations: f.joint_operations,
        volumes: f.volumes,
        budget: MonitorBudget::UNLIMITED,
        moving_volumes: names,
        max_points: f.max_points,
    };
    Ok(StateFileContents {
        settings,
        state: MonitorState {
            config: f.config,
            velocities: f.velocities,
            braking,
            moving,
        },
    })
}
