//! The report as short lines for people: one per file and per hunk, and a
//! block per failure showing what was expected and the closest lines found.
//!
//! ```
//! use git_fuzzy_apply::{plan_patch, report::human};
//!
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
//! let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n one\n-two\n+2\n";
//! let report = plan_patch(patch, dir.path(), &Default::default()).unwrap().report;
//! assert!(human::summary(&report, true).contains("hunk 1 at old L1-L2 via exact"));
//! assert_eq!(human::errors(&report, false), "");
//! ```

use super::{FileReport, FileStatus, HunkOutcome, HunkReport, Report};
use crate::locate::Reason;
use std::fmt::Write;

/// Renders what was done (or would be, with `--check`), one line per file and hunk.
///
/// ```
/// use git_fuzzy_apply::{plan_patch, report::human::summary};
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
/// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n one\n-two\n+2\n";
/// let mut report = plan_patch(patch, dir.path(), &Default::default()).unwrap().report;
/// report.check = true;
/// let text = summary(&report, false);
/// assert!(text.starts_with("would patch a.txt"));
/// assert_eq!(text.lines().count(), 1);
/// assert!(summary(&report, true).lines().count() > 1);
/// ```
pub fn summary(report: &Report, verbose: bool) -> String {
    let mut out = String::new();
    let partial = report.files.iter().any(|f| f.status == FileStatus::Partial);
    if !report.ok && !partial {
        return out;
    }
    for file in &report.files {
        if file.status == FileStatus::Failed {
            continue;
        }
        let verb = match (file.status, report.check) {
            (FileStatus::Unchanged, _) => "unchanged",
            (FileStatus::Partial, _) => "partly patched",
            (_, true) => "would patch",
            (_, false) => "patched",
        };
        let _ = write!(out, "{verb} {}", file.path);
        if let Some(to) = &file.move_to {
            let _ = write!(out, " -> {to}");
        }
        let _ = writeln!(
            out,
            " ({}, +{} -{})",
            file.format.name(),
            file.added,
            file.removed
        );
        for hunk in &file.hunks {
            if verbose || hunk.status != HunkOutcome::Applied || !hunk.normalizations.is_empty() {
                let _ = writeln!(out, "  {}", hunk_line(hunk));
            }
        }
    }
    out
}

fn hunk_line(hunk: &HunkReport) -> String {
    let mut line = format!("hunk {}", hunk.index);
    if let Some(r) = hunk.lines {
        if r.end >= r.start {
            let _ = write!(line, " at old L{}-L{}", r.start, r.end);
        } else {
            let _ = write!(line, " inserted before old L{}", r.start);
        }
    }
    match hunk.status {
        HunkOutcome::Applied => {}
        HunkOutcome::AlreadyApplied => line.push_str(": already applied, skipped"),
        HunkOutcome::NoOp => line.push_str(": changes nothing, skipped"),
        HunkOutcome::Failed => line.push_str(": failed"),
    }
    if let Some(tier) = hunk.tier {
        let _ = write!(line, " via {}", tier.name());
    }
    if !hunk.normalizations.is_empty() {
        let list: Vec<&str> = hunk.normalizations.iter().map(|n| n.describe()).collect();
        let _ = write!(line, " ({})", list.join(", "));
    }
    line
}

/// Renders every problem: one `error:` line each, naming file, hunk and patch line,
/// then the expected lines and the closest lines of the file. With `color`,
/// `error:` is red (for a terminal).
///
/// ```
/// use git_fuzzy_apply::{plan_patch, report::human::errors};
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "a\nx\nb\nx\n").unwrap();
/// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n-x\n+y\n";
/// let report = plan_patch(patch, dir.path(), &Default::default()).unwrap().report;
/// let text = errors(&report, false);
/// assert!(text.starts_with("error: a.txt: hunk 1"));
/// assert!(text.contains("[ambiguous]"));
/// ```
pub fn errors(report: &Report, color: bool) -> String {
    let mut out = String::new();
    if let Some(p) = &report.error {
        let _ = writeln!(out, "error: {} [{}]", p.message, p.code);
    }
    for file in &report.files {
        file_errors(file, &mut out);
    }
    let partial = report.files.iter().any(|f| f.status == FileStatus::Partial);
    if !report.ok && report.error.is_none() && !partial {
        let _ = writeln!(out, "nothing was written: every hunk must apply (exit 1)");
    }
    if color {
        out = out.replace("error:", "\x1b[1;31merror:\x1b[0m");
    }
    out
}

fn file_errors(file: &FileReport, out: &mut String) {
    if let Some(p) = &file.error {
        let _ = writeln!(out, "error: {} [{}]", p.message, p.code);
    }
    for hunk in &file.hunks {
        let Some(f) = &hunk.failure else { continue };
        let _ = writeln!(
            out,
            "error: {}: hunk {} (patch line {}): {} [{}]",
            file.path, hunk.index, hunk.patch_line, f.message, f.code
        );
        let _ = writeln!(out, "  expected:");
        for line in f.expected.iter().take(12) {
            let _ = writeln!(out, "    | {line}");
        }
        if let Some(near) = &f.near_match {
            // A context_not_found message already names the closest lines
            // and their similarity.
            if f.code == Reason::ContextNotFound {
                let _ = writeln!(out, "  {} has:", file.path);
            } else {
                let _ = writeln!(
                    out,
                    "  {} has ({:.0}% similar):",
                    file.path,
                    near.similarity * 100.0
                );
            }
            for (i, line) in near.lines.iter().enumerate().take(12) {
                let _ = writeln!(out, "  {:>5} | {line}", near.start_line + i);
            }
            if let Some((patch_line, file_line)) = &near.first_difference {
                let _ = writeln!(
                    out,
                    "  first difference: patch `{patch_line}` vs file line {file_line}"
                );
            }
        }
    }
}
