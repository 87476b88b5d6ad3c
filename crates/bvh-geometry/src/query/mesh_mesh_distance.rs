//! Mesh–mesh distances over bounding-volume hierarchies: exact (with
//! triangle caching), with a relative error, within a tolerance, and the
//! GREEDY-DIST lower bound of M2 §III.B.

use glam::DVec3;

use crate::GeometryError;

#[cfg(doc)]
use super::closest_points_triangle_triangle;
use super::distance_lower_bound_triangle_triangle;
use super::mesh_mesh::{DistanceVolume, MeshObject, Posed, QueryStats, child_ids};
use super::nonnegative;
use super::triangle_triangle::triangle_pair;

/// The answer of [`distance`] and [`approximate_distance`]: a closest (or,
/// for the approximation, a close enough) pair of points with the
/// triangles they lie on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeshDistance {
    /// `|point_a − point_b|`, the distance of the two named triangles (0
    /// when they intersect).
    pub distance: f64,
    /// The witness on the first mesh, in world coordinates.
    pub point_a: DVec3,
    /// The witness on the second mesh, in world coordinates.
    pub point_b: DVec3,
    /// The first mesh's triangle holding `point_a`.
    pub triangle_a: u32,
    /// The second mesh's triangle holding `point_b`.
    pub triangle_b: u32,
    /// Work done.
    pub stats: QueryStats,
}

/// Triangle caching (M2 §III.A): the closest triangle pair of the previous
/// query between the same two meshes. Its distance at the new poses is the
/// search's first bound, which prunes most of the hierarchy when the poses
/// changed little.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DistanceCache {
    /// `[triangle of a, triangle of b]` of the last answer.
    pub pair: Option<[u32; 2]>,
}

/// Reusable scratch of the distance queries (the traversal stack); grows
/// to the largest query seen, then no query allocates.
#[derive(Debug, Clone, Default)]
pub struct DistanceWorkspace {
    pub(super) stack: Vec<(f64, u32, u32)>,
    /// GREEDY-DIST's frontier pairs settled by a cheap bound.
    deferred: Vec<Deferred>,
    /// The front of [`super::advancement_step`], smallest step on top.
    pub(super) front: std::collections::BinaryHeap<super::advancement::FrontPair>,
    /// The leaf pairs one advancement step evaluated.
    pub(super) leaves_done: Vec<(u32, u32)>,
    /// The (empty) front of a cold [`super::advancement_step`].
    pub(super) warm: super::advancement::AdvancementFront,
}

impl DistanceWorkspace {
    /// An empty workspace.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
}

/// The best pair found so far, in A's frame.
struct Best {
    d: f64,
    pa: DVec3,
    pb: DVec3,
    ta: u32,
    tb: u32,
    /// The smallest certified lower bound of an evaluated triangle pair:
    /// its computed distance less the triangle query's error estimate and
    /// the rounding of the relative pose ([`pose_error`]).
    certified: f64,
}

/// What the relative pose `A⁻¹ · B` can do to a distance measured in A's
/// frame, as `(absolute, factor)`: a certified world distance is
/// `(d − absolute) · factor`. The absolute part is the rounding of the
/// general 3 × 4 inverse and product — a few ulps of the translations and
/// of B's extent about its own origin, which matters for a scene far from
/// the world origin; the factor covers A's linear part being a rotation
/// only within [`super::RIGID_TOLERANCE`] (a near-rotation scales lengths
/// by at most `1 ± dev`, with `dev` the largest entry of `MᵀM − I`).
pub(super) fn pose_error<BV: crate::bvh::BvhVolume>(p: &Posed<'_, '_, BV>) -> (f64, f64) {
    let (c, r) = p.node_b(0).bv.enclosing_ball();
    let (pa, pb) = (p.a.pose(), p.b.pose());
    let reach = pa.translation.length() + pb.translation.length() + c.length() + r;
    let m = pa.matrix3;
    let dev = (m.transpose() * m - glam::DMat3::IDENTITY)
        .to_cols_array()
        .iter()
        .fold(0.0_f64, |s, x| s.max(x.abs()));
    (
        64.0 * f64::EPSILON * reach,
        1.0 - 2.0 * dev - 8.0 * f64::EPSILON,
    )
}

