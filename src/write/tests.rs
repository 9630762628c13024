//! Tests of rendering and of the all-or-nothing commit.

use super::*;
use crate::journal::{JournalData, JournalSpec};
use crate::plan::edits::{Edit, FilePlan, NewLine};
use crate::source::SourceText;
use crate::test_hooks::Step;
use std::fs;

/// `value`, kept for the rest of the test process: the changes a test
/// commits borrow their contents, as a run's borrow its plan.
fn leak<T>(value: T) -> &'static T {
    Box::leak(Box::new(value))
}

/// New content given as bytes.
fn bytes(bytes: &[u8]) -> &'static NewContent {
    leak(NewContent::Bytes(bytes.to_vec()))
}

/// The content before of a change that is not rendered from it.
fn none() -> &'static Content {
    leak(Content::Owned(Vec::new()))
}

fn plan(edits: Vec<Edit>, final_newline: bool) -> FilePlan {
    FilePlan {
        crlf_when_file_has_none: false,
        edits,
        final_newline,
    }
}

#[test]
fn unchanged_plan_reproduces_the_bytes() {
    for bytes in [&b"a\r\nb\nc"[..], b"\xEF\xBB\xBFx\n", b"", b"\n\n"] {
        let src = SourceText::new(bytes);
        let out = render_to_vec(&src, &plan(vec![], src.has_final_newline()));
        assert_eq!(out, bytes);
    }
}

#[test]
fn inserted_lines_take_the_file_line_ending() {
    let src = SourceText::new(b"a\r\nb\r\n");
    let edit = Edit {
        start: 1,
        end: 1,
        lines: vec![NewLine::Insert("new".into())],
        hunk: 0,
    };
    assert_eq!(
        render_to_vec(&src, &plan(vec![edit], true)),
        b"a\r\nnew\r\nb\r\n"
    );
}

#[test]
fn appending_after_an_unterminated_last_line() {
    let src = SourceText::new(b"a\nb");
    let edit = Edit {
        start: 2,
        end: 2,
        lines: vec![NewLine::Insert("c".into())],
        hunk: 0,
    };
    assert_eq!(render_to_vec(&src, &plan(vec![edit], false)), b"a\nb\nc");
}

#[test]
fn commit_writes_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.txt");
    let b = dir.path().join("sub/b.txt");
    fs::write(&a, "old").unwrap();
    commit(
        &[
            FileChange::Write {
                path: a.clone(),
                old: none(),
                new: bytes(b"new"),
                expect: Expect::Content(b"old"),
                mode: None,
                link: false,
            },
            FileChange::Write {
                path: b.clone(),
                old: none(),
                new: bytes(b"made"),
                expect: Expect::Absent,
                mode: Some(0o755),
                link: false,
            },
        ],
        dir.path(),
        None,
    )
    .unwrap()
    .finish()
    .unwrap();
    assert_eq!(fs::read(&a).unwrap(), b"new");
    assert_eq!(fs::read(&b).unwrap(), b"made");
}

/// Edits `a` ("old" to "new") and `b` ("b" to "new b").
fn two_edits(a: &Path, b: &Path) -> [FileChange<'static>; 2] {
    [
        FileChange::Write {
            path: a.to_path_buf(),
            old: none(),
            new: bytes(b"new"),
            expect: Expect::Content(b"old"),
            mode: None,
            link: false,
        },
        FileChange::Write {
            path: b.to_path_buf(),
            old: none(),
            new: bytes(b"new b"),
            expect: Expect::Content(b"b"),
            mode: None,
            link: false,
        },
    ]
}

/// Makes the write step `step` on `path` fail (`ENOSPC`) while the guard
/// lives. The path lies in the test's own temporary folder: tests running
/// at once do not meet.
fn fail_on(step: Step, path: &Path) -> crate::test_hooks::FailWhile {
    let path = path.to_path_buf();
    crate::test_hooks::fail_while(move |s, p| s == step && p == path)
}

