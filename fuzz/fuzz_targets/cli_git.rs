//! Fuzz target `cli_git`: what the command does in a git repository
//! (`--index`, `--cached`, the clean-check of `--index`, staging, the index
//! lock) and what a full disk at any write step leaves, before and after
//! `--recover`, in a repository or a plain directory.
//!
//! The input is `flags, fault, patch, (0xFF, selector, content)*`. The
//! sections after the patch fill the tree as in the `cli` target (`selector`
//! picks one of six paths; bit 6 makes it a symbolic link, bit 7
//! executable). Bits of `flags`: 0 `-R`, 1 `--partial`, 2 `--reject`,
//! 3 `--check` (as in `cli`); bits 4-5 where the run happens: 0 a plain
//! directory, 1 a repository (working tree only), 2 a repository with
//! `--index`, 3 with `--cached`; bit 6 injects a fault; bit 7 makes the
//! repository dirty (the first file differs from its index entry, the last
//! is not in the index). In a repository every other file is staged (an
//! index written in process with gix, in a `.git` copied from a template
//! made once per process; no commit). Bits of `fault`: 0-5 pick the write
//! step `N` (modulo the steps a fault-free run takes); 6 has the user
//! rewrite, before recovering, every file the failed run changed; 7 keeps
//! the disk full from step `N` on (undoing fails too).
//!
//! Checked on every input, on a fault-free run:
//! - never a panic, never a write outside the tree, no journal, lock,
//!   staged file, backup or `index.lock` left;
//! - the index stays sound: it reads back, its entries are sorted with no
//!   path twice at one stage (`git fsck`, `git status` need that), no path
//!   is both a file and a directory, every blob it names is stored;
//! - when the run wrote: with `--index`, each path the plan touched has
//!   the entry of what the working tree holds there (the bytes or link
//!   target, the executable bit), or none when the tree has none; with
//!   `--cached`, the entry of the planned content (none for a deletion),
//!   and the working tree is as before; every other entry is unchanged;
//! - when it did not write: tree and index are as before.
//!
//! With a fault (`GIT_FUZZY_APPLY_TEST_FAIL_AT`'s in-process form, the
//! `test-hooks` feature), on a second copy of the same tree:
//! - the failed run leaves the tree and index all as before or all as the
//!   fault-free run left them, and says which, or keeps the journal and
//!   says to run `--recover`; staged files and backups only beside a
//!   kept journal;
//! - after `recover` (what `--recover` runs) with the disk sound again: all
//!   as before or all as after (tree and index together), nothing of the
//!   tool's left (an empty directory only when removing one was a failed
//!   step: that removal is best effort, as in git), a sound index; a tree
//!   the failed run said was settled is not changed by recovery;
//! - with the user's rewrites: recovery keeps every one of them.

#![no_main]

use git_fuzzy_apply::in_process::{self, Faults};
use git_fuzzy_apply::{
    ApplyOptions, Destination, Invocation, Outcome, Recovery, RunError, recover, run,
};
use gix::index::entry::Mode;
use libfuzzer_sys::fuzz_target;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

#[path = "cli_git/scene.rs"]
mod scene;

use scene::{
    Entry, IndexEntry, State, blob_of, build, copy_dir, journal_kept, leftovers, stage, state,
    template, tree,
};

/// Where a run happens and how, from the flags byte.
struct Setup {
    repo: bool,
    destination: Destination,
    dirty: bool,
    inv: Invocation,
}

fn setup(flags: u8, scratch: &Path) -> Setup {
    let place = (flags >> 4) & 3;
    let destination = match place {
        2 => Destination::Index,
        3 => Destination::Cached,
        _ => Destination::Worktree,
    };
    let mut inv = Invocation::default()
        .with_apply(
            ApplyOptions::default()
                .with_reverse(flags & 1 != 0)
                .with_partial(flags & 2 != 0),
        )
        .with_reject(flags & 4 != 0)
        .with_dry_run(flags & 8 != 0)
        .with_destination(destination);
    if place == 0 {
        inv = inv.with_report_path(scratch.join("report").join("last"));
    }
    Setup {
        repo: place != 0,
        destination,
        dirty: place != 0 && flags & 0x80 != 0,
        inv,
    }
}

