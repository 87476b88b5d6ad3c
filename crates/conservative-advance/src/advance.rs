//! Conservative advancement with temporal culling (M4 §6–7).
//!
//! **What.** [`first_contact`] answers "does the body, moving from `q0` to
//! `q1` by the in-between motion, touch an obstacle or itself, and when
//! first?". Three stages:
//!
//! 1. *Spatial culling* (M4 §5): the dynamic link hierarchy of
//!    `armature-bvh-geometry` encloses every link's OBB over `[0, 1]` and
//!    keeps the pairs whose swept boxes overlap.
//! 2. *Temporal culling* (M4 §7, Alg. 1): each pair's first CA step
//!    `τ̌ = (d(0) − δ/2) / μ(0)` is a lower bound on its time of contact;
//!    pairs are processed in ascending `τ̌`, a pair whose `τ̌` is not below
//!    the current minimum is skipped, and a pair's iterations stop once
//!    its time passes the minimum.
//! 3. *Conservative advancement* (M4 §3.4, §6): from `t` with a certified
//!    lower bound `d(t)` on the mesh distance (BVH branch and bound over
//!    RSS trees; by default an approximate distance `d̃` within relative
//!    error `ε` and `d = d̃ / (1 + ε)`,
//!    [`CcdOptions::distance_relative_error`]) the pair advances by
//!    `Δt = (d − δ/2) / μ`, with `δ` the distance threshold and `μ` a bound
//!    on the closing speed over `[t, 1]`, until a triangle pair is within
//!    `δ` (`d̃ ≤ δ`).
//!
//! **Why `μ` is unprojected.** Links and obstacles are arbitrary polygon
//! soups; the direction-projected bound is only valid for convex pieces
//! (DESIGN.md §1), so a link–obstacle pair uses the speed bound of every
//! point of the link ([`MotionBounds::mu`]) plus, for a moving obstacle,
//! the speed bound of its points, and a link–link pair uses
//! [`MotionBounds::mu_relative`].
//!
//! **Guarantee.** A pair advances only while `d̃ > δ`, so its lower bound
//! is `d > δ / (1 + ε) ≥ δ / 1.9`. Between `t_k` and `t_k + Δt` no point
//! can close a gap larger than `d(t_k) − δ/2 > 0`, so the distance stays
//! positive on
//! `[0, t_final)`: the reported time is never later than the first time
//! of contact, and a pair is reported free only when the advancement
//! passes `t = 1`. The `δ/2` kept back absorbs the rounding of the
//! distance. Temporal culling skips only pairs whose time is provably not
//! smaller than the current minimum, so it does not change the answer's
//! time.
//!
//! **Bounded.** At most [`CcdOptions::max_ca_iterations_per_pair`]
//! iterations per pair; an exhausted pair keeps its last iterate as a
//! lower bound ([`CcdStatus::BudgetExhausted`]).
//!
//! **Scope.** One articulated body against static or rigidly moving
//! obstacles, and against itself.

use std::cmp::Ordering;
use std::time::Instant;

use armature_bvh_geometry::query::{
    CappedDistance, CollideMode, CollideWorkspace, DistanceCache, DistanceWorkspace, MeshDistance,
    MeshObject, capped_distance, collide, containment,
};
use armature_bvh_geometry::{
    ArticulatedBody, DisabledPairs, DynamicHierarchyOptions, DynamicLinkHierarchy,
    EnvironmentHierarchy, GeometryError, LinkGeometry, Obstacle, ObstacleMotion, PotentialPairs,
};
use armature_kinematics::{InBetweenMotion, MotionBounds};
use glam::{DAffine3, DVec3};

use crate::{CcdError, CcdOptions, CcdReport, CcdStats, CcdStatus, Contact, Other};

/// Relative padding of speed bounds computed here (moving obstacles), for
/// the rounding of a few products and sums.
const SPEED_PAD: f64 = 1e-12;

/// Reusable scratch of [`first_contact`]: poses, pair lists and the
/// distance traversal stack. One per thread; after the first queries on a
/// scene the advancement itself does not allocate.
#[derive(Debug, Default)]
pub struct CcdWorkspace {
    poses: Vec<DAffine3>,
    potential: PotentialPairs,
    tasks: Vec<PairTask>,
    distance: DistanceWorkspace,
    collide: CollideWorkspace,
}

