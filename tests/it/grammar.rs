//! Grammar property (issues #15, #19): in every notation (Aider's and
//! Cline's SEARCH/REPLACE markers, Aider's retired `<<<<<<< ORIGINAL` /
//! `>>>>>>> UPDATED`, in four-backtick and `<source>` fences and in
//! Cline's `<replace_in_file>` call, Codex sections with and without the envelope), an edit of content whose
//! lines look like the markers of any notation (`-------`, `=======`,
//! `*** End Patch`, `@@`, `--- a/x`, `3 | x`, `-- `, `...`) applies exactly as
//! intended — or, where a notation cannot carry such a line, is refused,
//! never mis-applied. A block that lost its `<<<<<<< SEARCH` line is read
//! from the fence it fills, or refused.

use crate::support::diffs::{join, splice_edits};
use git_fuzzy_apply::{ApplyOptions, apply_to_text};
use proptest::prelude::*;
use similar::TextDiff;

/// Content lines that look like markers of one notation or another.
const LOOK_ALIKES: &[&str] = &[
    "-------",
    "=======",
    "==========",
    "    ========",
    "*** End Patch",
    "*** Update File: other.md",
    "*** End of File",
    "@@",
    "@@ -1,2 +1,2 @@",
    "--- a/x",
    "+++ b/x",
    "-- ",
    "-- x",
    "++ y",
    "- a/f.txt",
    "+ b/f.txt",
    "3 | x",
    "4 | y",
    "1 | 2 | 3",
    "<<<<<<< SEARCH",
    ">>>>>>> REPLACE",
    ":start_line:5",
    ":end_line:9",
    "\\ No newline at end of file",
    "diff --git a/x b/x",
    "```",
    "````",
    "<source>",
    "</source>",
    "------- SEARCH",
    "+++++++ REPLACE",
    "<<<<<<< ORIGINAL",
    ">>>>>>> UPDATED",
    "+++++++",
    "...",
    "// ... existing code ...",
    "| x",
    "&lt;&lt;&lt;&lt;&lt;&lt;&lt; SEARCH",
    "a &lt; b",
];

/// A line: a look-alike, or ordinary distinct text.
fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => (0..LOOK_ALIKES.len()).prop_map(|i| LOOK_ALIKES[i].to_string()),
        4 => ("[ ]{0,4}", "[a-z][a-z0-9_(){}=;:,. ]{6,24}")
            .prop_map(|(i, s)| format!("{i}{}", s.trim_end())),
    ]
}

/// Keeps the first of equal lines (compared trimmed and lowercased), so
/// that an intended place exists and is unique: a repeated look-alike would
/// make the edit ambiguous, which is not what is tested here.
pub(crate) fn distinct(lines: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    lines
        .into_iter()
        .filter(|l| seen.insert(l.trim().to_lowercase()))
        .collect()
}

fn file() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(line(), 1..24).prop_map(distinct)
}

/// Random replace/insert/delete operations on a copy of `lines`.
fn edited(lines: Vec<String>) -> impl Strategy<Value = (Vec<String>, Vec<String>)> {
    let len = lines.len();
    let ops = prop::collection::vec(
        (0..=len, 0usize..3, prop::collection::vec(line(), 0..3)),
        1..3,
    );
    ops.prop_map(move |ops| {
        let new = splice_edits(&lines, ops);
        (lines.clone(), distinct(new))
    })
}

/// The hunks of a diff with `radius` context lines: header and body lines.
pub(crate) fn hunks(old: &str, new: &str, radius: usize) -> Vec<(String, Vec<String>)> {
    let diff = TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(radius)
        .header("a/f.txt", "b/f.txt")
        .to_string();
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for l in diff.lines().skip(2) {
        if l.starts_with("@@") {
            out.push((l.to_string(), Vec::new()));
        } else if let Some((_, body)) = out.last_mut() {
            body.push(l.to_string());
        }
    }
    out
}

pub(crate) fn apply(patch: &str, old: &str) -> Result<String, String> {
    apply_to_text(patch.as_bytes(), old.as_bytes(), &ApplyOptions::default())
        .map(|b| String::from_utf8(b).expect("UTF-8 result"))
        .map_err(|e| e.to_string())
}

/// Checks that `patch` applied to `old` gives `new`.
pub(crate) fn gives(patch: &str, old: &str, new: &str) -> Result<(), TestCaseError> {
    match apply(patch, old) {
        Ok(got) => prop_assert_eq!(got, new, "patch:\n{}", patch),
        Err(e) => prop_assert!(false, "refused: {e}\n--- old\n{old}--- patch\n{patch}"),
    }
    Ok(())
}

