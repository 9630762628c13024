//! `git-fuzzy-apply hook`: the pre-commit hook. Patches an agent left in a
//! folder (`.agent-patches/` by default) are applied to the working tree the
//! way formatter hooks fix files: the changes are made, each applied patch is
//! moved into `applied/` with its JSON report, and the hook fails once so
//! that the commit stops and the user reviews and stages the changes. See
//! `docs/pre-commit.md`.
//!
//! Only regular files named `*.patch` or `*.diff` directly in the folder are
//! patches (any notation the command reads may be inside); everything else
//! (a README, hidden files, `applied/`) is left alone.
//!
//! ```
//! use git_fuzzy_apply::{HookMode, run_hook};
//!
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
//! let waiting = dir.path().join(".agent-patches");
//! std::fs::create_dir(&waiting).unwrap();
//! std::fs::write(waiting.join("README.md"), "Patches go here.\n").unwrap();
//! std::fs::write(waiting.join("fix.patch"), "--- a/a.txt\n+++ b/a.txt\n@@\n-one\n+1\n").unwrap();
//!
//! let run = run_hook(dir.path(), &waiting, HookMode::Apply).unwrap();
//! assert_eq!(run.exit_code(), 1); // the commit stops once
//! assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).unwrap(), "1\n");
//! assert!(waiting.join("applied/fix.patch").exists() && waiting.join("README.md").exists());
//! // Nothing waits any more: the next commit goes through.
//! assert_eq!(run_hook(dir.path(), &waiting, HookMode::Apply).unwrap().exit_code(), 0);
//! ```

use crate::patch::PatchText;
use crate::progress::NoProgress;
use crate::report::Report;
use crate::report::human::{self, ErrorStyle};
use crate::run::{Invocation, RunError, run_patch_text};
use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The extensions of the files the hook takes for patches.
pub(crate) const PATCH_EXTENSIONS: [&str; 2] = ["patch", "diff"];

/// The folder applied patches are moved into, inside the patch folder.
pub(crate) const APPLIED_DIR: &str = "applied";

/// What the hook does with waiting patches.
///
/// ```
/// use git_fuzzy_apply::{run_hook, HookMode};
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
/// let waiting = dir.path().join(".agent-patches");
/// std::fs::create_dir(&waiting).unwrap();
/// std::fs::write(waiting.join("fix.diff"), "--- a/a.txt\n+++ b/a.txt\n@@\n-one\n+1\n").unwrap();
/// // --check changes nothing, and fails while the patch waits.
/// assert_eq!(run_hook(dir.path(), &waiting, HookMode::Check).unwrap().exit_code(), 1);
/// assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).unwrap(), "one\n");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookMode {
    /// Apply them, move them to `applied/`, fail once (the pre-commit hook).
    Apply,
    /// Change nothing; fail when any is waiting, saying whether it would
    /// apply (`--check`, for CI).
    Check,
}

/// One waiting patch and what became of it.
///
/// ```
/// use git_fuzzy_apply::{run_hook, HookMode};
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
/// let waiting = dir.path().join(".agent-patches");
/// std::fs::create_dir(&waiting).unwrap();
/// std::fs::write(waiting.join("fix.diff"), "--- a/a.txt\n+++ b/a.txt\n@@\n-one\n+1\n").unwrap();
/// let run = run_hook(dir.path(), &waiting, HookMode::Apply).unwrap();
/// let entry = &run.entries[0];
/// assert!(entry.report.ok);
/// assert!(entry.moved_to.as_ref().unwrap().ends_with("applied/fix.diff"));
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub struct HookEntry {
    /// The patch file.
    pub patch: PathBuf,
    /// Its report (a dry run's in [`HookMode::Check`], or when another
    /// patch stopped the run before it was applied).
    pub report: Report,
    /// Where it was moved, once applied.
    pub moved_to: Option<PathBuf>,
}

