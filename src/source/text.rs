//! A target file's bytes and the facts the engine needs about them: where each
//! line starts and ends, its line terminators, a UTF-8 byte-order mark, and
//! whether the last line ends with a newline.
//!
//! Lines are byte ranges into the buffer, never owned strings, so the buffer
//! may come from `std::fs::read` or a memory map alike.
//!
//! Two kinds of line index: a dense one (one offset per line) for files read
//! into memory, and a sparse one for memory-mapped files
//! ([`LineIndex::sparse`]). The sparse one counts the lines that start
//! before each [`SPARSE_BLOCK`] bytes (8 KiB of counts per GiB) and finds a
//! block's line starts when one of its lines is asked for, keeping the last
//! few such blocks.

use memchr::memchr_iter;
use std::any::Any;
use std::borrow::Cow;
use std::sync::{Arc, Mutex, OnceLock};

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Bytes per block of a sparse index.
pub(crate) const SPARSE_BLOCK: usize = 1 << 20;

/// Densely indexed blocks a sparse source keeps at a time: at least this
/// many, and two per thread of the pool searching it (each search thread maps
/// its hits in a block of its own, so fewer would index blocks over and over).
const CACHED_BLOCKS: usize = 4;

/// How many blocks the cache keeps with the current thread pool.
fn cached_blocks() -> usize {
    CACHED_BLOCKS.max(2 * rayon::current_num_threads())
}

/// The byte range of one line and of its terminator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineSpan {
    /// First byte of the line's content.
    pub start: usize,
    /// One past the last content byte (the terminator starts here).
    pub content_end: usize,
    /// One past the terminator (equals `content_end` on a last line without newline).
    pub end: usize,
}

/// A target file as lines over borrowed bytes.
#[derive(Debug, Clone)]
pub(crate) struct SourceText<'a> {
    bytes: &'a [u8],
    has_bom: bool,
    lines: Lines<'a>,
    crlf_lines: usize,
    /// What a stage that reads these bytes learnt of them, for its next
    /// reading (the locator's memo: `locate::memo`); shared by clones,
    /// which hold the same bytes.
    learnt: Arc<OnceLock<Box<dyn Any + Send + Sync>>>,
}

/// Where lines start: every line's offset, or how many lines start before
/// each fixed-size block of bytes.
#[derive(Debug, Clone)]
enum Lines<'a> {
    Dense(Cow<'a, [usize]>),
    Sparse(SparseLines<'a>),
}

/// A sparse index: `before[k]` lines start before byte `k * block`; a block's
/// line starts are found on demand and the last few kept.
struct SparseLines<'a> {
    before: Cow<'a, [usize]>,
    block: usize,
    body_start: usize,
    cache: Mutex<Vec<Block>>,
}

/// The line starts in one block of bytes, and where its last line ends.
struct Block {
    number: usize,
    starts: Vec<usize>,
    last_end: usize,
}

impl Clone for SparseLines<'_> {
    fn clone(&self) -> Self {
        SparseLines {
            before: self.before.clone(),
            block: self.block,
            body_start: self.body_start,
            cache: Mutex::new(Vec::new()),
        }
    }
}

impl std::fmt::Debug for SparseLines<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "SparseLines({} lines, {} blocks)",
            self.count(),
            self.blocks()
        )
    }
}

/// Where newlines that start a line in block `number` may stand: a line
/// starts one past a newline, and not at the very end of the bytes.
fn newline_range(len: usize, block: usize, number: usize) -> std::ops::Range<usize> {
    let from = (number * block).saturating_sub(1);
    let to = ((number + 1) * block).min(len).saturating_sub(1);
    from..to.max(from)
}

