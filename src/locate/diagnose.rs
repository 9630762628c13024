//! Failure analysis: when no tier places a hunk, find the closest block of
//! the file and tell a stale patch (its context is there, a removed line is
//! not) from a missing one.

use super::choose::points_among;
use super::keys::{FileKeys, OldLine, side_lines};
use super::memo::{self, Question, Scanned};
use super::normalize::LineMatch;
use super::search::{Candidate, score_block};
use super::{Failure, HINT_WINDOW, Hints, MatchOptions, NearMatch, Reason, Slot, Tier};
use crate::model::LineKind;
use std::ops::Range;

/// Explains a failure: the closest block, and whether only removed lines
/// differ. The answer depends on the file, the old side, the line hint and
/// the scan limit only, and is kept for the file's next location when the
/// closest block was sought among many (`memo`).
pub(super) fn diagnose(
    keys: &FileKeys,
    old: &[OldLine],
    index: usize,
    hints: &Hints,
    options: &MatchOptions,
) -> Failure {
    let n = keys.len();
    let range = match hints.line {
        Some(line) => line.saturating_sub(HINT_WINDOW)..(line + HINT_WINDOW).min(n),
        None => 0..n.min(options.similarity_scan_limit),
    };
    let question = Question::diagnosis(hints.line, options);
    let make = || {
        let found = diagnose_afresh(keys, old, index, hints, range.clone());
        Scanned {
            places: found.candidates.len(),
            found,
            lines: range.len(),
        }
    };
    let failure = memo::answer(keys.source(), (side_lines(old), question), make);
    Failure {
        hunk: index,
        ..failure
    }
}

/// [`diagnose`] without the memo, seeking the closest block among those
/// starting in `range`.
fn diagnose_afresh(
    keys: &FileKeys,
    old: &[OldLine],
    index: usize,
    hints: &Hints,
    range: Range<usize>,
) -> Failure {
    if let Some(site) = stale_sites(keys, old, hints).into_iter().next() {
        return stale_failure(keys, old, index, site);
    }
    let n = keys.len();
    let m = old.len();
    let mut best: Option<Candidate> = None;
    if m <= n {
        for p in range.start..range.end.min(n - m + 1) {
            if let Some(c) = score_block(keys, old, p, false)
                && best.as_ref().is_none_or(|b| c.similarity > b.similarity)
            {
                best = Some(c);
            }
        }
    }
    let Some(best) = best else {
        return Failure {
            hunk: index,
            reason: Reason::ContextNotFound,
            message: format!("the file has {n} lines, fewer than the hunk's {m} lines to find"),
            candidates: Vec::new(),
            tie: None,
            near: None,
        };
    };
    let first_difference = old.iter().zip(&best.slots).find_map(|(l, s)| match s {
        Slot::Line(j, LineMatch::No) => Some((l.text.to_string(), j + 1)),
        _ => None,
    });
    let near = NearMatch {
        start_line: best.start + 1,
        lines: (best.start..best.end)
            .map(|j| keys.text(j).to_string())
            .collect(),
        similarity: best.similarity,
        first_difference,
    };
    Failure {
        hunk: index,
        reason: Reason::ContextNotFound,
        message: format!(
            "no place in the file matches the hunk; closest: lines {}-{} ({:.0}% similar)",
            best.start + 1,
            best.end,
            best.similarity * 100.0
        ),
        candidates: Vec::new(),
        tie: None,
        near: Some(Box::new(near)),
    }
}

/// Where the hunk's context stands with something else in place of its
/// removed lines: the leading context (before the first removed line) and the
/// trailing context (after the last) both match, a few lines apart.
/// Returns each such place as the file range from the leading to the end of
/// the trailing context: with a line hint only the nearest one, otherwise
/// all of them (two or more mean the file changed at each, and a lenient
/// match elsewhere is a look-alike of every one).
pub(super) fn stale_sites(keys: &FileKeys, old: &[OldLine], hints: &Hints) -> Vec<Range<usize>> {
    let question = Question::StaleSites { line: hints.line };
    let make = || {
        let (found, lines) = stale_sites_afresh(keys, old, hints);
        Scanned {
            places: found.len(),
            found,
            lines,
        }
    };
    memo::answer(keys.source(), (side_lines(old), question), make)
}

