//! A hunk whose new side stands while a lenient tier reads its old side:
//! done there, or two readings.

use super::applied::NewSideFound;
use super::search::Candidate;
use super::{Failure, Located, Tier, ambiguous};

/// The new side stands at `done` and a lenient tier read the old side at
/// `cand`: the same place seen both ways (the applied state read as the
/// old one with tolerance, on the new side's lines or some of them, as
/// when a blank context line at the hunk's edge is dropped) means done;
/// two places are two readings. A new side standing in several places is
/// two readings wherever the old side is read: which copy is the applied
/// one is unknown.
pub(super) fn done_or_ambiguous(
    index: usize,
    found: &NewSideFound,
    (tier, cand): (Tier, &Candidate),
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
    let unsure = if found.indented_otherwise {
        " (an added line stands there only at another indentation than the context gives it: the file's own line, or the change re-indented since?)"
    } else if found.unsure {
        " (its added lines, blank or brackets only, could have been there before)"
    } else {
        ""
    };
    let how = if tier == Tier::Exact {
        "stand, holding no word,"
    } else {
        "match with tolerance"
    };
    let why = format!(
        "the hunk's new lines already stand at {line} {at}{unsure}, while its old lines {how} at line {}: already applied, or to be applied there?",
        cand.start + 1
    );
    Err(ambiguous(index, &starts, None, Some(why)))
}
