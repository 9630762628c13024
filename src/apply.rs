//! One invocation's planning: parse the patch, read each target through
//! [`Targets`], locate and plan every hunk, and say what every file becomes.
//! Nothing is written here; the caller commits the results only if every
//! hunk of every file succeeded (`crate::write`, `crate::git`).

use crate::content::Content;
use crate::locate::{HunkStatus, MatchOptions, locate_file};
use crate::model::{FileOp, FilePatch, Hunk, LineKind, LineText, Patch};
use crate::patch::{ParseOptions, PatchText, parse_patch_text};
use crate::plan::FilePlan;
use crate::plan::plan_file;
use crate::progress::{NoProgress, Progress, Stage, Workload};
use crate::report::{
    CandidateView, FileReport, FileStatus, HunkFailure, HunkOutcome, HunkReport, LineRange,
    Problem, ProblemCode, REPORT_VERSION, Report,
};
use crate::source::{LineIndex, SourceText, looks_binary};
use crate::target::{Targets, WorktreeTargets};
use crate::write::render_to_vec;
use std::borrow::Cow;
use std::path::Path;

/// Everything that steers one run.
///
/// The default detects the notation, strips `a/` and `b/`, and allows every
/// matching tier. Here the strictest tier refuses what the default applies:
///
/// ```
/// use git_fuzzy_apply::locate::{MatchOptions, Tier};
/// use git_fuzzy_apply::{apply_to_text, ApplyOptions};
///
/// let file = b"if ready:\n    start()\n";
/// // The context line lost its indentation.
/// let patch = b"--- a/run.py\n+++ b/run.py\n@@\n if ready:\n-start()\n+    start(fast=True)\n";
/// assert!(apply_to_text(patch, file, &ApplyOptions::default()).is_ok());
///
/// let exact = ApplyOptions {
///     matching: MatchOptions { max_tier: Tier::Exact, ..MatchOptions::default() },
///     ..ApplyOptions::default()
/// };
/// assert!(apply_to_text(patch, file, &exact).is_err());
/// ```
#[derive(Debug, Clone, Default)]
pub struct ApplyOptions {
    /// Parsing options (format, `-p`, `--target`).
    pub parse: ParseOptions,
    /// Matching options (similarity threshold, strictest tier).
    pub matching: MatchOptions,
    /// `--directory`: prepended to every path of the patch.
    pub directory: Option<String>,
    /// `--include`/`--exclude` rules in order: `(include?, glob)`; the first
    /// that matches a path decides; with any include rule, unmatched paths
    /// are skipped (as `git apply` does).
    pub path_rules: Vec<(bool, String)>,
    /// `-R`: apply the patch in reverse.
    pub reverse: bool,
    /// `--partial`: plan the hunks that apply even when others fail.
    pub partial: bool,
    /// `--at FILE:LINE`: pin a hunk of FILE whose candidates include LINE (1-based) to it.
    pub pins: Vec<(String, usize)>,
}

/// What one target becomes.
///
/// ```
/// use git_fuzzy_apply::plan_patch;
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "x\n").unwrap();
/// let patch = b"*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-x\n+y\n*** End Patch\n";
/// let plan = plan_patch(patch, dir.path(), &Default::default()).unwrap();
/// let result = &plan.results[0];
/// assert_eq!(result.old_path.as_deref(), Some("a.txt"));
/// assert_eq!(result.new_path.as_deref(), Some("b.txt"));
/// assert_eq!((result.old_bytes(), &*result.new_bytes()), (&b"x\n"[..], &b"y\n"[..]));
/// assert!(result.content_changed && result.changes_anything());
/// ```
#[derive(Debug)]
pub struct FileResult {
    /// Path before the patch (`None` for an added file).
    pub old_path: Option<String>,
    /// Path after the patch (`None` for a deleted file).
    pub new_path: Option<String>,
    /// Content before (empty for an added file); see [`old_bytes`](Self::old_bytes).
    pub(crate) old: Content,
    /// Content after; see [`new_bytes`](Self::new_bytes).
    pub(crate) new: NewContent,
    /// Mode for the new path (`0o100644`, `0o100755`) when known.
    pub mode: Option<u32>,
    /// The mode the patch sets (`new mode` / `new file mode`), if it sets one.
    pub new_mode: Option<u32>,
    /// True when the new content differs from the old (decided once, when planned).
    pub content_changed: bool,
}

