//! A z-buffered triangle rasterizer into RGBA8 images.
//!
//! [`Canvas`] draws, through a [`Camera`], in three layers:
//!
//! 1. **opaque** triangles (alpha 255), at once, with a depth buffer of
//!    inverse camera depth `1/z` interpolated linearly in the image (which
//!    is exact under perspective);
//! 2. **translucent** triangles (alpha below 255), kept until
//!    [`Canvas::finish`], then sorted back to front by their mean depth and
//!    alpha-blended over what is drawn where the opaque layer is farther;
//!    they do not write depth;
//! 3. **overlays** — markers and line segments — on top of everything, so
//!    a contact point stays visible inside the volume that holds it.
//!
//! Pixel `(i, j)` is covered when its centre `(i, j)` (see
//! [`camera`](super::camera)) lies inside the projected triangle; an edge
//! shared by two triangles covers each pixel on it once (a fill rule that
//! gives the edge to exactly one side), so translucent surfaces show no
//! seams. Triangles are clipped at the camera's near plane before they are
//! projected, so nothing behind the camera is drawn and no depth is ever
//! divided by zero; zero-area and non-finite triangles are skipped. Shading
//! is flat or Lambertian by the triangle normal against a light along the
//! view direction (two-sided: meshes of any winding look alike).
//! Everything is deterministic.
//!
//! ```
//! use armature::render::{Camera, Canvas, Material, Shading};
//! use glam::DVec3;
//!
//! // A camera at the origin looking along +z, and a red triangle 2 m ahead.
//! let camera = Camera::from_intrinsics(32, 32, [40.0, 40.0, 15.5, 15.5])?;
//! let mut canvas = Canvas::with_color(camera, [0, 0, 0, 255]);
//! let red = Material::new([255, 0, 0, 255]).with_shading(Shading::Flat);
//! canvas.triangle([DVec3::new(-1.0, -1.0, 2.0), DVec3::new(1.0, -1.0, 2.0), DVec3::new(0.0, 1.0, 2.0)], &red);
//! let image = canvas.finish();
//! assert_eq!(image.pixel(16, 16), Some([255, 0, 0, 255]));
//! assert_eq!(image.pixel(0, 31), Some([0, 0, 0, 255]));
//! # Ok::<(), armature::Error>(())
//! ```

use glam::{DAffine3, DVec2, DVec3};

use super::camera::Camera;
use crate::Error;
use armature_bvh_geometry::TriMesh;

/// An RGBA image, 8 bits per channel, rows top to bottom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width · height · 4` bytes: red, green, blue, alpha per pixel,
    /// row-major from the top left.
    pub rgba: Vec<u8>,
}

impl Image {
    /// An image filled with `color`.
    #[must_use]
    pub fn new(width: u32, height: u32, color: [u8; 4]) -> Self {
        let n = width as usize * height as usize;
        Self {
            width,
            height,
            rgba: color.repeat(n),
        }
    }

    /// An image of the given bytes.
    ///
    /// # Errors
    /// [`Error::Image`] when `rgba` does not hold `width · height · 4`
    /// bytes.
    pub fn from_rgba(width: u32, height: u32, rgba: Vec<u8>) -> Result<Self, Error> {
        let expected = width as usize * height as usize * 4;
        if rgba.len() != expected {
            return Err(Error::Image {
                file: None,
                message: format!(
                    "{width}×{height} RGBA pixels need {expected} bytes, got {}",
                    rgba.len()
                ),
            });
        }
        Ok(Self {
            width,
            height,
            rgba,
        })
    }

