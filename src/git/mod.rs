//! The git edge, through `gix` (no shelling out): repository discovery, the
//! index as a source of targets (`--cached`), the clean-check of `--index`,
//! `.gitattributes`/`core.autocrlf` conversion of added files, and staging.
//!
//! Writing the index drops extensions gix cannot keep (the tree cache is
//! removed on purpose so git recomputes it; REUC, untracked cache and
//! fsmonitor data are dropped, and a v4 index is written as v2). Git rebuilds
//! all of them on demand. See `docs/git.md`.

use crate::plan::FileResult;
use crate::test_hooks::Step;
use gix::bstr::{BStr, ByteSlice};
use gix::index::entry::{Flags, Mode, Stage, Stat};
use std::borrow::Cow;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Why a git operation failed.
///
/// ```
/// use git_fuzzy_apply::GitError;
/// use std::path::PathBuf;
///
/// // `--index` while another git holds `.git/index.lock`: nothing is written.
/// let locked = GitError::IndexLocked(PathBuf::from(".git/index.lock"));
/// assert!(locked.to_string().contains("another git process seems to be running"));
/// ```
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// Another git process holds the index lock.
    #[error(
        "{0}: another git process seems to be running in this repository (the index is locked); if not, remove the lock file and retry"
    )]
    IndexLocked(PathBuf),
    /// The index lock could not be created for another reason (an
    /// unwritable `.git`, a full disk).
    #[error("{}: cannot create the index lock: {source}; nothing was written", path.display())]
    LockFailed {
        /// The lock file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A file the run wrote could not be read back to stage it (`--index`).
    #[error("{path}: cannot read back what the patch wrote, to stage it: {source}")]
    ReadBack {
        /// The file, as the patch names it.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// Another process changed a file the run wrote before it was staged
    /// (`--index`): it is not staged as the patch's result.
    #[error(
        "{0}: cannot stage what the patch wrote: another process changed the file after the patch wrote it"
    )]
    ChangedAfterWriting(String),
    /// Something gix reported.
    #[error("{context}: {source}")]
    Gix {
        /// What we were doing.
        context: String,
        /// gix's error, with its own chain of causes.
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
}

/// Reads back what the run wrote to the working tree for a file, by its
/// path in the patch: `None` when the run wrote no file there; an error
/// ([`GitError::ReadBack`], [`GitError::ChangedAfterWriting`]) when it
/// cannot be read or is no longer what was written.
pub(crate) type ReadBack<'a> = &'a (dyn Fn(&str) -> Option<Result<WrittenBack, GitError>> + Sync);

/// Why `--index` cannot go on: a file the patch reads is not in the index
/// or differs from it, or it could not be compared.
#[derive(Debug, thiserror::Error)]
pub(crate) enum IndexCheckError {
    /// The file is not in the index.
    #[error("{0}: does not exist in the index (--index needs it staged)")]
    NotInIndex(String),
    /// The working-tree file differs from its index entry.
    #[error(
        "{0}: the working-tree file differs from the index; stage or restore it before using --index"
    )]
    Differs(String),
    /// The working-tree file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file, relative to the tree.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// gix could not filter or hash the file.
    #[error(transparent)]
    Gix(std::sync::Arc<dyn std::error::Error + Send + Sync + 'static>),
}

/// gix's error `e` as an [`IndexCheckError`].
fn index_gix_err(e: impl std::error::Error + Send + Sync + 'static) -> IndexCheckError {
    IndexCheckError::Gix(std::sync::Arc::new(e))
}

fn gix_err<E: std::error::Error + Send + Sync + 'static>(
    context: &str,
) -> impl FnOnce(E) -> GitError + '_ {
    move |e| GitError::Gix {
        context: context.to_string(),
        source: Box::new(e),
    }
}

/// Converts file contents as git stores them to what the working tree holds.
pub(crate) struct WorktreeConverter<'repo> {
    pipeline: gix::filter::Pipeline<'repo>,
}

