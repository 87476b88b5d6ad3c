//! Any text as a URDF document gives a body or a typed error: the XML and
//! URDF reader (links, joints, origins, axes, limits, mimic joints,
//! collision and visual elements), then the body's geometry (primitives
//! tessellated, mesh files of the test fixtures reachable by relative
//! paths), the poses at the neutral configuration (which the reader's
//! checks make valid: a failure there is a crash), and a scene of the
//! body alone answering a discrete check there (self-collision on) with an
//! answer or a typed error.
#![no_main]

use std::path::Path;

use armature::geometry::{ArticulatedBody, Tessellation};
use armature::kinematics::{UrdfModel, UrdfOptions};
use armature::{Pipeline, Scene};
use glam::DAffine3;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(xml) = std::str::from_utf8(data) else {
        return;
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/armature/tests/fixtures/robot");
    let options = UrdfOptions::default().with_root_dir(&dir);
    let Ok(model) = UrdfModel::from_str_with(xml, "fuzz.urdf", &options) else {
        return;
    };
    let Ok(body) = ArticulatedBody::from_urdf_model(model, &Tessellation::default()) else {
        return;
    };
    let tree = body.tree();
    let q = tree.neutral_configuration();
    let poses = tree.poses(&q).expect("the neutral configuration is valid");
    assert_eq!(poses.len(), tree.len());
    let Ok(scene) = Scene::builder().body(body, DAffine3::IDENTITY).build() else {
        return;
    };
    let _ = Pipeline::default().check(&scene, &q);
});
