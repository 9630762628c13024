//! Faults while writing: the process killed at every step of a commit, a full
//! disk, a read-only directory among several, a concurrent run. After each,
//! the working tree (and the index) is entirely as before or entirely as
//! after, and nothing of ours is left behind.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support;
use support::scene::{PATCH, scene};
use support::{BIN, Entry, WATCHDOG, git, output_within, snapshot, stderr, with_mount};

mod sweep;

fn run(root: &Path, args: &[&str], exit_at: Option<usize>) -> Output {
    let mut command = Command::new(BIN);
    command.args(args).current_dir(root);
    match exit_at {
        Some(n) => command.env("GIT_FUZZY_APPLY_TEST_EXIT_AT", n.to_string()),
        None => command.env_remove("GIT_FUZZY_APPLY_TEST_EXIT_AT"),
    };
    output_within(&mut command, b"", WATCHDOG)
}

/// The tree the patch should produce from `before`.
fn expected_after(root: &Path) -> BTreeMap<PathBuf, Entry> {
    let (_dir, other) = scene(false);
    let out = run(&other, &["../patch"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let after = snapshot(&other);
    assert!(after.contains_key(Path::new("new/c.txt")));
    assert!(!after.contains_key(Path::new("old")));
    let _ = root;
    after
}

/// What the index holds, path by path (mode, blob, stage).
fn index_entries(root: &Path) -> String {
    git(root, &["ls-files", "-s"])
}

/// Kills a run at step 1, 2, 3, … until one completes; after each kill,
/// `--recover` (or, every other time, the next ordinary run) must leave the
/// tree entirely as before or entirely as after.
fn kill_at_every_step(repo: bool, extra: &[&str]) -> (usize, usize) {
    let (_dir, root) = scene(repo);
    let before = snapshot(&root);
    let index_before = repo.then(|| index_entries(&root));
    let after = expected_after(&root);
    let mut args = extra.to_vec();
    args.push("../patch");
    let (mut rolled_back, mut rolled_forward) = (0, 0);
    for step in 1.. {
        let (_dir, root) = scene(repo);
        let out = run(&root, &args, Some(step));
        if out.status.code() == Some(0) {
            assert_eq!(snapshot(&root), after, "completed run at step {step}");
            assert!(step > 5, "a commit has more than {step} steps");
            eprintln!("{args:?}: {} steps interrupted", step - 1);
            return (rolled_back, rolled_forward);
        }
        assert_eq!(
            out.status.code(),
            Some(137),
            "step {step}: {}",
            stderr(&out)
        );
        assert!(stderr(&out).contains(&format!("test exit at step {step}")));
        if step % 2 == 0 {
            // The next ordinary run puts things right first, then applies
            // the patch (or finds it applied already).
            let next = run(&root, &args, None);
            let err = stderr(&next);
            if err.contains("was undone") {
                assert_eq!(next.status.code(), Some(0), "step {step}: {err}");
                rolled_back += 1;
            } else if err.contains("clean-up was completed") {
                rolled_forward += 1;
            } else {
                // Killed before its journal (holding only its locks): the
                // next run has nothing to undo, at most a lock to remove.
                assert_eq!(next.status.code(), Some(0), "step {step}: {err}");
                assert!(!err.contains("error"), "step {step}: {err}");
                rolled_back += 1;
            }
            assert_eq!(snapshot(&root), after, "step {step}: {err}");
        } else {
            let recovered = run(&root, &["--recover"], None);
            assert_eq!(
                recovered.status.code(),
                Some(0),
                "step {step}: {}",
                stderr(&recovered)
            );
            let now = snapshot(&root);
            if now == before {
                rolled_back += 1;
                if let Some(index) = &index_before {
                    assert_eq!(&index_entries(&root), index, "step {step}: index");
                }
            } else {
                assert_eq!(now, after, "step {step}: neither before nor after");
                rolled_forward += 1;
            }
        }
        if repo {
            // Index and working tree agree: nothing unstaged.
            let unstaged = git(&root, &["diff", "--name-only"]);
            if extra.contains(&"--index") {
                assert_eq!(unstaged, "", "step {step}");
                let index = index_entries(&root);
                let staged = snapshot(&root) == after;
                assert_eq!(index.contains("new/c.txt"), staged, "step {step}: {index}");
                assert_eq!(index.contains("old/b.txt"), !staged, "step {step}: {index}");
            }
        }
        if repo {
            git(&root, &["fsck", "--no-progress"]);
            assert!(!root.join(".git/index.lock").exists(), "step {step}");
            assert!(!root.join(".git/fuzzy-apply/journal").exists());
        }
    }
    unreachable!()
}

#[test]
fn the_binary_has_the_test_hooks_and_ci_runs_the_readme_s_test_command() {
    // Every fault test drives the binary through the test seam, which only
    // a build with `--features test-hooks` has (release builds do not).
    let (_dir, root) = scene(false);
    let out = run(&root, &["../patch"], Some(1));
    assert_eq!(
        out.status.code(),
        Some(137),
        "the binary has no test hooks: run the tests as the README says, \
         `cargo test --locked --features test-hooks`; {}",
        stderr(&out)
    );
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = fs::read_to_string(manifest.join("README.md")).unwrap();
    let ci = fs::read_to_string(manifest.join(".ci/run")).unwrap();
    let command = "cargo test --locked --features test-hooks";
    assert!(readme.lines().any(|l| l == command), "README: {command}");
    assert!(ci.lines().any(|l| l == command), ".ci/run: {command}");
}

#[test]
fn killed_at_every_step_outside_a_repository_recovers_to_before_or_after() {
    let (back, forward) = kill_at_every_step(false, &[]);
    assert!(back > 0);
    eprintln!("outside a repository: {back} steps rolled back, {forward} forward");
}

#[test]
fn killed_at_every_step_with_index_recovers_tree_and_index_together() {
    let (back, forward) = kill_at_every_step(true, &["--index"]);
    assert!(back > 0 && forward > 0, "{back} back, {forward} forward");
}

#[test]
fn killed_at_every_step_in_a_repository_recovers() {
    let (back, _) = kill_at_every_step(true, &[]);
    assert!(back > 0);
}

#[test]
fn the_recovery_message_says_what_happened() {
    let (_dir, root) = scene(true);
    let out = run(&root, &["../patch"], Some(5));
    assert_eq!(out.status.code(), Some(137), "{}", stderr(&out));
    // The killed run left its journal…
    assert!(root.join(".git/fuzzy-apply/journal").exists());
    // …and the next run puts things right and applies the patch.
    let out = run(&root, &["../patch"], None);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("interrupted earlier run was undone"), "{err}");
    assert!(root.join("new/c.txt").exists());
    let out = run(&root, &["--recover"], None);
    assert!(stderr(&out).contains("no interrupted run"));
}

#[test]
fn a_live_run_holding_the_tree_stops_a_second_one() {
    let (_dir, root) = scene(false);
    let before = snapshot(&root);
    let lock = root.join(".git-fuzzy-apply.lock");
    // A live process (this one) holds the lock (flock), as a running run does.
    let held = fs::File::create(&lock).unwrap();
    // SAFETY: the descriptor is open for the whole call.
    let locked = unsafe {
        libc::flock(
            std::os::fd::AsRawFd::as_raw_fd(&held),
            libc::LOCK_EX | libc::LOCK_NB,
        )
    };
    assert_eq!(locked, 0);
    let out = run(&root, &["../patch"], None);
    drop(held);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("is working on this tree"),
        "{}",
        stderr(&out)
    );
    fs::remove_file(&lock).unwrap();
    assert_eq!(snapshot(&root), before);
    // A lock file nobody holds (its process is gone) is no lock, whatever
    // process id it names; it is taken, and released.
    fs::write(&lock, std::process::id().to_string()).unwrap();
    let out = run(&root, &["../patch"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!lock.exists());
}

#[test]
fn the_lock_is_released_on_refusal_and_on_error() {
    let (dir, root) = scene(false);
    fs::write(
        dir.path().join("stale"),
        "--- a/a.txt\n+++ b/a.txt\n@@\n-nope\n+x\n",
    )
    .unwrap();
    let out = run(&root, &["../stale"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(!root.join(".git-fuzzy-apply.lock").exists());
    let out = run(&root, &["../missing-patch"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(!root.join(".git-fuzzy-apply.lock").exists());
}

#[test]
fn a_full_disk_leaves_every_file_as_it_was() {
    with_mount("size=256k", |root| {
        let big = "x".repeat(150 * 1024);
        fs::write(root.join("a.txt"), "one\ntwo\nthree\n").unwrap();
        fs::write(root.join("big.txt"), format!("{big}\nlast\n")).unwrap();
        let patch = "--- a/a.txt\n+++ b/a.txt\n@@\n one\n-two\n+TWO\n three\n\
                     --- a/big.txt\n+++ b/big.txt\n@@\n-last\n+LAST\n";
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("patch"), patch).unwrap();
        let before = snapshot(root);
        let out = run(root, &[dir.path().join("patch").to_str().unwrap()], None);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains("big.txt") && err.contains("left as it was"),
            "{err}"
        );
        assert_eq!(snapshot(root), before);
    });
}

/// Runs `extra` (a patch for files under `ro/`, which holds `z.txt`) after
/// the scene's patch with `ro/` a read-only bind mount (root ignores
/// permission bits), and checks a clean refusal naming `named`: exit 2,
/// every file as it was, no journal left, and a second run (the directory
/// still read-only) refused the same way, not blocked by a pending
/// recovery.
fn refused_in_a_read_only_directory(extra: &str, named: &str) {
    let (_dir, root) = scene(false);
    let ro = root.join("ro");
    fs::create_dir(&ro).unwrap();
    fs::write(ro.join("z.txt"), "zed\n").unwrap();
    let bound = Command::new("mount")
        .args(["--bind"])
        .arg(&ro)
        .arg(&ro)
        .status()
        .is_ok_and(|s| s.success())
        && Command::new("mount")
            .args(["-o", "remount,ro,bind"])
            .arg(&ro)
            .status()
            .is_ok_and(|s| s.success());
    if !bound {
        let _ = Command::new("umount").arg(&ro).status();
        assert!(
            !crate::support::mounting_required(),
            "cannot bind-mount in CI"
        );
        eprintln!("skipped: cannot make a read-only bind mount here (needs root)");
        return;
    }
    fs::write(root.join("../patch2"), format!("{PATCH}{extra}")).unwrap();
    let before = snapshot(&root);
    let outs = [
        run(&root, &["../patch2"], None),
        run(&root, &["../patch2"], None),
    ];
    let _ = Command::new("umount").arg(&ro).status();
    for out in &outs {
        let err = stderr(out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains(named) && err.contains("left as it was"),
            "{err}"
        );
        assert!(!err.contains("--recover"), "{err}");
    }
    assert_eq!(snapshot(&root), before);
}

#[test]
fn a_read_only_directory_among_several_leaves_every_file_as_it_was() {
    refused_in_a_read_only_directory(
        "--- a/ro/z.txt\n+++ b/ro/z.txt\n@@\n-zed\n+ZED\n",
        "ro/z.txt",
    );
}

#[test]
fn a_file_added_in_a_read_only_directory_leaves_every_file_as_it_was() {
    refused_in_a_read_only_directory(
        "--- /dev/null\n+++ b/ro/new.txt\n@@ -0,0 +1 @@\n+new\n",
        "ro/new.txt",
    );
}

/// Applies `../patch` in `root` under `umask`, as a shell would start it.
fn run_under_umask(root: &Path, umask: &str) -> Output {
    let mut command = Command::new("sh");
    command
        .args([
            "-c",
            &format!("umask {umask}; exec \"$0\" \"$@\""),
            BIN,
            "../patch",
        ])
        .current_dir(root)
        .env_remove("GIT_FUZZY_APPLY_TEST_EXIT_AT");
    output_within(&mut command, b"", WATCHDOG)
}

/// Checks that the run succeeded and left `a.txt` patched with the
/// permission bits `mode` (special bits included).
fn assert_patched_with_mode(root: &Path, out: &Output, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(out));
    let meta = fs::metadata(root.join("a.txt")).unwrap();
    assert_eq!(meta.permissions().mode() & 0o7777, mode, "{mode:o}");
    assert_eq!(
        fs::read_to_string(root.join("a.txt")).unwrap(),
        "one\nTWO\nthree\n"
    );
}

#[test]
fn a_file_keeps_its_mode_whatever_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    // A strict umask must not narrow a shared file, and a loose one must
    // not widen a private file.
    for (umask, mode) in [("077", 0o644), ("000", 0o600), ("022", 0o664)] {
        let (_dir, root) = scene(false);
        fs::set_permissions(root.join("a.txt"), fs::Permissions::from_mode(mode)).unwrap();
        let out = run_under_umask(&root, umask);
        assert_patched_with_mode(&root, &out, mode);
    }
}

#[test]
fn a_file_keeps_its_special_bits_and_its_mode_from_its_stamp() {
    use std::os::unix::fs::PermissionsExt;
    // Changed more than two seconds ago, the file's bits are taken from the
    // stamp checked before writing (not asked again); the sticky bit, which
    // creating a file never sets, must survive too.
    let (_dir, root) = scene(false);
    fs::set_permissions(root.join("a.txt"), fs::Permissions::from_mode(0o1640)).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(2200));
    let out = run(&root, &["../patch"], None);
    assert_patched_with_mode(&root, &out, 0o1640);
}

