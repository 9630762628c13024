//! One invocation end to end: parse the patch, read each target under a root
//! directory, locate and plan every hunk, and — only if every hunk of every
//! file succeeded — write all results at once.

use crate::locate::{HunkStatus, MatchOptions, locate_hunks};
use crate::model::{FileOp, FilePatch, Hunk, LineKind, Patch};
use crate::patch::{ParseOptions, parse_patch};
use crate::plan::plan_file;
use crate::report::{
    FileReport, FileStatus, HunkFailure, HunkOutcome, HunkReport, LineRange, Problem,
    REPORT_VERSION, Report,
};
use crate::source::{SourceText, looks_binary};
use crate::write::{FileChange, commit, render_to_vec};
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

/// Everything that steers one run.
#[derive(Debug, Clone, Default)]
pub struct ApplyOptions {
    /// Parsing options (format, `-p`, `--target`).
    pub parse: ParseOptions,
    /// Matching options (similarity threshold, strictest tier).
    pub matching: MatchOptions,
}

/// The old and new content of one target, kept for `--emit-unified`.
#[derive(Debug, Clone)]
pub struct FileResult {
    /// Path before the patch (`None` for an added file).
    pub old_path: Option<String>,
    /// Path after the patch (`None` for a deleted file).
    pub new_path: Option<String>,
    /// Content before.
    pub old: Vec<u8>,
    /// Content after.
    pub new: Vec<u8>,
}

/// A planned run: the report, and the changes to write if it is all good.
#[derive(Debug, Clone)]
pub struct PatchPlan {
    /// What happened to every file and hunk.
    pub report: Report,
    /// The file changes, empty unless `report.ok`.
    pub changes: Vec<FileChange>,
    /// Old and new content per changed file.
    pub results: Vec<FileResult>,
}

impl PatchPlan {
    /// Writes every change, all or nothing.
    pub fn commit(&self) -> io::Result<()> {
        commit(&self.changes)
    }
}

/// Parses `patch` and plans it against the files under `root`. Reads files,
/// writes nothing.
pub fn plan_patch(patch: &[u8], root: &Path, options: &ApplyOptions) -> PatchPlan {
    let mut report = Report {
        version: REPORT_VERSION,
        ok: false,
        check: false,
        error: None,
        files: Vec::new(),
    };
    let parsed = match parse_patch(patch, &options.parse) {
        Ok(p) => p,
        Err(e) => {
            report.error = Some(Problem::new(e.code(), e.to_string(), e.line()));
            return PatchPlan {
                report,
                changes: Vec::new(),
                results: Vec::new(),
            };
        }
    };
    let mut changes = Vec::new();
    let mut results = Vec::new();
    let files = match merge_same_paths(parsed) {
        Ok(files) => files,
        Err(problem) => {
            report.error = Some(problem);
            return PatchPlan {
                report,
                changes,
                results,
            };
        }
    };
    for file in &files {
        let (file_report, outcome) = plan_one(file, root, options);
        if let Some((change, result)) = outcome {
            changes.extend(change);
            results.push(result);
        }
        report.files.push(file_report);
    }
    report.ok = report.files.iter().all(|f| f.status != FileStatus::Failed);
    if !report.ok {
        changes.clear();
    }
    PatchPlan {
        report,
        changes,
        results,
    }
}

/// Joins the edits of one path given in several places of a reply, so all of
/// them are located against the same original.
fn merge_same_paths(patch: Patch) -> Result<Vec<FilePatch>, Problem> {
    let mut out: Vec<FilePatch> = Vec::new();
    for file in patch.files {
        match out.iter_mut().find(|f| f.path == file.path) {
            Some(prev)
                if prev.op == FileOp::Update
                    && file.op == FileOp::Update
                    && prev.move_to == file.move_to =>
            {
                prev.create_if_missing &= file.create_if_missing;
                prev.hunks.extend(file.hunks);
            }
            Some(_) => {
                return Err(Problem::new(
                    "malformed_patch",
                    format!(
                        "{}: the patch changes this file twice in incompatible ways (patch lines {} and {})",
                        file.path,
                        out.iter()
                            .find(|f| f.path == file.path)
                            .map_or(0, |f| f.patch_line),
                        file.patch_line
                    ),
                    Some(file.patch_line),
                ));
            }
            None => out.push(file),
        }
    }
    Ok(out)
}

