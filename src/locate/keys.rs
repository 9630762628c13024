//! Per-line comparison keys, for the file (computed once, lazily, per tier)
//! and for a hunk's old side.

use super::Tier;
use super::memo::{self, LineKey};
use super::needles::{Needle, Searches, resilient_token, word_token};
use super::normalize::{LineMatch, fuzzy_key, heading_level, keys_match, resilient_key};
use crate::model::{Hunk, LineKind};
use crate::source::SourceText;
use std::borrow::Cow;
use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::ops::Range;
use std::rc::Rc;
use std::sync::Arc;

/// The lines of a target file with their normalised keys.
///
/// For files up to `MatchOptions::prefilter_above_lines` lines, each tier's keys are computed for
/// all lines on first use; larger files compute a key only when a line is
/// compared, so memory stays independent of the file's size. Large files,
/// and small ones searched by many hunks, find their candidates through the
/// prefilter ([`FileKeys::is_indexed`]).
pub(super) struct FileKeys<'s> {
    source: &'s SourceText<'s>,
    dense: bool,
    indexed: bool,
    lines: OnceCell<Vec<&'s [u8]>>,
    texts: OnceCell<Vec<Cow<'s, str>>>,
    /// A small file's keys of every line, shared by every location of the
    /// file (`SourceText::memo`).
    resilient: OnceCell<Arc<[String]>>,
    fuzzy: OnceCell<Arc<[String]>>,
    /// In a large file, the keys of the lines asked for last.
    recent: RefCell<Recent>,
    /// What the prefilter remembers of its searches of the file.
    searches: Searches<'s>,
    /// A small file's line numbers ordered by the lines' bytes (then by
    /// number), made on first use.
    by_bytes: OnceCell<Vec<usize>>,
    /// The keys of the long patch lines made for this file's location.
    patch_lines: Rc<PatchLines>,
}

impl<'s> FileKeys<'s> {
    /// Wraps a source; keys are computed on first use, for every line at
    /// once up to `dense_limit` lines, else line by line behind the
    /// prefilter.
    pub(super) fn new(source: &'s SourceText<'s>, dense_limit: usize) -> Self {
        let dense = source.len() <= dense_limit;
        FileKeys {
            source,
            dense,
            indexed: !dense,
            lines: OnceCell::new(),
            texts: OnceCell::new(),
            resilient: OnceCell::new(),
            fuzzy: OnceCell::new(),
            recent: RefCell::default(),
            searches: Searches::default(),
            by_bytes: OnceCell::new(),
            patch_lines: Rc::default(),
        }
    }

    /// The patch lines of this file's location, each long one sharing its
    /// keys ([`PatchLines`]); shared, for the announcements made later.
    pub(super) fn patch_lines(&self) -> &Rc<PatchLines> {
        &self.patch_lines
    }

