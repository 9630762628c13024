//! The commit journal: what a run is about to do to the working tree,
//! written before the first file is replaced, so that a run killed between
//! two renames can be put right by the next one.
//!
//! While a journal exists, every replaced or deleted file still has a backup
//! (a hard link) and every new content its staged temporary file. Once every
//! new content is staged the journal records what each one is (inode, size,
//! modification time and CRC-32: [`Written`]); only then are files renamed
//! into place. Recovery rolls the tree *back* to the state before the run
//! (restore backups, remove added files), unless the run had already
//! committed the index, in which case it rolls *forward* (the working tree
//! was complete before the index was written; only backups remain to
//! delete). Either way it replaces or removes a file only while it still
//! holds exactly what the journal says the run left there: a file the user
//! changed since is left as it is, and reported.
//!
//! Recovery runs only under the run lock (so never beside a live run), and
//! only on a journal written for this very tree: it names the tree's
//! device and inode, which no file shipped inside a folder can know, and
//! every path in it lies inside the tree, through no symbolic link.
//!
//! The journal lives in `.git/fuzzy-apply/journal` in a repository, and in
//! `.git-fuzzy-apply.journal` at the top of the tree outside one. Writes of
//! the journal itself go through a temporary file, `fsync` and a rename.
//!
//! Here: the journal's types, and writing and removing it. Whether a
//! journal found on disk may be trusted is `trust.rs`; undoing or finishing
//! a run from it is `recovery.rs`.

use crate::test_hooks::{Step, fail};
use serde::{Deserialize, Serialize};
use std::fs;
use std::io::{self, Read, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The journal format's version.
pub(crate) const VERSION: u32 = 2;

/// What the run wrote at a path: the staged file's identity, which its
/// rename into place keeps. A file still holding it was not touched since.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Written {
    /// Inode number.
    pub inode: u64,
    /// Length in bytes.
    pub len: u64,
    /// Modification time, seconds and nanoseconds.
    pub modified: (i64, i64),
    /// CRC-32 of the content (of a symbolic link: of its target).
    pub crc32: u32,
    /// A symbolic link was written (its length is its target's).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub link: bool,
}

impl Written {
    /// The identity of the file `file`, just written, whose content has
    /// the CRC-32 `crc32`.
    pub(crate) fn of_file(file: &fs::File, crc32: u32) -> io::Result<Written> {
        let meta = file.metadata()?;
        Ok(Written {
            inode: meta.ino(),
            len: meta.len(),
            modified: (meta.mtime(), meta.mtime_nsec()),
            crc32,
            link: false,
        })
    }

    /// The identity of the symbolic link `path`, just made, whose target
    /// has the CRC-32 `crc32`.
    pub(crate) fn of_link(path: &Path, crc32: u32) -> io::Result<Written> {
        let meta = fs::symlink_metadata(path)?;
        Ok(Written {
            inode: meta.ino(),
            len: meta.len(),
            modified: (meta.mtime(), meta.mtime_nsec()),
            crc32,
            link: true,
        })
    }

    /// True when `meta` (not followed through a link) has this identity.
    fn same_identity(&self, meta: &fs::Metadata) -> bool {
        meta.file_type().is_symlink() == self.link
            && meta.ino() == self.inode
            && meta.len() == self.len
            && (meta.mtime(), meta.mtime_nsec()) == self.modified
    }

    /// The content of `path`, read once, when the file still is what the
    /// run wrote (same inode, size, time and CRC); `None` when it is not:
    /// another process changed or replaced it since.
    pub(crate) fn read_back(&self, path: &Path) -> io::Result<Option<Vec<u8>>> {
        if self.link {
            // The link's target, the link never followed.
            use std::os::unix::ffi::OsStringExt;
            let meta = fs::symlink_metadata(path)?;
            let target = fs::read_link(path)?.into_os_string().into_vec();
            let same = self.same_identity(&meta) && crc32fast::hash(&target) == self.crc32;
            return Ok(same.then_some(target));
        }
        let mut file = fs::File::open(path)?;
        let meta = file.metadata()?;
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        file.read_to_end(&mut bytes)?;
        let same = meta.ino() == self.inode
            && meta.len() == self.len
            && (meta.mtime(), meta.mtime_nsec()) == self.modified
            && bytes.len() as u64 == self.len
            && crc32fast::hash(&bytes) == self.crc32;
        Ok(same.then_some(bytes))
    }

