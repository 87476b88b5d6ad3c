//! World boxes of the top levels of a placed OBB tree, for cheap culling
//! against static geometry (see [`TopBoxes`]).

use glam::{DAffine3, DVec3};

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
/// parts' boxes say most. There, most boxes asked about are far from every
/// part, and a coarse grid over the parts (up to 32 cells along an axis,
/// with the count of cells the deepest boxes meet in every range of
/// cells) rejects them in eight look-ups before any box test; it is kept
/// only where those boxes meet at most a quarter of its cells. On the welding
/// cage's random segments (`examples/path_profile.rs` of the facade) it
/// took 3–4 % off the path checks' instructions.
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
    /// Which cells of a coarse grid the terminal boxes (those the walk
    /// reports) meet, for rejecting a box far from all of them with a few
    /// operations; `None` where they meet more than [`GRID_MAX_FILL`] of
    /// its cells.
    grid: Option<CellGrid>,
}

/// Most cells of [`CellGrid`] along an axis.
const GRID_CELLS: usize = 32;

/// Largest share of [`CellGrid`]'s cells the terminal boxes may meet for the
/// grid to be kept: denser, it would reject too few boxes to pay for itself.
const GRID_MAX_FILL: f64 = 0.25;

/// A grid over the terminal boxes' bounds and, per cell, whether one of them
/// meets it, as 3-D prefix sums (so the cells of any box range are counted
/// in eight look-ups).
///
/// **Soundness.** A coordinate's cell is `⌊(x − origin) · scale⌋` clamped to
/// the axis' cells, computed the same way for the terminal boxes and for a
/// query: rounded subtraction, multiplication by a non-negative constant,
/// floor and clamping are each non-decreasing in `x`, so boxes that share a
/// point have cell ranges that share a cell, and a query whose cells all
/// count 0 meets no terminal box. Queries the walk would treat unlike a
/// box (a NaN coordinate, `min > max`) are left to it.
#[derive(Debug, Clone)]
struct CellGrid {
    /// The terminal boxes' union: a query apart from it meets none of them.
    /// Its `min` is the grid's origin.
    bounds: Aabb,
    /// Cells per unit length along each axis.
    scale: DVec3,
    /// Cells per axis (each at least 1).
    cells: [usize; 3],
    /// `sums[(i·(ny+1) + j)·(nz+1) + k]`: the marked cells `(x, y, z)` with
    /// `x < i`, `y < j`, `z < k`.
    sums: Vec<u16>,
}

impl CellGrid {
    /// The grid of `boxes`, or `None` when they meet more than
    /// [`GRID_MAX_FILL`] of its cells (or there are none, or one is not a
    /// finite box with `min ≤ max`).
    fn new(boxes: &[Aabb]) -> Option<Self> {
        let bounds = boxes.iter().fold(Aabb::EMPTY, |u, b| u.union(b));
        if bounds.is_empty() || !bounds.min.is_finite() || !bounds.max.is_finite() {
            return None;
        }
        let size = bounds.max - bounds.min;
        let longest = size.max_element();
        if longest <= 0.0 {
            return None;
        }
        let per_axis = |d: f64| {
            // In 1..=GRID_CELLS (the float-to-int cast saturates).
            ((d / longest * GRID_CELLS as f64).ceil() as usize).clamp(1, GRID_CELLS)
        };
        let cells = [per_axis(size.x), per_axis(size.y), per_axis(size.z)];
        let scale = DVec3::new(
            axis_scale(cells[0], size.x),
            axis_scale(cells[1], size.y),
            axis_scale(cells[2], size.z),
        );
        let mut grid = Self {
            bounds,
            scale,
            cells,
            sums: Vec::new(),
        };
        let [nx, ny, nz] = cells;
        let mut marked = vec![false; nx * ny * nz];
        for b in boxes {
            if !(b.min.is_finite() && b.max.is_finite() && b.min.cmple(b.max).all()) {
                return None;
            }
            let ([x0, y0, z0], [x1, y1, z1]) = grid.range(b);
            for x in x0..=x1 {
                for y in y0..=y1 {
                    for z in z0..=z1 {
                        marked[(x * ny + y) * nz + z] = true;
                    }
                }
            }
        }
        let count = marked.iter().filter(|&&m| m).count();
        if count as f64 > GRID_MAX_FILL * marked.len() as f64 {
            return None;
        }
        // At most 32³ marked cells: the sums fit `u16`.
        let at = |i: usize, j: usize, k: usize| (i * (ny + 1) + j) * (nz + 1) + k;
        let mut sums = vec![0_u16; (nx + 1) * (ny + 1) * (nz + 1)];
        for i in 1..=nx {
            for j in 1..=ny {
                for k in 1..=nz {
                    let cell = i32::from(marked[((i - 1) * ny + (j - 1)) * nz + (k - 1)]);
                    let s = |i, j, k| i32::from(sums[at(i, j, k)]);
                    let total = cell + s(i - 1, j, k) + s(i, j - 1, k) + s(i, j, k - 1)
                        - s(i - 1, j - 1, k)
                        - s(i - 1, j, k - 1)
                        - s(i, j - 1, k - 1)
                        + s(i - 1, j - 1, k - 1);
                    // A count of cells, at most 32³.
                    sums[at(i, j, k)] = u16::try_from(total).unwrap_or(u16::MAX);
                }
            }
        }
        grid.sums = sums;
        Some(grid)
    }

