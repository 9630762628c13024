//! The lines the user pinned a file's hunks to (`--at FILE:LINE`).
//!
//! Location asks two things of them: whether there are any, and whether a
//! given line is one. Nothing else reaches them, so a run can also record
//! every line it asked about, and which hunk asked first: a run whose pins
//! differ from another's only in lines it never asked about takes the same
//! course and gives the same results, and the hunks located before the
//! first that asked about a line are located alike whether it is pinned or
//! not (`plan::pin_check` relies on this to try a suggested `--at`
//! without locating the file again).
//!
//! A *course* is such a run with the pins of the file and one more, on no
//! line. As it locates each refused hunk, it also locates that hunk alone
//! again with each of its first suggested lines pinned in place of the pin
//! on no line (a *trial*, on the very state the hunks before it left), and
//! keeps what each trial gave.

use super::keys::FileKeys;
use super::ladder::locate_one;
use super::{Failure, FileState, Located, MatchOptions, Reason, Tier};
use crate::model::Hunk;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

/// At most this many suggested lines of a refused hunk are tried one by
/// one (`plan::pin_check`).
pub(crate) const TRIED: usize = 10;

/// The pin on no line a course adds: lines and places are below the
/// file's length.
pub(crate) const NO_LINE: usize = usize::MAX;

/// Pinned lines (0-based), perhaps recording a course.
#[derive(Debug, Clone, Default)]
pub(crate) struct Pins {
    lines: Vec<usize>,
    course: Option<Rc<Course>>,
}

/// Who asked first about a line in a course.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Asker {
    /// The location of this hunk (its index in the file's hunks).
    Hunk(usize),
    /// A step after every hunk was located (placing blocks in order).
    Later,
}

/// A hunk's location as far as the file's later steps leave it (they turn
/// a placed hunk only into a refusal, and place only a hunk whose lines
/// stand nowhere: see `apply::sequence` and `numbered`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// Placed at this first line (0-based), or refused by a later step;
    /// nowhere else.
    Placed(usize),
    /// Refused for good: not for lines that stand nowhere.
    Refused,
    /// A later step may place it, or refuse it for what other hunks do.
    Open,
}

/// What a location with a pin on no line recorded.
#[derive(Debug, Default)]
pub(crate) struct Course {
    /// Each line asked about, with who asked first.
    asked: RefCell<HashMap<usize, Asker>>,
    /// The hunk being located, if any.
    hunk: Cell<Option<usize>>,
    /// How many times the file's hunks were located with these pins.
    locations: Cell<usize>,
    /// Each hunk's location, by hunk.
    steps: RefCell<Vec<Step>>,
    /// Each trial: a hunk located with a line pinned (hunk, line).
    trials: RefCell<HashMap<(usize, usize), Step>>,
}

impl Pins {
    /// The pins `lines` (0-based).
    pub(crate) fn new(lines: Vec<usize>) -> Self {
        Pins {
            lines,
            course: None,
        }
    }

    /// The pins `lines` and one on no line, recording a course into the
    /// returned [`Course`].
    pub(crate) fn course(lines: &[usize]) -> (Self, Rc<Course>) {
        let course = Rc::new(Course::default());
        let pins = Pins {
            lines: lines.iter().copied().chain([NO_LINE]).collect(),
            course: Some(Rc::clone(&course)),
        };
        (pins, course)
    }

    /// These pins with `line` in place of the pin on no line, recording
    /// nothing.
    fn trial(&self, line: usize) -> Self {
        let lines = self
            .lines
            .iter()
            .map(|&l| if l == NO_LINE { line } else { l })
            .collect();
        Pins::new(lines)
    }

    /// True when no line is pinned.
    pub(crate) fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// True when `line` is pinned.
    pub(crate) fn contains(&self, line: usize) -> bool {
        if let Some(course) = &self.course {
            let asker = course.hunk.get().map_or(Asker::Later, Asker::Hunk);
            course.asked.borrow_mut().entry(line).or_insert(asker);
        }
        self.lines.contains(&line)
    }

    /// The course these pins record, if any.
    pub(super) fn recording(&self) -> Option<&Course> {
        self.course.as_deref()
    }
}

