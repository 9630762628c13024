//! Producing the result: the edited bytes as a stream ([`render`]), and an
//! all-or-nothing replacement of files on disk ([`commit`]).

use crate::apply::{FileResult, NewContent};
use crate::content::Content;
use crate::journal::{self, JournalData, JournalEntry, JournalSpec, TreeId, Written};
use crate::model::LineText;
use crate::plan::FilePlan;
use crate::progress::{NoProgress, Progress, Stage, Workload};
use crate::source::{LineIndex, SourceText};
use crate::target::{Stamp, WorktreeTargets};
use crate::test_hooks::{self, Step, checkpoint};
use std::collections::HashSet;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

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
    /// These lines, each ended by a newline but the last when
    /// `final_newline` is false.
    Lines {
        /// The lines.
        lines: &'a [LineText],
        /// Whether the last line ends with a newline.
        final_newline: bool,
    },
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
    #[error("{path}: {source}; every file was left as it was{}", journal_left(journal.as_deref()))]
    Io {
        /// The file being written or removed.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
        /// The journal, when it could not be removed after the undoing.
        journal: Option<PathBuf>,
    },
    /// An I/O error, and putting back the files already replaced failed
    /// too: the journal (if any) is kept so that recovery can finish it.
    #[error(
        "{path}: {source}; putting back the files already replaced failed as well ({undo}); {}",
        match journal {
            Some(j) => format!("the journal {} is kept: run `git fuzzy-apply --recover` to finish restoring them", j.display()),
            None => "some files may be left changed".to_string(),
        }
    )]
    Unfinished {
        /// The file being written or removed.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
        /// Why putting the files back failed.
        undo: io::Error,
        /// The journal that recovery reads, when the commit kept one.
        journal: Option<PathBuf>,
    },
}

/// Why finishing a commit whose files are all in place failed.
#[derive(Debug, thiserror::Error)]
pub enum FinishError {
    /// The journal could not be marked committed; every file was put back.
    #[error(
        "{}: marking the journal committed failed ({source}); every file was put back as it was{}",
        journal.display(),
        journal_left(kept.then_some(journal.as_path()))
    )]
    Undone {
        /// The journal.
        journal: PathBuf,
        /// Why the mark could not be written.
        source: io::Error,
        /// True when the journal could not be removed after the undoing.
        kept: bool,
    },
    /// The journal could not be marked committed, and putting the files
    /// back failed too.
    #[error(
        "{}: marking the journal committed failed ({source}) and putting the files back failed as well ({undo}); the journal is kept: run `git fuzzy-apply --recover` to finish restoring them",
        journal.display()
    )]
    Unfinished {
        /// The journal.
        journal: PathBuf,
        /// Why the mark could not be written.
        source: io::Error,
        /// Why the files could not be put back.
        undo: io::Error,
    },
    /// Every file is new, but the clean-up after it failed.
    #[error(
        "the patch was applied (every file is new), but {step} failed: {source}{}",
        match journal {
            Some(j) => format!("; the journal {} is kept: `git fuzzy-apply --recover` finishes the clean-up", j.display()),
            None => String::new(),
        }
    )]
    Applied {
        /// The step that failed.
        step: &'static str,
        /// Why.
        source: io::Error,
        /// The journal kept for recovery, if any.
        journal: Option<PathBuf>,
    },
}

/// Puts back what a failed commit changed, first marking the journal (if
/// any) as rolling back, so that recovery finishes the undoing if this
/// fails.
fn undo(data: &JournalData, journal: Option<&Path>) -> io::Result<()> {
    if let Some(path) = journal {
        let marked = JournalData {
            rolling_back: true,
            ..data.clone()
        };
        // Undoing goes ahead even if the mark cannot be written (a full
        // disk): the files matter more than the note.
        let _ = journal::write(path, &marked);
    }
    journal::roll_back(data).map(drop)
}

/// The end of the message of a run that was undone but whose journal could
/// not be removed.
pub(crate) fn journal_left(journal: Option<&Path>) -> String {
    journal.map_or_else(String::new, |j| {
        format!(
            "; its journal {} could not be removed: the next run, or `git fuzzy-apply --recover`, removes it",
            j.display()
        )
    })
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> CommitError + '_ {
    move |source| CommitError::Io {
        path: path.to_path_buf(),
        source,
        journal: None,
    }
}

