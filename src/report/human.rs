//! The report as short lines for people: one per file and per hunk, and a
//! block per failure showing what was expected and the closest lines found.
//!
//! ```
//! use git_fuzzy_apply::{plan_patch, report::human};
//!
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
//! let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n one\n-two\n+2\n";
//! let report = plan_patch(patch, dir.path(), &Default::default()).unwrap().report();
//! assert!(human::summary(&report, true).contains("hunk 1 at old L1-L2 via exact"));
//! assert_eq!(human::errors(&report, false), "");
//! ```

use super::color::{self, ERROR, HINT};
use super::{FileReport, FileStatus, HunkFailure, HunkOutcome, HunkReport, Report};
use crate::locate::{NearMatch, Reason};
use crate::model::FileOp;
use std::fmt::Write;

/// Files listed one by one by [`summary`] without `-v`; a patch touching
/// more gets one total line instead, as `git apply` prints nothing at all.
///
/// ```
/// use git_fuzzy_apply::{plan_patch, report::human::{summary, LISTED_FILES}};
///
/// let dir = tempfile::tempdir().unwrap();
/// let patch: String = (0..=LISTED_FILES)
///     .map(|i| format!("--- /dev/null\n+++ b/f{i}.txt\n@@ -0,0 +1 @@\n+x\n"))
///     .collect();
/// let report = plan_patch(patch.as_bytes(), dir.path(), &Default::default()).unwrap().report();
/// assert_eq!(summary(&report, false), format!("changed {} files (+{0} -0); -v lists every file and hunk\n", LISTED_FILES + 1));
/// assert_eq!(summary(&report, true).lines().count(), 2 * (LISTED_FILES + 1));
/// ```
pub const LISTED_FILES: usize = 20;

/// Renders what was done (or would be, with `--check`): one line per file
/// (up to [`LISTED_FILES`] files, otherwise one total line), and with
/// `verbose` every file and every hunk with its tier and lines. A file whose
/// every hunk failed is left to [`errors`]; with `--partial`, a file where
/// no hunk applied says so rather than "patched +0 -0".
///
/// ```
/// use git_fuzzy_apply::{plan_patch, report::human::summary};
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
/// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n one\n-two\n+2\n";
/// let mut report = plan_patch(patch, dir.path(), &Default::default()).unwrap().report();
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
    let shown: Vec<&FileReport> = report
        .files
        .iter()
        .filter(|f| f.status != FileStatus::Failed)
        .collect();
    if !verbose && shown.len() > LISTED_FILES {
        total_line(&mut out, report, &shown);
        return out;
    }
    for file in shown {
        file_line(&mut out, file, report.check);
        if verbose {
            for hunk in &file.hunks {
                let _ = writeln!(out, "  {}", hunk_line(hunk));
            }
        }
    }
    out
}

/// The verb of a file's line: what was done to it, or would be with `check`.
fn verb(file: &FileReport, check: bool) -> &'static str {
    let applied = file.hunks.iter().any(|h| h.status == HunkOutcome::Applied);
    match (file.status, file.op, check) {
        (FileStatus::Unchanged, ..) => "unchanged",
        (FileStatus::Partial, ..) if !applied => "not patched",
        (FileStatus::Partial, _, true) => "would partly patch",
        (FileStatus::Partial, _, false) => "partly patched",
        (_, FileOp::Add, true) => "would create",
        (_, FileOp::Add, false) => "created",
        (_, FileOp::Delete, true) => "would delete",
        (_, FileOp::Delete, false) => "deleted",
        (_, FileOp::Update, true) => "would patch",
        (_, FileOp::Update, false) => "patched",
    }
}

/// One file's line: verb, path, notation, counts and skipped hunks.
fn file_line(out: &mut String, file: &FileReport, check: bool) {
    let verb = verb(file, check);
    let _ = write!(out, "{verb} {}", file.path);
    if let Some(to) = &file.move_to {
        let _ = write!(out, " -> {to}");
    }
    let mut notes = vec![file.format.name().to_string()];
    // Binary data has no lines to count (a typechange's other half may).
    let counted = file.typechange || !file.binary.any();
    if counted && !matches!(verb, "unchanged" | "not patched") {
        notes.push(format!("+{} -{}", file.added, file.removed));
    }
    if file.binary.any() {
        notes.push("binary".to_string());
    }
    let count = |status: HunkOutcome| file.hunks.iter().filter(|h| h.status == status).count();
    for (status, what) in [
        (HunkOutcome::AlreadyApplied, "already applied"),
        (HunkOutcome::NoOp, "changing nothing"),
        (HunkOutcome::Failed, "failed"),
    ] {
        match count(status) {
            0 => {}
            1 => notes.push(format!("1 hunk {what}")),
            n => notes.push(format!("{n} hunks {what}")),
        }
    }
    let _ = writeln!(out, " ({})", notes.join(", "));
}

