//! The places of the hunks located so far in one file, for the overlap
//! check every later hunk makes: an index by first line, so that a check
//! looks at the few places near the range asked about instead of every
//! place so far (which made a patch of many hunks quadratic).

use std::ops::Range;

/// Placed ranges with the hunk each belongs to, kept sorted by first line.
#[derive(Debug, Default)]
pub(super) struct Placed {
    /// `(range, hunk, order of placement)`, sorted by `range.start`.
    sorted: Vec<(Range<usize>, usize, usize)>,
    /// `reach[i]`: the largest `range.end` among `sorted[..=i]`.
    reach: Vec<usize>,
}

impl Placed {
    /// Records that `hunk` was placed at `range`.
    pub(super) fn push(&mut self, range: Range<usize>, hunk: usize) {
        let order = self.sorted.len();
        let at = self
            .sorted
            .partition_point(|(r, _, _)| r.start <= range.start);
        self.sorted.insert(at, (range, hunk, order));
        self.reach.truncate(at);
        let mut reach = at.checked_sub(1).map_or(0, |i| self.reach_at(i));
        for (r, _, _) in &self.sorted[at..] {
            reach = reach.max(r.end);
            self.reach.push(reach);
        }
    }

    fn reach_at(&self, i: usize) -> usize {
        self.reach.get(i).copied().unwrap_or(0)
    }

    /// The hunk placed first among those whose range overlaps `start..end`
    /// (for an insertion point, `start == end`: a range it falls strictly
    /// inside).
    pub(super) fn overlapping(&self, start: usize, end: usize) -> Option<usize> {
        let insertion = start == end;
        let overlaps = |r: &Range<usize>| {
            if insertion {
                r.start < start && start < r.end
            } else {
                start < r.end && r.start < end
            }
        };
        // Only ranges starting before `end` (before `start` for an
        // insertion point) can overlap, and only while some of them still
        // reaches past `start`.
        let upto = self.sorted.partition_point(|(r, _, _)| r.start < end);
        let mut first: Option<(usize, usize)> = None;
        for i in (0..upto).rev() {
            if self.reach_at(i) <= start {
                break;
            }
            let (r, hunk, order) = &self.sorted[i];
            if overlaps(r) && first.is_none_or(|(o, _)| *order < o) {
                first = Some((*order, *hunk));
            }
        }
        first.map(|(_, hunk)| hunk)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same answers as looking through every place in placement order.
    #[test]
    fn agrees_with_a_scan_of_every_place() {
        let ranges = [
            (10..14),
            (3..3),
            (20..25),
            (0..2),
            (14..14),
            (12..30),
            (5..9),
            (22..22),
            (40..41),
        ];
        let mut placed = Placed::default();
        let mut all: Vec<(Range<usize>, usize)> = Vec::new();
        for (hunk, range) in ranges.into_iter().enumerate() {
            placed.push(range.clone(), hunk);
            all.push((range, hunk));
            for start in 0..45 {
                for end in start..45 {
                    let scan = all.iter().find_map(|(r, h)| {
                        let hit = if start == end {
                            r.start < start && start < r.end
                        } else {
                            start < r.end && r.start < end
                        };
                        hit.then_some(*h)
                    });
                    assert_eq!(placed.overlapping(start, end), scan, "{start}..{end}");
                }
            }
        }
    }
}
