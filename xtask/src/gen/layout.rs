//! Placement shared by the scenes: a keep-out zone around the robot's home
//! pose, clearance between placed groups, pipe runs (straights, elbows,
//! flanges, tees, valves, supports) and object naming.
//!
//! Every object carries proxies ([`Proxy`]: boxes, and capsules around
//! curved shapes) that contain it. A group of objects (a pipe run with its
//! fittings) is admitted only when each proxy keeps [`Layout`]'s clearance
//! from the keep-out proxies (the robot at its home pose) and its gap from
//! every object placed before, so the home pose is free with a known
//! margin and pipes do not cut through each other. Objects within a group
//! may touch (a flange on its pipe).

use std::collections::BTreeMap;

use glam::{DAffine3, DVec3};

use super::mesh::{Part, Proxy, frame_along};
use super::rng::SplitMix64;

/// Placed proxies with their bounds and group number.
#[derive(Debug, Clone)]
struct Placed {
    proxy: Proxy,
    lo: DVec3,
    hi: DVec3,
    group: usize,
}

/// Objects placed so far, and the rules new ones must keep.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    keep_out: Vec<Proxy>,
    clearance: f64,
    gap: f64,
    placed: Vec<Placed>,
    groups: usize,
    parts: Vec<Part>,
    triangles: usize,
    counters: BTreeMap<String, usize>,
}

impl Layout {
    /// An empty layout: objects stay `clearance` from every `keep_out`
    /// proxy and `gap` from each other.
    pub(crate) fn new(keep_out: Vec<Proxy>, clearance: f64, gap: f64) -> Self {
        Self {
            keep_out,
            clearance,
            gap,
            placed: Vec::new(),
            groups: 0,
            parts: Vec::new(),
            triangles: 0,
            counters: BTreeMap::new(),
        }
    }

    /// Whether `group` keeps the clearance from the keep-out zone.
    pub(crate) fn clear_of_robot(&self, group: &[Part]) -> bool {
        group
            .iter()
            .all(|p| !p.near(&self.keep_out, self.clearance))
    }

    /// Whether `group` keeps the rules, ignoring placed group `except`.
    pub(crate) fn admits(&self, group: &[Part], except: Option<usize>) -> bool {
        if !self.clear_of_robot(group) {
            return false;
        }
        let g = DVec3::splat(self.gap);
        group.iter().flat_map(Part::proxies).all(|c| {
            let (lo, hi) = c.bounds();
            let (lo, hi) = (lo - g, hi + g);
            self.placed.iter().all(|p| {
                Some(p.group) == except
                    || p.lo.cmpgt(hi).any()
                    || p.hi.cmplt(lo).any()
                    || !c.within(&p.proxy, self.gap)
            })
        })
    }

    /// Places `group` if it keeps the rules; returns its group number.
    pub(crate) fn place(&mut self, group: Vec<Part>) -> Option<usize> {
        self.place_except(group, None)
    }

    /// As [`Layout::place`], ignoring placed group `except` (a support
    /// under its own pipe).
    pub(crate) fn place_except(
        &mut self,
        group: Vec<Part>,
        except: Option<usize>,
    ) -> Option<usize> {
        if group.is_empty() || !self.admits(&group, except) {
            return None;
        }
        Some(self.commit(group, true))
    }

    /// Places `group` checking only the keep-out zone, and without
    /// recording it as an obstacle to later groups (floors and walls, which
    /// everything else stands on or against).
    pub(crate) fn place_backdrop(&mut self, group: Vec<Part>) -> bool {
        if group.is_empty() || !self.clear_of_robot(&group) {
            return false;
        }
        self.commit(group, false);
        true
    }

    fn commit(&mut self, group: Vec<Part>, record: bool) -> usize {
        let id = self.groups;
        self.groups += 1;
        for mut part in group {
            if record {
                for c in part.proxies() {
                    let (lo, hi) = c.bounds();
                    self.placed.push(Placed {
                        proxy: *c,
                        lo,
                        hi,
                        group: id,
                    });
                }
            }
            self.triangles += part.triangle_count();
            let kind = part.name().to_owned();
            let n = self.counters.entry(kind.clone()).or_insert(0);
            *n += 1;
            part.set_name(format!("{kind}_{:04}", *n));
            self.parts.push(part);
        }
        id
    }

