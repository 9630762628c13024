//! From located hunks to edits: ordered, non-overlapping replacements of
//! file line ranges.
//!
//! An edit keeps the file's own text for every context line (a fuzzily
//! matched context line is never rewritten with the patch's version); only
//! removed and added lines change the file. When the whole matched block was
//! consistently shifted (e.g. written at column 0 for code nested at 8
//! spaces, or with spaces where the file has tabs), added lines are re-based
//! onto the file's indentation.

use crate::locate::indent::{self, IndentPair, Level};
use crate::locate::normalize::indentation;
use crate::locate::{HunkStatus, Located, Normalization, Slot};
use crate::model::{Hunk, LineKind};
use crate::source::SourceText;

/// One line of an edit's replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NewLine {
    /// The file's line with this index (0-based), byte for byte.
    Keep(usize),
    /// A new line (content without terminator).
    Insert(String),
}

/// Replace file lines `start..end` by `lines`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edit {
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
pub(crate) struct FilePlan {
    /// Edits sorted by position; they never overlap.
    pub edits: Vec<Edit>,
    /// Whether the result ends with a line terminator.
    pub final_newline: bool,
    /// The applied hunks' added lines ended in CRLF in the patch: new lines
    /// get CRLF in a file that has no line end of its own to follow.
    pub crlf_when_file_has_none: bool,
}