/// [`stale_sites`] without the memo, and how many lines the leading or
/// trailing context was sought at.
fn stale_sites_afresh(
    keys: &FileKeys,
    old: &[OldLine],
    hints: &Hints,
) -> (Vec<Range<usize>>, usize) {
    let (Some(first), Some(last)) = (
        old.iter().position(|l| l.kind == LineKind::Remove),
        old.iter().rposition(|l| l.kind == LineKind::Remove),
    ) else {
        return (Vec::new(), 0);
    };
    let (lead, middle, trail) = (&old[..first], &old[first..=last], &old[last + 1..]);
    let anchors = lead.iter().chain(trail).filter(|l| !l.blank).count();
    if anchors < 2 {
        return (Vec::new(), 0);
    }
    let n = keys.len();
    let matches_at = |part: &[OldLine], p: usize| {
        p + part.len() <= n
            && part
                .iter()
                .enumerate()
                .all(|(i, l)| keys.compare(Tier::Fuzzy, p + i, l) != LineMatch::No)
    };
    // Stale means a line to remove is missing where the removed lines belong
    // (lines the patch merely omitted around them do not make it stale).
    let missing_in = |gap: Range<usize>| {
        middle.iter().any(|l| {
            l.kind == LineKind::Remove
                && !gap
                    .clone()
                    .any(|j| keys.compare(Tier::Fuzzy, j, l) != LineMatch::No)
        })
    };
    let mut sites: Vec<Range<usize>> = Vec::new();
    let positions = positions(keys, if lead.is_empty() { trail } else { lead });
    let scanned = positions.len();
    if lead.is_empty() {
        // Only trailing context: the removed lines should stand right before it.
        for q in positions {
            let gap = q.saturating_sub(middle.len())..q;
            if matches_at(trail, q) && missing_in(gap.clone()) {
                sites.push(gap.start..q + trail.len());
            }
        }
    } else if trail.is_empty() {
        // Only leading context: the removed lines should stand right after it.
        for p in positions {
            let gap = p + lead.len()..(p + lead.len() + middle.len()).min(n);
            if matches_at(lead, p) && missing_in(gap.clone()) {
                sites.push(p..gap.end);
            }
        }
    } else {
        for p in positions {
            if !matches_at(lead, p) {
                continue;
            }
            let from = p + lead.len();
            let to = (from + middle.len() + 5).min(n);
            if let Some(q) = (from..=to).find(|&q| matches_at(trail, q) && missing_in(from..q)) {
                sites.push(p..q + trail.len());
            }
        }
    }
    let sites = match hints.line {
        Some(line) => sites
            .into_iter()
            .min_by_key(|r| r.start.abs_diff(line))
            .into_iter()
            .collect(),
        None => sites,
    };
    (sites, scanned)
}

/// True when the hunk's context stands byte for byte at `site` (one of
/// [`stale_sites`]): the leading context at its start, the trailing
/// context at its end.
pub(super) fn context_exact_at(keys: &FileKeys, old: &[OldLine], site: &Range<usize>) -> bool {
    let (Some(first), Some(last)) = (
        old.iter().position(|l| l.kind == LineKind::Remove),
        old.iter().rposition(|l| l.kind == LineKind::Remove),
    ) else {
        return false;
    };
    let (lead, trail) = (&old[..first], &old[last + 1..]);
    let exact_at = |part: &[OldLine], p: usize| {
        part.iter().enumerate().all(|(i, l)| {
            p + i < keys.len() && keys.compare(Tier::Exact, p + i, l) == LineMatch::Exact
        })
    };
    exact_at(lead, site.start)
        && site
            .end
            .checked_sub(trail.len())
            .is_some_and(|q| q >= site.start && exact_at(trail, q))
}

