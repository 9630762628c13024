//! Symbolic links: a `git diff` of a link (mode `120000`) holds the link's
//! target as the file's one line, without a final newline. Such a diff
//! creates, retargets, renames or deletes the link itself, never the file
//! it points to. A deletion followed by a creation of one path (git's
//! typechange, a file that became a link or the other way round) is
//! planned in `typechange.rs`, with the helpers here.
//!
//! Matching is strict: a target is a single line and a whole path, so a
//! link's diff applies only when the link points exactly where the diff's
//! old side says (or already exactly where its new side says: already
//! applied). No tier of the ladder is tried, no whitespace or case is
//! forgiven: a link retargeted by a near match would point elsewhere.

use crate::model::{FileOp, FilePatch, Hunk, SYMLINK_MODE};
use crate::outcome::{
    FileReport, FileStatus, HunkFailure, HunkOutcome, HunkReport, LineRange, Problem, ProblemCode,
    quote,
};
use crate::source::{Content, Node, Targets};

use super::hunks::{expected, hunk_report, hunk_text};
use super::{FileResult, NewContent, Planned, done};

/// True when `file` is planned here: the patch says the file is a link, or
/// it only renames a file (no hunks, no mode) that is a link, or whose
/// destination already is one.
pub(super) fn is_link_patch(file: &FilePatch, targets: &dyn Targets) -> bool {
    if file.is_link() {
        return true;
    }
    let Some(to) = &file.move_to else {
        return false;
    };
    let bare_rename = file.op == FileOp::Update
        && file.hunks.is_empty()
        && file.old_mode.is_none()
        && file.new_mode.is_none();
    let link_at = |path: &str| matches!(targets.read_node(path), Ok(Some(Node::Link(_))));
    bare_rename
        && (link_at(&file.path)
            || (link_at(to) && matches!(targets.read_node(&file.path), Ok(None))))
}

/// The text of one side of a link's diff (`old`: the removed and context
/// lines, else the added and context lines): its lines joined by newlines,
/// with a final newline unless the patch marks none. `None` for a side
/// without lines. A link's diff has one hunk; more are refused.
pub(super) fn side(file: &FilePatch, old: bool) -> Result<Option<Vec<u8>>, Problem> {
    if file.hunks.len() > 1 {
        return Err(Problem::new(
            ProblemCode::MalformedPatch,
            format!(
                "{}: a symbolic link's diff has one hunk (its target), this one has {}",
                file.path,
                file.hunks.len()
            ),
            Some(file.patch_line),
        ));
    }
    let Some(hunk) = file.hunks.first() else {
        return Ok(None);
    };
    let lines: Vec<&str> = if old {
        hunk.old_lines().map(|l| &*l.text).collect()
    } else {
        hunk.new_lines().map(|l| &*l.text).collect()
    };
    if lines.is_empty() {
        return Ok(None);
    }
    let mut text = lines.join("\n").into_bytes();
    let missing = if old {
        hunk.old_missing_newline
    } else {
        hunk.new_missing_newline
    };
    if !missing {
        text.push(b'\n');
    }
    Ok(Some(text))
}

/// The target a link gets: the new side, which must name something.
pub(super) fn new_target(file: &FilePatch) -> Result<Vec<u8>, Problem> {
    match side(file, false)? {
        Some(target) if !target.is_empty() => Ok(target),
        _ => Err(Problem::new(
            ProblemCode::MalformedPatch,
            format!(
                "{}: the patch makes a symbolic link without a target",
                file.path
            ),
            Some(file.patch_line),
        )),
    }
}

/// Git's "wrong type": the patch and the tree disagree on what the path is.
pub(super) fn wrong_type(file: &FilePatch, there: &str, wanted: &str) -> Problem {
    Problem::new(
        ProblemCode::NotAFile,
        format!(
            "{}: wrong type: the patch {} a {wanted}, but a {there} is there (git apply refuses it too)",
            file.path,
            match file.op {
                FileOp::Add => "creates",
                FileOp::Delete => "deletes",
                FileOp::Update => "changes",
            }
        ),
        Some(file.patch_line),
    )
}

