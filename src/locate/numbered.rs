//! Pure additions placed by their line number alone (`git diff -U0`'s
//! `@@ -a,0 +c,d @@`): where they go afresh and where the patch applied
//! before put them, and what the hunks of the file together say about
//! which it is (see `docs/matching.md`, rule 7).

use super::addition::{PlaceError, addition_present, insert_at};
use super::choose::Hints;
use super::keys::FileKeys;
use super::normalize::same_but_whitespace;
use super::{FileState, Footprint, HunkStatus, Located, Reason, failure, fixed};
use crate::locate::Failure;
use crate::model::Hunk;

/// What a pure addition's place says beyond where it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum AdditionEvidence {
    /// Nothing more.
    Plain,
    /// Done where the patch, applied before, put it, and that is not where
    /// the hunks before place it afresh.
    DoneElsewhere,
    /// Its lines, blank or brackets only, stand at its place: done or not
    /// cannot be told from them.
    Unsure,
}

/// Where a pure addition placed by its line number goes.
pub(super) enum Numbered {
    /// The insertion point; whether it is done there is still to check.
    Point(usize),
    /// Decided already.
    Placed(Located, AdditionEvidence),
}

/// A pure addition placed by its line number (`@@ -a,0 +c,d @@`). The
/// patch applied before put the lines where the hunks before, read as done,
/// shift its number; applied afresh they go where the hunks that apply
/// shift it. Lines standing at the second place but not at the first are
/// the file's own (a `git diff -U0` insertion of a copy of the next line).
pub(super) fn place_numbered(
    keys: &FileKeys,
    hunk: &Hunk,
    index: usize,
    hints: &Hints,
    state: &FileState,
) -> Result<Numbered, PlaceError> {
    let n = keys.len();
    if let Some(a) = first_hunk_numbered_both_ways(keys, hunk, index) {
        return Err((
            Reason::Ambiguous,
            format!(
                "the hunk only adds lines, and its header numbers them two ways: `-{a}` with no old line reads as after line {a}, `+{a}` as at line {a}, before it; give a context line"
            ),
            vec![a, a + 1],
        ));
    }
    let done = hunk
        .line_hint
        .and_then(|l| super::hint_line(l, state.done_offset, n))
        .map(|l| l + 1)
        .filter(|&d| d <= n);
    let fresh = addition_point(hunk, hints, n).and_then(|at| numbered_alike(keys, hunk, hints, at));
    let stands = |at: usize| addition_present(keys, hunk, at, None) == Some(at);
    let done_at = |at: usize, evidence| {
        let loc = fixed(index, at, at + hunk.lines.len(), HunkStatus::AlreadyApplied);
        Numbered::Placed(loc, evidence)
    };
    if let Some(d) = done
        && fresh.as_ref().ok() != Some(&d)
        && stands(d)
    {
        return Ok(done_at(d, AdditionEvidence::DoneElsewhere));
    }
    let at = fresh?;
    if done.is_some_and(|d| d != at) && stands(at) {
        if state.done_drift {
            // The hunks found done stood away from their numbers: where
            // this one would stand done is not known.
            return Err((
                Reason::Ambiguous,
                format!(
                    "the hunk's lines stand after line {at} already, and the hunks before it found applied stood away from their line numbers: applied before, or to be added?"
                ),
                vec![at + 1],
            ));
        }
        let loc = insert_at(hunk, index, at, state)?;
        return Ok(Numbered::Placed(loc, AdditionEvidence::Plain));
    }
    if let Some(d) = done.filter(|&d| d != at && wordless_stands(keys, hunk, d)) {
        // Blank lines or brackets where the patch applied before put them:
        // they tell nothing, and the hunks before were found done (also
        // where the fresh place is past the end: a re-run of `-U0` adding
        // a blank line after the file's trailing one added a third).
        return Err((
            Reason::Ambiguous,
            format!(
                "the hunk adds only blank lines or brackets, and such lines stand after line {d}, where the patch applied before would have put them: applied before, or to be added after line {at}? (add a context line)"
            ),
            vec![at + 1, d + 1],
        ));
    }
    if wordless_stands(keys, hunk, at) {
        return Ok(done_at(at, AdditionEvidence::Unsure));
    }
    Ok(Numbered::Point(at))
}

