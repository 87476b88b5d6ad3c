//! # A generic AABB tree over items, rebuilt per query
//!
//! **What.** [`AabbTree`] is a binary tree over a slice of item boxes,
//! stored in a flat node array, built top-down in `O(n log n)` by a median
//! split of the item centres along the widest axis of their spread. It
//! answers the pairs of items whose boxes overlap: between two trees
//! ([`AabbTree::for_each_overlap`]), within one tree
//! ([`AabbTree::for_each_self_overlap`]) and against a single box
//! ([`AabbTree::for_each_overlap_box`]). Items are named by their index in
//! the slice the tree was built from.
//!
//! **Why.** The dynamic link hierarchy (M1 stage 1, M4 §5) encloses every
//! link over a time interval and asks which links and obstacles may meet;
//! those boxes change with every query, so the tree is rebuilt each time.
//! Rebuilding into the same tree ([`AabbTree::rebuild`]) and traversing with
//! a reusable [`AabbTreeWorkspace`] keeps steady-state queries free of
//! allocation.
//!
//! **Guarantee.** Every pair of items whose boxes overlap (touching counts,
//! exactly as [`Aabb::overlaps`]) is reported, once; no other pair is.
//! Items with an empty or NaN box are left out of the tree (they overlap
//! nothing). The order of the reported pairs depends only on the input.
//!
//! ```
//! use armature_bvh_geometry::{Aabb, AabbTree};
//! use glam::DVec3;
//! let boxes = [
//!     Aabb::new(DVec3::ZERO, DVec3::ONE),
//!     Aabb::new(DVec3::splat(0.5), DVec3::splat(2.0)),
//!     Aabb::new(DVec3::splat(5.0), DVec3::splat(6.0)),
//! ];
//! let tree = AabbTree::build(&boxes);
//! assert_eq!(tree.self_overlapping_pairs(), vec![(0, 1)]);
//! ```

use crate::bv::Aabb;
use glam::DVec3;

/// Most items in one leaf.
const LEAF_SIZE: usize = 2;

/// A node: internal when `count == 0` (left child at `index + 1`, right
/// child at `right`), a leaf otherwise (items `order[start..start+count]`).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Node {
    aabb: Aabb,
    start: u32,
    count: u32,
    right: u32,
}

impl Node {
    const fn is_leaf(&self) -> bool {
        self.count > 0
    }
}

/// A bounding-box tree over item boxes (see the [module docs](self)).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AabbTree {
    nodes: Vec<Node>,
    order: Vec<usize>,
    boxes: Vec<Aabb>,
    centers: Vec<DVec3>,
}

/// Reusable traversal stack for the overlap queries of [`AabbTree`].
#[derive(Clone, Debug, Default)]
pub struct AabbTreeWorkspace {
    stack: Vec<(u32, u32)>,
}

impl AabbTreeWorkspace {
    /// An empty workspace.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
}

impl AabbTree {
    /// An empty tree (no items).
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A tree over `boxes` (item `i` has box `boxes[i]`).
    #[must_use]
    pub fn build(boxes: &[Aabb]) -> Self {
        let mut t = Self::new();
        t.rebuild(boxes);
        t
    }

    /// Rebuilds the tree over `boxes`, reusing its buffers.
    pub fn rebuild(&mut self, boxes: &[Aabb]) {
        self.nodes.clear();
        self.order.clear();
        self.boxes.clear();
        self.boxes.extend_from_slice(boxes);
        self.centers.clear();
        self.centers.extend(boxes.iter().map(Aabb::center));
        self.order
            .extend((0..boxes.len()).filter(|&i| !boxes[i].is_empty()));
        if self.order.is_empty() {
            return;
        }
        self.nodes.reserve(2 * self.order.len());
        self.build_node(0, self.order.len());
    }

