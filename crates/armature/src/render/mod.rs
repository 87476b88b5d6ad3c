//! Pictures of scenes: a CPU renderer, and camera poses from labelled
//! points to draw over photographs (M3 §IV).
//!
//! **What.** [`SceneView`] draws a [`Scene`] with its bodies at one
//! configuration: obstacles (opaque grey), the links' meshes (opaque or
//! translucent), the links' collision volumes (their hull SSCHs, the
//! volumes M3's monitor sweeps, translucent), any SSCHs in the world frame
//! with a colour (the swept volumes a monitor reports), a highlighted pair
//! (red) and a contact point with its normal. It draws through a pinhole
//! [`Camera`] into an [`Image`], over a plain background or over a camera
//! image — the overlay of M3 Fig. 6, where [`solve_pnp`] first registers
//! the camera from a few labelled pixels.
//!
//! **Pieces.** [`camera`]: intrinsics, the pose convention (world to
//! camera, OpenCV axes: `x` right, `y` down, `z` forward) and
//! projection. [`raster`]: the z-buffered rasterizer with opaque,
//! translucent (sorted back to front) and overlay layers. [`pnp`]:
//! perspective-n-point with Levenberg–Marquardt refinement. [`png`]: PNG
//! files in and out. SSCHs become meshes through
//! [`armature_bvh_geometry::ssch_mesh`](mod@armature_bvh_geometry::ssch_mesh), whose meshes enclose them, so a
//! drawn volume never looks smaller than the one the monitor tests.
//!
//! **Guarantee.** Deterministic: the same scene, configuration and camera
//! give the same bytes. Nothing panics on finite input; geometry behind the
//! camera is clipped, not divided by zero.
//!
//! ```
//! use armature::render::{Camera, SceneView};
//! use armature::Scene;
//!
//! let scene = Scene::from_file("tests/fixtures/single.ron")?;
//! let view = SceneView::new(&scene, &[0.3, -0.5, 0.0])?.with_collision_volumes(true);
//! let camera = view.default_camera(160, 120)?;
//! let image = view.render(&camera, None)?;
//! assert_eq!((image.width, image.height), (160, 120));
//! # Ok::<(), armature::Error>(())
//! ```

pub mod camera;
pub mod png;
pub mod pnp;
pub mod raster;

pub use camera::{Camera, CameraPose};
pub use png::{decode_png, encode_png, read_png, write_png};
pub use pnp::{PnpError, PnpFit, PnpOptions, PnpStart, PointPair, reprojection_errors, solve_pnp};
pub use raster::{Canvas, Image, Marker, Material, Shading};

use armature_bvh_geometry::ssch_mesh::{SschMeshOptions, ssch_mesh};
use armature_bvh_geometry::{GeometryError, TriMesh};
use armature_kinematics::Ssch;
use glam::{DAffine3, DVec3};

use crate::{Error, Other, Scene};

/// How the links' or the obstacles' meshes are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SurfaceStyle {
    /// Opaque (the default).
    #[default]
    Opaque,
    /// Translucent, with [`Palette::translucent_alpha`].
    Translucent,
    /// Not drawn (a highlighted member of the pair still is).
    Hidden,
}

/// The colours of a [`SceneView`] (RGBA).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Palette {
    /// The plain background.
    pub background: [u8; 4],
    /// Obstacles.
    pub obstacle: [u8; 4],
    /// Links.
    pub link: [u8; 4],
    /// Alpha of translucent links and obstacles.
    pub translucent_alpha: u8,
    /// The links' collision volumes.
    pub collision_volume: [u8; 4],
    /// The highlighted pair.
    pub highlight: [u8; 4],
    /// The contact point.
    pub contact_point: [u8; 4],
    /// The contact normal.
    pub contact_normal: [u8; 4],
}

