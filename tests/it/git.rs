//! The binary against real temporary git repositories (created with the git CLI).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support;
use support::{git, run_bin, stderr};

fn apply(dir: &Path, args: &[&str], patch: &str) -> Output {
    run_bin(dir, args, Some(patch.as_bytes()))
}

/// The text of `rel` under `root`.
fn read(root: &Path, rel: &str) -> String {
    fs::read_to_string(root.join(rel)).expect("read")
}

/// Fails with the run's error output unless it exited 0.
#[track_caller]
fn assert_ok(out: &Output) {
    assert_eq!(out.status.code(), Some(0), "{}", stderr(out));
}

/// A repository with a few committed files.
fn repo() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().to_path_buf();
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["config", "core.autocrlf", "false"]);
    fs::create_dir_all(root.join("src/deep")).expect("mkdir");
    fs::write(
        root.join("src/a.py"),
        "def a():\n    return 1\n\n\ndef b():\n    return 2\n",
    )
    .expect("write");
    fs::write(root.join("src/b.py"), "X = 1\nY = 2\nZ = 3\n").expect("write");
    fs::write(root.join("src/deep/c.txt"), "one\ntwo\nthree\n").expect("write");
    fs::write(root.join("run.sh"), "#!/bin/sh\necho hi\n").expect("write");
    git(&root, &["update-index", "--add", "--chmod=+x", "run.sh"]);
    fs::set_permissions(
        root.join("run.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("chmod");
    git(&root, &["add", "."]);
    git(&root, &["commit", "-q", "-m", "init"]);
    (dir, root)
}

const PATCH_A: &str =
    "--- a/src/a.py\n+++ b/src/a.py\n@@ -1,2 +1,2 @@\n def a():\n-    return 1\n+    return 10\n";

#[test]
fn index_stages_the_result_and_the_repository_stays_valid() {
    let (_d, root) = repo();
    let out = apply(&root, &["--index"], PATCH_A);
    assert_ok(&out);
    assert_eq!(git(&root, &["status", "--porcelain"]), "M  src/a.py\n");
    assert!(git(&root, &["diff", "--cached"]).contains("+    return 10"));
    assert_eq!(git(&root, &["diff"]), "");
    git(&root, &["fsck", "--no-progress"]);
    assert!(!root.join(".git/index.lock").exists());
}

#[test]
fn cached_changes_the_index_only() {
    let (_d, root) = repo();
    let out = apply(&root, &["--cached"], PATCH_A);
    assert_ok(&out);
    assert!(read(&root, "src/a.py").contains("return 1\n"));
    assert!(git(&root, &["diff", "--cached"]).contains("+    return 10"));
    assert!(git(&root, &["diff"]).contains("-    return 10"));
    git(&root, &["fsck", "--no-progress"]);
}

#[test]
fn index_check_of_a_symbolic_link_is_not_taken_from_the_link_s_own_stat() {
    // The link's stat matches its index entry, but the patch is read through
    // it from the file it points to: the check must compare that content.
    let (_d, root) = repo();
    std::os::unix::fs::symlink("deep/c.txt", root.join("src/link.txt")).expect("symlink");
    git(&root, &["add", "src/link.txt"]);
    git(&root, &["commit", "-q", "-m", "link"]);
    // Not racy: the link's times lie well before the index is written.
    let old = Command::new("touch")
        .args(["-h", "-d", "1 hour ago", "src/link.txt"])
        .current_dir(&root)
        .status()
        .expect("touch");
    assert!(old.success());
    git(&root, &["update-index", "--refresh"]);
    let patch =
        "--- a/src/link.txt\n+++ b/src/link.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n";
    let out = apply(&root, &["--index"], patch);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    // Refused before the index is even asked: a patch never writes through
    // a symbolic link inside the tree (docs/git.md).
    assert!(stderr(&out).contains("not_a_file"), "{}", stderr(&out));
    assert!(
        fs::symlink_metadata(root.join("src/link.txt"))
            .expect("stat")
            .file_type()
            .is_symlink()
    );
    assert_eq!(git(&root, &["status", "--porcelain"]), "");
}

#[test]
fn index_check_sees_a_change_the_stat_data_show() {
    let (_d, root) = repo();
    // Entries whose files changed an hour before the index was written are
    // not racy: the check goes by their stat data, as git's does.
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for file in ["src/a.py", "src/b.py"] {
        let f = fs::File::options()
            .write(true)
            .open(root.join(file))
            .expect("open");
        f.set_modified(hour_ago).expect("set mtime");
    }
    git(&root, &["update-index", "--refresh"]);
    // Same size, so only the times tell.
    change_a_py_and_expect_index_mismatch(&root);
    // Untouched files pass by their stat data.
    let out = apply(
        &root,
        &["--index"],
        "--- a/src/b.py\n+++ b/src/b.py\n@@ -1,3 +1,3 @@\n X = 1\n-Y = 2\n+Y = 20\n Z = 3\n",
    );
    assert_ok(&out);
    assert_eq!(git(&root, &["show", ":src/b.py"]), "X = 1\nY = 20\nZ = 3\n");
}

/// Changes `src/a.py` in the working tree (same size as in the index) and
/// checks that `--index` refuses `PATCH_A` for it.
fn change_a_py_and_expect_index_mismatch(root: &Path) {
    fs::write(
        root.join("src/a.py"),
        "def a():\n    return 1\n\n\ndef b():\n    return 3\n",
    )
    .expect("write");
    let out = apply(root, &["--index"], PATCH_A);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("index_mismatch"), "{}", stderr(&out));
}

