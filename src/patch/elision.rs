//! Elision lines in SEARCH/REPLACE blocks: Aider's `...` and the comments
//! models write for code they leave out (`// ... existing code ...`,
//! `# ... rest of the file ...`, `/* ... */`).
//!
//! When SEARCH and REPLACE hold the same elision lines in the same order,
//! each pair stands for unchanged text: the block reads as the pieces
//! between them, each placed on its own, in order. The block as written
//! (elision lines as content) is still tried first, so a file that really
//! holds a `...` line (Python's Ellipsis, a doctest) is edited as written.

use crate::model::{Elision, Hunk, HunkLine, LineKind};

/// Words that make a comment holding `...` an elision (`// rest of code...`).
const WORDS: &[&str] = &[
    "existing",
    "rest of",
    "unchanged",
    "remaining",
    "omitted",
    "previous",
    "other",
];

/// The text of a one-line comment (`// x`, `# x`, `/* x */`, `<!-- x -->`,
/// `-- x`, `; x`, `% x`), trimmed.
fn comment_body(t: &str) -> Option<&str> {
    const FORMS: &[(&str, &str)] = &[
        ("<!--", "-->"),
        ("{/*", "*/}"),
        ("/*", "*/"),
        ("//", ""),
        ("#", ""),
        ("--", ""),
        (";", ""),
        ("%", ""),
    ];
    FORMS.iter().find_map(|(open, close)| {
        let rest = t.strip_prefix(open)?;
        Some(rest.strip_suffix(close).unwrap_or(rest).trim())
    })
}

/// Turns a SEARCH piece and its REPLACE piece into hunk lines.
pub(crate) type DiffFn = fn(&[String], &[String]) -> Vec<HunkLine>;

/// True for an elision line: `...` (or `…`) alone, or a comment whose text
/// starts with `...`, or holds `...` and a word such as `existing`,
/// `rest of`, `unchanged` (`// ... existing code ...`, `# rest of file...`).
pub(crate) fn is_elision(line: &str) -> bool {
    let t = line.trim();
    if t == "..." || t == "…" {
        return true;
    }
    let Some(body) = comment_body(t) else {
        return false;
    };
    let dots = body.contains("...") || body.contains('…');
    let lower = body.to_lowercase();
    body.starts_with("...")
        || body.starts_with('…')
        || (dots && WORDS.iter().any(|w| lower.contains(w)))
}

/// The elision reading of a block whose sections are `search` and
/// `replace`; `line_of(side, k)` is the patch line of line `k` of a
/// section (`side` false for SEARCH). `diff` turns a piece pair into hunk
/// lines; `removes` says whether the block as written removes lines.
/// `None` when the block holds no elision line that matters.
pub(crate) fn read(
    search: &[String],
    replace: &[String],
    line_of: &dyn Fn(bool, usize) -> usize,
    diff: DiffFn,
    removes: bool,
) -> Option<Elision> {
    let marks = |side: &[String]| -> Vec<usize> {
        (0..side.len()).filter(|&k| is_elision(&side[k])).collect()
    };
    let (s, r) = (marks(search), marks(replace));
    let Some(&first) = s.first() else {
        // Only REPLACE: a bare `...` added where nothing is removed is
        // content (Python's Ellipsis in a new stub).
        let &k = r.iter().find(|&&k| removes || replace[k].trim() != "...")?;
        let text = replace[k].trim().to_string();
        let line = line_of(true, k);
        return Some(Elision {
            pieces: Err(format!(
                "REPLACE line {line} `{text}` stands for code the block does not write out (an elision), and SEARCH has no such line to pair it with: applying it would write that line in place of the code; write the code out, or put the same elision line in SEARCH"
            )),
            text,
            patch_line: line,
            replace_only: true,
        });
    };
    let text = search[first].trim().to_string();
    let patch_line = line_of(false, first);
    let pieces = pair(search, replace, (&s, &r), line_of)
        .and_then(|cuts| pieces(search, replace, &cuts, line_of, diff));
    Some(Elision {
        text,
        patch_line,
        pieces,
        replace_only: false,
    })
}

/// Checks that SEARCH's and REPLACE's elision lines pair in order (the
/// same count, the same line on both sides); returns the pairs.
fn pair(
    search: &[String],
    replace: &[String],
    (s, r): (&[usize], &[usize]),
    line_of: &dyn Fn(bool, usize) -> usize,
) -> Result<Vec<(usize, usize)>, String> {
    if s.len() != r.len() {
        return Err(format!(
            "SEARCH holds {} elision line(s) and REPLACE {}: each elision in SEARCH needs the same line at its place in REPLACE",
            s.len(),
            r.len()
        ));
    }
    for (&a, &b) in s.iter().zip(r) {
        if search[a].trim() != replace[b].trim() {
            return Err(format!(
                "SEARCH line {} `{}` pairs with REPLACE line {} `{}`, which is not the same elision line",
                line_of(false, a),
                search[a].trim(),
                line_of(true, b),
                replace[b].trim()
            ));
        }
    }
    Ok(s.iter().copied().zip(r.iter().copied()).collect())
}

