//! The CPU side of the raster's numbers: triangles packed for the GPU in
//! `f32` with their depth gradients, each round's view frame, and the
//! error bounds handed to the shaders.

use bytemuck::{Pod, Zeroable};
use glam::{DVec2, DVec3};

use crate::CullideError;
use crate::objects::Bounds;

/// Unit roundoff of `f32` (round to nearest): `2^-24`.
const F32_UNIT: f64 = 1.0 / 16_777_216.0;

/// Absolute slack, in view units (the round's box spans `[-1, 1]` along
/// its longest side), added to every tolerance of the shaders.
const SLACK: f32 = 1e-5;

/// Relative allowance for the shaders' own `f32` arithmetic, times the
/// magnitude of the numbers involved (about 67 roundings of `2^-24`; the
/// longest chain, the 2D distance of the pixel centre to a triangle, takes
/// about ten), and on the stored depth gradient.
const REL: f32 = 4e-6;

/// Relative allowance on a dilation read back from `f32` and scaled.
const DILATION_REL: f32 = 1.000_001;

/// A depth plane is used along an axis only when that component of the
/// triangle's normal exceeds this fraction of `|e1| |e2|`: the gradient
/// then has an absolute error below `1e-7` (from the `f64` edge vectors)
/// and magnitude below `1e8`; a steeper triangle falls back on its corners'
/// depth range.
const PLANE_TOLERANCE: f64 = 1e-8;

/// Largest coordinate (relative to a group's origin) or dilation accepted:
/// far inside `f32` range, so every shader quantity stays finite.
const MAX_STORED: f64 = 1e30;

/// Grid anisotropy cap: a view's side is at least `1/64` of the longest one.
const MIN_SIDE: f64 = 1.0 / 64.0;

/// Padding of the round's box, relative to its longest half-size.
const PAD_REL: f64 = 4e-3;

/// One triangle as the shaders read it (`Tri` in `cullide.wgsl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub(super) struct GpuTriangle {
    a: [f32; 4],
    b: [f32; 4],
    c: [f32; 4],
    g01: [f32; 4],
    g2: [f32; 4],
}

/// Bytes per packed triangle.
pub(super) const TRIANGLE_BYTES: u64 = size_of::<GpuTriangle>() as u64;

/// One view's uniform block (`View` in `cullide.wgsl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub(super) struct ViewUniform {
    shift: [f32; 4],
    ndc: [f32; 4],
    pixel: [f32; 4],
    misc: [f32; 4],
    axis: [u32; 4],
}

/// Bytes of one view's uniform block.
pub(super) const VIEW_BYTES: u64 = size_of::<ViewUniform>() as u64;

/// The `(u, v, w)` coordinate indices of a view along `axis`: the screen's
/// two axes, then the depth axis (the same cyclic order as the shader).
const fn view_axes(axis: usize) -> [usize; 3] {
    match axis {
        0 => [1, 2, 0],
        1 => [2, 0, 1],
        _ => [0, 1, 2],
    }
}

/// The frame a group of triangles is stored in: world coordinates minus
/// `origin`, rounded to `f32`.
#[derive(Clone, Copy, Debug)]
pub(super) struct StoredFrame {
    /// Subtracted from every coordinate before rounding.
    pub(super) origin: DVec3,
    /// Largest `|p − origin|` component stored (bounds the rounding error
    /// `2^-24 · reach` of each stored coordinate).
    pub(super) reach: f64,
}

impl StoredFrame {
    /// A frame centred on `bounds` (the origin when empty).
    pub(super) fn centred(bounds: &Bounds) -> Self {
        let origin = if bounds.is_empty() {
            DVec3::ZERO
        } else {
            (bounds.min + bounds.max) * 0.5
        };
        Self { origin, reach: 0.0 }
    }
}

/// Checks an object's input and returns its bounds (dilation included).
///
/// # Errors
/// [`CullideError::NonFinite`] naming `what()` for a non-finite or huge
/// coordinate or a negative, non-finite or huge dilation.
pub(super) fn checked_bounds(
    triangles: &[[DVec3; 3]],
    dilation: f64,
    what: impl Fn() -> String,
) -> Result<Bounds, CullideError> {
    if !(dilation.is_finite() && (0.0..=MAX_STORED).contains(&dilation)) {
        return Err(CullideError::NonFinite {
            what: format!("{} dilation", what()),
            value: dilation,
        });
    }
    for (t, tri) in triangles.iter().enumerate() {
        for p in tri {
            if !(p.is_finite() && p.abs().max_element() <= MAX_STORED) {
                let value = [p.x, p.y, p.z]
                    .into_iter()
                    .find(|c| !(c.is_finite() && c.abs() <= MAX_STORED))
                    .unwrap_or(f64::NAN);
                return Err(CullideError::NonFinite {
                    what: format!("{} triangle {t}", what()),
                    value,
                });
            }
        }
    }
    Ok(Bounds::of(triangles, dilation))
}

