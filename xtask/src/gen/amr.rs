//! The *AMR* scene: an auxiliary machine room of [`OBJECTS`] objects and
//! about [`TRIANGLES`] triangles with the Puma inside.
//!
//! **Recipe.** A 12 m × 8 m room, 4.2 m high ([`ROOM_LO`]–[`ROOM_HI`]):
//! wall panels, floor gratings (1 m panels of bearing bars, one panel left
//! out where the robot stands), steel columns, vertical tanks along the
//! north wall and horizontal tanks along the south wall, three rows of
//! pump skids, electrical cabinets on the west wall, ladder cable trays
//! along the walls and across the room under the ceiling. Pipe runs with
//! elbows, flanges, tees and valves are then routed through the room: first
//! [`NEAR_RUNS`] runs starting within the arm's reach (but outside an empty
//! ball of [`INNER`] around the shoulder), then runs starting farther away
//! until the triangle budget is met, each with supports from the floor.
//! Junction boxes on the walls bring the object count to exactly
//! [`OBJECTS`].
//!
//! Every object keeps [`CLEARANCE`] from the Puma's home pose and
//! [`GAP`] from the objects placed before it (proxies,
//! [`super::layout`]); walls and gratings are the backdrop that others may
//! touch.
//!
//! **Zones.** Objects are grouped by the cell of an 8 × 6 grid over the
//! floor plan holding their centre: up to 48 OBJ files.

use anyhow::{Result, bail};
use glam::{DAffine3, DQuat, DVec3};

use super::Scene;
use super::layout::{Layout, Pipe, Router, place_supports};
use super::mesh::{Capsule, Part, Proxy, frame_along};
use super::puma;
use super::rng::SplitMix64;

/// The layout's seed.
const SEED: u64 = 0x414D_5231; // "AMR1"
/// Objects (OBJ `o` groups) in the scene.
pub(crate) const OBJECTS: usize = 1180;
/// Triangle budget: pipe runs are added until the scene nears it.
pub(crate) const TRIANGLES: usize = 187_000;
/// Inner corner of the room (floor level).
const ROOM_LO: DVec3 = DVec3::new(-4.5, -3.5, 0.0);
/// Inner corner of the room (ceiling level).
const ROOM_HI: DVec3 = DVec3::new(7.5, 4.5, 4.2);
/// Wall thickness.
const WALL: f64 = 0.2;
/// Clearance of every object from the home pose.
const CLEARANCE: f64 = 0.04;
/// Gap between objects.
const GAP: f64 = 0.015;
/// Shoulder position at the home pose.
const SHOULDER: DVec3 = DVec3::new(0.0, 0.0, puma::D[0]);
/// Radius of the empty ball about the shoulder.
const INNER: f64 = 0.4;
/// Radius about the shoulder where near runs start.
const NEAR: f64 = 0.95;
/// Distance from the shoulder beyond which the other runs start.
const FAR: f64 = 1.3;
/// Pipe runs placed near the arm.
const NEAR_RUNS: usize = 34;
/// Objects kept back for the junction boxes that fill the count.
const FILL_MIN: usize = 20;
/// Room left for one more pipe run when deciding to stop adding runs.
const RUN_OBJECTS: usize = 8;

/// Pipe sizes and weights.
const SIZES: [(Pipe, f64); 5] = [
    (
        Pipe {
            radius: 0.024,
            segments: 14,
            elbow_steps: 6,
        },
        0.2,
    ),
    (
        Pipe {
            radius: 0.034,
            segments: 16,
            elbow_steps: 8,
        },
        0.25,
    ),
    (
        Pipe {
            radius: 0.045,
            segments: 18,
            elbow_steps: 8,
        },
        0.25,
    ),
    (
        Pipe {
            radius: 0.06,
            segments: 20,
            elbow_steps: 9,
        },
        0.18,
    ),
    (
        Pipe {
            radius: 0.085,
            segments: 24,
            elbow_steps: 10,
        },
        0.12,
    ),
];

