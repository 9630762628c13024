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
use super::proposal::{Proposal, two_places};
use super::search::Candidate;
use super::{Failure, FileState, evidence, hint_line, scope};
use crate::model::{Hunk, LineKind};

/// The first line of the hunk's new side `new` when it stands, every line
/// exactly but for whitespace, starting on a line the hunk's number names
/// (`hints.line`, or the number carried by the offset of the hunks found
/// done), while the candidate `cand` of its old side starts on none of
/// them and does not hold it among its own lines. `None` without a
/// number, or for a new side with no lines.
fn new_side_at_number(
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
    // A new side inside the old side's own lines is those lines (the
    // context kept around a deletion at its edge, one line off the
    // number): no applied state of its own.
    let within_cand = |at: usize| cand.start <= at && at + new.len() <= cand.end;
    lines
        .into_iter()
        .find(|&at| !within_cand(at) && stands_at(at))
}

/// A hunk that only removes lines, with no context (a `git diff -U0`
/// deletion: nothing but its number and its section heading tell its
/// place, and once applied it leaves no trace), read at a candidate that
/// starts on no line its number names and lies outside every block the
/// heading names, while the number names a line inside one of them (or
/// lies past the end of the file, naming no line at all): the
/// lines may have been deleted there already (a re-run) and the copy at
/// `cand` be another function's. The number names a line as written,
/// carried by the hunks placed afresh, or carried by the hunks found done
/// (a re-run's done replacement moved the deleted lines' place to the end
/// of the heading's function). Returns the numbered line.
fn deletion_outside_named_block(
    keys: &FileKeys,
    hunk: &Hunk,
    hints: &Hints,
    state: &FileState,
    cand: &Candidate,
) -> Option<usize> {
    // A number past the end of the file names no line, but the heading
    // still names its block.
    let past_end = hints.line.is_none() && hints.raw_line.is_none();
    let line = match hints.line {
        Some(line) => line,
        None if past_end => hunk.line_hint?.saturating_sub(1),
        None => return None,
    };
    let done = hunk
        .line_hint
        .and_then(|l| hint_line(l, state.done_offset, keys.len()));
    let named: Vec<usize> = [Some(line), done].into_iter().flatten().collect();
    if hunk.section.is_empty()
        || named.contains(&cand.start)
        || hunk.lines.is_empty()
        || hunk.lines.iter().any(|l| l.kind != LineKind::Remove)
    {
        return None;
    }
    let blocks = evidence::section_blocks(keys, &hunk.section);
    let inside = |at: usize| blocks.iter().any(|&(a, end)| scope::within(a, end, at));
    let named_inside = named.into_iter().find(|&l| inside(l));
    let numbered = if past_end { Some(line) } else { named_inside };
    numbered.filter(|_| blocks.len() <= super::choose::HEADING_BLOCKS && !inside(cand.start))
}

/// A hunk that only removes lines without a word (blank lines, brackets),
/// with no context: a candidate on no line its number names (as written,
/// carried afresh or by the hunks found done) is one of the many places
/// such lines stand, and a re-run finds the next one after the first run
/// deleted the numbered one. Returns the numbered line.
fn wordless_deletion_off_number(
    keys: &FileKeys,
    hunk: &Hunk,
    hints: &Hints,
    state: &FileState,
    cand: &Candidate,
) -> Option<usize> {
    let line = hints.line?;
    let wordless_removal = !hunk.lines.is_empty()
        && hunk
            .lines
            .iter()
            .all(|l| l.kind == LineKind::Remove && !l.text.chars().any(char::is_alphanumeric));
    if !wordless_removal || !hints.pins.is_empty() {
        return None;
    }
    let done = hunk
        .line_hint
        .and_then(|l| hint_line(l, state.done_offset, keys.len()));
    let named = hints.lines().chain(done).any(|l| l == cand.start);
    (!named).then_some(line)
}

