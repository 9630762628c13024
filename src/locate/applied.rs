//! Hunks whose place is given outright (pure additions) and hunks whose
//! result already stands in the file.
//!
//! "Already applied" is a *located state*, not a search for the new lines
//! anywhere: the new side must stand where the hunk's placement would be
//! (its line hint, its Codex anchor, the stale site of its context), its
//! added lines must be there exactly but for whitespace, and it is checked
//! before any tier lenient enough to read the applied state as the old one
//! (see `docs/matching.md`, "One placement decision", rule 7).

use super::addition::{PlaceError, addition_present, insert_at};
use super::choose::{Choice, Hints, choose, points_among, points_at};
use super::keys::{FileKeys, OldLine};
use super::normalize::{LineMatch, same_but_whitespace};
use super::respaced::Spacing;
use super::search::{Candidate, contiguous};
use super::{
    FileState, Footprint, HunkStatus, Located, Reason, Slot, Tier, fixed, prefilter, respaced,
};
use crate::model::{Hunk, LineKind};
use std::ops::Range;

/// A hunk with no old lines goes after its anchor, after the line its
/// header names, or at the end of the file.
///
/// `appends_after`: the lines the hunks after it that also append at the
/// end add, in order. Applied before, an append stands right before those
/// lines (which end the file), not before the end of the file.
pub(super) fn place_pure_addition(
    keys: &FileKeys,
    hunk: &Hunk,
    index: usize,
    hints: &Hints,
    state: &FileState,
    appends_after: &[&str],
) -> Result<(Located, super::numbered::AdditionEvidence), PlaceError> {
    let n = keys.len();
    // A number naming the line after which the lines go places them there
    // and nowhere else: the leeway of an append at the end of the file
    // (before trailing blank lines, or the lines later appends add) is not
    // its (a `git diff -U0` moving the last line below a trailing blank
    // line read its addition as done above that line).
    let mut numbered = false;
    let at = if let Some(anchors) = &hints.anchors {
        match anchors.lines() {
            [one] => one + 1,
            many => {
                let lines: Vec<usize> = many.iter().map(|a| a + 1).collect();
                return Err((
                    Reason::Ambiguous,
                    format!(
                        "the `@@` anchor matches {} lines; name a more specific one",
                        many.len()
                    ),
                    lines,
                ));
            }
        }
    } else if hunk.at_eof || hunk.line_hint.is_none() || n == 0 {
        // In an empty file every line number names the same place.
        n
    } else if hints.raw_line.is_none_or(|l| l + 1 > n) && whole_file_added(keys, hunk) {
        // The file is what the hunk, applied to an empty file (where its
        // number past the end named the only place), made of it: the same
        // place again, where its lines stand.
        0
    } else {
        numbered = true;
        match super::numbered::place_numbered(keys, hunk, index, hints, state)? {
            super::numbered::Numbered::Point(at) => at,
            super::numbered::Numbered::Placed(loc, evidence) => return Ok((loc, evidence)),
        }
    };
    let appending = (hints.anchors.is_none() && at == n && !numbered && !state.appended)
        .then_some(appends_after);
    if let Some(start) = addition_present(keys, hunk, at, appending) {
        let loc = fixed(
            index,
            start,
            start + hunk.lines.len(),
            HunkStatus::AlreadyApplied,
        );
        return Ok((loc, super::numbered::AdditionEvidence::Plain));
    }
    if let Some(why) = appending.and_then(|_| resends_file(keys, hunk)) {
        return Err((Reason::Ambiguous, why, vec![1, n + 1]));
    }
    insert_at(hunk, index, at, state).map(|loc| (loc, super::numbered::AdditionEvidence::Plain))
}