impl CcdWorkspace {
    /// An empty workspace.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
}

/// One potentially colliding pair and its lower bound.
#[derive(Clone, Copy, Debug)]
struct PairTask {
    link: usize,
    other: Other,
    /// Lower bound on the pair's time of contact (the first iterate).
    bound: f64,
}

/// How one pair's advancement ended.
enum PairOutcome {
    /// Within the threshold at `time`.
    Contact(Contact),
    /// Passed `t = 1`, or passed the cut-off time.
    Free,
    /// Out of iterations at this time.
    Exhausted(f64),
}

/// The per-query data shared by every pair.
struct Scene<'a> {
    body: &'a ArticulatedBody,
    obstacles: &'a [Obstacle],
    motion: InBetweenMotion,
    bounds: &'a MotionBounds,
    /// Speed bound of every point of each obstacle.
    obstacle_speed: &'a [f64],
    options: CcdOptions,
}

/// Speed bound of every point of an obstacle: `|v| + |ω| · max |p|` for the
/// motion `p ↦ Rot(k, ωt) R₀ p + T₀ + v t`.
fn obstacle_speed(o: &Obstacle) -> f64 {
    match o.motion() {
        ObstacleMotion::Static(_) => 0.0,
        ObstacleMotion::Rigid { motion, .. } => {
            let r = o
                .geometry()
                .mesh
                .vertices()
                .iter()
                .map(|p| p.length())
                .fold(0.0, f64::max);
            (motion.velocity.length() + motion.omega.abs() * r) * (1.0 + SPEED_PAD)
        }
    }
}

/// The geometry of link `i` (pairs only name links with geometry).
fn link_geometry(body: &ArticulatedBody, i: usize) -> Result<&LinkGeometry, CcdError> {
    body.link_geometry(i)?
        .ok_or(CcdError::Geometry(GeometryError::IndexOutOfBounds {
            what: "link with geometry",
            index: i,
            len: body.links().len(),
        }))
}

