//! Choosing among the candidates of one tier.
//!
//! Candidates are ranked by quality (fewer structural deviations, then more
//! byte-exact lines, then similarity). Only *explicit* hints may separate
//! candidates of equal quality: a line number that clearly points at one of
//! them, Codex `@@` anchors, or `*** End of File`. Anything else is ambiguous
//! and is refused with every candidate listed; the engine never guesses.

use super::scope::Anchors;
use super::search::Candidate;

/// Lines around a line hint inside which a candidate may be chosen by the hint.
pub(crate) const HINT_WINDOW: usize = 100;

/// At most this many blocks opened by lines equal to a section heading
/// make it evidence of place.
pub(super) const HEADING_BLOCKS: usize = 16;

/// What the patch says about where a hunk belongs.
#[derive(Debug, Clone, Default)]
pub(super) struct Hints {
    /// Expected first line (0-based), corrected by the offset at which the
    /// previous hunk of the file was found.
    pub line: Option<usize>,
    /// Expected first line (0-based) exactly as the patch numbers it. When it
    /// and [`line`](Self::line) point at different candidates, the hunk is
    /// ambiguous: a mis-numbered earlier hunk must not steer this one.
    pub raw_line: Option<usize>,
    /// Expected first line (0-based) as the header's new-side start puts
    /// it (`+c` less what the hunks before it add and remove). Where it
    /// points at another candidate than the old start, the header says two
    /// things (a model numbering in the result of the hunks before, or the
    /// second diff of a series numbered after the first): ambiguous.
    pub new_side_line: Option<usize>,
    /// Expected first line (0-based) as the line-number prefixes of a
    /// numbered view say (`42 | code`), where a header or `:start_line:`
    /// gave the line hint instead: another reading of the place, which
    /// like [`new_side_line`](Self::new_side_line) may contradict the line
    /// hint, never pick a place on its own.
    pub view_line: Option<usize>,
    /// For a hunk with no old lines in a later diff section for the file
    /// (a series): the line after which its new side's
    /// start puts it (`+c` less one and less what the hunks before it, of
    /// every section for the file, add and remove; negative or past the
    /// end when it names no point). Where it names another point than the
    /// old start, the header says two things (the second diff of a `-U0`
    /// series numbered after the first): ambiguous.
    pub new_side_point: Option<isize>,
    /// Lines (0-based) of the innermost Codex anchor, each with the end of
    /// its scope (the block it opens); the hunk lies in the scope of one.
    pub anchors: Option<Anchors>,
    /// The hunk belongs at the end of the file.
    pub at_eof: bool,
    /// `\ No newline at end of file` follows the old side's last line and
    /// the file indeed ends without one: the old side ends the file. Like
    /// [`new_side_line`](Self::new_side_line) it may contradict the line
    /// hint (a candidate ending the file where the number picks another),
    /// never pick a place on its own.
    pub ends_file: bool,
    /// Lines (0-based) the user pinned hunks of this file to (`--at FILE:LINE`).
    pub pins: super::Pins,
}

/// The outcome of choosing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Choice {
    /// Index into the candidate list.
    One(usize),
    /// Equally good candidates nothing separates (their first lines, 0-based).
    Ambiguous(Vec<usize>),
    /// No candidate is acceptable under the hints (e.g. none after the anchor).
    Nothing,
}

