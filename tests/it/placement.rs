//! A differential placement property (issue 14, "a uniqueness argument …
//! checked by a differential property test that enumerates alternatives on
//! small files"): for small files full of repeated and near-repeated lines
//! and one-hunk patches taken from one place of them (exact or with
//! whitespace drift, with a right, a wrong or no line number), every place
//! where the hunk's old side stands is found by brute force, with a matcher
//! written here independently of the engine:
//!
//! - *exact*: the lines are byte-equal;
//! - *whitespace*: equal after trimming and collapsing runs of blanks (the
//!   resilient tier's whitespace rule; the vocabulary has no heading marks
//!   and no line long enough for its truncation rule), where a line of
//!   closing brackets keeps its indentation unless the whole block shifts.
//!
//! When the engine applies the hunk, no other place that the same rules
//! admit may give different bytes (`docs/matching.md`, "Choosing among
//! candidates" and "One placement decision"):
//!
//! - at the exact tier, the place is an exact one; if the exact places
//!   give different results, the line number points at this one (within
//!   100 lines, less than half as far as the next: `points_at`); and the
//!   line number does not point at a whitespace-only place whose result
//!   differs (rule 1, hints against tiers);
//! - at the resilient tier, there is no exact place with another result,
//!   the place is among the whitespace places with the most byte-exact
//!   lines, and if those give different results the line number points at
//!   this one;
//! - a more lenient tier never places the hunk away from a whitespace place;
//! - "already applied" never stands for a hunk whose old side stands
//!   exactly at a place where applying it changes the file, unless its new
//!   side stands around that place (the applied state read as the old
//!   side, rule 7 of "One placement decision").

use git_fuzzy_apply::report::{HunkOutcome, HunkReport};
use git_fuzzy_apply::{ApplyOptions, Tier, plan_patch};
use proptest::prelude::*;
use std::fs;

/// Lines that repeat; the whitespace variants make near-repeats.
const WORDS: &[&str] = &[
    "a();",
    "b();",
    "c();",
    "if x {",
    "}",
    "",
    "d = 1;",
    "return y;",
    "z();",
];

/// One file line: a word with one of four whitespace shapes.
fn file_line() -> impl Strategy<Value = String> {
    (
        prop::sample::select(WORDS),
        prop::sample::select(&["", "  ", "\t", " "][..]),
        any::<bool>(),
    )
        .prop_map(|(w, indent, trailing)| {
            if w.is_empty() {
                String::new()
            } else {
                format!("{indent}{w}{}", if trailing { " " } else { "" })
            }
        })
}

/// A file made of copies of one short block (each copy with its own
/// whitespace) and single lines between them.
fn file() -> impl Strategy<Value = Vec<String>> {
    (
        prop::collection::vec(file_line(), 2..4),
        prop::collection::vec((any::<bool>(), file_line(), any::<u8>()), 2..8),
    )
        .prop_map(|(block, pieces)| {
            let mut out = Vec::new();
            for (copy, single, shape) in pieces {
                if copy {
                    for (k, l) in block.iter().enumerate() {
                        out.push(reshape(l, shape.rotate_right(k as u32 * 2)));
                    }
                } else {
                    out.push(single);
                }
            }
            out
        })
}

/// `line` with its whitespace changed by `how` (its words kept).
fn reshape(line: &str, how: u8) -> String {
    let word = line.trim();
    match how % 5 {
        0 | 1 => line.to_string(),
        2 => word.to_string(),
        3 => format!("  {word}"),
        _ => format!("{word} "),
    }
}

/// What the hunk does at its place.
#[derive(Debug, Clone, Copy)]
enum Edit {
    /// The line at this offset is replaced by `z();`.
    Replace(usize),
    /// `z();` is inserted after this offset.
    Insert(usize),
    /// The line at this offset is removed.
    Delete(usize),
}

/// One hunk line: kind (` `, `-`, `+`) and text.
type Line = (char, String);

/// The hunk taken from `file[site..site + len]`, its old side drifted by `drift`.
fn hunk(file: &[String], site: usize, len: usize, edit: Edit, drift: &[u8]) -> Vec<Line> {
    let mut out = Vec::new();
    for (k, line) in file[site..site + len].iter().enumerate() {
        let text = reshape(line, drift.get(k).copied().unwrap_or(0));
        match edit {
            Edit::Replace(r) if r == k => {
                out.push(('-', text));
                out.push(('+', "z();".to_string()));
            }
            Edit::Delete(r) if r == k => out.push(('-', text)),
            Edit::Insert(r) if r == k => {
                out.push((' ', text));
                out.push(('+', "z();".to_string()));
            }
            _ => out.push((' ', text)),
        }
    }
    out
}

fn old_side(hunk: &[Line]) -> Vec<&str> {
    hunk.iter()
        .filter(|(k, _)| *k != '+')
        .map(|(_, t)| t.as_str())
        .collect()
}

