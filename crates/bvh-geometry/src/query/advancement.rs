//! One step of conservative advancement over two RSS trees with motion
//! bounds projected per pair of convex volumes (C2A, Tang, Kim and Manocha
//! 2009); the method and its argument are on [`advancement_step`].

use core::cmp::Ordering;
use std::collections::BinaryHeap;

use glam::DVec3;

use crate::GeometryError;
use crate::bv::Rss;

use super::mesh_mesh::{MeshObject, Posed, QueryStats, child_ids};
use super::mesh_mesh_distance::{DistanceWorkspace, MeshDistance, pose_error};
use super::rss_rss::{Separation, cheap_separation_rss, exact_separation_rss};
use super::triangle_triangle::triangle_pair;

/// The options of [`advancement_step`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdvancementOptions {
    /// The clearance `c ≥ 0` the step keeps: every triangle pair stays more
    /// than `c` apart over it.
    pub clearance: f64,
    /// The contact distance (at least `c`): a triangle pair this close ends
    /// the step as a contact.
    pub contact_distance: f64,
    /// The longest step of use to the caller (the time left): refinement
    /// stops once every pair on the front is proven for this long.
    pub horizon: f64,
    /// Relative error `ε ≥ 0` of the step: refinement stops once the
    /// smallest bound on the front is within `1 + ε` of the best a
    /// triangle pair allows. `0` refines to the triangles.
    pub rel_error: f64,
}

/// How an [`advancement_step`] ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Advance {
    /// No triangle pair is within the contact distance, and every one stays
    /// more than the clearance apart for at least this long (normalised
    /// time; at least the horizon when it reached it; `0` when the
    /// clearance could not be certified: rounding larger than the gap).
    Step(f64),
    /// A triangle pair within the contact distance, with its witnesses (in
    /// world coordinates).
    Contact(MeshDistance),
}

/// The answer of [`advancement_step`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdvancementStep {
    /// The step or the contact.
    pub advance: Advance,
    /// Work done: volume pairs and triangle pairs evaluated.
    pub stats: QueryStats,
}

/// The front an [`advancement_step_warm`] ended on, kept for the next step
/// of the same two meshes: the node pairs that covered every triangle
/// pair. A step started from it evaluates those pairs instead of
/// descending again from the roots (their bounds are recomputed at the new
/// poses; any front that covers every triangle pair gives a valid step).
/// [`AdvancementFront::clear`] it before another pair of meshes.
///
/// **Carried gaps.** The front also keeps, for each volume pair, the world
/// direction `n`, certified slab gap `g` and closing-speed bound `μ` it was
/// last bounded with, valid over that step's horizon `h`. When the caller
/// declares the time `Δt ≤ h` since that step
/// ([`AdvancementFront::elapse`]), the gap along the same fixed `n` is
/// still at least `g − μ Δt`, so the next step bounds the pair from that
/// gap and the new speed along `n` alone, without placing its volumes
/// again, whenever that already proves it for the new horizon (a pair
/// proven for the horizon is never refined). Only sound when the speed
/// bound's directions are fixed in the world (a link against an obstacle
/// or a link of another robot); the caller declares nothing otherwise.
#[derive(Debug, Clone, Default)]
pub struct AdvancementFront {
    pairs: Vec<(u32, u32)>,
    /// Per pair of `pairs`: its last bound's direction, gap and speed
    /// (none for a pair bounded on its triangles).
    known: Vec<Option<Known>>,
    /// The time since that step, when declared.
    elapsed: Option<f64>,
}

/// What a volume pair was last bounded with: a world direction, the
/// certified slab gap along it and a bound on its closing speed over the
/// step.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Known {
    n: DVec3,
    gap: f64,
    speed: f64,
}

impl AdvancementFront {
    /// An empty front (the next step starts from the roots).
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets the front, keeping its storage.
    pub fn clear(&mut self) {
        self.pairs.clear();
        self.known.clear();
        self.elapsed = None;
    }