impl WorktreeConverter<'_> {
    /// What the working tree holds at `path` for `bytes` as stored in git:
    /// `eol`/`text` attributes, `core.autocrlf`, `working-tree-encoding`,
    /// `ident` and the smudge side of filter drivers, as `git apply` and
    /// `git checkout` do. `None` when nothing converts them.
    pub(crate) fn convert(
        &mut self,
        path: &str,
        bytes: &[u8],
    ) -> Result<Option<Vec<u8>>, GitError> {
        use gix::filter::plumbing::pipeline::convert::ToWorktreeOutcome;
        let mut out = self
            .pipeline
            .convert_to_worktree(bytes, path.into(), Default::default())
            .map_err(gix_err(path))?;
        match &mut out {
            ToWorktreeOutcome::Unchanged(_) => Ok(None),
            ToWorktreeOutcome::Buffer(converted) => {
                Ok((*converted != bytes).then(|| converted.to_vec()))
            }
            ToWorktreeOutcome::Process(_) => {
                let Some(read) = out.as_read() else {
                    return Err(GitError::Gix {
                        context: path.to_string(),
                        source: "the filter driver delayed its output".into(),
                    });
                };
                let mut converted = Vec::new();
                read.read_to_end(&mut converted).map_err(gix_err(path))?;
                Ok((converted != bytes).then_some(converted))
            }
        }
    }
}

/// A discovered repository with a working tree.
pub(crate) struct Repo {
    repo: gix::Repository,
    workdir: PathBuf,
}

impl Repo {
    /// Finds the repository containing `dir`; `None` outside any repository
    /// or in a bare one.
    pub(crate) fn discover(dir: &Path) -> Option<Repo> {
        let repo = gix::discover(dir).ok()?;
        let workdir = repo.workdir()?.to_path_buf();
        Some(Repo { repo, workdir })
    }

    /// The top of the working tree.
    pub(crate) fn workdir(&self) -> &Path {
        &self.workdir
    }

    /// The index file (`.git/index`).
    pub(crate) fn index_path(&self) -> PathBuf {
        self.repo.index_path()
    }

    /// False when `core.symlinks` is false: git then checks symbolic links
    /// out as plain files holding their target, and so does this tool
    /// ([`staged_links`](Self::staged_links)).
    pub(crate) fn symlinks(&self) -> bool {
        self.repo
            .config_snapshot()
            .boolean("core.symlinks")
            .unwrap_or(true)
    }

    /// The paths where `index` stages a symbolic link: in a tree with
    /// `core.symlinks=false`, the regular files that stand for links.
    pub(crate) fn staged_links(index: &gix::index::File) -> std::collections::HashSet<String> {
        index
            .entries()
            .iter()
            .filter(|e| e.mode == gix::index::entry::Mode::SYMLINK)
            .filter(|e| e.stage() == Stage::Unconflicted)
            .filter_map(|e| e.path(index).to_str().ok().map(str::to_string))
            .collect()
    }

    /// The `.git` directory.
    pub(crate) fn git_dir(&self) -> &Path {
        self.repo.git_dir()
    }

    /// Takes `index.lock`, so that no other git changes the index while we
    /// work. Released on drop, and removed should a signal end the process
    /// (see [`crate::signals`]).
    pub(crate) fn lock_index(&self) -> Result<IndexLock, GitError> {
        let path = self.repo.index_path();
        let lock_path = path.with_extension("lock");
        crate::test_hooks::fail(Step::IndexLock, &lock_path).map_err(|source| {
            GitError::LockFailed {
                path: lock_path.clone(),
                source,
            }
        })?;
        match gix::lock::File::acquire_to_update_resource(
            &path,
            gix::lock::acquire::Fail::Immediately,
            None,
            0,
        ) {
            Ok(lock) => Ok(IndexLock {
                lock,
                _registration: crate::signals::register(&lock_path),
            }),
            Err(e) => Err(lock_failure(lock_path, &e)),
        }
    }

    /// Reads the index (an empty one if there is none yet).
    pub(crate) fn index(&self) -> Result<gix::index::File, GitError> {
        match self
            .repo
            .try_index()
            .map_err(gix_err("reading the index"))?
        {
            Some(shared) => Ok(gix::index::File::clone(&shared)),
            None => Ok(gix::index::File::from_state(
                gix::index::State::new(self.repo.object_hash()),
                self.repo.index_path(),
            )),
        }
    }

