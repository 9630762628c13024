//! Which hunks placed with tolerance the text before them cannot read
//! elsewhere: the cheap test before `sequence::place_after` builds the text
//! the earlier hunks produce and locates the hunk in it again.
//!
//! A hunk found in the original by the resilient or fuzzy tier, on a
//! contiguous block of lines, is refused as two readings when the produced
//! text places it, uniquely, at another place touching an earlier edit
//! (`docs/matching.md`, "Blocks applied in order"). That place cannot exist
//! when all of this holds, so the search is skipped (see [`Reach::settled`]):
//!
//! - no earlier edit reaches into the hunk's own lines: they stand together
//!   in the produced text, where the same tier finds them (a contiguous
//!   tier compares each line on its own), so the ladder stops at that tier
//!   or a stricter one, both contiguous: every place it can take puts the
//!   hunk's removed line `k` on the place's line `k`;
//! - a removed line matched at any of those tiers holds the word `w` that
//!   is chosen from it (a run of ASCII letters, digits and `_` of its fuzzy
//!   key stands in every line that matches it, up to ASCII case: the
//!   prefilter's rule, `docs/matching.md`, "Large files"), so no line an
//!   earlier edit wrote holds `w`, and no other original line holding `w`
//!   has a block of the hunk's length through it, at `k`, touching an edit.
//!
//! Lines that are not plain ASCII or hold a backtick count as holding every
//! word. A context line that could be a short mid-word fragment (whose
//! reading depends on the whole file), or a last context line not matched
//! byte for byte (it may be a line cut short), makes the hunk ineligible,
//! as does a word shared by more than [`MAX_HITS`] lines. In debug builds
//! the full search still runs and must agree (`sequence::place_in_order`).

use crate::locate::normalize::{LineMatch, fuzzy_key, resilient_key};
use crate::locate::{Failure, HunkStatus, Located, Slot, Tier};
use crate::model::{Hunk, LineKind};
use crate::plan::edits::{Edit, NewLine};
use crate::source::SourceText;
use aho_corasick::AhoCorasick;
use std::cell::OnceCell;
use std::collections::{BTreeMap, HashMap, HashSet};

/// A word standing in more lines than this is not worth the test: the
/// hunk is searched for in the produced text as before.
const MAX_HITS: usize = 256;

/// Shortest word used (the prefilter's shortest token).
const MIN_WORD: usize = 3;

/// Key lengths (in characters) of a context line that a short mid-word
/// fragment may have (`normalize::short_mid_word_suffix`: 10 to 15), with
/// a margin.
const FRAGMENT_LENGTHS: std::ops::RangeInclusive<usize> = 8..=20;

/// At most this many of a hunk's (removed line, word) choices are tried,
/// the least shared first.
const MAX_TRIES: usize = 4;

/// The original lines holding each word, found in one pass.
struct Hits {
    /// Original lines (0-based, ascending) holding each word.
    of_word: Vec<Vec<usize>>,
    /// Original lines that are not plain ASCII or hold a backtick.
    unsure: Vec<usize>,
}

/// The test's state for one file: built once from the results in the
/// original, then told of each edit the hunks before the current one make.
pub(super) struct Reach {
    /// Per eligible hunk, its (removed-line index in the old side, word)
    /// choices: every one of them is a test of its own.
    choices: HashMap<usize, Vec<(usize, usize)>>,
    words: Option<AhoCorasick>,
    /// Made on the first question (a file whose hunks never need the test
    /// is not read for it).
    hits: OnceCell<Hits>,
    /// The words some written line holds.
    written: HashSet<usize>,
    /// A written line is not plain ASCII or holds a backtick.
    written_unsure: bool,
    /// The original lines the edits cover, as closed intervals of line
    /// boundaries (`start..=end`), merged where they meet.
    covered: BTreeMap<usize, usize>,
}

impl Reach {
    /// The eligible hunks of a file, from their results in the original.
    pub(super) fn new(
        source: &SourceText,
        hunks: &[Hunk],
        results: &[Result<Located, Failure>],
    ) -> Reach {
        let mut patterns: Vec<String> = Vec::new();
        let mut ids: HashMap<String, usize> = HashMap::new();
        let mut choices = HashMap::new();
        for (i, result) in results.iter().enumerate() {
            let (Ok(loc), Some(hunk)) = (result, hunks.get(i)) else {
                continue;
            };
            let Some(words) = eligible(source, hunk, loc) else {
                continue;
            };
            let mut mine = Vec::new();
            for (k, word) in words {
                let next = patterns.len();
                let id = *ids.entry(word.clone()).or_insert(next);
                if id == next {
                    patterns.push(word);
                }
                mine.push((k, id));
            }
            choices.insert(i, mine);
        }
        let words = if choices.is_empty() {
            None
        } else {
            AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build(&patterns)
                .ok()
        };
        Reach {
            choices,
            words,
            hits: OnceCell::new(),
            written: HashSet::new(),
            written_unsure: false,
            covered: BTreeMap::new(),
        }
    }

