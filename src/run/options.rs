//! What steers one run beyond the patch text: [`Invocation`] and its
//! [`Destination`]. The fields are the crate's; callers use the `with_…`
//! setters and the getters.

use crate::plan::ApplyOptions;
use std::path::{Path, PathBuf};

/// Where results go.
///
/// ```
/// use git_fuzzy_apply::{run, Destination, Invocation};
/// use git_fuzzy_apply::report::ProblemCode;
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
/// // Staging needs a repository; this directory is none.
/// let stage = Invocation::default().with_destination(Destination::Index);
/// let outcome = run(dir.path(), b"--- a/a.txt\n+++ b/a.txt\n@@\n-a\n+b\n", &stage).unwrap();
/// assert_eq!(outcome.report.error.unwrap().code, ProblemCode::NotARepository);
/// assert_eq!(Destination::default(), Destination::Worktree);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Destination {
    /// Write the working tree only (like `git apply`).
    #[default]
    Worktree,
    /// Write the working tree and stage the results (`--index`).
    Index,
    /// Stage the results only; the working tree is untouched (`--cached`).
    Cached,
}

/// Everything one run needs beyond the patch text. The default writes the
/// working tree with [`ApplyOptions::default`]; each `with_…` setter changes
/// one choice.
///
/// ```
/// use git_fuzzy_apply::{run, Invocation};
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "a\nb\n").unwrap();
/// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n-a\n+A\n@@\n-nope\n+x\n";
/// // `--reject`: apply what applies, keep the rest in a.txt.rej.
/// let reject = Invocation::default().with_reject(true);
/// assert!(reject.reject());
/// let outcome = run(dir.path(), patch, &reject).unwrap();
/// assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).unwrap(), "A\nb\n");
/// assert_eq!(outcome.rejects, [dir.path().join("a.txt.rej")]);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Invocation {
    /// Parsing, matching and path options.
    pub(crate) apply: ApplyOptions,
    /// Working tree, index, or both.
    pub(crate) destination: Destination,
    /// Plan and report only (`--check`, `--stat`, `--emit-unified`).
    pub(crate) dry_run: bool,
    /// `--reject`: write `<file>.rej` with the hunks that failed (implies `--partial`).
    pub(crate) reject: bool,
    /// Where to write the conflict report (default `.git/fuzzy-apply/last-report`).
    pub(crate) report_path: Option<PathBuf>,
    /// `--allow-empty`: a patch with no edits at all succeeds.
    pub(crate) allow_empty: bool,
    /// What the `--at` commands of the conflict report repeat after
    /// `git fuzzy-apply --at FILE:LINE` (see
    /// [`ErrorStyle::rerun`](crate::report::human::ErrorStyle::rerun));
    /// `None`: `PATCH`.
    pub(crate) rerun: Option<String>,
}

impl Invocation {
    /// Sets the parsing, matching and path options.
    ///
    /// ```
    /// use git_fuzzy_apply::{ApplyOptions, Invocation};
    ///
    /// let inv = Invocation::default().with_apply(ApplyOptions::default().with_reverse(true));
    /// assert!(inv.apply().reverse());
    /// ```
    pub fn with_apply(mut self, apply: ApplyOptions) -> Self {
        self.apply = apply;
        self
    }

    /// Sets where the results go (working tree, index, or both).
    ///
    /// ```
    /// use git_fuzzy_apply::{Destination, Invocation};
    ///
    /// let inv = Invocation::default().with_destination(Destination::Cached);
    /// assert_eq!(inv.destination(), Destination::Cached);
    /// ```
    pub fn with_destination(mut self, destination: Destination) -> Self {
        self.destination = destination;
        self
    }

    /// Plans and reports only, writing nothing (`--check`, `--stat`,
    /// `--emit-unified`), when `dry_run`.
    ///
    /// ```
    /// use git_fuzzy_apply::{run, Invocation};
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    /// let check = Invocation::default().with_dry_run(true);
    /// let outcome = run(dir.path(), b"--- a/a.txt\n+++ b/a.txt\n@@\n-a\n+b\n", &check).unwrap();
    /// assert!(check.dry_run() && outcome.report.ok && !outcome.written);
    /// assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).unwrap(), "a\n");
    /// ```
    pub fn with_dry_run(mut self, dry_run: bool) -> Self {
        self.dry_run = dry_run;
        self
    }

