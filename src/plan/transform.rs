//! Rewrites of the parsed patch before anything is located: `--directory`,
//! the normal form of every path (`sub/./a.txt` and `sub//a.txt` are
//! `sub/a.txt`), `--include`/`--exclude`, `-R`, the joining of the file
//! patches that name the same path, and the refusal of two file operations
//! that claim one path.

use crate::model::{FileOp, FilePatch, LineKind, Patch};
use crate::outcome::{Problem, ProblemCode};
use crate::source::Targets;

use super::{ApplyOptions, PathRule};

/// Decides the files named by bare words, makes absolute paths that lie
/// inside the tree relative, then applies `--directory`,
/// `--include`/`--exclude` and `-R` to a parsed patch.
pub(super) fn transform(
    mut patch: Patch,
    options: &ApplyOptions,
    targets: &dyn Targets,
) -> Result<Patch, Problem> {
    place_paths(&mut patch.files, options, targets)?;
    for file in &mut patch.files {
        normalise(&mut file.path, file.patch_line)?;
        if let Some(to) = &mut file.move_to {
            normalise(to, file.patch_line)?;
        }
    }
    if !options.path_rules.is_empty() {
        let any_include = options.path_rules.iter().any(PathRule::includes);
        patch.files.retain(|f| {
            options
                .path_rules
                .iter()
                .find(|rule| {
                    gix::glob::wildmatch(
                        rule.glob().into(),
                        f.path.as_str().into(),
                        gix::glob::wildmatch::Mode::empty(),
                    )
                })
                .map_or(!any_include, PathRule::includes)
        });
    }
    if options.reverse {
        for file in &mut patch.files {
            if file.copy_from.is_some() {
                // As `git apply -R`: the reversed copy would copy onto its
                // existing source.
                return Err(Problem::new(
                    ProblemCode::MalformedPatch,
                    format!("{}: cannot reverse a copy", file.path),
                    Some(file.patch_line),
                ));
            }
            // A git deletion without lines is that of an empty file (git
            // writes the lines of any other): reversed, it creates one.
            if file.op == FileOp::Delete
                && file.hunks.is_empty()
                && file.format == crate::model::PatchFormat::CodexEnvelope
            {
                return Err(Problem::new(
                    ProblemCode::MalformedPatch,
                    format!(
                        "{}: cannot reverse the deletion: the patch does not hold the file's content",
                        file.path
                    ),
                    Some(file.patch_line),
                ));
            }
            if let Some(problem) = super::binary::unreversible(file)
                .or_else(|| unplaceable_reversal(file, targets))
                .or_else(|| cut_removed_line(file))
                .or_else(|| emptying_reversal(file, targets))
                .or_else(|| super::gutter::unreversible(file))
            {
                return Err(problem);
            }
            super::reverse::reverse_file(file);
        }
    }
    Ok(patch)
}

/// A removed line that ends in `...` (or `…`) may be a cut line, matched
/// by its beginning (`log("starting job...` for the file's whole call):
/// reversed it would be written as it stands, a fragment instead of the
/// line it stood for. Its full text is not in the patch: refused, naming
/// the line.
fn cut_removed_line(file: &FilePatch) -> Option<Problem> {
    file.hunks.iter().enumerate().find_map(|(index, hunk)| {
        let offset = hunk
            .lines
            .iter()
            .position(|l| l.kind == LineKind::Remove && ends_cut(&l.text))?;
        Some(Problem::new(
            ProblemCode::MalformedPatch,
            format!(
                "{}: hunk {} (patch line {}) cannot be reversed: its removed line `{}` ends in an ellipsis and may be cut short; its whole text is not in the patch",
                file.path,
                index + 1,
                hunk.patch_line,
                hunk.lines[offset].text.trim()
            ),
            Some(hunk.patch_line),
        ))
    })
}

/// True for a line that ends in `...`/`…` after some text (a lone `...`,
/// an elision or Python's `Ellipsis`, is no cut; nor is Go's package
/// pattern, `go test ./...`).
fn ends_cut(text: &str) -> bool {
    let t = text.trim_end();
    if crate::locate::normalize::ends_in_package_pattern(t) {
        return false;
    }
    ["...", "\u{2026}"].iter().any(|e| {
        t.strip_suffix(e)
            .is_some_and(|head| !head.trim().is_empty())
    })
}