impl SparseLines<'_> {
    fn count(&self) -> usize {
        self.before.last().copied().unwrap_or(0)
    }

    fn blocks(&self) -> usize {
        self.before.len().saturating_sub(1)
    }

    /// Indexes block `number`. Bytes that no longer agree with the counts
    /// (the file changed under its mapping) give lines that are wrong but in
    /// range and in order, never a panic.
    fn index_block(&self, bytes: &[u8], number: usize) -> Block {
        let from = number * self.block;
        let mut starts = Vec::new();
        if (from..from + self.block).contains(&self.body_start) && self.body_start < bytes.len() {
            starts.push(self.body_start);
        }
        let range = newline_range(bytes.len(), self.block, number);
        starts.extend(memchr_iter(b'\n', &bytes[range.clone()]).map(|nl| range.start + nl + 1));
        // The few lines used of it are mapped in again when read.
        super::release(&bytes[range]);
        let want = self.before[number + 1] - self.before[number];
        let pad = starts.last().copied().unwrap_or(from.min(bytes.len()));
        starts.resize(want, pad);
        let last_end = match starts.last() {
            Some(&last) => {
                memchr::memchr(b'\n', &bytes[last..]).map_or(bytes.len(), |nl| last + nl + 1)
            }
            None => from.min(bytes.len()),
        };
        Block {
            number,
            starts,
            last_end,
        }
    }

    /// Calls `f` with block `number`, indexing it if it is not cached. The
    /// cache keeps the blocks used last (least recently used first out); a
    /// block is indexed outside the lock, so that threads searching other
    /// blocks do not wait for it.
    fn with_block<T>(&self, bytes: &[u8], number: usize, f: impl FnOnce(&Block) -> T) -> T {
        let lock = || self.cache.lock().unwrap_or_else(|e| e.into_inner());
        {
            let mut cache = lock();
            if let Some(at) = cache.iter().position(|b| b.number == number) {
                // Most recently used last.
                let block = cache.remove(at);
                cache.push(block);
                let last = cache.len() - 1;
                return f(&cache[last]);
            }
        }
        let block = self.index_block(bytes, number);
        let mut cache = lock();
        // Another thread may have indexed it meanwhile: keep one copy.
        cache.retain(|b| b.number != number);
        if cache.len() >= cached_blocks() {
            cache.remove(0);
        }
        cache.push(block);
        let last = cache.len() - 1;
        f(&cache[last])
    }

    /// Start and end (the next line's start) of line `index`.
    fn bounds(&self, bytes: &[u8], index: usize) -> (usize, usize) {
        let number = self
            .before
            .partition_point(|&b| b <= index)
            .saturating_sub(1);
        let within = index - self.before[number];
        self.with_block(bytes, number, |block| {
            let start = block.starts[within];
            let end = block
                .starts
                .get(within + 1)
                .copied()
                .unwrap_or(block.last_end);
            (start, end.max(start))
        })
    }

    fn line_of_offset(&self, bytes: &[u8], offset: usize) -> usize {
        if self.count() == 0 {
            return 0;
        }
        let number = (offset / self.block).min(self.blocks().saturating_sub(1));
        let first = self.before.get(number).copied().unwrap_or(0);
        self.with_block(bytes, number, |block| {
            let inside = block.starts.partition_point(|&s| s <= offset);
            (first + inside).saturating_sub(1)
        })
    }
}

/// A source's line index without the bytes, to be joined to them again
/// later without a second pass ([`SourceText::with_index`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LineIndex {
    has_bom: bool,
    offsets: Offsets,
    crlf_lines: usize,
    len: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Offsets {
    Dense(Vec<usize>),
    Sparse { before: Vec<usize>, block: usize },
}

impl LineIndex {
    /// Builds a sparse index of `bytes`: how many lines start before each
    /// [`SPARSE_BLOCK`] bytes, counted with `memchr` on all cores.
    pub(crate) fn sparse(bytes: &[u8]) -> LineIndex {
        sparse_with_block(bytes, SPARSE_BLOCK)
    }

    /// Number of lines.
    #[cfg(test)]
    pub(crate) fn lines(&self) -> usize {
        match &self.offsets {
            Offsets::Dense(starts) => starts.len(),
            Offsets::Sparse { before, .. } => before.last().copied().unwrap_or(0),
        }
    }
}

