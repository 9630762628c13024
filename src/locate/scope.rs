//! What the Codex envelope's place marks delimit: the block a `@@` anchor
//! line opens, and the end of the file `*** End of File` names.
//!
//! An anchor such as `@@ class B:` or `@@ fn run(&self) {` names the block
//! the hunk lies in. Its scope is the lines after it indented deeper than
//! it, up to the first non-blank line at its indentation or less; the hunk
//! (and an inner anchor) must start inside it. See `docs/matching.md`,
//! "Choosing among candidates" (Codex anchors).

use super::Tier;
use super::keys::{FileKeys, OldLine};
use super::normalize::LineMatch;
use super::search::Candidate;

/// The leading spaces and tabs of `line`.
fn indent(line: &[u8]) -> &[u8] {
    let k = line
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    &line[..k]
}

/// `line` without its indentation and trailing whitespace.
fn body(line: &[u8]) -> &[u8] {
    line.trim_ascii()
}

/// A comment or preprocessor line: at any indentation it tells nothing
/// about where a block ends (`#ifdef` and `# TODO` often stand at column 0
/// inside a function).
fn is_comment(body: &[u8]) -> bool {
    ["#", "//", "/*", "*", "--", ";"]
        .iter()
        .any(|p| body.starts_with(p.as_bytes()))
}

/// A line that closes a block (`}`, `})`, `):`, `} else {`, `end`): it
/// starts nothing at its indentation, so it ends no anchor's block.
fn is_closing(body: &[u8]) -> bool {
    matches!(body.first(), Some(b'}' | b')' | b']')) || body == b"end" || body.starts_with(b"end ")
}

/// A label (`public:`, `private:`, `out:`, `else:`): one word and a colon.
/// C++ access specifiers and C labels often stand at the indentation of
/// the class or function they are in; `else:` continues an `if`.
fn is_label(body: &[u8]) -> bool {
    body.split_last().is_some_and(|(&last, word)| {
        last == b':'
            && !word.is_empty()
            && word.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_')
    })
}

/// The end of the block anchor line `anchor` opens: the first line
/// (0-based) after it that starts something at its indentation or above,
/// or `None` when the line opens no block (the first non-blank line after
/// it, past a lone opening brace at its own indentation, is not indented
/// deeper). The hunk may start at that line (the anchor then is the block
/// before the hunk's first line), not past it.
///
/// Indented deeper means the line's indentation extends the anchor's. A
/// line whose indentation is the anchor's or a part of it starts something
/// there unless it is blank, a closing line (`}`, `):`, `end`), a label
/// (`public:`) or a comment or preprocessor line (`#ifdef` and `# TODO`
/// often stand at column 0 inside a function). Indentation that is neither (tabs against spaces)
/// starts nothing. A block running to the end of the file ends there.
pub(super) fn block_end(keys: &FileKeys, anchor: usize) -> Option<usize> {
    let n = keys.len();
    let head = indent(keys.line(anchor));
    let outside = |line: &[u8]| head.starts_with(indent(line));
    let mut i = anchor + 1;
    while i < n {
        let line = keys.line(i);
        let b = body(line);
        if !(b.is_empty() || (b == b"{" && outside(line))) {
            break;
        }
        i += 1;
    }
    if i >= n {
        return None;
    }
    let ind = indent(keys.line(i));
    if ind.len() <= head.len() || !ind.starts_with(head) {
        return None;
    }
    let starts = |i: &usize| {
        let line = keys.line(*i);
        let b = body(line);
        !b.is_empty() && outside(line) && !is_comment(b) && !is_closing(b) && !is_label(b)
    };
    Some((i..n).find(starts).unwrap_or(n))
}

/// Whether a hunk starting at line `start` lies in the scope of the anchor
/// at line `anchor` whose block ends at line `end`: at the anchor line or
/// after it, at the block's end at the latest.
pub(super) fn within(anchor: usize, end: usize, start: usize) -> bool {
    anchor <= start && start <= end
}

/// File lines the end-of-file reading may leave out between the hunk's
/// lines (as many as the structural tier's skip budget).
const EOF_OMITTED: usize = 2;

/// With `*** End of File`, the end of the file as a second reading when
/// `chosen` does not reach it: the hunk's non-blank old lines stand, but
/// for whitespace and in order, among the file's last non-blank lines,
/// the last one (holding a word) on the file's last non-blank line, with at
/// most [`EOF_OMITTED`] file lines left out between them. Returns the
/// line (0-based) where that reading starts.
pub(super) fn end_of_file_rival(
    keys: &FileKeys,
    old: &[OldLine],
    chosen: &Candidate,
) -> Option<usize> {
    let n = keys.len();
    let filled = |i: usize| !keys.line(i).trim_ascii().is_empty();
    let last = (0..n).rev().find(|&i| filled(i))?;
    if chosen.end > last {
        return None;
    }
    let lines: Vec<&OldLine> = old.iter().filter(|l| !l.blank).collect();
    let tail = lines.last()?;
    if !tail.text.chars().any(char::is_alphanumeric) {
        return None;
    }
    let same = |j: usize, l: &OldLine| keys.compare(Tier::Resilient, j, l) != LineMatch::No;
    // The next file line to compare, going up from the last one.
    let mut next = Some(last);
    let mut omitted = 0;
    let mut first = last;
    for (k, line) in lines.iter().rev().enumerate() {
        loop {
            let j = next?;
            next = j.checked_sub(1);
            if filled(j) && same(j, line) {
                first = j;
                break;
            }
            if filled(j) {
                if k == 0 || omitted == EOF_OMITTED {
                    return None;
                }
                omitted += 1;
            }
        }
    }
    (first != chosen.start).then_some(first)
}
