//! The install path: `cargo install` puts `git-fuzzy-apply` on PATH, and git
//! then runs it as `git fuzzy-apply`. Checked with the binary under test,
//! copied under that name into a folder that is put first on PATH.

use std::fs;
use std::path::Path;
use std::process::Command;

mod support;
use support::{BIN, WATCHDOG, output_within};

fn git_with_path(bin_dir: &Path, cwd: &Path, args: &[&str]) -> std::process::Output {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![bin_dir.to_path_buf()];
    dirs.extend(std::env::split_paths(&path));
    let mut command = Command::new("git");
    command
        .args(args)
        .current_dir(cwd)
        .env("PATH", std::env::join_paths(dirs).unwrap())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", cwd);
    output_within(&mut command, b"", WATCHDOG)
}

#[test]
fn git_runs_the_installed_binary_as_a_subcommand() {
    let root = tempfile::tempdir().unwrap();
    let bin_dir = root.path().join("bin");
    fs::create_dir(&bin_dir).unwrap();
    fs::copy(BIN, bin_dir.join("git-fuzzy-apply")).unwrap();
    let work = root.path().join("work");
    fs::create_dir(&work).unwrap();

    let help = git_with_path(&bin_dir, &work, &["fuzzy-apply", "-h"]);
    let stdout = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&help.stderr)
    );
    assert!(stdout.contains("Usage: git-fuzzy-apply"), "{stdout}");
    assert!(stdout.contains("Where to apply"), "{stdout}");
    assert!(stdout.contains("--cached"), "{stdout}");

    // And it applies a patch in a repository.
    assert!(
        git_with_path(&bin_dir, &work, &["init", "-q"])
            .status
            .success()
    );
    fs::write(work.join("notes.txt"), "one\ntwo\nthree\n").unwrap();
    fs::write(
        work.join("reply.md"),
        "Sure:\n\n```diff\n--- a/notes.txt\n+++ b/notes.txt\n@@ -7,3 +7,3 @@\n one\n-two\n+2\n three\n```\n",
    )
    .unwrap();
    let out = git_with_path(&bin_dir, &work, &["fuzzy-apply", "reply.md"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        fs::read_to_string(work.join("notes.txt")).unwrap(),
        "one\n2\nthree\n"
    );
}

#[test]
fn version_is_the_crate_version() {
    let root = tempfile::tempdir().unwrap();
    let bin_dir = root.path().join("bin");
    fs::create_dir(&bin_dir).unwrap();
    fs::copy(BIN, bin_dir.join("git-fuzzy-apply")).unwrap();
    let out = git_with_path(&bin_dir, root.path(), &["fuzzy-apply", "--version"]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("git-fuzzy-apply {}", env!("CARGO_PKG_VERSION"))
    );
}