/// Picks one candidate or reports ambiguity.
// The ranking is one ordered list of rules (tier, exact lines, hint,
// anchors, end of file), each settling only what the ones before left
// tied; kept in one function so the order is visible.
pub(super) fn choose(cands: &[Candidate], hints: &Hints, file_len: usize) -> Choice {
    let mut pool: Vec<usize> = (0..cands.len()).collect();
    if let Some(anchors) = &hints.anchors {
        pool = first_in_scopes(cands, anchors);
    }
    if pool.is_empty() {
        return Choice::Nothing;
    }
    let best = pool
        .iter()
        .map(|&c| cands[c].quality())
        .max()
        .unwrap_or_default();
    // The similarity score alone never outranks a line number: a hint that
    // points at a candidate as good but for its score leaves two readings.
    if hints.pins.is_empty() {
        let same_but_score = |c: usize| {
            let q = cands[c].quality();
            (q.0, q.1) == (best.0, best.1) && q.2 < best.2
        };
        let outranked = hints
            .lines()
            .filter_map(|line| pointed(cands, &pool, line))
            .find(|&c| same_but_score(c));
        if let Some(hinted) = outranked {
            let mut starts: Vec<usize> = pool
                .iter()
                .copied()
                .filter(|&c| c == hinted || cands[c].quality() == best)
                .map(|c| cands[c].start)
                .collect();
            starts.sort_unstable();
            return Choice::Ambiguous(starts);
        }
    }
    pool.retain(|&c| cands[c].quality() == best);
    if hints.at_eof && pool.len() > 1 {
        let tail: Vec<usize> = pool
            .iter()
            .copied()
            .filter(|&c| cands[c].end == file_len)
            .collect();
        if !tail.is_empty() {
            pool = tail;
        }
    }
    if pool.len() == 1 {
        return Choice::One(pool[0]);
    }
    let pinned: Vec<usize> = pool
        .iter()
        .copied()
        .filter(|&c| hints.pins.contains(cands[c].start))
        .collect();
    if let [one] = pinned.as_slice() {
        return Choice::One(*one);
    }
    let mut picked: Vec<usize> = hints
        .lines()
        .filter_map(|line| pointed(cands, &pool, line))
        .collect();
    picked.dedup();
    if let [one] = picked.as_slice() {
        let contradicted = hints
            .second_readings()
            .filter_map(|line| pointed(cands, &pool, line))
            .any(|other| other != *one)
            || (hints.ends_file
                && cands[*one].end != file_len
                && pool.iter().any(|&c| cands[c].end == file_len));
        if !contradicted {
            return Choice::One(*one);
        }
    }
    let mut starts: Vec<usize> = pool.iter().map(|&c| cands[c].start).collect();
    starts.sort_unstable();
    Choice::Ambiguous(starts)
}

/// For each anchor, the first candidate in its scope (by start, then by
/// index), each once, by start. That is the first candidate at or after the
/// anchor when it starts inside the scope; so a candidate is taken when an
/// anchor after the start of the candidates before it, up to its own, has a
/// scope reaching it. Sorting the candidates once and asking the anchors by
/// range costs no pass over the anchors per candidate (a chunk under an
/// anchor that stands on many lines).
fn first_in_scopes(cands: &[Candidate], anchors: &Anchors) -> Vec<usize> {
    let mut order: Vec<usize> = (0..cands.len()).collect();
    order.sort_by_key(|&c| (cands[c].start, c));
    let mut pointed = Vec::new();
    let mut before: Option<usize> = None;
    for c in order {
        let start = cands[c].start;
        if before == Some(start) {
            continue;
        }
        if anchors.reach(before, start) {
            pointed.push(c);
        }
        before = Some(start);
    }
    pointed
}

impl Hints {
    /// The first lines (0-based) of `starts` that lie after an anchor but
    /// past the end of its block, and inside no anchor's block: places the
    /// content points at and the anchors rule out.
    pub(super) fn past_anchor_scope(&self, starts: impl Iterator<Item = usize>) -> Vec<usize> {
        let Some(anchors) = &self.anchors else {
            return Vec::new();
        };
        starts
            .filter(|&s| anchors.first().is_some_and(|a| a <= s) && !anchors.reach(None, s))
            .collect()
    }

    /// The readings of the place that may only contradict the line hints:
    /// the header's new-side start (or `:end_line:`) and a numbered view's
    /// prefixes.
    pub(super) fn second_readings(&self) -> impl Iterator<Item = usize> {
        self.new_side_line.into_iter().chain(self.view_line)
    }

