//! [`KinematicTree`]: links, parents, joints and fixed origins; forward
//! kinematics and point Jacobians.

use crate::error::KinematicsError;
use crate::joint::{Joint, JointType, sinc};
use core::ops::Range;
use glam::{DAffine3, DMat3, DVec3};
use std::collections::HashMap;

/// One link as given to [`KinematicTree::new`].
#[derive(Clone, Debug, PartialEq)]
pub struct LinkSpec {
    /// Unique link name.
    pub name: String,
    /// Parent link name; `None` for a root (attached to the world frame).
    pub parent: Option<String>,
    /// The joint that moves this link relative to its parent.
    pub joint: Joint,
    /// Fixed transform from the parent frame to the joint frame. Its linear
    /// part must be a rotation to within `|mᵀm − I| ≤ 1e-9`; the tree
    /// stores the nearest rotation ([`Link::origin`]).
    pub origin: DAffine3,
}

impl LinkSpec {
    /// A link with a fixed joint and identity origin.
    #[must_use]
    pub fn new(name: impl Into<String>, parent: Option<&str>) -> Self {
        let name = name.into();
        Self {
            joint: Joint::fixed(name.clone()),
            name,
            parent: parent.map(str::to_owned),
            origin: DAffine3::IDENTITY,
        }
    }

    /// The link with this joint.
    #[must_use]
    pub fn with_joint(mut self, joint: Joint) -> Self {
        self.joint = joint;
        self
    }

    /// The link with this fixed origin.
    #[must_use]
    pub fn with_origin(mut self, origin: DAffine3) -> Self {
        self.origin = origin;
        self
    }
}

/// A link of a built tree.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    name: String,
    parent: Option<usize>,
    children: Vec<usize>,
    joint: Joint,
    origin: DAffine3,
    q_offset: usize,
    dof_offset: usize,
    depth: usize,
    root: usize,
}

impl Link {
    /// The link's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Index of the parent link, `None` for a root.
    #[must_use]
    pub const fn parent(&self) -> Option<usize> {
        self.parent
    }

    /// Indices of the child links.
    #[must_use]
    pub fn children(&self) -> &[usize] {
        &self.children
    }

    /// The joint moving this link.
    #[must_use]
    pub const fn joint(&self) -> &Joint {
        &self.joint
    }

    /// Fixed transform from the parent frame to the joint frame: the given
    /// origin with its linear part replaced by the nearest rotation (equal
    /// to it when it was a rotation to within a few ulps).
    #[must_use]
    pub const fn origin(&self) -> &DAffine3 {
        &self.origin
    }

    /// Number of joints between this link and its root (0 for a root).
    #[must_use]
    pub const fn depth(&self) -> usize {
        self.depth
    }

    /// Index of the root of this link's subtree (its robot).
    #[must_use]
    pub const fn root(&self) -> usize {
        self.root
    }
}

/// The joint transforms of the last configuration a
/// [`KinematicTree::forward_kinematics_cached`] call computed, reused by
/// the next call for the joints whose values are unchanged.
#[derive(Clone, Debug, Default)]
pub struct LocalTransforms {
    q: Vec<f64>,
    locals: Vec<DAffine3>,
}

impl LocalTransforms {
    /// Forgets every transform (the next call computes them all), as
    /// before passing the cache to another tree.
    pub fn clear(&mut self) {
        self.q.clear();
        self.locals.clear();
    }
}

/// A forest of links (several roots allowed, so several robots share one
/// tree), stored in *tree order*: the input order, with a link moved after
/// its parent where the input had it earlier. Configuration vectors hold the
/// joints' values in that order.
#[derive(Clone, Debug, PartialEq)]
pub struct KinematicTree {
    links: Vec<Link>,
    by_name: HashMap<String, usize>,
    nq: usize,
    dof: usize,
}

fn finite_vec(link: &str, field: &'static str, v: DVec3) -> Result<(), KinematicsError> {
    for c in v.to_array() {
        if !c.is_finite() {
            return Err(KinematicsError::NotFinite {
                link: link.to_owned(),
                field,
                value: c,
            });
        }
    }
    Ok(())
}

