//! The bad cases of adaptive bisection (M2 §V.F, Fig. 14, Tables VIII–X):
//! a long path segment along which a moving part stays just above the
//! clearance `ε` from an obstacle, over the whole segment or a part of it.
//!
//! **Motion.** The welding robot (`data/robots/irb2400/irb2400_welder.urdf`)
//! makes one full turn about its first joint, `q1` from `−π` to `π` (its
//! limits are exactly `±π`, so the path is the single segment `[q, q + 2π
//! e1]`), the other joints fixed at [`POSE`]: upper arm leaning forward,
//! forearm and tool axis pointing straight down, the torch tip below the
//! base. Joint 1 turns about the vertical axis through the base origin,
//! so every point of the arm keeps its height: the lowest point of the
//! moving links (the torch tube near its tip) traces a horizontal circle.
//!
//! **Scenes**, built in code around that circle (closed boxes whose top
//! face is a grid of about 8,000 triangles, the other faces a few fans):
//!
//! - (a) *floor*: a 2.4 m square slab under the whole turn, its top face
//!   `c` below the lowest point. The robot is raised above it (it stands
//!   on an unmodelled pedestal) rather than sunk into it: with the tool
//!   pointing down the torch reaches 0.2 m below the base, so every pair is
//!   tested and none is disabled;
//! - (b) *box*: the robot on a pedestal box (its top face at the base's
//!   foot, the base–pedestal pair not tested since the base is bolted to
//!   it and never moves), and a 0.6 m × 0.6 m box beside it, its top face
//!   `c` below the lowest point, under the circle for about an eighth of
//!   the turn (the 0.73 m circle crosses 0.6 m of it);
//! - (c) *narrow box*: as (b) with a box 0.15 m wide across the circle
//!   (its top face still about 8,000 triangles), under it for about a
//!   thirtieth of the turn.
//!
//! `c` is measured, not assumed: the lowest vertex of the moving links at
//! [`POSE`] by forward kinematics, and the obstacle's top face placed `c`
//! below it, so that the smallest distance over the turn is `c` (a mesh's
//! lowest point is one of its vertices, and the obstacles lie wholly below
//! their top faces). The rows use `c = ε (1 + 10⁻²)`, just above the
//! clearance, and `c = 2ε`, for `ε` = 0.01 m and 0.001 m. Self-collision
//! pairs keep their default rules: the relative poses of the moving links
//! do not change along the turn, and none comes within `ε` of another.
//!
//! Every row must answer [`PathStatus::Free`] within the default budget
//! (1,000,000 queue pops): the clearance is above `ε` everywhere, so
//! `Collides` is wrong and `BudgetExhausted` means the checker gave up on
//! a case it should decide.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, ensure};
use armature::geometry::{Obstacle, TriMesh};
use armature::kinematics::UrdfOptions;
use armature::{PathReport, PathStatus, Pipeline, Scene};
use glam::{DAffine3, DVec3};
use serde_json::{Value, json};

/// The robot, from the repository root.
const ROBOT: &str = "data/robots/irb2400/irb2400_welder.urdf";

/// The body's name in the scenes (links are `welder/<link>`).
const BODY: &str = "welder";

/// Joints 2–6 during the turn (radians): the upper arm leans 60° forward
/// and the forearm 30° further, so the forearm and the tool axis point
/// straight down and the bent torch tip is the lowest point.
const POSE: [f64; 5] = [
    std::f64::consts::FRAC_PI_3,
    std::f64::consts::FRAC_PI_6,
    0.0,
    0.0,
    0.0,
];

/// Triangles' grid of a top face: about 8,000 triangles (2 per cell).
const FLOOR_GRID: (usize, usize) = (63, 63);
/// The box of case (b): 0.6 m × 0.6 m, a square grid.
const BOX_GRID: (usize, usize) = (63, 63);
/// The narrow box of case (c): 0.6 m radially, 0.15 m across the circle.
const NARROW_GRID: (usize, usize) = (126, 32);

/// The clearances of the clearance rows, as multiples of `ε`.
const CLEARANCE_FACTORS: [f64; 2] = [1.01, 2.0];

/// One of the three scenes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Case {
    /// (a) a floor under the whole turn.
    Floor,
    /// (b) a box under part of the turn.
    Box,
    /// (c) a narrower box.
    NarrowBox,
}

impl Case {
    const ALL: [Self; 3] = [Self::Floor, Self::Box, Self::NarrowBox];

