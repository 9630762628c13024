//! The writing steps of a run: the working tree (all or nothing), `.rej`
//! files and the index, undone together when one fails; and the conflict
//! report a run that wrote nothing leaves.

use super::{ConflictReport, Destination, Invocation, Outcome, RunError};
use crate::git::{GitError, ReadBack, Repo, WrittenBack};
use crate::journal::JournalSpec;
use crate::outcome::Problem;
use crate::plan::{FileResult, NewContent, PatchPlan};
use crate::progress::Progress;
use crate::report::{Report, conflict};
use crate::source::WorktreeTargets;
use crate::write::{commit_with_progress, worktree_changes};
use std::path::{Path, PathBuf};

/// Where a run writes: its repository (if any), tree and journal.
pub(super) struct Place<'a> {
    pub(super) repo: Option<&'a Repo>,
    pub(super) root: &'a Path,
    pub(super) targets: &'a WorktreeTargets,
    pub(super) spec: &'a JournalSpec,
}

/// Writes the planned results: the working tree (all or nothing), `.rej`
/// files, and the index through `index` (the index read and its lock) when
/// staging. Returns the `.rej` files written.
pub(super) fn write_results(
    place: &Place,
    plan: &mut PatchPlan,
    report: &Report,
    index: Option<(gix::index::File, crate::git::IndexLock)>,
    inv: &Invocation,
    progress: &dyn Progress,
) -> Result<Vec<PathBuf>, RunError> {
    if let Some(r) = place.repo
        && inv.destination != Destination::Cached
    {
        convert_added_files(r, plan.results_mut())?;
    }
    let committed = if inv.destination == Destination::Cached {
        None
    } else {
        let changes =
            worktree_changes(plan.results(), place.targets).map_err(Problem::of_target)?;
        Some(commit_with_progress(
            &changes,
            place.root,
            Some(place.spec),
            progress,
        )?)
    };
    // Whatever fails from here on undoes the working-tree commit.
    let staged = (|| -> Result<Vec<PathBuf>, RunError> {
        let rejects = if inv.reject {
            conflict::write_rejects(report, place.targets)?
        } else {
            Vec::new()
        };
        if let (Some(r), Some((mut ix, lock))) = (place.repo, index) {
            // `--index` stages the bytes the commit wrote, read back, rather
            // than rendering each file's new content a second time.
            let written = committed.as_ref().map(|c| c.written());
            let read_back = |path: &str| {
                // The path itself: what the run wrote may be a link.
                let target = place.targets.resolve_entry(path).ok()?;
                let written = written.as_ref()?.get(target.as_path())?;
                let back = if written.link {
                    written.read_back(&target).map(|b| b.map(WrittenBack::Link))
                } else {
                    written.open_back(&target).map(|file| {
                        file.map(|file| WrittenBack::File {
                            file,
                            path: target.clone(),
                            written: *written,
                        })
                    })
                };
                Some(match back {
                    Ok(Some(back)) => Ok(back),
                    Ok(None) => Err(GitError::ChangedAfterWriting(path.to_string())),
                    Err(source) => Err(GitError::ReadBack {
                        path: path.to_string(),
                        source,
                    }),
                })
            };
            let worktree: Option<ReadBack> =
                (inv.destination == Destination::Index).then_some(&read_back);
            r.stage(&mut ix, plan.results(), worktree, lock)?;
        }
        Ok(rejects)
    })();
    match (staged, committed) {
        (Ok(rejects), committed) => {
            if let Some(c) = committed {
                c.finish()?;
            }
            Ok(rejects)
        }
        (Err(e), Some(c)) => Err(match c.roll_back() {
            Ok(undone) => RunError::Undone {
                first: Box::new(e),
                journal: undone.journal,
                left_alone: undone.left_alone,
            },
            Err(undo) => RunError::Unfinished {
                first: Box::new(e),
                undo,
            },
        }),
        // `--cached`: the index lock is released unwritten.
        (Err(e), None) => Err(RunError::NotStaged(Box::new(e))),
    }
}

/// Writes the conflict report of a run that wrote nothing because something
/// did not apply, or removes the one an earlier run left once a run
/// succeeds: it no longer describes the tree. Outside a repository a report
/// is written (and removed) only where `--report` asks.
pub(super) fn conflict_report(outcome: &mut Outcome, inv: &Invocation, repo: Option<&Repo>) {
    let base = inv
        .report_path
        .clone()
        .or_else(|| repo.map(|r| r.git_dir().join("fuzzy-apply").join("last-report")));
    let (Some(base), false) = (base, inv.dry_run) else {
        return;
    };
    if outcome.report.ok {
        conflict::remove(&base);
    } else {
        let rerun = inv.rerun.as_deref();
        outcome.conflict_report = conflict::write(&outcome.report, &base, rerun)
            .ok()
            .map(|(markdown, json)| ConflictReport { markdown, json });
    }
}

/// Added files are built with LF endings; give them what `.gitattributes`
/// and `core.autocrlf` ask for in the working tree.
pub(super) fn convert_added_files<'a>(
    repo: &Repo,
    results: impl Iterator<Item = &'a mut FileResult>,
) -> Result<(), GitError> {
    let mut added = results
        .filter(|r| {
            // A file replacing a symbolic link is added too; a link's
            // target is never converted.
            (r.old_path.is_none() || r.old_is_link()) && r.new_path.is_some() && !r.new_is_link()
        })
        .peekable();
    if added.peek().is_none() {
        return Ok(());
    }
    let mut converter = repo.worktree_converter()?;
    for r in added {
        let Some(path) = &r.new_path else { continue };
        let bytes = r.new_bytes();
        // Kept as it is when nothing converts it (an added file's lines
        // share the patch text; its bytes are a copy).
        if let Some(converted) = converter.convert(path, &bytes)? {
            drop(bytes);
            r.content_changed = !converted.is_empty();
            r.new = NewContent::Bytes(converted);
        }
    }
    Ok(())
}
