//! What the prefilter (`prefilter.rs`) searches a file's bytes for, and what
//! it remembers of the searches: the tokens of a line's keys that needles
//! are cut from, the needles, how many lines of the patch share each token,
//! and the per-file memo that [`FileKeys`](super::keys::FileKeys) carries.
//!
//! These are data, below both the keys and the prefilter: the keys hold the
//! memo and cut their lines' longest tokens here, and the prefilter chooses
//! and searches the needles through the keys.

use crate::model::{Hunk, LineKind};
use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Tokens shorter than this are too common to narrow the search.
pub(super) const MIN_TOKEN: usize = 3;

/// The whitespace tokens of a resilient key long enough to search for
/// (a trailing ellipsis left out: the token before it may be cut).
pub(super) fn resilient_tokens(key: &str) -> impl Iterator<Item = &str> {
    let key = key
        .strip_suffix("...")
        .or_else(|| key.strip_suffix('\u{2026}'))
        .unwrap_or(key);
    key.split(' ').filter(|t| t.len() >= MIN_TOKEN)
}

/// The words (runs of ASCII letters, digits and `_`) of a fuzzy key long
/// enough to search for.
pub(super) fn words(key: &str) -> impl Iterator<Item = &str> {
    key.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|t| t.len() >= MIN_TOKEN)
}

/// The longest of [`resilient_tokens`] (the last of equals).
pub(super) fn resilient_token(key: &str) -> Option<&str> {
    resilient_tokens(key).max_by_key(|t| t.len())
}

/// The longest of [`words`] (the last of equals).
pub(super) fn word_token(key: &str) -> Option<&str> {
    words(key).max_by_key(|t| t.len())
}

/// What a tier searches the raw bytes for.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Needle {
    /// A whole line (the exact tier): hits must be the entire line.
    Line(String),
    /// A fragment that stands verbatim in every matching line.
    Plain(String),
    /// A fragment that stands in every matching line up to ASCII case.
    Folded(String),
}

impl Needle {
    /// The text searched for.
    pub(super) fn text(&self) -> &str {
        match self {
            Needle::Line(t) | Needle::Plain(t) | Needle::Folded(t) => t,
        }
    }
}

/// A token in more patch lines than this counts as shared: below it, the
/// usual needle (the longest token) is kept.
pub(super) const SHARED_BY: u32 = 16;

/// Patch lines per token: whitespace tokens of the resilient keys, words of
/// the fuzzy keys and whole lines, counted apart.
///
/// A hunk costs as many comparisons as its needle has hits. Hunks with
/// needles of their own cost together about one pass over the file (each
/// file line holds only so many needles); what makes a long patch quadratic
/// is one needle that many hunks search, each of them comparing all of its
/// hits (`compute(input,` in every line of a re-applied patch). Those are
/// the needles shared by many lines *of the patch*, which is counted here
/// without reading the file, so that such a needle can give way to a rarer
/// one (`prefilter/rarity.rs`).
///
/// Tokens are kept as 64-bit hashes, not strings: a patch of many hunks has
/// about as many distinct tokens as lines, and their strings were the
/// largest part of a re-run's heap. Two tokens sharing a hash only add
/// their counts, which changes which needle is chosen (how fast), never
/// what the needle finds (every needle stands in every line it matches).
#[derive(Debug)]
pub(super) struct TokenCounts {
    /// Tells these counts from any other made in the process, so that a
    /// line can keep the needle they chose for it (`OldLine::chosen`).
    id: u64,
    resilient: HashMap<u64, u32>,
    words: HashMap<u64, u32>,
    lines: HashMap<u64, u32>,
}

/// The key a token is counted under.
fn token_key(token: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    token.hash(&mut hasher);
    hasher.finish()
}

impl Default for TokenCounts {
    fn default() -> Self {
        static MADE: AtomicU64 = AtomicU64::new(0);
        TokenCounts {
            id: MADE.fetch_add(1, Ordering::Relaxed),
            resilient: HashMap::new(),
            words: HashMap::new(),
            lines: HashMap::new(),
        }
    }
}

/// Which count a needle's token is looked up in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TokenKind {
    /// A whitespace token of a resilient key.
    Resilient,
    /// A word of a fuzzy key (or a caseless run inside one).
    Word,
    /// A whole line.
    Line,
}

impl TokenCounts {
    /// Counts every line of `hunks` (context, removed and added, each once)
    /// and their Codex `@@` anchors (as context), each by its resilient and
    /// fuzzy keys, which `keyed` hands to the counting closure it is given
    /// (so that a long line's keys, made once, serve here too).
    pub(super) fn of(
        hunks: &[Hunk],
        mut keyed: impl FnMut(LineKind, &str, &mut dyn FnMut(&str, &str)),
    ) -> TokenCounts {
        let mut counts = TokenCounts::default();
        for hunk in hunks {
            let lines = hunk.lines.iter().map(|l| (l.kind, l.text.as_str()));
            let anchors = hunk.anchors.iter().map(|a| (LineKind::Context, a.as_str()));
            for (kind, text) in lines.chain(anchors) {
                keyed(kind, text, &mut |resilient, fuzzy| {
                    counts.add(text, resilient, fuzzy);
                });
            }
        }
        counts
    }

