//! Recovery after an interrupted run (issue #18): it never overwrites what
//! the user changed since, it runs only under the lock, only on journals
//! this tool wrote for this very tree, and never in a run that must not
//! write (`--check`, `--stat`).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support;
use support::scene::{PATCH, fill, scene};
use support::{BIN, Entry, WATCHDOG, git, output_within, snapshot, stderr, used_pages, with_mount};

fn command(root: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .current_dir(root)
        .env_remove("GIT_FUZZY_APPLY_TEST_EXIT_AT")
        .env_remove("GIT_FUZZY_APPLY_TEST_PAUSE_AT");
    command
}

fn run(root: &Path, args: &[&str]) -> Output {
    output_within(&mut command(root, args), b"", WATCHDOG)
}

fn run_killed_at(root: &Path, args: &[&str], step: usize) -> Output {
    let mut command = command(root, args);
    command.env("GIT_FUZZY_APPLY_TEST_EXIT_AT", step.to_string());
    output_within(&mut command, b"", WATCHDOG)
}

/// The tree the patch makes of the scene.
fn after() -> BTreeMap<PathBuf, Entry> {
    let (_dir, root) = scene(false);
    let out = run(&root, &["../patch"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    snapshot(&root)
}

/// A run started in the background that stops at the test hook's step
/// `step` until [`Paused::resume`].
struct Paused {
    child: Child,
    flag: PathBuf,
}

impl Paused {
    /// Starts `args` in `root`, waits until it stands at `step`.
    fn start(root: &Path, args: &[&str], step: &str, flag: &Path) -> Paused {
        let mut command = command(root, args);
        command
            .env("GIT_FUZZY_APPLY_TEST_PAUSE_AT", step)
            .env("GIT_FUZZY_APPLY_TEST_PAUSE_FILE", flag)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("binary runs");
        let start = Instant::now();
        while !flag.exists() {
            if let Ok(Some(status)) = child.try_wait() {
                let out = child.wait_with_output().expect("output");
                panic!("ended ({status}) before {step}: {}", stderr(&out));
            }
            assert!(start.elapsed() < WATCHDOG, "never reached {step}");
            std::thread::sleep(Duration::from_millis(10));
        }
        Paused {
            child,
            flag: flag.to_path_buf(),
        }
    }

    /// Lets the run go on and waits for it.
    fn resume(self) -> Output {
        fs::remove_file(&self.flag).expect("flag");
        self.child.wait_with_output().expect("output")
    }

    /// Sends `signal` to the paused run and waits for it.
    fn signal(self, signal: &str) -> Output {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args(["-s", signal, &pid]).status();
        assert!(sent.is_ok_and(|s| s.success()));
        let out = self.child.wait_with_output().expect("output");
        let _ = fs::remove_file(&self.flag);
        out
    }
}

// ---------------------------------------------------------------------
// Item 1: recovery never overwrites what the user changed since.

#[test]
fn recovery_leaves_a_file_the_user_changed_since_the_kill() {
    let before = scene(false);
    let before = snapshot(&before.1);
    let after = after();
    let mut edited_once = false;
    for step in 1.. {
        let (_dir, root) = scene(false);
        let out = run_killed_at(&root, &["../patch"], step);
        if out.status.code() == Some(0) {
            break;
        }
        assert_eq!(out.status.code(), Some(137), "{}", stderr(&out));
        // The user edits the file the killed run had already replaced.
        let replaced = fs::read_to_string(root.join("a.txt")).unwrap() == "one\nTWO\nthree\n";
        if !replaced {
            continue;
        }
        edited_once = true;
        fs::write(root.join("a.txt"), "mine\n").unwrap();
        let check = run(&root, &["--check", "../patch"]);
        assert_eq!(
            fs::read_to_string(root.join("a.txt")).unwrap(),
            "mine\n",
            "step {step}: --check: {}",
            stderr(&check)
        );
        let recovered = run(&root, &["--recover"]);
        let err = stderr(&recovered);
        assert_eq!(recovered.status.code(), Some(0), "step {step}: {err}");
        assert_eq!(
            fs::read_to_string(root.join("a.txt")).unwrap(),
            "mine\n",
            "step {step}: {err}"
        );
        // Undone: the edited file is named as left as it is. (Finished
        // instead: the edit stands on the new tree, nothing to say.)
        if err.contains("was undone") {
            assert!(
                err.contains("a.txt") && err.contains("left as it is"),
                "{err}"
            );
        }
        // Nothing else stays half done: apart from a.txt (and the backup
        // of its content before the run, kept where the message says), the
        // tree is entirely before or entirely after the run.
        let others = |tree: &BTreeMap<PathBuf, Entry>| {
            let mut tree = tree.clone();
            tree.remove(Path::new("a.txt"));
            tree.retain(|path, _| !err.contains(&format!("/tree/{}", path.display())));
            tree
        };
        let now = others(&snapshot(&root));
        assert!(
            now == others(&before) || now == others(&after),
            "step {step}: {err}\n{now:?}"
        );
        let again = run(&root, &["--recover"]);
        assert!(
            stderr(&again).contains("no interrupted run"),
            "{}",
            stderr(&again)
        );
    }
    assert!(edited_once, "no step had replaced a.txt");
}

/// A patch file that edits `a.txt`, in a folder of its own (outside the
/// small file systems the tests mount): the folder and the file's path.
fn a_txt_patch() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let patch = dir.path().join("patch");
    fs::write(
        &patch,
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n",
    )
    .unwrap();
    let path = patch.to_str().unwrap().to_string();
    (dir, path)
}

/// The user edits `a.txt` after run `what` (whose error output was
/// `err`): neither a check nor a recovery run may undo that.
#[track_caller]
fn later_runs_keep_an_edit(root: &Path, patch: &str, what: &str, err: &str) {
    fs::write(root.join("a.txt"), "mine\n").unwrap();
    for args in [&["--check", patch][..], &["--recover"][..]] {
        let later = run(root, args);
        assert_eq!(
            fs::read_to_string(root.join("a.txt")).unwrap(),
            "mine\n",
            "{what}: {args:?} after {err}: {}",
            stderr(&later)
        );
    }
}

#[test]
fn a_disk_full_at_any_step_says_what_it_left_and_never_undoes_later_edits() {
    // A tmpfs with room for N pages: for some N the disk is full exactly
    // where the journal is marked committed (one page more than staging
    // needed). Whatever N, the run's message
    // must be true, and a later run must not undo an edit made after it.
    let (_patch_dir, patch) = a_txt_patch();
    let patch = patch.as_str();
    let mut failures = 0;
    for pages in 2..10 {
        with_mount(&format!("size={}k", pages * 4), |root| {
            fs::write(root.join("a.txt"), "one\ntwo\nthree\n").unwrap();
            let before = snapshot(root);
            let out = run(root, &[patch]);
            let err = stderr(&out);
            let now = fs::read_to_string(root.join("a.txt")).unwrap();
            match out.status.code() {
                Some(0) => assert_eq!(now, "one\nTWO\nthree\n", "{pages}: {err}"),
                Some(2) if now == "one\ntwo\nthree\n" => {
                    failures += 1;
                    assert!(
                        err.contains("left as it was") || err.contains("put back"),
                        "{pages}: {err}"
                    );
                    assert_eq!(snapshot(root), before, "{pages}: {err}");
                }
                Some(2) => {
                    failures += 1;
                    assert_eq!(now, "one\nTWO\nthree\n", "{pages}: {err}");
                    assert!(
                        err.contains("was applied"),
                        "{pages}: a run that fails after its files are new must say so: {err}"
                    );
                }
                other => panic!("{pages}: exit {other:?}: {err}"),
            }
            later_runs_keep_an_edit(root, patch, &pages.to_string(), &err);
        });
    }
    eprintln!("{failures} of 8 runs failed for want of space");
    assert!(failures > 0, "no run ran out of space");
}

// ---------------------------------------------------------------------
// Item 2: the lock first, then the journal.

#[test]
fn two_runs_after_a_killed_run_do_not_both_recover() {
    let (dir, root) = scene(false);
    // Killed once files are replaced: a journal to roll back.
    let mut step = 1;
    loop {
        let (_d, probe) = scene(false);
        let out = run_killed_at(&probe, &["../patch"], step);
        assert_eq!(out.status.code(), Some(137));
        if fs::read_to_string(probe.join("a.txt")).unwrap() != "one\ntwo\nthree\n" {
            break;
        }
        step += 1;
    }
    let out = run_killed_at(&root, &["../patch"], step);
    assert_eq!(out.status.code(), Some(137));
    let flag = dir.path().join("paused");
    // The first run to come stops just before it would act on the journal…
    let first = Paused::start(&root, &["../patch"], "recovering", &flag);
    // …and a second one comes meanwhile.
    let second = run(&root, &["../patch"]);
    let first = first.resume();
    let (e1, e2) = (stderr(&first), stderr(&second));
    let recovered = [&e1, &e2]
        .iter()
        .filter(|e| e.contains("was undone"))
        .count();
    assert!(recovered <= 1, "both recovered:\n{e1}\n---\n{e2}");
    assert_eq!(first.status.code(), Some(0), "{e1}");
    assert_eq!(second.status.code(), Some(2), "{e2}");
    assert!(e2.contains("working on this tree"), "{e2}");
    assert_eq!(snapshot(&root), after());
}

#[test]
fn a_reader_never_rolls_back_a_live_run() {
    for repo in [false, true] {
        let (dir, root) = scene(repo);
        let flag = dir.path().join("paused");
        // A live run stands after its renames, before it is finished.
        let live = Paused::start(&root, &["../patch"], "replaced", &flag);
        for args in [
            &["--check", "../patch"][..],
            &["../patch"][..],
            &["--recover"][..],
        ] {
            let other = run(&root, args);
            assert!(
                !stderr(&other).contains("undone"),
                "{args:?}: {}",
                stderr(&other)
            );
        }
        let live = live.resume();
        assert_eq!(live.status.code(), Some(0), "{}", stderr(&live));
        assert_eq!(snapshot(&root), after(), "repo: {repo}");
    }
}

/// A tree where `--reject` writes `a.txt` and then fails on its `.rej` file
/// (a directory stands there), so that the run undoes what it wrote: the
/// tree, and the patch at `../patch` (its second hunk does not apply).
fn undone_scene() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tree");
    fs::create_dir_all(root.join("a.txt.rej")).unwrap();
    fs::write(root.join("a.txt"), "one\ntwo\nthree\n").unwrap();
    let patch = "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n\
                 @@ -10,3 +10,3 @@\n nine\n-ten\n+TEN\n eleven\n";
    fs::write(dir.path().join("patch"), patch).unwrap();
    (dir, root)
}

