//! `cargo xtask gen-data --stats`: how dense the committed scenes are for
//! the benchmark.
//!
//! **What.** For each scene it loads the scene file from `data/` with the
//! library's loader (`armature::Scene::from_file`: the robots' URDF and STL
//! meshes, the OBJ obstacles, which pairs are tested), and draws benchmark
//! queries as docs/architecture.md defines them: `q0` uniform within the
//! joint limits until collision-free (obstacles and the link pairs the
//! scene tests), `q1 = q0 + δq` with each `δq_k` uniform in
//! `[−θmax, θmax]`, clamped to the limits. The motion is linear in joint
//! space; it is sampled in steps of at most [`STEP_DEG`] per joint and,
//! where the scene sets [`super::Scene::max_step`], also so that no point
//! of the robots moves more than that between samples (the bound sums each
//! joint's turn times the reach of the links below it). Each sample is
//! tested with the mesh–mesh `collide` query (OBB trees). It reports the
//! home pose's clearance, the free fraction of random `q0`, the colliding
//! fraction per θmax in [`THETA_MAX_DEG`], and how many of the colliding
//! motions samplings at the coarser joint steps of [`COARSE_STEPS_DEG`]
//! miss.
//!
//! **Not an oracle.** Discrete sampling can step over a graze: at 0.25°
//! per joint, a point 1.1 m from a joint axis (the Puma's reach) moves about
//! 5 mm per moving joint per step, against pipes at least 4.8 cm across
//! and links at least 4 cm thick (the few thinner parts, grating bars and
//! hanger rods, come in rows or beside larger ones); the thin-obstacle
//! scenes bound every point's step to 2 mm (5 mm around the car) against
//! parts 2 cm across and more. The fractions are
//! estimates, good to the
//! sampling noise of the query count, which is what tuning the layouts
//! needs; the benchmark's own oracle bounds the step by a
//! speed bound on every vertex instead, and refines around grazes.
//!
//! **Determinism.** Query `i` at θmax index `k` of scene `s` draws from its
//! own stream [`SplitMix64::derived`]`(seed, [s, k, i])`, so the numbers do
//! not depend on the thread count.

use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use armature_bvh_geometry::query::{
    CollideMode, CollideWorkspace, DistanceWorkspace, MeshObject, collide, distance,
};
use armature_bvh_geometry::{Aabb, Bvh, Obb, Rss, TriMesh};
use armature_kinematics::KinematicTree;
use glam::DAffine3;

use super::rng::SplitMix64;
use super::{SCENES, scene};

/// The θmax values reported, in degrees.
pub(crate) const THETA_MAX_DEG: [f64; 5] = [1.0, 5.0, 15.0, 30.0, 60.0];

/// Largest joint-space step between samples of a motion, in degrees.
pub(crate) const STEP_DEG: f64 = 0.25;

/// The joint-space steps of the coarse samplings that the colliding
/// motions are checked with again, in degrees: resolutions a discrete
/// checker might use. The thin-obstacle scenes are made so that they miss
/// some collisions.
pub(crate) const COARSE_STEPS_DEG: [f64; 3] = [1.0, 2.0, 5.0];

/// Most draws of `q0` per query before giving up.
const MAX_DRAWS: usize = 100_000;

/// Options of `--stats`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StatsOptions {
    /// Motions per θmax.
    pub(crate) queries: usize,
    /// Seed of the query streams.
    pub(crate) seed: u64,
    /// Only this scene (`None`: every scene).
    pub(crate) scene: Option<String>,
}

impl Default for StatsOptions {
    fn default() -> Self {
        Self {
            queries: 400,
            seed: 2024,
            scene: None,
        }
    }
}

/// A mesh with its hierarchies and a box in its own frame.
struct Shape {
    name: String,
    mesh: Arc<TriMesh>,
    obb: Arc<Bvh<Obb>>,
    rss: Arc<Bvh<Rss>>,
    aabb: Aabb,
}

