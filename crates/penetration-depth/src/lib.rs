//! # armature-penetration-depth — generalized penetration depth (M5)
//!
//! **Contract.** Pushes an in-collision configuration of a rigid or
//! articulated model out to a collision-free one with the least motion under
//! the object norm (M5 §3: inertia-weighted rotation plus translation, summed
//! over joints for articulated models): free-configuration selection,
//! contact-space projection by continuous collision detection from
//! `armature-conservative-advance`, a linearised local contact space solved
//! as an LCP by projected Gauss–Seidel, re-projection, and iteration until
//! the norm stops decreasing, within joint limits.
//!
//! - *Guarantee*: the returned configuration is collision-free (checked), and
//!   the reported depth is the object-norm distance to it — an upper bound
//!   on the true generalized penetration depth.
//!
//! Not implemented yet: today the crate holds only this contract.