/// Validates and normalises a joint.
fn check_joint(link: &str, joint: &mut Joint) -> Result<(), KinematicsError> {
    let bad_axis = |a: DVec3| KinematicsError::BadAxis {
        link: link.to_owned(),
        x: a.x,
        y: a.y,
        z: a.z,
    };
    let unit = |a: DVec3| -> Result<DVec3, KinematicsError> {
        let n = a.length();
        if !a.is_finite() || n.is_nan() || n <= 1e-12 {
            return Err(bad_axis(a));
        }
        Ok(a / n)
    };
    match &mut joint.kind {
        JointType::Revolute { axis }
        | JointType::Continuous { axis }
        | JointType::Prismatic { axis } => {
            *axis = unit(*axis)?;
        }
        JointType::Planar { normal } => *normal = unit(*normal)?,
        JointType::OrientationUncertain { beta } => {
            if !beta.is_finite() {
                return Err(KinematicsError::NotFinite {
                    link: link.to_owned(),
                    field: "beta",
                    value: *beta,
                });
            }
            if !(0.0..=core::f64::consts::PI).contains(beta) {
                return Err(KinematicsError::OutOfRange {
                    link: link.to_owned(),
                    field: "beta",
                    value: *beta,
                    why: "0 ≤ β ≤ π",
                });
            }
        }
        JointType::LocationUncertain { delta } => {
            if !delta.is_finite() {
                return Err(KinematicsError::NotFinite {
                    link: link.to_owned(),
                    field: "delta",
                    value: *delta,
                });
            }
            if *delta < 0.0 {
                return Err(KinematicsError::OutOfRange {
                    link: link.to_owned(),
                    field: "delta",
                    value: *delta,
                    why: "Δ ≥ 0",
                });
            }
        }
        _ => {}
    }
    if let Some(l) = joint.limits {
        if joint.kind.nq() != 1 {
            return Err(KinematicsError::OutOfRange {
                link: link.to_owned(),
                field: "limits",
                value: l.lower,
                why: "limits apply to one-value joints only",
            });
        }
        if l.lower.is_nan() || l.upper.is_nan() || l.lower > l.upper {
            return Err(KinematicsError::InvalidLimits {
                link: link.to_owned(),
                lower: l.lower,
                upper: l.upper,
            });
        }
    }
    Ok(())
}

/// Largest entry of `|mᵀm − I|`: how far `m` is from a rotation.
fn orthonormality_error(m: &DMat3) -> f64 {
    (m.transpose() * *m - DMat3::IDENTITY)
        .to_cols_array()
        .iter()
        .fold(0.0, |e, v| e.max(v.abs()))
}

/// Origins within this many ulps of a rotation (`|mᵀm − I|`) are kept as
/// given: products of a few exact rotations (URDF rpy, quaternions) land
/// there.
const ROTATION_ULPS: f64 = 16.0 * f64::EPSILON;

/// Checks a fixed origin and returns it with its linear part made a
/// rotation to within [`ROTATION_ULPS`]: linear parts within `1e-9` of a
/// rotation (`|mᵀm − I| ≤ 1e-9`, `det > 0`) are replaced by their nearest
/// rotation, the orthogonal polar factor, by Newton's iteration
/// `R ← (R + R⁻ᵀ)/2` (quadratic: three steps take 1e-9 to rounding). Every
/// consumer of the tree (forward kinematics, motions, their enclosures,
/// motion bounds and swept volumes) then sees one and the same rigid
/// transform, where a stretch of 1e-9 would otherwise let, e.g., a sampled
/// motion that rotates about a mapped axis leave an enclosure that
/// normalises it.
fn check_origin(link: &str, o: &DAffine3) -> Result<DAffine3, KinematicsError> {
    finite_vec(link, "origin.translation", o.translation)?;
    for c in [o.matrix3.x_axis, o.matrix3.y_axis, o.matrix3.z_axis] {
        finite_vec(link, "origin.rotation", c)?;
    }
    let not_rotation = || KinematicsError::NotARotation {
        link: link.to_owned(),
    };
    let mut m = o.matrix3;
    if orthonormality_error(&m) > 1e-9 || m.determinant() <= 0.0 {
        return Err(not_rotation());
    }
    for _ in 0..4 {
        if orthonormality_error(&m) <= ROTATION_ULPS {
            break;
        }
        m = (m + m.inverse().transpose()) * 0.5;
    }
    if orthonormality_error(&m) > ROTATION_ULPS {
        return Err(not_rotation());
    }
    Ok(DAffine3 {
        matrix3: m,
        translation: o.translation,
    })
}

