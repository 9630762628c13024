//! Making random edits into unified diffs, for the property tests.

use similar::TextDiff;

/// The lines as a text, each ended by `\n`.
pub fn join(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// No two non-blank lines are equal after trimming and lower-casing, so
/// every hunk's context stands at one place under every tier.
pub fn unique_enough(lines: &[String]) -> bool {
    let mut seen = std::collections::HashSet::new();
    lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .all(|l| seen.insert(l.trim().to_lowercase()))
}

/// `diff -U3` of `old` to `new` for `f.txt`.
pub fn unified(old: &str, new: &str) -> String {
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header("a/f.txt", "b/f.txt")
        .to_string()
}

/// The unified diff from `old` to `new` without context lines, as
/// `git diff -U0` writes it.
pub fn unified_zero(old: &str, new: &str) -> String {
    let diff = TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(0)
        .header("a/f.txt", "b/f.txt")
        .to_string();
    // git's own header: without it, `@@ -0,0 +1,N @@` writes a new file.
    format!("diff --git a/f.txt b/f.txt\n{diff}")
}

/// The body lines of each hunk of a unified diff (`\` markers dropped).
pub fn hunks(diff: &str) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    for l in diff.lines().skip(2) {
        if l.starts_with("@@") {
            out.push(Vec::new());
        } else if let Some(h) = out.last_mut()
            && !l.starts_with('\\')
        {
            h.push(l.to_string());
        }
    }
    out
}
