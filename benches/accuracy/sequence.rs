//! Adversarial kinds for two reading rules: blocks applied in order (a later
//! block edits what an earlier block wrote; docs/matching.md, "Blocks applied
//! in order") and elision lines (`...`, `// ... existing code ...`) standing
//! for unchanged text between the pieces of a block (docs/formats.md,
//! "Elision"), in SEARCH/REPLACE blocks, unified and numberless hunks and
//! Codex chunks.
//!
//! Each construction (a *variant*, its own table row) knows its intended
//! outcome: **apply** when the rule leaves one reading (its bytes computed
//! here), **refuse** when two readings give different bytes, **apply or
//! refuse** when one reading is the only coherent one but a documented rule
//! may refuse it (a piece that stands twice, an overlap in the original).

use super::adversary::{
    Built, Expectation, Hints, add, all_unique, anchor_before, ctx, drifted, exact_count,
    indent_of, is_blank, markers_ok, one_hunk, place, render_as, with_twin,
};
use super::edit::{self, BodyLine, Edit, Hunk, Kind, apply_hunks, hunks_from_edits, join};
use super::{Expect, Format, Noise, Rng, Skip, occurrences};
use Expectation::{Apply, ApplyOrRefuse, Refuse};

/// Builds one case of an in-order or elision kind.
pub(super) fn build(
    rng: &mut Rng,
    path: &str,
    lines: &[String],
    ext: &str,
    format: Format,
    noise: Noise,
) -> Result<Built, Skip> {
    match noise {
        Noise::InOrderChain => in_order_chain(rng, path, lines, ext, format),
        Noise::InOrderSameSearch => same_search(rng, path, lines, ext, format),
        Noise::ElisionPieces | Noise::ElisionLookalike | Noise::ElisionLineInFile => {
            elision(rng, path, lines, ext, format, noise)
        }
        Noise::ElisionEdge => elision_edge(rng, path, lines, ext, format),
        _ => Err(Skip::Other),
    }
}

/// A built case whose intended outcome is its own.
fn case(
    file: Vec<String>,
    patch: String,
    expect: Expect,
    expectation: Expectation,
    variant: &'static str,
) -> Built {
    Built {
        file,
        patch,
        expect,
        reverse: false,
        unidiff_zero: false,
        expectation: Some(expectation),
        variant: Some(variant),
    }
}

/// The intended bytes as an expectation (`Refuse` needs none).
fn expect_of(e: Expectation, want: Option<Vec<String>>) -> Result<Expect, Skip> {
    match e {
        Refuse => Ok(Expect::Refuse),
        _ => Ok(Expect::Apply(join(&want.ok_or(Skip::Other)?).into_bytes())),
    }
}

fn remove(t: &str) -> BodyLine {
    BodyLine {
        kind: Kind::Remove,
        text: t.to_string(),
    }
}

fn owned(v: Vec<&str>) -> Vec<String> {
    v.into_iter().map(str::to_string).collect()
}

fn refs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// Aider's reading: each hunk in turn replaces the one place where its old
/// lines stand exactly in the text so far; `None` when they stand there
/// other than once.
fn apply_in_order(lines: &[String], hunks: &[&Hunk]) -> Option<Vec<String>> {
    let mut text = lines.to_vec();
    for h in hunks {
        let old = h.old_lines();
        if old.is_empty() || exact_count(&text, &old) != 1 {
            return None;
        }
        let at = text
            .windows(old.len())
            .position(|w| w.iter().zip(&old).all(|(a, b)| a == b))?;
        text.splice(at..at + old.len(), owned(h.new_lines()));
    }
    Some(text)
}