impl KinematicTree {
    /// Builds and validates a tree.
    ///
    /// # Errors
    /// [`KinematicsError::DuplicateLink`], [`KinematicsError::EmptyName`],
    /// [`KinematicsError::UnknownParent`], [`KinematicsError::Cycle`],
    /// [`KinematicsError::BadAxis`], [`KinematicsError::NotFinite`],
    /// [`KinematicsError::InvalidLimits`], [`KinematicsError::NotARotation`].
    pub fn new(specs: Vec<LinkSpec>) -> Result<Self, KinematicsError> {
        let mut index: HashMap<&str, usize> = HashMap::with_capacity(specs.len());
        for (i, s) in specs.iter().enumerate() {
            if s.name.is_empty() {
                return Err(KinematicsError::EmptyName { index: i });
            }
            if index.insert(s.name.as_str(), i).is_some() {
                return Err(KinematicsError::DuplicateLink {
                    name: s.name.clone(),
                });
            }
        }
        let mut parent_of = Vec::with_capacity(specs.len());
        for s in &specs {
            let p =
                match &s.parent {
                    None => None,
                    Some(p) => Some(*index.get(p.as_str()).ok_or_else(|| {
                        KinematicsError::UnknownParent {
                            link: s.name.clone(),
                            parent: p.clone(),
                        }
                    })?),
                };
            parent_of.push(p);
        }
        // Stable topological order: input order, each link after its parent.
        let n = specs.len();
        let mut order = Vec::with_capacity(n);
        let mut placed = vec![false; n];
        let mut visiting = vec![false; n];
        for start in 0..n {
            // Place the chain of unplaced ancestors first, root-most first.
            let mut chain = Vec::new();
            let mut cur = Some(start);
            while let Some(c) = cur {
                if placed[c] {
                    break;
                }
                if visiting[c] {
                    return Err(KinematicsError::Cycle {
                        link: specs[c].name.clone(),
                    });
                }
                visiting[c] = true;
                chain.push(c);
                cur = parent_of[c];
            }
            for &c in chain.iter().rev() {
                placed[c] = true;
                order.push(c);
            }
        }
        let mut new_index = vec![0; n];
        for (new, &old) in order.iter().enumerate() {
            new_index[old] = new;
        }
        let mut specs: Vec<Option<LinkSpec>> = specs.into_iter().map(Some).collect();
        let mut links: Vec<Link> = Vec::with_capacity(n);
        let (mut nq, mut dof) = (0, 0);
        for &old in &order {
            let Some(mut s) = specs[old].take() else {
                unreachable!("each link is placed once")
            };
            check_joint(&s.name, &mut s.joint)?;
            s.origin = check_origin(&s.name, &s.origin)?;
            let parent = parent_of[old].map(|p| new_index[p]);
            let (depth, root) = match parent {
                None => (0, links.len()),
                Some(p) => (links[p].depth + 1, links[p].root),
            };
            let me = links.len();
            if let Some(p) = parent {
                links[p].children.push(me);
            }
            let (jq, jd) = (s.joint.kind.nq(), s.joint.kind.dof());
            links.push(Link {
                name: s.name,
                parent,
                children: Vec::new(),
                joint: s.joint,
                origin: s.origin,
                q_offset: nq,
                dof_offset: dof,
                depth,
                root,
            });
            nq += jq;
            dof += jd;
        }
        let by_name = links
            .iter()
            .enumerate()
            .map(|(i, l)| (l.name.clone(), i))
            .collect();
        Ok(Self {
            links,
            by_name,
            nq,
            dof,
        })
    }

    /// The links in tree order.
    #[must_use]
    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// Number of links.
    #[must_use]
    pub fn len(&self) -> usize {
        self.links.len()
    }

    /// Whether the tree has no links.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }

    /// Link `i`.
    ///
    /// # Errors
    /// [`KinematicsError::LinkIndex`].
    pub fn link(&self, i: usize) -> Result<&Link, KinematicsError> {
        self.links.get(i).ok_or(KinematicsError::LinkIndex {
            index: i,
            len: self.links.len(),
        })
    }

