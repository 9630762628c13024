//! What the location of a file learnt that nothing but the file and a
//! hunk's old side decides, kept for the next location of the same file.
//!
//! One run may locate a file's hunks several times: a block with elision
//! lines is located as written and then as its pieces, and each suggested
//! `--at` line of an ambiguous hunk is tried by locating the file again
//! with it pinned (`plan::pin_check`). Most of a location is cheap (the
//! prefilter narrows the search to a few lines), but some of it scans the
//! file line by line: a hunk whose lines have no needle long enough for the
//! prefilter (`assert_eq!(`, `out,`) is aligned by the structural tier at
//! every line, a block the similarity tier searches is scored at every
//! line of its range, a hunk whose context before its removed lines is a
//! blank line is sought as stale at every line (`diagnose::stale_sites`),
//! and a hunk no tier places is compared with every block of the first
//! `--scan-limit` lines to name the closest (`diagnose`). Repeated per
//! location, these scans made a refusal in a 200,000-line file take
//! seconds instead of a fraction of one.
//!
//! Each of them is a function of the file's text, the old side's lines
//! (kind, text, whether it ends the hunk) and the few numbers named in
//! [`Question`]; none of them asks the pins, the hunks before or the
//! state of the location (the prefilter decides only which lines are
//! compared, never what matches: `tests/it/prefilter_equivalence.rs`). So
//! the answer is kept with the file's text ([`SourceText::learnt`]), and
//! the next location of the same text takes it as it is. Only long scans
//! are kept ([`REMEMBER_FROM`] lines or more), with at most
//! [`REMEMBER_AT_MOST`] places, so that what is kept stays small beside
//! the work it saves. A small file's keys of every line
//! (`keys::FileKeys`), made at once by the first location that compares
//! with tolerance, are kept there too.

use super::needles::Needle;
use super::{MatchOptions, Tier};
use crate::model::LineKind;
use crate::source::SourceText;
use std::any::Any;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::ops::Range;
use std::sync::{Arc, Mutex, OnceLock};

/// Scans of fewer lines than this are made again rather than kept.
pub(super) const REMEMBER_FROM: usize = 4096;

/// Answers with more places than this are made again rather than kept (a
/// bracket line standing thousands of times).
pub(super) const REMEMBER_AT_MOST: usize = 256;

/// A needle found on more lines than this is searched again rather than
/// its lines kept (memory that would grow with the file).
pub(super) const HITS_AT_MOST: usize = 1 << 16;

/// The lines of needles are kept only for files of this many bytes or
/// more: a smaller file is searched again faster than a patch of many
/// hunks' needles are kept.
pub(super) const HITS_FROM_BYTES: usize = 16 << 20;

/// The answers kept for one file's text (see the module's documentation).
#[derive(Default)]
pub(crate) struct Memo {
    /// The answers, by the digest of their key ([`Key::digest`]).
    answers: Mutex<HashMap<u64, Vec<(Key, Answer)>>>,
    /// A small file's keys of every line (`keys::FileKeys`), made by the
    /// first location that compares lines with tolerance.
    resilient: OnceLock<Arc<[String]>>,
    fuzzy: OnceLock<Arc<[String]>>,
    /// The lines the prefilter found for each needle searched
    /// (`prefilter::lines_matching`), up to [`HITS_AT_MOST`] of them.
    hits: Mutex<HashMap<Needle, Arc<[usize]>>>,
}

/// A kept answer, of the type its question is answered with.
type Answer = Box<dyn Any + Send + Sync>;

/// Which of a line's keys (`normalize::resilient_key`, `normalize::fuzzy_key`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum LineKey {
    Resilient,
    Fuzzy,
}

/// What was asked of the file about one old side, beyond its lines.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Question {
    /// Every place a line-by-line or structural tier matches it.
    Tier(Tier),
    /// The blocks of `range` the similarity tier takes, at `threshold`
    /// (its bits).
    Similar { range: Range<usize>, threshold: u64 },
    /// Why no tier places it, with the hunk's line hint (0-based) and the
    /// scan limit.
    Diagnosis {
        line: Option<usize>,
        scan_limit: usize,
    },
    /// Where its context stands with its removed lines gone, with the
    /// hunk's line hint.
    StaleSites { line: Option<usize> },
}

