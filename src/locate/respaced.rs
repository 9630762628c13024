//! Whitespace as proof of done (rule 7): an added line that repeats a line
//! of the hunk's old side but for whitespace (a re-indented statement, a
//! tab for spaces, respaced operators) reads, with whitespace forgiven, as
//! the line it repeats. Where such a line stands is then no proof that the
//! hunk was applied: only its whitespace tells, read through the
//! indentation the hunk's context lines show at the place (rule 6's map,
//! `indent.rs`), so that a block written at column 0 is read as the file
//! indents it.

use super::indent::{self, AddedIndents, IndentPair};
use super::keys::FileKeys;
use super::normalize::{fuzzy_key, indentation, same_but_whitespace};
use crate::model::{Hunk, LineKind};

/// Which added lines must stand with the patch's whitespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Spacing {
    /// Those repeating an old-side line but for whitespace.
    Respaced,
    /// Those too, and every other added line at its mapped indentation
    /// (the new side read around an old side: a file line the hunk does
    /// not quote reads as an added line only where the patch puts it).
    Indented,
}

/// True when every added line of `hunk` that repeats an old-side line but
/// for whitespace stands at its file line with the whitespace the patch
/// gives it (its indentation mapped as the context lines map theirs), and
/// with [`Spacing::Indented`] every other non-blank added line at its
/// mapped indentation. `at[i]` is the file line (0-based) the candidate
/// put the `i`-th line of the new side on, `None` where it put none.
/// Trailing whitespace is forgiven (an editor may trim it) unless it is
/// all the line changes.
pub(super) fn spacing_stands(
    keys: &FileKeys,
    hunk: &Hunk,
    at: &[Option<usize>],
    spacing: Spacing,
) -> bool {
    let new: Vec<_> = hunk.lines.iter().filter(|l| l.is_new()).collect();
    let old: Vec<&str> = hunk
        .lines
        .iter()
        .filter(|l| l.is_old())
        .map(|l| l.text.as_str())
        .collect();
    // The added lines to check: whether one differs from the old-side
    // line spelling it only at its end, and whether one is spelled so.
    let respaced: Vec<(usize, bool, bool)> = new
        .iter()
        .enumerate()
        .filter(|(_, l)| l.kind == LineKind::Add && !l.text.trim().is_empty())
        .filter_map(|(i, l)| {
            let spelled: Vec<&&str> = old
                .iter()
                .filter(|o| same_but_whitespace(o, &l.text))
                .collect();
            let at_end = spelled
                .iter()
                .any(|o| o.trim_end() == l.text.trim_end() && **o != l.text.as_str());
            let checked = !spelled.is_empty() || spacing == Spacing::Indented;
            checked.then_some((i, at_end, !spelled.is_empty()))
        })
        .collect();
    if respaced.is_empty() {
        return true;
    }
    let mut pairs = Vec::new();
    for (line, j) in new.iter().zip(at) {
        let Some(j) = *j else { continue };
        if line.kind != LineKind::Context || line.text.trim().is_empty() {
            continue;
        }
        let file = keys.text(j);
        if *line.text == *file || fuzzy_key(&line.text) == fuzzy_key(&file) {
            pairs.push(IndentPair {
                patch: indentation(&line.text).to_string(),
                file: indentation(&file).to_string(),
                file_line: j,
            });
        }
    }
    let placed = at.iter().flatten();
    let (first, last) = match (placed.clone().min(), placed.max()) {
        (Some(&f), Some(&l)) => (f, l + 1),
        _ => return false,
    };
    let added = AddedIndents::of(hunk, &pairs, || {
        indent::indents_around((first, last, keys.len()), |j| keys.text(j))
    });
    respaced.iter().all(|&(i, at_end, spelled)| {
        let Some(Some(j)) = at.get(i) else {
            return false;
        };
        let text = new[i].text.as_str();
        if !added.settles(text) {
            return false;
        }
        let want = added.reindent(text).unwrap_or_else(|| text.to_string());
        let file = keys.text(*j);
        if !spelled {
            // Without a context line to map by, the patch's indentation
            // is no level of the file's: nothing to hold the line to.
            return pairs.is_empty() || indentation(&file) == indentation(&want);
        }
        *file == *want || (!at_end && file.trim_end() == want.trim_end())
    })
}
