//! The last word on the candidate the ladder chose: it is accepted only when
//! no other evidence contradicts it (rules 1-15 of "One placement decision"
//! in `docs/matching.md`). Each check names the other reading it found; the
//! first one that finds one refuses the hunk.

use super::applied;
use super::around::{self, AppliedAround};
use super::blank_edge;
use super::carried;
use super::deletion;
use super::footprint::Footprint;
use super::overhang::{self, Kept};
use super::proposal::{Proposal, two_places};
use super::search::{Candidate, Slot};
use super::{
    Located, Reason, Tier, ambiguous, decide, evidence, failure, fixed, indent, insertion, located,
    similarity_range,
};
use crate::locate::{Failure, HunkStatus};
use crate::model::LineKind;

/// Accepts `cand` as the hunk's place, reads it as already applied, or
/// refuses it naming the other reading.
pub(super) fn accept(p: &Proposal, mut cand: Candidate) -> Result<Located, Failure> {
    no_overlap(p, &cand)?;
    if p.hints.pins.is_empty() {
        no_rival_place(p, &cand)?;
        no_exact_place_without_blank_edge(p, &cand)?;
    }
    match overhang::kept_before_additions(p.hunk, p.old, &cand) {
        Kept::Dropped => {}
        Kept::Written(slots) => {
            cand.slots = slots;
            let norms = &mut cand.normalizations;
            if !cand.slots.contains(&Slot::Overhang) {
                norms.retain(|n| *n != super::Normalization::EofOverhang);
            }
            if !norms.contains(&super::Normalization::BlankAsAddition) {
                norms.push(super::Normalization::BlankAsAddition);
            }
            no_overlap(p, &cand)?;
        }
        Kept::Refused(k) => {
            let why = format!(
                "the hunk's context line `{}` stands past the end of the file (the file ends at line {}), and the hunk adds lines after it: they would follow a line the file does not have; give context the file has",
                p.old[k].text.trim(),
                p.keys.len()
            );
            return Err(Failure {
                candidates: vec![cand.start + 1],
                ..failure(p.index, Reason::ContextNotFound, why)
            });
        }
    }
    no_added_lines_beside_dropped_blank_edge(p, &cand)?;
    if let Some(done) = applied_around(p, &cand)? {
        return Ok(done);
    }
    if p.hints.pins.is_empty() {
        not_done_where_numbered(p, &cand, false)?;
        // The readings at the number with the hunks found done first (their
        // message names the number), then the number as written alone.
        super::at_number::applied_where_told(p, &cand)?;
        deletion::wordless_deletion_where_numbered(p, &cand)?;
        deletion::deletion_done_touching(p, &cand)?;
        not_done_where_numbered(p, &cand, true)?;
    }
    if let Some((i, k)) = super::evidence::dropped_line_removed(p.old, &cand) {
        let why = format!(
            "the match leaves out the hunk's context line `{}` (as one the file lacks, or paired with a line written differently), and removes the file's line {} that reads as it: the line to keep and the line to remove are one line here (removed already, or the last copy?)",
            p.old[i].text.trim(),
            k + 1
        );
        return Err(ambiguous(p.index, &[cand.start], None, Some(why)));
    }
    carried::replaced_lines_read_exactly(p, &cand)?;
    insertion_has_one_place(p, &cand)?;
    Ok(located(p.index, p.hunk, p.tier, cand))
}

/// A lenient candidate read with the hunk's blank edge lines must not
/// stand against an exact place of the hunk without them (rule 15).
fn no_exact_place_without_blank_edge(p: &Proposal, cand: &Candidate) -> Result<(), Failure> {
    match blank_edge::exact_without_blank_edge(p.keys, p.old, p.tier, p.hints, cand) {
        Some(rival) => {
            let why = format!(
                "the hunk matches at line {} with tolerance ({}) and its blank first or last line, and byte for byte without that blank line at line {}: a blank edge line is no evidence against exact text; add a context line that tells them apart",
                cand.start + 1,
                p.tier.name(),
                rival + 1
            );
            Err(two_places(p.index, cand.start, rival, why))
        }
        None => Ok(()),
    }
}

/// A blank edge context line the match drops must not stand between the
/// lines matched and lines the hunk adds ("Structural slack").
fn no_added_lines_beside_dropped_blank_edge(p: &Proposal, cand: &Candidate) -> Result<(), Failure> {
    match blank_edge::dropped_beside_additions(p.hunk, p.old, cand) {
        Some(_) => {
            let why = "the hunk keeps a blank line between its lines and the lines it adds, and the file has no blank line there: the added lines would be glued to a line the patch does not show; give context the file has".to_string();
            Err(Failure {
                candidates: vec![cand.start + 1],
                ..failure(p.index, Reason::ContextNotFound, why)
            })
        }
        None => Ok(()),
    }
}

