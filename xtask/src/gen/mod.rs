//! `cargo xtask gen-data`: the robots (Puma 560, a skinny 20-DOF arm, an
//! IRB 2400-like arm with and without a welding torch, a mobile Puma, a
//! hand, a humanoid mobile manipulator) and the scenes (*pipes*, *AMR*,
//! the thin-obstacle scenes *skinny tori*, *welder cage* and *arms car*,
//! the penetration-depth scenes *pd puma car* and *pd hand bottle*, and
//! the humanoid's *lab* with and without its mobile base), generated
//! deterministically into `data/`.
//!
//! **What.** [`generate`] builds every file in memory from fixed seeds and
//! recipes in code ([`puma`], [`pipes`], [`amr`], [`skinny`], [`irb`],
//! [`cage`], [`car`], [`pd`], [`humanoid`]); the command writes them
//! under `data/` (`gen-data`), compares them with the files there
//! (`gen-data --check`, also a test), or measures how dense the scenes are
//! for the benchmark (`gen-data --stats`, see [`stats`]).
//!
//! **Why generated.** The benchmark needs scenes of a known size and
//! density (docs/architecture.md: at θmax = 30° between 20 % and 80 % of random
//! motions collide); recipes keep them reviewable, and the check keeps the
//! committed bytes honest. The thin-obstacle scenes follow the examples of
//! adaptive bisection (Zhang, Kim and Manocha): thin rings, a thin torch
//! among thin bars, several arms around one body, where sampling a motion
//! at a fixed resolution steps over collisions.
//!
//! **Determinism.** The layouts draw from [`rng::SplitMix64`] streams with
//! fixed seeds, iterate in fixed order, and write numbers with fixed
//! formatting ([`mod@write`]), so every run writes the same bytes.

pub(crate) mod amr;
pub(crate) mod cage;
pub(crate) mod car;
pub(crate) mod humanoid;
pub(crate) mod irb;
pub(crate) mod layout;
pub(crate) mod mesh;
pub(crate) mod pd;
pub(crate) mod pipes;
pub(crate) mod puma;
pub(crate) mod rng;
pub(crate) mod robot;
pub(crate) mod skinny;
pub(crate) mod stats;
pub(crate) mod write;

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};

use mesh::Part;
use write::{BodyEntry, ObstacleEntry, obj, scene_ron_bodies};

/// Printed by `cargo xtask gen-data --help`.
pub(crate) const USAGE: &str = "\
Usage: cargo xtask gen-data [OPTIONS]

Generates the robots (Puma 560, skinny20, irb2400, puma560_mobile, hand25,
humanoid) and the scenes (pipes, amr, skinny_tori, welder_cage, arms_car,
pd_puma_car, pd_hand_bottle, humanoid_lab, humanoid_arms) into data/
(deterministic: the same bytes on every run).

Options:
  --check          Regenerate in memory and compare with data/; fails naming
                   the first missing or differing file
  --stats          Measure the committed scenes' density for the benchmark:
                   the free fraction of random start configurations and the
                   colliding fraction of random motions per θmax (build with
                   --release: cargo run --release -p xtask -- gen-data --stats)
  --queries N      Motions per θmax for --stats (default 400)
  --seed S         Seed of the --stats queries (default 2024)
  --scene NAME     Only this scene for --stats (pipes, amr, skinny_tori,
                   welder_cage or arms_car)
  -h, --help       Print this message
";

/// What `gen-data` does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum GenData {
    /// Print [`USAGE`].
    Help,
    /// Write the files.
    Write,
    /// Compare the files with a fresh generation.
    Check,
    /// Measure the scenes.
    Stats(stats::StatsOptions),
}

/// Sets the mode once; a second mode option is an error naming it.
fn set_mode(m: GenData, mode: &mut Option<GenData>, arg: &str) -> Result<(), String> {
    match mode {
        Some(_) => Err(format!("`{arg}` conflicts with an earlier mode option")),
        None => {
            *mode = Some(m);
            Ok(())
        }
    }
}

