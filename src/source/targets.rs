//! Where target files come from: the working tree (a directory on disk) or,
//! with `--cached`, the git index. The planner reads through [`Targets`] and
//! never touches the file system itself.

use super::content::Content;
use super::stamp::Stamp;
use std::collections::{HashMap, HashSet};
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

/// Why a target could not be read, resolved or looked at; the planner turns
/// it into the file's problem (`path_outside_tree`, `not_a_file`,
/// `io_error`, `git_error`), keeping the cause.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TargetError {
    /// The path leads out of the tree, into `.git/`, or is not usable.
    #[error("{0}")]
    Outside(String),
    /// Something other than a regular file is there: a directory, a
    /// device, a symbolic link.
    #[error("{0}")]
    NotAFile(String),
    /// The file system refused.
    #[error("{path}: {source}")]
    Io {
        /// The path asked for, relative to the tree.
        path: String,
        /// Why.
        source: io::Error,
    },
    /// The repository's object database refused (`--cached` targets).
    #[error("{path}: {source}")]
    Git {
        /// The path asked for, relative to the tree.
        path: String,
        /// Why.
        source: std::sync::Arc<dyn std::error::Error + Send + Sync>,
    },
}

/// What stands at a path: a regular file's content, or a symbolic link's
/// target (the link itself, never followed).
#[derive(Debug)]
pub(crate) enum Node {
    /// A regular file.
    File(Content),
    /// A symbolic link, with the bytes of its target.
    Link(Vec<u8>),
}

/// A source of target file contents, addressed by `/`-separated paths
/// relative to the top of the tree.
pub(crate) trait Targets {
    /// The current content of `path`, or `None` when it does not exist.
    /// Fails for paths that may not be touched (outside the tree, a
    /// directory, a device, …).
    fn read(&self, path: &str) -> Result<Option<Content>, TargetError>;

    /// What stands at `path` itself, a symbolic link there not followed
    /// (its target is its content), or `None` when nothing does. Fails for
    /// paths that may not be touched (outside the tree, a link on the way,
    /// a directory, a device, …). By default, [`Targets::read`]'s file.
    fn read_node(&self, path: &str) -> Result<Option<Node>, TargetError> {
        self.read(path).map(|c| c.map(Node::File))
    }

    /// The mode the file has (`0o100644`, `0o100755`), if known.
    fn mode(&self, _path: &str) -> Option<u32> {
        None
    }

    /// True when a regular file may stand for a symbolic link, and a link
    /// read from the index's word for a regular file, their bytes deciding
    /// which: links are files holding their target (`core.symlinks=false`)
    /// and the index, which alone tells them apart, is not kept in step (a
    /// run that writes the working tree alone, as an earlier one may have).
    fn link_kind_by_bytes(&self) -> bool {
        false
    }

    /// The same targets, shareable between threads, when they may be read
    /// from several at once (files on disk); `None` plans files one by one.
    fn parallel(&self) -> Option<&(dyn Targets + Sync)> {
        None
    }

    /// True when something exists at `path` (without reading it).
    fn exists(&self, path: &str) -> Result<bool, TargetError> {
        self.read(path).map(|c| c.is_some())
    }

    /// The size of `path` in bytes, if cheaply known, without reading it;
    /// only an estimate for progress reports.
    fn size(&self, _path: &str) -> Option<u64> {
        None
    }

    /// An absolute `path` that lies inside the tree, made relative to its
    /// top (agents write absolute paths); `None` for any other path.
    fn relative(&self, _path: &str) -> Option<String> {
        None
    }

    /// Up to [`NAMED_ELSEWHERE`] files of the tree whose path is `path`
    /// under more directories (`sub/app.py` and `x/sub/app.py` for
    /// `app.py`; `lib/b/app.py` for `b/app.py`), asked before a file is
    /// created that the patch does not say is new. Empty when the targets
    /// are one text.
    fn named_elsewhere(&self, _path: &str) -> Vec<String> {
        Vec::new()
    }
}

/// At most this many files are named by [`Targets::named_elsewhere`].
pub(crate) const NAMED_ELSEWHERE: usize = 5;

/// At most this many directory entries are read by the working tree's
/// [`Targets::named_elsewhere`] (a large tree is not walked whole).
const WALKED_ENTRIES: usize = 200_000;