/// Makes the tree of the input at `root`: files, and in a repository the
/// index (dirty when asked).
fn prepare(root: &Path, sections: &[&[u8]], setup: &Setup) {
    fs::create_dir_all(root).expect("tree");
    if setup.repo {
        copy_dir(template(), &root.join(".git"));
    }
    let made = build(root, sections);
    if !setup.repo {
        return;
    }
    let untracked = if setup.dirty && made.len() > 1 {
        made.last()
    } else {
        None
    };
    stage(root, untracked.map(PathBuf::as_path));
    if setup.dirty
        && let Some(first) = made.first()
        && matches!(tree(root).get(first), Some(Entry::File(..)))
    {
        let mut bytes = fs::read(root.join(first)).unwrap_or_default();
        bytes.extend_from_slice(b"dirty\n");
        let _ = fs::write(root.join(first), bytes);
    }
}

/// The paths the plan of `outcome` touched (old and new paths of every
/// result that changes anything).
fn touched(outcome: &Outcome) -> BTreeSet<String> {
    outcome
        .plan
        .results()
        .filter(|r| r.changes_anything())
        .flat_map(|r| [r.old_path.clone(), r.new_path.clone()])
        .flatten()
        .collect()
}

/// True when git would filter the tree's contents (`.gitattributes`): the
/// blob is then not the bytes themselves.
fn filtered(s: &State) -> bool {
    s.tree
        .keys()
        .any(|p| p.file_name().is_some_and(|n| n == ".gitattributes"))
}

/// The index entries of `s` other than at `paths`.
fn others<'a>(s: &'a State, paths: &BTreeSet<String>) -> Vec<&'a IndexEntry> {
    s.index.iter().filter(|e| !paths.contains(&e.0)).collect()
}

/// The oracles of a fault-free run that wrote, in a repository.
fn check_staged(setup: &Setup, before: &State, after: &State, outcome: &Outcome) {
    if setup.destination == Destination::Worktree {
        assert_eq!(
            after.index, before.index,
            "a working-tree run changed the index"
        );
        return;
    }
    let paths = touched(outcome);
    assert_eq!(
        others(after, &paths),
        others(before, &paths),
        "an entry the run did not touch changed"
    );
    let entry = |p: &str| after.index.iter().find(|e| e.0 == p && e.1 == 0);
    match setup.destination {
        Destination::Index if !filtered(after) => {
            for p in &paths {
                let want = after.tree.get(Path::new(p)).and_then(blob_of);
                let got = entry(p).map(|e| (e.3, e.2));
                assert_eq!(
                    got, want,
                    "--index: {p} staged differs from the working tree"
                );
            }
        }
        Destination::Cached => {
            assert_eq!(after.tree, before.tree, "--cached changed the working tree");
            for r in outcome.plan.results().filter(|r| r.changes_anything()) {
                if let Some(old) = &r.old_path
                    && r.new_path.as_ref() != Some(old)
                    && !paths_new(outcome).contains(old)
                {
                    assert!(
                        entry(old).is_none(),
                        "--cached: {old} moved or deleted, still staged"
                    );
                }
                let Some(new) = &r.new_path else { continue };
                let want = gix::objs::compute_hash(
                    gix::hash::Kind::Sha1,
                    gix::objs::Kind::Blob,
                    &r.new_bytes(),
                )
                .ok();
                let got = entry(new).unwrap_or_else(|| panic!("--cached: {new} not staged"));
                assert_eq!(
                    Some(got.3),
                    want,
                    "--cached: {new} staged differs from the planned content"
                );
                assert_eq!(
                    got.2 == Mode::SYMLINK.bits(),
                    r.new_is_link(),
                    "--cached: {new} link or not"
                );
                if let Some(mode) = r.new_mode.filter(|_| !r.new_is_link()) {
                    let exec = got.2 == Mode::FILE_EXECUTABLE.bits();
                    assert_eq!(
                        exec,
                        mode == 0o100755,
                        "--cached: {new} mode {mode:o}, staged {:o}",
                        got.2
                    );
                }
            }
        }
        _ => {}
    }
}

