//! Candidate search: where in the file a hunk's old side matches under one tier.
//!
//! The exact, resilient and fuzzy tiers compare the old side line by line as a
//! contiguous block. The structural tier aligns it with small, bounded slack
//! (blank context lines, omitted structural lines, dropped context lines,
//! context past the end of the file). The similarity tier scores blocks by
//! Levenshtein ratio but insists that removed lines really are in the file.

use super::keys::{FileKeys, OldLine};
use super::lenient::{rest_places_alone, short_fragment, tokens_match};
use super::normalize::{LineMatch, bounded_distance, indentation, is_structural};
use super::{Normalization, Tier};
use crate::model::LineKind;
use std::ops::Range;

/// Where one old-side line landed in an alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
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
pub struct Candidate {
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
    /// Ranking key: fewer deviations, then more exact lines, then higher similarity.
    pub fn quality(&self) -> (usize, usize, u32) {
        (
            usize::MAX - self.deviations,
            self.exact,
            (self.similarity * 1000.0).round() as u32,
        )
    }
}

/// Bounds on the slack the structural tier may use in one hunk.
#[derive(Debug, Clone, Copy)]
pub struct Slack {
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
pub fn contiguous(
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
pub fn bracket_rejected(
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
    // Context lines read as short mid-word fragments at this start.
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
                LineMatch::No if short_fragment(keys, tier, p + i, line) => {
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

/// Finds matches with bounded structural slack, comparing lines at the fuzzy level.
pub fn structural(
    keys: &FileKeys,
    old: &[OldLine],
    starts: impl IntoIterator<Item = usize>,
    slack: Slack,
) -> Vec<Candidate> {
    let n = keys.len();
    let mut out: Vec<Candidate> = Vec::new();
    if old.is_empty() {
        return out;
    }
    let mut aligner = Aligner {
        keys,
        old,
        slack,
        slots: Vec::with_capacity(old.len()),
        skipped: Vec::new(),
        skip_cost: 0,
        drops: 0,
        blanks: 0,
        steps: 0,
        best: None,
    };
    for p in starts.into_iter().take_while(|&p| p < n) {
        aligner.reset();
        aligner.run(0, p);
        if let Some(cand) = aligner.candidate(p)
            && !out
                .iter()
                .any(|c| c.start == cand.start && c.end == cand.end)
        {
            out.push(cand);
        }
    }
    out
}

/// A bounded depth-first alignment of the old side against the file.
struct Aligner<'a, 'k, 'h> {
    keys: &'a FileKeys<'k>,
    old: &'a [OldLine<'h>],
    slack: Slack,
    slots: Vec<Slot>,
    skipped: Vec<usize>,
    skip_cost: usize,
    drops: usize,
    blanks: usize,
    steps: usize,
    /// The cheapest complete alignment found so far from this start line.
    best: Option<Alignment>,
}

/// A complete alignment and what it cost.
struct Alignment {
    cost: usize,
    added: usize,
    exact: usize,
    slots: Vec<Slot>,
    skipped: Vec<usize>,
    drops: usize,
}

/// Upper bound on alignment steps from one start line (keeps the search linear).
const MAX_STEPS: usize = 4096;

impl Aligner<'_, '_, '_> {
    fn reset(&mut self) {
        self.slots.clear();
        self.skipped.clear();
        self.skip_cost = 0;
        self.drops = 0;
        self.blanks = 0;
        self.steps = 0;
        self.best = None;
    }

    fn cost_so_far(&self) -> usize {
        self.skip_cost + self.drops + self.blanks
    }

    /// Keeps the current complete alignment if it is the cheapest so far:
    /// fewest deviations, then fewest blank lines added to the file, then
    /// most exact lines. True when it is perfect, which ends the search.
    fn record(&mut self) -> bool {
        let overhang = self.slots.iter().filter(|s| **s == Slot::Overhang).count();
        let added = self
            .slots
            .iter()
            .filter(|s| **s == Slot::AsAddition)
            .count();
        let cost = self.cost_so_far() + overhang;
        let exact = self
            .slots
            .iter()
            .filter(|s| matches!(s, Slot::Line(_, LineMatch::Exact)))
            .count();
        let rank = |cost: usize, added: usize, exact: usize| (cost, added, usize::MAX - exact);
        let better = self
            .best
            .as_ref()
            .is_none_or(|b| rank(cost, added, exact) < rank(b.cost, b.added, b.exact));
        if better {
            self.best = Some(Alignment {
                cost,
                added,
                exact,
                slots: self.slots.clone(),
                skipped: self.skipped.clone(),
                drops: self.drops,
            });
        }
        cost == 0
    }

    fn matched(&self) -> usize {
        self.slots
            .iter()
            .filter(|s| matches!(s, Slot::Line(..)))
            .count()
    }

    /// Aligns the old lines from `i` with the file lines from `j`, trying
    /// each move in turn (match, blank line as addition, skip a file line,
    /// drop a context line) and undoing it when the rest does not align;
    /// true once the search may stop.
    fn run(&mut self, i: usize, j: usize) -> bool {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return true;
        }
        if self
            .best
            .as_ref()
            .is_some_and(|b| self.cost_so_far() > b.cost)
        {
            return false;
        }
        if i == self.old.len() {
            return self.acceptable() && self.record();
        }
        if j == self.keys.len() {
            return self.overhang(i);
        }
        self.match_line(i, j)
            || self.blank_as_addition(i, j)
            || self.skip_file_line(i, j)
            || self.drop_context_line(i, j)
    }

