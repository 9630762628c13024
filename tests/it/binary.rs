//! Binary files against real `git apply`: in a temporary repository,
//! binary files (random bytes with NULs; empty, small and over 64 KiB, so
//! git writes both `literal` and `delta` hunks) are added, changed,
//! rewritten, deleted and renamed together with text files, and turned
//! into a symbolic link and back (typechanges); the
//! `git diff --binary` (with and without rename detection) and
//! `git format-patch` of that change are applied by our binary and by
//! `git apply` to copies of the tree, plain and with `--index`: trees and
//! index entries must be the same byte for byte. A second run writes
//! nothing; `-R` restores the tree and the index; a failure at any write
//! step leaves tree and index all before or all after; a binary file that
//! is not the patch's old side is refused with nothing written.

use std::fs;
use std::path::{Path, PathBuf};

use crate::support::{self, git, run_bin, snapshot};

/// `n` pseudo-random bytes (xorshift from `seed`), NULs included.
fn bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|i| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            if i % 17 == 0 { 0 } else { s as u8 }
        })
        .collect()
}

/// `base` with a few bytes changed at `at` and some inserted.
fn edited(base: &[u8], at: usize, seed: u64) -> Vec<u8> {
    let mut out = base[..at].to_vec();
    out.extend_from_slice(&bytes(seed, 40));
    out.extend_from_slice(&base[at + 10..]);
    out
}

/// The committed tree every test starts from.
fn base(root: &Path) {
    fs::create_dir_all(root.join("img")).unwrap();
    fs::write(root.join("empty.bin"), b"").unwrap();
    fs::write(root.join("small.bin"), bytes(1, 300)).unwrap();
    fs::write(root.join("img/big.bin"), bytes(2, 100_000)).unwrap();
    fs::write(root.join("rewrite.bin"), bytes(3, 70_000)).unwrap();
    fs::write(root.join("gone.bin"), bytes(4, 2_000)).unwrap();
    fs::write(root.join("moved.bin"), bytes(5, 80_000)).unwrap();
    fs::write(root.join("tobin.txt"), "plain text\nsecond line\n").unwrap();
    fs::write(root.join("frombin.dat"), bytes(6, 500)).unwrap();
    fs::write(root.join("binlink.bin"), bytes(15, 3_000)).unwrap();
    std::os::unix::fs::symlink("small.bin", root.join("linkbin")).unwrap();
    let text: String = (1..=40).map(|i| format!("line {i}\n")).collect();
    fs::write(root.join("notes.txt"), text).unwrap();
    git(root, &["init", "-q"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "base"]);
}

/// Every kind of change, made in the working tree and committed.
fn change(root: &Path) {
    fs::write(root.join("empty.bin"), bytes(7, 50)).unwrap();
    let small = fs::read(root.join("small.bin")).unwrap();
    fs::write(root.join("small.bin"), edited(&small, 100, 8)).unwrap();
    let big = fs::read(root.join("img/big.bin")).unwrap();
    fs::write(root.join("img/big.bin"), edited(&big, 50_000, 9)).unwrap();
    fs::write(root.join("rewrite.bin"), bytes(10, 90_000)).unwrap();
    fs::remove_file(root.join("gone.bin")).unwrap();
    let moved = fs::read(root.join("moved.bin")).unwrap();
    fs::remove_file(root.join("moved.bin")).unwrap();
    fs::write(root.join("renamed.bin"), edited(&moved, 1_000, 11)).unwrap();
    fs::write(root.join("new.bin"), bytes(12, 5_000)).unwrap();
    fs::write(root.join("new_big.bin"), bytes(13, 66_000)).unwrap();
    let mut tobin = b"plain text\0".to_vec();
    tobin.extend_from_slice(&bytes(14, 30));
    fs::write(root.join("tobin.txt"), tobin).unwrap();
    fs::write(root.join("frombin.dat"), "now text\n").unwrap();
    // Typechanges: a binary file becomes a link, a link a binary file.
    fs::remove_file(root.join("binlink.bin")).unwrap();
    std::os::unix::fs::symlink("img/big.bin", root.join("binlink.bin")).unwrap();
    fs::remove_file(root.join("linkbin")).unwrap();
    fs::write(root.join("linkbin"), bytes(16, 70_000)).unwrap();
    let text: String = (1..=40)
        .map(|i| match i {
            5 => "line five\n".to_string(),
            30 => String::new(),
            _ => format!("line {i}\n"),
        })
        .collect();
    fs::write(root.join("notes.txt"), text).unwrap();
    fs::write(root.join("added.txt"), "a new text file\n").unwrap();
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "change"]);
}

