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

Also, on the thin-obstacle scenes skinny_tori, welder_cage and arms_car
and on the Puma scenes, random segments between two random collision-free
configurations (M2 Tables III and VI): the adaptive bisection (ε = 0 and
ε = 1 mm), its REFINED variant, fixed-resolution bisection (ρ) and the
conservative-advancement pipeline, colliding and free segments apart,
with the fixed-resolution misses counted; the bad cases (a full turn at
a clearance just above ε, M2 Fig. 14); and a lazy bidirectional PRM
planner with each checker (the ρ the fixed-resolution planner needs for
50 and 100 consecutive correct paths, against the adaptive planner).

And generalized penetration depth (M5 Tables I-III): in-collision
configurations of the mobile Puma beside a car (without and with
self-collision), of the hand in a bottle and of a rigid bumpy sphere in a
bumpy torus, each answer checked free and in contact by the discrete
test, within the joint limits and no deeper than a brute-force
translational depth; with and without motion coherence.

And the safety monitor (M3 Fig. 8): the humanoid mobile manipulator's
fast and accurate models with and without the vehicle joint, cycle after
cycle along a random motion with random braking states: swept-volume
flops and times, distance times, the per-cycle median and tails.

Options:
  --quick            A CI-sized run (a minute or two): θmax 30° only, few
                     queries per scene, 10 segments per scene, one bad case,
                     a tiny planning study, 4 penetration-depth queries per
                     case (smaller rigid meshes), 500 monitor cycles per
                     model
  --full             At least 2,000 queries per scene and θmax, 10,000
                     segments per scene, 200 penetration-depth queries per
                     case (default 40), 100,000 monitor cycles per model
                     (default 20,000)
  --suite LIST       Parts to run, comma-separated: motions, segments,
                     bad-cases, planning, primitives, pd, monitor, or all
                     (default all)
  --scene NAME       pipes, amr, skinny_tori, welder_cage, arms_car or all
                     (default all; the motion suite runs on pipes and amr)
  --segments N       Random segments per scene (default 300)
  --pd-case LIST     Penetration-depth cases, comma-separated: puma1,
                     puma2, hand, rigid or all (default all)
  --rho R            Resolution of the fixed-resolution baseline (radians,
                     joint-space Euclidean; default 0.01)
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
    /// Parts of the suite to run (`--suite`).
    pub(crate) suites: Vec<Suite>,
    /// Scenes of the segment suite (`--scene`).
    pub(crate) segment_scenes: Vec<String>,
    /// Random segments per scene (`--segments`).
    pub(crate) segments: usize,
    /// Resolution ρ of the fixed-resolution baseline (`--rho`, radians).
    pub(crate) rho: f64,
    /// Penetration-depth cases to run (`--pd-case`).
    pub(crate) pd_cases: Vec<String>,
}

/// A part of the suite (`--suite`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Suite {
    /// The random-motion suite on the Puma scenes (continuous queries,
    /// sampling baselines, adaptive bisection per motion).
    Motions,
    /// Random segments between random free configurations on every scene:
    /// adaptive, REFINED, fixed resolution and conservative advancement.
    Segments,
    /// The bad cases: a long segment at a clearance just above `ε`.
    BadCases,
    /// The lazy PRM planner with each checker.
    Planning,
    /// Primitive CCD of linearly moving points, edges and triangles:
    /// random and near-contact vertex–face and edge–edge queries.
    Primitives,
    /// Generalized penetration depth (M5): the Puma, hand and rigid
    /// cases, checked against the facade's discrete test and a
    /// brute-force translational depth.
    Pd,
    /// The safety monitor (M3 Fig. 8): fast and accurate humanoid models
    /// with and without the vehicle joint, per-cycle times and tails.
    Monitor,
}

impl Suite {
    pub(crate) const ALL: [Self; 7] = [
        Self::Motions,
        Self::Segments,
        Self::BadCases,
        Self::Planning,
        Self::Primitives,
        Self::Pd,
        Self::Monitor,
    ];

    /// Its name on the command line.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Self::Motions => "motions",
            Self::Segments => "segments",
            Self::BadCases => "bad-cases",
            Self::Planning => "planning",
            Self::Primitives => "primitives",
            Self::Pd => "pd",
            Self::Monitor => "monitor",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "motions" => Self::Motions,
            "segments" => Self::Segments,
            "bad-cases" => Self::BadCases,
            "planning" => Self::Planning,
            "primitives" => Self::Primitives,
            "pd" => Self::Pd,
            "monitor" => Self::Monitor,
            _ => return None,
        })
    }
}

/// The cases of the penetration-depth suite.
pub(crate) const PD_CASES: [&str; 4] = ["puma1", "puma2", "hand", "rigid"];

/// The Puma scenes of the motion suite.
pub(crate) const MOTION_SCENES: [&str; 2] = ["pipes", "amr"];
/// Every scene of the segment suite.
pub(crate) const SEGMENT_SCENES: [&str; 5] =
    ["skinny_tori", "welder_cage", "arms_car", "pipes", "amr"];