type Planned = Option<(Vec<FileChange>, FileResult)>;

fn plan_one(file: &FilePatch, root: &Path, options: &ApplyOptions) -> (FileReport, Planned) {
    let mut report = FileReport {
        path: file.path.clone(),
        op: file.op,
        move_to: file.move_to.clone(),
        format: file.format,
        status: FileStatus::Failed,
        error: None,
        added: 0,
        removed: 0,
        hunks: Vec::new(),
    };
    match plan_one_inner(file, root, options, &mut report) {
        Ok(planned) => (report, planned),
        Err(problem) => {
            report.status = FileStatus::Failed;
            report.error = Some(problem);
            (report, None)
        }
    }
}

fn plan_one_inner(
    file: &FilePatch,
    root: &Path,
    options: &ApplyOptions,
    report: &mut FileReport,
) -> Result<Planned, Problem> {
    let line = Some(file.patch_line);
    let path = resolve(root, &file.path).map_err(|m| Problem::new("path_outside_tree", m, line))?;
    let existing = read_target(&path, &file.path, line)?;
    match (file.op, existing) {
        (FileOp::Add, Some(_)) => Err(Problem::new(
            "file_exists",
            format!(
                "{}: the patch adds this file but it already exists",
                file.path
            ),
            line,
        )),
        (FileOp::Add, None) => Ok(Some(create(file, path, report))),
        (FileOp::Update, None) if file.create_if_missing => Ok(Some(create(file, path, report))),
        (FileOp::Update | FileOp::Delete, None) => Err(Problem::new(
            "file_not_found",
            format!("{}: no such file", file.path),
            line,
        )),
        (FileOp::Delete, Some(old)) => {
            report.removed = SourceText::new(&old).len();
            report.status = FileStatus::Patched;
            Ok(Some((
                vec![FileChange::Delete { path }],
                FileResult {
                    old_path: Some(file.path.clone()),
                    new_path: None,
                    old,
                    new: Vec::new(),
                },
            )))
        }
        (FileOp::Update, Some(old)) => update(file, root, path, old, options, report),
    }
}

fn update(
    file: &FilePatch,
    root: &Path,
    path: PathBuf,
    old: Vec<u8>,
    options: &ApplyOptions,
    report: &mut FileReport,
) -> Result<Planned, Problem> {
    let line = Some(file.patch_line);
    if looks_binary(&old) {
        return Err(Problem::new(
            "binary_file",
            format!(
                "{}: the file is binary; only text files are patched",
                file.path
            ),
            line,
        ));
    }
    let source = SourceText::new(&old);
    let results = locate_hunks(&source, &file.hunks, &options.matching);
    let mut located = Vec::new();
    for (i, (hunk, result)) in file.hunks.iter().zip(results).enumerate() {
        match result {
            Ok(loc) => {
                report.hunks.push(hunk_report(i, hunk, Some(&loc), None));
                located.push(loc);
            }
            Err(failure) => {
                let fail = HunkFailure {
                    code: failure.reason.code().to_string(),
                    message: failure.message,
                    expected: hunk.old_lines().map(|l| l.text.clone()).collect(),
                    candidates: failure.candidates,
                    near_match: failure.near,
                };
                report.hunks.push(hunk_report(i, hunk, None, Some(fail)));
            }
        }
    }
    if report.hunks.iter().any(|h| h.status == HunkOutcome::Failed) {
        report.status = FileStatus::Failed;
        return Ok(None);
    }
    let plan = plan_file(&source, &file.hunks, &mut located);
    for loc in &located {
        if let Some(h) = report.hunks.get_mut(loc.hunk) {
            h.normalizations.clone_from(&loc.normalizations);
        }
    }
    let new = render_to_vec(&source, &plan);
    for loc in located.iter().filter(|l| l.status == HunkStatus::Applied) {
        if let Some(h) = file.hunks.get(loc.hunk) {
            report.added += h.lines.iter().filter(|l| l.kind == LineKind::Add).count();
            report.removed += h
                .lines
                .iter()
                .filter(|l| l.kind == LineKind::Remove)
                .count();
        }
    }
    let moved = file.move_to.as_ref().filter(|to| **to != file.path);
    report.status = if new == old && moved.is_none() {
        FileStatus::Unchanged
    } else {
        FileStatus::Patched
    };
    let mut changes = Vec::new();
    let new_path = match moved {
        Some(to) => {
            let dest = resolve(root, to)
                .map_err(|m| Problem::new("path_outside_tree", m, Some(file.patch_line)))?;
            if dest.exists() {
                return Err(Problem::new(
                    "file_exists",
                    format!("{}: cannot move to {to}: it already exists", file.path),
                    Some(file.patch_line),
                ));
            }
            changes.push(FileChange::Write {
                path: dest,
                bytes: new.clone(),
            });
            changes.push(FileChange::Delete { path });
            to.clone()
        }
        None => {
            if report.status == FileStatus::Patched {
                changes.push(FileChange::Write {
                    path,
                    bytes: new.clone(),
                });
            }
            file.path.clone()
        }
    };
    Ok(Some((
        changes,
        FileResult {
            old_path: Some(file.path.clone()),
            new_path: Some(new_path),
            old,
            new,
        },
    )))
}

