//! What the Codex envelope's place marks delimit: the block a `@@` anchor
//! line opens, and the end of the file `*** End of File` names.
//!
//! An anchor such as `@@ class B:` or `@@ fn run(&self) {` names the block
//! the hunk lies in. Its scope is the lines after it indented deeper than
//! it, up to the first non-blank line at its indentation or less (under a
//! key such as `build:`, its next sibling key; under a `[section]` header,
//! the next header); the hunk (and an inner anchor) must start inside it. See `docs/matching.md`,
//! "Choosing among candidates" (Codex anchors).

use super::Tier;
use super::keys::{FileKeys, OldLine};
use super::normalize::LineMatch;
use super::prefilter;
use super::search::Candidate;
use crate::model::{Hunk, LineKind};
use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;
use std::rc::Rc;

/// The leading spaces and tabs of `line`.
fn indent(line: &[u8]) -> &[u8] {
    let k = line
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    &line[..k]
}

/// `line` without its indentation and trailing whitespace.
fn body(line: &[u8]) -> &[u8] {
    line.trim_ascii()
}

/// A comment or preprocessor line: at any indentation it tells nothing
/// about where a block ends (`#ifdef` and `# TODO` often stand at column 0
/// inside a function).
fn is_comment(body: &[u8]) -> bool {
    ["#", "//", "/*", "*", "--", ";"]
        .iter()
        .any(|p| body.starts_with(p.as_bytes()))
}

/// A line that closes a block (`}`, `})`, `):`, `} else {`, `end`): it
/// starts nothing at its indentation, so it ends no anchor's block.
fn is_closing(body: &[u8]) -> bool {
    matches!(body.first(), Some(b'}' | b')' | b']')) || body == b"end" || body.starts_with(b"end ")
}

/// A label (`public:`, `private:`, `out:`, `else:`): one word and a colon.
/// C++ access specifiers and C labels often stand at the indentation of
/// the class or function they are in; `else:` continues an `if`.
fn is_label(body: &[u8]) -> bool {
    body.split_last().is_some_and(|(&last, word)| {
        last == b':'
            && !word.is_empty()
            && word.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_')
    })
}

/// A key (`web:`, `build: deps`, `image: nginx`): a word and a colon,
/// then nothing or whitespace. A YAML mapping key or a Makefile target:
/// the keys at its own indentation are its siblings, so a label there
/// (`api:`, `test:`) starts the next block rather than nothing.
fn is_key(body: &[u8]) -> bool {
    let word = body
        .iter()
        .take_while(|&&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
        .count();
    word > 0
        && body.get(word) == Some(&b':')
        && body.get(word + 1).is_none_or(|b| b.is_ascii_whitespace())
}

/// A section header (`[server]`, `[[bin]]`, `[remote "origin"]`): its keys
/// stand at its own column, so its block runs to the next header at its
/// indentation or above.
fn is_section(body: &[u8]) -> bool {
    body.len() > 2 && body.starts_with(b"[") && body.ends_with(b"]")
}

/// The end of the block anchor line `anchor` opens: the first line
/// (0-based) after it that starts something at its indentation or above,
/// or `None` when the line opens no block (the first non-blank line after
/// it, past a lone opening brace at its own indentation, is not indented
/// deeper). The hunk may start at that line (the anchor then is the block
/// before the hunk's first line), not past it.
///
/// Indented deeper means the line's indentation extends the anchor's. A
/// line whose indentation is the anchor's or a part of it starts something
/// there unless it is blank, a closing line (`}`, `):`, `end`), a label
/// (`public:`) or a comment or preprocessor line (`#ifdef` and `# TODO`
/// often stand at column 0 inside a function). Indentation that is neither (tabs against spaces)
/// starts nothing. A block running to the end of the file ends there.
///
/// The anchor's own shape says more: under a key (`web:`, `build:`) a
/// label at its indentation or above is a sibling key and ends the block;
/// a section header (`[server]`) opens the lines after it, at its own
/// column too, up to the next header at its indentation or above.
pub(super) fn block_end(keys: &FileKeys, anchor: usize) -> Option<usize> {
    block_end_by(keys.len(), |i| keys.line(i), anchor)
}

/// [`block_end`] over the `n` lines `line(i)` of a file.
pub(crate) fn block_end_by<'a>(
    n: usize,
    line: impl Fn(usize) -> &'a [u8],
    anchor: usize,
) -> Option<usize> {
    let head = indent(line(anchor));
    let outside = |line: &[u8]| head.starts_with(indent(line));
    if is_section(body(line(anchor))) {
        let header = |i: &usize| outside(line(*i)) && is_section(body(line(*i)));
        let filled = (anchor + 1..n).any(|i| !body(line(i)).is_empty());
        return filled.then(|| (anchor + 1..n).find(header).unwrap_or(n));
    }
    let keyed = is_key(body(line(anchor)));
    let mut i = anchor + 1;
    while i < n {
        let text = line(i);
        let b = body(text);
        if !(b.is_empty() || (b == b"{" && outside(text))) {
            break;
        }
        i += 1;
    }
    if i >= n {
        return None;
    }
    let ind = indent(line(i));
    if ind.len() <= head.len() || !ind.starts_with(head) {
        return None;
    }
    let starts = |i: &usize| {
        let text = line(*i);
        let b = body(text);
        !b.is_empty()
            && outside(text)
            && !is_comment(b)
            && !is_closing(b)
            && (keyed || !is_label(b))
    };
    Some((i..n).find(starts).unwrap_or(n))
}

