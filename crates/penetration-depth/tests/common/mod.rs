//! Helpers shared by the solver's and the checker's tests (each test
//! binary uses a part of them).
#![allow(dead_code)]

use armature_bvh_geometry::{Tessellation, TriMesh};
use glam::{DAffine3, DVec3};

/// A small deterministic generator (splitmix64).
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[lo, hi)`.
    pub(crate) fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A box of the given size centred at `centre`.
pub(crate) fn cuboid(size: DVec3, centre: DVec3) -> TriMesh {
    Tessellation::default()
        .cuboid(size)
        .unwrap()
        .transformed(&DAffine3::from_translation(centre))
        .unwrap()
}
