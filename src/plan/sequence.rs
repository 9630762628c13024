//! Blocks applied in order: a hunk that edits what an earlier hunk of the
//! same file wrote (Aider applies SEARCH/REPLACE blocks one after another).
//!
//! Every hunk is first located in the original file. One that does not
//! place there (no tier finds it, or only its context stands) is looked
//! for in the text the hunks before it produce, in patch order; when it
//! places there, touching what they wrote, it joins their edit. See
//! `docs/matching.md`, "Blocks applied in order".

use super::done_in_order::{Rival, Traces, also_on_written, done_or_in_order, on_written};
use super::produced::{
    Produced, absorb, made_in_turn, original_range, produce, produced_text, reproduces,
};
use super::reach::Reach;
use crate::locate::{
    Failure, HunkStatus, Located, MatchOptions, Normalization, Pins, Reason, Tier, locate_hunks,
};
use crate::model::{Hunk, LineKind};
use crate::plan::edits::{Edit, FilePlan, NewLine, order_edits, plan_file, split_at_kept_lines};
use crate::source::SourceText;
use std::collections::HashSet;
use std::ops::Range;

/// A hunk placed in the text the hunks before it produced, as one edit of
/// the original that also carries the earlier edits it builds on.
#[derive(Debug, Clone)]
pub(super) struct InOrder {
    /// The hunk.
    pub hunk: usize,
    /// The merged edit, in the original's lines (its `hunk` is `hunk`).
    pub edit: Edit,
    /// The earlier hunks whose edits the merged edit replaces.
    pub absorbed: Vec<usize>,
}

/// Places, in patch order, the hunks that failed in the original but
/// place in the text the hunks before them produce; their results become
/// `Ok` (status applied, lines of the merged edit, `applied_in_order`).
/// Only hunks without line numbers, anchors or an end-of-file mark take
/// part (their place is their text alone), and only when no hunk after
/// them touches the lines of the merged edit. A hunk placed in the
/// original that also stands on what an earlier hunk wrote is refused as
/// two readings, unless the user pinned it to its place in the original
/// (`pins`, 0-based lines of `--at`).
pub(super) fn place_in_order(
    source: &SourceText,
    hunks: &[Hunk],
    results: &mut [Result<Located, Failure>],
    options: &MatchOptions,
    pins: &Pins,
) -> Vec<InOrder> {
    let mut before = Before::new(source, hunks, results);
    let mut there = Vec::new();
    for i in 0..hunks.len() {
        if i > 0 {
            before.take(source, hunks, i - 1, &results[i - 1]);
        }
        let hunk = &hunks[i];
        let placed_by_text = hunk.line_hint.is_none()
            && hunk.anchors.is_empty()
            && !hunk.at_eof
            && hunk.old_len() > 0;
        // Not found in the original, or found there only with tolerance
        // (a place so found on lines an earlier hunk changes cannot be
        // made: it overlaps).
        let open = match &results[i] {
            Err(f) => match f.reason {
                Reason::ContextNotFound | Reason::StaleRemovedLine => true,
                Reason::Overlap => f.tie.is_some_and(|(tier, _)| tier > Tier::Exact),
                _ => false,
            },
            Ok(l) => l.status == HunkStatus::Applied && l.tier > Some(Tier::Exact),
        };
        // A later diff of a series for the same file is numbered in what
        // the diffs before it produce: on what they wrote, it has the same
        // two readings as a block placed by its text.
        let in_series = hunk.old_len() > 0 && hunks[1..=i].iter().any(|h| h.starts_section);
        if (placed_by_text || in_series)
            && let Some(rival) = before.done_rival(source, (i, hunk), &results[i], options)
        {
            match rival {
                Rival::Away(refusal) if !pins.contains(refusal.candidates[0] - 1) => {
                    results[i] = Err(refusal);
                    continue;
                }
                Rival::There(refusal) if !pins.contains(refusal.candidates[0] - 1) => {
                    there.push(refusal);
                }
                _ => {}
            }
        }
        if (placed_by_text || in_series)
            && !open
            && wrote_a_line_of(hunks, results, i, &before.written)
        {
            let edits = before.edits();
            if let (Ok(loc), Some(at)) = (
                &results[i],
                also_on_written(source, hunk, &edits, options, Tier::Exact),
            ) && !pins.contains(loc.start)
            {
                results[i] = Err(two_readings(i, loc, at));
            }
            continue;
        }
        if !placed_by_text || !open || before.is_empty() {
            continue;
        }
        if let Ok(loc) = &results[i] {
            if let Some(refusal) = read_again(source, hunk, i, loc, &before, options, pins) {
                results[i] = Err(refusal);
            }
            continue;
        }
        let Ok(found) = place_after(source, hunk, i, &before.edits(), options) else {
            continue;
        };
        let standing = super::rerun::chain_stands_applied(source, i, &found.in_order.edit);
        match judge(hunks, results, i, &found).and(standing.map_or(Ok(()), |f| Err(Some(f)))) {
            Ok(()) => {
                results[i] = Ok(found.located);
                before.place(source, found.in_order);
            }
            Err(Some(refusal)) => results[i] = Err(refusal),
            Err(None) => {}
        }
    }
    super::rerun::settle_consumed(hunks, results);
    let consumers = super::rerun::refuse_consumed_again(hunks, results);
    // Done right where it reads in order, and not refused as a re-run
    // naming the earlier hunk: two readings all the same.
    for refusal in there {
        let m = refusal.hunk;
        let done = matches!(&results[m], Ok(l) if l.status == HunkStatus::AlreadyApplied);
        if done && !consumers.contains(&m) {
            results[m] = Err(refusal);
        }
    }
    before.placed
}

