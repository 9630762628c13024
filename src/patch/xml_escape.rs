//! SEARCH/REPLACE blocks written XML-escaped inside a Roo or Cline tool
//! call: a model writing the call as XML may escape its `<diff>`, markers
//! (`&lt;&lt;&lt;&lt;&lt;&lt;&lt; SEARCH`, `&gt;&gt;&gt;&gt;&gt;&gt;&gt; REPLACE`)
//! and content alike (Gemini does; Roo-Code unescaped every `<diff>` for
//! such models until files holding `&amp;` were damaged by it, Roo-Code
//! issues #4077 and #5633). The markers are read as markers; the content
//! has two readings, as written and decoded, which the file decides
//! between (`plan/escaped.rs`, `docs/formats.md`).

use super::cleanup::Src;
use super::search_replace::{is_replace, is_search};

/// The character references read: the five XML predefines and the forms
/// HTML escapers write for the apostrophe.
const REFERENCES: [(&str, char); 7] = [
    ("&lt;", '<'),
    ("&gt;", '>'),
    ("&amp;", '&'),
    ("&quot;", '"'),
    ("&apos;", '\''),
    ("&#39;", '\''),
    ("&#x27;", '\''),
];

/// `text` with its character references decoded in one pass from the left
/// (`&amp;lt;` is `&lt;`); `None` when it holds none.
pub(crate) fn decode(text: &str) -> Option<String> {
    if !text.contains('&') {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut any = false;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        match REFERENCES.iter().find(|(r, _)| tail.starts_with(r)) {
            Some((r, c)) => {
                out.push(*c);
                rest = &tail[r.len()..];
                any = true;
            }
            None => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    any.then_some(out)
}

/// The references `text` holds, each once, in the order of [`REFERENCES`].
pub(crate) fn references_in(text: &str) -> impl Iterator<Item = &'static str> + '_ {
    REFERENCES
        .iter()
        .map(|(r, _)| *r)
        .filter(move |r| text.contains(r))
}

/// The marker an XML-escaped line stands for (`&lt;&lt;&lt;&lt;&lt;&lt;&lt; SEARCH`
/// is `<<<<<<< SEARCH`), its indentation kept; `None` for any other line.
fn escaped_marker(line: &str) -> Option<String> {
    if !(line.contains("&lt;") || line.contains("&gt;")) {
        return None;
    }
    decode(line).filter(|d| is_search(d) || is_replace(d))
}

/// The two readings of a `<diff>`'s lines when its first block opens with
/// an XML-escaped `&lt;&lt;&lt;&lt;&lt;&lt;&lt; SEARCH`: as written (its
/// escaped markers read as markers, every other line as it stands) and
/// decoded (every line). `None` when its first block opens unescaped (or
/// it has none): escaped markers are then content, as before.
pub(crate) fn readings(sub: &Src) -> Option<(Src<'static>, Src<'static>)> {
    let first = sub.lines.iter().find_map(|l| {
        if is_search(l) {
            Some(false)
        } else {
            escaped_marker(l).filter(|d| is_search(d)).map(|_| true)
        }
    });
    if first != Some(true) {
        return None;
    }
    let mut written = Src::default();
    let mut decoded = Src::default();
    for (k, l) in sub.lines.iter().enumerate() {
        let marker = escaped_marker(l);
        let plain = decode(l);
        written
            .lines
            .push(marker.unwrap_or_else(|| l.to_string()).into());
        decoded
            .lines
            .push(plain.unwrap_or_else(|| l.to_string()).into());
        written.map.push(sub.orig(k));
        decoded.map.push(sub.orig(k));
    }
    Some((written, decoded))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_in_one_pass() {
        assert_eq!(
            decode("a &lt; b &amp;&amp; c").as_deref(),
            Some("a < b && c")
        );
        assert_eq!(decode("&amp;lt;p&amp;gt;").as_deref(), Some("&lt;p&gt;"));
        assert_eq!(
            decode("it&#39;s &quot;x&quot; &apos;y&#x27;").as_deref(),
            Some("it's \"x\" 'y'")
        );
        assert_eq!(decode("a & b &nbsp; &#60;"), None);
        assert_eq!(decode("plain"), None);
        let refs: Vec<&str> = references_in("&gt; &lt; &lt;").collect();
        assert_eq!(refs, ["&lt;", "&gt;"]);
    }

    #[test]
    fn escaped_markers_only_when_the_first_block_opens_escaped() {
        let src = |t: &str| Src::from_text(t, 1).into_owned();
        let text = "&lt;&lt;&lt;&lt;&lt;&lt;&lt; SEARCH\na &lt; b\n=======\na &lt;= b\n&gt;&gt;&gt;&gt;&gt;&gt;&gt; REPLACE\n";
        let (written, decoded) = readings(&src(text)).unwrap();
        let lines = |s: &Src| s.lines.iter().map(|l| l.to_string()).collect::<Vec<_>>();
        assert_eq!(
            lines(&written),
            [
                "<<<<<<< SEARCH",
                "a &lt; b",
                "=======",
                "a &lt;= b",
                ">>>>>>> REPLACE"
            ]
        );
        assert_eq!(
            lines(&decoded),
            [
                "<<<<<<< SEARCH",
                "a < b",
                "=======",
                "a <= b",
                ">>>>>>> REPLACE"
            ]
        );
        // A diff opening with `<<<<<<< SEARCH` keeps escaped markers as content.
        let plain =
            "<<<<<<< SEARCH\n&lt;&lt;&lt;&lt;&lt;&lt;&lt; SEARCH\n=======\nx\n>>>>>>> REPLACE\n";
        assert!(readings(&src(plain)).is_none());
    }
}
