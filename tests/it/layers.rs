//! The dependency rule of `docs/architecture.md`, checked on the sources:
//! nothing below the run orchestration imports the report, only the
//! planner imports the outcome's types, and no import
//! cycle between top-level modules, nor between files, appears beyond the
//! ones the document names (none between modules today, three between
//! files). The edges are the `crate::X` (and, between files, `super::X`)
//! paths in each file's code (comments and doc examples left out).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The modules below the run orchestration (`invocation/`, `hook.rs`,
/// `main.rs`): the core and the edges it hands its outcome to.
const BELOW_THE_RUN: &[&str] = &[
    "apply",
    "content",
    "error",
    "git",
    "journal",
    "locate",
    "lock",
    "model",
    "outcome",
    "patch",
    "plan",
    "sigbus",
    "signals",
    "source",
    "target",
    "test_hooks",
    "write",
];

/// The cycles `docs/architecture.md` names as remaining, each sorted:
/// none today. A new one fails the test until the document names it (and
/// says why it stays) or the modules are untangled.
const KNOWN_CYCLES: &[&[&str]] = &[];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Top-level module of a file under `src/` (`locate` for
/// `src/locate/search.rs`, `cli` for `src/cli/help.rs`).
fn top(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// The names `code` reaches as `crate::NAME`, also inside `use crate::{…}`.
fn reached(code: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let word = |s: &str| {
        s.chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '_')
            .collect::<String>()
    };
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for part in group[..end].split(',') {
                names.insert(word(part.trim()));
            }
        } else {
            names.insert(word(rest));
        }
    }
    names
}

