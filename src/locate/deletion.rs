//! Hunks that only remove lines, weighed against where their line number
//! points (rule 7 of "One placement decision" in `docs/matching.md`): a
//! deletion leaves no added line to recognise its applied state by.

use super::choose::{HINT_WINDOW, points_among};
use super::keys::{FileKeys, OldLine, new_side};
use super::normalize::same_but_whitespace;
use super::proposal::{Proposal, two_places};
use super::search::{Candidate, Slot, contiguous};
use super::{Failure, Tier, ambiguous};
use crate::model::{Hunk, LineKind};

/// A hunk that only removes lines, with no context, whose lines hold no
/// word (a blank line, a `}`), placed off the line its number names while
/// that line is not like them: such a line stands everywhere, and the
/// number is all that says which one goes, so a re-run of `-U0` output
/// (the line gone) deleted another blank line (rule 7). Where the number
/// names the line exactly, as `git diff` numbers it, the hunk applies.
pub(super) fn wordless_deletion_where_numbered(
    p: &Proposal,
    cand: &Candidate,
) -> Result<(), Failure> {
    let lines = &p.hunk.lines;
    let bare = !lines.is_empty()
        && lines
            .iter()
            .all(|l| l.kind == LineKind::Remove && !l.text.chars().any(char::is_alphanumeric));
    let named = [p.hints.line, p.hints.raw_line].contains(&Some(cand.start));
    // The number names a line inside the file that is not like the removed
    // ones (a number past the end, or on a line like them, vouches for
    // nothing, and the one place the lines stand is taken).
    let first = lines.first().map_or("", |l| l.text.trim());
    let elsewhere = [p.hints.line, p.hints.raw_line]
        .into_iter()
        .flatten()
        .filter(|&l| l < p.keys.len())
        .any(|l| p.keys.text(l).trim() != first);
    if !bare || named || !elsewhere {
        return Ok(());
    }
    let why = format!(
        "the hunk only removes lines without a word and has no context, and its line number does not name line {} where they stand: such lines stand anywhere, so which one goes is unknown (removed already?); add context",
        cand.start + 1
    );
    Err(ambiguous(p.index, &[cand.start], None, Some(why)))
}

/// A hunk that only removes lines, with context on one side of them (or
/// context the already-applied rule cannot frame): its context standing
/// where the line number points, without the removed lines, is the
/// applied state there; an exact old side elsewhere is a second reading.
pub(super) fn deletion_done_where_numbered(p: &Proposal, cand: &Candidate) -> Result<(), Failure> {
    let Some(line) = p.hints.line else {
        return Ok(());
    };
    let adds = p.hunk.lines.iter().any(|l| l.kind == LineKind::Add);
    let new = p.keys.new_side(p.hunk);
    let worded = new
        .iter()
        .any(|l| l.text.chars().any(char::is_alphanumeric));
    if adds || !worded || line == cand.start {
        return Ok(());
    }
    let Some(done) = deletion_done_near(p, &new, line, cand) else {
        return Ok(());
    };
    let why = format!(
        "the hunk's context stands at line {}, near where its line number points, without the lines it removes, and its old lines stand at line {}, where the number does not point clearly: already applied, or to be applied there?",
        done + 1,
        cand.start + 1
    );
    Err(two_places(p.index, done, cand.start, why))
}

/// Where the new side `new` of a deletion stands, away from `cand` and
/// within the hint window of the line number `line`, when the number does
/// not point clearly at `cand` (the pointing rule of placement,
/// `points_at`: a number one line off still names a place, one between
/// the two names neither): read with up to the tolerance that placed the old
/// side (at least whitespace: a re-run of `-U0` output that removed a line
/// with trailing spaces), or only where the number says when the line
/// stands there exactly but for whitespace.
fn deletion_done_near(
    p: &Proposal,
    new: &[OldLine],
    line: usize,
    cand: &Candidate,
) -> Option<usize> {
    let n = p.keys.len();
    let tier = p.tier.clamp(Tier::Resilient, Tier::Fuzzy);
    let lo = line.saturating_sub(HINT_WINDOW);
    let hi = (line + HINT_WINDOW + 1).min(n);
    let away = |s: usize| s + new.len() <= cand.start || cand.end <= s;
    let stands_at_number = line + new.len() <= n
        && new
            .iter()
            .enumerate()
            .all(|(i, l)| same_but_whitespace(&p.keys.text(line + i), l.text));
    if stands_at_number && away(line) {
        return Some(line);
    }
    let mut places: Vec<usize> = contiguous(p.keys, new, tier, lo..hi)
        .into_iter()
        .map(|c| c.start)
        .filter(|&s| away(s))
        .collect();
    // The number must point at the old side clearly: where it points at an
    // applied state, or at neither, that state is a reading as good.
    let done = places.iter().copied().min_by_key(|s| s.abs_diff(line))?;
    places.push(cand.start);
    places.sort_unstable();
    places.dedup();
    (points_among(&places, line) != Some(cand.start)).then_some(done)
}