/// A pose turned by `yaw` about z and moved to `at`.
fn placed(at: DVec3, yaw: f64) -> DAffine3 {
    DAffine3::from_rotation_translation(DQuat::from_rotation_z(yaw), at)
}

/// Wall panels of at most 3 m around the room.
fn walls(layout: &mut Layout) {
    let (lo, hi) = (ROOM_LO, ROOM_HI);
    let spans = [
        // (from, to) corners of each wall's box.
        (
            DVec3::new(lo.x - WALL, lo.y - WALL, 0.0),
            DVec3::new(hi.x + WALL, lo.y, hi.z),
        ),
        (
            DVec3::new(lo.x - WALL, hi.y, 0.0),
            DVec3::new(hi.x + WALL, hi.y + WALL, hi.z),
        ),
        (
            DVec3::new(lo.x - WALL, lo.y, 0.0),
            DVec3::new(lo.x, hi.y, hi.z),
        ),
        (
            DVec3::new(hi.x, lo.y, 0.0),
            DVec3::new(hi.x + WALL, hi.y, hi.z),
        ),
    ];
    for (a, b) in spans {
        let size = b - a;
        let along_x = size.x > size.y;
        let len = if along_x { size.x } else { size.y };
        let n = (len / 3.0).ceil().max(1.0) as usize;
        for k in 0..n {
            let (t0, t1) = (k as f64 / n as f64, (k + 1) as f64 / n as f64);
            let (p, q) = if along_x {
                (
                    DVec3::new(a.x + size.x * t0, a.y, a.z),
                    DVec3::new(a.x + size.x * t1, b.y, b.z),
                )
            } else {
                (
                    DVec3::new(a.x, a.y + size.y * t0, a.z),
                    DVec3::new(b.x, a.y + size.y * t1, b.z),
                )
            };
            let mut w = Part::new("wall");
            w.aabox(p, q);
            layout.place_backdrop(vec![w]);
        }
    }
}

/// Bearing bars per grating panel.
const GRATING_BARS: usize = 30;

/// Floor gratings: 1 m panels, top at z = 0, none under the robot.
fn gratings(layout: &mut Layout) {
    let nx = (ROOM_HI.x - ROOM_LO.x).round() as usize;
    let ny = (ROOM_HI.y - ROOM_LO.y).round() as usize;
    for j in 0..ny {
        for i in 0..nx {
            let x0 = ROOM_LO.x + i as f64;
            let y0 = ROOM_LO.y + j as f64;
            if (x0..x0 + 1.0).contains(&0.0) && (y0..y0 + 1.0).contains(&0.0) {
                continue;
            }
            let mut g = Part::new("grating");
            for x in [x0, x0 + 0.975] {
                g.aabox(
                    DVec3::new(x, y0, -0.03),
                    DVec3::new(x + 0.025, y0 + 1.0, 0.0),
                );
            }
            for k in 0..GRATING_BARS {
                let y = y0 + (k as f64 + 0.5) / GRATING_BARS as f64;
                g.aabox(
                    DVec3::new(x0 + 0.025, y - 0.0025, -0.03),
                    DVec3::new(x0 + 0.975, y + 0.0025, 0.0),
                );
            }
            // Cross rods under the bearing bars.
            for k in 1..4 {
                let x = x0 + 0.25 * f64::from(k);
                g.aabox(
                    DVec3::new(x - 0.003, y0, -0.036),
                    DVec3::new(x + 0.003, y0 + 1.0, -0.03),
                );
            }
            layout.place_backdrop(vec![g]);
        }
    }
}

