//! The renderer and the camera registration of `armature::render`.
//!
//! - PnP on a synthetic image (M3 Fig. 6): a known camera views the Puma in
//!   the pipes; points on the robot's links are projected with it (and
//!   checked to fall on the robot in the rendered picture), pixel noise of
//!   0, 0.5 and 1 px is added from a fixed seed, and the fitted pose must
//!   match the known one; also from a start far from the truth, and with
//!   the typed errors of bad input.
//! - The rasterizer: a cube covers exactly the pixels its projection
//!   covers, a near opaque triangle hides a far one in either drawing
//!   order, translucent layers blend by their alpha, back to front.
//! - PNG files: write then read gives the same image; grey and RGB files
//!   read as RGBA.

use std::path::Path;

use armature::render::{
    Camera, CameraPose, Canvas, Image, Material, PnpError, PnpOptions, PnpStart, PointPair,
    SceneView, Shading, SurfaceStyle, decode_png, read_png, solve_pnp, write_png,
};
use armature::{Error, Scene};
use glam::{DQuat, DVec2, DVec3};

const PUMA_PIPES: &str = "../../data/scenes/puma_pipes.ron";
const Q: [f64; 6] = [0.3, -0.4, 0.6, 0.2, 0.5, -0.3];

fn scene() -> Scene {
    Scene::from_file(Path::new(env!("CARGO_MANIFEST_DIR")).join(PUMA_PIPES)).unwrap()
}

/// The known camera: 640×480, 60° across, looking at the robot.
fn truth() -> Camera {
    Camera::look_at(
        DVec3::new(1.6, -1.1, 1.2),
        DVec3::new(0.1, 0.0, 0.5),
        DVec3::Z,
        60f64.to_radians(),
        640,
        480,
    )
    .unwrap()
}

/// A deterministic generator (64-bit LCG, Knuth's constants) of uniform
/// and normal samples.
struct Rng(u64);