/// The content of a result: given outright, or the original with edits
/// spliced in (rendered only when written, straight into the file).
#[derive(Debug)]
pub enum NewContent {
    /// The bytes themselves (deleted files, converted added files, index blobs).
    Bytes(Vec<u8>),
    /// An added file's lines, each ended by a newline but the last when
    /// `final_newline` is false; written line by line (the lines share the
    /// patch text, so a large added file is not held twice).
    Lines {
        /// The lines, without terminators.
        lines: Vec<LineText>,
        /// Whether the last line ends with a newline.
        final_newline: bool,
    },
    /// The original content with this plan applied; the line index of the
    /// original is kept so writing needs no second pass over it.
    Edited(FilePlan, LineIndex),
}

impl FileResult {
    /// True when the result differs from the original (content, path or existence).
    ///
    /// ```
    /// use git_fuzzy_apply::plan_patch;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("a.txt"), "x\n").unwrap();
    /// // Only context: the file is planned but stays as it is.
    /// let plan = plan_patch(b"--- a/a.txt\n+++ b/a.txt\n@@\n x\n", dir.path(), &Default::default())
    ///     .unwrap();
    /// assert!(!plan.results[0].changes_anything());
    /// ```
    pub fn changes_anything(&self) -> bool {
        self.old_path != self.new_path || self.content_changed || self.mode_changes()
    }

    /// True when the patch changes the mode of an existing file.
    ///
    /// ```
    /// use git_fuzzy_apply::plan_patch;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("run.sh"), "echo hi\n").unwrap();
    /// let patch = b"diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n";
    /// let plan = plan_patch(patch, dir.path(), &Default::default()).unwrap();
    /// assert_eq!(plan.results[0].new_mode, Some(0o100755));
    /// assert!(plan.results[0].mode_changes() && !plan.results[0].content_changed);
    /// ```
    pub fn mode_changes(&self) -> bool {
        self.old_path.is_some() && self.new_mode.is_some() && self.new_mode != self.mode
    }

    /// The content before the patch (empty for an added file).
    ///
    /// ```
    /// use git_fuzzy_apply::plan_patch;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("gone.txt"), "bye\n").unwrap();
    /// let patch = b"--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n";
    /// let plan = plan_patch(patch, dir.path(), &Default::default()).unwrap();
    /// assert_eq!(plan.results[0].old_bytes(), b"bye\n");
    /// assert_eq!(plan.results[0].new_path, None);
    /// ```
    pub fn old_bytes(&self) -> &[u8] {
        &self.old
    }

    /// The new content as bytes (rendered when it is a plan).
    ///
    /// ```
    /// use git_fuzzy_apply::plan_patch;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let patch = b"--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hello\n";
    /// let plan = plan_patch(patch, dir.path(), &Default::default()).unwrap();
    /// assert_eq!(&*plan.results[0].new_bytes(), b"hello\n");
    /// assert!(plan.results[0].old_bytes().is_empty());
    /// ```
    pub fn new_bytes(&self) -> Cow<'_, [u8]> {
        match &self.new {
            NewContent::Bytes(bytes) => Cow::Borrowed(bytes),
            NewContent::Lines {
                lines,
                final_newline,
            } => {
                let mut bytes = Vec::new();
                // Writing to a vector cannot fail.
                let _ = write_lines(lines, *final_newline, &mut bytes);
                Cow::Owned(bytes)
            }
            NewContent::Edited(plan, index) => Cow::Owned(render_to_vec(
                &SourceText::with_index(&self.old, index),
                plan,
            )),
        }
    }
}

/// A planned run: the report, and what every file becomes.
///
/// ```
/// use git_fuzzy_apply::plan_patch;
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
/// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n-a\n+b\n--- a/nope.txt\n+++ b/nope.txt\n@@\n-a\n+b\n";
/// let plan = plan_patch(patch, dir.path(), &Default::default()).unwrap();
/// // One file cannot be planned: the plan is refused as a whole.
/// assert!(!plan.report.ok);
/// assert_eq!(plan.report.files.len(), 2);
/// assert_eq!(plan.results.len(), 1);
/// ```
#[derive(Debug)]
pub struct PatchPlan {
    /// What happened to every file and hunk.
    pub report: Report,
    /// One result per file that could be planned (all files when `report.ok`).
    pub results: Vec<FileResult>,
}

