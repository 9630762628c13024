//! Property: for random files and random edits, the exact patch a diff of the
//! two versions produces, written in each format we read, applies to give
//! exactly the new file — and still does with its line numbers shuffled.
//! The forms without numbered headers (numberless, Codex, SEARCH/REPLACE)
//! may instead refuse an added line indented with the other character than
//! every indented line of the file (a tab in a file indented with spaces:
//! `docs/matching.md`, rule 6), and only where the file is indented so.

use crate::support;
use git_fuzzy_apply::{ApplyOptions, apply_to_text};

use proptest::prelude::*;
use support::diffs::{
    OTHER_CHAR, hunks, join, other_char_addition, splice_edits, unified, unique_enough,
};

/// Distinct-looking lines (so context is unique), with some indentation and blanks.
fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => ("[ \t]{0,2}", "[a-z][a-z0-9_(){}=;:,. ]{6,30}").prop_map(|(i, s)| format!("{i}{}", s.trim_end())),
        1 => Just(String::new()),
    ]
}

fn file() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(line(), 0..40)
}

/// Applies random replace/insert/delete operations to a copy of `lines`.
fn edited(lines: Vec<String>) -> impl Strategy<Value = (Vec<String>, Vec<String>)> {
    let len = lines.len();
    let ops = prop::collection::vec(
        (0..=len, 0usize..3, prop::collection::vec(line(), 0..3)),
        1..4,
    );
    ops.prop_map(move |ops| {
        let new = splice_edits(&lines, ops);
        (lines.clone(), new)
    })
}

fn apply(patch: &str, old: &str) -> Result<String, TestCaseError> {
    apply_to_text(patch.as_bytes(), old.as_bytes(), &ApplyOptions::default())
        .map(|b| String::from_utf8(b).expect("utf-8 result"))
        .map_err(|e| TestCaseError::fail(format!("{e}\n--- old\n{old}--- patch\n{patch}")))
}

/// A patch without numbered headers applied to `old` gives `new`, or is
/// refused for an added line indented with the other character than the
/// file (`docs/matching.md`, rule 6), where the file is indented so.
fn numberless_gives(patch: &str, old: &str, new: &str) -> Result<(), TestCaseError> {
    match apply_to_text(patch.as_bytes(), old.as_bytes(), &ApplyOptions::default()) {
        Ok(out) => {
            prop_assert_eq!(String::from_utf8_lossy(&out), new);
            Ok(())
        }
        Err(e) if other_char_addition(old, new) && e.to_string().contains(OTHER_CHAR) => Ok(()),
        Err(e) => Err(TestCaseError::fail(format!(
            "{e}\n--- old\n{old}--- patch\n{patch}"
        ))),
    }
}

fn shuffle_numbers(diff: &str, seed: usize) -> String {
    let mut k = seed;
    diff.lines()
        .map(|l| {
            if l.starts_with("@@ ") {
                k = k.wrapping_mul(2654435761).wrapping_add(12345) % 97;
                format!("@@ -{},3 +{},4 @@", k + 1, k + 2)
            } else {
                l.to_string()
            }
        })
        .map(|l| l + "\n")
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn unified_diffs_round_trip((old, new) in file().prop_flat_map(edited), seed in 0usize..1000) {
        prop_assume!(unique_enough(&old) && unique_enough(&new));
        let (old, new) = (join(&old), join(&new));
        prop_assume!(old != new);
        let diff = unified(&old, &new);
        prop_assert_eq!(apply(&diff, &old)?, new.clone());
        let shuffled = format!("--- a/f.txt\n+++ b/f.txt\n{}", shuffle_numbers(&diff, seed).split_once("+++ b/f.txt\n").map(|x| x.1).unwrap_or_default());
        prop_assert_eq!(apply(&shuffled, &old)?, new.clone());
        let numberless: String = diff.lines().map(|l| if l.starts_with("@@ ") { "@@\n".to_string() } else { format!("{l}\n") }).collect();
        numberless_gives(&numberless, &old, &new)?;
    }

    #[test]
    fn codex_envelopes_round_trip((old, new) in file().prop_flat_map(edited)) {
        prop_assume!(unique_enough(&old) && unique_enough(&new) && !old.is_empty());
        let (old, new) = (join(&old), join(&new));
        prop_assume!(old != new);
        let mut patch = String::from("*** Begin Patch\n*** Update File: f.txt\n");
        for h in hunks(&unified(&old, &new)) {
            patch.push_str("@@\n");
            for l in h {
                patch.push_str(&l);
                patch.push('\n');
            }
        }
        patch.push_str("*** End Patch\n");
        numberless_gives(&patch, &old, &new)?;
    }

    #[test]
    fn search_replace_blocks_round_trip((old, new) in file().prop_flat_map(edited)) {
        prop_assume!(unique_enough(&old) && unique_enough(&new) && !old.is_empty());
        let (old, new) = (join(&old), join(&new));
        prop_assume!(old != new);
        let mut patch = String::new();
        for h in hunks(&unified(&old, &new)) {
            let search: Vec<&str> = h.iter().filter(|l| !l.starts_with('+')).map(|l| &l[1..]).collect();
            let replace: Vec<&str> = h.iter().filter(|l| !l.starts_with('-')).map(|l| &l[1..]).collect();
            prop_assume!(!search.iter().all(|l| l.trim().is_empty()));
            patch.push_str("f.txt\n```\n<<<<<<< SEARCH\n");
            for l in search { patch.push_str(l); patch.push('\n'); }
            patch.push_str("=======\n");
            for l in replace { patch.push_str(l); patch.push('\n'); }
            patch.push_str(">>>>>>> REPLACE\n```\n\n");
        }
        numberless_gives(&patch, &old, &new)?;
    }
}
