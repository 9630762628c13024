//! Candidate prefilter for large files: instead of normalising every line of
//! the file, search the raw bytes for a distinctive fragment of one patch line
//! and compare only the lines around the hits.
//!
//! A needle must stand in every file line that could match the patch line
//! under the tier searched (the hits are a superset of the matches), or a
//! real match is missed and a look-alike could be taken for the only one.
//! "Stands" means: in the line's raw bytes, or in its bytes with the
//! characters fuzzy folding drops or turns into ASCII letters
//! (`scan::UNSEEN_BY_RAW_SEARCH`) taken out or replaced (`scan.rs` searches the
//! few lines holding them a second time that way). Every run of ASCII
//! letters, digits and `_` of a line's fuzzy key stands, up to ASCII case,
//! in the line's bytes read that way; every whitespace token of its
//! resilient key stands verbatim. So these needles are sound:
//!
//! * every tier: a run of digits and `_` (6 or more) inside a word of the
//!   line's fuzzy key (it has no case);
//! * exact: the whole line, at a line start; resilient: a
//!   whitespace-separated token of the resilient key; fuzzy and structural:
//!   a word (run of ASCII letters, digits and `_`) of the fuzzy key,
//!   searched ASCII-case-insensitively.
//!
//! Of these, a line is searched by the run inside its longest word, else
//! its tier's longest token, unless that token is shared by many lines of
//! the patch (`rarity.rs`): then by its least shared one.
//!
//! Small files (`MatchOptions::prefilter_above_lines`) are scanned line by line
//! instead; there the prefilter would cost more than it saves.

use super::Tier;
use super::keys::{Chosen, FileKeys, OldLine, PatchLines};
use super::memo;
use super::needles::{Announcements, MIN_TOKEN, Needle, TokenCounts, TokenKind};
use crate::model::{Hunk, LineKind};
use rarity::Candidate;
use std::sync::Arc;

mod rarity;
mod scan;

impl Needle {
    /// The needle a line is searched by under `tier`, given how many lines
    /// of the patch share each token; `None` when no needle is long enough.
    pub(super) fn of(line: &OldLine, tier: Tier, counts: &TokenCounts) -> Option<Needle> {
        chosen(line, tier, counts, |c| c.needle.clone())
    }

    fn from(c: &Candidate) -> Needle {
        match c.kind {
            TokenKind::Line => Needle::Line(c.text.into()),
            _ if c.folded => Needle::Folded(c.text.into()),
            _ => Needle::Plain(c.text.into()),
        }
    }
}

/// The usual needle of a line: the caseless run inside its longest word,
/// else its tier's longest token.
fn usual<'l>(line: &'l OldLine, tier: Tier) -> Option<Candidate<'l>> {
    if let Some(word) = line.longest_word()
        && let Some(fragment) = caseless_fragment(word)
    {
        return Some(Candidate {
            kind: TokenKind::Word,
            token: word,
            text: fragment,
            folded: false,
        });
    }
    let (kind, token, folded) = match tier {
        Tier::Exact => (
            TokenKind::Line,
            Some(line.text).filter(|t| !t.is_empty()),
            false,
        ),
        Tier::Resilient => (TokenKind::Resilient, line.longest_resilient_token(), false),
        Tier::Fuzzy | Tier::Structural | Tier::Similarity => {
            (TokenKind::Word, line.longest_word(), true)
        }
    };
    token.map(|token| Candidate {
        kind,
        token,
        text: token,
        folded,
    })
}

/// The needle of a line under `tier`: the usual one, unless its token is
/// shared by more lines of the patch than [`SHARED_BY`](super::needles::SHARED_BY); then the
/// least shared of the line's sound needles (the usual one on a tie).
fn choose<'l>(line: &'l OldLine, tier: Tier, counts: &TokenCounts) -> Option<Candidate<'l>> {
    let usual = usual(line, tier)?;
    if counts.sharing(usual.kind, usual.token) == 0 {
        return Some(usual);
    }
    let count = |c: &Candidate| counts.count(c.kind, c.token);
    let best = rarity::candidates(line, tier)
        .into_iter()
        .min_by_key(|c| (count(c), usize::MAX - c.text.len()))?;
    Some(if count(&best) < count(&usual) {
        best
    } else {
        usual
    })
}

