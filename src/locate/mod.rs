//! Locating hunks in a file: the tier ladder.
//!
//! Each hunk's old side (context and removed lines) is searched tier by tier,
//! strictest first; a tier is tried only when the stricter ones found nothing:
//!
//! 1. [`Tier::Exact`]: byte for byte;
//! 2. [`Tier::Resilient`]: whitespace, Markdown headings, truncated lines;
//! 3. [`Tier::Fuzzy`]: also case, punctuation, quotes, backticks;
//! 4. [`Tier::Structural`]: fuzzy lines with bounded slack (blank context,
//!    omitted structural lines, dropped context, EOF overhang);
//! 5. [`Tier::Similarity`]: Levenshtein ratio of the block, removed lines
//!    still required.
//!
//! All hunks are located against the original file, never against a
//! half-edited one, so their order in the patch does not matter; hunks may not
//! overlap. See `docs/matching.md` for the rules and why.
//!
//! ```
//! use git_fuzzy_apply::locate::{MatchOptions, Tier};
//! use git_fuzzy_apply::{apply_to_text, ApplyOptions};
//!
//! let file = b"Hello World\n";
//! let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n-hello world\n+Hello, World!\n";
//! // Only the fuzzy tier (case-insensitive) finds the line.
//! let upto = |max_tier| ApplyOptions {
//!     matching: MatchOptions { max_tier, ..MatchOptions::default() },
//!     ..ApplyOptions::default()
//! };
//! assert!(apply_to_text(patch, file, &upto(Tier::Resilient)).is_err());
//! assert_eq!(apply_to_text(patch, file, &upto(Tier::Fuzzy)).unwrap(), b"Hello, World!\n");
//! ```

mod choose;
mod diagnose;
mod keys;
pub(crate) mod normalize;
mod outcome;
mod prefilter;
mod search;

pub(crate) use choose::HINT_WINDOW;
pub(crate) use outcome::{Failure, HunkStatus, Located};
pub use outcome::{MatchOptions, NearMatch, Normalization, Reason, Tier};
pub(crate) use search::Slot;

use crate::model::{Hunk, LineKind};
use crate::source::SourceText;
use choose::{Choice, Hints, choose};
use keys::{FileKeys, OldLine, new_side, old_side};
use search::{Candidate, Slack, contiguous, similar, structural};
use std::borrow::Cow;
use std::ops::Range;

/// At most this many candidate lines of an ambiguous hunk are reported.
pub(crate) const MAX_CANDIDATES: usize = 100;

/// Locates the hunks of one file, trying first the lines of hunks whose
/// line-number prefixes were stripped exactly as written (when they all
/// place, the file really has those numbers). Returns the hunks used.
pub(crate) fn locate_file<'h>(
    source: &SourceText,
    hunks: &'h [Hunk],
    options: &MatchOptions,
    pins: &[usize],
) -> (Cow<'h, [Hunk]>, Vec<Result<Located, Failure>>) {
    if hunks.iter().any(|h| h.as_written.is_some()) {
        let written: Vec<Hunk> = hunks
            .iter()
            .map(|h| Hunk {
                lines: h.as_written.clone().unwrap_or_else(|| h.lines.clone()),
                as_written: None,
                ..h.clone()
            })
            .collect();
        let results = locate_hunks(source, &written, options, pins);
        if results.iter().all(Result::is_ok) {
            return (Cow::Owned(written), results);
        }
    }
    (
        Cow::Borrowed(hunks),
        locate_hunks(source, hunks, options, pins),
    )
}

