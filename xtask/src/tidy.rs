//! Tidy: repository rules checked as tests.
//!
//! - **Layering.** Every dependency of an `armature*` package on another
//!   workspace crate (normal, build and dev kinds alike) must be an edge of
//!   the table in docs/architecture.md; [`layering_violations`] reads the JSON of
//!   `cargo metadata --format-version 1 --no-deps`.
//! - **No placeholders.** No `.rs` file under `crates/` calls the `todo` or
//!   `unimplemented` macros: every function that exists works.
//! - **Contract docs.** Every crate under `crates/` has a `src/lib.rs` whose
//!   first line opens the crate doc (`//!`), where the crate states its
//!   contract.
//!
//! Each rule is a pure function over text or parsed JSON with its own unit
//! tests (including inputs that must fail), and a `#[test]` applies it to
//! the repository.

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde_json::Value;

/// The three base crates that every method crate may use.
const BASE: [&str; 3] = [
    "armature-interval-taylor",
    "armature-kinematics",
    "armature-bvh-geometry",
];

/// Which workspace crates a package may depend on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Allowed {
    /// Exactly these workspace crates (or a subset of them).
    Only(&'static [&'static str]),
    /// Any workspace crate: the drivers on top of the stack.
    Any,
}

/// The allowed table of docs/architecture.md, keyed by package name; `None` for a
/// package the table does not know (a new crate must be added to the design
/// and to this table together).
fn allowed(package: &str) -> Option<Allowed> {
    const METHOD: &[&str] = &BASE;
    const PD: &[&str] = &[BASE[0], BASE[1], BASE[2], "armature-conservative-advance"];
    const FACADE: &[&str] = &[
        BASE[0],
        BASE[1],
        BASE[2],
        "armature-gpu-cullide",
        "armature-elementary-ccd",
        "armature-conservative-advance",
        "armature-adaptive-bisection",
        "armature-penetration-depth",
    ];
    Some(match package {
        "armature-interval-taylor" => Allowed::Only(&[]),
        "armature-kinematics" => Allowed::Only(&BASE[..1]),
        "armature-bvh-geometry" => Allowed::Only(&BASE[..2]),
        "armature-gpu-cullide"
        | "armature-elementary-ccd"
        | "armature-conservative-advance"
        | "armature-adaptive-bisection" => Allowed::Only(METHOD),
        "armature-penetration-depth" => Allowed::Only(PD),
        "armature" => Allowed::Only(FACADE),
        "xtask" | "armature-benches" => Allowed::Any,
        _ => return None,
    })
}

/// Whether the layering rule applies to a workspace package.
fn is_checked(package: &str) -> bool {
    package == "armature" || package.starts_with("armature-") || package == "xtask"
}

/// A breach of the layering table.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Violation {
    /// `from` depends on the workspace crate `to` through a dependency of
    /// `kind` (`normal`, `build` or `dev`), and the table has no such edge.
    Forbidden {
        /// The depending package.
        from: String,
        /// The workspace crate it depends on.
        to: String,
        /// The dependency kind as cargo names it, `normal` for none.
        kind: String,
    },
    /// A workspace package named `armature*` that the table does not list.
    NotInTable(String),
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Forbidden { from, to, kind } => {
                write!(
                    f,
                    "{from} -> {to} ({kind} dependency) is not in docs/architecture.md"
                )
            }
            Self::NotInTable(name) => write!(
                f,
                "{name} is a workspace crate missing from the layering table \
                 (add it to docs/architecture.md and to xtask/src/tidy.rs)"
            ),
        }
    }
}

/// A string field of a JSON object, or an error naming the field.
fn str_field<'a>(value: &'a Value, field: &str) -> Result<&'a str> {
    value
        .get(field)
        .and_then(Value::as_str)
        .with_context(|| format!("`{field}` missing or not a string in {value}"))
}

/// An array field of a JSON object, or an error naming the field.
fn array_field<'a>(value: &'a Value, field: &str) -> Result<&'a [Value]> {
    value
        .get(field)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .with_context(|| format!("`{field}` missing or not an array"))
}

