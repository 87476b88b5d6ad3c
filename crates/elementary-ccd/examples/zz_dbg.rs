use armature_elementary_ccd::primitive::*;
use glam::DVec3;
fn v(x: f64, y: f64, z: f64) -> DVec3 {
    DVec3::new(x, y, z)
}
fn main() {
    let a = [v(-1.0, 0.0, 0.0), v(1.0, 0.0, 0.0)];
    let cases = [
        (
            "T",
            EdgeEdge {
                a: [a, a],
                b: [
                    [v(0.3, 1.0, 0.0), v(0.3, 0.5, 0.0)],
                    [v(0.3, -0.5, 0.0), v(0.3, -1.0, 0.0)],
                ],
            },
        ),
        (
            "endpoint",
            EdgeEdge {
                a: [a, a],
                b: [
                    [v(2.0, 0.0, 0.0), v(3.0, 1.0, 0.0)],
                    [v(0.0, 0.0, 0.0), v(1.0, 1.0, 0.0)],
                ],
            },
        ),
        (
            "par",
            EdgeEdge {
                a: [a, a],
                b: [
                    [v(-0.5, 1.0, 0.0), v(0.5, 1.0, 0.0)],
                    [v(-0.5, -1.0, 0.0), v(0.5, -1.0, 0.0)],
                ],
            },
        ),
        (
            "collinear",
            EdgeEdge {
                a: [a, a],
                b: [
                    [v(2.0, 0.0, 0.0), v(3.0, 0.0, 0.0)],
                    [v(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0)],
                ],
            },
        ),
    ];
    for (n, q) in cases {
        println!("{n}: {:?}", edge_edge_ccd(&q, &PrimitiveOptions::default()));
    }
}