pub(super) fn stale_failure(
    keys: &FileKeys,
    old: &[OldLine],
    index: usize,
    site: Range<usize>,
) -> Failure {
    let missing = old.iter().enumerate().find(|(_, l)| {
        l.kind == LineKind::Remove
            && !(site.clone()).any(|j| keys.compare(Tier::Fuzzy, j, l) != LineMatch::No)
    });
    let similarity = (site.start + old.len() <= keys.len())
        .then(|| score_block(keys, old, site.start, false))
        .flatten()
        .map_or(0.0, |c| c.similarity);
    let near = NearMatch {
        start_line: site.start + 1,
        lines: site.clone().map(|j| keys.text(j).to_string()).collect(),
        similarity,
        // Where the missing line should stand: its place in the hunk.
        first_difference: missing
            .map(|(i, l)| (l.text.to_string(), (site.start + i + 1).min(site.end))),
    };
    let missing = missing.map(|(_, l)| l);
    let what = missing.map_or_else(
        || "the lines to remove are not between the context lines".to_string(),
        |l| format!("the line to remove `{}` is not there", l.text.trim()),
    );
    Failure {
        hunk: index,
        reason: Reason::StaleRemovedLine,
        message: format!(
            "the context stands at lines {}-{} but {what} (the file changed since the patch was written?)",
            site.start + 1,
            site.end
        ),
        candidates: Vec::new(),
        tie: None,
        near: Some(Box::new(near)),
    }
}

/// Where `part` may start: the prefilter's candidates in a large file, every
/// line in a small one.
fn positions(keys: &FileKeys, part: &[OldLine]) -> Vec<usize> {
    super::prefilter::starts(keys, part, Tier::Fuzzy, 0, 0)
        .unwrap_or_else(|| (0..keys.len()).collect())
}

/// Keeps of `cands` (found by `tier`, for the hunk of old side `old` and
/// hints `hints`) those at a stale site `stale`
/// (where the context stands with a removed line changed: a lenient
/// match elsewhere is a look-alike), and, before the structural tier,
/// those the evidence vouches for: a number that points at the match
/// rather than at the site, or a context as exact as the site's (the
/// tolerance is then in the removed lines, which the site lacks).
pub(super) fn keep_beside_stale(
    (old, hints): (&[OldLine], &Hints),
    tier: Tier,
    cands: &mut Vec<Candidate>,
    stale: &[Range<usize>],
) {
    let mut places: Vec<usize> = stale.iter().map(|s| s.start).collect();
    places.extend(cands.iter().map(|c| c.start));
    places.sort_unstable();
    places.dedup();
    let context_exact = |c: &Candidate| {
        old.iter().zip(&c.slots).all(|(l, slot)| {
            l.kind != LineKind::Context || matches!(slot, Slot::Line(_, LineMatch::Exact))
        })
    };
    let vouched = |c: &Candidate| {
        tier < Tier::Structural
            && (context_exact(c)
                || hints
                    .lines()
                    .any(|line| points_among(&places, line) == Some(c.start)))
    };
    // At a site, a candidate found line for line must read the site's
    // context lines as the same patch lines: one reading them as other
    // lines of the hunk (its removed line, its other context) is
    // another reading of the same lines, shifted (the structural
    // tier's slack reads around the site on purpose, and is weighed by
    // its own rules).
    let first = old.iter().position(|l| l.kind == LineKind::Remove);
    let last = old.iter().rposition(|l| l.kind == LineKind::Remove);
    let (lead, trail) = match (first, last) {
        (Some(f), Some(l)) => (f, old.len() - l - 1),
        _ => (0, 0),
    };
    let n_old = old.len();
    let shifted_at = |c: &Candidate, site: &Range<usize>| {
        let trail_from = site.end.saturating_sub(trail);
        let read_as = |j: usize| {
            if (site.start..site.start + lead).contains(&j) {
                Some(j - site.start)
            } else if (trail_from..site.end).contains(&j) {
                Some(n_old - trail + (j - trail_from))
            } else {
                None
            }
        };
        c.slots.iter().enumerate().any(
            |(i, slot)| matches!(slot, Slot::Line(j, _) if read_as(*j).is_some_and(|k| k != i)),
        )
    };
    cands.retain(|c| {
        vouched(c)
            || stale.iter().any(|site| {
                c.start < site.end
                    && site.start < c.end.max(c.start + 1)
                    && (tier >= Tier::Structural || !shifted_at(c, site))
            })
    });
}
