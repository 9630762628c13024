//! What happened, for people and for tools: the [`Report`] of one run, its
//! human rendering, and the completed standard unified diff.
//!
//! ```
//! use git_fuzzy_apply::plan_patch;
//! use git_fuzzy_apply::report::{HunkOutcome, human};
//!
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
//! let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n one\n-two\n+2\n";
//! let report = plan_patch(patch, dir.path(), &Default::default()).unwrap().report();
//! assert_eq!(report.files[0].hunks[0].status, HunkOutcome::Applied);
//! assert!(human::summary(&report, false).contains("a.txt"));
//! ```

pub mod color;
pub(crate) mod conflict;
pub mod feedback;
pub mod human;
pub mod stat;
pub mod unified;

use crate::plan::PatchPlan;
use serde::Serialize;

pub use crate::locate::NearMatch;
pub use crate::outcome::codes::{ProblemCode, all_codes};
pub use crate::outcome::quote;
pub use crate::outcome::{
    BinarySides, CandidateView, FileReport, FileStatus, HunkFailure, HunkOutcome, HunkReport,
    LineRange, Problem,
};

/// Version of the JSON report layout (`docs/json.md`): raised only by an
/// incompatible change; fields and reason codes may be added without it.
///
/// ```
/// use git_fuzzy_apply::{plan_patch, report::REPORT_VERSION};
///
/// let dir = tempfile::tempdir().unwrap();
/// let report = plan_patch(b"no patch here", dir.path(), &Default::default()).unwrap().report();
/// assert_eq!(report.version, REPORT_VERSION);
/// assert_eq!(serde_json::to_value(&report).unwrap()["version"], REPORT_VERSION);
/// ```
pub const REPORT_VERSION: u32 = 1;

/// The outcome of one invocation: what `--json` prints.
///
/// ```
/// use git_fuzzy_apply::plan_patch;
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
/// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n one\n-three\n+3\n";
/// let report = plan_patch(patch, dir.path(), &Default::default()).unwrap().report();
/// assert!(!report.ok && !report.check && report.error.is_none());
/// let json = serde_json::to_value(&report).unwrap();
/// assert_eq!(json["ok"], false);
/// assert_eq!(json["files"][0]["status"], "failed");
/// assert_eq!(json["files"][0]["hunks"][0]["failure"]["code"], "context_not_found");
/// ```
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
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

/// What `--json` prints: a [`Report`], with the `--feedback` text when
/// both options are given (see [`Report::json`]).
///
/// ```
/// use git_fuzzy_apply::report::{Problem, ProblemCode, Report};
///
/// let report = Report::failed(Problem::new(ProblemCode::Locked, "busy", None));
/// let json = serde_json::to_string(&report.json(Some("wait".into()))).unwrap();
/// // The report's fields first, in their order, then the feedback.
/// assert!(json.starts_with("{\"version\":1,\"ok\":false") && json.ends_with("\"feedback\":\"wait\"}"));
/// ```
#[derive(Debug, Serialize)]
pub struct JsonReport<'a> {
    /// The report's own fields.
    #[serde(flatten)]
    pub report: &'a Report,
    /// The `--feedback` text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feedback: Option<String>,
}

impl Report {
    /// The report of `plan`, built from it: ok when the plan is, each
    /// file's entry as planned; `check` when nothing was to be written
    /// (`--check`).
    ///
    /// ```
    /// use git_fuzzy_apply::{plan_patch, Report};
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    /// let plan = plan_patch(b"--- a/a.txt\n+++ b/a.txt\n@@\n-a\n+b\n", dir.path(), &Default::default());
    /// let report = Report::of(&plan.unwrap(), true);
    /// assert!(report.ok && report.check && report.files.len() == 1);
    /// ```
    pub fn of(plan: &PatchPlan, check: bool) -> Report {
        Report {
            version: REPORT_VERSION,
            ok: plan.ok(),
            check,
            error: plan.error.clone(),
            files: plan.files.iter().map(|f| f.report.clone()).collect(),
        }
    }

    /// The report of a run that could not be made (exit 2): not ok, no
    /// files, and `problem` as its error. `--json` prints it for a usage
    /// error, a patch file that cannot be read, or a tree another run holds.
    ///
    /// ```
    /// use git_fuzzy_apply::report::{Problem, ProblemCode, Report};
    ///
    /// let report = Report::failed(Problem::new(ProblemCode::UsageError, "bad option", None));
    /// assert!(!report.ok && report.files.is_empty());
    /// assert_eq!(serde_json::to_value(&report).unwrap()["error"]["code"], "usage_error");
    /// ```
    pub fn failed(problem: Problem) -> Report {
        Report {
            version: REPORT_VERSION,
            ok: false,
            check: false,
            error: Some(problem),
            files: Vec::new(),
        }
    }

    /// The report as `--json` prints it: its own fields in order, and
    /// `feedback` (the `--feedback` text) as one more field when given.
    ///
    /// ```
    /// use git_fuzzy_apply::report::{Problem, ProblemCode, Report};
    ///
    /// let report = Report::failed(Problem::new(ProblemCode::IoError, "gone", None));
    /// let value = serde_json::to_value(report.json(Some("fix it".into()))).unwrap();
    /// assert_eq!((value["feedback"].as_str(), value["ok"].as_bool()), (Some("fix it"), Some(false)));
    /// let plain = serde_json::to_value(report.json(None)).unwrap();
    /// assert!(plain.get("feedback").is_none());
    /// ```
    pub fn json(&self, feedback: Option<String>) -> JsonReport<'_> {
        JsonReport {
            report: self,
            feedback,
        }
    }

    /// Process exit code: 0 applied, 1 not applied.
    ///
    /// ```
    /// use git_fuzzy_apply::plan_patch;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let report = plan_patch(b"not a patch", dir.path(), &Default::default()).unwrap().report();
    /// assert!(!report.ok);
    /// assert_eq!(report.exit_code(), 1);
    /// ```
    pub fn exit_code(&self) -> i32 {
        if self.ok { 0 } else { 1 }
    }
}

impl PatchPlan {
    /// The report of this plan, as [`plan_patch`](crate::plan_patch) gives
    /// it (nothing written, not a `--check` run): [`Report::of`].
    ///
    /// ```
    /// use git_fuzzy_apply::plan_patch;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let report = plan_patch(b"no patch here", dir.path(), &Default::default()).unwrap().report();
    /// assert!(!report.ok && !report.check && report.error.is_some());
    /// ```
    pub fn report(&self) -> Report {
        Report::of(self, false)
    }
}
