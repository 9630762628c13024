//! Opening the tree a run works in: find the repository (if any), where its
//! journal and run lock live, and take the locks after recovering what a
//! killed run left.

use super::{Destination, Invocation, Recovery, RunError};
use crate::git::Repo;
use crate::journal::{self, Expected, JournalSpec};
use crate::lock::RunLock;
use std::path::{Path, PathBuf};

/// The repository containing `cwd`, if any, and the top of the tree: its
/// working tree, or `cwd` itself outside a repository.
pub(super) fn find_tree(cwd: &Path) -> (Option<Repo>, PathBuf) {
    let repo = Repo::discover(cwd);
    let root = repo
        .as_ref()
        .map_or_else(|| cwd.to_path_buf(), |r| r.workdir().to_path_buf());
    (repo, root)
}

/// Where the journal and the run lock of a run in `root` live.
pub(super) fn journal_spec(
    repo: Option<&Repo>,
    root: &Path,
    destination: Destination,
) -> (JournalSpec, PathBuf) {
    match repo {
        Some(r) => {
            let dir = r.git_dir().join("fuzzy-apply");
            let spec = JournalSpec {
                path: dir.join("journal"),
                index: (destination == Destination::Index).then(|| r.index_path()),
            };
            (spec, dir.join("lock"))
        }
        None => {
            let spec = JournalSpec {
                path: root.join(".git-fuzzy-apply.journal"),
                index: None,
            };
            (spec, root.join(".git-fuzzy-apply.lock"))
        }
    }
}

/// What recovery may trust in the tree `root` (whose repository, if any,
/// has the index file `index`).
pub(super) fn expected<'a>(root: &'a Path, index: &'a Option<PathBuf>) -> Expected<'a> {
    Expected {
        root,
        index: index.as_deref(),
    }
}

/// Takes the run lock, then puts right what a run that died left: its
/// `index.lock` (only if it is still the very file that run created) and
/// its journal.
pub(super) fn lock_and_recover(
    repo: Option<&Repo>,
    root: &Path,
    spec: &JournalSpec,
    lock_path: &Path,
) -> Result<(RunLock, Option<Recovery>), RunError> {
    let run_lock = RunLock::acquire(lock_path)?;
    crate::test_hooks::checkpoint("run locked");
    let index = repo.map(Repo::index_path);
    // The journal first: while the dead run's `index.lock` stays, nobody
    // rewrites the index, whose checksum tells recovery whether that run
    // committed (should recovery stop half way, the next one must read
    // the same answer).
    let recovered = journal::recover(&spec.path, expected(root, &index))?;
    let mut removed = None;
    if let Some(index) = &index {
        let lock = index.with_extension("lock");
        match run_lock.remove_index_lock_left_by_dead_run(&lock) {
            Ok(true) => removed = Some(Recovery::LockRemoved { lock }),
            Ok(false) => {}
            Err(e) => return Err(RunError::Io(stale_lock_error(&lock, recovered.as_ref(), e))),
        }
    }
    Ok((run_lock, recovered.or(removed)))
}

/// A dead run's `index.lock` that could not be removed: named, with what
/// was recovered before, and who removes it (the run lock keeps its record).
fn stale_lock_error(
    lock: &Path,
    recovered: Option<&Recovery>,
    e: std::io::Error,
) -> std::io::Error {
    let before = recovered.map(|r| format!("{r}\n")).unwrap_or_default();
    std::io::Error::new(
        e.kind(),
        format!(
            "{before}{}: this lock file, which an interrupted earlier run left, could not be removed: {e}; the next run, or `git fuzzy-apply --recover`, removes it",
            lock.display()
        ),
    )
}

/// The locks a run holds, and what it recovered on taking them. A run that
/// must not write takes none and only reports a journal waiting.
pub(super) struct Held {
    pub(super) run: Option<RunLock>,
    pub(super) index: Option<crate::git::IndexLock>,
    pub(super) recovered: Option<Recovery>,
}

/// Takes the run lock (and `index.lock` when the index is written), after
/// recovering what a dead run left.
pub(super) fn take_locks(
    repo: Option<&Repo>,
    root: &Path,
    spec: &JournalSpec,
    lock_path: &Path,
    inv: &Invocation,
) -> Result<Held, RunError> {
    if inv.dry_run {
        let index = repo.map(Repo::index_path);
        let recovered = if crate::lock::held_by_live_run(lock_path) {
            None
        } else {
            journal::pending(&spec.path, expected(root, &index))
        };
        return Ok(Held {
            run: None,
            index: None,
            recovered,
        });
    }
    let (mut run, recovered) = lock_and_recover(repo, root, spec, lock_path)?;
    let index = match (repo, inv.destination) {
        (Some(r), Destination::Index | Destination::Cached) => {
            let lock = r.lock_index()?;
            run.note_index_lock(lock.path())?;
            Some(lock)
        }
        _ => None,
    };
    Ok(Held {
        run: Some(run),
        index,
        recovered,
    })
}
