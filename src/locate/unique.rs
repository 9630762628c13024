//! The uniqueness argument of an applied hunk, checked in debug builds
//! (issue 14): no other place the same rules admit gives different bytes.
//!
//! Checked independently of how the decision was reached, by brute force
//! over every start line, for hunks nothing but their lines places (no
//! line number, no Codex anchor, no `*** End of File`, no `--at` pin, no
//! other hunk of the file with the same old side, which the in-order rule
//! may place):
//!
//! - placed by the exact tier: every place where the old side stands
//!   exactly gives the same result;
//! - placed by a more lenient tier: no place where the old side stands
//!   exactly gives another result (the ladder tries the exact tier first).
//!
//! Files whose lines times hunks exceed [`MAX_WORK`], or with more than
//! [`MAX_HUNKS`] hunks, are not checked.
//! A failure is a bug in the placement decision, never a property of the
//! input: the check panics, in debug builds and fuzz targets (`cfg(fuzzing)`)
//! only; release builds skip it.

use super::keys::{FileKeys, old_side};
use super::{HunkStatus, Located, Tier};
use crate::model::{Hunk, LineKind};

/// File lines times hunks above which the check is skipped.
const MAX_WORK: usize = 20_000_000;

/// Hunks per file above which the check is skipped (finding twins compares
/// every pair).
const MAX_HUNKS: usize = 1_000;

/// Checks the uniqueness argument of `loc`, the placement of `hunks[index]`
/// (debug builds and fuzz targets only).
pub(super) fn debug_check(
    keys: &FileKeys,
    hunks: &[Hunk],
    index: usize,
    loc: &Located,
    pinned: bool,
) {
    if !cfg!(any(debug_assertions, fuzzing)) || loc.status != HunkStatus::Applied || pinned {
        return;
    }
    let hunk = &hunks[index];
    let (n, m) = (keys.len(), hunk.old_len());
    // Bounded, so that debug builds of the large tests stay linear.
    if m == 0 || m > n || n.saturating_mul(hunks.len()) > MAX_WORK || hunks.len() > MAX_HUNKS {
        return;
    }
    let old: Vec<&str> = old_side(hunk).iter().map(|l| l.text).collect();
    let twin = hunks
        .iter()
        .enumerate()
        .any(|(i, h)| i != index && old_side(h).iter().map(|l| l.text).eq(old.iter().copied()));
    if hunk.line_hint.is_some() || !hunk.anchors.is_empty() || hunk.at_eof || twin {
        return;
    }
    let exact: Vec<usize> = (0..=n - m)
        .filter(|&i| (0..m).all(|k| keys.text(i + k) == old[k]))
        .collect();
    let rival = match loc.tier {
        Some(Tier::Exact) => exact
            .iter()
            .copied()
            .find(|&i| differs(keys, hunk, i, loc.start)),
        Some(_) => exact.iter().copied().find(|&i| i != loc.start),
        None => None,
    };
    assert!(
        rival.is_none(),
        "hunk {} placed at line {} ({:?}), but its old side stands exactly at line {} with another result",
        index + 1,
        loc.start + 1,
        loc.tier,
        rival.map_or(0, |r| r + 1)
    );
}

/// True when applying `hunk` exactly at `a` and at `b` gives different files.
fn differs(keys: &FileKeys, hunk: &Hunk, a: usize, b: usize) -> bool {
    if a == b {
        return false;
    }
    let m = hunk
        .lines
        .iter()
        .filter(|l| l.kind != LineKind::Add)
        .count();
    let (lo, hi) = (a.min(b), a.max(b) + m);
    let window = |at: usize| -> Vec<String> {
        let mut out: Vec<String> = (lo..at).map(|j| keys.text(j).into_owned()).collect();
        let mut j = at;
        for line in &hunk.lines {
            match line.kind {
                LineKind::Context => {
                    out.push(keys.text(j).into_owned());
                    j += 1;
                }
                LineKind::Remove => j += 1,
                LineKind::Add => out.push(line.text.to_string()),
            }
        }
        out.extend((j..hi).map(|j| keys.text(j).into_owned()));
        out
    };
    window(a) != window(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::HunkLine;
    use crate::source::SourceText;

    fn hunk(lines: &[(LineKind, &str)]) -> Hunk {
        Hunk {
            lines: lines.iter().map(|(k, t)| HunkLine::new(*k, *t)).collect(),
            ..Hunk::default()
        }
    }

    fn placed(start: usize, end: usize, tier: Tier) -> Located {
        Located {
            tier: Some(tier),
            ..super::super::fixed(0, start, end, HunkStatus::Applied)
        }
    }

    const FILE: &[u8] = b"a\nb\nx\na\nb\n";

    #[test]
    fn twins_with_different_results_are_caught() {
        let source = SourceText::new(FILE);
        let keys = FileKeys::new(&source, usize::MAX);
        let h = [hunk(&[(LineKind::Context, "a"), (LineKind::Remove, "b")])];
        assert!(differs(&keys, &h[0], 0, 3));
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            debug_check(&keys, &h, 0, &placed(0, 2, Tier::Exact), false)
        }));
        assert!(caught.is_err());
        // A lenient placement while the old side stands exactly elsewhere.
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            debug_check(&keys, &h, 0, &placed(2, 4, Tier::Fuzzy), false)
        }));
        assert!(caught.is_err());
    }

    #[test]
    fn a_unique_place_a_hint_or_a_pin_passes() {
        let source = SourceText::new(FILE);
        let keys = FileKeys::new(&source, usize::MAX);
        let unique = [hunk(&[(LineKind::Context, "x"), (LineKind::Remove, "a")])];
        debug_check(&keys, &unique, 0, &placed(2, 4, Tier::Exact), false);
        let twin = [hunk(&[(LineKind::Context, "a"), (LineKind::Remove, "b")])];
        debug_check(&keys, &twin, 0, &placed(0, 2, Tier::Exact), true);
        let hinted = [Hunk {
            line_hint: Some(1),
            ..twin[0].clone()
        }];
        debug_check(&keys, &hinted, 0, &placed(0, 2, Tier::Exact), false);
    }
}
