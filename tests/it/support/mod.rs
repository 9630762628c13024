//! Shared by the integration tests: runs the binary with a watchdog, so a
//! regression that makes a run hang fails its test within minutes instead of
//! stalling the whole suite (and CI) until an outer time limit.

use std::collections::BTreeMap;
use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::thread;
use std::time::Duration;
use wait_timeout::ChildExt;

pub mod diffs;
pub mod scene;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_git-fuzzy-apply");

/// The longest one run of the binary may take in a debug build before the
/// test fails. The slowest hostile case takes a few seconds.
pub const WATCHDOG: Duration = Duration::from_secs(180);

/// Runs the binary in `dir` with `args`, feeding `stdin` (empty when `None`).
pub fn run_bin(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut command = Command::new(BIN);
    command.args(args).current_dir(dir);
    output_within(&mut command, stdin.unwrap_or(b""), WATCHDOG)
}

/// Runs `command`, feeding it `stdin`, and collects its output; kills it and
/// panics if it has not finished within `limit`.
pub fn output_within(command: &mut Command, stdin: &[u8], limit: Duration) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    let mut input = child.stdin.take().expect("stdin");
    let stdin = stdin.to_vec();
    // A child that exits without reading its input closes the pipe: ignore
    // the write error, the exit status tells what happened.
    let feeder = thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let stdout = drain(child.stdout.take().expect("stdout"));
    let stderr = drain(child.stderr.take().expect("stderr"));
    let status = match child.wait_timeout(limit).expect("wait") {
        Some(status) => status,
        None => kill(&mut child, command, limit),
    };
    let _ = feeder.join();
    Output {
        status,
        stdout: stdout.join().expect("stdout reader"),
        stderr: stderr.join().expect("stderr reader"),
    }
}

fn drain(mut pipe: impl Read + Send + 'static) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        bytes
    })
}

fn kill(child: &mut Child, command: &Command, limit: Duration) -> ! {
    let _ = child.kill();
    let _ = child.wait();
    panic!("{command:?} still running after {limit:?}: killed (a hang or a quadratic path?)");
}

/// One entry of a tree snapshot: what is at a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A regular file: its bytes and permission bits.
    File(Vec<u8>, u32),
    /// A directory and its permission bits.
    Dir(u32),
    /// A symbolic link and where it points.
    Link(PathBuf),
    /// Anything else (FIFO, socket, device).
    Other,
}

/// Every path under `root` (not following links, `.git` left out) and what is there.
pub fn snapshot(root: &Path) -> BTreeMap<PathBuf, Entry> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let mut entries: Vec<_> = fs::read_dir(&dir)
            .expect("read_dir")
            .map(|e| e.expect("entry").path())
            .collect();
        entries.sort();
        for path in entries {
            let meta = fs::symlink_metadata(&path).expect("metadata");
            let mode = meta.permissions().mode() & 0o7777;
            let rel = path.strip_prefix(root).expect("inside").to_path_buf();
            if rel == Path::new(".git") {
                continue;
            }
            let entry = if meta.file_type().is_symlink() {
                Entry::Link(fs::read_link(&path).expect("read_link"))
            } else if meta.is_dir() {
                stack.push(path.clone());
                Entry::Dir(mode)
            } else if meta.is_file() {
                Entry::File(fs::read(&path).expect("read"), mode)
            } else {
                Entry::Other
            };
            out.insert(rel, entry);
        }
    }
    out
}

/// Runs git in `dir` with a fixed identity (commits need one); panics with
/// git's message when it fails, else returns its standard output.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@localhost")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@localhost")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The standard error of a run, as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// True where a test that needs to mount (a tmpfs, a read-only bind
/// mount) must not skip: `.ci/run` sets `GIT_FUZZY_APPLY_TEST_NEEDS_MOUNT`
/// (CI runs as root), and so may a CI service (`CI`).
pub fn mounting_required() -> bool {
    std::env::var_os("GIT_FUZZY_APPLY_TEST_NEEDS_MOUNT").is_some()
        || std::env::var_os("CI").is_some()
}

/// Runs `f` with a fresh tmpfs mounted with `options`; skipped when this
/// process may not mount (CI runs as root, where it never skips).
pub fn with_mount(options: &str, f: impl FnOnce(&Path)) {
    let dir = tempfile::tempdir().expect("tempdir");
    let point = dir.path().join("mnt");
    fs::create_dir(&point).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", options, "tmpfs"])
        .arg(&point)
        .output();
    if !matches!(&mounted, Ok(o) if o.status.success()) {
        assert!(!mounting_required(), "cannot mount a tmpfs in CI");
        eprintln!("skipped: cannot mount a tmpfs here (needs root)");
        return;
    }
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&point)));
    let _ = Command::new("umount").arg(&point).status();
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
}

