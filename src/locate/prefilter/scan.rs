//! One pass over a file's bytes for every needle, on all cores; lines
//! holding characters a raw search cannot see are searched a second time
//! as fuzzy folding reads them.

use super::super::keys::FileKeys;
use super::super::needles::Needle;
use aho_corasick::AhoCorasick;
use rayon::prelude::*;

/// Characters the fuzzy key does not keep byte for byte in a way a raw
/// search can see: the ones folding drops (a backtick, a zero-width space,
/// a byte-order mark, and GREEK VARIA, which canonical composition turns
/// into a backtick), which can join two runs, and the two non-ASCII
/// letters whose lower case holds an ASCII letter (KELVIN SIGN to `k`,
/// capital I with dot to `i` and a combining dot). Canonical composition
/// makes no other ASCII letter, digit or `_` out of non-ASCII text, so a
/// run of them in a fuzzy key stands in the raw bytes once these are read
/// as [`folded_reading`] reads them.
pub(super) const UNSEEN_BY_RAW_SEARCH: [char; 6] = [
    '`', '\u{200B}', '\u{FEFF}', '\u{212A}', '\u{0130}', '\u{1FEF}',
];

/// What each of [`UNSEEN_BY_RAW_SEARCH`] becomes in [`folded_reading`]:
/// nothing, or the ASCII letter its lower case holds.
const READ_AS: [Option<u8>; 6] = [None, None, None, Some(b'k'), Some(b'i'), None];

/// The character of [`UNSEEN_BY_RAW_SEARCH`] starting at `bytes[i]`, by
/// index, with its length in bytes.
fn unseen_at(bytes: &[u8], i: usize) -> Option<(usize, usize)> {
    UNSEEN_BY_RAW_SEARCH.iter().enumerate().find_map(|(k, c)| {
        let mut buf = [0; 4];
        let encoded = c.encode_utf8(&mut buf).as_bytes();
        bytes[i..]
            .starts_with(encoded)
            .then_some((k, encoded.len()))
    })
}

/// Offsets in `bytes[range]` (from the range's start) where one of
/// [`UNSEEN_BY_RAW_SEARCH`] starts (it may end after the range). The six
/// characters start with five distinct bytes: one pass for `\x60`, `\xE2`
/// and `\xEF`, one for `\xC4` and `\xE1`; each hit is checked. Plain ASCII
/// has none of these bytes.
fn unseen_in(bytes: &[u8], range: std::ops::Range<usize>) -> Vec<usize> {
    let from = range.start;
    let part = &bytes[range];
    let real = |i: &usize| unseen_at(bytes, from + i).is_some();
    let mut out: Vec<usize> = memchr::memchr3_iter(b'`', 0xE2, 0xEF, part)
        .filter(real)
        .chain(memchr::memchr2_iter(0xC4, 0xE1, part).filter(real))
        .collect();
    out.sort_unstable();
    out
}