    /// Number of objects placed.
    pub(crate) fn len(&self) -> usize {
        self.parts.len()
    }

    /// Number of triangles placed.
    pub(crate) fn triangles(&self) -> usize {
        self.triangles
    }

    /// The objects, in placement order, named `kind_NNNN`.
    pub(crate) fn into_parts(self) -> Vec<Part> {
        self.parts
    }
}

/// A pipe size: outer radius and segments around.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Pipe {
    /// Outer radius (metres).
    pub(crate) radius: f64,
    /// Vertices around the pipe.
    pub(crate) segments: usize,
    /// Steps along a 90° elbow.
    pub(crate) elbow_steps: usize,
}

impl Pipe {
    /// Long-radius elbows: bend radius 1.5 × the outer diameter.
    pub(crate) fn bend(&self) -> f64 {
        3.0 * self.radius
    }

    /// Flange radius.
    pub(crate) fn flange_radius(&self) -> f64 {
        1.7 * self.radius + 0.01
    }
}

/// An open straight pipe from `a` to `b`.
pub(crate) fn straight(a: DVec3, b: DVec3, pipe: &Pipe) -> Part {
    let mut p = Part::new("pipe");
    let len = (b - a).length();
    p.lathe(
        &frame_along(a, b - a),
        &[(pipe.radius, 0.0), (pipe.radius, len)],
        pipe.segments,
    );
    p
}

/// A flange pair (one closed disc) centred at `at` on a pipe along `dir`.
pub(crate) fn flange(at: DVec3, dir: DVec3, pipe: &Pipe) -> Part {
    let mut p = Part::new("flange");
    let t = 0.35 * pipe.radius + 0.008;
    let rf = pipe.flange_radius();
    p.lathe(
        &frame_along(at, dir),
        &[(0.0, -t), (rf, -t), (rf, t), (0.0, t)],
        pipe.segments,
    );
    p
}

/// A blind end: a flange whose far face closes the pipe.
pub(crate) fn end_cap(at: DVec3, dir: DVec3, pipe: &Pipe) -> Part {
    let mut p = flange(at, dir, pipe);
    p.set_name("cap");
    p
}

/// A tee body on a run along `run` at `at`, its branch outlet along
/// `branch` (unit, orthogonal); the branch pipe starts at
/// `at + branch · tee_reach(pipe)`.
pub(crate) fn tee(at: DVec3, run: DVec3, branch: DVec3, pipe: &Pipe) -> Part {
    let mut p = Part::new("tee");
    let r = 1.12 * pipe.radius;
    let h = 1.3 * pipe.radius;
    p.lathe(
        &frame_along(at - run * h, run),
        &[(0.0, 0.0), (r, 0.0), (r, 2.0 * h), (0.0, 2.0 * h)],
        pipe.segments,
    );
    p.lathe(
        &frame_along(at, branch),
        &[(r, 0.0), (r, tee_reach(pipe)), (0.0, tee_reach(pipe))],
        pipe.segments,
    );
    p
}

/// How far a tee's outlet reaches from the run's axis.
pub(crate) fn tee_reach(pipe: &Pipe) -> f64 {
    1.6 * pipe.radius
}

/// A gate valve in a run along `dir` at `at`: a body, a bonnet and stem
/// towards `up` (unit, orthogonal), and a hand wheel.
pub(crate) fn valve(at: DVec3, dir: DVec3, up: DVec3, pipe: &Pipe) -> Part {
    let mut p = Part::new("valve");
    let r = pipe.radius;
    let rf = pipe.flange_radius();
    let len = 4.0 * r + 0.04;
    p.lathe(
        &frame_along(at - dir * (0.5 * len), dir),
        &[
            (0.0, 0.0),
            (rf, 0.0),
            (rf, 0.25 * r + 0.01),
            (1.3 * r, 0.3 * r + 0.015),
            (1.5 * r + 0.01, 0.5 * len),
            (1.3 * r, len - 0.3 * r - 0.015),
            (rf, len - 0.25 * r - 0.01),
            (rf, len),
            (0.0, len),
        ],
        pipe.segments,
    );
    let bonnet = 2.2 * r + 0.06;
    p.lathe(
        &frame_along(at, up),
        &[
            (0.0, 1.2 * r),
            (0.8 * r + 0.01, 1.2 * r),
            (0.55 * r + 0.008, bonnet),
            (0.0, bonnet),
        ],
        pipe.segments.min(12),
    );
    let stem_top = bonnet + 0.9 * r + 0.05;
    p.cylinder(at + up * bonnet, at + up * stem_top, 0.006 + 0.06 * r, 8);
    let wheel = 1.4 * r + 0.04;
    let e1 = dir;
    let e2 = up.cross(dir);
    p.torus(
        at + up * stem_top,
        e1,
        e2,
        wheel,
        0.008 + 0.04 * r,
        core::f64::consts::TAU,
        16,
        6,
    );
    p
}

