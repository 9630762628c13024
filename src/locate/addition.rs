//! A pure addition (a hunk with no old lines) at its place: inserted
//! there unless that overlaps a placed hunk, or found there already. Both
//! ways of placing one use these, by its anchor or the end of the file
//! (`applied.rs`) and by its line number alone (`numbered.rs`).

use super::keys::FileKeys;
use super::normalize::same_but_whitespace;
use super::{FileState, Footprint, HunkStatus, Located, Reason, fixed};
use crate::model::Hunk;

/// A failure to place a pure addition: reason, message, candidate lines.
pub(super) type PlaceError = (Reason, String, Vec<usize>);

/// A pure addition inserted at `at`, unless that overlaps a placed hunk.
pub(super) fn insert_at(
    hunk: &Hunk,
    index: usize,
    at: usize,
    state: &FileState,
) -> Result<Located, PlaceError> {
    if let Some(other) = state.overlapping(&Footprint::of(hunk, at, at, &[])) {
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

/// The first line of a copy of a pure addition's lines at its insertion
/// point (or, for an append at the end of the file, right before it), when
/// they are there already, exactly but for whitespace.
pub(super) fn addition_present(
    keys: &FileKeys,
    hunk: &Hunk,
    at: usize,
    appending: Option<&[&str]>,
) -> Option<usize> {
    let added = keys.new_side(hunk);
    let k = added.len();
    // A line with a word in it tells (a comment counts, as in
    // `already_applied`); blank lines and brackets could stand anywhere.
    if added
        .iter()
        .all(|l| !l.text.chars().any(char::is_alphanumeric))
    {
        return None;
    }
    // The file's byte-order mark is not part of its first line's text: an
    // added first line that carries one (a file created with it) stands
    // there without it.
    let bom = keys.source().has_bom();
    fn text_at(j: usize, text: &str, bom: bool) -> &str {
        match text.strip_prefix('\u{feff}') {
            Some(rest) if j == 0 && bom => rest,
            _ => text,
        }
    }
    let fits = |start: usize| {
        start + k <= keys.len()
            && added.iter().enumerate().all(|(i, l)| {
                same_but_whitespace(&keys.text(start + i), text_at(start + i, l.text, bom))
            })
    };
    let before = appending.and_then(|_| at.checked_sub(k));
    // Before the later appends' lines, when those end the file.
    let before_later = appending
        .filter(|later| !later.is_empty())
        .and_then(|later| {
            let from = at.checked_sub(later.len())?;
            later
                .iter()
                .enumerate()
                .all(|(i, l)| same_but_whitespace(&keys.text(from + i), l))
                .then(|| from.checked_sub(k))
                .flatten()
        });
    // Before blank lines that end the file (an editor's trailing blank
    // line after the appended block).
    let before_blanks = appending.filter(|later| later.is_empty()).and_then(|_| {
        let blanks = (0..at)
            .rev()
            .take_while(|&j| keys.text(j).trim().is_empty())
            .count();
        (blanks > 0).then(|| at.checked_sub(blanks + k)).flatten()
    });
    [Some(at), before, before_later, before_blanks]
        .into_iter()
        .flatten()
        .find(|&s| fits(s))
}
