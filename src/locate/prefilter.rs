//! Candidate prefilter for large files: instead of normalising every line of
//! the file, search the raw bytes for a distinctive fragment of one patch line
//! and compare only the lines around the hits.
//!
//! A needle must stand verbatim in every file line that could match the
//! patch line under the tier searched (the hits are a superset of the
//! matches), or a real match is missed and a look-alike could be taken for
//! the only one:
//!
//! * shared by all tiers: the longest run of digits and `_` (6 or more)
//!   inside the longest word of the line's fuzzy key. Such a run has no case,
//!   and folding changes no digit or `_`; but folding *drops* backticks,
//!   zero-width spaces and byte-order marks, which can join two runs, and
//!   lower-cases two non-ASCII letters to ASCII ones (`UNSEEN_BY_RAW_SEARCH`). So the
//!   run serves the exact and resilient tiers when the patch line has none of
//!   those characters (a line matching it then has none there either), and
//!   the fuzzy tiers only when the file has none at all;
//! * otherwise, exact: the whole line, at a line start; resilient: the
//!   longest whitespace-separated token of the resilient key (the resilient
//!   key drops nothing); fuzzy and structural: the longest run of ASCII
//!   letters, digits and `_` of the fuzzy key, searched
//!   ASCII-case-insensitively, again only when the file has no dropped
//!   characters. A file with them is scanned line by line under the fuzzy
//!   tiers.
//!
//! Small files (`MatchOptions::prefilter_above_lines`) are scanned line by line
//! instead; there the prefilter would cost more than it saves.

