//! Adversarial cases, minimum separation, batches and bad input of the
//! primitive queries.

use armature_elementary_ccd::ElementaryError;
use armature_elementary_ccd::primitive::bench::{
    SplitMix64, edge_edge_distance, vertex_face_distance,
};
use armature_elementary_ccd::primitive::{
    EdgeEdge, PrimitiveOptions, PrimitiveToi, VertexFace, edge_edge_ccd, edge_edge_ccd_batch,
    vertex_face_ccd, vertex_face_ccd_batch,
};
use glam::DVec3;
use proptest::prelude::*;

fn v(x: f64, y: f64, z: f64) -> DVec3 {
    DVec3::new(x, y, z)
}

const TRI: [DVec3; 3] = [
    DVec3::new(0.0, 0.0, 0.0),
    DVec3::new(1.0, 0.0, 0.0),
    DVec3::new(0.0, 1.0, 0.0),
];

fn vf(p0: DVec3, p1: DVec3, f0: [DVec3; 3], f1: [DVec3; 3]) -> VertexFace {
    VertexFace {
        vertex: [p0, p1],
        face: [f0, f1],
    }
}

fn ee(a0: [DVec3; 2], a1: [DVec3; 2], b0: [DVec3; 2], b1: [DVec3; 2]) -> EdgeEdge {
    EdgeEdge {
        a: [a0, a1],
        b: [b0, b1],
    }
}

fn opts() -> PrimitiveOptions {
    PrimitiveOptions::default()
}

/// Contact expected at exactly `t_star`: reported time in
/// `[t_star − 1e-4, t_star]`, converged, and the slack holds.
fn expect_vf(q: &VertexFace, o: &PrimitiveOptions, t_star: f64) -> PrimitiveToi {
    let toi = vertex_face_ccd(q, o)
        .unwrap()
        .unwrap_or_else(|| panic!("missed contact at {t_star}: {q:?}"));
    assert!(toi.time <= t_star, "late: {} > {t_star}", toi.time);
    assert!(
        toi.time >= t_star - 1e-4,
        "too early: {} for {t_star}",
        toi.time
    );
    assert!(toi.converged);
    assert!(vertex_face_distance(q, toi.time) <= o.min_separation + q.contact_slack(o) + 1e-12);
    toi
}

fn expect_ee(q: &EdgeEdge, o: &PrimitiveOptions, t_star: f64) -> PrimitiveToi {
    let toi = edge_edge_ccd(q, o)
        .unwrap()
        .unwrap_or_else(|| panic!("missed contact at {t_star}: {q:?}"));
    assert!(toi.time <= t_star, "late: {} > {t_star}", toi.time);
    assert!(
        toi.time >= t_star - 1e-4,
        "too early: {} for {t_star}",
        toi.time
    );
    assert!(toi.converged);
    assert!(edge_edge_distance(q, toi.time) <= o.min_separation + q.contact_slack(o) + 1e-12);
    toi
}

#[test]
fn vertex_face_end_times() {
    // Touching at t = 0, moving away.
    let q = vf(v(0.25, 0.25, 0.0), v(0.25, 0.25, 1.0), TRI, TRI);
    assert_eq!(expect_vf(&q, &opts(), 0.0).time, 0.0);
    // Touching exactly at t = 1.
    let q = vf(v(0.25, 0.25, 1.0), v(0.25, 0.25, 0.0), TRI, TRI);
    expect_vf(&q, &opts(), 1.0);
    // Stopping 1e-3 short of the plane: no contact.
    let q = vf(v(0.25, 0.25, 1.0), v(0.25, 0.25, 1e-3), TRI, TRI);
    assert!(vertex_face_ccd(&q, &opts()).unwrap().is_none());
}

