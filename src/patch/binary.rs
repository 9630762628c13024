//! `GIT binary patch` sections (`git diff --binary`, `git format-patch`):
//! a forward hunk, then an optional reverse hunk, each `literal <size>` or
//! `delta <size>` followed by base85 lines and a blank line. Each line's
//! first character is its byte count (`A`-`Z` 1-26, `a`-`z` 27-52), then
//! groups of five base85 characters for four bytes; the bytes are a zlib
//! stream that inflates to exactly `<size>` bytes. Everything is checked:
//! a malformed section is an error naming its patch line, never a panic.

use super::cleanup::Src;
use super::malformed;
use crate::error::ParseError;
use crate::model::{BinaryHunk, BinaryKind, BinaryPatch};
use thiserror::Error;

/// git's base85 alphabet (`base85.c`).
pub(crate) const ALPHABET: &[u8; 85] =
    b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";

/// The most bytes deflate can make of one input byte (zlib's bound is
/// about 1032:1); a declared size above it cannot be the data's.
const MAX_RATIO: usize = 1032;

/// Why one base85 line could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum Base85Error {
    /// The first character is not a length (`A`-`Z`, `a`-`z`).
    #[error("the line's first character `{0}` is not a byte count (A-Z, a-z)")]
    Length(char),
    /// The characters after the length are not the groups it needs.
    #[error(
        "the line holds {chars} base85 characters after its byte count; {bytes} bytes need {needed}"
    )]
    Size {
        /// Characters after the length character.
        chars: usize,
        /// Bytes the length character declares.
        bytes: usize,
        /// Characters those bytes take (five per four bytes).
        needed: usize,
    },
    /// A character outside git's base85 alphabet.
    #[error("character {column} (`{ch}`) is not a base85 digit")]
    Character {
        /// 1-based column in the line.
        column: usize,
        /// The character.
        ch: char,
    },
    /// A group of five digits above 2^32 - 1.
    #[error("the base85 group at character {column} is larger than four bytes")]
    Overflow {
        /// 1-based column of the group's first character.
        column: usize,
    },
}

/// The value of one base85 digit.
fn digit(c: u8) -> Option<u32> {
    ALPHABET.iter().position(|&a| a == c).map(|v| v as u32)
}

/// Decodes one data line of a binary hunk (without its line end).
pub(crate) fn decode_line(line: &str) -> Result<Vec<u8>, Base85Error> {
    let bytes = line.as_bytes();
    let first = *bytes.first().ok_or(Base85Error::Length(' '))?;
    let count = match first {
        b'A'..=b'Z' => usize::from(first - b'A') + 1,
        b'a'..=b'z' => usize::from(first - b'a') + 27,
        _ => return Err(Base85Error::Length(line.chars().next().unwrap_or(' '))),
    };
    let body = &bytes[1..];
    let needed = count.div_ceil(4) * 5;
    if body.len() != needed {
        return Err(Base85Error::Size {
            chars: body.len(),
            bytes: count,
            needed,
        });
    }
    let mut out = Vec::with_capacity(needed / 5 * 4);
    for (g, group) in body.chunks(5).enumerate() {
        let mut acc: u32 = 0;
        for (k, &c) in group.iter().enumerate() {
            let column = 2 + g * 5 + k;
            let v = digit(c).ok_or(Base85Error::Character {
                column,
                ch: char::from(c),
            })?;
            acc = acc
                .checked_mul(85)
                .and_then(|a| a.checked_add(v))
                .ok_or(Base85Error::Overflow { column: 2 + g * 5 })?;
        }
        out.extend_from_slice(&acc.to_be_bytes());
    }
    out.truncate(count);
    Ok(out)
}

/// Why deflated data could not be inflated to its declared size.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum InflateError {
    /// The declared size is more than the data could inflate to.
    #[error("it declares {declared} bytes, more than {deflated} deflated bytes can hold")]
    TooLarge {
        /// The size in the `literal`/`delta` line.
        declared: usize,
        /// The deflated bytes the lines hold.
        deflated: usize,
    },
    /// Not a zlib stream.
    #[error("its data is not a valid zlib stream")]
    Corrupt,
    /// The stream inflates to another size (or is cut short).
    #[error("its data inflates to {got} bytes, not the {declared} it declares")]
    Size {
        /// The size in the `literal`/`delta` line.
        declared: usize,
        /// What the data gave (one more than declared: at least that).
        got: usize,
    },
}

