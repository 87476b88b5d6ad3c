//! Penetration depth on real robot models from URDF: the Puma 560 in
//! collision with the pipes and with itself. Every answer is checked by
//! the facade's own discrete test (a code path the solver does not use):
//! collision-free, within the contact tolerance, its value the object
//! norm of the returned configuration, within the joint limits.

mod common;

use std::f64::consts::PI;
use std::path::Path;

use armature::{PdStatus, Pipeline, Scene};
use common::Rng;

fn scene(name: &str) -> Scene {
    Scene::from_file(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../data/scenes")
            .join(name),
    )
    .unwrap()
}

/// Seeded in-collision configurations within the joint limits.
fn colliding(scene: &Scene, pipeline: &Pipeline, seed: u64, n: usize) -> Vec<Vec<f64>> {
    let mut limits = vec![(-PI, PI); scene.nq()];
    for j in scene.joints() {
        for k in j.q.clone() {
            limits[k] = j.limits.unwrap_or((-PI, PI));
        }
    }
    let mut rng = Rng(seed);
    let mut out = Vec::new();
    let mut tries = 0;
    while out.len() < n && tries < 100 * n {
        tries += 1;
        let q: Vec<f64> = limits.iter().map(|&(lo, hi)| rng.uniform(lo, hi)).collect();
        if pipeline.collides(scene, &q).unwrap() {
            out.push(q);
        }
    }
    assert_eq!(out.len(), n, "too few colliding configurations");
    out
}

#[test]
fn puma_in_the_pipes_every_answer_is_free_in_contact_and_within_limits() {
    let scene = scene("puma_pipes.ron");
    let pipeline = Pipeline::default();
    let tolerance = pipeline.pd_options(&scene).tolerance();
    let mut solver = pipeline.prepare_penetration_depth(&scene).unwrap();
    let tree = scene.body().tree();
    let mut separated = 0;
    for q in colliding(&scene, &pipeline, 0x5eed_0018, 12) {
        let report = solver.penetration_depth(&q).unwrap();
        solver.clear_coherence();
        match report.status {
            PdStatus::Separated => separated += 1,
            PdStatus::NoFreeConfiguration => continue,
            PdStatus::AlreadyFree => panic!("{q:?} collides"),
        }
        let c = &report.configuration;
        let check = pipeline.check(&scene, c).unwrap();
        assert!(!check.colliding, "{q:?}: the answer {c:?} collides");
        assert!(
            check.distance <= tolerance,
            "{q:?}: the answer is {} from contact",
            check.distance
        );
        assert!(tree.within_limits(c), "{q:?}: {c:?} leaves the limits");
        let frame = solver.norm().around(&q).unwrap();
        assert_eq!(frame.norm(c).unwrap(), report.value);
        assert!(report.value > 0.0 && report.value.is_finite());
    }
    assert!(separated >= 10, "only {separated} of 12 separated");
}

#[test]
fn an_answer_reused_as_a_hint_is_kept() {
    let scene = scene("puma_pipes.ron");
    let pipeline = Pipeline::default();
    let mut solver = pipeline.prepare_penetration_depth(&scene).unwrap();
    let q = colliding(&scene, &pipeline, 0x5eed_0019, 1).remove(0);
    let first = solver.penetration_depth(&q).unwrap();
    assert_eq!(first.status, PdStatus::Separated);
    // Motion coherence: the same input again starts from the last answer,
    // which is already locally optimal.
    let again = solver.penetration_depth(&q).unwrap();
    assert!(again.value <= first.value);
}