#[test]
fn an_undone_run_says_which_file_it_left_as_it_is() {
    // Undone with nothing in its way: every file put back, and said so.
    let (_dir, root) = undone_scene();
    let out = run(&root, &["--reject", "../patch"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(
        fs::read_to_string(root.join("a.txt")).unwrap(),
        "one\ntwo\nthree\n"
    );
    assert!(
        err.trim_end()
            .ends_with("the working tree was put back as it was"),
        "{err}"
    );
    // Someone writes a.txt while the run stands after replacing it: the
    // undoing leaves that file as it is, keeps its content from before the
    // run, and the message says so for that file instead of "put back".
    let (dir, root) = undone_scene();
    let flag = dir.path().join("paused");
    let paused = Paused::start(&root, &["--reject", "../patch"], "replaced", &flag);
    fs::write(root.join("a.txt"), "mine\n").unwrap();
    let out = paused.resume();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "mine\n");
    let backups: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".fuzzy-apply-old-"))
        .collect();
    let [backup] = backups.as_slice() else {
        panic!("one backup kept: {backups:?}; {err}");
    };
    assert_eq!(fs::read_to_string(backup).unwrap(), "one\ntwo\nthree\n");
    assert!(
        !err.trim_end().ends_with("put back as it was"),
        "the message must not say every file was put back: {err}"
    );
    let said = err.lines().any(|l| {
        l.contains("a.txt") && l.contains("left as it is") && l.contains(&*backup.to_string_lossy())
    });
    assert!(said, "a.txt named as left as it is, with its backup: {err}");
}