    /// At the end of the file: context past it is dropped as overhang.
    fn overhang(&mut self, i: usize) -> bool {
        let old = self.old;
        if self.matched() > 0 && old[i..].iter().all(|l| l.kind == LineKind::Context) {
            let before = self.slots.len();
            self.slots
                .extend(std::iter::repeat_n(Slot::Overhang, old.len() - i));
            let done = self.acceptable() && self.record();
            self.slots.truncate(before);
            return done;
        }
        false
    }

    /// Old line `i` matches file line `j`.
    fn match_line(&mut self, i: usize, j: usize) -> bool {
        let how = self.keys.compare(Tier::Fuzzy, j, &self.old[i]);
        if how != LineMatch::No {
            self.slots.push(Slot::Line(j, how));
            if self.run(i + 1, j + 1) {
                return true;
            }
            self.slots.pop();
        }
        false
    }

    /// True once an old line has matched a file line.
    fn matched_before(&self) -> bool {
        self.slots.iter().any(|s| matches!(s, Slot::Line(..)))
    }

    /// A blank context line that aligns with no blank line.
    fn blank_as_addition(&mut self, i: usize, j: usize) -> bool {
        let old = self.old;
        let line = &old[i];
        if line.blank && line.kind == LineKind::Context && self.blanks < self.slack.max_blanks {
            // At an edge of the hunk, or in a run of blank lines reaching
            // one: the patch's own spacing, never inserted.
            let spacing = |l: &OldLine| l.blank && l.kind == LineKind::Context;
            let edge = old[..i].iter().all(spacing) || old[i + 1..].iter().all(spacing);
            self.blanks += 1;
            self.slots.push(if edge {
                Slot::Dropped
            } else {
                Slot::AsAddition
            });
            if self.run(i + 1, j) {
                return true;
            }
            self.slots.pop();
            self.blanks -= 1;
        }
        false
    }

    /// A file line the patch omitted, between two matched lines.
    fn skip_file_line(&mut self, i: usize, j: usize) -> bool {
        let old = self.old;
        // A dropped context line right next to a skipped file line would be a
        // line written differently (a substitution): that is for the
        // similarity tier, which weighs how different it is, never for this one.
        let just_dropped =
            matches!(self.slots.last(), Some(Slot::Dropped)) && i > 0 && !old[i - 1].blank;
        let inside_removed_run =
            i > 0 && old[i - 1].kind == LineKind::Remove && old[i].kind == LineKind::Remove;
        if self.matched_before() && !inside_removed_run && !just_dropped {
            let cost = if is_structural(&self.keys.text(j)) {
                1
            } else {
                2
            };
            if self.skip_cost + cost <= self.slack.skip_budget {
                self.skip_cost += cost;
                self.skipped.push(j);
                if self.run(i, j + 1) {
                    return true;
                }
                self.skipped.pop();
                self.skip_cost -= cost;
            }
        }
        false
    }

    /// An internal context line the file does not have.
    fn drop_context_line(&mut self, i: usize, j: usize) -> bool {
        let line = &self.old[i];
        let just_skipped = j > 0 && self.skipped.last() == Some(&(j - 1));
        if self.matched_before()
            && line.kind == LineKind::Context
            && !line.blank
            && !just_skipped
            && i + 1 < self.old.len()
            && self.drops < self.slack.max_drops
        {
            self.drops += 1;
            self.slots.push(Slot::Dropped);
            if self.run(i + 1, j) {
                return true;
            }
            self.slots.pop();
            self.drops -= 1;
        }
        false
    }

