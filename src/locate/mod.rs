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
//! use git_fuzzy_apply::{MatchOptions, Tier};
//! use git_fuzzy_apply::{apply_to_text, ApplyOptions};
//!
//! let file = b"Hello World\n";
//! let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n-hello world\n+Hello, World!\n";
//! // Only the fuzzy tier (case-insensitive) finds the line.
//! let upto = |tier| ApplyOptions::default().with_matching(MatchOptions::default().with_max_tier(tier));
//! assert!(apply_to_text(patch, file, &upto(Tier::Resilient)).is_err());
//! assert_eq!(apply_to_text(patch, file, &upto(Tier::Fuzzy)).unwrap(), b"Hello, World!\n");
//! ```

mod accept;
mod addition;
mod anchors;
mod applied;
mod around;
mod as_written;
mod at_number;
mod blank_edge;
mod carried;
mod choose;
mod closeness;
mod decide;
mod deletion;
mod diagnose;
mod done_or_not;
mod end_marker;
mod evidence;
mod footprint;
pub(crate) mod indent;
mod insertion;
mod keys;
mod ladder;
mod lenient;
mod memo;
mod needles;
pub(crate) mod normalize;
mod numbered;
mod outcome;
mod overhang;
mod pins;
mod placed;
mod prefilter;
mod proposal;
mod proven;
mod respaced;
mod scope;
mod search;
mod twins;
mod unique;

pub(crate) use around::{added_lines, old_side_holds};
pub(crate) use as_written::locate_file;
pub(crate) use choose::HINT_WINDOW;
pub(crate) use outcome::{Failure, HunkStatus, Located};
pub use outcome::{MatchOptions, NearMatch, Normalization, Reason, Tier};
pub(crate) use pins::{Asker, Course, NO_LINE, Pins, Step, TRIED};
pub(crate) use proven::{is_blob, locate_known_file};
pub(crate) use scope::{block_end_by, enclosing_end_by};
pub(crate) use search::Slot;

use crate::model::Hunk;
use crate::source::SourceText;
use choose::{Choice, Hints, choose};
pub(crate) use footprint::Footprint;
use keys::{FileKeys, OldLine};
use memo::{Question, Scanned};
use numbered::{AdditionEvidence, insert_numbered_additions_again};
use search::{Candidate, Slack, contiguous, similar, structural};
use std::cell::OnceCell;
use std::ops::Range;

/// At most this many candidate lines of an ambiguous hunk are reported.
pub(crate) const MAX_CANDIDATES: usize = 100;

/// Locates every hunk of one file. Results are in hunk order. `pins` are
/// 0-based lines the user pinned ambiguous hunks to (`--at FILE:LINE`).
pub(crate) fn locate_hunks(
    source: &SourceText,
    hunks: &[Hunk],
    options: &MatchOptions,
    pins: &Pins,
) -> Vec<Result<Located, Failure>> {
    // Every line compared once per hunk costs lines × hunks: beyond the
    // limit a file of any size is searched through the prefilter.
    let searches = source.len().saturating_mul(hunks.len());
    let keys = FileKeys::new(source, options.prefilter_above_lines)
        .index_also_when(searches > options.prefilter_above_lines);
    if keys.is_indexed() {
        let lines = std::rc::Rc::clone(keys.patch_lines());
        keys.searches()
            .announce_later(move || prefilter::announcements(&lines, hunks));
    }
    let mut state = FileState {
        pins: pins.clone(),
        ..FileState::default()
    };
    let course = pins.recording();
    if let Some(course) = course {
        course.begin();
    }
    let mut results = Vec::with_capacity(hunks.len());
    let dividers_in_file =
        hunks.iter().any(|h| h.stray_divider.is_some()) && holds_divider_line(source);
    for (index, hunk) in hunks.iter().enumerate() {
        if let Some(line) = hunk.stray_divider.filter(|_| dividers_in_file) {
            results.push(Err(stray_divider_refused(index, line)));
            continue;
        }
        if hunk.starts_section {
            state.prev_end = 0;
            state.prev_tail = 0;
            state.offset = 0;
            state.done_offset = 0;
            state.done_drift = false;
        }
        let told = state.telling_additions.len();
        if let Some(course) = course {
            course.locating(Some(index));
        }
        let result = ladder::locate_one(&keys, hunks, index, hunk, &mut state, options);
        if let Some(course) = course {
            let file = (&keys, hunks, options);
            pins::try_suggestions(course, file, (index, hunk), &mut state, (&result, told));
            course.locating(None);
        }
        if let Ok(loc) = &result {
            unique::debug_check(&keys, hunks, index, loc, !pins.is_empty());
            state.record(hunk, index, loc, keys.len());
        }
        results.push(result);
    }
    placed::done_over_changes(&mut results, &state.placed);
    evidence::later_offsets_against_ties(hunks, &mut results, &state.ties.take());
    insert_numbered_additions_again(&keys, hunks, &mut results, &state);
    around::done_beside_fresh(hunks, &mut results, &state.done_around.take());
    end_marker::refuse_against_file(source, hunks, &mut results);
    results
}

