//! Tests of rendering and of the all-or-nothing commit.

use super::*;
use crate::plan::{Edit, NewLine};

fn plan(edits: Vec<Edit>, final_newline: bool) -> FilePlan {
    FilePlan {
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
                content: WriteContent::Bytes(b"new"),
                expect: Expect::Content(b"old"),
                mode: None,
            },
            FileChange::Write {
                path: b.clone(),
                content: WriteContent::Bytes(b"made"),
                expect: Expect::Absent,
                mode: Some(0o755),
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
            content: WriteContent::Bytes(b"new"),
            expect: Expect::Content(b"old"),
            mode: None,
        },
        FileChange::Write {
            path: b.to_path_buf(),
            content: WriteContent::Bytes(b"new b"),
            expect: Expect::Content(b"b"),
            mode: None,
        },
    ]
}

#[test]
fn a_failed_rename_restores_replaced_files() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.txt");
    fs::write(&a, "old").unwrap();
    let b = dir.path().join("b.txt");
    fs::write(&b, "b").unwrap();
    FAIL_ON.with(|f| *f.borrow_mut() = Some(b.clone()));
    let err = commit(&two_edits(&a, &b), dir.path(), None);
    FAIL_ON.with(|f| *f.borrow_mut() = None);
    assert!(err.is_err());
    assert_eq!(fs::read(&a).unwrap(), b"old");
    assert_eq!(fs::read(&b).unwrap(), b"b");
}

thread_local! {
    /// A path whose rename into place fails (fault injection for tests).
    static FAIL_ON: std::cell::RefCell<Option<PathBuf>> = const { std::cell::RefCell::new(None) };
}

thread_local! {
    static FAIL_UNDO: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

pub(super) fn maybe_fail_undo() -> io::Result<()> {
    if FAIL_UNDO.with(std::cell::Cell::get) {
        return Err(io::Error::other("injected roll-back failure"));
    }
    Ok(())
}

pub(super) fn maybe_fail(path: &Path) -> io::Result<()> {
    if FAIL_ON.with(|f| f.borrow().as_deref() == Some(path)) {
        return Err(io::Error::other("injected failure"));
    }
    Ok(())
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
                content: WriteContent::Bytes(b"new"),
                expect: Expect::Content(b"old"),
                mode: None,
            },
            FileChange::Write {
                path: b.clone(),
                content: WriteContent::Bytes(b"new"),
                expect: Expect::Content(b"what we read"),
                mode: None,
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
            content: WriteContent::Bytes(b"ours"),
            expect: Expect::Stamp(stamp),
            mode: None,
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
        lock: None,
        index: None,
    };
    FAIL_ON.with(|f| *f.borrow_mut() = Some(b.clone()));
    FAIL_UNDO.with(|f| f.set(true));
    let err = commit(&two_edits(&a, &b), dir.path(), Some(&spec));
    FAIL_ON.with(|f| *f.borrow_mut() = None);
    FAIL_UNDO.with(|f| f.set(false));
    let Err(CommitError::Unfinished { journal, .. }) = &err else {
        panic!("expected an unfinished commit, got {err:?}");
    };
    assert_eq!(journal.as_deref(), Some(spec.path.as_path()));
    assert!(err.unwrap_err().to_string().contains("--recover"));
    assert!(
        spec.path.exists(),
        "the journal must survive a failed roll-back"
    );
    // Marked, so that recovery undoes the run even if the index changed.
    let kept: JournalData = serde_json::from_slice(&fs::read(&spec.path).unwrap()).unwrap();
    assert!(kept.rolling_back && !kept.committed);
    // The next run's recovery puts everything back and removes the journal.
    assert!(crate::journal::recover(&spec.path).unwrap().is_some());
    assert_eq!(fs::read(&a).unwrap(), b"old");
    assert_eq!(fs::read(&b).unwrap(), b"b");
    assert!(!spec.path.exists());
    let names: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "leftovers: {names:?}");
}
