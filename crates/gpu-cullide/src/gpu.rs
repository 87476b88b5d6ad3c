//! CULLIDE on wgpu: orthographic views along X, Y and Z with occlusion
//! queries, between two groups (the links' swept volumes and the
//! environment), repeated while the potentially colliding set shrinks.
//!
//! # One round
//!
//! Let `S` and `E` be the alive swept volumes and environment objects. Any
//! point where the groups meet lies in `M`, the intersection of the union
//! of `S`'s bounds with the union of `E`'s (if it is empty, everything is
//! culled). Each object keeps only the triangles that may hold such a point
//! (see [Selection](#selection)); an object left with none is culled. `M`,
//! padded, is then mapped for each axis onto the `resolution ×
//! resolution` depth target (the two other coordinates) and onto the
//! depth range `[0, 1]` (the axis itself). Two passes follow:
//!
//! - *forward*: clear the depth to 1, draw every object of `E` writing a
//!   **lower** bound of its depth (compare `Less`), then for each object of
//!   `S` an occlusion query around a draw of an **upper** bound of its depth
//!   (compare `GreaterEqual`, no depth write);
//! - *reverse*: the same with the groups' roles swapped.
//!
//! An object whose query counted no sample in some view leaves its set.
//! Every draw is limited by a scissor rectangle to the pixels where the
//! other group may appear (the footprint of its own selected region
//! intersected with the union of the other group's); a queried object whose
//! rectangle is empty is culled without a draw. The passes of a round are
//! encoded in one command buffer and their queries read back once (a round
//! with more than 4096 queries spreads them over several query sets, the
//! passes beyond the first of a view loading the depth instead of
//! redrawing the writers).
//!
//! # Why it is conservative
//!
//! Every object stands for `⋃ T ⊕ B(R)` over its triangles `T` (dilation
//! `R`), plus, for a closed environment mesh, the solid it bounds. Each
//! triangle is drawn as a screen-aligned quad around its projection; the
//! fragment shader (`cullide.wgsl`) works at the pixel centre `c`:
//!
//! 1. If a point `X` of the solid projects into the pixel, some point `Y`
//!    of a triangle is within `R` of `X`, and `proj Y` is within
//!    `ρ' = R + δ` of `c` (`δ` the pixel's half-diagonal; projection is
//!    1-Lipschitz). The quad is the projection's bounding box grown by
//!    more than `ρ'`, so it covers `c`; the fragment is discarded only when
//!    `c` is farther than `ρ'` from the projected triangle (a 2D
//!    point–triangle distance that also handles zero-area triangles).
//! 2. `depth(Y)` lies between the corners' smallest and largest depth and,
//!    when the projected triangle is not edge-on, within `|∇| ρ'` of the
//!    triangle's depth plane evaluated at `c`; `depth(X)` is within `R` of
//!    `depth(Y)`. The writing draw emits the lower end of that interval
//!    (`max(zmin, plane − |∇| ρ') − R`), the query draw the upper end
//!    (`min(zmax, plane + |∇| ρ') + R`), through `frag_depth`.
//! 3. So if `X` lies in both solids, the writer leaves at `X`'s pixel a
//!    depth `≤ depth(X)` and the queried object has a fragment there with
//!    depth `≥ depth(X)`: `GreaterEqual` passes and the query counts. An
//!    object culled in some view therefore meets no alive object of the
//!    other group, and no overlapping pair is ever culled (by induction
//!    over the rounds).
//! 4. A closed environment mesh containing a swept point `X`: the ray
//!    through `X` along the view axis crosses the mesh in front of and
//!    behind `X`, so the same inequalities hold at `X`'s pixel with the
//!    front crossing (forward pass) or the back one (reverse pass). Both
//!    faces of every triangle are drawn (the quads are never culled).
//! 5. Clamping depths to `[0, 1]` is monotone, so the comparisons survive
//!    (`X` lies in `M`, strictly inside the view box); query depths are
//!    clamped below 1 but deeper than any point of `M`, so a pixel no
//!    writer touched never passes.
//!
//! # Selection
//!
//! `X` lies in `M` and within `R` of a triangle, so a triangle whose
//! bounds grown by `R` miss `M` cannot hold it and is not drawn. For a
//! closed mesh the crossings of item 4 may lie anywhere along the view
//! axis: its triangles are kept when their bounds meet `M` along two axes
//! (the screen axes of some view). The scissor rectangles follow from the
//! same boxes: `X`'s pixel lies in the footprint of both objects' selected
//! regions, which the rectangles hold with a pixel to spare.
//!
//! # Rounding
//!
//! Coordinates are handled in `f64` on the CPU. Each group is stored once
//! in `f32` relative to its own origin (the environment when the
//! [`GpuCullide`] is built, the swept volumes at each call); each view
//! passes the shift to its box centre and the scale in a uniform block.
//! The shaders work in view units (the view box spans `[-1, 1]` along its
//! longest side). The dilation is grown by a bound on the corners' error
//! (the stored rounding relative to the group's extent, the shift and the
//! scaling), and the reach, the distance test and the depth margins by a
//! tolerance of `1e-5` plus `4e-6` times the magnitude of the coordinates
//! involved, which dominates the shader's own rounding (`2^-24` per
//! operation; triangles reaching far outside the view have large
//! coordinates). Depth gradients are computed per triangle in `f64` from
//! the world coordinates and only used where they are well conditioned;
//! their evaluation carries a relative allowance as well.

