//! Any byte string as a body's SRDF file gives a scene or a typed error
//! (XML syntax, the `<robot>` root, `disable_collisions` entries and the
//! links they name).
#![no_main]

use std::io::Write;
use std::path::Path;

use armature::Scene;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/armature/tests/fixtures");
    let dir = std::env::temp_dir().join(format!("armature-fuzz-srdf-{}", std::process::id()));
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let srdf = dir.join("robot.srdf");
    let Ok(mut file) = std::fs::File::create(&srdf) else {
        return;
    };
    if file.write_all(data).is_err() {
        return;
    }
    drop(file);
    let text = format!(
        "Scene(bodies: [Body(name: \"dh\", urdf: {:?}, srdf: {:?})], skip_adjacent: false)",
        fixtures.join("robot/dh_arm.urdf"),
        srdf
    );
    let _ = Scene::from_ron_str(&text, &dir);
});
