//! The prefilter that large files go through may change how fast a hunk is
//! found, never where: a differential property test applies random drifted
//! hunks to random files twice, once line by line and once through the
//! prefilter (`MatchOptions::prefilter_above_lines` set to 0), and requires
//! the same outcome. The files are built from lines that share digit runs
//! and words, with case changes, backticks and KELVIN SIGNs mixed in: the
//! characters that once let the prefilter miss the better match (H10, H11 in
//! `docs/reliability.md`).

use git_fuzzy_apply::{ApplyOptions, MatchOptions, TextApplyError, apply_to_text};
use proptest::prelude::*;

/// One file line from a small vocabulary: many lines share a digit run or a
/// word, some differ from others only in case or in a dropped character.
fn file_line() -> impl Strategy<Value = String> {
    (0usize..9, 0u32..4).prop_map(|(shape, n)| {
        let run = 1_234_560 + n;
        match shape {
            0 => format!("    let value_{run} = compute({n});"),
            1 => format!("    LET VALUE_{run} = COMPUTE({n});"),
            2 => format!("    let value_{} = compute({n});", insert_backtick(run)),
            3 => format!("fn ok_limit_{n}() {{"),
            4 => format!("fn o\u{212A}_limit_{n}() {{"),
            5 => "}".to_string(),
            6 => String::new(),
            7 => format!("    // note {n}: `value` stays"),
            _ => format!("    return total_{n};"),
        }
    })
}

/// A line whose longest token (and longest word) stands in every line
/// like it, and whose number is its rarest token; some hold a backtick.
fn shared_line(shape: usize, n: u32) -> String {
    match shape {
        0..5 => format!("    total += accumulate_measurement(sample, {n});"),
        5 => "}".to_string(),
        6 => format!("    total += `accumulate_measurement`(sample, {n});"),
        _ => format!("    TOTAL += ACCUMULATE_MEASUREMENT(SAMPLE, {n});"),
    }
}

fn insert_backtick(run: u32) -> String {
    let digits = run.to_string();
    format!("{}`{}", &digits[..3], &digits[3..])
}

/// How a patch line drifts from the file line it was copied from.
fn drift(line: &str, how: u8) -> String {
    match how % 6 {
        0 => line.to_uppercase(),
        1 => line.to_lowercase(),
        2 => line.replace('`', ""),
        3 => format!("{}  ", line.replace("    ", "\t")),
        4 => line.replace('\u{212A}', "k"),
        _ => line.to_string(),
    }
}

fn options(prefilter_above_lines: usize) -> ApplyOptions {
    ApplyOptions::default()
        .with_matching(MatchOptions::default().with_prefilter_above_lines(prefilter_above_lines))
}

