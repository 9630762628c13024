//! SEARCH/REPLACE blocks (Aider, Roo-Code) and the Roo `<apply_diff>` XML envelope.
//!
//! A block is `<<<<<<< SEARCH`, optional `:start_line:N`, optional `-------`,
//! search lines, `=======`, replace lines, `>>>>>>> REPLACE`. Each block becomes
//! one hunk: a line diff of the search lines against the replace lines.

use super::cleanup::Src;
use super::elision;
use super::malformed;
use super::numbering::{
    strip_following, strip_gutter_residue, strip_numbered_after_first, strip_numbered_section,
};
use crate::error::ParseError;
use crate::model::{FileOp, FilePatch, Hunk, HunkLine, LineKind, PatchFormat};
use similar::{Algorithm, DiffOp, capture_diff_slices};

pub(crate) use super::sr_block::{
    Block, is_divider, is_replace, is_search, parse_block, parse_openerless, stray_divider_habit,
};

/// Turns a block into one hunk (line diff of search vs replace). Returns the
/// hunk and whether the search section was empty (create or append).
pub(crate) fn block_hunk(
    src: &Src,
    block: Block,
    default_hint: Option<usize>,
) -> Result<(Hunk, bool), ParseError> {
    let at = src.orig(block.open);
    let content = block.content_reading();
    let mut block = block;
    if let Some(lines) = content.clone().filter(|_| block.search.is_empty()) {
        // Nothing left to find once the line markers are taken out: they
        // are content.
        block.search = lines;
        block.start_line = None;
        block.end_line = None;
        block.at.0 = block.open + 1;
    }
    let (search_at, replace_at) = block.at;
    let (raw_search, raw_replace) = (block.search.clone(), block.replace.clone());
    let Unnumbered {
        search,
        replace,
        hint,
    } = unnumbered(block.search, block.replace, block.start_line);
    let stripped = hint.is_some();
    // Blank search lines under a `:start_line:` are lines to find (Roo);
    // otherwise a blank SEARCH creates or appends, as in Aider.
    let empty_search = search.iter().all(|l| l.trim().is_empty())
        && (block.start_line.is_none() || search.is_empty());
    if empty_search && replace.is_empty() {
        return Err(malformed(at, "SEARCH and REPLACE sections are both empty"));
    }
    let mut hunk = Hunk {
        patch_line: at,
        line_hint: block.start_line.or(default_hint).or(hint),
        // A numbered view's prefixes under another `:start_line:`: a
        // second reading of the place.
        view_start: hint.filter(|&n| block.start_line.or(default_hint).is_some_and(|s| s != n)),
        end_hint: block.start_line.and(block.end_line),
        stray_divider: block.stray_divider,
        ..Hunk::default()
    };
    if empty_search {
        hunk.lines = replace
            .into_iter()
            .map(|t| HunkLine::new(LineKind::Add, t))
            .collect();
        return Ok((hunk, true));
    }
    hunk.lines = diff_lines(&search, &replace);
    let line_of =
        |in_replace: bool, k: usize| src.orig(if in_replace { replace_at } else { search_at } + k);
    let removes = elision::removes(&hunk.lines);
    hunk.elision = elision::read(&search, &replace, &line_of, diff_lines, removes).map(|mut e| {
        // The block's line hint is the first piece's, when it starts the block.
        if let Ok(pieces) = &mut e.pieces
            && let Some(first) = pieces.first_mut()
            && first.patch_line == line_of(false, 0)
        {
            first.line_hint = hunk.line_hint;
        }
        Box::new(e)
    });
    // Under `:start_line:`, a first SEARCH line that kept the `| ` of its
    // `N | ` prefix: read without it where the block stands nowhere.
    hunk.gutter_residue = block.start_line.is_some()
        && !stripped
        && strip_gutter_residue(&search, &replace).is_some();
    let blank = |l: Option<&String>| l.is_some_and(|l| l.trim().is_empty());
    hunk.trailing_blank_search = blank(search.last())
        && search.len() > 1
        && !blank(search.get(search.len() - 2))
        && hunk.elision.is_none();
    if stripped && !raw_search.iter().all(|l| l.trim().is_empty()) {
        hunk.as_written = Some(diff_lines(&raw_search, &raw_replace));
    } else if let Some(lines) = content.filter(|_| block.start_line.is_some()) {
        hunk.as_written = Some(diff_lines(&lines, &raw_replace));
    }
    Ok((hunk, false))
}

/// A block's sections with Roo's line-number prefixes (`12 | `) taken off.
struct Unnumbered {
    search: Vec<String>,
    replace: Vec<String>,
    /// The first SEARCH line's number, when SEARCH was numbered.
    hint: Option<usize>,
}

