//! SEARCH/REPLACE blocks whose markers were written XML-escaped in a Roo
//! or Cline tool call (`&lt;&lt;&lt;&lt;&lt;&lt;&lt; SEARCH`,
//! `src/patch/xml_escape.rs`): each such block has two readings, its text
//! as written and its text with `&lt;`, `&gt;`, `&amp;` … decoded. A file
//! may really hold `&lt;` (HTML, XML), so the file decides, all of its
//! blocks read one way: the reading that places is taken; where both
//! place, they must give the same bytes, or the blocks are refused as
//! `ambiguous` (see `docs/formats.md`).

use crate::locate::{Failure, HunkStatus, Located, Pins, Reason};
use crate::model::{BlobIds, FilePatch, Hunk, LineKind};
use crate::outcome::{Problem, ProblemCode};
use crate::patch::xml_escape::references_in;
use crate::source::SourceText;
use std::borrow::Cow;

use super::edits::plan_file;
use super::render::render_to_vec;
use super::{ApplyOptions, elision};

/// Located hunks, in hunk order.
type Results = Vec<Result<Located, Failure>>;

/// A file's hunks located.
pub(super) struct Read<'h> {
    /// The hunks as read: the patch's own, or one reading of its
    /// XML-escaped blocks (none of them then carries the other).
    pub(super) base: Cow<'h, [Hunk]>,
    /// The hunks located (a block read as its elision pieces is them).
    pub(super) found: Cow<'h, [Hunk]>,
    /// Where each of `found` goes, or why it does not.
    pub(super) results: Results,
}

/// One reading of the hunks: with their decoded text (`decoded`) or as
/// written; either way without the other reading.
fn reading(hunks: &[Hunk], decoded: bool) -> Vec<Hunk> {
    let one = |h: &Hunk| Hunk {
        unescaped: None,
        ..h.read_as(decoded).clone()
    };
    hunks.iter().map(one).collect()
}

/// Locates the hunks (`elision::locate`), deciding first between the two
/// readings of the file's XML-escaped blocks when it has any.
pub(super) fn locate<'h>(
    source: &SourceText,
    hunks: &'h [Hunk],
    options: &ApplyOptions,
    pins: &Pins,
    pre_image: Option<&BlobIds>,
) -> Read<'h> {
    let run = |hunks: &[Hunk]| {
        let (found, results) = elision::locate(source, hunks, options, pins, pre_image);
        (found.into_owned(), results)
    };
    if hunks.iter().all(|h| h.unescaped.is_none()) {
        let (found, results) = elision::locate(source, hunks, options, pins, pre_image);
        return Read {
            base: Cow::Borrowed(hunks),
            found,
            results,
        };
    }
    let (written, decoded) = (reading(hunks, false), reading(hunks, true));
    let (w_found, w_results) = run(&written);
    let (d_found, mut d_results) = run(&decoded);
    let held = references_held(source, hunks);
    let w_placed = held && w_results.iter().all(Result::is_ok);
    let d_placed = d_results.iter().all(Result::is_ok);
    let take = |base: Vec<Hunk>, found: Vec<Hunk>, results: Results| Read {
        base: Cow::Owned(base),
        found: Cow::Owned(found),
        results,
    };
    if w_placed && !d_placed {
        return take(written, w_found, w_results);
    }
    if w_placed
        && result_bytes(source, &w_found, &w_results) != result_bytes(source, &d_found, &d_results)
    {
        refuse_both((&w_found, &w_results), &d_found, &mut d_results);
    } else if !d_placed {
        note_neither(held, &w_found, &d_found, &mut d_results);
    }
    take(decoded, d_found, d_results)
}

/// True when every character reference standing in an old line of the
/// escaped blocks as written (`&lt;`, `&amp;` …) stands somewhere in the
/// file: read as written, those lines quote the file, which then holds
/// them. A file without them can be matched as written only by tolerating
/// the very difference in question, so that reading is out.
fn references_held(source: &SourceText, hunks: &[Hunk]) -> bool {
    let mut wanted: Vec<&str> = hunks
        .iter()
        .filter(|h| h.unescaped.is_some())
        .flat_map(|h| h.lines.iter().filter(|l| l.kind != LineKind::Add))
        .flat_map(|l| references_in(&l.text))
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    wanted
        .iter()
        .all(|r| (0..source.len()).any(|j| source.line_text(j).contains(r)))
}

/// The file's bytes once `found` are applied where `results` place them
/// (all of them placed).
fn result_bytes(source: &SourceText, found: &[Hunk], results: &Results) -> Vec<u8> {
    let mut located: Vec<Located> = results.iter().filter_map(|r| r.clone().ok()).collect();
    render_to_vec(source, &plan_file(source, found, &mut located))
}

