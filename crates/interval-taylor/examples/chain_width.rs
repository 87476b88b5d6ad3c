//! Width of the end-link origin enclosure of a serial chain over t ∈ [0, 1]:
//! interval products (M1 §4.1) against Taylor models (M4 §5.2).
//!
//! Each link rotates at constant angular velocity about its joint axis,
//! sweeping `--deg` degrees (15 by default) over the query, behind a fixed
//! 0.3-unit offset. Two chains are measured: random 3-D joint axes and a
//! planar chain (all axes along z), where interval arithmetic loses much
//! less. Run with
//!
//! ```text
//! cargo run --release -p armature-interval-taylor --example chain_width -- --links 10 --deg 15
//! ```

use armature_interval_taylor::{
    Interval, IntervalAffine3, IntervalMat3, IntervalVec3, TaylorAffine3, TimeDomain,
};
use glam::{DAffine3, DVec3};

/// A small deterministic generator (SplitMix64), so the figure is reproducible.
struct SplitMix(u64);

impl SplitMix {
    fn next_f64(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }

    fn unit_vector(&mut self) -> DVec3 {
        loop {
            let v = DVec3::new(self.next_f64(), self.next_f64(), self.next_f64()) * 2.0 - 1.0;
            let l = v.length();
            if l > 0.1 && l <= 1.0 {
                return v / l;
            }
        }
    }
}

struct Link {
    offset: DAffine3,
    axis: DVec3,
    phi: f64,
}

fn chain(links: usize, planar: bool, seed: u64) -> Vec<Link> {
    let mut rng = SplitMix(seed);
    (0..links)
        .map(|_| {
            let axis = if planar { DVec3::Z } else { rng.unit_vector() };
            let dir = if planar { DVec3::X } else { rng.unit_vector() };
            Link {
                offset: DAffine3::from_translation(dir * 0.3),
                axis,
                phi: (rng.next_f64() - 0.5) * std::f64::consts::PI,
            }
        })
        .collect()
}

/// Max component width of the end-link origin swept by the true motion,
/// sampled at 2,001 times.
fn sampled_width(chain: &[Link], omega: f64) -> f64 {
    let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
    for i in 0..=2000 {
        let t = f64::from(i) / 2000.0;
        let mut w = DAffine3::IDENTITY;
        for l in chain {
            w = w * l.offset * DAffine3::from_axis_angle(l.axis, l.phi + omega * t);
        }
        lo = lo.min(w.translation);
        hi = hi.max(w.translation);
    }
    (hi - lo).max_element()
}

/// Max component width of the end-link origin: (interval, Taylor, sampled).
fn widths(
    chain: &[Link],
    omega: f64,
) -> Result<(f64, f64, f64), armature_interval_taylor::IntervalError> {
    let dom = TimeDomain::unit();
    let mut iv = IntervalAffine3::IDENTITY;
    let mut tm = TaylorAffine3::<3>::identity(dom);
    for l in chain {
        let angle = Interval::new(l.phi, l.phi + omega)?;
        let joint = IntervalAffine3::new(
            IntervalMat3::from_axis_angle(l.axis, angle)?,
            IntervalVec3::ZERO,
        );
        iv = iv
            .compose(&IntervalAffine3::from_daffine3(&l.offset))
            .compose(&joint);
        let tjoint =
            TaylorAffine3::in_between(dom, l.axis, omega, l.phi, DVec3::ZERO, DVec3::ZERO)?;
        tm = tm.compose_const(&l.offset).compose(&tjoint);
    }
    let w_iv = iv.translation.width().max_element();
    let w_tm = tm.translation.bound().width().max_element();
    Ok((w_iv, w_tm, sampled_width(chain, omega)))
}

fn arg(name: &str, default: f64) -> f64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let links = arg("--links", 10.0) as usize;
    let deg = arg("--deg", 15.0);
    let omega = deg.to_radians();
    println!("End-link origin enclosure over t in [0, 1], {links} links, {deg} deg per link");
    println!("(max component width; median over 20 seeded chains)\n");
    println!("| chain | interval | Taylor (order 3) | interval / Taylor | true (sampled) |");
    println!("|---|---|---|---|---|");
    for (name, planar) in [("random 3-D axes", false), ("planar", true)] {
        let mut rows: Vec<(f64, f64, f64)> = (0..20)
            .map(|s| widths(&chain(links, planar, s), omega))
            .collect::<Result<_, _>>()?;
        rows.sort_by(|a, b| (a.0 / a.1).total_cmp(&(b.0 / b.1)));
        let (wi, wt, ws) = rows[rows.len() / 2];
        println!(
            "| {name} | {wi:.3e} | {wt:.3e} | {:.1}x | {ws:.3e} |",
            wi / wt
        );
    }
    Ok(())
}