#[test]
fn a_failed_rename_restores_replaced_files() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.txt");
    fs::write(&a, "old").unwrap();
    let b = dir.path().join("b.txt");
    fs::write(&b, "b").unwrap();
    let failing = fail_on(Step::Rename, &b);
    let err = commit(&two_edits(&a, &b), dir.path(), None);
    drop(failing);
    assert!(err.is_err());
    assert_eq!(fs::read(&a).unwrap(), b"old");
    assert_eq!(fs::read(&b).unwrap(), b"b");
}

#[test]
fn a_failed_committed_mark_puts_every_file_back_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.txt");
    let b = dir.path().join("b.txt");
    fs::write(&a, "old").unwrap();
    fs::write(&b, "b").unwrap();
    let spec = JournalSpec {
        path: dir.path().join("journal"),
        index: None,
    };
    let committed = commit(&two_edits(&a, &b), dir.path(), Some(&spec)).unwrap();
    // A full disk at exactly the write of the committed mark.
    let failing = fail_on(Step::JournalRename, &spec.path);
    let err = committed.finish();
    drop(failing);
    let err = err.unwrap_err();
    assert!(matches!(err, FinishError::Undone { .. }), "{err}");
    assert!(err.to_string().contains("put back as it was"), "{err}");
    assert_eq!(fs::read(&a).unwrap(), b"old");
    assert_eq!(fs::read(&b).unwrap(), b"b");
    let names: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "leftovers: {names:?}");
}

#[test]
fn a_file_changed_since_reading_is_not_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.txt");
    let b = dir.path().join("b.txt");
    fs::write(&a, "old").unwrap();
    fs::write(&b, "someone else wrote this").unwrap();
    let err = commit(
        &[
            FileChange::Write {
                path: a.clone(),
                old: none(),
                new: bytes(b"new"),
                expect: Expect::Content(b"old"),
                mode: None,
                link: false,
            },
            FileChange::Write {
                path: b.clone(),
                old: none(),
                new: bytes(b"new"),
                expect: Expect::Content(b"what we read"),
                mode: None,
                link: false,
            },
        ],
        dir.path(),
        None,
    );
    assert!(matches!(err, Err(CommitError::Changed(_))));
    assert_eq!(fs::read(&a).unwrap(), b"old");
}

#[test]
fn deleting_the_last_file_removes_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("x/y");
    fs::create_dir_all(&sub).unwrap();
    fs::write(sub.join("f"), "z").unwrap();
    commit(
        &[FileChange::Delete {
            path: sub.join("f"),
            expect: Expect::Content(b"z"),
        }],
        dir.path(),
        None,
    )
    .unwrap()
    .finish()
    .unwrap();
    assert!(!dir.path().join("x").exists());
}

#[test]
fn a_file_replaced_since_its_stamp_was_taken_is_not_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.txt");
    fs::write(&a, "old").unwrap();
    let stamp = Stamp::of(&a).unwrap();
    // Same size, same second: only the inode (and change time) tell.
    let other = dir.path().join("other");
    fs::write(&other, "new").unwrap();
    fs::rename(&other, &a).unwrap();
    let err = commit(
        &[FileChange::Write {
            path: a.clone(),
            old: none(),
            new: bytes(b"ours"),
            expect: Expect::Stamp(stamp),
            mode: None,
            link: false,
        }],
        dir.path(),
        None,
    );
    assert!(matches!(err, Err(CommitError::Changed(_))));
    assert_eq!(fs::read(&a).unwrap(), b"new");
}

