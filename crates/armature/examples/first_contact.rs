//! # First contact of one motion
//!
//! Loads a scene file (URDF robots with their meshes, STL / OBJ obstacles;
//! docs/architecture.md), runs one continuous collision query and prints the first
//! contact: its time, the pair, the features and the witness point.
//!
//! ```text
//! cargo run -p armature --example first_contact -- [scene.ron] [q0] [q1]
//! ```
//!
//! `q0` and `q1` are comma-separated joint values (radians, metres) in the
//! order the scene lists its joints (printed first). Without them the
//! motion goes from the middle of every joint's range to 80 % of the way
//! to its upper limit (one radian for a joint without limits). The scene
//! defaults to the two-arm test cell of the crate's fixtures.

use std::process::ExitCode;

use armature::{Error, Pipeline, Scene};

const DEFAULT_SCENE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/cell.ron");

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().map_or(DEFAULT_SCENE, String::as_str);
    let scene = Scene::from_file(path)?;
    println!(
        "scene {path}: {} bodies, {} links ({} triangles), {} obstacles ({} triangles)",
        scene.bodies().len(),
        scene.num_links(),
        scene.num_link_triangles(),
        scene.obstacles().len(),
        scene.num_obstacle_triangles(),
    );
    let joints = scene.joints();
    for j in &joints {
        let limits = j.limits.map_or_else(
            || "no limits".to_owned(),
            |(lo, hi)| format!("[{lo}, {hi}]"),
        );
        println!(
            "  joint {:>2}  {:<24} {:<10} {limits}",
            j.q.start, j.name, j.kind
        );
    }

    let (q0, q1) = match (args.get(1), args.get(2)) {
        (Some(a), Some(b)) => (
            scene.parse_configuration("q0", a)?,
            scene.parse_configuration("q1", b)?,
        ),
        _ => {
            let mut q0 = vec![0.0; scene.nq()];
            let mut q1 = q0.clone();
            for j in &joints {
                // One-value joints only; others keep their zero.
                if j.q.len() == 1 {
                    let (lo, hi) = j.limits.unwrap_or((-1.0, 1.0));
                    q0[j.q.start] = 0.5 * (lo + hi);
                    q1[j.q.start] = q0[j.q.start] + 0.8 * (hi - q0[j.q.start]);
                }
            }
            (q0, q1)
        }
    };
    println!("q0 = {q0:.3?}\nq1 = {q1:.3?}");

    let pipeline = Pipeline::builder().build()?;
    let report = pipeline.first_contact(&scene, &q0, &q1)?;
    println!(
        "status {:?}, time of contact ≥ {:.6}",
        report.status, report.toc_lower_bound
    );
    match report.contact {
        Some(c) => {
            let name = |n: Option<&str>| n.unwrap_or("?").to_owned();
            println!(
                "first contact at t = {:.6} between {} (triangle {}) and {} (triangle {})",
                c.time,
                name(scene.link_name(c.link)),
                c.triangle_a,
                name(scene.other_name(c.other)),
                c.triangle_b,
            );
            println!(
                "  distance {:.3e}, point {:.4?}, normal {:.4?}",
                c.distance,
                c.point.to_array(),
                c.normal.to_array()
            );
        }
        None => println!("no contact"),
    }
    Ok(())
}