/// A hunk whose new side stands, every line exactly but for whitespace,
/// inside a block its section heading names (`@@ … @@ def save(…):`),
/// away from the candidate `cand` of its old side, which lies outside
/// every such block: applied there before (a re-run whose numbers are off
/// or past the end of the file), or to be applied at `cand`? Sought only
/// for a candidate on no line the number names (as written or carried),
/// so a diff placed at its numbers never looks for the heading's blocks.
/// Returns where the new side stands.
fn new_side_in_named_block(
    keys: &FileKeys,
    hunk: &Hunk,
    new: &[OldLine],
    hints: &Hints,
    cand: &Candidate,
) -> Option<usize> {
    if hunk.section.is_empty()
        || new.is_empty()
        || !hunk.lines.iter().any(|l| l.is_new())
        || hints.lines().any(|l| l == cand.start)
    {
        return None;
    }
    let blocks = evidence::section_blocks(keys, &hunk.section);
    let inside = |at: usize| blocks.iter().any(|&(a, end)| scope::within(a, end, at));
    if blocks.len() > super::choose::HEADING_BLOCKS || inside(cand.start) {
        return None;
    }
    let n = keys.len();
    let stands_at = |at: usize| {
        at + new.len() <= n
            && (at + new.len() <= cand.start || cand.end <= at)
            && new
                .iter()
                .enumerate()
                .all(|(i, l)| same_but_whitespace(&keys.text(at + i), l.text))
    };
    blocks
        .iter()
        .flat_map(|&(a, end)| a..=end.min(n))
        .find(|&at| stands_at(at))
}

/// The readings of this module weighed against the candidate `cand` the
/// ladder proposes (rule 7): the new side on the line the number names, a
/// context-free deletion off its number or outside its heading's block,
/// the new side inside the heading's block. Each is a second reading:
/// `ambiguous`.
pub(super) fn applied_where_told(p: &Proposal, cand: &Candidate) -> Result<(), Failure> {
    new_side_not_at_number(p, cand)?;
    deletion_in_named_block(p, cand)?;
    new_side_not_in_named_block(p, cand)
}

/// The new side starting on the very line the number names (as written,
/// carried by the hunks placed afresh or by the hunks found done) while the
/// old side starts elsewhere (rule 7): applied there before, or to be
/// applied at the old side? Whatever else stands around (a copy of the new
/// side beside it, the old side again over its lines), the number names
/// the applied state.
fn new_side_not_at_number(p: &Proposal, cand: &Candidate) -> Result<(), Failure> {
    let new = p.keys.new_side(p.hunk);
    let Some(at) = new_side_at_number(p.keys, p.hunk, &new, p.hints, p.state, cand) else {
        return Ok(());
    };
    let why = format!(
        "the hunk's new lines already stand at line {}, the line its number names, and its old lines stand at line {}: already applied, or to be applied there?",
        at + 1,
        cand.start + 1
    );
    Err(two_places(p.index, at, cand.start, why))
}

/// A deletion without context read where its number does not name, of
/// lines without a word, or outside the block its number and its section
/// heading both name (rule 7): deleted there already, or to be deleted
/// here?
fn deletion_in_named_block(p: &Proposal, cand: &Candidate) -> Result<(), Failure> {
    if let Some(line) = wordless_deletion_off_number(p.keys, p.hunk, p.hints, p.state, cand) {
        let why = format!(
            "the hunk only removes lines without a word (blank lines or brackets) and has no context; they stand at line {}, which its line number (line {}) does not name: deleted at the number already, or to be deleted here? add a context line",
            cand.start + 1,
            line + 1
        );
        return Err(two_places(p.index, line, cand.start, why));
    }
    let Some(line) = deletion_outside_named_block(p.keys, p.hunk, p.hints, p.state, cand) else {
        return Ok(());
    };
    let why = format!(
        "the hunk only removes lines and has no context; its line number (line {}) and its section heading `{}` name the same block, and the lines stand only outside it, at line {}: deleted there already, or to be deleted here? add a context line",
        line + 1,
        p.hunk.section.trim(),
        cand.start + 1
    );
    Err(two_places(p.index, line, cand.start, why))
}

/// The new side standing inside a block the section heading names while
/// the old side is read outside every such block (rules 2 and 7).
fn new_side_not_in_named_block(p: &Proposal, cand: &Candidate) -> Result<(), Failure> {
    let new = p.keys.new_side(p.hunk);
    let Some(at) = new_side_in_named_block(p.keys, p.hunk, &new, p.hints, cand) else {
        return Ok(());
    };
    let why = format!(
        "the hunk's new lines already stand at line {}, inside the block its section heading `{}` names, and its old lines stand at line {}, outside it: already applied, or to be applied there?",
        at + 1,
        p.hunk.section.trim(),
        cand.start + 1
    );
    Err(two_places(p.index, at, cand.start, why))
}
