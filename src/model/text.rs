//! [`LineText`]: the text of a hunk line, a range of a buffer shared by
//! the lines of a hunk (or by the whole patch text).

use super::HunkLine;
use serde::Serialize;

/// The text of one hunk line: a range of a buffer the lines of a hunk
/// share, so that a large patch costs one allocation per hunk rather than
/// one per line. It reads as a `&str` (`Deref`), compares with strings and
/// serializes as one.
///
/// ```
/// use git_fuzzy_apply::model::LineText;
///
/// let text = LineText::from("let x = 1;");
/// assert_eq!(text, "let x = 1;");
/// assert!(text.starts_with("let")); // any `str` method
/// assert_eq!(serde_json::to_string(&text).unwrap(), r#""let x = 1;""#);
/// ```
#[derive(Clone, Default)]
pub struct LineText {
    buffer: std::sync::Arc<String>,
    start: u32,
    /// One past the last byte; [`WHOLE`] for "to the end of the buffer"
    /// (a line that owns its buffer may be longer than 4 GiB).
    end: u32,
}

/// `LineText::end` of a text that is its whole buffer.
const WHOLE: u32 = u32::MAX;

/// `offset` as a range bound, when it is one ([`WHOLE`] is reserved).
fn bound(offset: usize) -> Option<u32> {
    u32::try_from(offset).ok().filter(|&b| b != WHOLE)
}

impl LineText {
    /// The text as a string slice.
    ///
    /// ```
    /// use git_fuzzy_apply::model::LineText;
    ///
    /// assert_eq!(LineText::from(String::from("x")).as_str(), "x");
    /// ```
    pub fn as_str(&self) -> &str {
        let end = match self.end {
            WHOLE => self.buffer.len(),
            end => end as usize,
        };
        self.buffer
            .get(self.start as usize..end)
            .unwrap_or_default()
    }

    /// The texts of several lines in one buffer: `ranges` are byte ranges of
    /// `buffer` on character boundaries. A range beyond 4 GiB gets a buffer
    /// of its own; a range that is not on character boundaries or not inside
    /// the buffer gives an empty text (callers pass only ranges they made).
    pub(crate) fn shared(
        buffer: String,
        ranges: impl IntoIterator<Item = std::ops::Range<usize>>,
    ) -> Vec<LineText> {
        let buffer = std::sync::Arc::new(buffer);
        ranges
            .into_iter()
            .map(|r| match (bound(r.start), bound(r.end)) {
                (Some(start), Some(end)) if buffer.get(r.clone()).is_some() => LineText {
                    buffer: buffer.clone(),
                    start,
                    end,
                },
                _ => LineText::from(buffer.get(r).unwrap_or_default()),
            })
            .collect()
    }
}

impl LineText {
    /// Drops one carriage return ending the text (no copy when the text is
    /// a range of a larger buffer).
    pub(crate) fn trim_cr(&mut self) {
        if !self.as_str().ends_with('\r') {
            return;
        }
        if self.end == WHOLE {
            let text = self.as_str();
            *self = LineText::from(text.get(..text.len() - 1).unwrap_or_default());
        } else {
            self.end -= 1;
        }
    }

    /// `part` as a range of `owner` when it lies inside it (no copy), else
    /// `None`.
    pub(crate) fn within(owner: &std::sync::Arc<String>, part: &str) -> Option<LineText> {
        let base = owner.as_ptr() as usize;
        let start = (part.as_ptr() as usize).checked_sub(base)?;
        let end = start.checked_add(part.len())?;
        // In range and on character boundaries: `get` checks both.
        owner.get(start..end)?;
        Some(LineText {
            buffer: owner.clone(),
            start: bound(start)?,
            end: bound(end)?,
        })
    }
}

