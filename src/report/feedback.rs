//! `--feedback`: the report as a short text for the model that wrote the
//! patch. For every failure it names the file, the hunk and the reason code,
//! quotes the first patch line that differs, shows the file's real lines
//! (numbered, `  41 | text`) and ends with one instruction tailored to the
//! reason. Applied hunks take one line each. Everything is taken from the
//! [`Report`], plus the patch text to quote a malformed line.
//!
//! ```
//! use git_fuzzy_apply::{plan_patch, report::feedback};
//!
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
//! let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n one\n-tw0 x\n+2\n";
//! let report = plan_patch(patch, dir.path(), &Default::default()).unwrap().report();
//! let text = feedback::render(&report, patch);
//! assert!(text.contains("FAILED a.txt hunk 1 (patch line 3): context_not_found"));
//! assert!(text.contains("    2 | two"));
//! ```

use super::{
    CandidateView, FileReport, FileStatus, HunkFailure, HunkOutcome, HunkReport, Problem,
    ProblemCode, Report,
};
use crate::locate::Reason;
use std::fmt::Write;

/// The most file lines shown for one view.
const MAX_VIEW_LINES: usize = 14;
/// The most candidates shown for an ambiguous hunk.
const MAX_CANDIDATES: usize = 4;
/// The longest line quoted, in characters.
const MAX_LINE_CHARS: usize = 160;

/// Renders the feedback for `report`. `patch` is the patch text as given (to
/// quote the line a `malformed_patch` points at); pass an empty slice when
/// it is not at hand.
///
/// ```
/// use git_fuzzy_apply::{plan_patch, report::feedback::render};
///
/// let dir = tempfile::tempdir().unwrap();
/// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n-x\n+y\n";
/// let report = plan_patch(patch, dir.path(), &Default::default()).unwrap().report();
/// let text = render(&report, patch);
/// assert!(text.starts_with("The patch was NOT applied"));
/// assert!(text.contains("file_not_found"));
/// ```
pub fn render(report: &Report, patch: &[u8]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", headline(report));
    if let Some(problem) = &report.error {
        out.push('\n');
        problem_block(&mut out, None, problem, patch);
    }
    for file in &report.files {
        file_blocks(&mut out, file, patch);
    }
    let placed = report.ok || report.files.iter().any(|f| f.status == FileStatus::Partial);
    let applied: Vec<String> = report
        .files
        .iter()
        .flat_map(|f| f.hunks.iter().map(move |h| (f, h)))
        .filter(|(_, h)| h.failure.is_none())
        .map(|(f, h)| applied_line(f, h, placed))
        .collect();
    if !applied.is_empty() {
        out.push('\n');
        for line in applied {
            let _ = writeln!(out, "{line}");
        }
    }
    out
}

/// The first line: did the patch apply, and what to send back.
fn headline(report: &Report) -> String {
    let failed: usize = report
        .files
        .iter()
        .map(|f| {
            let hunks = f.hunks.iter().filter(|h| h.failure.is_some()).count();
            hunks + usize::from(f.error.is_some())
        })
        .sum::<usize>()
        + usize::from(report.error.is_some());
    let problems = if failed == 1 {
        "1 problem".to_string()
    } else {
        format!("{failed} problems")
    };
    let partial = report.files.iter().any(|f| f.status == FileStatus::Partial);
    let any_ok = report
        .files
        .iter()
        .any(|f| f.hunks.iter().any(|h| h.failure.is_none()));
    let done = if report.check {
        "would apply"
    } else {
        "applied"
    };
    if report.ok {
        format!("The patch {done} cleanly.")
    } else if partial && report.error.is_none() {
        format!(
            "{problems} below; the other hunks {done}. Re-send only the failed hunks, fixed as instructed."
        )
    } else {
        let them = if failed == 1 { "it" } else { "them" };
        let ok = if any_ok {
            "; the hunks marked ok matched as written"
        } else {
            ""
        };
        format!(
            "The patch was NOT applied ({problems} below); nothing was written. Fix {them} and re-send the whole patch{ok}."
        )
    }
}

fn file_blocks(out: &mut String, file: &FileReport, patch: &[u8]) {
    if let Some(problem) = &file.error {
        out.push('\n');
        problem_block(out, Some(&file.path), problem, patch);
    }
    for hunk in &file.hunks {
        if let Some(failure) = &hunk.failure {
            out.push('\n');
            hunk_block(out, &file.path, hunk, failure);
        }
    }
}

