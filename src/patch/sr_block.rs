//! The grammar of one SEARCH/REPLACE block: its markers, where each may
//! stand, and the two sections they delimit.

use super::cleanup::Src;
use super::malformed;
use crate::error::ParseError;

/// `count` (5 to 9) copies of `c` at the start of `t`, and the rest.
fn run_of(t: &str, c: char) -> Option<&str> {
    let rest = t.trim_start_matches(c);
    let n = t.len() - rest.len();
    (5..=9).contains(&n).then_some(rest)
}

/// The marker word after a run of 5–9 `c` (optional space before it,
/// optional trailing `>` and whitespace after it).
fn marker_word(t: &str, c: char) -> Option<&str> {
    run_of(t, c).map(|r| r.trim_start().trim_end_matches('>').trim_end())
}

/// True for `<<<<<<< SEARCH` (Aider, Roo), Cline's `------- SEARCH`, or
/// Aider's retired `<<<<<<< ORIGINAL` (2023; upper case only, as Aider wrote
/// it): 5–9 `<` or `-`, optional space, optional trailing `>`.
pub(crate) fn is_search(line: &str) -> bool {
    let t = line.trim();
    ['<', '-']
        .into_iter()
        .any(|c| marker_word(t, c).is_some_and(|w| w.eq_ignore_ascii_case("search")))
        || marker_word(t, '<') == Some("ORIGINAL")
}

/// True for Aider's retired opening marker `<<<<<<< ORIGINAL`.
fn is_original(line: &str) -> bool {
    marker_word(line.trim(), '<') == Some("ORIGINAL")
}

/// True for `=======` (5–9 `=`).
pub(crate) fn is_divider(line: &str) -> bool {
    run_of(line.trim(), '=').is_some_and(str::is_empty)
}

/// True for `>>>>>>> REPLACE`, Cline's `+++++++ REPLACE` (5–9 `>` or
/// `+`, optional trailing `>`), or Aider's retired `>>>>>>> UPDATED` (upper
/// case only).
pub(crate) fn is_replace(line: &str) -> bool {
    let t = line.trim();
    ['>', '+']
        .into_iter()
        .any(|c| marker_word(t, c).is_some_and(|w| w.eq_ignore_ascii_case("replace")))
        || marker_word(t, '>') == Some("UPDATED")
}

/// `-------` (5–9 `-`) right after the SEARCH marker (Roo).
fn is_dashes(line: &str) -> bool {
    run_of(line.trim(), '-').is_some_and(str::is_empty)
}

/// Unescapes `\<<<<<<<`, `\=======`, `\>>>>>>>`, `\-------`, `\+++++++`,
/// `\:start_line:`.
fn unescape(line: &str) -> String {
    let t = line.trim_start();
    let indent = line.get(..line.len() - t.len()).unwrap_or("");
    if let Some(rest) = t.strip_prefix('\\')
        && [
            "<<<<<",
            "=====",
            ">>>>>",
            "-----",
            "+++++",
            ":start_line:",
            ":end_line:",
        ]
        .iter()
        .any(|m| rest.starts_with(m))
    {
        return format!("{indent}{rest}");
    }
    line.to_string()
}

/// One parsed block.
#[derive(Debug)]
pub(crate) struct Block {
    /// Search section lines (unescaped).
    pub search: Vec<String>,
    /// Replace section lines (unescaped).
    pub replace: Vec<String>,
    /// `:start_line:N`.
    pub start_line: Option<usize>,
    /// `:end_line:M` (read only right after a `:start_line:`).
    pub end_line: Option<usize>,
    /// The patch line of a second `=======` passed over right before
    /// `>>>>>>> REPLACE` (see [`stray_divider_habit`]).
    pub stray_divider: Option<usize>,
    /// The `:start_line:`/`:end_line:` lines when no `-------` follows them:
    /// they may also be the first lines of the content (see
    /// [`Block::content_reading`]).
    pub unseparated: Vec<String>,
    /// Index of the SEARCH marker line.
    pub open: usize,
    /// Index of the first SEARCH line and of the first REPLACE line.
    pub at: (usize, usize),
}

/// The marker part of `line` when it is indented no deeper than the block's
/// `<<<<<<< SEARCH` (`indent` is the whitespace before it): markers stand at
/// the block's edge, so an indented `    ========` in a docstring is content
/// (Aider strips the line first and would take it for its divider).
fn at_indent<'a>(line: &'a str, indent: &str) -> Option<&'a str> {
    let t = line.trim_start();
    (line.len() - t.len() <= indent.len()).then_some(t)
}

/// The numbers of a block's `:start_line:N` and `:end_line:M`.
type LineMarkers = (Option<usize>, Option<usize>);