impl FilePlan {
    /// True when applying the plan to `source` gives different bytes: an
    /// edit that does more than keep its own lines, or another final newline.
    pub(crate) fn changes(&self, source: &SourceText) -> bool {
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
pub(crate) fn plan_file(source: &SourceText, hunks: &[Hunk], located: &mut [Located]) -> FilePlan {
    let n = source.len();
    let mut final_newline = source.has_final_newline() || source.is_empty();
    let mut edits = Vec::new();
    let (mut adding, mut all_crlf) = (false, true);
    for loc in located.iter_mut() {
        if loc.status != HunkStatus::Applied {
            continue;
        }
        let Some(hunk) = hunks.get(loc.hunk) else {
            continue;
        };
        if hunk.lines.iter().any(|l| l.kind == LineKind::Add) {
            adding = true;
            all_crlf &= hunk.added_crlf;
        }
        let rebase = IndentShift::detect(source, hunk, loc);
        let (edit, rebased) = build_edit(hunk, loc, rebase.as_ref());
        if rebased {
            loc.normalizations.push(Normalization::IndentRebased);
        }
        edits.push(edit);
        if loc.end == n {
            if hunk.new_missing_newline {
                final_newline = false;
            } else if hunk.old_missing_newline || ends_with_blank_addition(hunk) {
                // A blank line added last exists only with its newline: kept
                // without one, it would vanish.
                final_newline = true;
            }
        }
    }
    order_edits(&mut edits);
    FilePlan {
        edits,
        final_newline,
        crlf_when_file_has_none: adding && all_crlf,
    }
}

/// Sorts the edits of located hunks by position and splits those that
/// share lines kept as context, as [`plan_file`] does with the edits it
/// builds (`plan::sequence` builds each hunk's edit once and combines
/// them here).
pub(crate) fn order_edits(edits: &mut Vec<Edit>) {
    edits.sort_by_key(|e| (e.start, e.end, e.hunk));
    separate_shared_context(edits);
}

/// True when the hunk's last line is an added blank line.
fn ends_with_blank_addition(hunk: &Hunk) -> bool {
    hunk.lines
        .last()
        .is_some_and(|l| l.kind == LineKind::Add && l.text.as_str().is_empty())
}

/// Hunks may share lines that both keep as context, or one may insert
/// between two lines the other keeps (the locator refuses any other
/// overlap): when edits overlap, each is split into the changes between
/// the lines it keeps (those lines are the file's anyway), so the edits do
/// not overlap.
fn separate_shared_context(edits: &mut Vec<Edit>) {
    let overlapping = edits.windows(2).any(|w| w[0].end > w[1].start);
    if !overlapping {
        return;
    }
    let whole = std::mem::take(edits);
    edits.extend(whole.into_iter().flat_map(split_at_kept_lines));
    edits.sort_by_key(|e| (e.start, e.end, e.hunk));
    debug_assert!(
        edits.windows(2).all(|w| w[0].end <= w[1].start),
        "edits overlap beyond shared context"
    );
}

/// One edit as the changes between the file lines it keeps in place: the
/// lines before the first kept line replace what precedes it, and so on.
/// A kept line out of order stays a line of its piece.
fn split_at_kept_lines(edit: Edit) -> Vec<Edit> {
    let mut out = Vec::new();
    let mut start = edit.start;
    let mut lines = Vec::new();
    for line in edit.lines {
        match line {
            NewLine::Keep(j) if start <= j && j < edit.end => {
                if start < j || !lines.is_empty() {
                    out.push(Edit {
                        start,
                        end: j,
                        lines: std::mem::take(&mut lines),
                        hunk: edit.hunk,
                    });
                }
                start = j + 1;
            }
            other => lines.push(other),
        }
    }
    if start < edit.end || !lines.is_empty() {
        out.push(Edit {
            start,
            end: edit.end,
            lines,
            hunk: edit.hunk,
        });
    }
    out
}

/// The edit of one located hunk, and whether an added line was re-indented.
fn build_edit(hunk: &Hunk, loc: &Located, rebase: Option<&IndentShift>) -> (Edit, bool) {
    let mut lines = Vec::new();
    let mut cursor = loc.start;
    let mut k = 0;
    let mut rebased = false;
    for line in &hunk.lines {
        if line.kind == LineKind::Add {
            let text = rebase.map_or_else(|| line.text.to_string(), |r| r.apply(&line.text));
            rebased |= text != *line.text;
            lines.push(NewLine::Insert(text));
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
    let edit = Edit {
        start: loc.start,
        end: loc.end,
        lines,
        hunk: loc.hunk,
    };
    (edit, rebased)
}

/// A consistent difference between the patch's indentation and the file's.
#[derive(Debug, Clone, PartialEq, Eq)]
enum IndentShift {
    /// Add (positive) or remove (negative) this many of `unit` characters.
    Shift { delta: isize, unit: char },
    /// The patch indents with `spaces` spaces where the file has one tab.
    SpacesToTabs { spaces: usize },
    /// Each indentation of the patch stands for one of the file's, but not
    /// by one constant shift (a 4-space patch for a 2-space file, list items
    /// indented more than their unindented header): `known` pairs the
    /// patch's indentations with the file's; a deeper indentation not seen
    /// in the matched lines is placed below the nearest shallower known one
    /// by the same number of steps, scaled by `scale` file columns per patch
    /// column (as a fraction `num/den`).
    Levels {
        /// The matched lines' indentations, in hunk order.
        matched: Vec<IndentPair>,
        /// (patch, file) indentations that stand for one file indentation.
        known: Vec<(String, String)>,
        /// File columns per patch column, as `(num, den)`.
        scale: (usize, usize),
    },
}

impl IndentShift {
    /// Detects a shift shared by every matched non-blank line; `None` when the
    /// indentation agrees or differs inconsistently.
    fn detect(source: &SourceText, hunk: &Hunk, loc: &Located) -> Option<IndentShift> {
        let matched = indent::pairs(hunk, &loc.slots, |j| source.line_text(j));
        let pairs: Vec<(String, String)> = matched
            .iter()
            .map(|p| (p.file.clone(), p.patch.clone()))
            .collect();
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
                if same && delta != 0 {
                    return Some(IndentShift::Shift { delta, unit });
                }
                break;
            }
        }
        if pairs.iter().all(|(f, p)| only(f, '\t') && only(p, ' '))
            && let Some((f, p)) = pairs.iter().find(|(f, _)| !f.is_empty())
            && p.len().is_multiple_of(f.len())
        {
            let spaces = p.len() / f.len();
            let same = pairs.iter().all(|(f, p)| p.len() == spaces * f.len());
            if same && spaces > 0 {
                return Some(IndentShift::SpacesToTabs { spaces });
            }
        }
        Self::levels(matched)
    }

    /// The level mapping of [`IndentShift::Levels`], when the matched lines
    /// give one file indentation for each of the patch's (the locator
    /// refuses hunks where they do not).
    fn levels(matched: Vec<IndentPair>) -> Option<IndentShift> {
        // The patch indentations that stand for one file indentation only.
        let mut known: Vec<(String, String)> = Vec::new();
        for pair in &matched {
            if known.iter().all(|(p, _)| *p != pair.patch)
                && let Level::Known(file) = indent::level_for(&matched, &pair.patch)
            {
                known.push((pair.patch.clone(), file));
            }
        }
        known.sort_by_key(|(p, _)| p.len());
        let spaces = |s: &str| s.chars().all(|c| c == ' ');
        let (lo, hi) = (known.first()?, known.last()?);
        // File columns per patch column, when every known level lies on
        // one line through the shallowest and the deepest.
        let linear = |(num, den): (usize, usize)| {
            known.iter().all(|(p, f)| {
                den > 0
                    && f.len() >= lo.1.len()
                    && (p.len() - lo.0.len()) * num == (f.len() - lo.1.len()) * den
            })
        };
        let scale = (
            hi.1.len().saturating_sub(lo.1.len()),
            hi.0.len() - lo.0.len(),
        );
        let scale = if known.len() >= 2
            && known.iter().all(|(p, f)| spaces(p) && spaces(f))
            && scale.0 > 0
            && linear(scale)
        {
            scale
        } else {
            (1, 1)
        };
        Some(IndentShift::Levels {
            matched,
            known,
            scale,
        })
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
            IndentShift::Levels {
                ref matched,
                ref known,
                scale,
            } => {
                let mapped = match indent::level_for(matched, indent) {
                    Level::Known(file) => file,
                    // The locator refuses a hunk whose level is in conflict.
                    Level::Conflict(..) => indent.to_string(),
                    Level::Unseen => {
                        map_level(known, scale, indent).unwrap_or_else(|| indent.to_string())
                    }
                };
                format!("{mapped}{body}")
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

/// The file's indentation for the patch's `indent` under a level mapping:
/// a known one as matched; a deeper one of spaces below the nearest
/// shallower known level, its extra columns scaled; otherwise `None`
/// (written as given).
fn map_level(known: &[(String, String)], scale: (usize, usize), indent: &str) -> Option<String> {
    if let Some((_, f)) = known.iter().find(|(p, _)| p == indent) {
        return Some(f.clone());
    }
    let spaces = |s: &str| s.chars().all(|c| c == ' ');
    if !spaces(indent) {
        return None;
    }
    let (p, f) = known
        .iter()
        .filter(|(p, f)| spaces(p) && p.len() < indent.len() && (spaces(f) || f.is_empty()))
        .max_by_key(|(p, _)| p.len())?;
    let extra = (indent.len() - p.len()) * scale.0;
    extra
        .is_multiple_of(scale.1)
        .then(|| format!("{f}{}", " ".repeat(extra / scale.1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_edits_split_at_the_lines_they_keep() {
        use super::{Edit, NewLine, separate_shared_context};
        // Hunk 0 rewrites lines 0 and 3 keeping 1 and 2; hunk 1 inserts
        // between 1 and 2 (its edit spans 1..3 keeping both).
        let mut edits = vec![
            Edit {
                start: 0,
                end: 4,
                lines: vec![
                    NewLine::Insert("X".into()),
                    NewLine::Keep(1),
                    NewLine::Keep(2),
                    NewLine::Insert("Y".into()),
                ],
                hunk: 0,
            },
            Edit {
                start: 1,
                end: 3,
                lines: vec![
                    NewLine::Keep(1),
                    NewLine::Insert("b".into()),
                    NewLine::Keep(2),
                ],
                hunk: 1,
            },
        ];
        separate_shared_context(&mut edits);
        let shape: Vec<_> = edits
            .iter()
            .map(|e| (e.start, e.end, e.lines.len()))
            .collect();
        assert_eq!(shape, [(0, 1, 1), (2, 2, 1), (3, 4, 1)]);
    }

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
    fn maps_levels_and_scales_deeper_ones() {
        let pairs = |v: &[(&str, &str)]| {
            v.iter()
                .enumerate()
                .map(|(i, (f, p))| IndentPair {
                    patch: p.to_string(),
                    file: f.to_string(),
                    file_line: i,
                })
                .collect::<Vec<_>>()
        };
        // A 4-space patch for a 2-space file.
        let two = IndentShift::levels(pairs(&[("", ""), ("  ", "    "), ("    ", "        ")]))
            .expect("a mapping");
        assert_eq!(two.apply("    else:"), "  else:");
        assert_eq!(two.apply("            deep()"), "      deep()");
        // List items 3 deeper than the file's under an unindented header.
        let list = IndentShift::levels(pairs(&[("", ""), ("", "   ")])).expect("a mapping");
        assert_eq!(list.apply("   - b"), "- b");
        assert_eq!(list.apply("      - nested"), "   - nested");
    }

    #[test]
    fn converts_spaces_to_tabs() {
        let s = IndentShift::SpacesToTabs { spaces: 4 };
        assert_eq!(s.apply("        x"), "\t\tx");
        assert_eq!(s.apply("      x"), "\t  x");
    }
}
