//! M1's stage 2, swept-volume culling, in the pipeline: on random motions
//! of the Puma in both benchmark scenes, `1+2+3` (stage 2 on the GPU and
//! on the CPU reference) answers as `1+3` does and as the oracle allows,
//! stage 2 actually culls pairs, and the GPU keeps every object the exact
//! CPU reference keeps.
//!
//! GPU parts skip with a printed reason when no adapter opens, unless
//! `ARMATURE_REQUIRE_GPU=1`, which makes that a failure.

use std::f64::consts::PI;

use armature::cullide::gpu::{GpuCullide, gpu_required};
use armature::cullide::{
    CpuCullide, CullideError, CullideOptions, Environment, Sweeper, SweptOptions,
};
use armature::kinematics::InBetweenMotion;
use armature::oracle::{Mode, Oracle, OracleOptions};
use armature::{ExactStage, Pipeline, Scene, SweptVolumeCulling};

mod common;

use common::Rng;

fn scene(file: &str) -> Scene {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/scenes");
    Scene::from_file(data.join(file)).expect("benchmark scene loads")
}

fn limits(scene: &Scene) -> Vec<(f64, f64)> {
    let mut out = vec![(-PI, PI); scene.nq()];
    for j in scene.joints() {
        for k in j.q.clone() {
            out[k] = j.limits.unwrap_or((-PI, PI));
        }
    }
    out
}

/// A free start and a random step of at most `theta` per joint.
fn motion(scene: &Scene, pipeline: &Pipeline, rng: &mut Rng, theta: f64) -> (Vec<f64>, Vec<f64>) {
    let limits = limits(scene);
    loop {
        let q0: Vec<f64> = limits.iter().map(|&(lo, hi)| rng.uniform(lo, hi)).collect();
        if pipeline.collides(scene, &q0).expect("check runs") {
            continue;
        }
        let q1 = q0
            .iter()
            .zip(&limits)
            .map(|(&q, &(lo, hi))| (q + rng.uniform(-theta, theta)).clamp(lo, hi))
            .collect();
        return (q0, q1);
    }
}

fn m1(culling: SweptVolumeCulling) -> Pipeline {
    Pipeline::builder()
        .exact_stage(ExactStage::Elementary)
        .swept_volume_culling(culling)
        .build()
        .expect("pipeline builds")
}

/// Whether the GPU runs here; `false` with a printed reason (a failure
/// under `ARMATURE_REQUIRE_GPU=1`).
fn gpu_available(prepared_backend: Option<&str>) -> bool {
    let on_gpu = prepared_backend.is_some_and(|b| b.starts_with("GPU"));
    if !on_gpu {
        assert!(
            !gpu_required(),
            "ARMATURE_REQUIRE_GPU=1 but stage 2 runs on {prepared_backend:?}"
        );
        eprintln!("skipping the GPU half: stage 2 runs on {prepared_backend:?}");
    }
    on_gpu
}

#[test]
fn stage_two_answers_as_stages_one_and_three_and_culls() {
    for (file, angles, seed) in [
        ("puma_pipes.ron", &[5.0, 30.0][..], 0x2c01_u64),
        ("puma_amr.ron", &[30.0, 60.0][..], 0x2c02),
    ] {
        let scene = scene(file);
        let oracle = Oracle::new(&scene, OracleOptions::default().with_mode(Mode::Fast))
            .expect("oracle builds");
        let plain = m1(SweptVolumeCulling::Off);
        let mut base = plain.prepare(&scene).expect("prepares");
        let mut cpu = m1(SweptVolumeCulling::Cpu)
            .prepare(&scene)
            .expect("prepares");
        let gpu_pipeline = m1(SweptVolumeCulling::Gpu);
        let mut gpu = gpu_pipeline.prepare(&scene).expect("prepares");
        let on_gpu = gpu_available(gpu.swept_volume_backend());
        let mut rng = Rng(seed);
        let (mut before, mut after_cpu, mut after_gpu) = (0, 0, 0);
        for &angle in angles {
            for _ in 0..8 {
                let (q0, q1) = motion(&scene, &plain, &mut rng, f64::to_radians(angle));
                let r = base.first_contact(&q0, &q1).expect("query runs");
                let rc = cpu.first_contact(&q0, &q1).expect("query runs");
                let ec = cpu
                    .first_contact_elementary(&q0, &q1)
                    .expect("query runs")
                    .expect("elementary");
                before += ec.stats.pairs_after_hierarchy;
                after_cpu += ec.stats.pairs_after_culling;
                assert_eq!(r.status, rc.status, "{file} {angle}° cpu: {q0:?} → {q1:?}");
                assert_eq!(r.toc_lower_bound, rc.toc_lower_bound, "{file} cpu");
                assert_eq!(r.contact.map(|c| c.time), rc.contact.map(|c| c.time));
                let j = oracle.judge(&rc, &q0, &q1).expect("judge runs");
                assert!(!j.is_defect(), "{file} {angle}° cpu: {j:?}");
                if on_gpu {
                    let rg = gpu.first_contact(&q0, &q1).expect("query runs");
                    let eg = gpu
                        .first_contact_elementary(&q0, &q1)
                        .expect("query runs")
                        .expect("elementary");
                    after_gpu += eg.stats.pairs_after_culling;
                    // The GPU keeps at least the pairs the exact reference keeps.
                    assert!(eg.stats.pairs_after_culling >= ec.stats.pairs_after_culling);
                    assert_eq!(r.status, rg.status, "{file} {angle}° gpu: {q0:?} → {q1:?}");
                    assert_eq!(r.toc_lower_bound, rg.toc_lower_bound, "{file} gpu");
                    let j = oracle.judge(&rg, &q0, &q1).expect("judge runs");
                    assert!(!j.is_defect(), "{file} {angle}° gpu: {j:?}");
                }
            }
        }
        eprintln!(
            "{file}: pairs after stage 1 {before}, after stage 2 on the CPU {after_cpu}, on the GPU {after_gpu}"
        );
        // Stage 2 is not vacuous.
        assert!(
            after_cpu < before,
            "{file}: the CPU reference culled nothing"
        );
        if on_gpu {
            assert!(after_gpu < before, "{file}: the GPU culled nothing");
        }
    }
}

