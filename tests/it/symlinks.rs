//! Symbolic links against real `git apply` (issue 18): in a temporary
//! repository, `git diff` of links created, retargeted, deleted, renamed,
//! turned into files and files turned into links (typechanges), and a mode
//! change, is applied by our binary and by `git apply` to two copies of the
//! tree, with `--index`: trees (links compared as links) and index entries
//! must be the same. `-R` then restores the tree and the index; a second run
//! writes nothing; a failure at any write step leaves the links as they
//! were. Trees are built in code: fixture folders cannot hold links.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use crate::support::{self, git, run_bin, snapshot};

/// The committed tree every test starts from.
fn base(root: &Path) {
    fs::create_dir_all(root.join("dir")).unwrap();
    fs::write(root.join("file.txt"), "hello\n").unwrap();
    fs::write(root.join("other.txt"), "other\n").unwrap();
    fs::write(root.join("run.sh"), "echo hi\n").unwrap();
    fs::write(root.join("totype"), "a file\n").unwrap();
    for (link, target) in [
        ("tomod", "file.txt"),
        ("todel", "other.txt"),
        ("toren", "file.txt"),
        ("linktype", "file.txt"),
        ("dir/up", "../file.txt"),
        ("outside", "/nonexistent/outside-target"),
    ] {
        symlink(target, root.join(link)).unwrap();
    }
    git(root, &["init", "-q"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "base"]);
}

/// Every kind of change to a link, made in the working tree and staged.
fn change(root: &Path) {
    let relink = |link: &str, target: &str| {
        let _ = fs::remove_file(root.join(link));
        symlink(target, root.join(link)).unwrap();
    };
    relink("newlink", "new/target");
    relink("tomod", "other.txt");
    relink("dir/up", "../other.txt");
    relink("outside", "/nonexistent/elsewhere");
    fs::remove_file(root.join("todel")).unwrap();
    fs::rename(root.join("toren"), root.join("renamed")).unwrap();
    relink("totype", "file.txt");
    fs::remove_file(root.join("linktype")).unwrap();
    fs::write(root.join("linktype"), "now a file\n").unwrap();
    let mut perms = fs::metadata(root.join("run.sh")).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    fs::set_permissions(root.join("run.sh"), perms).unwrap();
    git(root, &["add", "-A"]);
}

/// The base repository in `dir/base` and the diffs of [`change`]: the whole
/// diff (with and without rename detection) and each file's own.
fn diffs(dir: &Path) -> (PathBuf, Vec<(String, String)>) {
    let root = dir.join("base");
    base(&root);
    let work = dir.join("work");
    support::copy_repo(&root, &work);
    change(&work);
    let mut out = Vec::new();
    for args in [
        ["diff", "--cached", "-M"],
        ["diff", "--cached", "--no-renames"],
    ] {
        out.push((args.join(" "), git(&work, &args)));
    }
    let whole = out[0].1.clone();
    // Each path's own diff; a typechange's deletion and creation together.
    for part in whole.split("diff --git ").skip(1) {
        let name = part.lines().next().unwrap_or("").to_string();
        match out.last_mut() {
            Some((last, text)) if *last == name => text.push_str(&format!("diff --git {part}")),
            _ => out.push((name, format!("diff --git {part}"))),
        }
    }
    (root, out)
}

