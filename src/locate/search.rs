//! Candidate search: where in the file a hunk's old side matches under one tier.
//!
//! The exact, resilient and fuzzy tiers compare the old side line by line as a
//! contiguous block. The structural tier aligns it with small, bounded slack
//! (blank context lines, omitted structural lines, dropped context lines,
//! context past the end of the file). The similarity tier scores blocks by
//! Levenshtein ratio but insists that removed lines really are in the file.

use super::keys::{FileKeys, OldLine};
use super::lenient::{anchored_fragment, rest_places_alone, tokens_match};
use super::normalize::{LineMatch, bounded_distance, indentation};
use super::{Normalization, Tier};
use crate::model::LineKind;
use std::ops::Range;

mod align;

pub(super) use align::structural;

/// Where one old-side line landed in an alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    /// Matched file line (0-based) and how.
    Line(usize, LineMatch),
    /// A context line the file does not have: ignored.
    Dropped,
    /// A blank context line with no blank line in the file: inserted as a new line.
    AsAddition,
    /// A context line past the end of the file: ignored.
    Overhang,
}

/// One place the old side matches.
#[derive(Debug, Clone)]
pub(super) struct Candidate {
    /// First file line of the match (0-based).
    pub start: usize,
    /// One past the last file line of the match.
    pub end: usize,
    /// One slot per old-side line.
    pub slots: Vec<Slot>,
    /// Lines matched byte for byte.
    pub exact: usize,
    /// Structural deviations used (skips, drops, blank conversions, overhang).
    pub deviations: usize,
    /// Block similarity in 0..=1 (1 outside the similarity tier).
    pub similarity: f64,
    /// What had to be tolerated.
    pub normalizations: Vec<Normalization>,
}

impl Candidate {
    /// The file lines inside the match that no slot matched (lines the
    /// structural tier skipped), in order.
    pub(super) fn skipped_lines(&self) -> impl Iterator<Item = usize> + '_ {
        let mut matched = self.slots.iter().filter_map(|s| match s {
            Slot::Line(j, _) => Some(*j),
            _ => None,
        });
        let mut next = matched.next();
        (self.start..self.end).filter(move |&j| {
            while next.is_some_and(|m| m < j) {
                next = matched.next();
            }
            next != Some(j)
        })
    }

    /// Ranking key: fewer deviations, then more exact lines, then higher similarity.
    pub(super) fn quality(&self) -> (usize, usize, u32) {
        (
            usize::MAX - self.deviations,
            self.exact,
            (self.similarity * 1000.0).round() as u32,
        )
    }
}

/// Bounds on the slack the structural tier may use in one hunk.
#[derive(Debug, Clone, Copy)]
pub(super) struct Slack {
    /// File lines the patch omitted (structural lines cost 1, others 2).
    pub skip_budget: usize,
    /// Internal context lines of the patch that the file lacks.
    pub max_drops: usize,
    /// Blank context lines with no blank line in the file.
    pub max_blanks: usize,
}

impl Default for Slack {
    fn default() -> Self {
        Slack {
            skip_budget: 2,
            max_drops: 2,
            max_blanks: 3,
        }
    }
}

/// Finds all contiguous matches of `old` starting at `starts` under `tier`
/// (exact, resilient or fuzzy).
pub(super) fn contiguous(
    keys: &FileKeys,
    old: &[OldLine],
    tier: Tier,
    starts: impl IntoIterator<Item = usize>,
) -> Vec<Candidate> {
    contiguous_where(keys, old, tier, starts, BracketRule::Keeps)
}

/// The contiguous matches of `old` under `tier` that only the closing-bracket
/// rule (`brace_indent_consistent`) turns away: places the ranking by
/// byte-exact lines would weigh, seen by `decide::bracket_rival`.
pub(super) fn bracket_rejected(
    keys: &FileKeys,
    old: &[OldLine],
    tier: Tier,
    starts: impl IntoIterator<Item = usize>,
) -> Vec<Candidate> {
    contiguous_where(keys, old, tier, starts, BracketRule::Rejects)
}

