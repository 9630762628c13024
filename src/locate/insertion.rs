//! Where added lines go beside lines the match did not read: checks a
//! candidate must pass when the hunk inserts lines next to file lines the
//! patch omitted, an edge line the file lacks, a neighbour found elsewhere,
//! or lines that already stand where the insertion would go (rules 1, 4, 7
//! and 10 of "One placement decision" in `docs/matching.md`). Split from
//! `decide.rs`, whose checks weigh rival places.

use super::keys::FileKeys;
use super::normalize::LineMatch;
use super::search::{Candidate, Slot};
use crate::model::{Hunk, HunkLine, LineKind};
use std::ops::Range;

/// File lines (0-based) the patch omitted right where it adds lines between
/// two context lines, when placing the added lines before, among or after
/// them gives different files.
pub(super) fn unpinned_insertion(
    keys: &FileKeys,
    hunk: &Hunk,
    cand: &Candidate,
) -> Option<Range<usize>> {
    // The last matched old line so far: its file line and whether removed.
    let mut prev: Option<(usize, LineKind)> = None;
    let mut run: Vec<&str> = Vec::new();
    let mut slots = cand.slots.iter();
    for line in &hunk.lines {
        if line.kind == LineKind::Add {
            run.push(&line.text);
            continue;
        }
        match slots.next() {
            Some(Slot::Line(j, _)) => {
                if let Some((p, kind)) = prev
                    && !run.is_empty()
                    && j > &(p + 1)
                {
                    let gap = p + 1..*j;
                    // After a removed line the run replaces it, before the
                    // gap; the gap holding the run's last lines is the run
                    // standing already (a re-run would double it).
                    let hit = if kind == LineKind::Context {
                        !same_every_way(keys, gap.clone(), &run)
                            || omitted_are_added(keys, gap.clone(), &run)
                    } else {
                        gap.len() <= run.len()
                            && omitted_are_added(keys, gap.clone(), &run[run.len() - gap.len()..])
                    };
                    if hit {
                        return Some(gap);
                    }
                }
                prev = Some((*j, line.kind));
                run.clear();
            }
            // A blank context line turned into an added line is inserted too.
            Some(Slot::AsAddition) => run.push(""),
            Some(Slot::Dropped | Slot::Overhang) | None => {}
        }
    }
    None
}

/// The similarity tier pairs each old line with the file line at its
/// offset, matching or not. An unmatched context line at an edge of the
/// block (no matched line beyond it) is no evidence of a file line: the
/// model may have written a line the file never had. Added lines beyond
/// such a line could go on either side of the file lines it was paired
/// with; unless both readings give the same bytes, those file lines are
/// returned and the hunk is refused.
pub(super) fn unanchored_edge(
    keys: &FileKeys,
    hunk: &Hunk,
    cand: &Candidate,
) -> Option<Range<usize>> {
    // Each hunk line with its slot (added lines have none).
    let mut slots = cand.slots.iter();
    let paired: Vec<(LineKind, &str, Option<Slot>)> = hunk
        .lines
        .iter()
        .map(|l| {
            let slot = (l.kind != LineKind::Add)
                .then(|| slots.next().copied())
                .flatten();
            (l.kind, l.text.as_str(), slot)
        })
        .collect();
    let matched =
        |slot: &Option<Slot>| matches!(slot, Some(Slot::Line(_, how)) if *how != LineMatch::No);
    let first = paired.iter().position(|(_, _, s)| matched(s))?;
    let last = paired.iter().rposition(|(_, _, s)| matched(s))?;
    let tail = paired.get(last + 1..).unwrap_or_default();
    let head: Vec<_> = paired
        .get(..first)
        .unwrap_or_default()
        .iter()
        .rev()
        .collect();
    for edge in [tail.iter().collect::<Vec<_>>(), head] {
        // File lines paired with unmatched edge lines, then the first run
        // of added lines beyond them.
        let mut gap: Vec<usize> = Vec::new();
        let mut run: Vec<&str> = Vec::new();
        for (kind, text, slot) in edge {
            match (kind, slot) {
                (LineKind::Add, _) if !gap.is_empty() => run.push(text),
                (LineKind::Add, _) => {}
                (_, Some(Slot::Line(j, _))) if run.is_empty() => gap.push(*j),
                _ => break,
            }
        }
        if run.is_empty() || gap.is_empty() {
            continue;
        }
        let (lo, hi) = (gap.iter().min()?, gap.iter().max()?);
        if !same_every_way(keys, *lo..hi + 1, &run) {
            return Some(*lo..hi + 1);
        }
    }
    None
}

/// True when the file lines `gap` the patch omitted are its added lines
/// (but for whitespace): the hunk may be applied already, its added lines
/// read as omitted ones, as for blank lines, which the already-applied rule
/// cannot recognise (`docs/matching.md`, "One placement decision", rules 4
/// and 7).
fn omitted_are_added(keys: &FileKeys, gap: Range<usize>, added: &[&str]) -> bool {
    gap.len() == added.len()
        && gap
            .zip(added)
            .all(|(j, a)| super::normalize::same_but_whitespace(&keys.text(j), a))
}

/// True when inserting `added` anywhere among the file lines `gap` gives
/// the same lines.
fn same_every_way(keys: &FileKeys, gap: Range<usize>, added: &[&str]) -> bool {
    let skipped: Vec<String> = gap.map(|j| keys.text(j).into_owned()).collect();
    let reading = |split: usize| -> Vec<&str> {
        let mut out: Vec<&str> = skipped[..split].iter().map(String::as_str).collect();
        out.extend_from_slice(added);
        out.extend(skipped[split..].iter().map(String::as_str));
        out
    };
    let first = reading(0);
    (1..=skipped.len()).all(|split| reading(split) == first)
}

