//! Scans a whole model reply, finds the edit regions of every format (prose,
//! Markdown fences and other text are skipped) and hands each to its parser.

use super::cleanup::Src;
use super::{ParseOptions, bare, codex, fence, paths, roo, search_replace as sr, unified};
use crate::error::ParseError;
use crate::model::{BareName, FilePatch, PatchFormat};

/// The previous SEARCH/REPLACE block, for path reuse.
struct LastBlock {
    path: String,
    /// Index after its `>>>>>>> REPLACE`.
    end: usize,
    /// The fence it was in, if any.
    fence: Option<usize>,
    /// The bare word that named its file, if that is how it was named.
    bare: Option<BareName>,
}

/// Scans `src` and appends every edit found to `files`.
// Longer than most: one branch per notation, each a few lines handing over
// to its parser; the scan's state (the open fence, the last block, the
// tool calls seen) is shared by the branches, so it reads best as one loop.
pub(crate) fn scan(
    src: &Src,
    ctx: &ParseOptions,
    files: &mut Vec<FilePatch>,
) -> Result<(), ParseError> {
    let codex_on = ctx.format.is_none_or(|f| f == PatchFormat::CodexEnvelope);
    let sr_on = ctx.format.is_none_or(|f| f == PatchFormat::SearchReplace);
    let diff_on = ctx
        .format
        .is_none_or(|f| matches!(f, PatchFormat::UnifiedDiff | PatchFormat::NumberlessDiff));
    let mut i = 0;
    let mut fence_count = 0usize;
    // The fence the scan stands in (CommonMark: a ```` ```` ```` fence is
    // closed by four backticks or more, not by a ``` line inside it).
    let mut open_fence: Option<(fence::Fence, usize)> = None;
    let mut last: Option<LastBlock> = None;
    let mut stray_scan = None;
    let mut calls = None;
    let strays = sr_on && sr::stray_divider_habit(src);
    while let Some(l) = src.line(i) {
        if codex_on && codex::is_begin(l) {
            let (found, next) = codex::parse(src, i)?;
            files.extend(found);
            i = next;
        } else if codex_on && codex::is_section(l) {
            let (found, next) = codex::parse_bare(src, i)?;
            files.extend(found);
            i = next;
        } else if sr_on && roo::is_tool_call(l) {
            i = roo::parse_tool_call(src, i, ctx.target.as_deref(), files)?;
        } else if sr_on && sr::is_search(l) {
            let (block, next) = sr::parse_block(src, i, strays)?;
            let fence = open_fence.is_some().then_some(fence_count);
            let (near, after_prose) = previous_file(src, i, fence, last.as_ref());
            let (path, bare) = match paths::path_before(src, i)? {
                Some(p) => (p, None),
                None => {
                    let in_fence = open_fence.is_some();
                    match block_file(src, (i, in_fence), ctx, (near, after_prose), last.as_ref()) {
                        Err(ParseError::NoTargetPath { .. })
                            if roo::sent_again_in_a_call(src, i..next, &mut calls) =>
                        {
                            // A preview of a block the reply sends in a tool call.
                            i = next;
                            continue;
                        }
                        found => found?,
                    }
                }
            };
            let (hunk, create) = sr::block_hunk(src, block, None)?;
            sr::push_hunk(files, path.clone(), hunk, create, bare.clone());
            last = Some(LastBlock {
                path,
                end: next,
                fence,
                bare,
            });
            i = next;
        } else if sr_on && sr::is_replace(l) {
            return Err(ParseError::Malformed {
                line: src.orig(i),
                message: format!("found `{}` without an opening `<<<<<<< SEARCH`", l.trim()),
            });
        } else if sr_on && sr::is_divider(l) && divider_is_stray(src, i, &mut stray_scan) {
            let Some((path, next)) = openerless_block(src, i, open_fence, ctx, files)? else {
                return Err(missing_opener(src, i));
            };
            last = Some(LastBlock {
                path,
                end: next,
                fence: Some(fence_count),
                bare: None,
            });
            i = next;
        } else if diff_on && unified::starts_at(src, i) {
            let (fp, next) = unified::parse_file(src, (i, open_fence.is_some()), ctx)?;
            files.push(fp);
            i = next.max(i + 1);
        } else {
            track_fence(&mut open_fence, &mut fence_count, l, i);
            i += 1;
        }
    }
    Ok(())
}

/// Follows the fence the scan stands in over line `i` (`l`), which no
/// parser took: a line that closes the open fence leaves it; outside any
/// fence, an opening line enters one, and `count` counts it.
fn track_fence(open: &mut Option<(fence::Fence, usize)>, count: &mut usize, l: &str, i: usize) {
    match *open {
        Some((f, _)) if fence::closes(f, l) => *open = None,
        Some(_) => {}
        None => {
            if let Some(o) = fence::opening(l) {
                *open = Some((o.fence, i));
                *count += 1;
            }
        }
    }
}

/// The error for a `=======` at line `i` with no `<<<<<<< SEARCH` before
/// it, naming the missing marker.
fn missing_opener(src: &Src, i: usize) -> ParseError {
    ParseError::Malformed {
        line: src.orig(i),
        message: format!(
            "found `{}` before `<<<<<<< SEARCH`: the block's opening `<<<<<<< SEARCH` line is missing; write it on the line before the block's SEARCH text",
            src.line(i).unwrap_or("").trim()
        ),
    }
}