/// The parts of a pipe run through `points` (at least two, consecutive
/// points distinct): a straight between corners, an elbow at each corner,
/// and a flange or blind cap at each end as `ends` says (`true`: flange,
/// `false`: open, for ends inside a tee or a nozzle). `None` when a
/// straight is too short for its elbows.
pub(crate) fn pipe_run(points: &[DVec3], pipe: &Pipe, ends: [bool; 2]) -> Option<Vec<Part>> {
    if points.len() < 2 {
        return None;
    }
    let n = points.len();
    let dirs: Vec<DVec3> = points
        .windows(2)
        .map(|w| (w[1] - w[0]).normalize_or_zero())
        .collect();
    if dirs.contains(&DVec3::ZERO) {
        return None;
    }
    // Tangent length of the elbow at each interior point.
    let mut tangent = vec![0.0; n];
    let mut parts = Vec::new();
    for i in 1..n - 1 {
        let (din, dout) = (dirs[i - 1], dirs[i]);
        let cos = din.dot(dout).clamp(-1.0, 1.0);
        let angle = cos.acos();
        if angle < 1e-6 {
            continue;
        }
        if angle > 0.75 * core::f64::consts::PI {
            return None;
        }
        let r = pipe.bend();
        let l = r * (0.5 * angle).tan();
        tangent[i] = l;
        let start = points[i] - din * l;
        let nrm = (dout - din * cos).normalize();
        let center = start + nrm * r;
        let mut elbow = Part::new("elbow");
        let steps = ((pipe.elbow_steps as f64) * angle / core::f64::consts::FRAC_PI_2)
            .ceil()
            .max(1.0) as usize;
        elbow.torus(
            center,
            -nrm,
            din,
            r,
            pipe.radius,
            angle,
            steps,
            pipe.segments,
        );
        parts.push(elbow);
    }
    for i in 0..n - 1 {
        let a = points[i] + dirs[i] * tangent[i];
        let b = points[i + 1] - dirs[i] * tangent[i + 1];
        let len = (points[i + 1] - points[i]).length();
        if tangent[i] + tangent[i + 1] > len - 0.02 {
            return None;
        }
        parts.push(straight(a, b, pipe));
    }
    let first = dirs[0];
    let last = dirs[n - 2];
    if ends[0] {
        parts.push(end_cap(points[0], first, pipe));
    }
    if ends[1] {
        parts.push(end_cap(points[n - 1], last, pipe));
    }
    Some(parts)
}

/// A box-section post from the floor (`z = 0`) up to `top` at `(x, y)`, with
/// a cross plate of half length `reach` along `along`.
pub(crate) fn support(x: f64, y: f64, top: f64, along: DVec3, reach: f64) -> Part {
    let mut p = Part::new("support");
    let h = 0.035;
    p.aabox(
        DVec3::new(x - h, y - h, 0.0),
        DVec3::new(x + h, y + h, top - 0.02),
    );
    let c = DVec3::new(x, y, top - 0.01);
    let side = along.cross(DVec3::Z).normalize_or_zero();
    let pose = DAffine3::from_cols(along.normalize_or_zero(), side, DVec3::Z, c);
    p.cuboid(&pose, DVec3::new(reach, 0.05, 0.01));
    p
}

/// The three axes, in the order routes name them.
const AXES: [DVec3; 3] = [DVec3::X, DVec3::Y, DVec3::Z];

/// Random Manhattan pipe runs within a box: two to five legs along x, y or
/// z, with fittings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Router<'a> {
    /// Smallest corner of the box the runs stay in.
    pub(crate) lo: DVec3,
    /// Largest corner.
    pub(crate) hi: DVec3,
    /// Pipe sizes with their weights (summing to 1).
    pub(crate) sizes: &'a [(Pipe, f64)],
    /// Longest leg.
    pub(crate) max_leg: f64,
    /// Chance that a leg which may turn vertical does.
    pub(crate) vertical: f64,
    /// Chance of a flanged joint on a leg longer than 0.9 m.
    pub(crate) flange: f64,
    /// Chance of a tee with a branch on a run.
    pub(crate) tee: f64,
    /// Chance of a valve on a leg longer than 0.6 m.
    pub(crate) valve: f64,
}

