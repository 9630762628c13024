//! The accuracy case generator: real source files, a random intended edit,
//! the edit written in each notation the engine reads, then exactly one kind
//! of damage a language model does. Each case knows its intended outcome:
//! the exact new file, or a refusal.
//!
//! Shared by the `accuracy` bench (`benches/accuracy/main.rs`) and the short
//! in-process run in `tests/it/accuracy_floor.rs`, which includes this file with
//! `#[path = "../../benches/accuracy/cases.rs"] mod cases;`.

#[path = "adversary.rs"]
pub mod adversary;
#[path = "corpus.rs"]
pub mod corpus;
#[path = "edit.rs"]
pub mod edit;
#[path = "elided.rs"]
pub mod elided;
#[path = "noise.rs"]
pub mod noise;
#[path = "render.rs"]
pub mod render;
#[path = "sequence.rs"]
pub mod sequence;

use corpus::Corpus;
use edit::{Hunk, Kind, apply_hunks, hunks_from_edits, join, random_edits};
use render::Numbers;

/// A small deterministic PRNG (splitmix64): a seed gives the same cases on
/// the same machine.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator started from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < p
    }

    /// A random element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// Shuffles `items` in place.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

/// A notation the engine reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Format {
    /// `--- a/p`, `+++ b/p`, `@@ -a,b +c,d @@` hunks.
    Unified,
    /// The same with bare `@@` (or `@@ @@`) headers.
    Numberless,
    /// `*** Begin Patch` / `*** Update File:` / `@@ [anchor]` / `*** End Patch`.
    Codex,
    /// Path line, fence, `<<<<<<< SEARCH` / `=======` / `>>>>>>> REPLACE`.
    SearchReplace,
}

impl Format {
    /// Every format, in table order.
    pub const ALL: [Format; 4] = [
        Format::Unified,
        Format::Numberless,
        Format::Codex,
        Format::SearchReplace,
    ];

    /// Short name for tables.
    pub fn name(self) -> &'static str {
        match self {
            Format::Unified => "unified",
            Format::Numberless => "numberless",
            Format::Codex => "codex",
            Format::SearchReplace => "search/replace",
        }
    }
}