    const fn label(self) -> &'static str {
        match self {
            Self::Floor => "(a) floor",
            Self::Box => "(b) box",
            Self::NarrowBox => "(c) narrow box",
        }
    }

    const fn key(self) -> &'static str {
        match self {
            Self::Floor => "floor",
            Self::Box => "box",
            Self::NarrowBox => "narrow_box",
        }
    }
}

/// A scene of one case with its path and the clearance it was built for.
pub(crate) struct BadCase {
    /// The scene: the robot and the case's obstacles.
    pub(crate) scene: Scene,
    /// The path: one full turn about joint 1.
    pub(crate) path: [Vec<f64>; 2],
    /// The smallest distance between the moving links and the grazed
    /// obstacle over the turn, by construction.
    pub(crate) clearance: f64,
}

/// The configuration at joint-1 angle `theta`.
fn config(theta: f64) -> Vec<f64> {
    std::iter::once(theta).chain(POSE).collect()
}

/// The robot alone, at `base`.
fn robot(root: &Path, base: DAffine3) -> Result<armature::SceneBuilder> {
    let urdf = root.join(ROBOT);
    Scene::builder()
        .urdf_body(BODY, &urdf, &UrdfOptions::default(), base)
        .with_context(|| format!("loading {}", urdf.display()))
}

/// The lowest point over the links that joint 1 moves, at `q` (world
/// frame): the smallest height of their mesh vertices.
fn lowest_moving_point(scene: &Scene, q: &[f64]) -> Result<DVec3> {
    let tree = scene.body().tree();
    let poses = tree.poses(q).context("forward kinematics")?;
    let mut turned = q.to_vec();
    turned[0] += 1.0;
    let moved = tree.poses(&turned).context("forward kinematics")?;
    let mut lowest: Option<DVec3> = None;
    for ((link, pose), other) in scene.body().links().iter().zip(&poses).zip(&moved) {
        // A link joint 1 does not carry keeps its pose when q1 changes.
        let Some(link) = link else { continue };
        if pose.abs_diff_eq(*other, 1e-12) {
            continue;
        }
        for v in link.mesh.vertices() {
            let w = pose.transform_point3(*v);
            if lowest.is_none_or(|l| w.z < l.z) {
                lowest = Some(w);
            }
        }
    }
    lowest.context("no link moves with joint 1")
}

/// A closed box `min..max` whose top face is an `nx × ny` grid (two
/// triangles per cell); each side is a fan from one bottom corner over the
/// top face's boundary vertices, the bottom two triangles. Outward
/// oriented.
fn slab(min: DVec3, max: DVec3, (nx, ny): (usize, usize)) -> Result<TriMesh> {
    ensure!(nx >= 1 && ny >= 1, "a grid needs at least one cell");
    let top = |i: usize, j: usize| (i * (ny + 1) + j) as u32;
    let mut v = Vec::with_capacity((nx + 1) * (ny + 1) + 4);
    for i in 0..=nx {
        for j in 0..=ny {
            let x = min.x + (max.x - min.x) * i as f64 / nx as f64;
            let y = min.y + (max.y - min.y) * j as f64 / ny as f64;
            v.push(DVec3::new(x, y, max.z));
        }
    }
    let b0 = v.len() as u32;
    for (x, y) in [
        (min.x, min.y),
        (max.x, min.y),
        (max.x, max.y),
        (min.x, max.y),
    ] {
        v.push(DVec3::new(x, y, min.z));
    }
    let mut t = Vec::with_capacity(2 * nx * ny + 2 * (nx + ny) + 6);
    for i in 0..nx {
        for j in 0..ny {
            // Counter-clockwise seen from above: normal +z.
            let (a, b, c, d) = (top(i, j), top(i + 1, j), top(i + 1, j + 1), top(i, j + 1));
            t.push([a, b, c]);
            t.push([a, c, d]);
        }
    }
    // The top face's boundary, counter-clockwise from above, one run per
    // side starting above bottom corner k.
    let sides: [Vec<u32>; 4] = [
        (0..=nx).map(|i| top(i, 0)).collect(),
        (0..=ny).map(|j| top(nx, j)).collect(),
        (0..=nx).rev().map(|i| top(i, ny)).collect(),
        (0..=ny).rev().map(|j| top(0, j)).collect(),
    ];
    for (k, run) in sides.iter().enumerate() {
        let (bk, bnext) = (b0 + k as u32, b0 + ((k + 1) % 4) as u32);
        // Each boundary edge traversed against the top face's direction.
        for w in run.windows(2) {
            t.push([bk, w[1], w[0]]);
        }
        if let Some(&last) = run.last() {
            t.push([bk, bnext, last]);
        }
    }
    t.push([b0, b0 + 3, b0 + 2]);
    t.push([b0, b0 + 2, b0 + 1]);
    TriMesh::new(v, t).context("a grid slab")
}

