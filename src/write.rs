//! Producing the result: the edited bytes as a stream, and an all-or-nothing
//! replacement of files on disk.
//!
//! Unchanged runs of lines are copied from the source buffer in one slice;
//! only the edits are assembled line by line. Line terminators, a BOM and a
//! missing final newline are kept unless the plan changes them.

use crate::plan::{FilePlan, NewLine};
use crate::source::SourceText;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Writes the edited file to `out`.
pub fn render(source: &SourceText, plan: &FilePlan, out: &mut impl Write) -> io::Result<()> {
    let mut writer = LineWriter {
        out,
        eol: source.dominant_eol(),
        pending: None,
    };
    if source.has_bom() {
        writer.out.write_all(BOM)?;
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

/// Renders into a new buffer.
pub fn render_to_vec(source: &SourceText, plan: &FilePlan) -> Vec<u8> {
    let mut out = Vec::with_capacity(source.bytes().len() + 256);
    // Writing to a Vec cannot fail.
    let _ = render(source, plan, &mut out);
    out
}

/// Writes lines, holding back each line's terminator until the next line (or
/// the end) decides whether it is needed.
struct LineWriter<'w, W: Write> {
    out: &'w mut W,
    eol: &'static [u8],
    /// Terminator owed by the last written line (empty: it had none).
    pending: Option<Vec<u8>>,
}

impl<W: Write> LineWriter<'_, W> {
    fn flush_pending(&mut self) -> io::Result<()> {
        if let Some(term) = self.pending.take() {
            self.out
                .write_all(if term.is_empty() { self.eol } else { &term })?;
        }
        Ok(())
    }

    fn line(&mut self, content: &[u8], terminator: &[u8]) -> io::Result<()> {
        self.flush_pending()?;
        self.out.write_all(content)?;
        self.pending = Some(terminator.to_vec());
        Ok(())
    }

    /// Copies file lines `from..to` verbatim in one write.
    fn copy_lines(&mut self, source: &SourceText, from: usize, to: usize) -> io::Result<()> {
        if from >= to {
            return Ok(());
        }
        self.flush_pending()?;
        let first = source.span(from);
        let last = source.span(to - 1);
        self.out
            .write_all(&source.bytes()[first.start..last.content_end])?;
        self.pending = Some(source.terminator(to - 1).to_vec());
        Ok(())
    }

    fn finish(mut self, final_newline: bool) -> io::Result<()> {
        if final_newline {
            self.flush_pending()?;
        }
        Ok(())
    }
}

/// One file change to commit to disk.
#[derive(Debug, Clone)]
pub enum FileChange {
    /// Write `bytes` to `path` (creating parent directories).
    Write {
        /// Destination.
        path: PathBuf,
        /// New content.
        bytes: Vec<u8>,
    },
    /// Remove `path`.
    Delete {
        /// The file to remove.
        path: PathBuf,
    },
}

/// Commits all changes or none: every new content is first written to a
/// temporary file beside its target; only when all are written are they
/// renamed into place. If a rename or delete fails, the files already
/// replaced are restored from their original bytes.
pub fn commit(changes: &[FileChange]) -> io::Result<()> {
    let mut staged = Vec::new();
    for change in changes {
        if let FileChange::Write { path, bytes } = change {
            let dir = parent_dir(path);
            fs::create_dir_all(dir)?;
            let mut tmp = tempfile::Builder::new()
                .prefix(".fuzzy-apply-")
                .tempfile_in(dir)?;
            tmp.write_all(bytes)?;
            tmp.as_file().sync_all()?;
            if let Ok(meta) = fs::metadata(path) {
                tmp.as_file().set_permissions(meta.permissions())?;
            }
            staged.push((path.clone(), tmp));
        }
    }
    let mut done: Vec<(PathBuf, Option<Vec<u8>>)> = Vec::new();
    let result = (|| -> io::Result<()> {
        for (path, tmp) in staged {
            let original = fs::read(&path).ok();
            tmp.persist(&path).map_err(|e| e.error)?;
            done.push((path, original));
        }
        for change in changes {
            if let FileChange::Delete { path } = change {
                let original = fs::read(path)?;
                fs::remove_file(path)?;
                done.push((path.clone(), Some(original)));
            }
        }
        Ok(())
    })();
    if let Err(err) = result {
        for (path, original) in done.into_iter().rev() {
            let _ = match original {
                Some(bytes) => fs::write(&path, bytes),
                None => fs::remove_file(&path),
            };
        }
        return Err(err);
    }
    Ok(())
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Edit;

    fn plan(edits: Vec<Edit>, final_newline: bool) -> FilePlan {
        FilePlan {
            edits,
            final_newline,
        }
    }

    #[test]
    fn unchanged_plan_reproduces_the_bytes() {
        for bytes in [&b"a\r\nb\nc"[..], b"\xEF\xBB\xBFx\n", b"", b"\n\n"] {
            let src = SourceText::new(bytes);
            let out = render_to_vec(&src, &plan(vec![], src.has_final_newline()));
            assert_eq!(out, bytes);
        }
    }

    #[test]
    fn inserted_lines_take_the_file_line_ending() {
        let src = SourceText::new(b"a\r\nb\r\n");
        let edit = Edit {
            start: 1,
            end: 1,
            lines: vec![NewLine::Insert("new".into())],
            hunk: 0,
        };
        assert_eq!(
            render_to_vec(&src, &plan(vec![edit], true)),
            b"a\r\nnew\r\nb\r\n"
        );
    }

    #[test]
    fn appending_after_an_unterminated_last_line() {
        let src = SourceText::new(b"a\nb");
        let edit = Edit {
            start: 2,
            end: 2,
            lines: vec![NewLine::Insert("c".into())],
            hunk: 0,
        };
        assert_eq!(render_to_vec(&src, &plan(vec![edit], false)), b"a\nb\nc");
    }

    #[test]
    fn commit_writes_every_file() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.txt");
        let b = dir.path().join("sub/b.txt");
        fs::write(&a, "old").unwrap();
        commit(&[
            FileChange::Write {
                path: a.clone(),
                bytes: b"new".to_vec(),
            },
            FileChange::Write {
                path: b.clone(),
                bytes: b"made".to_vec(),
            },
        ])
        .unwrap();
        assert_eq!(fs::read(&a).unwrap(), b"new");
        assert_eq!(fs::read(&b).unwrap(), b"made");
    }

    #[test]
    fn failed_delete_restores_replaced_files() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.txt");
        fs::write(&a, "old").unwrap();
        let err = commit(&[
            FileChange::Write {
                path: a.clone(),
                bytes: b"new".to_vec(),
            },
            FileChange::Delete {
                path: dir.path().join("missing.txt"),
            },
        ]);
        assert!(err.is_err());
        assert_eq!(fs::read(&a).unwrap(), b"old");
    }
}