    /// The number of node pairs on the front.
    #[must_use]
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Whether the front is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// Declares that at most `dt` of time (the steps' unit) has passed
    /// since the step that left this front, that the time now is still
    /// within that step's horizon (where its speeds hold; the caller
    /// checks it on the times themselves, which the horizon, a rounded
    /// difference, cannot), and that the motion's closing speeds are
    /// bounded along directions fixed in the world: the next step may
    /// carry its gaps (see the type's docs). A `dt` that is negative or
    /// not finite is ignored.
    pub fn elapse(&mut self, dt: f64) {
        self.elapsed = (dt >= 0.0 && dt.is_finite()).then_some(dt);
    }
}

/// Largest front a step starts from: beyond it the next step starts from
/// the roots again, so that a front refined where the meshes were close
/// does not outlive their approach.
const MAX_WARM_FRONT: usize = 1024;

/// A front element: a node pair and its step bound.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FrontPair {
    step: f64,
    ia: u32,
    ib: u32,
    /// The direction, gap and speed its own bound came from (none when
    /// the gap proved nothing).
    known: Option<Known>,
}

impl PartialEq for FrontPair {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for FrontPair {}

impl PartialOrd for FrontPair {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for FrontPair {
    /// Reversed, so that [`std::collections::BinaryHeap`] pops the smallest
    /// step.
    fn cmp(&self, other: &Self) -> Ordering {
        other.step.total_cmp(&self.step)
    }
}

/// The slab gap of two triangles along the unit `n` (from `a` towards
/// `b`), certified: `min n·b_j − max n·a_i` less rounding.
fn triangle_gap(a: &[DVec3; 3], b: &[DVec3; 3], n: DVec3) -> f64 {
    let top_a = a
        .iter()
        .map(|p| n.dot(*p))
        .fold(f64::NEG_INFINITY, f64::max);
    let low_b = b.iter().map(|p| n.dot(*p)).fold(f64::INFINITY, f64::min);
    let scale = super::max_abs(a).max(super::max_abs(b));
    let gap = low_b - top_a - 64.0 * f64::EPSILON * scale;
    if gap.is_nan() { f64::NEG_INFINITY } else { gap }
}

/// A ball holding a swept rectangle: its centre and radius, in its frame.
fn ball_rss(r: &Rss) -> (DVec3, f64) {
    (
        r.center,
        (r.half_lengths.length() + r.radius) * (1.0 + 1e-12) + 1e-15 * r.center.length(),
    )
}

/// A ball holding a triangle: its centroid and the largest distance of a
/// corner from it.
fn ball_triangle(t: &[DVec3; 3]) -> (DVec3, f64) {
    let c = (t[0] + t[1] + t[2]) / 3.0;
    let r = t.iter().map(|p| p.distance(c)).fold(0.0, f64::max);
    (c, r * (1.0 + 1e-12) + 1e-15 * c.length())
}

/// The state of one [`advancement_step`]: the posed meshes, the rules and
/// what has been found.
struct Search<'p, 'o, 'a, F> {
    p: &'p Posed<'o, 'a, Rss>,
    speed: F,
    /// `R_A`, turning A-frame directions into world ones for `speed`.
    rot_a: glam::DMat3,
    /// The relative pose's rounding: `(absolute, factor)` of [`pose_error`].
    pose: (f64, f64),
    clearance: f64,
    contact: f64,
    /// [`AdvancementOptions::horizon`]: a pair proven for this long is
    /// never refined, so a cheaper direction that proves it does.
    horizon: f64,
    /// The smallest bound of a triangle pair evaluated: no front can give a
    /// longer step.
    leaf_best: f64,
    stats: QueryStats,
    /// Leaf pairs whose triangles were evaluated (part of the final front).
    leaves_done: Vec<(u32, u32)>,
}

impl<F: FnMut(DVec3, (DVec3, f64), (DVec3, f64)) -> f64> Search<'_, '_, '_, F> {
    /// A gap computed in A's frame, certified in the world.
    fn certify(&self, g: f64) -> f64 {
        (g - self.pose.0) * self.pose.1
    }

