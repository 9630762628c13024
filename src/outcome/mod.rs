//! What the planner decided, file by file and hunk by hunk: the core's
//! outcome types. The planner (`crate::plan`), the targets and git fill
//! them in; `crate::write` and `crate::git` act on them; `crate::report`
//! builds what people and tools read from them. This module imports no
//! report, renderer or terminal code.
//!
//! The types serialize as the JSON contract (`docs/json.md`) lays out; the
//! report re-exports them under `git_fuzzy_apply::report`.

pub(crate) mod codes;
pub mod quote;

use crate::locate::{HunkStatus, NearMatch, Normalization, Reason, Tier};
use crate::model::{FileOp, PatchFormat};
use crate::source::TargetError;
use serde::Serialize;

pub(crate) use codes::ProblemCode;
/// A reason code with a message and, where known, the patch line.
///
/// ```
/// use git_fuzzy_apply::plan_patch;
/// use git_fuzzy_apply::report::ProblemCode;
///
/// let dir = tempfile::tempdir().unwrap();
/// let report = plan_patch(b"Just prose, no edits.", dir.path(), &Default::default()).unwrap().report();
/// let problem = report.error.unwrap();
/// assert_eq!(problem.code, ProblemCode::NoEdits);
/// assert!(problem.message.starts_with("no edits found"));
/// assert_eq!(problem.patch_line, None);
/// ```
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct Problem {
    /// Stable reason code (`malformed_patch`, `file_not_found`, …).
    pub code: ProblemCode,
    /// Human explanation with the fix where one is known.
    pub message: String,
    /// 1-based patch line, when the problem has one.
    pub patch_line: Option<usize>,
    /// The error that caused it (an I/O or git error), kept for
    /// [`std::error::Error::source`]; not part of the report.
    #[serde(skip)]
    source: Option<std::sync::Arc<dyn std::error::Error + Send + Sync + 'static>>,
}

/// Two problems are equal when their code, message and line are; the
/// cause they keep is not compared.
impl PartialEq for Problem {
    fn eq(&self, other: &Self) -> bool {
        (self.code, &self.message, self.patch_line)
            == (other.code, &other.message, other.patch_line)
    }
}

impl Eq for Problem {}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Problem {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl Problem {
    /// A target's failure as the file's problem, with its cause kept.
    pub(crate) fn of_target(e: TargetError) -> Self {
        let message = e.to_string();
        match e {
            TargetError::Outside(_) => Problem::new(ProblemCode::PathOutsideTree, message, None),
            TargetError::NotAFile(_) => Problem::new(ProblemCode::NotAFile, message, None),
            TargetError::Io { source, .. } => {
                Problem::new(ProblemCode::IoError, message, None).with_source(source)
            }
            TargetError::Git { source, .. } => {
                Problem::new(ProblemCode::GitError, message, None).with_source(source)
            }
        }
    }
}

impl Problem {
    /// Builds a problem.
    ///
    /// ```
    /// use git_fuzzy_apply::report::{Problem, ProblemCode};
    ///
    /// let problem = Problem::new(ProblemCode::FileNotFound, "a.txt: no such file", Some(3));
    /// assert_eq!(problem.code, "file_not_found");
    /// assert_eq!((problem.message.as_str(), problem.patch_line), ("a.txt: no such file", Some(3)));
    /// ```
    pub fn new(code: ProblemCode, message: impl Into<String>, patch_line: Option<usize>) -> Self {
        Problem {
            code,
            message: quote::message(message.into()),
            patch_line,
            source: None,
        }
    }

    /// The problem with the error that caused it, which
    /// [`source`](std::error::Error::source) then gives; the message (and
    /// so the report) stays as it is.
    ///
    /// ```
    /// use git_fuzzy_apply::report::{Problem, ProblemCode};
    /// use std::error::Error as _;
    ///
    /// let cause = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
    /// let problem = Problem::new(ProblemCode::IoError, "a.txt: permission denied", None)
    ///     .with_source(cause);
    /// let source = problem.source().unwrap();
    /// assert_eq!(source.downcast_ref::<std::io::Error>().unwrap().kind(), std::io::ErrorKind::PermissionDenied);
    /// assert_eq!(problem.to_string(), "a.txt: permission denied");
    /// ```
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(std::sync::Arc::new(source));
        self
    }