/// The place where the hunk would go, then the one where it may stand
/// already (one place when they are the same).
fn here_or_done(index: usize, a: usize, b: usize, why: String) -> Failure {
    let mut starts = vec![a, b];
    starts.dedup();
    ambiguous(index, &starts, None, Some(why))
}

/// The candidate must not change lines an earlier hunk of the file changes.
fn no_overlap(p: &Proposal, cand: &Candidate) -> Result<(), Failure> {
    let footprint = Footprint::of(p.hunk, cand.start, cand.end, &cand.slots);
    match p.state.overlapping(&footprint) {
        // The tier of the place is kept: one found with tolerance may still
        // read in order on what the earlier hunk wrote (`plan::sequence`).
        Some(other) => Err(Failure {
            tie: Some((p.tier, 1.0)),
            ..failure(
                p.index,
                Reason::Overlap,
                format!(
                    "the hunk's place (lines {}-{}) overlaps hunk {}",
                    cand.start + 1,
                    cand.end.max(cand.start + 1),
                    other + 1
                ),
            )
        }),
        None => Ok(()),
    }
}

/// Another place the evidence supports as well (rules 1, 11 and the
/// closing-bracket rule): a place the hints point at, a drifted twin the
/// numbers do not rule out, a place the bracket rule alone turned away, a
/// similarity reading against a structural one. Skipped when the user
/// pinned the hunk with `--at`.
// Over 80 lines: one flat sequence of independent checks, each a few lines.
fn no_rival_place(p: &Proposal, cand: &Candidate) -> Result<(), Failure> {
    let (keys, old, tier) = (p.keys, p.old, p.tier);
    let at = cand.start + 1;
    if tier == Tier::Exact
        && let Some(site) = super::evidence::stale_where_numbered(keys, p.hunk, old, p.hints, cand)
    {
        let why = format!(
            "the hunk's context stands byte for byte at line {}, where its line number points, with its removed lines changed there since, and its old lines stand at line {at}: stale where the number points, or meant for line {at}? check which one is meant",
            site + 1
        );
        return Err(two_places(p.index, cand.start, site, why));
    }
    if tier == Tier::Exact
        && let Some(site) =
            super::evidence::drifted_where_numbered(keys, p.hunk, old, p.hints, cand)
    {
        let why = format!(
            "the hunk stands at line {}, where its line number points, but for one change of the file there since (a context line grown or cut at its end, or a line inserted between two of its lines), and it stands exactly at line {at}: changed where the number points, or meant for line {at}? check which one is meant",
            site + 1
        );
        return Err(two_places(p.index, cand.start, site, why));
    }
    if let Some(rival) = decide::hinted_rival(keys, old, tier, cand, p.hints, p.options) {
        let why = format!(
            "the hunk matches at line {at} ({}), but what the patch says about its place (line number, anchor or end of file) points at line {}, where it matches only with more tolerance; check which one is meant",
            tier.name(),
            rival + 1
        );
        return Err(two_places(p.index, cand.start, rival, why));
    }
    if p.hints.at_eof
        && let Some(rival) = super::scope::end_of_file_rival(keys, old, cand)
    {
        let why = format!(
            "the hunk matches at line {at} ({}), but it is marked `*** End of File` and its lines also stand at the end of the file from line {}, with a file line left out: check which one is meant",
            tier.name(),
            rival + 1
        );
        return Err(two_places(p.index, cand.start, rival, why));
    }
    if p.hunk.line_hint.is_some()
        && let Some(twin) = decide::unvouched_twin(keys, old, tier, cand, p.hints, p.options)
    {
        let why = format!(
            "the hunk matches at line {at} ({}) and, with more tolerance, at line {}; its line number points at neither, so nothing says which one is meant",
            tier.name(),
            twin + 1
        );
        return Err(two_places(p.index, cand.start, twin, why));
    }
    if tier > Tier::Exact
        && let Some(rival) = decide::bracket_rival(keys, old, tier, cand)
    {
        let why = format!(
            "the hunk matches at line {at} ({}) and, with less tolerance or more lines byte for byte but a closing bracket indented unlike the lines around it, at line {}: which block ends there is unclear; give the bracket's indentation as the file has it",
            tier.name(),
            rival + 1
        );
        return Err(two_places(p.index, cand.start, rival, why));
    }
    if tier == Tier::Structural
        && let Some((rival, why)) = overhang::doubt(keys, old, cand)
    {
        return Err(two_places(p.index, cand.start, rival, why));
    }
    if tier == Tier::Structural
        && let Some(rival) = decide::similar_rival(
            keys,
            old,
            cand,
            similarity_range(p.hints, keys.len(), old.len(), p.options),
            p.options.similarity_threshold,
        )
    {
        let why = format!(
            "the hunk matches at line {at} with a line left out, and at line {} with a line written differently: nothing says which one is meant; give context the file has",
            rival + 1
        );
        return Err(two_places(p.index, cand.start, rival, why));
    }
    if tier == Tier::Similarity
        && let Some(there) = decide::paired_line_stands_elsewhere(keys, old, cand)
    {
        let why = format!(
            "the hunk matches at line {at} with a context line written differently, and that line stands as written (or only cut or respaced) at line {}: the patch may have been written from there; give context the file has",
            there + 1
        );
        return Err(two_places(p.index, cand.start, there, why));
    }
    Ok(())
}