/// Steel I-columns against the long walls.
fn columns(layout: &mut Layout) {
    for x in [-1.5, 1.5, 4.5] {
        for (y, s) in [(ROOM_LO.y + 0.12, 1.0), (ROOM_HI.y - 0.12, -1.0)] {
            let mut c = Part::new("column");
            let h = 0.5 * ROOM_HI.z;
            for dy in [-0.09, 0.09] {
                c.cuboid(
                    &DAffine3::from_translation(DVec3::new(x, y + s * dy, h)),
                    DVec3::new(0.1, 0.01, h),
                );
            }
            c.cuboid(
                &DAffine3::from_translation(DVec3::new(x, y, h)),
                DVec3::new(0.008, 0.08, h),
            );
            let _ = layout.place(vec![c]);
        }
    }
}

/// `(radius, z)` of an ellipsoidal 2:1 head from the pole to the rim over
/// `rings` rings, starting at `z0` and bulging by `sign` along z.
fn head(r: f64, z0: f64, sign: f64, rings: usize) -> Vec<(f64, f64)> {
    let hh = 0.5 * r;
    (0..=rings)
        .map(|k| {
            let phi = core::f64::consts::FRAC_PI_2 * k as f64 / rings as f64;
            (r * phi.sin(), z0 + sign * hh * (1.0 - phi.cos()))
        })
        .collect()
}

/// A vertical tank on four legs, with a top nozzle and a side manway
/// facing `−y`.
fn vertical_tank(x: f64, y: f64, r: f64, h: f64) -> Part {
    let mut t = Part::new("tank");
    let lift = 0.45;
    for k in 0..4 {
        let a = core::f64::consts::FRAC_PI_4 + core::f64::consts::FRAC_PI_2 * f64::from(k);
        let c = DVec3::new(
            x + 0.85 * r * a.cos(),
            y + 0.85 * r * a.sin(),
            0.5 * (lift + 0.1),
        );
        t.cuboid(
            &DAffine3::from_translation(c),
            DVec3::new(0.04, 0.04, 0.5 * (lift + 0.1)),
        );
    }
    let mut profile = head(r, 0.5 * r, -1.0, 6);
    profile.extend(head(r, h - 0.5 * r, 1.0, 6).into_iter().rev());
    t.lathe(&frame_along(DVec3::new(x, y, lift), DVec3::Z), &profile, 64);
    let top = DVec3::new(x + 0.4 * r, y, lift + h - 0.12 * r);
    t.cylinder(top, top + DVec3::Z * (0.2 + 0.1 * r), 0.06, 16);
    t.lathe(
        &frame_along(top + DVec3::Z * (0.2 + 0.1 * r), DVec3::Z),
        &[(0.0, 0.0), (0.11, 0.0), (0.11, 0.03), (0.0, 0.03)],
        16,
    );
    let m = DVec3::new(x, y - r + 0.05, lift + 0.9);
    t.cylinder(m, m - DVec3::Y * 0.25, 0.24, 24);
    t
}

/// A horizontal tank along x on two saddles.
fn horizontal_tank(x: f64, y: f64, r: f64, len: f64) -> Part {
    let mut t = Part::new("tank");
    let lift = 0.35;
    let zc = lift + r;
    for dx in [-0.3 * len, 0.3 * len] {
        t.aabox(
            DVec3::new(x + dx - 0.1, y - 0.8 * r, 0.0),
            DVec3::new(x + dx + 0.1, y + 0.8 * r, zc - 0.6 * r),
        );
    }
    let mut profile = head(r, 0.5 * r, -1.0, 6);
    profile.extend(head(r, len - 0.5 * r, 1.0, 6).into_iter().rev());
    t.lathe(
        &frame_along(DVec3::new(x - 0.5 * len, y, zc), DVec3::X),
        &profile,
        40,
    );
    let n = DVec3::new(x, y, zc + r - 0.05);
    t.cylinder(n, n + DVec3::Z * 0.25, 0.07, 16);
    t
}

