//! SEARCH/REPLACE blocks with elision lines (`...`, `// ... existing code
//! ...`): the block as written is located first; a block that does not
//! place is read as the pieces between its elision lines, each placed on
//! its own, in order. An elision only REPLACE holds is refused unless the
//! block removes nothing and the file holds that line, or it stands in an
//! example the block writes into a Markdown file (see `docs/formats.md`).

use crate::locate::{
    Failure, HunkStatus, Located, Pins, Reason, Slot, Tier, block_end_by, enclosing_end_by,
    locate_file, locate_known_file,
};
use crate::model::{BlobIds, Hunk, LineKind};
use crate::outcome::{Problem, ProblemCode};
use crate::patch::elision::is_elision;
use crate::source::SourceText;
use std::borrow::Cow;

use super::ApplyOptions;

/// Located hunks, in hunk order.
type Results = Vec<Result<Located, Failure>>;

/// A REPLACE-only elision line: the block would write it in place of the
/// code it stands for, so it is refused. It is content only in a block
/// that removes nothing and a file that already holds that line (a
/// template marking its own gaps); where the block removes lines, a copy
/// of the line elsewhere in the file (a gap an earlier edit wrote, a
/// template) says nothing about what the removed lines were.
pub(super) fn replace_only_problem(
    path: &str,
    hunks: &[Hunk],
    source: &SourceText,
) -> Option<Problem> {
    let held = |t: &str| (0..source.len()).any(|j| source.line_text(j).trim() == t);
    let markdown = is_markdown(path);
    hunks.iter().enumerate().find_map(|(k, h)| {
        let e = h.elision.as_deref().filter(|e| e.replace_only)?;
        let removes = h.lines.iter().any(|l| l.kind == LineKind::Remove);
        let fenced = if markdown {
            added_inside_fence(&h.lines)
        } else {
            vec![false; h.lines.len()]
        };
        let text = (h.lines.iter().zip(fenced))
            .filter(|(_, fenced)| !fenced)
            .map(|(l, _)| l)
            .filter(|l| l.kind == LineKind::Add && is_elision(&l.text))
            .map(|l| l.text.trim())
            .filter(|t| removes || *t != "...")
            .find(|t| removes || !held(t))?;
        let message = match &e.pieces {
            Err(why) if text == e.text => why.clone(),
            _ => format!(
                "REPLACE line `{text}` stands for code the block does not write out (an elision), and SEARCH has no such line to pair it with"
            ),
        };
        Some(Problem::new(
            ProblemCode::MalformedPatch,
            format!("{path}: hunk {} (patch line {}): {message}", k + 1, h.patch_line),
            Some(e.patch_line),
        ))
    })
}

/// True for a Markdown file's path (`.md`, `.mdx`, `.markdown`).
fn is_markdown(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".md", ".mdx", ".markdown"]
        .iter()
        .any(|e| lower.ends_with(e))
}

/// For each line of a hunk, whether it is an added line inside a code
/// fence that the hunk's added lines open (```` ``` ````/`~~~`, possibly
/// indented, still open there): in a Markdown file such a line is part of
/// snippet of a guide), not an elision of the file's own text. None when
/// the hunk removes a fence line (it may be rewriting an example the file
/// holds, whose code the comment would then stand for).
fn added_inside_fence(lines: &[crate::model::HunkLine]) -> Vec<bool> {
    let is_fence = |t: &str| ["```", "~~~"].iter().any(|f| t.trim_start().starts_with(f));
    if lines
        .iter()
        .any(|l| l.kind == LineKind::Remove && is_fence(&l.text))
    {
        return vec![false; lines.len()];
    }
    let mut open: Option<&str> = None;
    let mut out = Vec::with_capacity(lines.len());
    for l in lines {
        let added = l.kind == LineKind::Add;
        let t = l.text.trim_start();
        let fence = ["```", "~~~"].into_iter().find(|f| t.starts_with(f));
        out.push(added && open.is_some() && fence.is_none());
        match (open, fence) {
            (Some(o), Some(f)) if o == f && added => open = None,
            (None, Some(f)) if added => open = Some(f),
            _ => {}
        }
        if l.kind == LineKind::Context {
            // A fence must open and close within the added lines.
            open = None;
        }
    }
    out
}