impl Scene<'_> {
    /// The closing-speed bound of a pair over `[t, 1]`.
    fn mu(&self, link: usize, other: Other, t: f64) -> Result<f64, CcdError> {
        Ok(match other {
            Other::Obstacle(o) => self.bounds.mu(&self.motion, link, t)? + self.obstacle_speed[o],
            Other::Link(b) => self.bounds.mu_relative(&self.motion, link, b, t)?,
        })
    }

    /// The other object's geometry and pose at `t` (`poses` at `t`).
    fn other_at<'s>(
        &'s self,
        other: Other,
        t: f64,
        poses: &[DAffine3],
    ) -> Result<(&'s LinkGeometry, DAffine3), CcdError> {
        match other {
            Other::Obstacle(o) => {
                let ob = self
                    .obstacles
                    .get(o)
                    .ok_or(GeometryError::IndexOutOfBounds {
                        what: "obstacle",
                        index: o,
                        len: self.obstacles.len(),
                    })?;
                Ok((ob.geometry(), ob.pose_at(t)))
            }
            Other::Link(b) => Ok((link_geometry(self.body, b)?, poses[b])),
        }
    }

    /// The pair's distance at `t`, needed exactly (up to the relative
    /// error) only below `cap`: a certified lower bound, and the nearest
    /// triangle pair when it is within the cap.
    #[allow(clippy::too_many_arguments)] // Private; a struct would only rename them.
    fn capped_at(
        &self,
        link: usize,
        other: Other,
        t: f64,
        cap: f64,
        ws: &mut CcdWorkspace,
        cache: &mut DistanceCache,
        stats: &mut CcdStats,
    ) -> Result<CappedDistance, CcdError> {
        self.motion.poses_at(t, &mut ws.poses)?;
        let ga = link_geometry(self.body, link)?;
        let (gb, pose_b) = self.other_at(other, t, &ws.poses)?;
        let a = MeshObject::new(&ga.mesh, &ga.rss_tree, ws.poses[link])?;
        let b = MeshObject::new(&gb.mesh, &gb.rss_tree, pose_b)?;
        stats.distance_calls += 1;
        let e = self.options.distance_relative_error;
        Ok(capped_distance(
            &a,
            &b,
            e,
            cap,
            &mut ws.distance,
            Some(cache),
        )?)
    }

    /// The distance a pair must keep from `t` on to be free for the rest
    /// of the motion at closing speed `mu`: `μ (1 − t) + δ/2`, and at least
    /// the threshold `δ` (so a pair within the threshold is always found),
    /// padded for rounding.
    fn cap(&self, mu: f64, t: f64) -> f64 {
        let delta = self.options.distance_threshold;
        (mu * (1.0 - t) + 0.5 * delta).max(delta) * (1.0 + 1e-9)
    }

    /// Whether the pair intersects at `t`: its meshes' triangles meet
    /// (touching counts), or a closed mesh of the pair holds part of the
    /// other ([`Scene::contained_at`]).
    fn intersects_at(
        &self,
        link: usize,
        other: Other,
        t: f64,
        ws: &mut CcdWorkspace,
    ) -> Result<bool, CcdError> {
        self.motion.poses_at(t, &mut ws.poses)?;
        let ga = link_geometry(self.body, link)?;
        let (gb, pose_b) = self.other_at(other, t, &ws.poses)?;
        let a = MeshObject::new(&ga.mesh, &ga.obb_tree, ws.poses[link])?;
        let b = MeshObject::new(&gb.mesh, &gb.obb_tree, pose_b)?;
        if collide(&a, &b, CollideMode::First, &mut ws.collide).colliding {
            return Ok(true);
        }
        Ok(self.contained_at(link, other, t, ws)?.is_some())
    }

    /// The witness when, at `t`, a closed mesh of the pair bounds a solid
    /// holding part of the other mesh (a link inside a closed obstacle, an
    /// obstacle or a link inside a closed link): the pair overlaps although
    /// no triangles meet. The contact's distance is 0, its triangles and
    /// points are the inner point and the nearest point of the enclosing
    /// surface. Open meshes bound nothing; two open meshes never answer.
    fn contained_at(
        &self,
        link: usize,
        other: Other,
        t: f64,
        ws: &mut CcdWorkspace,
    ) -> Result<Option<Contact>, CcdError> {
        self.motion.poses_at(t, &mut ws.poses)?;
        let ga = link_geometry(self.body, link)?;
        let (gb, pose_b) = self.other_at(other, t, &ws.poses)?;
        if !ga.is_closed() && !gb.is_closed() {
            return Ok(None);
        }
        let a = MeshObject::new(&ga.mesh, &ga.obb_tree, ws.poses[link])?;
        let b = MeshObject::new(&gb.mesh, &gb.obb_tree, pose_b)?;
        let Some(w) = containment(&a, &ga.topology, &b, &gb.topology)? else {
            return Ok(None);
        };
        let normal = (w.point_b - w.point_a).try_normalize().unwrap_or_else(|| {
            let n = gb
                .mesh
                .get_triangle(w.triangle_b as usize)
                .map_or(DVec3::ZERO, |[p, q, r]| (q - p).cross(r - p));
            -pose_b.transform_vector3(n).normalize_or_zero()
        });
        Ok(Some(Contact {
            time: t,
            link,
            other,
            triangle_a: w.triangle_a,
            triangle_b: w.triangle_b,
            distance: 0.0,
            point: (w.point_a + w.point_b) * 0.5,
            normal,
        }))
    }

    /// The witness of a contact at `t` from the distance answer.
    fn contact(
        &self,
        link: usize,
        other: Other,
        t: f64,
        d: &MeshDistance,
        poses: &[DAffine3],
    ) -> Result<Contact, CcdError> {
        let (gb, pose_b) = self.other_at(other, t, poses)?;
        let normal = (d.point_b - d.point_a).try_normalize().unwrap_or_else(|| {
            let n = gb
                .mesh
                .get_triangle(d.triangle_b as usize)
                .map_or(DVec3::ZERO, |[p, q, r]| (q - p).cross(r - p));
            -pose_b.transform_vector3(n).normalize_or_zero()
        });
        Ok(Contact {
            time: t,
            link,
            other,
            triangle_a: d.triangle_a,
            triangle_b: d.triangle_b,
            distance: d.distance,
            point: (d.point_a + d.point_b) * 0.5,
            normal,
        })
    }

    /// The next iterate from `t` with distance lower bound `d` and closing
    /// speed bound `mu`, or `None` when the pair cannot close the gap
    /// before `t = 1`.
    fn step(&self, mu: f64, t: f64, d: f64) -> Option<f64> {
        // Keep half the threshold back: the distance is exact only up to
        // rounding, and the iterate must stay strictly before the contact.
        let gap = d - 0.5 * self.options.distance_threshold;
        if mu <= 0.0 || gap >= mu * (1.0 - t) {
            return None;
        }
        let next = t + gap / mu;
        (next <= 1.0).then_some(next)
    }

    /// Advances one pair from the iterate `t` (already `iterations` steps
    /// done), giving up as free once `t ≥ cutoff`.
    #[allow(clippy::too_many_arguments)] // One private call site; a struct would only rename them.
    fn advance(
        &self,
        link: usize,
        other: Other,
        mut t: f64,
        mut iterations: usize,
        cutoff: f64,
        ws: &mut CcdWorkspace,
        stats: &mut CcdStats,
    ) -> Result<PairOutcome, CcdError> {
        let mut cache = DistanceCache::default();
        loop {
            if t >= cutoff {
                return Ok(PairOutcome::Free);
            }
            let mu = self.mu(link, other, t)?;
            let d = self.capped_at(link, other, t, self.cap(mu, t), ws, &mut cache, stats)?;
            if let Some(n) = d
                .nearest
                .filter(|n| n.distance <= self.options.distance_threshold)
            {
                let poses = core::mem::take(&mut ws.poses);
                let c = self.contact(link, other, t, &n, &poses);
                ws.poses = poses;
                return Ok(PairOutcome::Contact(c?));
            }
            if iterations >= self.options.max_ca_iterations_per_pair {
                return Ok(PairOutcome::Exhausted(t));
            }
            iterations += 1;
            stats.ca_iterations += 1;
            match self.step(mu, t, d.lower_bound) {
                Some(next) => t = next,
                None => return Ok(PairOutcome::Free),
            }
        }
    }
}

