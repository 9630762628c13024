//! How the patch's indentation maps onto the file's (rule 6 of "One
//! placement decision" in `docs/matching.md`), learned from the lines a
//! candidate matched; used by the locator (to refuse an added line whose
//! indentation the map does not determine) and by the planner (to
//! re-indent added lines) alike, so the two never disagree.
//!
//! Each matched whole non-blank line (or its beginning cut with `...`)
//! pairs the patch's indentation with the file's. When they all agree the added lines are written as the patch has
//! them. Otherwise an added line at an indentation some matched line has
//! takes that line's file indentation (refused when such lines stand at two
//! file indentations: the block's structure is not the file's). An added
//! line at an indentation no matched line has is placed by the maps that
//! fit every matched line (a constant prefix change, or a level scale); with
//! a single matched level, writing the line as the patch has it is a
//! reading too. It is written only when every reading gives the same bytes.
//! A line written as given with the other character than every indented
//! line around the place (a tab in a file indented with spaces) is refused
//! unless its hunk has a numbered header, which is written as `git apply`
//! writes it.

use super::Slot;
use super::normalize::{fuzzy_key, indentation};
use crate::model::{Hunk, HunkLine, LineKind};
use std::borrow::Cow;

/// One matched line's indentation in the patch and in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IndentPair {
    /// The patch line's indentation.
    pub patch: String,
    /// The file line's indentation.
    pub file: String,
    /// The file line (0-based).
    pub file_line: usize,
}

/// What the matched lines give an added line indented some way in the patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Mapped {
    /// Written as the patch has it.
    AsWritten,
    /// Written with this file indentation.
    To(String),
    /// Matched lines of the same patch indentation stand at these two file
    /// lines (0-based), indented differently.
    Split(usize, usize),
    /// No map fitting the matched lines determines it: the distinct
    /// indentations the readings give (none when no map fits).
    Undetermined(Vec<String>),
    /// The one reading writes it with this many spaces, between the file's
    /// own indentation steps around the place.
    OffGrid(String),
    /// Written as the patch has it, it would be indented with the other
    /// character than every indented file line around the place (a tab in
    /// a file indented with spaces): this one, the file's.
    OtherChar(char),
}

impl Mapped {
    /// Whether the line is written one way: as the patch has it, or at one
    /// file indentation.
    fn settled(&self) -> bool {
        matches!(self, Mapped::AsWritten | Mapped::To(_))
    }
}

/// The indentation pairs of the non-blank lines `slots` matched, in hunk
/// order; `text` gives a file line's text.
pub(crate) fn pairs<'t>(
    hunk: &Hunk,
    slots: &[Slot],
    text: impl Fn(usize) -> Cow<'t, str>,
) -> Vec<IndentPair> {
    let olds = hunk.lines.iter().filter(|l| l.is_old());
    let mut out = Vec::new();
    for (line, slot) in olds.zip(slots) {
        let Slot::Line(j, _) = slot else { continue };
        let file = text(*j);
        // Only whole lines say how the patch indents: not blank ones, and
        // not a fragment of a line's end (its indentation is where it was
        // cut); a line's beginning cut with `...` keeps its own.
        // (Lines equal byte for byte need no keys: most of them.)
        let whole = *line.text == *file || fuzzy_key(&line.text) == fuzzy_key(&file);
        if line.text.trim().is_empty() || !(whole || head_fragment(&line.text, &file)) {
            continue;
        }
        out.push(IndentPair {
            patch: indentation(&line.text).to_string(),
            file: indentation(&file).to_string(),
            file_line: *j,
        });
    }
    out
}

/// Whether `patch` is the beginning of `file` cut with `...` or `…`.
fn head_fragment(patch: &str, file: &str) -> bool {
    let cut = patch.trim_end();
    let Some(head) = ["...", "\u{2026}"].iter().find_map(|e| cut.strip_suffix(e)) else {
        return false;
    };
    let head = fuzzy_key(head);
    let head = head.trim_end();
    !head.is_empty() && fuzzy_key(file).starts_with(head)
}

