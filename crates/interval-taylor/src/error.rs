//! The crate's error type.

/// Why an interval, a time domain or a Taylor model could not be built.
///
/// Every variant names the offending input.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum IntervalError {
    /// An end point is NaN.
    #[error("interval end point is NaN (lo = {lo}, hi = {hi})")]
    NaN {
        /// The lower end point given.
        lo: f64,
        /// The upper end point given.
        hi: f64,
    },
    /// The lower end point exceeds the upper one.
    #[error("interval is inverted: lo = {lo} > hi = {hi}")]
    Inverted {
        /// The lower end point given.
        lo: f64,
        /// The upper end point given.
        hi: f64,
    },
    /// An interval would hold only `+∞` or only `−∞`, which is no real number.
    #[error("interval [{lo}, {hi}] holds no real number")]
    NoRealNumber {
        /// The lower end point given.
        lo: f64,
        /// The upper end point given.
        hi: f64,
    },
    /// The square root of an interval that lies wholly below zero.
    #[error("square root of [{lo}, {hi}], which holds no non-negative number")]
    NegativeSqrt {
        /// The lower end point of the argument.
        lo: f64,
        /// The upper end point of the argument.
        hi: f64,
    },
    /// Division by an interval that holds only zero.
    #[error("division by the zero interval")]
    DivisionByZero,
    /// A time domain must be finite.
    #[error("time domain [{lo}, {hi}] must have finite end points")]
    InfiniteDomain {
        /// The lower end point given.
        lo: f64,
        /// The upper end point given.
        hi: f64,
    },
    /// Two Taylor models over different time domains were combined.
    #[error("Taylor models over different time domains: [{a_lo}, {a_hi}] and [{b_lo}, {b_hi}]")]
    DomainMismatch {
        /// Lower end of the first domain.
        a_lo: f64,
        /// Upper end of the first domain.
        a_hi: f64,
        /// Lower end of the second domain.
        b_lo: f64,
        /// Upper end of the second domain.
        b_hi: f64,
    },
    /// A sub-domain asked for is not inside the model's domain.
    #[error("[{lo}, {hi}] is not inside the time domain [{dom_lo}, {dom_hi}]")]
    NotASubDomain {
        /// Lower end of the sub-domain asked for.
        lo: f64,
        /// Upper end of the sub-domain asked for.
        hi: f64,
        /// Lower end of the model's domain.
        dom_lo: f64,
        /// Upper end of the model's domain.
        dom_hi: f64,
    },
    /// A rotation axis is zero, infinite or NaN.
    #[error("rotation axis ({x}, {y}, {z}) is zero or not finite")]
    BadAxis {
        /// x component.
        x: f64,
        /// y component.
        y: f64,
        /// z component.
        z: f64,
    },
    /// A scalar parameter is NaN or infinite.
    #[error("parameter `{name}` = {value} is not finite")]
    NotFinite {
        /// The parameter's name.
        name: &'static str,
        /// The value given.
        value: f64,
    },
}
