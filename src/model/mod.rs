//! The one model every patch format is parsed into.
//!
//! Whatever notation a model wrote (unified diff, numberless diff, the Codex
//! envelope, SEARCH/REPLACE blocks), the parsers produce a [`Patch`]: a list of
//! [`FilePatch`]es, each an operation on one path with its [`Hunk`]s. The
//! locator and planner only ever see this model.
//!
//! ```
//! use git_fuzzy_apply::model::{LineKind, PatchFormat};
//! use git_fuzzy_apply::{parse_patch, ParseOptions};
//!
//! let text = b"app.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n";
//! let patch = parse_patch(text, &ParseOptions::default()).unwrap();
//! let file = &patch.files[0];
//! assert_eq!((file.path.as_str(), file.format), ("app.py", PatchFormat::SearchReplace));
//! let kinds: Vec<_> = file.hunks[0].lines.iter().map(|l| l.kind).collect();
//! assert_eq!(kinds, [LineKind::Remove, LineKind::Add]);
//! ```

use serde::Serialize;

mod binary;
mod file;
mod text;
pub use binary::{BinaryHunk, BinaryKind, BinaryPatch};
pub(crate) use file::SYMLINK_MODE;
pub use file::{BareName, BlobIds, FilePatch};
pub use text::LineText;
pub(crate) use text::pack_lone_texts;

/// The notation a file patch was written in.
///
/// ```
/// use git_fuzzy_apply::model::PatchFormat;
/// use git_fuzzy_apply::{parse_patch, ParseOptions};
///
/// let text = b"*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n*** End Patch\n";
/// let patch = parse_patch(text, &ParseOptions::default()).unwrap();
/// assert_eq!(patch.files[0].format, PatchFormat::CodexEnvelope);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
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
    ///
    /// ```
    /// use git_fuzzy_apply::model::PatchFormat;
    ///
    /// assert_eq!(PatchFormat::NumberlessDiff.name(), "numberless diff");
    /// assert_eq!(serde_json::to_value(PatchFormat::NumberlessDiff).unwrap(), "numberless_diff");
    /// ```
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
///
/// ```
/// use git_fuzzy_apply::model::FileOp;
/// use git_fuzzy_apply::{parse_patch, ParseOptions};
///
/// let text = b"*** Begin Patch\n*** Delete File: old.txt\n*** Add File: new.txt\n+hi\n*** End Patch\n";
/// let patch = parse_patch(text, &ParseOptions::default()).unwrap();
/// let ops: Vec<FileOp> = patch.files.iter().map(|f| f.op).collect();
/// assert_eq!(ops, [FileOp::Delete, FileOp::Add]);
/// ```
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
///
/// ```
/// use git_fuzzy_apply::model::LineKind;
/// use git_fuzzy_apply::{parse_patch, ParseOptions};
///
/// let text = b"--- a/a.txt\n+++ b/a.txt\n@@\n keep\n-drop\n+put\n";
/// let patch = parse_patch(text, &ParseOptions::default()).unwrap();
/// let kinds: Vec<LineKind> = patch.files[0].hunks[0].lines.iter().map(|l| l.kind).collect();
/// assert_eq!(kinds, [LineKind::Context, LineKind::Remove, LineKind::Add]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
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
///
/// ```
/// use git_fuzzy_apply::model::{HunkLine, LineKind};
/// use git_fuzzy_apply::{parse_patch, ParseOptions};
///
/// let text = b"--- a/a.txt\n+++ b/a.txt\n@@\n-old\r\n+new\n";
/// let patch = parse_patch(text, &ParseOptions::default()).unwrap();
/// // No prefix, no line terminator.
/// assert_eq!(patch.files[0].hunks[0].lines[0], HunkLine::new(LineKind::Remove, "old"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HunkLine {
    /// Context, removed or added.
    pub kind: LineKind,
    /// The text of the line, without prefix or line terminator.
    pub text: LineText,
}

impl HunkLine {
    /// Builds a hunk line.
    ///
    /// ```
    /// use git_fuzzy_apply::model::{HunkLine, LineKind};
    ///
    /// let line = HunkLine::new(LineKind::Add, "let x = 1;");
    /// assert_eq!((line.kind, line.text.as_str()), (LineKind::Add, "let x = 1;"));
    /// ```
    pub fn new(kind: LineKind, text: impl Into<LineText>) -> Self {
        HunkLine {
            kind,
            text: text.into(),
        }
    }

