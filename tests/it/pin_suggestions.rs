//! The `--at FILE:N` suggestions printed under an `ambiguous` refusal are
//! exactly the candidates at which `--at` applies the patch: over every
//! fixture refused as `ambiguous`, each candidate place of the JSON report
//! is run through the binary with `--at` and must apply when, and only
//! when, the human report suggested it. Refusals that are no choice between
//! places (lines the patch omitted beside an insertion, added lines already
//! in place, applied already or not) list places but suggest none.

use crate::support::run_bin;
use git_fuzzy_apply::{ApplyOptions, plan_patch};
use std::fs;
use std::path::Path;

fn copy_tree(from: &Path, to: &Path) {
    for entry in fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        let dest = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            fs::create_dir_all(&dest).expect("mkdir");
            copy_tree(&entry.path(), &dest);
        } else {
            fs::copy(entry.path(), dest).expect("copy");
        }
    }
}

/// Runs the fixture's patch in a fresh copy of its `before/` tree.
fn run(case: &Path, extra: &[&str]) -> std::process::Output {
    let dir = tempfile::tempdir().expect("tempdir");
    copy_tree(&case.join("before"), dir.path());
    let args_file = fs::read_to_string(case.join("args")).unwrap_or_default();
    let patch = case.join("patch");
    let mut args: Vec<&str> = args_file.lines().filter(|l| !l.is_empty()).collect();
    args.extend(extra);
    args.push(patch.to_str().expect("utf-8 path"));
    run_bin(dir.path(), &args, None)
}

/// `(path, line)` of every candidate place in the JSON report.
fn candidates(case: &Path) -> Vec<(String, usize)> {
    let out = run(case, &["--json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json report");
    let mut found = Vec::new();
    for file in report["files"].as_array().into_iter().flatten() {
        let path = file["path"].as_str().unwrap_or_default();
        for hunk in file["hunks"].as_array().into_iter().flatten() {
            for line in hunk["failure"]["candidates"]
                .as_array()
                .into_iter()
                .flatten()
            {
                found.push((path.to_string(), line.as_u64().expect("line") as usize));
            }
        }
    }
    found
}

/// The `FILE:N` of every `--at` suggestion in the human report.
fn suggested(case: &Path) -> Vec<String> {
    let out = run(case, &[]);
    assert_eq!(out.status.code(), Some(1), "{}: refused", case.display());
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter_map(|l| l.split("git fuzzy-apply --at ").nth(1))
        .filter_map(|rest| rest.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

#[test]
fn suggested_places_are_exactly_those_where_at_applies() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut cases: Vec<_> = fs::read_dir(&root)
        .expect("fixtures")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            fs::read_to_string(p.join("expected-error")).is_ok_and(|e| e.contains("ambiguous"))
        })
        .collect();
    cases.sort();
    let (mut with, mut without) = (0, 0);
    for case in &cases {
        let shown = suggested(case);
        let places = candidates(case);
        for (path, line) in &places {
            let at = format!("{path}:{line}");
            let applied = run(case, &["--at", &at]).status.success();
            assert_eq!(
                applied,
                shown.contains(&at),
                "{}: --at {at} {} but was {}suggested",
                case.display(),
                if applied { "applies" } else { "is refused" },
                if shown.contains(&at) { "" } else { "not " }
            );
        }
        if shown.is_empty() && !places.is_empty() {
            without += 1;
        } else if !shown.is_empty() {
            with += 1;
        }
    }
    // Both kinds are covered: refusals that --at settles, and refusals
    // listing places that no --at settles.
    assert!(with >= 10 && without >= 5, "with {with}, without {without}");
}

/// A tie settled by a pin on lines an earlier in-order edit keeps: the
/// third of three blocks written to apply in order is tied at lines 4 and
/// 10, and the second places only in order, over lines 4-10. Pinned at
/// line 4 the third overlaps that merged edit (refused); pinned at line 10
/// it removes a line the merged edit keeps as it is, and every block
/// applies, giving what Aider's one-after-another reading gives (where line
/// 10 is the only place left). So line 10, and only it, is suggested. (It
/// used to be refused, and suggested nowhere, while any later hunk
/// reaching into the merged edit's lines unplaced it.)
#[test]
fn a_tie_pinned_on_lines_an_earlier_in_order_edit_keeps_applies_in_order() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/refuse-sr-in-order-tie-whose-pin-unplaces-an-earlier-block");
    let f = |line: usize| ("f.py".to_string(), line);
    assert_eq!(candidates(&case), [f(4), f(10)]);
    assert_eq!(suggested(&case), ["f.py:10"]);
    let out = run(&case, &["--at", "f.py:4"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "--at f.py:4: {stderr}");
    assert!(stderr.contains("f.py: hunk 3 "), "--at f.py:4: {stderr}");
    let dir = tempfile::tempdir().expect("tempdir");
    copy_tree(&case.join("before"), dir.path());
    let patch = case.join("patch");
    let args = ["--at", "f.py:10", patch.to_str().expect("utf-8 path")];
    let out = run_bin(dir.path(), &args, None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "--at f.py:10: {stderr}");
    let applied = fs::read_to_string(dir.path().join("f.py")).expect("f.py");
    let one_after_another = "def check2(path):\n    log.info(\"Start.\")\n    data = read(path)  # cache\n    # note\n    log.info(\"Start.\")\n    data = read(path)  # cache\n    raise ValueError(\"bad\")\n\n";
    assert_eq!(applied, one_after_another);
    let dir = tempfile::tempdir().expect("tempdir");
    copy_tree(&case.join("before"), dir.path());
    let patch = fs::read(case.join("patch")).expect("patch");
    let plan = plan_patch(&patch, dir.path(), &ApplyOptions::default()).expect("plan");
    let failure = plan.files[0].report.hunks[2]
        .failure
        .as_ref()
        .expect("refused");
    assert_eq!(failure.candidates, [4, 10]);
    assert_eq!(failure.at_settles, [10]);
}