    /// The colour of pixel `(x, y)` (column, row), `None` outside.
    #[must_use]
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        (x < self.width && y < self.height).then(|| {
            let i = (y as usize * self.width as usize + x as usize) * 4;
            [
                self.rgba[i],
                self.rgba[i + 1],
                self.rgba[i + 2],
                self.rgba[i + 3],
            ]
        })
    }

    /// Sets pixel `(x, y)`; nothing happens outside the image.
    pub fn set_pixel(&mut self, x: u32, y: u32, color: [u8; 4]) {
        if x < self.width && y < self.height {
            let i = (y as usize * self.width as usize + x as usize) * 4;
            self.rgba[i..i + 4].copy_from_slice(&color);
        }
    }

    /// Blends `color` over pixel `index` (row-major) by its alpha.
    fn blend(&mut self, index: usize, color: [u8; 4]) {
        let px = &mut self.rgba[index * 4..index * 4 + 4];
        if color[3] == 255 {
            px.copy_from_slice(&color);
            return;
        }
        let a = f64::from(color[3]) / 255.0;
        for k in 0..3 {
            px[k] = channel(f64::from(color[k]) * a + f64::from(px[k]) * (1.0 - a));
        }
        px[3] = channel(f64::from(color[3]) + f64::from(px[3]) * (1.0 - a));
    }
}

/// A channel value rounded to the nearest byte.
fn channel(x: f64) -> u8 {
    // Clamped into [0, 255] first, so the cast is exact.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let v = (x + 0.5).floor().clamp(0.0, 255.0) as u8;
    v
}

/// How a triangle's colour varies with its orientation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Shading {
    /// The colour as given.
    Flat,
    /// The colour times `ambient + (1 − ambient)·|cos θ|`, `θ` the angle
    /// between the triangle's normal and the line of sight (a light at the
    /// camera), ambient 0.35.
    #[default]
    Lambert,
}

/// The look of a surface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Material {
    /// RGBA colour: alpha 255 draws in the opaque layer, less in the
    /// translucent one.
    pub color: [u8; 4],
    /// Shading.
    pub shading: Shading,
    /// Skip triangles seen from behind (counter-clockwise from outside
    /// assumed): for closed, outward meshes drawn translucent, so that
    /// only their near side blends.
    pub cull_back_faces: bool,
}

impl Material {
    /// A Lambert-shaded material of `color` without culling.
    #[must_use]
    pub const fn new(color: [u8; 4]) -> Self {
        Self {
            color,
            shading: Shading::Lambert,
            cull_back_faces: false,
        }
    }

    /// Sets [`Material::shading`].
    #[must_use]
    pub const fn with_shading(mut self, shading: Shading) -> Self {
        self.shading = shading;
        self
    }

    /// Sets [`Material::cull_back_faces`].
    #[must_use]
    pub const fn with_cull_back_faces(mut self, cull: bool) -> Self {
        self.cull_back_faces = cull;
        self
    }
}

/// A mark at a point, drawn over everything.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Marker {
    /// A filled disc.
    Disc {
        /// Radius in pixels.
        radius: f64,
    },
    /// An upright cross (`+`).
    Cross {
        /// Half the length of each bar, in pixels.
        half_size: f64,
        /// Width of the bars, in pixels.
        width: f64,
    },
}

/// A translucent triangle waiting for [`Canvas::finish`].
#[derive(Clone, Copy, Debug)]
struct Pending {
    screen: [DVec2; 3],
    inv_z: [f64; 3],
    color: [u8; 4],
    /// Mean camera depth, the sort key.
    depth: f64,
}

/// An overlay waiting for [`Canvas::finish`].
#[derive(Clone, Copy, Debug)]
enum Overlay {
    Marker(DVec2, Marker, [u8; 4]),
    Segment(DVec2, DVec2, f64, [u8; 4]),
}

/// A camera, an image and its depth buffer (see the [module docs](self)).
#[derive(Clone, Debug)]
pub struct Canvas {
    camera: Camera,
    image: Image,
    /// Per pixel, `1/z` of the nearest opaque surface; 0 where none.
    inv_depth: Vec<f64>,
    translucent: Vec<Pending>,
    overlays: Vec<Overlay>,
}

