//! One invocation's planning: parse the patch, read each target through
//! [`Targets`], locate and plan every hunk, and say what every file becomes.
//! Nothing is written here; the caller commits the results only if every
//! hunk of every file succeeded (`crate::write`, `crate::git`).

pub(crate) mod binary;
pub(crate) mod checks;
mod done;
mod done_in_order;
pub(crate) mod edits;
mod elision;
mod eof_blank;
mod escaped;
mod file;
mod gutter;
mod hunks;
mod link;
mod options;
mod pin_check;
mod produced;
mod reach;
pub(crate) mod render;
mod rerun;
mod reverse;
mod sequence;
mod transform;
mod typechange;

use crate::model::{LineText, SYMLINK_MODE};
use crate::outcome::{FileReport, FileStatus, Problem, ProblemCode};
use crate::patch::{PatchText, parse_patch_text};
use crate::plan::edits::FilePlan;
use crate::plan::render::render_to_vec;
use crate::progress::{NoProgress, Progress, Stage, Workload};
use crate::source::Content;
use crate::source::{LineIndex, SourceText};
use crate::source::{Targets, WorktreeTargets};
use file::plan_one;
pub use options::{ApplyOptions, PathRule, Pin};
use std::borrow::Cow;
use std::path::Path;
use transform::{Unit, merge_same_paths, transform};

/// What planning one file gives: its result, or `None` when nothing is to
/// be written for it (already done, or refused with its report filled in).
type Planned = Option<FileResult>;

/// The planner of the units about symbolic links and typechanges
/// ([`typechange::plan_unit`]):
/// a unit it does not take is given back.
type LinkPlanner = fn(
    Unit,
    &dyn Targets,
    &mut FileReport,
) -> Result<Result<Planned, Problem>, Box<crate::model::FilePatch>>;

/// What one target becomes.
///
/// ```
/// use git_fuzzy_apply::plan_patch;
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "x\n").unwrap();
/// let patch = b"*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-x\n+y\n*** End Patch\n";
/// let plan = plan_patch(patch, dir.path(), &Default::default()).unwrap();
/// let result = plan.results().next().unwrap();
/// assert_eq!(result.old_path.as_deref(), Some("a.txt"));
/// assert_eq!(result.new_path.as_deref(), Some("b.txt"));
/// assert_eq!((result.old_bytes(), &*result.new_bytes()), (&b"x\n"[..], &b"y\n"[..]));
/// assert!(result.content_changed && result.changes_anything());
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub struct FileResult {
    /// Path before the patch (`None` for an added file).
    pub old_path: Option<String>,
    /// Path after the patch (`None` for a deleted file).
    pub new_path: Option<String>,
    /// Content before (empty for an added file); see [`old_bytes`](Self::old_bytes).
    pub(crate) old: Content,
    /// Content after; see [`new_bytes`](Self::new_bytes).
    pub(crate) new: NewContent,
    /// The file's mode (`0o100644`, `0o100755`, `0o120000` for a symbolic
    /// link) when known: the existing file's, or an added file's.
    pub mode: Option<u32>,
    /// The mode the patch sets (`new mode` / `new file mode`), if it sets one.
    pub new_mode: Option<u32>,
    /// True when the new content differs from the old (decided once, when planned).
    pub content_changed: bool,
}

/// The content of a result: given outright, or the original with edits
/// spliced in (rendered only when written, straight into the file).
#[derive(Debug)]
pub(crate) enum NewContent {
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
    /// assert!(!plan.results().next().unwrap().changes_anything());
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
    /// assert_eq!(plan.results().next().unwrap().new_mode, Some(0o100755));
    /// assert!(plan.results().next().unwrap().mode_changes() && !plan.results().next().unwrap().content_changed);
    /// ```
    pub fn mode_changes(&self) -> bool {
        self.old_path.is_some() && self.new_mode.is_some() && self.new_mode != self.mode
    }

    /// True when the old path is a symbolic link (its content, the link's
    /// target), which the patch retargets, moves, deletes or replaces.
    ///
    /// ```
    /// use git_fuzzy_apply::plan_patch;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// std::os::unix::fs::symlink("a.txt", dir.path().join("l")).unwrap();
    /// let patch = b"diff --git a/l b/l\ndeleted file mode 120000\n--- a/l\n+++ /dev/null\n@@ -1 +0,0 @@\n-a.txt\n\\ No newline at end of file\n";
    /// let plan = plan_patch(patch, dir.path(), &Default::default()).unwrap();
    /// let result = plan.results().next().unwrap();
    /// assert!(result.old_is_link() && !result.new_is_link());
    /// assert_eq!(result.old_bytes(), b"a.txt");
    /// ```
    pub fn old_is_link(&self) -> bool {
        self.old_path.is_some() && self.mode == Some(SYMLINK_MODE)
    }

