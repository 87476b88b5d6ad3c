//! Mesh import.
