//! Clean-up shared by every format: UTF-8 check, BOM, line ends, JSON edit
//! requests, and detection of line-number prefixes copied from file views.

use super::PatchText;
use crate::error::ParseError;
use serde_json::Value;
use std::borrow::Cow;

/// Patch text split into lines, with the original 1-based line of each.
#[derive(Debug, Clone, Default)]
pub(crate) struct Src<'a> {
    /// Lines without terminators, borrowed from the patch text where they
    /// stand in it unchanged (the patch is not copied line by line).
    pub lines: Vec<Cow<'a, str>>,
    /// `map[i]` is the 1-based line of the original patch text for `lines[i]`.
    pub map: Vec<usize>,
    /// The patch text the borrowed lines come from, when it can be shared:
    /// hunk lines then point into it instead of being copied.
    pub owner: Option<std::sync::Arc<String>>,
}

impl<'a> Src<'a> {
    /// Splits `text` into lines (LF, CRLF or lone CR ends); line `i` maps to `first + i`.
    pub(super) fn from_text(text: &'a str, first: usize) -> Src<'a> {
        let parts = split_lines(text);
        let mut src = Src {
            lines: Vec::with_capacity(parts.len()),
            map: Vec::with_capacity(parts.len()),
            owner: None,
        };
        for (k, line) in parts.into_iter().enumerate() {
            src.lines.push(Cow::Borrowed(line));
            src.map.push(first + k);
        }
        src
    }

    /// The same lines, owning their text.
    pub(super) fn into_owned(self) -> Src<'static> {
        Src {
            lines: self
                .lines
                .into_iter()
                .map(|l| Cow::Owned(l.into_owned()))
                .collect(),
            map: self.map,
            owner: None,
        }
    }

    /// Line `i`, if it exists.
    pub(super) fn line(&self, i: usize) -> Option<&str> {
        self.lines.get(i).map(|l| l.as_ref())
    }

    /// Number of lines.
    pub(super) fn len(&self) -> usize {
        self.lines.len()
    }

    /// The original 1-based patch line of line `i` (past the end: one after the last).
    pub(super) fn orig(&self, i: usize) -> usize {
        match self.map.get(i) {
            Some(n) => *n,
            None => self.map.last().map_or(1, |n| n + 1),
        }
    }

    /// Index of the first non-empty (not whitespace-only) line at or after `i`.
    pub(super) fn next_non_empty(&self, i: usize) -> Option<usize> {
        (i..self.len()).find(|&k| self.line(k).is_some_and(|l| !l.trim().is_empty()))
    }

    /// Index of the last non-empty line strictly before `i`.
    pub(super) fn prev_non_empty(&self, i: usize) -> Option<usize> {
        (0..i)
            .rev()
            .find(|&k| self.line(k).is_some_and(|l| !l.trim().is_empty()))
    }
}

/// One independently parsed piece of input: the whole text, or one JSON edit request.
#[derive(Debug, Clone)]
pub(crate) struct Segment<'a> {
    /// The lines to scan.
    pub src: Src<'a>,
    /// The path a JSON request names; serves every edit of the segment that names no file.
    pub path: Option<String>,
}

/// Splits on LF, and on CRLF when every line ends so; a final terminator
/// does not start an extra line. A lone CR ends a line only in a text
/// without any LF (old Mac line ends): elsewhere it is a character of the
/// line, as `git diff` writes a file's CR that stands inside a line.
fn split_lines(text: &str) -> Vec<&str> {
    // Sized once (a line per newline, and a last one): no doubling slack.
    let bytes = text.as_bytes();
    let lf = memchr::memchr_iter(b'\n', bytes).count();
    let crlf = memchr::memmem::find_iter(bytes, b"\r\n").count();
    let mut out = Vec::with_capacity(lf + 1);
    let cr_ends = lf == 0;
    // Lines ending in CRLF among lines ending in LF (`git diff` of a CRLF
    // file): the CR belongs to the line; the parsers drop it again from
    // every hunk but those that create or delete a whole file.
    let crlf_ends = crlf == lf;
    let mut start = 0;
    let mut k = 0;
    while k < bytes.len() {
        match bytes.get(k) {
            Some(b'\n') => {
                out.push(text.get(start..k).unwrap_or(""));
                start = k + 1;
            }
            Some(b'\r') if cr_ends || crlf_ends && bytes.get(k + 1) == Some(&b'\n') => {
                out.push(text.get(start..k).unwrap_or(""));
                if bytes.get(k + 1) == Some(&b'\n') {
                    k += 1;
                }
                start = k + 1;
            }
            _ => {}
        }
        k += 1;
    }
    if start < bytes.len() {
        out.push(text.get(start..).unwrap_or(""));
    }
    out
}

