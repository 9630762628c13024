//! Placement proven by the file's identity. A `git diff` names the blob its
//! old side was made from (`index 83db48f..bf269f4`); when the file is that
//! blob, the diff's line numbers are facts, not hints: each hunk stands at
//! its header's line, as `git apply` places it, and no other reading is
//! admitted (no ambiguity between look-alikes near the number, no "already
//! applied" for an added line equal to its neighbour).
//!
//! The identity is checked only when it would change the outcome: when
//! every hunk stands exactly at its numbers and the tier ladder placed them
//! elsewhere, refused them or skipped them. Hashing reads the whole file, so
//! a patch the ladder already places at its numbers never pays for it.

use super::outcome::{Failure, HunkStatus, Located};
use super::search::Slot;
use super::{MatchOptions, Tier, locate_file, normalize::LineMatch};
use crate::model::{BlobIds, Hunk, LineKind};
use crate::source::SourceText;
use std::borrow::Cow;

/// [`locate_file`], unless the patch's blob ids name this very file: as
/// the old side, with every hunk at its header's numbers, the hunks go
/// exactly there; as the new side, with every hunk's new side at its
/// new-side numbers, every hunk is already applied.
pub(crate) fn locate_known_file<'h>(
    source: &SourceText,
    hunks: &'h [Hunk],
    options: &MatchOptions,
    pins: &super::Pins,
    ids: Option<&BlobIds>,
) -> (Cow<'h, [Hunk]>, Vec<Result<Located, Failure>>) {
    let laddered = locate_file(source, hunks, options, pins);
    let Some(ids) = ids.filter(|_| pins.is_empty()) else {
        return laddered;
    };
    if let Some(exact) = at_header_lines(source, hunks)
        && !same_places(&laddered.1, &exact)
        && is_blob(source.bytes(), &ids.old)
    {
        return (Cow::Borrowed(hunks), exact.into_iter().map(Ok).collect());
    }
    if let Some(done) = done_at_new_lines(source, hunks)
        && !all_done(&laddered.1)
        && ids.new != ids.old
        && is_blob(source.bytes(), &ids.new)
    {
        return (Cow::Borrowed(hunks), done.into_iter().map(Ok).collect());
    }
    laddered
}

/// True when the ladder found every hunk already applied or a no-op.
fn all_done(laddered: &[Result<Located, Failure>]) -> bool {
    laddered.iter().all(|l| {
        l.as_ref()
            .is_ok_and(|l| matches!(l.status, HunkStatus::AlreadyApplied | HunkStatus::NoOp))
    })
}

/// The dual of [`at_header_lines`] for a file that is the diff's *result*
/// (its blob id is the `index` line's second id, as after `git apply`):
/// each hunk's new side stands byte for byte at its new-side place, the
/// old start moved by what the hunks before it added and removed (as
/// `git diff` numbers `+c,d`), with the final-newline state the patch
/// gives. Every hunk is then already applied: the ladder, which reads a
/// wordless new side (`};`) as no evidence, would otherwise edit a
/// neighbour that still looks like the old side. `None` when any of that
/// fails.
fn done_at_new_lines(source: &SourceText, hunks: &[Hunk]) -> Option<Vec<Located>> {
    let n = source.len();
    let mut delta = 0isize;
    let mut prev_end = 0;
    let mut out = Vec::with_capacity(hunks.len());
    for (i, hunk) in hunks.iter().enumerate() {
        if hunk.as_written.is_some() {
            return None;
        }
        let (old_len, new_len) = (hunk.old_len(), hunk.new_lines().count());
        let hint = hunk.line_hint?;
        let old_start = if old_len == 0 {
            hint
        } else {
            hint.checked_sub(1)?
        };
        let start = old_start.checked_add_signed(delta)?;
        let end = start.checked_add(new_len)?;
        if start < prev_end || end > n {
            return None;
        }
        for (k, line) in hunk.new_lines().enumerate() {
            if source.line(start + k) != line.text.as_bytes() {
                return None;
            }
        }
        let unterminated_end = end == n && !source.has_final_newline();
        if new_len > 0 && end == n && hunk.new_missing_newline != unterminated_end {
            return None;
        }
        let changes = hunk.lines.iter().any(|l| l.kind != LineKind::Context);
        let status = if changes {
            HunkStatus::AlreadyApplied
        } else {
            HunkStatus::NoOp
        };
        out.push(super::fixed(i, start, end, status));
        delta += new_len as isize - old_len as isize;
        prev_end = end;
    }
    Some(out)
}

