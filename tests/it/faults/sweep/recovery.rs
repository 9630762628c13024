//! Recovery's own writes failing (issue 18): a run killed at every point
//! where it leaves a journal, then `--recover` with the disk failing at
//! each of recovery's write steps in turn (once, and from that step on),
//! with and without the user rewriting the run's files before the failing
//! recovery or between it and the next. With `--index`, something rewrites
//! the index between the two recoveries if it can (as `git status` or an
//! editor's `git add` would).
//!
//! The failing recovery exits 2 naming the file it stopped at (and
//! `--recover` while a journal is kept), or completes; the next `--recover`,
//! on a healthy disk, leaves the tree (and index) all as before or all as
//! after, never overwrites what the user wrote, and leaves no journal,
//! lock, staged file or temporary file.

use super::{BEST_EFFORT, Expected, Place, State, files, injected, journal_kept, leftovers, run};
use crate::support::{git, stderr};
use std::fs;
use std::path::Path;

/// The files the patch touches, which the user rewrites.
const MINE: [&str; 3] = ["a.txt", "old/b.txt", "new/c.txt"];

/// What the user writes into them.
const USERS: &str = "the user's own\n";

/// When the user rewrites the run's files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum User {
    Never,
    BeforeRecovery,
    BetweenRecoveries,
}

fn rewrite_mine(root: &Path) {
    for file in MINE.map(|f| root.join(f)) {
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(file, USERS).unwrap();
    }
}

fn assert_mine_kept(root: &Path, what: &str) {
    for file in MINE {
        assert_eq!(
            fs::read_to_string(root.join(file)).ok().as_deref(),
            Some(USERS),
            "{what}: {file} overwritten"
        );
    }
}

/// The checkpoints (by number) at which a killed run leaves a journal.
pub(super) fn interrupted_states(exp: &Expected) -> Vec<String> {
    let args = exp.template.place.args();
    let mut states = Vec::new();
    for k in 1..200 {
        let (_dir, root) = exp.template.copy();
        let k = k.to_string();
        let out = run(&root, args, &[("GIT_FUZZY_APPLY_TEST_EXIT_AT", &k)]);
        if out.status.code() == Some(0) {
            return states;
        }
        assert_eq!(out.status.code(), Some(137), "{}", stderr(&out));
        if journal_kept(&root) {
            states.push(k);
        }
    }
    panic!("a run that never ends");
}

/// Rewrites the index without changing what it holds (another index
/// version), as a `git status` refreshing it would; fails, and so changes
/// nothing, while a dead run's `index.lock` is still there.
fn rewrite_index(root: &Path) {
    let now = git(root, &["config", "--default", "2", "index.version"]);
    let other = if now.trim() == "4" { "3" } else { "4" };
    let _ = std::process::Command::new("git")
        .args(["update-index", "--index-version", other])
        .current_dir(root)
        .output();
}

/// The failing recovery: exit 2 naming the file of the step that failed
/// (the journal kept or the tree settled), or a success.
fn assert_failed_recovery(exp: &Expected, root: &Path, user: User, err: &str, what: &str) {
    let kept = journal_kept(root);
    let message: Vec<&str> = err
        .lines()
        .filter(|l| !l.contains("test fault at write step"))
        .collect();
    let message = message.join("\n");
    assert!(
        message.contains("No space left on device"),
        "{what}: the cause is not given: {err}"
    );
    // The step the error comes from: the first failed one whose failure
    // is not ignored (a disk that stays full fails some that are).
    let (step, path) = err
        .lines()
        .filter_map(|l| {
            l.split_once("test fault at write step ")?
                .1
                .split_once(" (")
        })
        .filter_map(|(_, rest)| rest.trim_end_matches(')').split_once(": "))
        .find(|(step, _)| !BEST_EFFORT.contains(step))
        .unwrap_or_default();
    let path = Path::new(path);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // A journal's temporary file is named by the journal beside it.
    let named = if name.starts_with(".fuzzy-apply-journal-") {
        message.contains(&format!("{}/", path.parent().unwrap().display()))
            && message.contains("journal")
    } else {
        !name.is_empty() && message.contains(&name)
    };
    assert!(
        named,
        "{what}: the message does not name {} ({step}): {message}",
        path.display()
    );
    if kept {
        // (Or stopped at the run lock, before anything.)
        assert!(
            message.contains("--recover") || message.contains("nothing was written"),
            "{what}: journal kept, not said: {message}"
        );
        assert!(
            !message.contains("by hand"),
            "{what}: a failed step is no reason to restore by hand: {message}"
        );
    } else if user == User::Never {
        assert_ne!(
            exp.state(root),
            State::Mixed,
            "{what}: half recovered, journal gone: {message}"
        );
    }
}