/// The one line that stands for a long list of files.
fn total_line(out: &mut String, report: &Report, shown: &[&FileReport]) {
    let changed = shown
        .iter()
        .filter(|f| matches!(f.status, FileStatus::Patched | FileStatus::Partial))
        .count();
    let (added, removed) = shown
        .iter()
        .fold((0, 0), |(a, r), f| (a + f.added, r + f.removed));
    let verb = if report.check {
        "would change"
    } else {
        "changed"
    };
    let _ = write!(out, "{verb} {changed} files (+{added} -{removed})");
    let unchanged = shown.len() - changed;
    if unchanged > 0 {
        let _ = write!(out, ", {unchanged} unchanged");
    }
    let _ = writeln!(out, "; -v lists every file and hunk");
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

/// How [`errors_with`] writes the problems.
///
/// ```
/// use git_fuzzy_apply::report::human::ErrorStyle;
///
/// let style = ErrorStyle::default().with_rerun("-p2 reply.md");
/// assert_eq!((style.color(), style.rerun()), (false, Some("-p2 reply.md")));
/// ```
#[derive(Debug, Clone, Default)]
pub struct ErrorStyle {
    /// Colour the `error:` labels and the commands to run (ANSI styles).
    pub(crate) color: bool,
    /// What the `--at` commands of an ambiguous hunk repeat after
    /// `git fuzzy-apply --at FILE:LINE`: the arguments of the run,
    /// shell-quoted, ending in `< PATCH` when the patch came from standard
    /// input. `None` when they are not known: the commands then end in
    /// `PATCH`.
    pub(crate) rerun: Option<String>,
}

impl ErrorStyle {
    /// Colours the `error:` labels and the commands to run (ANSI styles)
    /// when `color`.
    ///
    /// ```
    /// use git_fuzzy_apply::report::human::ErrorStyle;
    ///
    /// assert!(ErrorStyle::default().with_color(true).color());
    /// ```
    pub fn with_color(mut self, color: bool) -> Self {
        self.color = color;
        self
    }

    /// Sets what the `--at` commands of an ambiguous hunk repeat after
    /// `git fuzzy-apply --at FILE:LINE` (the run's arguments, shell-quoted).
    ///
    /// ```
    /// use git_fuzzy_apply::report::human::ErrorStyle;
    ///
    /// let style = ErrorStyle::default().with_rerun("fix.diff");
    /// assert_eq!(style.rerun(), Some("fix.diff"));
    /// ```
    pub fn with_rerun(mut self, rerun: impl Into<String>) -> Self {
        self.rerun = Some(rerun.into());
        self
    }

    /// True when labels and commands are coloured.
    ///
    /// ```
    /// use git_fuzzy_apply::report::human::ErrorStyle;
    ///
    /// assert!(!ErrorStyle::default().color());
    /// ```
    pub fn color(&self) -> bool {
        self.color
    }

    /// What the `--at` commands repeat, when known (`None`: they end in
    /// `PATCH`).
    ///
    /// ```
    /// use git_fuzzy_apply::report::human::ErrorStyle;
    ///
    /// assert_eq!(ErrorStyle::default().rerun(), None);
    /// ```
    pub fn rerun(&self) -> Option<&str> {
        self.rerun.as_deref()
    }
}

/// Renders every problem: one `error:` line each, naming file, hunk and patch line,
/// then the lines the patch expects side by side with the closest lines of
/// the file (marked ` ` same, `~` same but for blanks or case, `!` differ),
/// or the expected lines alone when nothing came close. With `color`,
/// `error:` is red (for a terminal). [`errors_with`] also names the patch
/// in the `--at` commands of an ambiguous hunk.
///
/// ```
/// use git_fuzzy_apply::{plan_patch, report::human::errors};
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "a\nx\nb\nx\n").unwrap();
/// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n-x\n+y\n";
/// let report = plan_patch(patch, dir.path(), &Default::default()).unwrap().report();
/// let text = errors(&report, false);
/// assert!(text.starts_with("error: a.txt: hunk 1"));
/// assert!(text.contains("[ambiguous]"));
/// ```
pub fn errors(report: &Report, color: bool) -> String {
    errors_with(report, &ErrorStyle { color, rerun: None })
}

