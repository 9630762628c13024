//! The scene of the `cli_git` fuzz target: the tree an input describes,
//! the repository around it (a `.git` template made once, an index written
//! with gix), and snapshots of tree and index to compare.

use gix::bstr::ByteSlice;
use gix::index::entry::{Flags, Mode, Stat};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The paths a section may fill.
pub(crate) const PATHS: [&str; 6] = ["a.txt", "b.txt", "sub/a.txt", "sub/deep/c.txt", "d", "x.py"];

/// What is at a path of the tree: a file (bytes, executable), a link, or
/// an empty directory (git tracks none; the tool must leave none behind).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Entry {
    File(Vec<u8>, bool),
    Link(PathBuf),
    EmptyDir,
}

/// One index entry, without its stat data: path, stage, mode, blob.
pub(crate) type IndexEntry = (String, u8, u32, gix::ObjectId);

/// The tree and the index together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct State {
    pub(crate) tree: BTreeMap<PathBuf, Entry>,
    pub(crate) index: Vec<IndexEntry>,
}

/// True for the files the tool makes and removes: staged files, backups,
/// journals (and their temporary files), run locks.
pub(crate) fn ours(name: &str) -> bool {
    [
        ".fuzzy-apply-new-",
        ".fuzzy-apply-old-",
        ".fuzzy-apply-journal-",
    ]
    .iter()
    .any(|p| name.starts_with(p))
        || name == ".git-fuzzy-apply.journal"
        || name == ".git-fuzzy-apply.lock"
}

/// Every file, link and empty directory under `root` (not following links,
/// not into `.git`), without the tool's own files and `.rej` files.
pub(crate) fn tree(root: &Path) -> BTreeMap<PathBuf, Entry> {
    walk(root)
        .into_iter()
        .filter(|(p, _)| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default();
            !ours(&name) && !name.ends_with(".rej")
        })
        .collect()
}

/// Every path under `root` but `.git` (empty directories as such).
pub(crate) fn walk(root: &Path) -> BTreeMap<PathBuf, Entry> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        let mut empty = true;
        for entry in entries.flatten() {
            empty = false;
            let path = entry.path();
            if dir == root && entry.file_name() == ".git" {
                continue;
            }
            let Ok(meta) = fs::symlink_metadata(&path) else {
                continue;
            };
            let rel = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
            if meta.file_type().is_symlink() {
                out.insert(rel, Entry::Link(fs::read_link(&path).unwrap_or_default()));
            } else if meta.is_dir() {
                stack.push(path);
            } else {
                let exec = meta.permissions().mode() & 0o111 != 0;
                out.insert(rel, Entry::File(fs::read(&path).unwrap_or_default(), exec));
            }
        }
        if empty && dir != root {
            out.insert(
                dir.strip_prefix(root).unwrap_or(&dir).to_path_buf(),
                Entry::EmptyDir,
            );
        }
    }
    out
}

/// What the tool left that it should not have: its files in the tree (but
/// those the patch itself makes, `planned`), its journal, lock and
/// temporary journals in `.git`, git's `index.lock`.
pub(crate) fn leftovers(root: &Path, planned: &BTreeSet<String>) -> Vec<String> {
    let mut left: Vec<String> = walk(root)
        .into_keys()
        .filter(|p| p.file_name().is_some_and(|n| ours(&n.to_string_lossy())))
        .filter(|p| !planned.contains(&*p.to_string_lossy()))
        .map(|p| p.display().to_string())
        .collect();
    let git = root.join(".git");
    for name in ["index.lock", "fuzzy-apply/journal", "fuzzy-apply/lock"] {
        if fs::symlink_metadata(git.join(name)).is_ok() {
            left.push(format!(".git/{name}"));
        }
    }
    for entry in fs::read_dir(git.join("fuzzy-apply"))
        .into_iter()
        .flatten()
        .flatten()
    {
        if ours(&entry.file_name().to_string_lossy()) {
            left.push(format!(
                ".git/fuzzy-apply/{}",
                entry.file_name().to_string_lossy()
            ));
        }
    }
    left
}

/// The journal a run in `root` keeps for recovery, if it is there.
pub(crate) fn journal_kept(root: &Path) -> bool {
    [".git-fuzzy-apply.journal", ".git/fuzzy-apply/journal"]
        .iter()
        .any(|j| fs::symlink_metadata(root.join(j)).is_ok())
}

/// A `.git` made once per process (`git init`), copied into each tree.
pub(crate) fn template() -> &'static Path {
    static TEMPLATE: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, git) = TEMPLATE.get_or_init(|| {
        // One thread: the `N`th write step is then the same step each time.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build_global();
        let dir = tempfile::tempdir().expect("template dir");
        let status = std::process::Command::new("git")
            .args(["init", "-q", "--template="])
            .arg(dir.path().join("repo"))
            .status()
            .expect("git runs");
        assert!(status.success(), "git init");
        let git = dir.path().join("repo/.git");
        (dir, git)
    });
    git
}

/// Copies the directory `from` to `to`, links as links, modes kept.
pub(crate) fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("copy: directory");
    for entry in fs::read_dir(from).expect("copy: read").flatten() {
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        let meta = fs::symlink_metadata(&src).expect("copy: stat");
        if meta.file_type().is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(&src).expect("link"), &dst).expect("symlink");
        } else if meta.is_dir() {
            copy_dir(&src, &dst);
        } else {
            fs::copy(&src, &dst).expect("copy: file");
        }
    }
}