/// Appends `triangles` (dilation `dilation`) stored in `frame` to `out`
/// and their bounds (dilation included) to `bounds`, growing
/// `frame.reach`. The inputs must have passed [`checked_bounds`].
pub(super) fn pack(
    triangles: &[[DVec3; 3]],
    dilation: f64,
    frame: &mut StoredFrame,
    out: &mut Vec<GpuTriangle>,
    bounds: &mut Vec<Bounds>,
) {
    out.reserve(triangles.len());
    bounds.reserve(triangles.len());
    for t in triangles {
        bounds.push(Bounds::of(std::slice::from_ref(t), dilation));
        let [p0, p1, p2] = *t;
        let e1 = p1 - p0;
        let e2 = p2 - p0;
        let n = e1.cross(e2);
        let size = e1.length() * e2.length();
        let mut mask = 0u32;
        let mut g = [[0.0f32; 2]; 3];
        for (axis, slot) in g.iter_mut().enumerate() {
            let [u, v, w] = view_axes(axis);
            let nw = n[w];
            if size.is_finite() && size > 0.0 && nw.abs() > PLANE_TOLERANCE * size {
                // The plane n · (p − p0) = 0 solved for the depth w.
                *slot = [(-n[u] / nw) as f32, (-n[v] / nw) as f32];
                mask |= 1 << axis;
            }
        }
        let mut stored = [[0.0f32; 4]; 3];
        for (s, p) in stored.iter_mut().zip([p0, p1, p2]) {
            let local = p - frame.origin;
            frame.reach = frame.reach.max(local.abs().max_element());
            *s = [local.x as f32, local.y as f32, local.z as f32, 0.0];
        }
        stored[0][3] = dilation as f32;
        stored[1][3] = mask as f32;
        out.push(GpuTriangle {
            a: stored[0],
            b: stored[1],
            c: stored[2],
            g01: [g[0][0], g[0][1], g[1][0], g[1][1]],
            g2: [g[2][0], g[2][1], 0.0, 0.0],
        });
    }
}

/// One round's view box: where the groups may meet, padded, in view units
/// `q = (p − centre) / scale`.
#[derive(Clone, Copy, Debug)]
pub(super) struct RoundFrame {
    centre: DVec3,
    /// Longest half-size of the padded box (world units).
    scale: f64,
    /// Half-size of each view's extent per world axis (world units), at
    /// least [`MIN_SIDE`] times `scale`.
    half: DVec3,
    /// The padding added on every side (world units).
    pad: f64,
}

impl RoundFrame {
    /// The frame over `bounds` (non-empty), padded on every side by
    /// `4e-3` of its longest half-size (and a hair more, so that a flat or
    /// single-point box still has a size).
    ///
    /// # Errors
    /// [`CullideError::NonFinite`] when the box's size overflows.
    pub(super) fn new(bounds: &Bounds) -> Result<Self, CullideError> {
        let centre = (bounds.min + bounds.max) * 0.5;
        let raw = (bounds.max - bounds.min) * 0.5;
        let pad = PAD_REL * raw.max_element() + 1e-9 * (1.0 + centre.abs().max_element());
        let padded = raw + DVec3::splat(pad);
        let scale = padded.max_element();
        if !(scale.is_finite() && scale > 0.0 && centre.is_finite() && (1.0 / scale).is_finite()) {
            return Err(CullideError::NonFinite {
                what: "extent of the scene's bounding box".to_owned(),
                value: scale,
            });
        }
        Ok(Self {
            centre,
            scale,
            half: padded.max(DVec3::splat(MIN_SIDE * scale)),
            pad,
        })
    }

    /// The view ratios `h = H / scale` of the screen axes of the view along
    /// `axis`, rounded to `f32` as the shader receives them.
    fn screen_ratios(&self, axis: usize) -> [f32; 2] {
        let [u, v, _] = view_axes(axis);
        [
            (self.half[u] / self.scale) as f32,
            (self.half[v] / self.scale) as f32,
        ]
    }