#[test]
fn link_diffs_give_git_apply_s_tree_and_index_and_reverse_to_the_original() {
    let dir = tempfile::tempdir().unwrap();
    let (root, diffs) = diffs(dir.path());
    let (before, before_index) = (snapshot(&root), support::staged(&root));
    for (i, (name, diff)) in diffs.iter().enumerate() {
        let patch = dir.path().join(format!("{i}.diff"));
        fs::write(&patch, diff).unwrap();
        let patch = patch.display().to_string();
        let (ours, theirs) = (
            dir.path().join(format!("ours{i}")),
            dir.path().join(format!("theirs{i}")),
        );
        support::copy_repo(&root, &ours);
        support::copy_repo(&root, &theirs);
        let out = run_bin(&ours, &["--index", &patch], None);
        assert!(
            out.status.success(),
            "{name}: {}\n{diff}",
            support::stderr(&out)
        );
        git(&theirs, &["apply", "--index", &patch]);
        assert_eq!(
            snapshot(&ours),
            snapshot(&theirs),
            "{name}: trees differ\n{diff}"
        );
        assert_eq!(
            support::staged(&ours),
            support::staged(&theirs),
            "{name}: indexes differ\n{diff}"
        );
        // Applied twice: already applied, nothing written.
        let inodes = support::inodes(&ours);
        let again = run_bin(&ours, &["--index", &patch], None);
        assert!(
            again.status.success(),
            "{name}: {}",
            support::stderr(&again)
        );
        assert_eq!(inodes, support::inodes(&ours), "{name}: a second run wrote");
        // Reversed: the tree and index as they were.
        let back = run_bin(&ours, &["-R", "--index", &patch], None);
        assert!(back.status.success(), "{name}: {}", support::stderr(&back));
        assert_eq!(
            snapshot(&ours),
            before,
            "{name}: -R did not restore the tree"
        );
        assert_eq!(
            support::staged(&ours),
            before_index,
            "{name}: -R did not restore the index"
        );
        assert_eq!(git(&ours, &["status", "--porcelain"]), "", "{name}");
    }
}

#[test]
fn cached_and_check_follow_git_apply() {
    let dir = tempfile::tempdir().unwrap();
    let (root, diffs) = diffs(dir.path());
    let patch = dir.path().join("all.diff");
    fs::write(&patch, &diffs[0].1).unwrap();
    let patch = patch.display().to_string();
    support::check_and_cached_as_git_apply(dir.path(), &root, &patch);
    // Worktree only, as plain `git apply`.
    let (ours, theirs) = (dir.path().join("ours2"), dir.path().join("theirs2"));
    support::copy_repo(&root, &ours);
    support::copy_repo(&root, &theirs);
    let out = run_bin(&ours, &[&patch], None);
    assert!(out.status.success(), "{}", support::stderr(&out));
    git(&theirs, &["apply", &patch]);
    assert_eq!(snapshot(&ours), snapshot(&theirs));
}

#[test]
fn stat_numstat_and_summary_show_typechanges_as_git_apply_does() {
    let dir = tempfile::tempdir().unwrap();
    let (root, diffs) = diffs(dir.path());
    for (i, (name, diff)) in diffs.iter().take(2).enumerate() {
        let patch = dir.path().join(format!("{i}.diff"));
        fs::write(&patch, diff).unwrap();
        support::stat_as_git_apply(&root, &patch.display().to_string(), name);
    }
}

#[test]
fn emit_unified_writes_links_modes_and_typechanges_as_git_does() {
    let dir = tempfile::tempdir().unwrap();
    let (root, diffs) = diffs(dir.path());
    let patch = dir.path().join("all.diff");
    fs::write(&patch, &diffs[0].1).unwrap();
    let patch = patch.display().to_string();
    let out = run_bin(&root, &["--emit-unified", &patch], None);
    assert!(out.status.success(), "{}", support::stderr(&out));
    let emitted = String::from_utf8(out.stdout).unwrap();
    assert!(emitted.contains("new file mode 120000\n"), "{emitted}");
    assert!(
        emitted.contains("old mode 100644\nnew mode 100755\n"),
        "{emitted}"
    );
    let completed = dir.path().join("completed.diff");
    fs::write(&completed, &emitted).unwrap();
    let (ours, theirs) = (dir.path().join("ours"), dir.path().join("theirs"));
    support::copy_repo(&root, &ours);
    support::copy_repo(&root, &theirs);
    git(
        &ours,
        &["apply", "--index", &completed.display().to_string()],
    );
    git(&theirs, &["apply", "--index", &patch]);
    assert_eq!(snapshot(&ours), snapshot(&theirs), "{emitted}");
    assert_eq!(
        support::staged(&ours),
        support::staged(&theirs),
        "{emitted}"
    );
}