/// Which side of the closing-bracket rule `contiguous_where` keeps.
#[derive(Clone, Copy, PartialEq, Eq)]
enum BracketRule {
    /// The matches the rule keeps (every match that is not lenient, too).
    Keeps,
    /// The lenient matches the rule turns away.
    Rejects,
}

fn contiguous_where(
    keys: &FileKeys,
    old: &[OldLine],
    tier: Tier,
    starts: impl IntoIterator<Item = usize>,
    rule: BracketRule,
) -> Vec<Candidate> {
    let n = keys.len();
    let m = old.len();
    let mut out = Vec::new();
    if m == 0 || m > n {
        return out;
    }
    // One buffer for all start lines: nothing is allocated per line scanned.
    let mut slots = Vec::with_capacity(m);
    // Context lines read as fragments at this start (`anchored_fragment`).
    let mut cut: Vec<usize> = Vec::new();
    for p in starts {
        if p + m > n {
            break;
        }
        slots.clear();
        let mut exact = 0;
        let mut ok = true;
        let mut by_tokens = false;
        cut.clear();
        for (i, line) in old.iter().enumerate() {
            match keys.compare(tier, p + i, line) {
                LineMatch::No if tier == Tier::Fuzzy && tokens_match(keys, p + i, line) => {
                    by_tokens = true;
                    slots.push(Slot::Line(p + i, LineMatch::Normalized));
                }
                LineMatch::No if anchored_fragment(keys, tier, p + i, line) => {
                    cut.push(i);
                    slots.push(Slot::Line(p + i, LineMatch::Normalized));
                }
                LineMatch::No => {
                    ok = false;
                    break;
                }
                how => {
                    exact += usize::from(how == LineMatch::Exact);
                    slots.push(Slot::Line(p + i, how));
                }
            }
        }
        // A context line read by its tokens only decides a place where the
        // removed lines stand byte for byte.
        if ok && by_tokens {
            let mut removed = old
                .iter()
                .zip(&slots)
                .filter(|(l, _)| l.kind == LineKind::Remove);
            let exact_removed =
                |(_, s): (&OldLine, &Slot)| matches!(s, Slot::Line(_, LineMatch::Exact));
            ok = removed.clone().next().is_some() && removed.all(exact_removed);
        }
        ok = ok && (cut.is_empty() || rest_places_alone(keys, old, tier, &cut, p));
        let keeps = || exact == m || brace_indent_consistent(keys, old, &slots);
        if ok && (keeps() == (rule == BracketRule::Keeps)) {
            let normalizations = if exact < m {
                vec![tier_normalization(tier)]
            } else {
                Vec::new()
            };
            out.push(Candidate {
                start: p,
                end: p + m,
                slots: slots.clone(),
                exact,
                deviations: 0,
                similarity: 1.0,
                normalizations,
            });
        }
    }
    out
}

fn tier_normalization(tier: Tier) -> Normalization {
    match tier {
        Tier::Resilient => Normalization::Whitespace,
        _ => Normalization::CaseAndPunctuation,
    }
}

/// Scores contiguous blocks by Levenshtein similarity of their fuzzy keys.
///
/// Removed lines must still match at the fuzzy level (a stale patch is never
/// applied to a look-alike), at least half of the lines must match outright,
/// and the block similarity must reach `threshold`.
pub(super) fn similar(
    keys: &FileKeys,
    old: &[OldLine],
    range: Range<usize>,
    threshold: f64,
) -> Vec<Candidate> {
    let n = keys.len();
    let m = old.len();
    let mut out = Vec::new();
    if m == 0 || m > n {
        return out;
    }
    for p in range.start..range.end.min(n - m + 1) {
        // The closing-bracket rule holds here as in the other lenient
        // tiers: a `}` paired with a `    }` only in a block shifted as a
        // whole, or the similarity tier would delete an inner block's brace.
        if let Some(c) = score_block(keys, old, p, true)
            && c.similarity >= threshold
            && (c.exact == m || brace_indent_consistent(keys, old, &c.slots))
        {
            out.push(c);
        }
    }
    out
}

