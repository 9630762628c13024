//! A reply applied in order and run again (`docs/matching.md`, "Blocks
//! applied in order"): a block whose output a later block edited is in
//! the file neither as it was nor as it wrote it, and the later block is
//! already applied. Where the earlier block's old side is gone it is
//! already applied too; where its old side still stands, applying it
//! again would write again what the later block changed: two readings.

use crate::locate::{
    Failure, HunkStatus, Located, Normalization, Reason, added_lines, old_side_holds,
};
use crate::model::{Hunk, LineKind};

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

/// A hunk that applies where a later hunk, already applied right there
/// (on the hunk's lines or next to them), has as its old side the lines
/// this hunk adds: the reply reads as applied already (this hunk, then the
/// later one editing what it wrote: nothing to do) as well as not yet
/// (this hunk to apply, writing again the lines the later one changed).
/// Different bytes: refused as ambiguous. Hunks with a line number or a
/// Codex anchor are placed in the original's own terms and left alone, as
/// in [`settle_consumed`]. Returns the later hunks so named.
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
        if !added.iter().any(|t| t.chars().any(char::is_alphanumeric)) {
            continue;
        }
        let (start, end) = (l.start, l.end);
        let consumer = (k + 1..hunks.len()).find(|&m| {
            matches!(&results[m], Ok(lm) if lm.status == HunkStatus::AlreadyApplied
                && lm.start <= end && start <= lm.end
                && old_side_holds(&hunks[m], &added))
        });
        if let Some(m) = consumer {
            consumers.push(m);
            results[k] = Err(Failure {
                hunk: k,
                reason: Reason::Ambiguous,
                message: format!(
                    "the hunk would add lines that hunk {} changes, and hunk {} is already applied right there: the reply reads as applied already (this hunk, then hunk {} editing what it wrote) as well as not yet; if it is not, apply the two as one hunk",
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