#[test]
fn a_link_is_matched_exactly_and_never_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("t");
    base(&root);
    let outside = dir.path().join("victim.txt");
    fs::write(&outside, "victim\n").unwrap();
    symlink(&outside, root.join("out")).unwrap();
    symlink("dir", root.join("dirlink")).unwrap();
    let before = snapshot(&root);
    let run = |patch: &str| run_bin(&root, &["-"], Some(patch.as_bytes()));
    let link_diff = |path: &str, old: &str, new: &str| {
        format!(
            "diff --git a/{path} b/{path}\nindex 1111111..2222222 120000\n--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-{old}\n\\ No newline at end of file\n+{new}\n\\ No newline at end of file\n"
        )
    };
    // A target that is only near the old side: refused, naming both.
    let out = run(&link_diff("tomod", "file.txt ", "other.txt"));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        support::stderr(&out).contains("points to `file.txt`"),
        "{}",
        support::stderr(&out)
    );
    // A plain diff (no mode) of a link edits no link and no file behind it.
    let plain = "--- a/out\n+++ b/out\n@@ -1 +1 @@\n-victim\n+changed\n";
    let out = run(plain);
    assert_eq!(out.status.code(), Some(1));
    let plain = "--- a/tomod\n+++ b/tomod\n@@ -1 +1 @@\n-hello\n+changed\n";
    let out = run(plain);
    assert!(
        support::stderr(&out).contains("not_a_file"),
        "{}",
        support::stderr(&out)
    );
    // A link created beyond a linked directory.
    let beyond = "diff --git a/dirlink/x b/dirlink/x\nnew file mode 120000\n--- /dev/null\n+++ b/dirlink/x\n@@ -0,0 +1 @@\n+y\n\\ No newline at end of file\n";
    assert_eq!(run(beyond).status.code(), Some(1));
    // A link the patch deletes but a file is there: git's "wrong type".
    let wrong = "diff --git a/file.txt b/file.txt\ndeleted file mode 120000\n--- a/file.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n\\ No newline at end of file\n";
    let out = run(wrong);
    assert!(
        support::stderr(&out).contains("wrong type"),
        "{}",
        support::stderr(&out)
    );
    // Retargeting a link that points out of the tree replaces the link.
    let target = outside.display().to_string();
    let out = run(&link_diff("out", &target, "elsewhere"));
    assert!(out.status.success(), "{}", support::stderr(&out));
    assert_eq!(
        fs::read_link(root.join("out")).unwrap(),
        Path::new("elsewhere")
    );
    assert_eq!(fs::read_to_string(&outside).unwrap(), "victim\n");
    let out = run(&link_diff("out", "elsewhere", &target));
    assert!(out.status.success(), "{}", support::stderr(&out));
    assert_eq!(snapshot(&root), before);
    // One refused file of two: the link is not changed either.
    let both = format!(
        "{}--- a/file.txt\n+++ b/file.txt\n@@ -1 +1 @@\n-nothing like it\n+x\n",
        link_diff("tomod", "file.txt", "other.txt")
    );
    assert_eq!(run(&both).status.code(), Some(1));
    assert_eq!(snapshot(&root), before);
}

#[test]
fn a_failure_at_any_write_step_leaves_the_links_as_they_were() {
    let dir = tempfile::tempdir().unwrap();
    let (root, diffs) = diffs(dir.path());
    let patch = dir.path().join("all.diff");
    fs::write(&patch, &diffs[0].1).unwrap();
    support::faults_leave_before_or_after(dir.path(), &root, &patch.display().to_string());
}

/// `root` as git checks it out with `core.symlinks=false`: each link a
/// regular file holding its target, the index still staging `120000`.
fn links_as_files(root: &Path) {
    git(root, &["config", "core.symlinks", "false"]);
    for (path, entry) in snapshot(root) {
        if matches!(entry, support::Entry::Link(_)) {
            fs::remove_file(root.join(path)).unwrap();
        }
    }
    git(root, &["checkout", "--", "."]);
    assert!(
        !snapshot(root)
            .values()
            .any(|e| matches!(e, support::Entry::Link(_)))
    );
}

/// Runs `args` and the patch `patch` in `tree`, asserting success.
fn ok(tree: &Path, args: &[&str], patch: &str, name: &str) {
    let out = run_bin(tree, &[args, &[patch]].concat(), None);
    assert!(
        out.status.success(),
        "{name} {args:?}: {}",
        support::stderr(&out)
    );
}

