//! Binary files (`GIT binary patch` sections): the new content is made from
//! the old exactly, as `git apply` makes it, never through the text
//! matcher. The file must be the patch's old side: the blob id of its
//! content is the `index` line's old id (or, without one, the reverse hunk
//! gives it back from the result); a file whose id is the new id is
//! already applied; anything else is refused (`stale_removed_line`),
//! naming the file. The result is checked against the new id too.

use crate::locate::{Reason, is_blob};
use crate::model::{BinaryHunk, BinaryPatch, BlobIds, FileOp, FilePatch, Hunk};
use crate::outcome::{FileReport, FileStatus, HunkFailure, HunkOutcome, Problem, ProblemCode};
use crate::patch::delta::apply_hunk;
use crate::source::{Content, Targets};

use super::hunks::hunk_report;
use super::{FileResult, NewContent, Planned};

/// What the old side of a binary patch finds in a file.
enum Found {
    /// The file is the old side: this is the new content.
    Apply(Vec<u8>),
    /// The file is already the new side.
    Done,
    /// The file is neither: why, for the message.
    Stale(String),
}

/// `-R` needs the reverse hunk: a binary patch without one cannot be
/// reversed (as `git apply -R` refuses it).
pub(super) fn unreversible(file: &FilePatch) -> Option<Problem> {
    file.binary.as_ref().filter(|b| b.reverse.is_none())?;
    Some(Problem::new(
        ProblemCode::MalformedPatch,
        format!(
            "{}: cannot reverse the binary patch: it has no reverse hunk",
            file.path
        ),
        Some(file.patch_line),
    ))
}

/// Swaps a binary patch's hunks for `-R` (the ids and the operation are
/// reversed with the rest of the file patch).
pub(super) fn reverse(file: &mut FilePatch) {
    if let Some(binary) = &mut file.binary
        && let Some(reverse) = binary.reverse.take()
    {
        binary.reverse = Some(std::mem::replace(&mut binary.forward, reverse));
    }
}

/// The `index` line's ids when they can be checked here (SHA-1, full or
/// abbreviated).
fn usable_ids(file: &FilePatch) -> Option<&BlobIds> {
    file.blob_ids
        .as_ref()
        .filter(|ids| ids.old.len() <= 40 && ids.new.len() <= 40)
}

/// True for git's null id (`0000000…`): the side does not exist.
fn is_null(id: &str) -> bool {
    id.bytes().all(|b| b == b'0')
}

/// The SHA-1 blob id of `bytes`, in hex.
fn blob_id(bytes: &[u8]) -> String {
    gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::objs::Kind::Blob, bytes)
        .map(|oid| oid.to_hex().to_string())
        .unwrap_or_default()
}

/// A hunk that does not apply to content already proven to be its base:
/// the patch itself is broken.
fn corrupt(path: &str, hunk: &BinaryHunk, error: impl std::fmt::Display) -> Problem {
    Problem::new(
        ProblemCode::MalformedPatch,
        format!(
            "{path}: the binary hunk at patch line {} does not apply: {error}",
            hunk.patch_line
        ),
        Some(hunk.patch_line),
    )
}

/// Makes the new side from `base` (proven to be the old side) and checks
/// it against the new id.
fn make(
    path: &str,
    bin: &BinaryPatch,
    ids: Option<&BlobIds>,
    base: &[u8],
) -> Result<Vec<u8>, Problem> {
    let new = apply_hunk(&bin.forward, base).map_err(|e| corrupt(path, &bin.forward, e))?;
    if let Some(ids) = ids.filter(|ids| !is_null(&ids.new))
        && !is_blob(&new, &ids.new)
    {
        return Err(corrupt(
            path,
            &bin.forward,
            format!(
                "it makes blob {}, not {} as the index line says",
                blob_id(&new),
                ids.new
            ),
        ));
    }
    Ok(new)
}