/// A pump skid in its own frame (shaft along x, suction at +x): base,
/// motor with fan cowl, coupling guard, bearing frame, casing, nozzles.
fn pump() -> Part {
    let mut p = Part::new("pump");
    p.aabox(DVec3::new(-0.6, -0.22, 0.0), DVec3::new(0.62, 0.22, 0.12));
    let axis = 0.33;
    // Motor, feet and terminal box.
    p.cylinder(
        DVec3::new(-0.52, 0.0, axis),
        DVec3::new(-0.08, 0.0, axis),
        0.16,
        28,
    );
    p.lathe(
        &frame_along(DVec3::new(-0.52, 0.0, axis), -DVec3::X),
        &[(0.15, 0.0), (0.14, 0.08), (0.0, 0.1)],
        28,
    );
    p.aabox(
        DVec3::new(-0.45, -0.13, 0.12),
        DVec3::new(-0.15, 0.13, axis - 0.12),
    );
    // Cooling fins around the motor's upper half.
    for k in 0..9 {
        let a = core::f64::consts::PI * (f64::from(k) + 0.5) / 9.0;
        let (s, c) = a.sin_cos();
        let pose = DAffine3::from_cols(
            DVec3::X,
            DVec3::new(0.0, c, s),
            DVec3::new(0.0, -s, c),
            DVec3::new(-0.3, 0.17 * c, axis + 0.17 * s),
        );
        p.cuboid(&pose, DVec3::new(0.2, 0.02, 0.004));
    }
    p.aabox(
        DVec3::new(-0.35, 0.12, axis + 0.02),
        DVec3::new(-0.2, 0.24, axis + 0.14),
    );
    // Coupling guard and bearing frame.
    p.aabox(
        DVec3::new(-0.08, -0.07, axis - 0.07),
        DVec3::new(0.1, 0.07, axis + 0.07),
    );
    p.cylinder(
        DVec3::new(0.1, 0.0, axis),
        DVec3::new(0.3, 0.0, axis),
        0.08,
        20,
    );
    p.aabox(
        DVec3::new(0.12, -0.08, 0.12),
        DVec3::new(0.28, 0.08, axis - 0.06),
    );
    // Volute casing about the shaft, suction along +x, discharge up.
    p.lathe(
        &frame_along(DVec3::new(0.3, 0.0, axis), DVec3::X),
        &[
            (0.0, 0.0),
            (0.16, 0.0),
            (0.21, 0.03),
            (0.21, 0.12),
            (0.15, 0.16),
            (0.0, 0.16),
        ],
        28,
    );
    p.cylinder(
        DVec3::new(0.46, 0.0, axis),
        DVec3::new(0.58, 0.0, axis),
        0.07,
        18,
    );
    p.lathe(
        &frame_along(DVec3::new(0.58, 0.0, axis), DVec3::X),
        &[(0.0, 0.0), (0.12, 0.0), (0.12, 0.03), (0.0, 0.03)],
        18,
    );
    p.cylinder(
        DVec3::new(0.38, 0.0, axis + 0.18),
        DVec3::new(0.38, 0.0, axis + 0.38),
        0.055,
        18,
    );
    p.lathe(
        &frame_along(DVec3::new(0.38, 0.0, axis + 0.38), DVec3::Z),
        &[(0.0, 0.0), (0.11, 0.0), (0.11, 0.03), (0.0, 0.03)],
        18,
    );
    p
}

/// Tanks along the north and south walls.
fn tanks(layout: &mut Layout, rng: &mut SplitMix64) {
    for x in [-3.4, -1.5, 1.8, 3.9, 6.1] {
        let r = rng.range(0.55, 0.75);
        let h = rng.range(2.2, 3.0);
        let _ = layout.place(vec![vertical_tank(x, ROOM_HI.y - 0.35 - r, r, h)]);
    }
    for x in [3.0, 6.0] {
        let _ = layout.place(vec![horizontal_tank(x, ROOM_LO.y + 0.55, 0.5, 2.0)]);
    }
}