/// The character an indentation is made of: `None` for an empty one,
/// `Some(None)` for one mixing spaces and tabs.
fn made_of(s: &str) -> Option<Option<char>> {
    let first = s.chars().next()?;
    Some(s.chars().all(|c| c == first).then_some(first))
}

/// Whether a matched line indented `patch` says anything about an added
/// line indented `added`: not when one is made of spaces and the other of
/// tabs (a line whose indentation drifted to the other character is no
/// level of the patch's own).
fn comparable(patch: &str, added: &str) -> bool {
    match (made_of(patch), made_of(added)) {
        (Some(Some(a)), Some(Some(b))) => a == b,
        _ => true,
    }
}

/// The file indentation the matched lines give to an added line indented
/// `indent` in the patch (rule 6); `grid` is the file's step of space
/// indentation around the place, when it has one.
pub(crate) fn map_indent(pairs: &[IndentPair], indent: &str, grid: Option<usize>) -> Mapped {
    let mut pairs: Vec<&IndentPair> = pairs
        .iter()
        .filter(|p| comparable(&p.patch, indent))
        .collect();
    // Lines stripped to column 0 beside lines the file has at column 0
    // lost their indentation: no level of the patch's for an indented
    // added line (`if ready:` / `-start()` / `+    start(fast=True)`).
    let flush = |p: &&IndentPair| p.patch.is_empty() && p.file.is_empty();
    if !indent.is_empty() && pairs.iter().any(flush) {
        pairs.retain(|p| !p.patch.is_empty() || p.file.is_empty());
    }
    if pairs.iter().all(|p| p.patch == p.file) {
        return Mapped::AsWritten;
    }
    let same: Vec<&&IndentPair> = pairs.iter().filter(|p| p.patch == indent).collect();
    if let Some(first) = same.first()
        && let Some(other) = same.iter().find(|p| p.file != first.file)
    {
        // Two file indentations for one of the patch's: the block's
        // structure is not the file's, and no neighbour can say which the
        // added line follows (the statement above it, or the block it sits
        // in).
        return Mapped::Split(first.file_line, other.file_line);
    }
    // A reading must indent with the file's character where the matched
    // lines' file side uses one.
    let file_char = one_char(pairs.iter().map(|p| p.file.as_str()));
    let table = level_table(&pairs);
    let all: Vec<&Level> = table.iter().collect();
    let mut found = readings(&all, indent, file_char, true);
    if found.is_empty() {
        return Mapped::Undetermined(found);
    }
    // One context line may be the one mis-indented: the readings without
    // each line that alone stands at its patch indentation must agree,
    // unless such a reading falls between the file's own steps.
    let on_grid = |r: &String| !spaces_off_grid(r, grid);
    for (k, level) in table.iter().enumerate() {
        if level.lines == 1 && table.len() > 1 {
            let rest: Vec<&Level> = (table.iter().enumerate())
                .filter_map(|(i, l)| (i != k).then_some(l))
                .collect();
            let mut more = readings(&rest, indent, file_char, false);
            more.retain(on_grid);
            found.extend(more);
        }
    }
    found.sort();
    found.dedup();
    match found.as_slice() {
        [one] if one == indent => Mapped::AsWritten,
        [one] if !on_grid(one) => Mapped::OffGrid(one.clone()),
        [one] => Mapped::To(one.clone()),
        _ => Mapped::Undetermined(found),
    }
}

/// Whether `indent` is made of spaces and falls between the steps of `grid`.
fn spaces_off_grid(indent: &str, grid: Option<usize>) -> bool {
    grid.is_some_and(|g| made_of(indent) == Some(Some(' ')) && !indent.len().is_multiple_of(g))
}

/// One patch indentation of the matched lines.
struct Level {
    /// The patch's indentation.
    patch: String,
    /// The file's indentation for it; `None` when its lines stand at two.
    file: Option<String>,
    /// How many matched lines have it.
    lines: usize,
}