/// Where to insert a copy into a text of `len` lines: at least `gap` lines
/// from each range of `keep`, within 40 lines of `near` half of the time.
fn spot(
    rng: &mut Rng,
    len: usize,
    keep: &[(usize, usize)],
    near: usize,
    gap: usize,
) -> Option<usize> {
    let all: Vec<usize> = (0..=len)
        .filter(|&q| keep.iter().all(|&(s, e)| q + gap <= s || q >= e + gap))
        .collect();
    if all.is_empty() {
        return None;
    }
    if rng.chance(0.5) {
        let close: Vec<usize> = all
            .iter()
            .copied()
            .filter(|&q| q.abs_diff(near) < 40)
            .collect();
        if !close.is_empty() {
            return Some(*rng.pick(&close));
        }
    }
    Some(*rng.pick(&all))
}

/// `block` with one non-blank line drifted (whitespace or case).
fn drifted_copy(rng: &mut Rng, block: &[String]) -> Option<Vec<String>> {
    let mut spots: Vec<usize> = (0..block.len()).filter(|&i| !is_blank(&block[i])).collect();
    rng.shuffle(&mut spots);
    for i in spots {
        if let Some(d) = drifted(rng, &block[i]) {
            let mut out = block.to_vec();
            out[i] = d;
            return Some(out);
        }
    }
    None
}

/// Renders hunks that must carry no line number or anchor (a block placed
/// in order carries none).
fn render_bare(rng: &mut Rng, path: &str, format: Format, hunks: &[Hunk]) -> String {
    let hints = Hints {
        no_start_line: true,
        ..Hints::default()
    };
    render_as(rng, path, format, hunks, &hints)
}

/// Block 1 edits a line (or inserts 1–2); block 2 edits a line block 1 wrote
/// or its neighbour, its old side holding a written line, so it stands
/// only in block 1's output. Variants put a copy of block 2's old side in
/// the original (exact, drifted, or with block 1's pre-image lines), and
/// sometimes an unrelated block stands before, between or after the two.
fn in_order_chain(
    rng: &mut Rng,
    path: &str,
    lines: &[String],
    ext: &str,
    format: Format,
) -> Result<Built, Skip> {
    let n = lines.len();
    if n < 12 {
        return Err(Skip::Other);
    }
    let p = 2 + rng.below(n - 4);
    let e1 = if rng.chance(0.6) {
        let mut insert = vec![edit::variant(rng, &lines[p]).ok_or(Skip::Other)?];
        if rng.chance(0.3) {
            insert.push(edit::new_line(rng, lines, p, ext));
        }
        Edit {
            at: p,
            remove: 1,
            insert,
        }
    } else {
        let insert = (0..1 + rng.below(2))
            .map(|_| edit::new_line(rng, lines, p, ext))
            .collect();
        Edit {
            at: p,
            remove: 0,
            insert,
        }
    };
    let one_for_one = e1.remove == 1 && e1.insert.len() == 1;
    let written = p..p + e1.insert.len();
    let h1 = hunks_from_edits(lines, std::slice::from_ref(&e1), 1 + rng.below(3))
        .into_iter()
        .next()
        .ok_or(Skip::Other)?;
    all_unique(lines, std::slice::from_ref(&h1))?;
    let mid = apply_hunks(lines, std::slice::from_ref(&h1)).ok_or(Skip::Other)?;
    let h2 = second_block(rng, &mid, ext, written.clone())?;
    if occurrences(&mid, &h2.old_lines()) != 1 || occurrences(lines, &h2.old_lines()) != 0 {
        return Err(Skip::Duplicate);
    }
    let h0 = unrelated_block(rng, lines, ext, p);
    let region = (h1.old_start, h1.old_start + h1.old_lines().len());
    let s2 = owned(h2.old_lines());
    let mut file = lines.to_vec();
    let (variant, expectation) = match rng.below(10) {
        0..=3 => ("alone", Apply),
        4..=5 => ("exact copy in the original", Refuse),
        6..=7 => ("drifted copy in the original", Refuse),
        _ => ("pre-image copy in the original", ApplyOrRefuse),
    };
    let copy = match variant {
        "alone" => None,
        "exact copy in the original" => Some(s2.clone()),
        "drifted copy in the original" => Some(drifted_copy(rng, &s2).ok_or(Skip::Other)?),
        _ if one_for_one => {
            // The same lines as they stand in the original (block 1 changed
            // one line for one, so `mid` and `lines` line up).
            let at = (h2.old_start..h2.old_start + s2.len()).map(|i| lines.get(i).cloned());
            Some(at.collect::<Option<Vec<String>>>().ok_or(Skip::Other)?)
        }
        _ => return Err(Skip::Other),
    };
    if let Some(c) = copy {
        let mut keep = vec![region];
        if let Some(h) = &h0 {
            keep.push((h.old_start, h.old_start + h.old_lines().len()));
        }
        let q = spot(rng, n, &keep, region.0, 2).ok_or(Skip::Other)?;
        file.splice(q..q, c);
    }
    let mut blocks = vec![&h1, &h2];
    if let Some(h) = &h0 {
        blocks.insert(rng.below(3), h);
    }
    let owned_blocks: Vec<Hunk> = blocks.iter().map(|h| (*h).clone()).collect();
    all_unique(&file, std::slice::from_ref(&h1))?;
    if let Some(h) = &h0 {
        all_unique(&file, std::slice::from_ref(h))?;
    }
    match variant {
        "exact copy in the original" if exact_count(&file, &refs(&s2)) == 0 => {
            return Err(Skip::Other);
        }
        "drifted copy in the original" if exact_count(&file, &refs(&s2)) != 0 => {
            return Err(Skip::Other);
        }
        _ => {}
    }
    markers_ok(format, &owned_blocks)?;
    let want = apply_in_order(&file, &blocks);
    let expect = expect_of(expectation, want)?;
    let patch = render_bare(rng, path, format, &owned_blocks);
    Ok(case(file, patch, expect, expectation, variant))
}

