//! `armature overlay`: the links' collision volumes drawn over a camera
//! image, the camera registered from labelled points (M3 §IV, Fig. 6).

use std::io::Write;
use std::path::PathBuf;

use armature::render::{
    Camera, CameraPose, Canvas, Marker, PnpOptions, PnpStart, PointPair, SceneView, SurfaceStyle,
    read_png, reprojection_errors, solve_pnp, write_png,
};
use armature::{Error, Scene};
use clap::Args;
use glam::{DQuat, DVec2, DVec3};
use serde::{Deserialize, Serialize, de::DeserializeOwned};

use crate::output::{num, pairs, vec3, write_json, xyz};
use crate::{Common, Failure};

/// Options of `armature overlay`.
#[derive(Debug, Args)]
pub(crate) struct OverlayArgs {
    #[command(flatten)]
    common: Common,
    /// The camera image (PNG: grey, RGB or RGBA, 8 or 16 bits).
    #[arg(long, value_name = "FILE")]
    image: PathBuf,
    /// The labels file (RON, docs/cli.md): the intrinsics and at least
    /// three pixels with the world or link points they show.
    #[arg(long, value_name = "FILE")]
    labels: PathBuf,
    /// The configuration the image shows: comma-separated joint values
    /// (radians, metres) in the order `armature info` prints.
    #[arg(long, value_name = "Q", allow_hyphen_values = true)]
    config: String,
    /// Also draw the links' meshes, translucent.
    #[arg(long)]
    links: bool,
    /// A monitor state file (as `armature monitor --state`): also draw the
    /// links' swept volumes until the robots have stopped (M3's overlay of
    /// swept volumes), translucent.
    #[arg(long, value_name = "FILE")]
    state: Option<PathBuf>,
    /// The PNG file to write.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

/// A labels file.
#[derive(Debug, Deserialize)]
#[serde(rename = "Labels", deny_unknown_fields)]
struct LabelsFile {
    camera: Intrinsics,
    #[serde(default)]
    initial_pose: Option<PoseFile>,
    labels: Vec<Label>,
}

/// The camera's intrinsics: `fx` (and `fy`, default `fx`) or `hfov`.
#[derive(Debug, Deserialize)]
#[serde(rename = "Intrinsics", deny_unknown_fields)]
struct Intrinsics {
    #[serde(default)]
    fx: Option<f64>,
    #[serde(default)]
    fy: Option<f64>,
    #[serde(default)]
    cx: Option<f64>,
    #[serde(default)]
    cy: Option<f64>,
    /// Horizontal field of view in degrees.
    #[serde(default)]
    hfov: Option<f64>,
}

/// The camera in the world: its position and its orientation (camera to
/// world), as scene files write poses.
#[derive(Debug, Deserialize)]
#[serde(rename = "Pose", deny_unknown_fields)]
struct PoseFile {
    translation: (f64, f64, f64),
    rotation: (f64, f64, f64, f64),
}

/// A pixel and the point it shows: in the world, or in a link's frame.
#[derive(Debug, Deserialize)]
#[serde(rename = "Label", deny_unknown_fields)]
struct Label {
    pixel: (f64, f64),
    #[serde(default)]
    link: Option<String>,
    point: (f64, f64, f64),
}

/// The JSON answer of `overlay`.
#[derive(Debug, Serialize)]
struct OverlayJson {
    scene: String,
    out: String,
    width: u32,
    height: u32,
    pose: PoseJson,
    rms_px: f64,
    max_px: f64,
    iterations: usize,
    start: &'static str,
    /// Per label, the reprojection error in pixels.
    errors_px: Vec<f64>,
    intrinsics: [f64; 4],
}

/// The fitted camera in the world.
#[derive(Debug, Serialize)]
struct PoseJson {
    /// The camera's position.
    translation: [f64; 3],
    /// Its orientation, camera to world, `[x, y, z, w]`.
    rotation: [f64; 4],
}

/// Parses RON text with the scene files' extensions (`Some` optional);
/// the error is `line:column: message`.
pub(crate) fn parse_ron<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    ron::Options::default()
        .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
        .from_str(text)
        .map_err(|e| format!("{}:{}: {}", e.span.start.line, e.span.start.col, e.code))
}