mod adapter;
mod pack;

use std::sync::{Arc, Mutex};

use wgpu::util::DeviceExt;

use crate::objects::{Bounds, CullResult, CullideOptions, Environment, check_index};
use crate::{CullideError, SweptVolume};
use adapter::block_on;
use pack::{GpuTriangle, Rect, RoundFrame, StoredFrame, TRIANGLE_BYTES, VIEW_BYTES};

/// Queries per query set (wgpu's cap).
const QUERIES_PER_SET: usize = wgpu::QUERY_SET_MAX_QUERIES as usize;

/// Bytes of one resolved query.
const QUERY_BYTES: u64 = 8;

/// Most partner boxes a triangle is tested against (see [`select`]).
const MAX_PARTNER_BOXES: usize = 32;

/// Indices the round index buffer starts with (it grows as needed).
const INITIAL_INDICES: u64 = 1 << 16;

/// How many GPU devices this process has opened: every [`GpuCullide`]
/// shares the first one (drivers limit how many a process may open), so
/// this is 1 once one instance opened, however many were made.
#[must_use]
pub fn devices_opened() -> usize {
    adapter::devices_opened()
}

/// Whether `ARMATURE_REQUIRE_GPU=1` is set: tests then fail instead of
/// skipping when no adapter opens.
#[must_use]
pub fn gpu_required() -> bool {
    std::env::var("ARMATURE_REQUIRE_GPU").is_ok_and(|v| v.trim() == "1")
}

/// A range of packed triangles.
#[derive(Clone, Copy, Debug, Default)]
struct Span {
    first: u32,
    count: u32,
}

impl Span {
    fn triangles(self) -> std::ops::Range<u32> {
        self.first..self.first + self.count
    }
}

/// An object as one round draws it: its quads in the round's index buffer
/// and the box that holds every point of it that may meet the other
/// group.
#[derive(Clone, Copy, Debug)]
struct Selected {
    first_index: u32,
    index_count: u32,
    region: Bounds,
}

impl Selected {
    const NONE: Self = Self {
        first_index: 0,
        index_count: 0,
        region: Bounds::EMPTY,
    };

    fn indices(self) -> std::ops::Range<u32> {
        self.first_index..self.first_index + self.index_count
    }
}

/// One of the two groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Group {
    Environment,
    Swept,
}

impl Group {
    /// Slot of this group's uniform block for the view along `axis`.
    const fn slot(self, axis: usize) -> usize {
        2 * axis
            + match self {
                Self::Environment => 0,
                Self::Swept => 1,
            }
    }
}

/// An environment object as uploaded.
#[derive(Clone, Copy, Debug)]
struct EnvSlot {
    span: Span,
    bounds: Bounds,
    /// Static and with at least one triangle: drawn and culled.
    drawn: bool,
    is_static: bool,
    closed: bool,
}

/// CULLIDE on a wgpu device, over an environment uploaded once.
///
/// See the [module documentation](self) for the algorithm and why it never
/// culls an overlapping pair.
pub struct GpuCullide {
    options: CullideOptions,
    adapter_name: String,
    device: wgpu::Device,
    queue: wgpu::Queue,
    write_pipeline: wgpu::RenderPipeline,
    query_pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    depth: wgpu::TextureView,
    uniforms: wgpu::Buffer,
    uniform_stride: u64,
    env_frame: StoredFrame,
    env_slots: Vec<EnvSlot>,
    /// Per packed environment triangle, its bounds (dilation included).
    env_triangle_bounds: Vec<Bounds>,
    env_bind_group: wgpu::BindGroup,
    swept_buffer: wgpu::Buffer,
    swept_bind_group: wgpu::BindGroup,
    swept_scratch: Vec<GpuTriangle>,
    swept_triangle_bounds: Vec<Bounds>,
    /// The round's quad indices, both groups (each refers to its own
    /// group's triangles).
    index_scratch: Vec<u32>,
    indices: wgpu::Buffer,
    query_sets: Vec<wgpu::QuerySet>,
    resolve: Option<(wgpu::Buffer, wgpu::Buffer)>,
    uncaptured: Arc<Mutex<Option<String>>>,
}

impl std::fmt::Debug for GpuCullide {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuCullide")
            .field("adapter", &self.adapter_name)
            .field("options", &self.options)
            .field("environment_objects", &self.env_slots.len())
            .finish_non_exhaustive()
    }
}

/// Runs `work` inside validation and out-of-memory error scopes and turns
/// a captured error into [`CullideError::Gpu`].
fn scoped<T>(
    device: &wgpu::Device,
    work: impl FnOnce() -> Result<T, CullideError>,
) -> Result<T, CullideError> {
    let memory = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let out = work();
    let v = block_on(validation.pop());
    let m = block_on(memory.pop());
    match v.or(m) {
        Some(e) => Err(CullideError::Gpu(e.to_string())),
        None => out,
    }
}