fn verify(path: &Path, expect: Expect) -> Result<(), CommitError> {
    let missing = |e: &io::Error| e.kind() == io::ErrorKind::NotFound;
    let same = match expect {
        Expect::Absent => match fs::symlink_metadata(path) {
            Ok(_) => false,
            Err(e) if missing(&e) => true,
            Err(e) => return Err(io_err(path)(e)),
        },
        Expect::Stamp(stamp) => Stamp::of(path) == Some(stamp),
        Expect::Content(old) => match crate::content::read_capped(path, old.len()) {
            Ok(now) => now == old,
            Err(e) if missing(&e) => false,
            Err(e) => return Err(io_err(path)(e)),
        },
    };
    if same {
        Ok(())
    } else {
        Err(CommitError::Changed(path.to_path_buf()))
    }
}

/// Files replaced on disk, with their backups still kept (and the journal
/// still in place) until [`Committed::finish`]; [`Committed::roll_back`]
/// undoes the whole commit instead, e.g. when staging the index fails.
#[derive(Debug)]
#[must_use = "a commit must be finished or rolled back"]
pub struct Committed {
    data: JournalData,
    journal: Option<PathBuf>,
    /// A signal waits until the commit is finished or rolled back.
    _critical: crate::signals::Critical,
}

impl Committed {
    /// Ends the run: the journal is marked committed (from here on a kill
    /// is finished, not undone), then the backups and the directories the
    /// deletions left empty go, then the journal. If the mark cannot be
    /// written (a full disk), the files are put back, unless the index was
    /// written already (then the index is the mark, and the run goes on).
    pub fn finish(mut self) -> Result<(), FinishError> {
        checkpoint("finish");
        if let Some(path) = &self.journal {
            self.data.committed = true;
            if let Err(source) = journal::write(path, &self.data) {
                self.data.committed = false;
                if !self.index_written() {
                    return Err(match undo(&self.data, Some(path)) {
                        Ok(()) => FinishError::Undone {
                            journal: path.clone(),
                            source,
                            kept: journal::remove(path).is_err(),
                        },
                        Err(undo) => FinishError::Unfinished {
                            journal: path.clone(),
                            source,
                            undo,
                        },
                    });
                }
            }
            checkpoint("marked committed");
        }
        let applied = |step, journal: &Option<PathBuf>| {
            let journal = journal.clone();
            move |source| FinishError::Applied {
                step,
                source,
                journal,
            }
        };
        journal::clean_up(&self.data).map_err(applied("removing the backups", &self.journal))?;
        checkpoint("cleaned up");
        if let Some(path) = &self.journal {
            journal::remove(path).map_err(applied("removing the journal", &self.journal))?;
        }
        Ok(())
    }

    /// True when the run staged its results and the index changed since
    /// the journal was written: recovery rolls such a run forward.
    fn index_written(&self) -> bool {
        self.data
            .index
            .as_ref()
            .is_some_and(|(index, sum)| journal::index_checksum(index).unwrap_or_default() != *sum)
    }

    /// Puts every file back as it was before the commit.
    /// If that fails, the journal is kept for the next run to retry. Once
    /// every file is back: the journal, when it could not be removed.
    pub fn roll_back(self) -> io::Result<Option<PathBuf>> {
        undo(&self.data, self.journal.as_deref())?;
        Ok(self.journal.filter(|path| journal::remove(path).is_err()))
    }
}

/// Commits all changes or none. Every target is first checked to be as it
/// was read; the journal (when `spec` is given) records every step before
/// the tree is touched; new contents are written to temporary files beside
/// their targets and every original is kept as a hard-linked backup; only
/// then are the files renamed into place and deletions made. If anything
/// fails, the files already replaced are restored; if the process dies, the
/// next run restores them from the journal.
#[cfg_attr(not(test), allow(dead_code))] // runs use `commit_with_progress`
pub fn commit(
    changes: &[FileChange],
    root: &Path,
    spec: Option<&JournalSpec>,
) -> Result<Committed, CommitError> {
    commit_with_progress(changes, root, spec, &NoProgress)
}

