//! One run of the command, in a working tree or a git repository: find the
//! tree, lock it, plan, check, write or stage, and leave a conflict report
//! when something did not apply. `main.rs` only parses arguments and prints.
//!
//! ```
//! use git_fuzzy_apply::{run, Invocation};
//!
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
//! // A hunk that cannot be placed: nothing is written, and the report says why.
//! let outcome = run(dir.path(), b"--- a/a.txt\n+++ b/a.txt\n@@\n-two\n+2\n", &Invocation::default())
//!     .unwrap();
//! assert!(!outcome.written && !outcome.report.ok);
//! assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).unwrap(), "one\n");
//! ```

use crate::git::{GitError, IndexCheckError, Repo};
use crate::journal::{JournalError, LeftAlone};
use crate::patch::PatchText;
use crate::plan::{ApplyOptions, PatchPlan, plan_patch_with};
use crate::progress::{NoProgress, Progress};
use crate::report::{Problem, ProblemCode, Report};
use crate::source::WorktreeTargets;
use crate::write::{CommitError, FinishError};
use std::path::{Path, PathBuf};

pub use crate::journal::Recovery;

mod options;
mod tree;
mod write;

pub use options::{Destination, Invocation};

use tree::{Held, find_tree, journal_spec, lock_and_recover, take_locks};
use write::{Place, conflict_report, write_results};

/// What a run did.
///
/// ```
/// use git_fuzzy_apply::{run, Invocation};
///
/// let dir = tempfile::tempdir().unwrap();
/// let report_at = dir.path().join("report");
/// let inv = Invocation::default().with_report_path(&report_at);
/// let outcome = run(dir.path(), b"--- a/gone.txt\n+++ b/gone.txt\n@@\n-a\n+b\n", &inv).unwrap();
/// assert!(!outcome.written && outcome.rejects.is_empty() && outcome.recovered.is_none());
/// // A failed run leaves a conflict report, in Markdown and JSON.
/// let report = outcome.conflict_report.unwrap();
/// assert!(std::fs::read_to_string(report.markdown).unwrap().contains("gone.txt"));
/// assert!(report.json.exists());
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub struct Outcome {
    /// The plan: every file, what happened to it and what it becomes.
    pub plan: PatchPlan,
    /// The report of the plan, built from it once it was checked against
    /// the command line.
    pub report: Report,
    /// True when files (or the index) were written.
    pub written: bool,
    /// The conflict report written, when the run did not apply.
    pub conflict_report: Option<ConflictReport>,
    /// `.rej` files written.
    pub rejects: Vec<PathBuf>,
    /// What was done about an earlier run that was interrupted.
    pub recovered: Option<Recovery>,
}

/// Where the conflict report of a run that did not apply was written:
/// `<base>.md` and `<base>.json` side by side (`base` is `--report`, or
/// `.git/fuzzy-apply/last-report`).
///
/// ```
/// use git_fuzzy_apply::{run, ConflictReport, Invocation};
///
/// let dir = tempfile::tempdir().unwrap();
/// let inv = Invocation::default().with_report_path(dir.path().join("last"));
/// let outcome = run(dir.path(), b"--- a/gone.txt\n+++ b/gone.txt\n@@\n-a\n+b\n", &inv).unwrap();
/// let ConflictReport { markdown, json, .. } = outcome.conflict_report.unwrap();
/// assert_eq!((markdown, json), (dir.path().join("last.md"), dir.path().join("last.json")));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConflictReport {
    /// The Markdown report, for people.
    pub markdown: PathBuf,
    /// The JSON report, for tools (`docs/json.md`).
    pub json: PathBuf,
}

