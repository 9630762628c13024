//! Unified diffs: numbered (`@@ -a,b +c,d @@`) and numberless (`@@`, `@@ @@`)
//! hunks, `diff --git` extended headers, `---`/`+++` headers, headerless hunks.

use super::ParseOptions;
use super::cleanup::Src;
use super::hunk::{
    HunkPlace, is_body_line, is_hunk_header, is_numberless_header, parse_body, parse_hunk,
};
use super::malformed;
use super::{bare, binary, paths};
use crate::error::ParseError;
use crate::model::{BareName, BinaryPatch, BlobIds, FileOp, FilePatch, PatchFormat};

/// True when a unified diff (git header, file header or hunk) starts at line `i`.
pub(crate) fn starts_at(src: &Src, i: usize) -> bool {
    src.line(i)
        .is_some_and(|l| l.starts_with("diff --git ") || is_standalone_hunk_header(l))
        || header_rests(src, i).is_some()
}

/// The path parts of a file header pair at line `i`: `--- P` / `+++ P` as
/// git writes it, or the pair with a `-` or `+` lost (`-- a/x.py` /
/// `++ b/x.py`, numberless diffs written by models). A short pair is a
/// header only where the scan stands outside any hunk (a hunk body reads it
/// as a removed and an added line), when both lines name the same file as
/// a path, and when a hunk header (`@@`) follows it: a `-- ` mail signature,
/// a `-- SQL comment` or a list item `- x` is never one.
fn header_rests<'s>(src: &'s Src, i: usize) -> Option<(&'s str, &'s str)> {
    let (old, new) = (src.line(i)?, src.line(i + 1)?);
    let full_old = old.strip_prefix("--- ");
    let full_new = new.strip_prefix("+++ ");
    if let (Some(o), Some(n)) = (full_old, full_new) {
        return Some((o, n));
    }
    let o = full_old.or_else(|| old.strip_prefix("-- "))?;
    let n = full_new.or_else(|| new.strip_prefix("++ "))?;
    let names = |rest: &str| {
        let rest = rest.split('\t').next().unwrap_or("");
        paths::path_line(rest)?;
        paths::header_path(rest, None, 0).ok().flatten()
    };
    let same = names(o).is_some_and(|a| names(n).is_some_and(|b| a == b));
    (same && src.line(i + 2).is_some_and(is_hunk_header)).then_some((o, n))
}

/// A hunk header that starts a diff without file header: `@@` alone or closed
/// by a second `@@` (`@@ @@`, `@@ -1 +1 @@`), so prose such as
/// `@@ is a decorator` is not taken for a hunk.
fn is_standalone_hunk_header(line: &str) -> bool {
    is_hunk_header(line)
        && (line.trim_end() == "@@" || line.get(2..).is_some_and(|r| r.contains("@@")))
}

/// Splits the two paths of `diff --git a/x b/x`, each [`paths::clean`]ed
/// (a C-quoted path, `"a/caf\303\251.txt"`, decoded).
fn git_paths(rest: &str) -> Option<(String, String)> {
    let rest = rest.trim();
    if rest.starts_with('"') {
        let (a, used) = quoted_prefix(rest)?;
        let b = rest.get(used..)?.trim();
        return Some((a, paths::clean(b)));
    }
    if let Some(k) = rest.find(" \"") {
        let (a, b) = (rest.get(..k)?, rest.get(k + 1..)?);
        return Some((paths::clean(a), paths::clean(b)));
    }
    let (a, b) = unquoted_paths(rest)?;
    Some((paths::clean(a), paths::clean(b)))
}

/// The C-quoted path at the start of `s` (decoded) and the bytes
/// it takes.
fn quoted_prefix(s: &str) -> Option<(String, usize)> {
    use gix::bstr::ByteSlice;
    let (decoded, used) = gix::quote::ansi_c::undo(s.as_bytes().as_bstr()).ok()?;
    let decoded = String::from_utf8(decoded.to_vec()).ok()?;
    Some((decoded, used))
}

/// The prefix letter of a path `x/...` that git's `diff.mnemonicPrefix`
/// writes: `c/` commit, `i/` index, `w/` work tree, `o/` object, `1/` and
/// `2/` for `--no-index`.
fn mnemonic_letter(path: &str) -> Option<char> {
    let mut chars = path.chars();
    match (chars.next(), chars.next()) {
        (Some(c), Some('/')) if "ciwo12".contains(c) => Some(c),
        _ => None,
    }
}

