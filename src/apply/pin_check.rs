//! Which `--at FILE:N` suggestions of an ambiguous hunk would settle it.
//!
//! Not every `ambiguous` refusal is a choice between places that `--at`
//! makes: an insertion beside lines the patch omitted, added lines that
//! already stand in place, "applied already or to be applied again?" are
//! refused whatever line is pinned. So each suggested place is tried: the
//! file's hunks are located again with that line pinned (with the pins the
//! run already has), and the place is suggested only when the hunk then
//! places there.

use crate::locate::Failure;
use crate::model::{BlobIds, Hunk};
use crate::source::SourceText;

use super::ApplyOptions;
use super::elision;
use super::sequence::place_in_order;

/// At most this many candidates are tried one by one.
const TRIED: usize = 10;

/// The candidates (1-based lines) of `failure`, the refusal of hunk `index`
/// (`hunk`, among the located `hunks`), at which `--at` places the hunk
/// (at that very line):
/// each of the first ten is tried; the candidates beyond them (a tie among
/// many equally good places) are kept only when every tried one places.
pub(super) fn settling(
    source: &SourceText,
    file_hunks: &[Hunk],
    (index, hunk): (usize, &Hunk),
    failure: &Failure,
    (options, pins, pre_image): (&ApplyOptions, &[usize], Option<&BlobIds>),
) -> Vec<usize> {
    let places = |line: usize| {
        let mut pinned = pins.to_vec();
        pinned.push(line.saturating_sub(1));
        let (found, mut results) = elision::locate(source, file_hunks, options, &pinned, pre_image);
        place_in_order(source, &found, &mut results, &options.matching, &pinned);
        // Placed at that line: placed elsewhere, the run refuses the pin
        // (`unmatched_pin`, report::checks).
        found.get(index) == Some(hunk)
            && results
                .get(index)
                .is_some_and(|r| r.as_ref().is_ok_and(|loc| loc.start + 1 == line))
    };
    let tried: Vec<usize> = failure.candidates.iter().take(TRIED).copied().collect();
    let settled: Vec<usize> = tried.iter().copied().filter(|&l| places(l)).collect();
    if settled.len() == tried.len() {
        failure.candidates.clone()
    } else {
        settled
    }
}
