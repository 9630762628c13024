//! Rendering: the original's unchanged runs (copied in one slice, or by
//! the kernel from the file for long runs) with the plan's edits spliced
//! in. Line terminators, a BOM and a missing final newline are kept unless
//! the plan changes them. Planning renders a result to bytes in memory
//! ([`render_to_vec`]); writing streams it into a staged file
//! (`crate::write`).

use crate::plan::edits::{FilePlan, NewLine};
use crate::source::SourceText;
use std::fs;
use std::io::{self, Write};

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Writes the edited file to `out`.
pub(crate) fn render(source: &SourceText, plan: &FilePlan, out: &mut impl Write) -> io::Result<()> {
    render_with(source, plan, out, None)
}

/// Where [`render_with`] copies long unchanged runs from.
#[derive(Clone, Copy)]
pub(crate) struct Bulk<'a> {
    /// The file the source was read from: the kernel copies runs from it to
    /// the output without passing them through this process
    /// (`copy_file_range`).
    pub from: &'a fs::File,
    /// Called after every [`BULK_CHUNK`] bytes copied (to start their
    /// writeback while the next chunk is copied).
    pub chunk_copied: &'a dyn Fn(),
}

/// Writes the edited file to `out`; unchanged runs are copied from `bulk`
/// when given.
pub(crate) fn render_with<W: Write>(
    source: &SourceText,
    plan: &FilePlan,
    out: &mut W,
    bulk: Option<Bulk<'_>>,
) -> io::Result<()> {
    render_hashed(source, plan, out, bulk, None)
}

/// [`render_with`], also feeding every byte of the result to `crc` (runs
/// the kernel copies are taken from the source's own bytes).
pub(crate) fn render_hashed<W: Write>(
    source: &SourceText,
    plan: &FilePlan,
    out: &mut W,
    bulk: Option<Bulk<'_>>,
    crc: Option<&mut crc32fast::Hasher>,
) -> io::Result<()> {
    let mut writer = LineWriter {
        out,
        eol: line_end(source, plan),
        pending: None,
        bulk,
        crc,
    };
    if source.has_bom() {
        writer.emit(BOM)?;
    }
    let mut cursor = 0;
    for edit in &plan.edits {
        writer.copy_lines(source, cursor, edit.start)?;
        for line in &edit.lines {
            match line {
                NewLine::Keep(j) => writer.line(source.line(*j), source.terminator(*j))?,
                NewLine::Insert(text) => writer.line(text.as_bytes(), b"")?,
            }
        }
        cursor = cursor.max(edit.end);
    }
    writer.copy_lines(source, cursor, source.len())?;
    writer.finish(plan.final_newline)
}

/// The line end of new lines: the file's dominant one, or, for a file
/// without any line end (empty, or one unterminated line), the patch's.
fn line_end(source: &SourceText, plan: &FilePlan) -> &'static [u8] {
    let terminated = source.len() - usize::from(!source.has_final_newline());
    if terminated == 0 && plan.crlf_when_file_has_none {
        b"\r\n"
    } else {
        source.dominant_eol()
    }
}

/// Renders into a new buffer.
pub(crate) fn render_to_vec(source: &SourceText, plan: &FilePlan) -> Vec<u8> {
    let mut out = Vec::with_capacity(source.bytes().len() + 256);
    // Writing to a Vec cannot fail.
    let _ = render(source, plan, &mut out);
    out
}

/// Runs shorter than this are written from memory rather than copied by the kernel.
const BULK_COPY_MIN: usize = 64 * 1024;

/// Long runs are copied in pieces of this size.
pub(crate) const BULK_CHUNK: u64 = 64 * 1024 * 1024;

/// Writes lines, holding back each line's terminator until the next line (or
/// the end) decides whether it is needed.
struct LineWriter<'w, W: Write> {
    out: &'w mut W,
    eol: &'static [u8],
    /// Terminator owed by the last written line (empty: it had none).
    pending: Option<&'static [u8]>,
    bulk: Option<Bulk<'w>>,
    /// Fed every byte written, when the caller wants a checksum.
    crc: Option<&'w mut crc32fast::Hasher>,
}

/// The static form of a line terminator.
fn terminator(t: &[u8]) -> &'static [u8] {
    match t {
        b"\r\n" => b"\r\n",
        b"\n" => b"\n",
        _ => b"",
    }
}

impl<W: Write> LineWriter<'_, W> {
    /// Writes `bytes` (and feeds them to the checksum).
    fn emit(&mut self, bytes: &[u8]) -> io::Result<()> {
        if let Some(crc) = self.crc.as_deref_mut() {
            crc.update(bytes);
        }
        self.out.write_all(bytes)
    }

    fn flush_pending(&mut self) -> io::Result<()> {
        if let Some(term) = self.pending.take() {
            self.emit(if term.is_empty() { self.eol } else { term })?;
        }
        Ok(())
    }

    fn line(&mut self, content: &[u8], term: &[u8]) -> io::Result<()> {
        self.flush_pending()?;
        self.emit(content)?;
        self.pending = Some(terminator(term));
        Ok(())
    }

    /// Copies file lines `from..to` verbatim.
    fn copy_lines(&mut self, source: &SourceText, from: usize, to: usize) -> io::Result<()> {
        if from >= to {
            return Ok(());
        }
        self.flush_pending()?;
        let range = source.span(from).start..source.span(to - 1).content_end;
        match self.bulk {
            Some(bulk) if range.len() >= BULK_COPY_MIN => {
                use std::io::{Read, Seek, SeekFrom};
                let mut src = bulk.from;
                src.seek(SeekFrom::Start(range.start as u64))?;
                let mut left = range.len() as u64;
                while left > 0 {
                    let want = left.min(BULK_CHUNK);
                    let copied = io::copy(&mut src.take(want), self.out)?;
                    if copied != want {
                        return Err(io::Error::other(
                            "the file shrank while it was being copied",
                        ));
                    }
                    left -= want;
                    (bulk.chunk_copied)();
                }
                if let Some(crc) = self.crc.as_deref_mut() {
                    // Piece by piece, each given back once read (a
                    // mapped file's pages would stay in the process).
                    for piece in source.bytes()[range].chunks(crate::source::SPARSE_BLOCK) {
                        crc.update(piece);
                        crate::source::release(piece);
                    }
                }
            }
            _ => {
                self.emit(&source.bytes()[range.clone()])?;
                crate::source::release(&source.bytes()[range]);
            }
        }
        self.pending = Some(terminator(source.terminator(to - 1)));
        Ok(())
    }

    fn finish(mut self, final_newline: bool) -> io::Result<()> {
        if final_newline {
            self.flush_pending()?;
        }
        Ok(())
    }
}