/// The base repository in `dir/base` and the patches of [`change`].
fn patches(dir: &Path) -> (PathBuf, Vec<(&'static str, String)>) {
    let root = dir.join("base");
    base(&root);
    let work = dir.join("work");
    support::copy_repo(&root, &work);
    change(&work);
    let diff = |args: &[&str]| git(&work, args);
    let out = vec![
        (
            "diff -M",
            diff(&["diff", "--binary", "-M", "HEAD~1", "HEAD"]),
        ),
        (
            "diff --no-renames",
            diff(&["diff", "--binary", "--no-renames", "HEAD~1", "HEAD"]),
        ),
        (
            "format-patch",
            diff(&["format-patch", "-1", "-M", "--stdout", "HEAD"]),
        ),
    ];
    assert!(
        out[0]
            .1
            .contains("rename from moved.bin\nrename to renamed.bin\n")
    );
    assert!(out[2].1.contains("rename to renamed.bin\n"));
    for (name, text) in &out {
        let typechange = "diff --git a/binlink.bin b/binlink.bin\ndeleted file mode 100644\n";
        assert!(text.contains(typechange), "{name}: no binary typechange");
    }
    for (name, text) in &out {
        assert!(text.contains("\ndelta "), "{name}: no delta hunk\n");
        assert!(text.contains("\nliteral "), "{name}: no literal hunk\n");
    }
    (root, out)
}

#[test]
fn binary_patches_give_git_apply_s_tree_and_index_and_reverse_to_the_original() {
    let dir = tempfile::tempdir().unwrap();
    let (root, patches) = patches(dir.path());
    let (before, before_index) = (snapshot(&root), support::staged(&root));
    for (i, (name, text)) in patches.iter().enumerate() {
        let patch = dir.path().join(format!("{i}.patch"));
        fs::write(&patch, text).unwrap();
        let patch = patch.display().to_string();
        for staged in [false, true] {
            let ours = dir.path().join(format!("ours{i}{staged}"));
            let theirs = dir.path().join(format!("theirs{i}{staged}"));
            support::copy_repo(&root, &ours);
            support::copy_repo(&root, &theirs);
            let args: &[&str] = if staged { &["--index"] } else { &[] };
            let with = |extra: &[&'static str]| -> Vec<String> {
                let all = [args, extra].concat().into_iter().map(String::from);
                all.chain([patch.clone()]).collect()
            };
            let run = |dir: &Path, extra: &[&'static str]| {
                let owned = with(extra);
                let refs: Vec<&str> = owned.iter().map(String::as_str).collect();
                run_bin(dir, &refs, None)
            };
            let out = run(&ours, &[]);
            assert!(out.status.success(), "{name}: {}", support::stderr(&out));
            let mut apply = vec!["apply".to_string()];
            apply.extend(with(&[]));
            let refs: Vec<&str> = apply.iter().map(String::as_str).collect();
            git(&theirs, &refs);
            assert_eq!(snapshot(&ours), snapshot(&theirs), "{name}: trees differ");
            assert_eq!(
                support::staged(&ours),
                support::staged(&theirs),
                "{name}: indexes differ"
            );
            // Applied twice: already applied, nothing written.
            let inodes_before = support::inodes(&ours);
            let again = run(&ours, &[]);
            assert!(
                again.status.success(),
                "{name}: {}",
                support::stderr(&again)
            );
            assert_eq!(
                inodes_before,
                support::inodes(&ours),
                "{name}: a second run wrote"
            );
            // Reversed: the tree (and index) as they were.
            let back = run(&ours, &["-R"]);
            assert!(back.status.success(), "{name}: {}", support::stderr(&back));
            assert_eq!(
                snapshot(&ours),
                before,
                "{name}: -R did not restore the tree"
            );
            if staged {
                assert_eq!(support::staged(&ours), before_index, "{name}: -R, index");
                assert_eq!(git(&ours, &["status", "--porcelain"]), "", "{name}");
            }
        }
    }
}

#[test]
fn check_and_cached_follow_git_apply() {
    let dir = tempfile::tempdir().unwrap();
    let (root, patches) = patches(dir.path());
    let patch = dir.path().join("all.patch");
    fs::write(&patch, &patches[0].1).unwrap();
    let patch = patch.display().to_string();
    support::check_and_cached_as_git_apply(dir.path(), &root, &patch);
}

#[test]
fn a_failure_at_any_write_step_leaves_tree_and_index_before_or_after() {
    let dir = tempfile::tempdir().unwrap();
    let (root, _) = patches(dir.path());
    // The typechanges, a changed and a new binary file, and a text file: the
    // whole patch's large files would make each of the hundred runs slow.
    let paths = [
        "binlink.bin",
        "linkbin",
        "small.bin",
        "new.bin",
        "notes.txt",
    ];
    let args = [&["diff", "--binary", "HEAD~1", "HEAD", "--"][..], &paths].concat();
    let patch = dir.path().join("some.patch");
    fs::write(&patch, git(&dir.path().join("work"), &args)).unwrap();
    support::faults_leave_before_or_after(dir.path(), &root, &patch.display().to_string());
}

#[test]
fn a_changed_binary_file_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let (root, patches) = patches(dir.path());
    let patch = dir.path().join("all.patch");
    fs::write(&patch, &patches[0].1).unwrap();
    let patch = patch.display().to_string();
    let ours = dir.path().join("ours");
    support::copy_repo(&root, &ours);
    let mut big = fs::read(ours.join("img/big.bin")).unwrap();
    big[10] ^= 1;
    fs::write(ours.join("img/big.bin"), &big).unwrap();
    let tree = snapshot(&ours);
    let out = run_bin(&ours, &[&patch], None);
    assert_eq!(out.status.code(), Some(1));
    let err = support::stderr(&out);
    assert!(err.contains("img/big.bin"), "{err}");
    assert!(err.contains("stale_removed_line"), "{err}");
    assert!(err.contains("matched exactly"), "{err}");
    assert_eq!(snapshot(&ours), tree, "a refused patch wrote");
    // git refuses it too.
    let theirs = dir.path().join("theirs");
    support::copy_repo(&ours, &theirs);
    let git_out = std::process::Command::new("git")
        .args(["apply", &patch])
        .current_dir(&theirs)
        .output()
        .unwrap();
    assert!(!git_out.status.success());
}

