//! What locating produces and is steered by: the tiers, the tolerances
//! reported, the options, and a hunk's place or the reason it has none.

use super::Slot;
use serde::Serialize;

/// The tiers of the matching ladder, strictest first.
///
/// ```
/// use git_fuzzy_apply::{Tier, plan_patch};
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "a\nb\n").unwrap();
/// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n a\n-b\n+c\n";
/// let report = plan_patch(patch, dir.path(), &Default::default()).unwrap().report();
/// assert_eq!(report.files[0].hunks[0].tier, Some(Tier::Exact));
/// assert!(Tier::Exact < Tier::Similarity);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Tier {
    /// Byte-for-byte lines.
    Exact,
    /// Whitespace-insensitive lines, headings, truncated fragments.
    Resilient,
    /// Also case-, punctuation- and quote-insensitive lines.
    Fuzzy,
    /// Fuzzy lines plus bounded structural slack.
    Structural,
    /// Block similarity above a threshold, removed lines still required.
    Similarity,
}

impl Tier {
    /// All tiers in the order they are tried.
    ///
    /// ```
    /// use git_fuzzy_apply::Tier;
    ///
    /// assert_eq!(Tier::LADDER.first(), Some(&Tier::Exact));
    /// assert!(Tier::LADDER.windows(2).all(|w| w[0] < w[1]));
    /// ```
    pub const LADDER: [Tier; 5] = [
        Tier::Exact,
        Tier::Resilient,
        Tier::Fuzzy,
        Tier::Structural,
        Tier::Similarity,
    ];

    /// A short name for reports.
    ///
    /// ```
    /// use git_fuzzy_apply::Tier;
    ///
    /// assert_eq!(Tier::Structural.name(), "structural");
    /// assert_eq!(serde_json::to_value(Tier::Structural).unwrap(), "structural");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Tier::Exact => "exact",
            Tier::Resilient => "resilient",
            Tier::Fuzzy => "fuzzy",
            Tier::Structural => "structural",
            Tier::Similarity => "similarity",
        }
    }
}

/// A tolerance the engine needed to place a hunk.
///
/// ```
/// use git_fuzzy_apply::{Normalization, plan_patch};
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "a\nb\nc\nd\n").unwrap();
/// // The header says line 1; the hunk is at line 3.
/// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n c\n-d\n+D\n";
/// let report = plan_patch(patch, dir.path(), &Default::default()).unwrap().report();
/// let used = &report.files[0].hunks[0].normalizations;
/// assert_eq!(used, &[Normalization::ReanchoredHeader]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Normalization {
    /// The hunk was found away from its header's line number.
    ReanchoredHeader,
    /// Whitespace, heading markers or a truncated line differed.
    Whitespace,
    /// Case, punctuation, quotes or backticks differed.
    CaseAndPunctuation,
    /// A blank context line without a blank in the file became an added line.
    BlankAsAddition,
    /// A blank context line at a hunk edge without a blank in the file was ignored.
    DroppedBlankContext,
    /// An internal context line the file does not have was ignored.
    DroppedContext,
    /// File lines the patch omitted were kept in place.
    SkippedFileLines,
    /// Context lines past the end of the file were ignored.
    EofOverhang,
    /// Context lines matched by similarity only.
    Similarity,
    /// Added lines were re-indented onto the file's indentation.
    IndentRebased,
    /// Placed in the text that the hunks before it produce (it edits what
    /// one of them wrote), and applied after them.
    AppliedInOrder,
}