/// Moves the texts of `lines` that have a buffer of their own (made line by
/// line, as the Codex and SEARCH/REPLACE parsers do) into one buffer they
/// share: one allocation for the hunk instead of two per line. Texts that
/// already share a buffer (the patch text) are left as they are.
pub(crate) fn pack_lone_texts(lines: &mut [HunkLine]) {
    let lone = |t: &LineText| std::sync::Arc::strong_count(&t.buffer) == 1 && t.end == WHOLE;
    let size: usize = lines
        .iter()
        .filter(|l| lone(&l.text))
        .map(|l| l.text.len())
        .sum();
    let mut buffer = String::with_capacity(size);
    let mut ranges = Vec::new();
    for line in lines.iter().filter(|l| lone(&l.text)) {
        let start = buffer.len();
        buffer.push_str(&line.text);
        ranges.push(start..buffer.len());
    }
    let mut packed = LineText::shared(buffer, ranges).into_iter();
    for line in lines.iter_mut().filter(|l| lone(&l.text)) {
        if let Some(text) = packed.next() {
            line.text = text;
        }
    }
}

impl From<String> for LineText {
    fn from(text: String) -> Self {
        LineText {
            buffer: std::sync::Arc::new(text),
            start: 0,
            end: WHOLE,
        }
    }
}

impl From<&str> for LineText {
    fn from(text: &str) -> Self {
        LineText::from(text.to_string())
    }
}

impl From<&String> for LineText {
    fn from(text: &String) -> Self {
        LineText::from(text.clone())
    }
}

impl From<Box<str>> for LineText {
    fn from(text: Box<str>) -> Self {
        LineText::from(String::from(text))
    }
}

impl From<std::borrow::Cow<'_, str>> for LineText {
    fn from(text: std::borrow::Cow<'_, str>) -> Self {
        LineText::from(text.into_owned())
    }
}

impl std::ops::Deref for LineText {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for LineText {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for LineText {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for LineText {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for LineText {}

impl std::hash::Hash for LineText {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

impl PartialEq<str> for LineText {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for LineText {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for LineText {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl std::fmt::Debug for LineText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for LineText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for LineText {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::LineKind;
    use std::sync::Arc;

    #[test]
    fn a_trailing_cr_is_trimmed_without_a_copy_when_shared() {
        let owner = Arc::new("a\r\nb".to_string());
        let mut text = LineText::within(&owner, &owner[..2]).expect("inside");
        text.trim_cr();
        assert_eq!(text, "a");
        assert!(Arc::ptr_eq(&text.buffer, &owner));
        let mut own = LineText::from("x\r");
        own.trim_cr();
        assert_eq!(own, "x");
        own.trim_cr();
        assert_eq!(own, "x");
    }

    #[test]
    fn a_line_text_points_into_its_owner_only_where_it_lies_in_it() {
        let owner = Arc::new("ab\u{e9}cd\n".to_string());
        let part = &owner[1..5]; // "b\u{e9}c"
        let text = LineText::within(&owner, part).expect("inside");
        assert_eq!(text, "b\u{e9}c");
        assert!(Arc::ptr_eq(&text.buffer, &owner));
        // Elsewhere in memory: no range.
        let other = String::from("b\u{e9}c");
        assert!(LineText::within(&owner, &other).is_none());
        // Ranges that are not on character boundaries or not inside get a
        // buffer of their own, with the text they name (or none).
        let shared = LineText::shared("ab\u{e9}".to_string(), [0..1, 2..3, 1..9, 0..4]);
        let texts: Vec<&str> = shared.iter().map(LineText::as_str).collect();
        assert_eq!(texts, ["a", "", "", "ab\u{e9}"]);
    }

    #[test]
    fn lone_texts_are_packed_into_one_buffer_and_shared_ones_left() {
        let owner = Arc::new("shared line".to_string());
        let mut lines = vec![
            HunkLine::new(LineKind::Context, "one"),
            HunkLine {
                kind: LineKind::Remove,
                text: LineText::within(&owner, &owner[..6]).unwrap(),
            },
            HunkLine::new(LineKind::Add, String::from("two")),
        ];
        pack_lone_texts(&mut lines);
        let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["one", "shared", "two"]);
        assert!(Arc::ptr_eq(&lines[0].text.buffer, &lines[2].text.buffer));
        assert!(Arc::ptr_eq(&lines[1].text.buffer, &owner));
        assert_eq!(lines[0].text.buffer.as_str(), "onetwo");
    }
}
