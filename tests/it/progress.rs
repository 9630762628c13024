//! The progress observer sees each stage of a run with its workload and
//! every file, and a bar is never drawn when standard error is not a terminal.

use git_fuzzy_apply::{Invocation, Progress, Stage, Workload, run, run_with_progress};
use std::fs;
use std::sync::Mutex;

use crate::support;
use support::run_bin;

#[derive(Default)]
struct Recorder {
    active: bool,
    events: Mutex<Vec<String>>,
}

impl Progress for Recorder {
    fn is_active(&self) -> bool {
        self.active
    }
    fn start(&self, stage: Stage, workload: Workload) {
        self.events.lock().unwrap().push(format!(
            "{} {} {}",
            stage.label(),
            workload.files,
            workload.bytes
        ));
    }
    fn file_done(&self, path: &str) {
        self.events.lock().unwrap().push(path.to_string());
    }
}

/// `files` files of `a b c`, and one diff changing `b` in each.
fn tree(files: usize) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut patch = String::new();
    for i in 0..files {
        fs::write(dir.path().join(format!("f{i}.txt")), "a\nb\nc\n").unwrap();
        patch.push_str(&format!(
            "--- a/f{i}.txt\n+++ b/f{i}.txt\n@@\n a\n-b\n+B\n c\n"
        ));
    }
    (dir, patch)
}

#[test]
fn an_active_observer_sees_planning_and_writing_file_by_file() {
    let (dir, patch) = tree(3);
    let recorder = Recorder {
        active: true,
        ..Recorder::default()
    };
    let outcome = run_with_progress(
        dir.path(),
        patch.as_bytes(),
        &Invocation::default(),
        &recorder,
    )
    .unwrap();
    assert!(outcome.written);
    // Files are planned and written on several threads: within a stage
    // they may come in any order.
    let mut events = recorder.events.into_inner().unwrap();
    events[1..4].sort();
    events[5..8].sort();
    assert_eq!(
        events,
        [
            "planning 3 18",
            "f0.txt",
            "f1.txt",
            "f2.txt",
            "writing 3 18",
            "f0.txt",
            "f1.txt",
            "f2.txt"
        ]
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("f2.txt")).unwrap(),
        "a\nB\nc\n"
    );
}

#[test]
fn an_inactive_observer_is_not_asked_to_measure_planning() {
    let (dir, patch) = tree(2);
    let recorder = Recorder::default();
    let check = Invocation::default().with_dry_run(true);
    run_with_progress(dir.path(), patch.as_bytes(), &check, &recorder).unwrap();
    // No `planning` start (no stat of every target); a dry run writes nothing.
    let mut events = recorder.events.into_inner().unwrap();
    events.sort();
    assert_eq!(events, ["f0.txt", "f1.txt"]);
    // The plain entry point behaves the same.
    assert!(run(dir.path(), patch.as_bytes(), &check).unwrap().report.ok);
}

#[test]
fn a_large_run_draws_no_bar_when_stderr_is_a_pipe() {
    let (dir, patch) = tree(60);
    fs::write(dir.path().join("p.diff"), &patch).unwrap();
    let out = run_bin(dir.path(), &["p.diff"], None);
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("planning") && !stderr.contains('\u{1b}'),
        "{stderr}"
    );
}