/// The new side standing where the line number points while the old side
/// stands elsewhere, off the number (rule 7, at every tier): the hunk was
/// applied there, its old side standing twice before (a re-run must change
/// nothing), or it is to be applied at the twin. With `touching`, only a
/// new side that shares lines with `cand` at its edges (a blank line
/// between two blocks) while the lines `cand` removes lie outside it: asked
/// after the readings at the number, whose messages say more where the two
/// sides overlap.
fn not_done_where_numbered(p: &Proposal, cand: &Candidate, touching: bool) -> Result<(), Failure> {
    if p.hints.line.is_none_or(|line| line == cand.start) {
        return Ok(());
    }
    let found = applied::already_applied(p.keys, p.hunk, p.index, p.hints, p.state, None);
    let disjoint = |loc: &Located| loc.end <= cand.start || cand.end <= loc.start;
    let removed: Vec<usize> = p
        .old
        .iter()
        .zip(&cand.slots)
        .filter_map(|(l, s)| match s {
            Slot::Line(j, _) if l.kind == LineKind::Remove => Some(*j),
            _ => None,
        })
        .collect();
    let apart = |loc: &Located| {
        if touching {
            !disjoint(loc)
                && !removed.is_empty()
                && removed.iter().all(|j| !(loc.start..loc.end).contains(j))
        } else {
            disjoint(loc)
        }
    };
    match found {
        Some(found) if found.hinted && apart(&found.loc) => {
            let why = format!(
                "the hunk's new lines already stand at line {}, where its line number points, and its old lines stand at line {}: already applied, or to be applied there too?",
                found.loc.start + 1,
                cand.start + 1
            );
            Err(two_places(p.index, found.loc.start, cand.start, why))
        }
        _ if touching => Ok(()),
        _ => deletion::deletion_done_where_numbered(p, cand),
    }
}

/// The new side standing around the candidate (rule 7): done, or unsure
/// whether the blank or bracket lines it adds were there before.
fn applied_around(p: &Proposal, cand: &Candidate) -> Result<Option<Located>, Failure> {
    if p.tier > Tier::Fuzzy {
        return Ok(None);
    }
    let around = around::applied_at_candidate(p.keys, p.hunk, p.tier, p.hints, cand);
    // Lines another hunk of the patch changes are no applied state (rule
    // 7, as for the new side found where the hints point).
    let around = around.filter(|a| {
        let start = a.start();
        let span = start..start + p.keys.new_side(p.hunk).len();
        p.state.overlapping(&Footprint::unchanged(span)).is_none()
    });
    match around {
        Some(AppliedAround::Done(start)) => {
            let end = start + p.keys.new_side(p.hunk).len();
            let old = cand.start;
            let noted = around::DoneAround {
                index: p.index,
                start,
                old,
            };
            p.state.done_around.borrow_mut().push(noted);
            Ok(Some(Located {
                tier: Some(p.tier),
                ..fixed(p.index, start, end, HunkStatus::AlreadyApplied)
            }))
        }
        Some(AppliedAround::Reindented(start)) => {
            let why = format!(
                "the hunk's old lines stand byte for byte at line {}, and its new lines stand around them only with an added line indented otherwise (from line {}): the file's own line at another indentation, or the change made and re-indented since? add a line number, or context that tells",
                cand.start + 1,
                start + 1
            );
            Err(here_or_done(p.index, start, cand.start, why))
        }
        Some(AppliedAround::Repeats(start)) => {
            let why = format!(
                "the hunk's old lines stand byte for byte at line {}, where its number points, and its new lines stand there too (the lines it adds repeat the context after them): already applied, or to add another copy? the two look alike; add the line after the copies, or an `index` line",
                cand.start + 1
            );
            Err(here_or_done(p.index, start, cand.start, why))
        }
        Some(AppliedAround::Unsure(start)) => {
            let why = format!(
                "the hunk's old lines stand at line {}, and its new lines stand around them already; the lines it adds beyond those it removes (blank or brackets only, or copies of removed lines) could have been there before: already applied, or to be applied again?",
                cand.start + 1
            );
            Err(here_or_done(p.index, start, cand.start, why))
        }
        None => Ok(None),
    }
}