/// Locates every hunk of one file. Results are in hunk order. `pins` are
/// 0-based lines the user pinned ambiguous hunks to (`--at FILE:LINE`).
pub(crate) fn locate_hunks(
    source: &SourceText,
    hunks: &[Hunk],
    options: &MatchOptions,
    pins: &[usize],
) -> Vec<Result<Located, Failure>> {
    let keys = FileKeys::new(source, options.prefilter_above_lines);
    if !keys.is_dense() {
        keys.announce(
            hunks
                .iter()
                .flat_map(|h| prefilter::anchors_of(&keys::old_side(h)))
                .collect(),
        );
    }
    let mut state = FileState {
        pins: pins.to_vec(),
        ..FileState::default()
    };
    let mut results = Vec::with_capacity(hunks.len());
    for (index, hunk) in hunks.iter().enumerate() {
        let result = locate_one(&keys, hunks, index, hunk, &mut state, options);
        if let Ok(loc) = &result {
            if loc.status == HunkStatus::Applied {
                state.placed.push((loc.start..loc.end, index));
            }
            if loc.status != HunkStatus::NoOp {
                state.prev_end = loc.end;
            }
            if let Some(hint) = hunk.line_hint {
                // A pure addition's hint is the line it goes after, its
                // place: no `- 1` (as where it is placed, below).
                let first = if hunk.old_len() == 0 {
                    hint
                } else {
                    hint.saturating_sub(1)
                };
                state.offset = loc.start as isize - first as isize;
            }
        }
        results.push(result);
    }
    results
}

#[derive(Default)]
struct FileState {
    pins: Vec<usize>,
    placed: Vec<(Range<usize>, usize)>,
    prev_end: usize,
    offset: isize,
}

impl FileState {
    fn overlapping(&self, start: usize, end: usize) -> Option<usize> {
        self.placed.iter().find_map(|(r, hunk)| {
            let overlaps = if start == end {
                r.start < start && start < r.end
            } else {
                start < r.end && r.start < end
            };
            overlaps.then_some(*hunk)
        })
    }
}

fn locate_one(
    keys: &FileKeys,
    hunks: &[Hunk],
    index: usize,
    hunk: &Hunk,
    state: &mut FileState,
    options: &MatchOptions,
) -> Result<Located, Failure> {
    let n = keys.len();
    let fail = |reason: Reason, message: String| Failure {
        hunk: index,
        reason,
        message,
        candidates: Vec::new(),
        tie: None,
        near: None,
    };
    let anchors = if hunk.anchors.is_empty() {
        None
    } else {
        Some(
            resolve_anchors(keys, &hunk.anchors, state.prev_end).map_err(|a| {
                fail(
                    Reason::ContextNotFound,
                    format!("the `@@ {a}` anchor is not in the file"),
                )
            })?,
        )
    };
    let hints = Hints {
        line: hunk
            .line_hint
            .map(|l| (l.saturating_sub(1) as isize + state.offset).clamp(0, n as isize) as usize),
        anchors,
        at_eof: hunk.at_eof,
        pins: state.pins.clone(),
    };
    let old = old_side(hunk);
    if hunk.is_noop() && !old.is_empty() {
        return Ok(fixed(index, 0, 0, HunkStatus::NoOp));
    }
    if old.is_empty() {
        return place_pure_addition(keys, hunk, index, &hints, state).map_err(
            |(reason, message, candidates)| Failure {
                candidates,
                ..fail(reason, message)
            },
        );
    }
    if let Some(found) = exact_near_hint(keys, &old, &hints, state) {
        return Ok(located(index, hunk, Tier::Exact, found));
    }
    let mut overlap_with = None;
    // Where the hunk's context stands exactly with its removed lines gone
    // (found before the tiers that forgive context).
    let mut stale: Option<Range<usize>> = None;
    // The removed lines are gone from where the context stands: done already
    // if the new lines stand exactly there, stale otherwise.
    let stale_or_applied = |site: Range<usize>, state: &FileState| match already_applied(
        keys, hunk, index, &hints, state,
    ) {
        Some(loc) if loc.start < site.end && site.start < loc.end => Ok(loc),
        _ => Err(diagnose::stale_failure(keys, &old, index, site)),
    };
    for tier in Tier::LADDER {
        if tier > options.max_tier {
            break;
        }
        if tier == Tier::Structural {
            stale = diagnose::stale_site(keys, &old, &hints);
        }
        if tier == Tier::Similarity {
            if let Some(site) = stale.take() {
                return stale_or_applied(site, state);
            }
            if let Some(loc) = already_applied(keys, hunk, index, &hints, state) {
                return Ok(loc);
            }
        }
        let mut cands = search_tier(keys, &old, tier, &hints, options);
        cands.retain(|c| {
            let hit = state.overlapping(c.start, c.end);
            if hit.is_some() {
                overlap_with = hit;
            }
            hit.is_none()
        });
        // A lenient match away from where the context stands exactly is a
        // look-alike block: it must not be edited instead.
        if let Some(site) = &stale {
            cands.retain(|c| c.start < site.end && site.start < c.end.max(c.start + 1));
            if cands.is_empty() {
                return stale_or_applied(site.clone(), state);
            }
        }
        if cands.is_empty() {
            continue;
        }
        match choose(&cands, &hints, n) {
            Choice::One(c) => return Ok(located(index, hunk, tier, cands.swap_remove(c))),
            Choice::Nothing => continue,
            Choice::Ambiguous(starts) => {
                if let Some(pick) = in_order_pick(hunks, index, &starts)
                    && let Some(c) = cands.iter().position(|c| c.start == pick)
                {
                    return Ok(located(index, hunk, tier, cands.swap_remove(c)));
                }
                let lines: Vec<usize> = starts.iter().take(MAX_CANDIDATES).map(|s| s + 1).collect();
                let mut list = lines
                    .iter()
                    .take(10)
                    .map(|l| l.to_string())
                    .collect::<Vec<_>>()
                    .join(", ");
                if starts.len() > 10 {
                    list.push_str(&format!(", and {} more", starts.len() - 10));
                }
                let score = cands.first().map_or(1.0, |c| c.similarity);
                return Err(Failure {
                    candidates: lines,
                    tie: Some((tier, score)),
                    ..fail(
                        Reason::Ambiguous,
                        format!(
                            "the hunk matches {} places equally well (lines {list}) and nothing points at one; add a line number or more context",
                            starts.len()
                        ),
                    )
                });
            }
        }
    }
    if let Some(site) = stale {
        return stale_or_applied(site, state);
    }
    if let Some(loc) = already_applied(keys, hunk, index, &hints, state) {
        return Ok(loc);
    }
    if let Some(other) = overlap_with {
        return Err(fail(
            Reason::Overlap,
            format!("the hunk's only match overlaps hunk {}", other + 1),
        ));
    }
    Err(diagnose::diagnose(keys, &old, index, &hints, options))
}