    /// The old side of a hunk, each long line sharing its keys
    /// ([`PatchLines::old_side`]).
    pub(super) fn old_side<'h>(&self, hunk: &'h Hunk) -> Vec<OldLine<'h>> {
        self.patch_lines.old_side(hunk)
    }

    /// The new side of a hunk, each long line sharing its keys
    /// ([`PatchLines::new_side`]).
    pub(super) fn new_side<'h>(&self, hunk: &'h Hunk) -> Vec<OldLine<'h>> {
        self.patch_lines.new_side(hunk)
    }

    /// Searches through the prefilter also when the keys are dense: a
    /// small file that many hunks search (each search of every line would
    /// make the whole run quadratic). Changes speed only, as for a large file.
    pub(super) fn index_also_when(mut self, many_searches: bool) -> Self {
        self.indexed |= many_searches;
        self
    }

    /// True when every line's keys are computed at once (a small file, so a
    /// check may scan it line by line).
    pub(super) fn is_dense(&self) -> bool {
        self.dense
    }

    /// True when candidates are found through the prefilter
    /// (`prefilter::starts`) rather than by trying every line.
    pub(super) fn is_indexed(&self) -> bool {
        self.indexed
    }

    /// What the prefilter remembers of this file's searches.
    pub(super) fn searches(&self) -> &Searches<'s> {
        &self.searches
    }

    /// Number of lines.
    pub(super) fn len(&self) -> usize {
        self.source.len()
    }

    /// The underlying source.
    pub(super) fn source(&self) -> &'s SourceText<'s> {
        self.source
    }

    /// Line `i` as text.
    pub(super) fn text(&self, i: usize) -> Cow<'_, str> {
        if self.dense {
            Cow::Borrowed(&self.texts()[i])
        } else {
            self.source.line_text(i)
        }
    }

    fn texts(&self) -> &[Cow<'s, str>] {
        self.texts.get_or_init(|| {
            self.lines()
                .iter()
                .map(|l| String::from_utf8_lossy(l))
                .collect()
        })
    }

    /// Every line's bytes, found once (a mapped file's sparse line index
    /// finds a line through a shared block cache: too slow for every
    /// comparison).
    fn lines(&self) -> &[&'s [u8]] {
        self.lines.get_or_init(|| {
            (0..self.source.len())
                .map(|i| self.source.line(i))
                .collect()
        })
    }

    /// The lines (0-based, ascending) whose bytes are `bytes`, in a small
    /// file: found through one ordering of the file's lines made on first
    /// use, not by a pass over the file per question. `None` in a large
    /// file, whose ordering would take memory that grows with it.
    pub(super) fn lines_equal_to(&self, bytes: &[u8]) -> Option<&[usize]> {
        if !self.dense {
            return None;
        }
        let lines = self.lines();
        let order = self.by_bytes.get_or_init(|| {
            let mut order: Vec<usize> = (0..lines.len()).collect();
            order.sort_unstable_by(|&a, &b| lines[a].cmp(lines[b]).then(a.cmp(&b)));
            order
        });
        let from = order.partition_point(|&j| lines[j] < bytes);
        let to = from + order[from..].partition_point(|&j| lines[j] == bytes);
        Some(&order[from..to])
    }

    /// Line `i`'s bytes.
    pub(super) fn line(&self, i: usize) -> &'s [u8] {
        if self.dense {
            self.lines()[i]
        } else {
            self.source.line(i)
        }
    }

    /// The resilient key of line `i`.
    pub(super) fn resilient(&self, i: usize) -> Cow<'_, str> {
        if !self.dense {
            let make = || resilient_key(&self.source.line_text(i));
            return Cow::Owned(self.recent.borrow_mut().key(i, LineKey::Resilient, make));
        }
        let every = self.resilient.get_or_init(|| {
            let make = || self.texts().iter().map(|t| resilient_key(t)).collect();
            memo::every_key(self.source, LineKey::Resilient, make)
        });
        Cow::Borrowed(&every[i])
    }

    /// The fuzzy key of line `i`.
    pub(super) fn fuzzy(&self, i: usize) -> Cow<'_, str> {
        if !self.dense {
            let make = || fuzzy_key(&self.source.line_text(i));
            return Cow::Owned(self.recent.borrow_mut().key(i, LineKey::Fuzzy, make));
        }
        let every = self.fuzzy.get_or_init(|| {
            let make = || self.texts().iter().map(|t| fuzzy_key(t)).collect();
            memo::every_key(self.source, LineKey::Fuzzy, make)
        });
        Cow::Borrowed(&every[i])
    }

    /// Compares file line `i` with a patch line under `tier`'s line rules.
    pub(super) fn compare(&self, tier: Tier, i: usize, line: &OldLine) -> LineMatch {
        if self.line(i) == line.text.as_bytes() {
            return LineMatch::Exact;
        }
        if tier == Tier::Exact {
            return LineMatch::No;
        }
        let removed = line.kind == LineKind::Remove;
        // A removed line decides what is destroyed: `## Usage` never
        // deletes `### Usage`.
        if removed && heading_level(&self.text(i)) != heading_level(line.text) {
            return LineMatch::No;
        }
        if keys_match(&self.resilient(i), line.resilient(), removed) {
            return LineMatch::Normalized;
        }
        // A removed line holding no word (`})?;`, `};`) is read at most
        // with whitespace forgiven: folding its punctuation away leaves
        // nothing of it, and `})` of another call would be deleted.
        if tier == Tier::Resilient || (removed && !line.text.chars().any(char::is_alphanumeric)) {
            return LineMatch::No;
        }
        if keys_match(&self.fuzzy(i), line.fuzzy(), removed) {
            return LineMatch::Normalized;
        }
        LineMatch::No
    }
}

/// How many lines of a large file keep their keys in [`Recent`].
const RECENT: usize = 128;

