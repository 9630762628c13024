//! git's delta format (`patch-delta.c`), as a `delta <size>` binary hunk
//! holds it: the source's size and the target's size (little-endian
//! base-128 varints), then operations: a byte with its high bit set copies
//! from the source (bits 0-3 say which offset bytes follow, bits 4-6 which
//! size bytes; a size of 0 means 0x10000), any other byte but 0 inserts
//! that many bytes that follow it. Every size and range is checked.

use crate::model::{BinaryHunk, BinaryKind};
use thiserror::Error;

/// Why a delta could not be applied to a source.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum DeltaError {
    /// The data ends inside a size, an operation or inserted bytes.
    #[error("the delta is cut short at byte {at}")]
    Truncated {
        /// Offset in the delta data.
        at: usize,
    },
    /// The delta was made from a source of another size.
    #[error("the delta applies to {expected} bytes, the file has {actual}")]
    SourceSize {
        /// The delta's source size.
        expected: u64,
        /// The source's size.
        actual: usize,
    },
    /// A copy reaches past the source's end.
    #[error("a copy at byte {at} takes bytes {offset}..{end} of a {source_len}-byte source")]
    CopyOutOfRange {
        /// Offset of the operation in the delta data.
        at: usize,
        /// First byte copied.
        offset: u64,
        /// One past the last byte copied.
        end: u64,
        /// The source's size.
        source_len: usize,
    },
    /// The operations make more bytes than the target size.
    #[error("the operation at byte {at} makes more than the {target} bytes the delta declares")]
    Overrun {
        /// Offset of the operation in the delta data.
        at: usize,
        /// The declared target size.
        target: u64,
    },
    /// Operation byte 0, which git reserves.
    #[error("byte {at} is the reserved operation 0")]
    Reserved {
        /// Offset of the operation in the delta data.
        at: usize,
    },
    /// The operations end before the declared target size.
    #[error("the delta makes {actual} bytes, not the {expected} it declares")]
    TargetSize {
        /// The declared target size.
        expected: u64,
        /// What the operations made.
        actual: usize,
    },
}

/// Reads a base-128 varint at `*at`, moving past it.
fn varint(data: &[u8], at: &mut usize) -> Result<u64, DeltaError> {
    let mut value: u64 = 0;
    let mut shift = 0u32;
    loop {
        let byte = *data.get(*at).ok_or(DeltaError::Truncated { at: *at })?;
        *at += 1;
        if shift < 64 {
            value |= u64::from(byte & 0x7f) << shift;
        }
        shift += 7;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
        if shift > 70 {
            return Err(DeltaError::Truncated { at: *at });
        }
    }
}

/// The offset and size of a copy operation `cmd` whose argument bytes
/// start at `*at`, moving past them.
fn copy_args(data: &[u8], cmd: u8, at: &mut usize) -> Result<(u64, u64), DeltaError> {
    let mut read = |bits: std::ops::Range<u32>, base: u32| -> Result<u64, DeltaError> {
        let mut v: u64 = 0;
        for bit in bits {
            if cmd & (1 << bit) != 0 {
                let byte = *data.get(*at).ok_or(DeltaError::Truncated { at: *at })?;
                *at += 1;
                v |= u64::from(byte) << (8 * (bit - base));
            }
        }
        Ok(v)
    };
    let offset = read(0..4, 0)?;
    let size = read(4..7, 4)?;
    Ok((offset, if size == 0 { 0x10000 } else { size }))
}

/// Applies the delta `data` to `source`.
pub(crate) fn apply_delta(source: &[u8], data: &[u8]) -> Result<Vec<u8>, DeltaError> {
    let mut at = 0;
    let expected = varint(data, &mut at)?;
    if expected != source.len() as u64 {
        return Err(DeltaError::SourceSize {
            expected,
            actual: source.len(),
        });
    }
    let target = varint(data, &mut at)?;
    // Never trust the declared size with the allocation.
    let mut out = Vec::with_capacity(usize::try_from(target.min(1 << 26)).unwrap_or(0));
    while let Some(&cmd) = data.get(at) {
        let op = at;
        at += 1;
        let piece: &[u8] = if cmd & 0x80 != 0 {
            let (offset, size) = copy_args(data, cmd, &mut at)?;
            let end = offset + size;
            let range = usize::try_from(offset)
                .ok()
                .zip(usize::try_from(end).ok())
                .filter(|&(_, e)| e <= source.len());
            let Some((s, e)) = range else {
                return Err(DeltaError::CopyOutOfRange {
                    at: op,
                    offset,
                    end,
                    source_len: source.len(),
                });
            };
            &source[s..e]
        } else if cmd != 0 {
            let n = usize::from(cmd);
            let piece = data
                .get(at..at + n)
                .ok_or(DeltaError::Truncated { at: data.len() })?;
            at += n;
            piece
        } else {
            return Err(DeltaError::Reserved { at: op });
        };
        if (out.len() + piece.len()) as u64 > target {
            return Err(DeltaError::Overrun { at: op, target });
        }
        out.extend_from_slice(piece);
    }
    if out.len() as u64 != target {
        return Err(DeltaError::TargetSize {
            expected: target,
            actual: out.len(),
        });
    }
    Ok(out)
}