/// Whether hunk `i`, which failed in the original, takes the place `found`
/// in the text the hunks before it produce: `Ok` when it does, `Err` with
/// the refusal when that place makes it one, `Err(None)` when it stays
/// as it was (a later hunk reaches into the merged edit).
fn judge(
    hunks: &[Hunk],
    results: &[Result<Located, Failure>],
    i: usize,
    found: &Found,
) -> Result<(), Option<Failure>> {
    if let Err(f) = &results[i]
        && let Some(&turned) = f.candidates.first()
    {
        return Err(Some(turned_away(i, turned, found.located.start)));
    }
    if !found.faithful {
        return Err(Some(unmerged(i, found.located.start)));
    }
    let merged = found.in_order.edit.start..found.in_order.edit.end;
    let changes = split_at_kept_lines(found.in_order.edit.clone());
    let clash = results[i + 1..].iter().any(|r| {
        matches!(r, Ok(l) if l.status == HunkStatus::Applied
            && touches(l.start..l.end, &merged)
            && reaches_a_change(l.start..l.end, &changes))
    });
    if clash {
        return Err(None);
    }
    // A hunk without old lines is found again on a later run only by
    // its added lines standing where it puts them: edited by this one,
    // they stand nowhere, and that run would add them a second time.
    match found
        .in_order
        .absorbed
        .iter()
        .find(|&&h| hunks.get(h).is_some_and(|h| h.old_len() == 0))
    {
        Some(&pure) => Err(Some(builds_on_addition(i, pure))),
        None => Ok(()),
    }
}

/// What the hunks before the current one do, gathered as the loop passes
/// them (their results are final by then).
struct Before<'h> {
    /// The hunks placed in order so far.
    placed: Vec<InOrder>,
    /// The added lines of the hunks that apply: one set, not a scan of
    /// them all per hunk.
    written: HashSet<&'h str>,
    /// What their edits leave, for the cheap test before a hunk found
    /// done is looked for in the text they produce.
    traces: Traces,
    /// The edit of each hunk that applies where it was located in the
    /// original, built once (planning them all again for every hunk made
    /// a long reply quadratic).
    own: Vec<Edit>,
    /// The cheap test before a hunk placed with tolerance is read again.
    reach: Reach,
}

impl<'h> Before<'h> {
    fn new(source: &SourceText, hunks: &[Hunk], results: &[Result<Located, Failure>]) -> Self {
        Before {
            placed: Vec::new(),
            written: HashSet::new(),
            traces: Traces::default(),
            own: Vec::new(),
            reach: Reach::new(source, hunks, results),
        }
    }

    /// Takes in hunk `k` and its final `result`.
    fn take(
        &mut self,
        source: &SourceText,
        hunks: &'h [Hunk],
        k: usize,
        result: &Result<Located, Failure>,
    ) {
        let Ok(l) = result else { return };
        if l.status != HunkStatus::Applied {
            return;
        }
        let added = hunks[k].lines.iter().filter(|a| a.kind == LineKind::Add);
        for a in added {
            self.written.insert(a.text.as_str());
            self.traces.add_written(&a.text);
        }
        if self.placed.iter().all(|p| p.hunk != l.hunk) {
            let mut one = [l.clone()];
            let edits = plan_file(source, hunks, &mut one).edits;
            for e in &edits {
                self.reach.add_edit(e);
                self.traces.add_edit(source, e);
            }
            self.own.extend(edits);
        }
    }

