//! Faults injected from inside the process, for a program that runs the
//! library many times in one process (the fuzz target `cli_git`), where the
//! environment, read once, cannot change between runs. Only with the
//! `test-hooks` feature. The setting is the whole process's: the library's
//! threads share it, so a program that wants the `N`th step to be the same
//! step each time runs with one rayon thread.
//!
//! ```
//! use git_fuzzy_apply::in_process::{self, Faults};
//! use git_fuzzy_apply::{run, Invocation};
//!
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
//! let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n-one\n+two\n";
//! // The disk fails at the first write step (taking the run lock).
//! in_process::program(Faults::At(1));
//! assert!(run(dir.path(), patch, &Invocation::default()).is_err());
//! assert_eq!(in_process::failed_steps()[0].0, "run lock create");
//! in_process::release();
//! assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).unwrap(), "one\n");
//! ```

use super::on::{FAILED, Failing, PROGRAMMED, STEPS};
use std::path::PathBuf;
use std::sync::atomic::Ordering;

/// Which write steps fail, counted from the last [`program`].
///
/// ```
/// use git_fuzzy_apply::in_process::{self, Faults};
/// use git_fuzzy_apply::{run, Invocation};
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
/// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n-one\n+two\n";
/// // A disk that stays full from the second step on: the run fails and
/// // writes nothing.
/// in_process::program(Faults::From(2));
/// assert!(run(dir.path(), patch, &Invocation::default()).is_err());
/// assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).unwrap(), "one\n");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Faults {
    /// None: the steps are only counted.
    None,
    /// Only the `N`th (from 1): a disk full for one step.
    At(usize),
    /// The `N`th and every later one: a disk that stays full, so that
    /// undoing fails too.
    From(usize),
}

/// Sets which write steps fail from now on, in place of
/// `GIT_FUZZY_APPLY_TEST_FAIL_AT`, and starts counting the steps (and the
/// failed ones) afresh.
///
/// ```
/// use git_fuzzy_apply::in_process::{self, Faults};
/// use git_fuzzy_apply::{run, Invocation};
///
/// let dir = tempfile::tempdir().unwrap();
/// in_process::program(Faults::At(1));
/// // Even a run with nothing to write takes the run lock: it fails.
/// assert!(run(dir.path(), b"", &Invocation::default()).is_err());
/// assert_eq!(in_process::failed_steps().len(), 1);
/// ```
pub fn program(faults: Faults) {
    let mut programmed = PROGRAMMED.lock().unwrap_or_else(|e| e.into_inner());
    *programmed = Some(match faults {
        Faults::None => None,
        Faults::At(n) => Some(Failing::At(n)),
        Faults::From(n) => Some(Failing::From(n)),
    });
    STEPS.store(0, Ordering::SeqCst);
    FAILED.lock().unwrap_or_else(|e| e.into_inner()).clear();
}

/// Ends what [`program`] set: the environment decides again.
///
/// ```
/// use git_fuzzy_apply::in_process::{self, Faults};
/// use git_fuzzy_apply::{run, Invocation};
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
/// in_process::program(Faults::From(1));
/// in_process::release();
/// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n-one\n+two\n";
/// assert!(run(dir.path(), patch, &Invocation::default()).unwrap().written);
/// ```
pub fn release() {
    *PROGRAMMED.lock().unwrap_or_else(|e| e.into_inner()) = None;
}

/// The write steps passed (failed or not) since the last [`program`].
///
/// ```
/// use git_fuzzy_apply::in_process::{self, Faults};
/// use git_fuzzy_apply::{run, Invocation};
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
/// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n-one\n+two\n";
/// in_process::program(Faults::None);
/// assert!(run(dir.path(), patch, &Invocation::default()).unwrap().written);
/// // The run lock, the journal, the staged file, the backup, the rename...
/// assert!(in_process::write_steps() > 10);
/// assert!(in_process::failed_steps().is_empty());
/// ```
pub fn write_steps() -> usize {
    STEPS.load(Ordering::SeqCst)
}

/// The steps failed since the last [`program`]: each one's name (as
/// `tests/it/faults/sweep.rs` lists them) and path. Nothing is printed
/// when a programmed step fails.
///
/// ```
/// use git_fuzzy_apply::in_process::{self, Faults};
/// use git_fuzzy_apply::{run, Invocation};
///
/// let dir = tempfile::tempdir().unwrap();
/// in_process::program(Faults::At(1));
/// let _ = run(dir.path(), b"", &Invocation::default());
/// let (name, path) = &in_process::failed_steps()[0];
/// assert_eq!((*name, path), ("run lock create", &dir.path().join(".git-fuzzy-apply.lock")));
/// ```
pub fn failed_steps() -> Vec<(&'static str, PathBuf)> {
    FAILED.lock().unwrap_or_else(|e| e.into_inner()).clone()
}
