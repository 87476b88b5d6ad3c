//! `cargo xtask gen-data --stats`: how dense the committed scenes are for
//! the benchmark.
//!
//! **What.** For each scene it loads the Puma (URDF and STL meshes, through
//! `armature-bvh-geometry`) and the scene's OBJ files from `data/`, and
//! draws benchmark queries as docs/architecture.md defines them: `q0` uniform
//! within the joint limits until collision-free (obstacles and
//! non-adjacent link pairs), `q1 = q0 + δq` with each `δq_k` uniform in
//! `[−θmax, θmax]`, clamped to the limits. The motion is linear in joint
//! space; it is sampled in steps of at most [`STEP_DEG`] per joint and each
//! sample is tested with the mesh–mesh `collide` query (OBB trees). It
//! reports the home pose's clearance, the free fraction of random `q0`, and
//! the colliding fraction per θmax in [`THETA_MAX_DEG`].
//!
//! **Not an oracle.** Discrete sampling can step over a graze: at 0.25°
//! per joint, a point 1.1 m from a joint axis (the arm's reach) moves about
//! 5 mm per moving joint per step, against pipes at least 4.8 cm across
//! and links at least 4 cm thick (the few thinner parts, grating bars and
//! hanger rods, come in rows or beside larger ones). The fractions are
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
use armature_bvh_geometry::io::{LoadOptions, load_obj};
use armature_bvh_geometry::query::{
    CollideMode, CollideWorkspace, DistanceWorkspace, MeshObject, collide, distance,
};
use armature_bvh_geometry::{Aabb, ArticulatedBody, Bvh, Obb, Rss, Tessellation, TriMesh};
use armature_kinematics::{KinematicTree, UrdfOptions};
use glam::DAffine3;

use super::rng::SplitMix64;
use super::{SCENES, scene};

/// The θmax values reported, in degrees.
pub(crate) const THETA_MAX_DEG: [f64; 5] = [1.0, 5.0, 15.0, 30.0, 60.0];

/// Largest joint-space step between samples of a motion, in degrees.
pub(crate) const STEP_DEG: f64 = 0.25;

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

/// The robot's links and a scene's obstacles, ready for queries.
pub(crate) struct Checker {
    tree: KinematicTree,
    /// `(link index, shape)` for every link with geometry.
    links: Vec<(usize, Shape)>,
    /// Non-adjacent pairs, as indices into `links`.
    self_pairs: Vec<(usize, usize)>,
    obstacles: Vec<Shape>,
    limits: Vec<(f64, f64)>,
}

/// Scratch of one worker thread.
pub(crate) struct Scratch {
    poses: Vec<DAffine3>,
    collide: CollideWorkspace,
}

impl Checker {
    /// Loads the Puma and the obstacles `files` (relative to `root`).
    ///
    /// # Errors
    /// Loading errors, naming the file.
    pub(crate) fn load(root: &std::path::Path, files: &[(String, String)]) -> Result<Self> {
        let urdf = root.join("data/robots/puma560/puma560.urdf");
        let body = ArticulatedBody::from_urdf_file(
            &urdf,
            &UrdfOptions::default(),
            &Tessellation::default(),
        )
        .with_context(|| format!("cannot load `{}`", urdf.display()))?;
        let tree = body.tree().clone();
        let mut links = Vec::new();
        for (i, g) in body.links().iter().enumerate() {
            if let Some(g) = g {
                let aabb = Aabb::from_points(g.mesh.vertices())?;
                links.push((
                    i,
                    Shape {
                        name: tree.links()[i].name().to_owned(),
                        mesh: Arc::clone(&g.mesh),
                        obb: Arc::clone(&g.obb_tree),
                        rss: Arc::clone(&g.rss_tree),
                        aabb,
                    },
                ));
            }
        }
        let mut self_pairs = Vec::new();
        for a in 0..links.len() {
            for b in a + 1..links.len() {
                if !tree.are_adjacent(links[a].0, links[b].0) {
                    self_pairs.push((a, b));
                }
            }
        }
        let mut obstacles = Vec::new();
        for (name, file) in files {
            let path = root.join(file);
            let mesh = load_obj(&path, &LoadOptions::default())
                .with_context(|| format!("cannot load `{}`", path.display()))?;
            let obb = Arc::new(Bvh::<Obb>::new(&mesh)?);
            let rss = Arc::new(Bvh::<Rss>::new(&mesh)?);
            let aabb = Aabb::from_points(mesh.vertices())?;
            obstacles.push(Shape {
                name: name.clone(),
                mesh: Arc::new(mesh),
                obb,
                rss,
                aabb,
            });
        }
        let limits = tree
            .links()
            .iter()
            .filter(|l| l.joint().kind.is_movable())
            .map(|l| {
                l.joint()
                    .limits
                    .map(|lim| (lim.lower, lim.upper))
                    .context("a Puma joint without limits")
            })
            .collect::<Result<Vec<_>>>()?;
        if limits.len() != tree.nq() {
            bail!("expected one limited revolute joint per configuration value");
        }
        Ok(Self {
            tree,
            links,
            self_pairs,
            obstacles,
            limits,
        })
    }

    /// Fresh scratch for one thread.
    pub(crate) fn scratch(&self) -> Scratch {
        Scratch {
            poses: vec![DAffine3::IDENTITY; self.tree.len()],
            collide: CollideWorkspace::new(),
        }
    }

    /// Number of obstacle triangles.
    pub(crate) fn obstacle_triangles(&self) -> usize {
        self.obstacles.iter().map(|o| o.mesh.num_triangles()).sum()
    }