    /// A converter from what git stores to what the working tree holds
    /// (`.gitattributes`, `core.autocrlf`, filter drivers), built once for
    /// many files.
    pub(crate) fn worktree_converter(&self) -> Result<WorktreeConverter<'_>, GitError> {
        let (pipeline, _) = self
            .repo
            .filter_pipeline(None)
            .map_err(gix_err("reading attributes"))?;
        Ok(WorktreeConverter { pipeline })
    }

    /// For `--index`: every file the patch reads must be in the index and
    /// identical to it in the working tree, as `git apply --index` demands.
    pub(crate) fn check_worktree_matches_index(
        &self,
        index: &gix::index::File,
        paths: &[&str],
    ) -> Result<(), IndexCheckError> {
        let (mut pipeline, _) = self.repo.filter_pipeline(None).map_err(index_gix_err)?;
        let options = self.repo.stat_options().map_err(index_gix_err)?;
        let written = index.timestamp();
        for path in paths {
            let Some(entry) = index.entry_by_path(path.as_bytes().as_bstr()) else {
                return Err(IndexCheckError::NotInIndex(path.to_string()));
            };
            // As git does: a regular file whose stat data and mode still
            // match its entry, which was not changed in the same tick as the
            // index was written, is unchanged; only the others are read and
            // hashed. (A symbolic link's own stat says nothing of the file
            // it points to, which is what the patch was read from.)
            let regular = entry.mode == gix::index::entry::Mode::FILE
                || entry.mode == gix::index::entry::Mode::FILE_EXECUTABLE;
            let unchanged = regular
                && gix::index::fs::Metadata::from_path_no_follow(&self.workdir.join(path))
                    .ok()
                    .filter(|m| {
                        m.is_file()
                            && m.is_executable()
                                == (entry.mode == gix::index::entry::Mode::FILE_EXECUTABLE)
                    })
                    .and_then(|m| Stat::from_fs(&m).ok())
                    .is_some_and(|now| {
                        !entry.stat.is_racy(written, options) && entry.stat.matches(&now, options)
                    });
            if unchanged {
                continue;
            }
            let link = entry.mode == gix::index::entry::Mode::SYMLINK;
            let disk = match read_worktree(&self.workdir.join(path), link, !self.symlinks()) {
                Ok(Some(disk)) => disk,
                // A link where the index has a file, or the other way round.
                Ok(None) => return Err(IndexCheckError::Differs(path.to_string())),
                Err(source) => {
                    return Err(IndexCheckError::Io {
                        path: path.to_string(),
                        source,
                    });
                }
            };
            // A link's blob is its target as it is: no filter applies.
            let git_form = if link {
                Cow::Borrowed(&disk[..])
            } else {
                to_git(&mut pipeline, index, path, &disk).map_err(index_gix_err)?
            };
            let id =
                gix::objs::compute_hash(self.repo.object_hash(), gix::objs::Kind::Blob, &git_form)
                    .map_err(index_gix_err)?;
            if id != entry.id {
                return Err(IndexCheckError::Differs(path.to_string()));
            }
        }
        Ok(())
    }

    /// The blob of each result's new content (`None` for a deletion) and,
    /// when the working tree was written, the stat data of its file. Made on
    /// every core: the content (read back from the working tree where the
    /// run wrote it, else the result's own) is converted to what git
    /// stores, hashed, and written unless the object database has it
    /// already.
    fn blobs(
        &self,
        changed: &[&FileResult],
        snapshot: &gix::index::State,
        worktree: Option<ReadBack>,
    ) -> Result<Vec<Option<(gix::ObjectId, Stat)>>, GitError> {
        use rayon::prelude::*;
        let shared = self.repo.clone().into_sync();
        let workdir = &self.workdir;
        let part = changed
            .len()
            .div_ceil(4 * rayon::current_num_threads())
            .max(1);
        let parts = changed
            .par_chunks(part)
            .map(|part| {
                // A repository and filter pipeline of its own per part.
                let repo = shared.to_thread_local();
                let (mut pipeline, _) = repo
                    .filter_pipeline(None)
                    .map_err(gix_err("reading attributes"))?;
                part.iter()
                    .map(|r| {
                        let Some(new_path) = &r.new_path else {
                            return Ok(None);
                        };
                        let id = match worktree.and_then(|read| read(new_path)) {
                            Some(back) => {
                                blob::write_back(&repo, &mut pipeline, snapshot, new_path, back?)?
                            }
                            None => {
                                let new = r.new_bytes();
                                // A link's blob is its target as it is: no filter applies.
                                let blob = match worktree {
                                    Some(_) if !r.new_is_link() => {
                                        to_git(&mut pipeline, snapshot, new_path, &new)?
                                    }
                                    _ => Cow::Borrowed(&*new),
                                };
                                crate::test_hooks::fail(Step::Blob, Path::new(new_path))
                                    .map_err(gix_err(new_path))?;
                                repo.write_blob(&blob).map_err(gix_err(new_path))?.detach()
                            }
                        };
                        let stat = if worktree.is_some() {
                            gix::index::fs::Metadata::from_path_no_follow(&workdir.join(new_path))
                                .ok()
                                .and_then(|m| Stat::from_fs(&m).ok())
                                .unwrap_or_default()
                        } else {
                            Stat::default()
                        };
                        Ok(Some((id, stat)))
                    })
                    .collect::<Result<Vec<_>, GitError>>()
            })
            .collect::<Result<Vec<_>, GitError>>()?;
        Ok(parts.into_iter().flatten().collect())
    }

    /// Records `results` in the index: new blobs for changed files, entries
    /// removed for deleted ones, moved for renames. With `worktree` (the
    /// working tree was written, `--index`), each new file's blob is what
    /// `worktree` reads back of it (the bytes the run wrote, not rendered a
    /// second time) and its stat data is taken from disk so `git status`
    /// sees it clean; otherwise (`--cached`) the blobs are the results
    /// themselves.
    pub(crate) fn stage<'a>(
        &self,
        index: &mut gix::index::File,
        results: impl IntoIterator<Item = &'a FileResult>,
        worktree: Option<ReadBack>,
        lock: IndexLock,
    ) -> Result<(), GitError> {
        let snapshot = index.clone();
        let changed: Vec<&FileResult> = results
            .into_iter()
            .filter(|r| r.changes_anything())
            .collect();
        let blobs = self.blobs(&changed, &snapshot, worktree)?;
        let mut removed: std::collections::HashSet<String> = Default::default();
        // New entries are pushed after every lookup: the index is searched by
        // binary search, which an entry appended out of order would break
        // (a later path not found, then pushed a second time).
        let mut new_entries = Vec::new();
        for (r, blob) in changed.into_iter().zip(blobs) {
            if let Some(old) = &r.old_path
                && r.new_path.as_ref() != Some(old)
            {
                removed.insert(old.clone());
            }
            let (Some(new_path), Some((id, stat))) = (&r.new_path, blob) else {
                continue;
            };
            let path: &BStr = new_path.as_bytes().as_bstr();
            let kept_mode = r.old_path.as_ref().and_then(|old| {
                snapshot
                    .entry_by_path(old.as_bytes().as_bstr())
                    .map(|e| e.mode)
            });
            let mode = match (kept_mode, r.mode) {
                _ if r.new_is_link() => Mode::SYMLINK,
                _ if r.mode_changes() => match r.new_mode {
                    Some(0o100755) => Mode::FILE_EXECUTABLE,
                    _ => Mode::FILE,
                },
                (Some(m), _) => m,
                (None, Some(0o100755)) => Mode::FILE_EXECUTABLE,
                (None, _) => Mode::FILE,
            };
            if let Some(entry) = index.entry_mut_by_path_and_stage(path, Stage::Unconflicted) {
                entry.id = id;
                entry.stat = stat;
                entry.mode = mode;
            } else {
                new_entries.push((stat, id, mode, path));
            }
        }
        if !new_entries.is_empty() {
            for (stat, id, mode, path) in new_entries {
                index.dangerously_push_entry(stat, id, Flags::empty(), mode, path);
            }
            index.sort_entries();
        }
        if !removed.is_empty() {
            // A set: checked once per index entry, and an index may hold
            // hundreds of thousands.
            index.remove_entries(|_, path, _| {
                path.to_str().is_ok_and(|path| removed.contains(path))
            });
        }
        index.remove_tree();
        lock.write(index)
    }
}

