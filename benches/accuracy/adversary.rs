//! Adversarial placement cases: patches whose text fits the file in more than
//! one way, or fits a place that is not the intended one, so that only a
//! careful engine gets them right. Each builder knows the intended outcome by
//! construction: the exact bytes, a refusal, or either (see [`Expectation`]).
//!
//! Unlike the damage kinds in `noise.rs`, these do not start from a clean
//! patch of a unique region: they build the file and the patch together so
//! that a look-alike, a twin, an unmatched line or a misleading hint stands
//! exactly where it hurts.

use super::edit::{self, BodyLine, Edit, Hunk, Kind, apply_hunks, hunks_from_edits};
use super::render::{self, Numbers};
use super::{Expect, Format, Noise, Rng, Skip, loose, occurrences};

/// What a kind's cases must end in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expectation {
    /// Exit 0 with exactly the intended bytes.
    Apply,
    /// Refusal, file unchanged.
    Refuse,
    /// The intended bytes, or a refusal (the tool cannot always know); any
    /// other change is wrong.
    ApplyOrRefuse,
}

impl Expectation {
    /// Short label for tables.
    pub fn label(self) -> &'static str {
        match self {
            Expectation::Apply => "apply",
            Expectation::Refuse => "refuse",
            Expectation::ApplyOrRefuse => "apply or refuse",
        }
    }
}

/// One built case before it is wrapped into a [`super::Case`].
pub struct Built {
    /// The file given to the tool (without padding).
    pub file: Vec<String>,
    /// The patch text.
    pub patch: String,
    /// The intended outcome.
    pub expect: Expect,
    /// Apply in reverse (`-R`).
    pub reverse: bool,
    /// The patch is `-U0` output (peers need `--unidiff-zero`).
    pub unidiff_zero: bool,
    /// This case's intended outcome when it is not its kind's
    /// (`sequence.rs` builds apply and refuse cases of one kind).
    pub expectation: Option<Expectation>,
    /// Which construction of the kind built it (a table row of its own).
    pub variant: Option<&'static str>,
}

/// Lines of filler put above a file for the large variant: past the
/// engine's 200,000-line threshold.
pub const LARGE_PAD: usize = 200_001;

/// The filler line `i` for a file with extension `ext`: unique, and like no
/// line a patch carries.
pub fn filler(ext: &str, i: usize) -> String {
    match ext {
        "rs" => format!("// filler line {i:07} of the padding"),
        "py" | "toml" => format!("# filler line {i:07} of the padding"),
        _ => format!("Filler line {i:07} of the padding."),
    }
}

/// `pad` filler lines, as text.
pub fn padding(ext: &str, pad: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(pad * 40);
    for i in 0..pad {
        out.extend_from_slice(filler(ext, i).as_bytes());
        out.push(b'\n');
    }
    out
}

/// The patch with every line number moved down by `pad` lines (the file
/// gets `pad` lines above it).
pub fn shift_patch(patch: &str, format: Format, pad: usize) -> String {
    let mut out = String::with_capacity(patch.len() + 64);
    for line in patch.split_inclusive('\n') {
        let shifted = match format {
            Format::Unified => line.strip_prefix("@@ -").and_then(|rest| {
                let (nums, tail) = rest.split_once(" @@")?;
                let (old, new) = nums.split_once(" +")?;
                let bump = |s: &str| -> Option<String> {
                    let (a, b) = match s.split_once(',') {
                        Some((a, b)) => (a, Some(b)),
                        None => (s, None),
                    };
                    let a: usize = a.parse().ok()?;
                    Some(match b {
                        Some(b) => format!("{},{b}", a + pad),
                        None => format!("{}", a + pad),
                    })
                };
                Some(format!("@@ -{} +{} @@{tail}", bump(old)?, bump(new)?))
            }),
            Format::SearchReplace => line
                .strip_prefix(":start_line:")
                .and_then(|n| n.trim().parse::<usize>().ok())
                .map(|n| format!(":start_line:{}\n", n + pad)),
            _ => None,
        };
        out.push_str(shifted.as_deref().unwrap_or(line));
    }
    out
}

pub(super) fn ctx(t: &str) -> BodyLine {
    BodyLine {
        kind: Kind::Context,
        text: t.to_string(),
    }
}

pub(super) fn add(t: &str) -> BodyLine {
    BodyLine {
        kind: Kind::Add,
        text: t.to_string(),
    }
}

pub(super) fn is_blank(l: &str) -> bool {
    l.trim().is_empty()
}

pub(super) fn indent_of(l: &str) -> &str {
    &l[..l.len() - l.trim_start().len()]
}

/// Applies each `(at, hunk)` at `at` in `file`, keeping the file's own text
/// for context and removed lines (they may differ from the hunk's in
/// whitespace or case). `None` if they overlap or run past the end.
pub(super) fn place(file: &[String], at: &[(usize, &Hunk)]) -> Option<Vec<String>> {
    let mut list: Vec<(usize, &Hunk)> = at.to_vec();
    list.sort_by_key(|p| p.0);
    let mut out = Vec::new();
    let mut pos = 0;
    for (start, h) in list {
        let old = h.old_lines().len();
        if start < pos || start + old > file.len() {
            return None;
        }
        out.extend_from_slice(&file[pos..start]);
        let mut i = start;
        for l in &h.body {
            match l.kind {
                Kind::Context => {
                    out.push(file[i].clone());
                    i += 1;
                }
                Kind::Remove => i += 1,
                Kind::Add => out.push(l.text.clone()),
            }
        }
        pos = i;
    }
    out.extend_from_slice(&file[pos..]);
    Some(out)
}