    /// Records an edit of a hunk before the current one (where it was
    /// located, or a merged edit of hunks placed in order).
    pub(super) fn add_edit(&mut self, edit: &Edit) {
        self.cover(edit.start, edit.end);
        let Some(automaton) = &self.words else {
            return;
        };
        for line in &edit.lines {
            let NewLine::Insert(text) = line else {
                continue;
            };
            if unsure(text.as_bytes()) {
                self.written_unsure = true;
                continue;
            }
            for m in automaton.find_overlapping_iter(text.as_bytes()) {
                self.written.insert(m.pattern().as_usize());
            }
        }
    }

    /// True when hunk `i`, located at `loc` in the original `source`,
    /// provably has no other place touching the edits recorded so far in
    /// the text they produce (see the module's comment); false when that
    /// is not known.
    pub(super) fn settled(&self, source: &SourceText, i: usize, loc: &Located) -> bool {
        let (Some(mine), Some(automaton)) = (self.choices.get(&i), &self.words) else {
            return false;
        };
        if self.written_unsure || self.reaches_into(loc.start, loc.end) {
            return false;
        }
        let hits = self.hits.get_or_init(|| scan(source, automaton));
        let mut tries: Vec<(usize, usize)> = mine
            .iter()
            .copied()
            .filter(|(_, w)| !self.written.contains(w))
            .filter(|(_, w)| hits.of_word[*w].len() + hits.unsure.len() <= MAX_HITS)
            .collect();
        tries.sort_by_key(|(_, w)| hits.of_word[*w].len());
        let len = loc.end - loc.start;
        tries.iter().take(MAX_TRIES).any(|&(k, w)| {
            let own = loc.start + k;
            let mut lines = hits.of_word[w].iter().chain(&hits.unsure);
            !lines
                .any(|&j| j != own && self.meets(j.saturating_sub(k), (j + len).saturating_sub(k)))
        })
    }

    /// True when an edit's closed interval of line boundaries meets
    /// `from..=to` (an edit of lines `s..e` occupies `s..=e`: a block
    /// ending at `s` or starting at `e` touches it).
    fn meets(&self, from: usize, to: usize) -> bool {
        self.covered
            .range(..=to)
            .next_back()
            .is_some_and(|(_, &end)| end >= from)
    }

    /// True when an edit changes or inserts between lines `start..end`
    /// (one of its lines is among them, or it inserts strictly inside).
    fn reaches_into(&self, start: usize, end: usize) -> bool {
        self.covered
            .range(..end)
            .next_back()
            .is_some_and(|(_, &e)| e > start)
    }

    /// Adds `start..=end` to the covered intervals, merging those it meets.
    fn cover(&mut self, mut start: usize, mut end: usize) {
        while let Some((&s, &e)) = self.covered.range(..=end).next_back() {
            if e < start {
                break;
            }
            self.covered.remove(&s);
            start = start.min(s);
            end = end.max(e);
        }
        self.covered.insert(start, end);
    }
}

/// The original lines holding each word of `automaton`.
fn scan(source: &SourceText, automaton: &AhoCorasick) -> Hits {
    let mut hits = Hits {
        of_word: vec![Vec::new(); automaton.patterns_len()],
        unsure: Vec::new(),
    };
    for j in 0..source.len() {
        let line = source.line(j);
        if unsure(line) {
            hits.unsure.push(j);
            continue;
        }
        for m in automaton.find_overlapping_iter(line) {
            let of = &mut hits.of_word[m.pattern().as_usize()];
            if of.last() != Some(&j) {
                of.push(j);
            }
        }
    }
    hits
}

