//! Hunk headers and hunk bodies of unified diffs (numbered and numberless).

use super::cleanup::Src;
use super::malformed;
use super::numbering::{split_line_number, strip_numbered_hunk};
use super::paths::is_file_header;
use crate::error::ParseError;
use crate::model::{Hunk, HunkLine, LineKind, LineText};

/// True for a hunk header line (`@@ ...`).
pub(crate) fn is_hunk_header(line: &str) -> bool {
    line.starts_with("@@")
}

/// What a hunk header says.
enum HeaderKind {
    /// `@@ -a,b +c,d @@`: the starts `(a, c)` and the line counts `(b, d)`.
    Numbered((usize, usize), (usize, usize)),
    /// `@@`, `@@ @@`, `@@ text @@`.
    Numberless,
}

/// Parses a `-a,b` / `+c,d` range; returns the start and the count (1 when omitted).
fn parse_range(tok: &str, sign: char) -> Option<(usize, usize)> {
    let t = tok.strip_prefix(sign)?;
    let (start, count) = match t.split_once(',') {
        Some((s, c)) => (s, c.parse::<usize>().ok()?),
        None => (t, 1),
    };
    Some((start.parse().ok()?, count))
}

/// True when `line` is a numberless hunk header (`@@ ... @@`, `@@ @@`).
pub(crate) fn is_numberless_header(line: &str) -> bool {
    matches!(parse_header(line, 0), Ok(HeaderKind::Numberless))
}

fn parse_header(line: &str, at: usize) -> Result<HeaderKind, ParseError> {
    let rest = line.get(2..).unwrap_or("").trim_start();
    let looks_numbered = rest
        .strip_prefix('-')
        .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()));
    if !looks_numbered {
        return Ok(HeaderKind::Numberless);
    }
    let mut toks = rest.split_whitespace();
    let old = toks.next().and_then(|t| parse_range(t, '-'));
    let new = toks.next().and_then(|t| parse_range(t, '+'));
    let close = toks.next().is_some_and(|t| t.starts_with("@@"));
    match (old, new, close) {
        (Some((a, b)), Some((c, d)), true) => Ok(HeaderKind::Numbered((a, c), (b, d))),
        _ => Err(malformed(
            at,
            format!("bad hunk header `{line}`: expected `@@ -START,COUNT +START,COUNT @@`"),
        )),
    }
}

/// True for a numberless header whose text holds a digit before any
/// closing `@@` (`@@(97,1)-(98,2)`, `@@ line 40 @@`): the model meant a
/// place, written in a form that cannot be read.
fn garbled_numbers(header: &str) -> bool {
    let rest = header.get(2..).unwrap_or("");
    let text = rest.find("@@").map_or(rest, |k| &rest[..k]);
    text.chars().any(|c| c.is_ascii_digit())
}

/// The section heading after a numbered header's closing `@@`, trimmed
/// (`@@ -5,2 +5,3 @@ def save(self):` gives `def save(self):`).
fn section_heading(header: &str) -> &str {
    header
        .get(2..)
        .and_then(|rest| rest.find("@@").map(|k| &rest[k + 2..]))
        .unwrap_or("")
        .trim()
}

/// A `42 | -code` line (number before the marker): returns the marker and the
/// line rewritten as `42 | code` so the common prefix stripping handles it.
fn before_form(line: &str) -> Option<(char, String)> {
    let (n, rest) = split_line_number(line)?;
    let mut chars = rest.chars();
    let m = chars.next()?;
    matches!(m, ' ' | '-' | '+').then(|| (m, format!("{n} | {}", chars.as_str())))
}

/// True when line `k` continues a hunk body.
pub(crate) fn is_body_line(src: &Src, k: usize) -> bool {
    let Some(l) = src.line(k) else { return false };
    if is_file_header(src, k) {
        return false;
    }
    l.starts_with([' ', '-', '+', '\\']) || before_form(l).is_some()
}

