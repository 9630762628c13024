//! The damage a model does to a patch, one kind at a time. Each function
//! returns false when the patch offers no place for that damage (the case is
//! then drawn again).

use super::Rng;
use super::edit::{BodyLine, Hunk, Kind};
use super::render::SrBlock;

/// Positions `(hunk, line)` of body lines for which `pred` holds.
fn positions(hunks: &[Hunk], pred: impl Fn(&[BodyLine], usize) -> bool) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (h, hunk) in hunks.iter().enumerate() {
        for i in 0..hunk.body.len() {
            if pred(&hunk.body, i) {
                out.push((h, i));
            }
        }
    }
    out
}

/// Rewrites one random line for which `change` gives a new text.
fn damage_one(
    rng: &mut Rng,
    hunks: &mut [Hunk],
    kinds: &[Kind],
    change: impl Fn(&mut Rng, &str) -> Option<String>,
) -> bool {
    let mut spots = positions(hunks, |b, i| {
        kinds.contains(&b[i].kind) && !b[i].text.trim().is_empty()
    });
    rng.shuffle(&mut spots);
    for (h, i) in spots {
        if let Some(new) = change(rng, &hunks[h].body[i].text)
            && new != hunks[h].body[i].text
        {
            hunks[h].body[i].text = new;
            return true;
        }
    }
    false
}

