//! Progress of a long run, reported to an observer.
//!
//! A run ([`run_with_progress`](crate::invocation::run_with_progress)) tells
//! a [`Progress`] which [`Stage`] starts, how much work it holds (a
//! [`Workload`]), and when each file is done. The default observer,
//! [`NoProgress`], does nothing, so the core stays free of terminal output;
//! the command passes a [`TerminalProgress`], which draws a bar on standard
//! error only for a run over 50 files or 64 MiB, with standard error a
//! terminal, and neither `-q` nor `--json`.
//!
//! ```
//! use git_fuzzy_apply::invocation::{run_with_progress, Invocation};
//! use git_fuzzy_apply::progress::{Progress, Stage, Workload};
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

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::Mutex;
use std::time::Duration;

/// From this many files on, a run is long enough for a progress bar.
const MANY_FILES: u64 = 50;
/// From this many bytes of targets on (64 MiB), a run is long enough for a
/// progress bar, whatever the number of files.
const LARGE_BYTES: u64 = 64 << 20;

/// The stage of a run that is starting.
///
/// ```
/// use git_fuzzy_apply::progress::{Progress, Stage, Workload};
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
/// let inv = git_fuzzy_apply::invocation::Invocation::default();
/// git_fuzzy_apply::invocation::run_with_progress(dir.path(), patch, &inv, &stages).unwrap();
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
    /// use git_fuzzy_apply::progress::Stage;
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
/// use git_fuzzy_apply::progress::{Progress, Stage, Workload};
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
/// let check = git_fuzzy_apply::invocation::Invocation { dry_run: true, ..Default::default() };
/// git_fuzzy_apply::invocation::run_with_progress(dir.path(), patch, &check, &sizes).unwrap();
/// assert_eq!(*sizes.0.lock().unwrap(), Some(Workload { files: 1, bytes: 6 }));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Workload {
    /// Number of files.
    pub files: u64,
    /// Total size of the files, in bytes, as far as known.
    pub bytes: u64,
}

/// Where the command's output goes, as far as a progress bar cares.
///
/// ```
/// use git_fuzzy_apply::progress::{Progress, Terminal, TerminalProgress};
///
/// let tty = Terminal { stderr_is_tty: true, quiet: false, json: false };
/// assert!(TerminalProgress::new(tty).is_active());
/// // `--json` output is for a program: no bar.
/// assert!(!TerminalProgress::new(Terminal { json: true, ..tty }).is_active());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Terminal {
    /// Standard error is a terminal.
    pub stderr_is_tty: bool,
    /// `-q`: print nothing but errors.
    pub quiet: bool,
    /// `--json`: output is for a program.
    pub json: bool,
}

/// True when a run of this size, with output going there, gets a progress
/// bar: standard error is a terminal, neither `-q` nor `--json` was given,
/// and the run has at least [`MANY_FILES`] files or [`LARGE_BYTES`] bytes.
fn should_show(workload: Workload, terminal: Terminal) -> bool {
    terminal.stderr_is_tty
        && !terminal.quiet
        && !terminal.json
        && (workload.files >= MANY_FILES || workload.bytes >= LARGE_BYTES)
}

/// Observer of a run's progress. Every method has a default that does
/// nothing.
///
/// ```
/// use git_fuzzy_apply::progress::Progress;
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
/// let inv = git_fuzzy_apply::invocation::Invocation::default();
/// git_fuzzy_apply::invocation::run_with_progress(dir.path(), patch, &inv, &files).unwrap();
/// // Two files planned, then two written.
/// assert_eq!(files.0.load(Ordering::Relaxed), 4);
/// ```
pub trait Progress: Sync {
    /// True when the observer may show something. When false, the run
    /// skips measuring its workload (one `stat` per target).
    ///
    /// ```
    /// use git_fuzzy_apply::progress::{NoProgress, Progress};
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
    /// use git_fuzzy_apply::progress::{Progress, Stage, Workload};
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
    /// let inv = git_fuzzy_apply::invocation::Invocation::default();
    /// git_fuzzy_apply::invocation::run_with_progress(dir.path(), patch, &inv, &log).unwrap();
    /// assert_eq!(*log.0.lock().unwrap(), "planning 1;writing 1;");
    /// ```
    fn start(&self, _stage: Stage, _workload: Workload) {}

    /// One file of the current stage is done.
    ///
    /// ```
    /// use git_fuzzy_apply::progress::Progress;
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
    /// let check = git_fuzzy_apply::invocation::Invocation { dry_run: true, ..Default::default() };
    /// git_fuzzy_apply::invocation::run_with_progress(dir.path(), patch, &check, &done).unwrap();
    /// assert_eq!(*done.0.lock().unwrap(), ["a.txt"]);
    /// ```
    fn file_done(&self, _path: &str) {}
}

/// The observer that does nothing (the library's default).
///
/// ```
/// use git_fuzzy_apply::invocation::{run, run_with_progress, Invocation};
/// use git_fuzzy_apply::progress::NoProgress;
///
/// let dir = tempfile::tempdir().unwrap();
/// let patch = b"--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+a\n";
/// let check = Invocation { dry_run: true, ..Invocation::default() };
/// // `run` is `run_with_progress` with `NoProgress`.
/// let quiet = run_with_progress(dir.path(), patch, &check, &NoProgress).unwrap();
/// assert_eq!(quiet.report.ok, run(dir.path(), patch, &check).unwrap().report.ok);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {}