impl Default for Palette {
    fn default() -> Self {
        Self {
            background: [245, 245, 242, 255],
            obstacle: [165, 165, 165, 255],
            link: [90, 130, 200, 255],
            translucent_alpha: 110,
            collision_volume: [255, 165, 40, 90],
            highlight: [220, 30, 30, 255],
            contact_point: [255, 225, 0, 255],
            contact_normal: [0, 170, 60, 255],
        }
    }
}

/// A scene at one configuration, ready to draw (see the
/// [module docs](self)).
#[derive(Clone, Debug)]
pub struct SceneView<'a> {
    scene: &'a Scene,
    poses: Vec<DAffine3>,
    time: f64,
    links: SurfaceStyle,
    obstacles: SurfaceStyle,
    collision_volumes: bool,
    swept: Vec<(Ssch, [u8; 4])>,
    highlight: Option<(usize, Other)>,
    contact: Option<(DVec3, DVec3)>,
    palette: Palette,
    subdivisions: u32,
}

impl<'a> SceneView<'a> {
    /// The scene with its bodies at `q`: obstacles and opaque links, no
    /// volumes.
    ///
    /// # Errors
    /// [`Error::Configuration`] naming `q` for a wrong length or a value
    /// that is not finite; [`Error::Kinematics`] when forward kinematics
    /// fails.
    pub fn new(scene: &'a Scene, q: &[f64]) -> Result<Self, Error> {
        scene.check_configuration("q", q)?;
        let poses = scene
            .body()
            .tree()
            .poses(q)
            .map_err(|e| Error::kinematics("link poses of the view", e))?;
        Ok(Self {
            scene,
            poses,
            time: 0.0,
            links: SurfaceStyle::Opaque,
            obstacles: SurfaceStyle::Opaque,
            collision_volumes: false,
            swept: Vec::new(),
            highlight: None,
            contact: None,
            palette: Palette::default(),
            subdivisions: SschMeshOptions::default().subdivisions,
        })
    }

    /// The time in `[0, 1]` at which moving obstacles are drawn (default
    /// 0; clamped).
    #[must_use]
    pub fn with_time(mut self, t: f64) -> Self {
        self.time = if t.is_finite() {
            t.clamp(0.0, 1.0)
        } else {
            0.0
        };
        self
    }

    /// How the links' meshes are drawn (default: opaque).
    #[must_use]
    pub fn with_links(mut self, style: SurfaceStyle) -> Self {
        self.links = style;
        self
    }

    /// How the obstacles are drawn (default: opaque; translucent lets a
    /// contact deep in clutter be seen, and an overlay over a photograph
    /// leaves them to the photograph).
    #[must_use]
    pub fn with_obstacles(mut self, style: SurfaceStyle) -> Self {
        self.obstacles = style;
        self
    }

    /// Whether the links' collision volumes (hull SSCHs) are drawn,
    /// translucent.
    #[must_use]
    pub fn with_collision_volumes(mut self, draw: bool) -> Self {
        self.collision_volumes = draw;
        self
    }

    /// SSCHs in the world frame to draw translucent, each with its colour
    /// (the alpha sets how translucent), such as swept volumes.
    #[must_use]
    pub fn with_swept_volumes(mut self, volumes: &[(Ssch, [u8; 4])]) -> Self {
        self.swept = volumes.to_vec();
        self
    }

    /// A pair to draw in the highlight colour: link `link` and `other`
    /// (a link or an obstacle), such as the pair of a contact.
    #[must_use]
    pub fn with_highlight(mut self, link: usize, other: Other) -> Self {
        self.highlight = Some((link, other));
        self
    }

    /// A contact to mark: a disc at `point` and a line along `normal`
    /// (world frame).
    #[must_use]
    pub fn with_contact(mut self, point: DVec3, normal: DVec3) -> Self {
        self.contact = Some((point, normal));
        self
    }

    /// The colours.
    #[must_use]
    pub fn with_palette(mut self, palette: Palette) -> Self {
        self.palette = palette;
        self
    }

    /// Subdivisions of the SSCH meshes ([`SschMeshOptions::subdivisions`],
    /// default 2).
    #[must_use]
    pub fn with_subdivisions(mut self, subdivisions: u32) -> Self {
        self.subdivisions = subdivisions;
        self
    }

