//! # armature-penetration-depth — generalized penetration depth (M5)
//!
//! Work in progress.

pub mod contact;
mod error;
pub mod lcp;
pub mod norm;
pub mod solver;

pub use contact::{CheckWorkspace, Checker, ContactPoint};
pub use error::PdError;
pub use solver::{
    FreeSelection, PdOptions, PdReport, PdSolver, PdStats, PdStatus, Projection, TranslationalDepth,
};