/// A progress bar on standard error, drawn only when the first stage's
/// workload is large (50 files or 64 MiB), standard error is a terminal and
/// neither `quiet` nor `json` is set; later stages follow that decision.
/// [`clear`](TerminalProgress::clear) it before printing the report.
///
/// ```
/// use git_fuzzy_apply::invocation::{run_with_progress, Invocation};
/// use git_fuzzy_apply::progress::{Terminal, TerminalProgress};
///
/// let dir = tempfile::tempdir().unwrap();
/// let patch = b"--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+a\n";
/// let terminal = Terminal { stderr_is_tty: false, quiet: false, json: false };
/// let progress = TerminalProgress::new(terminal);
/// let outcome = run_with_progress(dir.path(), patch, &Invocation::default(), &progress);
/// progress.clear();
/// assert!(outcome.unwrap().written);
/// ```
#[derive(Debug)]
pub struct TerminalProgress {
    terminal: Terminal,
    bar: ProgressBar,
    /// Decided at the first stage: `Some(true)` once the bar is shown.
    shown: Mutex<Option<bool>>,
}

impl TerminalProgress {
    /// A bar for output going to `terminal`; hidden until a stage starts.
    ///
    /// ```
    /// use git_fuzzy_apply::progress::{Progress, Terminal, TerminalProgress};
    ///
    /// let quiet = Terminal { stderr_is_tty: true, quiet: true, json: false };
    /// assert!(!TerminalProgress::new(quiet).is_active());
    /// ```
    pub fn new(terminal: Terminal) -> Self {
        TerminalProgress {
            terminal,
            bar: ProgressBar::hidden(),
            shown: Mutex::new(None),
        }
    }

    /// Removes the bar from the terminal.
    ///
    /// ```
    /// use git_fuzzy_apply::progress::{Progress, Stage, Terminal, TerminalProgress, Workload};
    ///
    /// let piped = Terminal { stderr_is_tty: false, quiet: false, json: false };
    /// let progress = TerminalProgress::new(piped);
    /// progress.start(Stage::Planning, Workload { files: 500, bytes: 0 });
    /// progress.clear();
    /// assert!(!progress.is_active());
    /// ```
    pub fn clear(&self) {
        self.bar.finish_and_clear();
    }
}

impl Drop for TerminalProgress {
    fn drop(&mut self) {
        self.clear();
    }
}

impl TerminalProgress {
    fn decided(&self) -> std::sync::MutexGuard<'_, Option<bool>> {
        self.shown
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Progress for TerminalProgress {
    fn is_active(&self) -> bool {
        self.terminal.stderr_is_tty && !self.terminal.quiet && !self.terminal.json
    }

    fn start(&self, stage: Stage, workload: Workload) {
        let mut decided = self.decided();
        let first = decided.is_none();
        let shown = *decided.get_or_insert(should_show(workload, self.terminal));
        drop(decided);
        if !shown {
            return;
        }
        self.bar.set_prefix(stage.label());
        self.bar.set_length(workload.files);
        self.bar.set_position(0);
        if first {
            if let Ok(style) = ProgressStyle::with_template(
                "{spinner} {prefix:>8} [{bar:30}] {pos}/{len} files {elapsed} {wide_msg}",
            ) {
                self.bar.set_style(style.progress_chars("=> "));
            }
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.bar.enable_steady_tick(Duration::from_millis(120));
        }
    }

    fn file_done(&self, path: &str) {
        if *self.decided() == Some(true) {
            self.bar.set_message(path.to_string());
            self.bar.inc(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TTY: Terminal = Terminal {
        stderr_is_tty: true,
        quiet: false,
        json: false,
    };

    fn work(files: u64, bytes: u64) -> Workload {
        Workload { files, bytes }
    }

    #[test]
    fn many_files_or_large_files_on_a_terminal_show_the_bar() {
        assert!(should_show(work(MANY_FILES, 0), TTY));
        assert!(should_show(work(10_000, 1), TTY));
        assert!(should_show(work(1, LARGE_BYTES), TTY));
        assert!(should_show(work(2, 1 << 30), TTY));
    }

    #[test]
    fn small_runs_show_nothing() {
        assert!(!should_show(work(0, 0), TTY));
        assert!(!should_show(work(MANY_FILES - 1, LARGE_BYTES - 1), TTY));
    }

    #[test]
    fn quiet_json_or_no_terminal_never_show_it() {
        let big = work(100_000, 1 << 34);
        for terminal in [
            Terminal { quiet: true, ..TTY },
            Terminal { json: true, ..TTY },
            Terminal {
                stderr_is_tty: false,
                ..TTY
            },
            Terminal {
                stderr_is_tty: false,
                quiet: true,
                json: true,
            },
        ] {
            assert!(!should_show(big, terminal), "{terminal:?}");
        }
    }

    #[test]
    fn the_terminal_observer_is_inactive_where_it_would_never_show() {
        assert!(TerminalProgress::new(TTY).is_active());
        let quiet = TerminalProgress::new(Terminal { quiet: true, ..TTY });
        assert!(!quiet.is_active());
        assert!(!NoProgress.is_active());
    }

    #[test]
    fn the_first_stage_decides_and_a_small_run_stays_hidden() {
        let progress = TerminalProgress::new(TTY);
        progress.start(Stage::Planning, work(2, 10));
        progress.file_done("a");
        progress.start(Stage::Writing, work(500, 10));
        assert_eq!(*progress.decided(), Some(false));
        assert!(progress.bar.is_hidden());
    }
}
