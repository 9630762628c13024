//! git-fuzzy-apply: apply the patches language models write, exactly, or
//! refuse with a reason.
//!
//! The pipeline, one stage after the other:
//!
//! 1. [`parse_patch`] reads any supported notation into the one [`model`];
//! 2. every hunk is found in the original file with the tier ladder
//!    ([`MatchOptions`], [`Tier`]);
//! 3. the located hunks become non-overlapping edits, and the new content is
//!    streamed into place, all files or none;
//! 4. [`report`] tells people and tools what happened.
//!
//! The root holds the API, with the types it takes and gives:
//! [`parse_patch`] reads a patch; [`apply_to_text`] runs the core on one
//! text in memory; [`plan_patch`] plans a patch against a directory
//! without writing (a [`PatchPlan`], whose [`Report`] is built from it);
//! [`run`] does what the command does (plan, lock, write or stage), and
//! [`run_hook`] applies the patches waiting in a folder. The core
//! (parsing, locating, planning) does no I/O. Two modules are public: the
//! patch [`model`] every notation is parsed into, and the [`report`] with
//! its renderers (human, JSON, feedback, stat, unified). The command line
//! and the progress bar are the binary's, not the library's.
//!
//! ```
//! use git_fuzzy_apply::{apply_to_text, ApplyOptions};
//! let file = "def greet():\n    print('hi')\n";
//! let patch = "--- a/x.py\n+++ b/x.py\n@@\n def greet():\n-    print('hi')\n+    print('hello')\n";
//! let out = apply_to_text(patch.as_bytes(), file.as_bytes(), &ApplyOptions::default()).unwrap();
//! assert_eq!(out, b"def greet():\n    print('hello')\n");
//! ```

#![warn(missing_docs)]
#![warn(unnameable_types)]
#![warn(unreachable_pub)]

mod error;
mod git;
mod hook;
mod journal;
mod locate;
mod lock;
pub mod model;
mod outcome;
mod patch;
mod plan;
mod progress;
pub mod report;
mod run;
mod sigbus;
mod signals;
mod source;
mod test_hooks;
mod write;

pub use error::ParseError;
pub use git::GitError;
pub use hook::{HookEntry, HookMode, HookRun, run_hook};
pub use journal::{JournalError, LeftAlone};
pub use locate::{MatchOptions, Normalization, Reason, Tier};
pub use model::Patch;
pub use outcome::Problem;
pub use outcome::codes::ProblemCode;
pub use patch::{ParseOptions, PatchText, parse_patch, parse_patch_text};
pub use plan::{ApplyOptions, FileResult, PatchPlan, PathRule, Pin, PlannedFile, plan_patch};
pub use progress::{NoProgress, Progress, Stage, Workload};
pub use report::Report;
pub use run::{
    ConflictReport, Destination, Invocation, Outcome, Recovery, RunError, recover, run,
    run_patch_text, run_with_progress,
};
pub use signals::clean_up_on_signals;
#[cfg(feature = "test-hooks")]
pub use test_hooks::in_process;
pub use write::{CommitError, FinishError};

/// Why [`apply_to_text`] did not produce a result.
///
/// ```
/// use git_fuzzy_apply::{apply_to_text, ApplyOptions, TextApplyError};
///
/// // `return x` occurs twice: the hunk is refused, not guessed.
/// let file = b"def a(x):\n    return x\n\ndef b(x):\n    return x\n";
/// let patch = b"--- a/m.py\n+++ b/m.py\n@@\n-    return x\n+    return x + 1\n";
/// match apply_to_text(patch, file, &ApplyOptions::default()) {
///     Err(TextApplyError::Hunk { hunk, code, .. }) => {
///         assert_eq!((hunk, code), (1, "ambiguous"));
///     }
///     other => panic!("expected a refusal, got {other:?}"),
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TextApplyError {
    /// The patch could not be read.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// The patch does not hold exactly one file's edits.
    #[error("the patch edits {0} files; apply_to_text takes one")]
    NotOneFile(usize),
    /// The file as a whole could not be planned (binary, a path conflict,
    /// a rename onto an existing file, …).
    #[error("{message} [{code}]")]
    File {
        /// Problem code.
        code: &'static str,
        /// Explanation.
        message: String,
    },
    /// A hunk could not be placed.
    #[error("hunk {hunk}: {message} [{code}]")]
    Hunk {
        /// 1-based hunk index.
        hunk: usize,
        /// Reason code.
        code: &'static str,
        /// Explanation.
        message: String,
    },
}