    /// True when the new path is a symbolic link, whose target is
    /// [`new_bytes`](Self::new_bytes).
    ///
    /// ```
    /// use git_fuzzy_apply::plan_patch;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let patch = b"diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+a.txt\n\\ No newline at end of file\n";
    /// let plan = plan_patch(patch, dir.path(), &Default::default()).unwrap();
    /// let result = plan.results().next().unwrap();
    /// assert!(result.new_is_link() && !result.old_is_link());
    /// assert_eq!(&*result.new_bytes(), b"a.txt");
    /// ```
    pub fn new_is_link(&self) -> bool {
        self.new_path.is_some() && self.new_mode.or(self.mode) == Some(SYMLINK_MODE)
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
    /// assert_eq!(plan.results().next().unwrap().old_bytes(), b"bye\n");
    /// assert_eq!(plan.results().next().unwrap().new_path, None);
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
    /// assert_eq!(&*plan.results().next().unwrap().new_bytes(), b"hello\n");
    /// assert!(plan.results().next().unwrap().old_bytes().is_empty());
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

/// A planned run: one entry per target file, each with what happened to it
/// and, when it could be planned, what it becomes. Whether the run is
/// [`ok`](Self::ok) is computed from the entries, never stored beside them;
/// the report people and tools read is built from the plan
/// ([`report`](Self::report)).
///
/// ```
/// use git_fuzzy_apply::plan_patch;
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
/// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n-a\n+b\n--- a/nope.txt\n+++ b/nope.txt\n@@\n-a\n+b\n";
/// let plan = plan_patch(patch, dir.path(), &Default::default()).unwrap();
/// // One file cannot be planned: the plan is refused as a whole.
/// assert!(!plan.ok());
/// assert_eq!(plan.files.len(), 2);
/// assert_eq!(plan.results().count(), 1);
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub struct PatchPlan {
    /// A problem with the patch or the run as a whole (it could not be
    /// read, a pin names no place, …).
    pub error: Option<Problem>,
    /// One entry per target file, in the order of the patch.
    pub files: Vec<PlannedFile>,
}

/// One target file of a [`PatchPlan`]: what happened to it and its hunks,
/// and what it becomes when it could be planned.
///
/// ```
/// use git_fuzzy_apply::plan_patch;
/// use git_fuzzy_apply::report::FileStatus;
///
/// let dir = tempfile::tempdir().unwrap();
/// let patch = b"--- a/gone.txt\n+++ b/gone.txt\n@@\n-x\n+y\n";
/// let plan = plan_patch(patch, dir.path(), &Default::default()).unwrap();
/// let file = &plan.files[0];
/// assert_eq!((file.report.path.as_str(), file.report.status), ("gone.txt", FileStatus::Failed));
/// assert!(file.result.is_none());
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub struct PlannedFile {
    /// Its status, error and hunks, as the report shows them.
    pub report: FileReport,
    /// What the file becomes; `None` when it could not be planned (or was
    /// refused after planning).
    pub result: Option<FileResult>,
}

impl PlannedFile {
    /// A file refused as a whole: its status failed, `problem` its error,
    /// and nothing to write. The one way a planned file is refused, so that
    /// its report and its result cannot disagree.
    pub(crate) fn refuse(&mut self, problem: Problem) {
        self.report.status = FileStatus::Failed;
        self.report.error = Some(problem);
        self.result = None;
    }
}

impl PatchPlan {
    /// A plan that stops before any file: `problem` is its error.
    pub(crate) fn failed(problem: Problem) -> PatchPlan {
        PatchPlan {
            error: Some(problem),
            files: Vec::new(),
        }
    }

    /// True when the patch was read and every hunk of every file can be
    /// applied (no file failed, none only partly planned).
    ///
    /// ```
    /// use git_fuzzy_apply::plan_patch;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    /// let plan = plan_patch(b"--- a/a.txt\n+++ b/a.txt\n@@\n-a\n+b\n", dir.path(), &Default::default());
    /// assert!(plan.unwrap().ok());
    /// let plan = plan_patch(b"no patch here", dir.path(), &Default::default()).unwrap();
    /// assert!(!plan.ok() && plan.error.is_some());
    /// ```
    pub fn ok(&self) -> bool {
        self.error.is_none()
            && self
                .files
                .iter()
                .all(|f| !matches!(f.report.status, FileStatus::Failed | FileStatus::Partial))
    }

    /// What every file that could be planned becomes, in the order of the
    /// patch (all files when [`ok`](Self::ok)).
    ///
    /// ```
    /// use git_fuzzy_apply::plan_patch;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let patch = b"--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n";
    /// let plan = plan_patch(patch, dir.path(), &Default::default()).unwrap();
    /// let paths: Vec<_> = plan.results().map(|r| r.new_path.as_deref()).collect();
    /// assert_eq!(paths, [Some("new.txt")]);
    /// ```
    pub fn results(&self) -> impl Iterator<Item = &FileResult> {
        self.files.iter().filter_map(|f| f.result.as_ref())
    }

    /// [`results`](Self::results), to change them (line endings of added
    /// files) before they are written.
    pub(crate) fn results_mut(&mut self) -> impl Iterator<Item = &mut FileResult> {
        self.files.iter_mut().filter_map(|f| f.result.as_mut())
    }
}

/// Parses `patch` and plans it against the files under the directory
/// `root` (paths in the patch are relative to it). Reads, writes nothing;
/// fails only when `root` cannot be opened; every problem with the patch
/// or a file is in the plan's [`Report`](crate::report::Report).
///
/// ```
/// use git_fuzzy_apply::plan_patch;
/// use git_fuzzy_apply::report::FileStatus;
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
/// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n";
/// let plan = plan_patch(patch, dir.path(), &Default::default()).unwrap();
/// assert!(plan.ok());
/// assert_eq!(plan.files[0].report.status, FileStatus::Patched);
/// assert_eq!(&*plan.results().next().unwrap().new_bytes(), b"one\n2\n");
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
pub(crate) fn plan_patch_with(
    patch: &PatchText,
    targets: &dyn Targets,
    options: &ApplyOptions,
    progress: &dyn Progress,
) -> PatchPlan {
    let parsed = match parse_patch_text(patch, &options.parse) {
        Ok(p) => p,
        Err(e) => return PatchPlan::failed(Problem::new(e.code(), e.to_string(), e.line())),
    };
    let files = match transform(parsed, options, targets).and_then(merge_same_paths) {
        Ok(files) => files,
        Err(problem) => return PatchPlan::failed(problem),
    };
    if progress.is_active() {
        let bytes = files
            .iter()
            .filter_map(|u| targets.size(&u.file.path))
            .sum();
        let files = files.len() as u64;
        progress.start(Stage::Planning, Workload { files, bytes });
    }
    // Files are independent once merged by path: plan them on every core
    // when the targets allow it (reading is most of the work for small files).
    // Each file patch is consumed as it is planned: an added file takes
    // over its hunk lines (which point into the patch text) instead of
    // copying them into bytes, so a large patch of new files is held once.
    let plan = |unit: Unit, targets: &dyn Targets| {
        let path = unit.file.path.clone();
        let planned = plan_one(unit, targets, options, typechange::plan_unit);
        progress.file_done(&path);
        planned
    };
    let mut files: Vec<PlannedFile> = match targets.parallel() {
        Some(shared) if files.len() > 1 => {
            use rayon::prelude::*;
            files
                .into_par_iter()
                .map(|file| plan(file, shared))
                .collect()
        }
        _ => files.into_iter().map(|file| plan(file, targets)).collect(),
    };
    refuse_path_conflicts(&mut files);
    PatchPlan { error: None, files }
}

/// A result path that is also the directory of another result path (`d` and
/// `d/x.txt`) cannot both be written: refuse before anything is. The file
/// that makes the path a file fails; nothing that names a refused path is
/// written, `--partial` or not, and each file not written is refused with
/// the conflict (never left `patched` with nothing to write).
fn refuse_path_conflicts(files: &mut [PlannedFile]) {
    let mut refused = std::collections::HashMap::new();
    let paths: std::collections::HashSet<String> = files
        .iter()
        .filter_map(|f| f.result.as_ref()?.new_path.clone())
        .collect();
    for b in &paths {
        let ancestors = b.match_indices('/').map(|(i, _)| &b[..i]);
        for a in ancestors.filter(|a| paths.contains(*a)) {
            if let Some(file) = files
                .iter_mut()
                .find(|f| f.report.path == a || f.report.move_to.as_deref() == Some(a))
            {
                let problem = Problem::new(
                    ProblemCode::PathConflict,
                    format!("{a}: the patch makes this a file and also writes {b} beneath it"),
                    None,
                );
                file.refuse(problem.clone());
                refused.insert(a.to_string(), problem);
            }
        }
    }
    let named = |p: &Option<String>| refused.get(p.as_deref()?);
    for file in files {
        let conflict = file
            .result
            .as_ref()
            .and_then(|r| named(&r.new_path).or_else(|| named(&r.old_path)));
        if let Some(problem) = conflict {
            file.refuse(problem.clone());
        }
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
