//! Candidate prefilter for large files: instead of normalising every line of
//! the file, search the raw bytes for a distinctive fragment of one patch line
//! and compare only the lines around the hits.
//!
//! Each tier has a key that every line matching under that tier must contain:
//!
//! * exact: the whole line, at a line start;
//! * resilient: the longest whitespace-separated token of the line's resilient
//!   key (every token of a key, and every fragment of one, stands verbatim in
//!   the raw line);
//! * fuzzy and structural: the longest run of ASCII letters, digits and `_`
//!   of the fuzzy key, searched ASCII-case-insensitively (folding touches
//!   only quotes, dashes, spaces and backticks, never such runs).
//!
//! Small files (see [`super::keys::DENSE_LIMIT`]) are scanned line by line
//! instead; there the prefilter would cost more than it saves.

use super::Tier;
use super::keys::{FileKeys, OldLine};
use crate::model::LineKind;
use crate::source::SourceText;
use aho_corasick::AhoCorasick;

/// Tokens shorter than this are too common to narrow the search.
const MIN_TOKEN: usize = 3;

/// What a tier searches the raw bytes for.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Needle {
    /// A whole line (the exact tier): hits must be the entire line.
    Line(String),
    /// A fragment that stands verbatim in every matching line.
    Plain(String),
    /// A fragment that stands in every matching line up to ASCII case.
    Folded(String),
}

impl Needle {
    /// The needle a line is searched by under `tier`; `None` when the line
    /// has no usable key.
    pub fn of(line: &OldLine, tier: Tier) -> Option<Needle> {
        // A long caseless run stands verbatim in every line that matches
        // under any tier, so all tiers share its one search.
        if let Some(fragment) = word_token(&line.fuzzy).and_then(caseless_fragment) {
            return Some(Needle::Plain(fragment.into()));
        }
        match tier {
            Tier::Exact => (!line.text.is_empty()).then(|| Needle::Line(line.text.to_string())),
            Tier::Resilient => resilient_token(&line.resilient).map(|t| Needle::Plain(t.into())),
            Tier::Fuzzy | Tier::Structural | Tier::Similarity => {
                word_token(&line.fuzzy).map(|t| Needle::Folded(t.into()))
            }
        }
    }

    fn text(&self) -> &str {
        match self {
            Needle::Line(t) | Needle::Plain(t) | Needle::Folded(t) => t,
        }
    }
}

/// File lines (0-based, sorted, distinct) where `line` may match under
/// `tier`; `None` when the file is small or the line has no usable key (the
/// caller then scans every line).
///
/// The first search of a file also searches, in the same pass, every needle
/// announced with [`FileKeys::expect_needles`]; all results are kept.
pub fn lines_matching(keys: &FileKeys, line: &OldLine, tier: Tier) -> Option<Vec<usize>> {
    if keys.is_dense() {
        return None;
    }
    let needle = Needle::of(line, tier)?;
    if let Some(hits) = keys.cached_hits(&needle) {
        return Some(hits);
    }
    // The announced needles searched the same way (case-sensitively or
    // not) join this search; the others wait for their own.
    let folded = |n: &Needle| matches!(n, Needle::Folded(_));
    let (mut needles, later): (Vec<Needle>, Vec<Needle>) = keys
        .take_expected_needles()
        .into_iter()
        .filter(|n| keys.cached_hits(n).is_none())
        .partition(|n| folded(n) == folded(&needle));
    keys.expect_needles(later);
    needles.push(needle.clone());
    needles.sort();
    needles.dedup();
    for (found, hits) in search(keys, &needles) {
        keys.cache_hits(found, hits);
    }
    keys.cached_hits(&needle)
}

/// The needles of a hunk's old side for the tiers that search the whole
/// file, to announce with [`FileKeys::expect_needles`].
pub fn needles_of(old: &[OldLine]) -> Vec<Needle> {
    let mut out = Vec::new();
    for tier in [Tier::Exact, Tier::Resilient, Tier::Fuzzy] {
        for (_, line) in anchor_lines(old, tier, 1) {
            out.extend(Needle::of(line, tier));
        }
    }
    out
}

/// Searches the source in one pass for every case-sensitive needle and in
/// one more for every case-folded one; returns each needle's lines.
fn search(keys: &FileKeys, needles: &[Needle]) -> Vec<(Needle, Vec<usize>)> {
    let source = keys.source();
    let bytes = source.bytes();
    let mut lines: Vec<Vec<usize>> = vec![Vec::new(); needles.len()];
    for folded in [false, true] {
        let ids: Vec<usize> = (0..needles.len())
            .filter(|&i| matches!(needles[i], Needle::Folded(_)) == folded)
            .collect();
        if ids.len() <= SEPARATE_SEARCHES {
            // A few needles: one `memmem` pass each (on all cores) beats one
            // automaton pass, whose prefilter can only look for the needles'
            // first bytes (often common ones).
            use rayon::prelude::*;
            let found: Vec<Vec<usize>> = ids
                .par_iter()
                .map(|&i| search_one(source, &needles[i]))
                .collect();
            for (&i, hits) in ids.iter().zip(found) {
                lines[i] = hits;
            }
            continue;
        }
        // Leading blanks would make the automaton's prefilter look for
        // spaces; a line's hits are checked against the whole line anyway.
        let patterns = ids.iter().map(|&i| match &needles[i] {
            Needle::Line(text) if !text.trim_start().is_empty() => text.trim_start(),
            other => other.text(),
        });
        let Ok(finder) = AhoCorasick::builder()
            .ascii_case_insensitive(folded)
            .build(patterns)
        else {
            // Patterns the automaton cannot take: searched one by one.
            for &i in &ids {
                lines[i] = search_one(source, &needles[i]);
            }
            continue;
        };
        for m in finder.find_overlapping_iter(bytes) {
            let i = ids[m.pattern().as_usize()];
            let line = source.line_of_offset(m.start());
            if lines[i].last() != Some(&line) {
                lines[i].push(line);
            }
        }
    }
    needles
        .iter()
        .cloned()
        .zip(lines)
        .map(|(needle, mut hits)| {
            if let Needle::Line(text) = &needle {
                hits.retain(|&l| source.line(l) == text.as_bytes());
            }
            (needle, hits)
        })
        .collect()
}