/// How shared the needle `line` is searched by under `tier` is (0: not
/// shared; see [`TokenCounts::sharing`]).
fn sharing(line: &OldLine, tier: Tier, counts: &TokenCounts) -> u32 {
    chosen(line, tier, counts, |c| c.sharing)
}

/// What `read` makes of the needle `counts` choose for `line` under `tier`,
/// chosen once per line, tier and counts ([`OldLine::chosen`]).
fn chosen<R>(
    line: &OldLine,
    tier: Tier,
    counts: &TokenCounts,
    read: impl FnOnce(&Chosen) -> R,
) -> R {
    let make = || {
        let c = choose(line, tier, counts);
        Chosen {
            needle: c.as_ref().map(Needle::from),
            sharing: c.map_or(0, |c| counts.sharing(c.kind, c.token)),
        }
    };
    line.chosen((counts.id(), tier), make, read)
}

/// File lines (0-based, sorted, distinct) where `line` may match under
/// `tier`; `None` when the file is small or the line has no usable key (the
/// caller then scans every line).
///
/// The first search of a file also searches, in the same pass, the needles
/// announced with [`Searches::announce`](super::needles::Searches::announce)
/// or [`announce_later`](super::needles::Searches::announce_later);
/// all results are kept (in [`FileKeys::searches`]).
pub(super) fn lines_matching(keys: &FileKeys, line: &OldLine, tier: Tier) -> Option<Arc<[usize]>> {
    if !keys.is_indexed() {
        return None;
    }
    let searches = keys.searches();
    let needle = Needle::of(line, tier, searches.counts())?;
    if let Some(hits) = searches.cached_hits(&needle) {
        return Some(hits);
    }
    // Found by an earlier location of the same text (`memo`): the lines a
    // needle stands on are facts about the file.
    let source = keys.source();
    let kept = |n: &Needle| memo::needle_hits(source, n);
    if let Some(hits) = kept(&needle) {
        searches.cache_hits(needle, Arc::clone(&hits));
        return Some(hits);
    }
    // The announced needles searched the same way (case-sensitively or
    // not) join this search; the others wait for their own.
    let folded = |n: &Needle| matches!(n, Needle::Folded(_));
    let (mut needles, later): (Vec<Needle>, Vec<Needle>) = searches
        .take_announced()
        .into_iter()
        .filter(|n| !searches.is_cached(n) && kept(n).is_none())
        .partition(|n| folded(n) == folded(&needle));
    searches.announce(later);
    needles.push(needle.clone());
    needles.sort();
    needles.dedup();
    for (needle, hits) in scan::search(keys, &needles) {
        let hits: Arc<[usize]> = hits.into();
        memo::keep_needle_hits(source, &needle, &hits);
        searches.cache_hits(needle, hits);
    }
    searches.cached_hits(&needle)
}

/// The needles of a hunk's old side that the tiers searching the whole file
/// will look for, to announce with
/// [`Searches::announce`](super::needles::Searches::announce).
#[cfg(test)]
pub(super) fn anchors_of(old: &[OldLine]) -> Vec<Needle> {
    let counts = TokenCounts::default();
    let mut out = Vec::new();
    for tier in [Tier::Exact, Tier::Resilient, Tier::Fuzzy] {
        for (_, line) in anchor_lines(old, tier, 1, &counts) {
            out.extend(Needle::of(line, tier, &counts));
        }
    }
    out
}

