//! Patch parsing: every format a model writes, read into one [`Patch`].
//!
//! A whole model reply is a valid patch: prose and Markdown fences are skipped,
//! and unified diffs (numbered or numberless), Codex `*** Begin Patch`
//! envelopes, SEARCH/REPLACE blocks and Roo `<apply_diff>` envelopes may be
//! mixed in one reply. JSON edit requests (`{"path", "patch_lines"}`) are
//! unwrapped first.
//!
//! ```
//! use git_fuzzy_apply::model::PatchFormat;
//! use git_fuzzy_apply::{parse_patch, ParseOptions};
//!
//! let reply = b"Here is the fix:\n\n```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n```\n\nAnd a new file:\n\n*** Begin Patch\n*** Add File: b.txt\n+hi\n*** End Patch\n";
//! let patch = parse_patch(reply, &ParseOptions::default()).unwrap();
//! let formats: Vec<_> = patch.files.iter().map(|f| f.format).collect();
//! assert_eq!(formats, [PatchFormat::UnifiedDiff, PatchFormat::CodexEnvelope]);
//! ```

mod bare;
pub(crate) mod binary;
mod cleanup;
mod codex;
pub(crate) mod delta;
mod detect;
pub(crate) mod elision;
mod fence;
mod hunk;
pub(crate) mod numbering;
mod paths;
mod roo;
mod search_replace;
pub(crate) use numbering::strip_gutter_residue;
pub(crate) use search_replace::diff_lines;
mod sr_block;
mod unified;
pub(crate) mod xml_escape;

use crate::error::ParseError;
use crate::model::{FileOp, LineKind, Patch, PatchFormat};

/// A malformed-patch error at patch line `line` (1-based): the one helper
/// the parsers share.
fn malformed(line: usize, message: impl Into<String>) -> ParseError {
    ParseError::Malformed {
        line,
        message: message.into(),
    }
}

/// Options that steer parsing. The default detects the notation and
/// strips `a/` and `b/`; each `with_…` setter changes one choice.
///
/// ```
/// use git_fuzzy_apply::{parse_patch, ParseOptions};
///
/// // A bare SEARCH/REPLACE block names no file: `target` says which.
/// let block = b"<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n";
/// assert!(parse_patch(block, &ParseOptions::default()).is_err());
/// let options = ParseOptions::default().with_target("notes.txt");
/// assert_eq!(options.target(), Some("notes.txt"));
/// assert_eq!(parse_patch(block, &options).unwrap().files[0].path, "notes.txt");
/// ```
#[derive(Debug, Clone, Default)]
pub struct ParseOptions {
    /// Force one format instead of detecting it.
    pub(crate) format: Option<PatchFormat>,
    /// `-pN`: leading path components to strip; `None` strips `a/` and `b/` prefixes.
    pub(crate) strip: Option<usize>,
    /// Path for edits that name no file.
    pub(crate) target: Option<String>,
}

impl ParseOptions {
    /// Reads the patch as `format` only (`--format`); `None` detects the
    /// notation of each part, as the default does.
    ///
    /// ```
    /// use git_fuzzy_apply::model::PatchFormat;
    /// use git_fuzzy_apply::{parse_patch, ParseOptions};
    ///
    /// let diff = b"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n";
    /// let codex_only = ParseOptions::default().with_format(PatchFormat::CodexEnvelope);
    /// assert_eq!(codex_only.format(), Some(PatchFormat::CodexEnvelope));
    /// assert!(parse_patch(diff, &codex_only).is_err());
    /// ```
    pub fn with_format(mut self, format: impl Into<Option<PatchFormat>>) -> Self {
        self.format = format.into();
        self
    }

    /// Strips this many leading path components (`-pN`); `None` strips
    /// `a/` and `b/` prefixes, as the default does.
    ///
    /// ```
    /// use git_fuzzy_apply::{parse_patch, ParseOptions};
    ///
    /// let diff = b"--- x/src/a.txt\n+++ x/src/a.txt\n@@ -1 +1 @@\n-a\n+b\n";
    /// let options = ParseOptions::default().with_strip(1);
    /// assert_eq!(options.strip(), Some(1));
    /// assert_eq!(parse_patch(diff, &options).unwrap().files[0].path, "src/a.txt");
    /// ```
    pub fn with_strip(mut self, strip: impl Into<Option<usize>>) -> Self {
        self.strip = strip.into();
        self
    }