#[test]
fn vertex_face_on_edges_and_corners() {
    // Crossing exactly through the edge ab, through the hypotenuse and a corner.
    for (x, y) in [(0.5, 0.0), (0.5, 0.5), (0.0, 0.0), (1.0, 0.0), (0.0, 0.3)] {
        let q = vf(v(x, y, 1.0), v(x, y, -1.0), TRI, TRI);
        let toi = expect_vf(&q, &opts(), 0.5);
        let w = toi.barycentric();
        let p = TRI[0] * w[0] + TRI[1] * w[1] + TRI[2] * w[2];
        assert!((p - v(x, y, 0.0)).length() < 1e-4, "contact point {p:?}");
    }
    // Just outside the hypotenuse (by 1e-3): no contact.
    let q = vf(v(0.501, 0.5, 1.0), v(0.501, 0.5, -1.0), TRI, TRI);
    assert!(vertex_face_ccd(&q, &opts()).unwrap().is_none());
}

#[test]
fn vertex_face_in_plane_and_near_plane() {
    // Resting in the plane inside the triangle the whole time.
    let q = vf(v(0.2, 0.2, 0.0), v(0.3, 0.2, 0.0), TRI, TRI);
    assert_eq!(expect_vf(&q, &opts(), 0.0).time, 0.0);
    // Moving in the plane, entering the triangle through edge ca (x = 0) at t = 0.5.
    let q = vf(v(-0.5, 0.3, 0.0), v(0.5, 0.3, 0.0), TRI, TRI);
    expect_vf(&q, &opts(), 0.5);
    // Moving in the plane beside the triangle: no contact.
    let q = vf(v(-0.5, -0.1, 0.0), v(2.0, -0.1, 0.0), TRI, TRI);
    assert!(vertex_face_ccd(&q, &opts()).unwrap().is_none());
    // Sliding 1e-9 above the plane: a report is allowed only within the slack.
    let q = vf(v(-0.5, 0.3, 1e-9), v(0.5, 0.3, 1e-9), TRI, TRI);
    if let Some(toi) = vertex_face_ccd(&q, &opts()).unwrap() {
        assert!(vertex_face_distance(&q, toi.time) <= q.contact_slack(&opts()));
    }
    // A triangle rotating through a resting vertex (near-coplanar sweep).
    let f1 = [v(0.0, 0.0, -0.5), v(1.0, 0.0, -0.5), v(0.0, 1.0, 0.5)];
    let f0 = [v(0.0, 0.0, 0.5), v(1.0, 0.0, 0.5), v(0.0, 1.0, -0.5)];
    // Plane z = (0.5 − t)(1 − 2y): the vertex at (0.2, 0.5, 0) lies on it at all t.
    let q = vf(v(0.2, 0.5, 0.0), v(0.2, 0.5, 0.0), f0, f1);
    assert_eq!(expect_vf(&q, &opts(), 0.0).time, 0.0);
    // The vertex at (0.2, 0.2, 0) meets it at t = 0.5 only.
    let q = vf(v(0.2, 0.2, 0.0), v(0.2, 0.2, 0.0), f0, f1);
    expect_vf(&q, &opts(), 0.5);
}

#[test]
fn vertex_face_degenerate_triangles() {
    // Collinear corners: the triangle is the segment from (0,0,0) to (1,0,0).
    let seg = [v(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0), v(0.5, 0.0, 0.0)];
    let q = vf(v(0.3, 0.0, 1.0), v(0.3, 0.0, -1.0), seg, seg);
    expect_vf(&q, &opts(), 0.5);
    let q = vf(v(0.3, 0.01, 1.0), v(0.3, 0.01, -1.0), seg, seg);
    assert!(vertex_face_ccd(&q, &opts()).unwrap().is_none());
    // All three corners coincide.
    let pt = [v(0.1, 0.2, 0.3); 3];
    let q = vf(v(0.1, 0.2, 1.3), v(0.1, 0.2, -0.7), pt, pt);
    expect_vf(&q, &opts(), 0.5);
    let q = vf(v(0.1, 0.21, 1.3), v(0.1, 0.21, -0.7), pt, pt);
    assert!(vertex_face_ccd(&q, &opts()).unwrap().is_none());
}

