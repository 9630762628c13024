//! The data of a `GIT binary patch` section (`git diff --binary`,
//! `git format-patch`): a forward hunk and, usually, a reverse hunk, each
//! the whole new content (`literal`) or git's delta against the other side
//! (`delta`), already decoded from base85 and inflated.

/// How a binary hunk's data makes its side of the file.
///
/// ```
/// use git_fuzzy_apply::model::BinaryKind;
/// use git_fuzzy_apply::{parse_patch, ParseOptions};
///
/// // `printf 'h\0i' > x && git add x && git diff --cached --binary`
/// let text = b"diff --git a/x b/x\nnew file mode 100644\nindex 0000000000000000000000000000000000000000..6661c15c0c94a388083c28e99447c44f1ac8638c\nGIT binary patch\nliteral 3\nKcmc~`$OHfZqyW+Y\n\nliteral 0\nHcmV?d00001\n\n";
/// let patch = parse_patch(text, &ParseOptions::default()).unwrap();
/// let binary = patch.files[0].binary.as_ref().unwrap();
/// assert_eq!(binary.forward.kind, BinaryKind::Literal);
/// assert_eq!(binary.forward.data, b"h\0i");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryKind {
    /// `literal <size>`: the data is the side's whole content.
    Literal,
    /// `delta <size>`: the data is git's delta format (source size, target
    /// size, copy and insert operations) against the other side.
    Delta,
}

/// One hunk of a binary patch: its kind and its inflated data.
///
/// ```
/// use git_fuzzy_apply::{parse_patch, ParseOptions};
///
/// let text = b"diff --git a/x b/x\nnew file mode 100644\nindex 0000000000000000000000000000000000000000..6661c15c0c94a388083c28e99447c44f1ac8638c\nGIT binary patch\nliteral 3\nKcmc~`$OHfZqyW+Y\n\nliteral 0\nHcmV?d00001\n\n";
/// let patch = parse_patch(text, &ParseOptions::default()).unwrap();
/// let binary = patch.files[0].binary.as_ref().unwrap();
/// assert_eq!((binary.forward.patch_line, binary.forward.data.len()), (5, 3));
/// assert!(binary.reverse.as_ref().is_some_and(|r| r.data.is_empty()));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinaryHunk {
    /// Literal content or delta.
    pub kind: BinaryKind,
    /// The inflated data, exactly as many bytes as the header declares.
    pub data: Vec<u8>,
    /// 1-based patch line of its `literal`/`delta` line.
    pub patch_line: usize,
}

/// A `GIT binary patch` section: the forward hunk (old side to new side)
/// and the reverse hunk (new side to old), which `-R` uses. Binary content
/// is only ever matched exactly: the file must be the old side (checked
/// against the `index` line's full blob ids, or by the reverse hunk).
///
/// ```
/// use git_fuzzy_apply::{parse_patch, ParseOptions};
///
/// let text = b"diff --git a/x b/x\nnew file mode 100644\nindex 0000000000000000000000000000000000000000..6661c15c0c94a388083c28e99447c44f1ac8638c\nGIT binary patch\nliteral 3\nKcmc~`$OHfZqyW+Y\n\nliteral 0\nHcmV?d00001\n\n";
/// let patch = parse_patch(text, &ParseOptions::default()).unwrap();
/// let file = &patch.files[0];
/// assert!(file.hunks.is_empty());
/// assert_eq!(file.binary.as_ref().unwrap().patch_line, 4);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinaryPatch {
    /// Makes the new side from the old.
    pub forward: BinaryHunk,
    /// Makes the old side from the new (`None` when the patch has none).
    pub reverse: Option<BinaryHunk>,
    /// 1-based patch line of `GIT binary patch`.
    pub patch_line: usize,
}
