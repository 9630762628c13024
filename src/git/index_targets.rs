//! Target contents from the index (`--cached`): the blob staged at each
//! path, a staged symbolic link's target for a patch that says it is one.

use super::Repo;
use crate::source::Content;
use crate::source::{Node, TargetError, Targets};
use gix::bstr::ByteSlice;
use gix::index::entry::Mode;
use std::path::Path;

/// Target contents from the index (`--cached`): the blob staged at each path.
pub(crate) struct IndexTargets<'r> {
    repo: &'r Repo,
    index: &'r gix::index::File,
    /// The working tree of `repo`: index paths are relative to its top, so
    /// an absolute path inside it names an index entry as well.
    tree: &'r crate::source::WorktreeTargets,
}

impl<'r> IndexTargets<'r> {
    /// Reads targets from `index` of `repo`, whose working tree is `tree`
    /// (only its top is used, to make absolute paths relative).
    pub(crate) fn new(
        repo: &'r Repo,
        index: &'r gix::index::File,
        tree: &'r crate::source::WorktreeTargets,
    ) -> Self {
        IndexTargets { repo, index, tree }
    }
}

impl IndexTargets<'_> {
    /// The index entry at `path` and its blob's bytes, if there is one.
    fn blob(&self, path: &str) -> Result<Option<(Mode, Vec<u8>)>, TargetError> {
        crate::source::join_inside(Path::new(""), path).map_err(TargetError::Outside)?;
        let Some(entry) = self.index.entry_by_path(path.as_bytes().as_bstr()) else {
            return Ok(None);
        };
        let blob = self
            .repo
            .repo
            .find_blob(entry.id)
            .map_err(|e| TargetError::Git {
                path: path.to_string(),
                source: std::sync::Arc::new(e),
            })?;
        Ok(Some((entry.mode, blob.data.clone())))
    }
}

impl Targets for IndexTargets<'_> {
    /// A staged symbolic link is refused, as in the working tree: a patch
    /// that does not say the file is a link edits files (see `read_node`).
    fn read(&self, path: &str) -> Result<Option<Content>, TargetError> {
        match self.blob(path)? {
            Some((Mode::SYMLINK, _)) => Err(TargetError::NotAFile(format!(
                "{path}: a symbolic link is staged there; edit the file it points to instead (git apply refuses it too)"
            ))),
            Some((_, bytes)) => Ok(Some(Content::Owned(bytes))),
            None => Ok(None),
        }
    }

    fn read_node(&self, path: &str) -> Result<Option<Node>, TargetError> {
        Ok(self.blob(path)?.map(|(mode, bytes)| match mode {
            Mode::SYMLINK => Node::Link(bytes),
            _ => Node::File(Content::Owned(bytes)),
        }))
    }

    fn mode(&self, path: &str) -> Option<u32> {
        self.index
            .entry_by_path(path.as_bytes().as_bstr())
            .map(|e| e.mode.bits())
    }

    fn relative(&self, path: &str) -> Option<String> {
        self.tree.relative(path)
    }

    fn named_elsewhere(&self, path: &str) -> Vec<String> {
        let tail = format!("/{path}");
        let mut found: Vec<String> = self
            .index
            .entries()
            .iter()
            .map(|e| e.path(self.index).to_string())
            .filter(|p| p.ends_with(&tail))
            .take(crate::source::NAMED_ELSEWHERE)
            .collect();
        found.sort();
        found
    }
}
