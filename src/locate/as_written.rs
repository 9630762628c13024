//! Hunks copied from a numbered file view (`2 | y = 2`, `2: y = 2`): which
//! reading is the patch's, the lines as written or the lines with their
//! line-number prefixes taken off. The lines as written are the patch's
//! only where they stand in the file with their numbers: a file line
//! carrying the same number and separator shows the file holds the
//! numbers as content (a numbered list, an int-keyed map, a Markdown
//! table), so taking them off would read other lines. See
//! `docs/formats.md` (line-number prefixes).

use super::search::Slot;
use super::{Failure, HunkStatus, Located, MatchOptions, Pins, Reason, failure, locate_hunks};
use crate::model::Hunk;
use crate::patch::numbering::gutter;
use crate::source::SourceText;
use std::borrow::Cow;

/// Locates the hunks of one file, trying first the lines of hunks whose
/// line-number prefixes were stripped exactly as written: when every hunk
/// places so, and each of those stands where the file has its numbers
/// (its old side to apply afresh, or its new side already applied), the
/// lines as written are the patch's. Otherwise the stripped reading is
/// used, but a hunk whose lines as written stood with their numbers and
/// which the stripped reading places elsewhere or otherwise is refused:
/// the two readings disagree. Returns the hunks used.
pub(crate) fn locate_file<'h>(
    source: &SourceText,
    hunks: &'h [Hunk],
    options: &MatchOptions,
    pins: &Pins,
) -> (Cow<'h, [Hunk]>, Vec<Result<Located, Failure>>) {
    if !hunks.iter().any(|h| h.as_written.is_some()) {
        return (
            Cow::Borrowed(hunks),
            locate_hunks(source, hunks, options, pins),
        );
    }
    let written: Vec<Hunk> = hunks
        .iter()
        .map(|h| Hunk {
            lines: h.as_written.clone().unwrap_or_else(|| h.lines.clone()),
            as_written: None,
            // Read as written, the numbers are the file's text, not a
            // view's reading of the place.
            view_start: None,
            ..h.clone()
        })
        .collect();
    let results = locate_hunks(source, &written, options, pins);
    let stand: Vec<bool> = hunks
        .iter()
        .zip(&written)
        .zip(&results)
        .map(|((h, w), r)| {
            h.as_written.is_some() && r.as_ref().is_ok_and(|l| numbers_stand(source, w, l))
        })
        .collect();
    let placed = hunks
        .iter()
        .zip(&results)
        .zip(&stand)
        .all(|((h, r), &s)| r.is_ok() && (h.as_written.is_none() || s));
    if placed {
        return (Cow::Owned(written), results);
    }
    let mut stripped = locate_hunks(source, hunks, options, pins);
    let held = held_as_text(source, &written, &stand);
    for (index, result) in stripped.iter_mut().enumerate() {
        let Ok(s) = &*result else {
            continue;
        };
        if stand[index] {
            if let Ok(w) = &results[index]
                && (s.status != w.status || s.start != w.start)
            {
                *result = Err(readings_disagree(index, w, s));
            }
        } else if let Some(&(line, ref text)) = held[index].as_ref()
            && s.status == HunkStatus::Applied
        {
            *result = Err(numbers_held_as_text(index, line, text, s));
        }
    }
    (Cow::Borrowed(hunks), stripped)
}