/// The side a binary hunk makes from `base` (the other side): a literal's
/// data as it is, a delta applied to `base`.
pub(crate) fn apply_hunk(hunk: &BinaryHunk, base: &[u8]) -> Result<Vec<u8>, DeltaError> {
    match hunk.kind {
        BinaryKind::Literal => Ok(hunk.data.clone()),
        BinaryKind::Delta => apply_delta(base, &hunk.data),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A delta: sizes, then the raw operations.
    fn delta(source: usize, target: usize, ops: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for mut n in [source, target] {
            loop {
                let b = (n & 0x7f) as u8;
                n >>= 7;
                out.push(if n > 0 { b | 0x80 } else { b });
                if n == 0 {
                    break;
                }
            }
        }
        out.extend_from_slice(ops);
        out
    }

    #[test]
    fn copies_and_inserts() {
        let src = b"hello world";
        // copy 0..5, insert ", ", copy 6..11
        let d = delta(11, 12, &[0x90, 5, 2, b',', b' ', 0x91, 6, 5]);
        assert_eq!(apply_delta(src, &d).unwrap(), b"hello, world");
    }

    #[test]
    fn copy_size_zero_means_64_kib() {
        let src = vec![7u8; 0x10000];
        let d = delta(0x10000, 0x10000, &[0x80]);
        assert_eq!(apply_delta(&src, &d).unwrap(), src);
    }

    #[test]
    fn malformed_deltas_are_typed_errors() {
        let src = b"abc";
        assert!(matches!(
            apply_delta(src, &delta(4, 1, &[1, b'x'])),
            Err(DeltaError::SourceSize {
                expected: 4,
                actual: 3
            })
        ));
        assert!(matches!(
            apply_delta(src, &delta(3, 4, &[0x91, 1, 4])),
            Err(DeltaError::CopyOutOfRange {
                offset: 1,
                end: 5,
                ..
            })
        ));
        // offset near u64::MAX: no overflow, out of range.
        let far = delta(3, 1, &[0x9f, 0xff, 0xff, 0xff, 0xff, 1]);
        assert!(matches!(
            apply_delta(src, &far),
            Err(DeltaError::CopyOutOfRange { .. })
        ));
        assert!(matches!(
            apply_delta(src, &delta(3, 1, &[0])),
            Err(DeltaError::Reserved { .. })
        ));
        assert!(matches!(
            apply_delta(src, &delta(3, 5, &[5, b'x'])),
            Err(DeltaError::Truncated { .. })
        ));
        assert!(matches!(
            apply_delta(src, &delta(3, 1, &[2, b'x', b'y'])),
            Err(DeltaError::Overrun { .. })
        ));
        assert!(matches!(
            apply_delta(src, &delta(3, 9, &[1, b'x'])),
            Err(DeltaError::TargetSize {
                expected: 9,
                actual: 1
            })
        ));
        assert!(matches!(
            apply_delta(src, &[0x83]),
            Err(DeltaError::Truncated { .. })
        ));
        assert!(matches!(
            apply_delta(src, &[0xff; 20]),
            Err(DeltaError::Truncated { .. })
        ));
        // A copy whose argument bytes are missing.
        assert!(matches!(
            apply_delta(src, &delta(3, 1, &[0x91, 0])),
            Err(DeltaError::Truncated { .. })
        ));
    }

    #[test]
    fn random_deltas_never_panic() {
        let src: Vec<u8> = (0..300u32).map(|i| (i * 31 % 251) as u8).collect();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            let len = (seed % 24) as usize;
            let mut d = delta(src.len(), (seed % 400) as usize, &[]);
            for _ in 0..len {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                d.push(seed as u8);
            }
            let _ = apply_delta(&src, &d);
        }
    }
}