/// An obstacle on [`slab`].
fn slab_obstacle(name: &str, min: DVec3, max: DVec3, grid: (usize, usize)) -> Result<Obstacle> {
    Obstacle::fixed(name, Arc::new(slab(min, max, grid)?), DAffine3::IDENTITY)
        .with_context(|| format!("obstacle `{name}`"))
}

/// The scene of `case` with clearance `c` between the lowest moving point
/// and the grazed obstacle's top face.
pub(crate) fn build(root: &Path, case: Case, c: f64) -> Result<BadCase> {
    ensure!(c.is_finite() && c > 0.0, "clearance {c} must be positive");
    let q = config(-std::f64::consts::PI);
    let alone = robot(root, DAffine3::IDENTITY)?
        .build()
        .context("the robot alone")?;
    let low = lowest_moving_point(&alone, &q)?;
    // The circle the lowest point traces, and the height of the top face.
    let radius = low.truncate().length();
    let top = low.z - c;
    let builder = robot(root, DAffine3::IDENTITY)?;
    let builder = match case {
        Case::Floor => builder.obstacle(slab_obstacle(
            "floor",
            DVec3::new(-1.2, -1.2, top - 0.05),
            DVec3::new(1.2, 1.2, top),
            FLOOR_GRID,
        )?),
        Case::Box | Case::NarrowBox => {
            let foot = alone
                .body()
                .links()
                .first()
                .and_then(Option::as_ref)
                .context("the base link has no mesh")?
                .mesh
                .vertices()
                .iter()
                .map(|v| v.z)
                .fold(f64::INFINITY, f64::min);
            let half = if case == Case::Box { 0.3 } else { 0.075 };
            let grid = if case == Case::Box {
                BOX_GRID
            } else {
                NARROW_GRID
            };
            // The box sits on the +x axis, which the lowest point crosses
            // halfway through the turn (q1 = 0).
            builder
                .obstacle(
                    Obstacle::fixed(
                        "pedestal",
                        Arc::new(slab(
                            DVec3::new(-0.3, -0.3, foot - 0.6),
                            DVec3::new(0.3, 0.3, foot),
                            (1, 1),
                        )?),
                        DAffine3::IDENTITY,
                    )
                    .context("obstacle `pedestal`")?,
                )
                .obstacle(slab_obstacle(
                    "box",
                    DVec3::new(radius - 0.3, -half, top - 0.4),
                    DVec3::new(radius + 0.3, half, top),
                    grid,
                )?)
                .disable_pair(format!("{BODY}/base"), "pedestal")
        }
    };
    let scene = builder.build().context("the bad-case scene")?;
    Ok(BadCase {
        scene,
        path: [config(-std::f64::consts::PI), config(std::f64::consts::PI)],
        clearance: c,
    })
}

/// One measured row.
struct Row {
    case: Case,
    eps: f64,
    clearance: f64,
    refined: bool,
    report: PathReport,
    ms: f64,
}

/// The median of `runs` timed checks (the last report kept: every run
/// gives the same answer and counts).
fn measure(bad: &BadCase, eps: f64, refined: bool, runs: usize) -> Result<(PathReport, f64)> {
    let pipeline = Pipeline::builder()
        .path_clearance(eps)
        .refined_bisection(refined)
        .build()?;
    let mut times = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        let report = pipeline.check_path(&bad.scene, &bad.path)?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
        last = Some(report);
    }
    times.sort_by(f64::total_cmp);
    let report = last.context("at least one run")?;
    Ok((report, times[times.len() / 2]))
}

/// What [`run`] found.
pub(crate) struct BadCaseReport {
    /// The markdown section.
    pub(crate) markdown: String,
    /// The rows as JSON.
    pub(crate) json: Value,
    /// Rows whose answer is not [`PathStatus::Free`].
    pub(crate) failures: Vec<String>,
}

