//! The text the hunks before a hunk produce (`plan::sequence`, "Blocks
//! applied in order" in `docs/matching.md`): the original's lines with
//! their edits made, and the merge of a hunk placed there back into one
//! edit of the original, with its oracle (the merged edit must give what
//! the hunks give applied one after another).

use crate::plan::edits::{Edit, NewLine};
use crate::source::SourceText;
use std::ops::Range;

/// One line of the text after some edits: an original line, or a line an
/// edit wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Produced {
    Original(usize),
    Written(String),
}

impl Produced {
    pub(super) fn as_new_line(&self) -> NewLine {
        match self {
            Produced::Original(j) => NewLine::Keep(*j),
            Produced::Written(text) => NewLine::Insert(text.clone()),
        }
    }
}

/// The bytes of the produced `lines`.
pub(super) fn produced_text(source: &SourceText, lines: &[Produced]) -> Vec<u8> {
    let mut text = Vec::new();
    for line in lines {
        match line {
            Produced::Original(j) => text.extend_from_slice(source.line(*j)),
            Produced::Written(s) => text.extend_from_slice(s.as_bytes()),
        }
        text.push(b'\n');
    }
    text
}

/// The hull of the hunk's `span` in the produced text, grown over every
/// edit that touches it (or is next to it) and over every other edit of a
/// hunk so taken in (an edit split at the lines it keeps is still one
/// hunk's: its pieces are merged together, or the piece left out would be
/// lost with the hunk's other edits), and the hunks taken in.
pub(super) fn absorb(
    ranges: &[Range<usize>],
    edits: &[Edit],
    span: Range<usize>,
) -> (Range<usize>, Vec<usize>) {
    let mut hull = span;
    let mut absorbed = Vec::new();
    loop {
        let mut grew = false;
        for (e, r) in edits.iter().zip(ranges) {
            if !absorbed.contains(&e.hunk) && r.start <= hull.end && hull.start <= r.end {
                absorbed.push(e.hunk);
                grew = true;
            }
            if absorbed.contains(&e.hunk) && (r.start < hull.start || hull.end < r.end) {
                hull = hull.start.min(r.start)..hull.end.max(r.end);
                grew = true;
            }
        }
        if !grew {
            return (hull, absorbed);
        }
    }
}

/// The produced `lines` with the hunk's own `edit` (in their terms) made:
/// the text the blocks give applied one after another.
pub(super) fn made_in_turn(lines: &[Produced], edit: &Edit) -> Option<Vec<Produced>> {
    let mut made = lines[..edit.start].to_vec();
    for line in &edit.lines {
        made.push(match line {
            NewLine::Keep(t) => lines.get(*t)?.clone(),
            NewLine::Insert(s) => Produced::Written(s.clone()),
        });
    }
    made.extend_from_slice(&lines[edit.end..]);
    Some(made)
}

/// The oracle of the merge: the original with the merged `edit` in place
/// of the `absorbed` hunks' edits (and the other `edits` as they are) must
/// be, line for line, the text the hunks give made one after another
/// (`made`). A merge that loses or doubles a line is no reading of the
/// blocks: the hunk is not placed in order.
pub(super) fn reproduces(
    source: &SourceText,
    edits: &[Edit],
    absorbed: &[usize],
    edit: &Edit,
    made: &[Produced],
) -> bool {
    let mut all: Vec<Edit> = edits
        .iter()
        .filter(|e| !absorbed.contains(&e.hunk))
        .cloned()
        .collect();
    all.push(edit.clone());
    all.sort_by_key(|e| (e.start, e.end, e.hunk));
    if all.windows(2).any(|w| w[0].end > w[1].start) {
        return false;
    }
    produce(source, &all).0 == *made
}

/// The lines of the original with `edits` made, and each edit's lines in
/// that text.
pub(super) fn produce(source: &SourceText, edits: &[Edit]) -> (Vec<Produced>, Vec<Range<usize>>) {
    let mut lines = Vec::with_capacity(source.len());
    let mut ranges = Vec::with_capacity(edits.len());
    let mut next = 0;
    for edit in edits {
        lines.extend((next..edit.start).map(Produced::Original));
        let from = lines.len();
        lines.extend(edit.lines.iter().map(|l| match l {
            NewLine::Keep(j) => Produced::Original(*j),
            NewLine::Insert(s) => Produced::Written(s.clone()),
        }));
        ranges.push(from..lines.len());
        next = edit.end;
    }
    lines.extend((next..source.len()).map(Produced::Original));
    (lines, ranges)
}

/// The original lines that the produced lines `hull` stand for: the
/// original lines among them, and the lines of the absorbed edits.
pub(super) fn original_range(
    lines: &[Produced],
    edits: &[Edit],
    ranges: &[Range<usize>],
    absorbed: &[usize],
    hull: Range<usize>,
) -> Option<Range<usize>> {
    let mut bounds: Vec<(usize, usize)> = Vec::new();
    for (e, r) in edits.iter().zip(ranges) {
        if absorbed.contains(&e.hunk) {
            bounds.push((e.start, e.end));
            debug_assert!(hull.start <= r.start && r.end <= hull.end);
        }
    }
    let inside_edit = |t: usize| ranges.iter().any(|r| r.contains(&t));
    for t in hull {
        if let Produced::Original(j) = lines[t]
            && !inside_edit(t)
        {
            bounds.push((j, j + 1));
        }
    }
    let start = bounds.iter().map(|b| b.0).min()?;
    let end = bounds.iter().map(|b| b.1).max()?;
    Some(start..end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(start: usize, end: usize, lines: Vec<NewLine>, hunk: usize) -> Edit {
        Edit {
            start,
            end,
            lines,
            hunk,
        }
    }

    /// Hunk 0 deletes `b` and appends `x` after `c` (two pieces of one
    /// hunk); hunk 1, in order, rewrites `c` to `C`: the merge takes in
    /// both pieces, and a merge that leaves the append out fails the
    /// oracle.
    #[test]
    fn merge_takes_in_every_piece_and_the_oracle_sees_a_lost_one() {
        let source = SourceText::new(b"a\nb\nc\n");
        let edits = vec![
            edit(1, 2, vec![], 0),
            edit(3, 3, vec![NewLine::Insert("x".into())], 0),
        ];
        let (lines, ranges) = produce(&source, &edits);
        assert_eq!(lines[2], Produced::Written("x".into()));
        let own = edit(1, 2, vec![NewLine::Insert("C".into())], 1);
        let made = made_in_turn(&lines, &own).unwrap();
        let (hull, absorbed) = absorb(&ranges, &edits, 1..2);
        assert_eq!((hull.clone(), absorbed.clone()), (1..3, vec![0]));
        let original = original_range(&lines, &edits, &ranges, &absorbed, hull.clone()).unwrap();
        assert_eq!(original, 1..3);
        let merged = |to: usize| {
            let lines = made[hull.start..to].iter().map(Produced::as_new_line);
            edit(original.start, original.end, lines.collect(), 1)
        };
        assert!(reproduces(&source, &edits, &absorbed, &merged(3), &made));
        assert!(!reproduces(&source, &edits, &absorbed, &merged(2), &made));
    }
}