/// Block 2 of a chain: an edit of the written line `w` or of a neighbour,
/// with 1–3 lines of context, its old side holding a written line.
fn second_block(
    rng: &mut Rng,
    mid: &[String],
    ext: &str,
    written: std::ops::Range<usize>,
) -> Result<Hunk, Skip> {
    let w = written.start + rng.below(written.len());
    let e2 = match rng.below(3) {
        0 => Edit {
            at: w,
            remove: 1,
            insert: vec![edit::variant(rng, &mid[w]).ok_or(Skip::Other)?],
        },
        1 => Edit {
            at: w + 1,
            remove: 0,
            insert: vec![edit::new_line(rng, mid, w + 1, ext)],
        },
        _ => {
            let x = if rng.chance(0.5) {
                w.checked_sub(1).ok_or(Skip::Other)?
            } else {
                w + 1
            };
            if x >= mid.len() || is_blank(&mid[x]) {
                return Err(Skip::Other);
            }
            Edit {
                at: x,
                remove: 1,
                insert: vec![edit::variant(rng, &mid[x]).ok_or(Skip::Other)?],
            }
        }
    };
    if mid[e2.at..e2.at + e2.remove] == e2.insert[..] {
        return Err(Skip::Other);
    }
    let h2 = hunks_from_edits(mid, std::slice::from_ref(&e2), 1 + rng.below(3))
        .into_iter()
        .next()
        .ok_or(Skip::Other)?;
    let span = h2.old_start..h2.old_start + h2.old_lines().len();
    if !written.clone().any(|x| span.contains(&x)) {
        return Err(Skip::Other);
    }
    Ok(h2)
}

/// Four times in ten, an edit at least 12 lines from line `p`, unique in
/// the original.
fn unrelated_block(rng: &mut Rng, lines: &[String], ext: &str, p: usize) -> Option<Hunk> {
    if !rng.chance(0.4) {
        return None;
    }
    let e = edit::random_edits(rng, lines, ext, 1, false, false)?.pop()?;
    if e.at.abs_diff(p) < 12 {
        return None;
    }
    let h = hunks_from_edits(lines, &[e], 3).into_iter().next()?;
    (occurrences(lines, &h.old_lines()) == 1).then_some(h)
}

