//! The all-or-nothing commit of a run's disk changes: check every target
//! is as it was read, journal the plan, stage every new content beside its
//! target ([`super::stage`]), rename all into place, and undo everything
//! when a step fails.

use super::stage::{free_name, missing_dirs, stage, stage_link};
use super::{CommitError, Expect, FileChange, FinishError, parent_dir};
use crate::journal::{self, JournalData, JournalEntry, JournalSpec, LeftAlone, TreeId, Written};
use crate::plan::NewContent;
use crate::progress::{NoProgress, Progress, Stage, Workload};
use crate::source::Stamp;
use crate::test_hooks::{self, Step, checkpoint};
use std::collections::{HashMap, HashSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Puts back what a failed commit changed, first marking the journal (if
/// any) as rolling back, so that recovery finishes the undoing if this
/// fails. Returns the files left as they are: changed by someone else
/// after the commit wrote them (their content from before kept in a backup).
fn undo(data: &JournalData, journal: Option<&Path>) -> io::Result<Vec<LeftAlone>> {
    if let Some(path) = journal {
        let marked = JournalData {
            rolling_back: true,
            ..data.clone()
        };
        // Undoing goes ahead even if the mark cannot be written (a full
        // disk): the files matter more than the note.
        let _ = journal::write(path, &marked);
    }
    journal::roll_back(data)
}

/// What undoing a commit left behind.
#[derive(Debug)]
pub(crate) struct RolledBack {
    /// The journal, when it could not be removed after the undoing.
    pub(crate) journal: Option<PathBuf>,
    /// The files left as they are, changed after the commit wrote them.
    pub(crate) left_alone: Vec<LeftAlone>,
}

/// The error of a step that fails before anything was written.
fn io_err(path: &Path) -> impl FnOnce(io::Error) -> CommitError + '_ {
    move |source| CommitError::Io {
        path: path.to_path_buf(),
        source,
        journal: None,
        left_alone: Vec::new(),
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
        Expect::Link(target) => match fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                use std::os::unix::ffi::OsStrExt;
                let now = fs::read_link(path).map_err(io_err(path))?;
                now.as_os_str().as_bytes() == target
            }
            Ok(_) => false,
            Err(e) if missing(&e) => false,
            Err(e) => return Err(io_err(path)(e)),
        },
        Expect::Content(old) => match crate::source::read_capped(path, old.len()) {
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
pub(crate) struct Committed {
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
    pub(crate) fn finish(mut self) -> Result<(), FinishError> {
        checkpoint("finish");
        if let Some(path) = &self.journal {
            self.data.committed = true;
            if let Err(source) = journal::write(path, &self.data) {
                self.data.committed = false;
                if !self.index_written() {
                    return Err(match undo(&self.data, Some(path)) {
                        Ok(left_alone) => FinishError::Undone {
                            journal: path.clone(),
                            source,
                            kept: journal::remove_or_kept(path),
                            left_alone,
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
            journal::remove(path).map_err(|source| FinishError::Applied {
                step: "removing the journal",
                source,
                // Unlinked, but its directory's fsync failed: nothing kept.
                journal: Some(path.clone()).filter(|p| p.symlink_metadata().is_ok()),
            })?;
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

    /// Each file the commit wrote, with what it wrote there: staging the
    /// index from the working tree (`--index`) reads them back through
    /// [`Written::read_back`] instead of rendering their content again.
    pub(crate) fn written(&self) -> HashMap<&Path, Written> {
        self.data
            .entries
            .iter()
            .filter_map(|e| Some((e.target.as_path(), e.written?)))
            .collect()
    }

    /// Puts every file back as it was before the commit, but a file
    /// changed since the commit wrote it (left as it is, named in what this
    /// returns). If that fails, the journal is kept for the next run to
    /// retry; once done, the journal is named when it could not be removed.
    pub(crate) fn roll_back(self) -> io::Result<RolledBack> {
        let left_alone = undo(&self.data, self.journal.as_deref())?;
        Ok(RolledBack {
            journal: self.journal.filter(|path| journal::remove_or_kept(path)),
            left_alone,
        })
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
pub(super) fn commit(
    changes: &[FileChange],
    root: &Path,
    spec: Option<&JournalSpec>,
) -> Result<Committed, CommitError> {
    commit_with_progress(changes, root, spec, &NoProgress)
}

/// [`commit`], telling `progress` about the writing stage: the files and
/// bytes to write, then each file as its new content is written beside it.
pub(crate) fn commit_with_progress(
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
        Ok(left_alone) => CommitError::Io {
            path: path.to_path_buf(),
            source: e,
            journal: journal
                .as_ref()
                .filter(|j| journal::remove_or_kept(j))
                .cloned(),
            left_alone,
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
        if let FileChange::Write { old, new, .. } = change {
            workload.files += 1;
            workload.bytes += match new {
                NewContent::Bytes(bytes) => bytes.len(),
                NewContent::Lines {
                    lines,
                    final_newline,
                } => {
                    let newlines = lines.len() - usize::from(!final_newline && !lines.is_empty());
                    lines.iter().map(|l| l.len()).sum::<usize>() + newlines
                }
                NewContent::Edited(..) => old.len(),
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
            if let (
                FileChange::Write {
                    old,
                    new,
                    mode,
                    link,
                    ..
                },
                Some(staged),
            ) = (change, &entry.staged)
            {
                written = Some(if *link {
                    stage_link(staged, new).map_err(failed)?
                } else {
                    stage(&entry.target, staged, old, new, *mode).map_err(failed)?
                });
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
