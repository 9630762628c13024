//! Levenshtein distance of two short lines, a column of the table at a time
//! in the bits of one word (Myers 1999, in Hyyrö's formulation for the edit
//! distance of whole strings, 2003).
//!
//! The similarity tier and the closest block of a failure compare every
//! line of a hunk with the file's lines of a whole range: tens of
//! thousands of pairs, each a table of 1,000 to 5,000 cells when computed
//! cell by cell. With the shorter line's characters as the bits of a word,
//! each character of the other line costs a dozen word operations. The
//! distance is the same (`tests` checks it against `strsim::levenshtein`).

/// Characters of the shorter line that fit in one word.
pub(super) const WORD: usize = 64;

/// The Levenshtein distance (in characters) of `short` and `long`, where
/// `short` has 1 to [`WORD`] characters; `None` when it has more or none.
pub(super) fn levenshtein_by_words(short: &str, long: &str) -> Option<usize> {
    let m = short.chars().count();
    if m == 0 || m > WORD {
        return None;
    }
    // For each character, the positions of `short` that hold it.
    let mut ascii = [0u64; 128];
    let mut other: Vec<(char, u64)> = Vec::new();
    for (i, c) in short.chars().enumerate() {
        let bit = 1u64 << i;
        match usize::try_from(u32::from(c)).ok().filter(|&c| c < 128) {
            Some(c) => ascii[c] |= bit,
            None => match other.iter_mut().find(|(o, _)| *o == c) {
                Some((_, bits)) => *bits |= bit,
                None => other.push((c, bit)),
            },
        }
    }
    let equal = |c: char| match usize::try_from(u32::from(c)).ok().filter(|&c| c < 128) {
        Some(c) => ascii[c],
        None => other.iter().find(|(o, _)| *o == c).map_or(0, |(_, b)| *b),
    };
    let last = 1u64 << (m - 1);
    // Vertical differences of the current column: +1 (`plus`), -1 (`minus`).
    let mut plus = if m == WORD { u64::MAX } else { (1u64 << m) - 1 };
    let mut minus = 0u64;
    let mut score = m;
    for c in long.chars() {
        let eq = equal(c);
        let xv = eq | minus;
        let xh = ((eq & plus).wrapping_add(plus) ^ plus) | eq;
        let mut ph = minus | !(xh | plus);
        let mut mh = plus & xh;
        if ph & last != 0 {
            score += 1;
        } else if mh & last != 0 {
            score -= 1;
        }
        // The first row grows by one a column: a horizontal +1 enters.
        ph = (ph << 1) | 1;
        mh <<= 1;
        plus = mh | !(xv | ph);
        minus = ph & xv;
    }
    Some(score)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn known_distances() {
        for (a, b, d) in [
            ("kitten", "sitting", 3),
            ("a", "", 1),
            ("abc", "abc", 0),
            ("flaw", "lawn", 2),
            ("é‘quote’", "e'quote'", 3),
        ] {
            assert_eq!(levenshtein_by_words(a, b), Some(d), "{a} / {b}");
        }
        assert_eq!(levenshtein_by_words("", "abc"), None);
        assert_eq!(levenshtein_by_words(&"x".repeat(WORD + 1), "x"), None);
        let full = "y".repeat(WORD);
        assert_eq!(levenshtein_by_words(&full, &"y".repeat(70)), Some(6));
        assert_eq!(levenshtein_by_words(&full, ""), Some(WORD));
    }

    /// Lines from a small alphabet (so that many characters repeat), with
    /// letters beyond ASCII.
    fn line(max: usize) -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop::sample::select(vec!['a', 'b', ' ', '(', 'é', 'ß', '’']),
            0..max,
        )
        .prop_map(|c| c.into_iter().collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        #[test]
        fn is_levenshtein(a in line(WORD + 2), b in line(90)) {
            let expected = strsim::levenshtein(&a, &b);
            match levenshtein_by_words(&a, &b) {
                Some(d) => prop_assert_eq!(d, expected),
                None => prop_assert!(a.is_empty() || a.chars().count() > WORD),
            }
        }
    }
}
