//! The places of the hunks located so far in one file, for the overlap
//! check every later hunk makes: an index by first line, so that a check
//! looks at the few places near the range asked about instead of every
//! place so far (which made a patch of many hunks quadratic).

use super::footprint::Footprint;

/// Placed hunks' footprints with the hunk each belongs to, kept sorted by
/// first line.
#[derive(Debug, Default)]
pub(super) struct Placed {
    /// `(footprint, hunk, order of placement)`, sorted by `span.start`.
    sorted: Vec<(Footprint, usize, usize)>,
    /// `reach[i]`: the largest `span.end` among `sorted[..=i]`.
    reach: Vec<usize>,
}

impl Placed {
    /// Records that `hunk` was placed with `footprint`.
    pub(super) fn push(&mut self, footprint: Footprint, hunk: usize) {
        let order = self.sorted.len();
        let start = footprint.span.start;
        let at = self
            .sorted
            .partition_point(|(f, _, _)| f.span.start <= start);
        self.sorted.insert(at, (footprint, hunk, order));
        self.reach.truncate(at);
        let mut reach = at.checked_sub(1).map_or(0, |i| self.reach_at(i));
        for (f, _, _) in &self.sorted[at..] {
            reach = reach.max(f.span.end);
            self.reach.push(reach);
        }
    }

    fn reach_at(&self, i: usize) -> usize {
        self.reach.get(i).copied().unwrap_or(0)
    }

    /// The hunk placed first among those `footprint` conflicts with (see
    /// [`Footprint::conflicts`]). Only hunks whose lines meet or touch
    /// `footprint`'s can conflict with it, so only those are looked at.
    pub(super) fn overlapping(&self, footprint: &Footprint) -> Option<usize> {
        let span = &footprint.span;
        let upto = self
            .sorted
            .partition_point(|(f, _, _)| f.span.start <= span.end);
        let mut first: Option<(usize, usize)> = None;
        for i in (0..upto).rev() {
            if self.reach_at(i) < span.start {
                break;
            }
            let (f, hunk, order) = &self.sorted[i];
            if first.is_none_or(|(o, _)| *order < o) && f.conflicts(footprint) {
                first = Some((*order, *hunk));
            }
        }
        first.map(|(_, hunk)| hunk)
    }
}

/// A hunk found already applied whose new side stands on lines a hunk of
/// the file applied afresh changes (removes, or inserts into the middle
/// of) is refused: its lines are that hunk's old lines, so it stood done
/// only before the patch was applied, and applied afresh it would be read
/// elsewhere (rule 7; the hunks before a hunk are weighed as it is found,
/// `already_applied`, this covers those after it). One look per hunk found
/// done, at the places near it. The hunk applied there with more tolerance
/// than whitespace is refused too: it stands on what the done hunk wrote,
/// and a first run reads a hunk on an earlier hunk's lines only with
/// whitespace drift (`plan/sequence.rs`), so a re-run of a partly applied
/// patch must not apply it there either.
pub(super) fn done_over_changes(
    results: &mut [Result<super::Located, super::Failure>],
    placed: &Placed,
) {
    let mut lenient_on_done = Vec::new();
    for result in results.iter_mut() {
        let Ok(loc) = result else { continue };
        if loc.status != super::HunkStatus::AlreadyApplied || loc.end <= loc.start {
            continue;
        }
        let span = loc.start..loc.end;
        let Some(other) = placed.overlapping(&Footprint::unchanged(span.clone())) else {
            continue;
        };
        let why = format!(
            "the hunk's new lines stand at lines {}-{}, but hunk {} of the patch changes lines among them: applied already, or to be applied once that hunk is?",
            span.start + 1,
            span.end,
            other + 1
        );
        *result = Err(super::ambiguous(loc.hunk, &[span.start], None, Some(why)));
        lenient_on_done.push((other, span.start));
    }
    for (other, start) in lenient_on_done {
        let Some(Ok(loc)) = results.get(other) else {
            continue;
        };
        if loc.tier > Some(super::Tier::Resilient) {
            let why = format!(
                "the hunk's old lines, read with more tolerance than whitespace, stand among the new lines of another hunk of the patch (from line {}): to be applied on what that hunk writes, or not at all?",
                start + 1
            );
            results[other] = Err(super::ambiguous(loc.hunk, &[loc.start], None, Some(why)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ops::Range;

    fn fp(span: Range<usize>, removed: &[usize], inserts: &[usize]) -> Footprint {
        Footprint {
            span,
            removed: removed.to_vec(),
            inserts: inserts.to_vec(),
        }
    }

    /// The same answers as looking through every place in placement order.
    #[test]
    fn agrees_with_a_scan_of_every_place() {
        let placed_hunks = [
            fp(10..14, &[11], &[12]),
            fp(3..3, &[], &[3]),
            fp(20..25, &[], &[22]),
            fp(0..2, &[0], &[]),
            fp(14..14, &[], &[14]),
            fp(12..30, &[29], &[]),
            fp(5..9, &[6, 7], &[8]),
            fp(22..22, &[], &[22]),
            fp(40..41, &[40], &[41]),
        ];
        let mut placed = Placed::default();
        let mut all: Vec<(Footprint, usize)> = Vec::new();
        for (hunk, f) in placed_hunks.into_iter().enumerate() {
            placed.push(f.clone(), hunk);
            all.push((f, hunk));
            for start in 0..45 {
                for end in start..45 {
                    for probe in [
                        fp(start..end, &[], &[]),
                        fp(start..end, &[start], &[]),
                        fp(start..end, &[], &[end]),
                        fp(start..end, &[], &[start]),
                    ] {
                        let scan = all
                            .iter()
                            .find_map(|(f, h)| f.conflicts(&probe).then_some(*h));
                        assert_eq!(placed.overlapping(&probe), scan, "{probe:?}");
                    }
                }
            }
        }
    }
}