    /// True when no hunk so far changes the file.
    fn is_empty(&self) -> bool {
        self.own.is_empty() && self.placed.is_empty()
    }

    /// Records a hunk placed in order.
    fn place(&mut self, source: &SourceText, in_order: InOrder) {
        self.reach.add_edit(&in_order.edit);
        self.traces.add_edit(source, &in_order.edit);
        self.placed.push(in_order);
    }

    /// The in-order reading of hunk `i` when it was found already applied
    /// in the original (`result`) and its old side may stand on what these
    /// hunks write ([`Traces::may_reach`]).
    fn done_rival(
        &self,
        source: &SourceText,
        (i, hunk): (usize, &Hunk),
        result: &Result<Located, Failure>,
        options: &MatchOptions,
    ) -> Option<Rival> {
        let Ok(done) = result else { return None };
        if done.status != HunkStatus::AlreadyApplied
            || self.is_empty()
            || !self.traces.may_reach(hunk)
        {
            return None;
        }
        done_or_in_order(source, (i, hunk), done, &self.edits(), options)
    }

    /// The edits of the hunks so far, sorted, as the plan of those hunks
    /// has them (placed in order: their merged edits).
    fn edits(&self) -> Vec<Edit> {
        let mut edits = self.own.clone();
        order_edits(&mut edits);
        for p in &self.placed {
            edits.retain(|e| !p.absorbed.contains(&e.hunk));
            edits.push(p.edit.clone());
        }
        order_edits(&mut edits);
        edits
    }
}

/// A hunk placed with tolerance in the original at `loc`, placed afresh
/// on what an earlier hunk wrote: two readings (the refusal), unless they
/// are one place or the user pinned the original one. The search is
/// skipped where the cheap test shows it cannot find another place.
fn read_again(
    source: &SourceText,
    hunk: &Hunk,
    i: usize,
    loc: &Located,
    before: &Before,
    options: &MatchOptions,
    pins: &Pins,
) -> Option<Failure> {
    let differs = |found: &Found| !found.same_place(loc) && !pins.contains(loc.start);
    if before.reach.settled(source, i, loc) {
        // The skipped search, run anyway where checks are on (debug builds,
        // fuzz targets): it must find nothing the skip would have missed.
        if cfg!(any(debug_assertions, fuzzing)) {
            let found = place_after(source, hunk, i, &before.edits(), options);
            assert!(
                !matches!(&found, Ok(f) if differs(f)) && !matches!(found, Err(Miss::OnWritten(_))),
                "hunk {} was taken as settled, but the produced text reads it elsewhere",
                i + 1
            );
        }
        return None;
    }
    match place_after(source, hunk, i, &before.edits(), options) {
        Ok(found) => differs(&found).then(|| two_readings(i, loc, found.located.start)),
        // Read on what an earlier hunk wrote (tied there, or by a stricter
        // tier): that place is a reading too, so the tolerant one in the
        // original is not the only one.
        Err(Miss::OnWritten(at)) => (!pins.contains(loc.start)).then(|| two_readings(i, loc, at)),
        Err(Miss::Nothing) => None,
    }
}

/// Puts the merged edits of hunks placed in order into the plan of the
/// others, in place of the edits they absorbed.
pub(super) fn merge_in_order(plan: &mut FilePlan, in_order: &[InOrder]) {
    for o in in_order {
        plan.edits.retain(|e| !o.absorbed.contains(&e.hunk));
        plan.edits.push(o.edit.clone());
    }
    // A later hunk may change lines the merged edit keeps: split both
    // there, as for hunks sharing context.
    order_edits(&mut plan.edits);
}

/// True when a later hunk's lines (`later`) hold, or stand right next to,
/// a change of the merged edit (`changes`: its pieces between the lines it
/// keeps). Lines the merged edit keeps stand in the produced text as in the
/// original, so a later hunk on them alone reads the same either way.
fn reaches_a_change(later: Range<usize>, changes: &[Edit]) -> bool {
    changes
        .iter()
        .any(|c| c.start <= later.end && later.start <= c.end)
}

