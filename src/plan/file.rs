//! Planning one file: read its target, locate its hunks, plan the edits,
//! and report every hunk (added files take over their lines instead).

use crate::locate::{Failure, Located, Pins};
use crate::model::{FileOp, FilePatch, Hunk, LineKind, PatchFormat};
use crate::outcome::{
    BinarySides, FileReport, FileStatus, HunkFailure, HunkOutcome, HunkReport, LineRange, Problem,
    ProblemCode, quote,
};
use crate::plan::edits::{FilePlan, plan_file};
use crate::source::Content;
use crate::source::Targets;
use crate::source::{SourceText, looks_binary};
use std::cell::OnceCell;

use super::hunks::{count_lines, expected, hunk_report, hunk_text, record_hunks, result_ranges};
use super::sequence::{InOrder, merge_in_order, place_in_order};
use super::transform::Unit;
use super::{
    ApplyOptions, FileResult, LinkPlanner, NewContent, Planned, PlannedFile, done, elision,
    escaped, gutter, pin_check,
};

/// Plans one [`Unit`]: the links' planner (`links`, handed in by the
/// caller so that the files do not import each other) takes the units
/// about symbolic links and typechanges and gives the others back.
pub(super) fn plan_one(
    unit: Unit,
    targets: &dyn Targets,
    options: &ApplyOptions,
    links: LinkPlanner,
) -> PlannedFile {
    let file = &unit.file;
    let mut report = FileReport {
        path: file.path.clone(),
        op: file.op,
        move_to: file.move_to.clone(),
        format: file.format,
        status: FileStatus::Failed,
        error: None,
        added: 0,
        removed: 0,
        binary: BinarySides::of(file.op, file.binary.is_some()),
        typechange: false,
        hunks: Vec::new(),
    };
    if let Some(gone) = &unit.replaced {
        // A deletion and a creation of one path: the path is changed.
        report.op = FileOp::Update;
        report.typechange = true;
        report.binary = BinarySides::of_sides(gone.binary.is_some(), file.binary.is_some());
    }
    // A typechange goes to `links` whatever its halves hold.
    let planned = if unit.replaced.is_none() && unit.file.binary.is_some() {
        super::binary::plan(unit.file, targets, &mut report)
    } else {
        match links(unit, targets, &mut report) {
            Ok(planned) => planned,
            Err(file) => plan_one_inner(*file, targets, options, &mut report),
        }
    };
    match planned {
        Ok(result) => PlannedFile { report, result },
        Err(problem) => {
            let mut refused = PlannedFile {
                report,
                result: None,
            };
            refused.refuse(problem);
            refused
        }
    }
}

/// A numberless hunk of added lines only for a missing file (no
/// `/dev/null`: the patch does not say the file is new) while the tree has
/// that path under more directories (`sub/app.py` for `app.py`): the lines
/// were probably meant for that file, named without its leading
/// directories, so the file is not created (`file_not_found`, naming it).
fn named_elsewhere(file: &FilePatch, targets: &dyn Targets) -> Option<Problem> {
    if file.format != PatchFormat::NumberlessDiff || file.written_as_new {
        return None;
    }
    let others = targets.named_elsewhere(&file.path);
    let first = others.first()?;
    let more = match others.len() {
        1 => String::new(),
        n => format!(" (and {} more of that name)", n - 1),
    };
    Some(Problem::new(
        ProblemCode::FileNotFound,
        format!(
            "{}: no such file, and the patch does not say it is new (a numberless hunk of added lines, no `--- /dev/null`), while `{first}`{more} exists: name the file with its directory, or write `--- /dev/null` to create `{}`",
            file.path, file.path
        ),
        Some(file.patch_line),
    ))
}

/// An added line holding a NUL byte would make the result binary (git's
/// test, [`looks_binary`]): a file this tool then refuses to read, so a
/// second run of the same patch could not see it applied. Binary content
/// is never written from a text patch (`binary_file`, naming the hunk).
fn nul_in_added_line(file: &FilePatch) -> Option<Problem> {
    let (index, hunk) = file.hunks.iter().enumerate().find(|(_, h)| {
        h.lines
            .iter()
            .any(|l| l.kind == LineKind::Add && l.text.as_bytes().contains(&0))
    })?;
    Some(Problem::new(
        ProblemCode::BinaryFile,
        format!(
            "{}: hunk {} (patch line {}) adds a line holding a NUL byte; binary content is not written from a text patch",
            file.path,
            index + 1,
            hunk.patch_line
        ),
        Some(hunk.patch_line),
    ))
}

