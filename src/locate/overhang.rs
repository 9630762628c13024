//! A structural match that reads the hunk's last context lines as past
//! the end of the file (EOF overhang, `docs/matching.md`, "Structural
//! slack"): the end of the file must not decide, and a line read as past
//! it must not be in the file.

use super::Tier;
use super::keys::{FileKeys, OldLine};
use super::prefilter;
use super::search::{Candidate, Slot, contiguous};

/// Why the structural match `cand` that reads context lines as past the
/// end of the file is one of two readings, and the other's first line
/// (0-based), or `None` when it is the only one.
pub(super) fn doubt(keys: &FileKeys, old: &[OldLine], cand: &Candidate) -> Option<(usize, String)> {
    let at = cand.start + 1;
    if let Some(rival) = rival(keys, old, cand) {
        let why = format!(
            "the hunk matches at line {at} with its last context lines past the end of the file, and without them at line {}: the lines past the end may be invented, so nothing says which one is meant; give context the file has",
            rival + 1
        );
        return Some((rival, why));
    }
    let there = line_stands(keys, old, cand)?;
    let why = format!(
        "the hunk matches at line {at} with its last context lines past the end of the file, but one of them stands at line {}: a line the file has is not past its end; give context as the file has it",
        there + 1
    );
    Some((there, why))
}

/// A structural match that ignores the hunk's last context lines as
/// standing past the end of the file, while the hunk without them stands
/// elsewhere (contiguous, up to the fuzzy tier): the lines past the end may
/// as well be lines the model invented after the other place, so the end
/// of the file must not decide (rule 11's kin). Returns the other place's
/// first line.
fn rival(keys: &FileKeys, old: &[OldLine], cand: &Candidate) -> Option<usize> {
    let past = cand
        .slots
        .iter()
        .rev()
        .take_while(|s| **s == Slot::Overhang)
        .count();
    if past == 0 || past >= old.len() {
        return None;
    }
    let kept = &old[..old.len() - past];
    let n = keys.len();
    let starts: Vec<usize> = match prefilter::starts(keys, kept, Tier::Fuzzy, 0, 0) {
        Some(starts) => starts,
        None => (0..n).collect(),
    };
    contiguous(keys, kept, Tier::Fuzzy, starts)
        .into_iter()
        .find(|c| c.end <= cand.start || cand.end <= c.start)
        .map(|c| c.start)
}

/// A structural match that ignores the hunk's last context lines as
/// standing past the end of the file, while one of them, holding a word,
/// stands in the file (but for whitespace): that line is there, not past
/// the end, and the reading that put it past the end misaligns the hunk.
/// Returns the file line it stands on (the first).
fn line_stands(keys: &FileKeys, old: &[OldLine], cand: &Candidate) -> Option<usize> {
    let past: Vec<&OldLine> = old
        .iter()
        .zip(&cand.slots)
        .filter(|(l, s)| **s == Slot::Overhang && l.text.chars().any(char::is_alphanumeric))
        .map(|(l, _)| l)
        .collect();
    if past.is_empty() {
        return None;
    }
    (0..keys.len()).find(|&k| past.iter().any(|l| keys.resilient(k) == l.resilient()))
}
