//! The other sound needles of a line, so that a needle many hunks would
//! search alike can give way to a rarer one (the patch's lines per token
//! are counted in `needles.rs`, [`TokenCounts`](super::super::needles::TokenCounts)).
//!
//! Every token of a line is as sound a needle as the longest (see
//! `prefilter.rs`); the choice changes only how many candidates are
//! compared, never which lines match.

use super::super::Tier;
use super::super::keys::OldLine;
use super::super::needles::{TokenKind, resilient_tokens, words};
use super::caseless_fragment;

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