#[test]
fn edge_edge_adversarial() {
    let a = [v(-1.0, 0.0, 0.0), v(1.0, 0.0, 0.0)];
    // Crossing at t = 0, at t = 1.
    let b_at = |z: f64| [v(0.0, -1.0, z), v(0.0, 1.0, z)];
    let q = ee(a, a, b_at(0.0), b_at(1.0));
    assert_eq!(expect_ee(&q, &opts(), 0.0).time, 0.0);
    let q = ee(a, a, b_at(1.0), b_at(0.0));
    expect_ee(&q, &opts(), 1.0);
    let q = ee(a, a, b_at(1.0), b_at(1e-3));
    assert!(edge_edge_ccd(&q, &opts()).unwrap().is_none());
    // T-junction: b's endpoint hits a's interior at t = 0.5.
    let q = ee(
        a,
        a,
        [v(0.3, 1.0, 0.0), v(0.3, 0.5, 0.0)],
        [v(0.3, 0.0, 0.0), v(0.3, -0.5, 0.0)],
    );
    expect_ee(&q, &opts(), 0.5);
    // Endpoint to endpoint.
    let q = ee(
        a,
        a,
        [v(2.0, 0.0, 0.0), v(3.0, 1.0, 0.0)],
        [v(0.0, 0.0, 0.0), v(1.0, 1.0, 0.0)],
    );
    expect_ee(&q, &opts(), 0.5);
    // Parallel, on the same line, overlapping the whole time.
    let q = ee(
        a,
        a,
        [v(0.5, 0.0, 0.0), v(3.0, 0.0, 0.0)],
        [v(0.5, 0.0, 0.0), v(3.0, 0.0, 0.0)],
    );
    assert_eq!(expect_ee(&q, &opts(), 0.0).time, 0.0);
    // Parallel, approaching, touching at t = 0.5.
    let q = ee(
        a,
        a,
        [v(-0.5, 1.0, 0.0), v(0.5, 1.0, 0.0)],
        [v(-0.5, -1.0, 0.0), v(0.5, -1.0, 0.0)],
    );
    expect_ee(&q, &opts(), 0.5);
    // Parallel, collinear but disjoint, sliding along: meeting at t = 0.5.
    let q = ee(
        a,
        a,
        [v(2.0, 0.0, 0.0), v(3.0, 0.0, 0.0)],
        [v(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0)],
    );
    expect_ee(&q, &opts(), 0.5);
    // Parallel, never touching.
    let q = ee(
        a,
        a,
        [v(-0.5, 1.0, 0.0), v(0.5, 1.0, 0.0)],
        [v(-0.5, 0.01, 0.0), v(0.5, 0.01, 0.0)],
    );
    assert!(edge_edge_ccd(&q, &opts()).unwrap().is_none());
    // Degenerate edge (a point) passing through a's interior.
    let q = ee(a, a, [v(0.2, 0.0, 1.0); 2], [v(0.2, 0.0, -1.0); 2]);
    expect_ee(&q, &opts(), 0.5);
    // Both degenerate.
    let p = [v(0.0, 0.0, 0.0); 2];
    let q = ee(p, p, [v(0.0, 0.0, 1.0); 2], [v(0.0, 0.0, -1.0); 2]);
    expect_ee(&q, &opts(), 0.5);
    // Grazing: b passes exactly over a's endpoint.
    let q = ee(
        a,
        a,
        [v(1.0, -1.0, 1.0), v(1.0, 1.0, 1.0)],
        [v(1.0, -1.0, -1.0), v(1.0, 1.0, -1.0)],
    );
    expect_ee(&q, &opts(), 0.5);
    let q = ee(
        a,
        a,
        [v(1.001, -1.0, 1.0), v(1.001, 1.0, 1.0)],
        [v(1.001, -1.0, -1.0), v(1.001, 1.0, -1.0)],
    );
    assert!(edge_edge_ccd(&q, &opts()).unwrap().is_none());
}

