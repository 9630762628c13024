//! Producing the result: the edited bytes as a stream, and an all-or-nothing
//! replacement of files on disk.
//!
//! Unchanged runs of lines are copied from the source buffer in one slice;
//! only the edits are assembled line by line. Line terminators, a BOM and a
//! missing final newline are kept unless the plan changes them.

use crate::apply::{FileResult, NewContent};
use crate::content::Content;
use crate::plan::{FilePlan, NewLine};
use crate::progress::{NoProgress, Progress, Stage, Workload};
use crate::source::{LineIndex, SourceText};
use crate::target::{Stamp, WorktreeTargets};
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Writes the edited file to `out`.
pub fn render(source: &SourceText, plan: &FilePlan, out: &mut impl Write) -> io::Result<()> {
    render_with(source, plan, out, None)
}

/// Writes the edited file to `out`; unchanged runs are copied from `bulk`
/// (the file `source` was read from) when given, which lets the kernel copy
/// them without passing through this process (`copy_file_range`).
pub fn render_with<W: Write>(
    source: &SourceText,
    plan: &FilePlan,
    out: &mut W,
    bulk: Option<&fs::File>,
) -> io::Result<()> {
    let mut writer = LineWriter {
        out,
        eol: source.dominant_eol(),
        pending: None,
        bulk,
    };
    if source.has_bom() {
        writer.out.write_all(BOM)?;
    }
    let mut cursor = 0;
    for edit in &plan.edits {
        writer.copy_lines(source, cursor, edit.start)?;
        for line in &edit.lines {
            match line {
                NewLine::Keep(j) => writer.line(source.line(*j), source.terminator(*j))?,
                NewLine::Insert(text) => writer.line(text.as_bytes(), b"")?,
            }
        }
        cursor = cursor.max(edit.end);
    }
    writer.copy_lines(source, cursor, source.len())?;
    writer.finish(plan.final_newline)
}

/// Renders into a new buffer.
pub fn render_to_vec(source: &SourceText, plan: &FilePlan) -> Vec<u8> {
    let mut out = Vec::with_capacity(source.bytes().len() + 256);
    // Writing to a Vec cannot fail.
    let _ = render(source, plan, &mut out);
    out
}

/// Runs shorter than this are written from memory rather than copied by the kernel.
const BULK_COPY_MIN: usize = 64 * 1024;

/// Writes lines, holding back each line's terminator until the next line (or
/// the end) decides whether it is needed.
struct LineWriter<'w, W: Write> {
    out: &'w mut W,
    eol: &'static [u8],
    /// Terminator owed by the last written line (empty: it had none).
    pending: Option<&'static [u8]>,
    bulk: Option<&'w fs::File>,
}

/// The static form of a line terminator.
fn terminator(t: &[u8]) -> &'static [u8] {
    match t {
        b"\r\n" => b"\r\n",
        b"\n" => b"\n",
        _ => b"",
    }
}

impl<W: Write> LineWriter<'_, W> {
    fn flush_pending(&mut self) -> io::Result<()> {
        if let Some(term) = self.pending.take() {
            self.out
                .write_all(if term.is_empty() { self.eol } else { term })?;
        }
        Ok(())
    }

    fn line(&mut self, content: &[u8], term: &[u8]) -> io::Result<()> {
        self.flush_pending()?;
        self.out.write_all(content)?;
        self.pending = Some(terminator(term));
        Ok(())
    }

    /// Copies file lines `from..to` verbatim.
    fn copy_lines(&mut self, source: &SourceText, from: usize, to: usize) -> io::Result<()> {
        if from >= to {
            return Ok(());
        }
        self.flush_pending()?;
        let range = source.span(from).start..source.span(to - 1).content_end;
        match self.bulk {
            Some(file) if range.len() >= BULK_COPY_MIN => {
                use std::io::{Read, Seek, SeekFrom};
                let mut src = file;
                src.seek(SeekFrom::Start(range.start as u64))?;
                let want = range.len() as u64;
                let copied = io::copy(&mut src.take(want), self.out)?;
                if copied != want {
                    return Err(io::Error::other(
                        "the file shrank while it was being copied",
                    ));
                }
            }
            _ => self.out.write_all(&source.bytes()[range])?,
        }
        self.pending = Some(terminator(source.terminator(to - 1)));
        Ok(())
    }

    fn finish(mut self, final_newline: bool) -> io::Result<()> {
        if final_newline {
            self.flush_pending()?;
        }
        Ok(())
    }
}

/// What a file must look like on disk right before it is replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect<'a> {
    /// The file must not exist (it is being added).
    Absent,
    /// The file must still hold exactly these bytes (it was read as such).
    Content(&'a [u8]),
    /// The file must still have this size and modification time (it was
    /// memory-mapped, so its bytes cannot be compared with themselves).
    Stamp(Stamp),
}