    /// Counts one line: its resilient key's tokens, its fuzzy key's words
    /// and the line itself.
    fn add(&mut self, text: &str, resilient: &str, fuzzy: &str) {
        let bump = |map: &mut HashMap<u64, u32>, token: &str| {
            *map.entry(token_key(token)).or_insert(0) += 1;
        };
        for token in resilient_tokens(resilient) {
            bump(&mut self.resilient, token);
        }
        for word in words(fuzzy) {
            bump(&mut self.words, word);
        }
        bump(&mut self.lines, text);
    }

    /// What tells these counts from any other made in the process.
    pub(super) fn id(&self) -> u64 {
        self.id
    }

    /// Patch lines holding `token` (0 when nothing was counted).
    pub(super) fn count(&self, kind: TokenKind, token: &str) -> u32 {
        let map = match kind {
            TokenKind::Resilient => &self.resilient,
            TokenKind::Word => &self.words,
            TokenKind::Line => &self.lines,
        };
        map.get(&token_key(token)).copied().unwrap_or(0)
    }

    /// How shared `token` is: 0 up to [`SHARED_BY`] lines, else its count.
    pub(super) fn sharing(&self, kind: TokenKind, token: &str) -> u32 {
        let n = self.count(kind, token);
        if n <= SHARED_BY { 0 } else { n }
    }
}

/// What the location of a file's hunks will probably search for: the
/// needles, and the patch's token counts they were chosen by.
pub(super) struct Announcements {
    /// Each needle once.
    pub needles: Vec<Needle>,
    /// How many lines of the patch share each token.
    pub counts: TokenCounts,
}

/// Makes the needles to announce (see [`Searches::announce_later`]).
type Announcer<'s> = Box<dyn FnOnce() -> Announcements + 's>;

/// What the prefilter remembers of one file's searches (large files, and
/// small ones many hunks search): the lines found per needle, the needles
/// announced for the next search, and what the first search found out.
#[derive(Default)]
pub(super) struct Searches<'s> {
    /// Lines found for each needle so far.
    hits: RefCell<HashMap<Needle, Arc<[usize]>>>,
    /// Needles searched along with the next search.
    announced: RefCell<Vec<Needle>>,
    /// Makes more of them, and the counts they are chosen by, when the
    /// first needle is chosen (if one is).
    announcer: RefCell<Option<Announcer<'s>>>,
    /// How many lines of the patch share each token.
    counts: OnceCell<TokenCounts>,
    /// Which pieces of the file hold characters a raw search cannot see.
    unseen_pieces: OnceCell<Vec<bool>>,
}

impl<'s> Searches<'s> {
    /// Announces needles that will probably be searched for, so that the
    /// next search of the file finds them all in the same pass.
    pub(super) fn announce(&self, needles: Vec<Needle>) {
        self.announced.borrow_mut().extend(needles);
    }

    /// Announces the needles `announcer` makes, when the first needle is
    /// chosen: a run that never searches (every hunk exactly at its line
    /// number) makes none.
    pub(super) fn announce_later(&self, announcer: impl FnOnce() -> Announcements + 's) {
        *self.announcer.borrow_mut() = Some(Box::new(announcer));
    }

    /// Runs the announcer, if it has not run.
    fn run_announcer(&self) {
        let announcer = self.announcer.borrow_mut().take();
        if let Some(announcer) = announcer {
            let made = announcer();
            let _ = self.counts.set(made.counts);
            self.announce(made.needles);
        }
    }

    /// Takes the announced needles.
    pub(super) fn take_announced(&self) -> Vec<Needle> {
        self.run_announcer();
        std::mem::take(&mut *self.announced.borrow_mut())
    }

    /// How many lines of the patch share each token (none counted when
    /// nothing was announced later).
    pub(super) fn counts(&self) -> &TokenCounts {
        self.run_announcer();
        self.counts.get_or_init(TokenCounts::default)
    }

    /// Which pieces of the file hold a character a raw search cannot see
    /// (`prefilter/scan.rs`), once the first search found out.
    pub(super) fn unseen_pieces(&self) -> Option<&[bool]> {
        self.unseen_pieces.get().map(|v| v.as_slice())
    }

    /// Records what the first search found out.
    pub(super) fn set_unseen_pieces(&self, pieces: Vec<bool>) {
        let _ = self.unseen_pieces.set(pieces);
    }

    /// The lines found for `needle`, if it was searched (shared, not copied).
    pub(super) fn cached_hits(&self, needle: &Needle) -> Option<Arc<[usize]>> {
        self.hits.borrow().get(needle).cloned()
    }

    /// True when `needle` was searched.
    pub(super) fn is_cached(&self, needle: &Needle) -> bool {
        self.hits.borrow().contains_key(needle)
    }

    /// Keeps the lines found for `needle` (shared with the file's memo:
    /// `memo::keep_needle_hits`).
    pub(super) fn cache_hits(&self, needle: Needle, lines: Arc<[usize]>) {
        self.hits.borrow_mut().insert(needle, lines);
    }
}