/// The first hunk of a file that only adds lines, numbered `@@ -a,… +a,… @@`
/// (a ≥ 1, within the file): read as `-a,0` (git's zero-context form) its
/// lines go after line a, while its new side's `+a` makes them line a,
/// before it; a `git diff -U0` numbers such a hunk `+(a + 1)`. Two places
/// (rule 2). (Even lines equal to line a, which both places write alike,
/// are two readings on a re-run: standing at line a, done; not after it,
/// to add.) Returns a; later hunks carry offsets and are left alone.
fn first_hunk_numbered_both_ways(keys: &FileKeys, hunk: &Hunk, index: usize) -> Option<usize> {
    let a = hunk
        .line_hint
        .filter(|&a| index == 0 && a >= 1 && a <= keys.len())?;
    (hunk.new_start == Some(a)).then_some(a)
}

/// `@@ -a,0 +c,d @@` inserts after line a: the line number is the only
/// evidence of the place, so it must be inside the file and agree with
/// where the hunks before it were found.
pub(super) fn addition_point(hunk: &Hunk, hints: &Hints, n: usize) -> Result<usize, PlaceError> {
    let written = hunk.line_hint.unwrap_or(0);
    // A pure addition's hint names the line *after* which it goes: 0..=n.
    let raw = hints.raw_line.map(|l| l + 1).filter(|&l| l <= n);
    let Some(raw) = raw.or((written == 0).then_some(0)) else {
        return Err((
            Reason::ContextNotFound,
            format!("the hunk adds lines after line {written}, but the file has only {n} lines"),
            Vec::new(),
        ));
    };
    match hints.line.map(|l| l + 1) {
        Some(corrected) if corrected != raw => Err((
            Reason::Ambiguous,
            format!(
                "the hunk only adds lines and its place comes from its line number alone: after line {raw} as written, or after line {corrected} where the hunks before it were found; add context lines"
            ),
            vec![raw + 1, corrected + 1],
        )),
        _ => Ok(raw),
    }
}

/// The insertion point `at` (after line `at`, as the old start puts it)
/// when the header's new start names the same point, or another where the
/// lines give the same bytes (the file lines between the two points are
/// the added lines over again); otherwise the header numbers the lines two
/// ways (rule 2): the second diff of a `git diff -U0` series numbered in
/// the first one's result puts `-a` after the lines the first inserted,
/// while its `+c`, less what the hunks before add, counts in the file the
/// series starts from. Ambiguous.
fn numbered_alike(
    keys: &FileKeys,
    hunk: &Hunk,
    hints: &Hints,
    at: usize,
) -> Result<usize, PlaceError> {
    let Some(point) = hints
        .new_side_point
        .filter(|&p| usize::try_from(p) != Ok(at))
    else {
        return Ok(at);
    };
    let Some(p) = usize::try_from(point).ok().filter(|&p| p <= keys.len()) else {
        return Err((
            Reason::Ambiguous,
            format!(
                "the hunk only adds lines, and its header numbers them two ways: its old start puts them after line {at}, its new start, less what the hunks before it add and remove, names no line of the file ({point}); give a context line"
            ),
            vec![at + 1],
        ));
    };
    let added: Vec<&str> = hunk.new_lines().map(|l| &*l.text).collect();
    let (lo, hi) = (at.min(p), at.max(p));
    let between: Vec<String> = (lo..hi).map(|j| keys.text(j).to_string()).collect();
    let mut one: Vec<&str> = added.clone();
    one.extend(between.iter().map(String::as_str));
    let mut other: Vec<&str> = between.iter().map(String::as_str).collect();
    other.extend(added.iter().copied());
    if one == other {
        return Ok(at);
    }
    Err((
        Reason::Ambiguous,
        format!(
            "the hunk only adds lines, and its header numbers them two ways: its old start puts them after line {at}, its new start, less what the hunks before it add and remove, after line {p} (a second diff numbered in the first one's result?); give a context line"
        ),
        vec![at + 1, p + 1],
    ))
}

/// True when the hunk adds only lines without a word (blank lines,
/// brackets) and they stand at `at`, exactly but for whitespace.
fn wordless_stands(keys: &FileKeys, hunk: &Hunk, at: usize) -> bool {
    let added = keys.new_side(hunk);
    !added.is_empty()
        && at + added.len() <= keys.len()
        && added.iter().enumerate().all(|(i, l)| {
            !l.text.chars().any(char::is_alphanumeric)
                && same_but_whitespace(&keys.text(at + i), l.text)
        })
}