/// What is written.
#[derive(Debug, Clone, Copy)]
pub enum WriteContent<'a> {
    /// These bytes.
    Bytes(&'a [u8]),
    /// The original content with a plan applied, rendered straight into the file.
    Render {
        /// The original.
        old: &'a Content,
        /// The edits.
        plan: &'a FilePlan,
        /// The original's line index.
        index: &'a LineIndex,
    },
}

/// One file change to commit to disk.
#[derive(Debug, Clone)]
pub enum FileChange<'a> {
    /// Write `content` to `path` (creating parent directories).
    Write {
        /// Destination.
        path: PathBuf,
        /// New content.
        content: WriteContent<'a>,
        /// What the destination must be right before the write.
        expect: Expect<'a>,
        /// Permission bits to set (`0o755`/`0o644`); `None` keeps the file's own.
        mode: Option<u32>,
    },
    /// Remove `path`, which must still be as `expect` says.
    Delete {
        /// The file to remove.
        path: PathBuf,
        /// What it must be right before it is removed.
        expect: Expect<'a>,
    },
}

/// Why a commit did not happen.
#[derive(Debug, thiserror::Error)]
pub enum CommitError {
    /// Someone changed a target between reading and writing.
    #[error("{0}: the file changed on disk while the patch was being applied; nothing was written")]
    Changed(PathBuf),
    /// An I/O error; files already replaced were restored.
    #[error("{path}: {source}; every file was left as it was")]
    Io {
        /// The file being written or removed.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> CommitError + '_ {
    move |source| CommitError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn verify(path: &Path, expect: Expect) -> Result<(), CommitError> {
    let exists = match fs::symlink_metadata(path) {
        Ok(_) => true,
        Err(e) if e.kind() == io::ErrorKind::NotFound => false,
        Err(e) => return Err(io_err(path)(e)),
    };
    let same = match expect {
        Expect::Absent => !exists,
        Expect::Stamp(stamp) => exists && Stamp::of(path) == Some(stamp),
        Expect::Content(old) => exists && fs::read(path).map_err(io_err(path))? == old,
    };
    if same {
        Ok(())
    } else {
        Err(CommitError::Changed(path.to_path_buf()))
    }
}

/// Commits all changes or none. Every target is first checked to be as it
/// was read; every new content is written to a temporary file beside its
/// target; only then are they renamed into place and deletions made. If a
/// rename or delete fails, the files already replaced are restored.
/// Directories emptied by deletions and moves are removed, up to `root`.
pub fn commit(changes: &[FileChange], root: &Path) -> Result<(), CommitError> {
    commit_with_progress(changes, root, &NoProgress)
}

/// [`commit`], telling `progress` about the writing stage: the files and
/// bytes to write, then each file as its new content is written beside it.
pub fn commit_with_progress(
    changes: &[FileChange],
    root: &Path,
    progress: &dyn Progress,
) -> Result<(), CommitError> {
    let mut workload = Workload::default();
    for change in changes {
        if let FileChange::Write { content, .. } = change {
            workload.files += 1;
            workload.bytes += match content {
                WriteContent::Bytes(bytes) => bytes.len(),
                WriteContent::Render { old, .. } => old.len(),
            } as u64;
        }
    }
    progress.start(Stage::Writing, workload);
    for change in changes {
        match change {
            FileChange::Write { path, expect, .. } => verify(path, *expect)?,
            FileChange::Delete { path, expect } => verify(path, *expect)?,
        }
    }
    let mut created_dirs: Vec<PathBuf> = Vec::new();
    let mut staged = Vec::new();
    for change in changes {
        if let FileChange::Write {
            path,
            content,
            mode,
            ..
        } = change
        {
            match stage(path, *content, *mode, &mut created_dirs) {
                Ok(tmp) => {
                    progress.file_done(&path.strip_prefix(root).unwrap_or(path).to_string_lossy());
                    staged.push((path, tmp));
                }
                Err(e) => {
                    drop(staged);
                    remove_created(&created_dirs);
                    return Err(io_err(path)(e));
                }
            }
        }
    }
    // Each replaced or deleted file is first kept under a backup name (a hard
    // link, or a rename for deletions), so that a failure can put every file
    // back as it was, whatever its size.
    let mut done: Vec<(&Path, Option<PathBuf>)> = Vec::new();
    let result = (|| -> Result<(), CommitError> {
        for (path, tmp) in staged {
            let backup = if path.exists() {
                let b = backup_path(path);
                fs::hard_link(path, &b).map_err(io_err(path))?;
                Some(b)
            } else {
                None
            };
            done.push((path, backup));
            #[cfg(test)]
            tests::maybe_fail(path)?;
            tmp.persist(path).map_err(|e| io_err(path)(e.error))?;
        }
        for change in changes {
            if let FileChange::Delete { path, .. } = change {
                let b = backup_path(path);
                fs::rename(path, &b).map_err(io_err(path))?;
                done.push((path, Some(b)));
            }
        }
        Ok(())
    })();
    if let Err(err) = result {
        for (path, backup) in done.into_iter().rev() {
            let _ = match backup {
                Some(b) => fs::rename(b, path),
                None => fs::remove_file(path),
            };
        }
        remove_created(&created_dirs);
        return Err(err);
    }
    for (_, backup) in done {
        if let Some(b) = backup {
            let _ = fs::remove_file(b);
        }
    }
    for change in changes {
        if let FileChange::Delete { path, .. } = change {
            remove_empty_parents(path, root);
        }
    }
    Ok(())
}

/// A free name beside `path` for its backup.
fn backup_path(path: &Path) -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let dir = parent_dir(path);
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let candidate = dir.join(format!(".fuzzy-apply-backup-{}-{n}", std::process::id()));
        if !candidate.exists() {
            return candidate;
        }
    }
}

