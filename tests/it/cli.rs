//! The command line end to end: exit codes, --check, --emit-unified, --json, stdin.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use crate::support;
use support::run_bin;

const FILE: &str = "def greet(name):\n    print('hello', name)\n    return name\n\n\ndef part():\n    print('bye')\n";

const SLOPPY: &str = "Here you go:\n\n```diff\n--- a/greet.py\n+++ b/greet.py\n@@ -40,3 +40,3 @@\n def greet(name):\n-    print('hello', name)\n+    print('hi', name)\n     return name\n```\n";

fn run(dir: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    run_bin(dir, args, stdin.map(str::as_bytes))
}

fn setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    fs::write(dir.path().join("greet.py"), FILE).expect("write");
    fs::write(dir.path().join("reply.md"), SLOPPY).expect("write");
    dir
}

#[test]
fn applies_a_sloppy_reply_and_exits_zero() {
    let dir = setup();
    let out = run(dir.path(), &["reply.md"], None);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = fs::read_to_string(dir.path().join("greet.py")).expect("read");
    assert_eq!(text, FILE.replace("'hello'", "'hi'"));
    assert!(String::from_utf8_lossy(&out.stdout).contains("patched greet.py"));
}

#[test]
fn check_writes_nothing() {
    let dir = setup();
    let out = run(dir.path(), &["--check", "-v", "reply.md"], None);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        fs::read_to_string(dir.path().join("greet.py")).expect("read"),
        FILE
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("would patch greet.py"), "{stdout}");
    assert!(
        stdout.contains("hunk 1 at old L1-L3 via exact (re-anchored line number)"),
        "{stdout}"
    );
}

#[test]
fn reads_the_patch_from_stdin() {
    let dir = setup();
    let out = run(dir.path(), &[], Some(SLOPPY));
    assert_eq!(out.status.code(), Some(0));
    assert!(
        fs::read_to_string(dir.path().join("greet.py"))
            .expect("read")
            .contains("'hi'")
    );
}

#[test]
fn emit_unified_prints_a_diff_git_apply_accepts() {
    let dir = setup();
    let out = run(dir.path(), &["--emit-unified", "reply.md"], None);
    assert_eq!(out.status.code(), Some(0));
    let diff = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(diff.contains("@@ -1,5 +1,5 @@"), "{diff}");
    assert_eq!(
        fs::read_to_string(dir.path().join("greet.py")).expect("read"),
        FILE
    );
    fs::write(dir.path().join("clean.diff"), &diff).expect("write");
    let git = Command::new("git")
        .args(["apply", "--check", "--unsafe-paths", "clean.diff"])
        .current_dir(dir.path())
        .output()
        .expect("git runs");
    assert!(
        git.status.success(),
        "git apply refused: {}",
        String::from_utf8_lossy(&git.stderr)
    );
}

#[test]
fn json_report_names_tier_and_lines() {
    let dir = setup();
    let out = run(dir.path(), &["--json", "--check", "reply.md"], None);
    assert_eq!(out.status.code(), Some(0));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    assert_eq!(report["version"], 1);
    assert_eq!(report["ok"], true);
    let hunk = &report["files"][0]["hunks"][0];
    assert_eq!(hunk["status"], "applied");
    assert_eq!(hunk["tier"], "exact");
    assert_eq!(hunk["lines"]["start"], 1);
    assert_eq!(hunk["normalizations"][0], "reanchored_header");
}

#[test]
fn ambiguous_hunk_fails_with_exit_one_and_lists_candidates() {
    let dir = setup();
    fs::write(
        dir.path().join("dup.py"),
        "x = 1\ny = 2\n\nz = 3\n\nx = 1\ny = 2\n",
    )
    .expect("write");
    let patch = "--- a/dup.py\n+++ b/dup.py\n@@\n x = 1\n-y = 2\n+y = 3\n";
    let out = run(dir.path(), &["--json"], Some(patch));
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    let failure = &report["files"][0]["hunks"][0]["failure"];
    assert_eq!(failure["code"], "ambiguous");
    assert_eq!(failure["candidates"], serde_json::json!([1, 6]));
    let human = run(dir.path(), &[], Some(patch));
    let stderr = String::from_utf8_lossy(&human.stderr);
    assert!(stderr.contains("dup.py: hunk 1 (patch line 3)"), "{stderr}");
    assert!(stderr.contains("lines 1, 6"), "{stderr}");
    assert_eq!(
        fs::read_to_string(dir.path().join("dup.py")).expect("read"),
        "x = 1\ny = 2\n\nz = 3\n\nx = 1\ny = 2\n"
    );
}

