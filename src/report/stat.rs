//! `--stat`, `--numstat` and `--summary`, shaped like `git apply`'s.
//!
//! ```
//! use git_fuzzy_apply::{plan_patch, report::stat};
//!
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
//! let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n-one\n+1\n+2\n";
//! let report = plan_patch(patch, dir.path(), &Default::default()).unwrap().report();
//! assert_eq!(stat::numstat(&report), "2\t1\ta.txt\n");
//! ```

use super::{FileReport, FileStatus, HunkOutcome, Report};
use crate::model::FileOp;
use crate::plan::FileResult;
use std::fmt::Write as _;

/// `name` as git prints it in `--stat`, `--numstat` and `--summary`
/// (`quote_c_style`, `core.quotePath` on): in double quotes, with C
/// escapes and octal for bytes outside printable ASCII, when it holds any;
/// as it is otherwise.
fn quoted(name: &str) -> String {
    let plain = |b: u8| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\';
    if name.bytes().all(plain) {
        return name.to_string();
    }
    let mut out = String::from("\"");
    for b in name.bytes() {
        match b {
            7 => out.push_str("\\a"),
            8 => out.push_str("\\b"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            11 => out.push_str("\\v"),
            12 => out.push_str("\\f"),
            b'\r' => out.push_str("\\r"),
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b if plain(b) => out.push(char::from(b)),
            b => {
                let _ = write!(out, "\\{b:03o}");
            }
        }
    }
    out.push('"');
    out
}

/// The name a file is shown under: its new name (a moved file's
/// destination), as `git apply --stat` and `--numstat` show it.
fn shown_path(f: &FileReport) -> String {
    quoted(f.move_to.as_deref().unwrap_or(&f.path))
}

/// One line of a diffstat or numstat: a typechange (deleted and created
/// again) has two, as `git apply --stat` shows it.
enum Row {
    /// A refused file: it does not change, but it is not empty either.
    Refused(String),
    /// Binary data: no lines to count.
    Binary(String),
    /// Lines added and removed.
    Lines(String, usize, usize),
}

impl Row {
    fn name(&self) -> &str {
        match self {
            Row::Refused(p) | Row::Binary(p) | Row::Lines(p, ..) => p,
        }
    }

    fn lines(&self) -> usize {
        match self {
            Row::Lines(_, a, r) => a + r,
            Row::Refused(_) | Row::Binary(_) => 0,
        }
    }
}

/// The rows of `f`: one, or the deletion's and the creation's of a
/// typechange.
fn rows(f: &FileReport) -> Vec<Row> {
    let path = shown_path(f);
    let row = |binary: bool, added: usize, removed: usize| match binary {
        true => Row::Binary(path.clone()),
        false => Row::Lines(path.clone(), added, removed),
    };
    if refused_file(f) {
        vec![Row::Refused(path.clone())]
    } else if f.typechange {
        vec![
            row(f.binary.old_side(), 0, f.removed),
            row(f.binary.new_side(), f.added, 0),
        ]
    } else {
        vec![row(f.binary.any(), f.added, f.removed)]
    }
}

/// `name` cut to `width` columns as git cuts a long name: from the
/// front, at a directory boundary where one is near, behind `...`.
fn fitted(name: &str, width: usize) -> String {
    if name.len() <= width || !name.is_ascii() {
        return name.to_string();
    }
    let from = name.len() + 3 - width;
    let cut = name[from..].find('/').map_or(from, |at| from + at);
    format!("...{}", &name[cut..])
}

/// A diffstat: one line per file and a total line, as `git apply --stat`
/// writes them (names as wide as the longest old or new name, at most 50
/// columns, a longer one cut from the front; the graph within 70 columns;
/// a binary file's line `Bin`; a typechange's two lines, the deletion's
/// and the creation's). A file that is refused shows `refused` instead of
/// counts (it would not change, but it is not empty either), and the
/// total line of a patch that does not apply says so rather than counting
/// as if it did.
///
/// ```
/// use git_fuzzy_apply::{ApplyOptions, plan_patch};
/// use git_fuzzy_apply::report::stat::stat;
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
/// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n one\n-two\n+2\n";
/// let plan = plan_patch(patch, dir.path(), &ApplyOptions::default()).unwrap();
/// assert!(stat(&plan.report()).contains("1 file changed, 1 insertion(+), 1 deletion(-)"));
/// let stale = b"--- a/a.txt\n+++ b/a.txt\n@@\n one\n-three\n+3\n";
/// let plan = plan_patch(stale, dir.path(), &ApplyOptions::default()).unwrap();
/// assert_eq!(stat(&plan.report()), " a.txt | refused\n 1 file, 1 refused: the patch does not apply\n");
/// let binary = b"diff --git a/x b/x\nnew file mode 100644\nGIT binary patch\nliteral 0\nHcmV?d00001\n\n";
/// let plan = plan_patch(binary, dir.path(), &ApplyOptions::default()).unwrap();
/// assert_eq!(stat(&plan.report()), " x |  Bin\n 1 file changed, 0 insertions(+), 0 deletions(-)\n");
/// ```
pub fn stat(report: &Report) -> String {
    let rows: Vec<Row> = report.files.iter().flat_map(rows).collect();
    // As git: the width of the longest name, old names of moves included.
    let names = report.files.iter().flat_map(|f| {
        let old = quoted(&f.path).len();
        [Some(old), f.move_to.as_deref().map(|to| quoted(to).len())]
    });
    let width = names.flatten().max().unwrap_or(0).min(50);
    let most = rows.iter().map(Row::lines).max().unwrap_or(0);
    let room = if width + most > 70 { 70 - width } else { most };
    let mut out = String::new();
    let (mut ins, mut del, mut refused) = (0, 0, 0);
    for row in &rows {
        let name = fitted(row.name(), width);
        let _ = match row {
            Row::Refused(_) => {
                refused += 1;
                writeln!(out, " {name:<width$} | refused")
            }
            Row::Binary(_) => writeln!(out, " {name:<width$} |  Bin"),
            Row::Lines(_, added, removed) => {
                ins += added;
                del += removed;
                // git's rounding: the total and the pluses each to the
                // nearest column, the minuses what is left.
                let scaled = |n: usize| (n * room + most / 2).checked_div(most);
                let (plus, minus) = match (scaled(added + removed), scaled(*added)) {
                    (Some(total), Some(plus)) => (plus, total.saturating_sub(plus)),
                    _ => (*added, *removed),
                };
                writeln!(
                    out,
                    " {name:<width$} | {:>4} {}{}",
                    added + removed,
                    "+".repeat(plus),
                    "-".repeat(minus),
                )
            }
        };
    }
    let partial = report.files.iter().any(|f| f.status == FileStatus::Partial);
    if !report.ok && !partial {
        let _ = writeln!(
            out,
            " {} {}, {refused} refused: the patch does not apply",
            rows.len(),
            plural(rows.len(), "file", "files"),
        );
        return out;
    }
    let changed = rows.len() - refused;
    // As git: a count of zero is left out unless both are zero.
    let _ = write!(
        out,
        " {changed} {} changed",
        plural(changed, "file", "files")
    );
    if ins > 0 || del == 0 {
        let _ = write!(out, ", {ins} {}(+)", plural(ins, "insertion", "insertions"));
    }
    if del > 0 || ins == 0 {
        let _ = write!(out, ", {del} {}(-)", plural(del, "deletion", "deletions"));
    }
    if refused > 0 {
        let _ = write!(out, "; {refused} refused");
    }
    out.push('\n');
    out
}

/// A file that does not change because it is refused: failed, or (with
/// `--partial`) not one of its hunks applies.
fn refused_file(f: &FileReport) -> bool {
    match f.status {
        FileStatus::Failed => true,
        FileStatus::Partial => !f.hunks.iter().any(|h| h.status == HunkOutcome::Applied),
        FileStatus::Patched | FileStatus::Unchanged => false,
    }
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// Tab-separated added, removed, path per file; `-` and `-` for a binary
/// file (as git writes it: no lines to count) and for a file that is
/// refused; a typechange has two lines, as with `git apply --numstat`.
///
/// ```
/// use git_fuzzy_apply::{plan_patch, report::stat::numstat};
///
/// let dir = tempfile::tempdir().unwrap();
/// let patch = b"--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n";
/// let report = plan_patch(patch, dir.path(), &Default::default()).unwrap().report();
/// assert_eq!(numstat(&report), "2\t0\tnew.txt\n");
/// ```
pub fn numstat(report: &Report) -> String {
    report
        .files
        .iter()
        .flat_map(rows)
        .map(|row| match row {
            Row::Refused(path) | Row::Binary(path) => format!("-\t-\t{path}\n"),
            Row::Lines(path, added, removed) => format!("{added}\t{removed}\t{path}\n"),
        })
        .collect()
}

/// Creations, deletions (a typechange shows both), renames and mode
/// changes, as `git apply --summary` shows them (but for a rename's
/// similarity, which is not kept, and git's `{a => b}` shortening).
///
/// ```
/// use git_fuzzy_apply::{plan_patch, report::stat::summary};
///
/// let dir = tempfile::tempdir().unwrap();
/// let patch = b"--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+a\n";
/// let plan = plan_patch(patch, dir.path(), &Default::default()).unwrap();
/// assert_eq!(summary(&plan.report(), plan.results()), " create mode 100644 new.txt\n");
/// ```
pub fn summary<'a>(report: &Report, results: impl IntoIterator<Item = &'a FileResult>) -> String {
    let results: Vec<&FileResult> = results.into_iter().collect();
    // The mode a created file gets or a deleted file had, as git shows it.
    let mode = |path: &str, added: bool| {
        results
            .iter()
            .find(|r| {
                let side = if added { &r.new_path } else { &r.old_path };
                side.as_deref() == Some(path)
            })
            .and_then(|r| r.mode)
            .unwrap_or(0o100644)
    };
    let mut out = String::new();
    for f in &report.files {
        let name = quoted(&f.path);
        match (f.op, &f.move_to) {
            (FileOp::Add, _) => {
                let _ = writeln!(out, " create mode {:o} {name}", mode(&f.path, true));
            }
            (FileOp::Delete, _) => {
                let _ = writeln!(out, " delete mode {:o} {name}", mode(&f.path, false));
            }
            (FileOp::Update, _) if f.typechange => {
                let (old, new) = typechange_modes(&results, &f.path);
                let _ = writeln!(out, " delete mode {old:o} {name}");
                let _ = writeln!(out, " create mode {new:o} {name}");
            }
            (FileOp::Update, Some(to)) => {
                let _ = writeln!(out, " rename {} => {to}", f.path);
                if let Some((old, new)) = mode_change(&results, &f.path) {
                    let _ = writeln!(out, " mode change {old:06o} => {new:06o}");
                }
            }
            (FileOp::Update, None) => {
                if let Some((old, new)) = mode_change(&results, &f.path) {
                    let _ = writeln!(out, " mode change {old:06o} => {new:06o} {name}");
                }
            }
        }
    }
    out
}

/// The modes before and after of the file read from `path`, when the
/// patch changes its mode.
fn mode_change(results: &[&FileResult], path: &str) -> Option<(u32, u32)> {
    let r = results
        .iter()
        .find(|r| r.old_path.as_deref() == Some(path))?;
    r.mode_changes().then_some((r.mode?, r.new_mode?))
}

/// The modes before and after of the typechange at `path` (the file that
/// was and the one that is), as far as its result tells; a refused
/// typechange has none, and shows git's default file mode for both.
fn typechange_modes(results: &[&FileResult], path: &str) -> (u32, u32) {
    let result = results
        .iter()
        .find(|r| r.old_path.as_deref() == Some(path) && r.new_path.as_deref() == Some(path));
    let old = result.and_then(|r| r.mode).unwrap_or(0o100644);
    let new = result.and_then(|r| r.new_mode).unwrap_or(0o100644);
    (old, new)
}