impl Rng {
    fn uniform(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// Points on the robot at `Q`: per moving link, the mesh vertices farthest
/// along a few fixed directions (world frame), in a fixed order.
fn robot_points(scene: &Scene) -> Vec<DVec3> {
    let poses = scene.body().tree().poses(&Q).unwrap();
    let dirs = [
        DVec3::new(1.0, 0.2, 0.3),
        DVec3::new(-0.3, 1.0, 0.1),
        DVec3::new(0.1, -0.4, 1.0),
    ];
    let mut points = Vec::new();
    for (k, dir) in dirs.iter().enumerate() {
        for (i, g) in scene.body().links().iter().enumerate().skip(1) {
            let Some(g) = g else { continue };
            let world = g
                .mesh
                .vertices()
                .iter()
                .map(|&v| poses[i].transform_point3(v))
                .max_by(|a, b| a.dot(*dir).total_cmp(&b.dot(*dir)))
                .unwrap();
            if (i + k) % 2 == 0 || k == 0 {
                points.push(world);
            }
        }
    }
    points
}

fn pairs_for(camera: &Camera, points: &[DVec3], noise_px: f64, seed: u64) -> Vec<PointPair> {
    let mut rng = Rng(seed);
    points
        .iter()
        .map(|&p| {
            let pixel =
                camera.project(p).unwrap() + DVec2::new(rng.normal(), rng.normal()) * noise_px;
            PointPair { pixel, point: p }
        })
        .collect()
}

/// Position error (scene units) and orientation error (degrees).
fn pose_error(fit: &CameraPose, truth: &CameraPose) -> (f64, f64) {
    (
        fit.position().distance(truth.position()),
        fit.rotation.angle_between(truth.rotation).to_degrees(),
    )
}

#[test]
fn labelled_points_fall_on_the_rendered_robot() {
    let scene = scene();
    let camera = truth();
    let view = SceneView::new(&scene, &Q)
        .unwrap()
        .with_obstacles(SurfaceStyle::Hidden);
    let image = view.render(&camera, None).unwrap();
    let background = armature::render::Palette::default().background;
    for p in robot_points(&scene) {
        let px = camera.project(p).unwrap();
        assert!(camera.in_image(px), "{p} projects to {px}, off the image");
        // A vertex may sit on the silhouette: look one pixel around.
        let (x, y) = (px.x.round() as i64, px.y.round() as i64);
        let on_robot = (-1..=1).any(|dy| {
            (-1..=1).any(|dx| {
                let (u, v) = ((x + dx) as u32, (y + dy) as u32);
                image.pixel(u, v).is_some_and(|c| c != background)
            })
        });
        assert!(on_robot, "{p} at pixel {px} is not on the drawn robot");
    }
}

#[test]
fn pnp_recovers_the_known_camera() {
    let scene = scene();
    let camera = truth();
    let all = robot_points(&scene);
    assert!(all.len() >= 12, "{} points", all.len());
    let intrinsics = camera.with_pose(CameraPose::IDENTITY);
    // (points, noise in px, bound on position error, on orientation error
    // in degrees). Without noise the fit is exact; with noise the bounds
    // are a few times what the seeds give, far below what a wrong local
    // minimum or a mirrored pose gives (tens of centimetres, degrees).
    let cases = [
        (4, 0.0, 1e-3, 0.01),
        (8, 0.0, 1e-3, 0.01),
        (12, 0.0, 1e-3, 0.01),
        (4, 0.5, 0.05, 1.5),
        (8, 0.5, 0.03, 0.8),
        (12, 0.5, 0.02, 0.5),
        (8, 1.0, 0.06, 1.5),
        (12, 1.0, 0.04, 1.0),
    ];
    for (n, noise, max_pos, max_deg) in cases {
        let pairs = pairs_for(&camera, &all[..n], noise, 7 + n as u64);
        let fit = solve_pnp(&intrinsics, &pairs, &PnpOptions::default()).unwrap();
        let (pos, deg) = pose_error(&fit.pose, &camera.pose);
        println!(
            "{n:2} points, noise {noise} px: position error {pos:.3e}, orientation error \
             {deg:.3e}°, rms {:.3} px, {} iterations, start {:?}",
            fit.rms_px, fit.iterations, fit.start
        );
        assert!(
            pos < max_pos,
            "{n} points, noise {noise}: position off by {pos}"
        );
        assert!(
            deg < max_deg,
            "{n} points, noise {noise}: orientation off by {deg}°"
        );
        if noise == 0.0 {
            assert!(fit.rms_px < 1e-6, "rms {}", fit.rms_px);
        } else {
            // Noise of σ per axis is σ√2 per point; least squares fits
            // some of it away.
            assert!(fit.rms_px < 2.0 * noise, "rms {}", fit.rms_px);
        }
        let expected = if n >= 6 {
            PnpStart::Dlt
        } else {
            PnpStart::MultiStart
        };
        assert_eq!(fit.start, expected);
    }
}

#[test]
fn three_points_from_a_nearby_start() {
    let scene = scene();
    let camera = truth();
    let points = &robot_points(&scene)[..3];
    let pairs = pairs_for(&camera, points, 0.0, 1);
    // 5 cm and 4° off: P3P has up to four exact solutions, the start
    // picks the right one.
    let start = CameraPose::from_position_orientation(
        camera.pose.position() + DVec3::new(0.03, -0.04, 0.0),
        DQuat::from_rotation_z(4f64.to_radians()) * camera.pose.orientation(),
    );
    let fit = solve_pnp(
        &camera.with_pose(CameraPose::IDENTITY),
        &pairs,
        &PnpOptions::default().with_initial_pose(start),
    )
    .unwrap();
    let (pos, deg) = pose_error(&fit.pose, &camera.pose);
    println!(
        "3 points from a nearby start: position error {pos:.3e}, orientation error {deg:.3e}°"
    );
    assert_eq!(fit.start, PnpStart::Given);
    assert!(pos < 1e-6 && deg < 1e-5, "{pos} {deg}");
    // Without a start, some exact solution: every point reprojects.
    let fit = solve_pnp(&camera, &pairs, &PnpOptions::default()).unwrap();
    assert!(fit.rms_px < 1e-6, "{}", fit.rms_px);
}

#[test]
fn pnp_from_far_from_the_truth() {
    let scene = scene();
    let camera = truth();
    let pairs = pairs_for(&camera, &robot_points(&scene)[..8], 0.5, 3);
    // Behind the robot, 3 m away, looking the other way.
    let far = CameraPose::from_position_orientation(
        DVec3::new(-2.5, 1.5, -0.5),
        DQuat::from_rotation_x(2.0) * DQuat::from_rotation_z(1.0),
    );
    let fit = solve_pnp(
        &camera,
        &pairs,
        &PnpOptions::default().with_initial_pose(far),
    )
    .unwrap();
    let (pos, deg) = pose_error(&fit.pose, &camera.pose);
    println!(
        "8 points, 0.5 px, far start: position error {pos:.3e}, orientation error {deg:.3e}°, \
         start {:?}, {} refinements",
        fit.start, fit.refinements
    );
    assert!(pos < 0.03 && deg < 0.8, "{pos} {deg}");
    // Four points and no start at all: the multi-start search.
    let pairs = pairs_for(&camera, &robot_points(&scene)[2..6], 0.0, 3);
    let fit = solve_pnp(&camera, &pairs, &PnpOptions::default()).unwrap();
    let (pos, deg) = pose_error(&fit.pose, &camera.pose);
    assert!(pos < 1e-3 && deg < 0.01, "{pos} {deg}");
}

#[test]
fn pnp_errors_are_typed() {
    let camera = truth();
    let p = |u: f64, v: f64, x: f64, y: f64, z: f64| PointPair {
        pixel: DVec2::new(u, v),
        point: DVec3::new(x, y, z),
    };
    let two = [p(1.0, 2.0, 0.0, 0.0, 0.0), p(3.0, 4.0, 1.0, 0.0, 0.0)];
    let solve = |pairs: &[PointPair]| solve_pnp(&camera, pairs, &PnpOptions::default());
    assert!(matches!(
        solve(&two),
        Err(Error::Pnp(PnpError::TooFewPoints { count: 2 }))
    ));
    let nan = [
        p(1.0, 2.0, 0.0, 0.0, 0.0),
        p(f64::NAN, 4.0, 1.0, 0.0, 0.0),
        p(5.0, 6.0, 0.0, 1.0, 0.0),
    ];
    assert!(matches!(
        solve(&nan),
        Err(Error::Pnp(PnpError::NonFinite {
            index: 1,
            what: "pixel"
        }))
    ));
    let inf = [
        p(1.0, 2.0, 0.0, 0.0, 0.0),
        p(3.0, 4.0, 1.0, 0.0, 0.0),
        p(5.0, 6.0, 0.0, f64::INFINITY, 0.0),
    ];
    assert!(matches!(
        solve(&inf),
        Err(Error::Pnp(PnpError::NonFinite {
            index: 2,
            what: "point"
        }))
    ));
    let collinear = [
        p(1.0, 2.0, 0.0, 0.0, 0.0),
        p(3.0, 4.0, 1.0, 1.0, 1.0),
        p(5.0, 6.0, 2.0, 2.0, 2.0),
        p(7.0, 8.0, -1.0, -1.0, -1.0),
    ];
    assert!(matches!(
        solve(&collinear),
        Err(Error::Pnp(PnpError::DegeneratePoints))
    ));
    let bad_start = PnpOptions::default().with_initial_pose(CameraPose {
        rotation: DQuat::from_xyzw(0.0, 0.0, 0.0, 2.0),
        translation: DVec3::ZERO,
    });
    let ok = [
        p(1.0, 2.0, 0.0, 0.0, 0.0),
        p(3.0, 4.0, 1.0, 0.0, 0.0),
        p(5.0, 6.0, 0.0, 1.0, 0.0),
    ];
    assert!(matches!(
        solve_pnp(&camera, &ok, &bad_start),
        Err(Error::Pnp(PnpError::BadInitialPose))
    ));
    let mut bad = camera;
    bad.fx = 0.0;
    assert!(matches!(
        solve_pnp(&bad, &ok, &PnpOptions::default()),
        Err(Error::InvalidOption { name: "fx", .. })
    ));
}

/// A camera at the origin looking along +z (OpenCV axes), 200 px focal
/// length, 96×80 pixels.
fn axis_camera() -> Camera {
    Camera::from_intrinsics(96, 80, [200.0, 200.0, 47.5, 39.5]).unwrap()
}

#[test]
fn a_cube_covers_its_projection_and_nothing_else() {
    let camera = axis_camera();
    let centre = DVec3::new(0.05, -0.03, 2.0);
    let half = 0.2;
    let mut vertices = Vec::new();
    for i in 0..8 {
        let s = |b: i32| if i & b == 0 { -half } else { half };
        vertices.push(centre + DVec3::new(s(1), s(2), s(4)));
    }
    // A rotated cube: its image is a hexagon.
    let turn = DQuat::from_rotation_y(0.5) * DQuat::from_rotation_x(0.4);
    let vertices: Vec<DVec3> = vertices
        .iter()
        .map(|&v| centre + turn * (v - centre))
        .collect();
    let faces: [[u32; 4]; 6] = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    let tris: Vec<[u32; 3]> = faces
        .iter()
        .flat_map(|f| [[f[0], f[1], f[2]], [f[0], f[2], f[3]]])
        .collect();
    let mesh = armature::geometry::TriMesh::new(vertices.clone(), tris).unwrap();
    let mut canvas = Canvas::with_color(camera, [0, 0, 0, 255]);
    let white = Material::new([255, 255, 255, 255]).with_shading(Shading::Flat);
    canvas.mesh(&mesh, &glam::DAffine3::IDENTITY, &white);
    let image = canvas.finish();
    // The image of a convex solid is the convex hull of its corners'
    // pixels: signed distances to the hull's edges decide.
    let corners: Vec<DVec2> = vertices
        .iter()
        .map(|&v| camera.project(v).unwrap())
        .collect();
    let hull = convex_hull_2d(&corners);
    let mut inside_count = 0;
    for y in 0..camera.height {
        for x in 0..camera.width {
            let p = DVec2::new(f64::from(x), f64::from(y));
            let d = signed_distance(&hull, p);
            let c = image.pixel(x, y).unwrap();
            if d < -0.01 {
                inside_count += 1;
                assert_eq!(c, [255, 255, 255, 255], "pixel ({x}, {y}) inside by {d}");
            } else if d > 0.01 {
                assert_eq!(c, [0, 0, 0, 255], "pixel ({x}, {y}) outside by {d}");
            }
        }
    }
    assert!(inside_count > 500, "{inside_count}");
}

/// Counter-clockwise (in a y-down image: clockwise on screen) hull by
/// Andrew's monotone chain.
fn convex_hull_2d(points: &[DVec2]) -> Vec<DVec2> {
    let mut p = points.to_vec();
    p.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    let cross = |o: DVec2, a: DVec2, b: DVec2| (a - o).perp_dot(b - o);
    let mut hull: Vec<DVec2> = Vec::new();
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &DVec2>> = if pass == 0 {
            Box::new(p.iter())
        } else {
            Box::new(p.iter().rev())
        };
        for &q in iter {
            while hull.len() >= start + 2
                && cross(hull[hull.len() - 2], hull[hull.len() - 1], q) <= 0.0
            {
                hull.pop();
            }
            hull.push(q);
        }
        hull.pop();
    }
    hull
}

/// Positive outside the convex polygon (counter-clockwise by `perp_dot`),
/// negative inside: the largest signed distance to an edge's line.
fn signed_distance(hull: &[DVec2], p: DVec2) -> f64 {
    (0..hull.len())
        .map(|i| {
            let (a, b) = (hull[i], hull[(i + 1) % hull.len()]);
            -(b - a).perp_dot(p - a) / (b - a).length()
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

#[test]
fn the_near_triangle_hides_the_far_one_in_either_order() {
    let camera = axis_camera();
    let tri = |z: f64| {
        [
            DVec3::new(-0.5, -0.5, z),
            DVec3::new(0.5, -0.5, z),
            DVec3::new(0.0, 0.5, z),
        ]
    };
    let red = Material::new([255, 0, 0, 255]).with_shading(Shading::Flat);
    let blue = Material::new([0, 0, 255, 255]).with_shading(Shading::Flat);
    for near_first in [false, true] {
        let mut canvas = Canvas::with_color(camera, [0, 0, 0, 255]);
        if near_first {
            canvas.triangle(tri(2.0), &blue);
            canvas.triangle(tri(3.0), &red);
        } else {
            canvas.triangle(tri(3.0), &red);
            canvas.triangle(tri(2.0), &blue);
        }
        let image = canvas.finish();
        assert_eq!(image.pixel(47, 40), Some([0, 0, 255, 255]));
        // The far triangle is smaller on the image: its pixels are all
        // hidden; no red anywhere.
        assert!(image.rgba.chunks(4).all(|c| c[0] == 0));
    }
}

#[test]
fn translucent_layers_blend_back_to_front() {
    let camera = axis_camera();
    let tri = |z: f64| {
        [
            DVec3::new(-0.5, -0.5, z),
            DVec3::new(0.5, -0.5, z),
            DVec3::new(0.0, 0.5, z),
        ]
    };
    let background = [0, 0, 200, 255];
    // One layer: out = α·src + (1 − α)·dst.
    let mut canvas = Canvas::with_color(camera, background);
    canvas.triangle(
        tri(2.0),
        &Material::new([255, 0, 0, 64]).with_shading(Shading::Flat),
    );
    let image = canvas.finish();
    let a = 64.0 / 255.0;
    let expect = |src: f64, dst: f64| (src * a + dst * (1.0 - a)).round() as u8;
    assert_eq!(
        image.pixel(47, 40),
        Some([expect(255.0, 0.0), 0, expect(0.0, 200.0), 255])
    );
    // Corner pixels keep the background.
    assert_eq!(image.pixel(0, 0), Some(background));
    // Two layers: the far one first whatever the drawing order.
    let red = Material::new([255, 0, 0, 128]).with_shading(Shading::Flat);
    let green = Material::new([0, 255, 0, 128]).with_shading(Shading::Flat);
    let mut images = Vec::new();
    for near_first in [false, true] {
        let mut canvas = Canvas::with_color(camera, [0, 0, 0, 255]);
        if near_first {
            canvas.triangle(tri(2.0), &green);
            canvas.triangle(tri(3.0), &red);
        } else {
            canvas.triangle(tri(3.0), &red);
            canvas.triangle(tri(2.0), &green);
        }
        images.push(canvas.finish());
    }
    assert_eq!(images[0], images[1]);
    let a: f64 = 128.0 / 255.0;
    // The red byte after the far layer, then the near layer over it.
    let red_byte = (255.0 * a).round();
    let after_green = [
        (red_byte * (1.0 - a)).round() as u8,
        (255.0 * a).round() as u8,
        0,
        255,
    ];
    assert_eq!(images[0].pixel(47, 40), Some(after_green));
    // A translucent triangle behind an opaque one does not show.
    let mut canvas = Canvas::with_color(camera, [0, 0, 0, 255]);
    canvas.triangle(tri(3.0), &green);
    canvas.triangle(
        tri(2.0),
        &Material::new([9, 9, 9, 255]).with_shading(Shading::Flat),
    );
    assert_eq!(canvas.finish().pixel(47, 40), Some([9, 9, 9, 255]));
}

#[test]
fn png_round_trip_and_grey_rgb_files() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("render_png");
    std::fs::create_dir_all(&dir).unwrap();
    let rgba: Vec<u8> = (0..7 * 5 * 4).map(|i| (i * 53 % 251) as u8).collect();
    let image = Image::from_rgba(7, 5, rgba).unwrap();
    let file = dir.join("round_trip.png");
    write_png(&file, &image).unwrap();
    assert_eq!(read_png(&file).unwrap(), image);
    // Files written by another encoder: grey and RGB, 8 and 16 bits.
    let encode = |color: png::ColorType, depth: png::BitDepth, data: &[u8]| {
        let mut out = Vec::new();
        let mut e = png::Encoder::new(&mut out, 2, 1);
        e.set_color(color);
        e.set_depth(depth);
        let mut w = e.write_header().unwrap();
        w.write_image_data(data).unwrap();
        w.finish().unwrap();
        out
    };
    let grey = encode(png::ColorType::Grayscale, png::BitDepth::Eight, &[0, 128]);
    std::fs::write(dir.join("grey.png"), &grey).unwrap();
    assert_eq!(
        read_png(dir.join("grey.png")).unwrap().rgba,
        vec![0, 0, 0, 255, 128, 128, 128, 255]
    );
    let rgb = encode(
        png::ColorType::Rgb,
        png::BitDepth::Eight,
        &[1, 2, 3, 4, 5, 6],
    );
    assert_eq!(
        decode_png(&rgb).unwrap().rgba,
        vec![1, 2, 3, 255, 4, 5, 6, 255]
    );
    let grey16 = encode(
        png::ColorType::Grayscale,
        png::BitDepth::Sixteen,
        &[0xff, 0x00, 0x40, 0xff],
    );
    assert_eq!(
        decode_png(&grey16).unwrap().rgba,
        vec![255, 255, 255, 255, 0x40, 0x40, 0x40, 255]
    );
    // A missing file names itself.
    let missing = dir.join("missing.png");
    let e = read_png(&missing).unwrap_err();
    assert!(
        matches!(e, Error::Io { ref file, .. } if file == &missing),
        "{e}"
    );
}