/// A body, its obstacles and the options, prepared once for many queries:
/// the motion-bound tables, the dynamic link hierarchy and the
/// environment hierarchy are built here, so a query allocates only what
/// its [`CcdWorkspace`] has not grown to yet. One value per thread (queries
/// reuse the hierarchy's buffers).
#[derive(Debug)]
pub struct CcdScene<'a> {
    body: &'a ArticulatedBody,
    obstacles: &'a [Obstacle],
    options: CcdOptions,
    bounds: MotionBounds,
    obstacle_speed: Vec<f64>,
    hierarchy: DynamicLinkHierarchy,
    environment: EnvironmentHierarchy,
}

impl<'a> CcdScene<'a> {
    /// Prepares `body` against `obstacles` (static or rigidly moving, over
    /// the normalised time `[0, 1]`), never testing the `disabled` pairs.
    ///
    /// # Errors
    /// [`CcdError::InvalidOption`] for options out of range;
    /// [`CcdError::Kinematics`] for a non-finite link mesh;
    /// [`CcdError::Geometry`] when a link box or obstacle box cannot be
    /// computed.
    pub fn new(
        body: &'a ArticulatedBody,
        obstacles: &'a [Obstacle],
        disabled: &DisabledPairs,
        options: &CcdOptions,
    ) -> Result<Self, CcdError> {
        options.validate()?;
        let tree = body.tree();
        // A link without geometry is in no pair; one point keeps the
        // bounds' tables total.
        let points: Vec<&[DVec3]> = body
            .links()
            .iter()
            .map(|g| g.as_ref().map_or(&[DVec3::ZERO][..], |g| g.mesh.vertices()))
            .collect();
        let bounds = MotionBounds::new(tree, &points)?;
        let hierarchy = body
            .dynamic_hierarchy(
                DynamicHierarchyOptions::default()
                    .with_kind(options.enclosure)
                    .with_self_collision(options.self_collision)
                    .with_margin(options.distance_threshold),
            )?
            .with_disabled(disabled.clone());
        Ok(Self {
            body,
            obstacles,
            options: *options,
            bounds,
            obstacle_speed: obstacles.iter().map(obstacle_speed).collect(),
            hierarchy,
            environment: EnvironmentHierarchy::from_obstacles(obstacles)?,
        })
    }