/// Runs `armature overlay`.
pub(crate) fn run(args: &OverlayArgs, out: &mut impl Write) -> Result<(), Failure> {
    let scene = crate::progress::load_scene(&args.common.scene, args.common.json)?;
    let q = scene.parse_configuration("--config", &args.config)?;
    let background =
        read_png(&args.image).map_err(|e| Failure::Message(format!("--image: {e}")))?;
    let file = args.labels.display().to_string();
    let field = |field: &str, why: &str| {
        Failure::Message(format!("--labels: {file}: field `{field}`: {why}"))
    };
    let text = std::fs::read_to_string(&args.labels)
        .map_err(|e| Failure::Message(format!("--labels: {file}: {e}")))?;
    let labels: LabelsFile =
        parse_ron(&text).map_err(|m| Failure::Message(format!("--labels: {file}:{m}")))?;
    let camera = intrinsics(&labels.camera, background.width, background.height)
        .map_err(|(name, why)| field(&format!("camera.{name}"), &why))?;
    let view = SceneView::new(&scene, &q)?;
    let points = label_points(&scene, &labels.labels, view.link_poses())
        .map_err(|(f, why)| field(&f, &why))?;
    if points.len() < 3 {
        return Err(field(
            "labels",
            &format!(
                "{} labels: at least 3 are needed (4 or more fix the pose uniquely)",
                points.len()
            ),
        ));
    }
    let mut options = PnpOptions::default();
    if let Some(p) = &labels.initial_pose {
        let (x, y, z, w) = p.rotation;
        let rotation = DQuat::from_xyzw(x, y, z, w);
        let (tx, ty, tz) = p.translation;
        let position = DVec3::new(tx, ty, tz);
        if !position.is_finite() {
            return Err(field("initial_pose.translation", "must be finite"));
        }
        if !(rotation.is_finite() && (rotation.length() - 1.0).abs() <= 1e-6) {
            return Err(field(
                "initial_pose.rotation",
                &format!("({x}, {y}, {z}, {w}) is not a unit quaternion (x, y, z, w)"),
            ));
        }
        options = options.with_initial_pose(CameraPose::from_position_orientation(
            position,
            rotation.normalize(),
        ));
    }
    let fit = solve_pnp(&camera, &points, &options).map_err(|e| match e {
        Error::Pnp(p) => field("labels", &p.to_string()),
        e => Failure::Input(e),
    })?;
    let camera = camera.with_pose(fit.pose);
    let swept: Vec<(armature::kinematics::Ssch, [u8; 4])> = match &args.state {
        Some(file) => crate::monitor::swept_volumes(&scene, file)?
            .1
            .into_iter()
            .map(|v| (v, crate::render::SWEPT_COLOR))
            .collect(),
        None => Vec::new(),
    };
    let view = view
        .with_swept_volumes(&swept)
        .with_obstacles(SurfaceStyle::Hidden)
        .with_collision_volumes(true)
        .with_links(if args.links {
            SurfaceStyle::Translucent
        } else {
            SurfaceStyle::Hidden
        });
    let mut canvas = Canvas::new(camera, background).map_err(Failure::Input)?;
    view.draw(&mut canvas)?;
    // Each label: a cross where it was clicked, a dot where the fitted
    // camera projects its point.
    for p in &points {
        canvas.marker_at_pixel(
            p.pixel,
            Marker::Cross {
                half_size: 6.0,
                width: 2.0,
            },
            [0, 200, 255, 255],
        );
        canvas.marker(p.point, Marker::Disc { radius: 2.5 }, [255, 0, 200, 255]);
    }
    let image = canvas.finish();
    write_png(&args.out, &image).map_err(|e| Failure::Message(format!("--out: {e}")))?;
    let position = fit.pose.position();
    let orientation = fit.pose.orientation();
    let answer = OverlayJson {
        scene: args.common.scene.display().to_string(),
        out: args.out.display().to_string(),
        width: image.width,
        height: image.height,
        pose: PoseJson {
            translation: xyz(position),
            rotation: orientation.to_array(),
        },
        rms_px: fit.rms_px,
        max_px: fit.max_px,
        iterations: fit.iterations,
        start: match fit.start {
            PnpStart::Given => "given",
            PnpStart::Dlt => "dlt",
            PnpStart::MultiStart => "multi_start",
        },
        errors_px: reprojection_errors(&camera, &fit.pose, &points),
        intrinsics: [camera.fx, camera.fy, camera.cx, camera.cy],
    };
    if args.common.json {
        write_json(out, &answer)
    } else {
        out.write_all(human(&answer).as_bytes())?;
        Ok(())
    }
}

