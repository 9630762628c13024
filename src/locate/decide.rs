//! The checks a chosen candidate must pass before it is accepted: evidence
//! that contradicts the tier ladder's choice makes the hunk ambiguous.
//!
//! - **Hints against tiers.** A stricter tier's candidate wins over more
//!   lenient ones only when nothing the patch says points elsewhere: when a
//!   line number, `:start_line:`, Codex `@@` anchor or `*** End of File`
//!   points at a lenient candidate rather than at the strict one, the two
//!   pieces of evidence disagree and the hunk is refused.
//! - **Which side of an omitted line** and the other checks of where added
//!   lines go are in `insertion.rs`.
//! - **Indentation map** (`indent.rs`): an added line whose indentation
//!   the matched lines map to two file indentations, or that the maps
//!   fitting them (shift, scale, or with one level the line as written)
//!   place differently, is refused.
//!
//! See `docs/matching.md`, "One placement decision".

use super::choose::{Hints, points_at};
use super::keys::{FileKeys, OldLine};
use super::normalize::LineMatch;
use super::search::{Candidate, Slack, Slot, bracket_rejected, contiguous, similar, structural};
use super::{Failure, HINT_WINDOW, Located, MatchOptions, Tier, ambiguous, prefilter};
use crate::model::LineKind;
use std::ops::Range;

/// Whether a hint points at a candidate rather than at the chosen one.
type Pointed = Box<dyn Fn(&Candidate) -> bool>;

/// A lenient candidate the patch's hints point at instead of `chosen`
/// (found by a stricter tier): its first line (0-based).
pub(super) fn hinted_rival(
    keys: &FileKeys,
    old: &[OldLine],
    tier: Tier,
    chosen: &Candidate,
    hints: &Hints,
    options: &MatchOptions,
) -> Option<usize> {
    let lenient = Tier::LADDER
        .into_iter()
        .filter(|&t| t > tier && t <= options.max_tier);
    let n = keys.len();
    let mut regions: Vec<(Range<usize>, Pointed)> = Vec::new();
    for line in hints.lines() {
        let dc = chosen.start.abs_diff(line);
        // Nothing can be clearly nearer than a candidate within two lines.
        if dc <= 2 {
            continue;
        }
        let reach = HINT_WINDOW.min(dc / 2);
        let range = line.saturating_sub(reach)..(line + reach + 1).min(n);
        regions.push((
            range,
            Box::new(move |c: &Candidate| points_at(c.start.abs_diff(line), dc)),
        ));
    }
    if let Some(anchors) = &hints.anchors {
        // The chosen candidate is the first of its tier after an anchor: a
        // lenient one between that anchor and it is what the anchor names.
        let start = chosen.start;
        if let Some((a, _)) = anchors.last_at_or_before(start) {
            regions.push((a..start, Box::new(move |c: &Candidate| c.start < start)));
        }
    }
    // A candidate that ends the file but for trailing blank lines is the
    // end place itself (rule 14).
    let end = (0..n)
        .rev()
        .find(|&i| !keys.line(i).trim_ascii().is_empty())
        .map_or(n, |i| i + 1);
    if hints.at_eof && chosen.end < end {
        let from = end.saturating_sub(old.len() + Slack::default().max_drops + 2);
        regions.push((from..n, Box::new(move |c: &Candidate| c.end >= end)));
    }
    for t in lenient {
        for (range, wins) in &regions {
            let found = search_in(keys, old, t, range.clone(), options);
            if let Some(c) = found.iter().find(|c| wins(c) && c.start != chosen.start) {
                return Some(c.start);
            }
        }
    }
    None
}

/// A lenient candidate anywhere in the file when the patch numbers the hunk
/// but no number points near `chosen` (every hint farther than the hint
/// window, or past the end of the file): the numbers then vouch for no
/// place, and a whitespace- or case-drifted twin is as likely the edited
/// copy as the exact one. Only the tiers up to fuzzy are searched: a twin
/// found by skipping lines or by similarity is no such rival.
pub(super) fn unvouched_twin(
    keys: &FileKeys,
    old: &[OldLine],
    tier: Tier,
    chosen: &Candidate,
    hints: &Hints,
    options: &MatchOptions,
) -> Option<usize> {
    if hints
        .lines()
        .any(|line| chosen.start.abs_diff(line) <= HINT_WINDOW)
    {
        return None;
    }
    let lenient = Tier::LADDER
        .into_iter()
        .filter(|&t| t > tier && t <= options.max_tier.min(Tier::Fuzzy));
    for t in lenient {
        let found = search_in(keys, old, t, 0..keys.len(), options);
        if let Some(c) = found.iter().find(|c| c.start != chosen.start) {
            return Some(c.start);
        }
    }
    None
}