/// True when a line of the file is 5 to 9 `=` and nothing else but
/// whitespace: a line a SEARCH/REPLACE block cannot carry unescaped, and
/// which this file holds as content (a Markdown or reStructuredText
/// underline, a separator).
fn holds_divider_line(source: &SourceText) -> bool {
    (0..source.len()).any(|i| {
        let t = source.line(i).trim_ascii();
        (5..=9).contains(&t.len()) && t.iter().all(|&b| b == b'=')
    })
}

/// The refusal of a block whose REPLACE ended with a second `=======`, read
/// as the reply's stray marker, in a file that holds such lines as content:
/// there the line may be meant as content.
fn stray_divider_refused(index: usize, line: usize) -> Failure {
    failure(
        index,
        Reason::Ambiguous,
        format!(
            "the `=======` at patch line {line}, right before `>>>>>>> REPLACE`, was read as a stray marker (the reply writes one in every block), but this file holds such lines as content: if it is content, write it as `\\=======`, otherwise drop it"
        ),
    )
}

/// `n` as a signed offset (line counts fit; larger values saturate).
fn signed(n: usize) -> isize {
    isize::try_from(n).unwrap_or(isize::MAX)
}

/// The 0-based line a 1-based line hint names after shifting it by
/// `offset`; `None` when it falls outside the file (a hint past the end is
/// no evidence of where the hunk belongs).
fn hint_line(hint: usize, offset: isize, n: usize) -> Option<usize> {
    let line = signed(hint.checked_sub(1)?).checked_add(offset)?;
    usize::try_from(line).ok().filter(|&l| l <= n)
}

#[derive(Default)]
struct FileState {
    pins: Pins,
    /// What each hunk placed so far changes, indexed by first line.
    placed: placed::Placed,
    prev_end: usize,
    /// The first file line of the previous hunk's last context lines
    /// (after its last change; `prev_end` when it has none): a Codex
    /// anchor standing there is a reading too (rule 13).
    prev_tail: usize,
    /// Where the hunks before put the line numbers of the next one, as
    /// the hunks that apply afresh found them.
    offset: isize,
    /// The same as [`FileState::offset`], reading the hunks found already
    /// applied as applied: their added lines shift the next ones.
    done_offset: isize,
    /// Pure additions found done with more to say: where `done_offset`
    /// puts them, not where `offset` does, or with unsure lines.
    telling_additions: Vec<(usize, AdditionEvidence)>,
    /// True once a hunk found already applied stood elsewhere than its
    /// line number, read with `done_offset`, says.
    done_drift: bool,
    /// True once a hunk of the file appends at its end afresh: a later
    /// append goes after those lines, so lines like its own standing
    /// before the end are not it, done.
    appended: bool,
    /// What the hunks before each hunk add and remove, as written
    /// (`written_delta[i]` for hunk `i`): made once per file, on the first
    /// hunk with a new-side start.
    written_delta: OnceCell<Vec<isize>>,
    /// Where the Codex anchors asked for so far stand.
    anchor_lines: scope::AnchorLines,
    /// Hunks placed on one of several equally good candidates because
    /// their line number pointed at it; weighed again against the offsets
    /// of the hunks after them once the file is located. Noted from inside
    /// the ladder, which sees the state only shared.
    ties: std::cell::RefCell<Vec<evidence::SettledTie>>,
    /// The file's hunks grouped by old side, made on the first tie.
    twins: OnceCell<twins::Twins>,
    /// Hunks found done around their old side, noted from the ladder.
    done_around: std::cell::RefCell<Vec<around::DoneAround>>,
}

