//! # ADAPTIVE-BISECTION of paths (M2 §II), its REFINED variant (M2 §VI),
//! its fixed-resolution baseline (M2 §V.A) and the one-end covering walk
//! (M2 §II.E)
//!
//! **Method.** A segment `q_a → q_b` (joint-space straight motion,
//! [`JointSpaceMotion`]) is parameterised by `s ∈ [0, 1]`. For every pair of
//! objects that may meet (a link and an obstacle, or two links of one or
//! several robots, by the pair rules of [`LinkGroups`] and
//! [`DisabledPairs`]) the checker keeps entries `(pair, [s0, s1], η0, η1)`
//! in one priority queue per segment, ordered by the share of the
//! sub-segment the two end bounds leave uncovered, `(λ − η0 − η1) / λ`,
//! largest first (M2 §II.C orders by `λ − η0 − η1`; see *Order* below). A
//! popped entry is dropped when M2 Lemma 1 holds,
//! `λ + pad < η0 + η1` (λ the curve-length bound of the sub-segment,
//! [`CurveLengthBounds::lambda_posed`] for a link against an obstacle,
//! [`CurveLengthBounds::lambda_relative_posed`] for two links: on one chain
//! only the joints between them count; both tightened by the poses at the
//! sub-segment's ends, which the nodes hold anyway); otherwise the sub-segment is split at
//! its midpoint, where GREEDY-DIST gives `η`; `η = 0` there ends the
//! segment as [`PathStatus::Collides`], else both halves go back into the
//! queue. A segment whose queue empties is free.
//!
//! - *Order.* A free segment pops every entry whatever the order; only a
//!   colliding one gains from meeting its collision early. M2's absolute
//!   deficit `λ − η0 − η1` pops the long sub-segments of every pair before
//!   the short ones near a contact (a breadth-first descent in scale);
//!   the relative deficit follows the entries whose ends nearly touch
//!   relative to their motion, which is where a narrow collision is. On
//!   the welding cage's colliding random segments it halved the pops and
//!   the distance queries after the set-up (`examples/path_profile.rs`).
//! - *Look-ahead at near contacts.* The relative deficit follows a near
//!   contact down (an end whose `η` is a micrometre keeps its halves
//!   first at every scale) while a narrow collision next to it waits: a
//!   torch grazing a bar, then clipping it a millimetre further on. So
//!   when a split leaves a half with an end closer than `10⁻³` of its λ,
//!   the pair is tested for overlapping triangles at that half's midpoint,
//!   quarters and eighths at once (the pair's own kinematics and boxes,
//!   then its mesh test: a few thousand instructions each, against a
//!   distance query near the contact's 100,000 or more). An overlap is a
//!   certified collision; none proves nothing, and the bisection goes on.
//!   On the welding cage's colliding random segments (four seeds of 200)
//!   it took 8 % off the instructions; free segments there, among the
//!   pipes and around the car, and the colliding ones among the tori and
//!   the pipes, moved by under 1 % (a threshold of `10⁻²` cost the pipes'
//!   free segments 15 %, `3·10⁻²` 51 %).
//! - *Refined η.* GREEDY-DIST stops at bounding volumes that are apart, so
//!   two volumes that nearly touch give a bound near 0 for meshes far apart
//!   (M2 Fig. 5), and with `ε = 0` bisection would split down to rounding
//!   there. A bound is therefore first asked with the clearance
//!   `τ = 10⁻³ · extent`, which refines the volumes within `τ`: a positive
//!   answer exceeds `τ`, so it is at least what a descent with `ε` would
//!   give (a bound below `τ`, which would then be retried with `τ`), and
//!   where that one would exceed `τ` the two descents refine nearly the
//!   same volumes. Only a zero answer (the triangles within `τ`)
//!   falls back to `ε`, and a positive bound from that is retried with
//!   `τ / 64`, `τ / 64²`, … down to `ε`, the larger bound kept (see
//!   `Scene::eta`). Asking `τ` first rather than after `ε` saved the second
//!   descent wherever the two bounds straddle `τ`: on the Puma's 30°
//!   motions 9 % of the instructions among the pipes and 12 % by the AMR,
//!   on random free segments 5 % among the pipes and 4 % around the car,
//!   on colliding ones in the welding cage 0.3–2 %, elsewhere under 0.2 %
//!   (`examples/path_profile.rs`).
//! - *Shared kinematics.* Midpoints are dyadic parameters, the same for
//!   every pair, so each configuration's forward kinematics is computed
//!   once per segment and cached with its parameter (M2 §II.E, §V).
//! - *Static pre-pass.* A link whose geometry sphere at `q_a` has radius
//!   `r` stays, over the whole segment, within the sphere of radius
//!   `r + λ` (λ the link's world curve-length bound), and within the world
//!   box of its OBB at `q_a` grown by λ; a pair whose swept spheres or
//!   swept boxes are disjoint is never queued (M2 §V).
//! - *Centre first.* A pair's first test is at the segment's centre
//!   `q_m`: with `η_m` there, Lemma 1 on either half holds with the far
//!   end's bound taken as 0 when `max(λ(q_a, q_m), λ(q_m, q_b)) + pad <
//!   η_m`, and the pair is done with one distance query instead of two
//!   (most pairs of a short segment are); a pair whose world boxes at the
//!   centre are farther apart than that is done with none. Only the other
//!   pairs get their bounds at both ends and enter the queue as the two
//!   halves. A pair certainly closer at the centre than the test needs (an
//!   upper bound from the bounding spheres: a long segment) starts from its
//!   ends instead, as M2 does. A pair with a closed mesh is also tested for
//!   containment once, at the centre (at the start when it starts from its
//!   ends): a link inside a closed obstacle touches no triangle, so `η`
//!   alone would miss it, and one configuration is enough, since a part
//!   outside a solid somewhere on the segment cannot get inside without
//!   its surface meeting the solid's, which Lemma 1 excludes.
//! - *Probe.* A long segment (the largest curve-length bound λ over the
//!   links exceeds the largest bounding radius `r` of a link) is first
//!   tested for intersecting triangles on dyadic levels: `s = ½`, then
//!   `¼, ¾`, then `⅛, ⅜, …`, `⌈log₂(λ / r)⌉ + 1` levels clamped to 1–5
//!   (1 to 31 configurations), so consecutive probes move every point by
//!   at most `r / 2` unless the cap binds. Where the rule asks for more
//!   than five levels, a sixth (32 configurations more) tests only the
//!   link–obstacle pairs the first five tested on their meshes whose
//!   link moves more than half its own bounding radius between
//!   consecutive probes: a thin part (a welding torch) crossing a thin
//!   bar collides over a span shorter than the fifth level's spacing,
//!   which bisection would otherwise find after distance queries near
//!   the bar (on the welding cage's random colliding segments, 19–25 %
//!   fewer instructions over four seeds; free ones 1 % more in the cage,
//!   7 % more around the car, none among the pipes; pairs of links,
//!   tested too, cost free segments 5–9 % more for no gain). Each probe
//!   tests the pairs whose world boxes overlap there, and for an
//!   obstacle only when the link's box meets one of the obstacle's *top
//!   boxes* (the world boxes of the top six levels of its OBB tree,
//!   computed once: [`TopBoxes`]), so an
//!   obstacle that spans the scene while its parts are thin (a cage of
//!   bars) costs a few box tests where the link is far from its parts;
//!   where it is near, the mesh test starts from the parts near it
//!   ([`collide_below`]), not from the obstacle's root. An intersection is a certified collision,
//!   found for a few overlap tests rather than distance bounds for every
//!   pair, and the probed configurations are the bisection's own
//!   midpoints, so their forward kinematics is reused. The probe only ever
//!   finds collisions; the guarantee rests on the bisection below. Short
//!   motions (a few degrees of an arm) are not probed: there a probe costs
//!   as much as a sample of fixed-resolution sampling.
//! - *Swept pieces.* After a probe on at least two levels (`2^L ≥ 4`
//!   pieces of length `h = 2^-L`), each link's world boxes at the two ends
//!   of a piece, joined and grown by `h λ / 2`, hold the link over the
//!   piece: λ (the link's bound on the whole segment) is a sum of joint
//!   travels times levers valid all along it, so no point travels more
//!   than `h λ` over a piece, and each is within half of that of where it
//!   is at one of the piece's ends (grown also by the rounding pad and
//!   `ε`). A pair whose boxes (for an obstacle: its top boxes) meet on no
//!   piece is dropped; if a mesh of it is closed and the two boxes at the
//!   start nest, it keeps one containment test, made last (apart all
//!   along, a part cannot get in or out). A pair whose boxes meet only
//!   within a smaller dyadic interval of the segment has its first tests
//!   (*Centre first*) on that interval, whose ends and centre are probed
//!   configurations: no new kinematics. On random free segments,
//!   callgrind instructions fell by 41 % around the car, 62 % among the
//!   skinny tori, 24 % in the welding cage, and 2 % and 1 % on the Puma
//!   among pipes and by the AMR (30° motions), where the obstacles are
//!   near all along; colliding cage segments rose 3 %
//!   (`examples/path_profile.rs`). Ranges that are not dyadic intervals
//!   (each pair's own run of pieces) cost more than they saved: their
//!   centres are new configurations, and each needs its kinematics.
//! - *Deferred pairs.* After a probe, the pairs it never had to test on
//!   their meshes (their boxes apart at every probed configuration) get
//!   their first tests only once the other pairs' entries are all done:
//!   a free segment tests every pair anyway, and a colliding one mostly
//!   collides where the probe found the objects close, so its collision
//!   comes before most pairs cost a distance query.
//! - *Targeted bounds.* Each distance query knows the bound Lemma 1 needs
//!   there (at the centre, the larger half's λ plus the pad; at an end or
//!   a midpoint, what the sub-segments need beyond their other end's
//!   bound). For an obstacle, a link box farther than that bound from
//!   all its top boxes proves the test with no query (at the centre with
//!   the containment test, since a link inside a closed obstacle is far
//!   from its surface). Where that bound is small against the pair's size (at most a
//!   quarter of the smaller bounding radius: short motions, fine
//!   sub-segments) the OBB trees are asked first whether the pair is
//!   farther apart than it (`apart_by`: the collide descent with boxes
//!   grown by the bound, a box test per node pair); a yes proves the test
//!   with no distance computed, a no goes straight to the plain bound.
//!   Otherwise GREEDY-DIST is first run with that clearance, unless the
//!   spheres' upper bound shows it cannot succeed: a positive answer
//!   exceeds it and proves the test in one descent; only a zero answer
//!   falls back to the plain bound with the clearance `ε`. A midpoint
//!   whose halves are proven by their own ends alone (the bound needed
//!   there is negative) is not evaluated at all.
//! - *Targeted descents, only where they pay.* A targeted descent refines
//!   every pair of volumes within the needed bound, so it costs more than
//!   the plain one, which stops at the first volumes apart; it pays where
//!   the plain one is dear too (an arm among pipes: both descend deep),
//!   and not where the plain one is nearly free (thin bars or far-apart
//!   parts: the plain bound of a midpoint costs a few volume tests, so
//!   splitting once more is cheaper than proving at once). Each segment
//!   counts the tests of both kinds; once it has a few of each, a first
//!   test or a split of the plain variant asks for a targeted descent only
//!   while a plain one costs at least 30 % of a targeted one. A split
//!   asks for one only when the bound it needs is below twice the larger
//!   of its ends' bounds, and a first test at an end only when it is below
//!   twice the centre's bound (or the other end's): with the known bound
//!   much smaller than the need, the pair would have to move apart at
//!   nearly full speed for the descent to succeed, and it almost never
//!   does (callgrind, `examples/path_profile.rs`: random free segments
//!   9 % fewer instructions in the welding cage and 6 % among the pipes;
//!   30° Puma motions 6 % among the pipes, 8 % when colliding there, and
//!   8 % by the AMR; colliding cage segments 0.5–2 %). The
//!   guarantee is unchanged (both bounds are certified; a colliding
//!   segment may name another of its collisions), only the work is: on
//!   random free segments, callgrind instructions fell by 54 % in the
//!   welding cage, 65 % around the car, 16 % among the skinny tori,
//!   5 % and 1 % on the Puma among pipes and by the AMR (30° motions),
//!   and stayed within 0.1 % on short motions (1° and 5°), where the
//!   targeted descents pay (`examples/path_profile.rs`).
//! - *Clearance `ε ≥ 0`* (M2 §II.F, §III.B) is GREEDY-DIST's: `η` is 0 or
//!   above `ε`, so a sub-segment is split only while the pair may come
//!   within `ε`, which bounds the run time; the price is that two objects
//!   closer than `ε` at a configuration the check evaluates are reported
//!   as [`PathStatus::Collides`] (the segment's ends always count as
//!   evaluated; in between, Lemma 1 certifies that nothing touches).
//! - *Lazy first tests.* The set-up of a segment is its pre-pass and its
//!   probe; the kept pairs' first tests (*Centre first* above) are the
//!   segment's first pop, so a path query that meets a collision elsewhere
//!   first never pays for them.
//! - *Paths* (M2 §II.D): one queue per segment and a path queue ordered by
//!   the segments' first entries; one pop at a time goes to the segment on
//!   top. When a segment collides, only the segments before it are
//!   finished (to name the earliest colliding segment), and segments after
//!   the earliest one known to collide are not set up; the others keep
//!   their queues in the checker's cache, keyed by the bits of their end
//!   points, and a later query containing the same segment resumes it.
//!   Decided segments are cached with their verdict. Without
//!   [`CheckOptions::earliest_collision`] (a planner's use: it rejects the
//!   path and cuts the colliding segment) the query stops at the first
//!   collision found anywhere: new segments are set up longest first (a
//!   planner's new long connection is the likeliest to collide) until one
//!   probe meets a collision, and the path queue stops at the first
//!   colliding pop. On a hard planning problem among the Puma's pipes,
//!   the planner's runs took 2.5 times less time that way, its path checks
//!   (milestone tests included) 5.7 times less each (`plan_profile` in the
//!   benches' examples).
//! - *REFINED variant* ([`CheckOptions::refined`], M2 §VI, Figs. 15–16):
//!   an entry names a pair of nodes of the two objects' RSS trees (the
//!   roots at first, with the whole pair's `η`) and bounds only the
//!   triangles below them. An entry that fails Lemma 1 is first refined in
//!   space: the larger volume is split, as GREEDY-DIST splits it, and each
//!   child pair keeps at either end the larger of its parent's bound and
//!   its own RSS–RSS bound (computed as GREEDY-DIST computes it), so pairs
//!   of volumes proven apart are never tested again. It is bisected in
//!   time instead when refining cannot help: a pair of leaves, or bounds
//!   above `max(ε, 10⁻³ · extent)` at both ends (where
//!   GREEDY-DIST would descend at neither end, the paper's intersection of
//!   the two descents, with the threshold of the refined η). The midpoint
//!   bound of inner volumes is their RSS bound alone (0 there claims
//!   nothing: the halves are refined in space); that of a pair of leaves is
//!   the larger of the leaves' bound and the whole pair's `η`, and the
//!   whole pair's `η = 0` is the collision (as in the plain variant).
//!   [`PathStats::bv_pairs`] counts the pairs of volumes queued.
//! - *Budget.* Every query may pop at most
//!   [`CheckOptions::max_queue_pops`] entries (cache hits are free); then
//!   the answer is [`PathStatus::BudgetExhausted`], "may collide".
//!
//! **Guarantee.** A segment is reported free only when every queued pair
//! satisfied Lemma 1 on sub-segments covering `[0, 1]`: `η` is a certified
//! lower bound on the surface distance (GREEDY-DIST's contract), λ an
//! upper bound on every point's curve length (the kinematics contract), so
//! no configuration of the segment has touching surfaces, and the
//! centre's containment test (or world boxes apart there) excludes a part
//! inside a solid. A pair proven at the centre alone satisfies Lemma 1 on
//! both halves with `η = 0` at the far ends. In
//! the REFINED variant the entries of a pair cover, at every step, every
//! (triangle pair, sub-segment) not yet proven apart (a split in space
//! partitions the triangle pairs, one in time the sub-segment); each bound
//! is a certified lower bound on the distance of the entry's triangles
//! (the whole pair's `η`, or an RSS bound on volumes holding them), and λ
//! bounds every point of the link, so Lemma 1 holds per entry as above.
//! Rounding is absorbed by `pad = 2m`, `m` a bound on how far rounding
//! displaces the pair's objects: the sub-segment end configurations are
//! computed as `q_a + s (q_b − q_a)`, each value within `u (3 + R) |Δ|`
//! of the exact one (`u = 2⁻⁵³`, `R` the largest `|q| / |Δ|` over the
//! moving values), which moves the objects by at most that fraction of
//! the pair's λ over the segment; forward kinematics and the distance
//! bounds add `10⁻¹³ · extent` (extent: the largest distance from the
//! origin a linked object reaches). Lemma 1's argument with
//! `λ + 2m < η0 + η1` shows a distance above `m` along the computed
//! sub-segment, hence a positive one along the exact segment.
//!
//! **One-end covering** ([`PathChecker::first_collision`]): each pair walks
//! from `s = 0`; at `s` with bound `η`, a step to `s'` is certified when
//! `λ(s, s') + pad < η` (Lemma 1 with `η(s') ≥ 0`, M2 Fig. 3b), found from
//! the ratio `η / λ(s, 1)` and halved until it holds. The pair with the
//! smallest `s` steps first, so below the least `s` over the pairs the
//! segment is certified free (`[0, s)`), and `s` is never beyond the first
//! collision. The walk uses
//! the clearance `max(ε, 10⁻⁹ · extent)`: approaching a contact its steps
//! shrink geometrically, and the floor makes it end.
//!
//! **FIXED-RES-BISECTION** ([`PathChecker::check_path_fixed_resolution`],
//! M2 §V.A): the baseline planners use. Discrete checks (triangle
//! intersection and containment, of the pairs whose world boxes overlap
//! there) at the ends and at midpoints, longest
//! sub-segment first, until every sub-segment's joint-space length is below
//! the resolution `ρ`. It can miss collisions between samples; its "free"
//! certifies nothing.