/// A place turned away only by the closing-bracket rule (a bracket line
/// shifted unlike the lines around it) that the ranking puts above
/// `chosen`: a place read in a stricter tier than `chosen`'s (the ladder
/// ranks tiers first: `chosen`'s tier was tried only because the rule left
/// the stricter ones empty), or in the same tier with more byte-exact
/// lines. The ranking would take it, the bracket rule takes `chosen`: two
/// rules, two places, and removing or editing lines at either gives
/// different bytes. Searched in the resilient and fuzzy tiers up to the
/// chosen one.
pub(super) fn bracket_rival(
    keys: &FileKeys,
    old: &[OldLine],
    tier: Tier,
    chosen: &Candidate,
) -> Option<usize> {
    let lenient = Tier::LADDER
        .into_iter()
        .filter(|&t| matches!(t, Tier::Resilient | Tier::Fuzzy) && t <= tier);
    for t in lenient {
        let starts: Vec<usize> = match prefilter::starts(keys, old, t, 0, 0) {
            Some(starts) => starts,
            None => (0..keys.len()).collect(),
        };
        let rejected = bracket_rejected(keys, old, t, starts);
        if let Some(c) = rejected
            .iter()
            .find(|c| c.start != chosen.start && (t < tier || c.exact > chosen.exact))
        {
            return Some(c.start);
        }
    }
    None
}

/// A place elsewhere that the similarity tier reads (its removed lines
/// standing there) when the structural tier chose `chosen` by leaving out
/// lines that are not blank (file lines the patch omitted, or context lines
/// the file lacks), and where no more lines differ than `chosen` left out.
/// The structural reading takes missing lines, the similarity reading lines
/// written differently: two equally plausible damages of the patch, at two
/// places. `range` is where the similarity tier may look (as the ladder
/// would); where it may not look at all (past `--scan-limit`, with no line
/// number), the rival is still sought, only at the starts where it could
/// stand ([`few_differing_starts`]): a bound on the search must never turn
/// two readings into an edit.
pub(super) fn similar_rival(
    keys: &FileKeys,
    old: &[OldLine],
    chosen: &Candidate,
    range: Option<Range<usize>>,
    threshold: f64,
) -> Option<usize> {
    let left_out = lines_left_out(keys, old, chosen);
    if left_out == 0 {
        return None;
    }
    let differing = |c: &Candidate| {
        c.slots
            .iter()
            .filter(|s| matches!(s, Slot::Line(_, LineMatch::No)))
            .count()
    };
    let found = match range {
        Some(range) => similar(keys, old, range, threshold),
        None => super::evidence::few_differing_starts(keys, old, left_out)
            .into_iter()
            .flat_map(|p| similar(keys, old, p..p + 1, threshold))
            .collect(),
    };
    found
        .into_iter()
        .find(|c| (c.end <= chosen.start || chosen.end <= c.start) && differing(c) <= left_out)
        .map(|c| c.start)
}

/// How many lines a structural candidate did without: context lines that
/// are not blank it dropped, file lines that are not blank it skipped,
/// context lines past the end of the file, and blank context lines it turns
/// into added lines (each writes the file differently from the patch's
/// reading).
fn lines_left_out(keys: &FileKeys, old: &[OldLine], cand: &Candidate) -> usize {
    let dropped = cand
        .slots
        .iter()
        .zip(old)
        .filter(|(s, l)| {
            (**s == Slot::Dropped && !l.blank) || matches!(s, Slot::Overhang | Slot::AsAddition)
        })
        .count();
    let matched: Vec<usize> = cand
        .slots
        .iter()
        .filter_map(|s| match s {
            Slot::Line(j, _) => Some(*j),
            _ => None,
        })
        .collect();
    let skipped: usize = matched
        .windows(2)
        .map(|w| {
            (w[0] + 1..w[1])
                .filter(|&k| !keys.text(k).trim().is_empty())
                .count()
        })
        .sum();
    dropped + skipped
}