    /// The step bound of a piece pair with certified gap `g` along the
    /// world direction `n`, at least `floor` (the pieces are balls in their
    /// own frames), and what it came from.
    fn bound_world(
        &mut self,
        n: DVec3,
        g: f64,
        piece_a: (DVec3, f64),
        piece_b: (DVec3, f64),
        floor: f64,
    ) -> (f64, Option<Known>) {
        if !(g > self.clearance) {
            return (floor, None);
        }
        let mu = (self.speed)(n, piece_a, piece_b);
        let own = if mu > 0.0 {
            (g - self.clearance) / mu
        } else {
            f64::INFINITY
        };
        let known = Some(Known {
            n,
            gap: g,
            speed: mu,
        });
        // NaN (a bad speed) proves nothing.
        if own > floor {
            (own, known)
        } else {
            (floor, known)
        }
    }

    /// Bounds pair `(ia, ib)` from the gap it carries (`known`, aged by
    /// `dt`): onto the front when that proves it for the horizon (`true`).
    fn push_carried(
        &mut self,
        ia: u32,
        ib: u32,
        known: Known,
        dt: f64,
        front: &mut BinaryHeap<FrontPair>,
    ) -> bool {
        // The gap along the fixed `n` closes by at most `μ Δt` (padded for
        // the rounding of the product and the difference).
        let gap =
            known.gap - known.speed * dt * (1.0 + 1e-12) - 4.0 * f64::EPSILON * known.gap.abs();
        if !(gap > self.contact) {
            return false;
        }
        let piece_a = ball_rss(&self.p.node_a(ia).bv);
        let piece_b = ball_rss(&self.p.node_b(ib).bv);
        let (step, known) = self.bound_world(known.n, gap, piece_a, piece_b, 0.0);
        if !(step >= self.horizon) {
            return false;
        }
        front.push(FrontPair {
            step,
            ia,
            ib,
            known,
        });
        true
    }

    /// Evaluates node pair `(ia, ib)`: onto `urgent` when its volumes are
    /// within the contact distance, else onto the front with its bound.
    fn push(
        &mut self,
        ia: u32,
        ib: u32,
        floor: f64,
        urgent: &mut Vec<(f64, u32, u32)>,
        front: &mut BinaryHeap<FrontPair>,
    ) {
        self.stats.bv_tests += 1;
        let (bva, bvb) = (self.p.node_a(ia).bv, self.p.bv_b(ib));
        let (piece_a, piece_b) = (ball_rss(&bva), ball_rss(&self.p.node_b(ib).bv));
        let (n, g) = match cheap_separation_rss(&bva, &bvb, self.contact) {
            Separation::Settled(n, g) => (n, g),
            Separation::Candidate(n, g, start) => {
                // The direction alternating projections found may be far
                // from the closest one, but a pair it proves for the
                // horizon is never refined: the step and the front come
                // out as with the closest direction.
                let g = self.certify(g);
                if g > self.contact {
                    let (step, known) =
                        self.bound_world(self.rot_a * n, g, piece_a, piece_b, floor);
                    if step >= self.horizon {
                        front.push(FrontPair {
                            step,
                            ia,
                            ib,
                            known,
                        });
                        return;
                    }
                }
                exact_separation_rss(&bva, &bvb, start)
            }
        };
        let g = self.certify(g);
        if !(g > self.contact) {
            urgent.push((floor, ia, ib));
        } else {
            let (step, known) = self.bound_world(self.rot_a * n, g, piece_a, piece_b, floor);
            front.push(FrontPair {
                step,
                ia,
                ib,
                known,
            });
        }
    }

