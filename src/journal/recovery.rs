//! Undoing or finishing an interrupted run from its journal, and the
//! clean-up that ends a committed one. A file is replaced or removed only
//! while it still holds what the run left there.

use super::Expected;
use super::trust::{Found, read};
use super::{JournalData, JournalEntry, JournalError, LeftAlone, Recovery, index_checksum, remove};
use crate::test_hooks::{Step, fail};
use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Finishes or undoes the run recorded in the journal at `path`, if any.
/// The caller holds the run lock: no run that wrote this journal is alive.
/// A step that fails stops recovery with the journal kept
/// ([`JournalError::Stopped`], naming the file): every step is written so
/// that the next recovery goes on from wherever this one stopped.
pub(crate) fn recover(path: &Path, expected: Expected) -> Result<Option<Recovery>, JournalError> {
    let data = match read(path, expected)? {
        Found::None => return Ok(None),
        Found::Untrusted(reason) => {
            return Ok(Some(Recovery::Ignored {
                journal: path.to_path_buf(),
                reason,
            }));
        }
        Found::Trusted(data) => data,
    };
    crate::test_hooks::checkpoint("recovering");
    // A signal waits until recovery is done (it would be redone anyway).
    let _critical = crate::signals::critical();
    let index_changed = data
        .index
        .as_ref()
        .is_some_and(|(index, sum)| index_checksum(index).unwrap_or_default() != *sum);
    // Forward only from a run that got as far as renaming (every new
    // content recorded): a changed index alone may be someone else's doing.
    let committed = !data.rolling_back && data.all_written() && (data.committed || index_changed);
    let stopped = |(file, source): (PathBuf, io::Error)| JournalError::Stopped {
        journal: path.to_path_buf(),
        file,
        source,
    };
    let outcome = if committed {
        roll_forward(&data).map_err(stopped)?
    } else {
        mark_rolling_back(path, &data).map_err(|e| stopped((path.to_path_buf(), e)))?;
        let left_alone = undo(&data).map_err(stopped)?;
        Recovery::RolledBack {
            files: data.entries.len(),
            left_alone,
        }
    };
    remove(path).map_err(|source| JournalError::NotRemoved {
        journal: path.to_path_buf(),
        recovery: Box::new(outcome.clone()),
        kept: !absent(path),
        source,
    })?;
    Ok(Some(outcome))
}

/// Notes in the journal that recovery is undoing the run, where an index
/// could otherwise turn the next recovery the other way: should this one
/// stop half way, and the index be rewritten before the next (a `git
/// status` once the dead run's `index.lock` is gone), the next one must
/// still undo, never finish a half-undone run. When the note cannot be
/// written, recovery stops before it changes anything.
fn mark_rolling_back(path: &Path, data: &JournalData) -> io::Result<()> {
    if data.index.is_none() || data.rolling_back {
        return Ok(());
    }
    let marked = JournalData {
        rolling_back: true,
        ..data.clone()
    };
    super::write(path, &marked)
}

/// [`roll_back`], with the file of its first failure.
fn undo(data: &JournalData) -> Result<Vec<LeftAlone>, (PathBuf, io::Error)> {
    let mut steps = Steps::default();
    roll_back_into(data, &mut steps);
    steps.finish()
}

/// Renames `from` to `to`, the write step `step`.
fn rename(step: Step, from: &Path, to: &Path) -> io::Result<()> {
    fail(step, to)?;
    fs::rename(from, to)
}