/// Why an append at the end of the file reads as the file re-sent with
/// edits: its lines hold at least half of the file's lines that hold a
/// word, in the file's order (but for whitespace). Appended, the file
/// would hold two copies of itself; read as the whole new file, it would
/// be replaced: two readings with different bytes. `None` for an append
/// that does not (the file's lines are counted only up to twice the
/// appended ones, so a large file costs no pass over it).
fn resends_file(keys: &FileKeys, hunk: &Hunk) -> Option<String> {
    let worded = |t: &str| t.chars().any(char::is_alphanumeric);
    let key = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let added: Vec<String> = hunk
        .new_lines()
        .map(|l| &*l.text)
        .filter(|t| worded(t))
        .map(key)
        .collect();
    if added.is_empty() {
        return None;
    }
    let mut file = Vec::new();
    for j in 0..keys.len() {
        let text = keys.text(j);
        if worded(&text) {
            if file.len() == 2 * added.len() {
                return None;
            }
            file.push(key(&text));
        }
    }
    let mut at: std::collections::HashMap<&str, Vec<usize>> = Default::default();
    for (i, a) in added.iter().enumerate() {
        at.entry(a.as_str()).or_default().push(i);
    }
    // Greedily, each file line at the first appended line after the last.
    let (mut next, mut held) = (0, 0);
    for line in &file {
        let places = at.get(line.as_str()).map_or(&[][..], Vec::as_slice);
        if let Some(&i) = places.get(places.partition_point(|&i| i < next)) {
            (next, held) = (i + 1, held + 1);
        }
    }
    (!file.is_empty() && 2 * held >= file.len()).then(|| {
        format!(
            "the lines the hunk appends at the end of the file hold {held} of the file's {} lines, in its order: they read as the whole file sent again with edits (replacing it) as well as new lines to append after it (a second copy); send the change as an edit of the lines it changes, or only the lines to append",
            file.len()
        )
    })
}

/// The lines that the hunks after `index` which append at the end of the
/// file (no old lines, no anchor, no line number or `*** End of File`) add,
/// in order: what stands after an earlier append once the patch is applied.
pub(super) fn later_appends(hunks: &[Hunk], index: usize) -> Vec<&str> {
    hunks
        .get(index + 1..)
        .unwrap_or_default()
        .iter()
        .filter(|h| h.old_len() == 0 && h.anchors.is_empty() && (h.at_eof || h.line_hint.is_none()))
        .flat_map(|h| {
            h.lines
                .iter()
                .filter(|l| l.is_new())
                .map(|l| l.text.as_str())
        })
        .collect()
}

/// Where a hunk's new side stands in the file.
pub(super) struct NewSideFound {
    /// The place, as an already-applied hunk.
    pub loc: Located,
    /// True when the hunk's hints agree with the place: only then is the
    /// hunk already applied by this alone; otherwise the place is evidence
    /// against a lenient reading of the old side elsewhere.
    pub hinted: bool,
    /// The first lines of the other places where the new side stands as
    /// well, when nothing chooses among them: never done by itself, and
    /// evidence against any lenient reading of the old side.
    pub others: Vec<usize>,
    /// True when the hunk's added lines are blank or brackets only: the
    /// place is never done by itself, and any lenient reading of the old
    /// side, there or elsewhere, is weighed against it.
    pub unsure: bool,
    /// True when the place is unsure because an added line stands there,
    /// read with tolerance, only at another indentation than the context
    /// lines map it to.
    pub indented_otherwise: bool,
}