/// The camera of the intrinsics for an image of `width × height`; the
/// error names the field.
fn intrinsics(i: &Intrinsics, width: u32, height: u32) -> Result<Camera, (String, String)> {
    let cx = i.cx.unwrap_or((f64::from(width) - 1.0) / 2.0);
    let cy = i.cy.unwrap_or((f64::from(height) - 1.0) / 2.0);
    let fx = match (i.fx, i.hfov) {
        (Some(_), Some(_)) => {
            return Err((
                "hfov".to_owned(),
                "give `fx` or `hfov`, not both".to_owned(),
            ));
        }
        (None, None) => {
            return Err(("fx".to_owned(), "give the focal length `fx` (pixels) or the horizontal field of view `hfov` (degrees)".to_owned()));
        }
        (Some(fx), None) => fx,
        (None, Some(h)) => {
            if !(h > 0.0 && h < 180.0) {
                return Err(("hfov".to_owned(), format!("{h} is not in (0, 180) degrees")));
            }
            f64::from(width) / 2.0 / (h.to_radians() / 2.0).tan()
        }
    };
    let fy = i.fy.unwrap_or(fx);
    Camera::from_intrinsics(width, height, [fx, fy, cx, cy]).map_err(|e| match e {
        Error::InvalidOption { name, value, why } => (name.to_owned(), format!("{value}: {why}")),
        e => ("camera".to_owned(), e.to_string()),
    })
}

/// The labels as world point pairs (link points placed by `poses`); the
/// error names the field.
fn label_points(
    scene: &Scene,
    labels: &[Label],
    poses: &[glam::DAffine3],
) -> Result<Vec<PointPair>, (String, String)> {
    labels
        .iter()
        .enumerate()
        .map(|(k, l)| {
            let pixel = DVec2::new(l.pixel.0, l.pixel.1);
            let point = DVec3::new(l.point.0, l.point.1, l.point.2);
            if !pixel.is_finite() {
                return Err((format!("labels[{k}].pixel"), "must be finite".to_owned()));
            }
            if !point.is_finite() {
                return Err((format!("labels[{k}].point"), "must be finite".to_owned()));
            }
            let point = match &l.link {
                None => point,
                Some(name) => {
                    let i = scene.body().tree().link_index(name).map_err(|_| {
                        (
                            format!("labels[{k}].link"),
                            format!("`{name}` is not a link of the scene (names are `body/link`, as `armature info` prints)"),
                        )
                    })?;
                    poses[i].transform_point3(point)
                }
            };
            Ok(PointPair { pixel, point })
        })
        .collect()
}

fn human(a: &OverlayJson) -> String {
    let [x, y, z, w] = a.pose.rotation;
    let rows = vec![
        ("camera position", vec3(a.pose.translation)),
        (
            "camera rotation",
            format!(
                "({}, {}, {}, {}) (x, y, z, w; camera to world)",
                num(x),
                num(y),
                num(z),
                num(w)
            ),
        ),
        (
            "reprojection",
            format!(
                "{} px rms, {} px max over {} labels",
                num(a.rms_px),
                num(a.max_px),
                a.errors_px.len()
            ),
        ),
        (
            "iterations",
            format!("{} (start: {})", a.iterations, a.start.replace('_', " ")),
        ),
        ("image", format!("{} ({}×{})", a.out, a.width, a.height)),
    ];
    pairs(&rows)
}