/// Checks that `patch` is refused.
fn refused(patch: &str, old: &str) -> Result<(), TestCaseError> {
    let got = apply(patch, old);
    prop_assert!(got.is_err(), "applied: {:?}\n--- patch\n{}", got, patch);
    Ok(())
}

/// A numberless hunk cannot hold a removed `-- a` line directly followed by
/// an added `++ b` line after its first line: `--- a`/`+++ b` is a file
/// header there.
fn numberless_cannot_carry(bodies: &[Vec<String>]) -> bool {
    bodies.iter().any(|b| {
        b.windows(2)
            .skip(1)
            .any(|w| w[0].starts_with("--- ") && w[1].starts_with("+++ "))
            || b.first().is_some_and(|f| f.starts_with("--- "))
                && b.get(1).is_some_and(|s| s.starts_with("+++ "))
                && b.get(2).is_some_and(|s| s.starts_with("@@"))
    })
}

/// A SEARCH/REPLACE section line the grammar would read as a marker, given
/// whether it is the first line of the SEARCH section.
fn is_marker(line: &str, first_search: bool, in_replace: bool) -> bool {
    let t = line.trim_end();
    let run = |c: char| {
        let n = t.len() - t.trim_start_matches(c).len();
        (5..=9).contains(&n)
    };
    let equals = run('=') && t.chars().all(|c| c == '=');
    let dashes = run('-') && t.chars().all(|c| c == '-');
    let search =
        (run('<') || run('-')) && t.ends_with("SEARCH") || run('<') && t.ends_with("ORIGINAL");
    let replace =
        (run('>') || run('+')) && t.ends_with("REPLACE") || run('>') && t.ends_with("UPDATED");
    let line_marker = t.starts_with(":start_line:") || t.starts_with(":end_line:");
    equals
        || search
        || replace
        || (first_search && (dashes || line_marker))
        || (in_replace && line_marker)
}

/// How SEARCH/REPLACE blocks are written: Aider's markers (`<<<<<<<`,
/// `>>>>>>>`), Cline's (`-------`, `+++++++`) or Aider's retired
/// `<<<<<<< ORIGINAL` / `>>>>>>> UPDATED` (`markers` 0, 1, 2), and the fence around
/// them, after a path line: none, four backticks, or Aider's `<source>`;
/// or Cline's `<replace_in_file>` call, its `<path>` naming the file
/// (`fence` 3). The path is `f.txt`, or a bare name (`run`, no extension:
/// a file the one-text target always has).
#[derive(Debug, Clone, Copy)]
struct Style {
    markers: usize,
    fence: usize,
    bare: bool,
}

impl Style {
    fn open(&self) -> &'static str {
        match self.markers {
            1 => "------- SEARCH\n",
            2 => "<<<<<<< ORIGINAL\n",
            _ => "<<<<<<< SEARCH\n",
        }
    }
    fn close(&self) -> &'static str {
        match self.markers {
            1 => "+++++++ REPLACE\n",
            2 => ">>>>>>> UPDATED\n",
            _ => ">>>>>>> REPLACE\n",
        }
    }
    fn fences(&self) -> (&'static str, &'static str) {
        match self.fence {
            1 => ("````text\n", "````\n"),
            2 => ("<source>text\n", "</source>\n"),
            _ => ("", ""),
        }
    }
    /// What stands before the blocks and after them, for the file `path`.
    fn frame(&self, path: &str) -> (String, String) {
        if self.fence == 3 {
            let open = format!("<replace_in_file>\n<path>{path}</path>\n<diff>\n");
            (open, "</diff>\n</replace_in_file>\n".to_string())
        } else {
            let (open, close) = self.fences();
            (format!("{path}\n{open}"), close.to_string())
        }
    }
}

fn style() -> impl Strategy<Value = Style> {
    (0usize..3, 0usize..4, any::<bool>()).prop_map(|(markers, fence, bare)| Style {
        markers,
        fence,
        bare,
    })
}

