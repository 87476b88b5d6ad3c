// CULLIDE's conservative raster: every triangle is drawn as a screen-aligned
// quad around its projection, each fragment keeps itself only when the
// pixel may hold a point of the dilated triangle, and it writes a depth that
// bounds the depths of those points from below (writing draws, `fs_min`) or
// from above (query draws, `fs_max`). The soundness argument is written out
// on the Rust side (`gpu.rs`); the comments here name the terms.
//
// Units: "view units" q = (stored + shift) / s, with s the half-size of the
// round's bounding box along its longest side (isotropic: distances and
// depth slopes are the same as in world units up to the factor s). The view
// maps q_u and q_v to NDC through 1 / h_u and 1 / h_v, and q_w to the depth
// q_w * k_w + 1/2.

struct View {
    // xyz: stored frame origin minus the view centre (world units);
    // w: 1 / s.
    shift: vec4<f32>,
    // x: 1 / h_u, y: 1 / h_v, z: k_w, w: resolution in pixels.
    ndc: vec4<f32>,
    // x: h_u, y: h_v, z: pixel half-diagonal, w: position error bound of
    // the stored frame (all in view units).
    pixel: vec4<f32>,
    // x: absolute slack for the f32 arithmetic here (view units);
    // y: relative allowance on the dilation; z: the far clamp of query
    // depths; w: relative allowance for the f32 arithmetic here (times the
    // magnitude of the numbers involved).
    misc: vec4<f32>,
    // x: the view axis (0: X, 1: Y, 2: Z).
    axis: vec4<u32>,
}

// One triangle: three corners (xyz, stored frame); `a.w` is the owning
// object's dilation (world units), `b.w` the set of axes whose depth plane
// is usable (bit i for axis i). `g01` holds the depth gradient (d w / d u,
// d w / d v) for axes 0 and 1, `g2.xy` for axis 2.
struct Tri {
    a: vec4<f32>,
    b: vec4<f32>,
    c: vec4<f32>,
    g01: vec4<f32>,
    g2: vec4<f32>,
}

@group(0) @binding(0) var<uniform> view: View;
@group(0) @binding(1) var<storage, read> tris: array<Tri>;

struct VsOut {
    @builtin(position) pos: vec4<f32>,
    // Projected corners: (u, v, w) in view units; `pa.w` is the dilation
    // R' (view units, stored-frame error included).
    @location(0) @interpolate(flat) pa: vec4<f32>,
    // `pb.w`, `pc.w`: the depth gradient (d w / d u, d w / d v).
    @location(1) @interpolate(flat) pb: vec4<f32>,
    @location(2) @interpolate(flat) pc: vec4<f32>,
    // x: 1 when the depth plane is usable, else 0; y: the largest
    // magnitude of the projected corners' coordinates.
    @location(3) @interpolate(flat) plane: vec4<f32>,
}

// Bound on the rounding of this file's computations on numbers of at most
// `magnitude` (view units): the absolute slack plus a relative part, so that
// triangles reaching far outside the view box (whose coordinates are large)
// stay covered.
fn tolerance(magnitude: f32) -> f32 {
    return view.misc.x + view.misc.w * magnitude;
}

// The corner in view units, reordered to (u, v, w) for the view axis:
// X looks along x with (u, v) = (y, z), Y along y with (z, x), Z along z
// with (x, y).
fn project(p: vec3<f32>) -> vec3<f32> {
    let q = (p + view.shift.xyz) * view.shift.w;
    switch view.axis.x {
        case 0u: {
            return q.yzx;
        }
        case 1u: {
            return q.zxy;
        }
        default: {
            return q;
        }
    }
}

@vertex
fn vs_main(@builtin(vertex_index) index: u32) -> VsOut {
    let t = tris[index / 4u];
    let corner = index % 4u;
    let pa = project(t.a.xyz);
    let pb = project(t.b.xyz);
    let pc = project(t.c.xyz);
    let dilation = t.a.w * view.shift.w * view.misc.y + view.pixel.w;
    let m3 = max(max(abs(pa), abs(pb)), abs(pc));
    let magnitude = max(max(m3.x, m3.y), m3.z);
    // The quad: the projection's bounding box grown by the reach
    // R' + pixel half-diagonal, plus twice the rounding tolerance so that a
    // pixel centre within the reach is strictly inside.
    let grow = dilation + view.pixel.z + 2.0 * tolerance(magnitude);
    let lo = min(min(pa.xy, pb.xy), pc.xy) - vec2<f32>(grow);
    let hi = max(max(pa.xy, pb.xy), pc.xy) + vec2<f32>(grow);
    // Corners 0 to 3: (lo,lo) (hi,lo) (lo,hi) (hi,hi); the index buffer joins
    // them into two triangles.
    let right = (corner & 1u) != 0u;
    let top = (corner & 2u) != 0u;
    let q = vec2<f32>(select(lo.x, hi.x, right), select(lo.y, hi.y, top));

    var g = t.g2.xy;
    if view.axis.x == 0u {
        g = t.g01.xy;
    } else if view.axis.x == 1u {
        g = t.g01.zw;
    }
    let mask = u32(t.b.w);
    let usable = (mask >> view.axis.x) & 1u;

    var out: VsOut;
    out.pos = vec4<f32>(q * view.ndc.xy, 0.5, 1.0);
    out.pa = vec4<f32>(pa, dilation);
    out.pb = vec4<f32>(pb, g.x);
    out.pc = vec4<f32>(pc, g.y);
    out.plane = vec4<f32>(f32(usable), magnitude, 0.0, 0.0);
    return out;
}