    /// The world poses of the links at the view's configuration.
    #[must_use]
    pub fn link_poses(&self) -> &[DAffine3] {
        &self.poses
    }

    /// A world box around everything the view draws, `None` when it draws
    /// nothing.
    #[must_use]
    pub fn bounds(&self) -> Option<(DVec3, DVec3)> {
        let mut lo = DVec3::INFINITY;
        let mut hi = DVec3::NEG_INFINITY;
        let mut add_mesh = |mesh: &TriMesh, pose: &DAffine3| {
            for &v in mesh.vertices() {
                let w = pose.transform_point3(v);
                lo = lo.min(w);
                hi = hi.max(w);
            }
        };
        for (i, g) in self.scene.body().links().iter().enumerate() {
            if let Some(g) = g {
                add_mesh(&g.mesh, &self.poses[i]);
            }
        }
        if self.obstacles != SurfaceStyle::Hidden {
            for o in self.scene.obstacles() {
                add_mesh(&o.geometry().mesh, &o.pose_at(self.time));
            }
        }
        for (s, _) in &self.swept {
            let (c, r) = s.bounding_sphere();
            lo = lo.min(c - r);
            hi = hi.max(c + r);
        }
        (lo.is_finite() && hi.is_finite()).then_some((lo, hi))
    }

    /// A camera of `width × height` pixels framing [`SceneView::bounds`]
    /// ([`Camera::framing`]); a unit box about the origin when the view
    /// draws nothing.
    ///
    /// # Errors
    /// As [`Camera::framing`].
    pub fn default_camera(&self, width: u32, height: u32) -> Result<Camera, Error> {
        let (lo, hi) = self
            .bounds()
            .unwrap_or((DVec3::splat(-0.5), DVec3::splat(0.5)));
        Camera::framing(lo, hi, width, height)
    }

    /// Renders the view through `camera` over `background` (an image of
    /// the camera's size), or over the palette's plain background.
    ///
    /// # Errors
    /// [`Error::Image`] for a background of another size;
    /// [`Error::Geometry`] naming the link or volume whose SSCH cannot be
    /// meshed.
    pub fn render(&self, camera: &Camera, background: Option<Image>) -> Result<Image, Error> {
        let mut canvas = match background {
            Some(image) => Canvas::new(*camera, image)?,
            None => Canvas::with_color(*camera, self.palette.background),
        };
        self.draw(&mut canvas)?;
        Ok(canvas.finish())
    }