/// What the patch finds in `current`, the content of an existing file.
fn examine(path: &str, file: &FilePatch, current: &[u8]) -> Result<Found, Problem> {
    let Some(bin) = &file.binary else {
        return Ok(Found::Stale("the patch holds no binary data".into()));
    };
    if let Some(ids) = usable_ids(file) {
        return Ok(if is_blob(current, &ids.old) {
            Found::Apply(make(path, bin, Some(ids), current)?)
        } else if !is_null(&ids.new) && is_blob(current, &ids.new) {
            Found::Done
        } else {
            Found::Stale(format!(
                "its content is blob {}, the patch applies to {}",
                blob_id(current),
                ids.old
            ))
        });
    }
    // No ids: the reverse hunk must give the file back from the result.
    let Some(rev) = &bin.reverse else {
        return Err(Problem::new(
            ProblemCode::MalformedPatch,
            format!(
                "{path}: the binary patch has neither full `index` ids nor a reverse hunk: nothing says what the file held (regenerate it with `git diff --binary`)"
            ),
            Some(bin.patch_line),
        ));
    };
    if let Ok(new) = apply_hunk(&bin.forward, current)
        && apply_hunk(rev, &new).is_ok_and(|old| old == current)
    {
        return Ok(Found::Apply(new));
    }
    if let Ok(old) = apply_hunk(rev, current)
        && apply_hunk(&bin.forward, &old).is_ok_and(|new| new == current)
    {
        return Ok(Found::Done);
    }
    Ok(Found::Stale(
        "its content is not the old side the patch's hunks describe".into(),
    ))
}

/// Reports the binary patch as one hunk with `status`, numbered after the
/// hunks already reported (a typechange reports its deletion's hunk, then
/// its creation's).
pub(super) fn report_hunk(file: &FilePatch, status: HunkOutcome, report: &mut FileReport) {
    let line = file
        .binary
        .as_ref()
        .map_or(file.patch_line, |b| b.patch_line);
    let hunk = Hunk {
        patch_line: line,
        ..Hunk::default()
    };
    let mut h = hunk_report(report.hunks.len(), &hunk, None, None);
    h.status = status;
    h.similarity = 1.0;
    report.hunks.push(h);
}

/// Refuses the file: it is not the binary patch's old side (`why`).
fn refuse_stale(file: &FilePatch, path: &str, why: &str, report: &mut FileReport) -> Planned {
    let line = file
        .binary
        .as_ref()
        .map_or(file.patch_line, |b| b.patch_line);
    let hunk = Hunk {
        patch_line: line,
        ..Hunk::default()
    };
    let fail = HunkFailure {
        code: Reason::StaleRemovedLine,
        message: format!(
            "the binary file {path} is not what the patch changes: {why} (binary content is matched exactly, never fuzzily)"
        ),
        expected: vec![match usable_ids(file) {
            Some(ids) => format!("(binary content, blob {})", ids.old),
            None => "(binary content)".to_string(),
        }],
        candidates: Vec::new(),
        at_settles: Vec::new(),
        candidate_context: Vec::new(),
        near_match: None,
        hunk_text: String::new(),
    };
    let index = report.hunks.len();
    report
        .hunks
        .push(hunk_report(index, &hunk, None, Some(fail)));
    report.status = FileStatus::Failed;
    None
}

/// Plans a file patch with a `GIT binary patch` section (not half of a
/// typechange: `typechange.rs` plans those with [`deletes`] and
/// [`created`]).
pub(super) fn plan(
    file: FilePatch,
    targets: &dyn Targets,
    report: &mut FileReport,
) -> Result<Planned, Problem> {
    let line = Some(file.patch_line);
    let read = |path: &str| {
        targets
            .read(path)
            .map_err(|e| Problem::of_target(e).at_line(line))
    };
    match (file.op, read(&file.path)?) {
        (FileOp::Add, existing) => add(&file, existing, targets, report),
        (FileOp::Delete, None) => {
            report_hunk(&file, HunkOutcome::AlreadyApplied, report);
            report.status = FileStatus::Unchanged;
            Ok(None)
        }
        (FileOp::Delete, Some(old)) => delete(&file, old, targets, report),
        (FileOp::Update, Some(old)) => update(&file, old, targets, report),
        (FileOp::Update, None) => moved_already(&file, targets, report),
    }
}