#[test]
fn a_file_keeps_its_mode_under_a_default_acl() {
    use std::os::unix::fs::PermissionsExt;
    // A directory's default ACL, not the umask, gives new files their bits:
    // the staged file may be created narrower than the file it replaces.
    // `.ci/run` installs `setfacl` and sets GIT_FUZZY_APPLY_TEST_NEEDS_ACL,
    // so there the test cannot be skipped.
    let (_dir, root) = scene(false);
    let acl = Command::new("setfacl")
        .args(["-d", "-m", "u::rwx,g::r-x,o::---", "."])
        .current_dir(&root)
        .status();
    if !acl.is_ok_and(|s| s.success()) {
        assert!(
            std::env::var_os("GIT_FUZZY_APPLY_TEST_NEEDS_ACL").is_none(),
            "setfacl is missing or this file system has no ACLs"
        );
        eprintln!("skipped: setfacl is missing or this file system has no ACLs");
        return;
    }
    fs::set_permissions(root.join("a.txt"), fs::Permissions::from_mode(0o644)).unwrap();
    let out = run_under_umask(&root, "022");
    assert_patched_with_mode(&root, &out, 0o644);
}

#[test]
fn a_read_only_file_is_replaced_and_keeps_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let (_dir, root) = scene(false);
    fs::set_permissions(root.join("a.txt"), fs::Permissions::from_mode(0o444)).unwrap();
    let out = run(&root, &["../patch"], None);
    assert_patched_with_mode(&root, &out, 0o444);
}