#[test]
fn index_is_refused_when_the_worktree_differs_from_the_index() {
    let (_d, root) = repo();
    change_a_py_and_expect_index_mismatch(&root);
    assert!(read(&root, "src/a.py").contains("return 1\n"));
}

#[test]
fn a_failing_third_file_leaves_all_three_untouched() {
    let (_d, root) = repo();
    let before: Vec<Vec<u8>> = ["src/a.py", "src/b.py", "src/deep/c.txt"]
        .iter()
        .map(|p| fs::read(root.join(p)).expect("read"))
        .collect();
    let patch = format!(
        "{PATCH_A}--- a/src/b.py\n+++ b/src/b.py\n@@\n X = 1\n-Y = 2\n+Y = 20\n--- a/src/deep/c.txt\n+++ b/src/deep/c.txt\n@@\n one\n-TWO THOUSAND\n+2\n"
    );
    let out = apply(&root, &[], &patch);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("src/deep/c.txt"));
    for (p, bytes) in ["src/a.py", "src/b.py", "src/deep/c.txt"]
        .iter()
        .zip(before)
    {
        assert_eq!(fs::read(root.join(p)).expect("read"), bytes, "{p} changed");
    }
    let report =
        fs::read_to_string(root.join(".git/fuzzy-apply/last-report.md")).expect("report written");
    assert!(report.contains("src/deep/c.txt"));
    let json: serde_json::Value = serde_json::from_slice(
        &fs::read(root.join(".git/fuzzy-apply/last-report.json")).expect("json"),
    )
    .expect("valid");
    assert_eq!(json["ok"], false);
}

#[test]
fn escapes_and_git_internals_are_refused_before_writing() {
    let (_d, root) = repo();
    for patch in [
        "--- a/../outside.txt\n+++ b/../outside.txt\n@@\n-a\n+b\n".to_string(),
        "*** Begin Patch\n*** Add File: .git/hooks/pre-commit\n+echo pwned\n*** End Patch\n"
            .to_string(),
        format!(
            "{PATCH_A}*** Begin Patch\n*** Add File: /tmp/absolute-{}.txt\n+x\n*** End Patch\n",
            std::process::id()
        ),
    ] {
        let out = apply(&root, &[], &patch);
        assert_eq!(out.status.code(), Some(1), "{patch}");
        assert!(
            stderr(&out).contains("path_outside_tree") || stderr(&out).contains("malformed_patch"),
            "{}",
            stderr(&out)
        );
        assert!(read(&root, "src/a.py").contains("return 1\n"));
    }
    assert!(!root.join(".git/hooks/pre-commit").exists());
    // A symbolic link leading out of the tree is not followed.
    let outside = tempfile::tempdir().expect("tempdir");
    fs::write(outside.path().join("secret.txt"), "keep\n").expect("write");
    std::os::unix::fs::symlink(outside.path(), root.join("link")).expect("symlink");
    let out = apply(
        &root,
        &[],
        "--- a/link/secret.txt\n+++ b/link/secret.txt\n@@\n-keep\n+lost\n",
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        fs::read_to_string(outside.path().join("secret.txt")).expect("read"),
        "keep\n"
    );
}

