//! Adversarial kinds for two reading rules: blocks applied in order (a later
//! block edits what an earlier block wrote; docs/matching.md, "Blocks applied
//! in order") and elision lines (`...`, `// ... existing code ...`) standing
//! for unchanged text between the pieces of a block (docs/formats.md,
//! "Elision"), in SEARCH/REPLACE blocks, unified and numberless hunks and
//! Codex chunks.
//!
//! The elision kinds are built in `elided.rs`.
//!
//! Each construction (a *variant*, its own table row) knows its intended
//! outcome: **apply** when the rule leaves one reading (its bytes computed
//! here), **refuse** when two readings give different bytes, **apply or
//! refuse** when one reading is the only coherent one but a documented rule
//! may refuse it (a piece that stands twice, an overlap in the original).

use super::adversary::{
    Built, Expectation, Hints, add, all_unique, ctx, drifted, exact_count, is_blank, markers_ok,
    one_hunk, place, render_as, with_twin,
};
use super::edit::{self, BodyLine, Edit, Hunk, Kind, apply_hunks, hunks_from_edits, join};
use super::{Expect, Format, Noise, Rng, Skip, elided, occurrences};
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
            elided::elision(rng, path, lines, ext, format, noise)
        }
        Noise::ElisionEdge => elided::elision_edge(rng, path, lines, ext, format),
        _ => Err(Skip::Other),
    }
}

/// A built case whose intended outcome is its own.
pub(super) fn case(
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
pub(super) fn expect_of(e: Expectation, want: Option<Vec<String>>) -> Result<Expect, Skip> {
    match e {
        Refuse => Ok(Expect::Refuse),
        _ => Ok(Expect::Apply(join(&want.ok_or(Skip::Other)?).into_bytes())),
    }
}

pub(super) fn remove(t: &str) -> BodyLine {
    BodyLine {
        kind: Kind::Remove,
        text: t.to_string(),
    }
}

pub(super) fn owned(v: Vec<&str>) -> Vec<String> {
    v.into_iter().map(str::to_string).collect()
}

pub(super) fn refs(v: &[String]) -> Vec<&str> {
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
pub(super) fn spot(
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
pub(super) fn drifted_copy(rng: &mut Rng, block: &[String]) -> Option<Vec<String>> {
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
    let e1 = first_edit(rng, lines, ext, p)?;
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

/// Block 1's edit at line `p`: the line changed (sometimes with a line
/// added after it), or 1–2 lines inserted.
fn first_edit(rng: &mut Rng, lines: &[String], ext: &str, p: usize) -> Result<Edit, Skip> {
    Ok(if rng.chance(0.6) {
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
    })
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