/// Where the new side of a hunk whose old side is gone stands, if it stands
/// in one place. `site` is where its context stands exactly with the
/// removed lines missing, when that was found.
pub(super) fn already_applied(
    keys: &FileKeys,
    hunk: &Hunk,
    index: usize,
    hints: &Hints,
    state: &FileState,
    site: Option<&Range<usize>>,
) -> Option<NewSideFound> {
    let new = keys.new_side(hunk);
    let added = added_flags(hunk);
    let telling = telling_addition(hunk);
    // Without an added line to recognise, only a deletion framed by context on
    // both sides can be seen to be done: the two sides must now touch.
    let recognisable = telling || (new.len() >= 2 && framed_deletion(hunk));
    // Added lines that are blank or brackets only could have stood there
    // before: the new side standing is then no proof of done, but still a
    // reading that a lenient one elsewhere must be weighed against.
    let unsure_additions = !recognisable && hunk.lines.iter().any(|l| l.kind == LineKind::Add);
    if !recognisable && !unsure_additions {
        return None;
    }
    // Where the hunks before, read as done where they were found done,
    // put the line number (`FileState::done_offset`): a long re-run moves
    // each hunk's applied state by what the hunks before it added and
    // removed, farther than the fresh offset's window.
    let done_line = hunk
        .line_hint
        .and_then(|l| super::hint_line(l, state.done_offset, keys.len()));
    // Not the fuzzy tier: a new side recognised only through case and
    // punctuation folding is too weak a proof that the edit was made here
    // (the old side of a case fix reads as its new side).
    for tier in [Tier::Exact, Tier::Resilient] {
        let mut cands = match prefilter::starts(keys, &new, tier, 0, 0) {
            Some(starts) => contiguous(keys, &new, tier, starts),
            None => contiguous(keys, &new, tier, 0..keys.len()),
        };
        cands.retain(|c| {
            state
                .overlapping(&Footprint::unchanged(c.start..c.end))
                .is_none()
                && added_lines_stand(keys, &new, &added, c)
                && (tier == Tier::Exact
                    || respaced::spacing_stands(keys, hunk, &slot_lines(c), Spacing::Respaced))
                && site.is_none_or(|s| c.start < s.end && s.start < c.end)
        });
        if cands.is_empty() {
            continue;
        }
        let (c, others) = match choose(&cands, hints, keys.len()) {
            Choice::One(c) => (c, Vec::new()),
            Choice::Ambiguous(starts) => {
                let first = starts.first().copied();
                let c = cands.iter().position(|c| Some(c.start) == first);
                (c.unwrap_or(0), starts.into_iter().skip(1).collect())
            }
            Choice::Nothing => return None,
        };
        let cand = &cands[c];
        // With tolerance, an added line standing at another indentation
        // than the context lines map it to may be the file's own line (a
        // copy of it added deeper): no proof of done by itself.
        let indented_otherwise = tier > Tier::Exact
            && !respaced::spacing_stands(keys, hunk, &slot_lines(cand), Spacing::Indented);
        let unsure = unsure_additions || indented_otherwise;
        return Some(NewSideFound {
            loc: Located {
                tier: Some(tier),
                ..fixed(index, cand.start, cand.end, HunkStatus::AlreadyApplied)
            },
            hinted: others.is_empty() && !unsure && where_hinted(cand, hints, done_line),
            others,
            unsure,
            indented_otherwise,
        });
    }
    None
}

/// The file line each line of a candidate stands on.
fn slot_lines(c: &Candidate) -> Vec<Option<usize>> {
    c.slots
        .iter()
        .map(|s| match s {
            Slot::Line(j, _) => Some(*j),
            _ => None,
        })
        .collect()
}

/// True when every added line of the new side stands in the candidate
/// exactly but for whitespace: a case-only fix is not "done" because the
/// old spelling matches fuzzily.
fn added_lines_stand(keys: &FileKeys, new: &[OldLine], added: &[bool], cand: &Candidate) -> bool {
    new.iter()
        .zip(added)
        .zip(&cand.slots)
        .all(|((line, &is_added), slot)| match slot {
            Slot::Line(_, LineMatch::Exact) => true,
            Slot::Line(j, _) => !is_added || same_but_whitespace(&keys.text(*j), line.text),
            _ => false,
        })
}