/// Reads `:start_line:N` and an optional `:end_line:M` right after the
/// SEARCH marker; returns the numbers and the index after them. An
/// `:end_line:` whose value is not a number is skipped as Roo's parser
/// skips it: it is only ever a second reading of the start.
fn line_markers(src: &Src, mut j: usize) -> Result<(LineMarkers, usize), ParseError> {
    let Some(v) = src
        .line(j)
        .and_then(|l| l.trim().strip_prefix(":start_line:"))
    else {
        return Ok(((None, None), j));
    };
    let n = v.trim().parse::<usize>().map_err(|_| {
        malformed(
            src.orig(j),
            format!("bad `:start_line:` value `{}`", v.trim()),
        )
    })?;
    j += 1;
    let mut end = None;
    if let Some(v) = src
        .line(j)
        .and_then(|l| l.trim().strip_prefix(":end_line:"))
    {
        end = v.trim().parse::<usize>().ok();
        j += 1;
    }
    Ok(((Some(n), end), j))
}

/// Reads section lines from `j` until a line for which `stop` holds (at the
/// block's indentation); other markers may not stand there. `divider` is the
/// index of the `=======` when reading the REPLACE section. Returns the
/// lines and the index of the stopping line. With `strays` (the reply's
/// habit, [`stray_divider_habit`]), a second `=======` right before the
/// stopping line of REPLACE is passed over; its index is returned too.
fn section(
    src: &Src,
    mut j: usize,
    edge: (&str, usize),
    stop: fn(&str) -> bool,
    divider: Option<(usize, &str)>,
    strays: bool,
) -> Result<(Vec<String>, usize, Option<usize>), ParseError> {
    let (indent, opened) = edge;
    let expected = divider.map_or("=======", |(_, closer)| closer);
    let divider = divider.map(|(at, _)| at);
    let mut lines = Vec::new();
    loop {
        let Some(l) = src.line(j) else {
            return Err(malformed(
                opened,
                format!("block opened at line {opened} has no `{expected}`"),
            ));
        };
        let marker = at_indent(l, indent);
        if marker.is_some_and(stop) {
            return Ok((lines, j, None));
        }
        let stray = strays
            && divider.is_some()
            && marker.is_some_and(is_divider)
            && src
                .line(j + 1)
                .and_then(|next| at_indent(next, indent))
                .is_some_and(stop);
        if stray {
            return Ok((lines, j + 1, Some(j)));
        }
        if marker.is_some_and(|m| is_search(m) || is_replace(m) || is_divider(m)) {
            let hint = match divider {
                Some(first) if marker.is_some_and(is_divider) => format!(
                    "; the `=======` at line {} ended SEARCH: if it is content, write it as `\\=======`",
                    src.orig(first)
                ),
                _ => String::new(),
            };
            return Err(malformed(
                src.orig(j),
                format!(
                    "found `{}`, expected `{expected}` (block opened at line {opened}){hint}",
                    l.trim()
                ),
            ));
        }
        if divider.is_some() {
            let t = l.trim();
            if t.starts_with(":start_line:") || t.starts_with(":end_line:") {
                return Err(malformed(
                    src.orig(j),
                    format!(
                        "`{}` inside the REPLACE section: line markers belong right after `<<<<<<< SEARCH` (write `\\{}` for content)",
                        t, t
                    ),
                ));
            }
        }
        lines.push(unescape(l));
        j += 1;
    }
}

/// Parses the block whose `<<<<<<< SEARCH` is at line `i`; returns it and the
/// index after `>>>>>>> REPLACE`.
///
/// Grammar (markers at the SEARCH line's indentation): `<<<<<<< SEARCH`,
/// then `:start_line:N` and `:end_line:M` only right after it, then Roo's
/// `-------` only right after those, search lines, `=======`, replace lines,
/// `>>>>>>> REPLACE`. Without `:start_line:`, a first search line of dashes
/// that the REPLACE section also starts with is content (a ruler kept).
pub(crate) fn parse_block(src: &Src, i: usize, strays: bool) -> Result<(Block, usize), ParseError> {
    let opened = src.orig(i);
    let open_line = src.line(i).unwrap_or("");
    let indent = open_line
        .get(..open_line.len() - open_line.trim_start().len())
        .unwrap_or("");
    // Cline's `------- SEARCH` is named in its own messages as closed by
    // `+++++++ REPLACE`; either closer ends either block.
    let closer = if open_line.trim_start().starts_with('-') {
        "+++++++ REPLACE"
    } else if is_original(open_line) {
        ">>>>>>> UPDATED"
    } else {
        ">>>>>>> REPLACE"
    };
    let ((start_line, end_line), j) = line_markers(src, i + 1)?;
    let (mut search, div, _) = section(src, j, (indent, opened), is_divider, None, false)?;
    let (replace, end, stray) = section(
        src,
        div + 1,
        (indent, opened),
        is_replace,
        Some((div, closer)),
        strays,
    )?;
    let dashes = src
        .line(j)
        .and_then(|l| at_indent(l, indent))
        .is_some_and(is_dashes)
        && j < div;
    let ruler_kept = start_line.is_none() && replace.first().map(String::as_str) == src.line(j);
    let mut search_at = j;
    if dashes && !ruler_kept {
        search.remove(0);
        search_at += 1;
    }
    let unseparated = if start_line.is_some() && !dashes {
        (i + 1..j)
            .filter_map(|k| src.line(k).map(str::to_string))
            .collect()
    } else {
        Vec::new()
    };
    Ok((
        Block {
            search,
            replace,
            start_line,
            end_line,
            stray_divider: stray.map(|k| src.orig(k)),
            unseparated,
            open: i,
            at: (search_at, div + 1),
        },
        end + 1,
    ))
}

