//! # xtask — repository tasks for armature
//!
//! One binary with subcommands, reached through the `cargo xtask` alias in
//! `.cargo/config.toml` (the cargo-xtask convention: no tool to install, the
//! tasks build with the workspace's own toolchain).
//!
//! - `cargo xtask bench` — the end-to-end benchmark driver. The suite itself
//!   (the oracle-checked random-motion runs per θmax, the fixed-resolution
//!   sampling baselines and the reports) is not built yet; the command says
//!   so and points at the criterion micro-benchmarks.
//! - `cargo xtask gen-data` — generates the Puma 560 robot and the *pipes*
//!   and *AMR* scenes into `data/` (see [`gen_data`]); `--check` compares the
//!   committed files with a fresh generation, `--stats` measures the
//!   scenes' density for the benchmark.
//! - `cargo xtask help` — usage.
//!
//! The repository rules (the crate layering of DESIGN.md §2, no placeholder
//! macros in library code, a contract doc comment at the top of every
//! crate) are `#[test]`s in the `tidy` module, so `cargo test --workspace`
//! enforces them.
//!
//! Arguments are parsed by hand: the driver has few options.

use std::io::Write;
use std::process::ExitCode;

// `gen` is a reserved keyword in edition 2024; the folder keeps the short
// name and the module says what it generates.
#[path = "gen/mod.rs"]
mod gen_data;
#[cfg(test)]
mod tidy;

/// Printed by `cargo xtask help`, by `cargo xtask` alone, and after an
/// unknown subcommand.
const USAGE: &str = "\
Usage: cargo xtask <COMMAND> [OPTIONS]

Repository tasks for armature.

Commands:
  bench     Run the end-to-end benchmark suite (not built yet: prints what is
            missing and how to run the micro-benchmarks)
  gen-data  Generate the Puma, pipes and AMR scenes into data/ (--check to
            compare, --stats to measure; see `cargo xtask gen-data --help`)
  help      Print this message

The repository rules (crate layering, no placeholder macros, crate contract
docs) are checked by `cargo test -p xtask`.
";

/// Printed by `cargo xtask bench --help`.
const BENCH_USAGE: &str = "\
Usage: cargo xtask bench [OPTIONS]

Runs the random-motion benchmark suite and writes the report under
target/bench-report/. The suite is not built yet; every option is accepted
and ignored for now.

Options (planned):
  --quick  A short run for CI: fewer queries per θmax
  -h, --help  Print this message
";

/// A parsed command line.
#[derive(Debug, PartialEq, Eq)]
enum Command {
    /// Print the usage and exit successfully.
    Help,
    /// Print the usage of `bench` and exit successfully.
    BenchHelp,
    /// Run the benchmark suite; `ignored` holds the arguments that the
    /// present, unbuilt suite has no use for.
    Bench {
        /// Arguments accepted but not acted on, in the order given.
        ignored: Vec<String>,
    },
    /// Generate, check or measure the data files.
    GenData(gen_data::GenData),
}

