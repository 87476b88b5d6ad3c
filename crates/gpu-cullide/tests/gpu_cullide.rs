//! CULLIDE on the GPU: hand-built scenes whose answer is known, random
//! triangle soups checked against a brute-force distance, option and input
//! errors, and one timed call on a mid-sized scene.
//!
//! Every test skips (with a message) when no adapter opens, unless
//! `ARMATURE_REQUIRE_GPU=1`.

use std::sync::Arc;
use std::time::Instant;

use armature_bvh_geometry::body::Obstacle;
use armature_bvh_geometry::mesh::{DegeneratePolicy, MeshOptions, TriMesh};
use armature_bvh_geometry::query::{distance_point_triangle, distance_triangle_triangle};
use armature_gpu_cullide::gpu::{GpuCullide, devices_opened, gpu_required};
use armature_gpu_cullide::{
    Bounds, CullResult, CullideError, CullideOptions, Environment, EnvironmentObject, SweptVolume,
};
use glam::{DAffine3, DVec3};

type Tri = [DVec3; 3];

/// The options the tests' margins are measured in: views of 256 × 256
/// pixels (the default is coarser).
fn fine() -> CullideOptions {
    CullideOptions::default().with_resolution(256)
}

/// The GPU instance, or `None` (with a message) when no adapter opens and
/// the GPU is not required.
fn open(env: &Environment, options: &CullideOptions) -> Option<GpuCullide> {
    match GpuCullide::new(env, options) {
        Ok(g) => Some(g),
        Err(CullideError::NoAdapter(why)) if !gpu_required() => {
            eprintln!("skipped: no GPU adapter ({why})");
            None
        }
        Err(e) => panic!("opening the GPU failed: {e}"),
    }
}

/// An axis-aligned box as 8 vertices and 12 outward triangles (closed).
fn box_mesh(min: DVec3, max: DVec3) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let v = (0..8)
        .map(|i| {
            DVec3::new(
                if i & 1 == 0 { min.x } else { max.x },
                if i & 2 == 0 { min.y } else { max.y },
                if i & 4 == 0 { min.z } else { max.z },
            )
        })
        .collect();
    let idx = vec![
        [0, 2, 1],
        [1, 2, 3],
        [4, 5, 6],
        [5, 7, 6],
        [0, 1, 4],
        [1, 5, 4],
        [2, 6, 3],
        [3, 6, 7],
        [0, 4, 2],
        [2, 4, 6],
        [1, 3, 5],
        [3, 7, 5],
    ];
    (v, idx)
}

fn box_soup(min: DVec3, max: DVec3) -> Vec<Tri> {
    let (v, idx) = box_mesh(min, max);
    idx.iter().map(|t| t.map(|i| v[i as usize])).collect()
}

fn mesh(v: Vec<DVec3>, idx: Vec<[u32; 3]>) -> Arc<TriMesh> {
    let options = MeshOptions::default().with_degenerate(DegeneratePolicy::Keep);
    Arc::new(TriMesh::from_vertices_indices(v, idx, &options).expect("mesh"))
}

fn fixed(name: &str, v: Vec<DVec3>, idx: Vec<[u32; 3]>) -> Obstacle {
    Obstacle::fixed(name, mesh(v, idx), DAffine3::IDENTITY).expect("obstacle")
}

/// A static obstacle made of unshared triangles.
fn soup_obstacle(name: &str, soup: &[Tri]) -> Obstacle {
    let v = soup.iter().flatten().copied().collect();
    let idx = (0..soup.len() as u32)
        .map(|t| [3 * t, 3 * t + 1, 3 * t + 2])
        .collect();
    fixed(name, v, idx)
}

fn swept(link: usize, triangles: Vec<Tri>, dilation: f64) -> SweptVolume {
    SweptVolume {
        link,
        bounds: Bounds::of(&triangles, dilation),
        triangles,
        dilation,
    }
}

fn environment(obstacles: &[Obstacle]) -> Environment {
    Environment::from_obstacles(obstacles).expect("environment")
}

fn all(env: &Environment) -> Vec<usize> {
    (0..env.len()).collect()
}