/// [`LineIndex::sparse`] with a chosen block size (small ones in tests).
fn sparse_with_block(bytes: &[u8], block: usize) -> LineIndex {
    use rayon::prelude::*;
    let block = block.max(1);
    let len = bytes.len();
    let has_bom = bytes.starts_with(BOM);
    let body_start = if has_bom { BOM.len() } else { 0 };
    let blocks = len.div_ceil(block);
    let counts: Vec<(usize, usize)> = (0..blocks)
        .into_par_iter()
        .map(|number| {
            let from = number * block;
            let first = usize::from((from..from + block).contains(&body_start) && body_start < len);
            let lines = memchr_iter(b'\n', &bytes[newline_range(len, block, number)]).count();
            // CRLF pairs whose newline lies in this block.
            let hi = (from + block).min(len);
            let pairs = &bytes[from.saturating_sub(1).max(body_start).min(hi)..hi];
            let crlf = memchr::memmem::find_iter(pairs, b"\r\n").count();
            super::release(&bytes[from..hi]);
            (first + lines, crlf)
        })
        .collect();
    let mut before = Vec::with_capacity(blocks + 1);
    let mut total = 0;
    before.push(0);
    for (lines, _) in &counts {
        total += lines;
        before.push(total);
    }
    LineIndex {
        has_bom,
        offsets: Offsets::Sparse { before, block },
        crlf_lines: counts.iter().map(|c| c.1).sum(),
        len,
    }
}

impl<'a> SourceText<'a> {
    /// Gives up the bytes and keeps the index.
    pub(crate) fn into_index(self) -> LineIndex {
        let offsets = match self.lines {
            Lines::Dense(starts) => Offsets::Dense(starts.into_owned()),
            Lines::Sparse(sparse) => Offsets::Sparse {
                before: sparse.before.into_owned(),
                block: sparse.block,
            },
        };
        LineIndex {
            has_bom: self.has_bom,
            offsets,
            crlf_lines: self.crlf_lines,
            len: self.bytes.len(),
        }
    }

    /// Joins an index made by [`SourceText::into_index`] or
    /// [`LineIndex::sparse`] to the same bytes; indexes them afresh if they
    /// are not the same length.
    pub(crate) fn with_index(bytes: &'a [u8], index: &'a LineIndex) -> Self {
        if index.len != bytes.len() {
            return SourceText::new(bytes);
        }
        let lines = match &index.offsets {
            Offsets::Dense(starts) => Lines::Dense(Cow::Borrowed(starts)),
            Offsets::Sparse { before, block } => Lines::Sparse(SparseLines {
                before: Cow::Borrowed(before),
                block: *block,
                body_start: if index.has_bom { BOM.len() } else { 0 },
                cache: Mutex::new(Vec::new()),
            }),
        };
        SourceText {
            bytes,
            has_bom: index.has_bom,
            lines,
            crlf_lines: index.crlf_lines,
            learnt: Arc::default(),
        }
    }

    /// Indexes the lines of `bytes` (one pass with `memchr`).
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
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
            lines: Lines::Dense(Cow::Owned(starts)),
            crlf_lines,
            learnt: Arc::default(),
        }
    }

    /// What a stage learnt of these bytes so far, kept as a `T` (made
    /// empty on first use); `None` when a value of another type was kept
    /// first. The locator keeps its memo here (`locate::memo`), without
    /// this module knowing its type.
    pub(crate) fn learnt<T: Any + Default + Send + Sync>(&self) -> Option<&T> {
        let kept = self.learnt.get_or_init(|| Box::<T>::default());
        kept.downcast_ref()
    }

    /// Drops what the stages learnt of these bytes ([`SourceText::learnt`])
    /// once none will read them again: its memory goes back.
    pub(crate) fn forget_learnt(&mut self) {
        self.learnt = Arc::default();
    }

    /// The whole buffer, BOM included.
    pub(crate) fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Number of lines.
    pub(crate) fn len(&self) -> usize {
        match &self.lines {
            Lines::Dense(starts) => starts.len(),
            Lines::Sparse(sparse) => sparse.count(),
        }
    }

    /// True when the file has no lines.
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The span of line `index` (0-based).
    pub(crate) fn span(&self, index: usize) -> LineSpan {
        let (start, end) = match &self.lines {
            Lines::Dense(starts) => (
                starts[index],
                starts.get(index + 1).copied().unwrap_or(self.bytes.len()),
            ),
            Lines::Sparse(sparse) => sparse.bounds(self.bytes, index),
        };
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
    pub(crate) fn line_of_offset(&self, offset: usize) -> usize {
        match &self.lines {
            Lines::Dense(starts) => starts.partition_point(|&s| s <= offset).saturating_sub(1),
            Lines::Sparse(sparse) => sparse.line_of_offset(self.bytes, offset),
        }
    }

    /// Content of line `index` (0-based), without terminator.
    pub(crate) fn line(&self, index: usize) -> &'a [u8] {
        let span = self.span(index);
        &self.bytes[span.start..span.content_end]
    }

    /// Content of line `index` as text (lossy only where the file is not UTF-8).
    pub(crate) fn line_text(&self, index: usize) -> Cow<'a, str> {
        String::from_utf8_lossy(self.line(index))
    }

    /// The terminator of line `index`: `\n`, `\r\n` or empty on an unterminated last line.
    pub(crate) fn terminator(&self, index: usize) -> &'a [u8] {
        let span = self.span(index);
        &self.bytes[span.content_end..span.end]
    }

    /// True when the file starts with a UTF-8 byte-order mark.
    pub(crate) fn has_bom(&self) -> bool {
        self.has_bom
    }

    /// True when the file is empty or its last line ends with a newline.
    pub(crate) fn has_final_newline(&self) -> bool {
        self.is_empty() || self.bytes.last() == Some(&b'\n')
    }

    /// The terminator new lines should get: CRLF when most lines use it, else LF.
    pub(crate) fn dominant_eol(&self) -> &'static [u8] {
        let terminated = self.len() - usize::from(!self.has_final_newline());
        if self.crlf_lines > 0 && self.crlf_lines * 2 >= terminated {
            b"\r\n"
        } else {
            b"\n"
        }
    }
}

