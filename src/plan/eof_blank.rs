//! A SEARCH that ends in a blank line the file does not have, at the very
//! end of the file (Cline's applier matches that line with the end of the
//! file, seen in real replies): a block that stands nowhere as written is
//! read again without that line, and that reading is kept only where the
//! block then ends at the file's last line (see `docs/formats.md`).

use crate::locate::{Failure, Located, Pins, Reason, locate_file};
use crate::model::Hunk;
use crate::source::SourceText;
use std::borrow::Cow;

use super::ApplyOptions;

/// Located hunks, in hunk order.
type Results = Vec<Result<Located, Failure>>;

/// The block read without its SEARCH's last line (a blank line after one
/// that is not blank), when the parser marked it so.
fn without_trailing_blank(hunk: &Hunk) -> Option<Hunk> {
    if !hunk.trailing_blank_search {
        return None;
    }
    let side = |old: bool| -> Vec<String> {
        let on = |l: &&crate::model::HunkLine| if old { l.is_old() } else { l.is_new() };
        hunk.lines
            .iter()
            .filter(on)
            .map(|l| l.text.to_string())
            .collect()
    };
    let (old, new) = (side(true), side(false));
    let (last, rest) = old.split_last()?;
    let kept = rest.last()?;
    if !last.trim().is_empty() || kept.trim().is_empty() {
        return None;
    }
    Some(Hunk {
        lines: crate::patch::diff_lines(rest, &new),
        trailing_blank_search: false,
        as_written: None,
        ..hunk.clone()
    })
}

/// True when a block as written stands nowhere.
fn not_found(result: &Result<Located, Failure>) -> bool {
    matches!(result, Err(f) if matches!(f.reason, Reason::ContextNotFound | Reason::StaleRemovedLine))
}

/// Locates again, each read without its SEARCH's trailing blank line, the
/// blocks that stand nowhere as written and may be read so; the new
/// reading is kept when each of them then ends at the file's last line
/// and every hunk placed before stands where it stood. Otherwise the first
/// results are kept (their failures say why). Blocks read as elision
/// pieces are left as they are.
pub(super) fn retry<'h>(
    source: &SourceText,
    found: Cow<'h, [Hunk]>,
    results: Results,
    options: &ApplyOptions,
    pins: &Pins,
) -> (Cow<'h, [Hunk]>, Results) {
    if found.iter().any(|h| h.elision_piece) {
        return (found, results);
    }
    let mut retried = vec![false; found.len()];
    let again: Vec<Hunk> = found
        .iter()
        .zip(&results)
        .zip(retried.iter_mut())
        .map(
            |((h, r), flag)| match without_trailing_blank(h).filter(|_| not_found(r)) {
                Some(b) => {
                    *flag = true;
                    b
                }
                None => h.clone(),
            },
        )
        .collect();
    if !retried.contains(&true) {
        return (found, results);
    }
    let (hunks, second) = locate_file(source, &again, &options.matching, pins);
    let n = source.len();
    let kept = results
        .iter()
        .zip(&second)
        .zip(&retried)
        .all(|((first, now), &r)| match (first, now) {
            (_, Ok(loc)) if r => loc.end == n && loc.end > loc.start,
            (Ok(a), Ok(b)) => (a.start, a.end) == (b.start, b.end),
            (Ok(_), Err(_)) => false,
            (Err(_), _) => !r,
        });
    if !kept {
        return (found, results);
    }
    (Cow::Owned(hunks.into_owned()), second)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{HunkLine, LineKind};

    #[test]
    fn reads_search_without_its_trailing_blank_line() {
        let hunk = Hunk {
            lines: vec![
                HunkLine::new(LineKind::Context, "    return true;"),
                HunkLine::new(LineKind::Add, "}"),
                HunkLine::new(LineKind::Context, ""),
                HunkLine::new(LineKind::Add, "export x;"),
            ],
            trailing_blank_search: true,
            ..Hunk::default()
        };
        let read = without_trailing_blank(&hunk).expect("read");
        let kinds: Vec<(LineKind, &str)> = read
            .lines
            .iter()
            .map(|l| (l.kind, l.text.as_str()))
            .collect();
        assert_eq!(
            kinds,
            [
                (LineKind::Context, "    return true;"),
                (LineKind::Add, "}"),
                (LineKind::Add, ""),
                (LineKind::Add, "export x;"),
            ]
        );
        let unmarked = Hunk {
            trailing_blank_search: false,
            ..hunk
        };
        assert!(without_trailing_blank(&unmarked).is_none());
    }
}
