//! Which `--at FILE:N` suggestions of an ambiguous hunk would settle it.
//!
//! Not every `ambiguous` refusal is a choice between places that `--at`
//! makes: an insertion beside lines the patch omitted, added lines that
//! already stand in place, "applied already or to be applied again?" are
//! refused whatever line is pinned. So each suggested place is tried: the
//! file's hunks are located again with that line pinned (with the pins the
//! run already has), and the place is suggested only when the hunk then
//! places there.
//!
//! Location asks of the pins only whether there are any and whether a line
//! is one (`locate::Pins`). So the file is located once more with a pin on
//! no line (the *pinned course*, recording every line it asks about): a
//! line it never asked about, pinned, changes no answer, and that run's
//! results are the pinned course's. Only a line the course asked about is
//! tried by locating the file again. A patch whose every hunk is refused
//! where no pin is asked about (each "already applied, or to be applied
//! there?") costs two locations of the file, not one per hunk.

use crate::locate::{Failure, Located, Pins};
use crate::model::{BlobIds, Hunk};
use crate::source::SourceText;
use std::cell::OnceCell;
use std::collections::HashSet;

use super::ApplyOptions;
use super::elision;
use super::sequence::place_in_order;

/// At most this many candidates are tried one by one.
const TRIED: usize = 10;

/// A pin on no line: lines and places are below the file's length.
const NO_LINE: usize = usize::MAX;

/// The file's hunks located with the run's pins and a pin on no line, and
/// the lines that location asked the pins about.
pub(super) struct PinnedCourse {
    found: Vec<Hunk>,
    results: Vec<Result<Located, Failure>>,
    asked: HashSet<usize>,
}

/// The run's pins, its options and the patch's blob ids for the file.
pub(super) type Run<'a> = (&'a ApplyOptions, &'a [usize], Option<&'a BlobIds>);

/// The hunks `file_hunks` of `source` located and placed in order with the
/// pins `pinned`.
fn located(
    source: &SourceText,
    file_hunks: &[Hunk],
    (options, _, pre_image): Run,
    pinned: &Pins,
) -> (Vec<Hunk>, Vec<Result<Located, Failure>>) {
    let (found, mut results) = elision::locate(source, file_hunks, options, pinned, pre_image);
    place_in_order(source, &found, &mut results, &options.matching, pinned);
    (found.into_owned(), results)
}

/// Hunk `index` (`hunk`) placed at line `line` (1-based) among `results`,
/// and, unless the run is `partial`, every other hunk of the file placed
/// too: the suggested command applies the patch, so a pin that settles
/// one hunk and leaves another refused (two blocks with the same SEARCH,
/// each with both places) is no suggestion. Placed elsewhere, the run
/// refuses the pin (`unmatched_pin`, report::checks).
fn placed_at(
    (found, results): (&[Hunk], &[Result<Located, Failure>]),
    (index, hunk): (usize, &Hunk),
    line: usize,
    partial: bool,
) -> bool {
    found.get(index) == Some(hunk)
        && results
            .get(index)
            .is_some_and(|r| r.as_ref().is_ok_and(|loc| loc.start + 1 == line))
        && (partial || results.iter().all(Result::is_ok))
}

/// The candidates (1-based lines) of `failure`, the refusal of hunk `index`
/// (`hunk`, among the located `hunks`), at which `--at` places the hunk
/// (at that very line):
/// each of the first ten is tried; the candidates beyond them (a tie among
/// many equally good places) are kept only when every tried one places.
/// `course` is the file's pinned course, made on first need and shared by
/// the file's refused hunks.
pub(super) fn settling(
    source: &SourceText,
    file_hunks: &[Hunk],
    (index, hunk): (usize, &Hunk),
    failure: &Failure,
    run: Run,
    course: &OnceCell<PinnedCourse>,
) -> Vec<usize> {
    let pins = run.1;
    let course = course.get_or_init(|| {
        let (pinned, asked) = Pins::recording(pins.iter().copied().chain([NO_LINE]).collect());
        let (found, results) = located(source, file_hunks, run, &pinned);
        let asked = asked.borrow().clone();
        PinnedCourse {
            found,
            results,
            asked,
        }
    });
    let tried_again = |at: usize| {
        let mut pinned = pins.to_vec();
        pinned.push(at);
        let (found, results) = located(source, file_hunks, run, &Pins::new(pinned));
        (found, results)
    };
    let places = |line: usize| {
        let at = line.saturating_sub(1);
        // (Were the pin on no line ever asked about, the course would
        // answer one question differently: then every line is tried.)
        if !course.asked.contains(&at) && !course.asked.contains(&NO_LINE) {
            let placed = placed_at(
                (&course.found, &course.results),
                (index, hunk),
                line,
                run.0.partial,
            );
            // Where checks are on (debug builds, fuzz targets), the run the
            // course stands for is made anyway: it must give the same.
            if cfg!(any(debug_assertions, fuzzing)) {
                let (found, results) = tried_again(at);
                assert_eq!(
                    (found.as_slice(), format!("{results:?}")),
                    (course.found.as_slice(), format!("{:?}", course.results)),
                    "--at line {line}, a line the pinned course never asked about, changed the location"
                );
            }
            return placed;
        }
        let (found, results) = tried_again(at);
        placed_at((&found, &results), (index, hunk), line, run.0.partial)
    };
    let tried: Vec<usize> = failure.candidates.iter().take(TRIED).copied().collect();
    let settled: Vec<usize> = tried.iter().copied().filter(|&l| places(l)).collect();
    if settled.len() == tried.len() {
        failure.candidates.clone()
    } else {
        settled
    }
}