impl FileState {
    /// What the hunks before hunk `index` of `hunks` add and remove.
    fn written_delta(&self, hunks: &[Hunk], index: usize) -> isize {
        let deltas = self.written_delta.get_or_init(|| {
            let mut sum = 0isize;
            hunks
                .iter()
                .map(|h| {
                    let before = sum;
                    sum += h.new_lines().count() as isize - h.old_len() as isize;
                    before
                })
                .collect()
        });
        deltas.get(index).copied().unwrap_or(0)
    }

    /// Takes in hunk `index`, located at `loc` in a file of `n` lines: what
    /// it changes, where the next hunk's search starts, and how its line
    /// numbers are shifted (afresh, and reading the hunks found done as
    /// done).
    fn record(&mut self, hunk: &Hunk, index: usize, loc: &Located, n: usize) {
        if loc.status == HunkStatus::Applied {
            let footprint = Footprint::of(hunk, loc.start, loc.end, &loc.slots);
            self.placed.push(footprint, index);
        }
        if loc.status != HunkStatus::NoOp {
            self.prev_end = loc.end;
            self.prev_tail = scope::trailing_context_start(hunk, loc);
        }
        let pure = hunk.old_len() == 0;
        if loc.status == HunkStatus::Applied && pure && hunk.anchors.is_empty() && loc.start == n {
            self.appended = true;
        }
        let Some(expected) = evidence::expected_line(hunk) else {
            return;
        };
        match loc.status {
            HunkStatus::Applied => {
                self.offset = signed(loc.start) - signed(expected);
                self.done_offset = self.offset;
            }
            HunkStatus::AlreadyApplied => {
                // Done, its new side ends where its old side would: the
                // lines after it are shifted by what it added.
                let at = signed(expected).saturating_add(self.done_offset);
                self.done_drift |= signed(loc.start) != at;
                self.done_offset =
                    signed(loc.end) - signed(expected.saturating_add(hunk.old_len()));
            }
            _ => {}
        }
    }

    /// Notes that hunk `index` took candidate `chosen` of `cands` among
    /// equally good ones, by its line number.
    fn note_tie(&self, index: usize, cands: &[Candidate], chosen: usize) {
        let best = cands[chosen].quality();
        let mut starts: Vec<usize> = cands
            .iter()
            .filter(|c| c.quality() == best)
            .map(|c| c.start)
            .collect();
        if starts.len() > 1 {
            starts.sort_unstable();
            self.ties.borrow_mut().push(evidence::SettledTie {
                index,
                chosen: cands[chosen].start,
                starts,
            });
        }
    }

    /// The first placed hunk that `footprint` conflicts with (changes the
    /// same original lines: see [`Footprint::conflicts`]).
    fn overlapping(&self, footprint: &Footprint) -> Option<usize> {
        self.placed.overlapping(footprint)
    }
}

/// A failure with nothing but its reason and message.
fn failure(index: usize, reason: Reason, message: String) -> Failure {
    Failure {
        hunk: index,
        reason,
        message,
        candidates: Vec::new(),
        tie: None,
        near: None,
    }
}