/// The robots' links and a scene's obstacles, ready for queries.
pub(crate) struct Checker {
    tree: KinematicTree,
    /// `(link index, shape)` for every link with geometry.
    links: Vec<(usize, Shape)>,
    /// Pairs of links the scene tests, as indices into `links`.
    self_pairs: Vec<(usize, usize)>,
    /// Obstacles with their poses.
    obstacles: Vec<(Shape, DAffine3)>,
    /// Pairs of links and obstacles the scene tests (indices into `links`
    /// and `obstacles`).
    obstacle_pairs: Vec<(usize, usize)>,
    limits: Vec<(f64, f64)>,
    /// Per link of the tree: a bound on how far any point of the link and
    /// everything below it lies from the link's frame origin (where its
    /// joint turns).
    reach: Vec<f64>,
    /// See [`super::Scene::max_step`].
    max_step: Option<f64>,
}

/// Scratch of one worker thread.
pub(crate) struct Scratch {
    poses: Vec<DAffine3>,
    boxes: Vec<Aabb>,
    collide: CollideWorkspace,
}

/// One query's outcome.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Outcome {
    /// Draws of `q0` it took.
    pub(crate) draws: usize,
    /// Whether the motion collides (fine sampling).
    pub(crate) colliding: bool,
    /// Per step of [`COARSE_STEPS_DEG`]: whether sampling at that step
    /// finds the collision too (`false` for a free motion).
    pub(crate) coarse: [bool; 3],
}

fn shape(name: &str, g: &armature_bvh_geometry::LinkGeometry) -> Result<Shape> {
    Ok(Shape {
        name: name.to_owned(),
        mesh: Arc::clone(&g.mesh),
        obb: Arc::clone(&g.obb_tree),
        rss: Arc::clone(&g.rss_tree),
        aabb: Aabb::from_points(g.mesh.vertices())?,
    })
}

impl Checker {
    /// Loads the scene file `ron` (relative to `root`) with the library's
    /// loader; the scene decides which pairs are tested.
    ///
    /// # Errors
    /// Loading errors, naming the file.
    pub(crate) fn load(root: &std::path::Path, ron: &str, max_step: Option<f64>) -> Result<Self> {
        let path = root.join(ron);
        let scene = armature::Scene::from_file(&path)
            .with_context(|| format!("cannot load `{}`", path.display()))?;
        let body = scene.body();
        let tree = body.tree().clone();
        let mut links = Vec::new();
        for (i, g) in body.links().iter().enumerate() {
            if let Some(g) = g {
                links.push((i, shape(tree.links()[i].name(), g)?));
            }
        }
        let mut self_pairs = Vec::new();
        for a in 0..links.len() {
            for b in a + 1..links.len() {
                if scene.link_pair_allowed(links[a].0, links[b].0) {
                    self_pairs.push((a, b));
                }
            }
        }
        let mut obstacles = Vec::new();
        for o in scene.obstacles() {
            obstacles.push((shape(o.name(), o.geometry())?, o.pose_at(0.0)));
        }
        let mut obstacle_pairs = Vec::new();
        for (a, (i, _)) in links.iter().enumerate() {
            for b in 0..obstacles.len() {
                if scene.obstacle_pair_allowed(*i, b) {
                    obstacle_pairs.push((a, b));
                }
            }
        }
        let limits = tree
            .links()
            .iter()
            .filter(|l| l.joint().kind.is_movable())
            .map(|l| {
                l.joint()
                    .limits
                    .map(|lim| (lim.lower, lim.upper))
                    .with_context(|| format!("joint `{}` without limits", l.joint().name))
            })
            .collect::<Result<Vec<_>>>()?;
        if limits.len() != tree.nq() {
            bail!("expected one limited revolute joint per configuration value");
        }
        // Children come after their parents: sum the reach bottom-up.
        let mut reach = vec![0.0f64; tree.len()];
        for (i, shape) in &links {
            reach[*i] = shape
                .mesh
                .vertices()
                .iter()
                .fold(0.0f64, |m, v| m.max(v.length()));
        }
        for i in (0..tree.len()).rev() {
            if let Some(p) = tree.links()[i].parent() {
                let r = tree.links()[i].origin().translation.length() + reach[i];
                reach[p] = reach[p].max(r);
            }
        }
        Ok(Self {
            tree,
            links,
            self_pairs,
            obstacles,
            obstacle_pairs,
            limits,
            reach,
            max_step,
        })
    }

