//! Evidence of place that the tiers do not weigh by themselves: what a
//! numbered header says besides its old start (the new start, git's
//! section heading), and the readings a removal leaves open (a deletion
//! with nothing to show it applied, a removed line with an exact twin the
//! match leaves out, two copies around an omitted line). Each turns a
//! placement into `ambiguous`; none picks a place. See `docs/matching.md`,
//! rules 2, 4, 5 and 7. (Just over 600 lines since the s15 merge: the
//! stale and drifted readings at the number belong with these; a split
//! would cut them off the header evidence they share.)

use super::choose::{Hints, heading_contradicts, hinted_rivals, points_among};
use super::keys::{FileKeys, OldLine};
use super::normalize::LineMatch;
use super::search::{Candidate, Slot};
use super::{Failure, HunkStatus, Located, Tier, ambiguous, signed};
use crate::model::{Hunk, LineKind};

/// The readings a removal leaves open at `cand` (placed under `tier`):
/// `ambiguous` when the hunk's removed lines could be other lines, or
/// already gone elsewhere.
pub(super) fn removal_readings(
    keys: &FileKeys,
    (hunk, index): (&Hunk, usize),
    old: &[OldLine],
    hints: &Hints,
    tier: Tier,
    cand: &Candidate,
) -> Option<Failure> {
    let at = |starts: &[usize], why: String| Some(ambiguous(index, starts, None, Some(why)));
    let wordless = |l: &crate::model::HunkLine| {
        l.kind == LineKind::Context && !l.text.chars().any(char::is_alphanumeric)
    };
    if tier > Tier::Exact
        && hints.line.is_none_or(|line| line != cand.start)
        && hunk.lines.iter().any(|l| l.kind == LineKind::Remove)
        && hunk
            .lines
            .iter()
            .all(|l| l.kind == LineKind::Remove || wordless(l))
    {
        // A deletion with no context, or only context without a word (a
        // blank line), leaves no trace of having been applied: read with
        // tolerance here, and not where a line number says, its exact copy
        // may be the one a first run already deleted (rule 7; a re-run of
        // `-U0` output removing a line with trailing spaces found the twin
        // without them; a re-run of a block removing `Run make.` above a
        // blank line found `Run `make`.`).
        let context = if hunk.lines.iter().any(|l| l.kind == LineKind::Context) {
            "has no context with a word"
        } else {
            "has no context"
        };
        let number = if hints.line.is_some() {
            format!("{context}, its line number points elsewhere")
        } else {
            format!("{context} or line number")
        };
        return at(
            &[cand.start],
            format!(
                "the hunk only removes lines and {number}, and they stand here only read with tolerance ({}): an exact copy may have been deleted already; applied before, or to be applied here?",
                tier.name()
            ),
        );
    }
    if let Some(k) = removed_line_skipped(keys, old, cand) {
        return at(
            &[cand.start],
            format!(
                "the hunk removes a line read here with tolerance ({}) while line {} between its lines, left out as omitted, is that removed line exactly: which one goes?",
                tier.name(),
                k + 1
            ),
        );
    }
    if let Some(k) = copy_across_omitted(old, cand) {
        return at(
            &[cand.start],
            format!(
                "the hunk removes one of two equal lines that stand apart here, line {} left out as omitted between them: removing the one or the other gives different files",
                k + 1
            ),
        );
    }
    if tier > Tier::Exact
        && let Some(done) = super::deletion::deletion_done_elsewhere(keys, hunk, tier, cand, false)
    {
        let mut starts = vec![done, cand.start];
        starts.sort_unstable();
        return at(
            &starts,
            format!(
                "the hunk only removes lines, read here with tolerance ({}), and its context stands at line {} without them: already applied there, or to be applied here?",
                tier.name(),
                done + 1
            ),
        );
    }
    None
}