/// Takes the line-number prefixes off a block's sections: SEARCH numbered
/// throughout, or on every line but the first under `:start_line:` (and
/// REPLACE as SEARCH was), or only REPLACE when SEARCH is blank.
fn unnumbered(search: Vec<String>, replace: Vec<String>, start: Option<usize>) -> Unnumbered {
    let numbered = strip_numbered_section(&search, true)
        .or_else(|| start.and_then(|n| strip_numbered_after_first(&search, n)));
    if let Some((search, numbering)) = numbered {
        return Unnumbered {
            replace: strip_following(&replace, numbering),
            search,
            hint: Some(numbering.first),
        };
    }
    let blank_search = search.iter().all(|l| l.trim().is_empty());
    let replace = match blank_search.then(|| strip_numbered_section(&replace, true)) {
        Some(Some((r, _))) => r,
        _ => replace,
    };
    Unnumbered {
        search,
        replace,
        hint: None,
    }
}

/// The hunk lines of a SEARCH/REPLACE pair: a line diff of the two sections,
/// compacted.
pub(crate) fn diff_lines(search: &[String], replace: &[String]) -> Vec<HunkLine> {
    let mut lines = Vec::new();
    let old: Vec<&str> = search.iter().map(String::as_str).collect();
    let new: Vec<&str> = replace.iter().map(String::as_str).collect();
    for op in capture_diff_slices(Algorithm::Myers, &old, &new) {
        let (o, n) = match op {
            DiffOp::Equal { old_index, len, .. } => {
                let same = old.get(old_index..old_index + len).unwrap_or(&[]);
                lines.extend(same.iter().map(|t| HunkLine::new(LineKind::Context, *t)));
                continue;
            }
            DiffOp::Delete {
                old_index, old_len, ..
            } => (old_index..old_index + old_len, 0..0),
            DiffOp::Insert {
                new_index, new_len, ..
            } => (0..0, new_index..new_index + new_len),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => (
                old_index..old_index + old_len,
                new_index..new_index + new_len,
            ),
        };
        let removed = old.get(o).unwrap_or(&[]);
        lines.extend(removed.iter().map(|t| HunkLine::new(LineKind::Remove, *t)));
        let added = new.get(n).unwrap_or(&[]);
        lines.extend(added.iter().map(|t| HunkLine::new(LineKind::Add, *t)));
    }
    compact_changes(&mut lines);
    lines
}

/// Slides a run of only removed (or only added) lines through identical
/// context lines until it touches another change, as git's diff does: of
/// several identical blank lines, the one removed is the one next to the
/// rest of the edit, which is what the author meant.
fn compact_changes(lines: &mut [HunkLine]) {
    let is_change = |l: &HunkLine| l.kind != LineKind::Context;
    let mut a = 0;
    while a < lines.len() {
        if !is_change(&lines[a]) {
            a += 1;
            continue;
        }
        let kind = lines[a].kind;
        let mut b = a;
        while b < lines.len() && lines[b].kind == kind {
            b += 1;
        }
        let pure = b == lines.len() || !is_change(&lines[b]);
        let isolated = pure && (a == 0 || !is_change(&lines[a - 1]));
        if isolated {
            // How far can the run move up, and does it then touch a change?
            let mut up = 0;
            while a > up
                && lines[a - up - 1].kind == LineKind::Context
                && lines[a - up - 1].text == lines[b - up - 1].text
            {
                up += 1;
            }
            let touches_above = a > up && is_change(&lines[a - up - 1]);
            if up > 0 && touches_above {
                for k in 0..up {
                    lines[a - k - 1].kind = kind;
                    lines[b - k - 1].kind = LineKind::Context;
                }
            }
        }
        a = b;
    }
}

/// Adds a block's hunk for `path` to `files`, merging into the last file patch
/// when it is the same path's SEARCH/REPLACE edits, named the same way
/// (`bare`: the bare word that named it, see `model::BareName`).
pub(crate) fn push_hunk(
    files: &mut Vec<FilePatch>,
    path: String,
    hunk: Hunk,
    create: bool,
    bare: Option<crate::model::BareName>,
) {
    if let Some(last) = files.last_mut()
        && last.format == PatchFormat::SearchReplace
        && last.path == path
        && last.bare_name == bare
    {
        last.create_if_missing |= create;
        last.hunks.push(hunk);
        return;
    }
    let mut fp = FilePatch::new(
        path,
        FileOp::Update,
        PatchFormat::SearchReplace,
        hunk.patch_line,
    );
    fp.create_if_missing = create;
    fp.bare_name = bare;
    fp.hunks.push(hunk);
    files.push(fp);
}

#[cfg(test)]
mod tests;
