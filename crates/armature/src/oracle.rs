//! The brute-force oracle of DESIGN.md §4 (feature `oracle`).