/// A hunk that only removes lines, with no context and no line number
/// (a SEARCH/REPLACE block with an empty REPLACE, a numberless or Codex
/// hunk of `-` lines), says where its lines stand only by the lines
/// themselves. Reversed, it would add them with nothing saying where (an
/// empty SEARCH appends at the end): refused, naming the hunk, unless the
/// file is empty now, where the only place is the whole file (the reversal
/// of a deletion of every line).
fn unplaceable_reversal(file: &FilePatch, targets: &dyn Targets) -> Option<Problem> {
    if file.op != FileOp::Update {
        return None;
    }
    let (index, hunk) = file.hunks.iter().enumerate().find(|(_, h)| {
        h.line_hint.is_none()
            && !h.lines.is_empty()
            && h.lines.iter().all(|l| l.kind == LineKind::Remove)
    })?;
    // As written, or with a block's XML-escaped text decoded.
    let holds = |content: &[u8], d: bool| {
        holds_exactly(
            content,
            hunk.read_as(d).lines.iter().map(|l| l.text.as_str()),
        )
    };
    if let Ok(Some(content)) = targets.read(&file.path)
        && (content.is_empty()
            || (file.hunks.len() == 1 && (holds(&content, false) || holds(&content, true))))
    {
        // Empty, the whole file is the only place; holding exactly the
        // lines, the reversal stands already (a re-run of `-R`).
        return None;
    }
    Some(Problem::new(
        ProblemCode::MalformedPatch,
        format!(
            "{}: hunk {} (patch line {}) cannot be reversed: it only removes lines and has no context or line number, so nothing says where they go back",
            file.path,
            index + 1,
            hunk.patch_line
        ),
        Some(hunk.patch_line),
    ))
}

/// An update without `/dev/null` whose hunks only add lines, with no
/// context and no line number (a numberless creation, which creates the
/// file when it is missing), reversed on a file that holds exactly those
/// lines: the reversal would leave the file empty, and nothing says
/// whether the patch created it (then `-R` should remove it) or filled an
/// empty file. Refused, naming the file: `git fuzzy-apply -R` never leaves
/// an empty file the forward run may have created.
fn emptying_reversal(file: &FilePatch, targets: &dyn Targets) -> Option<Problem> {
    let bare_additions = file.op == FileOp::Update
        && !file.hunks.is_empty()
        && file
            .hunks
            .iter()
            .all(|h| h.line_hint.is_none() && h.lines.iter().all(|l| l.kind == LineKind::Add));
    if !bare_additions {
        return None;
    }
    let Ok(Some(content)) = targets.read(&file.path) else {
        return None;
    };
    // As written, or with the blocks' XML-escaped text decoded.
    let holds = |d: bool| {
        let added = file.hunks.iter().flat_map(|h| &h.read_as(d).lines);
        holds_exactly(&content, added.map(|l| l.text.as_str()))
    };
    (!content.is_empty() && (holds(false) || holds(true))).then(|| {
        Problem::new(
            ProblemCode::MalformedPatch,
            format!(
                "{}: cannot reverse: the patch adds every line the file holds, without `/dev/null`, so nothing says whether it created the file (reversed, remove it) or filled an empty one; reverse it with `git rm` or give the patch a `--- /dev/null` header",
                file.path
            ),
            Some(file.patch_line),
        )
    })
}

/// True when `content` is exactly `lines`, each with its line end (CRLF,
/// or none after the last, allowed).
fn holds_exactly<'a>(content: &[u8], lines: impl Iterator<Item = &'a str> + Clone) -> bool {
    let size: usize = lines.clone().map(|l| l.len() + 1).sum();
    if content.len() > 2 * size + 1 {
        return false;
    }
    let text = String::from_utf8_lossy(content);
    let mut held = text.lines().map(|l| l.trim_end_matches('\r'));
    lines.into_iter().all(|l| held.next() == Some(l)) && held.next().is_none()
}

/// Puts every path where it points in the tree: the file of an edit named
/// by a bare word ([`decide_bare_name`]), absolute paths inside the tree
/// made relative, then `--directory` before the others.
fn place_paths(
    files: &mut [FilePatch],
    options: &ApplyOptions,
    targets: &dyn Targets,
) -> Result<(), Problem> {
    let directory = options
        .directory
        .as_deref()
        .map(|d| d.trim_end_matches('/'))
        .filter(|d| !d.is_empty());
    for file in files.iter_mut() {
        decide_bare_name(file, directory, targets)?;
    }
    let mut absolute = vec![false; files.len()];
    for (file, was) in files.iter_mut().zip(absolute.iter_mut()) {
        if let Some(rel) = targets.relative(&file.path) {
            file.path = rel;
            *was = true;
        }
        for other in [&mut file.move_to, &mut file.copy_from]
            .into_iter()
            .flatten()
        {
            if let Some(rel) = targets.relative(other) {
                *other = rel;
            }
        }
    }
    if let Some(dir) = directory {
        // An absolute path named its file already: no prefix.
        for (file, _) in files.iter_mut().zip(&absolute).filter(|(_, a)| !**a) {
            file.path = format!("{dir}/{}", file.path);
            for other in [&mut file.move_to, &mut file.copy_from]
                .into_iter()
                .flatten()
            {
                *other = format!("{dir}/{other}");
            }
        }
    }
    Ok(())
}