/// The files under `root` (not in hidden directories, `node_modules` or
/// `target`, not through links) whose relative path ends with `/path`, as
/// `/`-separated relative paths: at most [`NAMED_ELSEWHERE`], after at most
/// [`WALKED_ENTRIES`] entries.
fn walk_named(root: &Path, path: &str) -> Vec<String> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let tail = format!("/{path}");
    let mut found = Vec::new();
    let mut dirs = vec![PathBuf::new()];
    let mut seen = 0;
    while let Some(rel) = dirs.pop() {
        let Ok(entries) = fs::read_dir(root.join(&rel)) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > WALKED_ENTRIES || found.len() >= NAMED_ELSEWHERE {
                return found;
            }
            let file_name = entry.file_name();
            let Some(entry_name) = file_name.to_str() else {
                continue;
            };
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let child = rel.join(entry_name);
            if kind.is_dir() {
                let skipped = entry_name.starts_with('.')
                    || entry_name == "node_modules"
                    || entry_name == "target";
                if !skipped {
                    dirs.push(child);
                }
            } else if kind.is_file() && entry_name == name {
                let shown = child.to_string_lossy().into_owned();
                if shown.ends_with(&tail) {
                    found.push(shown);
                }
            }
        }
    }
    found.sort();
    found
}

/// Files in a directory on disk.
#[derive(Debug)]
pub(crate) struct WorktreeTargets {
    root: PathBuf,
    canonical_root: PathBuf,
    /// Real (link-free) paths of the directories already resolved: a patch
    /// touching thousands of files in a few hundred directories resolves
    /// each directory once, not each file's every component.
    real_dirs: Mutex<HashMap<PathBuf, PathBuf>>,
    /// Patch paths already resolved (a file is read, its mode asked and its
    /// write planned: one resolution serves all three).
    resolved: Mutex<HashMap<String, PathBuf>>,
    /// In a repository with `core.symlinks=false`: where links are (git
    /// checks each out as a regular file holding the link's target, and so
    /// it is read and written here).
    link_files: Option<LinkFiles>,
}

/// Where a tree with `core.symlinks=false` has links (regular files
/// holding their target), and how far the index tells.
#[derive(Debug)]
struct LinkFiles {
    /// The paths where the index stages a symbolic link.
    staged: HashSet<String>,
    /// The index is not kept in step with the working tree (a run that
    /// writes the working tree alone): a file may be a link an earlier
    /// such run wrote, or a link a file; the bytes decide.
    by_bytes: bool,
}

impl WorktreeTargets {
    /// Targets under `root`.
    pub(crate) fn new(root: impl Into<PathBuf>) -> io::Result<Self> {
        let root = root.into();
        let canonical_root = fs::canonicalize(&root)?;
        Ok(WorktreeTargets {
            root,
            canonical_root,
            real_dirs: Mutex::new(HashMap::new()),
            resolved: Mutex::new(HashMap::new()),
            link_files: None,
        })
    }

    /// These targets in a tree where symbolic links are regular files
    /// holding their target (`core.symlinks=false`); `staged_links`: the
    /// paths where the index stages a link. A regular file at such a path
    /// is read as that link ([`Node::Link`]); a plain file patch may not
    /// edit it (as a link may not be edited), and a real symbolic link is
    /// refused, since git never writes one in such a tree. `by_bytes`: the
    /// run leaves the index as it is, so that a file and a link are told
    /// apart by their bytes where the index does not tell
    /// ([`Targets::link_kind_by_bytes`]).
    pub(crate) fn with_link_files(mut self, staged_links: HashSet<String>, by_bytes: bool) -> Self {
        self.link_files = Some(LinkFiles {
            staged: staged_links,
            by_bytes,
        });
        self
    }

    /// True when symbolic links are written as regular files holding their
    /// target (`core.symlinks=false`, see [`with_link_files`](Self::with_link_files)).
    pub(crate) fn links_as_files(&self) -> bool {
        self.link_files.is_some()
    }

    /// True when `rel` is a link checked out as a regular file.
    fn link_file(&self, rel: &str) -> bool {
        self.link_files
            .as_ref()
            .is_some_and(|l| l.staged.contains(rel))
    }

