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
//! no line (the *pinned course*, recording every line it asks about and
//! which hunk asked first). That one location answers most tries:
//! - a line the course never asked about, pinned, changes no answer: that
//!   run's results are the course's;
//! - a line no hunk before the refused one asked about leaves the hunks
//!   before it located alike, so the refused hunk is located as it was in
//!   the course, or, when it asked about the line itself, as the course's
//!   trial of that line located it (the hunk alone, on the same state:
//!   `locate::pins`). The steps after location (blocks placed in order,
//!   numbered additions) turn a hunk placed at a pinned line only into
//!   itself, and never place a refused hunk whose lines were found; only a
//!   hunk they might still place, or refuse for what other hunks do, is
//!   left to a location of its own. So the trial tells whether the hunk
//!   places at the line, but not, where every hunk must place, whether
//!   the others still do once it places: those steps weigh a hunk against
//!   the ones after it (a block placed in order while a later hunk on its
//!   lines was refused is left unplaced once that hunk places), so a trial
//!   that places the hunk is located again unless it is the file's only
//!   hunk.
//!
//! Where every hunk must place (no `--partial`), a hunk refused for good in
//! the course ([`Step::Refused`]) before the first hunk that asked about a
//! line is refused alike with that line pinned: the suggested command
//! would not apply the patch, whatever the refused hunk does then. So
//! after the file's first refusal, a refused hunk's own lines are answered
//! without locating anything.
//!
//! Only the remaining lines are tried by locating the file again: a line
//! an earlier hunk asked about with no refusal before it, a line at which
//! the first refused hunk's trial places it (the other hunks must place
//! too), and every line where blocks are re-read as pieces or lines as
//! written (location then runs more than once). A patch of genuine ties
//! costs one location of the file, one of each refused hunk per
//! suggestion, and at most one of the file per suggestion of its first
//! refused hunk, not one of the file per suggestion.

use crate::locate::{Asker, Course, Failure, Located, NO_LINE, Pins, Step, TRIED};
use crate::model::{BlobIds, Hunk};
use crate::source::SourceText;
use std::cell::OnceCell;
use std::rc::Rc;

use super::ApplyOptions;
use super::elision;
use super::sequence::place_in_order;

/// The file's hunks located with the run's pins and a pin on no line, and
/// what that location recorded (the lines it asked the pins about, each
/// hunk's location, the trials of suggested lines).
pub(super) struct PinnedCourse {
    found: Vec<Hunk>,
    results: Vec<Result<Located, Failure>>,
    course: Rc<Course>,
    /// Location ran once, on the hunks as given: no block was read again
    /// as its pieces, no lines again as written.
    once: bool,
    /// The first hunk the course's location refused for good
    /// ([`Step::Refused`]), if any.
    first_refused: Option<usize>,
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
    let partial = run.0.partial;
    let course = course.get_or_init(|| {
        let (pinned, course) = Pins::course(pins);
        let (found, results) = located(source, file_hunks, run, &pinned);
        let once = course.locations() == 1 && !file_hunks.iter().any(rereads);
        let first_refused = (0..results.len()).find(|&j| course.step(j) == Some(Step::Refused));
        PinnedCourse {
            found,
            results,
            course,
            once,
            first_refused,
        }
    });
    let tried_again = |at: usize| {
        let mut pinned = pins.to_vec();
        pinned.push(at);
        located(source, file_hunks, run, &Pins::new(pinned))
    };
    let places = |line: usize| {
        let at = line.saturating_sub(1);
        let answered = course_answer(course, file_hunks, (index, hunk), line, partial);
        // Where checks are on (debug builds, fuzz targets), the run the
        // course stands for is made anyway: it must give the same.
        if cfg!(any(debug_assertions, fuzzing))
            && let Some((placed, same_run)) = answered
        {
            let (found, results) = tried_again(at);
            if same_run {
                assert_eq!(
                    (found.as_slice(), format!("{results:?}")),
                    (course.found.as_slice(), format!("{:?}", course.results)),
                    "--at line {line}, a line the pinned course never asked about, changed the location"
                );
            }
            assert_eq!(
                placed,
                placed_at((&found, &results), (index, hunk), line, partial),
                "--at line {line}: the pinned course's answer for hunk {} is not the run's",
                index + 1
            );
        }
        answered.map_or_else(
            || {
                let (found, results) = tried_again(at);
                placed_at((&found, &results), (index, hunk), line, partial)
            },
            |(placed, _)| placed,
        )
    };
    let tried: Vec<usize> = failure.candidates.iter().take(TRIED).copied().collect();
    let settled: Vec<usize> = tried.iter().copied().filter(|&l| places(l)).collect();
    if settled.len() == tried.len() {
        failure.candidates.clone()
    } else {
        settled
    }
}

/// Whether hunk `index` (`hunk`) places at `line` (1-based) with that line
/// pinned, as the pinned course tells it without locating the file again,
/// and whether that run would be the course itself; `None` when the
/// course cannot tell.
fn course_answer(
    course: &PinnedCourse,
    file_hunks: &[Hunk],
    (index, hunk): (usize, &Hunk),
    line: usize,
    partial: bool,
) -> Option<(bool, bool)> {
    let at = line.saturating_sub(1);
    let record = &course.course;
    // (Were the pin on no line ever asked about, the course would answer
    // that question differently from the run with the line pinned.)
    if record.asker(NO_LINE).is_some() {
        return None;
    }
    if record.asker(at).is_none() {
        let placed = placed_at(
            (&course.found, &course.results),
            (index, hunk),
            line,
            partial,
        );
        return Some((placed, true));
    }
    // Location ran once, on the hunks as given. The hunks located before
    // the first that asked about the line are located alike with it
    // pinned: where every hunk must place, one of them refused for good
    // leaves the suggested command refused too, whatever this hunk does
    // (a patch of many ties: each tie's lines would locate the file again).
    let first_asker = match record.asker(at) {
        Some(Asker::Hunk(first)) => first,
        _ => course.results.len(),
    };
    if !partial && course.once && course.first_refused.is_some_and(|r| r < first_asker) {
        return Some((false, false));
    }
    if !course.once || file_hunks.get(index) != Some(hunk) {
        return None;
    }
    let step = match record.asker(at) {
        Some(Asker::Hunk(first)) if first < index => return None,
        Some(Asker::Hunk(first)) if first == index => record.trial(index, at)?,
        _ => record.step(index)?,
    };
    // A trial answers for this hunk alone. Not placed at the line, it is
    // not placed in the run either. Placed there, where every hunk must
    // place, the course cannot tell whether the others still do: the
    // steps after location weigh hunks against the ones after them, so
    // this hunk placed can refuse one the course placed (a block placed
    // in order only while a later hunk on its merged lines was refused,
    // `sequence::judge`; a hunk found done over lines this one changes,
    // `placed::done_over_changes`).
    match step {
        Step::Placed(start) if start != at => Some((false, false)),
        Step::Placed(_) if partial || file_hunks.len() == 1 => Some((true, false)),
        Step::Refused => Some((false, false)),
        Step::Placed(_) | Step::Open => None,
    }
}

/// True when location may run again on other hunks than these: a block
/// that may be read as its pieces, lines that may be read as written.
fn rereads(hunk: &Hunk) -> bool {
    hunk.as_written.is_some() || hunk.elision.as_deref().is_some_and(|e| e.pieces.is_ok())
}