/// Builds the tree the sections describe under `root`, as `cli` does.
pub(crate) fn build(root: &Path, sections: &[&[u8]]) -> Vec<PathBuf> {
    let mut made = Vec::new();
    for section in sections.iter().take(6) {
        let Some((&selector, content)) = section.split_first() else {
            continue;
        };
        let rel = PATHS[usize::from(selector & 0x3F) % PATHS.len()];
        let path = root.join(rel);
        if let Some(parent) = path.parent() {
            let _ = fs::create_dir_all(parent);
        }
        if fs::symlink_metadata(&path).is_ok() {
            continue;
        }
        if selector & 0x40 != 0 {
            let target = if content.first().is_some_and(|b| b % 2 == 0) {
                let depth = Path::new(rel).components().count();
                PathBuf::from("../".repeat(depth)).join("outside.txt")
            } else {
                PathBuf::from(
                    PATHS[usize::from(content.first().copied().unwrap_or(0)) % PATHS.len()],
                )
            };
            let _ = std::os::unix::fs::symlink(target, &path);
        } else if fs::write(&path, content).is_ok() && selector & 0x80 != 0 {
            let _ = fs::set_permissions(&path, fs::Permissions::from_mode(0o755));
        }
        made.push(PathBuf::from(rel));
    }
    made
}

/// The blob git stores for `entry` and the index mode it has.
pub(crate) fn blob_of(entry: &Entry) -> Option<(gix::ObjectId, u32)> {
    let (bytes, mode) = match entry {
        Entry::File(bytes, exec) => (
            &bytes[..],
            if *exec {
                Mode::FILE_EXECUTABLE
            } else {
                Mode::FILE
            },
        ),
        Entry::Link(target) => (target.as_os_str().as_bytes(), Mode::SYMLINK),
        Entry::EmptyDir => return None,
    };
    let id = gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::objs::Kind::Blob, bytes).ok()?;
    Some((id, mode.bits()))
}

/// Stages every file and link of the tree `root` (but `untracked`) in a
/// new index, its blobs written to the repository.
pub(crate) fn stage(root: &Path, untracked: Option<&Path>) {
    let repo = gix::open(root).expect("open the repository");
    let mut state = gix::index::State::new(repo.object_hash());
    for (rel, entry) in tree(root) {
        if Some(rel.as_path()) == untracked {
            continue;
        }
        let bytes = match &entry {
            Entry::File(bytes, _) => bytes.clone(),
            Entry::Link(target) => target.as_os_str().as_bytes().to_vec(),
            Entry::EmptyDir => continue,
        };
        let id = repo.write_blob(&bytes).expect("blob").detach();
        let (_, mode) = blob_of(&entry).expect("a file");
        let stat = gix::index::fs::Metadata::from_path_no_follow(&root.join(&rel))
            .ok()
            .and_then(|m| Stat::from_fs(&m).ok())
            .unwrap_or_default();
        let mode = Mode::from_bits(mode).expect("mode");
        state.dangerously_push_entry(
            stat,
            id,
            Flags::empty(),
            mode,
            rel.as_os_str().as_bytes().as_bstr(),
        );
    }
    state.sort_entries();
    let mut file = gix::index::File::from_state(state, repo.index_path());
    file.write(Default::default()).expect("write the index");
}

/// The index of the repository at `root` (empty outside one), checked
/// sound: it reads back, sorted, no path twice at a stage, no path both a
/// file and a directory, every blob stored.
pub(crate) fn index(root: &Path) -> Vec<IndexEntry> {
    let git = root.join(".git");
    if !git.exists() {
        return Vec::new();
    }
    let file = gix::index::File::at(
        git.join("index"),
        gix::hash::Kind::Sha1,
        false,
        Default::default(),
    )
    .unwrap_or_else(|e| panic!("the index does not read back: {e}"));
    if let Err(e) = file.verify_entries() {
        panic!("the index is not sound: {e}");
    }
    let entries: Vec<IndexEntry> = file
        .entries()
        .iter()
        .map(|e| {
            let path = e.path(&file).to_str_lossy().into_owned();
            (path, e.flags.stage() as u8, e.mode.bits(), e.id)
        })
        .collect();
    let paths: BTreeSet<&str> = entries.iter().map(|e| e.0.as_str()).collect();
    for (path, _, _, id) in &entries {
        let mut parent = Path::new(path).parent();
        while let Some(dir) = parent.filter(|d| !d.as_os_str().is_empty()) {
            assert!(
                !paths.contains(dir.to_str().unwrap_or_default()),
                "{path} and its directory {} both in the index",
                dir.display()
            );
            parent = dir.parent();
        }
        let hex = id.to_hex().to_string();
        assert!(
            git.join("objects").join(&hex[..2]).join(&hex[2..]).exists(),
            "{path}: blob {hex} not stored"
        );
    }
    entries
}

/// The tree and index of `root`, the index checked sound.
pub(crate) fn state(root: &Path) -> State {
    State {
        tree: tree(root),
        index: index(root),
    }
}