    /// The real path of `dir`; for a directory that does not exist yet, the
    /// real path of its nearest existing ancestor joined with the rest.
    fn real_dir(&self, dir: &Path) -> io::Result<PathBuf> {
        if let Some(real) = locked(&self.real_dirs).get(dir) {
            return Ok(real.clone());
        }
        // From the (cached) parent down: one `lstat` per new directory, and
        // a full resolution only where a component is a link.
        let real = match (dir.parent(), dir.file_name()) {
            (Some(parent), Some(name)) if dir != self.root => {
                let base = self.real_dir(parent)?;
                match fs::symlink_metadata(dir) {
                    Ok(meta) if meta.file_type().is_symlink() => fs::canonicalize(dir)?,
                    Ok(_) => base.join(name),
                    Err(e) if e.kind() == io::ErrorKind::NotFound => base.join(name),
                    Err(e) => return Err(e),
                }
            }
            _ => fs::canonicalize(dir)?,
        };
        locked(&self.real_dirs).insert(dir.to_path_buf(), real.clone());
        Ok(real)
    }

    /// The on-disk path of `rel`, after checking it stays inside the tree:
    /// no absolute path, no `..`, nothing under `.git/`, and no symbolic
    /// link on the way (see [`WorktreeTargets::resolve_checked`]).
    pub(crate) fn resolve(&self, rel: &str) -> Result<PathBuf, String> {
        self.resolve_checked(rel).map_err(|e| e.to_string())
    }

    /// [`resolve`](Self::resolve) with the reason typed: a path leading out
    /// of the tree is [`TargetError::Outside`]; a symbolic link inside the
    /// tree, as the file or one of its directories, is
    /// [`TargetError::NotAFile`] (as `git apply`, which calls it the wrong type or a
    /// path beyond a symbolic link): writing through it would replace the
    /// link by a file, or reach one file under two names.
    pub(crate) fn resolve_checked(&self, rel: &str) -> Result<PathBuf, TargetError> {
        let known = locked(&self.resolved).get(rel).cloned();
        if let Some(path) = known {
            return Ok(path);
        }
        let path = self.resolve_afresh(rel)?;
        locked(&self.resolved).insert(rel.to_string(), path.clone());
        Ok(path)
    }

    /// The on-disk path of `rel` itself, for a symbolic link the patch
    /// creates, changes or deletes: its directories are checked as
    /// [`resolve_checked`](Self::resolve_checked) checks them (inside the
    /// tree, not in `.git/`, no symbolic link on the way), while its last
    /// component may be a link, which is never followed: what is written
    /// there replaces the link itself.
    pub(crate) fn resolve_entry(&self, rel: &str) -> Result<PathBuf, TargetError> {
        let joined = join_inside(&self.root, rel).map_err(TargetError::Outside)?;
        let Some(dir) = joined.parent().filter(|_| joined.file_name().is_some()) else {
            return Err(TargetError::Outside(format!("{rel:?}: not a usable path")));
        };
        let real = self.real_dir(dir).map_err(|source| TargetError::Io {
            path: rel.to_string(),
            source,
        })?;
        if !real.starts_with(&self.canonical_root) {
            return Err(TargetError::Outside(format!(
                "{rel}: the path leads out of the working tree through a symbolic link"
            )));
        }
        let lexical = dir
            .strip_prefix(&self.root)
            .map(|inside| self.canonical_root.join(inside));
        if lexical.as_ref() != Ok(&real) {
            return Err(TargetError::NotAFile(format!(
                "{rel}: a symbolic link is on the way inside the tree (git apply refuses a path beyond a symbolic link too)"
            )));
        }
        Ok(joined)
    }

    fn resolve_afresh(&self, rel: &str) -> Result<PathBuf, TargetError> {
        let joined = join_inside(&self.root, rel).map_err(TargetError::Outside)?;
        // Follow links of the parts that exist: they must stay inside. The
        // directory is resolved once per run; the last component only
        // needs a full resolution when it is itself a link.
        let (Some(dir), Some(name)) = (joined.parent(), joined.file_name()) else {
            return Ok(joined);
        };
        let is_link = fs::symlink_metadata(&joined).is_ok_and(|m| m.file_type().is_symlink());
        let real = match is_link.then(|| fs::canonicalize(&joined)) {
            Some(Ok(target)) => target,
            // A dangling link: refused below like any link.
            Some(Err(_)) | None => self
                .real_dir(dir)
                .map_err(|source| TargetError::Io {
                    path: rel.to_string(),
                    source,
                })?
                .join(name),
        };
        if !real.starts_with(&self.canonical_root) {
            return Err(TargetError::Outside(format!(
                "{rel}: the path leads out of the working tree through a symbolic link"
            )));
        }
        if real.strip_prefix(&self.canonical_root).is_ok_and(|inside| {
            inside.components().next() == Some(Component::Normal(".git".as_ref()))
        }) {
            return Err(TargetError::Outside(format!(
                "{rel}: the patch may not touch .git/"
            )));
        }
        let lexical = joined
            .strip_prefix(&self.root)
            .map(|inside| self.canonical_root.join(inside));
        if is_link || lexical.as_ref() != Ok(&real) {
            return Err(TargetError::NotAFile(format!(
                "{rel}: a symbolic link {} inside the tree; edit the file it points to instead (git apply refuses it too)",
                if is_link { "is there" } else { "is on the way" }
            )));
        }
        Ok(joined)
    }
}