/// Every new path of the plan.
fn paths_new(outcome: &Outcome) -> BTreeSet<String> {
    outcome
        .plan
        .results()
        .filter(|r| r.changes_anything())
        .filter_map(|r| r.new_path.clone())
        .collect()
}

/// The oracles every fault-free run answers.
fn check_run(
    setup: &Setup,
    root: &Path,
    before: &State,
    result: &Result<Outcome, RunError>,
    planned: &BTreeSet<String>,
) -> State {
    assert_eq!(
        leftovers(root, planned),
        Vec::<String>::new(),
        "left behind: {result:?}"
    );
    let after = state(root);
    match result {
        Ok(o) if o.written => {
            if setup.repo {
                check_staged(setup, before, &after, o);
            } else {
                assert!(after.index.is_empty());
            }
        }
        // A written working tree whose staging failed is put back.
        _ => assert_eq!(
            &after, before,
            "nothing written, yet tree or index changed: {result:?}"
        ),
    }
    after
}

/// True when `err` says that every file is as before the run.
fn said_before(err: &str) -> bool {
    [
        "left as it was",
        "put back as it was",
        "nothing was written",
    ]
    .iter()
    .any(|s| err.contains(s))
}

/// With the fault the input asks for: the failed run, then recovery.
fn check_fault(
    root: &Path,
    setup: &Setup,
    patch: &[u8],
    fault: u8,
    expected: (&State, &State, &BTreeSet<String>),
    steps: usize,
    recovery_fault: u64,
) {
    let (before, after, planned) = expected;
    let n = usize::from(fault & 0x3F) % steps + 1;
    in_process::program(if fault & 0x80 != 0 {
        Faults::From(n)
    } else {
        Faults::At(n)
    });
    let result = run(root, patch, &setup.inv);
    let failed = in_process::failed_steps();
    in_process::program(Faults::None);
    let what = format!(
        "disk full at step {n}{} ({failed:?}): {result:?}",
        if fault & 0x80 != 0 { ".." } else { "" }
    );
    let dir_step = failed.iter().any(|(name, _)| name.contains("directory"));
    let settle = |s: State| -> State { settled_state(s, dir_step) };
    let (before, after) = (settle(before.clone()), settle(after.clone()));
    let now = settle(state(root));
    let kept = journal_kept(root);
    let settled = now == before || now == after;
    match &result {
        Ok(_) => {
            assert!(
                !kept && settled,
                "{what}: a run that ended well left a journal or a mixed tree"
            );
        }
        Err(e) => {
            let msg = e.to_string();
            assert!(settled || kept, "{what}: half written, no journal");
            if kept {
                assert!(msg.contains("--recover"), "{what}: journal kept, not said");
            } else if now == before && now != after {
                assert!(said_before(&msg), "{what}: as before, not said");
            } else if now == after && now != before {
                assert!(
                    msg.contains("the patch was applied"),
                    "{what}: applied, not said"
                );
            }
        }
    }
    let ours_left = leftovers(root, planned)
        .iter()
        .any(|l| l.contains(".fuzzy-apply-") && !l.contains("journal"));
    assert!(
        !ours_left || kept,
        "{what}: staged files or backups without a journal: {:?}",
        leftovers(root, planned)
    );
    let mine = if kept && fault & 0x40 != 0 {
        user_edits(root, &before.tree, &now.tree)
    } else {
        Vec::new()
    };
    // Recovery's own disk fails first (when the input's hash picks a step
    // it reaches); a second recovery, on a sound disk, finishes the job.
    let failing = if kept {
        failing_recovery(root, recovery_fault, (&before, &after), &mine, &what)
    } else {
        Failing::default()
    };
    let first = failing.done;
    let dir_step = dir_step
        || failing
            .steps
            .iter()
            .any(|(name, _)| name.contains("directory"));
    let settle = |s: State| -> State { settled_state(s, dir_step) };
    let (before, after) = (settle(before), settle(after));
    // Run again even after a failing recovery that ended well: a run lock
    // file whose removal failed (best effort: nobody holds it) goes then.
    let recovered = recover(root);
    assert!(recovered.is_ok(), "{what}: recovery failed: {recovered:?}");
    // What recovery left alone keeps its content from before the run in a
    // backup it names (in its report, or in the failed recovery's message):
    // that one stays, for the user.
    let kept_of = |r: Option<&Recovery>| -> Vec<PathBuf> {
        match r {
            Some(
                Recovery::RolledBack { left_alone, .. }
                | Recovery::RolledForward { left_alone, .. },
            ) => left_alone.iter().filter_map(|l| l.kept.clone()).collect(),
            _ => Vec::new(),
        }
    };
    let mut named = kept_of(recovered.as_ref().ok().and_then(Option::as_ref));
    named.extend(kept_of(first.as_ref().and_then(Option::as_ref)));
    named.extend(
        leftovers(root, planned)
            .iter()
            .filter(|l| l.contains(".fuzzy-apply-old-") && failing.message.contains(file_name(l)))
            .map(|l| root.join(l)),
    );
    let left: Vec<String> = leftovers(root, planned)
        .into_iter()
        .filter(|l| !named.contains(&root.join(l)))
        .collect();
    assert_eq!(
        left,
        Vec::<String>::new(),
        "{what}: left after recovery ({recovered:?})"
    );
    let end = settle(state(root));
    if !mine.is_empty() {
        for file in &mine {
            assert_eq!(
                fs::read(root.join(file)).ok().as_deref(),
                Some(&b"the user's own\n"[..]),
                "{what}: recovery overwrote {}",
                file.display()
            );
        }
        return;
    }
    assert!(
        end == before || end == after,
        "{what}: recovered to a mixed tree ({recovered:?}): {end:#?}"
    );
    if !kept {
        assert_eq!(
            end, now,
            "{what}: recovery changed a tree the run had settled"
        );
    }
}

