//! Oracles that can see a wrong edit, run over every fixture case that
//! applies (`after/`), through the built binary:
//!
//! - **Twice equals once.** The patch run again on `after/` changes
//!   nothing: it exits 0 with the tree unchanged (every hunk already
//!   applied), or refuses (exit 1, nothing written).
//! - **`-R` undoes.** `-R` on `after/` gives `before/` back, or refuses.
//!   That holds where the forward run placed every hunk byte for byte (tier
//!   `exact`, no normalisation). Where it read lines with tolerance (case,
//!   whitespace, a blank context line written as an added one) or placed a
//!   hunk without lines to match (an append, a file created without
//!   `/dev/null`), `-R` writes the patch's own lines, not the file's, so
//!   the check there is the other way round: the patch applied forward to
//!   the `-R` result gives `after/` again, or is refused.
//!
//! The cases whose `before/` equals `after/` (already applied) take the
//! second form of the `-R` check.
//!
//! A case may hold a file `not-reversible` saying why the `-R` oracle
//! cannot hold for it; the test then checks that it indeed fails, so an
//! exception never outlives its reason.

use std::fs;
use std::path::Path;
use std::process::Command;

use super::fixtures::{all_cases, case_args, copy_tree, describe_difference, read_tree};
use crate::support::{BIN, WATCHDOG, output_within};

/// Runs the binary in `dir` with the case's arguments (and `extra`);
/// returns its exit code and stdout.
fn run(case: &Path, dir: &Path, extra: &[&str]) -> (Option<i32>, Vec<u8>) {
    let mut args = case_args(case);
    let reverse = extra.contains(&"-R");
    if reverse && args.iter().any(|a| a == "-R" || a == "--reverse") {
        // A case recorded with `-R`: its undoing is the forward run.
        args.retain(|a| a != "-R" && a != "--reverse");
    } else {
        args.extend(
            extra
                .iter()
                .filter(|a| **a != "-R" || reverse)
                .map(|a| a.to_string()),
        );
    }
    args.push(case.join("patch").display().to_string());
    let mut command = Command::new(BIN);
    command.args(&args).current_dir(dir);
    let output = output_within(&mut command, b"", WATCHDOG);
    (output.status.code(), output.stdout)
}

/// True when the forward run on `before/` placed every hunk byte for byte:
/// each hunk's tier is `exact` and it needed no normalisation.
fn placed_exactly(case: &Path) -> bool {
    let work = tempfile::tempdir().expect("tempdir");
    copy_tree(&case.join("before"), work.path());
    let (code, stdout) = run(case, work.path(), &["--json"]);
    assert_eq!(code, Some(0), "{}: the forward run failed", case.display());
    let report: serde_json::Value = serde_json::from_slice(&stdout).expect("JSON report");
    report["files"]
        .as_array()
        .expect("files")
        .iter()
        .flat_map(|f| f["hunks"].as_array().cloned().unwrap_or_default())
        .all(|h| {
            h["tier"] == "exact" && h["normalizations"].as_array().is_some_and(|n| n.is_empty())
        })
}

/// Runs `extra` on a copy of `from`; returns what went wrong when the run
/// neither refused (exit 1, tree unchanged) nor gave `want`.
fn check(case: &Path, from: &Path, extra: &[&str], want: &Path, what: &str) -> Option<String> {
    let work = tempfile::tempdir().expect("tempdir");
    copy_tree(from, work.path());
    let start = read_tree(work.path());
    let (code, _) = run(case, work.path(), extra);
    let got = read_tree(work.path());
    match code {
        Some(1) if got == start => None,
        Some(0) if got == read_tree(want) => None,
        Some(0) => Some(format!(
            "{what}: exit 0 with a tree other than {}:\n{}",
            want.display(),
            describe_difference(&got, &read_tree(want))
        )),
        other => Some(format!(
            "{what}: exit {other:?}{}",
            if got == start {
                ""
            } else {
                " and the tree changed"
            }
        )),
    }
}

/// The oracles for one case; what went wrong, if anything.
fn oracles(case: &Path) -> Vec<String> {
    let after = case.join("after");
    let mut problems = Vec::new();
    problems.extend(check(case, &after, &[], &after, "run again on after/"));
    let reversal = reverse_oracle(case);
    match fs::read_to_string(case.join("not-reversible")) {
        Err(_) => problems.extend(reversal),
        Ok(_) if reversal.is_empty() => problems.push(
            "`not-reversible` says -R cannot undo this case, yet it does: remove the file".into(),
        ),
        Ok(_) => {}
    }
    problems
}

/// The `-R` oracle for one case; what went wrong, if anything.
fn reverse_oracle(case: &Path) -> Vec<String> {
    let (before, after) = (case.join("before"), case.join("after"));
    let mut problems = Vec::new();
    if read_tree(&before) != read_tree(&after) && placed_exactly(case) {
        problems.extend(check(case, &after, &["-R"], &before, "-R on after/"));
    } else {
        // -R on after/, then the patch forward again.
        let work = tempfile::tempdir().expect("tempdir");
        copy_tree(&after, work.path());
        let (code, _) = run(case, work.path(), &["-R"]);
        if code == Some(0) {
            problems.extend(check(
                case,
                work.path(),
                &[],
                &after,
                "forward on the -R result of after/",
            ));
        } else if code != Some(1) || read_tree(work.path()) != read_tree(&after) {
            problems.push(format!("-R on after/: exit {code:?}, or the tree changed"));
        }
    }
    problems
}

#[test]
fn every_applied_fixture_runs_twice_as_once_and_reverses() {
    let only = std::env::var("FIXTURE").ok();
    let cases: Vec<_> = all_cases()
        .into_iter()
        .filter(|c| c.join("after").is_dir())
        .filter(|c| {
            let name = c.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            only.as_deref().is_none_or(|o| name.contains(o))
        })
        .collect();
    assert!(
        only.is_some() || cases.len() >= 150,
        "only {} applying cases",
        cases.len()
    );
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            let problems = oracles(case);
            (!problems.is_empty()).then(|| {
                let name = case
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or_default();
                format!("{name}:\n    {}", problems.join("\n    "))
            })
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} applying fixture cases fail an oracle:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