/// A horizontal leg of a placed run, for supports: ends and pipe radius.
pub(crate) type Leg = (DVec3, DVec3, f64);

impl Router<'_> {
    /// Whether `p` is at least `margin` inside the box.
    pub(crate) fn inside(&self, p: DVec3, margin: f64) -> bool {
        p.cmpge(self.lo + DVec3::splat(margin)).all()
            && p.cmple(self.hi - DVec3::splat(margin)).all()
    }

    fn pick_size(&self, rng: &mut SplitMix64) -> Pipe {
        let mut u = rng.unit();
        for (p, w) in self.sizes {
            if u < *w {
                return *p;
            }
            u -= w;
        }
        self.sizes.first().map_or(
            Pipe {
                radius: 0.03,
                segments: 12,
                elbow_steps: 4,
            },
            |s| s.0,
        )
    }

    /// A route of `legs` legs from `start`, the first along `first` (a
    /// random axis when `None`).
    fn route(
        &self,
        rng: &mut SplitMix64,
        start: DVec3,
        legs: usize,
        first: Option<DVec3>,
        pipe: &Pipe,
    ) -> Option<Vec<DVec3>> {
        let mut pts = vec![start];
        let mut prev_axis: Option<usize> = None;
        let min_leg = 2.0 * pipe.bend() + 0.12;
        for leg in 0..legs {
            let (dir, axis) = match (leg, first) {
                (0, Some(d)) => (
                    d,
                    AXES.iter().position(|a| a.dot(d).abs() > 0.5).unwrap_or(0),
                ),
                _ => {
                    let choices: Vec<usize> = (0..3).filter(|&a| Some(a) != prev_axis).collect();
                    // Vertical legs are rarer than horizontal ones in a plant.
                    let axis = if choices.contains(&2) && rng.chance(self.vertical) {
                        2
                    } else {
                        *rng.pick(&choices[..choices.len().min(2)]).unwrap_or(&0)
                    };
                    let sign = if rng.chance(0.5) { 1.0 } else { -1.0 };
                    (AXES[axis] * sign, axis)
                }
            };
            let len = rng.range(min_leg.max(0.35), self.max_leg.max(min_leg + 0.1));
            let next = *pts.last()? + dir * len;
            if !self.inside(next, 0.1) {
                return None;
            }
            pts.push(next);
            prev_axis = Some(axis);
        }
        Some(pts)
    }

    /// One run from `start` with its fittings and the run's horizontal
    /// legs, or `None` when it breaks the geometry rules.
    pub(crate) fn run(&self, rng: &mut SplitMix64, start: DVec3) -> Option<(Vec<Part>, Vec<Leg>)> {
        let pipe = self.pick_size(rng);
        let legs = 2 + rng.below(4);
        let pts = self.route(rng, start, legs, None, &pipe)?;
        let mut parts = pipe_run(&pts, &pipe, [true, true])?;
        let mut horizontal = Vec::new();
        for w in pts.windows(2) {
            let (a, b) = (w[0], w[1]);
            let len = (b - a).length();
            let dir = (b - a) / len;
            if len > 0.9 && rng.chance(self.flange) {
                parts.push(flange(a + dir * (len * rng.range(0.35, 0.65)), dir, &pipe));
            }
            if len > 0.6 + 2.0 * pipe.bend() && rng.chance(self.valve) {
                let up = if dir.z.abs() < 0.5 {
                    DVec3::Z
                } else {
                    DVec3::X
                };
                parts.push(valve(a + dir * (len * rng.range(0.4, 0.6)), dir, up, &pipe));
            }
            if dir.z.abs() < 0.5 {
                horizontal.push((a, b, pipe.radius));
            }
        }
        if rng.chance(self.tee) {
            let i = rng.below(pts.len() - 1);
            let (a, b) = (pts[i], pts[i + 1]);
            let len = (b - a).length();
            if len > 0.7 {
                let dir = (b - a) / len;
                let at = a + dir * (len * rng.range(0.4, 0.6));
                let choices: Vec<DVec3> = AXES
                    .iter()
                    .filter(|x| x.dot(dir).abs() < 0.5)
                    .flat_map(|x| [*x, -*x])
                    .collect();
                let branch_dir = *rng.pick(&choices)?;
                let small = Pipe {
                    radius: (pipe.radius * 0.7).max(0.02),
                    segments: pipe.segments.saturating_sub(2).max(8),
                    elbow_steps: pipe.elbow_steps,
                };
                let origin = at + branch_dir * tee_reach(&pipe);
                let legs = 1 + rng.below(2);
                let branch = self.route(rng, origin, legs, Some(branch_dir), &small)?;
                let mut bparts = pipe_run(&branch, &small, [false, true])?;
                parts.push(tee(at, dir, branch_dir, &pipe));
                parts.append(&mut bparts);
            }
        }
        Some((parts, horizontal))
    }
}