impl Question {
    /// The similarity tier's search of `range` with `options`' threshold.
    pub(super) fn similar(range: Range<usize>, threshold: f64) -> Self {
        Question::Similar {
            range,
            threshold: threshold.to_bits(),
        }
    }

    /// The diagnosis of a hunk with line hint `line` under `options`.
    pub(super) fn diagnosis(line: Option<usize>, options: &MatchOptions) -> Self {
        Question::Diagnosis {
            line,
            scan_limit: options.similarity_scan_limit,
        }
    }
}

/// One line of the old side a question is about, as far as the answers
/// tell lines apart: its kind, whether it ends the hunk
/// (`keys::OldLine::ends_hunk`), its text.
pub(super) type SideLine<'a> = (LineKind, bool, &'a str);

/// A question about one old side.
#[derive(Debug)]
struct Key {
    question: Question,
    old: Box<[(LineKind, bool, Box<str>)]>,
}

impl Key {
    fn new<'a>(question: Question, old: impl Iterator<Item = SideLine<'a>>) -> Self {
        let old = old
            .map(|(kind, ends, text)| (kind, ends, Box::from(text)))
            .collect();
        Key { question, old }
    }

    /// A digest of `question` about `old`, to find the key without making
    /// it (keys of different digests differ; keys of one digest are
    /// compared by [`Key::is`]).
    fn digest<'a>(question: &Question, old: impl Iterator<Item = SideLine<'a>>) -> u64 {
        let mut hasher = std::hash::DefaultHasher::new();
        question.hash(&mut hasher);
        for line in old {
            line.hash(&mut hasher);
        }
        hasher.finish()
    }

    /// True when this is the key of `question` about `old`.
    fn is<'a>(&self, question: &Question, old: impl Iterator<Item = SideLine<'a>>) -> bool {
        let mut old = old;
        self.question == *question
            && self
                .old
                .iter()
                .all(|(kind, ends, text)| old.next() == Some((*kind, *ends, &**text)))
            && old.next().is_none()
    }
}

/// What a scan found, with what [`answer`] weighs before keeping it.
pub(super) struct Scanned<T> {
    /// The answer.
    pub found: T,
    /// How many lines (start lines, places) it looked at.
    pub lines: usize,
    /// How many places or ranges it holds.
    pub places: usize,
}