/// An `ambiguous` failure listing the candidates' first lines (0-based in
/// `starts`); `why` replaces the usual explanation.
fn ambiguous(
    index: usize,
    starts: &[usize],
    tie: Option<(Tier, f64)>,
    why: Option<String>,
) -> Failure {
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
    let message = why.unwrap_or_else(|| {
        format!(
            "the hunk matches {} places equally well (lines {list}) and nothing points at one; add a line number or more context",
            starts.len()
        )
    });
    Failure {
        candidates: lines,
        tie,
        ..failure(index, Reason::Ambiguous, message)
    }
}

/// The common case, cheaply: an exact match near the line hint that the full
/// search would choose too. Equally good (exact) candidates farther than
/// twice the distance plus two cannot outrank it (see `choose::points_at`),
/// so looking within that radius is enough. `None` sends the hunk down the
/// whole ladder.
fn exact_near_hint(
    keys: &FileKeys,
    index: usize,
    hunk: &Hunk,
    old: &[OldLine],
    hints: &Hints,
    state: &FileState,
) -> Option<Candidate> {
    let line = hints.line?;
    if hints.raw_line != Some(line)
        || hints.second_readings().any(|l| l != line)
        || hints.anchors.is_some()
        || hints.at_eof
        || hints.ends_file
        || !hints.pins.is_empty()
    {
        return None;
    }
    let radius = 2 * HINT_WINDOW + 2;
    let from = line.saturating_sub(radius);
    let to = (line + radius + 1).min(keys.len());
    let mut cands = contiguous(keys, old, Tier::Exact, from..to);
    match choose(&cands, hints, keys.len()) {
        // Only a candidate the hint really points at: a lone candidate in
        // the window far from the hint may have a twin outside it; and one
        // the section heading does not contradict.
        Choice::One(c)
            if cands[c].start.abs_diff(line) <= HINT_WINDOW
                && evidence::heading_veto(keys, hunk, 0, hints, &cands, c).is_none()
                && state
                    .overlapping(&Footprint::of(
                        hunk,
                        cands[c].start,
                        cands[c].end,
                        &cands[c].slots,
                    ))
                    .is_none() =>
        {
            if cands.len() > 1 {
                state.note_tie(index, &cands, c);
            }
            Some(cands.swap_remove(c))
        }
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
    let question = match tier {
        Tier::Similarity => match similarity_range(hints, n, old.len(), options) {
            Some(range) => Question::similar(range, options.similarity_threshold),
            None => return Vec::new(),
        },
        _ => Question::Tier(tier),
    };
    let asked = (keys::side_lines(old), question.clone());
    memo::answer(keys.source(), asked, || {
        let (found, lines) = search_tier_afresh(keys, old, tier, &question);
        Scanned {
            places: found.len(),
            found,
            lines,
        }
    })
}

/// [`search_tier`] without the memo: the candidates, and how many start
/// lines were scanned. `question` holds the similarity tier's range.
fn search_tier_afresh(
    keys: &FileKeys,
    old: &[OldLine],
    tier: Tier,
    question: &Question,
) -> (Vec<Candidate>, usize) {
    let n = keys.len();
    match (tier, question) {
        (Tier::Exact | Tier::Resilient | Tier::Fuzzy, _) => {
            match prefilter::starts(keys, old, tier, 0, 0) {
                Some(starts) => {
                    let scanned = starts.len();
                    (contiguous(keys, old, tier, starts), scanned)
                }
                None => (contiguous(keys, old, tier, 0..n), n),
            }
        }
        // Slack moves the start by up to two skipped lines one way and five
        // dropped or blank lines the other.
        (Tier::Structural, _) => match prefilter::starts(keys, old, tier, 2, 5) {
            Some(starts) => {
                let scanned = starts.len();
                (structural(keys, old, starts, Slack::default()), scanned)
            }
            None => (structural(keys, old, 0..n, Slack::default()), n),
        },
        (Tier::Similarity, Question::Similar { range, threshold }) => (
            similar(keys, old, range.clone(), f64::from_bits(*threshold)),
            range.len(),
        ),
        (Tier::Similarity, _) => (Vec::new(), 0),
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
        let first = anchors.first().unwrap_or(0);
        return Some(first..n);
    }
    (n <= options.similarity_scan_limit).then_some(0..n)
}
