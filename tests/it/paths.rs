//! Paths as agents write them: absolute paths inside the working tree are
//! made relative; absolute paths elsewhere are refused and nothing outside
//! the tree is touched.

use std::fs;
use std::path::Path;

use crate::support;
use support::{git, run_bin};

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    fs::create_dir(dir.path().join("src")).expect("mkdir");
    fs::write(dir.path().join("src/a.rs"), "fn a() {}\nfn b() {}\n").expect("write");
    dir
}

fn apply(dir: &Path, patch: &str) -> std::process::Output {
    fs::write(dir.join("the.patch"), patch).expect("write patch");
    let out = run_bin(dir, &["the.patch"], None);
    fs::remove_file(dir.join("the.patch")).expect("remove patch");
    out
}

fn abs(dir: &Path, rel: &str) -> String {
    dir.join(rel).to_str().expect("UTF-8 temp path").to_string()
}

#[test]
fn absolute_paths_inside_the_tree_are_made_relative() {
    let dir = tree();
    let a = abs(dir.path(), "src/a.rs");
    let codex = format!(
        "*** Begin Patch\n*** Update File: {a}\n@@\n-fn a() {{}}\n+fn a() {{ 1 }}\n*** End Patch\n"
    );
    let out = apply(dir.path(), &codex);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let diff = format!("--- {a}\n+++ {a}\n@@ -2 +2 @@\n-fn b() {{}}\n+fn b() {{ 2 }}\n");
    let out = apply(dir.path(), &diff);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sr =
        format!("{a}\n<<<<<<< SEARCH\nfn b() {{ 2 }}\n=======\nfn b() {{ 3 }}\n>>>>>>> REPLACE\n");
    let out = apply(dir.path(), &sr);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("src/a.rs")).expect("read"),
        "fn a() { 1 }\nfn b() { 3 }\n"
    );
    assert!(!dir.path().join(a.trim_start_matches('/')).exists());
}

#[test]
fn absolute_paths_outside_the_tree_are_refused() {
    let dir = tree();
    let other = tree();
    let outside = abs(other.path(), "src/a.rs");
    let patch = format!("--- {outside}\n+++ {outside}\n@@ -1 +1 @@\n-fn a() {{}}\n+fn x() {{}}\n");
    let out = apply(dir.path(), &patch);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("path_outside_tree"), "{stderr}");
    for d in [dir.path(), other.path()] {
        assert_eq!(
            fs::read_to_string(d.join("src/a.rs")).expect("read"),
            "fn a() {}\nfn b() {}\n"
        );
    }
}

/// [`tree`] as a repository with everything committed, and a subdirectory.
fn repo() -> tempfile::TempDir {
    let dir = tree();
    fs::create_dir_all(dir.path().join("src/deep")).expect("mkdir");
    fs::write(dir.path().join("src/deep/keep.txt"), "k\n").expect("write");
    git(dir.path(), &["init", "-q", "-b", "main"]);
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-q", "-m", "init"]);
    dir
}

#[test]
fn absolute_paths_inside_the_tree_work_with_cached_and_index_from_any_directory() {
    for (args, from) in [
        (&["--cached"][..], ""),
        (&["--cached"][..], "src/deep"),
        (&["--index"][..], ""),
        (&["--index"][..], "src/deep"),
    ] {
        let dir = repo();
        let a = abs(dir.path(), "src/a.rs");
        let diff = format!("--- {a}\n+++ {a}\n@@ -1 +1 @@\n-fn a() {{}}\n+fn a() {{ 1 }}\n");
        let cwd = dir.path().join(from);
        let out = run_bin(&cwd, args, Some(diff.as_bytes()));
        assert!(
            out.status.success(),
            "{args:?} from {from:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let staged = git(dir.path(), &["show", ":src/a.rs"]);
        assert_eq!(
            staged, "fn a() { 1 }\nfn b() {}\n",
            "{args:?} from {from:?}"
        );
        let worktree = fs::read_to_string(dir.path().join("src/a.rs")).expect("read");
        let want = if args == ["--cached"] {
            "fn a() {}\nfn b() {}\n"
        } else {
            "fn a() { 1 }\nfn b() {}\n"
        };
        assert_eq!(worktree, want, "{args:?} from {from:?}");
    }
}

#[test]
fn absolute_paths_outside_the_repository_are_refused_with_cached() {
    let dir = repo();
    let other = repo();
    let outside = abs(other.path(), "src/a.rs");
    let diff = format!("--- {outside}\n+++ {outside}\n@@ -1 +1 @@\n-fn a() {{}}\n+fn x() {{}}\n");
    for args in [&["--cached"][..], &["--index"][..]] {
        let out = run_bin(&dir.path().join("src"), args, Some(diff.as_bytes()));
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("path_outside_tree"), "{stderr}");
        assert!(stderr.contains(&outside), "{stderr}");
        assert!(stderr.contains("absolute path outside"), "{stderr}");
        for d in [dir.path(), other.path()] {
            assert_eq!(git(d, &["status", "--porcelain"]), "", "{args:?}");
        }
    }
}
