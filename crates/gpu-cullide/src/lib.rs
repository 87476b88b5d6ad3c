//! # armature-gpu-cullide — swept-volume culling on the GPU (M1 stage 2)
//!
//! **Contract.** Tessellates the volume swept by each link's line-swept
//! sphere and computes the potentially colliding set of the links' swept
//! volumes and the environment with CULLIDE: orthographic visibility passes
//! along X, Y and Z with occlusion queries, iterated until the set stops
//! shrinking (M1 §4.2).
//!
//! - *Data*: `f32` GPU buffers, every triangle enlarged by the raster and
//!   `f32` error bound.
//! - *Guarantee*: conservative — no overlapping pair is ever culled. A CPU
//!   reference implementation with the same contract decides when no wgpu
//!   adapter exists and cross-checks the GPU in tests.

pub mod cpu;
pub mod error;
pub mod gpu;
pub mod objects;
pub mod swept;

pub use cpu::CpuCullide;
pub use error::CullideError;
pub use objects::{Bounds, CullResult, CullideOptions, Environment, EnvironmentObject};
pub use swept::{Sweeper, SweptOptions, SweptVolume, fmm_steps};