use std::cell::{OnceCell, RefCell};
use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

use armature_bvh_geometry::query::{
    CollideMode, CollideWorkspace, DistanceWorkspace, GreedyDistanceOptions, MeshObject, apart_by,
    collide, collide_below, containment, distance_rss_rss, greedy_distance, relative_pose,
};
use armature_bvh_geometry::{
    Aabb, ArticulatedBody, Bvh, BvhVolume, DisabledPairs, LinkGeometry, LinkGroups, Obstacle,
    RigidMap, Rss, TopBoxes,
};
use armature_kinematics::{CurveLengthBounds, JointSpaceMotion, KinematicsError, PosedLevers};
use glam::{DAffine3, DVec3};

use crate::error::BisectionError;
use crate::report::{CollisionAt, Object, PathReport, PathStats, PathStatus, SegmentReport};

/// Absolute part of the pad on Lemma 1, relative to the scene extent:
/// the rounding of forward kinematics and of the distance bounds, a few
/// ulps per link of a chain (`2⁻⁵³ ≈ 1.1 · 10⁻¹⁶` each), far below it.
const PAD: f64 = 1e-13;
/// A half-segment one of whose ends is closer than this fraction of its
/// curve-length bound is probed for overlap as soon as it is queued (see
/// *Look-ahead at near contacts* in the module docs).
const GRAZING: f64 = 1e-3;

/// Dyadic levels of that half probed for overlap (1: its midpoint; 2: its
/// quarters too; 3: its eighths).
const GRAZING_LEVELS: u32 = 3;

/// Fewest probe levels (pieces `2^levels`) for which the probe's
/// configurations cull pairs by swept pieces (see *Swept pieces* in the
/// module docs).
const MIN_PIECE_LEVELS: u32 = 2;
/// Most dyadic levels of the probe of a long segment (`2^L − 1` probes):
/// on the segment suite's random segments, up to 5 levels made colliding
/// ones 2 to 8 times cheaper than the centre and quarters alone, for a few
/// per cent more work on free ones (instruction counts of
/// `examples/path_profile.rs`).
const MAX_PROBE_LEVELS: u32 = 5;
/// Levels past [`MAX_PROBE_LEVELS`] probed for the link–obstacle pairs the
/// probe tested on their meshes, where the rule asks for them.
const HOT_PROBE_LEVELS: u32 = 1;
/// Relative allowance on a distance between world boxes: its rounding
/// (a few operations, each within `2⁻⁵³`), far below it.
const BOX_DISTANCE_SLACK: f64 = 1e-12;
/// Unit roundoff of `f64`.
const UNIT_ROUNDOFF: f64 = f64::EPSILON / 2.0;
/// First clearance of the GREEDY-DIST refinement, relative to the extent.
const REFINE_START: f64 = 1e-3;
/// Factor by which the refinement's clearance shrinks per try.
const REFINE_SHRINK: f64 = 64.0;
/// Largest margin, relative to the smaller bounding radius of a pair, for
/// which the grown-box test ([`Scene::apart`]) is asked before a distance
/// bound (measured on the Puma scenes: a quarter keeps both the short
/// motions, whose margins are small, and the long ones fast).
const APART_REACH: f64 = 0.25;

/// Relative floor of the one-end walk's clearance (times the scene extent).
const WALK_FLOOR: f64 = 1e-9;
/// Fraction of the predicted step the one-end walk tries first.
const WALK_STEP: f64 = 0.9;
/// Most halvings of a walk step before the walk gives up on a pair.
const WALK_HALVINGS: u32 = 64;

/// Options of a [`PathChecker`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CheckOptions {
    /// The clearance `ε ≥ 0` of GREEDY-DIST (M2 §II.F): bounds the run
    /// time; two objects closer than `ε` count as colliding. Default 0.
    pub clearance: f64,
    /// Most queue pops one query may make before answering
    /// [`PathStatus::BudgetExhausted`]. Default 1,000,000.
    pub max_queue_pops: u64,
    /// Test links against each other. Default `true`.
    pub self_collision: bool,
    /// Skip adjacent links ([`LinkGroups::adjacent`]). Default `true`.
    pub skip_adjacent: bool,
    /// Skip links in one rigid group ([`LinkGroups::rigidly_attached`]).
    /// Default `true`.
    pub skip_rigidly_attached: bool,
    /// When a path collides, locate the collision on its earliest colliding
    /// segment with the one-end covering walk, so that
    /// [`PathReport::certified_free_prefix`] reaches up to it. Default
    /// `false`.
    pub locate_first_collision: bool,
    /// When a path collides, decide every segment before its earliest
    /// colliding one, so that [`PathReport::first_colliding_segment`] is
    /// the earliest of the path. Off, the query stops at the first
    /// collision it finds, in whichever segment, and the other segments
    /// keep their queues in the cache (M2 §II.D: a planner rejects the
    /// path and cuts that segment); the report then names the earliest
    /// segment *known* to collide (which may depend on what the cache
    /// holds: the status does not), and the certified prefix still ends
    /// at the first segment not proven free. Fixed-resolution checks
    /// follow it too. Default `true`.
    pub earliest_collision: bool,
    /// REFINED-ADAPTIVE-BISECTION (M2 §VI): queue pairs of bounding
    /// volumes instead of pairs of objects, and refine a failed Lemma 1
    /// test in space before bisecting in time (see the
    /// [module docs](self)). Default `false`.
    pub refined: bool,
}

impl Default for CheckOptions {
    fn default() -> Self {
        Self {
            clearance: 0.0,
            max_queue_pops: 1_000_000,
            self_collision: true,
            skip_adjacent: true,
            skip_rigidly_attached: true,
            locate_first_collision: false,
            earliest_collision: true,
            refined: false,
        }
    }
}

impl CheckOptions {
    /// With this clearance.
    #[must_use]
    pub const fn with_clearance(mut self, clearance: f64) -> Self {
        self.clearance = clearance;
        self
    }

    /// With this budget of queue pops per query.
    #[must_use]
    pub const fn with_max_queue_pops(mut self, pops: u64) -> Self {
        self.max_queue_pops = pops;
        self
    }

    /// With or without link–link pairs.
    #[must_use]
    pub const fn with_self_collision(mut self, on: bool) -> Self {
        self.self_collision = on;
        self
    }

    /// Whether to skip adjacent links.
    #[must_use]
    pub const fn with_skip_adjacent(mut self, on: bool) -> Self {
        self.skip_adjacent = on;
        self
    }

    /// Whether to locate the first collision of a colliding path.
    #[must_use]
    pub const fn with_locate_first_collision(mut self, on: bool) -> Self {
        self.locate_first_collision = on;
        self
    }

    /// Whether a colliding path decides every segment before its earliest
    /// colliding one ([`CheckOptions::earliest_collision`]).
    #[must_use]
    pub const fn with_earliest_collision(mut self, on: bool) -> Self {
        self.earliest_collision = on;
        self
    }

    /// With or without the REFINED variant.
    #[must_use]
    pub const fn with_refined(mut self, on: bool) -> Self {
        self.refined = on;
        self
    }

    /// Checks the ranges.
    ///
    /// # Errors
    /// [`BisectionError::InvalidOption`] (`clearance`) unless finite and
    /// non-negative.
    pub fn validate(&self) -> Result<(), BisectionError> {
        if !(self.clearance.is_finite() && self.clearance >= 0.0) {
            return Err(BisectionError::InvalidOption {
                name: "clearance",
                value: self.clearance,
                why: "must be finite and non-negative",
            });
        }
        Ok(())
    }
}

/// One allowed pair.
#[derive(Clone, Copy, Debug)]
struct Pair {
    link: usize,
    other: Object,
}

impl Pair {
    /// The other link of a link pair; `None` for an obstacle.
    const fn other_link(self) -> Option<usize> {
        match self.other {
            Object::Link(j) => Some(j),
            Object::Obstacle(_) => None,
        }
    }
}

/// A configuration of a segment with its world poses.
#[derive(Clone, Debug)]
struct Node {
    q: Vec<f64>,
    poses: Vec<DAffine3>,
    /// For a node made for one pair's split ([`Scene::node_for`]): which
    /// links' poses are computed (their chains'); the others are not.
    /// `None` once every link's is ([`Scene::node`]).
    partial: Option<Vec<bool>>,
    /// The posed levers of the curve-length bound here, each link's
    /// computed the first time a bound of that link from or to this node
    /// is asked.
    levers: RefCell<Option<PosedLevers>>,
    /// The links' world boxes here ([`Scene::boxes`]), computed the first
    /// time they are asked (the probe, the swept pieces and the first
    /// tests share them).
    boxes: OnceCell<Vec<Option<Aabb>>>,
}

/// One queue entry: a pair still to be proven free on `[s0, s1]`; in the
/// REFINED variant only the triangles below the nodes `na` (of the link's
/// RSS tree) and `nb` (of the other object's), roots otherwise.
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: f64,
    lambda: f64,
    pair: u32,
    na: u32,
    nb: u32,
    s0: f64,
    s1: f64,
    eta0: f64,
    eta1: f64,
}

/// An entry's key: the share of its sub-segment that the end bounds leave
/// uncovered, `(λ − η0 − η1) / λ` (see *Order* in the module docs); an
/// entry that does not move goes last (it is proven when popped).
fn priority(lambda: f64, eta0: f64, eta1: f64) -> f64 {
    if lambda > 0.0 {
        (lambda - eta0 - eta1) / lambda
    } else {
        f64::NEG_INFINITY
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    /// Largest key first; ties: earlier sub-segment, then lower pair, so
    /// the order never depends on insertion.
    fn cmp(&self, other: &Self) -> Ordering {
        self.key
            .total_cmp(&other.key)
            .then_with(|| other.s0.total_cmp(&self.s0))
            .then_with(|| other.pair.cmp(&self.pair))
            .then_with(|| other.na.cmp(&self.na))
            .then_with(|| other.nb.cmp(&self.nb))
    }
}

/// Where a segment stands.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Verdict {
    Pending,
    Free,
    /// `(s, pair)`.
    Collides(f64, u32),
    /// A sub-segment could not be split further in floating point.
    Stuck,
}

