//! What every command prints: JSON pieces shared by the reports, and the
//! aligned text form.

use std::io::Write;
use std::time::Duration;

use armature::geometry::query::FeaturePair;
use armature::{Other, Scene};
use glam::DVec3;
use serde::Serialize;

use crate::Failure;

/// The two members of a pair: a link (`body/link`) and a link or an
/// obstacle.
#[derive(Debug, Serialize)]
pub(crate) struct PairJson {
    /// The moving link.
    pub(crate) a: String,
    /// The other link or the obstacle.
    pub(crate) b: String,
}

impl PairJson {
    /// The names of link `link` and `other` in `scene`.
    pub(crate) fn new(scene: &Scene, link: usize, other: Other) -> Self {
        Self {
            a: scene.link_name(link).unwrap_or("?").to_owned(),
            b: scene.other_name(other).unwrap_or("?").to_owned(),
        }
    }
}

/// One feature of a mesh: a triangle or a vertex by its index in the
/// member's mesh, or an edge by its two vertex indices.
#[derive(Debug, Serialize)]
pub(crate) struct FeatureJson {
    /// The kind of feature (`triangle`, `vertex` or `edge`).
    pub(crate) kind: &'static str,
    /// A triangle's or a vertex's index in the member's mesh.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) index: Option<u32>,
    /// An edge's two vertex indices.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) vertices: Option<[u32; 2]>,
}

impl FeatureJson {
    const fn indexed(kind: &'static str, index: u32) -> Self {
        Self {
            kind,
            index: Some(index),
            vertices: None,
        }
    }

    const fn edge(vertices: [u32; 2]) -> Self {
        Self {
            kind: "edge",
            index: None,
            vertices: Some(vertices),
        }
    }

    /// `triangle 3`, `edge 4-9`.
    fn text(&self) -> String {
        match (self.index, self.vertices) {
            (Some(i), _) => format!("{} {i}", self.kind),
            (None, Some([a, b])) => format!("{} {a}-{b}", self.kind),
            (None, None) => self.kind.to_owned(),
        }
    }
}

/// The features of a pair that realise a contact or a distance.
#[derive(Debug, Serialize)]
pub(crate) struct FeaturesJson {
    /// On the link.
    pub(crate) a: FeatureJson,
    /// On the other member.
    pub(crate) b: FeatureJson,
}

impl FeaturesJson {
    /// Triangle `a` of the link's mesh and triangle `b` of the other's.
    pub(crate) const fn triangles(a: u32, b: u32) -> Self {
        Self {
            a: FeatureJson::indexed("triangle", a),
            b: FeatureJson::indexed("triangle", b),
        }
    }

    /// The elementary features of a contact (the elementary stage's).
    pub(crate) const fn elementary(f: FeaturePair) -> Self {
        match f {
            FeaturePair::VertexFace { vertex, triangle } => Self {
                a: FeatureJson::indexed("vertex", vertex),
                b: FeatureJson::indexed("triangle", triangle),
            },
            FeaturePair::FaceVertex { triangle, vertex } => Self {
                a: FeatureJson::indexed("triangle", triangle),
                b: FeatureJson::indexed("vertex", vertex),
            },
            FeaturePair::EdgeEdge { edge_a, edge_b } => Self {
                a: FeatureJson::edge(edge_a),
                b: FeatureJson::edge(edge_b),
            },
        }
    }

    /// `triangle 3 / triangle 7`, `vertex 2 / triangle 7`.
    pub(crate) fn text(&self) -> String {
        format!("{} / {}", self.a.text(), self.b.text())
    }
}

/// A point or vector as `[x, y, z]`.
pub(crate) const fn xyz(v: DVec3) -> [f64; 3] {
    [v.x, v.y, v.z]
}

/// A duration in milliseconds.
pub(crate) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Writes `value` as one line of JSON.
pub(crate) fn write_json(out: &mut impl Write, value: &impl Serialize) -> Result<(), Failure> {
    serde_json::to_writer(&mut *out, value).map_err(std::io::Error::from)?;
    writeln!(out)?;
    Ok(())
}

/// A number for people: six decimals at most, trailing zeros dropped;
/// scientific notation for very small and very large magnitudes.
pub(crate) fn num(x: f64) -> String {
    let a = x.abs();
    if !x.is_finite() {
        return x.to_string();
    }
    if x != 0.0 && !(1e-4..1e6).contains(&a) {
        return format!("{x:.3e}");
    }
    let s = format!("{x:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_owned()
    } else {
        s.to_owned()
    }
}

/// `(x, y, z)` with [`num`] coordinates.
pub(crate) fn vec3(v: [f64; 3]) -> String {
    format!("({}, {}, {})", num(v[0]), num(v[1]), num(v[2]))
}

/// A configuration as the options take it: comma-separated [`num`]
/// values.
pub(crate) fn configuration(q: &[f64]) -> String {
    q.iter().map(|&x| num(x)).collect::<Vec<_>>().join(",")
}

/// A half-open index range `a..b`.
pub(crate) fn range(r: [usize; 2]) -> String {
    format!("{}..{}", r[0], r[1])
}

/// Rows of cells as aligned text: every column padded to its widest cell
/// (the last one is not padded), each line indented by `indent` spaces.
pub(crate) fn table(rows: &[Vec<String>], indent: usize) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0; columns];
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut text = String::new();
    for row in rows {
        let mut line = " ".repeat(indent);
        for (k, cell) in row.iter().enumerate() {
            if k + 1 == row.len() {
                line.push_str(cell);
            } else {
                let pad = widths[k] - cell.chars().count();
                line.push_str(cell);
                line.push_str(&" ".repeat(pad + 2));
            }
        }
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text
}

/// Two-column `label  value` rows.
pub(crate) fn pairs(rows: &[(&str, String)]) -> String {
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|(k, v)| vec![(*k).to_owned(), v.clone()])
        .collect();
    table(&rows, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_for_people() {
        assert_eq!(num(0.0), "0");
        assert_eq!(num(-0.0), "0");
        assert_eq!(num(0.4375), "0.4375");
        assert_eq!(num(2.0), "2");
        assert_eq!(num(1e-4), "0.0001");
        assert_eq!(num(2e-5), "2.000e-5");
        assert_eq!(num(-2.5), "-2.5");
        assert_eq!(num(f64::INFINITY), "inf");
    }

    #[test]
    fn tables_align_columns() {
        let rows = vec![
            vec!["a".to_owned(), "long".to_owned(), "x".to_owned()],
            vec!["bbb".to_owned(), "s".to_owned(), "y".to_owned()],
        ];
        assert_eq!(table(&rows, 2), "  a    long  x\n  bbb  s     y\n");
    }
}
