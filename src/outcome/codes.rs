//! The stable reason codes of the report: [`ProblemCode`] for a patch or a
//! file that could not be handled at all, and [`Reason`] for a hunk that could
//! not be placed. Both are part of the JSON contract (`docs/json.md`): a code
//! is never renamed or reused for another meaning, only added.

use crate::error::ParseError;
use crate::locate::Reason;
use serde::Serialize;
use std::fmt;

/// Declares [`ProblemCode`] with its code strings and its list of all
/// variants in one place, so the list can never miss a variant.
macro_rules! problem_codes {
    ($($(#[$doc:meta])* $variant:ident => $code:literal,)+) => {
        /// Stable code of a [`Problem`](super::Problem): why a patch as a
        /// whole, or one target file, could not be handled.
        ///
        /// ```
        /// use git_fuzzy_apply::{plan_patch, report::ProblemCode};
        ///
        /// let dir = tempfile::tempdir().unwrap();
        /// let report = plan_patch(b"--- a/../x\n+++ b/../x\n@@\n-a\n+b\n", dir.path(), &Default::default())
        ///     .unwrap()
        ///     .report();
        /// let code = report.files[0].error.as_ref().unwrap().code;
        /// assert_eq!(code, ProblemCode::PathOutsideTree);
        /// assert_eq!(code.to_string(), "path_outside_tree");
        /// ```
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
        #[non_exhaustive]
        pub enum ProblemCode {
            $($(#[$doc])* #[serde(rename = $code)] $variant,)+
        }

        impl ProblemCode {
            /// Every problem code, in declaration order.
            ///
            /// ```
            /// use git_fuzzy_apply::report::ProblemCode;
            ///
            /// assert_eq!(ProblemCode::ALL[0], ProblemCode::MalformedPatch);
            /// assert!(ProblemCode::ALL.contains(&ProblemCode::BinaryFile));
            /// ```
            pub const ALL: &'static [ProblemCode] = &[$(ProblemCode::$variant,)+];

            /// The code as it appears in reports (`malformed_patch`, …).
            ///
            /// ```
            /// use git_fuzzy_apply::report::ProblemCode;
            ///
            /// assert_eq!(ProblemCode::NoTargetPath.as_str(), "no_target_path");
            /// assert_eq!(serde_json::to_value(ProblemCode::NoTargetPath).unwrap(), "no_target_path");
            /// ```
            pub fn as_str(self) -> &'static str {
                match self {
                    $(ProblemCode::$variant => $code,)+
                }
            }
        }
    };
}

problem_codes! {
    /// An edit block is started but cannot be read, or the patch is not UTF-8.
    MalformedPatch => "malformed_patch",
    /// Nothing in the text is an edit in any notation we read.
    NoEdits => "no_edits",
    /// An edit names no file and no `--target` was given.
    NoTargetPath => "no_target_path",
    /// A path leaves the working tree or enters `.git`.
    PathOutsideTree => "path_outside_tree",
    /// The file to update or delete does not exist.
    FileNotFound => "file_not_found",
    /// The file to add, or the destination of a move, already exists.
    FileExists => "file_exists",
    /// The path names a directory or a special file.
    NotAFile => "not_a_file",
    /// The file is binary; only text files are patched.
    BinaryFile => "binary_file",
    /// The patch makes a path a file and also writes beneath it.
    PathConflict => "path_conflict",
    /// Reading the file failed.
    IoError => "io_error",
    /// `--index`/`--cached` outside a git repository.
    NotARepository => "not_a_repository",
    /// The repository or its index could not be read.
    GitError => "git_error",
    /// `--cached`/`--index`: the file is not in the index.
    NotInIndex => "not_in_index",
    /// `--index`: the working-tree file differs from the index.
    IndexMismatch => "index_mismatch",
    /// `--at FILE:LINE` names no place a hunk of FILE could go.
    UnmatchedPin => "unmatched_pin",
    /// The command line could not be used (exit 2).
    UsageError => "usage_error",
    /// Another run or git process holds the tree or its index (exit 2).
    Locked => "locked",
    /// A run killed while writing left a journal that cannot be put right
    /// (exit 2).
    InterruptedRun => "interrupted_run",
}

/// The problem code of each parse error: its mapping lives with the codes,
/// so the parser knows nothing of the report's vocabulary.
impl ParseError {
    /// Stable reason code for reports and JSON.
    ///
    /// ```
    /// use git_fuzzy_apply::{parse_patch, ParseOptions};
    /// use git_fuzzy_apply::report::ProblemCode;
    ///
    /// let err = parse_patch(b"Looks good to me!", &ParseOptions::default()).unwrap_err();
    /// assert_eq!(err.code(), ProblemCode::NoEdits);
    /// ```
    pub fn code(&self) -> ProblemCode {
        match self {
            ParseError::Malformed { .. } | ParseError::InvalidUtf8 { .. } => {
                ProblemCode::MalformedPatch
            }
            ParseError::NoEdits => ProblemCode::NoEdits,
            ParseError::NoTargetPath { .. } => ProblemCode::NoTargetPath,
        }
    }
}

impl fmt::Display for ProblemCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl PartialEq<&str> for ProblemCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// Every reason code a report can hold: the problem codes, then the hunk
/// failure reasons.
///
/// ```
/// let codes = git_fuzzy_apply::report::all_codes();
/// assert!(codes.contains(&"file_not_found") && codes.contains(&"ambiguous"));
/// ```
pub fn all_codes() -> Vec<&'static str> {
    ProblemCode::ALL
        .iter()
        .map(|c| c.as_str())
        .chain(Reason::ALL.iter().map(|r| r.code()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_snake_case_and_serialize_as_themselves() {
        let codes = all_codes();
        let unique: std::collections::HashSet<_> = codes.iter().collect();
        assert_eq!(unique.len(), codes.len());
        for code in &codes {
            assert!(code.chars().all(|c| c.is_ascii_lowercase() || c == '_'));
        }
        for c in ProblemCode::ALL {
            assert_eq!(
                serde_json::to_value(c).ok(),
                Some(serde_json::Value::from(c.as_str()))
            );
        }
        for r in Reason::ALL {
            assert_eq!(
                serde_json::to_value(r).ok(),
                Some(serde_json::Value::from(r.code()))
            );
        }
    }
}