/// A context line holding a word that the similarity tier paired with an
/// unequal line at `cand`, while it stands byte for byte elsewhere in the
/// file, or read there as the line tiers before the similarity one read
/// it (spaces, a `...` cut, a beginning cut between two tokens): the patch
/// may have been written from that place. Returns the line where it
/// stands.
pub(super) fn paired_line_stands_elsewhere(
    keys: &FileKeys,
    old: &[OldLine],
    cand: &Candidate,
) -> Option<usize> {
    old.iter()
        .zip(&cand.slots)
        .filter(|(l, s)| {
            l.kind == LineKind::Context
                && l.text.chars().any(char::is_alphanumeric)
                && matches!(s, Slot::Line(_, LineMatch::No))
        })
        .find_map(|(l, _)| {
            let span = cand.start..cand.end;
            first_standing_outside(keys, l, span.clone())
                .or_else(|| super::lenient::first_read_outside(keys, l, span))
        })
}

/// The first file line outside `span` that is `line` byte for byte: in a
/// small file through its lines ordered once by their bytes, in a large one
/// through the prefilter (a whole line equal to it holds its exact-tier
/// needle), so that a patch of many such hunks does not scan the file for
/// each.
fn first_standing_outside(keys: &FileKeys, line: &OldLine, span: Range<usize>) -> Option<usize> {
    let text = line.text.as_bytes();
    let outside = |j: &usize| !span.contains(j);
    if let Some(equal) = keys.lines_equal_to(text) {
        return equal.iter().copied().find(outside);
    }
    let equal_outside = |j: &usize| outside(j) && keys.line(*j) == text;
    match prefilter::lines_matching(keys, line, Tier::Exact) {
        Some(hits) => hits.iter().copied().find(equal_outside),
        None => (0..keys.len()).find(equal_outside),
    }
}

/// Candidates of `tier` starting in `range`. A large file's lines are
/// narrowed by the prefilter as in the ladder itself (it only drops lines
/// that cannot match), and a range longer than the similarity scan limit
/// gets no similarity search, as a whole file of that size gets none.
fn search_in(
    keys: &FileKeys,
    old: &[OldLine],
    tier: Tier,
    range: Range<usize>,
    options: &MatchOptions,
) -> Vec<Candidate> {
    let (before, after) = if tier == Tier::Structural {
        (2, 5)
    } else {
        (0, 0)
    };
    let starts: Vec<usize> = match prefilter::starts(keys, old, tier, before, after) {
        Some(starts) => starts.into_iter().filter(|s| range.contains(s)).collect(),
        None => range.clone().collect(),
    };
    match tier {
        Tier::Exact | Tier::Resilient | Tier::Fuzzy => contiguous(keys, old, tier, starts),
        Tier::Structural => structural(keys, old, starts, Slack::default()),
        Tier::Similarity if range.len() <= options.similarity_scan_limit => {
            let end = (range.end + old.len()).min(keys.len());
            similar(keys, old, range.start..end, options.similarity_threshold)
        }
        Tier::Similarity => Vec::new(),
    }
}

/// The new side read with the tolerance that read the old side at `cand`
/// (`read`, see [`applied::new_side_read_leniently`]): wherever it stands,
/// the lenient reading of the old side is one of two readings, "applied
/// there already" being the other (`None` when it stands nowhere). Around
/// the same lines too: tolerance that reads both sides there cannot tell
/// which of them the file holds.
pub(super) fn lenient_done(
    index: usize,
    tier: Tier,
    read: &[Range<usize>],
    cand: &Candidate,
) -> Option<Result<Located, Failure>> {
    match read {
        [] => None,
        _ => {
            let mut starts: Vec<usize> = read.iter().map(|r| r.start).collect();
            let at = starts
                .iter()
                .map(|s| (s + 1).to_string())
                .collect::<Vec<_>>()
                .join(", ");
            starts.push(cand.start);
            starts.sort_unstable();
            starts.dedup();
            let why = format!(
                "the hunk's new lines already stand at line {at}, read with the same tolerance ({}) that reads its old lines at line {}: already applied, or to be applied there?",
                tier.name(),
                cand.start + 1
            );
            Some(Err(ambiguous(index, &starts, None, Some(why))))
        }
    }
}
