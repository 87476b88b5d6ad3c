//! Primitive CCD of linearly moving points, edges and triangles.
