//! Mesh topology computed once: closedness and connected components.
//!
//! **What.** [`MeshTopology`] records whether a [`TriMesh`] is *closed*
//! and one triangle per connected component. A mesh is closed when every
//! edge (a pair of vertex indices) is used by exactly two triangles that
//! traverse it in opposite directions: a watertight, consistently oriented
//! surface, the boundary of a solid. The test is on vertex indices, so a
//! soup whose faces repeat vertices instead of sharing them is open until
//! it is [`TriMesh::welded`]; the orientation may be outward or inward
//! (the winding number is then `+1` or `−1` inside). Zero-area triangles
//! kept by [`crate::DegeneratePolicy::Keep`] do not break closedness: they
//! bound no volume and add no solid angle. Two triangles are in one
//! component when a chain of triangles sharing vertex indices joins them.
//!
//! **Why.** A closed mesh bounds a solid, and a link inside a closed
//! obstacle (or holding one) collides although no two triangles meet; the
//! containment test of [`crate::query::containment`] needs to know which
//! meshes bound solids and needs one point per component, because a
//! component whose surface crosses no other surface lies wholly inside or
//! wholly outside the other solid. Open meshes and soups keep surface
//! semantics: only their triangles collide.
//!
//! **Cost.** `O(n)` expected time for `n` triangles (hashed edges and a
//! union–find over vertices), once per geometry:
//! [`crate::LinkGeometry::from_mesh`] stores the result.
//!
//! ```
//! use armature_bvh_geometry::{MeshTopology, TriMesh};
//! use glam::DVec3;
//!
//! let v = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
//! let tetra = TriMesh::new(v.clone(), vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])?;
//! assert!(MeshTopology::new(&tetra).is_closed());
//! // One face removed: open.
//! let open = TriMesh::new(v, vec![[0, 2, 1], [0, 1, 3], [0, 3, 2]])?;
//! assert!(!MeshTopology::new(&open).is_closed());
//! # Ok::<(), armature_bvh_geometry::GeometryError>(())
//! ```

use glam::DVec3;

use crate::GeometryError;
use crate::mesh::TriMesh;

/// Closedness and connected components of one mesh (see the
/// [module docs](self)).
#[derive(Debug, Clone, PartialEq)]
pub struct MeshTopology {
    closed: bool,
    /// The first triangle of each connected component, ascending.
    components: Vec<u32>,
    /// A ball `(centre, radius)` holding each component's vertices, in
    /// the order of `components` (mesh frame): cheap rejection of the
    /// components that cannot lie inside another mesh.
    balls: Vec<(DVec3, f64)>,
    /// Triangles of the mesh it was computed on, to catch a mismatch.
    triangles: usize,
}

impl MeshTopology {
    /// The topology of `mesh`.
    #[must_use]
    pub fn new(mesh: &TriMesh) -> Self {
        let (components, balls) = component_triangles(mesh);
        Self {
            closed: is_closed(mesh.indices(), mesh.num_vertices()),
            components,
            balls,
            triangles: mesh.num_triangles(),
        }
    }

    /// A ball `(centre, radius)` holding the vertices of each component,
    /// in the order of [`MeshTopology::component_triangles`] (mesh frame;
    /// the radius is padded for rounding).
    #[must_use]
    pub fn component_balls(&self) -> &[(DVec3, f64)] {
        &self.balls
    }