/// For a hunk that removes lines and adds none, with context holding a
/// word: the first place, away from `cand` (or, `touching`, sharing
/// lines with it but starting elsewhere than its own context), where its context (its new
/// side) stands as one block, read with up to the tolerance `tier` that
/// read the old side (whitespace at least, the fuzzy tier at most). There
/// the hunk may stand applied already (its removed lines gone), which a
/// lenient reading of its old side elsewhere cannot rule out (rule 7).
pub(super) fn deletion_done_elsewhere(
    keys: &FileKeys,
    hunk: &Hunk,
    tier: Tier,
    cand: &Candidate,
    touching: bool,
) -> Option<usize> {
    let lines = &hunk.lines;
    if lines.iter().any(|l| l.kind == LineKind::Add)
        || !lines.iter().any(|l| l.kind == LineKind::Remove)
    {
        return None;
    }
    let side = new_side(hunk);
    let first = side.first()?;
    if !side
        .iter()
        .any(|l| l.text.chars().any(char::is_alphanumeric))
    {
        return None;
    }
    let n = keys.len();
    // The file lines `cand` reads the context on, when they follow one
    // another: there the new side stands by construction.
    let context: Vec<Option<usize>> = lines
        .iter()
        .zip(&cand.slots)
        .filter(|(l, _)| l.kind == LineKind::Context)
        .map(|(_, slot)| match slot {
            Slot::Line(j, _) => Some(*j),
            _ => None,
        })
        .collect();
    let own = match context.first() {
        Some(Some(j)) if context.iter().enumerate().all(|(k, c)| *c == Some(j + k)) => Some(*j),
        _ => None,
    };
    // Read with the tolerance that read the old side here (whitespace at
    // least, case and `...` cuts at most): a re-run of a hunk placed with
    // a cut or drifted context line finds its applied state only so.
    let at_most = tier.clamp(Tier::Resilient, Tier::Fuzzy);
    [Tier::Exact, Tier::Resilient, Tier::Fuzzy]
        .into_iter()
        .filter(|&t| t <= at_most)
        .find_map(|t| {
            let starts: Vec<usize> = match super::prefilter::lines_matching(keys, first, t) {
                Some(hits) => hits.to_vec(),
                None => (0..n).collect(),
            };
            // With `touching`, a place that shares lines with `cand` is
            // another reading as well (a re-run: the section applied ends
            // on the heading that starts its twin, where the old side now
            // stands), unless it is the candidate's own context lines
            // (removed lines at an edge).
            contiguous(keys, &side, t, starts)
                .into_iter()
                .find(|c| {
                    if touching {
                        c.start != cand.start && Some(c.start) != own
                    } else {
                        c.end <= cand.start || c.start >= cand.end
                    }
                })
                .map(|c| c.start)
        })
}

/// A deletion read with tolerance whose context stands without its
/// removed lines at a place sharing lines with `cand` (the place away
/// from it was weighed in `evidence::removal_readings`): already applied
/// there, or to be applied here (rule 7). Weighed last, after the
/// applied readings that name the number or the heading, whose messages
/// say more; a hunk marked `*** End of File` is weighed against the end
/// by rule 14 instead.
pub(super) fn deletion_done_touching(p: &Proposal, cand: &Candidate) -> Result<(), Failure> {
    if p.tier == Tier::Exact || p.hints.at_eof {
        return Ok(());
    }
    match deletion_done_elsewhere(p.keys, p.hunk, p.tier, cand, true) {
        Some(done) => Err(two_places(
            p.index,
            done,
            cand.start,
            format!(
                "the hunk only removes lines, read here with tolerance ({}), and its context stands at line {} without them: already applied there, or to be applied here?",
                p.tier.name(),
                done + 1
            ),
        )),
        None => Ok(()),
    }
}
