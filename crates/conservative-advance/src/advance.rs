//! Conservative advancement with temporal culling (M4 §6–7).
//!
//! **What.** [`first_contact`] answers "does the body, moving from `q0` to
//! `q1` by the in-between motion, come closer to an obstacle or to itself
//! than the clearance, and when first?" — the contract is stated once, on
//! [`CcdReport`]. With `δ` the distance threshold, each pair gets the
//! clearance `c = min(δ, d(0) / 3)`. Three stages:
//!
//! 1. *Spatial culling* (M4 §5): the dynamic link hierarchy of
//!    `armature-bvh-geometry` encloses every link's OBB over `[0, 1]`,
//!    widened by `3δ`, and keeps the pairs whose swept boxes overlap; a
//!    link's swept box must also meet one of a static obstacle's top boxes
//!    (the boxes of the top levels of its OBB tree, which follow its
//!    surface where the whole box of a long pipe spans the scene), else
//!    the pair is only tested for the link inside the obstacle's solid at
//!    the start (the link never comes within `3δ` of the surface). Chord
//!    boxes ([`CcdOptions::enclosure`]'s default) come in pieces of time,
//!    and the test goes piece by piece: a pair whose link meets no top box
//!    on any piece is treated so too, and one first meeting on the piece
//!    from `a` is more than `3δ` from the surface until `a`, which is its
//!    first iterate (after the same test for the link inside the solid at
//!    the start; its first window then covers the swing of a first step
//!    from `t = 0`). With
//!    [`CcdOptions::time_pieces`] the boxes are also enclosed over `2^r`
//!    equal pieces of `[0, 1]` (`r` from the motion's swing, at most
//!    [`MAX_PIECE_LEVELS`]; M1 §5.1.1's sub-intervals): a pair meeting on
//!    no piece is dropped, and one first meeting on piece `k` is more than
//!    `3δ` apart until `k / 2^r`, which is its first iterate (no distance
//!    at the start is needed for it).
//! 2. *Temporal culling* (M4 §7, Alg. 1): each pair's first CA step
//!    `τ̌ = (d(0) − c) / μ(0)` is a lower bound on the time it first comes
//!    closer than `c`; pairs are processed in ascending `τ̌`, a pair whose
//!    `τ̌` is not below the current minimum is skipped, and a pair's
//!    iterations stop once its time passes the minimum. A pair more than
//!    `μ(0) + δ` apart at `t = 0` needs no distance: its first step passes
//!    `t = 1`. Box tests say so: the link's box against an obstacle's top
//!    boxes, then the OBB trees with boxes grown by that margin (only
//!    where the margin is small beside the pair's sizes). On small
//!    motions (a swing up to [`FIRST_STEP_SWING`]) with projected bounds,
//!    a pair's first iterate is instead a C2A step from `t = 0` (below)
//!    with the clearance `δ` and the contact distance `3δ`: no triangle
//!    pair within `3δ` shows that `δ` is the pair's clearance, and the
//!    pair's advancement goes on from the front that step ended on. Only
//!    a pair with a triangle pair within `3δ` takes a first distance.
//!    Motions small enough that this step's window is the whole motion
//!    take exact C2A steps (relative error 0).
//! 3. *Conservative advancement* (M4 §3.4, §6): from `t` the pair
//!    advances by a step over which its distance provably stays above `c`,
//!    until a triangle pair is within `2c`. Two bounds are offered
//!    ([`CcdOptions::projected_motion_bound`]):
//!    - **projected, per pair of convex volumes** (C2A; the default): each
//!      step is the smallest over a front of the two RSS trees of
//!      `(g − c) / μ_n`, `g` a volume or triangle pair's certified gap
//!      along its own closest direction `n` and `μ_n` a bound on the mean
//!      rate at which that gap can close from `t` within a window
//!      `[t, t + h]`: the smaller of the chain's projected bound for points
//!      within the piece's reach (M4 eq. 10 with `n`,
//!      [`MotionBounds::pair_speed`]) and the piece's actual speed along
//!      `n` at `t` plus the links' acceleration bound times `h / 2` (a
//!      point whose speed grows by at most `|p̈|_max u` after a time `u`
//!      moves by at most `v τ + |p̈|_max τ² / 2` by `τ`;
//!      [`armature_kinematics::PairSpeed::mean_world_bound`]). The
//!      front is refined smallest step first
//!      ([`armature_bvh_geometry::query::advancement_step`]); the window
//!      follows the steps (a quarter longer than the last, or a twentieth
//!      where the window's acceleration term is a large share of the
//!      pair's speed; the first step, shared with temporal culling, is the
//!      unprojected one unless it is a C2A step from `t = 0`), so the
//!      bound tightens as the pair approaches. Each step starts from the
//!      front the last one ended on; for a link against an obstacle or
//!      another robot, whose bounds hold along world directions, a volume
//!      pair carries its last gap less what its speed can close in the
//!      time since ([`armature_bvh_geometry::query::AdvancementFront::elapse`])
//!      and is placed again only where that no longer proves the new
//!      window;
//!    - **unprojected**: a certified lower bound `d(t)` on the mesh
//!      distance (BVH branch and bound over RSS trees; by default an
//!      approximate distance `d̃` within relative error `ε` and
//!      `d = d̃ / (1 + ε)`, [`CcdOptions::distance_relative_error`],
//!      confirmed by the exact distance when `d̃` is within `2c (1 + ε)`;
//!      every triangle distance less its rounding estimate) and
//!      `Δt = (d − c) / μ`, with `μ` a bound on the speed of every point
//!      of the link over `[t, 1]` ([`MotionBounds::mu`], plus a moving
//!      obstacle's speed; [`MotionBounds::mu_relative`] for two links).
//!
//! **Why per volume.** Links and obstacles are arbitrary polygon soups; a
//! bound projected on the closest direction of the whole meshes is wrong
//! for non-convex shapes (a separating slab need not exist), so the
//! projection is applied per pair of convex pieces: RSS volumes and
//! triangles. A link passing an obstacle a few centimetres away then
//! closes the gap slowly along its closest directions however fast it
//! moves, and an approaching pair's bound tends to its actual closing
//! speed as the window shrinks.
//!
//! **Guarantee.** Between `t_k` and `t_k + Δt` no point can close a gap
//! larger than `d(t_k) − c` (or, projected, no piece pair its gap less
//! `c`), so the pair's distance stays at least `c` on
//! `[0, t_final]`: the reported time is never later than the first time
//! the pair comes closer than its clearance (so never later than its
//! first contact), and a pair is reported free only when the advancement
//! passes `t = 1`. A pair that is not within `2c` at an iterate has
//! `d > 2c / (1 + ε)` after the exact confirmation `d > 2c` less rounding,
//! so every step is at least about `c / μ` long. The lower bounds are
//! certified in floating point (the triangle distances' error estimates
//! and the poses' rounding are subtracted), and a threshold below
//! [`MIN_RELATIVE_THRESHOLD`] of the scene's extent is rejected
//! ([`CcdError::ThresholdTooSmall`]). A pair that starts closer than 3δ
//! gets a third of its starting distance as clearance, so a motion that
//! retreats from a reported contact can be answered free; only a pair
//! that touches or intersects at `t = 0` gives
//! [`CcdStatus::CollidingAtStart`]. Temporal culling skips only pairs
//! whose time is provably not smaller than the current minimum, so it does
//! not change the answer's time.
//!
//! **Bounded.** At most [`CcdOptions::max_ca_iterations_per_pair`]
//! iterations per pair; an exhausted pair keeps its last iterate as a
//! lower bound ([`CcdStatus::BudgetExhausted`]), and so does a pair whose
//! distance cannot be certified above its clearance (rounding larger than
//! the gap). In path-validity mode ([`CcdOptions::early_out`]) the lower
//! bound is the smallest over every pair not proven to keep its
//! clearance: the contact found, the exhausted iterates and the first
//! iterates of the pairs never advanced.
//!
//! **Scope.** One articulated body against static or rigidly moving
//! obstacles, and against itself.

