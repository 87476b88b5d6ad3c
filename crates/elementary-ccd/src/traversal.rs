//! The continuous OBB-tree traversal (M1 §5.1) that emits the elementary
//! equations of the surviving triangle pairs (M1 §5.2.1).

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

use armature_bvh_geometry::bv::Obb;
use armature_bvh_geometry::bvh::Bvh;
use armature_bvh_geometry::mesh::TriMesh;

use crate::obb::{PlacedObb, RelativePose, obb_overlap_placed};
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
    /// The link's boxes placed in the other's frame (the stack holds
    /// indices: a placed box is large to copy).
    placed: Vec<PlacedObb>,
    seen: HashSet<Key, BuildHasherDefault<KeyHasher>>,
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
/// relative pose `rel` of the link's frame in the other's frame over a
/// time piece, pushing the equations of every overlapping leaf pair. Each
/// box of the link's tree (the
/// smaller tree) is placed in the other's frame once
/// ([`RelativePose::place`]) and tested against the boxes of the other it
/// meets. With `probe`, nothing is emitted and the traversal stops at the
/// first overlapping leaf pair. Returns whether a leaf pair overlaps.
#[allow(clippy::too_many_arguments)]
pub(crate) fn traverse(
    pair: u32,
    a: Side<'_>,
    b: Side<'_>,
    rel: &RelativePose,
    separation: f64,
    probe: bool,
    equations: &mut Vec<Equation>,
    ws: &mut TraversalWorkspace,
    stats: &mut TraversalStats,
) -> bool {
    let (Some(root_a), Some(_)) = (a.tree.nodes().first(), b.tree.nodes().first()) else {
        return false;
    };
    let mut found = false;
    ws.stack.clear();
    ws.placed.clear();
    ws.placed.push(rel.place(&root_a.bv));
    ws.stack.push((0, 0, 0));
    while let Some((na, nb, placed)) = ws.stack.pop() {
        let node_a = &a.tree.nodes()[na as usize];
        let node_b = &b.tree.nodes()[nb as usize];
        stats.obb_tests += 1;
        if !obb_overlap_placed(&node_b.bv, &ws.placed[placed as usize], separation) {
            continue;
        }
        let descend_a = match (node_a.children(), node_b.children()) {
            (None, None) => {
                found = true;
                if probe {
                    return true;
                }
                stats.leaf_pairs += 1;
                for &ta in a.tree.leaf_triangles(node_a) {
                    for &tb in b.tree.leaf_triangles(node_b) {
                        emit(pair, a, b, ta, tb, equations, ws);
                    }
                }
                continue;
            }
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(_), Some(_)) => size(&node_a.bv) >= size(&node_b.bv),
        };
        if descend_a {
            if let Some([c0, c1]) = node_a.children() {
                let nodes = a.tree.nodes();
                let p = ws.placed.len() as u32;
                ws.placed.push(rel.place(&nodes[c1].bv));
                ws.placed.push(rel.place(&nodes[c0].bv));
                ws.stack.push((c1 as u32, nb, p));
                ws.stack.push((c0 as u32, nb, p + 1));
            }
        } else if let Some([c0, c1]) = node_b.children() {
            ws.stack.push((na, c1 as u32, placed));
            ws.stack.push((na, c0 as u32, placed));
        }
    }
    found
}

fn sorted(x: u32, y: u32) -> [u32; 2] {
    if x <= y { [x, y] } else { [y, x] }
}

/// Pushes the 6 vertex–face and 9 edge–edge equations of triangle `ta` of
/// `a` against triangle `tb` of `b`, each feature pair once per traversal.
#[allow(clippy::too_many_arguments)]
fn emit(
    pair: u32,
    a: Side<'_>,
    b: Side<'_>,
    ta: u32,
    tb: u32,
    equations: &mut Vec<Equation>,
    ws: &mut TraversalWorkspace,
) {
    let ia = a.mesh.indices()[ta as usize];
    let ib = b.mesh.indices()[tb as usize];
    let va = a.mesh.vertices();
    let vb = b.mesh.vertices();
    let mut push = |key: Key, e: Equation| {
        if ws.seen.insert(key) {
            equations.push(e);
        }
    };
    // The vertices of each side against the other side's face.
    let sides = [(true, a, ia, b, ib, tb), (false, b, ib, a, ia, ta)];
    for (link_vertex, vs, iv, fs, iface, face) in sides {
        let (pv, pf) = (vs.mesh.vertices(), fs.mesh.vertices());
        for &v in &iv {
            push(
                Key::VertexFace {
                    pair,
                    link_vertex,
                    vertex: v,
                    triangle: face,
                },
                Equation {
                    kind: Kind::VertexFace,
                    pair,
                    bodies: [vs.body, fs.body, fs.body, fs.body],
                    points: [
                        pv[v as usize],
                        pf[iface[0] as usize],
                        pf[iface[1] as usize],
                        pf[iface[2] as usize],
                    ],
                    vertices: [v, iface[0], iface[1], iface[2]],
                    triangles: [ta, tb],
                    first_is_link: link_vertex,
                },
            );
        }
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
                },
            );
        }
    }
}
