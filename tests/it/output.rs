//! What the command prints, as people read it: colour (`--color`,
//! `NO_COLOR`, `CLICOLOR_FORCE`, git's `color.ui`), the default amount of
//! output on large patches, and summaries that say what really happened.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use crate::support;
use support::{BIN, WATCHDOG, output_within, run_bin};

const ESC: char = '\u{1b}';

/// Runs the binary in `dir` with `args`, the patch on stdin, and only the
/// colour variables of `env` set (the test's own environment may have any).
fn run_env(dir: &Path, args: &[&str], env: &[(&str, &str)], patch: &str) -> Output {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CLICOLOR")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir);
    for (key, value) in env {
        command.env(key, value);
    }
    output_within(&mut command, patch.as_bytes(), WATCHDOG)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A file one of whose own lines says `error:`, and a patch that fails next
/// to it, so that the line is shown among the closest lines.
fn failing_scene() -> (tempfile::TempDir, &'static str) {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("log.py"),
        "def check(x):\n    log(\"error: bad value\")\n    return x\n",
    )
    .unwrap();
    let patch = "--- a/log.py\n+++ b/log.py\n@@\n def check(x):\n-    log(\"error: bad input\")\n+    log(\"error: bad input!\")\n     return y\n";
    (dir, patch)
}

fn coloured(text: &str) -> bool {
    text.contains(ESC)
}

/// Arguments, environment, and whether standard error is coloured.
type ColourCase = (
    &'static [&'static str],
    &'static [(&'static str, &'static str)],
    bool,
);

#[test]
fn colour_follows_the_flag_and_the_environment() {
    let (dir, patch) = failing_scene();
    let cases: [ColourCase; 7] = [
        // Not a terminal: no colour unless asked.
        (&[], &[], false),
        (&["--color=always"], &[], true),
        (&["--color=always"], &[("NO_COLOR", "1")], true),
        (&[], &[("CLICOLOR_FORCE", "1")], true),
        (&[], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")], false),
        (&["--color=never"], &[("CLICOLOR_FORCE", "1")], false),
        (&["--color", "auto"], &[("CLICOLOR", "1")], false),
    ];
    for (args, env, expected) in cases {
        let out = run_env(dir.path(), args, env, patch);
        assert_eq!(out.status.code(), Some(1));
        let text = stderr(&out);
        assert!(text.contains("error:"), "{text}");
        assert_eq!(coloured(&text), expected, "{args:?} {env:?}: {text:?}");
        // Standard output (the JSON, summaries) is never coloured.
        assert!(!coloured(&stdout(&out)));
    }
}

#[test]
fn only_labels_are_coloured_never_a_line_of_the_file() {
    let (dir, patch) = failing_scene();
    let out = run_env(dir.path(), &["--color=always"], &[], patch);
    let text = stderr(&out);
    let label = format!("{ESC}[1m{ESC}[31merror:{ESC}[0m log.py: hunk 1");
    assert!(text.starts_with(&label), "{text:?}");
    // The file's own `error:` lines (side by side) are printed as they are.
    let file_lines: Vec<&str> = text.lines().filter(|l| l.contains("bad value")).collect();
    assert!(!file_lines.is_empty(), "{text}");
    for line in file_lines {
        assert!(!coloured(line), "{line:?}");
    }
}

#[test]
fn git_color_ui_is_followed_in_a_repository() {
    let (dir, patch) = failing_scene();
    let git = |args: &[&str]| {
        let status = Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir.path())
            .status()
            .unwrap();
        assert!(status.success());
    };
    git(&["init", "-q"]);
    git(&["config", "color.ui", "always"]);
    let out = run_env(dir.path(), &[], &[], patch);
    assert!(coloured(&stderr(&out)), "{}", stderr(&out));
    // The flag and NO_COLOR come first.
    let out = run_env(dir.path(), &["--color=never"], &[], patch);
    assert!(!coloured(&stderr(&out)));
    let out = run_env(dir.path(), &[], &[("NO_COLOR", "1")], patch);
    assert!(!coloured(&stderr(&out)));
    git(&["config", "color.ui", "never"]);
    let out = run_env(dir.path(), &[], &[], patch);
    assert!(!coloured(&stderr(&out)));
}