    /// The file that edits naming none apply to (`--target`).
    ///
    /// ```
    /// use git_fuzzy_apply::{parse_patch, ParseOptions};
    ///
    /// let block = b"<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n";
    /// let patch = parse_patch(block, &ParseOptions::default().with_target("src/a.rs")).unwrap();
    /// assert_eq!(patch.files[0].path, "src/a.rs");
    /// ```
    pub fn with_target(mut self, target: impl Into<String>) -> Self {
        self.target = Some(target.into());
        self
    }

    /// The one format read, if any (`None`: detected).
    ///
    /// ```
    /// use git_fuzzy_apply::ParseOptions;
    ///
    /// assert_eq!(ParseOptions::default().format(), None);
    /// ```
    pub fn format(&self) -> Option<PatchFormat> {
        self.format
    }

    /// The path components stripped (`None`: `a/` and `b/` prefixes).
    ///
    /// ```
    /// use git_fuzzy_apply::ParseOptions;
    ///
    /// assert_eq!(ParseOptions::default().strip(), None);
    /// ```
    pub fn strip(&self) -> Option<usize> {
        self.strip
    }

    /// The file for edits that name none, if any.
    ///
    /// ```
    /// use git_fuzzy_apply::ParseOptions;
    ///
    /// assert_eq!(ParseOptions::default().target(), None);
    /// ```
    pub fn target(&self) -> Option<&str> {
        self.target.as_deref()
    }
}

/// A patch text that the parsed hunks can share (cheap to clone: the bytes
/// are behind an `Arc`). Made from the bytes read without copying them.
///
/// ```
/// use git_fuzzy_apply::PatchText;
///
/// let text = PatchText::from(b"+x\n".to_vec());
/// assert_eq!(text.as_bytes(), b"+x\n");
/// ```
#[derive(Debug, Clone)]
pub struct PatchText(PatchBytes);

#[derive(Debug, Clone)]
enum PatchBytes {
    /// Valid UTF-8, shareable with hunk lines.
    Text(std::sync::Arc<String>),
    /// Not UTF-8: parsing reports where it stops being so.
    Bytes(std::sync::Arc<Vec<u8>>),
}

impl PatchText {
    /// The bytes.
    ///
    /// ```
    /// use git_fuzzy_apply::PatchText;
    ///
    /// assert_eq!(PatchText::from(vec![0xff]).as_bytes(), [0xff]);
    /// ```
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            PatchBytes::Text(text) => text.as_bytes(),
            PatchBytes::Bytes(bytes) => bytes,
        }
    }

    /// The text, when it is UTF-8.
    fn shared(&self) -> Option<&std::sync::Arc<String>> {
        match &self.0 {
            PatchBytes::Text(text) => Some(text),
            PatchBytes::Bytes(_) => None,
        }
    }
}

impl From<Vec<u8>> for PatchText {
    fn from(bytes: Vec<u8>) -> Self {
        PatchText(match String::from_utf8(bytes) {
            Ok(text) => PatchBytes::Text(std::sync::Arc::new(text)),
            Err(e) => PatchBytes::Bytes(std::sync::Arc::new(e.into_bytes())),
        })
    }
}

/// Parses a patch text (a whole model reply) into a [`Patch`].
///
/// Errors: [`ParseError::InvalidUtf8`] for non-UTF-8 input,
/// [`ParseError::Malformed`] for an edit that is started but cannot be read,
/// [`ParseError::NoTargetPath`] for an edit naming no file without a target,
/// and [`ParseError::NoEdits`] when the text holds no edit at all.
///
/// ```
/// use git_fuzzy_apply::model::{FileOp, LineKind, PatchFormat};
/// use git_fuzzy_apply::{parse_patch, ParseOptions};
///
/// let reply = "I renamed the flag:\n\n*** Begin Patch\n*** Update File: cli.py\n@@ def main():\n-    verbose = False\n+    quiet = False\n*** End Patch\n\nDone.\n";
/// let patch = parse_patch(reply.as_bytes(), &ParseOptions::default()).unwrap();
/// let [file] = patch.files.as_slice() else { panic!("one file") };
/// assert_eq!((file.path.as_str(), file.op, file.format), ("cli.py", FileOp::Update, PatchFormat::CodexEnvelope));
/// let hunk = &file.hunks[0];
/// assert_eq!(hunk.anchors, ["def main():"]);
/// assert_eq!(hunk.lines[1].kind, LineKind::Add);
/// assert_eq!(hunk.lines[1].text, "    quiet = False");
///
/// // Prose alone is no patch.
/// assert!(parse_patch(b"Looks good to me!", &ParseOptions::default()).is_err());
/// ```
pub fn parse_patch(text: &[u8], options: &ParseOptions) -> Result<Patch, ParseError> {
    parse_patch_text(&PatchText::from(text.to_vec()), options)
}