/// The (removed-line index, word) choices of a hunk the test may settle:
/// found by the resilient or fuzzy tier on contiguous lines, with no
/// context line of a short fragment's length and a removed line in plain
/// ASCII holding a word.
fn eligible(source: &SourceText, hunk: &Hunk, loc: &Located) -> Option<Vec<(usize, String)>> {
    let contiguous_tier = matches!(loc.tier, Some(Tier::Resilient | Tier::Fuzzy));
    if loc.status != HunkStatus::Applied || !contiguous_tier {
        return None;
    }
    let old: Vec<_> = hunk.old_lines().collect();
    let on_own_lines = loc.end.checked_sub(loc.start) == Some(old.len())
        && loc.slots.len() == old.len()
        && (loc.slots.iter().enumerate())
            .all(|(k, s)| matches!(s, Slot::Line(j, _) if *j == loc.start + k));
    let fragment_like = old.iter().any(|l| {
        l.kind == LineKind::Context
            && [resilient_key(l.text.as_str()), fuzzy_key(l.text.as_str())]
                .iter()
                .any(|key| FRAGMENT_LENGTHS.contains(&key.chars().count()))
    });
    // A last context line read by its beginning (a line cut short) is
    // placed by the whole file, as a short fragment is. One whose fuzzy
    // key is the file line's was read as a whole line, not cut.
    let cut_end = hunk.lines.last().is_some_and(|l| {
        l.kind == LineKind::Context
            && match loc.slots.last() {
                Some(Slot::Line(_, LineMatch::Exact)) => false,
                Some(Slot::Line(j, _)) => {
                    let file = String::from_utf8_lossy(source.line(*j));
                    fuzzy_key(&file) != fuzzy_key(l.text.as_str())
                }
                _ => true,
            }
    });
    if !on_own_lines || fragment_like || cut_end {
        return None;
    }
    let mut choices = Vec::new();
    for (k, line) in old.iter().enumerate() {
        if line.kind != LineKind::Remove || unsure(line.text.as_str().as_bytes()) {
            continue;
        }
        let key = fuzzy_key(line.text.as_str());
        let words = key
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| w.len() >= MIN_WORD);
        choices.extend(words.map(|w| (k, w.to_ascii_lowercase())));
    }
    (!choices.is_empty()).then_some(choices)
}

/// A line whose bytes a plain search may not see as its fuzzy key does:
/// not plain ASCII, or holding a backtick (which fuzzy folding drops).
fn unsure(line: &[u8]) -> bool {
    !line.is_ascii() || line.contains(&b'`')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn covering(edits: &[(usize, usize)]) -> Reach {
        let text = SourceText::new(b"");
        let mut reach = Reach::new(&text, &[], &[]);
        for &(start, end) in edits {
            reach.cover(start, end);
        }
        reach
    }

    #[test]
    fn intervals_merge_where_they_meet_and_only_there() {
        let reach = covering(&[(10, 12), (12, 12), (14, 15), (3, 5)]);
        let merged: Vec<(usize, usize)> = reach.covered.iter().map(|(&s, &e)| (s, e)).collect();
        assert_eq!(merged, vec![(3, 5), (10, 12), (14, 15)]);
        let bridged = covering(&[(10, 12), (14, 15), (12, 14)]);
        assert_eq!(bridged.covered.len(), 1);
        assert_eq!(bridged.covered.get(&10), Some(&15));
    }

    #[test]
    fn a_block_touching_an_edit_meets_it() {
        // An edit of lines 10..12: a block ending at line 10, or starting at
        // line 12, touches it; one ending at 9 or starting at 13 does not.
        let reach = covering(&[(10, 12)]);
        assert!(reach.meets(7, 10));
        assert!(reach.meets(12, 15));
        assert!(reach.meets(11, 11));
        assert!(!reach.meets(6, 9));
        assert!(!reach.meets(13, 16));
        // An insertion point (an empty edit) at line 20.
        let reach = covering(&[(20, 20)]);
        assert!(reach.meets(17, 20));
        assert!(reach.meets(20, 23));
        assert!(!reach.meets(21, 24));
    }

    #[test]
    fn only_an_edit_inside_a_hunks_lines_reaches_into_them() {
        // The hunk's lines 10..14.
        assert!(!covering(&[(6, 10)]).reaches_into(10, 14));
        assert!(!covering(&[(14, 18)]).reaches_into(10, 14));
        assert!(!covering(&[(10, 10), (14, 14)]).reaches_into(10, 14));
        assert!(covering(&[(12, 12)]).reaches_into(10, 14));
        assert!(covering(&[(6, 11)]).reaches_into(10, 14));
        assert!(covering(&[(13, 18)]).reaches_into(10, 14));
        assert!(covering(&[(11, 12)]).reaches_into(10, 11 + 1));
        // A one-line hunk on line 10.
        assert!(covering(&[(10, 11)]).reaches_into(10, 11));
        assert!(!covering(&[(11, 12)]).reaches_into(10, 11));
    }
}