/// [`errors`], written as `style` says; for each candidate of an ambiguous
/// hunk, the command that applies the patch there.
///
/// ```
/// use git_fuzzy_apply::{plan_patch, report::human::{errors_with, ErrorStyle}};
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "a\nx\nb\nx\n").unwrap();
/// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n-x\n+y\n";
/// let report = plan_patch(patch, dir.path(), &Default::default()).unwrap().report();
/// let style = ErrorStyle::default().with_rerun("fix.diff");
/// let text = errors_with(&report, &style);
/// assert!(text.contains("git fuzzy-apply --at a.txt:4 fix.diff"), "{text}");
/// ```
pub fn errors_with(report: &Report, style: &ErrorStyle) -> String {
    let mut out = String::new();
    let error = color::label("error:", ERROR, style.color);
    if let Some(p) = &report.error {
        let _ = writeln!(out, "{error} {} [{}]", p.message, p.code);
    }
    for file in &report.files {
        file_errors(file, &mut out, style);
    }
    let partial = report.files.iter().any(|f| f.status == FileStatus::Partial);
    if !report.ok && report.error.is_none() && !partial {
        let _ = writeln!(out, "nothing was written: every hunk must apply (exit 1)");
    }
    out
}

/// Lines of a failed hunk shown at most.
const SHOWN_LINES: usize = 12;

/// Width of the patch column of the side-by-side view (longer lines are cut
/// with `…`).
const PATCH_COLUMN: usize = 40;

/// The hunk's old lines beside the closest lines of the file, one pair per
/// row: ` ` between lines that are the same, `~` between lines that are the
/// same but for blanks or case, `!` between lines that differ.
fn side_by_side(out: &mut String, expected: &[String], near: &NearMatch, file: &str) {
    let shown = |line: &str| line.replace('\t', "    ");
    let width = expected
        .iter()
        .take(SHOWN_LINES)
        .map(|l| shown(l).chars().count())
        .max()
        .unwrap_or(0)
        .clamp(8, PATCH_COLUMN);
    let _ = writeln!(out, "  {:<width$}   {file}:", "the patch expects");
    let rows = expected.len().max(near.lines.len()).min(SHOWN_LINES);
    for i in 0..rows {
        let left = expected.get(i).map(|l| shown(l)).unwrap_or_default();
        let left = if left.chars().count() > width {
            let cut: String = left.chars().take(width - 1).collect();
            format!("{cut}\u{2026}")
        } else {
            left
        };
        let right = near.lines.get(i);
        let mark = match (expected.get(i), right) {
            (Some(a), Some(b)) if a == b => ' ',
            (Some(a), Some(b)) if loosely_equal(a, b) => '~',
            _ => '!',
        };
        match right {
            Some(line) => {
                let _ = writeln!(
                    out,
                    "  {left:<width$} {mark} {:>5} | {line}",
                    near.start_line + i
                );
            }
            None => {
                let _ = writeln!(out, "  {left:<width$} {mark}");
            }
        }
    }
}

/// The same line but for blanks and case.
fn loosely_equal(a: &str, b: &str) -> bool {
    let squeeze = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    squeeze(a) == squeeze(b)
}