/// Why a run stopped before or while writing.
///
/// ```
/// use git_fuzzy_apply::{run, Invocation, RunError};
///
/// let dir = tempfile::tempdir().unwrap();
/// let missing = dir.path().join("no such dir");
/// let err = run(&missing, b"", &Invocation::default()).unwrap_err();
/// assert!(matches!(err, RunError::Io(_)), "{err}");
/// ```
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The tree could not be opened.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// A planned path could not be written under the tree (it leads out of
    /// it, or through a symbolic link); nothing was written.
    #[error(transparent)]
    Target(#[from] Problem),
    /// Git refused (locked index, unreadable repository).
    #[error(transparent)]
    Git(#[from] GitError),
    /// Writing failed; everything was restored.
    #[error(transparent)]
    Commit(#[from] CommitError),
    /// Another run holds the tree, or an interrupted one cannot be recovered.
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// Every file was written, but ending the commit failed (see the message
    /// for what that left).
    #[error(transparent)]
    Finish(#[from] FinishError),
    /// Staging (or writing `.rej` files) failed after the working tree was
    /// written; the working tree was put back as it was, but for the files
    /// someone changed after the run wrote them (`left_alone`, each named
    /// in the message with where its content from before the run is kept).
    #[error(
        "{first}; the working tree was put back as it was{}{}{}",
        crate::write::but_for(left_alone),
        crate::write::journal_left(journal.as_deref()),
        crate::write::left_alone_lines(left_alone)
    )]
    Undone {
        /// What failed.
        first: Box<RunError>,
        /// The journal, when it could not be removed after the undoing
        /// (the next run, or `--recover`, removes it).
        journal: Option<PathBuf>,
        /// Files changed by someone else after this run wrote them: left
        /// as they are, not put back.
        left_alone: Vec<LeftAlone>,
    },
    /// Staging failed with `--cached`, where nothing but the index is
    /// written: the index was left as it was (`.rej` files of `--reject`
    /// aside, nothing else was written).
    #[error("{0}; the index was left as it was")]
    NotStaged(Box<RunError>),
    /// Staging failed after the working tree was written, and putting the
    /// working tree back failed too; the journal is kept for recovery.
    #[error(
        "{first}; putting the working tree back failed as well ({undo}); the journal is kept: run `git fuzzy-apply --recover` to finish"
    )]
    Unfinished {
        /// What failed first.
        first: Box<RunError>,
        /// Why the working tree could not be put back.
        undo: std::io::Error,
    },
}

impl RunError {
    /// The report code of this error, for the JSON object `--json` prints
    /// when a run could not be made (exit 2).
    ///
    /// ```
    /// use git_fuzzy_apply::{run, Invocation};
    /// use git_fuzzy_apply::report::ProblemCode;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let err = run(&dir.path().join("gone"), b"", &Invocation::default()).unwrap_err();
    /// assert_eq!(err.code(), ProblemCode::IoError);
    /// ```
    pub fn code(&self) -> ProblemCode {
        match self {
            RunError::Io(_)
            | RunError::Target(_)
            | RunError::Commit(_)
            | RunError::Finish(_)
            | RunError::Undone { .. }
            | RunError::Journal(JournalError::Lock { .. }) => ProblemCode::IoError,
            RunError::Git(GitError::IndexLocked(_)) => ProblemCode::Locked,
            RunError::Git(_) => ProblemCode::GitError,
            RunError::Journal(JournalError::Busy { .. }) => ProblemCode::Locked,
            RunError::Journal(_) | RunError::Unfinished { .. } => ProblemCode::InterruptedRun,
            RunError::NotStaged(first) => first.code(),
        }
    }
}
/// Finishes or undoes a run in the tree containing `cwd` that was killed
/// while writing; `None` when there was none. Takes the run lock first, so
/// it never acts beside a live run, and removes an `index.lock` the dead
/// run left (never another git's).
///
/// ```
/// use git_fuzzy_apply::recover;
///
/// let dir = tempfile::tempdir().unwrap();
/// // Nothing was interrupted here.
/// assert_eq!(recover(dir.path()).unwrap(), None);
/// ```
pub fn recover(cwd: &Path) -> Result<Option<Recovery>, RunError> {
    let (repo, root) = find_tree(cwd);
    let (spec, lock_path) = journal_spec(repo.as_ref(), &root, Destination::Worktree);
    let (_lock, recovered) = lock_and_recover(repo.as_ref(), &root, &spec, &lock_path)?;
    Ok(recovered)
}

/// Runs the patch `text` from directory `cwd`: what `git fuzzy-apply` does
/// after parsing its arguments.
///
/// ```
/// use git_fuzzy_apply::{run, Invocation};
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
/// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n one\n-two\n+2\n";
///
/// let check = Invocation::default().with_dry_run(true);
/// let outcome = run(dir.path(), patch, &check).unwrap();
/// assert!(outcome.report.ok && !outcome.written);
///
/// let outcome = run(dir.path(), patch, &Invocation::default()).unwrap();
/// assert!(outcome.written);
/// assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).unwrap(), "one\n2\n");
/// ```
pub fn run(cwd: &Path, text: &[u8], inv: &Invocation) -> Result<Outcome, RunError> {
    run_with_progress(cwd, text, inv, &NoProgress)
}

