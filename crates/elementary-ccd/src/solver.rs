//! The simultaneous solver of elementary equations (M1 §5.2.2–5.2.4).
//!
//! Every equation the OBB-tree traversal emits is a vertex–face or an
//! edge–edge test between two moving bodies. With the pair's clearance `s`
//! (its *separation*; `0` for M1's exact contacts) an equation *may hold*
//! on a time interval when the two features may come within `s`:
//!
//! - **vertex–face** `p` against `(a, b, c)`: with `n = (b − a) × (c − a)`,
//!   `f = n · (p − a)` (M1 eq. 14) must satisfy `|f| ≤ s |n|` (the vertex
//!   within `s` of the face's plane), and, for a contact, each edge
//!   function `((y − x) × (p − x)) · n ≥ −s |y − x| |n|` (the vertex's
//!   projection within `s` of the triangle);
//! - **edge–edge** `ab` against `cd`: with `m = (b − a) × (d − c)`,
//!   `f = m · (c − a)` (M1 eq. 13) must satisfy `|f| ≤ s |m|` (the lines
//!   within `s`), and, for a contact, the closest points of the lines must
//!   lie inside both edges.
//!
//! Two triangles that come within `s` do so first at a vertex–face or an
//! edge–edge pair of these kinds (a vertex near an edge or a vertex of the
//! other triangle is a vertex–face pair; parallel edges are closest at an
//! endpoint), so together the equations never miss.
//!
//! The solver keeps *lists of active equations per time interval*: on
//! `[l, r]` it bounds every link pose once (interval enclosures of the
//! in-between motion, with their time derivatives), bounds each equation's
//! points by interval matrix–vector products, drops the equations whose
//! bounds prove them false there (the features' boxes farther apart than
//! `s`, or `|f| > s|n|` by the sign test), drops those that the interval
//! Newton test (M1 eq. 18 with the band `[−s|n|, s|n|]` as target) excludes
//! from one half, and recurses on `[l, m]` before `[m, r]`, earliest first.
//! Below the time tolerance an equation whose contact test may hold gives
//! a contact at `l`, once the pair's triangles are within `2s` there and
//! within `s` at `r`: the pair breaks its clearance by `r`, so the time
//! reported is less than the tolerance early.

use armature_interval_taylor::Interval;
use glam::DVec3;

use armature_bvh_geometry::query::{distance_point_triangle, distance_segment_segment};

use crate::mr::{Mr, MrAffine, MrVec};

/// Which elementary test an equation is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Points `[p, a, b, c]`: vertex `p` against triangle `(a, b, c)`.
    VertexFace,
    /// Points `[a, b, c, d]`: edge `ab` against edge `cd`.
    EdgeEdge,
}

/// One elementary equation: four points fixed in their bodies' frames.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Equation {
    pub(crate) kind: Kind,
    /// Index of the body pair (the query's pair table).
    pub(crate) pair: u32,
    /// Body of each point.
    pub(crate) bodies: [u32; 4],
    /// Each point in its body's frame.
    pub(crate) points: [DVec3; 4],
    /// Feature ids (mesh vertex indices) of the four points.
    pub(crate) vertices: [u32; 4],
    /// The triangle of the pair's first body (the link) and of its second.
    pub(crate) triangles: [u32; 2],
    /// Whether the first two points belong to the pair's first body.
    pub(crate) first_is_link: bool,
}

/// Bounds of the equation's function over an interval.
struct Bounds {
    /// Enclosure of `f`.
    f: Mr,
    /// `s` times an upper bound of `|n|` (`|m|`): `|f| ≤ band` is needed.
    band: f64,
}

/// Lower bound of the distance between two boxes.
fn box_gap(a: &MrVec, b: &MrVec) -> f64 {
    let g = (a.lo() - b.hi()).max(b.lo() - a.hi()).max(DVec3::ZERO);
    // Rounded down: a lower bound.
    g.length() * (1.0 - 1e-15)
}

type Points = [MrVec; 4];