impl GpuCullide {
    /// Opens an adapter and uploads the environment's triangles once.
    ///
    /// The adapter: `ARMATURE_GPU=off` disables the GPU; `WGPU_BACKEND`
    /// (for instance `vulkan` or `vulkan,gl`) picks the back ends, all
    /// native ones otherwise; `WGPU_ADAPTER_NAME` keeps adapters whose name
    /// contains it; `WGPU_POWER_PREF` (`low` or `high`) orders integrated
    /// and discrete GPUs. Software adapters are accepted, ranked last.
    /// The first instance of a process opens the device and every later
    /// one shares it (these variables are read then): drivers limit how
    /// many devices a process may open, the NVIDIA Vulkan driver to about
    /// 30 (see [`devices_opened`]).
    ///
    /// # Errors
    /// [`CullideError::InvalidOption`] for options out of range;
    /// [`CullideError::NonFinite`] naming the object for a non-finite or
    /// huge coordinate or a negative or non-finite dilation;
    /// [`CullideError::NoAdapter`] when no usable adapter opens;
    /// [`CullideError::Gpu`] when the device rejects a resource (an
    /// environment beyond its buffer limits, out of memory).
    pub fn new(environment: &Environment, options: &CullideOptions) -> Result<Self, CullideError> {
        options.validate()?;
        let mut env_slots = Vec::with_capacity(environment.len());
        let mut all = Bounds::EMPTY;
        for (k, o) in environment.objects().iter().enumerate() {
            let bounds = pack::checked_bounds(&o.triangles, o.dilation, || {
                format!("environment object {k} (`{}`)", o.name)
            })?;
            let drawn = o.is_static && !o.triangles.is_empty();
            if drawn {
                all = all.union(&bounds);
            }
            env_slots.push(EnvSlot {
                span: Span::default(),
                bounds,
                drawn,
                is_static: o.is_static,
                closed: o.closed,
            });
        }
        let mut env_frame = StoredFrame::centred(&all);
        let mut packed = Vec::with_capacity(environment.num_triangles());
        let mut env_triangle_bounds = Vec::with_capacity(environment.num_triangles());
        for (slot, o) in env_slots.iter_mut().zip(environment.objects()) {
            if !slot.drawn {
                continue;
            }
            let first = packed.len();
            pack::pack(
                &o.triangles,
                o.dilation,
                &mut env_frame,
                &mut packed,
                &mut env_triangle_bounds,
            );
            slot.span = span_of(first, packed.len())?;
        }

        let opened = adapter::open(options.resolution)?;
        let device = opened.device;
        // The shared device's error slot: an error left by another
        // instance is not this one's.
        let uncaptured = opened.uncaptured;
        if let Ok(mut slot) = uncaptured.lock() {
            slot.take();
        }
        let limits = device.limits();
        bytes_of_triangles(packed.len(), &limits, "environment")?;

        let built = scoped(&device, || {
            let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("cullide"),
                source: wgpu::ShaderSource::Wgsl(include_str!("cullide.wgsl").into()),
            });
            let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("cullide"),
                entries: &[
                    wgpu::BindGroupLayoutEntry {
                        binding: 0,
                        visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                        ty: wgpu::BindingType::Buffer {
                            ty: wgpu::BufferBindingType::Uniform,
                            has_dynamic_offset: true,
                            min_binding_size: wgpu::BufferSize::new(VIEW_BYTES),
                        },
                        count: None,
                    },
                    wgpu::BindGroupLayoutEntry {
                        binding: 1,
                        visibility: wgpu::ShaderStages::VERTEX,
                        ty: wgpu::BindingType::Buffer {
                            ty: wgpu::BufferBindingType::Storage { read_only: true },
                            has_dynamic_offset: false,
                            min_binding_size: wgpu::BufferSize::new(TRIANGLE_BYTES),
                        },
                        count: None,
                    },
                ],
            });
            let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("cullide"),
                bind_group_layouts: &[Some(&layout)],
                immediate_size: 0,
            });
            let pipeline = |write: bool| {
                device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                    label: Some(if write {
                        "cullide write"
                    } else {
                        "cullide query"
                    }),
                    layout: Some(&pipeline_layout),
                    vertex: wgpu::VertexState {
                        module: &shader,
                        entry_point: Some("vs_main"),
                        compilation_options: wgpu::PipelineCompilationOptions::default(),
                        buffers: &[],
                    },
                    primitive: wgpu::PrimitiveState {
                        topology: wgpu::PrimitiveTopology::TriangleList,
                        cull_mode: None,
                        ..wgpu::PrimitiveState::default()
                    },
                    depth_stencil: Some(wgpu::DepthStencilState {
                        format: wgpu::TextureFormat::Depth32Float,
                        depth_write_enabled: Some(write),
                        depth_compare: Some(if write {
                            wgpu::CompareFunction::Less
                        } else {
                            wgpu::CompareFunction::GreaterEqual
                        }),
                        stencil: wgpu::StencilState::default(),
                        bias: wgpu::DepthBiasState::default(),
                    }),
                    multisample: wgpu::MultisampleState::default(),
                    fragment: Some(wgpu::FragmentState {
                        module: &shader,
                        entry_point: Some(if write { "fs_min" } else { "fs_max" }),
                        compilation_options: wgpu::PipelineCompilationOptions::default(),
                        targets: &[],
                    }),
                    multiview_mask: None,
                    cache: None,
                })
            };
            let write_pipeline = pipeline(true);
            let query_pipeline = pipeline(false);
            let depth = device
                .create_texture(&wgpu::TextureDescriptor {
                    label: Some("cullide depth"),
                    size: wgpu::Extent3d {
                        width: options.resolution,
                        height: options.resolution,
                        depth_or_array_layers: 1,
                    },
                    mip_level_count: 1,
                    sample_count: 1,
                    dimension: wgpu::TextureDimension::D2,
                    format: wgpu::TextureFormat::Depth32Float,
                    usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                    view_formats: &[],
                })
                .create_view(&wgpu::TextureViewDescriptor::default());
            let alignment = u64::from(limits.min_uniform_buffer_offset_alignment).max(1);
            let uniform_stride = VIEW_BYTES.div_ceil(alignment) * alignment;
            let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("cullide views"),
                size: uniform_stride * 6,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let env_buffer = if packed.is_empty() {
                empty_storage(&device, "cullide environment")
            } else {
                device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("cullide environment"),
                    contents: bytemuck::cast_slice(&packed),
                    usage: wgpu::BufferUsages::STORAGE,
                })
            };
            let env_bind_group = bind_group(&device, &layout, &uniforms, &env_buffer);
            let indices = index_buffer(&device, INITIAL_INDICES);
            let swept_buffer = empty_storage(&device, "cullide swept volumes");
            let swept_bind_group = bind_group(&device, &layout, &uniforms, &swept_buffer);
            Ok(Self {
                options: *options,
                adapter_name: opened.name,
                device: device.clone(),
                queue: opened.queue,
                write_pipeline,
                query_pipeline,
                layout,
                depth,
                uniforms,
                uniform_stride,
                env_frame,
                env_slots,
                env_triangle_bounds,
                env_bind_group,
                swept_buffer,
                swept_bind_group,
                swept_scratch: Vec::new(),
                swept_triangle_bounds: Vec::new(),
                index_scratch: Vec::new(),
                indices,
                query_sets: Vec::new(),
                resolve: None,
                uncaptured: Arc::clone(&uncaptured),
            })
        })?;
        built.check_uncaptured()?;
        Ok(built)
    }

    /// The adapter's name and back end, e.g.
    /// `llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan)`.
    #[must_use]
    pub fn adapter_name(&self) -> &str {
        &self.adapter_name
    }

    /// The options this instance was built with.
    #[must_use]
    pub fn options(&self) -> &CullideOptions {
        &self.options
    }

    /// CULLIDE between `swept` and the environment objects whose indices
    /// are in `candidates`.
    ///
    /// In the answer, `swept[i]` tells whether swept volume `i` may still
    /// meet some static candidate, `environment[k]` whether `candidates[k]`
    /// may still meet some swept volume. A swept volume without triangles
    /// is culled; a moving candidate is never drawn and always kept (it
    /// keeps no swept volume either). Conservative: an overlapping pair is
    /// never culled (see the [module documentation](self)).
    ///
    /// # Errors
    /// [`CullideError::Index`] for a candidate out of range;
    /// [`CullideError::NonFinite`] for a non-finite or huge coordinate or a
    /// negative or non-finite dilation; [`CullideError::Gpu`] when the
    /// device fails or rejects the work.
    pub fn cull(
        &mut self,
        swept: &[SweptVolume],
        candidates: &[usize],
    ) -> Result<CullResult, CullideError> {
        for &k in candidates {
            check_index("environment object", k, self.env_slots.len())?;
        }
        let mut swept_bounds = Vec::with_capacity(swept.len());
        let mut all = Bounds::EMPTY;
        for (i, s) in swept.iter().enumerate() {
            let b = pack::checked_bounds(&s.triangles, s.dilation, || {
                format!("swept volume {i} (link {})", s.link)
            })?;
            if !s.triangles.is_empty() {
                all = all.union(&b);
            }
            swept_bounds.push(b);
        }

        let mut result = CullResult {
            swept: vec![false; swept.len()],
            environment: candidates
                .iter()
                .map(|&k| !self.env_slots[k].is_static)
                .collect(),
            ..CullResult::default()
        };
        let mut alive = Alive {
            swept: (0..swept.len())
                .filter(|&i| !swept[i].triangles.is_empty())
                .collect(),
            env: (0..candidates.len())
                .filter(|&c| self.env_slots[candidates[c]].drawn)
                .collect(),
        };
        if alive.swept.is_empty() || alive.env.is_empty() {
            return Ok(result);
        }

        // Upload the swept volumes in their own frame.
        let mut frame = StoredFrame::centred(&all);
        let mut spans = vec![Span::default(); swept.len()];
        let mut scratch = std::mem::take(&mut self.swept_scratch);
        let mut triangle_bounds = std::mem::take(&mut self.swept_triangle_bounds);
        scratch.clear();
        triangle_bounds.clear();
        let mut packed = Ok(());
        for &i in &alive.swept {
            let first = scratch.len();
            let s = &swept[i];
            pack::pack(
                &s.triangles,
                s.dilation,
                &mut frame,
                &mut scratch,
                &mut triangle_bounds,
            );
            match span_of(first, scratch.len()) {
                Ok(span) => spans[i] = span,
                Err(e) => {
                    packed = Err(e);
                    break;
                }
            }
        }
        let uploaded = packed.and_then(|()| self.upload_swept(&scratch));
        self.swept_scratch = scratch;
        self.swept_triangle_bounds = triangle_bounds;
        uploaded?;

        let call = SweptCall {
            frame,
            spans: &spans,
            bounds: &swept_bounds,
        };
        let mut indices = std::mem::take(&mut self.index_scratch);
        let device = self.device.clone();
        let run = scoped(&device, || {
            self.rounds(&call, candidates, &mut alive, &mut indices, &mut result)
        });
        self.index_scratch = indices;
        run?;
        self.check_uncaptured()?;
        for &i in &alive.swept {
            result.swept[i] = true;
        }
        for &c in &alive.env {
            result.environment[c] = true;
        }
        Ok(result)
    }

    /// The rounds of one call, until a round culls nothing, a group is
    /// empty, or the round limit.
    fn rounds(
        &mut self,
        call: &SweptCall<'_>,
        candidates: &[usize],
        alive: &mut Alive,
        indices: &mut Vec<u32>,
        result: &mut CullResult,
    ) -> Result<(), CullideError> {
        let mut swept_selected = vec![Selected::NONE; call.spans.len()];
        let mut env_selected = vec![Selected::NONE; candidates.len()];
        while result.rounds < self.options.max_rounds {
            let before = alive.len();
            // Where the groups may meet: in both unions of bounds.
            let swept_union = alive
                .swept
                .iter()
                .fold(Bounds::EMPTY, |b, &i| b.union(&call.bounds[i]));
            let env_union = alive.env.iter().fold(Bounds::EMPTY, |b, &c| {
                b.union(&self.env_slots[candidates[c]].bounds)
            });
            let meet = intersection(&swept_union, &env_union);
            if meet.is_empty() {
                alive.clear();
                break;
            }
            indices.clear();
            let slots = &self.env_slots;
            // Both selections test against the sets alive at the round's
            // start.
            let swept_boxes = partner_boxes(alive.swept.iter().map(|&i| call.bounds[i]), &meet);
            let env_boxes = partner_boxes(
                alive.env.iter().map(|&c| slots[candidates[c]].bounds),
                &meet,
            );
            let env_triangles = &self.env_triangle_bounds;
            alive.env.retain(|&c| {
                let slot = &slots[candidates[c]];
                let s = select(
                    env_triangles,
                    slot.span,
                    slot.closed,
                    &slot.bounds,
                    &meet,
                    &swept_boxes,
                    indices,
                );
                s.map(|s| env_selected[c] = s).is_some()
            });
            let swept_triangles = &self.swept_triangle_bounds;
            alive.swept.retain(|&i| {
                let s = select(
                    swept_triangles,
                    call.spans[i],
                    false,
                    &call.bounds[i],
                    &meet,
                    &env_boxes,
                    indices,
                );
                s.map(|s| swept_selected[i] = s).is_some()
            });
            if alive.swept.is_empty() || alive.env.is_empty() {
                alive.clear();
                break;
            }
            self.upload_indices(indices)?;
            let round = RoundFrame::new(&meet)?;
            let views = Views {
                round: &round,
                swept: &call.frame,
                swept_selected: &swept_selected,
                env_selected: &env_selected,
            };
            let (culled_swept, culled_env) = self.round(&views, alive, result)?;
            result.rounds += 1;
            alive.swept.retain(|&i| !culled_swept[i]);
            alive.env.retain(|&c| !culled_env[c]);
            if alive.swept.is_empty() || alive.env.is_empty() {
                // Nothing is left for the other group to meet.
                alive.clear();
                break;
            }
            if alive.len() == before {
                break;
            }
        }
        Ok(())
    }

    /// Writes the packed swept triangles, growing their buffer if needed.
    fn upload_swept(&mut self, packed: &[GpuTriangle]) -> Result<(), CullideError> {
        let limits = self.device.limits();
        let bytes = bytes_of_triangles(packed.len(), &limits, "swept volumes")?;
        let device = self.device.clone();
        scoped(&device, || {
            if bytes > self.swept_buffer.size() {
                let cap = bytes
                    .next_power_of_two()
                    .min(
                        limits
                            .max_storage_buffer_binding_size
                            .min(limits.max_buffer_size),
                    )
                    .max(bytes);
                self.swept_buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("cullide swept volumes"),
                    size: cap,
                    usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                self.swept_bind_group = bind_group(
                    &self.device,
                    &self.layout,
                    &self.uniforms,
                    &self.swept_buffer,
                );
            }
            self.queue
                .write_buffer(&self.swept_buffer, 0, bytemuck::cast_slice(packed));
            Ok(())
        })
    }

    /// Writes the round's quad indices, growing their buffer if needed.
    fn upload_indices(&mut self, indices: &[u32]) -> Result<(), CullideError> {
        let bytes = indices.len() as u64 * 4;
        let cap = self.device.limits().max_buffer_size;
        if bytes > cap {
            return Err(CullideError::Gpu(format!(
                "{} quad indices exceed the device's buffer size {cap}",
                indices.len()
            )));
        }
        if bytes > self.indices.size() {
            let count = (indices.len() as u64).next_power_of_two().min(cap / 4);
            self.indices = index_buffer(&self.device, count);
        }
        self.queue
            .write_buffer(&self.indices, 0, bytemuck::cast_slice(indices));
        Ok(())
    }

    /// Makes sure enough query sets and a resolve and read-back buffer for
    /// `queries` results exist.
    fn reserve_queries(&mut self, queries: usize) {
        let sets = queries.div_ceil(QUERIES_PER_SET);
        while self.query_sets.len() < sets {
            self.query_sets
                .push(self.device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("cullide occlusion"),
                    ty: wgpu::QueryType::Occlusion,
                    count: wgpu::QUERY_SET_MAX_QUERIES,
                }));
        }
        let bytes = (sets * QUERIES_PER_SET) as u64 * QUERY_BYTES;
        if self.resolve.as_ref().is_none_or(|(r, _)| r.size() < bytes) {
            let resolve = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("cullide resolve"),
                size: bytes,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            let readback = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("cullide read-back"),
                size: bytes,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            self.resolve = Some((resolve, readback));
        }
    }

    /// One round: three views, two passes each, one submission and one
    /// read-back. Returns which swept volumes and which candidates (by
    /// position) a view culled.
    fn round(
        &mut self,
        views: &Views<'_>,
        alive: &Alive,
        result: &mut CullResult,
    ) -> Result<(Vec<bool>, Vec<bool>), CullideError> {
        let total = 3 * alive.len();
        self.reserve_queries(total);
        let mut block = vec![0u8; (6 * self.uniform_stride) as usize];
        for axis in 0..3 {
            for (group, frame) in [
                (Group::Environment, &self.env_frame),
                (Group::Swept, views.swept),
            ] {
                let u = views.round.uniform(axis, frame, self.options.resolution);
                let at = group.slot(axis) * self.uniform_stride as usize;
                block[at..at + VIEW_BYTES as usize].copy_from_slice(bytemuck::bytes_of(&u));
            }
        }
        self.queue.write_buffer(&self.uniforms, 0, &block);

        let Some((resolve, readback)) = &self.resolve else {
            return Err(CullideError::Gpu("query buffers missing".to_owned()));
        };
        let res = self.options.resolution;
        let mut culled_swept = vec![false; views.swept_selected.len()];
        let mut culled_env = vec![false; views.env_selected.len()];
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("cullide round"),
            });
        // Which object each issued query belongs to.
        let mut issued: Vec<(Group, usize)> = Vec::with_capacity(total);
        for axis in 0..3 {
            let footprints = |list: &[usize], selected: &[Selected]| -> Vec<(usize, Rect)> {
                list.iter()
                    .map(|&o| (o, views.round.footprint(axis, &selected[o].region)))
                    .collect()
            };
            let env_rects = footprints(&alive.env, views.env_selected);
            let swept_rects = footprints(&alive.swept, views.swept_selected);
            for writers in [Group::Environment, Group::Swept] {
                let (queried, queried_rects, writer_rects) = match writers {
                    Group::Environment => (Group::Swept, &swept_rects, &env_rects),
                    Group::Swept => (Group::Environment, &env_rects, &swept_rects),
                };
                let selection = |g: Group, o: usize| match g {
                    Group::Environment => views.env_selected[o],
                    Group::Swept => views.swept_selected[o],
                };
                let union = |rects: &[(usize, Rect)]| {
                    rects.iter().fold(Rect::EMPTY, |acc, (_, r)| acc.union(*r))
                };
                let writer_union = union(writer_rects);
                let queried_union = union(queried_rects);
                // Only pixels seen by both groups matter: a writer draws
                // where some queried object may appear, a queried object
                // where some writer may have written. A queried object
                // whose footprint misses every writer's is culled here.
                let writer_draws: Vec<(Selected, [u32; 4])> = writer_rects
                    .iter()
                    .filter_map(|&(o, r)| {
                        r.intersection(queried_union)
                            .scissor(res)
                            .map(|rect| (selection(writers, o), rect))
                    })
                    .collect();
                let mut query_draws: Vec<(usize, Selected, [u32; 4])> = Vec::new();
                for &(o, r) in queried_rects {
                    match r.intersection(writer_union).scissor(res) {
                        Some(rect) => query_draws.push((o, selection(queried, o), rect)),
                        None => match queried {
                            Group::Environment => culled_env[o] = true,
                            Group::Swept => culled_swept[o] = true,
                        },
                    }
                }
                let offset = |g: Group| (g.slot(axis) as u64 * self.uniform_stride) as u32;
                let bind = |g: Group| match g {
                    Group::Environment => &self.env_bind_group,
                    Group::Swept => &self.swept_bind_group,
                };
                let mut pending = query_draws.as_slice();
                let mut first_chunk = true;
                while !pending.is_empty() {
                    let set = issued.len() / QUERIES_PER_SET;
                    let local = issued.len() % QUERIES_PER_SET;
                    let take = (QUERIES_PER_SET - local).min(pending.len());
                    let (chunk, rest) = pending.split_at(take);
                    let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                        label: Some("cullide view"),
                        color_attachments: &[],
                        depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                            view: &self.depth,
                            depth_ops: Some(wgpu::Operations {
                                load: if first_chunk {
                                    wgpu::LoadOp::Clear(1.0)
                                } else {
                                    wgpu::LoadOp::Load
                                },
                                store: wgpu::StoreOp::Store,
                            }),
                            stencil_ops: None,
                        }),
                        timestamp_writes: None,
                        occlusion_query_set: self.query_sets.get(set),
                        multiview_mask: None,
                    });
                    pass.set_index_buffer(self.indices.slice(..), wgpu::IndexFormat::Uint32);
                    if first_chunk {
                        pass.set_pipeline(&self.write_pipeline);
                        pass.set_bind_group(0, bind(writers), &[offset(writers)]);
                        for &(s, [x, y, w, h]) in &writer_draws {
                            pass.set_scissor_rect(x, y, w, h);
                            pass.draw_indexed(s.indices(), 0, 0..1);
                        }
                    }
                    pass.set_pipeline(&self.query_pipeline);
                    pass.set_bind_group(0, bind(queried), &[offset(queried)]);
                    for (j, &(o, s, [x, y, w, h])) in chunk.iter().enumerate() {
                        pass.set_scissor_rect(x, y, w, h);
                        pass.begin_occlusion_query((local + j) as u32);
                        pass.draw_indexed(s.indices(), 0, 0..1);
                        pass.end_occlusion_query();
                        issued.push((queried, o));
                    }
                    drop(pass);
                    result.passes += 1;
                    first_chunk = false;
                    pending = rest;
                }
            }
        }
        if issued.is_empty() {
            return Ok((culled_swept, culled_env));
        }
        result.queries += issued.len();
        for (set, qs) in self.query_sets.iter().enumerate() {
            let start = set * QUERIES_PER_SET;
            if start >= issued.len() {
                break;
            }
            let used = (issued.len() - start).min(QUERIES_PER_SET);
            encoder.resolve_query_set(qs, 0..used as u32, resolve, start as u64 * QUERY_BYTES);
        }
        let bytes = issued.len() as u64 * QUERY_BYTES;
        encoder.copy_buffer_to_buffer(resolve, 0, readback, 0, bytes);
        self.queue.submit([encoder.finish()]);

        let samples = read_back(&self.device, readback, bytes)?;
        for ((group, o), n) in issued.into_iter().zip(samples) {
            if n == 0 {
                match group {
                    Group::Environment => culled_env[o] = true,
                    Group::Swept => culled_swept[o] = true,
                }
            }
        }
        Ok((culled_swept, culled_env))
    }

    /// Fails with the first error the device reported outside a scope.
    fn check_uncaptured(&self) -> Result<(), CullideError> {
        let taken = self.uncaptured.lock().ok().and_then(|mut e| e.take());
        match taken {
            Some(e) => Err(CullideError::Gpu(e)),
            None => Ok(()),
        }
    }
}

