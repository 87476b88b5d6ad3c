//! Stage 2 of M1's pipeline in the facade: swept-volume culling with
//! CULLIDE ([`armature_gpu_cullide`]) between the dynamic link hierarchy
//! and the exact stage.
//!
//! Per query, the links of the link–obstacle pairs stage 1 left sweep
//! their capsules over the motion (tessellated, dilated by the radius,
//! the tessellation error and the clearance); CULLIDE then leaves the
//! potentially colliding swept volumes and obstacles, and a pair goes on to
//! the exact stage only when both of its members are left (the CPU
//! reference, exact per pair, keeps exactly the pairs whose members meet).
//! Pairs with a moving obstacle always go on (its triangles are placed at
//! one pose).
//!
//! The GPU computation runs on any wgpu adapter, including a software one.
//! One device and one upload of the obstacles serve every query on a scene
//! (and every thread of a batch, one at a time): they are kept with the
//! scene. Without an adapter, [`SweptVolumeCulling::Gpu`] falls back to
//! the exact CPU reference and says why in
//! [`Prepared::swept_volume_backend`](crate::Prepared::swept_volume_backend),
//! unless `ARMATURE_REQUIRE_GPU=1`, which makes it an error.

use std::sync::{Arc, Mutex, PoisonError};

use armature_bvh_geometry::body::Obstacle;
use armature_elementary_ccd::{ElementaryError, PairCulling};
use armature_gpu_cullide::gpu::{GpuCullide, gpu_required};
use armature_gpu_cullide::{
    CpuCullide, CullResult, CullideError, CullideOptions, Environment, Sweeper, SweptOptions,
    SweptVolume,
};
use armature_kinematics::InBetweenMotion;
use glam::DAffine3;

use crate::{Error, Scene};

/// Stage 2 of M1's pipeline: swept-volume culling (M1 §4.2). Only the
/// elementary exact stage uses it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum SweptVolumeCulling {
    /// No stage 2 (the default).
    #[default]
    Off,
    /// CULLIDE on a wgpu adapter (a software one included); the CPU
    /// reference when none opens (see the [module docs](self)).
    Gpu,
    /// The exact CPU reference (triangle distances through the obstacles'
    /// trees).
    Cpu,
}

/// The GPU devices of a scene, one per view resolution, shared by every
/// query and thread.
#[derive(Debug, Default)]
pub(crate) struct GpuCache {
    devices: Mutex<Vec<(u32, Arc<Mutex<GpuCullide>>)>>,
}

impl GpuCache {
    fn get(
        &self,
        obstacles: &[Obstacle],
        options: &CullideOptions,
    ) -> Result<Arc<Mutex<GpuCullide>>, CullideError> {
        let mut devices = self.devices.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, d)) = devices.iter().find(|(r, _)| *r == options.resolution) {
            return Ok(Arc::clone(d));
        }
        let environment = Environment::from_obstacles(obstacles)?;
        let d = Arc::new(Mutex::new(GpuCullide::new(&environment, options)?));
        devices.push((options.resolution, Arc::clone(&d)));
        Ok(d)
    }
}

enum Backend<'s> {
    Cpu(CpuCullide<'s>),
    Gpu(Arc<Mutex<GpuCullide>>),
}

/// Stage 2 prepared for one thread's queries on a scene.
pub(crate) struct Stage2<'s> {
    sweeper: Sweeper,
    backend: Backend<'s>,
    description: String,
    obstacles: &'s [Obstacle],
    swept: Vec<SweptVolume>,
    links: Vec<usize>,
    candidates: Vec<usize>,
    poses: Vec<DAffine3>,
    /// The pairs by swept-volume index, for the CPU reference.
    indexed: Vec<(usize, usize)>,
}

impl core::fmt::Debug for Stage2<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Stage2")
            .field("backend", &self.description)
            .finish_non_exhaustive()
    }
}