/// The pages of 4 KiB in use on the file system of `path`.
pub fn used_pages(path: &Path) -> u64 {
    let out = Command::new("df")
        .args(["-B4096", "--output=used"])
        .arg(path)
        .output()
        .expect("df runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .expect("df prints a number")
}

/// A copy of the tree `from` (links as links, the index with it), its
/// index refreshed so that `git apply --index` trusts its stat data.
pub fn copy_repo(from: &Path, to: &Path) {
    let status = Command::new("cp")
        .args(["-a", &from.display().to_string(), &to.display().to_string()])
        .status()
        .expect("cp runs");
    assert!(status.success());
    let _ = Command::new("git")
        .args(["update-index", "-q", "--refresh"])
        .current_dir(to)
        .status();
}

/// The staged entries of the repository at `root` (mode, blob, path).
pub fn staged(root: &Path) -> String {
    git(root, &["ls-files", "-s"])
}

/// Each path's inode and change time, not following links: what a run
/// that writes nothing leaves as it was.
pub fn inodes(root: &Path) -> Vec<(std::path::PathBuf, u64, i64, i64)> {
    use std::os::unix::fs::MetadataExt;
    snapshot(root)
        .into_keys()
        .map(|rel| {
            let meta = std::fs::symlink_metadata(root.join(&rel)).expect("metadata");
            (rel, meta.ino(), meta.ctime(), meta.ctime_nsec())
        })
        .collect()
}

/// Runs `--stat`, `--numstat` and `--summary` with `patch` (named `name`
/// in messages) in `root` and asserts that each prints what `git apply`
/// prints, but for `--summary`'s rename lines (git gives a similarity the
/// patch model does not keep).
pub fn stat_as_git_apply(root: &Path, patch: &str, name: &str) {
    let renames = |text: &str| -> String {
        let kept = text.lines().filter(|l| !l.starts_with(" rename "));
        kept.map(|l| format!("{l}\n")).collect()
    };
    for option in ["--stat", "--numstat", "--summary"] {
        let out = run_bin(root, &[option, patch], None);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        assert_eq!(
            renames(&String::from_utf8_lossy(&out.stdout)),
            renames(&git(root, &["apply", option, patch])),
            "{name} {option}"
        );
    }
}

/// Runs `patch` (a file's path) with `--check` and then `--cached` on a
/// copy of the repository `root` made under `dir`, and `git apply
/// --cached` on another: `--check` writes nothing, `--cached` leaves the
/// working tree as it was and stages what git stages.
pub fn check_and_cached_as_git_apply(dir: &Path, root: &Path, patch: &str) {
    let (ours, theirs) = (dir.join("ours"), dir.join("theirs"));
    copy_repo(root, &ours);
    copy_repo(root, &theirs);
    let tree = snapshot(&ours);
    let check = run_bin(&ours, &["--check", patch], None);
    assert!(check.status.success(), "{}", stderr(&check));
    assert_eq!(snapshot(&ours), tree, "--check wrote");
    let out = run_bin(&ours, &["--cached", patch], None);
    assert!(out.status.success(), "{}", stderr(&out));
    git(&theirs, &["apply", "--cached", patch]);
    assert_eq!(snapshot(&ours), tree, "--cached touched the working tree");
    assert_eq!(staged(&ours), staged(&theirs));
}

/// Runs `patch` (a file's path) with `--index` on copies of the
/// repository `root` made under `dir`, failing (or exiting) at every write
/// step in turn, then `--recover`: each tree must be as before or as after
/// a clean run, and its index must agree with it.
pub fn faults_leave_before_or_after(dir: &Path, root: &Path, patch: &str) {
    let (before, before_index) = (snapshot(root), staged(root));
    let done = dir.join("done");
    copy_repo(root, &done);
    let out = run_bin(&done, &["--index", patch], None);
    assert!(out.status.success(), "{}", stderr(&out));
    let (after, after_index) = (snapshot(&done), staged(&done));
    let mut seen = (0, 0);
    for step in 1..60 {
        for (variable, value) in [
            ("GIT_FUZZY_APPLY_TEST_FAIL_AT", format!("{step}")),
            ("GIT_FUZZY_APPLY_TEST_EXIT_AT", format!("{step}")),
        ] {
            let tree = dir.join(format!("s{step}-{variable}"));
            copy_repo(root, &tree);
            let mut command = Command::new(BIN);
            command
                .args(["--index", patch])
                .current_dir(&tree)
                .env(variable, &value);
            output_within(&mut command, b"", WATCHDOG);
            let recovered = run_bin(&tree, &["--recover"], None);
            assert!(recovered.status.success(), "{}", stderr(&recovered));
            let now = snapshot(&tree);
            let odd: Vec<&PathBuf> = now
                .iter()
                .filter(|(p, e)| before.get(*p) != Some(e) && after.get(*p) != Some(e))
                .map(|(p, _)| p)
                .collect();
            assert!(
                now == before || now == after,
                "{variable}={value}: neither before nor after (paths like neither: {odd:?})"
            );
            let index = staged(&tree);
            if now == before {
                seen.0 += 1;
                assert_eq!(index, before_index, "{variable}={value}: index");
                assert_eq!(
                    git(&tree, &["status", "--porcelain"]),
                    "",
                    "{variable}={value}"
                );
            } else {
                seen.1 += 1;
                assert_eq!(index, after_index, "{variable}={value}: index");
            }
        }
        fs::remove_dir_all(dir.join(format!("s{step}-GIT_FUZZY_APPLY_TEST_FAIL_AT"))).ok();
        fs::remove_dir_all(dir.join(format!("s{step}-GIT_FUZZY_APPLY_TEST_EXIT_AT"))).ok();
    }
    assert!(
        seen.0 > 40 && seen.1 > 2,
        "the faults reached too few steps: {seen:?}"
    );
}