/// The keys of the lines of a large file asked for last, line `i` in slot
/// `i % RECENT`. A scan compares each file line with every line of a
/// hunk's old side, from as many start lines (the structural tier at every
/// line, the closest block of a failure, the similarity tier), and a large
/// file, whose keys are not all made at once, made the line's keys again
/// for each comparison.
#[derive(Default)]
struct Recent {
    slots: Vec<RecentKeys>,
}

/// One line's keys in [`Recent`], each made when first asked for.
struct RecentKeys {
    line: usize,
    resilient: Option<String>,
    fuzzy: Option<String>,
}

impl Recent {
    /// Line `i`'s key `which`, made by `make` unless it is kept.
    fn key(&mut self, i: usize, which: LineKey, make: impl FnOnce() -> String) -> String {
        if self.slots.is_empty() {
            self.slots = (0..RECENT)
                .map(|_| RecentKeys {
                    line: usize::MAX,
                    resilient: None,
                    fuzzy: None,
                })
                .collect();
        }
        let slot = &mut self.slots[i % RECENT];
        if slot.line != i {
            (slot.line, slot.resilient, slot.fuzzy) = (i, None, None);
        }
        let key = match which {
            LineKey::Fuzzy => &mut slot.fuzzy,
            LineKey::Resilient => &mut slot.resilient,
        };
        key.get_or_insert_with(make).clone()
    }
}

/// Lines at least this long (bytes) share their keys within a file's
/// location; shorter ones make their own (cheaper than looking them up).
const SHARED_FROM: usize = 256;

/// The patch lines of one file's location: a long line made here shares its
/// keys with every line of the same text made here before. The token
/// counts, the announcements, each hunk's old side and each check of its
/// new side make lines of their own, and a 2 KiB line's keys (and the
/// splitting of them for the longest word and token) were made again for
/// each.
#[derive(Debug, Default)]
pub(super) struct PatchLines {
    /// The keys of each long line asked for so far, by its text.
    by_text: RefCell<HashMap<Box<str>, Rc<LineKeys>>>,
}

impl PatchLines {
    /// A patch line of `kind` with `text`; a long one shares its keys with
    /// every line of the same text made here before.
    pub(super) fn old_line<'h>(&self, kind: LineKind, text: &'h str) -> OldLine<'h> {
        if text.len() < SHARED_FROM {
            return OldLine::new(kind, text);
        }
        let mut by_text = self.by_text.borrow_mut();
        let keys = match by_text.get(text) {
            Some(keys) => Rc::clone(keys),
            None => {
                let keys = Rc::new(LineKeys::default());
                by_text.insert(text.into(), Rc::clone(&keys));
                keys
            }
        };
        OldLine::with_keys(kind, text, keys)
    }

    /// The old side (context and removed lines) of a hunk.
    pub(super) fn old_side<'h>(&self, hunk: &'h Hunk) -> Vec<OldLine<'h>> {
        let mut old: Vec<OldLine> = hunk
            .lines
            .iter()
            .filter(|l| l.is_old())
            .map(|l| self.old_line(l.kind, &l.text))
            .collect();
        mark_end(hunk, &mut old);
        old
    }

    /// The new side (context and added lines) of a hunk, as old lines to
    /// search for.
    pub(super) fn new_side<'h>(&self, hunk: &'h Hunk) -> Vec<OldLine<'h>> {
        let mut new: Vec<OldLine> = hunk
            .lines
            .iter()
            .filter(|l| l.is_new())
            .map(|l| self.old_line(LineKind::Context, &l.text))
            .collect();
        mark_end(hunk, &mut new);
        new
    }
}

/// The keys of one patch line, each made when first asked for (an exact
/// match needs none); shared by the lines [`PatchLines`] makes of one long
/// text.
#[derive(Debug, Default)]
pub(super) struct LineKeys {
    resilient: OnceCell<String>,
    fuzzy: OnceCell<String>,
    /// Where the longest word of `fuzzy` and the longest token of
    /// `resilient` lie: each tier's needle asks for them, and a long line
    /// would be split again on every ask.
    word: OnceCell<Option<Range<usize>>>,
    token: OnceCell<Option<Range<usize>>>,
    /// The needle chosen for the line under a tier by one set of the
    /// patch's token counts (their id), with how shared its token is:
    /// choosing looks up every token of a long line in the counts.
    chosen: RefCell<Vec<(u64, Tier, Chosen)>>,
}