/// What a round draws: its frame and each object's selection.
struct Views<'a> {
    round: &'a RoundFrame,
    swept: &'a StoredFrame,
    swept_selected: &'a [Selected],
    env_selected: &'a [Selected],
}

/// The swept volumes of one call as uploaded: their frame, their packed
/// triangles and their bounds (per swept volume).
struct SweptCall<'a> {
    frame: StoredFrame,
    spans: &'a [Span],
    bounds: &'a [Bounds],
}

/// The objects still in play: swept volumes by index, candidates by
/// position.
struct Alive {
    swept: Vec<usize>,
    env: Vec<usize>,
}

impl Alive {
    fn len(&self) -> usize {
        self.swept.len() + self.env.len()
    }

    fn clear(&mut self) {
        self.swept.clear();
        self.env.clear();
    }
}

/// The span `first..end` of packed triangles.
fn span_of(first: usize, end: usize) -> Result<Span, CullideError> {
    let too_many = || CullideError::Gpu(format!("{end} triangles exceed a draw's vertex range"));
    // Six indices per triangle must fit a u32.
    if end > (u32::MAX / 6) as usize {
        return Err(too_many());
    }
    let first = u32::try_from(first).map_err(|_| too_many())?;
    let end = u32::try_from(end).map_err(|_| too_many())?;
    Ok(Span {
        first,
        count: end - first,
    })
}