/// A lower bound of the distance between the two features over the
/// positions `p`: their distance at the boxes' midpoints (bvh-geometry's
/// closest-point routines, exact to a few ulps of the coordinates, and for
/// the face of a sliver triangle within `10⁻⁸` of its longest edge, hence
/// the allowance), less how far each feature's points may be from their
/// midpoints (the largest radius of its vertices' boxes). Tight as the
/// boxes shrink, unlike the boxes' own gap.
fn feature_gap(kind: Kind, p: &Points) -> f64 {
    let m = p.map(|x| x.m);
    let radius = |x: &MrVec| x.r.length() * (1.0 + 1e-15);
    let scale = m.iter().fold(0.0_f64, |s, x| s.max(x.abs().max_element()));
    let (d, spread, longest) = match kind {
        Kind::VertexFace => {
            let tri = [m[1], m[2], m[3]];
            let longest = (m[2] - m[1])
                .length()
                .max((m[3] - m[2]).length())
                .max((m[1] - m[3]).length());
            (
                distance_point_triangle(m[0], &tri),
                radius(&p[0]) + radius(&p[1]).max(radius(&p[2])).max(radius(&p[3])),
                longest,
            )
        }
        Kind::EdgeEdge => (
            distance_segment_segment(m[0], m[1], m[2], m[3]),
            radius(&p[0]).max(radius(&p[1])) + radius(&p[2]).max(radius(&p[3])),
            0.0,
        ),
    };
    let allowance = 64.0 * f64::EPSILON * scale + 1e-7 * longest;
    // NaN (non-finite positions) proves nothing.
    if d.is_nan() {
        f64::NEG_INFINITY
    } else {
        d - spread - allowance
    }
}

impl Equation {
    /// Whether the boxes of the two features are farther apart than `s`
    /// (then the equation cannot hold anywhere the positions are bounded).
    fn apart(&self, p: &Points, s: f64) -> bool {
        let (x, y) = match self.kind {
            Kind::VertexFace => (p[0], p[1].hull(p[2]).hull(p[3])),
            Kind::EdgeEdge => (p[0].hull(p[1]), p[2].hull(p[3])),
        };
        box_gap(&x, &y) > s
    }

    /// `f` and the band over positions `p`.
    fn bounds(&self, p: &Points, s: f64) -> Bounds {
        let n = self.normal(p);
        let w = match self.kind {
            Kind::VertexFace => p[0] - p[1],
            Kind::EdgeEdge => p[2] - p[0],
        };
        Bounds {
            f: n.dot(w),
            band: if s > 0.0 {
                (s * n.length_hi()).next_up()
            } else {
                0.0
            },
        }
    }

    /// `n` (vertex–face) or `m` (edge–edge).
    fn normal(&self, p: &Points) -> MrVec {
        match self.kind {
            Kind::VertexFace => (p[2] - p[1]).cross(p[3] - p[1]),
            Kind::EdgeEdge => (p[1] - p[0]).cross(p[3] - p[2]),
        }
    }

    /// Enclosure of `f'` from positions `p` and velocities `v`.
    fn derivative(&self, p: &Points, v: &Points) -> Mr {
        match self.kind {
            Kind::VertexFace => {
                let (e1, e2) = (p[2] - p[1], p[3] - p[1]);
                let (d1, d2) = (v[2] - v[1], v[3] - v[1]);
                let n = e1.cross(e2);
                let dn = d1.cross(e2) + e1.cross(d2);
                dn.dot(p[0] - p[1]) + n.dot(v[0] - v[1])
            }
            Kind::EdgeEdge => {
                let (e1, e2) = (p[1] - p[0], p[3] - p[2]);
                let (d1, d2) = (v[1] - v[0], v[3] - v[2]);
                let m = e1.cross(e2);
                let dm = d1.cross(e2) + e1.cross(d2);
                dm.dot(p[2] - p[0]) + m.dot(v[2] - v[0])
            }
        }
    }

    /// Whether the contact test (beyond the plane / line test) may hold:
    /// the vertex's projection within `s` of the triangle, or the lines'
    /// closest points inside both edges.
    fn contact_possible(&self, p: &Points, s: f64) -> bool {
        match self.kind {
            Kind::VertexFace => {
                let n = self.normal(p);
                let n_hi = n.length_hi();
                let (q, a, b, c) = (p[0], p[1], p[2], p[3]);
                [(a, b), (b, c), (c, a)].iter().all(|&(x, y)| {
                    let e = y - x;
                    let side = e.cross(q - x).dot(n);
                    side.hi() >= -(s * e.length_hi() * n_hi)
                })
            }
            Kind::EdgeEdge => {
                let (e1, e2) = (p[1] - p[0], p[3] - p[2]);
                let m = e1.cross(e2);
                let w = p[2] - p[0];
                let den = m.dot(m);
                let u = w.cross(e2).dot(m);
                let v = w.cross(e1).dot(m);
                u.hi() >= 0.0 && (den - u).hi() >= 0.0 && v.hi() >= 0.0 && (den - v).hi() >= 0.0
            }
        }
    }
}

