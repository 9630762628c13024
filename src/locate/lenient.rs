//! Context-line readings of the line-by-line tiers that hold only where
//! the rest of the hunk decides the place: a line equal but for spaces at
//! punctuation (same tokens), seed 000's short mid-word fragments, and a
//! hunk's last context line cut short without `...`.
//! `search::contiguous` applies them and their hunk-level conditions (see
//! `docs/matching.md`).

use super::keys::{FileKeys, OldLine};
use super::normalize::{LineMatch, cut_prefix, same_tokens, short_mid_word_suffix};
use super::{Tier, prefilter};
use crate::model::LineKind;
use std::ops::Range;

/// A context line equal to file line `j` but for spaces next to
/// punctuation (`normalize::same_tokens`).
pub(super) fn tokens_match(keys: &FileKeys, j: usize, line: &OldLine) -> bool {
    line.kind == LineKind::Context && !line.blank && same_tokens(&keys.fuzzy(j), line.fuzzy())
}

/// A context line read as a fragment of file line `j` only where the rest
/// of the hunk places it alone ([`rest_places_alone`], which scans the
/// file line by line: small files only): the end of the line cut
/// mid-word, 10 to 15 characters long (`normalize::short_mid_word_suffix`),
/// or, for the hunk's last line, its beginning cut between two tokens with
/// no `...` (`normalize::cut_prefix`).
pub(super) fn anchored_fragment(keys: &FileKeys, tier: Tier, j: usize, line: &OldLine) -> bool {
    if line.kind != LineKind::Context || !keys.is_dense() {
        return false;
    }
    let fragment = |file: &str, patch: &str| {
        short_mid_word_suffix(file, patch) || (line.ends_hunk && cut_prefix(file, patch))
    };
    match tier {
        Tier::Resilient => fragment(&keys.resilient(j), line.resilient()),
        Tier::Fuzzy => fragment(&keys.fuzzy(j), line.fuzzy()),
        _ => false,
    }
}

/// Fragments read by [`anchored_fragment`] count only where the rest of
/// the hunk anchors the place: at least two other non-blank lines, and no
/// other start line where every line but the fragments matches.
pub(super) fn rest_places_alone(
    keys: &FileKeys,
    old: &[OldLine],
    tier: Tier,
    cut: &[usize],
    p: usize,
) -> bool {
    let rest = |i: &usize| !cut.contains(i);
    let anchors = (0..old.len()).filter(|i| rest(i) && !old[*i].blank).count();
    if anchors < 2 {
        return false;
    }
    let n = keys.len();
    let fits = |q: usize| {
        (0..old.len())
            .filter(rest)
            .all(|i| keys.compare(tier, q + i, &old[i]) != LineMatch::No)
    };
    (0..=n - old.len()).all(|q| q == p || !fits(q))
}

/// The first file line outside `span` that the context line `line` reads
/// as with its words kept (the resilient tier: spaces, a `...` cut, the
/// end of the line), or as its beginning cut between two tokens
/// (`normalize::cut_prefix`, wherever the line stands in its hunk): where
/// a line the similarity tier paired with another stands as the model
/// wrote it, cut or respaced. A large file is searched through the
/// prefilter's lines for the line.
pub(super) fn first_read_outside(
    keys: &FileKeys,
    line: &OldLine,
    span: Range<usize>,
) -> Option<usize> {
    let reads = |j: &usize| {
        !span.contains(j)
            && (keys.compare(Tier::Resilient, *j, line) != LineMatch::No
                || cut_prefix(&keys.resilient(*j), line.resilient()))
    };
    match prefilter::lines_matching(keys, line, Tier::Resilient) {
        Some(hits) => hits.iter().copied().find(reads),
        None => (0..keys.len()).find(reads),
    }
}