/// Renders SEARCH/REPLACE blocks for the hunks; marker-like lines are
/// escaped with `\` when `escape`, as Aider and Roo write them.
fn search_replace(hunks: &[(String, Vec<String>)], escape: bool, style: Style) -> (String, bool) {
    let path = if style.bare { "run" } else { "f.txt" };
    let (mut patch, fence_close) = style.frame(path);
    let mut needs_escape = false;
    for (_, body) in hunks {
        let search: Vec<&str> = body
            .iter()
            .filter(|l| !l.starts_with('+') && !l.starts_with('\\'))
            .map(|l| &l[1..])
            .collect();
        let replace: Vec<&str> = body
            .iter()
            .filter(|l| !l.starts_with('-') && !l.starts_with('\\'))
            .map(|l| &l[1..])
            .collect();
        patch.push_str(style.open());
        for (k, l) in search.iter().enumerate() {
            let marker = is_marker(l, k == 0, false);
            needs_escape |= marker;
            patch.push_str(if marker && escape { "\\" } else { "" });
            patch.push_str(l);
            patch.push('\n');
        }
        patch.push_str("=======\n");
        for l in &replace {
            let marker = is_marker(l, false, true);
            needs_escape |= marker;
            patch.push_str(if marker && escape { "\\" } else { "" });
            patch.push_str(l);
            patch.push('\n');
        }
        patch.push_str(style.close());
        patch.push('\n');
    }
    patch.push_str(&fence_close);
    (patch, needs_escape)
}

/// True when a block's REPLACE holds an elision line (`...`, `// ...
/// existing code ...`) its SEARCH does not, and the block removes lines,
/// or (for a comment elision) the file does not hold that line: such a
/// block is refused (docs/formats.md, elision rule 4).
fn replace_only_elision(hunks: &[(String, Vec<String>)], old: &str) -> bool {
    let elision = |l: &str| {
        let t = l.trim();
        t == "..." || t == "// ... existing code ..."
    };
    hunks.iter().any(|(_, body)| {
        let side = |skip: char| {
            body.iter()
                .filter(move |l| !l.starts_with(skip) && !l.starts_with('\\'))
        };
        let search_has = side('+').any(|l| elision(&l[1..]));
        let removes = body.iter().any(|l| l.starts_with('-'));
        !search_has
            && side('-').any(|l| {
                let t = &l[1..];
                elision(t)
                    && (removes
                        || (t.trim() != "..." && !old.lines().any(|o| o.trim() == t.trim())))
            })
    })
}

