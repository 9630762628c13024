//! Line normalisation for each tier of the matching ladder.
//!
//! * resilient: trim, collapse runs of spaces and tabs, drop Markdown heading
//!   markers;
//! * fuzzy: resilient plus Unicode canonical composition (NFC) and
//!   punctuation folding (smart quotes, dashes, NBSP, ellipsis), inline
//!   backticks removed, lower case, trailing sentence punctuation
//!   (`. , ; : ! ?`) ignored.
//!
//! Both tiers also accept a *truncated* patch line: the last ≥ 10 characters
//! of the file's line (starting at a word boundary), or its beginning followed
//! by `...`/`…`.

mod distance;

use std::borrow::Cow;
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick};

/// Minimum length of a truncated fragment that may stand for a whole line.
pub(crate) const MIN_FRAGMENT: usize = 10;

/// Minimum length of a context-line fragment that starts mid-word.
pub(crate) const MIN_MID_WORD_FRAGMENT: usize = 16;

/// Largest Levenshtein table (cells) computed for one pair of lines; beyond
/// it the distance is taken as the longer remainder's length, an upper bound,
/// so a pair of megabyte lines costs linear time and can only look *less*
/// similar (which leads to refusal, never to a wrong edit).
pub(crate) const MAX_DISTANCE_CELLS: usize = 1 << 22;

/// Edit distance between two lines in characters, bounded in time.
///
/// The common prefix and suffix are stripped first (this does not change a
/// Levenshtein distance); what remains is compared exactly when the table has
/// at most [`MAX_DISTANCE_CELLS`] cells, and otherwise estimated from above by
/// the longer remainder's length.
pub(crate) fn bounded_distance(a: &str, b: &str) -> usize {
    let prefix: usize = a
        .chars()
        .zip(b.chars())
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x.len_utf8())
        .sum();
    let (a, b) = (&a[prefix..], &b[prefix..]);
    let suffix: usize = a
        .chars()
        .rev()
        .zip(b.chars().rev())
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x.len_utf8())
        .sum();
    let suffix = suffix.min(a.len()).min(b.len());
    let (a, b) = (&a[..a.len() - suffix], &b[..b.len() - suffix]);
    let (la, lb) = (a.chars().count(), b.chars().count());
    if la.saturating_mul(lb) > MAX_DISTANCE_CELLS {
        la.max(lb)
    } else {
        let (short, long) = if la <= lb { (a, b) } else { (b, a) };
        distance::levenshtein_by_words(short, long)
            .unwrap_or_else(|| strsim::levenshtein(short, long))
    }
}

/// How one patch line compared with one file line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum LineMatch {
    /// Not the same line.
    No,
    /// The same line after normalisation or as a truncated fragment.
    Normalized,
    /// Byte for byte the same.
    Exact,
}

/// The resilient key: trimmed, inner whitespace collapsed, heading marks dropped.
pub(crate) fn resilient_key(line: &str) -> String {
    let trimmed = line.trim();
    let body = strip_heading(trimmed);
    // A line of only `#` marks is not a blank line.
    collapse_whitespace(if body.is_empty() { trimmed } else { body })
}

/// The fuzzy key: the resilient key, case-folded, with punctuation folded,
/// in Unicode canonical composition (NFC): a file in NFD and a patch in
/// NFC give the same key. Only canonical equivalence: compatibility forms
/// (`²`, `ﬁ`) stay as they are, since folding them can change meaning.
pub(crate) fn fuzzy_key(line: &str) -> String {
    let composed: Cow<'_, str> =
        if line.is_ascii() || is_nfc_quick(line.chars()) == IsNormalized::Yes {
            Cow::Borrowed(line)
        } else {
            Cow::Owned(line.nfc().collect())
        };
    let line = composed.as_ref();
    let mut folded = String::with_capacity(line.len());
    for ch in line.chars() {
        match fold_char(ch) {
            Folded::Keep(c) => folded.extend(c.to_lowercase()),
            Folded::Str(s) => folded.push_str(s),
            Folded::Drop => {}
        }
    }
    let key = resilient_key(&folded);
    if key.is_empty() && !line.trim().is_empty() {
        // A line of backticks (a Markdown fence) is not a blank line.
        return resilient_key(line);
    }
    let stripped = key.trim_end_matches(['.', ',', ';', ':', '!', '?']);
    // A line of punctuation only (`}`, `);`, `---`) keeps its punctuation.
    if stripped.is_empty() {
        key
    } else {
        stripped.trim_end().to_string()
    }
}