    /// Writes `<file>.rej` with the hunks that failed (`--reject`, which
    /// implies `--partial`) when `reject`.
    ///
    /// ```
    /// use git_fuzzy_apply::{run, Invocation};
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    /// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n-a\n+A\n@@\n-nope\n+x\n";
    /// let outcome = run(dir.path(), patch, &Invocation::default().with_reject(true)).unwrap();
    /// assert_eq!(outcome.rejects, [dir.path().join("a.txt.rej")]);
    /// ```
    pub fn with_reject(mut self, reject: bool) -> Self {
        self.reject = reject;
        self
    }

    /// Writes the conflict report at `path` instead of
    /// `.git/fuzzy-apply/last-report`.
    ///
    /// ```
    /// use git_fuzzy_apply::{run, Invocation};
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let inv = Invocation::default().with_report_path(dir.path().join("report"));
    /// assert_eq!(inv.report_path(), Some(dir.path().join("report").as_path()));
    /// let outcome = run(dir.path(), b"--- a/gone.txt\n+++ b/gone.txt\n@@\n-a\n+b\n", &inv).unwrap();
    /// let markdown = outcome.conflict_report.unwrap().markdown;
    /// assert_eq!(markdown, dir.path().join("report.md"));
    /// ```
    pub fn with_report_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.report_path = Some(path.into());
        self
    }

    /// Lets a patch with no edits at all succeed (`--allow-empty`) when
    /// `allow_empty`.
    ///
    /// ```
    /// use git_fuzzy_apply::{run, Invocation};
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let prose = b"Nothing to change here.\n";
    /// assert!(!run(dir.path(), prose, &Invocation::default()).unwrap().report.ok);
    /// let inv = Invocation::default().with_allow_empty(true);
    /// assert!(run(dir.path(), prose, &inv).unwrap().report.ok);
    /// ```
    pub fn with_allow_empty(mut self, allow_empty: bool) -> Self {
        self.allow_empty = allow_empty;
        self
    }

    /// Sets what the `--at` commands of the conflict report repeat after
    /// `git fuzzy-apply --at FILE:LINE` (default: `PATCH`).
    ///
    /// ```
    /// use git_fuzzy_apply::Invocation;
    ///
    /// let inv = Invocation::default().with_rerun("-p2 fix.diff");
    /// assert_eq!(inv.rerun(), Some("-p2 fix.diff"));
    /// ```
    pub fn with_rerun(mut self, rerun: impl Into<String>) -> Self {
        self.rerun = Some(rerun.into());
        self
    }

    /// The parsing, matching and path options.
    ///
    /// ```
    /// use git_fuzzy_apply::Invocation;
    ///
    /// assert!(!Invocation::default().apply().reverse());
    /// ```
    pub fn apply(&self) -> &ApplyOptions {
        &self.apply
    }

    /// Where the results go.
    ///
    /// ```
    /// use git_fuzzy_apply::{Destination, Invocation};
    ///
    /// assert_eq!(Invocation::default().destination(), Destination::Worktree);
    /// ```
    pub fn destination(&self) -> Destination {
        self.destination
    }

    /// True when the run plans and reports only.
    ///
    /// ```
    /// use git_fuzzy_apply::Invocation;
    ///
    /// assert!(!Invocation::default().dry_run());
    /// ```
    pub fn dry_run(&self) -> bool {
        self.dry_run
    }

    /// True when failed hunks are written to `.rej` files.
    ///
    /// ```
    /// use git_fuzzy_apply::Invocation;
    ///
    /// assert!(!Invocation::default().reject());
    /// ```
    pub fn reject(&self) -> bool {
        self.reject
    }

    /// Where the conflict report goes, when not the default place.
    ///
    /// ```
    /// use git_fuzzy_apply::Invocation;
    ///
    /// assert_eq!(Invocation::default().report_path(), None);
    /// ```
    pub fn report_path(&self) -> Option<&Path> {
        self.report_path.as_deref()
    }

    /// True when a patch with no edits succeeds.
    ///
    /// ```
    /// use git_fuzzy_apply::Invocation;
    ///
    /// assert!(!Invocation::default().allow_empty());
    /// ```
    pub fn allow_empty(&self) -> bool {
        self.allow_empty
    }

    /// What the `--at` commands repeat, when set.
    ///
    /// ```
    /// use git_fuzzy_apply::Invocation;
    ///
    /// assert_eq!(Invocation::default().rerun(), None);
    /// ```
    pub fn rerun(&self) -> Option<&str> {
        self.rerun.as_deref()
    }
}