    /// The options.
    #[must_use]
    pub const fn options(&self) -> &CcdOptions {
        &self.options
    }

    /// The first contact while the body moves from `q0` to `q1` by the
    /// in-between motion; see [`first_contact`].
    ///
    /// # Errors
    /// [`CcdError::Kinematics`] for configurations of the wrong length or
    /// not finite; [`CcdError::Geometry`] for poses the queries reject.
    pub fn first_contact(
        &mut self,
        q0: &[f64],
        q1: &[f64],
        ws: &mut CcdWorkspace,
    ) -> Result<CcdReport, CcdError> {
        let tree = self.body.tree();
        let motion = InBetweenMotion::new(tree, q0, q1)?;
        ws.poses.resize(tree.len(), DAffine3::IDENTITY);
        let mut stats = CcdStats::default();

        // Stage 1: spatial culling.
        let started = Instant::now();
        self.hierarchy.potential_pairs(
            &motion,
            0.0,
            1.0,
            Some(&self.environment),
            &mut ws.potential,
        )?;
        let scene = Scene {
            body: self.body,
            obstacles: self.obstacles,
            motion,
            bounds: &self.bounds,
            obstacle_speed: &self.obstacle_speed,
            options: self.options,
        };
        let options = &self.options;
        let bp = ws.potential.stats;
        stats.pairs_total = bp.link_pairs_considered + bp.obstacle_pairs_considered;
        ws.tasks.clear();
        ws.tasks
            .extend(ws.potential.link_obstacle.iter().map(|&(l, o)| PairTask {
                link: l,
                other: Other::Obstacle(o),
                bound: 0.0,
            }));
        ws.tasks
            .extend(ws.potential.link_link.iter().map(|&(a, b)| PairTask {
                link: a,
                other: Other::Link(b),
                bound: 0.0,
            }));
        stats.pairs_after_spatial = ws.tasks.len();
        stats.spatial_time = started.elapsed();

        // Stage 2: lower bounds (the first CA iterate) and the start state.
        let started = Instant::now();
        let mut at_start: Option<Contact> = None;
        let mut tasks = core::mem::take(&mut ws.tasks);
        let result = lower_bounds(&scene, &mut tasks, ws, &mut stats, &mut at_start);
        if let Err(e) = result {
            ws.tasks = tasks;
            return Err(e);
        }
        if let Some(c) = at_start {
            ws.tasks = tasks;
            stats.temporal_time = started.elapsed();
            return Ok(CcdReport {
                status: CcdStatus::CollidingAtStart,
                contact: Some(c),
                toc_lower_bound: 0.0,
                stats,
            });
        }
        let global_bound = tasks.iter().map(|p| p.bound).fold(1.0, f64::min);
        if options.temporal_culling {
            tasks.sort_by(|a, b| a.bound.partial_cmp(&b.bound).unwrap_or(Ordering::Equal));
        }
        stats.temporal_time = started.elapsed();

        // Stage 3: conservative advancement.
        let started = Instant::now();
        let result = advance_all(&scene, &tasks, global_bound, ws, &mut stats);
        ws.tasks = tasks;
        stats.advance_time = started.elapsed();
        let (status, contact, toc) = result?;
        Ok(CcdReport {
            status,
            contact,
            toc_lower_bound: toc,
            stats,
        })
    }
}

/// The first contact of `body` moving from `q0` to `q1` (in-between
/// motion, normalised time `[0, 1]`) with `obstacles` (static or rigidly
/// moving) and, when [`CcdOptions::self_collision`] is set, with its own
/// non-adjacent links; `disabled` pairs are never tested. See the
/// [module docs](self) for the method and the guarantee. For many queries
/// on one scene, prepare a [`CcdScene`] once instead.
///
/// # Errors
/// [`CcdError::InvalidOption`] for options out of range;
/// [`CcdError::Kinematics`] for configurations of the wrong length or not
/// finite; [`CcdError::Geometry`] for geometry the queries reject.
pub fn first_contact(
    body: &ArticulatedBody,
    obstacles: &[Obstacle],
    disabled: &DisabledPairs,
    q0: &[f64],
    q1: &[f64],
    options: &CcdOptions,
    ws: &mut CcdWorkspace,
) -> Result<CcdReport, CcdError> {
    CcdScene::new(body, obstacles, disabled, options)?.first_contact(q0, q1, ws)
}