impl Targets for WorktreeTargets {
    fn parallel(&self) -> Option<&(dyn Targets + Sync)> {
        Some(self)
    }

    fn relative(&self, path: &str) -> Option<String> {
        let abs = Path::new(path);
        if !abs.is_absolute() {
            return None;
        }
        // The tree as given, as its real path, and the path's own real
        // directory (say `/tmp` reached through a link) are all tried.
        let real_parent = abs.parent().and_then(|d| fs::canonicalize(d).ok());
        let real = real_parent.zip(abs.file_name()).map(|(d, n)| d.join(n));
        let roots = [self.root.clone(), self.canonical_root.clone()];
        let inside = roots.iter().filter(|r| r.is_absolute()).find_map(|r| {
            abs.strip_prefix(r)
                .ok()
                .or_else(|| real.as_deref()?.strip_prefix(r).ok())
                .map(Path::to_path_buf)
        })?;
        let rel = inside.to_str()?.to_string();
        (!rel.is_empty()).then_some(rel)
    }

    fn read(&self, rel: &str) -> Result<Option<Content>, TargetError> {
        let path = self.resolve_checked(rel)?;
        // One `stat` (following a link, which `resolve` checked stays inside
        // the tree); only a missing file needs a second look, for a link
        // that points nowhere.
        match fs::metadata(&path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if fs::symlink_metadata(&path).is_ok() {
                    Err(TargetError::NotAFile(format!(
                        "{rel}: a symbolic link to nothing"
                    )))
                } else {
                    Ok(None)
                }
            }
            Err(source) => Err(TargetError::Io {
                path: rel.to_string(),
                source,
            }),
            Ok(meta) if meta.is_dir() => {
                Err(TargetError::NotAFile(format!("{rel}: is a directory")))
            }
            Ok(meta) if !meta.is_file() => {
                Err(TargetError::NotAFile(format!("{rel}: not a regular file")))
            }
            Ok(_) if self.link_file(rel) => Err(TargetError::NotAFile(format!(
                "{rel}: a symbolic link is staged there (core.symlinks is false: the file holds its target); edit the file it points to instead"
            ))),
            Ok(meta) => Content::load_stated(&path, &meta)
                .map(Some)
                .map_err(|source| TargetError::Io {
                    path: rel.to_string(),
                    source,
                }),
        }
    }

    fn read_node(&self, rel: &str) -> Result<Option<Node>, TargetError> {
        let path = self.resolve_entry(rel)?;
        let io = |source| TargetError::Io {
            path: rel.to_string(),
            source,
        };
        match fs::symlink_metadata(&path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(io(source)),
            Ok(meta) if meta.file_type().is_symlink() && self.links_as_files() => {
                Err(TargetError::NotAFile(format!(
                    "{rel}: a symbolic link stands here, but core.symlinks is false in this repository (git writes links as files holding their target): refused rather than replaced by a file"
                )))
            }
            Ok(meta) if meta.file_type().is_symlink() => {
                use std::os::unix::ffi::OsStringExt;
                let target = fs::read_link(&path).map_err(io)?;
                Ok(Some(Node::Link(target.into_os_string().into_vec())))
            }
            Ok(meta) if meta.is_dir() => {
                Err(TargetError::NotAFile(format!("{rel}: is a directory")))
            }
            Ok(meta) if !meta.is_file() => {
                Err(TargetError::NotAFile(format!("{rel}: not a regular file")))
            }
            Ok(meta) if self.link_file(rel) => Content::load_stated(&path, &meta)
                .map(|c| Some(Node::Link(c.to_vec())))
                .map_err(io),
            Ok(meta) => Content::load_stated(&path, &meta)
                .map(|c| Some(Node::File(c)))
                .map_err(io),
        }
    }

    fn exists(&self, rel: &str) -> Result<bool, TargetError> {
        let path = self.resolve_checked(rel)?;
        Ok(fs::symlink_metadata(path).is_ok())
    }

    /// The size of a regular file at `rel` (a symbolic link is not followed).
    fn size(&self, rel: &str) -> Option<u64> {
        let meta = fs::symlink_metadata(join_inside(&self.root, rel).ok()?).ok()?;
        meta.is_file().then_some(meta.len())
    }

    fn mode(&self, rel: &str) -> Option<u32> {
        Stamp::of(&self.resolve(rel).ok()?).map(|s| s.git_mode())
    }

    /// See [`with_link_files`](Self::with_link_files).
    fn link_kind_by_bytes(&self) -> bool {
        self.link_files.as_ref().is_some_and(|l| l.by_bytes)
    }

    fn named_elsewhere(&self, path: &str) -> Vec<String> {
        walk_named(&self.root, path)
    }
}