    /// Bytes allocated on the heap (by capacity), without the struct
    /// itself.
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        self.components.capacity() * core::mem::size_of::<u32>()
            + self.balls.capacity() * core::mem::size_of::<(DVec3, f64)>()
    }

    /// Whether every edge is used by exactly two triangles traversing it
    /// in opposite directions (the mesh bounds a solid).
    #[must_use]
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// The first triangle (in mesh order) of each connected component,
    /// ascending; at least one.
    #[must_use]
    pub fn component_triangles(&self) -> &[u32] {
        &self.components
    }

    /// Checks that `mesh` has the triangle count this topology was
    /// computed for (the check every query makes, so that no index is out
    /// of range).
    ///
    /// # Errors
    /// [`GeometryError::TopologyMeshMismatch`].
    pub fn check_mesh(&self, mesh: &TriMesh) -> Result<(), GeometryError> {
        if mesh.num_triangles() == self.triangles {
            Ok(())
        } else {
            Err(GeometryError::TopologyMeshMismatch {
                topology_triangles: self.triangles,
                mesh_triangles: mesh.num_triangles(),
            })
        }
    }
}

/// The first triangle of each component, by union–find over the vertices
/// the triangles join, and a ball holding each component's vertices.
fn component_triangles(mesh: &TriMesh) -> (Vec<u32>, Vec<(DVec3, f64)>) {
    let mut parent: Vec<u32> = (0..mesh.num_vertices()).map(|i| i as u32).collect();
    for tri in mesh.indices() {
        union(&mut parent, tri[0], tri[1]);
        union(&mut parent, tri[1], tri[2]);
    }
    // Per root: the component's index, once seen.
    let mut index = vec![u32::MAX; parent.len()];
    let mut first = Vec::new();
    let mut boxes: Vec<(DVec3, DVec3)> = Vec::new();
    let vertices = mesh.vertices();
    for (t, tri) in mesh.indices().iter().enumerate() {
        let root = find(&mut parent, tri[0]) as usize;
        if index[root] == u32::MAX {
            // At most 2^32 triangles are indexable by the queries; the
            // mesh's triangle count is what `u32` hierarchies index too.
            index[root] = first.len() as u32;
            first.push(t as u32);
            boxes.push((DVec3::INFINITY, DVec3::NEG_INFINITY));
        }
        let b = &mut boxes[index[root] as usize];
        for &v in tri {
            let p = vertices[v as usize];
            *b = (b.0.min(p), b.1.max(p));
        }
    }
    let balls = boxes
        .into_iter()
        .map(|(lo, hi)| {
            let c = (lo + hi) * 0.5;
            // Half the diagonal, padded for the rounding of the centre.
            let r = (hi - lo).length() * 0.5;
            (
                c,
                r * (1.0 + 1e-12) + 4.0 * f64::EPSILON * c.abs().max_element(),
            )
        })
        .collect();
    (first, balls)
}

/// The root of `i`'s set, halving the path on the way.
/// Whether every edge is used by exactly two triangles in opposite
/// directions (the test of `TriMesh::mass_properties`), decided without
/// hashing: the directed edges are grouped by their first vertex (a
/// counting sort) and sorted within each group, then each edge `a → b`
/// must occur once in `a`'s group and its reverse once in `b`'s. An edge
/// from a vertex to itself is never matched, as in the mass test.
fn is_closed(indices: &[[u32; 3]], num_vertices: usize) -> bool {
    let mut start = vec![0usize; num_vertices + 1];
    for tri in indices {
        for k in 0..3 {
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            if a == b {
                return false;
            }
            start[a as usize + 1] += 1;
        }
    }
    for v in 0..num_vertices {
        start[v + 1] += start[v];
    }
    let mut next = start.clone();
    let mut targets = vec![0u32; start[num_vertices]];
    for tri in indices {
        for k in 0..3 {
            let a = tri[k] as usize;
            targets[next[a]] = tri[(k + 1) % 3];
            next[a] += 1;
        }
    }
    drop(next);
    for v in 0..num_vertices {
        targets[start[v]..start[v + 1]].sort_unstable();
    }
    let group = |v: u32| &targets[start[v as usize]..start[v as usize + 1]];
    (0..num_vertices).all(|a| {
        let out = group(a as u32);
        // Sorted: a repeated edge is a repeated neighbour.
        out.windows(2).all(|w| w[0] != w[1])
            && out
                .iter()
                .all(|&b| group(b).binary_search(&(a as u32)).is_ok())
    })
}