/// Exact occurrences of `block` in `lines`.
pub(super) fn exact_count(lines: &[String], block: &[&str]) -> usize {
    if block.is_empty() || block.len() > lines.len() {
        return 0;
    }
    lines
        .windows(block.len())
        .filter(|w| w.iter().zip(block).all(|(a, b)| a == b))
        .count()
}

/// `line` with the case of its first letter flipped.
fn flip_case(line: &str) -> Option<String> {
    let i = line.find(|c: char| c.is_ascii_alphabetic())?;
    let c = line[i..].chars().next()?;
    let f = if c.is_ascii_uppercase() {
        c.to_ascii_lowercase()
    } else {
        c.to_ascii_uppercase()
    };
    Some(format!("{}{f}{}", &line[..i], &line[i + 1..]))
}

/// Whitespace drift or a case flip on a line: equal loosely, not exactly.
pub(super) fn drifted(rng: &mut Rng, line: &str) -> Option<String> {
    let got = if rng.chance(0.5) {
        super::noise::drift(rng, line)
    } else {
        flip_case(line)
    }?;
    (got != line && loose(&got) == loose(line)).then_some(got)
}

/// How the hunks of a case are rendered.
#[derive(Clone, Debug, Default)]
pub(super) struct Hints {
    /// Per hunk, the 1-based old start the header (or `:start_line:`)
    /// claims; `None` for the correct one.
    pub(super) lines: Vec<Option<usize>>,
    /// Codex `@@` anchors per hunk.
    pub(super) anchors: Vec<Option<String>>,
    /// Codex `*** End of File` after the last hunk.
    pub(super) eof: bool,
    /// SEARCH/REPLACE blocks never get a `:start_line:` (a block placed in
    /// order must carry no line number).
    pub(super) no_start_line: bool,
}

/// Renders `hunks` (positions in the file the tool gets) in `format`.
pub(super) fn render_as(
    rng: &mut Rng,
    path: &str,
    format: Format,
    hunks: &[Hunk],
    hints: &Hints,
) -> String {
    let correct = render::starts(hunks);
    match format {
        Format::Unified => {
            let deltas: Vec<i64> = correct
                .iter()
                .enumerate()
                .map(|(k, (old, _))| {
                    hints
                        .lines
                        .get(k)
                        .copied()
                        .flatten()
                        .map_or(0, |c| c as i64 - *old as i64)
                })
                .collect();
            render::unified(path, hunks, &Numbers::Shifted(deltas))
        }
        Format::Numberless => render::unified(
            path,
            hunks,
            &Numbers::Bare {
                pair: rng.chance(0.5),
            },
        ),
        Format::Codex => {
            let mut out = render::codex(path, hunks, &hints.anchors);
            if hints.eof {
                let cut = out.len() - "*** End Patch\n".len();
                out.insert_str(cut, "*** End of File\n");
            }
            out
        }
        Format::SearchReplace => {
            let mut blocks = render::sr_blocks(hunks);
            let with_lines = !hints.no_start_line
                && (hints.lines.iter().any(Option::is_some) || rng.chance(0.5));
            for (k, b) in blocks.iter_mut().enumerate() {
                if let Some(Some(c)) = hints.lines.get(k) {
                    b.start_line = *c;
                }
            }
            render::search_replace(path, &blocks, with_lines)
        }
    }
}

/// A `git diff -U0`-style patch: `diff --git`, `index`, headers with counts
/// of 1 left out, and git's function-name text after the `@@`.
fn render_git_u0(path: &str, lines: &[String], hunks: &[Hunk]) -> String {
    let mut out = format!(
        "diff --git a/{path} b/{path}\nindex 3f2a9c1..8be07d4 100644\n--- a/{path}\n+++ b/{path}\n"
    );
    let count = |start: usize, n: usize| {
        if n == 1 {
            format!("{start}")
        } else {
            format!("{start},{n}")
        }
    };
    for (h, (old, new)) in hunks.iter().zip(render::starts(hunks)) {
        let (ol, nl) = (h.old_lines().len(), h.new_lines().len());
        // git's default function line: the last line before the hunk that
        // starts with a letter, `_` or `$`, cut to 80 bytes.
        let func = lines[..h.old_start.min(lines.len())]
            .iter()
            .rev()
            .find(|l| {
                l.chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
            })
            .map(|l| {
                let mut end = l.len().min(80);
                while !l.is_char_boundary(end) {
                    end -= 1;
                }
                format!(" {}", l[..end].trim_end())
            })
            .unwrap_or_default();
        out.push_str(&format!(
            "@@ -{} +{} @@{func}\n",
            count(old, ol),
            count(new, nl)
        ));
        for l in &h.body {
            let mark = match l.kind {
                Kind::Context => ' ',
                Kind::Remove => '-',
                Kind::Add => '+',
            };
            out.push(mark);
            out.push_str(&l.text);
            out.push('\n');
        }
    }
    out
}

/// Fails when a SEARCH/REPLACE rendering would hold a marker-like line.
pub(super) fn markers_ok(format: Format, hunks: &[Hunk]) -> Result<(), Skip> {
    if format == Format::SearchReplace
        && hunks
            .iter()
            .any(|h| h.body.iter().any(|l| render::looks_like_marker(&l.text)))
    {
        return Err(Skip::Other);
    }
    Ok(())
}

/// Every hunk's old side occurs exactly once in `lines`, loosely.
pub(super) fn all_unique(lines: &[String], hunks: &[Hunk]) -> Result<(), Skip> {
    for h in hunks {
        if occurrences(lines, &h.old_lines()) != 1 {
            return Err(Skip::Duplicate);
        }
    }
    Ok(())
}