    /// The rectangle (NDC) that `bounds` projects onto in the view along
    /// `axis`.
    pub(super) fn footprint(&self, axis: usize, bounds: &Bounds) -> Rect {
        let [u, v, _] = view_axes(axis);
        let [hu, hv] = self.screen_ratios(axis);
        let ku = self.scale * f64::from(hu);
        let kv = self.scale * f64::from(hv);
        Rect {
            lo: DVec2::new(
                (bounds.min[u] - self.centre[u]) / ku,
                (bounds.min[v] - self.centre[v]) / kv,
            ),
            hi: DVec2::new(
                (bounds.max[u] - self.centre[u]) / ku,
                (bounds.max[v] - self.centre[v]) / kv,
            ),
        }
    }

    /// The uniform block of the view along `axis` for triangles stored in
    /// `frame`, on a `resolution`-pixel square target.
    pub(super) fn uniform(&self, axis: usize, frame: &StoredFrame, resolution: u32) -> ViewUniform {
        let [_, _, w] = view_axes(axis);
        let s = self.scale;
        // The shader's ratios, rounded once; the pixel size is derived from
        // the rounded values so that both mappings agree.
        let [hu, hv] = self.screen_ratios(axis);
        let hw = self.half[w] / s;
        let res = f64::from(resolution);
        let px = f64::from(hu) / res;
        let py = f64::from(hv) / res;
        let half_diagonal = (px.hypot(py) * (1.0 + 1e-6)) as f32;
        let shift = frame.origin - self.centre;
        // Error of the shader's corners (view units, Euclidean): the stored
        // rounding (2^-24 reach per component), the shift's (2^-24 |shift|),
        // then the sum, the product with 1 / scale and that factor's own
        // rounding, each at most 2^-24 (reach + |shift|) / scale however
        // the compiler orders them; times √3 for three components, with
        // room to spare (the constant covers a few more roundings).
        let eps = 8.0 * F32_UNIT * ((frame.reach + shift.abs().max_element()) / s + 4.0);
        // No point of the box lies deeper than 1 − pad / (2 H_w); query
        // depths are clamped halfway to that from 1, so that a pixel that
        // nothing wrote (cleared to 1) never passes.
        let far = 1.0 - 0.25 * self.pad / self.half[w];
        ViewUniform {
            shift: [
                shift.x as f32,
                shift.y as f32,
                shift.z as f32,
                (1.0 / s) as f32,
            ],
            ndc: [1.0 / hu, 1.0 / hv, (0.5 / hw) as f32, resolution as f32],
            pixel: [hu, hv, half_diagonal, eps as f32],
            misc: [SLACK, DILATION_REL, far as f32, REL],
            axis: [axis as u32, 0, 0, 0],
        }
    }
}

/// An axis-aligned rectangle in NDC (empty when `lo > hi` somewhere).
#[derive(Clone, Copy, Debug)]
pub(super) struct Rect {
    lo: DVec2,
    hi: DVec2,
}

impl Rect {
    /// The empty rectangle.
    pub(super) const EMPTY: Self = Self {
        lo: DVec2::INFINITY,
        hi: DVec2::NEG_INFINITY,
    };

    /// The smallest rectangle holding both.
    pub(super) fn union(self, other: Self) -> Self {
        Self {
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }

    /// The common part.
    pub(super) fn intersection(self, other: Self) -> Self {
        Self {
            lo: self.lo.max(other.lo),
            hi: self.hi.min(other.hi),
        }
    }

    /// The scissor rectangle `[x, y, width, height]` (framebuffer pixels,
    /// y down) of every pixel that may hold a point of the rectangle, grown
    /// by one pixel on each side for the rounding of the mapping; `None`
    /// when the rectangle is empty.
    pub(super) fn scissor(self, resolution: u32) -> Option<[u32; 4]> {
        if !(self.lo.x <= self.hi.x && self.lo.y <= self.hi.y) {
            return None;
        }
        let res = f64::from(resolution);
        let pixel = |ndc: f64, flip: bool| {
            let t = if flip { 1.0 - ndc } else { ndc + 1.0 };
            t * 0.5 * res
        };
        let clamp = |p: f64| p.clamp(0.0, res) as u32;
        let x0 = clamp((pixel(self.lo.x, false)).floor() - 1.0);
        let x1 = clamp((pixel(self.hi.x, false)).ceil() + 1.0);
        let y0 = clamp((pixel(self.hi.y, true)).floor() - 1.0);
        let y1 = clamp((pixel(self.lo.y, true)).ceil() + 1.0);
        (x1 > x0 && y1 > y0).then_some([x0, y0, x1 - x0, y1 - y0])
    }
}