/// Locates the hunks (the numbers of an exact `git diff` as facts when
/// `pre_image` names the file: `locate::locate_known_file`); a block that
/// does not place as written and whose elision lines pair is located again
/// as its pieces (with every other hunk), and pieces out of order are
/// refused. Failures of a block whose elision lines do not pair say why.
/// A block that stands nowhere, its SEARCH ending in a blank line, is then
/// tried at the end of the file without that line (`super::eof_blank`).
pub(super) fn locate<'h>(
    source: &SourceText,
    hunks: &'h [Hunk],
    options: &ApplyOptions,
    pins: &Pins,
    pre_image: Option<&BlobIds>,
) -> (Cow<'h, [Hunk]>, Results) {
    let (found, results) = locate_pieces(source, hunks, options, pins, pre_image);
    super::eof_blank::retry(source, found, results, options, pins)
}

/// [`locate`] before the end-of-file reading.
fn locate_pieces<'h>(
    source: &SourceText,
    hunks: &'h [Hunk],
    options: &ApplyOptions,
    pins: &Pins,
    pre_image: Option<&BlobIds>,
) -> (Cow<'h, [Hunk]>, Results) {
    let (found, mut results) = locate_known_file(source, hunks, &options.matching, pins, pre_image);
    let retry = found.iter().zip(&results).any(|(h, r)| {
        not_found(source, h, r) && h.elision.as_deref().is_some_and(|e| e.pieces.is_ok())
    });
    if !retry {
        explain_unpaired(&found, &mut results);
        refuse_lenient_unpaired(source, &found, &mut results);
        return (found, results);
    }
    // Each hunk of the new list, and the block it is a piece of.
    let mut expanded = Vec::new();
    let mut block = Vec::new();
    for (k, (h, r)) in found.iter().zip(&results).enumerate() {
        match (h.elision.as_deref().map(|e| &e.pieces), r) {
            (Some(Ok(pieces)), r) if not_found(source, h, r) => {
                // The first piece opens the block's section, if it did.
                expanded.extend(pieces.iter().enumerate().map(|(i, p)| Hunk {
                    starts_section: i == 0 && h.starts_section,
                    ..p.clone()
                }));
                block.extend(pieces.iter().map(|_| Some(k)));
            }
            _ => {
                expanded.push(h.clone());
                block.push(None);
            }
        }
    }
    let (found, mut results) = locate_file(source, &expanded, &options.matching, pins);
    let found = found.into_owned();
    refuse_out_of_order(&block, &found, &mut results);
    refuse_out_of_block(source, &block, &found, &mut results);
    // An unchanged piece was located only as evidence of place.
    for (h, r) in found.iter().zip(results.iter_mut()) {
        if let Ok(loc) = r
            && h.elision_piece
            && h.is_noop()
        {
            loc.status = HunkStatus::NoOp;
        }
    }
    name_pieces(&block, hunks, &mut results);
    refuse_lenient_unpaired(source, &found, &mut results);
    (Cow::Owned(found), results)
}

/// A block whose elision lines do not pair, found as written only with the
/// slack of the structural or similarity tier ([`elision_slack`]), is
/// refused: the tier read the text the elision stands for as nothing
/// (`refuse-numberless-elision-added-after-trailing-elision-dropped`).
fn refuse_lenient_unpaired(source: &SourceText, found: &[Hunk], results: &mut Results) {
    for (h, r) in found.iter().zip(results.iter_mut()) {
        let Some((e, Err(why))) = h.elision.as_deref().map(|e| (e, &e.pieces)) else {
            continue;
        };
        if let Ok(loc) = &*r
            && elision_slack(source, h, loc)
        {
            *r = Err(Failure {
                hunk: loc.hunk,
                reason: Reason::ContextNotFound,
                message: format!(
                    "the block as written stands only where the structural or similarity tier drops or loosely pairs its elision line `{}` (patch line {}), which is not read: {why}",
                    e.text, e.patch_line
                ),
                candidates: Vec::new(),
                tie: None,
                near: None,
            });
        }
    }
}

/// True when a block as written stands nowhere: only then may its elision
/// lines be read as standing for text. A block refused for another reason
/// (two places, an overlap, a line number against a look-alike) was found,
/// and its `...` lines may be the file's own (Python's `...`, a docstring).
/// A block found as written only with the slack of the structural or
/// similarity tier ([`elision_slack`]) stands nowhere as written either.
fn not_found(source: &SourceText, hunk: &Hunk, result: &Result<Located, Failure>) -> bool {
    match result {
        Err(f) => matches!(f.reason, Reason::ContextNotFound | Reason::StaleRemovedLine),
        Ok(loc) => elision_slack(source, hunk, loc),
    }
}