/// `h` with other added lines (one added after its last removed or first
/// line when it adds none).
fn other_new_side(rng: &mut Rng, lines: &[String], ext: &str, h: &Hunk) -> Option<Hunk> {
    let mut h2 = h.clone();
    let at = h.old_start;
    let mut any = false;
    for l in &mut h2.body {
        if l.kind == Kind::Add {
            l.text = edit::new_line(rng, lines, at, ext);
            any = true;
        }
    }
    if !any {
        let k = h2
            .body
            .iter()
            .rposition(|l| l.kind == Kind::Remove)
            .unwrap_or(0);
        h2.body
            .insert(k + 1, add(&edit::new_line(rng, lines, at, ext)));
    }
    (h2.new_lines() != h.new_lines() && h2.new_lines() != h.old_lines()).then_some(h2)
}

/// Two blocks with the same SEARCH text: the region once or twice in the
/// file, the same or another REPLACE.
fn same_search(
    rng: &mut Rng,
    path: &str,
    lines: &[String],
    ext: &str,
    format: Format,
) -> Result<Built, Skip> {
    let h = one_hunk(rng, lines, ext, false)?;
    let (s, e) = (h.old_start, h.old_start + h.old_lines().len());
    let h2 = other_new_side(rng, lines, ext, &h).ok_or(Skip::Other)?;
    let (variant, expectation) = match rng.below(5) {
        0 => ("twice in the file, same block twice", ApplyOrRefuse),
        // docs/matching.md, "identical hunks": the i-th takes the i-th place.
        1 => ("twice in the file, two replacements", ApplyOrRefuse),
        2 => ("once, two replacements", Refuse),
        3 => ("once, same block twice", ApplyOrRefuse),
        _ => ("once, the first block keeps the text", ApplyOrRefuse),
    };
    let (file, blocks, want) = match variant {
        "twice in the file, same block twice" | "twice in the file, two replacements" => {
            let (file, orig, copy) = with_twin(rng, lines, s, e, 3).ok_or(Skip::Other)?;
            if occurrences(&file, &h.old_lines()) != 2 {
                return Err(Skip::Other);
            }
            let second = if variant.ends_with("same block twice") {
                h.clone()
            } else {
                h2
            };
            let want = place(&file, &[(orig.min(copy), &h), (orig.max(copy), &second)]);
            (file, vec![h.clone(), second], want)
        }
        "once, two replacements" => {
            let mid = apply_hunks(lines, std::slice::from_ref(&h)).ok_or(Skip::Other)?;
            if occurrences(&mid, &h.old_lines()) != 0 {
                return Err(Skip::Other);
            }
            (lines.to_vec(), vec![h.clone(), h2], None)
        }
        "once, same block twice" => {
            let want = apply_hunks(lines, std::slice::from_ref(&h));
            (lines.to_vec(), vec![h.clone(), h.clone()], want)
        }
        _ => {
            // Block 1 keeps the whole SEARCH text and adds a line after it.
            let mut keep = Hunk {
                old_start: s,
                body: h.old_lines().into_iter().map(ctx).collect(),
            };
            keep.body.push(add(&edit::new_line(rng, lines, e, ext)));
            let blocks = vec![keep, h.clone()];
            let want = apply_in_order(lines, &blocks.iter().collect::<Vec<_>>());
            (lines.to_vec(), blocks, want)
        }
    };
    markers_ok(format, &blocks)?;
    let expect = expect_of(expectation, want)?;
    let patch = render_bare(rng, path, format, &blocks);
    Ok(case(file, patch, expect, expectation, variant))
}

/// One piece of an elided block: `len` file lines from `start`, as a hunk
/// body (context, and with `change` one replaced, inserted or removed line).
#[derive(Clone, Debug)]
struct Piece {
    start: usize,
    body: Vec<BodyLine>,
}

impl Piece {
    fn hunk(&self) -> Hunk {
        Hunk {
            old_start: self.start,
            body: self.body.clone(),
        }
    }

