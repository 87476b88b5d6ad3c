//! The answer of a query: status, witness, bound, counts — and the
//! contract every answer keeps ([`CcdReport`]).

use std::time::Duration;

use armature_bvh_geometry::query::FeaturePair;
use glam::DVec3;

/// How a query ended; see [`CcdReport`] for what each status guarantees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CcdStatus {
    /// Every pair keeps its clearance over `[0, 1]`.
    Free,
    /// A pair came within twice its clearance; no pair broke its clearance
    /// before the contact's time.
    Collides,
    /// Some pair intersects at `t = 0`: its triangles meet (touching
    /// counts, within rounding), or a closed mesh of the pair holds part of
    /// the other (a link inside a closed obstacle, an obstacle or a link
    /// inside a closed link).
    CollidingAtStart,
    /// A pair ran out of iterations (or of certified progress) first: the
    /// motion *may* break a clearance at or after
    /// [`CcdReport::toc_lower_bound`].
    BudgetExhausted,
}

/// What the link touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Other {
    /// The obstacle at this index of the query's obstacle slice.
    Obstacle(usize),
    /// The link at this index of the body's tree.
    Link(usize),
}

/// The witness of a contact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// Normalised time of contact in `[0, 1]`: never later than the first
    /// time any pair comes closer than its clearance (see [`CcdReport`]),
    /// so never later than the first time of contact.
    pub time: f64,
    /// The moving link (tree index).
    pub link: usize,
    /// What it touches.
    pub other: Other,
    /// The triangle of the link's mesh holding the closest point.
    pub triangle_a: u32,
    /// The triangle of the other mesh holding the closest point.
    pub triangle_b: u32,
    /// The pair's distance at [`Contact::time`] (at most twice the pair's
    /// clearance, so at most twice the threshold); 0 when a closed mesh
    /// holds part of the other at the start, the triangles and points then
    /// being the inner point and the nearest point of the enclosing
    /// surface.
    pub distance: f64,
    /// World point: the middle of the two closest points.
    pub point: DVec3,
    /// The other end of the contact segment when two parallel edges touch
    /// along a segment (the elementary stage reports two contacts then,
    /// as M1); `None` otherwise and from conservative advancement.
    pub second_point: Option<DVec3>,
    /// World unit normal pointing from the link towards the other object
    /// (the closest points' direction; at zero distance, the reversed
    /// normal of the other's triangle).
    pub normal: DVec3,
    /// The elementary features in contact ("a" is the link's mesh), when
    /// the exact stage solves for them (M1's elementary equations);
    /// `None` from conservative advancement, which reports triangles.
    pub features: Option<FeaturePair>,
}

/// Counts and times of one query (docs/architecture.md, "Measured").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CcdStats {
    /// Pairs the rules allow (disabled, adjacent and rigidly attached
    /// links excluded), before spatial culling.
    pub pairs_total: usize,
    /// Pairs whose swept boxes overlap (M4 §5), a link's meeting one of a
    /// static obstacle's top boxes too.
    pub pairs_after_spatial: usize,
    /// Pairs that conservative advancement ran on past their lower bound
    /// (M4 §7); equal to `pairs_after_spatial` without temporal culling.
    pub pairs_after_temporal: usize,
    /// Conservative-advancement iterations over all pairs.
    pub ca_iterations: usize,
    /// Mesh–mesh distance queries.
    pub distance_calls: usize,
    /// Time in the dynamic link hierarchy.
    pub spatial_time: Duration,
    /// Time in swept-volume culling (stage 2 of M1's pipeline in the
    /// facade; zero for conservative advancement).
    pub culling_time: Duration,
    /// Time computing the pairs' lower bounds and sorting them.
    pub temporal_time: Duration,
    /// Time in conservative advancement.
    pub advance_time: Duration,
}