#[test]
fn binary_files_differ_asks_for_git_diff_binary() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("base");
    base(&root);
    let work = dir.path().join("work");
    support::copy_repo(&root, &work);
    change(&work);
    let text = git(&work, &["diff", "HEAD~1", "HEAD"]);
    assert!(text.contains("Binary files a/small.bin and b/small.bin differ"));
    let patch = dir.path().join("plain.diff");
    fs::write(&patch, text).unwrap();
    let ours = dir.path().join("ours");
    support::copy_repo(&root, &ours);
    let tree = snapshot(&ours);
    let out = run_bin(&ours, &[&patch.display().to_string()], None);
    assert_eq!(out.status.code(), Some(1));
    let err = support::stderr(&out);
    assert!(err.contains("git diff --binary"), "{err}");
    assert!(err.contains("malformed_patch"), "{err}");
    assert_eq!(snapshot(&ours), tree);
}

#[test]
fn emit_unified_writes_binary_files_as_git_binary_patches() {
    let dir = tempfile::tempdir().unwrap();
    let (root, patches) = patches(dir.path());
    let patch = dir.path().join("all.patch");
    fs::write(&patch, &patches[0].1).unwrap();
    let ours = dir.path().join("ours");
    support::copy_repo(&root, &ours);
    let out = run_bin(
        &ours,
        &["--emit-unified", &patch.display().to_string()],
        None,
    );
    assert!(out.status.success(), "{}", support::stderr(&out));
    let emitted = String::from_utf8(out.stdout).unwrap();
    assert!(emitted.contains("GIT binary patch\nliteral "), "{emitted}");
    let completed = dir.path().join("completed.diff");
    fs::write(&completed, &emitted).unwrap();
    let theirs = dir.path().join("theirs");
    support::copy_repo(&root, &theirs);
    git(
        &ours,
        &["apply", "--index", &completed.display().to_string()],
    );
    git(&theirs, &["apply", "--index", &patch.display().to_string()]);
    assert_eq!(snapshot(&ours), snapshot(&theirs));
    assert_eq!(support::staged(&ours), support::staged(&theirs));
}

#[test]
fn stat_numstat_and_summary_show_binary_files_as_git_apply_does() {
    let dir = tempfile::tempdir().unwrap();
    let (root, patches) = patches(dir.path());
    for (i, (name, text)) in patches.iter().enumerate() {
        let patch = dir.path().join(format!("{i}.patch"));
        fs::write(&patch, text).unwrap();
        support::stat_as_git_apply(&root, &patch.display().to_string(), name);
    }
}