/// A line's needle under a tier, as the patch's token counts chose it
/// (`prefilter::choose`), and how shared its token is (0: not shared).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Chosen {
    /// The needle, if the line has one.
    pub needle: Option<Needle>,
    /// How shared its token is (`TokenCounts::sharing`).
    pub sharing: u32,
}

/// One line of a hunk's old side with its keys, each made when first
/// asked for (an exact match needs neither).
#[derive(Debug, Clone)]
pub(super) struct OldLine<'h> {
    /// Context or removed.
    pub kind: LineKind,
    /// The patch's text.
    pub text: &'h str,
    /// True when the line is blank.
    pub blank: bool,
    /// True for a context line that ends its hunk (no line, added or not,
    /// follows it): the one place a line the model stopped writing without
    /// `...` is read by its beginning (`lenient::anchored_fragment`).
    pub ends_hunk: bool,
    keys: Rc<LineKeys>,
}

impl<'h> OldLine<'h> {
    /// A line of `kind` with `text`, with keys of its own.
    pub(super) fn new(kind: LineKind, text: &'h str) -> Self {
        OldLine::with_keys(kind, text, Rc::default())
    }

    fn with_keys(kind: LineKind, text: &'h str, keys: Rc<LineKeys>) -> Self {
        OldLine {
            kind,
            text,
            blank: text.trim().is_empty(),
            ends_hunk: false,
            keys,
        }
    }

    /// The resilient key.
    pub(super) fn resilient(&self) -> &str {
        self.keys.resilient.get_or_init(|| resilient_key(self.text))
    }

    /// The fuzzy key.
    pub(super) fn fuzzy(&self) -> &str {
        self.keys.fuzzy.get_or_init(|| fuzzy_key(self.text))
    }

    /// What `read` makes of the needle the counts with id `counts` choose
    /// for this line under `tier` (`choose` makes it the first time; a long
    /// line made through [`PatchLines`] shares it). The choice changes only
    /// how many candidates a search compares, never which lines match.
    pub(super) fn chosen<R>(
        &self,
        (counts, tier): (u64, Tier),
        choose: impl FnOnce() -> Chosen,
        read: impl FnOnce(&Chosen) -> R,
    ) -> R {
        let at = |v: &[(u64, Tier, Chosen)]| v.iter().position(|e| e.0 == counts && e.1 == tier);
        let known = at(&self.keys.chosen.borrow());
        let i = match known {
            Some(i) => i,
            None => {
                let made = choose();
                let mut all = self.keys.chosen.borrow_mut();
                all.push((counts, tier, made));
                all.len() - 1
            }
        };
        read(&self.keys.chosen.borrow()[i].2)
    }

    /// The longest word of the fuzzy key (`needles::word_token`), found once.
    pub(super) fn longest_word(&self) -> Option<&str> {
        let key = self.fuzzy();
        let at = self
            .keys
            .word
            .get_or_init(|| word_token(key).map(|w| within(key, w)));
        at.clone().map(|r| &key[r])
    }

    /// The longest token of the resilient key
    /// (`needles::resilient_token`), found once.
    pub(super) fn longest_resilient_token(&self) -> Option<&str> {
        let key = self.resilient();
        let at = self
            .keys
            .token
            .get_or_init(|| resilient_token(key).map(|t| within(key, t)));
        at.clone().map(|r| &key[r])
    }
}

/// Where `part`, a slice of `whole`, lies in it.
fn within(whole: &str, part: &str) -> Range<usize> {
    let start = (part.as_ptr() as usize).saturating_sub(whole.as_ptr() as usize);
    start..start + part.len()
}

/// The lines of `side` as the memo tells old sides apart
/// ([`memo::SideLine`]).
pub(super) fn side_lines<'a>(
    side: &'a [OldLine<'a>],
) -> impl Iterator<Item = memo::SideLine<'a>> + Clone {
    side.iter().map(|l| (l.kind, l.ends_hunk, l.text))
}

/// The old side (context and removed lines) of a hunk, with keys.
pub(super) fn old_side(hunk: &Hunk) -> Vec<OldLine<'_>> {
    let mut old: Vec<OldLine> = hunk
        .lines
        .iter()
        .filter(|l| l.is_old())
        .map(|l| OldLine::new(l.kind, &l.text))
        .collect();
    mark_end(hunk, &mut old);
    old
}