/// Every edge between workspace crates that the table of docs/architecture.md does
/// not allow, sorted, given the JSON printed by
/// `cargo metadata --format-version 1 --no-deps`.
///
/// Dev-dependencies are held to the same table: a test may use any crate
/// its crate may depend on, and nothing more.
///
/// # Errors
/// When the JSON lacks the fields of cargo's metadata format 1.
fn layering_violations(metadata: &Value) -> Result<Vec<Violation>> {
    let members: BTreeSet<&str> = array_field(metadata, "workspace_members")?
        .iter()
        .map(|id| id.as_str().context("workspace member id is not a string"))
        .collect::<Result<_>>()?;
    let packages: Vec<&Value> = array_field(metadata, "packages")?
        .iter()
        .map(|p| Ok((members.contains(str_field(p, "id")?), p)))
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .filter_map(|(member, p)| member.then_some(p))
        .collect();
    let workspace: BTreeSet<&str> = packages
        .iter()
        .map(|p| str_field(p, "name"))
        .collect::<Result<_>>()?;

    let mut violations = BTreeSet::new();
    for package in &packages {
        let name = str_field(package, "name")?;
        if !is_checked(name) {
            continue;
        }
        let Some(rule) = allowed(name) else {
            violations.insert(Violation::NotInTable(name.to_owned()));
            continue;
        };
        for dep in array_field(package, "dependencies")? {
            let to = str_field(dep, "name")?;
            if !workspace.contains(to) {
                continue;
            }
            // A dev-dependency of a crate on itself only turns on its own
            // features for its tests (no new edge between crates).
            let kind = dep.get("kind").and_then(Value::as_str);
            let ok = (to == name && kind == Some("dev"))
                || match rule {
                    Allowed::Any => true,
                    Allowed::Only(list) => list.contains(&to),
                };
            if !ok {
                let kind = dep.get("kind").and_then(Value::as_str).unwrap_or("normal");
                violations.insert(Violation::Forbidden {
                    from: name.to_owned(),
                    to: to.to_owned(),
                    kind: kind.to_owned(),
                });
            }
        }
    }
    Ok(violations.into_iter().collect())
}

/// Spelled in two pieces so that this file does not contain the calls it
/// forbids.
const PLACEHOLDERS: [&str; 2] = [concat!("todo", "!("), concat!("unimplemented", "!(")];

/// The 1-based line numbers of `text` that call a placeholder macro, each
/// with the macro found.
fn placeholder_lines(text: &str) -> Vec<(usize, &'static str)> {
    text.lines()
        .enumerate()
        .flat_map(|(i, line)| {
            PLACEHOLDERS
                .iter()
                .filter(move |needle| line.contains(**needle))
                .map(move |needle| (i + 1, *needle))
        })
        .collect()
}

/// Why a `lib.rs` does not open with the crate doc, or `None` if it does.
fn crate_doc_problem(lib_rs: &str) -> Option<&'static str> {
    match lib_rs.lines().next() {
        None => Some("is empty"),
        Some(first) if first.starts_with("//!") => None,
        Some(_) => Some("does not start with a `//!` crate doc"),
    }
}

/// The workspace root: the parent of this crate's directory.
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the workspace root")
        .to_path_buf()
}

