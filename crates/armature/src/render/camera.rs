//! Pinhole cameras: intrinsics, a rigid pose, projection.
//!
//! Frames and conventions (those of OpenCV, so intrinsics calibrated there
//! carry over):
//!
//! - *Camera frame*: `x` to the right of the image, `y` down, `z` along the
//!   viewing direction; a point is in front of the camera when `z > 0`.
//! - *Pose*: [`CameraPose`] is the rigid transform **from world to camera
//!   coordinates**, `x_c = R·x_w + t`. Its inverse places the camera in the
//!   world: [`CameraPose::position`] and [`CameraPose::orientation`], built
//!   back with [`CameraPose::from_position_orientation`].
//! - *Pixels*: `u = fx·x/z + cx` to the right, `v = fy·y/z + cy` down, in
//!   pixels; pixel `(i, j)` (column, row) has its centre at `(i, j)`, so
//!   the image spans `[-0.5, width − 0.5] × [-0.5, height − 0.5]` and a
//!   labelled pixel index is the projection itself.
//!
//! ```
//! use armature::render::Camera;
//! use glam::DVec3;
//!
//! // 640×480 pixels, 60° across, at (2, 0, 1) looking at (0, 0, 1).
//! let camera = Camera::look_at(
//!     DVec3::new(2.0, 0.0, 1.0), DVec3::new(0.0, 0.0, 1.0), DVec3::Z,
//!     60f64.to_radians(), 640, 480,
//! )?;
//! // The target is at the image centre; a point above it, higher up.
//! let centre = camera.project(DVec3::new(0.0, 0.0, 1.0)).unwrap();
//! assert!((centre.x - 319.5).abs() < 1e-9 && (centre.y - 239.5).abs() < 1e-9);
//! assert!(camera.project(DVec3::new(0.0, 0.0, 1.2)).unwrap().y < centre.y);
//! // Behind the camera: no pixel.
//! assert!(camera.project(DVec3::new(3.0, 0.0, 1.0)).is_none());
//! # Ok::<(), armature::Error>(())
//! ```

use glam::{DAffine3, DMat3, DQuat, DVec2, DVec3};

use crate::Error;

/// A rigid transform from world to camera coordinates: `x_c = R·x_w + t`
/// (see the [module docs](self)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraPose {
    /// The rotation `R` (unit quaternion).
    pub rotation: DQuat,
    /// The translation `t`.
    pub translation: DVec3,
}

impl Default for CameraPose {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl CameraPose {
    /// The camera at the world origin, looking along the world's `z`.
    pub const IDENTITY: Self = Self {
        rotation: DQuat::IDENTITY,
        translation: DVec3::ZERO,
    };

    /// The pose of a camera placed at `position` in the world with its
    /// axes (`x` right, `y` down, `z` forward) rotated by `orientation`
    /// from the world's (camera to world).
    #[must_use]
    pub fn from_position_orientation(position: DVec3, orientation: DQuat) -> Self {
        let rotation = orientation.inverse();
        Self {
            rotation,
            translation: -(rotation * position),
        }
    }

    /// The camera's position in the world (`−Rᵀ t`).
    #[must_use]
    pub fn position(&self) -> DVec3 {
        -(self.rotation.inverse() * self.translation)
    }

    /// The camera's orientation in the world (`Rᵀ`, camera to world).
    #[must_use]
    pub fn orientation(&self) -> DQuat {
        self.rotation.inverse()
    }

    /// The world point `p` in camera coordinates.
    #[must_use]
    pub fn transform_point(&self, p: DVec3) -> DVec3 {
        self.rotation * p + self.translation
    }

    /// The transform as an affine map, world to camera.
    #[must_use]
    pub fn world_to_camera(&self) -> DAffine3 {
        DAffine3::from_rotation_translation(self.rotation, self.translation)
    }

    /// The inverse transform, camera to world.
    #[must_use]
    pub fn camera_to_world(&self) -> DAffine3 {
        DAffine3::from_rotation_translation(self.orientation(), self.position())
    }