/// Removes the file at `path`, if any, the write step `step`.
fn remove_if_present(step: Step, path: &Path) -> io::Result<()> {
    // Asked first: on a read-only mount, removing even a missing file fails.
    if absent(path) {
        return Ok(());
    }
    fail(step, path)?;
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// True when `a` and `b` are the same file (hard links of one inode), not
/// following symbolic links.
fn same_file(a: &Path, b: &Path) -> bool {
    match (fs::symlink_metadata(a), fs::symlink_metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// True when nothing is at `path` (not even a dangling link): staged
/// files and backups may be symbolic links, which are never followed.
fn absent(path: &Path) -> bool {
    matches!(fs::symlink_metadata(path), Err(e) if e.kind() == io::ErrorKind::NotFound)
}

/// Collects the first error of many steps (with the file it was about),
/// all of which are attempted.
#[derive(Default)]
struct Steps {
    first_error: Option<(PathBuf, io::Error)>,
    left_alone: Vec<LeftAlone>,
}

impl Steps {
    fn note(&mut self, path: &Path, result: io::Result<()>) {
        if let Err(e) = result {
            self.first_error.get_or_insert((path.to_path_buf(), e));
        }
    }

    fn leave(&mut self, path: &Path, kept: Option<&PathBuf>) {
        self.left_alone.push(LeftAlone {
            path: path.to_path_buf(),
            kept: kept.filter(|k| !absent(k)).cloned(),
        });
    }

    /// The files left alone, or the first error and its file.
    fn finish(self) -> Result<Vec<LeftAlone>, (PathBuf, io::Error)> {
        match self.first_error {
            Some(e) => Err(e),
            None => Ok(self.left_alone),
        }
    }
}

/// Puts every file back as it was before the run, where it still holds
/// what the run wrote; a file changed since is left as it is (its backup
/// kept). Every step is attempted even when one fails (so one unwritable
/// directory does not keep the others from being restored); the first
/// error is returned. Returns the files left as they are.
pub(crate) fn roll_back(data: &JournalData) -> io::Result<Vec<LeftAlone>> {
    undo(data).map_err(|(_, e)| e)
}

fn roll_back_into(data: &JournalData, steps: &mut Steps) {
    for entry in data.entries.iter().rev() {
        roll_back_entry(entry, steps);
    }
    for dir in data.created_dirs.iter().rev() {
        // Best effort, as git does: an empty directory is no content.
        let _ = fail(Step::RemoveCreatedDir, dir).and_then(|()| fs::remove_dir(dir));
    }
}

fn roll_back_entry(entry: &JournalEntry, steps: &mut Steps) {
    match (&entry.staged, &entry.backup) {
        (Some(staged), backup) => roll_back_write(entry, staged, backup.as_ref(), steps),
        (None, Some(backup)) => roll_back_deletion(&entry.target, backup, steps),
        (None, None) => {}
    }
}

/// A deleted file comes back from its backup while nothing else took its
/// place.
fn roll_back_deletion(target: &Path, backup: &Path, steps: &mut Steps) {
    if absent(backup) {
        // The backup is made before the deletion: nothing happened yet.
        return;
    }
    if absent(target) {
        steps.note(target, rename(Step::Restore, backup, target));
    } else if same_file(backup, target) {
        steps.note(backup, remove_if_present(Step::RemoveBackup, backup));
    } else {
        steps.leave(target, Some(&backup.to_path_buf()));
    }
}

/// A replaced or added file is put back (or removed) only while it still
/// holds what the run wrote.
fn roll_back_write(
    entry: &JournalEntry,
    staged: &Path,
    backup: Option<&PathBuf>,
    steps: &mut Steps,
) {
    let target = &entry.target;
    let staged_left = !absent(staged);
    if staged_left {
        steps.note(staged, remove_if_present(Step::RemoveStaged, staged));
    }
    // The original still in place, its backup a second name of it: nothing
    // was renamed over it (an earlier recovery cut short may have removed
    // the staged file already, which the test below cannot tell from a
    // rename).
    if let Some(backup) = backup
        && same_file(backup, target)
    {
        steps.note(backup, remove_if_present(Step::RemoveBackup, backup));
        return;
    }
    // Renamed into place only if recorded as written and no longer staged.
    let renamed = entry.written.is_some() && !staged_left;
    if !renamed {
        if let Some(backup) = backup {
            steps.note(backup, remove_if_present(Step::RemoveBackup, backup));
        }
        return;
    }
    let ours = entry.written.is_some_and(|w| w.is_at(target));
    match backup {
        Some(backup) if ours && !absent(backup) => {
            steps.note(target, rename(Step::Restore, backup, target));
        }
        // Restored already, by an earlier recovery cut short.
        Some(backup) if absent(backup) => {}
        Some(backup) => steps.leave(target, Some(backup)),
        None if ours => steps.note(target, remove_if_present(Step::RemoveAdded, target)),
        // Removed already, by an earlier recovery cut short.
        None if absent(target) => {}
        None => steps.leave(target, None),
    }
}

/// Completes a run that was committed: every new file is in place and
/// deletions are done; only backups and emptied directories remain. A
/// file changed since is left as it is.
fn roll_forward(data: &JournalData) -> Result<Recovery, (PathBuf, io::Error)> {
    let mut steps = Steps::default();
    for entry in &data.entries {
        let unchanged = match &entry.backup {
            Some(backup) => same_file(backup, &entry.target),
            None => absent(&entry.target),
        };
        match &entry.staged {
            Some(staged) if !absent(staged) => {
                if unchanged {
                    steps.note(&entry.target, rename(Step::Rename, staged, &entry.target));
                } else {
                    steps.leave(&entry.target, None);
                    steps.note(staged, remove_if_present(Step::RemoveStaged, staged));
                }
            }
            Some(_) => {}
            None if unchanged && entry.backup.is_some() => {
                steps.note(
                    &entry.target,
                    remove_if_present(Step::Delete, &entry.target),
                );
            }
            None if absent(&entry.target) => {}
            None => steps.leave(&entry.target, None),
        }
    }
    let left_alone = steps.finish()?;
    clean_up_naming(data)?;
    Ok(Recovery::RolledForward {
        files: data.entries.len(),
        left_alone,
    })
}

/// The last step of a committed run: removes the backups, then the
/// directories deletions left empty.
pub(crate) fn clean_up(data: &JournalData) -> io::Result<()> {
    clean_up_naming(data).map_err(|(_, e)| e)
}

/// [`clean_up`], with the backup whose removal failed.
fn clean_up_naming(data: &JournalData) -> Result<(), (PathBuf, io::Error)> {
    {
        use rayon::prelude::*;
        data.entries
            .par_iter()
            .filter_map(|e| e.backup.as_ref())
            .try_for_each(|backup| {
                remove_if_present(Step::RemoveBackup, backup).map_err(|e| (backup.clone(), e))
            })?;
    }
    for entry in data.entries.iter().filter(|e| e.staged.is_none()) {
        remove_empty_parents(&entry.target, &data.root);
    }
    Ok(())
}

/// Removes the directories a deletion left empty, up to the first non-empty
/// one, never `root` itself or anything above it.
fn remove_empty_parents(path: &Path, root: &Path) {
    let mut dir = path.parent();
    while let Some(d) = dir {
        if !d.starts_with(root)
            || d == root
            || fail(Step::RemoveEmptyDir, d)
                .and_then(|()| fs::remove_dir(d))
                .is_err()
        {
            break;
        }
        dir = d.parent();
    }
}
