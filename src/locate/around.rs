//! The new side of a hunk standing around the place its old side was read
//! at (rule 7 of "One placement decision" in `docs/matching.md`): a hunk
//! that adds lines beside all its old lines leaves its old side standing
//! once applied, inside its new side.

use super::keys::FileKeys;
use super::normalize::{indentation, same_but_whitespace};
use super::search::Candidate;
use super::{Tier, choose::Hints};
use crate::model::{Hunk, LineKind};

/// The new side of a hunk standing around a candidate of its old side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum AppliedAround {
    /// It stands there with an added line that tells (a word that no
    /// removed line spells but for whitespace): the hunk is done.
    Done(usize),
    /// It stands there, but its added lines are blank or brackets only,
    /// which could have been there before: applied, or to apply again?
    Unsure(usize),
    /// It stands there only with an added line indented otherwise, around
    /// an old side read byte for byte, where no number names the place: a
    /// first run there wrote the added lines as the patch indents them, so
    /// the line is the file's own (another statement where indentation is
    /// meaning), or the applied state re-indented since.
    Reindented(usize),
}

impl AppliedAround {
    /// The first line of the new side standing around the candidate.
    pub(super) fn start(self) -> usize {
        match self {
            AppliedAround::Done(s) | AppliedAround::Unsure(s) | AppliedAround::Reindented(s) => s,
        }
    }
}

/// Where the new side of a hunk starts when it stands around the
/// candidate `cand` (holding the candidate's lines), every line exactly but
/// for whitespace. A hunk that adds lines before or after all its old
/// lines (context on one side only, or a SEARCH/REPLACE block whose
/// replacement keeps the searched lines) leaves its old side standing once
/// applied, inside its new side: the strict tiers read that applied state
/// as the old side at the very same lines, and applying again would add
/// the lines twice (rule 7 of "One placement decision": at the same lines
/// the hunk is already applied). A hunk whose every added line is a removed
/// line respaced (a whitespace fix) reads as done before it is made, and is
/// never taken for done here.
///
/// Over an old side read byte for byte (`tier` exact), a first run at
/// these lines wrote the added lines as the patch has them: a new side
/// standing only but for whitespace (an added line at 4 spaces beside the
/// same line at 8) is no applied state where the line number names the
/// candidate's first line exactly (an exact diff, applied afresh as `git
/// apply` does: `None`), and `Reindented` elsewhere.
pub(super) fn applied_at_candidate(
    keys: &FileKeys,
    hunk: &Hunk,
    tier: Tier,
    hints: &Hints,
    cand: &Candidate,
) -> Option<AppliedAround> {
    let removed: Vec<&str> = hunk
        .lines
        .iter()
        .filter(|l| l.kind == LineKind::Remove)
        .map(|l| &*l.text)
        .collect();
    let fresh: Vec<&str> = hunk
        .lines
        .iter()
        .filter(|l| l.kind == LineKind::Add)
        .map(|l| &*l.text)
        .filter(|t| !removed.iter().any(|r| same_but_whitespace(r, t)))
        .collect();
    if fresh.is_empty() {
        return None;
    }
    let new = keys.new_side(hunk);
    let stands_at = |start: usize| {
        start + new.len() <= keys.len()
            && new
                .iter()
                .enumerate()
                .all(|(i, l)| same_but_whitespace(&keys.text(start + i), l.text))
    };
    let indented_as_written = |start: usize| {
        stands_at(start)
            && new
                .iter()
                .enumerate()
                .all(|(i, l)| indentation(&keys.text(start + i)) == indentation(l.text))
    };
    // The new side must hold the candidate's lines.
    let mut starts = cand.end.saturating_sub(new.len())..=cand.start;
    let start = if tier == Tier::Exact {
        match starts.clone().find(|&s| indented_as_written(s)) {
            Some(s) => s,
            None => {
                let respaced = starts.find(|&s| stands_at(s))?;
                let numbered = [hints.line, hints.raw_line].contains(&Some(cand.start));
                return (!numbered).then_some(AppliedAround::Reindented(respaced));
            }
        }
    } else {
        starts.find(|&s| stands_at(s))?
    };
    if fresh.iter().any(|t| t.chars().any(char::is_alphanumeric)) {
        Some(AppliedAround::Done(start))
    } else {
        Some(AppliedAround::Unsure(start))
    }
}
