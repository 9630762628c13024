//! The report of each hunk of a file: where it was placed and how, or why
//! it was not (candidates, the closest block, the lines it expected, all
//! quoted and capped), and where its result lies in the patched file. The
//! file's planning (`file.rs`) decides; this module only writes it down.

use crate::locate::{Failure, HunkStatus, Located, NearMatch, Reason};
use crate::model::{Hunk, LineKind};
use crate::outcome::{
    CandidateView, FileReport, HunkFailure, HunkOutcome, HunkReport, LineRange, quote,
};
use crate::plan::edits::FilePlan;
use crate::source::SourceText;
use std::borrow::Cow;

/// Reports every hunk: placed (its place and tier) or failed (why, with
/// the candidates, those `settles` says `--at` places it at, and the
/// closest block of `source`). Returns the placed.
pub(super) fn record_hunks(
    hunks: &[Hunk],
    results: Vec<Result<Located, Failure>>,
    source: &SourceText,
    report: &mut FileReport,
    settles: impl Fn(usize, &Hunk, &Failure) -> Vec<usize>,
) -> Vec<Located> {
    let mut located = Vec::new();
    for (i, (hunk, result)) in hunks.iter().zip(results).enumerate() {
        match result {
            Ok(loc) => {
                report.hunks.push(hunk_report(i, hunk, Some(&loc), None));
                located.push(loc);
            }
            Err(failure) => {
                debug_assert_eq!(failure.hunk, i, "failures come in hunk order");
                let at_settles = settles(i, hunk, &failure);
                let fail = hunk_failure(hunk, failure, source, at_settles);
                report.hunks.push(hunk_report(i, hunk, None, Some(fail)));
            }
        }
    }
    located
}

/// The details of a hunk that could not be placed, its quoted lines capped.
fn hunk_failure(
    hunk: &Hunk,
    failure: Failure,
    source: &SourceText,
    at_settles: Vec<usize>,
) -> HunkFailure {
    let old_len = hunk.old_len();
    let candidate_context = failure
        .candidates
        .iter()
        .take(10)
        .map(|&line| CandidateView {
            line,
            tier: failure.tie.map(|t| t.0),
            score: failure.tie.map_or(1.0, |t| t.1),
            lines: (line.saturating_sub(3)..(line + old_len + 2).min(source.len()))
                .take(quote::MAX_QUOTED_LINES)
                .map(|j| (j + 1, quote::line(&source.line_text(j)).into_owned()))
                .collect(),
        })
        .collect();
    let mut message = failure.message;
    if matches!(
        failure.reason,
        Reason::ContextNotFound | Reason::StaleRemovedLine
    ) && let Some(first) = gutter_residue(hunk)
    {
        message.push_str(&format!(
            " (its first line `{first}` begins with `|`, perhaps what is left of a `N | ` line-number prefix: write the line as the file has it)"
        ));
    }
    HunkFailure {
        code: failure.reason,
        message: quote::message(message),
        expected: expected(hunk),
        candidates: failure.candidates,
        at_settles,
        candidate_context,
        near_match: failure.near.map(capped_near),
        hunk_text: hunk_text(hunk),
    }
}

/// The first old line of a hunk when it begins with `|` (after spaces) and
/// no other old line does: the shape of a line that kept the `|` of a
/// numbered view's `N | ` prefix (`docs/formats.md`).
fn gutter_residue(hunk: &Hunk) -> Option<&str> {
    let mut old = hunk.old_lines().map(|l| l.text.as_str());
    let first = old.next()?;
    let piped = |t: &str| t.trim_start_matches(' ').starts_with('|');
    (piped(first) && !old.any(piped)).then_some(first)
}

