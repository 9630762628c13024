//! A `\ No newline at end of file` marker written after a context line
//! that only added lines follow says the old side ends there, without a
//! newline (`docs/formats.md`). Read so, `-R` gives back the ending the
//! forward run changed, but only where the claim is true: placed at the
//! end of a file that has a final newline, the marker contradicts the
//! file, and `-R` of the result would drop a newline the file had. `git
//! apply` refuses a marker that contradicts the file; so does this.

use super::{Failure, HunkStatus, Located, Reason, failure};
use crate::model::Hunk;
use crate::source::SourceText;

/// Refuses each hunk placed to apply at the end of the file whose old
/// side's missing newline was read from a marker after a context line,
/// when the file ends with a newline.
pub(super) fn refuse_against_file(
    source: &SourceText,
    hunks: &[Hunk],
    results: &mut [Result<Located, Failure>],
) {
    let n = source.len();
    if n == 0 || !source.has_final_newline() {
        return;
    }
    for result in results.iter_mut() {
        let Ok(loc) = &*result else { continue };
        let Some(hunk) = hunks.get(loc.hunk) else {
            continue;
        };
        if hunk.old_missing_on_context && loc.status == HunkStatus::Applied && loc.end == n {
            let line = hunk.old_lines().last().map_or("", |l| &*l.text);
            *result = Err(failure(
                loc.hunk,
                Reason::ContextNotFound,
                format!(
                    "`\\ No newline at end of file` after the context line `{line}` says the file ends there without a newline, but it ends with one: drop the marker (the file keeps its ending)"
                ),
            ));
        }
    }
}