/// The unit cube as a closed obstacle.
fn unit_cube_env() -> Environment {
    let (v, i) = box_mesh(DVec3::ZERO, DVec3::ONE);
    environment(&[fixed("cube", v, i)])
}

#[test]
fn boxes_far_apart_are_culled_and_overlapping_ones_kept() {
    let env = unit_cube_env();
    let Some(mut gpu) = open(&env, &fine()) else {
        return;
    };
    eprintln!("adapter: {}", gpu.adapter_name());
    let far = swept(
        0,
        box_soup(DVec3::new(3.0, 0.0, 0.0), DVec3::new(4.0, 1.0, 1.0)),
        0.0,
    );
    let r = gpu.cull(std::slice::from_ref(&far), &[0]).expect("cull");
    assert_eq!(r.swept, [false]);
    assert_eq!(r.environment, [false]);

    let near = swept(1, box_soup(DVec3::splat(0.5), DVec3::splat(1.5)), 0.0);
    let r = gpu.cull(std::slice::from_ref(&near), &[0]).expect("cull");
    assert_eq!(r.swept, [true]);
    assert_eq!(r.environment, [true]);

    // Together: the far box goes, the overlapping one stays.
    let r = gpu.cull(&[far, near], &[0]).expect("cull");
    assert_eq!(r.swept, [false, true]);
    assert_eq!(r.environment, [true]);
    // Three views of two passes for the overlapping pair at least.
    assert!(r.passes >= 6 && r.queries >= 6, "{r:?}");
}

#[test]
fn boxes_touching_on_a_face_are_kept() {
    let env = unit_cube_env();
    let Some(mut gpu) = open(&env, &fine()) else {
        return;
    };
    let touching = swept(
        0,
        box_soup(DVec3::new(1.0, 0.2, 0.2), DVec3::new(2.0, 0.8, 0.8)),
        0.0,
    );
    let r = gpu.cull(&[touching], &[0]).expect("cull");
    assert_eq!(
        (r.swept.as_slice(), r.environment.as_slice()),
        (&[true][..], &[true][..])
    );
}

#[test]
fn volume_inside_a_closed_box_is_kept() {
    let (v, i) = box_mesh(DVec3::splat(-2.0), DVec3::splat(2.0));
    let env = environment(&[fixed("room", v, i)]);
    let Some(mut gpu) = open(&env, &fine()) else {
        return;
    };
    let inside = swept(0, box_soup(DVec3::splat(-0.1), DVec3::splat(0.1)), 0.01);
    let r = gpu.cull(&[inside], &[0]).expect("cull");
    assert_eq!(r.swept, [true]);
    assert_eq!(r.environment, [true]);
}

#[test]
fn volume_inside_an_open_box_is_culled() {
    // The box without its top face (z = 2): not a solid, and the volume
    // inside stays clear of its walls, so both go (seen along Z, the
    // volume hides the floor entirely).
    let (v, mut i) = box_mesh(DVec3::splat(-2.0), DVec3::splat(2.0));
    i.retain(|t| !t.iter().all(|&k| k & 4 != 0));
    assert_eq!(i.len(), 10);
    let env = environment(&[fixed("open room", v, i)]);
    let Some(mut gpu) = open(&env, &fine()) else {
        return;
    };
    let inside = swept(0, box_soup(DVec3::splat(-0.1), DVec3::splat(0.1)), 0.01);
    let r = gpu.cull(&[inside], &[0]).expect("cull");
    assert_eq!(r.swept, [false], "{r:?}");
    assert_eq!(r.environment, [false], "{r:?}");
}

