//! `--batch`: many queries on one loaded scene, one JSON line each.
//!
//! A planner asks thousands of 1–30 ms questions of one scene; loading it
//! per question costs far more than answering. A batch reads one JSON
//! query per line (blank lines skipped), answers them on all cores, and
//! writes one JSON answer per line in input order: the object the single
//! command prints with `--json`, preceded by the query's `line` and `id`.
//! A line that cannot be answered gets `{"line": …, "id": …, "error": …}`
//! and the batch goes on; the exit status stays 0 and stderr counts the
//! errors.

use std::io::{Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use armature::Scene;
use rayon::prelude::*;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::Failure;
use crate::check;
use crate::output::write_json;
use crate::toc::{Setup, TocArgs};

/// One line of a batch's answer: the query's position and id, then the
/// answer or the error.
#[derive(Debug, Serialize)]
struct Line<T> {
    /// Line number in the input (1-based, blank lines counted).
    line: usize,
    /// The query's `id` as given; `null` when it has none.
    id: Value,
    #[serde(flatten)]
    answer: Answer<T>,
}

/// An answer, or why the line has none.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum Answer<T> {
    Ok(T),
    Error { error: String },
}

/// A query line: its number, id and fields, or what is wrong with it.
struct Query {
    line: usize,
    id: Value,
    fields: Result<Map<String, Value>, String>,
}

/// Reads the batch: a file, or stdin for `-`.
fn read(file: &Path) -> Result<String, Failure> {
    let mut text = String::new();
    let read = if file == Path::new("-") {
        std::io::stdin().read_to_string(&mut text)
    } else {
        std::fs::File::open(file).and_then(|mut f| f.read_to_string(&mut text))
    };
    read.map_err(|e| {
        let name = if file == Path::new("-") {
            "stdin".to_owned()
        } else {
            file.display().to_string()
        };
        Failure::Message(format!("batch `{name}`: {e}"))
    })?;
    Ok(text)
}

/// The non-blank lines as JSON objects with only the `allowed` keys; a
/// line that is not gets its reason.
fn queries(text: &str, allowed: &[&str]) -> Vec<Query> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            let line = i + 1;
            let object = match serde_json::from_str::<Value>(l) {
                Ok(Value::Object(m)) => m,
                Ok(other) => {
                    return Query {
                        line,
                        id: Value::Null,
                        fields: Err(format!("expected a JSON object, got `{other}`")),
                    };
                }
                Err(e) => {
                    return Query {
                        line,
                        id: Value::Null,
                        // serde_json places the error in its one-line
                        // document: the column is all that helps here.
                        fields: Err(format!(
                            "not JSON: {e}",
                            e = e
                                .to_string()
                                .replace(&format!(" at line {} column", e.line()), " at column")
                        )),
                    };
                }
            };
            let id = object.get("id").cloned().unwrap_or(Value::Null);
            let fields = if !matches!(id, Value::Null | Value::String(_) | Value::Number(_)) {
                Err(format!("`id` must be a string or a number, got `{id}`"))
            } else if let Some(k) = object.keys().find(|k| !allowed.contains(&k.as_str())) {
                let expected = allowed
                    .iter()
                    .map(|a| format!("`{a}`"))
                    .collect::<Vec<_>>()
                    .join(", ");
                Err(format!("unknown field `{k}`; expected {expected}"))
            } else {
                Ok(object)
            };
            Query { line, id, fields }
        })
        .collect()
}

/// Field `name` of a query: a configuration, as an array of numbers,
/// checked against the scene (length, finiteness).
fn configuration(
    scene: &Scene,
    fields: &Map<String, Value>,
    name: &str,
) -> Result<Vec<f64>, Failure> {
    let value = fields
        .get(name)
        .ok_or_else(|| Failure::Message(format!("missing field `{name}`")))?;
    let Value::Array(items) = value else {
        return Err(Failure::Message(format!(
            "configuration `{name}`: expected an array of numbers, got `{value}`"
        )));
    };
    let q = items
        .iter()
        .enumerate()
        .map(|(k, v)| {
            v.as_f64().ok_or_else(|| {
                Failure::Message(format!(
                    "configuration `{name}`: value {k} `{v}` is not a number"
                ))
            })
        })
        .collect::<Result<Vec<f64>, _>>()?;
    scene.check_configuration(name, &q)?;
    Ok(q)
}

/// Runs `answer` on every query on `threads` (default: rayon's pool, one
/// per core), each worker with its own `init` state; writes the lines in
/// input order and counts the errors on stderr.
fn run<S, T: Serialize + Send>(
    queries: Vec<Query>,
    threads: Option<usize>,
    init: impl Fn() -> S + Sync + Send,
    answer: impl Fn(&mut S, &Map<String, Value>) -> Result<T, Failure> + Sync + Send,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let work = || {
        queries
            .into_par_iter()
            .map_init(&init, |state, q| Line {
                line: q.line,
                id: q.id,
                answer: match q
                    .fields
                    .map_err(Failure::Message)
                    .and_then(|f| answer(state, &f))
                {
                    Ok(a) => Answer::Ok(a),
                    Err(e) => Answer::Error {
                        error: e.one_line(),
                    },
                },
            })
            .collect::<Vec<_>>()
    };
    let lines = match threads {
        None => work(),
        // Rayon reads 0 threads as "the default"; the user meant none.
        Some(0) => {
            return Err(Failure::Message(
                "option `--threads` = 0: must be at least 1".to_owned(),
            ));
        }
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|e| {
                Failure::Message(format!(
                    "option `--threads` = {n}: cannot start the threads: {e}"
                ))
            })?
            .install(work),
    };
    let errors = lines
        .iter()
        .filter(|l| matches!(l.answer, Answer::Error { .. }))
        .count();
    for l in &lines {
        write_json(out, l)?;
    }
    if errors > 0 {
        // Not worth failing the command: the answers are on stdout.
        let _ = writeln!(
            std::io::stderr(),
            "armature: {errors} of {} queries could not be answered (see their `error`)",
            lines.len()
        );
    }
    Ok(())
}

/// `armature toc --batch`: lines `{"id": …, "from": [...], "to": [...]}`.
pub(crate) fn toc(
    args: &TocArgs,
    scene: &Scene,
    file: &Path,
    threads: Option<usize>,
    load: Duration,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let queries = queries(&read(file)?, &["id", "from", "to"]);
    let setup = Setup::new(args, scene)?;
    // Once here, so that a scene or threshold the pipeline rejects is the
    // command's error (status 2), not every line's.
    let start = Instant::now();
    drop(setup.prepare(scene)?);
    let prepare = start.elapsed();
    run(
        queries,
        threads,
        || setup.prepare(scene),
        |prepared, fields| {
            let q0 = configuration(scene, fields, "from")?;
            let q1 = configuration(scene, fields, "to")?;
            let prepared = prepared
                .as_mut()
                .map_err(|e| Failure::Message(e.one_line()))?;
            let mut answer = setup.answer(scene, prepared, q0, q1, ["from", "to"])?;
            answer.set_shared_times(load, prepare);
            Ok(answer)
        },
        out,
    )
}

/// `armature check --batch`: lines `{"id": …, "config": [...]}`.
pub(crate) fn check(
    scene: &Scene,
    path: &str,
    file: &Path,
    threads: Option<usize>,
    load: Duration,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let queries = queries(&read(file)?, &["id", "config"]);
    run(
        queries,
        threads,
        || (),
        |(), fields| {
            let q = configuration(scene, fields, "config")?;
            let mut answer = check::answer(scene, path, q)?;
            answer.set_load_time(load);
            Ok(answer)
        },
        out,
    )
}