/// The answer to `question` about the old side `old` in `source`: the one
/// kept, else the one `make` finds, kept when it looked at
/// [`REMEMBER_FROM`] lines or more and holds at most [`REMEMBER_AT_MOST`]
/// places.
pub(super) fn answer<'a, T: Clone + Send + Sync + 'static>(
    source: &SourceText,
    (old, question): (impl Iterator<Item = SideLine<'a>> + Clone, Question),
    make: impl FnOnce() -> Scanned<T>,
) -> T {
    // A small file has nothing kept: no memo is made for it.
    let memo = (source.len() >= REMEMBER_FROM)
        .then(|| source.learnt::<Memo>())
        .flatten();
    let Some(memo) = memo else {
        return make().found;
    };
    let digest = Key::digest(&question, old.clone());
    let kept = (memo.answers.lock().ok()).and_then(|answers| {
        let same = answers.get(&digest)?;
        let (_, answer) = same
            .iter()
            .find(|(key, _)| key.is(&question, old.clone()))?;
        answer.downcast_ref::<T>().cloned()
    });
    if let Some(kept) = kept {
        return kept;
    }
    let made = make();
    if made.lines >= REMEMBER_FROM
        && made.places <= REMEMBER_AT_MOST
        && let Ok(mut answers) = memo.answers.lock()
    {
        let same = answers.entry(digest).or_default();
        same.retain(|(key, _)| !key.is(&question, old.clone()));
        let answer: Answer = Box::new(made.found.clone());
        same.push((Key::new(question, old), answer));
    }
    made.found
}

/// The key `which` of every line of `source`, a small file, made by `make`
/// for the first location that asks.
pub(super) fn every_key(
    source: &SourceText,
    which: LineKey,
    make: impl FnOnce() -> Vec<String>,
) -> Arc<[String]> {
    let Some(memo) = source.learnt::<Memo>() else {
        return make().into();
    };
    let every = match which {
        LineKey::Resilient => &memo.resilient,
        LineKey::Fuzzy => &memo.fuzzy,
    };
    Arc::clone(every.get_or_init(|| make().into()))
}

/// The lines (0-based, ascending) a search of `source` found for
/// `needle`, if they were kept (in a file of [`HITS_FROM_BYTES`] or more).
pub(super) fn needle_hits(source: &SourceText, needle: &Needle) -> Option<Arc<[usize]>> {
    if source.bytes().len() < HITS_FROM_BYTES {
        return None;
    }
    let memo = source.learnt::<Memo>()?;
    memo.hits.lock().ok()?.get(needle).cloned()
}

/// Keeps `lines`, what a search of `source` found for `needle`, unless
/// they are more than [`HITS_AT_MOST`] or the file is smaller than
/// [`HITS_FROM_BYTES`].
pub(super) fn keep_needle_hits(source: &SourceText, needle: &Needle, lines: &Arc<[usize]>) {
    if lines.len() > HITS_AT_MOST || source.bytes().len() < HITS_FROM_BYTES {
        return;
    }
    if let Some(memo) = source.learnt::<Memo>()
        && let Ok(mut hits) = memo.hits.lock()
    {
        hits.insert(needle.clone(), Arc::clone(lines));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What [`answer`] gives for `question` about `old` in `source` when
    /// `make` would find `found` after looking at `lines` lines.
    fn starts(
        source: &SourceText,
        lines: usize,
        (old, question): (&[SideLine], &Question),
        found: &[usize],
    ) -> Vec<usize> {
        let make = || Scanned {
            found: found.to_vec(),
            lines,
            places: found.len(),
        };
        answer(source, (old.iter().copied(), question.clone()), make)
    }

    /// An answer is kept only after a long scan of a large file and only
    /// when it is short, and it is given again only for the same question
    /// about the same lines (kind, text and end of hunk alike).
    #[test]
    fn keeps_long_scans_short_answers_for_the_same_question() {
        let (small, large) = ("x\n".repeat(REMEMBER_FROM - 1), "x\n".repeat(REMEMBER_FROM));
        let old: [SideLine; 1] = [(LineKind::Context, false, "assert_eq!(")];
        let tier = Question::Tier(Tier::Structural);
        let long = REMEMBER_FROM;
        for (text, lines, found) in [
            (&small, long, vec![1]),
            (&large, long - 1, vec![2]),
            (&large, long, (0..=REMEMBER_AT_MOST).collect()),
        ] {
            let source = SourceText::new(text.as_bytes());
            starts(&source, lines, (&old, &tier), &found);
            assert_eq!(starts(&source, long, (&old, &tier), &[9]), [9]);
        }
        let source = SourceText::new(large.as_bytes());
        assert_eq!(starts(&source, long, (&old, &tier), &[3]), [3]);
        assert_eq!(starts(&source, long, (&old, &tier), &[9]), [3]);
        let fuzzy = Question::Tier(Tier::Fuzzy);
        assert_eq!(starts(&source, long, (&old, &fuzzy), &[9]), [9]);
        let removed = [(LineKind::Remove, false, "assert_eq!(")];
        assert_eq!(starts(&source, long, (&removed, &tier), &[8]), [8]);
        let ending = [(LineKind::Context, true, "assert_eq!(")];
        assert_eq!(starts(&source, long, (&ending, &tier), &[7]), [7]);
        let other = [(LineKind::Context, false, "assert_ne!(")];
        assert_eq!(starts(&source, long, (&other, &tier), &[6]), [6]);
        let two = [old[0], other[0]];
        assert_eq!(starts(&source, long, (&two, &tier), &[5]), [5]);
        assert_eq!(starts(&source, long, (&other, &tier), &[4]), [6]);
        assert_eq!(starts(&source, long, (&two[..1], &tier), &[4]), [3]);
    }

    /// An answer kept as one type is not given for another.
    #[test]
    fn an_answer_is_given_only_as_its_own_type() {
        let large = "x\n".repeat(REMEMBER_FROM);
        let source = SourceText::new(large.as_bytes());
        let old: [SideLine; 1] = [(LineKind::Context, false, "out,")];
        let question = Question::diagnosis(None, &MatchOptions::default());
        let ask = |message: &str| {
            let found = message.to_string();
            let make = || Scanned {
                found,
                lines: REMEMBER_FROM,
                places: 0,
            };
            answer(&source, (old.iter().copied(), question.clone()), make)
        };
        assert_eq!(ask("closest"), "closest");
        assert_eq!(ask("other"), "closest");
        let make = || Scanned {
            found: vec![1..2, 4..6],
            lines: 0,
            places: 2,
        };
        let ranges = answer(&source, (old.iter().copied(), question), make);
        assert_eq!(ranges, [1..2, 4..6]);
    }

    /// A large file located twice through one text: the second location
    /// takes the long scans (every tier at every line, the closest block)
    /// and the keys of every line from the first, and gives what a fresh
    /// text gives, with or without the prefilter.
    #[test]
    fn a_second_location_of_the_same_text_gives_the_same_results() {
        use crate::locate::{Pins, locate_hunks};
        use crate::patch::{ParseOptions, parse_patch};
        let mut text: String = (0..6000)
            .map(|i| format!("// filler line {i:07} of the padding\n"))
            .collect();
        text.push_str("fn check() {\n    assert_eq!(\n        out,\n        vec![\n            first,\n        ]\n    );\n}\n");
        let patch = "--- a/f\n+++ b/f\n@@\n     assert_eq!(\n         out,\n-        vec![\n+        cursor![\n             second,\n";
        let hunks = parse_patch(patch.as_bytes(), &ParseOptions::default())
            .expect("parses")
            .files
            .remove(0)
            .hunks;
        let plain = MatchOptions::default();
        let prefiltered = MatchOptions::default().with_prefilter_above_lines(0);
        let located = |source: &SourceText, options: &MatchOptions| {
            format!(
                "{:?}",
                locate_hunks(source, &hunks, options, &Pins::default())
            )
        };
        let source = SourceText::new(text.as_bytes());
        let first = located(&source, &plain);
        assert!(first.contains("ContextNotFound"), "{first}");
        let memo = source.learnt::<Memo>().expect("the locator's memo");
        let kept = (memo.answers.lock()).map_or(0, |a| a.values().map(Vec::len).sum());
        assert!(kept >= 3, "{kept} answers kept");
        assert!(memo.fuzzy.get().is_some());
        assert_eq!(located(&source, &plain), first);
        assert_eq!(located(&source, &prefiltered), first);
        let fresh = SourceText::new(text.as_bytes());
        assert_eq!(located(&fresh, &prefiltered), first);
        assert_eq!(located(&fresh, &prefiltered), first);
    }

    /// In a file of `HITS_FROM_BYTES` or more, the lines each needle stands
    /// on are kept by the first location for the next; a smaller file's
    /// are searched again.
    #[test]
    fn a_large_files_needle_lines_are_kept() {
        use crate::locate::{Pins, locate_hunks};
        use crate::patch::{ParseOptions, parse_patch};
        let code = "fn check_1234567() {\n    let total = 0;\n}\n";
        let long = format!("{}\n", "x".repeat(4095));
        let large = long.repeat(HITS_FROM_BYTES / long.len() + 1) + code;
        let patch = "--- a/f\n+++ b/f\n@@\n fn check_1234567() {\n-    let total = 0;\n+    let total = 1;\n }\n";
        let hunks = parse_patch(patch.as_bytes(), &ParseOptions::default())
            .expect("parses")
            .files
            .remove(0)
            .hunks;
        let prefiltered = MatchOptions::default().with_prefilter_above_lines(0);
        let located = |source: &SourceText| {
            format!(
                "{:?}",
                locate_hunks(source, &hunks, &prefiltered, &Pins::default())
            )
        };
        let kept = |source: &SourceText| {
            let memo = source.learnt::<Memo>().expect("the locator's memo");
            memo.hits.lock().map_or(0, |h| h.len())
        };
        for (text, keeps) in [(code.to_string(), false), (large, true)] {
            let source = SourceText::new(text.as_bytes());
            let first = located(&source);
            assert!(first.contains("start: "), "{first}");
            assert_eq!(kept(&source) > 0, keeps, "{} bytes", text.len());
            assert_eq!(located(&source), first);
        }
    }
}