/// The answer of [`first_contact`](crate::first_contact), and the contract
/// it keeps.
///
/// # The clearance contract
///
/// Let `δ` be [`CcdOptions::distance_threshold`] and, for each tested pair
/// `p` (link–obstacle, or two links under the pair rules), `d_p(t)` the
/// distance of the two meshes at time `t` of the motion: `0` when the
/// surfaces touch or intersect, and when a closed (watertight,
/// consistently oriented) mesh contains the other; open meshes and
/// polygon soups are surfaces only. Each pair gets the **clearance**
///
/// `c_p = min(δ, d_p(0) / 3)`.
///
/// - [`CcdStatus::Free`]: every pair keeps `d_p(t) ≥ c_p` for all
///   `t ∈ [0, 1]`. "Free" means no pair comes closer than `δ` — except a
///   pair that already starts closer than `3δ`, which is held to a third
///   of its starting distance, so that a robot stopped at a reported
///   contact can retreat and be answered free.
/// - [`CcdStatus::Collides`]: the contact's time `τ` is never later than
///   the first time any pair breaks its clearance,
///   `τ ≤ inf { t : d_p(t) < c_p for some p }` (in particular never later
///   than the first contact), and the witness pair is within `2 c_p` at
///   `τ` ([`Contact::distance`]). A motion whose pairs come within
///   `[c_p, 2 c_p]` but never below `c_p` may be answered either way: that
///   band is the tolerance that keeps every step at least `c_p / μ` long.
/// - [`CcdStatus::CollidingAtStart`]: some pair has `d_p(0) = 0` (touching
///   within rounding counts). A pair that is merely within `δ` at `t = 0`
///   never gives it.
/// - [`CcdStatus::BudgetExhausted`]: [`CcdReport::toc_lower_bound`] is at
///   most the first time any pair breaks its clearance.
/// - Path-validity mode ([`CcdOptions::early_out`]): the contact is *a*
///   contact (its pair within `2 c_p`), not necessarily the first, and
///   [`CcdReport::toc_lower_bound`] is still at most the first time any
///   pair breaks its clearance.
///
/// "Distance" is that of the poses forward kinematics computes, certified
/// in floating point: every lower bound the advancement steps on
/// subtracts the triangle queries' rounding estimates and the poses'
/// rounding, and `d_p(0)` in `c_p` is such a certified bound (smaller than
/// the exact distance by rounding only).
///
/// [`CcdOptions::distance_threshold`]: crate::CcdOptions::distance_threshold
/// [`CcdOptions::early_out`]: crate::CcdOptions::early_out
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcdReport {
    /// How it ended.
    pub status: CcdStatus,
    /// The first contact for [`CcdStatus::Collides`] and
    /// [`CcdStatus::CollidingAtStart`]; `None` otherwise.
    pub contact: Option<Contact>,
    /// A lower bound on the first time any pair breaks its clearance: the
    /// contact time when one was found (in path-validity mode,
    /// [`CcdOptions::early_out`], the smaller of it and the bounds of every
    /// pair not proven to keep its clearance, since the contact found need
    /// not be the first), the iterate reached for
    /// [`CcdStatus::BudgetExhausted`], `0.0` for
    /// [`CcdStatus::CollidingAtStart`], `1.0` when free.
    ///
    /// [`CcdOptions::early_out`]: crate::CcdOptions::early_out
    pub toc_lower_bound: f64,
    /// The smallest clearance `min_p c_p` over the pairs tested (`δ` when
    /// none starts within `3δ`; pairs culled before the advancement never
    /// come within `δ`), `0.0` for [`CcdStatus::CollidingAtStart`]. On
    /// [`CcdStatus::Free`] every pair stays at least this far apart over
    /// the whole motion.
    pub clearance: f64,
    /// Counts and times.
    pub stats: CcdStats,
}

impl CcdReport {
    /// Whether the motion collides or may collide (anything but
    /// [`CcdStatus::Free`]).
    #[must_use]
    pub const fn may_collide(&self) -> bool {
        !matches!(self.status, CcdStatus::Free)
    }
}