    /// Fresh scratch for one thread.
    pub(crate) fn scratch(&self) -> Scratch {
        Scratch {
            poses: vec![DAffine3::IDENTITY; self.tree.len()],
            boxes: vec![self.links[0].1.aabb; self.links.len()],
            collide: CollideWorkspace::new(),
        }
    }

    /// Number of configuration values.
    pub(crate) fn nq(&self) -> usize {
        self.tree.nq()
    }

    /// Number of obstacle triangles.
    pub(crate) fn obstacle_triangles(&self) -> usize {
        self.obstacles
            .iter()
            .map(|o| o.0.mesh.num_triangles())
            .sum()
    }

    /// Whether the robots at `q` touch an obstacle or each other (the
    /// pairs the scene tests).
    ///
    /// # Errors
    /// A configuration the tree rejects.
    pub(crate) fn collides(&self, q: &[f64], s: &mut Scratch) -> Result<bool> {
        self.tree.forward_kinematics(q, &mut s.poses)?;
        for (k, (i, link)) in self.links.iter().enumerate() {
            s.boxes[k] = link.aabb.transform(&s.poses[*i]);
        }
        for &(a, b) in &self.obstacle_pairs {
            let (ia, la) = &self.links[a];
            let (o, pose) = &self.obstacles[b];
            if !s.boxes[a].overlaps(&o.aabb.transform(pose)) {
                continue;
            }
            let oa = MeshObject::new(&la.mesh, &la.obb, s.poses[*ia])?;
            let ob = MeshObject::new(&o.mesh, &o.obb, *pose)?;
            if collide(&oa, &ob, CollideMode::First, &mut s.collide).colliding {
                return Ok(true);
            }
        }
        for &(a, b) in &self.self_pairs {
            if !s.boxes[a].overlaps(&s.boxes[b]) {
                continue;
            }
            let (ia, la) = &self.links[a];
            let (ib, lb) = &self.links[b];
            let oa = MeshObject::new(&la.mesh, &la.obb, s.poses[*ia])?;
            let ob = MeshObject::new(&lb.mesh, &lb.obb, s.poses[*ib])?;
            if collide(&oa, &ob, CollideMode::First, &mut s.collide).colliding {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The smallest distance from the robots at `q` to the obstacles and
    /// between the link pairs the scene tests, each with the pair that
    /// realises it.
    ///
    /// # Errors
    /// A configuration the tree rejects.
    pub(crate) fn clearance(&self, q: &[f64]) -> Result<((f64, String), (f64, String))> {
        let poses = self.tree.poses(q)?;
        let mut ws = DistanceWorkspace::new();
        let mut env = (f64::INFINITY, String::new());
        for &(a, b) in &self.obstacle_pairs {
            let (i, link) = &self.links[a];
            let (o, pose) = &self.obstacles[b];
            let oa = MeshObject::new(&link.mesh, &link.rss, poses[*i])?;
            let ob = MeshObject::new(&o.mesh, &o.rss, *pose)?;
            let d = distance(&oa, &ob, &mut ws, None).distance;
            if d < env.0 {
                env = (d, format!("{} – {}", link.name, o.name));
            }
        }
        let mut own = (f64::INFINITY, String::new());
        for &(a, b) in &self.self_pairs {
            let (ia, la) = &self.links[a];
            let (ib, lb) = &self.links[b];
            let oa = MeshObject::new(&la.mesh, &la.rss, poses[*ia])?;
            let ob = MeshObject::new(&lb.mesh, &lb.rss, poses[*ib])?;
            let d = distance(&oa, &ob, &mut ws, None).distance;
            if d < own.0 {
                own = (d, format!("{} – {}", la.name, lb.name));
            }
        }
        Ok((env, own))
    }

    /// A uniform configuration within the limits.
    fn random_q(&self, rng: &mut SplitMix64) -> Vec<f64> {
        self.limits
            .iter()
            .map(|&(lo, hi)| rng.range(lo, hi))
            .collect()
    }

    /// A bound on how far any point of the robots moves from `q0` to `q1`
    /// along the straight joint-space line: per link, its joint's turn
    /// times the link's reach, summed down every chain.
    fn sweep_bound(&self, q0: &[f64], q1: &[f64]) -> f64 {
        let mut moved = vec![0.0f64; self.tree.len()];
        let mut k = 0;
        for (i, link) in self.tree.links().iter().enumerate() {
            let own = if link.joint().kind.is_movable() {
                let d = (q1[k] - q0[k]).abs() * self.reach[i];
                k += 1;
                d
            } else {
                0.0
            };
            moved[i] = own + link.parent().map_or(0.0, |p| moved[p]);
        }
        moved.iter().fold(0.0f64, |m, &d| m.max(d))
    }

    /// Whether some of `steps` equal steps from `q0` to `q1` (ends
    /// excluded) collides.
    fn samples_collide(
        &self,
        q0: &[f64],
        q1: &[f64],
        steps: usize,
        s: &mut Scratch,
    ) -> Result<bool> {
        let mut q = vec![0.0; q0.len()];
        for k in 1..steps {
            let t = k as f64 / steps as f64;
            for (j, v) in q.iter_mut().enumerate() {
                *v = q0[j] + t * (q1[j] - q0[j]);
            }
            if self.collides(&q, s)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// One benchmark query.
    ///
    /// # Errors
    /// When no free `q0` is found in [`MAX_DRAWS`] draws.
    pub(crate) fn query(
        &self,
        rng: &mut SplitMix64,
        theta_max: f64,
        s: &mut Scratch,
    ) -> Result<Outcome> {
        let mut draws = 0;
        let q0 = loop {
            draws += 1;
            if draws > MAX_DRAWS {
                bail!("no collision-free start configuration in {MAX_DRAWS} draws");
            }
            let q = self.random_q(rng);
            if !self.collides(&q, s)? {
                break q;
            }
        };
        let q1: Vec<f64> = q0
            .iter()
            .zip(&self.limits)
            .map(|(&v, &(lo, hi))| (v + rng.range(-theta_max, theta_max)).clamp(lo, hi))
            .collect();
        let span = q0
            .iter()
            .zip(&q1)
            .fold(0.0f64, |m, (a, b)| m.max((b - a).abs()));
        let by_angle = |deg: f64| (span / deg.to_radians()).ceil().max(1.0) as usize;
        let mut steps = by_angle(STEP_DEG);
        if let Some(d) = self.max_step {
            steps = steps.max((self.sweep_bound(&q0, &q1) / d).ceil() as usize);
        }
        let at_end = self.collides(&q1, s)?;
        let colliding = at_end || self.samples_collide(&q0, &q1, steps, s)?;
        let mut coarse = [false; 3];
        if colliding {
            for (found, deg) in coarse.iter_mut().zip(COARSE_STEPS_DEG) {
                *found = at_end || self.samples_collide(&q0, &q1, by_angle(deg), s)?;
            }
        }
        Ok(Outcome {
            draws,
            colliding,
            coarse,
        })
    }
}

/// A query's number with its outcome.
type Indexed = (usize, Outcome);

/// Runs `queries` queries at `theta_max` on every available core; returns
/// the outcomes in query order.
fn run_queries(
    checker: &Checker,
    seed: u64,
    stream: [u64; 2],
    queries: usize,
    theta_max: f64,
) -> Result<Vec<Outcome>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(queries.max(1));
    let chunks: Vec<Result<Vec<Indexed>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    let mut s = checker.scratch();
                    let mut out = Vec::new();
                    for i in (t..queries).step_by(threads) {
                        let mut rng = SplitMix64::derived(seed, &[stream[0], stream[1], i as u64]);
                        out.push((i, checker.query(&mut rng, theta_max, &mut s)?));
                    }
                    Ok(out)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("a query thread panicked")))
            })
            .collect()
    });
    let mut results = vec![Outcome::default(); queries];
    for chunk in chunks {
        for (i, r) in chunk? {
            results[i] = r;
        }
    }
    Ok(results)
}

