//! Completion to a standard unified diff: whatever notation the patch was
//! written in, the located result is printed as a `git apply`-able diff with
//! correct line numbers.
//!
//! ```
//! use git_fuzzy_apply::{plan_patch, report::unified::unified_diff};
//!
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
//! // A SEARCH/REPLACE block becomes a numbered diff.
//! let patch = b"a.txt\n<<<<<<< SEARCH\ntwo\n=======\n2\n>>>>>>> REPLACE\n";
//! let plan = plan_patch(patch, dir.path(), &Default::default()).unwrap();
//! assert!(unified_diff(plan.results()).contains("@@ -1,2 +1,2 @@\n one\n-two\n+2\n"));
//! ```

use crate::plan::FileResult;
use crate::plan::binary::git_binary_section;
use crate::source::looks_binary;
use similar::TextDiff;

/// Standard unified diff (3 lines of context) of every changed file.
///
/// ```
/// use git_fuzzy_apply::{plan_patch, report::unified::unified_diff};
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "a\nb\n").unwrap();
/// let plan = plan_patch(b"--- a/a.txt\n+++ b/a.txt\n@@\n-b\n+c\n", dir.path(), &Default::default())
///     .unwrap();
/// let diff = unified_diff(plan.results());
/// assert!(diff.starts_with("diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n"));
/// assert!(diff.ends_with("@@ -1,2 +1,2 @@\n a\n-b\n+c\n"));
/// ```
pub fn unified_diff<'a>(results: impl IntoIterator<Item = &'a FileResult>) -> String {
    let mut out = String::new();
    for r in results {
        if !r.changes_anything() {
            continue;
        }
        let new_bytes = r.new_bytes();
        let old = String::from_utf8_lossy(&r.old);
        let new = String::from_utf8_lossy(&new_bytes);
        let a = r
            .old_path
            .as_deref()
            .map_or("/dev/null".to_string(), |p| format!("a/{p}"));
        let b = r
            .new_path
            .as_deref()
            .map_or("/dev/null".to_string(), |p| format!("b/{p}"));
        let git_a = r
            .old_path
            .as_deref()
            .or(r.new_path.as_deref())
            .unwrap_or_default();
        let git_b = r
            .new_path
            .as_deref()
            .or(r.old_path.as_deref())
            .unwrap_or_default();
        out.push_str(&format!("diff --git a/{git_a} b/{git_b}\n"));
        if r.old_path.is_none() {
            out.push_str("new file mode 100644\n");
        } else if r.new_path.is_none() {
            out.push_str("deleted file mode 100644\n");
        } else if r.old_path != r.new_path {
            out.push_str(&format!("rename from {git_a}\nrename to {git_b}\n"));
        }
        if *r.old == *new_bytes {
            continue;
        }
        if looks_binary(&r.old) || looks_binary(&new_bytes) {
            // Binary content as `git diff --binary` writes it, never as text.
            let old = r.old_path.as_ref().map(|_| &r.old[..]);
            let new = r.new_path.as_ref().map(|_| &new_bytes[..]);
            out.push_str(&git_binary_section(old, new));
            continue;
        }
        let diff = TextDiff::from_lines(old.as_ref(), new.as_ref());
        let text = diff
            .unified_diff()
            .context_radius(3)
            .header(&a, &b)
            .to_string();
        out.push_str(&text);
    }
    out
}