use super::Tier;
use super::keys::{FileKeys, OldLine};
use crate::model::LineKind;
use crate::source::SourceText;
use aho_corasick::AhoCorasick;
use std::rc::Rc;

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
    /// The needle a line (its text and keys) is searched by under `tier`, in
    /// a file that holds characters fuzzy folding drops when
    /// `file_has_dropped`; `None` when no needle is sound or long enough.
    pub fn of(line: &OldLine, tier: Tier, file_has_dropped: bool) -> Option<Needle> {
        Needle::of_keys(
            line.text,
            &line.resilient,
            &line.fuzzy,
            tier,
            file_has_dropped,
        )
    }

    /// [`Needle::of`] for a line given by its text and keys.
    fn of_keys(
        text: &str,
        resilient: &str,
        fuzzy: &str,
        tier: Tier,
        file_has_dropped: bool,
    ) -> Option<Needle> {
        let lenient = !matches!(tier, Tier::Exact | Tier::Resilient);
        let shared_sound = if lenient {
            !file_has_dropped
        } else {
            !file_has_dropped || !has_dropped_chars(text)
        };
        if shared_sound && let Some(fragment) = word_token(fuzzy).and_then(caseless_fragment) {
            return Some(Needle::Plain(fragment.into()));
        }
        match tier {
            Tier::Exact => (!text.is_empty()).then(|| Needle::Line(text.to_string())),
            Tier::Resilient => resilient_token(resilient).map(|t| Needle::Plain(t.into())),
            Tier::Fuzzy | Tier::Structural | Tier::Similarity => {
                if file_has_dropped {
                    return None;
                }
                word_token(fuzzy).map(|t| Needle::Folded(t.into()))
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
/// The first search of a file also searches, in the same pass, the needles
/// of every line announced with [`FileKeys::announce`]; all results are kept.
pub fn lines_matching(keys: &FileKeys, line: &OldLine, tier: Tier) -> Option<Rc<[usize]>> {
    if keys.is_dense() {
        return None;
    }
    let dropped = keys.has_dropped_chars();
    let needle = Needle::of(line, tier, dropped)?;
    if let Some(hits) = keys.cached_hits(&needle) {
        return Some(hits);
    }
    // The announced needles searched the same way (case-sensitively or
    // not) join this search; the others wait for their own.
    let folded = |n: &Needle| matches!(n, Needle::Folded(_));
    let announced: Vec<Needle> = keys
        .take_announced()
        .iter()
        .filter_map(|a| a.needle(dropped))
        .chain(keys.take_later_needles())
        .collect();
    let (mut needles, later): (Vec<Needle>, Vec<Needle>) = announced
        .into_iter()
        .filter(|n| !keys.is_cached(n))
        .partition(|n| folded(n) == folded(&needle));
    keys.announce_needles(later);
    needles.push(needle.clone());
    needles.sort();
    needles.dedup();
    for (found, hits) in search(keys, &needles) {
        keys.cache_hits(found, hits);
    }
    keys.cached_hits(&needle)
}

/// A line announced for a later search under `tier` (owned: the hunks
/// may go before the file's keys do).
#[derive(Debug, Clone)]
pub struct Announced {
    tier: Tier,
    text: String,
    resilient: String,
    fuzzy: String,
}

impl Announced {
    fn needle(&self, file_has_dropped: bool) -> Option<Needle> {
        Needle::of_keys(
            &self.text,
            &self.resilient,
            &self.fuzzy,
            self.tier,
            file_has_dropped,
        )
    }
}

/// The lines of a hunk's old side that the tiers searching the whole file
/// will look for, to announce with [`FileKeys::announce`].
pub fn anchors_of(old: &[OldLine]) -> Vec<Announced> {
    let mut out = Vec::new();
    for tier in [Tier::Exact, Tier::Resilient, Tier::Fuzzy] {
        for (_, line) in anchor_lines(old, tier, 1) {
            out.push(Announced {
                tier,
                text: line.text.to_string(),
                resilient: line.resilient.clone(),
                fuzzy: line.fuzzy.clone(),
            });
        }
    }
    out
}

/// Characters the fuzzy key does not keep byte for byte in a way a raw
/// search can see: the ones folding drops (a backtick, a zero-width space,
/// a byte-order mark), which can join two runs, and the two non-ASCII
/// letters whose lower case holds an ASCII letter (KELVIN SIGN to `k`,
/// capital I with dot to `i` and a combining dot).
pub const UNSEEN_BY_RAW_SEARCH: [char; 5] = ['`', '\u{200B}', '\u{FEFF}', '\u{212A}', '\u{0130}'];

/// True when `text` holds one of [`UNSEEN_BY_RAW_SEARCH`].
pub fn has_dropped_chars(text: &str) -> bool {
    text.contains(UNSEEN_BY_RAW_SEARCH)
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
        for &hit in lines_matching(keys, line, tier)?.iter() {
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
        let line = |text: &'static str| OldLine {
            kind: LineKind::Context,
            text,
            resilient: crate::locate::normalize::resilient_key(text),
            fuzzy: crate::locate::normalize::fuzzy_key(text),
            blank: false,
        };
        let plain = Some(Needle::Plain("_1234567".into()));
        // Without dropped characters anywhere, one run serves every tier.
        for tier in [Tier::Exact, Tier::Resilient, Tier::Fuzzy] {
            assert_eq!(Needle::of(&line("let v = A_1234567;"), tier, false), plain);
        }
        // A file with backticks: the fuzzy tiers have no sound needle; the
        // exact and resilient ones still do (a matching line is the patch
        // line, up to blanks).
        assert_eq!(
            Needle::of(&line("let v = A_1234567;"), Tier::Fuzzy, true),
            None
        );
        assert_eq!(
            Needle::of(&line("let v = A_1234567;"), Tier::Exact, true),
            plain
        );
        // A patch line whose run a backtick splits: its whole text instead.
        assert_eq!(
            Needle::of(&line("let v = a_123`4567;"), Tier::Exact, true),
            Some(Needle::Line("let v = a_123`4567;".into()))
        );
        assert_eq!(caseless_fragment("max_len_2"), None);
        assert_eq!(caseless_fragment("total_count"), None);
    }
}
