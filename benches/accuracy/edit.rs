//! Random intended edits to a file's lines, the hunks that describe them, and
//! applying hunks to compute an intended result.

use super::Rng;

/// What a hunk body line does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Unchanged line (present before and after).
    Context,
    /// Line removed from the file.
    Remove,
    /// Line added to the file.
    Add,
}

/// One line of a hunk body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BodyLine {
    /// Its role.
    pub kind: Kind,
    /// Its text, without the line ending.
    pub text: String,
}

/// A hunk: where its old lines start in the file (0-based) and its body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hunk {
    /// Index of the first old line in the file.
    pub old_start: usize,
    /// Context, removed and added lines in order.
    pub body: Vec<BodyLine>,
}

impl Hunk {
    /// The lines the hunk expects in the file (context and removed).
    pub fn old_lines(&self) -> Vec<&str> {
        self.side(Kind::Remove)
    }

    /// The lines the hunk leaves in the file (context and added).
    pub fn new_lines(&self) -> Vec<&str> {
        self.side(Kind::Add)
    }

    fn side(&self, keep: Kind) -> Vec<&str> {
        self.body
            .iter()
            .filter(|l| l.kind == Kind::Context || l.kind == keep)
            .map(|l| l.text.as_str())
            .collect()
    }
}

/// One intended change on the file's lines: remove `remove` lines at `at`,
/// put `insert` there.
#[derive(Clone, Debug)]
pub struct Edit {
    /// First affected line (0-based); equal to the line count to append.
    pub at: usize,
    /// How many lines go.
    pub remove: usize,
    /// The lines that come in their place.
    pub insert: Vec<String>,
}

/// Words a changed line may borrow.
const WORDS: &[&str] = &[
    "count", "index", "buffer", "result", "limit", "offset", "name", "config", "state", "items",
    "total", "value", "cursor", "width", "parent", "reader", "target", "options",
];

/// Comment texts for new comment lines.
const COMMENTS: &[&str] = &[
    "TODO: handle the empty case here",
    "keep this in sync with the parser",
    "NOTE: the order matters below",
    "checked again after the refactor",
    "fast path for the common case",
];

/// Makes `n` non-overlapping edits (sorted, at least two unchanged lines
/// apart). With `at_end` the last edit touches one of the last three lines.
/// With `need_removal` some edit removes a line that has a word in it.
pub fn random_edits(
    rng: &mut Rng,
    lines: &[String],
    ext: &str,
    n: usize,
    at_end: bool,
    need_removal: bool,
) -> Option<Vec<Edit>> {
    let len = lines.len();
    let mut starts: Vec<usize> = (0..n).map(|_| rng.below(len)).collect();
    if at_end {
        starts.pop();
        starts.push(len - 1 - rng.below(3.min(len)));
    }
    starts.sort_unstable();
    let mut edits: Vec<Edit> = Vec::new();
    for (k, &at) in starts.iter().enumerate() {
        if edits.last().is_some_and(|e| e.at + e.remove + 2 > at) {
            return None;
        }
        let room = starts
            .get(k + 1)
            .map_or(len - at, |&next| next.saturating_sub(at + 2));
        let mut kind = rng.below(3);
        if need_removal && k == 0 {
            kind = 1 + rng.below(2);
        }
        if room == 0 {
            kind = 0;
        }
        let remove = if kind == 0 {
            0
        } else {
            (1 + rng.below(3)).min(room)
        };
        let removed = &lines[at..at + remove];
        if remove > 0 && removed.iter().all(|l| l.trim().is_empty()) {
            return None;
        }
        let insert: Vec<String> = match kind {
            0 => (0..1 + rng.below(3))
                .map(|_| new_line(rng, lines, at, ext))
                .collect(),
            1 => Vec::new(),
            _ => {
                let mut v: Vec<String> = removed
                    .iter()
                    .map(|l| variant(rng, l).unwrap_or_else(|| new_line(rng, lines, at, ext)))
                    .collect();
                if rng.chance(0.3) {
                    v.push(new_line(rng, lines, at, ext));
                }
                v
            }
        };
        if insert.as_slice() == removed {
            return None;
        }
        edits.push(Edit { at, remove, insert });
    }
    if need_removal
        && !edits.iter().any(|e| {
            lines[e.at..e.at + e.remove]
                .iter()
                .any(|l| longest_word(l).is_some())
        })
    {
        return None;
    }
    Some(edits)
}