/// The patch indentations of the matched lines, sorted by width.
fn level_table(pairs: &[&IndentPair]) -> Vec<Level> {
    let mut by_patch: std::collections::BTreeMap<(usize, &str), Level> = Default::default();
    for p in pairs {
        let level = by_patch
            .entry((p.patch.len(), p.patch.as_str()))
            .or_insert_with(|| Level {
                patch: p.patch.clone(),
                file: Some(p.file.clone()),
                lines: 0,
            });
        level.lines += 1;
        if level.file.as_ref().is_some_and(|f| *f != p.file) {
            level.file = None;
        }
    }
    by_patch.into_values().collect()
}

/// The readings of an added line indented `indent` from `levels`, with the
/// file's indentation character where it has one. A seen level gives its
/// file indentation; an unseen one the readings of every map that fits the
/// levels and, with a single level, the line as written (the context alone
/// may have been re-indented). Where no map fits (a context line
/// mis-indented), the shifts from the nearest seen level below and above
/// it. The last two only for all the matched lines (`whole`), not for the
/// readings without one of them.
fn readings(levels: &[&Level], indent: &str, file_char: Option<char>, whole: bool) -> Vec<String> {
    let fits = |r: &String| file_char.is_none_or(|c| r.chars().all(|x| x == c));
    if let Some(seen) = levels.iter().find(|l| l.patch == indent) {
        return seen.file.iter().cloned().collect();
    }
    let known: Option<Vec<(String, String)>> = levels
        .iter()
        .map(|l| Some((l.patch.clone(), l.file.clone()?)))
        .collect();
    let Some(known) = known.filter(|k| !k.is_empty()) else {
        return Vec::new();
    };
    let mut out: Vec<String> = match maps_fitting(&known) {
        Some(maps) => maps.iter().filter_map(|m| m.apply(indent)).collect(),
        None if whole => nearest_level_shifts(&known, indent),
        None => Vec::new(),
    };
    out.retain(fits);
    let written = indent.to_string();
    if whole && known.len() == 1 && !out.is_empty() && fits(&written) {
        out.push(written);
    }
    out
}

/// The shifts from the nearest seen level below and above `indent`.
fn nearest_level_shifts(known: &[(String, String)], indent: &str) -> Vec<String> {
    let mut out = Vec::new();
    let below = known.iter().rev().find(|(p, _)| p.len() < indent.len());
    if let Some((p, f)) = below {
        out.extend(indent.strip_prefix(p.as_str()).map(|r| format!("{f}{r}")));
    }
    let above = known.iter().find(|(p, _)| p.len() > indent.len());
    if let Some((p, f)) = above {
        let deeper = p.strip_prefix(indent);
        out.extend(deeper.and_then(|d| f.strip_suffix(d)).map(str::to_string));
    }
    out
}

/// The character every non-empty indentation of `all` is made of.
fn one_char<'s>(all: impl Iterator<Item = &'s str>) -> Option<char> {
    let chars: Vec<Option<char>> = all.filter_map(made_of).collect();
    let c = (*chars.first()?)?;
    chars.iter().all(|x| *x == Some(c)).then_some(c)
}

/// A map from the patch's indentations to the file's.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Map {
    /// Remove the first from the start of the patch's indentation, put the
    /// second before the rest.
    Prefix(String, String),
    /// The file's width a linear function of the patch's, each side made
    /// of one character: `file = (base * den + (patch - from) * num) / den`,
    /// for `patch - from` a multiple of `grid`.
    Scale {
        /// The patch's and the file's characters.
        chars: (char, char),
        /// The patch width the line goes through, and the file's there.
        from: i64,
        /// The file's width at `from`.
        base: i64,
        /// File columns per `den` patch columns.
        num: i64,
        /// See `num`.
        den: i64,
        /// The patch's step between levels.
        grid: i64,
    },
}

impl Map {
    /// The file indentation for the patch's `indent`, when the map places it.
    fn apply(&self, indent: &str) -> Option<String> {
        match self {
            Map::Prefix(x, y) => indent.strip_prefix(x.as_str()).map(|r| format!("{y}{r}")),
            Map::Scale {
                chars,
                from,
                base,
                num,
                den,
                grid,
            } => {
                if made_of(indent).is_some_and(|c| c != Some(chars.0)) {
                    return None;
                }
                let off = indent.len() as i64 - from;
                let scaled = base * den + off * num;
                if off % grid != 0 || scaled < 0 || scaled % den != 0 {
                    return None;
                }
                Some(std::iter::repeat_n(chars.1, (scaled / den) as usize).collect())
            }
        }
    }
}