/// Decodes the patch (UTF-8 check, BOM) and splits it into segments (JSON requests).
pub(crate) fn prepare(text: &PatchText) -> Result<Vec<Segment<'_>>, ParseError> {
    let Some(owner) = text.shared() else {
        let bytes = text.as_bytes();
        let valid = std::str::from_utf8(bytes).map_or_else(|e| e.valid_up_to(), |t| t.len());
        let line = 1 + count_line_ends(bytes.get(..valid).unwrap_or(&[]));
        return Err(ParseError::InvalidUtf8 { line });
    };
    let text = owner.as_str();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Some(segments) = json_requests(text)? {
        return Ok(segments);
    }
    Ok(vec![Segment {
        src: Src {
            owner: Some(owner.clone()),
            ..Src::from_text(text, 1)
        },
        path: None,
    }])
}

/// Counts line ends the way [`split_lines`] does (CRLF counts once).
fn count_line_ends(bytes: &[u8]) -> usize {
    let mut n = 0;
    let mut prev_cr = false;
    for &b in bytes {
        if b == b'\n' && !prev_cr || b == b'\r' {
            n += 1;
        }
        prev_cr = b == b'\r';
    }
    n
}

/// Reads `{"path": .., "patch_lines": [..]}` requests (or an array of them).
/// Returns `None` when the text is not such a request.
fn json_requests(text: &str) -> Result<Option<Vec<Segment<'static>>>, ParseError> {
    let trimmed = text.trim();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return Ok(None);
    }
    let Ok(value) = serde_json::from_str::<Value>(trimmed) else {
        return Ok(None);
    };
    let objects: Vec<&Value> = match &value {
        Value::Array(items) if !items.is_empty() => items.iter().collect(),
        Value::Object(_) => vec![&value],
        _ => return Ok(None),
    };
    if !objects.iter().all(|o| is_request(o)) {
        return Ok(None);
    }
    // Offset of `text` inside the untrimmed input, for line numbers.
    let lead = text.len() - text.trim_start().len();
    let base_line = 1 + count_line_ends(text.as_bytes().get(..lead).unwrap_or(&[]));
    let mut cursor = 0usize;
    let mut segments = Vec::new();
    for obj in objects {
        let path = ["path", "file", "file_path"]
            .iter()
            .find_map(|k| obj.get(*k).and_then(Value::as_str))
            .map(str::to_string);
        let src = if let Some(lines) = obj.get("patch_lines").and_then(Value::as_array) {
            patch_lines(lines, trimmed, base_line, &mut cursor)?
        } else if let Some(s) = obj.get("patch").and_then(Value::as_str) {
            let mut src = Src::from_text(s, base_line).into_owned();
            for m in &mut src.map {
                *m = base_line;
            }
            src
        } else {
            Src::default()
        };
        segments.push(Segment { src, path });
    }
    Ok(Some(segments))
}

