//! Scans a whole model reply, finds the edit regions of every format (prose,
//! Markdown fences and other text are skipped) and hands each to its parser.

use super::cleanup::{Src, is_fence};
use super::{codex, paths, roo, search_replace as sr, unified};
use crate::error::ParseError;
use crate::model::{FilePatch, PatchFormat};

/// Options as seen by the parsers.
#[derive(Debug, Clone, Default)]
pub(crate) struct Ctx {
    /// Only read this format (others are prose).
    pub format: Option<PatchFormat>,
    /// `-pN` for diff header paths.
    pub strip: Option<usize>,
    /// Path for edits that name no file.
    pub target: Option<String>,
}

/// The previous SEARCH/REPLACE block, for path reuse.
struct LastBlock {
    path: String,
    /// Index after its `>>>>>>> REPLACE`.
    end: usize,
    /// The fence it was in, if any.
    fence: Option<usize>,
}

/// Scans `src` and appends every edit found to `files`.
pub(crate) fn scan(src: &Src, ctx: &Ctx, files: &mut Vec<FilePatch>) -> Result<(), ParseError> {
    let codex_on = ctx.format.is_none_or(|f| f == PatchFormat::CodexEnvelope);
    let sr_on = ctx.format.is_none_or(|f| f == PatchFormat::SearchReplace);
    let diff_on = ctx
        .format
        .is_none_or(|f| matches!(f, PatchFormat::UnifiedDiff | PatchFormat::NumberlessDiff));
    let mut i = 0;
    let mut fence_count = 0usize;
    let mut in_fence = false;
    let mut last: Option<LastBlock> = None;
    let mut stray_scan = None;
    while let Some(l) = src.line(i) {
        if codex_on && codex::is_begin(l) {
            let (found, next) = codex::parse(src, i)?;
            files.extend(found);
            i = next;
        } else if sr_on && roo::is_apply_diff(l) {
            i = roo::parse_apply_diff(src, i, ctx.target.as_deref(), files)?;
        } else if sr_on && sr::is_search(l) {
            let (block, next) = sr::parse_block(src, i)?;
            let fence = in_fence.then_some(fence_count);
            let reuse = last.as_ref().and_then(|b| {
                let adjacent = (b.end..i).all(|k| {
                    src.line(k)
                        .is_some_and(|t| t.trim().is_empty() || is_fence(t))
                });
                (adjacent || (fence.is_some() && b.fence == fence)).then(|| b.path.clone())
            });
            let path = paths::path_before(src, i)
                .or(reuse)
                .or_else(|| ctx.target.clone())
                .ok_or(ParseError::NoTargetPath { line: src.orig(i) })?;
            let (hunk, create) = sr::block_hunk(src, block, None)?;
            sr::push_hunk(files, path.clone(), hunk, create, true);
            last = Some(LastBlock {
                path,
                end: next,
                fence,
            });
            i = next;
        } else if sr_on && sr::is_replace(l) {
            return Err(ParseError::Malformed {
                line: src.orig(i),
                message: format!("found `{}` without an opening `<<<<<<< SEARCH`", l.trim()),
            });
        } else if sr_on && sr::is_divider(l) && divider_is_stray(src, i, &mut stray_scan) {
            return Err(ParseError::Malformed {
                line: src.orig(i),
                message: format!("found `{}` before `<<<<<<< SEARCH`", l.trim()),
            });
        } else if diff_on && unified::starts_at(src, i) {
            let (fp, next) = unified::parse_file(src, i, ctx)?;
            files.push(fp);
            i = next.max(i + 1);
        } else {
            if is_fence(l) {
                in_fence = !in_fence;
                if in_fence {
                    fence_count += 1;
                }
            }
            i += 1;
        }
    }
    Ok(())
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