/// The map behind `mutex`. A panic elsewhere cannot leave a cache map
/// half-updated (each change is one insert), so a poisoned lock is used anyway.
fn locked<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The files this tool keeps at the top of a tree outside a repository
/// (its journal and run lock): a patch path may not name them, in any tree.
const OWN_FILES: [&str; 2] = [".git-fuzzy-apply.journal", ".git-fuzzy-apply.lock"];

/// Joins a patch path to `root`, refusing empty paths, NUL, absolute paths,
/// `..`, any `.git` component and the tool's own files at the top.
pub(crate) fn join_inside(root: &Path, rel: &str) -> Result<PathBuf, String> {
    if rel.is_empty() || rel.contains('\0') {
        return Err(format!("{rel:?}: not a usable path"));
    }
    if windows_drive(rel).is_some() {
        return Err(format!(
            "{rel}: an absolute Windows path, outside the working tree (paths are relative to its top)"
        ));
    }
    let mut out = root.to_path_buf();
    for part in Path::new(rel).components() {
        match part {
            Component::Normal(p) if p.eq_ignore_ascii_case(".git") => {
                return Err(format!("{rel}: the patch may not touch .git/"));
            }
            Component::Normal(p)
                if out == root && OWN_FILES.iter().any(|f| p.eq_ignore_ascii_case(f)) =>
            {
                return Err(format!(
                    "{rel}: git-fuzzy-apply keeps its journal and run lock at this path outside a repository: the patch may not touch it"
                ));
            }
            Component::Normal(p) => out.push(p),
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => {
                return Err(format!(
                    "{rel}: an absolute path outside the working tree (paths are relative to its top)"
                ));
            }
            Component::ParentDir => {
                return Err(format!("{rel}: the path leaves the working tree"));
            }
        }
    }
    Ok(out)
}

/// The rest of `path` after a Windows drive (`C:/`, backslashes already
/// made slashes when the patch was read); `None` when it starts otherwise.
pub(crate) fn windows_drive(path: &str) -> Option<&str> {
    let mut chars = path.chars();
    let letter = chars.next()?;
    (letter.is_ascii_alphabetic() && chars.next()? == ':' && chars.next()? == '/')
        .then(|| path.get(3..))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_escapes() {
        let root = Path::new("/r");
        assert!(join_inside(root, "../x").is_err());
        assert!(join_inside(root, "/etc/passwd").is_err());
        assert!(join_inside(root, "a/.git/config").is_err());
        assert!(join_inside(root, ".GIT/config").is_err());
        assert!(join_inside(root, ".git-fuzzy-apply.journal").is_err());
        assert!(join_inside(root, "./.git-fuzzy-apply.lock").is_err());
        assert!(join_inside(root, "sub/.git-fuzzy-apply.lock").is_ok());
        assert!(join_inside(root, "").is_err());
        assert_eq!(
            join_inside(root, "./a/b.txt").unwrap(),
            Path::new("/r/a/b.txt")
        );
    }

    #[test]
    fn refuses_symlinks_out_of_the_tree() {
        let outside = tempfile::tempdir().unwrap();
        let tree = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), tree.path().join("out")).unwrap();
        fs::write(outside.path().join("secret"), "x").unwrap();
        let targets = WorktreeTargets::new(tree.path()).unwrap();
        let err = targets.read("out/secret").unwrap_err();
        assert!(matches!(err, TargetError::Outside(_)), "{err}");
        assert!(targets.read("missing/file").unwrap().is_none());
    }
}