/// [`commit`], telling `progress` about the writing stage: the files and
/// bytes to write, then each file as its new content is written beside it.
pub fn commit_with_progress(
    changes: &[FileChange],
    root: &Path,
    spec: Option<&JournalSpec>,
    progress: &dyn Progress,
) -> Result<Committed, CommitError> {
    progress.start(Stage::Writing, workload(changes));
    {
        use rayon::prelude::*;
        changes.par_iter().try_for_each(|change| match change {
            FileChange::Write { path, expect, .. } => verify(path, *expect),
            FileChange::Delete { path, expect } => verify(path, *expect),
        })?;
    }
    // From the journal on, a signal waits for the commit to end.
    let critical = crate::signals::critical();
    let mut data = journal_data(changes, root, spec).map_err(io_err(root))?;
    let journal = spec.map(|s| s.path.clone());
    let fail = |data: &JournalData, path: &Path, e: io::Error| match undo(data, journal.as_deref())
    {
        Ok(()) => CommitError::Io {
            path: path.to_path_buf(),
            source: e,
            journal: journal
                .as_ref()
                .filter(|j| journal::remove(j).is_err())
                .cloned(),
        },
        // The journal stays: the next run (or `--recover`) retries.
        Err(undo) => CommitError::Unfinished {
            path: path.to_path_buf(),
            source: e,
            undo,
            journal: journal.clone(),
        },
    };
    if let Some(j) = &journal {
        journal::write(j, &data).map_err(|e| fail(&data, j, e))?;
        checkpoint("journal written");
    }
    for dir in &data.created_dirs {
        test_hooks::fail(Step::CreateDir, dir)
            .and_then(|()| fs::create_dir(dir))
            .map_err(|e| fail(&data, dir, e))?;
    }
    let faults = crate::sigbus::faults();
    let written = prepare(changes, &data, root, progress);
    // Every file made is known to the roll-back, whether or not one failed.
    for (entry, made) in data.entries.iter_mut().zip(&written) {
        entry.written = made.as_ref().ok().copied().flatten();
    }
    if let Some((path, e)) = written.into_iter().find_map(Result::err) {
        return Err(fail(&data, &path, e));
    }
    // A mapped original cut short while its new content was written: that
    // content holds zeros for the lost pages.
    if crate::sigbus::faults() != faults {
        let e =
            io::Error::other("an original was cut short by another process while it was copied");
        return Err(fail(&data, root, e));
    }
    // What each new content is, before any is renamed into place: recovery
    // touches a file only while it still holds it.
    if let Some(j) = &journal {
        journal::write(j, &data).map_err(|e| fail(&data, j, e))?;
        checkpoint("journal completed");
    }
    replace(&data).map_err(|(path, e)| fail(&data, &path, e))?;
    Ok(Committed {
        data,
        journal,
        _critical: critical,
    })
}

/// The files and bytes a commit writes.
fn workload(changes: &[FileChange]) -> Workload {
    let mut workload = Workload::default();
    for change in changes {
        if let FileChange::Write { content, .. } = change {
            workload.files += 1;
            workload.bytes += match content {
                WriteContent::Bytes(bytes) => bytes.len(),
                WriteContent::Lines {
                    lines,
                    final_newline,
                } => {
                    let newlines = lines.len() - usize::from(!final_newline && !lines.is_empty());
                    lines.iter().map(|l| l.len()).sum::<usize>() + newlines
                }
                WriteContent::Render { old, .. } => old.len(),
            } as u64;
        }
    }
    workload
}

/// The journal of a commit: every file with the names of its staged file
/// and backup, and the directories to create.
fn journal_data(
    changes: &[FileChange],
    root: &Path,
    spec: Option<&JournalSpec>,
) -> io::Result<JournalData> {
    let mut data = JournalData {
        version: journal::VERSION,
        pid: std::process::id(),
        index: spec.and_then(|s| s.index.as_ref()).map(|index| {
            (
                index.clone(),
                journal::index_checksum(index).unwrap_or_default(),
            )
        }),
        entries: Vec::new(),
        created_dirs: Vec::new(),
        root: root.to_path_buf(),
        tree: TreeId::of(root)?,
        committed: false,
        rolling_back: false,
    };
    let mut created = Vec::new();
    let mut known_dirs = HashSet::new();
    for change in changes {
        let (path, staged, existed) = match change {
            FileChange::Write { path, expect, .. } => {
                missing_dirs(parent_dir(path), &mut created, &mut known_dirs);
                let existed = *expect != Expect::Absent;
                (path, Some(free_name(path, "new")), existed)
            }
            FileChange::Delete { path, .. } => (path, None, true),
        };
        // Verified above: a file expected to exist does.
        let backup = existed.then(|| free_name(path, "old"));
        data.entries.push(JournalEntry {
            target: path.clone(),
            staged,
            backup,
            written: None,
        });
    }
    data.created_dirs = created;
    Ok(data)
}

