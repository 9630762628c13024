//! A path deleted and created again by one patch: git's typechange (a file
//! that became a symbolic link, or the other way round), which `git diff`
//! writes as a deletion and a creation of one path. Either half may be a
//! symbolic link, a text file or binary data (`git diff --binary` writes a
//! binary file that became a link as a `GIT binary patch` deletion and a
//! link's creation). What stands at the path must be exactly what the
//! deletion removes, by that half's own rule (a link's target, a text
//! file's lines, a binary file's blob id); it is replaced by what the
//! creation makes, in one rename.

use crate::model::{FilePatch, SYMLINK_MODE};
use crate::outcome::{FileReport, FileStatus, HunkOutcome, Problem};
use crate::source::{Content, Node, Targets};

use super::file::{create, deletion_mismatch, known_mode, refuse_deletion};
use super::link::{
    is_link_patch, new_target, plan_link, refuse_hunk, report_hunks, side, wrong_type,
};
use super::transform::Unit;
use super::{FileResult, NewContent, Planned, binary, done};

/// What one half of a typechange holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A symbolic link (mode `120000`): its target.
    Link,
    /// Binary data (`GIT binary patch`): bytes matched exactly.
    Binary,
    /// A text file's lines.
    Text,
}

fn kind(file: &FilePatch) -> Kind {
    if file.is_link() {
        Kind::Link
    } else if file.binary.is_some() {
        Kind::Binary
    } else {
        Kind::Text
    }
}

/// Plans `unit` when it is a typechange or a file patch about a symbolic
/// link ([`is_link_patch`]); gives any other file patch back.
pub(super) fn plan_unit(
    unit: Unit,
    targets: &dyn Targets,
    report: &mut FileReport,
) -> Result<Result<Planned, Problem>, Box<FilePatch>> {
    match unit.replaced {
        Some(gone) => Ok(plan_replace(gone, unit.file, targets, report)),
        None if is_link_patch(&unit.file, targets) => Ok(plan_link(unit.file, targets, report)),
        None => Err(Box::new(unit.file)),
    }
}

/// Reports every hunk of one half with `status`, numbered after the
/// hunks already reported.
fn report_half(file: &FilePatch, status: HunkOutcome, report: &mut FileReport) {
    match kind(file) {
        Kind::Binary => binary::report_hunk(file, status, report),
        Kind::Link | Kind::Text => report_hunks(file, status, report),
    }
}

/// What the deletion `gone` finds at its path: the content before and its
/// git mode, when it is what `gone` deletes; `None` when it holds
/// something else (the hunk refused in `report`, as a deletion's is); the
/// problem when it is of the wrong type.
fn replaced_content(
    gone: &FilePatch,
    node: Node,
    targets: &dyn Targets,
    report: &mut FileReport,
) -> Result<Option<(Content, Option<u32>)>, Problem> {
    // Where a file's bytes may stand for a link and a link's for a file,
    // the node is read as the kind the deletion says.
    let node = match (node, kind(gone)) {
        (Node::File(content), Kind::Link) if targets.link_kind_by_bytes() => {
            Node::Link(content.to_vec())
        }
        (Node::Link(now), Kind::Binary | Kind::Text) if targets.link_kind_by_bytes() => {
            Node::File(Content::Owned(now))
        }
        (node, _) => node,
    };
    match (node, kind(gone)) {
        (Node::Link(now), Kind::Link) => match (side(gone, true)?, gone.hunks.first()) {
            (Some(old), Some(hunk)) if old != now => {
                refuse_hunk(hunk, &now, report);
                Ok(None)
            }
            _ => Ok(Some((Content::Owned(now), Some(SYMLINK_MODE)))),
        },
        (Node::File(content), Kind::Binary) => {
            if !binary::deletes(gone, &content, report)? {
                return Ok(None);
            }
            let mode = known_mode(&content, targets, &gone.path);
            Ok(Some((content, mode)))
        }
        (Node::File(content), Kind::Text) => {
            if let Some((hunk, line)) = deletion_mismatch(gone, &content) {
                refuse_deletion(gone, hunk, line, &content, report);
                return Ok(None);
            }
            let mode = known_mode(&content, targets, &gone.path);
            Ok(Some((content, mode)))
        }
        (Node::Link(_), Kind::Binary | Kind::Text) => {
            Err(wrong_type(gone, "symbolic link", "regular file"))
        }
        (Node::File(_), Kind::Link) => Err(wrong_type(gone, "regular file", "symbolic link")),
    }
}

