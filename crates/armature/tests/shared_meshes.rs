//! Loading scenes: obstacles and links on one mesh file share one
//! geometry, inspecting a scene never builds a convex hull, dropped
//! degenerate triangles become warnings, and mirrored obstacle scales keep
//! closed meshes outward.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use armature::geometry::io::{LoadOptions, load_mesh};
use armature::geometry::{LinkGeometry, TriMesh};
use armature::{Error, LoadWarning, LoadWarningKind, Scene, WarningSubject};

/// A closed, outward latitude–longitude sphere: `2 m (m − 1)` triangles.
fn sphere(m: u32) -> TriMesh {
    let mut v = vec![glam::DVec3::Z, -glam::DVec3::Z];
    for i in 1..m {
        let th = core::f64::consts::PI * f64::from(i) / f64::from(m);
        for j in 0..m {
            let ph = core::f64::consts::TAU * f64::from(j) / f64::from(m);
            v.push(glam::DVec3::new(
                th.sin() * ph.cos(),
                th.sin() * ph.sin(),
                th.cos(),
            ));
        }
    }
    let at = |i: u32, j: u32| 2 + (i - 1) * m + j % m;
    let mut t = Vec::new();
    for j in 0..m {
        t.push([0, at(1, j), at(1, j + 1)]);
        t.push([1, at(m - 1, j + 1), at(m - 1, j)]);
    }
    for i in 1..m - 1 {
        for j in 0..m {
            t.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
            t.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
        }
    }
    TriMesh::new(v, t).unwrap()
}

fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "armature-shared-meshes-{}-{tag}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write_obj(path: &Path, mesh: &TriMesh, extra_faces: &[[u32; 3]]) {
    let mut text = String::new();
    for p in mesh.vertices() {
        writeln!(text, "v {:?} {:?} {:?}", p.x, p.y, p.z).unwrap();
    }
    for t in mesh.indices().iter().chain(extra_faces) {
        writeln!(text, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1).unwrap();
    }
    std::fs::write(path, text).unwrap();
}

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// A scene file: the fixture arm and `obstacles` (name, mesh, scale).
fn scene_text(obstacles: &[(String, &str, f64)]) -> String {
    let arm = fixtures().join("robot/arm.urdf");
    let mut text = format!(
        "Scene(bodies: [Body(name: \"arm\", urdf: {:?})], obstacles: [\n",
        arm.display().to_string()
    );
    for (k, (name, mesh, scale)) in obstacles.iter().enumerate() {
        writeln!(
            text,
            "Obstacle(name: {name:?}, mesh: {mesh:?}, scale: {scale:?}, pose: Pose(translation: \
             ({}.0, 3.0, 0.0), rotation: (0.0, 0.0, 0.0, 1.0))),",
            3 * k
        )
        .unwrap();
    }
    text.push_str("])\n");
    text
}