/// The new side (context and added lines) of a hunk, as old lines to search for.
pub(super) fn new_side(hunk: &Hunk) -> Vec<OldLine<'_>> {
    let mut new: Vec<OldLine> = hunk
        .lines
        .iter()
        .filter(|l| l.is_new())
        .map(|l| OldLine::new(LineKind::Context, &l.text))
        .collect();
    mark_end(hunk, &mut new);
    new
}

/// Marks a side's last line [`OldLine::ends_hunk`] when the hunk's last
/// line is a context line (on both sides, it is that line).
fn mark_end(hunk: &Hunk, side: &mut [OldLine]) {
    let ends_in_context = hunk
        .lines
        .last()
        .is_some_and(|l| l.kind == LineKind::Context);
    if let Some(last) = side.last_mut().filter(|_| ends_in_context) {
        last.ends_hunk = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small file answers from its lines ordered once by their bytes
    /// (every equal line, ascending); a large one leaves it to the prefilter.
    #[test]
    fn lines_equal_to_finds_every_equal_line_in_order() {
        let text = "b\na\nb\n\nc\nb\na\n";
        let source = SourceText::new(text.as_bytes());
        let small = FileKeys::new(&source, 100);
        assert_eq!(small.lines_equal_to(b"b"), Some(&[0, 2, 5][..]));
        assert_eq!(small.lines_equal_to(b"a"), Some(&[1, 6][..]));
        assert_eq!(small.lines_equal_to(b""), Some(&[3][..]));
        assert_eq!(small.lines_equal_to(b"d"), Some(&[][..]));
        assert_eq!(FileKeys::new(&source, 0).lines_equal_to(b"b"), None);
    }

    /// A large file's keys, kept for the lines asked for last, are the
    /// keys of their own lines, asked for in any order (back over lines
    /// whose slots were taken since, and the same slot for lines `RECENT`
    /// apart).
    #[test]
    fn a_large_files_recent_keys_are_each_lines_own() {
        let text: String = (0..3 * RECENT)
            .map(|i| format!("  Line  {i} of `Text`.\n"))
            .collect();
        let source = SourceText::new(text.as_bytes());
        let large = FileKeys::new(&source, 0);
        let order = (0..2 * RECENT)
            .chain((0..3 * RECENT).rev())
            .chain([5, 5 + RECENT, 5]);
        for i in order {
            let own = source.line_text(i);
            assert_eq!(large.fuzzy(i), fuzzy_key(&own), "line {i}");
            assert_eq!(large.resilient(i), resilient_key(&own), "line {i}");
        }
    }

    /// A long patch line made twice in one file's location has its keys
    /// made once, and they are the keys a line of its own would make; a
    /// short line keeps its own.
    #[test]
    fn a_long_line_shares_its_keys_within_a_file() {
        let lines = PatchLines::default();
        let long = format!("  Let Total = {};  ", "Sum(items) ".repeat(40));
        let copy = long.clone();
        let (a, b) = (
            lines.old_line(LineKind::Context, &long),
            lines.old_line(LineKind::Remove, &copy),
        );
        assert!(Rc::ptr_eq(&a.keys, &b.keys));
        assert_eq!(b.kind, LineKind::Remove);
        let own = OldLine::new(LineKind::Context, &long);
        assert_eq!(a.fuzzy(), own.fuzzy());
        assert_eq!(b.resilient(), own.resilient());
        assert_eq!(b.longest_word(), own.longest_word());
        assert_eq!(a.longest_resilient_token(), own.longest_resilient_token());
        let other = long.replace("Total", "Count");
        assert_ne!(lines.old_line(LineKind::Context, &other).fuzzy(), a.fuzzy());
        let short = "let total = sum(items);";
        let (c, d) = (
            lines.old_line(LineKind::Context, short),
            lines.old_line(LineKind::Context, short),
        );
        assert!(!Rc::ptr_eq(&c.keys, &d.keys));
    }

    #[test]
    fn longest_word_and_token_are_those_of_the_keys() {
        let line = OldLine::new(LineKind::Context, "  let total_count = sum(items);");
        assert_eq!(line.longest_word(), word_token(line.fuzzy()));
        assert_eq!(
            line.longest_resilient_token(),
            resilient_token(line.resilient())
        );
        assert_eq!(line.longest_word(), Some("total_count"));
        let blank = OldLine::new(LineKind::Context, "  } ");
        assert_eq!(blank.longest_word(), None);
    }
}
