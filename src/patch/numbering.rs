//! Line-number prefixes copied from a numbered file view (`42 | code`,
//! `42: code`, `    42\tcode`): recognised, and stripped only where they
//! run as one numbering through a hunk or a SEARCH/REPLACE section.

/// The numbering of a section whose prefixes were stripped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Numbering {
    /// The first line's number.
    pub first: usize,
    /// The separator after the numbers: `|`, `:` or a tab.
    pub sep: char,
}

/// Splits a line-number prefix: the number, the separator (`|`, `:`, or a
/// tab for `cat -n`) and the rest of the line (one space or tab after the
/// separator dropped).
fn split_numbered(s: &str) -> Option<(usize, char, &str)> {
    let t = s.trim_start_matches([' ', '\t']);
    let rest = t.trim_start_matches(|c: char| c.is_ascii_digit());
    let digits = t.len() - rest.len();
    if digits == 0 || digits > 9 {
        return None;
    }
    let n: usize = t.get(..digits)?.parse().ok()?;
    let after_ws = rest.trim_start_matches([' ', '\t']);
    for sep in ['|', ':'] {
        if let Some(r) = after_ws.strip_prefix(sep) {
            let r = r
                .strip_prefix(' ')
                .or_else(|| r.strip_prefix('\t'))
                .unwrap_or(r);
            return Some((n, sep, r));
        }
    }
    rest.strip_prefix('\t').map(|r| (n, '\t', r))
}

/// Splits a line-number prefix copied from a numbered file view: `42 | code`,
/// `42: code`, `  42 |code`, `42\t| code`, `    42\tcode` (`cat -n`).
/// Returns the number and the rest of the line (one space after the separator dropped).
pub(crate) fn split_line_number(s: &str) -> Option<(usize, &str)> {
    split_numbered(s).map(|(n, _, rest)| (n, rest))
}

/// The gutter of a line copied from a numbered file view: its number and
/// separator (`42 | code` gives `(42, '|')`). A file line with the same
/// gutter as a patch line shows that the file itself holds the number.
pub(crate) fn gutter(s: &str) -> Option<(usize, char)> {
    split_numbered(s).map(|(n, sep, _)| (n, sep))
}

/// Checks that the numbers of the non-empty lines (given with their indexes) are
/// consecutive, counting empty lines in between as possibly numberless.
fn consecutive(numbers: &[(usize, usize)]) -> bool {
    numbers.windows(2).all(|w| match w {
        [(i0, n0), (i1, n1)] => *n1 == n0 + 1 || *n1 == n0 + (i1 - i0),
        _ => true,
    })
}

/// Strips line-number prefixes from a SEARCH section (or a REPLACE section
/// under an empty SEARCH) when every non-empty line carries one with the
/// same separator; with `need_consecutive` the numbers must also be
/// consecutive ascending. Returns the stripped lines and their numbering.
pub(crate) fn strip_numbered_section(
    lines: &[String],
    need_consecutive: bool,
) -> Option<(Vec<String>, Numbering)> {
    let mut out = Vec::with_capacity(lines.len());
    let mut numbers = Vec::new();
    let mut style = None;
    for (i, l) in lines.iter().enumerate() {
        if l.trim().is_empty() {
            out.push(String::new());
            continue;
        }
        let (n, sep, rest) = split_numbered(l)?;
        if *style.get_or_insert(sep) != sep {
            return None;
        }
        numbers.push((i, n));
        out.push(rest.to_string());
    }
    let first = numbers.first()?.1;
    if need_consecutive && !consecutive(&numbers) {
        return None;
    }
    let sep = style?;
    Some((out, Numbering { first, sep }))
}