/// The work on one segment, kept in the cache between queries.
#[derive(Debug)]
struct SegmentWork {
    motion: JointSpaceMotion,
    nodes: Vec<Node>,
    index: FastMap<u64, usize>,
    /// The pairs the pre-pass kept.
    pairs: Vec<u32>,
    queue: BinaryHeap<Entry>,
    /// Absolute pad: `PAD · extent`.
    pad: f64,
    /// Relative pad on a pair's λ over the whole segment (rounding of the
    /// sub-segment end configurations).
    rel_pad: f64,
    /// λ of each kept pair over the whole segment (by pair index).
    full_lambda: Vec<f64>,
    /// λ of each link over the whole segment (by link index).
    link_lambda: Vec<f64>,
    extent: f64,
    verdict: Verdict,
    /// Pairs counted by the set-up, for the statistics.
    setup: PathStats,
    /// Dyadic levels of the probe (0: a short segment, not probed): the
    /// set-up first tests the segment for intersecting triangles at
    /// `k / 2^l`, `l = 1..=levels`.
    probe_levels: u32,
    /// Levels past [`MAX_PROBE_LEVELS`] that the rule asked for (at most
    /// [`HOT_PROBE_LEVELS`]): probed for some link–obstacle pairs only
    /// ([`Scene::hot_pairs`]).
    hot_levels: u32,
    /// η of whole pairs at nodes, `(pair, node) → η` (REFINED variant:
    /// several pairs of leaves of one pair share a midpoint).
    pair_etas: FastMap<(u32, usize), f64>,
    /// Kept pairs whose first tests wait until the queue empties: after a
    /// probe, those it never had to test on their meshes (see *Deferred
    /// pairs* in the module docs).
    deferred: Vec<u32>,
    /// Kept pairs whose first tests are due at the segment's first pop
    /// (the set-up only probes: see *Lazy first tests* in the module
    /// docs).
    fresh: Vec<u32>,
    /// Pairs the swept pieces proved apart whose meshes are closed: their
    /// containment test, once, before the segment is called free.
    contain: Vec<u32>,
    /// The dyadic part `[s0, s1]` of the segment outside which the swept
    /// pieces prove a kept pair apart, when not all of it: its first tests
    /// are there (see *Swept pieces* in the module docs).
    ranges: FastMap<u32, (f64, f64)>,
    /// What the segment's distance descents cost so far, plain and
    /// targeted (see *Targeted descents* in the module docs).
    descents: DescentCosts,
}

/// The kinds of GREEDY-DIST descents a segment counts ([`DescentCosts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Descent {
    /// A bound wherever the pair is (the clearance `ε`, or the refinement's
    /// first clearance that stands in for it).
    Plain,
    /// A bound asked to exceed Lemma 1's need.
    Targeted,
}

/// Calls and tests (bounding-volume and triangle pairs) of a segment's
/// GREEDY-DIST descents, by kind.
#[derive(Clone, Copy, Debug, Default)]
struct DescentCosts {
    /// Descents with the clearance `ε`: `(calls, tests)`.
    plain: (u64, u64),
    /// Descents with a target clearance (Lemma 1's need): `(calls, tests)`.
    targeted: (u64, u64),
}

/// Descents of each kind a segment makes before [`DescentCosts`] may
/// judge the targeted ones.
const DESCENTS_BEFORE_JUDGING: u64 = 4;

/// A first test or a split of the plain variant asks for a targeted
/// descent only while the segment's plain descents cost at least this
/// share of its targeted ones.
const TARGETED_WORTH: f64 = 0.3;

/// A split or a first test at an end asks for a targeted descent only
/// when the bound it needs is below this multiple of the bound known
/// nearest (the larger of a split's end bounds; the centre's, else the
/// other end's, for an end). Farther than that, the pair would have to
/// move apart at nearly its full speed for the descent to succeed; it
/// almost always fails, and the plain descent after it is paid anyway.
const TARGETED_REACH: f64 = 2.0;

impl DescentCosts {
    /// Whether a first test or a split should ask for a targeted descent
    /// (the REFINED variant always does): until both kinds
    /// have a few calls, yes; then only while a plain descent costs at
    /// least [`TARGETED_WORTH`] of a targeted one (cheap plain descents
    /// make splitting further cheaper than proving at once).
    fn targeted_pays(&self) -> bool {
        let (pc, pt) = self.plain;
        let (tc, tt) = self.targeted;
        if pc < DESCENTS_BEFORE_JUDGING || tc < DESCENTS_BEFORE_JUDGING {
            return true;
        }
        // Average costs compared without division: pt / pc ≥ w · tt / tc.
        pt as f64 * tc as f64 >= TARGETED_WORTH * tt as f64 * pc as f64
    }

    /// Whether a descent that needs `need` where `known` is the bound
    /// known nearest should be targeted: it pays
    /// ([`DescentCosts::targeted_pays`]) and may succeed
    /// ([`TARGETED_REACH`]).
    fn targeted_for(&self, need: f64, known: f64) -> bool {
        need < TARGETED_REACH * known && self.targeted_pays()
    }
}

impl SegmentWork {
    /// Adds the node of parameter `s` (see [`Node`]); its index.
    fn push_node(
        &mut self,
        s: f64,
        q: Vec<f64>,
        poses: Vec<DAffine3>,
        partial: Option<Vec<bool>>,
    ) -> usize {
        self.nodes.push(Node {
            q,
            poses,
            partial,
            levers: RefCell::new(None),
            boxes: OnceCell::new(),
        });
        let i = self.nodes.len() - 1;
        self.index.insert(s.to_bits(), i);
        i
    }

    /// A segment whose last entry was just proven without new ones is
    /// free (as a pop finding its queue empty would conclude).
    fn settle_if_empty(&mut self) {
        if self.queue.is_empty()
            && self.deferred.is_empty()
            && self.fresh.is_empty()
            && self.contain.is_empty()
        {
            self.verdict = Verdict::Free;
        }
    }

    /// The segment's key in the path queue: its top entry's, or the
    /// largest a key can be while pairs wait for their first tests;
    /// `None` when nothing is left.
    fn top_key(&self) -> Option<f64> {
        if !self.fresh.is_empty() {
            return Some(1.0);
        }
        match self.queue.peek() {
            Some(e) => Some(e.key),
            None => (!self.deferred.is_empty() || !self.contain.is_empty()).then_some(1.0),
        }
    }

    /// The pad of Lemma 1 for pair `p`: twice the largest displacement of
    /// the pair's objects by rounding (configurations and kinematics).
    /// Lemma 1's argument with `λ + 2m < η_a + η_b` shows a distance above
    /// `m` all along the computed sub-segment, so the exact one stays
    /// apart too.
    fn pair_pad(&self, p: u32) -> f64 {
        2.0 * (self.pad + self.rel_pad * self.full_lambda[p as usize])
    }
}

/// A pair whose first test at its centre did not prove it (see
/// `Scene::first_tests`).
struct Pending {
    pair: u32,
    /// `η` at the centre; `None` when the centre's test was hopeless and
    /// the pair starts from its ends.
    eta_m: Option<f64>,
    /// λ on the left and right halves of the pair's range, and on the
    /// whole range (used without `eta_m`).
    lambdas: [f64; 3],
    /// The range's start, centre and end parameters.
    range: [f64; 3],
    /// Their nodes.
    nodes: [usize; 3],
}

/// The bits of a segment's end points: the cache key.
type SegmentKey = (Vec<u64>, Vec<u64>);

/// A hash map of a segment's own small keys (dyadic parameters' bits,
/// pair and node indices): they come from this crate, not from users, so
/// a multiplicative mix serves where the standard library's DoS-resistant
/// hash cost several per cent of a short colliding segment.
type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<MixHasher>>;

/// The hasher of [`FastMap`]: each written word is folded in by a
/// multiply and a rotation, and the result's high bits are mixed down
/// (a dyadic parameter's bits differ in their high half only).
#[derive(Default)]
struct MixHasher(u64);

impl Hasher for MixHasher {
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 29)
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(23) ^ x ^ (x >> 32)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    fn write_u32(&mut self, x: u32) {
        self.write_u64(u64::from(x));
    }

    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
}

fn key_of(qa: &[f64], qb: &[f64]) -> SegmentKey {
    (
        qa.iter().map(|v| v.to_bits()).collect(),
        qb.iter().map(|v| v.to_bits()).collect(),
    )
}

/// The scene a checker works on, with its prepared bounds.
#[derive(Debug)]
struct Scene<'a> {
    body: &'a ArticulatedBody,
    obstacles: &'a [Obstacle],
    options: CheckOptions,
    lambda: CurveLengthBounds,
    pairs: Vec<Pair>,
    obstacle_poses: Vec<DAffine3>,
    /// World boxes of the obstacles' OBBs (static).
    obstacle_boxes: Vec<Aabb>,
    /// The world boxes of the top levels of the obstacles' OBB trees,
    /// every level kept ([`Obstacle::top_boxes`], shared with every other
    /// scene prepared on the obstacles). On the welding cage, whose
    /// obstacles are each a few thin bars spanning the cell, six levels
    /// already let the probe skip 7 of 8 mesh tests; every level took a
    /// further 7 % off its colliding segments and 32 % off the Puma's
    /// among the pipes (instructions of `examples/path_profile.rs`),
    /// within 1 % elsewhere.
    obstacle_tops: Vec<&'a TopBoxes>,
}

/// What a distance bound is asked for ([`Scene::eta`]): the clearance
/// `eps`, the scene extent (for the refinement's first clearance) and the
/// bound Lemma 1 needs there, if known.
#[derive(Clone, Copy, Debug)]
struct Ask {
    eps: f64,
    extent: f64,
    target: Option<f64>,
}

impl Ask {
    const fn new(eps: f64, extent: f64, target: Option<f64>) -> Self {
        Self {
            eps,
            extent,
            target,
        }
    }
}

/// Reusable query scratch.
#[derive(Debug, Default)]
struct Workspaces {
    distance: DistanceWorkspace,
    collide: CollideWorkspace,
    /// An obstacle's tree nodes near a link's box (the mesh test starts
    /// there).
    near_nodes: Vec<u32>,
}

/// Adaptive-bisection path checker over one body and its static obstacles
/// (see the [module docs](self) for the method and the guarantee). It
/// keeps a cache of segment work across queries; one value per thread.
#[derive(Debug)]
pub struct PathChecker<'a> {
    scene: Scene<'a>,
    ws: Workspaces,
    cache: HashMap<SegmentKey, SegmentWork>,
}

fn link_geometry(body: &ArticulatedBody, link: usize) -> Result<&LinkGeometry, BisectionError> {
    body.link_geometry(link)?.ok_or_else(|| {
        BisectionError::Geometry(armature_bvh_geometry::GeometryError::IndexOutOfBounds {
            what: "link with geometry",
            index: link,
            len: body.links().len(),
        })
    })
}

impl<'a> PathChecker<'a> {
    /// Prepares `body` against the static `obstacles`: the pair list (links
    /// with geometry against every obstacle, and link pairs by the options'
    /// rules; `disabled` pairs never) and the curve-length bounds over each
    /// link's mesh vertices.
    ///
    /// # Errors
    /// [`BisectionError::InvalidOption`];
    /// [`BisectionError::MovingObstacle`] for an obstacle that moves over
    /// time; [`BisectionError::Kinematics`] for a non-finite link mesh.
    pub fn new(
        body: &'a ArticulatedBody,
        obstacles: &'a [Obstacle],
        disabled: &DisabledPairs,
        options: &CheckOptions,
    ) -> Result<Self, BisectionError> {
        options.validate()?;
        if let Some(o) = obstacles.iter().find(|o| !o.is_static()) {
            return Err(BisectionError::MovingObstacle {
                name: o.name().to_owned(),
            });
        }
        let tree = body.tree();
        // A link without geometry is in no pair; one point keeps the
        // bounds' tables total.
        let points: Vec<&[DVec3]> = body
            .links()
            .iter()
            .map(|g| g.as_ref().map_or(&[DVec3::ZERO][..], |g| g.mesh.vertices()))
            .collect();
        let lambda = CurveLengthBounds::new(tree, &points)?;
        let groups = LinkGroups::new(tree);
        let with_geometry: Vec<usize> = (0..tree.len())
            .filter(|&i| body.links()[i].is_some())
            .collect();
        let mut pairs = Vec::new();
        for &i in &with_geometry {
            for o in 0..obstacles.len() {
                if !disabled.link_obstacle_disabled(i, o) {
                    pairs.push(Pair {
                        link: i,
                        other: Object::Obstacle(o),
                    });
                }
            }
        }
        if options.self_collision {
            for (n, &i) in with_geometry.iter().enumerate() {
                for &j in &with_geometry[n + 1..] {
                    let skip = (options.skip_adjacent && groups.adjacent(i, j))
                        || (options.skip_rigidly_attached && groups.rigidly_attached(i, j))
                        || disabled.links_disabled(i, j);
                    if !skip {
                        pairs.push(Pair {
                            link: i,
                            other: Object::Link(j),
                        });
                    }
                }
            }
        }
        Ok(Self {
            scene: Scene {
                body,
                obstacles,
                options: *options,
                lambda,
                pairs,
                obstacle_poses: obstacles.iter().map(|o| o.pose_at(0.0)).collect(),
                obstacle_boxes: obstacles
                    .iter()
                    .map(|o| o.geometry().obb.world_box(&o.pose_at(0.0)))
                    .collect(),
                obstacle_tops: obstacles.iter().map(Obstacle::top_boxes).collect(),
            },
            ws: Workspaces::default(),
            cache: HashMap::new(),
        })
    }

    /// The options.
    #[must_use]
    pub const fn options(&self) -> &CheckOptions {
        &self.scene.options
    }

    /// Number of allowed pairs (before the per-segment pre-pass).
    #[must_use]
    pub fn pair_count(&self) -> usize {
        self.scene.pairs.len()
    }

    /// Number of segments in the cache.
    #[must_use]
    pub fn cached_segments(&self) -> usize {
        self.cache.len()
    }

    /// Empties the cache.
    pub fn clear_cache(&mut self) {
        self.cache.clear();
    }

    /// [`PathChecker::check_path`] for the one segment `q_a → q_b`.
    ///
    /// # Errors
    /// As [`PathChecker::check_path`].
    pub fn check_segment(&mut self, qa: &[f64], qb: &[f64]) -> Result<PathReport, BisectionError> {
        self.check_path(&[qa, qb])
    }