/// A context line the match does not read at a line like it (the
/// structural tier dropped it as one the file lacks, or the similarity
/// tier paired it with a line written differently) whose text (at the
/// fuzzy level, with a word) is that of a removed line the match pairs
/// with a file line: the file's one line stands for both, so the hunk
/// keeps and removes it at once (a re-run of "delete the duplicated
/// `import sys`" would delete the copy left, the kept line read as the
/// `import os` above it). Returns the context line's index and the file
/// line (0-based) removed.
pub(super) fn dropped_line_removed(old: &[OldLine], cand: &Candidate) -> Option<(usize, usize)> {
    old.iter()
        .zip(&cand.slots)
        .enumerate()
        .find_map(|(i, (line, slot))| {
            let unread = matches!(slot, Slot::Dropped | Slot::Line(_, LineMatch::No));
            if !unread
                || line.kind != LineKind::Context
                || !line.text.chars().any(char::is_alphanumeric)
            {
                return None;
            }
            old.iter().zip(&cand.slots).find_map(|(r, s)| match s {
                Slot::Line(k, _) if r.kind == LineKind::Remove && r.fuzzy() == line.fuzzy() => {
                    Some((i, *k))
                }
                _ => None,
            })
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

/// A candidate a line number points at, passed over for `one` only
/// because `one` has more byte-exact lines where the two differ in
/// whitespace alone: the extra exactness is invisible in the patch (a
/// trailing space, a tab for spaces), so it does not outrank the number
/// (rule 1): `ambiguous`. Sought only when a number points elsewhere.
pub(super) fn whitespace_veto(
    keys: &FileKeys,
    old: &[OldLine],
    index: usize,
    hints: &Hints,
    cands: &[Candidate],
    one: usize,
) -> Option<Failure> {
    if !hints.pins.is_empty() || hints.lines().next().is_none() {
        return None;
    }
    let chosen = &cands[one];
    let plain_chosen = plain_lines(keys, old, chosen);
    let rival = hinted_rivals(cands, hints, one).into_iter().find(|&r| {
        cands[r].exact < chosen.exact && plain_lines(keys, old, &cands[r]) >= plain_chosen
    })?;
    let mut starts = vec![chosen.start, cands[rival].start];
    starts.sort_unstable();
    let why = format!(
        "the hunk matches lines {} and {} alike but for whitespace; its line number points at line {}, and the other has more lines equal byte for byte, which whitespace alone does not settle; fix the number or add context",
        starts[0] + 1,
        starts[1] + 1,
        cands[rival].start + 1
    );
    Some(ambiguous(index, &starts, None, Some(why)))
}

/// Old lines `cand` matches byte for byte or up to whitespace.
fn plain_lines(keys: &FileKeys, old: &[OldLine], cand: &Candidate) -> usize {
    let squash = |s: &str| -> String { s.chars().filter(|c| !c.is_whitespace()).collect() };
    old.iter()
        .zip(&cand.slots)
        .filter(|(line, slot)| match slot {
            Slot::Line(_, LineMatch::Exact) => true,
            Slot::Line(j, LineMatch::Normalized) => squash(&keys.text(*j)) == squash(line.text),
            _ => false,
        })
        .count()
}

/// A context line the structural tier dropped as one the file lacks,
/// while its text (at the fuzzy level, with a word) stands near the match
/// at a file line the match does not use: the file has the line, in
/// another order than the patch, so the drop and a reading that skips the
/// lines between put the change in different places (rule 1). Returns the
/// old line's index and the file line (0-based) where it stands.
pub(super) fn dropped_line_stands_near(
    keys: &FileKeys,
    old: &[OldLine],
    cand: &Candidate,
) -> Option<(usize, usize)> {
    let used: std::collections::HashSet<usize> = cand
        .slots
        .iter()
        .filter_map(|s| match s {
            Slot::Line(j, _) => Some(*j),
            _ => None,
        })
        .collect();
    let window = old.len() + 2;
    let lo = cand.start.saturating_sub(window);
    let hi = (cand.end.max(cand.start + 1) + window).min(keys.len());
    old.iter()
        .zip(&cand.slots)
        .enumerate()
        .find_map(|(i, (line, slot))| {
            if *slot != Slot::Dropped || !line.text.chars().any(char::is_alphanumeric) {
                return None;
            }
            (lo..hi)
                .find(|&k| !used.contains(&k) && keys.fuzzy(k) == line.fuzzy())
                .map(|k| (i, k))
        })
}

/// A hunk placed on one of several equally good candidates because its
/// line number pointed at it.
#[derive(Debug)]
pub(super) struct SettledTie {
    /// The hunk's index in the file's hunks.
    pub index: usize,
    /// First line (0-based) of the candidate taken.
    pub chosen: usize,
    /// First lines (0-based) of every equally good candidate, sorted.
    pub starts: Vec<usize>,
}

/// The 0-based line a hunk's line number names (`-a,0` inserts after line
/// `a`, so a pure addition's is `a` itself).
pub(super) fn expected_line(hunk: &Hunk) -> Option<usize> {
    let hint = hunk.line_hint?;
    Some(if hunk.old_len() == 0 {
        hint
    } else {
        hint.saturating_sub(1)
    })
}

/// Weighs each tie a line number settled against the offset the next hunk
/// of its section was found at (rule 2, read backwards): when that offset,
/// applied to the tied hunk's number, points at another of its candidates,
/// the numbers say two things and the hunk is `ambiguous`. The offset of
/// the hunk before is weighed as the hunk is placed; this is the same
/// evidence learnt later. Only a hunk placed afresh and not itself settled
/// by a tie teaches an offset.
pub(super) fn later_offsets_against_ties(
    hunks: &[Hunk],
    results: &mut [Result<Located, Failure>],
    ties: &[SettledTie],
) {
    let tied: std::collections::HashSet<usize> = ties.iter().map(|t| t.index).collect();
    for tie in ties {
        let placed_there = matches!(&results[tie.index], Ok(loc) if loc.start == tie.chosen);
        let Some(expected) = expected_line(&hunks[tie.index]).filter(|_| placed_there) else {
            continue;
        };
        let teacher = (tie.index + 1..hunks.len())
            .take_while(|&j| !hunks[j].starts_section)
            .find_map(|j| match &results[j] {
                Ok(loc) if loc.status == HunkStatus::Applied && !tied.contains(&j) => {
                    Some((j, loc.start, expected_line(&hunks[j])?))
                }
                _ => None,
            });
        let Some((j, start, its_line)) = teacher else {
            continue;
        };
        let offset = signed(start) - signed(its_line);
        let Some(line) = usize::try_from(signed(expected).saturating_add(offset)).ok() else {
            continue;
        };
        match points_among(&tie.starts, line) {
            Some(other) if other != tie.chosen => {
                let list: Vec<String> = tie.starts.iter().map(|s| (s + 1).to_string()).collect();
                let why = format!(
                    "the hunk matches {} places equally well (lines {}); its line number points at line {}, and the offset hunk {} was found at ({offset:+}) points at line {}; fix the numbers or add context",
                    tie.starts.len(),
                    list.join(", "),
                    tie.chosen + 1,
                    j + 1,
                    other + 1
                );
                results[tie.index] = Err(ambiguous(tie.index, &tie.starts, None, Some(why)));
            }
            _ => {}
        }
    }
}

/// The old start (1-based) that `hunk`'s new-side start `+c` implies: `c`
/// less `delta`, what the hunks before it (of every section for this file)
/// add and remove, as `git diff` numbers them, read the way the old start is
/// (`-a,0` inserts after line `a`, its new side starting at `a + 1`; `+c,0`
/// follows the line before the removed ones). Equal to the old start in a
/// header that is consistent with the hunks before it.
pub(super) fn new_side_old_start(hunk: &Hunk, delta: isize) -> Option<usize> {
    let c = hunk.new_start?;
    let start = match (hunk.old_len(), hunk.new_lines().count()) {
        (0, _) => c as isize - 1,
        (_, 0) => c as isize + 1,
        _ => c as isize,
    };
    usize::try_from(start - delta).ok()
}

/// For a hunk with no old lines, the line after which its new side's
/// start `+c` puts it: `c - 1` less `delta` (what the hunks before it, of
/// every section for this file, add and remove). Negative or past the
/// end of the file when the numbers name no point in it.
pub(super) fn new_side_point(hunk: &Hunk, delta: isize) -> Option<isize> {
    let c = isize::try_from(hunk.new_start?).ok()?;
    Some(c - 1 - delta)
}

/// The old start (1-based) that a Roo block's `:end_line:M` implies: `M`
/// less the old side's length, plus one (a one-line SEARCH starts and ends
/// on `M`). Numbered like `:start_line:`, in the file before the reply.
pub(super) fn end_line_old_start(hunk: &Hunk) -> Option<usize> {
    let end = hunk.end_hint?;
    (end + 1).checked_sub(hunk.old_len()).filter(|&s| s > 0)
}

/// A file line of `cand` that the match leaves out (omitted) and that
/// is, byte for byte, a removed line the match pairs with another file
/// line only with tolerance: two readings of which line the hunk
/// removes.
fn removed_line_skipped(keys: &FileKeys, old: &[OldLine], cand: &Candidate) -> Option<usize> {
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
    old.iter()
        .zip(&cand.slots)
        .filter(|(line, slot)| {
            line.kind == LineKind::Remove
                && matches!(slot, Slot::Line(_, how) if *how != LineMatch::Exact)
        })
        .find_map(|(line, _)| {
            skipped
                .iter()
                .copied()
                .find(|&k| keys.compare(Tier::Exact, k, line) == LineMatch::Exact)
        })
}

/// A removed line next (in the hunk) to a kept line of the same text,
/// the two matched to file lines with a line the match leaves out
/// between them: which copy goes, before or after that line, is a
/// guess (rule 4 for removals). Lines with a word only: equal blank or
/// bracket lines around an omitted line are where the alignment puts
/// them. Returns the first line left out.
fn copy_across_omitted(old: &[OldLine], cand: &Candidate) -> Option<usize> {
    let at = |i: usize| match cand.slots.get(i) {
        Some(Slot::Line(j, _)) => Some(*j),
        _ => None,
    };
    (1..old.len()).find_map(|i| {
        let (a, b) = (&old[i - 1], &old[i]);
        let one_removed = (a.kind == LineKind::Remove) != (b.kind == LineKind::Remove);
        let (ja, jb) = (at(i - 1)?, at(i)?);
        let worded = a.text.chars().any(char::is_alphanumeric);
        (one_removed && worded && a.text == b.text && jb > ja + 1).then_some(ja + 1)
    })
}

/// The first lines where a block of `old` with at most `differ` lines
/// written differently may stand: one of any `differ + 1` of its lines
/// matches there at the fuzzy level. Those lines' needle hits on an indexed
/// file, else a pass comparing only them.
pub(super) fn few_differing_starts(keys: &FileKeys, old: &[OldLine], differ: usize) -> Vec<usize> {
    let n = keys.len();
    let m = old.len();
    if m > n {
        return Vec::new();
    }
    // Lines with a word first (fewest hits), then any other non-blank
    // line. With fewer than `differ + 1` of them no start can be ruled
    // out, and scoring every start of a file past the scan limit is what
    // the limit is for: no rival is sought then (a documented bound).
    let worded = |i: &usize| old[*i].text.chars().any(char::is_alphanumeric);
    let mut probes: Vec<usize> = (0..m).filter(worded).collect();
    probes.extend((0..m).filter(|i| !worded(i) && !old[*i].blank));
    if probes.len() <= differ {
        return Vec::new();
    }
    probes.truncate(differ + 1);
    if keys.is_indexed() {
        let mut starts = Vec::new();
        for &i in &probes {
            let Some(hits) = super::prefilter::lines_matching(keys, &old[i], Tier::Fuzzy) else {
                // A line without a needle: the pass below compares it.
                return probe_pass(keys, old, &probes, n - m);
            };
            starts.extend(
                hits.iter()
                    .filter_map(|&h| h.checked_sub(i))
                    .filter(|&p| p + m <= n),
            );
        }
        starts.sort_unstable();
        starts.dedup();
        return starts;
    }
    probe_pass(keys, old, &probes, n - m)
}

/// The starts up to `last` where one of the old lines `probes` matches at
/// the fuzzy level.
fn probe_pass(keys: &FileKeys, old: &[OldLine], probes: &[usize], last: usize) -> Vec<usize> {
    (0..=last)
        .filter(|&p| {
            probes
                .iter()
                .any(|&i| keys.compare(Tier::Fuzzy, p + i, &old[i]) != LineMatch::No)
        })
        .collect()
}

/// Where the hunk's line number points exactly at its context standing byte
/// for byte with its removed lines changed (the same number of lines
/// between): the patch is stale there, where the number names, and an
/// exact match of the old side elsewhere (`cand`) is a look-alike as
/// likely as the meant place. Returns the first line of that stale site.
/// Only exact context counts, with a word in it, on both sides of the
/// removed lines, or on one side where git's section heading names the
/// site's block and not `cand`'s (number and heading agree on the site).
pub(super) fn stale_where_numbered(
    keys: &FileKeys,
    hunk: &Hunk,
    old: &[OldLine],
    hints: &Hints,
    cand: &Candidate,
) -> Option<usize> {
    let first = old.iter().position(|l| l.kind == LineKind::Remove)?;
    let last = old.iter().rposition(|l| l.kind == LineKind::Remove)?;
    let worded = |part: &[OldLine]| {
        part.iter()
            .any(|l| l.text.chars().any(char::is_alphanumeric))
    };
    let (above, below) = (worded(&old[..first]), worded(&old[last + 1..]));
    if !(above && below || (above || below) && !hunk.section.is_empty()) {
        return None;
    }
    let site = hints
        .lines()
        .find(|&line| line != cand.start && stale_at(keys, old, line))?;
    if above && below {
        return Some(site);
    }
    let blocks = section_blocks(keys, &hunk.section);
    let named = |line: usize| {
        blocks
            .iter()
            .any(|&(a, end)| super::scope::within(a, end, line))
    };
    (named(site) && !named(cand.start)).then_some(site)
}

/// True when the hunk's context lines stand byte for byte from file line
/// `p` on, one for one with its old side, at least one of them with a
/// word, while a removed line does not stand in its place (not even at
/// the fuzzy level): the file changed there since the patch was written.
pub(super) fn stale_at(keys: &FileKeys, old: &[OldLine], p: usize) -> bool {
    p + old.len() <= keys.len()
        && old
            .iter()
            .any(|l| l.kind == LineKind::Context && l.text.chars().any(char::is_alphanumeric))
        && old.iter().enumerate().all(|(i, l)| {
            l.kind == LineKind::Remove || keys.compare(Tier::Exact, p + i, l) == LineMatch::Exact
        })
        && old.iter().enumerate().any(|(i, l)| {
            l.kind == LineKind::Remove && keys.compare(Tier::Fuzzy, p + i, l) == LineMatch::No
        })
}

/// Where the hunk's line number points exactly at its old side standing
/// byte for byte but for one small drift of the file there since: a worded
/// context line grown or cut at its end (a trailing comment added or
/// dropped), or one file line inserted between two of its lines. The file
/// changed where the number names, and an exact match elsewhere (`cand`)
/// is a look-alike as likely as the meant place (no tier before the
/// structural one reads such drift, so rule 1's lenient search near the
/// number does not see it). A line inserted right above `cand`'s own
/// lines, the hunk unchanged before it, reads `cand` itself with the file's
/// extra copy inside (a run of blank lines). Returns the place's first line.
pub(super) fn drifted_where_numbered(
    keys: &FileKeys,
    hunk: &Hunk,
    old: &[OldLine],
    hints: &Hints,
    cand: &Candidate,
) -> Option<usize> {
    let n = keys.len();
    let worded = |t: &str| t.chars().filter(|c| c.is_alphanumeric()).count() >= 4;
    let exact =
        |j: usize, l: &OldLine| j < n && keys.compare(Tier::Exact, j, l) == LineMatch::Exact;
    let grown = |j: usize, l: &OldLine| {
        if j >= n || l.kind != LineKind::Context {
            return false;
        }
        let file = keys.text(j);
        let (a, b) = (file.trim_end(), l.text.trim_end());
        let (short, long) = if a.len() < b.len() { (a, b) } else { (b, a) };
        short.len() < long.len() && long.starts_with(short) && worded(short)
    };
    let drifted_at = |p: usize| {
        if p == cand.start || p >= n {
            return false;
        }
        let (mut j, mut drift) = (p, 0);
        for (i, l) in old.iter().enumerate() {
            if exact(j, l) {
                j += 1;
                continue;
            }
            if drift > 0 {
                return false;
            }
            drift += 1;
            if grown(j, l) {
                j += 1;
            } else if i > 0 && exact(j + 1, l) {
                // Just above `cand`, unchanged before it: `cand` itself.
                if cand.start == p + 1 && !changes_before(hunk, i) {
                    return false;
                }
                j += 2;
            } else {
                return false;
            }
        }
        drift == 1
    };
    hints.lines().find(|&line| drifted_at(line))
}

/// True when the hunk changes a line before its `k`-th old line, or it.
fn changes_before(hunk: &Hunk, k: usize) -> bool {
    hunk.lines
        .iter()
        .scan(0, |olds, l| {
            let at = *olds;
            *olds += usize::from(l.kind != LineKind::Add);
            Some((at, l))
        })
        .take_while(|&(at, l)| at < k || l.kind != LineKind::Context)
        .any(|(_, l)| l.kind != LineKind::Context)
}