    /// Builds the subtree over `order[start..end]` (non-empty) and returns
    /// its node index.
    fn build_node(&mut self, start: usize, end: usize) -> u32 {
        let index = self.nodes.len();
        let mut aabb = Aabb::EMPTY;
        let (mut lo, mut hi) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
        for &i in &self.order[start..end] {
            aabb = aabb.union(&self.boxes[i]);
            lo = lo.min(self.centers[i]);
            hi = hi.max(self.centers[i]);
        }
        self.nodes.push(Node {
            aabb,
            start: start as u32,
            count: 0,
            right: 0,
        });
        let n = end - start;
        if n <= LEAF_SIZE {
            self.nodes[index].count = n as u32;
            return index as u32;
        }
        let spread = hi - lo;
        let axis = if spread.x >= spread.y && spread.x >= spread.z {
            0
        } else if spread.y >= spread.z {
            1
        } else {
            2
        };
        let mid = n / 2;
        let centers = &self.centers;
        // Ties broken by item index, so the split depends only on the input.
        self.order[start..end].select_nth_unstable_by(mid, |&a, &b| {
            centers[a][axis]
                .total_cmp(&centers[b][axis])
                .then(a.cmp(&b))
        });
        self.build_node(start, start + mid);
        let right = self.build_node(start + mid, end);
        self.nodes[index].right = right;
        index as u32
    }

    /// Number of items the tree was built over (empty boxes included).
    #[must_use]
    pub fn len(&self) -> usize {
        self.boxes.len()
    }