    /// The path queue (M2 §II.D) over the segments `works[slot[k]]`: pops
    /// the segment with the top entry until every segment before the
    /// first colliding one is decided (without
    /// [`CheckOptions::earliest_collision`], until any segment collides)
    /// or the budget is spent.
    fn pop_path(
        &mut self,
        works: &mut [(SegmentKey, SegmentWork)],
        slot: &[Option<usize>],
        stats: &mut PathStats,
    ) -> Result<(), BisectionError> {
        let n = slot.len();
        let earliest = self.scene.options.earliest_collision;
        let collides = |i: Option<usize>| {
            i.is_some_and(|i| matches!(works[i].1.verdict, Verdict::Collides(..)))
        };
        let mut limit = (0..n).find(|&k| collides(slot[k])).unwrap_or(n);
        if !earliest && limit < n {
            return Ok(());
        }
        // Every segment before `limit` is set up (see `check_path`).
        let mut path_queue: BinaryHeap<(TopKey, Reverse<usize>)> = (0..limit)
            .filter_map(|k| {
                let w = &works[slot[k]?].1;
                (w.verdict == Verdict::Pending)
                    .then(|| w.top_key().map(|key| (TopKey(key), Reverse(k))))
                    .flatten()
            })
            .collect();
        let budget = self.scene.options.max_queue_pops;
        while let Some((_, Reverse(k))) = path_queue.pop() {
            if k >= limit {
                continue;
            }
            let Some(i) = slot[k] else { continue };
            let work = &mut works[i].1;
            if work.verdict != Verdict::Pending {
                continue;
            }
            if stats.queue_pops >= budget {
                break;
            }
            self.scene.pop_one(work, &mut self.ws, stats)?;
            match work.verdict {
                Verdict::Collides(..) if !earliest => break,
                Verdict::Collides(..) => limit = k,
                Verdict::Pending => match work.top_key() {
                    Some(key) => path_queue.push((TopKey(key), Reverse(k))),
                    // Every entry proven: nothing left to pop.
                    None => work.verdict = Verdict::Free,
                },
                Verdict::Free | Verdict::Stuck => {}
            }
        }
        Ok(())
    }

    /// Whether the path through `waypoints` (segment `k` from waypoint `k`
    /// to `k + 1`) is collision-free, by adaptive bisection with cached
    /// per-segment queues; see the [module docs](self).
    ///
    /// # Errors
    /// [`BisectionError::TooFewWaypoints`] for fewer than two waypoints;
    /// [`BisectionError::Waypoint`] naming a waypoint of the wrong length,
    /// with a NaN or infinite value or a zero quaternion;
    /// [`BisectionError::Geometry`] for poses the queries reject.
    pub fn check_path<Q: AsRef<[f64]>>(
        &mut self,
        waypoints: &[Q],
    ) -> Result<PathReport, BisectionError> {
        self.validate_waypoints(waypoints)?;
        let n = waypoints.len() - 1;
        let keys: Vec<SegmentKey> = (0..n)
            .map(|k| key_of(waypoints[k].as_ref(), waypoints[k + 1].as_ref()))
            .collect();
        let mut stats = PathStats::default();
        // The path's segment works leave the cache for the query (one per
        // distinct key; `slot[k]` names segment k's), so that a pop does
        // not hash a key of every joint value; they go back below, an
        // error included. Segments not cached are set up here.
        let mut works: Vec<(SegmentKey, SegmentWork)> = Vec::new();
        let mut slot: Vec<Option<usize>> = vec![None; n];
        // The earliest segment known to collide.
        let mut known: Option<usize> = None;
        let note = |known: &mut Option<usize>, k: usize, w: &SegmentWork| {
            if matches!(w.verdict, Verdict::Collides(..)) {
                *known = Some(known.map_or(k, |c| c.min(k)));
            }
        };
        let mut uncached = Vec::new();
        for (k, key) in keys.iter().enumerate() {
            if let Some(i) = works.iter().position(|(w, _)| w == key) {
                stats.segments_from_cache += 1;
                slot[k] = Some(i);
                note(&mut known, k, &works[i].1);
            } else if let Some(w) = self.cache.remove(key) {
                stats.segments_from_cache += 1;
                note(&mut known, k, &w);
                slot[k] = Some(works.len());
                works.push((key.clone(), w));
            } else {
                uncached.push(k);
            }
        }
        // Segments are set up (probed) only while they may matter: before
        // the earliest known collision, or, without `earliest_collision`,
        // until any collision is known, the longest first (the likeliest
        // to collide: a planner's new long connection).
        let earliest = self.scene.options.earliest_collision;
        if !earliest {
            let length = |k: usize| {
                let (a, b) = (waypoints[k].as_ref(), waypoints[k + 1].as_ref());
                a.iter().zip(b).map(|(x, y)| (y - x) * (y - x)).sum::<f64>()
            };
            uncached.sort_by(|&a, &b| length(b).total_cmp(&length(a)));
        }
        let mut set_up = Ok(());
        for k in uncached {
            if known.is_some_and(|c| !earliest || c < k) {
                break;
            }
            if let Some(i) = works.iter().position(|(w, _)| *w == keys[k]) {
                // The same segment twice in the path.
                stats.segments_from_cache += 1;
                slot[k] = Some(i);
                continue;
            }
            match self.scene.set_up(
                waypoints[k].as_ref(),
                waypoints[k + 1].as_ref(),
                &mut self.ws,
            ) {
                Ok(w) => {
                    stats.add(&w.setup);
                    note(&mut known, k, &w);
                    slot[k] = Some(works.len());
                    works.push((keys[k].clone(), w));
                }
                Err(e) => {
                    set_up = Err(e);
                    break;
                }
            }
        }
        let popped = set_up.and_then(|()| self.pop_path(&mut works, &slot, &mut stats));
        for (_, w) in &mut works {
            // Decided segments drop their scratch; pending ones keep it.
            if !matches!(w.verdict, Verdict::Pending | Verdict::Stuck) {
                w.queue = BinaryHeap::new();
                w.nodes = Vec::new();
                w.index = FastMap::default();
                w.pair_etas = FastMap::default();
            }
        }
        // Segments never set up (after a known collision) are undecided.
        let verdicts: Vec<Verdict> = slot
            .iter()
            .map(|i| i.map_or(Verdict::Pending, |i| works[i].1.verdict))
            .collect();
        self.cache.extend(works);
        popped?;
        let verdict = |k: usize| verdicts[k];

        let first_colliding = (0..n).find(|&k| matches!(verdict(k), Verdict::Collides(..)));
        let undecided = (0..n).find(|&k| verdict(k) != Verdict::Free);
        let status = match (first_colliding, undecided) {
            (Some(_), _) => PathStatus::Collides,
            (None, Some(_)) => PathStatus::BudgetExhausted,
            (None, None) => PathStatus::Free,
        };
        let collision = first_colliding.and_then(|k| match verdict(k) {
            Verdict::Collides(s, p) => {
                let pair = self.scene.pairs[p as usize];
                Some(CollisionAt {
                    segment: k,
                    s,
                    link: pair.link,
                    other: pair.other,
                })
            }
            _ => None,
        });
        let certified_free_prefix = match undecided {
            None => (n - 1, 1.0),
            Some(j) => {
                let mut s = 0.0;
                if self.scene.options.locate_first_collision
                    && first_colliding == Some(j)
                    && collision.is_some_and(|c| c.s > 0.0)
                {
                    let walk =
                        self.first_collision(waypoints[j].as_ref(), waypoints[j + 1].as_ref())?;
                    stats.add(&walk.stats);
                    // The walk's clearance is at least ε, so it may certify
                    // past the configuration bisection found within ε.
                    s = collision.map_or(0.0, |c| walk.certified_free_prefix.min(c.s));
                }
                (j, s)
            }
        };
        Ok(PathReport {
            status,
            first_colliding_segment: first_colliding,
            certified_free_prefix,
            collision,
            stats,
        })
    }

    /// The first collision along the segment `q_a → q_b` by the one-end
    /// covering walk (M2 §II.E, Fig. 3b): a certified collision-free prefix
    /// `[0, s)`, `s` never beyond the first collision; see the
    /// [module docs](self). Its budget is [`CheckOptions::max_queue_pops`]
    /// walk steps.
    ///
    /// # Errors
    /// As [`PathChecker::check_path`].
    pub fn first_collision(
        &mut self,
        qa: &[f64],
        qb: &[f64],
    ) -> Result<SegmentReport, BisectionError> {
        self.validate_waypoints(&[qa, qb])?;
        self.scene.walk(qa, qb, &mut self.ws)
    }

    /// FIXED-RES-BISECTION (M2 §V.A), the baseline: discrete checks at the
    /// waypoints and at midpoints, longest sub-segment first, until every
    /// sub-segment is shorter than `resolution` in the joint-space
    /// Euclidean metric. [`PathStatus::Free`] only means no sample
    /// collides; the certified prefix is `(0, 0.0)`. Pops count against
    /// [`CheckOptions::max_queue_pops`]; the cache is not used.
    ///
    /// # Errors
    /// [`BisectionError::InvalidOption`] (`resolution`) unless finite and
    /// positive; otherwise as [`PathChecker::check_path`].
    pub fn check_path_fixed_resolution<Q: AsRef<[f64]>>(
        &mut self,
        waypoints: &[Q],
        resolution: f64,
    ) -> Result<PathReport, BisectionError> {
        if !(resolution.is_finite() && resolution > 0.0) {
            return Err(BisectionError::InvalidOption {
                name: "resolution",
                value: resolution,
                why: "must be finite and positive",
            });
        }
        self.validate_waypoints(waypoints)?;
        let n = waypoints.len() - 1;
        let mut stats = PathStats::default();
        let mut works = Vec::with_capacity(n);
        let mut lengths = Vec::with_capacity(n);
        let mut hit: Vec<Option<(f64, u32)>> = vec![None; n];
        let earliest = self.scene.options.earliest_collision;
        for k in 0..n {
            if !earliest && hit.iter().any(Option::is_some) {
                break;
            }
            let (qa, qb) = (waypoints[k].as_ref(), waypoints[k + 1].as_ref());
            let mut work = self.scene.prepare(qa, qb, &mut stats)?;
            stats.pairs += work.setup.pairs;
            stats.pairs_after_prepass += work.setup.pairs_after_prepass;
            for s in [0.0, 1.0] {
                if hit[k].is_none() {
                    hit[k] = self
                        .scene
                        .discrete(&mut work, s, &mut self.ws, &mut stats)?;
                }
            }
            lengths.push(
                qa.iter()
                    .zip(qb)
                    .map(|(a, b)| (b - a) * (b - a))
                    .sum::<f64>()
                    .sqrt(),
            );
            works.push(work);
        }
        let mut limit = hit.iter().position(Option::is_some).unwrap_or(works.len());
        if !earliest && limit < n {
            limit = 0;
        }
        let mut queue: BinaryHeap<(TopKey, Reverse<usize>, Reverse<u64>, u64)> = BinaryHeap::new();
        for k in 0..limit {
            queue.push((TopKey(lengths[k]), Reverse(k), Reverse(0), 1.0f64.to_bits()));
        }
        let mut exhausted = false;
        while let Some((TopKey(len), Reverse(k), Reverse(s0), s1)) = queue.pop() {
            if k >= limit || len < resolution {
                continue;
            }
            if stats.queue_pops >= self.scene.options.max_queue_pops {
                exhausted = true;
                break;
            }
            stats.queue_pops += 1;
            let (s0, s1) = (f64::from_bits(s0), f64::from_bits(s1));
            let sm = 0.5 * (s0 + s1);
            if !(s0 < sm && sm < s1) {
                continue;
            }
            if let Some(h) = self
                .scene
                .discrete(&mut works[k], sm, &mut self.ws, &mut stats)?
            {
                hit[k] = Some(h);
                if !earliest {
                    break;
                }
                limit = k;
                continue;
            }
            let half = 0.5 * len;
            queue.push((
                TopKey(half),
                Reverse(k),
                Reverse(s0.to_bits()),
                sm.to_bits(),
            ));
            queue.push((
                TopKey(half),
                Reverse(k),
                Reverse(sm.to_bits()),
                s1.to_bits(),
            ));
        }
        let first = hit.iter().position(Option::is_some);
        let status = match (first, exhausted) {
            (Some(_), _) => PathStatus::Collides,
            (None, true) => PathStatus::BudgetExhausted,
            (None, false) => PathStatus::Free,
        };
        let collision = first.and_then(|k| {
            hit[k].map(|(s, p)| {
                let pair = self.scene.pairs[p as usize];
                CollisionAt {
                    segment: k,
                    s,
                    link: pair.link,
                    other: pair.other,
                }
            })
        });
        Ok(PathReport {
            status,
            first_colliding_segment: first,
            certified_free_prefix: (0, 0.0),
            collision,
            stats,
        })
    }

    fn validate_waypoints<Q: AsRef<[f64]>>(&self, waypoints: &[Q]) -> Result<(), BisectionError> {
        if waypoints.len() < 2 {
            return Err(BisectionError::TooFewWaypoints {
                got: waypoints.len(),
            });
        }
        let tree = self.scene.body.tree();
        for (index, q) in waypoints.iter().enumerate() {
            tree.validate_config(q.as_ref())
                .map_err(|source| BisectionError::Waypoint { index, source })?;
        }
        Ok(())
    }
}

/// A mesh and its world pose.
type Posed<'g> = (&'g LinkGeometry, DAffine3);

/// An `f64` ordered totally (for the heaps).
#[derive(Clone, Copy, Debug)]
struct TopKey(f64);

impl PartialEq for TopKey {
    fn eq(&self, other: &Self) -> bool {
        self.0.total_cmp(&other.0) == Ordering::Equal
    }
}
impl Eq for TopKey {}
impl PartialOrd for TopKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for TopKey {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

impl Scene<'_> {
    /// The pair's geometry and pose at `node`: (link side, other side).
    fn posed(&self, pair: Pair, node: &Node) -> Result<[Posed<'_>; 2], BisectionError> {
        let a = (link_geometry(self.body, pair.link)?, node.poses[pair.link]);
        let b = match pair.other {
            Object::Link(j) => (link_geometry(self.body, j)?, node.poses[j]),
            Object::Obstacle(o) => (self.obstacles[o].geometry(), self.obstacle_poses[o]),
        };
        Ok([a, b])
    }