#[test]
fn missing_patch_file_is_an_io_error() {
    let dir = setup();
    let out = run(dir.path(), &["nope.diff"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nope.diff"));
}

#[test]
fn bad_threshold_is_a_usage_error() {
    let dir = setup();
    let out = run(dir.path(), &["--threshold", "3", "reply.md"], None);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn max_tier_limits_tolerance() {
    let dir = setup();
    let patch = "--- a/greet.py\n+++ b/greet.py\n@@\n def   greet(name):\n-    print('hello', name)\n+    print('hi', name)\n";
    let strict = run(dir.path(), &["--max-tier", "exact"], Some(patch));
    assert_eq!(strict.status.code(), Some(1));
    let lenient = run(dir.path(), &["--max-tier", "resilient"], Some(patch));
    assert_eq!(lenient.status.code(), Some(0));
}

#[test]
fn paths_outside_the_tree_are_refused() {
    let dir = setup();
    let patch = "--- a/../evil.txt\n+++ b/../evil.txt\n@@\n-a\n+b\n";
    let out = run(dir.path(), &[], Some(patch));
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("path_outside_tree"));
    let git_dir =
        "*** Begin Patch\n*** Add File: .git/hooks/post-commit\n+echo pwned\n*** End Patch\n";
    let out = run(dir.path(), &[], Some(git_dir));
    assert_eq!(out.status.code(), Some(1));
    assert!(!dir.path().join(".git").exists());
}

#[test]
fn a_large_file_is_mapped_and_edited_exactly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lines: Vec<String> = (0..150_000)
        .map(|i| format!("line number {i} of the big file\r"))
        .collect();
    let text = lines.join("\n") + "\n";
    assert!(text.len() > 4 * 1024 * 1024);
    fs::write(dir.path().join("big.txt"), &text).expect("write");
    let patch = "--- a/big.txt\n+++ b/big.txt\n@@ -149990,3 +149990,3 @@\n line number 149989 of the big file\n-line number 149990 of the big file\n+line number 149990 was edited\n line number 149991 of the big file\n";
    let out = run(dir.path(), &[], Some(patch));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let expected = text.replace(
        "line number 149990 of the big file\r\n",
        "line number 149990 was edited\r\n",
    );
    assert!(fs::read(dir.path().join("big.txt")).expect("read") == expected.as_bytes());
    let leftovers: Vec<_> = fs::read_dir(dir.path())
        .expect("ls")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name())
        .collect();
    assert_eq!(leftovers.len(), 1, "{leftovers:?}");
}

#[test]
fn scan_limit_bounds_the_similarity_tier() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file: String = (0..50)
        .map(|k| format!("this is line number {k} of the file\n"))
        .collect();
    fs::write(dir.path().join("f.txt"), file).expect("write");
    // Two context lines with typos: only the similarity tier finds it, and
    // with no line hint it scans the whole file, unless the file is longer
    // than --scan-limit.
    let patch = "--- a/f.txt\n+++ b/f.txt\n@@\n this is line numbr 29 of the file\n this is line number 30 of teh file\n-this is line number 31 of the file\n+changed\n this is line number 32 of the file\n this is line number 33 of the file\n";
    let out = run(dir.path(), &["--check", "-v"], Some(patch));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("at old L30-L34 via similarity"), "{stdout}");
    let out = run(dir.path(), &["--check", "--scan-limit", "10"], Some(patch));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("[context_not_found]"), "{stderr}");
}

/// `--partial` writes the files that plan, never one refused for a path
/// conflict (`d` and `d/x.txt` both added: `d` is refused and not written).
#[test]
fn partial_never_writes_a_file_refused_for_a_path_conflict() {
    let dir = tempfile::tempdir().expect("tempdir");
    fs::write(dir.path().join("keep.txt"), "k\n").expect("write");
    let patch = "--- /dev/null\n+++ b/d\n@@ -0,0 +1 @@\n+file d\n--- /dev/null\n+++ b/d/x.txt\n@@ -0,0 +1 @@\n+file x\n--- a/keep.txt\n+++ b/keep.txt\n@@\n-k\n+K\n";
    let out = run(dir.path(), &["--partial", "-"], Some(patch));
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("path_conflict"));
    assert!(
        dir.path().join("d").is_dir(),
        "d must not be written as a file"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("d/x.txt")).expect("x"),
        "file x\n"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("keep.txt")).expect("keep"),
        "K\n"
    );
}