#[test]
fn a_dead_run_s_index_lock_is_still_removed_after_a_recovery_that_failed() {
    // Found by the sweep: a `--index` run killed while holding index.lock,
    // then a `--recover` whose disk fails as it writes the run lock's
    // record. That recovery removed the run lock file, the only record
    // that the index.lock was the dead run's: it stayed for good.
    let (_dir, root) = scene(true);
    let out = run(&root, &["--index", "../patch"], Some(2));
    assert_eq!(out.status.code(), Some(137), "{}", stderr(&out));
    assert!(stderr(&out).contains("(locked)"), "{}", stderr(&out));
    assert!(root.join(".git/index.lock").exists());
    // Write step 1 creates the run lock, step 2 writes its record.
    let mut failing = Command::new(BIN);
    failing
        .arg("--recover")
        .current_dir(&root)
        .env("GIT_FUZZY_APPLY_TEST_FAIL_AT", "2");
    let out = output_within(&mut failing, b"", WATCHDOG);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("run lock record"), "{err}");
    assert!(err.contains("nothing was written"), "{err}");
    let out = run(&root, &["--recover"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("index.lock"), "{}", stderr(&out));
    assert!(!root.join(".git/index.lock").exists());
    assert!(!root.join(".git/fuzzy-apply/lock").exists());
    git(&root, &["status", "--porcelain"]);
}
