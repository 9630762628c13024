//! The tier ladder for one hunk: what the patch says about its place, the
//! exact match near that, then each tier in turn. The evidence gathered on
//! the way (the stale sites, where the new side stands) flows from one tier
//! to the next and into the decision after the last, so the climb is one
//! function; what it asks at each step is a method of [`Ladder`].

use super::accept;
use super::applied::{self, NewSideFound, already_applied, place_pure_addition};
use super::choose::{Choice, Hints, choose, heading_contradicts, hints_disagree};
use super::decide;
use super::diagnose;
use super::keys::{FileKeys, OldLine, new_side, old_side};
use super::normalize::LineMatch;
use super::numbered::AdditionEvidence;
use super::search::{Candidate, Slot, contiguous};
use super::{
    Failure, FileState, HunkStatus, Located, MatchOptions, Reason, Tier, ambiguous,
    exact_near_hint, failure, fixed, hint_line, in_order_pick, resolve_anchors, search_tier,
};
use crate::model::{Hunk, LineKind};
use std::ops::Range;

/// What the patch says about the hunk's place: its line number as written
/// and as carried by the offset of the hunk before, its Codex anchors
/// (searched from the previous hunk's end), `*** End of File`, and the
/// user's `--at` pins.
pub(super) fn hints_for(
    keys: &FileKeys,
    hunks: &[Hunk],
    hunk: &Hunk,
    index: usize,
    state: &FileState,
) -> Result<Hints, Failure> {
    let n = keys.len();
    let anchors = if hunk.anchors.is_empty() {
        None
    } else {
        Some(
            resolve_anchors(keys, &hunk.anchors, state)
                .map_err(|why| failure(index, Reason::ContextNotFound, why))?,
        )
    };
    Ok(Hints {
        line: hunk.line_hint.and_then(|l| hint_line(l, state.offset, n)),
        raw_line: hunk.line_hint.and_then(|l| hint_line(l, 0, n)),
        new_side_line: new_side_old_start(hunk, state.written_delta(hunks, index))
            .and_then(|l| hint_line(l, 0, n)),
        anchors,
        at_eof: hunk.at_eof,
        pins: state.pins.clone(),
    })
}

/// The blocks that the lines equal (but for indentation and trailing
/// whitespace) to a numbered header's section heading open: first line and
/// end, 0-based. Found through the prefilter's exact-tier lines, so a
/// heading costs what an anchor costs. Empty without a heading.
pub(super) fn section_blocks(keys: &FileKeys, heading: &str) -> Vec<(usize, usize)> {
    if heading.is_empty() {
        return Vec::new();
    }
    let probe = OldLine::new(LineKind::Context, heading);
    let lines: Vec<usize> = match super::prefilter::lines_matching(keys, &probe, Tier::Resilient) {
        Some(hits) => hits.to_vec(),
        None => (0..keys.len()).collect(),
    };
    lines
        .into_iter()
        .filter(|&j| keys.line(j).trim_ascii() == heading.as_bytes())
        .filter_map(|j| super::scope::block_end(keys, j).map(|end| (j, end)))
        .collect()
}

/// The section heading against the candidate `one` that the line number
/// picked among equally good ones: `ambiguous` when the heading names the
/// block of another (rule 2). The heading's lines are sought only here, for
/// a tie the number settled, so a patch without ties never pays for it.
pub(super) fn heading_veto(
    keys: &FileKeys,
    hunk: &Hunk,
    index: usize,
    hints: &Hints,
    cands: &[Candidate],
    one: usize,
) -> Option<Failure> {
    if hunk.section.is_empty() || !hints.pins.is_empty() {
        return None;
    }
    let best = cands[one].quality();
    let tied: Vec<usize> = (0..cands.len())
        .filter(|&c| cands[c].quality() == best)
        .collect();
    if tied.len() < 2 {
        return None;
    }
    let blocks = section_blocks(keys, &hunk.section);
    if !heading_contradicts(&blocks, cands, &tied, one) {
        return None;
    }
    let mut starts: Vec<usize> = tied.iter().map(|&c| cands[c].start).collect();
    starts.sort_unstable();
    let list: Vec<String> = starts.iter().map(|s| (s + 1).to_string()).collect();
    let why = format!(
        "the hunk matches {} places equally well (lines {}); its line number points at one, and its section heading `{}` names the block of another; fix the number or add context",
        starts.len(),
        list.join(", "),
        hunk.section
    );
    Some(ambiguous(index, &starts, None, Some(why)))
}

