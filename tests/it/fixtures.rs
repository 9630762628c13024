//! Runs every case folder under `fixtures/` through the built binary.
//!
//! A case is `before/` (the tree), `patch` (the patch text), and either
//! `after/` (the whole expected tree, exit 0) or `expected-error` (substrings
//! stderr must contain, tree unchanged, exit 1). An optional `args` file holds
//! extra arguments, one per line. See `docs/fixtures.md`.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support;
use support::{BIN, WATCHDOG, output_within};

pub(crate) fn read_tree(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    if !root.exists() {
        return out;
    }
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).expect("readable fixture dir") {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(root).expect("under root").to_path_buf();
                out.insert(rel, fs::read(&path).expect("readable file"));
            }
        }
    }
    out
}

pub(crate) fn copy_tree(from: &Path, to: &Path) {
    for (rel, bytes) in read_tree(from) {
        let dest = to.join(rel);
        fs::create_dir_all(dest.parent().expect("has parent")).expect("mkdir");
        fs::write(dest, bytes).expect("write");
    }
}

pub(crate) fn describe_difference(
    got: &BTreeMap<PathBuf, Vec<u8>>,
    want: &BTreeMap<PathBuf, Vec<u8>>,
) -> String {
    let mut msg = String::new();
    for (path, bytes) in want {
        match got.get(path) {
            None => msg.push_str(&format!("    missing {}\n", path.display())),
            Some(g) if g != bytes => msg.push_str(&format!(
                "    {} differs:\n--- want\n{}\n--- got\n{}\n",
                path.display(),
                String::from_utf8_lossy(bytes),
                String::from_utf8_lossy(g)
            )),
            _ => {}
        }
    }
    for path in got.keys() {
        if !want.contains_key(path) {
            msg.push_str(&format!("    unexpected {}\n", path.display()));
        }
    }
    msg
}

/// The case's extra arguments (its `args` file, one per line).
pub(crate) fn case_args(case: &Path) -> Vec<String> {
    fs::read_to_string(case.join("args"))
        .map(|s| {
            s.lines()
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Every case folder under `fixtures/`, sorted.
pub(crate) fn all_cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut cases: Vec<PathBuf> = fs::read_dir(&root)
        .expect("fixtures/ exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("patch").is_file())
        .collect();
    cases.sort();
    cases
}

/// Runs one case; returns a description of what went wrong, if anything.
fn run_case(case: &Path) -> Option<String> {
    let work = tempfile::tempdir().expect("tempdir");
    copy_tree(&case.join("before"), work.path());
    let mut args = case_args(case);
    args.push(case.join("patch").display().to_string());
    let mut command = Command::new(BIN);
    command.args(&args).current_dir(work.path());
    let output = output_within(&mut command, b"", WATCHDOG);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let code = output.status.code();
    let got = read_tree(work.path());
    let expected_error = fs::read_to_string(case.join("expected-error")).ok();
    let (want_tree, want_code) = match &expected_error {
        Some(_) => (read_tree(&case.join("before")), Some(1)),
        None => (read_tree(&case.join("after")), Some(0)),
    };
    let mut problems = String::new();
    if code != want_code {
        problems.push_str(&format!("    exit code {code:?}, want {want_code:?}\n"));
    }
    if let Some(expected) = &expected_error {
        for needle in expected.lines().map(str::trim).filter(|l| !l.is_empty()) {
            if !stderr.contains(needle) {
                problems.push_str(&format!("    stderr lacks {needle:?}\n"));
            }
        }
    }
    if got != want_tree {
        problems.push_str(&describe_difference(&got, &want_tree));
    }
    if problems.is_empty() {
        None
    } else {
        Some(format!(
            "{problems}    stderr: {}",
            stderr.trim_end().replace('\n', "\n            ")
        ))
    }
}

#[test]
fn every_fixture_case_behaves_as_recorded() {
    let cases = all_cases();
    assert!(cases.len() >= 150, "only {} fixture cases", cases.len());
    let only = std::env::var("FIXTURE").ok();
    let mut failures = Vec::new();
    for case in &cases {
        let name = case
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if only.as_deref().is_some_and(|o| !name.contains(o)) {
            continue;
        }
        if let Some(problem) = run_case(case) {
            failures.push(format!("{name}:\n{problem}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} fixture cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