#[test]
fn dilation_decides_at_a_gap() {
    let env = unit_cube_env();
    let Some(mut gpu) = open(&env, &fine()) else {
        return;
    };
    // A small box diagonally off the cube's edge x = y = 1, 0.2√2 ≈ 0.2828
    // away: the boxes' bounds overlap for every dilation below, so the
    // raster decides.
    let soup = box_soup(DVec3::new(1.2, 1.2, 0.4), DVec3::new(1.3, 1.3, 0.6));
    let gap = 0.2 * std::f64::consts::SQRT_2;
    for (dilation, kept) in [
        (gap, true),
        (gap + 0.01, true),
        (gap - 0.01, false),
        (0.25, false),
        (0.21, false),
    ] {
        let r = gpu
            .cull(&[swept(0, soup.clone(), dilation)], &[0])
            .expect("cull");
        assert_eq!(r.swept, [kept], "dilation {dilation}: {r:?}");
        assert_eq!(r.environment, [kept], "dilation {dilation}: {r:?}");
        assert!(
            r.rounds >= 1 && r.queries >= 1,
            "dilation {dilation}: {r:?}"
        );
    }
    // Straight off the face x = 1, 0.5 away: decided by the bounds alone.
    let soup = box_soup(DVec3::new(1.5, 0.4, 0.4), DVec3::new(1.7, 0.6, 0.6));
    for (dilation, kept) in [(0.5, true), (0.45, false)] {
        let r = gpu
            .cull(&[swept(0, soup.clone(), dilation)], &[0])
            .expect("cull");
        assert_eq!(r.swept, [kept], "dilation {dilation}: {r:?}");
    }
}

#[test]
fn a_dilated_point_touching_a_wall_is_kept() {
    let env = unit_cube_env();
    let Some(mut gpu) = open(&env, &fine()) else {
        return;
    };
    let point = |p: DVec3, r: f64| swept(0, vec![[p, p, p]], r);
    let corner = DVec3::new(1.3, 1.3, 0.5);
    // 0.3√2 ≈ 0.4243 from the cube.
    for (s, kept) in [
        (point(DVec3::new(1.5, 0.5, 0.5), 0.5), true),
        (point(corner, 0.43), true),
        (point(corner, 0.4243), true),
        (point(corner, 0.41), false),
        (point(corner, 0.35), false),
        (point(DVec3::splat(5.0), 0.5), false),
    ] {
        let r = gpu.cull(std::slice::from_ref(&s), &[0]).expect("cull");
        assert_eq!(r.swept, [kept], "{s:?}: {r:?}");
    }
    // A zero-area segment triangle (collinear corners) on the line
    // x + y = 2.3, z = 0.5, which passes 0.3/√2 ≈ 0.2121 from the cube's
    // edge.
    let a = DVec3::new(1.8, 0.5, 0.5);
    let b = DVec3::new(0.5, 1.8, 0.5);
    let segment = |r: f64| swept(0, vec![[a, b, a + (b - a) * 0.25]], r);
    for (r, kept) in [(0.22, true), (0.2122, true), (0.2, false), (0.15, false)] {
        let out = gpu.cull(&[segment(r)], &[0]).expect("cull");
        assert_eq!(out.swept, [kept], "segment dilated by {r}: {out:?}");
        assert!(out.rounds >= 1, "{out:?}");
    }
}

#[test]
fn triangles_reaching_far_outside_the_view_are_handled() {
    // A floor of two triangles 200 units wide and a closed room 40 units
    // wide; the swept volumes are small, so the views zoom onto them and
    // the big triangles' corners lie far outside.
    let (fv, fi) = (
        vec![
            DVec3::new(-100.0, -100.0, 0.0),
            DVec3::new(100.0, -100.0, 0.0),
            DVec3::new(100.0, 100.0, 0.0),
            DVec3::new(-100.0, 100.0, 0.0),
        ],
        vec![[0, 1, 2], [0, 2, 3]],
    );
    let (rv, ri) = box_mesh(DVec3::new(-20.0, -20.0, -1.0), DVec3::new(20.0, 20.0, 30.0));
    let env = environment(&[fixed("floor", fv, fi), fixed("room", rv, ri)]);
    let Some(mut gpu) = open(&env, &fine()) else {
        return;
    };
    let cube = |z: f64, r: f64| {
        swept(
            0,
            box_soup(DVec3::new(3.0, 4.0, z), DVec3::new(3.1, 4.1, z + 0.1)),
            r,
        )
    };
    // Resting on the floor (touching), inside the room: both kept.
    let r = gpu.cull(&[cube(0.0, 0.0)], &[0, 1]).expect("cull");
    assert_eq!(
        (r.swept.clone(), r.environment.clone()),
        (vec![true], vec![true, true])
    );
    // Dilated down to the floor.
    let r = gpu.cull(&[cube(0.05, 0.05)], &[0]).expect("cull");
    assert_eq!(r.swept, [true], "{r:?}");
    // Clear of the floor by 0.02 (a dilation of 0.03 from 0.05 up).
    let r = gpu.cull(&[cube(0.05, 0.03)], &[0]).expect("cull");
    assert_eq!(r.swept, [false], "{r:?}");
    // Floating in the room, clear of the floor: only the room is kept.
    let r = gpu.cull(&[cube(5.0, 0.1)], &[0, 1]).expect("cull");
    assert_eq!(
        (r.swept.clone(), r.environment.clone()),
        (vec![true], vec![false, true]),
        "{r:?}"
    );
}

