//! What a path check answers.

/// The verdict on a path or segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathStatus {
    /// Certified collision-free: every pair keeps a positive distance at
    /// every configuration of every segment (M2 Lemma 1). For
    /// [`PathChecker::check_path_fixed_resolution`](crate::PathChecker::check_path_fixed_resolution)
    /// only "no sampled configuration collides", which is no certificate.
    Free,
    /// A configuration was found where two objects touch or, with a
    /// clearance `ε > 0`, come within `ε` of each other (M2 §II.F: the
    /// clearance makes the checker slightly conservative).
    Collides,
    /// The budget of queue pops ran out before the path was decided: it
    /// may collide (the cautious answer).
    BudgetExhausted,
}

/// One side of a tested pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Object {
    /// A link of the body, by index in its tree.
    Link(usize),
    /// An obstacle, by index in the obstacle slice.
    Obstacle(usize),
}

/// Where a collision was found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CollisionAt {
    /// The segment (waypoint `segment` to `segment + 1`).
    pub segment: usize,
    /// The segment parameter `s ∈ [0, 1]` of the configuration.
    pub s: f64,
    /// The link of the pair.
    pub link: usize,
    /// The other object of the pair.
    pub other: Object,
}

/// Work counters of one query.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PathStats {
    /// Allowed pairs (after the pair rules) times the segments set up by
    /// this query.
    pub pairs: usize,
    /// Of those, the pairs the static pre-pass kept (swept spheres meet).
    pub pairs_after_prepass: usize,
    /// Queue pops (the budget counts these).
    pub queue_pops: u64,
    /// GREEDY-DIST calls.
    pub greedy_calls: u64,
    /// Discrete checks of one pair at one configuration (triangle
    /// intersection and, for closed meshes, containment).
    pub discrete_checks: u64,
    /// Forward-kinematics evaluations (one per configuration, shared by
    /// every pair).
    pub forward_kinematics: u64,
    /// Segments whose earlier work came from the cache.
    pub segments_from_cache: usize,
    /// Pairs of bounding volumes queued by splitting a pair of volumes in
    /// space (the REFINED variant, [`crate::CheckOptions::refined`]; 0
    /// otherwise).
    pub bv_pairs: u64,
    /// Bounding-volume pair tests of the distance bounds and discrete
    /// checks (M2 Tables III and VI count these as "BV").
    pub bv_tests: u64,
    /// Triangle pair tests of the distance bounds and discrete checks
    /// ("Tri" in M2 Tables III and VI).
    pub triangle_tests: u64,
}

impl PathStats {
    pub(crate) fn add(&mut self, other: &Self) {
        self.pairs += other.pairs;
        self.pairs_after_prepass += other.pairs_after_prepass;
        self.queue_pops += other.queue_pops;
        self.greedy_calls += other.greedy_calls;
        self.discrete_checks += other.discrete_checks;
        self.forward_kinematics += other.forward_kinematics;
        self.segments_from_cache += other.segments_from_cache;
        self.bv_pairs += other.bv_pairs;
        self.bv_tests += other.bv_tests;
        self.triangle_tests += other.triangle_tests;
    }
}

/// The answer of a path check.
#[derive(Clone, Debug, PartialEq)]
pub struct PathReport {
    /// The verdict.
    pub status: PathStatus,
    /// The earliest segment known to collide. It is the earliest of the
    /// path whenever every segment before it was decided free, i.e. when
    /// `certified_free_prefix.0` equals it (always, unless the budget ran
    /// out first).
    pub first_colliding_segment: Option<usize>,
    /// `(k, s)`: every segment before `k`, and segment `k` at every
    /// parameter below `s` (`[0, s)`), are certified collision-free;
    /// `(last, 1.0)` for a free path (then the whole path, end included).
    /// `s` is `0` (nothing of segment `k`) unless the collision was located
    /// ([`CheckOptions::locate_first_collision`](crate::CheckOptions::locate_first_collision)).
    /// Fixed-resolution checks certify nothing: `(0, 0.0)`.
    pub certified_free_prefix: (usize, f64),
    /// Where the collision of `first_colliding_segment` was found.
    pub collision: Option<CollisionAt>,
    /// Work done.
    pub stats: PathStats,
}

/// The answer of [`PathChecker::first_collision`](crate::PathChecker::first_collision)
/// for one segment, the shape of a motion validator's
/// `checkMotion(s1, s2, lastValid)`.
#[derive(Clone, Debug, PartialEq)]
pub struct SegmentReport {
    /// `Free` (the whole segment is certified), `Collides` (the walk
    /// reached a configuration within the clearance) or `BudgetExhausted`.
    pub status: PathStatus,
    /// `s`: the segment is certified collision-free at every parameter
    /// below `s` (`[0, s)`, so `0` certifies nothing); `s` is at most the
    /// parameter of the first collision. 1 when free (then `[0, 1]`).
    pub certified_free_prefix: f64,
    /// The pair and configuration where the walk stopped, when it collides.
    pub collision: Option<CollisionAt>,
    /// Work done.
    pub stats: PathStats,
}
