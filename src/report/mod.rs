//! What happened, for people and for tools: the [`Report`] of one run, its
//! human rendering, and the completed standard unified diff.

pub mod codes;
pub mod conflict;
pub mod feedback;
pub mod human;
pub mod stat;
pub mod unified;

use crate::locate::{HunkStatus, NearMatch, Normalization, Reason, Tier};
use crate::model::{FileOp, PatchFormat};
use serde::Serialize;

pub use codes::{ProblemCode, all_codes};

/// Version of the JSON report layout (`docs/json.md`): raised only by an
/// incompatible change; fields and reason codes may be added without it.
pub const REPORT_VERSION: u32 = 1;

/// The outcome of one invocation: what `--json` prints.
///
/// ```
/// use git_fuzzy_apply::plan_patch;
/// use git_fuzzy_apply::target::WorktreeTargets;
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
/// let targets = WorktreeTargets::new(dir.path()).unwrap();
/// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n one\n-three\n+3\n";
/// let report = plan_patch(patch, &targets, &Default::default()).report;
/// assert_eq!(report.exit_code(), 1);
/// let json = serde_json::to_value(&report).unwrap();
/// assert_eq!(json["ok"], false);
/// assert_eq!(json["files"][0]["status"], "failed");
/// assert!(json["files"][0]["hunks"][0]["failure"]["code"].is_string());
/// ```
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Layout version of this report.
    pub version: u32,
    /// True when every hunk of every file could be applied (and, unless
    /// `check`, was written).
    pub ok: bool,
    /// True when nothing was to be written (`--check`).
    pub check: bool,
    /// A problem with the patch as a whole (it could not be read).
    pub error: Option<Problem>,
    /// One entry per target file.
    pub files: Vec<FileReport>,
}

/// A reason code with a message and, where known, the patch line.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Problem {
    /// Stable reason code (`malformed_patch`, `file_not_found`, …).
    pub code: ProblemCode,
    /// Human explanation with the fix where one is known.
    pub message: String,
    /// 1-based patch line, when the problem has one.
    pub patch_line: Option<usize>,
}

impl Problem {
    /// Builds a problem.
    pub fn new(code: ProblemCode, message: impl Into<String>, patch_line: Option<usize>) -> Self {
        Problem {
            code,
            message: message.into(),
            patch_line,
        }
    }
}

/// Status of one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
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
#[derive(Debug, Clone, Serialize)]
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
    /// One entry per hunk.
    pub hunks: Vec<HunkReport>,
}

/// A 1-based, inclusive line range (`end < start` for an empty range at `start`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LineRange {
    /// First line.
    pub start: usize,
    /// Last line.
    pub end: usize,
}

/// Status of one hunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
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

impl From<HunkStatus> for HunkOutcome {
    fn from(s: HunkStatus) -> Self {
        match s {
            HunkStatus::Applied => HunkOutcome::Applied,
            HunkStatus::AlreadyApplied => HunkOutcome::AlreadyApplied,
            HunkStatus::NoOp => HunkOutcome::NoOp,
        }
    }
}

/// The outcome for one hunk.
#[derive(Debug, Clone, Serialize)]
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
    /// Block similarity (1 unless the similarity tier was needed).
    pub similarity: f64,
    /// Why it failed.
    pub failure: Option<HunkFailure>,
}

/// Details of a failed hunk.
#[derive(Debug, Clone, Serialize)]
pub struct HunkFailure {
    /// Stable reason code (`context_not_found`, `ambiguous`, …).
    pub code: Reason,
    /// Human explanation.
    pub message: String,
    /// The lines the hunk expected to find.
    pub expected: Vec<String>,
    /// For ambiguity: the first line (1-based) of every candidate.
    pub candidates: Vec<usize>,
    /// For ambiguity: each candidate with the file's lines around it.
    pub candidate_context: Vec<CandidateView>,
    /// The closest block of the file.
    pub near_match: Option<Box<NearMatch>>,
    /// The hunk as ` `/`-`/`+` lines, for `.rej` files and conflict reports.
    pub hunk_text: String,
}

/// One place an ambiguous hunk could go, with the file's lines around it.
#[derive(Debug, Clone, Serialize)]
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

impl Report {
    /// Process exit code: 0 applied, 1 not applied.
    pub fn exit_code(&self) -> i32 {
        if self.ok { 0 } else { 1 }
    }
}