/// Every needle the location of `hunks` may search the file for through
/// [`starts`] or [`lines_matching`], each once: the anchors of each hunk's
/// old side under every tier, of its new side (already applied?), of the
/// context before and after its removed lines (stale?), and its Codex `@@`
/// anchors. Announced, they are all found in the first pass over the file;
/// a needle missing here costs a pass of its own.
pub(super) fn announcements(lines: &PatchLines, hunks: &[Hunk]) -> Announcements {
    let counts = TokenCounts::of(hunks, |kind, text, count| {
        let line = lines.old_line(kind, text);
        count(line.resilient(), line.fuzzy());
    });
    let mut seen = std::collections::HashSet::new();
    let mut needles = Vec::new();
    let mut add = |line: &OldLine, tier: Tier| {
        if let Some(needle) = Needle::of(line, tier, &counts)
            && seen.insert(needle.clone())
        {
            needles.push(needle);
        }
    };
    let lenient = [Tier::Exact, Tier::Resilient, Tier::Fuzzy];
    for hunk in hunks {
        let old = lines.old_side(hunk);
        let new = lines.new_side(hunk);
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
            for (_, line) in start_anchors(part, tier, &counts) {
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
    Announcements { needles, counts }
}

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
/// The most distinctive: the least shared needle (see [`rarity`]), then
/// the longest token.
pub(super) fn anchor_lines<'a, 'h>(
    old: &'a [OldLine<'h>],
    tier: Tier,
    spare: usize,
    counts: &TokenCounts,
) -> Vec<(usize, &'a OldLine<'h>)> {
    let mut scored: Vec<((u32, usize, usize), &OldLine)> = old
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            let len = match tier {
                Tier::Exact => l.text.trim().len(),
                Tier::Resilient => l.longest_resilient_token()?.len(),
                _ => l.longest_word()?.len(),
            };
            (len >= MIN_TOKEN).then(|| ((sharing(l, tier, counts), usize::MAX - len, i), l))
        })
        .collect();
    scored.sort_by_key(|(score, _)| *score);
    if let Some(&((_, _, i), l)) = scored.iter().find(|(_, l)| l.kind == LineKind::Remove) {
        return vec![(i, l)];
    }
    scored
        .into_iter()
        .take(spare)
        .map(|((_, _, i), l)| (i, l))
        .collect()
}

/// Start lines of the old side for a tier: every hit of the anchor line,
/// moved back by the anchor's place in the hunk and widened by `before` and
/// `after` lines of slack. `None`: scan everything.
pub(super) fn starts(
    keys: &FileKeys,
    old: &[OldLine],
    tier: Tier,
    before: usize,
    after: usize,
) -> Option<Vec<usize>> {
    if !keys.is_indexed() {
        return None;
    }
    let anchors = start_anchors(old, tier, keys.searches().counts());
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
/// past the end of the file; none, to scan everything, when the first half
/// has fewer than three lines with a needle).
fn start_anchors<'a, 'h>(
    old: &'a [OldLine<'h>],
    tier: Tier,
    counts: &TokenCounts,
) -> Vec<(usize, &'a OldLine<'h>)> {
    let (spare, sure) = if tier == Tier::Structural {
        // Context past the end of the file may be left out, up to as many
        // lines as matched: only the first half of the hunk is sure to be
        // in the file, and up to two of its context lines may be dropped.
        (3, &old[..old.len() - old.len() / 2])
    } else {
        (1, old)
    };
    let anchors = anchor_lines(old, tier, 1, counts);
    if anchors.iter().all(|(_, l)| l.kind == LineKind::Remove) {
        return anchors;
    }
    let anchors = anchor_lines(sure, tier, spare, counts);
    // Fewer lines with a needle than may be left out: a match may hold
    // none of them (it matches on lines like `if x:`), so no needle
    // finds every candidate and the whole file is scanned.
    if anchors.len() < spare {
        return Vec::new();
    }
    anchors
}

#[cfg(test)]
mod tests {
    use super::super::needles::{resilient_token, word_token};
    use super::*;