/// A patch creating `n` files of two lines each.
fn many_files(n: usize) -> String {
    (0..n)
        .map(|i| format!("--- /dev/null\n+++ b/f{i}.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n"))
        .collect()
}

#[test]
fn a_large_patch_prints_one_line_unless_verbose() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_bin(dir.path(), &["--check"], Some(many_files(500).as_bytes()));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out),
        "would change 500 files (+1000 -0); -v lists every file and hunk\n"
    );
    let verbose = run_bin(
        dir.path(),
        &["--check", "-v"],
        Some(many_files(500).as_bytes()),
    );
    let text = stdout(&verbose);
    assert_eq!(text.lines().count(), 1000, "one line per file and per hunk");
    assert!(
        text.starts_with("would create f0.txt (unified diff, +2 -0)\n  hunk 1"),
        "{text}"
    );
    let quiet = run_bin(dir.path(), &["-q"], Some(many_files(500).as_bytes()));
    assert_eq!(
        (quiet.status.code(), stdout(&quiet).as_str()),
        (Some(0), "")
    );
    assert!(dir.path().join("f499.txt").exists());
}

#[test]
fn a_small_patch_lists_its_files_without_hunk_lines() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "one\ntwo\nthree\nfour\n").unwrap();
    // The second hunk's change is already in the file.
    let patch = "--- a/a.txt\n+++ b/a.txt\n@@\n one\n-two\n+2\n@@\n three\n-the old fourth line\n+four\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+n\n";
    let out = run_bin(dir.path(), &["--check"], Some(patch.as_bytes()));
    assert_eq!(
        stdout(&out),
        "would patch a.txt (numberless diff, +1 -1, 1 hunk already applied)\nwould create new.txt (unified diff, +1 -0)\n",
        "{}",
        stderr(&out)
    );
    let verbose = run_bin(dir.path(), &["--check", "-v"], Some(patch.as_bytes()));
    assert!(
        stdout(&verbose).contains("  hunk 2 at old L3-L4: already applied, skipped"),
        "{}",
        stdout(&verbose)
    );
}

#[test]
fn added_and_deleted_files_are_named_for_what_happens_to_them() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("old.txt"), "bye\n").unwrap();
    let patch = "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n";
    let check = run_bin(dir.path(), &["--check"], Some(patch.as_bytes()));
    assert_eq!(
        stdout(&check),
        "would create new.txt (unified diff, +1 -0)\nwould delete old.txt (unified diff, +0 -1)\n"
    );
    let done = run_bin(dir.path(), &[], Some(patch.as_bytes()));
    assert_eq!(
        stdout(&done),
        "created new.txt (unified diff, +1 -0)\ndeleted old.txt (unified diff, +0 -1)\n"
    );
    assert!(!dir.path().join("old.txt").exists() && dir.path().join("new.txt").exists());
}

/// `a.txt` whose patch fails, `b.txt` whose patch applies.
fn half_failing() -> (tempfile::TempDir, &'static str) {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "a\nb\n").unwrap();
    fs::write(dir.path().join("b.txt"), "x\n").unwrap();
    let patch = "--- a/a.txt\n+++ b/a.txt\n@@\n-zz\n+y\n--- a/b.txt\n+++ b/b.txt\n@@\n-x\n+X\n";
    (dir, patch)
}

#[test]
fn stat_of_a_refused_patch_does_not_show_it_as_empty() {
    let (dir, patch) = half_failing();
    let out = run_bin(dir.path(), &["--stat"], Some(patch.as_bytes()));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        " a.txt | refused\n b.txt |    2 +-\n 2 files, 1 refused: the patch does not apply\n"
    );
    let numstat = run_bin(dir.path(), &["--numstat"], Some(patch.as_bytes()));
    assert_eq!(stdout(&numstat), "-\t-\ta.txt\n1\t1\tb.txt\n");
    let partial = run_bin(dir.path(), &["--stat", "--partial"], Some(patch.as_bytes()));
    assert_eq!(
        stdout(&partial),
        " a.txt | refused\n b.txt |    2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-); 1 refused\n"
    );
}