    fn old(&self) -> Vec<String> {
        owned(self.hunk().old_lines())
    }

    fn len(&self) -> usize {
        self.old().len()
    }
}

fn piece(
    rng: &mut Rng,
    lines: &[String],
    ext: &str,
    start: usize,
    len: usize,
    change: bool,
) -> Option<Piece> {
    let src = lines.get(start..start + len)?;
    if src.iter().all(|l| is_blank(l)) {
        return None;
    }
    let mut body: Vec<BodyLine> = src.iter().map(|l| ctx(l)).collect();
    if change {
        let worded: Vec<usize> = (0..len)
            .filter(|&k| edit::longest_word(&src[k]).is_some())
            .collect();
        match rng.below(3) {
            0 if !worded.is_empty() => {
                let k = *rng.pick(&worded);
                body[k] = remove(&src[k]);
                body.insert(k + 1, add(&edit::variant(rng, &src[k])?));
            }
            2 if !worded.is_empty() => {
                let k = *rng.pick(&worded);
                body[k] = remove(&src[k]);
            }
            _ => {
                let k = 1 + rng.below(len - 1);
                body.insert(k, add(&edit::new_line(rng, lines, start + k, ext)));
            }
        }
    }
    Some(Piece { start, body })
}

/// `k` spans of 2–4 lines in file order, the gaps between them 1–3, 4–20 or
/// 21–120 lines.
fn layout(rng: &mut Rng, n: usize, k: usize) -> Option<Vec<(usize, usize)>> {
    let lens: Vec<usize> = (0..k).map(|_| 2 + rng.below(3)).collect();
    let gaps: Vec<usize> = (1..k)
        .map(|_| match rng.below(10) {
            0..=2 => 1 + rng.below(3),
            3..=6 => 4 + rng.below(17),
            _ => 21 + rng.below(100),
        })
        .collect();
    let total: usize = lens.iter().sum::<usize>() + gaps.iter().sum::<usize>();
    if total + 1 > n {
        return None;
    }
    let mut at = rng.below(n - total + 1);
    let mut out = Vec::new();
    for (i, &l) in lens.iter().enumerate() {
        out.push((at, l));
        at += l + gaps.get(i).copied().unwrap_or(0);
    }
    Some(out)
}

/// An elision line: Aider's bare `...`, or a comment in the file's syntax.
fn elision_line(rng: &mut Rng, ext: &str, indent: &str) -> String {
    if rng.chance(0.3) {
        return format!("{indent}...");
    }
    let text = *rng.pick(&[
        "... existing code ...",
        "... rest of the code unchanged ...",
        "... other fields ...",
        "…",
    ]);
    match ext {
        "py" | "toml" | "sh" | "yaml" | "yml" | "rb" | "cfg" => format!("{indent}# {text}"),
        "md" | "html" | "xml" => format!("{indent}<!-- {text} -->"),
        _ => format!("{indent}// {text}"),
    }
}

/// The block the model wrote: the pieces with an elision line between each
/// two, at the first piece's place.
fn elided(pieces: &[Piece], e: &str) -> Hunk {
    let mut body = Vec::new();
    for (k, p) in pieces.iter().enumerate() {
        if k > 0 {
            body.push(ctx(e));
        }
        body.extend(p.body.iter().cloned());
    }
    Hunk {
        old_start: pieces[0].start,
        body,
    }
}

/// Inserts `block` at `q`, moving the pieces at or after it.
fn insert(file: &mut Vec<String>, pieces: &mut [Piece], q: usize, block: Vec<String>) {
    let n = block.len();
    file.splice(q..q, block);
    for p in pieces {
        if p.start >= q {
            p.start += n;
        }
    }
}

