//! Blank edge context lines the file lacks where a match reads them
//! (`docs/matching.md`, "Structural slack" and rule 15): dropped, they
//! must change no byte and decide no place.

use super::choose::Hints;
use super::keys::{FileKeys, OldLine};
use super::search::{Candidate, Slot, contiguous};
use super::{Tier, prefilter};
use crate::model::{Hunk, HunkLine, LineKind};

/// A blank context line at the edge of the old side that `cand` drops
/// (the file lacks it there) while the hunk adds lines on its far side:
/// after it at the end, before it at the start. The hunk keeps it between
/// the lines matched and the lines added, so dropping it glues the added
/// lines to a file line the patch did not show there (a SEARCH `import os`
/// and a blank line, kept in REPLACE before `LOG = …`, wrote LOG between
/// two imports). Returns the old-side index of that line. Not when a blank
/// line of the same edge run matched a file line: the added lines then
/// follow (or precede) a blank line, as the patch has them, and only the
/// count of blank lines differs.
pub(super) fn dropped_beside_additions(
    hunk: &Hunk,
    old: &[OldLine],
    cand: &Candidate,
) -> Option<usize> {
    let spacing = |l: &OldLine| l.blank && l.kind == LineKind::Context;
    let lead = old.iter().take_while(|l| spacing(l)).count();
    let trail = old.iter().rev().take_while(|l| spacing(l)).count();
    if lead + trail == 0 || lead >= old.len() {
        return None;
    }
    let first_old = hunk.lines.iter().position(|l| l.is_old())?;
    let last_old = hunk.lines.iter().rposition(|l| l.is_old())?;
    let adds = |lines: &[HunkLine]| lines.iter().any(|l| l.kind == LineKind::Add);
    let all_dropped = |range: std::ops::Range<usize>| {
        let mut run = range.map(|k| (k, cand.slots.get(k)));
        let found = run.clone().find(|(_, s)| *s == Some(&Slot::Dropped));
        let matched = run.any(|(_, s)| matches!(s, Some(Slot::Line(..))));
        found.filter(|_| !matched).map(|(k, _)| k)
    };
    if trail > 0
        && adds(&hunk.lines[last_old + 1..])
        && let Some(k) = all_dropped(old.len() - trail..old.len())
    {
        return Some(k);
    }
    if lead > 0 && adds(&hunk.lines[..first_old]) {
        return all_dropped(0..lead);
    }
    None
}

/// Another place where the old side stands byte for byte once its blank
/// edge context lines are taken off, against `cand`, which the resilient
/// or fuzzy tier found with them: one reading forgives whitespace or case,
/// the other a blank line the model added at the block's edge (Aider drops
/// such lines before matching), and nothing tells which (a SEARCH that was
/// `load()`'s body byte for byte plus a blank line, `load()` ending the
/// file, edited the re-indented copy in a method followed by a blank
/// line). Only for a hunk that nothing else places (no line number,
/// anchor, end-of-file marker or pin). Returns that place's first line.
pub(super) fn exact_without_blank_edge(
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
    if placed_otherwise || !matches!(tier, Tier::Resilient | Tier::Fuzzy) {
        return None;
    }
    let spacing = |l: &OldLine| l.kind == LineKind::Context && l.blank;
    let lead = old.iter().take_while(|l| spacing(l)).count();
    let trail = old.iter().rev().take_while(|l| spacing(l)).count();
    if (lead == 0 && trail == 0) || lead + trail >= old.len() {
        return None;
    }
    let core = &old[lead..old.len() - trail];
    let starts: Vec<usize> = match prefilter::starts(keys, core, Tier::Exact, 0, 0) {
        Some(starts) => starts,
        None => (0..keys.len()).collect(),
    };
    contiguous(keys, core, Tier::Exact, starts)
        .into_iter()
        .map(|c| c.start)
        .find(|&s| s + core.len() <= cand.start || cand.end <= s)
}