/// The common case, cheaply: an exact match near the line hint that the full
/// search would choose too. Equally good (exact) candidates farther than
/// twice the distance plus two cannot outrank it (see `choose::points_at`),
/// so looking within that radius is enough. `None` sends the hunk down the
/// whole ladder.
fn exact_near_hint(
    keys: &FileKeys,
    old: &[OldLine],
    hints: &Hints,
    state: &FileState,
) -> Option<Candidate> {
    let line = hints.line?;
    if hints.anchors.is_some() || hints.at_eof || !hints.pins.is_empty() {
        return None;
    }
    let radius = 2 * HINT_WINDOW + 2;
    let from = line.saturating_sub(radius);
    let to = (line + radius + 1).min(keys.len());
    let mut cands = contiguous(keys, old, Tier::Exact, from..to);
    cands.retain(|c| state.overlapping(c.start, c.end).is_none());
    match choose(&cands, hints, keys.len()) {
        Choice::One(c) => Some(cands.swap_remove(c)),
        _ => None,
    }
}

fn fixed(hunk: usize, start: usize, end: usize, status: HunkStatus) -> Located {
    Located {
        hunk,
        start,
        end,
        slots: Vec::new(),
        tier: None,
        normalizations: Vec::new(),
        similarity: 1.0,
        status,
    }
}

fn located(index: usize, hunk: &Hunk, tier: Tier, cand: Candidate) -> Located {
    let mut normalizations = cand.normalizations;
    if hunk.line_hint.is_some_and(|hint| cand.start + 1 != hint) {
        normalizations.insert(0, Normalization::ReanchoredHeader);
    }
    Located {
        hunk: index,
        start: cand.start,
        end: cand.end,
        slots: cand.slots,
        tier: Some(tier),
        normalizations,
        similarity: cand.similarity,
        status: HunkStatus::Applied,
    }
}