/// The lines of a request's `patch_lines` array, each with the line of the
/// JSON text (`trimmed`, starting at line `base_line`) it is written on;
/// `cursor` is where in `trimmed` the search for the next entry starts.
fn patch_lines(
    lines: &[Value],
    trimmed: &str,
    base_line: usize,
    cursor: &mut usize,
) -> Result<Src<'static>, ParseError> {
    let mut src = Src::default();
    // In a diff, the lines after an entry's embedded newline that carry
    // no marker of their own take the entry's marker; a SEARCH/REPLACE
    // body has no markers to share.
    let diff = !lines
        .iter()
        .filter_map(Value::as_str)
        .any(|s| s.contains("<<<<<") || s.contains("----- SEARCH"));
    for (n, entry) in lines.iter().enumerate() {
        let Some(s) = entry.as_str() else {
            return Err(ParseError::Malformed {
                line: base_line,
                message: format!("`patch_lines` entry {} is not a string", n + 1),
            });
        };
        // Locate the entry in the JSON text to report its own line.
        let line = match serde_json::to_string(s)
            .ok()
            .and_then(|enc| trimmed.get(*cursor..)?.find(&enc).map(|p| (p, enc.len())))
        {
            Some((p, len)) => {
                let at = *cursor + p;
                *cursor = at + len;
                base_line + count_line_ends(trimmed.as_bytes().get(..at).unwrap_or(&[]))
            }
            None => src.map.last().copied().unwrap_or(base_line),
        };
        let body = strip_one_terminator(s);
        if body.is_empty() && s.len() == body.len() {
            src.lines.push(Cow::Borrowed(""));
            src.map.push(line);
            continue;
        }
        let parts = split_lines(body);
        if parts.is_empty() {
            src.lines.push(Cow::Borrowed(""));
            src.map.push(line);
        }
        let marker = parts
            .first()
            .and_then(|p| p.chars().next())
            .filter(|c| diff && matches!(c, ' ' | '-' | '+'));
        for (k, part) in parts.into_iter().enumerate() {
            let own = part.starts_with([' ', '-', '+', '\\']);
            let text = match marker {
                Some(m) if k > 0 && !own => format!("{m}{part}"),
                _ => part.to_string(),
            };
            src.lines.push(Cow::Owned(text));
            src.map.push(line);
        }
    }
    Ok(src)
}

/// Removes one trailing line terminator (an entry `"foo\n"` is the line `foo`).
fn strip_one_terminator(s: &str) -> &str {
    s.strip_suffix("\r\n")
        .or_else(|| s.strip_suffix('\n'))
        .or_else(|| s.strip_suffix('\r'))
        .unwrap_or(s)
}

fn is_request(v: &Value) -> bool {
    v.as_object().is_some_and(|o| {
        o.get("patch_lines").is_some_and(Value::is_array)
            || o.get("patch").is_some_and(Value::is_string)
    })
}

/// True for a Markdown fence line (```` ``` ````, ```` ```diff ````, `~~~`).
pub(crate) fn is_fence(line: &str) -> bool {
    let t = line.trim();
    t.starts_with("```") || t.starts_with("~~~")
}

#[cfg(test)]
mod tests {
    use super::super::numbering::split_line_number;
    use super::super::test_util::*;
    use super::super::{ParseOptions, parse_patch};
    use crate::error::ParseError;

    const DIFF: &str = "Fix:\n--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n";

    #[test]
    fn invalid_utf8_reports_its_line() {
        let bytes = b"--- a/f\n+++ b/f\r\n@@ -1 +1 @@\n-\xff\n+x\n";
        assert_eq!(
            parse_patch(bytes, &ParseOptions::default()),
            Err(ParseError::InvalidUtf8 { line: 4 })
        );
    }

    #[test]
    fn bom_crlf_and_lone_cr_match_lf() {
        let lf = parse(DIFF).unwrap();
        assert_eq!(parse(&DIFF.replace('\n', "\r\n")).unwrap(), lf);
        assert_eq!(parse(&DIFF.replace('\n', "\r")).unwrap(), lf);
        assert_eq!(parse(&format!("\u{feff}{DIFF}")).unwrap(), lf);
        // Reported lines stay the original ones.
        let (line, _) = malformed(parse("x\r\n\r\n--- a/f\r\n+++ b/f\r\n@@ -1 +1 @@\r\n"));
        assert_eq!(line, 5);
    }

