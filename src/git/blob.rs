//! The blob of a file the run wrote, for `--index`: streamed from the file
//! into the object database when no filter converts it, so that staging a
//! large file does not hold it in memory (it was read back whole before),
//! and checked, as it is read, to be exactly what the run wrote.

use super::{GitError, gix_err, to_git};
use crate::journal::Written;
use crate::test_hooks::{Step, fail};
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// What the run wrote at a path, to be staged.
pub(crate) enum WrittenBack {
    /// A symbolic link's target (no filter converts it).
    Link(Vec<u8>),
    /// A regular file, opened while it still had the identity (inode, size,
    /// modification time) the run gave it; its content is checked against
    /// the rest of `written` (size, CRC-32) as it is read.
    File {
        /// The open file.
        file: File,
        /// Where it is.
        path: PathBuf,
        /// What the run wrote there.
        written: Written,
    },
}

/// Reads at most `len` bytes of `file`, checksumming them; the file ending
/// before that is an error (so that no object is written with a size its
/// content does not have).
struct Checked<'a> {
    file: &'a File,
    len: u64,
    read: u64,
    crc: crc32fast::Hasher,
}

impl Read for Checked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = usize::try_from(self.len - self.read).unwrap_or(usize::MAX);
        if left == 0 || buf.is_empty() {
            return Ok(0);
        }
        let want = buf.len().min(left);
        let n = self.file.read(&mut buf[..want])?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the file shrank after the patch wrote it",
            ));
        }
        self.crc.update(&buf[..n]);
        self.read += n as u64;
        Ok(n)
    }
}

/// Writes the blob of `back` (the file at `path`, as the patch names it)
/// into the object database and returns its id. A file that is no longer
/// what the run wrote is [`GitError::ChangedAfterWriting`] (an object of
/// it may have been written: unreferenced, and never one whose size is
/// not its content's).
pub(super) fn write_back(
    repo: &gix::Repository,
    pipeline: &mut gix::filter::Pipeline<'_>,
    index: &gix::index::State,
    path: &str,
    back: WrittenBack,
) -> Result<gix::ObjectId, GitError> {
    use gix::filter::plumbing::pipeline::convert::ToGitOutcome;
    use gix::objs::Write as _;
    let (file, disk, written) = match back {
        WrittenBack::Link(target) => {
            fail(Step::Blob, Path::new(path)).map_err(gix_err(path))?;
            return Ok(repo.write_blob(&target).map_err(gix_err(path))?.detach());
        }
        WrittenBack::File {
            file,
            path: disk,
            written,
        } => (file, disk, written),
    };
    let mut reader = Checked {
        file: &file,
        len: written.len,
        read: 0,
        crc: crc32fast::Hasher::new(),
    };
    let id = {
        let outcome = pipeline
            .convert_to_git(&mut reader, Path::new(path), index)
            .map_err(gix_err(path))?;
        match outcome {
            // No filter: streamed from the file, never held whole.
            ToGitOutcome::Unchanged(reader) if reader.read == 0 => {
                fail(Step::Blob, Path::new(path)).map_err(gix_err(path))?;
                let id = repo
                    .objects
                    .write_stream(gix::objs::Kind::Blob, written.len, reader)
                    .map_err(gix_err(path))?;
                Some(id)
            }
            // Converted in memory (line endings, encoding, `ident`).
            ToGitOutcome::Buffer(bytes) => {
                fail(Step::Blob, Path::new(path)).map_err(gix_err(path))?;
                Some(repo.write_blob(bytes).map_err(gix_err(path))?.detach())
            }
            // A filter process: the file is read again, whole, below.
            _ => None,
        }
    };
    let Some(id) = id else {
        let bytes = written
            .read_back(&disk)
            .map_err(|source| GitError::ReadBack {
                path: path.to_string(),
                source,
            })?
            .ok_or_else(|| GitError::ChangedAfterWriting(path.to_string()))?;
        let blob = to_git(pipeline, index, path, &bytes)?;
        fail(Step::Blob, Path::new(path)).map_err(gix_err(path))?;
        return Ok(repo.write_blob(&blob).map_err(gix_err(path))?.detach());
    };
    // The whole file, nothing more, and the bytes the run wrote.
    let more = (&file)
        .read(&mut [0u8])
        .map_err(|source| GitError::ReadBack {
            path: path.to_string(),
            source,
        })?;
    if reader.read != written.len || more != 0 || reader.crc.finalize() != written.crc32 {
        return Err(GitError::ChangedAfterWriting(path.to_string()));
    }
    Ok(id)
}
