//! The continuous OBB/OBB test (M1 §5.1) against dense sampling of the
//! exact overlap: two boxes, each fixed in a frame moving by an in-between
//! motion, over a random time interval. Whenever the exact boxes overlap at
//! a sampled time, the continuous test on the interval must say so; and on
//! a short interval, boxes apart at every sampled time by more than the
//! motion over the interval must be found apart.

use armature_bvh_geometry::bv::Obb;
use armature_bvh_geometry::query::overlap_obb_obb;
use armature_elementary_ccd::{RelativePose, obb_overlap};
use armature_interval_taylor::Interval;
use armature_kinematics::LocalMotion;
use glam::{DAffine3, DMat3, DVec3};
use proptest::prelude::*;

fn unit(v: [f64; 3]) -> DVec3 {
    DVec3::from_array(v).try_normalize().unwrap_or(DVec3::Z)
}

fn motion() -> impl Strategy<Value = LocalMotion> {
    (
        prop::array::uniform3(-1f64..1.0),
        -3f64..3.0,
        prop::array::uniform3(-1f64..1.0),
        -3f64..3.0,
        prop::array::uniform3(-1f64..1.0),
        prop::array::uniform3(-1f64..1.0),
    )
        .prop_map(|(axis, omega, axis0, angle0, t0, v)| LocalMotion {
            axis: unit(axis),
            omega,
            rot0: DMat3::from_axis_angle(unit(axis0), angle0),
            trans0: DVec3::from_array(t0),
            velocity: DVec3::from_array(v),
        })
}

fn obb() -> impl Strategy<Value = Obb> {
    (
        prop::array::uniform3(-0.5f64..0.5),
        prop::array::uniform3(-1f64..1.0),
        -3f64..3.0,
        prop::array::uniform3(0.01f64..0.4),
    )
        .prop_map(|(c, axis, angle, e)| {
            Obb::new(
                DVec3::from_array(c),
                DMat3::from_axis_angle(unit(axis), angle),
                DVec3::from_array(e),
            )
        })
}

/// Box `b` of frame `pb` seen in frame `pa`, grown or shrunk by `grow`.
fn placed(b: &Obb, pa: &DAffine3, pb: &DAffine3, grow: f64) -> Obb {
    let g = Obb::new(
        b.center,
        b.axes,
        (b.half_extents + DVec3::splat(grow)).max(DVec3::ZERO),
    );
    g.transform(&(pa.inverse() * *pb))
}

proptest! {
    #[test]
    fn sampled_overlaps_are_never_missed(
        ma in motion(),
        mb in motion(),
        a in obb(),
        b in obb(),
        t in prop::array::uniform2(0f64..1.0),
        separation in prop_oneof![Just(0.0), 0f64..0.05],
    ) {
        let (t0, t1) = (t[0].min(t[1]), t[0].max(t[1]));
        let interval = Interval::new(t0, t1).unwrap_or(Interval::UNIT);
        let ea = ma.interval_enclosure(interval).expect("encloses");
        let eb = mb.interval_enclosure(interval).expect("encloses");
        let rel = RelativePose::between(&ea, &eb);
        let continuous = obb_overlap(&a, &b, &rel, separation);
        for k in 0..=64 {
            let s = t0 + (t1 - t0) * f64::from(k) / 64.0;
            let (pa, pb) = (ma.pose(s), mb.pose(s));
            // Boxes grown by the separation (a conservative stand-in for
            // "within `separation`"), shrunk by a hair for rounding.
            let grown = Obb::new(a.center, a.axes, a.half_extents + DVec3::splat(separation));
            if overlap_obb_obb(&grown, &placed(&b, &pa, &pb, -1e-9)) {
                prop_assert!(continuous, "overlap at t = {s} missed on [{t0}, {t1}]");
            }
        }
    }

    /// Near-touching boxes on short intervals, where each part of the
    /// enclosure (the rotation's radius, the translation's) matters.
    #[test]
    fn near_contacts_on_short_intervals_are_never_missed(
        ma in motion(),
        mb in motion(),
        a in obb(),
        b in obb(),
        offset in prop::array::uniform3(-0.6f64..0.6),
        t in 0f64..0.9,
        width in 0.001f64..0.1,
    ) {
        // b's frame starts near a's.
        let mb = LocalMotion { trans0: ma.trans0 + DVec3::from_array(offset), ..mb };
        let (t0, t1) = (t, t + width);
        let interval = Interval::new(t0, t1).unwrap_or(Interval::UNIT);
        let ea = ma.interval_enclosure(interval).expect("encloses");
        let eb = mb.interval_enclosure(interval).expect("encloses");
        let continuous = obb_overlap(&a, &b, &RelativePose::between(&ea, &eb), 0.0);
        for k in 0..=64 {
            let s = t0 + (t1 - t0) * f64::from(k) / 64.0;
            if overlap_obb_obb(&a, &placed(&b, &ma.pose(s), &mb.pose(s), -1e-9)) {
                prop_assert!(continuous, "overlap at t = {s} missed on [{t0}, {t1}]");
            }
        }
    }

    #[test]
    fn apart_boxes_are_found_apart_on_short_intervals(
        ma in motion(),
        mb in motion(),
        a in obb(),
        b in obb(),
        t in 0f64..0.999,
    ) {
        let (t0, t1) = (t, t + 1e-3);
        let interval = Interval::new(t0, t1).unwrap_or(Interval::UNIT);
        let ea = ma.interval_enclosure(interval).expect("encloses");
        let eb = mb.interval_enclosure(interval).expect("encloses");
        let rel = RelativePose::between(&ea, &eb);
        // Every point moves by at most ~0.03 over 1e-3 of these motions:
        // boxes apart by a margin of 0.1 at the start stay apart.
        let (pa, pb) = (ma.pose(t0), mb.pose(t0));
        if !overlap_obb_obb(&a, &placed(&b, &pa, &pb, 0.1)) {
            prop_assert!(!obb_overlap(&a, &b, &rel, 0.0));
        }
    }
}