/// A typechange's deletion with binary data: true when `content` is
/// exactly what it deletes; otherwise false, with the refusal in `report`
/// (as a binary deletion's).
pub(super) fn deletes(
    file: &FilePatch,
    content: &[u8],
    report: &mut FileReport,
) -> Result<bool, Problem> {
    let why = match examine(&file.path, file, content)? {
        Found::Apply(_) => return Ok(true),
        Found::Done => "it is not the deleted content".to_string(),
        Found::Stale(why) => why,
    };
    refuse_stale(file, &file.path, &why, report);
    Ok(false)
}

/// The content a binary creation (half of a typechange) makes from nothing.
pub(super) fn created(file: &FilePatch) -> Result<Vec<u8>, Problem> {
    match &file.binary {
        Some(bin) => make(&file.path, bin, usable_ids(file), &[]),
        None => Ok(Vec::new()),
    }
}

/// The git mode of an existing target.
fn mode_of(old: &Content, targets: &dyn Targets, path: &str) -> Option<u32> {
    old.stamp()
        .map(|s| s.git_mode())
        .or_else(|| targets.mode(path))
}

/// A new binary file (or a copy's destination): made from nothing (or
/// the copy's source); already applied when it exists with that content.
fn add(
    file: &FilePatch,
    existing: Option<Content>,
    targets: &dyn Targets,
    report: &mut FileReport,
) -> Result<Planned, Problem> {
    let line = Some(file.patch_line);
    let Some(bin) = &file.binary else {
        return Ok(None);
    };
    let new = match &file.copy_from {
        Some(from) => {
            let source = targets
                .read(from)
                .map_err(|e| Problem::of_target(e).at_line(line))?;
            let Some(source) = source else {
                return Err(Problem::new(
                    ProblemCode::FileNotFound,
                    format!("{}: cannot copy {from}: no such file", file.path),
                    line,
                ));
            };
            match examine(from, file, &source)? {
                Found::Apply(new) => new,
                Found::Done => source.to_vec(),
                Found::Stale(why) => return Ok(refuse_stale(file, from, &why, report)),
            }
        }
        None => make(&file.path, bin, usable_ids(file), &[])?,
    };
    if let Some(existing) = existing {
        if existing[..] == new[..] {
            report_hunk(file, HunkOutcome::AlreadyApplied, report);
            report.status = FileStatus::Unchanged;
            return Ok(None);
        }
        return Err(Problem::new(
            ProblemCode::FileExists,
            format!(
                "{}: the patch adds this file but it already exists",
                file.path
            ),
            line,
        ));
    }
    report_hunk(file, HunkOutcome::Applied, report);
    report.status = FileStatus::Patched;
    Ok(Some(FileResult {
        old_path: None,
        new_path: Some(file.path.clone()),
        old: Content::Owned(Vec::new()),
        content_changed: !new.is_empty(),
        new: NewContent::Bytes(new),
        mode: file.new_mode,
        new_mode: file.new_mode,
    }))
}

/// A deleted binary file: deleted only when it is the patch's old side.
fn delete(
    file: &FilePatch,
    old: Content,
    targets: &dyn Targets,
    report: &mut FileReport,
) -> Result<Planned, Problem> {
    match examine(&file.path, file, &old)? {
        Found::Apply(_) => {}
        Found::Done => {
            // The new side of a deletion is nothing: an empty blob is no match.
            return Ok(refuse_stale(
                file,
                &file.path,
                "it is not the deleted content",
                report,
            ));
        }
        Found::Stale(why) => return Ok(refuse_stale(file, &file.path, &why, report)),
    }
    report_hunk(file, HunkOutcome::Applied, report);
    report.status = FileStatus::Patched;
    let mode = mode_of(&old, targets, &file.path);
    Ok(Some(FileResult {
        old_path: Some(file.path.clone()),
        new_path: None,
        content_changed: !old.is_empty(),
        old,
        new: NewContent::Bytes(Vec::new()),
        mode,
        new_mode: None,
    }))
}

