//! Staging one file: its new content written into a fresh file beside it
//! (with its checksum and identity for the journal), under a name no other
//! file has.

use super::{parent_dir, writeback};
use crate::journal::Written;
use crate::plan::NewContent;
use crate::plan::render::{self, Bulk};
use crate::source::Content;
use crate::source::SourceText;
use crate::test_hooks::{self, Step};
use std::collections::HashSet;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A free name beside `path` for a staged file or a backup.
///
/// The name holds the process id, the time the process first asked and a
/// counter, so it is unique without asking the file system; should it exist
/// all the same, creating it fails (`create_new`, `link`) and the commit is
/// undone, never a file overwritten.
pub(super) fn free_name(path: &Path, what: &str) -> PathBuf {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicUsize, Ordering};
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    static RUN: OnceLock<String> = OnceLock::new();
    let run = RUN.get_or_init(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        format!("{}-{nanos:x}", std::process::id())
    });
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    parent_dir(path).join(format!(".fuzzy-apply-{what}-{run}-{n}"))
}

/// Adds the missing ancestors of `dir` to `created`, outermost first.
/// `known` holds the directories already looked at (existing or to be
/// created), so that each is probed once however many files it gets.
pub(super) fn missing_dirs(dir: &Path, created: &mut Vec<PathBuf>, known: &mut HashSet<PathBuf>) {
    let mut missing: Vec<PathBuf> = Vec::new();
    for d in dir.ancestors() {
        if d.as_os_str().is_empty() || !known.insert(d.to_path_buf()) || d.exists() {
            break;
        }
        missing.push(d.to_path_buf());
    }
    missing.reverse();
    created.extend(missing);
}

/// Writes `new` (rendered over `old` when it is edits) for `path` into the
/// new file `staged` (beside it), with
/// `mode` or else the permissions of `path`; returns what the staged file
/// is (its identity and checksum), which its rename into place keeps.
pub(super) fn stage(
    path: &Path,
    staged: &Path,
    old: &Content,
    new: &NewContent,
    mode: Option<u32>,
) -> io::Result<Written> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    // The target's own bits are asked for only when no mode is known (a
    // `stat` a file saved).
    let bits = match mode {
        Some(bits) => bits & 0o7777,
        None => fs::metadata(path).map_or(0o644, |m| m.permissions().mode() & 0o7777),
    };
    // Created with its final bits (less the umask), so that a private
    // file's new content is never readable by others, even for a moment.
    test_hooks::fail(Step::StageCreate, staged)?;
    let file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(bits & 0o777)
        .open(staged)?;
    // Like git for working-tree files, no fsync: the rename is atomic for
    // other processes and survives a crash of this one; the page cache holds.
    let mut crc = crc32fast::Hasher::new();
    match new {
        NewContent::Bytes(bytes) => {
            crc.update(bytes);
            test_hooks::fail(Step::StageWrite, staged)?;
            (&file).write_all(bytes)?;
        }
        NewContent::Lines {
            lines,
            final_newline,
        } => {
            let mut out = CrcWriter {
                out: io::BufWriter::with_capacity(1 << 16, &file),
                crc: &mut crc,
            };
            test_hooks::fail(Step::StageWrite, staged)?;
            crate::plan::write_lines(lines, *final_newline, &mut out)?;
            out.flush()?;
        }
        NewContent::Edited(plan, index) => {
            let source = SourceText::with_index(old, index);
            let mut out = io::BufWriter::with_capacity(1 << 20, &file);
            match old.mapped_path() {
                Some((from, _)) => {
                    test_hooks::fail(Step::StageWrite, staged)?;
                    let from = fs::File::open(from)?;
                    writeback::overlapped(&file, |chunk_copied| {
                        let bulk = Bulk {
                            from: &from,
                            chunk_copied,
                        };
                        render::render_hashed(&source, plan, &mut out, Some(bulk), Some(&mut crc))
                    })?;
                }
                None => {
                    test_hooks::fail(Step::StageWrite, staged)?;
                    render::render_hashed(&source, plan, &mut out, None, Some(&mut crc))?;
                }
            }
            out.flush()?;
        }
    }
    // The umask, or a default ACL of the directory, may have cleared some
    // of them, and the special bits (setuid, setgid, sticky) are not given
    // at creation: set them all.
    test_hooks::fail(Step::StageMode, staged)?;
    file.set_permissions(fs::Permissions::from_mode(bits))?;
    Written::of_file(&file, crc.finalize())
}

/// Makes the symbolic link `staged` pointing to the target `new` holds
/// (bytes: a link's target is never rendered from edits); returns what it
/// is, which its rename into place keeps.
pub(super) fn stage_link(staged: &Path, new: &NewContent) -> io::Result<Written> {
    use std::os::unix::ffi::OsStrExt;
    let NewContent::Bytes(target) = new else {
        return Err(io::Error::other(
            "a symbolic link's target must be planned as bytes",
        ));
    };
    test_hooks::fail(Step::StageCreate, staged)?;
    std::os::unix::fs::symlink(std::ffi::OsStr::from_bytes(target), staged)?;
    Written::of_link(staged, crc32fast::hash(target))
}

/// A writer that feeds what it writes to a checksum.
struct CrcWriter<'a, W: Write> {
    out: W,
    crc: &'a mut crc32fast::Hasher,
}

impl<W: Write> Write for CrcWriter<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.out.write(buf)?;
        self.crc.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The permission bits of the file at `path` with its executable bits set
/// or cleared as git `mode` (`0o100755`/`0o100644`) says.
pub(super) fn exec_bits(path: &Path, mode: Option<u32>) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    let mode = mode?;
    let bits = fs::metadata(path).ok()?.permissions().mode() & 0o777;
    Some(if mode & 0o111 != 0 {
        bits | ((bits & 0o444) >> 2)
    } else {
        bits & !0o111
    })
}