/// [`parse_patch`] on a [`PatchText`]: the hunk lines of a diff point into
/// the text instead of copying it, so a large patch is held once.
///
/// ```
/// use git_fuzzy_apply::{parse_patch_text, ParseOptions, PatchText};
///
/// let text = PatchText::from(b"--- a/a.txt\n+++ b/a.txt\n@@\n-old\n+new\n".to_vec());
/// let patch = parse_patch_text(&text, &ParseOptions::default()).unwrap();
/// assert_eq!(patch.files[0].hunks[0].lines[1].text, "new");
/// ```
pub fn parse_patch_text(text: &PatchText, options: &ParseOptions) -> Result<Patch, ParseError> {
    let segments = cleanup::prepare(text)?;
    let mut files = Vec::new();
    for segment in segments {
        // A segment that names its file (a JSON request's `path`) overrides
        // `--target` within it.
        let ctx = ParseOptions {
            target: segment.path.or_else(|| options.target.clone()),
            ..options.clone()
        };
        detect::scan(&segment.src, &ctx, &mut files)?;
    }
    for file in &mut files {
        file.path = paths::normalize(&file.path);
        for other in [&mut file.move_to, &mut file.copy_from]
            .into_iter()
            .flatten()
        {
            *other = paths::normalize(other);
        }
    }
    for file in &mut files {
        // A CR ending a line of a whole file created or deleted is that
        // line's, and so is a BOM on its first line (the file is written or
        // checked as given); an edit keeps the file's own line ends and
        // BOM, so they go from its hunks.
        let whole = file.copy_from.is_none() && file.op != FileOp::Update;
        for hunk in &mut file.hunks {
            // A block's decoded reading (XML-escaped markers) is finished
            // as the block is.
            hunk.each_reading(|reading| {
                if !whole {
                    drop_line_end_crs(reading);
                    let elision = reading.elision.as_deref_mut();
                    if let Some(Ok(pieces)) = elision.map(|e| &mut e.pieces) {
                        pieces.iter_mut().for_each(drop_line_end_crs);
                    }
                    drop_file_bom(reading, &file.path)?;
                }
                Ok::<(), ParseError>(())
            })?;
        }
    }
    for hunk in files.iter_mut().flat_map(|f| f.hunks.iter_mut()) {
        let Ok(()) = hunk.each_reading(|reading| {
            crate::model::pack_lone_texts(&mut reading.lines);
            if let Some(written) = &mut reading.as_written {
                crate::model::pack_lone_texts(written);
            }
            Ok::<(), std::convert::Infallible>(())
        });
    }
    if files.is_empty() {
        return Err(ParseError::NoEdits);
    }
    Ok(Patch { files })
}

/// Drops a CR that ends a hunk line, an anchor or a line as written.
fn drop_line_end_crs(hunk: &mut crate::model::Hunk) {
    // Every line of `kind` that has a line end (not the side's last line
    // under `\ No newline at end of file`) ends in CR, and there is one.
    let all_crlf = |kind: LineKind, missing_newline: bool| {
        let on_side = |l: &&crate::model::HunkLine| l.kind == kind || l.kind == LineKind::Context;
        let last = hunk.lines.iter().rposition(|l| on_side(&l));
        let mut ended = hunk
            .lines
            .iter()
            .enumerate()
            .filter(|(k, l)| l.kind == kind && !(missing_newline && Some(*k) == last))
            .map(|(_, l)| l);
        ended.clone().next().is_some() && ended.all(|l| l.text.ends_with('\r'))
    };
    hunk.added_crlf = all_crlf(LineKind::Add, hunk.new_missing_newline);
    hunk.removed_crlf = all_crlf(LineKind::Remove, hunk.old_missing_newline);
    for line in hunk
        .lines
        .iter_mut()
        .chain(hunk.as_written.iter_mut().flatten())
    {
        line.text.trim_cr();
    }
    for anchor in &mut hunk.anchors {
        if anchor.ends_with('\r') {
            anchor.pop();
        }
    }
}