/// Places supports from the floor under the horizontal `legs` of placed
/// group `id` (legs at least `min_z` high and 0.6 m long).
pub(crate) fn place_supports(
    layout: &mut Layout,
    rng: &mut SplitMix64,
    id: usize,
    legs: &[Leg],
    min_z: f64,
) {
    for &(a, b, r) in legs {
        let len = (b - a).length();
        if a.z < min_z || len < 0.6 {
            continue;
        }
        let p = a + (b - a) * rng.range(0.3, 0.7);
        let post = support(p.x, p.y, p.z - r, (b - a) / len, 0.12);
        // A support that would cut through another run is left out.
        let _ = layout.place_except(vec![post], Some(id));
    }
}

#[cfg(test)]
mod tests {
    use super::{Layout, Pipe, pipe_run, valve};
    use crate::gen_data::mesh::{Capsule, Proxy};
    use glam::DVec3;

    const PIPE: Pipe = Pipe {
        radius: 0.05,
        segments: 12,
        elbow_steps: 4,
    };

    #[test]
    fn run_has_elbows_and_straights_that_meet() {
        let pts = [
            DVec3::ZERO,
            DVec3::new(1.0, 0.0, 0.0),
            DVec3::new(1.0, 1.0, 0.0),
            DVec3::new(1.0, 1.0, 1.0),
        ];
        let parts = pipe_run(&pts, &PIPE, [true, true]).unwrap();
        let count = |k: &str| parts.iter().filter(|p| p.name() == k).count();
        assert_eq!((count("elbow"), count("pipe"), count("cap")), (2, 3, 2));
        // Too short a leg for the two elbows' tangents.
        let short = [
            DVec3::ZERO,
            DVec3::X,
            DVec3::new(1.0, 0.2, 0.0),
            DVec3::new(2.0, 0.2, 0.0),
        ];
        assert!(pipe_run(&short, &PIPE, [false, false]).is_none());
    }

    #[test]
    fn layout_keeps_clearance_and_names_objects() {
        let robot = vec![Proxy::capsule(Capsule::new(DVec3::ZERO, DVec3::Z, 0.1))];
        let mut l = Layout::new(robot, 0.05, 0.02);
        // 4 cm from the robot's capsule: closer than the clearance.
        let near = pipe_run(
            &[DVec3::new(0.19, -1.0, 0.5), DVec3::new(0.19, 1.0, 0.5)],
            &PIPE,
            [true, true],
        );
        assert!(l.place(near.unwrap()).is_none());
        let far = pipe_run(
            &[DVec3::new(0.5, -1.0, 0.5), DVec3::new(0.5, 1.0, 0.5)],
            &PIPE,
            [true, true],
        );
        assert!(l.place(far.unwrap()).is_some());
        let crossing = pipe_run(
            &[DVec3::new(0.3, 0.0, 0.5), DVec3::new(2.0, 0.0, 0.5)],
            &PIPE,
            [true, true],
        );
        assert!(l.place(crossing.unwrap()).is_none());
        let mut v = valve(DVec3::new(3.0, 0.0, 0.5), DVec3::X, DVec3::Z, &PIPE);
        v.set_name("x");
        assert!(l.place(vec![v]).is_some());
        let names: Vec<String> = l.into_parts().iter().map(|p| p.name().to_owned()).collect();
        assert_eq!(names, ["pipe_0001", "cap_0001", "cap_0002", "x_0001"]);
    }
}