/// What one hook run did.
///
/// ```
/// use git_fuzzy_apply::{run_hook, HookMode};
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
/// let waiting = dir.path().join(".agent-patches");
/// std::fs::create_dir(&waiting).unwrap();
/// std::fs::write(waiting.join("fix.diff"), "--- a/a.txt\n+++ b/a.txt\n@@\n-one\n+1\n").unwrap();
/// let run = run_hook(dir.path(), &waiting, HookMode::Check).unwrap();
/// assert_eq!((run.mode, run.entries.len()), (HookMode::Check, 1));
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub struct HookRun {
    /// How the hook ran.
    pub mode: HookMode,
    /// The patch folder.
    pub dir: PathBuf,
    /// Every waiting patch, in name order.
    pub entries: Vec<HookEntry>,
}

impl HookRun {
    /// True when every waiting patch applies (or, with [`HookMode::Apply`],
    /// was applied).
    ///
    /// ```
    /// use git_fuzzy_apply::{run_hook, HookMode};
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    /// let waiting = dir.path().join(".agent-patches");
    /// std::fs::create_dir(&waiting).unwrap();
    /// std::fs::write(waiting.join("fix.diff"), "--- a/a.txt\n+++ b/a.txt\n@@\n-one\n+1\n").unwrap();
    /// std::fs::write(waiting.join("stale.patch"), "--- a/a.txt\n+++ b/a.txt\n@@\n-two\n+2\n").unwrap();
    /// let run = run_hook(dir.path(), &waiting, HookMode::Apply).unwrap();
    /// assert!(!run.all_apply());
    /// // One does not apply: neither is applied.
    /// assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).unwrap(), "one\n");
    /// ```
    pub fn all_apply(&self) -> bool {
        self.entries.iter().all(|e| e.report.ok)
    }

    /// 0 when nothing was waiting, 1 otherwise: the commit stops once so the
    /// changes are reviewed, or because a patch does not apply.
    ///
    /// ```
    /// use git_fuzzy_apply::{run_hook, HookMode};
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let run = run_hook(dir.path(), &dir.path().join(".agent-patches"), HookMode::Apply).unwrap();
    /// assert_eq!(run.exit_code(), 0);
    /// ```
    pub fn exit_code(&self) -> u8 {
        u8::from(!self.entries.is_empty())
    }

    /// The text the hook prints: what was (or would be) applied, the
    /// problems of a patch that does not apply, and what to do next.
    ///
    /// ```
    /// use git_fuzzy_apply::{run_hook, HookMode};
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    /// let waiting = dir.path().join(".agent-patches");
    /// std::fs::create_dir(&waiting).unwrap();
    /// std::fs::write(waiting.join("fix.diff"), "--- a/a.txt\n+++ b/a.txt\n@@\n-one\n+1\n").unwrap();
    /// let text = run_hook(dir.path(), &waiting, HookMode::Apply).unwrap().render(false);
    /// assert!(text.contains("patched a.txt") && text.contains("git add"), "{text}");
    /// ```
    pub fn render(&self, color: bool) -> String {
        let mut out = String::new();
        let style = |patch: &Path| ErrorStyle {
            color,
            rerun: Some(human::shell_word(&patch.display().to_string())),
        };
        // Patches were applied before one failed: the run stopped there.
        let stopped = self.entries.iter().any(|e| e.moved_to.is_some()) && !self.all_apply();
        for entry in &self.entries {
            let name = entry.patch.display();
            let _ = match (&entry.moved_to, entry.report.ok, self.mode) {
                (Some(to), ..) => writeln!(out, "applied {name} (moved to {})", to.display()),
                (None, true, HookMode::Check) => {
                    writeln!(out, "{name} is waiting and would apply:")
                }
                (None, true, HookMode::Apply) => writeln!(
                    out,
                    "{name} was not applied: the run stopped at the patch above; it still waits"
                ),
                (None, false, _) if stopped => writeln!(
                    out,
                    "{name} does not apply after the patches above; nothing of it was written:"
                ),
                (None, false, _) => writeln!(out, "{name} does not apply; nothing was changed:"),
            };
            for line in human::summary(&entry.report, false).lines() {
                let _ = writeln!(out, "  {line}");
            }
            out.push_str(&human::errors_with(&entry.report, &style(&entry.patch)));
        }
        self.next_step(&mut out);
        out
    }