/// One line per hunk that matched: where its result now stands when the
/// patch was applied (`placed`), else the lines it matched.
fn applied_line(file: &FileReport, hunk: &HunkReport, placed: bool) -> String {
    let mut line = format!("ok: {} hunk {}", file.path, hunk.index);
    match hunk.status {
        HunkOutcome::AlreadyApplied => line.push_str(" already applied (skipped)"),
        HunkOutcome::NoOp => line.push_str(" changes nothing (skipped)"),
        HunkOutcome::Applied | HunkOutcome::Failed => {
            let (what, range, file) = match (placed, hunk.new_lines) {
                (true, Some(r)) => ("now at lines", Some(r), "the patched file"),
                _ => ("matched lines", hunk.lines, "the original"),
            };
            if let Some(r) = range {
                let _ = write!(line, " {what} {} of {file}", range_text(r.start, r.end));
            }
        }
    }
    line
}

fn range_text(start: usize, end: usize) -> String {
    if end > start {
        format!("{start}-{end}")
    } else {
        start.to_string()
    }
}

fn hunk_block(out: &mut String, path: &str, hunk: &HunkReport, failure: &HunkFailure) {
    let _ = writeln!(
        out,
        "FAILED {path} hunk {} (patch line {}): {}",
        hunk.index, hunk.patch_line, failure.code
    );
    let _ = writeln!(out, "  {}", failure.message);
    let near = failure.near_match.as_deref();
    let first_diff = near.and_then(|n| n.first_difference.as_ref());
    match (first_diff, failure.code) {
        (Some((text, line)), _) => {
            let _ = writeln!(
                out,
                "  first patch line that differs: `{}` (file line {line})",
                clip(text)
            );
        }
        (None, Reason::ContextNotFound | Reason::StaleRemovedLine) => {
            if let Some(first) = failure.expected.first() {
                let _ = writeln!(out, "  the hunk expects, first: `{}`", clip(first));
            }
        }
        (None, _) => {}
    }
    let shown = shown_candidates(failure);
    for view in shown {
        let _ = writeln!(out, "  candidate at line {}:", view.line);
        numbered(out, view.lines.iter().map(|(n, t)| (*n, t.as_str())));
    }
    if failure.candidates.len() > shown.len() {
        let _ = writeln!(
            out,
            "  ({} more candidates not shown)",
            failure.candidates.len() - shown.len()
        );
    }
    let mut view_range = None;
    if let Some(near) = near.filter(|n| !n.lines.is_empty()) {
        let end = near.start_line + near.lines.len() - 1;
        let range = range_text(near.start_line, end);
        // The message names the closest lines and their score already.
        if failure.message.contains("closest") {
            let _ = writeln!(out, "  {path} lines {range}:");
        } else {
            let _ = writeln!(
                out,
                "  {path} lines {range}, the closest to the hunk ({:.0}% similar):",
                near.similarity * 100.0
            );
        }
        numbered(
            out,
            near.lines
                .iter()
                .enumerate()
                .map(|(i, t)| (near.start_line + i, t.as_str())),
        );
        view_range = Some((near.start_line, end));
    }
    let _ = writeln!(
        out,
        "  -> {}",
        hunk_instruction(path, hunk.index, failure, view_range)
    );
}

fn shown_candidates(failure: &HunkFailure) -> &[CandidateView] {
    let n = failure.candidate_context.len().min(MAX_CANDIDATES);
    &failure.candidate_context[..n]
}

/// Numbered file lines, `  41 | text`, at most [`MAX_VIEW_LINES`].
fn numbered<'a>(out: &mut String, lines: impl Iterator<Item = (usize, &'a str)>) {
    let lines: Vec<(usize, &str)> = lines.collect();
    let width = lines.last().map_or(1, |(n, _)| n.to_string().len());
    for (n, text) in lines.iter().take(MAX_VIEW_LINES) {
        let row = format!("    {n:>width$} | {}", clip(text));
        let _ = writeln!(out, "{}", row.trim_end());
    }
    if lines.len() > MAX_VIEW_LINES {
        let _ = writeln!(
            out,
            "    {:>width$} | ({} more lines)",
            "…",
            lines.len() - MAX_VIEW_LINES
        );
    }
}