/// Parses `patch` and plans it against the files under the directory
/// `root` (paths in the patch are relative to it). Reads, writes nothing;
/// fails only when `root` cannot be opened; every problem with the patch
/// or a file is in the plan's [`Report`].
///
/// ```
/// use git_fuzzy_apply::plan_patch;
/// use git_fuzzy_apply::report::FileStatus;
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
/// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n";
/// let plan = plan_patch(patch, dir.path(), &Default::default()).unwrap();
/// assert!(plan.report.ok);
/// assert_eq!(plan.report.files[0].status, FileStatus::Patched);
/// assert_eq!(&*plan.results[0].new_bytes(), b"one\n2\n");
/// // Planning wrote nothing.
/// assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).unwrap(), "one\ntwo\n");
/// ```
pub fn plan_patch(
    patch: &[u8],
    root: impl AsRef<Path>,
    options: &ApplyOptions,
) -> std::io::Result<PatchPlan> {
    let targets = WorktreeTargets::new(root.as_ref())?;
    let text = PatchText::from(patch.to_vec());
    Ok(plan_patch_with(&text, &targets, options, &NoProgress))
}

/// [`plan_patch`], telling `progress` about the planning stage: its
/// [`Workload`] (the size of each target only when the observer
/// [is active](Progress::is_active)), then each file as it is planned.
pub fn plan_patch_with(
    patch: &PatchText,
    targets: &dyn Targets,
    options: &ApplyOptions,
    progress: &dyn Progress,
) -> PatchPlan {
    let mut report = Report {
        version: REPORT_VERSION,
        ok: false,
        check: false,
        error: None,
        files: Vec::new(),
    };
    let parsed = match parse_patch_text(patch, &options.parse) {
        Ok(p) => p,
        Err(e) => {
            report.error = Some(Problem::new(e.code(), e.to_string(), e.line()));
            return PatchPlan {
                report,
                results: Vec::new(),
            };
        }
    };
    let mut results = Vec::new();
    let files = match transform(parsed, options).and_then(merge_same_paths) {
        Ok(files) => files,
        Err(problem) => {
            report.error = Some(problem);
            return PatchPlan { report, results };
        }
    };
    if progress.is_active() {
        let bytes = files.iter().filter_map(|f| targets.size(&f.path)).sum();
        let files = files.len() as u64;
        progress.start(Stage::Planning, Workload { files, bytes });
    }
    // Files are independent once merged by path: plan them on every core
    // when the targets allow it (reading is most of the work for small files).
    // Each file patch is consumed as it is planned: an added file takes
    // over its hunk lines (which point into the patch text) instead of
    // copying them into bytes, so a large patch of new files is held once.
    let plan = |file: FilePatch, targets: &dyn Targets| {
        let path = file.path.clone();
        let planned = plan_one(file, targets, options);
        progress.file_done(&path);
        planned
    };
    let planned: Vec<_> = match targets.parallel() {
        Some(shared) if files.len() > 1 => {
            use rayon::prelude::*;
            files
                .into_par_iter()
                .map(|file| plan(file, shared))
                .collect()
        }
        _ => files.into_iter().map(|file| plan(file, targets)).collect(),
    };
    for (file_report, outcome) in planned {
        results.extend(outcome);
        report.files.push(file_report);
    }
    refuse_path_conflicts(&results, &mut report);
    report.ok = report
        .files
        .iter()
        .all(|f| !matches!(f.status, FileStatus::Failed | FileStatus::Partial));
    PatchPlan { report, results }
}

/// A result path that is also the directory of another result path (`d` and
/// `d/x.txt`) cannot both be written: refuse before anything is.
fn refuse_path_conflicts(results: &[FileResult], report: &mut Report) {
    let paths: std::collections::HashSet<&str> = results
        .iter()
        .filter_map(|r| r.new_path.as_deref())
        .collect();
    for &b in &paths {
        let ancestors = b.match_indices('/').map(|(i, _)| &b[..i]);
        for a in ancestors.filter(|a| paths.contains(a)) {
            if let Some(file) = report
                .files
                .iter_mut()
                .find(|f| f.path == a || f.move_to.as_deref() == Some(a))
            {
                file.status = FileStatus::Failed;
                file.error = Some(Problem::new(
                    ProblemCode::PathConflict,
                    format!("{a}: the patch makes this a file and also writes {b} beneath it"),
                    None,
                ));
            }
        }
    }
}