    /// The problem pointing at `patch_line` (a target's problem, once the
    /// planner knows which patch line asked for the target).
    pub(crate) fn at_line(self, patch_line: Option<usize>) -> Self {
        Problem { patch_line, ..self }
    }
}

/// Status of one file.
///
/// ```
/// use git_fuzzy_apply::plan_patch;
/// use git_fuzzy_apply::report::{FileStatus, ProblemCode};
///
/// let dir = tempfile::tempdir().unwrap();
/// let patch = b"--- a/gone.txt\n+++ b/gone.txt\n@@\n-x\n+y\n";
/// let file = &plan_patch(patch, dir.path(), &Default::default()).unwrap().report().files[0];
/// assert_eq!(file.status, FileStatus::Failed);
/// assert_eq!(file.error.as_ref().unwrap().code, ProblemCode::FileNotFound);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FileStatus {
    /// Every hunk was placed and the file changes.
    Patched,
    /// Every hunk was placed but nothing changes (already applied, no-ops).
    Unchanged,
    /// The file could not be patched.
    Failed,
    /// `--partial`: the hunks that apply were planned, the others failed.
    Partial,
}

/// The outcome for one target file.
///
/// ```
/// use git_fuzzy_apply::model::{FileOp, PatchFormat};
/// use git_fuzzy_apply::plan_patch;
///
/// let dir = tempfile::tempdir().unwrap();
/// let patch = b"*** Begin Patch\n*** Add File: new.txt\n+hello\n*** End Patch\n";
/// let report = plan_patch(patch, dir.path(), &Default::default()).unwrap().report();
/// let file = &report.files[0];
/// assert_eq!((file.path.as_str(), file.op), ("new.txt", FileOp::Add));
/// assert_eq!(file.format, PatchFormat::CodexEnvelope);
/// assert_eq!((file.added, file.removed, file.move_to.as_deref()), (1, 0, None));
/// ```
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct FileReport {
    /// Target path as written in the patch (after `-p` stripping).
    pub path: String,
    /// Update, add or delete.
    pub op: FileOp,
    /// New path of a rename.
    pub move_to: Option<String>,
    /// Notation of the edits.
    pub format: PatchFormat,
    /// Patched, unchanged or failed.
    pub status: FileStatus,
    /// A problem with the file as a whole (not found, binary, …).
    pub error: Option<Problem>,
    /// Lines added and removed in the result.
    pub added: usize,
    /// Lines removed.
    pub removed: usize,
    /// Which sides the patch gives as binary data (`GIT binary patch`),
    /// whose lines `added` and `removed` do not count.
    pub binary: BinarySides,
    /// True when the patch deletes the path and creates it again (git's
    /// typechange: a file that became a symbolic link, or the other way
    /// round): `removed` counts the deletion's lines, `added` the
    /// creation's.
    pub typechange: bool,
    /// One entry per hunk.
    pub hunks: Vec<HunkReport>,
}

/// Which sides of a file a patch gives as binary data (`GIT binary
/// patch`): `git diff --binary` writes a binary file's change, creation
/// or deletion so, and a typechange's binary half.
///
/// ```
/// use git_fuzzy_apply::plan_patch;
/// use git_fuzzy_apply::report::BinarySides;
///
/// let dir = tempfile::tempdir().unwrap();
/// let patch = b"diff --git a/x b/x\nnew file mode 100644\nGIT binary patch\nliteral 0\nHcmV?d00001\n\n";
/// let report = plan_patch(patch, dir.path(), &Default::default()).unwrap().report();
/// assert_eq!(report.files[0].binary, BinarySides::New);
/// assert!(!report.files[0].binary.old_side() && report.files[0].binary.new_side());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum BinarySides {
    /// Text only.
    #[default]
    None,
    /// The old side (a deleted binary file, a typechange's deletion).
    Old,
    /// The new side (a created binary file, a typechange's creation).
    New,
    /// Both sides (a changed binary file).
    Both,
}

