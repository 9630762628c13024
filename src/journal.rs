//! The commit journal: what a run is about to do to the working tree,
//! written before the first file is replaced, so that a run killed between
//! two renames can be put right by the next one.
//!
//! While a journal exists, every replaced or deleted file still has a backup
//! (a hard link) and every new content its staged temporary file. Recovery
//! rolls the tree *back* to the state before the run (restore backups, remove
//! added files), unless the run had already committed the index, in which
//! case it rolls *forward* (the working tree was complete before the index
//! was written; only backups remain to delete). Either way the tree and the
//! index end up entirely before or entirely after the run.
//!
//! The journal lives in `.git/fuzzy-apply/journal` in a repository, and in
//! `.git-fuzzy-apply.journal` at the top of the tree outside one. Writes of
//! the journal itself go through a temporary file, `fsync` and a rename.

use serde::{Deserialize, Serialize};
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The journal format's version.
pub const VERSION: u32 = 1;

/// One file the run replaces, adds or deletes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalEntry {
    /// The file in the working tree.
    pub target: PathBuf,
    /// The new content, staged beside the target; `None` for a deletion.
    pub staged: Option<PathBuf>,
    /// A hard link to the original; `None` for an added file.
    pub backup: Option<PathBuf>,
}

/// Everything needed to undo or finish an interrupted run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalData {
    /// Format version.
    pub version: u32,
    /// The run's process id (a live process means a run still going).
    pub pid: u32,
    /// The lock file the run held, removed by recovery.
    pub lock: Option<PathBuf>,
    /// The index file and its trailing checksum (hex) when the run took its
    /// lock, when the run also writes the index; a different checksum at
    /// recovery means the index was committed.
    pub index: Option<(PathBuf, String)>,
    /// The files. They are replaced on every core, in no set order; each
    /// entry's names alone say how far it got.
    pub entries: Vec<JournalEntry>,
    /// Directories the run created, outermost first.
    pub created_dirs: Vec<PathBuf>,
    /// The top of the tree: directories emptied by deletions are removed up
    /// to it, never it or anything above.
    pub root: PathBuf,
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

/// Where a run keeps its journal and what it must record beyond the files.
#[derive(Debug, Clone, Default)]
pub struct JournalSpec {
    /// The journal file.
    pub path: PathBuf,
    /// The lock file held during the run.
    pub lock: Option<PathBuf>,
    /// The index file, when the run stages its results.
    pub index: Option<PathBuf>,
}

/// What recovery did.
///
/// ```
/// use git_fuzzy_apply::invocation::{recover, Recovery};
///
/// // An earlier run killed while writing is finished or undone first.
/// let done = Recovery::RolledBack { files: 2 };
/// assert!(done.to_string().starts_with("an interrupted earlier run was undone"));
/// let dir = tempfile::tempdir().unwrap();
/// assert_eq!(recover(dir.path()).unwrap(), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recovery {
    /// The interrupted run's changes were undone.
    RolledBack {
        /// Files restored or removed.
        files: usize,
    },
    /// The interrupted run had committed the index; its last clean-up was finished.
    RolledForward {
        /// Files whose clean-up was finished.
        files: usize,
    },
}

impl std::fmt::Display for Recovery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Recovery::RolledBack { files } => write!(
                f,
                "an interrupted earlier run was undone: {files} file(s) put back as they were"
            ),
            Recovery::RolledForward { files } => write!(
                f,
                "an interrupted earlier run had finished writing; its clean-up was completed ({files} file(s))"
            ),
        }
    }
}