/// The end of the block line `at` lies in (of the `n` lines `line(i)`):
/// the first line after it that starts something at a shallower
/// indentation (one that is a part of `at`'s), by the same reading of
/// blank, closing, label and comment lines as [`block_end`], keys too:
/// when the line that opens the block (the nearest one above at a
/// shallower indentation) is a key, a label ends the block. `None` for a
/// line at the top level, which lies in no block.
pub(crate) fn enclosing_end_by<'a>(
    n: usize,
    line: impl Fn(usize) -> &'a [u8],
    at: usize,
) -> Option<usize> {
    let head = indent(line(at));
    if head.is_empty() {
        return None;
    }
    let shallower = |text: &[u8]| {
        let ind = indent(text);
        ind.len() < head.len() && head.starts_with(ind)
    };
    // The line that opens the block: under a key (`  web:`, `test:`), a
    // label at a shallower indentation is a sibling key or the next
    // target, as for a key anchor in `block_end_by`.
    let keyed = (0..at)
        .rev()
        .map(&line)
        .find(|&t| !body(t).is_empty() && !is_comment(body(t)) && shallower(t))
        .is_some_and(|t| is_key(body(t)));
    let starts = |i: &usize| {
        let text = line(*i);
        let b = body(text);
        !b.is_empty()
            && shallower(text)
            && !is_comment(b)
            && !is_closing(b)
            && (keyed || !is_label(b))
    };
    Some((at + 1..n).find(starts).unwrap_or(n))
}

/// Whether a hunk starting at line `start` lies in the scope of the anchor
/// at line `anchor` whose block ends at line `end`: at the anchor line or
/// after it, at the block's end at the latest. [`Anchors::reach`] asks it
/// of many anchors at once; this is the rule its tests check it against
/// (and the one a section heading's blocks are asked with).
pub(super) fn within(anchor: usize, end: usize, start: usize) -> bool {
    anchor <= start && start <= end
}

/// Rule 13, an anchor the previous chunk quoted: the one anchor of a
/// chunk placed at `loc` is sought after the previous chunk (Codex's
/// seek), but an exact occurrence on the previous chunk's own last context
/// lines is a reading too. When the hunk follows that occurrence, inside
/// its block, at another place, and no more leniently than `loc` (a
/// contiguous tier up to `loc`'s), returns that occurrence and the place.
pub(super) fn consumed_anchor_rival(
    keys: &FileKeys,
    hunk: &Hunk,
    old: &[OldLine],
    state: &super::FileState,
    loc: &super::Located,
) -> Option<(usize, usize)> {
    let [anchor] = hunk.anchors.as_slice() else {
        return None;
    };
    let placed = loc.tier?;
    if loc.status != super::HunkStatus::Applied || state.prev_tail >= state.prev_end {
        return None;
    }
    let occurrences = state.anchor_lines.lines(keys, anchor, Tier::Exact);
    let a = occurrences.first_in(state.prev_tail..state.prev_end)?;
    let end = block_end(keys, a).unwrap_or(keys.len());
    let starts = a..(end + 1).min(keys.len());
    [Tier::Exact, Tier::Resilient, Tier::Fuzzy]
        .into_iter()
        .filter(|&t| t <= placed)
        .find_map(|t| {
            super::search::contiguous(keys, old, t, starts.clone())
                .into_iter()
                .find(|c| c.start != loc.start && within(a, end, c.start))
        })
        .map(|c| (a, c.start))
}