/// A pure addition placed by its line number alone is "already applied"
/// when its lines stand right there, but the same lines may simply be there
/// already in a file the patch has not touched (`git diff -U0` adding a line
/// equal to the next one). When another hunk of the file applies afresh, the
/// patch is not applied as a whole: such additions are inserted, as `git
/// apply` does; when every hunk is done, the patch was applied before.
///
/// Two kinds say more (`FileState::telling_additions`): one found where the
/// patch applied before put it (not where it goes afresh) is evidence of
/// the patch applied, so a hunk that applies afresh makes it ambiguous; one
/// of blank lines or brackets standing at its place tells nothing, so with
/// no hunk applying afresh it is ambiguous (adding it again, or not, are
/// both readings).
pub(super) fn insert_numbered_additions_again(
    keys: &FileKeys,
    hunks: &[Hunk],
    results: &mut [Result<Located, Failure>],
    state: &FileState,
) {
    let in_file_order = done_in_file_order(keys, hunks, results);
    numbered_alone_fresh_beside_done(keys, hunks, results);
    let fresh = hunks
        .iter()
        .zip(results.iter())
        .any(|(h, r)| matches!(r, Ok(l) if applies_afresh(keys, h, l)));
    for &(index, evidence) in state.telling_additions.iter().chain(&in_file_order) {
        let Some(Ok(loc)) = results.get(index) else {
            continue;
        };
        let message = match evidence {
            AdditionEvidence::DoneElsewhere if fresh => format!(
                "the hunk's lines stand after line {}, where the patch applied before would have put them, but other hunks of the file are not applied: applied before, or to be added?",
                loc.start
            ),
            AdditionEvidence::Unsure if !fresh => format!(
                "the hunk adds only blank lines or brackets, and such lines stand after line {} already: applied before, or to be added? (add a context line)",
                loc.start
            ),
            _ => continue,
        };
        results[index] = Err(Failure {
            candidates: vec![loc.start + 1],
            ..failure(index, Reason::Ambiguous, message)
        });
    }
    if !fresh {
        // The hunks left that change no byte (a final newline already
        // there) are done with the rest.
        for loc in results.iter_mut().flatten() {
            if loc.status == HunkStatus::Applied {
                *loc = fixed(loc.hunk, loc.start, loc.end, HunkStatus::AlreadyApplied);
            }
        }
        return;
    }
    for (hunk, result) in hunks.iter().zip(results.iter_mut()) {
        if let Ok(loc) = result
            && numbered_addition(hunk)
            && loc.status == HunkStatus::AlreadyApplied
            && state
                .overlapping(&Footprint::of(hunk, loc.start, loc.start, &[]))
                .is_none()
        {
            *loc = fixed(loc.hunk, loc.start, loc.start, HunkStatus::Applied);
        }
    }
}

/// Pure additions placed by their line number alone, to be inserted
/// afresh, whose lines (one with a word) stand where the patch applied
/// before put them in file order: after their line, shifted by what every
/// hunk found done above it adds (those found so here too), whatever its
/// place in the patch (the offset carried while locating follows patch
/// order, so a hunk written after one lower in the file was not counted).
/// Each such hunk is found done there (and returned as done elsewhere than
/// its fresh place). One diff section only: another section's numbers
/// start afresh. The done hunks and the additions are sorted once and
/// walked together.
fn done_in_file_order(
    keys: &FileKeys,
    hunks: &[Hunk],
    results: &mut [Result<Located, Failure>],
) -> Vec<(usize, AdditionEvidence)> {
    if hunks.iter().any(|h| h.starts_section) {
        return Vec::new();
    }
    // The hunks found done, by their first line in the file, and the
    // numbered additions to insert, by their point (before the patch).
    let mut done = Vec::new();
    let mut additions = Vec::new();
    for (index, (hunk, result)) in hunks.iter().zip(results.iter()).enumerate() {
        match result {
            Ok(l) if l.status == HunkStatus::AlreadyApplied => done.push((l.start, l.end, index)),
            Ok(l) if l.status == HunkStatus::Applied && numbered_addition(hunk) => {
                additions.push((l.start, index));
            }
            _ => {}
        }
    }
    if done.is_empty() || additions.is_empty() {
        return Vec::new();
    }
    done.sort_unstable();
    additions.sort_unstable();
    let mut found = Vec::new();
    // What the hunks done above the walk's place add, and where the last
    // of them ended before the patch.
    let mut shift = 0isize;
    let mut old_end = 0usize;
    let mut next = done.iter().peekable();
    for (at, index) in additions {
        while let Some(&&(start, end, i)) = next.peek() {
            // Where it stood before the patch: less what the hunks done
            // above it add.
            let Ok(old_start) = usize::try_from(super::signed(start) - shift) else {
                return Vec::new();
            };
            if old_start < old_end {
                return Vec::new();
            }
            let old_len = hunks[i].old_len();
            let e = old_start + old_len;
            // Above the addition: ending before its point, or at it with
            // old lines, or a pure addition at its point written before.
            if e > at || (e == at && old_len == 0 && i > index) {
                break;
            }
            shift += super::signed(end - start) - super::signed(old_len);
            old_end = e;
            next.next();
        }
        let Ok(d) = usize::try_from(super::signed(at) + shift) else {
            continue;
        };
        let hunk = &hunks[index];
        let lines = keys.new_side(hunk).len();
        // Its lines must stand clear of the done hunk below, not on it.
        let clear = next.peek().is_none_or(|&&(start, ..)| d + lines <= start);
        if d != at && clear && addition_present(keys, hunk, d, None) == Some(d) {
            shift += super::signed(lines);
            old_end = at;
            found.push((index, d, lines));
        }
    }
    found
        .into_iter()
        .map(|(index, d, lines)| {
            results[index] = Ok(fixed(index, d, d + lines, HunkStatus::AlreadyApplied));
            (index, AdditionEvidence::DoneElsewhere)
        })
        .collect()
}

