//! # armature-adaptive-bisection — dynamic checking of paths (M2)
//!
//! **Contract.** Decides whether a straight c-space segment, or a path of
//! several segments, is collision-free with the adaptive bisection of M2: a
//! segment is free for a pair of objects when `λ_i + λ_j < η_ij(q_a) +
//! η_ij(q_b)` (M2 Lemma 1, restated in docs/architecture.md), with λ the curve-length
//! bound of `armature-kinematics` and η the GREEDY-DIST lower bound of
//! `armature-bvh-geometry`; pairs wait in a priority queue ordered by
//! `λ_i + λ_j − η(q_a) − η(q_b)`, and queues are cached per segment.
//!
//! - *Guarantee*: never reports a colliding segment free; a clearance
//!   `ε ≥ 0` bounds the run time.
//!
//! Not implemented yet: today the crate holds only this contract.
