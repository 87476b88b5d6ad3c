//! `armature render` and `armature overlay` run as programs on the Puma in
//! the pipes: they write decodable PNGs of the asked size, `render` draws
//! the first contact of a colliding motion as `toc` finds it, `overlay`
//! recovers the camera of a synthetic photograph from labels in the world
//! and in link frames; bad inputs exit 2 naming the input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use armature::render::{Camera, SceneView, read_png, write_png};
use armature::{Pipeline, Scene};
use glam::DVec3;
use serde_json::Value;

const SCENE: &str = "../../data/scenes/puma_pipes.ron";
const Q: &str = "0.3,-0.4,0.6,0.2,0.5,-0.3";

fn armature(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_armature"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the armature binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(args: &[&str]) -> Value {
    let o = armature(args);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(text.lines().count(), 1, "one line of JSON: {text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?}: {e}: {text}"))
}

/// A fresh directory for one test's files.
fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cli_render")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn scene() -> Scene {
    Scene::from_file(Path::new(env!("CARGO_MANIFEST_DIR")).join(SCENE)).unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn render_writes_a_png_of_the_asked_size() {
    let d = dir("render");
    let out = d.join("view.png");
    let v = json(&[
        "render",
        "--scene",
        SCENE,
        "--config",
        Q,
        "--width",
        "160",
        "--height",
        "120",
        "--collision-volumes",
        "--out",
        s(&out),
        "--json",
    ]);
    assert_eq!(v["out"], s(&out));
    assert_eq!(v["width"], 160);
    assert_eq!(v["height"], 120);
    assert_eq!(v["toc"], Value::Null);
    assert_eq!(v["pair"], Value::Null);
    let image = read_png(&out).unwrap();
    assert_eq!((image.width, image.height), (160, 120));
    // Text output, and a camera file.
    let camera = d.join("camera.ron");
    std::fs::write(
        &camera,
        "Camera(eye: (1.6, -1.1, 1.2), target: (0.1, 0.0, 0.5), fov: 60)",
    )
    .unwrap();
    let o = armature(&[
        "render",
        "--scene",
        SCENE,
        "--config",
        Q,
        "--camera",
        s(&camera),
        "--width",
        "64",
        "--height",
        "48",
        "--out",
        s(&out),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("64×48"), "{text}");
    assert_eq!(read_png(&out).unwrap().width, 64);
}

#[test]
fn render_draws_the_first_contact_of_a_motion() {
    let d = dir("render_toc");
    let out = d.join("toc.png");
    let (from, to) = ("0,0,0,0,0,0", "1.5,0.8,-0.5,0,0,0");
    let v = json(&[
        "render",
        "--scene",
        SCENE,
        "--from",
        from,
        "--to",
        to,
        "--width",
        "120",
        "--height",
        "90",
        "--out",
        s(&out),
        "--json",
    ]);
    let scene = scene();
    let q0 = scene.parse_configuration("q0", from).unwrap();
    let q1 = scene.parse_configuration("q1", to).unwrap();
    let report = Pipeline::default().first_contact(&scene, &q0, &q1).unwrap();
    let contact = report.contact.unwrap();
    assert_eq!(v["collides"], true);
    assert_eq!(v["toc"].as_f64().unwrap(), contact.time);
    assert_eq!(v["pair"]["a"], scene.link_name(contact.link).unwrap());
    assert_eq!(v["pair"]["b"], scene.other_name(contact.other).unwrap());
    assert_eq!(v["point"][0].as_f64().unwrap(), contact.point.x);
    // Drawn at the configuration of the time of contact.
    let config: Vec<f64> = v["config"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    for k in 0..6 {
        let expected = q0[k] + contact.time * (q1[k] - q0[k]);
        assert!((config[k] - expected).abs() < 1e-12, "{config:?}");
    }
    let image = read_png(&out).unwrap();
    assert_eq!((image.width, image.height), (120, 90));
    // The highlight is red somewhere.
    assert!(
        image
            .rgba
            .chunks(4)
            .any(|c| c[0] > 150 && c[1] < 60 && c[2] < 60)
    );
    // A free motion draws its end and says so.
    let v = json(&[
        "render",
        "--scene",
        SCENE,
        "--from",
        from,
        "--to",
        "0,0,0,0,0,0.1",
        "--width",
        "40",
        "--height",
        "30",
        "--out",
        s(&out),
        "--json",
    ]);
    assert_eq!(v["collides"], false);
    assert_eq!(v["toc"], Value::Null);
    assert_eq!(v["config"][5], 0.1);
}

/// A synthetic photograph of the scene at `Q` by a known camera, and a
/// labels file for it.
fn photograph(d: &Path, labels: &str) -> (PathBuf, PathBuf, Camera) {
    let scene = scene();
    let q = scene.parse_configuration("q", Q).unwrap();
    let camera = Camera::look_at(
        DVec3::new(1.6, -1.1, 1.2),
        DVec3::new(0.1, 0.0, 0.5),
        DVec3::Z,
        60f64.to_radians(),
        320,
        240,
    )
    .unwrap();
    let image = SceneView::new(&scene, &q)
        .unwrap()
        .render(&camera, None)
        .unwrap();
    let png = d.join("photo.png");
    write_png(&png, &image).unwrap();
    let file = d.join("labels.ron");
    std::fs::write(&file, labels).unwrap();
    (png, file, camera)
}

/// Labels of eight link-frame points (mesh vertices) and two world
/// points, projected by `camera`.
fn labels_for(camera: &Camera) -> String {
    let scene = scene();
    let q = scene.parse_configuration("q", Q).unwrap();
    let poses = scene.body().tree().poses(&q).unwrap();
    let mut rows = Vec::new();
    for (i, g) in scene.body().links().iter().enumerate().skip(1) {
        let Some(g) = g else { continue };
        for k in [0, g.mesh.num_vertices() / 2] {
            let local = g.mesh.vertices()[k];
            let px = camera.project(poses[i].transform_point3(local)).unwrap();
            rows.push(format!(
                "Label(pixel: ({}, {}), link: \"{}\", point: ({}, {}, {}))",
                px.x,
                px.y,
                scene.link_name(i).unwrap(),
                local.x,
                local.y,
                local.z
            ));
        }
    }
    let world = poses[3].transform_point3(DVec3::ZERO);
    let px = camera.project(world).unwrap();
    rows.push(format!(
        "Label(pixel: ({}, {}), point: ({}, {}, {}))",
        px.x, px.y, world.x, world.y, world.z
    ));
    format!(
        "Labels(camera: Intrinsics(hfov: 60.0), labels: [\n    {}\n])\n",
        rows.join(",\n    ")
    )
}

#[test]
fn overlay_recovers_the_camera_and_writes_the_picture() {
    let d = dir("overlay");
    let probe = Camera::look_at(
        DVec3::new(1.6, -1.1, 1.2),
        DVec3::new(0.1, 0.0, 0.5),
        DVec3::Z,
        60f64.to_radians(),
        320,
        240,
    )
    .unwrap();
    let (png, labels, camera) = photograph(&d, &labels_for(&probe));
    let out = d.join("overlay.png");
    let v = json(&[
        "overlay",
        "--scene",
        SCENE,
        "--image",
        s(&png),
        "--labels",
        s(&labels),
        "--config",
        Q,
        "--out",
        s(&out),
        "--links",
        "--json",
    ]);
    let t: Vec<f64> = (0..3)
        .map(|k| v["pose"]["translation"][k].as_f64().unwrap())
        .collect();
    let position = DVec3::new(t[0], t[1], t[2]);
    assert!(
        position.distance(camera.pose.position()) < 1e-6,
        "camera at {position}, expected {}",
        camera.pose.position()
    );
    let r: Vec<f64> = (0..4)
        .map(|k| v["pose"]["rotation"][k].as_f64().unwrap())
        .collect();
    let rotation = glam::DQuat::from_xyzw(r[0], r[1], r[2], r[3]);
    assert!(rotation.angle_between(camera.pose.orientation()) < 1e-7);
    assert!(v["rms_px"].as_f64().unwrap() < 1e-6, "{v}");
    assert!(v["iterations"].as_u64().is_some());
    assert_eq!(v["start"], "dlt");
    assert_eq!(v["out"], s(&out));
    let image = read_png(&out).unwrap();
    assert_eq!((image.width, image.height), (320, 240));
    assert_ne!(
        image,
        read_png(&png).unwrap(),
        "the overlay draws something"
    );
    // Text output.
    let o = armature(&[
        "overlay",
        "--scene",
        SCENE,
        "--image",
        s(&png),
        "--labels",
        s(&labels),
        "--config",
        Q,
        "--out",
        s(&out),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    for word in ["camera position", "camera rotation", "px rms", "320×240"] {
        assert!(text.contains(word), "`{word}` missing from:\n{text}");
    }
}

#[test]
fn bad_inputs_exit_2_naming_the_input() {
    let d = dir("bad");
    let probe = Camera::look_at(
        DVec3::new(1.6, -1.1, 1.2),
        DVec3::new(0.1, 0.0, 0.5),
        DVec3::Z,
        60f64.to_radians(),
        320,
        240,
    )
    .unwrap();
    let (png, labels, _) = photograph(&d, &labels_for(&probe));
    let out = d.join("out.png");
    let write = |name: &str, text: &str| {
        let f = d.join(name);
        std::fs::write(&f, text).unwrap();
        f
    };
    let two = write(
        "two.ron",
        "Labels(camera: Intrinsics(fx: 300.0), labels: [\
         Label(pixel: (1.0, 2.0), point: (0.0, 0.0, 0.0)), \
         Label(pixel: (3.0, 4.0), point: (1.0, 0.0, 0.0))])",
    );
    let nan = write(
        "nan.ron",
        "Labels(camera: Intrinsics(fx: 300.0), labels: [\
         Label(pixel: (1.0, 2.0), point: (0.0, 0.0, 0.0)), \
         Label(pixel: (NaN, 4.0), point: (1.0, 0.0, 0.0)), \
         Label(pixel: (5.0, 6.0), point: (0.0, 1.0, 0.0))])",
    );
    let unknown_link = write(
        "link.ron",
        "Labels(camera: Intrinsics(fx: 300.0), labels: [\
         Label(pixel: (1.0, 2.0), link: \"puma/link9\", point: (0.0, 0.0, 0.0))])",
    );
    let no_focal = write("focal.ron", "Labels(camera: Intrinsics(), labels: [])");
    let syntax = write(
        "syntax.ron",
        "Labels(camera: Intrinsics(fx: 300.0), lables: [])",
    );
    let camera_file = write("camera.ron", "Camera(eye: (0, 0, 1), target: (0, 0, 1))");
    let missing = d.join("missing.png");
    let overlay = |image: &Path, labels: &Path, q: &str| -> Vec<String> {
        [
            "overlay",
            "--scene",
            SCENE,
            "--image",
            s(image),
            "--labels",
            s(labels),
            "--config",
            q,
            "--out",
            s(&out),
        ]
        .map(str::to_owned)
        .to_vec()
    };
    let cases: Vec<(Vec<String>, Vec<&str>)> = vec![
        (
            overlay(&missing, &labels, Q),
            vec!["--image", "missing.png"],
        ),
        (
            overlay(&png, &two, Q),
            vec!["two.ron", "labels", "at least 3"],
        ),
        (overlay(&png, &nan, Q), vec!["nan.ron", "labels[1].pixel"]),
        (
            overlay(&png, &unknown_link, Q),
            vec!["link.ron", "labels[0].link", "puma/link9"],
        ),
        (overlay(&png, &no_focal, Q), vec!["focal.ron", "camera.fx"]),
        (overlay(&png, &syntax, Q), vec!["syntax.ron:1:", "lables"]),
        (
            overlay(&png, &labels, "0.3,-0.4"),
            vec!["--config", "expected 6 values"],
        ),
        (
            overlay(&png, &d.join("none.ron"), Q),
            vec!["--labels", "none.ron"],
        ),
        (
            [
                "render",
                "--scene",
                SCENE,
                "--config",
                "1,2",
                "--out",
                s(&out),
            ]
            .map(str::to_owned)
            .to_vec(),
            vec!["--config"],
        ),
        (
            [
                "render",
                "--scene",
                SCENE,
                "--config",
                Q,
                "--camera",
                s(&camera_file),
                "--out",
                s(&out),
            ]
            .map(str::to_owned)
            .to_vec(),
            vec!["--camera", "camera.ron", "eye"],
        ),
        (
            [
                "render",
                "--scene",
                SCENE,
                "--config",
                Q,
                "--width",
                "0",
                "--out",
                s(&out),
            ]
            .map(str::to_owned)
            .to_vec(),
            vec!["--width"],
        ),
        (
            [
                "render",
                "--scene",
                SCENE,
                "--config",
                Q,
                "--out",
                s(&d.join("no_such_dir").join("x.png")),
            ]
            .map(str::to_owned)
            .to_vec(),
            vec!["--out", "x.png"],
        ),
    ];
    for (args, needles) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = armature(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "{args:?}: stdout not empty");
        let e = stderr(&o);
        for needle in needles {
            assert!(e.contains(needle), "{args:?}: `{needle}` missing from: {e}");
        }
    }
}

/// `--toc-of` answers as `--from … --to …`, in both of its forms.
#[test]
fn toc_of_is_from_and_to_at_once() {
    let d = dir("render_toc_of");
    let out = d.join("toc.png");
    let (from, to) = ("0,0,0,0,0,0", "1.5,0.8,-0.5,0,0,0");
    let run = |extra: &[&str]| {
        let mut args = vec!["render", "--scene", SCENE];
        args.extend_from_slice(extra);
        args.extend_from_slice(&[
            "--width",
            "80",
            "--height",
            "60",
            "--out",
            s(&out),
            "--json",
        ]);
        json(&args)
    };
    let reference = run(&["--from", from, "--to", to]);
    let joined = format!("{from};{to}");
    let flat = format!("{from},{to}");
    for form in [joined.as_str(), flat.as_str()] {
        let v = run(&["--toc-of", form]);
        assert_eq!(v["toc"], reference["toc"], "{form}");
        assert_eq!(v["pair"], reference["pair"], "{form}");
    }
    let o = armature(&[
        "render",
        "--scene",
        SCENE,
        "--toc-of",
        "0,0,0",
        "--out",
        s(&out),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--toc-of"), "{}", stderr(&o));
}

/// `--state` draws the monitor's swept volumes: more of the picture
/// changes than without them, and the robot stands at the state's values.
#[test]
fn render_draws_swept_volumes_from_a_state() {
    let d = dir("render_state");
    let state = d.join("state.ron");
    std::fs::write(
        &state,
        format!(
            "MonitorState(config: [{Q}], velocities: [1.0, 1.0, 1.0, 1.0, 1.0, 1.0], latency: 0.05, deceleration: 2.0)"
        ),
    )
    .unwrap();
    let plain = d.join("plain.png");
    let swept = d.join("swept.png");
    let base = [
        "render", "--scene", SCENE, "--width", "120", "--height", "90",
    ];
    let mut a = base.to_vec();
    a.extend_from_slice(&["--config", Q, "--out", s(&plain), "--json"]);
    json(&a);
    let mut b = base.to_vec();
    b.extend_from_slice(&["--state", s(&state), "--out", s(&swept), "--json"]);
    let v = json(&b);
    let q: Vec<f64> = v["config"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert_eq!(q, scene().parse_configuration("q", Q).unwrap());
    let (p, w) = (read_png(&plain).unwrap(), read_png(&swept).unwrap());
    let changed = p
        .rgba
        .chunks(4)
        .zip(w.rgba.chunks(4))
        .filter(|(x, y)| x != y)
        .count();
    assert!(
        changed > 100,
        "{changed} pixels changed by the swept volumes"
    );
}