    /// η of a pair at a configuration: GREEDY-DIST with clearance `eps`
    /// (0 or above `eps`), refined when it is positive but tiny.
    ///
    /// GREEDY-DIST never refines two volumes that are apart, so two
    /// bounding volumes that nearly touch give a bound near 0 for meshes
    /// far apart (M2 Fig. 5), and bisection would then split down to
    /// rounding. Rerun with a larger clearance `τ` (from `10⁻³ · extent`,
    /// shrinking 64-fold per try, never below `eps`), the descent refines
    /// those volumes: a positive answer exceeds `τ` and is a bound too,
    /// and the larger of the two is kept. A zero answer there only says
    /// "within `τ`", so a collision is still decided by the first call
    /// alone, and `η` stays 0 or above `eps`.
    ///
    /// With a `target` above `eps` (the bound Lemma 1 needs here), the
    /// first descent uses the clearance `target`: a positive answer
    /// exceeds it, is a certified bound too, and proves the test in one
    /// descent; a zero answer only says "within `target`", and the plain
    /// bound above is computed.
    fn eta(
        &self,
        pair: Pair,
        node: &Node,
        ask: Ask,
        ws: &mut Workspaces,
        stats: &mut PathStats,
        mut costs: Option<&mut DescentCosts>,
    ) -> Result<f64, BisectionError> {
        let Ask {
            eps,
            extent,
            target,
        } = ask;
        let [(ga, pa), (gb, pb)] = self.posed(pair, node)?;
        let a = MeshObject::new(&ga.mesh, &ga.rss_tree, pa)?;
        let b = MeshObject::new(&gb.mesh, &gb.rss_tree, pb)?;
        // `kind`: which of the segment's descent costs the call counts in
        // (`None`: neither, a refinement below the first one); a targeted
        // descent settles once it is beyond its clearance.
        let mut greedy = |clearance: f64, kind: Option<Descent>| {
            let settle = kind == Some(Descent::Targeted);
            stats.greedy_calls += 1;
            greedy_distance(
                &a,
                &b,
                &GreedyDistanceOptions::default()
                    .with_clearance(clearance)
                    .with_settle(settle),
                &mut ws.distance,
            )
            .map(|g| {
                stats.bv_tests += g.stats.bv_tests;
                stats.triangle_tests += g.stats.triangle_tests;
                if let (Some(c), Some(kind)) = (costs.as_deref_mut(), kind) {
                    let tests = g.stats.bv_tests + g.stats.triangle_tests;
                    let kind = match kind {
                        Descent::Plain => &mut c.plain,
                        Descent::Targeted => &mut c.targeted,
                    };
                    kind.0 += 1;
                    kind.1 += tests;
                }
                g.lower_bound
            })
        };
        if let Some(target) = target
            && target > eps
            && target < self.distance_upper_bound(pair, node)?
        {
            let decisive = greedy(target, Some(Descent::Targeted))?;
            if decisive > 0.0 {
                return Ok(decisive);
            }
        }
        // The refinement's first clearance is tried before `ε` (see *Refined
        // η* in the module docs): a positive answer is above it, so at least
        // the bound the refinement would keep after a descent with `ε`.
        // Reached with a target above `ε`, the pair is within the target
        // (the targeted descent failed, or the spheres' bound is below it),
        // so within any larger clearance.
        let mut tau = REFINE_START * extent;
        if tau > eps {
            if !target.is_some_and(|t| t > eps && t <= tau) {
                let refined = greedy(tau, Some(Descent::Plain))?;
                if refined > 0.0 {
                    return Ok(refined);
                }
            }
            tau /= REFINE_SHRINK;
        }
        let eta = greedy(eps, Some(Descent::Plain))?;
        while eta > 0.0 && eta < tau && tau > eps {
            let refined = greedy(tau, None)?;
            if refined > 0.0 {
                return Ok(eta.max(refined));
            }
            tau /= REFINE_SHRINK;
        }
        Ok(eta)
    }

    /// Whether the pair is certainly more than `margin` apart at `node`
    /// (its OBB trees' boxes grown by the margin; counted as a distance
    /// call); `None` (not asked) for a margin above [`APART_REACH`] of the
    /// smaller object's radius, where the grown boxes of many node pairs
    /// overlap and a targeted distance descent prunes better.
    fn apart(
        &self,
        pair: Pair,
        node: &Node,
        margin: f64,
        ws: &mut Workspaces,
        stats: &mut PathStats,
    ) -> Result<Option<bool>, BisectionError> {
        let [(ga, pa), (gb, pb)] = self.posed(pair, node)?;
        if margin > APART_REACH * ga.sphere.radius.min(gb.sphere.radius) {
            return Ok(None);
        }
        stats.greedy_calls += 1;
        let a = MeshObject::new(&ga.mesh, &ga.obb_tree, pa)?;
        let b = MeshObject::new(&gb.mesh, &gb.obb_tree, pb)?;
        let r = apart_by(&a, &b, margin, &mut ws.collide)?;
        stats.bv_tests += r.stats.bv_tests;
        stats.triangle_tests += r.stats.triangle_tests;
        Ok(Some(r.apart))
    }

    /// Whether the pair is an obstacle's whose top boxes are all more than
    /// `margin` from the link's world box at `node` (which proves the
    /// meshes that far apart, containment aside).
    fn far_from_obstacle(&self, pair: Pair, node: &Node, margin: f64) -> bool {
        let Object::Obstacle(o) = pair.other else {
            return false;
        };
        let Some(Some(g)) = self.body.links().get(pair.link) else {
            return false;
        };
        !self.obstacle_tops[o].near(&g.obb.world_box(&node.poses[pair.link]), margin)
    }