/// True when `node` already is what `added` creates. Where a file's bytes
/// may stand for a link and a link's for a file (`by_bytes`,
/// [`Targets::link_kind_by_bytes`]), the bytes decide.
fn created_already(added: &FilePatch, node: &Node, by_bytes: bool) -> Result<bool, Problem> {
    Ok(match (node, kind(added)) {
        (Node::Link(now), Kind::Link) => *now == new_target(added)?,
        (Node::File(content), Kind::Binary) => content[..] == binary::created(added)?[..],
        (Node::File(content), Kind::Text) => done::added_already(added, content),
        (Node::File(content), Kind::Link) if by_bytes => content[..] == new_target(added)?[..],
        (Node::Link(now), Kind::Binary) if by_bytes => *now == binary::created(added)?,
        (Node::Link(now), Kind::Text) if by_bytes => {
            done::added_already(added, &Content::Owned(now.clone()))
        }
        (Node::Link(_), _) | (Node::File(_), Kind::Link) => false,
    })
}

/// What the creation `added` makes, and its mode; its hunks and the lines
/// it adds go to `report` (a fresh one: the caller numbers them after the
/// deletion's).
fn creation(added: FilePatch, report: &mut FileReport) -> Result<(NewContent, u32), Problem> {
    match kind(&added) {
        Kind::Link => {
            let target = new_target(&added)?;
            report_hunks(&added, HunkOutcome::Applied, report);
            report.added = 1;
            Ok((NewContent::Bytes(target), SYMLINK_MODE))
        }
        Kind::Binary => {
            let bytes = binary::created(&added)?;
            binary::report_hunk(&added, HunkOutcome::Applied, report);
            report.added = 0;
            Ok((NewContent::Bytes(bytes), added.new_mode.unwrap_or(0o100644)))
        }
        Kind::Text => {
            let mode = added.new_mode.unwrap_or(0o100644);
            Ok((create(added, report).new, mode))
        }
    }
}

/// A path deleted and created again by one patch: what stands there must
/// be what `gone` deletes, and is replaced by what `added` creates, in one
/// rename. Already applied when the path holds what `added` creates;
/// planned as the creation alone when nothing is there.
pub(super) fn plan_replace(
    gone: FilePatch,
    added: FilePatch,
    targets: &dyn Targets,
    report: &mut FileReport,
) -> Result<Planned, Problem> {
    let line = Some(added.patch_line);
    let node = targets
        .read_node(&added.path)
        .map_err(|e| Problem::of_target(e).at_line(line))?;
    let Some(node) = node else {
        return match kind(&added) {
            Kind::Link => plan_link(added, targets, report),
            Kind::Binary => binary::plan(added, targets, report),
            Kind::Text => Ok(Some(create(added, report))),
        };
    };
    if created_already(&added, &node, targets.link_kind_by_bytes())? {
        report_half(&gone, HunkOutcome::AlreadyApplied, report);
        report_half(&added, HunkOutcome::AlreadyApplied, report);
        report.status = FileStatus::Unchanged;
        return Ok(None);
    }
    let Some((old, mode)) = replaced_content(&gone, node, targets, report)? else {
        return Ok(None);
    };
    let mut made = FileReport {
        hunks: Vec::new(),
        ..report.clone()
    };
    let (new, new_mode) = creation(added, &mut made)?;
    report_half(&gone, HunkOutcome::Applied, report);
    let first = report.hunks.len();
    report.hunks.extend(made.hunks.into_iter().map(|mut h| {
        h.index += first;
        h
    }));
    report.added = made.added;
    report.removed = match kind(&gone) {
        Kind::Binary => 0,
        Kind::Link | Kind::Text => old.source().len(),
    };
    report.status = FileStatus::Patched;
    let path = gone.path;
    Ok(Some(FileResult {
        old_path: Some(path.clone()),
        new_path: Some(path),
        old,
        new,
        mode,
        new_mode: Some(new_mode),
        content_changed: true,
    }))
}
