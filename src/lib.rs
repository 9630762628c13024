//! git-fuzzy-apply: apply the patches language models write, exactly, or
//! refuse with a reason.
//!
//! The pipeline, one stage after the other:
//!
//! 1. [`patch`] reads any supported notation into the one [`model`];
//! 2. [`locate`] finds every hunk in the original file with the tier ladder;
//! 3. the located hunks become non-overlapping edits, and the new content is
//!    streamed into place, all files or none;
//! 4. [`report`] tells people and tools what happened.
//!
//! [`apply_to_text`] runs the core on one text in memory; [`plan_patch`]
//! plans a patch against a directory without writing; [`invocation::run`]
//! does what the command does (plan, lock, write or stage). The core
//! (parsing, locating, planning) does no I/O.
//!
//! ```
//! use git_fuzzy_apply::{apply_to_text, ApplyOptions};
//! let file = "def greet():\n    print('hi')\n";
//! let patch = "--- a/x.py\n+++ b/x.py\n@@\n def greet():\n-    print('hi')\n+    print('hello')\n";
//! let out = apply_to_text(patch.as_bytes(), file.as_bytes(), &ApplyOptions::default()).unwrap();
//! assert_eq!(out, b"def greet():\n    print('hello')\n");
//! ```

#![warn(missing_docs)]

mod apply;
pub mod cli;
mod content;
mod error;
mod git;
pub mod hook;
pub mod invocation;
mod journal;
pub mod locate;
pub mod model;
pub mod patch;
mod plan;
pub mod progress;
pub mod report;
mod source;
mod target;
mod write;

pub use apply::{ApplyOptions, FileResult, PatchPlan, plan_patch};
pub use error::ParseError;
pub use report::Report;

use locate::locate_file;
use source::SourceText;

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
/// The patch may be in any notation [`patch::parse_patch`] reads, but must
/// edit exactly one file; the file's path in the patch is not used. Nothing
/// touches the disk. The hunks are located with `options.matching`; every
/// hunk must be placed or the call fails with the first that was not.
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
    let [file] = parsed.files.as_slice() else {
        return Err(TextApplyError::NotOneFile(parsed.files.len()));
    };
    let source = SourceText::new(original);
    let (hunks, results) = locate_file(&source, &file.hunks, &options.matching, &[]);
    let mut located = Vec::new();
    for result in results {
        match result {
            Ok(loc) => located.push(loc),
            Err(f) => {
                return Err(TextApplyError::Hunk {
                    hunk: f.hunk + 1,
                    code: f.reason.code(),
                    message: f.message,
                });
            }
        }
    }
    let plan = plan::plan_file(&source, &hunks, &mut located);
    Ok(write::render_to_vec(&source, &plan))
}