/// Runs the bad cases: every case, `ε` ∈ {0.01, 0.001} m, `c = 1.01 ε` and
/// `2ε`, the plain and the REFINED checker, median of 3 runs; `quick`:
/// case (a), `ε` = 0.01, `c = 1.01 ε`, one run of each checker.
///
/// # Errors
/// The robot that does not load, a scene that does not build, a path
/// check that errs.
pub(crate) fn run(root: &Path, quick: bool) -> Result<BadCaseReport> {
    let (cases, epsilons, factors, runs): (&[Case], &[f64], &[f64], usize) = if quick {
        (&[Case::Floor], &[0.01], &CLEARANCE_FACTORS[..1], 1)
    } else {
        (&Case::ALL, &[0.01, 0.001], &CLEARANCE_FACTORS, 3)
    };
    let mut rows = Vec::new();
    for &case in cases {
        for &eps in epsilons {
            for &factor in factors {
                let bad = build(root, case, factor * eps)?;
                for refined in [false, true] {
                    let (report, ms) = measure(&bad, eps, refined, runs)?;
                    eprintln!(
                        "bad case {} ε = {eps} c = {:.5}{}: {:?} in {ms:.1} ms, {} pops",
                        case.label(),
                        bad.clearance,
                        if refined { " refined" } else { "" },
                        report.status,
                        report.stats.queue_pops
                    );
                    rows.push(Row {
                        case,
                        eps,
                        clearance: bad.clearance,
                        refined,
                        report,
                        ms,
                    });
                }
            }
        }
    }
    // The plain checker must end free within the budget; the REFINED
    // variant must never answer "collides" (the clearance is above ε), and
    // its running out of budget is reported, not failed: its budget counts
    // pairs of volumes, many more pops per segment than the plain one's.
    let failures = rows
        .iter()
        .filter(|r| {
            r.report.status == PathStatus::Collides
                || (!r.refined && r.report.status != PathStatus::Free)
        })
        .map(|r| {
            format!(
                "bad case {} ε = {} c = {:.5} ({}): {:?} after {} queue pops, expected Free",
                r.case.label(),
                r.eps,
                r.clearance,
                variant(r.refined),
                r.report.status,
                r.report.stats.queue_pops
            )
        })
        .collect();
    Ok(BadCaseReport {
        markdown: markdown(&rows, quick, runs),
        json: Value::Array(rows.iter().map(row_json).collect()),
        failures,
    })
}

const fn variant(refined: bool) -> &'static str {
    if refined { "refined" } else { "plain" }
}

fn row_json(r: &Row) -> Value {
    let s = &r.report.stats;
    json!({
        "case": r.case.key(),
        "epsilon": r.eps,
        "clearance": r.clearance,
        "variant": variant(r.refined),
        "status": format!("{:?}", r.report.status),
        "ms": r.ms,
        "queue_pops": s.queue_pops,
        "greedy_calls": s.greedy_calls,
        "bv_tests": s.bv_tests,
        "triangle_tests": s.triangle_tests,
    })
}