impl Canvas {
    /// A canvas drawing over `background` through `camera`.
    ///
    /// # Errors
    /// [`Error::Image`] unless `background` has the camera's size.
    pub fn new(camera: Camera, background: Image) -> Result<Self, Error> {
        if (background.width, background.height) != (camera.width, camera.height) {
            return Err(Error::Image {
                file: None,
                message: format!(
                    "the background is {}×{} pixels but the camera's image is {}×{}",
                    background.width, background.height, camera.width, camera.height
                ),
            });
        }
        let n = background.width as usize * background.height as usize;
        Ok(Self {
            camera,
            image: background,
            inv_depth: vec![0.0; n],
            translucent: Vec::new(),
            overlays: Vec::new(),
        })
    }

    /// A canvas over a plain background of `color`.
    #[must_use]
    pub fn with_color(camera: Camera, color: [u8; 4]) -> Self {
        let n = camera.width as usize * camera.height as usize;
        Self {
            image: Image::new(camera.width, camera.height, color),
            camera,
            inv_depth: vec![0.0; n],
            translucent: Vec::new(),
            overlays: Vec::new(),
        }
    }

    /// The camera.
    #[must_use]
    pub const fn camera(&self) -> &Camera {
        &self.camera
    }

    /// Draws the world triangle `tri`.
    pub fn triangle(&mut self, tri: [DVec3; 3], material: &Material) {
        let c = tri.map(|p| self.camera.to_camera(p));
        self.camera_triangle(c, material);
    }

    /// Draws `mesh` placed at `pose` (mesh frame to world).
    pub fn mesh(&mut self, mesh: &TriMesh, pose: &DAffine3, material: &Material) {
        let to_camera = self.camera.pose.world_to_camera() * *pose;
        let vertices: Vec<DVec3> = mesh
            .vertices()
            .iter()
            .map(|&v| to_camera.transform_point3(v))
            .collect();
        for t in mesh.indices() {
            let c = t.map(|i| vertices[i as usize]);
            self.camera_triangle(c, material);
        }
    }

    /// Marks the world point `p` (nothing when it is behind the camera).
    pub fn marker(&mut self, p: DVec3, marker: Marker, color: [u8; 4]) {
        if let Some(px) = self.camera.project(p) {
            self.overlays.push(Overlay::Marker(px, marker, color));
        }
    }

    /// Marks the pixel position `pixel`.
    pub fn marker_at_pixel(&mut self, pixel: DVec2, marker: Marker, color: [u8; 4]) {
        if pixel.is_finite() {
            self.overlays.push(Overlay::Marker(pixel, marker, color));
        }
    }

    /// A line from world point `a` to `b`, `width` pixels wide, clipped at
    /// the near plane.
    pub fn segment(&mut self, a: DVec3, b: DVec3, width: f64, color: [u8; 4]) {
        let (mut a, mut b) = (self.camera.to_camera(a), self.camera.to_camera(b));
        let near = self.camera.near;
        if !(a.is_finite() && b.is_finite()) || (a.z < near && b.z < near) {
            return;
        }
        if a.z < near {
            a = a.lerp(b, (near - a.z) / (b.z - a.z));
        } else if b.z < near {
            b = b.lerp(a, (near - b.z) / (a.z - b.z));
        }
        // The crossing may round a hair behind the plane.
        a.z = a.z.max(near);
        b.z = b.z.max(near);
        let camera = &self.camera;
        if let (Some(pa), Some(pb)) = (
            camera.project_camera_point(a),
            camera.project_camera_point(b),
        ) {
            self.overlays.push(Overlay::Segment(pa, pb, width, color));
        }
    }

    /// Draws the translucent layer back to front and the overlays, and
    /// returns the image.
    #[must_use]
    pub fn finish(mut self) -> Image {
        let mut pending = std::mem::take(&mut self.translucent);
        // Stable: equal depths keep the order they were drawn in.
        pending.sort_by(|a, b| b.depth.total_cmp(&a.depth));
        for p in &pending {
            self.fill(p.screen, p.inv_z, p.color, false);
        }
        for o in std::mem::take(&mut self.overlays) {
            match o {
                Overlay::Marker(c, m, color) => self.draw_marker(c, m, color),
                Overlay::Segment(a, b, w, color) => self.draw_segment(a, b, w, color),
            }
        }
        self.image
    }

