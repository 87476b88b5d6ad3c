//! The *welder cage* scene: the IRB 2400-like arm with its thin welding
//! torch inside a cage of thin bars.
//!
//! **Layout.** A square cage `2·`[`HALF_WIDTH`] across and [`HEIGHT`]
//! tall around the robot at the origin: on each side four posts (the
//! corners shared, twelve in all) and rails at three heights; above, a
//! lattice of four perimeter beams and four bars each way. Thirty-six
//! boxes of 12 triangles, 432 triangles. The bars are 2–2.5 cm thick; the
//! posts, rails and roof bars differ slightly in thickness so that no two
//! bars share a vertex (each bar stays a closed mesh of its own).

use glam::DVec3;

use super::Scene;
use super::irb::{ROBOT, WELDER};
use super::mesh::Part;
use super::write::BodyEntry;

/// Half the cage's width (x and y), metres, to the bars' centre lines.
pub(crate) const HALF_WIDTH: f64 = 1.2;
/// Height of the roof lattice's centre line.
pub(crate) const HEIGHT: f64 = 2.1;
/// Heights of the wall rails.
pub(crate) const RAILS: [f64; 3] = [0.45, 1.05, 1.65];
/// Half thickness of posts, rails (along x; those along y 5 % less) and
/// roof bars (along x; those along y 10 % flatter).
const HALF: [f64; 3] = [0.0125, 0.01, 0.011];

/// The cage's bars, in three zones (posts, rails, roof).
pub(crate) fn generate() -> Scene {
    let w = HALF_WIDTH;
    let stations = [-w, -w / 3.0, w / 3.0, w];
    let mut posts = Vec::new();
    for (i, &x) in stations.iter().enumerate() {
        for (j, &y) in stations.iter().enumerate() {
            let on_side = i == 0 || i == 3 || j == 0 || j == 3;
            if !on_side {
                continue;
            }
            let h = HALF[0];
            let mut p = Part::new(format!("post_{i}{j}"));
            p.aabox(
                DVec3::new(x - h, y - h, 0.0),
                DVec3::new(x + h, y + h, HEIGHT + h),
            );
            posts.push(p);
        }
    }
    let mut rails = Vec::new();
    for (k, &z) in RAILS.iter().enumerate() {
        let h = HALF[1];
        for (side, (a, b)) in [
            (DVec3::new(-w, -w, z), DVec3::new(w, -w, z)),
            (DVec3::new(w, -w, z), DVec3::new(w, w, z)),
            (DVec3::new(w, w, z), DVec3::new(-w, w, z)),
            (DVec3::new(-w, w, z), DVec3::new(-w, -w, z)),
        ]
        .into_iter()
        .enumerate()
        {
            // Rails along y are a little thinner than those along x, so
            // that the corners where they cross are not shared.
            let h = if side % 2 == 1 { 0.95 * h } else { h };
            let mut p = Part::new(format!("rail_{k}{side}"));
            p.aabox(a.min(b) - DVec3::splat(h), a.max(b) + DVec3::splat(h));
            rails.push(p);
        }
    }
    let mut roof = Vec::new();
    let h = HALF[2];
    let lines = [-w, -0.6 * w, -0.2 * w, 0.2 * w, 0.6 * w, w];
    for (k, &c) in lines.iter().enumerate() {
        let mut bx = Part::new(format!("roof_x{k}"));
        bx.aabox(
            DVec3::new(-w - h, c - h, HEIGHT - h),
            DVec3::new(w + h, c + h, HEIGHT + h),
        );
        roof.push(bx);
        let mut by = Part::new(format!("roof_y{k}"));
        by.aabox(
            DVec3::new(c - h, -w - h, HEIGHT - 0.9 * h),
            DVec3::new(c + h, w + h, HEIGHT + 0.9 * h),
        );
        roof.push(by);
    }
    Scene {
        name: "welder_cage".to_owned(),
        zones: vec![
            ("posts".to_owned(), posts),
            ("rails".to_owned(), rails),
            ("roof".to_owned(), roof),
        ],
        bodies: vec![BodyEntry {
            name: "welder".to_owned(),
            urdf: format!("../robots/{ROBOT}/{WELDER}.urdf"),
            translation: DVec3::ZERO,
            yaw_deg: 0.0,
        }],
        ron: "data/scenes/welder_cage.ron".to_owned(),
        max_step: Some(0.002),
    }
}
