//! The answer of a query (DESIGN.md §3): status, witness, bound, counts.

use std::time::Duration;

use glam::DVec3;

/// How a query ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CcdStatus {
    /// No pair comes within the distance threshold over `[0, 1]`.
    Free,
    /// A pair comes within the threshold; the contact is the first one.
    Collides,
    /// Some pair intersects at `t = 0`: its triangles meet (touching
    /// counts), or a closed mesh of the pair holds part of the other (a
    /// link inside a closed obstacle, an obstacle or a link inside a closed
    /// link).
    CollidingAtStart,
    /// A pair ran out of iterations before it converged: the motion *may*
    /// collide at or after [`CcdReport::toc_lower_bound`].
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
    /// time the pair's distance reaches zero.
    pub time: f64,
    /// The moving link (tree index).
    pub link: usize,
    /// What it touches.
    pub other: Other,
    /// The triangle of the link's mesh holding the closest point.
    pub triangle_a: u32,
    /// The triangle of the other mesh holding the closest point.
    pub triangle_b: u32,
    /// The pair's distance at [`Contact::time`] (at most the threshold);
    /// 0 when a closed mesh holds part of the other at the start, the
    /// triangles and points then being the inner point and the nearest
    /// point of the enclosing surface.
    pub distance: f64,
    /// World point: the middle of the two closest points.
    pub point: DVec3,
    /// World unit normal pointing from the link towards the other object
    /// (the closest points' direction; at zero distance, the reversed
    /// normal of the other's triangle).
    pub normal: DVec3,
}

/// Counts and times of one query (DESIGN.md §5, "Measured").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CcdStats {
    /// Pairs the rules allow (disabled, adjacent and rigidly attached
    /// links excluded), before spatial culling.
    pub pairs_total: usize,
    /// Pairs whose swept boxes overlap (M4 §5).
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
    /// Time computing the pairs' lower bounds and sorting them.
    pub temporal_time: Duration,
    /// Time in conservative advancement.
    pub advance_time: Duration,
}

/// The answer of [`first_contact`](crate::first_contact).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcdReport {
    /// How it ended.
    pub status: CcdStatus,
    /// The first contact for [`CcdStatus::Collides`] and
    /// [`CcdStatus::CollidingAtStart`]; `None` otherwise.
    pub contact: Option<Contact>,
    /// A lower bound on the first time of contact: the contact time when
    /// one was found (in path-validity mode, [`CcdOptions::early_out`],
    /// the smaller of it and every pair's first iterate, since the contact
    /// found need not be the first), the iterate reached for
    /// [`CcdStatus::BudgetExhausted`], `1.0` when free.
    ///
    /// [`CcdOptions::early_out`]: crate::CcdOptions::early_out
    pub toc_lower_bound: f64,
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
