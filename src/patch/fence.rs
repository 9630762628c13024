//! Fences around edits: Markdown's (```` ``` ````, ```` ```` ````, `~~~`,
//! with an info string) and the HTML-like ones Aider switches to when a file
//! it shows holds triple backticks (`<source>`, `<code>`, `<pre>`,
//! `<codeblock>`, `<sourcecode>`).
//!
//! A fence opened with N backticks (or tildes) is closed only by a line of
//! at least N of the same character and nothing else (CommonMark), so a
//! ```` ``` ```` line inside a ```` ```` ```` fence is content. A tag fence is
//! closed by its closing tag alone on a line.

/// The tags Aider uses as fences.
const TAGS: &[&str] = &["sourcecode", "codeblock", "source", "code", "pre"];

/// How a fence was opened, to know which line closes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fence {
    /// A run of `count` backticks or tildes.
    Run(char, usize),
    /// `<tag>` … `</tag>`.
    Tag(&'static str),
}

/// A line that opens a fence: the fence and its info string (`python`,
/// `python:src/x.py`, `src/x.py`), trimmed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Opening<'a> {
    /// Which fence.
    pub fence: Fence,
    /// The text after the fence characters or tag.
    pub info: &'a str,
}

/// The run of 3 or more `c` that `t` starts with, and the rest.
fn run(t: &str, c: char) -> Option<(usize, &str)> {
    let rest = t.trim_start_matches(c);
    let n = t.len() - rest.len();
    (n >= 3).then_some((n / c.len_utf8(), rest))
}

/// The fence a line opens, if any. A backtick fence's info string holds no
/// backtick (```` ```x``` ```` is inline code, not a fence); a tag fence's
/// holds no `<` (`<code>x</code>` is inline HTML).
pub(crate) fn opening(line: &str) -> Option<Opening<'_>> {
    let t = line.trim();
    for c in ['`', '~'] {
        if let Some((n, rest)) = run(t, c) {
            let info = rest.trim();
            if c == '`' && info.contains('`') {
                return None;
            }
            return Some(Opening {
                fence: Fence::Run(c, n),
                info,
            });
        }
    }
    let inner = t.strip_prefix('<')?;
    TAGS.iter().find_map(|tag| {
        let rest = inner
            .get(..tag.len())
            .filter(|h| h.eq_ignore_ascii_case(tag))
            .and_then(|_| inner.get(tag.len()..))?
            .strip_prefix('>')?;
        (!rest.contains('<')).then(|| Opening {
            fence: Fence::Tag(tag),
            info: rest.trim(),
        })
    })
}

/// True when `line` closes `fence`.
pub(crate) fn closes(fence: Fence, line: &str) -> bool {
    let t = line.trim();
    match fence {
        Fence::Run(c, n) => run(t, c).is_some_and(|(m, rest)| m >= n && rest.trim().is_empty()),
        Fence::Tag(tag) => t
            .strip_prefix("</")
            .and_then(|r| r.strip_suffix('>'))
            .is_some_and(|name| name.trim().eq_ignore_ascii_case(tag)),
    }
}

/// True for a line that only closes a tag fence (`</source>`).
fn is_closing_tag(line: &str) -> bool {
    TAGS.iter().any(|tag| closes(Fence::Tag(tag), line))
}

/// True for any fence line: an opening (Markdown or tag) or a closing tag.
pub(crate) fn is_any_fence(line: &str) -> bool {
    opening(line).is_some() || is_closing_tag(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backtick_runs_close_only_with_as_many() {
        let four = opening("````markdown").unwrap();
        assert_eq!((four.fence, four.info), (Fence::Run('`', 4), "markdown"));
        assert!(!closes(four.fence, "```"));
        assert!(closes(four.fence, "````"));
        assert!(closes(four.fence, "  `````  "));
        assert!(!closes(four.fence, "````python"));
        let tilde = opening("~~~").unwrap();
        assert!(!closes(tilde.fence, "```"));
        assert!(closes(tilde.fence, "~~~~"));
        assert!(opening("```x```").is_none());
        assert!(opening("``").is_none());
    }

    #[test]
    fn tag_fences() {
        let o = opening("<source>python").unwrap();
        assert_eq!((o.fence, o.info), (Fence::Tag("source"), "python"));
        assert!(closes(o.fence, "</source>"));
        assert!(!closes(o.fence, "</code>"));
        assert!(opening("<code>x</code>").is_none());
        assert!(opening("<sourcecode>").is_some_and(|o| o.fence == Fence::Tag("sourcecode")));
        assert!(opening("<codex>").is_none());
        assert!(is_any_fence("</pre>") && !is_any_fence("</div>"));
    }
}
