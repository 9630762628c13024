//! SEARCH/REPLACE blocks (Aider, Roo-Code) and the Roo `<apply_diff>` XML envelope.
//!
//! A block is `<<<<<<< SEARCH`, optional `:start_line:N`, optional `-------`,
//! search lines, `=======`, replace lines, `>>>>>>> REPLACE`. Each block becomes
//! one hunk: a line diff of the search lines against the replace lines.

use super::cleanup::{Src, strip_numbered_section};
use crate::error::ParseError;
use crate::model::{FileOp, FilePatch, Hunk, HunkLine, LineKind, PatchFormat};
use similar::{Algorithm, DiffOp, capture_diff_slices};

fn malformed(line: usize, message: impl Into<String>) -> ParseError {
    ParseError::Malformed {
        line,
        message: message.into(),
    }
}

/// `count` (5 to 9) copies of `c` at the start of `t`, and the rest.
fn run_of(t: &str, c: char) -> Option<&str> {
    let rest = t.trim_start_matches(c);
    let n = t.len() - rest.len();
    (5..=9).contains(&n).then_some(rest)
}

/// True for `<<<<<<< SEARCH` (5–9 `<`, optional space, optional trailing `>`).
pub(crate) fn is_search(line: &str) -> bool {
    run_of(line.trim(), '<').is_some_and(|r| {
        let w = r.trim_start().trim_end_matches('>').trim_end();
        w.eq_ignore_ascii_case("search")
    })
}

/// True for `=======` (5–9 `=`).
pub(crate) fn is_divider(line: &str) -> bool {
    run_of(line.trim(), '=').is_some_and(str::is_empty)
}

/// True for `>>>>>>> REPLACE` (5–9 `>`).
pub(crate) fn is_replace(line: &str) -> bool {
    run_of(line.trim(), '>').is_some_and(|r| r.trim().eq_ignore_ascii_case("replace"))
}

/// `-------` (5–9 `-`) right after the SEARCH marker (Roo).
fn is_dashes(line: &str) -> bool {
    run_of(line.trim(), '-').is_some_and(str::is_empty)
}

