//! `armature render`: a picture of the scene at one configuration, or at
//! the first contact of a motion.

use std::io::Write;
use std::path::{Path, PathBuf};

use armature::render::{Camera, SceneView, SurfaceStyle, write_png};
use armature::{CcdStatus, Error, Pipeline};
use clap::Args;
use glam::DVec3;
use serde::{Deserialize, Serialize};

use crate::output::{PairJson, configuration, num, pairs, vec3, write_json, xyz};
use crate::{Common, Failure};

/// Options of `armature render`.
#[derive(Debug, Args)]
pub(crate) struct RenderArgs {
    #[command(flatten)]
    common: Common,
    /// The configuration to draw: comma-separated joint values (radians,
    /// metres) in the order `armature info` prints.
    /// Default with `--state`: the state's configuration.
    #[arg(
        long,
        value_name = "Q",
        allow_hyphen_values = true,
        required_unless_present_any = ["from", "toc_of", "state"],
        conflicts_with_all = ["from", "to", "toc_of"]
    )]
    config: Option<String>,
    /// A motion given at once: `FROM;TO`, or both configurations' values
    /// in one comma-separated list (the first half `FROM`, the second
    /// `TO`); the same as `--from FROM --to TO`.
    #[arg(
        long,
        value_name = "FROM;TO",
        allow_hyphen_values = true,
        conflicts_with_all = ["from", "to"]
    )]
    toc_of: Option<String>,
    /// A monitor state file (as `armature monitor --state`): also draw the
    /// links' swept volumes until the robots have stopped, translucent.
    #[arg(long, value_name = "FILE")]
    state: Option<PathBuf>,
    /// Start of a motion: draw the bodies at its first contact (as
    /// `armature toc` finds it) with the pair in red and the contact point
    /// marked, or at `--to` when the motion is free.
    #[arg(long, value_name = "Q", allow_hyphen_values = true, requires = "to")]
    from: Option<String>,
    /// End of the motion, as `--from`.
    #[arg(long, value_name = "Q", allow_hyphen_values = true, requires = "from")]
    to: Option<String>,
    /// A camera file (RON: `Camera(eye: (x, y, z), target: (x, y, z), up:
    /// (0, 0, 1), fov: 50)`, `fov` the horizontal field of view in degrees);
    /// default: a camera framing the whole scene from the front right.
    #[arg(long, value_name = "FILE")]
    camera: Option<PathBuf>,
    /// Image width in pixels.
    #[arg(long, value_name = "W", default_value_t = 800)]
    width: u32,
    /// Image height in pixels.
    #[arg(long, value_name = "H", default_value_t = 600)]
    height: u32,
    /// Also draw the links' collision volumes (their convex hulls, the
    /// volumes the M3 monitor sweeps), translucent.
    #[arg(long)]
    collision_volumes: bool,
    /// Draw the links translucent.
    #[arg(long)]
    translucent_links: bool,
    /// Draw the obstacles translucent, so that a contact deep in clutter
    /// shows through.
    #[arg(long)]
    translucent_obstacles: bool,
    /// The PNG file to write.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

/// A camera file.
#[derive(Debug, Deserialize)]
#[serde(rename = "Camera", deny_unknown_fields)]
struct CameraFile {
    eye: (f64, f64, f64),
    target: (f64, f64, f64),
    #[serde(default = "z_up")]
    up: (f64, f64, f64),
    #[serde(default = "default_fov")]
    fov: f64,
}

const fn z_up() -> (f64, f64, f64) {
    (0.0, 0.0, 1.0)
}

const fn default_fov() -> f64 {
    50.0
}

/// The JSON answer of `render`.
#[derive(Debug, Serialize)]
struct RenderJson {
    scene: String,
    out: String,
    width: u32,
    height: u32,
    /// The configuration drawn.
    config: Vec<f64>,
    /// With `--from`/`--to`: whether the motion collides (`null` with
    /// `--config`).
    collides: Option<bool>,
    /// With `--from`/`--to`: the query's status, as `toc`'s.
    status: Option<&'static str>,
    toc: Option<f64>,
    pair: Option<PairJson>,
    point: Option<[f64; 3]>,
    normal: Option<[f64; 3]>,
}

