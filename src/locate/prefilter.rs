//! Candidate prefilter for large files: instead of normalising every line of
//! the file, search the raw bytes for a distinctive fragment of one patch line
//! and compare only the lines around the hits.
//!
//! Each tier has a key that every line matching under that tier must contain:
//!
//! * exact: the whole line, at a line start;
//! * resilient: the longest whitespace-separated token of the line's resilient
//!   key (every token of a key, and every fragment of one, stands verbatim in
//!   the raw line);
//! * fuzzy and structural: the longest run of ASCII letters, digits and `_`
//!   of the fuzzy key, searched ASCII-case-insensitively (folding touches
//!   only quotes, dashes, spaces and backticks, never such runs).
//!
//! Small files (see [`super::keys::DENSE_LIMIT`]) are scanned line by line
//! instead; there the prefilter would cost more than it saves.

use super::Tier;
use super::keys::{FileKeys, OldLine};
use crate::model::LineKind;
use aho_corasick::AhoCorasick;

/// Tokens shorter than this are too common to narrow the search.
const MIN_TOKEN: usize = 3;

/// File lines (0-based, sorted, distinct) where `line` may match under
/// `tier`; `None` when the file is small or the line has no usable key (the
/// caller then scans every line).
pub fn lines_matching(keys: &FileKeys, line: &OldLine, tier: Tier) -> Option<Vec<usize>> {
    if keys.is_dense() {
        return None;
    }
    let source = keys.source();
    let bytes = source.bytes();
    let mut hits: Vec<usize> = match tier {
        Tier::Exact => {
            if line.text.is_empty() {
                return None;
            }
            memchr::memmem::find_iter(bytes, line.text.as_bytes())
                .map(|off| source.line_of_offset(off))
                .filter(|&l| source.line(l) == line.text.as_bytes())
                .collect()
        }
        Tier::Resilient => {
            let token = resilient_token(&line.resilient)?;
            memchr::memmem::find_iter(bytes, token.as_bytes())
                .map(|off| source.line_of_offset(off))
                .collect()
        }
        Tier::Fuzzy | Tier::Structural | Tier::Similarity => {
            let token = word_token(&line.fuzzy)?;
            let finder = AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build([token])
                .ok()?;
            finder
                .find_iter(bytes)
                .map(|m| source.line_of_offset(m.start()))
                .collect()
        }
    };
    hits.dedup();
    Some(hits)
}

/// Old-side lines to search for, with their indexes: the most distinctive
/// removed line (it can never be left out of a match), or else the `spare`
/// most distinctive context lines, of which at least one survives when up to
/// `spare - 1` context lines may be dropped. Empty when no line has a key.
pub fn anchor_lines<'a, 'h>(
    old: &'a [OldLine<'h>],
    tier: Tier,
    spare: usize,
) -> Vec<(usize, &'a OldLine<'h>)> {
    let mut scored: Vec<(usize, usize, &OldLine)> = old
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            let len = match tier {
                Tier::Exact => l.text.trim().len(),
                Tier::Resilient => resilient_token(&l.resilient)?.len(),
                _ => word_token(&l.fuzzy)?.len(),
            };
            (len >= MIN_TOKEN).then_some((len, i, l))
        })
        .collect();
    scored.sort_by_key(|(len, i, _)| (usize::MAX - len, *i));
    if let Some(&(_, i, l)) = scored.iter().find(|(_, _, l)| l.kind == LineKind::Remove) {
        return vec![(i, l)];
    }
    scored
        .into_iter()
        .take(spare)
        .map(|(_, i, l)| (i, l))
        .collect()
}

/// Start lines of the old side for a tier: every hit of the anchor line,
/// moved back by the anchor's place in the hunk and widened by `before` and
/// `after` lines of slack. `None`: scan everything.
pub fn starts(
    keys: &FileKeys,
    old: &[OldLine],
    tier: Tier,
    before: usize,
    after: usize,
) -> Option<Vec<usize>> {
    if keys.is_dense() {
        return None;
    }
    let spare = if tier == Tier::Structural { 3 } else { 1 };
    let anchors = anchor_lines(old, tier, spare);
    if anchors.is_empty() {
        return None;
    }
    let mut out: Vec<usize> = Vec::new();
    for (index, line) in anchors {
        for hit in lines_matching(keys, line, tier)? {
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

fn resilient_token(key: &str) -> Option<&str> {
    let key = key
        .strip_suffix("...")
        .or_else(|| key.strip_suffix('\u{2026}'))
        .unwrap_or(key);
    key.split(' ')
        .max_by_key(|t| t.len())
        .filter(|t| t.len() >= MIN_TOKEN)
}

fn word_token(key: &str) -> Option<&str> {
    key.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .max_by_key(|t| t.len())
        .filter(|t| t.len() >= MIN_TOKEN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens() {
        assert_eq!(
            resilient_token("let total = sum(items);"),
            Some("sum(items);")
        );
        assert_eq!(resilient_token("a b"), None);
        assert_eq!(word_token("let total_count = 1"), Some("total_count"));
        assert_eq!(word_token("} ) ;"), None);
    }
}
