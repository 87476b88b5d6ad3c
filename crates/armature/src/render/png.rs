//! PNG in and out: any PNG a camera or an editor writes (grey, grey with
//! alpha, RGB, RGBA or palette; 1 to 16 bits) is read as RGBA8, and
//! [`Image`]s are written as RGBA8. 16-bit samples keep their high byte;
//! images without alpha read as opaque.
//!
//! ```
//! use armature::render::{Image, decode_png, encode_png};
//!
//! let image = Image::new(4, 3, [10, 20, 30, 255]);
//! let bytes = encode_png(&image)?;
//! assert_eq!(decode_png(&bytes)?, image);
//! # Ok::<(), armature::Error>(())
//! ```

use std::path::Path;

use super::raster::Image;
use crate::Error;

/// Decodes a PNG held in memory into RGBA8.
///
/// # Errors
/// [`Error::Image`] (without a file) when the data is not a PNG the codec
/// decodes.
pub fn decode_png(bytes: &[u8]) -> Result<Image, Error> {
    decode(bytes).map_err(|message| Error::Image {
        file: None,
        message,
    })
}

/// Reads a PNG file into RGBA8.
///
/// # Errors
/// [`Error::Io`] when the file cannot be read; [`Error::Image`] naming it
/// when it is not a PNG the codec decodes.
pub fn read_png(path: impl AsRef<Path>) -> Result<Image, Error> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        file: path.to_path_buf(),
        source,
    })?;
    decode(&bytes).map_err(|message| Error::Image {
        file: Some(path.to_path_buf()),
        message,
    })
}

/// Encodes an image as an RGBA8 PNG.
///
/// # Errors
/// [`Error::Image`] when the image's bytes do not match its size or the
/// codec refuses it (a zero side).
pub fn encode_png(image: &Image) -> Result<Vec<u8>, Error> {
    let image_error = |message: String| Error::Image {
        file: None,
        message,
    };
    let expected = image.width as usize * image.height as usize * 4;
    if image.rgba.len() != expected {
        return Err(image_error(format!(
            "{}×{} RGBA pixels need {expected} bytes, the image holds {}",
            image.width,
            image.height,
            image.rgba.len()
        )));
    }
    let mut out = Vec::new();
    {
        let mut encoder = ::png::Encoder::new(&mut out, image.width, image.height);
        encoder.set_color(::png::ColorType::Rgba);
        encoder.set_depth(::png::BitDepth::Eight);
        let mut writer = encoder
            .write_header()
            .map_err(|e| image_error(format!("cannot encode: {e}")))?;
        writer
            .write_image_data(&image.rgba)
            .map_err(|e| image_error(format!("cannot encode: {e}")))?;
        writer
            .finish()
            .map_err(|e| image_error(format!("cannot encode: {e}")))?;
    }
    Ok(out)
}

/// Writes an image as an RGBA8 PNG file.
///
/// # Errors
/// As [`encode_png`], naming the file; [`Error::Io`] when it cannot be
/// written.
pub fn write_png(path: impl AsRef<Path>, image: &Image) -> Result<(), Error> {
    let path = path.as_ref();
    let bytes = encode_png(image).map_err(|e| match e {
        Error::Image { message, .. } => Error::Image {
            file: Some(path.to_path_buf()),
            message,
        },
        other => other,
    })?;
    std::fs::write(path, bytes).map_err(|source| Error::Io {
        file: path.to_path_buf(),
        source,
    })
}