    /// True for lines that must be found in the file (context and removed lines).
    ///
    /// ```
    /// use git_fuzzy_apply::model::{HunkLine, LineKind};
    ///
    /// assert!(HunkLine::new(LineKind::Context, "a").is_old());
    /// assert!(HunkLine::new(LineKind::Remove, "a").is_old());
    /// assert!(!HunkLine::new(LineKind::Add, "a").is_old());
    /// ```
    pub fn is_old(&self) -> bool {
        self.kind != LineKind::Add
    }

    /// True for lines that appear in the result (context and added lines).
    ///
    /// ```
    /// use git_fuzzy_apply::model::{HunkLine, LineKind};
    ///
    /// assert!(HunkLine::new(LineKind::Context, "a").is_new());
    /// assert!(!HunkLine::new(LineKind::Remove, "a").is_new());
    /// assert!(HunkLine::new(LineKind::Add, "a").is_new());
    /// ```
    pub fn is_new(&self) -> bool {
        self.kind != LineKind::Remove
    }
}

/// One contiguous change: the lines to find and what replaces them.
///
/// ```
/// use git_fuzzy_apply::{parse_patch, ParseOptions};
///
/// let text = b"--- a/a.txt\n+++ b/a.txt\n@@ -7,2 +7,2 @@\n a\n-b\n+c\n";
/// let patch = parse_patch(text, &ParseOptions::default()).unwrap();
/// let hunk = &patch.files[0].hunks[0];
/// assert_eq!((hunk.line_hint, hunk.patch_line), (Some(7), 3));
/// assert_eq!(hunk.lines.len(), 3);
/// assert!(hunk.anchors.is_empty() && !hunk.at_eof);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Hunk {
    /// Context, removed and added lines in patch order.
    pub lines: Vec<HunkLine>,
    /// Where the patch claims the hunk starts in the original file (1-based):
    /// a unified header's old start, a `:start_line:`, or a stripped `N | ` prefix.
    /// Only ever a hint; for a hunk with no old lines it is the line after which
    /// the new lines go (as in `@@ -10,0 +11,2 @@`).
    pub line_hint: Option<usize>,
    /// A unified header's new-side start (`+c` of `@@ -a,b +c,d @@`), as
    /// written: a second reading of where the hunk goes, once the lines
    /// the hunks before it add and remove are taken back out.
    #[serde(skip)]
    pub new_start: Option<usize>,
    /// A Roo block's `:end_line:M` (the old side's last line as written):
    /// a second reading of where the hunk starts, `M` less the old side's
    /// length plus one. Like [`Hunk::new_start`] it may contradict the
    /// line hint, never pick a place on its own.
    #[serde(skip)]
    pub end_hint: Option<usize>,
    /// The first number of a numbered view's line-number prefixes
    /// (`42 | code`, stripped), where a unified header or `:start_line:`
    /// gave [`Hunk::line_hint`] another number: a second reading of where
    /// the hunk starts. Like [`Hunk::new_start`] it may contradict the line
    /// hint, never pick a place on its own.
    #[serde(skip)]
    pub view_start: Option<usize>,
    /// The patch line of a second `=======` read as a stray marker right
    /// before `>>>>>>> REPLACE` (a reply's habit, `docs/formats.md`): the
    /// block is refused in a file that holds such lines as content.
    #[serde(skip)]
    pub stray_divider: Option<usize>,
    /// The text after a numbered header's closing `@@` (git's section
    /// heading, `@@ -5,2 +5,3 @@ def save(self):`), trimmed; empty when
    /// there is none. It names the block the hunk lies in.
    #[serde(skip)]
    pub section: String,
    /// Codex `@@ <context>` anchors, outermost first: the hunk lies after them.
    pub anchors: Vec<String>,
    /// Codex `*** End of File`: the hunk belongs at the end of the file.
    pub at_eof: bool,
    /// `\ No newline at end of file` followed the old side's last line.
    pub old_missing_newline: bool,
    /// `\ No newline at end of file` followed the new side's last line.
    pub new_missing_newline: bool,
    /// [`Hunk::old_missing_newline`] was read from a marker after a context
    /// line that only added lines follow (a model's placement, not git's):
    /// the old side's claim is checked against the file it is placed in.
    #[serde(skip)]
    pub old_missing_on_context: bool,
    /// [`Hunk::new_missing_newline`] was read from a marker after a context
    /// line that only removed lines follow.
    #[serde(skip)]
    pub new_missing_on_context: bool,
    /// 1-based line of the patch text where this hunk starts (for error messages).
    pub patch_line: usize,
    /// When line-number prefixes (`42 | code`) were stripped from `lines`:
    /// the lines exactly as written. They are tried first, since a file may
    /// really begin its lines with numbers (a TSV file, a numbered list).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub as_written: Option<Vec<HunkLine>>,
    /// This hunk opens another section of edits to the same file (a second
    /// envelope, diff or notation in the same reply): Codex anchors are
    /// sought from the top of the file again, and the line-number offset
    /// found by the hunks before it is not carried over.
    #[serde(skip)]
    pub starts_section: bool,
    /// Every added line ended in CRLF in the patch (the CR is gone from
    /// `lines`): the line end for a file that has none of its own.
    #[serde(skip)]
    pub added_crlf: bool,
    /// Every removed line ended in CRLF in the patch (kept for `-R`, which
    /// makes them the added lines).
    #[serde(skip)]
    pub removed_crlf: bool,
    /// A SEARCH/REPLACE block holding elision lines (`...`,
    /// `// ... existing code ...`), or a unified hunk with such context
    /// lines: how it reads with them. The block as written (elision lines
    /// as content) is tried first.
    #[serde(skip)]
    pub elision: Option<Box<Elision>>,
    /// A piece of a block read around its elision lines: it is located
    /// even when it changes nothing, since where it stands is evidence of
    /// where the pieces beside it go (they must lie in order).
    #[serde(skip)]
    pub elision_piece: bool,
    /// A SEARCH/REPLACE block whose SEARCH ends in one blank line after a
    /// line that is not blank: where the block stands nowhere as written,
    /// it is read without that line, kept only where it then ends at the
    /// file's last line (Cline's applier matches that blank line with the
    /// end of the file; see `docs/formats.md`).
    #[serde(skip)]
    pub trailing_blank_search: bool,
    /// A Roo block under `:start_line:` whose first SEARCH line begins with
    /// `| ` (spaces before it allowed) and no other line with a gutter:
    /// what is left of a `N | ` line-number prefix whose number was
    /// dropped. Where the block stands nowhere as written, it is read
    /// without that `| ` (see `docs/formats.md`).
    #[serde(skip)]
    pub gutter_residue: bool,
    /// For a piece after an elision line: that line as written (its
    /// indentation says which block the lines it stands for lie in).
    #[serde(skip)]
    pub elision_above: Option<String>,
    /// A SEARCH/REPLACE block of a Roo or Cline tool call whose markers
    /// were written XML-escaped (`&lt;&lt;&lt;&lt;&lt;&lt;&lt; SEARCH`): the
    /// block read with `&lt;`, `&gt;`, `&amp;`, `&quot;`, `&apos;`,
    /// `&#39;` decoded, when that differs from the block as written
    /// (`lines`). The file decides between the two readings, all of a
    /// file's blocks read one way; where both place with different
    /// results the blocks are refused (see `docs/formats.md`).
    #[serde(skip)]
    pub unescaped: Option<Box<Hunk>>,
}