    #[test]
    fn json_patch_lines_embedded_newlines_equal_per_line() {
        let per_line =
            r#"{"path": "f.txt", "patch_lines": ["@@ -1,3 +1,3 @@", " a", "", "-b", "+c"]}"#;
        let embedded =
            r#"{"path": "f.txt", "patch_lines": ["@@ -1,3 +1,3 @@\n a\r\n", "\n-b\n+c"]}"#;
        let a = parse(per_line).unwrap();
        assert_eq!(a, parse(embedded).unwrap());
        assert_eq!(a.files[0].path, "f.txt");
        assert_eq!(show(&a.files[0].hunks[0]), [" a", " ", "-b", "+c"]);
    }

    #[test]
    fn lone_cr_ends_lines_only_without_lf() {
        let p = parse("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\rb\n+a\rc\n").unwrap();
        assert_eq!(show(&p.files[0].hunks[0]), ["-a\rb", "+a\rc"]);
        let p = parse("--- a/f\r+++ b/f\r@@ -1 +1 @@\r-a\r+c\r").unwrap();
        assert_eq!(show(&p.files[0].hunks[0]), ["-a", "+c"]);
    }

    #[test]
    fn json_entry_lines_without_marker_take_the_entry_marker() {
        let p =
            parse(r#"{"path": "f", "patch_lines": ["@@", " a\nb", "+c\nd\n", "-e\n+E"]}"#).unwrap();
        assert_eq!(
            show(&p.files[0].hunks[0]),
            [" a", " b", "+c", "+d", "-e", "+E"]
        );
        // SEARCH/REPLACE lines have no markers to share.
        let p = parse(r#"{"path": "f", "patch_lines": ["<<<<<<< SEARCH\n x\ny", "=======", " x\nz", ">>>>>>> REPLACE"]}"#).unwrap();
        assert_eq!(show(&p.files[0].hunks[0]), ["  x", "-y", "+z"]);
    }

    #[test]
    fn json_request_forms() {
        // `patch` as one string, `file_path` key, a header that names the file.
        let one =
            r#"{"file_path": "ignored.txt", "patch": "--- a/f.txt\n+++ b/f.txt\n@@\n-b\n+c\n"}"#;
        assert_eq!(parse(one).unwrap().files[0].path, "f.txt");
        // An array of requests, numberless and SEARCH/REPLACE bodies.
        let many = r#"[
            {"file": "a.rs", "patch_lines": ["@@", "-x", "+y"]},
            {"path": "b.rs", "patch_lines": ["<<<<<<< SEARCH", "p", "=======", "q", ">>>>>>> REPLACE"]}
        ]"#;
        let p = parse(many).unwrap();
        let paths: Vec<_> = p.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["a.rs", "b.rs"]);
        // Entry lines are reported at their JSON line.
        let bad =
            "{\"path\": \"a\",\n \"patch_lines\": [\n  \"@@\",\n  \"@@ -1 +1 @@\",\n  \"-x\"]}";
        assert_eq!(malformed(parse(bad)).0, 3);
        // JSON that is not a request is plain text.
        assert_eq!(parse(r#"{"a": 1}"#), Err(ParseError::NoEdits));
    }

    #[test]
    fn line_number_prefix_forms() {
        assert_eq!(split_line_number("42 | code"), Some((42, "code")));
        assert_eq!(split_line_number("  42 |code"), Some((42, "code")));
        assert_eq!(split_line_number("42: code"), Some((42, "code")));
        assert_eq!(split_line_number("42\t| code"), Some((42, "code")));
        assert_eq!(split_line_number("    42\tcode"), Some((42, "code")));
        assert_eq!(
            split_line_number("42 |     indented"),
            Some((42, "    indented"))
        );
        assert_eq!(split_line_number("x = 42"), None);
        assert_eq!(split_line_number("42 code"), None);
    }
}
