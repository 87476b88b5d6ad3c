//! A tiny seeded random number generator (SplitMix64, Steele, Lea and
//! Flood 2014).
//!
//! The generators only need reproducible, well-mixed streams, not
//! cryptographic quality; SplitMix64 is a dozen lines, passes BigCrush, and
//! its output depends on nothing but the seed, so the files it drives are
//! the same bytes on every run.

/// SplitMix64: a 64-bit state advanced by a Weyl increment, each output a
/// bijective mix of the state.
#[derive(Debug, Clone)]
pub(crate) struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A stream from `seed`.
    pub(crate) const fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// A stream derived from `seed` and a list of indices (a scene, a query
    /// number), so that every query owns a stream whatever order, or thread,
    /// it runs in.
    pub(crate) fn derived(seed: u64, indices: &[u64]) -> Self {
        let mut s = Self::new(seed);
        for &i in indices {
            let mixed = s.next_u64() ^ i.wrapping_mul(0xD1B5_4A32_D192_ED03);
            s = Self::new(mixed);
        }
        s
    }

    /// The next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    pub(crate) fn unit(&mut self) -> f64 {
        // The top 53 bits scaled by 2⁻⁵³: exact, so the stream of floats is
        // as reproducible as the stream of integers.
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[lo, hi)`.
    pub(crate) fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform integer in `0..n` (`n > 0`; 0 for `n == 0`).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        // Multiply-shift (Lemire): the bias is below 2⁻³² for the small `n`
        // used here.
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// `true` with probability `p`.
    pub(crate) fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// One element of a slice, uniformly (`None` when it is empty).
    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        items.get(self.below(items.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::SplitMix64;

    #[test]
    fn matches_the_reference_stream() {
        // First outputs of the reference C implementation for seed 1234567.
        let mut r = SplitMix64::new(1_234_567);
        assert_eq!(r.next_u64(), 6_457_827_717_110_365_317);
        assert_eq!(r.next_u64(), 3_203_168_211_198_807_973);
    }

    #[test]
    fn unit_and_below_stay_in_range() {
        let mut r = SplitMix64::derived(7, &[1, 2]);
        for _ in 0..10_000 {
            let u = r.unit();
            assert!((0.0..1.0).contains(&u));
            assert!(r.below(5) < 5);
        }
    }
}
