//! `armature info`: what a scene holds, and the order of a configuration.

use std::io::Write;

use armature::{LoadWarningKind, Scene, WarningSubject};
use clap::Args;
use serde::Serialize;

use crate::output::{num, pairs, range, table, write_json};
use crate::{Common, Failure};

/// Options of `armature info`.
#[derive(Debug, Args)]
pub(crate) struct InfoArgs {
    #[command(flatten)]
    common: Common,
}

/// The JSON answer of `info`.
#[derive(Debug, Serialize)]
struct InfoJson {
    scene: String,
    nq: usize,
    dof: usize,
    bodies: Vec<BodyJson>,
    joints: Vec<JointJson>,
    links: Vec<LinkJson>,
    obstacles: Vec<ObstacleJson>,
    triangles: TrianglesJson,
    self_collision: bool,
    distance_threshold: f64,
    disabled_pairs: Vec<[String; 2]>,
    /// Whether adjacent links are skipped (the scene's `skip_adjacent`).
    skip_adjacent: bool,
    /// What loading noticed and took anyway (dropped degenerate
    /// triangles), one sentence each; also printed on stderr.
    warnings: Vec<String>,
}

#[derive(Debug, Serialize)]
struct BodyJson {
    name: String,
    /// Number of links.
    links: usize,
    /// Number of configuration values.
    values: usize,
    /// The half-open range of its links in `links`.
    link_range: [usize; 2],
    /// The half-open range of its values in a configuration.
    q: [usize; 2],
}

#[derive(Debug, Serialize)]
struct JointJson {
    /// The half-open range of its values in a configuration.
    q: [usize; 2],
    name: String,
    body: String,
    link: String,
    kind: &'static str,
    /// `[lower, upper]`, or `null` when unlimited.
    limits: Option<[f64; 2]>,
}

#[derive(Debug, Serialize)]
struct LinkJson {
    name: String,
    body: String,
    /// 0 for a link without geometry.
    triangles: usize,
    /// Degenerate triangles of its meshes dropped on load.
    dropped_triangles: usize,
}

#[derive(Debug, Serialize)]
struct ObstacleJson {
    name: String,
    triangles: usize,
    /// Degenerate triangles of its mesh dropped on load.
    dropped_triangles: usize,
}

#[derive(Debug, Serialize)]
struct TrianglesJson {
    links: usize,
    obstacles: usize,
    total: usize,
}

/// Runs `armature info`.
pub(crate) fn run(args: &InfoArgs, out: &mut impl Write) -> Result<(), Failure> {
    let scene = crate::progress::load_scene(&args.common.scene, args.common.json)?;
    let info = describe(&scene, &args.common.scene.display().to_string());
    if args.common.json {
        write_json(out, &info)
    } else {
        out.write_all(human(&info).as_bytes())?;
        Ok(())
    }
}

fn describe(scene: &Scene, path: &str) -> InfoJson {
    let body = scene.body();
    let dropped = |subject: &dyn Fn(&WarningSubject) -> bool| {
        scene
            .warnings()
            .iter()
            .filter(|w| w.kind == LoadWarningKind::DroppedDegenerateTriangles && subject(&w.what))
            .map(|w| w.count)
            .sum::<usize>()
    };
    let owner = |link: usize| {
        scene
            .bodies()
            .iter()
            .find(|b| b.links.contains(&link))
            .map_or_else(String::new, |b| b.name.clone())
    };
    let links: Vec<LinkJson> = body
        .links()
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let name = scene.link_name(i).unwrap_or("?").to_owned();
            LinkJson {
                body: owner(i),
                triangles: g.as_ref().map_or(0, |g| g.mesh.num_triangles()),
                dropped_triangles: dropped(&|w| matches!(w, WarningSubject::Link(l) if *l == name)),
                name,
            }
        })
        .collect();
    let obstacles: Vec<ObstacleJson> = scene
        .obstacles()
        .iter()
        .map(|o| ObstacleJson {
            name: o.name().to_owned(),
            triangles: o.geometry().mesh.num_triangles(),
            dropped_triangles: dropped(
                &|w| matches!(w, WarningSubject::Obstacle(n) if n == o.name()),
            ),
        })
        .collect();
    // The scene keeps the resolved pairs only; listing them by testing
    // every pair is quadratic in links, which `info` can afford.
    let disabled = scene.disabled_pairs();
    let mut disabled_pairs = Vec::new();
    for i in 0..links.len() {
        for j in i + 1..links.len() {
            if disabled.links_disabled(i, j) {
                disabled_pairs.push([links[i].name.clone(), links[j].name.clone()]);
            }
        }
        for (o, obstacle) in obstacles.iter().enumerate() {
            if disabled.link_obstacle_disabled(i, o) {
                disabled_pairs.push([links[i].name.clone(), obstacle.name.clone()]);
            }
        }
    }
    let (link_triangles, obstacle_triangles) =
        (scene.num_link_triangles(), scene.num_obstacle_triangles());
    InfoJson {
        scene: path.to_owned(),
        nq: scene.nq(),
        dof: scene.dof(),
        bodies: scene
            .bodies()
            .iter()
            .map(|b| BodyJson {
                name: b.name.clone(),
                links: b.links.len(),
                values: b.q.len(),
                link_range: [b.links.start, b.links.end],
                q: [b.q.start, b.q.end],
            })
            .collect(),
        joints: scene
            .joints()
            .into_iter()
            .map(|j| JointJson {
                q: [j.q.start, j.q.end],
                name: j.name,
                body: j.body,
                link: j.link,
                kind: j.kind,
                limits: j.limits.map(|(lo, hi)| [lo, hi]),
            })
            .collect(),
        links,
        obstacles,
        triangles: TrianglesJson {
            links: link_triangles,
            obstacles: obstacle_triangles,
            total: link_triangles + obstacle_triangles,
        },
        self_collision: scene.self_collision(),
        distance_threshold: scene.distance_threshold(),
        disabled_pairs,
        skip_adjacent: scene.skip_adjacent(),
        warnings: scene.warnings().iter().map(ToString::to_string).collect(),
    }
}