#[test]
fn runs_from_a_subdirectory_with_paths_from_the_top() {
    let (_d, root) = repo();
    let out = apply(&root.join("src/deep"), &[], PATCH_A);
    assert_ok(&out);
    assert!(read(&root, "src/a.py").contains("return 10"));
}

#[test]
fn executable_bit_is_kept_and_set_for_new_files() {
    use std::os::unix::fs::PermissionsExt;
    let (_d, root) = repo();
    let patch = "--- a/run.sh\n+++ b/run.sh\n@@\n #!/bin/sh\n-echo hi\n+echo hello\ndiff --git a/tool.sh b/tool.sh\nnew file mode 100755\n--- /dev/null\n+++ b/tool.sh\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+echo tool\n";
    let out = apply(&root, &["--index"], patch);
    assert_ok(&out);
    let mode = |p: &str| {
        fs::metadata(root.join(p))
            .expect("meta")
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(mode("run.sh"), 0o755);
    assert_eq!(mode("tool.sh"), 0o755);
    let staged = git(&root, &["ls-files", "-s", "run.sh", "tool.sh"]);
    assert!(staged.lines().all(|l| l.starts_with("100755")), "{staged}");
    git(&root, &["fsck", "--no-progress"]);
}

/// Commits `.gitattributes` with `rules` in the repository at `root`.
fn commit_attributes(root: &Path, rules: &str) {
    fs::write(root.join(".gitattributes"), rules).expect("write");
    git(root, &["add", ".gitattributes"]);
    git(root, &["commit", "-q", "-m", "attrs"]);
}

/// Applies `patch` with `--index`, which adds the one file `name`; checks
/// that the working tree holds `worktree` and the index `"first\nsecond\n"`.
fn assert_added_with_index(root: &Path, patch: &str, name: &str, worktree: &[u8]) {
    let out = apply(root, &["--index"], patch);
    assert_ok(&out);
    assert_eq!(fs::read(root.join(name)).expect("read"), worktree);
    assert_eq!(git(root, &["show", &format!(":{name}")]), "first\nsecond\n");
    assert_eq!(
        git(root, &["status", "--porcelain"]),
        format!("A  {name}\n")
    );
}

#[test]
fn added_files_follow_gitattributes_line_endings() {
    let (_d, root) = repo();
    commit_attributes(&root, "*.txt text eol=crlf\n");
    let patch = "*** Begin Patch\n*** Add File: notes.txt\n+first\n+second\n*** End Patch\n";
    assert_added_with_index(&root, patch, "notes.txt", b"first\r\nsecond\r\n");
}

#[test]
fn added_files_go_through_the_smudge_filter_as_with_git_apply() {
    let (_d, root) = repo();
    git(&root, &["config", "filter.upper.smudge", "tr a-z A-Z"]);
    git(&root, &["config", "filter.upper.clean", "tr A-Z a-z"]);
    commit_attributes(&root, "*.up filter=upper\n");
    let patch = "--- /dev/null\n+++ b/notes.up\n@@ -0,0 +1,2 @@\n+first\n+second\n";
    // The working tree holds what the filter's smudge side makes of the
    // added text; the index holds the text as the patch gave it.
    assert_added_with_index(&root, patch, "notes.up", b"FIRST\nSECOND\n");
}

#[test]
fn renames_move_the_file_and_its_index_entry() {
    let (_d, root) = repo();
    let patch = "*** Begin Patch\n*** Update File: src/b.py\n*** Move to: src/moved/b2.py\n@@\n X = 1\n-Y = 2\n+Y = 22\n*** End Patch\n";
    let out = apply(&root, &["--index"], patch);
    assert_ok(&out);
    assert!(!root.join("src/b.py").exists());
    assert_eq!(read(&root, "src/moved/b2.py"), "X = 1\nY = 22\nZ = 3\n");
    let status = git(&root, &["status", "--porcelain"]);
    assert!(
        status.contains("src/moved/b2.py") && status.contains("src/b.py"),
        "{status}"
    );
    assert_eq!(git(&root, &["diff"]), "");
    git(&root, &["fsck", "--no-progress"]);
}

#[test]
fn deleting_the_last_file_of_a_directory_removes_it() {
    let (_d, root) = repo();
    let patch = "*** Begin Patch\n*** Delete File: src/deep/c.txt\n*** End Patch\n";
    let out = apply(&root, &["--index"], patch);
    assert_ok(&out);
    assert!(!root.join("src/deep").exists());
    assert_eq!(
        git(&root, &["status", "--porcelain"]),
        "D  src/deep/c.txt\n"
    );
}

#[test]
fn a_locked_index_stops_the_run() {
    let (_d, root) = repo();
    fs::write(root.join(".git/index.lock"), "").expect("lock");
    let out = apply(&root, &["--index"], PATCH_A);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("another git process"),
        "{}",
        stderr(&out)
    );
    assert!(read(&root, "src/a.py").contains("return 1\n"));
}