/// The one kind of damage a case carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Noise {
    /// No damage.
    Clean,
    /// Every unified header moved by the same 5..200 lines.
    ShiftedNumbers,
    /// Each unified header moved by a different 5..200 lines.
    ScatteredNumbers,
    /// Unified headers written without numbers.
    NoNumbers,
    /// Trailing spaces, tabs↔spaces or doubled spaces in context/removed lines.
    Whitespace,
    /// A context line's case changed.
    Case,
    /// Trailing punctuation added to or removed from a context line.
    Punctuation,
    /// A long context line truncated (suffix kept, or start + `...`).
    Truncated,
    /// Straight quotes in a context line made curly.
    SmartQuotes,
    /// An interior context line left out of the patch.
    DroppedContext,
    /// A blank context line the file does not have, next to added lines.
    BlankContext,
    /// Made-up context lines after the file's last line.
    PastEof,
    /// `N | ` prefixes on every SEARCH/REPLACE line.
    LinePrefixes,
    /// A whole SEARCH/REPLACE block written at another indentation.
    IndentShift,
    /// The patch text has CRLF line endings.
    Crlf,
    /// The patch sits in a Markdown fence with prose around it.
    Fenced,
    /// Must refuse: a removed line was changed in the file since.
    Stale,
    /// Must refuse: the edited block is in the file twice and nothing says which.
    Ambiguous,
    /// The block is in the file twice; a line number points at one copy.
    HintedDuplicate,
    // Adversarial placement kinds (`adversary.rs`); not in `ALL`.
    /// Must refuse: context line(s) the patch left out sit right where it
    /// inserts, so the insertion could go before or after them.
    UnmatchedBesideInsert,
    /// The same with structural dropped lines (blank, closing brackets,
    /// comments).
    UnmatchedBlankBesideInsert,
    /// Twins, one drifted; the hint (header, `:start_line:`, Codex anchor or
    /// `*** End of File`) points at the drifted one, the other is exact.
    HintDriftedTwin,
    /// Must refuse: twins, the hint more than 100 lines from the nearer one.
    HintFarTwin,
    /// Hunk 1 wrongly numbered; hunk 2 rightly numbered, with a twin where
    /// hunk 1's offset carries its number.
    CarriedOffset,
    /// Exact `git diff -U0` output with several insertions.
    UnidiffZero,
    /// `-R` of a multi-hunk diff whose hunks change line counts.
    ReverseMulti,
    /// Two hunks whose contexts overlap; a look-alike of the second elsewhere.
    OverlapContext,
    /// Must refuse: the second hunk's context holds lines the first removes;
    /// a look-alike of the second elsewhere.
    OverlapRemoved,
    /// Must refuse: a removed `#`-line whose `#` count differs in the file.
    RemovedHeading,
    /// Must refuse: a removed line that is only a suffix of the file's line.
    RemovedPrefixed,
    /// Python: a 4-space patch for a 2-space file or the reverse, edits
    /// beside `else:`-like lines of nested blocks.
    PyReindent,
    /// Must refuse: Python, the patch indents a line the file has outside an
    /// `if` and adds after it inside.
    PyBlockShift,
    /// The patch is already applied: nothing may change.
    Reapply,
    /// `-U0` insertions of lines equal to their neighbours: must insert.
    U0Duplicate,
    /// A case-only fix whose context is stale: not "already applied".
    CaseFixStale,
    /// Must refuse: stale removed line, the new lines stand elsewhere.
    StaleNewElsewhere,
    // Kinds of the in-order and elision stream (`sequence.rs`).
    /// A later block edits lines an earlier block wrote; sometimes its text
    /// also stands in the original (exactly, drifted, or as the pre-image).
    InOrderChain,
    /// Two blocks with the same SEARCH text (the region once or twice).
    InOrderSameSearch,
    /// Pieces around elision lines, each unique, at many gap sizes.
    ElisionPieces,
    /// Pieces around elision lines with a copy of a piece (or of all of
    /// them) between, before, after or elsewhere.
    ElisionLookalike,
    /// The elision line is real text of the file (in the gap, elsewhere,
    /// or the block as written stands elsewhere).
    ElisionLineInFile,
    /// An elision at the start or end of a block.
    ElisionEdge,
    /// Another adversarial kind with the file padded past 200,000 lines.
    Large,
}

impl Noise {
    /// Every kind, in table order.
    pub const ALL: [Noise; 19] = [
        Noise::Clean,
        Noise::ShiftedNumbers,
        Noise::ScatteredNumbers,
        Noise::NoNumbers,
        Noise::Whitespace,
        Noise::Case,
        Noise::Punctuation,
        Noise::Truncated,
        Noise::SmartQuotes,
        Noise::DroppedContext,
        Noise::BlankContext,
        Noise::PastEof,
        Noise::LinePrefixes,
        Noise::IndentShift,
        Noise::Crlf,
        Noise::Fenced,
        Noise::Stale,
        Noise::Ambiguous,
        Noise::HintedDuplicate,
    ];

