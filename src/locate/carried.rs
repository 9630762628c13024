//! Rule 5 for removed lines read with case or punctuation forgiven: the
//! lines a hunk writes must not carry the patch's difference from the file
//! (a `,` or `;` dropped or added, a backtick Markdown ate, a word recased)
//! into it.

use super::normalize::LineMatch;
use super::proposal::Proposal;
use super::search::{Candidate, Slot};
use super::{Tier, ambiguous};
use crate::locate::Failure;
use crate::model::LineKind;

/// A removed line found only with its case or punctuation forgiven (the
/// fuzzy tier and beyond), in a hunk that writes lines, where the lines
/// written carry the patch's difference from the file: the `,` between two
/// JSON members or a `;` the file has and the patch's lines lack, one they
/// add that the file lacks, a backtick Markdown ate, or a word in the case
/// the patch gave it. Written as the patch has them, they would break the
/// file's code silently (rule 5: removed lines are the narrowest). A
/// difference the added lines do not repeat (a SEARCH line quoted in
/// another case, a REPLACE written as the file has it) is the patch's own
/// noise and stays forgiven.
pub(super) fn replaced_lines_read_exactly(p: &Proposal, cand: &Candidate) -> Result<(), Failure> {
    let added: Vec<&str> = p
        .hunk
        .lines
        .iter()
        .filter(|l| l.kind == LineKind::Add)
        .map(|l| l.text.as_str())
        .collect();
    if p.tier < Tier::Fuzzy || added.is_empty() {
        return Ok(());
    }
    let carried = p
        .old
        .iter()
        .zip(&cand.slots)
        .find_map(|(line, slot)| match slot {
            Slot::Line(j, LineMatch::Normalized) if line.kind == LineKind::Remove => {
                let file = p.keys.text(*j);
                carried_difference(&file, line.text, &added)
                    .map(|what| (*j, file.trim().to_string(), line.text, what))
            }
            _ => None,
        });
    let Some((j, file, text, what)) = carried else {
        return Ok(());
    };
    let why = format!(
        "the line to remove `{}` stands at line {} only as `{file}`, and the lines the hunk writes carry the difference ({what}): keep the file's code or write the patch's? Quote the line as the file has it",
        text.trim(),
        j + 1
    );
    // Found, and two readings of what to write: `ambiguous`, never "not
    // found" (which would let another reading, blocks in order, take over).
    Err(ambiguous(p.index, &[cand.start], None, Some(why)))
}

/// What of the difference between the file's line `file` and the patch's
/// removed line `patch` the added lines `added` would write into the file.
fn carried_difference(file: &str, patch: &str, added: &[&str]) -> Option<String> {
    let count = |s: &str, c: char| s.chars().filter(|&x| x == c).count();
    for c in [',', ';', ':', '`'] {
        let (in_file, in_patch) = (count(file, c), count(patch, c));
        // The line written keeps the text around the character the patch
        // lacks, without it (or around the one it adds, with it).
        if in_file > in_patch && kept_around(file, c, added, false) {
            return Some(format!("`{c}` dropped"));
        }
        if in_patch > in_file && kept_around(patch, c, added, true) {
            return Some(format!("`{c}` added"));
        }
    }
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_alphanumeric() && c != '_')
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    let file_words = words(file);
    let recased = words(patch).into_iter().find(|w| {
        !file_words.contains(w)
            && file_words
                .iter()
                .any(|f| f.to_lowercase() == w.to_lowercase())
            && added.iter().any(|a| words(a).contains(w))
    });
    if let Some(w) = recased {
        return Some(format!("`{w}` in another case"));
    }
    patch
        .chars()
        .find(|c| !c.is_ascii() && !file.contains(*c) && added.iter().any(|a| a.contains(*c)))
        .filter(|c| !c.is_alphanumeric())
        .map(|c| format!("`{c}` for the file's character"))
}

/// True when an added line holds the text around an occurrence of `c` in
/// `line` (up to three characters on each side, the line's end counting as
/// text), with `c` between (`with`) or without it: the written line
/// carries that character's presence or absence at the same spot.
fn kept_around(line: &str, c: char, added: &[&str], with: bool) -> bool {
    let chars: Vec<char> = line.trim_end().chars().collect();
    // At the end of the line (a JSON member's `,`, a statement's `;`): the
    // written line that starts as this one does ends with it, or without.
    let start: String = line.trim().chars().take(3).collect();
    if chars.last() == Some(&c)
        && added.iter().any(|a| {
            let a = a.trim();
            a.starts_with(&start) && a.ends_with(c) == with
        })
    {
        return true;
    }
    chars
        .iter()
        .enumerate()
        .filter(|(_, x)| **x == c)
        .any(|(k, _)| {
            let left: String = chars[k.saturating_sub(3)..k].iter().collect();
            let right: String = chars[k + 1..(k + 4).min(chars.len())].iter().collect();
            if left.trim().is_empty() {
                return false;
            }
            let needle = if with {
                format!("{left}{c}{right}")
            } else {
                format!("{left}{right}")
            };
            added.iter().any(|a| {
                let a = a.trim_end();
                if right.is_empty() {
                    a.ends_with(&needle)
                } else {
                    a.contains(&needle)
                }
            })
        })
}