/// Renders an elided hunk: its first piece's number where the notation has
/// one (a unified header always; `:start_line:` half of the time), a Codex
/// anchor before it three times in ten; with `bare`, only the unified
/// header's.
fn render_elided(
    rng: &mut Rng,
    path: &str,
    format: Format,
    file: &[String],
    h: &Hunk,
    bare: bool,
) -> String {
    let hints = Hints {
        anchors: vec![anchor_before(file, 0, h.old_start).filter(|_| !bare && rng.chance(0.3))],
        no_start_line: bare,
        ..Hints::default()
    };
    render_as(rng, path, format, std::slice::from_ref(h), &hints)
}

/// Which pieces change, per variant (at least one does).
fn elision_variant(rng: &mut Rng, noise: Noise) -> (&'static str, Expectation, usize, Vec<bool>) {
    let two = |rng: &mut Rng| match rng.below(3) {
        0 => vec![true, true],
        1 => vec![true, false],
        _ => vec![false, true],
    };
    match noise {
        Noise::ElisionPieces => match rng.below(4) {
            0 => ("two pieces, both changed", Apply, 2, vec![true, true]),
            1 => ("two pieces, first changed", Apply, 2, vec![true, false]),
            2 => ("two pieces, last changed", Apply, 2, vec![false, true]),
            _ => {
                let mut c = vec![rng.chance(0.5), rng.chance(0.5), rng.chance(0.5)];
                c[rng.below(3)] = true;
                ("three pieces", Apply, 3, c)
            }
        },
        Noise::ElisionLookalike => match rng.below(8) {
            0 => (
                "changed last piece copied between",
                Refuse,
                2,
                two(rng)
                    .into_iter()
                    .enumerate()
                    .map(|(i, c)| c || i == 1)
                    .collect(),
            ),
            1 => (
                "changed first piece copied between",
                Refuse,
                2,
                two(rng)
                    .into_iter()
                    .enumerate()
                    .map(|(i, c)| c || i == 0)
                    .collect(),
            ),
            2 => (
                "drifted last piece copied between",
                ApplyOrRefuse,
                2,
                vec![rng.chance(0.5), true],
            ),
            3 => (
                "last piece copied before the first",
                ApplyOrRefuse,
                2,
                vec![rng.chance(0.5), true],
            ),
            4 => (
                "first piece copied after the last",
                ApplyOrRefuse,
                2,
                vec![true, rng.chance(0.5)],
            ),
            5 => ("pieces side by side elsewhere", Refuse, 2, two(rng)),
            6 => ("whole region elsewhere", Refuse, 2, two(rng)),
            _ => (
                "unchanged last piece copied between",
                Apply,
                2,
                vec![true, false],
            ),
        },
        _ => match rng.below(4) {
            0 => ("elision line in the gap", Apply, 2, two(rng)),
            1 => ("elision line elsewhere", Apply, 2, two(rng)),
            2 => ("elision line is the whole gap", Apply, 2, two(rng)),
            _ => (
                "block as written stands elsewhere",
                ApplyOrRefuse,
                2,
                two(rng),
            ),
        },
    }
}