/// Parses the arguments after `gen-data`.
///
/// # Errors
/// A message naming the unknown option or the bad value.
pub(crate) fn parse(args: &[String]) -> Result<GenData, String> {
    let mut mode = None;
    let mut options = stats::StatsOptions::default();
    let mut stats_only = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("`{name}` needs a value"))
        };
        match arg.as_str() {
            "-h" | "--help" => return Ok(GenData::Help),
            "--check" => set_mode(GenData::Check, &mut mode, arg)?,
            "--stats" => set_mode(GenData::Stats(options.clone()), &mut mode, arg)?,
            "--queries" => {
                let v = value(arg)?;
                options.queries = v
                    .parse()
                    .ok()
                    .filter(|&n: &usize| n > 0)
                    .ok_or_else(|| format!("`--queries {v}`: expected a positive integer"))?;
                stats_only.push(arg.clone());
            }
            "--seed" => {
                let v = value(arg)?;
                options.seed = v
                    .parse()
                    .map_err(|_| format!("`--seed {v}`: expected an unsigned integer"))?;
                stats_only.push(arg.clone());
            }
            "--scene" => {
                let v = value(arg)?;
                if !SCENES.contains(&v.as_str()) {
                    return Err(format!(
                        "`--scene {v}`: expected one of {}",
                        SCENES.join(", ")
                    ));
                }
                options.scene = Some(v);
                stats_only.push(arg.clone());
            }
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    match mode {
        Some(GenData::Stats(_)) => Ok(GenData::Stats(options)),
        _ if !stats_only.is_empty() => Err(format!("`{}` needs `--stats`", stats_only[0])),
        Some(m) => Ok(m),
        None => Ok(GenData::Write),
    }
}

/// The scenes, by name.
pub(crate) const SCENES: [&str; 5] = ["pipes", "amr", "skinny_tori", "welder_cage", "arms_car"];

/// The penetration-depth scenes, by name (generated by [`pd`]; not
/// measured by `--stats`).
pub(crate) const PD_SCENES: [&str; 2] = ["pd_puma_car", "pd_hand_bottle"];

/// The repository root (the parent of the xtask crate).
pub(crate) fn repo_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

/// One generated file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GeneratedFile {
    /// Path relative to the repository root, `/`-separated.
    pub(crate) path: String,
    /// Contents.
    pub(crate) bytes: Vec<u8>,
}

/// A scene: its bodies, and its obstacles in named zones, each one OBJ
/// file of objects.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scene {
    /// One of [`SCENES`].
    pub(crate) name: String,
    /// `(zone name, objects)` in file order.
    pub(crate) zones: Vec<(String, Vec<Part>)>,
    /// The bodies (empty: the Puma at the origin).
    pub(crate) bodies: Vec<BodyEntry>,
    /// The scene file, relative to the repository root (empty:
    /// `data/scenes/puma_<name>.ron`).
    pub(crate) ron: String,
    /// For `--stats`: the most any point of the robots may move between
    /// two samples of a motion, in metres, on top of the joint-space step
    /// ([`stats::STEP_DEG`]); `None`: the joint-space step alone.
    pub(crate) max_step: Option<f64>,
}

impl Scene {
    /// Number of objects (OBJ `o` groups).
    pub(crate) fn objects(&self) -> usize {
        self.zones.iter().map(|(_, parts)| parts.len()).sum()
    }

    /// Number of triangles.
    pub(crate) fn triangles(&self) -> usize {
        self.zones
            .iter()
            .flat_map(|(_, parts)| parts)
            .map(Part::triangle_count)
            .sum()
    }

    /// The scene file's obstacle entries.
    pub(crate) fn entries(&self) -> Vec<ObstacleEntry> {
        self.zones
            .iter()
            .map(|(zone, _)| ObstacleEntry {
                name: format!("{}_{zone}", self.name),
                mesh: format!("{}/{zone}.obj", self.name),
            })
            .collect()
    }

    /// The scene file's path relative to the repository root.
    pub(crate) fn ron_path(&self) -> String {
        if self.ron.is_empty() {
            format!("data/scenes/puma_{}.ron", self.name)
        } else {
            self.ron.clone()
        }
    }

    /// The scene file's bodies.
    pub(crate) fn body_entries(&self) -> Vec<BodyEntry> {
        if self.bodies.is_empty() {
            vec![BodyEntry {
                name: "puma".to_owned(),
                urdf: format!("../robots/{0}/{0}.urdf", puma::ROBOT),
                translation: glam::DVec3::ZERO,
                yaw_deg: 0.0,
            }]
        } else {
            self.bodies.clone()
        }
    }
}