fn file_errors(file: &FileReport, out: &mut String, style: &ErrorStyle) {
    let error = color::label("error:", ERROR, style.color);
    if let Some(p) = &file.error {
        let _ = writeln!(out, "{error} {} [{}]", p.message, p.code);
    }
    for hunk in &file.hunks {
        let Some(f) = &hunk.failure else { continue };
        let _ = writeln!(
            out,
            "{error} {}: hunk {} (patch line {}): {} [{}]",
            file.path, hunk.index, hunk.patch_line, f.message, f.code
        );
        match &f.near_match {
            Some(near) => {
                // A context_not_found message already names the closest
                // lines and their similarity.
                let score = if f.code == Reason::ContextNotFound {
                    String::new()
                } else {
                    format!(" ({:.0}% similar)", near.similarity * 100.0)
                };
                side_by_side(out, &f.expected, near, &format!("{}{score}", file.path));
            }
            None => {
                let _ = writeln!(out, "  expected:");
                for line in f.expected.iter().take(SHOWN_LINES) {
                    let _ = writeln!(out, "    | {line}");
                }
            }
        }
        if let Some(near) = &f.near_match
            && let Some((patch_line, file_line)) = &near.first_difference
        {
            let _ = writeln!(
                out,
                "  first difference: patch `{patch_line}` vs file line {file_line}"
            );
        }
        pin_commands(out, &file.path, f, style);
    }
}

/// For each candidate of an ambiguous hunk at which `--at` places it, the
/// command that applies the patch there (none for a refusal that is not a
/// choice between places).
fn pin_commands(out: &mut String, path: &str, failure: &HunkFailure, style: &ErrorStyle) {
    if failure.at_settles.is_empty() {
        return;
    }
    let _ = writeln!(out, "  to choose a place, run one of:");
    let rerun = style.rerun.as_deref().unwrap_or("PATCH");
    for line in &failure.at_settles {
        let command = format!("git fuzzy-apply --at {}:{line} {rerun}", shell_word(path));
        let _ = writeln!(out, "    {}", color::label(&command, HINT, style.color));
    }
    if rerun.ends_with("< PATCH") {
        let _ = writeln!(out, "  (PATCH: the same patch, on standard input again)");
    } else if style.rerun.is_none() {
        let _ = writeln!(out, "  (PATCH: the patch, with the options of this run)");
    }
}

/// `word` as one shell word: as it is when it holds only safe characters,
/// single-quoted otherwise.
///
/// ```
/// use git_fuzzy_apply::report::human::shell_word;
///
/// assert_eq!(shell_word("src/a.rs"), "src/a.rs");
/// assert_eq!(shell_word("my reply.md"), "'my reply.md'");
/// assert_eq!(shell_word("it's"), "'it'\\''s'");
/// ```
pub fn shell_word(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "/._-+:=,@%".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn side_by_side_marks_same_loosely_same_and_different_lines() {
        let expected: Vec<String> = ["fn main() {", "    LET X = 1;", "    old();", "}"]
            .map(String::from)
            .to_vec();
        let near = NearMatch {
            start_line: 7,
            lines: ["fn main() {", "    let x = 1;", "    new();"]
                .map(String::from)
                .to_vec(),
            similarity: 0.8,
            first_difference: None,
        };
        let mut out = String::new();
        side_by_side(&mut out, &expected, &near, "m.rs");
        let rows: Vec<&str> = out.lines().collect();
        assert_eq!(rows.len(), 5, "{out}");
        assert!(rows[0].contains("the patch expects") && rows[0].ends_with("m.rs:"));
        // The mark stands after the patch column (14 wide: its longest line).
        let marks: Vec<_> = rows[1..]
            .iter()
            .map(|r| r.chars().nth(2 + 14 + 1))
            .collect();
        assert_eq!(marks, [Some(' '), Some('~'), Some('!'), Some('!')], "{out}");
        assert!(rows[1].ends_with("7 | fn main() {"), "{out}");
        assert!(rows[3].ends_with("9 |     new();"), "{out}");
        // The patch has a line more than the file's block: no file column.
        assert!(
            rows[4].trim_end().ends_with('!') && !rows[4].contains('|'),
            "{out}"
        );
    }

    #[test]
    fn long_patch_lines_are_cut_to_the_column() {
        let expected = vec!["x".repeat(100)];
        let near = NearMatch {
            start_line: 1,
            lines: vec!["y".into()],
            similarity: 0.1,
            first_difference: None,
        };
        let mut out = String::new();
        side_by_side(&mut out, &expected, &near, "f");
        let row = out.lines().nth(1).unwrap();
        assert!(
            row.contains(&format!("{}\u{2026} !", "x".repeat(PATCH_COLUMN - 1))),
            "{out}"
        );
    }
}