/// Scores the block of `old.len()` file lines at `p`. With `strict_removed`,
/// returns `None` as soon as a removed line does not match.
pub(super) fn score_block(
    keys: &FileKeys,
    old: &[OldLine],
    p: usize,
    strict_removed: bool,
) -> Option<Candidate> {
    let mut slots = Vec::with_capacity(old.len());
    let (mut exact, mut matched, mut distance, mut total) = (0, 0, 0usize, 0usize);
    for (i, line) in old.iter().enumerate() {
        let j = p + i;
        let how = keys.compare(Tier::Fuzzy, j, line);
        if how == LineMatch::No && strict_removed && line.kind == LineKind::Remove {
            return None;
        }
        let fuzzy = keys.fuzzy(j);
        let (a, b) = (fuzzy.as_ref(), line.fuzzy());
        let len = a.chars().count().max(b.chars().count());
        total += len;
        match how {
            LineMatch::No => distance += bounded_distance(a, b),
            LineMatch::Exact => {
                exact += 1;
                matched += 1;
            }
            LineMatch::Normalized => matched += 1,
        }
        slots.push(Slot::Line(j, how));
    }
    if strict_removed && matched * 2 < old.len() {
        return None;
    }
    let similarity = if total == 0 {
        1.0
    } else {
        1.0 - distance as f64 / total as f64
    };
    Some(Candidate {
        start: p,
        end: p + old.len(),
        slots,
        exact,
        deviations: old.len() - matched,
        similarity,
        normalizations: vec![Normalization::Similarity],
    })
}

/// Closing-bracket lines (`}`, `);`, `]`) say which block ends by their
/// indentation alone. A lenient match may pair such a line with a file line
/// of another indentation only when the rest of the block is shifted by the
/// same amount; otherwise `}` would match the `    }` of an inner block.
/// A shift is what the two indentations do not share at their end (two
/// spaces before the file's tabs, four spaces more); lines whose whole
/// indentation turned from spaces to tabs or back are not compared.
pub(super) fn brace_indent_consistent(keys: &FileKeys, old: &[OldLine], slots: &[Slot]) -> bool {
    let uniform = |s: &str| s.chars().all(|c| c == ' ') || s.chars().all(|c| c == '\t');
    let mut deltas: Vec<(bool, (isize, String, String))> = Vec::new();
    for (line, slot) in old.iter().zip(slots) {
        let Slot::Line(j, _) = slot else { continue };
        if line.blank {
            continue;
        }
        let file_text = keys.text(*j);
        let (fi, pi) = (indentation(&file_text), indentation(line.text));
        if uniform(fi)
            && uniform(pi)
            && !fi.is_empty()
            && !pi.is_empty()
            && fi.as_bytes()[0] != pi.as_bytes()[0]
        {
            continue;
        }
        let bracket = line
            .text
            .trim()
            .chars()
            .all(|c| matches!(c, '}' | ']' | ')' | ';' | ','));
        deltas.push((bracket, shift_between(fi, pi)));
    }
    let mut others: Vec<&(isize, String, String)> =
        deltas.iter().filter(|(b, _)| !b).map(|(_, d)| d).collect();
    if others.is_empty() {
        return true;
    }
    others.sort_unstable();
    // The most common shift of the other lines.
    let mut best = (0usize, others[0]);
    let mut run = (0usize, others[0]);
    for &d in &others {
        run = if d == run.1 { (run.0 + 1, d) } else { (1, d) };
        if run.0 > best.0 {
            best = run;
        }
    }
    deltas.iter().filter(|(b, _)| *b).all(|(_, d)| d == best.1)
}

/// The file's and the patch's indentations without the end they share,
/// after the difference of their widths (the order the shifts are ranked in).
fn shift_between(file: &str, patch: &str) -> (isize, String, String) {
    let shared = file
        .bytes()
        .rev()
        .zip(patch.bytes().rev())
        .take_while(|(a, b)| a == b)
        .count();
    (
        file.len() as isize - patch.len() as isize,
        file[..file.len() - shared].to_string(),
        patch[..patch.len() - shared].to_string(),
    )
}