/// True when the ladder applied every hunk where the numbers put it.
fn same_places(laddered: &[Result<Located, Failure>], exact: &[Located]) -> bool {
    laddered.len() == exact.len()
        && laddered.iter().zip(exact).all(|(l, e)| {
            l.as_ref().is_ok_and(|l| {
                l.status == e.status && (l.start, l.end) == (e.start, e.end) && l.slots == e.slots
            })
        })
}

/// Each hunk at its header's line: the old start for a hunk with old lines
/// (`@@ -a,b` covers lines `a..a+b`), the line after which to insert for a
/// pure addition (`@@ -a,0` inserts after line `a`), every old line equal
/// byte for byte to the file's line there (line ends aside), hunks in order
/// without overlap, and a missing final newline where the patch says so.
/// `None` when any of that fails.
pub(crate) fn at_header_lines(source: &SourceText, hunks: &[Hunk]) -> Option<Vec<Located>> {
    let n = source.len();
    let mut prev_end = 0;
    let mut out = Vec::with_capacity(hunks.len());
    for (i, hunk) in hunks.iter().enumerate() {
        if hunk.as_written.is_some() {
            return None;
        }
        let old_len = hunk.old_len();
        let hint = hunk.line_hint?;
        let start = if old_len == 0 {
            hint
        } else {
            hint.checked_sub(1)?
        };
        let end = start.checked_add(old_len)?;
        if start < prev_end || end > n {
            return None;
        }
        let mut slots = Vec::with_capacity(old_len);
        for (k, line) in hunk.old_lines().enumerate() {
            let at = start + k;
            if source.line(at) != line.text.as_bytes() {
                return None;
            }
            slots.push(Slot::Line(at, LineMatch::Exact));
        }
        let unterminated_end = end == n && !source.has_final_newline();
        if old_len > 0 && end == n && hunk.old_missing_newline != unterminated_end {
            return None;
        }
        if hunk.old_missing_newline && end != n {
            // The old side claims to end the file: it does not there.
            return None;
        }
        let changes = hunk.lines.iter().any(|l| l.kind != LineKind::Context);
        out.push(Located {
            hunk: i,
            start,
            end,
            slots,
            tier: Some(Tier::Exact),
            normalizations: Vec::new(),
            similarity: 1.0,
            status: if changes {
                HunkStatus::Applied
            } else {
                HunkStatus::NoOp
            },
        });
        prev_end = end;
    }
    Some(out)
}

/// True when the git blob id of `bytes` starts with `id` (lowercase hex,
/// at least 7 digits, as [`crate::model::BlobIds`] holds it).
pub(crate) fn is_blob(bytes: &[u8], id: &str) -> bool {
    gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::objs::Kind::Blob, bytes)
        .is_ok_and(|oid| oid.to_hex().to_string().starts_with(id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patch::{ParseOptions, parse_patch};

    fn hunks(patch: &str) -> Vec<Hunk> {
        parse_patch(patch.as_bytes(), &ParseOptions::default())
            .expect("parses")
            .files
            .remove(0)
            .hunks
    }

    #[test]
    fn blob_ids_are_gits() {
        // `printf 'a\n' | git hash-object --stdin`
        assert!(is_blob(b"a\n", "78981922613b2afb6025042ff6bd878ac1994e85"));
        assert!(is_blob(b"a\n", "7898192"));
        assert!(!is_blob(b"b\n", "7898192"));
    }

    #[test]
    fn hunks_stand_at_their_numbers() {
        let file = b"}\n}\nx\n}\n";
        let source = SourceText::new(file);
        // -U0: insert after line 1, and replace line 4.
        let placed = at_header_lines(
            &source,
            &hunks("--- a/f\n+++ b/f\n@@ -1,0 +2 @@\n+}\n@@ -4 +5 @@\n-}\n+y\n"),
        )
        .expect("placed");
        assert_eq!(
            placed.iter().map(|l| (l.start, l.end)).collect::<Vec<_>>(),
            [(1, 1), (3, 4)]
        );
        // Not there: none.
        assert!(
            at_header_lines(&source, &hunks("--- a/f\n+++ b/f\n@@ -3 +3 @@\n-}\n+y\n")).is_none()
        );
        // Out of order or overlapping: none.
        assert!(
            at_header_lines(
                &source,
                &hunks("--- a/f\n+++ b/f\n@@ -4 +4 @@\n-}\n+y\n@@ -1 +1 @@\n-}\n+z\n")
            )
            .is_none()
        );
    }
}
