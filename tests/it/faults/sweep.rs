//! The fault-injection sweep (issue #18): a multi-file run whose disk fails
//! at its 1st, 2nd, 3rd, … write step (`GIT_FUZZY_APPLY_TEST_FAIL_AT=N`,
//! `ENOSPC`) until a run passes every step, and again with a disk that
//! stays full from the `N`th step on (`N..`: undoing fails too), in a plain
//! directory, a repository, with `--index` and with `--cached`. The write
//! steps are every change the run makes to the disk: the run lock, the
//! journal (directory, create, write, fsync, rename, directory fsync, the
//! committed mark, removal), each created directory, staged file, backup,
//! rename and deletion, the blobs, the index and its lock, the clean-up.
//!
//! After each failed run: the files are all as before or all as after and
//! the message says which, or (only when the journal is kept) the message
//! names `--recover`; nothing of ours is left without the journal that
//! recovery reads; a file the user changes before recovering is never
//! overwritten. After `--recover`, or the next plain run: all before or all
//! after (the index with the files), nothing of ours left, no lock.
//!
//! Recovery itself is swept too: a run killed at a known point is recovered
//! with the disk failing at each of recovery's write steps.
//!
//! Every step kind in [`STEPS`] must be failed at least once across the
//! sweeps, and every step the binary announces must be listed: a new write
//! step cannot escape (a unit test in `src/test_hooks.rs` checks that
//! [`STEPS`] names every `Step`, and that every disk write in the commit,
//! journal, lock and index code has its fault point).

use super::index_entries;
use crate::support::scene::{PATCH, commit_all, fill};
use crate::support::{BIN, Entry, WATCHDOG, git, output_within, snapshot, stderr};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;

mod full_disk;
mod recovery;

/// Every write step's name, as `src/test_hooks.rs` names it.
const STEPS: &[&str] = &[
    "journal directory",
    "journal create",
    "journal write",
    "journal fsync",
    "journal rename",
    "journal directory fsync",
    "journal remove",
    "create directory",
    "staged file create",
    "staged file write",
    "staged file mode",
    "backup link",
    "rename into place",
    "delete",
    "remove backup",
    "remove emptied directory",
    "restore backup",
    "remove staged file",
    "remove added file",
    "remove created directory",
    "run lock create",
    "run lock record",
    "run lock remove",
    "stale index lock remove",
    "index lock",
    "blob write",
    "index write",
    "index commit",
];

/// Steps whose failure is ignored, as git ignores it: an empty directory
/// left (git tracks none), or a run lock file nobody holds (no lock: the
/// next run takes it and removes it).
const BEST_EFFORT: &[&str] = &[
    "remove emptied directory",
    "remove created directory",
    "run lock remove",
];

/// The step kinds failed so far, by every test of this file.
static FAILED: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// Where a run happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Outside,
    Repo,
    Index,
    /// `--cached`: only the index is written (no journal); its state tells
    /// before from after.
    Cached,
}

impl Place {
    fn args(self) -> &'static [&'static str] {
        match self {
            Place::Index => &["--index", "../patch"],
            Place::Cached => &["--cached", "../patch"],
            _ => &["../patch"],
        }
    }
}

/// A prepared tree to copy from (copying is faster than `git init`, `add`
/// and `commit` for every step).
struct Template {
    _dir: tempfile::TempDir,
    root: PathBuf,
    place: Place,
}

impl Template {
    fn new(place: Place) -> Template {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("tree");
        fill(&root);
        if place != Place::Outside {
            commit_all(&root, &["--template="]);
        }
        Template {
            _dir: dir,
            root,
            place,
        }
    }

    /// A fresh copy, with the patch beside it at `../patch`.
    fn copy(&self) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("tree");
        let status = Command::new("cp")
            .arg("-a")
            .arg(&self.root)
            .arg(&root)
            .status()
            .expect("cp runs");
        assert!(status.success());
        fs::write(dir.path().join("patch"), PATCH).unwrap();
        (dir, root)
    }
}

