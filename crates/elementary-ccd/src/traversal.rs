//! The continuous OBB-tree traversal (M1 §5.1) that emits the elementary
//! equations of the surviving triangle pairs (M1 §5.2.1).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use armature_bvh_geometry::bv::Obb;
use armature_bvh_geometry::bvh::Bvh;
use armature_bvh_geometry::mesh::TriMesh;

use crate::obb::{RelativePose, obb_overlap};
use crate::solver::{Equation, Kind};

/// One side of a pair: its mesh, OBB tree and body index.
#[derive(Clone, Copy)]
pub(crate) struct Side<'a> {
    pub(crate) mesh: &'a TriMesh,
    pub(crate) tree: &'a Bvh<Obb>,
    pub(crate) body: u32,
}

/// Key of an equation, so that features shared by neighbouring triangles
/// are solved once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Key {
    /// Link vertex against other triangle, or other vertex against link
    /// triangle.
    VertexFace {
        pair: u32,
        link_vertex: bool,
        vertex: u32,
        triangle: u32,
    },
    /// Link edge against other edge (sorted vertex ids).
    EdgeEdge { pair: u32, a: [u32; 2], b: [u32; 2] },
}

/// A multiplicative hasher for the small integer keys of [`Key`]: the
/// keys are not chosen by an adversary, and SipHash cost more than the
/// traversal itself.
#[derive(Clone, Copy, Debug, Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u8(&mut self, x: u8) {
        self.write_u64(u64::from(x));
    }

    fn write_u32(&mut self, x: u32) {
        self.write_u64(u64::from(x));
    }

    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// Reusable buffers of the traversal.
#[derive(Debug, Default)]
pub(crate) struct TraversalWorkspace {
    stack: Vec<(u32, u32, u32)>,
    seen: HashMap<Key, u32, BuildHasherDefault<KeyHasher>>,
}

impl TraversalWorkspace {
    pub(crate) fn clear(&mut self) {
        self.seen.clear();
    }
}

/// Counts of the traversal.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct TraversalStats {
    /// Continuous OBB/OBB tests.
    pub(crate) obb_tests: usize,
    /// Leaf pairs found overlapping.
    pub(crate) leaf_pairs: usize,
}

fn size(obb: &Obb) -> f64 {
    obb.half_extents.max_element()
}

/// Traverses the link's tree (`a`) against the other's (`b`) with the
/// relative poses `rel[k]` of `b`'s frame in `a`'s frame over the `k`-th of
/// `rel.len()` equal sub-intervals of `window`, pushing the equations of
/// every overlapping leaf pair, each starting at its pair's first
/// overlapping sub-interval (M1 §5.1.1: sub-intervals in increasing time,
/// stopping at the first overlap; children start where the parent first
/// overlapped, since they lie inside it).
#[allow(clippy::too_many_arguments)]
pub(crate) fn traverse(
    pair: u32,
    a: Side<'_>,
    b: Side<'_>,
    window: (f64, f64),
    rel: &[RelativePose],
    separation: f64,
    equations: &mut Vec<Equation>,
    ws: &mut TraversalWorkspace,
    stats: &mut TraversalStats,
) {
    let pieces = rel.len() as u32;
    if pieces == 0 || a.tree.nodes().is_empty() || b.tree.nodes().is_empty() {
        return;
    }
    ws.stack.clear();
    ws.stack.push((0, 0, 0));
    while let Some((na, nb, k0)) = ws.stack.pop() {
        let node_a = &a.tree.nodes()[na as usize];
        let node_b = &b.tree.nodes()[nb as usize];
        let mut first = None;
        for k in k0..pieces {
            stats.obb_tests += 1;
            if obb_overlap(&node_a.bv, &node_b.bv, &rel[k as usize], separation) {
                first = Some(k);
                break;
            }
        }
        let Some(k) = first else { continue };
        match (node_a.children(), node_b.children()) {
            (None, None) => {
                stats.leaf_pairs += 1;
                let start = window.0 + (window.1 - window.0) * f64::from(k) / f64::from(pieces);
                for &ta in a.tree.leaf_triangles(node_a) {
                    for &tb in b.tree.leaf_triangles(node_b) {
                        emit(pair, a, b, ta, tb, start, equations, ws);
                    }
                }
            }
            (Some(ca), None) => {
                ws.stack.push((ca[1] as u32, nb, k));
                ws.stack.push((ca[0] as u32, nb, k));
            }
            (None, Some(cb)) => {
                ws.stack.push((na, cb[1] as u32, k));
                ws.stack.push((na, cb[0] as u32, k));
            }
            (Some(ca), Some(cb)) => {
                if size(&node_a.bv) >= size(&node_b.bv) {
                    ws.stack.push((ca[1] as u32, nb, k));
                    ws.stack.push((ca[0] as u32, nb, k));
                } else {
                    ws.stack.push((na, cb[1] as u32, k));
                    ws.stack.push((na, cb[0] as u32, k));
                }
            }
        }
    }
}

