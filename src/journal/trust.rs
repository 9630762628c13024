//! Whether a journal found on disk may be acted on: written by this tool,
//! for this very tree, naming nothing outside it.

use super::{Expected, JournalData, JournalError, Recovery, TreeId, VERSION, unrecoverable};
use std::fs;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

/// What reading the journal at `path` found.
pub(super) enum Found {
    /// No journal.
    None,
    /// A journal written for this tree.
    Trusted(JournalData),
    /// One that is not (see [`Recovery::Ignored`]).
    Untrusted(String),
}

/// Reads the journal at `path` and checks that it was written for the tree
/// `expected` describes.
pub(super) fn read(path: &Path, expected: Expected) -> Result<Found, JournalError> {
    let text = match read_no_follow(path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Found::None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Ok(Found::Untrusted("it is a symbolic link".to_string()));
        }
        Err(e) => return Err(unrecoverable(path, e.to_string())),
    };
    let value: serde_json::Value =
        serde_json::from_slice(&text).map_err(|e| unrecoverable(path, e.to_string()))?;
    let version = value.get("version").and_then(serde_json::Value::as_u64);
    if version != Some(u64::from(VERSION)) {
        return Ok(Found::Untrusted(format!(
            "journal version {} is not {VERSION}",
            version.map_or("none".to_string(), |v| v.to_string())
        )));
    }
    let data: JournalData =
        serde_json::from_value(value).map_err(|e| unrecoverable(path, e.to_string()))?;
    Ok(match trusted(&data, expected) {
        Ok(()) => Found::Trusted(data.in_tree(expected.root)),
        Err(reason) => Found::Untrusted(reason),
    })
}

/// The bytes of the file at `path`, which must not be a symbolic link
/// (`ELOOP` if it is).
fn read_no_follow(path: &Path) -> io::Result<Vec<u8>> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)?;
    let mut text = Vec::new();
    file.read_to_end(&mut text)?;
    Ok(text)
}

/// Checks that `data` (as read from disk) was written for the tree
/// `expected` describes and names nothing outside it: every path relative,
/// inside the tree.
fn trusted(data: &JournalData, expected: Expected) -> Result<(), String> {
    let same_root = fs::canonicalize(&data.root)
        .ok()
        .zip(fs::canonicalize(expected.root).ok())
        .is_some_and(|(a, b)| a == b);
    if !same_root || TreeId::of(expected.root).ok() != Some(data.tree) {
        return Err(format!(
            "it names the tree {}, not this one",
            data.root.display()
        ));
    }
    if let Some((index, _)) = &data.index
        && Some(index.as_path()) != expected.index
    {
        return Err(format!("it names the index {}", index.display()));
    }
    for dir in &data.created_dirs {
        confined(dir, expected.root)?;
    }
    for entry in &data.entries {
        confined(&entry.target, expected.root)?;
        let beside = |file: &Option<PathBuf>, prefix: &str| -> Result<(), String> {
            let Some(file) = file else { return Ok(()) };
            let named = file
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix));
            if named && file.parent() == entry.target.parent() {
                Ok(())
            } else {
                Err(format!("{} is not a file of its own", file.display()))
            }
        };
        beside(&entry.staged, ".fuzzy-apply-new-")?;
        beside(&entry.backup, ".fuzzy-apply-old-")?;
    }
    Ok(())
}

/// Checks that `rel` names a path inside `root`: relative, without `..` or
/// `.git`, and without a symbolic link among its directories.
fn confined(rel: &Path, root: &Path) -> Result<(), String> {
    let outside = || format!("{} lies outside the tree", rel.display());
    let mut dir = root.to_path_buf();
    let mut parts = rel.components().peekable();
    if parts.peek().is_none() {
        return Err(outside());
    }
    while let Some(part) = parts.next() {
        match part {
            Component::Normal(name) if !name.eq_ignore_ascii_case(".git") => dir.push(name),
            _ => return Err(outside()),
        }
        let last = parts.peek().is_none();
        if !last && fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(format!(
                "{} goes through the symbolic link {}",
                rel.display(),
                dir.display()
            ));
        }
    }
    Ok(())
}

/// What a run that must not write reports about the journal at `path`:
/// a recovery pending, a journal ignored, or nothing.
pub(crate) fn pending(path: &Path, expected: Expected) -> Option<Recovery> {
    match read(path, expected) {
        Ok(Found::None) => None,
        Ok(Found::Trusted(_)) | Err(_) => Some(Recovery::Pending {
            journal: path.to_path_buf(),
        }),
        Ok(Found::Untrusted(reason)) => Some(Recovery::Ignored {
            journal: path.to_path_buf(),
            reason,
        }),
    }
}