/// True when a block opens the way Roo writes its markers: a first line of
/// dashes, or `:start_line:` (and `:end_line:`) lines followed by dashes.
fn roo_form(patch: &str, style: Style) -> bool {
    patch.split(style.open()).skip(1).any(|block| {
        let mut lines = block
            .lines()
            .skip_while(|l| l.starts_with(":start_line:") || l.starts_with(":end_line:"));
        lines.next().is_some_and(|l| {
            let t = l.trim_end();
            (5..=9).contains(&t.len()) && t.chars().all(|c| c == '-')
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn unified_with_counts((old, new) in file().prop_flat_map(edited), radius in 1usize..=3) {
        let (old, new) = (join(&old), join(&new));
        prop_assume!(old != new);
        let mut patch = String::from("--- a/f.txt\n+++ b/f.txt\n");
        for (header, body) in hunks(&old, &new, radius) {
            patch.push_str(&header);
            patch.push('\n');
            for l in body {
                patch.push_str(&l);
                patch.push('\n');
            }
        }
        gives(&patch, &old, &new)?;
    }

    #[test]
    fn numberless((old, new) in file().prop_flat_map(edited), short in any::<bool>()) {
        let (old, new) = (join(&old), join(&new));
        prop_assume!(old != new);
        let hs = hunks(&old, &new, 3);
        // The file header as written, or with one `-`/`+` lost.
        let mut patch = String::from(if short {
            "-- a/f.txt\n++ b/f.txt\n"
        } else {
            "--- a/f.txt\n+++ b/f.txt\n"
        });
        for (_, body) in &hs {
            patch.push_str("@@\n");
            for l in body {
                patch.push_str(l);
                patch.push('\n');
            }
        }
        let bodies: Vec<Vec<String>> = hs.into_iter().map(|(_, b)| b).collect();
        if numberless_cannot_carry(&bodies) {
            refused(&patch, &old)?;
        } else {
            gives(&patch, &old, &new)?;
        }
    }

    #[test]
    fn codex_envelope((old, new) in file().prop_flat_map(edited)) {
        let (old, new) = (join(&old), join(&new));
        prop_assume!(old != new);
        let mut patch = String::from("*** Begin Patch\n*** Update File: f.txt\n");
        for (_, body) in hunks(&old, &new, 3) {
            patch.push_str("@@\n");
            for l in body.iter().filter(|l| !l.starts_with('\\')) {
                patch.push_str(l);
                patch.push('\n');
            }
        }
        patch.push_str("*** End Patch\n");
        gives(&patch, &old, &new)?;
    }

    #[test]
    fn codex_sections_without_envelope((old, new) in file().prop_flat_map(edited)) {
        let (old, new) = (join(&old), join(&new));
        prop_assume!(old != new);
        let hs = hunks(&old, &new, 3);
        let mut patch = String::from("I changed f.txt:\n\n*** Update File: f.txt\n");
        for (_, body) in &hs {
            patch.push_str("@@\n");
            for l in body.iter().filter(|l| !l.starts_with('\\')) {
                patch.push_str(l);
                patch.push('\n');
            }
        }
        patch.push_str("\nDone.\n");
        let bodies: Vec<Vec<String>> = hs.into_iter().map(|(_, b)| b).collect();
        // Outside an envelope a `--- `/`+++ ` pair is a diff's file header,
        // and a `+ x`/`- x` line may be a Markdown list after the section
        // (docs/formats.md): refusing them is allowed, never another result.
        let list_like = bodies
            .iter()
            .flatten()
            .any(|l| l.starts_with("+ ") || l.starts_with("- "));
        if numberless_cannot_carry(&bodies) || list_like {
            if let Ok(got) = apply(&patch, &old) {
                prop_assert_eq!(got, new, "patch:\n{}", patch);
            }
        } else {
            gives(&patch, &old, &new)?;
        }
    }

    #[test]
    fn search_replace_blocks((old, new) in file().prop_flat_map(edited), style in style()) {
        let (old, new) = (join(&old), join(&new));
        prop_assume!(old != new);
        let hs = hunks(&old, &new, 3);
        // A SEARCH of blank lines only would append: not this property.
        prop_assume!(hs.iter().all(|(_, b)| b.iter().any(|l| !l.starts_with('+') && !l[1..].trim().is_empty())));
        let (escaped, needs_escape) = search_replace(&hs, true, style);
        if replace_only_elision(&hs, &old) {
            // An elision only REPLACE holds is refused, escaped or not.
            refused(&escaped, &old)?;
            return Ok(());
        }
        gives(&escaped, &old, &new)?;
        if needs_escape {
            let (plain, _) = search_replace(&hs, false, style);
            // Unescaped, a divider or block marker at the block's edge, or
            // a line marker in REPLACE, cannot be carried: refused. A first
            // SEARCH line of dashes (or `:start_line:` then dashes) is Roo's
            // marker by its grammar: not asserted here (docs/formats.md).
            let edge = plain.lines().filter(|l| is_marker(l, false, false)).count();
            let in_replace = plain.split("=======\n").skip(1).any(|r| {
                r.lines()
                    .take_while(|l| {
                        !(l.starts_with(">>>>>>> REPLACE")
                            || l.starts_with("+++++++ REPLACE")
                            || l.starts_with(">>>>>>> UPDATED"))
                    })
                    .any(|l| l.starts_with(":start_line:") || l.starts_with(":end_line:"))
            });
            if edge > hs.len() * 3 || in_replace {
                // Refused, or (when the markers happen to read right) the
                // intended bytes: never anything else.
                if let Ok(got) = apply(&plain, &old) {
                    prop_assert_eq!(got, new, "patch:\n{}", plain);
                }
            } else if !roo_form(&plain, style) {
                gives(&plain, &old, &new)?;
            }
        }
    }

    #[test]
    fn search_replace_block_without_its_opener(
        (old, new) in file().prop_flat_map(edited),
        style in style(),
        fence in 1usize..3,
    ) {
        let (old, new) = (join(&old), join(&new));
        prop_assume!(old != new);
        let hs = hunks(&old, &new, 3);
        prop_assume!(hs.len() == 1);
        prop_assume!(hs.iter().all(|(_, b)| b.iter().any(|l| !l.starts_with('+') && !l[1..].trim().is_empty())));
        prop_assume!(!replace_only_elision(&hs, &old));
        // The block alone in its fence, its `<<<<<<< SEARCH` line lost.
        let style = Style { fence, bare: false, ..style };
        let (escaped, _) = search_replace(&hs, true, style);
        let patch = escaped.replacen(style.open(), "", 1);
        let search_is_plain = hs[0].1.iter().filter(|l| !l.starts_with('+')).all(|l| {
            !LOOK_ALIKES.iter().any(|a| a.trim() == l[1..].trim())
        });
        if search_is_plain {
            gives(&patch, &old, &new)?;
        } else if let Ok(got) = apply(&patch, &old) {
            // A look-alike in SEARCH may refuse the reading, never change it.
            prop_assert_eq!(got, new, "patch:\n{}", patch);
        }
    }
}