    /// The links' world boxes at `node`, computed once per node.
    fn boxes<'n>(&self, node: &'n Node) -> &'n [Option<Aabb>] {
        node.boxes.get_or_init(|| self.link_boxes(&node.poses))
    }

    /// The world boxes of the links' OBBs placed by `poses` (none for a
    /// link without geometry).
    fn link_boxes(&self, poses: &[DAffine3]) -> Vec<Option<Aabb>> {
        self.body
            .links()
            .iter()
            .zip(poses)
            .map(|(g, pose)| g.as_ref().map(|g| g.obb.world_box(pose)))
            .collect()
    }

    /// The boxes of a pair's two objects: the link's and the other link's
    /// from `boxes`, an obstacle's its static one.
    fn pair_boxes(&self, pair: Pair, boxes: &[Option<Aabb>]) -> Option<(Aabb, Aabb)> {
        let other = match pair.other {
            Object::Link(j) => boxes[j],
            Object::Obstacle(o) => Some(self.obstacle_boxes[o]),
        };
        Some((boxes[pair.link]?, other?))
    }

    /// The world boxes of a pair's two objects at `node`, from the pair's
    /// own poses only (a node may hold only the chains its pairs needed).
    fn link_boxes_of(&self, pair: Pair, node: &Node) -> (Option<Aabb>, Option<Aabb>) {
        let link_box = |l: usize| {
            self.body
                .links()
                .get(l)
                .and_then(Option::as_ref)
                .map(|g| g.obb.world_box(&node.poses[l]))
        };
        let other = match pair.other {
            Object::Link(j) => link_box(j),
            Object::Obstacle(o) => Some(self.obstacle_boxes[o]),
        };
        (link_box(pair.link), other)
    }

    /// An upper bound on the distance between the pair's meshes at `node`
    /// (their bounding spheres' centres apart plus both radii, with room
    /// for rounding): a distance query asked to prove more cannot.
    fn distance_upper_bound(&self, pair: Pair, node: &Node) -> Result<f64, BisectionError> {
        let [(ga, pa), (gb, pb)] = self.posed(pair, node)?;
        let ca = pa.transform_point3(ga.sphere.center);
        let cb = pb.transform_point3(gb.sphere.center);
        Ok((ca.distance(cb) + ga.sphere.radius + gb.sphere.radius) * (1.0 + 1e-9))
    }

    /// Whether either mesh of the pair is closed (has a solid that a part
    /// of the other may lie in).
    fn closed(&self, pair: Pair) -> Result<bool, BisectionError> {
        let a = link_geometry(self.body, pair.link)?;
        Ok(a.is_closed()
            || match pair.other {
                Object::Link(j) => link_geometry(self.body, j)?.is_closed(),
                Object::Obstacle(o) => self.obstacles[o].geometry().is_closed(),
            })
    }

    /// Whether part of one mesh of the pair lies inside the other's solid
    /// (closed meshes only).
    fn contained(
        &self,
        pair: Pair,
        node: &Node,
        stats: &mut PathStats,
    ) -> Result<bool, BisectionError> {
        let [(ga, pa), (gb, pb)] = self.posed(pair, node)?;
        if !ga.is_closed() && !gb.is_closed() {
            return Ok(false);
        }
        stats.discrete_checks += 1;
        let a = MeshObject::new(&ga.mesh, &ga.obb_tree, pa)?;
        let b = MeshObject::new(&gb.mesh, &gb.obb_tree, pb)?;
        Ok(containment(&a, &ga.topology, &b, &gb.topology)?.is_some())
    }

    /// The discrete check of a pair: triangles meet, or (with
    /// `containment`) a part inside a closed mesh. With `below_near`, the
    /// other object is an obstacle and only its triangles below the nodes
    /// in `ws.near_nodes` are tested (those near the link's box: the
    /// others cannot meet it).
    fn overlaps(
        &self,
        pair: Pair,
        node: &Node,
        below_near: bool,
        containment: bool,
        ws: &mut Workspaces,
        stats: &mut PathStats,
    ) -> Result<bool, BisectionError> {
        let [(ga, pa), (gb, pb)] = self.posed(pair, node)?;
        stats.discrete_checks += 1;
        let a = MeshObject::new(&ga.mesh, &ga.obb_tree, pa)?;
        let b = MeshObject::new(&gb.mesh, &gb.obb_tree, pb)?;
        let c = if below_near {
            collide_below(&a, &b, &ws.near_nodes, CollideMode::First, &mut ws.collide)
        } else {
            collide(&a, &b, CollideMode::First, &mut ws.collide)
        };
        stats.bv_tests += c.stats.bv_tests;
        stats.triangle_tests += c.stats.triangle_tests;
        if c.colliding {
            return Ok(true);
        }
        Ok(containment && self.contained(pair, node, stats)?)
    }

    /// λ of a pair over the straight segment between two nodes, tightened
    /// by their poses (the posed bound of `armature-kinematics`).
    fn pair_lambda(&self, pair: Pair, a: &Node, b: &Node) -> Result<f64, KinematicsError> {
        let other = pair.other_link();
        for node in [a, b] {
            self.fill_levers(node, pair.link, other)?;
        }
        let (la, lb) = (a.levers.borrow(), b.levers.borrow());
        let (Some(la), Some(lb)) = (la.as_ref(), lb.as_ref()) else {
            // Not reached (both filled above); the bound without levers.
            return self.pair_lambda_posed(pair, (&a.q, &a.poses), (&b.q, &b.poses));
        };
        match other {
            None => self.lambda.lambda_levered(pair.link, &a.q, &b.q, la, lb),
            Some(j) => self
                .lambda
                .lambda_relative_levered(pair.link, j, &a.q, &b.q, la, lb),
        }
    }

    /// A node's posed levers of `link` and `other`, each computed once:
    /// a split asks for one pair's links only, and most nodes serve a few
    /// pairs of a model with many links.
    fn fill_levers(
        &self,
        node: &Node,
        link: usize,
        other: Option<usize>,
    ) -> Result<(), KinematicsError> {
        let mut levers = node.levers.borrow_mut();
        let levers = levers.get_or_insert_with(|| self.lambda.empty_levers());
        for l in std::iter::once(link).chain(other) {
            self.lambda.fill_levers(l, &node.poses, levers)?;
        }
        Ok(())
    }

    /// [`Scene::pair_lambda`] from configurations and their poses.
    fn pair_lambda_posed(
        &self,
        pair: Pair,
        (qa, pa): (&[f64], &[DAffine3]),
        (qb, pb): (&[f64], &[DAffine3]),
    ) -> Result<f64, KinematicsError> {
        match pair.other {
            Object::Obstacle(_) => self.lambda.lambda_posed(pair.link, qa, qb, pa, pb),
            Object::Link(j) => self
                .lambda
                .lambda_relative_posed(pair.link, j, qa, qb, pa, pb),
        }
    }

    /// The node of parameter `s`, computed (forward kinematics) once.
    fn node(
        &self,
        work: &mut SegmentWork,
        s: f64,
        stats: &mut PathStats,
    ) -> Result<usize, BisectionError> {
        let tree = self.body.tree();
        if let Some(&i) = work.index.get(&s.to_bits()) {
            let node = &mut work.nodes[i];
            if node.partial.is_some() {
                // The same configuration, every link now (the poses
                // already computed come out the same).
                work.motion
                    .poses_at(tree, s, &mut node.q, &mut node.poses)?;
                node.partial = None;
            }
            return Ok(i);
        }
        let mut q = vec![0.0; tree.nq()];
        let mut poses = vec![DAffine3::IDENTITY; tree.len()];
        work.motion.poses_at(tree, s, &mut q, &mut poses)?;
        stats.forward_kinematics += 1;
        Ok(work.push_node(s, q, poses, None))
    }

    /// The node of parameter `s` with the poses of the pair's links (and
    /// their ancestors) computed at least: a split bounds one pair there,
    /// and on a model of several robots or long chains most links' poses
    /// would never be asked. Any other use of the node goes through
    /// [`Scene::node`], which completes it.
    fn node_for(
        &self,
        work: &mut SegmentWork,
        s: f64,
        pair: Pair,
        stats: &mut PathStats,
    ) -> Result<usize, BisectionError> {
        let tree = self.body.tree();
        let i = match work.index.get(&s.to_bits()) {
            Some(&i) => i,
            None => {
                let mut q = vec![0.0; tree.nq()];
                work.motion.config_at(tree, s, &mut q)?;
                stats.forward_kinematics += 1;
                let poses = vec![DAffine3::IDENTITY; tree.len()];
                work.push_node(s, q, poses, Some(vec![false; tree.len()]))
            }
        };
        let node = &mut work.nodes[i];
        if let Some(known) = &mut node.partial {
            for link in std::iter::once(pair.link).chain(pair.other_link()) {
                tree.chain_forward_kinematics(link, &node.q, &mut node.poses, known)?;
            }
        }
        Ok(i)
    }

    /// The segment's motion, end nodes, pre-pass and pad (no distances).
    fn prepare(
        &self,
        qa: &[f64],
        qb: &[f64],
        stats: &mut PathStats,
    ) -> Result<SegmentWork, BisectionError> {
        let tree = self.body.tree();
        let mut work = SegmentWork {
            motion: JointSpaceMotion::new(tree, qa, qb)?,
            nodes: Vec::new(),
            index: FastMap::default(),
            pairs: Vec::new(),
            queue: BinaryHeap::new(),
            pad: 0.0,
            rel_pad: 0.0,
            full_lambda: vec![0.0; self.pairs.len()],
            link_lambda: Vec::new(),
            extent: 0.0,
            verdict: Verdict::Pending,
            setup: PathStats::default(),
            probe_levels: 0,
            hot_levels: 0,
            pair_etas: FastMap::default(),
            deferred: Vec::new(),
            fresh: Vec::new(),
            contain: Vec::new(),
            ranges: FastMap::default(),
            descents: DescentCosts::default(),
        };
        let n0 = self.node(&mut work, 0.0, stats)?;
        let n1 = self.node(&mut work, 1.0, stats)?;
        let (na, nb) = (&work.nodes[n0], &work.nodes[n1]);
        let lambdas = (0..tree.len())
            .map(|i| {
                self.lambda
                    .lambda_posed(i, &na.q, &nb.q, &na.poses, &nb.poses)
            })
            .collect::<Result<Vec<f64>, _>>()?;
        // Swept spheres: the geometry's sphere at `q_a` grown by λ.
        let mut spheres: Vec<Option<(DVec3, f64)>> = Vec::with_capacity(tree.len());
        let mut extent = 0.0_f64;
        // The largest λ and the largest radius over the links (the probe's
        // levels).
        let (mut sweep, mut size) = (0.0_f64, 0.0_f64);
        for (i, g) in self.body.links().iter().enumerate() {
            if let Some(g) = g {
                sweep = sweep.max(lambdas[i]);
                size = size.max(g.sphere.radius);
            }
            spheres.push(g.as_ref().map(|g| {
                let c = work.nodes[n0].poses[i].transform_point3(g.sphere.center);
                let r = g.sphere.radius + lambdas[i];
                extent = extent.max(c.length() + r);
                (c, r)
            }));
        }
        let obstacle_spheres: Vec<(DVec3, f64)> = self
            .obstacles
            .iter()
            .zip(&self.obstacle_poses)
            .map(|(o, p)| {
                let s = o.geometry().sphere;
                let c = p.transform_point3(s.center);
                extent = extent.max(c.length() + s.radius);
                (c, s.radius)
            })
            .collect();
        // Swept boxes: the world box of the geometry's OBB at `q_a` grown
        // by λ, tighter than the spheres for long or flat parts. Spheres
        // and boxes are grown by the clearance too: a pair that can come
        // within `ε` is tested.
        let eps = self.options.clearance;
        let boxes: Vec<Option<Aabb>> = self
            .boxes(&work.nodes[n0])
            .iter()
            .zip(&lambdas)
            .map(|(b, l)| b.map(|b| b.inflated(l * (1.0 + 1e-9) + PAD * extent + eps)))
            .collect();
        for (p, pair) in self.pairs.iter().enumerate() {
            work.setup.pairs += 1;
            let Some((ca, ra)) = spheres[pair.link] else {
                continue;
            };
            let other = match pair.other {
                Object::Link(j) => spheres[j],
                Object::Obstacle(o) => Some(obstacle_spheres[o]),
            };
            let Some((cb, rb)) = other else { continue };
            let reach = (ra + rb) * (1.0 + 1e-9) + PAD * extent + eps;
            if ca.distance(cb) > reach {
                continue;
            }
            if let Some((a, b)) = self.pair_boxes(*pair, &boxes)
                && !a.overlaps(&b)
            {
                continue;
            }
            work.setup.pairs_after_prepass += 1;
            work.pairs.push(u32::try_from(p).unwrap_or(u32::MAX));
            // Two links: the sum of their bounds (M2's own Lemma 1), which
            // serves the pad; a pair that starts from its ends tightens it
            // to the relative bound then (`Scene::first_tests`), most never
            // need it.
            work.full_lambda[p] = match pair.other {
                Object::Obstacle(_) => lambdas[pair.link],
                Object::Link(j) => lambdas[pair.link] + lambdas[j],
            };
        }
        work.extent = extent;
        work.link_lambda = lambdas;
        work.pad = PAD * extent;
        // A long segment is probed on dyadic levels until consecutive
        // probes move every point by at most half the largest link radius.
        if sweep > size {
            let levels = ((sweep / size).log2().ceil() + 1.0).max(1.0);
            let max = f64::from(MAX_PROBE_LEVELS);
            work.probe_levels = levels.min(max) as u32;
            work.hot_levels = (levels - max).clamp(0.0, f64::from(HOT_PROBE_LEVELS)) as u32;
        }
        // A configuration at `s` is computed as `q_a + s (q_b − q_a)`: each
        // value is off by at most `u (|q_a| + 3 |Δ|)` (zero when `Δ = 0`),
        // i.e. `u (3 + R) |Δ|` with `R = max |q| / |Δ|`, so the objects'
        // placements are off by at most that fraction of the segment's λ.
        let ratio = qa
            .iter()
            .zip(qb)
            .filter(|(a, b)| a != b)
            .map(|(a, b)| a.abs().max(b.abs()) / (b - a).abs())
            .fold(0.0, f64::max);
        work.rel_pad = UNIT_ROUNDOFF * (4.0 + ratio) * (1.0 + 1e-3);
        Ok(work)
    }

    /// [`Scene::prepare`], then the probe of a long segment; the kept
    /// pairs' first tests ([`Scene::first_tests`]) wait for the segment's
    /// first pop ([`SegmentWork::fresh`]), the pairs the probe never tested
    /// on their meshes for its last ([`SegmentWork::deferred`]).
    fn set_up(
        &self,
        qa: &[f64],
        qb: &[f64],
        ws: &mut Workspaces,
    ) -> Result<SegmentWork, BisectionError> {
        let mut stats = PathStats::default();
        let mut work = self.prepare(qa, qb, &mut stats)?;
        // A long segment (some link sweeps farther than its own size) is
        // first probed for intersecting triangles, level by level (centre,
        // quarters, eighths, …): an intersection there is a certified
        // collision, found for the price of a few overlap tests instead of
        // distance bounds for every pair at both ends. (Containment is left
        // to the tests below.) Short segments, which rarely collide there,
        // skip it.
        // Pairs tested on their meshes somewhere on the probe; past the
        // cap, the rule's next levels test only some of them (`hot`).
        let mut touched = vec![false; self.pairs.len()];
        let mut hot = Vec::new();
        for level in 1..=work.probe_levels + work.hot_levels {
            let full = level <= work.probe_levels;
            if level == work.probe_levels + 1 {
                hot = self.hot_pairs(&work, &touched);
                if hot.is_empty() {
                    break;
                }
            }
            let step = 0.5_f64.powi(level as i32);
            for k in (1..1u32 << level).step_by(2) {
                let s = f64::from(k) * step;
                let n = self.node(&mut work, s, &mut stats)?;
                let (pairs, touched) = if full {
                    (&work.pairs[..], Some(&mut touched[..]))
                } else {
                    (&hot[..], None)
                };
                if let Some(p) =
                    self.discrete_at(&work.nodes[n], pairs, false, touched, ws, &mut stats)?
                {
                    work.verdict = Verdict::Collides(s, p);
                    stats.pairs = work.setup.pairs;
                    stats.pairs_after_prepass = work.setup.pairs_after_prepass;
                    work.setup = stats;
                    return Ok(work);
                }
            }
        }
        if work.probe_levels >= MIN_PIECE_LEVELS {
            self.cull_by_pieces(&mut work, &mut stats)?;
        }
        // After a probe, the pairs it never had to test on their meshes
        // (boxes apart at every probed configuration) wait: a colliding
        // segment's collision is most likely among the others, and a free
        // segment tests every pair anyway.
        // The first tests wait for the segment's first pop: a path query
        // that finds a collision elsewhere first never pays for them.
        work.fresh = if work.probe_levels > 0 && touched.iter().any(|&t| t) {
            let (hot, cold): (Vec<u32>, Vec<u32>) =
                work.pairs.iter().partition(|&&p| touched[p as usize]);
            work.deferred = cold;
            hot
        } else {
            work.pairs.clone()
        };
        work.settle_if_empty();
        stats.pairs = work.setup.pairs;
        stats.pairs_after_prepass = work.setup.pairs_after_prepass;
        work.setup = stats;
        Ok(work)
    }

    /// The pairs the probe's levels past the cap test: of the link–obstacle
    /// pairs `touched` (tested on their meshes on the full levels), those
    /// whose link moves more than half its own bounding radius between
    /// consecutive probes of the last full level: a thin part crossing a
    /// thin obstacle stays in contact over a span shorter than that
    /// spacing.
    fn hot_pairs(&self, work: &SegmentWork, touched: &[bool]) -> Vec<u32> {
        let spacing = 0.5_f64.powi(work.probe_levels as i32);
        let fine = |i: usize| {
            self.body.links()[i]
                .as_ref()
                .is_some_and(|g| work.link_lambda[i] * spacing > 0.5 * g.sphere.radius)
        };
        work.pairs
            .iter()
            .copied()
            .filter(|&p| {
                let pair = self.pairs[p as usize];
                touched[p as usize] && matches!(pair.other, Object::Obstacle(_)) && fine(pair.link)
            })
            .collect()
    }

    /// Drops the kept pairs that the probe's configurations prove apart on
    /// every piece between consecutive ones (see *Swept pieces* in the
    /// module docs); those with a closed mesh wait for their containment
    /// test ([`SegmentWork::contain`]).
    fn cull_by_pieces(
        &self,
        work: &mut SegmentWork,
        stats: &mut PathStats,
    ) -> Result<(), BisectionError> {
        let pieces = 1u32 << work.probe_levels;
        let h = 1.0 / f64::from(pieces);
        let nodes = (0..=pieces)
            .map(|k| self.node(work, f64::from(k) * h, stats))
            .collect::<Result<Vec<usize>, _>>()?;
        let boxes: Vec<&[Option<Aabb>]> =
            nodes.iter().map(|&n| self.boxes(&work.nodes[n])).collect();
        // Every point of link `i` at a parameter of piece `k` lies within
        // `h λ_i / 2` of where it is at one of the piece's ends (its path
        // over the piece is at most `h λ_i` long), so within the union of
        // the link's boxes there grown by that much, by the rounding of
        // the configurations and poses, and by the clearance.
        let eps = self.options.clearance;
        let swept: Vec<Vec<Option<Aabb>>> = boxes
            .windows(2)
            .map(|w| {
                w[0].iter()
                    .zip(w[1])
                    .zip(&work.link_lambda)
                    .map(|((a, b), &l)| {
                        let grow =
                            0.5 * h * l * (1.0 + 1e-9) + 2.0 * (work.pad + work.rel_pad * l) + eps;
                        Some(a.as_ref()?.union(b.as_ref()?).inflated(grow))
                    })
                    .collect()
            })
            .collect();
        let meets = |p: u32, piece: &[Option<Aabb>]| {
            let pair = self.pairs[p as usize];
            match (piece[pair.link], pair.other) {
                (None, _) => true,
                (Some(a), Object::Link(j)) => piece[j].is_none_or(|b| a.overlaps(&b)),
                (Some(a), Object::Obstacle(o)) => self.obstacle_tops[o].near(&a, 0.0),
            }
        };
        let mut kept = Vec::with_capacity(work.pairs.len());
        let mut dropped = Vec::new();
        for &p in &work.pairs {
            let Some(first) = swept.iter().position(|piece| meets(p, piece)) else {
                dropped.push(p);
                continue;
            };
            kept.push(p);
            let last = swept
                .iter()
                .rposition(|piece| meets(p, piece))
                .unwrap_or(first);
            // The smallest dyadic interval holding the pieces that meet:
            // its ends and centre are probed configurations (or the
            // segment's), so its tests need no new kinematics.
            let (mut k0, mut k1, mut size) = (first, last, 1usize);
            while k0 != k1 {
                k0 /= 2;
                k1 /= 2;
                size *= 2;
            }
            if size < swept.len() {
                let s0 = (k0 * size) as f64 * h;
                work.ranges.insert(p, (s0, s0 + size as f64 * h));
            }
        }
        // A link far from an obstacle's surface may still lie inside its
        // solid: the dropped pairs with a closed mesh are tested for
        // containment once, last (apart all along, a part cannot get in or
        // out). With no surfaces meeting, one object inside the other is
        // wholly inside, so its box is inside the other's: pairs whose
        // boxes at the start do not nest need no test.
        for p in dropped {
            let pair = self.pairs[p as usize];
            let nested = self
                .pair_boxes(pair, boxes[0])
                .is_none_or(|(a, b)| a.contains(&b) || b.contains(&a));
            if nested && self.closed(pair)? {
                work.contain.push(p);
            }
        }
        work.pairs = kept;
        Ok(())
    }

    /// The first tests of `pairs`, centre first, on a segment whose nodes
    /// `ends` are at `s = 0, ½, 1`, or on the part `[s0, s1]` of it that
    /// the swept pieces leave a pair ([`SegmentWork::ranges`]; the rest is
    /// proven by them): `η` at the midpoint `q_m` and its containment test
    /// there; a pair with `max(λ(q_0, q_m), λ(q_m, q_1)) + pad < η_m` is
    /// free on the whole range (Lemma 1 on either half with the far end's
    /// bound taken as 0). Only the other pairs get their bounds at the two
    /// ends and the two halves as their first entries. Each pair is
    /// proven, or its entries are queued, or the segment collides.
    ///
    /// The containment test at one configuration is enough: a pair proven
    /// apart along the whole segment keeps its surfaces from meeting, so a
    /// part cannot get into or out of the other's solid anywhere on it.
    fn first_tests(
        &self,
        work: &mut SegmentWork,
        pairs: &[u32],
        ends: [usize; 3],
        ws: &mut Workspaces,
        stats: &mut PathStats,
    ) -> Result<(), BisectionError> {
        let eps = self.options.clearance;
        // Pairs the centre alone does not prove.
        let mut pending: Vec<Pending> = Vec::new();
        // Each link's λ on either half of the whole segment, shared by its
        // obstacle pairs.
        let mut halves: Vec<Option<(f64, f64)>> = vec![None; self.body.tree().len()];
        for &p in pairs {
            let pair = self.pairs[p as usize];
            let (range, nodes) = match work.ranges.get(&p) {
                Some(&(s0, s1)) => {
                    let sm = 0.5 * (s0 + s1);
                    let nodes = [
                        self.node(work, s0, stats)?,
                        self.node(work, sm, stats)?,
                        self.node(work, s1, stats)?,
                    ];
                    ([s0, sm, s1], nodes)
                }
                None => ([0.0, 0.5, 1.0], ends),
            };
            let whole = range == [0.0, 0.5, 1.0];
            let node = &work.nodes[nodes[1]];
            let (first, last) = (&work.nodes[nodes[0]], &work.nodes[nodes[2]]);
            let (left, right) = match (pair.other, halves[pair.link]) {
                (Object::Obstacle(_), Some(h)) if whole => h,
                _ => {
                    let h = (
                        self.pair_lambda(pair, first, node)?,
                        self.pair_lambda(pair, node, last)?,
                    );
                    if let (Object::Obstacle(_), true) = (pair.other, whole) {
                        halves[pair.link] = Some(h);
                    }
                    h
                }
            };
            // With `ε`, a pair proven here stays more than `ε` apart over
            // the whole range, its ends included, as the ends' own bounds
            // (0 within `ε`) would require.
            let need = left.max(right) + work.pair_pad(p) + eps;
            // The links' world boxes at the centre: a pair whose boxes are
            // farther apart than it needs is proven with no distance query
            // (the meshes lie in their boxes, so no part is inside the
            // other).
            let mid_boxes = self.boxes(node);
            if let Some((a, b)) = self.pair_boxes(pair, mid_boxes)
                && a.distance(&b) * (1.0 - BOX_DISTANCE_SLACK) > need
            {
                continue;
            }
            // Far from an obstacle's top boxes: proven as by the boxes,
            // but a link inside a closed obstacle can be far from its
            // surface, so containment is tested.
            if let (Object::Obstacle(o), Some(a)) = (pair.other, mid_boxes[pair.link])
                && !self.obstacle_tops[o].near(&a, need)
            {
                if self.contained(pair, node, stats)? {
                    work.verdict = Verdict::Collides(range[1], p);
                    break;
                }
                continue;
            }
            // A pair certainly closer than it needs at the centre (a long
            // segment) is set up as M2 does, from its ends, with the
            // containment test at the start: the centre's bound would only
            // be the first split's, and computing it first costs a third
            // query per pair.
            if need >= self.distance_upper_bound(pair, node)? {
                let lambda = if whole {
                    // Two links on the whole segment: the plain relative
                    // bound, a fraction of the posed one's cost for the
                    // many link pairs of a long chain (over a whole
                    // segment the poses gain little).
                    if let Object::Link(j) = pair.other {
                        let relative = self
                            .lambda
                            .lambda_relative(pair.link, j, &first.q, &last.q)?;
                        let full = &mut work.full_lambda[p as usize];
                        *full = full.min(relative);
                    }
                    work.full_lambda[p as usize]
                } else {
                    self.pair_lambda(pair, first, last)?
                };
                pending.push(Pending {
                    pair: p,
                    eta_m: None,
                    lambdas: [left, right, lambda],
                    range,
                    nodes,
                });
                continue;
            }
            // The plain variant asks the boxes first: apart by `need` proves
            // the pair on the whole range; otherwise the bound is computed
            // (no targeted descent: it would fail as the boxes did).
            let target = match (
                self.options.refined,
                self.apart(pair, node, need, ws, stats)?,
            ) {
                (false, Some(true)) => {
                    if self.contained(pair, node, stats)? {
                        work.verdict = Verdict::Collides(range[1], p);
                        break;
                    }
                    continue;
                }
                (false, Some(false)) => None,
                (true, _) => Some(need),
                (false, None) => work.descents.targeted_pays().then_some(need),
            };
            let ask = Ask::new(eps, work.extent, target);
            let eta = self.eta(pair, node, ask, ws, stats, Some(&mut work.descents))?;
            if eta <= 0.0 || self.contained(pair, node, stats)? {
                work.verdict = Verdict::Collides(range[1], p);
                break;
            }
            if self.options.refined {
                work.pair_etas.insert((p, nodes[1]), eta);
            }
            if need >= eta {
                pending.push(Pending {
                    pair: p,
                    eta_m: Some(eta),
                    lambdas: [left, right, 0.0],
                    range,
                    nodes,
                });
            }
        }
        if work.verdict != Verdict::Pending {
            return Ok(());
        }
        let mut etas = vec![[0.0; 2]; pending.len()];
        'ends: for e in 0..2 {
            for (k, pend) in pending.iter().enumerate() {
                let p = pend.pair;
                let pair = self.pairs[p as usize];
                let pad = work.pair_pad(p);
                let [left, right, lambda] = pend.lambdas;
                // What Lemma 1 needs from this end: on its half beyond the
                // centre's bound, or on the whole range beyond the other
                // end's (known at the second end only).
                let need = match pend.eta_m {
                    Some(m) => Some(if e == 0 { left } else { right } + pad - m),
                    None if e == 1 => Some(lambda + pad - etas[k][0]),
                    None => None,
                };
                // The bound known nearest: the centre's, else the first
                // end's.
                let known = pend.eta_m.unwrap_or(etas[k][0]);
                let need =
                    need.filter(|&n| self.options.refined || work.descents.targeted_for(n, known));
                let ask = Ask::new(eps, work.extent, need);
                let n = pend.nodes[2 * e];
                let node = &work.nodes[n];
                let eta = self.eta(pair, node, ask, ws, stats, Some(&mut work.descents))?;
                // A pair not tested at the centre is tested for
                // containment at its start.
                if eta <= 0.0
                    || (e == 0 && pend.eta_m.is_none() && self.contained(pair, node, stats)?)
                {
                    work.verdict = Verdict::Collides(pend.range[2 * e], p);
                    break 'ends;
                }
                if self.options.refined {
                    work.pair_etas.insert((p, n), eta);
                }
                etas[k][e] = eta;
            }
        }
        if work.verdict != Verdict::Pending {
            return Ok(());
        }
        for (pend, &[eta0, eta1]) in pending.iter().zip(&etas) {
            let mut push = |lambda: f64, s0: f64, s1: f64, eta0: f64, eta1: f64| {
                work.queue.push(Entry {
                    key: priority(lambda, eta0, eta1),
                    lambda,
                    pair: pend.pair,
                    na: 0,
                    nb: 0,
                    s0,
                    s1,
                    eta0,
                    eta1,
                });
            };
            let [s0, sm, s1] = pend.range;
            let [left, right, lambda] = pend.lambdas;
            match pend.eta_m {
                Some(m) => {
                    push(left, s0, sm, eta0, m);
                    push(right, sm, s1, m, eta1);
                }
                None => push(lambda, s0, s1, eta0, eta1),
            }
        }
        work.settle_if_empty();
        Ok(())
    }

    /// One step of ADAPTIVE-BISECTION (M2 Fig. 2, step 2) on a pending
    /// segment.
    fn pop_one(
        &self,
        work: &mut SegmentWork,
        ws: &mut Workspaces,
        stats: &mut PathStats,
    ) -> Result<(), BisectionError> {
        let popped = if work.fresh.is_empty() {
            work.queue.pop()
        } else {
            None
        };
        let Some(e) = popped else {
            // The first tests of the pairs the set-up left (before any
            // entry), or of the deferred ones once every other entry is
            // done; they go back if these fail.
            let fresh = !work.fresh.is_empty();
            if !fresh && work.deferred.is_empty() {
                // Last, the containment tests of the pairs the swept
                // pieces proved apart (a link inside a closed obstacle all
                // along touches none of its triangles).
                let start = self.node(work, 0.0, stats)?;
                while let Some(&p) = work.contain.last() {
                    if self.contained(self.pairs[p as usize], &work.nodes[start], stats)? {
                        work.verdict = Verdict::Collides(0.0, p);
                        return Ok(());
                    }
                    work.contain.pop();
                }
                work.verdict = Verdict::Free;
                return Ok(());
            }
            let pairs = std::mem::take(if fresh {
                &mut work.fresh
            } else {
                &mut work.deferred
            });
            let ends = [0.0, 0.5, 1.0].map(|s| self.node(work, s, stats));
            let tested = match ends {
                [Ok(a), Ok(m), Ok(b)] => self.first_tests(work, &pairs, [a, m, b], ws, stats),
                [Err(e), ..] | [_, Err(e), _] | [.., Err(e)] => Err(e),
            };
            if tested.is_err() {
                work.queue.clear();
                if fresh {
                    work.fresh = pairs;
                } else {
                    work.deferred = pairs;
                }
                work.verdict = Verdict::Pending;
            }
            return tested;
        };
        stats.queue_pops += 1;
        if e.lambda + work.pair_pad(e.pair) < e.eta0 + e.eta1 {
            work.settle_if_empty();
            return Ok(());
        }
        if self.options.refined {
            match self.split_in_space(work, e, stats) {
                Ok(true) => return Ok(()),
                Ok(false) => {}
                Err(err) => {
                    work.queue.push(e);
                    return Err(err);
                }
            }
        }
        let sm = 0.5 * (e.s0 + e.s1);
        if !(e.s0 < sm && sm < e.s1) {
            work.verdict = Verdict::Stuck;
            return Ok(());
        }
        let split = self.split(work, e, sm, ws, stats);
        if split.is_err() {
            // The entry goes back: a cached segment never loses work it
            // still owes (it would be answered free without it).
            work.queue.push(e);
        }
        split
    }

    /// Step 2.2 of M2 Fig. 2 for an entry that fails Lemma 1: the
    /// midpoint's distance, then a collision or both halves queued.
    fn split(
        &self,
        work: &mut SegmentWork,
        e: Entry,
        sm: f64,
        ws: &mut Workspaces,
        stats: &mut PathStats,
    ) -> Result<(), BisectionError> {
        let pair = self.pairs[e.pair as usize];
        let [i0, im, i1] = [
            self.node_for(work, e.s0, pair, stats)?,
            self.node_for(work, sm, pair, stats)?,
            self.node_for(work, e.s1, pair, stats)?,
        ];
        let left = self.pair_lambda(pair, &work.nodes[i0], &work.nodes[im])?;
        let right = self.pair_lambda(pair, &work.nodes[im], &work.nodes[i1])?;
        // What Lemma 1 on both halves needs from the midpoint.
        let pad = work.pair_pad(e.pair);
        let need = (left + pad - e.eta0).max(right + pad - e.eta1);
        // Each half is proven by its own end's bound alone (Lemma 1 with
        // the midpoint's taken as 0): nothing to ask there.
        if need < 0.0 && !self.options.refined {
            work.settle_if_empty();
            return Ok(());
        }
        let eta = if self.options.refined && !self.leaf_pair(pair, e)? {
            // Inner volumes: their own bound only; 0 claims nothing, the
            // halves are then refined in space.
            self.bv_eta(pair, [e.na, e.nb], &work.nodes[im], stats)?
        } else {
            let key = (e.pair, im);
            let whole = match work.pair_etas.get(&key) {
                Some(&eta) => eta,
                None => {
                    // The plain variant asks the boxes first: apart by
                    // `need` proves both halves (nothing to queue); an
                    // obstacle's top boxes before the meshes.
                    if !self.options.refined && self.far_from_obstacle(pair, &work.nodes[im], need)
                    {
                        work.settle_if_empty();
                        return Ok(());
                    }
                    let target = if self.options.refined {
                        Some(need)
                    } else {
                        match self.apart(pair, &work.nodes[im], need, ws, stats)? {
                            Some(true) => {
                                work.settle_if_empty();
                                return Ok(());
                            }
                            Some(false) => None,
                            None => work
                                .descents
                                .targeted_for(need, e.eta0.max(e.eta1))
                                .then_some(need),
                        }
                    };
                    let ask = Ask::new(self.options.clearance, work.extent, target);
                    let node = &work.nodes[im];
                    let eta = self.eta(pair, node, ask, ws, stats, Some(&mut work.descents))?;
                    if self.options.refined {
                        work.pair_etas.insert(key, eta);
                    }
                    eta
                }
            };
            if whole <= 0.0 {
                work.verdict = Verdict::Collides(sm, e.pair);
                return Ok(());
            }
            if self.options.refined {
                whole.max(self.bv_eta(pair, [e.na, e.nb], &work.nodes[im], stats)?)
            } else {
                whole
            }
        };
        let halves = [
            (left, e.s0, sm, e.eta0, eta),
            (right, sm, e.s1, eta, e.eta1),
        ];
        // A half whose end nearly touches, relative to its motion, may hold
        // a narrow collision the order would reach only after following
        // the near contact down: the pair is tested for overlap on its
        // dyadic points now (module docs, *Look-ahead at near contacts*).
        if !self.options.refined {
            for &(lambda, s0, s1, eta0, eta1) in &halves {
                if eta0.min(eta1) < GRAZING * lambda {
                    for level in 1..=GRAZING_LEVELS {
                        let step = (s1 - s0) * 0.5_f64.powi(level as i32);
                        for k in (1..1u32 << level).step_by(2) {
                            let s = s0 + f64::from(k) * step;
                            if self.pair_overlaps_at(work, e.pair, s, ws, stats)? {
                                work.verdict = Verdict::Collides(s, e.pair);
                                return Ok(());
                            }
                        }
                    }
                }
            }
        }
        for (lambda, s0, s1, eta0, eta1) in halves {
            work.queue.push(Entry {
                key: priority(lambda, eta0, eta1),
                lambda,
                pair: e.pair,
                na: e.na,
                nb: e.nb,
                s0,
                s1,
                eta0,
                eta1,
            });
        }
        Ok(())
    }

    /// Whether pair `p`'s meshes intersect at the segment's parameter `s`
    /// (the pair's boxes first; an obstacle's parts near the link's box
    /// only).
    fn pair_overlaps_at(
        &self,
        work: &mut SegmentWork,
        p: u32,
        s: f64,
        ws: &mut Workspaces,
        stats: &mut PathStats,
    ) -> Result<bool, BisectionError> {
        let pair = self.pairs[p as usize];
        let n = self.node_for(work, s, pair, stats)?;
        let node = &work.nodes[n];
        let boxes = self.link_boxes_of(pair, node);
        if let (Some(a), Some(b)) = boxes
            && !a.overlaps(&b)
        {
            return Ok(false);
        }
        let Some(near) = self.near_parts(pair, boxes.0, ws) else {
            return Ok(false);
        };
        self.overlaps(pair, node, near, false, ws, stats)
    }

    /// For an obstacle, its parts near the link's box go to
    /// `ws.near_nodes` (`Some(true)`; `None` when there are none, so no
    /// triangle pair meets); `Some(false)` for a link pair or a link
    /// without a box (its mesh test starts from the roots).
    fn near_parts(&self, pair: Pair, link_box: Option<Aabb>, ws: &mut Workspaces) -> Option<bool> {
        match (pair.other, link_box) {
            (Object::Obstacle(o), Some(a)) => {
                let mut nodes = std::mem::take(&mut ws.near_nodes);
                let any = self.obstacle_tops[o].near_nodes(&a, 0.0, &mut nodes);
                ws.near_nodes = nodes;
                any.then_some(true)
            }
            _ => Some(false),
        }
    }

    /// The RSS trees of a pair: (link side, other side).
    fn trees(&self, pair: Pair) -> Result<[&Bvh<Rss>; 2], BisectionError> {
        let a = &link_geometry(self.body, pair.link)?.rss_tree;
        let b = match pair.other {
            Object::Link(j) => &link_geometry(self.body, j)?.rss_tree,
            Object::Obstacle(o) => &self.obstacles[o].geometry().rss_tree,
        };
        Ok([a, b])
    }

    /// Whether an entry's volumes are both leaves.
    fn leaf_pair(&self, pair: Pair, e: Entry) -> Result<bool, BisectionError> {
        let [ta, tb] = self.trees(pair)?;
        Ok(ta.nodes()[e.na as usize].is_leaf() && tb.nodes()[e.nb as usize].is_leaf())
    }

    /// η of a pair of volumes at a configuration: the RSS–RSS distance
    /// lower bound in the link's mesh frame, computed as GREEDY-DIST
    /// computes it (the other volume mapped by the relative pose's
    /// [`RigidMap`], whose images enclose the exact ones, and
    /// [`distance_rss_rss`], which subtracts its own rounding allowance);
    /// the rounding of the relative pose itself is in the pad, as for
    /// GREEDY-DIST's bounds. Anything but a positive number counts as 0.
    fn bv_eta(
        &self,
        pair: Pair,
        [na, nb]: [u32; 2],
        node: &Node,
        stats: &mut PathStats,
    ) -> Result<f64, BisectionError> {
        stats.bv_tests += 1;
        let [(_, pa), (_, pb)] = self.posed(pair, node)?;
        let [ta, tb] = self.trees(pair)?;
        let map = RigidMap::new(&relative_pose(&pa, &pb));
        let a = ta.nodes()[na as usize].bv;
        let b = tb.nodes()[nb as usize].bv.transform_rigid(&map);
        let d = distance_rss_rss(&a, &b);
        Ok(if d > 0.0 { d } else { 0.0 })
    }

    /// REFINED-ADAPTIVE-BISECTION's step in space (M2 §VI, Fig. 16): an
    /// entry that failed Lemma 1 is replaced by the two pairs of volumes
    /// one level down (the larger volume split, as GREEDY-DIST splits it),
    /// each with the larger of the parent's bound and its own at either
    /// end; `false` when that cannot help, and the entry is bisected in
    /// time instead: a pair of leaves, or an entry whose bounds at both
    /// ends exceed `max(ε, 10⁻³ · extent)` (GREEDY-DIST would not descend
    /// there at either end, M2 Fig. 16's intersection of the two descents,
    /// with the threshold of the refined η).
    fn split_in_space(
        &self,
        work: &mut SegmentWork,
        e: Entry,
        stats: &mut PathStats,
    ) -> Result<bool, BisectionError> {
        let pair = self.pairs[e.pair as usize];
        let [ta, tb] = self.trees(pair)?;
        let (na, nb) = (&ta.nodes()[e.na as usize], &tb.nodes()[e.nb as usize]);
        if na.is_leaf() && nb.is_leaf() {
            return Ok(false);
        }
        let near = self.options.clearance.max(REFINE_START * work.extent);
        if e.eta0 > near && e.eta1 > near {
            return Ok(false);
        }
        let children = if nb.is_leaf() || (!na.is_leaf() && na.bv.size() >= nb.bv.size()) {
            na.children()
                .map(|[l, r]| [(l, e.nb as usize), (r, e.nb as usize)])
        } else {
            nb.children()
                .map(|[l, r]| [(e.na as usize, l), (e.na as usize, r)])
        };
        let Some(children) = children else {
            return Ok(false);
        };
        let mut ids = [(0_u32, 0_u32); 2];
        for (id, (ca, cb)) in ids.iter_mut().zip(children) {
            // Node ids beyond `u32` (no mesh that large fits in memory)
            // are bisected in time, which needs none.
            let (Ok(ca), Ok(cb)) = (u32::try_from(ca), u32::try_from(cb)) else {
                return Ok(false);
            };
            *id = (ca, cb);
        }
        let [i0, i1] = [self.node(work, e.s0, stats)?, self.node(work, e.s1, stats)?];
        let mut entries = [e; 2];
        for (entry, (ca, cb)) in entries.iter_mut().zip(ids) {
            entry.na = ca;
            entry.nb = cb;
            entry.eta0 = e
                .eta0
                .max(self.bv_eta(pair, [ca, cb], &work.nodes[i0], stats)?);
            entry.eta1 = e
                .eta1
                .max(self.bv_eta(pair, [ca, cb], &work.nodes[i1], stats)?);
            entry.key = priority(e.lambda, entry.eta0, entry.eta1);
        }
        stats.bv_pairs += 2;
        // A child proven apart here is dropped at once (M2 Fig. 16
        // backtracks there), rather than costing a pop later.
        let pad = work.pair_pad(e.pair);
        let proven = |c: &Entry| c.lambda + pad < c.eta0 + c.eta1;
        work.queue
            .extend(entries.into_iter().filter(|c| !proven(c)));
        work.settle_if_empty();
        Ok(true)
    }

    /// The discrete check of every kept pair at `s`: the first pair that
    /// overlaps, if any.
    fn discrete(
        &self,
        work: &mut SegmentWork,
        s: f64,
        ws: &mut Workspaces,
        stats: &mut PathStats,
    ) -> Result<Option<(f64, u32)>, BisectionError> {
        let n = self.node(work, s, stats)?;
        if let Some(p) = self.discrete_at(&work.nodes[n], &work.pairs, true, None, ws, stats)? {
            return Ok(Some((s, p)));
        }
        // Fixed resolution visits each midpoint once: keep no nodes.
        work.nodes.truncate(2);
        work.index.retain(|_, i| *i < 2);
        Ok(None)
    }

    /// The discrete check of `pairs` at `node`, skipping pairs whose world
    /// boxes are apart there: the first pair that overlaps.
    /// Without `containment`, only intersecting triangles count (the
    /// probe of long segments, which leaves containment to the bisection).
    fn discrete_at(
        &self,
        node: &Node,
        pairs: &[u32],
        containment: bool,
        mut touched: Option<&mut [bool]>,
        ws: &mut Workspaces,
        stats: &mut PathStats,
    ) -> Result<Option<u32>, BisectionError> {
        let boxes = self.boxes(node);
        for &p in pairs {
            let pair = self.pairs[p as usize];
            if let Some((a, b)) = self.pair_boxes(pair, boxes)
                && !a.overlaps(&b)
            {
                continue;
            }
            // An obstacle: only the parts near the link's box are tested;
            // none near, no triangle pair meets (containment, if asked, is
            // still tested).
            let Some(near) = self.near_parts(pair, boxes[pair.link], ws) else {
                if containment && self.contained(pair, node, stats)? {
                    return Ok(Some(p));
                }
                continue;
            };
            if let Some(t) = touched.as_deref_mut() {
                t[p as usize] = true;
            }
            if self.overlaps(pair, node, near, containment, ws, stats)? {
                return Ok(Some(p));
            }
        }
        Ok(None)
    }

    /// The one-end covering walk (see the module docs).
    fn walk(
        &self,
        qa: &[f64],
        qb: &[f64],
        ws: &mut Workspaces,
    ) -> Result<SegmentReport, BisectionError> {
        let mut stats = PathStats::default();
        let mut work = self.prepare(qa, qb, &mut stats)?;
        stats.pairs = work.setup.pairs;
        stats.pairs_after_prepass = work.setup.pairs_after_prepass;
        let eps = self.options.clearance.max(WALK_FLOOR * work.extent);
        let tree = self.body.tree();
        let at = |s: f64, p: u32| {
            let pair = self.pairs[p as usize];
            CollisionAt {
                segment: 0,
                s,
                link: pair.link,
                other: pair.other,
            }
        };
        let report = |status, prefix: f64, collision, stats| SegmentReport {
            status,
            certified_free_prefix: prefix,
            collision,
            stats,
        };
        // Min-heap on the pair's certified end `s`.
        let mut heap: BinaryHeap<(Reverse<TopKey>, Reverse<u32>, u64)> = BinaryHeap::new();
        let start = self.node(&mut work, 0.0, &mut stats)?;
        let end = self.node(&mut work, 1.0, &mut stats)?;
        for &p in &work.pairs {
            let pair = self.pairs[p as usize];
            let node = &work.nodes[start];
            let ask = Ask::new(eps, work.extent, None);
            let eta = self.eta(pair, node, ask, ws, &mut stats, None)?;
            if eta <= 0.0 || self.contained(pair, node, &mut stats)? {
                return Ok(report(PathStatus::Collides, 0.0, Some(at(0.0, p)), stats));
            }
            heap.push((Reverse(TopKey(0.0)), Reverse(p), eta.to_bits()));
        }
        let mut q = vec![0.0; tree.nq()];
        let mut poses = vec![DAffine3::IDENTITY; tree.len()];
        let mut q_s = work.nodes[start].q.clone();
        let mut poses_s = work.nodes[start].poses.clone();
        let mut s_cached = 0.0_f64;
        while let Some(&(Reverse(TopKey(s)), Reverse(p), eta_bits)) = heap.peek() {
            if s >= 1.0 {
                return Ok(report(PathStatus::Free, 1.0, None, stats));
            }
            if stats.queue_pops >= self.options.max_queue_pops {
                return Ok(report(PathStatus::BudgetExhausted, s, None, stats));
            }
            heap.pop();
            stats.queue_pops += 1;
            let eta = f64::from_bits(eta_bits);
            let pair = self.pairs[p as usize];
            if s.to_bits() != s_cached.to_bits() {
                work.motion.poses_at(tree, s, &mut q_s, &mut poses_s)?;
                stats.forward_kinematics += 1;
                s_cached = s;
            }
            let here = (q_s.as_slice(), poses_s.as_slice());
            let last = &work.nodes[end];
            let to_end = self.pair_lambda_posed(pair, here, (&last.q, &last.poses))?;
            let pad = work.pair_pad(p);
            if to_end + pad < eta {
                heap.push((Reverse(TopKey(1.0)), Reverse(p), eta_bits));
                continue;
            }
            let mut h = (1.0 - s) * ((eta - pad) / to_end).clamp(0.0, 1.0) * WALK_STEP;
            let mut next = None;
            for _ in 0..WALK_HALVINGS {
                let s1 = s + h;
                if s1 <= s || s1.is_nan() {
                    break;
                }
                work.motion.poses_at(tree, s1, &mut q, &mut poses)?;
                stats.forward_kinematics += 1;
                if self.pair_lambda_posed(pair, here, (&q, &poses))? + pad < eta {
                    next = Some(s1);
                    break;
                }
                h *= 0.5;
            }
            let Some(s1) = next else {
                // No representable step is certified: undecided here.
                return Ok(report(PathStatus::BudgetExhausted, s, None, stats));
            };
            let node = Node {
                q: q.clone(),
                poses: poses.clone(),
                partial: None,
                levers: RefCell::new(None),
                boxes: OnceCell::new(),
            };
            let eta1 = self.eta(
                pair,
                &node,
                Ask::new(eps, work.extent, None),
                ws,
                &mut stats,
                None,
            )?;
            if eta1 <= 0.0 {
                let others = heap.peek().map_or(1.0, |&(Reverse(TopKey(t)), ..)| t);
                return Ok(report(
                    PathStatus::Collides,
                    s1.min(others),
                    Some(at(s1, p)),
                    stats,
                ));
            }
            heap.push((Reverse(TopKey(s1)), Reverse(p), eta1.to_bits()));
        }
        // No pair survived the pre-pass.
        Ok(report(PathStatus::Free, 1.0, None, stats))
    }
}

