//! Fuzz target `roundtrip`: two texts are made from the input, diffed with
//! `similar` into a unified diff, and the diff (and its numberless form)
//! applied with `apply_to_text` to the first must give exactly the second.
//!
//! The input reads like a diff body: a line starting with `-` exists only in
//! the old text, one starting with `+` only in the new one, any other line in
//! both. Bit 0 of the first byte drops the old text's final newline, bit 1
//! the new one's.
//!
//! What is guaranteed, and so asserted: when every line of the old text is
//! distinct, every hunk's old side stands byte-for-byte at exactly one place,
//! so the exact tier places it there and the result is the new text. Texts
//! are UTF-8 (the patch must be) and without `\r` (the patch reader turns CR
//! into line ends, so a CR inside a line cannot be carried by any patch),
//! and without NUL (a file holding one is binary and refused); a text
//! starting with a byte-order mark is left out (removing the mark is
//! refused, and the mark alone is no line).

#![no_main]

use git_fuzzy_apply::{ApplyOptions, apply_to_text};
use libfuzzer_sys::fuzz_target;
use similar::TextDiff;
use std::collections::HashSet;

/// Joins lines with `\n`, with a final newline unless `missing_final`.
fn join(lines: &[&str], missing_final: bool) -> String {
    let mut out = lines.join("\n");
    if !lines.is_empty() && !missing_final {
        out.push('\n');
    }
    out
}

/// The two texts the input describes.
fn texts(data: &[u8]) -> Option<(String, String)> {
    let (&flags, rest) = data.split_first()?;
    let body = String::from_utf8_lossy(rest).replace('\r', "");
    let mut old = Vec::new();
    let mut new = Vec::new();
    for line in body.split_terminator('\n') {
        if let Some(l) = line.strip_prefix('-') {
            old.push(l);
        } else if let Some(l) = line.strip_prefix('+') {
            new.push(l);
        } else {
            old.push(line);
            new.push(line);
        }
    }
    Some((join(&old, flags & 1 != 0), join(&new, flags & 2 != 0)))
}

/// True when no line of `text` occurs twice.
fn lines_unique(text: &str) -> bool {
    let mut seen = HashSet::new();
    text.split_terminator('\n').all(|l| seen.insert(l))
}

/// True when the diff holds a removed line starting `-- ` directly followed
/// by an added line starting `++ `: the pair reads `--- x` / `+++ y`, a file
/// header. A numbered hunk's counts say it goes on (H1, fixed); a numberless
/// hunk has no counts, so there the pair really is ambiguous and is skipped.
fn header_in_body(diff: &str) -> bool {
    let lines: Vec<&str> = diff.lines().skip(2).collect();
    lines
        .windows(2)
        .any(|w| w[0].starts_with("--- ") && w[1].starts_with("+++ "))
}

/// `diff` with every `@@ -a,b +c,d @@` header replaced by a bare `@@`.
fn numberless(diff: &str) -> String {
    diff.split_inclusive('\n')
        .map(|l| if l.starts_with("@@ ") { "@@\n" } else { l })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let Some((old, new)) = texts(data) else {
        return;
    };
    // A NUL byte makes a file binary, which the command refuses to patch
    // (`looks_binary`, as git does).
    // A byte-order mark at the start is no line and stays (removing it is
    // refused: docs/formats.md): such a text is no plain round trip.
    // A hunk whose first old line starts with U+FEFF is read as copying
    // line 1 with the file's mark (docs/formats.md), whatever its header
    // says: a text with the character starting a later line has no round
    // trip.
    let bom = old.starts_with('\u{feff}')
        || old.lines().skip(1).any(|l| l.starts_with('\u{feff}'));
    if old == new || !lines_unique(&old) || old.contains('\0') || bom {
        return;
    }
    let diff = TextDiff::from_lines(&old, &new)
        .unified_diff()
        .context_radius(3)
        .header("a/f.txt", "b/f.txt")
        .to_string();
    let mut patches = vec![diff.clone()];
    if !header_in_body(&diff) {
        patches.push(numberless(&diff));
    }
    for patch in patches {
        match apply_to_text(patch.as_bytes(), old.as_bytes(), &ApplyOptions::default()) {
            Ok(out) => assert!(
                out == new.as_bytes(),
                "wrong result\n--- old\n{old:?}\n--- new\n{new:?}\n--- patch\n{patch}\n--- got\n{:?}",
                String::from_utf8_lossy(&out)
            ),
            Err(e) => {
                panic!("refused: {e}\n--- old\n{old:?}\n--- new\n{new:?}\n--- patch\n{patch}")
            }
        }
    }
});