/// A block whose `<<<<<<< SEARCH` line is missing: the fence opened at
/// line `opener` holds SEARCH lines, the `=======` at line `div`, REPLACE
/// lines and `>>>>>>> REPLACE`, and nothing else. Read only when that
/// reading is the only one: every line between the fence and the
/// `=======` is content (no marker of any indentation, no fence line) and
/// one of them is not blank, the REPLACE section reads by the grammar (its
/// markers at the `=======`'s indentation), and the fence closes right
/// after it (or the text ends). Returns the block (its SEARCH marker
/// counted at the fence line) and the index after `>>>>>>> REPLACE`.
pub(crate) fn parse_openerless(
    src: &Src,
    opener: usize,
    div: usize,
    fence: super::fence::Fence,
) -> Option<(Block, usize)> {
    let divider = src.line(div)?;
    let indent = divider.get(..divider.len() - divider.trim_start().len())?;
    let search: Vec<&str> = (opener + 1..div)
        .map(|k| src.line(k))
        .collect::<Option<_>>()?;
    let content = |l: &&str| {
        let t = l.trim();
        !(is_search(t) || is_replace(t) || is_divider(t) || super::fence::is_any_fence(l))
    };
    if !search.iter().all(content) || search.iter().all(|l| l.trim().is_empty()) {
        return None;
    }
    let edge = (indent, src.orig(div));
    let (replace, end, _) = section(
        src,
        div + 1,
        edge,
        is_replace,
        Some((div, ">>>>>>> REPLACE")),
        false,
    )
    .ok()?;
    if let Some(k) = src.next_non_empty(end + 1)
        && !src.line(k).is_some_and(|l| super::fence::closes(fence, l))
    {
        return None;
    }
    let block = Block {
        search: search.into_iter().map(unescape).collect(),
        replace,
        start_line: None,
        end_line: None,
        stray_divider: None,
        unseparated: Vec::new(),
        open: opener,
        at: (opener + 1, div + 1),
    };
    Some((block, end + 1))
}

impl Block {
    /// The SEARCH lines when `:start_line:` lines without a following
    /// `-------` are read as content; `None` when there are none. Roo always
    /// writes the `-------`: without it the file decides (the lines as
    /// content are tried first, as for line-number prefixes).
    pub(crate) fn content_reading(&self) -> Option<Vec<String>> {
        (!self.unseparated.is_empty()).then(|| {
            self.unseparated
                .iter()
                .chain(&self.search)
                .cloned()
                .collect()
        })
    }
}

/// True when every SEARCH/REPLACE block of `src` (two at least) has a
/// second `=======` right before its `>>>>>>> REPLACE`: a habit of some
/// models (seen in every block of real Claude Sonnet 4.5 replies), which
/// Aider reads as the end of REPLACE. Where the reply holds it in every
/// block, that line is the habit, not content (content must be written
/// `\=======`; `docs/formats.md`); a single block, or a reply that writes
/// it in some blocks only, stays refused.
pub(crate) fn stray_divider_habit(src: &Src) -> bool {
    let (mut blocks, mut strays) = (0usize, 0usize);
    let mut dividers: Option<usize> = None;
    let mut after_divider = false;
    let mut j = 0;
    while let Some(l) = src.line(j) {
        j += 1;
        if is_search(l) {
            dividers = Some(0);
            after_divider = false;
            continue;
        }
        let Some(count) = dividers.as_mut() else {
            continue;
        };
        if is_divider(l) {
            *count += 1;
            after_divider = true;
            continue;
        }
        if is_replace(l) {
            blocks += 1;
            strays += usize::from(*count == 2 && after_divider);
            dividers = None;
        }
        after_divider = false;
    }
    blocks >= 2 && strays == blocks
}
