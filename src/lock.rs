//! The run lock: one run of the tool at a time per tree.
//!
//! It is a file lock (`flock`) on `.git/fuzzy-apply/lock` in a repository
//! and on `.git-fuzzy-apply.lock` at the top of the tree outside one. The
//! kernel releases it when its holder ends, however it ends, so a lock is
//! never left behind by a killed run and never mistaken for one (as a
//! process id could be, once reused). It is taken before a journal is read:
//! recovery never meets a live run.
//!
//! A run that also takes git's `index.lock` writes the identity of that
//! file into the run lock. The next run, holding the run lock, knows that
//! no run of the tool is alive: an `index.lock` that is still exactly that
//! file (device, inode, change time) was left by the dead run and is
//! removed; any other is some git's and is left alone.

use crate::journal::JournalError;
use crate::signals;
use crate::test_hooks::{self, Step};
use serde::{Deserialize, Serialize};
use std::fs;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The identity of a lock file a run created.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct LockFileId {
    path: PathBuf,
    device: u64,
    inode: u64,
    changed: (i64, i64),
}

impl LockFileId {
    fn of(path: &Path) -> Option<LockFileId> {
        let meta = fs::symlink_metadata(path).ok()?;
        Some(LockFileId {
            path: path.to_path_buf(),
            device: meta.dev(),
            inode: meta.ino(),
            changed: (meta.ctime(), meta.ctime_nsec()),
        })
    }
}

/// What a run lock file holds: who holds it, and the index lock it took.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Record {
    pid: u32,
    index_lock: Option<LockFileId>,
}

/// A held run lock; released (and its file removed) when dropped.
#[derive(Debug)]
pub(crate) struct RunLock {
    file: fs::File,
    path: PathBuf,
    /// What the previous holder wrote, if it did not end cleanly.
    previous: Option<Record>,
    _registration: signals::Registration,
}

fn lock_error(path: &Path) -> impl FnOnce(io::Error) -> JournalError + '_ {
    move |source| JournalError::Lock {
        path: path.to_path_buf(),
        source,
    }
}

/// Tries to take `file`'s lock without waiting: `Ok(false)` when another
/// process holds it.
fn try_flock(file: &fs::File) -> io::Result<bool> {
    use std::os::fd::AsRawFd;
    // SAFETY: the descriptor is open for the whole call.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        return Ok(true);
    }
    let e = io::Error::last_os_error();
    if e.kind() == io::ErrorKind::WouldBlock {
        Ok(false)
    } else {
        Err(e)
    }
}

/// Opens (or creates) the lock file `path`, never through a symbolic link:
/// the tool never makes one there, and one planted there must not lead the
/// lock (and the record written into it) to another file.
fn open_lock(path: &Path) -> io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                io::Error::other(
                    "it is a symbolic link, which git-fuzzy-apply never makes there: remove it",
                )
            } else {
                e
            }
        })
}

/// The process id written in the lock file at `path`, if any.
fn holder(path: &Path) -> Option<u32> {
    let text = fs::read(path).ok()?;
    serde_json::from_slice::<Record>(&text).ok().map(|r| r.pid)
}

