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
use super::keys::{FileKeys, OldLine, new_side, old_side};
use crate::model::{Hunk, LineKind};
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
            line.resilient(),
            line.fuzzy(),
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
    if !keys.is_indexed() {
        return None;
    }
    // Whether the file holds characters a raw search cannot see is found
    // out by the first search, on the way: until then needles are chosen
    // as if it held none (the usual case), and chosen again if it does.
    let known = keys.dropped_chars();
    let dropped = known.unwrap_or(false);
    let needle = Needle::of(line, tier, dropped)?;
    if let Some(hits) = keys.cached_hits(&needle) {
        return Some(hits);
    }
    // The announced needles searched the same way (case-sensitively or
    // not) join this search; the others wait for their own.
    let folded = |n: &Needle| matches!(n, Needle::Folded(_));
    let lines = keys.take_announced();
    let announced: Vec<Needle> = lines
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
    let (found, probed) = search(keys, &needles, known.is_none());
    // The hits stand whatever the file holds: a needle's lines are facts.
    for (needle, hits) in found {
        keys.cache_hits(needle, hits);
    }
    if let Some(has_dropped) = probed {
        keys.set_dropped_chars(has_dropped);
        if has_dropped {
            // The needles left for later were chosen for a file without
            // such characters (this is the file's first search, so they all
            // come from `lines`): choose them again.
            drop(keys.take_later_needles());
            keys.announce(lines);
            return lines_matching(keys, line, tier);
        }
    }
    keys.cached_hits(&needle)
}

/// A line announced for a later search: its needle in a file without and
/// in a file with [`UNSEEN_BY_RAW_SEARCH`] characters (which the first
/// search finds out).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Announced {
    clean: Option<Needle>,
    dropped: Option<Needle>,
}

impl Announced {
    fn of(line: &OldLine, tier: Tier) -> Announced {
        Announced {
            clean: Needle::of(line, tier, false),
            dropped: Needle::of(line, tier, true),
        }
    }

    fn needle(&self, file_has_dropped: bool) -> Option<Needle> {
        if file_has_dropped {
            self.dropped.clone()
        } else {
            self.clean.clone()
        }
    }
}

/// The lines of a hunk's old side that the tiers searching the whole file
/// will look for, to announce with [`FileKeys::announce`].
#[cfg(test)]
pub fn anchors_of(old: &[OldLine]) -> Vec<Announced> {
    let mut out = Vec::new();
    for tier in [Tier::Exact, Tier::Resilient, Tier::Fuzzy] {
        for (_, line) in anchor_lines(old, tier, 1) {
            out.push(Announced::of(line, tier));
        }
    }
    out
}

/// Every line the location of `hunks` may search the file for through
/// [`starts`] or [`lines_matching`], each needle once: the anchors of each
/// hunk's old side under every tier, of its new side (already applied?),
/// of the context before and after its removed lines (stale?), and its
/// Codex `@@` anchors. Announced, they are all found in the first pass
/// over the file; a needle missing here costs a pass of its own.
pub fn announcements(hunks: &[Hunk]) -> Vec<Announced> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut add = |line: &OldLine, tier: Tier| {
        let announced = Announced::of(line, tier);
        if seen.insert(announced.clone()) {
            out.push(announced);
        }
    };
    let lenient = [Tier::Exact, Tier::Resilient, Tier::Fuzzy];
    for hunk in hunks {
        let old = old_side(hunk);
        let new = new_side(hunk);
        let first = old.iter().position(|l| l.kind == LineKind::Remove);
        let last = old.iter().rposition(|l| l.kind == LineKind::Remove);
        let mut parts: Vec<(&[OldLine], Tier)> = Vec::new();
        parts.extend(
            lenient
                .iter()
                .chain([&Tier::Structural])
                .map(|&t| (&old[..], t)),
        );
        parts.extend([(&new[..], Tier::Exact), (&new[..], Tier::Resilient)]);
        if let (Some(first), Some(last)) = (first, last) {
            parts.push((&old[..first], Tier::Fuzzy));
            parts.push((&old[last + 1..], Tier::Fuzzy));
        }
        for (part, tier) in parts {
            for (_, line) in start_anchors(part, tier) {
                add(line, tier);
            }
        }
        for anchor in &hunk.anchors {
            let probe = OldLine::new(LineKind::Context, anchor);
            for tier in lenient {
                add(&probe, tier);
            }
        }
    }
    out
}

