//! From located hunks to edits: ordered, non-overlapping replacements of
//! file line ranges.
//!
//! An edit keeps the file's own text for every context line (a fuzzily
//! matched context line is never rewritten with the patch's version); only
//! removed and added lines change the file. Added lines are re-indented onto
//! the file's indentation by the map the matched lines give (rule 6,
//! `locate/indent.rs`).

use crate::locate::indent::{self, AddedIndents};
use crate::locate::{HunkStatus, Located, Normalization, Slot};
use crate::model::{Hunk, LineKind};
use crate::source::SourceText;

/// One line of an edit's replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NewLine {
    /// The file's line with this index (0-based), byte for byte.
    Keep(usize),
    /// A new line (content without terminator).
    Insert(String),
}

/// Replace file lines `start..end` by `lines`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edit {
    /// First replaced line (0-based); the insertion point when `start == end`.
    pub start: usize,
    /// One past the last replaced line.
    pub end: usize,
    /// The replacement.
    pub lines: Vec<NewLine>,
    /// The hunk this edit comes from.
    pub hunk: usize,
}

/// All edits to one file, sorted, plus the final-newline decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FilePlan {
    /// Edits sorted by position; they never overlap.
    pub edits: Vec<Edit>,
    /// Whether the result ends with a line terminator.
    pub final_newline: bool,
    /// The applied hunks' added lines ended in CRLF in the patch: new lines
    /// get CRLF in a file that has no line end of its own to follow.
    pub crlf_when_file_has_none: bool,
}

impl FilePlan {
    /// True when applying the plan to `source` gives different bytes: an
    /// edit that does more than keep its own lines, or another final newline.
    pub(crate) fn changes(&self, source: &SourceText) -> bool {
        let keeps_itself = |e: &Edit| {
            e.lines.len() == e.end - e.start
                && e.lines
                    .iter()
                    .enumerate()
                    .all(|(k, l)| *l == NewLine::Keep(e.start + k))
        };
        let final_changes = !source.is_empty() && self.final_newline != source.has_final_newline();
        final_changes || !self.edits.iter().all(keeps_itself)
    }
}

/// Builds the plan of one file from its hunks and where they were located.
/// `located` may be in any order; hunks that change nothing are skipped.
/// Returns the plan and, per located hunk, any normalisation the planner added.
pub(crate) fn plan_file(source: &SourceText, hunks: &[Hunk], located: &mut [Located]) -> FilePlan {
    let n = source.len();
    let mut final_newline = source.has_final_newline() || source.is_empty();
    let mut edits = Vec::new();
    let (mut adding, mut all_crlf) = (false, true);
    for loc in located.iter_mut() {
        if loc.status != HunkStatus::Applied {
            continue;
        }
        let Some(hunk) = hunks.get(loc.hunk) else {
            continue;
        };
        if hunk.lines.iter().any(|l| l.kind == LineKind::Add) {
            adding = true;
            all_crlf &= hunk.added_crlf;
        }
        let pairs = indent::pairs(hunk, &loc.slots, |j| source.line_text(j));
        let place = (loc.start, loc.end, source.len());
        let added = indent::AddedIndents::of(hunk, &pairs, || {
            indent::indents_around(place, |j| source.line_text(j))
        });
        let (edit, rebased) = build_edit(hunk, loc, &added);
        if rebased {
            loc.normalizations.push(Normalization::IndentRebased);
        }
        edits.push(edit);
        if loc.end == n {
            if hunk.new_missing_newline {
                final_newline = false;
            } else if hunk.old_missing_newline || ends_with_blank_addition(hunk) {
                // A blank line added last exists only with its newline: kept
                // without one, it would vanish.
                final_newline = true;
            }
        }
    }
    order_edits(&mut edits);
    FilePlan {
        edits,
        final_newline,
        crlf_when_file_has_none: adding && all_crlf,
    }
}

/// Sorts the edits of located hunks by position and splits those that
/// share lines kept as context, as [`plan_file`] does with the edits it
/// builds (`plan::sequence` builds each hunk's edit once and combines
/// them here).
pub(crate) fn order_edits(edits: &mut Vec<Edit>) {
    edits.sort_by_key(|e| (e.start, e.end, e.hunk));
    separate_shared_context(edits);
}

/// True when the hunk's last line is an added blank line.
fn ends_with_blank_addition(hunk: &Hunk) -> bool {
    hunk.lines
        .last()
        .is_some_and(|l| l.kind == LineKind::Add && l.text.as_str().is_empty())
}