use std::cmp::Ordering;
use std::time::Instant;

use armature_bvh_geometry::query::{
    Advance, AdvancementFront, AdvancementOptions, CappedDistance, CollideMode, CollideWorkspace,
    DistanceCache, DistanceWorkspace, MeshDistance, MeshObject, advancement_step_warm, apart_by,
    capped_distance, collide, containment, containment_of_first,
};
use armature_bvh_geometry::{
    ArticulatedBody, DisabledPairs, DynamicHierarchyOptions, DynamicLinkHierarchy,
    EnvironmentHierarchy, GeometryError, LinkGeometry, Obstacle, ObstacleMotion, PotentialPairs,
    TopBoxes,
};
use armature_kinematics::{InBetweenMotion, MotionBounds, PairSpeed};
use glam::{DAffine3, DVec3};

use crate::{CcdError, CcdOptions, CcdReport, CcdStats, CcdStatus, Contact, Other};

/// Relative padding of speed bounds computed here (moving obstacles), for
/// the rounding of a few products and sums.
const SPEED_PAD: f64 = 1e-12;

/// The most halvings of `[0, 1]` temporal culling on pieces uses
/// ([`CcdOptions::time_pieces`]): 8 pieces.
pub const MAX_PIECE_LEVELS: u32 = 3;

/// The swing (radians, see [`CcdScene`]'s piece levels) one piece of the
/// motion should cover.
const PIECE_SWING: f64 = 0.25;

/// The smallest distance threshold accepted, relative to the scene's
/// extent (the largest distance of a vertex from the world origin at the
/// motion's ends). Distances and poses are computed to a few hundred ulps
/// of the extent; every lower bound subtracts that error, and a threshold
/// near it would leave the advancement stalled on rounding. `1e-10` keeps
/// a margin of about 10⁵ over it: 0.1 µm for a 1 km scene, 1e-10 m for a
/// 1 m one.
pub const MIN_RELATIVE_THRESHOLD: f64 = 1e-10;

/// The window of the next C2A speed bound, relative to the last step: a
/// little longer than the step it will allow. A short window keeps the
/// bound tight (the acceleration term and the directions' drift grow with
/// it); steps may grow by this factor per iteration. Measured on the Puma
/// scenes at 30°: 1.25 takes 26 % fewer instructions than 2 and 34 % fewer
/// than 3 (callgrind on the `batch` example).
const WINDOW_SLACK: f64 = 1.25;

/// The window's growth per step instead of [`WINDOW_SLACK`] after a step
/// whose acceleration term was more than [`STEEP_SHARE`] of the pair's
/// speed scale ([`armature_kinematics::PairSpeed::window_share`]): there
/// the bound loosens with the window faster than the step can grow.
/// Measured on the Puma scenes (callgrind on the `batch` example, against
/// 1.25 everywhere): 30° pipes −6.6 %, 30° AMR about −8 %, 60° AMR −25 %,
/// 1° and 15° within ±0.6 %, 5° +0.6 %, the slowest 1° motions +0.2–0.6 %.
/// 1.15 everywhere took less off the large motions (−6 % at 30°, −17 %
/// at 60° AMR) and added 2 % at 1° and up to 20 % to the slowest 1°
/// motions.
const STEEP_WINDOW_SLACK: f64 = 1.05;

/// See [`STEEP_WINDOW_SLACK`]; 0.02–0.2 measured within 1 % of each
/// other at 30°, 0.1 the best at 5°.
const STEEP_SHARE: f64 = 0.1;

/// The largest growth of the window after a step it capped
/// ([`next_window`]).
const MAX_WINDOW_GROWTH: f64 = 4.0;

/// The acceleration share ([`armature_kinematics::PairSpeed::window_share`])
/// the window grows to after a step it capped, up to
/// [`MAX_WINDOW_GROWTH`] times the step: a bound loosened by at most a
/// twentieth. Measured on the Puma scenes (callgrind on the `batch`
/// example, against growing by [`WINDOW_SLACK`]): the twelve slowest of
/// 1,000 motions at 1° on pipes −21 %, 1° −2.9 % on pipes and −3.9 % on
/// AMR, 5° −1.5 %, 30° and the 60° AMR within −0.3 %. Growing this way
/// after every step, capped or not, added about 1 % at 30° and 60°.
const FLAT_SHARE: f64 = 0.05;

/// The window of the next C2A speed bound after a step `s` taken with a
/// window `used` whose acceleration term was `share` of the pair's speed
/// scale ([`armature_kinematics::PairSpeed::window_share`]).
///
/// - Where the share is large (over [`STEEP_SHARE`]), a longer window
///   loosens the bound more than it lets the step grow:
///   [`STEEP_WINDOW_SLACK`] times the step.
/// - After a step the window capped (`s ≥ used`: the geometry would have
///   allowed more) with a small share, the window grows until its share
///   reaches [`FLAT_SHARE`] (the share is proportional to the window),
///   between [`WINDOW_SLACK`] and [`MAX_WINDOW_GROWTH`] times the step: a
///   pair starting a hair from an obstacle on a small motion, whose first
///   iterate is tiny, then reaches the steps its geometry allows in a few
///   iterations instead of growing a quarter at a time.
/// - Otherwise [`WINDOW_SLACK`] times the step.
///
/// Any window is sound (a step never leaves the window its bound holds
/// on); this only chooses how many steps a pair takes.
fn next_window(s: f64, used: f64, share: f64) -> f64 {
    if share > STEEP_SHARE {
        STEEP_WINDOW_SLACK * s
    } else if s >= used {
        // `min` and `max` pass over NaN (`clamp` would keep it); a pair
        // that does not move (share 0) grows the most.
        #[allow(clippy::manual_clamp)]
        let growth = (FLAT_SHARE / share)
            .min(MAX_WINDOW_GROWTH)
            .max(WINDOW_SLACK);
        growth * s
    } else {
        WINDOW_SLACK * s
    }
}