/// GPU ⊇ CPU on one scene's random motions at the given angles; the
/// objects kept by each and in all.
fn gpu_contains_cpu(scene: &Scene, angles: &[f64], per_angle: usize, seed: u64) -> [usize; 3] {
    let environment = Environment::from_obstacles(scene.obstacles()).expect("environment");
    let mut gpu = match GpuCullide::new(&environment, &CullideOptions::default()) {
        Ok(g) => g,
        Err(CullideError::NoAdapter(why)) if !gpu_required() => {
            eprintln!("skipping: no GPU adapter ({why})");
            return [0; 3];
        }
        Err(e) => panic!("the GPU does not open: {e}"),
    };
    let mut cpu = CpuCullide::new(scene.obstacles());
    let sweeper = Sweeper::new(scene.body(), &SweptOptions::default()).expect("sweeper");
    let plain = m1(SweptVolumeCulling::Off);
    let links: Vec<usize> = (0..scene.body().tree().len())
        .filter(|&l| scene.body().links()[l].is_some())
        .collect();
    let candidates: Vec<usize> = (0..scene.obstacles().len()).collect();
    let mut rng = Rng(seed);
    let mut poses = Vec::new();
    let mut kept = [0; 3];
    for &angle in angles {
        for _ in 0..per_angle {
            let (q0, q1) = motion(scene, &plain, &mut rng, f64::to_radians(angle));
            let motion = InBetweenMotion::new(scene.body().tree(), &q0, &q1).expect("motion");
            let swept: Vec<_> = links
                .iter()
                .map(|&l| sweeper.sweep(&motion, l, [0.0, 1.0], 1e-4, &mut poses))
                .collect::<Result<_, _>>()
                .expect("sweeps");
            let c = cpu.cull(&swept, &candidates).expect("cpu");
            let g = gpu.cull(&swept, &candidates).expect("gpu");
            assert!(
                g.contains(&c),
                "{angle}°: {q0:?} → {q1:?}\ncpu {c:?}\ngpu {g:?}"
            );
            kept[0] += c.swept_left() + c.environment_left();
            kept[1] += g.swept_left() + g.environment_left();
            kept[2] += swept.len() + candidates.len();
        }
    }
    eprintln!(
        "objects kept: CPU {}, GPU {} of {} ({})",
        kept[0],
        kept[1],
        kept[2],
        gpu.adapter_name()
    );
    kept
}

#[test]
fn the_gpu_keeps_every_object_the_cpu_reference_keeps() {
    let [_, gpu, total] =
        gpu_contains_cpu(&scene("puma_pipes.ron"), &[1.0, 15.0, 60.0], 10, 0x2c03);
    // The GPU's answer is not "keep everything".
    assert!(gpu < total, "the GPU culled nothing");
}

/// The other scenes: the AMR, M2's scenes and the test fixtures with
/// obstacles.
#[test]
fn the_gpu_keeps_every_object_the_cpu_reference_keeps_on_every_scene() {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let scenes = [
        scene("puma_amr.ron"),
        scene("welder_cage.ron"),
        scene("skinny_tori.ron"),
        scene("arms_car.ron"),
        Scene::from_file(fixtures.join("single.ron")).expect("fixture loads"),
        Scene::from_file(fixtures.join("cell.ron")).expect("fixture loads"),
    ];
    for (k, s) in scenes.iter().enumerate() {
        if s.obstacles().is_empty() {
            continue;
        }
        gpu_contains_cpu(s, &[5.0, 45.0], 3, 0x2c10 + k as u64);
    }
}