/// Drops the byte-order mark a hunk copied with the file's first line
/// (`-\u{feff}name = a` / `+\u{feff}name = b` from `git diff` or a SEARCH
/// section): the file keeps its own mark, which would otherwise be doubled.
/// Only when the first old line carries one: it then stands for line 1, and
/// the first new line loses a mark too. A hunk whose new side does not
/// start with the mark would remove it, which is not done (the file keeps
/// its mark): refused — unless the mark only shows once line-number
/// prefixes are stripped: then the lines as written are the hunk.
fn drop_file_bom(hunk: &mut crate::model::Hunk, path: &str) -> Result<(), ParseError> {
    const BOM: char = '\u{feff}';
    let Some(first_old) = hunk.lines.iter().position(|l| l.is_old()) else {
        return Ok(());
    };
    if !hunk.lines[first_old].text.starts_with(BOM) {
        return Ok(());
    }
    let first_new = hunk.lines.iter().position(|l| l.is_new());
    if !first_new.is_some_and(|k| hunk.lines[k].text.starts_with(BOM)) {
        if let Some(written) = hunk.as_written.take() {
            // The mark shows only once line-number prefixes are stripped
            // (`-2:\u{feff}x`): that reading would remove a mark, so it is
            // not one; the lines as written are the hunk.
            hunk.lines = written;
            return Ok(());
        }
        return Err(ParseError::Malformed {
            line: hunk.patch_line,
            message: format!(
                "{path}: the hunk removes the byte-order mark at the start of the file, which is not supported (the file keeps its mark)"
            ),
        });
    }
    for k in std::iter::once(first_old).chain(first_new) {
        if let Some(line) = hunk.lines.get_mut(k)
            && let Some(rest) = line.text.strip_prefix(BOM)
        {
            line.text = rest.to_string().into();
        }
    }
    Ok(())
}

/// Helpers shared by the parser tests.
#[cfg(test)]
pub(crate) mod test_util {
    use super::{ParseOptions, parse_patch};
    use crate::error::ParseError;
    use crate::model::{Hunk, LineKind, Patch};

    /// Parses with default options.
    pub(crate) fn parse(text: &str) -> Result<Patch, ParseError> {
        parse_patch(text.as_bytes(), &ParseOptions::default())
    }

    /// Parses with a `--target`.
    pub(crate) fn parse_target(text: &str, target: &str) -> Result<Patch, ParseError> {
        let opts = ParseOptions {
            target: Some(target.into()),
            ..ParseOptions::default()
        };
        parse_patch(text.as_bytes(), &opts)
    }

    /// A hunk as `" ctx"`, `"-old"`, `"+new"` strings.
    pub(crate) fn show(h: &Hunk) -> Vec<String> {
        h.lines
            .iter()
            .map(|l| {
                let m = match l.kind {
                    LineKind::Context => ' ',
                    LineKind::Remove => '-',
                    LineKind::Add => '+',
                };
                format!("{m}{}", l.text)
            })
            .collect()
    }