/// The iterate after a C2A step `s` from `t` taken with the speed bound
/// of the window `[t, t_end]` (so `s ≤ t_end − t`), and the window of the
/// next step; `ws.front`'s gaps are declared carried when the speeds hold
/// along world directions. `None` when the step certifies no progress
/// (rounding larger than the gap).
fn next_iterate(t: f64, s: f64, t_end: f64, ws: &mut CcdWorkspace) -> Option<(f64, f64)> {
    // Rounded down, so the step never overshoots.
    let next = t + s.next_down();
    if !(s > 0.0 && next > t) {
        return None;
    }
    // The front's gaps carry to the next step when its speeds are along
    // world directions and still hold (the time passed rounded up).
    if ws.speed.fixed_in_world() && next <= t_end {
        ws.front.elapse((next - t).next_up());
    }
    Some((next, next_window(s, t_end - t, ws.speed.window_share())))
}

/// The least relative error of each pair's first distance (unless the
/// options ask for exact ones): it only orders and culls the pairs, and a
/// looser bound is cheaper. Measured on the Puma scenes at 30°: 1 took
/// 5–10 % off the queries against the options' default 0.5; 1.5 gained no
/// more.
const FIRST_DISTANCE_ERROR: f64 = 1.0;

/// Largest margin, relative to the smaller bounding radius of a pair, for
/// which a pair's first distance is preceded by a grown-box test
/// ([`Scene::apart_at_start`]); past it the grown boxes of many node pairs
/// overlap and the capped distance prunes better.
const APART_REACH: f64 = 0.25;

/// The largest swing (radians: the largest total angle a link's chain
/// turns through, `Σ |ω_k|`, plus its translations over the body's
/// largest link radius) of a motion whose pairs take their first iterate
/// as a C2A step from `t = 0` instead of a first distance and an
/// unprojected step (with [`CcdOptions::projected_motion_bound`]; see the
/// [module docs](self)). Measured on the Puma scenes (callgrind on the
/// `batch` example, against first distances everywhere, the first window
/// covering a swing of 0.15): pipes 1° −17 %, 5° −13 %, 15° −3 %, 30°
/// unchanged; AMR 1° −14 %, 30° and 60° unchanged; the 24 slowest of
/// 1,200 motions at 1° on the pipes −27 %. Without the threshold, 30° on
/// the pipes took 5 % more.
pub const FIRST_STEP_SWING: f64 = 1.2;

/// The swing the window of a first C2A step from `t = 0` covers: the
/// window is `[0, min(1, FIRST_WINDOW_SWING / swing)]`. The speed bound
/// loosens with the window; measured (as [`FIRST_STEP_SWING`]) against
/// the whole motion as the window, 0.15 took 11 % off the 5° motions (0.1
/// as much, 0.25 half as much), and left 1° unchanged (0.05 added 2 %).
/// A pair starting where its box first meets an obstacle's top boxes
/// takes the same first window: against `1.25 t` (the window after an
/// iterate at `t`), 30° Puma motions among the pipes −3.1 %, 60° in the
/// AMR −6.1 %; 0.1 and 0.2 within 0.7 % of 0.15.
const FIRST_WINDOW_SWING: f64 = 0.15;

/// The largest swing (as [`FIRST_STEP_SWING`]) of a motion whose C2A steps
/// are exact (relative error 0, whatever
/// [`CcdOptions::distance_relative_error`]): the motions whose first
/// window is the whole motion. Their steps are limited by the geometry
/// (a face sliding a hair from a parallel one), not by the speed bound,
/// and refining to the triangles lengthens them enough to pay. Measured
/// (as [`FIRST_STEP_SWING`]): the 24 slowest 1° pipes motions −7 %, 1°
/// pipes −2 %, 5° +0.4 %, AMR 1° −0.2 %; exact steps on every motion
/// took 3 % more at 5° and 30°.
const EXACT_STEP_SWING: f64 = FIRST_WINDOW_SWING;

/// Reusable scratch of [`first_contact`]: poses, pair lists and the
/// distance traversal stack. One per thread; after the first queries on a
/// scene the advancement itself does not allocate.
#[derive(Debug, Default)]
pub struct CcdWorkspace {
    poses: Vec<DAffine3>,
    /// The time (its bits) of the current motion `poses` hold, if any: the
    /// pairs asked at one time share one evaluation of the chain.
    posed_at: Option<u64>,
    potential: PotentialPairs,
    tasks: Vec<PairTask>,
    distance: DistanceWorkspace,
    /// The C2A front of the pair being advanced, from its last step.
    front: AdvancementFront,
    /// The fronts the pairs' first C2A steps ended on, kept until they
    /// are advanced ([`PairTask::warm`]); only the first
    /// `fronts_used` belong to the current query.
    fronts: Vec<AdvancementFront>,
    fronts_used: usize,
    collide: CollideWorkspace,
    /// The projected speed bound of the pair being advanced.
    speed: PairSpeed,
    /// The potential pairs of one piece of the motion, and the first piece
    /// each pair of the whole motion meets on.
    piece: PotentialPairs,
    first_piece: Vec<u32>,
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
    /// Lower bound on the time the pair first comes closer than its
    /// clearance (the first iterate).
    bound: f64,
    /// The pair's clearance `c = min(δ, d(0) / 3)`: the distance it must
    /// keep for the motion to be free (see [`CcdReport`]); a contact is
    /// reported once the pair is within `2c`.
    clearance: f64,
    /// Where its boxes first meet on the motion's pieces (0 without
    /// pieces): before, the pair is more than `3δ` apart.
    start: f64,
    /// The start is where the link's box first meets one of a static
    /// obstacle's top boxes (not its whole box): the link may still be
    /// inside the obstacle's solid at `t = 0`.
    start_on_tops: bool,
    /// The link's box over the whole motion, widened by `3δ`, meets none
    /// of a static obstacle's top boxes: no triangle of the obstacle comes
    /// within `3δ` of the link on `[0, 1]`, and only the link inside the
    /// obstacle's solid at the start can make the pair collide.
    apart_throughout: bool,
    /// Set when the first iterate is a C2A step from `t = 0`
    /// ([`FIRST_STEP_SWING`]): the front it ended on (an index into
    /// `CcdWorkspace::fronts`) and the window of the next step.
    warm: Option<(usize, f64)>,
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
    /// Each obstacle's top boxes, placed at `t = 0`.
    obstacle_tops: &'a [&'a TopBoxes],
    options: CcdOptions,
    /// Whether the pairs' first iterates are C2A steps from `t = 0`
    /// ([`FIRST_STEP_SWING`]).
    first_steps: bool,
    /// The motion's swing (see [`FIRST_STEP_SWING`]).
    swing: f64,
}

/// Speed bound of every point of an obstacle: `|v| + |ω| · max |p|` for the
/// motion `p ↦ Rot(k, ωt) R₀ p + T₀ + v t`.
fn obstacle_speed(o: &Obstacle) -> f64 {
    match o.motion() {
        ObstacleMotion::Static(_) => 0.0,
        ObstacleMotion::Rigid { motion, .. } => {
            let r = radius(o.geometry().mesh.vertices());
            (motion.velocity.length() + motion.omega.abs() * r) * (1.0 + SPEED_PAD)
        }
    }
}

