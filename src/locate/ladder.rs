//! The tier ladder for one hunk: what the patch says about its place, the
//! exact match near that, then each tier in turn. The evidence gathered on
//! the way (the stale sites, where the new side stands) flows from one tier
//! to the next and into the decision after the last, so the climb is one
//! function; what it asks at each step is a method of [`Ladder`].

use super::accept;
use super::anchors::resolve_anchors;
use super::applied::{self, NewSideFound, already_applied, place_pure_addition};
use super::choose::{Choice, Hints, choose, hints_contradict, points_among};
use super::closeness;
use super::decide;
use super::diagnose;
use super::done_or_not::done_or_ambiguous;
use super::evidence;
use super::keys::{FileKeys, OldLine};
use super::numbered::AdditionEvidence;
use super::scope;
use super::search::Candidate;
use super::twins::in_order_pick;
use super::{
    Failure, FileState, HunkStatus, Located, MatchOptions, Reason, Tier, ambiguous,
    exact_near_hint, failure, fixed, hint_line, search_tier,
};
use crate::model::Hunk;
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
        new_side_line: evidence::new_side_old_start(hunk, state.written_delta(hunks, index))
            .or_else(|| evidence::end_line_old_start(hunk))
            .and_then(|l| hint_line(l, 0, n)),
        view_line: hunk.view_start.and_then(|l| hint_line(l, 0, n)),
        // Within one diff a wrong new start is a model's slip (hunks out of
        // file order); across diffs for the file it is the series' count.
        new_side_point: (hunk.old_len() == 0 && hunks[1..=index].iter().any(|h| h.starts_section))
            .then(|| evidence::new_side_point(hunk, state.written_delta(hunks, index)))
            .flatten(),
        anchors,
        at_eof: hunk.at_eof,
        ends_file: hunk.old_missing_newline && !keys.source().has_final_newline(),
        pins: state.pins.clone(),
    })
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
    let old = keys.old_side(hunk);
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
    if let Some(found) = exact_near_hint(keys, index, hunk, &old, &hints, state) {
        return ladder.accept(Tier::Exact, found);
    }
    let loc = ladder.climb()?;
    match scope::consumed_anchor_refusal(keys, (index, hunk), &old, state, &loc) {
        Some(refusal) => Err(refusal),
        None => Ok(loc),
    }
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
        let proposal = super::proposal::Proposal {
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

    /// Where the new side stands (rule 7's reading), and whether the
    /// applied state tells there: it stands nowhere else and an added
    /// line has a word.
    fn new_side_tells(&self) -> Option<(bool, Located)> {
        let found = self.new_side_at(None)?;
        Some((found.others.is_empty() && !found.unsure, found.loc))
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

    /// [`Ladder::stale_or_applied`] when `tier` also read the old side, with
    /// tolerance, at `lenient` (first lines) away from every site: a site
    /// found done there is one reading and the old side standing elsewhere
    /// another (which of the two the file drifted at cannot be told), so
    /// the hunk is `ambiguous` rather than already applied.
    fn stale_or_applied_beside(
        &self,
        stale: &[Range<usize>],
        tier: Tier,
        lenient: &[usize],
    ) -> Result<Located, Failure> {
        let result = self.stale_or_applied(stale);
        let done = match result {
            Ok(done) => done,
            // A stale site turned the lenient places away: each is still a
            // place the hunk stands (against an in-order reading, say).
            Err(mut failure) if failure.reason == Reason::StaleRemovedLine => {
                failure.candidates = lenient.iter().map(|c| c + 1).collect();
                return Err(failure);
            }
            Err(failure) => return Err(failure),
        };
        let result: Result<Located, Failure> = Ok(done.clone());
        let done = &done;
        // A place the patch's hints rule out is no reading: outside the
        // anchor's block, or where no number points rather than at the
        // place found done.
        let places = [done.start];
        let hints = self.hints;
        let away: Vec<usize> = lenient
            .iter()
            .copied()
            .filter(|&c| {
                !stale
                    .iter()
                    .any(|s| s.start <= c && c < s.end.max(s.start + 1))
            })
            .filter(|&c| hints.anchors.as_ref().is_none_or(|a| a.reach(None, c)))
            .filter(|&c| {
                let mut both = places.to_vec();
                both.push(c);
                both.sort_unstable();
                hints.lines().next().is_none()
                    || hints
                        .lines()
                        .any(|line| points_among(&both, line) == Some(c))
            })
            .collect();
        match result {
            Ok(done) if done.status == HunkStatus::AlreadyApplied && !away.is_empty() => {
                let mut starts = away.clone();
                starts.push(done.start);
                starts.sort_unstable();
                starts.dedup();
                let why = format!(
                    "the hunk's new lines stand at line {} (its context exact, its removed lines gone), while its old lines stand at line {} read with tolerance ({}): already applied, or to be applied there?",
                    done.start + 1,
                    away[0] + 1,
                    tier.name()
                );
                Err(ambiguous(self.index, &starts, None, Some(why)))
            }
            other => other,
        }
    }

    /// Takes `cand`, found by `tier`, unless the new side stands somewhere
    /// (`new_side`, or read with the same tolerance past the resilient
    /// tier): then the two readings are weighed.
    /// Takes candidate `c` of `cands`, the one `choose` picked, unless the
    /// section heading names another of them (`evidence::heading_veto`).
    fn take(
        &self,
        tier: Tier,
        mut cands: Vec<Candidate>,
        c: usize,
        new_side: &Option<NewSideFound>,
    ) -> Result<Located, Failure> {
        let veto = evidence::heading_veto(self.keys, self.hunk, self.index, self.hints, &cands, c)
            .or_else(|| {
                evidence::whitespace_veto(self.keys, self.old, self.index, self.hints, &cands, c)
            })
            .or_else(|| {
                closeness::closeness_veto(self.keys, self.old, self.index, self.hints, &cands, c)
            });
        match veto {
            Some(failure) => Err(failure),
            None => {
                let hints = self.hints;
                if hints.pins.is_empty() && hints.anchors.is_none() && !hints.at_eof {
                    self.state.note_tie(self.index, &cands, c);
                }
                self.settle(tier, cands.swap_remove(c), new_side)
            }
        }
    }

    fn settle(
        &self,
        tier: Tier,
        cand: Candidate,
        new_side: &Option<NewSideFound>,
    ) -> Result<Located, Failure> {
        let at = (self.hunk, self.index);
        if let Some(failure) =
            evidence::removal_readings(self.keys, at, self.old, self.hints, tier, &cand)
        {
            return Err(failure);
        }
        let hints = self.hints;
        if new_side.is_none()
            && hints.at_eof
            && !hints.pins.contains(cand.start)
            && let Some(result) =
                scope::done_at_end_of_file(self.keys, at, &cand, || self.new_side_tells())
        {
            return result;
        }
        match new_side {
            Some(found) => done_or_ambiguous(self.index, found, (tier, &cand)),
            None if tier > Tier::Resilient => {
                let read = applied::new_side_read_leniently(
                    self.keys,
                    self.hunk,
                    tier,
                    self.hints,
                    self.state,
                    self.options,
                    &cand,
                );
                match decide::lenient_done(self.index, tier, &read, &cand) {
                    Some(result) => result,
                    None => self.accept(tier, cand),
                }
            }
            None => self.accept(tier, cand),
        }
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
            // Where the context stands byte for byte with the removed
            // lines changed, a whitespace- or case-tolerant match elsewhere
            // that no number points at is a look-alike (rule 5).
            if tier == Tier::Resilient {
                stale = diagnose::stale_sites(keys, old, hints);
                stale.retain(|site| diagnose::context_exact_at(keys, old, site));
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
            if !stale.is_empty() && (tier >= Tier::Structural || !cands.is_empty()) {
                let lenient: Vec<usize> = cands.iter().map(|c| c.start).collect();
                diagnose::keep_beside_stale((self.old, self.hints), tier, &mut cands, &stale);
                if cands.is_empty() {
                    return self.stale_or_applied_beside(&stale, tier, &lenient);
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
            // Old lines without a word stand byte for byte wherever such a
            // line does (a blank line another hunk added): a worded new side
            // standing elsewhere is weighed against them the same way.
            if tier == Tier::Exact && wordless && new_side.is_none() {
                new_side = self.new_side_at(None).filter(|found| !found.unsure);
            }
            match choose(&cands, hints, n) {
                // A stricter tier's candidate past the anchor's block and a
                // lenient one inside it: two readings (rule 1).
                Choice::One(c)
                    if !beyond.is_empty() && !new_side.as_ref().is_some_and(|f| f.hinted) =>
                {
                    return Err(self.past_anchor_block(&beyond, Some((tier, cands[c].start))));
                }
                Choice::One(c) => return self.take(tier, cands, c, &new_side),
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
        if let Some(pick) = in_order_pick(self.hunks, self.index, starts, &self.state.twins)
            && let Some(c) = cands.iter().position(|c| c.start == pick)
        {
            return self.settle(tier, cands.swap_remove(c), new_side);
        }
        let hints = self.hints;
        if new_side.is_none()
            && hints.at_eof
            && !starts.iter().any(|&s| hints.pins.contains(s))
            && let Some(done) = scope::done_at_end_of_file_beside_twins(
                self.keys,
                (self.hunk, self.index),
                &cands,
                || self.new_side_tells(),
            )
        {
            return Ok(done);
        }
        let score = cands.first().map_or(1.0, |c| c.similarity);
        let why = self
            .anchor_readings(starts)
            .or_else(|| hints_contradict(&cands, starts, self.hints));
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
            // The number points exactly at the hunk's context standing with
            // its removed lines changed: stale there, not done elsewhere.
            if let Some(p) = self
                .hints
                .lines()
                .find(|&p| p != found.loc.start && evidence::stale_at(self.keys, self.old, p))
            {
                let site = p..p + self.old.len();
                return Err(diagnose::stale_failure(
                    self.keys, self.old, self.index, site,
                ));
            }
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