/// The longest ASCII-letter word of at least 3 letters in `line`, as a byte range.
pub fn longest_word(line: &str) -> Option<(usize, usize)> {
    let mut best: Option<(usize, usize)> = None;
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_alphabetic() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
                i += 1;
            }
            if i - start >= 3 && best.is_none_or(|(s, e)| e - s < i - start) {
                best = Some((start, i));
            }
        } else {
            i += 1;
        }
    }
    best
}

/// `line` with its longest word replaced by a different word, if it has one.
pub fn variant(rng: &mut Rng, line: &str) -> Option<String> {
    let (s, e) = longest_word(line)?;
    let old = &line[s..e];
    let mut word = *rng.pick(WORDS);
    if word.eq_ignore_ascii_case(old) {
        word = "renamed";
    }
    Some(format!("{}{}{}", &line[..s], word, &line[e..]))
}

/// A plausible new line for position `at`: a copy of a nearby line with a
/// word changed, or a new comment or statement at that place's indentation.
pub fn new_line(rng: &mut Rng, lines: &[String], at: usize, ext: &str) -> String {
    let indent = indentation_near(lines, at);
    if rng.chance(0.4) {
        let lo = at.saturating_sub(3);
        let hi = (at + 3).min(lines.len());
        let near = &lines[lo..hi];
        if let Some(copy) = near
            .get(rng.below(near.len().max(1)))
            .and_then(|l| variant(rng, l))
        {
            return copy;
        }
    }
    let word = *rng.pick(WORDS);
    let comment = *rng.pick(COMMENTS);
    match (ext, rng.chance(0.5)) {
        ("rs", true) => format!("{indent}// {comment}"),
        ("rs", false) => format!("{indent}let _{word} = {word}.clone();"),
        ("py", true) => format!("{indent}# {comment}"),
        ("py", false) => format!("{indent}{word} = None"),
        ("toml", true) => format!("# {comment}"),
        ("toml", false) => format!("{word} = \"{comment}\""),
        (_, true) => format!("{indent}Note: the {word} is {comment}."),
        (_, false) => format!("{indent}See the {word} section for details."),
    }
}

/// Leading whitespace of the first non-blank line at or after `at` (or before).
fn indentation_near(lines: &[String], at: usize) -> String {
    let after = lines[at.min(lines.len())..].iter();
    let before = lines[..at.min(lines.len())].iter().rev();
    after
        .chain(before)
        .find(|l| !l.trim().is_empty())
        .map(|l| l[..l.len() - l.trim_start().len()].to_string())
        .unwrap_or_default()
}

/// Hunks for `edits` with `context` lines around each, merged where they touch.
pub fn hunks_from_edits(lines: &[String], edits: &[Edit], context: usize) -> Vec<Hunk> {
    let mut ranges: Vec<(usize, usize, Vec<&Edit>)> = Vec::new();
    for e in edits {
        let lo = e.at.saturating_sub(context);
        let hi = (e.at + e.remove + context).min(lines.len());
        match ranges.last_mut() {
            Some(last) if lo <= last.1 => {
                last.1 = hi;
                last.2.push(e);
            }
            _ => ranges.push((lo, hi, vec![e])),
        }
    }
    ranges
        .into_iter()
        .map(|(lo, hi, es)| {
            let mut body = Vec::new();
            let (mut i, mut k) = (lo, 0);
            while i < hi {
                if let Some(e) = es.get(k).filter(|e| e.at == i) {
                    for l in &lines[i..i + e.remove] {
                        body.push(BodyLine {
                            kind: Kind::Remove,
                            text: l.clone(),
                        });
                    }
                    for l in &e.insert {
                        body.push(BodyLine {
                            kind: Kind::Add,
                            text: l.clone(),
                        });
                    }
                    i += e.remove;
                    k += 1;
                } else {
                    body.push(BodyLine {
                        kind: Kind::Context,
                        text: lines[i].clone(),
                    });
                    i += 1;
                }
            }
            Hunk {
                old_start: lo,
                body,
            }
        })
        .collect()
}

/// Applies `hunks` (sorted, non-overlapping) to `lines`; `None` when a hunk's
/// old lines are not at its `old_start`.
pub fn apply_hunks(lines: &[String], hunks: &[Hunk]) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut pos = 0;
    for h in hunks {
        let old = h.old_lines();
        if h.old_start < pos || h.old_start + old.len() > lines.len() {
            return None;
        }
        out.extend_from_slice(&lines[pos..h.old_start]);
        if lines[h.old_start..h.old_start + old.len()] != old[..] {
            return None;
        }
        out.extend(h.new_lines().into_iter().map(str::to_string));
        pos = h.old_start + old.len();
    }
    out.extend_from_slice(&lines[pos..]);
    Some(out)
}

/// The text of `lines`, each ending in `\n`.
pub fn join(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}
