//! # armature-gpu-cullide — swept-volume culling on the GPU (M1 stage 2)
//!
//! **Contract.** Tessellates the volume swept by each link's line-swept
//! sphere (offset ruled surface plus pipe surfaces at the caps, step sizes
//! from the Filip–Magedson–Markot bound, offset outward by the tessellation
//! error ε) and computes the potentially colliding set of triangle soups with
//! CULLIDE: orthographic visibility passes along X, Y and Z with occlusion
//! queries, forward and reverse, iterated until the set stops shrinking
//! (M1 §5).
//!
//! - *Data*: `f32` GPU buffers, every triangle enlarged by the raster and
//!   `f32` error bound.
//! - *Guarantee*: conservative — no overlapping pair is ever culled. A CPU
//!   reference implementation with the same contract decides when no wgpu
//!   adapter exists and cross-checks the GPU in tests.
//!
//! Not implemented yet: today the crate holds only this contract.