proptest! {
    /// The midpoint–radius enclosures of local motions and of their
    /// composition hold the poses at sampled times.
    #[test]
    fn local_motion_enclosures_hold_the_poses(
        m1 in motion(),
        m2 in motion(),
        t in prop::array::uniform2(0f64..1.0),
    ) {
        let (t0, t1) = (t[0].min(t[1]), t[0].max(t[1]));
        let (e1, e2) = (
            RelativePose::local_motion(&m1, t0, t1),
            RelativePose::local_motion(&m2, t0, t1),
        );
        let chain = e1.then(&e2);
        for k in 0..=16 {
            let s = t0 + (t1 - t0) * f64::from(k) / 16.0;
            for (e, pose) in [
                (&e1, m1.pose(s)),
                (&e2, m2.pose(s)),
                (&chain, m1.pose(s) * m2.pose(s)),
            ] {
                for j in 0..3 {
                    let d = (pose.matrix3.col(j) - e.rotation().col(j)).abs();
                    prop_assert!(d.cmple(e.rotation_radius().col(j)).all(), "{d} vs {e:?}");
                }
                let d = (pose.translation - e.translation()).abs();
                prop_assert!(d.cmple(e.translation_radius()).all(), "{d} vs {e:?}");
            }
        }
    }
}

proptest! {
    /// The derivative enclosures of local motions and of their composition
    /// hold the exact velocities of points at sampled times.
    #[test]
    fn rate_enclosures_hold_the_velocities(
        m1 in motion(),
        m2 in motion(),
        p in prop::array::uniform3(-1f64..1.0),
        t in prop::array::uniform2(0f64..1.0),
    ) {
        let p = DVec3::from_array(p);
        let (t0, t1) = (t[0].min(t[1]), t[0].max(t[1]));
        let (e1, e2) = (
            RelativePose::local_motion(&m1, t0, t1),
            RelativePose::local_motion(&m2, t0, t1),
        );
        let (d1, d2) = (
            RelativePose::local_rate(&m1, &e1),
            RelativePose::local_rate(&m2, &e2),
        );
        let d = e1.then_rate(&d1, &e2, &d2);
        let cross = |a: DVec3| DMat3::from_cols(
            DVec3::new(0.0, a.z, -a.y),
            DVec3::new(-a.z, 0.0, a.x),
            DVec3::new(a.y, -a.x, 0.0),
        );
        for k in 0..=16 {
            let s = t0 + (t1 - t0) * f64::from(k) / 16.0;
            let (a, b) = (m1.pose(s), m2.pose(s));
            let da = cross(m1.axis) * a.matrix3 * m1.omega;
            let db = cross(m2.axis) * b.matrix3 * m2.omega;
            // d/dt (A (B p + t_b) + t_a).
            let v = da * (b.matrix3 * p + b.translation)
                + a.matrix3 * (db * p + m2.velocity)
                + m1.velocity;
            let enclosed = d.rotation() * p + d.translation();
            let radius = d.rotation_radius() * p.abs() + d.translation_radius();
            let slack = 1e-9 * (1.0 + v.abs().max_element());
            prop_assert!(
                (v - enclosed).abs().cmple(radius + DVec3::splat(slack)).all(),
                "{v} vs {enclosed} ± {radius}"
            );
        }
    }
}

