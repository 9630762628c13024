//! The fuzz targets' properties (`fuzz/fuzz_targets/`) as a fast proptest
//! suite: no panic on random bytes as patch or as file, and the round trip
//! diff → `apply_to_text` → new text whenever the old text's lines are all
//! distinct, with lines drawn from an alphabet rich in patch syntax.

use git_fuzzy_apply::model::PatchFormat;
use git_fuzzy_apply::{ApplyOptions, MatchOptions, ParseOptions, Tier, apply_to_text, parse_patch};
use proptest::prelude::*;
use similar::TextDiff;
use std::collections::HashSet;

/// Every `--format` choice, `None` being auto-detection.
const FORMATS: [Option<PatchFormat>; 5] = [
    None,
    Some(PatchFormat::UnifiedDiff),
    Some(PatchFormat::NumberlessDiff),
    Some(PatchFormat::CodexEnvelope),
    Some(PatchFormat::SearchReplace),
];

/// Fragments of every notation, glued together by the soup strategies.
const PIECES: &[&str] = &[
    "--- a/t.txt\n",
    "+++ b/t.txt\n",
    "@@ -1,2 +1,2 @@\n",
    "@@ -0,0 +1 @@\n",
    "@@\n",
    "@@ fn a\n",
    " a\n",
    " }\n",
    "-a\n",
    "-b\n",
    "+c\n",
    "\n",
    "\\ No newline at end of file\n",
    "*** Begin Patch\n",
    "*** Update File: t.txt\n",
    "*** Add File: t.txt\n",
    "*** Delete File: t.txt\n",
    "*** End of File\n",
    "*** End Patch\n",
    "<<<<<<< SEARCH\n",
    "=======\n",
    ">>>>>>> REPLACE\n",
    ":start_line:2\n",
    "-------\n",
    "```\n",
    "t.txt\n",
    "1 | a\n",
    "2 | b\n",
    "<apply_diff><path>t.txt</path><diff><content><![CDATA[\n",
    "]]></content></diff></apply_diff>\n",
    "<replace_in_file>\n<path>t.txt</path>\n<diff>\n",
    "</diff>\n</replace_in_file>\n",
    "\r\n",
    "é",
    "\u{feff}",
    "\t",
    "\0",
];

/// Lines of a target file, drawn from a small alphabet so they repeat.
const FILE_LINES: &[&str] = &["a", "b", "c", "}", "", "  a", "A.", "fn a() {", "\tb"];

/// Text glued from [`PIECES`].
fn soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PIECES), 0..30).prop_map(|v| v.concat())
}

/// A small file with repeated lines.
fn small_file() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(FILE_LINES), 0..20)
        .prop_map(|v| v.iter().map(|l| format!("{l}\n")).collect())
}

/// Options chosen by one byte, as in the `apply` fuzz target.
fn options(byte: u8) -> ApplyOptions {
    ApplyOptions::default()
        .with_parse(
            ParseOptions::default()
                .with_format(FORMATS[usize::from(byte) % FORMATS.len()])
                .with_target("t.txt"),
        )
        .with_matching(
            MatchOptions::default()
                .with_similarity_threshold(if byte >= 128 { 0.5 } else { 0.9 })
                .with_max_tier(
                    [
                        Tier::Similarity,
                        Tier::Exact,
                        Tier::Resilient,
                        Tier::Fuzzy,
                        Tier::Structural,
                    ][usize::from(byte / 5) % 5],
                ),
        )
}

/// A line that looks like patch syntax as often as like code, so diffs of
/// such lines exercise the parser's ambiguities. Never holds `\r` or `\n`.
fn tricky_line() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z][a-z0-9 ]{0,12}",
        1 => "[-+ @*<=>\\\\`#|:0-9a-z]{0,10}",
        1 => prop::sample::select(&[
            "-- sql comment", "++ x", "--- a/t.txt", "+++ b/t.txt", "@@ -1 +1 @@", "@@",
            "*** Begin Patch", "*** End Patch", "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE",
            "```", "\\ No newline at end of file", "", "   ", "\t", "# heading", "é ü ∑",
        ][..]).prop_map(str::to_string),
    ]
}