#[test]
fn swept_volume_without_triangles_is_culled() {
    let env = unit_cube_env();
    let Some(mut gpu) = open(&env, &fine()) else {
        return;
    };
    let empty = swept(0, Vec::new(), 0.1);
    let full = swept(1, box_soup(DVec3::splat(0.5), DVec3::splat(1.5)), 0.0);
    let r = gpu.cull(&[empty, full], &[0]).expect("cull");
    assert_eq!(r.swept, [false, true]);
    assert_eq!(r.environment, [true]);
    let r = gpu.cull(&[], &[0]).expect("cull");
    assert_eq!(r.environment, [false]);
    let r = gpu
        .cull(&[swept(0, box_soup(DVec3::ZERO, DVec3::ONE), 0.0)], &[])
        .expect("cull");
    assert_eq!(r.swept, [false]);
}

#[test]
fn moving_candidates_are_kept_and_keep_nothing() {
    let (v, i) = box_mesh(DVec3::ZERO, DVec3::ONE);
    let cube = fixed("cube", v, i);
    let (v, i) = box_mesh(DVec3::splat(10.0), DVec3::splat(11.0));
    let moving = Obstacle::moving(
        "moving",
        mesh(v, i),
        DAffine3::IDENTITY,
        DAffine3::from_translation(DVec3::X),
    )
    .expect("moving obstacle");
    let env = environment(&[cube, moving]);
    let Some(mut gpu) = open(&env, &fine()) else {
        return;
    };
    // Overlaps the moving obstacle only.
    let s = swept(0, box_soup(DVec3::splat(10.5), DVec3::splat(11.5)), 0.0);
    let r = gpu.cull(&[s], &[0, 1]).expect("cull");
    assert_eq!(r.environment, [false, true]);
    assert_eq!(r.swept, [false]);
}

