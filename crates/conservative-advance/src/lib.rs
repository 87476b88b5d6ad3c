//! # armature-conservative-advance — CATCH (M4)
//!
//! **Contract.** Continuous collision detection for articulated models by
//! conservative advancement: a dynamic AABB hierarchy from third-order Taylor
//! models of each link's OBB corners culls pairs spatially (M4 §5); each
//! surviving pair advances by `Δt = d / μ`, with `d` a distance from
//! `armature-bvh-geometry` and `μ` the motion bound of `armature-kinematics`
//! (M4 §6); temporal culling skips pairs whose lower bound on the time of
//! contact exceeds the current minimum (M4 §7).
//!
//! - *Time*: normalised to `[0, 1]`.
//! - *Guarantee*: conservative — never "free" for a colliding motion, never a
//!   time of contact later than the true one; when an iteration budget runs
//!   out the answer is "may collide at or after" a sound lower bound.
//!
//! This crate is filled by the conservative-advancement issue; today it holds
//! only this contract.