/// Bytes of `n` packed triangles, checked against the device's limits.
fn bytes_of_triangles(n: usize, limits: &wgpu::Limits, what: &str) -> Result<u64, CullideError> {
    let bytes = n as u64 * TRIANGLE_BYTES;
    let cap = limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size);
    if bytes > cap {
        return Err(CullideError::Gpu(format!(
            "{what}: {n} triangles need {bytes} bytes, the device binds at most {cap}"
        )));
    }
    Ok(bytes)
}

/// An index buffer for `count` indices, written each round.
fn index_buffer(device: &wgpu::Device, count: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("cullide quads"),
        size: count * 4,
        usage: wgpu::BufferUsages::INDEX | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// Whether `a` and `b` overlap along at least two of the three axes.
fn overlaps_in_two_axes(a: &Bounds, b: &Bounds) -> bool {
    let along = |k: usize| a.min[k] <= b.max[k] && b.min[k] <= a.max[k];
    usize::from(along(0)) + usize::from(along(1)) + usize::from(along(2)) >= 2
}

/// The common part of two boxes (empty when they are disjoint).
fn intersection(a: &Bounds, b: &Bounds) -> Bounds {
    Bounds {
        min: a.min.max(b.min),
        max: a.max.min(b.max),
    }
}

/// The boxes a triangle of one group must reach to matter: the other
/// group's alive objects' bounds within `meet`, or `meet` alone when there
/// are more than [`MAX_PARTNER_BOXES`] (the test is per triangle).
fn partner_boxes(bounds: impl Iterator<Item = Bounds>, meet: &Bounds) -> Vec<Bounds> {
    let boxes: Vec<Bounds> = bounds
        .map(|b| intersection(&b, meet))
        .filter(|b| !b.is_empty())
        .collect();
    if boxes.len() > MAX_PARTNER_BOXES {
        vec![*meet]
    } else {
        boxes
    }
}

/// Appends the quads of the triangles of `span` that may matter to
/// `indices` and returns the selection, or `None` when no triangle does.
///
/// A point where the object meets the other group lies in `meet` and in
/// the bounds of some alive object of the other group (one of `partners`,
/// or within `meet` when that is the only partner box), and within the
/// dilation of one of the object's triangles: a triangle whose dilated
/// bounds miss every partner box cannot hold it. A closed mesh also
/// stands for its inside: the argument then runs through the crossings of
/// the view's ray with the surface, which lie anywhere along the view axis,
/// so its triangles are kept when their bounds meet a partner box along two
/// axes (the screen axes of some view) and its region is its whole bounds
/// within `meet`.
fn select(
    triangle_bounds: &[Bounds],
    span: Span,
    closed: bool,
    object: &Bounds,
    meet: &Bounds,
    partners: &[Bounds],
    indices: &mut Vec<u32>,
) -> Option<Selected> {
    if !partners.iter().any(|p| object.overlaps(p)) {
        return None;
    }
    let reaches = |b: &Bounds, p: &Bounds| {
        if closed {
            overlaps_in_two_axes(b, p)
        } else {
            b.overlaps(p)
        }
    };
    let start = indices.len();
    let mut reach = Bounds::EMPTY;
    for t in span.triangles() {
        let b = &triangle_bounds[t as usize];
        if reaches(b, meet) && partners.iter().any(|p| reaches(b, p)) {
            indices.extend([0, 1, 2, 2, 1, 3].map(|k| 4 * t + k));
            reach = reach.union(b);
        }
    }
    if indices.len() == start {
        return None;
    }
    let region = if closed { *object } else { reach };
    Some(Selected {
        first_index: start as u32,
        index_count: (indices.len() - start) as u32,
        region: intersection(&region, meet),
    })
}

/// A storage buffer holding one zeroed triangle (bindings cannot be empty).
fn empty_storage(device: &wgpu::Device, label: &str) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: TRIANGLE_BYTES,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// The bind group of one group's triangles with the view uniforms.
fn bind_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    uniforms: &wgpu::Buffer,
    triangles: &wgpu::Buffer,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("cullide"),
        layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: uniforms,
                    offset: 0,
                    size: wgpu::BufferSize::new(VIEW_BYTES),
                }),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: triangles.as_entire_binding(),
            },
        ],
    })
}

/// Maps the first `bytes` of `readback` after the last submission and
/// returns the sample counts.
fn read_back(
    device: &wgpu::Device,
    readback: &wgpu::Buffer,
    bytes: u64,
) -> Result<Vec<u64>, CullideError> {
    let slice = readback.slice(0..bytes);
    let (tx, rx) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        // The receiver outlives the poll below; a failed send only means
        // it gave up already.
        let _ = tx.send(r);
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| CullideError::Gpu(format!("waiting for the device: {e}")))?;
    rx.recv()
        .map_err(|_| CullideError::Gpu("the read-back was dropped".to_owned()))?
        .map_err(|e| CullideError::Gpu(format!("mapping the query results: {e}")))?;
    let samples = slice
        .get_mapped_range()
        .map(|view| {
            view.chunks_exact(8)
                .map(|c| {
                    let mut b = [0u8; 8];
                    b.copy_from_slice(c);
                    u64::from_ne_bytes(b)
                })
                .collect()
        })
        .map_err(|e| CullideError::Gpu(format!("reading the query results: {e}")));
    readback.unmap();
    samples
}
