//! # The dynamic link hierarchy: which links and obstacles may meet
//!
//! **What.** Stage 1 of the articulated CCD pipelines (M1 §4.1, M4 §5):
//! while a model moves by an [`InBetweenMotion`] over `[t0, t1]`, each
//! link's box (a [`LinkObb`] in the link frame) sweeps a volume enclosed by
//! a world AABB computed from the kinematics pose enclosures
//! ([`EnclosureKind::Interval`] or [`EnclosureKind::Taylor`]) or chord
//! boxes ([`EnclosureKind::Chords`]), through
//! [`LinkEnclosures::obb_aabb`](armature_kinematics::LinkEnclosures::obb_aabb).
//! An [`AabbTree`] over those boxes, rebuilt per query, is traversed
//! against itself (self-collision) and against the static
//! [`EnvironmentHierarchy`] (an [`AabbTree`] over the obstacles' world
//! boxes, built once), giving the *potentially colliding* `(link, link)`
//! and `(link, obstacle)` pairs. Pairs that never need a test are
//! skipped by the rules of [`LinkGroups`]: links welded together by fixed
//! joints (one *rigid group*: they never move relative to each other),
//! adjacent links (a parent and its child, and more generally two rigid
//! groups joined by one movable joint), and a user's [`DisabledPairs`].
//!
//! **Adjacency by rigid groups.** Robot descriptions put geometry-less
//! frames between links (`link1 → link1_rot2 → link2`, the frames joined by
//! fixed joints) and hang tools on fixed joints below the last link. Their
//! meshes touch at the joint they share, so testing them would report every
//! such model in collision at rest. Adjacency is therefore decided on the
//! rigid groups: two links are adjacent when one's group hangs from the
//! other's by a single movable joint (the rule of the usual allowed-collision
//! defaults of robotics libraries). Links two movable joints apart are
//! always tested.
//!
//! **Why.** The exact stages (continuous OBB trees, conservative
//! advancement) cost far more per pair than a box test; this culls most
//! pairs for the price of one enclosure per link and two tree traversals.
//! This crate owns the hierarchy; the CCD crates only call it.
//!
//! **Guarantee.** Conservative: if a link's box and an obstacle's box (or
//! two links' boxes) share a point at any `t ∈ [t0, t1]`, the pair is in
//! the output (unless skipped by the rules above), because the pose
//! enclosures contain every true pose in floating point and the tree
//! reports every overlapping pair of boxes. Output is sorted, so it does
//! not depend on the traversal.

use std::collections::BTreeSet;

use crate::aabb_tree::{AabbTree, AabbTreeWorkspace};
use crate::bv::Aabb;
use crate::error::GeometryError;
use armature_interval_taylor::IntervalVec3;
use armature_kinematics::{
    EnclosureKind, EnclosureWorkspace, InBetweenMotion, JointType, KinematicTree, LinkObb,
};

/// Pairs the user excludes from every test: link–link pairs and
/// link–obstacle pairs, by index (or by name through
/// [`DisabledPairs::disable_named`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DisabledPairs {
    links: BTreeSet<(usize, usize)>,
    link_obstacles: BTreeSet<(usize, usize)>,
}

impl DisabledPairs {
    /// No pair disabled.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Disables the pair of links `a` and `b` (in either order).
    pub fn disable_links(&mut self, a: usize, b: usize) -> &mut Self {
        self.links.insert((a.min(b), a.max(b)));
        self
    }

    /// Disables the pair of link `link` and obstacle `obstacle`.
    pub fn disable_link_obstacle(&mut self, link: usize, obstacle: usize) -> &mut Self {
        self.link_obstacles.insert((link, obstacle));
        self
    }

