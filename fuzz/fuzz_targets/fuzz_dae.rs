//! Any byte string gives a mesh or a typed error from the COLLADA loader
//! (the document check before `mesh-loader`, the reader, the placement).
#![no_main]

use armature_bvh_geometry::io::{LoadOptions, load_dae_bytes};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(mesh) = load_dae_bytes(data, &LoadOptions::default()) {
        assert!(mesh.num_triangles() >= 1);
        assert!(mesh.vertices().iter().all(|v| v.is_finite()));
    }
});