/// [`run`], telling `progress` how planning and writing the working tree
/// advance (the command passes a progress bar; see [`Progress`](crate::Progress)).
///
/// ```
/// use git_fuzzy_apply::{run_with_progress, Invocation};
/// use git_fuzzy_apply::{Progress, Stage, Workload};
/// use std::sync::Mutex;
///
/// // The command passes a bar that shows only on a terminal, for long runs;
/// // any observer sees the same stages.
/// struct Stages(Mutex<Vec<(Stage, u64)>>);
/// impl Progress for Stages {
///     fn is_active(&self) -> bool {
///         true
///     }
///     fn start(&self, stage: Stage, workload: Workload) {
///         self.0.lock().unwrap().push((stage, workload.files));
///     }
/// }
/// let dir = tempfile::tempdir().unwrap();
/// let patch = b"--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n";
/// let stages = Stages(Mutex::new(Vec::new()));
/// let outcome = run_with_progress(dir.path(), patch, &Invocation::default(), &stages).unwrap();
/// assert_eq!(*stages.0.lock().unwrap(), [(Stage::Planning, 1), (Stage::Writing, 1)]);
/// assert!(outcome.written);
/// assert_eq!(std::fs::read_to_string(dir.path().join("new.txt")).unwrap(), "hi\n");
/// ```
pub fn run_with_progress(
    cwd: &Path,
    text: &[u8],
    inv: &Invocation,
    progress: &dyn Progress,
) -> Result<Outcome, RunError> {
    run_patch_text(cwd, &PatchText::from(text.to_vec()), inv, progress)
}

/// [`run_with_progress`] on a [`PatchText`], which the parsed hunks share
/// instead of copying: the command reads a patch into one and so holds a
/// large patch once.
///
/// ```
/// use git_fuzzy_apply::{run_patch_text, Invocation};
/// use git_fuzzy_apply::PatchText;
/// use git_fuzzy_apply::NoProgress;
///
/// let dir = tempfile::tempdir().unwrap();
/// let text = PatchText::from(b"--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n".to_vec());
/// let outcome = run_patch_text(dir.path(), &text, &Invocation::default(), &NoProgress).unwrap();
/// assert!(outcome.written);
/// assert_eq!(std::fs::read_to_string(dir.path().join("new.txt")).unwrap(), "hi\n");
/// ```
pub fn run_patch_text(
    cwd: &Path,
    text: &PatchText,
    inv: &Invocation,
    progress: &dyn Progress,
) -> Result<Outcome, RunError> {
    let (repo, root) = find_tree(cwd);
    let targets = WorktreeTargets::new(&root)?;
    let (spec, lock_path) = journal_spec(repo.as_ref(), &root, inv.destination);
    // The lock first, before reading anything: then an earlier run killed
    // while writing is put right, and nobody changes the tree between plan
    // and write.
    let Held {
        run: _run_lock,
        index: index_lock,
        recovered,
    } = take_locks(repo.as_ref(), &root, &spec, &lock_path, inv)?;
    crate::test_hooks::checkpoint("locked");
    let index = match (&repo, inv.destination) {
        (Some(r), Destination::Index | Destination::Cached) => Some(r.index()?),
        _ => None,
    };
    let targets = link_files(targets, repo.as_ref(), index.as_ref(), inv.destination)?;
    let mut apply = inv.apply.clone();
    apply.partial |= inv.reject;
    let faults = crate::sigbus::faults();
    let plan = plan_run(
        repo.as_ref(),
        index.as_ref(),
        &targets,
        text,
        &apply,
        inv,
        progress,
    );
    if crate::sigbus::faults() != faults {
        return Err(RunError::Io(cut_short(&plan)));
    }
    let writable = plan.ok() || (apply.partial && plan.error.is_none());
    let report = Report::of(&plan, inv.dry_run);
    let mut outcome = Outcome {
        plan,
        report,
        written: false,
        conflict_report: None,
        rejects: Vec::new(),
        recovered,
    };
    conflict_report(&mut outcome, inv, repo.as_ref());
    if inv.dry_run || !writable {
        return Ok(outcome);
    }
    let place = Place {
        repo: repo.as_ref(),
        root: &root,
        targets: &targets,
        spec: &spec,
    };
    outcome.rejects = write_results(
        &place,
        &mut outcome.plan,
        &outcome.report,
        index.zip(index_lock),
        inv,
        progress,
    )?;
    outcome.written = true;
    Ok(outcome)
}