    /// The closing line: what the user does now.
    fn next_step(&self, out: &mut String) {
        let dir = self.dir.display();
        let text = match (self.mode, self.all_apply(), self.entries.is_empty()) {
            (_, _, true) => return,
            (HookMode::Apply, true, _) => format!(
                "Review the changes (git diff), stage them (git add) and commit again; \
                 the applied patches and their reports are in {dir}/{APPLIED_DIR}/."
            ),
            (HookMode::Apply, false, _) => format!(
                "Fix or remove the patch that does not apply (it stays in {dir}/), then \
                 commit again; `git fuzzy-apply --feedback PATCH` gives a model what it \
                 needs to fix it."
            ),
            (HookMode::Check, ..) => format!(
                "Patches are waiting in {dir}/: apply them (git fuzzy-apply hook) and \
                 commit the result."
            ),
        };
        let _ = writeln!(out, "{text}");
    }
}

/// True when `path` is a file the hook takes for a patch: a regular file
/// (or a link to one) whose name is not hidden and ends in `.patch` or
/// `.diff`.
pub(crate) fn is_patch_file(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let extension = path.extension().and_then(|e| e.to_str());
    !name.starts_with('.')
        && extension.is_some_and(|e| PATCH_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
        && path.is_file()
}

/// The patches waiting in `dir`, in name order; none when `dir` does not
/// exist.
pub(crate) fn waiting_patches(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io::Error::new(e.kind(), format!("{}: {e}", dir.display()))),
    };
    let mut patches = Vec::new();
    for entry in entries {
        let path = entry?.path();
        if is_patch_file(&path) {
            patches.push(path);
        }
    }
    patches.sort();
    Ok(patches)
}

/// Runs the hook from `cwd` on the patches waiting in `dir`.
///
/// In [`HookMode::Apply`], every waiting patch is first checked against the
/// tree as it is; if one does not apply, nothing is changed and its report
/// is returned. Otherwise they are applied one after the other, in name
/// order, each moved into `dir/applied/` with its report beside it
/// (`NAME.json`). A patch that applied on its own but not after the ones
/// before it stops the run there; the ones before stay applied.
///
/// ```
/// use git_fuzzy_apply::{run_hook, HookMode};
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
/// let waiting = dir.path().join(".agent-patches");
/// std::fs::create_dir(&waiting).unwrap();
/// std::fs::write(waiting.join("fix.diff"), "--- a/a.txt\n+++ b/a.txt\n@@\n-one\n+1\n").unwrap();
/// let run = run_hook(dir.path(), &waiting, HookMode::Apply).unwrap();
/// assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).unwrap(), "1\n");
/// assert!(!waiting.join("fix.diff").exists());
/// ```
pub fn run_hook(cwd: &Path, dir: &Path, mode: HookMode) -> Result<HookRun, RunError> {
    let mut run = HookRun {
        mode,
        dir: dir.to_path_buf(),
        entries: Vec::new(),
    };
    let patches = waiting_patches(&cwd.join(dir))?;
    let texts = patches
        .iter()
        .map(|p| fs::read(cwd.join(p)).map(PatchText::from))
        .collect::<io::Result<Vec<_>>>()?;
    let check = Invocation {
        dry_run: true,
        ..Invocation::default()
    };
    for (patch, text) in patches.iter().zip(&texts) {
        let outcome = run_patch_text(cwd, text, &check, &NoProgress)?;
        run.entries.push(HookEntry {
            patch: shown_path(patch, cwd),
            report: outcome.report,
            moved_to: None,
        });
    }
    if mode == HookMode::Check || !run.all_apply() {
        return Ok(run);
    }
    for (entry, text) in run.entries.iter_mut().zip(&texts) {
        let apply = Invocation {
            rerun: Some(human::shell_word(&entry.patch.display().to_string())),
            ..Invocation::default()
        };
        let outcome = run_patch_text(cwd, text, &apply, &NoProgress)?;
        entry.report = outcome.report;
        if !entry.report.ok {
            break;
        }
        entry.moved_to = Some(move_applied(cwd, &entry.patch, &entry.report)?);
    }
    Ok(run)
}