/// Decides the file of an edit named only by a bare word (`run`): the word
/// names a file when one of that name exists (under `--directory`), the
/// edit has lines to find in it (a SEARCH that is not empty) and the file
/// the edit would otherwise go to (the previous block's, `--target`) may
/// not hold them ([`may_place_in`]); a word that names no file leaves the
/// edit to that other file, or to no file. Anything else is refused
/// (`no_target_path`), never guessed.
fn decide_bare_name(
    file: &mut FilePatch,
    directory: Option<&str>,
    targets: &dyn Targets,
) -> Result<(), Problem> {
    let Some(bare) = file.bare_name.take() else {
        return Ok(());
    };
    let checked = directory.map_or_else(|| bare.name.clone(), |d| format!("{d}/{}", bare.name));
    let exists = matches!(targets.exists(&checked), Ok(true));
    let (name, at) = (&bare.name, bare.line);
    let refuse = |message: String| Err(Problem::new(ProblemCode::NoTargetPath, message, Some(at)));
    match (exists, bare.other) {
        (false, Some(other)) => file.path = other,
        (false, None) => {
            return refuse(format!(
                "this edit names no file: `{name}` (patch line {at}) is not a file of the tree; put the edit's path on the line before it or pass --target PATH"
            ));
        }
        (true, Some(other)) if other != *name && may_place_in(file, &other, directory, targets) => {
            return refuse(format!(
                "`{name}` (patch line {at}) names a file of the tree, but without it the edit would go to `{other}`, which may hold its text too: which file is meant? Write `./{name}` or `{other}` on the line before the edit"
            ));
        }
        (true, _) if file.hunks.iter().any(|h| h.old_lines().next().is_none()) => {
            return refuse(format!(
                "`{name}` (patch line {at}) is read as a file name only for an edit whose SEARCH text (or old lines) it holds; its SEARCH is empty (it would add to `{name}` on that word alone): write `./{name}`"
            ));
        }
        (true, _) => file.path = name.clone(),
    }
    Ok(())
}