impl Normalization {
    /// A short human description.
    ///
    /// ```
    /// use git_fuzzy_apply::Normalization;
    ///
    /// assert_eq!(Normalization::Whitespace.describe(), "whitespace");
    /// assert_eq!(Normalization::IndentRebased.describe(), "re-indented");
    /// ```
    pub fn describe(self) -> &'static str {
        match self {
            Normalization::ReanchoredHeader => "re-anchored line number",
            Normalization::Whitespace => "whitespace",
            Normalization::CaseAndPunctuation => "case/punctuation",
            Normalization::BlankAsAddition => "blank context added",
            Normalization::DroppedBlankContext => "blank context ignored",
            Normalization::DroppedContext => "dropped context line",
            Normalization::SkippedFileLines => "skipped omitted lines",
            Normalization::EofOverhang => "context past end of file",
            Normalization::Similarity => "similar context",
            Normalization::IndentRebased => "re-indented",
            Normalization::AppliedInOrder => "applied after the hunks before it",
        }
    }
}

/// Tunable matching parameters.
///
/// ```
/// use git_fuzzy_apply::{MatchOptions, Tier};
/// use git_fuzzy_apply::{apply_to_text, ApplyOptions};
///
/// let defaults = MatchOptions::default();
/// assert_eq!((defaults.similarity_threshold(), defaults.max_tier()), (0.9, Tier::Similarity));
///
/// // One word of five differs: too little alike for the strictest threshold.
/// let file = b"fn main() {\n    let answer = compute(40, 2);\n    println!(\"{answer}\");\n}\n";
/// let patch = b"--- a/m.rs\n+++ b/m.rs\n@@\n fn main() {\n-    let answer = compute(41, 2);\n+    let answer = compute(40, 2) + 1;\n     println!(\"{answer}\");\n";
/// let strict = ApplyOptions::default().with_matching(defaults.with_similarity_threshold(1.0));
/// assert!(apply_to_text(patch, file, &strict).is_err());
/// ```
#[derive(Debug, Clone)]
pub struct MatchOptions {
    /// Minimum block similarity (0..=1) of the similarity tier.
    pub(crate) similarity_threshold: f64,
    /// The strictest tier a hunk may need; weaker tiers are not tried.
    pub(crate) max_tier: Tier,
    /// Files longer than this get a similarity search only around a line hint.
    pub(crate) similarity_scan_limit: usize,
    /// Files with more lines than this, and files whose lines times the
    /// patch's hunks for them exceed it, are searched through the prefilter
    /// (needles searched in the raw bytes, see `docs/matching.md`) instead
    /// of line by line; only files up to this many lines keep every line's
    /// keys. It changes speed only, never the outcome: tests run both ways
    /// and compare.
    pub(crate) prefilter_above_lines: usize,
}

impl Default for MatchOptions {
    fn default() -> Self {
        MatchOptions {
            similarity_threshold: 0.9,
            max_tier: Tier::Similarity,
            similarity_scan_limit: 20_000,
            prefilter_above_lines: 200_000,
        }
    }
}

impl MatchOptions {
    /// Sets the least block similarity (0..=1) the similarity tier accepts
    /// (`--threshold`; default 0.9).
    ///
    /// ```
    /// use git_fuzzy_apply::MatchOptions;
    ///
    /// let strict = MatchOptions::default().with_similarity_threshold(1.0);
    /// assert_eq!(strict.similarity_threshold(), 1.0);
    /// ```
    pub fn with_similarity_threshold(mut self, threshold: f64) -> Self {
        self.similarity_threshold = threshold;
        self
    }

    /// Sets the strictest tier a hunk may need (`--max-tier`; default
    /// [`Tier::Similarity`]): weaker tiers are not tried.
    ///
    /// ```
    /// use git_fuzzy_apply::{apply_to_text, ApplyOptions, MatchOptions, Tier};
    ///
    /// let file = b"if ready:\n    start()\n";
    /// let patch = b"--- a/run.py\n+++ b/run.py\n@@\n if ready:\n-start()\n+    start(fast=True)\n";
    /// let resilient = MatchOptions::default().with_max_tier(Tier::Resilient);
    /// assert_eq!(resilient.max_tier(), Tier::Resilient);
    /// let options = ApplyOptions::default().with_matching(resilient);
    /// assert!(apply_to_text(patch, file, &options).is_ok());
    /// ```
    pub fn with_max_tier(mut self, tier: Tier) -> Self {
        self.max_tier = tier;
        self
    }

