//! Checks of a plan against the command line, made before
//! anything is written: every `--at FILE:LINE` must name a place a hunk of
//! FILE goes (or could go), and `--allow-empty` turns a patch with no edits
//! into a success.

use super::{PatchPlan, Pin};
use crate::outcome::{FileReport, HunkOutcome, Problem, ProblemCode};

/// The checks of a plan against the command line: the pins, and
/// `--allow-empty` when `allow_empty`.
pub(crate) fn check(plan: &mut PatchPlan, pins: &[Pin], allow_empty: bool) {
    check_pins(plan, pins);
    if allow_empty {
        forgive_empty(plan);
    }
}

/// Refuses the run when a pin names no candidate: no file of the patch is
/// FILE, or none of FILE's hunks is placed at LINE or has LINE among its
/// candidates. A pin that is silently ignored would let a hunk go where the
/// user said it must not.
fn check_pins(plan: &mut PatchPlan, pins: &[Pin]) {
    for pin in pins {
        let (path, line) = (pin.path(), pin.line());
        let files: Vec<&FileReport> = plan
            .files
            .iter()
            .map(|f| &f.report)
            .filter(|f| f.path == path)
            .collect();
        let message = if files.is_empty() {
            format!("--at {path}:{line}: the patch does not edit {path}")
        } else if files.iter().any(|f| names_a_candidate(f, line)) {
            continue;
        } else {
            format!(
                "--at {path}:{line} names no place a hunk of {path} can go; {}",
                places(&files)
            )
        };
        if plan.error.is_none() {
            plan.error = Some(Problem::new(ProblemCode::UnmatchedPin, message, None));
        }
    }
}

/// True when a hunk of `file` is placed at `line`, or is ambiguous with a
/// candidate there.
fn names_a_candidate(file: &FileReport, line: usize) -> bool {
    file.hunks.iter().any(|h| {
        let placed = h.status != HunkOutcome::Failed && h.lines.is_some_and(|r| r.start == line);
        let candidate = h
            .failure
            .as_ref()
            .is_some_and(|f| f.candidates.contains(&line));
        placed || candidate
    })
}

/// Where the hunks of `files` go or could go, for the refusal.
fn places(files: &[&FileReport]) -> String {
    let mut found = Vec::new();
    for hunk in files.iter().flat_map(|f| &f.hunks) {
        match (&hunk.failure, hunk.lines) {
            (Some(f), _) if !f.candidates.is_empty() => {
                let lines: Vec<String> = f.candidates.iter().map(|l| l.to_string()).collect();
                found.push(format!(
                    "hunk {} could go at line {}",
                    hunk.index,
                    lines.join(" or ")
                ));
            }
            (None, Some(r)) => found.push(format!("hunk {} goes at line {}", hunk.index, r.start)),
            _ => {}
        }
    }
    if found.is_empty() {
        "no hunk of it was placed".to_string()
    } else {
        found.join("; ")
    }
}

/// `--allow-empty`: a patch in which nothing is an edit (empty, or prose
/// only) is a success that changes nothing.
fn forgive_empty(plan: &mut PatchPlan) {
    let empty = plan
        .error
        .as_ref()
        .is_some_and(|p| p.code == ProblemCode::NoEdits)
        && plan.files.is_empty();
    if empty {
        plan.error = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan_patch;

    fn report(file: &str, patch: &str) -> PatchPlan {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), file).unwrap();
        plan_patch(patch.as_bytes(), dir.path(), &Default::default()).unwrap()
    }

    #[test]
    fn a_pin_on_the_placed_line_passes_and_elsewhere_fails() {
        let patch = "--- a/a.txt\n+++ b/a.txt\n@@\n-b\n+B\n";
        let mut ok = report("a\nb\n", patch);
        check(&mut ok, &[Pin::new("a.txt", 2)], false);
        assert!(ok.ok() && ok.error.is_none());
        let mut off = report("a\nb\n", patch);
        check(&mut off, &[Pin::new("a.txt", 1)], false);
        let error = off.error.unwrap();
        assert_eq!(error.code, ProblemCode::UnmatchedPin);
        assert!(
            error.message.contains("hunk 1 goes at line 2"),
            "{}",
            error.message
        );
        let mut other = report("a\nb\n", patch);
        check(&mut other, &[Pin::new("b.txt", 1)], false);
        assert!(other.error.unwrap().message.contains("does not edit b.txt"));
    }

    #[test]
    fn allow_empty_only_forgives_a_patch_without_edits() {
        let mut prose = report("a\n", "Just prose.");
        check(&mut prose, &[], true);
        assert!(prose.ok() && prose.error.is_none());
        let mut failing = report("a\n", "--- a/a.txt\n+++ b/a.txt\n@@\n-zzz\n+y\n");
        check(&mut failing, &[], true);
        assert!(!failing.ok());
    }
}