    /// Whether the rotation and translation are finite and the rotation is
    /// a unit quaternion (to `1e-6`).
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.rotation.is_finite()
            && self.translation.is_finite()
            && (self.rotation.length() - 1.0).abs() <= 1e-6
    }
}

/// A pinhole camera: image size, focal lengths and principal point in
/// pixels, and a [`CameraPose`] (world to camera); see the
/// [module docs](self) for the frames.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// Image width in pixels.
    pub width: u32,
    /// Image height in pixels.
    pub height: u32,
    /// Horizontal focal length in pixels.
    pub fx: f64,
    /// Vertical focal length in pixels.
    pub fy: f64,
    /// Principal point, column.
    pub cx: f64,
    /// Principal point, row.
    pub cy: f64,
    /// World to camera.
    pub pose: CameraPose,
    /// Near plane: geometry closer than this along the viewing direction
    /// is clipped (scene units, positive; the constructors set a small
    /// fraction of the viewing distance, or `1e-3`).
    pub near: f64,
}

impl Camera {
    /// The default horizontal field of view of [`Camera::framing`]: 50°.
    pub const DEFAULT_FOV: f64 = 50.0 * std::f64::consts::PI / 180.0;

    /// A camera of `width × height` pixels with square pixels, the
    /// principal point at the image centre and a horizontal field of view
    /// `hfov` (radians), at the identity pose.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] for a zero size (`width`, `height`) or a
    /// field of view outside `(0, π)` (`fov`).
    pub fn from_fov(width: u32, height: u32, hfov: f64) -> Result<Self, Error> {
        check_size(width, height)?;
        if !(hfov > 0.0 && hfov < std::f64::consts::PI) {
            return Err(Error::InvalidOption {
                name: "fov",
                value: hfov,
                why: "the horizontal field of view must lie in (0, π) radians",
            });
        }
        let f = f64::from(width) / 2.0 / (hfov / 2.0).tan();
        Ok(Self {
            width,
            height,
            fx: f,
            fy: f,
            cx: (f64::from(width) - 1.0) / 2.0,
            cy: (f64::from(height) - 1.0) / 2.0,
            pose: CameraPose::IDENTITY,
            near: 1e-3,
        })
    }

    /// A camera with the given intrinsics at the identity pose.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] naming `width`, `height`, `fx`, `fy`, `cx`
    /// or `cy` for a zero size, a focal length that is not finite and
    /// positive or a principal point that is not finite.
    pub fn from_intrinsics(
        width: u32,
        height: u32,
        [fx, fy, cx, cy]: [f64; 4],
    ) -> Result<Self, Error> {
        check_size(width, height)?;
        for (name, value) in [("fx", fx), ("fy", fy)] {
            if !(value.is_finite() && value > 0.0) {
                return Err(Error::InvalidOption {
                    name,
                    value,
                    why: "a focal length must be finite and positive (pixels)",
                });
            }
        }
        for (name, value) in [("cx", cx), ("cy", cy)] {
            if !value.is_finite() {
                return Err(Error::InvalidOption {
                    name,
                    value,
                    why: "the principal point must be finite (pixels)",
                });
            }
        }
        Ok(Self {
            width,
            height,
            fx,
            fy,
            cx,
            cy,
            pose: CameraPose::IDENTITY,
            near: 1e-3,
        })
    }

    /// A camera at `eye` looking at `target`, `up` pointing up in the
    /// image, with a horizontal field of view `hfov` (radians).
    ///
    /// # Errors
    /// As [`Camera::from_fov`], and [`Error::InvalidOption`] naming `eye`
    /// when `eye` and `target` are not finite or coincide, `up` when it is
    /// not finite or parallel to the viewing direction.
    pub fn look_at(
        eye: DVec3,
        target: DVec3,
        up: DVec3,
        hfov: f64,
        width: u32,
        height: u32,
    ) -> Result<Self, Error> {
        let mut camera = Self::from_fov(width, height, hfov)?;
        camera.pose = look_at_pose(eye, target, up)?;
        camera.near = (1e-3 * eye.distance(target)).max(1e-9);
        Ok(camera)
    }

