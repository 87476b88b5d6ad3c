//! The suite's SVG plots, drawn with `plotters`: the median time per
//! query against θmax for each method of a scene, and per scene and θmax
//! the distribution of query times (an empirical CDF per method, colliding
//! and free motions apart).

use anyhow::{Result, anyhow};
use plotters::prelude::*;

use super::report::{Summary, median};
use super::run::{OracleVerdict, QueryResult};

/// Plot size in pixels.
const SIZE: (u32, u32) = (760, 440);

/// One method of the plots: its name, its colour and its time per query.
type Method = (&'static str, RGBColor, fn(&QueryResult) -> f64);

/// The methods every plot shows, in legend order.
const METHODS: [Method; 5] = [
    ("CCD (C2A steps)", RGBColor(31, 119, 180), |r| r.ccd_ms),
    ("CCD, unprojected (M4)", RGBColor(127, 127, 127), |r| {
        r.variants.first().map_or(f64::NAN, |v| v.ms)
    }),
    ("adaptive bisection", RGBColor(148, 103, 189), |r| r.path_ms),
    ("sampling 1°", RGBColor(255, 127, 14), |r| r.sample_1.0),
    ("sampling 0.1°", RGBColor(214, 39, 40), |r| r.sample_01.0),
];

/// Decades enclosing the positive finite values, at least one decade wide.
fn decades(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::INFINITY, 0.0_f64), |(a, b), v| (a.min(v), b.max(v)));
    if lo.is_finite() && hi > 0.0 {
        let lo = lo.log10().floor();
        (10f64.powf(lo), 10f64.powf(hi.log10().ceil().max(lo + 1.0)))
    } else {
        (0.01, 100.0)
    }
}

fn plot_error(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow!("drawing a plot: {e}")
}

/// Draws the chart's legend at `position` and writes the plot out.
fn legend_and_present<'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, CT>,
    root: &DrawingArea<SVGBackend<'a>, plotters::coord::Shift>,
    position: SeriesLabelPosition,
) -> Result<()> {
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(plot_error)?;
    root.present().map_err(plot_error)
}

/// Median time per query against θmax (log scale) for the methods of one
/// scene, with one discrete check for scale.
pub(crate) fn medians(scene: &str, rows: &[&Summary]) -> Result<String> {
    type Line = (&'static str, RGBColor, fn(&Summary) -> f64);
    let lines: [Line; 5] = [
        ("CCD (C2A steps)", METHODS[0].1, |s| s.ccd[0]),
        ("adaptive bisection", METHODS[2].1, |s| s.path_median),
        ("one discrete check", RGBColor(44, 160, 44), |s| s.discrete),
        ("sampling 1°", METHODS[3].1, |s| s.sample_1.0),
        ("sampling 0.1°", METHODS[4].1, |s| s.sample_01.0),
    ];
    let (lo, hi) = decades(
        rows.iter()
            .flat_map(|r| lines.iter().map(move |l| (l.2)(r))),
    );
    let amax = rows.iter().map(|r| r.angle).fold(1.0, f64::max);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("Puma / {scene}: median time per query vs θmax"),
                ("sans-serif", 18),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..amax * 1.05, (lo..hi).log_scale())
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .x_desc("θmax (degrees)")
            .y_desc("median ms per query")
            .draw()
            .map_err(plot_error)?;
        for (name, colour, f) in lines {
            let pts: Vec<(f64, f64)> = rows
                .iter()
                .map(|r| (r.angle, f(r)))
                .filter(|p| p.1.is_finite() && p.1 > 0.0)
                .collect();
            chart
                .draw_series(LineSeries::new(pts.clone(), colour.stroke_width(2)))
                .map_err(plot_error)?
                .label(name)
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], colour));
            chart
                .draw_series(pts.into_iter().map(|p| Circle::new(p, 3, colour.filled())))
                .map_err(plot_error)?;
        }
        legend_and_present(&mut chart, &root, SeriesLabelPosition::UpperLeft)?;
    }
    Ok(svg)
}

/// The empirical CDF of `values` as plot points (a step per value).
fn cdf(values: &mut [f64]) -> Vec<(f64, f64)> {
    values.sort_by(f64::total_cmp);
    let n = values.len() as f64;
    let mut pts = Vec::with_capacity(2 * values.len());
    for (i, &v) in values.iter().enumerate() {
        pts.push((v, i as f64 / n));
        pts.push((v, (i + 1) as f64 / n));
    }
    pts
}

/// The distribution of query times of one scene and θmax: per method the
/// fraction of queries answered within a time (log scale), solid for the
/// motions the oracle finds colliding and dashed for the others. The
/// legend gives each method's median and p99.
pub(crate) fn distribution(scene: &str, angle: f64, results: &[QueryResult]) -> Result<String> {
    let colliding = |r: &QueryResult| matches!(r.verdict, OracleVerdict::Collides(_));
    let (lo, hi) = decades(
        results
            .iter()
            .flat_map(|r| METHODS.iter().map(move |m| (m.2)(r))),
    );
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!(
                    "Puma / {scene}, θmax {angle}°: time per query (solid: colliding, dashed: free)"
                ),
                ("sans-serif", 16),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d((lo..hi).log_scale(), 0.0..1.0)
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .x_desc("ms per query (one thread)")
            .y_desc("fraction of queries")
            .draw()
            .map_err(plot_error)?;
        for (name, colour, f) in METHODS {
            // A method not run (no variants) has no times.
            let times = |keep: &dyn Fn(&QueryResult) -> bool| -> Vec<f64> {
                results
                    .iter()
                    .filter(|r| keep(r))
                    .map(f)
                    .filter(|t| t.is_finite())
                    .collect()
            };
            let mut col = times(&|r| colliding(r));
            let mut free = times(&|r| !colliding(r));
            let all = times(&|_| true);
            if all.is_empty() {
                continue;
            }
            let label = format!(
                "{name}: median {:.3} ms, p99 {:.3} ms",
                median(&all),
                super::report::quantile(&all, 0.99)
            );
            let style = colour.stroke_width(2);
            chart
                .draw_series(LineSeries::new(cdf(&mut col), style))
                .map_err(plot_error)?
                .label(label)
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], colour));
            chart
                .draw_series(DashedLineSeries::new(cdf(&mut free), 6, 4, style))
                .map_err(plot_error)?;
        }
        legend_and_present(&mut chart, &root, SeriesLabelPosition::LowerRight)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cdf_steps_reach_one() {
        let mut v = vec![3.0, 1.0, 2.0];
        let pts = cdf(&mut v);
        assert_eq!(pts.first(), Some(&(1.0, 0.0)));
        assert_eq!(pts.last(), Some(&(3.0, 1.0)));
        assert_eq!(pts.len(), 6);
    }

    #[test]
    fn decades_enclose_the_values() {
        assert_eq!(decades([0.5, 20.0].into_iter()), (0.1, 100.0));
        assert_eq!(decades([2.0].into_iter()), (1.0, 10.0));
        assert_eq!(decades([f64::NAN, 0.0].into_iter()), (0.01, 100.0));
    }
}
