//! The elision kinds of the in-order and elision stream (`sequence.rs`):
//! blocks whose pieces an elision line (`...`, `// ... existing code ...`)
//! joins, with unique pieces, look-alikes of pieces, the elision line real
//! text of the file, or an elision at the edge of a block
//! (docs/formats.md, "Elision").

use super::adversary::{
    Built, Expectation, Hints, add, anchor_before, ctx, exact_count, indent_of, is_blank,
    markers_ok, place, render_as,
};
use super::edit::{self, BodyLine, Hunk, apply_hunks};
use super::sequence::{case, drifted_copy, expect_of, owned, refs, remove, spot};
use super::{Format, Noise, Rng, Skip, occurrences};
use Expectation::{Apply, ApplyOrRefuse, Refuse};

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
pub(super) fn elision(
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
    let (file, at) = with_variant(rng, lines, &mut pieces, &e, variant)?;
    let full = at.map(|q| {
        let mut h = elided(&pieces, &e);
        h.old_start = q;
        h
    });
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

/// The file for a variant: `lines` with the copies (or the elision line)
/// the variant puts in, the pieces moved with them; for "block as written
/// stands elsewhere", where that block starts.
fn with_variant(
    rng: &mut Rng,
    lines: &[String],
    pieces: &mut [Piece],
    e: &str,
    variant: &str,
) -> Result<(Vec<String>, Option<usize>), Skip> {
    let mut file = lines.to_vec();
    let mut at = None;
    let (first, last) = (pieces[0].clone(), pieces[pieces.len() - 1].clone());
    let region = (first.start, last.start + last.len());
    let between = |rng: &mut Rng, p: &[Piece]| {
        p[0].start + p[0].len() + rng.below(p[1].start - p[0].start - p[0].len() + 1)
    };
    let outside = |rng: &mut Rng| spot(rng, lines.len(), &[region], region.0, 3).ok_or(Skip::Other);
    match variant {
        "changed last piece copied between" | "unchanged last piece copied between" => {
            let q = between(rng, pieces);
            insert(&mut file, pieces, q, last.old());
        }
        "changed first piece copied between" => {
            let q = between(rng, pieces);
            insert(&mut file, pieces, q, first.old());
        }
        "drifted last piece copied between" => {
            let q = between(rng, pieces);
            let c = drifted_copy(rng, &last.old()).ok_or(Skip::Other)?;
            insert(&mut file, pieces, q, c);
        }
        "last piece copied before the first" => {
            if region.0 < 3 {
                return Err(Skip::Other);
            }
            let q = spot(rng, region.0 - 3, &[], region.0, 0).ok_or(Skip::Other)?;
            insert(&mut file, pieces, q, last.old());
        }
        "first piece copied after the last" => {
            let lo = region.1 + 3;
            if lo > lines.len() {
                return Err(Skip::Other);
            }
            let q = lo + rng.below(lines.len() - lo + 1);
            insert(&mut file, pieces, q, first.old());
        }
        "pieces side by side elsewhere" => {
            let q = outside(rng)?;
            insert(&mut file, pieces, q, [first.old(), last.old()].concat());
        }
        "whole region elsewhere" => {
            let q = outside(rng)?;
            insert(&mut file, pieces, q, lines[region.0..region.1].to_vec());
        }
        "elision line in the gap" => {
            let q = between(rng, pieces);
            insert(&mut file, pieces, q, vec![e.to_string()]);
        }
        "elision line elsewhere" => {
            let q = outside(rng)?;
            insert(&mut file, pieces, q, vec![e.to_string()]);
        }
        "elision line is the whole gap" => {
            let (g0, g1) = (first.start + first.len(), pieces[1].start);
            file.splice(g0..g1, [e.to_string()]);
            pieces[1].start = g0 + 1;
        }
        "block as written stands elsewhere" => {
            let q = outside(rng)?;
            let block = [first.old(), vec![e.to_string()], last.old()].concat();
            insert(&mut file, pieces, q, block);
            at = Some(q);
        }
        _ => {}
    }
    Ok((file, at))
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
pub(super) fn elision_edge(
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
