//! The one model every patch format is parsed into.
//!
//! Whatever notation a model wrote (unified diff, numberless diff, the Codex
//! envelope, SEARCH/REPLACE blocks), the parsers produce a [`Patch`]: a list of
//! [`FilePatch`]es, each an operation on one path with its [`Hunk`]s. The
//! locator and planner only ever see this model.

use serde::Serialize;

/// The notation a file patch was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PatchFormat {
    /// `---`/`+++` headers with numbered `@@ -a,b +c,d @@` hunks (`git diff`, `diff -u`).
    UnifiedDiff,
    /// Unified diff whose hunk headers carry no numbers (`@@`, `@@ @@`, `--- filename: x`).
    NumberlessDiff,
    /// The Codex / OpenCode `*** Begin Patch` envelope.
    CodexEnvelope,
    /// Aider / Roo-Code `<<<<<<< SEARCH` … `>>>>>>> REPLACE` blocks.
    SearchReplace,
}

impl PatchFormat {
    /// A short, stable name for reports.
    pub fn name(self) -> &'static str {
        match self {
            PatchFormat::UnifiedDiff => "unified diff",
            PatchFormat::NumberlessDiff => "numberless diff",
            PatchFormat::CodexEnvelope => "codex envelope",
            PatchFormat::SearchReplace => "search/replace",
        }
    }
}

/// What a file patch does to its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileOp {
    /// Edit an existing file with hunks (possibly also moving it).
    Update,
    /// Create a new file whose content is the added lines of its single hunk.
    Add,
    /// Delete an existing file.
    Delete,
}

/// The role of one line inside a hunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    /// Unchanged line used to locate the hunk (` ` prefix).
    Context,
    /// Line that must exist in the file and is removed (`-` prefix).
    Remove,
    /// Line that is inserted (`+` prefix).
    Add,
}

/// One line of a hunk, without its prefix and without any line terminator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HunkLine {
    /// Context, removed or added.
    pub kind: LineKind,
    /// The text of the line, without prefix or line terminator.
    pub text: String,
}

impl HunkLine {
    /// Builds a hunk line.
    pub fn new(kind: LineKind, text: impl Into<String>) -> Self {
        HunkLine {
            kind,
            text: text.into(),
        }
    }

    /// True for lines that must be found in the file (context and removed lines).
    pub fn is_old(&self) -> bool {
        self.kind != LineKind::Add
    }

    /// True for lines that appear in the result (context and added lines).
    pub fn is_new(&self) -> bool {
        self.kind != LineKind::Remove
    }
}

/// One contiguous change: the lines to find and what replaces them.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Hunk {
    /// Context, removed and added lines in patch order.
    pub lines: Vec<HunkLine>,
    /// Where the patch claims the hunk starts in the original file (1-based):
    /// a unified header's old start, a `:start_line:`, or a stripped `N | ` prefix.
    /// Only ever a hint; for a hunk with no old lines it is the line after which
    /// the new lines go (as in `@@ -10,0 +11,2 @@`).
    pub line_hint: Option<usize>,
    /// Codex `@@ <context>` anchors, outermost first: the hunk lies after them.
    pub anchors: Vec<String>,
    /// Codex `*** End of File`: the hunk belongs at the end of the file.
    pub at_eof: bool,
    /// `\ No newline at end of file` followed the old side's last line.
    pub old_missing_newline: bool,
    /// `\ No newline at end of file` followed the new side's last line.
    pub new_missing_newline: bool,
    /// 1-based line of the patch text where this hunk starts (for error messages).
    pub patch_line: usize,
    /// When line-number prefixes (`42 | code`) were stripped from `lines`:
    /// the lines exactly as written. They are tried first, since a file may
    /// really begin its lines with numbers (a TSV file, a numbered list).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub as_written: Option<Vec<HunkLine>>,
}

impl Hunk {
    /// The lines that must be found in the file, in order.
    pub fn old_lines(&self) -> impl Iterator<Item = &HunkLine> {
        self.lines.iter().filter(|l| l.is_old())
    }

    /// The lines of the result, in order.
    pub fn new_lines(&self) -> impl Iterator<Item = &HunkLine> {
        self.lines.iter().filter(|l| l.is_new())
    }

    /// Number of lines that must be found in the file.
    pub fn old_len(&self) -> usize {
        self.old_lines().count()
    }

    /// True when the hunk removes nothing and has no context (a pure insertion).
    pub fn is_pure_addition(&self) -> bool {
        self.lines.iter().all(|l| l.kind == LineKind::Add)
    }

    /// True when the hunk changes nothing (only context lines).
    pub fn is_noop(&self) -> bool {
        self.lines.iter().all(|l| l.kind == LineKind::Context)
    }
}

/// All edits to one path.
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
    /// 1-based line of the patch text where this file's edits start.
    pub patch_line: usize,
}

impl FilePatch {
    /// A file patch with no hunks yet.
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
            patch_line,
        }
    }
}

/// A parsed patch: edits to one or more files.
///
/// ```
/// use git_fuzzy_apply::model::FileOp;
/// use git_fuzzy_apply::patch::{parse_patch, ParseOptions};
///
/// let text = b"--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n";
/// let patch = parse_patch(text, &ParseOptions::default()).unwrap();
/// let ops: Vec<_> = patch.files.iter().map(|f| (f.path.as_str(), f.op)).collect();
/// assert_eq!(ops, [("old.txt", FileOp::Delete), ("new.txt", FileOp::Add)]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Patch {
    /// File patches in the order they appear in the patch text.
    pub files: Vec<FilePatch>,
}