impl<'s> Stage2<'s> {
    /// Stage 2 on `scene` with `mode` (`None` for [`SweptVolumeCulling::Off`]).
    pub(crate) fn new(
        scene: &'s Scene,
        mode: SweptVolumeCulling,
        swept: &SweptOptions,
        cullide: &CullideOptions,
    ) -> Result<Option<Self>, Error> {
        let wrap = |e: CullideError| Error::from(ElementaryError::Culling(Box::new(e)));
        cullide.validate().map_err(wrap)?;
        let (backend, description) = match mode {
            SweptVolumeCulling::Off => return Ok(None),
            SweptVolumeCulling::Cpu => (
                Backend::Cpu(CpuCullide::new(scene.obstacles())),
                "CPU reference".to_owned(),
            ),
            SweptVolumeCulling::Gpu => match scene.gpu_cache().get(scene.obstacles(), cullide) {
                Ok(d) => {
                    let name = d
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .adapter_name()
                        .to_owned();
                    (Backend::Gpu(d), format!("GPU: {name}"))
                }
                Err(CullideError::NoAdapter(why)) if !gpu_required() => (
                    Backend::Cpu(CpuCullide::new(scene.obstacles())),
                    format!("CPU reference (no GPU adapter: {why})"),
                ),
                Err(e) => return Err(wrap(e)),
            },
        };
        Ok(Some(Self {
            sweeper: Sweeper::new(scene.body(), swept).map_err(wrap)?,
            backend,
            description,
            obstacles: scene.obstacles(),
            swept: Vec::new(),
            links: Vec::new(),
            candidates: Vec::new(),
            poses: Vec::new(),
            indexed: Vec::new(),
        }))
    }

    /// Which computation decides: `GPU: <adapter>` or the CPU reference
    /// (with the reason when the GPU was asked for).
    pub(crate) fn description(&self) -> &str {
        &self.description
    }

    /// Sweeps the links of `pairs` and decides: per pair on the CPU (the
    /// reference is exact per pair), per object on the GPU (a pair stays
    /// when both its members are left).
    fn run(
        &mut self,
        motion: &InBetweenMotion,
        pairs: &[(usize, usize)],
        clearance: f64,
        keep: &mut [bool],
    ) -> Result<(), CullideError> {
        self.links.clear();
        self.links.extend(pairs.iter().map(|p| p.0));
        self.links.sort_unstable();
        self.links.dedup();
        self.candidates.clear();
        self.candidates.extend(pairs.iter().map(|p| p.1));
        self.candidates.sort_unstable();
        self.candidates.dedup();
        self.swept.clear();
        for &l in &self.links {
            let s = self
                .sweeper
                .sweep(motion, l, [0.0, 1.0], clearance, &mut self.poses)?;
            self.swept.push(s);
        }
        let result: CullResult = match &mut self.backend {
            Backend::Cpu(c) => {
                self.indexed.clear();
                for &(link, obstacle) in pairs {
                    let i = self.links.binary_search(&link).unwrap_or(usize::MAX);
                    self.indexed.push((i, obstacle));
                }
                return c.cull_pairs(&self.swept, &self.indexed, keep);
            }
            Backend::Gpu(g) => g
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .cull(&self.swept, &self.candidates)?,
        };
        for (k, &(link, obstacle)) in keep.iter_mut().zip(pairs) {
            let l = self.links.binary_search(&link);
            let o = self.candidates.binary_search(&obstacle);
            *k = !self.obstacles[obstacle].is_static()
                || matches!((l, o), (Ok(l), Ok(o)) if result.swept[l] && result.environment[o]);
        }
        Ok(())
    }
}

impl PairCulling for Stage2<'_> {
    fn cull(
        &mut self,
        motion: &InBetweenMotion,
        pairs: &[(usize, usize)],
        clearance: f64,
        keep: &mut [bool],
    ) -> Result<(), ElementaryError> {
        self.run(motion, pairs, clearance, keep)
            .map_err(|e| ElementaryError::Culling(Box::new(e)))
    }
}