/// Parses the hunk whose header is at line `i`; returns it, whether it was
/// numbered, and the index after it.
pub(crate) fn parse_hunk(
    src: &Src,
    i: usize,
    place: &HunkPlace,
) -> Result<(Hunk, bool, usize), ParseError> {
    let header = src.line(i).unwrap_or("");
    let kind = parse_header(header, src.orig(i))?;
    let (hint, new_start, counts) = match kind {
        HeaderKind::Numbered((a, c), counts) => (Some(a), Some(c), Some(counts)),
        HeaderKind::Numberless => (None, None, None),
    };
    let numbered = counts.is_some();
    let (hunk, next) = parse_body(src, i + 1, src.orig(i), counts, place)?;
    if !numbered && garbled_numbers(header) && hunk.lines.iter().all(|l| l.kind == LineKind::Add) {
        return Err(malformed(
            src.orig(i),
            format!(
                "{}: hunk {}: header `{}` holds numbers that are not `@@ -START,COUNT +START,COUNT @@`, and the hunk only adds lines: without context or a readable line number it has no place (read as a bare `@@` it would append at the end of the file); write the header as `@@ -START,0 +START,COUNT @@` or give the hunk context lines",
                place.path,
                place.number,
                header.trim()
            ),
        ));
    }
    let mut hunk = hunk;
    // The header's number wins over a stripped `N | ` prefix, which stays
    // a second reading of the place.
    if hint.is_some() {
        hunk.view_start = hunk.line_hint.filter(|&n| Some(n) != hint);
        hunk.line_hint = hint;
        hunk.new_start = new_start;
        hunk.section = section_heading(header).to_string();
    }
    Ok((hunk, numbered, next))
}

/// Which file and hunk a body belongs to, for error messages.
pub(crate) struct HunkPlace<'a> {
    /// The file's path.
    pub path: &'a str,
    /// The hunk's 1-based number in the file.
    pub number: usize,
}

/// What an unmarked line (no ` `, `-`, `+` or `\\`) inside a body is.
enum Unmarked {
    /// A context line that lost its leading space.
    Context,
    /// The end of the hunk.
    End,
    /// Neither: more hunk lines follow, so ending here would drop them.
    Stray,
    /// A fence line with the rest of the hunk after it (see
    /// [`fence_inside_hunk`]).
    StrayFence,
}

/// True when the fence line `j` stands inside the hunk rather than closing
/// it: body lines follow it directly, and they run up to a fence line (or
/// the end of the text) and either complete the header's counts exactly
/// (`seen` lines read so far) or, in a numberless hunk, end at a fence
/// line. Ending the hunk there would silently drop the lines after the
/// fence; reading the fence as a context line that lost its space (a
/// Markdown file's own fence) is a guess as well.
fn fence_inside_hunk(
    src: &Src,
    j: usize,
    counts: Option<(usize, usize)>,
    seen: (usize, usize),
) -> bool {
    let (mut old, mut new) = seen;
    let mut k = j + 1;
    while let Some(n) = src.line(k) {
        if is_file_header(src, k) || n.starts_with("--- ") || n.starts_with("+++ ") {
            break;
        }
        match n.chars().next() {
            Some(' ') => (old, new) = (old + 1, new + 1),
            Some('-') => old += 1,
            Some('+') => new += 1,
            Some('\\') => {}
            _ => break,
        }
        k += 1;
    }
    if k == j + 1 {
        return false;
    }
    let at_fence = src.line(k).is_some_and(super::cleanup::is_fence);
    match counts {
        Some(c) => (at_fence || src.line(k).is_none()) && (old, new) == c && seen != c,
        None => at_fence,
    }
}

/// Reads the unmarked line `j`. With counts that are not used up it is a
/// context line that lost its leading space, when the hunk goes on after it
/// or it completes the counts; with counts used up it ends the hunk. In a
/// numberless hunk it ends the hunk unless hunk lines follow it: then it is
/// an error (ending silently would drop them).
fn unmarked(src: &Src, j: usize, counts: Option<(usize, usize)>, seen: (usize, usize)) -> Unmarked {
    let l = src.line(j).unwrap_or("");
    if super::cleanup::is_fence(l) && fence_inside_hunk(src, j, counts, seen) {
        return Unmarked::StrayFence;
    }
    if starts_something_else(l) {
        return Unmarked::End;
    }
    let resumes = src.line(j + 1).is_some_and(|n| {
        n.starts_with([' ', '-', '+'])
            && !n.starts_with("--- ")
            && !n.starts_with("+++ ")
            && !n.trim().chars().all(|c| c == '-')
            && !is_file_header(src, j + 1)
    });
    if let Some((b, d)) = counts
        && (seen.0 < b || seen.1 < d)
        && (resumes || (seen.0 + 1 == b && seen.1 + 1 == d))
    {
        return Unmarked::Context;
    }
    // With counts used up, the header says the hunk is complete.
    if resumes && counts.is_none() {
        Unmarked::Stray
    } else {
        Unmarked::End
    }
}