    /// The line and message of a Malformed error (panics otherwise: tests only).
    pub(crate) fn malformed(r: Result<Patch, ParseError>) -> (usize, String) {
        match r {
            Err(ParseError::Malformed { line, message }) => (line, message),
            other => panic!("expected Malformed, got {other:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::test_util::*;
    use super::*;
    use crate::model::FileOp;

    #[test]
    fn prose_only_is_no_edits() {
        assert_eq!(
            parse("Just some text.\n\n```\ncode\n```\n"),
            Err(ParseError::NoEdits)
        );
        assert_eq!(parse(""), Err(ParseError::NoEdits));
    }

    #[test]
    fn mixed_reply_reads_every_format() {
        let text = "I changed three files.\n\n```diff\n--- a/one.rs\n+++ b/one.rs\n@@ -1,2 +1,2 @@\n fn a() {}\n-fn b() {}\n+fn c() {}\n```\n\nThen:\n\ntwo.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n\n*** Begin Patch\n*** Delete File: three.txt\n*** End Patch\n";
        let p = parse(text).unwrap();
        let names: Vec<_> = p
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.format))
            .collect();
        assert_eq!(
            names,
            [
                ("one.rs", PatchFormat::UnifiedDiff),
                ("two.py", PatchFormat::SearchReplace),
                ("three.txt", PatchFormat::CodexEnvelope)
            ]
        );
        assert_eq!(p.files[1].patch_line, 16);
        assert_eq!(p.files[2].op, FileOp::Delete);
    }

    #[test]
    fn crlf_of_each_side_is_remembered() {
        // The last added line has no line end: it does not count.
        let text = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n-b\r\n+c\r\n+d\r\n\\ No newline at end of file\n";
        let h = &parse(text).unwrap().files[0].hunks[0];
        assert!(h.added_crlf && !h.removed_crlf);
        assert_eq!(show(h), ["-a", "-b", "+c", "+d"]);
        let text = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\r\n+c\n";
        let h = &parse(text).unwrap().files[0].hunks[0];
        assert!(!h.added_crlf && h.removed_crlf);
    }

    #[test]
    fn forced_format_treats_others_as_prose() {
        let text = "--- a/one.rs\n+++ b/one.rs\n@@ -1 +1 @@\n-a\n+b\n\ntwo.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n";
        let only_sr = ParseOptions {
            format: Some(PatchFormat::SearchReplace),
            ..ParseOptions::default()
        };
        let p = parse_patch(text.as_bytes(), &only_sr).unwrap();
        assert_eq!(p.files.len(), 1);
        assert_eq!(p.files[0].path, "two.py");
        let only_diff = ParseOptions {
            format: Some(PatchFormat::UnifiedDiff),
            ..ParseOptions::default()
        };
        let p = parse_patch(text.as_bytes(), &only_diff).unwrap();
        assert_eq!(p.files.len(), 1);
        assert_eq!(p.files[0].path, "one.rs");
        let only_codex = ParseOptions {
            format: Some(PatchFormat::CodexEnvelope),
            ..ParseOptions::default()
        };
        assert_eq!(
            parse_patch(text.as_bytes(), &only_codex),
            Err(ParseError::NoEdits)
        );
    }
}

#[cfg(test)]
mod robustness {
    use super::*;
    use proptest::prelude::*;

    const PIECES: &[&str] = &[
        "--- a/x\n",
        "+++ b/x\n",
        "@@ -1,2 +1,2 @@\n",
        "@@\n",
        "@@ ctx\n",
        " ctx\n",
        "-old\n",
        "+new\n",
        "\n",
        "\\ No newline at end of file\n",
        "diff --git a/x b/x\n",
        "new file mode 100644\n",
        "rename from x\n",
        "*** Begin Patch\n",
        "*** End Patch\n",
        "*** Update File: x\n",
        "*** Add File: y\n",
        "*** End of File\n",
        "*** Move to: z\n",
        "<<<<<<< SEARCH\n",
        "=======\n",
        ">>>>>>> REPLACE\n",
        ":start_line:3\n",
        "-------\n",
        "```\n",
        "```python\n",
        "x.py\n",
        "42 | code\n",
        "-7 | a\n",
        "<apply_diff>\n",
        "<path>p</path>\n",
        "<diff>\n",
        "</diff>\n",
        "<file>\n",
        "</file>\n",
        "</apply_diff>\n",
        "<content><![CDATA[\n",
        "]]></content>\n",
        "<start_line>x</start_line>\n",
        "\r\n",
        "\r",
        "é\u{feff}",
        "{\"path\":\"a\",\"patch_lines\":[\"@@\",\"-a\"]}",
    ];

    proptest! {
        #[test]
        fn never_panics_on_token_soup(idx in prop::collection::vec(0..PIECES.len(), 0..40)) {
            let text: String = idx.iter().filter_map(|&i| PIECES.get(i).copied()).collect();
            let _ = parse_patch(text.as_bytes(), &ParseOptions::default());
            let _ = parse_patch(text.as_bytes(), &ParseOptions { strip: Some(1), target: Some("t".into()), ..ParseOptions::default() });
        }

        #[test]
        fn never_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
            let _ = parse_patch(&bytes, &ParseOptions::default());
        }
    }
}