/// The hunks of the pieces between the elision lines `cuts`.
fn pieces(
    search: &[String],
    replace: &[String],
    cuts: &[(usize, usize)],
    line_of: &dyn Fn(bool, usize) -> usize,
    diff: DiffFn,
) -> Result<Vec<Hunk>, String> {
    let mut out = Vec::new();
    let (mut s0, mut r0) = (0, 0);
    let ends = cuts
        .iter()
        .copied()
        .chain(std::iter::once((search.len(), replace.len())));
    for (k, (s1, r1)) in ends.enumerate() {
        let (sp, rp) = (&search[s0..s1], &replace[r0..r1]);
        let blank = |p: &[String]| p.iter().all(|l| l.trim().is_empty());
        if blank(sp) && !blank(rp) {
            let (at, side) = if k < cuts.len() {
                (s1, "before")
            } else {
                (s0 - 1, "after")
            };
            return Err(format!(
                "the REPLACE text {side} the elision line `{}` (SEARCH line {}) has no SEARCH text to say where it goes",
                search[at].trim(),
                line_of(false, at)
            ));
        }
        if !blank(sp) {
            out.push(Hunk {
                lines: diff(sp, rp),
                patch_line: line_of(false, s0),
                elision_piece: true,
                elision_above: s0.checked_sub(1).map(|at| search[at].clone()),
                ..Hunk::default()
            });
        }
        (s0, r0) = (s1 + 1, r1 + 1);
    }
    Ok(out)
}

/// The elision reading of a unified, numberless or Codex hunk whose context
/// lines include elision lines (the first piece keeps the hunk's line
/// number, the first that finds a line its `@@` anchors, the last its
/// `*** End of File`): `marks` are (index in `hunk.lines`, patch line)
/// of those context lines. A context line is on both sides, so it always
/// pairs: the hunk reads as the pieces between them, each a hunk placed on
/// its own, in order. Added lines beside an elision with no line to find on
/// their side of it say nowhere where they go: `Err`, naming the elision.
/// `None` when no context line is an elision.
pub(crate) fn read_context(hunk: &Hunk, marks: &[(usize, usize)]) -> Option<Elision> {
    let &(_, patch_line) = marks.first()?;
    let text = hunk.lines[marks[0].0].text.trim().to_string();
    let mut out = Vec::new();
    let mut start = (0, hunk.patch_line);
    let ends = marks
        .iter()
        .copied()
        .chain(std::iter::once((hunk.lines.len(), 0)));
    for (k, (end, at)) in ends.enumerate() {
        let lines = &hunk.lines[start.0..end];
        let finds = lines
            .iter()
            .any(|l| l.kind != LineKind::Add && !l.text.trim().is_empty());
        let adds = lines.iter().any(|l| l.kind != LineKind::Context);
        let last = k == marks.len();
        if !finds && adds {
            let (side, (_, line)) = if last {
                ("after", marks[k - 1])
            } else {
                ("before", marks[k])
            };
            let pieces = Err(format!(
                "the lines {side} the elision context line `{}` (patch line {line}) have no line to find on that side of it, so nothing says where they go",
                hunk.lines[if last { marks[k - 1].0 } else { marks[k].0 }]
                    .text
                    .trim()
            ));
            return Some(Elision {
                text,
                patch_line,
                pieces,
                replace_only: false,
            });
        }
        if finds {
            out.push(Hunk {
                lines: lines.to_vec(),
                patch_line: start.1,
                line_hint: if k == 0 { hunk.line_hint } else { None },
                // The anchors name the block the whole chunk lies in: the
                // first piece that finds a line is sought in it, even
                // after an elision that opens the chunk.
                anchors: if out.is_empty() {
                    hunk.anchors.clone()
                } else {
                    Vec::new()
                },
                elision_above: k
                    .checked_sub(1)
                    .map(|m| hunk.lines[marks[m].0].text.to_string()),
                at_eof: last && hunk.at_eof,
                old_missing_newline: last && hunk.old_missing_newline,
                new_missing_newline: last && hunk.new_missing_newline,
                elision_piece: true,
                ..Hunk::default()
            });
        } else if last && (hunk.old_missing_newline || hunk.new_missing_newline) {
            return None;
        }
        start = (end + 1, at + 1);
    }
    Some(Elision {
        text,
        patch_line,
        pieces: Ok(out),
        replace_only: false,
    })
}

/// True when a hunk removes a line (for [`read`]).
pub(crate) fn removes(lines: &[HunkLine]) -> bool {
    lines.iter().any(|l| l.kind == LineKind::Remove)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elision_lines() {
        for yes in [
            "...",
            "    ...",
            "…",
            "// ... existing code ...",
            "  # ... rest of the file ...",
            "/* ... */",
            "<!-- ... -->",
            "-- ...",
            "// rest of the function unchanged...",
            "{/* ... */}",
        ] {
            assert!(is_elision(yes), "{yes}");
        }
        for no in [
            "x = ...",
            "// TODO: handle errors...",
            "print('...')",
            "....",
            "# Title",
            "// existing code",
            "",
        ] {
            assert!(!is_elision(no), "{no}");
        }
    }
}
