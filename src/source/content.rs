//! A target's bytes: read into memory when small, memory-mapped when large,
//! so that a 1 GiB file is never copied into the heap; each with the
//! [`Stamp`] it had when read.

use super::stamp::Stamp;
use super::text::{LineIndex, SourceText};
use std::fs::File;
use std::io;
use std::ops::Deref;
use std::path::{Path, PathBuf};

/// Files at least this large are memory-mapped instead of read.
const MAP_THRESHOLD: u64 = 4 * 1024 * 1024;

/// The bytes of a target file.
pub(crate) enum Content {
    /// Read into memory.
    Owned(Vec<u8>),
    /// Read into memory from a file that had `stamp`. Unless it changed
    /// `recent`ly before it was read, the stamp alone tells whether it
    /// changed since; a recent one is compared by its bytes.
    Read {
        /// The bytes.
        bytes: Vec<u8>,
        /// The file's stamp when it was read.
        stamp: Stamp,
        /// Changed so shortly before it was read that a change within the
        /// same clock tick could leave the stamp as it is.
        recent: bool,
    },
    /// Memory-mapped from `path`, which had `stamp` when it was mapped,
    /// with a sparse line index (a few KiB per GiB). Judged by its stamp
    /// even when it changed just before (a mapping cannot be compared with
    /// itself): a rewrite in place to the same size within the clock tick
    /// of the stamp (milliseconds) would go unseen.
    Mapped {
        /// Keeps a read of a page the file lost since (another process
        /// truncated it) from ending the process; dropped before `map`.
        _guard: crate::sigbus::Guard,
        /// The mapping.
        map: memmap2::Mmap,
        /// The mapped file's sparse line index.
        index: LineIndex,
        /// Size and modification time at mapping time.
        stamp: Stamp,
        /// The mapped file.
        path: PathBuf,
    },
}

impl Content {
    /// Reads `path`, mapping it when it is large.
    #[cfg(test)]
    pub(crate) fn load(path: &Path) -> io::Result<Content> {
        let file = File::open(path)?;
        let meta = file.metadata()?;
        Content::load_opened(path, file, &meta)
    }

    /// [`Content::load`] for a file whose metadata was just asked (saves a
    /// `stat`). Safe against a change in between: the stamp taken from
    /// `meta` no longer matches such a file, so it is not overwritten.
    pub(crate) fn load_stated(path: &Path, meta: &std::fs::Metadata) -> io::Result<Content> {
        Content::load_opened(path, File::open(path)?, meta)
    }

    fn load_opened(path: &Path, file: File, meta: &std::fs::Metadata) -> io::Result<Content> {
        if meta.len() < MAP_THRESHOLD {
            let mut bytes = Vec::with_capacity(meta.len() as usize);
            // `take` keeps `read_to_end` from asking the size again (two
            // more system calls a file); a file that grew is read on.
            io::Read::read_to_end(&mut io::Read::take(&file, meta.len() + 1), &mut bytes)?;
            if bytes.len() as u64 > meta.len() {
                io::Read::read_to_end(&mut &file, &mut bytes)?;
                return Ok(Content::Owned(bytes));
            }
            let stamp = Stamp::from_metadata(meta);
            let recent = stamp.is_racy(std::time::SystemTime::now());
            return Ok(Content::Read {
                bytes,
                stamp,
                recent,
            });
        }
        // SAFETY: the map is read-only. Another process may change the file
        // while it is mapped; the stamp taken here is checked before anything
        // is written, and the file is never replaced in place.
        let map = unsafe { memmap2::Mmap::map(&file)? };
        let guard = crate::sigbus::Guard::register(&map, path);
        crate::test_hooks::checkpoint("mapped");
        let index = LineIndex::sparse(&map);
        Ok(Content::Mapped {
            _guard: guard,
            map,
            index,
            stamp: Stamp::from_metadata(meta),
            path: path.to_path_buf(),
        })
    }

    /// The bytes as lines, with the index made when a large file was mapped.
    pub(crate) fn source(&self) -> SourceText<'_> {
        match self {
            Content::Mapped { map, index, .. } => SourceText::with_index(map, index),
            _ => SourceText::new(self),
        }
    }

    /// The file a mapping came from (`None` for owned bytes).
    pub(crate) fn mapped_path(&self) -> Option<(&Path, Stamp)> {
        match self {
            Content::Owned(_) | Content::Read { .. } => None,
            Content::Mapped { path, stamp, .. } => Some((path, *stamp)),
        }
    }

    /// The stamp that tells whether the file changed since it was read,
    /// when one can (a file changed just before it was read cannot be
    /// judged by its stamp: its bytes are compared instead).
    pub(crate) fn stamp(&self) -> Option<Stamp> {
        match self {
            Content::Owned(_) | Content::Read { recent: true, .. } => None,
            Content::Read { stamp, .. } | Content::Mapped { stamp, .. } => Some(*stamp),
        }
    }

    /// The file's permission bits when it was read, when they still hold
    /// at writing time: the stamp checked before writing covers them (a
    /// `chmod` changes the status-change time). `None` for bytes that did
    /// not come from a file, and for a file changed just before it was read,
    /// whose stamp is not checked: its bits are asked again when written.
    pub(crate) fn permissions(&self) -> Option<u32> {
        self.stamp().map(|stamp| stamp.permissions)
    }
}

/// The first `limit + 1` bytes of the file at `path` (enough to tell whether
/// it still holds exactly `limit` known bytes), without asking its size.
pub(crate) fn read_capped(path: &Path, limit: usize) -> io::Result<Vec<u8>> {
    let file = File::open(path)?;
    let mut bytes = Vec::with_capacity(limit + 1);
    io::Read::read_to_end(&mut io::Read::take(&file, limit as u64 + 1), &mut bytes)?;
    Ok(bytes)
}

impl Deref for Content {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Content::Owned(bytes) | Content::Read { bytes, .. } => bytes,
            Content::Mapped { map, .. } => map,
        }
    }
}

impl From<Vec<u8>> for Content {
    fn from(bytes: Vec<u8>) -> Self {
        Content::Owned(bytes)
    }
}

impl std::fmt::Debug for Content {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Content::Owned(b) => write!(f, "Owned({} bytes)", b.len()),
            Content::Read { bytes, .. } => write!(f, "Read({} bytes)", bytes.len()),
            Content::Mapped { map, path, .. } => {
                write!(f, "Mapped({} bytes of {})", map.len(), path.display())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_files_are_read_and_large_ones_mapped() {
        let dir = tempfile::tempdir().unwrap();
        let small = dir.path().join("s");
        let large = dir.path().join("l");
        std::fs::write(&small, b"abc\n").unwrap();
        std::fs::write(&large, vec![b'x'; MAP_THRESHOLD as usize]).unwrap();
        // Written just now: judged by its bytes, its permission bits asked
        // again when it is written.
        let small = Content::load(&small).unwrap();
        assert!(matches!(small, Content::Read { recent: true, .. }));
        assert_eq!(small.stamp(), None);
        assert_eq!(small.permissions(), None);
        let mapped = Content::load(&large).unwrap();
        assert!(mapped.mapped_path().is_some());
        assert_eq!(mapped.len(), MAP_THRESHOLD as usize);
    }
}