    /// Index of the link named `name`.
    ///
    /// # Errors
    /// [`KinematicsError::UnknownLink`].
    pub fn link_index(&self, name: &str) -> Result<usize, KinematicsError> {
        self.by_name
            .get(name)
            .copied()
            .ok_or_else(|| KinematicsError::UnknownLink {
                name: name.to_owned(),
            })
    }

    /// Length of a configuration vector.
    #[must_use]
    pub const fn nq(&self) -> usize {
        self.nq
    }

    /// Dimension of the tangent space (velocity vectors, Jacobian columns).
    #[must_use]
    pub const fn dof(&self) -> usize {
        self.dof
    }

    /// The slice of the configuration vector owned by link `i`'s joint.
    ///
    /// # Panics
    /// If `i` is out of range (see [`KinematicTree::link`]).
    #[must_use]
    pub fn q_range(&self, i: usize) -> Range<usize> {
        let l = &self.links[i];
        l.q_offset..l.q_offset + l.joint.kind.nq()
    }

    /// The slice of the tangent vector owned by link `i`'s joint.
    ///
    /// # Panics
    /// If `i` is out of range.
    #[must_use]
    pub fn dof_range(&self, i: usize) -> Range<usize> {
        let l = &self.links[i];
        l.dof_offset..l.dof_offset + l.joint.kind.dof()
    }

    /// Whether links `a` and `b` are a parent and its child.
    #[must_use]
    pub fn are_adjacent(&self, a: usize, b: usize) -> bool {
        let p = |x: usize| self.links.get(x).and_then(|l| l.parent);
        p(a) == Some(b) || p(b) == Some(a)
    }

    /// Link `i` and its ancestors, from `i` up to its root.
    pub fn ancestors(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        core::iter::successors(self.links.get(i).map(|_| i), move |&c| self.links[c].parent)
    }

    /// The deepest link that is an ancestor of both (or one of them), `None`
    /// when they are in different robots.
    #[must_use]
    pub fn common_ancestor(&self, a: usize, b: usize) -> Option<usize> {
        let (mut a, mut b) = (a, b);
        let (la, lb) = (self.links.get(a)?, self.links.get(b)?);
        if la.root != lb.root {
            return None;
        }
        while self.links[a].depth > self.links[b].depth {
            a = self.links[a].parent?;
        }
        while self.links[b].depth > self.links[a].depth {
            b = self.links[b].parent?;
        }
        while a != b {
            a = self.links[a].parent?;
            b = self.links[b].parent?;
        }
        Some(a)
    }

    /// The neutral configuration (zeros and identity quaternions; values
    /// clamped into the limits).
    #[must_use]
    pub fn neutral_configuration(&self) -> Vec<f64> {
        let mut q = vec![0.0; self.nq];
        for (i, l) in self.links.iter().enumerate() {
            let r = self.q_range(i);
            l.joint.kind.neutral(&mut q[r.clone()]);
            if let Some(lim) = l.joint.limits {
                q[r.start] = lim.clamp(q[r.start]);
            }
        }
        q
    }

    /// Checks a configuration vector: length, finite values, quaternions of
    /// non-negligible norm. Limits are not enforced (see
    /// [`KinematicTree::within_limits`]).
    ///
    /// # Errors
    /// [`KinematicsError::ConfigLength`], [`KinematicsError::ConfigNotFinite`],
    /// [`KinematicsError::BadQuaternion`].
    pub fn validate_config(&self, q: &[f64]) -> Result<(), KinematicsError> {
        if q.len() != self.nq {
            return Err(KinematicsError::ConfigLength {
                expected: self.nq,
                got: q.len(),
            });
        }
        for (i, l) in self.links.iter().enumerate() {
            let r = self.q_range(i);
            for k in r.clone() {
                if !q[k].is_finite() {
                    return Err(KinematicsError::ConfigNotFinite {
                        index: k,
                        link: l.name.clone(),
                        value: q[k],
                    });
                }
            }
            let quat_at = match l.joint.kind {
                JointType::Spherical | JointType::OrientationUncertain { .. } => Some(r.start),
                JointType::Floating => Some(r.start + 3),
                _ => None,
            };
            if let Some(s) = quat_at {
                let norm = q[s..s + 4].iter().map(|v| v * v).sum::<f64>().sqrt();
                if norm.is_nan() || norm <= 1e-6 {
                    return Err(KinematicsError::BadQuaternion {
                        index: s,
                        link: l.name.clone(),
                        norm,
                    });
                }
            }
        }
        Ok(())
    }

