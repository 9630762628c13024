//! From planned results to disk changes: what to write where, and how to
//! recognise that each target is still as it was read.

use super::stage::exec_bits;
use super::{Expect, FileChange};
use crate::plan::FileResult;
use crate::source::Content;
use crate::source::{TargetError, WorktreeTargets};

/// How to recognise that a file (`link`: a symbolic link) is still as it
/// was read.
fn expect_of(old: &Content, link: bool) -> Expect<'_> {
    if link {
        return Expect::Link(old);
    }
    match old.stamp() {
        Some(stamp) => Expect::Stamp(stamp),
        None => Expect::Content(old),
    }
}

/// The disk changes that turn planned results into files under `targets`.
pub(crate) fn worktree_changes<'a>(
    results: impl IntoIterator<Item = &'a FileResult>,
    targets: &WorktreeTargets,
) -> Result<Vec<FileChange<'a>>, TargetError> {
    let mut writes = Vec::new();
    let mut deletes = Vec::new();
    // With `core.symlinks=false` a link is a regular file holding its
    // target, checked and replaced as any file is.
    let real_link = |link: bool| link && !targets.links_as_files();
    for r in results.into_iter().filter(|r| r.changes_anything()) {
        let (old_link, new_link) = (real_link(r.old_is_link()), real_link(r.new_is_link()));
        // A symbolic link on either side is replaced or removed itself: its
        // path is checked up to its directory, the link never followed.
        let links = r.old_is_link() || r.new_is_link();
        let resolve = |path: &str| {
            if links {
                targets.resolve_entry(path)
            } else {
                targets.resolve_checked(path)
            }
        };
        if let Some(new_path) = &r.new_path {
            let moved = r.old_path.as_ref() != Some(new_path);
            writes.push(FileChange::Write {
                path: resolve(new_path)?,
                old: &r.old,
                new: &r.new,
                expect: if r.old_path.is_none() || moved {
                    Expect::Absent
                } else {
                    expect_of(&r.old, old_link)
                },
                link: new_link,
                // A file edited in place keeps its own permission bits (a
                // read-only file stays read-only); added and moved files get
                // the mode git would give them.
                mode: if old_link || new_link {
                    // A link has no bits; a file replacing one gets git's.
                    r.new_mode.map(|m| m & 0o777)
                } else if r.new_is_link() {
                    // A link written as a file: git's bits for a file.
                    Some(0o644)
                } else if r.old_path.is_some() && !moved {
                    if r.mode_changes() {
                        exec_bits(&targets.resolve_checked(new_path)?, r.new_mode)
                    } else {
                        // The bits seen when the file was read (saves a stat).
                        r.old.permissions()
                    }
                } else {
                    // A moved file takes the mode its diff gives it
                    // (`new mode 100755` beside `rename to`).
                    r.new_mode.or(r.mode).map(|m| m & 0o777)
                },
            });
        }
        if let Some(old_path) = &r.old_path
            && r.new_path.as_ref() != Some(old_path)
        {
            deletes.push(FileChange::Delete {
                path: resolve(old_path)?,
                expect: expect_of(&r.old, old_link),
            });
        }
    }
    writes.extend(deletes);
    Ok(writes)
}
