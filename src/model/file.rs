//! One file's patch: the operation on a path, its hunks, and what a git
//! header said about it (modes, blob ids, a copy or rename source).

use serde::Serialize;

use super::{BinaryPatch, FileOp, Hunk, PatchFormat};

/// All edits to one path.
///
/// ```
/// use git_fuzzy_apply::model::{FileOp, PatchFormat};
/// use git_fuzzy_apply::{parse_patch, ParseOptions};
///
/// let text = b"Some prose.\n\n--- a/src/a.rs\n+++ b/src/a.rs\n@@\n-a\n+b\n";
/// let patch = parse_patch(text, &ParseOptions::default()).unwrap();
/// let file = &patch.files[0];
/// assert_eq!((file.path.as_str(), file.op), ("src/a.rs", FileOp::Update));
/// assert_eq!((file.format, file.patch_line), (PatchFormat::NumberlessDiff, 3));
/// assert_eq!((file.hunks.len(), file.move_to.as_deref()), (1, None));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FilePatch {
    /// Path of the target, relative to the working directory, `/`-separated.
    pub path: String,
    /// Update, add or delete.
    pub op: FileOp,
    /// New path when the file is renamed (`*** Move to:`, `rename to`).
    pub move_to: Option<String>,
    /// Hunks in patch order.
    pub hunks: Vec<Hunk>,
    /// The notation the edits were written in.
    pub format: PatchFormat,
    /// For [`FileOp::Update`]: create the file from the added lines if it does not
    /// exist (an empty SEARCH section); when it exists the lines are appended.
    pub create_if_missing: bool,
    /// File mode given by the patch for an added file (`new file mode 100755`).
    pub new_mode: Option<u32>,
    /// File mode the patch says the file has before it: `old mode`,
    /// `deleted file mode`, or the mode after an `index` line's ids
    /// (`index 4c33073..aa1fcfd 120000`). Only a symbolic link's mode
    /// (`120000`) changes how the file is planned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_mode: Option<u32>,
    /// 1-based line of the patch text where this file's edits start.
    pub patch_line: usize,
    /// For a copy (`copy from`/`copy to` of `git diff -C`): the source, kept
    /// as it is; the file is then a [`FileOp::Add`] of `path` whose content
    /// is the source's with the hunks applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub copy_from: Option<String>,
    /// The blob ids of a `git diff` `index OLD..NEW` line: when the file is
    /// the blob `old` names, the diff was made from exactly this text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blob_ids: Option<BlobIds>,
    /// A unified diff that writes the whole file as new without saying so
    /// with `/dev/null`: `--- a/x` / `+++ b/x` (no `diff --git`) and one
    /// hunk `@@ -0,0 +1,N @@` of added lines. The file is created when it
    /// is missing ([`FilePatch::create_if_missing`]); one that exists with
    /// other content is refused (`file_exists`), as `git apply` refuses it,
    /// rather than getting the lines at its top.
    #[serde(skip)]
    pub written_as_new: bool,
    /// The edit's file was named only by a bare word on the line before it
    /// (`run`, `CHANGES`: no extension, no `/`), which names a file only
    /// when the tree has one; decided before anything is located.
    #[serde(skip)]
    pub bare_name: Option<BareName>,
    /// A `GIT binary patch` section (then `hunks` is empty): the file's
    /// content is replaced exactly, never matched by the text tiers.
    #[serde(skip)]
    pub binary: Option<BinaryPatch>,
}

/// A bare word that may name the file of the edit below it (`run`,
/// `CHANGES`): the parser sees no tree, so [`FilePatch::path`] holds
/// [`BareName::other`] when there is one, else the word, until the tree
/// decides. The word names the file when one of that name exists and the
/// edit has lines to find there, and no other file would take the edit.
///
/// ```
/// use git_fuzzy_apply::{parse_patch, ParseOptions};
///
/// let text = b"run\n<<<<<<< SEARCH\nexec a\n=======\nexec b\n>>>>>>> REPLACE\n";
/// let patch = parse_patch(text, &ParseOptions::default()).unwrap();
/// let bare = patch.files[0].bare_name.as_ref().unwrap();
/// assert_eq!((bare.name.as_str(), bare.line, bare.other.as_deref()), ("run", 1, None));
/// assert_eq!(patch.files[0].path, "run");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BareName {
    /// The word as written, cleaned of decoration (`` `run` `` is `run`).
    pub name: String,
    /// The patch line it stands on.
    pub line: usize,
    /// The file the edit goes to without the word (the previous block's
    /// file, or `--target`), if any.
    pub other: Option<String>,
}