#[test]
fn a_thousand_obstacles_on_one_mesh_build_it_once() {
    let dir = scratch("thousand");
    let path = dir.join("rock.obj");
    write_obj(&path, &sphere(100), &[]); // 19,800 triangles
    // What one build costs: load and prepare the geometry (best of 3).
    let one = (0..3)
        .map(|_| {
            let start = Instant::now();
            let mesh = load_mesh(&path, &LoadOptions::default()).unwrap();
            let g = LinkGeometry::from_mesh("rock", Arc::new(mesh)).unwrap();
            std::hint::black_box(g);
            start.elapsed()
        })
        .min()
        .unwrap();
    let obstacles: Vec<(String, &str, f64)> = (0..1000)
        .map(|k| (format!("rock{k}"), "rock.obj", 1.0))
        .collect();
    let text = scene_text(&obstacles);
    let start = Instant::now();
    let scene = Scene::from_ron_str(&text, &dir).unwrap();
    let elapsed = start.elapsed();
    assert_eq!(scene.obstacles().len(), 1000);
    let first = scene.obstacles()[0].shared_geometry();
    for o in scene.obstacles() {
        assert!(Arc::ptr_eq(first, o.shared_geometry()), "{}", o.name());
    }
    // Memory: every distinct geometry counted once is one copy.
    let mut distinct = HashSet::new();
    let total: usize = scene
        .obstacles()
        .iter()
        .filter(|o| distinct.insert(Arc::as_ptr(o.shared_geometry())))
        .map(|o| o.geometry().heap_bytes())
        .sum();
    assert_eq!(total, first.heap_bytes());
    // A thousand builds take a thousand times `one`; the shared load
    // (with the arm's URDF) stays far below.
    assert!(
        elapsed < one * 50,
        "1,000 shared obstacles took {elapsed:?}; one build takes {one:?}"
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn two_bodies_from_one_urdf_share_their_mesh_links() {
    let scene = Scene::from_file(fixtures().join("cell.ron")).unwrap();
    let tree = scene.body().tree();
    let link = |n: &str| {
        scene.body().links()[tree.link_index(n).unwrap()]
            .as_ref()
            .unwrap()
    };
    for name in ["fore", "wrist"] {
        let (l, r) = (
            link(&format!("left/{name}")),
            link(&format!("right/{name}")),
        );
        assert!(Arc::ptr_eq(&l.mesh, &r.mesh), "{name}");
        assert!(Arc::ptr_eq(&l.rss_tree, &r.rss_tree), "{name}");
    }
}

/// Everything `armature info` reads from a scene, through the same API.
fn read_like_info(scene: &Scene) -> String {
    let mut out = String::new();
    let body = scene.body();
    for (i, g) in body.links().iter().enumerate() {
        writeln!(
            out,
            "{} {}",
            scene.link_name(i).unwrap_or("?"),
            g.as_ref().map_or(0, |g| g.mesh.num_triangles())
        )
        .unwrap();
    }
    for o in scene.obstacles() {
        writeln!(out, "{} {}", o.name(), o.geometry().mesh.num_triangles()).unwrap();
    }
    writeln!(
        out,
        "{} {} {} {} {:?} {} {} {:?}",
        scene.nq(),
        scene.dof(),
        scene.num_link_triangles(),
        scene.num_obstacle_triangles(),
        scene.disabled_pairs(),
        scene.self_collision(),
        scene.distance_threshold(),
        scene.joints(),
    )
    .unwrap();
    for w in scene.warnings() {
        writeln!(out, "{w}").unwrap();
    }
    out
}

fn hulls_built(scene: &Scene) -> usize {
    let links = scene.body().links().iter().flatten();
    let obstacles = scene.obstacles().iter().map(|o| o.geometry());
    links.chain(obstacles).filter(|g| g.hull_is_built()).count()
}

#[test]
fn loading_and_inspecting_a_scene_builds_no_hull() {
    let scene = Scene::from_file(fixtures().join("cell.ron")).unwrap();
    let text = read_like_info(&scene);
    assert!(text.contains("left/fore"), "{text}");
    assert_eq!(hulls_built(&scene), 0);
    // The M3 volumes do build them: the count can move.
    scene.body().link_sschs().unwrap();
    assert!(hulls_built(&scene) > 0);
}

#[test]
fn dropped_degenerate_triangles_are_warnings() {
    let dir = scratch("warnings");
    let ball = sphere(8);
    // Two degenerate faces, each with a repeated index.
    write_obj(&dir.join("dirty.obj"), &ball, &[[0, 0, 2], [3, 3, 3]]);
    write_obj(&dir.join("clean.obj"), &ball, &[]);
    std::fs::write(
        dir.join("bot.urdf"),
        "<?xml version=\"1.0\"?><robot name=\"bot\">\
         <link name=\"base\"><collision><geometry><mesh filename=\"clean.obj\"/></geometry></collision></link>\
         <link name=\"hand\"><collision><geometry><mesh filename=\"dirty.obj\"/></geometry></collision></link>\
         <joint name=\"j\" type=\"revolute\"><parent link=\"base\"/><child link=\"hand\"/>\
         <axis xyz=\"0 0 1\"/><limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/></joint>\
         </robot>",
    )
    .unwrap();
    let text = "Scene(bodies: [Body(name: \"bot\", urdf: \"bot.urdf\")], obstacles: [\
         Obstacle(name: \"clean\", mesh: \"clean.obj\", pose: Pose(translation: (3.0, 0.0, 0.0), rotation: (0.0, 0.0, 0.0, 1.0))),\
         Obstacle(name: \"dirty\", mesh: \"dirty.obj\", pose: Pose(translation: (6.0, 0.0, 0.0), rotation: (0.0, 0.0, 0.0, 1.0)))])";
    let scene = Scene::from_ron_str(text, &dir).unwrap();
    let expected = |what| LoadWarning {
        what,
        kind: LoadWarningKind::DroppedDegenerateTriangles,
        count: 2,
    };
    assert_eq!(
        scene.warnings(),
        &[
            expected(WarningSubject::Link("bot/hand".to_owned())),
            expected(WarningSubject::Obstacle("dirty".to_owned())),
        ]
    );
    assert_eq!(
        scene.warnings()[1].to_string(),
        "obstacle `dirty`: 2 degenerate triangles dropped"
    );
    // The dropped triangles are gone from the meshes; nothing else is.
    assert_eq!(
        scene.obstacles()[1].geometry().mesh.num_triangles(),
        ball.num_triangles()
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_mirrored_obstacle_scale_flips_the_winding() {
    let dir = scratch("mirror");
    write_obj(&dir.join("ball.obj"), &sphere(12), &[]);
    let obstacles = [
        ("plain".to_owned(), "ball.obj", 1.0),
        ("mirrored".to_owned(), "ball.obj", -1.0),
    ];
    let scene = Scene::from_ron_str(&scene_text(&obstacles), &dir).unwrap();
    let [plain, mirrored] = [0, 1].map(|i| scene.obstacles()[i].geometry());
    assert!(mirrored.is_closed());
    let (v0, v1) = (
        plain.mass.unwrap().volume,
        mirrored.mass.expect("outward after mirroring").volume,
    );
    assert!((v0 - v1).abs() <= 1e-12 * v0, "{v0} vs {v1}");
    for [a, b, c] in mirrored.mesh.triangles() {
        assert!((b - a).cross(c - a).dot(a + b + c) > 0.0);
    }
    let zero = [("zero".to_owned(), "ball.obj", 0.0)];
    let e = Scene::from_ron_str(&scene_text(&zero), &dir).unwrap_err();
    assert!(
        matches!(&e, Error::SceneField { field, .. } if field == "obstacles[0].scale"),
        "{e}"
    );
    std::fs::remove_dir_all(dir).ok();
}