    /// Disables a pair given by names, each a link of `tree` or one of
    /// `obstacles` (obstacle names). Two obstacles never move, so a pair of
    /// obstacle names is accepted and has no effect.
    ///
    /// # Errors
    /// [`GeometryError::UnknownName`] naming a name that is neither;
    /// [`GeometryError::AmbiguousName`] naming a name that is both a link
    /// and an obstacle (which pair is meant cannot be told).
    pub fn disable_named(
        &mut self,
        tree: &KinematicTree,
        obstacles: &[&str],
        a: &str,
        b: &str,
    ) -> Result<&mut Self, GeometryError> {
        #[derive(Clone, Copy)]
        enum Who {
            Link(usize),
            Obstacle(usize),
        }
        let find = |name: &str| match (
            tree.link_index(name).ok(),
            obstacles.iter().position(|o| *o == name),
        ) {
            (Some(i), None) => Ok(Who::Link(i)),
            (None, Some(i)) => Ok(Who::Obstacle(i)),
            (Some(_), Some(_)) => Err(GeometryError::AmbiguousName {
                name: name.to_owned(),
            }),
            (None, None) => Err(GeometryError::UnknownName {
                name: name.to_owned(),
            }),
        };
        match (find(a)?, find(b)?) {
            (Who::Link(x), Who::Link(y)) => self.disable_links(x, y),
            (Who::Link(l), Who::Obstacle(o)) | (Who::Obstacle(o), Who::Link(l)) => {
                self.disable_link_obstacle(l, o)
            }
            (Who::Obstacle(_), Who::Obstacle(_)) => self,
        };
        Ok(self)
    }

    /// Whether the link pair is disabled.
    #[must_use]
    pub fn links_disabled(&self, a: usize, b: usize) -> bool {
        self.links.contains(&(a.min(b), a.max(b)))
    }

    /// Whether the link–obstacle pair is disabled.
    #[must_use]
    pub fn link_obstacle_disabled(&self, link: usize, obstacle: usize) -> bool {
        self.link_obstacles.contains(&(link, obstacle))
    }

    /// Whether nothing is disabled.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.links.is_empty() && self.link_obstacles.is_empty()
    }
}

/// Which link pairs the hierarchy skips, and the enclosure it uses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DynamicHierarchyOptions {
    /// Interval (M1) or Taylor (M4) pose enclosures, or chord boxes.
    /// Default Taylor.
    pub kind: EnclosureKind,
    /// Test links against each other at all. Default `true`.
    pub self_collision: bool,
    /// Skip adjacent links ([`LinkGroups::adjacent`]: a parent and its
    /// child, or two rigid groups joined by one movable joint). Default
    /// `true`.
    pub skip_adjacent: bool,
    /// Skip links joined by a chain of fixed joints: they form one rigid
    /// body and never move relative to each other. Default `true`.
    pub skip_rigidly_attached: bool,
    /// Every swept link box is widened by this distance, so pairs closer
    /// than it are kept too (a query's distance threshold). Finite and
    /// non-negative (anything else counts as 0). Default 0.
    pub margin: f64,
}

impl Default for DynamicHierarchyOptions {
    fn default() -> Self {
        Self {
            kind: EnclosureKind::Taylor,
            self_collision: true,
            skip_adjacent: true,
            skip_rigidly_attached: true,
            margin: 0.0,
        }
    }
}

impl DynamicHierarchyOptions {
    /// With this enclosure kind.
    #[must_use]
    pub const fn with_kind(mut self, kind: EnclosureKind) -> Self {
        self.kind = kind;
        self
    }

    /// With or without link–link pairs.
    #[must_use]
    pub const fn with_self_collision(mut self, on: bool) -> Self {
        self.self_collision = on;
        self
    }

    /// Whether to skip adjacent links ([`LinkGroups::adjacent`]).
    #[must_use]
    pub const fn with_skip_adjacent(mut self, on: bool) -> Self {
        self.skip_adjacent = on;
        self
    }

    /// Whether to skip rigidly attached links.
    #[must_use]
    pub const fn with_skip_rigidly_attached(mut self, on: bool) -> Self {
        self.skip_rigidly_attached = on;
        self
    }

    /// With this margin around every swept link box.
    #[must_use]
    pub const fn with_margin(mut self, margin: f64) -> Self {
        self.margin = margin;
        self
    }
}

/// The static obstacles' world boxes in an [`AabbTree`], built once and
/// shared by every query.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EnvironmentHierarchy {
    names: Vec<String>,
    tree: AabbTree,
}

impl EnvironmentHierarchy {
    /// A hierarchy over named obstacle boxes (obstacle `i` is the `i`-th).
    #[must_use]
    pub fn new(obstacles: impl IntoIterator<Item = (String, Aabb)>) -> Self {
        let (names, boxes): (Vec<String>, Vec<Aabb>) = obstacles.into_iter().unzip();
        Self {
            names,
            tree: AabbTree::build(&boxes),
        }
    }

    /// Number of obstacles.
    #[must_use]
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether there is no obstacle.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The obstacles' names.
    #[must_use]
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The world box of obstacle `i`.
    #[must_use]
    pub fn obstacle_box(&self, i: usize) -> Option<&Aabb> {
        self.tree.item_box(i)
    }