/// True when nothing the patch says about the hunk's place contradicts the
/// candidate: a line hint must point at it (as written, carried by the
/// hunks placed afresh, or carried by the hunks found done: `done_line`),
/// it must lie in a Codex anchor's block.
fn where_hinted(cand: &Candidate, hints: &Hints, done_line: Option<usize>) -> bool {
    let near_line = |line: usize| points_at(cand.start.abs_diff(line), usize::MAX);
    let lines_ok = hints.lines().next().is_none() || hints.lines().chain(done_line).any(near_line);
    let anchors_ok = hints
        .anchors
        .as_ref()
        .is_none_or(|a| a.reach(None, cand.start));
    lines_ok && anchors_ok
}

/// True when the file holds the hunk's added lines and nothing else, exactly
/// but for whitespace.
fn whole_file_added(keys: &FileKeys, hunk: &Hunk) -> bool {
    let added = keys.new_side(hunk);
    added.len() == keys.len()
        && added
            .iter()
            .enumerate()
            .all(|(i, l)| same_but_whitespace(&keys.text(i), l.text))
}

/// True when non-blank context stands both before the first removed line and
/// after the last one.
fn framed_deletion(hunk: &Hunk) -> bool {
    let solid =
        |l: &crate::model::HunkLine| l.kind == LineKind::Context && !l.text.trim().is_empty();
    let first = hunk.lines.iter().position(|l| l.kind == LineKind::Remove);
    let last = hunk.lines.iter().rposition(|l| l.kind == LineKind::Remove);
    match (first, last) {
        (Some(f), Some(l)) => {
            hunk.lines[..f].iter().any(solid) && hunk.lines[l + 1..].iter().any(solid)
        }
        _ => false,
    }
}

/// Where the new side stands when read with the tolerance of `tier`, the
/// lenient tier that read the old side: a re-run of a patch that tier
/// placed finds its applied state only so (the context lines drift in
/// case, are cut with `...`, or one is invented). Only a hunk whose
/// applied state tells counts (an added line with a word, or a deletion
/// framed by context), and only places where every added line stands
/// exactly but for whitespace (a case fix's old side reads as its new side
/// with folding). Returns the places, first line to end.
pub(super) fn new_side_read_leniently(
    keys: &FileKeys,
    hunk: &Hunk,
    tier: Tier,
    hints: &Hints,
    state: &FileState,
    options: &super::MatchOptions,
    cand: &Candidate,
) -> Vec<Range<usize>> {
    let new = keys.new_side(hunk);
    let added = added_flags(hunk);
    let telling = telling_addition(hunk);
    if new.is_empty() {
        return Vec::new();
    }
    if !(telling || (new.len() >= 2 && worded_junction(hunk))) {
        return untold_site_pointed(keys, hunk, &new, tier, hints, state, options, cand);
    }
    // A deletion is seen done only where the lines on both sides of its
    // removed lines now touch (their places in the new side).
    let junction = (!telling).then(|| deletion_junction(hunk)).flatten();
    let removed: Vec<&str> = hunk
        .lines
        .iter()
        .filter(|l| l.kind == LineKind::Remove)
        .map(|l| l.text.as_str())
        .collect();
    let mut cands = super::search_tier(keys, &new, tier, hints, options);
    if tier >= Tier::Structural {
        cands.extend(read_as_placed(keys, hunk, &new, cand));
    }
    let overhang = |c: &Candidate| c.slots.iter().filter(|s| **s == Slot::Overhang).count();
    cands
        .into_iter()
        .filter(|c| {
            // Read without skipping a removed line (a deletion's new side
            // read over the removed lines is its old side, a twin, not its
            // applied state) nor more context past the end of the file
            // than the old side's reading took there (its blank last
            // context line, say: the same tolerance). A file
            // line the patch omitted may be skipped when an added line
            // tells: the tier that placed the hunk skipped it too.
            let skips_ok = if telling {
                c.skipped_lines().all(|j| {
                    let text = keys.text(j);
                    !removed.iter().any(|r| same_but_whitespace(&text, r))
                })
            } else {
                c.skipped_lines().next().is_none()
            };
            // The matched lines nearest the junction (a context line the
            // patch invented there is dropped) must now touch.
            let touching = junction.is_none_or(|(a, b)| {
                let line = |s: &Slot| match s {
                    Slot::Line(j, _) => Some(*j),
                    _ => None,
                };
                let before = c.slots.get(..=a).and_then(|s| s.iter().rev().find_map(line));
                let after = c.slots.get(b..).and_then(|s| s.iter().find_map(line));
                matches!((before, after), (Some(x), Some(y)) if y == x + 1)
            });
            skips_ok
                && touching
                && overhang(c) <= overhang(cand)
                && state
                .overlapping(&Footprint::unchanged(c.start..c.end))
                .is_none()
                && new.iter().zip(&added).zip(&c.slots).all(|((line, &is_added), slot)| {
                    !is_added
                        || matches!(slot, Slot::Line(j, m)
                            if *m == LineMatch::Exact || same_but_whitespace(&keys.text(*j), line.text))
                })
                && respaced::spacing_stands(keys, hunk, &slot_lines(c), Spacing::Respaced)
        })
        .map(|c| c.start..c.end)
        .collect()
}