    /// Whether every limited joint value lies within its limits.
    #[must_use]
    pub fn within_limits(&self, q: &[f64]) -> bool {
        q.len() == self.nq
            && self
                .links
                .iter()
                .enumerate()
                .all(|(i, l)| match l.joint.limits {
                    Some(lim) => lim.contains(q[self.q_range(i).start]),
                    None => true,
                })
    }

    /// `q` with every limited joint value clamped into its limits.
    ///
    /// # Errors
    /// [`KinematicsError::ConfigLength`].
    pub fn clamp_to_limits(&self, q: &[f64]) -> Result<Vec<f64>, KinematicsError> {
        if q.len() != self.nq {
            return Err(KinematicsError::ConfigLength {
                expected: self.nq,
                got: q.len(),
            });
        }
        let mut out = q.to_vec();
        for (i, l) in self.links.iter().enumerate() {
            if let Some(lim) = l.joint.limits {
                let k = self.q_range(i).start;
                out[k] = lim.clamp(out[k]);
            }
        }
        Ok(out)
    }

    /// The transform from link `i`'s parent frame to its own frame at
    /// configuration `q` (origin, then joint). `q` must be valid.
    ///
    /// # Panics
    /// If `i` is out of range or `q` is shorter than [`KinematicTree::nq`].
    #[must_use]
    pub fn local_transform(&self, i: usize, q: &[f64]) -> DAffine3 {
        let l = &self.links[i];
        l.origin * l.joint.kind.transform(&q[self.q_range(i)])
    }

    /// World poses of all links at `q`, written into `out` (no allocation).
    ///
    /// # Errors
    /// As [`KinematicTree::validate_config`], and
    /// [`KinematicsError::BufferLength`] when `out.len() != self.len()`.
    pub fn forward_kinematics(
        &self,
        q: &[f64],
        out: &mut [DAffine3],
    ) -> Result<(), KinematicsError> {
        self.validate_poses_call(q, out)?;
        self.forward_kinematics_unchecked(q, out);
        Ok(())
    }

    /// The checks of [`KinematicTree::forward_kinematics`]: a valid `q`
    /// and one pose per link in `out`.
    fn validate_poses_call(&self, q: &[f64], out: &[DAffine3]) -> Result<(), KinematicsError> {
        self.validate_config(q)?;
        if out.len() != self.links.len() {
            return Err(KinematicsError::BufferLength {
                what: "poses",
                expected: self.links.len(),
                got: out.len(),
            });
        }
        Ok(())
    }

    /// [`KinematicTree::forward_kinematics`] reusing the local transforms
    /// of the joints whose values did not change since the last call with
    /// the same `cache`: a query sequence that moves a few joints (a model
    /// translated by its root, one joint perturbed) computes the others'
    /// joint transforms once. The poses are those
    /// [`KinematicTree::forward_kinematics`] writes, bit for bit (a joint's
    /// transform is reused only where its values are the same bits, and the
    /// products are made in the same order).
    ///
    /// A cache belongs to one tree: before passing it to another, call
    /// [`LocalTransforms::clear`] (a cache of a different number of links
    /// or values is reset here, but one of another tree of the same sizes
    /// would give that tree's transforms).
    ///
    /// # Errors
    /// As [`KinematicTree::forward_kinematics`].
    pub fn forward_kinematics_cached(
        &self,
        q: &[f64],
        cache: &mut LocalTransforms,
        out: &mut [DAffine3],
    ) -> Result<(), KinematicsError> {
        self.validate_poses_call(q, out)?;
        let fresh = cache.q.len() != q.len() || cache.locals.len() != self.links.len();
        if fresh {
            cache.q.clear();
            cache.q.extend_from_slice(q);
            cache.locals.clear();
            cache.locals.resize(self.links.len(), DAffine3::IDENTITY);
        }
        for i in 0..self.links.len() {
            let r = self.q_range(i);
            let same = !fresh
                && cache.q[r.clone()]
                    .iter()
                    .zip(&q[r.clone()])
                    .all(|(a, b)| a.to_bits() == b.to_bits());
            if !same {
                cache.locals[i] = self.local_transform(i, q);
                cache.q[r.clone()].copy_from_slice(&q[r]);
            }
            let local = cache.locals[i];
            out[i] = match self.links[i].parent {
                Some(p) => out[p] * local,
                None => local,
            };
        }
        Ok(())
    }

