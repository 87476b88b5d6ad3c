use armature_elementary_ccd::primitive::bench::SplitMix64;
use armature_elementary_ccd::primitive::*;
fn main() {
    let mut r = SplitMix64::new(110351970233675861);
    let mut c = || r.vec(1.0);
    let q = EdgeEdge {
        a: [[c(), c()], [c(), c()]],
        b: [[c(), c()], [c(), c()]],
    };
    let t = std::time::Instant::now();
    println!(
        "{:?} {:?}",
        edge_edge_ccd(&q, &PrimitiveOptions::default().with_min_separation(0.4)),
        t.elapsed()
    );
    let mut r = SplitMix64::new(419891699922602739);
    let mut c = || r.vec(1.0);
    let q = VertexFace {
        vertex: [c(), c()],
        face: [[c(), c(), c()], [c(), c(), c()]],
    };
    let t = std::time::Instant::now();
    println!(
        "{:?} {:?}",
        vertex_face_ccd(&q, &PrimitiveOptions::default().with_min_separation(0.1)),
        t.elapsed()
    );
}