/// Sets each pair's lower bound: `+∞` when its first step passes `t = 1`,
/// `0` when it is within the threshold at `t = 0`. A pair that intersects
/// at `t = 0` is written to `at_start`, and the bounds stop there.
fn lower_bounds(
    scene: &Scene<'_>,
    tasks: &mut [PairTask],
    ws: &mut CcdWorkspace,
    stats: &mut CcdStats,
    at_start: &mut Option<Contact>,
) -> Result<(), CcdError> {
    let threshold = scene.options.distance_threshold;
    for task in tasks.iter_mut() {
        let mut cache = DistanceCache::default();
        let mu = scene.mu(task.link, task.other, 0.0)?;
        let cap = scene.cap(mu, 0.0);
        let d = scene.capped_at(task.link, task.other, 0.0, cap, ws, &mut cache, stats)?;
        task.bound = match d.nearest.filter(|n| n.distance <= threshold) {
            Some(n) => {
                if scene.intersects_at(task.link, task.other, 0.0, ws)? {
                    let poses = core::mem::take(&mut ws.poses);
                    let c = scene.contact(task.link, task.other, 0.0, &n, &poses);
                    ws.poses = poses;
                    *at_start = Some(c?);
                    return Ok(());
                }
                0.0
            }
            // Apart by more than the threshold: only a closed mesh holding
            // part of the other makes the pair overlap.
            None => match scene.contained_at(task.link, task.other, 0.0, ws)? {
                Some(c) => {
                    *at_start = Some(c);
                    return Ok(());
                }
                None => scene.step(mu, 0.0, d.lower_bound).unwrap_or(f64::INFINITY),
            },
        };
    }
    Ok(())
}

/// Runs the advancement on every pair (in the order given), keeping the
/// earliest contact or exhausted iterate. Returns the status, the contact
/// and the lower bound on the time of contact.
fn advance_all(
    scene: &Scene<'_>,
    tasks: &[PairTask],
    global_bound: f64,
    ws: &mut CcdWorkspace,
    stats: &mut CcdStats,
) -> Result<(CcdStatus, Option<Contact>, f64), CcdError> {
    let options = &scene.options;
    // The earliest contact, and the earliest exhausted iterate.
    let mut best: Option<Contact> = None;
    let mut exhausted = f64::INFINITY;
    let mut minimum = f64::INFINITY;
    for task in tasks {
        if !task.bound.is_finite() {
            // The first step already passes t = 1: free, without culling too.
            continue;
        }
        if options.temporal_culling && task.bound >= minimum {
            continue;
        }
        stats.pairs_after_temporal += 1;
        // With culling off no pair is abandoned early, so both modes see the
        // same iterates and agree on the time.
        let cutoff = if options.temporal_culling {
            minimum.min(1.0 + f64::EPSILON)
        } else {
            f64::INFINITY
        };
        let (t, iterations) = if task.bound > 0.0 {
            (task.bound, 1)
        } else {
            (0.0, 0)
        };
        stats.ca_iterations += iterations;
        match scene.advance(task.link, task.other, t, iterations, cutoff, ws, stats)? {
            PairOutcome::Contact(c) => {
                if best.is_none_or(|b| c.time < b.time) {
                    minimum = minimum.min(c.time);
                    best = Some(c);
                }
                if options.early_out {
                    break;
                }
            }
            PairOutcome::Exhausted(t) => {
                exhausted = exhausted.min(t);
                minimum = minimum.min(t);
            }
            PairOutcome::Free => {}
        }
    }
    Ok(match best {
        Some(c) if c.time <= exhausted => {
            let toc = if options.early_out {
                global_bound.min(c.time)
            } else {
                c.time
            };
            (CcdStatus::Collides, Some(c), toc)
        }
        _ if exhausted.is_finite() => (CcdStatus::BudgetExhausted, None, exhausted),
        _ => (CcdStatus::Free, None, 1.0),
    })
}