/// What `file` becomes, by its operation and whether its target exists:
/// found already done, created, copied, deleted, updated, or refused.
fn plan_one_inner(
    file: FilePatch,
    targets: &dyn Targets,
    options: &ApplyOptions,
    report: &mut FileReport,
) -> Result<Planned, Problem> {
    let line = Some(file.patch_line);
    if let Some(problem) = nul_in_added_line(&file) {
        return Err(problem);
    }
    let existing = targets
        .read(&file.path)
        .map_err(|e| Problem::of_target(e).at_line(line))?;
    match (file.op, existing) {
        (FileOp::Add, Some(old)) if done::added_already(&file, &old) => {
            Ok(done::report_done(&file, report))
        }
        (FileOp::Delete, None) => Ok(done::report_done(&file, report)),
        (FileOp::Update, None) if file.move_to.is_some() => {
            let plan_update = |f: &FilePatch, old, mode, r: &mut FileReport| {
                update(f, targets, old, mode, options, r)
            };
            match done::moved_already(&file, targets, report, plan_update) {
                Some(planned) => Ok(planned),
                None => Err(Problem::new(
                    ProblemCode::FileNotFound,
                    format!("{}: no such file", file.path),
                    line,
                )),
            }
        }
        (FileOp::Add, Some(_)) => Err(Problem::new(
            ProblemCode::FileExists,
            format!(
                "{}: the patch adds this file but it already exists",
                file.path
            ),
            line,
        )),
        (FileOp::Add, None) if file.copy_from.is_some() => copy(file, targets, options, report),
        (FileOp::Add, None) => Ok(Some(create(file, report))),
        (FileOp::Update, None) if file.create_if_missing => {
            if let Some(problem) =
                named_elsewhere(&file, targets).or_else(|| escaped::undecided_creation(&file))
            {
                return Err(problem);
            }
            Ok(Some(create(file, report)))
        }
        (FileOp::Update, Some(old)) if file.written_as_new && !holds_new_side(&file, &old) => {
            Err(Problem::new(
                ProblemCode::FileExists,
                format!(
                    "{}: the patch writes this file as new (`@@ -0,0 +1,N @@` without `/dev/null`) but it already exists with other content",
                    file.path
                ),
                line,
            ))
        }
        (FileOp::Update, None) => Err(Problem::new(
            ProblemCode::FileNotFound,
            format!("{}: no such file", file.path),
            line,
        )),
        (FileOp::Delete, Some(old)) => Ok(delete(&file, old, targets, report)),
        (FileOp::Update, Some(old)) => {
            let mode = known_mode(&old, targets, &file.path);
            update(&file, targets, old, mode, options, report)
        }
    }
}

/// True when `old` is empty or already holds exactly the new side of the
/// file's hunks (a CR before each LF aside): a file written as new then
/// goes the ordinary way (filled, or found already applied).
fn holds_new_side(file: &FilePatch, old: &[u8]) -> bool {
    if old.is_empty() {
        return true;
    }
    let body = old.strip_suffix(b"\n").unwrap_or(old);
    let mut lines = body.split(|&b| b == b'\n');
    let same = file.hunks.iter().flat_map(|h| h.new_lines()).all(|l| {
        lines.next().is_some_and(|b| {
            let b = b.strip_suffix(b"\r").unwrap_or(b);
            b == l.text.as_bytes()
        })
    });
    same && lines.next().is_none()
}

/// A copy (`copy from`/`copy to`): the source's content with the hunks
/// applied, written to the new path; the source stays as it is.
fn copy(
    file: FilePatch,
    targets: &dyn Targets,
    options: &ApplyOptions,
    report: &mut FileReport,
) -> Result<Planned, Problem> {
    let Some(from) = file.copy_from.clone() else {
        return Ok(Some(create(file, report)));
    };
    let line = Some(file.patch_line);
    let Some(old) = targets
        .read(&from)
        .map_err(|e| Problem::of_target(e).at_line(line))?
    else {
        return Err(Problem::new(
            ProblemCode::FileNotFound,
            format!("{}: cannot copy {from}: no such file", file.path),
            line,
        ));
    };
    let mode = known_mode(&old, targets, &from);
    let edit = FilePatch {
        op: FileOp::Update,
        move_to: Some(file.path.clone()),
        path: from,
        ..file
    };
    let planned = update(&edit, targets, old, mode, options, report)?;
    Ok(planned.map(|result| FileResult {
        old_path: None,
        ..result
    }))
}