/// Builds the scene called `name`.
///
/// # Errors
/// When `name` is not one of [`SCENES`], or a layout fails its own checks.
pub(crate) fn scene(name: &str) -> Result<Scene> {
    match name {
        "pipes" => pipes::generate(),
        "amr" => amr::generate(),
        "skinny_tori" => Ok(skinny::generate()),
        "welder_cage" => Ok(cage::generate()),
        "arms_car" => Ok(car::generate()),
        other => bail!("unknown scene `{other}`"),
    }
}

/// Counts reported in `data/README.md`.
struct Summary {
    robot_triangles: usize,
    /// `(robot, links, movable joints, triangles)` of the generic robots.
    robots: Vec<(String, usize, usize, usize)>,
    scenes: Vec<(String, usize, usize, usize)>,
}

/// The folders whose every file is generated (cleared before writing, and
/// checked for stale files).
const GENERATED_DIRS: [&str; 13] = [
    "data/scenes/pipes",
    "data/scenes/amr",
    "data/scenes/skinny_tori",
    "data/scenes/welder_cage",
    "data/scenes/arms_car",
    "data/scenes/pd_puma_car",
    "data/scenes/pd_hand_bottle",
    "data/robots/puma560/meshes",
    "data/robots/skinny20/meshes",
    "data/robots/irb2400/meshes",
    "data/robots/hand25/meshes",
    "data/scenes/humanoid_lab",
    "data/robots/humanoid/meshes",
];

/// Every generated file, in a fixed order, with progress on stderr.
///
/// # Errors
/// When a layout fails its own checks.
pub(crate) fn generate() -> Result<Vec<GeneratedFile>> {
    let mut files = Vec::new();
    let start = Instant::now();
    eprintln!("gen-data: robot {}", puma::ROBOT);
    for (path, bytes) in puma::files() {
        files.push(GeneratedFile {
            path: format!("data/robots/{}/{path}", puma::ROBOT),
            bytes,
        });
    }
    let robot_triangles = puma::links().iter().map(Part::triangle_count).sum();
    let mut summary = Summary {
        robot_triangles,
        robots: Vec::new(),
        scenes: Vec::new(),
    };
    for (robot, robot_files) in [
        (skinny::robot(), skinny::robot().files()),
        (irb::welder(), irb::files()),
    ] {
        let dir = if robot.name == irb::WELDER {
            irb::ROBOT
        } else {
            robot.name.as_str()
        };
        eprintln!("gen-data: robot {dir}");
        for (path, bytes) in robot_files {
            files.push(GeneratedFile {
                path: format!("data/robots/{dir}/{path}"),
                bytes,
            });
        }
        summary.robots.push((
            dir.to_owned(),
            robot.links.len(),
            robot.dof(),
            robot.triangles(),
        ));
    }
    for name in SCENES {
        let t = Instant::now();
        let scene = scene(name)?;
        for (zone, parts) in &scene.zones {
            let title = format!("{name} {zone}");
            files.push(GeneratedFile {
                path: format!("data/scenes/{name}/{zone}.obj"),
                bytes: obj(&title, parts).into_bytes(),
            });
        }
        files.push(GeneratedFile {
            path: scene.ron_path(),
            bytes: scene_ron_bodies(&scene.body_entries(), &scene.entries()).into_bytes(),
        });
        eprintln!(
            "gen-data: scene {name}: {} files, {} objects, {} triangles ({:.1} s)",
            scene.zones.len(),
            scene.objects(),
            scene.triangles(),
            t.elapsed().as_secs_f64()
        );
        summary.scenes.push((
            name.to_owned(),
            scene.zones.len(),
            scene.objects(),
            scene.triangles(),
        ));
    }
    eprintln!("gen-data: penetration-depth robots and scenes");
    files.extend(pd::files()?);
    eprintln!("gen-data: humanoid and its lab");
    files.extend(humanoid::files());
    files.push(GeneratedFile {
        path: "data/README.md".to_owned(),
        bytes: readme(&summary).into_bytes(),
    });
    eprintln!(
        "gen-data: {} files generated in {:.1} s",
        files.len(),
        start.elapsed().as_secs_f64()
    );
    Ok(files)
}

/// Writes every file under `root`.
///
/// # Errors
/// When a layout fails or a file cannot be written (naming it).
pub(crate) fn write_all(root: &Path) -> Result<()> {
    let files = generate()?;
    // Stale files of an older layout (a zone that no longer exists) would
    // linger unnoticed: the generated folders are cleared first.
    for dir in GENERATED_DIRS {
        let dir = root.join(dir);
        if dir.exists() {
            std::fs::remove_dir_all(&dir)
                .with_context(|| format!("cannot clear `{}`", dir.display()))?;
        }
    }
    for f in &files {
        let path = root.join(&f.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create `{}`", parent.display()))?;
        }
        std::fs::write(&path, &f.bytes)
            .with_context(|| format!("cannot write `{}`", path.display()))?;
    }
    eprintln!(
        "gen-data: wrote {} files under {}",
        files.len(),
        root.join("data").display()
    );
    Ok(())
}