#[test]
fn core_symlinks_false_writes_links_as_files_as_git_does() {
    let dir = tempfile::tempdir().unwrap();
    let (root, diffs) = diffs(dir.path());
    links_as_files(&root);
    let (before, before_index) = (snapshot(&root), support::staged(&root));
    for (i, (name, diff)) in diffs.iter().enumerate() {
        let patch = dir.path().join(format!("{i}.diff"));
        fs::write(&patch, diff).unwrap();
        let patch = patch.display().to_string();
        let at = |what: &str| dir.path().join(format!("{what}{i}"));
        let (ours, worktree, theirs) = (at("ours"), at("worktree"), at("theirs"));
        for tree in [&ours, &worktree, &theirs] {
            support::copy_repo(&root, tree);
        }
        git(&theirs, &["apply", "--index", &patch]);
        let (tree, index) = (snapshot(&theirs), support::staged(&theirs));
        // --index: tree and index as git's; again: nothing written; -R: back.
        ok(&ours, &["--index"], &patch, name);
        assert_eq!(snapshot(&ours), tree, "{name}: trees differ\n{diff}");
        assert_eq!(support::staged(&ours), index, "{name}: indexes differ");
        let inodes = support::inodes(&ours);
        ok(&ours, &["--index"], &patch, name);
        assert_eq!(inodes, support::inodes(&ours), "{name}: a second run wrote");
        ok(&ours, &["-R", "--index"], &patch, name);
        assert_eq!(snapshot(&ours), before, "{name}: -R, tree");
        assert_eq!(support::staged(&ours), before_index, "{name}: -R, index");
        assert_eq!(git(&ours, &["status", "--porcelain"]), "", "{name}");
        // The working tree alone: the tree git's --index gives (plain `git
        // apply` refuses a link it finds as a file: "wrong type"), the
        // index untouched; a second run and -R go by the files' bytes.
        ok(&worktree, &[], &patch, name);
        assert_eq!(snapshot(&worktree), tree, "{name}: worktree only");
        assert_eq!(support::staged(&worktree), before_index, "{name}");
        let inodes = support::inodes(&worktree);
        ok(&worktree, &[], &patch, name);
        assert_eq!(
            inodes,
            support::inodes(&worktree),
            "{name}: a second run wrote"
        );
        ok(&worktree, &["-R"], &patch, name);
        assert_eq!(snapshot(&worktree), before, "{name}: -R, worktree only");
        for tree in [&ours, &worktree, &theirs] {
            fs::remove_dir_all(tree).unwrap();
        }
    }
    let patch = dir.path().join("0.diff").display().to_string();
    support::check_and_cached_as_git_apply(dir.path(), &root, &patch);
}

#[test]
fn core_symlinks_false_leaves_plain_patches_and_real_links_alone() {
    let dir = tempfile::tempdir().unwrap();
    let (root, diffs) = diffs(dir.path());
    links_as_files(&root);
    let patch = dir.path().join("all.diff");
    fs::write(&patch, &diffs[0].1).unwrap();
    let before = snapshot(&root);
    // A plain diff of a link checked out as a file edits neither it nor
    // the file it names.
    let plain = "--- a/tomod\n+++ b/tomod\n@@ -1 +1 @@\n-file.txt\n\\ No newline at end of file\n+other.txt\n\\ No newline at end of file\n";
    let out = run_bin(&root, &["-"], Some(plain.as_bytes()));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        support::stderr(&out).contains("symbolic link is staged"),
        "{}",
        support::stderr(&out)
    );
    // A real link where git would have written a file is refused, not
    // replaced by one.
    fs::remove_file(root.join("tomod")).unwrap();
    symlink("file.txt", root.join("tomod")).unwrap();
    let out = run_bin(&root, &[&patch.display().to_string()], None);
    assert_eq!(out.status.code(), Some(1));
    let err = support::stderr(&out);
    assert!(
        err.contains("core.symlinks is false") && err.contains("tomod"),
        "{err}"
    );
    fs::remove_file(root.join("tomod")).unwrap();
    fs::write(root.join("tomod"), "file.txt").unwrap();
    assert_eq!(snapshot(&root), before, "a refused run wrote");
}