/// Largest distance of a point from the origin of its frame.
fn radius(points: &[DVec3]) -> f64 {
    points.iter().map(|p| p.length()).fold(0.0, f64::max)
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
    /// Every link's pose at `t` into `ws.poses`, unless they already hold
    /// them.
    fn pose_all(&self, t: f64, ws: &mut CcdWorkspace) -> Result<(), CcdError> {
        if ws.posed_at != Some(t.to_bits()) {
            // Invalid until written in full.
            ws.posed_at = None;
            self.motion.poses_at(t, &mut ws.poses)?;
            ws.posed_at = Some(t.to_bits());
        }
        Ok(())
    }

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
        e: f64,
        ws: &mut CcdWorkspace,
        cache: &mut DistanceCache,
        stats: &mut CcdStats,
    ) -> Result<CappedDistance, CcdError> {
        self.pose_all(t, ws)?;
        let ga = link_geometry(self.body, link)?;
        let (gb, pose_b) = self.other_at(other, t, &ws.poses)?;
        let a = MeshObject::new(&ga.mesh, &ga.rss_tree, ws.poses[link])?;
        let b = MeshObject::new(&gb.mesh, &gb.rss_tree, pose_b)?;
        stats.distance_calls += 1;
        Ok(capped_distance(
            &a,
            &b,
            e,
            cap,
            &mut ws.distance,
            Some(cache),
        )?)
    }

    /// The distance a pair of clearance `c` must have at `t` to be free for
    /// the rest of the motion at closing speed `mu`: `μ (1 − t) + c`, and at
    /// least the report distance `2c` (so a pair within it is always
    /// found), padded for rounding.
    fn cap(mu: f64, t: f64, c: f64) -> f64 {
        (mu * (1.0 - t) + c).max(2.0 * c) * (1.0 + 1e-9)
    }

    /// Whether the pair's triangles meet at `t` (touching counts); see
    /// [`Scene::contained_at`] for the solids.
    fn surfaces_meet_at(
        &self,
        link: usize,
        other: Other,
        t: f64,
        ws: &mut CcdWorkspace,
    ) -> Result<bool, CcdError> {
        self.pose_all(t, ws)?;
        let ga = link_geometry(self.body, link)?;
        let (gb, pose_b) = self.other_at(other, t, &ws.poses)?;
        let a = MeshObject::new(&ga.mesh, &ga.obb_tree, ws.poses[link])?;
        let b = MeshObject::new(&gb.mesh, &gb.obb_tree, pose_b)?;
        Ok(collide(&a, &b, CollideMode::First, &mut ws.collide).colliding)
    }

    /// Whether the pair's meshes are certainly more than `margin` apart at
    /// the start: the link's box far from an obstacle's top boxes, or
    /// their OBB trees apart with boxes grown by the margin (no distance
    /// is resolved); `false` also when the margin is too large for the
    /// tree test to pay ([`APART_REACH`]).
    fn apart_at_start(
        &self,
        link: usize,
        other: Other,
        margin: f64,
        ws: &mut CcdWorkspace,
    ) -> Result<Apart, CcdError> {
        if !margin.is_finite() {
            return Ok(Apart::No);
        }
        self.pose_all(0.0, ws)?;
        let ga = link_geometry(self.body, link)?;
        if let Other::Obstacle(o) = other
            && let Some(tops) = self.obstacle_tops.get(o)
            && !tops.near(&ga.obb.world_box(&ws.poses[link]), margin)
        {
            return Ok(Apart::FromTopBoxes);
        }
        let (gb, pose_b) = self.other_at(other, 0.0, &ws.poses)?;
        let reach = APART_REACH * ga.sphere.radius.min(gb.sphere.radius);
        if margin > reach {
            return Ok(Apart::No);
        }
        let a = MeshObject::new(&ga.mesh, &ga.obb_tree, ws.poses[link])?;
        let b = MeshObject::new(&gb.mesh, &gb.obb_tree, pose_b)?;
        Ok(if apart_by(&a, &b, margin, &mut ws.collide)?.apart {
            Apart::Trees
        } else {
            Apart::No
        })
    }

    /// The witness when, at `t`, a closed mesh of the pair bounds a solid
    /// holding part of the other mesh (a link inside a closed obstacle, an
    /// obstacle or a link inside a closed link): the pair overlaps although
    /// no triangles meet. The contact's distance is 0, its triangles and
    /// points are the inner point and the nearest point of the enclosing
    /// surface. Open meshes bound nothing; two open meshes never answer.
    ///
    /// With `link_only`, the caller knows that no part of the other lies
    /// inside the link (no triangle of it comes within the link's box):
    /// only the link inside the other's solid is looked for.
    fn contained_at(
        &self,
        link: usize,
        other: Other,
        t: f64,
        link_only: bool,
        ws: &mut CcdWorkspace,
    ) -> Result<Option<Contact>, CcdError> {
        self.pose_all(t, ws)?;
        let ga = link_geometry(self.body, link)?;
        let (gb, pose_b) = self.other_at(other, t, &ws.poses)?;
        if !ga.is_closed() && !gb.is_closed() {
            return Ok(None);
        }
        // A part of one inside the other's solid lies in both bounding
        // spheres: spheres apart hold nothing (placed with their rounding
        // allowance).
        if ga
            .sphere
            .transform(&ws.poses[link])
            .distance(&gb.sphere.transform(&pose_b))
            > 0.0
        {
            return Ok(None);
        }
        let a = MeshObject::new(&ga.mesh, &ga.obb_tree, ws.poses[link])?;
        let b = MeshObject::new(&gb.mesh, &gb.obb_tree, pose_b)?;
        let found = if link_only {
            containment_of_first(&a, &ga.topology, &b, &gb.topology)?
        } else {
            containment(&a, &ga.topology, &b, &gb.topology)?
        };
        let Some(w) = found else {
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
            second_point: None,
            features: None,
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
            second_point: None,
            features: None,
        })
    }

    /// The next iterate of a pair of clearance `c` from `t`, with certified
    /// distance lower bound `d` and closing speed bound `mu`.
    fn step(mu: f64, t: f64, d: f64, c: f64) -> Step {
        // Over [t, t + Δt] the distance stays at least d − μ Δt = c.
        let gap = d - c;
        // NaN counts as no progress too.
        if gap.is_nan() || gap <= 0.0 {
            return Step::Stalled;
        }
        if mu <= 0.0 || gap >= mu * (1.0 - t) {
            return Step::Free;
        }
        // Rounded down, so the step never overshoots.
        let next = t + (gap / mu).next_down();
        if next > t {
            Step::To(next)
        } else if next <= 1.0 {
            Step::Stalled
        } else {
            Step::Free
        }
    }

    /// The pair's certified distance at `t` (below `cap`), confirmed with
    /// the exact distance when the approximate one lies in the band
    /// `(2c, 2c (1 + ε)]`, where its lower bound `d̃ / (1 + ε)` alone could
    /// be too close to `c` for a useful step.
    #[allow(clippy::too_many_arguments)] // Private; a struct would only rename them.
    fn certified_at(
        &self,
        task: &PairTask,
        t: f64,
        cap: f64,
        ws: &mut CcdWorkspace,
        cache: &mut DistanceCache,
        stats: &mut CcdStats,
    ) -> Result<CappedDistance, CcdError> {
        let e = self.options.distance_relative_error;
        let (link, other, c) = (task.link, task.other, task.clearance);
        let d = self.capped_at(link, other, t, cap, e, ws, cache, stats)?;
        let confirm = e > 0.0
            && d.nearest
                .is_some_and(|n| n.distance > 2.0 * c && n.distance <= 2.0 * c * (1.0 + e));
        if confirm {
            return self.capped_at(link, other, t, cap, 0.0, ws, cache, stats);
        }
        Ok(d)
    }

    /// Advances one pair from the iterate `t` (already `iterations` steps
    /// done), giving up as free once `t ≥ cutoff`, with the motion bound
    /// the options choose.
    fn advance(
        &self,
        task: &PairTask,
        t: f64,
        iterations: usize,
        cutoff: f64,
        ws: &mut CcdWorkspace,
        stats: &mut CcdStats,
    ) -> Result<PairOutcome, CcdError> {
        if self.options.projected_motion_bound {
            self.advance_projected(task, t, iterations, cutoff, ws, stats)
        } else {
            self.advance_unprojected(task, t, iterations, cutoff, ws, stats)
        }
    }

    /// [`Scene::advance`] with C2A steps: each is the smallest over a front
    /// of the pair's RSS trees of `(g − c) / μ_n`, every convex piece pair
    /// with its own closest direction `n`
    /// ([`armature_bvh_geometry::query::advancement_step`]) and the chain's
    /// projected speed bound for points within the piece's reach
    /// ([`MotionBounds::pair_speed`]), plus a moving obstacle's whole
    /// speed. A triangle pair within `2c` is a contact, as in the
    /// unprojected advancement.
    fn advance_projected(
        &self,
        task: &PairTask,
        mut t: f64,
        mut iterations: usize,
        cutoff: f64,
        ws: &mut CcdWorkspace,
        stats: &mut CcdStats,
    ) -> Result<PairOutcome, CcdError> {
        // The window `[t, t + window]` the speed bound covers: the shorter,
        // the less the directions drift and the tighter the bound, but no
        // step may leave it. It follows the steps (`WINDOW_SLACK` times the
        // last; the first iterate is the first step), and starts as the
        // whole motion from 0.
        // A pair that starts where its box first meets an obstacle's top
        // boxes is near it there: its first window covers the swing of a
        // first step from `t = 0` ([`FIRST_WINDOW_SWING`]).
        let mut window = if task.start_on_tops && t == task.start {
            FIRST_WINDOW_SWING / self.swing
        } else if t > 0.0 {
            WINDOW_SLACK * t
        } else {
            f64::INFINITY
        };
        // Each step starts from the front the pair's last one ended on.
        match task.warm {
            Some((k, w)) if t > 0.0 => {
                core::mem::swap(&mut ws.front, &mut ws.fronts[k]);
                window = w;
            }
            _ => ws.front.clear(),
        }
        loop {
            if t >= cutoff {
                return Ok(PairOutcome::Free);
            }
            // Not cut at `cutoff`: the iterates must not depend on it, so
            // that temporal culling leaves the time unchanged.
            let t_end = (t + window).min(1.0);
            let s = match self.c2a_step(task, t, t_end, 2.0 * task.clearance, ws, stats)? {
                Advance::Contact(m) => {
                    let poses = core::mem::take(&mut ws.poses);
                    let contact = self.contact(task.link, task.other, t, &m, &poses);
                    ws.poses = poses;
                    return Ok(PairOutcome::Contact(contact?));
                }
                Advance::Step(s) => s,
            };
            if iterations >= self.options.max_ca_iterations_per_pair {
                return Ok(PairOutcome::Exhausted(t));
            }
            iterations += 1;
            stats.ca_iterations += 1;
            if s >= 1.0 - t {
                return Ok(PairOutcome::Free);
            }
            // No certified progress (rounding larger than the gap) gives
            // the pair up.
            let Some((next, w)) = next_iterate(t, s, t_end, ws) else {
                return Ok(PairOutcome::Exhausted(t));
            };
            window = w;
            t = next;
        }
    }

    /// One C2A step of the pair from `t` with the speed bound of the window
    /// `[t, t_end]`: a contact (a triangle pair within `2c`, poses at `t`
    /// left in `ws.poses`), or a step, at most `t_end − t`, over which the
    /// pair stays more than `c` apart.
    fn c2a_step(
        &self,
        task: &PairTask,
        t: f64,
        t_end: f64,
        contact: f64,
        ws: &mut CcdWorkspace,
        stats: &mut CcdStats,
    ) -> Result<Advance, CcdError> {
        let c = task.clearance;
        let (link, other) = (task.link, task.other);
        let (second, obstacle_speed) = match other {
            Other::Link(b) => (Some(b), 0.0),
            Other::Obstacle(o) => (None, self.obstacle_speed[o]),
        };
        let ga = link_geometry(self.body, link)?;
        self.bounds
            .pair_speed(&self.motion, link, second, t, t_end, &mut ws.speed)?;
        self.pose_all(t, ws)?;
        let (gb, pose_b) = self.other_at(other, t, &ws.poses)?;
        let a = MeshObject::new(&ga.mesh, &ga.rss_tree, ws.poses[link])?;
        let b = MeshObject::new(&gb.mesh, &gb.rss_tree, pose_b)?;
        let options = AdvancementOptions {
            clearance: c,
            contact_distance: contact,
            horizon: t_end - t,
            rel_error: if self.swing <= EXACT_STEP_SWING {
                0.0
            } else {
                self.options.distance_relative_error
            },
        };
        stats.distance_calls += 1;
        let speed = &ws.speed;
        let step = advancement_step_warm(
            &a,
            &b,
            &options,
            |n, piece_a, piece_b| speed.piece_bound(n, piece_a, piece_b) + obstacle_speed,
            &mut ws.front,
            &mut ws.distance,
        )?;
        Ok(match step.advance {
            // The bound holds on the window only.
            Advance::Step(s) => Advance::Step(s.min(t_end - t)),
            contact => contact,
        })
    }

    /// The pair's first iterate as a C2A step from `t = 0` with the
    /// clearance `δ` (its clearance must be set to it) and the contact
    /// distance `3δ`, over the window `[0, w]` ([`FIRST_WINDOW_SWING`]):
    /// `None` when a triangle pair is within `3δ` at the start (the
    /// clearance rule then needs the pair's distance). Otherwise no
    /// triangle pair is within `3δ`, so `δ` is the pair's clearance, and
    /// the answer is the iterate (`+∞` past `t = 1`, `0` when no progress
    /// could be certified) and the next window; the front it ended on is
    /// left in `ws.front`, its gaps carried.
    ///
    /// It replaces the first distance and the unprojected step for small
    /// motions: a pair passing a hair from an obstacle paid for a first
    /// distance down to the near-parallel triangles, then for the same
    /// descent again in its first C2A step; here one descent serves both,
    /// and the next steps start from its front.
    fn first_step(
        &self,
        task: &PairTask,
        ws: &mut CcdWorkspace,
        stats: &mut CcdStats,
    ) -> Result<Option<(f64, f64)>, CcdError> {
        let far = 3.0 * self.options.distance_threshold;
        ws.front.clear();
        // A motion that does not move has the whole motion as its window.
        let w0 = (FIRST_WINDOW_SWING / self.swing).min(1.0);
        let s = match self.c2a_step(task, 0.0, w0, far, ws, stats)? {
            Advance::Contact(_) => return Ok(None),
            Advance::Step(s) => s,
        };
        if s >= 1.0 {
            return Ok(Some((f64::INFINITY, f64::INFINITY)));
        }
        Ok(Some(
            next_iterate(0.0, s, w0, ws).unwrap_or((0.0, f64::INFINITY)),
        ))
    }

    /// [`Scene::advance`] with one unprojected speed bound per pair.
    fn advance_unprojected(
        &self,
        task: &PairTask,
        mut t: f64,
        mut iterations: usize,
        cutoff: f64,
        ws: &mut CcdWorkspace,
        stats: &mut CcdStats,
    ) -> Result<PairOutcome, CcdError> {
        let mut cache = DistanceCache::default();
        let c = task.clearance;
        loop {
            if t >= cutoff {
                return Ok(PairOutcome::Free);
            }
            let mu = self.mu(task.link, task.other, t)?;
            let cap = Self::cap(mu, t, c);
            let d = self.certified_at(task, t, cap, ws, &mut cache, stats)?;
            if let Some(n) = d.nearest.filter(|n| n.distance <= 2.0 * c) {
                let poses = core::mem::take(&mut ws.poses);
                let contact = self.contact(task.link, task.other, t, &n, &poses);
                ws.poses = poses;
                return Ok(PairOutcome::Contact(contact?));
            }
            if iterations >= self.options.max_ca_iterations_per_pair {
                return Ok(PairOutcome::Exhausted(t));
            }
            iterations += 1;
            stats.ca_iterations += 1;
            match Self::step(mu, t, d.lower_bound, c) {
                Step::To(next) => t = next,
                Step::Free => return Ok(PairOutcome::Free),
                // The distance is not certified above the clearance (its
                // rounding estimate is too large for the threshold): the
                // pair can only be given up with this lower bound.
                Step::Stalled => return Ok(PairOutcome::Exhausted(t)),
            }
        }
    }
}