/// `s` without its empty directories when removing one was a failed step:
/// that removal is best effort, as in git.
fn settled_state(s: State, dir_step: bool) -> State {
    if !dir_step {
        return s;
    }
    State {
        tree: s
            .tree
            .into_iter()
            .filter(|(_, e)| *e != Entry::EmptyDir)
            .collect(),
        ..s
    }
}

/// The last component of a path written with `/`.
fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Steps whose failure costs nothing, as in git: an empty directory left,
/// a run lock file nobody holds.
const BEST_EFFORT: [&str; 3] = [
    "remove emptied directory",
    "remove created directory",
    "run lock remove",
];

/// What a recovery whose own disk failed left.
#[derive(Default)]
struct Failing {
    /// The steps that failed.
    steps: Vec<(&'static str, PathBuf)>,
    /// Its error message (empty when it ended well).
    message: String,
    /// Its report, when it ended well (nothing is left for another one).
    done: Option<Option<Recovery>>,
}

/// Recovery with its disk full at step `1 + pick % 16`, for that step only
/// or (bit 8 of `pick`) from it on. When it fails, its message names the
/// file of the step that failed and, while the journal is kept, says to
/// run `--recover` again; without the journal, the tree and index are all
/// before or all after. The user's rewrites are kept either way.
fn failing_recovery(
    root: &Path,
    pick: u64,
    expected: (&State, &State),
    mine: &[PathBuf],
    what: &str,
) -> Failing {
    let n = usize::try_from(pick % 16).unwrap_or(0) + 1;
    let sticky = pick & 0x100 != 0;
    in_process::program(if sticky {
        Faults::From(n)
    } else {
        Faults::At(n)
    });
    let result = recover(root);
    let steps = in_process::failed_steps();
    in_process::program(Faults::None);
    let what = format!(
        "{what}; recovery's disk full at {n}{} ({steps:?}): {result:?}",
        if sticky { ".." } else { "" }
    );
    for file in mine {
        assert_eq!(
            fs::read(root.join(file)).ok().as_deref(),
            Some(&b"the user's own\n"[..]),
            "{what}: the failing recovery overwrote {}",
            file.display()
        );
    }
    let err = match result {
        Ok(done) => {
            assert!(!journal_kept(root), "{what}: recovered, journal kept");
            return Failing {
                steps,
                message: String::new(),
                done: Some(done),
            };
        }
        Err(e) => e.to_string(),
    };
    let Some((step, path)) = steps.iter().find(|(s, _)| !BEST_EFFORT.contains(s)) else {
        panic!("{what}: recovery failed, no step did");
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // A journal's temporary file is named by the journal beside it.
    let named = if name.starts_with(".fuzzy-apply-journal-") {
        path.parent()
            .is_some_and(|dir| err.contains(&format!("{}/", dir.display())))
            && err.contains("journal")
    } else {
        !name.is_empty() && err.contains(&name)
    };
    assert!(
        named,
        "{what}: the message does not name {} ({step})",
        path.display()
    );
    if journal_kept(root) {
        assert!(
            err.contains("--recover") || err.contains("nothing was written"),
            "{what}: journal kept, not said"
        );
        assert!(
            !err.contains("by hand"),
            "{what}: a failed step is no reason to restore by hand"
        );
    } else if mine.is_empty() {
        let dir_step = steps.iter().any(|(name, _)| name.contains("directory"));
        let now = settled_state(state(root), dir_step);
        let (before, after) = expected;
        let (before, after) = (
            settled_state(before.clone(), dir_step),
            settled_state(after.clone(), dir_step),
        );
        assert!(
            now == before || now == after,
            "{what}: half recovered, journal gone"
        );
    }
    Failing {
        steps,
        message: err,
        done: None,
    }
}

/// FNV-1a of the input: picks recovery's failing step without changing
/// the input's layout (a mutated input picks another).
fn fnv(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The user rewrites every file the failed run changed; returns them.
fn user_edits(
    root: &Path,
    before: &BTreeMap<PathBuf, Entry>,
    now: &BTreeMap<PathBuf, Entry>,
) -> Vec<PathBuf> {
    let changed: BTreeSet<&PathBuf> = before
        .iter()
        .filter(|(p, e)| now.get(*p) != Some(e))
        .map(|(p, _)| p)
        .chain(now.keys().filter(|p| !before.contains_key(*p)))
        .collect();
    let mut mine = Vec::new();
    for rel in changed {
        let path = root.join(rel);
        let is_file = fs::symlink_metadata(&path).map_or(true, |m| m.is_file());
        if !is_file
            || path
                .parent()
                .is_some_and(|p| fs::symlink_metadata(p).is_ok_and(|m| !m.is_dir()))
        {
            continue;
        }
        if let Some(parent) = path.parent() {
            let _ = fs::create_dir_all(parent);
        }
        if fs::write(&path, b"the user's own\n").is_ok() {
            mine.push(rel.clone());
        }
    }
    mine
}

fuzz_target!(|data: &[u8]| {
    let [flags, fault, rest @ ..] = data else {
        return;
    };
    let mut parts = rest.split(|&b| b == 0xFF);
    let patch = parts.next().unwrap_or_default();
    let sections: Vec<&[u8]> = parts.collect();
    let scratch = tempfile::tempdir().expect("scratch");
    fs::write(scratch.path().join("outside.txt"), b"outside\n").expect("outside");
    let setup = setup(*flags, scratch.path());
    let pristine = scratch.path().join("pristine");
    prepare(&pristine, &sections, &setup);
    let root = scratch.path().join("tree");
    copy_dir(&pristine, &root);
    let before = state(&root);
    in_process::program(Faults::None);
    let result = run(&root, patch, &setup.inv);
    let steps = in_process::write_steps();
    assert_eq!(
        fs::read(scratch.path().join("outside.txt")).ok().as_deref(),
        Some(&b"outside\n"[..]),
        "a file outside the tree was written"
    );
    // A file the patch makes may bear a name like the tool's own.
    let planned = match &result {
        Ok(o) if o.written => paths_new(o),
        _ => BTreeSet::new(),
    };
    let after = check_run(&setup, &root, &before, &result, &planned);
    if flags & 0x40 == 0 || steps == 0 {
        return;
    }
    let faulty = scratch.path().join("faulty");
    copy_dir(&pristine, &faulty);
    let expected = (&before, &after, &planned);
    check_fault(&faulty, &setup, patch, *fault, expected, steps, fnv(data));
});