impl Course {
    /// Who asked first about `line`; `None` when nobody did.
    pub(crate) fn asker(&self, line: usize) -> Option<Asker> {
        self.asked.borrow().get(&line).copied()
    }

    /// How many times the file's hunks were located with the course's pins.
    pub(crate) fn locations(&self) -> usize {
        self.locations.get()
    }

    /// Hunk `index`'s location in the course.
    pub(crate) fn step(&self, index: usize) -> Option<Step> {
        self.steps.borrow().get(index).copied()
    }

    /// Hunk `index` located with `line` pinned, if it was tried.
    pub(crate) fn trial(&self, index: usize, line: usize) -> Option<Step> {
        self.trials.borrow().get(&(index, line)).copied()
    }

    /// A location of the file's hunks begins.
    pub(super) fn begin(&self) {
        self.locations.set(self.locations.get() + 1);
        self.steps.borrow_mut().clear();
    }

    /// Hunk `index` is being located (`None`: no hunk is).
    pub(super) fn locating(&self, index: Option<usize>) {
        self.hunk.set(index);
    }
}

/// What the file's later steps can make of `result`; `told` when its
/// location noted an addition whose place says more (those steps may
/// refuse it for what the other hunks do).
fn step(result: &Result<Located, Failure>, told: bool) -> Step {
    match result {
        Ok(loc) if !told => Step::Placed(loc.start),
        // A place found with tolerance that overlaps an earlier hunk may
        // still be read in order on what that hunk wrote (the reading
        // `sequence::place_in_order` opens): not refused for good.
        Err(f) if f.reason == Reason::Overlap && f.tie.is_some_and(|(t, _)| t > Tier::Exact) => {
            Step::Open
        }
        Err(f) if !matches!(f.reason, Reason::ContextNotFound | Reason::StaleRemovedLine) => {
            Step::Refused
        }
        _ => Step::Open,
    }
}

/// Records hunk `index`'s location (`result`; `told_before`: how many
/// telling additions `state` held before it) in `course`, then, when it is
/// refused with suggested lines, tries each of the first [`TRIED`] that
/// this hunk asked about first: the hunk located again on the same
/// `state`, with that line pinned in place of the pin on no line. What a
/// trial notes in `state` is taken back.
pub(super) fn try_suggestions(
    course: &Course,
    (keys, hunks, options): (&FileKeys, &[Hunk], &MatchOptions),
    (index, hunk): (usize, &Hunk),
    state: &mut FileState,
    (result, told_before): (&Result<Located, Failure>, usize),
) {
    let told = state.telling_additions.len() > told_before;
    {
        let mut steps = course.steps.borrow_mut();
        steps.resize(index, Step::Open);
        steps.push(step(result, told));
    }
    let Err(failure) = result else { return };
    for &line in failure.candidates.iter().take(TRIED) {
        let at = line.saturating_sub(1);
        if course.asker(at) != Some(Asker::Hunk(index)) {
            continue;
        }
        let trial = state.pins.trial(at);
        let course_pins = std::mem::replace(&mut state.pins, trial);
        let told_before = state.telling_additions.len();
        let tried = locate_one(keys, hunks, index, hunk, state, options);
        let told = state.telling_additions.len() > told_before;
        state.telling_additions.truncate(told_before);
        state.pins = course_pins;
        course
            .trials
            .borrow_mut()
            .insert((index, at), step(&tried, told));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_asked_about_is_recorded_with_who_asked_first() {
        let (pins, course) = Pins::course(&[4]);
        assert!(!pins.is_empty());
        assert!(pins.contains(4));
        course.locating(Some(2));
        assert!(!pins.clone().contains(9));
        course.locating(Some(3));
        assert!(!pins.contains(9));
        assert!(pins.contains(NO_LINE));
        course.locating(None);
        assert!(!pins.contains(7));
        assert_eq!(course.asker(4), Some(Asker::Later));
        assert_eq!(course.asker(9), Some(Asker::Hunk(2)));
        assert_eq!(course.asker(NO_LINE), Some(Asker::Hunk(3)));
        assert_eq!(course.asker(7), Some(Asker::Later));
        assert_eq!(course.asker(5), None);
        let trial = pins.trial(5);
        assert!(trial.contains(5) && trial.contains(4) && !trial.contains(NO_LINE));
        assert!(Pins::default().is_empty());
    }
}