/// The error of a run that read zeros for pages a mapped file lost while it
/// was read (another process truncated it): names the file when its stamp
/// tells which.
fn cut_short(plan: &PatchPlan) -> std::io::Error {
    let changed = plan
        .results()
        .find_map(|r| {
            let (path, stamp) = r.old.mapped_path()?;
            (crate::source::Stamp::of(path) != Some(stamp)).then(|| path.to_path_buf())
        })
        .or_else(|| crate::sigbus::cut_short_files().pop())
        .map(|path| path.display().to_string());
    std::io::Error::other(format!(
        "{}: the file was cut short by another process while it was being read; nothing was written",
        changed.unwrap_or_else(|| "a mapped file".to_string())
    ))
}

/// `targets` as the working tree of `repo` holds its files: with
/// `core.symlinks=false`, where the index (`index`, or read now) stages a
/// symbolic link, the tree has a regular file holding its target, read and
/// written as that link (`--cached` reads the index itself).
fn link_files(
    targets: WorktreeTargets,
    repo: Option<&Repo>,
    index: Option<&gix::index::File>,
    destination: Destination,
) -> Result<WorktreeTargets, RunError> {
    let Some(r) = repo.filter(|r| !r.symlinks() && destination != Destination::Cached) else {
        return Ok(targets);
    };
    let staged = match index {
        Some(ix) => Repo::staged_links(ix),
        None => Repo::staged_links(&r.index()?),
    };
    // A worktree-only run leaves the index as it is: an earlier one may
    // have written links and files the index does not know of.
    Ok(targets.with_link_files(staged, destination == Destination::Worktree))
}

/// Plans the patch against the working tree (or, with `--cached`, the
/// index) and refuses what the destination does not allow.
fn plan_run(
    repo: Option<&Repo>,
    index: Option<&gix::index::File>,
    targets: &WorktreeTargets,
    text: &PatchText,
    apply: &ApplyOptions,
    inv: &Invocation,
    progress: &dyn Progress,
) -> PatchPlan {
    let mut plan = match (repo, index, inv.destination) {
        (Some(r), Some(ix), Destination::Cached) => {
            let index_targets = crate::git::IndexTargets::new(r, ix, targets);
            plan_patch_with(text, &index_targets, apply, progress)
        }
        _ => plan_patch_with(text, targets, apply, progress),
    };
    crate::plan::checks::check(&mut plan, &apply.pins, inv.allow_empty);
    if inv.destination != Destination::Worktree && repo.is_none() {
        plan.error = Some(Problem::new(
            ProblemCode::NotARepository,
            "--index and --cached need a git repository",
            None,
        ));
    }
    if let (Some(r), Some(ix), Destination::Index) = (repo, index, inv.destination) {
        let read: Vec<&str> = plan
            .results()
            .filter_map(|res| res.old_path.as_deref())
            .collect();
        if let Err(e) = r.check_worktree_matches_index(ix, &read) {
            plan.error = Some(index_problem(e));
        }
    }
    plan
}

/// The `--index` check's failure as the plan's problem, with its cause.
fn index_problem(e: IndexCheckError) -> Problem {
    let code = match &e {
        IndexCheckError::NotInIndex(_) => ProblemCode::NotInIndex,
        IndexCheckError::Differs(_) => ProblemCode::IndexMismatch,
        IndexCheckError::Io { .. } => ProblemCode::IoError,
        IndexCheckError::Gix(_) => ProblemCode::GitError,
    };
    let problem = Problem::new(code, e.to_string(), None);
    match e {
        IndexCheckError::Io { source, .. } => problem.with_source(source),
        IndexCheckError::Gix(source) => problem.with_source(source),
        IndexCheckError::NotInIndex(_) | IndexCheckError::Differs(_) => problem,
    }
}