/// Elision lines in a SEARCH/REPLACE block: lines that stand for unchanged
/// text the block does not write out (see `docs/formats.md`).
///
/// ```
/// use git_fuzzy_apply::{parse_patch, ParseOptions};
///
/// let block = b"x.py\n<<<<<<< SEARCH\na = 1\n...\nz = 1\n=======\na = 2\n...\nz = 2\n>>>>>>> REPLACE\n";
/// let patch = parse_patch(block, &ParseOptions::default()).unwrap();
/// let elision = patch.files[0].hunks[0].elision.as_ref().unwrap();
/// assert_eq!((elision.text.as_str(), elision.patch_line), ("...", 4));
/// assert_eq!(elision.pieces.as_ref().map(Vec::len), Ok(2));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Elision {
    /// The first elision line, trimmed.
    pub text: String,
    /// Its 1-based line in the patch text.
    pub patch_line: usize,
    /// The pieces between the elision lines, each a hunk of its own placed
    /// in order (`Ok`), or why the elision lines do not pair (`Err`).
    pub pieces: Result<Vec<Hunk>, String>,
    /// Only REPLACE holds elision lines: the block would write them in
    /// place of the code they stand for, so it is refused unless the file
    /// already holds that line (then it is content).
    pub replace_only: bool,
}

impl Hunk {
    /// The hunk itself, or (`decoded`) its decoded reading
    /// ([`Hunk::unescaped`]) when it has one.
    pub(crate) fn read_as(&self, decoded: bool) -> &Hunk {
        match self.unescaped.as_deref() {
            Some(d) if decoded => d,
            _ => self,
        }
    }