#[test]
fn an_ambiguous_hunk_can_be_pinned_with_at() {
    let (_d, root) = repo();
    fs::write(root.join("dup.txt"), "a\nb\nc\n\nx\n\na\nb\nc\n").expect("write");
    let patch = "--- a/dup.txt\n+++ b/dup.txt\n@@\n a\n-b\n+B\n c\n";
    let out = apply(&root, &[], patch);
    assert_eq!(out.status.code(), Some(1));
    let report = fs::read_to_string(root.join(".git/fuzzy-apply/last-report.md")).expect("report");
    assert!(report.contains("--at dup.txt:7"), "{report}");
    assert!(
        report.contains("Candidate at line 1 (exact tier, score 1.00)"),
        "{report}"
    );
    let json: serde_json::Value = serde_json::from_slice(
        &fs::read(root.join(".git/fuzzy-apply/last-report.json")).expect("json"),
    )
    .expect("valid");
    let views = &json["files"][0]["hunks"][0]["failure"]["candidate_context"];
    assert_eq!(views[1]["line"], 7);
    assert_eq!(views[1]["tier"], "exact");
    let out = apply(&root, &["--at", "dup.txt:7"], patch);
    assert_ok(&out);
    assert_eq!(read(&root, "dup.txt"), "a\nb\nc\n\nx\n\na\nB\nc\n");
}

#[test]
fn reject_applies_what_matches_and_writes_the_rest() {
    let (_d, root) = repo();
    let patch = format!("{PATCH_A}--- a/src/b.py\n+++ b/src/b.py\n@@\n X = 1\n-Q = 2\n+Q = 20\n");
    let out = apply(&root, &["--reject"], &patch);
    assert_eq!(out.status.code(), Some(1));
    assert!(read(&root, "src/a.py").contains("return 10"));
    let rej = fs::read_to_string(root.join("src/b.py.rej")).expect("rej written");
    assert!(rej.contains("-Q = 2"), "{rej}");
}

#[test]
fn stat_numstat_and_reverse() {
    let (_d, root) = repo();
    let out = apply(&root, &["--numstat"], PATCH_A);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "1\t1\tsrc/a.py\n");
    let out = apply(&root, &["--stat"], PATCH_A);
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("1 file changed, 1 insertion(+), 1 deletion(-)")
    );
    assert!(read(&root, "src/a.py").contains("return 1\n"));
    assert_eq!(apply(&root, &[], PATCH_A).status.code(), Some(0));
    let out = apply(&root, &["-R"], PATCH_A);
    assert_ok(&out);
    assert!(read(&root, "src/a.py").contains("return 1\n"));
}

#[test]
fn summary_shows_the_modes_of_created_and_deleted_files() {
    let (_d, root) = repo();
    let patch = "diff --git a/tool.sh b/tool.sh\nnew file mode 100755\n--- /dev/null\n+++ b/tool.sh\n@@ -0,0 +1 @@\n+echo tool\n\
                 --- a/run.sh\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-#!/bin/sh\n-echo hi\n\
                 --- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1 @@\n+note\n";
    let out = apply(&root, &["--summary"], patch);
    assert_ok(&out);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        " create mode 100755 tool.sh\n delete mode 100755 run.sh\n create mode 100644 notes.txt\n"
    );
    // --summary alone, like git apply's, writes nothing.
    assert!(!root.join("tool.sh").exists());
}

