//! The primitive queries against an exact reference (min_separation = 0).
//!
//! Coordinates are integers in `[−R, R]` scaled by `2⁻⁷` (exact doubles).
//! Contact happens iff the coplanarity cubic has a root in `[0, 1]` at which
//! the point is inside the triangle (resp. the segments cross). The cubic's
//! coefficients are computed exactly in `i128` (in grid units), its real
//! roots are isolated in dyadic cells of width `2⁻²⁸` by exact sign bounds
//! (Taylor shift to the cell, `|a₀| > Σ|a_k|` ⇒ no root), and the inside
//! conditions (degree-4 integer polynomials `g_k`, positive iff inside) are
//! decided on the enclosing `2⁻¹⁶` cell by the same exact bound. A case the
//! reference cannot classify at that width is skipped and counted.

use std::sync::atomic::{AtomicUsize, Ordering};

use armature_elementary_ccd::primitive::bench::{edge_edge_distance, vertex_face_distance};
use armature_elementary_ccd::primitive::{
    EdgeEdge, PrimitiveOptions, PrimitiveToi, VertexFace, edge_edge_ccd, vertex_face_ccd,
};
use glam::DVec3;
use proptest::prelude::*;

type P = Vec<i128>; // power basis in t, low degree first
type V = [P; 3];
type Pt = [i64; 3];

const GRID: f64 = 1.0 / 128.0;
const L_ROOT: u32 = 28;
const L_SIGN: u32 = 16;

fn padd(a: &P, b: &P) -> P {
    let n = a.len().max(b.len());
    (0..n)
        .map(|i| {
            let x = a.get(i).copied().unwrap_or(0);
            let y = b.get(i).copied().unwrap_or(0);
            x.checked_add(y).expect("overflow")
        })
        .collect()
}

fn pneg(a: &P) -> P {
    a.iter().map(|x| -x).collect()
}

fn pmul(a: &P, b: &P) -> P {
    let mut r = vec![0i128; a.len() + b.len() - 1];
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            r[i + j] = r[i + j]
                .checked_add(x.checked_mul(*y).expect("overflow"))
                .expect("overflow");
        }
    }
    r
}

fn vsub(a: &V, b: &V) -> V {
    [
        padd(&a[0], &pneg(&b[0])),
        padd(&a[1], &pneg(&b[1])),
        padd(&a[2], &pneg(&b[2])),
    ]
}

fn vcross(a: &V, b: &V) -> V {
    let c = |i: usize, j: usize| padd(&pmul(&a[i], &b[j]), &pneg(&pmul(&a[j], &b[i])));
    [c(1, 2), c(2, 0), c(0, 1)]
}

fn vdot(a: &V, b: &V) -> P {
    padd(
        &padd(&pmul(&a[0], &b[0]), &pmul(&a[1], &b[1])),
        &pmul(&a[2], &b[2]),
    )
}

/// The moving point `x0 + t(x1 − x0)` as polynomials.
fn mv(x0: Pt, x1: Pt) -> V {
    let f = |k: usize| vec![i128::from(x0[k]), i128::from(x1[k] - x0[k])];
    [f(0), f(1), f(2)]
}

fn is_zero(p: &P) -> bool {
    p.iter().all(|&c| c == 0)
}

/// `2^{d·L}·p(i/2^L + (w/2^L)·s)` as a polynomial in `s` (d = degree).
fn shifted(p: &P, i: i128, w: i128, l: u32) -> Option<P> {
    let d = p.len() - 1;
    let mut out = vec![0i128; d + 1];
    // (i + w s)^k expanded incrementally.
    let mut pw: P = vec![1];
    for (k, &c) in p.iter().enumerate() {
        let scale = 1i128.checked_shl(l * (d - k) as u32)?;
        for (j, &b) in pw.iter().enumerate() {
            let term = c.checked_mul(b)?.checked_mul(scale)?;
            out[j] = out[j].checked_add(term)?;
        }
        // pw *= (i + w s)
        let mut next = vec![0i128; pw.len() + 1];
        for (j, &b) in pw.iter().enumerate() {
            next[j] = next[j].checked_add(b.checked_mul(i)?)?;
            next[j + 1] = next[j + 1].checked_add(b.checked_mul(w)?)?;
        }
        pw = next;
    }
    Some(out)
}