/// True when hunk `k` of two readings differs: in its lines, or in where
/// it goes and what it does there (two hunks that write nothing agree).
fn differs(k: usize, written: (&[Hunk], &Results), decoded: (&[Hunk], &Results)) -> bool {
    let (Some(w), Some(d)) = (written.0.get(k), decoded.0.get(k)) else {
        return true;
    };
    let place = |r: Option<&Result<Located, Failure>>| match r {
        Some(Ok(l)) if l.status == HunkStatus::Applied => Some((l.start, l.end)),
        _ => None,
    };
    w.lines != d.lines || place(written.1.get(k)) != place(decoded.1.get(k))
}

/// The character references a hunk's lines hold, quoted, for messages.
fn references_of(hunk: Option<&Hunk>) -> String {
    let mut refs: Vec<&str> = hunk
        .into_iter()
        .flat_map(|h| &h.lines)
        .flat_map(|l| references_in(&l.text))
        .collect();
    refs.sort_unstable();
    refs.dedup();
    let quoted: Vec<String> = refs.iter().map(|r| format!("`{r}`")).collect();
    quoted.join(", ")
}

/// The 1-based first line of a placed hunk, for messages.
fn first_line(result: Option<&Result<Located, Failure>>) -> String {
    match result {
        Some(Ok(l)) => (l.start + 1).to_string(),
        _ => "?".to_string(),
    }
}

/// Both readings place and give different files: every hunk of the
/// decoded reading that differs from the written one is refused as
/// `ambiguous`, naming both places (all of them when the readings were
/// cut into different pieces).
fn refuse_both(written: (&[Hunk], &Results), found: &[Hunk], results: &mut Results) {
    let same_cut = written.0.len() == found.len();
    let mut refused: Vec<usize> = (0..results.len())
        .filter(|&k| !same_cut || differs(k, written, (found, &*results)))
        .collect();
    if refused.is_empty() {
        // Different files from alike hunks cannot be: refuse them all.
        refused = (0..results.len()).collect();
    }
    for k in refused {
        let (w_line, d_line) = (first_line(written.1.get(k)), first_line(results.get(k)));
        let refs = references_of(written.0.get(k));
        results[k] = Err(Failure {
            hunk: k,
            reason: Reason::Ambiguous,
            message: format!(
                "the block's markers are XML-escaped (`&lt;&lt;&lt;&lt;&lt;&lt;&lt; SEARCH`), and it places both with its text as written ({refs} kept as text, at line {w_line}) and with that text decoded (at line {d_line}), with different results: whether its text is escaped cannot be told; write the block with plain markers (`<<<<<<< SEARCH`) and the file's text as it is"
            ),
            candidates: Vec::new(),
            tie: None,
            near: None,
        });
    }
}

/// Neither reading places: the failures of the decoded reading, reported,
/// say that the block was read decoded and why the text as written was
/// not taken either (`held`: the file holds its references).
fn note_neither(held: bool, written: &[Hunk], found: &[Hunk], results: &mut Results) {
    let same_cut = written.len() == found.len();
    for (k, result) in results.iter_mut().enumerate() {
        let Err(failure) = result else { continue };
        let escaped =
            !same_cut || written.get(k).map(|w| &w.lines) != found.get(k).map(|d| &d.lines);
        if !escaped {
            continue;
        }
        let why = if held {
            "as written it does not place either"
        } else {
            "as written, its character references stand nowhere in the file"
        };
        failure.message.push_str(&format!(
            " (the block's markers are XML-escaped, so its text was read with `&lt;`, `&gt;`, `&amp;`, `&quot;`, `&#39;` decoded; {why})"
        ));
    }
}

/// A missing file that XML-escaped blocks would create (a blank SEARCH)
/// with character references in their text: no file decides whether
/// `&lt;` is text to write or escaping, so the creation is refused
/// (`malformed_patch`, naming the first such block).
pub(super) fn undecided_creation(file: &FilePatch) -> Option<Problem> {
    let (index, hunk) = file
        .hunks
        .iter()
        .enumerate()
        .find(|(_, h)| h.unescaped.is_some())?;
    let refs = references_of(Some(hunk));
    Some(Problem::new(
        ProblemCode::MalformedPatch,
        format!(
            "{}: hunk {} (patch line {}): no such file, and the block that would create it has XML-escaped markers (`&lt;&lt;&lt;&lt;&lt;&lt;&lt; SEARCH`) and {refs} in its text: whether that is the file's text or escaping cannot be told without a file to compare; write the block with plain markers (`<<<<<<< SEARCH`) and the text as it is",
            file.path,
            index + 1,
            hunk.patch_line
        ),
        Some(hunk.patch_line),
    ))
}