/// The added lines must have one place (rules 1, 1b, 6, 7 and 10): the
/// indentation must map, no omitted or displaced line may stand beside
/// them, and they must not stand there already when found with tolerance.
fn insertion_has_one_place(p: &Proposal, cand: &Candidate) -> Result<(), Failure> {
    let (keys, hunk, tier, index) = (p.keys, p.hunk, p.tier, p.index);
    let pairs = indent::pairs(hunk, &cand.slots, |j| keys.text(j));
    let place = (cand.start, cand.end, keys.len());
    let added = indent::AddedIndents::of(hunk, &pairs, || {
        indent::indents_around(place, |j| keys.text(j))
    });
    if let Some((line, mapped)) = added.unsettled(hunk) {
        let why = unsettled_why(line, mapped);
        // The old side stands here: a place turned away, not one never
        // found (an in-order reading elsewhere is a second reading).
        return Err(Failure {
            candidates: vec![cand.start + 1],
            ..failure(index, Reason::ContextNotFound, why)
        });
    }
    if let Some(gap) = insertion::unpinned_insertion(keys, hunk, cand) {
        let (lines, them) = if gap.len() > 1 {
            (format!("lines {}-{}", gap.start + 1, gap.end), "them")
        } else {
            (format!("line {}", gap.end), "it")
        };
        let why = format!(
            "the patch omits {lines} of the file right where it adds lines: the new lines could go before or after {them}; add what it omitted as context"
        );
        return Err(ambiguous(index, &[gap.start, gap.end], None, Some(why)));
    }
    if super::respaced::change_erased_by_map(keys, hunk, p.old, cand, &added) {
        let why = format!(
            "the hunk changes only whitespace, and its lines read at the file's indentation (as its context lines map theirs, from line {}) are the file's own: which indentation is meant? give the lines as the file has them",
            cand.start + 1
        );
        return Err(ambiguous(index, &[cand.start], None, Some(why)));
    }
    if tier > Tier::Exact
        && let Some(at) = insertion::added_run_in_place(keys, hunk, cand)
    {
        let why = format!(
            "the hunk's old lines match with tolerance at line {}, and its added lines already stand right where they would go (line {}): applied before, or to be added a second time?",
            cand.start + 1,
            at + 1
        );
        return Err(here_or_done(index, cand.start, at, why));
    }
    lines_left_out_stand_aside(p, cand)
}

/// The lenient tiers' part of [`insertion_has_one_place`]: a line the
/// structural or similarity match leaves out, or a context line it puts
/// elsewhere than the file has it, must not stand beside the added lines
/// (rules 1 and 1b: the change could go on either side of it).
fn lines_left_out_stand_aside(p: &Proposal, cand: &Candidate) -> Result<(), Failure> {
    let (keys, hunk, tier, index) = (p.keys, p.hunk, p.tier, p.index);
    if tier >= Tier::Structural
        && let Some(gap) = insertion::displaced_neighbour(keys, hunk, cand)
    {
        let why = format!(
            "a context line beside the added lines is not where the match puts it, but stands nearby (lines {}-{} lie between the two places): the new lines could go on either side of them; give context the file has",
            gap.start + 1,
            gap.end
        );
        return Err(ambiguous(index, &[gap.start, gap.end], None, Some(why)));
    }
    if tier >= Tier::Structural
        && let Some((i, k)) = evidence::dropped_line_stands_near(keys, p.old, cand)
    {
        let why = format!(
            "the match leaves out the hunk's context line `{}` as one the file lacks, but the file has it nearby (line {}), in another order: the change could go on either side of it; give context as the file has it",
            p.old[i].text.trim(),
            k + 1
        );
        return Err(ambiguous(index, &[cand.start, k], None, Some(why)));
    }
    if tier >= Tier::Structural
        && let Some(k) = skipped_line_is_added(keys, hunk, cand)
    {
        let why = format!(
            "the match skips file line {} as one the hunk does not quote, but the hunk adds that line: the change made already (and re-indented since?), or the file's own line; give context that tells",
            k + 1
        );
        return Err(ambiguous(index, &[cand.start, k], None, Some(why)));
    }
    if tier >= Tier::Structural
        && let Some(i) = dropped_beside_like_removed(p.old, cand)
    {
        let why = format!(
            "the match leaves out the hunk's context line `{}` as one the file lacks, next to a removed line like it: the line the file lacks may be the removed one (the change made already); give context that tells",
            p.old[i].text.trim()
        );
        return Err(ambiguous(index, &[cand.start], None, Some(why)));
    }
    if tier == Tier::Similarity
        && let Some(gap) = insertion::unanchored_edge(keys, hunk, cand)
    {
        let why = format!(
            "a context line at the edge of the hunk is not in the file (the closest match pairs it with line {}), and the hunk adds lines beyond it: they could go before or after that line; give context the file has",
            gap.start + 1
        );
        return Err(failure(index, Reason::ContextNotFound, why));
    }
    Ok(())
}