/// A hunk whose applied state does not tell (a deletion at the edge of its
/// context, added lines without a word): where its new side stands, read
/// with the tolerance of `tier`, away from `cand` and where the hunk's
/// numbers point rather than at `cand`. There the hunk reads as applied
/// before (its removed lines gone from where its number points, its
/// context read as it was read when it was placed), so `cand`, a look-alike
/// no number points at, is a second reading.
#[allow(clippy::too_many_arguments)]
fn untold_site_pointed(
    keys: &FileKeys,
    hunk: &Hunk,
    new: &[OldLine],
    tier: Tier,
    hints: &Hints,
    state: &FileState,
    options: &super::MatchOptions,
    cand: &Candidate,
) -> Vec<Range<usize>> {
    if hints.lines().next().is_none()
        || !new
            .iter()
            .any(|l| l.text.chars().any(char::is_alphanumeric))
    {
        return Vec::new();
    }
    let removed: Vec<&str> = hunk
        .lines
        .iter()
        .filter(|l| l.kind == LineKind::Remove)
        .map(|l| l.text.as_str())
        .collect();
    let mut found = super::search_tier(keys, new, tier, hints, options);
    if tier >= Tier::Structural {
        found.extend(read_as_placed(keys, hunk, new, cand));
    }
    let sites: Vec<Range<usize>> = found
        .into_iter()
        .filter(|c| {
            (c.end <= cand.start || cand.end.max(cand.start + 1) <= c.start)
                && !c.slots.contains(&Slot::Overhang)
                && c.skipped_lines().all(|j| {
                    let text = keys.text(j);
                    !removed.iter().any(|r| same_but_whitespace(&text, r))
                })
                && state
                    .overlapping(&Footprint::unchanged(c.start..c.end))
                    .is_none()
        })
        .map(|c| c.start..c.end)
        .collect();
    let mut places: Vec<usize> = sites.iter().map(|s| s.start).collect();
    places.push(cand.start);
    places.sort_unstable();
    places.dedup();
    sites
        .into_iter()
        .filter(|s| {
            hints
                .lines()
                .any(|line| points_among(&places, line) == Some(s.start))
        })
        .collect()
}