/// Characters the fuzzy key does not keep byte for byte in a way a raw
/// search can see: the ones folding drops (a backtick, a zero-width space,
/// a byte-order mark, and GREEK VARIA, which canonical composition turns
/// into a backtick), which can join two runs, and the two non-ASCII
/// letters whose lower case holds an ASCII letter (KELVIN SIGN to `k`,
/// capital I with dot to `i` and a combining dot). Canonical composition
/// makes no other ASCII letter, digit or `_` out of non-ASCII text, so a
/// run of them in a fuzzy key stands in the raw bytes.
pub const UNSEEN_BY_RAW_SEARCH: [char; 6] = [
    '`', '\u{200B}', '\u{FEFF}', '\u{212A}', '\u{0130}', '\u{1FEF}',
];

/// True when `text` holds one of [`UNSEEN_BY_RAW_SEARCH`].
pub fn has_dropped_chars(text: &str) -> bool {
    text.contains(UNSEEN_BY_RAW_SEARCH)
}

/// True when one of [`UNSEEN_BY_RAW_SEARCH`] starts in `bytes[range]`
/// (it may end after the range). The six characters start with five
/// distinct bytes: one pass for `\x60`, `\xE2` and `\xEF`, one for
/// `\xC4` and `\xE1`; each hit is checked. Plain ASCII has none of these
/// bytes.
fn unseen_by_raw_search(bytes: &[u8], range: std::ops::Range<usize>) -> bool {
    let from = range.start;
    let at = |i: usize| {
        UNSEEN_BY_RAW_SEARCH.iter().any(|c| {
            let mut buf = [0; 4];
            bytes[from + i..].starts_with(c.encode_utf8(&mut buf).as_bytes())
        })
    };
    let part = &bytes[range];
    memchr::memchr3_iter(b'`', 0xE2, 0xEF, part).any(at)
        || memchr::memchr2_iter(0xC4, 0xE1, part).any(at)
}