    /// Safety bounds on a complete alignment: every dropped or skipped line
    /// must sit between matched anchors, and enough anchors must remain.
    fn acceptable(&self) -> bool {
        if !brace_indent_consistent(self.keys, self.old, &self.slots) {
            return false;
        }
        let anchors = self
            .slots
            .iter()
            .zip(self.old)
            .filter(|(s, l)| matches!(s, Slot::Line(..)) && !l.blank)
            .count();
        if anchors == 0 {
            return false;
        }
        // Context past the end of the file is forgiven only behind real anchors.
        let overhang = self.slots.iter().filter(|s| **s == Slot::Overhang).count();
        if overhang > 0 && (anchors < 2 || overhang > anchors) {
            return false;
        }
        // A patch line the file lacks together with a file line the patch
        // lacks is a line written differently: the similarity tier's call.
        if self.drops > 0 && !self.skipped.is_empty() {
            return false;
        }
        // So is a patch line the file lacks together with a blank line added
        // to the file: the blank line shifts the alignment by one, and the
        // dropped line stands for a file line written differently.
        if self.drops > 0 && self.slots.contains(&Slot::AsAddition) {
            return false;
        }
        // A blank context line done without (dropped, added, or past the
        // end of the file) right beside a removed blank line: the file's
        // one blank line could be either, and removing it leaves the new
        // side without the blank line it keeps (a re-run removed a second
        // blank line).
        let removed_blank = |k: usize| {
            self.old
                .get(k)
                .is_some_and(|l| l.blank && l.kind == LineKind::Remove)
        };
        let beside_removed_blank =
            self.slots
                .iter()
                .zip(self.old)
                .enumerate()
                .any(|(k, (s, l))| {
                    l.blank
                        && matches!(s, Slot::Dropped | Slot::AsAddition | Slot::Overhang)
                        && (removed_blank(k + 1) || k.checked_sub(1).is_some_and(removed_blank))
                });
        if beside_removed_blank {
            return false;
        }
        let risky = self.drops > 0 || !self.skipped.is_empty();
        if !risky {
            return true;
        }
        let needed = if self.skip_cost > self.skipped.len() {
            3
        } else {
            2
        };
        if anchors < needed {
            return false;
        }
        // Brackets alone tell no place: with a line left out, at least one
        // matched line must hold a word.
        let telling = self.slots.iter().any(|s| match s {
            Slot::Line(j, _) => self.keys.text(*j).chars().any(char::is_alphanumeric),
            _ => false,
        });
        if !telling {
            return false;
        }
        // A dropped line must have a matched line after it.
        let Some(last_line) = self.slots.iter().rposition(|s| matches!(s, Slot::Line(..))) else {
            return false;
        };
        self.slots
            .iter()
            .enumerate()
            .all(|(k, s)| *s != Slot::Dropped || self.old[k].blank || k < last_line)
    }

    /// The best alignment found from start line `p`, as a candidate.
    fn candidate(&self, p: usize) -> Option<Candidate> {
        let best = self.best.as_ref()?;
        let slots = &best.slots;
        let mut lines = slots.iter().filter_map(|s| match s {
            Slot::Line(j, _) => Some(*j),
            _ => None,
        });
        let start = lines.next().unwrap_or(p);
        let end = lines.next_back().map_or(start + 1, |l| l + 1);
        let count = |slot: Slot| slots.iter().filter(|s| **s == slot).count();
        let dropped_blank = slots
            .iter()
            .zip(self.old)
            .filter(|(s, l)| **s == Slot::Dropped && l.blank)
            .count();
        let flags = [
            (
                slots
                    .iter()
                    .any(|s| matches!(s, Slot::Line(_, LineMatch::Normalized))),
                Normalization::CaseAndPunctuation,
            ),
            (count(Slot::AsAddition) > 0, Normalization::BlankAsAddition),
            (dropped_blank > 0, Normalization::DroppedBlankContext),
            (best.drops > 0, Normalization::DroppedContext),
            (!best.skipped.is_empty(), Normalization::SkippedFileLines),
            (count(Slot::Overhang) > 0, Normalization::EofOverhang),
        ];
        Some(Candidate {
            start,
            end,
            slots: slots.clone(),
            exact: best.exact,
            deviations: best.cost,
            similarity: 1.0,
            normalizations: flags
                .iter()
                .filter(|(on, _)| *on)
                .map(|(_, n)| *n)
                .collect(),
        })
    }
}

/// Scores contiguous blocks by Levenshtein similarity of their fuzzy keys.
///
/// Removed lines must still match at the fuzzy level (a stale patch is never
/// applied to a look-alike), at least half of the lines must match outright,
/// and the block similarity must reach `threshold`.
pub fn similar(
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
        if let Some(c) = score_block(keys, old, p, true)
            && c.similarity >= threshold
        {
            out.push(c);
        }
    }
    out
}

/// Scores the block of `old.len()` file lines at `p`. With `strict_removed`,
/// returns `None` as soon as a removed line does not match.
pub fn score_block(
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
/// Only compared where both indentations use the same character.
pub fn brace_indent_consistent(keys: &FileKeys, old: &[OldLine], slots: &[Slot]) -> bool {
    let uniform = |s: &str| s.chars().all(|c| c == ' ') || s.chars().all(|c| c == '\t');
    let mut deltas: Vec<(bool, isize)> = Vec::new();
    for (line, slot) in old.iter().zip(slots) {
        let Slot::Line(j, _) = slot else { continue };
        if line.blank {
            continue;
        }
        let file_text = keys.text(*j);
        let (fi, pi) = (indentation(&file_text), indentation(line.text));
        if !(uniform(fi) && uniform(pi))
            || (!fi.is_empty() && !pi.is_empty() && fi.as_bytes()[0] != pi.as_bytes()[0])
        {
            continue;
        }
        let bracket = line
            .text
            .trim()
            .chars()
            .all(|c| matches!(c, '}' | ']' | ')' | ';' | ','));
        deltas.push((bracket, fi.len() as isize - pi.len() as isize));
    }
    let mut others: Vec<isize> = deltas.iter().filter(|(b, _)| !b).map(|(_, d)| *d).collect();
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
    deltas.iter().filter(|(b, _)| *b).all(|(_, d)| *d == best.1)
}