    /// Sets the file length above which the similarity tier searches only
    /// around a line hint (`--scan-limit`; default 20,000 lines).
    ///
    /// ```
    /// use git_fuzzy_apply::MatchOptions;
    ///
    /// assert_eq!(MatchOptions::default().with_similarity_scan_limit(0).similarity_scan_limit(), 0);
    /// ```
    pub fn with_similarity_scan_limit(mut self, lines: usize) -> Self {
        self.similarity_scan_limit = lines;
        self
    }

    /// Sets the file length (and lines times hunks) above which files are
    /// searched through the prefilter (default 200,000). It changes speed
    /// only, never the outcome.
    ///
    /// ```
    /// use git_fuzzy_apply::{apply_to_text, ApplyOptions, MatchOptions};
    ///
    /// // Every file through the prefilter: the same result, found another way.
    /// let always = ApplyOptions::default().with_matching(MatchOptions::default().with_prefilter_above_lines(0));
    /// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n b\n-c\n+C\n";
    /// assert_eq!(apply_to_text(patch, b"a\nb\nc\n", &always).unwrap(), b"a\nb\nC\n");
    /// ```
    pub fn with_prefilter_above_lines(mut self, lines: usize) -> Self {
        self.prefilter_above_lines = lines;
        self
    }

    /// The least block similarity the similarity tier accepts.
    ///
    /// ```
    /// use git_fuzzy_apply::MatchOptions;
    ///
    /// assert_eq!(MatchOptions::default().similarity_threshold(), 0.9);
    /// ```
    pub fn similarity_threshold(&self) -> f64 {
        self.similarity_threshold
    }

    /// The strictest tier a hunk may need.
    ///
    /// ```
    /// use git_fuzzy_apply::{MatchOptions, Tier};
    ///
    /// assert_eq!(MatchOptions::default().max_tier(), Tier::Similarity);
    /// ```
    pub fn max_tier(&self) -> Tier {
        self.max_tier
    }

    /// Files longer than this get a similarity search only around a line hint.
    ///
    /// ```
    /// use git_fuzzy_apply::MatchOptions;
    ///
    /// assert_eq!(MatchOptions::default().similarity_scan_limit(), 20_000);
    /// ```
    pub fn similarity_scan_limit(&self) -> usize {
        self.similarity_scan_limit
    }

    /// Files longer than this are searched through the prefilter.
    ///
    /// ```
    /// use git_fuzzy_apply::MatchOptions;
    ///
    /// assert_eq!(MatchOptions::default().prefilter_above_lines(), 200_000);
    /// ```
    pub fn prefilter_above_lines(&self) -> usize {
        self.prefilter_above_lines
    }
}

/// What became of a hunk that did not fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum HunkStatus {
    /// It will change the file.
    Applied,
    /// Its result is already in the file: skipped.
    AlreadyApplied,
    /// It changes nothing (only context, or SEARCH equal to REPLACE).
    NoOp,
}

/// Where a hunk goes in the original file.
#[derive(Debug, Clone)]
pub(crate) struct Located {
    /// Index of the hunk in the file patch.
    pub hunk: usize,
    /// First file line the hunk covers (0-based); the insertion point for a pure addition.
    pub start: usize,
    /// One past the last file line the hunk covers.
    pub end: usize,
    /// One slot per old-side line of the hunk (empty for pure additions).
    pub slots: Vec<Slot>,
    /// The tier that found it (`None` for positions given outright).
    pub tier: Option<Tier>,
    /// Tolerances used.
    pub normalizations: Vec<Normalization>,
    /// Block similarity (1 unless the similarity tier was needed).
    pub similarity: f64,
    /// Applied, already applied or no-op.
    pub status: HunkStatus,
}