/// One killed run (`exit_at`), one failing recovery (`spec`) and a healthy
/// one. Returns false once the failing recovery fails nowhere.
fn recover_once(exp: &Expected, exit_at: &str, spec: &str, user: User) -> bool {
    let (_dir, root) = exp.template.copy();
    let killed = run(
        &root,
        exp.template.place.args(),
        &[("GIT_FUZZY_APPLY_TEST_EXIT_AT", exit_at)],
    );
    assert_eq!(killed.status.code(), Some(137), "{}", stderr(&killed));
    if user == User::BeforeRecovery {
        rewrite_mine(&root);
    }
    let what = format!(
        "{:?} killed at {exit_at}, recovery fails at {spec}, user {user:?}",
        exp.template.place
    );
    let out = run(
        &root,
        &["--recover"],
        &[("GIT_FUZZY_APPLY_TEST_FAIL_AT", spec)],
    );
    let err = stderr(&out);
    let failed = injected(&out);
    match &failed {
        None => assert_eq!(out.status.code(), Some(0), "{what}: {err}"),
        Some(step) => {
            let code = out.status.code();
            // Exit 0 only for a step whose failure costs nothing (an empty
            // directory left, a lock file nobody holds).
            assert!(
                code == Some(2) || code == Some(0) && BEST_EFFORT.contains(&step.as_str()),
                "{what} ({step}): {err}"
            );
            if code == Some(2) {
                assert_failed_recovery(exp, &root, user, &err, &format!("{what} ({step})"));
            }
        }
    }
    if user == User::BeforeRecovery {
        assert_mine_kept(&root, &what);
    }
    if user == User::BetweenRecoveries {
        rewrite_mine(&root);
    }
    if exp.template.place == Place::Index {
        rewrite_index(&root);
    }
    let again = run(&root, &["--recover"], &[]);
    let again_err = stderr(&again);
    assert_eq!(
        again.status.code(),
        Some(0),
        "{what}, again: {err}\n{again_err}"
    );
    let step = failed.as_deref().unwrap_or("nothing");
    let what = format!("{what} ({step}), recovered again ({err} / {again_err})");
    if user == User::Never {
        exp.assert_settled(&root, &what);
    } else {
        assert_mine_kept(&root, &what);
        let untouched = files(&root).get(Path::new("keep.txt")).cloned();
        assert_eq!(
            untouched,
            exp.before.get(Path::new("keep.txt")).cloned(),
            "{what}"
        );
        // Backups of the user's files are kept and named; nothing else.
        let (backups, left): (Vec<String>, Vec<String>) = leftovers(&root)
            .into_iter()
            .filter(|l| !root.join(l).is_dir())
            .partition(|l| l.contains(".fuzzy-apply-old-"));
        assert_eq!(left, Vec::<String>::new(), "{what}");
        for backup in backups {
            let name = Path::new(&backup).file_name().unwrap().to_string_lossy();
            assert!(
                err.contains(&*name) || again_err.contains(&*name),
                "{what}: {backup} kept and not named"
            );
        }
    }
    failed.is_some()
}

/// Sweeps recovery after every interrupted state of `place`. Returns the
/// number of (state, mode, user) combinations and of failing recoveries.
pub(super) fn sweep_recoveries(place: Place) -> (usize, usize) {
    let exp = Expected::new(place);
    let states = interrupted_states(&exp);
    assert!(states.len() > 5, "{states:?}");
    let (mut combinations, mut failures) = (0, 0);
    for exit_at in &states {
        for (sticky, user) in [
            (false, User::Never),
            (true, User::Never),
            (false, User::BeforeRecovery),
            (true, User::BetweenRecoveries),
        ] {
            combinations += 1;
            for n in 1.. {
                let spec = if sticky {
                    format!("{n}..")
                } else {
                    n.to_string()
                };
                if !recover_once(&exp, exit_at, &spec, user) {
                    break;
                }
                failures += 1;
            }
        }
    }
    (combinations, failures)
}

#[test]
fn recovery_s_own_writes_fail_at_every_step_outside_a_repository() {
    let (combinations, failures) = sweep_recoveries(Place::Outside);
    eprintln!("outside: {combinations} interrupted states × modes, {failures} failing recoveries");
    assert!(failures > combinations * 3, "{combinations} {failures}");
}

#[test]
fn recovery_s_own_writes_fail_at_every_step_with_index() {
    let (combinations, failures) = sweep_recoveries(Place::Index);
    eprintln!("--index: {combinations} interrupted states × modes, {failures} failing recoveries");
    assert!(failures > combinations * 3, "{combinations} {failures}");
}