/// Every hunk of `file` reported with `status`, over line 1 of the file
/// (numbered after the hunks already reported: a typechange reports its
/// deletion's hunk, then its creation's).
pub(super) fn report_hunks(file: &FilePatch, status: HunkOutcome, report: &mut FileReport) {
    let first = report.hunks.len();
    for (i, hunk) in file.hunks.iter().enumerate() {
        let whole = LineRange { start: 1, end: 1 };
        let applied = status == HunkOutcome::Applied;
        report.hunks.push(HunkReport {
            status,
            similarity: 1.0,
            lines: applied.then_some(whole),
            new_lines: applied.then_some(whole),
            ..hunk_report(first + i, hunk, None, None)
        });
    }
}

/// A link's hunk that does not apply: the link points elsewhere than its
/// old side says. Reported on the hunk, naming both targets.
pub(super) fn refuse_hunk(hunk: &Hunk, now: &[u8], report: &mut FileReport) -> Planned {
    let message = format!(
        "the symbolic link points to `{}`, not to `{}` as the patch's old side says (a link's target is matched exactly)",
        quote::line(&String::from_utf8_lossy(now)),
        quote::line(
            &hunk
                .old_lines()
                .map(|l| &*l.text)
                .collect::<Vec<_>>()
                .join("\n")
        )
    );
    let fail = HunkFailure {
        code: crate::locate::Reason::StaleRemovedLine,
        message,
        expected: expected(hunk),
        candidates: Vec::new(),
        at_settles: Vec::new(),
        candidate_context: Vec::new(),
        near_match: None,
        hunk_text: hunk_text(hunk),
    };
    report.hunks.push(hunk_report(0, hunk, None, Some(fail)));
    report.status = FileStatus::Failed;
    None
}

/// A link's target from a node that must be a link (or, where a file's
/// bytes may stand for a link, `by_bytes`, a file: its bytes).
fn link_of(file: &FilePatch, node: Node, by_bytes: bool) -> Result<Vec<u8>, Problem> {
    match node {
        Node::Link(target) => Ok(target),
        Node::File(content) if by_bytes => Ok(content.to_vec()),
        Node::File(_) => Err(wrong_type(file, "regular file", "symbolic link")),
    }
}

/// Plans a file patch about a symbolic link ([`is_link_patch`]).
pub(super) fn plan_link(
    file: FilePatch,
    targets: &dyn Targets,
    report: &mut FileReport,
) -> Result<Planned, Problem> {
    let line = Some(file.patch_line);
    let node = targets
        .read_node(&file.path)
        .map_err(|e| Problem::of_target(e).at_line(line))?;
    match (file.op, node) {
        (FileOp::Add, None) => {
            let target = new_target(&file)?;
            report_hunks(&file, HunkOutcome::Applied, report);
            report.added = 1;
            report.status = FileStatus::Patched;
            Ok(Some(FileResult {
                old_path: None,
                new_path: Some(file.path),
                old: Content::Owned(Vec::new()),
                new: NewContent::Bytes(target),
                mode: Some(SYMLINK_MODE),
                new_mode: Some(SYMLINK_MODE),
                content_changed: true,
            }))
        }
        (FileOp::Add, Some(Node::Link(now))) if now == new_target(&file)? => {
            Ok(done::report_done(&file, report))
        }
        // With `core.symlinks=false` the link is a file holding its target
        // (written by a run that left the index as it was).
        (FileOp::Add, Some(Node::File(now)))
            if targets.link_kind_by_bytes() && now[..] == new_target(&file)?[..] =>
        {
            Ok(done::report_done(&file, report))
        }
        (FileOp::Add, Some(_)) => Err(Problem::new(
            ProblemCode::FileExists,
            format!(
                "{}: the patch adds this symbolic link but the path already exists",
                file.path
            ),
            line,
        )),
        (FileOp::Delete, None) => Ok(done::report_done(&file, report)),
        (FileOp::Delete, Some(node)) => {
            let now = link_of(&file, node, targets.link_kind_by_bytes())?;
            if let (Some(old), Some(hunk)) = (side(&file, true)?, file.hunks.first())
                && old != now
            {
                return Ok(refuse_hunk(hunk, &now, report));
            }
            report_hunks(&file, HunkOutcome::Applied, report);
            report.removed = 1;
            report.status = FileStatus::Patched;
            Ok(Some(FileResult {
                old_path: Some(file.path),
                new_path: None,
                old: Content::Owned(now),
                new: NewContent::Bytes(Vec::new()),
                mode: Some(SYMLINK_MODE),
                new_mode: None,
                content_changed: true,
            }))
        }
        (FileOp::Update, None) => moved_link_already(file, targets, report),
        (FileOp::Update, Some(node)) => {
            let now = link_of(&file, node, targets.link_kind_by_bytes())?;
            update_link(file, now, targets, report)
        }
    }
}