/// Three rows of pump skids.
fn pumps(layout: &mut Layout) {
    let half_pi = core::f64::consts::FRAC_PI_2;
    let mut spots = Vec::new();
    for k in 0..9 {
        spots.push((-3.7 + 1.35 * f64::from(k), -1.75, half_pi));
    }
    for k in 0..5 {
        spots.push((1.6 + 1.35 * f64::from(k), 1.9, -half_pi));
    }
    for k in 0..3 {
        spots.push((-3.0, -0.6 + 1.35 * f64::from(k), 0.0));
    }
    for (x, y, yaw) in spots {
        let _ = layout.place(vec![
            pump().transformed(&placed(DVec3::new(x, y, 0.0), yaw)),
        ]);
    }
}

/// Electrical cabinets on the west wall.
fn cabinets(layout: &mut Layout) {
    for k in 0..8 {
        let y = ROOM_LO.y + 0.5 + 0.85 * f64::from(k);
        let x = ROOM_LO.x;
        let mut c = Part::new("cabinet");
        c.aabox(
            DVec3::new(x + 0.02, y - 0.37, 0.1),
            DVec3::new(x + 0.42, y + 0.37, 2.1),
        );
        c.aabox(
            DVec3::new(x + 0.04, y - 0.35, 0.0),
            DVec3::new(x + 0.4, y + 0.35, 0.1),
        );
        c.aabox(
            DVec3::new(x + 0.0, y - 0.38, 2.1),
            DVec3::new(x + 0.45, y + 0.38, 2.15),
        );
        c.aabox(
            DVec3::new(x + 0.42, y + 0.22, 1.0),
            DVec3::new(x + 0.45, y + 0.27, 1.2),
        );
        let _ = layout.place(vec![c]);
    }
}

/// A ladder cable tray section in its own frame: `len` along x, rails,
/// rungs every 0.25 m, two hanger rods up to the ceiling from height `z`.
fn cable_tray(len: f64, width: f64, z: f64) -> Part {
    let mut t = Part::new("cable_tray");
    let w = 0.5 * width;
    for s in [-1.0, 1.0] {
        t.aabox(
            DVec3::new(0.0, s * w - 0.006, z),
            DVec3::new(len, s * w + 0.006, z + 0.1),
        );
    }
    let rungs = (len / 0.25).floor() as usize;
    for k in 0..rungs {
        let x = (k as f64 + 0.5) * len / rungs as f64;
        t.aabox(
            DVec3::new(x - 0.012, -w + 0.006, z),
            DVec3::new(x + 0.012, w - 0.006, z + 0.015),
        );
    }
    for x in [0.2 * len, 0.8 * len] {
        t.cylinder(
            DVec3::new(x, 0.0, z - 0.02),
            DVec3::new(x, 0.0, ROOM_HI.z),
            0.006,
            6,
        );
        t.aabox(
            DVec3::new(x - 0.02, -w - 0.02, z - 0.03),
            DVec3::new(x + 0.02, w + 0.02, z - 0.01),
        );
    }
    t
}

/// Cable trays along the walls and two across the room.
fn cable_trays(layout: &mut Layout) {
    let (lo, hi) = (ROOM_LO, ROOM_HI);
    let runs = [
        // (start, yaw, length, height)
        // Clear of the columns; the north one above the tanks' nozzles.
        (
            DVec3::new(lo.x + 0.6, lo.y + 0.55, 0.0),
            0.0,
            hi.x - lo.x - 1.2,
            3.3,
        ),
        (
            DVec3::new(lo.x + 0.6, hi.y - 0.55, 0.0),
            0.0,
            hi.x - lo.x - 1.2,
            3.85,
        ),
        (
            DVec3::new(lo.x + 0.3, lo.y + 0.7, 0.0),
            core::f64::consts::FRAC_PI_2,
            hi.y - lo.y - 1.4,
            3.0,
        ),
        (
            DVec3::new(hi.x - 0.3, lo.y + 0.7, 0.0),
            core::f64::consts::FRAC_PI_2,
            hi.y - lo.y - 1.4,
            3.0,
        ),
        (
            DVec3::new(lo.x + 0.9, 0.6, 0.0),
            0.0,
            hi.x - lo.x - 1.8,
            3.6,
        ),
        (
            DVec3::new(lo.x + 0.9, -1.0, 0.0),
            0.0,
            hi.x - lo.x - 1.8,
            3.6,
        ),
    ];
    for (start, yaw, len, z) in runs {
        let n = (len / 2.0).ceil().max(1.0) as usize;
        let piece = len / n as f64;
        let dir = DQuat::from_rotation_z(yaw) * DVec3::X;
        for k in 0..n {
            let at = start + dir * (piece * k as f64);
            let part = cable_tray(piece - 0.02, 0.45, z).transformed(&placed(at, yaw));
            let _ = layout.place(vec![part]);
        }
    }
}