/// The maps that fit every level (`None` when none does): the constant
/// prefix changes, and the level scale (from two or more levels; from a
/// single level only where the characters differ, one tab for so many
/// spaces, with no base).
fn maps_fitting(known: &[(String, String)]) -> Option<Vec<Map>> {
    let (p0, f0) = &known[0];
    let mut maps = Vec::new();
    for i in 0..=p0.len() {
        let (x, s) = p0.split_at(i);
        let Some(y) = f0.strip_suffix(s) else {
            continue;
        };
        let fits = known.iter().all(|(p, f)| {
            p.strip_prefix(x)
                .is_some_and(|rest| *f == format!("{y}{rest}"))
        });
        if fits {
            maps.push(Map::Prefix(x.to_string(), y.to_string()));
        }
    }
    maps.extend(scale_fitting(known));
    (!maps.is_empty()).then_some(maps)
}

/// The level scale that fits every level, if any (see [`maps_fitting`]).
fn scale_fitting(known: &[(String, String)]) -> Option<Map> {
    let patch_char = one_char(known.iter().map(|(p, _)| p.as_str()));
    let file_char = one_char(known.iter().map(|(_, f)| f.as_str()))?;
    let width = |s: &str| s.len() as i64;
    if let [(p, f)] = known {
        let patch_char = patch_char?;
        if patch_char == file_char || p.is_empty() || f.is_empty() {
            return None;
        }
        let (num, den) = (width(f), width(p));
        let chars = (patch_char, file_char);
        return Some(Map::Scale {
            chars,
            from: 0,
            base: 0,
            num,
            den,
            grid: 1,
        });
    }
    let (lo, hi) = (&known[0], &known[known.len() - 1]);
    let (dp, df) = (width(&hi.0) - width(&lo.0), width(&hi.1) - width(&lo.1));
    let linear = known
        .iter()
        .all(|(p, f)| (width(p) - width(&lo.0)) * df == (width(f) - width(&lo.1)) * dp);
    if dp <= 0 || df <= 0 || !linear {
        return None;
    }
    let grid = known
        .iter()
        .fold(0, |g, (p, _)| gcd(g, width(p) - width(&lo.0)));
    Some(Map::Scale {
        chars: (patch_char?, file_char),
        from: width(&lo.0),
        base: width(&lo.1),
        num: df,
        den: dp,
        grid,
    })
}

/// Greatest common divisor of two non-negative numbers.
fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 { a.abs() } else { gcd(b, a % b) }
}

/// What the matched lines give each indentation of the hunk's non-blank
/// added lines, worked out once per hunk (a block may add thousands of
/// lines at a few indentations).
pub(crate) struct AddedIndents(Vec<(String, Mapped)>);

impl AddedIndents {
    /// The map of every indentation `hunk`'s non-blank added lines use;
    /// `around` tells how the file indents around the place (asked only
    /// when a matched line is indented otherwise than the file, or when a
    /// hunk without a numbered header adds a line indented with a
    /// character no matched line of the file is indented with).
    pub(crate) fn of(
        hunk: &Hunk,
        pairs: &[IndentPair],
        around: impl FnOnce() -> Around,
    ) -> AddedIndents {
        let kept = pairs.iter().all(|p| p.patch == p.file);
        let mut indents: Vec<&str> = Vec::new();
        for line in added(hunk) {
            let indent = indentation(&line.text);
            if !indents.contains(&indent) {
                indents.push(indent);
            }
        }
        // A numbered unified hunk is written as `git apply` writes it.
        let foreign = |indent: &str| {
            let c = made_of(indent).flatten();
            c.filter(|&c| !pairs.iter().any(|p| p.file.contains(c)))
        };
        let numbered = hunk.new_start.is_some();
        let asks = !kept || (!numbered && indents.iter().any(|i| foreign(i).is_some()));
        let around = if asks { around() } else { Around::default() };
        let grid = if kept { None } else { around.step };
        let out = indents
            .into_iter()
            .map(|indent| {
                let mapped = match map_indent(pairs, indent, grid) {
                    Mapped::AsWritten if !numbered => match (foreign(indent), around.only) {
                        (Some(c), Some(file)) if file != c => Mapped::OtherChar(file),
                        _ => Mapped::AsWritten,
                    },
                    mapped => mapped,
                };
                (indent.to_string(), mapped)
            })
            .collect();
        AddedIndents(out)
    }

