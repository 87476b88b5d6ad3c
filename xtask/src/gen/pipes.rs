//! The *pipes* scene: dense plant piping around the Puma.
//!
//! **Recipe.** Pipe runs are random Manhattan routes (two to five legs,
//! each along x, y or z) of five sizes, with long-radius elbows at the
//! corners, flanges or blind caps at the ends, flanged joints along long
//! legs, some tees with a branch, and box-section supports from the floor
//! under horizontal legs. Runs are drawn until the scene holds about
//! [`TRIANGLES`] triangles; a run is kept only when it stays
//! [`CLEARANCE`] from the Puma's home pose and [`GAP`] from earlier runs
//! (proxies, see [`super::layout`]). Most runs start within the
//! arm's reach (about 0.9 m around the shoulder at z = 0.67), the rest fill
//! a 3.4 m × 3.4 m × 2.3 m box around it.
//!
//! **Zones.** Objects are grouped by the azimuth of their centre about
//! the base (six sectors) and by height (below or above 0.9 m): twelve
//! OBJ files, one scene obstacle each.

use anyhow::{Result, bail};
use glam::DVec3;

use super::Scene;
use super::layout::{Layout, Pipe, Router, place_supports};
use super::mesh::{Capsule, Part, Proxy};
use super::puma;
use super::rng::SplitMix64;

/// The layout's seed.
const SEED: u64 = 0x5049_5045_5331; // "PIPES1"
/// Triangle budget: runs are added until the scene reaches it.
pub(crate) const TRIANGLES: usize = 38_000;
/// Clearance of every object's proxies from the home pose's.
const CLEARANCE: f64 = 0.04;
/// Gap between runs.
const GAP: f64 = 0.015;
/// Half sides of the box that holds the scene (centred on the base,
/// z from the floor).
const HALF: DVec3 = DVec3::new(2.4, 2.4, 2.6);
/// Shoulder position at the home pose.
const SHOULDER: DVec3 = DVec3::new(0.0, 0.0, puma::D[0]);
/// Radius around the shoulder where "near" runs start.
const NEAR: f64 = 0.95;
/// Radius of the empty ball about the shoulder.
const INNER: f64 = 0.4;
/// Distance from the shoulder beyond which the other runs start.
const FAR: f64 = 1.3;
/// Fraction of runs that start near the arm.
const NEAR_FRACTION: f64 = 0.7;

/// Pipe sizes and how often each is drawn.
const SIZES: [(Pipe, f64); 5] = [
    (
        Pipe {
            radius: 0.024,
            segments: 10,
            elbow_steps: 4,
        },
        0.2,
    ),
    (
        Pipe {
            radius: 0.034,
            segments: 12,
            elbow_steps: 5,
        },
        0.25,
    ),
    (
        Pipe {
            radius: 0.045,
            segments: 14,
            elbow_steps: 6,
        },
        0.25,
    ),
    (
        Pipe {
            radius: 0.06,
            segments: 16,
            elbow_steps: 6,
        },
        0.18,
    ),
    (
        Pipe {
            radius: 0.085,
            segments: 18,
            elbow_steps: 7,
        },
        0.12,
    ),
];

/// The router of the scene's runs.
fn router() -> Router<'static> {
    Router {
        lo: DVec3::new(-HALF.x, -HALF.y, 0.0),
        hi: HALF,
        sizes: &SIZES,
        max_leg: 1.6,
        vertical: 0.3,
        flange: 0.6,
        tee: 0.35,
        valve: 0.0,
    }
}

/// A random start point: near the shoulder (outside the empty ball) or
/// beyond [`FAR`] from it.
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
                rng.range(-HALF.x, HALF.x),
                rng.range(-HALF.y, HALF.y),
                rng.range(0.0, HALF.z),
            )
        };
        let d = (p - SHOULDER).length();
        if (if near { d <= NEAR } else { d > FAR }) && router.inside(p, 0.12) {
            return p;
        }
    }
}

/// Zone of an object: six azimuth sectors times two height bands.
fn zone(part: &Part) -> usize {
    let c = part.center();
    let sector = ((c.y.atan2(c.x) + core::f64::consts::PI) / core::f64::consts::TAU * 6.0)
        .floor()
        .clamp(0.0, 5.0) as usize;
    let band = usize::from(c.z >= 0.9);
    band * 6 + sector
}

/// Builds the scene (see the [module docs](self)).
///
/// # Errors
/// When the budget cannot be reached in the allotted attempts.
pub(crate) fn generate() -> Result<Scene> {
    let mut home = puma::proxies_at(&[0.0; 6]);
    home.push(Proxy::capsule(Capsule::new(SHOULDER, SHOULDER, INNER)));
    let mut layout = Layout::new(home, CLEARANCE, GAP);
    let mut rng = SplitMix64::new(SEED);
    let router = router();
    let mut attempts = 0usize;
    while layout.triangles() < TRIANGLES {
        attempts += 1;
        if attempts > 200_000 {
            bail!(
                "pipes: only {} triangles after {attempts} attempts",
                layout.triangles()
            );
        }
        let near = rng.chance(NEAR_FRACTION);
        let start = start_point(&mut rng, &router, near);
        let Some((group, horizontal)) = router.run(&mut rng, start) else {
            continue;
        };
        let Some(id) = layout.place(group) else {
            continue;
        };
        // Supports under horizontal legs high enough to need one.
        place_supports(&mut layout, &mut rng, id, &horizontal, 0.35);
    }
    let parts = layout.into_parts();
    let mut zones: Vec<Vec<Part>> = vec![Vec::new(); 12];
    for p in parts {
        let z = zone(&p);
        zones[z].push(p);
    }
    Ok(Scene {
        name: "pipes".to_owned(),
        zones: zones
            .into_iter()
            .enumerate()
            .filter(|(_, parts)| !parts.is_empty())
            .map(|(i, parts)| (format!("zone{i:02}"), parts))
            .collect(),
        ..Scene::default()
    })
}
