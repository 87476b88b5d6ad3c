//! # xtask — repository tasks for armature
//!
//! One binary with subcommands, reached through the `cargo xtask` alias in
//! `.cargo/config.toml` (the cargo-xtask convention: no tool to install, the
//! tasks build with the workspace's own toolchain).
//!
//! - `cargo xtask bench` — the end-to-end benchmark suite: oracle-checked
//!   random motions on the Puma / pipes and Puma / AMR scenes, with the
//!   sampling baselines, reported under `target/bench-report/` (see
//!   [`bench`]).
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

mod bench;
#[cfg(test)]
mod tidy;

/// Printed by `cargo xtask help`, by `cargo xtask` alone, and after an
/// unknown subcommand.
const USAGE: &str = "\
Usage: cargo xtask <COMMAND> [OPTIONS]

Repository tasks for armature.

Commands:
  bench    Run the oracle-checked benchmark suite (`bench --help` for options)
  help     Print this message

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
}

/// Parses the arguments after the program name.
///
/// # Errors
/// The unknown subcommand or a bad option, with a message naming it.
fn parse(args: &[String]) -> Result<Command, String> {
    let Some((command, rest)) = args.split_first() else {
        return Ok(Command::Help);
    };
    match command.as_str() {
        "help" | "-h" | "--help" => Ok(Command::Help),
        "bench" => {
            if rest.iter().any(|a| a == "-h" || a == "--help") {
                Ok(Command::BenchHelp)
            } else {
                bench::BenchOptions::parse(rest).map(Command::Bench)
            }
        }
        other => Err(format!("unknown subcommand `{other}`")),
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
        Err(message) => {
            eprintln!("error: {message}\n");
            eprint!("{USAGE}");
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
    use super::{Command, parse};

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
        assert!(parse(&args(&["bench", "--frobnicate"])).is_err());
    }

    #[test]
    fn unknown_subcommand_is_an_error_naming_it() {
        let e = parse(&args(&["frobnicate"])).unwrap_err();
        assert!(e.contains("`frobnicate`"), "{e}");
    }
}