    /// One triangle in camera coordinates: cull, shade, clip, then fill
    /// (opaque) or keep (translucent).
    fn camera_triangle(&mut self, c: [DVec3; 3], material: &Material) {
        if !c.iter().all(|v| v.is_finite()) {
            return;
        }
        let normal = (c[1] - c[0]).cross(c[2] - c[0]);
        let centroid = (c[0] + c[1] + c[2]) / 3.0;
        // Facing the camera (at the origin) when the normal points to it.
        let facing = normal.dot(c[0]);
        if material.cull_back_faces && facing >= 0.0 {
            return;
        }
        let color = match material.shading {
            Shading::Flat => material.color,
            Shading::Lambert => {
                let denom = normal.length() * centroid.length();
                let cos = if denom > 0.0 {
                    (facing / denom).abs().min(1.0)
                } else {
                    0.0
                };
                let k = 0.35 + 0.65 * cos;
                let [r, g, b, a] = material.color;
                [
                    channel(f64::from(r) * k),
                    channel(f64::from(g) * k),
                    channel(f64::from(b) * k),
                    a,
                ]
            }
        };
        let mut polygon = [DVec3::ZERO; 4];
        let n = clip_near(c, self.camera.near, &mut polygon);
        for k in 1..n.saturating_sub(1) {
            let tri = [polygon[0], polygon[k], polygon[k + 1]];
            let Some(screen) = project3(&self.camera, tri) else {
                continue;
            };
            let inv_z = tri.map(|v| 1.0 / v.z);
            if color[3] == 255 {
                self.fill(screen, inv_z, color, true);
            } else {
                self.translucent.push(Pending {
                    screen,
                    inv_z,
                    color,
                    depth: (tri[0].z + tri[1].z + tri[2].z) / 3.0,
                });
            }
        }
    }

    /// Fills a projected triangle: opaque ones write depth, translucent
    /// ones blend where they are nearer than the opaque layer.
    fn fill(&mut self, s: [DVec2; 3], inv_z: [f64; 3], color: [u8; 4], opaque: bool) {
        let area = edge(s[0], s[1], s[2]);
        if !area.is_finite() || area == 0.0 {
            return;
        }
        // Counter-clockwise in the image's y-down frame from here on.
        let (s, inv_z, area) = if area < 0.0 {
            ([s[0], s[2], s[1]], [inv_z[0], inv_z[2], inv_z[1]], -area)
        } else {
            (s, inv_z, area)
        };
        let Some((x0, x1, y0, y1)) =
            self.pixel_box(s[0].min(s[1]).min(s[2]), s[0].max(s[1]).max(s[2]))
        else {
            return;
        };
        let owns = [
            owns_edge(s[1], s[2]),
            owns_edge(s[2], s[0]),
            owns_edge(s[0], s[1]),
        ];
        let width = self.image.width as usize;
        for y in y0..=y1 {
            for x in x0..=x1 {
                let p = DVec2::new(x as f64, y as f64);
                let w = [
                    edge(s[1], s[2], p),
                    edge(s[2], s[0], p),
                    edge(s[0], s[1], p),
                ];
                if (0..3).any(|k| w[k] < 0.0 || (w[k] == 0.0 && !owns[k])) {
                    continue;
                }
                let depth = (w[0] * inv_z[0] + w[1] * inv_z[1] + w[2] * inv_z[2]) / area;
                let index = y * width + x;
                if depth > self.inv_depth[index] {
                    if opaque {
                        self.inv_depth[index] = depth;
                    }
                    self.image.blend(index, color);
                }
            }
        }
    }

