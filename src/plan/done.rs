//! File operations whose result is already in the tree: re-running a patch
//! that adds, deletes or moves a file changes nothing and says so, as
//! re-running one that updates a file does (`docs/matching.md`, "One
//! placement decision", rule 7).
//!
//! - an added file that exists with exactly the content the patch gives it;
//! - a deleted file that is not there;
//! - a moved file whose source is gone and whose destination holds every
//!   hunk already applied (or that has no hunks).

use crate::model::{FilePatch, LineKind};
use crate::outcome::{FileReport, FileStatus, HunkOutcome, LineRange};
use crate::source::Content;
use crate::source::Targets;

use super::Planned;
use super::hunks::hunk_report;
use crate::outcome::Problem;

/// True when `existing` is exactly what adding `file` would write.
pub(super) fn added_already(file: &FilePatch, existing: &Content) -> bool {
    if file.copy_from.is_some() || file.hunks.iter().any(|h| h.old_len() > 0) {
        return false;
    }
    let mut expected = Vec::new();
    let mut lines = file
        .hunks
        .iter()
        .flat_map(|h| h.lines.iter())
        .filter(|l| l.kind == LineKind::Add)
        .peekable();
    let final_newline = !file.hunks.last().is_some_and(|h| h.new_missing_newline);
    while let Some(line) = lines.next() {
        expected.extend_from_slice(line.text.as_bytes());
        if lines.peek().is_some() || final_newline {
            expected.push(b'\n');
        }
    }
    existing[..] == expected[..]
}

/// Reports every hunk of `file` already applied and the file unchanged;
/// nothing is planned for it.
pub(super) fn report_done(file: &FilePatch, report: &mut FileReport) -> Planned {
    report.status = FileStatus::Unchanged;
    for (i, hunk) in file.hunks.iter().enumerate() {
        let mut h = hunk_report(i, hunk, None, None);
        h.status = HunkOutcome::AlreadyApplied;
        h.similarity = 1.0;
        h.lines = None::<LineRange>;
        report.hunks.push(h);
    }
    None
}

/// For a move whose source is gone: `Some` (the report filled in, nothing
/// planned) when the destination exists and every hunk stands there
/// already applied; `None` otherwise (the source is then missing). `update`
/// plans an update of a file's existing content, with its git mode (the
/// planner's own, handed in so that this module does not call back into
/// `file.rs`).
pub(super) fn moved_already(
    file: &FilePatch,
    targets: &dyn Targets,
    report: &mut FileReport,
    update: impl FnOnce(&FilePatch, Content, Option<u32>, &mut FileReport) -> Result<Planned, Problem>,
) -> Option<Planned> {
    let to = file.move_to.as_ref().filter(|to| **to != file.path)?;
    let existing = targets.read(to).ok()??;
    let at_destination = FilePatch {
        path: to.clone(),
        move_to: None,
        ..file.clone()
    };
    let mut trial = report.clone();
    let mode = targets.mode(to);
    let planned = update(&at_destination, existing, mode, &mut trial).ok()?;
    let done = trial
        .hunks
        .iter()
        .all(|h| matches!(h.status, HunkOutcome::AlreadyApplied | HunkOutcome::NoOp));
    let unchanged = planned.as_ref().is_some_and(|r| !r.content_changed);
    if !(done && unchanged) {
        return None;
    }
    report.hunks = trial.hunks;
    report.status = FileStatus::Unchanged;
    Some(None)
}

/// Where a move whose source is gone would have put it (its `rename to`
/// path, when that differs), and the problem to report when nothing shows
/// the move done there: the source, a `what` (`file`, `symbolic link`),
/// is missing.
pub(super) fn moved_to<'f>(file: &'f FilePatch, what: &str) -> (Option<&'f String>, Problem) {
    let missing = Problem::new(
        crate::outcome::ProblemCode::FileNotFound,
        format!("{}: no such {what}", file.path),
        Some(file.patch_line),
    );
    (
        file.move_to.as_ref().filter(|to| **to != file.path),
        missing,
    )
}

/// Refuses a move onto a path that exists.
pub(super) fn refuse_existing_destination(
    file: &FilePatch,
    to: &str,
    targets: &dyn Targets,
) -> Result<(), Problem> {
    let line = Some(file.patch_line);
    if targets
        .exists(to)
        .map_err(|e| Problem::of_target(e).at_line(line))?
    {
        return Err(Problem::new(
            crate::outcome::ProblemCode::FileExists,
            format!("{}: cannot move to {to}: it already exists", file.path),
            line,
        ));
    }
    Ok(())
}