/// True for a line that starts another hunk, file or notation (a
/// SEARCH/REPLACE block's markers included): it ends a hunk whatever the
/// counts say, and is never a context line that lost its space.
fn starts_something_else(l: &str) -> bool {
    is_hunk_header(l)
        || l.starts_with("diff ")
        || l.starts_with("Index: ")
        || super::cleanup::is_fence(l)
        || super::codex::is_begin(l)
        || super::search_replace::is_search(l)
        || super::search_replace::is_divider(l)
        || super::search_replace::is_replace(l)
        || super::roo::is_tool_call(l)
}

/// True when the blank lines `j..k` are blank context: the hunk goes on at
/// line `k`, with a marked line or, while the counts last, one that lost
/// its leading space.
fn continues_after_blanks(
    src: &Src,
    j: usize,
    k: usize,
    counts: Option<(usize, usize)>,
    body: &Body,
) -> bool {
    let seen = (body.old + (k - j), body.new + (k - j));
    is_body_line(src, k) || matches!(unmarked(src, k, counts, seen), Unmarked::Context)
}

/// The `-- ` line that `git format-patch` writes after the last hunk, before
/// the version line: not a removed line once the counts are used up.
fn is_mail_signature(src: &Src, j: usize, counts: Option<(usize, usize)>, body: &Body) -> bool {
    src.line(j) == Some("-- ")
        && counts.is_some_and(|(b, d)| body.old >= b && body.new >= d)
        && src
            .line(j + 1)
            .is_none_or(|n| !n.starts_with([' ', '-', '+', '\\']))
}

/// True when line `j` ends a hunk body: the next file's `---`/`+++` header
/// once the counts are used up (or a hunk header follows the pair), or a
/// mail signature.
fn ends_body(src: &Src, j: usize, counts: Option<(usize, usize)>, body: &Body) -> bool {
    if is_file_header(src, j) {
        let counts_left = counts.is_some_and(|(b, d)| body.old < b || body.new < d);
        let hunk_follows = src.line(j + 2).is_some_and(is_hunk_header);
        // A hunk cannot be empty: at its very start, such a pair is a
        // removed `-- …` and an added `++ …` line unless a hunk follows.
        let at_start = body.lines.is_empty();
        if (!counts_left && !at_start) || hunk_follows {
            return true;
        }
    }
    is_mail_signature(src, j, counts, body)
}

/// Reads a body line `l` (patch line `line_no`) that starts with its marker
/// (` `, `-`, `+`, or `\` for "No newline at end of file") into `hunk`;
/// false, reading nothing, when it has none. A context line that is an
/// elision line (`// ... existing code ...`) is noted in `elided` (its index
/// in the body and patch line).
fn push_marked(
    l: &str,
    line_no: usize,
    hunk: &mut Hunk,
    body: &mut Body,
    elided: &mut Vec<(usize, usize)>,
) -> bool {
    if let Some(rest) = l.strip_prefix(' ') {
        if super::elision::is_elision(rest) {
            elided.push((body.lines.len(), line_no));
        }
        body.push(hunk, LineKind::Context, rest);
    } else if let Some(rest) = l.strip_prefix('-') {
        body.push(hunk, LineKind::Remove, rest);
    } else if let Some(rest) = l.strip_prefix('+') {
        body.push(hunk, LineKind::Add, rest);
    } else if l.starts_with('\\') {
        match body.last {
            Some(LineKind::Remove) => hunk.old_missing_newline = true,
            Some(LineKind::Add) => hunk.new_missing_newline = true,
            // After a context line that ends the hunk both sides lack the
            // final newline: the patch does not change it, so the file's
            // own ending is kept (a final newline the patch does not touch
            // stays). One that lines of one side follow ends the other
            // side (see [`Body::finish_context_marker`]).
            Some(LineKind::Context) => body.context_marker = Some((false, false)),
            None => {}
        }
    } else {
        return false;
    }
    true
}