    /// The tree.
    #[must_use]
    pub fn tree(&self) -> &AabbTree {
        &self.tree
    }
}

/// Counts of one query: pairs before and after culling.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BroadPhaseStats {
    /// Links with a box.
    pub links_with_geometry: usize,
    /// Link–link pairs that the rules allow (before box culling).
    pub link_pairs_considered: usize,
    /// Link–link pairs whose swept boxes overlap (the output).
    pub link_pairs_potential: usize,
    /// Link–obstacle pairs that the rules allow (before box culling).
    pub obstacle_pairs_considered: usize,
    /// Link–obstacle pairs whose boxes overlap (the output).
    pub obstacle_pairs_potential: usize,
}

/// The output of [`DynamicLinkHierarchy::potential_pairs`]: sorted pairs
/// and counts. Reuse one value across queries to avoid allocation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PotentialPairs {
    /// `(a, b)` with `a < b`, links whose swept boxes overlap, sorted.
    pub link_link: Vec<(usize, usize)>,
    /// `(link, obstacle)` whose boxes overlap, sorted.
    pub link_obstacle: Vec<(usize, usize)>,
    /// Counts before and after culling.
    pub stats: BroadPhaseStats,
}

/// The pair rules that depend on the tree alone: rigid groups and
/// adjacency (see the [module docs](self)).
///
/// A *rigid group* is a link with a movable joint (or a root) and every
/// link hanging from it through fixed joints only. Two links are
/// *adjacent* when one is the other's parent, or when the group of one
/// hangs from the group of the other by a single movable joint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkGroups {
    /// Per link, the first link of its group (its group's name).
    group: Vec<usize>,
    /// Per link, its parent.
    parent: Vec<Option<usize>>,
    /// Per link, the group its group hangs from (by a movable joint).
    parent_group: Vec<Option<usize>>,
}

impl LinkGroups {
    /// The groups of `tree`.
    #[must_use]
    pub fn new(tree: &KinematicTree) -> Self {
        let group = rigid_groups(tree);
        let links = tree.links();
        let parent: Vec<Option<usize>> = links.iter().map(|l| l.parent()).collect();
        let parent_group = group.iter().map(|&g| parent[g].map(|p| group[p])).collect();
        Self {
            group,
            parent,
            parent_group,
        }
    }

    /// Number of links.
    #[must_use]
    pub fn len(&self) -> usize {
        self.group.len()
    }

    /// Whether the tree has no link.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.group.is_empty()
    }

    /// The group of link `i`, named by its first link (the one with the
    /// movable joint, or the root); `None` out of range.
    #[must_use]
    pub fn group(&self, i: usize) -> Option<usize> {
        self.group.get(i).copied()
    }

    /// Whether links `a` and `b` are distinct and in one rigid group (they
    /// never move relative to each other). `false` out of range.
    #[must_use]
    pub fn rigidly_attached(&self, a: usize, b: usize) -> bool {
        a != b && matches!((self.group(a), self.group(b)), (Some(x), Some(y)) if x == y)
    }

    /// Whether links `a` and `b` are adjacent: parent and child, or in two
    /// groups of which one hangs from the other by one movable joint.
    /// `false` out of range.
    #[must_use]
    pub fn adjacent(&self, a: usize, b: usize) -> bool {
        let (Some(ga), Some(gb)) = (self.group(a), self.group(b)) else {
            return false;
        };
        self.parent[a] == Some(b)
            || self.parent[b] == Some(a)
            || (ga != gb && (self.parent_group[a] == Some(gb) || self.parent_group[b] == Some(ga)))
    }
}

/// The dynamic AABB hierarchy over a model's links (see the
/// [module docs](self)). Holds the per-link boxes in the link frames, the
/// pair rules and reusable buffers; one value per thread.
#[derive(Clone, Debug)]
pub struct DynamicLinkHierarchy {
    obbs: Vec<Option<LinkObb>>,
    groups: LinkGroups,
    names: Vec<String>,
    disabled: DisabledPairs,
    options: DynamicHierarchyOptions,
    enclosures: EnclosureWorkspace,
    boxes: Vec<Aabb>,
    /// Per link, its box on consecutive pieces of the last query's time:
    /// `pieces[piece_start[i]..piece_start[i + 1]]`.
    pieces: Vec<((f64, f64), Aabb)>,
    piece_start: Vec<usize>,
    /// Scratch of the enclosures' pieces.
    piece_scratch: Vec<((f64, f64), IntervalVec3)>,
    tree: AabbTree,
    ws: AabbTreeWorkspace,
}