    /// Counts a line by keys made for it alone.
    fn own_keys(kind: LineKind, text: &str, count: &mut dyn FnMut(&str, &str)) {
        let line = OldLine::new(kind, text);
        count(line.resilient(), line.fuzzy());
    }

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
        let none = TokenCounts::default();
        // One run serves every tier, whatever the file holds: a line
        // matching it holds the run in its bytes, or in their folded
        // reading (`scan.rs`) where a backtick splits it.
        for tier in [Tier::Exact, Tier::Resilient, Tier::Fuzzy] {
            assert_eq!(Needle::of(&line("let v = A_1234567;"), tier, &none), plain);
            assert_eq!(Needle::of(&line("let v = a_123`4567;"), tier, &none), plain);
        }
        assert_eq!(
            Needle::of(&line("let total = sum(items);"), Tier::Fuzzy, &none),
            Some(Needle::Folded("items".into()))
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
        while text.len() < 3 * scan::SEARCH_PIECE + 500 {
            let piece_end = (text.len() / scan::SEARCH_PIECE + 1) * scan::SEARCH_PIECE;
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

    /// A file with backticks: the fuzzy tiers still search a needle
    /// (they once scanned every line), and find the lines whose word a
    /// backtick or a KELVIN SIGN splits or hides, besides the plain ones.
    #[test]
    fn a_file_with_backticks_is_searched_through_its_folded_reading() {
        let text = "let `quoted` = 1;\nfn handle_re`quest(req) {\n    respond(req)\n}\n\
                    fn Handle_Request(x) {\nfn handle_request\u{200B}(y) {\nfn other() {\n\
                    fn handle_re\u{212A}(z) {\n";
        let source = crate::source::SourceText::new(text.as_bytes());
        let keys = FileKeys::new(&source, 0);
        let probe = OldLine::new(LineKind::Context, "fn handle_request(req) {");
        keys.searches().announce(anchors_of(&[OldLine::new(
            LineKind::Remove,
            "    respond(req)",
        )]));
        let hits = lines_matching(&keys, &probe, Tier::Fuzzy).unwrap();
        assert_eq!(&*hits, &[1, 4, 5]);
        assert_eq!(keys.searches().unseen_pieces(), Some(&[true][..]));
        let kelvin = OldLine::new(LineKind::Context, "fn handle_rek(z) {");
        assert_eq!(&*lines_matching(&keys, &kelvin, Tier::Fuzzy).unwrap(), &[7]);
    }

    /// A token many lines of the patch share gives way to a rarer one of
    /// the same line; a token a few lines share stays.
    #[test]
    fn a_shared_token_gives_way_to_a_rarer_one() {
        let mut patch = String::from("--- a/f\n+++ b/f\n");
        for i in 0..40 {
            patch.push_str(&format!(
                "@@\n-    total += accumulate_measurement(s, {i});\n+    x();\n"
            ));
        }
        let parsed =
            crate::patch::parse_patch(patch.as_bytes(), &crate::patch::ParseOptions::default())
                .unwrap();
        let hunks = &parsed.files[0].hunks;
        let counts = TokenCounts::of(hunks, own_keys);
        let line = OldLine::new(
            LineKind::Remove,
            "    total += accumulate_measurement(s, 7);",
        );
        assert_eq!(
            Needle::of(&line, Tier::Resilient, &TokenCounts::default()),
            Some(Needle::Plain("accumulate_measurement(s,".into()))
        );
        assert_eq!(
            Needle::of(&line, Tier::Resilient, &counts),
            Some(Needle::Plain("7);".into()))
        );
        // Every word of the line is shared alike: the usual needle stays.
        assert_eq!(
            Needle::of(&line, Tier::Fuzzy, &counts),
            Some(Needle::Folded("accumulate_measurement".into()))
        );
        let few = TokenCounts::of(
            &hunks[..super::super::needles::SHARED_BY as usize],
            own_keys,
        );
        assert_eq!(
            Needle::of(&line, Tier::Resilient, &few),
            Some(Needle::Plain("accumulate_measurement(s,".into()))
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
            for (needle, hits) in scan::search(&keys, &needles) {
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