/// What the working tree holds at `path`, never following a symbolic link
/// there: the target of a link when `link` (the index has one), else a
/// regular file's bytes; `None` when the kind differs from `link`. With
/// `links_as_files` (`core.symlinks=false`), a link is checked out as a
/// regular file holding its target, and only that stands for one.
fn read_worktree(
    path: &Path,
    link: bool,
    links_as_files: bool,
) -> std::io::Result<Option<Vec<u8>>> {
    use std::os::unix::ffi::OsStringExt;
    let is_link = std::fs::symlink_metadata(path)?.file_type().is_symlink();
    match (link, is_link) {
        (true, true) if !links_as_files => {
            Ok(Some(std::fs::read_link(path)?.into_os_string().into_vec()))
        }
        (true, false) if links_as_files => std::fs::read(path).map(Some),
        (false, false) => std::fs::read(path).map(Some),
        _ => Ok(None),
    }
}

/// Converts working-tree `bytes` at `path` to what git stores: `bytes`
/// themselves when no filter changes them (not copied).
fn to_git<'b>(
    pipeline: &mut gix::filter::Pipeline,
    index: &gix::index::State,
    path: &str,
    bytes: &'b [u8],
) -> Result<Cow<'b, [u8]>, GitError> {
    use gix::filter::plumbing::pipeline::convert::ToGitOutcome;
    let out = pipeline
        .convert_to_git(bytes, Path::new(path), index)
        .map_err(gix_err(path))?;
    let mut buf = Vec::new();
    match out {
        ToGitOutcome::Unchanged(_) => return Ok(Cow::Borrowed(bytes)),
        ToGitOutcome::Process(mut r) => r.read_to_end(&mut buf),
        ToGitOutcome::Buffer(b) => {
            buf.extend_from_slice(b);
            Ok(0)
        }
    }
    .map_err(gix_err(path))?;
    Ok(Cow::Owned(buf))
}

