//! # armature-benches — criterion benchmarks
//!
//! This crate hosts the criterion micro-benchmarks of the armature crates
//! under `benches/` (run them with `cargo bench -p armature-benches`). It has
//! no library code of its own; the end-to-end suite is driven by
//! `cargo xtask bench`.
