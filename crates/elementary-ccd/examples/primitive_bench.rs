//! Throughput and accuracy of the primitive vertex–face / edge–edge CCD.
//!
//! `cargo run --release -p armature-elementary-ccd --example primitive_bench [n] [seed]`
//! (defaults: `n = 1_000_000` queries per set, `seed = 1`).

use armature_elementary_ccd::primitive::bench::primitive_benchmark;

fn main() {
    let mut args = std::env::args().skip(1);
    let n = args
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000usize);
    let seed = args.next().and_then(|s| s.parse().ok()).unwrap_or(1u64);
    let report = primitive_benchmark(n, seed);
    print!("{report}");
}