fn markdown(rows: &[Row], quick: bool, runs: usize) -> String {
    let mut s = String::from("### Bad cases (M2 Fig. 14)\n\n");
    let _ = writeln!(
        s,
        "The welding robot turns once about its first joint (one segment, `q1` from −π to π) with \
         the torch tip a constant `c` above (a) a floor under the whole turn, (b) a box under about \
         an eighth of it, (c) a narrower box under about a thirtieth; every top face has about \
         8,000 triangles. Path clearance `ε`, default budget (1,000,000 queue pops); time is the median \
         of {runs} run{} on one thread{}.\n",
        if runs == 1 { "" } else { "s" },
        if quick {
            " (`--quick`: case (a) only)"
        } else {
            ""
        }
    );
    s.push_str(
        "| case | ε (m) | clearance c (m) | variant | status | ms | pops | distance calls | BV tests | triangle tests |\n\
         |---|---:|---:|---|---|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        let st = &r.report.stats;
        let _ = writeln!(
            s,
            "| {} | {} | {:.5} | {} | {:?} | {:.1} | {} | {} | {} | {} |",
            r.case.label(),
            r.eps,
            r.clearance,
            variant(r.refined),
            r.report.status,
            r.ms,
            st.queue_pops,
            st.greedy_calls,
            st.bv_tests,
            st.triangle_tests
        );
    }
    s.push_str(
        "\nThe checker must sample the turn finely wherever the torch is within a few `ε` of a \
         face: over the whole turn above the floor, over a part of it above the boxes. Every row \
         should be Free (the clearance is above `ε` everywhere), and the plain checker's must \
         be (the run fails otherwise; a REFINED row that runs out of budget is reported, since \
         its pops are pairs of volumes, not pairs of objects); the work should grow as `ε` \
         shrinks and fall with the length of the close section, from (a) to (c), as in M2 Tables \
         VIII–X, where the work concentrates on the critical part of the segment.\n",
    );
    let wrong: Vec<String> = rows
        .iter()
        .filter(|r| r.report.status != PathStatus::Free)
        .map(|r| {
            format!(
                "{} ε = {} c = {:.5} {}: {:?}",
                r.case.label(),
                r.eps,
                r.clearance,
                variant(r.refined),
                r.report.status
            )
        })
        .collect();
    if !wrong.is_empty() {
        let _ = writeln!(
            s,
            "\n**Not Free ({} of {} rows):** {}.",
            wrong.len(),
            rows.len(),
            wrong.join("; ")
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use armature::geometry::MeshTopology;

    use crate::bench::root;

    #[test]
    fn slabs_are_closed_outward_boxes() {
        let (min, max) = (DVec3::new(-1.0, -0.5, -0.2), DVec3::new(1.0, 0.5, 0.0));
        let m = slab(min, max, (7, 3)).expect("a slab");
        assert_eq!(m.triangles().len(), 2 * 7 * 3 + 2 * (7 + 3) + 4 + 2);
        assert!(MeshTopology::new(&m).is_closed());
        // Positive signed volume: outward normals.
        let volume: f64 = m.triangles().map(|[a, b, c]| a.dot(b.cross(c)) / 6.0).sum();
        assert!((volume - 2.0 * 1.0 * 0.2).abs() < 1e-12, "{volume}");
        let floor = slab(min, max, FLOOR_GRID).expect("a slab");
        let on_top = floor
            .triangles()
            .filter(|t| t.iter().all(|v| v.z == max.z))
            .count();
        assert!((7_900..=8_200).contains(&on_top), "{on_top}");
    }

    /// The smallest distance over the turn (64 angles, `q1 = 0` among
    /// them) is the clearance the scene was built for.
    #[test]
    fn constructed_clearance_is_the_claimed_one() {
        let pipeline = Pipeline::builder().build().expect("default options");
        for case in Case::ALL {
            let c = 0.0101;
            let bad = build(&root(), case, c).expect("the scene builds");
            let mut min = f64::INFINITY;
            let mut closest = None;
            for k in 0..64 {
                let theta = -std::f64::consts::PI + std::f64::consts::TAU * f64::from(k) / 64.0;
                let report = pipeline.check(&bad.scene, &config(theta)).expect("check");
                assert!(!report.colliding, "{case:?} at {theta}");
                if report.distance < min {
                    min = report.distance;
                    closest = report.closest;
                }
            }
            assert!(
                (min - c).abs() <= 0.01 * c,
                "{case:?}: smallest distance {min}, built for {c}: {closest:?}"
            );
            let obstacle = match closest.map(|w| w.other) {
                Some(armature::Other::Obstacle(o)) => bad.scene.obstacles()[o].name().to_owned(),
                other => panic!("{case:?}: closest pair {other:?}"),
            };
            let expected = if case == Case::Floor { "floor" } else { "box" };
            assert_eq!(obstacle, expected, "{case:?}");
        }
    }

    #[test]
    fn quick_floor_case_is_free() {
        let report = run(&root(), true).expect("the bad cases run");
        assert!(report.failures.is_empty(), "{:?}", report.failures);
        assert!(report.markdown.contains("### Bad cases (M2 Fig. 14)"));
        assert!(
            report
                .markdown
                .contains("| (a) floor | 0.01 | 0.01010 | plain | Free |")
        );
        assert_eq!(report.json.as_array().map(Vec::len), Some(2));
    }

    /// The full table in release: `cargo test --release -p xtask --
    /// --ignored --nocapture badcases`.
    #[test]
    #[ignore = "minutes of work; run in release"]
    fn print_default_badcases() {
        let report = run(&root(), false).expect("the bad cases run");
        println!("{}", report.markdown);
        assert!(report.failures.is_empty(), "{:?}", report.failures);
    }
}
