//! `--stat`, `--numstat` and `--summary`, shaped like `git apply`'s.
//!
//! ```
//! use git_fuzzy_apply::{plan_patch, report::stat};
//!
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
//! let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n-one\n+1\n+2\n";
//! let report = plan_patch(patch, dir.path(), &Default::default()).unwrap().report();
//! assert_eq!(stat::numstat(&report), "2\t1\ta.txt\n");
//! ```

use super::{FileReport, FileStatus, HunkOutcome, Report};
use crate::model::FileOp;
use crate::plan::FileResult;
use std::fmt::Write as _;

fn shown_path(f: &FileReport) -> String {
    match &f.move_to {
        Some(to) => format!("{} => {to}", f.path),
        None => f.path.clone(),
    }
}

/// A diffstat: one line per file and a total line. A file that is refused
/// shows `refused` instead of counts (it would not change, but it is not
/// empty either), and the total line of a patch that does not apply says so
/// rather than counting as if it did.
///
/// ```
/// use git_fuzzy_apply::{ApplyOptions, plan_patch};
/// use git_fuzzy_apply::report::stat::stat;
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
/// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n one\n-two\n+2\n";
/// let plan = plan_patch(patch, dir.path(), &ApplyOptions::default()).unwrap();
/// assert!(stat(&plan.report()).contains("1 file changed, 1 insertion(+), 1 deletion(-)"));
/// let stale = b"--- a/a.txt\n+++ b/a.txt\n@@\n one\n-three\n+3\n";
/// let plan = plan_patch(stale, dir.path(), &ApplyOptions::default()).unwrap();
/// assert_eq!(stat(&plan.report()), " a.txt | refused\n 1 file, 1 refused: the patch does not apply\n");
/// ```
pub fn stat(report: &Report) -> String {
    let files: Vec<&FileReport> = report.files.iter().collect();
    let width = files.iter().map(|f| shown_path(f).len()).max().unwrap_or(0);
    let most = files.iter().map(|f| f.added + f.removed).max().unwrap_or(0);
    let scale = |n: usize| {
        if most > 50 {
            (n * 50).div_ceil(most)
        } else {
            n
        }
    };
    let mut out = String::new();
    let (mut ins, mut del, mut refused) = (0, 0, 0);
    for f in &files {
        if refused_file(f) {
            refused += 1;
            let _ = writeln!(out, " {:<width$} | refused", shown_path(f));
            continue;
        }
        ins += f.added;
        del += f.removed;
        let _ = writeln!(
            out,
            " {:<width$} | {:>4} {}{}",
            shown_path(f),
            f.added + f.removed,
            "+".repeat(scale(f.added)),
            "-".repeat(scale(f.removed)),
        );
    }
    let partial = files.iter().any(|f| f.status == FileStatus::Partial);
    if !report.ok && !partial {
        let _ = writeln!(
            out,
            " {} {}, {refused} refused: the patch does not apply",
            files.len(),
            plural(files.len(), "file", "files"),
        );
        return out;
    }
    let changed = files.len() - refused;
    let _ = write!(
        out,
        " {changed} {} changed, {ins} {}(+), {del} {}(-)",
        plural(changed, "file", "files"),
        plural(ins, "insertion", "insertions"),
        plural(del, "deletion", "deletions"),
    );
    if refused > 0 {
        let _ = write!(out, "; {refused} refused");
    }
    out.push('\n');
    out
}

/// A file that does not change because it is refused: failed, or (with
/// `--partial`) not one of its hunks applies.
fn refused_file(f: &FileReport) -> bool {
    match f.status {
        FileStatus::Failed => true,
        FileStatus::Partial => !f.hunks.iter().any(|h| h.status == HunkOutcome::Applied),
        FileStatus::Patched | FileStatus::Unchanged => false,
    }
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// Tab-separated added, removed, path per file; `-` and `-` for a file
/// that is refused (as git writes for a binary file: no counts to give).
///
/// ```
/// use git_fuzzy_apply::{plan_patch, report::stat::numstat};
///
/// let dir = tempfile::tempdir().unwrap();
/// let patch = b"--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n";
/// let report = plan_patch(patch, dir.path(), &Default::default()).unwrap().report();
/// assert_eq!(numstat(&report), "2\t0\tnew.txt\n");
/// ```
pub fn numstat(report: &Report) -> String {
    report
        .files
        .iter()
        .map(|f| match refused_file(f) {
            true => format!("-\t-\t{}\n", shown_path(f)),
            false => format!("{}\t{}\t{}\n", f.added, f.removed, shown_path(f)),
        })
        .collect()
}

/// Creations, deletions and renames.
///
/// ```
/// use git_fuzzy_apply::{plan_patch, report::stat::summary};
///
/// let dir = tempfile::tempdir().unwrap();
/// let patch = b"--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+a\n";
/// let plan = plan_patch(patch, dir.path(), &Default::default()).unwrap();
/// assert_eq!(summary(&plan.report(), plan.results()), " create mode 100644 new.txt\n");
/// ```
pub fn summary<'a>(report: &Report, results: impl IntoIterator<Item = &'a FileResult>) -> String {
    let results: Vec<&FileResult> = results.into_iter().collect();
    // The mode a created file gets or a deleted file had, as git shows it.
    let mode = |path: &str, added: bool| {
        results
            .iter()
            .find(|r| {
                let side = if added { &r.new_path } else { &r.old_path };
                side.as_deref() == Some(path)
            })
            .and_then(|r| r.mode)
            .unwrap_or(0o100644)
    };
    let mut out = String::new();
    for f in &report.files {
        match (f.op, &f.move_to) {
            (FileOp::Add, _) => {
                let _ = writeln!(out, " create mode {:o} {}", mode(&f.path, true), f.path);
            }
            (FileOp::Delete, _) => {
                let _ = writeln!(out, " delete mode {:o} {}", mode(&f.path, false), f.path);
            }
            (FileOp::Update, Some(to)) => {
                let _ = writeln!(out, " rename {} => {to}", f.path);
            }
            (FileOp::Update, None) => {}
        }
    }
    out
}
