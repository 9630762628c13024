//! The test seam: the one place where tests reach into a run to kill it,
//! pause it, or make a write step fail.
//!
//! Every step that changes the disk while a run commits, undoes, recovers or
//! stages (the journal's writes, each backup, staged file, rename, deletion
//! and clean-up, the run lock's record, the index and its blobs) first calls
//! [`fail`] with its [`Step`]; the named points of a run call
//! [`checkpoint`]. In a build without the `test-hooks` cargo feature (every
//! release build: `cargo install`, `cargo build --release`) both are empty
//! inline functions: no environment variable is read and nothing is
//! counted. With the feature (the test command in the README and in
//! `.ci/run`: `cargo test --locked --features test-hooks`) and in the
//! library's own unit tests, the variables are read once per process:
//!
//! - `GIT_FUZZY_APPLY_TEST_EXIT_AT=N` ends the process at once (no
//!   destructors, no clean-up, as `kill -9` would) at the `N`th checkpoint;
//! - `GIT_FUZZY_APPLY_TEST_PAUSE_AT=NAME` with
//!   `GIT_FUZZY_APPLY_TEST_PAUSE_FILE=PATH` creates `PATH` at the checkpoint
//!   `NAME` and waits there until `PATH` is removed;
//! - `GIT_FUZZY_APPLY_TEST_FAIL_AT=N` makes the `N`th write step fail with
//!   `ENOSPC` (a full disk), and `N..` every write step from the `N`th on
//!   (a disk that stays full, so that undoing fails too). Each failed step
//!   is announced on stderr as `test fault at write step N (NAME: PATH)`.