/// The old start (1-based) that `hunk`'s new-side start `+c` implies: `c`
/// less `delta`, what the hunks before it (of every section for this file)
/// add and remove, as `git diff` numbers them, read the way the old start is
/// (`-a,0` inserts after line `a`, its new side starting at `a + 1`; `+c,0`
/// follows the line before the removed ones). Equal to the old start in a
/// header that is consistent with the hunks before it.
fn new_side_old_start(hunk: &Hunk, delta: isize) -> Option<usize> {
    let c = hunk.new_start?;
    let start = match (hunk.old_len(), hunk.new_lines().count()) {
        (0, _) => c as isize - 1,
        (_, 0) => c as isize + 1,
        _ => c as isize,
    };
    usize::try_from(start - delta).ok()
}

/// Places hunk `index` of `hunks` (`hunk`) in the file of `keys`, given
/// what the hunks before it found (`state`).
pub(super) fn locate_one(
    keys: &FileKeys,
    hunks: &[Hunk],
    index: usize,
    hunk: &Hunk,
    state: &mut FileState,
    options: &MatchOptions,
) -> Result<Located, Failure> {
    let hints = hints_for(keys, hunks, hunk, index, state)?;
    let old = old_side(hunk);
    if hunk.is_noop() && !old.is_empty() && !hunk.elision_piece {
        return Ok(fixed(index, 0, 0, HunkStatus::NoOp));
    }
    if old.is_empty() {
        return pure_addition(keys, hunks, index, hunk, &hints, state);
    }
    let ladder = Ladder {
        keys,
        hunks,
        index,
        hunk,
        old: &old,
        hints: &hints,
        state,
        options,
    };
    if let Some(found) = exact_near_hint(keys, hunk, &old, &hints, state) {
        return ladder.accept(Tier::Exact, found);
    }
    ladder.climb()
}

/// Places a hunk with no old lines; an addition whose place says more than
/// where it goes (done elsewhere, unsure) is noted in `state`.
fn pure_addition(
    keys: &FileKeys,
    hunks: &[Hunk],
    index: usize,
    hunk: &Hunk,
    hints: &Hints,
    state: &mut FileState,
) -> Result<Located, Failure> {
    let appends_after = applied::later_appends(hunks, index);
    let placed = place_pure_addition(keys, hunk, index, hints, state, &appends_after);
    if let Ok((_, evidence)) = &placed
        && *evidence != AdditionEvidence::Plain
    {
        state.telling_additions.push((index, *evidence));
    }
    placed
        .map(|(loc, _)| loc)
        .map_err(|(reason, message, candidates)| Failure {
            candidates,
            ..failure(index, reason, message)
        })
}

/// One hunk with old lines on the ladder: what every tier reads.
#[derive(Clone, Copy)]
struct Ladder<'a, 'k, 'h> {
    keys: &'a FileKeys<'k>,
    hunks: &'a [Hunk],
    index: usize,
    hunk: &'a Hunk,
    old: &'a [OldLine<'h>],
    hints: &'a Hints,
    state: &'a FileState,
    options: &'a MatchOptions,
}