/// The new side read with the tolerance that placed the old side at
/// `cand`, line by line rather than as a ratio or a bounded search over
/// the shorter new side (under which the applied state would go unseen):
/// every line matches at the fuzzy level, but for the patch lines the old
/// side's reading left unmatched (a paraphrased context line, the
/// similarity tier) or dropped (an invented one), and file lines that read
/// as the ones it skipped (an omitted line, the structural tier) may be
/// skipped. Read greedily from each start line.
fn read_as_placed(
    keys: &FileKeys,
    hunk: &Hunk,
    new: &[OldLine],
    cand: &Candidate,
) -> Vec<Candidate> {
    let old = keys.old_side(hunk);
    let (mut forgiven, mut dropped): (Vec<&str>, Vec<&str>) = (Vec::new(), Vec::new());
    for (line, slot) in old.iter().zip(&cand.slots) {
        match slot {
            Slot::Line(_, LineMatch::No) => forgiven.push(line.text),
            Slot::Dropped => dropped.push(line.text),
            _ => {}
        }
    }
    let skipped: Vec<String> = cand
        .skipped_lines()
        .map(|j| keys.text(j).into_owned())
        .collect();
    let n = keys.len();
    if (forgiven.is_empty() && dropped.is_empty() && skipped.is_empty()) || new.is_empty() {
        return Vec::new();
    }
    let read_at = |p: usize| {
        let mut slots = Vec::with_capacity(new.len());
        let (mut exact, mut missed, mut j) = (0, 0, p);
        let mut i = 0;
        while i < new.len() {
            let line = &new[i];
            let how = if j < n {
                keys.compare(Tier::Fuzzy, j, line)
            } else {
                LineMatch::No
            };
            if how != LineMatch::No {
                exact += usize::from(how == LineMatch::Exact);
                slots.push(Slot::Line(j, how));
            } else if dropped.contains(&line.text) {
                slots.push(Slot::Dropped);
                i += 1;
                continue;
            } else if j < n
                && j > p
                && skipped
                    .iter()
                    .any(|t| same_but_whitespace(&keys.text(j), t))
            {
                j += 1;
                continue;
            } else if j < n && forgiven.contains(&line.text) {
                missed += 1;
                slots.push(Slot::Line(j, how));
            } else {
                return None;
            }
            i += 1;
            j += 1;
        }
        let matched = slots.iter().filter(|s| matches!(s, Slot::Line(..))).count();
        (2 * missed < matched).then(|| Candidate {
            start: p,
            end: j,
            slots,
            exact,
            deviations: missed,
            similarity: cand.similarity,
            normalizations: cand.normalizations.clone(),
        })
    };
    (0..n).filter_map(read_at).collect()
}

/// True when a deletion's removed lines have a context line holding a word
/// right before and right after them: read with tolerance, a new side
/// joined at brackets or blank lines stands in many places.
fn worded_junction(hunk: &Hunk) -> bool {
    let worded = |l: &crate::model::HunkLine| {
        l.kind == LineKind::Context && l.text.chars().any(char::is_alphanumeric)
    };
    let first = hunk.lines.iter().position(|l| l.kind == LineKind::Remove);
    let last = hunk.lines.iter().rposition(|l| l.kind == LineKind::Remove);
    match (first, last) {
        (Some(f), Some(l)) if f > 0 && l + 1 < hunk.lines.len() => {
            worded(&hunk.lines[f - 1]) && worded(&hunk.lines[l + 1])
        }
        _ => false,
    }
}

/// The places in the new side of the lines right before and right after a
/// deletion's removed lines.
fn deletion_junction(hunk: &Hunk) -> Option<(usize, usize)> {
    let first = hunk.lines.iter().position(|l| l.kind == LineKind::Remove)?;
    let last = hunk
        .lines
        .iter()
        .rposition(|l| l.kind == LineKind::Remove)?;
    let before = hunk.lines[..first].iter().filter(|l| l.is_new()).count();
    let after_exists = hunk.lines[last + 1..].iter().any(|l| l.is_new());
    (before > 0 && after_exists).then(|| (before - 1, before))
}

/// For each line of the hunk's new side, whether the hunk adds it.
fn added_flags(hunk: &Hunk) -> Vec<bool> {
    hunk.lines
        .iter()
        .filter(|l| l.is_new())
        .map(|l| l.kind == LineKind::Add)
        .collect()
}

/// True when the hunk adds a line with a word in it (a comment counts): it
/// tells the applied state; a lone bracket or blank line could stand
/// anywhere.
fn telling_addition(hunk: &Hunk) -> bool {
    hunk.lines
        .iter()
        .any(|l| l.kind == LineKind::Add && l.text.chars().any(char::is_alphanumeric))
}