/// Unescapes `\<<<<<<<`, `\=======`, `\>>>>>>>`, `\-------`, `\:start_line:`.
fn unescape(line: &str) -> String {
    let t = line.trim_start();
    let indent = line.get(..line.len() - t.len()).unwrap_or("");
    if let Some(rest) = t.strip_prefix('\\')
        && [
            "<<<<<",
            "=====",
            ">>>>>",
            "-----",
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
    /// Index of the SEARCH marker line.
    pub open: usize,
}

/// Parses the block whose `<<<<<<< SEARCH` is at line `i`; returns it and the
/// index after `>>>>>>> REPLACE`.
pub(crate) fn parse_block(src: &Src, i: usize) -> Result<(Block, usize), ParseError> {
    let opened = src.orig(i);
    let mut j = i + 1;
    let mut start_line = None;
    if let Some(l) = src.line(j)
        && let Some(v) = l.trim().strip_prefix(":start_line:")
    {
        let n = v.trim().parse::<usize>().map_err(|_| {
            malformed(
                src.orig(j),
                format!("bad `:start_line:` value `{}`", v.trim()),
            )
        })?;
        start_line = Some(n);
        j += 1;
        if src
            .line(j)
            .is_some_and(|l| l.trim().starts_with(":end_line:"))
        {
            j += 1;
        }
    }
    if src.line(j).is_some_and(is_dashes) {
        j += 1;
    }
    let mut search = Vec::new();
    loop {
        let Some(l) = src.line(j) else {
            return Err(malformed(
                opened,
                format!("block opened at line {opened} has no `=======`"),
            ));
        };
        if is_divider(l) {
            break;
        }
        if is_search(l) || is_replace(l) {
            return Err(malformed(
                src.orig(j),
                format!(
                    "found `{}` at line {}, expected `=======` (block opened at line {opened})",
                    l.trim(),
                    src.orig(j)
                ),
            ));
        }
        search.push(unescape(l));
        j += 1;
    }
    j += 1;
    let mut replace = Vec::new();
    loop {
        let Some(l) = src.line(j) else {
            return Err(malformed(
                opened,
                format!("block opened at line {opened} has no `>>>>>>> REPLACE`"),
            ));
        };
        if is_replace(l) {
            break;
        }
        if is_search(l) || is_divider(l) {
            return Err(malformed(
                src.orig(j),
                format!(
                    "found `{}` at line {}, expected `>>>>>>> REPLACE` (block opened at line {opened})",
                    l.trim(),
                    src.orig(j)
                ),
            ));
        }
        if l.trim().starts_with(":start_line:") {
            return Err(malformed(
                src.orig(j),
                "`:start_line:` inside the REPLACE section: it belongs right after `<<<<<<< SEARCH`",
            ));
        }
        replace.push(unescape(l));
        j += 1;
    }
    Ok((
        Block {
            search,
            replace,
            start_line,
            open: i,
        },
        j + 1,
    ))
}

/// Turns a block into one hunk (line diff of search vs replace). Returns the
/// hunk and whether the search section was empty (create or append).
pub(crate) fn block_hunk(
    src: &Src,
    block: Block,
    default_hint: Option<usize>,
) -> Result<(Hunk, bool), ParseError> {
    let at = src.orig(block.open);
    let mut search = block.search;
    let mut replace = block.replace;
    let mut hint = block.start_line;
    if let Some((s, n)) = strip_numbered_section(&search, true) {
        search = s;
        hint = hint.or(Some(n));
        if let Some((r, _)) = strip_numbered_section(&replace, false) {
            replace = r;
        }
    } else if search.iter().all(|l| l.trim().is_empty())
        && let Some((r, _)) = strip_numbered_section(&replace, true)
    {
        replace = r;
    }
    let empty_search = search.iter().all(|l| l.trim().is_empty());
    if empty_search && replace.is_empty() {
        return Err(malformed(at, "SEARCH and REPLACE sections are both empty"));
    }
    let mut hunk = Hunk {
        patch_line: at,
        line_hint: hint.or(default_hint),
        ..Hunk::default()
    };
    if empty_search {
        hunk.lines = replace
            .into_iter()
            .map(|t| HunkLine::new(LineKind::Add, t))
            .collect();
        return Ok((hunk, true));
    }
    let old: Vec<&str> = search.iter().map(String::as_str).collect();
    let new: Vec<&str> = replace.iter().map(String::as_str).collect();
    for op in capture_diff_slices(Algorithm::Myers, &old, &new) {
        let (o, n) = match op {
            DiffOp::Equal { old_index, len, .. } => {
                let lines = old.get(old_index..old_index + len).unwrap_or(&[]);
                hunk.lines
                    .extend(lines.iter().map(|t| HunkLine::new(LineKind::Context, *t)));
                continue;
            }
            DiffOp::Delete {
                old_index, old_len, ..
            } => (old_index..old_index + old_len, 0..0),
            DiffOp::Insert {
                new_index, new_len, ..
            } => (0..0, new_index..new_index + new_len),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => (
                old_index..old_index + old_len,
                new_index..new_index + new_len,
            ),
        };
        let removed = old.get(o).unwrap_or(&[]);
        hunk.lines
            .extend(removed.iter().map(|t| HunkLine::new(LineKind::Remove, *t)));
        let added = new.get(n).unwrap_or(&[]);
        hunk.lines
            .extend(added.iter().map(|t| HunkLine::new(LineKind::Add, *t)));
    }
    Ok((hunk, false))
}

/// Adds a block's hunk for `path` to `files`, merging into the last file patch
/// when it is the same path's SEARCH/REPLACE edits.
pub(crate) fn push_hunk(
    files: &mut Vec<FilePatch>,
    path: String,
    hunk: Hunk,
    create: bool,
    merge: bool,
) {
    if merge
        && let Some(last) = files.last_mut()
        && last.format == PatchFormat::SearchReplace
        && last.path == path
    {
        last.create_if_missing |= create;
        last.hunks.push(hunk);
        return;
    }
    let mut fp = FilePatch::new(
        path,
        FileOp::Update,
        PatchFormat::SearchReplace,
        hunk.patch_line,
    );
    fp.create_if_missing = create;
    fp.hunks.push(hunk);
    files.push(fp);
}

/// True when line `i` opens a Roo `<apply_diff>` envelope.
pub(crate) fn is_apply_diff(line: &str) -> bool {
    line.trim_start().starts_with("<apply_diff>")
}

/// Finds `<name>…</name>` in `text[from..to]`; returns the inner range and the
/// index after the closing tag. A `<![CDATA[ … ]]>` inner is skipped whole, so a
/// closing tag inside it does not end the element.
fn element(text: &str, from: usize, to: usize, name: &str) -> Option<(usize, usize, usize)> {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let hay = text.get(from..to)?;
    let inner_start = from + hay.find(&open)? + open.len();
    let rest = text.get(inner_start..to)?;
    let mut search_from = inner_start;
    let lead = rest.len() - rest.trim_start().len();
    if rest.trim_start().starts_with("<![CDATA[") {
        let cdata_end = rest.find("]]>")?;
        search_from = inner_start + cdata_end.max(lead) + 3;
    }
    let inner_end = search_from + text.get(search_from..to)?.find(&close)?;
    Some((inner_start, inner_end, inner_end + close.len()))
}

/// Strips a `<![CDATA[ … ]]>` wrapper, returning the byte range of the content.
/// XML entities (`&lt;`, `&amp;`) are deliberately NOT decoded: models write code
/// verbatim inside these tags, and decoding would damage code that contains them.
fn unwrap_cdata(text: &str, start: usize, end: usize) -> (usize, usize) {
    let Some(inner) = text.get(start..end) else {
        return (start, end);
    };
    let t = inner.trim();
    if let (Some(_), Some(_)) = (t.strip_prefix("<![CDATA["), t.strip_suffix("]]>")) {
        let s = start + inner.find("<![CDATA[").unwrap_or(0) + 9;
        let e = start + inner.rfind("]]>").unwrap_or(inner.len());
        if s <= e {
            return (s, e);
        }
    }
    (start, end)
}

/// The lines of `text[start..end]` as a [`Src`] mapped to original patch lines
/// (`text` is `src` joined from line `first`). The rest of the opening tag's line
/// and the closing tag's line are dropped when blank.
fn sub_src(src: &Src, first: usize, text: &str, start: usize, end: usize) -> Src {
    let mut out = Src::default();
    let Some(inner) = text.get(start..end) else {
        return out;
    };
    let base = text.get(..start).map_or(0, |t| t.matches('\n').count());
    let parts: Vec<&str> = inner.split('\n').collect();
    let count = parts.len();
    for (k, l) in parts.into_iter().enumerate() {
        if (k == 0 || k + 1 == count) && l.trim().is_empty() {
            continue;
        }
        out.lines.push(l.to_string());
        out.map.push(src.orig(first + base + k));
    }
    out
}

/// Parses a Roo `<apply_diff>` envelope starting at line `i` (multi-file `<args>`
/// form or the older `<path>` + `<diff>` form); returns the index after it.
pub(crate) fn parse_apply_diff(
    src: &Src,
    i: usize,
    target: Option<&str>,
    files: &mut Vec<FilePatch>,
) -> Result<usize, ParseError> {
    let at = src.orig(i);
    let end = (i..src.len())
        .find(|&k| src.line(k).is_some_and(|l| l.contains("</apply_diff>")))
        .ok_or_else(|| malformed(at, "`<apply_diff>` has no `</apply_diff>`"))?;
    let text = src.lines.get(i..=end).unwrap_or(&[]).join("\n");
    let len = text.len();
    let line_at = |off: usize| src.orig(i + text.get(..off).map_or(0, |t| t.matches('\n').count()));
    let path_of = |from: usize, to: usize| -> Result<String, ParseError> {
        match element(&text, from, to, "path") {
            Some((s, e, _)) => {
                let (s, e) = unwrap_cdata(&text, s, e);
                let p = super::paths::clean(text.get(s..e).unwrap_or(""));
                if p.is_empty() {
                    Err(malformed(line_at(s), "empty `<path>`"))
                } else {
                    Ok(p)
                }
            }
            None => target.map(str::to_string).ok_or(ParseError::NoTargetPath {
                line: line_at(from),
            }),
        }
    };
    let hint_of = |from: usize, to: usize| -> Result<Option<usize>, ParseError> {
        match element(&text, from, to, "start_line") {
            Some((s, e, _)) => {
                let v = text.get(s..e).unwrap_or("").trim();
                v.parse()
                    .map(Some)
                    .map_err(|_| malformed(line_at(s), format!("bad `<start_line>` value `{v}`")))
            }
            None => Ok(None),
        }
    };
    if text.contains("<file>") {
        let mut pos = 0;
        while let Some((fs, fe, after)) = element(&text, pos, len, "file") {
            let path = path_of(fs, fe)?;
            let mut dpos = fs;
            let mut any = false;
            while let Some((ds, de, dafter)) = element(&text, dpos, fe, "diff") {
                let (cs, ce) = match element(&text, ds, de, "content") {
                    Some((cs, ce, _)) => unwrap_cdata(&text, cs, ce),
                    None => unwrap_cdata(&text, ds, de),
                };
                let hint = hint_of(ds, de)?;
                blocks_in(
                    &sub_src(src, i, &text, cs, ce),
                    &path,
                    hint,
                    line_at(ds),
                    files,
                )?;
                any = true;
                dpos = dafter;
            }
            if !any {
                return Err(malformed(
                    line_at(fs),
                    format!("`<file>` for `{path}` holds no `<diff>`"),
                ));
            }
            pos = after;
        }
    } else {
        let path = path_of(0, len)?;
        let (ds, de, _) = element(&text, 0, len, "diff")
            .ok_or_else(|| malformed(at, "`<apply_diff>` holds no `<diff>`"))?;
        let (cs, ce) = unwrap_cdata(&text, ds, de);
        let hint = hint_of(0, len)?;
        blocks_in(
            &sub_src(src, i, &text, cs, ce),
            &path,
            hint,
            line_at(ds),
            files,
        )?;
    }
    Ok(end + 1)
}

/// Reads every SEARCH/REPLACE block of one `<diff>` into `files` for `path`.
fn blocks_in(
    sub: &Src,
    path: &str,
    hint: Option<usize>,
    at: usize,
    files: &mut Vec<FilePatch>,
) -> Result<(), ParseError> {
    let mut j = 0;
    let mut any = false;
    while let Some(l) = sub.line(j) {
        if is_search(l) {
            let (block, next) = parse_block(sub, j)?;
            let (hunk, create) = block_hunk(sub, block, hint)?;
            push_hunk(files, path.to_string(), hunk, create, true);
            any = true;
            j = next;
        } else if is_replace(l) || is_divider(l) {
            return Err(malformed(
                sub.orig(j),
                format!("found `{}` before `<<<<<<< SEARCH`", l.trim()),
            ));
        } else {
            j += 1;
        }
    }
    if !any {
        return Err(malformed(at, "`<diff>` holds no `<<<<<<< SEARCH` block"));
    }
    Ok(())
}
