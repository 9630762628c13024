//! Whitespace as proof of done (rule 7): an added line that repeats a
//! removed line of the hunk but for whitespace (a re-indented statement, a
//! tab for spaces, respaced operators) reads, with whitespace forgiven, as
//! the line it repeats. Where such a line stands is then no proof that the
//! hunk was applied: only its whitespace tells, read through the
//! indentation the hunk's context lines show at the place (rule 6's map,
//! `indent.rs`), so that a block written at column 0 is read as the file
//! indents it.

use super::indent::{self, IndentPair, Mapped};
use super::keys::FileKeys;
use super::normalize::{fuzzy_key, indentation, same_but_whitespace, whitespace_key};
use crate::model::{Hunk, LineKind};
use std::collections::HashMap;

/// Which added lines must stand with the patch's whitespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Spacing {
    /// Those repeating a removed line but for whitespace.
    Respaced,
    /// Those too, and every other added line at its mapped indentation
    /// (the new side read around an old side: a file line the hunk does
    /// not quote reads as an added line only where the patch puts it).
    Indented,
}

/// True when every added line of `hunk` that repeats a removed line but
/// for whitespace stands at its file line as the patch writes it, and with
/// [`Spacing::Indented`] every other non-blank added line at the
/// indentation the context gives it. `at[i]` is the file line (0-based)
/// the candidate put the `i`-th line of the new side on, `None` where it
/// put none.
///
/// Each line is read through the indentation map the context lines give
/// at the place (rule 6). A repeated line is held to stand unless the file
/// line is the removed line it repeats (mapped, or as written where the
/// map reads both alike), and not the added line: a file line that is
/// neither (an editor re-indented it, the map does not settle it) is no
/// evidence either way and keeps the reading with whitespace forgiven.
/// Trailing whitespace is forgiven unless it is all the line changes. An
/// other added line counts as indented otherwise only where the map
/// settles it, a context line stands at its patch indentation, and the
/// file indents with the same character.
pub(super) fn spacing_stands(
    keys: &FileKeys,
    hunk: &Hunk,
    at: &[Option<usize>],
    spacing: Spacing,
) -> bool {
    let new: Vec<_> = hunk.lines.iter().filter(|l| l.is_new()).collect();
    // Only removed lines: a copy of a context line added beside it stands
    // where the fresh file holds another line (the context after it).
    let old: Vec<&str> = hunk
        .lines
        .iter()
        .filter(|l| l.kind == LineKind::Remove)
        .map(|l| l.text.as_str())
        .collect();
    // The removed lines by their whitespace key, keyed once: each added
    // line then finds the lines spelling it in one lookup (a long rewrite
    // would otherwise compare every added line with every removed one).
    let mut by_key: HashMap<String, Vec<&str>> = HashMap::new();
    for o in &old {
        by_key.entry(whitespace_key(o)).or_default().push(o);
    }
    // The added lines to check, each with the removed lines spelling it.
    let checked: Vec<(usize, Vec<&str>)> = new
        .iter()
        .enumerate()
        .filter(|(_, l)| l.kind == LineKind::Add && !l.text.trim().is_empty())
        .filter_map(|(i, l)| {
            let spelled: Vec<&str> = if old.is_empty() {
                Vec::new()
            } else {
                by_key
                    .get(&whitespace_key(&l.text))
                    .cloned()
                    .unwrap_or_default()
            };
            (!spelled.is_empty() || spacing == Spacing::Indented).then_some((i, spelled))
        })
        .collect();
    if checked.is_empty() {
        return true;
    }
    let map = ContextMap::at(keys, &new, at);
    checked.iter().all(|(i, spelled)| {
        let Some(Some(j)) = at.get(*i) else {
            return true;
        };
        let file = keys.text(*j);
        let text = new[*i].text.as_str();
        if spelled.is_empty() {
            return map.indents_as_mapped(text, &file);
        }
        !is_old_line(&map, text, spelled, &file)
    })
}

/// True when `file` reads as one of the removed lines `spelled` (which
/// repeat `added` but for whitespace) and not as `added`. Each line is read
/// at every indentation the context map admits for it: a file line only
/// one side's readings give tells; one both sides' readings give is the
/// side the map settles (the new side only where it settles the added line
/// and not the old one); one neither side's readings give is read by what
/// the patch changes: the trailing blanks (not made), the text past the
/// indentation, or the indentation as written (an editor may have
/// re-indented the applied state: then nothing tells, and the line stands).
fn is_old_line(map: &ContextMap, added: &str, spelled: &[&str], file: &str) -> bool {
    let at_end = spelled
        .iter()
        .any(|o| o.trim_end() == added.trim_end() && *o != added);
    let same = |a: &str, b: &str| a == b || (!at_end && a.trim_end() == b.trim_end());
    let (new_reads, new_settled) = map.readings(added);
    let old_reads: Vec<(Vec<String>, bool)> = spelled.iter().map(|o| map.readings(o)).collect();
    let is_new = new_reads.iter().any(|r| same(file, r));
    let is_old = old_reads
        .iter()
        .any(|(reads, _)| reads.iter().any(|r| same(file, r)));
    match (is_new, is_old) {
        (true, false) => false,
        (false, true) => true,
        // The old line standing byte for byte as written is the one
        // reading the map cannot move: the new side read through the map
        // is then the map's doing (`change_erased_by_map` refuses it).
        (true, true) if file != added && spelled.contains(&file) => true,
        (true, true) if file == added && new_settled && old_reads.iter().all(|(_, s)| *s) => false,
        (true, true) => !(new_settled && old_reads.iter().all(|(_, settled)| !settled)),
        (false, false) if at_end => true,
        (false, false) => {
            let inner = spelled.iter().any(|o| o.trim_start() != added.trim_start());
            if inner {
                let body = file.trim_start();
                !same(body, added.trim_start())
                    && spelled.iter().any(|o| same(body, o.trim_start()))
            } else if !same(file, added) && spelled.iter().any(|o| same(file, o)) {
                true
            } else {
                nearer_old_width(file, added, spelled)
            }
        }
    }
}