/// The text of `file` with its `//` comments cut off each line.
fn code_of(file: &Path) -> String {
    fs::read_to_string(file)
        .unwrap()
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `crate::X` edge between the top-level modules of `src/`.
fn edges() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<String> = files.iter().map(|f| top(&src, f)).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let from = top(&src, file);
        let code = code_of(file);
        for to in reached(&code) {
            if to != from && modules.contains(&to) {
                edges.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    edges
}

/// The strongly connected components of more than one module, each sorted.
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> BTreeSet<Vec<String>> {
    let reach = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_string()];
        while let Some(m) = todo.pop() {
            for next in edges.get(&m).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&String, BTreeSet<String>> =
        edges.keys().map(|m| (m, reach(m))).collect();
    let mut found = BTreeSet::new();
    for (m, from_m) in &reaches {
        let mut component: Vec<String> = from_m
            .iter()
            .filter(|o| *o != *m && reaches.get(o).is_some_and(|r| r.contains(*m)))
            .cloned()
            .collect();
        if !component.is_empty() {
            component.push((*m).clone());
            component.sort();
            found.insert(component);
        }
    }
    found
}

#[test]
fn nothing_below_the_run_imports_the_report() {
    let edges = edges();
    let offenders: Vec<&String> = edges
        .iter()
        .filter(|(from, to)| BELOW_THE_RUN.contains(&from.as_str()) && to.contains("report"))
        .map(|(from, _)| from)
        .collect();
    assert!(
        offenders.is_empty(),
        "these modules import crate::report, which is built from their outcome: {offenders:?}"
    );
}

/// Below the run, the modules that may import `outcome` (its `Problem`, the
/// report's data): the planner, which makes the outcome. The parser, the
/// ladder, the edit planner and the edges (targets, git, writing, the
/// journal) fail with errors of their own (docs/architecture.md, "Errors").
const MAKE_THE_OUTCOME: &[&str] = &["apply", "outcome"];

#[test]
fn below_the_run_only_the_planner_imports_the_outcome() {
    let edges = edges();
    let offenders: Vec<&String> = edges
        .iter()
        .filter(|(from, to)| {
            BELOW_THE_RUN.contains(&from.as_str())
                && !MAKE_THE_OUTCOME.contains(&from.as_str())
                && to.contains("outcome")
        })
        .map(|(from, _)| from)
        .collect();
    assert!(
        offenders.is_empty(),
        "these modules import crate::outcome instead of failing with errors of their own: {offenders:?}"
    );
}

#[test]
fn no_import_cycle_beyond_the_ones_named() {
    let found = cycles(&edges());
    let known: BTreeSet<Vec<String>> = KNOWN_CYCLES
        .iter()
        .map(|c| c.iter().map(|m| m.to_string()).collect())
        .collect();
    let new: Vec<&Vec<String>> = found.difference(&known).collect();
    assert!(
        new.is_empty(),
        "import cycles between top-level modules that docs/architecture.md does not name: {new:?}"
    );
}

/// The cycles between files (modules below the top level) that
/// `docs/architecture.md` names as remaining, each sorted. Each is between
/// two files of one module that the placement or parser work was editing
/// when the check went in; a new one fails the test.
const KNOWN_FILE_CYCLES: &[&[&str]] = &[
    &["locate/applied", "locate/numbered"],
    &["locate/keys", "locate/prefilter"],
    &["patch/codex", "patch/hunk"],
];

/// The module path of a file under `src/` (`locate/keys` for
/// `src/locate/keys.rs`, `locate` for `src/locate/mod.rs`).
fn module_path(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let rel = rel.to_string_lossy().replace('\\', "/");
    rel.strip_suffix("/mod").unwrap_or(&rel).to_string()
}

/// The first one or two names of each path that starts with `prefix`
/// (`super::` or `crate::`) in `code`, also inside `prefix{…}` groups:
/// `crate::locate::{keys, prefilter::Needle}` gives `locate/keys` and
/// `locate/prefilter`.
fn named_after(code: &str, prefix: &str) -> BTreeSet<String> {
    let word = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    // The heads of `rest`: one word, or the first word of each part of a group.
    let heads = |rest: &str| -> Vec<(String, String)> {
        let parts: Vec<&str> = match rest.strip_prefix('{') {
            Some(group) => group[..group.find('}').unwrap_or(group.len())]
                .split(',')
                .collect(),
            None => vec![rest],
        };
        parts
            .into_iter()
            .map(|p| {
                let p = p.trim_start();
                let w = word(p);
                let after = p[w.len()..].strip_prefix("::").unwrap_or("").to_string();
                (w, after)
            })
            .filter(|(w, _)| !w.is_empty())
            .collect()
    };
    let mut names = BTreeSet::new();
    for (i, _) in code.match_indices(prefix) {
        let before = code[..i].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        for (first, after) in heads(&code[i + prefix.len()..]) {
            let seconds = heads(&after);
            if seconds.is_empty() {
                names.insert(first.clone());
            }
            for (second, _) in seconds {
                names.insert(format!("{first}/{second}"));
            }
        }
    }
    names
}

/// Every edge between two files of `src/`: `super::NAME` and
/// `crate::TOP::NAME` paths to another file's module, leaving out a file's
/// own ancestors (a child uses its parent's types by design).
fn file_edges() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<String> = files.iter().map(|f| module_path(&src, f)).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let from = module_path(&src, file);
        let code = code_of(file);
        let is_mod = file.ends_with("mod.rs");
        let parent = from.rsplit_once('/').map_or("", |(p, _)| p);
        let mut targets: Vec<String> = Vec::new();
        if !is_mod && !parent.is_empty() {
            for name in named_after(&code, "super::") {
                let first = name.split('/').next().unwrap_or("");
                targets.push(format!("{parent}/{first}"));
            }
        }
        for name in named_after(&code, "crate::") {
            targets.push(name.clone());
            targets.push(name.split('/').next().unwrap_or("").to_string());
        }
        for to in targets {
            let ancestor = from.starts_with(&format!("{to}/"));
            if to != from && !ancestor && modules.contains(&to) && to.contains('/') {
                edges.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    edges
}

#[test]
fn no_import_cycle_between_files_beyond_the_ones_named() {
    let edges = file_edges();
    // The check sees the edges it must: this one is there today.
    assert!(
        edges
            .get("apply/file")
            .is_some_and(|to| to.contains("apply/hunks")),
        "{edges:?}"
    );
    let found = cycles(&edges);
    let known: BTreeSet<Vec<String>> = KNOWN_FILE_CYCLES
        .iter()
        .map(|c| c.iter().map(|m| m.to_string()).collect())
        .collect();
    let new: Vec<&Vec<String>> = found.difference(&known).collect();
    assert!(
        new.is_empty(),
        "import cycles between files that docs/architecture.md does not name: {new:?}"
    );
}