/// Hunks may share lines that both keep as context, or one may insert
/// between two lines the other keeps (the locator refuses any other
/// overlap): when edits overlap, each is split into the changes between
/// the lines it keeps (those lines are the file's anyway), so the edits do
/// not overlap.
fn separate_shared_context(edits: &mut Vec<Edit>) {
    let overlapping = edits.windows(2).any(|w| w[0].end > w[1].start);
    if !overlapping {
        return;
    }
    let whole = std::mem::take(edits);
    edits.extend(whole.into_iter().flat_map(split_at_kept_lines));
    edits.sort_by_key(|e| (e.start, e.end, e.hunk));
    debug_assert!(
        edits.windows(2).all(|w| w[0].end <= w[1].start),
        "edits overlap beyond shared context"
    );
}

/// One edit as the changes between the file lines it keeps in place: the
/// lines before the first kept line replace what precedes it, and so on.
/// A kept line out of order stays a line of its piece.
pub(crate) fn split_at_kept_lines(edit: Edit) -> Vec<Edit> {
    let mut out = Vec::new();
    let mut start = edit.start;
    let mut lines = Vec::new();
    for line in edit.lines {
        match line {
            NewLine::Keep(j) if start <= j && j < edit.end => {
                if start < j || !lines.is_empty() {
                    out.push(Edit {
                        start,
                        end: j,
                        lines: std::mem::take(&mut lines),
                        hunk: edit.hunk,
                    });
                }
                start = j + 1;
            }
            other => lines.push(other),
        }
    }
    if start < edit.end || !lines.is_empty() {
        out.push(Edit {
            start,
            end: edit.end,
            lines,
            hunk: edit.hunk,
        });
    }
    out
}

/// The edit of one located hunk, and whether an added line was re-indented.
fn build_edit(hunk: &Hunk, loc: &Located, added: &AddedIndents) -> (Edit, bool) {
    let mut lines = Vec::new();
    let mut cursor = loc.start;
    let mut k = 0;
    let mut rebased = false;
    for line in &hunk.lines {
        if line.kind == LineKind::Add {
            // Rule 6: the locator refused the hunk where the indentation
            // map does not settle an added line.
            let text = added.reindent(&line.text);
            rebased |= text.is_some();
            lines.push(NewLine::Insert(
                text.unwrap_or_else(|| line.text.to_string()),
            ));
            continue;
        }
        let slot = loc.slots.get(k).copied();
        k += 1;
        match slot {
            Some(Slot::Line(j, _)) => {
                while cursor < j {
                    lines.push(NewLine::Keep(cursor));
                    cursor += 1;
                }
                if line.kind == LineKind::Context {
                    lines.push(NewLine::Keep(j));
                }
                cursor = j + 1;
            }
            Some(Slot::AsAddition) => lines.push(NewLine::Insert(String::new())),
            Some(Slot::Dropped | Slot::Overhang) | None => {}
        }
    }
    while cursor < loc.end {
        lines.push(NewLine::Keep(cursor));
        cursor += 1;
    }
    let edit = Edit {
        start: loc.start,
        end: loc.end,
        lines,
        hunk: loc.hunk,
    };
    (edit, rebased)
}

#[cfg(test)]
mod tests {
    #[test]
    fn overlapping_edits_split_at_the_lines_they_keep() {
        use super::{Edit, NewLine, separate_shared_context};
        // Hunk 0 rewrites lines 0 and 3 keeping 1 and 2; hunk 1 inserts
        // between 1 and 2 (its edit spans 1..3 keeping both).
        let mut edits = vec![
            Edit {
                start: 0,
                end: 4,
                lines: vec![
                    NewLine::Insert("X".into()),
                    NewLine::Keep(1),
                    NewLine::Keep(2),
                    NewLine::Insert("Y".into()),
                ],
                hunk: 0,
            },
            Edit {
                start: 1,
                end: 3,
                lines: vec![
                    NewLine::Keep(1),
                    NewLine::Insert("b".into()),
                    NewLine::Keep(2),
                ],
                hunk: 1,
            },
        ];
        separate_shared_context(&mut edits);
        let shape: Vec<_> = edits
            .iter()
            .map(|e| (e.start, e.end, e.lines.len()))
            .collect();
        assert_eq!(shape, [(0, 1, 1), (2, 2, 1), (3, 4, 1)]);
    }
}
