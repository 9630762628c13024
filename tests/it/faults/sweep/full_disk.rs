//! Recovery on a disk that is really full (issue 18): a run killed at every
//! point where it leaves a journal, on a small tmpfs, then `--recover` with
//! the file system shrunk to what is in use plus 0 to 5 pages. Unlike the
//! seam's faults, the kernel decides which write runs out: a record or a
//! journal written in part, a lock whose record does not fit.
//!
//! The recovery that runs out exits 2 naming a file and the cause, and
//! keeps the journal (saying to run `--recover` again) or leaves the tree
//! (and index) all as before or all as after; a recovery with room enough
//! exits 0 and settles the tree. Then, with room again, `--recover`
//! finishes: all before or all after, nothing of ours left.

use super::recovery::interrupted_states;
use super::{Expected, Place, State, journal_kept, run};
use crate::support::{stderr, used_pages, with_mount};
use std::fs;
use std::path::Path;
use std::process::Command;

/// Pages left free beyond what is in use when recovery runs.
const FREE: std::ops::Range<u64> = 0..6;

/// Sets the size of the tmpfs mounted at `point` (in KiB).
fn resize(point: &Path, kib: u64) {
    let resized = Command::new("mount")
        .args(["-o", &format!("remount,size={kib}k")])
        .arg(point)
        .status()
        .is_ok_and(|s| s.success());
    assert!(resized, "remount to {kib}k");
}

/// Checks a recovery that ran out of room.
fn assert_out_of_room(exp: &Expected, root: &Path, err: &str, what: &str) {
    assert!(err.contains("No space left on device"), "{what}: {err}");
    // The file it stopped at: one of the run's, the journal or a lock.
    let named = ["a.txt", "b.txt", "c.txt", "journal", "lock"]
        .iter()
        .any(|f| err.contains(f));
    assert!(named, "{what}: no file named: {err}");
    assert!(!err.contains("by hand"), "{what}: {err}");
    if journal_kept(root) {
        assert!(
            err.contains("--recover") || err.contains("nothing was written"),
            "{what}: journal kept, not said: {err}"
        );
    } else {
        assert_ne!(
            exp.state(root),
            State::Mixed,
            "{what}: half recovered: {err}"
        );
    }
}

/// Kills a run at `exit_at` on a tmpfs, recovers with `free` pages left,
/// then with room again. Returns whether the first recovery ran out, or
/// `None` where no tmpfs can be mounted (not root; never in CI).
fn recover_on_full_disk(exp: &Expected, exit_at: &str, free: u64) -> Option<bool> {
    let mut ran_out = None;
    with_mount("size=16m", |point| {
        ran_out = Some(false);
        let root = point.join("tree");
        let copied = Command::new("cp")
            .arg("-a")
            .arg(&exp.template.root)
            .arg(&root)
            .status()
            .is_ok_and(|s| s.success());
        assert!(copied);
        fs::write(point.join("patch"), crate::support::scene::PATCH).unwrap();
        let args = exp.template.place.args();
        let killed = run(&root, args, &[("GIT_FUZZY_APPLY_TEST_EXIT_AT", exit_at)]);
        assert_eq!(killed.status.code(), Some(137), "{}", stderr(&killed));
        assert!(journal_kept(&root));
        resize(point, (used_pages(point) + free) * 4);
        let out = run(&root, &["--recover"], &[]);
        resize(point, 16 * 1024);
        let err = stderr(&out);
        let what = format!(
            "{:?} killed at {exit_at}, recovery with {free} pages free",
            exp.template.place
        );
        match out.status.code() {
            Some(0) => {
                exp.assert_settled(&root, &what);
            }
            Some(2) => {
                eprintln!("{what}: {err}");
                ran_out = Some(true);
                assert_out_of_room(exp, &root, &err, &what);
            }
            other => panic!("{what}: exit {other:?}: {err}"),
        }
        let again = run(&root, &["--recover"], &[]);
        let again_err = stderr(&again);
        assert_eq!(again.status.code(), Some(0), "{what}, again: {again_err}");
        exp.assert_settled(
            &root,
            &format!("{what}, recovered again ({err} / {again_err})"),
        );
    });
    ran_out
}

/// Every interrupted state of `place` × [`FREE`]: the cases, and how many
/// recoveries ran out of room.
fn sweep_full_disk(place: Place) -> (usize, usize) {
    let exp = Expected::new(place);
    let states = interrupted_states(&exp);
    assert!(states.len() > 5, "{states:?}");
    let (mut cases, mut ran_out) = (0, 0);
    for exit_at in &states {
        for free in FREE {
            match recover_on_full_disk(&exp, exit_at, free) {
                None => return (0, 0),
                Some(out) => {
                    cases += 1;
                    ran_out += usize::from(out);
                }
            }
        }
    }
    (cases, ran_out)
}

#[test]
fn a_recovery_that_runs_out_of_room_outside_a_repository_can_be_finished() {
    // Outside a repository recovery only renames and removes, and the dead
    // run's lock file already holds its record: none runs out of room
    // (session 20: 0 of 72). What is checked is that each settles.
    let (cases, ran_out) = sweep_full_disk(Place::Outside);
    eprintln!("outside: {cases} recoveries on a full disk, {ran_out} ran out of room");
}

#[test]
fn a_recovery_that_runs_out_of_room_with_index_can_be_finished() {
    let (cases, ran_out) = sweep_full_disk(Place::Index);
    eprintln!("--index: {cases} recoveries on a full disk, {ran_out} ran out of room");
    assert!(cases == 0 || ran_out > 0, "{cases} {ran_out}");
}