/// Strips the prefixes of a SEARCH section under `:start_line:` `start`
/// whose first line lost its own (Roo: a numbered `read_file` view copied,
/// the first line's `N | ` dropped): the first line is not blank and
/// carries none, every non-empty line after it carries one with one
/// separator, consecutive, and the numbering continues from `start` (the
/// first line is line `start`). Returns the stripped lines and their
/// numbering (its first number is `start`).
pub(crate) fn strip_numbered_after_first(
    lines: &[String],
    start: usize,
) -> Option<(Vec<String>, Numbering)> {
    let (first, rest) = lines.split_first()?;
    if first.trim().is_empty() || split_numbered(first).is_some() {
        return None;
    }
    let (stripped, numbering) = strip_numbered_section(rest, true)?;
    let at = rest.iter().position(|l| !l.trim().is_empty())?;
    if numbering.first != start.checked_add(1 + at)? {
        return None;
    }
    let out = std::iter::once(first.clone()).chain(stripped).collect();
    Some((
        out,
        Numbering {
            first: start,
            sep: numbering.sep,
        },
    ))
}

/// The text after the residue of Roo's `N | ` gutter left on a line whose
/// number was dropped: `| text` or `   | text` (spaces, a `|`, one space).
fn after_gutter_residue(line: &str) -> Option<&str> {
    let rest = line.trim_start_matches(' ').strip_prefix("| ")?;
    (!rest.trim().is_empty()).then_some(rest)
}

/// Takes off the residue of Roo's `N | ` gutter that the first SEARCH line
/// of a block under `:start_line:` kept once its number was dropped (`| `
/// before the text, spaces before it allowed), when no other SEARCH line
/// carries a gutter (neither `|` first nor a line-number prefix) and every
/// REPLACE line that starts with `|` is that first line unchanged (it is
/// stripped alike). Returns the sections stripped; `None` for any other
/// shape (a `|` written first on another line is content: a Markdown
/// table, a shell pipeline, a Haskell guard).
pub(crate) fn strip_gutter_residue(
    search: &[String],
    replace: &[String],
) -> Option<(Vec<String>, Vec<String>)> {
    let (first, rest) = search.split_first()?;
    let text = after_gutter_residue(first)?;
    let clean = |l: &String| !l.trim_start().starts_with('|') && split_numbered(l).is_none();
    if !rest.iter().all(clean) {
        return None;
    }
    let mut replaced = Vec::with_capacity(replace.len());
    for l in replace {
        if l == first {
            replaced.push(text.to_string());
        } else if l.trim_start().starts_with('|') {
            return None;
        } else {
            replaced.push(l.clone());
        }
    }
    let stripped = std::iter::once(text.to_string())
        .chain(rest.iter().cloned())
        .collect();
    Some((stripped, replaced))
}

/// Strips from the lines of a REPLACE section the prefixes that continue the
/// SEARCH section's `numbering`: same separator, and a number above the last
/// one stripped by at most the lines since it (a new line may carry the
/// number it will have, or none). Other lines are kept whole: `  2: beta`
/// in YAML under a `N | ` view is content.
pub(crate) fn strip_following(lines: &[String], numbering: Numbering) -> Vec<String> {
    let mut last = numbering.first.saturating_sub(1);
    let mut since = 0;
    let mut out = Vec::with_capacity(lines.len());
    for l in lines {
        since += 1;
        match split_numbered(l) {
            Some((n, sep, rest)) if sep == numbering.sep && n > last && n <= last + since => {
                last = n;
                since = 0;
                out.push(rest.to_string());
            }
            _ => out.push(l.clone()),
        }
    }
    out
}