/// Elided blocks with unique pieces, with look-alikes of pieces, or with
/// the elision line real text of the file.
fn elision(
    rng: &mut Rng,
    path: &str,
    lines: &[String],
    ext: &str,
    format: Format,
    noise: Noise,
) -> Result<Built, Skip> {
    let (variant, expectation, k, change) = elision_variant(rng, noise);
    let spans = layout(rng, lines.len(), k).ok_or(Skip::Other)?;
    let mut pieces = Vec::new();
    for (&(s, l), &c) in spans.iter().zip(&change) {
        pieces.push(piece(rng, lines, ext, s, l, c).ok_or(Skip::Other)?);
    }
    let indent = if rng.chance(0.5) {
        indent_of(&lines[pieces[1].start]).to_string()
    } else {
        String::new()
    };
    let e = elision_line(rng, ext, &indent);
    if lines.iter().any(|l| l.trim() == e.trim()) {
        return Err(Skip::Other);
    }
    let mut file = lines.to_vec();
    let mut full = None;
    let (first, last) = (pieces[0].clone(), pieces[k - 1].clone());
    let region = (first.start, last.start + last.len());
    let between = |rng: &mut Rng, p: &[Piece]| {
        p[0].start + p[0].len() + rng.below(p[1].start - p[0].start - p[0].len() + 1)
    };
    let outside = |rng: &mut Rng| spot(rng, lines.len(), &[region], region.0, 3).ok_or(Skip::Other);
    match variant {
        "changed last piece copied between" | "unchanged last piece copied between" => {
            let q = between(rng, &pieces);
            insert(&mut file, &mut pieces, q, last.old());
        }
        "changed first piece copied between" => {
            let q = between(rng, &pieces);
            insert(&mut file, &mut pieces, q, first.old());
        }
        "drifted last piece copied between" => {
            let q = between(rng, &pieces);
            let c = drifted_copy(rng, &last.old()).ok_or(Skip::Other)?;
            insert(&mut file, &mut pieces, q, c);
        }
        "last piece copied before the first" => {
            if region.0 < 3 {
                return Err(Skip::Other);
            }
            let q = spot(rng, region.0 - 3, &[], region.0, 0).ok_or(Skip::Other)?;
            insert(&mut file, &mut pieces, q, last.old());
        }
        "first piece copied after the last" => {
            let lo = region.1 + 3;
            if lo > lines.len() {
                return Err(Skip::Other);
            }
            let q = lo + rng.below(lines.len() - lo + 1);
            insert(&mut file, &mut pieces, q, first.old());
        }
        "pieces side by side elsewhere" => {
            let q = outside(rng)?;
            insert(
                &mut file,
                &mut pieces,
                q,
                [first.old(), last.old()].concat(),
            );
        }
        "whole region elsewhere" => {
            let q = outside(rng)?;
            insert(
                &mut file,
                &mut pieces,
                q,
                lines[region.0..region.1].to_vec(),
            );
        }
        "elision line in the gap" => {
            let q = between(rng, &pieces);
            insert(&mut file, &mut pieces, q, vec![e.clone()]);
        }
        "elision line elsewhere" => {
            let q = outside(rng)?;
            insert(&mut file, &mut pieces, q, vec![e.clone()]);
        }
        "elision line is the whole gap" => {
            let (g0, g1) = (first.start + first.len(), pieces[1].start);
            file.splice(g0..g1, [e.clone()]);
            pieces[1].start = g0 + 1;
        }
        "block as written stands elsewhere" => {
            let q = outside(rng)?;
            let block = [first.old(), vec![e.clone()], last.old()].concat();
            insert(&mut file, &mut pieces, q, block);
            let mut h = elided(&pieces, &e);
            h.old_start = q;
            full = Some(h);
        }
        _ => {}
    }
    check_counts(&file, &pieces, variant)?;
    let h = full.clone().unwrap_or_else(|| elided(&pieces, &e));
    markers_ok(format, std::slice::from_ref(&h))?;
    let want = match &full {
        Some(h) => place(&file, &[(h.old_start, h)]),
        None => apply_hunks(&file, &pieces.iter().map(Piece::hunk).collect::<Vec<_>>()),
    };
    let (expectation, bare) = hinted(format, expectation, variant);
    let expect = expect_of(expectation, want)?;
    let patch = render_elided(rng, path, format, &file, &h, bare);
    Ok(case(file, patch, expect, expectation, variant))
}

/// A refusal case is rendered without hints, but a unified header always
/// numbers the first piece: where the look-alike is of the first piece, the
/// number may choose (docs/matching.md, rule 1), so the intended bytes or a
/// refusal.
fn hinted(format: Format, e: Expectation, variant: &str) -> (Expectation, bool) {
    let first_twin = matches!(
        variant,
        "changed first piece copied between"
            | "pieces side by side elsewhere"
            | "whole region elsewhere"
            | "at an edge, piece twice"
    );
    match e {
        Refuse if format == Format::Unified && first_twin => (ApplyOrRefuse, true),
        Refuse => (Refuse, true),
        _ => (e, false),
    }
}

