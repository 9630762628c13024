//! Re-running a long patch that is already applied (the pre-commit case):
//! every hunk reads "already applied", the file is left alone and the run
//! exits 0, however far the hunks before have moved the later ones (issue
//! 18: a deletion-only patch was refused from about its 102nd hunk, once
//! its own deletions had moved a hunk's new side more than the line hint's
//! window from its number).

use std::fs;
use std::process::Command;

use crate::support;
use support::{BIN, WATCHDOG, output_within};

/// What one generated hunk does at its line.
#[derive(Clone, Copy, Debug)]
enum Edit {
    /// Removes the line.
    Delete,
    /// Adds a line after it.
    Insert,
    /// Replaces it and the line after it with one line.
    Join,
}

/// Lines of the file between two hunks' changed lines.
const STEP: usize = 10;

fn line(i: usize) -> String {
    format!(
        "    let value_{i} = compute_{}(input, {i}); // step {}\n",
        i % 7,
        i % 13
    )
}

/// (before, after, patch) for `edits` (one hunk each, in order), with line
/// numbers or with bare `@@` headers.
fn generate(edits: &[Edit], numbered: bool) -> (String, String, String) {
    let n = STEP * edits.len() + STEP;
    let before: Vec<String> = (0..n).map(line).collect();
    let mut after = String::new();
    let mut patch = String::from("--- a/f.rs\n+++ b/f.rs\n");
    let mut delta: isize = 0;
    let mut copied = 0;
    for (h, &edit) in edits.iter().enumerate() {
        let t = STEP * h + STEP / 2;
        let (lo, hi) = (t - 3, t + 4);
        let (old, new): (Vec<String>, Vec<String>) = match edit {
            Edit::Delete => (vec![before[t].clone()], vec![]),
            Edit::Insert => (
                vec![before[t].clone()],
                vec![before[t].clone(), format!("    inserted_{h}();\n")],
            ),
            Edit::Join => (
                vec![before[t].clone(), before[t + 1].clone()],
                vec![format!("    joined_{h}();\n")],
            ),
        };
        let rest = t + old.len();
        let (old_len, new_len) = (hi - lo, hi - lo - old.len() + new.len());
        if numbered {
            let new_start = (lo + 1) as isize + delta;
            patch += &format!("@@ -{},{old_len} +{new_start},{new_len} @@\n", lo + 1);
        } else {
            patch += "@@\n";
        }
        for l in &before[lo..t] {
            patch += &format!(" {l}");
        }
        for l in &old {
            patch += &format!("-{l}");
        }
        for l in &new {
            patch += &format!("+{l}");
        }
        for l in &before[rest..hi] {
            patch += &format!(" {l}");
        }
        after.extend(before[copied..t].iter().map(String::as_str));
        after.extend(new.iter().map(String::as_str));
        copied = rest;
        delta += new.len() as isize - old.len() as isize;
    }
    after.extend(before[copied..].iter().map(String::as_str));
    (before.concat(), after, patch)
}

/// Runs the binary on `patch` over `f.rs` holding `start`: (exit code,
/// stdout and stderr, the file afterwards).
fn run(start: &str, patch: &str) -> (Option<i32>, String, String) {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f.rs"), start).unwrap();
    fs::write(dir.path().join("p.diff"), patch).unwrap();
    let mut command = Command::new(BIN);
    command.arg("p.diff").current_dir(dir.path());
    let out = output_within(&mut command, b"", WATCHDOG);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let file = fs::read_to_string(dir.path().join("f.rs")).unwrap();
    (out.status.code(), said, file)
}

/// Applies the patch of `edits` afresh (it must give the expected file),
/// then again on that result (every hunk already applied, nothing changed,
/// exit 0).
fn applies_then_reruns(edits: &[Edit], numbered: bool) {
    let (before, after, patch) = generate(edits, numbered);
    let what = format!("{} hunks, numbered: {numbered}", edits.len());
    let (code, said, file) = run(&before, &patch);
    assert_eq!(code, Some(0), "fresh, {what}: {said}");
    assert!(file == after, "fresh, {what}: another result");
    let (code, said, file) = run(&after, &patch);
    assert_eq!(code, Some(0), "re-run, {what}: {said}");
    assert!(file == after, "re-run, {what}: the file changed");
    let done = format!("{} hunks already applied", edits.len());
    assert!(said.contains(&done), "re-run, {what}: {said}");
}

#[test]
fn a_long_deletion_only_patch_reruns_as_already_applied() {
    let edits = [Edit::Delete; 150];
    applies_then_reruns(&edits, true);
    applies_then_reruns(&edits, false);
}

#[test]
fn a_long_insertion_only_patch_reruns_as_already_applied() {
    let edits = [Edit::Insert; 150];
    applies_then_reruns(&edits, true);
    applies_then_reruns(&edits, false);
}

#[test]
fn a_long_mixed_patch_reruns_as_already_applied() {
    // Net two lines fewer every four hunks: 150 lines of drift at the end.
    let cycle = [Edit::Delete, Edit::Insert, Edit::Join, Edit::Delete];
    let edits: Vec<Edit> = cycle.iter().copied().cycle().take(300).collect();
    applies_then_reruns(&edits, true);
    applies_then_reruns(&edits, false);
}

/// `diff -U0` additions (`@@ -a,0 +c,1 @@`, no context): placed by their
/// numbers alone, re-run too.
#[test]
fn a_long_patch_of_context_free_additions_reruns_as_already_applied() {
    let hunks = 150;
    let n = STEP * hunks + STEP;
    let before: Vec<String> = (0..n).map(line).collect();
    let mut after = String::new();
    let mut patch = String::from("--- a/f.rs\n+++ b/f.rs\n");
    for h in 0..hunks {
        // After line t (1-based), h lines added above it already.
        let t = STEP * h + STEP / 2;
        patch += &format!("@@ -{t},0 +{},1 @@\n+    added_{h}();\n", t + 1 + h);
        let from = if h == 0 { 0 } else { t - STEP };
        after.extend(before[from..t].iter().map(String::as_str));
        after += &format!("    added_{h}();\n");
    }
    after.extend(
        before[STEP * (hunks - 1) + STEP / 2..]
            .iter()
            .map(String::as_str),
    );
    let (code, said, file) = run(&before.concat(), &patch);
    assert_eq!(code, Some(0), "fresh: {said}");
    assert!(file == after, "fresh: another result");
    let (code, said, file) = run(&after, &patch);
    assert_eq!(code, Some(0), "re-run: {said}");
    assert!(file == after, "re-run: the file changed");
    assert!(
        said.contains(&format!("{hunks} hunks already applied")),
        "{said}"
    );
}