#[cfg(test)]
mod tests {
    use super::DescentCosts;

    #[test]
    fn targeted_descents_stop_only_where_plain_ones_are_cheap() {
        // Too few descents of either kind to judge: ask.
        let young = DescentCosts {
            plain: (3, 3),
            targeted: (100, 10_000),
        };
        assert!(young.targeted_pays());
        // Plain descents of 2 tests against targeted ones of 60: split on.
        let cheap = DescentCosts {
            plain: (50, 100),
            targeted: (10, 600),
        };
        assert!(!cheap.targeted_pays());
        // Plain descents of 40 tests against targeted ones of 60: ask.
        let dear = DescentCosts {
            plain: (50, 2_000),
            targeted: (10, 600),
        };
        assert!(dear.targeted_pays());
    }

    #[test]
    fn targeted_descents_only_near_the_bound_known() {
        let dear = DescentCosts {
            plain: (50, 2_000),
            targeted: (10, 600),
        };
        // A need within twice the bound known nearest: ask.
        assert!(dear.targeted_for(0.019, 0.01));
        // Ends 1 cm away, a midpoint asked to be 25 cm away: plain only.
        assert!(!dear.targeted_for(0.25, 0.01));
        // Near the bound, but plain descents are cheap: plain only.
        let cheap = DescentCosts {
            plain: (50, 100),
            targeted: (10, 600),
        };
        assert!(!cheap.targeted_for(0.019, 0.01));
    }
}