fn find(parent: &mut [u32], mut i: u32) -> u32 {
    while parent[i as usize] != i {
        let grand = parent[parent[i as usize] as usize];
        parent[i as usize] = grand;
        i = grand;
    }
    i
}

/// Joins the sets of `a` and `b` (the smaller root becomes the parent, so
/// the result does not depend on the order of unions).
fn union(parent: &mut [u32], a: u32, b: u32) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    if ra != rb {
        let (lo, hi) = (ra.min(rb), ra.max(rb));
        parent[hi as usize] = lo;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec3;

    fn tetra(offset: u32) -> [[u32; 3]; 4] {
        [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]].map(|t| t.map(|i| i + offset))
    }

    #[test]
    fn two_tetrahedra_are_two_closed_components() {
        let mut v = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
        v.extend(v.clone().iter().map(|p| *p + DVec3::splat(3.0)));
        let mut t = tetra(0).to_vec();
        t.extend(tetra(4));
        let m = TriMesh::new(v, t).unwrap();
        let topo = MeshTopology::new(&m);
        assert!(topo.is_closed());
        assert_eq!(topo.component_triangles(), &[0, 4]);
    }

    #[test]
    fn flipped_face_and_unwelded_soup_are_open() {
        let v = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
        let mut t = tetra(0).to_vec();
        t[3] = [1, 3, 2];
        let m = TriMesh::new(v.clone(), t).unwrap();
        assert!(!MeshTopology::new(&m).is_closed());
        // Every face with its own three vertices: four components, open.
        let soup: Vec<DVec3> = tetra(0)
            .iter()
            .flat_map(|t| t.map(|i| v[i as usize]))
            .collect();
        let idx = (0..4).map(|k| [3 * k, 3 * k + 1, 3 * k + 2]).collect();
        let soup = TriMesh::new(soup, idx).unwrap();
        let topo = MeshTopology::new(&soup);
        assert!(!topo.is_closed());
        assert_eq!(topo.component_triangles(), &[0, 1, 2, 3]);
        assert!(MeshTopology::new(&soup.welded()).is_closed());
    }

    #[test]
    fn inward_orientation_is_closed() {
        let v = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
        let t = tetra(0).map(|[a, b, c]| [a, c, b]).to_vec();
        let m = TriMesh::new(v, t).unwrap();
        assert!(MeshTopology::new(&m).is_closed());
    }

    /// The sorted-group test agrees with the hashing test of the mass
    /// properties on random index lists over a few vertices (repeated,
    /// flipped and degenerate edges included) and on closed meshes with one
    /// face changed.
    #[test]
    fn closedness_agrees_with_the_mass_test() {
        use crate::mass::check_closed;
        use proptest::prelude::*;
        use proptest::test_runner::{Config, TestRunner};
        let tri = (0..6u32, 0..6u32, 0..6u32).prop_map(|(a, b, c)| [a, b, c]);
        let mut runner = TestRunner::new(Config::with_cases(4000));
        runner
            .run(&prop::collection::vec(tri, 0..10), |t| {
                prop_assert_eq!(is_closed(&t, 6), check_closed(&t).is_ok(), "{:?}", t);
                Ok(())
            })
            .unwrap();
        let mut closed = tetra(0).to_vec();
        closed.extend(tetra(4));
        assert!(is_closed(&closed, 8) && check_closed(&closed).is_ok());
        for k in 0..closed.len() {
            for change in [[0, 2, 1], [0, 0, 1], [1, 1, 1]] {
                let mut t = closed.clone();
                let f = t[k];
                t[k] = change.map(|i| f[i]);
                assert_eq!(is_closed(&t, 8), check_closed(&t).is_ok(), "{t:?}");
            }
            let mut doubled = closed.clone();
            doubled.push(closed[k]);
            assert_eq!(is_closed(&doubled, 8), check_closed(&doubled).is_ok());
        }
    }
}