/// Reads hunk body lines from `j`; `at` is the patch line reported for the hunk.
/// `counts` (old, new) from a numbered header: while they are not used up, a
/// `--- `/`+++ ` pair is a removed and an added line (say, SQL comments), not
/// the next file's header — unless a hunk header follows it — and a line
/// without marker is a context line that lost its space (see [`unmarked`]).
pub(crate) fn parse_body(
    src: &Src,
    mut j: usize,
    at: usize,
    counts: Option<(usize, usize)>,
    place: &HunkPlace,
) -> Result<(Hunk, usize), ParseError> {
    let mut hunk = Hunk {
        patch_line: at,
        ..Hunk::default()
    };
    let mut before = false;
    // Context lines that are elision lines (`// ... existing code ...`):
    // their index in the body and patch line.
    let mut elided = Vec::new();
    let mut body = Body {
        owner: src.owner.clone(),
        ..Body::default()
    };
    while let Some(l) = src.line(j) {
        if l.is_empty() || l == "\r" {
            match src.next_non_empty(j) {
                Some(k) if continues_after_blanks(src, j, k, counts, &body) => {
                    for _ in j..k {
                        body.push(&mut hunk, LineKind::Context, "");
                    }
                    j = k;
                    continue;
                }
                _ => break,
            }
        }
        if ends_body(src, j, counts, &body) {
            break;
        }
        if !push_marked(l, src.orig(j), &mut hunk, &mut body, &mut elided) {
            if let Some((m, text)) = before_form(l) {
                before = true;
                let kind = match m {
                    '-' => LineKind::Remove,
                    '+' => LineKind::Add,
                    _ => LineKind::Context,
                };
                body.push(&mut hunk, kind, &text);
            } else {
                match unmarked(src, j, counts, (body.old, body.new)) {
                    Unmarked::Context => body.push(&mut hunk, LineKind::Context, l),
                    Unmarked::End => break,
                    Unmarked::Stray => return Err(stray_line(src.orig(j), l, at, place)),
                    Unmarked::StrayFence => return Err(stray_fence(src.orig(j), at, place)),
                }
            }
        }
        j += 1;
    }
    if body.lines.is_empty() {
        return Err(malformed(at, "hunk has no lines"));
    }
    body.finish_context_marker(&mut hunk);
    hunk.lines = body.into_lines();
    strip_numbers(&mut hunk, before, at)?;
    hunk.elision = super::elision::read_context(&hunk, &elided).map(Box::new);
    Ok((hunk, j))
}

/// The refusal of a line without marker (patch line `line_no`) in the middle
/// of the hunk at patch line `at`.
fn stray_line(line_no: usize, l: &str, at: usize, place: &HunkPlace) -> ParseError {
    malformed(
        line_no,
        format!(
            "{}: hunk {} (patch line {at}): line `{l}` has no ` `, `-` or `+` marker but the hunk goes on after it; give it its marker (` ` for context)",
            place.path, place.number
        ),
    )
}

/// The refusal of a fence line (patch line `line_no`) with hunk lines
/// after it, in the hunk at patch line `at`.
fn stray_fence(line_no: usize, at: usize, place: &HunkPlace) -> ParseError {
    malformed(
        line_no,
        format!(
            "{}: hunk {} (patch line {at}): a fence line stands inside the hunk, and hunk lines follow it: ending the hunk there would drop them, and it is no context line without its ` ` marker; remove the stray fence (or give it its ` ` marker if the file holds that line)",
            place.path, place.number
        ),
    )
}