/// Why a hunk could not be placed.
///
/// ```
/// use git_fuzzy_apply::{Reason, plan_patch};
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "start\nold line\nend\n").unwrap();
/// // The context is there, the removed line is not: the patch is stale.
/// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n start\n-something else entirely\n+new\n end\n";
/// let report = plan_patch(patch, dir.path(), &Default::default()).unwrap().report();
/// let failure = report.files[0].hunks[0].failure.as_ref().unwrap();
/// assert_eq!(failure.code, Reason::StaleRemovedLine);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Reason {
    /// Nothing in the file matches the hunk's old side.
    ContextNotFound,
    /// The context is there but a removed line is not: the patch is stale.
    StaleRemovedLine,
    /// Several places match equally well and nothing points at one.
    Ambiguous,
    /// The only match overlaps another hunk of the same patch.
    Overlap,
}

impl Reason {
    /// Every reason, in declaration order (add a new variant here too).
    ///
    /// ```
    /// use git_fuzzy_apply::Reason;
    ///
    /// assert_eq!(Reason::ALL.len(), 4);
    /// assert!(Reason::ALL.contains(&Reason::Overlap));
    /// ```
    pub const ALL: [Reason; 4] = [
        Reason::ContextNotFound,
        Reason::StaleRemovedLine,
        Reason::Ambiguous,
        Reason::Overlap,
    ];

    /// Stable reason code.
    ///
    /// ```
    /// use git_fuzzy_apply::Reason;
    ///
    /// assert_eq!(Reason::ContextNotFound.code(), "context_not_found");
    /// assert_eq!(Reason::Ambiguous.to_string(), "ambiguous");
    /// ```
    pub fn code(self) -> &'static str {
        match self {
            Reason::ContextNotFound => "context_not_found",
            Reason::StaleRemovedLine => "stale_removed_line",
            Reason::Ambiguous => "ambiguous",
            Reason::Overlap => "overlap",
        }
    }
}

/// The closest block of the file to a hunk that failed.
///
/// ```
/// use git_fuzzy_apply::plan_patch;
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "x\nalpha beta\ngamma\ny\n").unwrap();
/// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n alpha beta\n-gamma delta\n+g\n";
/// let report = plan_patch(patch, dir.path(), &Default::default()).unwrap().report();
/// let failure = report.files[0].hunks[0].failure.as_ref().unwrap();
/// let near = failure.near_match.as_ref().unwrap();
/// assert_eq!((near.start_line, near.lines.len()), (2, 2));
/// assert!(near.similarity > 0.5 && near.similarity < 1.0);
/// assert_eq!(near.first_difference, Some(("gamma delta".to_string(), 3)));
/// ```
#[derive(Debug, Clone, Serialize)]
pub struct NearMatch {
    /// First line of the block (1-based).
    pub start_line: usize,
    /// The file's lines there.
    pub lines: Vec<String>,
    /// Block similarity in 0..=1.
    pub similarity: f64,
    /// The first patch line that does not match, with the file line (1-based) it was compared to.
    pub first_difference: Option<(String, usize)>,
}

/// A hunk that could not be placed, and what the file looks like near its intent.
#[derive(Debug, Clone)]
pub(crate) struct Failure {
    /// Index of the hunk in the file patch.
    pub hunk: usize,
    /// Why.
    pub reason: Reason,
    /// A one-line explanation.
    pub message: String,
    /// For ambiguity: the first line (1-based) of every candidate. For a
    /// place found and turned away by the indentation rule (rule 6,
    /// `context_not_found`) or by a stale site (`stale_removed_line`): those
    /// places.
    pub candidates: Vec<usize>,
    /// For ambiguity: the tier whose candidates tied, and their score
    /// (block similarity, 1 for every line-by-line tier). For an overlap:
    /// the tier of the place that overlapped (no candidates are listed).
    pub tie: Option<(Tier, f64)>,
    /// The best near-match, for failures to find.
    pub near: Option<Box<NearMatch>>,
}