/// Why recovery could not run.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// Another run is still going.
    #[error(
        "{path}: another git-fuzzy-apply (pid {pid}) is working on this tree; wait for it to finish"
    )]
    Busy {
        /// The journal or lock file.
        path: PathBuf,
        /// Its process id.
        pid: u32,
    },
    /// A lock file whose owner cannot be told.
    #[error(
        "{0}: another git-fuzzy-apply seems to be working on this tree; if none is, remove the lock file and retry"
    )]
    Locked(PathBuf),
    /// The journal cannot be read or acted on.
    #[error(
        "{path}: an interrupted run left this journal and it could not be recovered ({message}); restore the files it lists by hand, then delete it"
    )]
    Unrecoverable {
        /// The journal.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

/// The lock a run holds on a tree outside a repository (inside one,
/// `index.lock` plays this part). Removed when dropped.
#[derive(Debug)]
pub struct TreeLock {
    path: PathBuf,
}

impl TreeLock {
    /// Creates the lock file `path` holding this process's id. A lock left by
    /// a process that no longer runs is taken over.
    pub fn acquire(path: &Path) -> Result<TreeLock, JournalError> {
        for _ in 0..2 {
            match fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(path)
            {
                Ok(mut file) => {
                    let _ = write!(file, "{}", std::process::id());
                    return Ok(TreeLock {
                        path: path.to_path_buf(),
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    let holder = fs::read_to_string(path)
                        .ok()
                        .and_then(|t| t.trim().parse::<u32>().ok());
                    match holder {
                        Some(pid) if !running(pid) => {
                            let _ = fs::remove_file(path);
                        }
                        Some(pid) => {
                            return Err(JournalError::Busy {
                                path: path.to_path_buf(),
                                pid,
                            });
                        }
                        None => break,
                    }
                }
                Err(e) => return Err(unrecoverable(path, e.to_string())),
            }
        }
        Err(JournalError::Locked(path.to_path_buf()))
    }
}

impl Drop for TreeLock {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// Writes `data` to `path` durably (temporary file, fsync, rename, fsync dir).
pub fn write(path: &Path, data: &JournalData) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".fuzzy-apply-journal-")
        .tempfile_in(dir)?;
    // One write: serde_json writes token by token, unbuffered.
    let mut text = serde_json::to_vec_pretty(data).map_err(io::Error::other)?;
    text.push(b'\n');
    tmp.write_all(&text)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    fs::File::open(dir)?.sync_all()
}

/// Removes the journal: from here on the run counts as finished.
pub fn remove(path: &Path) -> io::Result<()> {
    fs::remove_file(path)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::File::open(dir)?.sync_all()
}

/// The last 20 bytes of the index file (its SHA-1 trailer), as hex; `None`
/// when there is no index yet.
pub fn index_checksum(index: &Path) -> Option<String> {
    let bytes = fs::read(index).ok()?;
    let tail = bytes.get(bytes.len().checked_sub(20)?..)?;
    Some(tail.iter().map(|b| format!("{b:02x}")).collect())
}

/// True when process `pid` is alive (and is not this process).
fn running(pid: u32) -> bool {
    pid != std::process::id() && Path::new("/proc").join(pid.to_string()).exists()
}

/// Finishes or undoes the run recorded in the journal at `path`, if any.
pub fn recover(path: &Path) -> Result<Option<Recovery>, JournalError> {
    let text = match fs::read(path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(unrecoverable(path, e.to_string())),
    };
    let data: JournalData =
        serde_json::from_slice(&text).map_err(|e| unrecoverable(path, e.to_string()))?;
    if data.version != VERSION {
        return Err(unrecoverable(
            path,
            format!("journal version {} is not {VERSION}", data.version),
        ));
    }
    if running(data.pid) {
        return Err(JournalError::Busy {
            path: path.to_path_buf(),
            pid: data.pid,
        });
    }
    let committed = !data.rolling_back
        && (data.committed
            || data
                .index
                .as_ref()
                .is_some_and(|(index, sum)| index_checksum(index).unwrap_or_default() != *sum));
    let outcome = if committed {
        roll_forward(&data)
    } else {
        roll_back(&data)
    }
    .map_err(|e| unrecoverable(path, e.to_string()))?;
    if let Some(lock) = &data.lock {
        remove_if_present(lock).map_err(|e| unrecoverable(path, e.to_string()))?;
    }
    remove(path).map_err(|e| unrecoverable(path, e.to_string()))?;
    Ok(Some(outcome))
}

fn unrecoverable(path: &Path, message: String) -> JournalError {
    JournalError::Unrecoverable {
        path: path.to_path_buf(),
        message,
    }
}

fn remove_if_present(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Puts every file back as it was before the run. Every step is attempted
/// even when one fails (so one unwritable directory does not keep the others
/// from being restored); the first error is returned.
pub fn roll_back(data: &JournalData) -> io::Result<Recovery> {
    let mut first_error = None;
    let mut note = |result: io::Result<()>| {
        if let Err(e) = result {
            first_error.get_or_insert(e);
        }
    };
    for entry in data.entries.iter().rev() {
        match &entry.backup {
            // The backup is the original: renaming it over the target
            // restores it whether or not the target was replaced. (Renaming
            // a hard link onto its own file does nothing, so the backup is
            // removed explicitly afterwards.)
            Some(backup) if backup.exists() => {
                note(fs::rename(backup, &entry.target));
                note(remove_if_present(backup));
            }
            Some(_) => {}
            // An added file: present only if its staged file was renamed.
            None => {
                if entry.staged.as_ref().is_some_and(|s| !s.exists()) {
                    note(remove_if_present(&entry.target));
                }
            }
        }
        if let Some(staged) = entry.staged.as_ref().filter(|s| s.exists()) {
            note(remove_if_present(staged));
        }
    }
    for dir in data.created_dirs.iter().rev() {
        let _ = fs::remove_dir(dir);
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(Recovery::RolledBack {
            files: data.entries.len(),
        }),
    }
}

/// Completes a run that was committed: every new file is in place and
/// deletions are done; only backups and emptied directories remain.
fn roll_forward(data: &JournalData) -> io::Result<Recovery> {
    for entry in &data.entries {
        match &entry.staged {
            Some(staged) if staged.exists() => fs::rename(staged, &entry.target)?,
            Some(_) => {}
            None => remove_if_present(&entry.target)?,
        }
    }
    clean_up(data)?;
    Ok(Recovery::RolledForward {
        files: data.entries.len(),
    })
}

/// The last step of a committed run: removes the backups, then the
/// directories deletions left empty.
pub fn clean_up(data: &JournalData) -> io::Result<()> {
    {
        use rayon::prelude::*;
        data.entries
            .par_iter()
            .filter_map(|e| e.backup.as_ref())
            .try_for_each(|backup| remove_if_present(backup))?;
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
        if !d.starts_with(root) || d == root || fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
}

/// Test hook: `GIT_FUZZY_APPLY_TEST_EXIT_AT=N` ends the process at once (no
/// destructors, no clean-up, as a `kill -9` would) at the `N`th step of a
/// commit, so tests can interrupt a run at every step and check recovery.
pub fn checkpoint(step: &str) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static STEP: AtomicUsize = AtomicUsize::new(0);
    let Some(at) = std::env::var("GIT_FUZZY_APPLY_TEST_EXIT_AT")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    else {
        return;
    };
    if STEP.fetch_add(1, Ordering::SeqCst) + 1 == at {
        eprintln!("git-fuzzy-apply: test exit at step {at} ({step})");
        std::process::exit(137);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(dir: &Path, name: &str, staged: bool, backup: bool) -> JournalEntry {
        JournalEntry {
            target: dir.join(name),
            staged: staged.then(|| dir.join(format!(".{name}.staged"))),
            backup: backup.then(|| dir.join(format!(".{name}.backup"))),
        }
    }

    #[test]
    fn rolling_back_a_half_done_run_restores_everything() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        // a.txt replaced already (backup holds the original), b.txt not yet
        // (staged file still there), c.txt added already, gone.txt deleted.
        fs::write(d.join("a.txt"), "new a").unwrap();
        fs::write(d.join(".a.txt.backup"), "old a").unwrap();
        fs::write(d.join("b.txt"), "old b").unwrap();
        fs::hard_link(d.join("b.txt"), d.join(".b.txt.backup")).unwrap();
        fs::write(d.join(".b.txt.staged"), "new b").unwrap();
        fs::write(d.join("c.txt"), "new c").unwrap();
        fs::write(d.join(".gone.txt.backup"), "gone").unwrap();
        let data = JournalData {
            version: VERSION,
            pid: u32::MAX,
            lock: None,
            index: None,
            entries: vec![
                entry(d, "a.txt", true, true),
                entry(d, "b.txt", true, true),
                entry(d, "c.txt", true, false),
                entry(d, "gone.txt", false, true),
            ],
            created_dirs: vec![],
            root: d.to_path_buf(),
            committed: false,
            rolling_back: false,
        };
        let journal = d.join("journal");
        write(&journal, &data).unwrap();
        assert_eq!(
            recover(&journal).unwrap(),
            Some(Recovery::RolledBack { files: 4 })
        );
        let mut names: Vec<String> = fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["a.txt", "b.txt", "gone.txt"]);
        assert_eq!(fs::read(d.join("a.txt")).unwrap(), b"old a");
        assert_eq!(fs::read(d.join("b.txt")).unwrap(), b"old b");
        assert_eq!(fs::read(d.join("gone.txt")).unwrap(), b"gone");
    }

    /// A killed `--index` run in `d`: `a.txt` replaced (its backup holds the
    /// original), the index changed since the run began, a stale lock.
    fn run_with_changed_index(d: &Path, rolling_back: bool) -> PathBuf {
        fs::write(d.join("index"), [7u8; 40]).unwrap();
        let before = index_checksum(&d.join("index")).unwrap();
        fs::write(d.join("index"), [8u8; 40]).unwrap();
        fs::write(d.join("a.txt"), "new a").unwrap();
        fs::write(d.join(".a.txt.backup"), "old a").unwrap();
        fs::write(d.join("index.lock"), "stale").unwrap();
        let data = JournalData {
            version: VERSION,
            pid: u32::MAX,
            lock: Some(d.join("index.lock")),
            index: Some((d.join("index"), before)),
            entries: vec![entry(d, "a.txt", true, true)],
            created_dirs: vec![],
            root: d.to_path_buf(),
            committed: false,
            rolling_back,
        };
        let journal = d.join("journal");
        write(&journal, &data).unwrap();
        journal
    }

    #[test]
    fn a_changed_index_checksum_rolls_forward() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let journal = run_with_changed_index(d, false);
        assert_eq!(
            recover(&journal).unwrap(),
            Some(Recovery::RolledForward { files: 1 })
        );
        assert_eq!(fs::read(d.join("a.txt")).unwrap(), b"new a");
        assert!(!d.join(".a.txt.backup").exists());
        assert!(!d.join("index.lock").exists());
        assert!(!journal.exists());
    }

    #[test]
    fn a_run_that_was_rolling_back_is_rolled_back_even_if_the_index_changed() {
        // The run failed and began undoing itself; then someone rewrote the
        // index (`git status`). Recovery must finish the undoing.
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let journal = run_with_changed_index(d, true);
        assert_eq!(
            recover(&journal).unwrap(),
            Some(Recovery::RolledBack { files: 1 })
        );
        assert_eq!(fs::read(d.join("a.txt")).unwrap(), b"old a");
    }

    #[test]
    fn a_journal_of_a_live_process_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let journal = dir.path().join("journal");
        // pid 1 is always running.
        let data = JournalData {
            version: VERSION,
            pid: 1,
            lock: None,
            index: None,
            entries: vec![],
            created_dirs: vec![],
            root: dir.path().to_path_buf(),
            committed: false,
            rolling_back: false,
        };
        write(&journal, &data).unwrap();
        assert!(matches!(
            recover(&journal),
            Err(JournalError::Busy { pid: 1, .. })
        ));
        assert!(journal.exists());
    }

    #[test]
    fn a_garbled_journal_is_reported_not_guessed_at() {
        let dir = tempfile::tempdir().unwrap();
        let journal = dir.path().join("journal");
        fs::write(&journal, "{ not json").unwrap();
        let err = recover(&journal).unwrap_err().to_string();
        assert!(err.contains("by hand"), "{err}");
        assert!(journal.exists());
    }
}
