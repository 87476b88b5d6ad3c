//! Command-line options of `cargo xtask bench`.

use std::path::PathBuf;

/// Printed by `cargo xtask bench --help`.
pub(crate) const USAGE: &str = "\
Usage: cargo xtask bench [OPTIONS]

Runs the random-motion benchmark suite on the Puma / pipes and Puma / AMR
scenes of data/scenes/: for each θmax, queries q0 → q0 + δq (q0 uniform in
the joint limits and collision-free, each δq_k uniform in [−θmax, θmax]),
timed on one thread for the continuous query and the baselines (one
discrete check at q0, fixed-resolution sampling at 1° and 0.1°) and the
adaptive bisection (M2) of the path [q0, q1], every answer checked by the
brute-force oracle against the clearance contract (the adaptive answers
against touching). Writes markdown, CSV, JSON and SVG under
target/bench-report/ and exits non-zero on any defect (a missed clearance
violation, a late time of contact, a false alarm, a wrong start, a far
witness; an adaptive answer free on a touching motion, or colliding on
one the oracle proves clearly free) or, with `--oracle both`, any
disagreement between the oracle's two modes.

Options:
  --quick            A CI-sized run (a minute or two): θmax 30° only, few
                     queries per scene
  --full             At least 2,000 queries per scene and θmax
  --scene NAME       pipes, amr or all (default all)
  --angles LIST      θmax in degrees, comma-separated (default: pipes
                     1,5,15,30; amr 1,30,60)
  --queries N        Queries per scene and θmax (default 1200, about ten
                     minutes on two cores; --full 2000; --quick 12)
  --seed S           Seed of the query generator (default 1)
  --threads N        Threads of the oracle (default: all cores); timings
                     always run on one thread
  --oracle MODE      fast, independent or both (default independent): the
                     oracle's mode (armature::oracle::Mode). independent
                     bounds the step by forward kinematics and tests every
                     triangle pair with exact predicates, sharing no
                     geometry with the pipeline; fast uses the motion-bound
                     tables and the hierarchy queries; both judges with
                     the independent mode, also runs the fast one, and
                     fails on any incompatible pair of verdicts. The
                     oracle judges the clearance contract with the
                     pipeline's own distance threshold δ, at resolution
                     δ_o = δ
  --out DIR          Report folder (default target/bench-report)
  -h, --help         Print this message
";

/// Parsed options.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct BenchOptions {
    /// Scenes to run (`pipes`, `amr`).
    pub(crate) scenes: Vec<String>,
    /// θmax in degrees; `None`: each scene's default list.
    pub(crate) angles: Option<Vec<f64>>,
    /// Queries per scene and θmax.
    pub(crate) queries: usize,
    /// Seed of the generator.
    pub(crate) seed: u64,
    /// Oracle threads (`None`: all cores).
    pub(crate) threads: Option<usize>,
    /// Report folder.
    pub(crate) out: PathBuf,
    /// `--quick`.
    pub(crate) quick: bool,
    /// `--full`.
    pub(crate) full: bool,
    /// `--oracle`.
    pub(crate) oracle: OracleChoice,
}

/// Which oracle mode judges the suite (`--oracle`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OracleChoice {
    /// [`armature::oracle::Mode::Fast`] only.
    Fast,
    /// [`armature::oracle::Mode::Independent`] only (the default: in debug
    /// builds it measured no slower than the fast mode on the Puma
    /// scenes).
    Independent,
    /// Both; the independent mode judges, the fast one is compared.
    Both,
}

impl Default for BenchOptions {
    fn default() -> Self {
        Self {
            scenes: vec!["pipes".to_owned(), "amr".to_owned()],
            angles: None,
            queries: 1200,
            seed: 1,
            threads: None,
            out: PathBuf::from("target/bench-report"),
            quick: false,
            full: false,
            oracle: OracleChoice::Independent,
        }
    }
}

/// The default θmax list of a scene (M1 §6; both may add others).
pub(crate) fn default_angles(scene: &str, quick: bool) -> Vec<f64> {
    if quick {
        return vec![30.0];
    }
    match scene {
        "amr" => vec![1.0, 30.0, 60.0],
        _ => vec![1.0, 5.0, 15.0, 30.0],
    }
}