/// Branch-and-bound over node pairs, nearer pairs first (depth first, the
/// nearer child pair on top). A pair is pruned when
/// `lb · (1 + rel_error) ≥ best` or `lb > cutoff`; the search stops as soon
/// as `best ≤ stop_at`.
fn search<BV: DistanceVolume>(
    p: &Posed<'_, '_, BV>,
    rel_error: f64,
    cutoff: f64,
    stop_at: f64,
    cache: Option<&mut DistanceCache>,
    ws: &mut DistanceWorkspace,
    stats: &mut QueryStats,
) -> Best {
    let mut best = Best {
        d: f64::INFINITY,
        pa: DVec3::NAN,
        pb: DVec3::NAN,
        ta: 0,
        tb: 0,
        certified: f64::INFINITY,
    };
    let (pose_err, pose_factor) = pose_error(p);
    let (na_tri, nb_tri) = (p.a.mesh().num_triangles(), p.b.mesh().num_triangles());
    let leaf_pair = |ta: u32, tb: u32, best: &mut Best, stats: &mut QueryStats| {
        stats.triangle_tests += 1;
        let (c, err) = triangle_pair(&p.tri_a(ta), &p.tri_b(tb), None);
        // `f64::min` would drop a NaN; a NaN distance certifies nothing.
        let lb = (c.distance - err - pose_err) * pose_factor;
        best.certified = if lb.is_nan() {
            f64::NEG_INFINITY
        } else {
            best.certified.min(lb)
        };
        if c.distance < best.d {
            best.d = c.distance;
            best.pa = c.point_a;
            best.pb = c.point_b;
            best.ta = ta;
            best.tb = tb;
        }
    };
    let cached = cache.as_ref().and_then(|c| c.pair);
    if let Some([ta, tb]) = cached
        && (ta as usize) < na_tri
        && (tb as usize) < nb_tri
    {
        leaf_pair(ta, tb, &mut best, stats);
    }
    let prune = |lb: f64, best: f64| lb * (1.0 + rel_error) >= best || lb > cutoff;
    // A pair's lower bound: first the cheap one of the volumes' enclosing
    // balls, shrunk for their rounding; when that alone prunes the pair it
    // is returned (a valid bound that prunes), else the volumes' own (or
    // nearly: it only orders and prunes the descent).
    let lower = |a: &BV, b: &BV, best: f64| {
        let ((ca, ra), (cb, rb)) = (a.enclosing_ball(), b.enclosing_ball());
        let gap = ca.distance(cb) - (ra + rb);
        let ball = gap - 1e-12 * (gap.abs() + ra + rb + ca.abs().max_element());
        if prune(ball, best) {
            ball
        } else {
            a.near_distance_lower_bound_or_pruned(b, |g| prune(g, best))
        }
    };
    ws.stack.clear();
    if !(best.d <= stop_at) {
        stats.bv_tests += 1;
        let lb = p.node_a(0).bv.distance_lower_bound(&p.bv_b(0));
        ws.stack.push((lb, 0, 0));
    }
    'pairs: while let Some((lb, ia, ib)) = ws.stack.pop() {
        if prune(lb, best.d) {
            continue;
        }
        let (na, nb) = (p.node_a(ia), p.node_b(ib));
        if na.is_leaf() && nb.is_leaf() {
            for &tb in p.b.bvh().leaf_triangles(nb) {
                for &ta in p.a.bvh().leaf_triangles(na) {
                    leaf_pair(ta, tb, &mut best, stats);
                    if best.d <= stop_at {
                        break 'pairs;
                    }
                }
            }
            continue;
        }
        let bv_b = p.bv_b(ib);
        let children = if p.split_a(na, &na.bv, nb, &bv_b) {
            let [l, r] = child_ids(na);
            let (bl, br) = (&p.node_a(l).bv, &p.node_a(r).bv);
            [
                (lower(bl, &bv_b, best.d), l, ib),
                (lower(br, &bv_b, best.d), r, ib),
            ]
        } else {
            let [l, r] = child_ids(nb);
            let (bl, br) = (p.bv_b(l), p.bv_b(r));
            [
                (lower(&na.bv, &bl, best.d), ia, l),
                (lower(&na.bv, &br, best.d), ia, r),
            ]
        };
        stats.bv_tests += 2;
        let [near, far] = if children[1].0 < children[0].0 {
            [children[1], children[0]]
        } else {
            children
        };
        for c in [far, near] {
            if !prune(c.0, best.d) {
                ws.stack.push(c);
            }
        }
    }
    if let Some(cache) = cache
        && best.d.is_finite()
    {
        cache.pair = Some([best.ta, best.tb]);
    }
    best
}