/// The router of the room's pipe runs.
fn router() -> Router<'static> {
    Router {
        lo: ROOM_LO + DVec3::new(0.15, 0.15, 0.1),
        hi: ROOM_HI - DVec3::new(0.15, 0.15, 0.4),
        sizes: &SIZES,
        max_leg: 2.6,
        vertical: 0.3,
        flange: 0.6,
        tee: 0.35,
        valve: 0.45,
    }
}

/// A random start point near the shoulder (`near`) or beyond [`FAR`] from
/// it.
fn start_point(rng: &mut SplitMix64, router: &Router<'_>, near: bool) -> DVec3 {
    loop {
        let p = if near {
            SHOULDER
                + DVec3::new(
                    rng.range(-NEAR, NEAR),
                    rng.range(-NEAR, NEAR),
                    rng.range(-NEAR, NEAR),
                )
        } else {
            DVec3::new(
                rng.range(router.lo.x, router.hi.x),
                rng.range(router.lo.y, router.hi.y),
                rng.range(router.lo.z, router.hi.z),
            )
        };
        let d = (p - SHOULDER).length();
        if (if near { d <= NEAR } else { d > FAR }) && router.inside(p, 0.12) {
            return p;
        }
    }
}

/// Places pipe runs until `done` says so; `near` picks the start points.
fn runs(
    layout: &mut Layout,
    rng: &mut SplitMix64,
    near: bool,
    mut done: impl FnMut(&Layout, usize) -> bool,
) -> Result<()> {
    let router = router();
    let (mut placed_runs, mut attempts) = (0usize, 0usize);
    while !done(layout, placed_runs) {
        attempts += 1;
        if attempts > 100_000 {
            bail!("amr: only {placed_runs} pipe runs placed in {attempts} attempts");
        }
        let start = start_point(rng, &router, near);
        let Some((group, horizontal)) = router.run(rng, start) else {
            continue;
        };
        if layout.len() + group.len() + FILL_MIN > OBJECTS {
            continue;
        }
        let Some(id) = layout.place(group) else {
            continue;
        };
        placed_runs += 1;
        if layout.len() + 1 + FILL_MIN <= OBJECTS {
            place_supports(layout, rng, id, &horizontal, 0.35);
        }
    }
    Ok(())
}