/// Prints the statistics of the scenes `options` selects.
///
/// # Errors
/// Loading errors and failed queries.
pub(crate) fn run(
    root: &std::path::Path,
    options: &StatsOptions,
    out: &mut impl std::io::Write,
) -> Result<()> {
    if cfg!(debug_assertions) {
        eprintln!(
            "gen-data --stats: a debug build is slow; prefer `cargo run --release -p xtask -- gen-data --stats`"
        );
    }
    for (s, name) in SCENES.iter().enumerate() {
        if options.scene.as_deref().is_some_and(|only| only != *name) {
            continue;
        }
        let start = Instant::now();
        let spec = scene(name)?;
        let checker = Checker::load(root, &spec.ron_path(), spec.max_step)?;
        let ((env, env_pair), (own, own_pair)) = checker.clearance(&vec![0.0; checker.nq()])?;
        writeln!(
            out,
            "scene {name}: {} obstacle files, {} triangles; {} queries per θmax, seed {}",
            checker.obstacles.len(),
            checker.obstacle_triangles(),
            options.queries,
            options.seed
        )?;
        writeln!(
            out,
            "  home pose q = 0: {env:.4} m to the obstacles ({env_pair}), {own:.4} m between tested link pairs ({own_pair})"
        )?;
        let (mut draws, mut starts) = (0usize, 0usize);
        let mut rows = Vec::new();
        for (k, theta) in THETA_MAX_DEG.iter().enumerate() {
            let t = Instant::now();
            let results = run_queries(
                &checker,
                options.seed,
                [s as u64, k as u64],
                options.queries,
                theta.to_radians(),
            )?;
            let hits = results.iter().filter(|r| r.colliding).count();
            let missed = [0, 1, 2].map(|c| {
                results
                    .iter()
                    .filter(|r| r.colliding && !r.coarse[c])
                    .count()
            });
            draws += results.iter().map(|r| r.draws).sum::<usize>();
            starts += results.len();
            eprintln!(
                "gen-data --stats: {name} θmax {theta}°: {hits} of {} collide ({:.1} s)",
                results.len(),
                t.elapsed().as_secs_f64()
            );
            rows.push((*theta, hits, missed, results.len()));
        }
        writeln!(
            out,
            "  free fraction of random q0: {:.3} ({starts} free of {draws} drawn)",
            starts as f64 / draws as f64
        )?;
        let [c0, c1, c2] = COARSE_STEPS_DEG;
        writeln!(
            out,
            "  θmax  colliding          missed by sampling at {c0}°, {c1}°, {c2}°"
        )?;
        for (theta, hits, [m0, m1, m2], n) in rows {
            writeln!(
                out,
                "  {theta:>3}°  {:.3} ({hits} of {n})  {m0}, {m1}, {m2}",
                hits as f64 / n as f64
            )?;
        }
        writeln!(out, "  ({:.1} s)", start.elapsed().as_secs_f64())?;
        out.flush()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{Checker, StatsOptions};
    use crate::gen_data::rng::SplitMix64;
    use crate::gen_data::{SCENES, repo_root, scene};

    fn checker(name: &str) -> Checker {
        let spec = scene(name).unwrap();
        Checker::load(&repo_root(), &spec.ron_path(), spec.max_step).unwrap()
    }

    #[test]
    fn home_pose_is_free_with_margin_in_every_scene() {
        for name in SCENES {
            let c = checker(name);
            let home = vec![0.0; c.nq()];
            let ((env, env_pair), (own, own_pair)) = c.clearance(&home).unwrap();
            assert!(env > 0.02, "{name}: {env} m ({env_pair})");
            assert!(own > 0.02, "{name}: {own} m ({own_pair})");
            assert!(!c.collides(&home, &mut c.scratch()).unwrap());
        }
    }

    #[test]
    fn queries_are_reproducible() {
        let c = checker("pipes");
        let mut s = c.scratch();
        let seed = StatsOptions::default().seed;
        let run = |s: &mut _| {
            (0..4)
                .map(|i| {
                    let mut rng = SplitMix64::derived(seed, &[0, 1, i]);
                    c.query(&mut rng, 5f64.to_radians(), s).unwrap()
                })
                .collect::<Vec<_>>()
        };
        let first = run(&mut s);
        assert_eq!(first, run(&mut s));
        assert!(
            first
                .iter()
                .all(|o| o.draws >= 1 && (o.colliding || o.coarse == [false; 3]))
        );
    }
}
