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
        let old = r.old_path.as_deref().map(|path| Side {
            path,
            bytes: &r.old,
            mode: r.mode.unwrap_or(0o100644),
        });
        let new = r.new_path.as_deref().map(|path| Side {
            path,
            bytes: &new_bytes,
            mode: r.new_mode.or(r.mode).unwrap_or(0o100644),
        });
        match (old, new) {
            // A typechange (a file became a link or the other way round)
            // is a deletion and a creation of one path, as `git diff`
            // writes it: one section cannot change a path's type.
            (Some(old), Some(new)) if old.mode & 0o170000 != new.mode & 0o170000 => {
                section(&mut out, Some(old), None);
                section(&mut out, None, Some(new));
            }
            (old, new) => section(&mut out, old, new),
        }
    }
    out
}

/// One side of a file's diff: its path, content (a link's target) and mode.
#[derive(Clone, Copy)]
struct Side<'a> {
    path: &'a str,
    bytes: &'a [u8],
    mode: u32,
}

/// Appends the `diff --git` section that makes `new` from `old` (`None`:
/// the file is created, or deleted): the mode, rename and content lines.
fn section(out: &mut String, old: Option<Side>, new: Option<Side>) {
    let (Some(git_a), Some(git_b)) = (old.or(new).map(|s| s.path), new.or(old).map(|s| s.path))
    else {
        return;
    };
    out.push_str(&format!("diff --git a/{git_a} b/{git_b}\n"));
    match (old, new) {
        (None, Some(new)) => out.push_str(&format!("new file mode {:o}\n", new.mode)),
        (Some(old), None) => out.push_str(&format!("deleted file mode {:o}\n", old.mode)),
        (Some(old), Some(new)) => {
            if old.mode != new.mode {
                out.push_str(&format!(
                    "old mode {:o}\nnew mode {:o}\n",
                    old.mode, new.mode
                ));
            }
            if old.path != new.path {
                out.push_str(&format!("rename from {git_a}\nrename to {git_b}\n"));
            }
        }
        (None, None) => {}
    }
    let (old_bytes, new_bytes) = (
        old.map_or(&b""[..], |s| s.bytes),
        new.map_or(&b""[..], |s| s.bytes),
    );
    if old_bytes == new_bytes {
        // Moved, mode changed, or an empty file created or deleted: the
        // header says it all.
        return;
    }
    if looks_binary(old_bytes) || looks_binary(new_bytes) {
        // Binary content as `git diff --binary` writes it, never as text.
        out.push_str(&git_binary_section(
            old.map(|s| s.bytes),
            new.map(|s| s.bytes),
        ));
        return;
    }
    let a = old.map_or("/dev/null".to_string(), |s| format!("a/{}", s.path));
    let b = new.map_or("/dev/null".to_string(), |s| format!("b/{}", s.path));
    let (old_text, new_text) = (
        String::from_utf8_lossy(old_bytes),
        String::from_utf8_lossy(new_bytes),
    );
    let diff = TextDiff::from_lines(old_text.as_ref(), new_text.as_ref());
    let text = diff
        .unified_diff()
        .context_radius(3)
        .header(&a, &b)
        .to_string();
    out.push_str(&text);
}