/// `patch` relative to `cwd` when it is inside, for messages.
fn shown_path(patch: &Path, cwd: &Path) -> PathBuf {
    patch.strip_prefix(cwd).unwrap_or(patch).to_path_buf()
}

/// Moves an applied patch into `applied/` beside it, under a name not yet
/// taken there, writes its report next to it as `NAME.json`, and returns
/// where the patch now is (relative like `patch`).
fn move_applied(cwd: &Path, patch: &Path, report: &Report) -> io::Result<PathBuf> {
    let folder = patch.parent().unwrap_or(Path::new("")).join(APPLIED_DIR);
    fs::create_dir_all(cwd.join(&folder))?;
    let name = patch.file_name().unwrap_or_default().to_string_lossy();
    let (stem, ext) = name.rsplit_once('.').unwrap_or((&name, ""));
    let mut target = folder.join(&*name);
    let mut n = 2;
    while cwd.join(&target).exists() || cwd.join(report_path(&target)).exists() {
        target = folder.join(format!("{stem}-{n}.{ext}"));
        n += 1;
    }
    let json = serde_json::to_string_pretty(report).map_err(io::Error::other)?;
    fs::write(cwd.join(report_path(&target)), json + "\n")?;
    fs::rename(cwd.join(patch), cwd.join(&target))?;
    Ok(target)
}

/// Where the report of the applied patch `target` is written.
fn report_path(target: &Path) -> PathBuf {
    let mut name = target.as_os_str().to_owned();
    name.push(".json");
    PathBuf::from(name)
}

#[cfg(test)]
mod examples {
    use super::*;

    #[test]
    fn patch_files_end_in_patch_or_diff() {
        assert_eq!(PATCH_EXTENSIONS, ["patch", "diff"]);
    }

    #[test]
    fn applied_patches_and_their_reports_move_into_the_applied_folder() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.txt"), "one\n").unwrap();
        let waiting = dir.path().join(".agent-patches");
        fs::create_dir(&waiting).unwrap();
        let patch = "--- a/a.txt\n+++ b/a.txt\n@@\n-one\n+1\n";
        fs::write(waiting.join("fix.diff"), patch).unwrap();
        run_hook(dir.path(), &waiting, HookMode::Apply).unwrap();
        assert!(waiting.join(APPLIED_DIR).join("fix.diff").exists());
        assert!(waiting.join(APPLIED_DIR).join("fix.diff.json").exists());
    }

    #[test]
    fn only_visible_patch_files_are_taken() {
        let dir = tempfile::tempdir().unwrap();
        let names = ["fix.patch", "b.diff", "README.md", ".x.patch", "notes.txt"];
        for name in names {
            fs::write(dir.path().join(name), "").unwrap();
        }
        let taken: Vec<bool> = names
            .iter()
            .map(|n| is_patch_file(&dir.path().join(n)))
            .collect();
        assert_eq!(taken, [true, true, false, false, false]);
    }

    #[test]
    fn a_missing_folder_has_no_waiting_patches() {
        let dir = tempfile::tempdir().unwrap();
        assert!(
            waiting_patches(&dir.path().join("nope"))
                .unwrap()
                .is_empty()
        );
    }
}