type PlaceError = (Reason, String, Vec<usize>);

/// A hunk with no old lines goes after its anchor, at its line hint, or at the end.
fn place_pure_addition(
    keys: &FileKeys,
    hunk: &Hunk,
    index: usize,
    hints: &Hints,
    state: &FileState,
) -> Result<Located, PlaceError> {
    let n = keys.len();
    let at = if let Some(anchors) = &hints.anchors {
        match anchors.as_slice() {
            [one] => one + 1,
            many => {
                let lines: Vec<usize> = many.iter().map(|a| a + 1).collect();
                return Err((
                    Reason::Ambiguous,
                    format!(
                        "the `@@` anchor matches {} lines; name a more specific one",
                        many.len()
                    ),
                    lines,
                ));
            }
        }
    } else if hunk.at_eof || hunk.line_hint.is_none() {
        n
    } else {
        // `@@ -a,0 +c,d @@` inserts after line a.
        let hint = hunk.line_hint.unwrap_or(0) as isize + state.offset;
        hint.clamp(0, n as isize) as usize
    };
    if let Some(start) = addition_present(keys, hunk, at) {
        return Ok(fixed(
            index,
            start,
            start + hunk.lines.len(),
            HunkStatus::AlreadyApplied,
        ));
    }
    if let Some(other) = state.overlapping(at, at) {
        return Err((
            Reason::Overlap,
            format!("the insertion point overlaps hunk {}", other + 1),
            Vec::new(),
        ));
    }
    Ok(Located {
        tier: None,
        ..fixed(index, at, at, HunkStatus::Applied)
    })
}

/// The first line of a copy of a pure addition's lines right after or right
/// before its insertion point, when they are there already.
fn addition_present(keys: &FileKeys, hunk: &Hunk, at: usize) -> Option<usize> {
    let added = new_side(hunk);
    let k = added.len();
    if added.iter().all(|l| normalize::is_structural(l.text)) {
        return None;
    }
    let fits = |start: usize| {
        start + k <= keys.len()
            && added.iter().enumerate().all(|(i, l)| {
                keys.compare(Tier::Resilient, start + i, l) != normalize::LineMatch::No
            })
    };
    [Some(at), at.checked_sub(k)]
        .into_iter()
        .flatten()
        .find(|&s| fits(s))
}

/// Searches one tier: the whole file for the line-by-line tiers, around the
/// line hint (or the whole file when it is small) for similarity.
fn search_tier(
    keys: &FileKeys,
    old: &[OldLine],
    tier: Tier,
    hints: &Hints,
    options: &MatchOptions,
) -> Vec<Candidate> {
    let n = keys.len();
    match tier {
        Tier::Exact | Tier::Resilient | Tier::Fuzzy => {
            match prefilter::starts(keys, old, tier, 0, 0) {
                Some(starts) => contiguous(keys, old, tier, starts),
                None => contiguous(keys, old, tier, 0..n),
            }
        }
        // Slack moves the start by up to two skipped lines one way and five
        // dropped or blank lines the other.
        Tier::Structural => match prefilter::starts(keys, old, tier, 2, 5) {
            Some(starts) => structural(keys, old, starts, Slack::default()),
            None => structural(keys, old, 0..n, Slack::default()),
        },
        Tier::Similarity => match similarity_range(hints, n, old.len(), options) {
            Some(range) => similar(keys, old, range, options.similarity_threshold),
            None => Vec::new(),
        },
    }
}

fn similarity_range(
    hints: &Hints,
    n: usize,
    m: usize,
    options: &MatchOptions,
) -> Option<Range<usize>> {
    if let Some(line) = hints.line {
        return Some(line.saturating_sub(HINT_WINDOW)..(line + HINT_WINDOW + m).min(n));
    }
    if let Some(anchors) = &hints.anchors {
        let first = anchors.iter().copied().min().unwrap_or(0);
        return Some(first..n);
    }
    (n <= options.similarity_scan_limit).then_some(0..n)
}