/// The outcome reduced to what must not differ: the bytes, or the reason.
fn outcome(result: Result<Vec<u8>, TextApplyError>) -> Result<Vec<u8>, String> {
    result.map_err(|e| match e {
        TextApplyError::Hunk { code, .. } => code.to_string(),
        other => other.to_string(),
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn the_prefilter_changes_no_outcome(
        lines in prop::collection::vec(file_line(), 8..80),
        start in any::<prop::sample::Index>(),
        len in 1usize..5,
        removed in any::<prop::sample::Index>(),
        drifts in prop::collection::vec(any::<u8>(), 5),
        hint in prop::option::of(0usize..100),
    ) {
        let file: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let start = start.index(lines.len());
        let block = &lines[start..(start + len).min(lines.len())];
        let removed = removed.index(block.len());
        let header = match hint {
            Some(at) => format!("@@ -{at},{} +{at},{} @@", block.len(), block.len()),
            None => "@@".to_string(),
        };
        let mut patch = format!("--- a/f.rs\n+++ b/f.rs\n{header}\n");
        for (k, line) in block.iter().enumerate() {
            let text = drift(line, drifts[k]);
            if k == removed {
                patch.push_str(&format!("-{text}\n+    changed();\n"));
            } else {
                patch.push_str(&format!(" {text}\n"));
            }
        }
        let line_by_line = outcome(apply_to_text(patch.as_bytes(), file.as_bytes(), &options(usize::MAX)));
        let prefiltered = outcome(apply_to_text(patch.as_bytes(), file.as_bytes(), &options(0)));
        prop_assert_eq!(
            &prefiltered,
            &line_by_line,
            "patch:\n{}\nfile:\n{}",
            patch,
            file
        );
    }

    /// Many hunks on one file, sharing their longest tokens: each line's
    /// needle is then its least shared token (`prefilter/rarity.rs`), which
    /// must find the same places as the longest one and as a line scan.
    #[test]
    fn the_prefilter_changes_no_outcome_of_many_hunks_sharing_tokens(
        shapes in prop::collection::vec(0usize..8, 80..120),
        blocks in prop::collection::vec((1usize..4, any::<u8>()), 20..30),
    ) {
        // Numbers mostly distinct (every line's rarest token), some repeated.
        let lines: Vec<String> = shapes
            .iter()
            .enumerate()
            .map(|(i, &shape)| shared_line(shape, 100 + (i as u32 * 7) % 90))
            .collect();
        let file: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let mut patch = String::from("--- a/f.rs\n+++ b/f.rs\n");
        // Blocks apart, so that hunks do not overlap one another.
        for (b, (len, how)) in blocks.iter().enumerate() {
            let start = 4 * b;
            if start + 3 >= lines.len() {
                break;
            }
            let block = &lines[start..(start + len).min(lines.len())];
            patch.push_str("@@\n");
            for (k, line) in block.iter().enumerate() {
                let text = drift(line, how.wrapping_add(k as u8));
                if k == 0 {
                    patch.push_str(&format!("-{text}\n+    changed();\n"));
                } else {
                    patch.push_str(&format!(" {text}\n"));
                }
            }
        }
        // Without the similarity scan, which would find what a needle missed
        // on a file this small.
        let no_scan = |above: usize| {
            let o = options(above);
            let matching = o.matching().clone().with_similarity_scan_limit(0);
            o.with_matching(matching)
        };
        let line_by_line = outcome(apply_to_text(patch.as_bytes(), file.as_bytes(), &no_scan(usize::MAX)));
        let prefiltered = outcome(apply_to_text(patch.as_bytes(), file.as_bytes(), &no_scan(0)));
        prop_assert_eq!(&prefiltered, &line_by_line, "patch:\n{}\nfile:\n{}", patch, file);
    }

    /// The same for Codex patches, whose `@@` anchor lines are searched
    /// through the prefilter too.
    #[test]
    fn the_prefilter_changes_no_codex_outcome(
        lines in prop::collection::vec(file_line(), 8..80),
        anchor in any::<prop::sample::Index>(),
        gap in 0usize..4,
        len in 1usize..4,
        drifts in prop::collection::vec(any::<u8>(), 5),
    ) {
        let file: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let anchor = anchor.index(lines.len());
        let start = (anchor + 1 + gap).min(lines.len() - 1);
        let block = &lines[start..(start + len).min(lines.len())];
        let mut patch = format!(
            "*** Begin Patch\n*** Update File: f.rs\n@@ {}\n",
            drift(&lines[anchor], drifts[4]).trim()
        );
        for (k, line) in block.iter().enumerate() {
            let text = drift(line, drifts[k]);
            if k + 1 == block.len() {
                patch.push_str(&format!("-{text}\n+    changed();\n"));
            } else {
                patch.push_str(&format!(" {text}\n"));
            }
        }
        patch.push_str("*** End Patch\n");
        let line_by_line = outcome(apply_to_text(patch.as_bytes(), file.as_bytes(), &options(usize::MAX)));
        let prefiltered = outcome(apply_to_text(patch.as_bytes(), file.as_bytes(), &options(0)));
        prop_assert_eq!(&prefiltered, &line_by_line, "patch:\n{}\nfile:\n{}", patch, file);
    }

    /// Hunks whose context runs past the end of the file (the EOF
    /// overhang the structural tier forgives) and drops a context line: the
    /// prefilter's needles must come from lines sure to be in the file.
    #[test]
    fn the_prefilter_changes_no_overhang_outcome(
        lines in prop::collection::vec(file_line(), 8..60),
        tail in 2usize..6,
        extra in prop::collection::vec(0u32..1000, 1..4),
        dropped in prop::option::of(any::<prop::sample::Index>()),
        at in any::<prop::sample::Index>(),
    ) {
        let file: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let block = &lines[lines.len() - tail.min(lines.len())..];
        let at = at.index(block.len());
        let dropped = dropped.map(|d| d.index(block.len()));
        let mut patch = "--- a/f.rs\n+++ b/f.rs\n@@\n".to_string();
        for (k, line) in block.iter().enumerate() {
            if Some(k) != dropped {
                patch.push_str(&format!(" {line}\n"));
            }
            if k == at {
                patch.push_str("+    added();\n");
            }
        }
        // Lines the file does not have, with the longest words of the hunk.
        for n in &extra {
            patch.push_str(&format!("     let overhanging_result_{n} = finish_everything({n});\n"));
        }
        let line_by_line = outcome(apply_to_text(patch.as_bytes(), file.as_bytes(), &options(usize::MAX)));
        let prefiltered = outcome(apply_to_text(patch.as_bytes(), file.as_bytes(), &options(0)));
        prop_assert_eq!(&prefiltered, &line_by_line, "patch:\n{}\nfile:\n{}", patch, file);
    }
}

/// The case behind the overhang property, fixed: the hunk's three most
/// distinctive lines run past the end of the file and stand elsewhere in it.
/// The prefilter once searched only for them and missed the hunk's place.
#[test]
fn needles_past_the_end_of_the_file_do_not_hide_the_place() {
    let mut file = String::from("fn alpha() {\n");
    for n in 1..=3 {
        file.push_str(&format!(
            "    let overhanging_result_{n} = finish_everything({n});\n"
        ));
    }
    file.push_str("}\n\n");
    for n in 0..40 {
        file.push_str(&format!("// filler {n}\n"));
    }
    file.push_str("fn omega() {\n    let value_last = compute(9);\n    return total_9;\n");
    let mut patch = String::from(
        "--- a/f.rs\n+++ b/f.rs\n@@\n fn omega() {\n     let value_last = compute(9);\n+    added();\n     return total_9;\n",
    );
    for n in 1..=3 {
        patch.push_str(&format!(
            "     let overhanging_result_{n} = finish_everything({n});\n"
        ));
    }
    let line_by_line = outcome(apply_to_text(
        patch.as_bytes(),
        file.as_bytes(),
        &options(usize::MAX),
    ));
    let prefiltered = outcome(apply_to_text(
        patch.as_bytes(),
        file.as_bytes(),
        &options(0),
    ));
    assert!(line_by_line.is_ok(), "{line_by_line:?}");
    assert_eq!(prefiltered, line_by_line);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// A patch of several hunks makes even a small file searched through
    /// the prefilter (lines × hunks above `prefilter_above_lines`) while its
    /// keys stay dense: the same outcome as line by line and as a large
    /// file, for the patch and for the patch applied again to its result
    /// (every hunk already applied, the case that was quadratic).
    #[test]
    fn many_hunks_on_a_small_file_change_no_outcome(
        lines in prop::collection::vec(file_line(), 12..80),
        hunks in prop::collection::vec(
            (any::<prop::sample::Index>(), 1usize..4, any::<prop::sample::Index>(),
             prop::collection::vec(any::<u8>(), 4), any::<bool>()),
            2..6,
        ),
    ) {
        let file: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let mut patch = String::from("--- a/f.rs\n+++ b/f.rs\n");
        for (n, (start, len, removed, drifts, numbered)) in hunks.iter().enumerate() {
            let start = start.index(lines.len());
            let block = &lines[start..(start + len).min(lines.len())];
            let removed = removed.index(block.len());
            if *numbered {
                let at = start + 1;
                patch.push_str(&format!("@@ -{at},{} +{at},{} @@\n", block.len(), block.len()));
            } else {
                patch.push_str("@@\n");
            }
            for (k, line) in block.iter().enumerate() {
                let text = drift(line, drifts[k]);
                if k == removed {
                    patch.push_str(&format!("-{text}\n+    changed_{n}();\n"));
                } else {
                    patch.push_str(&format!(" {text}\n"));
                }
            }
        }
        let dense_indexed = lines.len();
        let mut inputs = vec![file.clone().into_bytes()];
        if let Ok(once) = apply_to_text(patch.as_bytes(), file.as_bytes(), &options(usize::MAX)) {
            inputs.push(once);
        }
        for input in inputs {
            let line_by_line = outcome(apply_to_text(patch.as_bytes(), &input, &options(usize::MAX)));
            for limit in [0, dense_indexed] {
                let prefiltered = outcome(apply_to_text(patch.as_bytes(), &input, &options(limit)));
                prop_assert_eq!(
                    &prefiltered,
                    &line_by_line,
                    "limit {}\npatch:\n{}\nfile:\n{}",
                    limit,
                    patch,
                    String::from_utf8_lossy(&input)
                );
            }
        }
    }
}