    /// The pixels whose centres lie in the box `[lo, hi]`, clamped to the
    /// image; `None` when none do.
    fn pixel_box(&self, lo: DVec2, hi: DVec2) -> Option<(usize, usize, usize, usize)> {
        let (w, h) = (f64::from(self.image.width), f64::from(self.image.height));
        if !(lo.is_finite() && hi.is_finite())
            || hi.x < 0.0
            || hi.y < 0.0
            || lo.x > w - 1.0
            || lo.y > h - 1.0
        {
            return None;
        }
        // Clamped into the image first, so the casts are exact.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let b = (
            lo.x.max(0.0).ceil() as usize,
            hi.x.min(w - 1.0).floor() as usize,
            lo.y.max(0.0).ceil() as usize,
            hi.y.min(h - 1.0).floor() as usize,
        );
        (b.0 <= b.1 && b.2 <= b.3).then_some(b)
    }

    fn draw_marker(&mut self, c: DVec2, marker: Marker, color: [u8; 4]) {
        let reach = match marker {
            Marker::Disc { radius } => radius,
            Marker::Cross { half_size, width } => half_size.max(width / 2.0),
        };
        if !(reach.is_finite() && reach >= 0.0) {
            return;
        }
        let Some((x0, x1, y0, y1)) = self.pixel_box(c - reach, c + reach) else {
            return;
        };
        let width = self.image.width as usize;
        for y in y0..=y1 {
            for x in x0..=x1 {
                let d = DVec2::new(x as f64, y as f64) - c;
                let inside = match marker {
                    Marker::Disc { radius } => d.length() <= radius,
                    Marker::Cross { half_size, width } => {
                        let (ax, ay) = (d.x.abs(), d.y.abs());
                        (ax <= width / 2.0 && ay <= half_size)
                            || (ay <= width / 2.0 && ax <= half_size)
                    }
                };
                if inside {
                    self.image.blend(y * width + x, color);
                }
            }
        }
    }

    fn draw_segment(&mut self, a: DVec2, b: DVec2, line_width: f64, color: [u8; 4]) {
        let half = line_width.max(1.0) / 2.0;
        let Some((x0, x1, y0, y1)) = self.pixel_box(a.min(b) - half, a.max(b) + half) else {
            return;
        };
        let width = self.image.width as usize;
        let ab = b - a;
        let len2 = ab.length_squared();
        for y in y0..=y1 {
            for x in x0..=x1 {
                let p = DVec2::new(x as f64, y as f64);
                let t = if len2 > 0.0 {
                    ((p - a).dot(ab) / len2).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                if p.distance(a + ab * t) <= half {
                    self.image.blend(y * width + x, color);
                }
            }
        }
    }
}

/// Twice the signed area of `(a, b, p)`: positive when `p` lies to the
/// left of `a → b` (counter-clockwise in a y-down image).
fn edge(a: DVec2, b: DVec2, p: DVec2) -> f64 {
    (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x)
}

/// Whether pixel centres exactly on the edge `a → b` belong to its
/// triangle: of the two directions of an edge exactly one owns it, so a
/// pixel on an edge two triangles share is drawn once.
fn owns_edge(a: DVec2, b: DVec2) -> bool {
    let d = b - a;
    d.y > 0.0 || (d.y == 0.0 && d.x < 0.0)
}

/// The polygon of the camera-space triangle `c` where `z ≥ near`
/// (Sutherland–Hodgman on one plane): 0, 3 or 4 corners in `out`.
fn clip_near(c: [DVec3; 3], near: f64, out: &mut [DVec3; 4]) -> usize {
    let mut n = 0;
    for k in 0..3 {
        let (a, b) = (c[k], c[(k + 1) % 3]);
        let (ina, inb) = (a.z >= near, b.z >= near);
        if ina {
            out[n] = a;
            n += 1;
        }
        if ina != inb && n < 4 {
            let t = (near - a.z) / (b.z - a.z);
            let mut p = a.lerp(b, t);
            // Rounding may leave the crossing a hair in front of the
            // plane's far side; the projection needs z ≥ near.
            p.z = p.z.max(near);
            out[n] = p;
            n += 1;
        }
    }
    n
}