/// A committed repository holding `a.txt` (2,000 lines) and, at `../patch`,
/// a patch changing its line 999; returns the file's lines.
fn index_scene(dir: &Path) -> (PathBuf, String) {
    let root = dir.join("tree");
    fs::create_dir(&root).unwrap();
    let lines: String = (0..2000).map(|i| format!("line {i}\n")).collect();
    fs::write(root.join("a.txt"), &lines).unwrap();
    support::scene::commit_all(&root, &[]);
    let patch = "--- a/a.txt\n+++ b/a.txt\n@@ -1000,3 +1000,3 @@\n line 998\n-line 999\n+line 999 changed\n line 1000\n";
    fs::write(dir.join("patch"), patch).unwrap();
    (root, lines)
}

/// `--index` stages the bytes the run wrote, read back from the working
/// tree (one rendering feeds both): a file another process changed between
/// its rename and the staging is not staged as the patch's result beside
/// the changed file's stat data (which would hide the change from `git
/// status`); the run is undone instead, the index keeps its entry, and the
/// other process's change stays.
#[test]
fn index_stages_what_was_written_or_nothing() {
    let args = ["--index", "../patch"];
    let dir = tempfile::tempdir().unwrap();
    let (root, lines) = index_scene(dir.path());
    let flag = dir.path().join("paused");
    let paused = Paused::start(&root, &args, "replaced", &flag);
    let mut edited = fs::read(root.join("a.txt")).unwrap();
    assert!(String::from_utf8_lossy(&edited).contains("line 999 changed\n"));
    edited.extend_from_slice(b"a line another process added\n");
    fs::write(root.join("a.txt"), &edited).unwrap();
    let out = paused.resume();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("changed the file after the patch wrote it"),
        "{err}"
    );
    assert_eq!(git(&root, &["show", ":a.txt"]), lines);
    assert_eq!(fs::read(root.join("a.txt")).unwrap(), edited);
    let status = git(&root, &["status", "--porcelain"]);
    assert!(status.starts_with(" M a.txt\n"), "{status}");
    // Undisturbed, the staged blob is the bytes written, byte for byte.
    let dir = tempfile::tempdir().unwrap();
    let (root, _) = index_scene(dir.path());
    let out = run(&root, &args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let staged = git(&root, &["show", ":a.txt"]);
    assert_eq!(staged.as_bytes(), fs::read(root.join("a.txt")).unwrap());
    assert!(staged.contains("line 999 changed\n"));
    assert_eq!(git(&root, &["status", "--porcelain"]), "M  a.txt\n");
}

