//! A Roo block whose first SEARCH line kept the `| ` of the `N | ` gutter
//! of Roo's `read_file` view once the model dropped the number (Roo-Code's
//! own applier strips such a `| ` in its last, "aggressive" pass). The
//! file decides: a file that holds that line (trimmed) has it as text (a
//! Markdown table row, a shell pipeline, a Haskell guard), and the block
//! is read as written; in a file without it the line can only be residue,
//! and the block is read without the `| ` (see `docs/formats.md`).

use crate::model::{FilePatch, Hunk, HunkLine};
use crate::outcome::{Problem, ProblemCode};
use crate::patch::{diff_lines, strip_gutter_residue};
use crate::source::SourceText;
use std::borrow::Cow;

/// The hunks with each block the parser marked read as the file says:
/// without its gutter residue where the file holds no line like its first
/// SEARCH line as written, as written otherwise. Borrowed when no block is
/// marked.
pub(super) fn read<'h>(source: &SourceText, hunks: &'h [Hunk]) -> Cow<'h, [Hunk]> {
    let marked =
        |h: &Hunk| h.gutter_residue || h.unescaped.as_deref().is_some_and(|d| d.gutter_residue);
    if !hunks.iter().any(marked) {
        return Cow::Borrowed(hunks);
    }
    let mut out = hunks.to_vec();
    for hunk in &mut out {
        let Ok(()) = hunk.each_reading(|reading| {
            if let Some(first) = residue_line(reading)
                && !holds(source, &first)
                && let Some(stripped) = without_residue(reading)
            {
                *reading = stripped;
            }
            Ok::<(), std::convert::Infallible>(())
        });
    }
    Cow::Owned(out)
}

/// The first old line of a marked block (its first SEARCH line, with the
/// residue).
fn residue_line(hunk: &Hunk) -> Option<String> {
    if !hunk.gutter_residue {
        return None;
    }
    hunk.old_lines().next().map(|l| l.text.to_string())
}

/// True when a line of the file is `line`, both trimmed.
fn holds(source: &SourceText, line: &str) -> bool {
    let line = line.trim();
    (0..source.len()).any(|j| source.line_text(j).trim() == line)
}

/// The block read without the `| ` its first SEARCH line kept (and
/// without it on a REPLACE line that copies that line unchanged).
fn without_residue(hunk: &Hunk) -> Option<Hunk> {
    let side = |on: fn(&HunkLine) -> bool| -> Vec<String> {
        let lines = hunk.lines.iter().filter(|l| on(l));
        lines.map(|l| l.text.to_string()).collect()
    };
    let (search, replace) = strip_gutter_residue(&side(HunkLine::is_old), &side(HunkLine::is_new))?;
    Some(Hunk {
        lines: diff_lines(&search, &replace),
        gutter_residue: false,
        ..hunk.clone()
    })
}

/// `-R` of a marked block whose first SEARCH line REPLACE does not keep:
/// reversed, that line is written back, with its `| ` (the forward run
/// found it in the file) or without (it was residue), and the file after
/// the forward run no longer tells which. Refused, naming the hunk.
pub(super) fn unreversible(file: &FilePatch) -> Option<Problem> {
    let (index, hunk, first) = file.hunks.iter().enumerate().find_map(|(k, h)| {
        let first = residue_line(h)?;
        let kept = h.new_lines().any(|l| *l.text == *first);
        (!kept).then_some((k, h, first))
    })?;
    Some(Problem::new(
        ProblemCode::MalformedPatch,
        format!(
            "{}: hunk {} (patch line {}) cannot be reversed: its first SEARCH line `{}` begins with `|`, the file's own text or what is left of a `N | ` line-number prefix, and reversed it would be written back one way or the other with nothing to say which",
            file.path,
            index + 1,
            hunk.patch_line,
            first.trim()
        ),
        Some(hunk.patch_line),
    ))
}
