//! The `armature` command line.

fn main() {}