fn indent_len(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// Trailing spaces, tabs↔spaces in the indentation, or a doubled inner space.
pub fn drift(rng: &mut Rng, line: &str) -> Option<String> {
    let start = rng.below(3);
    for k in 0..3 {
        let got = match (start + k) % 3 {
            0 => Some(format!("{line}{}", " ".repeat(1 + rng.below(3)))),
            1 => {
                let ind = &line[..indent_len(line)];
                let rest = &line[ind.len()..];
                if ind.starts_with('\t') {
                    Some(format!("{}{rest}", ind.replace('\t', "    ")))
                } else if ind.len() >= 2 && !ind.contains('\t') {
                    Some(format!("{}{rest}", "\t".repeat(ind.len().div_ceil(4))))
                } else {
                    None
                }
            }
            _ => {
                let b = line.as_bytes();
                let spots: Vec<usize> = (indent_len(line) + 1..b.len().saturating_sub(1))
                    .filter(|&i| b[i] == b' ' && b[i - 1] != b' ' && b[i + 1] != b' ')
                    .collect();
                (!spots.is_empty()).then(|| {
                    let i = spots[rng.below(spots.len())];
                    format!("{}  {}", &line[..i], &line[i + 1..])
                })
            }
        };
        if got.is_some() {
            return got;
        }
    }
    None
}

/// Whitespace drift on one or two context or removed lines.
pub fn whitespace(rng: &mut Rng, hunks: &mut [Hunk]) -> bool {
    let kinds = [Kind::Context, Kind::Remove];
    let first = damage_one(rng, hunks, &kinds, drift);
    if first && rng.chance(0.5) {
        damage_one(rng, hunks, &kinds, drift);
    }
    first
}

/// A context line lowercased, uppercased, or with its first letter's case flipped.
pub fn case(rng: &mut Rng, hunks: &mut [Hunk]) -> bool {
    damage_one(rng, hunks, &[Kind::Context], |rng, l| {
        let flip = || {
            let i = l.find(|c: char| c.is_ascii_alphabetic())?;
            let c = l[i..].chars().next()?;
            let f = if c.is_ascii_uppercase() {
                c.to_ascii_lowercase()
            } else {
                c.to_ascii_uppercase()
            };
            Some(format!("{}{f}{}", &l[..i], &l[i + 1..]))
        };
        match rng.below(3) {
            0 if l.to_lowercase() != l => Some(l.to_lowercase()),
            1 if l.to_uppercase() != l => Some(l.to_uppercase()),
            _ => flip(),
        }
    })
}

/// Trailing punctuation added to, or removed from, a context line.
pub fn punctuation(rng: &mut Rng, hunks: &mut [Hunk]) -> bool {
    damage_one(rng, hunks, &[Kind::Context], |rng, l| {
        let t = l.trim_end();
        if t.ends_with(['.', ',', ';', ':']) && rng.chance(0.5) {
            Some(t[..t.len() - 1].to_string())
        } else {
            Some(format!("{t}{}", rng.pick(&[".", ",", ";"])))
        }
    })
}

/// A context line of at least 40 characters cut to its last ≥ 15 characters,
/// or to its start followed by `...`.
pub fn truncate(rng: &mut Rng, hunks: &mut [Hunk]) -> bool {
    damage_one(rng, hunks, &[Kind::Context], |rng, l| {
        let chars: Vec<char> = l.trim().chars().collect();
        if chars.len() < 40 {
            return None;
        }
        let keep = 15 + rng.below(chars.len() - 24);
        if rng.chance(0.5) {
            Some(chars[chars.len() - keep..].iter().collect())
        } else {
            let ind = &l[..indent_len(l)];
            Some(format!(
                "{ind}{}...",
                chars[..keep].iter().collect::<String>()
            ))
        }
    })
}

/// Straight quotes in a context line turned into curly ones.
pub fn smart_quotes(rng: &mut Rng, hunks: &mut [Hunk]) -> bool {
    damage_one(rng, hunks, &[Kind::Context], |_, l| {
        let (mut double, mut single) = (0, 0);
        let out: String = l
            .chars()
            .map(|c| match c {
                '"' => {
                    double += 1;
                    if double % 2 == 1 {
                        '\u{201c}'
                    } else {
                        '\u{201d}'
                    }
                }
                '\'' => {
                    single += 1;
                    if single % 2 == 1 {
                        '\u{2018}'
                    } else {
                        '\u{2019}'
                    }
                }
                c => c,
            })
            .collect();
        Some(out)
    })
}

/// One interior (not first, not last) non-blank context line left out of the
/// patch. Not one next to an added line: without it the patch no longer says
/// whether the additions go before or after it, so the intent is unknowable.
pub fn drop_context(rng: &mut Rng, hunks: &mut [Hunk]) -> bool {
    let spots = positions(hunks, |b, i| {
        b[i].kind == Kind::Context
            && i > 0
            && i + 1 < b.len()
            && !b[i].text.trim().is_empty()
            && b[i - 1].kind != Kind::Add
            && b[i + 1].kind != Kind::Add
    });
    if spots.is_empty() {
        return false;
    }
    let (h, i) = spots[rng.below(spots.len())];
    hunks[h].body.remove(i);
    true
}

/// Whether the body line at `i` is a non-blank context line.
fn solid_context(b: &[BodyLine], i: usize) -> bool {
    b.get(i)
        .is_some_and(|l| l.kind == Kind::Context && !l.text.trim().is_empty())
}

/// A blank context line inserted next to added lines, between two non-blank
/// context lines adjacent in the file. The same blank goes into `intended`
/// as an added line, since that is what it becomes.
pub fn blank_context(rng: &mut Rng, hunks: &mut [Hunk], intended: &mut [Hunk]) -> bool {
    let spots = positions(hunks, |b, p| {
        if p == 0 {
            return false;
        }
        let is_add = |i: usize| b.get(i).is_some_and(|l| l.kind == Kind::Add);
        // After a run of additions that follows a context line, before a context line.
        let after_adds = is_add(p - 1) && solid_context(b, p) && {
            let mut i = p - 1;
            while i > 0 && is_add(i) {
                i -= 1;
            }
            solid_context(b, i)
        };
        // After a context line, before a run of additions that ends at a context line.
        let before_adds = solid_context(b, p - 1) && is_add(p) && {
            let mut i = p;
            while is_add(i) {
                i += 1;
            }
            solid_context(b, i)
        };
        after_adds || before_adds
    });
    if spots.is_empty() {
        return false;
    }
    let (h, p) = spots[rng.below(spots.len())];
    hunks[h].body.insert(
        p,
        BodyLine {
            kind: Kind::Context,
            text: String::new(),
        },
    );
    intended[h].body.insert(
        p,
        BodyLine {
            kind: Kind::Add,
            text: String::new(),
        },
    );
    true
}

/// One or two made-up context lines after the file's last line, when the
/// last hunk reaches the end of a file of `file_len` lines.
pub fn past_eof(rng: &mut Rng, hunks: &mut [Hunk], file_len: usize, ext: &str) -> bool {
    let Some(last) = hunks.last_mut() else {
        return false;
    };
    if last.old_start + last.old_lines().len() != file_len {
        return false;
    }
    let made_up: &[&str] = match ext {
        "rs" => &["// end of module", "#[cfg(test)]"],
        "py" => &["# end of module", "if __name__ == \"__main__\":"],
        "toml" => &["# end", "[workspace]"],
        _ => &["Last updated by the maintainers.", "## See also"],
    };
    for text in made_up.iter().take(1 + rng.below(2)) {
        last.body.push(BodyLine {
            kind: Kind::Context,
            text: text.to_string(),
        });
    }
    true
}

/// `N | ` prefixes on every SEARCH and REPLACE line, numbered from the block's
/// start line as in a numbered file view.
pub fn line_prefixes(blocks: &mut [SrBlock]) {
    for b in blocks {
        let n = b.start_line;
        for (i, l) in b.search.iter_mut().enumerate() {
            *l = format!("{} | {l}", n + i);
        }
        for (i, l) in b.replace.iter_mut().enumerate() {
            *l = format!("{} | {l}", n + i);
        }
    }
}

/// Every block's SEARCH and REPLACE shifted left or right by the same amount.
pub fn indent_shift(rng: &mut Rng, blocks: &mut [SrBlock]) -> bool {
    let mut any = false;
    for b in blocks {
        let lines = b
            .search
            .iter()
            .chain(&b.replace)
            .filter(|l| !l.trim().is_empty());
        let Some(common) = lines.fold(None::<String>, |acc, l| {
            let ind = &l[..indent_len(l)];
            Some(match acc {
                None => ind.to_string(),
                Some(a) => a
                    .chars()
                    .zip(ind.chars())
                    .take_while(|(x, y)| x == y)
                    .map(|p| p.0)
                    .collect(),
            })
        }) else {
            continue;
        };
        let uses_tabs = b.search.iter().any(|l| l.starts_with('\t'));
        let shift = |l: &mut String, f: &dyn Fn(&str) -> String| {
            if !l.trim().is_empty() {
                *l = f(l);
            }
        };
        if !common.is_empty() && rng.chance(0.6) {
            let cut = if common.starts_with(' ') && common.len() > 2 && rng.chance(0.5) {
                2 + rng.below(common.len() - 2)
            } else {
                common.len()
            };
            for l in b.search.iter_mut().chain(b.replace.iter_mut()) {
                shift(l, &|s: &str| s[cut..].to_string());
            }
        } else {
            let add = if uses_tabs {
                "\t"
            } else {
                *rng.pick(&["  ", "    "])
            };
            for l in b.search.iter_mut().chain(b.replace.iter_mut()) {
                shift(l, &|s: &str| format!("{add}{s}"));
            }
        }
        any = true;
    }
    any
}

/// The patch text with CRLF line endings.
pub fn crlf(text: &str) -> String {
    text.replace('\n', "\r\n")
}

/// The patch inside a Markdown fence (unless it has its own) with prose around it.
pub fn fenced(rng: &mut Rng, text: &str, path: &str, info: Option<&str>) -> String {
    let before = rng.pick(&[
        "Here is the change to `{}`:",
        "I updated `{}` as discussed. Apply this patch:",
        "Sure! The fix for `{}` is below.",
    ]);
    let after = rng.pick(&[
        "This keeps the rest of the file unchanged.",
        "Let me know if you want the tests updated too.",
        "After applying it, run the test suite again.",
    ]);
    let before = before.replace("{}", path);
    match info {
        Some(info) => format!("{before}\n\n```{info}\n{text}```\n\n{after}\n"),
        None => format!("{before}\n\n{text}\n{after}\n"),
    }
}