#[test]
fn binary_and_minus_text_attributes_keep_added_files_byte_exact() {
    let (_d, root) = repo();
    commit_attributes(&root, "*.dat binary\n*.raw -text\n*.txt text eol=crlf\n");
    git(&root, &["config", "core.autocrlf", "true"]);
    let patch = "*** Begin Patch\n*** Add File: a.dat\n+one\n+two\n*** Add File: b.raw\n+one\n+two\n*** Add File: c.txt\n+one\n+two\n*** End Patch\n";
    let out = apply(&root, &["--index"], patch);
    assert_ok(&out);
    assert_eq!(fs::read(root.join("a.dat")).expect("read"), b"one\ntwo\n");
    assert_eq!(fs::read(root.join("b.raw")).expect("read"), b"one\ntwo\n");
    assert_eq!(
        fs::read(root.join("c.txt")).expect("read"),
        b"one\r\ntwo\r\n"
    );
    // Index and working tree agree for all three.
    assert_eq!(git(&root, &["diff", "--name-only"]), "");
    assert_eq!(git(&root, &["show", ":c.txt"]), "one\ntwo\n");
}

#[test]
fn mode_changes_are_applied_to_the_worktree_and_the_index() {
    use std::os::unix::fs::PermissionsExt;
    let (_d, root) = repo();
    let patch = "diff --git a/src/b.py b/src/b.py\nold mode 100644\nnew mode 100755\n--- a/src/b.py\n+++ b/src/b.py\n@@ -1,3 +1,3 @@\n X = 1\n-Y = 2\n+Y = 5\n Z = 3\n\
                 diff --git a/run.sh b/run.sh\nold mode 100755\nnew mode 100644\n";
    let out = apply(&root, &["--index"], patch);
    assert_ok(&out);
    let perms = |p: &str| {
        fs::metadata(root.join(p))
            .expect("metadata")
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(perms("src/b.py"), 0o755);
    assert_eq!(perms("run.sh"), 0o644);
    let staged = git(&root, &["ls-files", "-s", "src/b.py", "run.sh"]);
    assert!(
        staged.contains("100644") && staged.contains("100755"),
        "{staged}"
    );
    assert!(
        staged
            .lines()
            .all(|l| l.starts_with("100755") == l.ends_with("src/b.py")),
        "{staged}"
    );
    assert_eq!(
        git(&root, &["status", "--porcelain"]),
        "M  run.sh\nM  src/b.py\n"
    );
}

#[test]
fn a_rename_with_a_mode_change_moves_the_file_with_its_new_mode() {
    use std::os::unix::fs::PermissionsExt;
    let (_d, root) = repo();
    let patch = "diff --git a/src/b.py b/bin/b.py\nold mode 100644\nnew mode 100755\nsimilarity index 100%\nrename from src/b.py\nrename to bin/b.py\n\
                 diff --git a/run.sh b/tools/run.sh\nold mode 100755\nnew mode 100644\nsimilarity index 100%\nrename from run.sh\nrename to tools/run.sh\n";
    let out = apply(&root, &["--index"], patch);
    assert_ok(&out);
    let perms = |p: &str| {
        fs::metadata(root.join(p))
            .expect("metadata")
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(perms("bin/b.py"), 0o755);
    assert_eq!(perms("tools/run.sh"), 0o644);
    let staged = git(&root, &["ls-files", "-s", "bin/b.py", "tools/run.sh"]);
    assert!(
        staged
            .lines()
            .all(|l| l.starts_with("100755") == l.ends_with("bin/b.py")),
        "{staged}"
    );
    assert_eq!(git(&root, &["diff", "--name-only"]), "");
}

#[test]
fn git_renames_with_and_without_edits_move_files_and_index_entries() {
    let (_d, root) = repo();
    let patch = "diff --git a/src/b.py b/lib/b2.py\nsimilarity index 80%\nrename from src/b.py\nrename to lib/b2.py\n--- a/src/b.py\n+++ b/lib/b2.py\n@@ -1,3 +1,3 @@\n X = 1\n-Y = 2\n+Y = 7\n Z = 3\n\
                 diff --git a/src/deep/c.txt b/c.txt\nsimilarity index 100%\nrename from src/deep/c.txt\nrename to c.txt\n";
    let out = apply(&root, &["--index"], patch);
    assert_ok(&out);
    assert_eq!(read(&root, "lib/b2.py"), "X = 1\nY = 7\nZ = 3\n");
    assert_eq!(read(&root, "c.txt"), "one\ntwo\nthree\n");
    assert!(!root.join("src/b.py").exists());
    // The emptied directory is gone.
    assert!(!root.join("src/deep").exists());
    let status = git(&root, &["status", "--porcelain"]);
    for expected in ["R  src/deep/c.txt -> c.txt", "lib/b2.py", "src/b.py"] {
        assert!(status.contains(expected), "{status}");
    }
    assert_eq!(git(&root, &["diff"]), "");
    git(&root, &["fsck", "--no-progress"]);
}

#[test]
fn include_and_exclude_filter_paths() {
    let (_d, root) = repo();
    let patch = format!("{PATCH_A}--- a/src/b.py\n+++ b/src/b.py\n@@\n X = 1\n-Y = 2\n+Y = 20\n");
    let out = apply(&root, &["--exclude", "src/a.py"], &patch);
    assert_ok(&out);
    assert!(read(&root, "src/a.py").contains("return 1\n"));
    assert!(read(&root, "src/b.py").contains("Y = 20"));
}

#[test]
fn a_folder_of_patches_is_applied_as_one_reply_for_pre_commit() {
    let (_d, root) = repo();
    let folder = root.join(".agent-patches");
    fs::create_dir(&folder).expect("mkdir");
    fs::write(folder.join(".gitkeep"), "").expect("write");
    let empty = apply(&root, &["--index", ".agent-patches"], "");
    assert_eq!(empty.status.code(), Some(0), "{}", stderr(&empty));
    fs::write(folder.join("1.diff"), PATCH_A).expect("write");
    fs::write(
        folder.join("2.md"),
        "src/b.py\n<<<<<<< SEARCH\nY = 2\n=======\nY = 200\n>>>>>>> REPLACE\n",
    )
    .expect("write");
    let out = apply(&root, &["--index", ".agent-patches"], "");
    assert_ok(&out);
    let status = git(&root, &["status", "--porcelain", "--untracked-files=no"]);
    assert_eq!(status, "M  src/a.py\nM  src/b.py\n");
    // Running the hook again finds everything already applied.
    let again = apply(&root, &["--index", ".agent-patches"], "");
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert_eq!(git(&root, &["diff"]), "");
}

#[test]
fn autocrlf_files_keep_crlf_in_the_worktree_and_lf_in_the_index() {
    let (_d, root) = repo();
    git(&root, &["config", "core.autocrlf", "true"]);
    fs::write(root.join("win.txt"), "alpha\r\nbeta\r\ngamma\r\n").expect("write");
    git(&root, &["add", "win.txt"]);
    git(&root, &["commit", "-q", "-m", "crlf"]);
    let patch = "--- a/win.txt\n+++ b/win.txt\n@@\n alpha\n-beta\n+BETA\n+delta\n gamma\n";
    let out = apply(&root, &["--index"], patch);
    assert_ok(&out);
    assert_eq!(
        fs::read(root.join("win.txt")).expect("read"),
        b"alpha\r\nBETA\r\ndelta\r\ngamma\r\n"
    );
    assert_eq!(
        git(&root, &["show", ":win.txt"]),
        "alpha\nBETA\ndelta\ngamma\n"
    );
    assert_eq!(git(&root, &["diff", "--stat"]), "");
}

#[test]
fn two_renames_onto_one_path_never_stage_two_entries() {
    let (_d, root) = repo();
    let patch = "diff --git a/src/b.py b/src/new.py\nsimilarity index 100%\nrename from src/b.py\nrename to src/new.py\n\
                 diff --git a/run.sh b/src/new.py\nsimilarity index 100%\nrename from run.sh\nrename to src/new.py\n";
    let out = apply(&root, &["--index"], patch);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("path_conflict"), "{}", stderr(&out));
    assert_eq!(git(&root, &["status", "--porcelain"]), "");
    assert!(root.join("src/b.py").exists() && root.join("run.sh").exists());
}

#[test]
fn a_worktree_only_run_does_not_need_the_index_lock() {
    // git apply without --index leaves the index alone, and so may run
    // while another git holds index.lock; so does this tool.
    let (_d, root) = repo();
    fs::write(root.join(".git/index.lock"), "").expect("lock");
    let out = apply(&root, &[], PATCH_A);
    assert_ok(&out);
    assert!(root.join(".git/index.lock").exists(), "someone else's lock");
    // With --index it must wait for the other git.
    fs::write(
        root.join("src/a.py"),
        "def a():\n    return 1\n\n\ndef b():\n    return 2\n",
    )
    .expect("write");
    let out = apply(&root, &["--index"], PATCH_A);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("index.lock"), "{}", stderr(&out));
}

