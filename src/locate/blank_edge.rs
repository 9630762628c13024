//! Blank edge lines as evidence of place (rule 15 of "One placement
//! decision" in `docs/matching.md`).
//!
//! A SEARCH block or numberless hunk that begins or ends with a blank
//! context line says little about its place: Aider drops such lines before
//! matching, and models add or leave them out at will. Where the lines
//! between them stand at another place too, the blank line alone would
//! decide which copy is edited, and the two readings give different bytes.

use super::choose::Hints;
use super::keys::{FileKeys, OldLine};
use super::search::{Candidate, contiguous};
use super::{Tier, prefilter};
use crate::model::LineKind;

/// Another place where the old side stands once its blank edge context
/// lines are taken off, at the tier that found `cand`: the first line
/// (0-based) of that reading, or `None`. Only for a hunk that nothing
/// else places (no line number, anchor, end-of-file marker or pin) and
/// only in the tiers that match line for line.
pub(super) fn blank_edge_rival(
    keys: &FileKeys,
    old: &[OldLine],
    tier: Tier,
    hints: &Hints,
    cand: &Candidate,
) -> Option<usize> {
    let placed_otherwise = hints.line.is_some()
        || hints.raw_line.is_some()
        || hints.anchors.is_some()
        || hints.at_eof
        || !hints.pins.is_empty();
    if placed_otherwise || !matches!(tier, Tier::Exact | Tier::Resilient | Tier::Fuzzy) {
        return None;
    }
    let blank = |l: &OldLine| l.kind == LineKind::Context && l.text.trim().is_empty();
    let lead = old.iter().take_while(|l| blank(l)).count();
    let trail = old.iter().rev().take_while(|l| blank(l)).count();
    if (lead == 0 && trail == 0) || lead + trail >= old.len() {
        return None;
    }
    let core = &old[lead..old.len() - trail];
    if core.iter().all(|l| l.text.trim().is_empty()) {
        return None;
    }
    let own = cand.start + lead;
    let starts: Vec<usize> = match prefilter::starts(keys, core, tier, 0, 0) {
        Some(starts) => starts,
        None => (0..keys.len()).collect(),
    };
    contiguous(keys, core, tier, starts)
        .into_iter()
        .map(|c| c.start)
        .find(|&s| s != own)
}