    /// Draws the view onto `canvas` (more can be drawn before
    /// [`Canvas::finish`]).
    ///
    /// # Errors
    /// As [`SceneView::render`].
    pub fn draw(&self, canvas: &mut Canvas) -> Result<(), Error> {
        let p = &self.palette;
        let (link_hl, other_hl) = match self.highlight {
            Some((l, o)) => (Some(l), Some(o)),
            None => (None, None),
        };
        let is_highlighted = |i: usize| link_hl == Some(i) || other_hl == Some(Other::Link(i));
        // Thin or flat volumes get a thickness of 0.2 % of the scene.
        let min_radius = self
            .bounds()
            .map_or(1e-3, |(lo, hi)| 2e-3 * (hi - lo).length())
            .max(f64::MIN_POSITIVE);
        let alpha = p.translucent_alpha;
        let material = |style: SurfaceStyle, lit: bool, color: [u8; 4]| {
            let color = if lit { p.highlight } else { color };
            match style {
                SurfaceStyle::Translucent => {
                    Some(Material::new([color[0], color[1], color[2], alpha]))
                }
                SurfaceStyle::Hidden if !lit => None,
                _ => Some(Material::new(color)),
            }
        };
        for (k, o) in self.scene.obstacles().iter().enumerate() {
            let lit = other_hl == Some(Other::Obstacle(k));
            if let Some(m) = material(self.obstacles, lit, p.obstacle) {
                canvas.mesh(&o.geometry().mesh, &o.pose_at(self.time), &m);
            }
        }
        for (i, g) in self.scene.body().links().iter().enumerate() {
            let Some(g) = g else { continue };
            if let Some(m) = material(self.links, is_highlighted(i), p.link) {
                canvas.mesh(&g.mesh, &self.poses[i], &m);
            }
        }
        let options = SschMeshOptions::default()
            .with_subdivisions(self.subdivisions)
            .with_min_radius(min_radius);
        let volume = |c: [u8; 4]| Material::new(c).with_cull_back_faces(true);
        if self.collision_volumes {
            let sschs = self
                .scene
                .body()
                .link_sschs()
                .map_err(|e| Error::geometry("collision volumes of the view", e))?;
            for (i, s) in sschs.iter().enumerate() {
                let Some(s) = s else { continue };
                let meshed = ssch_mesh(s, &options).map_err(|e| {
                    Error::geometry(
                        "collision volumes of the view",
                        link_error(self.scene, i, e),
                    )
                })?;
                canvas.mesh(&meshed.mesh, &self.poses[i], &volume(p.collision_volume));
            }
        }
        for (k, (s, color)) in self.swept.iter().enumerate() {
            let meshed = ssch_mesh(s, &options)
                .map_err(|e| Error::geometry(format!("swept volume {k} of the view"), e))?;
            canvas.mesh(&meshed.mesh, &DAffine3::IDENTITY, &volume(*color));
        }
        if let Some((point, normal)) = self.contact {
            let camera = *canvas.camera();
            let depth = camera.to_camera(point).z;
            if depth > camera.near {
                // About 60 pixels long, whatever the distance.
                let length = 60.0 * depth / camera.fx;
                let n = normal.try_normalize().unwrap_or(DVec3::ZERO);
                canvas.segment(point, point + n * length, 3.0, p.contact_normal);
            }
            canvas.marker(point, Marker::Disc { radius: 6.0 }, [0, 0, 0, 255]);
            canvas.marker(point, Marker::Disc { radius: 4.5 }, p.contact_point);
        }
        Ok(())
    }
}

/// A geometry error of link `i`, named.
fn link_error(scene: &Scene, i: usize, e: GeometryError) -> GeometryError {
    GeometryError::LinkGeometry {
        link: scene.link_name(i).unwrap_or("?").to_owned(),
        source: Box::new(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scene() -> Scene {
        Scene::from_file(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/single.ron"),
        )
        .unwrap()
    }

    #[test]
    fn views_are_deterministic_and_draw_something() {
        let scene = scene();
        let view = SceneView::new(&scene, &[0.3, -0.5, 0.0])
            .unwrap()
            .with_collision_volumes(true)
            .with_highlight(2, Other::Obstacle(0))
            .with_contact(DVec3::new(0.5, 0.0, 0.5), DVec3::Z);
        let camera = view.default_camera(120, 90).unwrap();
        let a = view.render(&camera, None).unwrap();
        let b = view.render(&camera, None).unwrap();
        assert_eq!(a, b);
        let background = Palette::default().background;
        let drawn = a.rgba.chunks(4).filter(|px| *px != background).count();
        assert!(drawn > 120 * 90 / 20, "{drawn} pixels drawn");
        let red = a
            .rgba
            .chunks(4)
            .filter(|px| px[0] > 120 && px[1] < 40 && px[2] < 40)
            .count();
        assert!(red > 0, "the highlighted pair is red");
    }

    #[test]
    fn a_wrong_configuration_is_named() {
        let scene = scene();
        let e = SceneView::new(&scene, &[0.0]).unwrap_err();
        assert!(matches!(e, Error::Configuration { ref which, .. } if which == "q"));
        let view = SceneView::new(&scene, &[0.0; 3]).unwrap();
        let camera = view.default_camera(10, 10).unwrap();
        let e = view
            .render(&camera, Some(Image::new(5, 5, [0; 4])))
            .unwrap_err();
        assert!(matches!(e, Error::Image { file: None, .. }));
    }
}