fn hunk_report(
    index: usize,
    hunk: &Hunk,
    loc: Option<&crate::locate::Located>,
    failure: Option<HunkFailure>,
) -> HunkReport {
    HunkReport {
        index: index + 1,
        patch_line: hunk.patch_line,
        status: loc.map_or(HunkOutcome::Failed, |l| l.status.into()),
        tier: loc.and_then(|l| l.tier),
        normalizations: loc.map(|l| l.normalizations.clone()).unwrap_or_default(),
        lines: loc
            .filter(|l| l.status != HunkStatus::NoOp)
            .map(|l| LineRange {
                start: l.start + 1,
                end: l.end,
            }),
        similarity: loc.map_or(0.0, |l| l.similarity),
        failure,
    }
}

/// Content of an added file: its added (and context) lines.
fn create(
    file: &FilePatch,
    path: PathBuf,
    report: &mut FileReport,
) -> (Vec<FileChange>, FileResult) {
    let mut bytes = Vec::new();
    let mut count = 0;
    let mut missing_newline = false;
    for hunk in &file.hunks {
        for line in hunk.new_lines() {
            bytes.extend_from_slice(line.text.as_bytes());
            bytes.push(b'\n');
            count += 1;
        }
        missing_newline = hunk.new_missing_newline;
    }
    if missing_newline && bytes.last() == Some(&b'\n') {
        bytes.pop();
    }
    report.added = count;
    report.status = FileStatus::Patched;
    for (i, hunk) in file.hunks.iter().enumerate() {
        report.hunks.push(HunkReport {
            lines: Some(LineRange {
                start: 1,
                end: count,
            }),
            ..hunk_report(i, hunk, None, None)
        });
        if let Some(h) = report.hunks.last_mut() {
            h.status = HunkOutcome::Applied;
            h.similarity = 1.0;
        }
    }
    (
        vec![FileChange::Write {
            path,
            bytes: bytes.clone(),
        }],
        FileResult {
            old_path: None,
            new_path: Some(file.path.clone()),
            old: Vec::new(),
            new: bytes,
        },
    )
}

fn read_target(path: &Path, shown: &str, line: Option<usize>) -> Result<Option<Vec<u8>>, Problem> {
    match fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Problem::new("io_error", format!("{shown}: {e}"), line)),
        Ok(meta) if meta.is_dir() => Err(Problem::new(
            "not_a_file",
            format!("{shown}: is a directory"),
            line,
        )),
        Ok(meta) if !meta.is_file() && !meta.file_type().is_symlink() => Err(Problem::new(
            "not_a_file",
            format!("{shown}: not a regular file"),
            line,
        )),
        Ok(_) => fs::read(path)
            .map(Some)
            .map_err(|e| Problem::new("io_error", format!("{shown}: {e}"), line)),
    }
}

/// Joins a patch path to the root, refusing absolute paths, `..` and `.git`.
fn resolve(root: &Path, rel: &str) -> Result<PathBuf, String> {
    let path = Path::new(rel);
    if rel.is_empty() || rel.contains('\0') {
        return Err(format!("{rel:?}: not a usable path"));
    }
    let mut out = root.to_path_buf();
    for part in path.components() {
        match part {
            Component::Normal(p) if p == ".git" => {
                return Err(format!("{rel}: the patch may not touch .git/"));
            }
            Component::Normal(p) => out.push(p),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                return Err(format!("{rel}: the path leaves the working tree"));
            }
        }
    }
    Ok(out)
}
