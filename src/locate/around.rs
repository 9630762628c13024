//! The new side of a hunk standing around a candidate of its old side
//! (rule 7 of "One placement decision" in `docs/matching.md`): a hunk that
//! adds lines before or after all its old lines leaves its old side
//! standing once applied, inside its new side, where the strict tiers
//! read it again.

use super::keys::FileKeys;
use super::normalize::{LineMatch, indentation, same_but_whitespace};
use super::search::{Candidate, Slot};
use super::{Failure, HunkStatus, Located, Tier, ambiguous, choose::Hints};
use crate::model::{Hunk, LineKind};
use std::collections::HashMap;

/// The new side of a hunk standing around a candidate of its old side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum AppliedAround {
    /// It stands there with an added line that tells (a word that no
    /// removed line spells but for whitespace): the hunk is done.
    Done(usize),
    /// It stands there, but the lines it adds beyond what it removes are
    /// blank or brackets only, or copies of removed lines, which could
    /// have been there before: applied, or to apply again?
    Unsure(usize),
    /// It stands there only with an added line indented otherwise, around
    /// an old side read byte for byte, where no number names the place: a
    /// first run there wrote the added lines as the patch indents them, so
    /// the line is the file's own (another statement where indentation is
    /// meaning), or the applied state re-indented since.
    Reindented(usize),
    /// It stands as written on the very lines of an old side read byte for
    /// byte where the number names it, context framing the change on both
    /// sides (the added lines copies of the context after them): the copy
    /// inserted before, or another to insert? The two files look alike.
    Repeats(usize),
}

impl AppliedAround {
    /// The first line of the new side standing around the candidate.
    pub(super) fn start(self) -> usize {
        match self {
            AppliedAround::Done(s)
            | AppliedAround::Unsure(s)
            | AppliedAround::Reindented(s)
            | AppliedAround::Repeats(s) => s,
        }
    }
}

/// Where the new side of a hunk starts when it stands around the
/// candidate `cand` (holding the candidate's lines), every added line
/// exactly but for whitespace, every context line so too or read as the
/// candidate read it (the same file line, matched with the tolerance that
/// placed the old side: spaces next to punctuation, case). A hunk that
/// adds lines before or after all its old lines (context on one side
/// only, or a SEARCH/REPLACE block whose replacement keeps the searched
/// lines) leaves its old side standing once applied, inside its new side:
/// the strict tiers read that applied state as the old side at the very
/// same lines, and applying again would add the lines twice (at the same
/// lines the hunk is already applied). Added lines are paired with the
/// removed lines they repeat, one for one: a whitespace fix (every added
/// line a removed line respaced) reads as done before it is made and is
/// never taken for done here, and the lines left over after the pairing
/// (`-retry()` / `+retry()` / `+retry()`, a blank line made two) tell done
/// only with a word no removed line spells.
///
/// Over an old side read byte for byte (`tier` exact), a first run at
/// these lines wrote the added lines as the patch has them: a new side
/// standing only but for whitespace (an added line at 4 spaces beside the
/// same line at 8) is no applied state where the line number names the
/// candidate's first line exactly (an exact diff, applied afresh as `git
/// apply` does: `None`), and `Reindented` elsewhere. A new side standing
/// as written on the first line of an old side read byte for byte where
/// the number names it, context framing the change on both sides (the
/// added lines copies of the context after them: a third `check(data)`
/// inserted before the second) is `Repeats`: a first run and a re-run see
/// the same lines.
pub(super) fn applied_at_candidate(
    keys: &FileKeys,
    hunk: &Hunk,
    tier: Tier,
    hints: &Hints,
    cand: &Candidate,
) -> Option<AppliedAround> {
    let (fresh, spelled) = unpaired_additions(hunk);
    if fresh.is_empty() {
        return None;
    }
    let new = keys.new_side(hunk);
    let added: Vec<bool> = hunk
        .lines
        .iter()
        .filter(|l| l.is_new())
        .map(|l| l.kind == LineKind::Add)
        .collect();
    // The file lines the candidate matched to a context line, and its text.
    let old = keys.old_side(hunk);
    let read: HashMap<usize, &str> = old
        .iter()
        .zip(&cand.slots)
        .filter_map(|(l, s)| match s {
            Slot::Line(j, m) if l.kind == LineKind::Context && *m != LineMatch::No => {
                Some((*j, l.text))
            }
            _ => None,
        })
        .collect();
    let line_stands = |j: usize, text: &str, is_added: bool| {
        same_but_whitespace(&keys.text(j), text) || (!is_added && read.get(&j) == Some(&text))
    };
    let stands_at = |start: usize| {
        start + new.len() <= keys.len()
            && new
                .iter()
                .zip(&added)
                .enumerate()
                .all(|(i, (l, &a))| line_stands(start + i, l.text, a))
    };
    let indented_as_written = |start: usize| {
        stands_at(start)
            && new
                .iter()
                .enumerate()
                .all(|(i, l)| indentation(&keys.text(start + i)) == indentation(l.text))
    };
    // The new side must hold the candidate's lines.
    let mut starts = cand.end.saturating_sub(new.len())..=cand.start;
    let numbered = [hints.line, hints.raw_line].contains(&Some(cand.start));
    let start = if tier == Tier::Exact {
        match starts.clone().find(|&s| indented_as_written(s)) {
            // An exact old side at its number, framed by context on both
            // sides, and a new side starting on the same line (its added
            // lines copies of the context after them) are two readings.
            Some(s) if numbered && s == cand.start && framed(hunk) => {
                return Some(AppliedAround::Repeats(s));
            }
            Some(s) => s,
            None => {
                let respaced = starts.find(|&s| stands_at(s))?;
                return (!numbered).then_some(AppliedAround::Reindented(respaced));
            }
        }
    } else {
        // With tolerance, an added line repeating an old-side line but for
        // whitespace stands only with the whitespace the patch gives it.
        let spaced = |s: usize| {
            let at: Vec<Option<usize>> = (s..s + new.len()).map(Some).collect();
            super::respaced::spacing_stands(keys, hunk, &at, super::respaced::Spacing::Indented)
        };
        starts.find(|&s| stands_at(s) && spaced(s))?
    };
    let tells = |t: &&str| {
        t.chars().any(char::is_alphanumeric) && !spelled.iter().any(|r| same_but_whitespace(r, t))
    };
    if fresh.iter().any(tells) {
        Some(AppliedAround::Done(start))
    } else {
        Some(AppliedAround::Unsure(start))
    }
}

