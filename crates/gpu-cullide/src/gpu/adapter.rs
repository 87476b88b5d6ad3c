//! Opening a device: the adapter choice, the limits asked for, and a
//! minimal executor for wgpu's few futures.

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

use crate::CullideError;

/// Wakes the thread that waits in [`block_on`].
struct Unpark(Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs `future` to completion on this thread, parking between polls.
/// wgpu's native futures are ready at once or are completed by
/// [`wgpu::Device::poll`], so this never waits for long.
pub(super) fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let waker = Waker::from(Arc::new(Unpark(thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(out) => return out,
            Poll::Pending => thread::park(),
        }
    }
}

/// An opened device (clones share it).
#[derive(Clone)]
pub(super) struct Opened {
    pub(super) device: wgpu::Device,
    pub(super) queue: wgpu::Queue,
    /// `name (Backend)`.
    pub(super) name: String,
    /// The device's first uncaptured error since it was last taken (its
    /// one handler, installed at opening, writes here).
    pub(super) uncaptured: Arc<Mutex<Option<String>>>,
}

/// The device the process's CULLIDE instances share, once one opened.
///
/// Opening a device per instance costs a driver instance each time, and
/// some drivers stop enumerating adapters after a few dozen of those in
/// one process (the NVIDIA Vulkan driver did after 30, even with every
/// earlier instance dropped), so the first device opened is kept and
/// shared; wgpu devices and queues are shareable across threads.
static SHARED: Mutex<Option<Opened>> = Mutex::new(None);

/// Devices opened by this process (see [`devices_opened`]).
static OPENED: AtomicUsize = AtomicUsize::new(0);

/// How many devices this process has opened: 1 once the first
/// [`crate::gpu::GpuCullide`] opened, whatever the number of instances.
pub(super) fn devices_opened() -> usize {
    OPENED.load(Ordering::Relaxed)
}

/// The native back ends tried when `WGPU_BACKEND` is not set.
const NATIVE: wgpu::Backends = wgpu::Backends::VULKAN
    .union(wgpu::Backends::GL)
    .union(wgpu::Backends::METAL)
    .union(wgpu::Backends::DX12);

/// Why `adapter` cannot run CULLIDE at `resolution`, if it cannot: vertex
/// shaders must read storage buffers, and the depth target must fit.
fn unsuitable(adapter: &wgpu::Adapter, resolution: u32) -> Option<String> {
    let limits = adapter.limits();
    let flags = adapter.get_downlevel_capabilities().flags;
    if !flags.contains(wgpu::DownlevelFlags::VERTEX_STORAGE)
        || limits.max_storage_buffers_per_shader_stage == 0
    {
        return Some("its vertex shaders cannot read storage buffers".to_owned());
    }
    if limits.max_texture_dimension_2d < resolution {
        return Some(format!(
            "its textures are at most {} pixels wide, the resolution is {resolution}",
            limits.max_texture_dimension_2d
        ));
    }
    None
}

/// Preference rank of an adapter (smaller first): by device type under the
/// power preference, then by back end.
fn rank(info: &wgpu::AdapterInfo, power: wgpu::PowerPreference) -> (u8, u8) {
    use wgpu::DeviceType as D;
    let device = match (power, info.device_type) {
        (wgpu::PowerPreference::LowPower, D::IntegratedGpu) => 0,
        (wgpu::PowerPreference::LowPower, D::DiscreteGpu) => 1,
        (_, D::DiscreteGpu) => 0,
        (_, D::IntegratedGpu) => 1,
        (_, D::VirtualGpu) => 2,
        (_, D::Other) => 3,
        (_, D::Cpu) => 4,
    };
    let backend = match info.backend {
        wgpu::Backend::Vulkan | wgpu::Backend::Metal | wgpu::Backend::Dx12 => 0,
        wgpu::Backend::Gl => 1,
        _ => 2,
    };
    (device, backend)
}

/// The best usable adapter of the back ends `backends`, if any; the others
/// are described in `rejected`.
fn pick(
    backends: wgpu::Backends,
    wanted: Option<&str>,
    power: wgpu::PowerPreference,
    resolution: u32,
    rejected: &mut Vec<String>,
) -> Option<wgpu::Adapter> {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = backends;
    desc.flags = wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL.with_env();
    let instance = wgpu::Instance::new(desc);
    let mut best: Option<(wgpu::Adapter, (u8, u8))> = None;
    for adapter in block_on(instance.enumerate_adapters(backends)) {
        let info = adapter.get_info();
        if let Some(w) = wanted
            && !info.name.to_lowercase().contains(w)
        {
            rejected.push(format!(
                "{} (name does not match WGPU_ADAPTER_NAME)",
                info.name
            ));
            continue;
        }
        if let Some(why) = unsuitable(&adapter, resolution) {
            rejected.push(format!("{} ({why})", info.name));
            continue;
        }
        let r = rank(&info, power);
        if best.as_ref().is_none_or(|(_, b)| r < *b) {
            best = Some((adapter, r));
        }
    }
    best.map(|(a, _)| a)
}

/// Opens a device for CULLIDE at `resolution`.
///
/// `ARMATURE_GPU=off` disables the GPU. `WGPU_BACKEND` (a comma list such
/// as `vulkan,gl`) picks the back ends, all native ones by default;
/// `WGPU_ADAPTER_NAME` keeps only adapters whose name contains it (case
/// insensitive); `WGPU_POWER_PREF` (`low`, `high`) orders integrated and
/// discrete GPUs. Software adapters are accepted, ranked last.
pub(super) fn open(resolution: u32) -> Result<Opened, CullideError> {
    if std::env::var("ARMATURE_GPU").is_ok_and(|v| v.trim().eq_ignore_ascii_case("off")) {
        return Err(CullideError::NoAdapter(
            "disabled by ARMATURE_GPU=off".to_owned(),
        ));
    }
    let mut shared = SHARED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(opened) = shared.as_ref() {
        let widest = opened.device.limits().max_texture_dimension_2d;
        if widest < resolution {
            return Err(CullideError::NoAdapter(format!(
                "{}: its textures are at most {widest} pixels wide, the resolution is {resolution}",
                opened.name
            )));
        }
        return Ok(opened.clone());
    }
    let opened = open_new(resolution)?;
    OPENED.fetch_add(1, Ordering::Relaxed);
    *shared = Some(opened.clone());
    Ok(opened)
}

/// Opens a new device (see [`open`]; the environment is read here, so at
/// the first opening in a process).
fn open_new(resolution: u32) -> Result<Opened, CullideError> {
    let backends = match wgpu::Backends::from_env() {
        Some(b) if b.is_empty() => {
            return Err(CullideError::NoAdapter(format!(
                "WGPU_BACKEND={:?} names no back end",
                std::env::var("WGPU_BACKEND").unwrap_or_default()
            )));
        }
        Some(b) => b,
        None => NATIVE,
    };
    let wanted = std::env::var("WGPU_ADAPTER_NAME")
        .ok()
        .map(|s| s.to_lowercase())
        .filter(|s| !s.is_empty());
    let power = wgpu::PowerPreference::from_env().unwrap_or(wgpu::PowerPreference::None);
    let mut rejected = Vec::new();
    // GL is only probed when no other back end offers an adapter: it is the
    // least capable, and probing it without a display is slow and noisy.
    let mut chosen = None;
    for tier in [backends - wgpu::Backends::GL, backends & wgpu::Backends::GL] {
        if tier.is_empty() {
            continue;
        }
        chosen = pick(tier, wanted.as_deref(), power, resolution, &mut rejected);
        if chosen.is_some() {
            break;
        }
    }
    let Some(adapter) = chosen else {
        let seen = if rejected.is_empty() {
            "none found".to_owned()
        } else {
            format!("rejected: {}", rejected.join("; "))
        };
        return Err(CullideError::NoAdapter(format!(
            "no usable adapter among the back ends {backends:?} ({seen})"
        )));
    };
    let info = adapter.get_info();
    let name = format!("{} ({:?})", info.name, info.backend);

    let available = adapter.limits();
    let mut limits = wgpu::Limits::downlevel_defaults()
        .using_resolution(available.clone())
        .using_alignment(available.clone());
    limits.max_storage_buffer_binding_size = available.max_storage_buffer_binding_size;
    limits.max_buffer_size = available.max_buffer_size;
    let (device, queue) = block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("armature-cullide"),
        required_features: wgpu::Features::empty(),
        required_limits: limits,
        ..Default::default()
    }))
    .map_err(|e| CullideError::NoAdapter(format!("{name}: cannot open a device: {e}")))?;
    let uncaptured = Arc::new(Mutex::new(None::<String>));
    {
        let sink = Arc::clone(&uncaptured);
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            if let Ok(mut slot) = sink.lock() {
                slot.get_or_insert_with(|| e.to_string());
            }
        }));
    }
    Ok(Opened {
        device,
        queue,
        name,
        uncaptured,
    })
}