/// Sign of `p` on the dyadic cell `[i, i+w]/2^L`: `Some(±1)` when provably
/// of that sign throughout, `None` when undecided (or overflow).
fn cell_sign(p: &P, i: i128, w: i128, l: u32) -> Option<i32> {
    let q = shifted(p, i, w, l)?;
    let rest = q[1..]
        .iter()
        .try_fold(0i128, |acc, x| acc.checked_add(x.checked_abs()?))?;
    if q[0] > rest {
        Some(1)
    } else if q[0] < -rest {
        Some(-1)
    } else {
        None
    }
}

/// Exact sign of `p(i/2^L)`.
fn point_sign(p: &P, i: i128, l: u32) -> i32 {
    let q = shifted(p, i, 0, l).expect("overflow");
    q[0].signum() as i32
}

/// Cells at level `L_ROOT` where `p` may vanish, merged into clusters
/// `[i0, i1]` (numerators over `2^L_ROOT`).
fn clusters(p: &P) -> Vec<(i128, i128)> {
    let mut cells = Vec::new();
    let mut stack = vec![(0i128, 0u32)];
    while let Some((i, l)) = stack.pop() {
        if cell_sign(p, i, 1, l).is_some() {
            continue;
        }
        if l == L_ROOT {
            cells.push(i);
            continue;
        }
        stack.push((2 * i + 1, l + 1));
        stack.push((2 * i, l + 1));
    }
    cells.sort_unstable();
    let mut out: Vec<(i128, i128)> = Vec::new();
    for c in cells {
        match out.last_mut() {
            Some(last) if last.1 == c => last.1 = c + 1,
            _ => out.push((c, c + 1)),
        }
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Reference {
    /// Contact, first contact time in `[lo, hi]`.
    Contact(f64, f64),
    NoContact,
    Unknown,
}

/// The reference from the coplanarity cubic `f` and the inside conditions
/// `g` (all `≥ 0` iff contact at a coplanar time with a non-degenerate
/// normal).
fn reference(f: &P, g: &[P]) -> Reference {
    if is_zero(f) {
        return Reference::Unknown;
    }
    let scale = (1u64 << L_ROOT) as f64;
    for (i0, i1) in clusters(f) {
        // The enclosing cell at level L_SIGN.
        let sh = L_ROOT - L_SIGN;
        let j0 = i0 >> sh;
        let j1 = (i1 + (1 << sh) - 1) >> sh;
        let signs: Vec<Option<i32>> = g
            .iter()
            .map(|p| cell_sign(p, j0, j1 - j0, L_SIGN))
            .collect();
        if signs.contains(&Some(-1)) {
            continue; // outside throughout the cluster
        }
        if signs.iter().all(|s| *s == Some(1)) {
            let (s0, s1) = (point_sign(f, i0, L_ROOT), point_sign(f, i1, L_ROOT));
            if s0 == 0 || s1 == 0 || s0 != s1 {
                return Reference::Contact(i0 as f64 / scale, i1 as f64 / scale);
            }
        }
        return Reference::Unknown;
    }
    Reference::NoContact
}

fn vf_reference(p: [Pt; 2], f: [[Pt; 3]; 2]) -> Reference {
    let pp = mv(p[0], p[1]);
    let a = mv(f[0][0], f[1][0]);
    let b = mv(f[0][1], f[1][1]);
    let c = mv(f[0][2], f[1][2]);
    let n = vcross(&vsub(&b, &a), &vsub(&c, &a));
    let cubic = vdot(&n, &vsub(&pp, &a));
    let (ap, bp, cp) = (vsub(&a, &pp), vsub(&b, &pp), vsub(&c, &pp));
    let g = [
        vdot(&n, &vcross(&bp, &cp)),
        vdot(&n, &vcross(&cp, &ap)),
        vdot(&n, &vcross(&ap, &bp)),
    ];
    reference(&cubic, &g)
}

fn ee_reference(a: [[Pt; 2]; 2], b: [[Pt; 2]; 2]) -> Reference {
    let a0 = mv(a[0][0], a[1][0]);
    let a1 = mv(a[0][1], a[1][1]);
    let b0 = mv(b[0][0], b[1][0]);
    let b1 = mv(b[0][1], b[1][1]);
    let (ea, eb) = (vsub(&a1, &a0), vsub(&b1, &b0));
    let n = vcross(&ea, &eb);
    let w = vsub(&b0, &a0);
    let cubic = vdot(&n, &w);
    let nn = vdot(&n, &n);
    let g1 = vdot(&vcross(&w, &eb), &n);
    let g3 = vdot(&vcross(&w, &ea), &n);
    let g = [
        g1.clone(),
        padd(&nn, &pneg(&g1)),
        g3.clone(),
        padd(&nn, &pneg(&g3)),
    ];
    reference(&cubic, &g)
}

fn d(p: Pt) -> DVec3 {
    DVec3::new(p[0] as f64 * GRID, p[1] as f64 * GRID, p[2] as f64 * GRID)
}

#[derive(Default)]
struct Stats {
    cases: AtomicUsize,
    skipped: AtomicUsize,
    contacts: AtomicUsize,
    false_positives: AtomicUsize,
}

impl Stats {
    fn report(&self, name: &str, max_skip_fraction: f64) {
        let cases = self.cases.load(Ordering::Relaxed);
        let skipped = self.skipped.load(Ordering::Relaxed);
        eprintln!(
            "{name}: {cases} cases, {} contacts, {} false positives (within slack), {skipped} skipped",
            self.contacts.load(Ordering::Relaxed),
            self.false_positives.load(Ordering::Relaxed)
        );
        assert!(
            (skipped as f64) <= max_skip_fraction * cases as f64 + 1.0,
            "{name}: reference could not classify {skipped} of {cases} cases"
        );
    }
}

/// Checks one answer against the reference; `dist` is the f64 distance at a
/// time, `slack` the documented σ.
fn check(
    stats: &Stats,
    r: Reference,
    got: Option<PrimitiveToi>,
    dist: impl Fn(f64) -> f64,
    slack: f64,
) -> Result<(), TestCaseError> {
    stats.cases.fetch_add(1, Ordering::Relaxed);
    if let Some(toi) = got {
        prop_assert!(
            (0.0..=1.0).contains(&toi.time),
            "time {} outside [0, 1]",
            toi.time
        );
        prop_assert!(toi.converged, "not converged: {toi:?}");
        // False positives only within the slack (f64 distance: allow 1e-12).
        let dd = dist(toi.time);
        prop_assert!(
            dd <= slack + 1e-12,
            "distance {dd} at reported time {} > slack {slack}",
            toi.time
        );
    }
    match r {
        Reference::Unknown => {
            stats.skipped.fetch_add(1, Ordering::Relaxed);
        }
        Reference::Contact(_, hi) => {
            stats.contacts.fetch_add(1, Ordering::Relaxed);
            let Some(toi) = got else {
                return Err(TestCaseError::fail(format!("missed contact at t* <= {hi}")));
            };
            prop_assert!(
                toi.time <= hi,
                "late: reported {} but contact at t* <= {hi}",
                toi.time
            );
        }
        Reference::NoContact => {
            if got.is_some() {
                stats.false_positives.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
    Ok(())
}

fn pt(r: i64) -> impl Strategy<Value = Pt> {
    prop::array::uniform3(-r..=r)
}

/// A vertex–face case crossing near the inside of the triangle: the point
/// is a rounded barycentric combination plus opposite offsets at both times.
fn vf_crossing() -> impl Strategy<Value = ([Pt; 2], [[Pt; 3]; 2])> {
    (
        prop::array::uniform2(prop::array::uniform3(pt(128))),
        (0i64..=64, 0i64..=64),
        pt(60),
        pt(60),
    )
        .prop_map(|(f, (wb, wc), o0, o1)| {
            let (wb, wc) = if wb + wc > 64 {
                (64 - wb, 64 - wc)
            } else {
                (wb, wc)
            };
            let wa = 64 - wb - wc;
            let comb =
                |t: usize, k: usize| (wa * f[t][0][k] + wb * f[t][1][k] + wc * f[t][2][k]) / 64;
            let p0 = [0, 1, 2].map(|k| (comb(0, k) + o0[k]).clamp(-128, 128));
            let p1 = [0, 1, 2].map(|k| (comb(1, k) - o1[k]).clamp(-128, 128));
            ([p0, p1], f)
        })
}

/// An edge–edge case where edge b passes through a point of edge a (at some
/// time), with offsets.
fn ee_crossing() -> impl Strategy<Value = ([[Pt; 2]; 2], [[Pt; 2]; 2])> {
    (
        prop::array::uniform2(prop::array::uniform2(pt(100))),
        0i64..=64,
        pt(60),
        pt(60),
        pt(40),
        pt(40),
    )
        .prop_map(|(a, k, d0, d1, o0, o1)| {
            let x = |t: usize| [0, 1, 2].map(|c| (a[t][0][c] * (64 - k) + a[t][1][c] * k) / 64);
            let (x0, x1) = (x(0), x(1));
            let b0 = [
                [0, 1, 2].map(|c| (x0[c] - d0[c] + o0[c]).clamp(-128, 128)),
                [0, 1, 2].map(|c| (x0[c] + d1[c] + o0[c]).clamp(-128, 128)),
            ];
            let b1 = [
                [0, 1, 2].map(|c| (x1[c] - d0[c] - o1[c]).clamp(-128, 128)),
                [0, 1, 2].map(|c| (x1[c] + d1[c] - o1[c]).clamp(-128, 128)),
            ];
            (a, [b0, b1])
        })
}

fn vf_query(p: [Pt; 2], f: [[Pt; 3]; 2]) -> VertexFace {
    VertexFace {
        vertex: [d(p[0]), d(p[1])],
        face: [f[0].map(d), f[1].map(d)],
    }
}

fn ee_query(a: [[Pt; 2]; 2], b: [[Pt; 2]; 2]) -> EdgeEdge {
    EdgeEdge {
        a: [a[0].map(d), a[1].map(d)],
        b: [b[0].map(d), b[1].map(d)],
    }
}

fn run_vf(stats: &Stats, p: [Pt; 2], f: [[Pt; 3]; 2]) -> Result<(), TestCaseError> {
    let q = vf_query(p, f);
    let o = PrimitiveOptions::default();
    let got = vertex_face_ccd(&q, &o).map_err(|e| TestCaseError::fail(e.to_string()))?;
    check(
        stats,
        vf_reference(p, f),
        got,
        |t| vertex_face_distance(&q, t),
        q.contact_slack(&o),
    )
}

fn run_ee(stats: &Stats, a: [[Pt; 2]; 2], b: [[Pt; 2]; 2]) -> Result<(), TestCaseError> {
    let q = ee_query(a, b);
    let o = PrimitiveOptions::default();
    let got = edge_edge_ccd(&q, &o).map_err(|e| TestCaseError::fail(e.to_string()))?;
    check(
        stats,
        ee_reference(a, b),
        got,
        |t| edge_edge_distance(&q, t),
        q.contact_slack(&o),
    )
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        ..ProptestConfig::default()
    }
}

#[test]
fn vertex_face_random_exact() {
    let stats = Stats::default();
    proptest!(config(10000), |(p in prop::array::uniform2(pt(128)), f in prop::array::uniform2(prop::array::uniform3(pt(128))))| {
        run_vf(&stats, p, f)?;
    });
    stats.report("vf random", 0.01);
}

#[test]
fn vertex_face_crossing_exact() {
    let stats = Stats::default();
    proptest!(config(10000), |((p, f) in vf_crossing())| {
        run_vf(&stats, p, f)?;
    });
    stats.report("vf crossing", 0.02);
    assert!(
        stats.contacts.load(Ordering::Relaxed) > 1000,
        "too few contacts to be a test"
    );
}

#[test]
fn edge_edge_random_exact() {
    let stats = Stats::default();
    proptest!(config(10000), |(a in prop::array::uniform2(prop::array::uniform2(pt(128))), b in prop::array::uniform2(prop::array::uniform2(pt(128))))| {
        run_ee(&stats, a, b)?;
    });
    stats.report("ee random", 0.01);
}

#[test]
fn edge_edge_crossing_exact() {
    let stats = Stats::default();
    proptest!(config(10000), |((a, b) in ee_crossing())| {
        run_ee(&stats, a, b)?;
    });
    stats.report("ee crossing", 0.02);
    assert!(
        stats.contacts.load(Ordering::Relaxed) > 1000,
        "too few contacts to be a test"
    );
}

/// A coarse grid (coordinates in `[−3, 3]`): many coincident, collinear and
/// coplanar configurations. Only classifiable cases are checked.
#[test]
fn degenerate_grid_exact() {
    let vf = Stats::default();
    let ee = Stats::default();
    proptest!(config(3000), |(p in prop::array::uniform2(pt(3)), f in prop::array::uniform2(prop::array::uniform3(pt(3))),
                              a in prop::array::uniform2(prop::array::uniform2(pt(3))), b in prop::array::uniform2(prop::array::uniform2(pt(3))))| {
        run_vf(&vf, p, f)?;
        run_ee(&ee, a, b)?;
    });
    vf.report("vf degenerate grid", 0.15);
    ee.report("ee degenerate grid", 0.15);
}
