//! Context-line readings of the line-by-line tiers that hold only where
//! the rest of the hunk decides the place: a line equal but for spaces at
//! punctuation (same tokens), seed 000's short mid-word fragments, and a
//! hunk's last context line cut short without `...`.
//! `search::contiguous` applies them and their hunk-level conditions (see
//! `docs/matching.md`).

use super::Tier;
use super::keys::{FileKeys, OldLine};
use super::normalize::{LineMatch, cut_prefix, same_tokens, short_mid_word_suffix};
use crate::model::LineKind;

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