/// One random edit (insert, replace or delete) as a single hunk with 3 lines
/// of context, unique in `lines`.
pub(super) fn one_hunk(
    rng: &mut Rng,
    lines: &[String],
    ext: &str,
    removal: bool,
) -> Result<Hunk, Skip> {
    let edits = edit::random_edits(rng, lines, ext, 1, false, removal).ok_or(Skip::Other)?;
    let hunks = hunks_from_edits(lines, &edits, 3);
    all_unique(lines, &hunks)?;
    hunks.into_iter().next().ok_or(Skip::Other)
}

/// The file with a copy of `lines[s..e]` put at least `min_gap` lines away,
/// at a random distance; returns (file, start of the original, start of the
/// copy) as positions in the new file.
pub(super) fn with_twin(
    rng: &mut Rng,
    lines: &[String],
    s: usize,
    e: usize,
    min_gap: usize,
) -> Option<(Vec<String>, usize, usize)> {
    let mut spots: Vec<usize> = Vec::new();
    if s >= min_gap {
        spots.extend(0..=s - min_gap);
    }
    spots.extend((e + min_gap)..=lines.len());
    if spots.is_empty() {
        return None;
    }
    // Favour nearer spots half of the time: distances vary widely.
    let p = if rng.chance(0.5) {
        let near: Vec<usize> = spots
            .iter()
            .copied()
            .filter(|&p| p.abs_diff(s) < 150)
            .collect();
        if near.is_empty() {
            *rng.pick(&spots)
        } else {
            *rng.pick(&near)
        }
    } else {
        *rng.pick(&spots)
    };
    let mut file = lines.to_vec();
    file.splice(p..p, lines[s..e].iter().cloned());
    if p <= s {
        Some((file, s + (e - s), p))
    } else {
        Some((file, s, p))
    }
}

/// Drifts one non-blank context line of the hunk's old side standing at
/// `at` in `file`; returns whether it could.
fn drift_copy(rng: &mut Rng, file: &mut [String], at: usize, h: &Hunk) -> bool {
    let mut spots = Vec::new();
    let mut i = at;
    for l in &h.body {
        match l.kind {
            Kind::Context => {
                if !is_blank(&l.text) {
                    spots.push(i);
                }
                i += 1;
            }
            Kind::Remove => i += 1,
            Kind::Add => {}
        }
    }
    rng.shuffle(&mut spots);
    for s in spots {
        if let Some(d) = drifted(rng, &file[s]) {
            file[s] = d;
            return true;
        }
    }
    false
}

/// The nearest line before `at` (within 40, not before `floor`) that is
/// non-blank and unique in `file`: a Codex anchor.
pub(super) fn anchor_before(file: &[String], floor: usize, at: usize) -> Option<String> {
    let lo = floor.max(at.saturating_sub(40));
    file[lo..at]
        .iter()
        .rev()
        .find(|l| !is_blank(l) && l.trim().len() > 3 && exact_count(file, &[l.as_str()]) == 1)
        .filter(|l| occurrences(file, &[l.as_str()]) == 1)
        .cloned()
}

