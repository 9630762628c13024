//! Progress of a long run, reported to an observer.
//!
//! A run ([`run_with_progress`](crate::run::run_with_progress)) tells
//! a [`Progress`] which [`Stage`] starts, how much work it holds (a
//! [`Workload`]), and when each file is done. The default observer,
//! [`NoProgress`], does nothing, so the core stays free of terminal output;
//! the command (the binary, `src/cli/terminal.rs`) passes a progress bar that it
//! draws on standard error only for a run over 50 files or 64 MiB, with
//! standard error a terminal, and neither `-q` nor `--json`. The library
//! knows nothing of terminals or of `indicatif`.
//!
//! ```
//! use git_fuzzy_apply::{run_with_progress, Invocation};
//! use git_fuzzy_apply::{Progress, Stage, Workload};
//! use std::sync::Mutex;
//!
//! /// Counts the files each stage finished.
//! #[derive(Default)]
//! struct Count(Mutex<Vec<(Stage, u64)>>);
//! impl Progress for Count {
//!     fn is_active(&self) -> bool {
//!         true
//!     }
//!     fn start(&self, stage: Stage, _: Workload) {
//!         self.0.lock().unwrap().push((stage, 0));
//!     }
//!     fn file_done(&self, _path: &str) {
//!         self.0.lock().unwrap().last_mut().unwrap().1 += 1;
//!     }
//! }
//!
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
//! let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n-a\n+b\n";
//! let count = Count::default();
//! run_with_progress(dir.path(), patch, &Invocation::default(), &count).unwrap();
//! assert_eq!(*count.0.lock().unwrap(), [(Stage::Planning, 1), (Stage::Writing, 1)]);
//! ```

/// The stage of a run that is starting.
///
/// ```
/// use git_fuzzy_apply::{Progress, Stage, Workload};
/// use std::sync::Mutex;
///
/// struct Stages(Mutex<Vec<Stage>>);
/// impl Progress for Stages {
///     fn is_active(&self) -> bool {
///         true
///     }
///     fn start(&self, stage: Stage, _: Workload) {
///         self.0.lock().unwrap().push(stage);
///     }
/// }
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
/// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n-a\n+b\n";
/// let stages = Stages(Mutex::new(Vec::new()));
/// let inv = git_fuzzy_apply::Invocation::default();
/// git_fuzzy_apply::run_with_progress(dir.path(), patch, &inv, &stages).unwrap();
/// assert_eq!(*stages.0.lock().unwrap(), [Stage::Planning, Stage::Writing]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Reading targets and locating every hunk.
    Planning,
    /// Writing the new contents into the working tree.
    Writing,
}

impl Stage {
    /// The word shown beside the bar.
    ///
    /// ```
    /// use git_fuzzy_apply::Stage;
    ///
    /// assert_eq!(Stage::Planning.label(), "planning");
    /// assert_eq!(Stage::Writing.label(), "writing");
    /// ```
    pub fn label(self) -> &'static str {
        match self {
            Stage::Planning => "planning",
            Stage::Writing => "writing",
        }
    }
}

/// How much work a stage holds.
///
/// ```
/// use git_fuzzy_apply::{Progress, Stage, Workload};
/// use std::sync::Mutex;
///
/// /// Keeps the planning workload (asked for only when active).
/// struct Sizes(Mutex<Option<Workload>>);
/// impl Progress for Sizes {
///     fn is_active(&self) -> bool {
///         true
///     }
///     fn start(&self, stage: Stage, workload: Workload) {
///         if stage == Stage::Planning {
///             *self.0.lock().unwrap() = Some(workload);
///         }
///     }
/// }
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "12345\n").unwrap();
/// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n-12345\n+6\n";
/// let sizes = Sizes(Mutex::new(None));
/// let check = git_fuzzy_apply::Invocation::default().with_dry_run(true);
/// git_fuzzy_apply::run_with_progress(dir.path(), patch, &check, &sizes).unwrap();
/// assert_eq!(*sizes.0.lock().unwrap(), Some(Workload { files: 1, bytes: 6 }));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Workload {
    /// Number of files.
    pub files: u64,
    /// Total size of the files, in bytes, as far as known.
    pub bytes: u64,
}