    /// Forward kinematics for a configuration already validated.
    pub(crate) fn forward_kinematics_unchecked(&self, q: &[f64], out: &mut [DAffine3]) {
        for i in 0..self.links.len() {
            let local = self.local_transform(i, q);
            out[i] = match self.links[i].parent {
                Some(p) => out[p] * local,
                None => local,
            };
        }
    }

    /// The world poses of `link` and its ancestors at `q`, written into
    /// `out` for the links whose `known` flag is unset (which it then
    /// sets); the other entries are left as they are. The poses are those
    /// [`KinematicTree::forward_kinematics`] writes, bit for bit, provided
    /// the known entries came from the same `q`: a query about a few links
    /// of a model with many (several robots, long chains) computes their
    /// chains only. `q`'s values are not validated (non-finite values give
    /// non-finite poses).
    ///
    /// # Errors
    /// [`KinematicsError::LinkIndex`] for a link beyond the tree;
    /// [`KinematicsError::ConfigLength`] for `q` of the wrong length;
    /// [`KinematicsError::BufferLength`] unless `out` and `known` hold one
    /// entry per link.
    pub fn chain_forward_kinematics(
        &self,
        link: usize,
        q: &[f64],
        out: &mut [DAffine3],
        known: &mut [bool],
    ) -> Result<(), KinematicsError> {
        let len = self.links.len();
        if link >= len {
            return Err(KinematicsError::LinkIndex { index: link, len });
        }
        if q.len() != self.nq() {
            return Err(KinematicsError::ConfigLength {
                expected: self.nq(),
                got: q.len(),
            });
        }
        for (what, got) in [("poses", out.len()), ("known poses", known.len())] {
            if got != len {
                return Err(KinematicsError::BufferLength {
                    what,
                    expected: len,
                    got,
                });
            }
        }
        // The highest unknown link of the chain, until none is left (chains
        // are short: a few steps each).
        loop {
            let mut top = None;
            for a in self.ancestors(link) {
                if known[a] {
                    break;
                }
                top = Some(a);
            }
            let Some(i) = top else {
                return Ok(());
            };
            let local = self.local_transform(i, q);
            out[i] = match self.links[i].parent {
                Some(p) => out[p] * local,
                None => local,
            };
            known[i] = true;
        }
    }

    /// World poses of all links at `q`, in a new vector.
    ///
    /// # Errors
    /// As [`KinematicTree::validate_config`].
    pub fn poses(&self, q: &[f64]) -> Result<Vec<DAffine3>, KinematicsError> {
        let mut out = vec![DAffine3::IDENTITY; self.links.len()];
        self.forward_kinematics(q, &mut out)?;
        Ok(out)
    }