/// Where the solver needs the bodies' poses: the pose enclosures over a
/// time interval, with their time derivatives.
pub(crate) trait PoseSource {
    /// Writes the (constant) poses of the bodies that do not move, and
    /// their zero derivatives.
    fn enclose_static(&self, poses: &mut [MrAffine], rates: &mut [MrAffine]);

    /// Writes the enclosures of every moving body's pose and of its
    /// derivative over `[t0, t1]` (entries indexed by body).
    fn enclose(
        &self,
        t0: f64,
        t1: f64,
        poses: &mut [MrAffine],
        rates: &mut [MrAffine],
    ) -> Result<(), crate::ElementaryError>;

    /// Whether the triangles of `equation`'s pair are within `limit` at
    /// time `t` (exact poses); `true` for a non-positive `limit`.
    fn witness_within(
        &self,
        equation: &Equation,
        t: f64,
        limit: f64,
    ) -> Result<bool, crate::ElementaryError>;
}

/// Solver options.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SolverOptions {
    /// Intervals narrower than this stop the subdivision.
    pub(crate) time_tolerance: f64,
    /// Interval Newton culling.
    pub(crate) newton: bool,
    /// Intervals processed before giving up.
    pub(crate) max_intervals: usize,
}

/// Intervals narrower than this are never split again. An equation whose
/// pair is still more than `2s` apart at the lower end of such an interval
/// is dropped there: closing from `2s` to `s` within `10⁻¹³` of the
/// normalised time would take a speed above `s · 10¹³` (for `s = 10⁻⁴`,
/// `10⁹` scene units per motion), far beyond any motion the kinematics
/// accepts without overflow.
const MIN_WIDTH: f64 = 1e-13;

/// How the solver ended.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Solution {
    /// No equation holds anywhere on `[0, 1]`.
    None,
    /// The earliest contact: the interval's lower end and the equation.
    Contact { time: f64, equation: usize },
    /// The budget ran out; no contact before this time.
    Exhausted { lower_bound: f64 },
}

/// Counts of one solve.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SolverStats {
    pub(crate) intervals: usize,
    pub(crate) evaluations: usize,
    pub(crate) newton_culls: usize,
}

struct Frame {
    l: f64,
    r: f64,
    /// Index of the frame's list in the pool.
    list: usize,
}

/// Reusable buffers of the solver.
#[derive(Debug, Default)]
pub(crate) struct SolverWorkspace {
    mr_poses: Vec<MrAffine>,
    mr_rates: Vec<MrAffine>,
    mr_mid: Vec<MrAffine>,
    mr_mid_rates: Vec<MrAffine>,
    /// Whether the static bodies' poses are in place for this query.
    static_ready: bool,
    lists: Vec<Vec<u32>>,
    free: Vec<usize>,
}

impl SolverWorkspace {
    /// Starts a query: the static bodies' poses are written again.
    pub(crate) fn begin_query(&mut self) {
        self.static_ready = false;
    }

    fn take_list(&mut self) -> usize {
        if let Some(i) = self.free.pop() {
            self.lists[i].clear();
            i
        } else {
            self.lists.push(Vec::new());
            self.lists.len() - 1
        }
    }
}

fn positions(e: &Equation, poses: &[MrAffine]) -> Points {
    core::array::from_fn(|k| poses[e.bodies[k] as usize].apply(e.points[k]))
}

