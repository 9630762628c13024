//! Producing the result on disk: an all-or-nothing replacement of files
//! ([`commit_with_progress`]), each new content streamed into place by
//! `crate::plan::render`.

use crate::journal::LeftAlone;
use crate::plan::NewContent;
use crate::source::{Content, Stamp};
use std::io;
use std::path::{Path, PathBuf};

/// What a file must look like on disk right before it is replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Expect<'a> {
    /// The file must not exist (it is being added).
    Absent,
    /// The file must still hold exactly these bytes (it was read as such).
    Content(&'a [u8]),
    /// The file must still have this size and modification time (it was
    /// memory-mapped, so its bytes cannot be compared with themselves).
    Stamp(Stamp),
    /// A symbolic link (not followed) must still be there, pointing to
    /// this target.
    Link(&'a [u8]),
}

/// One file change to commit to disk.
#[derive(Debug, Clone)]
pub(crate) enum FileChange<'a> {
    /// Write `content` to `path` (creating parent directories).
    Write {
        /// Destination.
        path: PathBuf,
        /// The content before (what an edited file's new content is
        /// rendered from; empty for an added file).
        old: &'a Content,
        /// The new content, as the planner gave it.
        new: &'a NewContent,
        /// What the destination must be right before the write.
        expect: Expect<'a>,
        /// Permission bits to set (`0o755`/`0o644`); `None` keeps the file's own.
        mode: Option<u32>,
        /// The new content is a symbolic link's target: a link is made,
        /// replacing whatever stands at `path` (never written through).
        link: bool,
    },
    /// Remove `path`, which must still be as `expect` says.
    Delete {
        /// The file to remove.
        path: PathBuf,
        /// What it must be right before it is removed.
        expect: Expect<'a>,
    },
}

/// Why a commit did not happen.
///
/// ```
/// use git_fuzzy_apply::CommitError;
/// use std::path::PathBuf;
///
/// // A target changed between reading and writing: no file was replaced.
/// let changed = CommitError::Changed(PathBuf::from("src/a.py"));
/// assert!(changed.to_string().ends_with("nothing was written"));
/// ```
#[derive(Debug, thiserror::Error)]
pub enum CommitError {
    /// Someone changed a target between reading and writing.
    #[error("{0}: the file changed on disk while the patch was being applied; nothing was written")]
    Changed(PathBuf),
    /// An I/O error; files already replaced were restored (but those
    /// changed by someone else since, `left_alone`).
    #[error(
        "{path}: {source}; every file was left as it was{}{}{}",
        but_for(left_alone),
        journal_left(journal.as_deref()),
        left_alone_lines(left_alone)
    )]
    Io {
        /// The file being written or removed.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
        /// The journal, when it could not be removed after the undoing.
        journal: Option<PathBuf>,
        /// Files changed by someone else after this run wrote them: left
        /// as they are, not put back.
        left_alone: Vec<LeftAlone>,
    },
    /// An I/O error, and putting back the files already replaced failed
    /// too: the journal (if any) is kept so that recovery can finish it.
    #[error(
        "{path}: {source}; putting back the files already replaced failed as well ({undo}); {}",
        match journal {
            Some(j) => format!("the journal {} is kept: run `git fuzzy-apply --recover` to finish restoring them", j.display()),
            None => "some files may be left changed".to_string(),
        }
    )]
    Unfinished {
        /// The file being written or removed.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
        /// Why putting the files back failed.
        undo: io::Error,
        /// The journal that recovery reads, when the commit kept one.
        journal: Option<PathBuf>,
    },
}