    /// Runs `f` on the hunk and then on its decoded reading
    /// ([`Hunk::unescaped`]), if it has one; stops at the first error.
    pub(crate) fn each_reading<E>(
        &mut self,
        mut f: impl FnMut(&mut Hunk) -> Result<(), E>,
    ) -> Result<(), E> {
        f(self)?;
        match self.unescaped.as_deref_mut() {
            Some(decoded) => f(decoded),
            None => Ok(()),
        }
    }

    /// The lines that must be found in the file, in order.
    ///
    /// ```
    /// use git_fuzzy_apply::model::{Hunk, HunkLine, LineKind::*};
    ///
    /// let hunk = Hunk {
    ///     lines: vec![HunkLine::new(Context, "a"), HunkLine::new(Remove, "b"), HunkLine::new(Add, "c")],
    ///     ..Hunk::default()
    /// };
    /// let old: Vec<&str> = hunk.old_lines().map(|l| l.text.as_str()).collect();
    /// assert_eq!(old, ["a", "b"]);
    /// ```
    pub fn old_lines(&self) -> impl Iterator<Item = &HunkLine> {
        self.lines.iter().filter(|l| l.is_old())
    }

    /// The lines of the result, in order.
    ///
    /// ```
    /// use git_fuzzy_apply::model::{Hunk, HunkLine, LineKind::*};
    ///
    /// let hunk = Hunk {
    ///     lines: vec![HunkLine::new(Context, "a"), HunkLine::new(Remove, "b"), HunkLine::new(Add, "c")],
    ///     ..Hunk::default()
    /// };
    /// let new: Vec<&str> = hunk.new_lines().map(|l| l.text.as_str()).collect();
    /// assert_eq!(new, ["a", "c"]);
    /// ```
    pub fn new_lines(&self) -> impl Iterator<Item = &HunkLine> {
        self.lines.iter().filter(|l| l.is_new())
    }

    /// Number of lines that must be found in the file.
    ///
    /// ```
    /// use git_fuzzy_apply::model::{Hunk, HunkLine, LineKind::*};
    ///
    /// let hunk = Hunk {
    ///     lines: vec![HunkLine::new(Context, "a"), HunkLine::new(Remove, "b"), HunkLine::new(Add, "c")],
    ///     ..Hunk::default()
    /// };
    /// assert_eq!(hunk.old_len(), 2);
    /// ```
    pub fn old_len(&self) -> usize {
        self.old_lines().count()
    }

    /// True when the hunk removes nothing and has no context (a pure insertion).
    ///
    /// ```
    /// use git_fuzzy_apply::model::{Hunk, HunkLine, LineKind};
    ///
    /// let insert = Hunk { lines: vec![HunkLine::new(LineKind::Add, "new")], ..Hunk::default() };
    /// assert!(insert.is_pure_addition());
    /// let edit = Hunk { lines: vec![HunkLine::new(LineKind::Remove, "old")], ..insert.clone() };
    /// assert!(!edit.is_pure_addition());
    /// ```
    pub fn is_pure_addition(&self) -> bool {
        self.lines.iter().all(|l| l.kind == LineKind::Add)
    }

    /// True when the hunk changes nothing (only context lines).
    ///
    /// ```
    /// use git_fuzzy_apply::model::{Hunk, HunkLine, LineKind};
    ///
    /// let context = Hunk { lines: vec![HunkLine::new(LineKind::Context, "same")], ..Hunk::default() };
    /// assert!(context.is_noop());
    /// ```
    pub fn is_noop(&self) -> bool {
        self.lines.iter().all(|l| l.kind == LineKind::Context)
    }
}

/// A parsed patch: edits to one or more files.
///
/// ```
/// use git_fuzzy_apply::model::FileOp;
/// use git_fuzzy_apply::{parse_patch, ParseOptions};
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunk_lines_are_made_from_any_kind_of_string() {
        let owned = String::from("b = 2");
        let lines = [
            HunkLine::new(LineKind::Context, "a = 1"),
            HunkLine::new(LineKind::Remove, &owned),
            HunkLine::new(LineKind::Add, owned.clone()),
            HunkLine::new(LineKind::Add, Box::<str>::from("c = 3")),
            HunkLine::new(LineKind::Add, std::borrow::Cow::Borrowed("d = 4")),
        ];
        let texts: Vec<&str> = lines.iter().map(|l| &*l.text).collect();
        assert_eq!(texts, ["a = 1", "b = 2", "b = 2", "c = 3", "d = 4"]);
    }
}