/// The first file line (0-based) inside the match that no old line stands
/// on (a line the structural tier skipped) and that reads, at the fuzzy
/// level, as one of the hunk's added lines with a word in it: the skip
/// then reads the file as it stands after the change, and taking it writes
/// the change a second time (a `with lock:` nested under the one a first
/// run wrote, after a formatter re-indented the file).
fn skipped_line_is_added(
    keys: &super::keys::FileKeys,
    hunk: &crate::model::Hunk,
    cand: &Candidate,
) -> Option<usize> {
    let added: std::collections::HashSet<String> = hunk
        .lines
        .iter()
        .filter(|l| l.kind == LineKind::Add && l.text.chars().any(char::is_alphanumeric))
        .map(|l| super::normalize::fuzzy_key(&l.text))
        .collect();
    if added.is_empty() {
        return None;
    }
    cand.skipped_lines()
        .take_while(|&k| k < keys.len())
        .find(|&k| added.contains(keys.fuzzy(k).as_ref()))
}

/// The index of a context line the match drops as one the file lacks
/// while a removed line reading like it (at the fuzzy level) stands in the
/// same run of like lines: which of the two the file lacks is the match's
/// choice, and the reading that the file lacks the removed one is the
/// change made (a stray `}` deleted, then the block run again).
fn dropped_beside_like_removed(old: &[super::keys::OldLine], cand: &Candidate) -> Option<usize> {
    let dropped = |i: usize| cand.slots.get(i) == Some(&Slot::Dropped);
    (0..old.len()).filter(|&i| dropped(i)).find(|&i| {
        let key = old[i].fuzzy();
        let like = |j: &usize| old[*j].fuzzy() == key;
        let before = (0..i).rev().take_while(like);
        let after = (i + 1..old.len()).take_while(like);
        before.chain(after).any(|j| old[j].kind == LineKind::Remove)
    })
}

/// Why an added line's indentation is not settled (rule 6).
fn unsettled_why(line: &str, mapped: &indent::Mapped) -> String {
    let text = line.trim();
    let at = indent::describe(super::normalize::indentation(line));
    match mapped {
        indent::Mapped::Split(a, b) => format!(
            "the hunk indents alike two lines that the file indents differently (lines {} and {}), and adds a line at that indentation between them: the block's structure is not the file's",
            a + 1,
            b + 1
        ),
        indent::Mapped::Undetermined(readings) if readings.len() > 1 => {
            let list: Vec<String> = readings.iter().map(|r| indent::describe(r)).collect();
            format!(
                "the hunk's indentation is not the file's, and its matched lines do not say how the added line `{text}` ({at} in the patch) maps: it could be written with {}; give the lines at the file's indentation",
                list.join(" or ")
            )
        }
        indent::Mapped::OtherChar(file) => {
            let file = if *file == '\t' { "tabs" } else { "spaces" };
            format!(
                "the added line `{text}` is indented with {at}, but every indented line of the file near the place is indented with {file}, and no matched line says what the patch's indentation stands for there (its context is at column 0, or indented otherwise): write the added lines with the file's indentation, or give an indented line of the block as context"
            )
        }
        indent::Mapped::OffGrid(to) => format!(
            "the hunk's indentation is not the file's, and the map its matched lines give writes the added line `{text}` ({at} in the patch) with {}, between the file's own indentation steps nearby: one of its lines is likely mis-indented; give the lines at the file's indentation",
            indent::describe(to)
        ),
        _ => format!(
            "the hunk's indentation is not the file's, and no consistent mapping of its matched lines places the added line `{text}` ({at} in the patch); give the lines at the file's indentation"
        ),
    }
}
