//! A reply applied in order and run again (`docs/matching.md`, "Blocks
//! applied in order"): a block whose output a later block edited is in
//! the file neither as it was nor as it wrote it, and the later block is
//! already applied. Where the earlier block's old side is gone it is
//! already applied too; where its old side still stands, applying it
//! again would write again what the later block changed: two readings.

use crate::locate::normalize::{fuzzy_key, same_but_whitespace};
use crate::locate::{
    Failure, HunkStatus, Located, Normalization, Reason, added_lines, old_side_holds,
};
use crate::model::{Hunk, LineKind};
use crate::plan::edits::{Edit, NewLine};
use crate::source::SourceText;

/// A reply applied in order and run again: a block whose output a later
/// block edited is in the file neither as it was nor as it wrote it. When
/// a later hunk is already applied and its old side holds this hunk's new
/// side (the text this hunk wrote, at least one added line of it), this
/// hunk was applied before that one: already applied too.
pub(super) fn settle_consumed(hunks: &[Hunk], results: &mut [Result<Located, Failure>]) {
    for k in 0..hunks.len() {
        let hunk = &hunks[k];
        let not_found = matches!(
            &results[k],
            Err(f) if matches!(f.reason, Reason::ContextNotFound | Reason::StaleRemovedLine)
        );
        if !not_found || hunk.line_hint.is_some() || !hunk.anchors.is_empty() {
            continue;
        }
        let Some(wrote) = written_run(hunk) else {
            continue;
        };
        let consumer = (k + 1..hunks.len()).find_map(|m| match &results[m] {
            Ok(l)
                if l.status == HunkStatus::AlreadyApplied && old_side_holds(&hunks[m], &wrote) =>
            {
                Some((l.start, l.end))
            }
            _ => None,
        });
        if let Some((start, end)) = consumer {
            results[k] = Ok(Located {
                hunk: k,
                start,
                end,
                slots: Vec::new(),
                tier: None,
                normalizations: vec![Normalization::AppliedInOrder],
                similarity: 1.0,
                status: HunkStatus::AlreadyApplied,
            });
        }
    }
}

/// The new side of a hunk that adds at least one line holding a word.
fn written_run(hunk: &Hunk) -> Option<Vec<&str>> {
    let telling = hunk
        .lines
        .iter()
        .any(|l| l.kind == LineKind::Add && l.text.chars().any(char::is_alphanumeric));
    telling.then(|| hunk.new_lines().map(|l| &*l.text).collect())
}

/// A hunk that applies while a later hunk, already applied, has as its
/// old side lines this hunk adds: the reply reads as applied already (this
/// hunk, then the later one editing what it wrote: nothing to do) as well
/// as not yet (this hunk to apply, writing again the lines the later one
/// changed). Different bytes: refused as ambiguous. The later hunk counts
/// right there (on the hunk's lines or next to them) when its old side
/// holds the hunk's added lines as one run; anywhere in the file when it
/// holds a worded line the hunk writes anew (an added line that re-spells
/// none of its removed lines): found again on a re-run only with tolerance
/// (a SEARCH line drifted in whitespace or case, a line read past the end
/// of the file, a skipped line, a twin), the hunk's old side no longer
/// stands where the first run put it, and applying it writes its lines a
/// second time. Hunks with a line number or a Codex anchor are placed in
/// the original's own terms and left alone, as in [`settle_consumed`].
/// Returns the later hunks so named.
pub(super) fn refuse_consumed_again(
    hunks: &[Hunk],
    results: &mut [Result<Located, Failure>],
) -> Vec<usize> {
    let mut consumers = Vec::new();
    for k in 0..hunks.len() {
        let hunk = &hunks[k];
        let Ok(l) = &results[k] else { continue };
        if l.status != HunkStatus::Applied || hunk.line_hint.is_some() || !hunk.anchors.is_empty() {
            continue;
        }
        let added = added_lines(hunk);
        if !added.iter().any(|t| worded(t)) {
            continue;
        }
        let anew = written_anew(hunk);
        let (start, end) = (l.start, l.end);
        let consumer = (k + 1..hunks.len()).find_map(|m| {
            let Ok(lm) = &results[m] else { return None };
            if lm.status != HunkStatus::AlreadyApplied {
                return None;
            }
            let there = lm.start <= end && start <= lm.end;
            if there && old_side_holds(&hunks[m], &added) {
                Some((m, true))
            } else {
                holds_a_line_of(&hunks[m], &anew).then_some((m, there))
            }
        });
        if let Some((m, there)) = consumer {
            consumers.push(m);
            let place = if there { "right there" } else { "elsewhere" };
            results[k] = Err(Failure {
                hunk: k,
                reason: Reason::Ambiguous,
                message: format!(
                    "the hunk would add lines that hunk {} changes, and hunk {} is already applied {place}: the reply reads as applied already (this hunk, then hunk {} editing what it wrote) as well as not yet; if it is not, apply the two as one hunk",
                    m + 1,
                    m + 1,
                    m + 1
                ),
                candidates: vec![start + 1],
                tie: None,
                near: None,
            });
        }
    }
    consumers
}