    /// A camera of `width × height` pixels with [`Camera::DEFAULT_FOV`] that
    /// shows the whole box `[lo, hi]` (world frame, `z` up), seen from the
    /// front right and above.
    ///
    /// # Errors
    /// As [`Camera::from_fov`], and [`Error::InvalidOption`] naming `bounds`
    /// for a box that is not finite or whose `lo` exceeds `hi`.
    pub fn framing(lo: DVec3, hi: DVec3, width: u32, height: u32) -> Result<Self, Error> {
        if !(lo.is_finite() && hi.is_finite() && lo.cmple(hi).all()) {
            return Err(Error::InvalidOption {
                name: "bounds",
                value: f64::NAN,
                why: "the box to frame must be finite and non-empty",
            });
        }
        check_size(width, height)?;
        let centre = (lo + hi) / 2.0;
        let radius = ((hi - lo).length() / 2.0).max(1e-6);
        let dir = DVec3::new(1.0, -1.4, 0.8).normalize();
        let mut camera = Self::look_at(
            centre + dir,
            centre,
            DVec3::Z,
            Self::DEFAULT_FOV,
            width,
            height,
        )?;
        // Back off along the viewing direction until every corner is
        // within 95 % of the half-image: a corner at (x, y, δ) from the
        // centre in camera axes needs |x| ≤ k (d + δ), k the half-image
        // in normalised coordinates.
        let kx = 0.95 * (f64::from(width) / 2.0) / camera.fx;
        let ky = 0.95 * (f64::from(height) / 2.0) / camera.fy;
        let axes = camera.pose.rotation;
        let mut distance = radius * 1e-3;
        for i in 0..8 {
            let corner = DVec3::new(
                if i & 1 == 0 { lo.x } else { hi.x },
                if i & 2 == 0 { lo.y } else { hi.y },
                if i & 4 == 0 { lo.z } else { hi.z },
            );
            let c = axes * (corner - centre);
            distance = distance.max(c.x.abs() / kx - c.z).max(c.y.abs() / ky - c.z);
        }
        // Never inside the box's sphere.
        let distance = distance.max(radius * 1.01);
        camera.pose = look_at_pose(centre - camera.forward() * distance, centre, DVec3::Z)?;
        camera.near = (1e-3 * radius).max(1e-9);
        Ok(camera)
    }

    /// The camera with another pose.
    #[must_use]
    pub fn with_pose(mut self, pose: CameraPose) -> Self {
        self.pose = pose;
        self
    }

    /// The world point `p` in camera coordinates.
    #[must_use]
    pub fn to_camera(&self, p: DVec3) -> DVec3 {
        self.pose.transform_point(p)
    }

    /// The pixel of a point in camera coordinates, `None` unless it lies
    /// at least [`Camera::near`] in front of the camera.
    #[must_use]
    pub fn project_camera_point(&self, c: DVec3) -> Option<DVec2> {
        // `z > 0` as well: a near plane set to 0 must not divide by zero.
        if c.z >= self.near && c.z > 0.0 && c.is_finite() {
            Some(DVec2::new(
                self.fx * c.x / c.z + self.cx,
                self.fy * c.y / c.z + self.cy,
            ))
        } else {
            None
        }
    }

    /// The pixel of the world point `p` (see the [module docs](self)),
    /// `None` unless it lies at least [`Camera::near`] in front of the
    /// camera. The pixel may lie outside the image.
    #[must_use]
    pub fn project(&self, p: DVec3) -> Option<DVec2> {
        self.project_camera_point(self.to_camera(p))
    }

    /// Whether `pixel` lies inside the image.
    #[must_use]
    pub fn in_image(&self, pixel: DVec2) -> bool {
        pixel.x >= -0.5
            && pixel.y >= -0.5
            && pixel.x < f64::from(self.width) - 0.5
            && pixel.y < f64::from(self.height) - 0.5
    }

    /// The viewing direction in the world (the camera's `z` axis).
    #[must_use]
    pub fn forward(&self) -> DVec3 {
        self.pose.orientation() * DVec3::Z
    }
}