const DUP: &str = "x = 1\ny = 2\n\nz = 3\n\nx = 1\ny = 2\n";
const DUP_PATCH: &str = "--- a/dup.py\n+++ b/dup.py\n@@\n x = 1\n-y = 2\n+y = 3\n";

/// A repository holding `dup.py` and the ambiguous patch as `my fix.diff`.
fn ambiguous_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let status = Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir.path())
        .status()
        .expect("git runs");
    assert!(status.success());
    fs::write(dir.path().join("dup.py"), DUP).expect("write");
    fs::write(dir.path().join("my fix.diff"), DUP_PATCH).expect("write");
    dir
}

#[test]
fn an_ambiguous_hunk_prints_the_at_command_for_each_candidate() {
    let dir = ambiguous_repo();
    let out = run(dir.path(), &["my fix.diff"], None);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let commands: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("git fuzzy-apply --at"))
        .collect();
    assert_eq!(
        commands,
        [
            "git fuzzy-apply --at dup.py:1 'my fix.diff'",
            "git fuzzy-apply --at dup.py:6 'my fix.diff'"
        ],
        "{stderr}"
    );
    // The conflict report names the real patch too.
    let md = fs::read_to_string(dir.path().join(".git/fuzzy-apply/last-report.md")).expect("md");
    assert!(
        md.contains("`git fuzzy-apply --at dup.py:6 'my fix.diff'`"),
        "{md}"
    );
    assert!(!md.contains("<patch>"), "{md}");
    // The command does what it says.
    let out = run(dir.path(), &["--at", "dup.py:6", "my fix.diff"], None);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        fs::read_to_string(dir.path().join("dup.py")).expect("read"),
        "x = 1\ny = 2\n\nz = 3\n\nx = 1\ny = 3\n"
    );
}

#[test]
fn an_ambiguous_patch_on_stdin_says_to_feed_it_again() {
    let dir = ambiguous_repo();
    let out = run(dir.path(), &[], Some(DUP_PATCH));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("git fuzzy-apply --at dup.py:1 < PATCH"),
        "{stderr}"
    );
    assert!(stderr.contains("PATCH: the same patch, on standard input again"));
}

#[test]
fn the_at_commands_repeat_the_options_of_the_run() {
    let dir = ambiguous_repo();
    fs::create_dir(dir.path().join("sub")).expect("mkdir");
    fs::rename(dir.path().join("dup.py"), dir.path().join("sub/dup.py")).expect("mv");
    let out = run(dir.path(), &["--directory", "sub", "my fix.diff"], None);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let command = "git fuzzy-apply --at sub/dup.py:6 --directory sub 'my fix.diff'";
    assert!(stderr.contains(command), "{stderr}");
    // Run as printed (git fuzzy-apply is git-fuzzy-apply).
    let out = run(
        dir.path(),
        &["--at", "sub/dup.py:6", "--directory", "sub", "my fix.diff"],
        None,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("sub/dup.py")).expect("read"),
        "x = 1\ny = 2\n\nz = 3\n\nx = 1\ny = 3\n"
    );
}

