//! A candidate the ladder proposes and the refusal naming two places:
//! shared by the acceptance checks (`accept.rs`) and the rules they call
//! (`at_number.rs`, `deletion.rs`), which depend on these, not on each
//! other.

use super::choose::Hints;
use super::keys::{FileKeys, OldLine};
use super::{FileState, MatchOptions, Tier, ambiguous};
use crate::locate::Failure;
use crate::model::Hunk;

/// A candidate the ladder proposes, with what the checks weigh it against.
pub(super) struct Proposal<'a, 'k, 'h> {
    /// The file's lines and their keys.
    pub keys: &'a FileKeys<'k>,
    /// The hunk being placed.
    pub hunk: &'a Hunk,
    /// Its index among the file's hunks.
    pub index: usize,
    /// Its old side.
    pub old: &'a [OldLine<'h>],
    /// The tier that found the candidate.
    pub tier: Tier,
    /// What the patch says about the hunk's place.
    pub hints: &'a Hints,
    /// The hunks of the file placed so far.
    pub state: &'a FileState,
    /// The matching options of the run.
    pub options: &'a MatchOptions,
}

/// Two places, sorted, and why they are two readings.
pub(super) fn two_places(index: usize, a: usize, b: usize, why: String) -> Failure {
    let mut starts = vec![a, b];
    starts.sort_unstable();
    ambiguous(index, &starts, None, Some(why))
}