/// A context line next to added lines that the lenient tiers did not find
/// where they put it (dropped as a line the file never had, or paired with
/// an unequal line by similarity), while its text does stand in the file
/// near the match: the model's neighbour of the insertion is there, so the
/// added lines could belong beside it rather than where the pairing put
/// them. Unless both places give the same bytes, the file lines between
/// the two places are returned and the hunk is refused.
pub(super) fn displaced_neighbour(
    keys: &FileKeys,
    hunk: &Hunk,
    cand: &Candidate,
) -> Option<Range<usize>> {
    let old = keys.old_side(hunk);
    // Each hunk line: its index among the old lines, or `None` if added.
    let mut next_old = 0;
    let at: Vec<Option<usize>> = hunk
        .lines
        .iter()
        .map(|l| {
            (l.kind != LineKind::Add).then(|| {
                next_old += 1;
                next_old - 1
            })
        })
        .collect();
    let slot = |i: usize| at[i].and_then(|o| cand.slots.get(o).copied());
    let window = old.len() + 2;
    let lo = cand.start.saturating_sub(window);
    let hi = (cand.end.max(cand.start + 1) + window).min(keys.len());
    for Range {
        start: first,
        end: i,
    } in added_runs(&hunk.lines)
    {
        let run: Vec<&str> = hunk.lines[first..i]
            .iter()
            .map(|l| l.text.as_str())
            .collect();
        // Where the run goes: after the line before it, or before the next.
        let before = first.checked_sub(1);
        let after = (i < hunk.lines.len()).then_some(i);
        let placed = match (before.and_then(slot), after.and_then(slot)) {
            (Some(Slot::Line(j, LineMatch::Exact | LineMatch::Normalized)), _) => j + 1,
            (_, Some(Slot::Line(j, LineMatch::Exact | LineMatch::Normalized))) => j,
            (Some(Slot::Line(j, _)), _) => j + 1,
            (_, Some(Slot::Line(j, _))) => j,
            _ => continue,
        };
        for (neighbour, side_after) in [(before, true), (after, false)] {
            let Some(n) = neighbour else { continue };
            if hunk.lines[n].kind != LineKind::Context {
                continue;
            }
            let paired = match slot(n) {
                Some(Slot::Dropped) => None,
                Some(Slot::Line(j, LineMatch::No)) => Some(j),
                _ => continue,
            };
            let Some(line) = at[n].and_then(|o| old.get(o)) else {
                continue;
            };
            for k in (lo..hi).filter(|&k| Some(k) != paired) {
                if keys.fuzzy(k) != line.fuzzy() {
                    continue;
                }
                // Beside the line found: after it for the line before the
                // run, before it for the line after.
                let there = if side_after { k + 1 } else { k };
                let gap = placed.min(there)..placed.max(there);
                if !gap.is_empty() && !same_every_way(keys, gap.clone(), &run) {
                    return Some(gap);
                }
            }
        }
    }
    None
}

/// A run of added lines (between context lines, not replacing any) that
/// already stands, exactly but for whitespace, right where a candidate of
/// any tier but exact would insert it (when the already-applied rule did
/// not recognise the new side): the hunk was applied before with the same
/// tolerance (its new side no longer reads exactly, so rule 7 cannot see
/// it), or the lines are to be doubled. A run before every old line also
/// counts when it stands just above the match. Returns the run's first
/// file line.
pub(super) fn added_run_in_place(keys: &FileKeys, hunk: &Hunk, cand: &Candidate) -> Option<usize> {
    let mut slots = cand.slots.iter();
    // The file line after the last old line matched so far.
    let mut at: Option<usize> = Some(cand.start);
    let lines = &hunk.lines;
    let mut i = 0;
    while i < lines.len() {
        if lines[i].kind != LineKind::Add {
            at = match slots.next() {
                Some(Slot::Line(j, _)) => Some(j + 1),
                Some(Slot::AsAddition) => None,
                _ => at,
            };
            i += 1;
            continue;
        }
        let first = i;
        while i < lines.len() && lines[i].kind == LineKind::Add {
            i += 1;
        }
        let replaces = (first > 0 && lines[first - 1].kind == LineKind::Remove)
            || lines.get(i).is_some_and(|l| l.kind == LineKind::Remove);
        let run = &lines[first..i];
        let Some(p) = at else { continue };
        // A run of blank lines or brackets counts too: standing where it
        // goes, it may be the one a run before added (the exact tier weighs
        // it so through rule 7's unsure new side).
        if replaces {
            continue;
        }
        let stands_at = |q: usize| {
            q + run.len() <= keys.len()
                && run
                    .iter()
                    .enumerate()
                    .all(|(k, l)| super::normalize::same_but_whitespace(&keys.text(q + k), &l.text))
        };
        if stands_at(p) {
            return Some(p);
        }
        // A run before every old line goes right above the match: applied
        // before, it stands just above it.
        let leading = lines[..first].iter().all(|l| l.kind == LineKind::Add);
        if leading && let Some(q) = p.checked_sub(run.len()).filter(|&q| stands_at(q)) {
            return Some(q);
        }
    }
    None
}

/// The runs of consecutive added lines of `lines`, as index ranges.
fn added_runs(lines: &[HunkLine]) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < lines.len() && lines[i].kind != LineKind::Add {
            i += 1;
        }
        let first = i;
        while i < lines.len() && lines[i].kind == LineKind::Add {
            i += 1;
        }
        (first < i).then_some(first..i)
    })
}