/// How often each piece must stand in the file (loosely, and exactly), per
/// variant; a piece standing otherwise (the corpus file had a twin) skips
/// the pick.
fn check_counts(file: &[String], pieces: &[Piece], variant: &str) -> Result<(), Skip> {
    let last = pieces.len() - 1;
    for (i, p) in pieces.iter().enumerate() {
        let old = p.old();
        let want = match variant {
            "changed last piece copied between"
            | "unchanged last piece copied between"
            | "last piece copied before the first"
                if i == last =>
            {
                2
            }
            "changed first piece copied between" | "first piece copied after the last"
                if i == 0 =>
            {
                2
            }
            "drifted last piece copied between" if i == last => {
                if exact_count(file, &refs(&old)) != 1 {
                    return Err(Skip::Duplicate);
                }
                2
            }
            "pieces side by side elsewhere"
            | "whole region elsewhere"
            | "block as written stands elsewhere" => 2,
            _ => 1,
        };
        if occurrences(file, &refs(&old)) != want {
            return Err(Skip::Duplicate);
        }
    }
    Ok(())
}

/// An elision line at the start or end (or both) of a one-piece block; the
/// piece once (apply) or twice (refuse) in the file, or an added line beside
/// the edge elision (refuse: nothing says where it goes).
fn elision_edge(
    rng: &mut Rng,
    path: &str,
    lines: &[String],
    ext: &str,
    format: Format,
) -> Result<Built, Skip> {
    let n = lines.len();
    let len = 2 + rng.below(3);
    if n < len + 2 {
        return Err(Skip::Other);
    }
    let s = rng.below(n - len + 1);
    let p = piece(rng, lines, ext, s, len, true).ok_or(Skip::Other)?;
    let indent = if rng.chance(0.5) {
        indent_of(&lines[s]).to_string()
    } else {
        String::new()
    };
    let e = elision_line(rng, ext, &indent);
    if lines.iter().any(|l| l.trim() == e.trim()) {
        return Err(Skip::Other);
    }
    let (variant, expectation) = match rng.below(6) {
        0 => ("at the start", Apply),
        1 => ("at the end", Apply),
        2 => ("at both ends", Apply),
        3 => ("at an edge, piece twice", Refuse),
        4 => ("added line before a leading elision", Refuse),
        _ => ("added line after a trailing elision", Refuse),
    };
    let mut body = p.body.clone();
    let new = edit::new_line(rng, lines, s, ext);
    match variant {
        "at the start" => body.insert(0, ctx(&e)),
        "at the end" => body.push(ctx(&e)),
        "at both ends" | "at an edge, piece twice" => {
            let edge = rng.below(3);
            if edge != 1 {
                body.insert(0, ctx(&e));
            }
            if edge != 0 {
                body.push(ctx(&e));
            }
        }
        "added line before a leading elision" => {
            body.insert(0, ctx(&e));
            body.insert(0, add(&new));
        }
        _ => {
            body.push(ctx(&e));
            body.push(add(&new));
        }
    }
    let mut file = lines.to_vec();
    let mut piece = p.clone();
    if variant == "at an edge, piece twice" {
        let q = spot(rng, n, &[(s, s + len)], s, 3).ok_or(Skip::Other)?;
        insert(&mut file, std::slice::from_mut(&mut piece), q, p.old());
    }
    let want_count = if variant == "at an edge, piece twice" {
        2
    } else {
        1
    };
    if occurrences(&file, &refs(&p.old())) != want_count {
        return Err(Skip::Duplicate);
    }
    let h = Hunk {
        old_start: piece.start,
        body,
    };
    markers_ok(format, std::slice::from_ref(&h))?;
    let want = apply_hunks(&file, std::slice::from_ref(&piece.hunk()));
    let (expectation, bare) = hinted(format, expectation, variant);
    let expect = expect_of(expectation, want)?;
    let patch = render_elided(rng, path, format, &file, &h, bare);
    Ok(case(file, patch, expect, expectation, variant))
}