/// True when a placement found by the structural or similarity tier puts an
/// elision line of the hunk's old side on no file line holding that text:
/// the tier dropped it as a context line the file lacks, or paired it with
/// another line (a bracket), so it read the pieces side by side where the
/// file has no text between them
/// (`refuse-numberless-elision-dropped-pieces-side-by-side`,
/// `refuse-numberless-elision-paired-with-bracket-line`). A file that holds
/// the line there (a comment `//   ...`) keeps the reading as written.
fn elision_slack(source: &SourceText, hunk: &Hunk, loc: &Located) -> bool {
    if loc.tier < Some(Tier::Structural) {
        return false;
    }
    let old = hunk.lines.iter().filter(|l| l.kind != LineKind::Add);
    let mut slots = loc.slots.iter();
    old.map(|l| (l, slots.next())).any(|(l, slot)| {
        is_elision(&l.text)
            && !matches!(slot, Some(Slot::Line(j, _)) if source.line_text(*j).trim() == l.text.trim())
    })
}

/// A piece placed before the piece above it: the elision does not read in
/// order, so the piece is refused. A piece that changes nothing and stands
/// at several places is evidence only that it stands somewhere in order:
/// the first of its places after the piece above it is taken (which leaves
/// the most room for the pieces below; it changes no byte).
fn refuse_out_of_order(block: &[Option<usize>], hunks: &[Hunk], results: &mut Results) {
    let mut last: Option<(usize, usize)> = None;
    for (k, result) in results.iter_mut().enumerate() {
        let Some(b) = block.get(k).copied().flatten() else {
            last = None;
            continue;
        };
        if let (Err(f), Some(h)) = (&*result, hunks.get(k))
            && f.reason == Reason::Ambiguous
            && h.is_noop()
        {
            let from = last.filter(|(p, _)| *p == b).map_or(0, |(_, end)| end);
            if let Some(&c) = f.candidates.iter().filter(|&&c| c > from).min() {
                *result = Ok(Located {
                    hunk: k,
                    start: c - 1,
                    end: c - 1 + h.old_len(),
                    slots: Vec::new(),
                    tier: None,
                    normalizations: Vec::new(),
                    similarity: 1.0,
                    status: HunkStatus::NoOp,
                });
            }
        }
        // Unchanged pieces are located too (`Hunk::elision_piece`): where
        // they stand says where the pieces after them may go.
        let placed = match result {
            Ok(loc) => Some((loc.start, loc.end)),
            Err(_) => None,
        };
        let Some((start, end)) = placed else { continue };
        if let Some((prev, prev_end)) = last
            && prev == b
            && start < prev_end
        {
            *result = Err(Failure {
                hunk: k,
                reason: Reason::ContextNotFound,
                message: format!(
                    "this piece of an elided block lies at line {} of the file, before the piece above it (which ends at line {prev_end}): the elision does not read in order",
                    start + 1
                ),
                candidates: Vec::new(),
                tie: None,
                near: None,
            });
            continue;
        }
        last = Some((b, end));
    }
}

/// The file line (0-based) where old line `idx` of a located hunk stands.
fn file_line(loc: &Located, idx: usize) -> Option<usize> {
    match loc.slots.get(idx) {
        Some(Slot::Line(j, _)) => Some(*j),
        Some(_) => None,
        None => loc.slots.is_empty().then_some(loc.start + idx),
    }
}

/// The leading spaces and tabs of `text`.
fn indent_of(text: &str) -> &str {
    &text[..text.len() - text.trim_start_matches([' ', '\t']).len()]
}

/// Where the piece below the elision line `elision` may start at the
/// latest, by what the block says of its own scope, with the file line
/// that says it: the last non-blank line of the piece above (`piece`,
/// located at `loc`) stands on a file line; an elision indented deeper
/// than that line stands for lines of the block it opens (up to that
/// block's end), one at its indentation for lines of the block it lies
/// in (up to the end of that one). A shallower elision says nothing.
fn opened_block(
    source: &SourceText,
    piece: &Hunk,
    loc: &Located,
    elision: &str,
) -> Option<(usize, usize, &'static str)> {
    let (idx, last) = piece
        .old_lines()
        .enumerate()
        .filter(|(_, l)| !l.text.trim().is_empty())
        .last()?;
    let (opener, inner) = (indent_of(&last.text), indent_of(elision));
    let j = file_line(loc, idx)?;
    let line = |i| source.line(i);
    if inner == opener {
        Some((j, enclosing_end_by(source.len(), line, j)?, "lies in"))
    } else if inner.len() > opener.len() && inner.starts_with(opener) {
        Some((j, block_end_by(source.len(), line, j)?, "opens"))
    } else {
        None
    }
}