fn check_size(width: u32, height: u32) -> Result<(), Error> {
    for (name, value) in [("width", width), ("height", height)] {
        if value == 0 || value > 1 << 15 {
            return Err(Error::InvalidOption {
                name,
                value: f64::from(value),
                why: "an image side must be between 1 and 32768 pixels",
            });
        }
    }
    Ok(())
}

/// The pose of a camera at `eye` looking at `target` with `up` up in the
/// image.
pub(crate) fn look_at_pose(eye: DVec3, target: DVec3, up: DVec3) -> Result<CameraPose, Error> {
    let forward = target - eye;
    if !(eye.is_finite() && target.is_finite()) || forward.length_squared() == 0.0 {
        return Err(Error::InvalidOption {
            name: "eye",
            value: forward.length(),
            why: "the eye and the target must be finite and apart",
        });
    }
    let z = forward.normalize();
    let right = z.cross(up);
    if !up.is_finite() || right.length() <= 1e-9 * up.length() || right.length() == 0.0 {
        return Err(Error::InvalidOption {
            name: "up",
            value: up.length(),
            why: "the up vector must be finite and not parallel to the viewing direction",
        });
    }
    let x = right.normalize();
    let y = z.cross(x);
    let orientation = DQuat::from_mat3(&DMat3::from_cols(x, y, z)).normalize();
    Ok(CameraPose::from_position_orientation(eye, orientation))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_at_centres_the_target() {
        let target = DVec3::new(0.3, -0.2, 0.5);
        let c =
            Camera::look_at(DVec3::new(2.0, 1.0, 1.5), target, DVec3::Z, 1.0, 640, 480).unwrap();
        let p = c.project(target).unwrap();
        assert!(
            (p.x - 319.5).abs() < 1e-9 && (p.y - 239.5).abs() < 1e-9,
            "{p}"
        );
        // World up is image up (smaller row).
        let above = c.project(target + DVec3::Z * 0.1).unwrap();
        assert!(above.y < p.y);
        assert!((c.pose.position() - DVec3::new(2.0, 1.0, 1.5)).length() < 1e-12);
        assert!((c.forward() - (target - DVec3::new(2.0, 1.0, 1.5)).normalize()).length() < 1e-12);
        // Behind the camera: no pixel.
        assert!(c.project(DVec3::new(4.0, 3.0, 2.5)).is_none());
    }

    #[test]
    fn framing_shows_every_corner() {
        let (lo, hi) = (DVec3::new(-1.0, -0.5, 0.0), DVec3::new(1.0, 2.0, 1.2));
        let c = Camera::framing(lo, hi, 320, 200).unwrap();
        for i in 0..8 {
            let corner = DVec3::new(
                if i & 1 == 0 { lo.x } else { hi.x },
                if i & 2 == 0 { lo.y } else { hi.y },
                if i & 4 == 0 { lo.z } else { hi.z },
            );
            let p = c.project(corner).unwrap();
            assert!(c.in_image(p), "{corner} at {p}");
        }
    }

    #[test]
    fn bad_parameters_are_named() {
        let e = Camera::look_at(DVec3::ONE, DVec3::ONE, DVec3::Z, 1.0, 10, 10).unwrap_err();
        assert!(matches!(e, Error::InvalidOption { name: "eye", .. }));
        let e = Camera::look_at(DVec3::ZERO, DVec3::Z, DVec3::Z, 1.0, 10, 10).unwrap_err();
        assert!(matches!(e, Error::InvalidOption { name: "up", .. }));
        let e = Camera::from_fov(0, 10, 1.0).unwrap_err();
        assert!(matches!(e, Error::InvalidOption { name: "width", .. }));
        let e = Camera::from_intrinsics(10, 10, [f64::NAN, 1.0, 0.0, 0.0]).unwrap_err();
        assert!(matches!(e, Error::InvalidOption { name: "fx", .. }));
        let pose = CameraPose::from_position_orientation(DVec3::X, DQuat::from_rotation_y(0.4));
        assert!((pose.position() - DVec3::X).length() < 1e-15);
        let back = pose.camera_to_world() * pose.world_to_camera();
        assert!(back.abs_diff_eq(DAffine3::IDENTITY, 1e-12));
    }
}