/// True when the hunk has context lines both before its first changed
/// line and after its last: once applied, its old side can stand on the
/// first line of its new side only where the added lines repeat the
/// context after them.
fn framed(hunk: &Hunk) -> bool {
    let first = hunk.lines.iter().position(|l| l.kind != LineKind::Context);
    let last = hunk.lines.iter().rposition(|l| l.kind != LineKind::Context);
    matches!((first, last), (Some(f), Some(l)) if f > 0 && l + 1 < hunk.lines.len())
}

/// The hunk's added lines left over once each is paired with a removed
/// line it repeats (but for whitespace), one for one, and the removed
/// lines.
fn unpaired_additions(hunk: &Hunk) -> (Vec<&str>, Vec<&str>) {
    let spelled: Vec<&str> = hunk
        .lines
        .iter()
        .filter(|l| l.kind == LineKind::Remove)
        .map(|l| &*l.text)
        .collect();
    let mut removed = spelled.clone();
    let mut fresh: Vec<&str> = Vec::new();
    for line in hunk.lines.iter().filter(|l| l.kind == LineKind::Add) {
        match removed
            .iter()
            .position(|r| same_but_whitespace(r, &line.text))
        {
            Some(k) => {
                removed.swap_remove(k);
            }
            None => fresh.push(&line.text),
        }
    }
    (fresh, spelled)
}

/// A hunk found done around its old side ([`AppliedAround::Done`]): the
/// first line of its new side and of its old side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct DoneAround {
    pub index: usize,
    pub start: usize,
    pub old: usize,
}

/// A hunk placed by its text alone (no line number, anchor or end-of-file
/// mark) found done around its old side, while another hunk of the file
/// applies afresh, is refused: the reply is not a re-run, and its old side
/// stands, so it reads as applied before (the others not) as well as to
/// be applied, adding again lines the file holds as its own (a copy of a
/// neighbour, as Aider, applying every block whose SEARCH stands, writes).
/// Different bytes either way (rule 7).
pub(super) fn done_beside_fresh(
    hunks: &[Hunk],
    results: &mut [Result<Located, Failure>],
    noted: &[DoneAround],
) {
    let fresh = |results: &[Result<Located, Failure>], i: usize| {
        results
            .iter()
            .enumerate()
            .any(|(k, r)| matches!(r, Ok(l) if k != i && l.status == HunkStatus::Applied))
    };
    for done in noted {
        let i = done.index;
        let (Some(hunk), Some(Ok(loc))) = (hunks.get(i), results.get(i)) else {
            continue;
        };
        let by_text = hunk.line_hint.is_none() && hunk.anchors.is_empty() && !hunk.at_eof;
        if !by_text
            || loc.status != HunkStatus::AlreadyApplied
            || loc.start != done.start
            || !fresh(results, i)
            || run_again_in_order(hunks, results, i, loc)
        {
            continue;
        }
        let why = format!(
            "the hunk's old lines stand at line {}, and its new lines stand around them (from line {}), while other hunks of the file apply afresh: applied before them, or to be applied, adding lines the file already holds beside them?",
            done.old + 1,
            done.start + 1
        );
        let mut starts = vec![done.start, done.old];
        starts.sort_unstable();
        starts.dedup();
        results[i] = Err(ambiguous(i, &starts, None, Some(why)));
    }
}

/// True when a hunk before `i`, placed by its text, applies afresh on or
/// next to the lines hunk `i` stands done on (`loc`) and adds lines, one
/// with a word, that hunk `i`'s old side holds: a reply applied in order
/// and run again, which the plan refuses as that (`plan::rerun`, naming
/// the earlier hunk).
fn run_again_in_order(
    hunks: &[Hunk],
    results: &[Result<Located, Failure>],
    i: usize,
    loc: &Located,
) -> bool {
    (0..i).any(|k| {
        let (Ok(l), hunk) = (&results[k], &hunks[k]) else {
            return false;
        };
        let added = added_lines(hunk);
        l.status == HunkStatus::Applied
            && hunk.line_hint.is_none()
            && hunk.anchors.is_empty()
            && added.iter().any(|t| t.chars().any(char::is_alphanumeric))
            && l.start <= loc.end
            && loc.start <= l.end
            && old_side_holds(&hunks[i], &added)
    })
}

/// The lines `hunk` adds, in order.
pub(crate) fn added_lines(hunk: &Hunk) -> Vec<&str> {
    let added = hunk.lines.iter().filter(|l| l.kind == LineKind::Add);
    added.map(|l| &*l.text).collect()
}

/// True when the old side of `hunk` holds `run` as consecutive lines
/// (exactly but for whitespace).
pub(crate) fn old_side_holds(hunk: &Hunk, run: &[&str]) -> bool {
    let old: Vec<&str> = hunk.old_lines().map(|l| &*l.text).collect();
    !run.is_empty()
        && old
            .windows(run.len())
            .any(|w| w.iter().zip(run).all(|(a, b)| same_but_whitespace(a, b)))
}