/// Solves the equations `active` (indices into `equations`)
/// simultaneously on `[window.0, window.1]`, earliest root first.
/// `separation[pair]` is each pair's clearance `s`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn solve(
    window: (f64, f64),
    equations: &[Equation],
    active: &[u32],
    separation: &[f64],
    bodies: usize,
    source: &impl PoseSource,
    options: &SolverOptions,
    ws: &mut SolverWorkspace,
    stats: &mut SolverStats,
) -> Result<Solution, crate::ElementaryError> {
    if active.is_empty() {
        return Ok(Solution::None);
    }
    if !ws.static_ready {
        for v in [&mut ws.mr_poses, &mut ws.mr_rates] {
            v.clear();
            v.resize(bodies, MrAffine::default());
        }
        source.enclose_static(&mut ws.mr_poses, &mut ws.mr_rates);
        ws.mr_mid.clone_from(&ws.mr_poses);
        ws.mr_mid_rates.clone_from(&ws.mr_rates);
        ws.static_ready = true;
    }
    ws.free.clear();
    ws.free.extend(0..ws.lists.len());
    let root = ws.take_list();
    ws.lists[root].extend_from_slice(active);
    let mut stack = vec![Frame {
        l: window.0,
        r: window.1,
        list: root,
    }];
    let tol = options.time_tolerance;
    while let Some(frame) = stack.pop() {
        let Frame { l, r, list } = frame;
        stats.intervals += 1;
        if stats.intervals > options.max_intervals {
            return Ok(Solution::Exhausted { lower_bound: l });
        }
        source.enclose(l, r, &mut ws.mr_poses, &mut ws.mr_rates)?;
        let m = 0.5 * (l + r);
        let narrow = r - l < tol;
        let splittable = r - l >= MIN_WIDTH && m > l && m < r;
        let mut mid_ready = false;
        let left = ws.take_list();
        let right = ws.take_list();
        let mut active = core::mem::take(&mut ws.lists[list]);
        for &ei in &active {
            let e = &equations[ei as usize];
            stats.evaluations += 1;
            let s = separation[e.pair as usize];
            let p = positions(e, &ws.mr_poses);
            if e.apart(&p, s) || feature_gap(e.kind, &p) > s {
                continue;
            }
            let b = e.bounds(&p, s);
            if b.f.lo() > b.band || b.f.hi() < -b.band {
                continue;
            }
            if narrow || !splittable {
                if !e.contact_possible(&p, s) {
                    continue;
                }
                // A contact at `l`: the witness within `2s` there, and,
                // while the interval can still be split, within `s` at `r`
                // (so the pair breaks its clearance by `r`, and the time
                // reported is less than the tolerance early).
                if source.witness_within(e, l, 2.0 * s)?
                    && (!splittable || source.witness_within(e, r, s)?)
                {
                    ws.lists[list] = active;
                    return Ok(Solution::Contact {
                        time: l,
                        equation: ei as usize,
                    });
                }
                if !splittable {
                    // See MIN_WIDTH: the pair cannot close from 2s to s here.
                    continue;
                }
            }
            let (mut in_left, mut in_right) = (true, true);
            if options.newton && !narrow {
                let v = positions(e, &ws.mr_rates);
                let d = e.derivative(&p, &v).interval();
                if !d.contains_zero() {
                    if !mid_ready {
                        source.enclose(m, m, &mut ws.mr_mid, &mut ws.mr_mid_rates)?;
                        mid_ready = true;
                    }
                    let pm = positions(e, &ws.mr_mid);
                    let fm = e.bounds(&pm, s).f.interval();
                    let band = Interval::new(-b.band, b.band).unwrap_or(Interval::ZERO);
                    // t ∈ m + (band − f(m)) / f'([l, r]) (mean value theorem).
                    let step = (band - fm) / d;
                    let n = step + m;
                    if n.hi() < l || n.lo() > r {
                        stats.newton_culls += 1;
                        continue;
                    }
                    if n.lo() > m {
                        in_left = false;
                    }
                    if n.hi() < m {
                        in_right = false;
                    }
                }
            }
            if in_left {
                ws.lists[left].push(ei);
            }
            if in_right {
                ws.lists[right].push(ei);
            }
        }
        active.clear();
        ws.lists[list] = active;
        ws.free.push(list);
        // Right first on the stack, so the left half is processed first.
        if ws.lists[right].is_empty() {
            ws.free.push(right);
        } else {
            stack.push(Frame {
                l: m,
                r,
                list: right,
            });
        }
        if ws.lists[left].is_empty() {
            ws.free.push(left);
        } else {
            stack.push(Frame {
                l,
                r: m,
                list: left,
            });
        }
    }
    Ok(Solution::None)
}