/// Runs `armature render`.
pub(crate) fn run(args: &RenderArgs, out: &mut impl Write) -> Result<(), Failure> {
    let scene = crate::progress::load_scene(&args.common.scene, args.common.json)?;
    let mut answer = RenderJson {
        scene: args.common.scene.display().to_string(),
        out: args.out.display().to_string(),
        width: args.width,
        height: args.height,
        config: Vec::new(),
        collides: None,
        status: None,
        toc: None,
        pair: None,
        point: None,
        normal: None,
    };
    let mut time = 0.0;
    let mut highlight = None;
    let mut contact = None;
    let motion = match (&args.from, &args.to, &args.toc_of) {
        (Some(from), Some(to), _) => Some((
            scene.parse_configuration("--from", from)?,
            scene.parse_configuration("--to", to)?,
        )),
        (_, _, Some(both)) => Some(split_motion(&scene, both)?),
        _ => None,
    };
    let swept = match &args.state {
        Some(file) => Some(crate::monitor::swept_volumes(&scene, file)?),
        None => None,
    };
    if let Some((q0, q1)) = motion {
        let report = Pipeline::builder()
            .build()?
            .first_contact(&scene, &q0, &q1)?;
        answer.collides = Some(report.may_collide());
        answer.status = Some(match report.status {
            CcdStatus::Free | CcdStatus::Collides => "converged",
            CcdStatus::CollidingAtStart => "colliding_at_start",
            CcdStatus::BudgetExhausted => "budget_exhausted",
        });
        time = match (&report.contact, report.status) {
            (Some(c), _) => c.time,
            (None, CcdStatus::Free) => 1.0,
            (None, _) => report.toc_lower_bound,
        };
        if let Some(c) = &report.contact {
            answer.toc = Some(c.time);
            answer.pair = Some(PairJson::new(&scene, c.link, c.other));
            answer.point = Some(xyz(c.point));
            answer.normal = Some(xyz(c.normal));
            highlight = Some((c.link, c.other));
            contact = Some((c.point, c.normal));
        } else if report.status != CcdStatus::Free {
            answer.toc = Some(report.toc_lower_bound);
        }
        answer.config = crate::toc::config_at(&scene, &q0, &q1, time)?;
    } else if let Some(c) = &args.config {
        answer.config = scene.parse_configuration("--config", c)?;
    } else if let Some((config, _)) = &swept {
        answer.config.clone_from(config);
    }
    let mut view = SceneView::new(&scene, &answer.config)?
        .with_time(time)
        .with_collision_volumes(args.collision_volumes)
        .with_links(style(args.translucent_links))
        .with_obstacles(style(args.translucent_obstacles));
    if let Some((link, other)) = highlight {
        view = view.with_highlight(link, other);
    }
    if let Some((point, normal)) = contact {
        view = view.with_contact(point, normal);
    }
    let swept_colored: Vec<(armature::kinematics::Ssch, [u8; 4])> = swept
        .map(|(_, v)| v.into_iter().map(|s| (s, SWEPT_COLOR)).collect())
        .unwrap_or_default();
    if !swept_colored.is_empty() {
        view = view.with_swept_volumes(&swept_colored);
    }
    let camera = match &args.camera {
        Some(file) => read_camera(file, args.width, args.height)?,
        None => view
            .default_camera(args.width, args.height)
            .map_err(size_error)?,
    };
    let image = view.render(&camera, None)?;
    write_png(&args.out, &image).map_err(|e| Failure::Message(format!("--out: {e}")))?;
    if args.common.json {
        write_json(out, &answer)
    } else {
        out.write_all(human(&answer).as_bytes())?;
        Ok(())
    }
}

/// The colour of swept volumes (translucent orange).
pub(crate) const SWEPT_COLOR: [u8; 4] = [255, 140, 0, 90];

/// `FROM;TO`, or `2·nq` comma-separated values split in half.
fn split_motion(scene: &armature::Scene, text: &str) -> Result<(Vec<f64>, Vec<f64>), Failure> {
    if let Some((a, b)) = text.split_once(';') {
        return Ok((
            scene.parse_configuration("--toc-of (FROM)", a)?,
            scene.parse_configuration("--toc-of (TO)", b)?,
        ));
    }
    let values: Vec<&str> = text.split(',').collect();
    let n = scene.nq();
    if values.len() != 2 * n {
        return Err(Failure::Message(format!(
            "--toc-of: {} values; give `FROM;TO` or {} comma-separated values (two configurations of {n})",
            values.len(),
            2 * n
        )));
    }
    Ok((
        scene.parse_configuration("--toc-of (FROM)", &values[..n].join(","))?,
        scene.parse_configuration("--toc-of (TO)", &values[n..].join(","))?,
    ))
}

/// Translucent or opaque.
const fn style(translucent: bool) -> SurfaceStyle {
    if translucent {
        SurfaceStyle::Translucent
    } else {
        SurfaceStyle::Opaque
    }
}

/// A size the camera refuses, named by its flag.
pub(crate) fn size_error(e: Error) -> Failure {
    match e {
        Error::InvalidOption {
            name: name @ ("width" | "height"),
            value,
            why,
        } => Failure::Message(format!("option `--{name}` = {value}: {why}")),
        e => Failure::Input(e),
    }
}

/// The camera of a camera file.
fn read_camera(file: &Path, width: u32, height: u32) -> Result<Camera, Failure> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| Failure::Message(format!("--camera: {}: {e}", file.display())))?;
    let c: CameraFile = crate::overlay::parse_ron(&text)
        .map_err(|m| Failure::Message(format!("--camera: {}:{m}", file.display())))?;
    let v = |(x, y, z): (f64, f64, f64)| DVec3::new(x, y, z);
    Camera::look_at(
        v(c.eye),
        v(c.target),
        v(c.up),
        c.fov.to_radians(),
        width,
        height,
    )
    .map_err(|e| match e {
        Error::InvalidOption {
            name: name @ ("eye" | "up" | "fov"),
            why,
            ..
        } => Failure::Message(format!(
            "--camera: {}: field `{name}`: {why}",
            file.display()
        )),
        e => size_error(e),
    })
}

fn human(a: &RenderJson) -> String {
    let mut rows = vec![("image", format!("{} ({}×{})", a.out, a.width, a.height))];
    match (a.collides, a.status) {
        (Some(true), Some("budget_exhausted")) => rows.push((
            "answer",
            "may collide (iteration budget exhausted): drawn at the lower bound".to_owned(),
        )),
        (Some(true), Some("colliding_at_start")) => {
            rows.push(("answer", "colliding at the start".to_owned()));
        }
        (Some(true), _) => rows.push(("answer", "collides: drawn at the first contact".to_owned())),
        (Some(false), _) => rows.push(("answer", "free: drawn at the end (--to)".to_owned())),
        (None, _) => {}
    }
    if let Some(t) = a.toc {
        rows.push(("time of contact", num(t)));
    }
    if let Some(p) = &a.pair {
        rows.push(("pair", format!("{} / {} (red)", p.a, p.b)));
    }
    if let Some(p) = a.point {
        rows.push(("point", vec3(p)));
    }
    if let Some(n) = a.normal {
        rows.push(("normal", vec3(n)));
    }
    rows.push(("configuration", configuration(&a.config)));
    pairs(&rows)
}