/// How a group of needles is searched.
enum Searcher {
    /// One needle, case-sensitively.
    Exact(Box<memchr::memmem::Finder<'static>>),
    /// Several needles, or a case-folded one, in one automaton (overlapping
    /// matches, so that no needle hides another).
    Automaton(AhoCorasick),
    /// A case-folded needle no automaton could be built for: every line is
    /// a candidate.
    Everywhere,
}

/// Bytes per piece of a search: every needle is searched in one piece
/// while it is in the cache, and the pieces on all cores. One block of the
/// sparse line index, so that a thread maps its hits in one cached block.
const SEARCH_PIECE: usize = crate::source::SPARSE_BLOCK;

/// Searches the source for every needle in one pass over its bytes: the
/// bytes are cut into pieces searched on all cores, and each piece is
/// searched for every needle while it is in the cache. A few case-sensitive
/// needles are searched one `memmem` each, more in one automaton, and the
/// case-folded ones in an automaton of their own. Returns each
/// needle's lines and, when `probe` asks, whether the file holds one of
/// [`UNSEEN_BY_RAW_SEARCH`] (looked for in each piece while it is in the
/// cache; a byte-order mark at the very start does not count).
fn search(
    keys: &FileKeys,
    needles: &[Needle],
    probe: bool,
) -> (Vec<(Needle, Vec<usize>)>, Option<bool>) {
    use rayon::prelude::*;
    let source = keys.source();
    let bytes = source.bytes();
    // (searcher, the needle of each of its patterns, its longest pattern)
    let mut searchers: Vec<(Searcher, Vec<usize>, usize)> = Vec::new();
    for folded in [false, true] {
        let ids: Vec<usize> = (0..needles.len())
            .filter(|&i| matches!(needles[i], Needle::Folded(_)) == folded)
            .collect();
        if ids.is_empty() {
            continue;
        }
        if !folded && ids.len() <= SEPARATE_SEARCHES {
            // A few needles: one `memmem` each beats one automaton, whose
            // prefilter can only look for the needles' first bytes (often
            // common ones).
            for &i in &ids {
                let text = needles[i].text().as_bytes();
                let finder = memchr::memmem::Finder::new(text).into_owned();
                searchers.push((Searcher::Exact(Box::new(finder)), vec![i], text.len()));
            }
            continue;
        }
        // Leading blanks would make the automaton's prefilter look for
        // spaces; a line's hits are checked against the whole line anyway.
        let patterns: Vec<&str> = ids
            .iter()
            .map(|&i| match &needles[i] {
                Needle::Line(text) if !text.trim_start().is_empty() => text.trim_start(),
                other => other.text(),
            })
            .collect();
        let longest = patterns.iter().map(|p| p.len()).max().unwrap_or(0);
        match AhoCorasick::builder()
            .ascii_case_insensitive(folded)
            .build(&patterns)
        {
            Ok(finder) => searchers.push((Searcher::Automaton(finder), ids, longest)),
            // Patterns the automaton cannot take: searched one by one, or
            // (case-folded) not narrowed at all.
            Err(_) => {
                for &i in &ids {
                    let text = needles[i].text().as_bytes();
                    let searcher = if folded {
                        Searcher::Everywhere
                    } else {
                        Searcher::Exact(Box::new(memchr::memmem::Finder::new(text).into_owned()))
                    };
                    searchers.push((searcher, vec![i], text.len()));
                }
            }
        }
    }
    let pieces = bytes.len().div_ceil(SEARCH_PIECE);
    let body_start = if source.has_bom() { 3 } else { 0 };
    let found: Vec<(Vec<Vec<usize>>, bool)> = (0..pieces)
        .into_par_iter()
        .map(|piece| {
            let from = piece * SEARCH_PIECE;
            let to = (from + SEARCH_PIECE).min(bytes.len());
            let mut lines = vec![Vec::new(); needles.len()];
            let mut add = |i: usize, line: usize| add_line(&mut lines[i], line);
            let line_at = |offset: usize| source.line_of_offset(offset);
            for (searcher, ids, longest) in &searchers {
                // A match starting in this piece may end in the next one.
                let hay = &bytes[from..(to + longest.saturating_sub(1)).min(bytes.len())];
                let starts_here = |at: &usize| *at < to - from;
                match searcher {
                    Searcher::Exact(finder) => finder
                        .find_iter(hay)
                        .take_while(starts_here)
                        .for_each(|at| add(ids[0], line_at(from + at))),
                    Searcher::Automaton(finder) => {
                        for m in finder.find_overlapping_iter(hay) {
                            if starts_here(&m.start()) {
                                add(ids[m.pattern().as_usize()], line_at(from + m.start()));
                            }
                        }
                    }
                    // The lines of the piece's bytes.
                    Searcher::Everywhere => {
                        (line_at(from)..=line_at(to - 1)).for_each(|line| add(ids[0], line))
                    }
                }
            }
            let body = from.max(body_start)..to;
            let unseen = probe && !body.is_empty() && unseen_by_raw_search(bytes, body);
            (lines, unseen)
        })
        .collect();
    let probed = probe.then(|| found.iter().any(|(_, unseen)| *unseen));
    let mut lines: Vec<Vec<usize>> = vec![Vec::new(); needles.len()];
    for (piece, _) in found {
        for (all, hits) in lines.iter_mut().zip(piece) {
            for line in hits {
                add_line(all, line);
            }
        }
    }
    let found = needles
        .iter()
        .cloned()
        .zip(lines)
        .map(|(needle, mut hits)| {
            if let Needle::Line(text) = &needle {
                hits.retain(|&l| source.line(l) == text.as_bytes());
            }
            (needle, hits)
        })
        .collect();
    (found, probed)
}

/// Appends `line` to sorted `hits` unless it is already the last.
fn add_line(hits: &mut Vec<usize>, line: usize) {
    if hits.last() != Some(&line) {
        hits.push(line);
    }
}

/// Up to this many case-sensitive needles are searched by one `memmem`
/// each in every piece rather than all in one automaton (case-folded
/// needles always go into an automaton).
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
                Tier::Resilient => resilient_token(l.resilient())?.len(),
                _ => word_token(l.fuzzy())?.len(),
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
    if !keys.is_indexed() {
        return None;
    }
    let anchors = start_anchors(old, tier);
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

/// The lines [`starts`] searches for: the most distinctive removed line,
/// or else the most distinctive context lines (three of the first half
/// under the structural tier, which may drop two and leave the second half
/// past the end of the file).
fn start_anchors<'a, 'h>(old: &'a [OldLine<'h>], tier: Tier) -> Vec<(usize, &'a OldLine<'h>)> {
    let (spare, sure) = if tier == Tier::Structural {
        // Context past the end of the file may be left out, up to as many
        // lines as matched: only the first half of the hunk is sure to be
        // in the file, and up to two of its context lines may be dropped.
        (3, &old[..old.len() - old.len() / 2])
    } else {
        (1, old)
    };
    let anchors = anchor_lines(old, tier, 1);
    if anchors.iter().all(|(_, l)| l.kind == LineKind::Remove) {
        return anchors;
    }
    anchor_lines(sure, tier, spare)
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
        let line = |text: &'static str| OldLine::new(LineKind::Context, text);
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

    /// Needles straddling the boundaries of the search's pieces are found
    /// once, like every other hit, whether searched by `memmem` or in an
    /// automaton, case-sensitively or not.
    #[test]
    fn pieces_miss_no_hit_on_their_boundaries() {
        let words = [
            "alpha_needle",
            "Beta_Needle",
            "gamma_needle",
            "delta_needle",
            "eps_needle",
        ];
        let mut text = Vec::new();
        let mut planted = 0;
        while text.len() < 3 * SEARCH_PIECE + 500 {
            let piece_end = (text.len() / SEARCH_PIECE + 1) * SEARCH_PIECE;
            // Start a needle a few bytes before each boundary, and sprinkle the others.
            let word = words[planted % words.len()];
            if text.len() + 40 > piece_end && text.len() < piece_end {
                text.resize(piece_end - 5, b' ');
                text.extend_from_slice(word.as_bytes());
                planted += 1;
            } else if text.len() % 7 == 0 {
                text.extend_from_slice(format!("x {word} y").as_bytes());
                planted += 1;
            } else {
                text.extend_from_slice(b"filler line of text");
            }
            text.push(b'\n');
        }
        // Dense and sparse line indexes (the sparse one indexes its blocks
        // on demand, from both cores at once, and keeps the last few).
        let index = crate::source::LineIndex::sparse(&text);
        for source in [
            crate::source::SourceText::new(&text),
            crate::source::SourceText::with_index(&text, &index),
        ] {
            same_hits_as_a_line_scan(&source, &words);
        }
    }

    #[test]
    fn needles_left_for_later_are_chosen_again_in_a_file_with_backticks() {
        let text = "let `quoted` = 1;\nfn handle_request(req) {\n    respond(req)\n}\n";
        let source = crate::source::SourceText::new(text.as_bytes());
        let keys = FileKeys::new(&source, 0);
        let old = [
            OldLine::new(LineKind::Context, "fn handle_request(req) {"),
            OldLine::new(LineKind::Remove, "    respond(req)"),
        ];
        keys.announce(anchors_of(&old));
        // The first search (exact) finds the backtick: the case-folded
        // needles announced for the fuzzy tiers would find too little there.
        let hits = lines_matching(&keys, &old[1], Tier::Exact).unwrap();
        assert_eq!(&*hits, &[2]);
        assert_eq!(keys.dropped_chars(), Some(true));
        let later = keys.take_later_needles();
        assert!(
            !later.iter().any(|n| matches!(n, Needle::Folded(_))),
            "{later:?}"
        );
    }

    fn same_hits_as_a_line_scan(source: &crate::source::SourceText, words: &[&str]) {
        let keys = FileKeys::new(source, 0);
        let contains = |line: usize, word: &str, folded: bool| {
            let line = String::from_utf8_lossy(source.line(line)).to_string();
            if folded {
                line.to_ascii_lowercase()
                    .contains(&word.to_ascii_lowercase())
            } else {
                line.contains(word)
            }
        };
        let expected = |needle: &Needle| -> Vec<usize> {
            (0..source.len())
                .filter(|&l| match needle {
                    Needle::Line(t) => source.line(l) == t.as_bytes(),
                    Needle::Plain(t) => contains(l, t, false),
                    Needle::Folded(t) => contains(l, t, true),
                })
                .collect()
        };
        let plain = |w: &str| Needle::Plain(w.to_string());
        let sets: Vec<Vec<Needle>> = vec![
            // A few: one `memmem` each.
            words[..3].iter().map(|w| plain(w)).collect(),
            // More: one automaton.
            words
                .iter()
                .map(|w| plain(w))
                .chain([plain("line of")])
                .collect(),
            // Case-folded, with a whole-line needle beside.
            words
                .iter()
                .map(|w| Needle::Folded(w.to_ascii_uppercase()))
                .chain([Needle::Line("filler line of text".into())])
                .collect(),
        ];
        for needles in sets {
            for (needle, hits) in search(&keys, &needles, false).0 {
                let want = expected(&needle);
                assert!(want.len() > 3, "{needle:?} is planted across boundaries");
                if hits != want {
                    let missed: Vec<_> = want.iter().filter(|l| !hits.contains(l)).collect();
                    let extra: Vec<_> = hits.iter().filter(|l| !want.contains(l)).collect();
                    panic!("{needle:?}: missed lines {missed:?}, extra {extra:?}");
                }
            }
        }
    }
}