/// True when a later hunk's lines reach into the merged edit's lines.
fn touches(later: Range<usize>, merged: &Range<usize>) -> bool {
    if later.is_empty() {
        merged.start < later.start && later.start < merged.end
    } else {
        later.start < merged.end && merged.start < later.end
    }
}

struct Found {
    located: Located,
    in_order: InOrder,
    /// The original lines the hunk's own lines stand on in the produced
    /// text; `None` when one of them is a line an earlier hunk wrote.
    own_lines: Option<Range<usize>>,
    /// The merged edit gives the text the hunks give made one after
    /// another (the oracle of the merge); when not, the hunk still stands
    /// there (a reading), but cannot be applied so.
    faithful: bool,
}

impl Found {
    /// True when the hunk stands in the produced text on the very
    /// original lines `loc` placed it on.
    fn same_place(&self, loc: &Located) -> bool {
        self.own_lines == Some(loc.start..loc.end)
    }
}

/// The failure of a hunk placed in the original that also places on what
/// an earlier hunk wrote (`in_order`: 0-based line of the original).
fn two_readings(index: usize, original: &Located, in_order: usize) -> Failure {
    Failure {
        hunk: index,
        reason: Reason::Ambiguous,
        message: format!(
            "the hunk matches at line {} of the original, and also stands in what the hunks before it write (around line {}): applied in order or there?",
            original.start + 1,
            in_order + 1
        ),
        // Only the place in the original can be chosen with `--at` (a
        // pin is a line of the original, where the other reading is not).
        candidates: vec![original.start + 1],
        tie: None,
        near: None,
    }
}

/// The failure of a hunk whose old side stands in the original at
/// `turned` (1-based), turned away there by a rule (the indentation rule,
/// or a stale site of its context elsewhere), and that
/// also places on what an earlier hunk wrote (`in_order`, 0-based line of
/// the original): the place turned away is still a place the hunk stands.
fn turned_away(index: usize, turned: usize, in_order: usize) -> Failure {
    Failure {
        hunk: index,
        reason: Reason::Ambiguous,
        message: format!(
            "the hunk stands at line {turned} of the original, turned away there by a rule of place (its indentation does not map onto the file's, or it stands only with tolerance while its context stands exactly elsewhere), and also in what the hunks before it write (around line {}): applied in order, or meant for line {turned}?",
            in_order + 1
        ),
        candidates: vec![turned],
        tie: None,
        near: None,
    }
}

/// The failure of a hunk that stands in what the hunks before it write
/// (`in_order`, 0-based line of the original) where their edits and its
/// own, merged into one edit of the original, would not give the text
/// they give made one after another.
fn unmerged(index: usize, in_order: usize) -> Failure {
    Failure {
        hunk: index,
        reason: Reason::Overlap,
        message: format!(
            "the hunk stands only in what the hunks before it write (around line {}), and their edits merged with its own would not give what applying them one after another gives: write the blocks as one",
            in_order + 1
        ),
        candidates: Vec::new(),
        tie: None,
        near: None,
    }
}

/// The failure of a hunk that stands only on lines an earlier hunk with no
/// old lines adds (`pure`): applied in order, a second run could not see
/// that the earlier hunk was made and would add its lines again.
fn builds_on_addition(index: usize, pure: usize) -> Failure {
    Failure {
        hunk: index,
        reason: Reason::Overlap,
        message: format!(
            "the hunk stands only on lines that hunk {} adds with no context of its own; applied one after the other, a second run could not tell that hunk {} was made: write the two as one hunk",
            pure + 1,
            pure + 1
        ),
        candidates: Vec::new(),
        tie: None,
        near: None,
    }
}

/// True when hunk `i` was placed exactly in the original and one of its
/// old lines is a line an earlier applied hunk adds (the cheap test before
/// [`also_on_written`]).
fn wrote_a_line_of(
    hunks: &[Hunk],
    results: &[Result<Located, Failure>],
    i: usize,
    written: &HashSet<&str>,
) -> bool {
    let exact = matches!(&results[i], Ok(l) if l.status == HunkStatus::Applied
        && l.tier.is_some_and(|t| t <= Tier::Exact));
    exact
        && hunks[i]
            .old_lines()
            .any(|o| written.contains(o.text.as_str()))
}