    /// The regular file at `path` (not followed through a link), opened,
    /// when it still has the identity the run gave it (inode, size,
    /// modification time); `None` when it is not: another process changed
    /// or replaced it since. Its content is for the caller to check
    /// against the size and CRC-32 as it reads it.
    pub(crate) fn open_back(&self, path: &Path) -> io::Result<Option<fs::File>> {
        use std::os::unix::fs::OpenOptionsExt;
        let file = fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(path)?;
        let meta = file.metadata()?;
        Ok((meta.is_file() && self.same_identity(&meta)).then_some(file))
    }

    /// True when `path` is a regular file (not followed through a link),
    /// or the symbolic link the run made, that still is what the run
    /// wrote: same inode, size, time and CRC.
    fn is_at(&self, path: &Path) -> bool {
        let Ok(meta) = fs::symlink_metadata(path) else {
            return false;
        };
        if self.link {
            return self.read_back(path).is_ok_and(|t| t.is_some());
        }
        meta.is_file()
            && self.same_identity(&meta)
            && crc32_of(path).is_ok_and(|crc| crc == self.crc32)
    }
}

/// The CRC-32 of the file at `path`.
fn crc32_of(path: &Path) -> io::Result<u32> {
    let mut file = fs::File::open(path)?;
    let mut hasher = crc32fast::Hasher::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match file.read(&mut buf)? {
            0 => return Ok(hasher.finalize()),
            n => hasher.update(&buf[..n]),
        }
    }
}

/// Which directory a journal was written for: its device and inode, which
/// a copy, or a folder unpacked from an archive, does not share.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct TreeId {
    /// Device number.
    pub device: u64,
    /// Inode number.
    pub inode: u64,
}

impl TreeId {
    /// The identity of the directory `root`.
    pub(crate) fn of(root: &Path) -> io::Result<TreeId> {
        let meta = fs::metadata(root)?;
        Ok(TreeId {
            device: meta.dev(),
            inode: meta.ino(),
        })
    }
}

/// One file the run replaces, adds or deletes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct JournalEntry {
    /// The file in the working tree (relative to the tree in the file on
    /// disk, absolute in memory).
    pub target: PathBuf,
    /// The new content, staged beside the target; `None` for a deletion.
    pub staged: Option<PathBuf>,
    /// A hard link to the original; `None` for an added file.
    pub backup: Option<PathBuf>,
    /// What the staged file is, recorded once every file is staged and
    /// before any is renamed; `None` for a deletion or before that point.
    #[serde(default)]
    pub written: Option<Written>,
}

/// Everything needed to undo or finish an interrupted run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct JournalData {
    /// Format version.
    pub version: u32,
    /// The run's process id (for messages only: the run lock tells
    /// whether a run is alive).
    pub pid: u32,
    /// The index file and its trailing checksum (hex) when the run took its
    /// lock, when the run also writes the index; a different checksum at
    /// recovery means the index was committed.
    pub index: Option<(PathBuf, String)>,
    /// The files. They are replaced on every core, in no set order; each
    /// entry's names alone say how far it got.
    pub entries: Vec<JournalEntry>,
    /// Directories the run created, outermost first.
    pub created_dirs: Vec<PathBuf>,
    /// The top of the tree: every path above lies inside it (and is written
    /// relative to it); directories emptied by deletions are removed up to
    /// it, never it or anything above.
    pub root: PathBuf,
    /// The identity of `root` when the journal was written.
    pub tree: TreeId,
    /// Set once every file is in place (and the index written): from then on
    /// recovery finishes the run instead of undoing it.
    #[serde(default)]
    pub committed: bool,
    /// Set before the run undoes itself after a failure: recovery then
    /// finishes the undoing whatever the index says (someone may have
    /// rewritten the index since, e.g. `git status`).
    #[serde(default)]
    pub rolling_back: bool,
}

impl JournalData {
    /// The form written to disk: every path in the tree relative to `root`.
    fn on_disk(&self) -> JournalData {
        let rel = |p: &PathBuf| {
            p.strip_prefix(&self.root)
                .map_or_else(|_| p.clone(), Path::to_path_buf)
        };
        let mut out = self.clone();
        out.created_dirs = self.created_dirs.iter().map(rel).collect();
        for entry in &mut out.entries {
            entry.target = rel(&entry.target);
            entry.staged = entry.staged.as_ref().map(rel);
            entry.backup = entry.backup.as_ref().map(rel);
        }
        out
    }

    /// Back from disk, once [`trusted`]: every path joined to `root`.
    fn in_tree(mut self, root: &Path) -> JournalData {
        let join = |p: &PathBuf| root.join(p);
        self.created_dirs = self.created_dirs.iter().map(join).collect();
        for entry in &mut self.entries {
            entry.target = join(&entry.target);
            entry.staged = entry.staged.as_ref().map(join);
            entry.backup = entry.backup.as_ref().map(join);
        }
        self.root = root.to_path_buf();
        self
    }

