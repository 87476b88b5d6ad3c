//! Loading a scene for a command: progress of long loads as a bar on
//! stderr, drawn only when stderr is a terminal, never for JSON or batch
//! output, and only once the load has taken [`SHOW_AFTER`], so that the
//! common sub-second load prints nothing; then the load's warnings
//! (dropped degenerate triangles), one `warning:` line each on stderr.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use armature::{LoadProgress, Scene};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long a load runs before its bar appears.
const SHOW_AFTER: Duration = Duration::from_secs(1);

/// Loads the scene file at `path`, with a progress bar on a terminal
/// unless `quiet` (JSON or batch output), and says its warnings on stderr.
pub(crate) fn load_scene(path: &Path, quiet: bool) -> Result<Scene, armature::Error> {
    let scene = load_with_progress(path, quiet)?;
    let mut err = std::io::stderr().lock();
    for w in scene.warnings() {
        // Nothing better to do when stderr is closed.
        let _ = writeln!(err, "warning: {w}");
    }
    Ok(scene)
}

fn load_with_progress(path: &Path, quiet: bool) -> Result<Scene, armature::Error> {
    if quiet || !std::io::stderr().is_terminal() {
        return Scene::from_file(path);
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    if let Ok(style) = ProgressStyle::with_template(
        "{spinner} loading {prefix} [{pos}/{len}] {elapsed} {wide_msg}",
    ) {
        bar.set_style(style);
    }
    bar.set_prefix(path.display().to_string());
    bar.enable_steady_tick(Duration::from_millis(120));
    let (done, finished) = mpsc::channel::<()>();
    let shown = bar.clone();
    let reveal = std::thread::spawn(move || {
        if finished.recv_timeout(SHOW_AFTER) == Err(mpsc::RecvTimeoutError::Timeout) {
            shown.set_draw_target(ProgressDrawTarget::stderr());
        }
    });
    let scene = Scene::from_file_with_progress(path, &mut |p: LoadProgress<'_>| {
        bar.set_length(p.total as u64);
        bar.set_position(p.done as u64);
        bar.set_message(p.current.to_owned());
    });
    // The receiver is gone once the bar is shown; nothing to tell it then.
    let _ = done.send(());
    let _ = reveal.join();
    bar.finish_and_clear();
    scene
}