#[test]
fn partial_does_not_call_an_untouched_file_patched() {
    let (dir, patch) = half_failing();
    let out = run_bin(dir.path(), &["--partial"], Some(patch.as_bytes()));
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(!text.contains("+0 -0"), "{text}");
    assert!(
        text.contains("not patched a.txt (numberless diff, 1 hunk failed)"),
        "{text}"
    );
    assert!(
        text.contains("patched b.txt (numberless diff, +1 -1)"),
        "{text}"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "a\nb\n"
    );
    assert_eq!(fs::read_to_string(dir.path().join("b.txt")).unwrap(), "X\n");
}

#[test]
fn a_successful_run_removes_the_stale_conflict_report() {
    let (dir, patch) = half_failing();
    let status = Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir.path())
        .status()
        .unwrap();
    assert!(status.success());
    let report = dir.path().join(".git/fuzzy-apply/last-report");
    let out = run_bin(dir.path(), &[], Some(patch.as_bytes()));
    assert_eq!(out.status.code(), Some(1));
    assert!(report.with_extension("json").exists() && report.with_extension("md").exists());
    // A dry run that succeeds changes nothing, the report stays.
    let fixed = "--- a/b.txt\n+++ b/b.txt\n@@\n-x\n+X\n";
    let check = run_bin(dir.path(), &["--check"], Some(fixed.as_bytes()));
    assert_eq!(check.status.code(), Some(0));
    assert!(report.with_extension("json").exists());
    let out = run_bin(dir.path(), &[], Some(fixed.as_bytes()));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!report.with_extension("json").exists());
    assert!(!report.with_extension("md").exists());
}

#[test]
fn a_successful_run_removes_a_stale_report_given_with_report() {
    let (dir, patch) = half_failing();
    let base = dir.path().join("out/report");
    let base_arg = base.display().to_string();
    let out = run_bin(dir.path(), &["--report", &base_arg], Some(patch.as_bytes()));
    assert_eq!(out.status.code(), Some(1));
    assert!(base.with_extension("json").exists());
    let fixed = "--- a/b.txt\n+++ b/b.txt\n@@\n-x\n+X\n";
    let out = run_bin(dir.path(), &["--report", &base_arg], Some(fixed.as_bytes()));
    assert_eq!(out.status.code(), Some(0));
    assert!(!base.with_extension("json").exists() && !base.with_extension("md").exists());
}

#[test]
fn stat_scales_the_graph_and_cuts_long_names_as_git_apply_does() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("t");
    let long = "src/a/rather/deeply/nested/directory/holding/the_module_file.rs";
    fs::create_dir_all(root.join(long).parent().unwrap()).unwrap();
    let text =
        |n: usize, word: &str| -> String { (0..n).map(|i| format!("{word} {i}\n")).collect() };
    fs::write(root.join(long), text(10, "x")).unwrap();
    fs::write(root.join("big.txt"), text(300, "b")).unwrap();
    fs::write(root.join("sp äce.txt"), "one\n").unwrap();
    support::git(&root, &["init", "-q"]);
    support::git(&root, &["add", "-A"]);
    support::git(&root, &["commit", "-qm", "base"]);
    fs::write(root.join(long), text(12, "y")).unwrap();
    fs::write(root.join("big.txt"), text(120, "c")).unwrap();
    fs::write(root.join("sp äce.txt"), "two\n").unwrap();
    fs::write(root.join("new.txt"), text(40, "n")).unwrap();
    support::git(&root, &["add", "-A"]);
    let patch = dir.path().join("p.diff");
    fs::write(&patch, support::git(&root, &["diff", "--cached"])).unwrap();
    // Back to the base (the added file goes too).
    support::git(&root, &["reset", "-q", "--hard"]);
    let patch = patch.display().to_string();
    for option in ["--stat", "--numstat", "--summary"] {
        let out = run_bin(&root, &[option, &patch], None);
        assert!(out.status.success(), "{}", support::stderr(&out));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            support::git(&root, &["apply", option, &patch]),
            "{option}"
        );
    }
}
