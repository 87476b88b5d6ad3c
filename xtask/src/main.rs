//! # xtask — repository tasks for armature
//!
//! One binary with subcommands, reached through the `cargo xtask` alias in
//! `.cargo/config.toml` (the cargo-xtask convention: no tool to install, the
//! tasks build with the workspace's own toolchain).
//!
//! - `cargo xtask bench` — the end-to-end benchmark suite: oracle-checked
//!   random motions on the Puma / pipes and Puma / AMR scenes, with the
//!   sampling baselines, reported under `target/bench-report/` (see
//!   [`mod@bench`]).
//! - `cargo xtask gen-data` — generates the robots (Puma 560, skinny20,
//!   irb2400) and the scenes (*pipes*, *AMR*, and the thin-obstacle scenes
//!   *skinny tori*, *welder cage*, *arms car*) into `data/` (see
//!   [`gen_data`]); `--check` compares the
//!   committed files with a fresh generation, `--stats` measures the
//!   scenes' density for the benchmark.
//! - `cargo xtask soak` — the whole test suite in rounds with random
//!   property-test seeds, for an hour by default (see [`soak`]); CI runs
//!   the fixed seed of `.cargo/config.toml`.
//! - `cargo xtask help` — usage.
//!
//! The repository rules (the crate layering of docs/architecture.md, no placeholder
//! macros in library code, a contract doc comment at the top of every
//! crate) are `#[test]`s in the `tidy` module, so `cargo test --workspace`
//! enforces them.
//!
//! Arguments are parsed by hand: the driver has few options.

use std::io::Write;
use std::process::ExitCode;

mod bench;
mod soak;
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
  bench     Run the oracle-checked benchmark suite (`cargo xtask bench --help`)
  gen-data  Generate the robots and scenes into data/ (--check to compare,
            --stats to measure; see `cargo xtask gen-data --help`)
  soak      Run the tests in rounds with random property-test seeds
            (`cargo xtask soak --help`)
  help      Print this message

The repository rules (crate layering, no placeholder macros, crate contract
docs) are checked by `cargo test -p xtask`.
";

/// A parsed command line.
#[derive(Debug, PartialEq)]
enum Command {
    /// Print the usage and exit successfully.
    Help,
    /// Print the usage of `bench` and exit successfully.
    BenchHelp,
    /// Run the benchmark suite.
    Bench(bench::BenchOptions),
    /// Generate, check or measure the data files.
    GenData(gen_data::GenData),
    /// Print the usage of `soak` and exit successfully.
    SoakHelp,
    /// Run the soak.
    Soak(soak::SoakOptions),
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
                bench::BenchOptions::parse(rest)
                    .map(Command::Bench)
                    .map_err(|m| ParseError::BadOption("bench", m))
            }
        }
        "gen-data" => gen_data::parse(rest)
            .map(Command::GenData)
            .map_err(|m| ParseError::BadOption("gen-data", m)),
        "soak" => {
            if rest.iter().any(|a| a == "-h" || a == "--help") {
                Ok(Command::SoakHelp)
            } else {
                soak::SoakOptions::parse(rest)
                    .map(Command::Soak)
                    .map_err(|m| ParseError::BadOption("soak", m))
            }
        }
        other => Err(ParseError::UnknownCommand(other.to_owned())),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match parse(&args) {
        Ok(Command::Help) => write!(std::io::stdout().lock(), "{USAGE}").map_err(Into::into),
        Ok(Command::BenchHelp) => {
            write!(std::io::stdout().lock(), "{}", bench::USAGE).map_err(Into::into)
        }
        Ok(Command::Bench(options)) => bench::bench(&options),
        Ok(Command::GenData(mode)) => gen_data::run(&mode, &mut std::io::stdout().lock()),
        Ok(Command::SoakHelp) => {
            write!(std::io::stdout().lock(), "{}", soak::USAGE).map_err(Into::into)
        }
        Ok(Command::Soak(options)) => soak::soak(&options),
        Err(ParseError::UnknownCommand(unknown)) => {
            eprintln!("error: unknown subcommand `{unknown}`\n");
            eprint!("{USAGE}");
            return ExitCode::from(2);
        }
        Err(ParseError::BadOption(command, message)) => {
            eprintln!("error: {command}: {message}\n");
            if command == "bench" {
                eprint!("{}", bench::USAGE);
            } else if command == "soak" {
                eprint!("{}", soak::USAGE);
            } else {
                eprint!("{}", gen_data::USAGE);
            }
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
    use super::{Command, ParseError, parse};

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
    fn bench_parses_its_options() {
        match parse(&args(&["bench", "--quick"])) {
            Ok(Command::Bench(o)) => assert!(o.quick),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            parse(&args(&["bench", "--quick", "--help"])),
            Ok(Command::BenchHelp)
        );
        assert!(matches!(
            parse(&args(&["bench", "--frobnicate"])),
            Err(ParseError::BadOption("bench", m)) if m.contains("--frobnicate")
        ));
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
}
