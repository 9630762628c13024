//! What a placed hunk changes in the original file, for the overlap rule:
//! two hunks overlap when they change the same original lines, not when
//! they merely share a context line (`docs/matching.md`, "Overlap").

use super::search::Slot;
use crate::model::{Hunk, LineKind};
use std::ops::Range;

/// The lines a hunk spans and what it changes there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Footprint {
    /// The file lines its old side covers (empty for a pure addition: the
    /// insertion point).
    pub span: Range<usize>,
    /// File lines it removes.
    pub removed: Vec<usize>,
    /// Points where it inserts lines (before file line `p`).
    pub inserts: Vec<usize>,
}

impl Footprint {
    /// The footprint of `hunk` placed at `start..end` with `slots` (one per
    /// old-side line; none for a pure addition).
    pub(crate) fn of(hunk: &Hunk, start: usize, end: usize, slots: &[Slot]) -> Footprint {
        let mut removed = Vec::new();
        let mut inserts = Vec::new();
        let mut cursor = start;
        let mut k = 0;
        for line in &hunk.lines {
            if line.kind == LineKind::Add {
                inserts.push(cursor);
                continue;
            }
            let slot = slots.get(k).copied();
            k += 1;
            match slot {
                Some(Slot::Line(j, _)) => {
                    if line.kind == LineKind::Remove {
                        removed.push(j);
                    }
                    cursor = j + 1;
                }
                Some(Slot::AsAddition) => inserts.push(cursor),
                Some(Slot::Dropped | Slot::Overhang) | None => {}
            }
        }
        inserts.dedup();
        Footprint {
            span: start..end,
            removed,
            inserts,
        }
    }

    /// A region that changes nothing (a hunk's new side found in place).
    pub(crate) fn unchanged(span: Range<usize>) -> Footprint {
        Footprint {
            span,
            removed: Vec::new(),
            inserts: Vec::new(),
        }
    }

    /// True when the two hunks cannot both apply to the original: one
    /// removes a line the other covers, both insert at the same point
    /// (their order would be a guess), or one inserts strictly inside the
    /// other's lines next to a line the other removes (into the middle of
    /// its change). Two hunks sharing lines that both keep as context do
    /// not conflict, and neither do lines inserted between two lines the
    /// other keeps: each change stays whole and the file's lines stay.
    pub(crate) fn conflicts(&self, other: &Footprint) -> bool {
        let inside = |j: &usize, span: &Range<usize>| span.contains(j);
        self.removed.iter().any(|j| inside(j, &other.span))
            || other.removed.iter().any(|j| inside(j, &self.span))
            || self.inserts.iter().any(|p| other.inserts.contains(p))
            || self.inserts_into_change_of(other)
            || other.inserts_into_change_of(self)
    }

    /// An insertion of `self` strictly inside `other`'s lines, right before
    /// or after a line `other` removes.
    fn inserts_into_change_of(&self, other: &Footprint) -> bool {
        let points = if self.span.is_empty() {
            std::slice::from_ref(&self.span.start)
        } else {
            self.inserts.as_slice()
        };
        points.iter().any(|&p| {
            other.span.start < p
                && p < other.span.end
                && (other.removed.contains(&(p - 1)) || other.removed.contains(&p))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fp(span: Range<usize>, removed: &[usize], inserts: &[usize]) -> Footprint {
        Footprint {
            span,
            removed: removed.to_vec(),
            inserts: inserts.to_vec(),
        }
    }

    #[test]
    fn a_shared_context_line_is_no_conflict() {
        // Lines 0-3 change line 1; lines 3-6 change line 5: line 3 shared.
        assert!(!fp(0..4, &[1], &[2]).conflicts(&fp(3..7, &[5], &[6])));
    }

    #[test]
    fn a_removed_line_in_the_other_span_conflicts() {
        // The second hunk's context holds a line the first removes.
        assert!(fp(0..4, &[3], &[4]).conflicts(&fp(3..7, &[5], &[6])));
        assert!(fp(3..7, &[5], &[6]).conflicts(&fp(0..4, &[3], &[4])));
    }

    #[test]
    fn insertions_between_the_other_hunks_lines() {
        // An insertion at 5 lies between lines 4 and 5, both the other's
        // context: no conflict; next to a line it removes: conflict.
        assert!(!fp(3..6, &[], &[5]).conflicts(&fp(2..8, &[7], &[8])));
        assert!(fp(3..6, &[], &[5]).conflicts(&fp(2..8, &[5], &[6])));
        assert!(fp(4..7, &[], &[5]).conflicts(&fp(2..8, &[4], &[5])));
        // At the edge of the other's lines it does not.
        assert!(!fp(0..3, &[0], &[3]).conflicts(&fp(3..6, &[4], &[5])));
        // Both inserting at the same point: order unknown.
        assert!(fp(0..3, &[0], &[3]).conflicts(&fp(3..6, &[], &[3])));
    }

    #[test]
    fn pure_additions_conflict_only_inside_a_change() {
        assert!(fp(2..2, &[], &[2]).conflicts(&fp(0..4, &[1], &[2])));
        assert!(!fp(3..3, &[], &[3]).conflicts(&fp(0..4, &[1], &[2])));
        assert!(!fp(4..4, &[], &[4]).conflicts(&fp(0..4, &[1], &[2])));
    }
}