impl BinarySides {
    /// Of a file patch's operation, when it carries binary data
    /// (`binary`): the sides that exist.
    pub(crate) fn of(op: FileOp, binary: bool) -> Self {
        match (binary, op) {
            (false, _) => BinarySides::None,
            (true, FileOp::Add) => BinarySides::New,
            (true, FileOp::Delete) => BinarySides::Old,
            (true, FileOp::Update) => BinarySides::Both,
        }
    }

    /// Of a typechange: whether its deletion (`old`) and its creation
    /// (`new`) carry binary data.
    pub(crate) fn of_sides(old: bool, new: bool) -> Self {
        match (old, new) {
            (false, false) => BinarySides::None,
            (true, false) => BinarySides::Old,
            (false, true) => BinarySides::New,
            (true, true) => BinarySides::Both,
        }
    }

    /// True when the old side is binary data.
    ///
    /// ```
    /// use git_fuzzy_apply::report::BinarySides;
    ///
    /// assert!(BinarySides::Old.old_side() && BinarySides::Both.old_side());
    /// assert!(!BinarySides::New.old_side() && !BinarySides::None.old_side());
    /// ```
    pub fn old_side(self) -> bool {
        matches!(self, BinarySides::Old | BinarySides::Both)
    }

    /// True when the new side is binary data.
    ///
    /// ```
    /// use git_fuzzy_apply::report::BinarySides;
    ///
    /// assert!(BinarySides::New.new_side() && BinarySides::Both.new_side());
    /// assert!(!BinarySides::Old.new_side() && !BinarySides::None.new_side());
    /// ```
    pub fn new_side(self) -> bool {
        matches!(self, BinarySides::New | BinarySides::Both)
    }

    /// True when either side is binary data.
    ///
    /// ```
    /// use git_fuzzy_apply::report::BinarySides;
    ///
    /// assert!(BinarySides::Old.any() && !BinarySides::None.any());
    /// ```
    pub fn any(self) -> bool {
        self != BinarySides::None
    }
}

/// A 1-based, inclusive line range (`end < start` for an empty range at `start`).
///
/// ```
/// use git_fuzzy_apply::{plan_patch, report::LineRange};
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "a\nb\nc\nd\n").unwrap();
/// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n c\n-d\n+D\n+E\n";
/// let report = plan_patch(patch, dir.path(), &Default::default()).unwrap().report();
/// let hunk = &report.files[0].hunks[0];
/// assert_eq!(hunk.lines, Some(LineRange { start: 3, end: 4 }));
/// assert_eq!(hunk.new_lines, Some(LineRange { start: 3, end: 5 }));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LineRange {
    /// First line.
    pub start: usize,
    /// Last line.
    pub end: usize,
}

/// Status of one hunk.
///
/// ```
/// use git_fuzzy_apply::{plan_patch, report::HunkOutcome};
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "a\nnew\nc\n").unwrap();
/// // The change is already in the file: skipped, not applied twice.
/// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n a\n-old\n+new\n c\n";
/// let report = plan_patch(patch, dir.path(), &Default::default()).unwrap().report();
/// assert!(report.ok);
/// assert_eq!(report.files[0].hunks[0].status, HunkOutcome::AlreadyApplied);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum HunkOutcome {
    /// Placed and applied.
    Applied,
    /// Its result is already in the file.
    AlreadyApplied,
    /// Changes nothing.
    NoOp,
    /// Could not be placed.
    Failed,
}

impl HunkOutcome {
    /// The outcome of a hunk the ladder placed.
    pub(crate) fn of(s: HunkStatus) -> Self {
        match s {
            HunkStatus::Applied => HunkOutcome::Applied,
            HunkStatus::AlreadyApplied => HunkOutcome::AlreadyApplied,
            HunkStatus::NoOp => HunkOutcome::NoOp,
        }
    }
}

