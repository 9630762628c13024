//! How many lines of a file's patch share each token, so that a needle
//! many hunks would search alike can give way to a rarer one.
//!
//! A hunk costs as many comparisons as its needle has hits. Hunks with
//! needles of their own cost together about one pass over the file (each
//! file line holds only so many needles); what makes a long patch quadratic
//! is one needle that many hunks search, each of them comparing all of its
//! hits (`compute(input,` in every line of a re-applied patch). Those are
//! the needles shared by many lines *of the patch*, which is counted here
//! without reading the file. Every token of a line is as sound a needle as
//! the longest (see `prefilter.rs`); the choice changes only how many
//! candidates are compared, never which lines match.

use super::super::Tier;
use super::super::keys::OldLine;
use super::{caseless_fragment, resilient_tokens, words};
use crate::model::{Hunk, LineKind};
use std::collections::HashMap;

/// A token in more patch lines than this counts as shared: below it, the
/// usual needle (the longest token) is kept.
pub(super) const SHARED_BY: u32 = 16;

/// Patch lines per token: whitespace tokens of the resilient keys, words of
/// the fuzzy keys and whole lines, counted apart.
#[derive(Debug, Default)]
pub(crate) struct TokenCounts {
    resilient: HashMap<String, u32>,
    words: HashMap<String, u32>,
    lines: HashMap<String, u32>,
}

/// Which count a needle's token is looked up in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TokenKind {
    /// A whitespace token of a resilient key.
    Resilient,
    /// A word of a fuzzy key (or a caseless run inside one).
    Word,
    /// A whole line.
    Line,
}

impl TokenCounts {
    /// Counts every line of `hunks` (context, removed and added, each once)
    /// and their Codex `@@` anchors.
    pub(crate) fn of(hunks: &[Hunk]) -> TokenCounts {
        let mut counts = TokenCounts::default();
        for hunk in hunks {
            for line in &hunk.lines {
                counts.add(&OldLine::new(line.kind, &line.text));
            }
            for anchor in &hunk.anchors {
                counts.add(&OldLine::new(LineKind::Context, anchor));
            }
        }
        counts
    }

    fn add(&mut self, line: &OldLine) {
        let bump = |map: &mut HashMap<String, u32>, token: &str| {
            match map.get_mut(token) {
                Some(n) => *n += 1,
                None => {
                    map.insert(token.to_string(), 1);
                }
            };
        };
        for token in resilient_tokens(line.resilient()) {
            bump(&mut self.resilient, token);
        }
        for word in words(line.fuzzy()) {
            bump(&mut self.words, word);
        }
        bump(&mut self.lines, line.text);
    }

    /// Patch lines holding `token` (0 when nothing was counted).
    pub(crate) fn count(&self, kind: TokenKind, token: &str) -> u32 {
        let map = match kind {
            TokenKind::Resilient => &self.resilient,
            TokenKind::Word => &self.words,
            TokenKind::Line => &self.lines,
        };
        map.get(token).copied().unwrap_or(0)
    }

    /// How shared `token` is: 0 up to [`SHARED_BY`] lines, else its count.
    pub(crate) fn sharing(&self, kind: TokenKind, token: &str) -> u32 {
        let n = self.count(kind, token);
        if n <= SHARED_BY { 0 } else { n }
    }
}

/// A sound needle of a line: what it searches for, and the token counted.
pub(super) struct Candidate<'l> {
    /// The count it is looked up in.
    pub kind: TokenKind,
    /// The counted token (a caseless run counts as its word).
    pub token: &'l str,
    /// The text searched for.
    pub text: &'l str,
    /// Searched ASCII-case-insensitively.
    pub folded: bool,
}

/// The needles a line may be searched by under a tier, as sound as its
/// usual one: the caseless runs of its words (every tier), then every
/// token of the tier (the whole line for the exact tier, the whitespace
/// tokens of the resilient key for the resilient tier, the words of the
/// fuzzy key for the others).
pub(super) fn candidates<'l>(line: &'l OldLine, tier: Tier) -> Vec<Candidate<'l>> {
    let word = |token: &'l str, text: &'l str, folded: bool| Candidate {
        kind: TokenKind::Word,
        token,
        text,
        folded,
    };
    let mut out: Vec<Candidate> = words(line.fuzzy())
        .filter_map(|w| caseless_fragment(w).map(|f| word(w, f, false)))
        .collect();
    match tier {
        Tier::Exact if !line.text.is_empty() => out.push(Candidate {
            kind: TokenKind::Line,
            token: line.text,
            text: line.text,
            folded: false,
        }),
        Tier::Exact => {}
        Tier::Resilient => out.extend(resilient_tokens(line.resilient()).map(|t| Candidate {
            kind: TokenKind::Resilient,
            token: t,
            text: t,
            folded: false,
        })),
        Tier::Fuzzy | Tier::Structural | Tier::Similarity => {
            out.extend(words(line.fuzzy()).map(|w| word(w, w, true)))
        }
    }
    out
}