/// The first difference between `files` and the tree under `root`: a
/// missing or differing file, or an extra file in a generated folder.
pub(crate) fn first_difference(root: &Path, files: &[GeneratedFile]) -> Option<String> {
    for f in files {
        match std::fs::read(root.join(&f.path)) {
            Err(_) => return Some(format!("`{}` is missing", f.path)),
            Ok(bytes) if bytes != f.bytes => {
                return Some(format!("`{}` differs from the generator's output", f.path));
            }
            Ok(_) => {}
        }
    }
    for dir in GENERATED_DIRS {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        let mut names: Vec<String> = entries
            .filter_map(|e| e.ok())
            .map(|e| format!("{dir}/{}", e.file_name().to_string_lossy()))
            .collect();
        names.sort();
        if let Some(extra) = names.iter().find(|n| !files.iter().any(|f| &f.path == *n)) {
            return Some(format!("`{extra}` is not generated (stale file)"));
        }
    }
    None
}

/// Runs `gen-data` in `mode`.
///
/// # Errors
/// Generation, I/O, and a failed check (naming the first differing file).
pub(crate) fn run(mode: &GenData, out: &mut impl std::io::Write) -> Result<()> {
    let root = repo_root();
    match mode {
        GenData::Help => write!(out, "{USAGE}")?,
        GenData::Write => write_all(&root)?,
        GenData::Check => {
            let files = generate()?;
            if let Some(diff) = first_difference(&root, &files) {
                bail!("{diff}; run `cargo xtask gen-data` and commit the result");
            }
            writeln!(
                out,
                "gen-data: all {} files match the generator",
                files.len()
            )?;
        }
        GenData::Stats(options) => stats::run(&root, options, out)?,
    }
    Ok(())
}

/// `data/README.md`.
fn readme(s: &Summary) -> String {
    let mut rows = String::new();
    for (name, links, dof, triangles) in &s.robots {
        let (urdfs, what) = match name.as_str() {
            "skinny20" => (
                "`robots/skinny20/skinny20.urdf`",
                format!("skinny arm, {dof} revolute joints, links 2.5 cm thick, 2 m long"),
            ),
            _ => (
                "`robots/irb2400/irb2400.urdf`, `robots/irb2400/irb2400_welder.urdf`",
                format!(
                    "IRB 2400-like arm, {dof} joints; the welder variant adds a thin torch (fixed link)"
                ),
            ),
        };
        rows.push_str(&format!(
            "| {urdfs}, `robots/{name}/meshes/*.stl` | {what} | {links} | {links} links | {triangles} |\n"
        ));
    }
    for (name, files, objects, triangles) in &s.scenes {
        let what = match name.as_str() {
            "pipes" => {
                "plant piping around the arm: straight runs, elbows, tees, flanges, supports"
            }
            "amr" => {
                "auxiliary machine room: pumps, tanks, valves, pipes, cable trays, gratings, walls"
            }
            "skinny_tori" => "two skinny20 arms threading three thin tori",
            "welder_cage" => "the IRB 2400 welder in a cage of thin bars",
            _ => "six IRB 2400 arms around a car body",
        };
        let ron = if matches!(name.as_str(), "pipes" | "amr") {
            format!("puma_{name}")
        } else {
            name.clone()
        };
        rows.push_str(&format!(
            "| `scenes/{ron}.ron`, `scenes/{name}/*.obj` | {what} | {files} | {objects} | {triangles} |\n"
        ));
    }
    format!(
        "{}\n| files | what | mesh files | objects | triangles |\n|---|---|---|---|---|\n\
         | `robots/puma560/puma560.urdf`, `robots/puma560/meshes/*.stl` | Puma 560 (standard DH), solid link shapes | 7 | 7 links | {} |\n\
         {rows}{}{}{}{}{}",
        README_HEAD,
        s.robot_triangles,
        pd::readme_rows(),
        humanoid::readme_rows(),
        README_TAIL,
        pd::README_SECTION,
        humanoid::README_SECTION
    )
}

