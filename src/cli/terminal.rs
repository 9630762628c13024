//! The command's progress bar: a [`Progress`] observer that draws on
//! standard error (`indicatif`), only for a run long enough to need it.
//! Part of the binary, not of the library: the library reports progress to
//! any observer and draws nothing.

use git_fuzzy_apply::{Progress, Stage, Workload};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::Mutex;
use std::time::Duration;

/// From this many files on, a run is long enough for a progress bar.
const MANY_FILES: u64 = 50;
/// From this many bytes of targets on (64 MiB), a run is long enough for a
/// progress bar, whatever the number of files.
const LARGE_BYTES: u64 = 64 << 20;

/// Where the command's output goes, as far as a progress bar cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Terminal {
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

/// A progress bar on standard error, drawn only when the first stage's
/// workload is large (50 files or 64 MiB), standard error is a terminal and
/// neither `quiet` nor `json` is set; later stages follow that decision.
/// [`clear`](TerminalProgress::clear) it before printing the report.
#[derive(Debug)]
pub(crate) struct TerminalProgress {
    terminal: Terminal,
    bar: ProgressBar,
    /// Decided at the first stage: `Some(true)` once the bar is shown.
    shown: Mutex<Option<bool>>,
}

impl TerminalProgress {
    /// A bar for output going to `terminal`; hidden until a stage starts.
    pub(crate) fn new(terminal: Terminal) -> Self {
        TerminalProgress {
            terminal,
            bar: ProgressBar::hidden(),
            shown: Mutex::new(None),
        }
    }

    /// Removes the bar from the terminal.
    pub(crate) fn clear(&self) {
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
    use git_fuzzy_apply::{Invocation, NoProgress, run_with_progress};

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
        // `--json` output is for a program: no bar.
        assert!(!TerminalProgress::new(Terminal { json: true, ..TTY }).is_active());
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

    #[test]
    fn a_run_with_the_bar_off_the_terminal_writes_as_without_it() {
        let dir = tempfile::tempdir().unwrap();
        let patch = b"--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+a\n";
        let terminal = Terminal {
            stderr_is_tty: false,
            ..TTY
        };
        let progress = TerminalProgress::new(terminal);
        let outcome = run_with_progress(dir.path(), patch, &Invocation::default(), &progress);
        progress.clear();
        assert!(outcome.unwrap().written);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
            "a\n"
        );
    }
}