/// The line (0-based) a Codex block's innermost anchor stands on, at or
/// above its first located piece, and the end of the block it opens.
fn anchor_block(
    source: &SourceText,
    hunk: &Hunk,
    first: &Located,
) -> Option<(usize, usize, &'static str)> {
    let anchor = hunk.anchors.last()?.trim();
    let j = (0..=first.start.min(source.len().checked_sub(1)?))
        .rev()
        .find(|&i| source.line_text(i).trim() == anchor)?;
    let end = block_end_by(source.len(), |i| source.line(i), j)?;
    Some((j, end, "opens"))
}

/// A piece placed past the block the block's text says it lies in is
/// refused: past the block its Codex `@@` anchor opens, or past the block
/// the elision line above it stands in ([`opened_block`]: the one the last
/// line of the piece above opens, or lies in), since the elision stands
/// for lines inside that block and the next piece is no further away than
/// its end.
fn refuse_out_of_block(
    source: &SourceText,
    block: &[Option<usize>],
    hunks: &[Hunk],
    results: &mut Results,
) {
    // The block being read, its anchor's bound and the last located piece.
    let mut cur: Option<usize> = None;
    let mut anchor: Option<(usize, usize, &str)> = None;
    let mut above: Option<usize> = None;
    for k in 0..results.len() {
        let Some(b) = block.get(k).copied().flatten() else {
            (cur, anchor, above) = (None, None, None);
            continue;
        };
        if cur != Some(b) {
            (cur, anchor, above) = (Some(b), None, None);
        }
        let Some(piece) = hunks.get(k) else { continue };
        let Ok(loc) = &results[k] else {
            above = None;
            continue;
        };
        let start = loc.start;
        let opened = above.and_then(|p| {
            let (Ok(prev), Some(e)) = (&results[p], piece.elision_above.as_deref()) else {
                return None;
            };
            opened_block(source, hunks.get(p)?, prev, e)
        });
        let bound = opened
            .into_iter()
            .chain(anchor)
            .find(|&(_, end, _)| start > end);
        if let Some((j, end, how)) = bound {
            results[k] = Err(Failure {
                hunk: k,
                reason: Reason::ContextNotFound,
                message: format!(
                    "this piece lies at line {} of the file, past the end of the block line {} (`{}`) {how}, which ends at line {end}: the block says its lines lie inside that one",
                    start + 1,
                    j + 1,
                    source.line_text(j).trim()
                ),
                candidates: Vec::new(),
                tie: None,
                near: None,
            });
            above = None;
            continue;
        }
        if anchor.is_none() && !piece.anchors.is_empty() {
            anchor = anchor_block(source, piece, loc);
        }
        above = Some(k);
    }
}

/// Says in each failure of a piece which block and elision it comes from.
fn name_pieces(block: &[Option<usize>], hunks: &[Hunk], results: &mut Results) {
    for (k, r) in results.iter_mut().enumerate() {
        let (Err(f), Some(Some(b))) = (r, block.get(k)) else {
            continue;
        };
        let Some(e) = hunks.get(*b).and_then(|h| h.elision.as_deref()) else {
            continue;
        };
        let n = block.iter().take(k + 1).filter(|x| **x == Some(*b)).count();
        let of = block.iter().filter(|x| **x == Some(*b)).count();
        f.message = format!(
            "{} (piece {n} of {of} of the block read around its elision line `{}` at patch line {}; the block as written was not found either, or only by the structural or similarity tier)",
            f.message, e.text, e.patch_line
        );
    }
}

/// Adds to the failure of a block whose elision lines do not pair why they
/// were not read.
fn explain_unpaired(found: &[Hunk], results: &mut Results) {
    for (h, r) in found.iter().zip(results.iter_mut()) {
        if let (Err(f), Some(e)) = (r, h.elision.as_deref())
            && let Err(why) = &e.pieces
        {
            f.message = format!(
                "{}; the block holds the elision line `{}` (patch line {}), which is not read: {why}",
                f.message, e.text, e.patch_line
            );
        }
    }
}
