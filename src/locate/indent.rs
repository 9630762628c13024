//! How the patch's indentation maps onto the file's, learned from the
//! lines a candidate matched; used by the locator (to refuse a block whose
//! structure differs) and by the planner (to re-indent added lines) alike.
//!
//! Each matched non-blank line pairs the patch's indentation with the
//! file's. An added line whose indentation the matched lines map to one file
//! indentation takes it. When the patch's indentation stands for several of
//! the file's (a model mangled a context line, or the block's structure
//! differs: a statement inside an `if` in the patch is after it in the
//! file), nothing tells which an added line at that indentation follows:
//! the hunk is refused.

use super::Slot;
use super::normalize::{fuzzy_key, indentation};
use crate::model::{Hunk, LineKind};
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

/// What the matched lines say about one added line's indentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Level {
    /// The file's indentation for it.
    Known(String),
    /// Matched lines of the same patch indentation stand at these two file
    /// lines, indented differently.
    Conflict(usize, usize),
    /// No matched line has its indentation.
    Unseen,
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
        // not a truncated fragment (its indentation is where it was cut).
        // (Lines equal byte for byte need no keys: most of them.)
        let whole = *line.text == *file || fuzzy_key(&line.text) == fuzzy_key(&file);
        if line.text.trim().is_empty() || !whole {
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

/// The file indentation the matched lines give to an added line indented
/// `indent` in the patch.
pub(crate) fn level_for(pairs: &[IndentPair], indent: &str) -> Level {
    let same: Vec<&IndentPair> = pairs.iter().filter(|p| p.patch == indent).collect();
    let Some(first) = same.first() else {
        return Level::Unseen;
    };
    if same.iter().all(|p| p.file == first.file) {
        return Level::Known(first.file.clone());
    }
    // Two file indentations for one of the patch's: the block's structure
    // is not the file's, and no neighbour can say which the added line
    // follows (the statement above it, or the block it sits in).
    let other = same.iter().find(|p| p.file != first.file).unwrap_or(first);
    Level::Conflict(first.file_line, other.file_line)
}

/// The first added line whose indentation the matched lines cannot settle:
/// the two file lines (0-based) that disagree.
pub(crate) fn unsettled(hunk: &Hunk, pairs: &[IndentPair]) -> Option<(usize, usize)> {
    hunk.lines
        .iter()
        .filter(|l| l.kind == LineKind::Add && !l.text.trim().is_empty())
        .find_map(|l| match level_for(pairs, indentation(&l.text)) {
            Level::Conflict(a, b) => Some((a, b)),
            _ => None,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(file_line: usize, patch: &str, file: &str) -> IndentPair {
        IndentPair {
            patch: patch.into(),
            file: file.into(),
            file_line,
        }
    }

    #[test]
    fn a_level_standing_for_two_is_a_conflict() {
        // 4 spaces in the patch stand for 8 above and 4 below.
        let pairs = [pair(0, "    ", "        "), pair(2, "    ", "    ")];
        assert_eq!(level_for(&pairs, "    "), Level::Conflict(0, 2));
        assert_eq!(level_for(&pairs, "    "), Level::Conflict(0, 2));
        assert_eq!(level_for(&pairs, "  "), Level::Unseen);
        let one = [pair(0, "  ", "    "), pair(2, "  ", "    ")];
        assert_eq!(level_for(&one, "  "), Level::Known("    ".into()));
    }
}