fn answer<BV: DistanceVolume>(
    p: &Posed<'_, '_, BV>,
    best: &Best,
    stats: QueryStats,
) -> MeshDistance {
    MeshDistance {
        distance: best.d,
        point_a: p.to_world(best.pa),
        point_b: p.to_world(best.pb),
        triangle_a: best.ta,
        triangle_b: best.tb,
        stats,
    }
}

/// The exact distance between two posed meshes, with witness points and
/// triangles.
///
/// **Method.** Branch and bound over node pairs (Larsen et al. 1999):
/// nearer pairs first, a pair pruned when its volumes' distance lower bound
/// is at least the best triangle distance found; the search stops at
/// distance 0. With a [`DistanceCache`] the previous answer's triangle pair
/// gives the first bound (triangle caching), and the cache is updated.
///
/// **Guarantee.** The distance is the minimum of
/// [`closest_points_triangle_triangle`] over all triangle pairs, computed
/// in the first object's frame (B mapped by
/// [`super::relative_pose`]), up to rounding of the triangle distances
/// (a pair is only pruned on a certified lower bound). The witnesses lie on
/// the named triangles (in world coordinates) and realise the distance.
pub fn distance<BV: DistanceVolume>(
    a: &MeshObject<'_, BV>,
    b: &MeshObject<'_, BV>,
    ws: &mut DistanceWorkspace,
    cache: Option<&mut DistanceCache>,
) -> MeshDistance {
    let p = Posed::new(a, b);
    let mut stats = QueryStats::default();
    let best = search(&p, 0.0, f64::INFINITY, 0.0, cache, ws, &mut stats);
    answer(&p, &best, stats)
}

/// A distance with relative error at most `rel_error`: the returned
/// `d̃` (an actual triangle pair's distance, with its witnesses) satisfies
/// `d ≤ d̃ ≤ (1 + rel_error) · d` for the exact distance `d` (up to the
/// rounding of the triangle distances).
///
/// **Method.** As [`distance`], but a node pair is pruned as soon as its
/// lower bound is at least `d̃ / (1 + rel_error)` (Larsen et al. 1999, the
/// APPROX-DIST of M2 §III.C): every triangle below it is then at least that
/// far, so `d ≥ d̃ / (1 + rel_error)`.
///
/// # Errors
/// [`GeometryError::InvalidParameter`] (`rel_error`) unless finite and
/// non-negative.
pub fn approximate_distance<BV: DistanceVolume>(
    a: &MeshObject<'_, BV>,
    b: &MeshObject<'_, BV>,
    rel_error: f64,
    ws: &mut DistanceWorkspace,
    cache: Option<&mut DistanceCache>,
) -> Result<MeshDistance, GeometryError> {
    crate::error::non_negative("rel_error", rel_error)?;
    let p = Posed::new(a, b);
    let mut stats = QueryStats::default();
    let best = search(&p, rel_error, f64::INFINITY, 0.0, cache, ws, &mut stats);
    Ok(answer(&p, &best, stats))
}

/// The answer of [`capped_distance`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CappedDistance {
    /// A certified lower bound on the distance, at most the cap: the
    /// distance is at least this (up to the rounding of the triangle
    /// distances).
    pub lower_bound: f64,
    /// The nearest triangle pair found, when one is closer than the cap; its
    /// distance is within the relative error of the true distance.
    pub nearest: Option<MeshDistance>,
    /// Work done.
    pub stats: QueryStats,
}