/// The previous block's file for a block at line `i` (in fence number
/// `fence`, if any): next to it (blank and fence lines between) or in the
/// same fence, taken before `--target` (the first); after prose that
/// names no file, after `--target` (the second); after prose that names
/// another file, neither.
fn previous_file(
    src: &Src,
    i: usize,
    fence: Option<usize>,
    last: Option<&LastBlock>,
) -> (Option<String>, Option<String>) {
    let Some(b) = last else {
        return (None, None);
    };
    let mut between = (b.end..i).filter_map(|k| src.line(k));
    let adjacent = between
        .clone()
        .all(|t| t.trim().is_empty() || fence::is_any_fence(t));
    let near = adjacent || (fence.is_some() && b.fence == fence);
    let path = Some(b.path.clone());
    let other = between.any(|t| names_another_file(t, &b.path));
    match (near, other) {
        (true, _) => (path, None),
        (false, false) => (None, path),
        (false, true) => (None, None),
    }
}

/// A block whose `<<<<<<< SEARCH` line is missing, its `=======` at line
/// `i`: read as the fence it stands in up to the `=======` for SEARCH
/// ([`sr::parse_openerless`]) when it stands in a fence that holds nothing
/// else (no other edit starts between the fence and the `=======`) and its
/// file is named before the fence or by `--target`. Returns the file and
/// the index after the block; `None` when that reading does not hold.
fn openerless_block(
    src: &Src,
    i: usize,
    open_fence: Option<(fence::Fence, usize)>,
    ctx: &ParseOptions,
    files: &mut Vec<FilePatch>,
) -> Result<Option<(String, usize)>, ParseError> {
    let Some((f, opener)) = open_fence else {
        return Ok(None);
    };
    let other_edit = (opener + 1..i).any(|k| {
        src.line(k).is_some_and(|l| {
            codex::is_begin(l)
                || codex::is_section(l)
                || roo::is_tool_call(l)
                || unified::starts_at(src, k)
        })
    });
    let Some((block, next)) = sr::parse_openerless(src, opener, i, f).filter(|_| !other_edit)
    else {
        return Ok(None);
    };
    let Some(path) = paths::path_before(src, opener + 1)?.or_else(|| ctx.target.clone()) else {
        return Ok(None);
    };
    let (hunk, create) = sr::block_hunk(src, block, None)?;
    sr::push_hunk(files, path.clone(), hunk, create, None);
    Ok(Some((path, next)))
}

/// The file of a block at line `i` (`in_fence`: inside a fence) that names
/// no path: the previous
/// block's when it stands `near` it, `--target`, the previous block's
/// after prose that names no file (`after_prose`) — unless a bare word
/// (`run`) stands where the path would: then it is recorded with that
/// file as the other reading, for the tree to decide. A block that takes
/// the previous block's file takes its bare word too.
fn block_file(
    src: &Src,
    (i, in_fence): (usize, bool),
    ctx: &ParseOptions,
    (near, after_prose): (Option<String>, Option<String>),
    last: Option<&LastBlock>,
) -> Result<(String, Option<BareName>), ParseError> {
    let from_last = near.is_some() || (ctx.target.is_none() && after_prose.is_some());
    let other = near.or_else(|| ctx.target.clone()).or(after_prose);
    if let Some((name, line)) = bare::before(src, i, in_fence) {
        let path = other.clone().unwrap_or_else(|| name.clone());
        return Ok((path, Some(BareName { name, line, other })));
    }
    let path = other.ok_or(ParseError::NoTargetPath { line: src.orig(i) })?;
    let inherited = last.filter(|_| from_last).and_then(|b| b.bare.clone());
    Ok((path, inherited))
}

/// A top-level `=======` is an error only when a `>>>>>>> REPLACE` follows it
/// before the next `<<<<<<< SEARCH` (otherwise it may be a Markdown heading rule).
/// `memo` keeps the last answer and where its deciding line was, so a text full
/// of `=======` lines is scanned once.
fn divider_is_stray(src: &Src, i: usize, memo: &mut Option<(usize, bool)>) -> bool {
    // `=======` right before `<<<<<<< SEARCH` is a marker out of order, not Markdown.
    let next = (i + 1..src.len()).find_map(|k| src.line(k).filter(|l| !l.trim().is_empty()));
    if next.is_some_and(sr::is_search) {
        return true;
    }
    if let Some((until, answer)) = *memo
        && i < until
    {
        return answer;
    }
    let found = (i + 1..src.len()).find_map(|k| match src.line(k) {
        Some(l) if sr::is_search(l) => Some((k, false)),
        Some(l) if sr::is_replace(l) => Some((k, true)),
        _ => None,
    });
    let (until, answer) = found.unwrap_or((src.len(), false));
    *memo = Some((until, answer));
    answer
}

/// True when a prose line names a file other than `previous` anywhere (a
/// word that reads as a path: `utils.py`, `src/app`): a block after it,
/// without a path line of its own, may be meant for that file, so the
/// previous block's file is not reused across it. Prose that names only
/// the previous block's file (`Then, still in a.py, …`) does not stop it.
fn names_another_file(line: &str, previous: &str) -> bool {
    let bare = |p: &str| p.trim_start_matches("./").to_string();
    line.split_whitespace().any(|word| {
        let w = word.trim_matches(|c: char| !(c.is_alphanumeric() || "_-/".contains(c)));
        !w.is_empty()
            && (w.contains('/') || w.contains('.'))
            && paths::path_line(w).is_some_and(|p| bare(&p) != bare(previous))
    })
}