    /// Splits node pair `(ia, ib)` (not both leaves) as the distance
    /// queries do, evaluating both children.
    fn split(
        &mut self,
        ia: u32,
        ib: u32,
        floor: f64,
        urgent: &mut Vec<(f64, u32, u32)>,
        front: &mut BinaryHeap<FrontPair>,
    ) {
        let (na, nb) = (self.p.node_a(ia), self.p.node_b(ib));
        let bv_b = self.p.bv_b(ib);
        let pairs = if self.p.split_a(na, &na.bv, nb, &bv_b) {
            child_ids(na).map(|l| (l, ib))
        } else {
            child_ids(nb).map(|r| (ia, r))
        };
        for (ja, jb) in pairs {
            self.push(ja, jb, floor, urgent, front);
        }
    }

    /// Evaluates the triangle pairs of two leaves: a contact, or each
    /// pair's bound (at least `floor`) folded into `leaf_best`.
    fn leaves(&mut self, ia: u32, ib: u32, floor: f64) -> Option<MeshDistance> {
        self.leaves_done.push((ia, ib));
        let p = self.p;
        let (na, nb) = (p.node_a(ia), p.node_b(ib));
        for &tb in p.b.bvh().leaf_triangles(nb) {
            let tri_b = p.tri_b(tb);
            let piece_b = ball_triangle(&p.b.mesh().triangle(tb as usize));
            for &ta in p.a.bvh().leaf_triangles(na) {
                self.stats.triangle_tests += 1;
                let tri_a = p.tri_a(ta);
                let (cp, _) = triangle_pair(&tri_a, &tri_b, None);
                if !(cp.distance > self.contact) {
                    return Some(MeshDistance {
                        distance: cp.distance,
                        point_a: p.to_world(cp.point_a),
                        point_b: p.to_world(cp.point_b),
                        triangle_a: ta,
                        triangle_b: tb,
                        stats: self.stats,
                    });
                }
                let n = (cp.point_b - cp.point_a) / cp.distance;
                let g = self.certify(triangle_gap(&tri_a, &tri_b, n));
                let (s, _) =
                    self.bound_world(self.rot_a * n, g, ball_triangle(&tri_a), piece_b, floor);
                self.leaf_best = self.leaf_best.min(s);
            }
        }
        None
    }
}