/// True when a line holds a letter or digit.
fn worded(line: &str) -> bool {
    line.chars().any(char::is_alphanumeric)
}

/// The worded added lines of `hunk` that re-spell none of its removed
/// lines (the same line up to whitespace, case or punctuation: a line the
/// hunk only respells is the file's own line, not one the hunk writes).
fn written_anew(hunk: &Hunk) -> Vec<&str> {
    let removed: Vec<String> = hunk
        .lines
        .iter()
        .filter(|l| l.kind == LineKind::Remove)
        .map(|l| fuzzy_key(&l.text))
        .collect();
    added_lines(hunk)
        .into_iter()
        .filter(|t| worded(t) && !removed.contains(&fuzzy_key(t)))
        .collect()
}

/// True when the old side of `hunk` holds one of `lines` (exactly but for
/// whitespace).
fn holds_a_line_of(hunk: &Hunk, lines: &[&str]) -> bool {
    hunk.old_lines()
        .any(|o| lines.iter().any(|t| same_but_whitespace(&o.text, t)))
}

/// A hunk placed in order (`index`) whose merged edit (`edit`, in the
/// original's lines) only adds lines around what it keeps, and whose new
/// side already stands there: from the edit's first line on (lines added
/// after), or up to its last (lines added before), exactly but for
/// whitespace, one added line holding a word. The earlier block's SEARCH
/// stands again (it only added lines after it) and the later block's new
/// side stands right where the chain would write it: the reply applied in
/// order and run again has this very shape, and applying the chain again
/// writes its lines a second time. Two readings: refused as ambiguous.
pub(super) fn chain_stands_applied(
    source: &SourceText,
    index: usize,
    edit: &Edit,
) -> Option<Failure> {
    let old = edit.end - edit.start;
    let new: Vec<std::borrow::Cow<'_, str>> = edit
        .lines
        .iter()
        .map(|l| match l {
            NewLine::Keep(j) => source.line_text(*j),
            NewLine::Insert(text) => std::borrow::Cow::Borrowed(text.as_str()),
        })
        .collect();
    let worded = edit
        .lines
        .iter()
        .any(|l| matches!(l, NewLine::Insert(t) if worded(t)));
    if new.len() <= old || !worded {
        return None;
    }
    let stands_at = |at: usize| {
        at + new.len() <= source.len()
            && new
                .iter()
                .enumerate()
                .all(|(k, l)| same_but_whitespace(&source.line_text(at + k), l))
    };
    let at = [Some(edit.start), (edit.end).checked_sub(new.len())]
        .into_iter()
        .flatten()
        .find(|&at| stands_at(at))?;
    Some(Failure {
        hunk: index,
        reason: Reason::Ambiguous,
        message: format!(
            "the hunk stands in what the hunks before it write, and what they and it write together already stands at line {}: the reply reads as applied already as well as to be applied in order; if it is not, write the blocks as one",
            at + 1
        ),
        candidates: vec![edit.start + 1],
        tie: None,
        near: None,
    })
}