/// The first file line of the context lines `loc` places after the hunk's
/// last removed or added line (`loc.end` when there are none).
pub(super) fn trailing_context_start(hunk: &Hunk, loc: &super::Located) -> usize {
    let changed = hunk
        .lines
        .iter()
        .rposition(|l| l.kind != LineKind::Context)
        .map_or(0, |p| p + 1);
    let old_before = hunk.lines[..changed]
        .iter()
        .filter(|l| l.kind != LineKind::Add)
        .count();
    loc.slots
        .iter()
        .skip(old_before)
        .find_map(|s| match s {
            super::Slot::Line(j, _) => Some(*j),
            _ => None,
        })
        .map_or(loc.end, |j| j.min(loc.end))
}

/// The refusal of a chunk placed at `loc` that also follows its anchor
/// where the previous chunk quoted it ([`consumed_anchor_rival`]), unless
/// the user pinned it (`pins`, 0-based lines of `--at`).
pub(super) fn consumed_anchor_refusal(
    keys: &FileKeys,
    (index, hunk): (usize, &Hunk),
    old: &[OldLine],
    state: &super::FileState,
    loc: &super::Located,
) -> Option<super::Failure> {
    let (anchor, rival) = consumed_anchor_rival(keys, hunk, old, state, loc)?;
    if state.pins.contains(loc.start) {
        return None;
    }
    let why = format!(
        "the `@@` anchor is sought after the previous chunk, where the hunk stands at line {}; the anchor also stands at line {}, on the previous chunk's own last context lines, and the hunk follows it at line {} (no more leniently): which one is meant?",
        loc.start + 1,
        anchor + 1,
        rival + 1
    );
    let starts = [rival.min(loc.start), rival.max(loc.start)];
    Some(super::ambiguous(index, &starts, None, Some(why)))
}

/// File lines the end-of-file reading may leave out between the hunk's
/// lines (as many as the structural tier's skip budget).
const EOF_OMITTED: usize = 2;

/// With `*** End of File`, the end of the file as a second reading when
/// `chosen` does not reach it: the hunk's non-blank old lines stand, but
/// for whitespace and in order, among the file's last non-blank lines,
/// the last one (holding a word) on the file's last non-blank line, with at
/// most [`EOF_OMITTED`] file lines left out between them. Returns the
/// line (0-based) where that reading starts.
pub(super) fn end_of_file_rival(
    keys: &FileKeys,
    old: &[OldLine],
    chosen: &Candidate,
) -> Option<usize> {
    let n = keys.len();
    let filled = |i: usize| !keys.line(i).trim_ascii().is_empty();
    let last = (0..n).rev().find(|&i| filled(i))?;
    if chosen.end > last {
        return None;
    }
    let lines: Vec<&OldLine> = old.iter().filter(|l| !l.blank).collect();
    let tail = lines.last()?;
    if !tail.text.chars().any(char::is_alphanumeric) {
        return None;
    }
    let same = |j: usize, l: &OldLine| keys.compare(Tier::Resilient, j, l) != LineMatch::No;
    // The next file line to compare, going up from the last one.
    let mut next = Some(last);
    let mut omitted = 0;
    let mut first = last;
    for (k, line) in lines.iter().rev().enumerate() {
        loop {
            let j = next?;
            next = j.checked_sub(1);
            if filled(j) && same(j, line) {
                first = j;
                break;
            }
            if filled(j) {
                if k == 0 || omitted == EOF_OMITTED {
                    return None;
                }
                omitted += 1;
            }
        }
    }
    (first != chosen.start).then_some(first)
}

/// The line (0-based) past the file's last non-blank line: the end place
/// `*** End of File` names (trailing blank lines do not move it).
fn end_place(keys: &FileKeys) -> usize {
    (0..keys.len())
        .rev()
        .find(|&i| !keys.line(i).trim_ascii().is_empty())
        .map_or(0, |i| i + 1)
}