// Squared distance from `p` to the segment [a, b] (a point when a = b).
fn segment_dist2(p: vec2<f32>, a: vec2<f32>, b: vec2<f32>) -> f32 {
    let e = b - a;
    let ee = dot(e, e);
    var s = 0.0;
    if ee > 1e-30 {
        s = clamp(dot(p - a, e) / ee, 0.0, 1.0);
    }
    let d = p - (a + s * e);
    return dot(d, d);
}

// Squared distance from `p` to the 2D triangle (a, b, c), degenerate ones
// included: the inside test runs only when twice the area exceeds 1e-7
// times the squared longest edge (a thinner triangle is within a tiny
// fraction of that edge of its boundary, so its segments alone decide).
fn triangle_dist2(p: vec2<f32>, a: vec2<f32>, b: vec2<f32>, c: vec2<f32>) -> f32 {
    let ab = b - a;
    let bc = c - b;
    let ca = a - c;
    let area2 = ab.x * (c.y - a.y) - ab.y * (c.x - a.x);
    let longest = max(max(dot(ab, ab), dot(bc, bc)), dot(ca, ca));
    if abs(area2) > 1e-7 * longest {
        let e0 = ab.x * (p.y - a.y) - ab.y * (p.x - a.x);
        let e1 = bc.x * (p.y - b.y) - bc.y * (p.x - b.x);
        let e2 = ca.x * (p.y - c.y) - ca.y * (p.x - c.x);
        let inside = (e0 >= 0.0 && e1 >= 0.0 && e2 >= 0.0)
            || (e0 <= 0.0 && e1 <= 0.0 && e2 <= 0.0);
        if inside {
            return 0.0;
        }
    }
    return min(min(segment_dist2(p, a, b), segment_dist2(p, b, c)), segment_dist2(p, c, a));
}

// The depth range (view units) that holds every point of the dilated
// triangle seen through this pixel, and whether the pixel may see one at
// all (`keep`; the callers discard the fragment otherwise).
struct Span {
    lo: f32,
    hi: f32,
    keep: bool,
}

fn span(v: VsOut) -> Span {
    let frag = v.pos;
    let res = view.ndc.w;
    // The pixel centre in view units (framebuffer y points down).
    let centre = vec2<f32>(
        (frag.x * (2.0 / res) - 1.0) * view.pixel.x,
        (1.0 - frag.y * (2.0 / res)) * view.pixel.y,
    );
    let dilation = v.pa.w;
    let slack = tolerance(v.plane.y + max(abs(centre.x), abs(centre.y)));
    // ρ': how far from the pixel centre a relevant point of the triangle's
    // projection may be: the dilation plus the pixel half-diagonal.
    let reach = dilation + view.pixel.z;
    let limit = reach + slack;
    var out: Span;
    out.keep = triangle_dist2(centre, v.pa.xy, v.pb.xy, v.pc.xy) <= limit * limit;
    var lo = min(min(v.pa.z, v.pb.z), v.pc.z);
    var hi = max(max(v.pa.z, v.pb.z), v.pc.z);
    if v.plane.x > 0.5 {
        let g = vec2<f32>(v.pb.w, v.pc.w);
        let gn = length(g) * (1.0 + view.misc.w);
        let d = centre - v.pa.xy;
        let at = v.pa.z + dot(g, d);
        // |g| ρ' bounds the change of depth over the relevant part of the
        // plane; 2 ε (1 + |g|) covers the stored-frame error of the corners
        // (the gradient belongs to the exact triangle); the last term the
        // rounding of this evaluation.
        let eps = view.pixel.w;
        let rounding = view.misc.w
            * (abs(v.pa.z)
                + (abs(g.x) + abs(g.y) + 1.0)
                    * (abs(centre.x) + abs(centre.y) + abs(v.pa.x) + abs(v.pa.y) + reach)
                + gn * reach);
        let margin = gn * reach + 2.0 * eps * (1.0 + gn) + rounding;
        lo = max(lo, at - margin);
        hi = min(hi, at + margin);
    }
    out.lo = lo - dilation - slack;
    out.hi = hi + dilation + slack;
    return out;
}

struct FsOut {
    @builtin(frag_depth) depth: f32,
}

// Writing draws: a lower bound on the depth of every point of the dilated
// triangle seen through this pixel.
@fragment
fn fs_min(v: VsOut) -> FsOut {
    let s = span(v);
    if !s.keep {
        discard;
    }
    var out: FsOut;
    out.depth = clamp(s.lo * view.ndc.z + 0.5, 0.0, 1.0);
    return out;
}

// Query draws: an upper bound, clamped below the far plane (no point of
// the scene lies that deep, and the cleared depth must not pass).
@fragment
fn fs_max(v: VsOut) -> FsOut {
    let s = span(v);
    if !s.keep {
        discard;
    }
    var out: FsOut;
    out.depth = clamp(s.hi * view.ndc.z + 0.5, 0.0, view.misc.z);
    return out;
}
