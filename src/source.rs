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
#[derive(Debug, Clone)]
pub struct SourceText<'a> {
    bytes: &'a [u8],
    has_bom: bool,
    lines: Vec<LineSpan>,
    crlf_lines: usize,
}

impl<'a> SourceText<'a> {
    /// Indexes the lines of `bytes` (one pass with `memchr`).
    pub fn new(bytes: &'a [u8]) -> Self {
        let has_bom = bytes.starts_with(BOM);
        let body_start = if has_bom { BOM.len() } else { 0 };
        let mut lines = Vec::new();
        let mut crlf_lines = 0;
        let mut start = body_start;
        for nl in memchr_iter(b'\n', &bytes[body_start..]) {
            let nl = nl + body_start;
            let content_end = if nl > start && bytes[nl - 1] == b'\r' {
                crlf_lines += 1;
                nl - 1
            } else {
                nl
            };
            lines.push(LineSpan {
                start,
                content_end,
                end: nl + 1,
            });
            start = nl + 1;
        }
        if start < bytes.len() {
            lines.push(LineSpan {
                start,
                content_end: bytes.len(),
                end: bytes.len(),
            });
        }
        SourceText {
            bytes,
            has_bom,
            lines,
            crlf_lines,
        }
    }

    /// The whole buffer, BOM included.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Number of lines.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// True when the file has no lines.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The span of line `index` (0-based).
    pub fn span(&self, index: usize) -> LineSpan {
        self.lines[index]
    }

    /// Content of line `index` (0-based), without terminator.
    pub fn line(&self, index: usize) -> &'a [u8] {
        let span = self.lines[index];
        &self.bytes[span.start..span.content_end]
    }

    /// Content of line `index` as text (lossy only where the file is not UTF-8).
    pub fn line_text(&self, index: usize) -> Cow<'a, str> {
        String::from_utf8_lossy(self.line(index))
    }

    /// The terminator of line `index`: `\n`, `\r\n` or empty on an unterminated last line.
    pub fn terminator(&self, index: usize) -> &'a [u8] {
        let span = self.lines[index];
        &self.bytes[span.content_end..span.end]
    }

    /// True when the file starts with a UTF-8 byte-order mark.
    pub fn has_bom(&self) -> bool {
        self.has_bom
    }

    /// True when the file is empty or its last line ends with a newline.
    pub fn has_final_newline(&self) -> bool {
        self.lines
            .last()
            .is_none_or(|span| span.end > span.content_end)
    }

    /// The terminator new lines should get: CRLF when most lines use it, else LF.
    pub fn dominant_eol(&self) -> &'static [u8] {
        let terminated = self.lines.len() - usize::from(!self.has_final_newline());
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
