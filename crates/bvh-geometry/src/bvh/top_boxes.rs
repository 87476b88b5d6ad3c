//! World boxes of the top levels of a placed OBB tree, for cheap culling
//! against static geometry (see [`TopBoxes`]).

use glam::DAffine3;

use super::Bvh;
use crate::bv::{Aabb, Obb};

/// Most levels [`TopBoxes`] keeps below the root (its stack is sized for
/// them).
pub const MAX_TOP_BOX_LEVELS: u32 = 12;

/// The world boxes of the top levels of an OBB tree placed by a fixed pose:
/// one axis-aligned box per node, down to a chosen depth, each enclosing
/// its node's placed OBB (and so every triangle below it).
///
/// Built once for a static obstacle, it answers "can this world box come
/// within `margin` of any triangle?" with a few box tests and no transform
/// ([`TopBoxes::near`]): every triangle lies in a box of the deepest level
/// kept (or in a leaf's box above it), so a box far from all of those is
/// far from every triangle. Where a mesh spans the scene while its parts
/// are thin (a cage of bars, a shelf), its root box says nothing and the
/// parts' boxes say most.
///
/// **Guarantee.** `near(b, m) == false` only when every point of every
/// triangle is more than `m` from every point of `b` (Euclidean, world
/// frame): the boxes enclose the placed OBBs with a rounding allowance
/// ([`Obb::world_box`]), `b` is grown outward by `m` along each axis
/// ([`Aabb::inflated`]) and overlap is inclusive. It says nothing about
/// what is *inside* a closed mesh's solid, whose surface can be far away.
///
/// ```
/// use armature_bvh_geometry::{Aabb, Bvh, BvhOptions, Obb, TriMesh};
/// use glam::{DAffine3, DVec3};
///
/// // Two small triangles 10 apart: the root box spans the gap, the
/// // children's boxes do not.
/// let mesh = TriMesh::new(
///     vec![
///         DVec3::ZERO, DVec3::X, DVec3::Y,
///         DVec3::new(10.0, 0.0, 0.0), DVec3::new(11.0, 0.0, 0.0), DVec3::new(10.0, 1.0, 0.0),
///     ],
///     vec![[0, 1, 2], [3, 4, 5]],
/// )?;
/// let bvh = Bvh::<Obb>::build(&mesh, &BvhOptions::default().with_max_leaf_triangles(1))?;
/// let top = bvh.top_boxes(&DAffine3::IDENTITY, 4);
/// let middle = Aabb::new(DVec3::new(5.0, 0.0, -0.5), DVec3::new(6.0, 1.0, 0.5));
/// assert!(!top.near(&middle, 1.0));
/// assert!(top.near(&middle, 4.0));
/// # Ok::<(), armature_bvh_geometry::GeometryError>(())
/// ```
#[derive(Debug, Clone)]
pub struct TopBoxes {
    /// Breadth first: a node's world box and its first child's index here
    /// (the second follows it), [`NO_CHILDREN`] at the deepest level kept
    /// and at leaves.
    nodes: Vec<(Aabb, u32)>,
    /// The tree's node id behind each box.
    ids: Vec<u32>,
}

/// Marks a node whose children are not kept.
const NO_CHILDREN: u32 = u32::MAX;

impl TopBoxes {
    /// Number of boxes kept.
    #[must_use]
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether no box is kept (an empty tree).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Whether `b` grown by `margin` (`≥ 0`) overlaps a box of the deepest
    /// level kept or of a leaf above it: `false` proves every triangle more
    /// than `margin` from every point of `b` (see the type's guarantee). A
    /// negative or NaN margin counts as 0.
    #[must_use]
    pub fn near(&self, b: &Aabb, margin: f64) -> bool {
        self.walk(b, margin, |_| true)
    }

    /// The tree's node ids (into [`Bvh::nodes`]) of the boxes of the deepest
    /// level kept, or of leaves above it, that `b` grown by `margin` overlaps,
    /// appended to `out` (cleared first); `true` when there is one. Every
    /// triangle within `margin` of `b` lies below one of them, so a query
    /// about `b` can start from these nodes (see
    /// [`crate::query::collide_below`]).
    pub fn near_nodes(&self, b: &Aabb, margin: f64, out: &mut Vec<u32>) -> bool {
        out.clear();
        self.walk(b, margin, |id| {
            out.push(id);
            false
        });
        !out.is_empty()
    }

    /// Depth first over the boxes `b` (grown by `margin`) overlaps, calling
    /// `found` with the tree id of each terminal one; stops when it returns
    /// `true`, and returns whether it did.
    fn walk(&self, b: &Aabb, margin: f64, mut found: impl FnMut(u32) -> bool) -> bool {
        let b = if margin > 0.0 { b.inflated(margin) } else { *b };
        // Both children pushed: at most one pending sibling per level below
        // the root, plus the pair just pushed.
        let mut stack = [0_u32; MAX_TOP_BOX_LEVELS as usize + 2];
        let mut len = usize::from(!self.nodes.is_empty());
        while len > 0 {
            len -= 1;
            let i = stack[len] as usize;
            let (bx, first) = self.nodes[i];
            if !bx.overlaps(&b) {
                continue;
            }
            if first == NO_CHILDREN {
                if found(self.ids[i]) {
                    return true;
                }
                continue;
            }
            stack[len] = first + 1;
            stack[len + 1] = first;
            len += 2;
        }
        false
    }
}

impl Bvh<Obb> {
    /// The world boxes of this tree's nodes placed by `pose`, from the root
    /// down to `levels` below it (clamped to [`MAX_TOP_BOX_LEVELS`]; at
    /// most `2^(levels+1) − 1` boxes): see [`TopBoxes`].
    #[must_use]
    pub fn top_boxes(&self, pose: &DAffine3, levels: u32) -> TopBoxes {
        let levels = levels.min(MAX_TOP_BOX_LEVELS);
        let tree = self.nodes();
        let mut nodes = Vec::new();
        // The tree node behind each kept box, and its level.
        let mut source: Vec<(usize, u32)> = Vec::new();
        if let Some(root) = tree.first() {
            nodes.push((root.bv.world_box(pose), NO_CHILDREN));
            source.push((0, 0));
        }
        let mut k = 0;
        while k < source.len() {
            let (i, level) = source[k];
            if level < levels
                && let Some(children) = tree[i].children()
                && let Ok(first) = u32::try_from(nodes.len())
                && first < NO_CHILDREN - 1
            {
                nodes[k].1 = first;
                for c in children {
                    nodes.push((tree[c].bv.world_box(pose), NO_CHILDREN));
                    source.push((c, level + 1));
                }
            }
            k += 1;
        }
        // Node ids fit `u32` where the boxes do (at most `2^13 − 1`).
        let ids = source
            .iter()
            .map(|&(i, _)| u32::try_from(i).unwrap_or(u32::MAX))
            .collect();
        TopBoxes { nodes, ids }
    }
}