/// The two blob ids (abbreviated lowercase hex, as written) of a `git diff`
/// `index` line, `index 83db48f..bf269f4 100644`.
///
/// ```
/// use git_fuzzy_apply::model::BlobIds;
///
/// let ids = BlobIds::parse("83db48f..bf269f4 100644").unwrap();
/// assert_eq!((ids.old.as_str(), ids.new.as_str()), ("83db48f", "bf269f4"));
/// assert!(BlobIds::parse("83db..bf26").is_none(), "too short to name a blob");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlobIds {
    /// The id of the text the diff was made from.
    pub old: String,
    /// The id of the text it makes.
    pub new: String,
}

impl BlobIds {
    /// Reads what follows `index `: two ids of 7 to 64 hex digits joined by
    /// `..`, then an optional mode. `None` for anything else.
    ///
    /// ```
    /// use git_fuzzy_apply::model::BlobIds;
    ///
    /// let ids = BlobIds::parse("83DB48F..bf269f4 100644").unwrap();
    /// assert_eq!((ids.old.as_str(), ids.new.as_str()), ("83db48f", "bf269f4"));
    /// assert!(BlobIds::parse("83db..bf269f4").is_none());
    /// ```
    pub fn parse(rest: &str) -> Option<BlobIds> {
        let ids = rest.split_whitespace().next()?;
        let (old, new) = ids.split_once("..")?;
        let hex = |s: &str| (7..=64).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit());
        (hex(old) && hex(new)).then(|| BlobIds {
            old: old.to_ascii_lowercase(),
            new: new.to_ascii_lowercase(),
        })
    }

    /// The ids the other way round, for a reversed patch.
    ///
    /// ```
    /// use git_fuzzy_apply::model::BlobIds;
    ///
    /// let ids = BlobIds::parse("83db48f..bf269f4").unwrap().reversed();
    /// assert_eq!((ids.old.as_str(), ids.new.as_str()), ("bf269f4", "83db48f"));
    /// ```
    pub fn reversed(self) -> BlobIds {
        BlobIds {
            old: self.new,
            new: self.old,
        }
    }
}

/// The git mode of a symbolic link, whose content is the link's target.
pub(crate) const SYMLINK_MODE: u32 = 0o120000;

impl FilePatch {
    /// True when the patch says the file is a symbolic link (mode
    /// `120000` on either side): its content is the link's target.
    ///
    /// ```
    /// use git_fuzzy_apply::{parse_patch, ParseOptions};
    ///
    /// let text = b"diff --git a/l b/l\nnew file mode 120000\nindex 0000000..1b407f2\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+target\n\\ No newline at end of file\n";
    /// let patch = parse_patch(text, &ParseOptions::default()).unwrap();
    /// assert!(patch.files[0].is_link());
    /// ```
    pub fn is_link(&self) -> bool {
        self.old_mode == Some(SYMLINK_MODE) || self.new_mode == Some(SYMLINK_MODE)
    }

    /// A file patch with no hunks yet.
    ///
    /// ```
    /// use git_fuzzy_apply::model::{FileOp, FilePatch, PatchFormat};
    ///
    /// let file = FilePatch::new("notes.md", FileOp::Add, PatchFormat::UnifiedDiff, 1);
    /// assert_eq!(file.path, "notes.md");
    /// assert!(file.hunks.is_empty() && file.move_to.is_none());
    /// ```
    pub fn new(
        path: impl Into<String>,
        op: FileOp,
        format: PatchFormat,
        patch_line: usize,
    ) -> Self {
        FilePatch {
            path: path.into(),
            op,
            move_to: None,
            hunks: Vec::new(),
            format,
            create_if_missing: false,
            new_mode: None,
            old_mode: None,
            patch_line,
            copy_from: None,
            blob_ids: None,
            written_as_new: false,
            bare_name: None,
            binary: None,
        }
    }
}