/// A deletion of an existing file: planned when the file is exactly what
/// the patch removes, else refused with the first difference.
fn delete(
    file: &FilePatch,
    old: Content,
    targets: &dyn Targets,
    report: &mut FileReport,
) -> Planned {
    if let Some((hunk, line)) = deletion_mismatch(file, &old) {
        refuse_deletion(file, hunk, line, &old, report);
        return None;
    }
    report.removed = old.source().len();
    report.status = FileStatus::Patched;
    let mode = known_mode(&old, targets, &file.path);
    Some(FileResult {
        old_path: Some(file.path.clone()),
        new_path: None,
        content_changed: !old.is_empty(),
        old,
        new: NewContent::Bytes(Vec::new()),
        mode,
        new_mode: None,
    })
}

/// Where a file differs from what its deletion patch removes: the hunk and
/// the file line (1-based) of the first difference. A deletion that holds
/// lines removes exactly them, in order, with a final newline unless the
/// patch marks none (a CR before each LF aside, as the patch reading drops
/// it); one without lines (Codex `*** Delete File:`, a bare `deleted file
/// mode`) deletes whatever is there.
pub(super) fn deletion_mismatch(file: &FilePatch, old: &[u8]) -> Option<(usize, usize)> {
    if file.hunks.is_empty() {
        return None;
    }
    let final_newline = old.last() == Some(&b'\n');
    let body = old.strip_suffix(b"\n").unwrap_or(old);
    let mut lines = body.split(|&b| b == b'\n');
    let mut k = 0;
    for (h, hunk) in file.hunks.iter().enumerate() {
        if hunk.lines.iter().any(|l| l.kind == LineKind::Add) {
            return Some((h, k + 1));
        }
        for l in hunk.old_lines() {
            let got = lines.next().filter(|_| !old.is_empty());
            let text = l.text.as_bytes();
            let same = got.is_some_and(|b| b == text || b.strip_suffix(b"\r") == Some(text));
            if !same {
                return Some((h, k + 1));
            }
            k += 1;
        }
    }
    let last = file.hunks.len() - 1;
    let missing = file.hunks.get(last).is_some_and(|h| h.old_missing_newline);
    let rest = !old.is_empty() && lines.next().is_some();
    (rest || (k > 0 && final_newline == missing)).then_some((last, k + 1))
}

/// Reports a deletion refused because the file is not what it removes.
pub(super) fn refuse_deletion(
    file: &FilePatch,
    hunk: usize,
    line: usize,
    old: &Content,
    report: &mut FileReport,
) {
    let Some(h) = file.hunks.get(hunk) else {
        return;
    };
    let source = old.source();
    let message = if line == 0 || line > source.len() {
        format!(
            "not deleted: the file is not what the patch removes (it goes on after line {} or its last newline differs)",
            line.saturating_sub(1)
        )
    } else {
        format!(
            "not deleted: the file is not what the patch removes (line {line} is `{}`)",
            quote::line(&source.line_text(line - 1))
        )
    };
    let fail = HunkFailure {
        code: crate::locate::Reason::StaleRemovedLine,
        message,
        expected: expected(h),
        candidates: Vec::new(),
        at_settles: Vec::new(),
        candidate_context: Vec::new(),
        near_match: None,
        hunk_text: hunk_text(h),
    };
    report.hunks.push(hunk_report(hunk, h, None, Some(fail)));
    report.status = FileStatus::Failed;
}