/// True when the two paths of a `diff --git` line carry two different
/// mnemonic prefixes (`c/x w/x`): git reads them with `-p1`, as `a/` and
/// `b/`.
fn mnemonic_prefixes(a: &str, b: &str) -> bool {
    matches!((mnemonic_letter(a), mnemonic_letter(b)), (Some(x), Some(y)) if x != y)
}

/// Splits `a/x b/x` written without quotes, preferring the split where
/// both sides name the same file (a path may hold spaces; the sides may
/// carry git's mnemonic prefixes, `c/x w/x`).
fn unquoted_paths(rest: &str) -> Option<(&str, &str)> {
    for (k, _) in rest.match_indices(' ') {
        let (a, b) = (rest.get(..k)?, rest.get(k + 1..)?);
        let (sa, sb) = if mnemonic_prefixes(a, b) {
            (a.get(2..)?, b.get(2..)?)
        } else {
            (
                a.strip_prefix("a/").unwrap_or(a),
                b.strip_prefix("b/").unwrap_or(b),
            )
        };
        if sa == sb {
            return Some((a, b));
        }
    }
    if let Some(k) = rest.find(" b/") {
        return Some((rest.get(..k)?, rest.get(k + 1..)?));
    }
    let (a, b) = rest.split_once(' ')?;
    Some((a, b.trim()))
}

/// What the lines before a file's first hunk say about it: the `diff --git`
/// line and its extended headers, then the `---`/`+++` pair.
struct Header {
    path: Option<String>,
    op: FileOp,
    move_to: Option<String>,
    new_mode: Option<u32>,
    old_mode: Option<u32>,
    copy_from: Option<String>,
    blob_ids: Option<BlobIds>,
    /// A `GIT binary patch` section.
    binary: Option<BinaryPatch>,
    /// Started by `diff --git`.
    git: bool,
    /// Has a `diff --git` line or a `---`/`+++` pair.
    headered: bool,
    /// `-p1` for this file: its `diff --git` line names the sides with
    /// git's mnemonic prefixes (`c/`, `i/`, `w/`, `o/`, `1/`, `2/`).
    strip: Option<usize>,
}

/// Parses one file's diff starting at line `i` (a `diff --git` line, a
/// `---`/`+++` header, or a headerless hunk; `in_fence`: inside a fence);
/// returns the index after it.
pub(crate) fn parse_file(
    src: &Src,
    (i, in_fence): (usize, bool),
    ctx: &ParseOptions,
) -> Result<(FilePatch, usize), ParseError> {
    let at = src.orig(i);
    let mut header = Header {
        path: None,
        op: FileOp::Update,
        move_to: None,
        new_mode: None,
        old_mode: None,
        copy_from: None,
        blob_ids: None,
        strip: None,
        binary: None,
        git: false,
        headered: false,
    };
    let j = read_git_header(src, i, ctx, &mut header)?;
    let mut j = read_file_header(src, j, ctx, &mut header)?;
    let mut bare_name = None;
    let path = match (header.path, ctx.target.clone()) {
        (Some(p), _) | (None, Some(p)) => p,
        (None, None) => {
            let (p, bare) = headerless_path(src, i, in_fence)?;
            bare_name = bare;
            p
        }
    };
    let (op, git) = (header.op, header.git);
    let mut fp = FilePatch::new(path, op, PatchFormat::NumberlessDiff, at);
    fp.bare_name = bare_name;
    fp.move_to = header.move_to;
    fp.new_mode = header.new_mode;
    fp.old_mode = header.old_mode;
    fp.copy_from = header.copy_from.filter(|_| op == FileOp::Add);
    fp.blob_ids = header.blob_ids;
    fp.binary = header.binary;
    // A header directly followed by body lines (no `@@`): one numberless hunk.
    if header.headered
        && !git
        && src.line(j).is_some_and(|l| !is_hunk_header(l))
        && is_body_line(src, j)
    {
        let place = HunkPlace {
            path: &fp.path,
            number: 1,
        };
        let (hunk, next) = parse_body(src, j, src.orig(j), None, &place)?;
        fp.hunks.push(hunk);
        j = next;
    }
    let (j, any_numbered) = read_hunks(src, j, &mut fp)?;
    if fp.hunks.is_empty() && !git {
        return Err(malformed(
            at,
            "file header is not followed by any hunk (`@@ ... @@`)",
        ));
    }
    if any_numbered || (git && fp.hunks.is_empty()) {
        fp.format = PatchFormat::UnifiedDiff;
    }
    mark_new_file(&mut fp, git);
    Ok((fp, j))
}

