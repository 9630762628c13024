//! Context lines past the end of the file (the structural tier's EOF
//! overhang) that the hunk adds lines after: the new side keeps them
//! between the lines matched and the lines added (`docs/matching.md`,
//! "Structural slack", EOF overhang).

use super::keys::OldLine;
use super::search::{Candidate, Slot};
use crate::model::{Hunk, LineKind};

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