    /// True once every new content was staged and recorded: only then may
    /// a file have been renamed into place.
    pub(crate) fn all_written(&self) -> bool {
        self.entries
            .iter()
            .all(|e| e.staged.is_none() || e.written.is_some())
    }
}

/// Where a run keeps its journal and what it must record beyond the files.
#[derive(Debug, Clone, Default)]
pub(crate) struct JournalSpec {
    /// The journal file.
    pub path: PathBuf,
    /// The index file, when the run stages its results.
    pub index: Option<PathBuf>,
}

/// What recovery may trust: the tree the journal must have been written
/// for, and the repository's index.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Expected<'a> {
    /// The top of the working tree.
    pub root: &'a Path,
    /// The repository's index file, if in a repository.
    pub index: Option<&'a Path>,
}

/// A file recovery did not touch because it changed after the interrupted
/// run wrote it.
///
/// ```
/// use git_fuzzy_apply::{LeftAlone, Recovery};
/// use std::path::PathBuf;
///
/// let changed = LeftAlone { path: PathBuf::from("a.txt"), kept: None };
/// let done = Recovery::RolledBack { files: 1, left_alone: vec![changed] };
/// // The message names the file the user changed since, left as it is.
/// assert!(done.to_string().contains("a.txt"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftAlone {
    /// The file.
    pub path: PathBuf,
    /// Where its content from before the run is kept, if anywhere.
    pub kept: Option<PathBuf>,
}

/// What recovery did, or why it did nothing.
///
/// ```
/// use git_fuzzy_apply::{recover, Recovery};
///
/// // An earlier run killed while writing is finished or undone first.
/// let done = Recovery::RolledBack { files: 2, left_alone: Vec::new() };
/// assert!(done.to_string().starts_with("an interrupted earlier run was undone"));
/// let dir = tempfile::tempdir().unwrap();
/// assert_eq!(recover(dir.path()).unwrap(), None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recovery {
    /// The interrupted run's changes were undone.
    RolledBack {
        /// Files restored or removed.
        files: usize,
        /// Files changed since, left as they are.
        left_alone: Vec<LeftAlone>,
    },
    /// The interrupted run had committed the index; its last clean-up was finished.
    RolledForward {
        /// Files whose clean-up was finished.
        files: usize,
        /// Files changed since, left as they are.
        left_alone: Vec<LeftAlone>,
    },
    /// A run that must not write (`--check`, `--stat`) found a journal to
    /// recover and left it for a run that writes.
    Pending {
        /// The journal.
        journal: PathBuf,
    },
    /// No journal, but the `index.lock` an interrupted run had taken was
    /// still there, and was removed.
    LockRemoved {
        /// The lock file.
        lock: PathBuf,
    },
    /// A journal that this tool did not write for this tree: never acted on.
    Ignored {
        /// The journal.
        journal: PathBuf,
        /// Why it is not trusted.
        reason: String,
    },
}

impl std::fmt::Display for Recovery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let left = match self {
            Recovery::RolledBack { files, left_alone } => {
                write!(
                    f,
                    "an interrupted earlier run was undone: {files} file(s) put back as they were"
                )?;
                left_alone
            }
            Recovery::RolledForward { files, left_alone } => {
                write!(
                    f,
                    "an interrupted earlier run had finished writing; its clean-up was completed ({files} file(s))"
                )?;
                left_alone
            }
            Recovery::Pending { journal } => {
                return write!(
                    f,
                    "an interrupted earlier run left {}; nothing was done about it now: run `git fuzzy-apply --recover` to put the tree right",
                    journal.display()
                );
            }
            Recovery::LockRemoved { lock } => {
                return write!(
                    f,
                    "removed {}, which an interrupted earlier run had left",
                    lock.display()
                );
            }
            Recovery::Ignored { journal, reason } => {
                return write!(
                    f,
                    "{}: ignored, it was not written by git-fuzzy-apply for this tree ({reason}); nothing was done with it",
                    journal.display()
                );
            }
        };
        for file in left {
            write!(
                f,
                "\n  {}: changed since that run, left as it is",
                file.path.display()
            )?;
            if let Some(kept) = &file.kept {
                write!(
                    f,
                    " (its content from before the run is kept in {})",
                    kept.display()
                )?;
            }
        }
        Ok(())
    }
}