/// Runs the tool in `root` with `args` and the hook variables `env`, on one
/// thread (so the `N`th step is the same step every time).
fn run(root: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .current_dir(root)
        .env("RAYON_NUM_THREADS", "1")
        .env_remove("GIT_FUZZY_APPLY_TEST_EXIT_AT")
        .env_remove("GIT_FUZZY_APPLY_TEST_PAUSE_AT")
        .env_remove("GIT_FUZZY_APPLY_TEST_FAIL_AT");
    for (k, v) in env {
        command.env(k, v);
    }
    output_within(&mut command, b"", WATCHDOG)
}

/// The first step the run's disk failed at, as the binary announced it.
/// Every step failed is announced; all are recorded as reached.
fn injected(out: &Output) -> Option<String> {
    let err = stderr(out);
    let mut first = None;
    for line in err
        .lines()
        .filter(|l| l.contains("test fault at write step"))
    {
        let name = line
            .split_once(" (")
            .and_then(|(_, rest)| rest.split_once(':'))
            .map(|(name, _)| name.to_string())
            .unwrap_or_default();
        assert!(
            STEPS.contains(&name.as_str()),
            "unlisted step {name:?}: {line}"
        );
        FAILED.lock().unwrap().insert(name.clone());
        first.get_or_insert(name);
    }
    first
}

/// True for the files this tool makes and removes: staged files, backups,
/// journals (and their temporary files), run locks.
fn ours(name: &str) -> bool {
    name.starts_with(".fuzzy-apply-") || name.starts_with(".git-fuzzy-apply.")
}

/// The tree as git sees it: files and links (a directory is there only by
/// what it holds), without anything of ours.
fn files(root: &Path) -> BTreeMap<PathBuf, Entry> {
    snapshot(root)
        .into_iter()
        .filter(|(path, entry)| {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            !matches!(entry, Entry::Dir(_)) && !ours(name)
        })
        .collect()
}

/// Everything of ours left in the tree and in `.git`, and empty directories.
fn leftovers(root: &Path) -> Vec<String> {
    let mut left: Vec<String> = snapshot(root)
        .into_iter()
        .filter(|(path, entry)| {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            ours(name)
                || matches!(entry, Entry::Dir(_))
                    && fs::read_dir(root.join(path)).is_ok_and(|mut d| d.next().is_none())
        })
        .map(|(path, _)| path.display().to_string())
        .collect();
    let git_dir = root.join(".git");
    for name in ["index.lock", "fuzzy-apply/journal", "fuzzy-apply/lock"] {
        if git_dir.join(name).exists() {
            left.push(format!(".git/{name}"));
        }
    }
    if let Ok(dir) = fs::read_dir(git_dir.join("fuzzy-apply")) {
        for entry in dir.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with(".fuzzy-apply-journal-") {
                left.push(format!(".git/fuzzy-apply/{name}"));
            }
        }
    }
    left
}

/// The journal a run in `root` keeps for recovery, if it is there.
fn journal_kept(root: &Path) -> bool {
    root.join(".git-fuzzy-apply.journal").exists() || root.join(".git/fuzzy-apply/journal").exists()
}

/// What the tree holds: all before, all after, or neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Before,
    After,
    Mixed,
}

/// The expected trees (and, with `--index`, indexes) of a scenario.
struct Expected {
    template: Template,
    before: BTreeMap<PathBuf, Entry>,
    after: BTreeMap<PathBuf, Entry>,
    index_before: Option<String>,
    index_after: Option<String>,
}

