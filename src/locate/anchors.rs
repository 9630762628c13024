//! Codex `@@` anchors: where the innermost anchor of a hunk stands, each
//! anchor sought after the one before it (Codex's sequential seek).

use super::keys::FileKeys;
use super::scope::{self, Anchors};
use super::{FileState, Tier};
use std::ops::Range;

/// Finds the lines (0-based) of the innermost anchor, each anchor searched
/// at or after the previous one and after the previous hunk (Codex's
/// sequential seek). An inner anchor is sought in the block the anchor
/// before it opens (`scope::block_end`); found there only with tolerance
/// while an exact occurrence stands past that block, both are readings.
/// Where each anchor text stands is found once per file
/// (`FileState::anchor_lines`). Returns why an anchor was not found on
/// failure.
pub(super) fn resolve_anchors(
    keys: &FileKeys,
    anchors: &[String],
    state: &FileState,
) -> Result<Anchors, String> {
    let from = state.prev_end;
    let mut positions = None;
    for (k, anchor) in anchors.iter().enumerate() {
        let lines = |tier: Tier| state.anchor_lines.lines(keys, anchor, tier);
        let next = match &positions {
            None => first_anchor(lines, from, anchors.len() > 1),
            Some(outer) => {
                let outer: &Anchors = outer;
                let mut next = Vec::new();
                let mut outside = None;
                for &o in outer.lines() {
                    match inner_anchor(keys, lines, o) {
                        Ok(found) => next.extend(found),
                        Err(beyond) => outside = outside.or(Some((o, beyond))),
                    }
                }
                if let (true, Some((o, beyond))) = (next.is_empty(), outside) {
                    let end = scope::block_end(keys, o).unwrap_or(keys.len());
                    let past = beyond.map_or(String::new(), |j| {
                        format!("; it stands at line {}, past that block", j + 1)
                    });
                    return Err(format!(
                        "the `@@ {anchor}` anchor is not in the block `@@ {}` opens (lines {}-{}){past}",
                        anchors[k - 1],
                        o + 1,
                        end
                    ));
                }
                Anchors::of(keys, next)
            }
        };
        if next.is_empty() {
            return Err(format!("the `@@ {anchor}` anchor is not in the file"));
        }
        positions = Some(next);
    }
    Ok(positions.unwrap_or_else(|| Anchors::of(keys, vec![from])))
}

/// The lines at or after `from` that hold the outermost anchor (`lines`:
/// where it stands under a tier), in the strictest tier that finds any
/// (only the first when `first_only`).
fn first_anchor(lines: impl Fn(Tier) -> Anchors, from: usize, first_only: bool) -> Anchors {
    for tier in [Tier::Exact, Tier::Resilient, Tier::Fuzzy] {
        let tail = lines(tier).tail(from);
        if !tail.is_empty() {
            return if first_only { tail.first_only() } else { tail };
        }
    }
    Anchors::default()
}

/// The first line at or after `outer` holding the inner anchor (`lines`:
/// where it stands under a tier) within the block `outer` opens (the rest
/// of the file when it opens none), in the strictest tier that finds one;
/// with the first exact occurrence past the block too when the one inside
/// is found only with tolerance. `Err` with the first occurrence past the
/// block, if any, when the block holds none.
fn inner_anchor(
    keys: &FileKeys,
    lines: impl Fn(Tier) -> Anchors,
    outer: usize,
) -> Result<Vec<usize>, Option<usize>> {
    let n = keys.len();
    let end = scope::block_end(keys, outer).unwrap_or(n);
    let first_in = |tier: Tier, range: Range<usize>| lines(tier).first_in(range);
    let tiers = [Tier::Exact, Tier::Resilient, Tier::Fuzzy];
    let inside = tiers
        .iter()
        .find_map(|&t| first_in(t, outer..end).map(|j| (t, j)));
    match inside {
        Some((Tier::Exact, j)) => Ok(vec![j]),
        Some((_, j)) => Ok(std::iter::once(j)
            .chain(first_in(Tier::Exact, end..n))
            .collect()),
        None if end == n => Ok(Vec::new()),
        None => Err(tiers.iter().find_map(|&t| first_in(t, end..n))),
    }
}