/// Removes directories a failed commit created (deepest first, only if empty).
fn remove_created(dirs: &[PathBuf]) {
    for dir in dirs.iter().rev() {
        let _ = fs::remove_dir(dir);
    }
}

fn stage(
    path: &Path,
    content: WriteContent,
    mode: Option<u32>,
    created_dirs: &mut Vec<PathBuf>,
) -> io::Result<tempfile::NamedTempFile> {
    use std::os::unix::fs::PermissionsExt;
    let dir = parent_dir(path);
    let mut missing: Vec<PathBuf> = dir
        .ancestors()
        .take_while(|d| !d.as_os_str().is_empty() && !d.exists())
        .map(Path::to_path_buf)
        .collect();
    missing.reverse();
    for d in missing {
        fs::create_dir(&d)?;
        created_dirs.push(d);
    }
    let tmp = tempfile::Builder::new()
        .prefix(".fuzzy-apply-")
        .tempfile_in(dir)?;
    // Like git for working-tree files, no fsync: the rename is atomic for
    // other processes and survives a crash of this one; the page cache holds.
    match content {
        WriteContent::Bytes(bytes) => tmp.as_file().write_all(bytes)?,
        WriteContent::Render { old, plan, index } => {
            let source = SourceText::with_index(old, index);
            let bulk = match old.mapped_path() {
                Some((from, _)) => Some(fs::File::open(from)?),
                None => None,
            };
            let mut out = io::BufWriter::with_capacity(1 << 20, tmp.as_file());
            render_with(&source, plan, &mut out, bulk.as_ref())?;
            out.flush()?;
        }
    }
    let perms = match (mode, fs::metadata(path)) {
        (Some(bits), _) => fs::Permissions::from_mode(bits & 0o777),
        (None, Ok(meta)) => meta.permissions(),
        (None, Err(_)) => fs::Permissions::from_mode(0o644),
    };
    tmp.as_file().set_permissions(perms)?;
    Ok(tmp)
}

/// Removes the directories a deletion left empty, up to the first non-empty
/// one, never `root` itself or anything above it.
fn remove_empty_parents(path: &Path, root: &Path) {
    let mut dir = path.parent();
    while let Some(d) = dir {
        if !d.starts_with(root) || d == root || fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
}

/// How to recognise that a file is still as it was read.
fn expect_of(old: &Content) -> Expect<'_> {
    match old.mapped_path() {
        Some((_, stamp)) => Expect::Stamp(stamp),
        None => Expect::Content(old),
    }
}

/// The disk changes that turn planned results into files under `targets`.
pub fn worktree_changes<'a>(
    results: &'a [FileResult],
    targets: &WorktreeTargets,
) -> Result<Vec<FileChange<'a>>, String> {
    let mut writes = Vec::new();
    let mut deletes = Vec::new();
    for r in results.iter().filter(|r| r.changes_anything()) {
        if let Some(new_path) = &r.new_path {
            let moved = r.old_path.as_ref() != Some(new_path);
            writes.push(FileChange::Write {
                path: targets.resolve(new_path)?,
                content: match &r.new {
                    NewContent::Bytes(bytes) => WriteContent::Bytes(bytes),
                    NewContent::Edited(plan, index) => WriteContent::Render {
                        old: &r.old,
                        plan,
                        index,
                    },
                },
                expect: if r.old_path.is_none() || moved {
                    Expect::Absent
                } else {
                    expect_of(&r.old)
                },
                mode: r.mode.map(|m| m & 0o777),
            });
        }
        if let Some(old_path) = &r.old_path
            && r.new_path.as_ref() != Some(old_path)
        {
            deletes.push(FileChange::Delete {
                path: targets.resolve(old_path)?,
                expect: expect_of(&r.old),
            });
        }
    }
    writes.extend(deletes);
    Ok(writes)
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

#[cfg(test)]
mod tests;