/// A link's retargeting (and move): applied when the link points where the
/// old side says, already applied when it points where the new side says.
fn update_link(
    file: FilePatch,
    now: Vec<u8>,
    targets: &dyn Targets,
    report: &mut FileReport,
) -> Result<Planned, Problem> {
    let (old, new) = (side(&file, true)?, side(&file, false)?);
    let target = match (old, file.hunks.first()) {
        (Some(old), _) if old == now => {
            report_hunks(&file, HunkOutcome::Applied, report);
            report.added = 1;
            report.removed = 1;
            new_target(&file)?
        }
        (_, Some(_)) if new.as_deref() == Some(&now[..]) => {
            report_hunks(&file, HunkOutcome::AlreadyApplied, report);
            now.clone()
        }
        (_, Some(hunk)) => return Ok(refuse_hunk(hunk, &now, report)),
        (_, None) => now.clone(),
    };
    let moved = file.move_to.clone().filter(|to| *to != file.path);
    if let Some(to) = &moved {
        super::done::refuse_existing_destination(&file, to, targets)?;
    }
    let changed = target != now;
    if !changed && moved.is_none() {
        report.status = FileStatus::Unchanged;
        return Ok(None);
    }
    report.status = FileStatus::Patched;
    Ok(Some(FileResult {
        new_path: Some(moved.unwrap_or_else(|| file.path.clone())),
        old_path: Some(file.path),
        old: Content::Owned(now),
        new: NewContent::Bytes(target),
        mode: Some(SYMLINK_MODE),
        new_mode: file.new_mode,
        content_changed: changed,
    }))
}

/// A link's move whose source is gone: already applied when the
/// destination is a link pointing where the patch's new side says (or
/// anywhere, for a bare rename); otherwise the source is missing.
fn moved_link_already(
    file: FilePatch,
    targets: &dyn Targets,
    report: &mut FileReport,
) -> Result<Planned, Problem> {
    let (to, missing) = done::moved_to(&file, "symbolic link");
    let Some(to) = to else {
        return Err(missing);
    };
    let there = match targets.read_node(to) {
        Ok(Some(Node::Link(now))) => now,
        _ => return Err(missing),
    };
    match side(&file, false)? {
        Some(new) if new != there => Err(missing),
        _ => Ok(done::report_done(&file, report)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{HunkLine, LineKind, PatchFormat};

    fn link_patch(op: FileOp, lines: Vec<HunkLine>) -> FilePatch {
        let mut file = FilePatch::new("l", op, PatchFormat::UnifiedDiff, 1);
        file.old_mode = Some(SYMLINK_MODE);
        file.hunks.push(Hunk {
            lines,
            old_missing_newline: true,
            new_missing_newline: true,
            ..Hunk::default()
        });
        file
    }

    #[test]
    fn a_side_is_the_target_without_a_newline() {
        let file = link_patch(
            FileOp::Update,
            vec![
                HunkLine::new(LineKind::Remove, "a.txt"),
                HunkLine::new(LineKind::Add, "b.txt"),
            ],
        );
        assert_eq!(side(&file, true).unwrap().unwrap(), b"a.txt");
        assert_eq!(side(&file, false).unwrap().unwrap(), b"b.txt");
        let mut two = file.clone();
        two.hunks.push(two.hunks[0].clone());
        assert!(side(&two, true).is_err());
    }
}
