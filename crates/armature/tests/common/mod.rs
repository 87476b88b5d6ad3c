//! Seeded motions shared by the batch tests (the library's and the
//! command line's): the same motions on every run and every machine.

// Each test binary uses a different part of this module.
#![allow(dead_code)]

use std::f64::consts::PI;

use armature::Scene;

/// A tiny xorshift generator: fixed seeds, the same motions everywhere.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    /// Uniform in `[0, 1)`.
    pub(crate) fn unit(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[lo, hi)`.
    pub(crate) fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
}

/// Seeded motions within the joint limits (`[−π, π]` for a joint
/// without), swings up to one radian per joint; the values use every bit
/// of an `f64`.
pub(crate) fn motions(scene: &Scene, seed: u64, n: usize) -> Vec<(Vec<f64>, Vec<f64>)> {
    let mut limits = vec![(-PI, PI); scene.nq()];
    for j in scene.joints() {
        for k in j.q.clone() {
            limits[k] = j.limits.unwrap_or((-PI, PI));
        }
    }
    let mut rng = Rng(seed);
    (0..n)
        .map(|_| {
            let q0: Vec<f64> = limits.iter().map(|&(lo, hi)| rng.uniform(lo, hi)).collect();
            let q1 = q0
                .iter()
                .zip(&limits)
                .map(|(&q, &(lo, hi))| (q + rng.uniform(-1.0, 1.0)).clamp(lo, hi))
                .collect();
            (q0, q1)
        })
        .collect()
}
