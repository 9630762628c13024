//! Peak memory does not grow with a mapped target (issue 18, "linear
//! cost"): a pass over the whole file (counting its lines, searching it,
//! checksumming what is copied of it) gives its pages back as it goes
//! (`src/source/pages.rs`), and `--index` streams the written file into the
//! object database instead of reading it back whole (`src/git/blob.rs`).
//! Before, the peak was the whole file (worktree) or twice it (`--index`)
//! above the process's own; `benches/memory.py` has the figures.

use crate::support::{self, BIN, git};
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

/// About 40 MiB.
const LINES: usize = 800_000;

fn line(i: usize) -> String {
    format!(
        "    let value_{i} = compute_{}(input, {i}); // step\n",
        i % 7
    )
}

/// The peak resident set (KiB) and exit code of the binary run in `dir`.
// The child is reaped by `wait4`, which also gives its resource usage.
#[allow(clippy::zombie_processes)]
fn peak_rss(dir: &Path, args: &[&str]) -> (i64, Option<i32>) {
    let child = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let pid = libc::pid_t::try_from(child.id()).expect("pid");
    let mut status = 0;
    // SAFETY: a zeroed `rusage` is valid; `wait4` fills it and `status` for
    // our own child, which nothing else waits for.
    let (got, usage) = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        (libc::wait4(pid, &mut status, 0, &mut usage), usage)
    };
    assert_eq!(got, pid, "wait4");
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    (usage.ru_maxrss, code)
}

#[test]
fn peak_memory_stays_below_a_mapped_target_s_size_with_and_without_index() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tree");
    fs::create_dir(&root).unwrap();
    let mut lines: Vec<String> = (0..LINES).map(line).collect();
    let text: String = lines.concat();
    let size_kib = i64::try_from(text.len() / 1024).unwrap();
    fs::write(root.join("f.rs"), &text).unwrap();
    support::scene::commit_all(&root, &[]);
    // Two numbered hunks, near the start and near the end.
    let mut patch = String::from("--- a/f.rs\n+++ b/f.rs\n");
    for at in [1_000, LINES - 1_000] {
        patch += &format!(
            "@@ -{},3 +{},3 @@\n {}-{}+    changed {at}\n {}",
            at,
            at,
            lines[at - 1],
            lines[at],
            lines[at + 1]
        );
        lines[at] = format!("    changed {at}\n");
    }
    fs::write(dir.path().join("patch"), &patch).unwrap();
    // Stat data that match the index entry, not racy: the index check
    // trusts them, as git does, and does not read the file (one whose stat
    // data do not match is hashed from a copy read whole).
    let status = Command::new("touch")
        .args(["-d", "1 hour ago", "f.rs"])
        .current_dir(&root)
        .status()
        .expect("touch");
    assert!(status.success());
    git(&root, &["update-index", "-q", "--refresh"]);
    let (index, code) = peak_rss(&root, &["--index", "../patch"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        fs::read_to_string(root.join("f.rs")).unwrap(),
        lines.concat()
    );
    assert_eq!(git(&root, &["diff", "--name-only"]), "");
    assert_eq!(git(&root, &["diff", "--cached", "--name-only"]), "f.rs\n");
    git(&root, &["checkout", "HEAD", "--", "f.rs"]);
    let (worktree, code) = peak_rss(&root, &["../patch"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        fs::read_to_string(root.join("f.rs")).unwrap(),
        lines.concat()
    );
    eprintln!("file {size_kib} KiB: peak RSS {worktree} KiB, with --index {index} KiB");
    // Before: the file's size above the process's own (about 20 MiB in a
    // debug build), twice it with --index.
    assert!(
        worktree < size_kib,
        "{worktree} KiB for a file of {size_kib} KiB"
    );
    assert!(
        index < size_kib,
        "{index} KiB with --index, a file of {size_kib} KiB"
    );
}