fn ws_key(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The file with the hunk applied at `at` as the brute force sees it:
/// context lines keep the file's text, removed lines go, added lines come.
fn result_at(file: &[String], hunk: &[Line], at: usize) -> Vec<String> {
    let mut out = file[..at].to_vec();
    let mut k = at;
    for (kind, text) in hunk {
        match kind {
            ' ' => {
                out.push(file[k].clone());
                k += 1;
            }
            '-' => k += 1,
            _ => out.push(text.clone()),
        }
    }
    out.extend_from_slice(&file[k..]);
    out
}

/// Every place where `old` stands, under `same`.
fn places(file: &[String], old: &[&str], same: impl Fn(&str, &str) -> bool) -> Vec<usize> {
    if old.len() > file.len() {
        return Vec::new();
    }
    (0..=file.len() - old.len())
        .filter(|&i| old.iter().enumerate().all(|(k, o)| same(&file[i + k], o)))
        .collect()
}

/// The place of `pool` that the 0-based line `hint` clearly points at
/// (`docs/matching.md`: within 100 lines, less than half as far as the next).
fn pointed(pool: &[usize], hint: Option<usize>) -> Option<usize> {
    let hint = hint?;
    let mut by: Vec<(usize, usize)> = pool.iter().map(|&p| (p.abs_diff(hint), p)).collect();
    by.sort_unstable();
    let (d1, p1) = *by.first()?;
    let d2 = by.get(1).map_or(usize::MAX, |d| d.0);
    (d1 <= 100 && d2 > 2 * d1 + 2).then_some(p1)
}

fn distinct_results(file: &[String], hunk: &[Line], pool: &[usize]) -> usize {
    let mut seen: Vec<Vec<String>> = pool.iter().map(|&p| result_at(file, hunk, p)).collect();
    seen.sort();
    seen.dedup();
    seen.len()
}

fn patch_text(hunk: &[Line], hint: Option<usize>) -> String {
    let old = hunk.iter().filter(|(k, _)| *k != '+').count();
    let new = hunk.iter().filter(|(k, _)| *k != '-').count();
    let header = match hint {
        Some(h) => format!("@@ -{},{old} +{},{new} @@\n", h + 1, h + 1),
        None => "@@\n".to_string(),
    };
    let mut out = format!("--- a/f.txt\n+++ b/f.txt\n{header}");
    for (kind, text) in hunk {
        out.push_str(&format!("{kind}{text}\n"));
    }
    out
}

fn join(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// Runs the engine and returns its report of the one hunk and the result.
fn engine(file: &[String], patch: &str) -> (HunkReport, String) {
    let dir = tempfile::tempdir().unwrap();
    let original = join(file);
    fs::write(dir.path().join("f.txt"), &original).unwrap();
    let plan = plan_patch(patch.as_bytes(), dir.path(), &ApplyOptions::default()).unwrap();
    let report = plan.files[0].report.hunks[0].clone();
    let out = plan.results().next().map_or(original, |r| {
        String::from_utf8_lossy(&r.new_bytes()).into_owned()
    });
    (report, out)
}

/// The rules of the module comment; `Err` names the one broken.
fn check(
    file: &[String],
    hunk: &[Line],
    hint: Option<usize>,
    got: &HunkReport,
    out: &str,
) -> Result<(), String> {
    // A line number past the end of the file is no evidence.
    let hint = hint.filter(|&h| h <= file.len());
    let old = old_side(hunk);
    let exact = places(file, &old, |a, b| a == b);
    let loose: Vec<usize> = places(file, &old, |a, b| ws_key(a) == ws_key(b))
        .into_iter()
        .filter(|&i| brackets_keep_indentation(&file[i..i + old.len()], &old))
        .collect();
    let differs = |a: usize, b: usize| result_at(file, hunk, a) != result_at(file, hunk, b);
    let start = got.lines.map(|r| r.start - 1);
    match (got.status, got.tier, start) {
        (HunkOutcome::Applied, Some(Tier::Exact), Some(p)) => {
            if !exact.contains(&p) {
                return Err(format!(
                    "exact tier at line {} where the old side is not",
                    p + 1
                ));
            }
            if join(&result_at(file, hunk, p)) != out {
                return Err("the exact tier's result is not the hunk spliced in".into());
            }
            if distinct_results(file, hunk, &exact) > 1 && pointed(&exact, hint) != Some(p) {
                return Err(format!(
                    "exact places {exact:?} give different results and nothing points at {p}"
                ));
            }
            if let Some(w) = pointed_lenient(&loose, &exact, p, hint)
                && differs(w, p)
            {
                return Err(format!(
                    "the line number points at the whitespace place {w}, the engine took {p}"
                ));
            }
        }
        (HunkOutcome::Applied, Some(Tier::Resilient), Some(p)) => {
            if let Some(e) = exact.iter().find(|&&e| differs(e, p)) {
                return Err(format!(
                    "resilient at {p} while the old side stands exactly at {e}"
                ));
            }
            let count = |i: usize| {
                old.iter()
                    .enumerate()
                    .filter(|(k, o)| file[i + k] == **o)
                    .count()
            };
            let best = loose.iter().map(|&i| count(i)).max().unwrap_or(0);
            let top: Vec<usize> = loose
                .iter()
                .copied()
                .filter(|&i| count(i) == best)
                .collect();
            if !top.contains(&p) {
                return Err(format!(
                    "resilient at {p}, not among the best places {top:?}"
                ));
            }
            if distinct_results(file, hunk, &top) > 1 && pointed(&top, hint) != Some(p) {
                return Err(format!(
                    "best whitespace places {top:?} give different results and nothing points at {p}"
                ));
            }
        }
        (HunkOutcome::Applied, Some(tier), Some(p)) if loose.iter().any(|&w| w != p) => {
            return Err(format!(
                "{tier:?} tier at {p} while the old side stands at {loose:?}"
            ));
        }
        (HunkOutcome::AlreadyApplied, _, _) => {
            // Rule 7: where the old side stands inside the new side, the
            // applied state is read as the old one: done, not applied again.
            let new: Vec<&str> = hunk
                .iter()
                .filter(|(k, _)| *k != '-')
                .map(|(_, t)| t.as_str())
                .collect();
            let stands = |s: usize| {
                s + new.len() <= file.len()
                    && new
                        .iter()
                        .enumerate()
                        .all(|(k, t)| ws_key(&file[s + k]) == ws_key(t))
            };
            let around = |e: usize| ((e + old.len()).saturating_sub(new.len())..=e).any(stands);
            let unchanged = |i: usize| result_at(file, hunk, i) == file;
            // A line number that points at one exact place settles it.
            let chosen = pointed(&exact, hint).map_or_else(|| exact.clone(), |p| vec![p]);
            if let Some(e) = chosen.iter().find(|&&e| !unchanged(e) && !around(e)) {
                return Err(format!(
                    "already applied, but the old side stands exactly at {e} and applying changes the file"
                ));
            }
        }
        _ => {}
    }
    Ok(())
}

/// The engine's rule "closing brackets keep their indentation"
/// (`docs/matching.md`, the ladder): a lenient match pairs a line of only
/// closing brackets with a file line of another indentation only when the
/// rest of the block is shifted by the same amount.
fn brackets_keep_indentation(at: &[String], old: &[&str]) -> bool {
    let indent = |l: &str| l[..l.len() - l.trim_start().len()].to_string();
    let uniform = |s: &str| s.chars().all(|c| c == ' ') || s.chars().all(|c| c == '\t');
    let mut brackets = Vec::new();
    let mut others = Vec::new();
    for (f, o) in at.iter().zip(old) {
        let (fi, pi) = (indent(f), indent(o));
        let comparable =
            uniform(&fi) && uniform(&pi) && (fi.is_empty() || pi.is_empty() || fi[..1] == pi[..1]);
        if o.trim().is_empty() || !comparable {
            continue;
        }
        let delta = fi.len() as isize - pi.len() as isize;
        if o.trim().chars().all(|c| "}]);,".contains(c)) {
            brackets.push(delta);
        } else {
            others.push(delta);
        }
    }
    // The most common shift of the other lines (the smallest of a tie).
    others.sort_unstable();
    let Some(mode) = others
        .iter()
        .map(|d| {
            (
                others.iter().filter(|e| *e == d).count(),
                std::cmp::Reverse(*d),
            )
        })
        .max()
        .map(|(_, std::cmp::Reverse(d))| d)
    else {
        return true;
    };
    brackets.iter().all(|&d| d == mode)
}

/// The whitespace-only place (not among `exact`) that the hint clearly
/// points at, compared with the exact place `p` (rule 1).
fn pointed_lenient(
    loose: &[usize],
    exact: &[usize],
    p: usize,
    hint: Option<usize>,
) -> Option<usize> {
    let hint = hint?;
    loose
        .iter()
        .copied()
        .filter(|w| !exact.contains(w))
        .filter(|w| w.abs_diff(hint) <= 100 && p.abs_diff(hint) > 2 * w.abs_diff(hint) + 2)
        .min_by_key(|w| w.abs_diff(hint))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn no_other_admitted_place_gives_different_bytes(
        file in file(),
        site in any::<prop::sample::Index>(),
        len in 1usize..4,
        kind in 0u8..3,
        at in any::<prop::sample::Index>(),
        drift in prop::collection::vec(any::<u8>(), 4),
        hint in prop_oneof![Just(None), Just(Some(usize::MAX)), (0usize..30).prop_map(Some)],
    ) {
        prop_assume!(file.len() >= 2);
        let len = len.min(file.len());
        let site = site.index(file.len() - len + 1);
        let r = at.index(len);
        let edit = match kind {
            0 => Edit::Replace(r),
            1 => Edit::Insert(r),
            _ => Edit::Delete(r),
        };
        let hunk = hunk(&file, site, len, edit, &drift);
        // `usize::MAX` stands for the right line number.
        let hint = hint.map(|h| if h == usize::MAX { site } else { h });
        let patch = patch_text(&hunk, hint);
        let (got, out) = engine(&file, &patch);
        if let Err(why) = check(&file, &hunk, hint, &got, &out) {
            return Err(TestCaseError::fail(format!(
                "{why}\n--- file\n{}--- patch\n{patch}--- engine: {:?} tier {:?} lines {:?}\n--- result\n{out}",
                join(&file), got.status, got.tier, got.lines
            )));
        }
    }
}