    /// Whether the robot at `q` touches an obstacle or itself
    /// (non-adjacent links).
    ///
    /// # Errors
    /// A configuration the tree rejects.
    pub(crate) fn collides(&self, q: &[f64], s: &mut Scratch) -> Result<bool> {
        self.tree.forward_kinematics(q, &mut s.poses)?;
        for (i, link) in &self.links {
            let pose = s.poses[*i];
            let world = link.aabb.transform(&pose);
            let a = MeshObject::new(&link.mesh, &link.obb, pose)?;
            for o in &self.obstacles {
                if !world.overlaps(&o.aabb) {
                    continue;
                }
                let b = MeshObject::new(&o.mesh, &o.obb, DAffine3::IDENTITY)?;
                if collide(&a, &b, CollideMode::First, &mut s.collide).colliding {
                    return Ok(true);
                }
            }
        }
        for &(a, b) in &self.self_pairs {
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

    /// The smallest distance from the robot at `q` to the obstacles and
    /// between non-adjacent links, each with the pair that realises it.
    ///
    /// # Errors
    /// A configuration the tree rejects.
    pub(crate) fn clearance(&self, q: &[f64]) -> Result<((f64, String), (f64, String))> {
        let poses = self.tree.poses(q)?;
        let mut ws = DistanceWorkspace::new();
        let mut env = (f64::INFINITY, String::new());
        for (i, link) in &self.links {
            let a = MeshObject::new(&link.mesh, &link.rss, poses[*i])?;
            for o in &self.obstacles {
                let b = MeshObject::new(&o.mesh, &o.rss, DAffine3::IDENTITY)?;
                let d = distance(&a, &b, &mut ws, None).distance;
                if d < env.0 {
                    env = (d, format!("{} – {}", link.name, o.name));
                }
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

    /// One benchmark query: the number of draws `q0` took and whether the
    /// motion to `q1` collides.
    ///
    /// # Errors
    /// When no free `q0` is found in [`MAX_DRAWS`] draws.
    pub(crate) fn query(
        &self,
        rng: &mut SplitMix64,
        theta_max: f64,
        s: &mut Scratch,
    ) -> Result<(usize, bool)> {
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
        let steps = (span / STEP_DEG.to_radians()).ceil().max(1.0) as usize;
        if self.collides(&q1, s)? {
            return Ok((draws, true));
        }
        let mut q = vec![0.0; q0.len()];
        for k in 1..steps {
            let t = k as f64 / steps as f64;
            for (j, v) in q.iter_mut().enumerate() {
                *v = q0[j] + t * (q1[j] - q0[j]);
            }
            if self.collides(&q, s)? {
                return Ok((draws, true));
            }
        }
        Ok((draws, false))
    }
}

/// A query's number with its draws of `q0` and whether it collides.
type Indexed = (usize, (usize, bool));

/// Runs `queries` queries at `theta_max` on every available core; returns
/// `(draws, colliding)` per query, in query order.
fn run_queries(
    checker: &Checker,
    seed: u64,
    stream: [u64; 2],
    queries: usize,
    theta_max: f64,
) -> Result<Vec<(usize, bool)>> {
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
    let mut results = vec![(0, false); queries];
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
        let files: Vec<(String, String)> = spec
            .entries()
            .into_iter()
            .map(|e| (e.name, format!("data/scenes/{}", e.mesh)))
            .collect();
        let checker = Checker::load(root, &files)?;
        let ((env, env_pair), (own, own_pair)) = checker.clearance(&[0.0; 6])?;
        writeln!(
            out,
            "scene {name}: {} obstacle files, {} triangles; {} queries per θmax, seed {}",
            files.len(),
            checker.obstacle_triangles(),
            options.queries,
            options.seed
        )?;
        writeln!(
            out,
            "  home pose q = 0: {env:.4} m to the obstacles ({env_pair}), {own:.4} m between non-adjacent links ({own_pair})"
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
            let hits = results.iter().filter(|r| r.1).count();
            draws += results.iter().map(|r| r.0).sum::<usize>();
            starts += results.len();
            eprintln!(
                "gen-data --stats: {name} θmax {theta}°: {hits} of {} collide ({:.1} s)",
                results.len(),
                t.elapsed().as_secs_f64()
            );
            rows.push((*theta, hits, results.len()));
        }
        writeln!(
            out,
            "  free fraction of random q0: {:.3} ({starts} free of {draws} drawn)",
            starts as f64 / draws as f64
        )?;
        writeln!(out, "  θmax  colliding")?;
        for (theta, hits, n) in rows {
            writeln!(
                out,
                "  {theta:>3}°  {:.3} ({hits} of {n})",
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
        let files: Vec<(String, String)> = scene(name)
            .unwrap()
            .entries()
            .into_iter()
            .map(|e| (e.name, format!("data/scenes/{}", e.mesh)))
            .collect();
        Checker::load(&repo_root(), &files).unwrap()
    }

    #[test]
    fn home_pose_is_free_with_margin_in_every_scene() {
        for name in SCENES {
            let c = checker(name);
            let ((env, env_pair), (own, own_pair)) = c.clearance(&[0.0; 6]).unwrap();
            assert!(env > 0.02, "{name}: {env} m ({env_pair})");
            assert!(own > 0.02, "{name}: {own} m ({own_pair})");
            assert!(!c.collides(&[0.0; 6], &mut c.scratch()).unwrap());
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
        assert!(first.iter().all(|(draws, _)| *draws >= 1));
    }
}