    /// The cells of `b` per axis, first and last (clamped to the grid).
    /// `⌊v⌋` is taken as a truncation of the non-negative values (the
    /// others clamp to cell 0 anyway), so no rounding call is made. A NaN
    /// coordinate spans its axis (the walk's box tests count NaN as
    /// overlapping).
    #[inline]
    fn range(&self, b: &Aabb) -> ([usize; 3], [usize; 3]) {
        let lo = (b.min - self.bounds.min) * self.scale;
        let hi = (b.max - self.bounds.min) * self.scale;
        // The casts saturate: +∞ and too large values go to the last cell.
        let first =
            |v: f64, n: usize| -> usize { if v > 0.0 { (v as usize).min(n - 1) } else { 0 } };
        let last = |v: f64, n: usize| -> usize {
            if v < 0.0 {
                0
            } else if v >= 0.0 {
                (v as usize).min(n - 1)
            } else {
                n - 1
            }
        };
        let [nx, ny, nz] = self.cells;
        (
            [first(lo.x, nx), first(lo.y, ny), first(lo.z, nz)],
            [last(hi.x, nx), last(hi.y, ny), last(hi.z, nz)],
        )
    }

    /// `false` only when `b` meets none of the boxes the grid was built
    /// from. Out of line: the walk is inlined where it is called, and this
    /// keeps it small (the instructions were the same either way).
    #[inline(never)]
    fn may_meet(&self, b: &Aabb) -> bool {
        if !self.bounds.overlaps(b) {
            return false;
        }
        let ([x0, y0, z0], [x1, y1, z1]) = self.range(b);
        if x0 > x1 || y0 > y1 || z0 > z1 {
            // A box with `min > max` along an axis: left to the walk.
            return true;
        }
        // Offsets of the range's first and one-past-last cells per axis.
        let [_, ny, nz] = self.cells;
        let (sy, sx) = (nz + 1, (ny + 1) * (nz + 1));
        let (a0, a1) = (x0 * sx, (x1 + 1) * sx);
        let (b0, b1) = (y0 * sy, (y1 + 1) * sy);
        let (c0, c1) = (z0, z1 + 1);
        let at = |i: usize| i32::from(self.sums[i]);
        let count = at(a1 + b1 + c1) - at(a0 + b1 + c1) - at(a1 + b0 + c1) - at(a1 + b1 + c0)
            + at(a0 + b0 + c1)
            + at(a0 + b1 + c0)
            + at(a1 + b0 + c0)
            - at(a0 + b0 + c0);
        count > 0
    }
}