    /// Short name for tables and fixture names.
    pub fn name(self) -> &'static str {
        match self {
            Noise::Clean => "clean",
            Noise::ShiftedNumbers => "wrong-numbers-same",
            Noise::ScatteredNumbers => "wrong-numbers-varied",
            Noise::NoNumbers => "no-numbers",
            Noise::Whitespace => "whitespace",
            Noise::Case => "case",
            Noise::Punctuation => "punctuation",
            Noise::Truncated => "truncated",
            Noise::SmartQuotes => "smart-quotes",
            Noise::DroppedContext => "dropped-context",
            Noise::BlankContext => "blank-context",
            Noise::PastEof => "past-eof",
            Noise::LinePrefixes => "line-prefixes",
            Noise::IndentShift => "indent-shift",
            Noise::Crlf => "crlf",
            Noise::Fenced => "fenced",
            Noise::Stale => "stale (refuse)",
            Noise::Ambiguous => "ambiguous (refuse)",
            Noise::HintedDuplicate => "duplicate + hint",
            Noise::UnmatchedBesideInsert => "adv-unmatched-beside-insert",
            Noise::UnmatchedBlankBesideInsert => "adv-unmatched-structural-beside-insert",
            Noise::HintDriftedTwin => "adv-hint-at-drifted-twin",
            Noise::HintFarTwin => "adv-far-hint-twin-beyond",
            Noise::CarriedOffset => "adv-carried-offset-twin",
            Noise::UnidiffZero => "adv-unidiff-zero",
            Noise::ReverseMulti => "adv-reverse-multi-hunk",
            Noise::OverlapContext => "adv-overlap-context-lookalike",
            Noise::OverlapRemoved => "adv-overlap-removed-lookalike",
            Noise::RemovedHeading => "adv-removed-heading-level",
            Noise::RemovedPrefixed => "adv-removed-line-suffix",
            Noise::PyReindent => "adv-py-reindent",
            Noise::PyBlockShift => "adv-py-block-shift",
            Noise::Reapply => "adv-already-applied",
            Noise::U0Duplicate => "adv-u0-insert-equal-neighbour",
            Noise::CaseFixStale => "adv-case-fix-stale-context",
            Noise::StaleNewElsewhere => "adv-stale-new-lines-elsewhere",
            Noise::InOrderChain => "adv-in-order-chain",
            Noise::InOrderSameSearch => "adv-in-order-same-search",
            Noise::ElisionPieces => "adv-elision-pieces",
            Noise::ElisionLookalike => "adv-elision-lookalike",
            Noise::ElisionLineInFile => "adv-elision-line-in-file",
            Noise::ElisionEdge => "adv-elision-at-edge",
            Noise::Large => "adv-large",
        }
    }

    /// True when the intended outcome is a refusal.
    pub fn must_refuse(self) -> bool {
        self.expectation() == adversary::Expectation::Refuse
    }

    /// Every adversarial kind, in table order.
    pub const ADVERSARIAL: [Noise; 24] = [
        Noise::UnmatchedBesideInsert,
        Noise::UnmatchedBlankBesideInsert,
        Noise::HintDriftedTwin,
        Noise::HintFarTwin,
        Noise::CarriedOffset,
        Noise::UnidiffZero,
        Noise::ReverseMulti,
        Noise::OverlapContext,
        Noise::OverlapRemoved,
        Noise::RemovedHeading,
        Noise::RemovedPrefixed,
        Noise::PyReindent,
        Noise::PyBlockShift,
        Noise::Reapply,
        Noise::U0Duplicate,
        Noise::CaseFixStale,
        Noise::StaleNewElsewhere,
        Noise::InOrderChain,
        Noise::InOrderSameSearch,
        Noise::ElisionPieces,
        Noise::ElisionLookalike,
        Noise::ElisionLineInFile,
        Noise::ElisionEdge,
        Noise::Large,
    ];

    /// The kinds of the in-order and elision stream (`sequence.rs`),
    /// generated apart from the other adversarial kinds (`--seq-cases`), so
    /// that adding them changed none of those cases.
    pub const SEQUENCE: [Noise; 6] = [
        Noise::InOrderChain,
        Noise::InOrderSameSearch,
        Noise::ElisionPieces,
        Noise::ElisionLookalike,
        Noise::ElisionLineInFile,
        Noise::ElisionEdge,
    ];

    /// True for the adversarial placement kinds (`adversary.rs`).
    pub fn is_adversarial(self) -> bool {
        Noise::ADVERSARIAL.contains(&self)
    }

    /// What the kind's cases must end in (for `Large`, see [`Case::expectation`]).
    pub fn expectation(self) -> adversary::Expectation {
        use adversary::Expectation::*;
        match self {
            Noise::Stale
            | Noise::Ambiguous
            | Noise::UnmatchedBesideInsert
            | Noise::UnmatchedBlankBesideInsert
            | Noise::HintFarTwin
            | Noise::OverlapRemoved
            | Noise::RemovedHeading
            | Noise::RemovedPrefixed
            | Noise::PyBlockShift
            | Noise::StaleNewElsewhere => Refuse,
            Noise::HintDriftedTwin
            | Noise::CarriedOffset
            | Noise::OverlapContext
            | Noise::PyReindent
            | Noise::CaseFixStale => ApplyOrRefuse,
            // Each case says its own (`Case::expectation`).
            n if Noise::SEQUENCE.contains(&n) => ApplyOrRefuse,
            _ => Apply,
        }
    }

    /// True when exit 0 with the file unchanged is a wrong outcome (the tool
    /// claimed the patch was already applied when it was not).
    pub fn noop_is_wrong(self) -> bool {
        matches!(
            self,
            Noise::U0Duplicate | Noise::CaseFixStale | Noise::StaleNewElsewhere
        ) || Noise::SEQUENCE.contains(&self)
    }

    /// The formats this damage applies to.
    pub fn formats(self) -> &'static [Format] {
        use Format::*;
        match self {
            Noise::ShiftedNumbers | Noise::ScatteredNumbers | Noise::NoNumbers => &[Unified],
            Noise::LinePrefixes | Noise::IndentShift => &[SearchReplace],
            Noise::Ambiguous => &[Numberless, Codex, SearchReplace],
            Noise::HintedDuplicate => &[Unified, SearchReplace],
            Noise::HintDriftedTwin => &[Unified, Codex, SearchReplace],
            Noise::HintFarTwin | Noise::CarriedOffset => &[Unified, SearchReplace],
            Noise::UnidiffZero | Noise::ReverseMulti | Noise::U0Duplicate => &[Unified],
            // A block placed in order carries no line number or anchor.
            Noise::InOrderChain | Noise::InOrderSameSearch => &[Numberless, Codex, SearchReplace],
            _ => &Format::ALL,
        }
    }
}