/// Strips line-number prefixes from hunk lines (text after the marker) when
/// every non-empty context and removed line carries one, with one separator,
/// and their numbers are consecutive. An added line loses a prefix only when
/// it is part of the same numbering: same separator, and the number the line
/// takes on the new side or the one after the old line before it. Returns
/// the first old line's number.
pub(crate) fn strip_numbered_hunk(lines: &mut [crate::model::HunkLine]) -> Option<usize> {
    let mut numbers = Vec::new();
    let mut old_index = 0usize;
    let mut style = None;
    for l in lines.iter() {
        if !l.is_old() {
            continue;
        }
        if !l.text.trim().is_empty() {
            let (n, sep, _) = split_numbered(&l.text)?;
            if *style.get_or_insert(sep) != sep {
                return None;
            }
            numbers.push((old_index, n));
        }
        old_index += 1;
    }
    let first = numbers.first()?.1;
    let sep = style?;
    if !consecutive(&numbers) {
        return None;
    }
    // `last`: the old line before; `run`: added lines since it; `new_no`:
    // the number the next line takes on the new side.
    let (mut last, mut run, mut new_no) = (first.saturating_sub(1), 0, first);
    for l in lines.iter_mut() {
        let split = split_numbered(&l.text);
        if l.is_old() {
            last += 1;
            run = 0;
            if let Some((n, _, rest)) = split {
                last = n;
                l.text = rest.into();
            }
        } else {
            run += 1;
            if let Some((n, s, rest)) = split
                && s == sep
                && (n == last + run || n == new_no)
            {
                l.text = rest.into();
            }
        }
        if l.is_new() {
            new_no += 1;
        }
    }
    Some(first)
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use super::*;

    #[test]
    fn added_lines_lose_only_prefixes_of_the_same_numbering() {
        // The new side's number, or the number after the old line before.
        let p =
            parse("--- a/f\n+++ b/f\n@@\n 10 | a\n-11 | b\n+11 | B\n+12 | C\n 12 | d\n").unwrap();
        assert_eq!(show(&p.files[0].hunks[0]), [" a", "-b", "+B", "+C", " d"]);
        // Another separator or a number out of the running: content.
        let p = parse(
            "--- a/f\n+++ b/f\n@@\n 2 | ids:\n 3 |   1: alpha\n+  2: beta\n+7 | x\n 4 | end\n",
        )
        .unwrap();
        assert_eq!(
            show(&p.files[0].hunks[0]),
            [" ids:", "   1: alpha", "+  2: beta", "+7 | x", " end"]
        );
        // Old lines of mixed separators are no numbering.
        let p = parse("--- a/f\n+++ b/f\n@@\n 1 | a\n-2: b\n+c\n").unwrap();
        assert_eq!(show(&p.files[0].hunks[0]), [" 1 | a", "-2: b", "+c"]);
    }

    #[test]
    fn first_search_line_without_its_number() {
        let lines = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let search = lines(&["*   a", " 6 |     1.  b", "", " 8 |     3.  c"]);
        let (out, numbering) = strip_numbered_after_first(&search, 5).unwrap();
        assert_eq!(out, ["*   a", "    1.  b", "", "    3.  c"]);
        assert_eq!((numbering.first, numbering.sep), (5, '|'));
        // Not continuing `:start_line:`, or the first line numbered: no.
        assert!(strip_numbered_after_first(&search, 8).is_none());
        let numbered = lines(&["5 | a", "6 | b"]);
        assert!(strip_numbered_after_first(&numbered, 4).is_none());
    }

    #[test]
    fn gutter_residue_on_the_first_search_line() {
        let lines = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let search = lines(&["  | def f():", "    x = 1", ""]);
        let (s, r) = strip_gutter_residue(&search, &lines(&["  | def f():", "    x = 2"])).unwrap();
        assert_eq!(s, ["def f():", "    x = 1", ""]);
        assert_eq!(r, ["def f():", "    x = 2"]);
        let clean = lines(&["def g():", "    x = 2"]);
        assert!(strip_gutter_residue(&search, &clean).is_some());
        // Another line with a `|` first, in either section, or numbered: no.
        let piped = lines(&["| a", "| b"]);
        assert!(strip_gutter_residue(&piped, &clean).is_none());
        let numbered = lines(&["| a", "5 | b"]);
        assert!(strip_gutter_residue(&numbered, &clean).is_none());
        let changed = lines(&["| def f(y):", "    x = 2"]);
        assert!(strip_gutter_residue(&search, &changed).is_none());
        // `|x`, a blank after the residue, or nothing first: no.
        for first in ["|def f():", "| ", "def f():"] {
            assert!(strip_gutter_residue(&lines(&[first, "b"]), &clean).is_none());
        }
    }

    #[test]
    fn replace_lines_follow_the_search_numbering() {
        let numbering = Numbering {
            first: 10,
            sep: '|',
        };
        let lines: Vec<String> = [
            "10 | a",
            "    new",
            "11 | b",
            "  2: beta",
            "13 | c",
            "9 | z",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            strip_following(&lines, numbering),
            ["a", "    new", "b", "  2: beta", "c", "9 | z"]
        );
    }
}