/// Observer of a run's progress. Every method has a default that does
/// nothing.
///
/// ```
/// use git_fuzzy_apply::Progress;
/// use std::sync::atomic::{AtomicUsize, Ordering};
///
/// /// Counts finished files.
/// struct Files(AtomicUsize);
/// impl Progress for Files {
///     fn is_active(&self) -> bool {
///         true
///     }
///     fn file_done(&self, _path: &str) {
///         self.0.fetch_add(1, Ordering::Relaxed);
///     }
/// }
/// let dir = tempfile::tempdir().unwrap();
/// let patch = b"--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+a\n--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+b\n";
/// let files = Files(AtomicUsize::new(0));
/// let inv = git_fuzzy_apply::Invocation::default();
/// git_fuzzy_apply::run_with_progress(dir.path(), patch, &inv, &files).unwrap();
/// // Two files planned, then two written.
/// assert_eq!(files.0.load(Ordering::Relaxed), 4);
/// ```
pub trait Progress: Sync {
    /// True when the observer may show something. When false, the run
    /// skips measuring its workload (one `stat` per target).
    ///
    /// ```
    /// use git_fuzzy_apply::{NoProgress, Progress};
    ///
    /// struct Silent;
    /// impl Progress for Silent {}
    /// assert!(!Silent.is_active() && !NoProgress.is_active());
    /// ```
    fn is_active(&self) -> bool {
        false
    }

    /// A stage starts with this much work.
    ///
    /// ```
    /// use git_fuzzy_apply::{Progress, Stage, Workload};
    /// use std::sync::Mutex;
    ///
    /// struct Log(Mutex<String>);
    /// impl Progress for Log {
    ///     fn is_active(&self) -> bool {
    ///         true
    ///     }
    ///     fn start(&self, stage: Stage, workload: Workload) {
    ///         *self.0.lock().unwrap() += &format!("{} {};", stage.label(), workload.files);
    ///     }
    /// }
    /// let dir = tempfile::tempdir().unwrap();
    /// let patch = b"--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+a\n";
    /// let log = Log(Mutex::new(String::new()));
    /// let inv = git_fuzzy_apply::Invocation::default();
    /// git_fuzzy_apply::run_with_progress(dir.path(), patch, &inv, &log).unwrap();
    /// assert_eq!(*log.0.lock().unwrap(), "planning 1;writing 1;");
    /// ```
    fn start(&self, _stage: Stage, _workload: Workload) {}

    /// One file of the current stage is done.
    ///
    /// ```
    /// use git_fuzzy_apply::Progress;
    /// use std::sync::Mutex;
    ///
    /// struct Done(Mutex<Vec<String>>);
    /// impl Progress for Done {
    ///     fn file_done(&self, path: &str) {
    ///         self.0.lock().unwrap().push(path.to_string());
    ///     }
    /// }
    /// let dir = tempfile::tempdir().unwrap();
    /// let patch = b"--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+a\n";
    /// let done = Done(Mutex::new(Vec::new()));
    /// let check = git_fuzzy_apply::Invocation::default().with_dry_run(true);
    /// git_fuzzy_apply::run_with_progress(dir.path(), patch, &check, &done).unwrap();
    /// assert_eq!(*done.0.lock().unwrap(), ["a.txt"]);
    /// ```
    fn file_done(&self, _path: &str) {}
}

/// The observer that does nothing (the library's default).
///
/// ```
/// use git_fuzzy_apply::{run, run_with_progress, Invocation};
/// use git_fuzzy_apply::NoProgress;
///
/// let dir = tempfile::tempdir().unwrap();
/// let patch = b"--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+a\n";
/// let check = Invocation::default().with_dry_run(true);
/// // `run` is `run_with_progress` with `NoProgress`.
/// let quiet = run_with_progress(dir.path(), patch, &check, &NoProgress).unwrap();
/// assert_eq!(quiet.report.ok, run(dir.path(), patch, &check).unwrap().report.ok);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {}
