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

/// The peak resident set (KiB) and exit code of the binary run in `dir`:
/// the largest `VmHWM` (the peak since `exec`) read from `/proc` while it
/// runs. The resource usage `wait4` gives would not do: it counts the
/// memory of this (large) test process, which the child shared until its
/// `exec`.
fn peak_rss(dir: &Path, args: &[&str]) -> (i64, Option<i32>) {
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    loop {
        let hwm = fs::read_to_string(&status_file)
            .ok()
            .and_then(|s| {
                let line = s.lines().find(|l| l.starts_with("VmHWM:"))?.to_string();
                line.split_whitespace().nth(1)?.parse::<i64>().ok()
            })
            .unwrap_or(0);
        peak = peak.max(hwm);
        if let Some(status) = child.try_wait().expect("try_wait") {
            return (peak, status.code());
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
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
    // Written again by git, as a checkout writes it (in pieces). A file
    // just written whole by one large write (here `fs::write`) may sit in
    // the page cache in large folios, which a read maps in whole, so that
    // a piece given back is mapped in again by the next one's read: then
    // the peak is about the file's size as before (docs/performance.md).
    fs::remove_file(root.join("f.rs")).unwrap();
    git(&root, &["checkout", "--", "f.rs"]);
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