#[test]
fn options_and_inputs_are_checked() {
    let env = unit_cube_env();
    for bad in [
        CullideOptions::default().with_resolution(8),
        CullideOptions::default().with_resolution(8192),
        CullideOptions::default().with_max_rounds(0),
    ] {
        assert!(
            matches!(
                GpuCullide::new(&env, &bad),
                Err(CullideError::InvalidOption { .. })
            ),
            "{bad:?}"
        );
    }
    let Some(mut gpu) = open(&env, &CullideOptions::default().with_resolution(64)) else {
        return;
    };
    assert_eq!(gpu.options().resolution, 64);
    let s = swept(0, box_soup(DVec3::ZERO, DVec3::ONE), 0.0);
    match gpu.cull(std::slice::from_ref(&s), &[0, 1]) {
        Err(CullideError::Index {
            index: 1, len: 1, ..
        }) => {}
        other => panic!("expected an index error, got {other:?}"),
    }
    let mut nan = s.clone();
    nan.triangles[3][1].y = f64::NAN;
    assert!(matches!(
        gpu.cull(&[nan], &[0]),
        Err(CullideError::NonFinite { .. })
    ));
    for dilation in [f64::INFINITY, -1.0, f64::NAN] {
        let mut bad = s.clone();
        bad.dilation = dilation;
        assert!(matches!(
            gpu.cull(&[bad], &[0]),
            Err(CullideError::NonFinite { .. })
        ));
    }
    // The instance still works after rejected calls.
    assert_eq!(gpu.cull(&[s], &[0]).expect("cull").swept, [true]);
}

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[lo, hi)`.
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    fn point(&mut self, centre: DVec3, half: f64) -> DVec3 {
        centre
            + DVec3::new(
                self.range(-half, half),
                self.range(-half, half),
                self.range(-half, half),
            )
    }

    /// 1 to `max` triangles around `centre`, some of them degenerate.
    fn soup(&mut self, centre: DVec3, half: f64, max: usize, degenerate: bool) -> Vec<Tri> {
        (0..1 + self.below(max))
            .map(|_| {
                let a = self.point(centre, half);
                let b = self.point(centre, half);
                match (degenerate, self.below(6)) {
                    (true, 0) => [a, a, a],
                    (true, 1) => [a, b, a + (b - a) * self.range(0.0, 1.0)],
                    _ => [a, b, self.point(centre, half)],
                }
            })
            .collect()
    }
}

/// Smallest distance between two soups.
fn soup_distance(a: &[Tri], b: &[Tri]) -> f64 {
    a.iter()
        .flat_map(|s| b.iter().map(move |t| distance_triangle_triangle(s, t)))
        .fold(f64::INFINITY, f64::min)
}

/// The exact answer: a swept volume and an environment object overlap when
/// their triangles come within the sum of the dilations, or when a swept
/// corner lies inside a closed object (`inside(k, p)`; the other way round
/// is a distance within the swept dilation already).
fn brute_force_with(
    swept: &[SweptVolume],
    env: &Environment,
    inside: &dyn Fn(usize, DVec3) -> bool,
) -> CullResult {
    let mut r = CullResult {
        swept: vec![false; swept.len()],
        environment: vec![false; env.len()],
        ..CullResult::default()
    };
    for (i, s) in swept.iter().enumerate() {
        for (k, o) in env.objects().iter().enumerate() {
            let contained = o.closed && s.triangles.iter().flatten().any(|&p| inside(k, p));
            if contained || soup_distance(&s.triangles, &o.triangles) <= s.dilation + o.dilation {
                r.swept[i] = true;
                r.environment[k] = true;
            }
        }
    }
    r
}

/// [`brute_force_with`] for open objects only.
fn brute_force(swept: &[SweptVolume], env: &Environment) -> CullResult {
    brute_force_with(swept, env, &|_, _| false)
}

/// A random rotation (unit quaternion from four normal-ish components).
fn rotation(rng: &mut Rng) -> glam::DQuat {
    let q = glam::DQuat::from_xyzw(
        rng.range(-1.0, 1.0),
        rng.range(-1.0, 1.0),
        rng.range(-1.0, 1.0),
        rng.range(-1.0, 1.0),
    );
    if q.length() < 1e-3 {
        glam::DQuat::IDENTITY
    } else {
        q.normalize()
    }
}

/// Instances share the process's one device: a driver may refuse a
/// process more than a few dozen (the NVIDIA Vulkan driver stopped
/// enumerating adapters at the 31st), and the random-soup test alone makes
/// 200 instances.
#[test]
fn instances_share_one_device() {
    let env = unit_cube_env();
    for k in 0..60 {
        let Some(gpu) = open(&env, &fine()) else {
            return;
        };
        assert!(!gpu.adapter_name().is_empty());
        assert_eq!(devices_opened(), 1, "instance {k}");
    }
}

#[test]
fn random_soups_never_lose_an_overlap() {
    let mut rng = Rng(0x00C0_FFEE);
    let mut adapter = None;
    let (mut overlaps, mut culled, mut objects, mut gpu_cases) = (0, 0, 0, 0);
    for case in 0..200 {
        let resolution = [16, 32, 64, 256][case % 4];
        // Open soups and closed boxes (rotated, half-size in `boxes`).
        let mut boxes: Vec<Option<(DAffine3, DVec3)>> = Vec::new();
        let obstacles: Vec<Obstacle> = (0..1 + rng.below(3))
            .map(|k| {
                let c = rng.point(DVec3::splat(0.5), 0.5);
                if rng.below(4) == 0 {
                    let half = DVec3::new(
                        rng.range(0.02, 0.3),
                        rng.range(0.02, 0.3),
                        rng.range(0.02, 0.3),
                    );
                    let pose = DAffine3::from_rotation_translation(rotation(&mut rng), c);
                    boxes.push(Some((pose, half)));
                    let (v, i) = box_mesh(-half, half);
                    Obstacle::fixed(format!("box {k}"), mesh(v, i), pose).expect("obstacle")
                } else {
                    boxes.push(None);
                    let half = rng.range(0.02, 0.3);
                    soup_obstacle(&format!("soup {k}"), &rng.soup(c, half, 4, false))
                }
            })
            .collect();
        let env = environment(&obstacles);
        let inside = |k: usize, p: DVec3| {
            boxes[k].is_some_and(|(pose, half)| {
                let local = pose.inverse().transform_point3(p);
                local.abs().cmplt(half).all()
            })
        };
        let sweeps: Vec<SweptVolume> = (0..1 + rng.below(3))
            .map(|i| {
                let c = rng.point(DVec3::splat(0.5), 0.5);
                let half = rng.range(0.0, 0.3);
                let soup = rng.soup(c, half, 4, true);
                let dilation = match rng.below(4) {
                    0 => 0.0,
                    // Exactly touching one environment object.
                    1 => {
                        let k = rng.below(env.len());
                        soup_distance(&soup, &env.objects()[k].triangles)
                    }
                    _ => rng.range(0.0, 0.15),
                };
                swept(i, soup, dilation)
            })
            .collect();
        let options = CullideOptions::default().with_resolution(resolution);
        let Some(mut gpu) = open(&env, &options) else {
            return;
        };
        let gpu_answer = gpu.cull(&sweeps, &all(&env)).expect("cull");
        let exact = brute_force_with(&sweeps, &env, &inside);
        assert!(
            gpu_answer.contains(&exact),
            "case {case} (resolution {resolution}): GPU {gpu_answer:?} lost an overlap of {exact:?}\n\
             swept {sweeps:?}\nenvironment {:?}",
            env.objects()
        );
        overlaps += exact.swept_left() + exact.environment_left();
        culled += gpu_answer.swept.len() + gpu_answer.environment.len()
            - gpu_answer.swept_left()
            - gpu_answer.environment_left();
        objects += sweeps.len() + env.len();
        gpu_cases += usize::from(gpu_answer.rounds > 0);
        adapter.get_or_insert(gpu.adapter_name().to_owned());
    }
    eprintln!(
        "random soups on {adapter:?}: {objects} objects, {overlaps} overlapping, {culled} culled, \
         {gpu_cases} cases ran the GPU"
    );
    // Most random pairs are apart: a GPU that kept everything fails here.
    assert!(culled > objects / 5, "only {culled} of {objects} culled");
}

#[test]
fn separated_soups_are_culled() {
    // Objects in cells of a 4 × 4 × 4 grid over [0, 1]³, each within 0.1 of
    // its cell's centre: any two are apart by at least 0.05 along some
    // axis (about 13 pixels at resolution 256), so CULLIDE separates them.
    let mut rng = Rng(0x5EED_0001);
    for case in 0..40 {
        let mut cells: Vec<usize> = (0..64).collect();
        let mut take = || {
            let k = rng.below(cells.len());
            let c = cells.swap_remove(k);
            DVec3::new((c % 4) as f64, ((c / 4) % 4) as f64, (c / 16) as f64) * 0.25
                + DVec3::splat(0.125)
        };
        let env_centres: Vec<DVec3> = (0..3).map(|_| take()).collect();
        let swept_centres: Vec<DVec3> = (0..4).map(|_| take()).collect();
        let env_soups: Vec<Vec<Tri>> = env_centres
            .iter()
            .map(|&c| rng.soup(c, 0.1, 4, false))
            .collect();
        let obstacles: Vec<Obstacle> = env_soups
            .iter()
            .enumerate()
            .map(|(k, s)| soup_obstacle(&format!("soup {k}"), s))
            .collect();
        let env = environment(&obstacles);
        let sweeps: Vec<SweptVolume> = swept_centres
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                let r = rng.range(0.0, 0.02);
                swept(i, rng.soup(c, 0.1 - r, 4, true), r)
            })
            .collect();
        let Some(mut gpu) = open(&env, &fine()) else {
            return;
        };
        let r = gpu.cull(&sweeps, &all(&env)).expect("cull");
        assert_eq!(
            r.swept_left() + r.environment_left(),
            0,
            "case {case}: {r:?}"
        );
    }
}

#[test]
fn many_objects_span_several_query_sets() {
    // One big triangle in the plane x + y + z = 1.5, across [0, 1]³, and
    // 1,400 small swept triangles in the cube: each view sees every swept
    // volume over the plate, so the first round needs more queries than one
    // query set holds. Those in front of the plate (smaller coordinates)
    // are culled by the forward passes, those behind or touching it stay.
    let plate = [
        DVec3::new(-1.0, -1.0, 3.5),
        DVec3::new(3.5, -1.0, -1.0),
        DVec3::new(-1.0, 3.5, -1.0),
    ];
    let env = environment(&[soup_obstacle("plate", &[plate])]);
    let mut rng = Rng(0xABCD);
    let sweeps: Vec<SweptVolume> = (0..1400)
        .map(|i| {
            let c = rng.point(DVec3::splat(0.5), 0.45);
            let soup = rng.soup(c, 0.02, 1, true);
            swept(i, soup, rng.range(0.0, 0.02))
        })
        .collect();
    let Some(mut gpu) = open(&env, &fine()) else {
        return;
    };
    let r = gpu.cull(&sweeps, &all(&env)).expect("cull");
    let exact = brute_force(&sweeps, &env);
    assert!(r.contains(&exact), "GPU lost an overlap");
    assert!(r.queries > 4096, "{} queries", r.queries);
    assert!(r.passes > 6, "{} passes in {} rounds", r.passes, r.rounds);
    // In front of the plate by more than a few pixels: culled.
    let in_front = |s: &SweptVolume| {
        s.triangles
            .iter()
            .flatten()
            .all(|p| (p.x + p.y + p.z - 1.5) / 3f64.sqrt() < -(s.dilation + 0.03))
    };
    for (i, s) in sweeps.iter().enumerate() {
        if in_front(s) {
            assert!(!r.swept[i], "swept volume {i} in front of the plate kept");
        }
    }
    let fronts = sweeps.iter().filter(|s| in_front(s)).count();
    assert!(fronts > 300, "only {fronts} swept volumes in front");
    eprintln!(
        "{} of 1400 swept volumes kept ({} overlap, {fronts} clearly in front), \
         {} rounds, {} passes, {} queries",
        r.swept_left(),
        exact.swept_left(),
        r.rounds,
        r.passes,
        r.queries
    );
}

/// A UV sphere of `stacks × slices × 2` triangles (closed).
fn sphere(centre: DVec3, radius: f64, stacks: u32, slices: u32) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let mut v = Vec::new();
    for i in 0..=stacks {
        let theta = std::f64::consts::PI * f64::from(i) / f64::from(stacks);
        for j in 0..slices {
            let phi = std::f64::consts::TAU * f64::from(j) / f64::from(slices);
            v.push(
                centre
                    + radius
                        * DVec3::new(
                            theta.sin() * phi.cos(),
                            theta.sin() * phi.sin(),
                            theta.cos(),
                        ),
            );
        }
    }
    let at = |i: u32, j: u32| i * slices + j % slices;
    let mut idx = Vec::new();
    for i in 0..stacks {
        for j in 0..slices {
            idx.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
            idx.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
        }
    }
    (v, idx)
}

/// A ruled strip between two curves, as a link's sweep tessellates.
fn strip(a0: DVec3, a1: DVec3, b0: DVec3, b1: DVec3, bend: DVec3, n: u32) -> Vec<Tri> {
    let at = |p: DVec3, q: DVec3, t: f64| p + (q - p) * t + bend * (4.0 * t * (1.0 - t));
    (0..n)
        .flat_map(|k| {
            let (t0, t1) = (f64::from(k) / f64::from(n), f64::from(k + 1) / f64::from(n));
            let (p0, p1) = (at(a0, a1, t0), at(a0, a1, t1));
            let (q0, q1) = (at(b0, b1, t0), at(b0, b1, t1));
            [[p0, p1, q1], [p0, q1, q0]]
        })
        .collect()
}

#[test]
fn a_mid_sized_scene_keeps_its_overlaps() {
    // Five spheres of 5,000 triangles, seven strips of 500 triangles
    // dilated by 0.05; some strips cross a sphere, others pass near one.
    let centres: Vec<DVec3> = (0..5)
        .map(|k| {
            DVec3::new(
                f64::from(k) * 0.6 - 1.2,
                0.45,
                0.1 + 0.25 * f64::from(k % 2),
            )
        })
        .collect();
    let radius = 0.25;
    let obstacles: Vec<Obstacle> = centres
        .iter()
        .enumerate()
        .map(|(k, &c)| {
            let (v, i) = sphere(c, radius, 50, 50);
            fixed(&format!("sphere {k}"), v, i)
        })
        .collect();
    let env = environment(&obstacles);
    assert_eq!(env.num_triangles(), 25_000);
    let sweeps: Vec<SweptVolume> = (0..7)
        .map(|i| {
            let x = f64::from(i) * 0.4 - 1.2;
            let a0 = DVec3::new(x, -0.5, 0.0);
            let b0 = DVec3::new(x + 0.1, 0.1 + 0.15 * f64::from(i % 3), 0.1);
            let shift = DVec3::new(0.2, 0.0, 0.3);
            let s = strip(
                a0,
                a0 + shift,
                b0,
                b0 + shift,
                DVec3::new(0.0, 0.05, 0.1),
                250,
            );
            swept(i as usize, s, 0.05)
        })
        .collect();
    // Nearly exact answer: a strip meets a sphere when it comes within the
    // radius plus the dilation of its centre (the tessellated sphere lies
    // within 0.001 inside the true one, the margin below).
    let mut exact = CullResult {
        swept: vec![false; 7],
        environment: vec![false; 5],
        ..CullResult::default()
    };
    for (i, s) in sweeps.iter().enumerate() {
        for (k, &c) in centres.iter().enumerate() {
            let d = s
                .triangles
                .iter()
                .map(|t| distance_point_triangle(c, t))
                .fold(f64::INFINITY, f64::min);
            if d <= radius + s.dilation - 0.001 {
                exact.swept[i] = true;
                exact.environment[k] = true;
            }
        }
    }

    let options = fine();
    let start = Instant::now();
    let Some(mut gpu) = open(&env, &options) else {
        return;
    };
    let opened = start.elapsed();
    let candidates = all(&env);
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..3 {
        let start = Instant::now();
        let r = gpu.cull(&sweeps, &candidates).expect("cull");
        times.push(start.elapsed());
        assert!(
            last.as_ref().is_none_or(|l| *l == r),
            "answers differ between calls"
        );
        last = Some(r);
    }
    let r = last.expect("three calls");
    assert!(r.contains(&exact), "GPU {r:?} lost an overlap of {exact:?}");
    eprintln!(
        "timing on {}: new {opened:?}, cull {times:?}; kept {} of 7 swept ({} overlap) \
         and {} of 5 obstacles ({} overlap), {} rounds, {} passes, {} queries",
        gpu.adapter_name(),
        r.swept_left(),
        exact.swept_left(),
        r.environment_left(),
        exact.environment_left(),
        r.rounds,
        r.passes,
        r.queries
    );
}

#[test]
fn the_instance_can_move_between_threads() {
    fn shared<T: Send + Sync>() {}
    shared::<GpuCullide>();
}

/// Environment objects carry a dilation of their own: a point obstacle
/// grown by `R_e` meets a point swept volume grown by `R_s` when the points
/// are at most `R_s + R_e` apart.
#[test]
fn environment_dilation_counts() {
    let p = DVec3::new(0.0, 0.0, 0.0);
    let q = DVec3::new(0.6, 0.8, 0.0); // 1.0 from p
    for (re, rs, kept) in [
        (0.5, 0.5, true),
        (0.7, 0.31, true),
        (0.45, 0.45, false),
        (0.2, 0.3, false),
    ] {
        let env = Environment::from_objects(vec![EnvironmentObject::new(
            "point",
            vec![[p, p, p]],
            re,
            false,
        )]);
        let Some(mut gpu) = open(&env, &fine()) else {
            return;
        };
        let s = swept(0, vec![[q, q, q]], rs);
        let r = gpu.cull(&[s], &[0]).expect("cull");
        assert_eq!(r.swept, [kept], "R_e {re}, R_s {rs}: {r:?}");
        assert_eq!(r.environment, [kept], "R_e {re}, R_s {rs}: {r:?}");
    }
}