/// An update of the existing `old` (moved when the patch says so): every
/// hunk located and reported, the edits planned; `None` when a hunk failed
/// and the run is not `--partial`.
pub(super) fn update(
    file: &FilePatch,
    targets: &dyn Targets,
    old: Content,
    mode: Option<u32>,
    options: &ApplyOptions,
    report: &mut FileReport,
) -> Result<Planned, Problem> {
    let line = Some(file.patch_line);
    if looks_binary(&old) {
        return Err(Problem::new(
            ProblemCode::BinaryFile,
            format!(
                "{}: the file is binary; only text files are patched",
                file.path
            ),
            line,
        ));
    }
    let mut source = old.source();
    let pins: Vec<usize> = options
        .pins
        .iter()
        .filter(|pin| pin.path() == file.path)
        .map(|pin| pin.line().saturating_sub(1))
        .collect();
    if let Some(problem) = elision::replace_only_problem(&file.path, &file.hunks, &source) {
        return Err(problem);
    }
    let pre_image = file.blob_ids.as_ref();
    let pinned = Pins::new(pins.clone());
    let hunks = gutter::read(&source, &file.hunks);
    let read = escaped::locate(&source, &hunks, options, &pinned, pre_image);
    let (base, hunks, mut results) = (read.base, read.found, read.results);
    let in_order = place_in_order(&source, &hunks, &mut results, &options.matching, &pinned);
    // Which candidates `--at FILE:N` would settle, for the report's hints.
    let course = OnceCell::new();
    let settles = |i: usize, hunk: &Hunk, failure: &Failure| {
        if failure.candidates.is_empty() {
            Vec::new()
        } else {
            let run = (options, pins.as_slice(), pre_image);
            pin_check::settling(&source, &base, (i, hunk), failure, run, &course)
        }
    };
    let located = record_hunks(&hunks, results, &source, report, settles);
    // Every location of the file is over: what they kept of it
    // (`locate::memo`) is not needed to plan the edits.
    source.forget_learnt();
    let failed = report.hunks.iter().any(|h| h.status == HunkOutcome::Failed);
    if failed && !options.partial {
        report.status = FileStatus::Failed;
        return Ok(None);
    }
    let (plan, located) = plan_edits(&source, &hunks, located, &in_order);
    result_ranges(&plan, report);
    for loc in &located {
        if let Some(h) = report.hunks.get_mut(loc.hunk) {
            h.normalizations.clone_from(&loc.normalizations);
        }
    }
    let changed = plan.changes(&source);
    let index = source.into_index();
    count_lines(&hunks, &located, report);
    let moved = file.move_to.as_ref().filter(|to| **to != file.path);
    report.status = if failed {
        FileStatus::Partial
    } else if !changed && moved.is_none() {
        FileStatus::Unchanged
    } else {
        FileStatus::Patched
    };
    if let Some(to) = moved {
        done::refuse_existing_destination(file, to, targets)?;
    }
    Ok(Some(FileResult {
        old_path: Some(file.path.clone()),
        new_path: Some(moved.unwrap_or(&file.path).clone()),
        old,
        new: NewContent::Edited(plan, index),
        mode,
        new_mode: file.new_mode,
        content_changed: changed,
    }))
}

/// The edits of the placed hunks: the ordinary ones planned together, the
/// ones placed in order with their own (merged) edits. Returns the plan and
/// every placed hunk.
fn plan_edits(
    source: &SourceText,
    hunks: &[Hunk],
    located: Vec<Located>,
    in_order: &[InOrder],
) -> (FilePlan, Vec<Located>) {
    let (mut ordinary, sequential): (Vec<_>, Vec<_>) = located
        .into_iter()
        .partition(|l| in_order.iter().all(|o| o.hunk != l.hunk));
    let mut plan = plan_file(source, hunks, &mut ordinary);
    merge_in_order(&mut plan, in_order);
    let mut located = ordinary;
    located.extend(sequential);
    (plan, located)
}

/// The git mode of a target: from the stamp taken when it was read, or
/// else asked of the targets.
pub(super) fn known_mode(old: &Content, targets: &dyn Targets, path: &str) -> Option<u32> {
    old.stamp()
        .map(|s| s.git_mode())
        .or_else(|| targets.mode(path))
}

/// The result of adding a file: its content is the new side of its hunks
/// (context lines included), whose lines it takes over.
pub(super) fn create(mut file: FilePatch, report: &mut FileReport) -> FileResult {
    let count = file.hunks.iter().map(|h| h.new_lines().count()).sum();
    let final_newline = !file.hunks.last().is_some_and(|h| h.new_missing_newline);
    let mut lines = Vec::with_capacity(count);
    for hunk in &mut file.hunks {
        let taken = std::mem::take(&mut hunk.lines);
        lines.extend(taken.into_iter().filter(|l| l.is_new()).map(|l| l.text));
    }
    // Empty only without lines, or with one empty line and no newline.
    let empty = lines.is_empty() || (!final_newline && lines.len() == 1 && lines[0].is_empty());
    report.added = count;
    report.status = FileStatus::Patched;
    for (i, hunk) in file.hunks.iter().enumerate() {
        report.hunks.push(HunkReport {
            lines: Some(LineRange {
                start: 1,
                end: count,
            }),
            new_lines: Some(LineRange {
                start: 1,
                end: count,
            }),
            ..hunk_report(i, hunk, None, None)
        });
        if let Some(h) = report.hunks.last_mut() {
            h.status = HunkOutcome::Applied;
            h.similarity = 1.0;
        }
    }
    FileResult {
        old_path: None,
        new_path: Some(file.path),
        old: Content::Owned(Vec::new()),
        content_changed: !empty,
        new: NewContent::Lines {
            lines,
            final_newline,
        },
        mode: file.new_mode,
        new_mode: file.new_mode,
    }
}