/// Every (format, noise) pair a case can have, in table order.
pub fn combos() -> Vec<(Format, Noise)> {
    Noise::ALL
        .iter()
        .flat_map(|&n| n.formats().iter().map(move |&f| (f, n)))
        .collect()
}

/// Which adversarial cases a generator run makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// The placement kinds of `adversary.rs` (and their large variants).
    Placement,
    /// The in-order and elision kinds of `sequence.rs` (and theirs).
    Sequence,
}

impl Stream {
    /// The stream's kinds, in table order, `Large` last.
    pub fn kinds(self) -> Vec<Noise> {
        Noise::ADVERSARIAL
            .iter()
            .copied()
            .filter(|n| {
                *n == Noise::Large || Noise::SEQUENCE.contains(n) == (self == Stream::Sequence)
            })
            .collect()
    }
}

/// Every (format, adversarial kind) pair of a stream, in table order.
pub fn adversarial_combos(stream: Stream) -> Vec<(Format, Noise)> {
    stream
        .kinds()
        .into_iter()
        .flat_map(|n| n.formats().iter().map(move |&f| (f, n)))
        .collect()
}

/// What the tool should do with a case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Apply, giving exactly these bytes.
    Apply(Vec<u8>),
    /// Refuse, leaving the file as it was.
    Refuse,
}

/// One generated case: a file, a patch for it, the intended outcome.
#[derive(Clone, Debug)]
pub struct Case {
    /// Position in the run (0-based).
    pub id: usize,
    /// The file's path as the patch names it.
    pub path: String,
    /// Its notation.
    pub format: Format,
    /// Its damage.
    pub noise: Noise,
    /// The file the tool is given.
    pub original: Vec<u8>,
    /// The patch text.
    pub patch: Vec<u8>,
    /// What should happen.
    pub expect: Expect,
    /// Apply in reverse (`-R`, for every tool).
    pub reverse: bool,
    /// The patch is `git diff -U0` output (`git apply` needs `--unidiff-zero`).
    pub unidiff_zero: bool,
    /// Filler lines put above `original` (and the intended result) when the
    /// case is run; the patch's numbers already count them.
    pub pad: usize,
    /// For `Large`: the kind that was padded.
    pub base: Option<Noise>,
    /// For padded cases: the patch before its numbers were shifted (for
    /// running the same case unpadded); empty otherwise.
    pub unpadded_patch: Vec<u8>,
    /// The case's own intended outcome, when not its kind's.
    pub expect_as: Option<adversary::Expectation>,
    /// Which construction of its kind built it.
    pub variant: Option<&'static str>,
}

impl Case {
    /// The kind that decides the expectation (the padded kind for `Large`).
    pub fn kind(&self) -> Noise {
        self.base.unwrap_or(self.noise)
    }

    /// What the case must end in.
    pub fn expectation(&self) -> adversary::Expectation {
        self.expect_as.unwrap_or_else(|| self.kind().expectation())
    }

    /// Table label: the kind, and for `Large` the padded kind; then the
    /// variant, if any.
    pub fn label(&self) -> String {
        let kind = match self.variant {
            Some(v) => format!("{}: {v}", self.kind().name()),
            None => self.kind().name().to_string(),
        };
        match self.base {
            Some(_) => format!("{} ({kind})", self.noise.name()),
            None => kind,
        }
    }

