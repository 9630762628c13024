//! Context-line readings of the line-by-line tiers that hold only where
//! the rest of the hunk decides the place: a line equal but for spaces at
//! punctuation (same tokens), and seed 000's short mid-word fragments.
//! `search::contiguous` applies them and their hunk-level conditions (see
//! `docs/matching.md`).

use super::Tier;
use super::keys::{FileKeys, OldLine};
use super::normalize::{LineMatch, same_tokens, short_mid_word_suffix};
use crate::model::LineKind;

/// A context line equal to file line `j` but for spaces next to
/// punctuation (`normalize::same_tokens`).
pub(super) fn tokens_match(keys: &FileKeys, j: usize, line: &OldLine) -> bool {
    line.kind == LineKind::Context && !line.blank && same_tokens(&keys.fuzzy(j), line.fuzzy())
}

/// A context line that is the end of file line `j` cut mid-word, 10 to 15
/// characters long (`normalize::short_mid_word_suffix`), in a small file
/// (the check of [`rest_places_alone`] scans it line by line).
pub(super) fn short_fragment(keys: &FileKeys, tier: Tier, j: usize, line: &OldLine) -> bool {
    if line.kind != LineKind::Context || !keys.is_dense() {
        return false;
    }
    match tier {
        Tier::Resilient => short_mid_word_suffix(&keys.resilient(j), line.resilient()),
        Tier::Fuzzy => short_mid_word_suffix(&keys.fuzzy(j), line.fuzzy()),
        _ => false,
    }
}

/// Seed 000's short fragments count only where the rest of the hunk
/// anchors the place: at least two other non-blank lines, and no other
/// start line where every line but the fragments matches.
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