/// Strips line-number prefixes copied from a numbered view; `before` when
/// they stood before the markers (`42 | -code`), which must then strip.
fn strip_numbers(hunk: &mut Hunk, before: bool, at: usize) -> Result<(), ParseError> {
    // The lines as written are kept when their line numbers are stripped;
    // copied only when the first old line carries one (no copy of a large
    // hunk that cannot be numbered).
    let numbered = hunk
        .old_lines()
        .find(|l| !l.text.trim().is_empty())
        .is_some_and(|l| split_line_number(&l.text).is_some());
    let written = (numbered && !before).then(|| hunk.lines.clone());
    match strip_numbered_hunk(&mut hunk.lines) {
        Some(n) => {
            hunk.line_hint = Some(n);
            hunk.as_written = written;
        }
        None if before => {
            return Err(malformed(
                at,
                "hunk lines carry line numbers (`42 | -code`) that are not consecutive",
            ));
        }
        None => {}
    }
    Ok(())
}

/// A hunk's lines as they are read: their texts go into one buffer, which
/// the lines share once the hunk ends (one allocation per hunk, not per
/// line: a large patch is not held twice over).
#[derive(Default)]
struct Body {
    /// The patch text, when lines that stand in it can point into it.
    owner: Option<std::sync::Arc<String>>,
    text: String,
    lines: Vec<(LineKind, Piece)>,
    last: Option<LineKind>,
    old: usize,
    new: usize,
    /// After a `\ No newline at end of file` that follows a context line:
    /// whether added and removed lines followed it.
    context_marker: Option<(bool, bool)>,
}

/// Where a line's text is: in the patch text, or in the hunk's own buffer.
enum Piece {
    Shared(LineText),
    Own(std::ops::Range<usize>),
}

impl Body {
    fn push(&mut self, hunk: &mut Hunk, kind: LineKind, text: &str) {
        if kind != LineKind::Add {
            hunk.old_missing_newline = false;
            self.old += 1;
        }
        if kind != LineKind::Remove {
            hunk.new_missing_newline = false;
            self.new += 1;
        }
        self.last = Some(kind);
        if let Some((adds, removes)) = self.context_marker.as_mut() {
            match kind {
                LineKind::Add => *adds = true,
                LineKind::Remove => *removes = true,
                LineKind::Context => self.context_marker = None,
            }
        }
        let shared = self.owner.as_ref().and_then(|o| LineText::within(o, text));
        let piece = shared.map_or_else(
            || {
                let start = self.text.len();
                self.text.push_str(text);
                Piece::Own(start..self.text.len())
            },
            Piece::Shared,
        );
        self.lines.push((kind, piece));
    }

    /// Reads a `\ No newline at end of file` written after a context line
    /// that only added (or only removed) lines follow: that context line
    /// is the old (new) side's last line, without a newline. Read so in
    /// both directions, `-R` restores the ending the forward run changed
    /// (git reads the marker as cutting the context line's newline on
    /// both sides and glues the added line onto it). Followed by both
    /// kinds or by context, the marker can end neither side and is
    /// ignored, the same way in both directions.
    fn finish_context_marker(&self, hunk: &mut Hunk) {
        match self.context_marker {
            Some((true, false)) => {
                hunk.old_missing_newline = true;
                hunk.old_missing_on_context = true;
            }
            Some((false, true)) => {
                hunk.new_missing_newline = true;
                hunk.new_missing_on_context = true;
            }
            _ => {}
        }
    }

    fn into_lines(mut self) -> Vec<HunkLine> {
        self.text.shrink_to_fit();
        let own: Vec<_> = self
            .lines
            .iter()
            .filter_map(|(_, p)| match p {
                Piece::Own(range) => Some(range.clone()),
                Piece::Shared(_) => None,
            })
            .collect();
        let mut own = LineText::shared(self.text, own).into_iter();
        // A new vector of the exact size: collecting in place would keep
        // the larger allocation of `(LineKind, Piece)` pairs.
        let mut lines = Vec::with_capacity(self.lines.len());
        for (kind, piece) in self.lines {
            let text = match piece {
                Piece::Shared(text) => text,
                Piece::Own(_) => own.next().unwrap_or_default(),
            };
            lines.push(HunkLine { kind, text });
        }
        lines
    }
}

#[cfg(test)]
mod tests;