/// Joins lines with `\n`, with a final newline unless `missing_final`.
fn join(lines: &[String], missing_final: bool) -> String {
    let mut out = lines.join("\n");
    if !lines.is_empty() && !missing_final {
        out.push('\n');
    }
    out
}

/// An old text of distinct lines and an edited copy.
fn text_pair() -> impl Strategy<Value = (String, String)> {
    (
        prop::collection::vec(tricky_line(), 0..25),
        prop::collection::vec(
            (
                0usize..30,
                0usize..3,
                prop::collection::vec(tricky_line(), 0..3),
            ),
            1..4,
        ),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(lines, ops, old_missing, new_missing)| {
            let mut seen = HashSet::new();
            let old: Vec<String> = lines
                .into_iter()
                .filter(|l| seen.insert(l.clone()))
                .collect();
            let mut new = old.clone();
            for (at, remove, insert) in ops {
                let at = at.min(new.len());
                let end = (at + remove).min(new.len());
                new.splice(at..end, insert);
            }
            (join(&old, old_missing), join(&new, new_missing))
        })
}

/// `similar`'s unified diff of the two texts, as `f.txt`.
fn unified(old: &str, new: &str) -> String {
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header("a/f.txt", "b/f.txt")
        .to_string()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Random bytes as a patch: parsed or refused, never a panic, in every format.
    #[test]
    fn parse_never_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        for format in FORMATS {
            if let Ok(p) = parse_patch(&bytes, &ParseOptions::default().with_format(format)) {
                prop_assert!(!p.files.is_empty());
            }
        }
    }

    /// Syntax soup as a patch: parsed or refused, never a panic.
    #[test]
    fn parse_never_panics_on_soup(text in soup()) {
        for format in FORMATS {
            let _ = parse_patch(text.as_bytes(), &ParseOptions::default().with_format(format).with_strip(1).with_target("t.txt"));
        }
    }

    /// Random bytes as the file, syntax soup as the patch (and the reverse):
    /// applied or refused, never a panic.
    #[test]
    fn apply_never_panics(patch in soup(), file in prop::collection::vec(any::<u8>(), 0..300), opt in any::<u8>()) {
        let _ = apply_to_text(patch.as_bytes(), &file, &options(opt));
        let _ = apply_to_text(&file, patch.as_bytes(), &options(opt));
    }

    /// Syntax soup against a file of repeated lines: ambiguity everywhere,
    /// never a panic.
    #[test]
    fn apply_never_panics_on_repetitive_files(patch in soup(), file in small_file(), opt in any::<u8>()) {
        let _ = apply_to_text(patch.as_bytes(), file.as_bytes(), &options(opt));
    }

    /// The round trip: a unified diff of two texts (and its numberless form)
    /// applied to the old text gives exactly the new one, when the old
    /// text's lines are all distinct.
    #[test]
    fn diff_round_trips((old, new) in text_pair()) {
        if old == new {
            return Ok(());
        }
        let diff = unified(&old, &new);
        let numberless: String = diff
            .split_inclusive('\n')
            .map(|l| if l.starts_with("@@ ") { "@@\n" } else { l })
            .collect();
        // Without counts, a removed `-- x` line followed by an added `++ y`
        // line reads as the next file's headers: such a patch must be
        // refused, never applied otherwise (docs/formats.md).
        let lines: Vec<&str> = numberless.lines().skip(2).collect();
        let header_pair = lines
            .windows(2)
            .any(|w| w[0].starts_with("---") && w[1].starts_with("+++"));
        for patch in [&diff, &numberless] {
            let result = apply_to_text(patch.as_bytes(), old.as_bytes(), &ApplyOptions::default());
            if header_pair && patch == &numberless {
                // Refused, or read right after all: never other bytes.
                if let Ok(out) = result {
                    prop_assert_eq!(String::from_utf8_lossy(&out), new.as_str(), "patch:\n{}", patch);
                }
                continue;
            }
            let out = result
                .map_err(|e| TestCaseError::fail(format!("{e}\n--- old\n{old:?}\n--- patch\n{patch}")))?;
            prop_assert_eq!(String::from_utf8_lossy(&out), new.as_str(), "patch:\n{}", patch);
        }
    }
}
