//! Grammar property for two habits of replies written as Roo and Cline
//! tool calls (issue #19, `docs/formats.md`):
//!
//! - **XML-escaped markers** (`&lt;&lt;&lt;&lt;&lt;&lt;&lt; SEARCH`), with
//!   the text escaped too or written as it is, on files holding `<`, `&`,
//!   quotes and character references of their own (`&lt;` in HTML): the
//!   result is the intended file or a refusal, never another file; and
//!   where nothing in the file can be mistaken for the escaping, the
//!   intended file.
//! - **The gutter residue** (`| ` left on the first SEARCH line of a Roo
//!   block under `:start_line:`, copied into REPLACE where that line is
//!   kept), on files of plain lines: the intended file.

use crate::grammar::{apply, distinct, gives, hunks};
use crate::support::diffs::{join, splice_edits};
use proptest::prelude::*;

/// Lines a file holding markup or code may have: characters XML escapes,
/// character references as the file's own text, or plain text.
fn xml_line() -> impl Strategy<Value = String> + Clone {
    prop_oneof![
        2 => prop::sample::select(vec![
            "if (a < b) {",
            "x = y > 0 && z;",
            "<p>1 &lt; 2</p>",
            "say(\"it's\");",
            "a &amp;&amp; b",
            "q = '&quot;';",
            "<br/>",
        ])
        .prop_map(str::to_string),
        3 => ("[ ]{0,4}", "[a-z][a-z0-9_(){}=;:,.<>&\"' ]{6,24}")
            .prop_map(|(i, s)| format!("{i}{}", s.trim_end())),
    ]
}

/// Plain lines (no marker look-alike, no `|`, no character to escape).
fn plain_line() -> impl Strategy<Value = String> + Clone {
    ("[ ]{0,4}", "[a-z][a-z0-9_(){}=;:,. ]{6,24}").prop_map(|(i, s)| format!("{i}{}", s.trim_end()))
}

/// A file of distinct lines of `line`, and an edit of it.
fn file_and_edit<S>(line: S) -> impl Strategy<Value = (String, String)>
where
    S: Strategy<Value = String> + Clone + 'static,
{
    prop::collection::vec(line.clone(), 1..20)
        .prop_map(distinct)
        .prop_flat_map(move |lines| {
            let len = lines.len();
            let ops = prop::collection::vec(
                (
                    0..=len,
                    0usize..3,
                    prop::collection::vec(line.clone(), 0..3),
                ),
                1..3,
            );
            ops.prop_map(move |ops| {
                let new = splice_edits(&lines, ops);
                (join(&lines), join(&distinct(new)))
            })
        })
}

/// `text` escaped as XML escapes it (`&` first).
fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// SEARCH and REPLACE of a hunk body (`' '`, `-`, `+` lines).
fn sections(body: &[String]) -> (Vec<&str>, Vec<&str>) {
    let side = |skip: char| -> Vec<&str> {
        body.iter()
            .filter(|l| !l.starts_with(skip) && !l.starts_with('\\'))
            .map(|l| &l[1..])
            .collect()
    };
    (side('+'), side('-'))
}

/// A tool call for `f.txt`: Cline's `<replace_in_file>` or Roo's
/// `<apply_diff>`, around `blocks`.
fn call(cline: bool, blocks: &str) -> String {
    let name = if cline {
        "replace_in_file"
    } else {
        "apply_diff"
    };
    format!("<{name}>\n<path>f.txt</path>\n<diff>\n{blocks}</diff>\n</{name}>\n")
}

/// Every hunk's SEARCH holds a line that is not blank.
fn searches_hold_text(hs: &[(String, Vec<String>)]) -> bool {
    hs.iter().all(|(_, b)| {
        b.iter()
            .any(|l| !l.starts_with('+') && !l[1..].trim().is_empty())
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn xml_escaped_markers(
        (old, new) in file_and_edit(xml_line()),
        escape_text in any::<bool>(),
        cline in any::<bool>(),
    ) {
        prop_assume!(old != new);
        let hs = hunks(&old, &new, 3);
        prop_assume!(searches_hold_text(&hs));
        let text = |l: &str| if escape_text { xml_escape(l) } else { l.to_string() };
        let mut blocks = String::new();
        for (_, body) in &hs {
            let (search, replace) = sections(body);
            blocks.push_str("&lt;&lt;&lt;&lt;&lt;&lt;&lt; SEARCH\n");
            search.iter().for_each(|l| blocks.push_str(&format!("{}\n", text(l))));
            blocks.push_str("=======\n");
            replace.iter().for_each(|l| blocks.push_str(&format!("{}\n", text(l))));
            blocks.push_str("&gt;&gt;&gt;&gt;&gt;&gt;&gt; REPLACE\n\n");
        }
        let patch = call(cline, &blocks);
        // Never another file.
        if let Ok(got) = apply(&patch, &old) {
            prop_assert_eq!(got, new.clone(), "patch:\n{}", patch);
        }
        // No `&` in the blocks: one reading only. Escaped text whose file
        // holds no `&` while some SEARCH line held a character to escape:
        // as written it quotes references the file does not hold.
        let one_reading = !blocks.replace("&lt;&lt;&lt;&lt;&lt;&lt;&lt; SEARCH", "")
            .replace("&gt;&gt;&gt;&gt;&gt;&gt;&gt; REPLACE", "")
            .contains('&');
        let search_escaped = hs.iter().any(|(_, b)| {
            sections(b).0.iter().any(|l| l.contains(['<', '>', '"', '\'', '&']))
        });
        if one_reading || (escape_text && !old.contains('&') && search_escaped) {
            gives(&patch, &old, &new)?;
        }
    }

    #[test]
    fn roo_gutter_residue_on_the_first_search_line(
        (old, new) in file_and_edit(plain_line()),
        pad in "[ ]{0,3}",
    ) {
        prop_assume!(old != new);
        let hs = hunks(&old, &new, 3);
        prop_assume!(searches_hold_text(&hs));
        let mut blocks = String::new();
        for (header, body) in &hs {
            let (search, replace) = sections(body);
            // `@@ -N,M +…`: the block's first SEARCH line is line N.
            let start: usize = header[4..]
                .split([',', ' '])
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or(1);
            blocks.push_str(&format!("<<<<<<< SEARCH\n:start_line:{start}\n-------\n"));
            let first = search.first().copied().unwrap_or_default();
            let residue = |l: &str| format!("{pad}| {l}");
            for (k, l) in search.iter().enumerate() {
                let l = if k == 0 && !l.trim().is_empty() { residue(l) } else { l.to_string() };
                blocks.push_str(&format!("{l}\n"));
            }
            blocks.push_str("=======\n");
            for l in &replace {
                // The first line kept unchanged is copied with its residue.
                let l = if *l == first && !l.trim().is_empty() { residue(l) } else { l.to_string() };
                blocks.push_str(&format!("{l}\n"));
            }
            blocks.push_str(">>>>>>> REPLACE\n\n");
        }
        let patch = call(false, &blocks);
        gives(&patch, &old, &new)?;
    }
}