/// Declares [`Step`], its names and the list of all of them together, so
/// that no step can be missing from [`Step::ALL`].
macro_rules! steps {
    ($($(#[doc = $doc:literal])* $step:ident => $name:literal,)*) => {
        /// A step that changes the disk. Each kind is named so that a sweep
        /// that fails every step in turn can tell that it reached every kind.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub(crate) enum Step {
            $($(#[doc = $doc])* $step,)*
        }

        impl Step {
            /// Every step.
            #[cfg_attr(not(test), allow(dead_code))]
            pub(crate) const ALL: &[Step] = &[$(Step::$step,)*];

            /// The step's name in messages (`test fault at write step N (NAME)`).
            #[cfg_attr(not(any(test, feature = "test-hooks")), allow(dead_code))]
            pub(crate) fn name(self) -> &'static str {
                match self {
                    $(Step::$step => $name,)*
                }
            }
        }
    };
}

steps! {
    /// Creating the directory that holds the journal.
    JournalDir => "journal directory",
    /// Creating the journal's temporary file.
    JournalCreate => "journal create",
    /// Writing the journal's temporary file.
    JournalWrite => "journal write",
    /// `fsync` of the journal's temporary file.
    JournalSync => "journal fsync",
    /// Renaming the journal's temporary file into place.
    JournalRename => "journal rename",
    /// `fsync` of the journal's directory.
    JournalSyncDir => "journal directory fsync",
    /// Removing the journal.
    JournalRemove => "journal remove",
    /// Creating a directory a new file needs.
    CreateDir => "create directory",
    /// Creating a staged file (the new content beside its target).
    StageCreate => "staged file create",
    /// Writing a staged file's content.
    StageWrite => "staged file write",
    /// Setting a staged file's permission bits.
    StageMode => "staged file mode",
    /// Linking an original to its backup.
    Backup => "backup link",
    /// Renaming a staged file over its target.
    Rename => "rename into place",
    /// Deleting a target.
    Delete => "delete",
    /// Removing a backup once the run is committed.
    RemoveBackup => "remove backup",
    /// Removing a directory that deletions left empty (best effort).
    RemoveEmptyDir => "remove emptied directory",
    /// Putting a backup back in place of its target (undoing).
    Restore => "restore backup",
    /// Removing a staged file that was never renamed (undoing).
    RemoveStaged => "remove staged file",
    /// Removing a file the run added (undoing).
    RemoveAdded => "remove added file",
    /// Removing a directory the run created (undoing).
    RemoveCreatedDir => "remove created directory",
    /// Creating the run lock file (and its directory).
    LockCreate => "run lock create",
    /// Writing the run lock's record (who holds it, which index lock).
    LockRecord => "run lock record",
    /// Removing the run lock file as the run ends (best effort: a lock
    /// file nobody holds is no lock).
    LockRemove => "run lock remove",
    /// Removing the `index.lock` a dead run left (recovering).
    StaleIndexLock => "stale index lock remove",
    /// Taking git's `index.lock`.
    IndexLock => "index lock",
    /// Writing a new content's blob into the object database.
    Blob => "blob write",
    /// Writing the new index into `index.lock`.
    IndexWrite => "index write",
    /// Renaming `index.lock` over the index.
    IndexCommit => "index commit",
}

/// A named point of a run where a test may kill or pause it.
#[cfg(not(any(test, feature = "test-hooks")))]
#[inline(always)]
pub(crate) fn checkpoint(_name: &str) {}

/// Before the write step `step` on `path`: an error when a test makes it
/// fail, else nothing.
#[cfg(not(any(test, feature = "test-hooks")))]
#[inline(always)]
pub(crate) fn fail(_step: Step, _path: &std::path::Path) -> std::io::Result<()> {
    Ok(())
}

#[cfg(any(test, feature = "test-hooks"))]
pub(crate) use on::{checkpoint, fail};

#[cfg(test)]
pub(crate) use on::{FailWhile, fail_while};

#[cfg(feature = "test-hooks")]
pub mod in_process;

#[cfg(any(test, feature = "test-hooks"))]
mod on {
    use super::Step;
    use std::io;
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Mutex, OnceLock};

    /// Which write steps fail.
    #[derive(Debug, Clone, Copy)]
    pub(super) enum Failing {
        /// Only the `N`th.
        At(usize),
        /// The `N`th and every later one.
        From(usize),
    }

    /// The hooks asked for, read from the environment once.
    #[derive(Debug, Default)]
    struct Hooks {
        exit_at: Option<usize>,
        pause: Option<(String, PathBuf)>,
        failing: Option<Failing>,
    }

    fn hooks() -> &'static Hooks {
        static HOOKS: OnceLock<Hooks> = OnceLock::new();
        HOOKS.get_or_init(|| {
            let var = |name: &str| std::env::var(name).ok();
            let failing =
                var("GIT_FUZZY_APPLY_TEST_FAIL_AT").and_then(|v| match v.strip_suffix("..") {
                    Some(n) => n.parse().ok().map(Failing::From),
                    None => v.parse().ok().map(Failing::At),
                });
            Hooks {
                exit_at: var("GIT_FUZZY_APPLY_TEST_EXIT_AT").and_then(|v| v.parse().ok()),
                pause: var("GIT_FUZZY_APPLY_TEST_PAUSE_AT")
                    .zip(std::env::var_os("GIT_FUZZY_APPLY_TEST_PAUSE_FILE"))
                    .map(|(step, file)| (step, PathBuf::from(file))),
                failing,
            }
        })
    }

    /// A named point of a run where a test may kill or pause it.
    pub(crate) fn checkpoint(name: &str) {
        static PASSED: AtomicUsize = AtomicUsize::new(0);
        let hooks = hooks();
        if let Some((at, file)) = &hooks.pause
            && at == name
        {
            pause(file);
        }
        let Some(at) = hooks.exit_at else { return };
        if PASSED.fetch_add(1, Ordering::SeqCst) + 1 == at {
            eprintln!("git-fuzzy-apply: test exit at step {at} ({name})");
            std::process::exit(137);
        }
    }

    /// Creates `file` and waits until it is removed: once per process,
    /// however many files pass the point.
    fn pause(file: &Path) {
        static PAUSED: std::sync::Once = std::sync::Once::new();
        let mut first = false;
        PAUSED.call_once(|| first = true);
        if !first || std::fs::write(file, std::process::id().to_string()).is_err() {
            return;
        }
        while file.exists() {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }

    /// The write steps counted so far: since the process started under
    /// `GIT_FUZZY_APPLY_TEST_FAIL_AT`, since the last `in_process::program`
    /// otherwise.
    pub(super) static STEPS: AtomicUsize = AtomicUsize::new(0);

    /// The faults programmed in process, which take the place of the
    /// environment's while set (`Some(None)`: none, but steps are counted).
    pub(super) static PROGRAMMED: Mutex<Option<Option<Failing>>> = Mutex::new(None);

    /// The steps failed since the last `in_process::program`, by name and path.
    pub(super) static FAILED: Mutex<Vec<(&'static str, PathBuf)>> = Mutex::new(Vec::new());

    /// Before the write step `step` on `path`: an error when a test makes
    /// it fail, else nothing.
    pub(crate) fn fail(step: Step, path: &Path) -> io::Result<()> {
        #[cfg(test)]
        if rules::matches(step, path) {
            return Err(io::Error::from_raw_os_error(libc::ENOSPC));
        }
        let programmed = *PROGRAMMED.lock().unwrap_or_else(|e| e.into_inner());
        let failing = match programmed {
            Some(failing) => failing,
            None if hooks().failing.is_none() => return Ok(()),
            None => hooks().failing,
        };
        let n = STEPS.fetch_add(1, Ordering::SeqCst) + 1;
        let fails = match failing {
            Some(Failing::At(at)) => n == at,
            Some(Failing::From(from)) => n >= from,
            None => false,
        };
        if !fails {
            return Ok(());
        }
        if programmed.is_some() {
            // The program asking reads them with `in_process::failed_steps`:
            // nothing is printed into its output.
            let mut failed = FAILED.lock().unwrap_or_else(|e| e.into_inner());
            failed.push((step.name(), path.to_path_buf()));
        } else {
            eprintln!(
                "git-fuzzy-apply: test fault at write step {n} ({}: {})",
                step.name(),
                path.display()
            );
        }
        Err(io::Error::from_raw_os_error(libc::ENOSPC))
    }

    #[cfg(test)]
    pub(crate) use rules::{FailWhile, fail_while};

    /// Faults the library's unit tests ask for in code: each test names
    /// paths in a temporary directory of its own, so tests running at once
    /// (and the threads of one run) share the rules without meeting.
    #[cfg(test)]
    mod rules {
        use super::Step;
        use std::path::Path;
        use std::sync::Mutex;

        type Rule = Box<dyn Fn(Step, &Path) -> bool + Send + Sync>;

        static RULES: Mutex<Vec<(usize, Rule)>> = Mutex::new(Vec::new());

        /// A fault rule in force until this is dropped.
        pub(crate) struct FailWhile(usize);

        /// Makes every write step for which `rule` is true fail with
        /// `ENOSPC`, until the returned guard is dropped.
        pub(crate) fn fail_while(
            rule: impl Fn(Step, &Path) -> bool + Send + Sync + 'static,
        ) -> FailWhile {
            use std::sync::atomic::{AtomicUsize, Ordering};
            static NEXT: AtomicUsize = AtomicUsize::new(0);
            let id = NEXT.fetch_add(1, Ordering::Relaxed);
            let mut rules = RULES.lock().unwrap_or_else(|e| e.into_inner());
            rules.push((id, Box::new(rule)));
            FailWhile(id)
        }

        impl Drop for FailWhile {
            fn drop(&mut self) {
                let mut rules = RULES.lock().unwrap_or_else(|e| e.into_inner());
                rules.retain(|(id, _)| *id != self.0);
            }
        }

        pub(super) fn matches(step: Step, path: &Path) -> bool {
            let rules = RULES.lock().unwrap_or_else(|e| e.into_inner());
            rules.iter().any(|(_, rule)| rule(step, path))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Step;
    use std::path::Path;

    fn source(rel: &str) -> String {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    #[test]
    fn the_sweep_expects_every_step() {
        // tests/it/faults/sweep.rs fails every write step of a run in turn and
        // checks that every step it lists was reached: a new step must be
        // listed there too.
        let sweep = source("tests/it/faults/sweep.rs");
        let mut names: Vec<&str> = Step::ALL.iter().map(|s| s.name()).collect();
        for name in &names {
            assert!(
                sweep.contains(&format!("\"{name}\"")),
                "tests/it/faults/sweep.rs does not list the step {name:?}"
            );
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Step::ALL.len(), "two steps share a name");
    }

    /// The calls that change the disk.
    const WRITES: &[&str] = &[
        "fs::rename(",
        "fs::remove_file(",
        "fs::remove_dir(",
        "fs::hard_link(",
        "fs::create_dir(",
        "fs::create_dir_all(",
        "fs::write(",
        ".sync_all()",
        ".write_all(",
        ".persist(",
        ".set_permissions(",
        ".set_len(",
        ".commit()",
        "write_blob(",
        "write_stream(",
        "tempfile_in(",
        ".create_new(true)",
        "acquire_to_update_resource(",
        "render_hashed(",
        "write_lines(",
        "fs::symlink(",
    ];

    #[test]
    fn every_disk_write_of_a_run_goes_through_the_seam() {
        // In the files that commit, undo, recover, lock and stage, every
        // call that changes the disk has a `fail(Step::…)` at most ten
        // lines before it (outside the files' own tests).
        for file in [
            "src/write/mod.rs",
            "src/write/commit.rs",
            "src/write/stage.rs",
            "src/journal/mod.rs",
            "src/journal/recovery.rs",
            "src/journal/trust.rs",
            "src/lock.rs",
            "src/git/mod.rs",
            "src/git/blob.rs",
        ] {
            let text = source(file);
            let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
            let lines: Vec<&str> = code.lines().collect();
            for (i, line) in lines.iter().enumerate() {
                let code_part = line.split("//").next().unwrap_or("");
                if !WRITES.iter().any(|w| code_part.contains(w)) {
                    continue;
                }
                let guarded = lines[i.saturating_sub(10)..=i]
                    .iter()
                    .any(|l| l.contains("fail(Step::") || l.contains("fail(step, "));
                assert!(
                    guarded,
                    "{file}:{}: a disk write without a fault point before it: {line}",
                    i + 1
                );
            }
        }
    }
}