fn decode(bytes: &[u8]) -> Result<Image, String> {
    let mut decoder = ::png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(::png::Transformations::normalize_to_color8());
    let mut reader = decoder
        .read_info()
        .map_err(|e| format!("not a readable PNG: {e}"))?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| "the image is too large to decode in memory".to_owned())?;
    let mut buf = vec![0; size];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|e| format!("not a readable PNG: {e}"))?;
    let channels = match info.color_type {
        ::png::ColorType::Grayscale => 1,
        ::png::ColorType::GrayscaleAlpha => 2,
        ::png::ColorType::Rgb => 3,
        ::png::ColorType::Rgba => 4,
        ::png::ColorType::Indexed => {
            return Err("a palette image was not expanded to colours".to_owned());
        }
    };
    if info.bit_depth != ::png::BitDepth::Eight {
        return Err(format!(
            "samples of {:?} bits were not converted to 8",
            info.bit_depth
        ));
    }
    let (w, h) = (info.width as usize, info.height as usize);
    let line = info.line_size;
    if line < w * channels || buf.len() < line * h {
        return Err("the decoded rows are shorter than the image".to_owned());
    }
    let mut rgba = Vec::with_capacity(w * h * 4);
    for row in buf.chunks(line).take(h) {
        for px in row[..w * channels].chunks(channels) {
            rgba.extend_from_slice(&match *px {
                [g] => [g, g, g, 255],
                [g, a] => [g, g, g, a],
                [r, g, b] => [r, g, b, 255],
                [r, g, b, a] => [r, g, b, a],
                _ => [0, 0, 0, 255],
            });
        }
    }
    Ok(Image {
        width: info.width,
        height: info.height,
        rgba,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PNG of `color` samples written by the codec itself.
    fn png_of(color: ::png::ColorType, depth: ::png::BitDepth, w: u32, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut e = ::png::Encoder::new(&mut out, w, 1);
        e.set_color(color);
        e.set_depth(depth);
        let mut writer = e.write_header().unwrap();
        writer.write_image_data(data).unwrap();
        writer.finish().unwrap();
        out
    }

    #[test]
    fn round_trip_is_exact() {
        let rgba: Vec<u8> = (0..5 * 3 * 4).map(|i| (i * 37 % 256) as u8).collect();
        let image = Image::from_rgba(5, 3, rgba).unwrap();
        let back = decode_png(&encode_png(&image).unwrap()).unwrap();
        assert_eq!(back, image);
    }

    #[test]
    fn grey_rgb_and_16_bit_read_as_rgba8() {
        let grey = png_of(
            ::png::ColorType::Grayscale,
            ::png::BitDepth::Eight,
            2,
            &[10, 200],
        );
        assert_eq!(
            decode_png(&grey).unwrap().rgba,
            vec![10, 10, 10, 255, 200, 200, 200, 255]
        );
        let rgb = png_of(::png::ColorType::Rgb, ::png::BitDepth::Eight, 1, &[1, 2, 3]);
        assert_eq!(decode_png(&rgb).unwrap().rgba, vec![1, 2, 3, 255]);
        let grey_alpha = png_of(
            ::png::ColorType::GrayscaleAlpha,
            ::png::BitDepth::Eight,
            1,
            &[7, 9],
        );
        assert_eq!(decode_png(&grey_alpha).unwrap().rgba, vec![7, 7, 7, 9]);
        let rgb16 = png_of(
            ::png::ColorType::Rgb,
            ::png::BitDepth::Sixteen,
            1,
            &[0x12, 0x34, 0xab, 0xcd, 0xff, 0x00],
        );
        assert_eq!(
            decode_png(&rgb16).unwrap().rgba,
            vec![0x12, 0xab, 0xff, 255]
        );
        let grey1 = png_of(
            ::png::ColorType::Grayscale,
            ::png::BitDepth::One,
            2,
            &[0b1000_0000],
        );
        assert_eq!(
            decode_png(&grey1).unwrap().rgba,
            vec![255, 255, 255, 255, 0, 0, 0, 255]
        );
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(matches!(
            decode_png(b"not a png"),
            Err(Error::Image { file: None, .. })
        ));
        assert!(matches!(decode_png(&[]), Err(Error::Image { .. })));
        let bad = Image {
            width: 2,
            height: 2,
            rgba: vec![0; 3],
        };
        assert!(matches!(encode_png(&bad), Err(Error::Image { .. })));
    }
}