// ---------------------------------------------------------------------
// Item 3: only journals this tool wrote for this tree.

/// A journal as an attacker would ship it inside a folder: its entries
/// point outside the folder.
/// A journal of the current format naming `target`, planted in `root`:
/// with `tree` (device, inode) of the folder itself when `same_tree`, so
/// that only the confinement of its paths to the tree stands between it
/// and the files it names.
fn planted_journal(target: &str, root: &Path, same_tree: bool) -> String {
    use std::os::unix::fs::MetadataExt;
    let meta = fs::metadata(root).unwrap();
    let (device, inode) = if same_tree {
        (meta.dev(), meta.ino())
    } else {
        (meta.dev(), meta.ino() + 1)
    };
    format!(
        r#"{{"version":2,"pid":4294967295,"index":null,
"entries":[{{"target":"{target}","staged":"no-such-staged","backup":null}}],
"created_dirs":[],"root":"{}","tree":{{"device":{device},"inode":{inode}}},
"committed":false,"rolling_back":false}}"#,
        root.display()
    )
}

#[test]
fn a_planted_journal_is_never_acted_on() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    fs::create_dir(&victim).unwrap();
    fs::write(victim.join("important.txt"), "precious\n").unwrap();
    let folder = dir.path().join("unpacked");
    fill(&folder);
    fs::write(dir.path().join("patch"), PATCH).unwrap();
    let cases = [
        ("relative", "../victim/important.txt".to_string(), true),
        (
            "absolute",
            victim.join("important.txt").display().to_string(),
            true,
        ),
        ("inside, another tree", "keep.txt".to_string(), false),
        ("inside, this tree", "keep.txt".to_string(), true),
    ];
    for (name, target, same_tree) in cases {
        fs::write(
            folder.join(".git-fuzzy-apply.journal"),
            planted_journal(&target, &folder, same_tree),
        )
        .unwrap();
        let before = snapshot(&folder);
        for args in [&["--check", "../patch"][..], &["--stat", "../patch"][..]] {
            let out = run(&folder, args);
            assert_eq!(
                snapshot(&folder),
                before,
                "{name} {args:?}: {}",
                stderr(&out)
            );
            assert_eq!(
                fs::read_to_string(victim.join("important.txt")).unwrap(),
                "precious\n",
                "{name} {args:?}"
            );
        }
        let out = run(&folder, &["--recover"]);
        // Read as a journal of the current format and turned away by the
        // trust checks (not by a parse error).
        assert!(
            stderr(&out).contains("ignored, it was not written by git-fuzzy-apply for this tree"),
            "{name}: {}",
            stderr(&out)
        );
        assert!(folder.join("keep.txt").exists(), "{name}: {}", stderr(&out));
        assert!(victim.join("important.txt").exists(), "{name}");
    }
}