    /// Whether the tree was built over no items.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.boxes.is_empty()
    }

    /// The box of item `i`, as given.
    #[must_use]
    pub fn item_box(&self, i: usize) -> Option<&Aabb> {
        self.boxes.get(i)
    }

    /// The box around every non-empty item ([`Aabb::EMPTY`] for none).
    #[must_use]
    pub fn root_box(&self) -> Aabb {
        self.nodes.first().map_or(Aabb::EMPTY, |n| n.aabb)
    }

    /// Number of nodes.
    #[must_use]
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    fn children(&self, n: u32) -> (u32, u32) {
        (n + 1, self.nodes[n as usize].right)
    }

    fn leaf_items(&self, n: u32) -> &[usize] {
        let node = &self.nodes[n as usize];
        &self.order[node.start as usize..(node.start + node.count) as usize]
    }

    /// Calls `f(i, j)` for every item `i` of `self` and item `j` of
    /// `other` whose boxes overlap.
    pub fn for_each_overlap(
        &self,
        other: &Self,
        ws: &mut AabbTreeWorkspace,
        mut f: impl FnMut(usize, usize),
    ) {
        if self.nodes.is_empty() || other.nodes.is_empty() {
            return;
        }
        ws.stack.clear();
        ws.stack.push((0, 0));
        while let Some((a, b)) = ws.stack.pop() {
            let (na, nb) = (&self.nodes[a as usize], &other.nodes[b as usize]);
            if !na.aabb.overlaps(&nb.aabb) {
                continue;
            }
            match (na.is_leaf(), nb.is_leaf()) {
                (true, true) => {
                    for &i in self.leaf_items(a) {
                        for &j in other.leaf_items(b) {
                            if self.boxes[i].overlaps(&other.boxes[j]) {
                                f(i, j);
                            }
                        }
                    }
                }
                // Descend the node with the larger box (or the only
                // internal one): fewer node tests on unbalanced sizes.
                (false, true) => {
                    let (l, r) = self.children(a);
                    ws.stack.extend([(r, b), (l, b)]);
                }
                (true, false) => {
                    let (l, r) = other.children(b);
                    ws.stack.extend([(a, r), (a, l)]);
                }
                (false, false) => {
                    let size = |x: &Aabb| (x.max - x.min).element_sum();
                    if size(&na.aabb) >= size(&nb.aabb) {
                        let (l, r) = self.children(a);
                        ws.stack.extend([(r, b), (l, b)]);
                    } else {
                        let (l, r) = other.children(b);
                        ws.stack.extend([(a, r), (a, l)]);
                    }
                }
            }
        }
    }

    /// Calls `f(i, j)` with `i < j` for every pair of distinct items whose
    /// boxes overlap.
    pub fn for_each_self_overlap(
        &self,
        ws: &mut AabbTreeWorkspace,
        mut f: impl FnMut(usize, usize),
    ) {
        if self.nodes.is_empty() {
            return;
        }
        let mut emit = |i: usize, j: usize| {
            if i < j { f(i, j) } else { f(j, i) }
        };
        ws.stack.clear();
        ws.stack.push((0, 0));
        while let Some((a, b)) = ws.stack.pop() {
            let (na, nb) = (&self.nodes[a as usize], &self.nodes[b as usize]);
            if a == b {
                if na.is_leaf() {
                    let items = self.leaf_items(a);
                    for (k, &i) in items.iter().enumerate() {
                        for &j in &items[k + 1..] {
                            if self.boxes[i].overlaps(&self.boxes[j]) {
                                emit(i, j);
                            }
                        }
                    }
                } else {
                    let (l, r) = self.children(a);
                    ws.stack.extend([(l, r), (r, r), (l, l)]);
                }
                continue;
            }
            if !na.aabb.overlaps(&nb.aabb) {
                continue;
            }
            match (na.is_leaf(), nb.is_leaf()) {
                (true, true) => {
                    for &i in self.leaf_items(a) {
                        for &j in self.leaf_items(b) {
                            if self.boxes[i].overlaps(&self.boxes[j]) {
                                emit(i, j);
                            }
                        }
                    }
                }
                (false, true) => {
                    let (l, r) = self.children(a);
                    ws.stack.extend([(r, b), (l, b)]);
                }
                (true, false) | (false, false) => {
                    let (l, r) = self.children(b);
                    ws.stack.extend([(a, r), (a, l)]);
                }
            }
        }
    }

    /// Calls `f(i)` for every item whose box overlaps `query`.
    pub fn for_each_overlap_box(
        &self,
        query: &Aabb,
        ws: &mut AabbTreeWorkspace,
        mut f: impl FnMut(usize),
    ) {
        if self.nodes.is_empty() || query.is_empty() {
            return;
        }
        ws.stack.clear();
        ws.stack.push((0, 0));
        while let Some((a, _)) = ws.stack.pop() {
            let na = &self.nodes[a as usize];
            if !na.aabb.overlaps(query) {
                continue;
            }
            if na.is_leaf() {
                for &i in self.leaf_items(a) {
                    if self.boxes[i].overlaps(query) {
                        f(i);
                    }
                }
            } else {
                let (l, r) = self.children(a);
                ws.stack.extend([(r, 0), (l, 0)]);
            }
        }
    }

    /// Every overlapping `(item of self, item of other)` pair, sorted.
    #[must_use]
    pub fn overlapping_pairs(&self, other: &Self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        self.for_each_overlap(other, &mut AabbTreeWorkspace::new(), |i, j| {
            out.push((i, j));
        });
        out.sort_unstable();
        out
    }

    /// Every overlapping pair `(i, j)`, `i < j`, of items of this tree,
    /// sorted.
    #[must_use]
    pub fn self_overlapping_pairs(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        self.for_each_self_overlap(&mut AabbTreeWorkspace::new(), |i, j| out.push((i, j)));
        out.sort_unstable();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_and_single() {
        let t = AabbTree::build(&[]);
        assert!(t.is_empty() && t.self_overlapping_pairs().is_empty());
        let one = AabbTree::build(&[Aabb::new(DVec3::ZERO, DVec3::ONE)]);
        assert!(one.self_overlapping_pairs().is_empty());
        assert_eq!(one.overlapping_pairs(&one), vec![(0, 0)]);
        assert!(one.overlapping_pairs(&t).is_empty());
    }

    #[test]
    fn empty_boxes_are_left_out() {
        let b = [Aabb::EMPTY, Aabb::new(DVec3::ZERO, DVec3::ONE), Aabb::EMPTY];
        let t = AabbTree::build(&b);
        assert_eq!(t.len(), 3);
        assert_eq!(t.overlapping_pairs(&t), vec![(1, 1)]);
    }
}