/// True when the hunk, placed at `loc`, changes the file: placed afresh,
/// and not a hunk that only adds or removes the final newline (its two
/// sides the same lines but for `\ No newline at end of file`) at the end
/// of a file that already ends as its new side says. Such a hunk changes
/// no byte, so it is no sign of a patch applied afresh: a re-run of `git
/// diff -U0` output with one read its insertion as a first run and added
/// it again (rule 7).
fn applies_afresh(keys: &FileKeys, hunk: &Hunk, loc: &Located) -> bool {
    if loc.status != HunkStatus::Applied {
        return false;
    }
    let toggle = hunk.old_missing_newline != hunk.new_missing_newline && same_sides(hunk);
    let ends_as_new = keys.source().has_final_newline() != hunk.new_missing_newline;
    !(toggle && loc.end == keys.len() && ends_as_new)
}

/// True when the hunk's old and new sides are the same lines, byte for byte.
fn same_sides(hunk: &Hunk) -> bool {
    let old = hunk.lines.iter().filter(|l| l.is_old()).map(|l| &l.text);
    let new = hunk.lines.iter().filter(|l| l.is_new()).map(|l| &l.text);
    old.eq(new)
}

/// True for a hunk with no old lines placed by its line number alone.
fn numbered_addition(hunk: &Hunk) -> bool {
    hunk.line_hint.is_some() && hunk.anchors.is_empty() && !hunk.at_eof && hunk.old_len() == 0
}

/// The only hunks of the file that apply afresh are pure additions placed
/// by their line number alone, and a hunk with old lines was found already
/// applied: the patch reads as applied before, and lines placed by a
/// number alone may stand a line or two from where this run puts them (the
/// first run read numbers that were off, or placed a hunk out of the
/// numbers' order). Added again, they would stand twice: each is
/// `ambiguous`.
fn numbered_alone_fresh_beside_done(
    keys: &FileKeys,
    hunks: &[Hunk],
    results: &mut [Result<Located, Failure>],
) {
    let mut alone = Vec::new();
    let mut done_with_old_lines = false;
    for (index, (hunk, result)) in hunks.iter().zip(results.iter()).enumerate() {
        match result {
            Ok(loc) if applies_afresh(keys, hunk, loc) => {
                if !numbered_addition(hunk) {
                    return;
                }
                alone.push((index, loc.start));
            }
            Ok(loc) if loc.status == HunkStatus::AlreadyApplied && hunk.old_len() > 0 => {
                done_with_old_lines = true;
            }
            _ => {}
        }
    }
    if !done_with_old_lines {
        return;
    }
    for (index, at) in alone {
        let message = format!(
            "the hunk adds lines after line {at}, placed by its line number alone, and every other hunk of the file that changes lines is applied already: the patch reads as applied before, and these lines may stand near their number already; applied before, or to be added? (add a context line)"
        );
        results[index] = Err(Failure {
            candidates: vec![at + 1],
            ..failure(index, Reason::Ambiguous, message)
        });
    }
}
