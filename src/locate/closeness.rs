//! How closely a candidate's file lines read the patch's old lines, line
//! by line, finer than a tier does: a tier reads a line as matching or
//! not, so two candidates of one tier tie even when one of them needs
//! more of the tier's tolerance than the other (a `;` the fuzzy key drops
//! against a line that has it, a truncated fragment against the whole
//! line, `### Usage` against `## Usage` for `##  Usage`). A line number
//! settles such a tie (`choose`); when the candidate it picks reads the
//! patch less closely than another on some line, and no more closely on
//! any, the patch's text points at the other one: two readings, and the
//! hunk is `ambiguous` (docs/matching.md, rule 1).

use super::choose::{Hints, points_among};
use super::keys::{FileKeys, OldLine};
use super::normalize::{bounded_distance, whitespace_key};
use super::search::{Candidate, Slot};
use super::{Failure, ambiguous};

/// At most this many equally good candidates are compared line by line;
/// beyond it the number settles the tie as before.
const MAX_TIED: usize = 64;

/// Lines longer than this (in bytes, either side) count as equally close
/// when they differ: the edit distance is quadratic in their length.
const MAX_LEN: usize = 400;

/// How closely one file line reads one patch line; lower is closer:
/// the strictest key the two share (bytes, whitespace, the resilient
/// key, the fuzzy key, none), then the edits between them with
/// whitespace collapsed, then as written (trimmed).
type Closeness = (u8, usize, usize);

/// A slot that matched no file line (dropped, past the end, read as an
/// added blank line): farther than any matched line.
const UNMATCHED: Closeness = (u8::MAX, usize::MAX, usize::MAX);

fn closeness(keys: &FileKeys, line: &OldLine, slot: &Slot) -> Closeness {
    let Slot::Line(j, _) = slot else {
        return UNMATCHED;
    };
    if keys.line(*j) == line.text.as_bytes() {
        return (0, 0, 0);
    }
    let text = keys.text(*j);
    let (file, patch) = (whitespace_key(&text), whitespace_key(line.text));
    let level = if file == patch {
        1
    } else if keys.resilient(*j) == line.resilient() {
        2
    } else if keys.fuzzy(*j) == line.fuzzy() {
        3
    } else {
        4
    };
    if text.len() > MAX_LEN || line.text.len() > MAX_LEN {
        return (level, 0, 0);
    }
    (
        level,
        bounded_distance(&file, &patch),
        bounded_distance(text.trim(), line.text.trim()),
    )
}

/// True when `a` reads every old line at least as closely as `b` and one
/// more closely. Lines both candidates match to the same text are equal.
fn closer(keys: &FileKeys, old: &[OldLine], a: &Candidate, b: &Candidate) -> bool {
    let mut strictly = false;
    for (line, (sa, sb)) in old.iter().zip(a.slots.iter().zip(&b.slots)) {
        let same_text = matches!((sa, sb), (Slot::Line(ja, _), Slot::Line(jb, _))
            if keys.line(*ja) == keys.line(*jb));
        if same_text {
            continue;
        }
        let (ca, cb) = (closeness(keys, line, sa), closeness(keys, line, sb));
        if ca > cb {
            return false;
        }
        strictly |= ca < cb;
    }
    strictly
}

/// The candidate `one`, picked by a line number among candidates of equal
/// quality, while another of them reads the patch's old lines more
/// closely on some line and less closely on none: `ambiguous`, naming
/// both. Sought only when a line number (not `--at`) made the choice.
pub(super) fn closeness_veto(
    keys: &FileKeys,
    old: &[OldLine],
    index: usize,
    hints: &Hints,
    cands: &[Candidate],
    one: usize,
) -> Option<Failure> {
    if !hints.pins.is_empty() || hints.lines().next().is_none() {
        return None;
    }
    let chosen = &cands[one];
    let (q, _, _) = chosen.quality();
    let tied: Vec<usize> = (0..cands.len())
        .filter(|&c| c != one && cands[c].quality().0 == q && cands[c].exact == chosen.exact)
        .collect();
    if tied.is_empty() || tied.len() > MAX_TIED {
        return None;
    }
    // Only where the number is what picked `one`: it points at it, and
    // without it the tie would stand.
    let mut starts: Vec<usize> = tied.iter().map(|&c| cands[c].start).collect();
    starts.push(chosen.start);
    if !hints
        .lines()
        .any(|line| points_among(&starts, line) == Some(chosen.start))
    {
        return None;
    }
    let rival = tied
        .into_iter()
        .find(|&r| closer(keys, old, &cands[r], chosen))?;
    let mut starts = vec![chosen.start, cands[rival].start];
    starts.sort_unstable();
    let why = format!(
        "the hunk matches at lines {} and {} with the same tolerance; its line number points at line {}, while line {} reads the patch's lines more closely; fix the number or the context",
        starts[0] + 1,
        starts[1] + 1,
        chosen.start + 1,
        cands[rival].start + 1
    );
    Some(ambiguous(index, &starts, None, Some(why)))
}