/// Rule 14 against the applied state: a hunk marked `*** End of File`
/// placed at `cand`, short of the end of the file, whose new side stands
/// at the end place instead (`found`: whether the applied state tells,
/// and where it stands, as rule 7 reads it). Run again, the chunk's old
/// side no longer stands at the end, and a twin of it elsewhere is the
/// only place the tiers find; the mark names the end, where the chunk
/// stands applied. Done there when the applied state tells (rule 7: an
/// added line with a word, or a framed deletion), `ambiguous` when it
/// stands there but does not, or only with tolerance (blank or
/// bracket-only added lines, a deletion with context on one side or none,
/// a context line drifted in case: stale mark or done?); `None` when the
/// candidate reaches the end place or the new side does not.
pub(super) fn done_at_end_of_file(
    keys: &FileKeys,
    (hunk, index): (&Hunk, usize),
    cand: &Candidate,
    found: impl FnOnce() -> Option<(bool, super::Located)>,
) -> Option<Result<super::Located, super::Failure>> {
    let end = end_place(keys);
    if cand.end >= end {
        return None;
    }
    let at = match found().filter(|(_, loc)| loc.end >= end) {
        Some((true, loc)) => return Some(Ok(loc)),
        Some((false, loc)) => loc.start,
        None => new_side_at_end(keys, hunk, end)?,
    };
    let why = format!(
        "the hunk is marked `*** End of File`, but its old lines stand at line {} only, short of the end of the file; the end holds what the hunk leaves there (from line {}), read with tolerance or telling no change (added lines without a word, context on one side of a deletion, or no line at all): already applied at the end, or to be applied at line {}?",
        cand.start + 1,
        at + 1,
        cand.start + 1
    );
    let starts = [cand.start.min(at), cand.start.max(at)];
    Some(Err(super::ambiguous(index, &starts, None, Some(why))))
}

/// [`done_at_end_of_file`] for equally good candidates `cands` nothing
/// separates (twins of the old side, every one short of the end): where
/// the hunk's new side stands at the end place and the applied state
/// tells, the chunk stands applied where the mark puts it and the twins
/// are not its place (a re-run of a chunk that edited the last of three
/// twins). `None` otherwise: the tie stays `ambiguous`.
pub(super) fn done_at_end_of_file_beside_twins(
    keys: &FileKeys,
    at: (&Hunk, usize),
    cands: &[Candidate],
    found: impl FnOnce() -> Option<(bool, super::Located)>,
) -> Option<super::Located> {
    let end = end_place(keys);
    if cands.is_empty() || cands.iter().any(|c| c.end >= end) {
        return None;
    }
    let found = found();
    let mut done = None;
    for cand in cands {
        match done_at_end_of_file(keys, at, cand, || found.clone()) {
            Some(Ok(loc)) => done = Some(loc),
            _ => return None,
        }
    }
    done
}

/// Where the hunk's new side (but its trailing blank lines) stands, with
/// any tolerance up to the fuzzy tier's, its last line on the end place's
/// last line (`end` past it): the first line, 0-based. A new side with no
/// non-blank line (a deletion without context) stands there as well as
/// anywhere: the file's last non-blank line.
fn new_side_at_end(keys: &FileKeys, hunk: &Hunk, end: usize) -> Option<usize> {
    let new = keys.new_side(hunk);
    let filled = new.iter().rposition(|l| !l.blank).map_or(0, |p| p + 1);
    let Some(new) = new.get(..filled).filter(|n| !n.is_empty()) else {
        return Some(end.saturating_sub(1));
    };
    let from = end.checked_sub(new.len())?;
    super::search::contiguous(keys, new, Tier::Fuzzy, from..from + 1)
        .into_iter()
        .find(|c| c.end == end)
        .map(|c| c.start)
}

/// The lines (0-based, ascending, distinct) where a Codex anchor stands,
/// each with the end of its scope (the block it opens, or the rest of the
/// file). A range of a list the file's chunks share: under an anchor that
/// stands on many lines a chunk copies none of them, and what it asks of
/// them (the last one before a line, whether a line lies in the scope of
/// any) costs a binary search, not a pass over them.
#[derive(Debug, Clone, Default)]
pub(super) struct Anchors {
    list: Rc<Scopes>,
    range: Range<usize>,
}

/// Anchor lines, the ends of their scopes, and those ends as a segment
/// tree of maxima (leaf `i` at `tree[lines.len() + i]`).
#[derive(Debug, Default)]
struct Scopes {
    lines: Vec<usize>,
    ends: Vec<usize>,
    tree: Vec<usize>,
}

impl Scopes {
    /// The greatest end of the lines at indices `lo..hi` (`None` for none).
    fn max_end(&self, lo: usize, hi: usize) -> Option<usize> {
        let m = self.lines.len();
        let (mut l, mut r) = (lo + m, hi.min(m) + m);
        let mut best = None;
        while l < r {
            if l & 1 == 1 {
                best = best.max(self.tree.get(l).copied());
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                best = best.max(self.tree.get(r).copied());
            }
            l /= 2;
            r /= 2;
        }
        best
    }
}

