//! The lines the user pinned a file's hunks to (`--at FILE:LINE`).
//!
//! Location asks two things of them: whether there are any, and whether a
//! given line is one. Nothing else reaches them, so a run can also record
//! every line it asked about: a run whose pins differ from another's only
//! in lines it never asked about takes the same course and gives the same
//! results (`plan::pin_check` relies on this to try a suggested `--at`
//! without locating the file again).

use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;

/// Pinned lines (0-based), perhaps recording the lines asked about.
#[derive(Debug, Clone, Default)]
pub(crate) struct Pins {
    lines: Vec<usize>,
    asked: Option<Rc<RefCell<HashSet<usize>>>>,
}

/// The lines a run asked [`Pins::contains`] about.
pub(crate) type Asked = Rc<RefCell<HashSet<usize>>>;

impl Pins {
    /// The pins `lines` (0-based).
    pub(crate) fn new(lines: Vec<usize>) -> Self {
        Pins { lines, asked: None }
    }

    /// The pins `lines`, recording into the returned set every line
    /// [`contains`](Self::contains) is asked about.
    pub(crate) fn recording(lines: Vec<usize>) -> (Self, Asked) {
        let asked = Asked::default();
        let pins = Pins {
            lines,
            asked: Some(Rc::clone(&asked)),
        };
        (pins, asked)
    }

    /// True when no line is pinned.
    pub(crate) fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// True when `line` is pinned.
    pub(crate) fn contains(&self, line: usize) -> bool {
        if let Some(asked) = &self.asked {
            asked.borrow_mut().insert(line);
        }
        self.lines.contains(&line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_asked_about_is_recorded() {
        let (pins, asked) = Pins::recording(vec![4]);
        assert!(pins.contains(4));
        assert!(!pins.clone().contains(9));
        assert!(!pins.is_empty());
        let mut lines: Vec<usize> = asked.borrow().iter().copied().collect();
        lines.sort_unstable();
        assert_eq!(lines, [4, 9]);
        assert!(Pins::default().is_empty());
    }
}
