//! Any text gives a scene or a typed error from the scene-file reader (RON
//! syntax, the schema, poses, names, pair rules), with the test fixtures'
//! robots and meshes reachable by relative paths so that valid references
//! lead on into URDF, SRDF and mesh loading.
#![no_main]

use std::path::Path;

use armature::Scene;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/armature/tests/fixtures");
    if let Ok(scene) = Scene::from_ron_str(text, &dir) {
        assert!(scene.distance_threshold() > 0.0);
    }
});