enum Folded {
    Keep(char),
    Str(&'static str),
    Drop,
}

fn fold_char(ch: char) -> Folded {
    match ch {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '\u{00B4}' => {
            Folded::Keep('\'')
        }
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' | '\u{00AB}'
        | '\u{00BB}' => Folded::Keep('"'),
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}'
        | '\u{2212}' => Folded::Keep('-'),
        '\u{00A0}' | '\u{2007}' | '\u{202F}' | '\u{2009}' | '\u{200A}' | '\u{3000}' => {
            Folded::Keep(' ')
        }
        '\u{200B}' | '\u{FEFF}' | '`' => Folded::Drop,
        '\u{2026}' => Folded::Str("..."),
        other => Folded::Keep(other),
    }
}

fn strip_heading(line: &str) -> &str {
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    if (1..=6).contains(&hashes) {
        let rest = &line[hashes..];
        if rest.is_empty() || rest.starts_with([' ', '\t']) {
            return rest.trim_start();
        }
    }
    line
}

/// The Markdown heading level of a line (`## x` is 2), 0 for other lines.
pub(crate) fn heading_level(line: &str) -> usize {
    let trimmed = line.trim();
    let body = strip_heading(trimmed);
    if body.len() == trimmed.len() {
        return 0;
    }
    trimmed.bytes().take_while(|&b| b == b'#').count()
}

/// True when two lines differ at most in the amount of whitespace: the
/// strictest leniency, used where a line's text decides what the file
/// becomes (an added line recognised as already there).
pub(crate) fn same_but_whitespace(a: &str, b: &str) -> bool {
    a == b || whitespace_key(a) == whitespace_key(b)
}

/// The key under which [`same_but_whitespace`] compares a line: trimmed,
/// with each run of blanks one space. Two lines are the same but for
/// whitespace exactly when their keys are equal.
pub(crate) fn whitespace_key(line: &str) -> String {
    collapse_whitespace(line.trim())
}

fn collapse_whitespace(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut in_space = false;
    for ch in line.chars() {
        if ch == ' ' || ch == '\t' {
            if !in_space {
                out.push(' ');
            }
            in_space = true;
        } else {
            out.push(ch);
            in_space = false;
        }
    }
    out
}

/// Compares two keys of the same tier, accepting truncated fragments.
///
/// `removed` asks for the stricter rule used on lines the patch deletes: a
/// fragment must then also cover at least half of the file's line.
pub(crate) fn keys_match(file_key: &str, patch_key: &str, removed: bool) -> bool {
    if file_key == patch_key {
        return true;
    }
    fragment_match(file_key, patch_key, removed)
}