/// Cells per unit length along an axis of `n` cells over `d` (0 for a flat
/// axis: every coordinate in cell 0).
fn axis_scale(n: usize, d: f64) -> f64 {
    if d > 0.0 { n as f64 / d } else { 0.0 }
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
        if let Some(grid) = &self.grid
            && !grid.may_meet(&b)
        {
            return false;
        }
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
        let terminal: Vec<Aabb> = nodes
            .iter()
            .filter(|(_, first)| *first == NO_CHILDREN)
            .map(|(b, _)| *b)
            .collect();
        let grid = CellGrid::new(&terminal);
        TopBoxes { nodes, ids, grid }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::{BvhOptions, TriMesh};

    fn vec3(r: f64) -> impl Strategy<Value = DVec3> {
        (-r..r, -r..r, -r..r).prop_map(|(x, y, z)| DVec3::new(x, y, z))
    }

    /// Thin bars (two triangles each) scattered in a cube of side 4, one in
    /// three flat along an axis.
    fn bars() -> impl Strategy<Value = TriMesh> {
        prop::collection::vec((vec3(2.0), vec3(1.0)), 1..12).prop_map(|bars| {
            let (mut vertices, mut indices) = (Vec::new(), Vec::new());
            for (k, (a, along)) in bars.into_iter().enumerate() {
                let across = DVec3::new(0.0, 0.0, if k % 3 == 0 { 0.0 } else { 0.02 });
                let base = u32::try_from(vertices.len()).expect("few vertices");
                vertices.extend([
                    a,
                    a + along,
                    a + along + across + DVec3::X * 0.01,
                    a + across,
                ]);
                indices.extend([[base, base + 1, base + 2], [base, base + 2, base + 3]]);
            }
            TriMesh::new(vertices, indices).expect("valid bars")
        })
    }

    /// A query box, mostly small and among the bars (where a grid's cells
    /// decide), one in ten inverted along an axis (`min > max`), and a
    /// margin (0 in three cases of ten).
    fn query() -> impl Strategy<Value = (Aabb, f64)> {
        let margin = prop_oneof![3 => Just(0.0), 7 => 0.0..0.3_f64];
        let half = prop_oneof![3 => vec3(0.05), 1 => vec3(0.4)];
        (vec3(3.0), half, 0..10_u32, margin).prop_map(|(c, h, kind, margin)| {
            let h = h.abs();
            let b = if kind == 0 {
                Aabb::new(c + h * DVec3::X, c - h * DVec3::X)
            } else {
                Aabb::new(c - h, c + h)
            };
            (b, margin)
        })
    }

    fn top_boxes(mesh: &TriMesh, leaf: usize, levels: u32, angle: f64) -> TopBoxes {
        let bvh = Bvh::<Obb>::build(mesh, &BvhOptions::default().with_max_leaf_triangles(leaf))
            .expect("valid mesh");
        let pose = DAffine3::from_rotation_z(angle) * DAffine3::from_translation(DVec3::X);
        bvh.top_boxes(&pose, levels)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// The terminal boxes the walk reports, with the grid and without
        /// it: the grid only ever skips a walk that would report none.
        #[test]
        fn the_grid_rejects_only_boxes_that_meet_no_terminal_box(
            mesh in bars(),
            leaf in 1_usize..=3,
            levels in prop_oneof![1 => 0_u32..3, 3 => 3_u32..7],
            angle in 0.0..6.3_f64,
            queries in prop::collection::vec(query(), 100),
        ) {
            let with = top_boxes(&mesh, leaf, levels, angle);
            let without = TopBoxes {
                grid: None,
                ..with.clone()
            };
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for (q, margin) in queries {
                let found = with.near_nodes(&q, margin, &mut a);
                prop_assert_eq!(found, without.near_nodes(&q, margin, &mut b));
                prop_assert_eq!(&a, &b, "{:?} grown by {}", q, margin);
                prop_assert_eq!(with.near(&q, margin), found);
            }
        }
    }

    /// The cases above are not vacuous: scattered bars keep a grid, and it
    /// rejects most boxes far from them.
    #[test]
    fn the_grid_is_kept_for_scattered_bars_and_rejects_far_boxes() {
        let mesh = TriMesh::new(
            (0..6)
                .flat_map(|k| {
                    let a = DVec3::new(
                        f64::from(k) * 0.7 - 2.0,
                        (f64::from(k) * 1.3).sin() * 2.0,
                        0.0,
                    );
                    [a, a + DVec3::Z * 2.0, a + DVec3::Z * 2.0 + DVec3::X * 0.02]
                })
                .collect(),
            (0..6_u32).map(|k| [3 * k, 3 * k + 1, 3 * k + 2]).collect(),
        )
        .expect("valid bars");
        let top = top_boxes(&mesh, 1, 6, 0.3);
        let grid = top.grid.as_ref().expect("six thin bars keep a grid");
        let centre = (grid.bounds.min + grid.bounds.max) * 0.5;
        let (mut rejected, mut asked) = (0, 0);
        for i in 0..10 {
            for j in 0..10 {
                let p = grid.bounds.min
                    + (grid.bounds.max - grid.bounds.min)
                        * DVec3::new(f64::from(i) / 9.0, f64::from(j) / 9.0, 0.5);
                let q = Aabb::new(p - DVec3::splat(0.01), p + DVec3::splat(0.01));
                asked += 1;
                rejected += usize::from(!grid.may_meet(&q));
            }
        }
        assert!(
            rejected * 2 > asked,
            "{rejected} of {asked} rejected around {centre}"
        );
    }

    /// Boxes with NaN or infinite coordinates get the walk's answer, and a
    /// flat terminal box (zero extent along an axis) is found.
    #[test]
    fn the_grid_keeps_odd_boxes_to_the_walk() {
        let nan = Aabb::new(DVec3::splat(f64::NAN), DVec3::splat(f64::NAN));
        let everything = Aabb::new(DVec3::NEG_INFINITY, DVec3::INFINITY);
        let flat = CellGrid::new(&[
            Aabb::new(DVec3::ZERO, DVec3::new(1.0, 1.0, 0.0)),
            Aabb::new(DVec3::splat(3.0), DVec3::splat(3.5)),
        ])
        .expect("two boxes fill few cells");
        assert!(flat.may_meet(&nan));
        assert!(flat.may_meet(&everything));
        let point = Aabb::new(DVec3::new(0.5, 0.5, 0.0), DVec3::new(0.5, 0.5, 0.0));
        assert!(flat.may_meet(&point));
        assert!(!flat.may_meet(&Aabb::new(DVec3::splat(2.0), DVec3::splat(2.5))));
        assert!(!flat.may_meet(&Aabb::new(DVec3::splat(0.5), DVec3::splat(0.6))));
        let one = CellGrid::new(&[Aabb::new(DVec3::ZERO, DVec3::new(1.0, 1.0, 0.0))]);
        assert_ne!(one.map(|g| g.may_meet(&point)), Some(false));
    }
}