/// Reads a `diff --git` line at `j` and its extended header lines (modes,
/// `index`, renames, copies) into `header`; returns the line after them
/// (`j` itself when no `diff --git` line stands there).
fn read_git_header(
    src: &Src,
    mut j: usize,
    ctx: &ParseOptions,
    header: &mut Header,
) -> Result<usize, ParseError> {
    let Some(rest) = src.line(j).and_then(|l| l.strip_prefix("diff --git ")) else {
        return Ok(j);
    };
    let at = src.orig(j);
    let git_line = at;
    header.git = true;
    header.headered = true;
    let (a, b) =
        git_paths(rest).ok_or_else(|| malformed(at, "cannot read the paths of `diff --git`"))?;
    if ctx.strip.is_none() && mnemonic_prefixes(&a, &b) {
        header.strip = Some(1);
    }
    header.path = Some(paths::strip(&a, ctx.strip.or(header.strip), at)?);
    j += 1;
    while let Some(l) = src.line(j) {
        if let Some(m) = l.strip_prefix("new file mode ") {
            header.op = FileOp::Add;
            header.new_mode = u32::from_str_radix(m.trim(), 8).ok();
        } else if let Some(m) = l.strip_prefix("new mode ") {
            header.new_mode = u32::from_str_radix(m.trim(), 8).ok();
        } else if let Some(m) = l.strip_prefix("deleted file mode ") {
            header.op = FileOp::Delete;
            header.old_mode = u32::from_str_radix(m.trim(), 8).ok();
        } else if let Some(m) = l.strip_prefix("old mode ") {
            header.old_mode = u32::from_str_radix(m.trim(), 8).ok();
        } else if let Some(ids) = l.strip_prefix("index ").and_then(BlobIds::parse) {
            // `index a..b 120000`: the mode of both sides.
            let mode = l.split_whitespace().nth(2);
            if let Some(m) = mode.and_then(|m| u32::from_str_radix(m, 8).ok()) {
                header.old_mode.get_or_insert(m);
            }
            header.blob_ids = Some(ids);
        } else if let Some(p) = l.strip_prefix("rename from ") {
            header.path = Some(paths::clean(p));
        } else if let Some(p) = l.strip_prefix("rename to ") {
            header.move_to = Some(paths::clean(p));
        } else if let Some(p) = l.strip_prefix("copy from ") {
            header.copy_from = Some(paths::clean(p));
        } else if let Some(p) = l.strip_prefix("copy to ") {
            header.op = FileOp::Add;
            header.path = Some(paths::clean(p));
        } else if l.starts_with("GIT binary patch") {
            let path = header.move_to.as_deref().or(header.path.as_deref());
            let (section, next) = binary::parse_section(src, j, path.unwrap_or("?"))?;
            header.binary = Some(section);
            j = next;
            break;
        } else if l.starts_with("Binary files ") {
            return Err(malformed(
                src.orig(j),
                format!(
                    "{}: `{}`: the diff holds no binary data to apply (git apply refuses it too, \"cannot apply binary patch without full index line\"); regenerate it with `git diff --binary` (`git format-patch` includes the data)",
                    header.path.as_deref().unwrap_or("?"),
                    l.trim_end()
                ),
            ));
        } else if !["index ", "similarity index ", "dissimilarity index "]
            .iter()
            .any(|p| l.starts_with(p))
        {
            break;
        }
        j += 1;
    }
    refuse_typechange(header, git_line)?;
    Ok(j)
}

/// A symbolic link and a file are different kinds of thing: `git diff`
/// writes a change from one to the other as a deletion and a creation, never
/// as `old mode 120000` / `new mode 100644` in one file's diff.
fn refuse_typechange(header: &Header, at: usize) -> Result<(), ParseError> {
    let link = |m: Option<u32>| m.map(|m| m & 0o170000 == crate::model::SYMLINK_MODE);
    match (link(header.old_mode), link(header.new_mode)) {
        (Some(old), Some(new)) if old != new => Err(malformed(
            at,
            format!(
                "{}: the mode changes between a symbolic link (120000) and a file in one diff; git writes that as a deletion and a creation",
                header.path.as_deref().unwrap_or("?")
            ),
        )),
        _ => Ok(()),
    }
}