/// The pixels of three camera-space points in front of the near plane.
fn project3(camera: &Camera, tri: [DVec3; 3]) -> Option<[DVec2; 3]> {
    Some([
        camera.project_camera_point(tri[0])?,
        camera.project_camera_point(tri[1])?,
        camera.project_camera_point(tri[2])?,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn camera() -> Camera {
        // At the origin looking along +z, 100 px focal length.
        Camera::from_intrinsics(64, 48, [100.0, 100.0, 31.5, 23.5]).unwrap()
    }

    #[test]
    fn clipping_keeps_the_front_part() {
        let mut out = [DVec3::ZERO; 4];
        let tri = [
            DVec3::new(0.0, 0.0, -1.0),
            DVec3::new(1.0, 0.0, 1.0),
            DVec3::new(0.0, 1.0, 1.0),
        ];
        assert_eq!(clip_near(tri, 0.1, &mut out), 4);
        assert!(out.iter().all(|p| p.z >= 0.1));
        let behind = tri.map(|p| p - DVec3::Z * 5.0);
        assert_eq!(clip_near(behind, 0.1, &mut out), 0);
        let one_in = [
            DVec3::new(0.0, 0.0, 1.0),
            DVec3::new(1.0, 0.0, -1.0),
            DVec3::new(0.0, 1.0, -1.0),
        ];
        assert_eq!(clip_near(one_in, 0.1, &mut out), 3);
    }

    #[test]
    fn a_triangle_through_the_camera_never_panics() {
        let mut canvas = Canvas::with_color(camera(), [0, 0, 0, 255]);
        let red = Material::new([255, 0, 0, 255]);
        canvas.triangle(
            [
                DVec3::new(-1.0, -1.0, -1.0),
                DVec3::new(1.0, -1.0, 1.0),
                DVec3::new(0.0, 1.0, 0.0),
            ],
            &red,
        );
        canvas.triangle([DVec3::ZERO, DVec3::ZERO, DVec3::ZERO], &red);
        canvas.triangle([DVec3::NAN, DVec3::X, DVec3::Y], &red);
        canvas.triangle(
            [
                DVec3::new(-1e9, -1e9, 1e-3),
                DVec3::new(1e9, -1e9, 1e-3),
                DVec3::new(0.0, 1e9, 1e-3),
            ],
            &red,
        );
        canvas.segment(
            DVec3::new(0.0, 0.0, -1.0),
            DVec3::new(0.0, 0.0, 5.0),
            2.0,
            [0, 255, 0, 255],
        );
        canvas.marker(
            DVec3::new(0.0, 0.0, 1.0),
            Marker::Cross {
                half_size: 3.0,
                width: 1.0,
            },
            [0, 0, 255, 255],
        );
        let image = canvas.finish();
        assert_eq!(image.rgba.len(), 64 * 48 * 4);
        assert_eq!(image.pixel(31, 23), Some([0, 0, 255, 255]));
    }

    #[test]
    fn shared_edges_are_drawn_once() {
        // Two translucent triangles of one square: no pixel blended twice.
        let mut canvas = Canvas::with_color(camera(), [0, 0, 0, 255]);
        let m = Material::new([255, 255, 255, 128]).with_shading(Shading::Flat);
        let z = 1.0;
        let (a, b, c, d) = (
            DVec3::new(-0.1, -0.1, z),
            DVec3::new(0.1, -0.1, z),
            DVec3::new(0.1, 0.1, z),
            DVec3::new(-0.1, 0.1, z),
        );
        canvas.triangle([a, b, c], &m);
        canvas.triangle([a, c, d], &m);
        let image = canvas.finish();
        let mut seen = std::collections::BTreeSet::new();
        for px in image.rgba.chunks(4) {
            seen.insert(px[0]);
        }
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), vec![0, 128]);
    }
}