#[test]
fn min_separation_simple() {
    let o = opts().with_min_separation(0.25);
    // Falling vertex: distance 1 − 2t reaches 0.25 at t = 0.375.
    let q = vf(v(0.25, 0.25, 1.0), v(0.25, 0.25, -1.0), TRI, TRI);
    expect_vf(&q, &o, 0.375);
    // Passing beside the triangle at distance 0.3 in x: no contact.
    let q = vf(v(1.3, -1.0, 0.0), v(1.3, 1.0, 0.0), TRI, TRI);
    assert!(vertex_face_ccd(&q, &o).unwrap().is_none());
    // Beside the corner (1,0,0) at distance 0.2: contact when closest.
    let q = vf(v(1.2, -1.0, 0.0), v(1.2, 1.0, 0.0), TRI, TRI);
    let toi = vertex_face_ccd(&q, &o).unwrap().expect("contact");
    // dist = sqrt(0.04 + (2t − 1)²) = 0.25 ⇒ t = 0.5 − 0.075.
    assert!(toi.time <= 0.425 && toi.time > 0.4249);
}

fn in_cube(r: &mut SplitMix64) -> DVec3 {
    r.vec(1.0)
}

/// Never a distance `< s` before the reported time (dense sampling), and
/// distance `≤ s + σ` at it.
fn check_separation(
    dist: impl Fn(f64) -> f64,
    got: Option<PrimitiveToi>,
    s: f64,
    slack: f64,
) -> Result<(), String> {
    let end = got.map_or(1.0, |t| t.time);
    let n = 2000;
    for i in 0..=n {
        let t = end * f64::from(i) / f64::from(n);
        if t >= end && got.is_some() {
            break;
        }
        let d = dist(t);
        if d < s - 1e-9 {
            return Err(format!(
                "distance {d} < s = {s} at t = {t} before the reported time {end} ({got:?})"
            ));
        }
    }
    // The slack is promised for converged answers only (an exhausted
    // iteration budget returns the earliest unresolved time).
    if let Some(toi) = got.filter(|t| t.converged) {
        let d = dist(toi.time);
        if d > s + slack + 1e-12 {
            return Err(format!(
                "distance {d} at reported time {} > s + slack = {}",
                toi.time,
                s + slack
            ));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn min_separation_vertex_face(seed in any::<u64>(), s in prop::sample::select(vec![0.01, 0.1, 0.4]), near in any::<bool>()) {
        let mut r = SplitMix64::new(seed);
        let f0 = [in_cube(&mut r), in_cube(&mut r), in_cube(&mut r)];
        let f1 = if near { f0.map(|x| x + r.vec(0.05)) } else { [in_cube(&mut r), in_cube(&mut r), in_cube(&mut r)] };
        let (p0, p1) = if near {
            let c = (f0[0] + f0[1] + f0[2]) / 3.0;
            (c + r.vec(0.6), c + r.vec(0.6))
        } else {
            (in_cube(&mut r), in_cube(&mut r))
        };
        let q = vf(p0, p1, f0, f1);
        let o = opts().with_min_separation(s).with_max_iterations(200_000);
        let got = vertex_face_ccd(&q, &o).unwrap();
        check_separation(|t| vertex_face_distance(&q, t), got, s, q.contact_slack(&o)).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn min_separation_edge_edge(seed in any::<u64>(), s in prop::sample::select(vec![0.01, 0.1, 0.4]), near in any::<bool>()) {
        let mut r = SplitMix64::new(seed);
        let a0 = [in_cube(&mut r), in_cube(&mut r)];
        let a1 = if near { a0.map(|x| x + r.vec(0.05)) } else { [in_cube(&mut r), in_cube(&mut r)] };
        let b0 = [in_cube(&mut r), in_cube(&mut r)];
        let b1 = if near { b0.map(|x| x + r.vec(0.3)) } else { [in_cube(&mut r), in_cube(&mut r)] };
        let q = ee(a0, a1, b0, b1);
        let o = opts().with_min_separation(s).with_max_iterations(200_000);
        let got = edge_edge_ccd(&q, &o).unwrap();
        check_separation(|t| edge_edge_distance(&q, t), got, s, q.contact_slack(&o)).map_err(TestCaseError::fail)?;
    }
}

fn random_vf(r: &mut SplitMix64) -> VertexFace {
    vf(
        in_cube(r),
        in_cube(r),
        [in_cube(r), in_cube(r), in_cube(r)],
        [in_cube(r), in_cube(r), in_cube(r)],
    )
}

fn random_ee(r: &mut SplitMix64) -> EdgeEdge {
    ee(
        [in_cube(r), in_cube(r)],
        [in_cube(r), in_cube(r)],
        [in_cube(r), in_cube(r)],
        [in_cube(r), in_cube(r)],
    )
}

#[test]
fn batch_equals_single_for_any_thread_count() {
    let mut r = SplitMix64::new(42);
    let vfs: Vec<VertexFace> = (0..3000).map(|_| random_vf(&mut r)).collect();
    let ees: Vec<EdgeEdge> = (0..3000).map(|_| random_ee(&mut r)).collect();
    let o = opts().with_min_separation(0.05).with_max_iterations(20_000);
    let vf_single: Vec<_> = vfs
        .iter()
        .map(|q| vertex_face_ccd(q, &o).unwrap())
        .collect();
    let ee_single: Vec<_> = ees.iter().map(|q| edge_edge_ccd(q, &o).unwrap()).collect();
    assert!(vf_single.iter().flatten().count() > 100);
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut out = vec![None; vfs.len()];
        pool.install(|| vertex_face_ccd_batch(&vfs, &o, &mut out))
            .unwrap();
        assert_eq!(out, vf_single, "vertex-face batch, {threads} threads");
        let mut out = vec![None; ees.len()];
        pool.install(|| edge_edge_ccd_batch(&ees, &o, &mut out))
            .unwrap();
        assert_eq!(out, ee_single, "edge-edge batch, {threads} threads");
    }
}

#[test]
fn batch_length_and_first_error() {
    let mut r = SplitMix64::new(7);
    let mut vfs: Vec<VertexFace> = (0..200).map(|_| random_vf(&mut r)).collect();
    let mut out = vec![None; 199];
    assert!(matches!(
        vertex_face_ccd_batch(&vfs, &opts(), &mut out),
        Err(ElementaryError::BatchLength {
            expected: 200,
            got: 199
        })
    ));
    let mut out = vec![None; 200];
    vfs[150].face[1][2].y = f64::NAN;
    vfs[170].vertex[0].x = f64::INFINITY;
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        match pool.install(|| vertex_face_ccd_batch(&vfs, &opts(), &mut out)) {
            Err(ElementaryError::NonFiniteInput { query, what, .. }) => {
                assert_eq!(query, "vertex_face_ccd");
                assert!(what.starts_with("face[1][2]"), "{what}");
            }
            other => panic!("expected NonFiniteInput, got {other:?}"),
        }
    }
    let ees: Vec<EdgeEdge> = (0..10).map(|_| random_ee(&mut r)).collect();
    let mut out = vec![None; 11];
    assert!(matches!(
        edge_edge_ccd_batch(&ees, &opts(), &mut out),
        Err(ElementaryError::BatchLength {
            expected: 10,
            got: 11
        })
    ));
}

#[test]
fn non_finite_input_is_named() {
    let base = vf(v(0.25, 0.25, 1.0), v(0.25, 0.25, -1.0), TRI, TRI);
    let mut q = base;
    q.vertex[1].z = f64::NAN;
    match vertex_face_ccd(&q, &opts()) {
        Err(ElementaryError::NonFiniteInput { query, what, value }) => {
            assert_eq!(query, "vertex_face_ccd");
            assert!(what.starts_with("vertex[1]"), "{what}");
            assert!(value.z.is_nan());
        }
        other => panic!("{other:?}"),
    }
    let mut q = base;
    q.face[0][1].x = f64::NEG_INFINITY;
    assert!(matches!(
        vertex_face_ccd(&q, &opts()),
        Err(ElementaryError::NonFiniteInput { what, .. }) if what.starts_with("face[0][1]")
    ));
    let a = [v(-1.0, 0.0, 0.0), v(1.0, 0.0, 0.0)];
    let mut q = ee(a, a, a, a);
    q.b[1][0].y = f64::INFINITY;
    match edge_edge_ccd(&q, &opts()) {
        Err(ElementaryError::NonFiniteInput { query, what, .. }) => {
            assert_eq!(query, "edge_edge_ccd");
            assert!(what.starts_with("b[1][0]"), "{what}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn invalid_options_are_named() {
    let q = vf(v(0.25, 0.25, 1.0), v(0.25, 0.25, -1.0), TRI, TRI);
    let cases = [
        (opts().with_min_separation(-1e-3), "min_separation"),
        (opts().with_min_separation(f64::NAN), "min_separation"),
        (opts().with_min_separation(f64::INFINITY), "min_separation"),
        (opts().with_time_tolerance(0.0), "time_tolerance"),
        (opts().with_time_tolerance(-1e-6), "time_tolerance"),
        (opts().with_time_tolerance(f64::NAN), "time_tolerance"),
        (opts().with_max_iterations(0), "max_iterations"),
    ];
    for (o, field) in cases {
        assert!(
            matches!(o.validate(), Err(ElementaryError::InvalidOption { name, .. }) if name == field)
        );
        assert!(
            matches!(vertex_face_ccd(&q, &o), Err(ElementaryError::InvalidOption { name, .. }) if name == field)
        );
        let e = edge_edge_ccd(
            &ee(
                [TRI[0], TRI[1]],
                [TRI[0], TRI[1]],
                [TRI[1], TRI[2]],
                [TRI[1], TRI[2]],
            ),
            &o,
        );
        assert!(matches!(e, Err(ElementaryError::InvalidOption { name, .. }) if name == field));
    }
    assert!(opts().validate().is_ok());
    assert!(opts().with_time_tolerance(1e-300).validate().is_ok());
}

#[test]
fn iteration_budget_is_conservative() {
    let q = vf(v(0.25, 0.25, 1.0), v(0.25, 0.25, -1.0), TRI, TRI);
    for n in 1..40 {
        let o = opts().with_max_iterations(n);
        let toi = vertex_face_ccd(&q, &o)
            .unwrap()
            .expect("contact must not be lost");
        assert!(toi.time <= 0.5);
        assert!(toi.iterations <= n);
    }
    let a = [v(-1.0, 0.0, 0.0), v(1.0, 0.0, 0.0)];
    let q = ee(
        a,
        a,
        [v(0.5, -1.0, 1.0), v(0.5, 1.0, 1.0)],
        [v(0.5, -1.0, -3.0), v(0.5, 1.0, -3.0)],
    );
    for n in 1..40 {
        let toi = edge_edge_ccd(&q, &opts().with_max_iterations(n))
            .unwrap()
            .expect("contact must not be lost");
        assert!(toi.time <= 0.25);
    }
}

#[test]
fn extreme_magnitudes() {
    for scale in [1e-300, 1e-200, 1e-20, 1e20, 1e200, 1e300] {
        let tri = TRI.map(|x| x * scale);
        let q = vf(
            v(0.25, 0.25, 1.0) * scale,
            v(0.25, 0.25, -1.0) * scale,
            tri,
            tri,
        );
        let toi = vertex_face_ccd(&q, &opts()).unwrap().expect("contact");
        assert!(toi.time <= 0.5 && toi.time > 0.49, "scale {scale}: {toi:?}");
        let q = vf(
            v(0.75, 0.75, 1.0) * scale,
            v(0.75, 0.75, -1.0) * scale,
            tri,
            tri,
        );
        assert!(
            vertex_face_ccd(&q, &opts()).unwrap().is_none(),
            "scale {scale}"
        );
        let a = [v(-1.0, 0.0, 0.0) * scale, v(1.0, 0.0, 0.0) * scale];
        let b0 = [v(0.5, -1.0, 1.0) * scale, v(0.5, 1.0, 1.0) * scale];
        let b1 = [v(0.5, -1.0, -3.0) * scale, v(0.5, 1.0, -3.0) * scale];
        let toi = edge_edge_ccd(&ee(a, a, b0, b1), &opts())
            .unwrap()
            .expect("contact");
        assert!(
            toi.time <= 0.25 && toi.time > 0.24,
            "scale {scale}: {toi:?}"
        );
        // Separation scales with the input.
        let o = opts().with_min_separation(0.25 * scale);
        let q = vf(
            v(0.25, 0.25, 1.0) * scale,
            v(0.25, 0.25, -1.0) * scale,
            tri,
            tri,
        );
        let toi = vertex_face_ccd(&q, &o).unwrap().expect("contact");
        assert!(
            toi.time <= 0.375 && toi.time > 0.37,
            "scale {scale}: {toi:?}"
        );
    }
    // Near f64::MAX: no panic, no loss.
    let big = f64::MAX / 4.0;
    let q = vf(
        v(0.25, 0.25, 1.0) * big,
        v(0.25, 0.25, -1.0) * big,
        TRI.map(|x| x * big),
        TRI.map(|x| x * big),
    );
    assert!(vertex_face_ccd(&q, &opts()).unwrap().is_some());
    // Mixed magnitudes on different axes.
    let tri = [v(0.0, 0.0, 0.0), v(1e250, 0.0, 0.0), v(0.0, 1e-250, 0.0)];
    let q = vf(v(1e249, 1e-251, 1.0), v(1e249, 1e-251, -1.0), tri, tri);
    let toi = vertex_face_ccd(&q, &opts()).unwrap().expect("contact");
    assert!(toi.time <= 0.5);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Touching exactly at `t = 1` at a corner (vertex meets corner `c`,
    /// endpoint meets endpoint): the exact distance is 0 there, while the
    /// `f64` corner values are off by a few ulps — only the rounding bound
    /// keeps these contacts.
    #[test]
    fn exact_touch_at_the_end_is_kept(seed in any::<u64>()) {
        let mut r = SplitMix64::new(seed);
        let f0 = [in_cube(&mut r), in_cube(&mut r), in_cube(&mut r)];
        let f1 = [in_cube(&mut r), in_cube(&mut r), in_cube(&mut r)];
        let q = vf(in_cube(&mut r) * 3.0, f1[2], f0, f1);
        let got = vertex_face_ccd(&q, &opts()).unwrap();
        prop_assert!(got.is_some_and(|t| t.time <= 1.0), "vertex-face touch lost: {q:?}");
        let a0 = [in_cube(&mut r), in_cube(&mut r)];
        let a1 = [in_cube(&mut r), in_cube(&mut r)];
        let b0 = [in_cube(&mut r) * 3.0, in_cube(&mut r) * 3.0];
        let b1 = [in_cube(&mut r), a1[1]];
        let q = ee(a0, a1, b0, b1);
        let got = edge_edge_ccd(&q, &opts()).unwrap();
        prop_assert!(got.is_some(), "edge-edge touch lost: {q:?}");
    }
}