/// For each link, the first link of the chain of fixed joints it hangs
/// from: links with the same value form one rigid body.
pub(crate) fn rigid_groups(tree: &KinematicTree) -> Vec<usize> {
    let mut group: Vec<usize> = Vec::with_capacity(tree.len());
    for (i, l) in tree.links().iter().enumerate() {
        // Tree order puts a parent before its children.
        let g = match (l.parent(), l.joint().kind) {
            (Some(p), JointType::Fixed) => group[p],
            _ => i,
        };
        group.push(g);
    }
    group
}

/// The box of an interval vector.
pub(crate) fn to_aabb(v: &IntervalVec3) -> Aabb {
    Aabb::new(v.lo(), v.hi())
}

impl DynamicLinkHierarchy {
    /// A hierarchy for `tree` with one optional box per link (`None`: a
    /// link without geometry, never in a pair).
    ///
    /// # Errors
    /// [`GeometryError::WrongLength`] unless `obbs` has one entry per link.
    pub fn new(
        tree: &KinematicTree,
        obbs: Vec<Option<LinkObb>>,
        options: DynamicHierarchyOptions,
    ) -> Result<Self, GeometryError> {
        if obbs.len() != tree.len() {
            return Err(GeometryError::WrongLength {
                what: "link boxes",
                expected: tree.len(),
                got: obbs.len(),
            });
        }
        Ok(Self {
            obbs,
            groups: LinkGroups::new(tree),
            names: tree.links().iter().map(|l| l.name().to_owned()).collect(),
            disabled: DisabledPairs::new(),
            options,
            enclosures: EnclosureWorkspace::with_links(tree.len()),
            boxes: Vec::with_capacity(tree.len()),
            pieces: Vec::new(),
            piece_start: Vec::with_capacity(tree.len() + 1),
            piece_scratch: Vec::new(),
            tree: AabbTree::new(),
            ws: AabbTreeWorkspace::new(),
        })
    }

    /// The hierarchy with these disabled pairs.
    #[must_use]
    pub fn with_disabled(mut self, disabled: DisabledPairs) -> Self {
        self.disabled = disabled;
        self
    }

    /// The disabled pairs.
    #[must_use]
    pub fn disabled(&self) -> &DisabledPairs {
        &self.disabled
    }

    /// The options.
    #[must_use]
    pub const fn options(&self) -> &DynamicHierarchyOptions {
        &self.options
    }

    /// The rigid groups and adjacency of the tree.
    #[must_use]
    pub const fn groups(&self) -> &LinkGroups {
        &self.groups
    }

    /// Number of links.
    #[must_use]
    pub fn len(&self) -> usize {
        self.obbs.len()
    }