/// Inflates a zlib stream that must make exactly `size` bytes.
pub(crate) fn inflate(deflated: &[u8], size: usize) -> Result<Vec<u8>, InflateError> {
    if size > deflated.len().saturating_mul(MAX_RATIO).saturating_add(64) {
        return Err(InflateError::TooLarge {
            declared: size,
            deflated: deflated.len(),
        });
    }
    // One byte more than declared: a stream that goes on is seen.
    let mut out = vec![0u8; size + 1];
    let mut z = gix::zlib::Decompress::new();
    let status = z
        .decompress(deflated, &mut out, gix::zlib::FlushDecompress::Finish)
        .map_err(|_| InflateError::Corrupt)?;
    let got = usize::try_from(z.total_out()).unwrap_or(usize::MAX);
    if status != gix::zlib::Status::StreamEnd || got != size {
        return Err(InflateError::Size {
            declared: size,
            got,
        });
    }
    out.truncate(size);
    Ok(out)
}

/// Reads a `GIT binary patch` section whose header line is `i` (`path`
/// names the file in messages); returns it and the line after it.
pub(crate) fn parse_section(
    src: &Src,
    i: usize,
    path: &str,
) -> Result<(BinaryPatch, usize), ParseError> {
    let (forward, j) = parse_hunk(src, i + 1, path, "forward")?
        .ok_or_else(|| malformed(src.orig(i), format!("{path}: `GIT binary patch` is not followed by a `literal <size>` or `delta <size>` line")))?;
    let (reverse, j) = match parse_hunk(src, j, path, "reverse")? {
        Some((hunk, next)) => (Some(hunk), next),
        None => (None, j),
    };
    let patch = BinaryPatch {
        forward,
        reverse,
        patch_line: src.orig(i),
    };
    Ok((patch, j))
}

/// Reads one binary hunk at line `j` (`which`: forward or reverse, for
/// messages): `None` when no `literal`/`delta` line stands there.
fn parse_hunk(
    src: &Src,
    j: usize,
    path: &str,
    which: &str,
) -> Result<Option<(BinaryHunk, usize)>, ParseError> {
    let Some(head) = src.line(j) else {
        return Ok(None);
    };
    let (kind, size) = if let Some(s) = head.strip_prefix("literal ") {
        (BinaryKind::Literal, s)
    } else if let Some(s) = head.strip_prefix("delta ") {
        (BinaryKind::Delta, s)
    } else {
        return Ok(None);
    };
    let at = src.orig(j);
    let size: usize = size.trim().parse().map_err(|_| {
        malformed(
            at,
            format!(
                "{path}: the {which} binary hunk's size `{}` is not a number",
                size.trim()
            ),
        )
    })?;
    let mut deflated = Vec::new();
    let mut k = j + 1;
    while let Some(line) = src.line(k).filter(|l| !l.is_empty()) {
        let bytes = decode_line(line).map_err(|e| {
            malformed(
                src.orig(k),
                format!("{path}: the {which} binary hunk (patch line {at}) cannot be decoded: {e}"),
            )
        })?;
        deflated.extend_from_slice(&bytes);
        k += 1;
    }
    if deflated.is_empty() {
        return Err(malformed(
            at,
            format!(
                "{path}: the {which} binary hunk holds no data lines (the patch was cut short?)"
            ),
        ));
    }
    let data = inflate(&deflated, size).map_err(|e| {
        malformed(
            at,
            format!("{path}: the {which} binary hunk is corrupt: {e}"),
        )
    })?;
    // The blank line that ends the hunk (the end of the patch does too).
    let next = if src.line(k).is_some() { k + 1 } else { k };
    let hunk = BinaryHunk {
        kind,
        data,
        patch_line: at,
    };
    Ok(Some((hunk, next)))
}

#[cfg(test)]
mod tests;
