//! The conflict report left behind when something did not apply: Markdown for
//! people and JSON for tools, side by side (`last-report.md`,
//! `last-report.json`), and `.rej` files for `--reject`.

use super::{FileReport, HunkFailure, Report};
use crate::source::WorktreeTargets;
use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Writes `<base>.md` and `<base>.json` for a report that is not ok, and
/// returns their paths. `rerun` is what the `--at` commands of ambiguous
/// hunks repeat after `--at FILE:LINE` (the run's arguments; `None`:
/// `PATCH`).
pub(crate) fn write(
    report: &Report,
    base: &Path,
    rerun: Option<&str>,
) -> io::Result<(PathBuf, PathBuf)> {
    if let Some(dir) = base.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir)?;
    }
    let md = base.with_extension("md");
    let json = base.with_extension("json");
    fs::write(&md, markdown(report, rerun))?;
    let text = serde_json::to_string_pretty(report).map_err(io::Error::other)?;
    fs::write(&json, text + "\n")?;
    Ok((md, json))
}

/// Removes `<base>.md` and `<base>.json`, the report of an earlier run that
/// failed, after a run that succeeded. Missing files are no error, and a
/// file that cannot be removed is left (the run itself succeeded).
pub(crate) fn remove(base: &Path) {
    for ext in ["md", "json"] {
        let _ = fs::remove_file(base.with_extension(ext));
    }
}

/// The Markdown conflict report.
pub(crate) fn markdown(report: &Report, rerun: Option<&str>) -> String {
    let mut out = String::from("# git fuzzy-apply: the patch did not apply\n\n");
    out.push_str("Nothing was written unless `--partial` or `--reject` was given.\n\n");
    if let Some(p) = &report.error {
        let _ = writeln!(out, "- **{}**: {}\n", p.code, p.message);
    }
    for file in &report.files {
        file_section(file, &mut out, rerun.unwrap_or("PATCH"));
    }
    out
}

fn file_section(file: &FileReport, out: &mut String, rerun: &str) {
    let failed: Vec<(usize, &HunkFailure)> = file
        .hunks
        .iter()
        .filter_map(|h| h.failure.as_ref().map(|f| (h.index, f)))
        .collect();
    if file.error.is_none() && failed.is_empty() {
        return;
    }
    let _ = writeln!(out, "## `{}`\n", file.path);
    if let Some(p) = &file.error {
        let _ = writeln!(out, "- **{}**: {}\n", p.code, p.message);
    }
    for (index, f) in failed {
        let _ = writeln!(out, "### Hunk {index}: `{}`\n\n{}\n", f.code, f.message);
        let _ = writeln!(out, "```diff\n{}```\n", super::quote::lines(&f.hunk_text));
        for view in &f.candidate_context {
            let tier = view.tier.map_or("", |t| t.name());
            let _ = writeln!(
                out,
                "Candidate at line {} ({tier} tier, score {:.2}):\n\n```",
                view.line, view.score
            );
            for (n, text) in &view.lines {
                let _ = writeln!(out, "{n:>6} | {text}");
            }
            out.push_str("```\n\n");
            // Only where `--at` places the hunk (not every refusal listing
            // places is a choice between them).
            if f.at_settles.contains(&view.line) {
                let _ = writeln!(
                    out,
                    "To apply it there: `git fuzzy-apply --at {}:{} {rerun}`\n",
                    super::human::shell_word(&file.path),
                    view.line
                );
            }
        }
        if let Some(near) = &f.near_match {
            let _ = writeln!(
                out,
                "Closest lines in the file ({:.0}% similar):\n\n```",
                near.similarity * 100.0
            );
            for (i, text) in near.lines.iter().enumerate() {
                let _ = writeln!(out, "{:>6} | {text}", near.start_line + i);
            }
            out.push_str("```\n\n");
        }
    }
}

/// Writes `<file>.rej` next to every file with failed hunks (as `git apply
/// --reject` does) and returns their paths.
pub(crate) fn write_rejects(
    report: &Report,
    targets: &WorktreeTargets,
) -> io::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for file in &report.files {
        let failed: Vec<&HunkFailure> = file
            .hunks
            .iter()
            .filter_map(|h| h.failure.as_ref())
            .collect();
        if failed.is_empty() {
            continue;
        }
        let path = targets
            .resolve(&format!("{}.rej", file.path))
            .map_err(io::Error::other)?;
        let mut text = format!("diff a/{0} b/{0}\t(rejected hunks)\n", file.path);
        for f in failed {
            text.push_str("@@\n");
            text.push_str(&f.hunk_text);
        }
        fs::write(&path, text)?;
        written.push(path);
    }
    Ok(written)
}