#[test]
fn check_and_stat_write_nothing_and_say_a_recovery_is_pending() {
    let (_dir, root) = scene(true);
    let mut step = 1;
    loop {
        let (_d, probe) = scene(true);
        run_killed_at(&probe, &["../patch"], step);
        if fs::read_to_string(probe.join("a.txt")).unwrap() != "one\ntwo\nthree\n" {
            break;
        }
        step += 1;
    }
    let out = run_killed_at(&root, &["../patch"], step);
    assert_eq!(out.status.code(), Some(137));
    let before = snapshot(&root);
    let journal = root.join(".git/fuzzy-apply/journal");
    let text = fs::read(&journal).unwrap();
    for args in [&["--check", "../patch"][..], &["--stat", "../patch"][..]] {
        let out = run(&root, args);
        assert_eq!(snapshot(&root), before, "{args:?}: {}", stderr(&out));
        assert_eq!(fs::read(&journal).unwrap(), text, "{args:?}");
        assert!(
            stderr(&out).contains("--recover"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    let out = run(&root, &["--recover"]);
    assert!(stderr(&out).contains("undone"), "{}", stderr(&out));
    assert!(!journal.exists());
}

#[test]
fn a_journal_copied_with_its_tree_is_not_recovered_in_the_copy() {
    let (dir, root) = scene(false);
    let mut step = 1;
    loop {
        let (_d, probe) = scene(false);
        run_killed_at(&probe, &["../patch"], step);
        if fs::read_to_string(probe.join("a.txt")).unwrap() != "one\ntwo\nthree\n" {
            break;
        }
        step += 1;
    }
    let out = run_killed_at(&root, &["../patch"], step);
    assert_eq!(out.status.code(), Some(137));
    // The copy has other paths: its journal names the original tree.
    let copy = dir.path().join("copy");
    let status = Command::new("cp")
        .args(["-a"])
        .arg(&root)
        .arg(&copy)
        .status()
        .unwrap();
    assert!(status.success());
    let original = snapshot(&root);
    let out = run(&copy, &["--recover"]);
    assert!(stderr(&out).contains("not written"), "{}", stderr(&out));
    assert_eq!(snapshot(&root), original, "{}", stderr(&out));
}

// ---------------------------------------------------------------------
// Items 6 and 7: locks released on signals, recognised after a kill, and
// real file locks outside a repository.

#[test]
fn a_signal_while_planning_releases_every_lock() {
    for (repo, args) in [
        (true, &["--index", "../patch"][..]),
        (true, &["../patch"][..]),
        (false, &["../patch"][..]),
    ] {
        for signal in ["INT", "TERM", "HUP"] {
            let (dir, root) = scene(repo);
            let before = snapshot(&root);
            let flag = dir.path().join("paused");
            let paused = Paused::start(&root, args, "locked", &flag);
            let out = paused.signal(signal);
            assert_ne!(out.status.code(), Some(0), "{signal}: {}", stderr(&out));
            assert_eq!(
                snapshot(&root),
                before,
                "{signal} {args:?}: {}",
                stderr(&out)
            );
            if repo {
                assert!(!root.join(".git/index.lock").exists(), "{signal} {args:?}");
                // git itself can go on at once.
                git(&root, &["update-index", "--refresh"]);
            }
            let next = run(&root, args);
            assert_eq!(
                next.status.code(),
                Some(0),
                "{signal} {args:?}: {}",
                stderr(&next)
            );
        }
    }
}

#[test]
fn a_signal_during_the_commit_ends_the_run_by_the_signal_once_it_is_whole() {
    use std::os::unix::process::ExitStatusExt;
    let after = after();
    for (repo, args) in [
        (true, &["--index", "../patch"][..]),
        (false, &["../patch"][..]),
    ] {
        for (signal, number) in [("INT", 2), ("TERM", 15), ("HUP", 1)] {
            let (dir, root) = scene(repo);
            let flag = dir.path().join("paused");
            // Stopped inside the commit (its files replaced, not yet marked
            // committed): the signal must wait, then end the run.
            let mut paused = Paused::start(&root, args, "finish", &flag);
            let pid = paused.child.id().to_string();
            let sent = Command::new("kill").args(["-s", signal, &pid]).status();
            assert!(sent.is_ok_and(|s| s.success()));
            std::thread::sleep(Duration::from_millis(200));
            assert!(
                paused.child.try_wait().unwrap().is_none(),
                "{signal}: the signal must wait for the commit"
            );
            let out = paused.resume();
            assert_eq!(
                (out.status.code(), out.status.signal()),
                (None, Some(number)),
                "{signal} {args:?}: {}",
                stderr(&out)
            );
            assert_eq!(
                snapshot(&root),
                after,
                "{signal} {args:?}: the commit is whole"
            );
            let leftovers: Vec<_> = fs::read_dir(&root)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.contains("fuzzy-apply"))
                .collect();
            assert!(leftovers.is_empty(), "{signal}: {leftovers:?}");
            if repo {
                assert!(!root.join(".git/index.lock").exists(), "{signal} {args:?}");
                git(&root, &["update-index", "--refresh"]);
            }
        }
    }
}

#[test]
fn recover_removes_the_index_lock_its_own_dead_run_left_and_no_other() {
    let (dir, root) = scene(true);
    let flag = dir.path().join("paused");
    // Killed (no clean-up at all) while holding the index lock.
    let paused = Paused::start(&root, &["--index", "../patch"], "locked", &flag);
    let out = paused.signal("KILL");
    assert_eq!(out.status.code(), None);
    assert!(root.join(".git/index.lock").exists());
    let recovered = run(&root, &["--recover"]);
    assert_eq!(recovered.status.code(), Some(0), "{}", stderr(&recovered));
    assert!(
        stderr(&recovered).contains("index.lock, which an interrupted"),
        "{}",
        stderr(&recovered)
    );
    assert!(
        !root.join(".git/index.lock").exists(),
        "{}",
        stderr(&recovered)
    );
    // A lock some other git holds is never taken for ours.
    fs::write(root.join(".git/index.lock"), "").unwrap();
    let out = run(&root, &["--recover"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(root.join(".git/index.lock").exists());
    let out = run(&root, &["--index", "../patch"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn a_dead_run_s_index_lock_is_still_known_after_a_second_run_dies_too() {
    let (dir, root) = scene(true);
    let flag = dir.path().join("paused");
    let first = Paused::start(&root, &["--index", "../patch"], "locked", &flag);
    first.signal("KILL");
    // The next run dies too, just after taking the run lock, before it
    // could remove the first one's index.lock.
    let second = Paused::start(&root, &["--index", "../patch"], "run locked", &flag);
    second.signal("KILL");
    assert!(root.join(".git/index.lock").exists());
    let out = run(&root, &["--recover"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!root.join(".git/index.lock").exists(), "{}", stderr(&out));
    let out = run(&root, &["--index", "../patch"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn outside_a_repository_the_lock_is_a_real_file_lock() {
    let (dir, root) = scene(false);
    let lock = root.join(".git-fuzzy-apply.lock");
    // A lock file naming a live process (pid 1) but held by nobody: left by
    // a run that died, whose pid was reused since. Not a live run.
    fs::write(&lock, "1").unwrap();
    let out = run(&root, &["../patch"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!lock.exists());
    // A live run holds it: the second one stops and says so.
    let (_d2, root) = scene(false);
    let flag = dir.path().join("paused");
    let live = Paused::start(&root, &["../patch"], "locked", &flag);
    let second = run(&root, &["../patch"]);
    assert_eq!(second.status.code(), Some(2), "{}", stderr(&second));
    assert!(
        stderr(&second).contains("working on this tree"),
        "{}",
        stderr(&second)
    );
    let live = live.resume();
    assert_eq!(live.status.code(), Some(0), "{}", stderr(&live));
    assert!(!root.join(".git-fuzzy-apply.lock").exists());
}

#[test]
fn a_mapped_file_cut_short_while_it_is_read_ends_the_run_cleanly() {
    // Files of 4 MiB and more are mapped; another process truncating one
    // while it is read used to end the run with SIGBUS.
    let cases = [
        (false, &[][..], "mapped"),
        (true, &["--index"][..], "mapped"),
        (false, &[][..], "journal written"),
    ];
    for (repo, args, step) in cases {
        let (dir, root) = scene(repo);
        let big: String = (0..200_000)
            .map(|i| format!("line {i:06} of a large file\n"))
            .collect();
        fs::write(root.join("big.txt"), &big).unwrap();
        if repo {
            git(&root, &["add", "big.txt"]);
        }
        let patch = dir.path().join("big.patch");
        fs::write(
            &patch,
            "--- a/big.txt\n+++ b/big.txt\n@@\n-line 199999 of a large file\n+LAST\n",
        )
        .unwrap();
        let mut all = args.to_vec();
        all.push("../big.patch");
        let flag = dir.path().join("paused");
        let paused = Paused::start(&root, &all, step, &flag);
        fs::OpenOptions::new()
            .write(true)
            .open(root.join("big.txt"))
            .unwrap()
            .set_len(4096)
            .unwrap();
        let out = paused.resume();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?} {step}: {err}");
        // While planning: named as cut short. While writing: the copy from
        // the shrunk file fails, and every file is left as it was.
        let said = err.contains("cut short") || err.contains("left as it was");
        assert!(err.contains("big.txt") && said, "{step}: {err}");
        assert_eq!(fs::metadata(root.join("big.txt")).unwrap().len(), 4096);
        let ours: Vec<_> = fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains("fuzzy-apply"))
            .collect();
        assert!(ours.is_empty(), "{ours:?}");
        assert!(!root.join(".git/index.lock").exists());
    }
}

#[test]
fn planted_symbolic_links_as_lock_or_journal_are_never_followed() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    fs::create_dir(&victim).unwrap();
    fs::write(victim.join("important.txt"), "precious\n").unwrap();
    let folder = dir.path().join("unpacked");
    fill(&folder);
    fs::write(dir.path().join("patch"), PATCH).unwrap();
    for name in [".git-fuzzy-apply.lock", ".git-fuzzy-apply.journal"] {
        std::os::unix::fs::symlink("../victim/important.txt", folder.join(name)).unwrap();
        for args in [
            &["--check", "../patch"][..],
            &["--recover"][..],
            &["../patch"][..],
        ] {
            let out = run(&folder, args);
            let err = stderr(&out);
            assert_eq!(
                fs::read_to_string(victim.join("important.txt")).unwrap(),
                "precious\n",
                "{name} {args:?}: {err}"
            );
            // Said as it is: never "another run is working", never
            // "restore by hand".
            assert!(
                !err.contains("working on this tree"),
                "{name} {args:?}: {err}"
            );
            assert!(!err.contains("by hand"), "{name} {args:?}: {err}");
            // (`--check` takes no lock: nothing to say about a lock file.)
            if args[0] != "--check" || name.ends_with("journal") {
                assert!(err.contains("symbolic link"), "{name} {args:?}: {err}");
            }
        }
        let _ = fs::remove_file(folder.join(name));
    }
}

#[test]
fn what_a_run_wrote_is_recognised_for_every_kind_of_content() {
    // The identity recorded for each new content must match the file the
    // rename put in place, however it was written: a mapped file rendered
    // with kernel copies, a small edited file, an added file, a deletion.
    let (dir, root) = scene(false);
    let big: String = (0..200_000)
        .map(|i| format!("line {i:06} of a large file\n"))
        .collect();
    fs::write(root.join("big.txt"), &big).unwrap();
    let patch = dir.path().join("all.patch");
    fs::write(
        &patch,
        format!(
            "{PATCH}--- a/big.txt\n+++ b/big.txt\n@@\n line 000001 of a large file\n-line 000002 of a large file\n+TWO\n\
             @@\n-line 199999 of a large file\n+LAST\n"
        ),
    )
    .unwrap();
    let before = snapshot(&root);
    let flag = dir.path().join("paused");
    // Every file renamed into place, the journal not yet marked: killed.
    let paused = Paused::start(&root, &["../all.patch"], "finish", &flag);
    assert_eq!(
        fs::read_to_string(root.join("a.txt")).unwrap(),
        "one\nTWO\nthree\n"
    );
    assert!(
        fs::read_to_string(root.join("big.txt"))
            .unwrap()
            .ends_with("LAST\n")
    );
    let out = paused.signal("KILL");
    assert_eq!(out.status.code(), None);
    let out = run(&root, &["--recover"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("was undone"), "{err}");
    assert!(!err.contains("left as it is"), "{err}");
    assert_eq!(snapshot(&root), before, "{err}");
}

#[test]
fn with_index_a_disk_full_at_any_step_says_what_it_left() {
    // As above, in a repository on the small file system, with --index:
    // the index is written too, so there are more places to run out.
    let (_patch_dir, patch) = a_txt_patch();
    let patch = patch.as_str();
    let mut failures = 0;
    for extra in 0..14 {
        with_mount("size=16m", |root| {
            fs::write(root.join("a.txt"), "one\ntwo\nthree\n").unwrap();
            git(root, &["init", "-q"]);
            git(root, &["add", "a.txt"]);
            git(
                root,
                &[
                    "-c",
                    "user.name=t",
                    "-c",
                    "user.email=t@t",
                    "commit",
                    "-qm",
                    "base",
                ],
            );
            let size = (used_pages(root) + extra) * 4;
            let shrunk = Command::new("mount")
                .args(["-o", &format!("remount,size={size}k")])
                .arg(root)
                .status()
                .is_ok_and(|s| s.success());
            assert!(shrunk, "remount to {size}k");
            let index_before = git(root, &["ls-files", "-s"]);
            let out = run(root, &["--index", patch]);
            let err = stderr(&out);
            let now = fs::read_to_string(root.join("a.txt")).unwrap();
            eprintln!("{extra} pages free: exit {:?} {err}", out.status.code());
            match out.status.code() {
                Some(0) => assert_eq!(now, "one\nTWO\nthree\n", "{extra}: {err}"),
                Some(2) if now == "one\ntwo\nthree\n" => {
                    failures += 1;
                    // Stopped before writing (the lock), or undone: said so.
                    let said = err.contains("cannot take the lock")
                        || err.contains("left as it was")
                        || err.contains("put back as it was");
                    assert!(said && !err.contains("was applied"), "{extra}: {err}");
                    assert_eq!(
                        git(root, &["ls-files", "-s"]),
                        index_before,
                        "{extra}: {err}"
                    );
                }
                Some(2) => {
                    failures += 1;
                    assert_eq!(now, "one\nTWO\nthree\n", "{extra}: {err}");
                    assert!(err.contains("was applied"), "{extra}: {err}");
                }
                other => panic!("{extra}: exit {other:?}: {err}"),
            }
            assert!(!root.join(".git/index.lock").exists(), "{extra}: {err}");
            // Room again; an edit made now is never undone later.
            let _ = Command::new("mount")
                .args(["-o", "remount,size=16m"])
                .arg(root)
                .status();
            later_runs_keep_an_edit(root, patch, &extra.to_string(), &err);
        });
    }
    eprintln!("{failures} of 14 runs failed for want of space");
    assert!(failures > 0, "no run ran out of space");
}