/// Why taking `lock_path` failed: another git holds it, or the real cause
/// (found in gix's error, or else by asking whether the directory may be
/// written).
fn lock_failure(lock_path: PathBuf, error: &(dyn std::error::Error + 'static)) -> GitError {
    if std::fs::symlink_metadata(&lock_path).is_ok() {
        return GitError::IndexLocked(lock_path);
    }
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = cause {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            return GitError::LockFailed {
                path: lock_path,
                source: std::io::Error::new(io.kind(), io.to_string()),
            };
        }
        cause = e.source();
    }
    let dir = lock_path.parent().unwrap_or(Path::new("."));
    let source = match writable(dir) {
        Err(e) => e,
        Ok(()) => std::io::Error::other(error.to_string()),
    };
    GitError::LockFailed {
        path: lock_path,
        source,
    }
}

/// Whether this process may create files in `dir` (`access(W_OK)`).
fn writable(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).map_err(std::io::Error::other)?;
    // SAFETY: `c` is a valid NUL-terminated string for the whole call.
    if unsafe { libc::access(c.as_ptr(), libc::W_OK) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// A held `index.lock`.
pub(crate) struct IndexLock {
    lock: gix::lock::File,
    _registration: crate::signals::Registration,
}

impl IndexLock {
    /// The lock file.
    pub(crate) fn path(&self) -> &Path {
        self.lock.lock_path()
    }
}

impl IndexLock {
    /// Writes `index` through the lock and renames it into place.
    fn write(mut self, index: &gix::index::File) -> Result<(), GitError> {
        use std::io::Write;
        // Buffered: the index is written field by field (about fifteen
        // writes an entry), and the lock file is not buffered itself.
        let lock_path = self.lock.lock_path().to_path_buf();
        crate::test_hooks::fail(Step::IndexWrite, &lock_path)
            .map_err(gix_err("writing the index"))?;
        let mut out = std::io::BufWriter::with_capacity(1 << 16, &mut self.lock);
        index
            .write_to(&mut out, gix::index::write::Options::default())
            .map_err(gix_err("writing the index"))?;
        out.flush().map_err(gix_err("writing the index"))?;
        drop(out);
        crate::test_hooks::fail(Step::IndexCommit, &lock_path)
            .map_err(gix_err("committing the index"))?;
        self.lock
            .commit()
            .map_err(gix_err("committing the index"))?;
        Ok(())
    }
}

mod index_targets;
pub(crate) use index_targets::IndexTargets;
mod blob;
pub(crate) use blob::WrittenBack;