/// The scene file of a scene name, relative to the repository root.
pub(crate) fn scene_file(name: &str) -> String {
    if MOTION_SCENES.contains(&name) {
        format!("data/scenes/puma_{name}.ron")
    } else {
        format!("data/scenes/{name}.ron")
    }
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
            suites: Suite::ALL.to_vec(),
            segment_scenes: SEGMENT_SCENES.map(str::to_owned).to_vec(),
            segments: 300,
            rho: 0.01,
            pd_cases: PD_CASES.map(str::to_owned).to_vec(),
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
        let mut segments = None;
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
                    (o.scenes, o.segment_scenes) = match v.as_str() {
                        "all" => (
                            MOTION_SCENES.map(str::to_owned).to_vec(),
                            SEGMENT_SCENES.map(str::to_owned).to_vec(),
                        ),
                        name if SEGMENT_SCENES.contains(&name) => (
                            if MOTION_SCENES.contains(&name) {
                                vec![v.clone()]
                            } else {
                                Vec::new()
                            },
                            vec![v.clone()],
                        ),
                        other => {
                            return Err(format!(
                                "`--scene {other}`: expected {} or all",
                                SEGMENT_SCENES.join(", ")
                            ));
                        }
                    };
                }
                "--suite" => {
                    let v = value("--suite")?;
                    o.suites = if v == "all" {
                        Suite::ALL.to_vec()
                    } else {
                        v.split(',')
                            .map(|s| {
                                Suite::parse(s.trim()).ok_or_else(|| {
                                    format!(
                                        "`--suite {v}`: `{s}` is not one of motions, segments, bad-cases, planning, primitives, pd, monitor, all"
                                    )
                                })
                            })
                            .collect::<Result<Vec<_>, _>>()?
                    };
                }
                "--pd-case" => {
                    let v = value("--pd-case")?;
                    o.pd_cases = if v == "all" {
                        PD_CASES.map(str::to_owned).to_vec()
                    } else {
                        v.split(',')
                            .map(|c| {
                                let c = c.trim();
                                if PD_CASES.contains(&c) {
                                    Ok(c.to_owned())
                                } else {
                                    Err(format!(
                                        "`--pd-case {v}`: `{c}` is not one of {}, all",
                                        PD_CASES.join(", ")
                                    ))
                                }
                            })
                            .collect::<Result<Vec<_>, _>>()?
                    };
                }
                "--segments" => {
                    let v = value("--segments")?;
                    segments =
                        Some(v.parse::<usize>().ok().filter(|n| *n > 0).ok_or_else(|| {
                            format!("`--segments {v}`: expected a positive integer")
                        })?);
                }
                "--rho" => {
                    let v = value("--rho")?;
                    o.rho = v
                        .parse::<f64>()
                        .ok()
                        .filter(|x| x.is_finite() && *x > 0.0)
                        .ok_or_else(|| format!("`--rho {v}`: expected a positive number"))?;
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
        o.segments = segments.unwrap_or(if o.full {
            10_000
        } else if o.quick {
            10
        } else {
            o.segments
        });
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
            (f.queries, f.scenes.clone(), f.segments),
            (2000, vec!["amr".to_owned()], 10_000)
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
        assert_eq!(
            (o.segments, o.suites.len(), o.segment_scenes.len()),
            (300, 7, 5)
        );
        assert_eq!((q.segments, f.segments), (10, 300));
        let s = BenchOptions::parse(&args(&[
            "--suite",
            "segments,bad-cases",
            "--scene",
            "welder_cage",
            "--segments",
            "40",
            "--rho",
            "0.05",
        ]))
        .unwrap();
        assert_eq!(s.suites, [Suite::Segments, Suite::BadCases]);
        let p = BenchOptions::parse(&args(&["--suite", "primitives,pd"])).unwrap();
        assert_eq!(p.suites, [Suite::Primitives, Suite::Pd]);
        assert_eq!(Suite::Pd.name(), "pd");
        assert_eq!(p.pd_cases, PD_CASES);
        let c = BenchOptions::parse(&args(&["--pd-case", "hand, puma2"])).unwrap();
        assert_eq!(c.pd_cases, ["hand", "puma2"]);
        let all = BenchOptions::parse(&args(&["--pd-case", "all"])).unwrap();
        assert_eq!(all.pd_cases, PD_CASES);
        let m = BenchOptions::parse(&args(&["--suite", "monitor"])).unwrap();
        assert_eq!(
            (m.suites.as_slice(), Suite::Monitor.name()),
            ([Suite::Monitor].as_slice(), "monitor")
        );
        assert_eq!(o.suites, Suite::ALL);
        assert_eq!(
            (s.scenes.len(), s.segment_scenes.clone()),
            (0, vec!["welder_cage".to_owned()])
        );
        assert_eq!((s.segments, s.rho), (40, 0.05));
        assert_eq!(scene_file("pipes"), "data/scenes/puma_pipes.ron");
        assert_eq!(scene_file("arms_car"), "data/scenes/arms_car.ron");
    }

    #[test]
    fn bad_options_are_named() {
        for (bad, needle) in [
            (&["--scene", "moon"][..], "moon"),
            (&["--pd-case", "hand,foot"], "`foot`"),
            (&["--angles", "5,x"], "`x`"),
            (&["--angles", "0"], "`0`"),
            (&["--queries", "0"], "--queries 0"),
            (&["--threads"], "needs a value"),
            (&["--quick", "--full"], "exclude"),
            (&["--frobnicate"], "--frobnicate"),
            (&["--oracle", "slow"], "slow"),
            (&["--suite", "motions,moon"], "`moon`"),
            (&["--segments", "0"], "--segments 0"),
            (&["--rho", "-1"], "--rho -1"),
        ] {
            let e = BenchOptions::parse(&args(bad)).unwrap_err();
            assert!(e.contains(needle), "{bad:?}: {e}");
        }
    }
}