    /// The padding put above the file, as bytes.
    pub fn padding(&self) -> Vec<u8> {
        if self.pad == 0 {
            return Vec::new();
        }
        let ext = self.path.rsplit('.').next().unwrap_or("");
        adversary::padding(ext, self.pad)
    }
}

/// A run's cases and what was passed over to get them.
#[derive(Debug, Default)]
pub struct Generated {
    /// The cases, `count` of them (fewer only if the corpus is empty).
    pub cases: Vec<Case>,
    /// Picks skipped because a hunk's context was not unique in the file.
    pub skipped_duplicate: usize,
    /// Picks skipped because the damage had no place to go (or the file was unusable).
    pub skipped_other: usize,
}

/// Why one pick did not become a case.
#[derive(Debug)]
enum Skip {
    /// A hunk's lines occur more than once in the file.
    Duplicate,
    /// Anything else: unusable file, no place for the damage, unlucky edit.
    Other,
}

/// Generates `count` cases from `corpus` with `seed`; case `i` has the
/// `i % combos().len()`-th (format, noise) pair.
pub fn generate(corpus: &Corpus, seed: u64, count: usize) -> Generated {
    let mut out = Generated::default();
    if corpus.files.is_empty() {
        return out;
    }
    let combos = combos();
    for id in 0..count {
        let (format, noise) = combos[id % combos.len()];
        let mut rng = Rng::new(seed ^ (id as u64).wrapping_mul(0xa076_1d64_78bd_642f));
        for _ in 0..2000 {
            let i = corpus.pick(rng.next_u64());
            let Some(text) = corpus.load(i) else {
                out.skipped_other += 1;
                continue;
            };
            match build(&mut rng, &corpus.files[i].rel, &text, format, noise) {
                Ok((original, patch, expect)) => {
                    let path = corpus.files[i].rel.clone();
                    out.cases.push(Case {
                        id,
                        path,
                        format,
                        noise,
                        original,
                        patch,
                        expect,
                        reverse: false,
                        unidiff_zero: false,
                        pad: 0,
                        base: None,
                        unpadded_patch: Vec::new(),
                        expect_as: None,
                        variant: None,
                    });
                    break;
                }
                Err(Skip::Duplicate) => out.skipped_duplicate += 1,
                Err(Skip::Other) => out.skipped_other += 1,
            }
        }
    }
    out
}