    /// The distinct line hints: as corrected, and as written. The new-side
    /// start is not one of them: it may only contradict them
    /// ([`choose`]), never pick a place they leave open.
    pub(super) fn lines(&self) -> impl Iterator<Item = usize> {
        let raw = self.raw_line.filter(|r| Some(*r) != self.line);
        self.line.into_iter().chain(raw)
    }
}

/// True when the hunk's line hints point at different ones of the
/// candidates starting at `starts` (for the message of an ambiguity that
/// the numbers themselves make).
fn hints_disagree(cands: &[Candidate], starts: &[usize], hints: &Hints) -> bool {
    if hints
        .lines()
        .chain(hints.second_readings())
        .nth(1)
        .is_none()
    {
        return false;
    }
    let pool = pool_of(cands, starts);
    let mut picked: Vec<usize> = hints
        .lines()
        .chain(hints.second_readings())
        .filter_map(|line| pointed(cands, &pool, line))
        .collect();
    picked.sort_unstable();
    picked.dedup();
    picked.len() > 1
}

/// Why equally good candidates `starts` are refused when the patch's own
/// readings of the place contradict each other (its line numbers, or a
/// number against `\ No newline at end of file`); `None` when nothing
/// points at one of them.
pub(super) fn hints_contradict(
    cands: &[Candidate],
    starts: &[usize],
    hints: &Hints,
) -> Option<String> {
    let list: Vec<String> = starts.iter().map(|s| (s + 1).to_string()).collect();
    if hints_disagree(cands, starts, hints) {
        return Some(format!(
            "the hunk matches {} places equally well (lines {}) and its line numbers point at different ones (the header's old start, its new start less what the hunks before add and remove, a `:end_line:` less the block's length, the `N | ` prefixes of a numbered view, or the offset the hunks before were found at); fix the numbers or add context",
            starts.len(),
            list.join(", ")
        ));
    }
    (hints.ends_file && hints.lines().next().is_some()).then(|| {
        format!(
            "the hunk matches {} places equally well (lines {}); its line number points at one, but `\\ No newline at end of file` after its old side says it ends the file, as another does; fix the number or the marker",
            starts.len(),
            list.join(", ")
        )
    })
}

/// True when the section heading, whose lines open the blocks `blocks`
/// (first line, end; 0-based), names another candidate of `tied` than
/// `one`: `one` lies in no such block, and another candidate does. A
/// heading standing at many blocks names none of them in particular.
pub(super) fn heading_contradicts(
    blocks: &[(usize, usize)],
    cands: &[Candidate],
    tied: &[usize],
    one: usize,
) -> bool {
    let named = |c: usize| {
        blocks
            .iter()
            .any(|&(a, end)| super::scope::within(a, end, cands[c].start))
    };
    (1..=HEADING_BLOCKS).contains(&blocks.len())
        && !named(one)
        && tied.iter().any(|&c| c != one && named(c))
}

/// The candidates other than `one` that a line hint clearly points at,
/// among those with as few structural deviations as `one` (for the
/// whitespace rule of `evidence::whitespace_veto`).
pub(super) fn hinted_rivals(cands: &[Candidate], hints: &Hints, one: usize) -> Vec<usize> {
    let deviations = cands[one].deviations;
    let pool: Vec<usize> = (0..cands.len())
        .filter(|&c| cands[c].deviations == deviations)
        .collect();
    let mut rivals: Vec<usize> = hints
        .lines()
        .filter_map(|line| pointed(cands, &pool, line))
        .filter(|&c| c != one)
        .collect();
    rivals.dedup();
    rivals
}

/// The candidates (indices into `cands`) whose first line is one of
/// `starts`: a set lookup each, as `starts` may list every line of a file.
fn pool_of(cands: &[Candidate], starts: &[usize]) -> Vec<usize> {
    let set: std::collections::HashSet<usize> = starts.iter().copied().collect();
    (0..cands.len())
        .filter(|&c| set.contains(&cands[c].start))
        .collect()
}