/// For each hunk with lines as written that did not stand with their
/// numbers: a file line (0-based) holding one of its numbered old lines
/// whole (whitespace at the ends aside), and that text. The file then
/// holds those numbers as its own text, not as a view's.
fn held_as_text(
    source: &SourceText,
    written: &[Hunk],
    stand: &[bool],
) -> Vec<Option<(usize, String)>> {
    let numbered = |h: &Hunk| -> Vec<String> {
        h.old_lines()
            .filter(|l| gutter(&l.text).is_some())
            .map(|l| l.text.trim().to_string())
            .collect()
    };
    let sought: Vec<Vec<String>> = written
        .iter()
        .zip(stand)
        .map(|(h, &s)| if s { Vec::new() } else { numbered(h) })
        .collect();
    let all: std::collections::HashSet<&str> =
        sought.iter().flatten().map(String::as_str).collect();
    let mut first = std::collections::HashMap::new();
    if !all.is_empty() {
        for i in 0..source.len() {
            let Ok(text) = std::str::from_utf8(source.line(i)) else {
                continue;
            };
            let text = text.trim();
            if gutter(text).is_some() && all.contains(text) {
                first.entry(text.to_string()).or_insert(i);
            }
        }
    }
    sought
        .iter()
        .map(|lines| {
            lines
                .iter()
                .find_map(|t| first.get(t).map(|&i| (i, t.clone())))
        })
        .collect()
}

/// True when the numbered lines of `hunk` (read as written) stand where it
/// was located on file lines with the same number and separator: its old
/// side's slots for a hunk to apply, somewhere in the place of its new
/// side for one found already applied. At least one line must be numbered
/// (read backwards, the old side of a numbered view may carry none).
fn numbers_stand(source: &SourceText, hunk: &Hunk, loc: &Located) -> bool {
    let file_gutter = |i: usize| {
        (i < source.len())
            .then(|| std::str::from_utf8(source.line(i)).ok())
            .flatten()
            .and_then(gutter)
    };
    let mut numbered = 0;
    if loc.status == HunkStatus::Applied {
        if loc.slots.len() != hunk.old_len() {
            return false;
        }
        for (line, slot) in hunk.old_lines().zip(&loc.slots) {
            let Some(g) = gutter(&line.text) else {
                continue;
            };
            match slot {
                Slot::Line(i, _) if file_gutter(*i) == Some(g) => numbered += 1,
                _ => return false,
            }
        }
    } else {
        let mut in_place: Option<std::collections::HashSet<(usize, char)>> = None;
        for line in hunk.new_lines() {
            let Some(g) = gutter(&line.text) else {
                continue;
            };
            let in_place = in_place
                .get_or_insert_with(|| (loc.start..loc.end).filter_map(file_gutter).collect());
            if !in_place.contains(&g) {
                return false;
            }
            numbered += 1;
        }
    }
    numbered > 0
}

/// The refusal of hunk `index` placed afresh at `stripped` without its
/// line-number prefixes while file line `line` (0-based) holds `text`, one
/// of its numbered old lines, whole: the numbers may be the file's own
/// text (a stale edit of it), not a view's.
fn numbers_held_as_text(index: usize, line: usize, text: &str, stripped: &Located) -> Failure {
    failure(
        index,
        Reason::Ambiguous,
        format!(
            "with its line-number prefixes taken off as a numbered view's, its old side stands at line {}, but line {} holds `{text}` with its number as the file's own text, where the lines as written do not stand: drop the prefixes if they are not in the file",
            stripped.start + 1,
            line + 1
        ),
    )
}

/// The refusal of hunk `index` whose lines as written stood with their
/// numbers (`written`) while the reading without the numbers, needed
/// because another hunk does not place as written, finds it elsewhere or
/// otherwise (`stripped`).
fn readings_disagree(index: usize, written: &Located, stripped: &Located) -> Failure {
    let state = |l: &Located| match l.status {
        HunkStatus::Applied => format!("its old side stands at line {}", l.start + 1),
        HunkStatus::AlreadyApplied => format!("it is already applied at line {}", l.start + 1),
        HunkStatus::NoOp => format!("it changes nothing at line {}", l.start + 1),
    };
    failure(
        index,
        Reason::Ambiguous,
        format!(
            "read as written, with its line-number prefixes (`N | `, `N: `) as the file's own text, {}; with the prefixes taken off as a numbered view's, {}: the two readings disagree; drop the prefixes if they are not in the file",
            state(written),
            state(stripped)
        ),
    )
}
