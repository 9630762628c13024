//! Bare words that may name the file of the edit below them (`run`,
//! `CHANGES`, `configure`): no extension, no `/`, not one of the
//! conventional names [`paths::path_line`] reads. The parser sees no tree,
//! so it only records the word (`model::BareName`); the tree decides before
//! anything is located (`plan::transform`).

use super::cleanup::Src;
use super::{fence, paths};

/// Words that stand alone on a line of prose before a fence (`Done`,
/// `output`, `bash`): never a file name, whatever the tree holds. Compared
/// in lower case.
const PROSE_WORDS: &[&str] = &[
    "above",
    "after",
    "again",
    "also",
    "and",
    "answer",
    "bash",
    "becomes",
    "before",
    "below",
    "but",
    "change",
    "code",
    "console",
    "diff",
    "done",
    "edit",
    "edits",
    "error",
    "errors",
    "example",
    "examples",
    "explanation",
    "file",
    "files",
    "finally",
    "first",
    "fix",
    "fixed",
    "fixes",
    "for",
    "from",
    "here",
    "in",
    "input",
    "instead",
    "into",
    "is",
    "it",
    "javascript",
    "json",
    "last",
    "like",
    "modified",
    "new",
    "next",
    "no",
    "note",
    "notes",
    "now",
    "of",
    "ok",
    "okay",
    "old",
    "on",
    "or",
    "original",
    "output",
    "patch",
    "python",
    "replace",
    "response",
    "result",
    "results",
    "rust",
    "search",
    "second",
    "sh",
    "shell",
    "so",
    "solution",
    "step",
    "summary",
    "sure",
    "terminal",
    "text",
    "that",
    "the",
    "then",
    "these",
    "this",
    "to",
    "typescript",
    "update",
    "updated",
    "usage",
    "via",
    "was",
    "with",
    "yaml",
    "yes",
];

/// The bare word `line` holds, if it may name a file: one word of ASCII
/// letters, digits, `_` and `-` (2 to 40 characters, starting with a
/// letter), all lower case (`run`) or all upper case (`CHANGES`) — a
/// capitalised word (`Done`, `Output`) is prose —, not a
/// [prose word](PROSE_WORDS), and not a label (`run:` without `File:` or
/// backticks around it). Decoration is taken off as for a path.
pub(crate) fn bare_word(line: &str) -> Option<String> {
    if paths::path_line(line).is_some() {
        return None;
    }
    let cleaned = paths::undecorate(line);
    let w = cleaned.text;
    let shaped = (2..=40).contains(&w.len())
        && w.starts_with(|c: char| c.is_ascii_alphabetic())
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let one_case =
        w.chars().all(|c| !c.is_ascii_uppercase()) || w.chars().all(|c| !c.is_ascii_lowercase());
    let prose = PROSE_WORDS.contains(&w.to_ascii_lowercase().as_str());
    let label = cleaned.colon && !cleaned.decorated;
    (shaped && one_case && !prose && !label).then(|| w.to_string())
}

/// The bare word named before the edit that starts at line `i`, with the
/// patch line it is on: the nearest non-empty line, or, when the edit
/// stands `in_fence` and that line opens it, the line before the fence. A
/// fence line before an edit outside any fence closes another fence, whose
/// last line is that fence's content, never a file name.
pub(crate) fn before(src: &Src, i: usize, in_fence: bool) -> Option<(String, usize)> {
    let mut k = src.prev_non_empty(i)?;
    let line = src.line(k)?;
    if fence::is_any_fence(line) {
        if !in_fence || fence::opening(line).is_none() {
            return None;
        }
        k = src.prev_non_empty(k)?;
    }
    bare_word(src.line(k)?).map(|w| (w, src.orig(k)))
}

#[cfg(test)]
mod tests {
    use super::bare_word;

    #[test]
    fn bare_words_are_one_case_and_never_prose() {
        for (line, want) in [
            ("run", Some("run")),
            ("CHANGES", Some("CHANGES")),
            ("`configure`", Some("configure")),
            ("**gradlew**", Some("gradlew")),
            ("File: run", Some("run")),
            ("`run`:", Some("run")),
            ("build-all", Some("build-all")),
            ("Done", None),
            ("Here", None),
            ("Output", None),
            ("output", None),
            ("DONE", None),
            ("becomes", None),
            ("instead", None),
            ("run:", None),
            ("Procfile", None),
            ("src/run", None),
            ("x.py", None),
            ("Run this", None),
            ("a", None),
            ("9lives", None),
            ("-- ", None),
        ] {
            assert_eq!(bare_word(line).as_deref(), want, "{line:?}");
        }
    }
}