/// A line cut to [`MAX_LINE_CHARS`] characters.
fn clip(text: &str) -> String {
    match text.char_indices().nth(MAX_LINE_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// The one instruction for a failed hunk.
fn hunk_instruction(
    path: &str,
    index: usize,
    failure: &HunkFailure,
    view: Option<(usize, usize)>,
) -> String {
    let lines = view.map(|(a, b)| range_text(a, b));
    match (failure.code, lines) {
        (Reason::ContextNotFound, Some(lines)) => format!(
            "Re-send hunk {index} with its context and removed lines copied exactly from lines {lines} of {path} above (if that is the place you meant); otherwise re-read {path} and copy the lines from where the change belongs."
        ),
        (Reason::ContextNotFound, None) => format!(
            "Re-read {path} and re-send hunk {index} with context and removed lines copied exactly from it."
        ),
        (Reason::StaleRemovedLine, lines) => format!(
            "{path} changed since the patch was written: re-read it and re-send hunk {index} against its current text{}; do not remove a line that is no longer there.",
            lines.map_or(String::new(), |l| format!(" (lines {l} above)"))
        ),
        (Reason::Ambiguous, _) => {
            let list: Vec<String> = failure.candidates.iter().map(usize::to_string).collect();
            format!(
                "Hunk {index} fits at lines {} equally well: re-send it with more surrounding context lines that exist only at the intended place, or with its line number (a `@@ -N,M +N,M @@` header or `:start_line:N`).",
                list.join(", ")
            )
        }
        (Reason::Overlap, _) => format!(
            "Hunk {index} overlaps another hunk of this patch in {path}: merge the two into one hunk, or re-send it with context that does not overlap."
        ),
    }
}

/// A problem with the whole patch or a whole file.
fn problem_block(out: &mut String, path: Option<&str>, problem: &Problem, patch: &[u8]) {
    let place = path.map_or(String::new(), |p| format!("{p}: "));
    let at = problem
        .patch_line
        .map_or(String::new(), |l| format!(" (patch line {l})"));
    let _ = writeln!(out, "FAILED {place}{}{at}", problem.code);
    let _ = writeln!(out, "  {}", problem.message);
    if problem.code == ProblemCode::MalformedPatch
        && let Some(line) = problem.patch_line
        && let Some(text) = patch_line(patch, line)
    {
        let _ = writeln!(out, "  patch line {line}: `{}`", clip(&text));
    }
    let _ = writeln!(out, "  -> {}", problem_instruction(path, problem));
}

/// Line `n` (1-based) of the patch text, without its line end.
fn patch_line(patch: &[u8], n: usize) -> Option<String> {
    let line = patch.split(|&b| b == b'\n').nth(n.checked_sub(1)?)?;
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    Some(String::from_utf8_lossy(line).into_owned())
}

/// The one instruction for a problem code.
fn problem_instruction(path: Option<&str>, problem: &Problem) -> String {
    let file = path.unwrap_or("the file");
    match problem.code {
        ProblemCode::MalformedPatch => match problem.patch_line {
            Some(line) => format!(
                "Fix the syntax problem at patch line {line} as described and re-send the whole patch."
            ),
            None => "Fix the syntax problem described and re-send the whole patch.".to_string(),
        },
        ProblemCode::NoEdits => "No edit was found: send a unified diff, a `*** Begin Patch` envelope or SEARCH/REPLACE blocks.".to_string(),
        ProblemCode::NoTargetPath => "Put the file's path on its own line just before the block and re-send.".to_string(),
        ProblemCode::PathOutsideTree => "Use a path relative to the repository root that stays inside it (no `..`, no absolute path, nothing in `.git`).".to_string(),
        ProblemCode::FileNotFound => format!(
            "{file} does not exist: check the path, or create it as a new file (`--- /dev/null` or `*** Add File:`)."
        ),
        ProblemCode::FileExists => format!(
            "{file} already exists: send an update of its current content instead of creating it."
        ),
        ProblemCode::NotAFile | ProblemCode::BinaryFile => {
            format!("{file} cannot be patched as text: leave it out of the patch.")
        }
        ProblemCode::PathConflict => "A path cannot be both a file and a directory: rename one of them.".to_string(),
        ProblemCode::UnmatchedPin => "The user's --at names no place for this hunk: report it to the user; the patch is not at fault.".to_string(),
        ProblemCode::IoError
        | ProblemCode::NotARepository
        | ProblemCode::GitError
        | ProblemCode::NotInIndex
        | ProblemCode::IndexMismatch
        | ProblemCode::UsageError
        | ProblemCode::Locked
        | ProblemCode::InterruptedRun => {
            "This is a problem of the working tree, not of the patch: report it to the user.".to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patch_lines_are_numbered_from_one_and_clipped() {
        assert_eq!(patch_line(b"a\r\nb\n", 2).as_deref(), Some("b"));
        assert_eq!(patch_line(b"a\n", 0), None);
        assert_eq!(patch_line(b"a\n", 5), None);
        let long = "x".repeat(500);
        assert_eq!(clip(&long).chars().count(), MAX_LINE_CHARS + 1);
        assert_eq!(range_text(4, 4), "4");
        assert_eq!(range_text(4, 9), "4-9");
    }

    #[test]
    fn every_problem_code_has_an_instruction() {
        for &code in ProblemCode::ALL {
            let problem = Problem::new(code, "m", Some(1));
            assert!(!problem_instruction(Some("f"), &problem).is_empty());
        }
    }
}
