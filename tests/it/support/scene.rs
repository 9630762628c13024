//! The scene the fault and recovery tests share: a tree with a file to
//! edit, one to delete (emptying its directory) and a patch that also adds
//! a file in a new directory: every kind of step a commit has.

use super::git;
use std::fs;
use std::path::{Path, PathBuf};

/// Edits `a.txt`, deletes `old/b.txt` (emptying `old/`) and adds
/// `new/c.txt` (a new directory).
pub const PATCH: &str = "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n\
--- a/old/b.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-bee\n-bee two\n\
--- /dev/null\n+++ b/new/c.txt\n@@ -0,0 +1,1 @@\n+sea\n";

/// Writes the patch's targets into `root` (and a file it does not touch).
pub fn fill(root: &Path) {
    fs::create_dir_all(root.join("old")).unwrap();
    fs::write(root.join("a.txt"), "one\ntwo\nthree\n").unwrap();
    fs::write(root.join("old/b.txt"), "bee\nbee two\n").unwrap();
    fs::write(root.join("keep.txt"), "kept\n").unwrap();
}

/// Makes `root` a repository with everything in it committed;
/// `init_args` go to `git init -q`.
pub fn commit_all(root: &Path, init_args: &[&str]) {
    git(root, &[&["init", "-q"], init_args].concat());
    git(root, &["add", "."]);
    git(root, &["commit", "-qm", "base"]);
}

/// A tree with the patch's targets (a committed repository when `repo`),
/// and the patch at `../patch`.
pub fn scene(repo: bool) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("tree");
    fill(&root);
    fs::write(dir.path().join("patch"), PATCH).unwrap();
    if repo {
        commit_all(&root, &[]);
    }
    (dir, root)
}
