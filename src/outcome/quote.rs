//! Caps on what messages and reports quote: a line of the patch or of the
//! file is quoted up to [`MAX_QUOTED_LINE`] bytes and a message up to
//! [`MAX_MESSAGE`] bytes; the rest is replaced by an explicit marker,
//! `… (N more bytes)`, so that a 200 MB line that does not match is not
//! echoed to the terminal, into the JSON report and into the conflict
//! report whole. What is written to files (the result, `.rej` files) is
//! never cut. See `docs/json.md`, "Long lines".
//!
//! ```
//! use git_fuzzy_apply::report::quote;
//!
//! let long = "z".repeat(1200);
//! assert!(quote::line(&long).ends_with("… (200 more bytes)"));
//! ```

use serde::Serializer;
use std::borrow::Cow;

/// Bytes of one quoted line kept before the marker.
///
/// ```
/// use git_fuzzy_apply::report::quote::{self, MAX_QUOTED_LINE};
///
/// let at_cap = "a".repeat(MAX_QUOTED_LINE);
/// assert_eq!(quote::line(&at_cap), at_cap.as_str());
/// assert_ne!(quote::line(&format!("{at_cap}b")), format!("{at_cap}b"));
/// ```
pub const MAX_QUOTED_LINE: usize = 1000;

/// Bytes of a message kept (its beginning and its end) around the marker.
///
/// ```
/// use git_fuzzy_apply::report::quote::{self, MAX_MESSAGE};
///
/// let message = "m".repeat(MAX_MESSAGE + 10);
/// assert!(quote::message(message.clone()).len() < message.len() + 30);
/// assert!(quote::message(message).contains("more bytes"));
/// ```
pub const MAX_MESSAGE: usize = 2000;

/// Lines of one quoted block (a hunk, the lines it expected, a candidate's
/// or the near match's file lines) kept before a `… (N more lines)` line:
/// a hunk of 500,000 lines that does not match is not quoted whole either.
///
/// ```
/// use git_fuzzy_apply::report::quote::{self, MAX_QUOTED_LINES};
///
/// let hunk: String = (0..MAX_QUOTED_LINES + 5).map(|i| format!("-l{i}\n")).collect();
/// let capped = quote::lines(&hunk);
/// assert_eq!(capped.lines().count(), MAX_QUOTED_LINES + 1);
/// assert!(capped.ends_with("… (5 more lines)\n"));
/// ```
pub const MAX_QUOTED_LINES: usize = 200;

/// The line that stands for `n` lines left out.
pub(crate) fn more_lines(n: usize) -> String {
    format!("… ({n} more lines)")
}

/// The marker that stands for `n` bytes left out.
fn marker(n: usize) -> String {
    format!("… ({n} more bytes)")
}

/// The largest char boundary of `text` at or below `at`.
fn floor_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// One quoted line: whole up to [`MAX_QUOTED_LINE`] bytes, else its
/// beginning and the marker.
///
/// ```
/// use git_fuzzy_apply::report::quote;
///
/// assert_eq!(quote::line("short"), "short");
/// let long = "x".repeat(5000);
/// assert_eq!(quote::line(&long), format!("{}… (4000 more bytes)", "x".repeat(1000)));
/// ```
pub fn line(text: &str) -> Cow<'_, str> {
    if text.len() <= MAX_QUOTED_LINE {
        return Cow::Borrowed(text);
    }
    let keep = floor_boundary(text, MAX_QUOTED_LINE);
    Cow::Owned(format!("{}{}", &text[..keep], marker(text.len() - keep)))
}

/// Each line of a multi-line text (a hunk as ` `/`-`/`+` lines) capped as
/// by [`line()`], and at most [`MAX_QUOTED_LINES`] of them; line ends are
/// kept.
///
/// ```
/// use git_fuzzy_apply::report::quote;
///
/// let hunk = format!(" a\n-{}\n+b\n", "y".repeat(1500));
/// let capped = quote::lines(&hunk);
/// assert!(capped.starts_with(" a\n-yyy") && capped.ends_with("… (501 more bytes)\n+b\n"));
/// ```
pub fn lines(text: &str) -> Cow<'_, str> {
    let count = text.split_terminator('\n').count();
    if count <= MAX_QUOTED_LINES && text.split('\n').all(|l| l.len() <= MAX_QUOTED_LINE) {
        return Cow::Borrowed(text);
    }
    if count <= MAX_QUOTED_LINES {
        let capped: Vec<Cow<str>> = text.split('\n').map(line).collect();
        return Cow::Owned(capped.join("\n"));
    }
    let mut out = String::new();
    for l in text.split_terminator('\n').take(MAX_QUOTED_LINES) {
        out.push_str(&line(l));
        out.push('\n');
    }
    out.push_str(&more_lines(count - MAX_QUOTED_LINES));
    out.push('\n');
    Cow::Owned(out)
}

/// A message: whole up to [`MAX_MESSAGE`] bytes, else its beginning and
/// its end (where the advice usually stands) around the marker.
///
/// ```
/// use git_fuzzy_apply::report::quote;
///
/// let msg = format!("the line `{}` is not there", "z".repeat(10_000));
/// let capped = quote::message(msg);
/// assert!(capped.len() < 2100 && capped.ends_with("` is not there"));
/// assert!(capped.contains("… (8"));
/// ```
pub fn message(text: String) -> String {
    if text.len() <= MAX_MESSAGE {
        return text;
    }
    let head = floor_boundary(&text, MAX_MESSAGE * 3 / 4);
    let mut tail = text.len() - MAX_MESSAGE / 4;
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    format!("{}{} {}", &text[..head], marker(tail - head), &text[tail..])
}

/// Serialises a multi-line text capped as by [`lines()`] (a JSON field).
pub(crate) fn serialize_lines<S: Serializer>(text: &str, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&lines(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_at_character_boundaries() {
        let text = "é".repeat(MAX_QUOTED_LINE);
        let capped = line(&text);
        let kept = capped.split('…').next().unwrap();
        assert_eq!(kept.len(), MAX_QUOTED_LINE);
        assert!(capped.ends_with(&format!("({} more bytes)", text.len() - kept.len())));
        let msg = message("ü".repeat(MAX_MESSAGE));
        assert!(msg.len() < MAX_MESSAGE + 40, "{}", msg.len());
    }
}