#[test]
fn a_failed_roll_back_keeps_the_journal_and_recovery_finishes_it() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.txt");
    let b = dir.path().join("b.txt");
    fs::write(&a, "old").unwrap();
    fs::write(&b, "b").unwrap();
    let spec = JournalSpec {
        path: dir.path().join("journal"),
        index: None,
    };
    // The rename of b.txt fails, and so does putting a.txt back. The
    // renames run on every core, and a.txt is put back only if it was
    // renamed before b.txt failed: one thread renames them in order.
    let failing = [fail_on(Step::Rename, &b), fail_on(Step::Restore, &a)];
    let one_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    // (The result is not `Send`: what the test reads of it comes out.)
    let unfinished =
        one_thread.install(
            || match commit(&two_edits(&a, &b), dir.path(), Some(&spec)) {
                Err(err @ CommitError::Unfinished { .. }) => {
                    let CommitError::Unfinished { journal, .. } = &err else {
                        unreachable!()
                    };
                    Ok((journal.clone(), err.to_string()))
                }
                other => Err(format!("{other:?}")),
            },
        );
    drop(failing);
    let (journal, message) =
        unfinished.unwrap_or_else(|e| panic!("expected an unfinished commit, got {e}"));
    assert_eq!(journal.as_deref(), Some(spec.path.as_path()));
    assert!(message.contains("--recover"));
    assert!(
        spec.path.exists(),
        "the journal must survive a failed roll-back"
    );
    // Marked, so that recovery undoes the run even if the index changed.
    let kept: JournalData = serde_json::from_slice(&fs::read(&spec.path).unwrap()).unwrap();
    assert!(kept.rolling_back && !kept.committed);
    // The next run's recovery puts everything back and removes the journal.
    let expected = crate::journal::Expected {
        root: dir.path(),
        index: None,
    };
    assert!(
        crate::journal::recover(&spec.path, expected)
            .unwrap()
            .is_some()
    );
    assert_eq!(fs::read(&a).unwrap(), b"old");
    assert_eq!(fs::read(&b).unwrap(), b"b");
    assert!(!spec.path.exists());
    let names: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "leftovers: {names:?}");
}

#[test]
fn the_writing_workload_counts_the_bytes_written() {
    use crate::model::LineText;
    use crate::progress::{Progress, Stage, Workload};
    use std::sync::Mutex;
    struct Writing(Mutex<Option<Workload>>);
    impl Progress for Writing {
        fn start(&self, stage: Stage, workload: Workload) {
            if stage == Stage::Writing {
                *self.0.lock().unwrap() = Some(workload);
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<LineText> = vec!["one".into(), "".into(), "three".into()];
    for final_newline in [true, false] {
        let path = dir.path().join(format!("made-{final_newline}.txt"));
        let seen = Writing(Mutex::new(None));
        commit_with_progress(
            &[FileChange::Write {
                path: path.clone(),
                old: none(),
                new: leak(NewContent::Lines {
                    lines: lines.clone(),
                    final_newline,
                }),
                expect: Expect::Absent,
                mode: None,
                link: false,
            }],
            dir.path(),
            None,
            &seen,
        )
        .unwrap()
        .finish()
        .unwrap();
        let written = fs::metadata(&path).unwrap().len();
        assert_eq!(
            *seen.0.lock().unwrap(),
            Some(Workload {
                files: 1,
                bytes: written
            }),
            "final newline: {final_newline}"
        );
    }
}

#[test]
fn a_roll_back_whose_journal_cannot_be_removed_says_so() {
    // Staging the index failed, every file was put back, and then the
    // journal could not be removed: the run must not say only "put back".
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.txt");
    let b = dir.path().join("b.txt");
    fs::write(&a, "old").unwrap();
    fs::write(&b, "b").unwrap();
    let spec = JournalSpec {
        path: dir.path().join("journal"),
        index: None,
    };
    let committed = commit(&two_edits(&a, &b), dir.path(), Some(&spec)).unwrap();
    let failing = fail_on(Step::JournalRemove, &spec.path);
    let left = committed.roll_back();
    drop(failing);
    let left = left.unwrap();
    assert_eq!(left.journal.as_deref(), Some(spec.path.as_path()));
    assert!(left.left_alone.is_empty());
    assert_eq!(fs::read(&a).unwrap(), b"old");
    assert_eq!(fs::read(&b).unwrap(), b"b");
    assert!(journal_left(Some(&spec.path)).contains("--recover"));
    // Recovery finds nothing to undo and removes it.
    let expected = crate::journal::Expected {
        root: dir.path(),
        index: None,
    };
    assert!(matches!(
        crate::journal::recover(&spec.path, expected).unwrap(),
        Some(crate::journal::Recovery::RolledBack { .. })
    ));
    let names: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "leftovers: {names:?}");
}