/// Applies a one-file patch to an in-memory text and returns the new bytes.
///
/// The patch may be in any notation [`parse_patch`] reads, but must
/// edit exactly one file; whatever its path in the patch, that file's
/// content is `original`. It runs the command's own planning (`-R`,
/// `--directory`, path rules, `--at` pins, the binary check, path
/// conflicts, every placement rule) on a target held in memory; nothing
/// touches the disk. Every hunk must be placed or the call fails with the
/// first that was not.
///
/// ```
/// use git_fuzzy_apply::{apply_to_text, ApplyOptions};
///
/// let file = "fn main() {\n    let total = 1;\n    println!(\"{total}\");\n}\n";
/// // A SEARCH/REPLACE block written without its indentation.
/// let patch = "src/main.rs\n<<<<<<< SEARCH\nlet total = 1;\n=======\nlet total = 2;\n>>>>>>> REPLACE\n";
/// let out = apply_to_text(patch.as_bytes(), file.as_bytes(), &ApplyOptions::default()).unwrap();
/// assert_eq!(
///     String::from_utf8(out).unwrap(),
///     "fn main() {\n    let total = 2;\n    println!(\"{total}\");\n}\n"
/// );
/// ```
pub fn apply_to_text(
    patch: &[u8],
    original: &[u8],
    options: &ApplyOptions,
) -> Result<Vec<u8>, TextApplyError> {
    let parsed = patch::parse_patch(patch, &options.parse)?;
    let mut paths: Vec<&str> = parsed.files.iter().map(|f| f.path.as_str()).collect();
    paths.sort_unstable();
    paths.dedup();
    if paths.len() != 1 {
        return Err(TextApplyError::NotOneFile(paths.len()));
    }
    let target = OneText::new(original);
    let text = patch::PatchText::from(patch.to_vec());
    let plan = plan::plan_patch_with(&text, &target, options, &progress::NoProgress);
    if let Some(problem) = &plan.error {
        return Err(TextApplyError::File {
            code: problem.code.as_str(),
            message: problem.message.clone(),
        });
    }
    for file in plan.files.iter().map(|f| &f.report) {
        if let Some(h) = file.hunks.iter().find(|h| h.failure.is_some())
            && let Some(f) = &h.failure
        {
            return Err(TextApplyError::Hunk {
                hunk: h.index,
                code: f.code.code(),
                message: f.message.clone(),
            });
        }
        if let Some(problem) = &file.error {
            return Err(TextApplyError::File {
                code: problem.code.as_str(),
                message: problem.message.clone(),
            });
        }
    }
    let results: Vec<&FileResult> = plan.results().collect();
    match results.as_slice() {
        [one] => Ok(one.new_bytes().into_owned()),
        many => Err(TextApplyError::NotOneFile(many.len())),
    }
}

/// The one target of [`apply_to_text`]: the first path asked for is the
/// text; every other path (a rename's destination) does not exist.
struct OneText<'a> {
    bytes: &'a [u8],
    path: std::sync::OnceLock<String>,
}

impl<'a> OneText<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        OneText {
            bytes,
            path: std::sync::OnceLock::new(),
        }
    }
}

impl source::Targets for OneText<'_> {
    fn read(&self, path: &str) -> Result<Option<source::Content>, source::TargetError> {
        let mine = self.path.get_or_init(|| path.to_string());
        Ok((mine == path).then(|| source::Content::Owned(self.bytes.to_vec())))
    }
}