/// A box passing through another between two samples of a coarse grid is
/// still caught on the whole interval.
#[test]
fn a_fast_pass_through_is_caught() {
    let a = Obb::new(DVec3::ZERO, DMat3::IDENTITY, DVec3::splat(0.1));
    let still = LocalMotion::constant(&DAffine3::IDENTITY);
    let fly = LocalMotion {
        axis: DVec3::Z,
        omega: 0.0,
        rot0: DMat3::IDENTITY,
        trans0: DVec3::new(-5.0, 0.0, 0.0),
        velocity: DVec3::new(10.0, 0.0, 0.0),
    };
    let b = Obb::new(DVec3::ZERO, DMat3::IDENTITY, DVec3::splat(0.1));
    let whole = Interval::UNIT.intersect(Interval::new(0.0, 1.0).unwrap_or(Interval::UNIT));
    let whole = whole.unwrap_or(Interval::UNIT);
    let rel = RelativePose::between(
        &still.interval_enclosure(whole).expect("encloses"),
        &fly.interval_enclosure(whole).expect("encloses"),
    );
    assert!(obb_overlap(&a, &b, &rel, 0.0));
    // The first half keeps b left of x = −0.1 − 0.1 except at its end.
    let early = Interval::new(0.0, 0.45).unwrap_or(Interval::UNIT);
    let rel = RelativePose::between(
        &still.interval_enclosure(early).expect("encloses"),
        &fly.interval_enclosure(early).expect("encloses"),
    );
    assert!(!obb_overlap(&a, &b, &rel, 0.0));
}

/// SplitMix64: a fixed stream of cases.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }

    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }

    fn vec(&mut self, lo: f64, hi: f64) -> DVec3 {
        DVec3::new(self.range(lo, hi), self.range(lo, hi), self.range(lo, hi))
    }
}

/// The cases that need the enclosure's radii: boxes apart at the
/// interval's middle but overlapping at another sampled time. Each must be
/// caught, and there must be many of them (so that dropping either the
/// rotation's or the translation's radius fails here).
#[test]
fn overlaps_away_from_the_middle_are_caught() {
    let mut rng = Rng(7);
    let mut critical = [0usize; 3];
    for case in 0..40_000 {
        let rotating = case % 2 == 0;
        let frame = |rng: &mut Rng| LocalMotion {
            axis: unit(rng.vec(-1.0, 1.0).to_array()),
            omega: if rotating { rng.range(-3.0, 3.0) } else { 0.0 },
            rot0: DMat3::from_axis_angle(unit(rng.vec(-1.0, 1.0).to_array()), rng.range(-3.0, 3.0)),
            trans0: rng.vec(-0.3, 0.3),
            velocity: if rotating {
                DVec3::ZERO
            } else {
                rng.vec(-1.0, 1.0)
            },
        };
        let (ma, mb) = (frame(&mut rng), frame(&mut rng));
        let boxed = |rng: &mut Rng| {
            Obb::new(
                rng.vec(-0.5, 0.5),
                DMat3::from_axis_angle(unit(rng.vec(-1.0, 1.0).to_array()), rng.range(-3.0, 3.0)),
                rng.vec(0.02, 0.3),
            )
        };
        let (a, b) = (boxed(&mut rng), boxed(&mut rng));
        // A long box turning about its own centre: only its orientation
        // moves, so only the rotation's radius covers it.
        let b = if case % 4 == 0 {
            Obb::new(
                DVec3::ZERO,
                b.axes,
                b.half_extents * DVec3::new(3.0, 0.3, 0.3),
            )
        } else {
            b
        };
        let t0 = rng.range(0.0, 0.8);
        let t1 = t0 + rng.range(0.01, 0.2);
        let mid = 0.5 * (t0 + t1);
        if overlap_obb_obb(&a, &placed(&b, &ma.pose(mid), &mb.pose(mid), 1e-9)) {
            continue;
        }
        let touched = (0..=32).any(|k| {
            let s = t0 + (t1 - t0) * f64::from(k) / 32.0;
            overlap_obb_obb(&a, &placed(&b, &ma.pose(s), &mb.pose(s), -1e-9))
        });
        if !touched {
            continue;
        }
        critical[if case % 4 == 0 {
            2
        } else {
            usize::from(rotating)
        }] += 1;
        let interval = Interval::new(t0, t1).expect("ordered");
        let rel = RelativePose::between(
            &ma.interval_enclosure(interval).expect("encloses"),
            &mb.interval_enclosure(interval).expect("encloses"),
        );
        assert!(obb_overlap(&a, &b, &rel, 0.0), "case {case} missed");
    }
    assert!(
        critical.iter().all(|&c| c >= 50),
        "too few critical cases: {critical:?}"
    );
}