impl RunLock {
    /// Takes the run lock `path` (creating it and its directory), or fails
    /// at once with [`JournalError::Busy`] when a live run holds it.
    pub(crate) fn acquire(path: &Path) -> Result<RunLock, JournalError> {
        test_hooks::fail(Step::LockCreate, path).map_err(lock_error(path))?;
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(lock_error(path))?;
        }
        // The holder removes the file as it ends: a file opened just before
        // that is no longer the lock, so the lock is checked to be the file
        // at `path` once held.
        for _ in 0..16 {
            let mut file = open_lock(path).map_err(lock_error(path))?;
            if !try_flock(&file).map_err(lock_error(path))? {
                return Err(JournalError::Busy {
                    path: path.to_path_buf(),
                    pid: holder(path),
                });
            }
            let held = file.metadata().map_err(lock_error(path))?;
            let still_there = fs::symlink_metadata(path)
                .is_ok_and(|m| m.dev() == held.dev() && m.ino() == held.ino());
            if !still_there {
                continue;
            }
            let mut text = Vec::new();
            file.read_to_end(&mut text).map_err(lock_error(path))?;
            let previous = serde_json::from_slice::<Record>(&text).ok();
            // A dead run's index.lock stays on record until it is removed
            // (or this run takes the index lock itself): should this run
            // die first, the next one still knows it.
            let carried = previous.as_ref().and_then(|r| r.index_lock.clone());
            let mut lock = RunLock {
                file,
                path: path.to_path_buf(),
                previous,
                _registration: signals::register(path),
            };
            lock.write(&Record {
                pid: std::process::id(),
                index_lock: carried,
            })
            .map_err(lock_error(path))?;
            return Ok(lock);
        }
        Err(JournalError::Busy {
            path: path.to_path_buf(),
            pid: holder(path),
        })
    }

    fn write(&mut self, record: &Record) -> io::Result<()> {
        let text = serde_json::to_vec(record).map_err(io::Error::other)?;
        test_hooks::fail(Step::LockRecord, &self.path)?;
        // Over the old record, then cut to length: a record is far smaller
        // than a block, so a full disk fails the write before it changes
        // anything, and the old record (a dead run's index.lock) stays.
        self.file.write_all_at(&text, 0)?;
        self.file.set_len(text.len() as u64)
    }

    /// True when the `index.lock` a dead run left is still there, that
    /// very file: this run did not get to remove it.
    fn dead_run_index_lock_left(&self) -> bool {
        self.previous
            .as_ref()
            .and_then(|r| r.index_lock.as_ref())
            .is_some_and(|id| LockFileId::of(&id.path).as_ref() == Some(id))
    }

    /// Notes that this run now holds git's lock file `index_lock`, so that
    /// the next run can tell it from another git's should this one die.
    pub(crate) fn note_index_lock(&mut self, index_lock: &Path) -> Result<(), JournalError> {
        let record = Record {
            pid: std::process::id(),
            index_lock: LockFileId::of(index_lock),
        };
        let path = self.path.clone();
        self.write(&record).map_err(lock_error(&path))
    }

    /// Removes `index_lock` if the previous holder of this lock, a run that
    /// did not end cleanly, created it and it is still that very file.
    /// True when it was removed.
    pub(crate) fn remove_index_lock_left_by_dead_run(&self, index_lock: &Path) -> io::Result<bool> {
        let left = self.previous.as_ref().and_then(|r| r.index_lock.as_ref());
        match left {
            Some(id)
                if id.path == index_lock && LockFileId::of(index_lock).as_ref() == Some(id) =>
            {
                test_hooks::fail(Step::StaleIndexLock, index_lock)?;
                fs::remove_file(index_lock)?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }
}

impl Drop for RunLock {
    fn drop(&mut self) {
        // The record of a dead run's index.lock that is still there stays
        // (in a file nobody holds: no lock), so that the next run removes
        // that index.lock: this run failed before it could.
        if self.dead_run_index_lock_left() {
            return;
        }
        // Removed while still held: whoever opened it meanwhile sees it is
        // gone once they hold it, and opens the path afresh.
        let _ = test_hooks::fail(Step::LockRemove, &self.path)
            .and_then(|()| fs::remove_file(&self.path));
    }
}

/// True when a live run holds the run lock `path` (checked without
/// creating anything: for runs that must not write).
pub(crate) fn held_by_live_run(path: &Path) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    let opened = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path);
    match opened {
        Ok(file) => matches!(try_flock(&file), Ok(false)),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_and_the_file_goes_with_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock");
        let first = RunLock::acquire(&path).unwrap();
        assert!(held_by_live_run(&path));
        // flock locks belong to the open file: a second open is refused
        // even within one process.
        let second = RunLock::acquire(&path);
        assert!(
            matches!(&second, Err(JournalError::Busy { pid: Some(p), .. }) if *p == std::process::id()),
            "{second:?}"
        );
        drop(first);
        assert!(!path.exists());
        assert!(!held_by_live_run(&path));
    }
}
