//! A target file's bytes and the facts the engine needs about them: where each
//! line starts and ends, its line terminators, a UTF-8 byte-order mark, and
//! whether the last line ends with a newline.
//!
//! Lines are byte ranges into the buffer, never owned strings, so the buffer
//! may come from `std::fs::read` or a memory map alike.

use memchr::memchr_iter;
use std::borrow::Cow;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The byte range of one line and of its terminator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineSpan {
    /// First byte of the line's content.
    pub start: usize,
    /// One past the last content byte (the terminator starts here).
    pub content_end: usize,
    /// One past the terminator (equals `content_end` on a last line without newline).
    pub end: usize,
}

/// A target file as lines over borrowed bytes.
///
/// The index holds one offset per line (8 bytes), and line ends are derived
/// from the next line's start, so a 1 GiB file of 40-byte lines costs about
/// 200 MiB of index.
#[derive(Debug, Clone)]
pub struct SourceText<'a> {
    bytes: &'a [u8],
    has_bom: bool,
    starts: Cow<'a, [usize]>,
    crlf_lines: usize,
}

/// A source's line index without the bytes, to be joined to them again
/// later without a second pass ([`SourceText::with_index`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineIndex {
    has_bom: bool,
    starts: Vec<usize>,
    crlf_lines: usize,
    len: usize,
}

impl<'a> SourceText<'a> {
    /// Gives up the bytes and keeps the index.
    pub fn into_index(self) -> LineIndex {
        LineIndex {
            has_bom: self.has_bom,
            starts: self.starts.into_owned(),
            crlf_lines: self.crlf_lines,
            len: self.bytes.len(),
        }
    }

    /// Joins an index made by [`SourceText::into_index`] to the same bytes;
    /// indexes them afresh if they are not the same length.
    pub fn with_index(bytes: &'a [u8], index: &'a LineIndex) -> Self {
        if index.len != bytes.len() {
            return SourceText::new(bytes);
        }
        SourceText {
            bytes,
            has_bom: index.has_bom,
            starts: Cow::Borrowed(&index.starts),
            crlf_lines: index.crlf_lines,
        }
    }

    /// Indexes the lines of `bytes` (one pass with `memchr`).
    pub fn new(bytes: &'a [u8]) -> Self {
        let has_bom = bytes.starts_with(BOM);
        let body_start = if has_bom { BOM.len() } else { 0 };
        let mut starts = Vec::with_capacity(bytes.len() / 40 + 1);
        let mut crlf_lines = 0;
        let mut start = body_start;
        for nl in memchr_iter(b'\n', &bytes[body_start..]) {
            let nl = nl + body_start;
            if nl > start && bytes[nl - 1] == b'\r' {
                crlf_lines += 1;
            }
            starts.push(start);
            start = nl + 1;
        }
        if start < bytes.len() {
            starts.push(start);
        }
        SourceText {
            bytes,
            has_bom,
            starts: Cow::Owned(starts),
            crlf_lines,
        }
    }

    /// The whole buffer, BOM included.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Number of lines.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// True when the file has no lines.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// The span of line `index` (0-based).
    pub fn span(&self, index: usize) -> LineSpan {
        let start = self.starts[index];
        let end = self
            .starts
            .get(index + 1)
            .copied()
            .unwrap_or(self.bytes.len());
        let mut content_end = end;
        if content_end > start && self.bytes[content_end - 1] == b'\n' {
            content_end -= 1;
            if content_end > start && self.bytes[content_end - 1] == b'\r' {
                content_end -= 1;
            }
        }
        LineSpan {
            start,
            content_end,
            end,
        }
    }

    /// The line (0-based) holding byte `offset`.
    pub fn line_of_offset(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1)
    }

    /// Content of line `index` (0-based), without terminator.
    pub fn line(&self, index: usize) -> &'a [u8] {
        let span = self.span(index);
        &self.bytes[span.start..span.content_end]
    }

    /// Content of line `index` as text (lossy only where the file is not UTF-8).
    pub fn line_text(&self, index: usize) -> Cow<'a, str> {
        String::from_utf8_lossy(self.line(index))
    }

    /// The terminator of line `index`: `\n`, `\r\n` or empty on an unterminated last line.
    pub fn terminator(&self, index: usize) -> &'a [u8] {
        let span = self.span(index);
        &self.bytes[span.content_end..span.end]
    }

    /// True when the file starts with a UTF-8 byte-order mark.
    pub fn has_bom(&self) -> bool {
        self.has_bom
    }

    /// True when the file is empty or its last line ends with a newline.
    pub fn has_final_newline(&self) -> bool {
        self.is_empty() || self.bytes.last() == Some(&b'\n')
    }

    /// The terminator new lines should get: CRLF when most lines use it, else LF.
    pub fn dominant_eol(&self) -> &'static [u8] {
        let terminated = self.len() - usize::from(!self.has_final_newline());
        if self.crlf_lines > 0 && self.crlf_lines * 2 >= terminated {
            b"\r\n"
        } else {
            b"\n"
        }
    }
}

/// True when `bytes` looks binary: a NUL byte in the first 8000 bytes, as git decides.
pub fn looks_binary(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(8000)];
    memchr::memchr(0, head).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexes_lines_and_terminators() {
        let src = SourceText::new(b"a\r\nb\nc");
        assert_eq!(src.len(), 3);
        assert_eq!(src.line(0), b"a");
        assert_eq!(src.terminator(0), b"\r\n");
        assert_eq!(src.line(1), b"b");
        assert_eq!(src.terminator(2), b"");
        assert!(!src.has_final_newline());
    }

    #[test]
    fn bom_is_not_part_of_the_first_line() {
        let src = SourceText::new(b"\xEF\xBB\xBFfirst\nsecond\n");
        assert!(src.has_bom());
        assert_eq!(src.line(0), b"first");
        assert!(src.has_final_newline());
    }

    #[test]
    fn dominant_eol_follows_the_majority() {
        assert_eq!(SourceText::new(b"a\r\nb\r\nc\n").dominant_eol(), b"\r\n");
        assert_eq!(SourceText::new(b"a\nb\nc\r\n").dominant_eol(), b"\n");
        assert_eq!(SourceText::new(b"").dominant_eol(), b"\n");
    }

    #[test]
    fn offsets_map_to_lines() {
        let src = SourceText::new(b"ab\ncd\n\nef");
        assert_eq!(src.line_of_offset(0), 0);
        assert_eq!(src.line_of_offset(2), 0);
        assert_eq!(src.line_of_offset(3), 1);
        assert_eq!(src.line_of_offset(6), 2);
        assert_eq!(src.line_of_offset(9), 3);
        assert_eq!(src.line(3), b"ef");
    }

    #[test]
    fn empty_lines_are_lines() {
        let src = SourceText::new(b"\n\n");
        assert_eq!(src.len(), 2);
        assert_eq!(src.line(1), b"");
    }

    #[test]
    fn nul_means_binary() {
        assert!(looks_binary(b"abc\0def"));
        assert!(!looks_binary(b"plain text\n"));
    }
}