/// Junction boxes on the walls until the scene holds [`OBJECTS`] objects.
fn junction_boxes(layout: &mut Layout, rng: &mut SplitMix64) -> Result<()> {
    let mut attempts = 0usize;
    while layout.len() < OBJECTS {
        attempts += 1;
        if attempts > 100_000 {
            bail!(
                "amr: only {} objects after {attempts} junction box attempts",
                layout.len()
            );
        }
        let (lo, hi) = (ROOM_LO, ROOM_HI);
        let z = rng.range(0.5, 2.6);
        let (at, yaw) = match rng.below(4) {
            0 => (
                DVec3::new(rng.range(lo.x + 0.5, hi.x - 0.5), lo.y, z),
                core::f64::consts::FRAC_PI_2,
            ),
            1 => (
                DVec3::new(rng.range(lo.x + 0.5, hi.x - 0.5), hi.y, z),
                -core::f64::consts::FRAC_PI_2,
            ),
            2 => (DVec3::new(lo.x, rng.range(lo.y + 0.5, hi.y - 0.5), z), 0.0),
            _ => (
                DVec3::new(hi.x, rng.range(lo.y + 0.5, hi.y - 0.5), z),
                core::f64::consts::PI,
            ),
        };
        // In the box's frame the wall is at x = 0 and the room at x > 0.
        let mut b = Part::new("junction_box");
        b.aabox(DVec3::new(0.0, -0.15, -0.2), DVec3::new(0.14, 0.15, 0.2));
        b.cylinder(
            DVec3::new(0.07, 0.0, 0.2),
            DVec3::new(0.07, 0.0, 0.32),
            0.012,
            8,
        );
        let _ = layout.place(vec![b.transformed(&placed(at, yaw))]);
    }
    Ok(())
}

/// The zone of an object: its centre's cell in an 8 × 6 grid.
fn zone(part: &Part) -> usize {
    let c = part.center();
    let (lo, hi) = (ROOM_LO - DVec3::splat(WALL), ROOM_HI + DVec3::splat(WALL));
    let cell = |v: f64, lo: f64, hi: f64, n: usize| {
        (((v - lo) / (hi - lo)) * n as f64)
            .floor()
            .clamp(0.0, (n - 1) as f64) as usize
    };
    cell(c.y, lo.y, hi.y, 6) * 8 + cell(c.x, lo.x, hi.x, 8)
}

/// Builds the scene (see the [module docs](self)).
///
/// # Errors
/// When a stage cannot place what it must in the allotted attempts, or the
/// counts come out wrong.
pub(crate) fn generate() -> Result<Scene> {
    let mut keep_out = puma::proxies_at(&[0.0; 6]);
    keep_out.push(Proxy::capsule(Capsule::new(SHOULDER, SHOULDER, INNER)));
    let mut layout = Layout::new(keep_out, CLEARANCE, GAP);
    let mut rng = SplitMix64::new(SEED);
    walls(&mut layout);
    gratings(&mut layout);
    columns(&mut layout);
    tanks(&mut layout, &mut rng);
    pumps(&mut layout);
    cabinets(&mut layout);
    cable_trays(&mut layout);
    runs(&mut layout, &mut rng, true, |_, n| n >= NEAR_RUNS)?;
    // Junction boxes add about 40 triangles each.
    runs(&mut layout, &mut rng, false, |l, _| {
        l.triangles() + 40 * OBJECTS.saturating_sub(l.len()) >= TRIANGLES
            || l.len() + FILL_MIN + RUN_OBJECTS >= OBJECTS
    })?;
    junction_boxes(&mut layout, &mut rng)?;
    if layout.len() != OBJECTS {
        bail!("amr: {} objects instead of {OBJECTS}", layout.len());
    }
    let mut zones: Vec<Vec<Part>> = vec![Vec::new(); 48];
    for p in layout.into_parts() {
        let z = zone(&p);
        zones[z].push(p);
    }
    Ok(Scene {
        name: "amr".to_owned(),
        zones: zones
            .into_iter()
            .enumerate()
            .filter(|(_, parts)| !parts.is_empty())
            .map(|(i, parts)| (format!("zone{i:02}"), parts))
            .collect(),
        ..Scene::default()
    })
}

#[cfg(test)]
mod tests {
    use super::{OBJECTS, generate};

    #[test]
    fn counts_are_as_documented() {
        let s = generate().unwrap();
        assert_eq!(s.objects(), OBJECTS);
        let t = s.triangles();
        assert!((180_000..=195_000).contains(&t), "{t} triangles");
        assert!(
            (24..=64).contains(&s.zones.len()),
            "{} zones",
            s.zones.len()
        );
    }
}