/// The outcome for one hunk.
///
/// ```
/// use git_fuzzy_apply::{Normalization, Tier};
/// use git_fuzzy_apply::plan_patch;
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.py"), "if x:\n    y = 1\n").unwrap();
/// // The context lost its indentation: found by the resilient tier.
/// let patch = b"--- a/a.py\n+++ b/a.py\n@@\n if x:\n-y = 1\n+    y = 2\n";
/// let report = plan_patch(patch, dir.path(), &Default::default()).unwrap().report();
/// let hunk = &report.files[0].hunks[0];
/// assert_eq!((hunk.index, hunk.patch_line), (1, 3));
/// assert_eq!(hunk.tier, Some(Tier::Resilient));
/// assert!(hunk.normalizations.contains(&Normalization::Whitespace));
/// assert_eq!((hunk.similarity, hunk.failure.is_none()), (1.0, true));
/// ```
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct HunkReport {
    /// 1-based index of the hunk within its file.
    pub index: usize,
    /// 1-based patch line where the hunk starts.
    pub patch_line: usize,
    /// Applied, already applied, no-op or failed.
    pub status: HunkOutcome,
    /// The tier that placed it.
    pub tier: Option<Tier>,
    /// Tolerances that were needed.
    pub normalizations: Vec<Normalization>,
    /// Lines of the original file the hunk covers.
    pub lines: Option<LineRange>,
    /// Lines of the patched file its result occupies (applied hunks only).
    pub new_lines: Option<LineRange>,
    /// Block similarity (1 unless the similarity tier was needed); for a
    /// failed hunk, the score of the closest place found (its near match,
    /// or the tied candidates), 0 when nothing came close.
    pub similarity: f64,
    /// Why it failed.
    pub failure: Option<HunkFailure>,
}

/// Details of a failed hunk.
///
/// ```
/// use git_fuzzy_apply::{Reason, plan_patch};
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "one\ntwo\nthree\n").unwrap();
/// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n one\n-tw0 x\n+2\n";
/// let report = plan_patch(patch, dir.path(), &Default::default()).unwrap().report();
/// let failure = report.files[0].hunks[0].failure.as_ref().unwrap();
/// assert_eq!(failure.code, Reason::ContextNotFound);
/// assert_eq!(failure.expected, ["one", "tw0 x"]);
/// let near = failure.near_match.as_ref().unwrap();
/// assert_eq!(near.start_line, 1);
/// // The hunk's score is its closest place's.
/// assert_eq!(report.files[0].hunks[0].similarity, near.similarity);
/// assert!(failure.hunk_text.contains("-tw0 x\n"));
/// ```
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct HunkFailure {
    /// Stable reason code (`context_not_found`, `ambiguous`, …).
    pub code: Reason,
    /// Human explanation.
    pub message: String,
    /// The lines the hunk expected to find.
    pub expected: Vec<String>,
    /// For ambiguity: the first line (1-based) of every candidate.
    pub candidates: Vec<usize>,
    /// The candidates at which `--at FILE:N` places the hunk (checked by
    /// locating again with that line pinned); the human report suggests
    /// only these. Empty for a refusal that no pinned line settles.
    #[serde(skip)]
    pub at_settles: Vec<usize>,
    /// For ambiguity: each candidate with the file's lines around it.
    pub candidate_context: Vec<CandidateView>,
    /// The closest block of the file.
    pub near_match: Option<Box<NearMatch>>,
    /// The hunk as ` `/`-`/`+` lines, for `.rej` files and conflict reports
    /// (whole here and in `.rej` files; the JSON and Markdown reports cap
    /// each line, see [`quote`]).
    #[serde(serialize_with = "quote::serialize_lines")]
    pub hunk_text: String,
}

/// One place an ambiguous hunk could go, with the file's lines around it.
///
/// ```
/// use git_fuzzy_apply::{Reason, plan_patch};
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "a\nx\nb\nx\n").unwrap();
/// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n-x\n+y\n";
/// let report = plan_patch(patch, dir.path(), &Default::default()).unwrap().report();
/// let failure = report.files[0].hunks[0].failure.as_ref().unwrap();
/// assert_eq!(failure.code, Reason::Ambiguous);
/// assert_eq!(failure.candidates, [2, 4]);
/// let first = &failure.candidate_context[0];
/// assert_eq!((first.line, first.score), (2, 1.0));
/// assert!(first.lines.contains(&(2, "x".to_string())));
/// ```
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct CandidateView {
    /// First line of the candidate (1-based).
    pub line: usize,
    /// The tier that found it.
    pub tier: Option<Tier>,
    /// Its score: block similarity (1 for the line-by-line tiers); the
    /// candidates of an ambiguous hunk tie.
    pub score: f64,
    /// `(line number, text)` from two lines before to two lines after.
    pub lines: Vec<(usize, String)>,
}