/// One step of C2A-style conservative advancement of two posed meshes
/// (C2A, Tang, Kim and Manocha 2009): how long, from now, every triangle pair
/// stays more than [`AdvancementOptions::clearance`] apart, or a triangle
/// pair within [`AdvancementOptions::contact_distance`].
///
/// **Why per pair of volumes.** Conservative advancement moves a pair of
/// meshes from time `t` by `Δt = (d − c) / μ`, with `d` their distance and
/// `μ` a bound on how fast any two of their points approach. Projecting
/// the velocities on the closest direction `n` (`μ_n ≤ μ`) is only sound
/// for convex shapes: a separating slab must exist. A link mesh is not
/// convex, but every volume of its RSS tree is, and so is every triangle.
///
/// **The bound of one convex pair.** For convex `A`, `B`, a unit direction
/// `n` and `g` a lower bound on the *slab gap* along `n`,
/// `min_{y ∈ B} n·y − max_{x ∈ A} n·x ≥ g`, the distance is at least the
/// gap (projection on a unit axis does not lengthen), and with `n` held
/// fixed the gap closes no faster than the projected relative speed
/// `μ_n = sup |(ẋ − ẏ)·n|` over the pieces' points. So the distance stays
/// above `c` for `(g − c) / μ_n`. It is enough that `μ_n` bounds the mean
/// closing rate from the step's start (over `[0, τ]` the pieces' points
/// close along `n` by at most `μ_n τ`, for every `τ` up to the horizon),
/// which may be well below the largest speed over the step when the
/// pieces accelerate. Any `n` gives a valid bound; the closest direction
/// makes `g` the distance itself.
///
/// **The step of the meshes.** A front of the bounding-volume traversal
/// covers every triangle pair, so the minimum of the bounds over a front
/// is a valid step; a child pair's points are its parent's too, so it may
/// keep the larger of the two bounds. Tangential passes then take long
/// steps: a link sliding past an obstacle at a few centimetres closes the
/// gap slowly along the closest direction however fast it moves.
///
/// `speed(n, (centre_a, radius_a), (centre_b, radius_b))` must bound the
/// mean rate at which the gap along the fixed direction `n` (unit, world)
/// can close from the step's start: over the first `τ` of the step, for
/// every `τ` up to the horizon, any point of `a` within `radius_a` of
/// `centre_a` (in `a`'s mesh frame) and any point of `b` within
/// `radius_b` of `centre_b` (in `b`'s) approach along `n` by at most
/// `speed · τ` (a bound on their closing speed over the whole step is
/// one; for example the kinematics crate's `PairSpeed::piece_bound`, plus
/// the speed of a moving obstacle). The balls it is asked about hold
/// convex pieces (RSS volumes and triangles).
///
/// **Method.** Node pairs whose volumes are within the contact distance
/// are refined first, depth first, down to their triangles, so a triangle
/// pair within the contact distance is always found (then the step ends as
/// a contact). Every other pair gets the bound `(g − c) / μ_n` (at least
/// its parent's) from its closest direction `n` and slab gap `g`, and the
/// front is refined smallest bound first until the smallest bound `s` is a
/// triangle pair's, or `s (1 + ε)` reaches the smallest triangle bound
/// found, or `s` reaches the horizon. The answer is the smallest bound on
/// the final front.
///
/// **Guarantee.** With `Advance::Step(s)`: no triangle pair is within the
/// contact distance now (up to rounding), and if `speed` is a bound as
/// stated, no two points of the meshes come within `c` during the next
/// `s`. Gaps are certified lower bounds in floating point (rounding of the
/// support functions and of the relative pose subtracted).
///
/// # Errors
/// [`GeometryError::InvalidParameter`] for a negative or non-finite
/// clearance or relative error, a contact distance below the clearance, or
/// a NaN horizon.
pub fn advancement_step<F>(
    a: &MeshObject<'_, Rss>,
    b: &MeshObject<'_, Rss>,
    options: &AdvancementOptions,
    speed: F,
    ws: &mut DistanceWorkspace,
) -> Result<AdvancementStep, GeometryError>
where
    F: FnMut(DVec3, (DVec3, f64), (DVec3, f64)) -> f64,
{
    let mut front = core::mem::take(&mut ws.warm);
    front.clear();
    let step = advancement_step_warm(a, b, options, speed, &mut front, ws);
    front.clear();
    ws.warm = front;
    step
}