fn fragment_match(file_key: &str, patch_key: &str, removed: bool) -> bool {
    let covers = |len: usize| !removed || len * 2 >= file_key.len();
    // The beginning of the line followed by an ellipsis (not Go's `./...`).
    for ellipsis in ["...", "\u{2026}"] {
        if let Some(head) = patch_key
            .strip_suffix(ellipsis)
            .filter(|_| !ends_in_package_pattern(patch_key))
        {
            let head = head.trim_end();
            if head.chars().count() >= MIN_FRAGMENT
                && file_key.len() > head.len()
                && file_key.starts_with(head)
                && covers(head.len())
            {
                return true;
            }
        }
    }
    // The end of the line, starting at a word boundary (or anywhere, for a
    // long fragment of a context line: models cut long lines mid-word).
    // Never for a removed line: `data = rest;` must not delete
    // `self.data = rest;` (only an explicit `...` marks a removed line cut).
    if !removed
        && patch_key.chars().count() >= MIN_FRAGMENT
        && file_key.len() > patch_key.len()
        && file_key.ends_with(patch_key)
        && covers(patch_key.len())
    {
        let cut = file_key.len() - patch_key.len();
        let before = file_key[..cut].chars().next_back();
        let first = patch_key.chars().next();
        let is_word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        let long = !removed && patch_key.chars().count() >= MIN_MID_WORD_FRAGMENT;
        return long || !(is_word(before) && is_word(first));
    }
    false
}

/// True when two fuzzy keys hold the same tokens (runs of letters, digits
/// and `_`, and single other characters) in the same order, and differ only
/// by spaces next to punctuation: `def f( a ):` and `def f(a):`. A space
/// between two word characters still counts (`"a b"` is not `"ab"`).
pub(crate) fn same_tokens(file_key: &str, patch_key: &str) -> bool {
    // Compared as they are read: nothing is allocated for the many file
    // lines that differ (every start line of a fuzzy search).
    let same_solid = || {
        let unspaced = |c: &char| *c != ' ';
        file_key
            .chars()
            .filter(unspaced)
            .eq(patch_key.chars().filter(unspaced))
    };
    if file_key == patch_key || file_key.is_empty() || !same_solid() {
        return file_key == patch_key;
    }
    token_key(file_key) == token_key(patch_key)
}