/// Why recovery could not run.
///
/// ```
/// use git_fuzzy_apply::JournalError;
/// use std::path::PathBuf;
///
/// let busy = JournalError::Busy { path: PathBuf::from(".git/fuzzy-apply.lock"), pid: Some(42) };
/// assert!(busy.to_string().contains("another git-fuzzy-apply (pid 42) is working on this tree"));
/// ```
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// Another run is still going.
    #[error(
        "{}: another git-fuzzy-apply{} is working on this tree; wait for it to finish",
        path.display(),
        pid.map(|p| format!(" (pid {p})")).unwrap_or_default()
    )]
    Busy {
        /// The lock file.
        path: PathBuf,
        /// Its holder's process id, when it could be read.
        pid: Option<u32>,
    },
    /// The lock file could not be created or locked.
    #[error("{}: cannot take the lock: {source}; nothing was written", path.display())]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// Recovery stopped at a file it could not put back, remove or rename
    /// (or at the journal itself): the journal is kept, and the next
    /// recovery goes on from where this one stopped.
    #[error(
        "{}: recovering the interrupted run this journal records stopped at {}: {source}; the journal is kept: run `git fuzzy-apply --recover` again once that is fixed (a file changed since that run is never overwritten)",
        journal.display(),
        file.display()
    )]
    Stopped {
        /// The journal.
        journal: PathBuf,
        /// The file recovery could not write, remove or rename.
        file: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The interrupted run was put right, but its journal could not be
    /// removed afterwards.
    #[error(
        "{recovery}\n{}: the journal could not be removed afterwards: {source}; {}",
        journal.display(),
        if *kept {
            "the next run, or `git fuzzy-apply --recover`, removes it"
        } else {
            "it is gone, but its removal may not be on disk yet"
        }
    )]
    NotRemoved {
        /// The journal.
        journal: PathBuf,
        /// What recovery did.
        recovery: Box<Recovery>,
        /// Whether the journal is still there.
        kept: bool,
        /// Why.
        source: io::Error,
    },
    /// The journal cannot be read or acted on.
    #[error(
        "{}: an interrupted run left this journal and it could not be recovered ({message}); restore the files it lists by hand, then delete it",
        path.display()
    )]
    Unrecoverable {
        /// The journal.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

/// A journal that cannot be read or acted on: recovery stops and says
/// which, leaving the files as they are.
fn unrecoverable(path: &Path, message: String) -> JournalError {
    JournalError::Unrecoverable {
        path: path.to_path_buf(),
        message,
    }
}

/// Writes `data` to `path` durably (temporary file, fsync, rename, fsync dir).
pub(crate) fn write(path: &Path, data: &JournalData) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fail(Step::JournalDir, dir)?;
    fs::create_dir_all(dir)?;
    fail(Step::JournalCreate, dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".fuzzy-apply-journal-")
        .tempfile_in(dir)?;
    // One write: serde_json writes token by token, unbuffered. Paths in
    // the tree are written relative to it.
    let mut text = serde_json::to_vec_pretty(&data.on_disk()).map_err(io::Error::other)?;
    text.push(b'\n');
    fail(Step::JournalWrite, tmp.path())?;
    tmp.write_all(&text)?;
    fail(Step::JournalSync, tmp.path())?;
    tmp.as_file().sync_all()?;
    fail(Step::JournalRename, path)?;
    tmp.persist(path).map_err(|e| e.error)?;
    sync_dir(dir)
}

/// `fsync` of the directory `dir`, so that a rename or removal in it lasts.
fn sync_dir(dir: &Path) -> io::Result<()> {
    fail(Step::JournalSyncDir, dir)?;
    fs::File::open(dir)?.sync_all()
}

/// Removes the journal: from here on the run counts as finished.
pub(crate) fn remove(path: &Path) -> io::Result<()> {
    fail(Step::JournalRemove, path)?;
    fs::remove_file(path)?;
    sync_dir(path.parent().unwrap_or(Path::new(".")))
}

/// Removes the journal at `path`; true when it is still there afterwards
/// (its removal failed). A failed fsync of its directory after the unlink
/// leaves no journal to name, so a message must not call it kept.
pub(crate) fn remove_or_kept(path: &Path) -> bool {
    remove(path).is_err() && fs::symlink_metadata(path).is_ok()
}

/// The last 20 bytes of the index file (its SHA-1 trailer), as hex; `None`
/// when there is no index yet.
pub(crate) fn index_checksum(index: &Path) -> Option<String> {
    let bytes = fs::read(index).ok()?;
    let tail = bytes.get(bytes.len().checked_sub(20)?..)?;
    Some(tail.iter().map(|b| format!("{b:02x}")).collect())
}

mod recovery;
mod trust;

pub(crate) use recovery::{clean_up, recover, roll_back};
pub(crate) use trust::pending;

#[cfg(test)]
mod tests;
