//! # armature-interval-taylor — sound intervals and Taylor models
//!
//! **Contract.** The numbers every guarantee of armature rests on:
//!
//! - [`Interval`]: closed intervals of reals with `f64` end points, rounded
//!   **outward** after every operation (`next_down` / `next_up`), so an
//!   interval result contains the exact result for every choice of
//!   operands. The platform `sin` / `cos` are not correctly rounded; their
//!   results are widened by [`LIBM_ULPS`] ulps.
//! - [`IntervalVec3`], [`IntervalMat3`], [`IntervalAffine3`]: boxes, interval
//!   matrices and enclosures of sets of rigid transforms (M1 §4.1).
//! - [`TaylorModel`] over a [`TimeDomain`]: a polynomial in `t − mid` (order 3
//!   by default, any order up to [`MAX_ORDER`]) plus an interval remainder,
//!   enclosing a function of time (M4 §5.1). Coefficient rounding errors and
//!   truncated terms are swept into the remainder, so the enclosure holds in
//!   floating point, not merely "in exact arithmetic".
//! - [`TaylorVec3`], [`TaylorMat3`], [`TaylorAffine3`]: time-dependent
//!   vectors, matrices and rigid motions, composed along kinematic chains
//!   (M4 §5.2).
//!
//! *Inputs* are plain `f64` and glam `DVec3` / `DMat3` / `DAffine3`; *time*
//! is any finite domain (queries use `[0, 1]`); angles are radians.
//! Constructors reject NaN and inverted bounds with [`IntervalError`];
//! nothing here panics on user data, except the Taylor-model operators when
//! two models over *different* domains are combined, a programming error
//! with `try_*` twins that return an error instead.
//!
//! ```
//! use armature_interval_taylor::prelude::*;
//! use glam::DVec3;
//! // A link rotating 30° about z over t ∈ [0, 1], then a 1 m lever.
//! let dom = TimeDomain::unit();
//! let omega = 30f64.to_radians();
//! let link = TaylorAffine3::<3>::in_between(dom, DVec3::Z, omega, 0.0, DVec3::ZERO, DVec3::ZERO)?;
//! let tip = link.bound_point(DVec3::X);
//! assert!(tip.contains(DVec3::new(omega.cos(), omega.sin(), 0.0)));
//! # Ok::<(), IntervalError>(())
//! ```

mod domain;
mod error;
mod interval;
mod linalg;
mod round;
mod taylor;
mod taylor_linalg;

pub use domain::TimeDomain;
pub use error::IntervalError;
pub use interval::Interval;
pub use linalg::{IntervalAffine3, IntervalMat3, IntervalVec3};
pub use round::LIBM_ULPS;
pub use taylor::{MAX_ORDER, TaylorModel};
pub use taylor_linalg::{TaylorAffine3, TaylorMat3, TaylorVec3};

/// The crate's commonly used types.
pub mod prelude {
    pub use crate::{
        Interval, IntervalAffine3, IntervalError, IntervalMat3, IntervalVec3, TaylorAffine3,
        TaylorMat3, TaylorModel, TaylorVec3, TimeDomain,
    };
}