/// A fuzzy key without the spaces that touch a character other than a
/// letter, digit or `_`.
fn token_key(key: &str) -> String {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let chars: Vec<char> = key.chars().collect();
    let mut out = String::with_capacity(key.len());
    for (i, &c) in chars.iter().enumerate() {
        if c == ' ' {
            let before = i.checked_sub(1).and_then(|b| chars.get(b).copied());
            if !(word(before) && word(chars.get(i + 1).copied())) {
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// True when `patch_key` is the end of `file_key` cut mid-word and shorter
/// than [`MIN_MID_WORD_FRAGMENT`] but at least [`MIN_FRAGMENT`] characters
/// long (seed 000's rule): evidence only where the rest of the hunk places
/// it (the caller's check), and never for a removed line.
pub(crate) fn short_mid_word_suffix(file_key: &str, patch_key: &str) -> bool {
    let len = patch_key.chars().count();
    if !(MIN_FRAGMENT..MIN_MID_WORD_FRAGMENT).contains(&len)
        || file_key.len() <= patch_key.len()
        || !file_key.ends_with(patch_key)
    {
        return false;
    }
    let is_word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let before = file_key[..file_key.len() - patch_key.len()]
        .chars()
        .next_back();
    is_word(before) && is_word(patch_key.chars().next())
}

/// True when `text` ends in a Go package pattern (`go test ./...`,
/// `go build ../cmd/...`, `go get github.com/org/repo/...`): there `...` is
/// Go's wildcard, part of the line, not the mark of a line cut short. The
/// last word must be `.`, `..`, a path starting with `./` or `../`, or one
/// whose first component holds a dot (a module path), then `/...`, with
/// nothing but letters, digits, `.`, `_`, `-` and `/` (so no URL).
pub(crate) fn ends_in_package_pattern(text: &str) -> bool {
    let word = text
        .trim_end()
        .rsplit(char::is_whitespace)
        .next()
        .unwrap_or("")
        .trim_start_matches(['"', '\'', '`', '(', '[']);
    let Some(path) = word.strip_suffix("/...") else {
        return false;
    };
    let plain = path
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '/'));
    let first = path.split('/').next().unwrap_or("");
    plain
        && !path.is_empty()
        && (first == "." || first == ".." || (first.contains('.') && first.len() > 2))
}

/// True when `patch_key` is the beginning of `file_key`, at least
/// [`MIN_FRAGMENT`] characters long, cut between two tokens (not inside a
/// word) and with no `...` after it: a line the model stopped writing.
/// Evidence only for a hunk's last context line, where the rest of the hunk
/// places it (the caller's check).
pub(crate) fn cut_prefix(file_key: &str, patch_key: &str) -> bool {
    if patch_key.chars().count() < MIN_FRAGMENT
        || file_key.len() <= patch_key.len()
        || !file_key.starts_with(patch_key)
    {
        return false;
    }
    let is_word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let next = file_key[patch_key.len()..].chars().next();
    !(is_word(patch_key.chars().next_back()) && is_word(next))
}

/// True for lines a model often omits: blank lines, closing brackets and commas,
/// and comment lines.
pub(crate) fn is_structural(line: &str) -> bool {
    let t = line.trim();
    if t.is_empty() || t.chars().all(|c| matches!(c, '}' | ']' | ')' | ',' | ';')) {
        return true;
    }
    ["//", "#", "/*", "*", "--", "<!--"]
        .iter()
        .any(|p| t.starts_with(p))
}

/// The leading spaces and tabs of a line.
pub(crate) fn indentation(line: &str) -> &str {
    let end = line.len() - line.trim_start_matches([' ', '\t']).len();
    &line[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_distance_is_levenshtein_on_short_lines() {
        for (a, b) in [
            ("kitten", "sitting"),
            ("", "abc"),
            ("same", "same"),
            ("aaa", "aa"),
            ("é‘quote’", "e'quote'"),
            ("abcabc", "abc"),
        ] {
            assert_eq!(
                bounded_distance(a, b),
                strsim::levenshtein(a, b),
                "{a} / {b}"
            );
        }
    }

    #[test]
    fn bounded_distance_of_megabyte_lines_strips_shared_ends() {
        let long = "z".repeat(1 << 20);
        assert_eq!(bounded_distance(&long, &format!("{long}q")), 1);
        assert_eq!(bounded_distance(&format!("q{long}"), &long), 1);
        let (a, b) = ("x".repeat(1 << 20), "y".repeat(1 << 20));
        assert_eq!(bounded_distance(&a, &b), 1 << 20);
    }

    #[test]
    fn resilient_trims_and_collapses() {
        assert_eq!(resilient_key("  let  x =\t1;  "), "let x = 1;");
        assert_eq!(resilient_key("### Title"), "Title");
        assert_eq!(resilient_key("#include <x>"), "#include <x>");
        assert_eq!(resilient_key("#"), "#");
        assert_eq!(resilient_key("  ##  "), "##");
    }

    #[test]
    fn fuzzy_folds_case_quotes_and_punctuation() {
        assert_eq!(fuzzy_key("Say \u{201C}Hi\u{201D}."), "say \"hi\"");
        assert_eq!(fuzzy_key("Use `foo()` here,"), "use foo() here");
        assert_eq!(fuzzy_key("a\u{00A0}\u{2014} b\u{2026}"), "a - b");
        assert_eq!(fuzzy_key("});"), "})");
        assert_eq!(fuzzy_key(";"), ";");
        assert_eq!(fuzzy_key("```"), "```");
    }

    #[test]
    fn fuzzy_composes_canonically_only() {
        let nfd = "Cre\u{0300}me bru\u{0302}le\u{0301}e";
        assert_eq!(fuzzy_key(nfd), fuzzy_key("Crème brûlée"));
        assert_eq!(fuzzy_key(nfd), "crème brûlée");
        // Compatibility forms are not folded: `r²` is not `r2`.
        assert_ne!(fuzzy_key("r\u{00B2}"), fuzzy_key("r2"));
        assert_ne!(fuzzy_key("\u{FB01}le"), fuzzy_key("file"));
    }

    #[test]
    fn suffix_fragments_need_a_word_boundary() {
        assert!(keys_match(
            "result = compute_everything(a, b)",
            "compute_everything(a, b)",
            false
        ));
        assert!(!keys_match("max = compute()", "x = compute()", false));
        assert!(keys_match(
            "/// Cumulative state passed from a directory to its children.",
            "ory to its children.",
            false
        ));
        assert!(!keys_match(
            "/// Cumulative state passed from a directory to its children.",
            "ory to its children.",
            true
        ));
        assert!(!keys_match("abc", "bc", false));
    }

    #[test]
    fn ellipsis_fragments_match_line_starts() {
        assert!(keys_match(
            "print(\"a very long message\", file=sys.stderr)",
            "print(\"a very long...",
            false
        ));
    }

    #[test]
    fn removed_fragments_must_cover_half_the_line() {
        let file = "a fairly long line that goes on and on and on = value";
        assert!(!keys_match(file, "on and on = value", true));
        assert!(keys_match(file, "on and on = value", false));
    }

    #[test]
    fn same_tokens_ignores_spaces_at_punctuation_only() {
        let key = |s: &str| fuzzy_key(s);
        assert!(same_tokens(&key("def  f( a ):"), &key(" def f(a):")));
        assert!(same_tokens(&key("x = f( 1,2 )"), &key("x=f(1, 2)")));
        assert!(!same_tokens(&key("print(\"a b\")"), &key("print(\"ab\")")));
        assert!(!same_tokens(&key("return a"), &key("returna")));
        assert!(!same_tokens(&key("f(a)"), &key("f(b)")));
        assert!(!same_tokens("", "x"));
    }

    #[test]
    fn short_mid_word_suffixes() {
        let file = "parser.add_argument(\"--dry-run\", action=\"store_true\")";
        assert!(short_mid_word_suffix(file, "ore_true\")"));
        // Too short, long enough for the ordinary rule, or at a word boundary.
        assert!(!short_mid_word_suffix(file, "re_true\")"));
        assert!(!short_mid_word_suffix(file, "action=\"store_true\")"));
        assert!(!short_mid_word_suffix(file, "\"store_true\")"));
        assert!(!keys_match(file, "ore_true\")", false));
    }

    #[test]
    fn cut_prefixes_end_between_tokens() {
        let file = "* [ ] Define `Context` (fields `query`, `history`, `tools`).";
        assert!(cut_prefix(
            file,
            "* [ ] Define `Context` (fields `query`, `history`,"
        ));
        assert!(cut_prefix(file, "* [ ] Define `Context` (fields"));
        // Inside a word, too short, not a beginning, or the whole line.
        assert!(!cut_prefix(file, "* [ ] Define `Context` (fie"));
        assert!(!cut_prefix(file, "* [ ] Def"));
        assert!(!cut_prefix(file, "Define `Context` (fields"));
        assert!(!cut_prefix(file, file));
    }

    #[test]
    fn go_package_patterns_are_no_cut_lines() {
        for line in [
            "\tgo test ./...",
            "go build ../cmd/...",
            "RUN go vet \"./...",
            "go get github.com/org/repo/...",
        ] {
            assert!(ends_in_package_pattern(line), "{line}");
        }
        // A URL, a relative path without `./`, prose: cut lines.
        for line in [
            "see https://example.com/...",
            "path = src/components/...",
            "loading data...",
            "/...",
        ] {
            assert!(!ends_in_package_pattern(line), "{line}");
        }
        // The wildcard is part of the line: no fragment of a longer line.
        assert!(!keys_match(
            "go test ./... -race -count=1",
            "go test ./...",
            false
        ));
    }

    #[test]
    fn structural_lines() {
        assert!(is_structural("    },"));
        assert!(is_structural("  // note"));
        assert!(is_structural(""));
        assert!(!is_structural("x = 1"));
    }
}
