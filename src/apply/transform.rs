//! Rewrites of the parsed patch before anything is located: `--directory`,
//! `--include`/`--exclude`, `-R`, and the joining of the file patches that
//! name the same path.

use crate::model::{FileOp, FilePatch, LineKind, Patch};
use crate::report::{Problem, ProblemCode};

use super::ApplyOptions;

/// Applies `--directory`, `--include`/`--exclude` and `-R` to a parsed patch.
pub(super) fn transform(mut patch: Patch, options: &ApplyOptions) -> Result<Patch, Problem> {
    if let Some(dir) = options
        .directory
        .as_deref()
        .map(|d| d.trim_end_matches('/'))
        .filter(|d| !d.is_empty())
    {
        for file in &mut patch.files {
            file.path = format!("{dir}/{}", file.path);
            if let Some(to) = &mut file.move_to {
                *to = format!("{dir}/{to}");
            }
        }
    }
    if !options.path_rules.is_empty() {
        let any_include = options.path_rules.iter().any(|(inc, _)| *inc);
        patch.files.retain(|f| {
            options
                .path_rules
                .iter()
                .find(|(_, glob)| {
                    gix::glob::wildmatch(
                        glob.as_str().into(),
                        f.path.as_str().into(),
                        gix::glob::wildmatch::Mode::empty(),
                    )
                })
                .map_or(!any_include, |(inc, _)| *inc)
        });
    }
    if options.reverse {
        for file in &mut patch.files {
            if file.op == FileOp::Delete && file.hunks.is_empty() {
                return Err(Problem::new(
                    ProblemCode::MalformedPatch,
                    format!(
                        "{}: cannot reverse the deletion: the patch does not hold the file's content",
                        file.path
                    ),
                    Some(file.patch_line),
                ));
            }
            reverse_file(file);
        }
    }
    Ok(patch)
}

/// Turns a file patch into the one that undoes it.
fn reverse_file(file: &mut FilePatch) {
    file.op = match file.op {
        FileOp::Add => FileOp::Delete,
        FileOp::Delete => FileOp::Add,
        FileOp::Update => FileOp::Update,
    };
    if let Some(to) = file.move_to.take() {
        file.move_to = Some(std::mem::replace(&mut file.path, to));
    }
    // The reversed patch's line numbers are the forward patch's new side:
    // each hunk's old start moved by what the hunks before it added.
    let mut delta: isize = 0;
    for hunk in &mut file.hunks {
        let removed = hunk
            .lines
            .iter()
            .filter(|l| l.kind == LineKind::Remove)
            .count();
        let added = hunk
            .lines
            .iter()
            .filter(|l| l.kind == LineKind::Add)
            .count();
        let old_len = hunk.lines.iter().filter(|l| l.is_old()).count();
        let new_len = hunk.lines.iter().filter(|l| l.is_new()).count();
        hunk.line_hint = hunk.line_hint.and_then(|a| {
            // `@@ -a,0 +c,d @@` has c = a + 1 (+ delta); `@@ -a,d +c,0 @@`
            // has c = a - 1: a side without lines names the line before.
            let edge = match (old_len, new_len) {
                (0, n) if n > 0 => 1,
                (o, 0) if o > 0 => -1,
                _ => 0,
            };
            let a = isize::try_from(a).ok()?;
            usize::try_from(a.checked_add(delta)?.checked_add(edge)?).ok()
        });
        delta = delta
            .saturating_add_unsigned(added)
            .saturating_sub_unsigned(removed);
        for line in &mut hunk.lines {
            line.kind = match line.kind {
                LineKind::Add => LineKind::Remove,
                LineKind::Remove => LineKind::Add,
                LineKind::Context => LineKind::Context,
            };
        }
        // Removed lines came first within each change; keep that order.
        let mut i = 0;
        while i < hunk.lines.len() {
            let start = i;
            while i < hunk.lines.len() && hunk.lines[i].kind != LineKind::Context {
                i += 1;
            }
            hunk.lines[start..i].sort_by_key(|l| l.kind != LineKind::Remove);
            i += 1;
        }
        std::mem::swap(&mut hunk.old_missing_newline, &mut hunk.new_missing_newline);
    }
}

/// Joins the edits of one path given in several places of a reply, so all of
/// them are located against the same original.
pub(super) fn merge_same_paths(patch: Patch) -> Result<Vec<FilePatch>, Problem> {
    let mut out: Vec<FilePatch> = Vec::with_capacity(patch.files.len());
    // Where each path went in `out` (a patch may touch tens of thousands of files).
    let mut seen: std::collections::HashMap<String, usize> =
        std::collections::HashMap::with_capacity(patch.files.len());
    for file in patch.files {
        let earlier = seen.get(file.path.as_str()).copied();
        match earlier.map(|at| &mut out[at]) {
            Some(prev)
                if prev.op == FileOp::Update
                    && file.op == FileOp::Update
                    && prev.move_to == file.move_to =>
            {
                prev.create_if_missing &= file.create_if_missing;
                let first = prev.hunks.len();
                prev.hunks.extend(file.hunks);
                // Another section's anchors and line numbers start afresh.
                if let Some(h) = prev.hunks.get_mut(first) {
                    h.starts_section = true;
                }
            }
            Some(_) => {
                return Err(Problem::new(
                    ProblemCode::MalformedPatch,
                    format!(
                        "{}: the patch changes this file twice in incompatible ways (patch lines {} and {})",
                        file.path,
                        earlier.map_or(0, |at| out[at].patch_line),
                        file.patch_line
                    ),
                    Some(file.patch_line),
                ));
            }
            None => {
                seen.insert(file.path.clone(), out.len());
                out.push(file);
            }
        }
    }
    Ok(out)
}