/// Adds the lines the applied hunks add and remove to the file's counts.
pub(super) fn count_lines(hunks: &[Hunk], located: &[Located], report: &mut FileReport) {
    for loc in located.iter().filter(|l| l.status == HunkStatus::Applied) {
        if let Some(h) = hunks.get(loc.hunk) {
            report.added += h.lines.iter().filter(|l| l.kind == LineKind::Add).count();
            report.removed += h
                .lines
                .iter()
                .filter(|l| l.kind == LineKind::Remove)
                .count();
        }
    }
}

/// The report of hunk `index` (0-based): placed at `loc`, or failed with
/// `failure`.
pub(super) fn hunk_report(
    index: usize,
    hunk: &Hunk,
    loc: Option<&crate::locate::Located>,
    failure: Option<HunkFailure>,
) -> HunkReport {
    HunkReport {
        index: index + 1,
        patch_line: hunk.patch_line,
        status: loc.map_or(HunkOutcome::Failed, |l| HunkOutcome::of(l.status)),
        tier: loc.and_then(|l| l.tier),
        normalizations: loc.map(|l| l.normalizations.clone()).unwrap_or_default(),
        lines: loc
            .filter(|l| l.status != HunkStatus::NoOp)
            .map(|l| LineRange {
                start: l.start + 1,
                end: l.end,
            }),
        similarity: loc
            .map(|l| l.similarity)
            .or_else(|| failure.as_ref().and_then(closest_score))
            .unwrap_or(0.0),
        new_lines: None,
        failure,
    }
}

/// The score of the closest place a failed hunk had: its near match's
/// similarity, or the score the candidates of an ambiguous hunk tied at.
fn closest_score(failure: &HunkFailure) -> Option<f64> {
    match &failure.near_match {
        Some(near) => Some(near.similarity),
        None => failure.candidate_context.first().map(|c| c.score),
    }
}

/// Records where each applied hunk's result lies in the patched file: its
/// edit's start moved by the lines every earlier edit added or removed.
pub(super) fn result_ranges(plan: &FilePlan, report: &mut FileReport) {
    let (mut grown, mut shrunk) = (0usize, 0usize);
    for edit in &plan.edits {
        let start = (edit.start + grown).saturating_sub(shrunk);
        if let Some(h) = report.hunks.get_mut(edit.hunk) {
            h.new_lines = Some(LineRange {
                start: start + 1,
                end: start + edit.lines.len(),
            });
        }
        grown += edit.lines.len();
        shrunk += edit.end - edit.start;
    }
}

/// The lines a failed hunk expected to find, each capped for the reports.
pub(super) fn expected(hunk: &Hunk) -> Vec<String> {
    let mut lines: Vec<String> = hunk
        .old_lines()
        .take(quote::MAX_QUOTED_LINES)
        .map(|l| quote::line(&l.text).into_owned())
        .collect();
    let more = hunk.old_len().saturating_sub(quote::MAX_QUOTED_LINES);
    if more > 0 {
        lines.push(quote::more_lines(more));
    }
    lines
}

/// A near match with its quoted lines capped for the reports.
fn capped_near(mut near: Box<NearMatch>) -> Box<NearMatch> {
    let more = near.lines.len().saturating_sub(quote::MAX_QUOTED_LINES);
    if more > 0 {
        near.lines.truncate(quote::MAX_QUOTED_LINES);
        near.lines.push(quote::more_lines(more));
    }
    for line in &mut near.lines {
        if let Cow::Owned(capped) = quote::line(line) {
            *line = capped;
        }
    }
    if let Some((text, _)) = &mut near.first_difference
        && let Cow::Owned(capped) = quote::line(text)
    {
        *text = capped;
    }
    near
}

/// The hunk as a unified-diff body.
pub(super) fn hunk_text(hunk: &Hunk) -> String {
    let mut out = String::new();
    for line in &hunk.lines {
        out.push(match line.kind {
            LineKind::Context => ' ',
            LineKind::Remove => '-',
            LineKind::Add => '+',
        });
        out.push_str(&line.text);
        out.push('\n');
    }
    out
}