impl Anchors {
    /// Anchor lines with the end (exclusive) of each one's scope
    /// (`usize::MAX`: the rest of the file); sorted and made distinct here.
    pub(super) fn new(mut scopes: Vec<(usize, usize)>) -> Self {
        scopes.sort_unstable();
        scopes.dedup_by_key(|s| s.0);
        let m = scopes.len();
        let (lines, ends): (Vec<usize>, Vec<usize>) = scopes.into_iter().unzip();
        let mut tree = vec![0; m];
        tree.extend_from_slice(&ends);
        for i in (1..m).rev() {
            tree[i] = tree[2 * i].max(tree[2 * i + 1]);
        }
        Anchors {
            list: Rc::new(Scopes { lines, ends, tree }),
            range: 0..m,
        }
    }

    /// The anchor lines `lines` of the file of `keys`, each with the block
    /// it opens ([`block_end`]).
    pub(super) fn of(keys: &FileKeys, lines: Vec<usize>) -> Self {
        let end = |a: usize| block_end(keys, a).unwrap_or(usize::MAX);
        Anchors::new(lines.into_iter().map(|a| (a, end(a))).collect())
    }

    /// The lines, ascending.
    pub(super) fn lines(&self) -> &[usize] {
        self.list.lines.get(self.range.clone()).unwrap_or_default()
    }

    /// The number of lines.
    pub(super) fn len(&self) -> usize {
        self.range.len()
    }

    /// True when there are none.
    pub(super) fn is_empty(&self) -> bool {
        self.range.is_empty()
    }

    /// The first line.
    pub(super) fn first(&self) -> Option<usize> {
        self.lines().first().copied()
    }

    /// The lines at or after `line` (shared, not copied).
    pub(super) fn tail(&self, line: usize) -> Anchors {
        let from = self.range.start + self.lines().partition_point(|&a| a < line);
        Anchors {
            list: Rc::clone(&self.list),
            range: from..self.range.end,
        }
    }

    /// The first line alone.
    pub(super) fn first_only(&self) -> Anchors {
        let end = self.range.end.min(self.range.start + 1);
        Anchors {
            list: Rc::clone(&self.list),
            range: self.range.start..end,
        }
    }

    /// The first line inside `range`.
    pub(super) fn first_in(&self, range: Range<usize>) -> Option<usize> {
        let tail = self.tail(range.start);
        tail.first().filter(|&j| j < range.end)
    }

    /// Each line with the end (exclusive) of its scope.
    #[cfg(test)]
    pub(super) fn scopes(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let ends = self.list.ends.get(self.range.clone()).unwrap_or_default();
        self.lines().iter().copied().zip(ends.iter().copied())
    }

    /// The index in the shared list past the last line at or before `line`.
    fn past(&self, line: usize) -> usize {
        self.range.start + self.lines().partition_point(|&a| a <= line)
    }

    /// The last line at or before `line`, with the end of its scope.
    pub(super) fn last_at_or_before(&self, line: usize) -> Option<(usize, usize)> {
        let k = self
            .past(line)
            .checked_sub(1)
            .filter(|&k| k >= self.range.start)?;
        Some((self.list.lines[k], self.list.ends[k]))
    }

    /// True when a hunk starting at `start` lies in the scope of an anchor
    /// standing after line `after` (of any, for `None`): [`within`] for
    /// one of them.
    pub(super) fn reach(&self, after: Option<usize>, start: usize) -> bool {
        let lo = after.map_or(self.range.start, |b| self.past(b));
        let hi = self.past(start);
        lo < hi && self.list.max_end(lo, hi).is_some_and(|end| end >= start)
    }
}

/// Where each anchor text stands in the file under each tier (with the
/// ends of the blocks those lines open), found once per file: chunks under
/// the same anchor ask for the part after the previous chunk only.
#[derive(Default)]
pub(super) struct AnchorLines(RefCell<HashMap<(Tier, String), Anchors>>);

impl AnchorLines {
    /// The lines of the file of `keys` where `anchor` matches under `tier`.
    pub(super) fn lines(&self, keys: &FileKeys, anchor: &str, tier: Tier) -> Anchors {
        let key = (tier, anchor.to_string());
        if let Some(found) = self.0.borrow().get(&key) {
            return found.clone();
        }
        let probe = OldLine::new(LineKind::Context, anchor);
        let matches = |j: &usize| keys.compare(tier, *j, &probe) != LineMatch::No;
        let lines: Vec<usize> = match prefilter::lines_matching(keys, &probe, tier) {
            Some(hits) => hits.iter().copied().filter(matches).collect(),
            None => (0..keys.len()).filter(matches).collect(),
        };
        let found = Anchors::of(keys, lines);
        self.0.borrow_mut().insert(key, found.clone());
        found
    }
}

#[cfg(test)]
mod tests;
