//! What a run quotes is bounded whatever the length of the lines: a
//! removed line of megabytes that does not match is quoted up to
//! `report::quote::MAX_QUOTED_LINE` bytes with an explicit `… (N more
//! bytes)` marker, on standard error, in `--json`, in `--feedback` and in
//! the conflict report; the `.rej` file keeps the hunk whole.

use crate::support;

use std::fs;
use std::path::Path;
use std::process::{Command, Output};
use support::run_bin;

/// Length of the removed line (not in the file) and of the file's long line.
const REMOVED: usize = 2_000_000;
const FILE_LINE: usize = 1_000_000;
/// Far below either line, far above what the capped output needs.
const BOUND: usize = 60_000;

/// A repository whose `a.txt` holds a long line between two short ones, and
/// a patch whose context stands there but whose removed line is another
/// long line.
fn scene() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(root)
        .status()
        .expect("git runs");
    assert!(git.success());
    let long_file_line = "y".repeat(FILE_LINE);
    fs::write(
        root.join("a.txt"),
        format!("one\n{long_file_line}\nthree\n"),
    )
    .expect("write");
    let removed = "x".repeat(REMOVED);
    let patch =
        format!("--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-{removed}\n+2\n three\n");
    fs::write(root.join("fix.diff"), patch).expect("write");
    dir
}

fn refused(out: &Output) {
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn bounded(what: &str, bytes: &[u8]) {
    assert!(bytes.len() < BOUND, "{what}: {} bytes", bytes.len());
}

fn report(root: &Path, ext: &str) -> Vec<u8> {
    fs::read(root.join(format!(".git/fuzzy-apply/last-report.{ext}"))).expect("report written")
}

#[test]
fn a_long_removed_line_is_quoted_with_a_marker_on_stderr_and_in_the_reports() {
    let dir = scene();
    let root = dir.path();
    let out = run_bin(root, &["fix.diff"], None);
    refused(&out);
    bounded("stderr", &out.stderr);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("more bytes)"), "{stderr}");
    for ext in ["md", "json"] {
        let text = report(root, ext);
        bounded(ext, &text);
        let text = String::from_utf8_lossy(&text);
        // The hunk's removed line, cut where the cap says, then the marker.
        let cut = format!("-{}… ({} more bytes)", "x".repeat(999), REMOVED + 1 - 1000);
        assert!(
            text.contains(&cut),
            "{ext}: {}",
            &text[..text.len().min(3000)]
        );
    }
    // The file is untouched.
    assert!(
        fs::read_to_string(root.join("a.txt"))
            .expect("read")
            .starts_with("one\nyyy")
    );
}

#[test]
fn a_long_removed_line_is_capped_in_json_and_feedback() {
    let dir = scene();
    let root = dir.path();
    let out = run_bin(root, &["--json", "--feedback", "fix.diff"], None);
    refused(&out);
    bounded("stdout", &out.stdout);
    bounded("stderr", &out.stderr);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let failure = &json["files"][0]["hunks"][0]["failure"];
    let marker = |n: usize| format!("… ({n} more bytes)");
    let expected = failure["expected"][1].as_str().expect("expected line");
    assert_eq!(expected.len(), 1000 + marker(REMOVED - 1000).len());
    assert!(expected.ends_with(&marker(REMOVED - 1000)));
    let hunk = failure["hunk_text"].as_str().expect("hunk_text");
    assert!(hunk.starts_with(" one\n-xxx"), "{hunk:.100}");
    // The removed line keeps its `-` marker and is cut after 1,000 bytes.
    assert!(hunk.ends_with(&format!("{}\n+2\n three\n", marker(REMOVED + 1 - 1000))));
    if let Some(lines) = failure["near_match"]["lines"].as_array() {
        for line in lines {
            assert!(
                line.as_str().expect("line").len() <= 1000 + 40,
                "{line:.100}"
            );
        }
    }
    let feedback = json["feedback"].as_str().expect("feedback");
    assert!(feedback.len() < BOUND, "{}", feedback.len());
}

#[test]
fn the_reject_file_keeps_the_long_line_whole() {
    let dir = scene();
    let root = dir.path();
    let out = run_bin(root, &["--reject", "fix.diff"], None);
    bounded("stderr", &out.stderr);
    let rej = fs::read_to_string(root.join("a.txt.rej")).expect("rej written");
    assert!(rej.contains(&format!("-{}\n+2\n", "x".repeat(REMOVED))));
}

/// A hunk of many lines that does not match is quoted up to
/// `report::quote::MAX_QUOTED_LINES` lines and a `… (N more lines)` line,
/// in every report; the `.rej` file keeps it whole.
#[test]
fn a_long_hunk_is_quoted_up_to_a_cap_of_lines_and_the_reject_file_keeps_it() {
    const LINES: usize = 20_000;
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(root)
        .status()
        .expect("git runs");
    assert!(git.success());
    fs::write(root.join("a.txt"), "one\ntwo\n").expect("write");
    let removed: String = (0..LINES).map(|i| format!("-gone {i}\n")).collect();
    fs::write(
        root.join("fix.diff"),
        format!("--- a/a.txt\n+++ b/a.txt\n@@\n one\n{removed}+2\n"),
    )
    .expect("write");
    let out = run_bin(root, &["--json", "--feedback", "fix.diff"], None);
    refused(&out);
    bounded("stdout", &out.stdout);
    bounded("stderr", &out.stderr);
    for ext in ["md", "json"] {
        bounded(ext, &report(root, ext));
    }
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let failure = &json["files"][0]["hunks"][0]["failure"];
    let cap = git_fuzzy_apply::report::quote::MAX_QUOTED_LINES;
    let expected = failure["expected"].as_array().expect("expected");
    assert_eq!(expected.len(), cap + 1);
    let more = format!("… ({} more lines)", LINES + 1 - cap);
    assert_eq!(expected[cap].as_str(), Some(more.as_str()));
    let hunk = failure["hunk_text"].as_str().expect("hunk_text");
    assert_eq!(hunk.lines().count(), cap + 1);
    assert!(hunk.ends_with(&format!("… ({} more lines)\n", LINES + 2 - cap)));
    let out = run_bin(root, &["--reject", "fix.diff"], None);
    refused(&out);
    let rej = fs::read_to_string(root.join("a.txt.rej")).expect("rej written");
    assert!(rej.contains(&removed), "the .rej file keeps every line");
}