/// A lower bound on the distance between two posed meshes that only needs
/// to be exact below `cap`: node pairs farther than `cap` are dropped
/// unexplored, so two meshes far apart cost a few volume tests.
///
/// **Guarantee.** With `d` the true distance and `ε = rel_error`:
/// `lower_bound = min(d̃ / (1 + ε), c, cap)` rounded down, where `d̃` is the
/// nearest triangle pair found and `c` the smallest certified bound of an
/// evaluated triangle pair (its distance less the triangle query's error
/// estimate — large for near-sliver triangles — and the rounding of the
/// relative pose), so `lower_bound ≤ d` always, in floating point too; when
/// `nearest` is `Some`, its distance `d̃ ≤ cap` satisfies
/// `d ≤ d̃ ≤ (1 + ε) d` (as [`approximate_distance`]); it is `None` when
/// no triangle pair within the cap was found. Since `d̃ ≥ d`, also
/// `lower_bound ≥ min(d / (1 + ε), cap)` up to the subtracted rounding
/// estimates (a few ulps of the coordinates for well-shaped triangles,
/// about `1e-8` of a near-sliver triangle's length): a meshes pair at
/// least `(1 + ε) · cap` apart gets `lower_bound = cap`.
/// Uses and updates the [`DistanceCache`] as [`distance`].
///
/// # Errors
/// [`GeometryError::InvalidParameter`] (`rel_error` or `cap`) unless
/// finite and non-negative.
pub fn capped_distance<BV: DistanceVolume>(
    a: &MeshObject<'_, BV>,
    b: &MeshObject<'_, BV>,
    rel_error: f64,
    cap: f64,
    ws: &mut DistanceWorkspace,
    cache: Option<&mut DistanceCache>,
) -> Result<CappedDistance, GeometryError> {
    crate::error::non_negative("rel_error", rel_error)?;
    crate::error::non_negative("cap", cap)?;
    let p = Posed::new(a, b);
    let mut stats = QueryStats::default();
    let best = search(&p, rel_error, cap, 0.0, cache, ws, &mut stats);
    // Pruned pairs have lb > cap or lb · (1 + ε) ≥ d̃; evaluated ones are at
    // least their certified bound (distance less its rounding estimate).
    let lower = (best.d / (1.0 + rel_error))
        .min(best.certified)
        .next_down()
        .min(cap)
        .max(0.0);
    let nearest = (best.d <= cap).then(|| answer(&p, &best, stats));
    Ok(CappedDistance {
        lower_bound: lower,
        nearest,
        stats,
    })
}

/// The answer of [`within_distance`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WithinDistance {
    /// Whether some triangle pair is at most the tolerance apart.
    pub within: bool,
    /// Such a pair, `[triangle of a, triangle of b]`, when `within`.
    pub pair: Option<[u32; 2]>,
    /// Work done.
    pub stats: QueryStats,
}

/// Whether the distance between two posed meshes is at most `tolerance`,
/// stopping at the first triangle pair that shows it.
///
/// **Guarantee.** `within` is `true` iff some triangle pair's
/// [`closest_points_triangle_triangle`] distance (in the first object's
/// frame) is `≤ tolerance`, up to the rounding of the triangle distances:
/// node pairs are dropped only when their certified lower bound exceeds the
/// tolerance.
///
/// # Errors
/// [`GeometryError::InvalidParameter`] (`tolerance`) unless finite and
/// non-negative.
pub fn within_distance<BV: DistanceVolume>(
    a: &MeshObject<'_, BV>,
    b: &MeshObject<'_, BV>,
    tolerance: f64,
    ws: &mut DistanceWorkspace,
) -> Result<WithinDistance, GeometryError> {
    crate::error::non_negative("tolerance", tolerance)?;
    let p = Posed::new(a, b);
    let mut stats = QueryStats::default();
    let best = search(&p, 0.0, tolerance, tolerance, None, ws, &mut stats);
    let within = best.d <= tolerance;
    Ok(WithinDistance {
        within,
        pair: within.then_some([best.ta, best.tb]),
        stats,
    })
}

