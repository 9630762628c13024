//! Making random edits into unified diffs, for the property tests.

use similar::TextDiff;

/// The lines as a text, each ended by `\n`.
pub fn join(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// `lines` with each edit `(at, remove, insert)` made in turn: `remove`
/// lines from `at` replaced by `insert`, both clamped to the text.
pub fn splice_edits(lines: &[String], edits: Vec<(usize, usize, Vec<String>)>) -> Vec<String> {
    let mut new = lines.to_vec();
    for (at, remove, insert) in edits {
        let at = at.min(new.len());
        let end = (at + remove).min(new.len());
        new.splice(at..end, insert);
    }
    new
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

/// What the refusal of an added line indented with the other character
/// than the file says (`docs/matching.md`, rule 6).
pub const OTHER_CHAR: &str = "but every indented line of the file near the place is indented with";

/// Whether that rule may refuse a patch without numbered headers (a
/// numberless diff, a Codex envelope, SEARCH/REPLACE blocks) from `old` to
/// `new`: every indented non-blank line of `old` is indented with one
/// character only (all spaces, or all tabs), and `new` has a non-blank line
/// indented with the other character only. For files of at most 41 lines,
/// where the rule's "near the place" (40 lines) is the whole file.
pub fn other_char_addition(old: &str, new: &str) -> bool {
    let indented = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| l[..l.len() - l.trim_start_matches([' ', '\t']).len()].to_string())
            .filter(|i| !i.is_empty())
            .collect()
    };
    // The one character an indentation is made of (`None` when it mixes).
    let made_of = |s: &str| {
        let c = s.chars().next()?;
        s.chars().all(|x| x == c).then_some(c)
    };
    let olds = indented(old);
    let Some(file) = olds.first().and_then(|i| made_of(i)) else {
        return false;
    };
    olds.iter().all(|i| made_of(i) == Some(file))
        && indented(new)
            .iter()
            .any(|i| made_of(i).is_some_and(|c| c != file))
}