#[test]
fn an_at_naming_no_candidate_is_an_error_and_writes_nothing() {
    let dir = ambiguous_repo();
    for (at, says) in [
        (
            "dup.py:3",
            "--at dup.py:3 names no place a hunk of dup.py can go; hunk 1 could go at line 1 or 6",
        ),
        (
            "other.py:1",
            "--at other.py:1: the patch does not edit other.py",
        ),
    ] {
        let out = run(dir.path(), &["--at", at, "my fix.diff"], None);
        assert_eq!(out.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{stderr}");
        assert!(stderr.contains("[unmatched_pin]"), "{stderr}");
        assert_eq!(
            fs::read_to_string(dir.path().join("dup.py")).expect("read"),
            DUP
        );
    }
    // A hunk with one place: an --at elsewhere is refused, not ignored.
    let unique = "--- a/dup.py\n+++ b/dup.py\n@@\n-z = 3\n+z = 4\n";
    let out = run(dir.path(), &["--at", "dup.py:1"], Some(unique));
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("hunk 1 goes at line 4"), "{stderr}");
    assert_eq!(
        fs::read_to_string(dir.path().join("dup.py")).expect("read"),
        DUP
    );
    let out = run(dir.path(), &["--at", "dup.py:4"], Some(unique));
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn git_apply_options_that_change_nothing_are_accepted() {
    for args in [
        &["--whitespace=nowarn"][..],
        &["--whitespace", "warn"],
        &["--unidiff-zero"],
        &["-C1"],
        &["-C", "3"],
        &["--recount"],
        &["--ignore-whitespace"],
        &["--ignore-space-change"],
        &["--verbose"],
    ] {
        let dir = setup();
        let mut all = args.to_vec();
        all.push("reply.md");
        let out = run(dir.path(), &all, None);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            fs::read_to_string(dir.path().join("greet.py"))
                .expect("read")
                .contains("'hi'")
        );
    }
    let help = run(Path::new("."), &["--help"], None);
    let help = String::from_utf8_lossy(&help.stdout);
    let section = help.split("git apply options:").nth(1).expect("a section");
    for option in [
        "--3way",
        "--unidiff-zero",
        "--allow-empty",
        "-C <N>",
        "--recount",
    ] {
        assert!(section.contains(option), "{option} missing: {section}");
    }
    assert!(section.contains("Accepted, changes nothing"), "{section}");
}

#[test]
fn ignore_whitespace_lifts_max_tier_exact_to_resilient() {
    let dir = setup();
    // Both lines drifted alike (2 spaces for 4): the added line takes the
    // file's indentation. (A removed line drifted alone, the added one at
    // 4, is two readings under rule 6: 4 as written, or 8 scaled.)
    let drifted = "--- a/greet.py\n+++ b/greet.py\n@@\n def greet(name):\n-  print('hello', name)\n+  print('hi', name)\n";
    let exact = run(dir.path(), &["--max-tier", "exact"], Some(drifted));
    assert_eq!(exact.status.code(), Some(1));
    let out = run(
        dir.path(),
        &["--max-tier", "exact", "--ignore-whitespace"],
        Some(drifted),
    );
    assert_eq!(out.status.code(), Some(0));
    let got = fs::read_to_string(dir.path().join("greet.py")).expect("read");
    assert!(got.starts_with("def greet(name):\n    print('hi', name)\n    return name\n"));
}

#[test]
fn allow_empty_lets_a_patch_without_edits_succeed() {
    let dir = setup();
    for patch in ["", "Nothing to change here, the code is fine.\n"] {
        let strict = run(dir.path(), &[], Some(patch));
        assert_eq!(strict.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&strict.stderr).contains("[no_edits]"));
        let out = run(dir.path(), &["--allow-empty"], Some(patch));
        assert_eq!(out.status.code(), Some(0), "{patch:?}");
        assert!(out.stderr.is_empty());
    }
    // It does not excuse a patch that fails.
    let failing = "--- a/greet.py\n+++ b/greet.py\n@@\n-nope\n+x\n";
    let out = run(dir.path(), &["--allow-empty"], Some(failing));
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn git_apply_options_that_cannot_be_honoured_say_what_to_use() {
    for (args, advice) in [
        (&["--3way"][..], "use --reject"),
        (&["-3"], "use --reject"),
        (
            &["--whitespace=fix"],
            "git fuzzy-apply --emit-unified PATCH | git apply --whitespace=fix",
        ),
        (
            &["--whitespace=error-all"],
            "git apply --whitespace=error-all",
        ),
        (&["--unsafe-paths"], "use --directory DIR"),
    ] {
        let dir = setup();
        let mut all = args.to_vec();
        all.push("reply.md");
        let out = run(dir.path(), &all, None);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("is not supported"), "{stderr}");
        assert!(stderr.contains(advice), "{args:?}: {stderr}");
        assert!(
            !stderr.contains("Usage:"),
            "not a bare usage error: {stderr}"
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("greet.py")).expect("read"),
            FILE
        );
    }
}
