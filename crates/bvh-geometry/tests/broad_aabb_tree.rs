//! The AABB tree reports exactly the overlapping pairs that an `O(n²)`
//! enumeration finds.

use armature_bvh_geometry::{Aabb, AabbTree, AabbTreeWorkspace};
use glam::DVec3;
use proptest::prelude::*;

/// Boxes on a coarse grid so that touching and identical boxes are common.
fn aabb() -> impl Strategy<Value = Aabb> {
    (
        prop::array::uniform3(-8i32..8),
        prop::array::uniform3(0i32..4),
        0u8..20,
    )
        .prop_map(|(lo, ext, empty)| {
            if empty == 0 {
                return Aabb::EMPTY;
            }
            let lo = DVec3::new(f64::from(lo[0]), f64::from(lo[1]), f64::from(lo[2])) * 0.5;
            let ext = DVec3::new(f64::from(ext[0]), f64::from(ext[1]), f64::from(ext[2])) * 0.5;
            Aabb::new(lo, lo + ext)
        })
}

fn brute_cross(a: &[Aabb], b: &[Aabb]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            if x.overlaps(y) {
                out.push((i, j));
            }
        }
    }
    out
}

fn brute_self(a: &[Aabb]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for i in 0..a.len() {
        for j in i + 1..a.len() {
            if a[i].overlaps(&a[j]) {
                out.push((i, j));
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn cross_and_self_overlaps_match_brute_force(
        a in prop::collection::vec(aabb(), 0..40),
        b in prop::collection::vec(aabb(), 0..40),
    ) {
        let (ta, tb) = (AabbTree::build(&a), AabbTree::build(&b));
        prop_assert_eq!(ta.overlapping_pairs(&tb), brute_cross(&a, &b));
        prop_assert_eq!(ta.self_overlapping_pairs(), brute_self(&a));

        // Each pair once, also through the streaming interface, and with
        // a rebuilt tree and a reused workspace.
        let mut ws = AabbTreeWorkspace::new();
        let mut t = AabbTree::new();
        t.rebuild(&b);
        t.rebuild(&a);
        let mut seen = Vec::new();
        t.for_each_self_overlap(&mut ws, |i, j| seen.push((i, j)));
        let n = seen.len();
        seen.sort_unstable();
        seen.dedup();
        prop_assert_eq!(seen.len(), n);
        prop_assert_eq!(seen, brute_self(&a));

        if let Some(q) = b.first() {
            let mut hits = Vec::new();
            ta.for_each_overlap_box(q, &mut ws, |i| hits.push(i));
            hits.sort_unstable();
            let expected: Vec<usize> = (0..a.len()).filter(|&i| a[i].overlaps(q)).collect();
            prop_assert_eq!(hits, expected);
        }
    }
}

#[test]
fn many_boxes_deep_tree() {
    // A deterministic cloud large enough for a deep tree.
    let mut s = 12345u64;
    let mut rnd = || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    let boxes: Vec<Aabb> = (0..600)
        .map(|_| {
            let c = DVec3::new(rnd(), rnd(), rnd()) * 20.0;
            let e = DVec3::new(rnd(), rnd(), rnd()) * 0.8;
            Aabb::new(c - e, c + e)
        })
        .collect();
    let t = AabbTree::build(&boxes);
    assert_eq!(t.self_overlapping_pairs(), brute_self(&boxes));
    assert!(t.node_count() < 2 * boxes.len());
}