/// Why a command line was rejected.
#[derive(Debug, PartialEq, Eq)]
enum ParseError {
    /// An unknown subcommand, as given.
    UnknownCommand(String),
    /// A bad option of a known subcommand: the subcommand and the message.
    BadOption(&'static str, String),
}

/// Parses the arguments after the program name.
///
/// # Errors
/// The unknown subcommand, as given, or a bad option of a known one.
fn parse(args: &[String]) -> Result<Command, ParseError> {
    let Some((command, rest)) = args.split_first() else {
        return Ok(Command::Help);
    };
    match command.as_str() {
        "help" | "-h" | "--help" => Ok(Command::Help),
        "bench" => {
            if rest.iter().any(|a| a == "-h" || a == "--help") {
                Ok(Command::BenchHelp)
            } else {
                Ok(Command::Bench {
                    ignored: rest.to_vec(),
                })
            }
        }
        "gen-data" => gen_data::parse(rest)
            .map(Command::GenData)
            .map_err(|m| ParseError::BadOption("gen-data", m)),
        other => Err(ParseError::UnknownCommand(other.to_owned())),
    }
}

/// Writes what `cargo xtask bench` does today: which parts of the suite are
/// missing, how to run the micro-benchmarks, and which arguments it ignored.
///
/// # Errors
/// When `out` cannot be written (a closed pipe, for instance).
fn bench(ignored: &[String], out: &mut impl Write) -> anyhow::Result<()> {
    writeln!(
        out,
        "cargo xtask bench: the end-to-end benchmark suite is not built yet.\n\
         \n\
         Not built yet:\n\
         \x20 - scene generators (`cargo xtask gen-data`): the Puma robot, the pipes\n\
         \x20   scene and the AMR scene, generated deterministically into data/\n\
         \x20 - the random-motion suite per θmax (pipes: 1°, 5°, 15°, 30°; AMR: 1°,\n\
         \x20   30°, 60°) for every stage combination, each answer checked against\n\
         \x20   the brute-force oracle\n\
         \x20 - the fixed-resolution sampling baselines\n\
         \x20 - the report: markdown tables, CSV, JSON and SVG plots under\n\
         \x20   target/bench-report/\n\
         \n\
         For now the micro-benchmarks run with:\n\
         \x20 cargo bench -p armature-benches"
    )?;
    for arg in ignored {
        writeln!(
            out,
            "note: ignoring `{arg}`: the suite it configures is not built yet"
        )?;
    }
    out.flush()?;
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match parse(&args) {
        Ok(Command::Help) => write!(std::io::stdout().lock(), "{USAGE}").map_err(Into::into),
        Ok(Command::BenchHelp) => {
            write!(std::io::stdout().lock(), "{BENCH_USAGE}").map_err(Into::into)
        }
        Ok(Command::Bench { ignored }) => bench(&ignored, &mut std::io::stdout().lock()),
        Ok(Command::GenData(mode)) => gen_data::run(&mode, &mut std::io::stdout().lock()),
        Err(ParseError::UnknownCommand(unknown)) => {
            eprintln!("error: unknown subcommand `{unknown}`\n");
            eprint!("{USAGE}");
            return ExitCode::from(2);
        }
        Err(ParseError::BadOption(command, message)) => {
            eprintln!("error: {command}: {message}\n");
            eprint!("{}", gen_data::USAGE);
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Command, ParseError, bench, parse};

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn no_arguments_and_help_print_usage() {
        for list in [&[][..], &["help"], &["--help"], &["-h"]] {
            assert_eq!(parse(&args(list)), Ok(Command::Help), "{list:?}");
        }
    }

    #[test]
    fn bench_accepts_and_keeps_its_flags() {
        assert_eq!(
            parse(&args(&["bench", "--quick"])),
            Ok(Command::Bench {
                ignored: args(&["--quick"])
            })
        );
        assert_eq!(
            parse(&args(&["bench", "--quick", "--help"])),
            Ok(Command::BenchHelp)
        );
    }

    #[test]
    fn unknown_subcommand_is_an_error_naming_it() {
        assert_eq!(
            parse(&args(&["frobnicate"])),
            Err(ParseError::UnknownCommand("frobnicate".to_owned()))
        );
    }

    #[test]
    fn gen_data_parses_its_options() {
        assert_eq!(
            parse(&args(&["gen-data", "--check"])),
            Ok(Command::GenData(crate::gen_data::GenData::Check))
        );
        assert!(matches!(
            parse(&args(&["gen-data", "--bogus"])),
            Err(ParseError::BadOption("gen-data", m)) if m.contains("--bogus")
        ));
    }

    #[test]
    fn bench_names_every_missing_part_and_each_ignored_flag() {
        let mut out = Vec::new();
        bench(&args(&["--quick"]), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        for needle in [
            "not built yet",
            "gen-data",
            "Puma",
            "pipes",
            "AMR",
            "θmax",
            "oracle",
            "fixed-resolution sampling baselines",
            "target/bench-report/",
            "cargo bench -p armature-benches",
            "ignoring `--quick`",
        ] {
            assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
        }
    }
}
