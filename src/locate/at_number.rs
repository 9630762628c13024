//! The applied state where the number names it (rule 7 of "One placement
//! decision" in `docs/matching.md`): a hunk whose new side starts on the
//! very line its number names, read as written and carried by the hunks
//! placed afresh or by the hunks found done, reads as applied there. An
//! old side found anywhere else is then a second reading, whatever stands
//! between them: a copy of the new side beside the number (a line replaced
//! by a copy of its neighbour), added lines without a word (a line
//! blanked), the old side standing again over the applied state's lines.

use super::choose::Hints;
use super::keys::{FileKeys, OldLine};
use super::normalize::same_but_whitespace;
use super::search::Candidate;
use super::{FileState, hint_line};
use crate::model::Hunk;

/// The first line of the hunk's new side `new` when it stands, every line
/// exactly but for whitespace, starting on a line the hunk's number names
/// (`hints.line`, or the number carried by the offset of the hunks found
/// done), while the candidate `cand` of its old side starts on none of
/// them. `None` without a number, or for a new side with no lines.
pub(super) fn new_side_at_number(
    keys: &FileKeys,
    hunk: &Hunk,
    new: &[OldLine],
    hints: &Hints,
    state: &FileState,
    cand: &Candidate,
) -> Option<usize> {
    let n = keys.len();
    let done = hunk
        .line_hint
        .and_then(|l| hint_line(l, state.done_offset, n));
    let mut lines: Vec<usize> = hints.line.into_iter().chain(done).collect();
    lines.dedup();
    if new.is_empty() || !hints.pins.is_empty() || lines.contains(&cand.start) {
        return None;
    }
    let stands_at = |at: usize| {
        at + new.len() <= n
            && new
                .iter()
                .enumerate()
                .all(|(i, l)| same_but_whitespace(&keys.text(at + i), l.text))
    };
    lines.into_iter().find(|&at| stands_at(at))
}