    /// Whether the model has no link.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.obbs.is_empty()
    }

    /// Whether the rules (not the boxes) allow testing links `a` and `b`.
    #[must_use]
    pub fn link_pair_allowed(&self, a: usize, b: usize) -> bool {
        let o = &self.options;
        a != b
            && a < self.len()
            && b < self.len()
            && o.self_collision
            && self.obbs[a].is_some()
            && self.obbs[b].is_some()
            && !(o.skip_adjacent && self.groups.adjacent(a, b))
            && !(o.skip_rigidly_attached && self.groups.rigidly_attached(a, b))
            && !self.disabled.links_disabled(a, b)
    }

    /// Whether the rules allow testing `link` against `obstacle`.
    #[must_use]
    pub fn obstacle_pair_allowed(&self, link: usize, obstacle: usize) -> bool {
        link < self.len()
            && self.obbs[link].is_some()
            && !self.disabled.link_obstacle_disabled(link, obstacle)
    }

    /// The swept boxes of the last query, one per link
    /// ([`Aabb::EMPTY`] for links without geometry).
    #[must_use]
    pub fn link_boxes(&self) -> &[Aabb] {
        &self.boxes
    }

    /// Link `link`'s swept box of the last query on consecutive pieces of
    /// its time interval, earliest first, each with its piece `(a, b)`:
    /// the pieces of [`EnclosureKind::Chords`] boxes, the whole interval
    /// otherwise ([`LinkEnclosures::obb_aabb_pieces`]); empty for a link
    /// without geometry or out of range. Their hull is the link's box of
    /// [`DynamicLinkHierarchy::link_boxes`]; the margin widens each.
    ///
    /// [`LinkEnclosures::obb_aabb_pieces`]: armature_kinematics::LinkEnclosures::obb_aabb_pieces
    #[must_use]
    pub fn link_box_pieces(&self, link: usize) -> &[((f64, f64), Aabb)] {
        match (self.piece_start.get(link), self.piece_start.get(link + 1)) {
            (Some(&a), Some(&b)) => &self.pieces[a..b],
            _ => &[],
        }
    }

    /// The potentially colliding pairs while `motion` runs over
    /// `[t0, t1] ⊆ [0, 1]`, against `environment` when given, written into
    /// `out` (cleared first).
    ///
    /// # Errors
    /// [`GeometryError::WrongLength`] when the motion is for another number
    /// of links; [`GeometryError::Kinematics`] for a bad time interval.
    pub fn potential_pairs(
        &mut self,
        motion: &InBetweenMotion,
        t0: f64,
        t1: f64,
        environment: Option<&EnvironmentHierarchy>,
        out: &mut PotentialPairs,
    ) -> Result<(), GeometryError> {
        if motion.local().len() != self.len() {
            return Err(GeometryError::WrongLength {
                what: "motion links",
                expected: self.len(),
                got: motion.local().len(),
            });
        }
        out.link_link.clear();
        out.link_obstacle.clear();
        out.stats = BroadPhaseStats::default();
        let encl = self
            .enclosures
            .in_between(motion, self.options.kind, t0, t1)
            .map_err(|source| GeometryError::Kinematics {
                context: format!("enclosing the link poses over [{t0}, {t1}]"),
                source,
            })?;
        self.boxes.clear();
        self.pieces.clear();
        self.piece_start.clear();
        let m = self.options.margin;
        let grow = |b: Aabb| {
            if m > 0.0 && m.is_finite() {
                b.inflated(m)
            } else {
                b
            }
        };
        for (i, obb) in self.obbs.iter().enumerate() {
            self.piece_start.push(self.pieces.len());
            let Some(obb) = obb else {
                self.boxes.push(Aabb::EMPTY);
                continue;
            };
            let context = |source| GeometryError::Kinematics {
                context: format!("link `{}`", self.names[i]),
                source,
            };
            encl.obb_aabb_pieces(i, obb, &mut self.piece_scratch)
                .map_err(context)?;
            let mut whole: Option<Aabb> = None;
            for &(ab, b) in &self.piece_scratch {
                let b = grow(to_aabb(&b));
                whole = Some(whole.map_or(b, |w| w.union(&b)));
                self.pieces.push((ab, b));
            }
            self.boxes.push(whole.unwrap_or(Aabb::EMPTY));
        }
        self.piece_start.push(self.pieces.len());
        self.tree.rebuild(&self.boxes);
        let n_geom = self.obbs.iter().filter(|o| o.is_some()).count();
        out.stats.links_with_geometry = n_geom;

        if self.options.self_collision {
            out.stats.link_pairs_considered = (0..self.len())
                .flat_map(|a| (a + 1..self.len()).map(move |b| (a, b)))
                .filter(|&(a, b)| self.link_pair_allowed(a, b))
                .count();
            let mut ws = core::mem::take(&mut self.ws);
            let mut found = core::mem::take(&mut out.link_link);
            self.tree.for_each_self_overlap(&mut ws, |a, b| {
                if self.link_pair_allowed(a, b) {
                    found.push((a, b));
                }
            });
            found.sort_unstable();
            out.link_link = found;
            self.ws = ws;
        }
        if let Some(env) = environment {
            out.stats.obstacle_pairs_considered = (0..self.len())
                .map(|l| {
                    (0..env.len())
                        .filter(|&o| self.obstacle_pair_allowed(l, o))
                        .count()
                })
                .sum();
            let mut ws = core::mem::take(&mut self.ws);
            let mut found = core::mem::take(&mut out.link_obstacle);
            self.tree.for_each_overlap(env.tree(), &mut ws, |l, o| {
                if self.obstacle_pair_allowed(l, o) {
                    found.push((l, o));
                }
            });
            found.sort_unstable();
            out.link_obstacle = found;
            self.ws = ws;
        }
        out.stats.link_pairs_potential = out.link_link.len();
        out.stats.obstacle_pairs_potential = out.link_obstacle.len();
        Ok(())
    }
}