/// Stages every new content and links every backup, on every core (each
/// touches one file). Per entry: what was staged (`None` for a deletion),
/// or the error. A failure stops the others from starting new files; all
/// have ended when this returns, so the roll-back sees every file made.
type Prepared = Result<Option<Written>, (PathBuf, io::Error)>;

fn prepare(
    changes: &[FileChange],
    data: &JournalData,
    root: &Path,
    progress: &dyn Progress,
) -> Vec<Prepared> {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    let failed_once = AtomicBool::new(false);
    changes
        .par_iter()
        .zip(data.entries.par_iter())
        .map(|(change, entry)| -> Prepared {
            if failed_once.load(Ordering::Relaxed) {
                return Ok(None);
            }
            let failed = |e| {
                failed_once.store(true, Ordering::Relaxed);
                (entry.target.clone(), e)
            };
            let mut written = None;
            if let (FileChange::Write { content, mode, .. }, Some(staged)) = (change, &entry.staged)
            {
                written = Some(stage(&entry.target, staged, *content, *mode).map_err(failed)?);
                checkpoint("staged");
                progress.file_done(
                    &entry
                        .target
                        .strip_prefix(root)
                        .unwrap_or(&entry.target)
                        .to_string_lossy(),
                );
            }
            if let Some(backup) = &entry.backup {
                test_hooks::fail(Step::Backup, backup)
                    .and_then(|()| fs::hard_link(&entry.target, backup))
                    .map_err(failed)?;
                checkpoint("backup");
            }
            Ok(written)
        })
        .collect()
}

/// Renames every staged file into place and makes the deletions. Every file
/// stands on its own (a roll-back looks at each entry's names, whatever
/// order they were renamed in): on every core too.
fn replace(data: &JournalData) -> Result<(), (PathBuf, io::Error)> {
    use rayon::prelude::*;
    data.entries
        .par_iter()
        .try_for_each(|entry| -> Result<(), (PathBuf, io::Error)> {
            let failed = |e| (entry.target.clone(), e);
            match &entry.staged {
                Some(staged) => test_hooks::fail(Step::Rename, &entry.target)
                    .and_then(|()| fs::rename(staged, &entry.target)),
                None => test_hooks::fail(Step::Delete, &entry.target)
                    .and_then(|()| fs::remove_file(&entry.target)),
            }
            .map_err(failed)?;
            checkpoint("replaced");
            Ok(())
        })
}

/// A free name beside `path` for a staged file or a backup.
///
/// The name holds the process id, the time the process first asked and a
/// counter, so it is unique without asking the file system; should it exist
/// all the same, creating it fails (`create_new`, `link`) and the commit is
/// undone, never a file overwritten.
fn free_name(path: &Path, what: &str) -> PathBuf {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicUsize, Ordering};
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    static RUN: OnceLock<String> = OnceLock::new();
    let run = RUN.get_or_init(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        format!("{}-{nanos:x}", std::process::id())
    });
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    parent_dir(path).join(format!(".fuzzy-apply-{what}-{run}-{n}"))
}

/// Adds the missing ancestors of `dir` to `created`, outermost first.
/// `known` holds the directories already looked at (existing or to be
/// created), so that each is probed once however many files it gets.
fn missing_dirs(dir: &Path, created: &mut Vec<PathBuf>, known: &mut HashSet<PathBuf>) {
    let mut missing: Vec<PathBuf> = Vec::new();
    for d in dir.ancestors() {
        if d.as_os_str().is_empty() || !known.insert(d.to_path_buf()) || d.exists() {
            break;
        }
        missing.push(d.to_path_buf());
    }
    missing.reverse();
    created.extend(missing);
}