/// Options of [`greedy_distance`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GreedyDistanceOptions {
    /// The clearance `ε ≥ 0` of M2 §III.B: pairs whose lower bound exceeds
    /// it are not refined, and a bound at or below it is reported as 0.
    /// Default 0.
    pub clearance: f64,
    /// Most bounding-volume and triangle tests the descent may make; when
    /// they run out with pairs still unrefined the answer is 0 (see
    /// [`GreedyStatus::BudgetExhausted`]). Default: unlimited (the descent
    /// is bounded by the number of node pairs anyway).
    pub max_tests: u64,
    /// Only whether the distance exceeds the clearance matters: once every
    /// frontier pair is proven beyond it, answer the smallest bound already
    /// known (still `> ε` and `≤ d`) instead of computing the volumes' own
    /// bounds of the pairs settled by cheap ones, which could only raise
    /// the minimum. Default `false` (the frontier minimum as GREEDY-DIST
    /// defines it).
    pub settle: bool,
}

impl Default for GreedyDistanceOptions {
    fn default() -> Self {
        Self {
            clearance: 0.0,
            max_tests: u64::MAX,
            settle: false,
        }
    }
}

impl GreedyDistanceOptions {
    /// Sets [`GreedyDistanceOptions::clearance`].
    #[must_use]
    pub fn with_clearance(mut self, clearance: f64) -> Self {
        self.clearance = clearance;
        self
    }

    /// Sets [`GreedyDistanceOptions::max_tests`].
    #[must_use]
    pub fn with_max_tests(mut self, max_tests: u64) -> Self {
        self.max_tests = max_tests;
        self
    }

    /// Sets [`GreedyDistanceOptions::settle`].
    #[must_use]
    pub fn with_settle(mut self, settle: bool) -> Self {
        self.settle = settle;
        self
    }
}

/// How a [`greedy_distance`] descent ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GreedyStatus {
    /// Every pair on the frontier was either beyond the clearance or a
    /// triangle pair: the bound is as GREEDY-DIST defines it.
    Complete,
    /// The test budget ran out with pairs at or below the clearance still
    /// unrefined: the bound is 0 (conservative, not informative).
    BudgetExhausted,
}

/// The answer of [`greedy_distance`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GreedyDistance {
    /// The lower bound `η` (see [`greedy_distance`] for its contract).
    pub lower_bound: f64,
    /// How the descent ended.
    pub status: GreedyStatus,
    /// Work done.
    pub stats: QueryStats,
}