/// Why [`place_after`] took no place.
enum Miss {
    /// No place to take: none, or one that builds on no earlier edit.
    Nothing,
    /// A reading on what an earlier hunk wrote that is not taken (tied
    /// with another place, or found by a tier not taken on written lines),
    /// around this original line: a rival of a place in the original.
    OnWritten(usize),
}

/// The original line around a place tied in the produced text (`lines`)
/// that stands on what an earlier edit wrote. Any tier counts: the hunk
/// is not applied there (only whitespace drift is taken on written lines),
/// but a tie with it means the hunk reads on what was written as well as
/// where it was placed. Only a tie of a tier counts (`tie`): other
/// ambiguities list places that are not all readings of the hunk.
fn tied_on_written(failure: &Failure, lines: &[Produced], len: usize) -> Option<usize> {
    if failure.reason != Reason::Ambiguous || failure.tie.is_none() {
        return None;
    }
    let starts = failure.candidates.iter().map(|c| c.saturating_sub(1));
    on_written(lines, starts.collect(), len)
}

/// Locates `hunk` in the original with `edits` made; `Ok` when it
/// places there, uniquely and afresh, touching what the edits wrote.
// Longer than most: locating in the produced text, growing the hull over
// the edits it touches and merging them back into one edit of the original
// share the produced lines and their ranges; split, each step would take
// them all as arguments.
fn place_after(
    source: &SourceText,
    hunk: &Hunk,
    index: usize,
    edits: &[Edit],
    options: &MatchOptions,
) -> Result<Found, Miss> {
    let (lines, ranges) = produce(source, edits);
    let text = produced_text(source, &lines);
    let produced = SourceText::new(&text);
    let one = std::slice::from_ref(hunk);
    let mut loc = match locate_hunks(&produced, one, options, &Pins::default()).pop() {
        Some(Ok(loc)) => loc,
        Some(Err(failure)) => {
            return Err(tied_on_written(&failure, &lines, hunk.old_len())
                .map_or(Miss::Nothing, Miss::OnWritten));
        }
        None => return Err(Miss::Nothing),
    };
    // The lines the hunks before it wrote are the patch's own text: a
    // hunk that quotes them with more than whitespace drift (case,
    // punctuation, omitted lines, similarity) is not read on them. Such a
    // reading still rivals a place in the original.
    if loc.status != HunkStatus::Applied {
        return Err(Miss::Nothing);
    }
    if loc.tier > Some(Tier::Resilient) {
        let on = on_written(&lines, vec![loc.start], loc.end - loc.start);
        return Err(on.map_or(Miss::Nothing, Miss::OnWritten));
    }
    // Only a place that builds on an earlier edit: elsewhere the original
    // would have had it too.
    let span = loc.start..loc.end;
    let (hull, absorbed) = absorb(&ranges, edits, span.clone());
    if absorbed.is_empty() {
        return Err(Miss::Nothing);
    }
    let own: Option<Vec<usize>> = lines[span.clone()]
        .iter()
        .map(|l| match l {
            Produced::Original(j) => Some(*j),
            Produced::Written(_) => None,
        })
        .collect();
    let own_lines = own.and_then(|own| {
        let (first, last) = (*own.first()?, *own.last()?);
        (own.len() == last + 1 - first).then_some(first..last + 1)
    });
    let plan = plan_file(&produced, one, std::slice::from_mut(&mut loc));
    let own_edit = plan.edits.first().ok_or(Miss::Nothing)?;
    let made = made_in_turn(&lines, own_edit).ok_or(Miss::Nothing)?;
    let merged: Vec<NewLine> = made[hull.start..made.len() + hull.end - lines.len()]
        .iter()
        .map(Produced::as_new_line)
        .collect();
    let original =
        original_range(&lines, edits, &ranges, &absorbed, hull.clone()).ok_or(Miss::Nothing)?;
    let edit = Edit {
        start: original.start,
        end: original.end,
        lines: merged,
        hunk: index,
    };
    let faithful = reproduces(source, edits, &absorbed, &edit, &made);
    let mut normalizations = loc.normalizations.clone();
    normalizations.push(Normalization::AppliedInOrder);
    let located = Located {
        hunk: index,
        start: original.start,
        end: original.end,
        slots: Vec::new(),
        normalizations,
        ..loc
    };
    Ok(Found {
        located,
        in_order: InOrder {
            hunk: index,
            edit,
            absorbed,
        },
        own_lines,
        faithful,
    })
}