/// Writes `content` for `path` into the new file `staged` (beside it), with
/// `mode` or else the permissions of `path`; returns what the staged file
/// is (its identity and checksum), which its rename into place keeps.
fn stage(
    path: &Path,
    staged: &Path,
    content: WriteContent,
    mode: Option<u32>,
) -> io::Result<Written> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    // The target's own bits are asked for only when no mode is known (a
    // `stat` a file saved).
    let bits = match mode {
        Some(bits) => bits & 0o7777,
        None => fs::metadata(path).map_or(0o644, |m| m.permissions().mode() & 0o7777),
    };
    // Created with its final bits (less the umask), so that a private
    // file's new content is never readable by others, even for a moment.
    test_hooks::fail(Step::StageCreate, staged)?;
    let file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(bits & 0o777)
        .open(staged)?;
    // Like git for working-tree files, no fsync: the rename is atomic for
    // other processes and survives a crash of this one; the page cache holds.
    let mut crc = crc32fast::Hasher::new();
    match content {
        WriteContent::Bytes(bytes) => {
            crc.update(bytes);
            test_hooks::fail(Step::StageWrite, staged)?;
            (&file).write_all(bytes)?;
        }
        WriteContent::Lines {
            lines,
            final_newline,
        } => {
            let mut out = CrcWriter {
                out: io::BufWriter::with_capacity(1 << 16, &file),
                crc: &mut crc,
            };
            test_hooks::fail(Step::StageWrite, staged)?;
            crate::apply::write_lines(lines, final_newline, &mut out)?;
            out.flush()?;
        }
        WriteContent::Render { old, plan, index } => {
            let source = SourceText::with_index(old, index);
            let mut out = io::BufWriter::with_capacity(1 << 20, &file);
            match old.mapped_path() {
                Some((from, _)) => {
                    test_hooks::fail(Step::StageWrite, staged)?;
                    let from = fs::File::open(from)?;
                    writeback::overlapped(&file, |chunk_copied| {
                        let bulk = Bulk {
                            from: &from,
                            chunk_copied,
                        };
                        render::render_hashed(&source, plan, &mut out, Some(bulk), Some(&mut crc))
                    })?;
                }
                None => {
                    test_hooks::fail(Step::StageWrite, staged)?;
                    render::render_hashed(&source, plan, &mut out, None, Some(&mut crc))?;
                }
            }
            out.flush()?;
        }
    }
    // The umask, or a default ACL of the directory, may have cleared some
    // of them, and the special bits (setuid, setgid, sticky) are not given
    // at creation: set them all.
    test_hooks::fail(Step::StageMode, staged)?;
    file.set_permissions(fs::Permissions::from_mode(bits))?;
    Written::of_file(&file, crc.finalize())
}

/// A writer that feeds what it writes to a checksum.
struct CrcWriter<'a, W: Write> {
    out: W,
    crc: &'a mut crc32fast::Hasher,
}

impl<W: Write> Write for CrcWriter<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.out.write(buf)?;
        self.crc.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The permission bits of the file at `path` with its executable bits set
/// or cleared as git `mode` (`0o100755`/`0o100644`) says.
fn exec_bits(path: &Path, mode: Option<u32>) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    let mode = mode?;
    let bits = fs::metadata(path).ok()?.permissions().mode() & 0o777;
    Some(if mode & 0o111 != 0 {
        bits | ((bits & 0o444) >> 2)
    } else {
        bits & !0o111
    })
}

/// How to recognise that a file is still as it was read.
fn expect_of(old: &Content) -> Expect<'_> {
    match old.stamp() {
        Some(stamp) => Expect::Stamp(stamp),
        None => Expect::Content(old),
    }
}

/// The disk changes that turn planned results into files under `targets`.
pub fn worktree_changes<'a>(
    results: impl IntoIterator<Item = &'a FileResult>,
    targets: &WorktreeTargets,
) -> Result<Vec<FileChange<'a>>, String> {
    let mut writes = Vec::new();
    let mut deletes = Vec::new();
    for r in results.into_iter().filter(|r| r.changes_anything()) {
        if let Some(new_path) = &r.new_path {
            let moved = r.old_path.as_ref() != Some(new_path);
            writes.push(FileChange::Write {
                path: targets.resolve(new_path)?,
                content: match &r.new {
                    NewContent::Bytes(bytes) => WriteContent::Bytes(bytes),
                    NewContent::Lines {
                        lines,
                        final_newline,
                    } => WriteContent::Lines {
                        lines,
                        final_newline: *final_newline,
                    },
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
                // A file edited in place keeps its own permission bits (a
                // read-only file stays read-only); added and moved files get
                // the mode git would give them.
                mode: if r.old_path.is_some() && !moved {
                    if r.mode_changes() {
                        exec_bits(&targets.resolve(new_path)?, r.new_mode)
                    } else {
                        // The bits seen when the file was read (saves a stat).
                        r.old.permissions()
                    }
                } else {
                    r.mode.map(|m| m & 0o777)
                },
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

mod render;
mod writeback;

pub use render::{Bulk, render_to_vec};

#[cfg(test)]
pub(crate) mod tests;
