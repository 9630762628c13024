//! From located hunks to edits: ordered, non-overlapping replacements of
//! file line ranges.
//!
//! An edit keeps the file's own text for every context line (a fuzzily
//! matched context line is never rewritten with the patch's version); only
//! removed and added lines change the file. When the whole matched block was
//! consistently shifted (e.g. written at column 0 for code nested at 8
//! spaces, or with spaces where the file has tabs), added lines are re-based
//! onto the file's indentation.

use crate::locate::normalize::indentation;
use crate::locate::{HunkStatus, Located, Normalization, Slot};
use crate::model::{Hunk, LineKind};
use crate::source::SourceText;

/// One line of an edit's replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NewLine {
    /// The file's line with this index (0-based), byte for byte.
    Keep(usize),
    /// A new line (content without terminator).
    Insert(String),
}

/// Replace file lines `start..end` by `lines`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// First replaced line (0-based); the insertion point when `start == end`.
    pub start: usize,
    /// One past the last replaced line.
    pub end: usize,
    /// The replacement.
    pub lines: Vec<NewLine>,
    /// The hunk this edit comes from.
    pub hunk: usize,
}

/// All edits to one file, sorted, plus the final-newline decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePlan {
    /// Edits sorted by position; they never overlap.
    pub edits: Vec<Edit>,
    /// Whether the result ends with a line terminator.
    pub final_newline: bool,
}

impl FilePlan {
    /// True when applying the plan to `source` gives different bytes: an
    /// edit that does more than keep its own lines, or another final newline.
    pub fn changes(&self, source: &SourceText) -> bool {
        let keeps_itself = |e: &Edit| {
            e.lines.len() == e.end - e.start
                && e.lines
                    .iter()
                    .enumerate()
                    .all(|(k, l)| *l == NewLine::Keep(e.start + k))
        };
        let final_changes = !source.is_empty() && self.final_newline != source.has_final_newline();
        final_changes || !self.edits.iter().all(keeps_itself)
    }
}

/// Builds the plan of one file from its hunks and where they were located.
/// `located` may be in any order; hunks that change nothing are skipped.
/// Returns the plan and, per located hunk, any normalisation the planner added.
pub fn plan_file(source: &SourceText, hunks: &[Hunk], located: &mut [Located]) -> FilePlan {
    let n = source.len();
    let mut final_newline = source.has_final_newline() || source.is_empty();
    let mut edits = Vec::new();
    for loc in located.iter_mut() {
        if loc.status != HunkStatus::Applied {
            continue;
        }
        let Some(hunk) = hunks.get(loc.hunk) else {
            continue;
        };
        let rebase = IndentShift::detect(source, hunk, loc);
        if rebase.is_some() && hunk.lines.iter().any(|l| l.kind == LineKind::Add) {
            loc.normalizations.push(Normalization::IndentRebased);
        }
        edits.push(build_edit(hunk, loc, rebase.as_ref()));
        if loc.end == n {
            if hunk.new_missing_newline {
                final_newline = false;
            } else if hunk.old_missing_newline {
                final_newline = true;
            }
        }
    }
    edits.sort_by_key(|e| (e.start, e.end, e.hunk));
    FilePlan {
        edits,
        final_newline,
    }
}

fn build_edit(hunk: &Hunk, loc: &Located, rebase: Option<&IndentShift>) -> Edit {
    let mut lines = Vec::new();
    let mut cursor = loc.start;
    let mut k = 0;
    let insert =
        |text: &str| NewLine::Insert(rebase.map_or_else(|| text.to_string(), |r| r.apply(text)));
    for line in &hunk.lines {
        if line.kind == LineKind::Add {
            lines.push(insert(&line.text));
            continue;
        }
        let slot = loc.slots.get(k).copied();
        k += 1;
        match slot {
            Some(Slot::Line(j, _)) => {
                while cursor < j {
                    lines.push(NewLine::Keep(cursor));
                    cursor += 1;
                }
                if line.kind == LineKind::Context {
                    lines.push(NewLine::Keep(j));
                }
                cursor = j + 1;
            }
            Some(Slot::AsAddition) => lines.push(NewLine::Insert(String::new())),
            Some(Slot::Dropped | Slot::Overhang) | None => {}
        }
    }
    while cursor < loc.end {
        lines.push(NewLine::Keep(cursor));
        cursor += 1;
    }
    Edit {
        start: loc.start,
        end: loc.end,
        lines,
        hunk: loc.hunk,
    }
}

