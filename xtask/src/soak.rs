//! `cargo xtask soak`: the property tests under random seeds, for as long
//! as asked.
//!
//! CI runs every property test with the fixed seed of `.cargo/config.toml`
//! (`PROPTEST_RNG_SEED`), so a CI run is reproducible. The soak runs the
//! whole test suite again and again, each round with a fresh random seed,
//! in release mode for throughput, and logs every seed with its outcome.
//! A round that fails names its seed: `PROPTEST_RNG_SEED=<seed> cargo test
//! --workspace --release` replays it, and proptest writes the shrunk case
//! into the test's `*.proptest-regressions` file, which is committed so
//! that every later run replays it first.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};

/// Printed by `cargo xtask soak --help`.
pub(crate) const USAGE: &str = "\
Usage: cargo xtask soak [--minutes N] [--filter TEXT]

Runs `cargo test --workspace --release` in rounds, each with a random
PROPTEST_RNG_SEED, until N minutes (default 60) have passed; logs every
round's seed and outcome to target/soak/soak.log and stops with a failure
status if any round failed (its seed replays it).

Options:
  --minutes N     how long to keep starting rounds (default 60)
  --filter TEXT   only tests whose name contains TEXT (passed to the test
                  binaries)
  -h, --help      print this message
";

/// Options of the soak.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SoakOptions {
    /// Minutes during which new rounds start.
    pub(crate) minutes: f64,
    /// A test-name filter, if any.
    pub(crate) filter: Option<String>,
}

impl SoakOptions {
    /// Parses the options after `soak`.
    ///
    /// # Errors
    /// A message naming the bad option.
    pub(crate) fn parse(args: &[String]) -> Result<Self, String> {
        let mut options = Self {
            minutes: 60.0,
            filter: None,
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--minutes" => {
                    let v = it.next().ok_or("--minutes needs a value")?;
                    options.minutes = v
                        .parse()
                        .ok()
                        .filter(|m: &f64| m.is_finite() && *m > 0.0)
                        .ok_or_else(|| format!("--minutes {v}: not a positive number"))?;
                }
                "--filter" => {
                    options.filter = Some(it.next().ok_or("--filter needs a value")?.clone());
                }
                other => return Err(format!("unknown option `{other}`")),
            }
        }
        Ok(options)
    }
}

/// A seed from the clock and the round number (splitmix64), different for
/// every round and every run.
fn seed(round: u64) -> u64 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut z = nanos ^ round.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// `cargo test --workspace --release` with `seed`, or only building it.
fn cargo_test(seed: Option<u64>, filter: Option<&str>, build_only: bool) -> Command {
    let mut c = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    c.args(["test", "--workspace", "--release", "--locked", "-q"]);
    if build_only {
        c.arg("--no-run");
    } else {
        c.args(["--", "--color", "never"]);
        if let Some(f) = filter {
            c.arg(f);
        }
    }
    if let Some(s) = seed {
        c.env("PROPTEST_RNG_SEED", s.to_string());
    }
    c
}

/// Runs the soak.
///
/// # Errors
/// When the tests cannot be built or run, or when a round failed.
pub(crate) fn soak(options: &SoakOptions) -> Result<()> {
    let dir = PathBuf::from("target/soak");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let log_path = dir.join("soak.log");
    let mut log = std::fs::File::create(&log_path)
        .with_context(|| format!("creating {}", log_path.display()))?;
    eprintln!("building the tests in release mode…");
    let status = cargo_test(None, None, true)
        .status()
        .context("running cargo")?;
    if !status.success() {
        bail!("the tests do not build");
    }
    let started = Instant::now();
    let budget = Duration::from_secs_f64(options.minutes * 60.0);
    let mut failed = Vec::new();
    let mut round = 0_u64;
    while started.elapsed() < budget {
        round += 1;
        let s = seed(round);
        let t0 = Instant::now();
        let out = cargo_test(Some(s), options.filter.as_deref(), false)
            .output()
            .context("running cargo test")?;
        let ok = out.status.success();
        let mut line = format!(
            "round {round}: PROPTEST_RNG_SEED={s} {} in {:.0} s",
            if ok { "passed" } else { "FAILED" },
            t0.elapsed().as_secs_f64()
        );
        if !ok {
            let text = String::from_utf8_lossy(&out.stdout);
            for l in text
                .lines()
                .filter(|l| l.contains("FAILED") || l.contains("panicked"))
            {
                let _ = write!(line, "\n    {l}");
            }
            failed.push(s);
            writeln!(
                log,
                "{line}\n{text}\n{}",
                String::from_utf8_lossy(&out.stderr)
            )?;
        } else {
            writeln!(log, "{line}")?;
        }
        eprintln!("{line}");
    }
    let summary = format!(
        "soak: {round} rounds in {:.1} min, {} failed{}",
        started.elapsed().as_secs_f64() / 60.0,
        failed.len(),
        if failed.is_empty() {
            String::new()
        } else {
            format!(" (seeds {failed:?}; see {})", log_path.display())
        }
    );
    writeln!(log, "{summary}")?;
    eprintln!("{summary}");
    if failed.is_empty() {
        Ok(())
    } else {
        bail!("{} soak round(s) failed", failed.len())
    }
}

#[cfg(test)]
mod tests {
    use super::{SoakOptions, seed};

    #[test]
    fn options_parse_and_reject() {
        let args = |l: &[&str]| l.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let o = SoakOptions::parse(&args(&["--minutes", "2.5", "--filter", "oracle"])).unwrap();
        assert_eq!(o.minutes, 2.5);
        assert_eq!(o.filter.as_deref(), Some("oracle"));
        assert!(SoakOptions::parse(&args(&["--minutes", "-1"])).is_err());
        assert!(SoakOptions::parse(&args(&["--minutes"])).is_err());
        assert!(SoakOptions::parse(&args(&["--bogus"])).is_err());
    }

    #[test]
    fn seeds_differ_between_rounds() {
        assert_ne!(seed(1), seed(2));
    }
}
