//! # armature-benches — criterion benchmarks
//!
//! This crate hosts the criterion micro-benchmarks of the armature crates
//! under `benches/` (run them with `cargo bench -p armature-benches`). Apart
//! from the planner of the path-checker study ([`planner`]), it has no
//! measured code of its own; the end-to-end suite is driven by
//! `cargo xtask bench`.
//!
//! The few inputs several benchmarks share live here: the seeded motions
//! of the suite-like query benchmarks ([`suite_motions`]) and a seeded
//! closed mesh of any size ([`noisy_sphere`]).
//!
//! [`planner`] holds a lazy bidirectional roadmap planner with
//! interchangeable path checkers, and the study of M2 §V.D built on it:
//! how fine the fixed-resolution checker must be before the planner stops
//! returning colliding paths, against the adaptive checker's cost.

pub mod planner;

use armature::{Pipeline, Scene};
use glam::DVec3;

/// xorshift64*: the deterministic inputs of the micro-benchmarks, with no
/// dependency (uniform numbers, points, unit vectors and rotations).
#[derive(Clone, Debug)]
pub struct BenchRng(pub u64);

impl BenchRng {
    /// A number uniform in `[0, 1)` (53 random bits; both casts exact).
    pub fn uniform01(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let bits = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11;
        bits as f64 / (1u64 << 53) as f64
    }

    /// A point uniform in `[0, 1)³`.
    pub fn vec(&mut self) -> DVec3 {
        DVec3::new(self.uniform01(), self.uniform01(), self.uniform01())
    }

    /// A unit vector (`z` for the rare draw at the centre).
    pub fn unit(&mut self) -> DVec3 {
        (self.vec() - DVec3::splat(0.5))
            .try_normalize()
            .unwrap_or(DVec3::Z)
    }

    /// A rotation about a random axis by an angle uniform in `[0, 6.3)`.
    pub fn rotation(&mut self) -> glam::DMat3 {
        let axis = self.unit();
        glam::DMat3::from_quat(glam::DQuat::from_axis_angle(axis, 6.3 * self.uniform01()))
    }
}

/// SplitMix64: deterministic numbers with no dependency.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }

    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }
}

/// `n` motions of the benchmark suite's kind, the same on every run: `q0`
/// uniform within the joint limits (`[−π, π]` where unlimited) until
/// `pipeline` finds it collision-free, `q1 = q0 + δq` with each `δq_k`
/// uniform in `[−theta, theta]`, clamped to the limits.
///
/// # Panics
/// When a discrete check fails (a benchmark's scene is known to load).
#[must_use]
pub fn suite_motions(
    scene: &Scene,
    pipeline: &Pipeline,
    theta: f64,
    n: usize,
) -> Vec<(Vec<f64>, Vec<f64>)> {
    let limits: Vec<(f64, f64)> = scene
        .joints()
        .iter()
        .map(|j| {
            j.limits
                .unwrap_or((-std::f64::consts::PI, std::f64::consts::PI))
        })
        .collect();
    let mut rng = SplitMix(7);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let q0: Vec<f64> = limits.iter().map(|&(a, b)| rng.uniform(a, b)).collect();
        if pipeline.collides(scene, &q0).expect("the check runs") {
            continue;
        }
        let q1 = q0
            .iter()
            .zip(&limits)
            .map(|(&q, &(a, b))| (q + rng.uniform(-theta, theta)).clamp(a, b))
            .collect();
        out.push((q0, q1));
    }
    out
}

/// A closed sphere of radius `r` with `2 m (m − 1)` triangles (vertices
/// and triangle indices), each vertex moved radially by a seeded
/// pseudo-random fraction of up to `noise` (a scan is never a perfect
/// sphere).
#[must_use]
pub fn noisy_sphere(m: usize, r: f64, noise: f64, seed: u64) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let mut rng = SplitMix(seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1));
    let mut v = vec![DVec3::new(0.0, 0.0, r), DVec3::new(0.0, 0.0, -r)];
    for i in 1..m {
        let th = core::f64::consts::PI * i as f64 / m as f64;
        for j in 0..m {
            let ph = core::f64::consts::TAU * j as f64 / m as f64;
            let rr = r * (1.0 + noise * rng.uniform(-1.0, 1.0));
            v.push(DVec3::new(
                rr * th.sin() * ph.cos(),
                rr * th.sin() * ph.sin(),
                rr * th.cos(),
            ));
        }
    }
    let at = |i: usize, j: usize| (2 + (i - 1) * m + j % m) as u32;
    let mut t = Vec::with_capacity(2 * m * (m - 1));
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
    (v, t)
}