/// Why finishing a commit whose files are all in place failed.
///
/// ```
/// use git_fuzzy_apply::{FinishError, LeftAlone};
/// use std::io;
/// use std::path::PathBuf;
///
/// let undone = FinishError::Undone {
///     journal: PathBuf::from(".git/fuzzy-apply/journal"),
///     source: io::Error::other("disk full"),
///     kept: false,
///     left_alone: Vec::new(),
/// };
/// let message = undone.to_string();
/// assert!(message.contains("(disk full)") && message.ends_with("every file was put back as it was"));
/// // A file someone wrote after the run did is left as it is, and named.
/// let changed = LeftAlone { path: PathBuf::from("a.txt"), kept: Some(PathBuf::from(".fuzzy-apply-old-1")) };
/// let undone = FinishError::Undone {
///     journal: PathBuf::from(".git/fuzzy-apply/journal"),
///     source: io::Error::other("disk full"),
///     kept: false,
///     left_alone: vec![changed],
/// };
/// let message = undone.to_string();
/// assert!(message.contains("every file was put back as it was, but for 1 file"));
/// assert!(message.contains("a.txt: changed after this run wrote it, left as it is"));
/// assert!(message.contains("kept in .fuzzy-apply-old-1"));
/// ```
#[derive(Debug, thiserror::Error)]
pub enum FinishError {
    /// The journal could not be marked committed; every file was put back
    /// (but those changed by someone else since, `left_alone`).
    #[error(
        "{}: marking the journal committed failed ({source}); every file was put back as it was{}{}{}",
        journal.display(),
        but_for(left_alone),
        journal_left(kept.then_some(journal.as_path())),
        left_alone_lines(left_alone)
    )]
    Undone {
        /// The journal.
        journal: PathBuf,
        /// Why the mark could not be written.
        source: io::Error,
        /// True when the journal could not be removed after the undoing.
        kept: bool,
        /// Files changed by someone else after this run wrote them: left
        /// as they are, not put back.
        left_alone: Vec<LeftAlone>,
    },
    /// The journal could not be marked committed, and putting the files
    /// back failed too.
    #[error(
        "{}: marking the journal committed failed ({source}) and putting the files back failed as well ({undo}); the journal is kept: run `git fuzzy-apply --recover` to finish restoring them",
        journal.display()
    )]
    Unfinished {
        /// The journal.
        journal: PathBuf,
        /// Why the mark could not be written.
        source: io::Error,
        /// Why the files could not be put back.
        undo: io::Error,
    },
    /// Every file is new, but the clean-up after it failed.
    #[error(
        "the patch was applied (every file is new), but {step} failed: {source}{}",
        match journal {
            Some(j) => format!("; the journal {} is kept: `git fuzzy-apply --recover` finishes the clean-up", j.display()),
            None => String::new(),
        }
    )]
    Applied {
        /// The step that failed.
        step: &'static str,
        /// Why.
        source: io::Error,
        /// The journal kept for recovery, if any.
        journal: Option<PathBuf>,
    },
}

/// The end of the message of a run that was undone but whose journal could
/// not be removed.
pub(crate) fn journal_left(journal: Option<&Path>) -> String {
    journal.map_or_else(String::new, |j| {
        format!(
            "; its journal {} could not be removed: the next run, or `git fuzzy-apply --recover`, removes it",
            j.display()
        )
    })
}

/// After "put back as it was" in the message of an undone run: which
/// files were not (changed by someone else after the run wrote them), or
/// nothing when every file was.
pub(crate) fn but_for(left_alone: &[LeftAlone]) -> String {
    match left_alone.len() {
        0 => String::new(),
        1 => ", but for 1 file changed after this run wrote it, left as it is".to_string(),
        n => format!(", but for {n} files changed after this run wrote them, left as they are"),
    }
}

/// The end of the message of an undone run: one line for each file left
/// as it is, with where its content from before the run is kept.
pub(crate) fn left_alone_lines(left_alone: &[LeftAlone]) -> String {
    let mut lines = String::new();
    for file in left_alone {
        lines.push_str(&format!(
            "\n  {}: changed after this run wrote it, left as it is",
            file.path.display()
        ));
        if let Some(kept) = &file.kept {
            lines.push_str(&format!(
                " (its content from before the run is kept in {})",
                kept.display()
            ));
        }
    }
    lines
}

/// The directory `path` is in (`.` for a bare name).
pub(super) fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

mod changes;
mod commit;
mod stage;
mod writeback;

#[cfg(test)]
use crate::plan::render::render_to_vec;
pub(crate) use changes::worktree_changes;
#[cfg(test)]
use commit::commit;
pub(crate) use commit::commit_with_progress;

#[cfg(test)]
pub(crate) mod tests;