/// How [`Scene::apart_at_start`] found a pair apart by its margin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Apart {
    /// Not shown apart.
    No,
    /// The link's box is farther than the margin from every top box of
    /// the obstacle's tree, which hold all its triangles.
    FromTopBoxes,
    /// The two OBB trees, boxes grown by the margin, are apart.
    Trees,
}

/// One conservative-advancement step ([`Scene::step`]).
enum Step {
    /// The next iterate.
    To(f64),
    /// The pair keeps its clearance up to `t = 1`.
    Free,
    /// No certified progress is possible.
    Stalled,
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
    /// Largest distance of a vertex of each link from the link's origin
    /// (`0` for a link without geometry).
    link_radius: Vec<f64>,
    /// Largest distance of an obstacle vertex from the world origin at
    /// `t = 0` and `t = 1`.
    obstacle_extent: f64,
    /// The world boxes of the top levels of each obstacle's OBB tree at
    /// `t = 0`, every level kept ([`Obstacle::top_boxes`], shared by every
    /// scene prepared on the obstacle): a link's swept box far from all
    /// of them culls the pair, and its box at the start far from them
    /// needs no first distance. Every level rather than six took 23–24 %
    /// off the instructions of random Puma motions among the pipes and
    /// 15–21 % in the AMR (docs/benchmarks.md).
    obstacle_tops: Vec<&'a TopBoxes>,
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
                    .with_skip_adjacent(options.skip_adjacent)
                    // 3δ: boxes apart on a piece show the pair more than
                    // 3δ apart there, so it keeps the full clearance δ.
                    .with_margin(3.0 * options.distance_threshold),
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
            link_radius: body
                .links()
                .iter()
                .map(|g| g.as_ref().map_or(0.0, |g| radius(g.mesh.vertices())))
                .collect(),
            obstacle_extent: obstacles
                .iter()
                .flat_map(|o| {
                    let r = radius(o.geometry().mesh.vertices());
                    [0.0, 1.0].map(|t| o.pose_at(t).translation.length() + r)
                })
                .fold(0.0, f64::max),
            obstacle_tops: obstacles.iter().map(Obstacle::top_boxes).collect(),
        })
    }

    /// Rejects a threshold too small for the extent of the motion's ends
    /// (`ws.poses` is scratch).
    fn check_threshold(
        &self,
        motion: &InBetweenMotion,
        ws: &mut CcdWorkspace,
    ) -> Result<(), CcdError> {
        let mut extent = self.obstacle_extent;
        for t in [0.0, 1.0] {
            motion.poses_at(t, &mut ws.poses)?;
            for (pose, r) in ws.poses.iter().zip(&self.link_radius) {
                if *r > 0.0 {
                    extent = extent.max(pose.translation.length() + r);
                }
            }
        }
        let threshold = self.options.distance_threshold;
        let minimum = MIN_RELATIVE_THRESHOLD * extent;
        if threshold < minimum {
            return Err(CcdError::ThresholdTooSmall {
                threshold,
                extent,
                minimum,
                relative: MIN_RELATIVE_THRESHOLD,
            });
        }
        Ok(())
    }

    /// The number of halvings `r` of `[0, 1]` for temporal culling on
    /// pieces: `⌈log₂(swing / PIECE_SWING)⌉` clamped to
    /// `0..=MAX_PIECE_LEVELS`, with the swing the largest total angle any
    /// link's chain turns through (`Σ |ω_k|`) plus its translations over
    /// the body's largest link radius.
    fn piece_levels(&self, motion: &InBetweenMotion) -> u32 {
        let levels = (self.swing(motion) / PIECE_SWING).log2().ceil();
        if levels.is_nan() || levels <= 0.0 {
            0
        } else {
            (levels as u32).min(MAX_PIECE_LEVELS)
        }
    }

    /// The largest total angle any link's chain turns through over the
    /// motion (`Σ |ω_k|`) plus its translations over the body's largest
    /// link radius.
    fn swing(&self, motion: &InBetweenMotion) -> f64 {
        let scale = self.link_radius.iter().copied().fold(0.0, f64::max);
        let local = motion.local();
        let tree = self.body.tree();
        (0..local.len())
            .map(|i| {
                core::iter::once(i)
                    .chain(tree.ancestors(i))
                    .map(|k| {
                        let m = &local[k];
                        let shift = if scale > 0.0 {
                            m.velocity.length() / scale
                        } else {
                            0.0
                        };
                        m.omega.abs() + shift
                    })
                    .sum::<f64>()
            })
            .fold(0.0, f64::max)
    }

    /// Temporal culling on `2^levels` pieces of the motion: drops the
    /// tasks (`ws.tasks`, from `ws.potential`) whose boxes meet on no
    /// piece, and sets the others' `start` to the beginning of the first
    /// piece they meet on.
    fn cull_on_pieces(
        &mut self,
        motion: &InBetweenMotion,
        levels: u32,
        ws: &mut CcdWorkspace,
    ) -> Result<(), CcdError> {
        let n = 1u32 << levels;
        let lo = ws.potential.link_obstacle.len();
        ws.first_piece.clear();
        ws.first_piece.resize(ws.tasks.len(), u32::MAX);
        let mut unseen = ws.tasks.len();
        for k in 0..n {
            if unseen == 0 {
                break;
            }
            let (t0, t1) = (f64::from(k) / f64::from(n), f64::from(k + 1) / f64::from(n));
            self.hierarchy.potential_pairs(
                motion,
                t0,
                t1,
                Some(&self.environment),
                &mut ws.piece,
            )?;
            // A piece's boxes need not lie inside the whole motion's (the
            // enclosures differ): pairs the whole motion culled stay culled.
            let found = ws
                .piece
                .link_obstacle
                .iter()
                .filter_map(|p| ws.potential.link_obstacle.binary_search(p).ok())
                .chain(
                    ws.piece
                        .link_link
                        .iter()
                        .filter_map(|p| ws.potential.link_link.binary_search(p).ok())
                        .map(|i| lo + i),
                );
            for i in found {
                if ws.first_piece[i] == u32::MAX {
                    ws.first_piece[i] = k;
                    unseen -= 1;
                }
            }
        }
        let mut i = 0;
        ws.tasks.retain_mut(|task| {
            let k = ws.first_piece[i];
            i += 1;
            // Not before a start the top boxes gave.
            task.start = task.start.max(f64::from(k) / f64::from(n));
            k != u32::MAX
        });
        Ok(())
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
        self.check_threshold(&motion, ws)?;
        // The poses left there are scratch, not this query's.
        ws.posed_at = None;
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
        let options = self.options;
        let bp = ws.potential.stats;
        stats.pairs_total = bp.link_pairs_considered + bp.obstacle_pairs_considered;
        ws.tasks.clear();
        ws.tasks
            .extend(ws.potential.link_obstacle.iter().map(|&(l, o)| PairTask {
                link: l,
                other: Other::Obstacle(o),
                bound: 0.0,
                clearance: 0.0,
                start: 0.0,
                apart_throughout: false,
                start_on_tops: false,
                warm: None,
            }));
        ws.tasks
            .extend(ws.potential.link_link.iter().map(|&(a, b)| PairTask {
                link: a,
                other: Other::Link(b),
                bound: 0.0,
                clearance: 0.0,
                start: 0.0,
                apart_throughout: false,
                start_on_tops: false,
                warm: None,
            }));
        // The obstacles' boxes are whole meshes (a pipe's spans the
        // scene); their top boxes follow the surface. The link's whole box
        // first, then piece by piece (chord boxes have several pieces): the
        // pair cannot come within 3δ before the first piece whose box meets
        // a top box, and never if none does.
        let boxes = self.hierarchy.link_boxes();
        for task in &mut ws.tasks {
            let Other::Obstacle(o) = task.other else {
                continue;
            };
            if !self.obstacles.get(o).is_some_and(Obstacle::is_static) {
                continue;
            }
            let (Some(tops), Some(b)) = (self.obstacle_tops.get(o), boxes.get(task.link)) else {
                continue;
            };
            if tops.is_empty() {
                continue;
            }
            if !tops.near(b, 0.0) {
                task.apart_throughout = true;
                continue;
            }
            // One piece is the whole box, just tested.
            let pieces = self.hierarchy.link_box_pieces(task.link);
            if pieces.len() < 2 {
                continue;
            }
            match pieces.iter().find(|(_, b)| tops.near(b, 0.0)) {
                None => task.apart_throughout = true,
                Some(&((a, _), _)) if a > 0.0 => {
                    task.start = a;
                    task.start_on_tops = true;
                }
                _ => {}
            }
        }
        let levels = if options.time_pieces {
            self.piece_levels(&motion)
        } else {
            0
        };
        if levels > 0 {
            self.cull_on_pieces(&motion, levels, ws)?;
        }
        stats.pairs_after_spatial = ws.tasks.iter().filter(|t| !t.apart_throughout).count();
        stats.spatial_time = started.elapsed();
        let swing = self.swing(&motion);
        let first_steps = options.projected_motion_bound && swing <= FIRST_STEP_SWING;
        let scene = Scene {
            body: self.body,
            obstacles: self.obstacles,
            motion,
            bounds: &self.bounds,
            obstacle_speed: &self.obstacle_speed,
            obstacle_tops: &self.obstacle_tops,
            options: self.options,
            first_steps,
            swing,
        };
        let options = &self.options;

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
                clearance: 0.0,
                stats,
            });
        }
        // Pairs culled in stage 1 never come within δ; every other pair
        // has its clearance now.
        let clearance = tasks
            .iter()
            .map(|t| t.clearance)
            .fold(options.distance_threshold, f64::min);
        if options.temporal_culling {
            tasks.sort_by(|a, b| a.bound.partial_cmp(&b.bound).unwrap_or(Ordering::Equal));
        }
        stats.temporal_time = started.elapsed();

        // Stage 3: conservative advancement.
        let started = Instant::now();
        let result = advance_all(&scene, &tasks, ws, &mut stats);
        ws.tasks = tasks;
        stats.advance_time = started.elapsed();
        let (status, contact, toc) = result?;
        Ok(CcdReport {
            status,
            contact,
            toc_lower_bound: toc,
            clearance,
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

/// Sets each pair's clearance and lower bound (its first iterate; `+∞`
/// when the first step passes `t = 1`). A pair whose meshes touch or
/// intersect at `t = 0`, or whose distance there cannot be certified
/// positive, is written to `at_start`, and the bounds stop there.
fn lower_bounds(
    scene: &Scene<'_>,
    tasks: &mut [PairTask],
    ws: &mut CcdWorkspace,
    stats: &mut CcdStats,
    at_start: &mut Option<Contact>,
) -> Result<(), CcdError> {
    let delta = scene.options.distance_threshold;
    // The first distances only order and cull the pairs (and tell the
    // pairs within 3δ, which get an exact one): a looser one is enough.
    let e = match scene.options.distance_relative_error {
        e if e > 0.0 => e.max(FIRST_DISTANCE_ERROR),
        e => e,
    };
    let far = 3.0 * delta;
    ws.fronts_used = 0;
    for task in tasks.iter_mut() {
        if task.apart_throughout {
            // No triangle of the obstacle within the link's box at the
            // start either, so none of it inside the link.
            if let Some(c) = scene.contained_at(task.link, task.other, 0.0, true, ws)? {
                *at_start = Some(c);
                return Ok(());
            }
            task.clearance = delta;
            task.bound = f64::INFINITY;
            continue;
        }
        if task.start > 0.0 {
            // Apart by more than 3δ until its first piece (its boxes,
            // widened by 3δ, did not meet): no distance needed at the start.
            // Against a static obstacle's top boxes, no triangle of it
            // within the link's box at the start either, but the link may
            // lie inside its solid.
            if task.start_on_tops
                && let Some(c) = scene.contained_at(task.link, task.other, 0.0, true, ws)?
            {
                *at_start = Some(c);
                return Ok(());
            }
            task.clearance = delta;
            task.bound = task.start;
            continue;
        }
        let (link, other) = (task.link, task.other);
        let mut cache = DistanceCache::default();
        let mu = scene.mu(link, other, 0.0)?;
        // Exact enough to tell whether the pair starts within 3δ, where its
        // clearance becomes a third of its starting distance.
        let cap = Scene::cap(mu, 0.0, delta).max(far * (1.0 + 1e-9));
        // A pair more than the cap apart keeps the clearance δ (the cap is
        // at least 3δ) and its first step passes t = 1 (`d − δ > μ`): a
        // grown-box test says so without resolving any distance. Only a
        // closed mesh holding part of the other can still make it overlap.
        let apart = scene.apart_at_start(link, other, cap, ws)?;
        if apart != Apart::No {
            stats.distance_calls += 1;
            // Far from every top box of the obstacle, no triangle of it
            // lies within the link's box, so none of it inside the link.
            let link_only = apart == Apart::FromTopBoxes;
            if let Some(c) = scene.contained_at(link, other, 0.0, link_only, ws)? {
                *at_start = Some(c);
                return Ok(());
            }
            task.clearance = delta;
            task.bound = f64::INFINITY;
            continue;
        }
        if scene.first_steps {
            task.clearance = delta;
            if let Some((bound, window)) = scene.first_step(task, ws, stats)? {
                // No triangle pair within 3δ: only a closed mesh holding
                // part of the other makes the pair overlap.
                if let Some(c) = scene.contained_at(link, other, 0.0, false, ws)? {
                    *at_start = Some(c);
                    return Ok(());
                }
                task.bound = bound;
                if bound.is_finite() && bound > 0.0 {
                    if ws.fronts.len() == ws.fronts_used {
                        ws.fronts.push(AdvancementFront::new());
                    }
                    let k = ws.fronts_used;
                    ws.fronts_used += 1;
                    core::mem::swap(&mut ws.front, &mut ws.fronts[k]);
                    task.warm = Some((k, window));
                }
                continue;
            }
        }
        let mut d = scene.capped_at(link, other, 0.0, cap, e, ws, &mut cache, stats)?;
        if d.lower_bound < far && e > 0.0 {
            d = scene.capped_at(link, other, 0.0, cap, 0.0, ws, &mut cache, stats)?;
        }
        let starts_touching = d.lower_bound.is_nan() || d.lower_bound <= 0.0;
        if starts_touching
            || (d.lower_bound < far && scene.surfaces_meet_at(link, other, 0.0, ws)?)
        {
            let n = match d.nearest {
                Some(n) => n,
                None => scene
                    .capped_at(link, other, 0.0, f64::MAX, 0.0, ws, &mut cache, stats)?
                    .nearest
                    .ok_or(CcdError::Geometry(GeometryError::InvalidParameter {
                        name: "pose",
                        value: 0.0,
                        why: "no triangle pair has a finite distance",
                    }))?,
            };
            let poses = core::mem::take(&mut ws.poses);
            let c = scene.contact(link, other, 0.0, &n, &poses);
            ws.poses = poses;
            *at_start = Some(c?);
            return Ok(());
        }
        // Apart: only a closed mesh holding part of the other makes the
        // pair overlap.
        if let Some(c) = scene.contained_at(link, other, 0.0, false, ws)? {
            *at_start = Some(c);
            return Ok(());
        }
        task.clearance = if d.lower_bound >= far {
            delta
        } else {
            d.lower_bound / 3.0
        };
        // The first step on the unprojected bound, from the distance just
        // computed: cheap, and enough to order and cull the pairs.
        task.bound = match Scene::step(mu, 0.0, d.lower_bound, task.clearance) {
            Step::To(t) => t,
            Step::Free => f64::INFINITY,
            Step::Stalled => 0.0,
        };
    }
    Ok(())
}

/// Runs the advancement on every pair (in the order given), keeping the
/// earliest contact or exhausted iterate. Returns the status, the contact
/// and the lower bound on the time any pair first breaks its clearance.
fn advance_all(
    scene: &Scene<'_>,
    tasks: &[PairTask],
    ws: &mut CcdWorkspace,
    stats: &mut CcdStats,
) -> Result<(CcdStatus, Option<Contact>, f64), CcdError> {
    let options = &scene.options;
    // The earliest contact, and the earliest exhausted iterate.
    let mut best: Option<Contact> = None;
    let mut exhausted = f64::INFINITY;
    let mut minimum = f64::INFINITY;
    // Where path-validity mode stopped: the pairs from there on were never
    // advanced, and only their first iterates bound their times.
    let mut stopped = tasks.len();
    for (i, task) in tasks.iter().enumerate() {
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
        match scene.advance(task, t, iterations, cutoff, ws, stats)? {
            PairOutcome::Contact(c) => {
                if best.is_none_or(|b| c.time < b.time) {
                    minimum = minimum.min(c.time);
                    best = Some(c);
                }
                if options.early_out {
                    stopped = i + 1;
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
        Some(c) if options.early_out => {
            // Every pair not proven to keep its clearance bounds the time:
            // the ones never advanced by their first iterate, the exhausted
            // ones by their last.
            let unprocessed = tasks[stopped..]
                .iter()
                .map(|p| p.bound)
                .fold(f64::INFINITY, f64::min);
            let toc = c.time.min(exhausted).min(unprocessed);
            (CcdStatus::Collides, Some(c), toc)
        }
        Some(c) if c.time <= exhausted => (CcdStatus::Collides, Some(c), c.time),
        _ if exhausted.is_finite() => (CcdStatus::BudgetExhausted, None, exhausted),
        _ => (CcdStatus::Free, None, 1.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_grow_to_the_flat_share_only_after_capped_steps() {
        // Capped, with a tiny share: the most growth.
        assert_eq!(next_window(0.01, 0.01, 1e-4), MAX_WINDOW_GROWTH * 0.01);
        // Capped, share half the target: twice the step.
        assert!((next_window(0.01, 0.01, FLAT_SHARE / 2.0) - 0.02).abs() < 1e-15);
        // Capped, share near the target: never less than the usual growth.
        assert_eq!(next_window(0.01, 0.01, 0.09), WINDOW_SLACK * 0.01);
        // Limited by the geometry: the usual growth, whatever the share.
        assert_eq!(next_window(0.005, 0.01, 1e-4), WINDOW_SLACK * 0.005);
        // Steep: the least growth, capped or not.
        assert_eq!(next_window(0.01, 0.01, 0.5), STEEP_WINDOW_SLACK * 0.01);
        // A pair that does not move, and a NaN share.
        assert_eq!(next_window(0.01, 0.01, 0.0), MAX_WINDOW_GROWTH * 0.01);
        assert_eq!(next_window(0.01, 0.01, f64::NAN), MAX_WINDOW_GROWTH * 0.01);
    }
}