    /// The first non-blank added line whose indentation the matched lines
    /// do not settle: its text and what they give it.
    pub(crate) fn unsettled<'h>(&self, hunk: &'h Hunk) -> Option<(&'h str, &Mapped)> {
        added(hunk).find_map(|l| match self.get(indentation(&l.text)) {
            Some(m) if !m.settled() => Some((l.text.as_str(), m)),
            _ => None,
        })
    }

    /// An added line re-indented onto the file's indentation; `None` when
    /// it is written as the patch has it (also where the map does not
    /// settle it: the locator refuses such hunks).
    pub(crate) fn reindent(&self, text: &str) -> Option<String> {
        if text.trim().is_empty() {
            return None;
        }
        let indent = indentation(text);
        match self.get(indent) {
            Some(Mapped::To(file)) => Some(format!("{file}{}", &text[indent.len()..])),
            _ => None,
        }
    }

    fn get(&self, indent: &str) -> Option<&Mapped> {
        self.0.iter().find(|(i, _)| i == indent).map(|(_, m)| m)
    }
}

/// The hunk's non-blank added lines.
fn added(hunk: &Hunk) -> impl Iterator<Item = &HunkLine> {
    hunk.lines
        .iter()
        .filter(|l| l.kind == LineKind::Add && !l.text.trim().is_empty())
}

/// How many file lines on each side of a place tell its indentation step.
const GRID_REACH: usize = 40;

/// How the file's lines around a place are indented.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Around {
    /// The step of their space indentation: the greatest common divisor of
    /// the widths of the lines indented with spaces only; `None` when none is.
    pub step: Option<usize>,
    /// The one character every indented non-blank line is indented with;
    /// `None` when none is indented, or they use both.
    pub only: Option<char>,
}

/// How the file's lines within [`GRID_REACH`] of the first and the last of
/// lines `start..end` of a file of `len` lines are indented (a place may
/// span most of a large file: only its ends are read).
pub(crate) fn indents_around<'t>(
    (start, end, len): (usize, usize, usize),
    text: impl Fn(usize) -> Cow<'t, str>,
) -> Around {
    let near = |at: usize| at.saturating_sub(GRID_REACH)..at.saturating_add(GRID_REACH).min(len);
    let (head, tail) = (near(start), near(end));
    let lines = if tail.start <= head.end {
        head.start..tail.end.max(head.end)
    } else {
        head.clone()
    };
    let rest = (tail.start > head.end).then_some(tail);
    let mut grid = 0;
    // `Some(None)` once lines indented with either character were seen.
    let mut only: Option<Option<char>> = None;
    for j in lines.chain(rest.into_iter().flatten()) {
        let line = text(j);
        let indent = indentation(&line);
        if indent.is_empty() || line.trim().is_empty() {
            continue;
        }
        let made = made_of(indent).flatten();
        only = match only {
            None => Some(made),
            Some(c) => Some(c.filter(|c| made == Some(*c))),
        };
        if made == Some(' ') {
            grid = gcd(grid, indent.len() as i64);
        }
        if grid == 1 && only == Some(None) {
            break;
        }
    }
    Around {
        step: (grid > 0).then_some(grid as usize),
        only: only.flatten(),
    }
}

/// How an indentation reads in a message: "6 spaces", "2 tabs".
pub(crate) fn describe(indent: &str) -> String {
    let count = |c: char| indent.chars().filter(|&x| x == c).count();
    let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    match (count(' '), count('\t')) {
        (0, 0) => "no indentation".to_string(),
        (s, 0) => plural(s, "space"),
        (0, t) => plural(t, "tab"),
        (s, t) => format!("{} and {}", plural(s, "space"), plural(t, "tab")),
    }
}

#[cfg(test)]
mod tests;