impl BenchOptions {
    /// Parses the arguments after `bench`.
    ///
    /// # Errors
    /// A message naming the bad option or value.
    pub(crate) fn parse(args: &[String]) -> Result<Self, String> {
        let mut o = Self::default();
        let mut queries = None;
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let mut value = |name: &str| {
                it.next()
                    .cloned()
                    .ok_or_else(|| format!("`{name}` needs a value"))
            };
            match a.as_str() {
                "--quick" => o.quick = true,
                "--full" => o.full = true,
                "--scene" => {
                    let v = value("--scene")?;
                    o.scenes = match v.as_str() {
                        "all" => vec!["pipes".to_owned(), "amr".to_owned()],
                        "pipes" | "amr" => vec![v],
                        other => {
                            return Err(format!("`--scene {other}`: expected pipes, amr or all"));
                        }
                    };
                }
                "--angles" => {
                    let v = value("--angles")?;
                    let list = v
                        .split(',')
                        .map(|s| {
                            s.trim()
                                .parse::<f64>()
                                .ok()
                                .filter(|x| x.is_finite() && *x > 0.0 && *x <= 180.0)
                                .ok_or_else(|| {
                                    format!("`--angles {v}`: `{s}` is not an angle in (0, 180]")
                                })
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    o.angles = Some(list);
                }
                "--queries" => {
                    let v = value("--queries")?;
                    queries =
                        Some(v.parse::<usize>().ok().filter(|n| *n > 0).ok_or_else(|| {
                            format!("`--queries {v}`: expected a positive integer")
                        })?);
                }
                "--seed" => {
                    let v = value("--seed")?;
                    o.seed = v
                        .parse()
                        .map_err(|_| format!("`--seed {v}`: expected an unsigned integer"))?;
                }
                "--threads" => {
                    let v = value("--threads")?;
                    o.threads =
                        Some(v.parse::<usize>().ok().filter(|n| *n > 0).ok_or_else(|| {
                            format!("`--threads {v}`: expected a positive integer")
                        })?);
                }
                "--out" => o.out = PathBuf::from(value("--out")?),
                "--oracle" => {
                    let v = value("--oracle")?;
                    o.oracle = match v.as_str() {
                        "fast" => OracleChoice::Fast,
                        "independent" => OracleChoice::Independent,
                        "both" => OracleChoice::Both,
                        other => {
                            return Err(format!(
                                "`--oracle {other}`: expected fast, independent or both"
                            ));
                        }
                    };
                }
                other => return Err(format!("unknown option `{other}`")),
            }
        }
        if o.quick && o.full {
            return Err("`--quick` and `--full` exclude each other".to_owned());
        }
        o.queries = queries.unwrap_or(if o.full {
            2000
        } else if o.quick {
            12
        } else {
            o.queries
        });
        Ok(o)
    }

    /// θmax list for `scene`.
    pub(crate) fn angles_for(&self, scene: &str) -> Vec<f64> {
        self.angles
            .clone()
            .unwrap_or_else(|| default_angles(scene, self.quick))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn defaults_and_presets() {
        let o = BenchOptions::parse(&[]).unwrap();
        assert_eq!(o.queries, 1200);
        assert_eq!(o.angles_for("pipes"), [1.0, 5.0, 15.0, 30.0]);
        assert_eq!(o.angles_for("amr"), [1.0, 30.0, 60.0]);
        let q = BenchOptions::parse(&args(&["--quick"])).unwrap();
        assert_eq!((q.queries, q.angles_for("amr")), (12, vec![30.0]));
        let f = BenchOptions::parse(&args(&["--full", "--scene", "amr"])).unwrap();
        assert_eq!(
            (f.queries, f.scenes.clone()),
            (2000, vec!["amr".to_owned()])
        );
        let c = BenchOptions::parse(&args(&[
            "--angles",
            "2,45",
            "--queries",
            "7",
            "--seed",
            "9",
            "--threads",
            "3",
            "--out",
            "r",
        ]))
        .unwrap();
        assert_eq!(c.angles_for("pipes"), [2.0, 45.0]);
        assert_eq!((c.queries, c.seed, c.threads), (7, 9, Some(3)));
        assert_eq!(o.oracle, OracleChoice::Independent);
        let b = BenchOptions::parse(&args(&["--oracle", "both"])).unwrap();
        assert_eq!(b.oracle, OracleChoice::Both);
        let f = BenchOptions::parse(&args(&["--oracle", "fast"])).unwrap();
        assert_eq!(f.oracle, OracleChoice::Fast);
    }

    #[test]
    fn bad_options_are_named() {
        for (bad, needle) in [
            (&["--scene", "moon"][..], "moon"),
            (&["--angles", "5,x"], "`x`"),
            (&["--angles", "0"], "`0`"),
            (&["--queries", "0"], "--queries 0"),
            (&["--threads"], "needs a value"),
            (&["--quick", "--full"], "exclude"),
            (&["--frobnicate"], "--frobnicate"),
            (&["--oracle", "slow"], "slow"),
        ] {
            let e = BenchOptions::parse(&args(bad)).unwrap_err();
            assert!(e.contains(needle), "{bad:?}: {e}");
        }
    }
}