/// Reads a `---`/`+++` pair at `j` (see [`header_rests`]) into `header`: a
/// `/dev/null` side makes the file added or deleted; returns the line after
/// the pair (`j` itself when there is none).
fn read_file_header(
    src: &Src,
    j: usize,
    ctx: &ParseOptions,
    header: &mut Header,
) -> Result<usize, ParseError> {
    let Some((old_rest, new_rest)) = header_rests(src, j) else {
        return Ok(j);
    };
    header.headered = true;
    let strip = ctx.strip.or(header.strip);
    let old = paths::header_path(old_rest, strip, src.orig(j))?;
    let new = paths::header_path(new_rest, strip, src.orig(j + 1))?;
    match (old, new) {
        (None, Some(n)) => {
            header.op = FileOp::Add;
            header.path = Some(n);
        }
        (Some(o), None) => {
            header.op = FileOp::Delete;
            header.path = Some(o);
        }
        (Some(o), Some(_)) => {
            // A copy keeps its `copy to` path; a rename its `rename from`.
            if header.copy_from.is_none() && (header.path.is_none() || header.move_to.is_none()) {
                header.path = Some(o);
            }
        }
        (None, None) => {
            return Err(malformed(src.orig(j), "both file headers are /dev/null"));
        }
    }
    Ok(j + 2)
}

/// Reads the `@@` hunks of `fp` from line `j` (blank lines between two of
/// them are skipped); returns the line after the last one and whether any
/// hunk header carried line numbers.
fn read_hunks(src: &Src, mut j: usize, fp: &mut FilePatch) -> Result<(usize, bool), ParseError> {
    let mut any_numbered = false;
    while let Some(l) = src.line(j) {
        if l.trim().is_empty() {
            // Blank lines between two hunks of the same file.
            match src.next_non_empty(j) {
                Some(k) if src.line(k).is_some_and(is_hunk_header) => j = k,
                _ => break,
            }
            continue;
        }
        if !is_hunk_header(l) {
            break;
        }
        // A numberless `@@ ... @@` with nothing after it (the end of the diff
        // or its closing fence) closing a file that has hunks is a
        // separator the model wrote once too often: it holds no edit.
        if !fp.hunks.is_empty()
            && is_numberless_header(l)
            && src.line(j + 1).is_none_or(|n| {
                let n = n.trim_end();
                // A fence closer, unless body lines follow it (then it is a
                // context line that lost its space).
                (n.starts_with("```") || n.starts_with("~~~")) && !is_body_line(src, j + 2)
            })
        {
            j += 1;
            break;
        }
        let place = HunkPlace {
            path: &fp.path,
            number: fp.hunks.len() + 1,
        };
        let (hunk, numbered, next) = parse_hunk(src, j, &place)?;
        any_numbered |= numbered;
        fp.hunks.push(hunk);
        j = next;
    }
    Ok((j, any_numbered))
}

/// Marks an update whose hunks only add lines as creating a missing file
/// (`git` : the diff has a `diff --git` line).
fn mark_new_file(fp: &mut FilePatch, git: bool) {
    if fp.op != FileOp::Update || fp.move_to.is_some() {
        return;
    }
    if is_whole_new(&fp.hunks) {
        // `@@ -0,0 +1,N @@` under `--- a/x`: the file is new (`git apply`
        // creates a missing one; git's own `-U0` insertion at the top of a
        // file comes with `diff --git`, so only that is applied over content).
        fp.create_if_missing = true;
        fp.written_as_new = !git;
    } else if !git && is_numberless_new(&fp.hunks) {
        // One numberless hunk of added lines only (`@@ ... @@` then `+`
        // lines): a missing file is created with them; an existing one is
        // read as before (the hunk has no place to go but what the rest of
        // the rules give it).
        fp.create_if_missing = true;
    }
}

/// The file of a diff without file header starting at line `i`
/// (`in_fence`: inside a fence): the path named before it, else a bare word
/// there for the tree to decide (`model::BareName`).
fn headerless_path(
    src: &Src,
    i: usize,
    in_fence: bool,
) -> Result<(String, Option<BareName>), ParseError> {
    if let Some(p) = paths::path_before(src, i)? {
        return Ok((p, None));
    }
    let (name, line) =
        bare::before(src, i, in_fence).ok_or(ParseError::NoTargetPath { line: src.orig(i) })?;
    let bare = BareName {
        name: name.clone(),
        line,
        other: None,
    };
    Ok((name, Some(bare)))
}

/// One hunk without line numbers whose every line is added.
fn is_numberless_new(hunks: &[crate::model::Hunk]) -> bool {
    matches!(hunks, [h] if h.line_hint.is_none()
        && h.anchors.is_empty()
        && !h.lines.is_empty()
        && h.lines.iter().all(|l| l.kind == crate::model::LineKind::Add))
}

/// One hunk `@@ -0,0 +1,N @@` of added lines only: a whole new file.
fn is_whole_new(hunks: &[crate::model::Hunk]) -> bool {
    matches!(hunks, [h] if h.line_hint == Some(0)
        && !h.lines.is_empty()
        && h.lines.iter().all(|l| l.kind == crate::model::LineKind::Add))
}

#[cfg(test)]
mod tests;