/// Finds the lines (0-based) of the innermost anchor, each anchor searched
/// at or after the previous one and after the previous hunk (Codex's
/// sequential seek). Returns the anchor text that was not found on failure.
fn resolve_anchors(keys: &FileKeys, anchors: &[String], from: usize) -> Result<Vec<usize>, String> {
    let mut positions = vec![from];
    for anchor in anchors {
        let probe = OldLine::new(LineKind::Context, anchor);
        let mut next = Vec::new();
        for tier in [Tier::Exact, Tier::Resilient, Tier::Fuzzy] {
            let lines = prefilter::lines_matching(keys, &probe, tier)
                .unwrap_or_else(|| (0..keys.len()).collect());
            for &p in &positions {
                for j in lines.iter().copied().filter(|&j| j >= p) {
                    if keys.compare(tier, j, &probe) != normalize::LineMatch::No {
                        if !next.contains(&j) {
                            next.push(j);
                        }
                        if anchors.len() > 1 {
                            break;
                        }
                    }
                }
            }
            if !next.is_empty() {
                break;
            }
        }
        if next.is_empty() {
            return Err(anchor.clone());
        }
        next.sort_unstable();
        positions = next;
    }
    Ok(positions)
}

/// When several identical hunks each match one of several identical places,
/// the k-th such hunk takes the k-th place.
fn in_order_pick(hunks: &[Hunk], index: usize, starts: &[usize]) -> Option<usize> {
    fn key(h: &Hunk) -> Vec<(LineKind, &str)> {
        h.lines
            .iter()
            .filter(|l| l.is_old())
            .map(|l| (l.kind, l.text.as_str()))
            .collect()
    }
    let mine = key(&hunks[index]);
    let twins: Vec<usize> = (0..hunks.len())
        .filter(|&i| hunks[i].anchors.is_empty() && key(&hunks[i]) == mine)
        .collect();
    if twins.len() != starts.len() || twins.len() < 2 {
        return None;
    }
    let rank = twins.iter().position(|&i| i == index)?;
    starts.get(rank).copied()
}

/// A hunk whose old side is gone but whose new side stands where it belongs
/// has already been applied.
fn already_applied(
    keys: &FileKeys,
    hunk: &Hunk,
    index: usize,
    hints: &Hints,
    state: &FileState,
) -> Option<Located> {
    let new = new_side(hunk);
    let telling_addition = hunk
        .lines
        .iter()
        .any(|l| l.kind == LineKind::Add && !normalize::is_structural(&l.text));
    // Without an added line to recognise, only a deletion framed by context on
    // both sides can be seen to be done: the two sides must now touch.
    let recognisable = telling_addition || (new.len() >= 2 && framed_deletion(hunk));
    if !recognisable {
        return None;
    }
    for tier in [Tier::Exact, Tier::Resilient, Tier::Fuzzy] {
        let mut cands = match prefilter::starts(keys, &new, tier, 0, 0) {
            Some(starts) => contiguous(keys, &new, tier, starts),
            None => contiguous(keys, &new, tier, 0..keys.len()),
        };
        cands.retain(|c| state.overlapping(c.start, c.end).is_none());
        if cands.is_empty() {
            continue;
        }
        return match choose(&cands, hints, keys.len()) {
            Choice::One(c) => Some(Located {
                tier: Some(tier),
                ..fixed(
                    index,
                    cands[c].start,
                    cands[c].end,
                    HunkStatus::AlreadyApplied,
                )
            }),
            _ => None,
        };
    }
    None
}

/// True when non-blank context stands both before the first removed line and
/// after the last one.
fn framed_deletion(hunk: &Hunk) -> bool {
    let solid =
        |l: &crate::model::HunkLine| l.kind == LineKind::Context && !l.text.trim().is_empty();
    let first = hunk.lines.iter().position(|l| l.kind == LineKind::Remove);
    let last = hunk.lines.iter().rposition(|l| l.kind == LineKind::Remove);
    match (first, last) {
        (Some(f), Some(l)) => {
            hunk.lines[..f].iter().any(solid) && hunk.lines[l + 1..].iter().any(solid)
        }
        _ => false,
    }
}
