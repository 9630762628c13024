//! Identical hunks at identical places: the k-th such hunk takes the
//! k-th place when no byte depends on which takes which, or their line
//! numbers rise in patch order (docs/matching.md, "identical hunks").

use crate::model::{Hunk, LineKind};
use std::cell::OnceCell;
use std::collections::HashMap;

/// When several identical hunks each match one of several identical places,
/// the k-th such hunk takes the k-th place, when no byte depends on which
/// takes which (their new sides are identical too: a block written once
/// per place) or their line numbers say they are that many edits in that
/// order (every one carries a number and the numbers rise in patch
/// order). Two blocks with the same old side and different new sides and
/// no numbers say nothing of which place each is for: ambiguous.
/// (`twins`: the file's hunks grouped by old side, made once per file: a
/// scan of every hunk per tie made a patch of ties quadratic.)
pub(super) fn in_order_pick(
    hunks: &[Hunk],
    index: usize,
    starts: &[usize],
    twins: &OnceCell<Twins>,
) -> Option<usize> {
    let twins = twins.get_or_init(|| Twins::of(hunks));
    let group = twins.members.get((*twins.group.get(index)?)?)?;
    if group.len() != starts.len() || group.len() < 2 {
        return None;
    }
    let text = |h: &Hunk| {
        h.new_lines()
            .map(|l| l.text.to_string())
            .collect::<Vec<_>>()
    };
    let mine = text(&hunks[index]);
    let same_bytes = group.iter().all(|&i| text(&hunks[i]) == mine);
    let numbers: Option<Vec<usize>> = group.iter().map(|&i| hunks[i].line_hint).collect();
    let numbered = numbers.is_some_and(|n| n.windows(2).all(|w| w[0] < w[1]));
    if !same_bytes && !numbered {
        return None;
    }
    let rank = group.iter().position(|&i| i == index)?;
    starts.get(rank).copied()
}

/// The hunks of a file without Codex anchors, grouped by their old side
/// (each old line's text, and whether it is removed).
#[derive(Default)]
pub(super) struct Twins {
    /// Each hunk's group (`None` for a hunk with anchors).
    group: Vec<Option<usize>>,
    /// Each group's hunks, in order.
    members: Vec<Vec<usize>>,
}

impl Twins {
    fn of(hunks: &[Hunk]) -> Self {
        let mut by_side: HashMap<Vec<(bool, &str)>, usize> = HashMap::new();
        let mut twins = Twins::default();
        for (i, h) in hunks.iter().enumerate() {
            if !h.anchors.is_empty() {
                twins.group.push(None);
                continue;
            }
            let side: Vec<(bool, &str)> = h
                .lines
                .iter()
                .filter(|l| l.is_old())
                .map(|l| (l.kind == LineKind::Remove, l.text.as_str()))
                .collect();
            let next = twins.members.len();
            let g = *by_side.entry(side).or_insert(next);
            if g == next {
                twins.members.push(Vec::new());
            }
            twins.members[g].push(i);
            twins.group.push(Some(g));
        }
        twins
    }
}