/// Builds one adversarial case.
pub(super) fn build(
    rng: &mut Rng,
    path: &str,
    text: &str,
    format: Format,
    noise: Noise,
) -> Result<Built, Skip> {
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    let ext = path.rsplit('.').next().unwrap_or("");
    let simple = |file: Vec<String>, patch: String, expect: Expect| Built {
        file,
        patch,
        expect,
        reverse: false,
        unidiff_zero: false,
        expectation: None,
        variant: None,
    };
    match noise {
        Noise::UnmatchedBesideInsert | Noise::UnmatchedBlankBesideInsert => {
            let n = lines.len();
            let before = 1 + rng.below(3);
            let after = 1 + rng.below(3);
            let dropped = if rng.chance(0.75) { 1 } else { 2 };
            let i = before + rng.below(n.saturating_sub(before + dropped + after + 1).max(1));
            // lines[i] is the last context line before the insertion; the
            // dropped lines follow it; then `after` context lines.
            let a = i;
            let d = a + 1..a + 1 + dropped;
            let tail = d.end..d.end + after;
            if tail.end > n || is_blank(&lines[a]) || is_blank(&lines[tail.start]) {
                return Err(Skip::Other);
            }
            // Structural: blank, only closing brackets and punctuation, or a
            // comment (the engine skips these more readily).
            let structural = |l: &str| {
                let t = l.trim();
                t.is_empty()
                    || t.chars().all(|c| "{}()[];,".contains(c))
                    || (ext == "rs" && t.starts_with("//"))
                    || (matches!(ext, "py" | "toml") && t.starts_with('#'))
            };
            let want_structural = noise == Noise::UnmatchedBlankBesideInsert;
            if lines[d.clone()]
                .iter()
                .any(|l| structural(l) != want_structural)
            {
                return Err(Skip::Other);
            }
            if lines[d.clone()]
                .iter()
                .any(|l| loose(l) == loose(&lines[a]))
                || lines[d.clone()]
                    .iter()
                    .any(|l| loose(l) == loose(&lines[tail.start]))
            {
                // A dropped line equal to a neighbour: readings coincide.
                return Err(Skip::Other);
            }
            let new: Vec<String> = (0..1 + rng.below(2))
                .map(|_| edit::new_line(rng, &lines, d.start, ext))
                .collect();
            if new
                .iter()
                .any(|x| lines[d.clone()].iter().any(|l| loose(l) == loose(x)))
            {
                return Err(Skip::Other);
            }
            let mut body: Vec<BodyLine> =
                lines[a + 1 - before..=a].iter().map(|l| ctx(l)).collect();
            body.extend(new.iter().map(|l| add(l)));
            body.extend(lines[tail].iter().map(|l| ctx(l)));
            let h = Hunk {
                old_start: a + 1 - before,
                body,
            };
            let full: Vec<&str> = lines[a + 1 - before..d.end + after]
                .iter()
                .map(String::as_str)
                .collect();
            if occurrences(&lines, &full) != 1 || occurrences(&lines, &h.old_lines()) != 0 {
                return Err(Skip::Duplicate);
            }
            markers_ok(format, std::slice::from_ref(&h))?;
            let hints = Hints {
                anchors: vec![anchor_before(&lines, 0, h.old_start).filter(|_| rng.chance(0.5))],
                ..Hints::default()
            };
            let patch = render_as(rng, path, format, &[h], &hints);
            Ok(simple(lines, patch, Expect::Refuse))
        }
        Noise::HintDriftedTwin | Noise::HintFarTwin => {
            let h = one_hunk(rng, &lines, ext, false)?;
            markers_ok(format, std::slice::from_ref(&h))?;
            let len = h.old_lines().len();
            let (s, e) = (h.old_start, h.old_start + len);
            let eof = format == Format::Codex && noise == Noise::HintDriftedTwin && rng.chance(0.4);
            let (mut file, orig, copy) = if eof {
                if e >= lines.len() {
                    return Err(Skip::Other);
                }
                let mut f = lines.clone();
                f.extend(lines[s..e].iter().cloned());
                (f, s, lines.len())
            } else {
                with_twin(rng, &lines, s, e, 20).ok_or(Skip::Other)?
            };
            let drift_at = if eof {
                Some(copy)
            } else if noise == Noise::HintDriftedTwin || rng.chance(0.5) {
                Some(if rng.chance(0.5) { orig } else { copy })
            } else {
                None
            };
            if let Some(at) = drift_at
                && !drift_copy(rng, &mut file, at, &h)
            {
                return Err(Skip::Other);
            }
            if occurrences(&file, &h.old_lines()) != 2 {
                return Err(Skip::Other);
            }
            if noise == Noise::HintDriftedTwin {
                let hinted = drift_at.expect("drifted twin");
                let other = if hinted == orig { copy } else { orig };
                let mut ph = h.clone();
                ph.old_start = other; // the patch text is that copy's
                let mut hints = Hints::default();
                match format {
                    Format::Codex if eof => hints.eof = true,
                    Format::Codex => {
                        // An anchor after the exact twin, before the drifted
                        // one: only the drifted twin follows the anchor.
                        if other > hinted {
                            return Err(Skip::Other);
                        }
                        let a = anchor_before(&file, other + len, hinted).ok_or(Skip::Other)?;
                        hints.anchors = vec![Some(a)];
                    }
                    _ => hints.lines = vec![Some(hinted + 1)],
                }
                let mut at_hint = h.clone();
                at_hint.old_start = hinted;
                let want = place(&file, &[(hinted, &at_hint)]).ok_or(Skip::Other)?;
                let patch = render_as(rng, path, format, &[ph], &hints);
                Ok(simple(
                    file,
                    patch,
                    Expect::Apply(edit::join(&want).into_bytes()),
                ))
            } else {
                // A hint more than 100 lines from the nearer twin, the other
                // twin beyond it.
                let (t1, t2) = (orig.min(copy), orig.max(copy));
                let mut options = Vec::new();
                if t1 > 101 {
                    options.push(rng.below(t1 - 101) + 1);
                }
                if t2 + 102 <= file.len() + 40 {
                    let lo = t2 + 102;
                    options.push(lo + rng.below(file.len() + 40 - lo + 1));
                }
                if options.is_empty() {
                    return Err(Skip::Other);
                }
                let hint = *rng.pick(&options);
                let mut ph = h.clone();
                ph.old_start = orig;
                let hints = Hints {
                    lines: vec![Some(hint)],
                    ..Hints::default()
                };
                let patch = render_as(rng, path, format, &[ph], &hints);
                Ok(simple(file, patch, Expect::Refuse))
            }
        }
        Noise::CarriedOffset => {
            let edits = edit::random_edits(rng, &lines, ext, 2, false, false).ok_or(Skip::Other)?;
            let hunks = hunks_from_edits(&lines, &edits, 3);
            if hunks.len() != 2 {
                return Err(Skip::Other);
            }
            all_unique(&lines, &hunks)?;
            markers_ok(format, &hunks)?;
            let (h1, h2) = (&hunks[0], &hunks[1]);
            let (e1, s2) = (h1.old_start + h1.old_lines().len(), h2.old_start);
            let len2 = h2.old_lines().len();
            let e2 = s2 + len2;
            // Where the twin of hunk 2's old side goes (in `lines`).
            let mut spots: Vec<usize> = (e1 + 1..s2.saturating_sub(1)).collect();
            spots.extend(e2 + 1..=lines.len());
            if spots.is_empty() {
                return Err(Skip::Other);
            }
            let q = *rng.pick(&spots);
            let mut file = lines.clone();
            file.splice(q..q, lines[s2..e2].iter().cloned());
            let mut moved = hunks.clone();
            if q < s2 {
                moved[1].old_start += len2;
            }
            // The header of hunk 1 is off by `err`; corrected by that offset,
            // hunk 2's right header points at the twin.
            let err = moved[1].old_start as i64 - q as i64;
            let claim1 = moved[0].old_start as i64 + 1 + err;
            if claim1 < 1 || err.abs() < 3 {
                return Err(Skip::Other);
            }
            if occurrences(&file, &moved[1].old_lines()) != 2 {
                return Err(Skip::Other);
            }
            let want = apply_hunks(&file, &moved).ok_or(Skip::Other)?;
            let hints = Hints {
                lines: vec![Some(claim1 as usize), None],
                ..Hints::default()
            };
            let patch = render_as(rng, path, format, &moved, &hints);
            Ok(simple(
                file,
                patch,
                Expect::Apply(edit::join(&want).into_bytes()),
            ))
        }
        Noise::UnidiffZero | Noise::U0Duplicate => {
            let n = lines.len();
            let k = 2 + rng.below(4);
            let mut ats: Vec<usize> = (0..k).map(|_| rng.below(n + 1)).collect();
            if noise == Noise::UnidiffZero && rng.chance(0.2) {
                ats[0] = 0;
            }
            if noise == Noise::UnidiffZero && rng.chance(0.2) {
                ats[1] = n;
            }
            ats.sort_unstable();
            ats.dedup();
            let mut edits: Vec<Edit> = Vec::new();
            for &at in &ats {
                if edits.last().is_some_and(|e| e.at + e.remove + 2 > at) {
                    continue;
                }
                let e = if noise == Noise::U0Duplicate {
                    // A copy of the line before or of the 1-2 lines after.
                    if at > 0 && rng.chance(0.5) && !is_blank(&lines[at - 1]) {
                        Edit {
                            at,
                            remove: 0,
                            insert: vec![lines[at - 1].clone()],
                        }
                    } else if at + 2 <= n && !is_blank(&lines[at]) {
                        let m = if rng.chance(0.3) { 2 } else { 1 };
                        Edit {
                            at,
                            remove: 0,
                            insert: lines[at..at + m].to_vec(),
                        }
                    } else {
                        continue;
                    }
                } else {
                    let pure = rng.chance(0.7) || at == n;
                    let remove = if pure {
                        0
                    } else {
                        (1 + rng.below(2)).min(n - at)
                    };
                    let mut insert: Vec<String> = (0..1 + rng.below(3))
                        .map(|_| {
                            if rng.chance(0.15) {
                                String::new()
                            } else {
                                edit::new_line(rng, &lines, at.min(n - 1), ext)
                            }
                        })
                        .collect();
                    if !pure && rng.chance(0.3) {
                        insert.clear();
                    }
                    if remove > 0 && lines[at..at + remove].iter().all(|l| is_blank(l)) {
                        continue;
                    }
                    Edit { at, remove, insert }
                };
                edits.push(e);
            }
            if edits.len() < 2 {
                return Err(Skip::Other);
            }
            // One hunk per edit, no context (`hunks_from_edits` needs context
            // to emit a pure insertion).
            let hunks: Vec<Hunk> = edits
                .iter()
                .map(|e| Hunk {
                    old_start: e.at,
                    body: lines[e.at..e.at + e.remove]
                        .iter()
                        .map(|l| BodyLine {
                            kind: Kind::Remove,
                            text: l.clone(),
                        })
                        .chain(e.insert.iter().map(|l| add(l)))
                        .collect(),
                })
                .filter(|h| !h.body.is_empty())
                .collect();
            let want = apply_hunks(&lines, &hunks).ok_or(Skip::Other)?;
            let patch = render_git_u0(path, &lines, &hunks);
            Ok(Built {
                file: lines,
                patch,
                expect: Expect::Apply(edit::join(&want).into_bytes()),
                reverse: false,
                unidiff_zero: true,
                expectation: None,
                variant: None,
            })
        }
        Noise::ReverseMulti => {
            let n = lines.len();
            // Hunk 1 inserts (or replaces with) several lines; 1-2 more edits.
            let a = rng.below(n / 2);
            let m = 4 + rng.below(20);
            let remove = if rng.chance(0.5) { 0 } else { 1.min(n - a) };
            let insert: Vec<String> = (0..m)
                .map(|_| edit::new_line(rng, &lines, a, ext))
                .collect();
            let mut edits = vec![Edit {
                at: a,
                remove,
                insert,
            }];
            let more = 1 + rng.below(2);
            let rest =
                edit::random_edits(rng, &lines, ext, more, false, false).ok_or(Skip::Other)?;
            for e in rest {
                if e.at > a + remove + 8 && edits.last().is_some_and(|l| l.at + l.remove + 8 < e.at)
                {
                    edits.push(e);
                }
            }
            if edits.len() < 2 {
                return Err(Skip::Other);
            }
            let hunks = hunks_from_edits(&lines, &edits, 3);
            if hunks.len() < 2 {
                return Err(Skip::Other);
            }
            all_unique(&lines, &hunks)?;
            // A twin of hunk 2's new side, put where hunk 2's old-side
            // number would point in the new file when possible.
            let mut before = lines.clone();
            let h2 = &hunks[1];
            let new2: Vec<String> = h2.new_lines().iter().map(|s| s.to_string()).collect();
            let d = hunks[0].new_lines().len() as i64 - hunks[0].old_lines().len() as i64;
            let e1 = hunks[0].old_start + hunks[0].old_lines().len();
            let q = h2.old_start as i64 + new2.len() as i64 - d;
            let mut hs = hunks.clone();
            if rng.chance(0.7) && q > e1 as i64 && q <= h2.old_start as i64 && d > 0 {
                let q = q as usize;
                before.splice(q..q, new2.iter().cloned());
                for h in hs.iter_mut().skip(1) {
                    h.old_start += new2.len();
                }
            }
            all_unique(&before, &hs)?;
            let after = apply_hunks(&before, &hs).ok_or(Skip::Other)?;
            let patch = render::unified(path, &hs, &Numbers::Correct);
            Ok(Built {
                file: after,
                patch,
                expect: Expect::Apply(edit::join(&before).into_bytes()),
                reverse: true,
                unidiff_zero: false,
                expectation: None,
                variant: None,
            })
        }
        Noise::OverlapContext | Noise::OverlapRemoved => {
            let n = lines.len();
            if n < 60 {
                return Err(Skip::Other);
            }
            let a = 4 + rng.below(n / 2);
            let removing = noise == Noise::OverlapRemoved || rng.chance(0.5);
            let r1 = if removing { 1 + rng.below(2) } else { 0 };
            let g = if noise == Noise::OverlapContext {
                3 + rng.below(3)
            } else {
                1 + rng.below(2)
            };
            let b = a + r1 + g;
            if b + 6 > n || lines[a..a + r1].iter().all(|l| is_blank(l)) && r1 > 0 {
                return Err(Skip::Other);
            }
            let mk = |rng: &mut Rng, at: usize, remove: usize| {
                let mut insert = Vec::new();
                for l in &lines[at..at + remove] {
                    let v = edit::variant(rng, l);
                    insert.push(v.unwrap_or_else(|| edit::new_line(rng, &lines, at, ext)));
                }
                insert.push(edit::new_line(rng, &lines, at, ext));
                Edit { at, remove, insert }
            };
            let e1 = mk(rng, a, r1);
            let r2 = rng.below(2);
            let e2 = mk(rng, b, r2);
            let h1 = hunks_from_edits(&lines, std::slice::from_ref(&e1), 3).remove(0);
            let h2 = hunks_from_edits(&lines, std::slice::from_ref(&e2), 3).remove(0);
            if h2.old_start >= h1.old_start + h1.old_lines().len() {
                return Err(Skip::Other); // no overlap after all
            }
            let hunks = vec![h1, h2];
            all_unique(&lines, &hunks)?;
            markers_ok(format, &hunks)?;
            // The look-alike of hunk 2 further down (or, a quarter of the
            // time, above hunk 1).
            let s2 = hunks[1].old_start;
            let e2end = s2 + hunks[1].old_lines().len();
            let below: Vec<usize> = (e2end + 20..=n).collect();
            let above: Vec<usize> = (0..hunks[0].old_start.saturating_sub(20)).collect();
            let q = if !above.is_empty() && (below.is_empty() || rng.chance(0.25)) {
                *rng.pick(&above)
            } else if !below.is_empty() {
                *rng.pick(&below)
            } else {
                return Err(Skip::Other);
            };
            let mut file = lines.clone();
            file.splice(q..q, lines[s2..e2end].iter().cloned());
            let mut moved = hunks.clone();
            if q <= hunks[0].old_start {
                for h in &mut moved {
                    h.old_start += e2end - s2;
                }
            }
            if rng.chance(0.4) {
                drift_copy(rng, &mut file, q, &hunks[1]);
            }
            let expect = if noise == Noise::OverlapRemoved {
                Expect::Refuse
            } else {
                let merged = hunks_from_edits(
                    &file,
                    &{
                        let shift = moved[0].old_start - hunks[0].old_start;
                        [e1, e2]
                            .into_iter()
                            .map(|mut e| {
                                e.at += shift;
                                e
                            })
                            .collect::<Vec<_>>()
                    },
                    3,
                );
                let want = apply_hunks(&file, &merged).ok_or(Skip::Other)?;
                Expect::Apply(edit::join(&want).into_bytes())
            };
            let anchors = vec![
                anchor_before(&file, 0, moved[0].old_start).filter(|_| rng.chance(0.5)),
                None,
            ];
            let hints = Hints {
                anchors,
                ..Hints::default()
            };
            let patch = render_as(rng, path, format, &moved, &hints);
            Ok(simple(file, patch, expect))
        }
        Noise::RemovedHeading | Noise::RemovedPrefixed => {
            let n = lines.len();
            let spots: Vec<usize> = (3..n.saturating_sub(3))
                .filter(|&i| {
                    let t = lines[i].trim_start();
                    if noise == Noise::RemovedHeading {
                        let hashes = t.len() - t.trim_start_matches('#').len();
                        (1..=5).contains(&hashes)
                            && t[hashes..].starts_with(' ')
                            && t[hashes..].trim().len() >= 3
                    } else {
                        t.len() >= 12
                            && t.chars()
                                .next()
                                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    }
                })
                .collect();
            if spots.is_empty() {
                return Err(Skip::Other);
            }
            let i = *rng.pick(&spots);
            let remove = 1;
            let insert: Vec<String> = match rng.below(3) {
                0 => Vec::new(),
                1 => vec![edit::variant(rng, &lines[i]).ok_or(Skip::Other)?],
                _ => vec![edit::new_line(rng, &lines, i, ext)],
            };
            let e = Edit {
                at: i,
                remove,
                insert,
            };
            let hunks = hunks_from_edits(&lines, &[e], 3);
            all_unique(&lines, &hunks)?;
            markers_ok(format, &hunks)?;
            // The file's line differs from the patch's removed line.
            let old = lines[i].clone();
            let ind = indent_of(&old).to_string();
            let t = old.trim_start();
            let changed = if noise == Noise::RemovedHeading {
                let hashes = t.len() - t.trim_start_matches('#').len();
                if hashes > 1 && rng.chance(0.5) {
                    format!("{ind}{}", &t[1..])
                } else {
                    format!("{ind}#{t}")
                }
            } else {
                let prefix = *rng.pick(&["sub", "self.", "pre_", "un", "old_", "this.", "my", "_"]);
                format!("{ind}{prefix}{t}")
            };
            let mut file = lines.clone();
            file[i] = changed;
            if exact_count(&file, &[old.as_str()]) != 0 {
                return Err(Skip::Other);
            }
            let added_same = hunks[0]
                .new_lines()
                .iter()
                .any(|l| loose(l) == loose(&file[i]));
            if added_same {
                return Err(Skip::Other);
            }
            let hints = Hints {
                anchors: vec![
                    anchor_before(&file, 0, hunks[0].old_start).filter(|_| rng.chance(0.5)),
                ],
                ..Hints::default()
            };
            let patch = render_as(rng, path, format, &hunks, &hints);
            Ok(simple(file, patch, Expect::Refuse))
        }
        Noise::PyReindent => {
            if ext != "py" || lines.iter().any(|l| indent_of(l).contains('\t')) {
                return Err(Skip::Other);
            }
            let t = |l: &str| {
                let k = indent_of(l).len();
                format!("{}{}", " ".repeat(2 * (k / 4) + k % 4), &l[k..])
            };
            // An edit next to an `else:`-like line of a nested block.
            let spots: Vec<usize> = (1..lines.len().saturating_sub(1))
                .filter(|&i| {
                    let s = lines[i].trim_start();
                    indent_of(&lines[i]).len() >= 4
                        && (s.starts_with("else:")
                            || s.starts_with("elif ")
                            || s.starts_with("except")
                            || s.starts_with("finally:"))
                })
                .collect();
            if spots.is_empty() {
                return Err(Skip::Other);
            }
            let j = *rng.pick(&spots);
            let word = *rng.pick(&["count", "result", "value", "state"]);
            let e = match rng.below(3) {
                0 => {
                    // After the `else:` line, at its body's indentation.
                    let ind = indent_of(&lines[j + 1]).to_string();
                    Edit {
                        at: j + 1,
                        remove: 0,
                        insert: vec![format!("{ind}{word} = None")],
                    }
                }
                1 => {
                    // Before it: the end of the block above.
                    let ind = indent_of(&lines[j - 1]).to_string();
                    if ind.len() <= indent_of(&lines[j]).len() {
                        return Err(Skip::Other);
                    }
                    Edit {
                        at: j,
                        remove: 0,
                        insert: vec![format!("{ind}{word} = None")],
                    }
                }
                _ => {
                    // Replace the first line of its body, add one after.
                    let body = &lines[j + 1];
                    if is_blank(body) || indent_of(body).len() <= indent_of(&lines[j]).len() {
                        return Err(Skip::Other);
                    }
                    let ind = indent_of(body).to_string();
                    Edit {
                        at: j + 1,
                        remove: 1,
                        insert: vec![
                            edit::variant(rng, body).ok_or(Skip::Other)?,
                            format!("{ind}{word} = None"),
                        ],
                    }
                }
            };
            let hunks = hunks_from_edits(&lines, &[e], 3);
            all_unique(&lines, &hunks)?;
            markers_ok(format, &hunks)?;
            let after = apply_hunks(&lines, &hunks).ok_or(Skip::Other)?;
            let hints = Hints::default();
            if rng.chance(0.5) {
                // 4-space patch, 2-space file.
                let file: Vec<String> = lines.iter().map(|l| t(l)).collect();
                let want: Vec<String> = after.iter().map(|l| t(l)).collect();
                if file == lines {
                    return Err(Skip::Other);
                }
                let patch = render_as(rng, path, format, &hunks, &hints);
                Ok(simple(
                    file,
                    patch,
                    Expect::Apply(edit::join(&want).into_bytes()),
                ))
            } else {
                // 2-space patch, 4-space file.
                let mut ph = hunks.clone();
                for h in &mut ph {
                    for l in &mut h.body {
                        l.text = t(&l.text);
                    }
                }
                if ph == hunks {
                    return Err(Skip::Other);
                }
                let patch = render_as(rng, path, format, &ph, &hints);
                Ok(simple(
                    lines.clone(),
                    patch,
                    Expect::Apply(edit::join(&after).into_bytes()),
                ))
            }
        }
        Noise::PyBlockShift => {
            if ext != "py" {
                return Err(Skip::Other);
            }
            let n = lines.len();
            // `if ...:` at j, body j+1..k, line k back at the `if`'s level.
            let mut found = Vec::new();
            for j in 1..n.saturating_sub(4) {
                let s = lines[j].trim_start();
                if !(s.starts_with("if ") && s.ends_with(':')) {
                    continue;
                }
                let ind = indent_of(&lines[j]).len();
                let body_ind = indent_of(&lines[j + 1]).len();
                if body_ind <= ind || is_blank(&lines[j + 1]) {
                    continue;
                }
                let Some(k) = (j + 1..n.min(j + 7))
                    .find(|&k| !is_blank(&lines[k]) && indent_of(&lines[k]).len() <= ind)
                else {
                    continue;
                };
                let sk = lines[k].trim_start();
                if indent_of(&lines[k]).len() != ind
                    || sk.starts_with("else")
                    || sk.starts_with("elif")
                    || sk.starts_with(')')
                    || sk.starts_with(']')
                    || sk.starts_with('}')
                    || sk.starts_with('#')
                    || sk.ends_with(':')
                    || k + 2 >= n
                    || (j + 1..k)
                        .any(|x| !is_blank(&lines[x]) && indent_of(&lines[x]).len() != body_ind)
                {
                    continue;
                }
                found.push((j, k, body_ind));
            }
            if found.is_empty() {
                return Err(Skip::Other);
            }
            let (j, k, body_ind) = *rng.pick(&found);
            let bi = " ".repeat(body_ind);
            let word = *rng.pick(&["count", "result", "value", "state"]);
            let start = j.saturating_sub(1);
            let mut body: Vec<BodyLine> = Vec::new();
            // The patch puts line k inside the `if` and adds after it.
            for l in &lines[start..k] {
                body.push(ctx(l));
            }
            body.push(ctx(&format!("{bi}{}", lines[k].trim_start())));
            body.push(add(&format!("{bi}{word} = None")));
            for l in &lines[k + 1..(k + 3).min(n)] {
                body.push(ctx(l));
            }
            let h = Hunk {
                old_start: start,
                body,
            };
            if occurrences(&lines, &h.old_lines()) != 1 {
                return Err(Skip::Duplicate);
            }
            markers_ok(format, std::slice::from_ref(&h))?;
            let patch = render_as(rng, path, format, &[h], &Hints::default());
            Ok(simple(lines, patch, Expect::Refuse))
        }
        Noise::Reapply => {
            let k = 1 + rng.below(3);
            let edits = edit::random_edits(rng, &lines, ext, k, false, false).ok_or(Skip::Other)?;
            let hunks = hunks_from_edits(&lines, &edits, 3);
            all_unique(&lines, &hunks)?;
            markers_ok(format, &hunks)?;
            let after = apply_hunks(&lines, &hunks).ok_or(Skip::Other)?;
            for h in &hunks {
                if occurrences(&after, &h.old_lines()) != 0
                    || occurrences(&after, &h.new_lines()) != 1
                {
                    return Err(Skip::Other);
                }
            }
            let anchors = super::codex_anchors(rng, &lines, &hunks);
            let hints = Hints {
                anchors,
                ..Hints::default()
            };
            let patch = render_as(rng, path, format, &hunks, &hints);
            let want = edit::join(&after).into_bytes();
            Ok(simple(after, patch, Expect::Apply(want)))
        }
        Noise::CaseFixStale => {
            let n = lines.len();
            let i = 3 + rng.below(n.saturating_sub(7).max(1));
            if i + 4 > n {
                return Err(Skip::Other);
            }
            let fixed = match rng.below(3) {
                0 if lines[i].to_lowercase() != lines[i] => lines[i].to_lowercase(),
                1 if lines[i].to_uppercase() != lines[i] => lines[i].to_uppercase(),
                _ => flip_case(&lines[i]).ok_or(Skip::Other)?,
            };
            if fixed == lines[i] {
                return Err(Skip::Other);
            }
            let e = Edit {
                at: i,
                remove: 1,
                insert: vec![fixed],
            };
            let hunks = hunks_from_edits(&lines, &[e], 3);
            all_unique(&lines, &hunks)?;
            markers_ok(format, &hunks)?;
            // A context line changed in the file since: a word replaced.
            let h = &hunks[0];
            let ctx_spots: Vec<usize> = (h.old_start..h.old_start + h.old_lines().len())
                .filter(|&x| x != i && edit::longest_word(&lines[x]).is_some())
                .collect();
            if ctx_spots.is_empty() {
                return Err(Skip::Other);
            }
            let c = *rng.pick(&ctx_spots);
            let mut file = lines.clone();
            file[c] = edit::variant(rng, &lines[c]).ok_or(Skip::Other)?;
            if loose(&file[c]) == loose(&lines[c]) {
                return Err(Skip::Other);
            }
            let want = place(&file, &[(h.old_start, h)]).ok_or(Skip::Other)?;
            let hints = Hints {
                anchors: vec![anchor_before(&file, 0, h.old_start).filter(|_| rng.chance(0.5))],
                ..Hints::default()
            };
            let patch = render_as(rng, path, format, &hunks, &hints);
            Ok(simple(
                file,
                patch,
                Expect::Apply(edit::join(&want).into_bytes()),
            ))
        }
        Noise::StaleNewElsewhere => {
            let n = lines.len();
            let i = 3 + rng.below(n.saturating_sub(7).max(1));
            if i + 4 > n || edit::longest_word(&lines[i]).is_none() {
                return Err(Skip::Other);
            }
            // The added lines are copies of lines far away.
            let far: Vec<usize> = (0..n)
                .filter(|&x| x.abs_diff(i) >= 20 && lines[x].trim().len() >= 8)
                .filter(|&x| exact_count(&lines, &[lines[x].as_str()]) == 1)
                .collect();
            if far.is_empty() {
                return Err(Skip::Other);
            }
            let insert: Vec<String> = (0..1 + rng.below(2))
                .map(|_| lines[*rng.pick(&far)].clone())
                .collect();
            let e = Edit {
                at: i,
                remove: 1,
                insert,
            };
            let hunks = hunks_from_edits(&lines, &[e], 3);
            all_unique(&lines, &hunks)?;
            markers_ok(format, &hunks)?;
            let h = hunks[0].clone();
            let mut file = lines.clone();
            // Half of the time the hunk's whole new side stands elsewhere,
            // one context line's case changed, as in a sibling function.
            if rng.chance(0.5) {
                let new: Vec<String> = h.new_lines().iter().map(|s| s.to_string()).collect();
                let e_ = h.old_start + h.old_lines().len();
                let mut spots: Vec<usize> = (e_ + 20..=n).collect();
                if h.old_start >= 20 {
                    spots.extend(0..=h.old_start - 20);
                }
                if spots.is_empty() {
                    return Err(Skip::Other);
                }
                let q = *rng.pick(&spots);
                let mut block = new;
                if let Some(x) = (0..block.len())
                    .find(|&x| !is_blank(&block[x]) && flip_case(&block[x]).is_some())
                {
                    block[x] = flip_case(&block[x]).ok_or(Skip::Other)?;
                }
                file.splice(q..q, block);
            }
            // The removed line changed in the file since.
            let at = file
                .iter()
                .enumerate()
                .position(|(x, l)| {
                    x + h.old_lines().len() <= file.len()
                        && l == h.old_lines()[0]
                        && file[x..x + h.old_lines().len()]
                            .iter()
                            .zip(h.old_lines())
                            .all(|(a, b)| a == b)
                })
                .ok_or(Skip::Other)?;
            let r = at + (i - h.old_start);
            file[r] = edit::variant(rng, &file[r]).ok_or(Skip::Other)?;
            if loose(&file[r]) == loose(&lines[i])
                || h.new_lines().iter().any(|l| loose(l) == loose(&file[r]))
            {
                return Err(Skip::Other);
            }
            let hints = Hints {
                anchors: vec![anchor_before(&file, 0, at).filter(|_| rng.chance(0.5))],
                ..Hints::default()
            };
            let mut ph = h.clone();
            ph.old_start = at;
            let patch = render_as(rng, path, format, &[ph], &hints);
            Ok(simple(file, patch, Expect::Refuse))
        }
        _ => super::sequence::build(rng, path, &lines, ext, format, noise),
    }
}