    /// The world Jacobian of a point fixed on link `link` (coordinates
    /// `p_local` in the link frame) at `q`: column `k` is the world velocity
    /// of the point per unit of tangent coordinate `k`, written into `out`
    /// (`out.len() == self.dof()`; columns of joints not on the link's chain
    /// are zero). `poses` are the world poses at `q` (from
    /// [`KinematicTree::forward_kinematics`]).
    ///
    /// Tangent coordinates: one per revolute/prismatic joint; for rotations
    /// given by quaternions (spherical, floating, orientation) the rotation
    /// vector `ω` of a perturbation applied after the joint rotation,
    /// expressed in the joint frame (`R ← exp(ω̂) R`, i.e. the quaternion
    /// `q ← exp(ω/2) ⊗ q`), so the world angular velocity is the joint
    /// frame's rotation times `ω`; for floating and location joints the
    /// translation in the joint frame (floating: translation columns first,
    /// then rotation); planar (u, v, θ); vehicles the derivatives with
    /// respect to their values (s, α and φ, s, α).
    ///
    /// # Errors
    /// [`KinematicsError::LinkIndex`], configuration errors, and
    /// [`KinematicsError::BufferLength`] for `poses` or `out`.
    pub fn point_jacobian(
        &self,
        q: &[f64],
        poses: &[DAffine3],
        link: usize,
        p_local: DVec3,
        out: &mut [DVec3],
    ) -> Result<(), KinematicsError> {
        self.link(link)?;
        self.validate_config(q)?;
        for (what, len, want) in [
            ("poses", poses.len(), self.len()),
            ("jacobian", out.len(), self.dof),
        ] {
            if len != want {
                return Err(KinematicsError::BufferLength {
                    what,
                    expected: want,
                    got: len,
                });
            }
        }
        out.fill(DVec3::ZERO);
        let p = poses[link].transform_point3(p_local);
        for k in self.ancestors(link) {
            let l = &self.links[k];
            let frame = match l.parent {
                Some(par) => poses[par] * l.origin,
                None => l.origin,
            };
            let child = poses[k].translation;
            let r = frame.matrix3;
            let cols = &mut out[self.dof_range(k)];
            let qk = &q[self.q_range(k)];
            match l.joint.kind {
                JointType::Fixed => {}
                JointType::Revolute { axis } | JointType::Continuous { axis } => {
                    cols[0] = (r * axis).cross(p - frame.translation);
                }
                JointType::Prismatic { axis } => cols[0] = r * axis,
                JointType::Spherical | JointType::OrientationUncertain { .. } => {
                    for (i, e) in [DVec3::X, DVec3::Y, DVec3::Z].into_iter().enumerate() {
                        cols[i] = (r * e).cross(p - child);
                    }
                }
                JointType::Floating => {
                    // Like the spherical joint: the rotation perturbation
                    // is expressed in the joint frame (`r`), not in the
                    // rotated child frame.
                    for (i, e) in [DVec3::X, DVec3::Y, DVec3::Z].into_iter().enumerate() {
                        cols[i] = r * e;
                        cols[3 + i] = (r * e).cross(p - child);
                    }
                }
                JointType::LocationUncertain { .. } => {
                    for (i, e) in [DVec3::X, DVec3::Y, DVec3::Z].into_iter().enumerate() {
                        cols[i] = r * e;
                    }
                }
                JointType::Planar { normal } => {
                    let (u, v) = JointType::plane_axes(normal);
                    cols[0] = r * u;
                    cols[1] = r * v;
                    cols[2] = (r * normal).cross(p - child);
                }
                JointType::Vehicle => {
                    let (ds, da) = vehicle_partials(0.0, qk[0], qk[1]);
                    cols[0] = r * ds;
                    cols[1] = r * da + (r * DVec3::Z).cross(p - child);
                }
                JointType::OmniVehicle => {
                    let (ds, da) = vehicle_partials(qk[0], qk[1], qk[2]);
                    let t = r * (DVec3::Z.cross(ds * qk[1]));
                    cols[0] = t;
                    cols[1] = r * ds;
                    cols[2] = r * da + (r * DVec3::Z).cross(p - child);
                }
            }
        }
        Ok(())
    }
}

/// Partial derivatives of the braking-arc translation
/// `s · sinc(α/2) · (cos(φ + α/2), sin(φ + α/2), 0)` with respect to `s`
/// and `α`.
fn vehicle_partials(phi: f64, s: f64, alpha: f64) -> (DVec3, DVec3) {
    let h = 0.5 * alpha;
    let g = sinc(h);
    // d/dx sinc(x) = (x cos x − sin x) / x², ≈ −x/3 near 0.
    let dg = if h.abs() < 1e-4 {
        -h / 3.0
    } else {
        (h * h.cos() - h.sin()) / (h * h)
    };
    let (sn, cs) = (phi + h).sin_cos();
    let dir = DVec3::new(cs, sn, 0.0);
    let perp = DVec3::new(-sn, cs, 0.0);
    let ds = dir * g;
    let da = (dir * (0.5 * dg) + perp * (0.5 * g)) * s;
    (ds, da)
}