/// One needle's lines, searched alone.
fn search_one(source: &SourceText, needle: &Needle) -> Vec<usize> {
    let bytes = source.bytes();
    let mut hits: Vec<usize> = match needle {
        Needle::Line(text) | Needle::Plain(text) => {
            memchr::memmem::find_iter(bytes, text.as_bytes())
                .map(|off| source.line_of_offset(off))
                .collect()
        }
        Needle::Folded(text) => match AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build([text])
        {
            Ok(finder) => finder
                .find_iter(bytes)
                .map(|m| source.line_of_offset(m.start()))
                .collect(),
            Err(_) => (0..source.len()).collect(),
        },
    };
    hits.dedup();
    hits
}

/// Up to this many needles are searched one pass each rather than all in
/// one automaton pass.
const SEPARATE_SEARCHES: usize = 4;

/// Caseless fragments shorter than this are searched case-insensitively
/// with the whole token instead (too common to narrow the search alone).
const MIN_CASELESS: usize = 6;

/// The longest run of a word token without ASCII letters (digits and `_`),
/// when it is long enough to search alone: it stands verbatim in any line
/// whose fuzzy key holds the token, whatever the line's case.
fn caseless_fragment(token: &str) -> Option<&str> {
    token
        .split(|c: char| c.is_ascii_alphabetic())
        .max_by_key(|t| t.len())
        .filter(|t| t.len() >= MIN_CASELESS)
}

/// Old-side lines to search for, with their indexes: the most distinctive
/// removed line (it can never be left out of a match), or else the `spare`
/// most distinctive context lines, of which at least one survives when up to
/// `spare - 1` context lines may be dropped. Empty when no line has a key.
pub fn anchor_lines<'a, 'h>(
    old: &'a [OldLine<'h>],
    tier: Tier,
    spare: usize,
) -> Vec<(usize, &'a OldLine<'h>)> {
    let mut scored: Vec<(usize, usize, &OldLine)> = old
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            let len = match tier {
                Tier::Exact => l.text.trim().len(),
                Tier::Resilient => resilient_token(&l.resilient)?.len(),
                _ => word_token(&l.fuzzy)?.len(),
            };
            (len >= MIN_TOKEN).then_some((len, i, l))
        })
        .collect();
    scored.sort_by_key(|(len, i, _)| (usize::MAX - len, *i));
    if let Some(&(_, i, l)) = scored.iter().find(|(_, _, l)| l.kind == LineKind::Remove) {
        return vec![(i, l)];
    }
    scored
        .into_iter()
        .take(spare)
        .map(|(_, i, l)| (i, l))
        .collect()
}

/// Start lines of the old side for a tier: every hit of the anchor line,
/// moved back by the anchor's place in the hunk and widened by `before` and
/// `after` lines of slack. `None`: scan everything.
pub fn starts(
    keys: &FileKeys,
    old: &[OldLine],
    tier: Tier,
    before: usize,
    after: usize,
) -> Option<Vec<usize>> {
    if keys.is_dense() {
        return None;
    }
    let spare = if tier == Tier::Structural { 3 } else { 1 };
    let anchors = anchor_lines(old, tier, spare);
    if anchors.is_empty() {
        return None;
    }
    let mut out: Vec<usize> = Vec::new();
    for (index, line) in anchors {
        for hit in lines_matching(keys, line, tier)? {
            let base = hit.saturating_sub(index);
            let from = base.saturating_sub(before);
            let to = (base + after).min(keys.len().saturating_sub(1));
            out.extend(from..=to);
        }
    }
    out.sort_unstable();
    out.dedup();
    Some(out)
}

fn resilient_token(key: &str) -> Option<&str> {
    let key = key
        .strip_suffix("...")
        .or_else(|| key.strip_suffix('\u{2026}'))
        .unwrap_or(key);
    key.split(' ')
        .max_by_key(|t| t.len())
        .filter(|t| t.len() >= MIN_TOKEN)
}

fn word_token(key: &str) -> Option<&str> {
    key.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .max_by_key(|t| t.len())
        .filter(|t| t.len() >= MIN_TOKEN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens() {
        assert_eq!(
            resilient_token("let total = sum(items);"),
            Some("sum(items);")
        );
        assert_eq!(resilient_token("a b"), None);
        assert_eq!(word_token("let total_count = 1"), Some("total_count"));
        assert_eq!(word_token("} ) ;"), None);
        assert_eq!(caseless_fragment("v0016798863"), Some("0016798863"));
        assert_eq!(caseless_fragment("max_len_2"), None);
        assert_eq!(caseless_fragment("total_count"), None);
    }
}