/// True when the edits of `file` may place in `other` too: one of their
/// old lines of 3 characters or more stands inside a line of `other`,
/// whitespace and case aside (so a fuzzy placement there is not ruled out).
/// Loose on purpose: a yes refuses, never edits.
fn may_place_in(
    file: &FilePatch,
    other: &str,
    directory: Option<&str>,
    targets: &dyn Targets,
) -> bool {
    let path = directory.map_or_else(|| other.to_string(), |d| format!("{d}/{other}"));
    let Ok(Some(content)) = targets.read(&path) else {
        return false;
    };
    let norm = |s: &str| -> String {
        s.chars()
            .filter(|c| !c.is_whitespace())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let text = String::from_utf8_lossy(&content);
    let lines: Vec<String> = text.lines().map(norm).collect();
    file.hunks
        .iter()
        .flat_map(|h| h.old_lines())
        .map(|l| norm(&l.text))
        .filter(|l| l.chars().count() >= 3)
        .any(|l| lines.iter().any(|f| f.contains(&l)))
}

/// Rewrites `path` in its normal form: no `.` components, no empty ones
/// (`sub//a.txt`), so that every spelling of one file is one string. A
/// path ending in `/` names a directory: refused. Absolute paths and `..`
/// are left for the tree to refuse (`path_outside_tree`).
fn normalise(path: &mut String, patch_line: usize) -> Result<(), Problem> {
    if path.starts_with('/') {
        return Ok(());
    }
    if path.ends_with('/') {
        return Err(Problem::new(
            ProblemCode::NotAFile,
            format!("{path}: the path ends in `/`: it names a directory, not a file"),
            Some(patch_line),
        ));
    }
    let parts: Vec<&str> = path
        .split('/')
        .filter(|part| !part.is_empty() && *part != ".")
        .collect();
    if !parts.is_empty() {
        *path = parts.join("/");
    }
    Ok(())
}

/// One path's edits to plan: a file patch, or (`replaced`) the deletion of
/// a path and the creation of the same path, which `git diff` writes for a
/// file that became a symbolic link or the other way round (a typechange).
#[derive(Debug)]
pub(super) struct Unit {
    /// The file patch; for a replacement, the creation.
    pub(super) file: FilePatch,
    /// For a replacement, the deletion of what stands at the path now.
    pub(super) replaced: Option<FilePatch>,
}

/// True when `a` and `b` delete and create one path, in either order
/// (neither a copy nor a move): `git diff`'s typechange.
fn replaces(a: &FilePatch, b: &FilePatch) -> bool {
    let plain = |f: &FilePatch| f.move_to.is_none() && f.copy_from.is_none();
    plain(a)
        && plain(b)
        && matches!(
            (a.op, b.op),
            (FileOp::Delete, FileOp::Add) | (FileOp::Add, FileOp::Delete)
        )
}

/// Joins the edits of one path given in several places of a reply, so all of
/// them are located against the same original; a deletion and a creation of
/// one path become one [`Unit`] that replaces it.
pub(super) fn merge_same_paths(patch: Patch) -> Result<Vec<Unit>, Problem> {
    let mut out: Vec<FilePatch> = Vec::with_capacity(patch.files.len());
    // The second half of a replacement, by the index of its first in `out`.
    let mut second: std::collections::HashMap<usize, FilePatch> = Default::default();
    // Where each path went in `out` (a patch may touch tens of thousands of files).
    let mut seen: std::collections::HashMap<String, usize> =
        std::collections::HashMap::with_capacity(patch.files.len());
    for file in patch.files {
        let earlier = seen.get(file.path.as_str()).copied();
        match earlier.map(|at| (at, &mut out[at])) {
            Some((_, prev))
                if prev.op == FileOp::Update
                    && file.op == FileOp::Update
                    && prev.move_to == file.move_to
                    && prev.binary.is_none()
                    && file.binary.is_none() =>
            {
                prev.create_if_missing &= file.create_if_missing;
                // Two diffs of one file: neither was made from the other's
                // result, so no `index` line speaks for both.
                prev.blob_ids = None;
                let first = prev.hunks.len();
                prev.hunks.extend(file.hunks);
                // Another section's anchors and line numbers start afresh.
                if let Some(h) = prev.hunks.get_mut(first) {
                    h.starts_section = true;
                }
            }
            Some((at, prev)) if replaces(prev, &file) && !second.contains_key(&at) => {
                second.insert(at, file);
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
    refuse_collisions(&out)?;
    Ok(out
        .into_iter()
        .enumerate()
        .map(|(at, first)| match second.remove(&at) {
            Some(other) if first.op == FileOp::Delete => Unit {
                file: other,
                replaced: Some(first),
            },
            Some(other) => Unit {
                file: first,
                replaced: Some(other),
            },
            None => Unit {
                file: first,
                replaced: None,
            },
        })
        .collect())
}

/// What a file operation does, for messages.
fn describe(file: &FilePatch) -> String {
    match (file.op, &file.move_to) {
        (FileOp::Add, _) => format!("adds {}", file.path),
        (FileOp::Delete, _) => format!("deletes {}", file.path),
        (FileOp::Update, Some(to)) if *to != file.path => format!("moves {} to {to}", file.path),
        (FileOp::Update, _) => format!("edits {}", file.path),
    }
}

/// Every path may be read or written by one file operation only: two
/// renames onto one path, an added file and a rename onto it, or a rename
/// onto a file the patch also edits or deletes would each lose one of the
/// contents (and, staged, give the index two entries for one path).
fn refuse_collisions(files: &[FilePatch]) -> Result<(), Problem> {
    let mut claimed: std::collections::HashMap<&str, usize> =
        std::collections::HashMap::with_capacity(files.len());
    for (i, file) in files.iter().enumerate() {
        let old = (file.op != FileOp::Add).then_some(file.path.as_str());
        let new = match file.op {
            FileOp::Delete => None,
            FileOp::Add => Some(file.path.as_str()),
            FileOp::Update => Some(file.move_to.as_deref().unwrap_or(&file.path)),
        };
        let names = [old, new.filter(|n| Some(*n) != old)];
        for name in names.into_iter().flatten() {
            if let Some(&j) = claimed.get(name) {
                let first = &files[j];
                return Err(Problem::new(
                    ProblemCode::PathConflict,
                    format!(
                        "{name}: the patch {} (patch line {}) and {} (patch line {}); one of the two would be lost",
                        describe(first),
                        first.patch_line,
                        describe(file),
                        file.patch_line
                    ),
                    Some(file.patch_line),
                ));
            }
            claimed.insert(name, i);
        }
    }
    Ok(())
}