/// GREEDY-DIST (M2 §III.B, Fig. 4): a lower bound on the distance between
/// two posed meshes at about the cost of a collision test.
///
/// **Method.** The descent of a collision checker: a node pair whose
/// volumes' distance lower bound exceeds the clearance `ε` is not refined
/// and contributes that bound; otherwise the larger volume is split; a leaf
/// pair contributes its triangle distances, each lowered by the rounding
/// estimate of the triangle distance so that it is certified. The answer is
/// the minimum over that frontier — or 0 as soon as one contribution is at
/// most `ε` (steps 7–8 of Fig. 4 with the zeros replaced by `ε`, as the
/// paper does to bound ADAPTIVE-BISECTION's run time).
///
/// To cost about what a collision test does, most pairs are decided by
/// cheap bounds ([`DistanceVolume::distance_bounds`],
/// [`distance_lower_bound_triangle_triangle`]: separating-axis gaps, and
/// alternating projections for closeness) and the volumes' or triangles'
/// own bound is computed only for the undecided ones; a frontier pair
/// settled by a cheap bound keeps it for now, and at the end the own bounds
/// are computed in order of the cheap ones only while a cheap bound is
/// below the minimum so far (the own bound, at least as large, could lower
/// it). Two far-apart objects are settled by their posed roots' cheap bound
/// ([`DistanceVolume::posed_distance_bounds`]) when it is within 1 % of
/// what the roots' own bound could add. The frontier and the contract are
/// those of the plain descent; a contribution is the larger of a pair's
/// cheap and own bounds.
///
/// **Contract** (what ADAPTIVE-BISECTION's Lemma 1 needs):
///
/// - `η ≤ d`, the exact distance, always (certified in floating point: the
///   RSS bounds subtract a rounding allowance, the triangle distances their
///   error estimate); `η = 0` when the meshes may touch;
/// - `η = 0` or `η > ε`: a bound at or below the clearance is reported as
///   0 (M2 Lemma 1 with clearance);
/// - with [`GreedyStatus::Complete`], `η = 0` implies some triangle pair is
///   within `ε` plus the rounding estimate of its distance (so `d > ε`
///   beyond rounding gives `η > ε`);
/// - no promise on the relative error: a bound can be far below `d`
///   (M2 Fig. 5); on average it is close (see the benchmarks).
///
/// # Errors
/// [`GeometryError::InvalidParameter`] (`clearance`) unless finite and
/// non-negative.
pub fn greedy_distance<BV: DistanceVolume>(
    a: &MeshObject<'_, BV>,
    b: &MeshObject<'_, BV>,
    options: &GreedyDistanceOptions,
    ws: &mut DistanceWorkspace,
) -> Result<GreedyDistance, GeometryError> {
    let eps = options.clearance;
    crate::error::non_negative("clearance", eps)?;
    let mut stats = QueryStats::default();
    let done = |lower_bound: f64, status: GreedyStatus, stats: QueryStats| {
        Ok(GreedyDistance {
            lower_bound,
            status,
            stats,
        })
    };
    stats.bv_tests += 1;
    // Far-apart objects: the roots' cheap bound, when it is about as good
    // as their own, is the answer, before the relative pose is computed.
    let (pose_a, pose_b) = (a.pose(), b.pose());
    if let Some((lower, upper)) =
        a.bvh()
            .root()
            .bv
            .posed_distance_bounds(&pose_a, &b.bvh().root().bv, &pose_b, eps)
        && upper - lower <= CHEAP_BOUND_SLACK * lower
    {
        return done(lower, GreedyStatus::Complete, stats);
    }
    let p = Posed::new(a, b);
    let budget = options.max_tests;
    let spent = |s: &QueryStats| s.bv_tests.saturating_add(s.triangle_tests);
    // The smallest contribution known exactly so far; pairs settled by a
    // cheap bound wait in `ws.deferred` (see `resolve`).
    let mut eta = f64::INFINITY;
    ws.stack.clear();
    ws.deferred.clear();
    // The stack holds pairs whose bound is known to be ≤ ε (to refine).
    if let Some(key) = judge(&p.node_a(0).bv, &p.bv_b(0), [0, 0], eps, &mut eta, ws) {
        ws.stack.push((key, 0, 0));
    }
    while let Some((_, ia, ib)) = ws.stack.pop() {
        let (na, nb) = (p.node_a(ia), p.node_b(ib));
        if na.is_leaf() && nb.is_leaf() {
            for &tb in p.b.bvh().leaf_triangles(nb) {
                let t_b = p.tri_b(tb);
                for &ta in p.a.bvh().leaf_triangles(na) {
                    if spent(&stats) >= budget {
                        return done(0.0, GreedyStatus::BudgetExhausted, stats);
                    }
                    stats.triangle_tests += 1;
                    let t_a = p.tri_a(ta);
                    let cheap = distance_lower_bound_triangle_triangle(&t_a, &t_b, eps);
                    if cheap > eps {
                        if cheap < eta {
                            ws.deferred.push(Deferred {
                                lower: cheap,
                                upper: f64::INFINITY,
                                ids: [ta, tb],
                                triangles: true,
                            });
                        }
                        continue;
                    }
                    let (c, err) = triangle_pair(&t_a, &t_b, None);
                    let lb = nonnegative(c.distance - err);
                    // `!(lb > eps)` also catches NaN (never separates).
                    if !(lb > eps) {
                        return done(0.0, GreedyStatus::Complete, stats);
                    }
                    eta = eta.min(lb);
                }
            }
            continue;
        }
        if spent(&stats) >= budget {
            return done(0.0, GreedyStatus::BudgetExhausted, stats);
        }
        let bv_b = p.bv_b(ib);
        let [l, r] = if p.split_a(na, &na.bv, nb, &bv_b) {
            let [l, r] = child_ids(na);
            let jl = judge(&p.node_a(l).bv, &bv_b, [l, ib], eps, &mut eta, ws);
            let jr = judge(&p.node_a(r).bv, &bv_b, [r, ib], eps, &mut eta, ws);
            [jl.map(|k| (k, l, ib)), jr.map(|k| (k, r, ib))]
        } else {
            let [l, r] = child_ids(nb);
            let jl = judge(&na.bv, &p.bv_b(l), [ia, l], eps, &mut eta, ws);
            let jr = judge(&na.bv, &p.bv_b(r), [ia, r], eps, &mut eta, ws);
            [jl.map(|k| (k, ia, l)), jr.map(|k| (k, ia, r))]
        };
        stats.bv_tests += 2;
        // Nearer pair on top: the descent reaches touching triangles (and
        // returns) sooner, as a collision checker's would.
        match (l, r) {
            (Some(x), Some(y)) if y.0 < x.0 => ws.stack.extend([x, y]),
            (Some(x), Some(y)) => ws.stack.extend([y, x]),
            (Some(x), None) | (None, Some(x)) => ws.stack.push(x),
            (None, None) => {}
        }
    }
    let eta = if options.settle {
        ws.deferred.iter().fold(eta, |m, d| m.min(d.lower))
    } else {
        resolve(&p, eta, ws)
    };
    done(eta, GreedyStatus::Complete, stats)
}