/// Every `.rs` file under `dir`, recursively, skipping build output and
/// hidden directories, sorted for stable messages.
fn rust_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries =
            std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))?;
        for entry in entries {
            let path = entry?.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if path.is_dir() {
                if name != "target" && !name.starts_with('.') {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// The crate directories under `crates/`: those holding a `Cargo.toml`.
fn crate_dirs(root: &Path) -> Result<Vec<PathBuf>> {
    let crates = root.join("crates");
    let mut dirs = Vec::new();
    for entry in
        std::fs::read_dir(&crates).with_context(|| format!("reading {}", crates.display()))?
    {
        let path = entry?.path();
        if path.join("Cargo.toml").is_file() {
            dirs.push(path);
        }
    }
    dirs.sort();
    Ok(dirs)
}

/// Runs `cargo metadata --format-version 1 --no-deps` in the workspace root
/// and parses its output.
fn cargo_metadata(root: &Path) -> Result<Value> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(&cargo)
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(root)
        .output()
        .with_context(|| format!("running {} metadata", cargo.to_string_lossy()))?;
    if !output.status.success() {
        bail!(
            "cargo metadata failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    serde_json::from_slice(&output.stdout).context("parsing cargo metadata output")
}

#[test]
fn layering_matches_design() -> Result<()> {
    let metadata = cargo_metadata(&workspace_root())?;
    let violations = layering_violations(&metadata)?;
    let checked = array_field(&metadata, "packages")?
        .iter()
        .filter(|p| {
            p["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("armature"))
        })
        .count();
    assert!(
        checked >= 9,
        "expected the nine armature crates, found {checked}"
    );
    if !violations.is_empty() {
        let list: Vec<String> = violations.iter().map(|v| format!("  {v}")).collect();
        bail!(
            "{} dependency edge(s) break the layering of docs/architecture.md:\n{}",
            violations.len(),
            list.join("\n")
        );
    }
    Ok(())
}

#[test]
fn no_placeholder_macros_in_crates() -> Result<()> {
    let root = workspace_root();
    let this_file = root.join(file!());
    let mut found = Vec::new();
    for path in rust_files(&root.join("crates"))? {
        if path == this_file {
            continue;
        }
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let shown = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .display()
            .to_string();
        for (line, needle) in placeholder_lines(&text) {
            found.push(format!("  {shown}:{line}: {needle}"));
        }
    }
    if !found.is_empty() {
        bail!(
            "placeholder macros in library code (write the code or leave the item out):\n{}",
            found.join("\n")
        );
    }
    Ok(())
}

#[test]
fn every_crate_opens_with_its_contract_doc() -> Result<()> {
    let root = workspace_root();
    let dirs = crate_dirs(&root)?;
    assert!(!dirs.is_empty(), "no crates found under crates/");
    let mut problems = Vec::new();
    for dir in dirs {
        let lib = dir.join("src").join("lib.rs");
        let shown = lib
            .strip_prefix(&root)
            .unwrap_or(&lib)
            .display()
            .to_string();
        match std::fs::read_to_string(&lib) {
            Ok(text) => {
                if let Some(why) = crate_doc_problem(&text) {
                    problems.push(format!("  {shown} {why}"));
                }
            }
            Err(err) => problems.push(format!("  {shown} cannot be read: {err}")),
        }
    }
    if !problems.is_empty() {
        bail!("crates without a contract doc:\n{}", problems.join("\n"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// One package's dependencies as `(name, kind)`, `kind` `None` for normal.
    type Deps<'a> = &'a [(&'a str, Option<&'a str>)];

    /// A hand-written metadata document: `deps` lists, per package, its
    /// dependencies.
    fn metadata(deps: &[(&str, Deps<'_>)]) -> Value {
        let packages: Vec<Value> = deps
            .iter()
            .map(|(name, list)| {
                json!({
                    "name": name,
                    "id": format!("path+file:///ws#{name}@0.1.0"),
                    "dependencies": list
                        .iter()
                        .map(|(dep, kind)| json!({"name": dep, "kind": kind, "rename": null}))
                        .collect::<Vec<_>>(),
                })
            })
            .collect();
        let members: Vec<Value> = packages.iter().map(|p| p["id"].clone()).collect();
        json!({"packages": packages, "workspace_members": members, "version": 1})
    }

    const IT: &str = "armature-interval-taylor";
    const KIN: &str = "armature-kinematics";
    const GEO: &str = "armature-bvh-geometry";
    const CA: &str = "armature-conservative-advance";
    const AB: &str = "armature-adaptive-bisection";

    #[test]
    fn design_stack_has_no_violations() {
        let doc = metadata(&[
            (IT, &[("glam", None), ("proptest", Some("dev"))]),
            (KIN, &[(IT, None)]),
            (GEO, &[(IT, None), (KIN, None), (KIN, Some("dev"))]),
            (CA, &[(IT, None), (KIN, None), (GEO, None)]),
            (AB, &[(GEO, None), (KIN, Some("build"))]),
            ("armature-penetration-depth", &[(CA, None), (GEO, None)]),
            ("armature", &[(CA, None), (AB, None), (IT, None)]),
            ("xtask", &[("armature", None), (AB, None)]),
            ("armature-benches", &[("armature", None), (IT, None)]),
        ]);
        assert_eq!(layering_violations(&doc).unwrap(), vec![]);
    }

    #[test]
    fn upward_edge_is_detected() {
        let doc = metadata(&[
            (IT, &[]),
            (KIN, &[(IT, None), (GEO, None)]),
            (GEO, &[(IT, None), (KIN, None)]),
        ]);
        assert_eq!(
            layering_violations(&doc).unwrap(),
            vec![Violation::Forbidden {
                from: KIN.into(),
                to: GEO.into(),
                kind: "normal".into(),
            }]
        );
    }

    #[test]
    fn sibling_edges_of_every_kind_are_detected_and_all_listed() {
        let doc = metadata(&[
            (IT, &[]),
            (KIN, &[(IT, None)]),
            (GEO, &[(IT, None), (KIN, None)]),
            (CA, &[(GEO, None), (AB, Some("dev"))]),
            (AB, &[(GEO, None), (CA, Some("build"))]),
        ]);
        let found = layering_violations(&doc).unwrap();
        assert_eq!(found.len(), 2, "{found:?}");
        let text: Vec<String> = found.iter().map(ToString::to_string).collect();
        assert!(text[0].contains(AB) && text[0].contains(CA) && text[0].contains("build"));
        assert!(text[1].contains("dev"));
    }

    #[test]
    fn interval_taylor_may_not_depend_on_any_workspace_crate() {
        let doc = metadata(&[(IT, &[(KIN, Some("dev"))]), (KIN, &[(IT, None)])]);
        assert_eq!(layering_violations(&doc).unwrap().len(), 1);
    }

    #[test]
    fn facade_may_not_be_used_by_a_layer() {
        let doc = metadata(&[(GEO, &[("armature", None)]), ("armature", &[(GEO, None)])]);
        let found = layering_violations(&doc).unwrap();
        assert_eq!(found.len(), 1, "{found:?}");
    }

    #[test]
    fn unknown_armature_crate_is_reported() {
        let doc = metadata(&[("armature-new-thing", &[(IT, None)]), (IT, &[])]);
        assert_eq!(
            layering_violations(&doc).unwrap(),
            vec![Violation::NotInTable("armature-new-thing".into())]
        );
    }

    #[test]
    fn non_workspace_dependencies_are_ignored() {
        // A registry crate that merely shares a name prefix is not an edge.
        let doc = metadata(&[(IT, &[("armature-unrelated", None), ("glam", None)])]);
        assert_eq!(layering_violations(&doc).unwrap(), vec![]);
    }

    #[test]
    fn malformed_metadata_is_an_error() {
        assert!(layering_violations(&json!({"packages": []})).is_err());
    }

    #[test]
    fn placeholders_are_found_by_line() {
        let text = format!(
            "fn a() {{}}\nfn b() {{ {}) }}\nfn c() {{ {}\"x\") }}\n",
            PLACEHOLDERS[0], PLACEHOLDERS[1]
        );
        assert_eq!(
            placeholder_lines(&text),
            vec![(2, PLACEHOLDERS[0]), (3, PLACEHOLDERS[1])]
        );
        assert_eq!(placeholder_lines("let todo = 1; // to do later"), vec![]);
    }

    #[test]
    fn crate_doc_must_be_the_first_line() {
        assert_eq!(crate_doc_problem("//! # crate\n"), None);
        assert!(crate_doc_problem("").is_some());
        assert!(crate_doc_problem("\n//! late\n").is_some());
        assert!(crate_doc_problem("/// item doc\n").is_some());
        assert!(crate_doc_problem("#![allow(x)]\n//! doc\n").is_some());
    }
}
