//! A structural match that reads the hunk's last context lines as past
//! the end of the file (EOF overhang, `docs/matching.md`, "Structural
//! slack"): the end of the file must not decide, a line read as past it
//! must not be in the file, and a context line past it that the hunk adds
//! lines after is kept between the lines matched and the lines added.

use super::Tier;
use super::keys::{FileKeys, OldLine};
use super::prefilter;
use super::search::{Candidate, Slot, contiguous};
use crate::model::{Hunk, LineKind};

/// Why the structural match `cand` that reads context lines as past the
/// end of the file is one of two readings, and the other's first line
/// (0-based), or `None` when it is the only one.
pub(super) fn doubt(keys: &FileKeys, old: &[OldLine], cand: &Candidate) -> Option<(usize, String)> {
    let at = cand.start + 1;
    if let Some(rival) = rival(keys, old, cand) {
        let why = format!(
            "the hunk matches at line {at} with its last context lines past the end of the file, and without them at line {}: the lines past the end may be invented, so nothing says which one is meant; give context the file has",
            rival + 1
        );
        return Some((rival, why));
    }
    let there = line_stands(keys, old, cand)?;
    let why = format!(
        "the hunk matches at line {at} with its last context lines past the end of the file, but one of them stands at line {}: a line the file has is not past its end; give context as the file has it",
        there + 1
    );
    Some((there, why))
}

/// A structural match that ignores the hunk's last context lines as
/// standing past the end of the file, while the hunk without them stands
/// elsewhere (contiguous, up to the fuzzy tier): the lines past the end may
/// as well be lines the model invented after the other place, so the end
/// of the file must not decide (rule 11's kin). Returns the other place's
/// first line.
fn rival(keys: &FileKeys, old: &[OldLine], cand: &Candidate) -> Option<usize> {
    let past = cand
        .slots
        .iter()
        .rev()
        .take_while(|s| **s == Slot::Overhang)
        .count();
    if past == 0 || past >= old.len() {
        return None;
    }
    let kept = &old[..old.len() - past];
    let n = keys.len();
    let starts: Vec<usize> = match prefilter::starts(keys, kept, Tier::Fuzzy, 0, 0) {
        Some(starts) => starts,
        None => (0..n).collect(),
    };
    contiguous(keys, kept, Tier::Fuzzy, starts)
        .into_iter()
        .find(|c| c.end <= cand.start || cand.end <= c.start)
        .map(|c| c.start)
}

/// A structural match that ignores the hunk's last context lines as
/// standing past the end of the file, while each of them holding a word
/// stands in the file (but for whitespace) within the hunk's length above
/// the match or after it, on a line the match does not read as one of the
/// hunk's own: that line is there, not past the end, and the
/// reading that put it past the end misaligns the hunk. A copy farther up
/// (a `#[cfg(test)]`, a `}` of another block) says nothing of this hunk's
/// alignment. Returns the file line it stands on (the first).
fn line_stands(keys: &FileKeys, old: &[OldLine], cand: &Candidate) -> Option<usize> {
    let past: Vec<&OldLine> = old
        .iter()
        .zip(&cand.slots)
        .filter(|(l, s)| **s == Slot::Overhang && l.text.chars().any(char::is_alphanumeric))
        .map(|(l, _)| l)
        .collect();
    if past.is_empty() {
        return None;
    }
    // A line the match reads as one of the hunk's own lines is no other
    // place of the line past the end (a model repeating a context line of
    // the hunk after its end).
    let read: Vec<usize> = (cand.slots.iter())
        .filter_map(|s| match s {
            Slot::Line(j, _) => Some(*j),
            _ => None,
        })
        .collect();
    // Every worded line past the end must stand there: one that stands
    // nowhere near shows the lines past the end invented (a model's
    // `// end of module` and a line it saw above), not misread.
    let near = cand.start.saturating_sub(old.len());
    let stands = |l: &OldLine| {
        (near..keys.len())
            .filter(|k| !read.contains(k))
            .find(|&k| keys.resilient(k) == l.resilient())
    };
    let places: Option<Vec<usize>> = past.iter().map(|l| stands(l)).collect();
    places?.into_iter().min()
}

/// What becomes of the overhang of a candidate whose hunk adds lines after
/// some of it.
pub(super) enum Kept {
    /// Nothing follows the overhang but more of it: dropped, as before.
    Dropped,
    /// Its blank lines, which added lines follow, are written as added
    /// blank lines (the slots given), as an internal blank context line the
    /// file lacks is.
    Written(Vec<Slot>),
    /// A line with text past the end of the file has added lines after it
    /// (0-based index in the old side): they would go after a line the file
    /// lacks, which is not written.
    Refused(usize),
}

/// Reads the overhang of `cand`, the hunk `hunk` with old side `old`
/// placed by the structural tier: a context line past the end that the
/// patch adds lines after is one the new side keeps before them (a
/// SEARCH ending in the blank line Cline adds, kept in REPLACE before a
/// blank line and a new function; a numberless hunk quoting the two blank
/// lines it believed end the file, then adding a function). Dropped, the
/// added lines would be glued to the file's last line.
pub(super) fn kept_before_additions(hunk: &Hunk, old: &[OldLine], cand: &Candidate) -> Kept {
    if !cand.slots.contains(&Slot::Overhang) {
        return Kept::Dropped;
    }
    // For each old line, whether an added line follows it in the hunk.
    let mut added_after = Vec::with_capacity(old.len());
    let mut adds_later = false;
    for line in hunk.lines.iter().rev() {
        match line.kind {
            LineKind::Add => adds_later = true,
            _ => added_after.push(adds_later),
        }
    }
    added_after.reverse();
    let mut slots = cand.slots.clone();
    let mut written = false;
    for (k, slot) in slots.iter_mut().enumerate() {
        if *slot != Slot::Overhang || !added_after.get(k).copied().unwrap_or(false) {
            continue;
        }
        if !old[k].blank {
            return Kept::Refused(k);
        }
        *slot = Slot::AsAddition;
        written = true;
    }
    if written {
        Kept::Written(slots)
    } else {
        Kept::Dropped
    }
}
