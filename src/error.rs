//! Typed errors of the library. Nothing in the library panics on user input.

use thiserror::Error;

/// Why a patch text could not be read.
///
/// ```
/// use git_fuzzy_apply::ParseError;
/// use git_fuzzy_apply::{parse_patch, ParseOptions};
///
/// let broken = b"<<<<<<< SEARCH\nold\n>>>>>>> REPLACE\n";
/// let err = parse_patch(broken, &ParseOptions::default()).unwrap_err();
/// assert!(matches!(err, ParseError::Malformed { line: 3, .. }), "{err:?}");
/// assert!(err.to_string().starts_with("patch line 3: found `>>>>>>> REPLACE`"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParseError {
    /// An edit block is present but broken (bad marker order, truncated hunk, …).
    #[error("patch line {line}: {message}")]
    Malformed {
        /// 1-based line of the patch text.
        line: usize,
        /// What is wrong and, where possible, how to fix it.
        message: String,
    },
    /// The patch text is not UTF-8.
    #[error("patch line {line}: the patch is not valid UTF-8")]
    InvalidUtf8 {
        /// 1-based line holding the first invalid byte.
        line: usize,
    },
    /// Nothing in the text is an edit in any format we read.
    #[error(
        "no edits found: the patch holds no unified diff, `*** Begin Patch` envelope or SEARCH/REPLACE block"
    )]
    NoEdits,
    /// An edit names no file and no `--target` was given.
    #[error(
        "patch line {line}: this edit names no file; put the path on the line before the block or pass --target PATH"
    )]
    NoTargetPath {
        /// 1-based line of the patch text where the edit starts.
        line: usize,
    },
}

impl ParseError {
    /// The 1-based patch line the error points at, if any.
    ///
    /// ```
    /// use git_fuzzy_apply::{parse_patch, ParseOptions};
    ///
    /// let err = parse_patch(b"Fine.\n\xff\n", &ParseOptions::default()).unwrap_err();
    /// assert_eq!(err.line(), Some(2));
    /// let err = parse_patch(b"Fine.\n", &ParseOptions::default()).unwrap_err();
    /// assert_eq!(err.line(), None);
    /// ```
    pub fn line(&self) -> Option<usize> {
        match self {
            ParseError::Malformed { line, .. }
            | ParseError::InvalidUtf8 { line }
            | ParseError::NoTargetPath { line } => Some(*line),
            ParseError::NoEdits => None,
        }
    }
}