/// The candidate of `pool` that `line` clearly points at, if any.
fn pointed(cands: &[Candidate], pool: &[usize], line: usize) -> Option<usize> {
    let starts: Vec<usize> = pool.iter().map(|&c| cands[c].start).collect();
    let start = points_among(&starts, line)?;
    pool.iter().copied().find(|&c| cands[c].start == start)
}

/// The one of `starts` (first lines, 0-based) that `line` clearly points
/// at, if any (as [`choose`] reads a line hint).
pub(super) fn points_among(starts: &[usize], line: usize) -> Option<usize> {
    let mut by_distance: Vec<(usize, usize)> =
        starts.iter().map(|&s| (s.abs_diff(line), s)).collect();
    by_distance.sort_unstable();
    let (d1, s1) = *by_distance.first()?;
    let d2 = by_distance.get(1).map_or(usize::MAX, |d| d.0);
    points_at(d1, d2).then_some(s1)
}

/// A line hint points at the nearest candidate when that one is within the
/// window and clearly nearer than the next (at less than half its distance).
pub(super) fn points_at(nearest: usize, second: usize) -> bool {
    nearest <= HINT_WINDOW && second > 2 * nearest + 2
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(start: usize, len: usize) -> Candidate {
        Candidate {
            start,
            end: start + len,
            slots: Vec::new(),
            exact: len,
            deviations: 0,
            similarity: 1.0,
            normalizations: Vec::new(),
        }
    }

    #[test]
    fn a_score_alone_never_outranks_a_line_number() {
        let mut near = cand(10, 3);
        near.similarity = 0.95;
        let mut far = cand(60, 3);
        far.similarity = 0.97;
        let hints = Hints {
            line: Some(10),
            ..Hints::default()
        };
        assert_eq!(
            choose(&[near.clone(), far.clone()], &hints, 100),
            Choice::Ambiguous(vec![10, 60])
        );
        // One more exact line is more than a score: it still decides.
        near.exact = 2;
        far.exact = 3;
        assert_eq!(choose(&[near, far], &hints, 100), Choice::One(1));
    }

    #[test]
    fn a_single_candidate_wins() {
        assert_eq!(choose(&[cand(4, 2)], &Hints::default(), 10), Choice::One(0));
    }

    #[test]
    fn ties_without_hints_are_ambiguous() {
        let c = [cand(10, 2), cand(40, 2)];
        assert_eq!(
            choose(&c, &Hints::default(), 100),
            Choice::Ambiguous(vec![10, 40])
        );
    }

    #[test]
    fn a_clear_line_hint_separates_ties() {
        let c = [cand(10, 2), cand(40, 2)];
        let hints = Hints {
            line: Some(38),
            ..Hints::default()
        };
        assert_eq!(choose(&c, &hints, 100), Choice::One(1));
    }

    #[test]
    fn a_hint_halfway_between_is_not_enough() {
        let c = [cand(10, 2), cand(40, 2)];
        let hints = Hints {
            line: Some(24),
            ..Hints::default()
        };
        assert_eq!(choose(&c, &hints, 100), Choice::Ambiguous(vec![10, 40]));
    }

    #[test]
    fn hints_that_disagree_are_ambiguous() {
        let c = [cand(10, 2), cand(40, 2)];
        let hints = Hints {
            line: Some(38),
            raw_line: Some(11),
            ..Hints::default()
        };
        assert_eq!(choose(&c, &hints, 100), Choice::Ambiguous(vec![10, 40]));
        let agree = Hints {
            line: Some(38),
            raw_line: Some(39),
            ..Hints::default()
        };
        assert_eq!(choose(&c, &agree, 100), Choice::One(1));
    }

    #[test]
    fn anchors_pick_the_first_candidate_after_them() {
        let c = [cand(10, 2), cand(40, 2), cand(70, 2)];
        let hints = Hints {
            anchors: Some(Anchors::new(vec![(30, usize::MAX)])),
            ..Hints::default()
        };
        assert_eq!(choose(&c, &hints, 100), Choice::One(1));
    }

    /// What `choose` did before the anchors were asked by range: for each
    /// anchor in turn, the first candidate (by start, then index) in its
    /// scope, each once.
    fn scan(cands: &[Candidate], anchors: &Anchors) -> Vec<usize> {
        let mut pointed: Vec<usize> = Vec::new();
        for (a, end) in anchors.scopes() {
            let first = (0..cands.len())
                .filter(|&c| super::super::scope::within(a, end, cands[c].start))
                .min_by_key(|&c| cands[c].start);
            if let Some(c) = first
                && !pointed.contains(&c)
            {
                pointed.push(c);
            }
        }
        pointed
    }

    /// The candidates first in an anchor's scope, read by range, are the
    /// ones a scan of every anchor finds (equal starts: the lowest index),
    /// in the same order; and the other questions asked of the anchors by
    /// range agree with a scan of them all. Anchors of a tail (a chunk
    /// after the previous one) included, nested and overlapping scopes too.
    #[test]
    fn anchors_asked_by_range_agree_with_a_scan_of_every_anchor() {
        let mut seed = 7u64;
        let mut next = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            usize::try_from((seed >> 33) % m).unwrap_or(0)
        };
        for _ in 0..5000 {
            let cands: Vec<Candidate> = (0..next(6)).map(|_| cand(next(30), 2)).collect();
            let scopes: Vec<(usize, usize)> = (0..1 + next(6))
                .map(|_| {
                    let a = next(32);
                    let end = if next(4) == 0 {
                        usize::MAX
                    } else {
                        a + 1 + next(12)
                    };
                    (a, end)
                })
                .collect();
            let all = Anchors::new(scopes);
            let anchors = all.tail(next(8));
            let case = format!(
                "{:?} {:?}",
                anchors,
                cands.iter().map(|c| c.start).collect::<Vec<_>>()
            );
            assert_eq!(
                first_in_scopes(&cands, &anchors),
                scan(&cands, &anchors),
                "{case}"
            );
            let line = next(46);
            let scoped: Vec<(usize, usize)> = anchors.scopes().collect();
            let last = scoped.iter().copied().filter(|&(a, _)| a <= line).max();
            assert_eq!(anchors.last_at_or_before(line), last, "{case}");
            let inside = scoped
                .iter()
                .any(|&(a, e)| super::super::scope::within(a, e, line));
            assert_eq!(anchors.reach(None, line), inside, "{case}");
            let hints = Hints {
                anchors: Some(anchors.clone()),
                ..Hints::default()
            };
            let after = scoped.iter().any(|&(a, _)| a <= line);
            let want = if after && !inside { vec![line] } else { vec![] };
            assert_eq!(
                hints.past_anchor_scope(std::iter::once(line)),
                want,
                "{case}"
            );
        }
    }

    #[test]
    fn ambiguous_anchors_stay_ambiguous() {
        let c = [cand(10, 2), cand(40, 2)];
        let hints = Hints {
            anchors: Some(Anchors::new(vec![(5, usize::MAX), (30, usize::MAX)])),
            ..Hints::default()
        };
        assert_eq!(choose(&c, &hints, 100), Choice::Ambiguous(vec![10, 40]));
    }

    #[test]
    fn a_pin_settles_ambiguity() {
        let c = [cand(10, 2), cand(40, 2)];
        let hints = Hints {
            pins: super::super::Pins::new(vec![40]),
            ..Hints::default()
        };
        assert_eq!(choose(&c, &hints, 100), Choice::One(1));
    }

    #[test]
    fn better_quality_beats_proximity() {
        let mut near = cand(10, 3);
        near.exact = 1;
        let far = cand(50, 3);
        let hints = Hints {
            line: Some(10),
            ..Hints::default()
        };
        assert_eq!(choose(&[near, far], &hints, 100), Choice::One(1));
    }
}