const README_HEAD: &str = "\
# data

Robot and scene descriptions used by the tests and the benchmark suite:
scene files in RON, robots in URDF, and triangle meshes (binary STL for the
robot's links, OBJ for the obstacles). None of it is drawn by hand: every
file here, this one included, is generated deterministically, from fixed
seeds and recipes in code (`xtask/src/gen/`), by `cargo xtask gen-data`, and
a test (`cargo test -p xtask`) checks that the committed files match what
the generator produces.

## Generated files

Scene files follow docs/architecture.md (paths relative to the scene file). Each
scene's obstacles are split by zone into several OBJ files, one obstacle
entry per file, so that spatial culling has something to cull; an OBJ
object (`o` group) is one pipe, elbow, valve, tank and so on. Coordinates
are metres with 5 decimals; in the pipes and AMR scenes the Puma stands at
the world origin, its shoulder at z = 0.67183.
";

const README_TAIL: &str = "
The Puma's frames follow the standard DH parameters (link i's frame is DH
frame i−1 turned by θi; see `xtask/src/gen/puma.rs`). Its home pose q = 0
(upper arm horizontal along +x, forearm vertical) is collision-free with
more than 2 cm to spare in both scenes, and non-adjacent links do not touch
there.

## Thin-obstacle scenes

Three scenes after the examples of adaptive bisection (Zhang, Kim and
Manocha), where sampling a motion at a fixed resolution steps over
collisions with thin parts. Every link and obstacle mesh is closed and
consistently wound; self-collision is on in all three (between the bodies
of one scene too).

- `skinny_tori.ron`: two `skinny20` arms (`robots/skinny20/`, 20 revolute
  joints, joint 1 about z, then alternately about y and x within ±60°;
  links 0.1 m long, 2.5 cm square) at x = ±0.25 m, and three thin tori
  around both, one above the other (ring radii 0.5, 0.45, 0.4 m; tube
  radii 1.5, 1.3, 1.2 cm; slightly tilted). At q = 0 the arms stand
  straight up inside the rings. See `xtask/src/gen/skinny.rs`.