impl Expected {
    fn new(place: Place) -> Expected {
        let template = Template::new(place);
        let (_dir, root) = template.copy();
        let before = files(&root);
        let index_before = (place != Place::Outside).then(|| index_entries(&root));
        let out = run(&root, place.args(), &[]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(injected(&out).is_none());
        let after = files(&root);
        // `--cached` leaves the working tree as it is.
        assert_eq!(place == Place::Cached, before == after);
        assert_eq!(leftovers(&root), Vec::<String>::new());
        let index_after =
            matches!(place, Place::Index | Place::Cached).then(|| index_entries(&root));
        if place == Place::Cached {
            assert_ne!(index_after, index_before);
        }
        Expected {
            template,
            before,
            after,
            index_before,
            index_after,
        }
    }

    fn state(&self, root: &Path) -> State {
        if self.template.place == Place::Cached {
            let now = Some(index_entries(root));
            return if now == self.index_before {
                State::Before
            } else if now == self.index_after {
                State::After
            } else {
                State::Mixed
            };
        }
        let now = files(root);
        if now == self.before {
            State::Before
        } else if now == self.after {
            State::After
        } else {
            State::Mixed
        }
    }

    /// After recovery: all before or all after, the index with the files,
    /// nothing of ours or git's lock left, the repository sound.
    fn assert_settled(&self, root: &Path, what: &str) -> State {
        let state = self.state(root);
        assert_ne!(state, State::Mixed, "{what}: {:#?}", files(root));
        let mut left = leftovers(root);
        // An empty directory whose removal failed (best effort, as in git)
        // stays; nothing else may.
        if what.contains("directory)") {
            left.retain(|l| !root.join(l).is_dir());
        }
        assert_eq!(left, Vec::<String>::new(), "{what}");
        if self.template.place != Place::Outside {
            let index = index_entries(root);
            match (state, self.template.place) {
                (State::Before, _) => {
                    assert_eq!(Some(&index), self.index_before.as_ref(), "{what}")
                }
                (_, Place::Index | Place::Cached) => {
                    assert_eq!(Some(&index), self.index_after.as_ref(), "{what}")
                }
                _ => assert_eq!(Some(&index), self.index_before.as_ref(), "{what}"),
            }
            git(root, &["fsck", "--no-progress"]);
        }
        state
    }
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

/// Checks a run whose disk failed at `step`: its exit, what it left, and
/// that its message says so. Returns the state it left.
fn assert_failed_run(exp: &Expected, root: &Path, out: &Output, step: &str, what: &str) -> State {
    let err = stderr(out);
    let state = exp.state(root);
    let kept = journal_kept(root);
    if out.status.code() == Some(0) {
        // A fault the run could do without (the committed mark once the
        // index is written) or a best-effort step: the run is complete.
        assert_eq!(state, State::After, "{what}: {err}");
        let left = leftovers(root);
        if !BEST_EFFORT.contains(&step) {
            assert_eq!(left, Vec::<String>::new(), "{what}: {err}");
        }
        assert!(!kept, "{what}: exit 0 with a journal kept");
        return state;
    }
    assert_eq!(out.status.code(), Some(2), "{what}: {err}");
    assert!(err.contains("No space left on device"), "{what}: {err}");
    match state {
        State::Before => assert!(
            said_before(&err) || kept,
            "{what}: the message does not say the files are as before: {err}"
        ),
        // (Or, when undoing failed too, the journal is kept, as checked
        // below with the message.)
        State::After => assert!(
            err.contains("the patch was applied") || kept,
            "{what}: the message does not say the files are new: {err}"
        ),
        State::Mixed => assert!(kept, "{what}: files half written and no journal: {err}"),
    }
    let ours_left = leftovers(root)
        .iter()
        .any(|l| l.contains(".fuzzy-apply-") && !l.contains("journal"));
    if ours_left {
        assert!(
            kept,
            "{what}: staged files or backups left without a journal"
        );
    }
    if kept {
        assert!(
            err.contains("--recover"),
            "{what}: journal kept, not said: {err}"
        );
    } else {
        // A journal the message names as kept must be there for
        // `--recover` to read.
        assert!(
            !err.contains(" is kept:") && !err.contains("could not be removed"),
            "{what}: a journal said to be kept, and none is there: {err}"
        );
    }
    state
}

/// Sweeps one scenario in one mode (`sticky`: every step from the `N`th on
/// fails). Returns the number of write steps of a run that fails nowhere.
fn sweep(exp: &Expected, sticky: bool) -> usize {
    let args = exp.template.place.args();
    for n in 1.. {
        let spec = if sticky {
            format!("{n}..")
        } else {
            n.to_string()
        };
        let (_dir, root) = exp.template.copy();
        let out = run(&root, args, &[("GIT_FUZZY_APPLY_TEST_FAIL_AT", &spec)]);
        let Some(step) = injected(&out) else {
            assert_eq!(out.status.code(), Some(0), "step {spec}: {}", stderr(&out));
            assert_eq!(exp.assert_settled(&root, "complete"), State::After);
            return n - 1;
        };
        let what = format!("{:?} fail at {spec} ({step})", exp.template.place);
        let state = assert_failed_run(exp, &root, &out, &step, &what);
        let kept = journal_kept(&root);
        if kept {
            user_edit_survives_recovery(exp, &spec, &what);
        }
        if n % 2 == 1 {
            let recovered = run(&root, &["--recover"], &[]);
            assert_eq!(
                recovered.status.code(),
                Some(0),
                "{what}: {}",
                stderr(&recovered)
            );
            let settled = exp.assert_settled(&root, &format!("{what}, recovered"));
            // A run that said where it left the files, and kept no journal
            // for recovery to finish, is not changed by recovery.
            if !kept {
                assert_eq!(settled, state, "{what}: recovery changed a settled tree");
            }
        }
        // The next plain run (recovering first if need be) applies the
        // patch, or finds it applied.
        let next = run(&root, args, &[]);
        assert!(
            next.status.code() == Some(0) || exp.state(&root) == State::After,
            "{what}, next run: {}",
            stderr(&next)
        );
        assert_eq!(
            exp.assert_settled(&root, &format!("{what}, next run")),
            State::After
        );
    }
    unreachable!()
}

/// Replays the failed run `spec` on a fresh copy, then the user rewrites
/// every file the run touched before recovering: recovery keeps every one
/// of those edits.
fn user_edit_survives_recovery(exp: &Expected, spec: &str, what: &str) {
    let (_dir, root) = exp.template.copy();
    let out = run(
        &root,
        exp.template.place.args(),
        &[("GIT_FUZZY_APPLY_TEST_FAIL_AT", spec)],
    );
    assert!(journal_kept(&root), "{what}: the replay differs");
    let mine = ["a.txt", "old/b.txt", "new/c.txt"].map(|f| root.join(f));
    for file in &mine {
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(file, "the user's own\n").unwrap();
    }
    let recovered = run(&root, &["--recover"], &[]);
    assert_eq!(
        recovered.status.code(),
        Some(0),
        "{what}: {}",
        stderr(&recovered)
    );
    for file in &mine {
        assert_eq!(
            fs::read_to_string(file).unwrap(),
            "the user's own\n",
            "{what}: recovery overwrote {} ({}; {})",
            file.display(),
            stderr(&out),
            stderr(&recovered)
        );
    }
    let left: Vec<String> = leftovers(&root)
        .into_iter()
        .filter(|l| l.contains("journal") || l.contains("lock"))
        .collect();
    assert_eq!(left, Vec::<String>::new(), "{what}");
}

/// Kills a run at the `occurrence`th time it passes the checkpoint `name`
/// (on a fresh copy), then sweeps `--recover` with the disk failing at each
/// of its write steps; a clean `--recover` then settles the tree.
fn sweep_recovery(exp: &Expected, name: &str, occurrence: usize) -> usize {
    let args = exp.template.place.args();
    let mut exit_at = None;
    let mut seen = 0;
    for k in 1..200 {
        let (_dir, root) = exp.template.copy();
        let out = run(
            &root,
            args,
            &[("GIT_FUZZY_APPLY_TEST_EXIT_AT", &k.to_string())],
        );
        assert_eq!(
            out.status.code(),
            Some(137),
            "no checkpoint {name:?}: {}",
            stderr(&out)
        );
        if stderr(&out).contains(&format!("({name})")) {
            seen += 1;
            if seen == occurrence {
                exit_at = Some(k.to_string());
                break;
            }
        }
    }
    let exit_at = exit_at.expect("checkpoint reached");
    for n in 1.. {
        let (_dir, root) = exp.template.copy();
        let killed = run(&root, args, &[("GIT_FUZZY_APPLY_TEST_EXIT_AT", &exit_at)]);
        assert_eq!(killed.status.code(), Some(137));
        let out = run(
            &root,
            &["--recover"],
            &[("GIT_FUZZY_APPLY_TEST_FAIL_AT", &n.to_string())],
        );
        let what = format!(
            "{:?} killed at {name} #{occurrence}, recovery fails at {n}",
            exp.template.place
        );
        let Some(step) = injected(&out) else {
            assert_eq!(out.status.code(), Some(0), "{what}: {}", stderr(&out));
            exp.assert_settled(&root, &what);
            return n - 1;
        };
        let err = stderr(&out);
        if !BEST_EFFORT.contains(&step.as_str()) {
            assert_eq!(out.status.code(), Some(2), "{what} ({step}): {err}");
            assert!(
                journal_kept(&root) || exp.state(&root) != State::Mixed,
                "{what} ({step}): half recovered, journal gone: {err}"
            );
        }
        let again = run(&root, &["--recover"], &[]);
        assert_eq!(
            again.status.code(),
            Some(0),
            "{what} ({step}): {}",
            stderr(&again)
        );
        exp.assert_settled(&root, &format!("{what} ({step}), recovered again"));
    }
    unreachable!()
}

fn sweep_place(place: Place) -> Vec<usize> {
    let exp = Expected::new(place);
    let once = sweep(&exp, false);
    let sticky = sweep(&exp, true);
    assert_eq!(once, sticky, "the runs that fail nowhere differ");
    let mut counts = vec![once];
    if matches!(place, Place::Outside | Place::Index) {
        counts.push(sweep_recovery(&exp, "replaced", 1));
        counts.push(sweep_recovery(&exp, "marked committed", 1));
    }
    if matches!(place, Place::Index | Place::Cached) {
        counts.push(sweep_recovery(&exp, "locked", 1));
    }
    eprintln!("{place:?}: {counts:?} write steps swept (run, recoveries)");
    counts
}

#[test]
fn the_disk_fails_at_every_write_step_in_a_repository() {
    let counts = sweep_place(Place::Repo);
    assert!(counts[0] > 20, "{counts:?}");
}

#[test]
fn the_disk_fails_at_every_write_step_with_cached() {
    // Found by the fuzz target `cli_git`: a full disk while the index was
    // written said only "No space left on device", not that the index was
    // left as it was (fuzz/regressions/cli_git/cached-index-commit-fails).
    let counts = sweep_place(Place::Cached);
    assert!(counts[0] > 5, "{counts:?}");
}

#[test]
fn the_disk_fails_at_every_write_step_outside_a_repository_and_with_index() {
    // The two sweeps side by side; together they reach every step.
    let outside = std::thread::spawn(|| sweep_place(Place::Outside));
    let index = sweep_place(Place::Index);
    let outside = outside.join().unwrap();
    assert!(
        outside[0] > 20 && index[0] > outside[0],
        "{outside:?} {index:?}"
    );
    let failed = FAILED.lock().unwrap().clone();
    let missed: Vec<&&str> = STEPS.iter().filter(|s| !failed.contains(**s)).collect();
    assert!(missed.is_empty(), "write steps never reached: {missed:?}");
}