#[test]
fn an_unwritable_git_directory_is_not_called_a_running_git() {
    let (_d, root) = repo();
    let git_dir = root.join(".git");
    // Root ignores permission bits: a read-only bind mount makes .git
    // unwritable for everyone (CI runs as root, where it never skips).
    let bound = Command::new("mount")
        .arg("--bind")
        .arg(&git_dir)
        .arg(&git_dir)
        .status()
        .is_ok_and(|s| s.success())
        && Command::new("mount")
            .args(["-o", "remount,ro,bind"])
            .arg(&git_dir)
            .status()
            .is_ok_and(|s| s.success());
    if !bound {
        let _ = Command::new("umount").arg(&git_dir).status();
        assert!(
            !crate::support::mounting_required(),
            "cannot bind-mount in CI"
        );
        eprintln!("skipped: cannot make a read-only bind mount here (needs root)");
        return;
    }
    let outs: Vec<Output> = [&["--index"][..], &[][..]]
        .iter()
        .map(|args| apply(&root, args, PATCH_A))
        .collect();
    let _ = Command::new("umount").arg(&git_dir).status();
    for out in outs {
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(!err.contains("another git"), "{err}");
        assert!(err.contains("Read-only file system"), "{err}");
    }
}

/// A numberless hunk of added lines for a missing `b.py` is not created
/// while `src/b.py` is staged (only in the index with `--cached`: the
/// working tree's copy is removed), and is created once the path names
/// the file with its directory (docs/formats.md, numberless new files).
#[test]
fn cached_numberless_new_file_is_refused_when_the_index_has_it_deeper() {
    let (_d, root) = repo();
    fs::remove_file(root.join("src/b.py")).expect("rm");
    let patch = "--- a/b.py\n+++ b/b.py\n@@ ... @@\n+W = 0\n";
    let out = apply(&root, &["--cached"], patch);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("`src/b.py` exists"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("[file_not_found]"),
        "{}",
        stderr(&out)
    );
    let out = apply(
        &root,
        &["--cached"],
        &patch
            .replace(" b/b.py", " b/c.py")
            .replace(" a/b.py", " a/c.py"),
    );
    assert_ok(&out);
}