fn human(info: &InfoJson) -> String {
    let mut text = pairs(&[
        ("scene", info.scene.clone()),
        ("values (nq)", info.nq.to_string()),
        ("degrees of freedom", info.dof.to_string()),
        (
            "triangles",
            format!(
                "{} ({} links, {} obstacles)",
                info.triangles.total, info.triangles.links, info.triangles.obstacles
            ),
        ),
        ("self collision", info.self_collision.to_string()),
        ("skip adjacent", info.skip_adjacent.to_string()),
        ("distance threshold", num(info.distance_threshold)),
    ]);
    text.push_str(&format!("\nbodies ({})\n", info.bodies.len()));
    let rows: Vec<Vec<String>> = info
        .bodies
        .iter()
        .map(|b| {
            vec![
                b.name.clone(),
                format!("{} links", b.links),
                format!("{} values", b.values),
                format!("q[{}]", range(b.q)),
            ]
        })
        .collect();
    text.push_str(&table(&rows, 2));
    text.push_str("\nconfiguration (values in this order)\n");
    let rows: Vec<Vec<String>> = info
        .joints
        .iter()
        .map(|j| {
            let at = if j.q[1] == j.q[0] + 1 {
                format!("q[{}]", j.q[0])
            } else {
                format!("q[{}]", range(j.q))
            };
            let limits = j.limits.map_or_else(
                || "unlimited".to_owned(),
                |[lo, hi]| format!("[{}, {}]", num(lo), num(hi)),
            );
            vec![at, j.name.clone(), j.kind.to_owned(), limits]
        })
        .collect();
    text.push_str(&table(&rows, 2));
    text.push_str(&format!("\nlinks ({})\n", info.links.len()));
    let rows: Vec<Vec<String>> = info
        .links
        .iter()
        .map(|l| vec![l.name.clone(), triangles(l.triangles, l.dropped_triangles)])
        .collect();
    text.push_str(&table(&rows, 2));
    text.push_str(&format!("\nobstacles ({})\n", info.obstacles.len()));
    let rows: Vec<Vec<String>> = info
        .obstacles
        .iter()
        .map(|o| vec![o.name.clone(), triangles(o.triangles, o.dropped_triangles)])
        .collect();
    text.push_str(&table(&rows, 2));
    text.push_str(&format!(
        "\ndisabled pairs ({})\n",
        info.disabled_pairs.len()
    ));
    let rows: Vec<Vec<String>> = info
        .disabled_pairs
        .iter()
        .map(|[a, b]| vec![a.clone(), b.clone()])
        .collect();
    text.push_str(&table(&rows, 2));
    if !info.warnings.is_empty() {
        text.push_str(&format!("\nwarnings ({})\n", info.warnings.len()));
        for w in &info.warnings {
            text.push_str(&format!("  {w}\n"));
        }
    }
    text
}

fn triangles(n: usize, dropped: usize) -> String {
    if n == 0 {
        "no geometry".to_owned()
    } else if dropped > 0 {
        format!("{n} triangles ({dropped} degenerate dropped)")
    } else {
        format!("{n} triangles")
    }
}