/// A consistent difference between the patch's indentation and the file's.
#[derive(Debug, Clone, PartialEq, Eq)]
enum IndentShift {
    /// Add (positive) or remove (negative) this many of `unit` characters.
    Shift { delta: isize, unit: char },
    /// The patch indents with `spaces` spaces where the file has one tab.
    SpacesToTabs { spaces: usize },
}

impl IndentShift {
    /// Detects a shift shared by every matched non-blank line; `None` when the
    /// indentation agrees or differs inconsistently.
    fn detect(source: &SourceText, hunk: &Hunk, loc: &Located) -> Option<IndentShift> {
        let mut pairs = Vec::new();
        let olds = hunk.lines.iter().filter(|l| l.is_old());
        for (line, slot) in olds.zip(&loc.slots) {
            if let Slot::Line(j, _) = slot {
                if line.text.trim().is_empty() {
                    continue;
                }
                let file_text = source.line_text(*j);
                pairs.push((
                    indentation(&file_text).to_string(),
                    indentation(&line.text).to_string(),
                ));
            }
        }
        if pairs.is_empty() || pairs.iter().all(|(f, p)| f == p) {
            return None;
        }
        let only = |s: &str, c: char| s.chars().all(|x| x == c);
        for unit in [' ', '\t'] {
            if pairs.iter().all(|(f, p)| only(f, unit) && only(p, unit)) {
                let delta = pairs[0].0.len() as isize - pairs[0].1.len() as isize;
                let same = pairs
                    .iter()
                    .all(|(f, p)| f.len() as isize - p.len() as isize == delta);
                return (same && delta != 0).then_some(IndentShift::Shift { delta, unit });
            }
        }
        if pairs.iter().all(|(f, p)| only(f, '\t') && only(p, ' ')) {
            let (f, p) = pairs.iter().find(|(f, _)| !f.is_empty())?;
            if p.len() % f.len() != 0 {
                return None;
            }
            let spaces = p.len() / f.len();
            let same = pairs.iter().all(|(f, p)| p.len() == spaces * f.len());
            return (same && spaces > 0).then_some(IndentShift::SpacesToTabs { spaces });
        }
        None
    }

    /// Re-indents one added line.
    fn apply(&self, text: &str) -> String {
        if text.trim().is_empty() {
            return text.to_string();
        }
        let indent = indentation(text);
        let body = &text[indent.len()..];
        match *self {
            IndentShift::Shift { delta, unit } => {
                if delta >= 0 {
                    let mut out: String = std::iter::repeat_n(unit, delta as usize).collect();
                    out.push_str(text);
                    out
                } else {
                    let strip = indent
                        .chars()
                        .take(delta.unsigned_abs())
                        .take_while(|&c| c == unit)
                        .count();
                    text[strip..].to_string()
                }
            }
            IndentShift::SpacesToTabs { spaces } => {
                let leading = indent.chars().take_while(|&c| c == ' ').count();
                let rest = &indent[leading..];
                let mut out: String = std::iter::repeat_n('\t', leading / spaces).collect();
                out.extend(std::iter::repeat_n(' ', leading % spaces));
                out.push_str(rest);
                out.push_str(body);
                out
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_spaces() {
        let s = IndentShift::Shift {
            delta: 4,
            unit: ' ',
        };
        assert_eq!(s.apply("  x"), "      x");
        let s = IndentShift::Shift {
            delta: -2,
            unit: ' ',
        };
        assert_eq!(s.apply("    x"), "  x");
        assert_eq!(s.apply("x"), "x");
    }

    #[test]
    fn converts_spaces_to_tabs() {
        let s = IndentShift::SpacesToTabs { spaces: 4 };
        assert_eq!(s.apply("        x"), "\t\tx");
        assert_eq!(s.apply("      x"), "\t  x");
    }
}
