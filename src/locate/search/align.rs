//! The structural tier's search: a bounded depth-first alignment of a
//! hunk's old side against the file from each start line, allowing a few
//! skipped file lines, dropped context lines and blank lines, and keeping
//! the cheapest complete alignment.

use super::{Candidate, Slack, Slot, brace_indent_consistent};
use crate::locate::keys::{FileKeys, OldLine};
use crate::locate::normalize::{LineMatch, is_structural};
use crate::locate::{Normalization, Tier};
use crate::model::LineKind;
use crate::patch::elision::is_elision;

/// Finds matches with bounded structural slack, comparing lines at the fuzzy level.
pub(crate) fn structural(
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
        // An elision line (`// ... existing code ...`) stands for lines the
        // file has: dropped as one it lacks, it would hide the reading of
        // the hunk as the pieces around it (docs/formats.md, elision).
        if self.matched_before()
            && line.kind == LineKind::Context
            && !line.blank
            && !just_skipped
            && !is_elision(line.text)
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
    // One bound after another, each with the comment that says why; the list
    // reads best in one place (docs/matching.md cites it in this order).
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
        // A file line is omitted only between two matched lines: one
        // skipped after the last match, before context read as past the
        // end of the file, is a line that is there and not the patch's.
        let last_matched = self.slots.iter().rev().find_map(|s| match s {
            Slot::Line(j, _) => Some(*j),
            _ => None,
        });
        if overhang > 0
            && self
                .skipped
                .iter()
                .any(|&k| last_matched.is_none_or(|j| k > j))
        {
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