- `welder_cage.ron`: the IRB 2400-like arm (`robots/irb2400/`, frames as
  the ROS-Industrial IRB 2400 description, the IRB 2400's joint ranges)
  with a thin arc-welding torch (`irb2400_welder.urdf`: a fixed link on
  the flange, a 1 cm tube bent by 45°) in a cage of 36 thin bars (2–2.5 cm
  boxes, 432 triangles): posts and rails at three heights on a 2.4 m
  square, a lattice roof at 2.1 m. See `xtask/src/gen/irb.rs` and
  `xtask/src/gen/cage.rs`.
- `arms_car.ron`: six plain IRB 2400-like arms (`irb2400.urdf`), three on
  each side at x = −1.5, 0, 1.5 m and y = ±1.78 m, facing a car body (one
  closed lofted mesh, 4.5 × 1.8 × 1.4 m: hood, cabin, trunk). See
  `xtask/src/gen/car.rs`.

Each home pose q = 0 is collision-free with more than 2 cm to spare.

## Regenerating and checking

```sh
cargo xtask gen-data            # write every file above
cargo xtask gen-data --check    # compare with a fresh generation, name the first difference
cargo run --release -p xtask -- gen-data --stats --queries 1000   # density statistics
cargo run --release -p xtask -- gen-data --stats --scene skinny_tori --queries 200
```

`--stats` draws benchmark queries as docs/architecture.md describes (q0 uniform
within the joint limits until collision-free, self-collision of
non-adjacent links included; q1 = q0 + δq, δq uniform in [−θmax, θmax] per
joint, clamped) and checks each motion by sampling it in joint-space steps
of at most 0.25°. It reports the free fraction of random q0 and the
colliding fraction per θmax; the scenes are tuned so that 20–80 % of the
motions collide at θmax = 30°. Measured with the command above (1000
queries per θmax, seed 2024):

| scene | free q0 | θmax 1° | 5° | 15° | 30° | 60° |
|---|---|---|---|---|---|---|
| pipes | 46.8 % | 2.4 % | 12.5 % | 29.8 % | 50.9 % | 63.4 % |
| AMR | 49.8 % | 3.7 % | 12.7 % | 29.8 % | 48.5 % | 66.2 % |

For the thin-obstacle scenes the samples are also at most 2 mm apart
(5 mm in `arms_car`) for every point of the robots (a bound on each
joint's turn times the reach of the links below it), and each colliding
motion is sampled again in joint steps of 1°, 2° and 5°: the last column
counts the colliding motions each of those coarser samplings finds free,
summed over θmax = 5° to 60° (800 motions). Measured with `--queries 200`
(seed 2024):

| scene | free q0 | θmax 1° | 5° | 15° | 30° | 60° | missed at 1° / 2° / 5°, θmax 5°–60° |
|---|---|---|---|---|---|---|---|
| skinny tori | 63.5 % | 5.5 % | 20.5 % | 51.0 % | 74.5 % | 89.5 % | 1 / 2 / 20 |
| welder cage | 88.9 % | 2.0 % | 3.0 % | 17.5 % | 29.5 % | 34.0 % | 0 / 7 / 22 |
| arms car | 45.8 % | 1.0 % | 9.0 % | 18.0 % | 30.0 % | 53.5 % | 0 / 0 / 0 |

The car is not thin: its collisions are found at every resolution; the
scene is there for the number of bodies (36 joints, arm–arm pairs).

(These figures are measured, not generated: rerun `--stats` after changing
a layout and update them here, in `xtask/src/gen/mod.rs`.)
";

#[cfg(test)]
mod tests {
    use super::{GenData, first_difference, generate, parse, repo_root};
    use crate::gen_data::stats::StatsOptions;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn committed_data_matches_the_generator() {
        let files = generate().unwrap();
        if let Some(diff) = first_difference(&repo_root(), &files) {
            panic!("{diff}: run `cargo xtask gen-data` and commit the result");
        }
    }

    #[test]
    fn thin_obstacle_scenes_load_without_warnings_and_closed() {
        for name in ["skinny_tori", "welder_cage", "arms_car"] {
            let spec = super::scene(name).unwrap();
            let path = repo_root().join(spec.ron_path());
            let scene = armature::Scene::from_file(&path).unwrap();
            assert!(
                scene.warnings().is_empty(),
                "{name}: {:?}",
                scene.warnings()
            );
            assert_eq!(scene.bodies().len(), spec.bodies.len(), "{name}");
            assert_eq!(scene.obstacles().len(), spec.zones.len(), "{name}");
            let tree = scene.body().tree();
            for (i, g) in scene.body().links().iter().enumerate() {
                let link = tree.links()[i].name();
                let g = g
                    .as_ref()
                    .unwrap_or_else(|| panic!("{name}: {link} has no mesh"));
                assert!(g.is_closed(), "{name}: link {link} is not closed");
            }
            for o in scene.obstacles() {
                assert!(
                    o.geometry().is_closed(),
                    "{name}: {} is not closed",
                    o.name()
                );
            }
        }
        let tori =
            armature::Scene::from_file(repo_root().join("data/scenes/skinny_tori.ron")).unwrap();
        assert_eq!(tori.nq(), 40);
        assert_eq!(
            tori.num_link_triangles(),
            2 * super::skinny::robot().triangles()
        );
        let car = armature::Scene::from_file(repo_root().join("data/scenes/arms_car.ron")).unwrap();
        assert_eq!(car.nq(), 36);
        let cage =
            armature::Scene::from_file(repo_root().join("data/scenes/welder_cage.ron")).unwrap();
        assert_eq!(cage.nq(), 6);
        assert_eq!(cage.num_obstacle_triangles(), 432);
    }

    #[test]
    fn options_parse() {
        assert_eq!(parse(&args(&[])), Ok(GenData::Write));
        assert_eq!(parse(&args(&["--check"])), Ok(GenData::Check));
        assert_eq!(parse(&args(&["--check", "-h"])), Ok(GenData::Help));
        assert_eq!(
            parse(&args(&["--queries", "50", "--stats", "--scene", "amr"])),
            Ok(GenData::Stats(StatsOptions {
                queries: 50,
                scene: Some("amr".to_owned()),
                ..StatsOptions::default()
            }))
        );
        for (bad, needle) in [
            (&["--frobnicate"][..], "--frobnicate"),
            (&["--queries", "0", "--stats"], "positive"),
            (&["--queries"], "needs a value"),
            (&["--queries", "5"], "needs `--stats`"),
            (&["--stats", "--scene", "moon"], "moon"),
            (&["--check", "--stats"], "conflicts"),
        ] {
            let err = parse(&args(bad)).unwrap_err();
            assert!(err.contains(needle), "{bad:?}: {err}");
        }
    }
}