/// [`advancement_step`] started from `front` (the roots when it is empty
/// or holds more than 1,024 pairs), which it leaves holding the front
/// it ended on: consecutive steps of the same two meshes, whose poses
/// change little, skip most of the descent. The guarantee is
/// [`advancement_step`]'s: a front covering every triangle pair gives a
/// valid step from any poses. A contact leaves the front empty.
///
/// After [`AdvancementFront::elapse`], a volume pair of the front whose
/// carried gap proves it for the horizon is bounded from that gap (see
/// [`AdvancementFront`]), with `speed` asked along its carried world
/// direction, and is not placed again; the others are evaluated as from
/// any front. Either way a pair proven for the horizon is not refined.
/// A volume pair whose alternating-projection direction already proves
/// it for the horizon keeps that direction without the exact closest
/// points.
///
/// # Errors
/// As [`advancement_step`].
pub fn advancement_step_warm<F>(
    a: &MeshObject<'_, Rss>,
    b: &MeshObject<'_, Rss>,
    options: &AdvancementOptions,
    speed: F,
    front_in: &mut AdvancementFront,
    ws: &mut DistanceWorkspace,
) -> Result<AdvancementStep, GeometryError>
where
    F: FnMut(DVec3, (DVec3, f64), (DVec3, f64)) -> f64,
{
    let AdvancementOptions {
        clearance,
        contact_distance: contact,
        horizon,
        rel_error,
    } = *options;
    crate::error::non_negative("clearance", clearance)?;
    crate::error::non_negative("rel_error", rel_error)?;
    if !(contact >= clearance && contact.is_finite()) {
        return Err(GeometryError::InvalidParameter {
            name: "contact_distance",
            value: contact,
            why: "must be finite and at least the clearance",
        });
    }
    if horizon.is_nan() {
        return Err(GeometryError::InvalidParameter {
            name: "horizon",
            value: horizon,
            why: "must not be NaN",
        });
    }
    let p = Posed::new(a, b);
    let mut search = Search {
        p: &p,
        speed,
        rot_a: a.pose().matrix3,
        pose: pose_error(&p),
        clearance,
        contact,
        horizon,
        leaf_best: f64::INFINITY,
        stats: QueryStats::default(),
        leaves_done: core::mem::take(&mut ws.leaves_done),
    };
    search.leaves_done.clear();
    let mut urgent = core::mem::take(&mut ws.stack);
    let mut front = core::mem::take(&mut ws.front);
    urgent.clear();
    front.clear();
    if front_in.pairs.is_empty() || front_in.pairs.len() > MAX_WARM_FRONT {
        search.push(0, 0, 0.0, &mut urgent, &mut front);
    } else {
        let dt = front_in
            .elapsed
            .filter(|_| front_in.known.len() == front_in.pairs.len());
        for (k, &(ia, ib)) in front_in.pairs.iter().enumerate() {
            let carried = match (dt, front_in.known.get(k).copied().flatten()) {
                (Some(dt), Some(known)) => search.push_carried(ia, ib, known, dt, &mut front),
                _ => false,
            };
            if !carried {
                search.push(ia, ib, 0.0, &mut urgent, &mut front);
            }
        }
    }
    let advance = loop {
        // Pairs within the contact distance first, down to their
        // triangles: a triangle pair that close is always found.
        let mut contact_found = None;
        while let Some((floor, ia, ib)) = urgent.pop() {
            let (na, nb) = (p.node_a(ia), p.node_b(ib));
            if na.is_leaf() && nb.is_leaf() {
                contact_found = search.leaves(ia, ib, floor);
                if contact_found.is_some() {
                    break;
                }
            } else {
                search.split(ia, ib, floor, &mut urgent, &mut front);
            }
        }
        if let Some(m) = contact_found {
            break Advance::Contact(m);
        }
        // Then the front, smallest bound first.
        let Some(top) = front.pop() else {
            break Advance::Step(search.leaf_best);
        };
        let s = top.step;
        if s.is_nan() || s >= horizon || s * (1.0 + rel_error) >= search.leaf_best {
            // Still on the front it ends on.
            front.push(top);
            break Advance::Step(s.min(search.leaf_best));
        }
        let (na, nb) = (p.node_a(top.ia), p.node_b(top.ib));
        if na.is_leaf() && nb.is_leaf() {
            // Beyond the contact distance as volumes, but rounding may
            // still put a triangle pair within it: then it is a contact.
            if let Some(m) = search.leaves(top.ia, top.ib, s) {
                break Advance::Contact(m);
            }
        } else {
            search.split(top.ia, top.ib, s, &mut urgent, &mut front);
        }
    };
    front_in.clear();
    if !matches!(advance, Advance::Contact(_)) {
        front_in.pairs.extend(front.iter().map(|f| (f.ia, f.ib)));
        front_in.known.extend(front.iter().map(|f| f.known));
        front_in.pairs.extend_from_slice(&search.leaves_done);
        // Leaf pairs carry nothing: they are the nearest, and measured on
        // the Puma scenes carrying their volumes' gaps gained nothing.
        front_in
            .known
            .extend(search.leaves_done.iter().map(|_| None));
    }
    urgent.clear();
    front.clear();
    ws.stack = urgent;
    ws.front = front;
    ws.leaves_done = core::mem::take(&mut search.leaves_done);
    let stats = search.stats;
    let advance = match advance {
        Advance::Contact(mut m) => {
            m.stats = stats;
            Advance::Contact(m)
        }
        step => step,
    };
    Ok(AdvancementStep { advance, stats })
}
