//! A hunk found already applied in the original, weighed against its
//! reading in order (`docs/matching.md`, "Blocks applied in order"): its
//! old side standing in the text the hunks before it produce, on lines
//! they wrote or across lines they removed, is a second reading with other
//! bytes, wherever its new side stands (on the lines an earlier hunk
//! rewrites too: those are the file before the reply).

use super::edits::{Edit, NewLine};
use super::produced::{Produced, produce, produced_text};
use crate::locate::normalize::fuzzy_key;
use crate::locate::{Failure, HunkStatus, Located, MatchOptions, Pins, Reason, Tier, locate_hunks};
use crate::model::Hunk;
use crate::source::SourceText;
use std::collections::HashSet;

/// What the hunks before the current one leave in the text they produce,
/// by fuzzy key (`normalize::fuzzy_key`: a line drifted in case or
/// punctuation is the line): the cheap test before a hunk found done is
/// looked for in that text (a re-run, where no hunk applies afresh, has
/// none, and builds no text).
#[derive(Default)]
pub(super) struct Traces {
    /// The lines they add that hold a word.
    worded: HashSet<String>,
    /// Every line in or next to one of their edits: the lines an edit
    /// writes or keeps, and the original lines right before and after it.
    near: HashSet<String>,
}

impl Traces {
    /// Takes in a line a hunk before the current one adds.
    pub(super) fn add_written(&mut self, text: &str) {
        if text.chars().any(char::is_alphanumeric) {
            self.worded.insert(fuzzy_key(text));
        }
    }

    /// Takes in an edit of the original `source` made by the hunks before.
    pub(super) fn add_edit(&mut self, source: &SourceText, edit: &Edit) {
        let before = edit.start.checked_sub(1);
        for j in before.into_iter().chain([edit.end]) {
            if j < source.len() {
                self.near.insert(fuzzy_key(&source.line_text(j)));
            }
        }
        for line in &edit.lines {
            let key = match line {
                NewLine::Keep(j) => fuzzy_key(&source.line_text(*j)),
                NewLine::Insert(text) => fuzzy_key(text),
            };
            self.near.insert(key);
        }
    }

    /// False when the hunk's old side, read line by line by fuzzy key,
    /// cannot stand on a line the edits wrote nor across lines they
    /// removed: none of its lines is a worded line they add, and no two of
    /// its neighbouring lines (its one line) stand in or next to an edit.
    pub(super) fn may_reach(&self, hunk: &Hunk) -> bool {
        let keys: Vec<String> = hunk.old_lines().map(|o| fuzzy_key(&o.text)).collect();
        keys.iter().any(|k| self.worded.contains(k))
            || (keys.len() == 1 && self.near.contains(&keys[0]))
            || keys
                .windows(2)
                .any(|w| self.near.contains(&w[0]) && self.near.contains(&w[1]))
    }
}

/// The in-order reading of a hunk found already applied.
pub(super) enum Rival {
    /// Its old side stands in what the hunks before it write, away from
    /// where its new side stands.
    Away(Failure),
    /// Right where its new side stands: a reply applied in order and run
    /// again reads so too, and is refused as that where it applies
    /// (`rerun::refuse_consumed_again`, naming the earlier hunk).
    There(Failure),
}

/// A hunk found already applied in the original (its new side stands
/// there, `done`) whose old side places in the text the hunks before it
/// produce (`edits`), on lines they wrote or across lines they removed:
/// two readings (rule 7, already applied is a located state; the in-order
/// reading competes with it), with other bytes. Any reading there counts,
/// one the ladder refuses as ambiguous too (read with tolerance, the done
/// lines are its rival).
pub(super) fn done_or_in_order(
    source: &SourceText,
    (i, hunk): (usize, &Hunk),
    done: &Located,
    edits: &[Edit],
    options: &MatchOptions,
) -> Option<Rival> {
    let at = also_on_written(source, hunk, edits, options, options.max_tier)?;
    let there = done.start <= at + 1 && at <= done.end;
    let failure = Failure {
        hunk: i,
        reason: Reason::Ambiguous,
        message: format!(
            "the hunk's new lines stand at line {}, and its old lines stand in what the hunks before it write (after line {at}): already applied there, or to be applied in order?",
            done.start + 1,
        ),
        candidates: vec![done.start + 1],
        tie: None,
        near: None,
    };
    Some(if there {
        Rival::There(failure)
    } else {
        Rival::Away(failure)
    })
}

/// A hunk may stand on what the hunks before it write (their `edits`),
/// applied one after another as Aider applies them. Returns the original
/// line of that place (the line before it, 1-based) when the hunk stands
/// there on a line they wrote or across lines they removed (two original
/// lines side by side that were not), read with the tiers up to
/// `max_tier` (a place among several the ladder finds counts).
pub(super) fn also_on_written(
    source: &SourceText,
    hunk: &Hunk,
    edits: &[Edit],
    options: &MatchOptions,
    max_tier: Tier,
) -> Option<usize> {
    let (lines, _) = produce(source, edits);
    let text = produced_text(source, &lines);
    let produced = SourceText::new(&text);
    let upto = MatchOptions {
        max_tier,
        ..options.clone()
    };
    let one = std::slice::from_ref(hunk);
    let result = locate_hunks(&produced, one, &upto, &Pins::default()).pop()?;
    let starts = match result {
        Ok(l) if l.status == HunkStatus::Applied => vec![l.start],
        Err(f) if f.reason == Reason::Ambiguous => {
            f.candidates.iter().map(|c| c.saturating_sub(1)).collect()
        }
        _ => return None,
    };
    on_written(&lines, starts, hunk.old_len())
}

/// The first of the places starting at `starts` (0-based lines of the
/// produced text `lines`, each `len` lines long) that stands on a line an
/// earlier edit wrote or across lines it removed (two original lines side
/// by side that were not): the original line just before it (1-based).
pub(super) fn on_written(lines: &[Produced], starts: Vec<usize>, len: usize) -> Option<usize> {
    starts.into_iter().find_map(|s| {
        let place = &lines[s.min(lines.len())..(s + len).min(lines.len())];
        let written = place.iter().any(|l| matches!(l, Produced::Written(_)));
        let joined = place
            .windows(2)
            .any(|w| matches!(w, [Produced::Original(a), Produced::Original(b)] if *b != a + 1));
        // The original line just before the place, as its position.
        (written || joined).then(|| {
            lines[..s.min(lines.len())]
                .iter()
                .rev()
                .find_map(|l| match l {
                    Produced::Original(j) => Some(j + 1),
                    Produced::Written(_) => None,
                })
                .unwrap_or(0)
        })
    })
}