/// A changed (and maybe moved) binary file.
fn update(
    file: &FilePatch,
    old: Content,
    targets: &dyn Targets,
    report: &mut FileReport,
) -> Result<Planned, Problem> {
    let (new, status) = match examine(&file.path, file, &old)? {
        Found::Apply(new) => (new, HunkOutcome::Applied),
        Found::Done => (old.to_vec(), HunkOutcome::AlreadyApplied),
        Found::Stale(why) => return Ok(refuse_stale(file, &file.path, &why, report)),
    };
    report_hunk(file, status, report);
    let moved = file.move_to.clone().filter(|to| *to != file.path);
    if let Some(to) = &moved {
        super::done::refuse_existing_destination(file, to, targets)?;
    }
    let changed = new[..] != old[..];
    let mode = mode_of(&old, targets, &file.path);
    let mode_changes = file.new_mode.is_some() && file.new_mode != mode;
    report.status = if changed || moved.is_some() || mode_changes {
        FileStatus::Patched
    } else {
        FileStatus::Unchanged
    };
    Ok(Some(FileResult {
        old_path: Some(file.path.clone()),
        new_path: Some(moved.unwrap_or_else(|| file.path.clone())),
        old,
        new: NewContent::Bytes(new),
        mode,
        new_mode: file.new_mode,
        content_changed: changed,
    }))
}

/// A move whose source is gone: already applied when the destination is
/// the patch's new side.
fn moved_already(
    file: &FilePatch,
    targets: &dyn Targets,
    report: &mut FileReport,
) -> Result<Planned, Problem> {
    let (to, missing) = super::done::moved_to(file, "file");
    let Some(to) = to else {
        return Err(missing);
    };
    let Ok(Some(there)) = targets.read(to) else {
        return Err(missing);
    };
    match examine(to, file, &there) {
        Ok(Found::Done) => {
            report_hunk(file, HunkOutcome::AlreadyApplied, report);
            report.status = FileStatus::Unchanged;
            Ok(None)
        }
        _ => Err(missing),
    }
}

/// One side as a `literal` hunk: its size, then its deflated bytes in
/// base85 lines of up to 52 bytes, then the blank line that ends it.
fn literal(data: &[u8]) -> String {
    use std::io::Write;
    let mut z = gix::zlib::stream::deflate::Write::new(Vec::new(), gix::zlib::Compression::DEFAULT);
    // Writing into a vector cannot fail.
    let _ = z.write_all(data).and_then(|()| z.flush());
    let deflated = z.into_inner();
    let mut out = format!("literal {}\n", data.len());
    for chunk in deflated.chunks(52) {
        let n = chunk.len() as u8;
        out.push(char::from(if n <= 26 {
            b'A' + n - 1
        } else {
            b'a' + n - 27
        }));
        for word in chunk.chunks(4) {
            let mut four = [0u8; 4];
            four[..word.len()].copy_from_slice(word);
            let mut acc = u32::from_be_bytes(four);
            let mut group = [0u8; 5];
            for slot in group.iter_mut().rev() {
                *slot = crate::patch::binary::ALPHABET[(acc % 85) as usize];
                acc /= 85;
            }
            out.extend(group.iter().map(|&b| char::from(b)));
        }
        out.push('\n');
    }
    out.push('\n');
    out
}

/// The `index` line and `GIT binary patch` section that make `new` from
/// `old` (both sides as literals), as `git diff --binary` writes them, for
/// `--emit-unified`: `git apply` applies it.
pub(crate) fn git_binary_section(old: Option<&[u8]>, new: Option<&[u8]>) -> String {
    let null = "0".repeat(40);
    let id = |side: Option<&[u8]>| side.map_or_else(|| null.clone(), blob_id);
    format!(
        "index {}..{}\nGIT binary patch\n{}{}",
        id(old),
        id(new),
        literal(new.unwrap_or_default()),
        literal(old.unwrap_or_default())
    )
}
