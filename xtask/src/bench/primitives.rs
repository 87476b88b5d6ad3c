//! The primitive CCD benchmark: random and near-contact vertex–face and
//! edge–edge queries of linearly moving points, edges and triangles, one
//! thread, with the false-positive rate against a reference.

use armature::elementary::primitive::bench::{PrimitiveBenchReport, primitive_benchmark};
use serde_json::{Value, json};

/// What [`run`] found.
pub(crate) struct PrimitiveSection {
    /// The markdown section.
    pub(crate) markdown: String,
    /// The sets as JSON.
    pub(crate) json: Value,
    /// Sets with a miss or a contract violation.
    pub(crate) failures: Vec<String>,
}

/// Queries per set: 10⁶ by default and with `--full`, 2·10⁴ with
/// `--quick`.
const fn queries(quick: bool, full: bool) -> usize {
    if quick && !full { 20_000 } else { 1_000_000 }
}

/// Runs the four sets (see [`primitive_benchmark`]).
pub(crate) fn run(quick: bool, full: bool, seed: u64) -> PrimitiveSection {
    let n = queries(quick, full);
    eprintln!("primitive CCD: {n} queries per set …");
    let r: PrimitiveBenchReport = primitive_benchmark(n, seed);
    let mut md = String::from(
        "### Primitive CCD (linearly moving points, edges and triangles)\n\n\
         `vertex_face_ccd` and `edge_edge_ccd` with the default options (no minimum \
         separation, time tolerance 1e-6), one thread. *random*: every vertex uniform in \
         [−1, 1]³ at both times; *near*: small motions with gaps near zero, as a simulator \
         produces. A false positive is a reported contact the reference finds farther \
         than the stated slack near the reported time; a miss a contact the reference \
         finds and the query does not report.\n\n\
         | set | queries | queries/s | contacts | false positives | rate | misses | contract violations | unconverged |\n\
         |---|---|---|---|---|---|---|---|---|\n",
    );
    let mut failures = Vec::new();
    for s in &r.sets {
        md.push_str(&format!(
            "| {} | {} | {:.3e} | {} | {} | {:.2e} | {} | {} | {} |\n",
            s.name,
            s.queries,
            s.queries_per_second,
            s.contacts,
            s.false_positives,
            s.false_positive_rate,
            s.misses,
            s.contract_violations,
            s.unconverged
        ));
        if s.misses > 0 || s.contract_violations > 0 {
            failures.push(format!(
                "primitive CCD {}: {} misses, {} contract violations",
                s.name, s.misses, s.contract_violations
            ));
        }
    }
    let json = json!({
        "queries_per_set": r.n,
        "seed": r.seed,
        "sets": r.sets.iter().map(|s| json!({
            "name": s.name,
            "queries": s.queries,
            "seconds": s.seconds,
            "queries_per_second": s.queries_per_second,
            "contacts": s.contacts,
            "false_positives": s.false_positives,
            "false_positive_rate": s.false_positive_rate,
            "misses": s.misses,
            "contract_violations": s.contract_violations,
            "unconverged": s.unconverged,
        })).collect::<Vec<_>>(),
    });
    PrimitiveSection {
        markdown: md,
        json,
        failures,
    }
}