/// Applies `--directory`, `--include`/`--exclude` and `-R` to a parsed patch.
fn transform(mut patch: Patch, options: &ApplyOptions) -> Result<Patch, Problem> {
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
    for hunk in &mut file.hunks {
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
fn merge_same_paths(patch: Patch) -> Result<Vec<FilePatch>, Problem> {
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
                prev.hunks.extend(file.hunks);
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

type Planned = Option<FileResult>;

fn plan_one(
    file: FilePatch,
    targets: &dyn Targets,
    options: &ApplyOptions,
) -> (FileReport, Planned) {
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
    match plan_one_inner(file, targets, options, &mut report) {
        Ok(planned) => (report, planned),
        Err(problem) => {
            report.status = FileStatus::Failed;
            report.error = Some(problem);
            (report, None)
        }
    }
}

fn plan_one_inner(
    file: FilePatch,
    targets: &dyn Targets,
    options: &ApplyOptions,
    report: &mut FileReport,
) -> Result<Planned, Problem> {
    let line = Some(file.patch_line);
    let existing = targets.read(&file.path).map_err(|p| Problem {
        patch_line: line,
        ..p
    })?;
    match (file.op, existing) {
        (FileOp::Add, Some(_)) => Err(Problem::new(
            ProblemCode::FileExists,
            format!(
                "{}: the patch adds this file but it already exists",
                file.path
            ),
            line,
        )),
        (FileOp::Add, None) => Ok(Some(create(file, report))),
        (FileOp::Update, None) if file.create_if_missing => Ok(Some(create(file, report))),
        (FileOp::Update | FileOp::Delete, None) => Err(Problem::new(
            ProblemCode::FileNotFound,
            format!("{}: no such file", file.path),
            line,
        )),
        (FileOp::Delete, Some(old)) => {
            report.removed = old.source().len();
            report.status = FileStatus::Patched;
            let mode = known_mode(&old, targets, &file.path);
            Ok(Some(FileResult {
                old_path: Some(file.path.clone()),
                new_path: None,
                content_changed: !old.is_empty(),
                old,
                new: NewContent::Bytes(Vec::new()),
                mode,
                new_mode: None,
            }))
        }
        (FileOp::Update, Some(old)) => {
            let mode = known_mode(&old, targets, &file.path);
            update(&file, targets, old, mode, options, report)
        }
    }
}

fn update(
    file: &FilePatch,
    targets: &dyn Targets,
    old: Content,
    mode: Option<u32>,
    options: &ApplyOptions,
    report: &mut FileReport,
) -> Result<Planned, Problem> {
    let line = Some(file.patch_line);
    if looks_binary(&old) {
        return Err(Problem::new(
            ProblemCode::BinaryFile,
            format!(
                "{}: the file is binary; only text files are patched",
                file.path
            ),
            line,
        ));
    }
    let source = old.source();
    let pins: Vec<usize> = options
        .pins
        .iter()
        .filter(|(path, _)| *path == file.path)
        .map(|(_, line)| line.saturating_sub(1))
        .collect();
    let (hunks, results) = locate_file(&source, &file.hunks, &options.matching, &pins);
    let mut located = Vec::new();
    for (i, (hunk, result)) in hunks.iter().zip(results).enumerate() {
        match result {
            Ok(loc) => {
                report.hunks.push(hunk_report(i, hunk, Some(&loc), None));
                located.push(loc);
            }
            Err(failure) => {
                let old_len = hunk.old_len();
                let candidate_context = failure
                    .candidates
                    .iter()
                    .take(10)
                    .map(|&line| CandidateView {
                        line,
                        tier: failure.tie.map(|t| t.0),
                        score: failure.tie.map_or(1.0, |t| t.1),
                        lines: (line.saturating_sub(3)..(line + old_len + 2).min(source.len()))
                            .map(|j| (j + 1, source.line_text(j).into_owned()))
                            .collect(),
                    })
                    .collect();
                let fail = HunkFailure {
                    code: failure.reason,
                    message: failure.message,
                    expected: hunk.old_lines().map(|l| l.text.to_string()).collect(),
                    candidates: failure.candidates,
                    candidate_context,
                    near_match: failure.near,
                    hunk_text: hunk_text(hunk),
                };
                report.hunks.push(hunk_report(i, hunk, None, Some(fail)));
            }
        }
    }
    let failed = report.hunks.iter().any(|h| h.status == HunkOutcome::Failed);
    if failed && !options.partial {
        report.status = FileStatus::Failed;
        return Ok(None);
    }
    let plan = plan_file(&source, &hunks, &mut located);
    result_ranges(&plan, report);
    for loc in &located {
        if let Some(h) = report.hunks.get_mut(loc.hunk) {
            h.normalizations.clone_from(&loc.normalizations);
        }
    }
    let changed = plan.changes(&source);
    let index = source.into_index();
    for loc in located.iter().filter(|l| l.status == HunkStatus::Applied) {
        if let Some(h) = hunks.get(loc.hunk) {
            report.added += h.lines.iter().filter(|l| l.kind == LineKind::Add).count();
            report.removed += h
                .lines
                .iter()
                .filter(|l| l.kind == LineKind::Remove)
                .count();
        }
    }
    let moved = file.move_to.as_ref().filter(|to| **to != file.path);
    report.status = if failed {
        FileStatus::Partial
    } else if !changed && moved.is_none() {
        FileStatus::Unchanged
    } else {
        FileStatus::Patched
    };
    if let Some(to) = moved
        && targets.exists(to).map_err(|p| Problem {
            patch_line: Some(file.patch_line),
            ..p
        })?
    {
        return Err(Problem::new(
            ProblemCode::FileExists,
            format!("{}: cannot move to {to}: it already exists", file.path),
            Some(file.patch_line),
        ));
    }
    Ok(Some(FileResult {
        old_path: Some(file.path.clone()),
        new_path: Some(moved.unwrap_or(&file.path).clone()),
        old,
        new: NewContent::Edited(plan, index),
        mode,
        new_mode: file.new_mode,
        content_changed: changed,
    }))
}

/// The git mode of a target: from the stamp taken when it was read, or
/// else asked of the targets.
fn known_mode(old: &Content, targets: &dyn Targets, path: &str) -> Option<u32> {
    old.stamp()
        .map(|s| s.git_mode())
        .or_else(|| targets.mode(path))
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
        similarity: loc
            .map(|l| l.similarity)
            .or_else(|| failure.as_ref().and_then(closest_score))
            .unwrap_or(0.0),
        new_lines: None,
        failure,
    }
}

/// The score of the closest place a failed hunk had: its near match's
/// similarity, or the score the candidates of an ambiguous hunk tied at.
fn closest_score(failure: &HunkFailure) -> Option<f64> {
    match &failure.near_match {
        Some(near) => Some(near.similarity),
        None => failure.candidate_context.first().map(|c| c.score),
    }
}

/// Records where each applied hunk's result lies in the patched file: its
/// edit's start moved by the lines every earlier edit added or removed.
fn result_ranges(plan: &FilePlan, report: &mut FileReport) {
    let (mut grown, mut shrunk) = (0usize, 0usize);
    for edit in &plan.edits {
        let start = (edit.start + grown).saturating_sub(shrunk);
        if let Some(h) = report.hunks.get_mut(edit.hunk) {
            h.new_lines = Some(LineRange {
                start: start + 1,
                end: start + edit.lines.len(),
            });
        }
        grown += edit.lines.len();
        shrunk += edit.end - edit.start;
    }
}

/// The hunk as a unified-diff body.
fn hunk_text(hunk: &Hunk) -> String {
    let mut out = String::new();
    for line in &hunk.lines {
        out.push(match line.kind {
            LineKind::Context => ' ',
            LineKind::Remove => '-',
            LineKind::Add => '+',
        });
        out.push_str(&line.text);
        out.push('\n');
    }
    out
}

/// The result of adding a file: its content is the new side of its hunks
/// (context lines included), whose lines it takes over.
fn create(mut file: FilePatch, report: &mut FileReport) -> FileResult {
    let count = file.hunks.iter().map(|h| h.new_lines().count()).sum();
    let final_newline = !file.hunks.last().is_some_and(|h| h.new_missing_newline);
    let mut lines = Vec::with_capacity(count);
    for hunk in &mut file.hunks {
        let taken = std::mem::take(&mut hunk.lines);
        lines.extend(taken.into_iter().filter(|l| l.is_new()).map(|l| l.text));
    }
    // Empty only without lines, or with one empty line and no newline.
    let empty = lines.is_empty() || (!final_newline && lines.len() == 1 && lines[0].is_empty());
    report.added = count;
    report.status = FileStatus::Patched;
    for (i, hunk) in file.hunks.iter().enumerate() {
        report.hunks.push(HunkReport {
            lines: Some(LineRange {
                start: 1,
                end: count,
            }),
            new_lines: Some(LineRange {
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
    FileResult {
        old_path: None,
        new_path: Some(file.path),
        old: Content::Owned(Vec::new()),
        content_changed: !empty,
        new: NewContent::Lines {
            lines,
            final_newline,
        },
        mode: file.new_mode,
        new_mode: file.new_mode,
    }
}

/// Writes `lines`, each ended by a newline but the last when
/// `final_newline` is false.
pub(crate) fn write_lines<W: std::io::Write>(
    lines: &[LineText],
    final_newline: bool,
    out: &mut W,
) -> std::io::Result<()> {
    for (i, line) in lines.iter().enumerate() {
        out.write_all(line.as_bytes())?;
        if final_newline || i + 1 < lines.len() {
            out.write_all(b"\n")?;
        }
    }
    Ok(())
}