fn sorted(x: u32, y: u32) -> [u32; 2] {
    if x <= y { [x, y] } else { [y, x] }
}

/// Pushes the 6 vertex–face and 9 edge–edge equations of triangle `ta` of
/// `a` against triangle `tb` of `b` (each feature pair once per query; a
/// repeated one keeps the earliest start).
#[allow(clippy::too_many_arguments)]
fn emit(
    pair: u32,
    a: Side<'_>,
    b: Side<'_>,
    ta: u32,
    tb: u32,
    start: f64,
    equations: &mut Vec<Equation>,
    ws: &mut TraversalWorkspace,
) {
    let ia = a.mesh.indices()[ta as usize];
    let ib = b.mesh.indices()[tb as usize];
    let va = a.mesh.vertices();
    let vb = b.mesh.vertices();
    let mut push = |key: Key, e: Equation| match ws.seen.get(&key) {
        Some(&i) => {
            let old = &mut equations[i as usize];
            old.start = old.start.min(e.start);
        }
        None => {
            ws.seen.insert(key, equations.len() as u32);
            equations.push(e);
        }
    };
    for &v in &ia {
        push(
            Key::VertexFace {
                pair,
                link_vertex: true,
                vertex: v,
                triangle: tb,
            },
            Equation {
                kind: Kind::VertexFace,
                pair,
                bodies: [a.body, b.body, b.body, b.body],
                points: [
                    va[v as usize],
                    vb[ib[0] as usize],
                    vb[ib[1] as usize],
                    vb[ib[2] as usize],
                ],
                vertices: [v, ib[0], ib[1], ib[2]],
                triangles: [ta, tb],
                first_is_link: true,
                start,
            },
        );
    }
    for &v in &ib {
        push(
            Key::VertexFace {
                pair,
                link_vertex: false,
                vertex: v,
                triangle: ta,
            },
            Equation {
                kind: Kind::VertexFace,
                pair,
                bodies: [b.body, a.body, a.body, a.body],
                points: [
                    vb[v as usize],
                    va[ia[0] as usize],
                    va[ia[1] as usize],
                    va[ia[2] as usize],
                ],
                vertices: [v, ia[0], ia[1], ia[2]],
                triangles: [ta, tb],
                first_is_link: false,
                start,
            },
        );
    }
    for i in 0..3 {
        let (a0, a1) = (ia[i], ia[(i + 1) % 3]);
        for j in 0..3 {
            let (b0, b1) = (ib[j], ib[(j + 1) % 3]);
            push(
                Key::EdgeEdge {
                    pair,
                    a: sorted(a0, a1),
                    b: sorted(b0, b1),
                },
                Equation {
                    kind: Kind::EdgeEdge,
                    pair,
                    bodies: [a.body, a.body, b.body, b.body],
                    points: [
                        va[a0 as usize],
                        va[a1 as usize],
                        vb[b0 as usize],
                        vb[b1 as usize],
                    ],
                    vertices: [a0, a1, b0, b1],
                    triangles: [ta, tb],
                    first_is_link: true,
                    start,
                },
            );
        }
    }
}