/// True when the file line, the added line and the old lines are all
/// indented with spaces only and the file's width is nearer an old line's
/// than the added line's (a SEARCH line quoted one column off: Roo's
/// extra column on its first line).
fn nearer_old_width(file: &str, added: &str, spelled: &[&str]) -> bool {
    let width = |s: &str| {
        let i = indentation(s);
        i.chars().all(|c| c == ' ').then_some(i.len())
    };
    let (Some(f), Some(a)) = (width(file), width(added)) else {
        return false;
    };
    spelled
        .iter()
        .filter_map(|o| width(o))
        .any(|o| f.abs_diff(o) < f.abs_diff(a))
}

/// The indentation map the new side's context lines give at a place.
struct ContextMap {
    pairs: Vec<IndentPair>,
    step: Option<usize>,
}

impl ContextMap {
    fn at(keys: &FileKeys, new: &[&crate::model::HunkLine], at: &[Option<usize>]) -> Self {
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
        let step = match (placed.clone().min(), placed.max()) {
            (Some(&f), Some(&l)) if pairs.iter().any(|p| p.patch != p.file) => {
                indent::indents_around((f, l + 1, keys.len()), |j| keys.text(j)).step
            }
            _ => None,
        };
        ContextMap { pairs, step }
    }

    /// `text` re-indented as the map settles it; `None` where it does not.
    fn write(&self, text: &str) -> Option<String> {
        match self.readings(text) {
            (mut reads, true) => reads.pop(),
            _ => None,
        }
    }

    /// Every way the map writes `text` (re-indented), and whether it
    /// settles it (one way).
    fn readings(&self, text: &str) -> (Vec<String>, bool) {
        let indent = indentation(text);
        let body = &text[indent.len()..];
        let at = |file: &str| format!("{file}{body}");
        let indent_of = |line: usize| {
            self.pairs
                .iter()
                .find(|p| p.file_line == line)
                .map(|p| p.file.clone())
        };
        match indent::map_indent(&self.pairs, indent, self.step) {
            Mapped::AsWritten => (vec![text.to_string()], true),
            Mapped::To(file) => (vec![at(&file)], true),
            Mapped::Undetermined(found) if !found.is_empty() => {
                (found.iter().map(|f| at(f)).collect(), false)
            }
            Mapped::Split(a, b) => {
                let reads: Vec<String> = [a, b]
                    .into_iter()
                    .filter_map(indent_of)
                    .map(|f| at(&f))
                    .collect();
                (reads, false)
            }
            Mapped::OffGrid(file) => (vec![at(&file)], false),
            _ => (vec![text.to_string()], false),
        }
    }

    /// False only where the map settles `added` at an indentation other
    /// than `file`'s, made of the same character (an editor turning tabs
    /// into spaces says nothing of the level).
    fn indents_as_mapped(&self, added: &str, file: &str) -> bool {
        // Only a context line at the added line's own indentation says
        // where the file has that level: without one, the level is the
        // map's guess (a removed line that gave it is gone once applied),
        // and nothing holds the line to it.
        let indent = indentation(added);
        if !self.pairs.iter().any(|p| p.patch == indent) {
            return true;
        }
        let Some(want) = self.write(added) else {
            return true;
        };
        let (w, f) = (indentation(&want), indentation(file));
        let one_char = |s: &str| s.chars().next().map(|c| s.chars().all(|d| d == c));
        let same_char = match (w.chars().next(), f.chars().next()) {
            (Some(a), Some(b)) => a == b && one_char(w) == Some(true) && one_char(f) == Some(true),
            _ => true,
        };
        !same_char || w == f
    }
}

/// True when a hunk that changes only whitespace (its added lines, in
/// order, repeat its removed lines but for whitespace) writes, re-indented
/// as the candidate's matched lines map them (`added`, rule 6), exactly
/// the lines the file holds where it removes: the map erased the change
/// (a SEARCH whose first line is one column deeper than the file, the
/// lines under it as the file has them, all moved one column in REPLACE).
pub(super) fn change_erased_by_map(
    keys: &FileKeys,
    hunk: &Hunk,
    old: &[super::keys::OldLine],
    cand: &super::search::Candidate,
    added: &indent::AddedIndents,
) -> bool {
    let removed: Vec<(usize, &str)> = old
        .iter()
        .zip(&cand.slots)
        .filter(|(l, _)| l.kind == LineKind::Remove)
        .filter_map(|(l, s)| match s {
            super::Slot::Line(j, _) => Some((*j, l.text)),
            _ => None,
        })
        .collect();
    let adds: Vec<&str> = hunk
        .lines
        .iter()
        .filter(|l| l.kind == LineKind::Add)
        .map(|l| l.text.as_str())
        .collect();
    let removes = hunk
        .lines
        .iter()
        .filter(|l| l.kind == LineKind::Remove)
        .count();
    if adds.is_empty() || adds.len() != removed.len() || removes != removed.len() {
        return false;
    }
    removed.iter().zip(&adds).all(|(&(j, r), &a)| {
        let written = added.reindent(a).unwrap_or_else(|| a.to_string());
        r != a && same_but_whitespace(r, a) && *keys.text(j) == *written
    })
}