/// A node or triangle pair GREEDY-DIST left unrefined on the strength of a
/// cheap lower bound above the clearance: its own bound (the volumes' or
/// the triangles' certified distance) is computed only if the cheap one is
/// below every contribution known, so that it could be the minimum.
#[derive(Debug, Clone, Copy)]
struct Deferred {
    /// The cheap certified lower bound (`> ε`).
    lower: f64,
    /// For volumes, a distance they certainly come within (up to rounding).
    upper: f64,
    /// Node ids, or triangle ids when `triangles`.
    ids: [u32; 2],
    triangles: bool,
}

/// How much of a deferred volume pair's cheap lower bound may stand for its
/// own bound: when the cheap upper bound is within this relative distance of
/// it, the volumes' distance is computed no better than that (a sphere
/// against a sphere, the usual case for far-apart meshes), and the cheap
/// bound is kept.
const CHEAP_BOUND_SLACK: f64 = 1e-2;

/// Which of GREEDY-DIST's rules a volume pair falls under: `None` when its
/// lower bound exceeds the clearance (its contribution is kept, the pair is
/// not refined), else `Some(key)` to refine it, nearer keys first. The
/// cheap bounds decide most pairs; the volumes' own bound only the rest.
#[inline]
fn judge<BV: DistanceVolume>(
    a: &BV,
    b: &BV,
    ids: [u32; 2],
    eps: f64,
    eta: &mut f64,
    ws: &mut DistanceWorkspace,
) -> Option<f64> {
    let (lower, upper) = a.distance_bounds(b, eps);
    if lower > eps {
        if lower < *eta {
            ws.deferred.push(Deferred {
                lower,
                upper,
                ids,
                triangles: false,
            });
        }
        return None;
    }
    // Close for certain: the volumes' bound would be at most ε too.
    if upper <= eps {
        return Some(upper);
    }
    // The volumes' own bound, or nearly (a few percent below it, when much
    // cheaper): certified either way.
    let lb = a.near_distance_lower_bound(b);
    if lb > eps {
        *eta = eta.min(lb);
        None
    } else {
        Some(lb)
    }
}

/// The minimum over GREEDY-DIST's frontier: `eta` (the contributions known
/// exactly) and the deferred pairs, whose own bounds are computed in order
/// of their cheap bounds until the next cheap bound is no smaller than the
/// minimum so far (its own bound, at least the cheap one, cannot lower it).
/// Every deferred contribution is the larger of its two certified bounds,
/// so it stays above the clearance.
fn resolve<BV: DistanceVolume>(
    p: &Posed<'_, '_, BV>,
    mut eta: f64,
    ws: &mut DistanceWorkspace,
) -> f64 {
    ws.deferred.retain(|d| d.lower < eta);
    ws.deferred
        .sort_unstable_by(|x, y| x.lower.total_cmp(&y.lower));
    for d in &ws.deferred {
        if !(d.lower < eta) {
            break;
        }
        let [i, j] = d.ids;
        let own = if d.triangles {
            let (c, err) = triangle_pair(&p.tri_a(i), &p.tri_b(j), None);
            c.distance - err
        } else if d.upper - d.lower <= CHEAP_BOUND_SLACK * d.lower {
            d.lower
        } else {
            p.node_a(i).bv.distance_lower_bound(&p.bv_b(j))
        };
        // `f64::max` keeps the cheap bound when the other is NaN.
        eta = eta.min(own.max(d.lower));
    }
    eta
}
