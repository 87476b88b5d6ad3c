//! The `armature` command line: `info`, `toc`, `check`, `path`, `pd`,
//! `monitor`, `render` and `overlay` on a scene file.
//!
//! Every command reads a RON scene file (`--scene`), runs one query and
//! prints its answer, aligned text by default or one JSON object with
//! `--json`; `toc` and `check` also answer a batch of queries (`--batch`),
//! one JSON line per query, loading the scene once. The exit status is 0
//! whenever the query (or the batch) ran, whatever its answers; 2 for bad
//! input (a scene file that does not load, a bad configuration, an option
//! out of range), with the error on stderr; 1 when the answer cannot be
//! written. The full contract is `docs/cli.md`.

// The binary's root is `src/bin/armature.rs` (fixed by the manifest), so
// its modules would be looked up beside it, among other binaries' files;
// they live in `src/bin/armature/` instead.
#[path = "armature/batch.rs"]
mod batch;
#[path = "armature/check.rs"]
mod check;
#[path = "armature/info.rs"]
mod info;
#[path = "armature/monitor.rs"]
mod monitor;
#[path = "armature/output.rs"]
mod output;
#[path = "armature/overlay.rs"]
mod overlay;
#[path = "armature/path.rs"]
mod path;
#[path = "armature/pd.rs"]
mod pd;
#[path = "armature/progress.rs"]
mod progress;
#[path = "armature/render.rs"]
mod render;
#[path = "armature/toc.rs"]
mod toc;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

/// Continuous collision detection for articulated models.
#[derive(Debug, Parser)]
#[command(
    name = "armature",
    version,
    after_help = "Exit status: 0 when the query ran, whatever its answer (with --batch: when \
                  the batch ran, even if some lines were errors); 2 for bad input (scene file, \
                  configuration, option); 1 when the answer cannot be written."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print a scene: bodies, movable joints in configuration order, links,
    /// obstacles and test settings.
    Info(info::InfoArgs),
    /// First time of contact while the bodies move from one configuration to
    /// another.
    Toc(toc::TocArgs),
    /// Discrete collision and distance at one configuration.
    Check(check::CheckArgs),
    /// Whether a path through waypoints (joint-space straight segments) is
    /// collision-free, by adaptive bisection.
    Path(path::PathArgs),
    /// Generalized penetration depth: the least motion (object norm) that
    /// takes an in-collision configuration to a collision-free one in
    /// contact.
    Pd(pd::PdArgs),
    /// A picture of the scene at a configuration, or at the first contact
    /// of a motion (the pair in red, the contact point marked), as a PNG.
    Render(render::RenderArgs),
    /// The links' collision volumes drawn over a camera image, the camera's
    /// pose fitted to labelled points (PnP), as a PNG.
    Overlay(overlay::OverlayArgs),
    /// One cycle of the safety monitor (M3): whether the robots must brake
    /// now, from joint values, velocities and braking models.
    Monitor(monitor::MonitorArgs),
}

/// The options every command takes.
#[derive(Debug, Args)]
struct Common {
    /// The scene file (RON; paths inside are relative to it).
    #[arg(long, value_name = "FILE")]
    scene: PathBuf,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// Why a command did not finish.
#[derive(Debug)]
enum Failure {
    /// Bad input: the query could not run (exit status 2).
    Input(armature::Error),
    /// Bad input the command words itself, in the user's terms: an option
    /// named by its flag, a motion too large (exit status 2).
    Message(String),
    /// The answer could not be written (exit status 1).
    Output(std::io::Error),
}

impl From<armature::Error> for Failure {
    fn from(e: armature::Error) -> Self {
        Self::Input(e)
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        Self::Output(e)
    }
}

fn main() -> ExitCode {
    // Usage errors exit with status 2 inside `parse`, help and version 0.
    let cli = Cli::parse();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let result = match &cli.command {
        Command::Info(args) => info::run(args, &mut out),
        Command::Toc(args) => toc::run(args, &mut out),
        Command::Check(args) => check::run(args, &mut out),
        Command::Path(args) => path::run(args, &mut out),
        Command::Pd(args) => pd::run(args, &mut out),
        Command::Render(args) => render::run(args, &mut out),
        Command::Overlay(args) => overlay::run(args, &mut out),
        Command::Monitor(args) => monitor::run(args, &mut out),
    }
    .and_then(|()| out.flush().map_err(Failure::from));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // A failure to write on stderr leaves nothing better to do than
        // exit with the status (`eprintln!` would panic instead).
        Err(Failure::Input(e)) => {
            let _ = writeln!(
                std::io::stderr(),
                "error: {}",
                error_lines(&e).join("\n  caused by: ")
            );
            ExitCode::from(2)
        }
        Err(Failure::Message(m)) => {
            let _ = writeln!(std::io::stderr(), "error: {m}");
            ExitCode::from(2)
        }
        Err(Failure::Output(e)) => {
            // A closed pipe (`armature info … | head`) is not worth a word.
            if e.kind() != std::io::ErrorKind::BrokenPipe {
                let _ = writeln!(std::io::stderr(), "error: cannot write the answer: {e}");
            }
            ExitCode::from(1)
        }
    }
}

impl Failure {
    /// The failure on one line (a batch's error objects): the message and
    /// its causes joined by `: `.
    fn one_line(&self) -> String {
        match self {
            Self::Input(e) => error_lines(e).join(": "),
            Self::Message(m) => m.clone(),
            Self::Output(e) => format!("cannot write the answer: {e}"),
        }
    }
}

/// The message, then each source the text so far does not already quote
/// (most of the facade's messages embed their source's): printed as
/// `error: <message>` and one `caused by: ` line per source.
fn error_lines(e: &dyn std::error::Error) -> Vec<String> {
    let mut lines = vec![e.to_string()];
    let mut source = e.source();
    while let Some(s) = source {
        let line = s.to_string();
        if !lines.iter().any(|l| l.contains(&line)) {
            lines.push(line);
        }
        source = s.source();
    }
    lines
}