/// A line's bytes as fuzzy folding reads them, as far as a needle can
/// tell: the characters it drops taken out, KELVIN SIGN and capital I with
/// dot read as `k` and `i`. A run of ASCII letters, digits and `_` of the
/// line's fuzzy key stands in it up to ASCII case.
pub(super) fn folded_reading(line: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(line.len());
    let mut i = 0;
    while i < line.len() {
        match unseen_at(line, i) {
            Some((k, len)) => {
                out.extend(READ_AS[k]);
                i += len;
            }
            None => {
                out.push(line[i]);
                i += 1;
            }
        }
    }
    out
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
pub(super) const SEARCH_PIECE: usize = crate::source::SPARSE_BLOCK;

/// Up to this many case-sensitive needles are searched by one `memmem`
/// each in every piece rather than all in one automaton (case-folded
/// needles always go into an automaton).
const SEPARATE_SEARCHES: usize = 4;

/// (searcher, the needle of each of its patterns, its longest pattern)
type Searchers = Vec<(Searcher, Vec<usize>, usize)>;

fn searchers(needles: &[Needle]) -> Searchers {
    let mut searchers: Searchers = Vec::new();
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
    searchers
}

/// Searches the source for every needle in one pass over its bytes: the
/// bytes are cut into pieces searched on all cores, and each piece is
/// searched for every needle while it is in the cache. A few case-sensitive
/// needles are searched one `memmem` each, more in one automaton, and the
/// case-folded ones in an automaton of their own. The lines of a piece
/// holding one of [`UNSEEN_BY_RAW_SEARCH`] (a byte-order mark at the very
/// start does not count) are searched again in their [`folded_reading`];
/// which pieces hold none is found out by the file's first search and
/// kept, so that later searches skip them. Returns each needle's lines.
pub(super) fn search(keys: &FileKeys, needles: &[Needle]) -> Vec<(Needle, Vec<usize>)> {
    let source = keys.source();
    let bytes = source.bytes();
    let searchers = searchers(needles);
    let pieces = bytes.len().div_ceil(SEARCH_PIECE);
    let body_start = if source.has_bom() { 3 } else { 0 };
    let known = keys.searches().unseen_pieces();
    let found: Vec<(Vec<Vec<usize>>, bool)> = (0..pieces)
        .into_par_iter()
        .map(|piece| {
            let from = piece * SEARCH_PIECE;
            let to = (from + SEARCH_PIECE).min(bytes.len());
            let mut lines = vec![Vec::new(); needles.len()];
            let line_at = |offset: usize| source.line_of_offset(offset);
            for (searcher, ids, longest) in &searchers {
                // A match starting in this piece may end in the next one.
                let hay = &bytes[from..(to + longest.saturating_sub(1)).min(bytes.len())];
                let starts_here = |at: &usize| *at < to - from;
                match searcher {
                    Searcher::Exact(finder) => finder
                        .find_iter(hay)
                        .take_while(starts_here)
                        .for_each(|at| add_line(&mut lines[ids[0]], line_at(from + at))),
                    Searcher::Automaton(finder) => {
                        for m in finder.find_overlapping_iter(hay) {
                            if starts_here(&m.start()) {
                                let line = line_at(from + m.start());
                                add_line(&mut lines[ids[m.pattern().as_usize()]], line);
                            }
                        }
                    }
                    // The lines of the piece's bytes.
                    Searcher::Everywhere => (line_at(from)..=line_at(to - 1))
                        .for_each(|line| add_line(&mut lines[ids[0]], line)),
                }
            }
            let body = from.max(body_start)..to;
            let look = known.is_none_or(|k| k[piece]) && !body.is_empty();
            let unseen = if look {
                unseen_in(bytes, body.clone())
            } else {
                Vec::new()
            };
            let mut unseen_lines: Vec<usize> =
                unseen.iter().map(|&i| line_at(body.start + i)).collect();
            unseen_lines.dedup();
            for &line in &unseen_lines {
                let reading = folded_reading(source.line(line));
                search_reading(&searchers, &reading, line, &mut lines);
            }
            crate::source::release(&bytes[from..to]);
            (lines, !unseen.is_empty())
        })
        .collect();
    if known.is_none() {
        keys.searches()
            .set_unseen_pieces(found.iter().map(|(_, unseen)| *unseen).collect());
    }
    let mut lines: Vec<Vec<usize>> = vec![Vec::new(); needles.len()];
    for (piece, _) in found {
        for (all, hits) in lines.iter_mut().zip(piece) {
            all.extend(hits);
        }
    }
    needles
        .iter()
        .cloned()
        .zip(lines)
        .map(|(needle, mut hits)| {
            // A second reading adds lines out of order, and a line may
            // span two pieces.
            hits.sort_unstable();
            hits.dedup();
            if let Needle::Line(text) = &needle {
                hits.retain(|&l| source.line(l) == text.as_bytes());
            }
            (needle, hits)
        })
        .collect()
}

/// Searches one line's [`folded_reading`] for every needle.
fn search_reading(searchers: &Searchers, reading: &[u8], line: usize, lines: &mut [Vec<usize>]) {
    for (searcher, ids, _) in searchers {
        match searcher {
            Searcher::Exact(finder) => {
                if finder.find(reading).is_some() {
                    lines[ids[0]].push(line);
                }
            }
            Searcher::Automaton(finder) => {
                for m in finder.find_overlapping_iter(reading) {
                    lines[ids[m.pattern().as_usize()]].push(line);
                }
            }
            Searcher::Everywhere => {}
        }
    }
}

/// Appends `line` to sorted `hits` unless it is already the last.
fn add_line(hits: &mut Vec<usize>, line: usize) {
    if hits.last() != Some(&line) {
        hits.push(line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folded_reading_joins_what_folding_joins() {
        let line = "a_12`34 \u{200B}x\u{212A}y \u{0130}d \u{FEFF}q\u{1FEF}r";
        assert_eq!(
            String::from_utf8(folded_reading(line.as_bytes())).unwrap(),
            "a_1234 xky id qr"
        );
        let key = crate::locate::normalize::fuzzy_key(line);
        for word in key.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            let reading = String::from_utf8(folded_reading(line.as_bytes())).unwrap();
            assert!(
                reading.to_ascii_lowercase().contains(word),
                "{word:?} in {key:?}"
            );
        }
    }
}