/// The staged entries (`git ls-files -s`) after `git apply` with `args` of
/// `patch` in a fresh copy of [`repo`].
fn git_apply_index(args: &[&str], patch: &str) -> String {
    let (_d, root) = repo();
    let file = root.join(".git").join("the.patch");
    fs::write(&file, patch).expect("write patch");
    let path = file.to_str().expect("utf-8 path");
    let mut all: Vec<&str> = vec!["apply"];
    all.extend(args);
    all.push(path);
    git(&root, &all);
    git(&root, &["ls-files", "-s"])
}

#[test]
fn entries_added_before_an_updated_path_keep_the_index_sorted_and_unique() {
    // Files created (`a0.txt`..`a4.txt`) and a renamed one (`run.sh` to
    // `bin/run.sh`) sort before `src/deep/c.txt`, which the patch edits
    // after them: the index must hold each path once, as `git apply`
    // stages it (the entries appended before the lookup outnumber the
    // index's own, so a binary search over them unsorted misses it).
    let mut patch = String::new();
    for k in 0..5 {
        patch.push_str(&format!(
            "diff --git a/a{k}.txt b/a{k}.txt\nnew file mode 100644\n--- /dev/null\n+++ b/a{k}.txt\n@@ -0,0 +1 @@\n+line {k}\n"
        ));
    }
    patch.push_str("diff --git a/run.sh b/bin/run.sh\nsimilarity index 100%\nrename from run.sh\nrename to bin/run.sh\n");
    patch.push_str("diff --git a/src/deep/c.txt b/src/deep/c.txt\n--- a/src/deep/c.txt\n+++ b/src/deep/c.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n");
    let patch = patch.as_str();
    for mode in ["--index", "--cached"] {
        let (_d, root) = repo();
        assert_ok(&apply(&root, &[mode], patch));
        assert_eq!(
            git(&root, &["ls-files", "-s"]),
            git_apply_index(&[mode], patch),
            "{mode}"
        );
        git(&root, &["fsck", "--no-progress"]);
        git(&root, &["commit", "-q", "-m", "applied"]);
        assert_eq!(
            git(&root, &["show", "HEAD:src/deep/c.txt"]),
            "one\nTWO\nthree\n"
        );
        git(&root, &["fsck", "--no-progress", "--strict"]);
    }
}