impl Ladder<'_, '_, '_> {
    /// Accepts `cand`, found by `tier`, as the hunk's place, reads it as
    /// already applied, or refuses it naming the other reading.
    fn accept(&self, tier: Tier, cand: Candidate) -> Result<Located, Failure> {
        let proposal = accept::Proposal {
            keys: self.keys,
            hunk: self.hunk,
            index: self.index,
            old: self.old,
            tier,
            hints: self.hints,
            state: self.state,
            options: self.options,
        };
        accept::accept(&proposal, cand)
    }

    /// Where the hunk's new side stands (at `site` when given).
    fn new_side_at(&self, site: Option<&Range<usize>>) -> Option<NewSideFound> {
        already_applied(
            self.keys, self.hunk, self.index, self.hints, self.state, site,
        )
    }

    /// The removed lines are gone from where the context stands (`sites`):
    /// done already if the new lines stand exactly there, stale otherwise.
    fn stale_or_applied(&self, sites: &[Range<usize>]) -> Result<Located, Failure> {
        let Ladder {
            keys,
            index,
            old,
            hints,
            options,
            ..
        } = *self;
        let applied = sites.iter().find_map(|site| {
            self.new_side_at(Some(site))
                .filter(|found| found.hinted)
                .map(|found| found.loc)
        });
        match (applied, sites.first()) {
            (Some(loc), _) => Ok(loc),
            (None, Some(site)) => Err(diagnose::stale_failure(keys, old, index, site.clone())),
            (None, None) => Err(diagnose::diagnose(keys, old, index, hints, options)),
        }
    }

    /// Takes `cand`, found by `tier`, unless the new side stands somewhere
    /// (`new_side`, or read with the same tolerance past the resilient
    /// tier): then the two readings are weighed.
    fn settle(
        &self,
        tier: Tier,
        cand: Candidate,
        new_side: &Option<NewSideFound>,
    ) -> Result<Located, Failure> {
        if tier > Tier::Exact
            && self.hints.line.is_none()
            && !self.hunk.lines.is_empty()
            && self.hunk.lines.iter().all(|l| l.kind == LineKind::Remove)
        {
            // A deletion with no context and no number leaves no trace of
            // having been applied: read with tolerance here, its exact copy
            // may be the one a first run already deleted (rule 7).
            let why = format!(
                "the hunk only removes lines and has no context or line number, and they stand here only read with tolerance ({}): an exact copy may have been deleted already; applied before, or to be applied here?",
                tier.name()
            );
            return Err(ambiguous(self.index, &[cand.start], None, Some(why)));
        }
        if let Some(k) = self.removed_line_skipped(&cand) {
            let why = format!(
                "the hunk removes a line read here with tolerance ({}) while line {} between its lines, left out as omitted, is that removed line exactly: which one goes?",
                tier.name(),
                k + 1
            );
            return Err(ambiguous(self.index, &[cand.start], None, Some(why)));
        }
        if let Some(k) = self.copy_across_omitted(&cand) {
            let why = format!(
                "the hunk removes one of two equal lines that stand apart here, line {} left out as omitted between them: removing the one or the other gives different files",
                k + 1
            );
            return Err(ambiguous(self.index, &[cand.start], None, Some(why)));
        }
        if tier > Tier::Exact
            && let Some(done) = self.deletion_done_elsewhere(&cand)
        {
            let why = format!(
                "the hunk only removes lines, read here with tolerance ({}), and its context stands exactly at line {} without them: already applied there, or to be applied here?",
                tier.name(),
                done + 1
            );
            let mut starts = vec![done, cand.start];
            starts.sort_unstable();
            return Err(ambiguous(self.index, &starts, None, Some(why)));
        }
        match new_side {
            Some(found) => done_or_ambiguous(self.index, found, &cand),
            None if tier > Tier::Resilient => {
                let read = applied::new_side_read_leniently(
                    self.keys,
                    self.hunk,
                    tier,
                    self.hints,
                    self.state,
                    self.options,
                );
                match decide::lenient_done(self.index, tier, &read, &cand) {
                    Some(result) => result,
                    None => self.accept(tier, cand),
                }
            }
            None => self.accept(tier, cand),
        }
    }

    /// A file line of `cand` that the match leaves out (omitted) and that
    /// is, byte for byte, a removed line the match pairs with another file
    /// line only with tolerance: two readings of which line the hunk
    /// removes.
    fn removed_line_skipped(&self, cand: &Candidate) -> Option<usize> {
        let used: Vec<usize> = cand
            .slots
            .iter()
            .filter_map(|s| match s {
                Slot::Line(j, _) => Some(*j),
                _ => None,
            })
            .collect();
        let skipped: Vec<usize> = (cand.start..cand.end)
            .filter(|k| !used.contains(k))
            .collect();
        if skipped.is_empty() {
            return None;
        }
        self.old
            .iter()
            .zip(&cand.slots)
            .filter(|(line, slot)| {
                line.kind == LineKind::Remove
                    && matches!(slot, Slot::Line(_, how) if *how != LineMatch::Exact)
            })
            .find_map(|(line, _)| {
                skipped
                    .iter()
                    .copied()
                    .find(|&k| self.keys.compare(Tier::Exact, k, line) == LineMatch::Exact)
            })
    }

    /// A removed line next (in the hunk) to a kept line of the same text,
    /// the two matched to file lines with a line the match leaves out
    /// between them: which copy goes, before or after that line, is a
    /// guess (rule 4 for removals). Lines with a word only: equal blank or
    /// bracket lines around an omitted line are where the alignment puts
    /// them. Returns the first line left out.
    fn copy_across_omitted(&self, cand: &Candidate) -> Option<usize> {
        let at = |i: usize| match cand.slots.get(i) {
            Some(Slot::Line(j, _)) => Some(*j),
            _ => None,
        };
        (1..self.old.len()).find_map(|i| {
            let (a, b) = (&self.old[i - 1], &self.old[i]);
            let one_removed = (a.kind == LineKind::Remove) != (b.kind == LineKind::Remove);
            let (ja, jb) = (at(i - 1)?, at(i)?);
            let worded = a.text.chars().any(char::is_alphanumeric);
            (one_removed && worded && a.text == b.text && jb > ja + 1).then_some(ja + 1)
        })
    }

    /// For a hunk that removes lines and adds none, with context holding a
    /// word: the first place, away from `cand`, where its context (its new
    /// side) stands byte for byte as one block. There the hunk may stand
    /// applied already (its removed lines gone), which a lenient reading
    /// of its old side elsewhere cannot rule out (rule 7).
    fn deletion_done_elsewhere(&self, cand: &Candidate) -> Option<usize> {
        let lines = &self.hunk.lines;
        if lines.iter().any(|l| l.kind == LineKind::Add)
            || !lines.iter().any(|l| l.kind == LineKind::Remove)
        {
            return None;
        }
        let side = new_side(self.hunk);
        let first = side.first()?;
        if !side
            .iter()
            .any(|l| l.text.chars().any(char::is_alphanumeric))
        {
            return None;
        }
        let n = self.keys.len();
        let starts: Vec<usize> =
            match super::prefilter::lines_matching(self.keys, first, Tier::Exact) {
                Some(hits) => hits.to_vec(),
                None => (0..n).collect(),
            };
        contiguous(self.keys, &side, Tier::Exact, starts)
            .into_iter()
            .map(|c| (c.start, c.end))
            .find(|&(start, end)| end <= cand.start || start >= cand.end)
            .map(|(start, _)| start)
    }

    /// Tries each tier in turn, up to the options' last.
    // The evidence found on the way (stale sites, where the new side stands)
    // flows from one tier to the next within this loop, which is why it is
    // one function.
    fn climb(&self) -> Result<Located, Failure> {
        let Ladder {
            keys,
            old,
            hints,
            options,
            ..
        } = *self;
        let n = keys.len();
        // Where the hunk's context stands exactly with its removed lines gone
        // (found before the tiers that forgive context).
        // (Several such places, without a line number to choose, are each a
        // place the file changed; a lenient match elsewhere is a look-alike.)
        let mut stale: Vec<Range<usize>> = Vec::new();
        // Where the new side stands, found before any tier lenient enough to
        // take the applied state for the old one (an added line for an omitted
        // file line, a case fix for a case drift). Even where no hint points, a
        // lenient reading of the old side at the same lines is the applied
        // state read again, and one elsewhere is a second reading.
        let mut new_side: Option<NewSideFound> = None;
        // Where the strictest tier that found candidates after an anchor
        // found them only past the block the anchor opens.
        let mut beyond: Vec<usize> = Vec::new();
        // Old lines without a word (brackets, punctuation, blank lines) tell a
        // place only byte for byte: with any tolerance, `}` reads as `};` or as
        // the `}` of another block.
        let wordless = old
            .iter()
            .all(|l| !l.text.chars().any(char::is_alphanumeric));
        for tier in Tier::LADDER {
            if tier > options.max_tier || (tier > Tier::Exact && wordless) {
                break;
            }
            if tier == Tier::Structural {
                stale = diagnose::stale_sites(keys, old, hints);
                let one = match stale.as_slice() {
                    [site] => Some(site),
                    _ => None,
                };
                new_side = self.new_side_at(one);
            }
            if tier == Tier::Similarity && !stale.is_empty() {
                return self.stale_or_applied(&stale);
            }
            let mut cands = search_tier(keys, old, tier, hints, options);
            // A lenient match away from where the context stands exactly is a
            // look-alike block: it must not be edited instead.
            if !stale.is_empty() {
                cands.retain(|c| {
                    stale
                        .iter()
                        .any(|site| c.start < site.end && site.start < c.end.max(c.start + 1))
                });
                if cands.is_empty() {
                    return self.stale_or_applied(&stale);
                }
            }
            if cands.is_empty() {
                continue;
            }
            // Whitespace and case forgiven, the old side found may be a look-alike
            // of the applied state's lines elsewhere: where the new side stands,
            // the two readings are weighed as in the tiers after (rule 7).
            if matches!(tier, Tier::Resilient | Tier::Fuzzy) && new_side.is_none() {
                new_side = self.new_side_at(None);
            }
            match choose(&cands, hints, n) {
                // A stricter tier's candidate past the anchor's block and a
                // lenient one inside it: two readings (rule 1).
                Choice::One(c)
                    if !beyond.is_empty() && !new_side.as_ref().is_some_and(|f| f.hinted) =>
                {
                    return Err(self.past_anchor_block(&beyond, Some((tier, cands[c].start))));
                }
                Choice::One(c) => {
                    if let Some(failure) =
                        heading_veto(keys, self.hunk, self.index, hints, &cands, c)
                    {
                        return Err(failure);
                    }
                    return self.settle(tier, cands.swap_remove(c), &new_side);
                }
                Choice::Nothing => {
                    if beyond.is_empty() {
                        beyond = hints.past_anchor_scope(cands.iter().map(|c| c.start));
                    }
                    continue;
                }
                Choice::Ambiguous(starts) => return self.tie(tier, cands, &starts, &new_side),
            }
        }
        self.nothing_placed(&stale, new_side, &beyond, wordless)
    }

    /// Candidates `cands` of `tier` that nothing separates (first lines
    /// `starts`): the k-th of k identical hunks takes the k-th place,
    /// otherwise the hunk is ambiguous.
    fn tie(
        &self,
        tier: Tier,
        mut cands: Vec<Candidate>,
        starts: &[usize],
        new_side: &Option<NewSideFound>,
    ) -> Result<Located, Failure> {
        if let Some(pick) = in_order_pick(self.hunks, self.index, starts)
            && let Some(c) = cands.iter().position(|c| c.start == pick)
        {
            return self.settle(tier, cands.swap_remove(c), new_side);
        }
        let score = cands.first().map_or(1.0, |c| c.similarity);
        let why = self.anchor_readings(starts).or_else(|| {
            hints_disagree(&cands, starts, self.hints).then(|| {
                let list: Vec<String> = starts.iter().map(|s| (s + 1).to_string()).collect();
                format!(
                    "the hunk matches {} places equally well (lines {}) and its line numbers point at different ones (the header's old start, its new start less what the hunks before add and remove, or the offset the hunks before were found at); fix the numbers or add context",
                    starts.len(),
                    list.join(", ")
                )
            })
        });
        Err(ambiguous(self.index, starts, Some((tier, score)), why))
    }

    /// Why `starts` are two readings when the innermost `@@` anchor stands
    /// in several places and the hunk follows each (`None` otherwise).
    fn anchor_readings(&self, starts: &[usize]) -> Option<String> {
        let anchors = self.hints.anchors.as_ref().filter(|a| a.len() > 1)?.lines();
        let name = self.hunk.anchors.last()?;
        let lines = |v: &[usize]| {
            v.iter()
                .map(|l| (l + 1).to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let outer = if self.hunk.anchors.len() > 1 {
            " (in the block the anchor before it opens, exactly or with tolerance, and exactly past that block)"
        } else {
            ""
        };
        Some(format!(
            "the `@@ {name}` anchor stands at lines {}{outer}, and the hunk follows each of them (lines {}): name a more specific anchor",
            lines(anchors),
            lines(starts)
        ))
    }

    /// The hunk stands after its `@@` anchor only past the end of the block
    /// the anchor opens (`beyond`), and perhaps with more tolerance inside
    /// it (`inside`: tier and first line): the anchor and the content point
    /// at different places.
    fn past_anchor_block(&self, beyond: &[usize], inside: Option<(Tier, usize)>) -> Failure {
        let first = beyond.first().copied().unwrap_or(0);
        let (anchor, end) = self
            .hints
            .anchors
            .as_ref()
            .and_then(|a| a.last_at_or_before(first))
            .unwrap_or((0, first));
        let name = self.hunk.anchors.last().map_or("", String::as_str);
        let also = inside.map_or(String::new(), |(tier, at)| {
            format!(
                ", and inside it only with more tolerance ({}) at line {}",
                tier.name(),
                at + 1
            )
        });
        let why = format!(
            "the hunk stands at line {} after the `@@ {name}` anchor, but past the end of the block that anchor opens (lines {}-{}){also}: the anchor and the content point at different places",
            first + 1,
            anchor + 1,
            end,
        );
        let mut starts: Vec<usize> = beyond.to_vec();
        starts.push(inside.map_or(anchor, |(_, at)| at));
        starts.sort_unstable();
        starts.dedup();
        ambiguous(self.index, &starts, None, Some(why))
    }

    /// No tier placed the hunk (`stale`, `new_side`, `beyond` and `wordless`
    /// as the climb left them): a stale site, the new side where a hint points, or
    /// the reason nothing was found.
    fn nothing_placed(
        &self,
        stale: &[Range<usize>],
        mut new_side: Option<NewSideFound>,
        beyond: &[usize],
        wordless: bool,
    ) -> Result<Located, Failure> {
        if !stale.is_empty() {
            return self.stale_or_applied(stale);
        }
        // The structural tier looked already (with no stale site, as here),
        // unless the ladder stopped before it.
        if self.options.max_tier < Tier::Structural || wordless {
            new_side = self.new_side_at(None);
        }
        if let Some(found) = new_side.filter(|found| found.hinted) {
            return Ok(found.loc);
        }
        if !beyond.is_empty() {
            return Err(self.past_anchor_block(beyond, None));
        }
        if wordless {
            return Err(failure(
                self.index,
                Reason::ContextNotFound,
                "the hunk's old lines hold no word (brackets, punctuation or blank lines only) and stand nowhere byte for byte: such lines tell a place only exactly; give context with a word in it".to_string(),
            ));
        }
        Err(diagnose::diagnose(
            self.keys,
            self.old,
            self.index,
            self.hints,
            self.options,
        ))
    }
}

/// The new side stands at `done` and a lenient tier read the old side at
/// `cand`: the same place seen both ways (the applied state read as the
/// old one with tolerance, on the new side's lines or some of them, as
/// when a blank context line at the hunk's edge is dropped) means done;
/// two places are two readings. A new side standing in several places is
/// two readings wherever the old side is read: which copy is the applied
/// one is unknown.
fn done_or_ambiguous(
    index: usize,
    found: &NewSideFound,
    cand: &Candidate,
) -> Result<Located, Failure> {
    let done = &found.loc;
    if found.others.is_empty() && !found.unsure && done.start <= cand.start && cand.end <= done.end
    {
        return Ok(done.clone());
    }
    let mut stands: Vec<usize> = std::iter::once(done.start)
        .chain(found.others.iter().copied())
        .collect();
    stands.sort_unstable();
    let at = stands
        .iter()
        .map(|s| (s + 1).to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let line = if stands.len() == 1 { "line" } else { "lines" };
    let mut starts = stands;
    starts.push(cand.start);
    starts.sort_unstable();
    starts.dedup();
    let unsure = if found.unsure {
        " (its added lines, blank or brackets only, could have been there before)"
    } else {
        ""
    };
    let why = format!(
        "the hunk's new lines already stand at {line} {at}{unsure}, while its old lines match with tolerance at line {}: already applied, or to be applied there?",
        cand.start + 1
    );
    Err(ambiguous(index, &starts, None, Some(why)))
}