/// True when `bytes` looks binary: a NUL byte in the first 8000 bytes, as git decides.
pub(crate) fn looks_binary(bytes: &[u8]) -> bool {
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

    fn sparse(bytes: &[u8], block: usize) -> LineIndex {
        sparse_with_block(bytes, block)
    }

    /// Every line, terminator and offset of the sparse source agrees with
    /// the dense one.
    fn assert_same_lines(bytes: &[u8], stride: usize) {
        let dense = SourceText::new(bytes);
        let index = sparse(bytes, stride);
        let sparse = SourceText::with_index(bytes, &index);
        assert!(matches!(sparse.lines, Lines::Sparse(_)));
        assert_eq!(sparse.len(), dense.len());
        assert_eq!(index.lines(), dense.len());
        assert_eq!(sparse.has_bom(), dense.has_bom());
        assert_eq!(sparse.dominant_eol(), dense.dominant_eol());
        assert_eq!(sparse.has_final_newline(), dense.has_final_newline());
        for i in (0..dense.len()).rev().chain(0..dense.len()) {
            assert_eq!(sparse.span(i), dense.span(i), "line {i}");
        }
        for offset in 0..bytes.len() {
            assert_eq!(sparse.line_of_offset(offset), dense.line_of_offset(offset));
        }
    }

    #[test]
    fn sparse_index_agrees_with_the_dense_one() {
        for text in [
            &b""[..],
            b"\n",
            b"a",
            b"\xEF\xBB\xBF",
            b"\xEF\xBB\xBFx\r\ny",
            b"a\r\nb\nc\r\n\r\n\rd",
            b"one\ntwo\nthree\nfour\nfive\nsix\nseven",
        ] {
            for stride in 1..5 {
                assert_same_lines(text, stride);
            }
        }
    }

    #[test]
    fn an_empty_sparse_source_maps_every_offset_to_line_zero() {
        let index = sparse(b"", 4);
        let src = SourceText::with_index(b"", &index);
        assert_eq!((src.len(), src.line_of_offset(0)), (0, 0));
    }

    #[test]
    fn a_stale_sparse_index_gives_lines_in_range() {
        let index = sparse(b"a\nb\nc\nd\n", 2);
        // Same length, other lines: no panic, every span inside the bytes.
        let changed = b"abcdefg\n";
        let src = SourceText::with_index(changed, &index);
        for i in 0..src.len() {
            let span = src.span(i);
            assert!(span.start <= span.content_end && span.end <= changed.len());
        }
    }

    proptest::proptest! {
        #[test]
        fn sparse_and_dense_agree(text in proptest::collection::vec(
            proptest::sample::select(vec![b'a', b'\n', b'\r', b' ']), 0..64), stride in 1usize..6) {
            assert_same_lines(&text, stride);
        }
    }

    #[test]
    fn nul_means_binary() {
        assert!(looks_binary(b"abc\0def"));
        assert!(!looks_binary(b"plain text\n"));
    }
}