/// Appends `count` adversarial cases of `stream` (ids from `first_id`) to
/// `out`; case `first_id + i` takes the `i % adversarial_combos().len()`-th
/// pair. The `Large` kind builds a case of another kind of the stream that
/// reads the same format and pads its file past 200,000 lines.
pub fn generate_adversarial(
    corpus: &Corpus,
    seed: u64,
    count: usize,
    first_id: usize,
    stream: Stream,
    out: &mut Generated,
) {
    if corpus.files.is_empty() {
        return;
    }
    let combos = adversarial_combos(stream);
    let salt = match stream {
        Stream::Placement => 0x5eed_ad00_0000_0000,
        Stream::Sequence => 0x5e9e_e11d_0000_0000,
    };
    for i in 0..count {
        let id = first_id + i;
        let (format, noise) = combos[i % combos.len()];
        let mut rng =
            Rng::new(seed.rotate_left(17) ^ salt ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let (kind, pad) = if noise == Noise::Large {
            let bases: Vec<Noise> = stream
                .kinds()
                .into_iter()
                .filter(|n| *n != Noise::Large && n.formats().contains(&format))
                .collect();
            (*rng.pick(&bases), adversary::LARGE_PAD + rng.below(2000))
        } else {
            (noise, 0)
        };
        for _ in 0..4000 {
            let f = corpus.pick(rng.next_u64());
            let Some(text) = corpus.load(f) else {
                out.skipped_other += 1;
                continue;
            };
            let path = &corpus.files[f].rel;
            match adversary::build(&mut rng, path, &text, format, kind) {
                Ok(b) => {
                    let mut patch = b.patch;
                    let mut unpadded_patch = Vec::new();
                    if pad > 0 {
                        unpadded_patch = patch.clone().into_bytes();
                        patch = adversary::shift_patch(&patch, format, pad);
                    }
                    out.cases.push(Case {
                        id,
                        path: path.clone(),
                        format,
                        noise,
                        original: join(&b.file).into_bytes(),
                        patch: patch.into_bytes(),
                        expect: b.expect,
                        reverse: b.reverse,
                        unidiff_zero: b.unidiff_zero,
                        pad,
                        base: (noise == Noise::Large).then_some(kind),
                        unpadded_patch,
                        expect_as: b.expectation,
                        variant: b.variant,
                    });
                    break;
                }
                Err(Skip::Duplicate) => out.skipped_duplicate += 1,
                Err(Skip::Other) => out.skipped_other += 1,
            }
        }
    }
}

/// Lines compared as the most lenient tiers do: trimmed, inner whitespace
/// collapsed, lowercased.
fn loose(line: &str) -> String {
    line.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// How often `block` occurs in `lines` (compared loosely).
fn occurrences(lines: &[String], block: &[&str]) -> usize {
    if block.is_empty() || block.len() > lines.len() {
        return 0;
    }
    let hay: Vec<String> = lines.iter().map(|l| loose(l)).collect();
    let needle: Vec<String> = block.iter().map(|l| loose(l)).collect();
    hay.windows(needle.len())
        .filter(|w| *w == needle.as_slice())
        .count()
}

/// The `@@` anchor for each hunk: the nearest line before it (within 40
/// lines, after the previous hunk) that is less indented than the hunk's first
/// line and unique in the file; used half of the time.
fn codex_anchors(rng: &mut Rng, lines: &[String], hunks: &[Hunk]) -> Vec<Option<String>> {
    let mut floor = 0;
    hunks
        .iter()
        .map(|h| {
            let first = lines.get(h.old_start).map_or("", String::as_str);
            let depth = first.len() - first.trim_start().len();
            let lo = floor.max(h.old_start.saturating_sub(40));
            floor = h.old_start + h.old_lines().len();
            if !rng.chance(0.5) {
                return None;
            }
            lines[lo..h.old_start]
                .iter()
                .rev()
                .find(|l| !l.trim().is_empty() && l.len() - l.trim_start().len() < depth)
                .filter(|l| occurrences(lines, &[l.as_str()]) == 1)
                .cloned()
        })
        .collect()
}

/// Builds one case from `text`: (file given to the tool, patch, expectation).
fn build(
    rng: &mut Rng,
    path: &str,
    text: &str,
    format: Format,
    noise: Noise,
) -> Result<(Vec<u8>, Vec<u8>, Expect), Skip> {
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    let ext = path.rsplit('.').next().unwrap_or("");
    let single = matches!(noise, Noise::Ambiguous | Noise::HintedDuplicate);
    let n = if single { 1 } else { 1 + rng.below(3) };
    let edits = random_edits(
        rng,
        &lines,
        ext,
        n,
        noise == Noise::PastEof,
        noise == Noise::Stale,
    )
    .ok_or(Skip::Other)?;
    let mut hunks = hunks_from_edits(&lines, &edits, 3);
    for h in &hunks {
        if occurrences(&lines, &h.old_lines()) != 1 {
            return Err(Skip::Duplicate);
        }
        if format == Format::SearchReplace
            && h.body.iter().any(|l| render::looks_like_marker(&l.text))
        {
            return Err(Skip::Other);
        }
    }
    let mut file = lines.clone();
    if single {
        // Copy the hunk's region at least 20 lines away; edit one copy.
        let h = &mut hunks[0];
        let (s, e) = (h.old_start, h.old_start + h.old_lines().len());
        let mut spots: Vec<usize> = (0..=s.saturating_sub(20)).filter(|_| s >= 20).collect();
        spots.extend((e + 20)..=lines.len());
        if spots.is_empty() {
            return Err(Skip::Other);
        }
        let p = spots[rng.below(spots.len())];
        let copy: Vec<String> = lines[s..e].to_vec();
        file.splice(p..p, copy);
        if p <= s {
            h.old_start += e - s;
        }
        if noise == Noise::HintedDuplicate && rng.chance(0.5) {
            h.old_start = p;
        }
        if occurrences(&file, &h.old_lines()) != 2 {
            return Err(Skip::Other);
        }
    }
    if noise == Noise::Stale {
        // Rewrite one removed line in the file: a word becomes another.
        let mut spots = Vec::new();
        for h in &hunks {
            let mut at = h.old_start;
            for l in &h.body {
                match l.kind {
                    Kind::Remove if edit::longest_word(&l.text).is_some() => spots.push(at),
                    _ => {}
                }
                if l.kind != Kind::Add {
                    at += 1;
                }
            }
        }
        if spots.is_empty() {
            return Err(Skip::Other);
        }
        let at = spots[rng.below(spots.len())];
        file[at] = edit::variant(rng, &file[at]).ok_or(Skip::Other)?;
        if loose(&file[at]) == loose(&lines[at]) {
            return Err(Skip::Other);
        }
        // A rewrite that happens to produce one of the patch's added lines
        // makes the patch already applied, not stale: not a refusal case.
        let added = hunks
            .iter()
            .flat_map(|h| &h.body)
            .filter(|l| l.kind == Kind::Add)
            .any(|l| loose(&l.text) == loose(&file[at]));
        if added {
            return Err(Skip::Other);
        }
    }
    let mut intended = hunks.clone();
    let applied = match noise {
        Noise::Whitespace => noise::whitespace(rng, &mut hunks),
        Noise::Case => noise::case(rng, &mut hunks),
        Noise::Punctuation => noise::punctuation(rng, &mut hunks),
        Noise::Truncated => noise::truncate(rng, &mut hunks),
        Noise::SmartQuotes => noise::smart_quotes(rng, &mut hunks),
        Noise::DroppedContext => noise::drop_context(rng, &mut hunks),
        Noise::BlankContext => noise::blank_context(rng, &mut hunks, &mut intended),
        Noise::PastEof => noise::past_eof(rng, &mut hunks, file.len(), ext),
        _ => true,
    };
    if !applied {
        return Err(Skip::Other);
    }
    let expect = if noise.must_refuse() {
        Expect::Refuse
    } else {
        let new = apply_hunks(&file, &intended).ok_or(Skip::Other)?;
        Expect::Apply(join(&new).into_bytes())
    };
    let mut patch = match format {
        Format::Unified => {
            let numbers = match noise {
                Noise::ShiftedNumbers => {
                    let d = shift_amount(rng, hunks[0].old_start + 1);
                    Numbers::Shifted(vec![d; hunks.len()])
                }
                Noise::ScatteredNumbers => Numbers::Shifted(
                    hunks
                        .iter()
                        .map(|h| shift_amount(rng, h.old_start + 1))
                        .collect(),
                ),
                Noise::NoNumbers => Numbers::Bare {
                    pair: rng.chance(0.5),
                },
                _ => Numbers::Correct,
            };
            render::unified(path, &hunks, &numbers)
        }
        Format::Numberless => render::unified(
            path,
            &hunks,
            &Numbers::Bare {
                pair: rng.chance(0.5),
            },
        ),
        Format::Codex => {
            let anchors = if noise == Noise::Ambiguous {
                vec![None; hunks.len()]
            } else {
                codex_anchors(rng, &file, &hunks)
            };
            render::codex(path, &hunks, &anchors)
        }
        Format::SearchReplace => {
            let mut blocks = render::sr_blocks(&hunks);
            match noise {
                Noise::LinePrefixes => noise::line_prefixes(&mut blocks),
                Noise::IndentShift if !noise::indent_shift(rng, &mut blocks) => {
                    return Err(Skip::Other);
                }
                _ => {}
            }
            render::search_replace(path, &blocks, noise == Noise::HintedDuplicate)
        }
    };
    match noise {
        Noise::Crlf => patch = noise::crlf(&patch),
        Noise::Fenced => {
            let info = match format {
                Format::SearchReplace => None,
                Format::Codex => Some(""),
                _ => Some("diff"),
            };
            patch = noise::fenced(rng, &patch, path, info);
        }
        _ => {}
    }
    Ok((join(&file).into_bytes(), patch.into_bytes(), expect))
}

/// A header shift of 5..=200 lines, either way, that keeps a header
/// starting at line `start` at line 1 or later.
fn shift_amount(rng: &mut Rng, start: usize) -> i64 {
    let d = 5 + rng.below(196) as i64;
    if rng.chance(0.5) || start as i64 - d < 1 {
        d
    } else {
        -d
    }
}
